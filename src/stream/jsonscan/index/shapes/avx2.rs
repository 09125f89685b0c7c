//! Paths without shapes: where the CPU has AVX2 but not the AVX-512 VBMI2 the shapes' scan is
//! built on (most machines: every AMD before Zen 4, every Intel desktop before Ice Lake, and
//! the 2-core CI runners this project is measured on), a line is first read along the path of
//! a line seen before ([`super::path`]), and walked only when no path leads to its end.
//!
//! The shapes' scan finds a line's shape from its token bytes, which AVX-512 VBMI2 gathers in
//! a few instructions; AVX2 has no such gather, so here the line itself is tried along a few
//! kept paths (a path that is not the line's fails at the first fixed bytes that differ, most
//! often within the line's first fields). [`WAYS`] paths are kept; each remembers which path
//! read the line after one of its own last time, and that one is tried first: a stream's frame
//! kinds come in runs (a thinking delta after a thinking delta) or take turns in an order that
//! repeats (thinking, answer, tool call), and either way the guess is right for most lines.
//!
//! A line no kept path reads is walked as before; when it is valid, its tokens are listed (one
//! more classification of the line) and its path replaces the path used least recently. A
//! stream whose lines do not recur would pay for that on every line: after [`COLD`] lines in a
//! row that no path read, [`REST`] lines are walked without trying any.
//!
//! A line is accepted, and its fields found, exactly as the walk would (the path only ever says
//! yes, see [`super::path`]); the property tests in `jsonscan/tests/shapes.rs` hold the two to
//! the same answer on every line and its variants.

use super::super::super::TopFields;
use super::super::Lexer;
use super::super::classify::{Avx2, scan_avx2};
use super::path::{Lanes, Path, TextMasks};
use super::{Fixed, MAX_LINE, MAX_TOKENS};
use crate::stream::avx2_bits as bits;
use std::arch::x86_64::*;

/// How many paths are kept: a turn of a chat stream has about ten kinds of line (the bench's
/// `project` streams: ten), and each must outlive a turn.
const WAYS: usize = 16;

/// After this many lines in a row that no path read, [`REST`] lines are walked without trying.
const COLD: u32 = 64;
const REST: u32 = 4096;

/// No way: see [`Way::next`].
const NONE: u8 = u8::MAX;

/// A kept path.
struct Way {
    path: Path,
    /// The way that read the line after the last line this one read ([`NONE`] if none did),
    /// and the one before that which was not the same: a run of lines of one kind ends with
    /// a line of another, and the way at the end of the run is the other guess.
    next: u8,
    other: u8,
    /// When it last read a line (a count of lines), for replacing the least recently used.
    used: u64,
}

/// The kept paths of a run of lines, and what the next line is tried with. Only made where the
/// CPU has AVX2 ([`Paths::new`]).
pub(in crate::stream::jsonscan) struct Paths {
    avx2: Avx2,
    ways: Vec<Way>,
    /// The way that read the line before, or [`NONE`].
    last: u8,
    /// Lines seen (the clock of [`Way::used`]).
    clock: u64,
    /// Lines in a row that no path read, and how many lines to walk without trying.
    cold: u32,
    rest: u32,
    /// [`COLD`], but for tests that want every line tried.
    cold_limit: u32,
    /// Token offsets of the line whose path is being made (16 bits: at most [`MAX_LINE`]).
    tokens: Vec<u16>,
    #[cfg(test)]
    hits: usize,
}

impl Paths {
    /// Paths, if the CPU has AVX2 (and what the AVX2 scan asks for).
    pub(in crate::stream::jsonscan) fn new() -> Option<Paths> {
        Some(Paths {
            avx2: Avx2::detect()?,
            ways: Vec::with_capacity(WAYS),
            last: NONE,
            clock: 0,
            cold: 0,
            rest: 0,
            cold_limit: COLD,
            tokens: Vec::with_capacity(MAX_TOKENS + 64),
            #[cfg(test)]
            hits: 0,
        })
    }

    /// Whether `s` is one JSON object ("invalid" is all a false says); if it is, its fields
    /// are in `top`. The same answer as [`super::super::scan`].
    #[inline]
    pub(in crate::stream::jsonscan) fn scan(&mut self, s: &[u8], top: &mut TopFields) -> bool {
        // SAFETY: `Paths` exist only when the CPU has what `scan_paths` is compiled for
        // (`Paths::new`).
        unsafe { scan_paths(self, s, top) }
    }

    /// Never rest, however few lines a path reads (for tests).
    #[cfg(test)]
    pub(in crate::stream::jsonscan) fn never_rest(&mut self) {
        self.cold_limit = u32::MAX;
    }

    /// How many lines were read along a path, without the walk (for tests).
    #[cfg(test)]
    pub(in crate::stream::jsonscan) fn hits(&self) -> usize {
        self.hits
    }

    /// The line after one of the last line's way was of way `w`.
    #[inline(always)]
    fn link(&mut self, w: u8) {
        if let Some(way) = self.ways.get_mut(usize::from(self.last))
            && way.next != w
        {
            way.other = way.next;
            way.next = w;
        }
    }

    /// Way `w` read this line.
    #[inline(always)]
    fn read_by(&mut self, w: u8) {
        self.link(w);
        self.ways[usize::from(w)].used = self.clock;
        self.last = w;
        self.cold = 0;
        #[cfg(test)]
        {
            self.hits += 1;
        }
    }

    /// A line that no path read: walked, and kept as a path when valid.
    ///
    /// # Safety
    /// The CPU must have what `Avx2` asks for (a `Paths` exists only where it does).
    #[cold]
    #[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2,popcnt")]
    unsafe fn missed(&mut self, s: &[u8], top: &mut TopFields) -> bool {
        self.cold += 1;
        if self.cold >= self.cold_limit {
            self.cold = 0;
            self.rest = REST;
        }
        // SAFETY: the caller's.
        let valid = unsafe { scan_avx2(s, self.avx2, top, None) };
        // SAFETY: the caller's.
        if valid && let Some(path) = unsafe { self.path_of(s, top) } {
            let way = Way {
                path,
                next: NONE,
                other: NONE,
                used: self.clock,
            };
            let w = if self.ways.len() < WAYS {
                self.ways.push(way);
                self.ways.len() - 1
            } else {
                let (w, _) = (self.ways.iter().enumerate())
                    .min_by_key(|(_, way)| way.used)
                    .expect("WAYS > 0");
                self.ways[w] = way;
                // What pointed at the way replaced would point at another path.
                for way in &mut self.ways {
                    for guess in [&mut way.next, &mut way.other] {
                        if usize::from(*guess) == w {
                            *guess = NONE;
                        }
                    }
                }
                w
            };
            self.link(w as u8);
            self.last = w as u8;
        } else {
            self.last = NONE;
        }
        valid
    }

    /// The path of the valid line `s`, whose fields the walk found: its tokens listed by one
    /// more classification of the line.
    ///
    /// # Safety
    /// As for [`Paths::missed`].
    #[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2,popcnt")]
    unsafe fn path_of(&mut self, s: &[u8], top: &TopFields) -> Option<Path> {
        let tokens = &mut self.tokens;
        tokens.clear();
        let mut lex = Lexer::new(self.avx2);
        while lex.next_block < s.len() {
            let base = lex.next_block as u16;
            let (mut t, _) = lex.fill(s);
            if tokens.len() + t.count_ones() as usize > MAX_TOKENS {
                return None;
            }
            while t != 0 {
                tokens.push(base + t.trailing_zeros() as u16);
                t &= t - 1;
            }
        }
        if lex.bad {
            return None;
        }
        super::path::of(s, tokens, top)
    }
}

/// [`Paths::scan`], compiled for AVX2 and what the classification asks for.
///
/// # Safety
/// The CPU must have what `Avx2` asks for.
#[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2,popcnt")]
unsafe fn scan_paths(paths: &mut Paths, s: &[u8], top: &mut TopFields) -> bool {
    paths.clock += 1;
    if s.is_empty() || s.len() > MAX_LINE {
        // SAFETY: the caller's.
        return unsafe { scan_avx2(s, paths.avx2, top, None) };
    }
    if paths.rest > 0 {
        paths.rest -= 1;
        paths.last = NONE;
        // SAFETY: the caller's.
        return unsafe { scan_avx2(s, paths.avx2, top, None) };
    }
    // The two ways that followed the last line's way lately, and that way itself, then the
    // others.
    let (next, other) = match paths.ways.get(usize::from(paths.last)) {
        Some(way) => (way.next, way.other),
        None => (NONE, NONE),
    };
    let guesses = [next, other, paths.last];
    for (i, &w) in guesses.iter().enumerate() {
        if let Some(way) = paths.ways.get(usize::from(w))
            && !guesses[..i].contains(&w)
            // SAFETY: the caller's CPU has AVX2, which `Avx2` stands for.
            && let Some(fields) = unsafe { way.path.follow(paths.avx2, s) }
        {
            *top = fields;
            paths.read_by(w);
            return true;
        }
    }
    for (w, way) in paths.ways.iter().enumerate() {
        let w = w as u8;
        if guesses.contains(&w) {
            continue;
        }
        // SAFETY: as above.
        if let Some(fields) = unsafe { way.path.follow(paths.avx2, s) } {
            *top = fields;
            paths.read_by(w);
            return true;
        }
    }
    // SAFETY: the caller's.
    unsafe { paths.missed(s, top) }
}

impl Lanes for Avx2 {
    #[inline(always)]
    unsafe fn found(self, fixed: Fixed, buffer: &[u8], s: &[u8], start: usize) -> bool {
        let len = fixed.len();
        let at = fixed.at as usize;
        if s.len() < start + 64 {
            // Near the line's end, where a whole register would read past it.
            return s.get(start..start + len) == Some(&buffer[at..at + len]);
        }
        // SAFETY: the caller's CPU has AVX2; 64 bytes of `s` from `start` (checked above) and
        // 64 of `buffer` from `at`, which has at least 64 bytes after each step's start.
        let equal = unsafe {
            let (line, kept) = (s.as_ptr().add(start), buffer.as_ptr().add(at));
            let low = _mm256_cmpeq_epi8(
                _mm256_loadu_si256(line.cast()),
                _mm256_loadu_si256(kept.cast()),
            );
            let high = _mm256_cmpeq_epi8(
                _mm256_loadu_si256(line.add(32).cast()),
                _mm256_loadu_si256(kept.add(32).cast()),
            );
            bits(low, high)
        };
        !equal & fixed.mask == 0
    }

    #[inline(always)]
    unsafe fn text_masks(self, s: &[u8], base: usize) -> TextMasks {
        let rest = s.len() - base;
        let mut last = [0u8; 64];
        let (from, valid) = if rest >= 64 {
            (&s[base..base + 64], !0)
        } else {
            // The line's last bytes, and zeros after them (outside `valid`).
            last[..rest].copy_from_slice(&s[base..]);
            (&last[..], (1u64 << rest) - 1)
        };
        // SAFETY: the caller's CPU has AVX2; two loads of 32 of the 64 bytes of `from`.
        unsafe {
            let low = _mm256_loadu_si256(from.as_ptr().cast());
            let high = _mm256_loadu_si256(from.as_ptr().add(32).cast());
            let is = |b: u8| {
                let b = _mm256_set1_epi8(b as i8);
                bits(_mm256_cmpeq_epi8(low, b), _mm256_cmpeq_epi8(high, b))
            };
            // Below 0x20: unchanged by an unsigned minimum with 0x1F.
            let ceiling = _mm256_set1_epi8(0x1F);
            let control = bits(
                _mm256_cmpeq_epi8(_mm256_min_epu8(low, ceiling), low),
                _mm256_cmpeq_epi8(_mm256_min_epu8(high, ceiling), high),
            );
            TextMasks {
                quote: is(b'"'),
                backslash: is(b'\\'),
                control: control & valid,
                high: bits(low, high),
                valid,
            }
        }
    }
}
