//! A line read along the shape of the line before it, without classifying its structure.
//!
//! Most lines of a stream are of the kind of the line before (a thinking delta follows a
//! thinking delta). Such a line is its shape's line with other text in its strings and other
//! digits in its numbers: every other byte (structure, key names, literals, the white space
//! between) is the same. So the shape also keeps its line as a [`Path`]: fixed bytes, strings'
//! texts and numbers, in order. A line is read along it from its first byte: the fixed bytes
//! are compared (up to 64 at a time), a text is read to its closing quote, which the next fixed
//! bytes begin with, and a number to its last digit. Only the texts' bytes are classified, for
//! the four things a string's text can hold that matter (a quote, a backslash, a control
//! character, a byte of a multi-byte character), one compare each per 64 bytes.
//!
//! A line read to its end this way is valid exactly when the walk says so, with the same
//! fields: it is the shape's valid line with each text replaced by a valid string's text (no
//! control character, valid escapes, well-formed UTF-8, ended by a quote no backslash escapes)
//! and each number by a valid number (its end is where the shape's next fixed bytes begin, and
//! they are the shape's). Anything else (another kind of line, an invalid byte, a string
//! longer than the line) stops the reading, and the line is scanned as it was before: the
//! path only ever says yes.
//!
//! A path is read 64 bytes at a step with AVX-512 ([`Avx512`]) or AVX2 ([`super::avx2`], for
//! CPUs without the shapes' scan, where paths are the only way past the walk): [`Lanes`] is
//! what the two widths do differently, the reading itself is one.

use super::super::super::{Field, GraphPath, Span, TopFields};
use super::super::classify::{Avx512, Classify};
use super::super::{atom, closing_quote, escaped_bytes, number};
use super::{Fixed, MAX_TOKENS};
use simdutf8::basic::imp::ChunkedUtf8Validator;
use simdutf8::basic::imp::x86::avx2::ChunkedUtf8ValidatorImp as Chunked;
use std::arch::x86_64::*;

/// No field: see [`Step::Text`].
const NO_FIELD: u8 = u8::MAX;

/// The fields a path finds, by slot: `id`, `role`, `content`, `sort`, `graphPath`'s head.
pub(super) const FIELDS: usize = 5;

/// What a field's value is on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Absent,
    Text,
    Number,
}

/// One step along a line.
enum Step {
    /// Bytes the line repeats, in the path's `fixed`.
    Fixed(Fixed),
    /// A string's text, up to its closing quote, which the next step's bytes begin with; the
    /// field slot it gives, or [`NO_FIELD`].
    Text { field: u8 },
    /// A number, and the field slot it gives, or [`NO_FIELD`].
    Number { field: u8 },
}

/// A shape's line as steps, and which fields they give.
pub(super) struct Path {
    steps: Box<[Step]>,
    /// The fixed steps' bytes, one after another, and 64 zero bytes after them (so that a step
    /// is read with whole-register loads, [`Lanes::found`]).
    fixed: Box<[u8]>,
    kinds: [Kind; FIELDS],
    /// What the line's fixed bytes say, and every line of the path repeats.
    flags: Flags,
}

/// The fields that fixed bytes decide: `isDelta` is `true`, `graphPath`'s length, `toolCall`
/// and `type` present.
#[derive(Clone, Copy)]
struct Flags {
    is_delta: bool,
    graph_path: Option<usize>,
    tool_call: bool,
    has_type: bool,
}

/// A token of a shape's valid line whose bytes are each line's own (any other token's bytes,
/// structure, top-level keys and literals, every line of the shape repeats).
#[derive(Clone, Copy)]
enum Token {
    /// A value's string (or a nested key): its text is the line's own.
    Text { closing: usize },
    /// A number, and where it ends.
    Number { end: usize },
}

/// Makes a [`Path`] from a valid line's tokens, in order.
struct Builder<'a> {
    s: &'a [u8],
    steps: Vec<Step>,
    fixed: Vec<u8>,
    /// Where the fixed bytes not in a step yet begin.
    from: usize,
    kinds: [Kind; FIELDS],
    /// Per field slot, its value's token, if it is a text or a number.
    tokens: [Option<u16>; FIELDS],
    flags: Flags,
}

/// The number of the token of a line that starts at `offset`, its tokens starting at `pos`.
#[inline]
pub(super) fn token_at(pos: &[u16], offset: usize) -> Option<u16> {
    let i = pos.binary_search(&u16::try_from(offset).ok()?).ok()?;
    u16::try_from(i).ok()
}

/// The path of the valid line `s` (at most [`super::MAX_LINE`] bytes), whose tokens start at
/// `pos`, and whose fields the walk found (`top`): None when a field the rule reads is a
/// container or a literal, or the line has too many steps.
pub(super) fn of(s: &[u8], pos: &[u16], top: &TopFields) -> Option<Path> {
    let token = |offset: usize| token_at(pos, offset);
    // The path's fields: each a text or a number (or absent), else no path.
    let on_path = |field: Option<Field>| -> Option<(Kind, Option<u16>)> {
        match field {
            None => Some((Kind::Absent, None)),
            Some(Field::Str(span)) => Some((Kind::Text, Some(token(span.start - 1)?))),
            Some(Field::Raw(start, _)) if matches!(s[start], b'-' | b'0'..=b'9') => {
                Some((Kind::Number, Some(token(start)?)))
            }
            Some(Field::Raw(..)) => None,
        }
    };
    let head = top.graph_path.and_then(|p| p.head).map(Field::Str);
    let fields = [
        on_path(top.id),
        on_path(top.role),
        on_path(top.content),
        on_path(top.sort),
        on_path(head),
    ];
    let mut path = Builder::new(s, fields, top)?;
    let mut depth = 0usize;
    let mut before = 0u8;
    for (i, &at) in pos.iter().enumerate() {
        let at = usize::from(at);
        let b = s[at];
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            // Structure and literals: fixed bytes.
            b':' | b',' | b't' | b'f' | b'n' => {}
            // A top-level key: its name is fixed bytes too (the fields are found by it).
            b'"' if depth == 1 && matches!(before, b'{' | b',') => {}
            // A value (or a nested key): its text is each line's own.
            b'"' => {
                // Never the last token: a valid line's object closes after it.
                let next = usize::from(*pos.get(i + 1)?);
                let closing = closing_quote(s, at, next)?;
                path.token(u16::try_from(i).ok()?, at, Token::Text { closing });
            }
            _ => {
                let end = atom(s, at)?;
                path.token(u16::try_from(i).ok()?, at, Token::Number { end });
            }
        }
        before = b;
    }
    path.finish()
}

impl<'a> Builder<'a> {
    /// A builder for the line `s`, whose fields' values are the tokens given, with their
    /// kinds (None when a field is a container or a literal, which no path gives), and whose
    /// other fields the walk found (`top`).
    fn new(
        s: &'a [u8],
        fields: [Option<(Kind, Option<u16>)>; FIELDS],
        top: &TopFields,
    ) -> Option<Self> {
        let mut kinds = [Kind::Absent; FIELDS];
        let mut tokens = [None; FIELDS];
        for (slot, field) in fields.into_iter().enumerate() {
            (kinds[slot], tokens[slot]) = field?;
        }
        Some(Builder {
            s,
            steps: Vec::new(),
            fixed: Vec::new(),
            from: 0,
            kinds,
            tokens,
            flags: Flags {
                is_delta: top.is_delta,
                graph_path: top.graph_path.map(|p| p.len),
                tool_call: top.tool_call,
                has_type: top.has_type,
            },
        })
    }

    /// The token numbered `token`, at `at`, one whose bytes are each line's own.
    fn token(&mut self, token: u16, at: usize, what: Token) {
        let field = self
            .tokens
            .iter()
            .position(|&t| t == Some(token))
            .map_or(NO_FIELD, |slot| slot as u8);
        match what {
            Token::Text { closing } => {
                // The opening quote is fixed; the text's end is the closing quote.
                self.fixed(at + 1);
                self.steps.push(Step::Text { field });
                self.from = closing;
            }
            Token::Number { end } => {
                self.fixed(at);
                self.steps.push(Step::Number { field });
                self.from = end;
            }
        }
    }

    /// The fixed bytes from `self.from` to `to`, in steps of up to 64.
    fn fixed(&mut self, to: usize) {
        while self.from < to {
            let len = (to - self.from).min(64);
            let bytes = &self.s[self.from..self.from + len];
            self.steps
                .push(Step::Fixed(Fixed::keep(&mut self.fixed, bytes)));
            self.from += len;
        }
    }

    /// The path.
    fn finish(mut self) -> Option<Path> {
        self.fixed(self.s.len());
        self.fixed.extend_from_slice(&[0; 64]);
        (self.steps.len() <= 2 * MAX_TOKENS).then(|| Path {
            steps: self.steps.into(),
            fixed: self.fixed.into(),
            kinds: self.kinds,
            flags: self.flags,
        })
    }
}

impl Path {
    /// The fields of `s` read along this path, if it leads to the line's end: then `s` is
    /// valid, as the walk would say, with these fields. None says nothing of the line.
    ///
    /// # Safety
    /// The CPU must have what `lanes` is for (an `L` exists only where it does).
    #[inline(always)]
    pub(super) unsafe fn follow<L: Lanes>(&self, lanes: L, s: &[u8]) -> Option<TopFields> {
        let mut at = 0;
        let mut found = [(0usize, 0usize, false); FIELDS];
        for step in self.steps.iter() {
            match step {
                Step::Fixed(fixed) => {
                    // SAFETY: the caller's; `fixed` is one of this path's, whose buffer has
                    // the 64 bytes after each step that `found` may load.
                    if !unsafe { lanes.found(*fixed, &self.fixed, s, at) } {
                        return None;
                    }
                    at += fixed.len();
                }
                Step::Text { field } => {
                    // SAFETY: the caller's.
                    let (end, escaped) = unsafe { text(lanes, s, at) }?;
                    if *field != NO_FIELD {
                        found[usize::from(*field)] = (at, end, escaped);
                    }
                    at = end;
                }
                Step::Number { field } => {
                    if at >= s.len() {
                        return None;
                    }
                    let end = number(s, at)?;
                    if *field != NO_FIELD {
                        found[usize::from(*field)] = (at, end, false);
                    }
                    at = end;
                }
            }
        }
        if at != s.len() {
            return None;
        }
        let field = |slot: usize| {
            let (start, end, escaped) = found[slot];
            match self.kinds[slot] {
                Kind::Absent => None,
                Kind::Text => Some(Field::Str(Span {
                    start,
                    end,
                    escaped,
                })),
                Kind::Number => Some(Field::Raw(start, end)),
            }
        };
        let flags = self.flags;
        Some(TopFields {
            id: field(0),
            role: field(1),
            content: field(2),
            is_delta: flags.is_delta,
            graph_path: flags.graph_path.map(|len| GraphPath {
                head: match field(4) {
                    Some(Field::Str(span)) => Some(span),
                    _ => None,
                },
                len,
            }),
            tool_call: flags.tool_call,
            sort: field(3),
            has_type: flags.has_type,
        })
    }
}

/// What a vector width does for [`Path::follow`]: compare fixed bytes, and classify 64 bytes of
/// a text.
/// The escape check of a block is the classifier's ([`Classify::escapes_valid`]): all of a
/// block's escapes at once where it holds several (a text of escaped JSON, a report's `\n`
/// and `\"`).
pub(super) trait Lanes: Classify {
    /// Whether `s` holds `fixed`'s bytes (kept in `buffer`, with at least 64 bytes after them)
    /// at `start`.
    ///
    /// # Safety
    /// The CPU must have the features this width is for.
    unsafe fn found(self, fixed: Fixed, buffer: &[u8], s: &[u8], start: usize) -> bool;

    /// The 64 bytes of `s` from `base` (fewer at its end): which are quotes, backslashes,
    /// control characters and non-ASCII bytes, and which are `s`'s (`valid`).
    ///
    /// # Safety
    /// The CPU must have the features this width is for.
    unsafe fn text_masks(self, s: &[u8], base: usize) -> TextMasks;
}

/// 64 bytes of a text, classified (see [`Lanes::text_masks`]).
pub(super) struct TextMasks {
    pub(super) quote: u64,
    pub(super) backslash: u64,
    /// Only among the `valid` bytes.
    pub(super) control: u64,
    pub(super) high: u64,
    pub(super) valid: u64,
}

impl Lanes for Avx512 {
    #[inline(always)]
    unsafe fn found(self, fixed: Fixed, buffer: &[u8], s: &[u8], start: usize) -> bool {
        // SAFETY: the caller's.
        unsafe { fixed.found(buffer, s, start) }
    }

    #[inline(always)]
    unsafe fn text_masks(self, s: &[u8], base: usize) -> TextMasks {
        let rest = s.len() - base;
        let valid = if rest >= 64 { !0 } else { (1u64 << rest) - 1 };
        // SAFETY: the caller's CPU has AVX-512 F and BW; the masked load reads only the bytes
        // of `s` whose bit is set in `valid`.
        unsafe {
            let v = _mm512_maskz_loadu_epi8(valid, s.as_ptr().add(base).cast());
            TextMasks {
                quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
                backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
                control: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) & valid,
                high: _mm512_movepi8_mask(v),
                valid,
            }
        }
    }
}

/// The text of a string of `s` from `start` (past its opening quote): where its closing quote
/// is, and whether it holds a backslash; None if it is not a valid string's text (a control
/// character, an escape JSON has not, ill-formed UTF-8, no closing quote).
///
/// # Safety
/// The CPU must have what `lanes` is for (AVX2 at least, which simdutf8's validator here is
/// compiled for: every `Lanes` is a proof of it).
#[inline(always)]
unsafe fn text<L: Lanes>(lanes: L, s: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut base = start;
    let mut carry = 0;
    let mut backslashes = false;
    let mut utf8: Option<Chunked> = None;
    while base < s.len() {
        // SAFETY: the caller's.
        let m = unsafe { lanes.text_masks(s, base) };
        let escaped = escaped_bytes(m.backslash, &mut carry);
        let closing = m.quote & !escaped;
        // The text's bytes in this block: those before its closing quote.
        let inside = if closing == 0 {
            m.valid
        } else {
            (closing & closing.wrapping_neg()) - 1
        };
        if m.control & inside != 0 {
            return None;
        }
        backslashes |= m.backslash & inside != 0;
        // The byte a backslash escapes may be in the block after the backslash's.
        if escaped & inside != 0 && !lanes.escapes_valid(s, base, escaped & inside) {
            return None;
        }
        let high = m.high & inside;
        if high != 0 || utf8.is_some() {
            // From the text's first block with a non-ASCII byte (its start a character
            // boundary: the byte before it is ASCII) to its end, every block of the text goes
            // through simdutf8's validator, a block at a time, the bytes past the text zeroed:
            // no call per line as a check of the line's rest made (on the bench's non-ascii
            // streams, 10.7% of the samples; docs/performance-streams.md).
            // SAFETY: the caller's CPU has AVX2 (an `Avx2` or an `Avx512` is its proof).
            let v = utf8.get_or_insert_with(|| unsafe { Chunked::new() });
            // `inside` is a run of bits from bit 0: the text's bytes in this block.
            let n = inside.trailing_ones() as usize;
            match s[base..].first_chunk::<64>() {
                // SAFETY: as above; a whole 64-byte chunk.
                Some(whole) if n == 64 => unsafe { v.update_from_chunks(whole) },
                // SAFETY: as above: the block, its bytes from `n` on zeroed in registers (a
                // copy of `n` bytes is a call to memcpy), then the 64-byte chunk.
                Some(whole) => unsafe { v.update_from_chunks(&text_only(whole, n)) },
                None => {
                    let mut block = [0u8; 64];
                    block[..n].copy_from_slice(&s[base..base + n]);
                    // SAFETY: as above; a whole 64-byte chunk.
                    unsafe { v.update_from_chunks(&block) };
                }
            }
        }
        if closing != 0 {
            // The text ends before a quote: no character may be left unfinished.
            // SAFETY: as above.
            if let Some(v) = utf8
                && unsafe { v.finalize(None) }.is_err()
            {
                return None;
            }
            return Some((base + closing.trailing_zeros() as usize, backslashes));
        }
        base += 64;
    }
    None
}

/// `block` with its bytes from `n` (below 64) on zeroed.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn text_only(block: &[u8; 64], n: usize) -> [u8; 64] {
    let mut out = [0u8; 64];
    // SAFETY: the caller's CPU has AVX2; two loads and two stores of 32 of 64 bytes.
    unsafe {
        let limit = _mm256_set1_epi8(n as i8);
        let low = _mm256_setr_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        );
        let high = _mm256_add_epi8(low, _mm256_set1_epi8(32));
        let a = _mm256_loadu_si256(block.as_ptr().cast());
        let b = _mm256_loadu_si256(block.as_ptr().add(32).cast());
        let a = _mm256_and_si256(a, _mm256_cmpgt_epi8(limit, low));
        let b = _mm256_and_si256(b, _mm256_cmpgt_epi8(limit, high));
        _mm256_storeu_si256(out.as_mut_ptr().cast(), a);
        _mm256_storeu_si256(out.as_mut_ptr().add(32).cast(), b);
    }
    out
}
