//! Whether a response was the service's stream at all. A 200 whose body is something else — a
//! proxy's text without a final newline, a JSON document that is no frame, an error object
//! printed over several lines — must be said as what it is (PROTOCOL.md: "show whatever text
//! or JSON comes back, trimmed"), not taken for a connection lost mid-line (exit 6) or a stream
//! that closed early.

use super::{Source, StreamError, Tracker, classify_error};
use crate::exit::{Status, fail};
use crate::protocol::words::server_words;
use crate::protocol::{Frame, FrameKind};
use anyhow::Result;

/// The most bytes of a response's leading non-JSON lines kept, to read them as one document
/// at its end; and the most of a first object kept, to quote it.
const HELD_MAX: usize = 64 << 10;

/// What one response showed so far.
#[derive(Debug, Default)]
pub(super) struct ResponseSeen {
    /// JSON objects.
    objects: u64,
    /// Of those, frames of the stream (an `id`, a `role` or a `type`).
    frames: u64,
    /// Lines skipped as not JSON objects, and whether the run's first skipped line is one.
    skipped: u64,
    first_skipped_here: bool,
    /// The lines skipped before any object, while they fit in [`HELD_MAX`] (`None` after).
    held: Option<Vec<u8>>,
    /// The first object, while no frame came (cut at [`HELD_MAX`]).
    first_object: Option<Vec<u8>>,
}

impl ResponseSeen {
    pub(super) fn new() -> ResponseSeen {
        ResponseSeen {
            held: Some(Vec::new()),
            ..ResponseSeen::default()
        }
    }

    /// A JSON object arrived; `frame` when it has an `id`, `role` or `type`.
    pub(super) fn object(&mut self, text: &[u8], frame: bool) {
        self.objects += 1;
        if frame {
            self.frames += 1;
        } else if self.frames == 0 && self.first_object.is_none() {
            self.first_object = Some(text[..text.len().min(HELD_MAX)].to_vec());
        }
    }

    /// A line that is not a JSON object was skipped; `first` when it is the run's first.
    pub(super) fn skipped(&mut self, text: &[u8], first: bool) {
        self.skipped += 1;
        self.first_skipped_here |= first;
        if self.objects > 0 {
            self.held = None;
        }
        if let Some(held) = &mut self.held {
            if held.len() + text.len() < HELD_MAX {
                held.extend_from_slice(text);
                held.push(b'\n');
            } else {
                self.held = None;
            }
        }
    }
}

/// What a whole body that held no frame of the stream was.
#[derive(Debug)]
pub enum Whole {
    /// An error document (a JSON-RPC error, `{"error": ...}`), classified as an error line is.
    Refusal(StreamError),
    /// The front of a JSON line, cut: the connection's loss.
    Cut,
}

/// Judge `doc`, a whole body (its lines and its unterminated tail) in which no frame of the
/// stream came: a JSON document printed over any number of lines is read as one; an error
/// object is a refusal; the front of a single JSON line is a cut; anything else (text, JSON
/// that is no frame) is an error that says what came. `before_stream`: no `__cutoff__` came
/// before it (an error that speaks of keys is then a refusal of credentials).
pub fn judge_whole_body(
    doc: &[u8],
    content_type: Option<&str>,
    one_line: bool,
    before_stream: bool,
) -> Result<Whole> {
    match serde_json::from_slice::<serde_json::Value>(doc) {
        Ok(v) if v.is_object() => {
            let text = v.to_string();
            match Frame::parse(text.as_bytes()) {
                Some(f) if f.kind() == FrameKind::Error => {
                    Ok(Whole::Refusal(classify_error(&f, before_stream)))
                }
                _ => Err(not_the_stream(content_type, text.as_bytes())),
            }
        }
        _ if one_line && doc.trim_ascii_start().starts_with(b"{") => Ok(Whole::Cut),
        _ => Err(not_ndjson(content_type, doc)),
    }
}

/// The error for a body that is not NDJSON: its Content-Type named, its first words.
pub(super) fn not_ndjson(content_type: Option<&str>, body: &[u8]) -> anyhow::Error {
    fail(
        Status::Failure,
        format!(
            "the service answered {}, not NDJSON: {}",
            named(content_type),
            server_words(body)
        ),
    )
}

fn not_the_stream(content_type: Option<&str>, json: &[u8]) -> anyhow::Error {
    fail(
        Status::Failure,
        format!(
            "the service answered {} with JSON that is not its stream: {}",
            named(content_type),
            server_words(json)
        ),
    )
}

/// A Content-Type as messages name it.
fn named(content_type: Option<&str>) -> &str {
    content_type.unwrap_or("a body without a Content-Type")
}

impl Tracker {
    /// The response's body ended as the server meant it to (no error while reading). `tail` is
    /// what followed its last newline when that is no whole JSON object (empty otherwise).
    /// `Ok(true)`: the body is whole; `Ok(false)`: its last line was cut short (the connection
    /// was lost); an error when the body was not the service's stream.
    pub fn body_ended(&mut self, tail: &[u8]) -> Result<bool> {
        let seen = std::mem::replace(&mut self.response, ResponseSeen::new());
        let content_type = match &self.source {
            Source::Response(t) => t.clone(),
            _ => None,
        };
        let content_type = content_type.as_deref();
        if seen.objects == 0
            && let Some(mut doc) = seen.held
        {
            doc.extend_from_slice(tail);
            if !doc.trim_ascii().is_empty() {
                let one_line = seen.skipped == 0;
                return match judge_whole_body(&doc, content_type, one_line, !self.cutoff_seen)? {
                    Whole::Refusal(e) => {
                        // The lines skipped were this document's: not skipped after all.
                        self.skipped -= seen.skipped;
                        if seen.first_skipped_here {
                            self.first_skipped = None;
                        }
                        self.objects += 1;
                        self.error = Some(e);
                        Ok(true)
                    }
                    Whole::Cut => Ok(false),
                };
            }
        }
        if !tail.is_empty() {
            return Ok(false);
        }
        if seen.objects > 0 && seen.frames == 0 && self.error.is_none() {
            let first = seen.first_object.unwrap_or_default();
            return Err(not_the_stream(content_type, &first));
        }
        Ok(true)
    }
}
