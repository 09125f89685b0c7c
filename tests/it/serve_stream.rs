//! Turns that outlive connections: suspend and resume, concurrent resubscribes, 400 while
//! streaming, abort in the middle of a tool call, dropped connections, and 200 streams at once.
//! Faults stop turns at exact lines, so nothing here depends on timing.

use crate::common;

use common::serve::*;
use serde_json::{Value, json};

const QUESTION: &str = "What was revenue by region last month?";

fn request(chat: Option<&str>, n: u64) -> Value {
    let mut body = json!({"input": QUESTION, "messageId": mid(n), "sessionSettings": ext("ana")});
    if let Some(c) = chat {
        body["chatId"] = json!(c);
    }
    body
}

fn sorts(frames: &[Value]) -> Vec<u64> {
    frames.iter().filter_map(|f| f["sort"].as_u64()).collect()
}

fn contiguous(s: &[u64]) -> bool {
    s.windows(2).all(|w| w[1] == w[0] + 1)
}

fn answers_in_state(frames: &[Value]) -> usize {
    let state = frames
        .iter()
        .rev()
        .find(|f| f["id"] == "__state__")
        .unwrap();
    state["state"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["id"][2] == "AIMessage"
                && m["kwargs"]["content"]
                    .as_str()
                    .is_some_and(|c| !c.is_empty())
        })
        .count()
}

#[tokio::test]
async fn a_suspended_turn_resumes_on_the_same_request() {
    let srv = serve(&["suspend-after=5,times=1"]).await;
    let first = frames(srv.chat(request(None, 1)).await).await;
    assert_eq!(
        first.len(),
        7,
        "5 lines, then __suspended__ and __usage__ (always last) end the response"
    );
    assert_eq!(first[6]["id"], "__usage__");
    let suspended = &first[5];
    assert_eq!(suspended["id"], "__suspended__");
    assert_eq!(suspended["type"], "suspend");
    assert_eq!(suspended["code"], "chat_suspended");
    assert_eq!(suspended["retryable"], true);
    assert_eq!(suspended["messageId"], mid(1));
    let chat = chat_id(&first);

    let read = frames(srv.read("ana", &chat).await).await;
    assert_eq!(
        read[0]["state"]["isStreaming"], true,
        "a suspended turn is not over"
    );
    let other = srv.chat(request(Some(&chat), 2)).await;
    assert_eq!(other.status(), 400, "the service's busy answer is a 400");
    assert_eq!(
        body_json(other).await["error"],
        "Streaming for thread is in progress"
    );

    let resumed = frames(srv.chat(request(Some(&chat), 1)).await).await;
    assert_eq!(resumed[0]["id"], "__cutoff__");
    assert_eq!(resumed[0]["state"]["isStreaming"], true);
    assert_eq!(
        resumed[1]["sort"].as_u64(),
        Some(suspended["sort"].as_u64().unwrap() + 1)
    );
    assert_eq!(resumed.last().unwrap()["id"], "__usage__");
    let mut all = sorts(&first);
    all.extend(sorts(&resumed[1..]));
    assert!(contiguous(&all), "nothing lost or repeated: {all:?}");
    assert_eq!(answers_in_state(&resumed), 1);
}

#[tokio::test]
async fn concurrent_resubscribes_join_one_turn_without_a_second_answer() {
    // The turn pauses at line 4 until resubscribed, then holds at line 12, so it is certainly
    // still streaming while the second resubscriber joins.
    let srv = serve(&["suspend-after=4,times=1", "hold-after=12,times=1"]).await;
    let first = frames(srv.chat(request(None, 1)).await).await;
    let chat = chat_id(&first);
    let paused_at = first[first.len() - 2]["sort"].as_u64().unwrap();
    let mut a = Lines::new(srv.chat(request(Some(&chat), 1)).await);
    assert_eq!(a.frame().await["state"]["isStreaming"], true);
    let mut b = Lines::new(srv.chat(request(Some(&chat), 1)).await);
    assert_eq!(
        b.frame().await["state"]["isStreaming"],
        true,
        "joined the running turn"
    );
    let other = srv.chat(request(Some(&chat), 2)).await;
    assert_eq!(other.status(), 400, "a different message is still refused");
    assert_eq!(srv.abort("ana", &chat).await, 204);
    let (a, b) = (a.rest().await, b.rest().await);
    assert_eq!(
        a[0]["sort"].as_u64(),
        Some(paused_at + 1),
        "continues where the turn paused"
    );
    assert!(contiguous(&sorts(&a)));
    assert_eq!(ids(&a[a.len() - 2..]), ["__aborted__", "__usage__"]);
    assert!(
        a.ends_with(&b),
        "the second sees the same frames from where it joined"
    );
    assert_eq!(
        answers_in_state(&frames(srv.read("ana", &chat).await).await),
        0
    );
    let humans = frames(srv.read("ana", &chat).await).await[1]["state"]["messages"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(humans, 1, "one turn, run once");
}

/// PROTOCOL.md, "Idempotency and resume": a request with the same `messageId` joins that
/// message's running stream "without a second answer". A client that lost the connection
/// before `__cutoff__` named the thread can only resend the request as it was, without a
/// `chatId`: it joins the same thread (it started a second thread and a second answer), and
/// after the turn it gets the thread's state, not a new turn. Another user's same id does not.
#[tokio::test]
async fn a_resend_without_the_chat_id_joins_the_running_turn() {
    let srv = serve(&["suspend-after=4,times=1"]).await;
    let first = frames(srv.chat(request(None, 1)).await).await;
    let chat = chat_id(&first);
    let paused_at = first[first.len() - 2]["sort"].as_u64().unwrap();

    let resent = frames(srv.chat(request(None, 1)).await).await;
    assert_eq!(resent[0]["id"], "__cutoff__");
    assert_eq!(chat_id(&resent), chat, "the same thread");
    assert_eq!(
        resent[0]["state"]["isStreaming"], true,
        "joined, not started"
    );
    assert_eq!(resent[1]["sort"].as_u64(), Some(paused_at + 1));
    assert_eq!(answers_in_state(&resent), 1);

    let again = frames(srv.chat(request(None, 1)).await).await;
    assert_eq!(chat_id(&again), chat);
    assert_eq!(
        ids(&again),
        ["__cutoff__", "__state__"],
        "the state, no new turn"
    );
    assert_eq!(answers_in_state(&again), 1, "still one answer");

    let mut theirs = request(None, 1);
    theirs["sessionSettings"] = ext("bo");
    let other = frames(srv.chat(theirs).await).await;
    assert_ne!(chat_id(&other), chat, "another user's message is their own");
}

/// Lines up to and including the first tool call's start, in a turn of `QUESTION`.
async fn lines_to_first_tool_call() -> usize {
    let srv = serve(&[]).await;
    let f = frames(srv.chat(request(None, 1)).await).await;
    f.iter()
        .position(|x| x["toolCall"].is_object() && x["isInProcess"] == true)
        .expect("the turn calls a tool")
        + 1
}

#[tokio::test]
async fn abort_during_a_tool_call_ends_the_stream_with_aborted() {
    let n = lines_to_first_tool_call().await;
    let srv = serve(&[&format!("hold-after={n}")]).await;
    let mut stream = Lines::new(srv.chat(request(None, 1)).await);
    let mut seen = Vec::new();
    for _ in 0..n {
        seen.push(stream.frame().await);
    }
    let last = seen.last().unwrap();
    assert!(
        last["toolCall"].is_object() && last["isInProcess"] == true,
        "{last}"
    );
    let chat = chat_id(&seen);
    assert_eq!(srv.abort("someone-else", &chat).await, 403);
    assert_eq!(srv.abort("ana", &chat).await, 204);
    let rest = stream.rest().await;
    assert_eq!(rest.len(), 2, "{rest:?}");
    assert_eq!(rest[0]["id"], "__aborted__");
    assert_eq!(
        rest[1]["id"], "__usage__",
        "usage is the very last frame, after an abort too"
    );
    assert_eq!(rest[0]["type"], "abort");
    assert_eq!(rest[0]["code"], "chat_aborted");
    assert!(rest[0]["error"].is_string());
    assert_eq!(
        rest[0]["sort"].as_u64(),
        Some(last["sort"].as_u64().unwrap() + 1)
    );

    let read = frames(srv.read("ana", &chat).await).await;
    assert_eq!(read[0]["state"]["isStreaming"], false);
    // The aborted message is never run again; a new one is accepted.
    let again = frames(srv.chat(request(Some(&chat), 1)).await).await;
    assert_eq!(ids(&again), ["__cutoff__", "__state__"]);
    let next = srv.chat(request(Some(&chat), 2)).await;
    assert_eq!(next.status(), 200);
    let mut next = Lines::new(next);
    assert_eq!(next.frame().await["state"]["isStreaming"], false);
    assert_eq!(srv.abort("ana", &chat).await, 204);
}

#[tokio::test]
async fn a_dropped_connection_does_not_stop_the_turn() {
    let srv = serve(&["drop-after=4,times=1"]).await;
    let mut stream = Lines::new(srv.chat(request(None, 1)).await);
    let mut got = Vec::new();
    let broke = loop {
        match stream.next().await {
            Ok(Some(line)) => got.push(serde_json::from_str::<Value>(&line).unwrap()),
            Ok(None) => break false,
            Err(_) => break true,
        }
    };
    assert!(broke, "the connection breaks instead of ending cleanly");
    assert_eq!(got.len(), 4);
    let chat = chat_id(&got);
    // Resend the same request: attach if still streaming, else the state; never a second run.
    let again = frames(srv.chat(request(Some(&chat), 1)).await).await;
    assert_eq!(answers_in_state(&again), 1);
    let read = frames(srv.read("ana", &chat).await).await;
    let humans = read[1]["state"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["id"][2] == "HumanMessage")
        .count();
    assert_eq!(humans, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_streams_complete() {
    let srv = std::sync::Arc::new(serve(&[]).await);
    let questions = [
        "How many orders?",
        QUESTION,
        "Top 5 products by revenue this year",
    ];
    let tasks: Vec<_> = (0..200u64)
        .map(|i| {
            let srv = srv.clone();
            let q = questions[i as usize % questions.len()];
            tokio::spawn(async move { srv.ask(&format!("user-{i}"), None, i, q).await })
        })
        .collect();
    let mut chats = std::collections::HashSet::new();
    for (i, t) in tasks.into_iter().enumerate() {
        let f = t.await.unwrap();
        assert_eq!(f[1]["id"], mid(i as u64));
        assert_eq!(f.last().unwrap()["id"], "__usage__", "stream {i} ended");
        let s = sorts(&f);
        assert_eq!(s[0], 0);
        assert!(contiguous(&s), "stream {i}: {s:?}");
        chats.insert(chat_id(&f));
    }
    assert_eq!(chats.len(), 200, "a thread each");
}

#[tokio::test]
async fn pace_spaces_the_frames_out() {
    let srv = serve_with(|o| o.pace = std::time::Duration::from_millis(2)).await;
    let f = frames(srv.chat(request(None, 1)).await).await;
    assert_eq!(f.last().unwrap()["id"], "__usage__");
}
