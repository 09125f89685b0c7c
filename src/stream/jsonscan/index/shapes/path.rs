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

use super::super::super::{Field, GraphPath, Span, TopFields};
use super::super::{escaped_bytes, escapes_are_valid, number, utf8_is_valid};
use super::{Fixed, MAX_TOKENS, Shape};
use std::arch::x86_64::*;

/// No field: see [`Step::Text`].
pub(super) const NO_FIELD: u8 = u8::MAX;

/// The fields a path finds, by slot: `id`, `role`, `content`, `sort`, `graphPath`'s head.
pub(super) const FIELDS: usize = 5;

/// What a field's value is on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Absent,
    Text,
    Number,
}

/// One step along a line.
pub(super) enum Step {
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
    /// The fixed steps' bytes, one after another.
    fixed: Box<[u8]>,
    kinds: [Kind; FIELDS],
}

/// A token of a shape's valid line whose bytes are each line's own (any other token's bytes,
/// structure, top-level keys and literals, every line of the shape repeats).
#[derive(Clone, Copy)]
pub(super) enum Token {
    /// A value's string (or a nested key): its text is the line's own.
    Text { closing: usize },
    /// A number, and where it ends.
    Number { end: usize },
}

/// Makes a [`Path`] from a valid line's tokens, in order.
pub(super) struct Builder<'a> {
    s: &'a [u8],
    steps: Vec<Step>,
    fixed: Vec<u8>,
    /// Where the fixed bytes not in a step yet begin.
    from: usize,
    kinds: [Kind; FIELDS],
    /// Per field slot, its value's token, if it is a text or a number.
    tokens: [Option<u16>; FIELDS],
}

impl<'a> Builder<'a> {
    /// A builder for the line `s`, whose fields' values are the tokens given, with their
    /// kinds: None when a field is a container or a literal, which no path gives.
    pub(super) fn new(s: &'a [u8], fields: [Option<(Kind, Option<u16>)>; FIELDS]) -> Option<Self> {
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
        })
    }

    /// The token numbered `token`, at `at`, one whose bytes are each line's own.
    pub(super) fn token(&mut self, token: u16, at: usize, what: Token) {
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
    pub(super) fn finish(mut self) -> Option<Path> {
        self.fixed(self.s.len());
        (self.steps.len() <= 2 * MAX_TOKENS).then(|| Path {
            steps: self.steps.into(),
            fixed: self.fixed.into(),
            kinds: self.kinds,
        })
    }
}

impl Path {
    /// The fields of `s` read along this path (of `shape`), if it leads to the line's end:
    /// then `s` is valid, as the walk would say, with these fields. None says nothing of the
    /// line.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[inline(always)]
    pub(super) unsafe fn follow(&self, s: &[u8], shape: &Shape) -> Option<TopFields> {
        let mut at = 0;
        let mut found = [(0usize, 0usize, false); FIELDS];
        let mut utf8_done = 0;
        for step in self.steps.iter() {
            match step {
                Step::Fixed(fixed) => {
                    // SAFETY: the caller's.
                    if !unsafe { fixed.found(&self.fixed, s, at) } {
                        return None;
                    }
                    at += fixed.len();
                }
                Step::Text { field } => {
                    // SAFETY: the caller's.
                    let (end, escaped) = unsafe { text(s, at, &mut utf8_done) }?;
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
        Some(TopFields {
            id: field(0),
            role: field(1),
            content: field(2),
            is_delta: shape.is_delta,
            graph_path: shape.graph_path.map(|(len, _)| GraphPath {
                head: match field(4) {
                    Some(Field::Str(span)) => Some(span),
                    _ => None,
                },
                len,
            }),
            tool_call: shape.tool_call,
            sort: field(3),
            has_type: shape.has_type,
        })
    }
}

/// The text of a string of `s` from `start` (past its opening quote): where its closing quote
/// is, and whether it holds a backslash; None if it is not a valid string's text (a control
/// character, an escape JSON has not, ill-formed UTF-8, no closing quote).
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[inline(always)]
unsafe fn text(s: &[u8], start: usize, utf8_done: &mut usize) -> Option<(usize, bool)> {
    let mut base = start;
    let mut carry = 0;
    let mut backslashes = false;
    while base < s.len() {
        let rest = s.len() - base;
        let valid = if rest >= 64 { !0 } else { (1u64 << rest) - 1 };
        // SAFETY: the caller's CPU has AVX-512 F and BW; the masked load reads only the bytes
        // of `s` whose bit is set in `valid`.
        let (quote, backslash, control, high) = unsafe {
            let v = _mm512_maskz_loadu_epi8(valid, s.as_ptr().add(base).cast());
            (
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
                _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) & valid,
                _mm512_movepi8_mask(v),
            )
        };
        let escaped = escaped_bytes(backslash, &mut carry);
        let closing = quote & !escaped;
        // The text's bytes in this block: those before its closing quote.
        let inside = if closing == 0 {
            valid
        } else {
            (closing & closing.wrapping_neg()) - 1
        };
        if control & inside != 0 {
            return None;
        }
        if backslash & inside != 0 {
            backslashes = true;
            if !escapes_are_valid(s, base, escaped & inside) {
                return None;
            }
        }
        if high & inside != 0 && !utf8_is_valid(s, base, high & inside, utf8_done) {
            return None;
        }
        if closing != 0 {
            return Some((base + closing.trailing_zeros() as usize, backslashes));
        }
        base += 64;
    }
    None
}
