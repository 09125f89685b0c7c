//! A newcomer's first minutes, without a terminal: every hint on stderr works when pasted (live
//! and `--replay`), and `--demo` reads no config file at all.

use crate::common;

use common::scripted::{analyst, text};
use std::path::Path;

/// The `analyst ...` commands a run's stderr offers, as shell text.
pub(crate) fn hints(stderr: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in stderr.lines() {
        let mut rest = line;
        while let Some(at) = rest
            .find("analyst chat")
            .or_else(|| rest.find("analyst sql"))
        {
            let cmd = &rest[at..];
            // A hint runs to the end of its line, or to the next `; ` of a table's note.
            let end = cmd.find("; ").unwrap_or(cmd.len());
            found.push(cmd[..end].trim_end().to_owned());
            rest = &cmd[end..];
        }
    }
    found
}

/// Run a hint as pasted into a shell (MESSAGE filled in), isolated as `home`.
pub(crate) fn paste(home: &Path, hint: &str) -> std::process::Output {
    let line = hint
        .replacen("analyst ", "\"$0\" ", 1)
        .replace(" MESSAGE", " 'And in 2024?'");
    let mut cmd = std::process::Command::new("sh");
    common::isolation::isolate(&mut cmd, home);
    cmd.current_dir(home)
        .args(["-c", &line, env!("CARGO_BIN_EXE_analyst")])
        .output()
        .unwrap()
}

#[test]
fn hints_of_a_demo_run_and_of_its_replay_work_when_pasted() {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("run.ndjson");
    // `text` to a pipe: hints are still written (stderr), and --rows cuts the table so that
    // its note offers the `analyst sql` that fetches every row.
    let out = analyst(home.path())
        .current_dir(home.path())
        .args([
            "chat",
            "--demo",
            "--today",
            "2026-06-30",
            "-o",
            "text",
            "--save",
        ])
        .arg(&run)
        .arg("revenue by day in 2025")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let live = hints(&(text(&out.stdout) + &stderr));
    assert!(
        live.iter()
            .any(|h| h.starts_with("analyst chat --demo --today 2026-06-30 ")),
        "the continue hint carries --demo and --today: {live:?}\n{stderr}"
    );
    assert!(
        live.iter()
            .any(|h| h.starts_with("analyst sql --demo --today 2026-06-30 ")),
        "the cut table's note offers the sql with --demo and --today: {live:?}"
    );
    for hint in &live {
        let pasted = paste(home.path(), hint);
        assert_eq!(
            pasted.status.code(),
            Some(0),
            "pasted {hint:?}: {}",
            text(&pasted.stderr)
        );
    }
    // The replay of that file: whatever it offers works when pasted as well.
    let out = analyst(home.path())
        .current_dir(home.path())
        .args(["chat", "-o", "text", "--replay"])
        .arg(&run)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for hint in hints(&(text(&out.stdout) + &stderr)) {
        let pasted = paste(home.path(), &hint);
        assert_eq!(
            pasted.status.code(),
            Some(0),
            "the replay offered {hint:?}, which fails when pasted: {}",
            text(&pasted.stderr)
        );
    }
}

#[test]
fn a_broken_config_file_does_not_stop_demo_commands() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/analyst");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        "profiles: [this is: not: a config\n",
    )
    .unwrap();
    // The broken file stops a command that reads it...
    let out = analyst(home.path())
        .args([
            "chat",
            "--url",
            "http://127.0.0.1:9/x/chat/stream-chat-state",
            "hi",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // ...and none of the demo's, which read no config file at all.
    for args in [
        &[
            "chat",
            "--demo",
            "--today",
            "2026-06-30",
            "-o",
            "final",
            "Revenue 2025",
        ][..],
        &[
            "sql",
            "--demo",
            "--today",
            "2026-06-30",
            "-o",
            "csv",
            "SELECT MEASURE(revenue) FROM sales",
        ][..],
    ] {
        let out = analyst(home.path()).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(!out.stdout.is_empty());
    }
    // Nor does one named by ANALYST_CONFIG or a profile from the environment.
    let out = analyst(home.path())
        .env("ANALYST_CONFIG", dir.join("config.yaml"))
        .env("ANALYST_PROFILE", "nope")
        .args(["chat", "--demo", "-o", "final", "Revenue 2025"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
