//! How a tracked stream ends: the exit status of an error line, the answer, and the run's
//! outcome (an error reported, not NDJSON at all, suspended, lost, or no final answer).

use super::Tracker;
use crate::exit::{Status, fail};
use crate::protocol::Frame;
use anyhow::Result;
use serde_json::Value;

/// A failure the stream itself reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamError {
    /// The exit status it ends the run with.
    pub status: Status,
    /// What happened, in the server's words.
    pub message: String,
}

impl Tracker {
    /// An error line of this stream, classified (see [`classify_error`]).
    pub(super) fn classify_error(&self, f: &Frame) -> StreamError {
        classify_error(f, !self.cutoff_seen)
    }
}

/// An error line's status: a refused auth (a JSON-RPC style error object, or an error before
/// the stream began, `before_stream`, that speaks of keys or tokens) is 3, a JSON-RPC error
/// that says "not found" 4, a thread already streaming 5, anything else 1. Shared by the stream and the resume's state read.
pub fn classify_error(f: &Frame, before_stream: bool) -> StreamError {
    let message = f.error_message().unwrap_or_else(|| "unknown error".into());
    let lower = message.to_lowercase();
    let object = f.error.as_ref().is_some_and(Value::is_object);
    let code = f
        .error
        .as_ref()
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64);
    let sounds_like_auth = crate::protocol::words::about_credentials(&lower);
    // PROTOCOL.md: a JSON-RPC style error object is how some servers say "bad credentials".
    let jsonrpc = f.jsonrpc.is_some() && !crate::protocol::words::is_jsonrpc_standard_error(code);
    // The order of `ErrorDoc::status` (abort and SCIM read the same bodies in a 200), so that
    // one body means one status whichever command read it.
    let status = if crate::protocol::words::is_busy(&message) {
        Status::Conflict
    } else if matches!(code, Some(401 | 403)) || (sounds_like_auth && (object || before_stream)) {
        Status::Auth
    } else if jsonrpc && lower.contains("not found") {
        Status::NotFound
    } else if jsonrpc {
        Status::Auth
    } else {
        Status::Failure
    };
    StreamError {
        status,
        message: crate::protocol::words::trim_body(message.as_bytes()),
    }
}

impl Tracker {
    /// The answer (see [`FinalTracker::answer`]); the flag says the text is incomplete.
    pub fn final_text(&self) -> Option<(String, bool)> {
        self.answer.answer().map(|a| (a.text, a.incomplete))
    }

    /// How the run ends: `Ok` with an answer, else the error to exit with.
    pub fn outcome(&self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(fail(
                e.status,
                format!("the service reported: {}", e.message),
            ));
        }
        if let (0, Some(first)) = (self.objects, &self.first_skipped) {
            // Not one JSON object came: the body was never the service's NDJSON.
            return Err(fail(
                Status::Failure,
                format!("the answer is not NDJSON: {first}"),
            ));
        }
        if let Some(s) = &self.suspended {
            return Err(fail(
                Status::Failure,
                format!("the turn was suspended and not resumed: {s}"),
            ));
        }
        if let Some(why) = &self.lost {
            return Err(fail(Status::Network, why.clone()));
        }
        if self.final_text().is_none() {
            return Err(fail(
                Status::NoAnswer,
                "the stream ended without a final answer",
            ));
        }
        Ok(())
    }
}
