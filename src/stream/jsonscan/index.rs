//! The structural-index scanner (the simdjson approach, validating only): the line is read 64
//! bytes at a time and each block is classified into bit masks (quotes, backslashes, the six
//! structural characters, spaces, control and non-ASCII bytes); escapes and string interiors are
//! resolved with bit arithmetic, which leaves one mask per block of the positions where a token
//! starts (a structural character, a string's opening quote, the first byte of a number or
//! literal). Up to 16 blocks are classified at a time, ahead of the walk (a typical line in
//! one call). The grammar is then checked token by token from those positions, so the bytes
//! inside strings, which are most of a line, cost nothing past their classification; a
//! string's end, where the rule wants it, is found back from the token after it.
//!
//! It only answers whether a line is valid (and where the rule's fields are): the caller asks
//! the byte-at-a-time scanner ([`super::precise`]) where and why a rejected line is not, so
//! both must agree on every input (the property tests check that against serde_json).
//!
//! Classification runs on AVX-512 (F and BW) or AVX2 when the CPU has it (detected once at run
//! time), else on SSE2 (part of every x86_64), else on a portable table lookup. With AVX-512 or
//! AVX2 the whole scan of a line is one function compiled for it (and PCLMULQDQ, for the prefix
//! XOR of the quotes), so that the cursor lives in registers, and a chunk's classification is
//! one call compiled for them.
//!
//! A run of lines (a [`super::FrameScanner`]) where the CPU has AVX-512 VBMI2 goes through
//! [`shapes`] first: a line whose token bytes are those of a line accepted before is checked
//! without the walk, from what the walk found then.

use super::{BitStack, GraphPath, Key, MAX_DEPTH, Span, TopFields, key_of, unescape};

mod classify;
mod pieces;
#[cfg(target_arch = "x86_64")]
mod shapes;

use pieces::Pieces;
#[cfg(test)]
pub(super) use pieces::{HELPER_FIRST, PIECE, SKIPPED};
use std::sync::Arc;

pub(super) use classify::Classify;
#[cfg(test)]
pub(super) use classify::Masks;
#[cfg(test)]
pub(super) use classify::portable;
#[cfg(not(target_arch = "x86_64"))]
use classify::portable::Portable;
#[cfg(target_arch = "x86_64")]
pub(super) use classify::{Avx2, Avx512, Sse2};
#[cfg(target_arch = "x86_64")]
pub(super) use shapes::{Paths, Shapes};

/// Whether `s` is one JSON object ("invalid" is all a false says); if it is, its fields are
/// in `top`.
#[inline]
pub(super) fn scan(s: &[u8], top: &mut TopFields) -> bool {
    if s.len() >= UTF8_APART {
        return scan_long(s, top);
    }
    scan_checking(s, top, None)
}

/// [`scan`] on the CPU's best classification; with `long`, a long line's pieces (their UTF-8
/// checked by whoever takes them, not by the walk).
#[inline]
fn scan_checking(s: &[u8], top: &mut TopFields, long: Option<&Arc<Pieces>>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: an `Avx512` or an `Avx2` exists only when the CPU has the features its scan
        // is compiled for.
        if let Some(avx512) = Avx512::detect() {
            unsafe { classify::scan_avx512(s, avx512, top, long) }
        } else if let Some(avx2) = Avx2::detect() {
            unsafe { classify::scan_avx2(s, avx2, top, long) }
        } else {
            scan_into(s, Sse2, top, long)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    scan_into(s, Portable, top, long)
}

/// A line of at least this many bytes is checked on two cores ([`pieces`]): a report or a
/// state of many megabytes in one line, which one core would otherwise walk alone. As long as
/// a block of `extract-final`'s parallel scan: the other worker then skips blocks inside the
/// line and has a core to spare, where lines of a megabyte keep both workers busy with lines
/// of their own. (Smaller in unit tests, so that lines of a few kilobytes go this way.)
pub(super) const UTF8_APART: usize = if cfg!(test) { 4 << 10 } else { 4 << 20 };
/// How many lines went through [`scan_long`] (for tests: it only ever grows).
#[cfg(test)]
pub(super) static LONG_SCANS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// [`scan`] of a long line: walked from its start here while a helper thread takes its pieces
/// from the end ([`pieces`]). Where no thread can be started, all of it here.
#[cold]
fn scan_long(s: &[u8], top: &mut TopFields) -> bool {
    #[cfg(test)]
    LONG_SCANS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let pieces = Arc::new(Pieces::new(s.len()));
    // Tests ask for the helper's whole part first at times: then the walk meets every piece
    // the helper has done, whatever the threads' timing.
    #[cfg(test)]
    if pieces::HELPER_FIRST.get() {
        help(&pieces, s);
    }
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("scan-ahead".into())
            .spawn_scoped(scope, || help(&pieces, s));
        let Ok(helper) = helper else {
            return scan_checking(s, top, None);
        };
        let valid = scan_checking(s, top, Some(&pieces));
        pieces.stop();
        // A panic on the other thread (there is none to expect) counts as invalid, which the
        // byte-at-a-time scanner then looks into.
        helper.join().is_ok() && valid
    })
}

/// The helper's part of [`scan_long`], on the CPU's best classification.
fn help(pieces: &Pieces, s: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(avx512) = Avx512::detect() {
            pieces.help(s, avx512)
        } else if let Some(avx2) = Avx2::detect() {
            pieces.help(s, avx2)
        } else {
            pieces.help(s, Sse2)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    pieces.help(s, Portable)
}

/// The odd bits of a word: a backslash run that starts on one ends on an even bit when its
/// length is odd.
const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
const EVEN: u64 = !ODD;

/// The bytes escaped by a backslash (those right after an odd-length run of backslashes),
/// carrying a run that ends the block into the next one. simdjson's
/// `find_odd_backslash_sequences`.
#[inline(always)]
pub(super) fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    if backslash == 0 {
        return std::mem::take(carry);
    }
    let start_edges = backslash & !(backslash << 1);
    // A run continued from the previous block starts one byte "earlier" than bit 0.
    let even_start_mask = EVEN ^ *carry;
    let even_starts = start_edges & even_start_mask;
    let odd_starts = start_edges & !even_start_mask;
    let even_carries = backslash.wrapping_add(even_starts);
    let (mut odd_carries, overflow) = backslash.overflowing_add(odd_starts);
    odd_carries |= *carry;
    *carry = u64::from(overflow);
    let even_carry_ends = even_carries & !backslash;
    let odd_carry_ends = odd_carries & !backslash;
    (even_carry_ends & ODD) | (odd_carry_ends & EVEN)
}

/// The tokens of a line, in order, block by block.
pub(super) struct Cursor<'a, C> {
    s: &'a [u8],
    /// Offset of the block the pending tokens are in.
    base: usize,
    /// Token starts of the current block not handed out yet.
    tokens: u64,
    /// Which of the chunk's blocks is the current one.
    word: usize,
    /// The blocks classified ahead of the walk.
    chunk: Chunk,
    /// The classification's state between chunks.
    lex: Lexer<C>,
}

/// How many blocks are classified at a time, ahead of the walk: a line of up to 1 KiB in one
/// call, so that the walk makes no call per block and the classification of one block
/// overlaps the next one's.
const CHUNK: usize = 16;

/// Up to [`CHUNK`] consecutive blocks, classified.
pub(super) struct Chunk {
    /// Offset of the first block.
    base: usize,
    /// How many blocks it holds.
    len: usize,
    /// Per block: where tokens start, and the backslashes (for a string's `escaped`).
    tokens: [u64; CHUNK],
    backslash: [u64; CHUNK],
}

impl Chunk {
    fn new() -> Chunk {
        Chunk {
            base: 0,
            len: 0,
            tokens: [0; CHUNK],
            backslash: [0; CHUNK],
        }
    }
}

/// The classification's state between blocks.
pub(super) struct Lexer<C> {
    classify: C,
    /// Offset of the next block.
    next_block: usize,
    /// Carries into the next block: a pending escape (0/1), inside a string (0/all ones),
    /// a number or literal running on (0/1).
    escape_carry: u64,
    in_string: u64,
    scalar_carry: u64,
    /// A byte no valid line holds was met (a control character or a bad escape).
    bad: bool,
    /// Where the last run of non-ASCII bytes checked to be UTF-8 ended.
    utf8_done: usize,
    /// A long line's pieces, and where the next one starts (`usize::MAX`: none).
    pieces: Option<Arc<Pieces>>,
    piece_at: usize,
}

impl<'a, C: Classify> Cursor<'a, C> {
    fn new(s: &'a [u8], classify: C) -> Self {
        Cursor {
            s,
            base: 0,
            tokens: 0,
            word: 0,
            chunk: Chunk::new(),
            lex: Lexer::new(classify),
        }
    }

    /// The offset of the next token, or None at the end of the line (or after a bad byte).
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.tokens == 0 {
            self.word += 1;
            if self.word >= self.chunk.len {
                if self.lex.next_block >= self.s.len() {
                    return None;
                }
                C::refill(&mut self.lex, self.s, &mut self.chunk);
                self.word = 0;
            }
            // In bounds: `word` < `len` <= CHUNK, a power of two.
            self.tokens = self.chunk.tokens[self.word % CHUNK];
            self.base = self.chunk.base + 64 * self.word;
        }
        let at = self.base + self.tokens.trailing_zeros() as usize;
        self.tokens &= self.tokens - 1;
        Some(at)
    }

    /// Whether the string between `start` and its closing quote at `end` holds a backslash.
    /// The token after the string is in the current chunk, so `end` is too, unless the string
    /// began in an earlier chunk.
    #[inline(always)]
    fn escaped(&self, start: usize, end: usize) -> bool {
        let Some(from) = start.checked_sub(self.chunk.base) else {
            return escaped_slow(self.s, start, end);
        };
        any_bit(&self.chunk.backslash, from, end - self.chunk.base)
    }

    /// The closing quote of the string whose opening quote is at `open`, `next` being the
    /// token after the string. Closing quotes are not tokens: only the string's own bytes, its
    /// closing quote and white space can lie between an opening quote and the next token (any
    /// other byte starts a token), so the quote is the last byte before `next` that is not
    /// white space.
    #[inline(always)]
    fn closing_quote(&self, open: usize, next: usize) -> Option<usize> {
        closing_quote(self.s, open, next)
    }

    /// The string whose opening quote is at `open`: its span (`escaped` is worked out only
    /// when `want_escaped`), and the token after it.
    #[inline(always)]
    fn string(&mut self, open: usize, want_escaped: bool) -> Option<(Span, usize)> {
        let next = self.next()?;
        let end = self.closing_quote(open, next)?;
        let span = Span {
            start: open + 1,
            end,
            escaped: want_escaped && self.escaped(open + 1, end),
        };
        Some((span, next))
    }

    /// `"key"` and `:` at `open`: at the top level, which key it is.
    #[inline(always)]
    fn key(&mut self, open: usize, top_level: bool) -> Option<Key> {
        if self.s[open] != b'"' {
            return None;
        }
        let colon = self.next()?;
        if self.s[colon] != b':' {
            return None;
        }
        if !top_level {
            return Some(Key::Other);
        }
        let end = self.closing_quote(open, colon)?;
        let key = {
            match key_of(&self.s[open + 1..end]) {
                // A known key holds no backslash; any other might be one escaped.
                Key::Other if self.escaped(open + 1, end) => {
                    let span = Span {
                        start: open + 1,
                        end,
                        escaped: true,
                    };
                    unescape(self.s, span).map_or(Key::Other, |k| key_of(k.as_bytes()))
                }
                key => key,
            }
        };
        Some(key)
    }

    /// A number or literal starting at `at`: where it ends (see [`atom`]).
    #[inline(always)]
    fn atom(&self, at: usize) -> Option<usize> {
        atom(self.s, at)
    }

    /// One value starting at token `at`, inside `outer` containers, validated: where it ends.
    /// Without recursion: open containers are bits (1 = object). Inlined like the rest of the
    /// walk, so that it is compiled for the scan's CPU features (it classifies blocks too).
    #[inline(always)]
    fn value(&mut self, mut at: usize, outer: usize) -> Option<usize> {
        let s = self.s;
        let mut stack = BitStack::default();
        loop {
            let mut end = match s[at] {
                open @ (b'{' | b'[') => {
                    if outer + stack.len() >= MAX_DEPTH {
                        return None;
                    }
                    let next = self.next()?;
                    let close = if open == b'{' { b'}' } else { b']' };
                    if s[next] == close {
                        next + 1
                    } else {
                        stack.push(open == b'{');
                        at = next;
                        if open == b'{' {
                            self.key(next, false)?;
                            at = self.next()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    // A string inside a container (the callers read a string of their own
                    // with `string`): nothing to consume, its closing quote being no token,
                    // and its end is never returned, the stack holding its container.
                    debug_assert!(stack.len() > 0);
                    at + 1
                }
                _ => self.atom(at)?,
            };
            // After a value: close containers or move to the next element.
            loop {
                if stack.len() == 0 {
                    return Some(end);
                }
                let next = self.next()?;
                match (s[next], stack.last_is_object()) {
                    (b',', true) => {
                        let key = self.next()?;
                        self.key(key, false)?;
                        at = self.next()?;
                        break;
                    }
                    (b',', false) => {
                        at = self.next()?;
                        break;
                    }
                    (b'}', true) | (b']', false) => {
                        stack.pop();
                        end = next + 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// The line's object, at its `{`: keys matched and the rule's fields noted.
    #[inline(always)]
    fn object(&mut self, top: &mut TopFields) -> Option<()> {
        let s = self.s;
        let mut at = self.next()?;
        if s[at] == b'}' {
            return Some(());
        }
        loop {
            let key = self.key(at, true)?;
            top.forget(key);
            let v = self.next()?;
            let next = match s[v] {
                b'"' => {
                    let wanted = matches!(key, Key::Id | Key::Role | Key::Content | Key::Sort);
                    let (span, next) = self.string(v, wanted)?;
                    top.record_str(key, span);
                    next
                }
                b'[' if key == Key::GraphPath => {
                    self.graph_path(top)?;
                    self.next()?
                }
                b'{' | b'[' => {
                    let end = self.value(v, 1)?;
                    top.record_raw(key, v, end);
                    self.next()?
                }
                _ => {
                    let end = self.atom(v)?;
                    match s[v] {
                        b'n' => {} // null reads as absent
                        b't' if key == Key::IsDelta => top.is_delta = true,
                        _ => top.record_raw(key, v, end),
                    }
                    self.next()?
                }
            };
            match s[next] {
                b',' => at = self.next()?,
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// `graphPath`'s array, its `[` just read: count the elements and keep the first if a
    /// string.
    #[inline(always)]
    fn graph_path(&mut self, top: &mut TopFields) -> Option<()> {
        let s = self.s;
        let mut path = GraphPath::default();
        let mut at = self.next()?;
        if s[at] != b']' {
            loop {
                path.len += 1;
                let next = if s[at] == b'"' {
                    let (span, next) = self.string(at, path.len == 1)?;
                    if path.len == 1 {
                        path.head = Some(span);
                    }
                    next
                } else {
                    self.value(at, 2)?;
                    self.next()?
                };
                match s[next] {
                    b',' => at = self.next()?,
                    b']' => break,
                    _ => return None,
                }
            }
        }
        top.graph_path = Some(path);
        Some(())
    }
}

/// Whether any of bits `start..end` is set in `words` (bit `i` of the string is bit `i % 64`
/// of word `i / 64`): whether a string between them holds a backslash, from the blocks' masks.
#[inline(always)]
fn any_bit(words: &[u64], start: usize, end: usize) -> bool {
    let below = |i: usize| (1u64 << (i % 64)) - 1;
    let (first, last) = (start / 64, end / 64);
    if first == last {
        return words[first] & below(end) & !below(start) != 0;
    }
    words[first] & !below(start) != 0
        || words[first + 1..last].iter().any(|&w| w != 0)
        || words[last] & below(end) != 0
}

/// The closing quote of the string of `s` whose opening quote is at `open`, `next` being the
/// token after the string: the last byte before `next` that is not white space (see
/// [`Cursor::closing_quote`]).
#[inline(always)]
fn closing_quote(s: &[u8], open: usize, next: usize) -> Option<usize> {
    let mut end = next - 1;
    while matches!(s[end], b' ' | b'\t' | b'\r' | b'\n') {
        end -= 1;
    }
    (end > open).then_some(end)
}

/// A number or literal of `s` starting at `at`: where it ends. It must fill its whole run of
/// non-structural bytes.
#[inline(always)]
fn atom(s: &[u8], at: usize) -> Option<usize> {
    // Fixed-size compares: a load and a compare each, no memcmp call.
    let is = |word: &[u8; 4]| s.get(at..at + 4) == Some(word.as_slice());
    let end = match s[at] {
        b't' if is(b"true") => at + 4,
        b'f' if s.get(at + 1..at + 5) == Some(b"alse".as_slice()) => at + 5,
        b'n' if is(b"null") => at + 4,
        _ => number(s, at)?,
    };
    match s.get(end) {
        None | Some(b'{' | b'}' | b'[' | b']' | b':' | b',' | b'"') => Some(end),
        Some(b' ' | b'\t' | b'\n' | b'\r') => Some(end),
        Some(_) => None,
    }
}

impl<C: Classify> Lexer<C> {
    /// The classification of a line from its start.
    fn new(classify: C) -> Self {
        Lexer {
            classify,
            next_block: 0,
            escape_carry: 0,
            in_string: 0,
            scalar_carry: 0,
            bad: false,
            utf8_done: 0,
            pieces: None,
            piece_at: usize::MAX,
        }
    }

    /// Classify the next blocks of `s`, up to a chunk's worth, into `chunk`.
    #[inline(always)]
    pub(super) fn fill_chunk(&mut self, s: &[u8], chunk: &mut Chunk) {
        if self.next_block == self.piece_at {
            self.enter_pieces(s);
            if self.bad {
                // No more tokens: one empty block, so that the cursor asks for no more.
                chunk.base = self.next_block;
                chunk.tokens[0] = 0;
                chunk.backslash[0] = 0;
                chunk.len = 1;
                return;
            }
        }
        chunk.base = self.next_block;
        let mut len = 0;
        while len < CHUNK && self.next_block < s.len() {
            (chunk.tokens[len], chunk.backslash[len]) = self.fill(s);
            len += 1;
        }
        chunk.len = len;
    }

    /// Classify the next block of `s`: its token starts and its backslashes.
    #[inline(always)]
    fn fill(&mut self, s: &[u8]) -> (u64, u64) {
        if self.in_string == !0
            && self.next_block + 64 <= s.len()
            && let Some(block) = self.fill_in_string(s)
        {
            return block;
        }
        let base = self.next_block;
        let (m, valid) = self.classify.classify_at(s, base);
        self.next_block = base + 64;
        let escaped = escaped_bytes(m.backslash, &mut self.escape_carry);
        let quote = m.quote & !escaped;
        // From an opening quote (included) to its closing quote (excluded).
        let in_string = self.classify.prefix_xor(quote) ^ self.in_string;
        self.in_string = ((in_string as i64) >> 63) as u64;
        // Past the end of the line is white space (and nothing else).
        let mut white = m.space | !valid;
        let control = m.low & !m.high;
        if control != 0 {
            // Tab, line feed and carriage return are white space outside strings; every other
            // control character, and any inside a string, makes the line invalid.
            let mut allowed = 0;
            let mut c = control;
            while c != 0 {
                let i = c.trailing_zeros();
                c &= c - 1;
                if matches!(s[base + i as usize], b'\t' | b'\n' | b'\r') {
                    allowed |= 1 << i;
                }
            }
            if control & (in_string | !allowed) != 0 {
                return self.fail(s);
            }
            white |= allowed;
        }
        if escaped != 0 && !self.classify.escapes_valid(s, base, escaped) {
            return self.fail(s);
        }
        if !self.utf8_valid(s, base, m.high) {
            return self.fail(s);
        }
        // Bytes outside strings that are neither structure nor white space: numbers and
        // literals (and anything invalid, which their own check refuses). A token starts
        // where such a run starts.
        let scalar = !(m.op | white | quote | in_string);
        let scalar_start = scalar & !((scalar << 1) | self.scalar_carry);
        self.scalar_carry = scalar >> 63;
        // Opening quotes only: `in_string` holds a string's opening quote, not its closing one.
        (
            (m.op & !in_string) | (quote & in_string) | scalar_start,
            m.backslash,
        )
    }

    /// [`Lexer::fill`] of a whole block that begins inside a string and stays in it (no quote
    /// that is not escaped) and holds no control character: most of a long text's blocks.
    /// Such a block starts no token, so only the classes a string's bytes need are looked at
    /// (quotes, backslashes, control and non-ASCII bytes; not the structure, the white space
    /// and the scalars), which makes a long string cost about half a block of tokens. None,
    /// and nothing changed, for any other block.
    #[inline(always)]
    fn fill_in_string(&mut self, s: &[u8]) -> Option<(u64, u64)> {
        let base = self.next_block;
        // The classes not used here are not computed: the classification inlines into this.
        let (m, _) = self.classify.classify_at(s, base);
        let mut carry = self.escape_carry;
        let escaped = escaped_bytes(m.backslash, &mut carry);
        if m.quote & !escaped != 0 || m.low & !m.high != 0 {
            return None;
        }
        self.next_block = base + 64;
        self.escape_carry = carry;
        // Inside a string throughout: no scalar runs on into the next block.
        self.scalar_carry = 0;
        if escaped != 0 && !self.classify.escapes_valid(s, base, escaped) {
            return Some(self.fail(s));
        }
        if !self.utf8_valid(s, base, m.high) {
            return Some(self.fail(s));
        }
        Some((0, m.backslash))
    }

    /// Whether the non-ASCII bytes of the block at `base` (`high`, a bit each) that are not
    /// checked yet are UTF-8; moves `utf8_done` on past what it checked.
    #[inline(always)]
    fn utf8_valid(&mut self, s: &[u8], base: usize, high: u64) -> bool {
        if high == 0 || self.utf8_done >= s.len() {
            return true;
        }
        // Where the bytes not yet checked begin is a character boundary: `utf8_done` ends a
        // checked run at an ASCII byte, and before it (or before `base`) every non-ASCII
        // byte lay in a checked run. Text dense in non-ASCII, or a long rest of a line, is
        // checked at once from there (simdutf8: many bytes a cycle) instead of character
        // by character, a branch each, which made such text cost several times ASCII's; a
        // few non-ASCII bytes in a short line (a `€`, an `Über`) keep the check of their
        // runs, cheaper than the set-up of a SIMD pass.
        let from = base.max(self.utf8_done);
        if high.count_ones() >= 16 || s.len() - from >= 4096 {
            if simdutf8::basic::from_utf8(&s[from..]).is_err() {
                return false;
            }
            self.utf8_done = s.len();
            true
        } else {
            utf8_is_valid(s, base, high, &mut self.utf8_done)
        }
    }

    /// At the start of a long line's piece ([`pieces`]): the walk takes it (checking its
    /// UTF-8) or jumps over it where the helper has classified it from the state the walk is
    /// in, and so on over the pieces after it.
    #[cold]
    #[inline(never)]
    fn enter_pieces(&mut self, s: &[u8]) {
        let Some(pieces) = self.pieces.clone() else {
            self.piece_at = usize::MAX;
            return;
        };
        loop {
            let k = self.next_block / pieces::PIECE;
            if k >= pieces.count {
                self.piece_at = usize::MAX;
                if !pieces.utf8(s, pieces.count) {
                    self.fail(s);
                }
                return;
            }
            self.piece_at = (k + 1) * pieces::PIECE;
            let Some(done) = pieces.take(k) else {
                if !pieces.utf8(s, k) {
                    self.fail(s);
                }
                return;
            };
            if !done.utf8 {
                self.fail(s);
                return;
            }
            match done.skip {
                Some(skip)
                    if self.in_string == !0
                        && self.escape_carry == skip.escape_in
                        && self.scalar_carry == 0 =>
                {
                    self.next_block = self.piece_at;
                    self.escape_carry = skip.escape_out;
                    self.in_string = skip.in_string_out;
                    self.scalar_carry = skip.scalar_out;
                    #[cfg(test)]
                    pieces::SKIPPED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                _ => return,
            }
        }
    }

    /// A byte no valid line holds: no more tokens.
    #[cold]
    fn fail(&mut self, s: &[u8]) -> (u64, u64) {
        self.bad = true;
        self.next_block = s.len();
        (0, 0)
    }
}

/// Whether `s[start..end]` holds a backslash: for a string that began in an earlier chunk than
/// the current one. Rare: only long lines have more than one chunk.
#[cold]
fn escaped_slow(s: &[u8], start: usize, end: usize) -> bool {
    s[start..end].contains(&b'\\')
}

/// Each escaped byte (at `base` + its bit) is one JSON allows after a backslash. Out of line:
/// escapes are rare but in strings of escaped JSON, where the classification looks a block's
/// up at once ([`Classify::escapes_valid`]).
#[inline(never)]
pub(super) fn escapes_are_valid(s: &[u8], base: usize, mut escaped: u64) -> bool {
    while escaped != 0 {
        let at = base + escaped.trailing_zeros() as usize;
        escaped &= escaped - 1;
        match s.get(at) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {}
            Some(b'u') => {
                let hex = s.get(at + 1..at + 5);
                if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The runs of non-ASCII bytes that start in the block at `base` (bits of `high`) are
/// well-formed UTF-8. A sequence lies wholly inside one run (ASCII bytes are never part of
/// one), so checking the runs checks the line; a run may go on into the next block.
#[inline(always)]
fn utf8_is_valid(s: &[u8], base: usize, mut high: u64, utf8_done: &mut usize) -> bool {
    if *utf8_done > base {
        // A run checked from an earlier block may cover this one and go on past it.
        high &= !below(*utf8_done - base);
    }
    while high != 0 {
        let Some(i) = utf8_run(s, base + high.trailing_zeros() as usize) else {
            return false;
        };
        *utf8_done = i;
        if i >= base + 64 {
            break;
        }
        high &= !((1u64 << (i - base)) - 1);
    }
    true
}

/// The bits below bit `n` (all of them from 64 on: a shift by 64 or more is no shift).
#[inline(always)]
fn below(n: usize) -> u64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

/// Where the run of non-ASCII bytes at `i` ends (the next ASCII byte, or the end), if it is
/// well-formed UTF-8 (Unicode Table 3-7, as `utf8_len` reads it). Each sequence is checked
/// from one four-byte load and two small tables rather than a branch per byte: the lengths of
/// the characters in a text vary at random, and mispredicted branches were most of the cost.
#[inline(always)]
pub(super) fn utf8_run(s: &[u8], mut i: usize) -> Option<usize> {
    /// Per lead byte: the sequence's length (0: not a lead byte) in bits 0-2, and in bits 3-5
    /// which range its second byte must be in (an index into `SECOND`).
    const LEAD: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut b = 0xC2;
        while b <= 0xF4 {
            t[b] = match b {
                0xC2..=0xDF => 2,
                0xE0 => 3 | 1 << 3,
                0xED => 3 | 2 << 3,
                0xE1..=0xEF => 3,
                0xF0 => 4 | 3 << 3,
                0xF4 => 4 | 4 << 3,
                _ => 4,
            };
            b += 1;
        }
        t
    };
    const SECOND: [(u8, u8); 5] = [
        (0x80, 0xBF),
        (0xA0, 0xBF),
        (0x80, 0x9F),
        (0x90, 0xBF),
        (0x80, 0x8F),
    ];
    /// Per length: the top two bits of bytes 2 and 3 that must read `10` (bits 16-31 of the
    /// load), and what they must be.
    const REST: [(u32, u32); 5] = [
        (0, 0),
        (0, 0),
        (0, 0),
        (0x00C0_0000, 0x0080_0000),
        (0xC0C0_0000, 0x8080_0000),
    ];
    while let Some(&lead) = s.get(i) {
        if lead < 0x80 {
            return Some(i);
        }
        let word = match s.get(i..i + 4) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
            None => {
                // Past the end reads as zero bytes, which no sequence continues with.
                let mut w = [0u8; 4];
                w[..s.len() - i].copy_from_slice(&s[i..]);
                u32::from_le_bytes(w)
            }
        };
        let class = LEAD[usize::from(lead)];
        let len = usize::from(class & 7);
        let (lo, hi) = SECOND[usize::from(class >> 3)];
        let second = (word >> 8) as u8;
        let (mask, want) = REST[len];
        if len == 0 || second < lo || second > hi || word & mask != want {
            return None;
        }
        i += len;
    }
    Some(i)
}

/// How many of the bytes of `word` (in memory order) are ASCII digits before the first that is
/// not. A byte is a digit when its high nibble is 3 and adding 6 keeps it so; a carry out of a
/// byte of 0xFA or more only reaches later bytes, after the non-digit it already is.
#[inline(always)]
pub(super) fn leading_digits(word: u64) -> usize {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const THREE: u64 = 0x3030_3030_3030_3030;
    let not_digit =
        ((word & HIGH) ^ THREE) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH) ^ THREE);
    not_digit.trailing_zeros() as usize / 8
}

/// A JSON number starting at `i`: where it ends.
#[inline]
fn number(s: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        let start = i;
        // Eight bytes at a time: most numbers (a frame's `sort`) end within one word.
        while let Some(word) = s.get(i..i + 8) {
            let n = leading_digits(u64::from_le_bytes(word.try_into().unwrap()));
            i += n;
            if n < 8 {
                return (i > start).then_some(i);
            }
        }
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if s[i] == b'-' {
        i += 1;
    }
    match s.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i)?,
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        i = digits(i + 1)?;
    }
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = s.get(i) {
            i += 1;
        }
        i = digits(i)?;
    }
    Some(i)
}

/// [`scan`] with the given classification, the fields returned (for tests).
#[cfg(test)]
pub(super) fn scan_with<C: Classify>(s: &[u8], classify: C) -> Option<TopFields> {
    let mut top = TopFields::default();
    scan_into(s, classify, &mut top, None).then_some(top)
}

/// [`scan`] with the given classification; with `long`, a long line's pieces, which check
/// its UTF-8 ([`pieces`]). The fields are written in place: the struct is large, and a line's
/// scan is short enough that copying it out would show.
#[inline(always)]
pub(super) fn scan_into<C: Classify>(
    s: &[u8],
    classify: C,
    top: &mut TopFields,
    long: Option<&Arc<Pieces>>,
) -> bool {
    *top = TopFields::default();
    let mut cursor = Cursor::new(s, classify);
    if let Some(pieces) = long {
        cursor.lex.utf8_done = s.len();
        cursor.lex.pieces = Some(Arc::clone(pieces));
        cursor.lex.piece_at = 0;
    }
    let Some(first) = cursor.next() else {
        return false;
    };
    s[first] == b'{' && cursor.object(top).is_some() && cursor.next().is_none() && !cursor.lex.bad
}
