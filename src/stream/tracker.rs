//! What a chat stream has said so far, line by line: the thread id, the final answer, usage,
//! errors, and which frames were already written (so a resumed stream repeats none).
//!
//! The same tracker serves a live stream (one or more connections) and a replayed `--save`
//! file, so that both end with the same exit status.

use crate::exit::{Status, fail};
use crate::protocol::{Frame, FrameKind};
use crate::stream::answer::FinalTracker;
use crate::stream::jsonscan::{self, Field, FrameScanner, TopFields};
use crate::stream::lines::Lines;
use anyhow::Result;
use serde_json::Value;

mod body;
mod outcome;

pub use body::{Whole, judge_whole_body};
pub use outcome::{StreamError, classify_error};

/// Where the lines of a chat stream go.
pub trait Sink {
    /// A line to show (and save): a whole JSON object, not a repeat of one already shown.
    /// `frame` is `None` for lines passed on without being parsed (see
    /// [`Sink::wants_frames`]) and for objects that are not frames.
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
    tracker: &'a mut Tracker,
    sink: &'a mut dyn Sink,
}

impl<'a> Feed<'a> {
    /// Lines into `tracker`, shown lines on to `sink`.
    pub fn new(tracker: &'a mut Tracker, sink: &'a mut dyn Sink) -> Feed<'a> {
        Feed { tracker, sink }
    }
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

/// The state of a chat run, fed line by line.
#[derive(Debug)]
pub struct Tracker {
    /// The thread id, once `__cutoff__` said it.
    pub chat_id: Option<String>,
    /// The user's message id, from its echo.
    pub message_id: Option<String>,
    /// The final-answer rule over the frames shown (a state read's lines included).
    pub answer: FinalTracker,
    /// `usage` of `__usage__`.
    pub usage: Option<Value>,
    /// An error line, `__aborted__`, or an auth error object.
    pub error: Option<StreamError>,
    /// The message of a `__suspended__` frame not yet followed by a resume.
    pub suspended: Option<String>,
    /// `__state__` or `__usage__` arrived: the stream reached its end.
    pub ended: bool,
    /// Why the stream is incomplete: a connection lost and not resumed, or a saved stream
    /// that stops early (exit 6, what the live run would have had).
    pub lost: Option<String>,
    /// What was shown, for telling a resumed connection's repeats: O(1) memory however long
    /// the stream.
    shown: Shown,
    cutoff_seen: bool,
    /// Lines now come from a later connection: drop those already shown.
    resumed: bool,
    /// Lines now come from a state read after a drop: shown (they carry the answer), but for
    /// the frames already shown, which a read repeats.
    state_read: bool,
    /// The `__cutoff__` of a resumed connection, held back as a repeat: written just before
    /// that connection's `__state__` when the answer is not complete by then, as the mark that
    /// lets the final-answer rule take the answer from that `__state__` (the final frames were
    /// sent while the client was away).
    held_cutoff: Option<Vec<u8>>,
    /// Where the lines come from, and how far into it this line is.
    source: Source,
    /// Lines and bytes of the current response (or file) so far.
    lines: u64,
    offset: u64,
    /// Lines that were not JSON objects, skipped: how many, and the first one's description.
    skipped: u64,
    first_skipped: Option<String>,
    /// JSON objects seen in the whole run.
    objects: u64,
    /// Of those, frames of the stream (an `id`, a `role` or a `type`).
    frames: u64,
    /// The secrets registered when the run began (settings register them first).
    masker: crate::term::Masker,
    /// What the current response showed: whether it was the stream at all.
    response: body::ResponseSeen,
    /// Checks each line, learning the shapes of the stream's frames.
    scanner: FrameScanner,
}

/// Where a tracker's lines come from, for messages about lines that are not JSON.
#[derive(Clone, Debug, Default)]
pub enum Source {
    /// A response of the service, with its Content-Type.
    Response(Option<String>),
    /// A saved stream (`--replay`): its name.
    File(String),
    /// Unnamed (tests).
    #[default]
    Unnamed,
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
            usage: None,
            error: None,
            suspended: None,
            ended: false,
            lost: None,
            shown: Shown::default(),
            cutoff_seen: false,
            resumed: false,
            state_read: false,
            held_cutoff: None,
            source: Source::Unnamed,
            lines: 0,
            offset: 0,
            skipped: 0,
            first_skipped: None,
            objects: 0,
            frames: 0,
            masker: crate::term::Masker::now(),
            response: body::ResponseSeen::new(),
            scanner: FrameScanner::default(),
        }
    }

    /// Lines from now on come from `source` (a new response, or a file).
    pub fn source(&mut self, source: Source) {
        self.source = source;
        self.lines = 0;
        self.offset = 0;
        self.response = body::ResponseSeen::new();
    }

    /// A new connection of the same run begins (a resend after a drop or a suspension).
    pub fn reconnected(&mut self) {
        self.resumed = true;
        self.suspended = None;
        self.held_cutoff = None;
    }

    /// The lines that follow are a state read's, made after a drop when the turn had finished:
    /// they are shown, its `__cutoff__` included, which marks the reconnection in saved output
    /// so that `extract-final` and `--replay` take the answer from its `__state__`; frames it
    /// repeats (a `sort` at or below the highest shown: the read lists the thread's messages
    /// with the numbers they streamed with) are not.
    pub fn state_read(&mut self) {
        self.state_read = true;
        self.held_cutoff = None;
    }

    /// Whether no JSON object has arrived at all (an empty stream or file).
    pub fn saw_nothing(&self) -> bool {
        self.objects == 0
    }

    /// Whether the service streamed anything but errors: a 200 whose body is only an error
    /// document (how `docs`/`legacy` servers refuse credentials), or JSON that is no frame, is
    /// a refusal, not a stream.
    pub fn saw_stream(&self) -> bool {
        self.frames > 0
    }

    /// Lines skipped because they were not JSON objects, with the first one's description.
    pub fn skipped(&self) -> Option<(u64, &str)> {
        self.first_skipped.as_deref().map(|d| (self.skipped, d))
    }

    /// Handle one line (`raw` with its terminator, `text` without), with every registered
    /// secret masked first: a key the service echoes back (in an error line or in an answer)
    /// is `***` in every format, in `--save`, and in the answer kept here, so the live answer
    /// is the one `extract-final` and `--replay` give from the saved file.
    pub fn line(&mut self, raw: &[u8], text: &[u8], sink: &mut dyn Sink) -> Result<()> {
        let (masked, text) = self.masker.apply_line(raw, text);
        self.line_masked(&masked, &masked[text], sink)
    }

    fn line_masked(&mut self, raw: &[u8], text: &[u8], sink: &mut dyn Sink) -> Result<()> {
        let at = self.offset;
        self.offset += raw.len() as u64;
        self.lines += 1;
        if text.iter().all(u8::is_ascii_whitespace) {
            // Blank lines (keep-alives) carry nothing; writing them would only disturb readers.
            return Ok(());
        }
        // One scan validates the line and finds what the answer rule and the repeat check read.
        let mut top = TopFields::default();
        if let Err(invalid) = self.scanner.scan_frame_into(text, &mut top) {
            return self.not_json(text, at, &invalid);
        }
        self.objects += 1;
        let frame = top.id.is_some() || top.role.is_some() || top.has_type;
        self.frames += u64::from(frame);
        self.response.object(text, frame);
        // Most lines are assistant text; when the sink does not read frames, nothing of them
        // needs building.
        if !sink.wants_frames()
            && !self.state_read
            && let Some(sort) = plain_assistant(text, &top)
        {
            if self.repeat(sort, plain_id(text, &top)) {
                return Ok(());
            }
            self.after_suspension();
            self.answer.apply(&top, text);
            return sink.line(raw, None);
        }
        let frame = Frame::parse(text);
        let kind = frame.as_ref().map_or(FrameKind::Unknown, Frame::kind);
        let mut mark = false;
        if kind == FrameKind::Cutoff {
            if self.state_read {
                // A state read's own `__cutoff__`: the mark of the gap.
                mark = true;
            } else {
                match self.cutoff_marks(raw, frame.as_ref()) {
                    Some(m) => mark = m,
                    None => return Ok(()),
                }
            }
        }
        // One `__state__` ends each response, so it is never a repeat (a service may number
        // it low, as a read's second frame). Nor are the turn's events (a suspension, an
        // abort, usage, an error): each connection's are its own, and a second suspension
        // must be acted on, so they neither repeat nor move what counts as shown.
        let event = matches!(
            kind,
            FrameKind::State
                | FrameKind::Suspended
                | FrameKind::Aborted
                | FrameKind::Usage
                | FrameKind::Error
        );
        if !mark
            && !event
            && let Some(f) = &frame
            && self.repeat(f.sort.0, f.id.as_deref().unwrap_or("").as_bytes())
        {
            return Ok(());
        }
        if kind == FrameKind::State {
            self.mark_before_state(sink)?;
        }
        self.answer.apply(&top, text);
        let Some(f) = &frame else {
            return sink.line(raw, None);
        };
        if !matches!(
            kind,
            FrameKind::Cutoff | FrameKind::Usage | FrameKind::Suspended
        ) {
            self.after_suspension();
        }
        self.note(kind, f, sink)?;
        sink.line(raw, frame.as_ref())
    }

    /// A `__cutoff__` (outside a state read): `None` when it is a resend's repeat, held back
    /// as the possible mark before this connection's `__state__`; else whether it marks a
    /// reconnection in a saved stream.
    fn cutoff_marks(&mut self, raw: &[u8], frame: Option<&Frame>) -> Option<bool> {
        let mut mark = false;
        if self.cutoff_seen && !matches!(self.source, Source::File(_)) {
            // A resend's `__cutoff__` repeats the first one: not shown again, unless it
            // is needed as the mark before this connection's `__state__`.
            self.held_cutoff = Some(raw.to_vec());
            return None;
        }
        if self.cutoff_seen && self.ended {
            // A saved stream that goes on past its end (`__state__` or `__usage__`): another
            // run saved after it (files joined with `cat`, a session's turns). Its frames are
            // new, numbered from the start again; it is no reconnection, and what follows is
            // read as that run, whose end is still to come: its outcome (an error, a
            // suspension, usage) is its own, not the earlier run's. The answer rule reads on,
            // as `extract-final` does.
            self.shown = Shown::default();
            self.resumed = false;
            self.state_read = false;
            self.ended = false;
            self.error = None;
            self.suspended = None;
            self.usage = None;
            self.held_cutoff = None;
            return Some(false);
        }
        if self.cutoff_seen {
            // In a saved stream, a second `__cutoff__` marks a reconnection: a state read
            // of a finished turn (`isStreaming: false`; its lines are all shown, since
            // the answer rule reads them) or, in files saved by older versions, a resumed
            // connection whose repeats follow.
            mark = true;
            if frame.and_then(Frame::is_streaming) == Some(false) {
                self.state_read = true;
            } else {
                self.resumed = true;
            }
        }
        self.cutoff_seen = true;
        Some(mark)
    }

    /// Records what a frame says about the turn: its thread, the user's message id, the end,
    /// usage, an error, an abort or a suspension.
    fn note(&mut self, kind: FrameKind, f: &Frame, sink: &mut dyn Sink) -> Result<()> {
        match kind {
            FrameKind::Cutoff => {
                if let Some(id) = f.chat_id()
                    && self.chat_id.as_deref() != Some(id)
                {
                    self.chat_id = Some(id.to_owned());
                    sink.chat_id(id)?;
                }
            }
            FrameKind::UserEcho if self.message_id.is_none() => {
                self.message_id = f.id.0.clone();
            }
            FrameKind::State => self.ended = true,
            FrameKind::Usage => {
                // After `__suspended__`, usage closes the connection, not the turn.
                self.ended = self.suspended.is_none();
                self.usage = f.usage.0.clone();
            }
            FrameKind::Error => {
                self.error = Some(self.classify_error(f));
            }
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
        Ok(())
    }

    /// Before a resumed connection's `__state__`: when the answer is not complete, write the
    /// connection's held `__cutoff__` first, so that saved output marks the reconnection.
    fn mark_before_state(&mut self, sink: &mut dyn Sink) -> Result<()> {
        let Some(held) = self.held_cutoff.take() else {
            return Ok(());
        };
        if self.answer.has_complete_final() {
            return Ok(());
        }
        let text = held.strip_suffix(b"\n").unwrap_or(&held);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if let Ok(top) = jsonscan::scan_frame(text) {
            self.answer.apply(&top, text);
        }
        sink.line(&held, Frame::parse(text).as_ref())
    }

    /// A frame of the turn arrived after `__suspended__`: the turn was resumed (in a saved
    /// stream, where the resend is not marked otherwise).
    fn after_suspension(&mut self) {
        if self.suspended.is_some() {
            self.suspended = None;
            self.ended = false;
        }
    }

    /// A line that is not a JSON object. As the first line of a response it means the body is
    /// not the service's NDJSON at all (a sign-in page, a proxy's error): an error that says
    /// what came. Later it is skipped (never written: a reader such as `jq` would stop there)
    /// and counted.
    fn not_json(
        &mut self,
        text: &[u8],
        at: u64,
        invalid: &crate::stream::jsonscan::Invalid,
    ) -> Result<()> {
        let why = match std::str::from_utf8(text) {
            Err(e) => format!("invalid UTF-8 at byte {}", at + e.valid_up_to() as u64),
            Ok(_) => format!(
                "not a JSON object ({} at byte {})",
                invalid.expected, invalid.offset
            ),
        };
        if let (1, Source::Response(content_type)) = (self.lines, &self.source) {
            // A body that is not JSON at all by its own label (a sign-in page, a proxy's
            // text) is said at once; a JSON-labelled one may just start with a bad line.
            // A line that opens a JSON value is read on too, whatever the label: an error
            // object printed over several lines is judged whole at the body's end.
            let jsonish = content_type
                .as_deref()
                .is_some_and(|t| t.to_ascii_lowercase().contains("json"))
                || (matches!(text.trim_ascii_start().first(), Some(b'{' | b'['))
                    && std::str::from_utf8(text).is_ok());
            if !jsonish {
                if why.starts_with("invalid UTF-8") {
                    let what = content_type.as_deref().unwrap_or("no Content-Type");
                    return Err(fail(
                        Status::Failure,
                        format!("the service's answer ({what}) is not NDJSON: {why}"),
                    ));
                }
                return Err(body::not_ndjson(content_type.as_deref(), text));
            }
        }
        self.skipped += 1;
        self.response.skipped(text, self.first_skipped.is_none());
        if self.first_skipped.is_none() {
            let place = match &self.source {
                Source::File(name) => format!("line {} of {name}", self.lines),
                _ => format!("line {} of the response", self.lines),
            };
            self.first_skipped = Some(format!("{place}: {why}"));
        }
        Ok(())
    }

    /// Whether a frame with this `sort` and `id` repeats one already shown (only a resumed
    /// connection or a state read repeats frames); notes it as shown when not.
    fn repeat(&mut self, sort: Option<i64>, id: &[u8]) -> bool {
        let Some(sort) = sort else {
            return false;
        };
        let again = self.resumed || self.state_read;
        match self.shown.top {
            Some(top) if sort < top => again,
            Some(top) if sort == top => {
                if again && self.shown.has(id) {
                    return true;
                }
                self.shown.add(id);
                false
            }
            _ => {
                self.shown.top = Some(sort);
                self.shown.clear_ids();
                self.shown.add(id);
                false
            }
        }
    }
}

/// What a resumed connection must not write again (CLI.md: a repeat has the same `id` and
/// `sort`): the highest `sort` shown, and the ids shown with it. `sort` increases through a
/// stream, so a frame below the highest was shown; at the highest, the id tells. The ids live
/// in one reused buffer (a real stream has one frame a `sort`), at most [`Shown::MAX_IDS`].
#[derive(Debug, Default)]
struct Shown {
    top: Option<i64>,
    /// The ids shown at `top`, one after another; `ends` holds where each ends.
    ids: Vec<u8>,
    ends: Vec<usize>,
}

impl Shown {
    /// More frames than this sharing one `sort` is no stream a service sends: later ones are
    /// taken as new, so that memory stays bounded.
    const MAX_IDS: usize = 64;

    fn has(&self, id: &[u8]) -> bool {
        let mut start = 0;
        self.ends.iter().any(|&end| {
            let same = &self.ids[start..end] == id;
            start = end;
            same
        })
    }

    fn add(&mut self, id: &[u8]) {
        if self.ends.len() < Self::MAX_IDS {
            self.ids.extend_from_slice(id);
            self.ends.push(self.ids.len());
        }
    }

    fn clear_ids(&mut self) {
        self.ids.clear();
        self.ends.clear();
    }
}

/// The id of a frame [`plain_assistant`] passed (not escaped: an escaped one goes to the full
/// parse), as [`Frame::parse`] would read it.
fn plain_id<'a>(text: &'a [u8], top: &TopFields) -> &'a [u8] {
    match top.id {
        Some(Field::Str(span)) => &text[span.start..span.end],
        _ => b"",
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
        shown: Vec<String>,
        /// Like `-o ndjson`: frames are not read, so plain ones are not parsed.
        raw_only: bool,
    }

    impl Sink for Lines {
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
    fn repeats_after_a_resume_are_dropped() {
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        feed(&mut t, &mut s, CUT);
        feed(&mut t, &mut s, D1);
        t.reconnected();
        let state = r#"{"id":"__state__","state":{}}"#;
        for l in [CUT, D1, D2, state] {
            feed(&mut t, &mut s, l);
        }
        // The repeated `__cutoff__` comes back only as the mark before `__state__`, since
        // the answer was still incomplete there.
        assert_eq!(s.shown, [CUT, D1, D2, CUT, state]);
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
        t.source(Source::File("run.ndjson".into()));
        for l in [CUT, D1, CUT, D1, D2] {
            feed(&mut t, &mut s, l);
        }
        // The mark itself is shown (replayed output equals its input); the repeat is not.
        assert_eq!(s.shown, [CUT, D1, CUT, D2]);
        // A state read's mark (not streaming): what follows is shown whole and answers.
        let read = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":false}}"#;
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        t.source(Source::File("run.ndjson".into()));
        for l in [CUT, D1, read, STATE] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.shown, [CUT, D1, read, STATE]);
        assert_eq!(t.final_text(), Some(("Done.".into(), false)));
    }

    const STATE: &str = r#"{"id":"__state__","sort":1,"state":{"messages":[{"role":"assistant","content":"Done."}]}}"#;

    #[test]
    fn a_saved_stream_that_goes_on_past_its_end_is_another_run_not_a_resume() {
        // Two saved runs joined: the second's frames are numbered from the start again, and
        // its answer is the stream's, as `extract-final` reads it.
        let done = r#"{"id":"m","sort":3,"role":"assistant","content":"First.","isDelta":false,"graphPath":["final"]}"#;
        let end = r#"{"id":"__state__","sort":4,"state":{"messages":[]}}"#;
        let second = r#"{"id":"n","sort":1,"role":"assistant","content":"Second.","isDelta":false,"graphPath":["final"]}"#;
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        t.source(Source::File("runs.ndjson".into()));
        for l in [CUT, D1, done, end, CUT, second] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.shown, [CUT, D1, done, end, CUT, second]);
        assert_eq!(t.final_text(), Some(("Second.".into(), false)));
        // The second run has not ended yet: a replay of it is cut short.
        assert!(!t.ended);
        feed(&mut t, &mut s, end);
        assert!(t.ended);
        // An earlier run's error is not the last run's outcome.
        let failed = r#"{"error":"agent failed","requestId":"r1"}"#;
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        t.source(Source::File("runs.ndjson".into()));
        for l in [CUT, failed, end, CUT, second, end] {
            feed(&mut t, &mut s, l);
        }
        assert!(t.error.is_none());
        assert_eq!(t.final_text(), Some(("Second.".into(), false)));
        // A reconnection before the end is still one: its repeats are dropped.
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        t.source(Source::File("run.ndjson".into()));
        for l in [CUT, D1, CUT, D1, D2] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.shown, [CUT, D1, CUT, D2]);
    }

    #[test]
    fn a_state_read_is_shown_whole_and_answers() {
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        feed(&mut t, &mut s, CUT);
        feed(&mut t, &mut s, D1);
        // The drop; the turn finished meanwhile: the read's lines are shown, sort 1 included.
        t.state_read();
        feed(&mut t, &mut s, CUT);
        feed(&mut t, &mut s, STATE);
        assert_eq!(s.shown, [CUT, D1, CUT, STATE]);
        assert!(t.ended);
        assert_eq!(t.final_text(), Some(("Done.".into(), false)));
        assert!(t.outcome().is_ok());
    }

    #[test]
    fn a_resumed_connection_that_missed_the_answer_takes_it_from_its_state() {
        // The resend joined after the final frames went out: only `__state__` is left.
        let resub = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":true}}"#;
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        feed(&mut t, &mut s, CUT);
        feed(&mut t, &mut s, D1);
        t.reconnected();
        feed(&mut t, &mut s, resub);
        feed(&mut t, &mut s, STATE);
        // The held `__cutoff__` is written before `__state__` as the mark.
        assert_eq!(s.shown, [CUT, D1, resub, STATE]);
        assert_eq!(t.final_text(), Some(("Done.".into(), false)));
        // The saved lines replay to the same answer.
        let (mut r, mut out) = (Tracker::new(), Lines::default());
        r.source(Source::File("run.ndjson".into()));
        for l in s.shown.clone() {
            feed(&mut r, &mut out, &l);
        }
        assert_eq!(out.shown, s.shown);
        assert_eq!(r.final_text(), Some(("Done.".into(), false)));
        // With the complete answer already shown, the repeat stays unwritten.
        let done = r#"{"id":"m","sort":3,"role":"assistant","content":"Hi!","isDelta":false,"graphPath":["final"]}"#;
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        for l in [CUT, D1, done] {
            feed(&mut t, &mut s, l);
        }
        t.reconnected();
        feed(&mut t, &mut s, resub);
        feed(&mut t, &mut s, STATE);
        assert_eq!(s.shown, [CUT, D1, done, STATE]);
    }

    /// A repeat is the same `id` and `sort` (CLI.md), and the turn's events are never repeats:
    /// a `__suspended__` that carries a `sort` neither hides the resumed frames numbered from
    /// it nor hides the next suspension, which must be acted on too.
    #[test]
    fn a_repeat_is_the_same_id_and_sort_and_events_never_repeat() {
        let susp = r#"{"id":"__suspended__","type":"suspend","code":"chat_suspended","retryable":true,"error":"paused","sort":2}"#;
        let a1 = r#"{"id":"a1","sort":2,"role":"assistant","content":"Thinking.","isDelta":false,"graphPath":["agent"]}"#;
        let done = r#"{"id":"m","sort":3,"role":"assistant","content":"Hi!","isDelta":false,"graphPath":["final"]}"#;
        for raw_only in [false, true] {
            let mut t = Tracker::new();
            let mut s = Lines {
                raw_only,
                ..Lines::default()
            };
            for l in [CUT, D1, susp] {
                feed(&mut t, &mut s, l);
            }
            assert!(t.suspended.is_some());
            t.reconnected();
            for l in [CUT, D1, susp] {
                feed(&mut t, &mut s, l);
            }
            assert!(t.suspended.is_some(), "the second suspension is seen");
            t.reconnected();
            for l in [CUT, D1, a1, a1, done, r#"{"id":"__state__","state":{}}"#] {
                feed(&mut t, &mut s, l);
            }
            assert_eq!(
                s.shown,
                [
                    CUT,
                    D1,
                    susp,
                    susp,
                    a1,
                    done,
                    r#"{"id":"__state__","state":{}}"#
                ],
                "raw_only {raw_only}"
            );
            assert!(t.outcome().is_ok());
        }
    }

    #[test]
    fn usage_after_a_suspension_does_not_end_the_turn() {
        let susp = r#"{"id":"__suspended__","type":"suspend","code":"chat_suspended","retryable":true,"error":"paused"}"#;
        let usage = r#"{"id":"__usage__","type":"usage","usage":{"totalTokens":3}}"#;
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        for l in [CUT, D1, susp, usage] {
            feed(&mut t, &mut s, l);
        }
        assert!(t.suspended.is_some() && !t.ended, "still to be resumed");
        // In a saved stream the resumed connection's frames follow directly.
        let done = r#"{"id":"m","sort":3,"role":"assistant","content":"Hi!","isDelta":false,"graphPath":["final"]}"#;
        for l in [D2, done, STATE, usage] {
            feed(&mut t, &mut s, l);
        }
        assert!(t.suspended.is_none() && t.ended);
        assert!(t.outcome().is_ok());
    }

    #[test]
    fn lines_that_are_not_json_are_skipped_or_refused_first() {
        let (mut t, mut s) = (Tracker::new(), Lines::default());
        t.source(Source::Response(Some("application/json".into())));
        for l in [CUT, "", "{\"id\": broken", D1] {
            feed(&mut t, &mut s, l);
        }
        assert_eq!(s.shown, [CUT, D1]);
        let (n, first) = t.skipped().unwrap();
        assert_eq!(n, 1);
        assert!(first.starts_with("line 3 of the response"), "{first}");
        let mut t = Tracker::new();
        t.source(Source::Response(Some("text/html".into())));
        let err = t
            .line(
                b"<html><body>Sign in</body></html>\n",
                b"<html><body>Sign in</body></html>",
                &mut s,
            )
            .unwrap_err();
        assert!(
            format!("{err}").contains("the service answered text/html, not NDJSON"),
            "{err}"
        );
        let mut t = Tracker::new();
        t.source(Source::Response(Some("text/plain".into())));
        let err = t
            .line(b"{\"a\":\"\xff\"}\n", b"{\"a\":\"\xff\"}", &mut s)
            .unwrap_err();
        assert!(
            format!("{err}").contains("invalid UTF-8 at byte 6"),
            "{err}"
        );
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
