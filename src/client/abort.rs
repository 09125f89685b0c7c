//! Stopping a running stream: `POST .../chat/abort` with the thread and the identity.

use super::chat::ChatClient;
use super::http::{BODY_LIMIT, ErrorDoc, describe_body, network, read_bounded};
use crate::exit::{Status, fail, status_of};
use crate::protocol::chat::AbortRequest;
use anyhow::Result;
use reqwest::header::CONTENT_TYPE;

/// Send an abort for `request.chat_id`. Success is a 204, or a 2xx with an empty body or a JSON
/// object that is no error document; a 2xx carrying an error document (servers that answer bad credentials with a JSON-RPC error in a
/// 200) fails with that error's meaning, and any other body fails saying what came back. A 403
/// or 404 comes back as an error that says what it means for a thread.
pub async fn abort(client: &ChatClient, request: &AbortRequest) -> Result<()> {
    let body = serde_json::to_vec(request)?;
    let url = client.endpoint.abort.clone();
    let what = format!("abort {}", request.chat_id);
    let mut response = client
        .post(&url, body, &what)
        .await
        .map_err(|e| explain(e, &request.chat_id))?;
    let status = response.status();
    if status == reqwest::StatusCode::NO_CONTENT {
        return Ok(());
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let read = read_bounded(&mut response, BODY_LIMIT)
        .await
        .map_err(|e| network(&what, &url, &e))?;
    if !read.over_limit && read.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let doc = ErrorDoc::find(&read.body).filter(|_| !read.over_limit);
    // A JSON object that is no error document (`{"ok":true}`, `{"status":"aborted"}`) is a
    // server's way of saying it did: PROTOCOL.md asks for leniency in what is received.
    if doc.is_none()
        && !read.over_limit
        && serde_json::from_slice::<serde_json::Value>(&read.body).is_ok_and(|v| v.is_object())
    {
        return Ok(());
    }
    let e = match doc {
        Some(doc) => fail(
            doc.status(),
            format!("{what}: HTTP {status} but the body is {doc}"),
        ),
        None => fail(
            Status::Failure,
            format!(
                "{what}: HTTP {status} with a body, so the abort is not confirmed (success has none, or a JSON object): {}{}",
                describe_body(content_type.as_deref(), &read.body),
                if read.over_limit {
                    " (more than 64 KiB)"
                } else {
                    ""
                }
            ),
        ),
    };
    Err(explain(e, &request.chat_id))
}

/// Put what a refusal or a missing thread means for an abort in front of the server's words.
fn explain(e: anyhow::Error, chat_id: &str) -> anyhow::Error {
    let meaning = match status_of(&e) {
        Status::Auth if e.to_string().contains("403") => format!(
            "thread {chat_id} is not yours to stop (it belongs to another user, or the key may not abort)"
        ),
        Status::NotFound => format!("thread {chat_id} was not found (or is not streaming)"),
        _ => return e,
    };
    fail(status_of(&e), format!("{meaning}; {e}"))
}
