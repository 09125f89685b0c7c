//! `serve -v` / `-vv` as a user debugging a script sees them: one line per request on stderr
//! (method, path, status, duration, user), bodies with `-vv`, and no secret ever printed.

mod common;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};

/// `analyst serve -v…` on a free port with a known key; its banner (`-o json`) once it listens.
fn serve(home: &std::path::Path, verbosity: &str) -> (Child, Value) {
    let key = home.join("key");
    std::fs::write(&key, "sk-LOGGED-NEVER-123").unwrap();
    let mut child = common::isolation::isolated(home)
        .args([
            "serve",
            verbosity,
            "--listen",
            "127.0.0.1:0",
            "--pace",
            "0",
            "-o",
            "json",
        ])
        .arg("--api-key-file")
        .arg(&key)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, serde_json::from_str(&line).unwrap())
}

/// Stop the server and return all it wrote on stderr.
fn stop(mut child: Child) -> String {
    child.kill().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let _ = child.wait();
    stderr
}

fn chat(home: &std::path::Path, banner: &Value, args: &[&str]) {
    let out = common::isolation::isolated(home)
        .env("ANALYST_CHAT_URL", banner["chatUrl"].as_str().unwrap())
        .env("ANALYST_API_KEY", banner["apiKey"].as_str().unwrap())
        .args(["chat", "-o", "final", "--external-id", "ana"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn verbose_logs_one_line_per_request_with_its_user() {
    let home = tempfile::tempdir().unwrap();
    let (child, banner) = serve(home.path(), "-v");
    chat(home.path(), &banner, &["How many orders last year?"]);
    let stderr = stop(child);
    let line = stderr
        .lines()
        .find(|l| l.contains("POST") && l.contains("/chat/stream-chat-state"))
        .unwrap_or_else(|| panic!("no request line in:\n{stderr}"));
    assert!(line.contains(" 200 "), "{line}");
    assert!(line.contains("user=ana"), "{line}");
    assert!(line.contains("ms"), "a duration: {line}");
    assert!(
        !stderr.contains("How many orders"),
        "-v shows no bodies: {stderr}"
    );
    assert!(!stderr.contains("sk-LOGGED-NEVER-123"), "{stderr}");
}

#[test]
fn very_verbose_adds_bodies_with_secrets_masked() {
    let home = tempfile::tempdir().unwrap();
    let (child, banner) = serve(home.path(), "-vv");
    chat(
        home.path(),
        &banner,
        &[
            "--security-context",
            r#"{"tenant":"SECRET-CONTEXT-456"}"#,
            "How many orders last year?",
        ],
    );
    let stderr = stop(child);
    assert!(
        stderr.contains("How many orders last year?"),
        "the body: {stderr}"
    );
    assert!(!stderr.contains("SECRET-CONTEXT-456"), "{stderr}");
    assert!(!stderr.contains("sk-LOGGED-NEVER-123"), "{stderr}");
}
