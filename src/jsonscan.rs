//! A validating JSON scanner that builds nothing: it answers "is this line one JSON object?"
//! at close to memory speed, and on the way notes where the few top-level fields that the
//! final-answer rule needs are (`id`, `role`, `content`, `isDelta`, `graphPath`, `toolCall`),
//! and the two a chat relay needs to pass a frame on without parsing it (`sort`, `type`).
//!
//! Strings, which make up most of a chat stream, are skipped eight bytes at a time: only a byte
//! that is a quote, a backslash, a control character or non-ASCII stops the skip, and the
//! position of that byte comes straight from the word's bit mask. UTF-8 is validated as part of
//! the same pass (non-ASCII bytes may only appear inside strings).

mod precise;

/// Why a line is not a JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Byte offset where the problem was found.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
}

/// The most containers nested in one another (the line's own object included). Deeper input is
/// reported invalid: serde_json, which reads a winning line later, refuses 128 levels, and a
/// line this scanner accepts must not vanish there.
pub const MAX_DEPTH: usize = 127;

/// The bytes between a string's quotes, still escaped when `escaped` is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte after the opening quote.
    pub start: usize,
    /// The closing quote's offset.
    pub end: usize,
    /// Whether the string holds escapes.
    pub escaped: bool,
}

/// A top-level value the rule reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A string.
    Str(Span),
    /// Anything else but null, as the raw JSON text's byte range.
    Raw(usize, usize),
}

/// `graphPath`: its first element (when a string) and its length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphPath {
    /// The first element, if it is a string.
    pub head: Option<Span>,
    /// How many elements.
    pub len: usize,
}

/// Where the top-level fields the final-answer rule needs are in a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopFields {
    /// `id`.
    pub id: Option<Field>,
    /// `role`.
    pub role: Option<Field>,
    /// `content`.
    pub content: Option<Field>,
    /// `isDelta` is `true`.
    pub is_delta: bool,
    /// `graphPath`, when it is an array.
    pub graph_path: Option<GraphPath>,
    /// `toolCall` is present and not null.
    pub tool_call: bool,
    /// `sort`.
    pub sort: Option<Field>,
    /// `type` is present and not null.
    pub has_type: bool,
}

/// Check that `s` is exactly one JSON object (valid UTF-8 included), with optional surrounding
/// white space.
pub fn check_object(s: &[u8]) -> Result<(), Invalid> {
    scan_frame(s).map(|_| ())
}

/// Check that `s` is one JSON object and note where its rule-relevant top-level fields are.
pub fn scan_frame(s: &[u8]) -> Result<TopFields, Invalid> {
    precise::scan_whole(s, |p| p.object())
}

/// Which top-level key the scanner is under.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Other,
    Id,
    Role,
    Content,
    IsDelta,
    GraphPath,
    ToolCall,
    Sort,
    Type,
}

#[inline]
fn key_of(name: &[u8]) -> Key {
    // Every key of every line comes through here: compare fixed-size arrays, which compile to
    // a load and a compare, rather than slices, which call memcmp.
    fn is<const N: usize>(name: &[u8], word: &[u8; N]) -> bool {
        <&[u8; N]>::try_from(name).is_ok_and(|n| n == word)
    }
    match name.len() {
        2 if is(name, b"id") => Key::Id,
        4 if is(name, b"role") => Key::Role,
        4 if is(name, b"sort") => Key::Sort,
        4 if is(name, b"type") => Key::Type,
        7 if is(name, b"content") => Key::Content,
        7 if is(name, b"isDelta") => Key::IsDelta,
        8 if is(name, b"toolCall") => Key::ToolCall,
        9 if is(name, b"graphPath") => Key::GraphPath,
        _ => Key::Other,
    }
}

/// A stack of up to 128 open containers as bits (1 = object).
#[derive(Default)]
struct BitStack {
    bits: u128,
    len: usize,
}

impl BitStack {
    #[inline]
    fn push(&mut self, is_object: bool) {
        self.bits = (self.bits << 1) | u128::from(is_object);
        self.len += 1;
    }
    #[inline]
    fn pop(&mut self) {
        self.bits >>= 1;
        self.len -= 1;
    }
    #[inline]
    fn last_is_object(&self) -> bool {
        self.bits & 1 == 1
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
}

impl TopFields {
    /// A top-level key seen (again): its earlier value no longer counts, so that with duplicate
    /// keys the last one wins, as it does for serde_json.
    fn forget(&mut self, key: Key) {
        match key {
            Key::Id => self.id = None,
            Key::Role => self.role = None,
            Key::Content => self.content = None,
            Key::IsDelta => self.is_delta = false,
            Key::GraphPath => self.graph_path = None,
            Key::ToolCall => self.tool_call = false,
            Key::Sort => self.sort = None,
            Key::Type => self.has_type = false,
            Key::Other => {}
        }
    }

    /// A top-level non-string value just ended at `end`.
    fn record_raw(&mut self, key: Key, start: usize, end: usize) {
        match key {
            Key::Id => self.id = Some(Field::Raw(start, end)),
            Key::Role => self.role = Some(Field::Raw(start, end)),
            Key::Content => self.content = Some(Field::Raw(start, end)),
            Key::ToolCall => self.tool_call = true,
            Key::Sort => self.sort = Some(Field::Raw(start, end)),
            Key::Type => self.has_type = true,
            _ => {}
        }
    }
}

/// The length of the well-formed UTF-8 sequence at the start of `s` (Unicode Table 3-7), or
/// None when it is not one.
fn utf8_len(s: &[u8]) -> Option<usize> {
    let cont = |i: usize, lo: u8, hi: u8| s.get(i).is_some_and(|b| (lo..=hi).contains(b));
    let tail = |from: usize, to: usize| (from..to).all(|i| cont(i, 0x80, 0xBF));
    match s[0] {
        0xC2..=0xDF if tail(1, 2) => Some(2),
        0xE0 if cont(1, 0xA0, 0xBF) && tail(2, 3) => Some(3),
        0xE1..=0xEC | 0xEE..=0xEF if tail(1, 3) => Some(3),
        0xED if cont(1, 0x80, 0x9F) && tail(2, 3) => Some(3),
        0xF0 if cont(1, 0x90, 0xBF) && tail(2, 4) => Some(4),
        0xF1..=0xF3 if tail(1, 4) => Some(4),
        0xF4 if cont(1, 0x80, 0x8F) && tail(2, 4) => Some(4),
        _ => None,
    }
}

/// The text of a string span, escapes resolved; None if the escapes are not valid text (e.g. a
/// lone surrogate).
pub fn unescape(s: &[u8], span: Span) -> Option<String> {
    if !span.escaped {
        return std::str::from_utf8(&s[span.start..span.end])
            .ok()
            .map(str::to_owned);
    }
    serde_json::from_slice(&s[span.start - 1..=span.end]).ok()
}

#[cfg(test)]
mod tests;
