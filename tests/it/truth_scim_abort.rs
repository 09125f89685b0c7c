//! Issue 11, items 7 and 8: `scim patch` and `abort` never report a success that did not
//! happen. A 200 whose body is not what success looks like (an SSO page, plain text, a body
//! that cannot be decoded or is too large, an error object) fails, says what came back, exits
//! with the status the error means, and never shows the token.

use crate::common;

use common::hardening::{API_KEY, SCIM_TOKEN};
use common::hardening::{analyst, chat_url, expect_status, outs, raw_server, run};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

const SCIM_ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";

/// A whole HTTP/1.1 answer that closes the connection.
fn answer(mut s: &TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!("HTTP/1.1 {status} X\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    ));
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let _ = s.flush();
}

/// A hostile 200: its headers and body, the exit status it must end a one-user run with, and
/// words stderr must hold (what came back).
#[derive(Clone)]
struct Hostile {
    headers: Vec<(&'static str, &'static str)>,
    body: Vec<u8>,
    exit: i32,
    words: Vec<&'static str>,
}

impl Hostile {
    fn send(&self, s: &TcpStream) {
        answer(s, 200, &self.headers, &self.body);
    }
}

fn sso_page() -> Hostile {
    Hostile {
        headers: vec![("content-type", "text/html; charset=utf-8")],
        body: b"<!DOCTYPE html>\n<html><head><title>Sign in to Acme SSO</title></head>\n<body>Please sign in</body></html>\n".to_vec(),
        exit: 1,
        words: vec!["text/html", "Sign in to Acme SSO"],
    }
}

fn plain_text() -> Hostile {
    Hostile {
        headers: vec![("content-type", "text/plain")],
        body: b"Request accepted, will be processed later\n".to_vec(),
        exit: 1,
        words: vec!["text/plain", "Request accepted, will be processed later"],
    }
}

fn broken_gzip() -> Hostile {
    Hostile {
        headers: vec![
            ("content-type", "application/scim+json"),
            ("content-encoding", "gzip"),
        ],
        body: b"\x1f\x8b\x08\x00garbage that is not deflate".to_vec(),
        exit: 1,
        words: vec!["Content-Encoding: gzip"],
    }
}

fn oversized() -> Hostile {
    // A User that would say "deactivated" if it were read whole, padded past the 4 MiB limit.
    let user = json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "id": "x",
        "active": false, "padding": "p".repeat(5 << 20)});
    Hostile {
        headers: vec![("content-type", "application/scim+json")],
        body: user.to_string().into_bytes(),
        exit: 1,
        words: vec!["larger than", "4 MiB"],
    }
}

fn jsonrpc_auth() -> Hostile {
    Hostile {
        headers: vec![("content-type", "application/json")],
        body: json!({"jsonrpc": "2.0", "error": {"code": -32001, "message": "Invalid API key"}, "id": null})
            .to_string()
            .into_bytes(),
        exit: 3,
        words: vec!["JSON-RPC", "Invalid API key"],
    }
}

fn jsonrpc_other() -> Hostile {
    Hostile {
        headers: vec![("content-type", "application/json")],
        body: json!({"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}})
            .to_string()
            .into_bytes(),
        exit: 1,
        words: vec!["JSON-RPC", "Internal error"],
    }
}

fn scim_error(status: &'static str, exit: i32, detail: &'static str) -> Hostile {
    Hostile {
        headers: vec![("content-type", "application/scim+json")],
        body: json!({"schemas": [SCIM_ERROR], "status": status, "detail": detail})
            .to_string()
            .into_bytes(),
        exit,
        words: vec!["SCIM Error", detail],
    }
}

/// A User resource answer for `id`, deactivated.
fn user_body(id: &str) -> Vec<u8> {
    json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "id": id,
        "userName": format!("{id}@example.com"), "active": false})
    .to_string()
    .into_bytes()
}

/// The path of a request head's first line.
fn path(head: &str) -> &str {
    head.split_whitespace().nth(1).unwrap_or("")
}

/// Run `analyst scim patch ARGS` against `base`.
fn scim(base: &str, args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = analyst(home.path());
    cmd.env("ANALYST_SCIM_TOKEN", SCIM_TOKEN)
        .args(["scim", "patch", "--scim-url"])
        .arg(format!("{base}/api/scim/v2"))
        .args(args);
    run(&mut cmd)
}

fn no_secret(out: &std::process::Output, secret: &str, case: &str) {
    let (stdout, stderr) = outs(out);
    assert!(
        !stdout.contains(secret) && !stderr.contains(secret),
        "{case}: the secret was printed\n{stdout}\n{stderr}"
    );
}

fn has_words(text: &str, words: &[&str], case: &str) {
    for w in words {
        assert!(text.contains(w), "{case}: {w:?} missing from: {text}");
    }
}

/// One id answered with `hostile`: the run fails with its status, says what came back, and
/// prints no user. Then a bulk run where only user `a` gets it: one NDJSON line per user, `a`
/// failed with status 200 and the same words, `b` patched, exit 1.
fn patch_fails(case: &str, hostile: Hostile) {
    let h = hostile.clone();
    let (base, _) = raw_server(true, move |s, _| h.send(&s));
    let out = scim(&base, &["1", "--deactivate", "-o", "json"]);
    expect_status(&out, hostile.exit, case);
    let (stdout, stderr) = outs(&out);
    assert_eq!(stdout, "", "{case}: no user printed");
    has_words(&stderr, &hostile.words, case);
    assert!(
        stderr.contains("user 1"),
        "{case}: names the user: {stderr}"
    );
    no_secret(&out, SCIM_TOKEN, case);

    let h = hostile.clone();
    let (base, heads) = raw_server(true, move |s, head| {
        if path(head).ends_with("/Users/a") {
            h.send(&s)
        } else {
            answer(
                &s,
                200,
                &[("content-type", "application/scim+json")],
                &user_body("b"),
            )
        }
    });
    let out = scim(&base, &["a", "b", "--deactivate", "-o", "ndjson"]);
    let bulk = format!("{case} (bulk)");
    expect_status(&out, 1, &bulk);
    let (stdout, stderr) = outs(&out);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{bulk}: {stdout}");
    let a = lines.iter().find(|l| l["id"] == "a").expect("a line for a");
    assert_eq!(a["status"], 200, "{bulk}: {a}");
    assert!(a.get("user").is_none(), "{bulk}: {a}");
    has_words(a["error"].as_str().unwrap_or(""), &hostile.words, &bulk);
    let b = lines.iter().find(|l| l["id"] == "b").expect("a line for b");
    assert_eq!(b["user"]["active"], false, "{bulk}: {b}");
    assert!(
        stderr.contains("patched 1 of 2 users; 1 failed"),
        "{bulk}: {stderr}"
    );
    no_secret(&out, SCIM_TOKEN, &bulk);
    assert_eq!(heads.lock().unwrap().len(), 2, "{bulk}: each user once");
}

#[test]
fn patch_answered_with_an_sso_page_fails() {
    patch_fails("HTML 200", sso_page());
}

#[test]
fn patch_answered_with_plain_text_fails() {
    patch_fails("text/plain 200", plain_text());
}

#[test]
fn patch_answered_with_broken_gzip_fails() {
    patch_fails("broken gzip 200", broken_gzip());
}

#[test]
fn patch_answered_with_an_oversized_body_fails_naming_the_limit() {
    patch_fails("oversized 200", oversized());
}

#[test]
fn patch_answered_with_a_jsonrpc_auth_error_exits_3() {
    patch_fails("JSON-RPC auth error 200", jsonrpc_auth());
}

#[test]
fn patch_answered_with_another_jsonrpc_error_exits_1() {
    patch_fails("JSON-RPC error 200", jsonrpc_other());
}

#[test]
fn patch_answered_with_a_scim_error_in_a_200_takes_its_status() {
    patch_fails(
        "SCIM Error 404 in a 200",
        scim_error("404", 4, "User 1 not found"),
    );
    patch_fails(
        "SCIM Error 401 in a 200",
        scim_error("401", 3, "Bearer token rejected"),
    );
}

#[test]
fn a_bare_object_that_is_no_user_is_not_a_success() {
    patch_fails(
        "{} 200",
        Hostile {
            headers: vec![("content-type", "application/json")],
            body: br#"{"result":"queued"}"#.to_vec(),
            exit: 1,
            words: vec!["not a SCIM User", r#"{"result":"queued"}"#],
        },
    );
}

#[test]
fn lenient_users_and_204_still_succeed() {
    // String booleans, PascalCase meta, nulls: still a User.
    let (base, _) = raw_server(true, |s, head| {
        if path(head).ends_with("/Users/n") {
            answer(&s, 204, &[], b"");
        } else {
            let body = json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "id": "l",
                "userName": null, "active": "False", "name": null,
                "Meta": {"ResourceType": "User", "LastModified": null}});
            answer(
                &s,
                200,
                &[("content-type", "application/json")],
                body.to_string().as_bytes(),
            );
        }
    });
    let out = scim(&base, &["l", "n", "--deactivate", "-o", "ndjson"]);
    expect_status(&out, 0, "lenient user and 204");
    let (stdout, stderr) = outs(&out);
    assert!(stderr.contains("patched 2 of 2 users"), "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
}

#[test]
fn user_name_lookups_answered_with_hostile_200s_fail_and_patch_nothing() {
    let mut cases = vec![
        ("HTML", sso_page()),
        ("text/plain", plain_text()),
        ("broken gzip", broken_gzip()),
        ("oversized", oversized()),
        ("JSON-RPC auth", jsonrpc_auth()),
        (
            "SCIM Error 401",
            scim_error("401", 3, "Bearer token rejected"),
        ),
        ("SCIM Error 500", scim_error("500", 1, "database down")),
    ];
    // A JSON object that is no ListResponse does not mean "no such user".
    cases.push((
        "bare object",
        Hostile {
            headers: vec![("content-type", "application/json")],
            body: br#"{"ok":true}"#.to_vec(),
            exit: 1,
            words: vec!["not a SCIM ListResponse", r#"{"ok":true}"#],
        },
    ));
    for (case, hostile) in cases {
        let h = hostile.clone();
        let (base, heads) = raw_server(true, move |s, _| h.send(&s));
        let out = scim(&base, &["--user-name", "ann@x", "--deactivate"]);
        expect_status(&out, hostile.exit, case);
        let (_, stderr) = outs(&out);
        has_words(&stderr, &hostile.words, case);
        assert!(
            stderr.contains("looking up userName \"ann@x\""),
            "{case}: {stderr}"
        );
        no_secret(&out, SCIM_TOKEN, case);
        let heads = heads.lock().unwrap();
        assert!(
            heads.iter().all(|h| h.starts_with("GET ")),
            "{case}: nothing patched: {heads:?}"
        );

        // In a bulk run the name fails alone; the id still goes.
        let h = hostile.clone();
        let (base, _) = raw_server(true, move |s, head| {
            if head.starts_with("GET ") {
                h.send(&s)
            } else {
                answer(
                    &s,
                    200,
                    &[("content-type", "application/scim+json")],
                    &user_body("b"),
                )
            }
        });
        let out = scim(
            &base,
            &["b", "--user-name", "ann@x", "--deactivate", "-o", "ndjson"],
        );
        let bulk = format!("{case} lookup (bulk)");
        expect_status(&out, 1, &bulk);
        let (stdout, _) = outs(&out);
        let failed: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["userName"] == "ann@x")
            .collect();
        assert_eq!(failed.len(), 1, "{bulk}: {stdout}");
        has_words(
            failed[0]["error"].as_str().unwrap_or(""),
            &hostile.words,
            &bulk,
        );
    }
}

// ----- abort -----

/// `analyst abort --chat-id c1` against a raw server answering `status`, `headers`, `body`;
/// returns the output and the request heads seen.
fn abort(
    status: u16,
    headers: &'static [(&'static str, &'static str)],
    body: &'static [u8],
) -> (std::process::Output, Arc<Mutex<Vec<String>>>) {
    let (base, heads) = raw_server(true, move |s, _| answer(&s, status, headers, body));
    let home = tempfile::tempdir().unwrap();
    let mut cmd = analyst(home.path());
    cmd.env("ANALYST_API_KEY", API_KEY).args([
        "abort",
        "--url",
        &chat_url(&base),
        "--external-id",
        "bot",
        "--chat-id",
        "c1",
    ]);
    (run(&mut cmd), heads)
}

fn abort_fails(case: &str, out: &std::process::Output, exit: i32, words: &[&str]) {
    expect_status(out, exit, case);
    let (stdout, stderr) = outs(out);
    assert_eq!(stdout, "", "{case}");
    assert!(!stderr.contains("aborted c1"), "{case}: a lie: {stderr}");
    has_words(&stderr, words, case);
    no_secret(out, API_KEY, case);
}

#[test]
fn abort_answered_with_a_jsonrpc_auth_error_exits_3() {
    let (out, heads) = abort(
        200,
        &[("content-type", "application/json")],
        br#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized: invalid API key"}}"#,
    );
    abort_fails(
        "JSON-RPC auth 200",
        &out,
        3,
        &["abort c1", "HTTP 200", "Unauthorized: invalid API key"],
    );
    assert!(heads.lock().unwrap()[0].starts_with("POST /api/v1/public/acme/agents/3/chat/abort "));
}

#[test]
fn abort_answered_with_error_objects_takes_their_meaning() {
    let (out, _) = abort(
        200,
        &[("content-type", "application/json")],
        br#"{"error":"Thread not found"}"#,
    );
    abort_fails("error object, not found", &out, 4, &["Thread not found"]);
    let (out, _) = abort(
        200,
        &[("content-type", "application/json")],
        br#"{"jsonrpc":"2.0","error":{"code":403,"message":"Not your thread"}}"#,
    );
    abort_fails("JSON-RPC 403", &out, 3, &["Not your thread"]);
    let (out, _) = abort(
        200,
        &[("content-type", "application/json")],
        br#"{"error":{"message":"Stream registry unavailable"}}"#,
    );
    abort_fails(
        "error object, other",
        &out,
        1,
        &["Stream registry unavailable"],
    );
}

#[test]
fn abort_answered_with_an_html_page_exits_1() {
    let (out, _) = abort(
        200,
        &[("content-type", "text/html")],
        b"<html><head><title>Sign in to Acme SSO</title></head><body>Please sign in</body></html>",
    );
    abort_fails("HTML 200", &out, 1, &["text/html", "Sign in to Acme SSO"]);
}

#[test]
fn abort_answered_with_any_other_body_exits_1_saying_what_came_back() {
    // The same page labelled as plain text, and a JSON that is no error and no empty answer.
    let (out, _) = abort(
        200,
        &[("content-type", "text/plain; charset=utf-8")],
        b"<html><head><title>Sign in to Acme SSO</title></head><body>Please sign in</body></html>",
    );
    abort_fails(
        "HTML as text/plain 200",
        &out,
        1,
        &["text/plain", "Sign in to Acme SSO"],
    );
    let (out, _) = abort(202, &[], b"queued\n");
    abort_fails(
        "202 text",
        &out,
        1,
        &["HTTP 202", "no Content-Type", "queued"],
    );
}

#[test]
fn abort_succeeds_on_204_an_empty_2xx_and_a_2xx_object_that_is_no_error() {
    for (case, status, body) in [
        ("204", 204u16, &b""[..]),
        ("200 empty", 200, b""),
        ("200 whitespace", 200, b" \r\n\n"),
        // A JSON object that is no error document: a server saying it did, in words.
        ("200 ok object", 200, br#"{"ok":true}"#),
        ("202 status object", 202, br#"{"status":"aborted"}"#),
    ] {
        let (out, _) = abort(status, &[("content-type", "application/json")], body);
        expect_status(&out, 0, case);
        let (stdout, stderr) = outs(&out);
        assert_eq!(stdout, "", "{case}");
        assert_eq!(stderr, "aborted c1\n", "{case}");
    }
}
