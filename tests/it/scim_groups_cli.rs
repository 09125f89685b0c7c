//! `analyst scim groups list|get|add-member|remove-member`: against the emulator seeded with a
//! `serve --config` document, and against scripted servers for the exact PATCH sent and for
//! answers that are not a Group.

use crate::common;

use analyst::emulator::server::ScimSeed;
use common::scim::{Answer, Emu, Server, scim_run};
use serde_json::{Value, json};

const DOC: &str = "\
users:
  - {id: u-ana, userName: ana@corp.example}
  - {id: u-bo, userName: bo@corp.example}
  - {id: u-cy, userName: cy@corp.example}
groups:
  - {id: g-team, displayName: Team, members: [u-ana]}
  - {id: g-all, displayName: Everyone, members: [u-ana, u-bo, u-cy]}
";

fn emu() -> Emu {
    Emu::start(ScimSeed::from_document(DOC).unwrap())
}

fn members(emu: &Emu, id: &str) -> Vec<String> {
    let g = emu.get(&format!("/Groups/{id}"));
    let mut ids: Vec<String> = g["members"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|m| m["value"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

#[test]
fn list_and_get_groups() {
    let emu = emu();
    let (code, out, err) = emu.run(&["groups", "list", "--all", "-o", "ndjson"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["displayName"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(names, ["Team", "Everyone"]);
    let (code, out, err) = emu.run(&[
        "groups",
        "list",
        "--filter",
        r#"displayName eq "everyone""#,
        "-o",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "id,displayName,externalId,members\ng-all,Everyone,,3\n"
    );
    let (code, out, err) = emu.run(&["groups", "list", "-o", "table"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("DISPLAYNAME") && out.contains("Everyone"),
        "{out}"
    );
    // By id and by name: the Group with its members (value, display).
    let (code, out, err) = emu.run(&["groups", "get", "g-team", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let g: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(g["members"][0]["value"], "u-ana");
    assert_eq!(g["members"][0]["display"], "ana@corp.example");
    let (code, out, err) = emu.run(&["groups", "get", "--group-name", "TEAM", "-o", "table"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("MEMBER") && out.contains("ana@corp.example"),
        "{out}"
    );
    let (code, _, err) = emu.run(&["groups", "get", "no-such-group"]);
    assert_eq!(code, 4, "{err}");
    let (code, _, err) = emu.run(&["groups", "get", "--group-name", "Nobody"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("no group has displayName \"Nobody\""), "{err}");
}

#[test]
fn membership_round_trip() {
    let emu = emu();
    // Add by id and by userName: one PATCH; ana, already in, is a success said on stderr.
    let (code, out, err) = emu.run(&[
        "groups",
        "add-member",
        "g-team",
        "u-bo",
        "u-ana",
        "--user-name",
        "cy@corp.example",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(members(&emu, "g-team"), ["u-ana", "u-bo", "u-cy"]);
    let results: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        results,
        json!([
            {"id": "u-bo", "result": "added"},
            {"id": "u-ana", "result": "already a member"},
            {"id": "u-cy", "userName": "cy@corp.example", "result": "added"},
        ])
    );
    assert!(
        err.contains("u-ana is already a member of group \"Team\""),
        "{err}"
    );
    // Remove by group name; once out, out again is a success said on stderr.
    let (code, _, err) = emu.run(&[
        "groups",
        "remove-member",
        "--group-name",
        "Team",
        "u-bo",
        "u-cy",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(members(&emu, "g-team"), ["u-ana"]);
    let (code, out, err) = emu.run(&["groups", "remove-member", "g-team", "u-bo", "-o", "ndjson"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "{\"id\":\"u-bo\",\"result\":\"not a member\"}\n");
    assert!(err.contains("is not a member of group \"Team\""), "{err}");
    // A userName that matches no one: that user fails (4 alone, 1 beside others).
    let (code, _, err) = emu.run(&[
        "groups",
        "add-member",
        "g-team",
        "--user-name",
        "nobody@corp.example",
    ]);
    assert_eq!(code, 4, "{err}");
    let (code, _, err) = emu.run(&[
        "groups",
        "add-member",
        "g-team",
        "u-bo",
        "--user-name",
        "nobody@corp.example",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(members(&emu, "g-team"), ["u-ana", "u-bo"]);
    // A user the server does not know: the PATCH is refused as a whole.
    let (code, _, err) = emu.run(&["groups", "add-member", "g-team", "u-ghost"]);
    assert_ne!(code, 0, "{err}");
    assert_eq!(members(&emu, "g-team"), ["u-ana", "u-bo"]);
    // An unknown group: 4.
    let (code, _, err) = emu.run(&["groups", "add-member", "g-none", "u-bo"]);
    assert_eq!(code, 4, "{err}");
}

fn group(members: &[&str]) -> Answer {
    let m: Vec<Value> = members.iter().map(|id| json!({"value": id})).collect();
    Answer::new(
        200,
        json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "id": "g1",
               "displayName": "Team", "members": m})
        .to_string(),
    )
}

#[test]
fn the_patch_sent_and_answers_judged() {
    // GET answers the group with a1 in it; PATCH answers 204.
    let server = Server::start(|seen, _| match seen.method.as_str() {
        "PATCH" => Answer::new(204, ""),
        _ => group(&["a1"]),
    });
    let root = server.scim_url();
    let (code, _, err) = scim_run(
        &root,
        "tok",
        &["groups", "add-member", "g1", "b\"2", "a1", "c3"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = scim_run(&root, "tok", &["groups", "remove-member", "g1", "a1", "c3"]);
    assert_eq!(code, 0, "{err}");
    let patches: Vec<Value> = server
        .requests()
        .into_iter()
        .filter(|s| s.method == "PATCH")
        .map(|s| {
            assert_eq!(s.target, "/api/scim/v2/Groups/g1");
            s.json()
        })
        .collect();
    let op = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
    assert_eq!(
        patches,
        [
            json!({"schemas": [op], "Operations": [
                {"op": "add", "path": "members", "value": [{"value": "b\"2"}, {"value": "c3"}]}]}),
            json!({"schemas": [op], "Operations": [
                {"op": "remove", "path": "members[value eq \"a1\"]"}]}),
        ]
    );
    // --dry-run sends nothing.
    let before = server.requests().len();
    let (code, out, err) = scim_run(
        &root,
        "tok",
        &[
            "groups",
            "add-member",
            "--group-name",
            "Team",
            "--user-name",
            "x@y",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("PATCH") && out.contains("<id of Team>"),
        "{out}"
    );
    assert_eq!(server.requests().len(), before);
}

#[test]
fn a_patch_answered_with_html_or_a_group_unchanged_fails() {
    let html = Server::start(|seen, _| match seen.method.as_str() {
        "PATCH" => Answer::new(200, "<html>login</html>").header("content-type", "text/html"),
        _ => group(&[]),
    });
    let (code, _, err) = scim_run(
        &html.scim_url(),
        "tok",
        &["groups", "add-member", "g1", "u1"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("not a SCIM Group") && err.contains("login"),
        "{err}"
    );
    // A 200 whose Group still lacks the user: the change did not happen.
    let ignored = Server::start(|_, _| group(&[]));
    let (code, _, err) = scim_run(
        &ignored.scim_url(),
        "tok",
        &["groups", "add-member", "g1", "u1"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("does not list user u1"), "{err}");
}
