//! The "Truths" of CLI.md (section `chat`) as a property over the emulator's faults: for every
//! fault `serve --fault` can inject, at several points of a stream, in every output format:
//!
//! - exit 0 means a complete final answer was printed (or, for `ndjson`, written);
//! - stdout (`ndjson`) and the `--save` file never hold a partial line, nor a line that is not a
//!   JSON object;
//! - a run that exits 0 leaves a `--save` file (and an `ndjson` stdout) from which
//!   `extract-final` and `chat --replay -o final` give the answer the live `-o final` printed;
//! - a turn is never asked twice: the thread holds the question once.
//!
//! Every run is checked and all mismatches are reported together.

use crate::common;
use common::hardening as hs;

use analyst::protocol::thread::state_messages;
use serde_json::Value;
use std::path::Path;
use std::process::Output;
use std::sync::Mutex;

const FORMATS: [&str; 5] = ["final", "ndjson", "json", "yaml", "text"];

/// One run's setting: the faults and the command's extra flags.
struct Case {
    fault: String,
    format: &'static str,
    extra: Vec<&'static str>,
    /// The run must recover (exit 0); otherwise any documented failure status will do.
    recovers: bool,
}

fn cases() -> Vec<Case> {
    let mut specs: Vec<(String, Vec<&'static str>, bool)> = Vec::new();
    for n in [0u64, 1, 3, 8] {
        // Before the first line (n = 0) the thread id never arrives: nothing can be resumed
        // without asking again, so the run must fail rather than recover.
        specs.push((format!("drop-after={n},times=1"), vec![], n > 0));
        specs.push((format!("cut-after={n},times=1"), vec![], n > 0));
        specs.push((format!("malformed-after={n},times=1"), vec![], true));
        specs.push((format!("suspend-after={n},times=1"), vec![], true));
    }
    for n in [1u64, 4] {
        // Every response of the turn dropped or cut twice: still within --retries 3.
        specs.push((format!("drop-after={n},times=3"), vec![], true));
        specs.push((format!("cut-after={n},times=3"), vec![], true));
        // Every response cut, state reads too: the run cannot recover.
        specs.push((format!("cut-after={n}"), vec![], false));
        // A stall is noticed by the idle timeout and resumed.
        specs.push((
            format!("stall-after={n},times=1"),
            vec!["--idle-timeout", "300ms"],
            n > 0,
        ));
        specs.push((
            format!("hold-after={n},times=1"),
            vec!["--idle-timeout", "300ms", "--retries", "1"],
            false,
        ));
    }
    for (spec, recovers) in [
        ("status=500,times=1", false),
        ("status=429,retry-after=1,times=1", false),
        ("status=400,times=1", false),
        ("status=401,times=1", false),
        ("delay=50ms,times=1", true),
    ] {
        specs.push((spec.to_owned(), vec![], recovers));
    }
    let mut cases = Vec::new();
    for (fault, extra, recovers) in specs {
        for format in FORMATS {
            cases.push(Case {
                fault: fault.clone(),
                format,
                extra: extra.clone(),
                recovers,
            });
        }
    }
    cases
}

/// Every line ends with a newline and is one JSON object.
fn whole_lines(what: &str, bytes: &[u8]) -> Result<(), String> {
    if bytes.is_empty() {
        return Ok(());
    }
    if bytes.last() != Some(&b'\n') {
        return Err(format!("{what} ends in a partial line"));
    }
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(_)) => {}
            _ => {
                return Err(format!(
                    "{what} line {} is not a JSON object: {}",
                    i + 1,
                    String::from_utf8_lossy(&line[..line.len().min(120)])
                ));
            }
        }
    }
    Ok(())
}

/// The answer a format printed, as `-o final` would print it.
fn printed_answer(format: &str, stdout: &[u8], home: &Path) -> Result<String, String> {
    let text = String::from_utf8_lossy(stdout);
    Ok(match format {
        "final" => text.trim().to_owned(),
        "json" => serde_json::from_str::<Value>(&text).map_err(|e| format!("json: {e}"))?["final"]
            .as_str()
            .unwrap_or_default()
            .trim()
            .to_owned(),
        "yaml" => {
            serde_norway::from_str::<Value>(&text).map_err(|e| format!("yaml: {e}"))?["final"]
                .as_str()
                .unwrap_or_default()
                .trim()
                .to_owned()
        }
        "ndjson" => {
            let file = home.join("stdout.ndjson");
            std::fs::write(&file, stdout).unwrap();
            extract(home, &file)?
        }
        _ => text.into_owned(),
    })
}

/// `extract-final FILE`, which must succeed.
fn extract(home: &Path, file: &Path) -> Result<String, String> {
    let out = hs::run(hs::analyst(home).arg("extract-final").arg(file));
    if out.status.code() != Some(0) {
        return Err(format!(
            "extract-final {} exits {:?}: {}",
            file.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `chat --replay FILE -o final`, which must succeed.
fn replay(home: &Path, file: &Path) -> Result<String, String> {
    let out = hs::run(
        hs::analyst(home)
            .args(["chat", "-o", "final", "--replay"])
            .arg(file),
    );
    if out.status.code() != Some(0) {
        return Err(format!(
            "--replay exits {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// How many times the thread of a saved stream holds the question (read from the emulator
/// once its faults are spent).
fn times_asked(home: &Path, emu: &hs::Emulator, save: &[u8]) -> Option<usize> {
    let first: Value = serde_json::from_slice(save.split(|b| *b == b'\n').next()?).ok()?;
    let chat_id = first["state"]["chatId"].as_str()?.to_owned();
    let out = hs::run(&mut hs::against(
        home,
        emu,
        &["state", "--chat-id", &chat_id, "-o", "ndjson"],
    ));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let state = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|f| f["id"] == "__state__")?;
    Some(
        state_messages(&state["state"])
            .iter()
            .filter(|m| m.role == "user")
            .count(),
    )
}

fn check(case: &Case, expected: &str) -> Result<(), String> {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let emu = hs::emulator(&[&case.fault]);
    let save = home.join("run.ndjson");
    let mut args = vec!["chat", "-o", case.format];
    args.extend(case.extra.iter().copied());
    let save_arg = save.to_string_lossy().into_owned();
    args.extend(["--save", &save_arg, hs::QUESTION]);
    let out: Output = hs::run(&mut hs::against(home, &emu, &args));
    let code = out.status.code();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let say = |what: String| format!("exit {code:?}: {what}\n    stderr: {}", stderr.trim());
    if stderr.contains("panicked") {
        return Err(say("panic".into()));
    }
    let saved = std::fs::read(&save).unwrap_or_default();
    whole_lines("--save", &saved).map_err(say)?;
    if case.format == "ndjson" {
        whole_lines("stdout", &out.stdout).map_err(say)?;
    }
    if code != Some(0) {
        if case.recovers {
            return Err(say("the run should have recovered".into()));
        }
        if !matches!(code, Some(1..=7)) {
            return Err(say("not a documented status".into()));
        }
        return Ok(());
    }
    let printed = printed_answer(case.format, &out.stdout, home).map_err(say)?;
    let complete = if case.format == "text" {
        printed.contains(expected)
    } else {
        printed == expected
    };
    if !complete {
        return Err(say(format!(
            "exit 0 without the complete answer: {:?}",
            &printed[..printed.len().min(200)]
        )));
    }
    for (what, got) in [
        ("extract-final --save", extract(home, &save)),
        ("--replay --save", replay(home, &save)),
    ] {
        let got = got.map_err(|e| say(format!("{what}: {e}")))?;
        if got != expected {
            return Err(say(format!("{what} gives another answer: {got:?}")));
        }
    }
    if case.format == "ndjson" && out.stdout != saved {
        return Err(say("--save differs from the ndjson stdout".into()));
    }
    match times_asked(home, &emu, &saved) {
        Some(1) => Ok(()),
        n => Err(say(format!("the thread holds the question {n:?} times"))),
    }
}

#[test]
fn the_truths_hold_under_every_fault_in_every_format() {
    let home = tempfile::tempdir().unwrap();
    let expected = {
        let clean = hs::emulator(&[]);
        let out = hs::run(&mut hs::against(
            home.path(),
            &clean,
            &["chat", "-o", "final", hs::QUESTION],
        ));
        hs::expect_status(&out, 0, "fault-free");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert!(!expected.is_empty());
    let cases = cases();
    let total = cases.len();
    let queue = Mutex::new(cases.into_iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                loop {
                    let Some(case) = queue.lock().unwrap().next() else {
                        break;
                    };
                    if let Err(e) = check(&case, &expected) {
                        failures.lock().unwrap().push(format!(
                            "--fault {} -o {} {:?}: {e}",
                            case.fault, case.format, case.extra
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {total} runs broke a truth:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
