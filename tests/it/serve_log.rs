//! `serve -v` / `-vv` as a user debugging a script sees them: one line per request on stderr
//! (method, path, status, duration, user), bodies with `-vv`, and no secret ever printed.

use crate::common;

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

/// `analyst ARGS` with `env`, isolated; its exit status and stderr.
fn run(home: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String) {
    let mut cmd = common::isolation::isolated(home);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The request line of `method` on a path containing `path`.
fn request_line<'a>(stderr: &'a str, method: &str, path: &str) -> &'a str {
    stderr
        .lines()
        .find(|l| l.contains(&format!(" {method} ")) && l.contains(path))
        .unwrap_or_else(|| panic!("no {method} {path} line in:\n{stderr}"))
}

#[test]
fn very_verbose_masks_secrets_in_scim_bodies() {
    let home = tempfile::tempdir().unwrap();
    let (child, banner) = serve(home.path(), "-vv");
    let id = banner["users"][0]["id"].as_str().unwrap().to_owned();
    let env = [
        ("ANALYST_SCIM_URL", banner["scimUrl"].as_str().unwrap()),
        ("ANALYST_SCIM_TOKEN", banner["scimToken"].as_str().unwrap()),
    ];
    // A path naming the secret, and a path-less value object holding one.
    let (code, err) = run(
        home.path(),
        &env,
        &[
            "scim",
            "patch",
            &id,
            "--replace",
            "password=hunter2",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = run(
        home.path(),
        &env,
        &[
            "scim",
            "patch",
            &id,
            "--pathless",
            "--replace",
            "password=hunter3",
            "--replace",
            "displayName=Shown Name",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let stderr = stop(child);
    request_line(&stderr, "PATCH", "/Users/");
    assert!(
        stderr.contains("Shown Name"),
        "the body is logged: {stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(!stderr.contains("hunter3"), "{stderr}");
}

#[test]
fn verbose_logs_the_authenticated_user_and_only_that() {
    let home = tempfile::tempdir().unwrap();
    let (child, banner) = serve(home.path(), "-v");
    let id = banner["users"][0]["id"].as_str().unwrap().to_owned();
    let (code, err) = run(
        home.path(),
        &[
            ("ANALYST_DATA_URL", banner["dataUrl"].as_str().unwrap()),
            ("ANALYST_DATA_TOKEN", banner["dataToken"].as_str().unwrap()),
        ],
        &["sql", "SELECT categories_name FROM sales GROUP BY 1"],
    );
    assert_eq!(code, Some(0), "{err}");
    let scim_url = banner["scimUrl"].as_str().unwrap();
    let (code, err) = run(
        home.path(),
        &[
            ("ANALYST_SCIM_URL", scim_url),
            ("ANALYST_SCIM_TOKEN", "wrong-token"),
        ],
        &["scim", "patch", &id, "--deactivate", "-o", "json"],
    );
    assert_eq!(code, Some(3), "{err}");
    // A chat request whose key is refused names no user, whatever its body claims.
    let (code, err) = run(
        home.path(),
        &[
            ("ANALYST_CHAT_URL", banner["chatUrl"].as_str().unwrap()),
            ("ANALYST_API_KEY", "sk-wrong"),
        ],
        &["chat", "-o", "final", "--external-id", "mallory", "hi"],
    );
    assert_eq!(code, Some(3), "{err}");
    let stderr = stop(child);
    let data = request_line(&stderr, "POST", "/cubejs-api/v1/cubesql");
    assert!(
        data.contains(" 200 ") && data.contains("user=demo-user"),
        "{data}"
    );
    let scim = request_line(&stderr, "PATCH", "/Users/");
    assert!(scim.contains(" 401 ") && scim.ends_with("user=-"), "{scim}");
    let chat = request_line(&stderr, "POST", "/chat/stream-chat-state");
    assert!(chat.contains(" 401 ") && chat.ends_with("user=-"), "{chat}");
}
