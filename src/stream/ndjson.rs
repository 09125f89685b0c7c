//! Line framing over bytes, shared by files, stdin and HTTP bodies.
//!
//! A [`Framer`] is fed chunks as they arrive and calls back once per line. Lines that lie wholly
//! inside a chunk are handed out as slices of it (no copy); only a line split across chunks is
//! gathered in a buffer, and that buffer never grows past the line-length bound: a longer line is
//! reported and skipped, so a hostile peer cannot exhaust memory.

use std::io::Read;

/// A UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The default bound on one line: generous for real streams, small enough to stay safe.
pub const DEFAULT_MAX_LINE: usize = 64 * 1024 * 1024;

/// One line of input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number, counting blank lines too.
    pub number: u64,
    /// The bytes as received, with the terminator (`\n` or `\r\n`); a last line that had
    /// none gets a `\n`.
    pub raw: &'a [u8],
    /// The bytes without the terminator.
    pub text: &'a [u8],
    /// Where `text` starts in the input, when the framer was told where its bytes lie
    /// ([`Framer::set_position`]): a line may then be read again later instead of copied.
    pub offset: Option<u64>,
}

impl Line<'_> {
    /// Whether the line holds only JSON's white space (space, tab, CR, LF): such lines are not
    /// frames. A form feed is no JSON white space, so a line of one is malformed.
    pub fn is_blank(&self) -> bool {
        self.text
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    }
}

/// What framing meets.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A complete line (blank lines included; see [`Line::is_blank`]).
    Line(Line<'a>),
    /// A line longer than the bound, skipped: its number and the bound.
    TooLong {
        /// The line number.
        number: u64,
        /// The bound it passed.
        limit: usize,
    },
}

/// Splits a byte stream into lines, chunk by chunk.
#[derive(Debug)]
pub struct Framer {
    max: usize,
    pending: Vec<u8>,
    /// Lines completed so far.
    lines: u64,
    /// Inside a line that passed the bound: drop bytes until its end.
    skipping: bool,
    /// The first line is the input's first, where a byte-order mark is dropped.
    at_input_start: bool,
    /// The input offset of the next byte fed, when known.
    position: Option<u64>,
    /// The input offset of the held line's first byte, when known.
    pending_at: Option<u64>,
}

impl Framer {
    /// A framer with a bound on line length in bytes.
    pub fn new(max_line: usize) -> Framer {
        Framer {
            max: max_line.max(1),
            pending: Vec::new(),
            lines: 0,
            skipping: false,
            at_input_start: true,
            position: None,
            pending_at: None,
        }
    }

    /// The next byte fed is the input's byte at `position`: lines then carry their offsets.
    /// Bytes fed after it are taken to follow one another.
    pub fn set_position(&mut self, position: u64) {
        self.position = Some(position);
    }

    fn advance(&mut self, n: usize) {
        self.position = self.position.map(|p| p + n as u64);
    }

    /// A framer for bytes that start at a line start inside an input (a block of a file): its
    /// first line is not the input's, so a byte-order mark there is no mark but a malformed
    /// line's first bytes, as a sequential read would see it.
    pub fn inside_input(max_line: usize) -> Framer {
        Framer {
            at_input_start: false,
            ..Framer::new(max_line)
        }
    }

    /// Whether the line being framed is the input's first, where a byte-order mark may stand.
    fn at_first_line(&self) -> bool {
        self.lines == 0 && self.at_input_start
    }

    /// Whether bytes of an unfinished line are held.
    pub fn has_partial(&self) -> bool {
        !self.pending.is_empty() || self.skipping
    }

    /// The number of lines completed so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Feed a chunk; `on` is called for each line it completes and may stop the run with an error.
    pub fn feed<E>(
        &mut self,
        mut data: &[u8],
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        while !data.is_empty() {
            let here = self.position;
            if self.pending.is_empty() && !self.skipping {
                // At a line start: the whole lines of the chunk are slices of it.
                let mut start = 0;
                newlines(data, |nl| {
                    let line = &data[start..=nl];
                    let at = here.map(|p| p + start as u64);
                    start = nl + 1;
                    self.emit_slice(line, at, on)
                })?;
                if start < data.len() {
                    self.pending_at = here.map(|p| p + start as u64);
                    self.hold(&data[start..], on)?;
                }
                self.advance(data.len());
                return Ok(());
            }
            let Some(nl) = memchr::memchr(b'\n', data) else {
                self.hold(data, on)?;
                self.advance(data.len());
                return Ok(());
            };
            let (head, rest) = data.split_at(nl + 1);
            data = rest;
            self.advance(head.len());
            if self.skipping {
                self.skipping = false;
                self.lines += 1;
                continue;
            }
            if self.pending.is_empty() {
                self.emit_slice(head, here, on)?;
            } else {
                self.hold(head, on)?;
                if self.skipping {
                    // The newline itself pushed it over: the line has ended.
                    self.skipping = false;
                    self.lines += 1;
                    continue;
                }
                let line = std::mem::take(&mut self.pending);
                let result = self.emit_slice(&line, self.pending_at, on);
                self.pending = line;
                self.pending.clear();
                result?;
            }
        }
        Ok(())
    }

    /// The bytes of an unfinished line held so far (none while skipping an over-long one).
    pub fn partial(&self) -> &[u8] {
        &self.pending
    }

    /// Forget an unfinished line: its input was cut off, so it is not a line at all.
    pub fn discard_partial(&mut self) {
        self.pending.clear();
        self.skipping = false;
    }

    /// End of input: hand out a last line that had no newline, with one (`raw` always ends a
    /// line, so that output written from it never ends in a partial line).
    pub fn finish<E>(&mut self, on: &mut impl FnMut(Event<'_>) -> Result<(), E>) -> Result<(), E> {
        if self.skipping {
            self.skipping = false;
            self.lines += 1;
            return Ok(());
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut line = std::mem::take(&mut self.pending);
        line.push(b'\n');
        self.emit_slice(&line, self.pending_at, on)
    }

    fn hold<E>(
        &mut self,
        part: &[u8],
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.skipping {
            return Ok(());
        }
        let content_len =
            self.pending.len() + part.len() - usize::from(part.last() == Some(&b'\n'));
        // Slack for a `\r` that may turn out to be the terminator, and on the input's first
        // line for a byte-order mark, which is no part of the line; the exact check happens
        // when the line is complete.
        let slack = if self.at_first_line() {
            1 + BOM.len()
        } else {
            1
        };
        if content_len > self.max + slack {
            self.pending = Vec::new();
            self.skipping = true;
            return on(Event::TooLong {
                number: self.lines + 1,
                limit: self.max,
            });
        }
        self.pending.extend_from_slice(part);
        Ok(())
    }

    /// Hand out `raw`, one whole line ending in its only newline (found by the caller), at a
    /// line start: what [`Framer::feed`] does with it, without searching it for newlines again.
    pub fn feed_line<E>(
        &mut self,
        raw: &[u8],
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        debug_assert!(raw.last() == Some(&b'\n') && !self.has_partial());
        if self.has_partial() || raw.last() != Some(&b'\n') {
            return self.feed(raw, on);
        }
        let at = self.position;
        self.advance(raw.len());
        self.emit_slice(raw, at, on)
    }

    /// Hand out a line; `at` is the input offset of `raw`, when known.
    fn emit_slice<E>(
        &mut self,
        raw: &[u8],
        mut at: Option<u64>,
        on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let first = self.at_first_line();
        self.lines += 1;
        let mut text = raw.strip_suffix(b"\n").unwrap_or(raw);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if first && let Some(rest) = text.strip_prefix(BOM) {
            // A UTF-8 byte-order mark, as some editors write, is not part of the first line.
            text = rest;
            at = at.map(|p| p + BOM.len() as u64);
        }
        if text.len() > self.max {
            return on(Event::TooLong {
                number: self.lines,
                limit: self.max,
            });
        }
        on(Event::Line(Line {
            number: self.lines,
            raw,
            text,
            offset: at,
        }))
    }
}

/// How far ahead of the sweep the bytes are asked for: the scan of the lines between takes
/// longer than fetching them from memory, so the scan finds them in cache.
const PREFETCH: usize = 4096;

/// Call `each` with the offset of every newline of `data`, in order, until it fails. Lines
/// are short (a few hundred bytes), so a search per line (memchr) pays its set-up for little
/// scanning; this sweeps the chunk once, 64 bytes at a time with SSE2 (part of every x86_64).
/// With AVX-512 or AVX2 where the CPU has it ([`newlines_avx512`], [`newlines_avx2`]).
#[inline(always)]
fn newlines<E>(data: &[u8], each: impl FnMut(usize) -> Result<(), E>) -> Result<(), E> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has AVX-512 BW (and so F), asked just above.
            return unsafe { newlines_avx512(data, each) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, asked just above.
            return unsafe { newlines_avx2(data, each) };
        }
    }
    newlines_sse2(data, each)
}

/// [`newlines`] with SSE2 (or memchr off x86_64).
#[inline(always)]
fn newlines_sse2<E>(data: &[u8], each: impl FnMut(usize) -> Result<(), E>) -> Result<(), E> {
    #[cfg(target_arch = "x86_64")]
    return sweep(
        data,
        |block| {
            use std::arch::x86_64::{
                _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
            };
            let mut mask = 0u64;
            for k in 0..4 {
                // SAFETY: SSE2 is part of the x86_64 baseline, and the load reads bytes
                // 16k..16k+16 of a 64-byte array.
                let lane = unsafe {
                    let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast());
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) as u16
                };
                mask |= u64::from(lane) << (16 * k);
            }
            mask
        },
        each,
    );
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut each = each;
        for nl in memchr::memchr_iter(b'\n', data) {
            each(nl)?;
        }
        Ok(())
    }
}

/// [`newlines`] with AVX2: a block is two loads, two compares and two extractions (SSE2 needs
/// four of each).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn newlines_avx2<E>(data: &[u8], each: impl FnMut(usize) -> Result<(), E>) -> Result<(), E> {
    use std::arch::x86_64::{_mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_set1_epi8};
    sweep(
        data,
        |block| {
            // SAFETY: the caller's CPU has AVX2; the loads read bytes 0..32 and 32..64 of
            // `block`.
            unsafe {
                let nl = _mm256_set1_epi8(b'\n' as i8);
                let lo = _mm256_loadu_si256(block.as_ptr().cast());
                let hi = _mm256_loadu_si256(block.as_ptr().add(32).cast());
                super::avx2_bits(_mm256_cmpeq_epi8(lo, nl), _mm256_cmpeq_epi8(hi, nl))
            }
        },
        each,
    )
}

/// [`newlines`] with AVX-512: a block is one load and one compare into a mask register, which
/// is the newline mask itself (SSE2 needs four of each, and four extractions to join them).
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn newlines_avx512<E>(
    data: &[u8],
    each: impl FnMut(usize) -> Result<(), E>,
) -> Result<(), E> {
    use std::arch::x86_64::{_mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8};
    sweep(
        data,
        |block| {
            // SAFETY: the caller's CPU has AVX-512 F and BW; the load reads the 64 bytes of
            // `block`.
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr().cast());
                _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\n' as i8))
            }
        },
        each,
    )
}

/// The sweep of [`newlines`], 64 bytes at a time, `mask` giving a block's newlines as bits;
/// the bytes past the last whole block by memchr.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sweep<E>(
    data: &[u8],
    mask: impl Fn(&[u8; 64]) -> u64,
    mut each: impl FnMut(usize) -> Result<(), E>,
) -> Result<(), E> {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    let mut base = 0;
    while let Some(block) = data.get(base..).and_then(|d| d.first_chunk::<64>()) {
        // SAFETY: a prefetch is a hint: it reads nothing the program sees and cannot fault,
        // and the address is only computed (wrapping), never dereferenced.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().wrapping_add(PREFETCH).cast()) };
        let mut bits = mask(block);
        while bits != 0 {
            each(base + bits.trailing_zeros() as usize)?;
            bits &= bits - 1;
        }
        base += 64;
    }
    for nl in memchr::memchr_iter(b'\n', &data[base..]) {
        each(base + nl)?;
    }
    Ok(())
}

/// Read all of `reader` in large chunks through a framer. Errors of the reader come back as
/// `Err(io)`; errors of the callback as `Ok(Err(e))`.
pub fn read_lines<R: Read, E>(
    mut reader: R,
    max_line: usize,
    on: &mut impl FnMut(Event<'_>) -> Result<(), E>,
) -> std::io::Result<Result<(), E>> {
    let mut framer = Framer::new(max_line);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if let Err(e) = framer.feed(&buf[..n], on) {
            return Ok(Err(e));
        }
    }
    Ok(framer.finish(on))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (number, text) of every line, "!N" for too-long ones, feeding `input` in pieces of `step`.
    fn frame(input: &[u8], step: usize, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut framer = Framer::new(max);
        let mut on = |e: Event<'_>| -> Result<(), ()> {
            out.push(match e {
                Event::Line(l) => {
                    let after_mark = l.raw.strip_prefix(BOM).unwrap_or(l.raw);
                    assert!(l.raw.starts_with(l.text) || after_mark.starts_with(l.text));
                    format!("{}:{}", l.number, String::from_utf8_lossy(l.text))
                }
                Event::TooLong { number, .. } => format!("!{number}"),
            });
            Ok(())
        };
        for chunk in input.chunks(step.max(1)) {
            framer.feed(chunk, &mut on).unwrap();
        }
        framer.finish(&mut on).unwrap();
        out
    }

    #[test]
    fn lines_carry_their_offsets_however_the_input_is_cut() {
        let input = b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":22}\n{\"too long\":1}\n{\"c\":3}";
        for step in 1..=input.len() {
            let mut got = Vec::new();
            let mut framer = Framer::new(12);
            framer.set_position(100);
            let mut on = |e: Event<'_>| -> Result<(), ()> {
                if let Event::Line(l) = e {
                    let at = l.offset.unwrap() as usize - 100;
                    assert_eq!(&input[at..at + l.text.len()], l.text, "step {step}");
                    got.push(at);
                }
                Ok(())
            };
            for chunk in input.chunks(step) {
                framer.feed(chunk, &mut on).unwrap();
            }
            framer.finish(&mut on).unwrap();
            assert_eq!(got, [3, 12, 13, 37], "step {step}");
        }
        // A whole line handed over as one.
        let mut framer = Framer::inside_input(64);
        framer.set_position(7);
        let mut at = None;
        framer
            .feed_line(b"{\"x\":1}\n", &mut |e: Event<'_>| -> Result<(), ()> {
                if let Event::Line(l) = e {
                    at = l.offset;
                }
                Ok(())
            })
            .unwrap();
        assert_eq!(at, Some(7));
    }

    #[test]
    fn lf_crlf_blank_and_last_line_without_newline() {
        let input = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":3}";
        for step in 1..=input.len() {
            assert_eq!(
                frame(input, step, 100),
                ["1:{\"a\":1}", "2:", "3:{\"b\":2}", "4:{\"c\":3}"],
                "step {step}"
            );
        }
    }

    #[test]
    fn long_lines_are_skipped_with_their_number_at_any_chunking() {
        let input = b"ok\n0123456789\nfine\n0123456789";
        for step in 1..=input.len() {
            assert_eq!(
                frame(input, step, 5),
                ["1:ok", "!2", "3:fine", "!4"],
                "step {step}"
            );
        }
        // Exactly at the bound is fine, CR excluded.
        assert_eq!(frame(b"12345\r\n", 3, 5), ["1:12345"]);
    }

    #[test]
    fn a_byte_order_mark_does_not_count_toward_the_bound() {
        // Dropped from the input's first line, the mark is no part of it, however the line
        // arrives; on a later line its bytes are the line's own.
        let input = b"\xEF\xBB\xBF12345\r\n\xEF\xBB\xBF123\n";
        for step in 1..=input.len() {
            assert_eq!(frame(input, step, 5), ["1:12345", "!2"], "step {step}");
        }
        let over = b"\xEF\xBB\xBF123456\n";
        for step in 1..=over.len() {
            assert_eq!(frame(over, step, 5), ["!1"], "step {step}");
        }
    }

    #[test]
    fn raw_keeps_terminators_and_ends_a_last_line() {
        let mut raws = Vec::new();
        let mut framer = Framer::new(100);
        let mut on = |e: Event<'_>| -> Result<(), ()> {
            if let Event::Line(l) = e {
                raws.push(l.raw.to_vec());
            }
            Ok(())
        };
        framer.feed(b"a\r\nb\nc", &mut on).unwrap();
        framer.finish(&mut on).unwrap();
        // The last line had no newline: its raw bytes get one, so that nothing written from
        // them ends in a partial line.
        assert_eq!(raws, [b"a\r\n".to_vec(), b"b\n".to_vec(), b"c\n".to_vec()]);
    }

    #[test]
    fn newlines_are_found_at_every_offset() {
        for len in 0..200 {
            for at in 0..len {
                let mut data = vec![b'x'; len];
                data[at] = b'\n';
                for k in [1, 63, 64, 65] {
                    if at + k < len {
                        data[at + k] = b'\n';
                    }
                }
                let want: Vec<usize> = memchr::memchr_iter(b'\n', &data).collect();
                let mut got = Vec::new();
                newlines(&data, |nl| -> Result<(), ()> {
                    got.push(nl);
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, want, "{len} {at}");
                // The AVX2 and SSE2 sweeps too, where `newlines` takes a wider one.
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    got.clear();
                    // SAFETY: the CPU has AVX2, asked just above.
                    unsafe {
                        newlines_avx2(&data, |nl| -> Result<(), ()> {
                            got.push(nl);
                            Ok(())
                        })
                    }
                    .unwrap();
                    assert_eq!(got, want, "avx2 {len} {at}");
                }
                got.clear();
                newlines_sse2(&data, |nl| -> Result<(), ()> {
                    got.push(nl);
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, want, "sse2 {len} {at}");
            }
        }
    }

    #[test]
    fn callback_errors_stop_the_run() {
        let r = read_lines(&b"a\nb\nc\n"[..], 10, &mut |e| match e {
            Event::Line(l) if l.text == b"b" => Err("stop"),
            _ => Ok(()),
        });
        assert_eq!(r.unwrap(), Err("stop"));
    }
}

pub mod blocks;
