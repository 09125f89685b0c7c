//! SCIM Groups, filters and paging of the emulator over HTTP (issue 36 item 5): groups list,
//! get and membership PATCH round trips in the forms `analyst scim groups` sends, users'
//! `groups`, every filter operator with and/or/not and brackets, paging with a stable
//! `totalResults`, and the `serve --config` document's `users:` and `groups:`.

use crate::common;

use analyst::emulator::server::{Dialect, ScimSeed};
use common::serve::*;
use serde_json::{Value, json};
use std::collections::HashSet;

const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

fn patch(ops: Value) -> Value {
    json!({"schemas": [PATCH_OP], "Operations": ops})
}

fn group_id(srv: &Srv, name: &str) -> String {
    srv.running
        .groups
        .iter()
        .find(|g| g.display_name == name)
        .map(|g| g.id.clone())
        .unwrap_or_else(|| panic!("no group {name}"))
}

/// A filter as a query string value.
fn q(filter: &str) -> String {
    url::form_urlencoded::byte_serialize(filter.as_bytes()).collect()
}

/// The userNames a Users filter finds (one page of up to 1,000).
async fn user_names(srv: &Srv, filter: &str) -> Vec<String> {
    let resp = srv
        .scim(
            "GET",
            &format!("/Users?count=1000&filter={}", q(filter)),
            None,
        )
        .await;
    assert_eq!(resp.status(), 200, "{filter}");
    let body = body_json(resp).await;
    let names: Vec<String> = body["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["userName"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(body["totalResults"], names.len(), "{filter}");
    names
}

async fn status_and_body(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    (status, body_json(resp).await)
}

fn member_ids(group: &Value) -> Vec<String> {
    group["members"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|m| m["value"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn sample_groups_are_listed_read_and_shown_on_users() {
    let srv = serve(&[]).await;
    assert_eq!(srv.running.groups.len(), 3);
    let list = body_json(srv.scim("GET", "/Groups", None).await).await;
    assert_eq!(
        list["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:ListResponse"
    );
    assert_eq!(list["totalResults"], 3);
    let names: Vec<&str> = list["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Analysts", "Admins", "Alumni"]);

    let analysts = group_id(&srv, "Analysts");
    let resp = srv.scim("GET", &format!("/Groups/{analysts}"), None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/scim+json");
    assert_eq!(resp.headers()["etag"], "W/\"1\"");
    let g = body_json(resp).await;
    assert_eq!(
        g["schemas"],
        json!(["urn:ietf:params:scim:schemas:core:2.0:Group"])
    );
    assert_eq!(g["meta"]["resourceType"], "Group");
    assert_eq!(g["meta"]["version"], "W/\"1\"");
    assert_eq!(g["meta"]["lastModified"], "2026-11-15T12:00:00.000Z");
    assert!(
        g["meta"]["location"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/Groups/{analysts}"))
    );
    let ana = srv.user_id("ana@example.com");
    assert_eq!(
        g["members"][0],
        json!({
            "value": ana, "display": "ana@example.com", "type": "User",
            "$ref": format!("{}/Users/{ana}", srv.running.scim_url),
        })
    );
    assert_eq!(member_ids(&g).len(), 2);

    // A user's groups are read-only and follow membership.
    let user = body_json(srv.scim("GET", &format!("/Users/{ana}"), None).await).await;
    let groups: Vec<&str> = user["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["display"].as_str().unwrap())
        .collect();
    assert_eq!(groups, ["Analysts", "Admins"]);
    assert_eq!(user["groups"][0]["value"], analysts.as_str());
    assert_eq!(user["groups"][0]["type"], "direct");
    let found = user_names(&srv, &format!("groups.value eq \"{analysts}\"")).await;
    assert_eq!(found, ["ana@example.com", "bo@example.com"]);

    // Unknown group: a SCIM 404.
    let (status, err) = status_and_body(srv.scim("GET", "/Groups/nope", None).await).await;
    assert_eq!((status, err["status"].as_str()), (404, Some("404")));
}

/// The PatchOp forms of CLI.md: add to `members`, remove at `members[value eq "ID"]`; a user
/// already in (or out) changes nothing and keeps the version.
#[tokio::test]
async fn membership_patch_round_trips_with_etags() {
    let srv = serve(&[]).await;
    let admins = group_id(&srv, "Admins");
    let path = format!("/Groups/{admins}");
    let bo = srv.user_id("bo@example.com");
    let cy = srv.user_id("cy@example.com");
    let add =
        patch(json!([{"op": "add", "path": "members", "value": [{"value": bo}, {"value": cy}]}]));
    let resp = srv.scim("PATCH", &path, Some(add.clone())).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["etag"], "W/\"2\"");
    let g = body_json(resp).await;
    assert_eq!(member_ids(&g).len(), 3);
    assert!(member_ids(&g).contains(&bo));
    // Again: already members, nothing changes, not even the version.
    let again = srv.scim("PATCH", &path, Some(add)).await;
    assert_eq!(again.headers()["etag"], "W/\"2\"");
    assert_eq!(member_ids(&body_json(again).await).len(), 3);
    let bo_user = body_json(srv.scim("GET", &format!("/Users/{bo}"), None).await).await;
    assert!(
        bo_user["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["value"] == admins.as_str())
    );

    let remove = patch(json!([{"op": "remove", "path": format!("members[value eq \"{bo}\"]")}]));
    let resp = srv.scim("PATCH", &path, Some(remove.clone())).await;
    assert_eq!(resp.headers()["etag"], "W/\"3\"");
    let g = body_json(resp).await;
    assert!(!member_ids(&g).contains(&bo));
    let out_again = srv.scim("PATCH", &path, Some(remove)).await;
    assert_eq!(
        out_again.status(),
        200,
        "removing a non-member is a success"
    );
    assert_eq!(out_again.headers()["etag"], "W/\"3\"");
    let bo_user = body_json(srv.scim("GET", &format!("/Users/{bo}"), None).await).await;
    let bo_groups = bo_user["groups"].as_array().unwrap();
    assert_eq!(bo_groups.len(), 1, "Analysts only: {bo_user}");
    assert_eq!(bo_groups[0]["display"], "Analysts");

    // If-Match: a stale version is 412, the current one writes.
    let rename = patch(json!([{"op": "replace", "path": "displayName", "value": "Owners"}]));
    let stale = srv
        .http
        .patch(format!("{}{path}", srv.running.scim_url))
        .header(
            "Authorization",
            format!("Bearer {}", srv.running.scim_token),
        )
        .header("If-Match", "W/\"1\"")
        .body(rename.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 412);
    let fresh = srv
        .http
        .patch(format!("{}{path}", srv.running.scim_url))
        .header(
            "Authorization",
            format!("Bearer {}", srv.running.scim_token),
        )
        .header("If-Match", "W/\"3\"")
        .body(rename.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), 200);
    assert_eq!(body_json(fresh).await["displayName"], "Owners");

    // Path-less replace, then remove `members` to empty the group.
    let pathless =
        patch(json!([{"op": "replace", "value": {"displayName": "Admins", "externalId": "adm"}}]));
    let g = body_json(srv.scim("PATCH", &path, Some(pathless)).await).await;
    assert_eq!(
        (g["displayName"].as_str(), g["externalId"].as_str()),
        (Some("Admins"), Some("adm"))
    );
    let clear = patch(json!([{"op": "remove", "path": "members"}]));
    let g = body_json(srv.scim("PATCH", &path, Some(clear)).await).await;
    assert!(g.get("members").is_none(), "{g}");
    let ana = srv.user_id("ana@example.com");
    let ana_user = body_json(srv.scim("GET", &format!("/Users/{ana}"), None).await).await;
    assert_eq!(
        ana_user["groups"].as_array().unwrap().len(),
        1,
        "only Analysts left"
    );

    // Refusals: a member who is nobody, a read-only or unknown path, a required attribute.
    for (ops, status, scim_type) in [
        (
            json!([{"op": "add", "path": "members", "value": [{"value": "nobody"}]}]),
            400,
            "invalidValue",
        ),
        (
            json!([{"op": "replace", "path": "id", "value": "x"}]),
            400,
            "mutability",
        ),
        (
            json!([{"op": "remove", "path": "displayName"}]),
            400,
            "mutability",
        ),
        (
            json!([{"op": "add", "path": "owners", "value": "x"}]),
            400,
            "invalidPath",
        ),
        (
            json!([{"op": "remove", "path": "members[value eq"}]),
            400,
            "invalidPath",
        ),
        (
            json!([{"op": "replace", "path": "displayName", "value": "Analysts"}]),
            409,
            "uniqueness",
        ),
    ] {
        let (got, err) =
            status_and_body(srv.scim("PATCH", &path, Some(patch(ops.clone()))).await).await;
        assert_eq!(
            (got, err["scimType"].as_str()),
            (status, Some(scim_type)),
            "{ops}: {err}"
        );
    }
    let unknown = srv
        .scim(
            "PATCH",
            "/Groups/nope",
            Some(patch(json!([{"op": "remove", "path": "members"}]))),
        )
        .await;
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn groups_are_created_replaced_and_deleted() {
    let srv = serve(&[]).await;
    let ana = srv.user_id("ana@example.com");
    let analysts = group_id(&srv, "Analysts");
    let body = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
        "displayName": "Ops", "externalId": "ops-1",
        "members": [{"value": ana}, {"value": analysts}],
    });
    let resp = srv.scim("POST", "/Groups", Some(body.clone())).await;
    assert_eq!(resp.status(), 201);
    let location = resp.headers()["location"].to_str().unwrap().to_owned();
    let ops = body_json(resp).await;
    let id = ops["id"].as_str().unwrap().to_owned();
    assert!(location.ends_with(&format!("/Groups/{id}")));
    assert_eq!(ops["members"][1]["type"], "Group");
    assert_eq!(ops["members"][1]["display"], "Analysts");
    let (status, err) = status_and_body(srv.scim("POST", "/Groups", Some(body)).await).await;
    assert_eq!(
        (status, err["scimType"].as_str()),
        (409, Some("uniqueness"))
    );
    let nameless = srv
        .scim("POST", "/Groups", Some(json!({"members": []})))
        .await;
    assert_eq!(nameless.status(), 400);

    let put = json!({"displayName": "Ops team", "members": [{"value": ana}]});
    let replaced = body_json(srv.scim("PUT", &format!("/Groups/{id}"), Some(put)).await).await;
    assert_eq!(replaced["displayName"], "Ops team");
    assert_eq!(member_ids(&replaced), std::slice::from_ref(&ana));
    assert!(
        replaced.get("externalId").is_none(),
        "PUT replaces everything"
    );
    assert_eq!(replaced["meta"]["version"], "W/\"2\"");

    // Deleting a user takes it out of every group.
    let cy = srv.user_id("cy@example.com");
    let alumni = group_id(&srv, "Alumni");
    assert_eq!(
        srv.scim("DELETE", &format!("/Users/{cy}"), None)
            .await
            .status(),
        204
    );
    let g = body_json(srv.scim("GET", &format!("/Groups/{alumni}"), None).await).await;
    assert!(g.get("members").is_none());
    assert_eq!(g["meta"]["version"], "W/\"2\"");

    assert_eq!(
        srv.scim("DELETE", &format!("/Groups/{id}"), None)
            .await
            .status(),
        204
    );
    assert_eq!(
        srv.scim("GET", &format!("/Groups/{id}"), None)
            .await
            .status(),
        404
    );
    let ana_user = body_json(srv.scim("GET", &format!("/Users/{ana}"), None).await).await;
    assert_eq!(ana_user["groups"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn every_filter_operator_and_logic() {
    let srv = serve_with(|o| {
        o.scim = ScimSeed {
            synthetic_users: 30,
            ..ScimSeed::default()
        }
    })
    .await;
    let n = |v: Vec<String>| v.len();
    // 3 sample users + 30 synthetic (every tenth inactive).
    assert_eq!(n(user_names(&srv, "userName pr").await), 33);
    assert_eq!(
        user_names(&srv, r#"userName eq "BO@example.com""#).await,
        ["bo@example.com"]
    );
    assert_eq!(
        n(user_names(&srv, r#"userName ne "bo@example.com""#).await),
        32
    );
    assert_eq!(n(user_names(&srv, r#"userName co "r00000""#).await), 9);
    assert_eq!(n(user_names(&srv, r#"userName sw "user00001""#).await), 10);
    assert_eq!(
        n(user_names(&srv, r#"userName ew "5@example.com""#).await),
        3
    );
    assert_eq!(
        n(user_names(&srv, r#"name.familyName gt "000025""#).await),
        5 + 3,
        "Lyst, Ard, Gone sort after digits"
    );
    assert_eq!(
        n(user_names(&srv, r#"name.familyName ge "000025""#).await),
        6 + 3
    );
    assert_eq!(
        n(user_names(&srv, r#"name.familyName lt "000003""#).await),
        2
    );
    assert_eq!(
        n(user_names(&srv, r#"name.familyName le "000003""#).await),
        3
    );
    assert_eq!(n(user_names(&srv, "active eq false").await), 4);
    assert_eq!(n(user_names(&srv, "nickName pr").await), 0);
    assert_eq!(
        user_names(&srv, r#"active eq false and not (userName sw "user")"#).await,
        ["cy@example.com"]
    );
    assert_eq!(
        n(user_names(
            &srv,
            r#"userName eq "ana@example.com" or userName eq "bo@example.com" and active eq false"#
        )
        .await),
        1,
        "and binds tighter than or"
    );
    assert_eq!(
        n(user_names(
            &srv,
            r#"(userName eq "ana@example.com" or userName eq "bo@example.com") and active eq true"#
        )
        .await),
        2
    );
    assert_eq!(
        user_names(&srv, r#"emails[type eq "work" and value co "cy@"]"#).await,
        ["cy@example.com"]
    );
    assert_eq!(
        n(user_names(&srv, r#"meta.lastModified ge "2026-11-15T12:00:00Z""#).await),
        33
    );
    assert_eq!(
        n(user_names(&srv, r#"meta.lastModified gt "2026-11-15T13:00:00+02:00""#).await),
        33
    );
    assert_eq!(
        n(user_names(
            &srv,
            r#"urn:ietf:params:scim:schemas:core:2.0:User:userName sw "ana""#
        )
        .await),
        1
    );

    for bad in [
        "userName zz \"x\"",
        "userName eq",
        "(userName pr",
        "userName pr or",
        "active gt true",
        "emails[type eq \"work\"",
    ] {
        let resp = srv
            .scim("GET", &format!("/Users?filter={}", q(bad)), None)
            .await;
        let (status, err) = status_and_body(resp).await;
        assert_eq!(
            (status, err["scimType"].as_str()),
            (400, Some("invalidFilter")),
            "{bad}: {err}"
        );
        assert!(err["detail"].as_str().unwrap().contains("filter"), "{err}");
    }

    // Groups filter too, members included.
    let ana = srv.user_id("ana@example.com");
    let groups = |f: String| {
        let srv = &srv;
        async move {
            let body = body_json(
                srv.scim("GET", &format!("/Groups?filter={}", q(&f)), None)
                    .await,
            )
            .await;
            body["Resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["displayName"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        groups(format!("members[value eq \"{ana}\"]")).await,
        ["Analysts", "Admins"]
    );
    assert_eq!(groups("displayName eq \"admins\"".into()).await, ["Admins"]);
    assert_eq!(
        groups("displayName sw \"A\" and not (displayName co \"s\")".into()).await,
        ["Alumni"]
    );
    assert_eq!(groups("members pr".into()).await.len(), 3);
    let bad = srv
        .scim("GET", "/Groups?filter=displayName%20eq", None)
        .await;
    assert_eq!(status_and_body(bad).await.1["scimType"], "invalidFilter");
}

#[tokio::test]
async fn paging_walks_every_user_once_with_a_stable_total() {
    let srv = serve_with(|o| {
        o.scim = ScimSeed {
            synthetic_users: 247,
            ..ScimSeed::default()
        }
    })
    .await;
    let mut seen = HashSet::new();
    let mut start = 1;
    loop {
        let page = body_json(
            srv.scim("GET", &format!("/Users?startIndex={start}&count=100"), None)
                .await,
        )
        .await;
        assert_eq!(page["totalResults"], 250);
        assert_eq!(page["startIndex"], start);
        let items = page["Resources"].as_array().unwrap();
        assert_eq!(page["itemsPerPage"], items.len());
        if items.is_empty() {
            break;
        }
        for u in items {
            assert!(
                seen.insert(u["id"].as_str().unwrap().to_owned()),
                "a user twice"
            );
        }
        start += items.len();
    }
    assert_eq!(seen.len(), 250);

    // count=0: the total alone; startIndex below 1 counts as 1; past the end: empty.
    let zero = body_json(srv.scim("GET", "/Users?count=0", None).await).await;
    assert_eq!(
        (zero["totalResults"].as_u64(), zero["itemsPerPage"].as_u64()),
        (Some(250), Some(0))
    );
    assert_eq!(zero["Resources"], json!([]));
    let low = body_json(srv.scim("GET", "/Users?startIndex=-5&count=2", None).await).await;
    assert_eq!(
        (low["startIndex"].as_u64(), low["itemsPerPage"].as_u64()),
        (Some(1), Some(2))
    );
    let past = body_json(srv.scim("GET", "/Users?startIndex=1000", None).await).await;
    assert_eq!(
        (past["totalResults"].as_u64(), past["itemsPerPage"].as_u64()),
        (Some(250), Some(0))
    );
    // No count: the default page of 100; above maxResults (1,000): capped.
    let default = body_json(srv.scim("GET", "/Users", None).await).await;
    assert_eq!(default["itemsPerPage"], 100);

    // A filtered walk: totalResults stays, and a write between pages is seen at once.
    let f = q("active eq false");
    let first = body_json(
        srv.scim("GET", &format!("/Users?filter={f}&count=10"), None)
            .await,
    )
    .await;
    assert_eq!(first["totalResults"], 25, "24 synthetic and cy");
    let second = body_json(
        srv.scim(
            "GET",
            &format!("/Users?filter={f}&count=10&startIndex=11"),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(
        (
            second["totalResults"].as_u64(),
            second["itemsPerPage"].as_u64()
        ),
        (Some(25), Some(10))
    );
    let bo = srv.user_id("bo@example.com");
    let off = patch(json!([{"op": "replace", "path": "active", "value": false}]));
    assert_eq!(
        srv.scim("PATCH", &format!("/Users/{bo}"), Some(off))
            .await
            .status(),
        200
    );
    let after = body_json(
        srv.scim("GET", &format!("/Users?filter={f}&count=0"), None)
            .await,
    )
    .await;
    assert_eq!(after["totalResults"], 26);

    // Groups page the same way; attributes apply to lists and gets.
    let g = body_json(
        srv.scim(
            "GET",
            "/Groups?startIndex=2&count=1&attributes=displayName",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(
        (g["totalResults"].as_u64(), g["itemsPerPage"].as_u64()),
        (Some(3), Some(1))
    );
    let only = &g["Resources"][0];
    assert_eq!(only["displayName"], "Admins");
    assert!(only.get("members").is_none() && only.get("meta").is_none() && only["id"].is_string());
    let analysts = group_id(&srv, "Analysts");
    let lean = body_json(
        srv.scim(
            "GET",
            &format!("/Groups/{analysts}?excludedAttributes=members"),
            None,
        )
        .await,
    )
    .await;
    assert!(lean.get("members").is_none() && lean["displayName"] == "Analysts");
}

#[tokio::test]
async fn discovery_describes_groups() {
    let srv = serve(&[]).await;
    let rt = body_json(srv.scim("GET", "/ResourceTypes/Group", None).await).await;
    assert_eq!(rt["endpoint"], "/Groups");
    assert_eq!(rt["schema"], "urn:ietf:params:scim:schemas:core:2.0:Group");
    let schema = body_json(
        srv.scim(
            "GET",
            "/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group",
            None,
        )
        .await,
    )
    .await;
    let attrs: Vec<&str> = schema["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(attrs, ["displayName", "members"]);
    let spc = body_json(srv.scim("GET", "/ServiceProviderConfig", None).await).await;
    assert_eq!(
        spc["filter"],
        json!({"supported": true, "maxResults": 1000})
    );
}

#[tokio::test]
async fn legacy_dialect_sends_groups_as_it_sends_users() {
    let srv = serve_with(|o| o.dialect = Dialect::Legacy).await;
    let analysts = group_id(&srv, "Analysts");
    let g = body_json(srv.scim("GET", &format!("/Groups/{analysts}"), None).await).await;
    assert_eq!(g["meta"]["ResourceType"], "Group");
    assert!(g["meta"].get("resourceType").is_none());
    assert_eq!(g["members"][0]["type"], "User");
    let ana = srv.user_id("ana@example.com");
    let u = body_json(srv.scim("GET", &format!("/Users/{ana}"), None).await).await;
    assert_eq!(u["active"], "True");
    assert_eq!(u["groups"][0]["display"], "Analysts");
}

#[tokio::test]
async fn a_config_document_sets_users_and_groups() {
    let doc = "\
users:
  - {id: u-ana, userName: ana@corp.example, name: {givenName: Ana}}
  - {userName: bo@corp.example, active: false}
groups:
  - {id: g-team, displayName: Team, externalId: t1, members: [u-ana, BO@corp.example]}
  - {displayName: Everyone, members: [g-team]}
";
    let seed = ScimSeed::from_document(doc).unwrap();
    let srv = serve_with(|o| o.scim = seed).await;
    let names: Vec<&str> = srv
        .running
        .groups
        .iter()
        .map(|g| g.display_name.as_str())
        .collect();
    assert_eq!(names, ["Team", "Everyone"]);
    assert_eq!(srv.running.users.len(), 2);
    let team = body_json(srv.scim("GET", "/Groups/g-team", None).await).await;
    assert_eq!(team["externalId"], "t1");
    assert_eq!(member_ids(&team)[0], "u-ana");
    let everyone = body_json(
        srv.scim(
            "GET",
            &format!("/Groups/{}", group_id(&srv, "Everyone")),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(everyone["members"][0]["type"], "Group");
    let ana = body_json(srv.scim("GET", "/Users/u-ana", None).await).await;
    assert_eq!(ana["groups"][0]["value"], "g-team");

    // Members nobody is: the document is refused, naming the entry.
    let bad = ScimSeed::from_document("groups:\n  - {displayName: X, members: [ghost]}\n").unwrap();
    let err = analyst::emulator::server::start(analyst::emulator::server::ServeOptions {
        scim: bad,
        ..analyst::emulator::server::ServeOptions::demo()
    })
    .await
    .unwrap_err();
    assert!(format!("{err:#}").contains("ghost"), "{err:#}");
}

/// `serve --config FILE -o json` lists the document's groups; `--scim-users N` adds users
/// without listing them.
#[cfg(unix)]
#[tokio::test]
async fn the_binary_reads_config_and_scim_users() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("serve.yaml");
    std::fs::write(
        &config,
        "users:\n  - {userName: a@x.org}\ngroups:\n  - {displayName: Crew, members: [a@x.org]}\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_analyst"))
        .env_remove("ANALYST_CONFIG")
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "-o",
            "json",
            "--scim-users",
            "5",
            "--config",
        ])
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let info: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
    assert_eq!(info["groups"][0]["displayName"], "Crew");
    assert_eq!(
        info["users"].as_array().unwrap().len(),
        1,
        "synthetic users are not listed"
    );

    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "groups: 3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_analyst"))
        .env_remove("ANALYST_CONFIG")
        .args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("groups must be a list"));
}
