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

/// Print the rows as a Markdown table (ready for the README).
pub fn print_table(rows: &[Row]) {
    println!("| Figure | analyst | Peer | Ratio | Target | Met |");
    println!("|---|---|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            r.figure,
            r.ours,
            r.peer,
            r.ratio,
            r.target,
            if r.met { "yes" } else { "NO" }
        );
    }
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
