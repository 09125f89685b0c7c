//! Running a command and measuring it: wall time and peak RSS of the child, medians, a table.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One run's figures.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Wall time.
    pub wall: Duration,
    /// Peak resident set of the command (the largest of its processes), in KiB.
    pub max_rss_kib: i64,
}

/// Run `sh -c script` with stdout to /dev/null; panics if it fails, since a figure of a failed
/// run would be a lie.
///
/// Peak RSS comes from `/usr/bin/time`, not from our own wait4: a child forked from this process
/// starts out counting the harness's own resident pages (hundreds of MB of relay bodies), and
/// Linux keeps that peak across exec. `time` is small, so what it forks is measured cleanly.
pub fn run_shell(script: &str) -> Run {
    let rss_file = std::env::temp_dir().join(format!("analyst-bench-rss-{}", std::process::id()));
    let start = Instant::now();
    let mut child = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss_file)
        .arg("sh")
        .arg("-c")
        .arg(script)
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn sh");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child with valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(r, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "command failed: {script}"
    );
    // The child is reaped; stop std from waiting on it again.
    std::mem::forget(child.stdin.take());
    let _ = child.try_wait();
    let max_rss_kib = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|t| t.trim().lines().last()?.trim().parse().ok())
        .expect("/usr/bin/time reports peak RSS");
    Run { wall, max_rss_kib }
}

/// The median run of `n` (by wall time), after one warm-up run.
pub fn median(script: &str, n: usize) -> Run {
    run_shell(script);
    let mut runs: Vec<Run> = (0..n.max(1)).map(|_| run_shell(script)).collect();
    runs.sort_by_key(|r| r.wall);
    let peak = runs.iter().map(|r| r.max_rss_kib).max().unwrap_or(0);
    Run {
        wall: runs[runs.len() / 2].wall,
        max_rss_kib: peak,
    }
}

/// A command for [`paired`]: a program and its arguments (no shell, whose own start-up would
/// count), extra environment, and where its stdout goes (/dev/null unless a file is named).
#[derive(Clone, Debug, Default)]
pub struct Cmd {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub out: Option<std::path::PathBuf>,
}

impl Cmd {
    /// A command from its words.
    pub fn new<S: AsRef<str>>(argv: &[S]) -> Cmd {
        Cmd {
            argv: argv.iter().map(|a| a.as_ref().to_owned()).collect(),
            ..Cmd::default()
        }
    }

    /// With stdout to `path` (created anew each run).
    pub fn stdout_to(mut self, path: &std::path::Path) -> Cmd {
        self.out = Some(path.to_owned());
        self
    }

    /// With `pairs` (`NAME=value`) in its environment.
    pub fn env(mut self, pairs: &str) -> Cmd {
        for pair in pairs.split_whitespace() {
            let (k, v) = pair.split_once('=').expect("NAME=value");
            self.env.push((k.to_owned(), v.to_owned()));
        }
        self
    }
}

/// Wall times of commands run in turns: each round runs every command once, in order, so that
/// a slow spell of a shared machine falls on all of them alike. One warm-up round first, not
/// counted. Panics if a command fails: a figure of a failed run would be a lie.
pub fn paired(cmds: &[Cmd], rounds: usize) -> Vec<Vec<Duration>> {
    let mut times = vec![Vec::new(); cmds.len()];
    for round in 0..=rounds.max(1) {
        for (i, cmd) in cmds.iter().enumerate() {
            let stdout = match &cmd.out {
                Some(path) => Stdio::from(std::fs::File::create(path).expect("output file")),
                None => Stdio::null(),
            };
            let start = Instant::now();
            let status = Command::new(&cmd.argv[0])
                .args(&cmd.argv[1..])
                .envs(cmd.env.iter().map(|(k, v)| (k, v)))
                .stdout(stdout)
                .status()
                .expect("spawn");
            let wall = start.elapsed();
            assert!(status.success(), "command failed ({status}): {cmd:?}");
            if round > 0 {
                times[i].push(wall);
            }
        }
    }
    times
}

/// The median of some durations.
pub fn median_of(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[d.len() / 2]
}

/// The median of the ratios `a[i] / b[i]` of paired runs.
pub fn median_ratio(a: &[Duration], b: &[Duration]) -> f64 {
    let mut r: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
        .collect();
    r.sort_by(f64::total_cmp);
    r[r.len() / 2]
}

/// A row of the results table.
pub struct Row {
    /// What is measured.
    pub figure: String,
    /// Our figure, as text.
    pub ours: String,
    /// The peer and its figure.
    pub peer: String,
    /// The ratio or result that the target speaks of.
    pub ratio: String,
    /// The target.
    pub target: String,
    /// Whether the target is met.
    pub met: bool,
}

/// The rows as a Markdown table.
pub fn table(rows: &[Row]) -> String {
    let mut t = String::from(
        "| Figure | analyst | Peer | Ratio | Target | Met |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        t += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.figure,
            r.ours,
            r.peer,
            r.ratio,
            r.target,
            if r.met { "yes" } else { "NO" }
        );
    }
    t
}

/// The machine a run is on, as a page states it: cores (`nproc`), the CPU's model name and
/// the load average (from /proc, so the shared machine's other work shows beside the figures).
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown CPU".to_owned(), |m| m.trim().to_owned());
    let flags = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags"))
        .unwrap_or_default();
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    let simd = if has("avx512vbmi2") {
        "AVX-512 VBMI2"
    } else if has("avx2") {
        "AVX2, no AVX-512 VBMI2"
    } else {
        "SSE2"
    };
    format!(
        "{cores} cores, {model} ({simd}), at the end: load average {}",
        load_average()
    )
}

/// The 1-minute load average (/proc/loadavg).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Replace what lies between `<!-- bench-table:begin -->` and `<!-- bench-table:end -->` in the
/// page at `path` by `text` (the markers stay), so that one command regenerates the page's table.
pub fn write_into_page(path: &str, text: &str) -> std::io::Result<()> {
    const BEGIN: &str = "<!-- bench-table:begin -->";
    const END: &str = "<!-- bench-table:end -->";
    let page = std::fs::read_to_string(path)?;
    // Markers on lines of their own: the page's prose may name them.
    let line = |marker: &str| page.find(&format!("\n{marker}\n")).map(|i| i + 1);
    let (Some(b), Some(e)) = (line(BEGIN), line(END)) else {
        return Err(std::io::Error::other(format!(
            "{path}: no {BEGIN} ... {END} markers"
        )));
    };
    let updated = format!("{}{BEGIN}\n{text}{}", &page[..b], &page[e..]);
    std::fs::write(path, updated)
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
