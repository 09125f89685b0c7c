//! `analyst mcp` spoken to line by line over stdio, as JSON-RPC 2.0 and MCP say: a line that is
//! not JSON gets a Parse error and the server goes on; every request is answered with its id,
//! and no notification is answered; `ask` gives the same structured content (schema an array,
//! rows arrays in schema order) whatever wire variant the service speaks.

use crate::common;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A safety net only: a server that never answers fails the test instead of hanging it.
const NO_ANSWER: Duration = Duration::from_secs(120);

struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    _home: tempfile::TempDir,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let home = tempfile::tempdir().unwrap();
        let mut child = common::isolation::isolated(home.path())
            .args(["mcp", "--demo", "-q"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin: Some(stdin),
            lines,
            _home: home,
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Close stdin and read stdout to its end: every message the server sent from here on,
    /// notifications left out. The server answers all it has read before it exits, so what
    /// this returns is all there is, whatever the timing.
    fn finish(&mut self) -> Vec<Value> {
        drop(self.stdin.take());
        let mut all = Vec::new();
        loop {
            match self.lines.recv_timeout(NO_ANSWER) {
                Ok(line) => {
                    let v: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("stdout holds only JSON-RPC ({e}): {line}"));
                    if v.get("method").is_none() {
                        all.push(v);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(e) => panic!("the server ends when stdin does: {e}"),
            }
        }
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        all
    }

    fn send(&mut self, msg: Value) {
        self.send_raw(&msg.to_string());
    }

    /// The next message that is not a notification.
    fn response(&mut self) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(NO_ANSWER)
                .expect("the server answers");
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout holds only JSON-RPC ({e}): {line}"));
            if v.get("method").is_none() {
                return v;
            }
        }
    }

    fn initialize(&mut self) {
        self.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        );
        let r = self.response();
        assert_eq!(r["id"], 1, "{r}");
        assert!(r["result"].is_object(), "{r}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    fn ask(&mut self, id: u64, question: &str) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "ask", "arguments": {"question": question}}}));
        let r = self.response();
        assert_eq!(r["id"], id, "{r}");
        r["result"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() {
    let mut s = Session::start(&[]);
    s.send_raw("this is not json");
    let r = s.response();
    assert_eq!(r["jsonrpc"], "2.0", "{r}");
    assert_eq!(r["id"], Value::Null, "{r}");
    assert!(
        r.as_object().unwrap().contains_key("id"),
        "id: null is sent: {r}"
    );
    assert_eq!(r["error"]["code"], -32700, "{r}");
    s.send_raw("{\"jsonrpc\": \"2.0\", \"id\": ");
    assert_eq!(s.response()["error"]["code"], -32700);
    // Still serving.
    s.initialize();
}

#[test]
fn invalid_requests_are_answered_with_their_id_and_the_right_code() {
    let mut s = Session::start(&[]);
    // (line, the id the answer must carry, its code)
    let cases = [
        (
            r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
            json!(5),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
            -32600,
        ),
        (r#"{"foo":1}"#, Value::Null, -32600),
        ("[]", Value::Null, -32600),
        (r#""str""#, Value::Null, -32600),
        (
            r#"{"jsonrpc":"2.0","id":"s","method":7}"#,
            json!("s"),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":5}"#,
            json!(6),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call"}"#,
            json!(8),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}"#,
            json!(9),
            -32602,
        ),
    ];
    for (line, id, code) in cases {
        s.send_raw(line);
        let r = s.response();
        assert!(r.as_object().unwrap().contains_key("id"), "{line}: {r}");
        assert_eq!(r["id"], id, "{line}: {r}");
        assert_eq!(r["error"]["code"], code, "{line}: {r}");
    }
    // And the server goes on.
    s.send(json!({"jsonrpc": "2.0", "id": 10, "method": "ping"}));
    assert_eq!(s.response()["id"], 10);
}

/// The lines of the black-box review's repro (`mcp_bad.jsonl`), in its order.
const REPRO: [&str; 7] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h35","version":"0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":"p3","method":"tools/list","params":[]}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
    r#"{"jsonrpc":"2.0","id":"p6","method":"tools/call","params":{"name":"ask","arguments":["x"]}}"#,
    r#"{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"ask","arguments":"hello"}}"#,
    r#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#,
];

#[test]
fn every_request_is_answered_once_with_its_id_and_no_notification_at_all() {
    let mut s = Session::start(&[]);
    for line in REPRO {
        s.send_raw(line);
    }
    let answers = s.finish();
    for r in &answers {
        assert!(r.as_object().unwrap().contains_key("id"), "{r}");
    }
    let mut ids: Vec<String> = answers.iter().map(|r| r["id"].to_string()).collect();
    ids.sort();
    // Five requests, five answers: none to either notification (not even with `id: null`).
    assert_eq!(
        ids,
        [r#""last""#, r#""p3""#, r#""p6""#, "1", "29"],
        "{answers:?}"
    );
    let by_id = |id: Value| answers.iter().find(|r| r["id"] == id).unwrap();
    assert!(by_id(json!(1))["result"].is_object());
    assert_eq!(by_id(json!("last"))["result"], json!({}));
    // `params: []` is a JSON-RPC request all right (params by position), but an MCP method
    // takes its params by name: Invalid params, with the request's id.
    let r = by_id(json!("p3"));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("params must be an object"),
        "{r}"
    );
}

#[test]
fn tools_call_with_arguments_that_are_not_an_object_is_invalid_params() {
    let mut s = Session::start(&[]);
    s.initialize();
    for (id, arguments) in [(json!("p6"), json!(["x"])), (json!(29), json!("hello"))] {
        s.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "ask", "arguments": arguments}}));
        let r = s.response();
        assert_eq!(r["id"], id, "{r}");
        // The method exists: not -32601 Method not found.
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains("tools/call"), "{r}");
        assert!(message.contains("arguments"), "{r}");
    }
    // As MCP says: an unknown tool is a protocol error, Invalid params; arguments that are an
    // object but do not fit the tool's schema are the tool's error, for the assistant to read.
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "no_such_tool", "arguments": {}}}));
    let r = s.response();
    assert_eq!(
        (&r["id"], &r["error"]["code"]),
        (&json!(3), &json!(-32602)),
        "{r}"
    );
    s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "ask", "arguments": {"nope": 1}}}));
    let r = s.response();
    assert_eq!(
        (&r["id"], &r["result"]["isError"]),
        (&json!(4), &json!(true)),
        "{r}"
    );
}

#[test]
fn a_notification_whose_params_do_not_decode_is_not_answered() {
    let mut s = Session::start(&[]);
    s.initialize();
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such/notification","params":[1, 2]}"#,
    ] {
        s.send_raw(line);
    }
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    let answers = s.finish();
    assert_eq!(answers.len(), 1, "only the ping is answered: {answers:?}");
    assert_eq!(answers[0]["id"], 2, "{answers:?}");
}

#[test]
fn ask_gives_the_same_shape_of_queries_in_every_dialect() {
    for dialect in ["seed", "docs", "legacy"] {
        let mut s = Session::start(&["--dialect", dialect, "--fallback"]);
        s.initialize();
        let result = s.ask(2, "Revenue by category last year");
        assert_ne!(result["isError"], true, "{dialect}: {result}");
        let content = &result["structuredContent"];
        let queries = content["queries"].as_array().unwrap();
        assert!(!queries.is_empty(), "{dialect}: {content}");
        let q = queries.last().unwrap();
        let schema = q["schema"]
            .as_array()
            .unwrap_or_else(|| panic!("{dialect}: schema is an array: {q}"));
        let names: Vec<&str> = schema.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 2, "{dialect}: {q}");
        assert!(
            schema.iter().all(|c| c["column_type"].is_string()),
            "{dialect}: every column has a type: {q}"
        );
        let rows = q["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{dialect}: {q}");
        for row in rows {
            let cells = row
                .as_array()
                .unwrap_or_else(|| panic!("{dialect}: rows are arrays: {q}"));
            assert_eq!(cells.len(), schema.len(), "{dialect}: {q}");
            // The category comes first and is text; the revenue is a number.
            let text = |v: &Value| v.as_str().map(str::to_owned).unwrap_or(v.to_string());
            let category = cells[names.iter().position(|n| n.contains("categor")).unwrap()].clone();
            assert!(text(&category).parse::<f64>().is_err(), "{dialect}: {q}");
        }
        if dialect == "legacy" {
            assert!(
                schema.iter().all(|c| c["title"].is_string()),
                "legacy columns keep the annotation's titles: {q}"
            );
        }
    }
}
