//! `analyst scim patch` against scripted servers: the request it sends, how it reads every kind
//! of answer, retries, redirects, bulk runs and usage errors.

use crate::common;

use common::scim::{Answer, Server, analyst, token_file};
use serde_json::{Value, json};

/// Run `analyst scim patch ARGS` against `server` with the token `tok`; returns (code, stdout, stderr).
fn patch(server: &Server, args: &[&str]) -> (i32, String, String) {
    patch_with(server, args, |_| {})
}

fn patch_with(
    server: &Server,
    args: &[&str],
    tweak: impl FnOnce(&mut assert_cmd::Command),
) -> (i32, String, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = analyst(&home);
    cmd.args(["scim", "patch", "--scim-url", &server.scim_url()])
        .args(args)
        .env("ANALYST_SCIM_TOKEN", "tok-123");
    tweak(&mut cmd);
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SCIM_ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";

#[test]
fn deactivate_sends_the_patchop_and_prints_the_user() {
    let server = Server::start(|_, _| Answer::user("a/b c", json!(false)));
    let (code, out, err) = patch(&server, &["a/b c", "--deactivate", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let user: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(user["active"], false);
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    let r = &seen[0];
    assert_eq!(r.method, "PATCH");
    assert_eq!(r.target, "/api/scim/v2/Users/a%2Fb%20c");
    assert_eq!(r.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(r.header("content-type"), Some("application/scim+json"));
    assert_eq!(
        r.header("accept"),
        Some("application/scim+json, application/json")
    );
    assert_eq!(
        r.json(),
        json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
               "Operations": [{"op": "replace", "path": "active", "value": false}]})
    );
}

#[test]
fn operations_follow_the_command_line_and_options_reach_the_wire() {
    let server = Server::start(|_, _| Answer::new(204, ""));
    let home = tempfile::tempdir().unwrap();
    let token = token_file(&home, "Bearer tok-xyz");
    let (code, out, err) = patch_with(
        &server,
        &[
            "7",
            "--remove",
            "title",
            "--add",
            r#"emails:=[{"value":"a@b.c"}]"#,
            "--deactivate",
            "--replace",
            "nickName=Al",
            "--if-match",
            "W/\"3\"",
            "--attributes",
            "userName,active",
            "--scim-token-file",
            token.to_str().unwrap(),
        ],
        |c| {
            c.env_remove("ANALYST_SCIM_TOKEN");
        },
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "", "a 204 prints nothing");
    let r = &server.requests()[0];
    assert_eq!(r.target, "/api/scim/v2/Users/7?attributes=userName,active");
    assert_eq!(r.header("if-match"), Some("W/\"3\""));
    assert_eq!(
        r.header("authorization"),
        Some("Bearer tok-xyz"),
        "Bearer is not doubled"
    );
    assert_eq!(
        r.json()["Operations"],
        json!([
            {"op": "remove", "path": "title"},
            {"op": "add", "path": "emails", "value": [{"value": "a@b.c"}]},
            {"op": "replace", "path": "active", "value": false},
            {"op": "replace", "path": "nickName", "value": "Al"},
        ])
    );
}

#[test]
fn pathless_and_body_documents() {
    let server = Server::start(|_, _| Answer::new(204, ""));
    let (code, _, err) = patch(
        &server,
        &[
            "1",
            "--pathless",
            "--deactivate",
            "--replace",
            "name.givenName=Ann",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.requests()[0].json()["Operations"],
        json!([{"op": "replace", "value": {"active": false, "name": {"givenName": "Ann"}}}])
    );
    let body = r#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Add","path":"title","value":"x"}]}"#;
    let (code, _, err) = patch_with(&server, &["1", "--body", "-"], |c| {
        c.write_stdin(body);
    });
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.requests()[1].json()["Operations"],
        json!([{"op": "add", "path": "title", "value": "x"}])
    );
}

#[test]
fn usage_errors_exit_2_naming_the_flag_and_send_nothing() {
    let server = Server::start(|_, _| Answer::new(204, ""));
    let cases: [(&[&str], &str); 6] = [
        (&["1"], "nothing to patch"),
        (
            &["1", "--replace", "active:=fals"],
            "--replace \"active:=fals\": invalid JSON after :=",
        ),
        (
            &["1", "--add", "title"],
            "--add \"title\": expected PATH=VALUE",
        ),
        (&["1", "--body", r#"{"Operations":[]}"#], "--body: "),
        (&["1", "--body", "{oops"], "--body: invalid JSON"),
        (&["--deactivate"], "no users to patch"),
    ];
    for (args, words) in cases {
        let (code, out, err) = patch(&server, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
        assert_eq!(out, "");
    }
    let (code, _, err) = patch(
        &server,
        &["1", "--deactivate", "--ids-from", "/nonexistent/ids"],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("--ids-from: cannot read /nonexistent/ids"),
        "{err}"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_user_still_active_after_deactivate_is_a_failure() {
    // "True" as a string, as some servers send it.
    let server = Server::start(|_, _| Answer::user("9", json!("True")));
    let (code, out, err) = patch(&server, &["9", "--deactivate", "-o", "ndjson"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("still reports active: true"), "{err}");
    let line: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["status"], 200);
    assert!(line["error"].as_str().unwrap().contains("active"));
}

/// SCIM attribute names are case-insensitive (RFC 7643 §2.1): `"Active": true` after
/// `--deactivate` is a user still active (it was read as success).
#[test]
fn a_user_still_active_in_another_spelling_is_a_failure() {
    let server = Server::start(|_, _| {
        Answer::new(
            200,
            json!({"id": "9", "UserName": "9@example.com", "Active": true, "Meta": {}}).to_string(),
        )
    });
    let (code, _, err) = patch(&server, &["9", "--deactivate", "-o", "ndjson"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("still reports active: true"), "{err}");
}

/// `--ids-from` as editors save it: a byte-order mark before a `#` comment line (it was sent
/// as a PATCH of the user `\u{feff}# ...`), CRLF, and a comment after an id.
#[test]
fn ids_from_skips_a_byte_order_mark_and_trailing_comments() {
    let server = Server::start(|seen, _| {
        let id = seen.target.rsplit('/').next().unwrap().to_owned();
        Answer::user(&id, json!(false))
    });
    let home = tempfile::tempdir().unwrap();
    let ids = home.path().join("ids.txt");
    std::fs::write(
        &ids,
        "\u{feff}# users to offboard\r\nu1\r\nu2  # leaver, ticket 42\r\nu#3\t# kept: a # inside an id\r\n",
    )
    .unwrap();
    let (code, _, err) = patch(
        &server,
        &[
            "--ids-from",
            ids.to_str().unwrap(),
            "--deactivate",
            "-o",
            "ndjson",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let mut targets: Vec<String> = server.requests().iter().map(|r| r.target.clone()).collect();
    targets.sort();
    assert_eq!(
        targets,
        [
            "/api/scim/v2/Users/u%233",
            "/api/scim/v2/Users/u1",
            "/api/scim/v2/Users/u2"
        ]
    );
}

#[test]
fn every_status_maps_to_the_exit_table() {
    let cases = [
        (400, 2),
        (401, 3),
        (403, 3),
        (404, 4),
        (409, 5),
        (412, 5),
        (500, 1),
        (502, 1),
    ];
    for (status, exit) in cases {
        let server = Server::start(move |_, _| {
            Answer::new(
                status,
                json!({"schemas": [SCIM_ERROR], "status": status.to_string(), "detail": format!("detail {status}")})
                    .to_string(),
            )
        });
        let (code, out, err) = patch(&server, &["1", "--deactivate"]);
        assert_eq!(code, exit, "HTTP {status}: {err}");
        assert!(err.contains(&format!("HTTP {status}")), "{err}");
        assert!(err.contains(&format!("detail {status}")), "{err}");
        assert_eq!(out, "");
        assert_eq!(server.requests().len(), 1, "HTTP {status} is not retried");
    }
}

#[test]
fn error_bodies_of_every_shape_are_shown_trimmed() {
    let numeric = json!({"schemas": [SCIM_ERROR], "status": 409, "scimType": "uniqueness", "detail": "userName taken"});
    let server = Server::start(move |_, _| Answer::new(409, numeric.to_string()));
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 5);
    assert!(err.contains("userName taken (uniqueness)"), "{err}");

    let html = format!(
        "<html>\n<body>\n<h1>Bad gateway</h1>{}</body></html>",
        "x".repeat(2000)
    );
    let server = Server::start(move |_, _| {
        Answer::new(500, html.clone()).header("content-type", "text/html")
    });
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 1);
    assert!(err.contains("<html> <body> <h1>Bad gateway</h1>"), "{err}");
    assert!(err.len() < 1000, "trimmed: {}", err.len());

    let server = Server::start(|_, _| {
        Answer::new(403, "forbidden: token lacks users:write\n")
            .header("content-type", "text/plain")
    });
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 3);
    assert!(err.contains("forbidden: token lacks users:write"), "{err}");

    let server = Server::start(|_, _| Answer::new(404, r#"{"message":"no such user"}"#));
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 4);
    assert!(err.contains("no such user"), "{err}");
}

#[test]
fn throttling_is_retried_honouring_retry_after() {
    // 429 with seconds, then 503 with an HTTP date already past, then success.
    let server = Server::start(|_, n| match n {
        0 => Answer::new(429, "").header("retry-after", "0"),
        1 => Answer::new(503, "").header("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"),
        _ => Answer::user("1", json!(false)),
    });
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn retries_are_bounded() {
    let server = Server::start(|_, _| Answer::new(503, "busy").header("retry-after", "0"));
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 1);
    assert_eq!(
        server.requests().len(),
        4,
        "--retries 3 by default: 4 tries"
    );
    assert!(err.contains("gave up after 4 tries"), "{err}");

    let server = Server::start(|_, _| Answer::new(429, "").header("retry-after", "0"));
    let (_, _, _) = patch(&server, &["1", "--deactivate", "--retries", "0"]);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_lookup_that_runs_out_of_retries_names_the_user() {
    let server = Server::start(|_, _| Answer::new(429, "slow").header("retry-after", "0"));
    let (code, _, err) = patch(
        &server,
        &["--user-name", "ann@x", "--deactivate", "--retries", "0"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("looking up userName \"ann@x\": HTTP 429"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1, "no PATCH after a failed lookup");
}

#[test]
fn a_long_retry_after_fails_at_once_saying_when() {
    let server = Server::start(|_, _| Answer::new(429, "").header("retry-after", "3600"));
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 1);
    assert_eq!(server.requests().len(), 1);
    assert!(err.contains("come back in 3600 s (at "), "{err}");
}

#[test]
fn an_invalid_retry_after_falls_back_to_backoff() {
    let server = Server::start(|_, n| {
        if n == 0 {
            Answer::new(429, "").header("retry-after", "soon")
        } else {
            Answer::new(204, "")
        }
    });
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_redirect_to_another_host_is_not_followed_with_the_token() {
    let elsewhere = Server::start(|_, _| Answer::new(204, ""));
    let target = format!(
        "{}/steal",
        elsewhere.origin.replace("127.0.0.1", "localhost")
    );
    let server = Server::start(move |_, _| Answer::new(307, "").header("location", target.clone()));
    let (code, _, err) = patch(&server, &["1", "--deactivate"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("redirected to") && err.contains("not followed"),
        "{err}"
    );
    assert!(
        elsewhere.requests().is_empty(),
        "the other host saw no request"
    );
}

#[test]
fn network_errors_exit_6() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = tempfile::tempdir().unwrap();
    let out = analyst(&home)
        .args(["scim", "patch", "1", "--deactivate", "--scim-url"])
        .arg(format!("http://127.0.0.1:{port}/scim/v2"))
        .env("ANALYST_SCIM_TOKEN", "t")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect to http://127.0.0.1"));
}

#[test]
fn user_names_are_looked_up_first() {
    let server = Server::start(|seen, _| {
        if seen.method == "GET" {
            let total = if seen.target.contains("%22one%40x") {
                1
            } else if seen.target.contains("%22two%40x") {
                2
            } else {
                0
            };
            let resources: Vec<Value> = (0..total)
                .map(|i| json!({"id": format!("u{i}"), "userName": if total == 1 { "ONE@x".to_owned() } else { format!("two{i}@x") }}))
                .collect();
            Answer::new(200, json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], "totalResults": total, "Resources": resources}).to_string())
        } else {
            Answer::user("u0", json!(false))
        }
    });
    let (code, out, err) = patch(
        &server,
        &["--user-name", "one@x", "--deactivate", "-o", "json"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["id"], "u0");
    let seen = server.requests();
    assert_eq!(
        seen[0].target,
        "/api/scim/v2/Users?filter=userName%20eq%20%22one%40x%22"
    );
    assert_eq!(seen[1].method, "PATCH");
    assert_eq!(seen[1].target, "/api/scim/v2/Users/u0");

    let (code, _, err) = patch(&server, &["--user-name", "nobody@x", "--deactivate"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("no user has userName \"nobody@x\""), "{err}");
    let (code, _, err) = patch(&server, &["--user-name", "two@x", "--deactivate"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("2 users have userName"), "{err}");
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.method == "PATCH")
            .count(),
        1
    );

    // Mixed: ids, and names that fail, in one run: the others still go.
    let (code, out, err) = patch(
        &server,
        &[
            "u0",
            "--user-name",
            "one@x",
            "--user-name",
            "nobody@x",
            "--deactivate",
            "-o",
            "ndjson",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one@x is u0, patched once: {out}");
    assert!(err.contains("already in this run"), "{err}");
    assert!(
        lines
            .iter()
            .any(|l| l["id"].is_null() && l["userName"] == "nobody@x" && l["status"].is_null())
    );
}

#[test]
fn bulk_runs_patch_each_id_once_and_report_every_one() {
    let server = Server::start(|seen, _| {
        let id = seen.target.rsplit('/').next().unwrap().to_owned();
        if id.ends_with('7') {
            Answer::new(
                404,
                json!({"schemas": [SCIM_ERROR], "status": "404", "detail": "gone"}).to_string(),
            )
        } else {
            Answer::user(&id, json!(false))
        }
    });
    let home = tempfile::tempdir().unwrap();
    let ids = home.path().join("ids.txt");
    let mut text = String::from("# leavers\n\n");
    for i in 0..200 {
        text.push_str(&format!("  id{i}  \n"));
    }
    text.push_str("id5\nid6\n");
    std::fs::write(&ids, text).unwrap();
    let (code, out, err) = patch(
        &server,
        &[
            "id0",
            "--ids-from",
            ids.to_str().unwrap(),
            "--deactivate",
            "-j",
            "8",
            "-o",
            "ndjson",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 200);
    let mut ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 200, "every id once");
    let failed = lines.iter().filter(|l| l.get("error").is_some()).count();
    assert_eq!(failed, 20);
    assert!(
        lines
            .iter()
            .all(|l| l["status"] == 200 || l["status"] == 404)
    );
    assert_eq!(server.requests().len(), 200, "no id patched twice");
    assert!(err.contains("patched 180 of 200 users; 20 failed"), "{err}");
}

#[test]
fn several_ids_as_one_document_in_input_order() {
    let server = Server::start(|seen, _| {
        if seen.target.ends_with("/b") {
            Answer::new(204, "")
        } else {
            Answer::user(seen.target.rsplit('/').next().unwrap(), json!(false))
        }
    });
    let (code, out, err) = patch(&server, &["a", "b", "c", "--deactivate", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(doc[1], json!({"id": "b", "status": 204, "user": null}));
    assert!(err.contains("patched 3 of 3 users"), "{err}");

    let (code, out, _) = patch(&server, &["a", "--deactivate", "-o", "yaml"]);
    assert_eq!(code, 0);
    assert!(out.contains("userName: a@example.com"), "{out}");
    let (code, out, _) = patch(&server, &["a", "b", "--deactivate", "-o", "table"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("ID"), "{out}");
    assert!(out.contains("a@example.com"), "{out}");
}

#[test]
fn dry_run_shows_requests_masked_and_sends_nothing() {
    let server = Server::start(|_, _| Answer::new(204, ""));
    let (code, out, err) = patch(
        &server,
        &[
            "42",
            "--user-name",
            "ann@x",
            "--deactivate",
            "--dry-run",
            "-vv",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(server.requests().is_empty());
    assert!(out.contains("PATCH http://127.0.0.1"), "{out}");
    assert!(out.contains("/Users/42\n"), "{out}");
    assert!(
        out.contains("GET ") && out.contains("filter=userName%20eq%20%22ann%40x%22"),
        "{out}"
    );
    assert!(out.contains("/Users/<id of ann@x>"), "{out}");
    assert!(out.contains("authorization: ***"), "{out}");
    assert!(out.contains(r#""Operations":[{"op":"replace","path":"active","value":false}]"#));
    assert!(!out.contains("tok-123") && !err.contains("tok-123"));
    assert!(err.contains("<id of NAME>"), "{err}");
}

#[test]
fn very_verbose_never_shows_the_token() {
    let server = Server::start(|_, _| Answer::new(204, ""));
    let (code, _, err) = patch(&server, &["1", "--deactivate", "-vv"]);
    assert_eq!(code, 0);
    assert!(err.contains("> authorization: ***"), "{err}");
    assert!(err.contains("< 204"), "{err}");
    assert!(!err.contains("tok-123"), "{err}");
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let server = Server::start(|seen, _| {
        Answer::user(seen.target.rsplit('/').next().unwrap(), json!(false))
    });
    let home = tempfile::tempdir().unwrap();
    let ids = home.path().join("ids");
    std::fs::write(
        &ids,
        (0..3000).map(|i| format!("{i}\n")).collect::<String>(),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("analyst");
    let mut cmd = std::process::Command::new(bin);
    common::scim::isolate(&mut cmd, &home);
    let mut child = cmd
        .args([
            "scim",
            "patch",
            "--deactivate",
            "-o",
            "ndjson",
            "--scim-url",
            &server.scim_url(),
            "--ids-from",
        ])
        .arg(&ids)
        .env("ANALYST_SCIM_TOKEN", "t")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `-vv` shows the request body for reading, with a password set through it masked; the
/// request itself carries it.
#[test]
fn very_verbose_masks_a_password_in_the_body_it_shows() {
    let server = Server::start(|_, _| Answer::user("u1", json!(true)));
    let (code, _, stderr) = patch(
        &server,
        &["-vv", "u1", "--replace", "password=hunter2-secret"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("hunter2-secret"), "{stderr}");
    assert!(stderr.contains(r#""value":"***""#), "{stderr}");
    let sent = server.requests()[0].json();
    assert_eq!(sent["Operations"][0]["value"], "hunter2-secret");
}
