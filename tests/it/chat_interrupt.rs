//! Ctrl-C during a stream: the first press aborts the thread (unless --no-abort), says how to
//! look at it later, and exits 130. Gated on output, not on sleeps.

use crate::common;

use common::scripted::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn interrupt(extra: &[&str]) -> (Server, std::process::Output) {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.is_abort() {
            Reply {
                status: 204,
                parts: vec![],
            }
        } else {
            Reply::lines(&[cutoff("c7", true), delta("a1", 1, "Books ")]).then_stall()
        }
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_analyst"))
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("ANALYST_API_KEY", "k")
        .args([
            "chat",
            "--url",
            &server.url(),
            "--external-id",
            "bot",
            "-o",
            "ndjson",
        ])
        .args(extra)
        .arg("Top?")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the stream is flowing: the first frame is on stdout.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("__cutoff__"), "{first}");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    (server, out)
}

#[test]
fn ctrl_c_aborts_the_thread_and_exits_130() {
    let (server, out) = interrupt(&[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("aborted c7"), "{stderr}");
    // The hint carries the run's flags, so that it works when pasted.
    assert!(
        stderr.contains(&format!(
            "analyst state --url {} --external-id bot --chat-id c7",
            server.url()
        )),
        "{stderr}"
    );
    let aborts: Vec<_> = server.seen().into_iter().filter(|s| s.is_abort()).collect();
    assert_eq!(aborts.len(), 1);
    assert_eq!(aborts[0].body["chatId"], "c7");
    assert_eq!(aborts[0].body["sessionSettings"]["externalId"], "bot");
}

#[test]
fn ctrl_c_with_no_abort_leaves_the_thread_running() {
    let (server, out) = interrupt(&["--no-abort"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("--external-id bot --chat-id c7"),
        "{stderr}"
    );
    assert!(!server.seen().iter().any(|s| s.is_abort()));
}
