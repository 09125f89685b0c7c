//! Issue 11, output truths: `state` keeps the service's ids and sorts, tables line up with
//! colour on, `-vv` never shows a credential header, `--dry-run -o json|ndjson` prints each
//! request as one JSON object, global options that mean nothing to a command are usage errors,
//! and the help of secret-file flags says what the environment variable holds.

// Both support modules include the one isolation helper; using both (a scripted chat server with
// frame builders, and a server that sends any response header) loads it twice, harmlessly.
#![allow(clippy::duplicate_mod)]

mod scim_support;
mod support;

use serde_json::{json, Value};
use support::{analyst, cutoff, echo, sql_tool, text, MID};

/// Lines of a boxed table (drawn with comfy-table's UTF-8 presets) found in `text`.
fn boxed_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with(['┌', '│', '╞', '├', '└']))
        .collect()
}

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

fn state_cmd(home: &std::path::Path, server: &support::Server) -> assert_cmd::Command {
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
    let server = support::Server::always(vec![cutoff("c1", false), langchain_state()]);
    for format in ["json", "yaml"] {
        let out = state_cmd(home.path(), &server)
            .args(["-o", format])
            .assert()
            .success();
        let doc: Value = if format == "json" {
            serde_json::from_slice(&out.get_output().stdout).unwrap()
        } else {
            serde_yaml::from_slice(&out.get_output().stdout).unwrap()
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
    for line in boxed_lines(&table).iter().skip(3) {
        if line.starts_with('│') {
            let sort = line
                .trim_start_matches('│')
                .split('┆')
                .next()
                .unwrap()
                .trim();
            assert_eq!(sort, "-", "{table}");
        }
    }
}

#[test]
fn state_messages_from_frames_keep_the_service_ids_and_sorts() {
    let home = tempfile::tempdir().unwrap();
    let lines = vec![
        cutoff("c1", false),
        echo(MID, 7, "Top categories?"),
        sql_tool("t1", 9),
        support::delta("a1", 11, "Books "),
        support::complete("a1", 12, "Books lead."),
    ];
    let server = support::Server::always(lines);
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
    let sorts: Vec<String> = boxed_lines(&table)
        .iter()
        .skip(3)
        .filter(|l| l.starts_with('│'))
        .map(|l| {
            l.trim_start_matches('│')
                .split('┆')
                .next()
                .unwrap()
                .trim()
                .to_owned()
        })
        .collect();
    assert_eq!(sorts, ["7", "9", "12"], "{table}");
}

