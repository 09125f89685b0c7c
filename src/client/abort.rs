//! Stopping a running stream: `POST .../chat/abort` with the thread and the identity.

use super::chat::ChatClient;
use crate::exit::{fail, status_of, Status};
use crate::protocol::chat::AbortRequest;
use anyhow::Result;

/// Send an abort for `request.chat_id`. 204 (or any 2xx) is success; a 403 or 404 comes back
/// as an error that says what it means for a thread.
pub async fn abort(client: &ChatClient, request: &AbortRequest) -> Result<()> {
    let body = serde_json::to_vec(request)?;
    let url = client.endpoint.abort.clone();
    let what = format!("abort {}", request.chat_id);
    match client.post(&url, body, &what).await {
        Ok(_) => Ok(()),
        Err(e) => Err(explain(e, &request.chat_id)),
    }
}

/// Put what a 403 or 404 means for an abort in front of the server's words.
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
