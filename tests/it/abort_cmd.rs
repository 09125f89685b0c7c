//! `analyst abort`: 204 prints `aborted <chatId>`; 403 and 404 exit 3 and 4 saying why.

use crate::common;

use common::scripted::*;
use serde_json::json;

fn abort_cmd(home: &std::path::Path, server: &Server) -> assert_cmd::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_API_KEY", "k")
        .args(["abort", "--url", &server.url(), "--external-id", "bot"]);
    cmd
}

#[test]
fn abort_posts_to_the_abort_url_with_the_identity() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|_, _| Reply {
        status: 204,
        parts: vec![],
    });
    abort_cmd(home.path(), &server)
        .args(["--chat-id", "c1"])
        .assert()
        .success()
        .stdout("")
        .stderr("aborted c1\n");
    let seen = server.seen();
    assert_eq!(seen[0].path, "/api/v1/public/acme/agents/3/chat/abort");
    assert_eq!(
        seen[0].body,
        json!({"chatId": "c1", "sessionSettings": {"externalId": "bot"}})
    );
}

#[test]
fn refusals_say_what_happened() {
    let home = tempfile::tempdir().unwrap();
    let forbidden = Server::start(|_, _| Reply::status(403, r#"{"error":"Not your thread"}"#));
    let out = abort_cmd(home.path(), &forbidden)
        .args(["--chat-id", "c1"])
        .assert()
        .code(3);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("not yours") && stderr.contains("Not your thread"),
        "{stderr}"
    );
    let missing = Server::start(|_, _| Reply::status(404, ""));
    let out = abort_cmd(home.path(), &missing)
        .args(["--chat-id", "c1"])
        .assert()
        .code(4);
    assert!(text(&out.get_output().stderr).contains("thread c1 was not found"));
    abort_cmd(home.path(), &missing).assert().code(2);
}

/// PROTOCOL.md: some servers answer bad credentials with 200 and a JSON-RPC style error
/// object. That is exit 3 whatever its words, for `abort` and `state` alike (the status was
/// guessed from the words: "jwt expired" was 1, "Not authorized" 1 for abort and 3 for state).
#[test]
fn a_json_rpc_error_in_a_200_is_a_refusal_whatever_its_words() {
    let home = tempfile::tempdir().unwrap();
    for message in [
        "Invalid API key",
        "Not authorized",
        "Missing Authorization header",
        "jwt expired",
        "bad key",
        "Computer says no",
    ] {
        let body = json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": message}});
        let server = Server::start(move |_, _| Reply::status(200, &format!("{body}\n")));
        let out = abort_cmd(home.path(), &server)
            .args(["--chat-id", "c1"])
            .assert()
            .code(3);
        assert!(
            text(&out.get_output().stderr).contains(message),
            "abort names the server's words: {message}"
        );
        analyst(home.path())
            .env("ANALYST_API_KEY", "k")
            .args(["state", "--url", &server.url(), "--external-id", "bot"])
            .args(["--chat-id", "c1", "-o", "json"])
            .assert()
            .code(3)
            .stdout("");
    }
    // Unless it says "not found": 4 for both, as one rule reads it.
    let body =
        json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "Thread c1 not found"}});
    let server = Server::start(move |_, _| Reply::status(200, &format!("{body}\n")));
    abort_cmd(home.path(), &server)
        .args(["--chat-id", "c1"])
        .assert()
        .code(4);
    analyst(home.path())
        .env("ANALYST_API_KEY", "k")
        .args(["state", "--url", &server.url(), "--external-id", "bot"])
        .args(["--chat-id", "c1", "-o", "json"])
        .assert()
        .code(4)
        .stdout("");
}
