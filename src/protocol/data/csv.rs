//! csv (RFC 4180) as `analyst sql -o csv` writes it: byte for byte what the `csv` crate's
//! writer writes with its defaults but CRLF record ends (the tests check it against that
//! writer on random records). A field is quoted only when it holds `,`, `"`, CR or LF, a quote
//! inside is doubled, records end with CRLF (RFC 4180 section 2, as Python's `csv` writes by
//! default; CLI.md promises RFC 4180), and a record of no bytes at all (no field, or one empty
//! field) is `""`, so that it is not read back as a blank line. A CR or LF inside a value is
//! kept as sent, inside the quotes.
//!
//! Written here rather than through the crate: the crate's per-field state machine was a fifth
//! of the time of `sql -o csv`. It lives beside the data API's fast path (`scan.rs`), which
//! appends rows straight to the output with these same rules; the rows renderer uses it too
//! (render -> protocol, the way the arrows run).

/// One record: fields joined by `,`, then CRLF.
pub fn write_record<'a>(out: &mut Vec<u8>, fields: impl Iterator<Item = &'a str>) {
    let start = out.len();
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_field(out, field.as_bytes());
    }
    end_record(out, start);
}

/// Ends a record begun at `start` (the buffer's length then): `""` if it has no bytes, CRLF.
#[inline]
pub fn end_record(out: &mut Vec<u8>, start: usize) {
    if out.len() == start {
        out.extend_from_slice(b"\"\"");
    }
    out.extend_from_slice(b"\r\n");
}

/// One field, quoted if it must be.
#[inline]
pub fn write_field(out: &mut Vec<u8>, field: &[u8]) {
    if needs_quotes(field) {
        write_quoted(out, field);
    } else {
        out.extend_from_slice(field);
    }
}

/// A field in quotes, a quote inside doubled.
pub fn write_quoted(out: &mut Vec<u8>, field: &[u8]) {
    out.reserve(field.len() + 2);
    out.push(b'"');
    let mut rest = field;
    while let Some(q) = rest.iter().position(|&b| b == b'"') {
        out.extend_from_slice(&rest[..=q]);
        out.push(b'"');
        rest = &rest[q + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` equal to `b`. The lowest flag is always a real one
/// (a false flag needs a real one below it), so "any" and "the first" are exact.
#[inline(always)]
pub(crate) fn bytes_equal(word: u64, b: u8) -> u64 {
    let x = word ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & HIGH
}

/// Whether a field holds `,`, `"`, CR or LF.
#[inline]
pub fn needs_quotes(field: &[u8]) -> bool {
    let mut words = field.chunks_exact(8);
    for chunk in &mut words {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        if bytes_equal(w, b',')
            | bytes_equal(w, b'"')
            | bytes_equal(w, b'\r')
            | bytes_equal(w, b'\n')
            != 0
        {
            return true;
        }
    }
    words.remainder().iter().any(|&b| SPECIAL[usize::from(b)])
}

/// `,`, `"`, CR, LF.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b',' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\r' as usize] = true;
    t[b'\n' as usize] = true;
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the `csv` crate's writer (the RFC 4180 reference) on random records: the same
    /// bytes. `CSV_CASES` asks for more than the default 20,000.
    #[test]
    fn records_are_byte_for_byte_the_csv_crates() {
        let cases: usize = std::env::var("CSV_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let mut state = 0x00C5_7C5Au64;
        let mut below = |n: usize| {
            // splitmix64
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % n as u64) as usize
        };
        const PIECES: &[&str] = &[
            "a", "b", "7", " ", "x y", ",", "\"", "\"\"", "\r", "\n", "\r\n", "\t", "\\", "'", ";",
            "é", "€", "😀", "\u{0}", "#",
        ];
        let mut ours = Vec::new();
        let mut theirs = csv::WriterBuilder::new()
            .flexible(true)
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::new());
        for _ in 0..cases {
            let width = [0, 1, 1, 2, 3, 4, 5][below(7)];
            let record: Vec<String> = (0..width)
                .map(|_| {
                    // Empty (or null) often; sometimes long, so specials sit past a word.
                    let len = [0, 0, 1, 2, 3, 5, 9, 17, 40][below(9)];
                    (0..len).map(|_| PIECES[below(PIECES.len())]).collect()
                })
                .collect();
            write_record(&mut ours, record.iter().map(String::as_str));
            theirs.write_record(&record).unwrap();
        }
        let theirs = theirs.into_inner().unwrap();
        if ours != theirs {
            let at = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
            let from = at.saturating_sub(40);
            panic!(
                "csv differs at byte {at}:\n  ours:   {:?}\n  theirs: {:?}",
                String::from_utf8_lossy(&ours[from..(at + 40).min(ours.len())]),
                String::from_utf8_lossy(&theirs[from..(at + 40).min(theirs.len())])
            );
        }
    }

    #[test]
    fn quoting_is_decided_by_comma_quote_cr_lf_anywhere() {
        for len in 0..30 {
            for at in 0..len {
                for special in [b',', b'"', b'\r', b'\n'] {
                    let mut field = vec![b'a'; len];
                    field[at] = special;
                    assert!(needs_quotes(&field), "{field:?}");
                }
                let mut field = vec![b'a'; len];
                field[at] = 0xE2;
                assert!(!needs_quotes(&field));
            }
        }
    }
}
