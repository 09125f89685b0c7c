//! `analyst sql` when things go wrong or stop early: error lines, HTTP statuses, the network,
//! missing settings, `--limit` and Ctrl-C (both cancel the query on the service), and the token
//! never shown.

use crate::common;

use common::scripted::{Reply, Server, analyst, text};
use common::sql::*;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

fn rows(n: usize) -> String {
    data(json!(
        (1..=n).map(|i| vec![i.to_string()]).collect::<Vec<_>>()
    ))
}

#[test]
fn an_error_line_after_rows_keeps_them_and_exits_1() {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(vec![
        schema(&["n"]),
        rows(2),
        json!({"error": "Query timeout", "requestId": "r-77"}).to_string(),
    ]);
    let out = sql(home.path(), &server).arg("SELECT n").output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        text(&out.stdout),
        "n\r\n1\r\n2\r\n",
        "the rows already written stay"
    );
    assert!(
        stderr.contains("Query timeout") && stderr.contains("r-77"),
        "{stderr}"
    );
    assert!(stderr.contains("incomplete: 2 rows written"), "{stderr}");
    // json stays a valid document with the rows that came.
    let out = sql(home.path(), &server)
        .args(["-o", "json", "SELECT n"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rowCount"], 2);
    assert_no_token(&out);
}

#[test]
fn http_statuses_map_to_exit_codes_with_the_services_words() {
    for (status, body, code, words) in [
        (
            400,
            r#"{"error":"Table or CTE with name 'orders_raw' not found"}"#,
            2,
            "orders_raw",
        ),
        (403, r#"{"error":"Invalid token"}"#, 3, "Invalid token"),
        (
            401,
            r#"{"error":"Authorization header isn't set"}"#,
            3,
            "isn't set",
        ),
        (500, r#"{"error":"boom"}"#, 1, "boom"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let server = Server::start(move |_, _| Reply::status(status, body));
        let out = sql(home.path(), &server)
            .args(["-vv", "SELECT 1"])
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{status}: {stderr}");
        assert!(stderr.contains(words), "{status}: {stderr}");
        assert!(stderr.contains("authorization: ***"), "{stderr}");
        assert!(out.stdout.is_empty());
        assert_no_token(&out);
    }
}

#[test]
fn no_service_is_exit_6_and_a_lost_connection_says_incomplete() {
    let home = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = analyst(home.path())
        .env("ANALYST_DATA_TOKEN", DATA_TOKEN)
        .args([
            "sql",
            "--data-url",
            &format!("http://127.0.0.1:{port}"),
            "SELECT 1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert_no_token(&out);

    let server = Server::start(|_, _| Reply::lines(&[schema(&["n"]), rows(3)]).then_drop());
    let out = sql(home.path(), &server).arg("SELECT 1").output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert_eq!(text(&out.stdout), "n\r\n1\r\n2\r\n3\r\n");
    assert!(stderr.contains("incomplete: 3 rows written"), "{stderr}");
}

#[test]
fn missing_settings_are_usage_errors_naming_them() {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .env("ANALYST_DATA_TOKEN", DATA_TOKEN)
        .args(["sql", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--data-url") && stderr.contains("ANALYST_DATA_URL"),
        "{stderr}"
    );
    let out = analyst(home.path())
        .args(["sql", "--data-url", "http://127.0.0.1:9", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    for named in ["--data-token-file", "ANALYST_DATA_TOKEN", "data_token"] {
        assert!(stderr.contains(named), "{stderr}");
    }
}

#[test]
fn the_chat_token_is_the_default_and_a_bare_origin_gets_cubejs_api() {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(vec![schema(&["n"]), rows(1)]);
    let out = analyst(home.path())
        .env("ANALYST_TOKEN", DATA_TOKEN)
        .args(["sql", "--data-url", &server.base, "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let q = &queries(&server)[0];
    assert_eq!(q.header("authorization"), Some(DATA_TOKEN));
    // A token file beats the chat token; the profile's data_url is read too.
    let file = home.path().join("data.jwt");
    std::fs::write(&file, "from-file-token\n").unwrap();
    let config = home.path().join("config.yaml");
    std::fs::write(
        &config,
        format!("profiles:\n  p:\n    data_url: {}\n", root(&server)),
    )
    .unwrap();
    let out = analyst(home.path())
        .env("ANALYST_TOKEN", DATA_TOKEN)
        .args(["sql", "--config"])
        .arg(&config)
        .args(["--profile", "p", "--data-token-file"])
        .arg(&file)
        .arg("SELECT 2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        queries(&server)[1].header("authorization"),
        Some("from-file-token")
    );
}

#[test]
fn dry_run_prints_the_request_with_the_token_masked() {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(vec![]);
    let out = sql(home.path(), &server)
        .args(["--dry-run", "-o", "json", "--timezone", "UTC", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["method"], "POST");
    assert_eq!(doc["url"], format!("{}/v1/cubesql", root(&server)));
    assert_eq!(doc["headers"]["authorization"], "***");
    assert_eq!(doc["headers"]["x-request-id"].as_str().unwrap().len(), 36);
    assert_eq!(doc["body"], json!({"query": "SELECT 1", "timezone": "UTC"}));
    let out = sql(home.path(), &server)
        .args(["--dry-run", "SELECT 1"])
        .output()
        .unwrap();
    assert!(
        text(&out.stdout).starts_with("POST "),
        "{}",
        text(&out.stdout)
    );
    assert_no_token(&out);
    assert!(server.seen().is_empty(), "a dry run sends nothing");
}

#[test]
fn demo_runs_on_the_emulators_data_api_which_refuses_sql_without_a_view() {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .args(["sql", "--demo", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("HTTP 400")
            && text(&out.stderr).contains("a FROM clause naming a view or cube is required"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn limit_stops_after_n_rows_and_cancels_the_query() {
    let home = tempfile::tempdir().unwrap();
    // Five rows, then the query runs on (the connection stays open).
    let server = Server::start(|req, _| {
        if req.method == "DELETE" {
            Reply {
                status: 204,
                parts: vec![],
            }
        } else {
            Reply::lines(&[schema(&["n"]), rows(5)]).then_stall()
        }
    });
    let out = sql(home.path(), &server)
        .args(["--limit", "3", "SELECT n"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "n\r\n1\r\n2\r\n3\r\n");
    let id = queries(&server)[0]
        .header("x-request-id")
        .unwrap()
        .to_owned();
    let cancels = cancels(&server);
    assert_eq!(cancels.len(), 1);
    assert_eq!(
        cancels[0].path,
        format!("/cubejs-api/v1/running-query/{id}")
    );
    assert_eq!(cancels[0].header("authorization"), Some(DATA_TOKEN));
}

#[test]
fn ctrl_c_cancels_the_query_and_exits_130() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.method == "DELETE" {
            Reply {
                status: 204,
                parts: vec![],
            }
        } else {
            Reply::lines(&[schema(&["n"]), rows(2)]).then_stall()
        }
    });
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_analyst"));
    cmd.env_clear()
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .env("ANALYST_DATA_URL", root(&server))
        .env("ANALYST_DATA_TOKEN", DATA_TOKEN)
        .args(["sql", "SELECT n"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "n\r\n");
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let id = queries(&server)[0]
        .header("x-request-id")
        .unwrap()
        .to_owned();
    assert!(
        stderr.contains(&format!("cancelled query {id}")),
        "{stderr}"
    );
    let cancels = cancels(&server);
    assert_eq!(cancels.len(), 1, "the server saw the DELETE");
    assert!(cancels[0].path.ends_with(&id));
    assert!(!stderr.contains(DATA_TOKEN));
}

#[test]
fn a_closed_stdout_ends_quietly_and_cancels() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.method == "DELETE" {
            Reply {
                status: 204,
                parts: vec![],
            }
        } else {
            let mut lines = vec![schema(&["n"])];
            lines.extend((0..200).map(|_| rows(1000)));
            Reply::lines(&lines).then_stall()
        }
    });
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} sql 'SELECT n' | head -n 2; exit ${{PIPESTATUS:-0}}",
            env!("CARGO_BIN_EXE_analyst")
        ))
        .env_clear()
        .env("HOME", home.path())
        .env("ANALYST_DATA_URL", root(&server))
        .env("ANALYST_DATA_TOKEN", DATA_TOKEN)
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "n\r\n1\r\n");
    assert!(
        !text(&out.stderr).contains("analyst:"),
        "{}",
        text(&out.stderr)
    );
    // The program ended (the pipe closed) and told the service to stop.
    for _ in 0..50 {
        if !cancels(&server).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(cancels(&server).len(), 1);
}

/// The reader goes away while `sql` waits on a server gone quiet after sending everything: the
/// output thread, blocked writing the last rows, finds stdout closed, and the run ends quietly
/// and cancels the query then, not when (if ever) the server sends again.
#[test]
fn a_reader_leaving_while_the_server_is_quiet_ends_the_run() {
    let home = tempfile::tempdir().unwrap();
    let lines: Vec<String> = std::iter::once(schema(&["n"]))
        .chain((0..250).map(|_| rows(1000)))
        .collect();
    let server = Server::start(move |req, _| {
        if req.method == "DELETE" {
            Reply {
                status: 204,
                parts: vec![],
            }
        } else {
            Reply::lines(&lines).then_stall()
        }
    });
    // All the rows as csv: `n`, then 1..=1000 250 times, each line ending CRLF.
    let per_line: usize = (1..=1000).map(|i: usize| i.to_string().len() + 2).sum();
    let total = 3 + 250 * per_line;
    let mut child = common::isolation::isolated(home.path())
        .env("ANALYST_DATA_URL", root(&server))
        .env("ANALYST_DATA_TOKEN", DATA_TOKEN)
        .args(["sql", "SELECT n"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read all but the last 200 KB: the rest is more than a pipe holds, so the output thread
    // is blocked in a write when the reader goes away, and by then the run has usually read
    // the whole answer and waits on the quiet server (where, before the run watched for a
    // closed stdout while it waited, it stayed: this test failed 1 run in 3 without it). Then
    // the reader goes away.
    let mut stdout = child.stdout.take().unwrap();
    let mut left = total - 200_000;
    let mut buf = vec![0; 64 * 1024];
    while left > 0 {
        let n = std::io::Read::read(&mut stdout, &mut buf[..left.min(64 * 1024)]).unwrap();
        assert!(n > 0, "stdout ended {left} bytes early");
        left -= n;
    }
    drop(stdout);
    // A bound for a failure to be reported, not a wait for success: a run that never ends
    // fails here instead of hanging the suite.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("sql still waits on the quiet server after its reader left");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("analyst:"), "{stderr}");
    for _ in 0..50 {
        if !cancels(&server).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(cancels(&server).len(), 1, "the query is cancelled");
}

/// A config file holding a secret that others can read draws its warning once per run, though
/// `sql` reads its settings for the data API and for the HTTP client separately.
#[cfg(unix)]
#[test]
fn a_readable_config_with_a_secret_is_warned_about_once() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let server = data_api(vec![schema(&["n"]), rows(1)]);
    let config = home.path().join("config.yaml");
    std::fs::write(
        &config,
        format!(
            "profiles:\n  p:\n    data_url: {}\n    data_token: {DATA_TOKEN}\n",
            root(&server)
        ),
    )
    .unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = analyst(home.path())
        .args(["sql", "--config"])
        .arg(&config)
        .args(["--profile", "p", "SELECT 1"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("others can read it").count(),
        1,
        "one warning: {stderr}"
    );
    assert_no_token(&out);
}

/// A 200 whose whole body is one line of something else, without a newline (a sign-in page),
/// is an answer of another kind, exit 1 as with a newline; it was reported as a lost
/// connection (exit 6). A body cut off after rows stays exit 6 (above).
#[test]
fn a_whole_body_that_is_not_ndjson_is_exit_1_with_or_without_a_newline() {
    for body in ["<html/>", "<html/>\n"] {
        let home = tempfile::tempdir().unwrap();
        let server = Server::start(move |_, _| Reply::status(200, body));
        let out = sql(home.path(), &server).arg("SELECT 1").output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{body:?}: {stderr}");
        assert!(!stderr.contains("connection lost"), "{body:?}: {stderr}");
        assert!(
            stderr.contains("the service answered application/json, not the data API's NDJSON"),
            "{body:?}: {stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}
