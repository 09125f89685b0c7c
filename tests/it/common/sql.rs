//! Shared by the `sql_*` tests: the data query API's lines, a scripted data API on the shared
//! test server, and `analyst sql` pointed at it with a distinctive token.

use super::scripted::{Reply, Seen, Server, analyst};
use serde_json::{Value, json};
use std::path::Path;

/// The data token: a test fails if it shows up in any output.
pub const DATA_TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.DATA-SECRET-tok.sig";

/// The path of the query endpoint under the root the tests use.
pub const QUERY_PATH: &str = "/cubejs-api/v1/cubesql";

/// `{schema}` with these column names (all `String`).
pub fn schema(names: &[&str]) -> String {
    let cols: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "column_type": "String"}))
        .collect();
    json!({"schema": cols, "lastRefreshTime": "2025-01-13T12:00:00.000Z"}).to_string()
}

/// `{data}` with these rows.
pub fn data(rows: Value) -> String {
    json!({ "data": rows }).to_string()
}

/// A data API answering every query with `lines`, and DELETE with 204.
pub fn data_api(lines: Vec<String>) -> Server {
    Server::start(move |req, _| answer(req, &lines))
}

/// The usual answer of a scripted data API: 204 to a cancel, `lines` to a query.
pub fn answer(req: &Seen, lines: &[String]) -> Reply {
    if req.method == "DELETE" {
        Reply {
            status: 204,
            parts: vec![],
        }
    } else {
        Reply::lines(lines)
    }
}

/// The data root of a server.
pub fn root(server: &Server) -> String {
    format!("{}/cubejs-api", server.base)
}

/// `analyst sql` against `server`'s data API, token in the environment, output csv.
pub fn sql(home: &Path, server: &Server) -> assert_cmd::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_DATA_URL", root(server))
        .env("ANALYST_DATA_TOKEN", DATA_TOKEN)
        .arg("sql");
    cmd
}

/// The queries the server received.
pub fn queries(server: &Server) -> Vec<Seen> {
    server
        .seen()
        .into_iter()
        .filter(|s| s.method == "POST" && s.path == QUERY_PATH)
        .collect()
}

/// The cancels the server received.
pub fn cancels(server: &Server) -> Vec<Seen> {
    server
        .seen()
        .into_iter()
        .filter(|s| s.method == "DELETE")
        .collect()
}

/// Neither stream holds the token.
pub fn assert_no_token(out: &std::process::Output) {
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(DATA_TOKEN), "the token is on {name}: {text}");
        assert!(
            !text.contains("DATA-SECRET"),
            "part of the token is on {name}: {text}"
        );
    }
}
