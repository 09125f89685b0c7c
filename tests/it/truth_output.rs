//! Issue 11, output truths: `state` keeps the service's ids and sorts, tables line up with
//! colour on, `-vv` never shows a credential header, `--dry-run -o json|ndjson` prints each
//! request as one JSON object, global options that mean nothing to a command are usage errors,
//! and the help of secret-file flags says what the environment variable holds.

use crate::common;

use common::scripted::{MID, analyst, cutoff, echo, happy, sql_tool, text};
use serde_json::{Value, json};

// ----- item 9: state keeps the service's ids and sorts -----

/// A `__state__` frame as the emulator sends it: LangChain entries, ids under `kwargs`.
fn langchain_state() -> String {
    let class = |c: &str| json!(["langchain_core", "messages", c]);
    json!({"id":"__state__","sort":1,"state":{"messages":[
        {"lc":1,"type":"constructor","id":class("HumanMessage"),"kwargs":{"content":"Top?","id":MID}},
        {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"",
            "tool_calls":[{"name":"dataSqlApi","args":{"sqlQuery":"SELECT 1"},"id":"call-1","type":"tool_call"}]}},
        {"lc":1,"type":"constructor","id":class("ToolMessage"),"kwargs":{"content":"{\"data\":[[\"1\"]]}","tool_call_id":"call-1","name":"dataSqlApi"}},
        {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"Books lead.","id":"run-9"}},
        {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"No id here."}}
    ]}})
    .to_string()
}

fn state_cmd(home: &std::path::Path, server: &common::scripted::Server) -> assert_cmd::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_API_KEY", "k").args([
        "state",
        "--url",
        &server.url(),
        "--external-id",
        "bot",
        "--chat-id",
        "c1",
    ]);
    cmd
}

#[test]
fn state_messages_known_only_from_state_keep_their_ids_and_no_sort() {
    let home = tempfile::tempdir().unwrap();
    let server = common::scripted::Server::always(vec![cutoff("c1", false), langchain_state()]);
    for format in ["json", "yaml"] {
        let out = state_cmd(home.path(), &server)
            .args(["-o", format])
            .assert()
            .success();
        let doc: Value = if format == "json" {
            serde_json::from_slice(&out.get_output().stdout).unwrap()
        } else {
            serde_norway::from_slice(&out.get_output().stdout).unwrap()
        };
        let messages = doc["messages"].as_array().unwrap();
        let ids: Vec<&Value> = messages.iter().map(|m| &m["id"]).collect();
        assert_eq!(
            ids,
            [&json!(MID), &json!("call-1"), &json!("run-9"), &Value::Null],
            "{format}: {doc:#}"
        );
        for m in messages {
            assert_eq!(m["sort"], Value::Null, "{format}: a sort was invented: {m}");
        }
    }
    let out = state_cmd(home.path(), &server)
        .args(["-o", "table"])
        .assert()
        .success();
    let table = text(&out.get_output().stdout);
    // No renumbering in the table either: the sort cells say there is none.
    let sorts = common::table::parse(&table);
    let sorts = sorts.column("SORT");
    assert!(!sorts.is_empty(), "{table}");
    assert!(sorts.iter().all(|s| *s == "-"), "{table}");
}

#[test]
fn state_messages_from_frames_keep_the_service_ids_and_sorts() {
    let home = tempfile::tempdir().unwrap();
    let lines = vec![
        cutoff("c1", false),
        echo(MID, 7, "Top categories?"),
        sql_tool("t1", 9),
        common::scripted::delta("a1", 11, "Books "),
        common::scripted::complete("a1", 12, "Books lead."),
        common::scripted::state_for("Top categories?", "Books lead."),
    ];
    let server = common::scripted::Server::always(lines);
    let out = state_cmd(home.path(), &server)
        .args(["-o", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let got: Vec<(Value, Value)> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].clone(), m["sort"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!(MID), json!(7)),
            (json!("t1"), json!(9)),
            (json!("a1"), json!(12)),
        ]
    );
    let out = state_cmd(home.path(), &server)
        .args(["-o", "table"])
        .assert()
        .success();
    let table = text(&out.get_output().stdout);
    let sorts = common::table::parse(&table).column("SORT").join(",");
    assert_eq!(sorts, "7,9,12", "{table}");
}

// ----- item 11: tables line up with colour on -----

/// The text without ANSI escape sequences (CSI ... final byte).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[test]
fn the_scim_table_lines_up_with_colour_on() {
    let server = common::scim::Server::start(|seen, _| {
        if seen.target.ends_with("/2") {
            common::scim::Answer::new(404, r#"{"detail":"no such user"}"#)
        } else {
            common::scim::Answer::user("1", json!(true))
        }
    });
    let run = |color: &str| {
        let home = tempfile::tempdir().unwrap();
        let out = common::scim::analyst(&home)
            .env("ANALYST_SCIM_TOKEN", "tok")
            .args(["scim", "patch", "--scim-url", &server.scim_url()])
            .args(["1", "2", "--activate", "-o", "table", "-j", "1"])
            .args(["--color", color])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        text(&out.stdout)
    };
    let coloured = run("always");
    let plain = run("never");
    assert!(
        coloured.contains("\x1b["),
        "colour was forced: {coloured:?}"
    );
    assert!(!plain.contains("\x1b["), "{plain:?}");
    assert_eq!(strip_ansi(&coloured), plain, "colour moved the columns");
    // And the plain table lines up: every column starts where its header does (the status
    // column is never empty; any column is two spaces clear of the one before).
    common::table::assert_aligned(&plain, "scim table");
    let table = common::table::parse(&plain);
    assert_eq!(table.column("STATUS"), ["200", "404"], "{plain}");
}

#[test]
fn the_state_table_lines_up_with_colour_on() {
    let failed_tool = json!({"id":"t2","sort":3,"role":"assistant","isInProcess":false,
        "graphPath":["data_analyst_agent","tools"],
        "toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT nope"},
            "result":json!({"error":"Error: no such column"}).to_string()}})
    .to_string();
    let lines = vec![
        cutoff("c1", false),
        echo(MID, 1, "Top?"),
        sql_tool("t1", 2),
        failed_tool,
        common::scripted::complete("a1", 4, "Books lead."),
        common::scripted::state_for("Top?", "Books lead."),
    ];
    let server = common::scripted::Server::always(lines);
    let home = tempfile::tempdir().unwrap();
    let run = |color: &str| {
        let out = state_cmd(home.path(), &server)
            .args(["-o", "table", "--color", color])
            .assert()
            .success();
        text(&out.get_output().stdout)
    };
    let coloured = run("always");
    let plain = run("never");
    assert!(coloured.contains("\x1b["), "{coloured:?}");
    assert_eq!(strip_ansi(&coloured), plain);
    common::table::assert_aligned(&strip_ansi(&coloured), "state table");
}

#[test]
fn chat_result_tables_line_up_with_colour_on() {
    let server = common::scripted::Server::always(happy(MID));
    let home = tempfile::tempdir().unwrap();
    let out = common::scripted::chat(home.path(), &server)
        .args(["-o", "text", "--color", "always", "q"])
        .assert()
        .success();
    let coloured = text(&out.get_output().stdout);
    assert!(coloured.contains("\x1b["), "{coloured:?}");
    common::table::assert_aligned(&strip_ansi(&coloured), "chat table");
}

// ----- item 12: -vv never shows a credential header -----

const COOKIE_SECRET: &str = "cookie-SECRET-111";
const KEY_SECRET: &str = "key-SECRET-222";
const TOKEN_SECRET: &str = "token-SECRET-333";

/// Answers every request with credential-bearing headers: a chat stream for chat and state, 204
/// for abort, a User for SCIM.
fn leaky_server() -> common::scim::Server {
    common::scim::Server::start(|seen, _| {
        let answer = if seen.target.ends_with("/chat/abort") {
            common::scim::Answer::new(204, "")
        } else if seen.target.contains("/scim/") {
            common::scim::Answer::user("1", json!(false))
        } else {
            let body: String = happy(MID).iter().map(|l| format!("{l}\n")).collect();
            common::scim::Answer::new(200, body).header("content-type", "application/json")
        };
        answer
            .header("set-cookie", format!("session={COOKIE_SECRET}; HttpOnly"))
            .header("x-api-key", KEY_SECRET)
            .header("x-auth-token", TOKEN_SECRET)
    })
}

#[test]
fn very_verbose_masks_credential_headers_in_responses() {
    let server = leaky_server();
    let chat_url = format!(
        "{}/api/v1/public/acme/agents/3/chat/stream-chat-state",
        server.origin
    );
    let scim_url = server.scim_url();
    let commands: Vec<Vec<&str>> = vec![
        vec!["chat", "--url", &chat_url, "-o", "ndjson", "hi"],
        vec![
            "state",
            "--url",
            &chat_url,
            "--chat-id",
            "c1",
            "-o",
            "ndjson",
        ],
        vec!["abort", "--url", &chat_url, "--chat-id", "c1"],
        vec![
            "scim",
            "patch",
            "--scim-url",
            &scim_url,
            "1",
            "--deactivate",
        ],
    ];
    for command in commands {
        let home = tempfile::tempdir().unwrap();
        let out = common::scim::analyst(&home)
            .env("ANALYST_API_KEY", "sk-1")
            .env("ANALYST_SCIM_TOKEN", "tok-1")
            .env("ANALYST_EXTERNAL_ID", "bot")
            .args(&command)
            .arg("-vv")
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{command:?}: {stderr}");
        for secret in [COOKIE_SECRET, KEY_SECRET, TOKEN_SECRET, "sk-1", "tok-1"] {
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "{command:?} printed {secret}:\n{stderr}"
            );
        }
        // The headers are still listed, masked, so -vv keeps its use.
        for name in ["set-cookie", "x-api-key", "x-auth-token"] {
            assert!(
                stderr.contains(&format!("< {name}: ***")),
                "{command:?}: {name}\n{stderr}"
            );
        }
    }
}

// ----- item 13: --dry-run -o json|ndjson, and globals that mean nothing -----

fn dry(home: &tempfile::TempDir, args: &[&str]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_analyst"));
    common::scim::isolate(&mut cmd, home);
    cmd.env("ANALYST_API_KEY", "sk-live-dry")
        .env("ANALYST_SCIM_TOKEN", "tok-live-dry")
        .env("ANALYST_EXTERNAL_ID", "bot")
        .env(
            "ANALYST_CHAT_URL",
            "http://127.0.0.1:9/api/v1/public/acme/agents/3/chat/stream-chat-state",
        )
        .env("ANALYST_SCIM_URL", "http://127.0.0.1:9/api/scim/v2")
        .args(args);
    // `serve` would run until interrupted if an option were ignored: bound the wait.
    let out = output_within(cmd, std::time::Duration::from_secs(20));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        !stdout.contains("-live-dry") && !stderr.contains("-live-dry"),
        "{args:?} printed a secret:\n{stdout}\n{stderr}"
    );
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// Run `cmd` to its end; a run still going after `limit` is killed (only that child, by its
/// handle) and fails the test.
fn output_within(
    mut cmd: std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{cmd:?} still running after {limit:?}: {}",
                text(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn dry_run_prints_each_request_as_one_json_object() {
    let home = tempfile::tempdir().unwrap();
    let h = &home;
    let cases: [(&[&str], &str, &str, Value); 3] = [
        (
            &["chat", "--message-id", MID, "hi"],
            "POST",
            "/chat/stream-chat-state",
            json!({"input": "hi", "messageId": MID, "sessionSettings": {"externalId": "bot"}}),
        ),
        (
            &["state", "--chat-id", "c1"],
            "POST",
            "/chat/stream-chat-state",
            json!({"chatId": "c1", "sessionSettings": {"externalId": "bot"}}),
        ),
        (
            &["abort", "--chat-id", "c1"],
            "POST",
            "/chat/abort",
            json!({"chatId": "c1", "sessionSettings": {"externalId": "bot"}}),
        ),
    ];
    for (args, method, path, body) in cases {
        for format in ["json", "ndjson"] {
            let (code, out, err) = dry(h, &[args, &["--dry-run", "-o", format][..]].concat());
            assert_eq!(code, 0, "{args:?} {format}: {err}");
            if format == "ndjson" {
                assert_eq!(out.lines().count(), 1, "one line: {out}");
            }
            let doc: Value = serde_json::from_str(&out)
                .unwrap_or_else(|e| panic!("{args:?} -o {format}: {e}\n{out}"));
            assert_eq!(doc["method"], method, "{doc}");
            assert!(doc["url"].as_str().unwrap().ends_with(path), "{doc}");
            assert_eq!(doc["headers"]["authorization"], "***", "{doc}");
            assert_eq!(doc["headers"]["content-type"], "application/json", "{doc}");
            for (k, v) in body.as_object().unwrap() {
                assert_eq!(&doc["body"][k], v, "{args:?}: {k} in {doc}");
            }
            let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["method", "url", "headers", "body"]);
        }
    }
}

#[test]
fn scim_dry_run_prints_one_object_per_request() {
    let home = tempfile::tempdir().unwrap();
    let h = &home;
    // One request: -o json is one object.
    let (code, out, err) = dry(
        h,
        &[
            "scim",
            "patch",
            "7",
            "--deactivate",
            "--dry-run",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["method"], "PATCH");
    assert!(doc["url"].as_str().unwrap().ends_with("/Users/7"), "{doc}");
    assert_eq!(doc["headers"]["authorization"], "***");
    assert_eq!(
        doc["body"]["Operations"],
        json!([{"op": "replace", "path": "active", "value": false}])
    );
    // Several: an array with -o json, one line each with -o ndjson; a lookup has no body.
    let args = ["scim", "patch", "7", "--user-name", "ann@x", "--deactivate"];
    let (code, out, err) = dry(h, &[&args[..], &["--dry-run", "-o", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let all: Value = serde_json::from_str(&out).unwrap();
    let all = all.as_array().expect("an array for several requests");
    let methods: Vec<&Value> = all.iter().map(|r| &r["method"]).collect();
    assert_eq!(methods, ["PATCH", "GET", "PATCH"]);
    assert_eq!(all[1]["body"], Value::Null);
    assert!(
        all[2]["url"]
            .as_str()
            .unwrap()
            .ends_with("/Users/<id of ann@x>")
    );
    let (code, out, err) = dry(h, &[&args[..], &["--dry-run", "-o", "ndjson"]].concat());
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, all.to_vec());
}

#[test]
fn dry_run_text_is_unchanged_without_a_json_format() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) = dry(&home, &["state", "--chat-id", "c1", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("POST http://127.0.0.1:9/"), "{out}");
    assert!(out.contains("authorization: ***"), "{out}");
}

#[test]
fn options_a_command_does_not_take_are_usage_errors() {
    let home = tempfile::tempdir().unwrap();
    let h = &home;
    let saved = home.path().join("saved.ndjson");
    std::fs::write(&saved, happy(MID).join("\n") + "\n").unwrap();
    let saved = saved.to_str().unwrap();
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["extract-final", saved, "--dry-run"],
            "--dry-run",
            "extract-final",
        ),
        (
            &["completions", "bash", "--dry-run"],
            "--dry-run",
            "completions",
        ),
        (&["serve", "--dry-run"], "--dry-run", "serve"),
        (&["abort", "--chat-id", "c1", "-o", "json"], "-o", "abort"),
        (&["completions", "bash", "-o", "json"], "-o", "completions"),
        (
            &["extract-final", saved, "--connect-timeout", "5s"],
            "--connect-timeout",
            "extract-final",
        ),
        (
            &["extract-final", saved, "--idle-timeout", "5s"],
            "--idle-timeout",
            "extract-final",
        ),
        (
            &["serve", "--idle-timeout", "5s"],
            "--idle-timeout",
            "serve",
        ),
        (
            &["extract-final", saved, "--profile", "p"],
            "--profile",
            "extract-final",
        ),
        (
            &["completions", "zsh", "--config", "c.yaml"],
            "--config",
            "completions",
        ),
        (&["serve", "--profile", "p"], "--profile", "serve"),
        // -v shows request and response diagnostics: a command that sends nothing has none.
        (&["extract-final", saved, "-v"], "-v", "extract-final"),
        (&["completions", "bash", "-vv"], "-v", "completions"),
        // --replay renders a saved stream without contacting the service.
        (
            &["chat", "--replay", saved, "--dry-run"],
            "--dry-run",
            "chat --replay",
        ),
        (
            &["chat", "--replay", saved, "more", "words"],
            "MESSAGE",
            "chat --replay",
        ),
        (&["chat", "--replay", saved, "-v"], "-v", "chat --replay"),
        (
            &["chat", "--replay", saved, "--idle-timeout", "5s"],
            "--idle-timeout",
            "chat --replay",
        ),
        (
            &["chat", "--replay", saved, "--profile", "p"],
            "--profile",
            "chat --replay",
        ),
    ];
    for (args, option, command) in cases {
        let (code, out, err) = dry(h, args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.contains(option) && err.contains(command),
            "{args:?}: the message names {option} and {command}: {err}"
        );
    }
    // What they mean something to still works.
    let (code, out, _) = dry(h, &["extract-final", saved, "-q", "--color", "never"]);
    assert_eq!((code, out.as_str()), (0, "Books lead.\n"));
    let (code, out, err) = dry(h, &["chat", "--replay", saved, "-o", "final", "-q"]);
    assert_eq!((code, out.as_str()), (0, "Books lead.\n"), "{err}");
    let (code, _, err) = dry(h, &["serve", "--listen", "999.0.0.1:0", "-v"]);
    assert!(!err.contains("unexpected argument"), "{code}: {err}");
    let (code, _, err) = dry(h, &["abort", "--chat-id", "c1", "--dry-run", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
}

// ----- item 15: the help of secret-file flags -----

#[test]
fn secret_file_help_says_the_variable_holds_the_secret_itself() {
    let home = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| {
        let out = analyst(home.path())
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        // Help wraps lines; join them so a phrase can be found whole.
        text(&out.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (command, vars) in [
        (&["chat"][..], &["ANALYST_API_KEY", "ANALYST_TOKEN"][..]),
        (&["state"], &["ANALYST_API_KEY", "ANALYST_TOKEN"]),
        (&["abort"], &["ANALYST_API_KEY", "ANALYST_TOKEN"]),
        (&["scim", "patch"], &["ANALYST_SCIM_TOKEN"]),
    ] {
        let text = help(command);
        for var in vars {
            assert!(
                !text.contains(&format!("[env: {var}]")),
                "{command:?}: reads as if {var} held a file path: {text}"
            );
            assert!(
                text.contains(&format!("or set {var} to the")) && text.contains("itself"),
                "{command:?}: {var}: {text}"
            );
        }
    }
}
