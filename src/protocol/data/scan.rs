//! The fast path of [`super::read_line`]: a hand-written scanner for the one line shape that
//! carries nearly every byte of an answer, `{"data":[[cell,...],...]}` (any JSON white space
//! between tokens), walking its bytes once.
//!
//! Cells are handed over as the serde path hands them: a string without escapes is borrowed
//! from the line, one with escapes is decoded into a `String` (taken from a pool the line's rows
//! give back, so not allocated row after row), `null` is null, and `true`, `false` and numbers
//! are borrowed as their JSON text, exactly as sent (`4.50` stays `4.50`, `1e5` stays `1e5`).
//!
//! A sink that takes csv ([`RowSink::direct`], `analyst sql -o csv`) gets each row appended
//! to its output as a record instead, by the rules of `render/csv.rs`: a string without escapes
//! is copied as it is, quoted when a `,` was seen in the same pass that found its end (it can
//! hold no `"`, CR or LF), one with escapes is decoded straight into the output. A sink that
//! takes ndjson gets each row as an object, `"name":value` in column order, a string with
//! escapes escaped again as serde_json escapes. Short runs (keys, most values) are copied 32
//! bytes at a time with no call to memcpy. The ends of strings are found 16 bytes at a time
//! (SSE2, in every x86_64), else 8 (a `u64` word).
//!
//! Anything else (another key, rows as objects, a nested array or object as a cell, a lone
//! surrogate, a control character, a cut-off line...) is left to the serde path from the start
//! of the line, which is told how many rows were already handed over, skips them, and goes on,
//! so the rows out and the error said are exactly the serde path's. A row is handed over only
//! once all of it was read, as the serde path does.

use super::csv;
use super::{Cell, Direct, LineInfo, RowSink};
use std::borrow::Cow;

/// What the fast path made of a line.
pub(super) enum Scan {
    /// The whole line was read (or the sink stopped it).
    Done(LineInfo),
    /// The serde path must read the line; this many rows were already handed to the sink.
    Fallback(u64),
}

/// The fast path stops here; the serde path takes over.
struct Bail;

/// Read a `{"data":[...]}` line, handing its rows to `sink`.
pub(super) fn data_line(line: &str, sink: &mut dyn RowSink) -> Scan {
    let mut rows = 0;
    match Scanner::new(line).line(sink, &mut rows) {
        Ok(info) => Scan::Done(info),
        Err(Bail) => Scan::Fallback(rows),
    }
}

struct Scanner<'l> {
    text: &'l str,
    b: &'l [u8],
    pos: usize,
}

/// Bytes that end the plain run of a JSON string: `"`, `\` and control characters.
#[inline]
fn string_stop(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // `x - 0x20` borrows into a byte's high bit only for bytes below 0x20 (bytes from 0x80 up
    // have their own high bit, which `!x` clears).
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    csv::bytes_equal(word, b'"') | csv::bytes_equal(word, b'\\') | control
}

/// The index of the first `"`, `\` or control character at or after `i` (or the length),
/// and whether a `,` comes before it.
#[inline]
fn find_string_stop_comma(b: &[u8], i: usize) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    let (i, comma) = match sse2::find_string_stop_comma(b, i) {
        Ok(found) => return found,
        Err(near_the_end) => near_the_end,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let comma = false;
    let (stop, more) = find_string_stop_comma_swar(b, i);
    (stop, comma || more)
}

/// [`find_string_stop_comma`] 8 bytes at a time.
#[inline]
fn find_string_stop_comma_swar(b: &[u8], mut i: usize) -> (usize, bool) {
    let mut comma = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let m = string_stop(word);
        let c = csv::bytes_equal(word, b',');
        if m != 0 {
            // Commas below the stop (exact: a false flag needs a real one below it).
            let below = (m & m.wrapping_neg()) - 1;
            return (
                i + (m.trailing_zeros() / 8) as usize,
                comma | (c & below) != 0,
            );
        }
        comma |= c;
        i += 8;
    }
    let mut comma = comma != 0;
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        comma |= c == b',';
        i += 1;
    }
    (i, comma)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// [`super::find_string_stop_comma`] 16 bytes at a time while 16 bytes are left: the stop
    /// and the comma, or (`Err`) where it got to and whether it saw a comma.
    #[inline]
    pub(super) fn find_string_stop_comma(
        b: &[u8],
        mut i: usize,
    ) -> Result<(usize, bool), (usize, bool)> {
        let mut comma = false;
        while let Some(chunk) = b.get(i..i + 16) {
            // SAFETY: SSE2 is part of the x86_64 baseline, and the load reads the 16 bytes of
            // `chunk` (unaligned loads are allowed).
            let (stop, commas) = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // Unsigned `v <= 0x1F`: the smaller of the two is `v`.
                let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
                let stop = _mm_or_si128(_mm_or_si128(quote, backslash), control);
                let commas = _mm_cmpeq_epi8(v, _mm_set1_epi8(b',' as i8));
                (
                    _mm_movemask_epi8(stop) as u32,
                    _mm_movemask_epi8(commas) as u32,
                )
            };
            if stop != 0 {
                let k = stop.trailing_zeros();
                return Ok((i + k as usize, comma || commas & ((1 << k) - 1) != 0));
            }
            comma |= commas != 0;
            i += 16;
        }
        Err((i, comma))
    }
}

/// Where the text of a string with escapes goes as it is decoded.
trait Decoded {
    /// A run of the string as it is in the line.
    fn text(&mut self, s: &str);
    /// What an escape stands for.
    fn char(&mut self, c: char);
    /// [`find_string_stop_comma`] from `i`, noting what `self` needs to know of the bytes before.
    fn stop(b: &[u8], i: usize, out: &mut Self) -> usize;
}

impl Decoded for String {
    #[inline]
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
    #[inline]
    fn char(&mut self, c: char) {
        self.push(c);
    }
    #[inline]
    fn stop(b: &[u8], i: usize, _: &mut Self) -> usize {
        find_string_stop_comma(b, i).0
    }
}

/// A JSON string's contents in the making, as serde_json writes them: `"`, `\\` and control
/// characters escaped (the short escapes where JSON has them, else `\u00xx`), all else as it is.
struct JsonText<'o>(&'o mut Vec<u8>);

impl Decoded for JsonText<'_> {
    #[inline]
    fn text(&mut self, s: &str) {
        // A run between escapes holds no `"`, `\\` or control character.
        self.0.extend_from_slice(s.as_bytes());
    }
    #[inline]
    fn char(&mut self, c: char) {
        let short = match c {
            '"' => b'"',
            '\\' => b'\\',
            '\u{8}' => b'b',
            '\u{c}' => b'f',
            '\n' => b'n',
            '\r' => b'r',
            '\t' => b't',
            c if c < ' ' => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let c = c as usize;
                self.0
                    .extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[c >> 4], HEX[c & 15]]);
                return;
            }
            c => {
                let mut utf8 = [0; 4];
                self.0
                    .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                return;
            }
        };
        self.0.extend_from_slice(&[b'\\', short]);
    }
    #[inline]
    fn stop(b: &[u8], i: usize, _: &mut Self) -> usize {
        find_string_stop_comma(b, i).0
    }
}

/// A csv field in the making, inside an opening quote: quotes doubled as they come, and
/// whether it must stay quoted (it holds `,`, `"`, CR or LF).
struct CsvField<'o> {
    out: &'o mut Vec<u8>,
    quote: bool,
}

impl Decoded for CsvField<'_> {
    #[inline]
    fn text(&mut self, s: &str) {
        // A run between escapes holds no quote, CR or LF; its commas were noted by `stop`.
        self.out.extend_from_slice(s.as_bytes());
    }
    #[inline]
    fn char(&mut self, c: char) {
        match c {
            '"' => {
                self.out.extend_from_slice(b"\"\"");
                self.quote = true;
            }
            ',' | '\r' | '\n' => {
                self.out.push(c as u8);
                self.quote = true;
            }
            c => {
                let mut utf8 = [0; 4];
                self.out
                    .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            }
        }
    }
    #[inline]
    fn stop(b: &[u8], i: usize, out: &mut Self) -> usize {
        let (stop, comma) = find_string_stop_comma(b, i);
        out.quote |= comma;
        stop
    }
}

/// Append the first `len` bytes of `from` to `out`. Most values and keys are short: when `from`
/// holds 32 bytes, a fixed 32-byte copy (loads and stores, no call to memcpy), then the bytes
/// past `len` taken off again.
#[inline(always)]
fn push_short(out: &mut Vec<u8>, from: &[u8], len: usize) {
    match from.first_chunk::<32>() {
        Some(block) if len <= 32 => {
            let end = out.len() + len;
            out.extend_from_slice(block);
            out.truncate(end);
        }
        _ => out.extend_from_slice(&from[..len]),
    }
}

/// ndjson: what goes before each column's value, `{"name":` for the first and `,"name":` for
/// the others (names as serde_json writes them), made once a result, in one buffer with room
/// after the last for [`push_short`]'s fixed copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NdjsonKeys {
    bytes: Vec<u8>,
    /// Each column's prefix: where it starts in `bytes`, and its length.
    at: Vec<(usize, usize)>,
}

impl NdjsonKeys {
    /// For columns of these names.
    pub fn new<S: AsRef<str>>(names: &[S]) -> NdjsonKeys {
        let mut bytes = Vec::new();
        let mut at = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let start = bytes.len();
            bytes.push(if i == 0 { b'{' } else { b',' });
            serde_json::to_writer(&mut bytes, name.as_ref()).expect("a string into a Vec");
            bytes.push(b':');
            at.push((start, bytes.len() - start));
        }
        bytes.resize(bytes.len() + 32, 0);
        NdjsonKeys { bytes, at }
    }

    /// Column `i`'s prefix appended to `out` (a column past the names is `"columnN":`, as
    /// the serde path names it). Inlined into the row's loop, always: as a call (the release
    /// build made it one) it was 17% of the samples of `sql -o ndjson`, and the loop reloaded
    /// the output's length after each; inlined, with the rare case kept out, the whole run took
    /// 0.89x the CPU (40 pairs of runs, docs/performance-streams.md).
    #[inline(always)]
    pub fn push(&self, out: &mut Vec<u8>, i: usize) {
        match self.at.get(i) {
            Some(&(start, len)) => push_short(out, &self.bytes[start..], len),
            None => Self::push_unnamed(out, i),
        }
    }

    /// [`Self::push`] past the names: rare, kept out of the row's loop.
    #[cold]
    #[inline(never)]
    fn push_unnamed(out: &mut Vec<u8>, i: usize) {
        out.push(if i == 0 { b'{' } else { b',' });
        out.extend_from_slice(format!("\"column{}\":", i + 1).as_bytes());
    }
}

/// The JSON white space: space, tab, LF, CR.
#[inline]
fn is_ws(c: u8) -> bool {
    // One comparison for the bytes that are never white space, which are nearly all.
    c <= b' ' && matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn hex4(b: &[u8]) -> Option<u32> {
    let digits = b.get(..4)?;
    let mut v = 0;
    for &d in digits {
        v = v << 4 | (d as char).to_digit(16)?;
    }
    Some(v)
}

impl<'l> Scanner<'l> {
    fn new(text: &'l str) -> Self {
        Scanner {
            text,
            b: text.as_bytes(),
            pos: 0,
        }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if !is_ws(c) {
                break;
            }
            self.pos += 1;
        }
    }

    /// The next byte after white space.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        // Most lines have no white space: look before looping.
        match self.b.get(self.pos) {
            Some(&c) if !is_ws(c) => Some(c),
            _ => {
                self.ws();
                self.b.get(self.pos).copied()
            }
        }
    }

    /// `token` after white space.
    fn eat(&mut self, token: &[u8]) -> Result<(), Bail> {
        self.ws();
        if self.b[self.pos..].starts_with(token) {
            self.pos += token.len();
            Ok(())
        } else {
            Err(Bail)
        }
    }

    /// The byte `c` after white space.
    #[inline]
    fn eat_byte(&mut self, c: u8) -> Result<(), Bail> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Bail)
        }
    }

    fn line(&mut self, sink: &mut dyn RowSink, rows: &mut u64) -> Result<LineInfo, Bail> {
        self.eat_byte(b'{')?;
        self.eat(br#""data""#)?;
        self.eat_byte(b':')?;
        self.eat_byte(b'[')?;
        let mut cells: Vec<Cell<'l>> = Vec::with_capacity(sink.width());
        // Decoded strings given back by the rows before, for the next ones.
        let mut pool: Vec<String> = Vec::new();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                self.eat_byte(b'[')?;
                let go = match sink.direct() {
                    Some(direct) => {
                        let appended = match direct {
                            Direct::Csv(out) => {
                                let start = out.len();
                                self.csv_row(out).inspect_err(|_| out.truncate(start))
                            }
                            Direct::Ndjson(out, keys) => {
                                let start = out.len();
                                self.ndjson_row(out, keys)
                                    .inspect_err(|_| out.truncate(start))
                            }
                        };
                        // Not a row the fast path writes: the serde path will.
                        appended?;
                        *rows += 1;
                        sink.direct_row()
                    }
                    None => {
                        for cell in cells.drain(..) {
                            if let Cell::Text(Cow::Owned(s)) = cell {
                                pool.push(s);
                            }
                        }
                        self.row(&mut cells, &mut pool)?;
                        *rows += 1;
                        sink.row(&cells)
                    }
                };
                if !go {
                    return Ok(LineInfo {
                        rows: *rows,
                        stopped: true,
                        ..LineInfo::default()
                    });
                }
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Bail),
                }
            }
        }
        self.eat_byte(b'}')?;
        self.ws();
        if self.pos != self.b.len() {
            return Err(Bail);
        }
        Ok(LineInfo {
            rows: *rows,
            ..LineInfo::default()
        })
    }

    /// A row as a csv record appended to `out` (see `render/csv.rs`), after its `[`, through
    /// its `]`. On [`Bail`] the caller takes back what was appended.
    fn csv_row(&mut self, out: &mut Vec<u8>) -> Result<(), Bail> {
        let start = out.len();
        if self.peek() == Some(b']') {
            self.pos += 1;
            csv::end_record(out, start);
            return Ok(());
        }
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    self.csv_string(out)?;
                }
                Some(b'n') => {
                    self.literal(b"null", Cell::Null)?;
                }
                Some(b't') => {
                    self.literal(b"true", Cell::Null)?;
                    out.extend_from_slice(b"true");
                }
                Some(b'f') => {
                    self.literal(b"false", Cell::Null)?;
                    out.extend_from_slice(b"false");
                }
                Some(b'-' | b'0'..=b'9') => {
                    // A number as sent: digits, sign, point and exponent, nothing to quote.
                    let start = self.pos;
                    self.number()?;
                    out.extend_from_slice(&self.b[start..self.pos]);
                }
                _ => return Err(Bail),
            }
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    out.push(b',');
                }
                Some(b']') => {
                    self.pos += 1;
                    csv::end_record(out, start);
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    /// A row as an ndjson object appended to `out` (as `render/rows.rs` writes a row of
    /// cells: `"name":value` in column order, strings as serde_json writes them, other values
    /// as sent), after its `[`, through its `]`. On [`Bail`] the caller takes back what was
    /// appended.
    fn ndjson_row(&mut self, out: &mut Vec<u8>, keys: &NdjsonKeys) -> Result<(), Bail> {
        if self.peek() == Some(b']') {
            self.pos += 1;
            out.extend_from_slice(b"{}\n");
            return Ok(());
        }
        let mut i = 0;
        loop {
            keys.push(out, i);
            i += 1;
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    self.ndjson_string(out)?;
                }
                Some(b'n') => {
                    self.literal(b"null", Cell::Null)?;
                    out.extend_from_slice(b"null");
                }
                Some(b't') => {
                    self.literal(b"true", Cell::Null)?;
                    out.extend_from_slice(b"true");
                }
                Some(b'f') => {
                    self.literal(b"false", Cell::Null)?;
                    out.extend_from_slice(b"false");
                }
                Some(b'-' | b'0'..=b'9') => {
                    let start = self.pos;
                    self.number()?;
                    push_short(out, &self.b[start..], self.pos - start);
                }
                _ => return Err(Bail),
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    out.extend_from_slice(b"}\n");
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    /// A string as JSON, after its opening quote, through its closing one. Without escapes
    /// its bytes, quotes included, are copied as they are: they hold no `"`, `\` or control
    /// character, so serde_json would write them unchanged. With escapes it is decoded and
    /// escaped again as it goes, as serde_json escapes ([`JsonText`]; its escapes may differ
    /// from the sender's: `\/` becomes `/`, `\u00e9` becomes `é`).
    #[inline]
    fn ndjson_string(&mut self, out: &mut Vec<u8>) -> Result<(), Bail> {
        let start = self.pos;
        let (stop, _) = find_string_stop_comma(self.b, start);
        match self.b.get(stop) {
            Some(b'"') => {
                self.pos = stop + 1;
                push_short(out, &self.b[start - 1..], stop + 2 - start);
                Ok(())
            }
            Some(b'\\') => {
                out.push(b'"');
                self.escaped(start, stop, &mut JsonText(out))?;
                out.push(b'"');
                Ok(())
            }
            _ => Err(Bail),
        }
    }

    /// A string as a csv field, after its opening quote, through its closing one. Without
    /// escapes its bytes are copied as they are (quoted if a `,` is among them: `"`, CR and LF
    /// cannot be, unescaped); with escapes it is decoded first.
    #[inline]
    fn csv_string(&mut self, out: &mut Vec<u8>) -> Result<(), Bail> {
        let start = self.pos;
        let (stop, comma) = find_string_stop_comma(self.b, start);
        match self.b.get(stop) {
            Some(b'"') => {
                self.pos = stop + 1;
                let field = &self.b[start..stop];
                if comma {
                    out.reserve(field.len() + 2);
                    out.push(b'"');
                    out.extend_from_slice(field);
                    out.push(b'"');
                } else {
                    push_short(out, &self.b[start..], field.len());
                }
                Ok(())
            }
            Some(b'\\') => {
                // Decoded straight into the output, after a quote taken out again at the end
                // if the field needs none (then it holds no quote to have been doubled).
                let field = out.len();
                out.push(b'"');
                let mut csv = CsvField { out, quote: comma };
                self.escaped(start, stop, &mut csv)?;
                if csv.quote {
                    out.push(b'"');
                } else {
                    out.remove(field);
                }
                Ok(())
            }
            _ => Err(Bail),
        }
    }

    /// A row's cells, after its `[`, through its `]`.
    fn row(&mut self, cells: &mut Vec<Cell<'l>>, pool: &mut Vec<String>) -> Result<(), Bail> {
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let cell = match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    self.string(pool)?
                }
                Some(b'n') => self.literal(b"null", Cell::Null)?,
                Some(b't') => self.literal(b"true", Cell::Json(Cow::Borrowed("true")))?,
                Some(b'f') => self.literal(b"false", Cell::Json(Cow::Borrowed("false")))?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(Bail),
            };
            cells.push(cell);
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    #[inline]
    fn literal(&mut self, word: &[u8], cell: Cell<'l>) -> Result<Cell<'l>, Bail> {
        if self.b[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(cell)
        } else {
            Err(Bail)
        }
    }

    /// A string's contents, after its opening quote, through its closing one.
    #[inline]
    fn string(&mut self, pool: &mut Vec<String>) -> Result<Cell<'l>, Bail> {
        let start = self.pos;
        let (stop, _) = find_string_stop_comma(self.b, start);
        match self.b.get(stop) {
            Some(b'"') => {
                self.pos = stop + 1;
                Ok(Cell::Text(Cow::Borrowed(&self.text[start..stop])))
            }
            Some(b'\\') => {
                let mut decoded = pool.pop().unwrap_or_default();
                decoded.clear();
                match self.escaped(start, stop, &mut decoded) {
                    Ok(()) => Ok(Cell::Text(Cow::Owned(decoded))),
                    Err(Bail) => Err(Bail),
                }
            }
            _ => Err(Bail),
        }
    }

    /// A string with escapes, decoded into `out`; `start` is where its contents begin, `at` its
    /// first backslash.
    fn escaped<O: Decoded>(
        &mut self,
        start: usize,
        mut at: usize,
        out: &mut O,
    ) -> Result<(), Bail> {
        out.text(&self.text[start..at]);
        loop {
            // `at` is a backslash.
            let esc = *self.b.get(at + 1).ok_or(Bail)?;
            let mut next = at + 2;
            let c = match esc {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hi = hex4(&self.b[next..]).ok_or(Bail)?;
                    next += 4;
                    let c = match hi {
                        0xD800..=0xDBFF => {
                            // A surrogate pair, or something the serde path must judge.
                            if self.b.get(next..next + 2) != Some(br"\u") {
                                return Err(Bail);
                            }
                            let lo = hex4(&self.b[next + 2..]).ok_or(Bail)?;
                            if !(0xDC00..=0xDFFF).contains(&lo) {
                                return Err(Bail);
                            }
                            next += 6;
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        0xDC00..=0xDFFF => return Err(Bail),
                        c => c,
                    };
                    char::from_u32(c).ok_or(Bail)?
                }
                _ => return Err(Bail),
            };
            out.char(c);
            let stop = O::stop(self.b, next, out);
            out.text(&self.text[next..stop]);
            match self.b.get(stop) {
                Some(b'"') => {
                    self.pos = stop + 1;
                    return Ok(());
                }
                Some(b'\\') => at = stop,
                _ => return Err(Bail),
            }
        }
    }

    /// A number (JSON's grammar, as serde_json checks it), borrowed as its text.
    fn number(&mut self) -> Result<Cell<'l>, Bail> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        if b[i] == b'-' {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return Err(Bail),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == from {
                return Err(Bail);
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == from {
                return Err(Bail);
            }
        }
        self.pos = i;
        Ok(Cell::Json(Cow::Borrowed(&self.text[start..i])))
    }
}

#[cfg(test)]
mod tests;
