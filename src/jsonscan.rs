//! A validating JSON scanner that builds nothing: it answers "is this line one JSON object?"
//! at close to memory speed, and on the way notes where the few top-level fields that the
//! final-answer rule needs are (`id`, `role`, `content`, `isDelta`, `graphPath`, `toolCall`),
//! and the two a chat relay needs to pass a frame on without parsing it (`sort`, `type`).
//!
//! Strings, which make up most of a chat stream, are skipped eight bytes at a time: only a byte
//! that is a quote, a backslash, a control character or non-ASCII stops the skip, and the
//! position of that byte comes straight from the word's bit mask. UTF-8 is validated as part of
//! the same pass (non-ASCII bytes may only appear inside strings).

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

/// [`scan_frame`] with the scanner that came before it, for tests.
#[cfg(test)]
fn scan_frame_reference(s: &[u8]) -> Result<TopFields, Invalid> {
    scan_whole(s, |p| p.value())
}

/// Check that `s` is one JSON object and note where its rule-relevant top-level fields are.
pub fn scan_frame(s: &[u8]) -> Result<TopFields, Invalid> {
    scan_whole(s, |p| p.object())
}

/// One object filling the whole line (white space aside), read by `body`.
fn scan_whole<'s>(
    s: &'s [u8],
    body: impl FnOnce(&mut Scanner<'s>) -> Result<(), Invalid>,
) -> Result<TopFields, Invalid> {
    let mut p = Scanner {
        s,
        i: 0,
        top: TopFields::default(),
    };
    p.ws();
    if p.peek() != Some(b'{') {
        return Err(p.err("'{' (a JSON object)"));
    }
    body(&mut p)?;
    p.ws();
    if p.i != s.len() {
        return Err(p.err("end of line after the object"));
    }
    Ok(p.top)
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

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
    top: TopFields,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// High bit set in each lane of `w` that is zero (exact: no carries between lanes).
#[inline]
fn zero_bytes(w: u64) -> u64 {
    !(((w & !HI).wrapping_add(!HI)) | w | !HI)
}

/// High bit set in each lane of `w` holding `"`, `\`, a control character, or a non-ASCII byte.
#[inline]
fn special_lanes(w: u64) -> u64 {
    let quote = zero_bytes(w ^ (LO * b'"' as u64));
    let backslash = zero_bytes(w ^ (LO * b'\\' as u64));
    let control = zero_bytes(w & (LO * 0xE0));
    quote | backslash | control | (w & HI)
}

/// The offset of the first byte at or after `i` that ends a run of plain string bytes (a quote,
/// a backslash, a control character or a non-ASCII byte), or `s.len()`. Sixteen bytes at a time
/// with SSE2 (part of every x86_64), then eight at a time in a machine word.
#[inline(always)]
fn skip_plain(s: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is always available on x86_64, and every load reads 16 bytes that lie
        // inside `s` (checked by the loop condition).
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let space = _mm_set1_epi8(0x20);
            while i + 16 <= s.len() {
                let v = _mm_loadu_si128(s.as_ptr().add(i).cast());
                // Signed compare: bytes 0x80..=0xFF are negative, so "< 0x20" also catches
                // non-ASCII bytes.
                let stop = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                    _mm_cmplt_epi8(v, space),
                );
                let mask = _mm_movemask_epi8(stop);
                if mask != 0 {
                    return i + mask.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
    }
    while let Some(chunk) = s.get(i..i + 8) {
        let lanes = special_lanes(u64::from_le_bytes(chunk.try_into().unwrap()));
        if lanes != 0 {
            return i + (lanes.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < s.len() && !matches!(s[i], b'"' | b'\\' | 0..=0x1F | 0x80..=0xFF) {
        i += 1;
    }
    i
}

impl Scanner<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn err(&self, expected: &'static str) -> Invalid {
        Invalid {
            offset: self.i,
            expected,
        }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// The line's object, at its `{`: its keys are matched and the values of the keys the rule
    /// reads noted; nested values are only validated (see [`Scanner::nested`]), so most tokens
    /// of a line cost no bookkeeping.
    fn object(&mut self) -> Result<(), Invalid> {
        self.i += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            let key = self.key(true)?;
            self.forget(key);
            self.ws();
            let start = self.i;
            match self.peek() {
                Some(b'"') => {
                    let span = self.string()?;
                    match key {
                        Key::Id => self.top.id = Some(Field::Str(span)),
                        Key::Role => self.top.role = Some(Field::Str(span)),
                        Key::Content => self.top.content = Some(Field::Str(span)),
                        Key::ToolCall => self.top.tool_call = true,
                        Key::Sort => self.top.sort = Some(Field::Str(span)),
                        Key::Type => self.top.has_type = true,
                        _ => {}
                    }
                }
                Some(b'[') if key == Key::GraphPath => self.graph_path()?,
                Some(b'n') => self.literal(b"null")?, // null reads as absent
                Some(b't') => {
                    self.literal(b"true")?;
                    if key == Key::IsDelta {
                        self.top.is_delta = true;
                    }
                    self.record_raw(key, start, self.i);
                }
                _ => {
                    self.nested(1)?;
                    self.record_raw(key, start, self.i);
                }
            }
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err("',' or '}'")),
            }
        }
    }

    /// `graphPath`'s array, at its `[`: count the elements and keep the first if a string.
    fn graph_path(&mut self) -> Result<(), Invalid> {
        let mut path = GraphPath::default();
        self.i += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.top.graph_path = Some(path);
            return Ok(());
        }
        loop {
            self.ws();
            path.len += 1;
            if self.peek() == Some(b'"') {
                let span = self.string()?;
                if path.len == 1 {
                    path.head = Some(span);
                }
            } else {
                self.nested(2)?;
            }
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.top.graph_path = Some(path);
                    return Ok(());
                }
                _ => return Err(self.err("',' or ']'")),
            }
        }
    }

    /// One value inside `outer` open containers, validated and skipped, without recursion: a
    /// stack of open containers (true = object), kept as bits so that no line costs an
    /// allocation.
    fn nested(&mut self, outer: usize) -> Result<(), Invalid> {
        let mut stack = BitStack::default();
        loop {
            self.ws();
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.i += 1;
                    self.ws();
                    if outer + stack.len() >= MAX_DEPTH {
                        return Err(self.err("less nesting"));
                    }
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.i += 1;
                    } else {
                        stack.push(open == b'{');
                        if open == b'{' {
                            self.key(false)?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(self.err("a value")),
            }
            // After a value: close containers or move to the next element.
            loop {
                if stack.len() == 0 {
                    return Ok(());
                }
                let is_object = stack.last_is_object();
                self.ws();
                match (self.peek(), is_object) {
                    (Some(b','), true) => {
                        self.i += 1;
                        self.ws();
                        self.key(false)?;
                        break;
                    }
                    (Some(b','), false) => {
                        self.i += 1;
                        break;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.i += 1;
                        stack.pop();
                    }
                    (_, true) => return Err(self.err("',' or '}'")),
                    (_, false) => return Err(self.err("',' or ']'")),
                }
            }
        }
    }

    /// The scanner before [`Scanner::object`] split the line's own object from nested values:
    /// one loop for everything. Kept for tests, as the reference the new one must agree with.
    #[cfg(test)]
    fn value(&mut self) -> Result<(), Invalid> {
        let mut stack = BitStack::default();
        // The top-level key being read, and where its value started when it is a container.
        let mut key = Key::Other;
        let mut container_start = 0;
        loop {
            self.ws();
            let depth = stack.len();
            let start = self.i;
            // graphPath elements: count them and keep the first if it is a string.
            let in_path = depth == 2 && key == Key::GraphPath && !stack.last_is_object();
            let scalar = match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.i += 1;
                    self.ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if depth >= MAX_DEPTH {
                        return Err(self.err("less nesting"));
                    }
                    if in_path {
                        self.top
                            .graph_path
                            .get_or_insert_with(GraphPath::default)
                            .len += 1;
                    }
                    if depth == 1 && key == Key::GraphPath && open == b'[' {
                        self.top.graph_path = Some(GraphPath::default());
                    }
                    if self.peek() == Some(close) {
                        self.i += 1;
                        true
                    } else {
                        if depth == 1 {
                            container_start = start;
                        }
                        stack.push(open == b'{');
                        if open == b'{' {
                            let name = self.key(stack.len() == 1)?;
                            if stack.len() == 1 {
                                key = name;
                                self.forget(key);
                            }
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    let span = self.string()?;
                    if depth == 1 {
                        match key {
                            Key::Id => self.top.id = Some(Field::Str(span)),
                            Key::Role => self.top.role = Some(Field::Str(span)),
                            Key::Content => self.top.content = Some(Field::Str(span)),
                            Key::ToolCall => self.top.tool_call = true,
                            Key::Sort => self.top.sort = Some(Field::Str(span)),
                            Key::Type => self.top.has_type = true,
                            _ => {}
                        }
                    } else if in_path {
                        let path = self.top.graph_path.get_or_insert_with(GraphPath::default);
                        path.len += 1;
                        if path.len == 1 {
                            path.head = Some(span);
                        }
                    }
                    false
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    if depth == 1 && key == Key::IsDelta {
                        self.top.is_delta = true;
                    }
                    true
                }
                Some(b'f') => self.literal(b"false").map(|_| true)?,
                Some(b'n') => {
                    self.literal(b"null")?;
                    if in_path {
                        self.top
                            .graph_path
                            .get_or_insert_with(GraphPath::default)
                            .len += 1;
                    }
                    false // null reads as absent
                }
                Some(b'-' | b'0'..=b'9') => self.number().map(|_| true)?,
                _ => return Err(self.err("a value")),
            };
            if scalar {
                if in_path && !matches!(self.s[start], b'{' | b'[') {
                    self.top
                        .graph_path
                        .get_or_insert_with(GraphPath::default)
                        .len += 1;
                }
                if depth == 1 {
                    self.record_raw(key, start, self.i);
                }
            }
            // After a value: close containers or move to the next element.
            loop {
                if stack.len() == 0 {
                    return Ok(());
                }
                let is_object = stack.last_is_object();
                self.ws();
                match (self.peek(), is_object) {
                    (Some(b','), true) => {
                        self.i += 1;
                        self.ws();
                        let name = self.key(stack.len() == 1)?;
                        if stack.len() == 1 {
                            key = name;
                            self.forget(key);
                        }
                        break;
                    }
                    (Some(b','), false) => {
                        self.i += 1;
                        break;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.i += 1;
                        stack.pop();
                        if stack.len() == 1 {
                            self.record_raw(key, container_start, self.i);
                        }
                    }
                    (_, true) => return Err(self.err("',' or '}'")),
                    (_, false) => return Err(self.err("',' or ']'")),
                }
            }
        }
    }

    /// A top-level key seen (again): its earlier value no longer counts, so that with duplicate
    /// keys the last one wins, as it does for serde_json.
    fn forget(&mut self, key: Key) {
        match key {
            Key::Id => self.top.id = None,
            Key::Role => self.top.role = None,
            Key::Content => self.top.content = None,
            Key::IsDelta => self.top.is_delta = false,
            Key::GraphPath => self.top.graph_path = None,
            Key::ToolCall => self.top.tool_call = false,
            Key::Sort => self.top.sort = None,
            Key::Type => self.top.has_type = false,
            Key::Other => {}
        }
    }

    /// A top-level non-string value just ended at `end`.
    fn record_raw(&mut self, key: Key, start: usize, end: usize) {
        match key {
            Key::Id => self.top.id = Some(Field::Raw(start, end)),
            Key::Role => self.top.role = Some(Field::Raw(start, end)),
            Key::Content => self.top.content = Some(Field::Raw(start, end)),
            Key::ToolCall => self.top.tool_call = true,
            Key::Sort => self.top.sort = Some(Field::Raw(start, end)),
            Key::Type => self.top.has_type = true,
            _ => {}
        }
    }

    /// `"key"` then `:`; at the top level, returns which rule-relevant key it is.
    #[inline]
    fn key(&mut self, top_level: bool) -> Result<Key, Invalid> {
        if self.peek() != Some(b'"') {
            return Err(self.err("a string key"));
        }
        let span = self.string()?;
        self.ws();
        if self.peek() != Some(b':') {
            return Err(self.err("':'"));
        }
        self.i += 1;
        Ok(if !top_level {
            Key::Other
        } else if span.escaped {
            unescape(self.s, span).map_or(Key::Other, |k| key_of(k.as_bytes()))
        } else {
            key_of(&self.s[span.start..span.end])
        })
    }

    #[inline(always)]
    fn string(&mut self) -> Result<Span, Invalid> {
        self.i += 1; // opening quote
        let start = self.i;
        let mut escaped = false;
        let s = self.s;
        loop {
            self.i = skip_plain(s, self.i);
            match s.get(self.i) {
                None => return Err(self.err("a closing '\"'")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Span {
                        start,
                        end: self.i - 1,
                        escaped,
                    });
                }
                Some(b'\\') => {
                    escaped = true;
                    self.i += 1;
                    match s.get(self.i) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') => {
                            let hex = s.get(self.i + 1..self.i + 5);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                return Err(self.err("four hex digits after \\u"));
                            }
                            self.i += 5;
                        }
                        _ => return Err(self.err("a valid escape")),
                    }
                }
                Some(&b) if b < 0x20 => return Err(self.err("no control character in a string")),
                Some(&b) if b >= 0x80 => {
                    self.i += utf8_len(&s[self.i..]).ok_or(Invalid {
                        offset: self.i,
                        expected: "valid UTF-8",
                    })?
                }
                Some(_) => self.i += 1,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Invalid> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(self.err("true, false or null"))
        }
    }

    fn number(&mut self) -> Result<(), Invalid> {
        let digits = |p: &mut Self| {
            let start = p.i;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.i += 1;
            }
            p.i > start
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.err("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !digits(self) {
                return Err(self.err("a digit after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.err("a digit in the exponent"));
            }
        }
        Ok(())
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
