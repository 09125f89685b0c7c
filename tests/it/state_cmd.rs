//! `analyst state`: a read without input or messageId, in every format.

use crate::common;

use common::scripted::*;
use serde_json::{Value, json};

fn thread() -> Vec<String> {
    vec![
        cutoff("c1", false),
        echo(MID, 1, "Top categories?"),
        sql_tool("t1", 2),
        complete("a1", 3, "Books lead."),
        state("Books lead."),
    ]
}

fn state_cmd(home: &std::path::Path, server: &Server) -> assert_cmd::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_API_KEY", "k")
        .args(["state", "--url", &server.url(), "--external-id", "bot"]);
    cmd
}

#[test]
fn reads_carry_the_thread_and_identity_only() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(thread());
    let out = state_cmd(home.path(), &server)
        .args(["--chat-id", "c1"])
        .assert()
        .success();
    let expected: String = thread().iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(text(&out.get_output().stdout), expected);
    assert_eq!(
        server.seen()[0].body,
        json!({"chatId": "c1", "sessionSettings": {"externalId": "bot"}})
    );
}

#[test]
fn table_json_and_yaml() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(thread());
    let out = state_cmd(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "table"])
        .assert()
        .success();
    let table = text(&out.get_output().stdout);
    for words in [
        "SORT",
        "Top categories?",
        "» dataSqlApi",
        "Books lead.",
        "final",
    ] {
        assert!(table.contains(words), "{words}: {table}");
    }
    let out = state_cmd(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["chatId"], "c1");
    assert_eq!(doc["isStreaming"], false);
    assert_eq!(doc["messages"].as_array().unwrap().len(), 3);
    assert_eq!(doc["messages"][1]["toolCall"]["name"], "dataSqlApi");
    let out = state_cmd(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "yaml"])
        .assert()
        .success();
    assert!(text(&out.get_output().stdout).contains("chatId: c1"));
}

#[test]
fn state_needs_a_thread_and_maps_errors() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(thread());
    state_cmd(home.path(), &server).assert().code(2);
    state_cmd(home.path(), &server).arg("-c").assert().code(2);
    let missing = Server::start(|_, _| Reply::status(404, r#"{"error":"Thread not found"}"#));
    let out = state_cmd(home.path(), &missing)
        .args(["--chat-id", "nope"])
        .assert()
        .code(4);
    assert!(text(&out.get_output().stderr).contains("Thread not found"));
}

/// A 200 that is empty, or stops before `__state__` (whole lines, or a line cut off), is not
/// the thread's state: exit 6 in every format, as chat treats it (it was exit 0, with an empty
/// or partial document that a script could not tell from an empty thread).
#[test]
fn a_read_that_ends_before_its_state_is_a_failure() {
    let home = tempfile::tempdir().unwrap();
    let all = thread();
    let bodies: Vec<Vec<String>> = vec![vec![], vec![all[0].clone()], all[..4].to_vec()];
    for lines in bodies {
        let server = Server::always(lines.clone());
        for format in ["json", "yaml", "table", "ndjson"] {
            let out = state_cmd(home.path(), &server)
                .args(["--chat-id", "c1", "-o", format])
                .assert()
                .code(6);
            assert!(
                text(&out.get_output().stderr).contains("no __state__"),
                "{format} {lines:?}: {}",
                text(&out.get_output().stderr)
            );
        }
    }
    // The front of the `__state__` line, cut off: never read as a state.
    let cut = all[4][..20].to_owned();
    let server = Server::start(move |_, _| Reply::status(200, &format!("{}\n{cut}", thread()[0])));
    let out = state_cmd(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "json"])
        .assert()
        .code(6);
    assert!(
        text(&out.get_output().stderr).contains("middle of a line"),
        "{}",
        text(&out.get_output().stderr)
    );
}

/// The table fits the terminal's width (it was 134 columns whatever the width), one line a
/// message; a thread still answering says so on stderr (stdout carries only the table; `-q`
/// leaves the hint out); and a read whose service leaves out
/// `__cutoff__` keeps the thread id the command asked for.
#[test]
fn the_table_fits_the_width_and_says_when_the_thread_still_answers() {
    let home = tempfile::tempdir().unwrap();
    let long = "Books lead the year with a wide margin over every other category, ".repeat(4);
    let mut lines = thread();
    lines[0] = cutoff("c1", true);
    lines[3] = complete("a1", 3, &long);
    let server = Server::always(lines);
    for width in [60, 80, 120] {
        let out = state_cmd(home.path(), &server)
            .env("COLUMNS", width.to_string())
            .args(["--chat-id", "c1", "-o", "table"])
            .assert()
            .success();
        let table = text(&out.get_output().stdout);
        assert!(
            table.lines().all(|l| l.chars().count() <= width),
            "{width}:\n{table}"
        );
        assert_eq!(
            common::table::parse(&table).rows.len(),
            3,
            "one line a message:\n{table}"
        );
        assert!(!table.contains("still answering"), "{table}");
        let stderr = text(&out.get_output().stderr);
        assert!(stderr.contains("still answering"), "{stderr}");
    }
    let out = state_cmd(home.path(), &server)
        .args(["-q", "--chat-id", "c1", "-o", "table"])
        .assert()
        .success();
    let both = [&out.get_output().stdout, &out.get_output().stderr];
    assert!(
        both.iter().all(|b| !text(b).contains("still answering")),
        "-q: {both:?}"
    );
    let without_cutoff = Server::always(thread()[1..].to_vec());
    let out = state_cmd(home.path(), &without_cutoff)
        .args(["--chat-id", "c1", "-o", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["chatId"], "c1", "{doc}");
}

/// A line that is not JSON is skipped with a warning, as chat says it (it was skipped silently).
#[test]
fn a_malformed_line_is_skipped_with_a_warning() {
    let home = tempfile::tempdir().unwrap();
    let mut lines = thread();
    lines.insert(2, r#"{"id": "__malformed__", this is not JSON"#.to_owned());
    let server = Server::always(lines);
    let out = state_cmd(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "json"])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("skipped 1 line that was not a JSON object"),
        "{stderr}"
    );
}
