//! An answer's text straight from its line, for output that shows only the text: the content
//! string's escapes resolved in the line's own buffer, with no parse of the line into values.
//! For an answer of tens of megabytes (a long report in one frame) the parse, and the copies
//! of the text it makes, cost many times the scan of the whole file.

use crate::stream::jsonscan::Span;

/// The text of the string at `span` of `line` (a line the scanner accepted: valid UTF-8 and
/// valid escapes), decoded as serde_json reads it, a lone surrogate escape as U+FFFD (as the
/// rule's lenient parse makes it). The line's buffer becomes the text's: decoding only ever
/// shortens, so it is written over the line from its start.
pub(super) fn take_string(mut line: Vec<u8>, span: Span) -> String {
    let len = if span.escaped {
        unescape_within(&mut line, span.start, span.end)
    } else {
        line.copy_within(span.start..span.end, 0);
        span.end - span.start
    };
    line.truncate(len);
    match simdutf8::basic::from_utf8(&line) {
        // SAFETY: the bytes were just checked to be UTF-8.
        Ok(_) => unsafe { String::from_utf8_unchecked(line) },
        // Not reached for a line the scanner accepted; lossy rather than a panic.
        Err(_) => String::from_utf8_lossy(&line).into_owned(),
    }
}

/// How much decoded text is gathered before it is written.
const DECODED_CHUNK: usize = 1 << 20;

/// A text of at least this many (escaped) bytes is decoded by several threads at once, a
/// piece each (see [`decode_in_pieces`]): a report of tens of megabytes in one frame. (Both
/// sizes smaller in unit tests, so that texts of kilobytes go this way.)
const PARALLEL_FROM: usize = if cfg!(test) { 64 << 10 } else { 8 << 20 };
/// The escaped bytes in one piece (a little more, to reach a place where a piece can end):
/// small enough that a piece's decoded bytes are still in the core's L2 cache when they are
/// written.
const PIECE: usize = if cfg!(test) { 4 << 10 } else { 256 << 10 };

/// Write the text of the string `content` (the bytes between a string's quotes, of a line the
/// scanner accepted, still escaped when `escaped`) to `out`, decoded as [`take_string`]
/// decodes it, a megabyte at a time: a text of any length costs no more memory than a few of
/// those. A long text is decoded on as many threads as the CPU has (up to four), in pieces of
/// [`PIECE`] bytes, and written in order. The last byte written, if any.
pub fn write_decoded(
    content: &[u8],
    escaped: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<Option<u8>> {
    if !escaped {
        out.write_all(content)?;
        return Ok(content.last().copied());
    }
    if content.len() >= PARALLEL_FROM {
        let threads = crate::stream::cpus().min(4);
        if threads > 1 {
            return decode_in_pieces(content, out, PIECE, threads);
        }
    }
    // A piece of about a chunk at a time, cut where no escape is (as the threads cut it).
    let mut buf = Vec::new();
    let (mut start, mut last) = (0, None);
    while start < content.len() {
        let end = piece_end(content, start + DECODED_CHUNK);
        buf.clear();
        decode_into(&content[start..end], &mut buf);
        out.write_all(&buf)?;
        last = buf.last().copied().or(last);
        start = end;
    }
    Ok(last)
}

/// [`write_decoded`] of an escaped `content` on `threads` threads: it is cut into pieces of
/// about `piece` bytes where no escape is cut in two ([`piece_end`]), each decoded on its own
/// by whichever thread takes it, and the pieces are written in order as they come, a few in
/// flight at most. Decoding a text is the same as decoding its pieces one after the other:
/// an escape is the only thing that reads more than one byte.
fn decode_in_pieces(
    content: &[u8],
    out: &mut dyn std::io::Write,
    piece: usize,
    threads: usize,
) -> std::io::Result<Option<u8>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Mutex, mpsc};

    let mut cuts = vec![0];
    while let Some(&start) = cuts.last().filter(|&&c| c < content.len()) {
        cuts.push(piece_end(content, start + piece.max(1)));
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Buffers written out come back here to be filled again: the memory is that of the pieces
    // in flight, whatever the text's length. Each is made with room for a piece (a piece ends
    // a few bytes past its size, where no escape is cut), so that none grows when a longer
    // piece comes, and enough are made at once for every thread to find one: a buffer made
    // while decoding is a fresh map of its own, its pages faulted in one by one (glibc maps
    // an allocation of this size apart, and unmaps it when it is freed).
    let fresh = || Vec::with_capacity(piece + 64);
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::new((0..threads * 3).map(|_| fresh()).collect());
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(usize, Vec<u8>)>(threads);
        for _ in 0..threads {
            let tx = tx.clone();
            let (cuts, next, stop, spare, fresh) = (&cuts, &next, &stop, &spare, &fresh);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i + 1 >= cuts.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let text = &content[cuts[i]..cuts[i + 1]];
                    let mut buf = spare
                        .lock()
                        .map_or_else(|_| None, |mut s| s.pop())
                        .unwrap_or_else(fresh);
                    buf.clear();
                    decode_into(text, &mut buf);
                    if tx.send((i, buf)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = std::collections::BTreeMap::new();
        let (mut want, mut last) = (0, None);
        for (i, buf) in rx {
            pending.insert(i, buf);
            while let Some(buf) = pending.remove(&want) {
                want += 1;
                if let Err(e) = out.write_all(&buf) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                last = buf.last().copied().or(last);
                if let Ok(mut s) = spare.lock() {
                    s.push(buf);
                }
            }
        }
        Ok(last)
    })
}

/// Where a piece of `content` that should end at `at` can end: the first place from there
/// that no escape spans, and that does not part a surrogate pair's halves. That is a place
/// with no backslash in the six bytes before it (an escape is at most six bytes; the low half
/// of a pair starts six bytes after its high half's backslash), or the first backslash of a
/// run (the run's escapes pair up from its start) that is not a pair's low half. The end of
/// `content` when there is none.
fn piece_end(content: &[u8], at: usize) -> usize {
    let mut p = at;
    while p < content.len() {
        let before = &content[p.saturating_sub(6)..p];
        let starts_escape = content[p] == b'\\'
            && before.last() != Some(&b'\\')
            && !matches!(
                (content.get(p + 1), hex4(content, p + 2)),
                (Some(b'u'), Some(0xDC00..=0xDFFF))
            );
        if starts_escape || !before.contains(&b'\\') {
            return p;
        }
        p += 1;
    }
    content.len()
}

/// Append the decoded `text` (escaped bytes of a string the scanner accepted, cut where no
/// escape is) to `buf`. One pass, 32 bytes at a time (64 with AVX2): a run is copied while it
/// is searched for a backslash, and the escape found is written in place, with no call per
/// run nor per escape (a report has one every few dozen bytes: a `\n` a row).
fn decode_into(text: &[u8], buf: &mut Vec<u8>) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, asked just above.
        return unsafe { decode_into_avx2(text, buf) };
    }
    decode_with::<Sse2Runs>(text, buf)
}

/// [`decode_into`] compiled for AVX2: runs are copied and searched 64 bytes at a time. The
/// bench's report of 55 MB decoded on one core: 14.1–15.4 ms against 15.4–17.2 with 32 bytes
/// (a C program of the two loops, docs/performance-streams.md; on two cores both meet the
/// memory's bandwidth).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn decode_into_avx2(text: &[u8], buf: &mut Vec<u8>) {
    decode_with::<Avx2Runs>(text, buf)
}

/// How a run up to the next backslash is copied.
trait Runs {
    /// Copy `src[r..n]` to `dst[w..]` up to the first backslash; how many bytes were copied.
    ///
    /// # Safety
    /// `src` holds `n` readable bytes, `dst` has room for `n - r` bytes from `w`, `w <= r`,
    /// and the CPU has what the implementation is written for.
    unsafe fn copy(src: *const u8, dst: *mut u8, r: usize, w: usize, n: usize) -> usize;
}

/// 32 bytes at a time with SSE2 (the x86_64 baseline), a byte at a time elsewhere.
struct Sse2Runs;

impl Runs for Sse2Runs {
    #[inline(always)]
    unsafe fn copy(src: *const u8, dst: *mut u8, r: usize, w: usize, n: usize) -> usize {
        // SAFETY: the caller's.
        unsafe { copy_until_backslash(src, dst, r, w, n) }
    }
}

/// 64 bytes at a time with AVX2, the rest as [`Sse2Runs`] copies it.
#[cfg(target_arch = "x86_64")]
struct Avx2Runs;

#[cfg(target_arch = "x86_64")]
impl Runs for Avx2Runs {
    #[inline(always)]
    unsafe fn copy(src: *const u8, dst: *mut u8, r: usize, w: usize, n: usize) -> usize {
        use std::arch::x86_64::{
            __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_set1_epi8, _mm256_storeu_si256,
        };
        let mut k = 0;
        // SAFETY: the caller's CPU has AVX2 (this is inlined only into `decode_into_avx2`).
        // Loads read src[r + k..r + k + 64], within `n`; stores write dst[w + k..w + k + 64],
        // within the room the caller gives (`w + k + 64 <= r + k + 64 <= n`).
        unsafe {
            let backslash = _mm256_set1_epi8(b'\\' as i8);
            while r + k + 64 <= n {
                let a = _mm256_loadu_si256(src.add(r + k).cast::<__m256i>());
                let b = _mm256_loadu_si256(src.add(r + k + 32).cast::<__m256i>());
                _mm256_storeu_si256(dst.add(w + k).cast::<__m256i>(), a);
                _mm256_storeu_si256(dst.add(w + k + 32).cast::<__m256i>(), b);
                let found = crate::stream::avx2_bits(
                    _mm256_cmpeq_epi8(a, backslash),
                    _mm256_cmpeq_epi8(b, backslash),
                );
                if found != 0 {
                    return k + found.trailing_zeros() as usize;
                }
                k += 64;
            }
            k + copy_until_backslash(src, dst, r + k, w + k, n)
        }
    }
}

/// [`decode_into`] with runs copied by `R`.
#[inline(always)]
fn decode_with<R: Runs>(text: &[u8], buf: &mut Vec<u8>) {
    // Decoding never lengthens: an escape is at least as long as the character it stands
    // for. So every write below lands within `text.len()` bytes past the buffer's end.
    buf.reserve(text.len());
    let base = buf.len();
    let n = text.len();
    let (mut r, mut w) = (0, 0);
    // SAFETY: `dst` has room for `n` bytes (reserved above), and `w <= r` throughout (a run
    // copies as many bytes as it reads, an escape writes at most as many as it reads), so a
    // write of `k` bytes at `w` made when `r + k <= n` stays in it; every read is of `text`
    // below `n`. The length is set to the `w` bytes written.
    unsafe {
        let src = text.as_ptr();
        let dst = buf.as_mut_ptr().add(base);
        while r < n {
            let run = R::copy(src, dst, r, w, n);
            r += run;
            w += run;
            if r >= n {
                break;
            }
            // A backslash at `r`: a one-letter escape is a byte looked up in a table. A jump
            // per letter, as a `match` compiles, is mispredicted as often as the letters of a
            // text's escapes change (`perf annotate`: about a fifth of this loop's samples).
            if let Some(&letter) = text.get(r + 1) {
                let byte = SIMPLE[usize::from(letter)];
                if byte != 0 {
                    *dst.add(w) = byte;
                    w += 1;
                    r += 2;
                    continue;
                }
            }
            let (ch, used) = escape(&text[r..]);
            let mut utf8 = [0u8; 4];
            let s = ch.encode_utf8(&mut utf8).as_bytes();
            debug_assert!(s.len() <= used);
            std::ptr::copy_nonoverlapping(s.as_ptr(), dst.add(w), s.len());
            w += s.len();
            r += used;
        }
        buf.set_len(base + w);
    }
}

/// Copy `src[r..n]` to `dst[w..]` up to the first backslash; how many bytes were copied.
///
/// # Safety
/// `src` holds `n` readable bytes, `dst` has room for `n - r` bytes from `w`, `w <= r`.
#[inline(always)]
unsafe fn copy_until_backslash(
    src: *const u8,
    dst: *mut u8,
    r: usize,
    w: usize,
    n: usize,
) -> usize {
    let mut k = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
            _mm_storeu_si128,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline. Loads read src[r + k..r + k + 32],
        // within `n`; stores write dst[w + k..w + k + 32], within the room the caller gives
        // (`w + k + 32 <= r + k + 32 <= n`).
        unsafe {
            let backslash = _mm_set1_epi8(b'\\' as i8);
            while r + k + 32 <= n {
                let a = _mm_loadu_si128(src.add(r + k).cast::<__m128i>());
                let b = _mm_loadu_si128(src.add(r + k + 16).cast::<__m128i>());
                _mm_storeu_si128(dst.add(w + k).cast::<__m128i>(), a);
                _mm_storeu_si128(dst.add(w + k + 16).cast::<__m128i>(), b);
                let found = _mm_movemask_epi8(_mm_cmpeq_epi8(a, backslash)) as u32
                    | (_mm_movemask_epi8(_mm_cmpeq_epi8(b, backslash)) as u32) << 16;
                if found != 0 {
                    return k + found.trailing_zeros() as usize;
                }
                k += 32;
            }
        }
    }
    // SAFETY: as above, a byte at a time.
    unsafe {
        while r + k < n && *src.add(r + k) != b'\\' {
            *dst.add(w + k) = *src.add(r + k);
            k += 1;
        }
    }
    k
}

/// Decode the escapes of `b[start..end]` into `b[0..]`; the decoded length.
fn unescape_within(b: &mut [u8], start: usize, end: usize) -> usize {
    let (mut r, mut w) = (start, 0);
    while r < end {
        let run = memchr::memchr(b'\\', &b[r..end]).unwrap_or(end - r);
        b.copy_within(r..r + run, w);
        w += run;
        r += run;
        if r >= end {
            break;
        }
        let (ch, used) = escape(&b[r..end]);
        let mut utf8 = [0u8; 4];
        let s = ch.encode_utf8(&mut utf8).as_bytes();
        // Never past the read position: an escape is at least as long as what it stands for.
        debug_assert!(w + s.len() <= r + used);
        b[w..w + s.len()].copy_from_slice(s);
        w += s.len();
        r += used;
    }
    w
}

/// The byte each one-letter escape stands for, by its letter (`\n` at `b'n'`); 0 for every
/// other byte (`u` and letters no escape has).
const SIMPLE: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'n' as usize] = b'\n';
    t[b't' as usize] = b'\t';
    t[b'r' as usize] = b'\r';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0C;
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t
};

/// The character an escape at the start of `e` stands for, and its length in bytes.
#[inline]
fn escape(e: &[u8]) -> (char, usize) {
    match e.get(1) {
        Some(b'u') => unicode(e),
        Some(&letter) if SIMPLE[usize::from(letter)] != 0 => {
            (char::from(SIMPLE[usize::from(letter)]), 2)
        }
        // Not in a line the scanner accepted: the backslash stands for itself.
        _ => ('\\', 1),
    }
}

/// A `\uXXXX` escape (a surrogate pair is two of them) at the start of `e`.
fn unicode(e: &[u8]) -> (char, usize) {
    let Some(hi) = hex4(e, 2) else {
        return ('\\', 1);
    };
    match hi {
        0xD800..=0xDBFF => match (e.get(6..8), hex4(e, 8)) {
            (Some(b"\\u"), Some(lo @ 0xDC00..=0xDFFF)) => {
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                (char::from_u32(c).unwrap_or('\u{FFFD}'), 12)
            }
            _ => ('\u{FFFD}', 6),
        },
        0xDC00..=0xDFFF => ('\u{FFFD}', 6),
        c => (char::from_u32(c).unwrap_or('\u{FFFD}'), 6),
    }
}

fn hex4(e: &[u8], at: usize) -> Option<u32> {
    let digits = e.get(at..at + 4)?;
    let mut v = 0;
    for &d in digits {
        v = v << 4 | (d as char).to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::jsonscan::{Field, scan_frame};

    /// The text serde (with the rule's lone-surrogate repair) reads from the same content.
    fn via_serde(line: &str) -> String {
        let repaired = super::super::replace_lone_surrogates(line);
        let v: serde_json::Value = serde_json::from_str(line)
            .or_else(|_| serde_json::from_str(&repaired))
            .unwrap();
        v["content"].as_str().unwrap().to_owned()
    }

    #[test]
    fn decodes_as_serde_reads() {
        let contents = [
            r#"plain"#,
            r#""#,
            r#"caf\u00e9 \"quoted\"\n\ttab \\ back\/slash \b\f\r"#,
            r#"emoji \ud83d\udcc8 and raw 📈 Über"#,
            r#"lone \ud83d then \udcc8 alone \ud800\ud800\udc00 end"#,
            r#"\u0000\u001f\u20ac\uFFFF"#,
            r#"\\\\\\\"\\"#,
            r#"\n"#,
        ];
        for content in contents {
            let line = format!(r#"{{"id":"x","content":"{content}","sort":1}}"#);
            let top = scan_frame(line.as_bytes()).unwrap();
            let Some(Field::Str(span)) = top.content else {
                panic!("no content in {line}");
            };
            assert_eq!(
                take_string(line.clone().into_bytes(), span),
                via_serde(&line),
                "{line}"
            );
            let mut written = Vec::new();
            let last = write_decoded(
                &line.as_bytes()[span.start..span.end],
                span.escaped,
                &mut written,
            )
            .unwrap();
            assert_eq!(
                String::from_utf8(written.clone()).unwrap(),
                via_serde(&line)
            );
            assert_eq!(last, written.last().copied());
        }
    }
}

#[cfg(test)]
mod long_tests {
    use super::*;

    /// A text longer than the chunk written, with escapes across every chunk boundary.
    #[test]
    fn long_texts_decode_across_chunks() {
        let mut content = String::new();
        while content.len() < 3 * DECODED_CHUNK {
            content.push_str(r#"row \"q\" caf\u00e9 \ud83d\udcc8 \\ end\n"#);
        }
        let mut written = Vec::new();
        let last = write_decoded(content.as_bytes(), true, &mut written).unwrap();
        assert_eq!(written, whole(&content).as_bytes());
        assert_eq!(last, Some(b'\n'));
    }

    /// Runs of every length from 0 to 99 characters between escapes, so that a backslash falls
    /// on every place of the 32-byte copy and at its edges, and the text ends on a run or on an
    /// escape.
    #[test]
    fn runs_of_every_length_decode_as_a_whole_string_does() {
        let escapes = [r#"\n"#, r#"\""#, r#"\\"#, r#"\u00e9"#, r#"\ud83d\udcc8"#];
        for tail in [false, true] {
            let mut content = String::new();
            for len in 0..100 {
                // A two-byte character every twelve: runs of every byte length.
                content.extend("é-abcdefghij".chars().cycle().take(len));
                content.push_str(escapes[len % escapes.len()]);
            }
            if tail {
                content.push_str("end");
            }
            let mut written = Vec::new();
            write_decoded(content.as_bytes(), true, &mut written).unwrap();
            assert_eq!(String::from_utf8(written).unwrap(), whole(&content));
        }
    }

    /// The copy of runs 32 bytes at a time, which `decode_into` leaves for CPUs without AVX2,
    /// decodes as the one it takes here does, and as the whole string decodes: runs of every
    /// length from 0 to 199 bytes between escapes, so that a backslash falls on every place
    /// of both widths of copy, and mixed texts.
    #[test]
    fn both_copies_of_runs_decode_alike() {
        let mut texts: Vec<String> = (1..=3).map(|seed| mixed_text(400, seed)).collect();
        let mut runs = String::new();
        for len in 0..200 {
            runs.extend("abcdefghij".chars().cycle().take(len));
            runs.push_str(r#"\n"#);
        }
        texts.push(runs);
        for text in texts {
            let expected = whole(&text);
            let (mut narrow, mut chosen) = (Vec::new(), Vec::new());
            decode_with::<Sse2Runs>(text.as_bytes(), &mut narrow);
            decode_into(text.as_bytes(), &mut chosen);
            assert_eq!(String::from_utf8(narrow).unwrap(), expected);
            assert_eq!(String::from_utf8(chosen).unwrap(), expected);
        }
    }

    /// An escaped text of every kind of run and escape in a random order: backslash runs of
    /// both parities, surrogate pairs and lone halves, a high half before another escape.
    fn mixed_text(parts: usize, seed: u64) -> String {
        let kinds = [
            r#"\n"#,
            r#"\""#,
            r#"\\"#,
            r#"\\\\"#,
            r#"\\\""#,
            r#"\\u0041"#,
            r#"\u00e9"#,
            r#"\ud83d\udcc8"#,
            r#"\ud83d"#,
            r#"\udcc8"#,
            r#"\ud83d\n"#,
            r#"\ud83d\u0041"#,
            r#"\/\b\f\r\t"#,
            "é",
            "📈",
            "plain text ",
            "x",
        ];
        let mut state = seed;
        (0..parts)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                kinds[(state % kinds.len() as u64) as usize]
            })
            .collect()
    }

    /// The text of `content` (a string's escaped bytes) decoded whole, from a line holding it.
    fn whole(content: &str) -> String {
        let line = format!(r#"{{"content":"{content}"}}"#);
        let Some(crate::stream::jsonscan::Field::Str(span)) =
            crate::stream::jsonscan::scan_frame(line.as_bytes())
                .unwrap()
                .content
        else {
            panic!("no content in {line}");
        };
        take_string(line.into_bytes(), span)
    }

    /// Cut into pieces of every size from 1 to 40 bytes, decoded on two or three threads and
    /// written in order, a text is what it is decoded whole: no piece ends inside an escape,
    /// a backslash run or a surrogate pair.
    #[test]
    fn pieces_of_any_size_decode_as_the_whole_text() {
        for seed in 1..=4 {
            let content = mixed_text(300, seed);
            let expected = whole(&content);
            for piece in 1..=40 {
                for threads in [2, 3] {
                    let mut out = Vec::new();
                    let last =
                        decode_in_pieces(content.as_bytes(), &mut out, piece, threads).unwrap();
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        expected,
                        "seed {seed}, pieces of {piece}, {threads} threads"
                    );
                    assert_eq!(last, expected.as_bytes().last().copied());
                }
            }
        }
    }

    /// A text long enough to be decoded on several threads by `write_decoded` itself.
    #[test]
    fn a_long_text_is_decoded_in_parallel_as_a_whole() {
        let mut content = mixed_text(2_000, 9);
        while content.len() < PARALLEL_FROM + PIECE / 2 {
            content.push_str(&content.clone());
        }
        let mut out = Vec::new();
        let last = write_decoded(content.as_bytes(), true, &mut out).unwrap();
        let expected = whole(&content);
        assert!(out == expected.as_bytes(), "the decoded texts differ");
        assert_eq!(last, expected.as_bytes().last().copied());
    }

    /// A write that fails ends the decoding with its error: no thread is left waiting.
    #[test]
    fn a_failed_write_stops_every_thread() {
        struct Full(usize);
        impl std::io::Write for Full {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
                }
                self.0 -= 1;
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let content = mixed_text(5_000, 3);
        for writes in [0, 1, 5] {
            let err = decode_in_pieces(content.as_bytes(), &mut Full(writes), 64, 3).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        }
    }
}
