//! The demo's sample database is a cache (`$XDG_CACHE_HOME/analyst`): built once a date and
//! build, opened by later runs with the same numbers, rebuilt when the file is damaged, and
//! never more than a few dates of it kept; processes that start together on a new date build
//! it once.

use crate::common;

use std::path::Path;

fn final_answer(home: &Path, cache: &Path, today: &str) -> (i32, String) {
    let out = common::isolation::isolated(home)
        .env("XDG_CACHE_HOME", cache)
        .args([
            "chat",
            "--demo",
            "--today",
            today,
            "-o",
            "final",
            "Revenue 2025",
        ])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn kept(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("analyst"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn the_sample_is_kept_per_date_reused_rebuilt_when_damaged_and_pruned() {
    let home = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (code, first) = final_answer(home.path(), cache.path(), "2026-06-30");
    assert_eq!(code, 0, "{first}");
    let files = kept(cache.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("-2026-06-30.sqlite"), "{files:?}");
    // Opened, not built: the same answer.
    assert_eq!(
        final_answer(home.path(), cache.path(), "2026-06-30"),
        (0, first.clone())
    );
    // A damaged file is not trusted: the sample is built again and the file replaced.
    let file = cache.path().join("analyst").join(&files[0]);
    std::fs::write(&file, b"SQLite format 3\0 and then nothing").unwrap();
    assert_eq!(
        final_answer(home.path(), cache.path(), "2026-06-30"),
        (0, first)
    );
    assert!(std::fs::metadata(&file).unwrap().len() > 1_000_000);
    // Four more dates, five in all: at most four kept, the most recent among them and the
    // least recently used (2026-06-30) gone.
    for day in ["2026-07-01", "2026-07-02", "2026-07-03", "2026-07-04"] {
        assert_eq!(final_answer(home.path(), cache.path(), day).0, 0);
    }
    let files = kept(cache.path());
    assert_eq!(files.len(), 4, "{files:?}");
    assert!(
        files.iter().any(|f| f.ends_with("-2026-07-04.sqlite")),
        "{files:?}"
    );
    assert!(
        !files.iter().any(|f| f.ends_with("-2026-06-30.sqlite")),
        "{files:?}"
    );
}

/// Three demo commands started together on a date not yet kept: one builds the sample, the
/// others wait for its file and open it. Told apart by the CPU each spent (a build is about a
/// second of it in a debug build, an open a small part of that), measured by the kernel for
/// each child, so the threads' timing does not matter: started one after another, the later
/// ones open the file too.
#[test]
#[cfg(unix)]
fn commands_started_together_build_a_date_once() {
    let home = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let children: Vec<std::process::Child> = (0..3)
        .map(|_| {
            common::isolation::isolated(home.path())
                .env("XDG_CACHE_HOME", cache.path())
                .args(["sql", "--demo", "--today", "2026-05-05", "-o", "csv"])
                .arg("SELECT MEASURE(count) FROM orders")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut runs = Vec::new();
    for mut child in children {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        let (code, cpu) = wait_with_cpu(&child);
        assert_eq!(code, 0, "{out}");
        runs.push((cpu, out));
    }
    assert!(runs.iter().all(|r| r.1 == runs[0].1), "{runs:?}");
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(
        runs[0].0 + runs[1].0 < runs[2].0,
        "more than one build (CPU seconds of each): {runs:?}"
    );
    // One sample kept, and no lock or temporary file left beside it.
    let files = kept(cache.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("-2026-05-05.sqlite"), "{files:?}");
}

/// Wait for `child`: its exit status and the CPU seconds (user and system) it spent.
#[cfg(unix)]
fn wait_with_cpu(child: &std::process::Child) -> (i32, f64) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and both pointers are to live locals.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: `pid` is our child, not waited for yet.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}
