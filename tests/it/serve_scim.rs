//! SCIM Users over HTTP: lookups, create, PATCH in its forms, PUT, DELETE, ETags and errors.

use crate::common;

use common::serve::*;
use serde_json::{Value, json};

const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

fn patch(ops: Value) -> Value {
    json!({"schemas": [PATCH_OP], "Operations": ops})
}

async fn scim_error(resp: reqwest::Response, status: u16) -> Value {
    assert_eq!(resp.status(), status);
    assert_eq!(resp.headers()["content-type"], "application/scim+json");
    let body = body_json(resp).await;
    assert_eq!(
        body["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:Error"
    );
    assert_eq!(body["status"], status.to_string(), "status is a string");
    body
}

#[tokio::test]
async fn lookups_by_id_and_user_name() {
    let srv = serve(&[]).await;
    let id = srv.user_id("bo@example.com");
    let resp = srv.scim("GET", &format!("/Users/{id}"), None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/scim+json");
    assert_eq!(resp.headers()["etag"], "W/\"1\"");
    let user = body_json(resp).await;
    assert_eq!(user["userName"], "bo@example.com");
    assert_eq!(user["active"], true);
    assert_eq!(user["meta"]["resourceType"], "User");
    assert_eq!(user["meta"]["version"], "W/\"1\"");
    assert_eq!(user["meta"]["created"], "2026-11-15T12:00:00.000Z");
    assert!(user["meta"]["location"].as_str().unwrap().ends_with(&id));

    let list = srv
        .scim(
            "GET",
            "/Users?filter=userName%20eq%20%22BO%40example.com%22",
            None,
        )
        .await;
    assert_eq!(list.status(), 200);
    let list = body_json(list).await;
    assert_eq!(
        list["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:ListResponse"
    );
    assert_eq!(list["totalResults"], 1);
    assert_eq!(list["startIndex"], 1);
    assert_eq!(list["itemsPerPage"], 1);
    assert_eq!(list["Resources"][0]["id"], id);
    let none = body_json(
        srv.scim("GET", "/Users?filter=userName+eq+%22x%22", None)
            .await,
    )
    .await;
    assert_eq!(
        (
            none["totalResults"].as_u64(),
            none["Resources"].as_array().unwrap().len()
        ),
        (Some(0), 0)
    );
    let page = body_json(srv.scim("GET", "/Users?startIndex=2&count=1", None).await).await;
    assert_eq!(
        (page["totalResults"].as_u64(), page["itemsPerPage"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(page["Resources"][0]["userName"], "bo@example.com");

    scim_error(srv.scim("GET", "/Users/nope", None).await, 404).await;
    let bad = scim_error(
        srv.scim("GET", "/Users?filter=userName%20zz%20%22x%22", None)
            .await,
        400,
    )
    .await;
    assert_eq!(bad["scimType"], "invalidFilter");
}

#[tokio::test]
async fn create_replace_and_delete() {
    let srv = serve(&[]).await;
    let body = json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "eve@example.com", "name": {"givenName": "Eve"}});
    let created = srv.scim("POST", "/Users", Some(body.clone())).await;
    assert_eq!(created.status(), 201);
    assert!(
        created.headers()["location"]
            .to_str()
            .unwrap()
            .contains("/api/scim/v2/Users/")
    );
    let user = body_json(created).await;
    let id = user["id"].as_str().unwrap().to_owned();
    assert_eq!(user["active"], Value::Null, "absent until set");
    let dup = scim_error(srv.scim("POST", "/Users", Some(body)).await, 409).await;
    assert_eq!(dup["scimType"], "uniqueness");
    let invalid = scim_error(
        srv.scim("POST", "/Users", Some(json!({"name": {}}))).await,
        400,
    )
    .await;
    assert_eq!(invalid["scimType"], "invalidValue");
    scim_error(srv.scim("POST", "/Users", Some(json!("text"))).await, 400).await;

    let put = srv
        .scim(
            "PUT",
            &format!("/Users/{id}"),
            Some(json!({"userName": "eve@example.com", "active": false})),
        )
        .await;
    assert_eq!(put.status(), 200);
    let put = body_json(put).await;
    assert_eq!(put["active"], false);
    assert!(put.get("name").is_none(), "PUT replaces everything");
    assert_eq!(put["meta"]["version"], "W/\"2\"");
    let clash = srv
        .scim(
            "PUT",
            &format!("/Users/{id}"),
            Some(json!({"userName": "ana@example.com"})),
        )
        .await;
    scim_error(clash, 409).await;

    let deleted = srv.scim("DELETE", &format!("/Users/{id}"), None).await;
    assert_eq!(deleted.status(), 204);
    scim_error(srv.scim("GET", &format!("/Users/{id}"), None).await, 404).await;
    scim_error(srv.scim("DELETE", &format!("/Users/{id}"), None).await, 404).await;
}

#[tokio::test]
async fn patch_operations_in_all_forms() {
    let srv = serve(&[]).await;
    let id = srv.user_id("bo@example.com");
    let url = format!("/Users/{id}");
    let resp = srv
        .scim(
            "PATCH",
            &url,
            Some(patch(json!([
                {"op": "Add", "path": "emails", "value": [{"value": "bo@home.example", "type": "home"}]},
                {"op": "replace", "path": "emails[primary eq true].value", "value": "bo@new.example"},
                {"op": "replace", "path": "name.givenName", "value": "Robert"},
                {"op": "replace", "value": {"displayName": "Bob", "title": "CTO"}},
                {"op": "REMOVE", "path": "title"},
                {"op": "replace", "path": "active", "value": "False"}
            ]))),
        )
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["etag"], "W/\"2\"");
    let user = body_json(resp).await;
    assert_eq!(user["emails"][0]["value"], "bo@new.example");
    assert_eq!(user["emails"][1]["value"], "bo@home.example");
    assert_eq!(
        user["name"],
        json!({"givenName": "Robert", "familyName": "Ard"})
    );
    assert_eq!(user["displayName"], "Bob");
    assert!(user.get("title").is_none());
    assert_eq!(
        user["active"], false,
        "a string boolean is stored as a boolean"
    );

    let kind = |ops: Value| {
        let srv = &srv;
        let url = url.clone();
        async move {
            let body = scim_error(srv.scim("PATCH", &url, Some(patch(ops))).await, 400).await;
            body["scimType"].as_str().unwrap().to_owned()
        }
    };
    assert_eq!(
        kind(json!([{"op": "replace", "path": "emails[type eq \"fax\"].value", "value": "x"}]))
            .await,
        "noTarget"
    );
    assert_eq!(
        kind(json!([{"op": "replace", "path": "no such path!", "value": 1}])).await,
        "invalidPath"
    );
    assert_eq!(
        kind(json!([{"op": "replace", "path": "active", "value": 7}])).await,
        "invalidValue"
    );
    assert_eq!(
        kind(json!([{"op": "add", "path": "title"}])).await,
        "invalidValue"
    );
    assert_eq!(kind(json!([{"op": "remove"}])).await, "noTarget");
    assert_eq!(
        kind(json!([{"op": "move", "path": "a"}])).await,
        "invalidSyntax"
    );
    assert_eq!(
        kind(json!([{"op": "replace", "path": "id", "value": "x"}])).await,
        "mutability"
    );
    // A failed PatchOp changes nothing, not even the operations before the failing one.
    let ops = json!([{"op": "replace", "path": "displayName", "value": "Changed"}, {"op": "replace", "path": "active", "value": 7}]);
    kind(ops).await;
    let now = body_json(srv.scim("GET", &url, None).await).await;
    assert_eq!(now["displayName"], "Bob");
    let no_schema = srv
        .scim(
            "PATCH",
            &url,
            Some(json!({"Operations": [{"op": "remove", "path": "title"}]})),
        )
        .await;
    scim_error(no_schema, 400).await;
    scim_error(
        srv.scim(
            "PATCH",
            "/Users/nope",
            Some(patch(json!([{"op": "remove", "path": "title"}]))),
        )
        .await,
        404,
    )
    .await;
}

#[tokio::test]
async fn if_match_guards_writes() {
    let srv = serve(&[]).await;
    let id = srv.user_id("ana@example.com");
    let send = |tag: &'static str| {
        srv.http
            .patch(format!("{}/Users/{id}", srv.running.scim_url))
            .header(
                "Authorization",
                format!("Bearer {}", srv.running.scim_token),
            )
            .header("If-Match", tag)
            .body(
                patch(json!([{"op": "replace", "path": "displayName", "value": tag}])).to_string(),
            )
            .send()
    };
    assert_eq!(send("W/\"1\"").await.unwrap().status(), 200);
    let stale = send("W/\"1\"").await.unwrap();
    let body = scim_error(stale, 412).await;
    assert!(body["detail"].as_str().unwrap().contains("W/\"2\""));
    assert_eq!(
        send("\"2\"").await.unwrap().status(),
        200,
        "strong form of the same tag"
    );
    assert_eq!(send("*").await.unwrap().status(), 200);
    let delete = srv
        .http
        .delete(format!("{}/Users/{id}", srv.running.scim_url))
        .header(
            "Authorization",
            format!("Bearer {}", srv.running.scim_token),
        )
        .header("If-Match", "W/\"1\"")
        .send()
        .await
        .unwrap();
    scim_error(delete, 412).await;
}

#[tokio::test]
async fn scim_auth() {
    let srv = serve(&[]).await;
    let url = format!("{}/Users", srv.running.scim_url);
    let missing = srv.http.get(&url).send().await.unwrap();
    scim_error(missing, 401).await;
    let wrong = srv
        .http
        .get(&url)
        .header("Authorization", "Bearer nope")
        .send()
        .await
        .unwrap();
    scim_error(wrong, 401).await;
    // PROTOCOL.md: the SCIM token is an ordinary API key of the account, so the chat key is
    // one too.
    let chat_key = srv
        .http
        .get(&url)
        .header("Authorization", format!("Bearer {}", srv.running.api_key))
        .send()
        .await
        .unwrap();
    assert_eq!(chat_key.status(), 200, "the account's chat API key");
    let api_key_scheme = srv
        .http
        .get(&url)
        .header(
            "Authorization",
            format!("Api-Key {}", srv.running.scim_token),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(api_key_scheme.status(), 200, "Api-Key is accepted too");
    let big = json!({"userName": "x".repeat(2 << 20)});
    scim_error(srv.scim("POST", "/Users", Some(big)).await, 413).await;
}

const ENTERPRISE: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/// Issue 12: a password is taken on every write and never comes back, on any read.
#[tokio::test]
async fn password_is_write_only() {
    let srv = serve(&[]).await;
    let body = json!({"userName": "pw@example.com", "password": "hunter2-SECRET"});
    let created = body_json(srv.scim("POST", "/Users", Some(body)).await).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let user = format!("/Users/{id}");
    let put = json!({"userName": "pw@example.com", "password": "put-SECRET"});
    let pw = json!([{"op": "replace", "path": "password", "value": "patch-SECRET"}]);
    let answers = [
        created,
        body_json(srv.scim("PUT", &user, Some(put)).await).await,
        body_json(srv.scim("PATCH", &user, Some(patch(pw))).await).await,
        body_json(srv.scim("GET", &user, None).await).await,
        body_json(srv.scim("GET", "/Users?attributes=password", None).await).await,
        body_json(
            srv.scim("GET", &format!("{user}?attributes=password"), None)
                .await,
        )
        .await,
    ];
    for answer in answers {
        let text = answer.to_string();
        assert!(
            !text.contains("SECRET") && !text.contains("\"password\""),
            "{text}"
        );
    }
    let bad = json!({"userName": "pw2@example.com", "password": 5});
    scim_error(srv.scim("POST", "/Users", Some(bad)).await, 400).await;
}

/// Issue 12: every error under the SCIM root is a SCIM Error, 405 included.
#[tokio::test]
async fn errors_under_the_scim_root_are_scim_errors() {
    let srv = serve(&[]).await;
    scim_error(srv.scim("GET", "/NoSuchThing", None).await, 404).await;
    scim_error(srv.scim("GET", "/Users/a/b", None).await, 404).await;
    for (method, path) in [
        ("DELETE", "/Users"),
        ("POST", "/Users/x"),
        ("GET", "/Users/.search"),
        ("POST", "/ServiceProviderConfig"),
        ("PUT", "/Schemas"),
        ("PATCH", "/ResourceTypes"),
        ("DELETE", "/ResourceTypes/User"),
    ] {
        scim_error(srv.scim(method, path, None).await, 405).await;
    }
    let unauth = reqwest::get(format!("{}/Users", srv.running.scim_url))
        .await
        .unwrap();
    scim_error(unauth, 401).await;
    let bad = scim_error(
        srv.scim("GET", "/Users?sortOrder=sideways", None).await,
        400,
    )
    .await;
    assert_eq!(bad["scimType"], "invalidValue");
    let filtered = srv.scim("GET", "/Schemas?filter=id+pr", None).await;
    scim_error(filtered, 403).await;
}

/// Issue 12: discovery describes what the server really does.
#[tokio::test]
async fn discovery_endpoints() {
    let srv = serve(&[]).await;
    let spc = body_json(srv.scim("GET", "/ServiceProviderConfig", None).await).await;
    assert_eq!(spc["patch"]["supported"], true);
    assert_eq!(spc["bulk"]["supported"], false);
    assert_eq!(spc["filter"]["maxResults"], 1000);
    assert_eq!(spc["etag"]["supported"], true);
    assert_eq!(spc["authenticationSchemes"][0]["type"], "oauthbearertoken");
    let schemas = body_json(srv.scim("GET", "/Schemas", None).await).await;
    let ids: Vec<&str> = schemas["Resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "urn:ietf:params:scim:schemas:core:2.0:User",
            "urn:ietf:params:scim:schemas:core:2.0:Group",
            ENTERPRISE
        ]
    );
    let one = srv
        .scim("GET", &format!("/Schemas/{ENTERPRISE}"), None)
        .await;
    assert_eq!(body_json(one).await["name"], "EnterpriseUser");
    let types = body_json(srv.scim("GET", "/ResourceTypes", None).await).await;
    assert_eq!(types["totalResults"], 2, "User and Group");
    let user = body_json(srv.scim("GET", "/ResourceTypes/User", None).await).await;
    assert_eq!(user["endpoint"], "/Users");
    assert_eq!(user["schemaExtensions"][0]["schema"], ENTERPRISE);
    scim_error(srv.scim("GET", "/Schemas/urn:nope", None).await, 404).await;
}

/// Issue 12: `.search`, `attributes`/`excludedAttributes` and sorting.
#[tokio::test]
async fn search_and_partial_resources() {
    let srv = serve(&[]).await;
    let search = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
        "filter": "name.givenName sw \"a\" or active eq false",
        "attributes": ["userName", "name.familyName"],
        "sortBy": "userName", "sortOrder": "descending", "count": 5,
    });
    let found = body_json(srv.scim("POST", "/Users/.search", Some(search)).await).await;
    assert_eq!(found["totalResults"], 2, "{found}");
    let first = &found["Resources"][0];
    assert_eq!(first["userName"], "cy@example.com");
    assert_eq!(first["name"], json!({"familyName": "Gone"}));
    assert!(first["id"].is_string() && first["schemas"].is_array());
    assert!(first.get("emails").is_none() && first.get("meta").is_none());
    let no_schema = json!({"filter": "userName pr"});
    scim_error(srv.scim("POST", "/.search", Some(no_schema)).await, 400).await;

    let id = srv.user_id("ana@example.com");
    let path = format!("/Users/{id}?excludedAttributes=emails,name.givenName,id");
    let ana = body_json(srv.scim("GET", &path, None).await).await;
    assert_eq!(ana["id"], id.as_str(), "id is always returned");
    assert!(ana.get("emails").is_none());
    assert_eq!(ana["name"], json!({"familyName": "Lyst"}));
}

/// Issue 12: the extension's URN is in `schemas` exactly while it has attributes.
#[tokio::test]
async fn extension_urn_follows_its_attributes() {
    let srv = serve(&[]).await;
    let id = srv.user_id("bo@example.com");
    let user = format!("/Users/{id}");
    let has_urn = |u: &Value| {
        u["schemas"]
            .as_array()
            .unwrap()
            .contains(&json!(ENTERPRISE))
    };
    let add = json!([{"op": "add", "path": format!("{ENTERPRISE}:department"), "value": "R&D"}]);
    let u = body_json(srv.scim("PATCH", &user, Some(patch(add))).await).await;
    assert!(has_urn(&u), "{u}");
    assert_eq!(u[ENTERPRISE]["department"], "R&D");
    let sub =
        json!([{"op": "replace", "path": format!("{ENTERPRISE}:manager.value"), "value": "m1"}]);
    let u = body_json(srv.scim("PATCH", &user, Some(patch(sub))).await).await;
    assert_eq!(u[ENTERPRISE]["manager"]["value"], "m1", "{u}");
    let found = srv
        .scim(
            "GET",
            &format!("/Users?filter={ENTERPRISE}:department+eq+%22r%26d%22"),
            None,
        )
        .await;
    assert_eq!(body_json(found).await["totalResults"], 1);
    let remove = json!([
        {"op": "remove", "path": format!("{ENTERPRISE}:department")},
        {"op": "remove", "path": format!("{ENTERPRISE}:manager")},
    ]);
    let u = body_json(srv.scim("PATCH", &user, Some(patch(remove))).await).await;
    assert!(!has_urn(&u) && u.get(ENTERPRISE).is_none(), "{u}");
    let put = json!({"userName": "bo@example.com", ENTERPRISE: {"employeeNumber": "7"}});
    assert!(has_urn(
        &body_json(srv.scim("PUT", &user, Some(put)).await).await
    ));
    let put = json!({"userName": "bo@example.com", ENTERPRISE: {}});
    assert!(!has_urn(
        &body_json(srv.scim("PUT", &user, Some(put)).await).await
    ));
}
