//! The byte-at-a-time scanner: the first one, kept to say exactly where and why a line is not a
//! JSON object (the structural-index scanner only says whether it is).

use super::{
    BitStack, Field, GraphPath, Invalid, Key, MAX_DEPTH, Span, TopFields, key_of, unescape,
    utf8_len,
};

/// One object filling the whole line (white space aside), read by `body`.
pub(super) fn scan_whole<'s>(
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

pub(super) struct Scanner<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    pub(super) top: TopFields,
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
pub(super) fn special_lanes(w: u64) -> u64 {
    let quote = zero_bytes(w ^ (LO * b'"' as u64));
    let backslash = zero_bytes(w ^ (LO * b'\\' as u64));
    let control = zero_bytes(w & (LO * 0xE0));
    quote | backslash | control | (w & HI)
}

/// The offset of the first byte at or after `i` that ends a run of plain string bytes (a quote,
/// a backslash, a control character or a non-ASCII byte), or `s.len()`. Sixteen bytes at a time
/// with SSE2 (part of every x86_64), then eight at a time in a machine word.
#[inline(always)]
pub(super) fn skip_plain(s: &[u8], mut i: usize) -> usize {
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
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    pub(super) fn err(&self, expected: &'static str) -> Invalid {
        Invalid {
            offset: self.i,
            expected,
        }
    }

    #[inline]
    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// The line's object, at its `{`: its keys are matched and the values of the keys the rule
    /// reads noted; nested values are only validated (see [`Scanner::nested`]), so most tokens
    /// of a line cost no bookkeeping.
    pub(super) fn object(&mut self) -> Result<(), Invalid> {
        self.i += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            let key = self.key(true)?;
            self.top.forget(key);
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
                    self.top.record_raw(key, start, self.i);
                }
                _ => {
                    self.nested(1)?;
                    self.top.record_raw(key, start, self.i);
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

    /// `"key"` then `:`; at the top level, returns which rule-relevant key it is.
    #[inline]
    pub(super) fn key(&mut self, top_level: bool) -> Result<Key, Invalid> {
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
    pub(super) fn string(&mut self) -> Result<Span, Invalid> {
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

    pub(super) fn literal(&mut self, word: &[u8]) -> Result<(), Invalid> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(self.err("true, false or null"))
        }
    }

    pub(super) fn number(&mut self) -> Result<(), Invalid> {
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
