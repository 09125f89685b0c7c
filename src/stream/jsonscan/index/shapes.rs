//! Line shapes: the grammar of a line checked once per shape instead of once per line.
//!
//! A stream is a few kinds of frame over and over (a thinking delta, an answer delta, a tool
//! call...), and lines of one kind differ in the text of their strings and the digits of their
//! numbers, not in their structure. The structural index already gives each line's tokens (a
//! structural character, a string's opening quote, the first byte of a number or literal);
//! here they are also written out, with AVX-512 VBMI2's byte compression, as two arrays: the
//! token bytes (digits folded to `0`) and their offsets. The token bytes are the line's
//! *shape*. The first line of a shape is walked token by token ([`super::Cursor`]), as every
//! line is without this; when it is valid, what the walk found is kept as a recipe in terms of
//! token numbers ([`Shape`]). A later line of the same shape is then checked without the walk:
//!
//! - its grammar is the shape's: the walk decides from the token bytes alone, and digits all
//!   decide alike (any byte inside a string, or a bad one, is the classification's to refuse);
//! - the bytes that do not vary between lines of a kind must be the shape's, byte for byte:
//!   structure, top-level key names (the fields the rule wants are named by them), `true`,
//!   `false`, `null`, and the white space between them. They come in stretches ([`Run`]) of
//!   up to 64 bytes, each one masked compare; a line that differs in them is walked, and
//!   gives its own shape;
//! - each number is read ([`super::atom`]), as the walk reads it;
//! - the fields are where the recipe says, their ends and escapes read from this line.
//!
//! And the line after one of a known shape is first read along that shape's path, without
//! classifying its structure at all ([`path`]): the shape's line as fixed bytes, texts and
//! numbers, compared and read in order. Most lines are of the kind of the line before; a line
//! that is not stops the reading, and is checked as above.
//!
//! So a line is accepted, and its fields found, exactly as the walk would: the property tests
//! (`jsonscan/tests/props.rs` and `shapes.rs` beside it) hold the two to the same answer on
//! every line, with a scanner that has seen the lines before it, and lines made from those by
//! changing their text, names, numbers, literals and white space, or any byte.
//!
//! Lines over [`MAX_LINE`] bytes or with over [`MAX_TOKENS`] tokens, and CPUs without AVX-512
//! VBMI and VBMI2 (Ice Lake and later, Zen 4 and later have them), take the walk.

use super::super::{Field, GraphPath, Span, TopFields};
use super::classify::{Avx512, scan_avx512};
use super::{Lexer, any_bit, atom, closing_quote};
use path::Path;
use std::arch::x86_64::*;
use std::sync::atomic::{AtomicU8, Ordering};

mod avx2;
mod path;

pub(in crate::stream::jsonscan) use avx2::Paths;

/// The longest line given a shape: offsets are 16 bits. Longer lines are walked.
pub(in crate::stream::jsonscan) const MAX_LINE: usize = 32 << 10;

/// How many shapes are kept: two ways in each of [`SETS`] sets, picked by a hash of the
/// token bytes. Two ways, because the few shapes of a stream must not evict one another when
/// two of them hash alike (a stream's state frames and its thinking frames did, and each
/// displaced the other every turn).
const SETS: usize = 128;

/// The most tokens a line with a shape has: its token bytes are two registers.
const MAX_TOKENS: usize = 128;

/// The token offsets of the line being scanned. Each block's are stored 32 at a time,
/// whatever its count, hence the room past [`MAX_TOKENS`].
struct Flat {
    pos: [u16; MAX_TOKENS + 64],
    /// Each block's backslashes: whether a string holds an escape.
    backslash: [u64; MAX_LINE / 64],
    /// Where each number or literal of the shape's list ends.
    ends: [u16; MAX_TOKENS],
}

/// A line's token bytes (digits folded to `0`), zero past the last, gathered into two registers,
/// where they are hashed and compared with a shape's: at most [`MAX_TOKENS`] of them.
#[derive(Clone, Copy)]
struct TokenBytes {
    n: usize,
    low: __m512i,
    high: __m512i,
}

/// What the walk found of a line, by token number: a field's value is a string, a container
/// (its first and last tokens), a number or a literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    Absent,
    Str(u16),
    Container(u16, u16),
    /// The number of a number in the shape's list of them.
    Number(u16),
    /// A literal (`true`, `false`, `null`) and its length: its bytes are in a [`Run`].
    Literal(u16, u16),
}

/// A stretch of a shape's line that every line of the shape repeats byte for byte: from a
/// token on, the tokens whose bytes do not vary between lines of a kind (structure, top-level
/// key names, `true`, `false` and `null`) and the white space between them, up to a value
/// string's opening quote or a number, at most 64 bytes. One masked compare checks it: the
/// names the rule's fields are found by, and the literals, whole.
struct Run {
    /// The token it starts at.
    token: u16,
    /// Its bytes, in the shape's `fixed`.
    bytes: Fixed,
}

/// Up to 64 bytes every line of a shape repeats, kept with others one after another in a
/// buffer: where they are in it, how many (1 to 64), and the mask of that many.
#[derive(Clone, Copy)]
struct Fixed {
    at: u32,
    len: u16,
    mask: u64,
}

impl Fixed {
    /// `bytes` (1 to 64 of them), appended to `buffer`.
    fn keep(buffer: &mut Vec<u8>, bytes: &[u8]) -> Fixed {
        let len = bytes.len();
        debug_assert!((1..=64).contains(&len));
        let fixed = Fixed {
            at: buffer.len() as u32,
            len: len as u16,
            mask: if len == 64 { !0 } else { (1u64 << len) - 1 },
        };
        buffer.extend_from_slice(bytes);
        fixed
    }

    /// How many bytes.
    #[inline(always)]
    fn len(self) -> usize {
        usize::from(self.len)
    }

    /// Whether `s` holds these bytes (of `buffer`, where [`Fixed::keep`] put them) at `start`:
    /// one masked compare.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[inline(always)]
    unsafe fn found(self, buffer: &[u8], s: &[u8], start: usize) -> bool {
        if start + self.len() > s.len() {
            return false;
        }
        // SAFETY: the caller's CPU has AVX-512 F and BW; the masked loads read the `len`
        // bytes from `start`, bytes of `s` (checked above), and the `len` bytes of `buffer`
        // from `at`, where `keep` put them. Lanes past `len` are zero in both.
        unsafe {
            let sent = _mm512_maskz_loadu_epi8(self.mask, s.as_ptr().add(start).cast());
            let want =
                _mm512_maskz_loadu_epi8(self.mask, buffer.as_ptr().add(self.at as usize).cast());
            _mm512_cmpneq_epi8_mask(sent, want) == 0
        }
    }
}

/// One shape and its recipe.
struct Shape {
    /// How many tokens, and their bytes (digits folded to `0`), zero past the last.
    n: usize,
    bytes: [u8; MAX_TOKENS],
    /// The stretches of fixed bytes, in order, and their bytes.
    runs: Box<[Run]>,
    fixed: Box<[u8]>,
    /// Every number, by token number.
    numbers: Box<[u16]>,
    id: At,
    role: At,
    content: At,
    sort: At,
    /// `graphPath`: its length and first element (when a string).
    graph_path: Option<(usize, Option<u16>)>,
    is_delta: bool,
    tool_call: bool,
    has_type: bool,
    /// The line as fixed bytes, texts and numbers, for the lines after one of this shape
    /// ([`path`]); None when a field is a container or a literal.
    path: Option<Path>,
}

/// The shapes seen, and the scratch space of the line at hand. Only made where the CPU has
/// what the scan needs ([`Shapes::new`]).
pub(in crate::stream::jsonscan) struct Shapes {
    avx512: Avx512,
    flat: Box<Flat>,
    /// Set `i` is `slots[2 * i]` and `slots[2 * i + 1]`.
    slots: Box<[Option<Shape>]>,
    /// Per set, the way used last (the other is replaced first).
    recent: Box<[u8]>,
    /// Per set, the hash of the last token bytes that missed: a shape is made only when its
    /// bytes miss a second time, so that lines of shapes seen once cost no shape.
    missed: Box<[u64]>,
    /// Lines in a row that no shape checked, and how many lines to walk without looking: a
    /// stream whose shapes do not recur would pay the gathering of its tokens for nothing.
    cold: u32,
    rest: u32,
    /// [`COLD`], but for tests that want every line looked at.
    cold_limit: u32,
    /// The slot of the shape of the last line that had one, and whether to read the next
    /// line along its path: not after a line that was of another shape than the one before
    /// (two kinds of frame taking turns would pay for a path followed in vain at each line).
    last: usize,
    follow: bool,
    #[cfg(test)]
    hits: usize,
}

/// After this many lines in a row that no shape checked, [`REST`] lines are walked without
/// looking for one.
const COLD: u32 = 64;
const REST: u32 = 4096;

/// Whether the CPU has AVX-512 VBMI and VBMI2 (asked once): 0 not asked yet, 1 no, 2 yes.
static VBMI2: AtomicU8 = AtomicU8::new(0);

fn has_vbmi2() -> bool {
    match VBMI2.load(Ordering::Relaxed) {
        0 => {
            let yes =
                is_x86_feature_detected!("avx512vbmi") && is_x86_feature_detected!("avx512vbmi2");
            VBMI2.store(1 + u8::from(yes), Ordering::Relaxed);
            yes
        }
        known => known == 2,
    }
}

impl Shapes {
    /// Shapes, if the CPU has AVX-512 (F, BW), VBMI and VBMI2.
    pub(in crate::stream::jsonscan) fn new() -> Option<Shapes> {
        let avx512 = Avx512::detect()?;
        if !has_vbmi2() {
            return None;
        }
        Some(Shapes {
            avx512,
            flat: Box::new(Flat {
                pos: [0; MAX_TOKENS + 64],
                backslash: [0; MAX_LINE / 64],
                ends: [0; MAX_TOKENS],
            }),
            slots: (0..2 * SETS).map(|_| None).collect(),
            recent: vec![0; SETS].into(),
            missed: vec![0; SETS].into(),
            cold: 0,
            rest: 0,
            cold_limit: COLD,
            last: 0,
            follow: false,
            #[cfg(test)]
            hits: 0,
        })
    }

    /// Whether `s` is one JSON object ("invalid" is all a false says); if it is, its fields
    /// are in `top`. The same answer as [`super::scan`].
    #[inline]
    pub(in crate::stream::jsonscan) fn scan(&mut self, s: &[u8], top: &mut TopFields) -> bool {
        // SAFETY: `Shapes` exist only when the CPU has what `scan_vbmi2` is compiled for
        // (`Shapes::new`).
        unsafe { scan_vbmi2(self, s, top) }
    }

    /// Never rest, however few lines a shape checks (for tests).
    #[cfg(test)]
    pub(in crate::stream::jsonscan) fn never_rest(&mut self) {
        self.cold_limit = u32::MAX;
    }

    /// How many lines were checked from a shape, without the walk (for tests).
    #[cfg(test)]
    pub(in crate::stream::jsonscan) fn hits(&self) -> usize {
        self.hits
    }
}

/// Byte `i` is `i`: compressed by a block's token mask, the tokens' offsets in the block.
const IOTA: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

/// [`Shapes::scan`], compiled for AVX-512 VBMI2 and what the classification asks for.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VBMI and VBMI2, and what `Avx2` asks for.
#[target_feature(
    enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx2,pclmulqdq,bmi1,bmi2,popcnt"
)]
unsafe fn scan_vbmi2(shapes: &mut Shapes, s: &[u8], top: &mut TopFields) -> bool {
    let avx512 = shapes.avx512;
    if s.is_empty() || s.len() > MAX_LINE || shapes.resting() {
        // SAFETY: the caller's.
        return unsafe { scan_avx512(s, avx512, top, None) };
    }
    if shapes.follow
        && let Some(shape) = &shapes.slots[shapes.last]
        && let Some(path) = &shape.path
    {
        // SAFETY: the caller's CPU has AVX-512 F and BW.
        if let Some(fields) = unsafe { path.follow(avx512, s) } {
            *top = fields;
            shapes.cold = 0;
            #[cfg(test)]
            {
                shapes.hits += 1;
            }
            return true;
        }
        shapes.follow = false;
    }
    let tokens = match flatten(&mut shapes.flat, s, avx512) {
        Flattened::Tokens(tokens) => tokens,
        // A byte no valid line holds: the walk would say no too.
        Flattened::Bad => return false,
        Flattened::TooMany => {
            shapes.missed_one();
            // SAFETY: the caller's.
            return unsafe { scan_avx512(s, avx512, top, None) };
        }
    };
    let hash = hash_of(&tokens);
    let set = (hash >> 57) as usize % SETS;
    // The way used last first: a stream's lines of one shape come in runs. Both ways may hold
    // these token bytes, with other names (a content delta and a thinking delta, say).
    let recent = usize::from(shapes.recent[set]);
    for w in [recent, 1 - recent] {
        if let Some(shape) = &shapes.slots[2 * set + w]
            && shape.is(&tokens)
            && let Some(valid) = apply(shape, &mut shapes.flat, s, top)
        {
            shapes.recent[set] = w as u8;
            shapes.cold = 0;
            let slot = 2 * set + w;
            shapes.follow = slot == shapes.last;
            shapes.last = slot;
            #[cfg(test)]
            {
                shapes.hits += 1;
            }
            return valid;
        }
    }
    shapes.missed_one();
    // SAFETY: the caller's.
    let valid = unsafe { scan_avx512(s, avx512, top, None) };
    // A shape for these bytes the second time they miss, in the way not used last.
    let again = std::mem::replace(&mut shapes.missed[set], hash) == hash;
    if valid
        && again
        && let Some(shape) = Shape::new(&shapes.flat, &tokens, s, top)
    {
        let w = 1 - recent;
        shapes.slots[2 * set + w] = Some(shape);
        shapes.recent[set] = w as u8;
        shapes.last = 2 * set + w;
        shapes.follow = false;
    }
    valid
}

impl Shapes {
    /// Whether to walk this line without looking for its shape (see [`Shapes::cold`]).
    #[inline(always)]
    fn resting(&mut self) -> bool {
        if self.rest == 0 {
            return false;
        }
        self.rest -= 1;
        true
    }

    /// A line that no shape checked.
    #[inline(always)]
    fn missed_one(&mut self) {
        self.cold += 1;
        if self.cold >= self.cold_limit {
            self.cold = 0;
            self.rest = REST;
        }
    }
}

/// What [`flatten`] made of a line.
enum Flattened {
    Tokens(TokenBytes),
    /// A byte no valid line holds.
    Bad,
    /// More than [`MAX_TOKENS`] tokens.
    TooMany,
}

/// Classify `s` (at most [`MAX_LINE`] bytes): its token bytes, with their offsets written into
/// `flat`.
#[inline(always)]
fn flatten(flat: &mut Flat, s: &[u8], avx512: Avx512) -> Flattened {
    let mut lex = Lexer::new(avx512);
    let mut n = 0;
    let mut block = 0;
    // SAFETY (of each block below): `Avx512` and the target features of the only caller say
    // the CPU has AVX-512 F, BW, VBMI and VBMI2. The masked load reads only bytes of `s` (those
    // whose bit is set in `valid`; a masked load neither reads nor faults on the others), the
    // other load the 64 bytes of `IOTA`, and each store writes 32 offsets into a slice of
    // exactly that length: `n + count` is at most MAX_TOKENS there, so `n + 64` is within
    // `flat.pos`.
    let iota = unsafe { _mm512_loadu_si512(IOTA.as_ptr().cast()) };
    let (mut low, mut high) = unsafe { (_mm512_setzero_si512(), _mm512_setzero_si512()) };
    while lex.next_block < s.len() {
        let base = lex.next_block;
        let (tokens, backslash) = lex.fill(s);
        flat.backslash[block] = backslash;
        block += 1;
        if tokens == 0 {
            // Inside a long string.
            continue;
        }
        let count = tokens.count_ones() as usize;
        if n + count > MAX_TOKENS {
            return if lex.bad {
                Flattened::Bad
            } else {
                Flattened::TooMany
            };
        }
        let rest = s.len() - base;
        let valid = if rest >= 64 { !0 } else { (1u64 << rest) - 1 };
        unsafe {
            let v = _mm512_maskz_loadu_epi8(valid, s.as_ptr().add(base).cast());
            let digit = _mm512_cmplt_epu8_mask(
                _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)),
                _mm512_set1_epi8(10),
            );
            let folded = _mm512_mask_mov_epi8(v, digit, _mm512_set1_epi8(b'0' as i8));
            let bytes = _mm512_maskz_compress_epi8(tokens, folded);
            // Lane j of the line's bytes is lane j - n of the block's (mod 64): moved into
            // place by one permutation into each register, under the mask of the lanes that
            // register gets.
            let from = _mm512_sub_epi8(iota, _mm512_set1_epi8(n as i8));
            let end = n + count;
            let lanes = |lo: usize, hi: usize| -> u64 {
                let below = |k: usize| if k >= 64 { !0 } else { (1u64 << k) - 1 };
                below(hi) & !below(lo)
            };
            low = _mm512_mask_permutexvar_epi8(low, lanes(n, end), from, bytes);
            if end > 64 {
                high = _mm512_mask_permutexvar_epi8(
                    high,
                    lanes(n.saturating_sub(64), end - 64),
                    from,
                    bytes,
                );
            }
            // The offsets: the block's bit numbers compressed as bytes, widened to 16 bits and
            // moved by the block's start, 32 at a time whatever the count (the room past
            // MAX_TOKENS takes the extra).
            let offsets = _mm512_maskz_compress_epi8(tokens, iota);
            let base16 = _mm512_set1_epi16(base as i16);
            let first = _mm512_add_epi16(
                _mm512_cvtepu8_epi16(_mm512_castsi512_si256(offsets)),
                base16,
            );
            _mm512_storeu_si512(flat.pos[n..n + 32].as_mut_ptr().cast(), first);
            if count > 32 {
                let second = _mm512_add_epi16(
                    _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(offsets)),
                    base16,
                );
                _mm512_storeu_si512(flat.pos[n + 32..n + 64].as_mut_ptr().cast(), second);
            }
        }
        n += count;
    }
    if lex.bad {
        return Flattened::Bad;
    }
    Flattened::Tokens(TokenBytes { n, low, high })
}

/// A hash of a line's token bytes (their length and four words of them); its top bits pick
/// the shape's set.
#[inline(always)]
fn hash_of(tokens: &TokenBytes) -> u64 {
    // SAFETY: only called where `TokenBytes` exist, made with AVX-512 by `flatten`.
    let (a, b, c, d) = unsafe {
        let word = |lane: __m128i| _mm_cvtsi128_si64(lane) as u64;
        (
            word(_mm512_castsi512_si128(tokens.low)),
            word(_mm512_extracti32x4_epi32::<1>(tokens.low)),
            word(_mm512_extracti32x4_epi32::<2>(tokens.low)),
            word(_mm512_extracti32x4_epi32::<3>(tokens.low)),
        )
    };
    let x = (tokens.n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ a
        ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ c.rotate_left(29)
        ^ d.rotate_left(47).wrapping_mul(0x1656_67B1_9E37_79F9);
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// A line of `shape`'s shape: whether it is valid, with its fields in `top`; None when its
/// fixed bytes (names, literals, white space between them) are not the shape's (the walk
/// decides then).
#[inline(always)]
fn apply(shape: &Shape, flat: &mut Flat, s: &[u8], top: &mut TopFields) -> Option<bool> {
    for run in &shape.runs {
        // SAFETY: only called from `scan_vbmi2`, compiled for AVX-512 F and BW.
        if !unsafe { run.bytes.found(&shape.fixed, s, flat.at(run.token)) } {
            return None;
        }
    }
    for (i, &token) in shape.numbers.iter().enumerate() {
        let Some(end) = atom(s, flat.at(token)) else {
            return Some(false);
        };
        flat.ends[i] = end as u16;
    }
    *top = TopFields {
        id: flat.field(s, &shape.numbers, shape.id),
        role: flat.field(s, &shape.numbers, shape.role),
        content: flat.field(s, &shape.numbers, shape.content),
        is_delta: shape.is_delta,
        graph_path: shape.graph_path.map(|(len, head)| GraphPath {
            head: head.map(|token| flat.string(s, token)),
            len,
        }),
        tool_call: shape.tool_call,
        sort: flat.field(s, &shape.numbers, shape.sort),
        has_type: shape.has_type,
    };
    Some(true)
}

impl Flat {
    /// Where token `token` starts.
    #[inline(always)]
    fn at(&self, token: u16) -> usize {
        usize::from(self.pos[usize::from(token)])
    }

    /// The string of `s` whose opening quote is token `token`.
    #[inline(always)]
    fn string(&self, s: &[u8], token: u16) -> Span {
        let open = self.at(token);
        // The shape's line had a closing quote before the next token, and so does this one:
        // the token after an opening quote is past the string's end.
        let end = closing_quote(s, open, self.at(token + 1)).unwrap_or(open + 1);
        Span {
            start: open + 1,
            end,
            escaped: any_bit(&self.backslash, open + 1, end),
        }
    }

    /// A field of `s` where the recipe says it is.
    #[inline(always)]
    fn field(&self, s: &[u8], numbers: &[u16], at: At) -> Option<Field> {
        match at {
            At::Absent => None,
            At::Str(token) => Some(Field::Str(self.string(s, token))),
            At::Container(first, last) => Some(Field::Raw(self.at(first), self.at(last) + 1)),
            At::Literal(token, len) => {
                let start = self.at(token);
                Some(Field::Raw(start, start + usize::from(len)))
            }
            At::Number(i) => {
                let token = numbers[usize::from(i)];
                Some(Field::Raw(
                    self.at(token),
                    usize::from(self.ends[usize::from(i)]),
                ))
            }
        }
    }
}

impl Shape {
    /// Whether `tokens` are this shape's.
    #[inline(always)]
    fn is(&self, tokens: &TokenBytes) -> bool {
        // SAFETY: only called where `TokenBytes` exist, made with AVX-512 by `flatten`; the
        // loads read the 128 bytes of `self.bytes`.
        self.n == tokens.n
            && unsafe {
                let low = _mm512_loadu_si512(self.bytes.as_ptr().cast());
                let high = _mm512_loadu_si512(self.bytes[64..].as_ptr().cast());
                _mm512_cmpneq_epi8_mask(low, tokens.low)
                    | _mm512_cmpneq_epi8_mask(high, tokens.high)
                    == 0
            }
    }

    /// The shape of the valid line `s`, whose tokens are `tokens` with their offsets in `flat`,
    /// and whose fields the walk found (`top`). None if a field does not start at a token (it
    /// always does).
    #[cold]
    fn new(flat: &Flat, tokens: &TokenBytes, s: &[u8], top: &TopFields) -> Option<Shape> {
        let n = tokens.n;
        let mut all = [0u8; MAX_TOKENS];
        // SAFETY: `TokenBytes` exist only where made with AVX-512 by `flatten`; each store
        // writes 64 bytes into a 64-byte slice.
        unsafe {
            _mm512_storeu_si512(all[..64].as_mut_ptr().cast(), tokens.low);
            _mm512_storeu_si512(all[64..].as_mut_ptr().cast(), tokens.high);
        }
        let bytes = &all[..n];
        let pos = &flat.pos[..n];
        let token = |offset: usize| path::token_at(pos, offset);
        let mut runs = Vec::new();
        let mut numbers = Vec::new();
        // The run being made: its first token, and where it starts and ends.
        let mut open: Option<(u16, usize, usize)> = None;
        // The runs' bytes, one after another.
        let mut kept = Vec::new();
        let close =
            |open: &mut Option<(u16, usize, usize)>, runs: &mut Vec<Run>, fixed: &mut Vec<u8>| {
                if let Some((token, start, end)) = open.take() {
                    runs.push(Run {
                        token,
                        bytes: Fixed::keep(fixed, &s[start..end]),
                    });
                }
            };
        let mut depth = 0usize;
        for (i, &b) in bytes.iter().enumerate() {
            let token = u16::try_from(i).ok()?;
            let at = usize::from(pos[i]);
            // How many bytes from `at` every line of the shape repeats (none for a number),
            // and whether the run ends after them.
            let (fixed, last) = match b {
                b'{' | b'[' => {
                    depth += 1;
                    (1, false)
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    (1, false)
                }
                b':' | b',' => (1, false),
                // A top-level key: its name and closing quote too.
                b'"' if depth == 1 && i > 0 && matches!(bytes[i - 1], b'{' | b',') => {
                    let end = closing_quote(s, at, usize::from(*pos.get(i + 1)?))?;
                    (end + 1 - at, false)
                }
                // A value (or a nested key): its text is each line's own.
                b'"' => (1, true),
                // A literal and the byte after it, which ends it, as the walk requires.
                b't' | b'n' => (5, false),
                b'f' => (6, false),
                _ => (0, true),
            };
            if fixed == 0 {
                close(&mut open, &mut runs, &mut kept);
                numbers.push(token);
                continue;
            }
            match &mut open {
                Some((_, start, end)) if at + fixed - *start <= 64 => *end = (*end).max(at + fixed),
                _ => {
                    close(&mut open, &mut runs, &mut kept);
                    if fixed > 64 {
                        // A name too long to compare in one register: such lines are walked.
                        return None;
                    }
                    open = Some((token, at, at + fixed));
                }
            }
            if last {
                close(&mut open, &mut runs, &mut kept);
            }
        }
        close(&mut open, &mut runs, &mut kept);
        let at = |field: Option<Field>| -> Option<At> {
            Some(match field {
                None => At::Absent,
                Some(Field::Str(span)) => At::Str(token(span.start - 1)?),
                Some(Field::Raw(start, end)) => {
                    let first = token(start)?;
                    match s[start] {
                        b'{' | b'[' => At::Container(first, token(end - 1)?),
                        b't' | b'f' | b'n' => At::Literal(first, u16::try_from(end - start).ok()?),
                        _ => At::Number(u16::try_from(numbers.binary_search(&first).ok()?).ok()?),
                    }
                }
            })
        };
        let graph_path = match top.graph_path {
            None => None,
            Some(path) => Some((
                path.len,
                match path.head {
                    None => None,
                    Some(span) => Some(token(span.start - 1)?),
                },
            )),
        };
        let (id, role, content, sort) =
            (at(top.id)?, at(top.role)?, at(top.content)?, at(top.sort)?);
        Some(Shape {
            n,
            bytes: all,
            runs: runs.into(),
            fixed: kept.into(),
            numbers: numbers.into(),
            id,
            role,
            content,
            sort,
            graph_path,
            is_delta: top.is_delta,
            tool_call: top.tool_call,
            has_type: top.has_type,
            path: path::of(s, pos, top),
        })
    }
}
