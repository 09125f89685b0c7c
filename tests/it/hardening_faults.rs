//! Matrix 2: every `--fault` kind of the emulator at several points of a stream or bulk run,
//! against the real `chat`, `state`, `abort` and `scim patch`.

use crate::common;

use common::serve::*;
use serde_json::{Value, json};

/// `drop-after=N` delivers exactly N lines, then cuts the connection (for every N, including
/// the first lines, which the emulator yields at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_after_n_delivers_n_lines_then_cuts() {
    for n in [1u64, 2, 1, 2, 1, 2, 3, 4, 6] {
        let srv = serve(&[&format!("drop-after={n}")]).await;
        let body = json!({"input": "How many orders?", "messageId": mid(1), "sessionSettings": ext("ana")});
        let mut stream = Lines::new(srv.chat(body).await);
        let mut got = Vec::new();
        let broke = loop {
            match stream.next().await {
                Ok(Some(line)) => got.push(serde_json::from_str::<Value>(&line).unwrap()),
                Ok(None) => break false,
                Err(_) => break true,
            }
        };
        assert!(broke, "drop-after={n}: the connection breaks");
        assert_eq!(got.len() as u64, n, "drop-after={n}: {got:?}");
    }
}

use common::hardening as hs;

/// One case of the matrix: faults, the command, the expected status, and a check of stdout.
struct Case {
    faults: Vec<String>,
    args: Vec<String>,
    code: i32,
    check: Check,
}

#[derive(Clone, Copy)]
enum Check {
    /// Nothing beyond the status (and no panic).
    Status,
    /// NDJSON without repeats (may be partial).
    NoRepeats,
    /// `-o final` printed the fault-free answer.
    Final,
}

fn case(faults: &[&str], args: &[&str], code: i32, check: Check) -> Case {
    Case {
        faults: faults.iter().map(|s| s.to_string()).collect(),
        args: args.iter().map(|s| s.to_string()).collect(),
        code,
        check,
    }
}

/// Run every case; collect all mismatches so one run shows the whole picture. Cases run eight
/// at a time, each with its own emulator and home: most of a case is waiting (idle timeouts,
/// delays, retry back-offs), which one at a time made this the slowest test of the suite.
fn run_matrix(
    cases: Vec<Case>,
    setup: impl Fn(&hs::Emulator, &std::path::Path, &mut Vec<String>) + Sync,
) -> usize {
    let expected = {
        let home = tempfile::tempdir().unwrap();
        let clean = hs::emulator(&[]);
        let out = hs::run(&mut hs::against(
            home.path(),
            &clean,
            &["chat", "-o", "final", hs::QUESTION],
        ));
        hs::expect_status(&out, 0, "fault-free");
        hs::outs(&out).0
    };
    let n = cases.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                while let Some(c) =
                    cases.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    if let Err(e) = run_case(c, &setup, &expected) {
                        failures.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    n
}

/// One case against a fresh emulator with its faults, in a home of its own.
fn run_case(
    c: &Case,
    setup: &(impl Fn(&hs::Emulator, &std::path::Path, &mut Vec<String>) + Sync),
    expected: &str,
) -> Result<(), String> {
    let home = tempfile::tempdir().unwrap();
    let faults: Vec<&str> = c.faults.iter().map(|s| s.as_str()).collect();
    let emu = hs::emulator(&faults);
    let mut args: Vec<String> = c.args.clone();
    setup(&emu, home.path(), &mut args);
    let argv: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let name = format!("{faults:?} {argv:?}");
    let out = hs::run(&mut hs::against(home.path(), &emu, &argv));
    let (stdout, stderr) = hs::outs(&out);
    if stderr.contains("panicked") || out.status.code() != Some(c.code) {
        return Err(format!(
            "{name}: exit {:?}, want {}\n  stderr: {}",
            out.status.code(),
            c.code,
            stderr.trim()
        ));
    }
    let result = std::panic::catch_unwind(|| match c.check {
        Check::Status => {}
        Check::NoRepeats => hs::assert_no_repeats(&stdout, &name),
        Check::Final => assert_eq!(stdout.trim(), expected.trim(), "{name}"),
    });
    result.map_err(|e| {
        let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
        format!("{name}: {}", &msg[..msg.len().min(400)])
    })
}

use Check::*;

#[test]
fn chat_under_every_fault_kind() {
    let q = hs::QUESTION;
    let mut cases = Vec::new();
    for n in [1, 2, 3, 5, 9, 16, 25] {
        // ndjson: what arrived, without repeats (with pace 0 the turn is over when the client
        // comes back, so the rest is in the state read, which is not written).
        cases.push(case(
            &[&format!("drop-after={n},times=1")],
            &["chat", "-o", "ndjson", q],
            0,
            NoRepeats,
        ));
        cases.push(case(
            &[&format!("drop-after={n},times=2")],
            &["chat", "-o", "final", q],
            0,
            Final,
        ));
    }
    for n in [1, 2] {
        // Every response dropped, state reads (two lines) too: the resume gives up, exit 6.
        cases.push(case(
            &[&format!("drop-after={n}")],
            &["chat", "-o", "ndjson", q],
            6,
            NoRepeats,
        ));
    }
    // State reads get through: the answer comes from the state.
    cases.push(case(
        &["drop-after=4"],
        &["chat", "-o", "final", q],
        0,
        Final,
    ));
    for n in [0, 1, 3, 9, 20] {
        cases.push(case(
            &[&format!("malformed-after={n},times=1")],
            &["chat", "-o", "ndjson", q],
            0,
            NoRepeats,
        ));
    }
    // A stall before the thread id arrives cannot be resumed: exit 6 within the idle timeout.
    cases.push(case(
        &["stall-after=0,times=1"],
        &["chat", "--idle-timeout", "1s", "-o", "final", q],
        6,
        Status,
    ));
    // Every response stalls after its first line, state reads too: resumes give up, exit 6.
    cases.push(case(
        &["stall-after=1"],
        &[
            "chat",
            "--idle-timeout",
            "1s",
            "--retries",
            "1",
            "-o",
            "ndjson",
            q,
        ],
        6,
        NoRepeats,
    ));
    for n in [1, 3, 12] {
        cases.push(case(
            &[&format!("stall-after={n},times=1")],
            &["chat", "--idle-timeout", "1s", "-o", "final", q],
            0,
            Final,
        ));
        // A state read is two lines, so it gets through and carries the answer.
        cases.push(case(
            &[&format!("stall-after={}", n + 2)],
            &["chat", "--idle-timeout", "1s", "-o", "final", q],
            0,
            Final,
        ));
    }
    // The service sends `__usage__` after `__suspended__` (seed wire): the turn is resumed.
    let suspend_rows: &[u64] = &[1, 3, 10, 20];
    for &n in suspend_rows {
        cases.push(case(
            &[&format!("suspend-after={n},times=1")],
            &["chat", "-o", "ndjson", q],
            0,
            NoRepeats,
        ));
        cases.push(case(
            &[&format!("suspend-after={n},times=1")],
            &["chat", "-o", "final", q],
            0,
            Final,
        ));
    }
    for n in [2, 8] {
        cases.push(case(
            &[&format!("hold-after={n},times=1")],
            &[
                "chat",
                "--idle-timeout",
                "1s",
                "--retries",
                "1",
                "-o",
                "ndjson",
                q,
            ],
            6,
            NoRepeats,
        ));
    }
    cases.push(case(
        &["delay=300ms"],
        &["chat", "-o", "final", q],
        0,
        Final,
    ));
    cases.push(case(
        &["delay=300ms,times=1"],
        &["chat", "--idle-timeout", "2s", "-o", "final", q],
        0,
        Final,
    ));
    for (code, want) in [
        (400, 2),
        (401, 3),
        (403, 3),
        (404, 4),
        (409, 5),
        (429, 1),
        (500, 1),
        (503, 1),
    ] {
        cases.push(case(
            &[&format!("status={code}")],
            &["chat", "-o", "ndjson", q],
            want,
            Status,
        ));
    }
    cases.push(case(
        &["status=503x1,retry-after=1"],
        &["chat", "-o", "final", q],
        1,
        Status,
    ));
    // Every second request fails: the first (the message) gets through.
    cases.push(case(
        &["status=500@0.5"],
        &["chat", "-o", "final", q],
        0,
        Final,
    ));
    run_matrix(cases, |_, _, _| {});
}

/// The chat id of a fresh thread (its `__cutoff__` arrives before any fault line).
fn thread(emu: &hs::Emulator, home: &std::path::Path) -> String {
    let out = hs::run(&mut hs::against(
        home,
        emu,
        &[
            "chat",
            "-o",
            "ndjson",
            "--retries",
            "0",
            "--idle-timeout",
            "1s",
            "How many orders?",
        ],
    ));
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let v: Value = serde_json::from_str(&first).unwrap_or_else(|_| panic!("no cutoff: {first}"));
    v["state"]["chatId"].as_str().unwrap().to_owned()
}

#[test]
fn state_and_abort_under_faults() {
    let mut cases = Vec::new();
    for (n, want) in [(1, 6), (2, 6)] {
        cases.push(case(
            &[&format!("drop-after={n}")],
            &["state", "-o", "ndjson"],
            want,
            NoRepeats,
        ));
    }
    cases.push(case(
        &["stall-after=1"],
        &["state", "--idle-timeout", "1s", "-o", "ndjson"],
        6,
        Status,
    ));
    cases.push(case(
        &["malformed-after=1"],
        &["state", "-o", "ndjson"],
        0,
        NoRepeats,
    ));
    cases.push(case(&["delay=200ms"], &["state", "-o", "json"], 0, Status));
    // The setup chat is request 1; the fault hits every second request, i.e. the read.
    for (code, want) in [(500, 1), (401, 3), (404, 4), (400, 2)] {
        cases.push(case(
            &[&format!("status={code}@0.5")],
            &["state", "-o", "json"],
            want,
            Status,
        ));
    }
    for (code, want) in [(403, 3), (404, 4), (500, 1), (401, 3), (409, 5)] {
        cases.push(case(
            &[&format!("status={code},on=abort")],
            &["abort"],
            want,
            Status,
        ));
    }
    cases.push(case(&["delay=200ms,on=abort"], &["abort"], 0, Status));
    cases.push(case(
        &["hold-after=3,on=chat,times=1"],
        &["abort"],
        0,
        Status,
    ));
    run_matrix(cases, |emu, home, args| {
        let id = thread(emu, home);
        args.extend(["--chat-id".to_owned(), id]);
    });
}

#[test]
fn scim_patch_under_faults() {
    let mut cases = Vec::new();
    let one = ["scim", "patch", "--deactivate", "-o", "ndjson"];
    for spec in [
        "delay=200ms,on=scim",
        "status=503x2,retry-after=0,on=scim",
        "status=429x1,retry-after=1,on=scim",
        "status=503@0.5,on=scim",
    ] {
        cases.push(case(&[spec], &one, 0, Status));
        cases.push(case(&[spec], &[&one[..], &["-j", "2"]].concat(), 0, Status));
    }
    for (code, want) in [
        (500, 1),
        (401, 3),
        (403, 3),
        (404, 4),
        (412, 5),
        (400, 2),
        (503, 1),
    ] {
        cases.push(case(
            &[&format!("status={code},on=scim")],
            &one,
            want,
            Status,
        ));
    }
    // A Retry-After beyond the cap is not waited for: the user fails at once.
    cases.push(case(
        &["status=429,retry-after=3600,on=scim"],
        &one,
        1,
        Status,
    ));
    run_matrix(cases, |emu, _, args| {
        // One user for the single-id cases, three for the bulk ones.
        let names: &[&str] = if args.contains(&"-j".to_owned()) {
            &["ana@example.com", "bo@example.com", "cy@example.com"]
        } else {
            &["ana@example.com"]
        };
        args.extend(names.iter().map(|n| emu.user_id(n)));
    });
}
