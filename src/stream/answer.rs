//! The final-answer rule, fed frame by frame (shared by `chat` and `extract-final`).
//!
//! The answer is the last assistant frame whose `graphPath[0]` is `"final"` and whose
//! `graphPath` has at most two elements. When that frame is a delta, the text is rebuilt from
//! that message's chunks and the answer is flagged incomplete. Optionally (`--fallback`), the
//! last complete assistant message with content stands in when there is no final frame.
//!
//! After a dropped connection, a client that finds the turn finished reads the thread's state
//! and writes that read's own lines (its `__cutoff__`, then `__state__`) into the saved stream.
//! A run (one turn's stream) ends with its `__state__` (or its `__usage__`, unless that closes
//! a suspended connection); a second `__cutoff__` within a run marks such a reconnection, and
//! a `__state__` after that mark carries the answer (the state's last assistant message with
//! text) when no final frame follows it (CLI.md). A `__cutoff__` after a run's end begins the
//! next run (files that hold several turns: a session's `/save`, `eval --save-dir`), so an
//! earlier turn's final frame never outranks a later turn's state read. A plain stream's
//! `__state__` (no mark) never stands in for an answer, so streams without final frames still
//! need `--fallback`.
//!
//! Every line goes through one pass of the tracker's [`FrameScanner`], which validates it and
//! notes where the few fields the rule reads are (a frame of a shape seen before without
//! walking its grammar again); nothing is parsed into values until the end, when the one
//! winning line is.

use crate::stream::jsonscan::{self, Field, FrameScanner, Invalid, Span, TopFields};

mod text;
use serde_json::Value;
use std::collections::HashSet;

/// The answer found in a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The answer's text.
    pub text: String,
    /// The whole message object (with `content` rebuilt when it came from chunks).
    pub message: Value,
    /// Rebuilt from chunks: the complete frame never arrived.
    pub incomplete: bool,
    /// Taken by the fallback rule, not from a `final` frame.
    pub from_fallback: bool,
    /// Taken from a state read's `__state__` after a reconnection.
    pub from_state: bool,
    /// Top-level fields of the message left out of `message`: their values hold a number
    /// beyond the range of a 64-bit float, which is valid JSON but has no `Value`.
    pub left_out: Vec<String>,
}

/// How many final messages may be unfinished (chunks without their complete frame) at once
/// before the gathered chunks are dropped; bounds memory on hostile or broken input.
const MAX_OPEN_MESSAGES: usize = 64;

/// The last frame that matched a rule, kept as its raw line, or where it is in the input.
#[derive(Debug, Default)]
struct Last {
    raw: Vec<u8>,
    /// A long line of a file is not copied: `raw` is empty and the line is the input's
    /// `len` bytes at this offset ([`FinalTracker::load_places`] reads it when needed).
    at: Option<(u64, usize)>,
    id: Vec<u8>,
    delta: bool,
    /// Where `content` is in `raw`.
    content: Option<Field>,
}

/// Follows a stream frame by frame and knows its final answer at any point.
#[derive(Debug, Default)]
pub struct FinalTracker {
    fallback: bool,
    /// Chunks are not gathered: see [`FinalTracker::without_text`].
    no_text: bool,
    final_frame: Option<Last>,
    /// Escaped content of `final` delta chunks whose complete frame has not arrived, by the raw
    /// bytes of their message id. Escaped text concatenates correctly: escapes never span chunks.
    chunks: OpenMessages,
    fallback_frame: Option<Last>,
    /// For a tracker of one block of a larger input: the ids whose complete frame it saw, so
    /// that a merge drops the chunks earlier blocks gathered for them.
    completed: Option<HashSet<Vec<u8>>>,
    /// Where the runs stand, for each state the input before this tracker's could have left
    /// them in ([`Runs`]): a block's start is not known until [`FinalTracker::merge`].
    runs: Runs,
    /// The last `__state__` line, and for each of those start states whether it was marked
    /// as a state read's (bit `i` for start state `i`).
    state: Option<(Vec<u8>, u8)>,
    /// A final frame arrived after the last `__state__`: then that state is not the answer.
    final_after_state: bool,
    /// A merge may have given another answer than one pass: see
    /// [`FinalTracker::merged_exactly`].
    inexact: bool,
    /// Checks each line, learning the shapes of the stream's frames.
    scanner: FrameScanner,
}

/// Final messages still arriving in chunks: (raw id, escaped content so far), the newest last.
/// A short list searched from the end beats a hash map here: nearly every delta extends the
/// message the previous one did, and at most [`MAX_OPEN_MESSAGES`] are open.
#[derive(Debug, Default)]
struct OpenMessages {
    open: Vec<(Vec<u8>, Vec<u8>)>,
    /// The buffers of a few messages that completed, cleared, for the next ones: a stream is
    /// one message after another, and reusing their room spares an allocation and the growth
    /// of each (a few percent of `extract-final`).
    spare: Vec<(Vec<u8>, Vec<u8>)>,
    /// The most messages open at once so far.
    peak: usize,
}

/// How many completed messages' buffers are kept, and the largest content buffer kept.
const SPARE_MESSAGES: usize = 4;
const SPARE_CAPACITY: usize = 64 << 10;

impl OpenMessages {
    fn position(&self, id: &[u8]) -> Option<usize> {
        self.open.iter().rposition(|(k, _)| k == id)
    }

    fn get(&self, id: &[u8]) -> Option<&[u8]> {
        self.position(id).map(|i| self.open[i].1.as_slice())
    }

    /// The content gathered for `id`, opened empty if new.
    fn entry(&mut self, id: &[u8]) -> &mut Vec<u8> {
        let i = match self.position(id) {
            Some(i) => i,
            None => {
                if self.open.len() >= MAX_OPEN_MESSAGES {
                    // A stream that leaves this many final messages unfinished is not one a
                    // reader can rebuild anyway; keep memory bounded instead.
                    self.open.clear();
                }
                let (mut key, content) = self.spare.pop().unwrap_or_default();
                key.extend_from_slice(id);
                self.open.push((key, content));
                self.peak = self.peak.max(self.open.len());
                self.open.len() - 1
            }
        };
        &mut self.open[i].1
    }

    fn remove(&mut self, id: &[u8]) {
        if let Some(i) = self.position(id) {
            let (mut key, mut content) = self.open.remove(i);
            if self.spare.len() < SPARE_MESSAGES && content.capacity() <= SPARE_CAPACITY {
                key.clear();
                content.clear();
                self.spare.push((key, content));
            }
        }
    }
}

/// The raw bytes of a field: a string's escaped content, or other JSON's text.
fn raw(line: &[u8], f: Option<Field>) -> &[u8] {
    match f {
        Some(Field::Str(span)) => &line[span.start..span.end],
        Some(Field::Raw(a, b)) => &line[a..b],
        None => b"",
    }
}

/// Whether a string field holds exactly `word` (escapes resolved). Inlined, so that the
/// compare of a constant word is a few loads rather than a call.
#[inline(always)]
fn is_str(line: &[u8], f: Option<Field>, word: &str) -> bool {
    match f {
        Some(Field::Str(span)) if !span.escaped => &line[span.start..span.end] == word.as_bytes(),
        Some(Field::Str(span)) => jsonscan::unescape(line, span).as_deref() == Some(word),
        _ => false,
    }
}

#[inline(always)]
fn span_is(line: &[u8], span: Option<Span>, word: &str) -> bool {
    is_str(line, span.map(Field::Str), word)
}

impl FinalTracker {
    /// A tracker; with `fallback`, the last complete assistant message with content counts when
    /// no final frame exists.
    pub fn new(fallback: bool) -> FinalTracker {
        FinalTracker {
            fallback,
            ..FinalTracker::default()
        }
    }

    /// This tracker without gathering the chunks of final messages: an answer whose complete
    /// frame never arrives is still found and flagged incomplete, but its text is empty and its
    /// message holds nothing else (its frames are not kept either). For output that never shows
    /// the text (`chat -o ndjson`), memory then stays flat however long the answer, and each
    /// delta costs less; `extract-final` reads a file so first, and again with the text only
    /// when its answer is such a message.
    pub fn without_text(self) -> FinalTracker {
        FinalTracker {
            no_text: true,
            ..self
        }
    }

    /// A tracker for one block of an input scanned in parallel; see [`FinalTracker::merge`].
    pub fn for_block(fallback: bool) -> FinalTracker {
        FinalTracker {
            fallback,
            completed: Some(HashSet::new()),
            ..FinalTracker::default()
        }
    }

    /// Fold in the tracker of the block that follows everything this one has seen: the result
    /// is what one tracker fed both inputs in order would hold.
    pub fn merge(&mut self, later: FinalTracker) {
        // One pass drops the chunks when a message opens with MAX_OPEN_MESSAGES open, which
        // happens in the later block only if the messages open here and the most it had open
        // of its own could reach the bound; a block cannot know where one pass would do it.
        if later.inexact || self.chunks.open.len() + later.chunks.peak >= MAX_OPEN_MESSAGES {
            self.inexact = true;
        }
        for id in later.completed.into_iter().flatten() {
            self.chunks.remove(&id);
        }
        for (id, chunk) in later.chunks.open {
            self.chunks.entry(&id).extend_from_slice(&chunk);
        }
        // `later`'s input began where this tracker's ended, for each of its start states.
        if let Some((raw, marked)) = later.state {
            self.state = Some((raw, self.runs.through(marked)));
            self.final_after_state = later.final_after_state;
        } else if later.final_frame.is_some() {
            self.final_after_state = true;
        }
        if later.final_frame.is_some() {
            self.final_frame = later.final_frame;
        }
        if later.fallback_frame.is_some() {
            self.fallback_frame = later.fallback_frame;
        }
        self.runs.then(&later.runs);
    }

    /// Feed one line: it is checked to be a JSON object (the error says where it is not), and
    /// remembered if the rule cares about it.
    pub fn observe(&mut self, line: &[u8]) -> Result<(), Invalid> {
        self.observe_at(line, None)
    }

    /// [`FinalTracker::observe`] for a line of a file that can be read again, at `offset`: a
    /// long line the rule remembers is then kept as its place, not copied (see
    /// [`FinalTracker::text_in_place`] and [`FinalTracker::load_places`]).
    pub fn observe_at(&mut self, line: &[u8], offset: Option<u64>) -> Result<(), Invalid> {
        let mut top = TopFields::default();
        self.scanner.scan_frame_into(line, &mut top)?;
        self.apply_at(&top, line, offset.filter(|_| line.len() >= BY_PLACE));
        Ok(())
    }

    /// Feed one line already checked by [`jsonscan::scan_frame`], with what the scan found.
    pub fn apply(&mut self, top: &TopFields, line: &[u8]) {
        self.apply_at(top, line, None);
    }

    fn apply_at(&mut self, top: &TopFields, line: &[u8], at: Option<u64>) {
        let id = raw(line, top.id);
        if id.starts_with(b"__") {
            if is_str(line, top.id, CUTOFF) {
                self.runs.cutoff();
                return;
            }
            if is_str(line, top.id, STATE) {
                self.state = Some((line.to_vec(), self.runs.state()));
                self.final_after_state = false;
                return;
            }
            if is_str(line, top.id, USAGE) {
                self.runs.usage();
                return;
            }
            if is_str(line, top.id, SUSPENDED) {
                self.runs.suspended();
                return;
            }
        }
        self.runs.other();
        if !is_str(line, top.role, "assistant") {
            return;
        }
        let is_final = top
            .graph_path
            .is_some_and(|p| p.len <= 2 && span_is(line, p.head, "final"));
        // A complete final frame without content (absent or null) holds no answer: it is
        // passed over, as if it had not come (printing an empty answer with status 0 would
        // say a question was answered).
        if is_final && !top.is_delta && top.content.is_none() {
            return;
        }
        if is_final {
            self.final_after_state = true;
            if top.is_delta {
                // Without text, nothing to gather, nor to drop: see `without_text`.
                if !self.no_text {
                    self.gather(id, top, line);
                }
            } else {
                self.chunks.remove(id);
                if let Some(completed) = &mut self.completed {
                    completed.insert(id.to_vec());
                }
            }
            // Without text, not even a delta's frame is kept: its text would be the chunks',
            // which are not. Nearly every line of a stream is such a delta: a copy of each spared.
            let (kept, kept_id) = if self.no_text && top.is_delta {
                (&b""[..], &b""[..])
            } else {
                (line, id)
            };
            let content = if kept.is_empty() { None } else { top.content };
            let at = at.filter(|_| !kept.is_empty());
            remember(
                &mut self.final_frame,
                kept,
                kept_id,
                top.is_delta,
                content,
                at,
            );
        } else if self.fallback && !top.is_delta && !top.tool_call && has_text(line, top.content) {
            remember(&mut self.fallback_frame, line, id, false, top.content, at);
        }
    }

    /// Add a final delta's content to its message's chunks.
    fn gather(&mut self, id: &[u8], top: &TopFields, line: &[u8]) {
        let chunk = self.chunks.entry(id);
        match top.content {
            Some(Field::Str(span)) => chunk.extend_from_slice(&line[span.start..span.end]),
            Some(Field::Raw(a, b)) => {
                // Non-string content: its JSON text, escaped as string content.
                let quoted =
                    Value::String(String::from_utf8_lossy(&line[a..b]).into_owned()).to_string();
                chunk.extend_from_slice(&quoted.as_bytes()[1..quoted.len() - 1]);
            }
            None => {}
        }
    }

    /// Whether the merges gave what one pass over the same lines gives. They may not when
    /// [`MAX_OPEN_MESSAGES`] final messages could have been unfinished at once: one pass then
    /// drops the chunks gathered so far at the line where it reaches the bound, which blocks
    /// scanned apart cannot see. The caller must then read the input in one pass (such input
    /// is broken or hostile: a real stream finishes one message before the next).
    pub fn merged_exactly(&self) -> bool {
        !self.inexact
    }

    /// Whether a complete (non-delta) final frame has arrived.
    pub fn has_complete_final(&self) -> bool {
        self.final_frame.as_ref().is_some_and(|l| !l.delta)
    }

    /// The answer so far, if any: a state read's answer when no final frame follows it, else a
    /// complete final frame, else a state read's answer, else a final message rebuilt from its
    /// chunks (incomplete), else the fallback.
    pub fn answer(&self) -> Option<Answer> {
        if (!self.final_after_state || !self.has_complete_final())
            && let Some(answer) = self.state_answer()
        {
            return Some(answer);
        }
        if let Some(last) = &self.final_frame {
            let (mut message, left_out) = parse_message(&last.raw);
            let text = if last.delta {
                let escaped = self.chunks.get(&last.id).unwrap_or_default();
                let rebuilt = unescape_chunks(escaped);
                message["content"] = Value::String(rebuilt.clone());
                rebuilt
            } else {
                content_text(&message)
            };
            return Some(Answer {
                text,
                message,
                incomplete: last.delta,
                from_fallback: false,
                from_state: false,
                left_out,
            });
        }
        let last = self.fallback_frame.as_ref()?;
        let (message, left_out) = parse_message(&last.raw);
        Some(Answer {
            text: content_text(&message),
            message,
            incomplete: false,
            from_fallback: true,
            from_state: false,
            left_out,
        })
    }

    /// Where the answer's text is, when it is the string content of a complete frame kept by
    /// its place in the input (a long line of a file, see [`FinalTracker::observe_at`]), and
    /// no state read's answer stands before it: the text can then be decoded from the input
    /// straight to the output, the line never copied nor the text held. None otherwise (then
    /// [`FinalTracker::load_places`] and [`FinalTracker::answer`] or
    /// [`FinalTracker::into_text_answer`]).
    pub fn text_in_place(&self) -> Option<InPlace> {
        // A state read that could answer: the usual path decides.
        if self
            .state
            .as_ref()
            .is_some_and(|(_, marked)| marked & (1 << Runs::FRESH) != 0)
        {
            return None;
        }
        let from_fallback = self.final_frame.is_none();
        let last = if from_fallback {
            self.fallback_frame.as_ref()?
        } else {
            self.final_frame.as_ref()?
        };
        match last {
            Last {
                at: Some((offset, _)),
                delta: false,
                content: Some(Field::Str(span)),
                ..
            } => Some(InPlace {
                offset: *offset,
                span: *span,
                from_fallback,
            }),
            _ => None,
        }
    }

    /// Whether a line kept by its place starts at `offset` (see [`FinalTracker::observe_at`]):
    /// the answer may need that line again.
    pub fn keeps_place(&self, offset: u64) -> bool {
        [&self.final_frame, &self.fallback_frame]
            .into_iter()
            .flatten()
            .any(|last| last.at.is_some_and(|(at, _)| at == offset))
    }

    /// Read the lines kept by their place (`read(offset, len)`), so that the answer can be
    /// made from them as from lines kept whole.
    pub fn load_places(
        &mut self,
        mut read: impl FnMut(u64, usize) -> std::io::Result<Vec<u8>>,
    ) -> std::io::Result<()> {
        for last in [&mut self.final_frame, &mut self.fallback_frame]
            .into_iter()
            .flatten()
        {
            if let Some((offset, len)) = last.at.take() {
                last.raw = read(offset, len)?;
            }
        }
        Ok(())
    }

    /// [`FinalTracker::answer`] for output that shows only the text (`extract-final`'s text
    /// format): the same text, flags and source, but `message` is null and `left_out` empty.
    /// A complete frame's string content is decoded in the remembered line's own buffer, not
    /// parsed with the rest of the line: for an answer of tens of megabytes the parse and its
    /// copies cost many times the scan of the whole file.
    pub fn into_text_answer(mut self) -> Option<Answer> {
        if (!self.final_after_state || !self.has_complete_final())
            && let Some(answer) = self.state_answer()
        {
            return Some(answer);
        }
        let from_fallback = self.final_frame.is_none();
        let slot = if from_fallback {
            &mut self.fallback_frame
        } else {
            &mut self.final_frame
        };
        match slot.take() {
            Some(Last {
                raw,
                delta: false,
                content: Some(Field::Str(span)),
                ..
            }) => Some(Answer {
                text: text::take_string(raw, span),
                message: Value::Null,
                incomplete: false,
                from_fallback,
                from_state: false,
                left_out: Vec::new(),
            }),
            other => {
                // A delta (text from its chunks) or content that is not a string: as usual.
                *slot = other;
                self.answer()
            }
        }
    }

    /// The answer of a state read after a reconnection: the last assistant message with text
    /// of a `__state__` that follows a second `__cutoff__` of its run.
    fn state_answer(&self) -> Option<Answer> {
        let (raw, marked) = self.state.as_ref()?;
        if marked & (1 << Runs::FRESH) == 0 {
            return None;
        }
        let (frame, _) = parse_message(raw);
        let (text, entry) = crate::protocol::thread::last_answer_entry(frame.get("state")?)?;
        // No frame carried this message: the object says where it comes from and holds the
        // state's entry as sent, rather than an id, `isDelta` or `graphPath` no one sent.
        let message = serde_json::json!({
            "role": "assistant",
            "content": text,
            "source": "__state__",
            "stateMessage": entry,
        });
        Some(Answer {
            text,
            message,
            incomplete: false,
            from_fallback: false,
            from_state: true,
            left_out: Vec::new(),
        })
    }
}

/// The ids of the frames that open a response and carry the thread's state, and of the
/// events that end a connection.
const CUTOFF: &str = "__cutoff__";
const STATE: &str = "__state__";
const USAGE: &str = "__usage__";
const SUSPENDED: &str = "__suspended__";

/// Where the runs of a stream stand: `__cutoff__` frames in the current run (0, 1, or 2 for
/// two or more: a reconnection's mark), and whether a `__suspended__` came last (the
/// `__usage__` after it closes the connection, not the run). A tracker of a block does not
/// know where its input began, so it follows all six start states at once,
/// state `i` being `cutoffs * 2 + suspended`; a whole input starts in [`Runs::FRESH`]. The
/// frames that move them are few (a handful a turn), so following six costs nothing.
#[derive(Clone, Copy, Debug)]
struct Runs {
    /// For each start state, the state now.
    now: [u8; 6],
    /// Whether any of them is suspended (spares the per-line check of [`Runs::other`]).
    suspended: bool,
}

impl Default for Runs {
    fn default() -> Runs {
        Runs {
            now: [0, 1, 2, 3, 4, 5],
            suspended: true,
        }
    }
}

impl Runs {
    /// No `__cutoff__` yet, nothing suspended: an input's beginning.
    const FRESH: u8 = 0;
    fn map(&mut self, f: impl Fn(u8, bool) -> (u8, bool)) {
        for s in &mut self.now {
            let (cutoffs, suspended) = f(*s / 2, *s % 2 == 1);
            *s = cutoffs.min(2) * 2 + u8::from(suspended);
        }
        self.suspended = self.now.iter().any(|s| s % 2 == 1);
    }

    fn cutoff(&mut self) {
        self.map(|c, s| (c + 1, s));
    }

    /// A `__state__` ends its run: for which start states it was a state read's (marked).
    fn state(&mut self) -> u8 {
        let marked = self
            .now
            .iter()
            .enumerate()
            .filter(|(_, s)| **s / 2 >= 2)
            .fold(0, |m, (i, _)| m | 1 << i);
        self.map(|_, _| (0, false));
        marked
    }

    /// `__usage__` ends the run, unless it closes a suspended connection (the resend goes on
    /// with the same turn).
    fn usage(&mut self) {
        self.map(|c, s| if s { (c, s) } else { (0, false) });
    }

    fn suspended(&mut self) {
        self.map(|c, _| (c, true));
    }

    /// Any other frame: a suspension before it is over. On every line, so kept to a test.
    #[inline(always)]
    fn other(&mut self) {
        if self.suspended {
            self.map(|c, _| (c, false));
        }
    }

    /// Marks made by a later input (bit `j`: marked when that input began in state `j`), for
    /// this one's start states: that input began where this one is now.
    fn through(&self, marked: u8) -> u8 {
        (0..6)
            .filter(|&i| marked & (1 << self.now[i]) != 0)
            .fold(0, |m, i| m | 1 << i)
    }

    /// These runs followed by `later`'s input.
    fn then(&mut self, later: &Runs) {
        for s in &mut self.now {
            *s = later.now[usize::from(*s)];
        }
        self.suspended = self.now.iter().any(|s| s % 2 == 1);
    }
}

/// Whether content is there and not only white space.
fn has_text(line: &[u8], content: Option<Field>) -> bool {
    match content {
        Some(Field::Str(span)) if !span.escaped => !line[span.start..span.end]
            .iter()
            .all(u8::is_ascii_whitespace),
        // Escapes resolved, a lone surrogate (valid JSON, refused by serde) as U+FFFD: a
        // message is not passed over for one.
        Some(Field::Str(span)) => !unescape_chunks(&line[span.start..span.end])
            .trim()
            .is_empty(),
        Some(Field::Raw(..)) => true,
        None => false,
    }
}

/// Parse a remembered line, with the names of the top-level fields left out. A lone surrogate
/// escape (which a server that chunks UTF-16 text can send, and serde refuses) becomes U+FFFD.
/// A line serde still refuses (a number beyond f64, say) is valid JSON all the same: its
/// fields are read one by one, and only those whose value holds such a number are left out.
fn parse_message(raw: &[u8]) -> (Value, Vec<String>) {
    let text = std::str::from_utf8(raw).unwrap_or_default();
    match parse_lenient(text) {
        Ok(message) => (message, Vec::new()),
        Err(_) => field_by_field(text),
    }
}

/// JSON text parsed, and if serde refuses it, parsed again with its lone surrogate escapes
/// made U+FFFD (the copy is made only then).
fn parse_lenient<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_str(text).or_else(|_| serde_json::from_str(&replace_lone_surrogates(text)))
}

/// The top-level fields of an object serde cannot read whole, each read on its own (in order;
/// a repeated key's last value counts, as in serde); the names of those it cannot read either.
fn field_by_field(text: &str) -> (Value, Vec<String>) {
    let mut message = serde_json::Map::new();
    let mut left_out = Vec::new();
    let Ok(RawFields(fields)) = parse_lenient(text) else {
        return (Value::Object(message), left_out);
    };
    for (key, raw) in fields {
        match parse_lenient(raw.get()) {
            Ok(value) => {
                left_out.retain(|k| *k != key);
                message.insert(key, value);
            }
            Err(_) => {
                // Not `remove`, which moves the last field into the gap (preserve_order).
                message.shift_remove(&key);
                if !left_out.contains(&key) {
                    left_out.push(key);
                }
            }
        }
    }
    (Value::Object(message), left_out)
}

/// An object's top-level fields as raw JSON text, in order: reading a value as raw text skips
/// its numbers without converting them, so one beyond f64 is no error here.
struct RawFields(Vec<(String, Box<serde_json::value::RawValue>)>);

impl<'de> serde::Deserialize<'de> for RawFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = RawFields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawFields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(RawFields(fields))
            }
        }
        d.deserialize_map(Fields)
    }
}

/// The hex value of a `\uXXXX` escape starting at `i`, if there is one.
fn escape_at(b: &[u8], i: usize) -> Option<u32> {
    if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?, 16).ok()
}

fn replace_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(b, i) {
            Some(0xD800..=0xDBFF) if matches!(escape_at(b, i + 6), Some(0xDC00..=0xDFFF)) => {
                i += 12
            } // a valid pair
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            _ => i += 2, // any other escape, including an escaped backslash
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Resolve the escapes of concatenated chunks; text that still does not decode (a lone
/// surrogate) is kept as it was sent.
fn unescape_chunks(escaped: &[u8]) -> String {
    let mut quoted = Vec::with_capacity(escaped.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(escaped);
    quoted.push(b'"');
    parse_lenient(&String::from_utf8_lossy(&quoted))
        .unwrap_or_else(|_| String::from_utf8_lossy(escaped).into_owned())
}

/// Lines at least this long are kept by their place in the input where it is known.
const BY_PLACE: usize = 64 << 10;

/// The text of an answer found in place: the string at `span` of the input's line at
/// `offset` (see [`FinalTracker::text_in_place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InPlace {
    /// The line's offset in the input.
    pub offset: u64,
    /// The content string within the line (escaped or not).
    pub span: Span,
    /// Taken by the fallback rule, not from a `final` frame.
    pub from_fallback: bool,
}

pub use text::write_decoded;

fn remember(
    slot: &mut Option<Last>,
    line: &[u8],
    id: &[u8],
    delta: bool,
    content: Option<Field>,
    at: Option<u64>,
) {
    let last = slot.get_or_insert_with(Last::default);
    last.raw.clear();
    last.at = at.map(|offset| (offset, line.len()));
    if at.is_none() {
        last.raw.extend_from_slice(line);
    } else if last.raw.capacity() > BY_PLACE {
        // A copy kept earlier: its memory is no longer needed.
        last.raw = Vec::new();
    }
    last.id.clear();
    last.id.extend_from_slice(id);
    last.delta = delta;
    last.content = content;
}

/// The `content` of a message as text (non-string content as JSON).
pub fn content_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(lines: &[&str], fallback: bool) -> Option<Answer> {
        let mut t = FinalTracker::new(fallback);
        for l in lines {
            t.observe(l.as_bytes()).unwrap();
        }
        t.answer()
    }

    /// A lone surrogate escape is valid JSON (serde refuses it): the newest message with one
    /// is still the fallback's answer, not an older one, nor none.
    #[test]
    fn the_fallback_takes_a_message_with_a_lone_surrogate() {
        let older = r#"{"id":"a","role":"assistant","content":"older answer","isDelta":false}"#;
        let newest = r#"{"id":"b","role":"assistant","content":"newest \ud83d","isDelta":false}"#;
        let answer = run(&[older, newest], true).unwrap();
        assert_eq!(answer.text, "newest \u{FFFD}");
        let alone = r#"{"role":"assistant","content":"a\ud800","isDelta":false}"#;
        assert_eq!(run(&[alone], true).unwrap().text, "a\u{FFFD}");
        // Escapes of white space only are still no text.
        let blank = r#"{"id":"c","role":"assistant","content":"\n\t ","isDelta":false}"#;
        assert_eq!(run(&[older, blank], true).unwrap().text, "older answer");
    }

    /// A field whose value holds a number beyond f64 is left out and named; the others stay,
    /// in order, a repeated key's last value counting.
    #[test]
    fn only_fields_with_a_number_beyond_f64_are_left_out() {
        let line = r#"{"id":"m","role":"assistant","content":"x \ud83d","isDelta":false,"graphPath":["final"],"big":[1e400],"sort":7,"id":"m2","big":1}"#;
        let answer = run(&[line], false).unwrap();
        assert_eq!(answer.text, "x \u{FFFD}");
        assert_eq!(
            answer.message,
            json!({"id":"m2","role":"assistant","content":"x \u{FFFD}","isDelta":false,
                "graphPath":["final"],"sort":7,"big":1})
        );
        assert!(answer.left_out.is_empty(), "{:?}", answer.left_out);
        let line = r#"{"id":"m","role":"assistant","content":"y","graphPath":["final"],"n":-1e999,"sort":7}"#;
        let answer = run(&[line], false).unwrap();
        assert_eq!(answer.left_out, ["n"]);
        assert_eq!(answer.message["sort"], 7);
        assert_eq!(answer.message["content"], "y");
        assert!(answer.message.get("n").is_none());
    }

    const D1: &str =
        r#"{"id":"f","role":"assistant","content":"Hel","isDelta":true,"graphPath":["final"]}"#;
    const D2: &str =
        r#"{"id":"f","role":"assistant","content":"lo","isDelta":true,"graphPath":["final"]}"#;
    const C: &str =
        r#"{"id":"f","role":"assistant","content":"Hello!","isDelta":false,"graphPath":["final"]}"#;

    #[test]
    fn the_complete_frame_wins() {
        let a = run(&[D1, D2, C], false).unwrap();
        assert_eq!(a.text, "Hello!");
        assert!(!a.incomplete);
        assert_eq!(a.message["id"], "f");
    }

    #[test]
    fn a_trailing_delta_is_rebuilt_and_flagged() {
        let a = run(&[D1, D2], false).unwrap();
        assert_eq!(a.text, "Hello");
        assert!(a.incomplete);
        assert_eq!(a.message["content"], "Hello");
    }

    #[test]
    fn the_last_final_frame_wins_and_deep_paths_do_not_count() {
        let other = r#"{"id":"g","role":"assistant","content":"Second","isDelta":false,"graphPath":["final","x"]}"#;
        let deep = r#"{"id":"h","role":"assistant","content":"Deep","isDelta":false,"graphPath":["final","x","y"]}"#;
        let user = r#"{"id":"u","role":"user","content":"final?","graphPath":["final"]}"#;
        assert_eq!(run(&[C, other, deep, user], false).unwrap().text, "Second");
    }

    #[test]
    fn without_text_an_unfinished_answer_is_still_found_and_incomplete() {
        let lines = [
            r#"{"id":"m","role":"assistant","content":"Hel","isDelta":true,"graphPath":["final"]}"#,
            r#"{"id":"m","role":"assistant","content":"lo","isDelta":true,"graphPath":["final"]}"#,
        ];
        let mut t = FinalTracker::new(false).without_text();
        for l in lines {
            t.observe(l.as_bytes()).unwrap();
        }
        let a = t.answer().unwrap();
        assert!(a.incomplete);
        assert_eq!(a.text, "");
        let done = r#"{"id":"m","role":"assistant","content":"Hello","isDelta":false,"graphPath":["final"]}"#;
        t.observe(done.as_bytes()).unwrap();
        assert_eq!(
            t.answer().map(|a| (a.text, a.incomplete)),
            Some(("Hello".into(), false))
        );
    }

    #[test]
    fn fallback_is_opt_in() {
        let agent = r#"{"id":"a","role":"assistant","content":"From the agent","isDelta":false,"graphPath":["data_analyst_agent"]}"#;
        let tool = r#"{"id":"t","role":"assistant","content":"x","isDelta":false,"toolCall":{"name":"q"},"graphPath":["data_analyst_agent","tools"]}"#;
        assert!(run(&[agent], false).is_none());
        let a = run(&[agent, tool], true).unwrap();
        assert_eq!(a.text, "From the agent");
        assert!(a.from_fallback);
        assert_eq!(run(&[agent, C], true).unwrap().text, "Hello!");
    }

    #[test]
    fn escaped_keys_and_values_are_not_missed() {
        let escaped = r#"{"id":"f","role":"assistant","content":"Hi","isDelta":false,"graphPath":["\u0066inal"]}"#;
        assert_eq!(run(&[escaped], false).unwrap().text, "Hi");
        let escaped_role = r#"{"id":"a","role":"\u0061ssistant","content":"Hi","isDelta":false,"graphPath":["x"]}"#;
        assert_eq!(run(&[escaped_role], true).unwrap().text, "Hi");
    }

    #[test]
    fn odd_types_do_not_break_the_rule() {
        let structured = r#"{"id":"f","role":"assistant","content":{"table":[1]},"isDelta":"no","graphPath":["final"]}"#;
        assert_eq!(run(&[structured], false).unwrap().text, r#"{"table":[1]}"#);
        let bad_path = r#"{"id":"f","role":"assistant","content":"x","graphPath":"final"}"#;
        assert!(run(&[bad_path], false).is_none());
    }

    #[test]
    fn merging_blocks_equals_one_pass_at_every_split() {
        let other =
            r#"{"id":"g","role":"assistant","content":"G","isDelta":true,"graphPath":["final"]}"#;
        let agent =
            r#"{"id":"a","role":"assistant","content":"Agent","isDelta":false,"graphPath":["x"]}"#;
        let streams: [&[&str]; 4] = [
            &[D1, D2, C],
            &[D1, C, D1, D2],
            &[D1, other, D2, agent],
            &[C, D1, other],
        ];
        for lines in streams {
            let whole = run(lines, true);
            for split in 0..=lines.len() {
                let mut acc = FinalTracker::new(true);
                for part in [&lines[..split], &lines[split..]] {
                    let mut block = FinalTracker::for_block(true);
                    for l in part {
                        block.observe(l.as_bytes()).unwrap();
                    }
                    acc.merge(block);
                }
                assert_eq!(acc.answer(), whole, "split at {split} of {lines:?}");
            }
        }
    }

    #[test]
    fn a_merge_that_could_reach_the_open_message_bound_says_it_is_not_exact() {
        let delta = |id: &str| {
            format!(
                r#"{{"id":"{id}","role":"assistant","content":"<{id}>","isDelta":true,"graphPath":["final"]}}"#
            )
        };
        // Z and 30 others open in the first block; in the second, Z again, 40 others, Z last.
        // One pass reaches 64 open messages in the second block and drops Z's first chunks.
        let first: Vec<String> = std::iter::once(delta("Z"))
            .chain((0..30).map(|i| delta(&format!("a{i}"))))
            .collect();
        let second: Vec<String> = std::iter::once(delta("Z"))
            .chain((0..40).map(|i| delta(&format!("b{i}"))))
            .chain(std::iter::once(delta("Z")))
            .collect();
        let merged = |first: &[String], second: &[String]| {
            let mut acc = FinalTracker::new(false);
            for part in [first, second] {
                let mut block = FinalTracker::for_block(false);
                for l in part {
                    block.observe(l.as_bytes()).unwrap();
                }
                acc.merge(block);
            }
            acc
        };
        let all: Vec<&str> = first.iter().chain(&second).map(String::as_str).collect();
        let one_pass = run(&all, false).unwrap();
        assert_eq!(content_text(&one_pass.message), "<Z>");
        let acc = merged(&first, &second);
        assert!(!acc.merged_exactly());
        // Well inside the bound, a merge is exact and says so.
        let acc = merged(&first[..10], &second[..10]);
        assert!(acc.merged_exactly());
        let few: Vec<&str> = first[..10]
            .iter()
            .chain(&second[..10])
            .map(String::as_str)
            .collect();
        assert_eq!(acc.answer(), run(&few, false));
    }

    #[test]
    fn a_final_line_serde_refuses_still_gives_its_answer() {
        let huge = r#"{"id":"f","role":"assistant","content":"Total: 5","isDelta":false,"graphPath":["final"],"n":-1e999}"#;
        let answer = run(&[C, huge], false).unwrap();
        assert_eq!(answer.text, "Total: 5");
        assert_eq!(answer.message["id"], "f");
    }

    const CUT: &str = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c","isStreaming":false}}"#;
    const STATE: &str = r#"{"id":"__state__","sort":1,"state":{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"From state"}]}}"#;
    const STATE2: &str = r#"{"id":"__state__","sort":9,"state":{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"From state"},{"role":"user","content":"q2"},{"role":"assistant","content":"Turn two"}]}}"#;
    const USAGE: &str = r#"{"id":"__usage__","type":"usage","usage":{}}"#;
    const SUSPENDED: &str = r#"{"id":"__suspended__","type":"suspend","retryable":true}"#;
    const ECHO: &str = r#"{"id":"2-message","role":"user","content":"q2","sort":1}"#;
    const C2: &str =
        r#"{"id":"f2","role":"assistant","content":"Two!","isDelta":false,"graphPath":["final"]}"#;

    #[test]
    fn a_state_read_after_a_reconnection_carries_the_answer() {
        // The stream was cut mid-answer; the state read's own lines follow.
        let a = run(&[CUT, D1, CUT, STATE], false).unwrap();
        assert_eq!(a.text, "From state");
        assert!(a.from_state && !a.incomplete);
        // CLI.md: the state read's answer counts when no final frame follows it, complete
        // frames before it included.
        let a = run(&[CUT, C, CUT, STATE], false).unwrap();
        assert_eq!((a.text.as_str(), a.from_state), ("From state", true));
        // A final frame after it wins.
        let a = run(&[CUT, D1, CUT, STATE, C], false).unwrap();
        assert_eq!((a.text.as_str(), a.from_state), ("Hello!", false));
    }

    /// A file of two turns (a session's `/save`, `eval --save-dir`): the second turn's state
    /// read carries its answer, not the first turn's final frame; and a second turn that
    /// ended normally has its own final frame as its answer, its `__state__` unmarked.
    #[test]
    fn a_later_turns_state_read_outranks_an_earlier_turns_final() {
        let a = run(&[CUT, C, STATE, USAGE, CUT, ECHO, CUT, STATE2], false).unwrap();
        assert_eq!((a.text.as_str(), a.from_state), ("Turn two", true));
        let a = run(&[CUT, C, STATE, CUT, ECHO, C2, STATE2, USAGE], false).unwrap();
        assert_eq!((a.text.as_str(), a.from_state), ("Two!", false));
        // A turn that ended with usage and no state (an error, an abort) ends its run too.
        let a = run(&[CUT, C, USAGE, CUT, ECHO, C2, STATE2], false).unwrap();
        assert_eq!((a.text.as_str(), a.from_state), ("Two!", false));
        // The usage that closes a suspended connection does not: the resend's mark still
        // marks that turn's state read.
        let a = run(&[CUT, D1, SUSPENDED, USAGE, CUT, STATE2], false).unwrap();
        assert_eq!((a.text.as_str(), a.from_state), ("Turn two", true));
    }

    /// A final frame without content holds no answer: the one before it stands, or none.
    #[test]
    fn a_final_frame_without_content_is_no_answer() {
        let empty =
            r#"{"id":"g","role":"assistant","content":null,"isDelta":false,"graphPath":["final"]}"#;
        let absent = r#"{"id":"g","role":"assistant","isDelta":false,"graphPath":["final"]}"#;
        assert_eq!(run(&[C, empty], false).unwrap().text, "Hello!");
        assert_eq!(run(&[C, absent], false).unwrap().text, "Hello!");
        assert!(run(&[empty], false).is_none());
    }

    #[test]
    fn a_plain_streams_state_is_no_answer() {
        // Without the reconnection mark, `__state__` does not stand in for a final frame.
        assert!(run(&[CUT, STATE], false).is_none());
        assert_eq!(run(&[CUT, D1, STATE], false).unwrap().text, "Hel");
    }

    #[test]
    fn the_state_rule_survives_every_block_split() {
        let streams: [&[&str]; 8] = [
            &[CUT, D1, CUT, STATE],
            &[CUT, STATE, CUT, STATE],
            &[CUT, STATE],
            &[CUT, C, CUT, STATE],
            &[CUT, D1, CUT, STATE, C],
            &[CUT, C, STATE, USAGE, CUT, ECHO, CUT, STATE2],
            &[CUT, C, STATE, CUT, ECHO, C2, STATE2, USAGE],
            &[CUT, D1, SUSPENDED, USAGE, CUT, STATE2],
        ];
        for lines in streams {
            let whole = run(lines, false);
            // Every split into three blocks (two cuts), merged left to right, and also with
            // the last two blocks merged first: the merge is associative.
            for a in 0..=lines.len() {
                for b in a..=lines.len() {
                    let block = |part: &[&str]| {
                        let mut t = FinalTracker::for_block(false);
                        for l in part {
                            t.observe(l.as_bytes()).unwrap();
                        }
                        t
                    };
                    let mut acc = FinalTracker::new(false);
                    for part in [&lines[..a], &lines[a..b], &lines[b..]] {
                        acc.merge(block(part));
                    }
                    assert_eq!(acc.answer(), whole, "split at {a}, {b} of {lines:?}");
                    let mut tail = block(&lines[a..b]);
                    tail.merge(block(&lines[b..]));
                    let mut acc = FinalTracker::new(false);
                    acc.merge(block(&lines[..a]));
                    acc.merge(tail);
                    assert_eq!(acc.answer(), whole, "split at {a}, ({b}) of {lines:?}");
                }
            }
        }
    }

    #[test]
    fn malformed_lines_are_errors() {
        let mut t = FinalTracker::new(false);
        assert!(t.observe(br#"{"graphPath":["final"]"#).is_err());
        assert!(t.observe(br#"[1]"#).is_err());
        assert!(t.observe(br#"{"other":1}"#).is_ok());
    }

    #[test]
    fn escaped_chunks_are_rebuilt_exactly() {
        // A surrogate pair split across two chunks comes back whole.
        let a = r#"{"id":"f","role":"assistant","content":"say \"hi\" \ud83d","isDelta":true,"graphPath":["final"]}"#;
        let b = r#"{"id":"f","role":"assistant","content":"\ude00 \u20ac\n","isDelta":true,"graphPath":["final"]}"#;
        let answer = run(&[a, b], false).unwrap();
        assert_eq!(answer.text, "say \"hi\" \u{1F600} \u{20AC}\n");
        assert_eq!(answer.message["content"], answer.text);
        let lone = r#"{"id":"f","role":"assistant","content":"a\\\"q\ud800b","isDelta":true,"graphPath":["final"]}"#;
        assert_eq!(run(&[lone], false).unwrap().text, "a\\\"q\u{FFFD}b");
        assert_eq!(
            replace_lone_surrogates(r#"a\\ud83d \ud83d\ude00 \ud83d"#),
            r#"a\\ud83d \ud83d\ude00 \ufffd"#
        );
    }
}
