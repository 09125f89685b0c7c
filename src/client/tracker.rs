//! What a chat stream has said so far, line by line: the thread id, the final answer, usage,
//! errors, and which frames were already written (so a resumed stream repeats none).
//!
//! The same tracker serves a live stream (one or more connections) and a replayed `--save`
//! file, so that both end with the same exit status.

use super::stream::Lines;
use crate::answer::FinalTracker;
use crate::exit::{fail, Status};
use crate::jsonscan::{self, Field, TopFields};
use crate::protocol::{Frame, FrameKind};
use anyhow::Result;
use serde_json::Value;

/// Where the lines of a chat stream go.
pub trait Sink {
    /// Every line exactly as received, repeats included (`--save`).
    fn received(&mut self, raw: &[u8]) -> Result<()>;
    /// A line to show: not a repeat of one already shown. `frame` is `None` for lines that are
    /// not JSON objects (or blank).
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> Result<()>;
    /// A chunk of the body has been handled: flush, so that a pipe sees each frame at once.
    fn chunk_done(&mut self) -> Result<()>;
    /// Whether [`Sink::line`] reads `frame`. When it does not (`-o ndjson`, `-o final`), plain
    /// assistant frames are passed on as `None`, without being parsed into a [`Frame`].
    fn wants_frames(&self) -> bool {
        true
    }
    /// Nothing has arrived for a while (`true`), or data arrived (`false`): drives a spinner.
    fn waiting(&mut self, _quiet: bool) {}
    /// The thread id became known (from `__cutoff__`).
    fn chat_id(&mut self, _id: &str) -> Result<()> {
        Ok(())
    }
}

/// Feeds lines to a tracker and on to a sink (a connection's body, or a saved stream).
pub struct Feed<'a> {
    /// The run's tracker.
    pub tracker: &'a mut Tracker,
    /// Where shown lines go.
    pub sink: &'a mut dyn Sink,
}

impl Lines for Feed<'_> {
    fn line(&mut self, raw: &[u8], text: &[u8]) -> Result<()> {
        self.tracker.line(raw, text, self.sink)
    }
    fn chunk_done(&mut self) -> Result<()> {
        self.sink.chunk_done()
    }
    fn waiting(&mut self, quiet: bool) {
        self.sink.waiting(quiet)
    }
}

/// A failure the stream itself reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamError {
    /// The exit status it ends the run with.
    pub status: Status,
    /// What happened, in the server's words.
    pub message: String,
}

/// The state of a chat run, fed line by line.
#[derive(Debug)]
pub struct Tracker {
    /// The thread id, once `__cutoff__` said it.
    pub chat_id: Option<String>,
    /// The user's message id, from its echo.
    pub message_id: Option<String>,
    /// The final-answer rule over the frames shown.
    pub answer: FinalTracker,
    /// The answer taken from the thread's state after a drop, when the turn had finished.
    pub state_answer: Option<String>,
    /// `usage` of `__usage__`.
    pub usage: Option<Value>,
    /// An error line, `__aborted__`, or an auth error object.
    pub error: Option<StreamError>,
    /// The message of a `__suspended__` frame not yet followed by a resume.
    pub suspended: Option<String>,
    /// `__state__` or `__usage__` arrived: the stream reached its end.
    pub ended: bool,
    /// Why the connection was lost, when it could not be resumed.
    pub lost: Option<String>,
    /// The highest `sort` shown. `sort` increases through a stream, so on a resumed connection
    /// a frame at or below it was already shown: O(1) memory however long the stream.
    shown_sort: Option<i64>,
    cutoff_seen: bool,
    /// Lines now come from a later connection: drop those already shown.
    resumed: bool,
    lines: u64,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker::new()
    }
}

impl Tracker {
    /// A tracker for a new run.
    pub fn new() -> Tracker {
        Tracker {
            chat_id: None,
            message_id: None,
            answer: FinalTracker::new(false),
            state_answer: None,
            usage: None,
            error: None,
            suspended: None,
            ended: false,
            lost: None,
            shown_sort: None,
            cutoff_seen: false,
            resumed: false,
            lines: 0,
        }
    }

    /// A new connection of the same run begins (a resend after a drop or a suspension).
    pub fn reconnected(&mut self) {
        self.resumed = true;
        self.suspended = None;
    }

    /// Handle one line (`raw` with its terminator, `text` without).
    pub fn line(&mut self, raw: &[u8], text: &[u8], sink: &mut dyn Sink) -> Result<()> {
        sink.received(raw)?;
        self.lines += 1;
        // One scan validates the line and finds what the answer rule and the repeat check read.
        let top = jsonscan::scan_frame(text).ok();
        if let Some(top) = &top {
            // Most lines are assistant text; when the sink does not read frames, nothing of
            // them needs building.
            if !sink.wants_frames() {
                if let Some(sort) = plain_assistant(text, top) {
                    if self.repeat(sort) {
                        return Ok(());
                    }
                    self.answer.apply(top, text);
                    return sink.line(raw, None);
                }
            }
        }
        let frame = Frame::parse(text);
        let Some(f) = &frame else {
            return sink.line(raw, None);
        };
        let kind = f.kind();
        if kind == FrameKind::Cutoff {
            if self.cutoff_seen {
                // A second `__cutoff__` opens a resumed connection (in a saved stream too).
                self.resumed = true;
                self.suspended = None;
                return Ok(());
            }
            self.cutoff_seen = true;
        }
        if self.repeat(f.sort) {
            return Ok(());
        }
        // Lines that cannot be parsed by the rule are simply not answers.
        if let Some(top) = &top {
            self.answer.apply(top, text);
        }
        match kind {
            FrameKind::Cutoff => {
                if let Some(id) = f.chat_id() {
                    if self.chat_id.as_deref() != Some(id) {
                        self.chat_id = Some(id.to_owned());
                        sink.chat_id(id)?;
                    }
                }
            }
            FrameKind::UserEcho if self.message_id.is_none() => {
                self.message_id = f.id.clone();
            }
            FrameKind::State => self.ended = true,
            FrameKind::Usage => {
                self.ended = true;
                self.usage = f.usage.clone();
            }
            FrameKind::Error => self.error = Some(self.classify_error(f)),
            FrameKind::Aborted => {
                let why = f.error_message().unwrap_or_else(|| "chat_aborted".into());
                self.error = Some(StreamError {
                    status: Status::Failure,
                    message: format!("the turn was aborted: {why}"),
                });
            }
            FrameKind::Suspended => {
                self.suspended = Some(f.error_message().unwrap_or_else(|| "chat_suspended".into()))
            }
            _ => {}
        }
        sink.line(raw, frame.as_ref())
    }

    /// Whether a frame with this `sort` repeats one already shown (only a resumed connection
    /// repeats frames); notes it as shown when not.
    fn repeat(&mut self, sort: Option<i64>) -> bool {
        let Some(sort) = sort else {
            return false;
        };
        match self.shown_sort {
            Some(top) if sort <= top => self.resumed,
            _ => {
                self.shown_sort = Some(sort);
                false
            }
        }
    }

    /// An error line's status: a refused auth (a JSON-RPC style error object, or an error before
    /// the stream began that speaks of keys or tokens) is 3, a thread already streaming is 5,
    /// anything else 1.
    fn classify_error(&self, f: &Frame) -> StreamError {
        let message = f.error_message().unwrap_or_else(|| "unknown error".into());
        let lower = message.to_lowercase();
        let object = f.error.as_ref().is_some_and(Value::is_object);
        let code = f
            .error
            .as_ref()
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64);
        let sounds_like_auth = [
            "api key",
            "api-key",
            "auth",
            "token",
            "forbidden",
            "permission",
        ]
        .iter()
        .any(|w| lower.contains(w));
        let status = if message.contains("Streaming for thread is in progress") {
            Status::Conflict
        } else if matches!(code, Some(401 | 403))
            || (sounds_like_auth && (object || !self.cutoff_seen))
        {
            Status::Auth
        } else {
            Status::Failure
        };
        StreamError {
            status,
            message: crate::client::trim_body(message.as_bytes()),
        }
    }

    /// The answer: the stream's complete final frame, else the thread state's, else what the
    /// stream's chunks rebuilt. The flag says the text is incomplete.
    pub fn final_text(&self) -> Option<(String, bool)> {
        let streamed = self.answer.answer();
        match (&streamed, &self.state_answer) {
            (Some(a), _) if !a.incomplete => Some((a.text.clone(), false)),
            (_, Some(s)) => Some((s.clone(), false)),
            (Some(a), None) => Some((a.text.clone(), true)),
            (None, None) => None,
        }
    }

    /// How the run ends: `Ok` with an answer, else the error to exit with.
    pub fn outcome(&self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(fail(
                e.status,
                format!("the service reported: {}", e.message),
            ));
        }
        if let Some(s) = &self.suspended {
            return Err(fail(
                Status::Failure,
                format!("the turn was suspended and not resumed: {s}"),
            ));
        }
        if let Some(why) = &self.lost {
            return Err(fail(Status::Network, format!("connection lost: {why}")));
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

/// For an assistant frame that the tracker only passes on (no special id, no `type`, a plain
/// integer or no `sort`): its `sort`. `None` when the frame needs a full parse.
fn plain_assistant(text: &[u8], top: &TopFields) -> Option<Option<i64>> {
    let unescaped = |f: Option<Field>| match f {
        Some(Field::Str(span)) if !span.escaped => Some(&text[span.start..span.end]),
        _ => None,
    };
    if top.has_type || unescaped(top.role)? != b"assistant" {
        return None;
    }
    if let Some(Field::Str(span)) = top.id {
        // `__cutoff__`, `__state__`... or an escaped id that might spell one.
        if span.escaped || text[span.start..span.end].starts_with(b"__") {
            return None;
        }
    }
    match top.sort {
        None => Some(None),
        Some(Field::Raw(a, b)) => Some(Some(plain_integer(&text[a..b])?)),
        Some(Field::Str(_)) => None,
    }
}

/// An integer written as digits with an optional minus, short enough not to overflow; other
/// numbers (fractions, exponents, huge) are left to the full parse.
fn plain_integer(raw: &[u8]) -> Option<i64> {
    let (negative, digits) = match raw.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, raw),
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
    Some(if negative { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Lines {
        received: usize,
        shown: Vec<String>,
        /// Like `-o ndjson`: frames are not read, so plain ones are not parsed.
        raw_only: bool,
    }

    impl Sink for Lines {
        fn received(&mut self, _: &[u8]) -> Result<()> {
            self.received += 1;
            Ok(())
        }
        fn line(&mut self, raw: &[u8], _: Option<&Frame>) -> Result<()> {
            self.shown.push(String::from_utf8_lossy(raw).into_owned());
            Ok(())
        }
        fn chunk_done(&mut self) -> Result<()> {
            Ok(())
        }
        fn wants_frames(&self) -> bool {
            !self.raw_only
        }
    }

    fn feed(t: &mut Tracker, sink: &mut Lines, line: &str) {
        t.line(line.as_bytes(), line.as_bytes(), sink).unwrap();
    }

    const CUT: &str = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":true}}"#;
    const D1: &str = r#"{"id":"m","sort":1,"role":"assistant","content":"Hi","isDelta":true,"graphPath":["final"]}"#;
    const D2: &str = r#"{"id":"m","sort":2,"role":"assistant","content":" there","isDelta":true,"graphPath":["final"]}"#;

    #[test]
    fn repeats_after_a_resume_are_dropped_but_saved() {
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        feed(&mut t, &mut s, CUT);
        feed(&mut t, &mut s, D1);
        t.reconnected();
        for l in [CUT, D1, D2, r#"{"id":"__state__","state":{}}"#] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.received, 6);
        assert_eq!(s.shown.len(), 4);
        assert_eq!(t.chat_id.as_deref(), Some("c1"));
        assert!(t.ended);
        assert_eq!(t.final_text(), Some(("Hi there".into(), true)));
    }

    #[test]
    fn repeats_are_dropped_without_parsing_frames_too() {
        for raw_only in [false, true] {
            let mut t = Tracker::new();
            let mut s = Lines {
                raw_only,
                ..Lines::default()
            };
            feed(&mut t, &mut s, CUT);
            feed(&mut t, &mut s, D1);
            feed(&mut t, &mut s, D2);
            t.reconnected();
            // The resumed connection repeats D1 and D2, then goes on.
            let d3 = r#"{"id":"m","sort":3,"role":"assistant","content":"!","isDelta":false,"graphPath":["final"]}"#;
            for l in [CUT, D1, D2, d3, r#"{"id":"__state__","sort":4,"state":{}}"#] {
                feed(&mut t, &mut s, l);
            }
            assert_eq!(s.shown.len(), 5, "raw_only {raw_only}");
            assert_eq!(s.received, 8);
            assert!(t.ended);
            assert_eq!(t.final_text(), Some(("!".into(), false)));
        }
    }

    #[test]
    fn plain_integers_parse_and_others_are_left_to_serde() {
        assert_eq!(plain_integer(b"0"), Some(0));
        assert_eq!(plain_integer(b"-42"), Some(-42));
        assert_eq!(
            plain_integer(b"123456789012345678"),
            Some(123_456_789_012_345_678)
        );
        for other in [&b""[..], b"-", b"1.5", b"1e3", b"1234567890123456789", b"x"] {
            assert_eq!(plain_integer(other), None);
        }
    }

    #[test]
    fn frames_out_of_order_before_a_resume_are_all_shown() {
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        for l in [CUT, D2, D1] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.shown.len(), 3);
    }

    #[test]
    fn a_second_cutoff_in_a_saved_stream_marks_a_resume() {
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        for l in [CUT, D1, CUT, D1, D2] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.shown.len(), 3);
    }

    #[test]
    fn errors_are_classified() {
        let status = |lines: &[&str]| {
            let (mut t, mut s) = (Tracker::new(), Lines::default());
            for l in lines {
                feed(&mut t, &mut s, l);
            }
            crate::exit::status_of(&t.outcome().unwrap_err())
        };
        assert_eq!(
            status(&[r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Invalid API key"}}"#]),
            Status::Auth
        );
        assert_eq!(
            status(&[CUT, r#"{"error":"Streaming for thread is in progress"}"#]),
            Status::Conflict
        );
        assert_eq!(status(&[CUT, r#"{"error":"boom"}"#]), Status::Failure);
        assert_eq!(
            status(&[
                CUT,
                r#"{"id":"__aborted__","type":"abort","error":"stopped"}"#
            ]),
            Status::Failure
        );
        assert_eq!(
            status(&[CUT, r#"{"id":"__state__","state":{}}"#]),
            Status::NoAnswer
        );
    }
}
