//! `analyst scim users list|get` and `scim patch --filter`: against the emulator (paging over
//! 2,500 users, filters, get, patch by filter) and against hostile scripted servers (HTML in a
//! 200, pages that never end, ids repeated across pages, paging ignored, throttling).

use crate::common;

use analyst::emulator::server::ScimSeed;
use common::scim::{Answer, Emu, Server, scim_run};
use serde_json::{Value, json};
use std::collections::HashSet;

fn emu(synthetic: usize) -> Emu {
    Emu::start(ScimSeed {
        synthetic_users: synthetic,
        ..ScimSeed::default()
    })
}

fn lines(out: &str) -> Vec<&str> {
    out.lines().collect()
}

fn total(emu: &Emu, filter: Option<&str>) -> u64 {
    let path = match filter {
        Some(f) => format!(
            "/Users?count=0&filter={}",
            url::form_urlencoded::byte_serialize(f.as_bytes()).collect::<String>()
        ),
        None => "/Users?count=0".to_owned(),
    };
    emu.get(&path)["totalResults"].as_u64().unwrap()
}

#[test]
fn all_pages_are_read_each_user_once() {
    let emu = emu(2500);
    let expected = total(&emu, None);
    assert_eq!(expected, 2503, "3 sample users and 2,500 synthetic ones");
    // Pages of 100: 26 of them, each id once.
    let (code, out, err) = emu.run(&["users", "list", "--all", "--count", "100", "--ids"]);
    assert_eq!(code, 0, "{err}");
    let ids = lines(&out);
    assert_eq!(ids.len() as u64, expected);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len() as u64, expected);
    assert!(!err.contains("warning"), "{err}");
    // The default page size of --all, ndjson by default in a pipe: each User as the server sent it.
    let (code, out, err) = emu.run(&["users", "list", "--all"]);
    assert_eq!(code, 0, "{err}");
    let users: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(users.len() as u64, expected);
    assert_eq!(users[0]["userName"], "ana@example.com");
    assert_eq!(users[2502]["userName"], "user002500@example.com");
}

#[test]
fn one_page_filters_and_formats() {
    let emu = emu(30);
    // One page without --all: what --count and --start-index ask for.
    let (code, out, err) = emu.run(&[
        "users",
        "list",
        "--count",
        "5",
        "--start-index",
        "4",
        "-o",
        "ndjson",
    ]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["userName"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(names[0], "user000001@example.com");
    assert_eq!(names.len(), 5);
    // A filter, every page, as one JSON array.
    let filter = r#"userName sw "user00001""#;
    let (code, out, err) = emu.run(&[
        "users", "list", "--filter", filter, "--all", "--count", "3", "-o", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let all: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        all.as_array().unwrap().len() as u64,
        total(&emu, Some(filter))
    );
    assert_eq!(all.as_array().unwrap().len(), 10);
    // csv: the columns of CLI.md, one row per user.
    let (code, out, err) = emu.run(&["users", "list", "--filter", filter, "--all", "-o", "csv"]);
    assert_eq!(code, 0, "{err}");
    let rows = lines(&out);
    assert_eq!(
        rows[0],
        "id,userName,active,externalId,givenName,familyName,email"
    );
    assert_eq!(rows.len(), 11);
    assert!(
        rows[1].contains(",user000010@example.com,false,,User,000010,user000010@example.com"),
        "{out}"
    );
    // yaml: one sequence; --attributes is sent and honoured.
    let (code, out, err) = emu.run(&[
        "users",
        "list",
        "--filter",
        filter,
        "--attributes",
        "userName",
        "-o",
        "yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    let all: Value = serde_norway::from_str(&out).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 10);
    assert!(all[0].get("emails").is_none(), "{out}");
    // No match: an empty list and exit 0.
    let nobody = r#"userName eq "nobody@example.com""#;
    let (code, out, err) = emu.run(&["users", "list", "--filter", nobody, "--all"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let (code, out, _) = emu.run(&["users", "list", "--filter", nobody, "-o", "json"]);
    assert_eq!((code, out.as_str()), (0, "[]\n"));
    // A filter the server refuses: 400 -> 2, its words shown.
    let (code, _, err) = emu.run(&["users", "list", "--filter", "userName zz \"x\""]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("HTTP 400"), "{err}");
}

#[test]
fn get_by_id_and_user_name() {
    let emu = emu(0);
    let ana = &emu.running.users[0];
    let (code, out, err) = emu.run(&["users", "get", &ana.id, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let user: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(user["userName"], "ana@example.com");
    // Several: one array, and a missing one said on stderr with exit 1; the others printed.
    let (code, out, err) = emu.run(&[
        "users",
        "get",
        &ana.id,
        "no-such-id",
        "--user-name",
        "BO@example.com",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let users: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = users
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["userName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ana@example.com", "bo@example.com"]);
    assert!(
        err.contains("no-such-id") && err.contains("HTTP 404"),
        "{err}"
    );
    // One, not found: 4.
    let (code, out, err) = emu.run(&["users", "get", "no-such-id"]);
    assert_eq!((code, out.as_str()), (4, ""), "{err}");
    let (code, _, err) = emu.run(&["users", "get", "--user-name", "nobody@example.com"]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("no user has userName \"nobody@example.com\""),
        "{err}"
    );
}

#[test]
fn patch_by_filter_with_yes_and_dry_run() {
    let emu = emu(30);
    let filter = r#"userName sw "user00002" and active eq true"#;
    let before = total(&emu, Some(filter));
    assert_eq!(before, 9, "user000020 is one of the inactive tenth");
    // --dry-run lists the matches and the requests; nothing is patched.
    let (code, out, err) = emu.run(&[
        "patch",
        "--filter",
        filter,
        "--deactivate",
        "--dry-run",
        "-o",
        "ndjson",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("9 users match"), "{err}");
    assert!(err.contains("user000021@example.com"), "{err}");
    let requests: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(requests.len(), 9);
    assert!(requests.iter().all(|r| r["method"] == "PATCH"), "{out}");
    assert_eq!(total(&emu, Some(filter)), 9);
    // Without a terminal and without --yes: a usage error.
    let (code, _, err) = emu.run(&["patch", "--filter", filter, "--deactivate"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--yes"), "{err}");
    assert_eq!(total(&emu, Some(filter)), 9);
    // --yes: every match patched.
    let (code, out, err) = emu.run(&[
        "patch",
        "--filter",
        filter,
        "--deactivate",
        "--yes",
        "-o",
        "ndjson",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 9);
    assert!(err.contains("patched 9 of 9 users"), "{err}");
    assert_eq!(total(&emu, Some(filter)), 0);
    assert_eq!(
        total(&emu, Some(r#"userName sw "user00002" and active eq false"#)),
        10
    );
    // Nothing left to match: nothing to do, exit 0.
    let (code, out, err) = emu.run(&["patch", "--filter", filter, "--deactivate", "--yes"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("no user matches"), "{err}");
}

/// On a terminal, `patch --filter` shows the matches and asks; only "y" patches them.
#[test]
fn patch_by_filter_asks_on_a_terminal() {
    let emu = emu(30);
    let filter = r#"userName sw "user00002" and active eq true"#;
    let ask = |answer: &str| {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = common::isolation::isolated(home.path());
        cmd.args(["scim", "patch", "--filter", filter, "--deactivate"])
            .env("ANALYST_SCIM_URL", &emu.running.scim_url)
            .env("ANALYST_SCIM_TOKEN", &emu.running.scim_token);
        let mut pty = common::pty::Pty::spawn(cmd);
        pty.expect("9 users match");
        pty.expect("user000021@example.com, user000022@example.com");
        pty.expect("and 4 more");
        pty.expect("Patch 9 users? [y/N]");
        pty.send(&format!("{answer}\r"));
        let expect = if answer == "y" {
            "patched 9 of 9 users"
        } else {
            "nothing patched"
        };
        pty.expect(expect);
        pty.wait()
    };
    assert_eq!(ask("n"), 0);
    assert_eq!(total(&emu, Some(filter)), 9, "no means no");
    assert_eq!(ask("y"), 0);
    assert_eq!(total(&emu, Some(filter)), 0);
}

// ----- hostile servers -----

/// A query parameter of a request target.
fn param(target: &str, name: &str) -> Option<u64> {
    let query = target.split_once('?')?.1;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.parse().ok())
}

fn user(id: &str) -> Value {
    json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "id": id,
           "userName": format!("{id}@example.com"), "active": true})
}

fn list(total: u64, ids: &[&str]) -> Answer {
    let resources: Vec<Value> = ids.iter().map(|id| user(id)).collect();
    Answer::new(
        200,
        json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
               "totalResults": total, "itemsPerPage": ids.len(), "Resources": resources})
        .to_string(),
    )
}

/// The token of the scripted servers' runs (8 bytes or more: shorter values are not masked).
const TOKEN: &str = "tok-5f2a9c31";

fn run(server: &Server, args: &[&str]) -> (i32, String, String) {
    scim_run(&server.scim_url(), TOKEN, args)
}

#[test]
fn html_in_a_200_is_a_failure_that_shows_it() {
    let server = Server::start(|_, _| {
        Answer::new(
            200,
            format!("<html><body>Sign in (token {TOKEN})</body></html>"),
        )
        .header("content-type", "text/html")
    });
    let (code, out, err) = run(&server, &["users", "list", "--all"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("not a SCIM ListResponse"), "{err}");
    assert!(
        err.contains("text/html") && err.contains("Sign in"),
        "{err}"
    );
    assert!(!err.contains(TOKEN), "the token is never printed: {err}");
    assert!(err.contains("(token ***)"), "{err}");
    let (code, _, err) = run(&server, &["users", "get", "42"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a SCIM User"), "{err}");
    let (code, _, err) = run(&server, &["groups", "get", "g1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a SCIM Group"), "{err}");
}

#[test]
fn pages_that_never_end_are_stopped_at_1000() {
    // Always one new user, and always more to come.
    let server = Server::start(|seen, _| {
        let start = param(&seen.target, "startIndex").unwrap_or(1);
        list(1_000_000_000, &[&format!("u{start}")])
    });
    let (code, out, err) = run(&server, &["users", "list", "--all", "--ids"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("stopped after 1000 pages"), "{err}");
    assert_eq!(out.lines().count(), 1000, "what was read is printed");
    assert_eq!(server.requests().len(), 1000);
}

#[test]
fn ids_repeated_across_pages_are_printed_once_and_said_once() {
    // Pages of 3 that overlap, as when users are added while a client pages.
    let server = Server::start(|seen, _| match param(&seen.target, "startIndex") {
        Some(1) => list(8, &["a", "b", "c"]),
        Some(4) => list(8, &["b", "c", "d"]),
        Some(7) => list(8, &["a", "e"]),
        _ => list(8, &[]),
    });
    let (code, out, err) = run(
        &server,
        &["users", "list", "--all", "--count", "3", "--ids"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&out), ["a", "b", "c", "d", "e"]);
    assert_eq!(err.matches("3 users came twice").count(), 1, "{err}");
    let targets: Vec<String> = server.requests().into_iter().map(|s| s.target).collect();
    assert_eq!(
        targets,
        [
            "/api/scim/v2/Users?startIndex=1&count=3",
            "/api/scim/v2/Users?startIndex=4&count=3",
            "/api/scim/v2/Users?startIndex=7&count=3",
        ]
    );
}

#[test]
fn a_server_that_ignores_paging_is_read_once() {
    let server = Server::start(|_, _| list(5, &["a", "b", "c", "d", "e"]));
    let (code, out, err) = run(
        &server,
        &["users", "list", "--all", "--count", "2", "--ids"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&out), ["a", "b", "c", "d", "e"]);
    assert_eq!(server.requests().len(), 1);
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn a_server_that_repeats_its_first_page_is_stopped() {
    // It honours count but not startIndex: the same two users, page after page.
    let server = Server::start(|_, _| list(6, &["a", "b"]));
    let (code, out, err) = run(
        &server,
        &["users", "list", "--all", "--count", "2", "--ids"],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(lines(&out), ["a", "b"]);
    assert!(
        err.contains("ignores paging, so only 2 of its 6 users were read"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn throttling_is_retried_and_errors_keep_their_status() {
    let server = Server::start(|seen, n| match (seen.target.contains("/Groups"), n) {
        (false, 0) => Answer::new(429, "").header("retry-after", "0"),
        (false, _) => list(1, &["a"]),
        (true, _) => Answer::new(
            403,
            json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"],
                   "status": "403", "detail": "not for you"})
            .to_string(),
        ),
    });
    let (code, out, err) = run(&server, &["users", "list", "--all", "--ids"]);
    assert_eq!((code, out.as_str()), (0, "a\n"), "{err}");
    assert_eq!(server.requests().len(), 2);
    let (code, _, err) = run(&server, &["groups", "list"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("HTTP 403") && err.contains("not for you"),
        "{err}"
    );
}

#[test]
fn patch_by_filter_without_a_terminal_needs_yes_and_sends_nothing() {
    let server = Server::start(|_, _| list(1, &["a"]));
    let (code, out, err) = run(
        &server,
        &["patch", "--filter", "active eq true", "--deactivate"],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("--yes"), "{err}");
    assert!(server.requests().is_empty(), "nothing sent");
    // --filter takes no ids beside it.
    let (code, _, err) = run(
        &server,
        &["patch", "a", "--filter", "active eq true", "--deactivate"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(server.requests().is_empty());
}
