//! `stream-chat-state` and `abort` over HTTP: the stream's frames, reads, threads, auth and
//! every validation rule with its status code.

use crate::common;

use analyst::emulator::http::auth::{signed_token, unsigned_token};
use common::serve::*;
use serde_json::{Value, json};

#[tokio::test]
async fn a_message_streams_cutoff_echo_agent_state_usage() {
    let srv = serve(&[]).await;
    let resp = srv
        .chat(json!({"input": "What was revenue last month?", "messageId": mid(1), "sessionSettings": ext("ci-bot")}))
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let f = frames(resp).await;
    assert_eq!(f[0]["id"], "__cutoff__");
    assert_eq!(f[0]["sort"], 0);
    assert_eq!(
        f[0]["state"]["isStreaming"], false,
        "the thread was not streaming when a fresh send arrived"
    );
    assert!(!chat_id(&f).is_empty());
    assert_eq!(f[1]["id"], mid(1));
    assert_eq!(
        (f[1]["role"].as_str(), f[1]["isDelta"].as_bool()),
        (Some("user"), Some(false))
    );
    assert_eq!(f[1]["content"], "What was revenue last month?");
    let n = f.len();
    assert_eq!(f[n - 2]["id"], "__state__");
    assert_eq!(f[n - 1]["id"], "__usage__");
    assert_eq!(f[n - 1]["type"], "usage");
    assert!(f[n - 1].get("sort").is_none() && f[n - 1].get("role").is_none());
    let sorts: Vec<u64> = f[..n - 1]
        .iter()
        .map(|x| x["sort"].as_u64().unwrap())
        .collect();
    assert_eq!(
        sorts,
        (0..n as u64 - 1).collect::<Vec<_>>(),
        "sort counts up from 0"
    );
    assert!(
        f.iter().any(|x| x["toolCall"]["result"].is_string()),
        "the agent ran SQL"
    );
    assert!(
        f.iter()
            .any(|x| x["graphPath"][0] == "final" && x["isDelta"] == false)
    );
    let messages = f[n - 2]["state"]["messages"].as_array().unwrap();
    assert_eq!(messages[0]["id"][2], "HumanMessage");
    assert_eq!(messages.last().unwrap()["id"][2], "AIMessage");
    assert_eq!(f[n - 1]["usage"]["totalTokens"], {
        let u = &f[n - 1]["usage"];
        json!(u["inputTokens"].as_u64().unwrap() + u["outputTokens"].as_u64().unwrap())
    });
}

#[tokio::test]
async fn reads_follow_ups_and_a_repeated_message_id() {
    let srv = serve(&[]).await;
    let first = srv
        .ask("ana", None, 1, "Revenue by region last month")
        .await;
    let chat = chat_id(&first);
    let read = frames(srv.read("ana", &chat).await).await;
    assert_eq!(ids(&read), ["__cutoff__", "__state__"]);
    assert_eq!(read[0]["state"]["isStreaming"], false);
    assert_eq!(read[1]["sort"], 1);
    assert_eq!(
        read[1]["state"]["messages"].as_array().unwrap().len(),
        first.iter().rev().nth(1).unwrap()["state"]["messages"]
            .as_array()
            .unwrap()
            .len()
    );

    let second = srv
        .ask("ana", Some(&chat), 2, "and the month before?")
        .await;
    assert_eq!(chat_id(&second), chat, "the same thread");
    let humans = |f: &[Value]| {
        f.iter().rev().nth(1).unwrap()["state"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["id"][2] == "HumanMessage")
            .count()
    };
    assert_eq!(humans(&second), 2);

    // The same messageId again after its turn ended: no second answer, the state instead.
    let again = srv
        .ask("ana", Some(&chat), 2, "and the month before?")
        .await;
    assert_eq!(ids(&again), ["__cutoff__", "__state__"]);
    assert_eq!(again[0]["state"]["isStreaming"], false);
    assert_eq!(
        again[1]["state"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["id"][2] == "HumanMessage")
            .count(),
        2
    );
}

#[tokio::test]
async fn a_message_without_message_id_gets_one_from_the_clock() {
    let srv = serve(&[]).await;
    let f = frames(
        srv.chat(json!({"input": "How many orders?", "sessionSettings": ext("a")}))
            .await,
    )
    .await;
    let id = f[1]["id"].as_str().unwrap();
    assert_eq!(id, format!("{NOW_MS}-message"));
}

#[tokio::test]
async fn threads_belong_to_their_owner() {
    let srv = serve(&[]).await;
    let chat = chat_id(&srv.ask("owner", None, 1, "How many orders?").await);
    assert_eq!(srv.read("intruder", &chat).await.status(), 403);
    let resp = srv
        .chat(json!({"input": "hi", "chatId": chat, "messageId": mid(2), "sessionSettings": ext("intruder")}))
        .await;
    assert_eq!(resp.status(), 403);
    assert_eq!(srv.abort("intruder", &chat).await, 403);
    assert_eq!(
        srv.abort("owner", &chat).await,
        204,
        "aborting an idle thread is fine"
    );
    assert_eq!(srv.read("owner", "no-such-thread").await.status(), 404);
    assert_eq!(srv.abort("owner", "no-such-thread").await, 404);
}

#[tokio::test]
async fn auth_and_paths() {
    let srv = serve(&[]).await;
    let body = json!({"input": "hi", "sessionSettings": ext("a")}).to_string();
    let send = |url: String, headers: Vec<(&'static str, String)>| {
        let mut req = srv.http.post(url).body(body.clone());
        for (k, v) in headers {
            req = req.header(k, v);
        }
        req.send()
    };
    let key = srv.running.api_key.clone();
    let url = srv.chat_url();
    let missing = send(url.clone(), vec![]).await.unwrap();
    assert_eq!(missing.status(), 401);
    assert!(
        body_json(missing).await["error"]
            .as_str()
            .unwrap()
            .contains("Api-Key")
    );
    let wrong = send(url.clone(), vec![("Authorization", "Api-Key nope".into())])
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(
        body_json(wrong).await["error"]
            .as_str()
            .unwrap()
            .contains("invalid API key")
    );
    let bearer = send(
        url.clone(),
        vec![("Authorization", format!("Bearer {key}"))],
    )
    .await
    .unwrap();
    assert_eq!(bearer.status(), 401);

    let other_account = url.replace("/public/demo/", "/public/nope/");
    let r = send(
        other_account,
        vec![("Authorization", format!("Api-Key {key}"))],
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    let other_agent = url.replace("/agents/1/", "/agents/2/");
    assert_eq!(
        send(
            other_agent,
            vec![("Authorization", format!("Api-Key {key}"))]
        )
        .await
        .unwrap()
        .status(),
        404
    );
    let nowhere = format!("{}/api/v1/nothing", srv.origin());
    assert_eq!(
        send(nowhere, vec![("Authorization", format!("Api-Key {key}"))])
            .await
            .unwrap()
            .status(),
        404
    );

    // Token auth: the claims are the user and sessionSettings is ignored (and may be absent).
    // Tokens are signed HS256 with the server's data secret; unsigned ones are refused.
    let token = signed_token(&json!({"externalId": "tok-user"}), &srv.running.data_secret);
    let deployment = url.replace("/agents/1/", "/deployments/1/");
    let ok = srv
        .http
        .post(&deployment)
        .header("X-Cube-Auth-Token", &token)
        .body(json!({"input": "How many orders?", "messageId": mid(1)}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let chat = chat_id(&frames(ok).await);
    // The token's user owns the thread, whatever sessionSettings says.
    let read = srv
        .http
        .post(&url)
        .header("X-Cube-Auth-Token", &token)
        .body(json!({"chatId": chat, "sessionSettings": ext("someone-else")}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    // Ignored whatever its shape (it was checked, and a bad shape was a 400).
    for ignored in [
        json!("not an object"),
        json!({"userAttributes": "bad", "isEphemeral": "yes"}),
        json!({"externalId": "Has Capitals", "internalId": "x@example.com"}),
    ] {
        let read = srv
            .http
            .post(&url)
            .header("X-Cube-Auth-Token", &token)
            .body(json!({"chatId": chat, "sessionSettings": ignored}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(read.status(), 200, "{ignored}");
    }
    // The SCIM token is an API key of the account (PROTOCOL.md): chat takes it too.
    let scim_key = send(
        url.clone(),
        vec![(
            "Authorization",
            format!("Api-Key {}", srv.running.scim_token),
        )],
    )
    .await
    .unwrap();
    assert_eq!(scim_key.status(), 200);
    // An internal user that does not exist is a parameter the body got wrong: 400 naming it
    // (a 403 read as refused credentials).
    let unknown = srv
        .post(
            &url,
            &json!({"input": "hi", "sessionSettings": {"internalId": "nobody@example.com"}}),
        )
        .await;
    assert_eq!(unknown.status(), 400);
    assert_eq!(
        body_json(unknown).await["field"],
        "sessionSettings.internalId"
    );
    // An API key on the token-only URL: 403; with both headers Authorization wins.
    let keyed = send(
        deployment.clone(),
        vec![("Authorization", format!("Api-Key {key}"))],
    )
    .await
    .unwrap();
    assert_eq!(keyed.status(), 403);
    let both = send(
        url.clone(),
        vec![
            ("Authorization", "Api-Key wrong".into()),
            ("X-Cube-Auth-Token", token.clone()),
        ],
    )
    .await
    .unwrap();
    assert_eq!(both.status(), 401, "Authorization wins over the token");
    let bad_token = send(url.clone(), vec![("X-Cube-Auth-Token", "not.a-jwt".into())])
        .await
        .unwrap();
    assert_eq!(bad_token.status(), 401);
    for refused in [
        unsigned_token(&json!({"externalId": "tok-user"})),
        signed_token(&json!({"externalId": "tok-user"}), "not-the-secret"),
    ] {
        let resp = send(url.clone(), vec![("X-Cube-Auth-Token", refused)])
            .await
            .unwrap();
        assert_eq!(resp.status(), 401, "unsigned or wrongly signed token");
    }
}

async fn rejected(srv: &Srv, body: Value) -> (u16, Value) {
    let resp = srv.chat(body).await;
    let status = resp.status().as_u16();
    (status, body_json(resp).await)
}

#[tokio::test]
async fn every_validation_rule_names_its_field() {
    let srv = serve(&[]).await;
    let cases: Vec<(Value, &str)> = vec![
        (json!({"input": "hi"}), "sessionSettings"),
        (
            json!({"input": "hi", "sessionSettings": {}}),
            "sessionSettings",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"externalId": "a", "internalId": "ana@example.com"}}),
            "sessionSettings",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"externalId": "Upper"}}),
            "sessionSettings.externalId",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"externalId": "has space"}}),
            "sessionSettings.externalId",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"internalId": "ana@example.com", "groups": ["g"]}}),
            "sessionSettings.groups",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"internalId": "ana@example.com", "userAttributes": []}}),
            "sessionSettings.userAttributes",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"internalId": "ana@example.com", "roles": ["r"]}}),
            "sessionSettings.roles",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"internalId": "ana@example.com", "securityContext": {}}}),
            "sessionSettings.securityContext",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"externalId": "a", "userAttributes": [{"name": "shoe_size", "value": "9"}]}}),
            "sessionSettings.userAttributes[0].name",
        ),
        (
            json!({"input": "hi", "messageId": "123-message", "sessionSettings": ext("a")}),
            "messageId",
        ),
        (
            json!({"input": "hi", "messageId": "1700000000000-msg", "sessionSettings": ext("a")}),
            "messageId",
        ),
        (json!({"input": 5, "sessionSettings": ext("a")}), "input"),
        (json!({"input": "  ", "sessionSettings": ext("a")}), "input"),
        (
            json!({"input": "hi", "chatId": 7, "sessionSettings": ext("a")}),
            "chatId",
        ),
        (
            json!({"input": "hi", "isDefaultBranch": "yes", "sessionSettings": ext("a")}),
            "isDefaultBranch",
        ),
        (
            json!({"input": "hi", "sessionSettings": {"externalId": "a", "isEphemeral": "no"}}),
            "sessionSettings.isEphemeral",
        ),
        (
            json!({"input": "hi", "images": [{"data": "x"}], "sessionSettings": ext("a")}),
            "images[0].mimeType",
        ),
        (json!({"sessionSettings": ext("a")}), "chatId"),
        (json!([1, 2]), "body"),
    ];
    for (body, field) in cases {
        let (status, err) = rejected(&srv, body.clone()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(err["field"], field, "{body} -> {err}");
        assert!(!err["error"].as_str().unwrap().is_empty());
    }
    let not_json = srv
        .http
        .post(srv.chat_url())
        .header("Authorization", format!("Api-Key {}", srv.running.api_key))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), 400);
    assert_eq!(body_json(not_json).await["field"], "body");
    // A known attribute passes.
    let ok = srv
        .chat(json!({"input": "How many orders?", "sessionSettings": {"externalId": "eu", "userAttributes": [{"name": "region", "value": "Europe"}]}}))
        .await;
    assert_eq!(ok.status(), 200);
    let abort_without_chat = srv
        .post(&srv.abort_url(), &json!({"sessionSettings": ext("a")}))
        .await;
    assert_eq!(abort_without_chat.status(), 400);
}

#[tokio::test]
async fn bodies_over_the_limit_are_413() {
    let srv = serve(&[]).await;
    let big = "x".repeat(1_100_000);
    let (status, _) = rejected(&srv, json!({"input": big, "sessionSettings": ext("a")})).await;
    assert_eq!(status, 413);
    // Images may make a body bigger, up to 10 MiB.
    let image = json!([{"mimeType": "image/png", "data": "A".repeat(2_000_000)}]);
    let resp = srv
        .chat(json!({"input": "How many orders?", "images": image, "sessionSettings": ext("a")}))
        .await;
    assert_eq!(resp.status(), 200);
    let huge = json!([{"mimeType": "image/png", "data": "A".repeat(11 << 20)}]);
    let (status, _) = rejected(
        &srv,
        json!({"input": "x", "images": huge, "sessionSettings": ext("a")}),
    )
    .await;
    assert_eq!(status, 413);
}

/// `docs` and `legacy` refuse a bad key with 200 and a JSON-RPC error object, where the stream
/// would be: one `\n`-terminated line, as every line of that body is (it had no newline).
#[tokio::test]
async fn a_refusal_in_a_200_is_one_terminated_line() {
    for dialect in [
        analyst::protocol::Dialect::Docs,
        analyst::protocol::Dialect::Legacy,
    ] {
        let srv = serve_with(|o| o.dialect = dialect).await;
        let r = srv
            .http
            .post(srv.chat_url())
            .header("Authorization", "Api-Key nope")
            .body(json!({"input": "hi", "sessionSettings": ext("a")}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let body = r.text().await.unwrap();
        assert!(
            body.ends_with('\n') && body.matches('\n').count() == 1,
            "{body:?}"
        );
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (v["jsonrpc"].as_str(), v["error"]["code"].as_i64()),
            (Some("2.0"), Some(-32001))
        );
    }
}

/// `DELETE .../running-query/{id}` stops only the caller's own query: another user's token
/// gets 404 and the query goes on (it was cancelled: anyone could stop anyone's query).
#[tokio::test]
async fn only_the_owner_cancels_a_running_query() {
    // Paced: each chunk after the first waits, so the query stays running while the test
    // holds its response open (its end, not a timer, is what unregisters it).
    let srv = serve_with(|o| o.pace = std::time::Duration::from_secs(30)).await;
    let token = |sub: &str| {
        signed_token(
            &json!({"sub": sub, "userAttributes": {"region": "EU"}}),
            &srv.running.data_secret,
        )
    };
    let mut running = srv
        .http
        .post(format!("{}/v1/cubesql", srv.running.data_url))
        .header("Authorization", token("alice"))
        .header("x-request-id", "alice-q1")
        .body(
            json!({"query": "SELECT products_name, MEASURE(revenue) FROM sales GROUP BY 1"})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(running.status(), 200);
    let first = running.chunk().await.unwrap().unwrap();
    assert!(
        String::from_utf8_lossy(&first).contains("schema"),
        "{first:?}"
    );
    let cancel = |sub: &str| {
        srv.http
            .delete(format!(
                "{}/v1/running-query/alice-q1",
                srv.running.data_url
            ))
            .header("Authorization", token(sub))
            .send()
    };
    assert_eq!(cancel("mallory").await.unwrap().status(), 404);
    assert_eq!(cancel("alice").await.unwrap().status(), 204);
}
