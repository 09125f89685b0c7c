//! A long line checked on two cores: the walk goes through the line from its start while a
//! helper thread takes its pieces from the end backwards, until the two meet.
//!
//! The helper checks each of its pieces' UTF-8, and classifies the piece as the walk would if
//! the piece began inside a string (what a piece of a report or a state of megabytes almost
//! always does), the escape carried in worked out from the backslashes just before it. Where
//! that finds no token and no bad byte, it keeps the classification's state at the piece's
//! end. When the walk reaches the piece in exactly the state assumed (inside a string, the same
//! escape carried in, no number running on), it jumps over the piece to that end state: the
//! classification is a function of its state and the bytes, so the walk goes on as if it had
//! classified the piece itself. In any other state it classifies the piece itself. The walk
//! checks the UTF-8 of the pieces it takes, and of the rest of the line after the last piece.

use super::{CHUNK, Chunk, Classify, Lexer};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// The size of a piece: a whole number of chunks, so that the walk's chunks start on a piece's
/// start, and small enough that a piece whose UTF-8 was just checked is still in the core's
/// L2 cache when it is classified. (A few chunks in unit tests, so that lines of kilobytes are
/// cut into pieces.)
pub(in crate::stream::jsonscan) const PIECE: usize =
    if cfg!(test) { CHUNK * 64 } else { 256 << 10 };

/// How many pieces the walk jumped over (for tests: it only ever grows).
#[cfg(test)]
pub(in crate::stream::jsonscan) static SKIPPED: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

#[cfg(test)]
thread_local! {
    /// Whether [`super::scan_long`] on this thread runs the helper's part before the walk.
    pub(in crate::stream::jsonscan) static HELPER_FIRST: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

const FREE: u8 = 0;
const WALK: u8 = 1;
const HELPER: u8 = 2;

/// What the helper found in one piece.
#[derive(Clone, Copy, Debug)]
pub(super) struct Done {
    /// The piece's UTF-8 is valid.
    pub utf8: bool,
    /// Where the piece can be jumped over, and how.
    pub skip: Option<Skip>,
}

/// A piece classified from inside a string with `escape_in` carried in, holding no token and
/// no bad byte: the classification's state at its end.
#[derive(Clone, Copy, Debug)]
pub(super) struct Skip {
    pub escape_in: u64,
    pub escape_out: u64,
    pub in_string_out: u64,
    pub scalar_out: u64,
}

/// The pieces of one line, shared by the walk and the helper.
pub(in crate::stream::jsonscan) struct Pieces {
    /// The whole pieces; the rest of the line after them (at least a byte) is the walk's.
    pub count: usize,
    taken: Vec<AtomicU8>,
    done: Vec<OnceLock<Done>>,
    stop: AtomicBool,
}

impl Pieces {
    pub(in crate::stream::jsonscan) fn new(len: usize) -> Pieces {
        let count = len.saturating_sub(1) / PIECE;
        Pieces {
            count,
            taken: (0..count).map(|_| AtomicU8::new(FREE)).collect(),
            done: (0..count).map(|_| OnceLock::new()).collect(),
            stop: AtomicBool::new(false),
        }
    }

    /// The walk is done (or has found the line invalid): the helper takes no more pieces.
    pub(in crate::stream::jsonscan) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The walk's claim on piece `k`: `None` when the piece is the walk's to check, else what
    /// the helper found in it (waiting for the helper to finish a piece it has begun).
    pub(super) fn take(&self, k: usize) -> Option<Done> {
        if self.taken[k]
            .compare_exchange(FREE, WALK, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return None;
        }
        let mut spins = 0u32;
        loop {
            if let Some(done) = self.done[k].get() {
                return Some(*done);
            }
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Whether piece `k` (the rest of the line after the last piece when `k` is `count`) is
    /// UTF-8. A piece's bytes run from the first character that starts at or after its start
    /// (at most three continuation bytes on) to the same place of the next piece: pieces of a
    /// valid text are valid, and an invalid text has an invalid piece.
    pub(super) fn utf8(&self, s: &[u8], k: usize) -> bool {
        let from = char_start(s, k * PIECE);
        let to = if k < self.count {
            char_start(s, (k + 1) * PIECE)
        } else {
            s.len()
        };
        simdutf8::basic::from_utf8(&s[from..to]).is_ok()
    }

    /// The helper's work: pieces from the last down to the second (the walk starts with the
    /// first), until one is the walk's or the walk is done.
    pub(in crate::stream::jsonscan) fn help<C: Classify>(&self, s: &[u8], classify: C) {
        for k in (1..self.count).rev() {
            if self.stop.load(Ordering::Relaxed)
                || self.taken[k]
                    .compare_exchange(FREE, HELPER, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
            {
                return;
            }
            // A panic here (there is none to expect) must not leave the walk waiting: the
            // piece then counts as invalid, which the byte-at-a-time scanner looks into.
            let guard = Unfinished(&self.done[k]);
            let utf8 = self.utf8(s, k);
            let skip = if utf8 {
                speculate(s, k, classify)
            } else {
                None
            };
            let _ = self.done[k].set(Done { utf8, skip });
            std::mem::forget(guard);
        }
    }
}

/// Marks a piece the helper did not finish as invalid.
struct Unfinished<'a>(&'a OnceLock<Done>);

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        let _ = self.0.set(Done {
            utf8: false,
            skip: None,
        });
    }
}

/// The first place at or after `at` where a character starts (at most three bytes on).
fn char_start(s: &[u8], at: usize) -> usize {
    let mut to = at.min(s.len());
    let mut on = 0;
    while to < s.len() && on < 3 && s[to] & 0xC0 == 0x80 {
        to += 1;
        on += 1;
    }
    to
}

/// Piece `k` classified as from inside a string: its end state, where it holds no token and
/// no bad byte.
fn speculate<C: Classify>(s: &[u8], k: usize, classify: C) -> Option<Skip> {
    let start = k * PIECE;
    // Inside a string, the first byte is escaped after an odd run of backslashes (the run's
    // first backslash is never escaped itself).
    let run = s[..start].iter().rev().take_while(|&&b| b == b'\\').count();
    let escape_in = (run & 1) as u64;
    let mut lex = Lexer::new(classify);
    lex.next_block = start;
    lex.escape_carry = escape_in;
    lex.in_string = !0;
    lex.utf8_done = s.len();
    let mut chunk = Chunk::new();
    let end = start + PIECE;
    while lex.next_block < end {
        C::refill(&mut lex, s, &mut chunk);
        if lex.bad || chunk.tokens[..chunk.len].iter().any(|&t| t != 0) {
            return None;
        }
    }
    Some(Skip {
        escape_in,
        escape_out: lex.escape_carry,
        in_string_out: lex.in_string,
        scalar_out: lex.scalar_carry,
    })
}
