//! Chat users: ephemeral external users expire by the (manual) clock, persistent ones stay;
//! internal users are SCIM users and a SCIM deactivation refuses their chat at once.

use crate::common;

use common::serve::*;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn an_ephemeral_user_and_its_threads_expire_by_the_clock() {
    let srv = serve(&[]).await;
    let short = json!({"externalId": "temp", "ephemeralTtlSeconds": 60});
    let f = frames(
        srv.chat(
            json!({"input": "How many orders?", "messageId": mid(1), "sessionSettings": short}),
        )
        .await,
    )
    .await;
    let temp_chat = chat_id(&f);
    let keep = json!({"externalId": "keeper", "isEphemeral": false});
    let f = frames(
        srv.chat(
            json!({"input": "How many orders?", "messageId": mid(2), "sessionSettings": keep}),
        )
        .await,
    )
    .await;
    let kept_chat = chat_id(&f);
    let default_ttl = srv.ask("weekly", None, 3, "How many orders?").await;
    let weekly_chat = chat_id(&default_ttl);

    srv.running.clock().advance(Duration::from_secs(59));
    assert_eq!(srv.read("temp", &temp_chat).await.status(), 200, "not yet");
    srv.running.clock().advance(Duration::from_secs(1));
    assert_eq!(
        srv.read("temp", &temp_chat).await.status(),
        404,
        "gone with its user"
    );
    assert_eq!(srv.read("keeper", &kept_chat).await.status(), 200);
    assert_eq!(srv.read("weekly", &weekly_chat).await.status(), 200);

    srv.running.clock().advance(Duration::from_secs(604_800));
    assert_eq!(
        srv.read("weekly", &weekly_chat).await.status(),
        404,
        "one week by default"
    );
    assert_eq!(
        srv.read("keeper", &kept_chat).await.status(),
        200,
        "persistent users stay"
    );
    // The same externalId later is a fresh user with no threads.
    let again = srv.ask("temp", None, 4, "How many orders?").await;
    assert_ne!(chat_id(&again), temp_chat);
}

#[tokio::test]
async fn the_agent_s_today_comes_from_the_clock() {
    let srv = serve(&[]).await;
    let f = srv.ask("a", None, 1, "What was revenue last month?").await;
    let text = f
        .iter()
        .filter_map(|x| x["content"].as_str())
        .collect::<String>();
    assert!(
        text.contains("October 2026"),
        "the manual clock says 2026-11-15"
    );
}

fn internal(user: &str) -> serde_json::Value {
    json!({ "internalId": user })
}

#[tokio::test]
async fn internal_users_are_scim_users_and_deactivation_applies_at_once() {
    let srv = serve(&[]).await;
    let ask = |user: &'static str, n: u64| {
        srv.chat(json!({"input": "How many orders?", "messageId": mid(n), "sessionSettings": internal(user)}))
    };
    let ok = ask("ana@example.com", 1).await;
    assert_eq!(ok.status(), 200);
    let chat = chat_id(&frames(ok).await);

    // Unknown: a parameter the body got wrong (400); deactivated: refused (403, below).
    let unknown = ask("nobody@example.com", 2).await;
    assert_eq!(unknown.status(), 400);
    assert!(
        body_json(unknown).await["error"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    let inactive = ask("cy@example.com", 3).await;
    assert_eq!(inactive.status(), 403);
    assert!(
        body_json(inactive).await["error"]
            .as_str()
            .unwrap()
            .contains("deactivated")
    );

    let id = srv.user_id("ana@example.com");
    let patch = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": "replace", "path": "active", "value": false}]
    });
    let resp = srv
        .scim("PATCH", &format!("/Users/{id}"), Some(patch))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        ask("ana@example.com", 4).await.status(),
        403,
        "refused at once"
    );
    let read = srv
        .chat(json!({"chatId": chat, "sessionSettings": internal("ana@example.com")}))
        .await;
    assert_eq!(read.status(), 403, "reads too");

    let activate = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": "Replace", "value": {"active": true}}]
    });
    let resp = srv
        .scim("PATCH", &format!("/Users/{id}"), Some(activate))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(ask("ana@example.com", 5).await.status(), 200);

    // A user created over SCIM can chat; its threads are its own.
    let created = srv
        .scim(
            "POST",
            "/Users",
            Some(json!({"userName": "dee@example.com"})),
        )
        .await;
    assert_eq!(created.status(), 201);
    assert_eq!(
        ask("DEE@example.com", 6).await.status(),
        200,
        "userName is case-insensitive"
    );
    let theirs = srv
        .chat(json!({"chatId": chat, "sessionSettings": internal("dee@example.com")}))
        .await;
    assert_eq!(theirs.status(), 403);
}
