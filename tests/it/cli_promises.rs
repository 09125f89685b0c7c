//! Promises of CLI.md that no other test held the binary to: --show-thinking, -q, colour
//! choice, the chat URL from its parts, and timeout flags.

use crate::common;

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
        .stderr(predicate::str::contains(format!(
            "continue with: analyst chat --url {} --external-id bot --chat-id c1 MESSAGE",
            server.url()
        )));
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

/// `--chart` into a directory that is not there is a usage error before anything is sent (it
/// printed the whole answer, then failed with exit 1 when the files were due).
#[test]
fn a_chart_into_a_missing_directory_is_refused_before_sending() {
    let server = Server::always(happy(MID));
    let home = tempfile::tempdir().unwrap();
    let out = chat(home.path(), &server)
        .args(["-o", "final", "--chart", "no/such/dir/c.svg", "q"])
        .assert()
        .code(2);
    assert!(text(&out.get_output().stdout).is_empty());
    assert!(text(&out.get_output().stderr).contains("no directory no/such/dir"));
    assert!(server.seen().is_empty(), "nothing sent");
}

/// The continue hint keeps the branch the run worked on, and a key file named relative to
/// where the run was started is named absolutely, so the command works from anywhere.
#[test]
fn the_continue_hint_keeps_the_branch_and_absolute_key_paths() {
    let server = Server::always(happy(MID));
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("key"), "sk-test-secret").unwrap();
    let out = analyst(home.path())
        .current_dir(home.path())
        .args(["chat", "--url", &server.url(), "--external-id", "bot"])
        .args([
            "--api-key-file",
            "key",
            "--branch",
            "dev",
            "-o",
            "text",
            "q",
        ])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    let key = std::path::absolute(home.path().join("key")).unwrap();
    assert!(
        stderr.contains(&format!("--api-key-file {}", key.display()))
            && stderr.contains("--branch dev --chat-id c1 MESSAGE"),
        "{stderr}"
    );
    assert!(!stderr.contains("sk-test-secret"), "{stderr}");
}
