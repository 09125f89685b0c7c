//! `analyst chat` output formats, exit statuses and --save/--replay, against scripted servers.

use crate::common;

use common::scripted::*;
use serde_json::Value;

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Every JSON line comes out byte for byte; a line that is not JSON is never written (a
/// reader such as `jq` would stop there) and is counted on stderr.
#[test]
fn ndjson_is_byte_identical_including_unknown_frames_and_crlf() {
    let home = tempfile::tempdir().unwrap();
    let mut lines = happy(MID);
    lines.insert(2, r#"{"id":"x","sort":2,"future":{"kind":"new"}}"#.into());
    lines.insert(3, "not json at all".into());
    // A CRLF line and a line split across chunks must come out exactly as sent.
    let mut body = joined(&lines).into_bytes();
    body.extend_from_slice(b"{\"id\":\"z\",\"sort\":100}\r\n");
    let server = Server::start(move |_, _| {
        let (a, b) = body.split_at(body.len() / 2);
        Reply {
            status: 200,
            parts: vec![Part::Data(a.to_vec()), Part::Data(b.to_vec())],
        }
    });
    let out = chat(home.path(), &server)
        .args(["-o", "ndjson", "Top categories?"])
        .assert()
        .success();
    lines.remove(3);
    let mut expected = joined(&lines).into_bytes();
    expected.extend_from_slice(b"{\"id\":\"z\",\"sort\":100}\r\n");
    assert_eq!(out.get_output().stdout, expected);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains(
            "skipped 1 line that was not a JSON object; the first, line 4 of the response"
        ),
        "{stderr}"
    );
}

#[test]
fn text_shows_tools_tables_answer_and_the_thread() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    let out = chat(home.path(), &server)
        .args(["-o", "text", "Top categories?"])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.contains("» dataSqlApi · Revenue by category · SELECT category"),
        "{stdout}"
    );
    assert!(stdout.contains("Books"), "{stdout}");
    assert!(stdout.ends_with("Books lead.\n"), "{stdout}");
    assert_eq!(stdout.matches("Books lead.").count(), 1, "{stdout}");
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("--external-id bot --chat-id c1 MESSAGE"),
        "{stderr}"
    );
}

/// The service's text cannot drive the terminal in `text`: control characters in the answer,
/// a tool's title and a result table's cells are shown in caret notation (LF kept in the
/// answer); `ndjson` and `final` keep them as sent.
#[test]
fn text_shows_control_characters_from_the_service_not_their_effect() {
    let home = tempfile::tempdir().unwrap();
    let result = serde_json::json!({"queryTitle":"Title\u{7}","sqlQuery":"SELECT 1",
        "schema":[{"name":"c\u{1b}[2J","column_type":"string"},{"name":"n","column_type":"number"}],
        "data":[["esc\u{1b}[31mRED\u{1b}[0m","1"],["bell\u{7} cr\r csi\u{9b}1m","2"]],"totalRows":2});
    let tool = serde_json::json!({"id":"t1","sort":2,"role":"assistant","isInProcess":false,
        "graphPath":["data_analyst_agent","tools"],
        "toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT 1"},"result":result.to_string()}})
    .to_string();
    let answer = "Line one\u{1b}]0;pwned\u{7}\nline two\r";
    let lines = vec![
        cutoff("c1", true),
        echo(MID, 1, "Top?"),
        tool,
        delta("a1", 3, "Line one\u{1b}]0;"),
        delta("a1", 4, "pwned\u{7}\nline two\r"),
        complete("a1", 5, answer),
        state(answer),
        usage(),
    ];
    let server = Server::always(lines);
    let out = chat(home.path(), &server)
        .args(["-o", "text", "Top?"])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    for control in ['\u{1b}', '\u{7}', '\r', '\u{9b}'] {
        assert!(
            !stdout.contains(control),
            "{control:?} reached stdout: {stdout:?}"
        );
    }
    assert!(stdout.contains("esc^[[31mRED^[[0m"), "{stdout}");
    assert!(stdout.contains("bell^G cr^M csi^[[1m"), "{stdout}");
    assert!(stdout.contains("Title^G"), "{stdout}");
    assert!(stdout.contains("^[[2J"), "{stdout}");
    assert!(
        stdout.contains("Line one^[]0;pwned^G\nline two^M"),
        "{stdout}"
    );
    // The formats for programs keep the text as sent.
    let out = chat(home.path(), &server)
        .args(["-o", "final", "Top?"])
        .assert()
        .success();
    assert_eq!(text(&out.get_output().stdout), format!("{answer}\n"));
}

#[test]
fn json_yaml_and_final_documents() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    let out = chat(home.path(), &server)
        .args(["-o", "json", "Top?"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["chatId"], "c1");
    assert_eq!(doc["messageId"], MID);
    assert_eq!(doc["final"], "Books lead.");
    assert_eq!(doc["toolCalls"][0]["name"], "dataSqlApi");
    assert_eq!(doc["toolCalls"][0]["result"]["data"][0][0], "Books");
    assert_eq!(doc["usage"]["totalTokens"], 42);
    assert!(doc.get("error").is_none());

    let out = chat(home.path(), &server)
        .args(["-o", "yaml", "Top?"])
        .assert()
        .success();
    let yaml = text(&out.get_output().stdout);
    assert!(yaml.contains("final: Books lead."), "{yaml}");

    chat(home.path(), &server)
        .args(["-o", "final", "Top?"])
        .assert()
        .success()
        .stdout("Books lead.\n");
}

#[test]
fn the_default_format_off_a_terminal_is_ndjson() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    chat(home.path(), &server)
        .arg("Top?")
        .assert()
        .success()
        .stdout(joined(&happy(MID)));
}

#[test]
fn exit_statuses_from_the_stream_and_http() {
    let home = tempfile::tempdir().unwrap();
    let cases: Vec<(Reply, i32, &str)> = vec![
        (
            Reply::lines(&[cutoff("c1", true), r#"{"error":"The agent crashed"}"#.into()]),
            1,
            "The agent crashed",
        ),
        (
            Reply::lines(&[cutoff("c1", true), r#"{"error":"Streaming for thread is in progress"}"#.into()]),
            5,
            "Streaming for thread is in progress",
        ),
        (
            Reply::lines(&[r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Invalid API key"}}"#.into()]),
            3,
            "Invalid API key",
        ),
        (
            Reply::lines(&[cutoff("c1", true), r#"{"id":"__aborted__","type":"abort","code":"chat_aborted","error":"Chat was aborted"}"#.into()]),
            1,
            "aborted",
        ),
        (
            Reply::lines(&[cutoff("c1", true), state("")]),
            7,
            "without a final answer",
        ),
        (Reply::status(400, r#"{"error":"messageId is invalid"}"#), 2, "messageId is invalid"),
        (Reply::status(401, r#"{"error":"Invalid API key"}"#), 3, "HTTP 401"),
        (Reply::status(403, "Forbidden"), 3, "HTTP 403"),
        (Reply::status(404, r#"{"error":"Agent not found"}"#), 4, "Agent not found"),
        (Reply::status(409, r#"{"error":"Streaming for thread is in progress"}"#), 5, "Streaming"),
        (Reply::status(500, "<html>\n  oops\n</html>"), 1, "<html> oops </html>"),
    ];
    for (reply, code, words) in cases {
        let server = Server::start(move |_, _| reply.clone());
        let out = chat(home.path(), &server)
            .args(["-o", "final", "Top?"])
            .assert()
            .code(code);
        let stderr = text(&out.get_output().stderr);
        assert!(stderr.contains(words), "exit {code}: {stderr}");
    }
}

#[test]
fn tool_errors_are_shown_but_not_fatal() {
    let home = tempfile::tempdir().unwrap();
    let failed = serde_json::json!({"id":"t9","sort":2,"role":"assistant","isInProcess":false,
        "toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT nope"},"result":"{\"error\":\"Error: BadRequestError: Bad branch\"}"}}).to_string();
    let server = Server::always(vec![
        cutoff("c1", true),
        failed,
        complete("a", 3, "Sorry."),
        state("Sorry."),
    ]);
    let out = chat(home.path(), &server)
        .args(["-o", "text", "Top?"])
        .assert()
        .success();
    assert!(text(&out.get_output().stdout).contains("error: Error: BadRequestError: Bad branch"));
}

#[test]
fn save_then_replay_in_every_format_with_the_same_status() {
    let home = tempfile::tempdir().unwrap();
    let saved = home.path().join("run.ndjson");
    let server = Server::always(happy(MID));
    chat(home.path(), &server)
        .args(["-o", "final", "--save", saved.to_str().unwrap(), "Top?"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        joined(&happy(MID))
    );
    // No service is configured for the replay: nothing is contacted.
    analyst(home.path())
        .args(["chat", "-o", "final", "--replay", saved.to_str().unwrap()])
        .assert()
        .success()
        .stdout("Books lead.\n");
    let out = analyst(home.path())
        .args(["chat", "-o", "json", "--replay", "-"])
        .write_stdin(joined(&happy(MID)))
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["messageId"], MID);
    // An error line replays with the status the live run had.
    analyst(home.path())
        .args(["chat", "-o", "ndjson", "--replay", "-"])
        .write_stdin(joined(&[cutoff("c1", true), r#"{"error":"boom"}"#.into()]))
        .assert()
        .code(1);
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    // `| head -1`, done in-process: the child's stdout is closed after the first line.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_analyst"))
        .env_clear()
        .env("HOME", home.path())
        .env("ANALYST_API_KEY", "k")
        .args([
            "chat",
            "--url",
            &server.url(),
            "--external-id",
            "bot",
            "-o",
            "ndjson",
            "Top?",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn nothing_listening_is_a_network_error() {
    let home = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = analyst(home.path())
        .env("ANALYST_API_KEY", "k")
        .args(["chat", "--external-id", "bot", "--url"])
        .arg(format!(
            "http://127.0.0.1:{port}/api/v1/public/a/agents/1/chat/stream-chat-state"
        ))
        .arg("Top?")
        .assert()
        .code(6);
    assert!(text(&out.get_output().stderr).contains("cannot connect"));
}

/// A final answer whose complete frame never came is shown, but the run does not claim it:
/// exit 7 in every format, the same from --replay of what was saved.
#[test]
fn an_answer_without_its_complete_frame_does_not_exit_0() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(vec![
        cutoff("c1", true),
        echo(MID, 1, "Top?"),
        delta("a1", 2, "Books "),
        delta("a1", 3, "lead."),
        state("Books lead."),
        usage(),
    ]);
    let save = home.path().join("saved.ndjson");
    let out = chat(home.path(), &server)
        .args(["-o", "final", "--save"])
        .arg(&save)
        .arg("Top?")
        .assert()
        .code(7)
        .stdout("Books lead.\n");
    assert!(text(&out.get_output().stderr).contains("incomplete"));
    for format in ["ndjson", "json", "text"] {
        chat(home.path(), &server)
            .args(["-o", format, "Top?"])
            .assert()
            .code(7);
    }
    analyst(home.path())
        .args(["chat", "-o", "final", "--replay"])
        .arg(&save)
        .assert()
        .code(7);
}

/// A stream whose last line has no newline: stdout and --save still end in one.
#[test]
fn a_last_line_without_a_newline_is_written_whole() {
    let home = tempfile::tempdir().unwrap();
    let lines = happy(MID);
    let server = Server::start(move |_, _| {
        let mut reply = Reply::lines(&lines);
        let Some(Part::Data(last)) = reply.parts.last_mut() else {
            unreachable!()
        };
        last.pop(); // the newline
        reply
    });
    let save = home.path().join("saved.ndjson");
    let out = chat(home.path(), &server)
        .args(["-o", "ndjson", "--save"])
        .arg(&save)
        .arg("Top categories?")
        .assert()
        .success();
    assert_eq!(text(&out.get_output().stdout), joined(&happy(MID)));
    assert_eq!(std::fs::read_to_string(&save).unwrap(), joined(&happy(MID)));
}

/// PROTOCOL.md: a client that gets no thread id cannot resume or continue, and says so.
#[test]
fn a_stream_without_a_thread_id_says_it_cannot_be_continued() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(vec![
        r#"{"id":"__cutoff__","role":"assistant","state":{"isStreaming":false},"sort":0}"#.into(),
        echo(MID, 1, "Top?"),
        complete("a1", 2, "Books lead."),
        state("Books lead."),
    ]);
    let out = chat(home.path(), &server)
        .args(["-o", "final", "Top?"])
        .assert()
        .success()
        .stdout("Books lead.\n");
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("no thread id"), "{stderr}");
}

/// After a run whose new thread came without an id, `-c` refuses (exit 2, nothing sent): it
/// took the thread before, and sent the next message there without a word. A run that named
/// its thread (`--chat-id`) knows it even when `__cutoff__` does not say it: no warning, and
/// the thread is reported.
#[test]
fn continue_after_a_thread_without_an_id_refuses() {
    let home = tempfile::tempdir().unwrap();
    let with_id = Server::always(happy(MID));
    chat(home.path(), &with_id)
        .args(["-o", "final", "first"])
        .assert()
        .success();
    let without = Server::always(vec![
        r#"{"id":"__cutoff__","role":"assistant","state":{"isStreaming":false},"sort":0}"#.into(),
        echo(MID, 1, "second"),
        complete("a1", 2, "Books lead."),
        state("Books lead."),
    ]);
    chat(home.path(), &without)
        .args(["-o", "final", "second"])
        .assert()
        .success();
    let out = chat(home.path(), &without)
        .args(["-o", "final", "-c", "third"])
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("came without an id"), "{stderr}");
    assert!(
        !without.seen().iter().any(|r| r.body["input"] == "third"),
        "nothing is sent"
    );
    let out = chat(home.path(), &without)
        .args(["-o", "json", "--chat-id", "c7", "fourth"])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(!stderr.contains("no thread id"), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["chatId"], "c7");
    // And that thread is the last one used: `-c` continues it (it went back to the one
    // before).
    chat(home.path(), &without)
        .args(["-o", "final", "-c", "fifth"])
        .assert()
        .success();
    let fifth = without
        .seen()
        .into_iter()
        .find(|r| r.body["input"] == "fifth")
        .unwrap();
    assert_eq!(fifth.body["chatId"], "c7");
}

/// A server that echoes the API key back in its error: the message is shown, the key is not.
#[test]
fn a_key_the_server_echoes_back_is_never_printed() {
    let home = tempfile::tempdir().unwrap();
    let server =
        Server::start(|_, _| Reply::status(401, r#"{"error":"invalid API key: sk-test-secret"}"#));
    for verbose in [&[][..], &["-vv"][..]] {
        let out = chat(home.path(), &server)
            .args(verbose)
            .args(["-o", "final", "Top?"])
            .assert()
            .code(3);
        let stderr = text(&out.get_output().stderr);
        assert!(!stderr.contains("sk-test-secret"), "{stderr}");
        assert!(stderr.contains("invalid API key: ***"), "{stderr}");
    }
}

/// `-o final` is the answer text alone: a run that fails for another reason than an
/// unfinished final message (here a connection lost and not resumed) prints none of it (it
/// printed the front of the answer, `Books `); `-o json` keeps it beside the error. An
/// unfinished final message alone (exit 7) is still shown, as `extract-final` shows it.
#[test]
fn final_prints_no_fragment_of_a_failed_run() {
    let home = tempfile::tempdir().unwrap();
    let front = happy(MID)[..4].to_vec();
    let reply = Reply::lines(&front).then_drop();
    let dropped = Server::start(move |_, _| reply.clone());
    let out = chat(home.path(), &dropped)
        .args(["-o", "final", "--retries", "0", "q"])
        .assert()
        .code(6);
    assert_eq!(text(&out.get_output().stdout), "");
    let out = chat(home.path(), &dropped)
        .args(["-o", "json", "--retries", "0", "q"])
        .assert()
        .code(6);
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["final"], "Books ", "{doc}");
    assert!(doc["error"].is_string(), "{doc}");
    let mut unfinished = front.clone();
    unfinished.extend([state("Books lead."), usage()]);
    let unfinished = Server::always(unfinished);
    let out = chat(home.path(), &unfinished)
        .args(["-o", "final", "q"])
        .assert()
        .code(7);
    assert_eq!(text(&out.get_output().stdout), "Books \n");
}

/// PROTOCOL.md: the deployments URL form "accepts only token auth". Its 403 to an API key
/// says so, and how to give the token (it said only "permission refused").
#[test]
fn a_deployments_url_refusing_a_key_says_it_wants_a_token() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|_, _| Reply::status(403, "Forbidden"));
    let url = format!(
        "{}/api/v1/public/acme/deployments/7/chat/stream-chat-state",
        server.base
    );
    let out = analyst(home.path())
        .env("ANALYST_API_KEY", "sk-test-secret")
        .args(["chat", "--url", &url, "--external-id", "bot", "q"])
        .assert()
        .code(3);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains("accepts only token auth") && stderr.contains("--token-file"),
        "{stderr}"
    );
    assert!(!stderr.contains("sk-test-secret"), "{stderr}");
}

/// A byte-order mark before the first line (as some editors and servers write) is not part of
/// it, live and in `--replay` (the masking of secrets read the line's text from the wrong
/// offset, so the mark came back and the first line was skipped as not JSON).
#[test]
fn a_byte_order_mark_before_the_first_line_is_dropped() {
    let home = tempfile::tempdir().unwrap();
    let mut lines = happy(MID);
    lines[0] = format!("\u{feff}{}", lines[0]);
    let server = Server::always(lines.clone());
    let out = chat(home.path(), &server)
        .args(["-o", "final", "q"])
        .assert()
        .success()
        .stdout("Books lead.\n");
    let stderr = text(&out.get_output().stderr);
    assert!(!stderr.contains("skipped"), "{stderr}");
    let file = home.path().join("bom.ndjson");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = analyst(home.path())
        .args(["chat", "-o", "json", "--replay"])
        .arg(&file)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        (doc["chatId"].as_str(), doc["final"].as_str()),
        (Some("c1"), Some("Books lead."))
    );
}
