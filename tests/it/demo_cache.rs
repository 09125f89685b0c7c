//! The demo's sample database is a cache (`$XDG_CACHE_HOME/analyst`): built once a date and
//! build, opened by later runs with the same numbers, rebuilt when the file is damaged, and
//! never more than a few dates of it kept.

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
