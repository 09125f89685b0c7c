//! Matrix 7: a closed stdout (`| head -1`) ends every command quietly with status 0; a closed
//! stderr is no panic; an EPIPE that is not stdout's is an error.

use crate::common;

use common::hardening::*;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

/// Start `cmd` with piped stdout and stderr, read one line of stdout, close it, and wait.
fn head_1(cmd: &mut Command) -> (Option<i32>, String, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let errs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe is closed like `| head -1` does.
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap_or_else(|_| {
            unsafe { libc::kill(id as i32, libc::SIGKILL) };
            panic!("still running with a closed stdout")
        })
        .unwrap();
    (status.code(), first, errs.join().unwrap())
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&[]);
    // A thread to read.
    let out = run(&mut against(
        home.path(),
        &emu,
        &["chat", "-o", "ndjson", QUESTION],
    ));
    expect_status(&out, 0, "setup");
    let chat_id: serde_json::Value =
        serde_json::from_str(outs(&out).0.lines().next().unwrap()).unwrap();
    let chat_id = chat_id["state"]["chatId"].as_str().unwrap().to_owned();
    // A big saved stream: its final answer is far beyond a pipe's buffer.
    let big = home.path().join("big.ndjson");
    let answer = "word ".repeat(400_000);
    let mut saved = String::new();
    for i in 0..2000 {
        saved.push_str(&format!("{{\"id\":\"m{i}\",\"sort\":{i},\"role\":\"assistant\",\"content\":\"x\",\"isDelta\":false,\"graphPath\":[\"final\"]}}\n"));
    }
    saved.push_str(&format!("{{\"id\":\"f\",\"sort\":9999,\"role\":\"assistant\",\"content\":\"{}\\n{answer}\",\"isDelta\":false,\"graphPath\":[\"final\"]}}\n", "first line"));
    std::fs::write(&big, saved).unwrap();
    let ids: Vec<String> = ["ana@example.com", "bo@example.com", "cy@example.com"]
        .iter()
        .map(|n| emu.user_id(n))
        .collect();
    let mut scim = vec!["scim", "patch", "--activate", "-o", "ndjson", "-j", "2"];
    scim.extend(ids.iter().map(|s| s.as_str()));
    let cases: Vec<(&str, Command)> = vec![
        ("chat --demo", {
            let mut c = analyst(home.path());
            c.args(["chat", "--demo", "-o", "ndjson", QUESTION]);
            c
        }),
        (
            "chat text",
            against(home.path(), &emu, &["chat", "-o", "text", QUESTION]),
        ),
        (
            "state",
            against(
                home.path(),
                &emu,
                &["state", "--chat-id", &chat_id, "-o", "ndjson"],
            ),
        ),
        (
            "state table",
            against(
                home.path(),
                &emu,
                &["state", "--chat-id", &chat_id, "-o", "table"],
            ),
        ),
        ("scim patch bulk", against(home.path(), &emu, &scim)),
        ("extract-final big", {
            let mut c = analyst(home.path());
            c.args(["extract-final", big.to_str().unwrap()]);
            c
        }),
        ("completions", {
            let mut c = analyst(home.path());
            c.args(["completions", "zsh"]);
            c
        }),
        (
            "--dry-run",
            against(home.path(), &emu, &["chat", "--dry-run", QUESTION]),
        ),
    ];
    let mut failures = Vec::new();
    let n = cases.len();
    for (name, mut cmd) in cases {
        let (code, first, stderr) = head_1(&mut cmd);
        if code != Some(0)
            || stderr.contains("panicked")
            || stderr.to_lowercase().contains("broken pipe")
            || first.is_empty()
        {
            failures.push(format!(
                "{name}: exit {code:?}, first line {first:?}, stderr {stderr}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `serve -o json` prints its one line; a closed stdout does not stop or break it, and SIGTERM
/// ends it with 0.
#[test]
fn serve_with_a_closed_stdout_serves_and_stops_cleanly() {
    let home = tempfile::tempdir().unwrap();
    let mut child = analyst(home.path())
        .args(["serve", "--listen", "127.0.0.1:0", "-o", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let url = v["chatUrl"].as_str().unwrap().to_owned();
    // Still serving: a request is answered (401 without a key).
    let out = run(analyst(home.path()).env("ANALYST_API_KEY", "wrong").args([
        "state",
        "--url",
        &url,
        "--external-id",
        "bot",
        "--chat-id",
        "x",
    ]));
    expect_status(&out, 3, "serve answers after its stdout closed");
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// stderr is a pipe nobody reads any more: diagnostics are dropped, never a panic (101), and the
/// status is still the documented one.
#[test]
fn a_closed_stderr_is_not_a_panic() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&[]);
    let cases: Vec<(&str, Command, i32)> = vec![
        (
            "error path",
            against(home.path(), &emu, &["state", "--chat-id", "nope"]),
            4,
        ),
        (
            "abort 404",
            against(home.path(), &emu, &["abort", "--chat-id", "nope"]),
            4,
        ),
        (
            "usage",
            {
                let mut c = analyst(home.path());
                c.args(["scim", "patch", "-j", "0", "x"]);
                c
            },
            2,
        ),
        (
            "chat -vv",
            against(home.path(), &emu, &["chat", "-vv", "-o", "final", QUESTION]),
            0,
        ),
    ];
    let mut failures = Vec::new();
    for (name, mut cmd, want) in cases {
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let code = child.wait().unwrap().code();
        if code != Some(want) {
            failures.push(format!("{name}: exit {code:?}, want {want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `-j 0` would never patch anyone: refused as a usage error naming the flag.
#[test]
fn zero_concurrency_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&[]);
    let id = emu.user_id("ana@example.com");
    let out = run(&mut against(
        home.path(),
        &emu,
        &["scim", "patch", "--deactivate", "-j", "0", &id],
    ));
    expect_status(&out, 2, "-j 0");
    assert!(outs(&out).1.contains("-j"), "{}", outs(&out).1);
}

/// `--save` into a pipe whose reader went away: EPIPE, but not stdout's, so an error naming
/// the file, not a quiet exit 0 with a truncated save.
#[test]
fn a_broken_save_pipe_is_an_error_not_a_closed_stdout() {
    let home = tempfile::tempdir().unwrap();
    let fifo = home.path().join("save.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut f = std::fs::File::open(reader_path).unwrap();
        let mut byte = [0u8; 1];
        let _ = f.read(&mut byte);
        // Closed after one byte.
    });
    let out = run(analyst(home.path()).args([
        "chat",
        "--demo",
        "-o",
        "final",
        "--save",
        fifo.to_str().unwrap(),
        QUESTION,
    ]));
    reader.join().unwrap();
    let (_, stderr) = outs(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(
        out.status.code(),
        Some(0),
        "a failed --save is not success: {stderr}"
    );
    assert!(stderr.contains("save.fifo"), "names the file: {stderr}");
}
