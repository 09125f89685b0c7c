//! `analyst mcp --demo` driven by an MCP client no one here wrote: the official Python SDK
//! (PyPI: mcp), installed by `.ci/install-scim2-server` into the venv of the SCIM tools.
//! `tests/fixtures/mcp_client_driver.py` runs one session over stdio (initialize, list tools,
//! ask and a follow-up, thread_state, run_sql, a bad request then a good one, progress, and a
//! cancelled ask) and prints a JSON report, judged here.
//!
//! The python is found through ANALYST_MCP_PYTHON (which `.ci/run` exports), else
//! `$ANALYST_SCIM2_VENV/bin/python`, else the newest `~/.cache/analyst/scim2-server-*/bin/python`.
//! Without it the test fails under CI=true and says SKIPPED elsewhere.

use crate::common;
use common::venv::say;

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A python that can import the MCP SDK's stdio client.
fn locate() -> Result<PathBuf, String> {
    common::venv::python_with(
        "ANALYST_MCP_PYTHON",
        "mcp.client.stdio",
        "the mcp Python SDK is not installed",
    )
}

/// Run the driver with the binary, isolated, within `limit`; its report and stderr.
fn drive(python: &PathBuf, limit: Duration) -> (Value, String) {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("server.log");
    let driver = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/mcp_client_driver.py"
    );
    let mut cmd = Command::new(python);
    cmd.arg(driver)
        .arg(env!("CARGO_BIN_EXE_analyst"))
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The driver passes this environment on to `analyst mcp`: nothing of the user's leaks in.
    common::isolation::isolate(&mut cmd, home.path());
    let mut child = cmd.spawn().expect("start the driver");
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the driver failed: {stderr}");
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the driver printed no JSON ({e}): {stderr}"));
    (report, stderr)
}

#[test]
fn the_python_sdk_drives_a_whole_session() {
    let python = match locate() {
        Ok(p) => p,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI needs the mcp Python SDK for this test: {why}")
        }
        Err(why) => {
            return say(&format!(
                "SKIPPED mcp_client::the_python_sdk_drives_a_whole_session: {why} \
                 (under CI=true this fails)"
            ));
        }
    };
    let (r, _) = drive(&python, Duration::from_secs(180));
    say(&format!("mcp Python SDK {}", r["version"]));
    assert_eq!(r["server"]["name"], "analyst", "{r}");

    // Four tools, each with a description and an object schema naming its arguments.
    let tools = r["tools"].as_object().expect("tools");
    let mut names: Vec<&str> = tools.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["abort", "ask", "run_sql", "thread_state"]);
    for (name, t) in tools {
        assert!(t["description"].as_str().unwrap_or("").len() > 40, "{name}");
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
    }
    assert_eq!(tools["ask"]["inputSchema"]["required"][0], "question");
    assert!(tools["run_sql"]["inputSchema"]["properties"]["pick"].is_object());

    // ask: the answer once as text, and structured with the SQL and its rows.
    let ask = &r["ask"];
    assert_eq!(ask["isError"], false, "{ask}");
    let text = ask["text"].as_str().unwrap();
    assert!(text.contains("4,598,790.05"), "{text}");
    assert_eq!(
        text.matches("4,598,790.05").count(),
        1,
        "the answer once: {text}"
    );
    let doc = &ask["structured"];
    let chat_id = doc["chatId"].as_str().expect("chatId");
    assert_eq!(doc["answer"], ask["text"]);
    let q = &doc["queries"][0];
    assert!(
        q["sql"].as_str().unwrap().contains("MEASURE(revenue)"),
        "{q}"
    );
    assert_eq!(q["schema"][0]["name"], "revenue");
    assert_eq!(q["rows"][0][0], "4598790.05");
    assert_eq!(q["totalRows"], 1);
    assert!(q["vegaSpec"].is_object(), "{q}");

    // Progress: the thread first, then each tool call as it starts and ends, in order.
    let progress = r["progress"].as_array().unwrap();
    let messages: Vec<&str> = progress
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages[0], format!("thread {chat_id}"));
    assert!(
        messages.iter().any(|m| m.starts_with("calling dataMeta")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("calling dataSqlApi")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("dataSqlApi") && m.ends_with("1 row")),
        "{messages:?}"
    );
    let values: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "progress increases: {values:?}"
    );

    // The follow-up stays in the thread.
    let follow = &r["followUp"];
    assert_eq!(follow["isError"], false, "{follow}");
    assert_eq!(follow["structured"]["chatId"], chat_id);

    // thread_state: both turns, finished.
    let state = &r["threadState"]["structured"];
    assert_eq!(state["chatId"], chat_id);
    assert_eq!(state["isStreaming"], false);
    let users = state["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert_eq!(users, 2, "{state}");

    // run_sql under --demo: the answer's SQL run on the emulator's data query API.
    let sql = &r["runSql"];
    assert_eq!(sql["isError"], false, "{sql}");
    let structured = &sql["structured"];
    assert!(
        structured["schema"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{sql}"
    );
    let rows = structured["rows"].as_array().expect("rows");
    assert!(!rows.is_empty(), "{sql}");
    assert_eq!(
        structured["rowCount"].as_u64(),
        Some(rows.len() as u64),
        "{sql}"
    );
    let counted = match rows.len() {
        1 => "1 row\n".to_owned(),
        n => format!("{n} rows\n"),
    };
    assert!(sql["text"].as_str().unwrap().starts_with(&counted), "{sql}");

    // A bad request is a tool error naming the argument; the next request is served.
    let bad = &r["bad"];
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(bad["text"].as_str().unwrap().contains("questoin"), "{bad}");
    assert_eq!(r["afterBad"]["isError"], false, "{}", r["afterBad"]);

    // A cancelled ask aborts its thread.
    let cancel = &r["cancel"];
    assert_eq!(cancel["cancelled"], true, "{cancel}");
    let id = cancel["chatId"]
        .as_str()
        .expect("the cancelled thread's id");
    assert_eq!(
        cancel["stateAfter"]["structured"]["isStreaming"], false,
        "{cancel}"
    );
    let log = r["stderr"].as_str().unwrap();
    assert!(log.contains(&format!("aborted {id}")), "{log}");
    // stdout carried only the protocol (the SDK would have failed on anything else); the log
    // is on stderr.
    assert!(log.contains("serving on stdio"), "{log}");
}
