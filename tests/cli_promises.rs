//! Promises of CLI.md that no other test held the binary to: --show-thinking, -q, colour
//! choice, the chat URL from its parts, and timeout flags.

mod common;

use common::scripted::*;
use predicates::prelude::*;

fn thinking_stream() -> Vec<String> {
    let mut lines = happy(MID);
    let thinking = r#"{"id":"th","sort":2,"role":"assistant","content":"","thinking":"Pondering the categories","isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent"]}"#;
    lines.insert(2, thinking.to_owned());
    lines
}

#[test]
fn thinking_is_shown_only_with_show_thinking() {
    let server = Server::always(thinking_stream());
    let home = tempfile::tempdir().unwrap();
    chat(home.path(), &server)
        .args(["-o", "text", "q"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Books lead.")
                .and(predicate::str::contains("Pondering").not()),
        );
    chat(home.path(), &server)
        .args(["-o", "text", "--show-thinking", "q"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Pondering the categories"));
}

#[test]
fn quiet_drops_the_hint_but_not_the_answer() {
    let server = Server::always(happy(MID));
    let home = tempfile::tempdir().unwrap();
    chat(home.path(), &server)
        .args(["-o", "text", "q"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "continue with: analyst chat --chat-id c1",
        ));
    chat(home.path(), &server)
        .args(["-o", "text", "-q", "q"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Books lead."))
        .stderr("");
}

#[test]
fn colour_follows_color_no_color_and_clicolor_force() {
    let server = Server::always(happy(MID));
    let home = tempfile::tempdir().unwrap();
    let escape = predicate::str::contains("\x1b[");
    // Off a terminal, with NO_COLOR (set by the test isolation): none.
    chat(home.path(), &server)
        .args(["-o", "text", "q"])
        .assert()
        .success()
        .stdout(escape.clone().not());
    chat(home.path(), &server)
        .args(["-o", "text", "--color", "always", "q"])
        .assert()
        .success()
        .stdout(escape.clone());
    chat(home.path(), &server)
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["-o", "text", "q"])
        .assert()
        .success()
        .stdout(escape.clone());
    chat(home.path(), &server)
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["-o", "text", "--color", "never", "q"])
        .assert()
        .success()
        .stdout(escape.not());
}

#[test]
fn the_chat_url_is_built_from_its_parts() {
    let home = tempfile::tempdir().unwrap();
    analyst(home.path())
        .env("ANALYST_API_KEY", "sk-test-secret")
        .args([
            "chat",
            "--dry-run",
            "--base-url",
            "https://ai.example.com/",
            "--account",
            "acme",
        ])
        .args(["--agent", "7", "--external-id", "bot", "hi"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "POST https://ai.example.com/api/v1/public/acme/agents/7/chat/stream-chat-state\n",
        ));
    analyst(home.path())
        .env("ANALYST_API_KEY", "sk-test-secret")
        .args([
            "chat",
            "--dry-run",
            "--account",
            "acme",
            "--external-id",
            "bot",
            "hi",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--base-url"));
}

#[test]
fn timeouts_are_checked() {
    let home = tempfile::tempdir().unwrap();
    for flag in ["--connect-timeout", "--idle-timeout"] {
        analyst(home.path())
            .args([
                "chat",
                flag,
                "0",
                "--url",
                "http://127.0.0.1:9/chat/stream-chat-state",
                "hi",
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{flag} \"0\": must be greater than zero"
            )));
    }
    // A valid value is taken (nothing listens on port 9 of loopback: a network failure, 6).
    analyst(home.path())
        .env("ANALYST_API_KEY", "sk-test-secret")
        .args(["chat", "--connect-timeout", "2s", "--external-id", "bot"])
        .args([
            "--url",
            "http://127.0.0.1:9/api/v1/public/a/agents/1/chat/stream-chat-state",
            "hi",
        ])
        .assert()
        .code(6);
}
