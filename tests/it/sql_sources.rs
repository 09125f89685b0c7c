//! Where `analyst sql` takes its SQL: the argument, stdin, a saved stream (`--from`), a thread's
//! state (`--chat-id`); SQL tools recognised by shape whatever their name; `--pick`, `--all`,
//! `--list`.

use crate::common;

use common::scripted::{Reply, Server, analyst, cutoff, text};
use common::sql::*;
use serde_json::{Value, json};

fn ok_api() -> Server {
    data_api(vec![schema(&["n"]), data(json!([["1"], ["2"]]))])
}

fn sent(server: &Server) -> Vec<String> {
    queries(server)
        .iter()
        .map(|q| q.body["query"].as_str().unwrap().to_owned())
        .collect()
}

/// A tool-call frame (the finished one) with input and result as given.
fn tool(id: &str, sort: i64, name: &str, input: Value, result: Value) -> String {
    json!({"id": id, "sort": sort, "role": "assistant", "isInProcess": false,
        "graphPath": ["data_analyst_agent", "tools"],
        "toolCall": {"name": name, "input": input, "result": result}})
    .to_string()
}

/// A saved run whose SQL tools cover the name and shape variants of PROTOCOL.md.
fn variants() -> Vec<String> {
    let rows_as_arrays = json!({"sqlQuery": "SELECT 1", "queryTitle": "One", "schema": [{"name": "a", "column_type": "string"}],
        "data": [["x"], ["y"]], "totalRows": 250});
    let rows_as_objects = json!({"data": [{"orders.status": "paid"}],
        "annotation": {"dimensions": {"orders.status": {"title": "Status", "type": "string"}}}});
    vec![
        cutoff("c1", false),
        // A meta tool in-between is not SQL.
        tool("m", 1, "cubeMeta", json!("{\"searchQuery\":\"rev\"}"), json!("{\"cubes\":[]}")),
        // dataSqlApi: input and result as JSON strings.
        json!({"id": "t1", "sort": 2, "role": "assistant", "isInProcess": true,
            "toolCall": {"name": "dataSqlApi", "input": "{\"sqlQuery\":\"SELECT 1\",\"queryTitle\":\"One\"}"}}).to_string(),
        tool("t1", 3, "dataSqlApi", json!("{\"sqlQuery\":\"SELECT 1\",\"queryTitle\":\"One\"}"), json!(rows_as_arrays.to_string())),
        // cubeSqlApi: input an object, only `query`; result rows as objects.
        tool("t2", 4, "cubeSqlApi", json!({"query": "SELECT 2"}), json!(rows_as_objects.to_string())),
        // cubeSqlApiWithChart, result an object already.
        tool("t3", 5, "cubeSqlApiWithChart", json!({"sqlQuery": "SELECT 3", "queryTitle": "Three", "vegaSpec": "{}"}),
            json!({"sqlQuery": "SELECT 3", "data": [], "totalRows": 0})),
        // A tool of a name nobody announced, recognised by its input.
        tool("t4", 6, "runWarehouseQuery", json!({"sqlQuery": "SELECT 4", "queryTitle": "Four"}), json!("{\"error\":\"Error: BadRequestError: Bad branch\"}")),
        json!({"id": "f", "sort": 7, "role": "assistant", "content": "Done.", "isDelta": false, "graphPath": ["final"]}).to_string(),
    ]
}

fn saved(dir: &std::path::Path, lines: &[String]) -> std::path::PathBuf {
    let path = dir.join("run.ndjson");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn the_argument_and_stdin() {
    let home = tempfile::tempdir().unwrap();
    let server = ok_api();
    let out = sql(home.path(), &server).arg("SELECT 7").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = sql(home.path(), &server)
        .arg("-")
        .write_stdin("SELECT 8\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "n\r\n1\r\n2\r\n");
    assert_eq!(sent(&server), ["SELECT 7", "SELECT 8"]);
}

#[test]
fn list_shows_every_sql_tool_whatever_its_name_and_shape() {
    let home = tempfile::tempdir().unwrap();
    let path = saved(home.path(), &variants());
    // --list sends nothing, so it needs no data URL or token.
    let out = analyst(home.path())
        .args(["sql", "--list", "--from"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "1\tOne\t2\t250\n2\t\t1\t-\n3\tThree\t0\t0\n4\tFour\t-\t-\n"
    );
    let out = analyst(home.path())
        .args(["sql", "--list", "-o", "json", "--from"])
        .arg(&path)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc[0],
        json!({"index": 1, "title": "One", "sqlQuery": "SELECT 1", "rows": 2, "totalRows": 250})
    );
    assert_eq!(doc[1]["sqlQuery"], "SELECT 2");
    assert_eq!(doc.as_array().unwrap().len(), 4);
}

#[test]
fn pick_defaults_to_the_last_and_all_runs_each() {
    let home = tempfile::tempdir().unwrap();
    let path = saved(home.path(), &variants());
    let server = ok_api();
    let run = |extra: &[&str]| {
        sql(home.path(), &server)
            .arg("--from")
            .arg(&path)
            .args(extra)
            .output()
            .unwrap()
    };
    assert_eq!(run(&[]).status.code(), Some(0));
    assert_eq!(run(&["--pick", "2"]).status.code(), Some(0));
    assert_eq!(sent(&server), ["SELECT 4", "SELECT 2"]);
    let out = run(&["--pick", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("has 4 SQL queries"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&["--all"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        ["n\r\n1\r\n2\r\n"; 4].join("\r\n"),
        "a blank line between results"
    );
    let out = run(&["--all", "-o", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc.as_array().unwrap().len(), 4);
    assert_eq!(doc[3]["rows"], json!([["1"], ["2"]]));
    assert_eq!(
        sent(&server)[2..6],
        ["SELECT 1", "SELECT 2", "SELECT 3", "SELECT 4"]
    );
}

#[test]
fn from_stdin() {
    let home = tempfile::tempdir().unwrap();
    let server = ok_api();
    let out = sql(home.path(), &server)
        .args(["--from", "-", "--pick", "3"])
        .write_stdin(variants().join("\n"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(sent(&server), ["SELECT 3"]);
}

#[test]
fn a_stream_without_sql_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let path = saved(home.path(), &[cutoff("c", false)]);
    let server = ok_api();
    let out = sql(home.path(), &server)
        .arg("--from")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no SQL tool call found"),
        "{}",
        text(&out.stderr)
    );
    assert!(queries(&server).is_empty());
    let out = sql(home.path(), &server)
        .args(["--list", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn chat_id_reads_the_threads_state() {
    let class = |c: &str| json!(["langchain_core", "messages", c]);
    let state = json!({"id": "__state__", "sort": 9, "state": {"messages": [
        {"lc":1,"type":"constructor","id":class("HumanMessage"),"kwargs":{"content":"Top?"}},
        {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"","tool_calls":[
            {"name":"dataSqlApi","args":{"sqlQuery":"SELECT a FROM t","queryTitle":"A"},"id":"call1"}]}},
        {"lc":1,"type":"constructor","id":class("ToolMessage"),"kwargs":{"content":"{\"sqlQuery\":\"SELECT a FROM t\",\"data\":[[\"1\"]],\"totalRows\":5000}","tool_call_id":"call1","name":"dataSqlApi"}},
        {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"","tool_calls":[
            {"name":"cubeSqlApi","args":"{\"query\":\"SELECT b FROM t\"}","id":"call2"}]}},
        {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"Here."}}
    ]}})
    .to_string();
    let lines = vec![schema(&["n"]), data(json!([["1"]]))];
    let server = Server::start(move |req, _| {
        if req.path.ends_with("/chat/stream-chat-state") {
            Reply::lines(&[cutoff("c9", false), state.clone()])
        } else {
            answer(req, &lines)
        }
    });
    let home = tempfile::tempdir().unwrap();
    let out = sql(home.path(), &server)
        .env("ANALYST_API_KEY", "sk-chat-key")
        .args([
            "--url",
            &server.url(),
            "--external-id",
            "bot",
            "--chat-id",
            "c9",
            "--list",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "1\tA\t1\t5000\n2\t\t-\t-\n");
    let read = &server.seen()[0];
    assert_eq!(read.body["chatId"], "c9");
    assert!(read.body.get("input").is_none() && read.body.get("messageId").is_none());
    assert_eq!(read.body["sessionSettings"]["externalId"], "bot");

    let out = sql(home.path(), &server)
        .env("ANALYST_API_KEY", "sk-chat-key")
        .args([
            "--url",
            &server.url(),
            "--external-id",
            "bot",
            "--chat-id",
            "c9",
            "--pick",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(sent(&server), ["SELECT a FROM t"]);
}
