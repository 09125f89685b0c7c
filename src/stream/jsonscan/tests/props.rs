//! Property tests: on random and hostile lines, the structural-index scanner (with every
//! classification this CPU can run), the byte-at-a-time scanner, the reference scanner and
//! serde_json agree on whether a line is a JSON object; where it is, the fields agree with the
//! reference's, and [`scan_frame`] gives exactly the reference's answer, errors included.
//!
//! A seeded PRNG, so a failure names its case and replays. `JSONSCAN_CASES` (default 8000 per
//! generator, about 41,000 lines in all) asks for more, `JSONSCAN_SEED` for another sequence:
//! `JSONSCAN_CASES=200000 cargo test --release --lib jsonscan`.

use super::super::index::{self, Classify, portable::Portable};
use super::super::precise;
use super::*;

use crate::testkit::{Rng, env};

/// Realistic frames: the shapes of the benchmark's streams and of the wire's special frames.
pub(super) const FRAMES: &[&str] = &[
    r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"chat-0","isStreaming":true}}"#,
    r#"{"id":"1700000000000-message","sort":1,"role":"user","content":"total naïve orders value a to Books highest","isDelta":false,"isInProcess":false}"#,
    r#"{"id":"1700000000000-message-think","sort":2,"role":"assistant","content":"","thinking":"value last 📈 ","isDelta":true,"isInProcess":true,"graphPath":["data_analyst_agent"],"isStructuredResponse":false}"#,
    r#"{"id":"m-tool-1","sort":31,"role":"assistant","content":"","toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT p.category, SUM(li.quantity) AS revenue FROM line_items li GROUP BY 1","queryTitle":"Revenue"},"result":"{\"sqlQuery\":\"SELECT 1\",\"schema\":[{\"name\":\"category\",\"column_type\":\"string\"}],\"data\":[[\"Books\",\"123.45\"],[\"€ naïve\",\"-0.5e-3\"]],\"totalRows\":2}"},"isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent","tools"]}"#,
    r#"{"id":"m-final","sort":40,"role":"assistant","content":"Revenue \"grew\" by 12% \u00e9 \ud83d\ude00 in Q3\n","isDelta":true,"isInProcess":true,"graphPath":["final"],"isStructuredResponse":false}"#,
    r#"{"id":"__state__","sort":99,"state":{"messages":[{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"answer"}}]}}"#,
    r#"{"id":"__usage__","type":"usage","usage":{"models":["m"],"llmCalls":3,"inputTokens":1200,"outputTokens":300,"totalTokens":1500}}"#,
    r#" { "graphPath" : [ null , "final" , [ ] , { "a" : [ 1 , true ] } ] , "type" : "usage" , "sort" : "3" } "#,
    r#"{"graphPath":{"x":1},"role":["assistant"],"content":12,"isDelta":false,"sort":-0.5E+2,"type":null,"\u0072ole":"assistant"}"#,
    "{\"id\":\"f\",\t\"content\":\"a\\\\\\\"b\\\\\",\r\n\"n\":[0,-0,1e5,2.5E-3,true,false,null,{},[],\"\"]}",
];

/// Bytes that matter to a JSON scanner, to put anywhere.
pub(super) const BYTES: &[u8] = &[
    b'"', b'\\', b'{', b'}', b'[', b']', b':', b',', b'0', b'1', b'9', b'-', b'+', b'.', b'e',
    b'E', b't', b'f', b'n', b'u', b'a', b'/', b' ', b'\t', b'\n', b'\r', 0x00, 0x1F, 0x7F, 0x80,
    0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF,
];

/// Pieces that matter, to put anywhere.
pub(super) const PIECES: &[&[u8]] = &[
    br#"\""#,
    br"\\",
    br#"\\\""#,
    br"\u00e9",
    br"\uD83D\uDE00",
    br"\uD800",
    br"\uDC00",
    br"\uD800\u0041",
    br"\u12",
    br"\x",
    "é".as_bytes(),
    "€".as_bytes(),
    "😀".as_bytes(),
    b"\xE2\x82",
    b"\xF0\x9F\x98",
    b"\xC0\xAF",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"1e400",
    b"-1e309",
    b"1.7976931348623157e308",
    b"1e-400",
    b"0e99999999999",
    b"true",
    b"nul",
    b"[[[[",
    b"]]]]",
    br#"{"a":"#,
    br#","graphPath":["final"]"#,
    br#""isDelta":true"#,
];

pub(super) fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
    let at = |rng: &mut Rng, line: &Vec<u8>| rng.below(line.len() + 1);
    match rng.below(7) {
        0 if !line.is_empty() => {
            let i = rng.below(line.len());
            line[i] = rng.pick(BYTES);
        }
        1 if !line.is_empty() => {
            line.remove(rng.below(line.len()));
        }
        2 => {
            let i = at(rng, line);
            line.insert(i, rng.pick(BYTES));
        }
        3 => {
            let i = at(rng, line);
            let piece = rng.pick(PIECES);
            line.splice(i..i, piece.iter().copied());
        }
        4 if !line.is_empty() => {
            let a = rng.below(line.len());
            let b = (a + 1 + rng.below(40)).min(line.len());
            line.drain(a..b);
        }
        5 if !line.is_empty() => {
            let a = rng.below(line.len());
            let b = (a + 1 + rng.below(70)).min(line.len());
            let copy = line[a..b].to_vec();
            let i = at(rng, line);
            line.splice(i..i, copy);
        }
        _ if !line.is_empty() => {
            let (a, b) = (rng.below(line.len()), rng.below(line.len()));
            line.swap(a, b);
        }
        _ => line.push(rng.pick(BYTES)),
    }
}

pub(super) fn white(rng: &mut Rng, out: &mut Vec<u8>) {
    rng.white(out, 15);
}

pub(super) fn string(rng: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    // Short mostly; sometimes long enough to cross one or more 64-byte blocks.
    let len = if rng.percent(20) {
        rng.below(200)
    } else {
        rng.below(12)
    };
    for _ in 0..len {
        match rng.below(20) {
            0 => out.extend_from_slice(rng.pick(&[
                &br#"\""#[..],
                br"\\",
                br"\/",
                br"\n",
                br"\t",
                br"\u00e9",
                br"\uD83D\uDE00",
                br"\uDBFF\uDFFF",
                br"\uD800",
            ])),
            1 => out.extend_from_slice(rng.pick(&["é", "€", "😀", "ü", "\u{10FFFF}"]).as_bytes()),
            _ => out.push(rng.pick(b"abcdefghij {}[]:,0123456789 ")),
        }
    }
    out.push(b'"');
}

fn number(rng: &mut Rng, out: &mut Vec<u8>) {
    let n: &[u8] = rng.pick(&[
        &b"0"[..],
        b"-0",
        b"7",
        b"-12",
        b"3.25",
        b"1e5",
        b"-2.5E-3",
        b"6E+2",
        b"18446744073709551616",
        b"1e308",
        b"1e309",
        b"-1e400",
        b"2.5e-400",
    ]);
    out.extend_from_slice(n);
}

pub(super) const KEYS: &[&str] = &[
    "id",
    "role",
    "content",
    "isDelta",
    "graphPath",
    "toolCall",
    "sort",
    "type",
    "other",
    "\\u0072ole",
    "",
];

/// A random JSON value inside `depth` containers.
fn value(rng: &mut Rng, out: &mut Vec<u8>, depth: usize) {
    white(rng, out);
    let container = depth < 6 && rng.percent(30);
    match rng.below(if container { 2 } else { 4 }) {
        0 if container => object(rng, out, depth + 1),
        1 if container => {
            out.push(b'[');
            let n = rng.below(4);
            for i in 0..n {
                if i > 0 {
                    out.push(b',');
                }
                value(rng, out, depth + 1);
            }
            white(rng, out);
            out.push(b']');
        }
        0 => string(rng, out),
        1 => number(rng, out),
        2 => out.extend_from_slice(rng.pick(&[&b"true"[..], b"false", b"null"])),
        _ => string(rng, out),
    }
    white(rng, out);
}

pub(super) fn object(rng: &mut Rng, out: &mut Vec<u8>, depth: usize) {
    out.push(b'{');
    let n = rng.below(if depth == 1 { 9 } else { 4 });
    for i in 0..n {
        if i > 0 {
            out.push(b',');
        }
        white(rng, out);
        if depth == 1 && rng.percent(70) {
            out.push(b'"');
            out.extend_from_slice(rng.pick(KEYS).as_bytes());
            out.push(b'"');
        } else {
            string(rng, out);
        }
        white(rng, out);
        out.push(b':');
        if depth == 1 && rng.percent(15) {
            out.extend_from_slice(rng.pick(&[
                &br#"["final"]"#[..],
                br#"["final","x",[1]]"#,
                br#"[]"#,
                br#"[null,"final"]"#,
                br#"[{"a":[]},"x"]"#,
            ]));
        } else {
            value(rng, out, depth);
        }
    }
    white(rng, out);
    out.push(b'}');
}

/// Nesting around the depth limit, as arrays and objects, at the top or inside graphPath.
fn deep(rng: &mut Rng) -> Vec<u8> {
    let depth = MAX_DEPTH - 3 + rng.below(6);
    let mut out = Vec::new();
    let in_path = rng.percent(30);
    out.extend_from_slice(if in_path {
        br#"{"graphPath":["#
    } else {
        br#"{"a":"#
    });
    let outer = if in_path { 2 } else { 1 };
    let mut closes = Vec::new();
    for _ in 0..depth.saturating_sub(outer) {
        if rng.percent(30) {
            out.extend_from_slice(br#"{"k":"#);
            closes.push(b'}');
        } else {
            out.push(b'[');
            closes.push(b']');
        }
    }
    out.extend_from_slice(b"0");
    out.extend(closes.iter().rev());
    out.extend_from_slice(if in_path { b"]}" } else { b"}" });
    out
}

/// A string long enough to cross blocks, with something that matters placed at each offset
/// around a block boundary.
fn boundary(rng: &mut Rng) -> Vec<u8> {
    let mut out = br#"{"content":""#.to_vec();
    let target = rng.pick(&[64usize, 128, 192]) - 3 + rng.below(7);
    while out.len() < target {
        out.push(b'a');
    }
    out.extend_from_slice(rng.pick(PIECES));
    if rng.percent(50) {
        out.extend_from_slice(rng.pick(PIECES));
    }
    out.extend_from_slice(br#"","id":"x"}"#);
    if rng.percent(30) {
        mutate(rng, &mut out);
    }
    out
}

/// Where serde_json's verdict differs from JSON's by design, the line is rewritten into one
/// serde reads as JSON does: lone surrogate escapes (which servers that chunk UTF-16 text send,
/// and the answer rule repairs) become `\ufffd`, and numbers beyond f64 (valid JSON; the rule
/// salvages such lines) become `0`. Only well-formed pieces are rewritten, so no invalid line
/// turns valid.
fn serde_view(b: &[u8]) -> Vec<u8> {
    let hex = |i: usize| -> Option<u32> {
        let h = b.get(i + 2..i + 6)?;
        if b[i..i + 2] != *br"\u" || !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(b.len());
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_string && c == b'\\' {
            match hex(i) {
                Some(0xD800..=0xDBFF) if matches!(hex(i + 6), Some(0xDC00..=0xDFFF)) => {
                    out.extend_from_slice(&b[i..i + 12]);
                    i += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.extend_from_slice(br"\ufffd");
                    i += 6;
                }
                _ => {
                    out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                    i += 2;
                }
            }
            continue;
        }
        if !in_string && (c == b'-' || c.is_ascii_digit()) {
            let end = (i..b.len())
                .find(|&j| !matches!(b[j], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .unwrap_or(b.len());
            let token = &b[i..end];
            let well_formed = serde_json::from_slice::<serde::de::IgnoredAny>(token).is_ok();
            let in_range = serde_json::from_slice::<f64>(token).is_ok();
            out.extend_from_slice(if well_formed && !in_range {
                b"0"
            } else {
                token
            });
            i = end;
            continue;
        }
        if c == b'"' {
            in_string = !in_string;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn json_accepts(line: &[u8]) -> bool {
    serde_accepts(line) || serde_accepts(&serde_view(line))
}

/// Check one line; returns whether it is valid.
fn check(line: &[u8], case: &str) -> bool {
    let show = || format!("{case}: {:?}", String::from_utf8_lossy(line));
    let expected = json_accepts(line);
    let reference = scan_frame_reference(line);
    assert_eq!(reference.is_ok(), expected, "reference, {}", show());
    let fields = reference.ok();
    assert_eq!(
        index::scan_with(line, Portable),
        fields,
        "portable, {}",
        show()
    );
    #[cfg(target_arch = "x86_64")]
    {
        assert_eq!(
            index::scan_with(line, index::Sse2),
            fields,
            "sse2, {}",
            show()
        );
        if let Some(avx2) = index::Avx2::detect() {
            assert_eq!(index::scan_with(line, avx2), fields, "avx2, {}", show());
        }
        if let Some(avx512) = index::Avx512::detect() {
            assert_eq!(index::scan_with(line, avx512), fields, "avx512, {}", show());
        }
    }
    let precise = precise::scan_whole(line, |p| p.object());
    assert_eq!(precise, reference, "byte scanner, {}", show());
    assert_eq!(scan_frame(line), reference, "scan_frame, {}", show());
    expected
}

#[test]
fn the_scanners_agree_with_serde_json_on_random_and_hostile_lines() {
    let cases = env("JSONSCAN_CASES", 8000) as usize;
    let seed = env("JSONSCAN_SEED", 0x5EED);
    let mut rng = Rng(seed);
    let mut line = Vec::new();
    // How many lines were valid, of how many: both kinds must be common for the test to mean
    // anything.
    let (mut valid, mut all) = (0, 0);
    // One scanner for all the lines, as a stream's: it learns their shapes as it goes.
    let mut scanner = FrameScanner::never_resting();
    let mut check = |line: &[u8], case: String| {
        valid += usize::from(check(line, &case));
        super::shapes::agree(&mut scanner, line, &case);
        all += 1;
    };
    for n in 0..cases {
        // Realistic frames with a few mutations.
        line.clear();
        line.extend_from_slice(rng.pick(FRAMES).as_bytes());
        for _ in 0..=rng.below(3) {
            mutate(&mut rng, &mut line);
        }
        check(&line, format!("seed {seed} case {n}, mutated frame"));
        // Generated objects, valid, then mutated.
        line.clear();
        white(&mut rng, &mut line);
        object(&mut rng, &mut line, 1);
        white(&mut rng, &mut line);
        check(&line, format!("seed {seed} case {n}, generated"));
        for _ in 0..=rng.below(2) {
            mutate(&mut rng, &mut line);
        }
        check(
            &line,
            format!("seed {seed} case {n}, generated and mutated"),
        );
        // Random bytes, mostly after a `{`.
        line.clear();
        if rng.percent(80) {
            line.push(b'{');
        }
        for _ in 0..rng.below(150) {
            line.push(rng.pick(BYTES));
        }
        check(&line, format!("seed {seed} case {n}, random bytes"));
        check(
            &boundary(&mut rng),
            format!("seed {seed} case {n}, boundary"),
        );
        if n % 8 == 0 {
            check(&deep(&mut rng), format!("seed {seed} case {n}, deep"));
        }
    }
    assert!(
        valid * 5 > all && valid * 5 < all * 4,
        "{valid} valid of {all}"
    );
}

#[test]
fn a_run_of_non_ascii_text_over_many_blocks_is_read_once_and_accepted() {
    // Text with no ASCII byte in it for more than two blocks (Chinese, emoji): the run is
    // checked once, from the block where it starts, and the blocks it covers after that skip
    // it. Every classification must accept it itself (a refusal would only cost the
    // byte-at-a-time scanner's time, as `scan_frame` asks that one before it says no).
    for ch in ["é", "€", "中", "😀"] {
        for n in [20, 40, 100, 300] {
            for pad in 0..4 {
                let line = format!(
                    "{{\"id\":\"x\",{}\"content\":\"{}\",\"n\":1}}",
                    " ".repeat(pad),
                    ch.repeat(n)
                );
                assert!(check(line.as_bytes(), "long run"), "{line}");
            }
        }
    }
}

#[test]
fn simd_classification_matches_the_portable_table() {
    let mut rng = Rng(7);
    for _ in 0..20_000 {
        let mut block = [0u8; 64];
        for b in &mut block {
            *b = if rng.percent(50) {
                rng.pick(BYTES)
            } else {
                rng.next() as u8
            };
        }
        let want = Portable.classify(&block);
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(index::Sse2.classify(&block), want, "{block:?}");
            if let Some(avx2) = index::Avx2::detect() {
                assert_eq!(avx2.classify(&block), want, "{block:?}");
            }
            if let Some(avx512) = index::Avx512::detect() {
                assert_eq!(avx512.classify(&block), want, "{block:?}");
            }
        }
        assert_eq!(want.low & !want.high, {
            let mut control = 0u64;
            for (i, &b) in block.iter().enumerate() {
                control |= u64::from(b < 0x20) << i;
            }
            control
        });
    }
}

/// A line's blocks as each classification reads them in place (the last one short, past the
/// end white space): what the masked load of AVX-512 gives is what the shifted or padded copy
/// of the others gives, for every length and every block, up to the space bits past the end
/// (where `valid` says no byte is).
#[test]
fn blocks_read_in_place_match_at_every_length() {
    let mut rng = Rng(13);
    for len in 1..=200 {
        for _ in 0..20 {
            let line: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.percent(50) {
                        rng.pick(BYTES)
                    } else {
                        rng.next() as u8
                    }
                })
                .collect();
            for base in (0..len).step_by(64) {
                let (want, valid) = Portable.classify_at(&line, base);
                let inside = |(mut m, v): (index::Masks, u64)| {
                    m.space &= v;
                    (m, v)
                };
                assert_eq!(
                    valid,
                    if len - base >= 64 {
                        !0
                    } else {
                        (1 << (len - base)) - 1
                    }
                );
                let want = inside((want, valid));
                #[cfg(target_arch = "x86_64")]
                {
                    assert_eq!(
                        inside(index::Sse2.classify_at(&line, base)),
                        want,
                        "{line:?}"
                    );
                    if let Some(avx2) = index::Avx2::detect() {
                        assert_eq!(inside(avx2.classify_at(&line, base)), want, "{line:?}");
                    }
                    if let Some(avx512) = index::Avx512::detect() {
                        assert_eq!(inside(avx512.classify_at(&line, base)), want, "{line:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn escaped_bytes_match_a_byte_at_a_time_count() {
    let mut rng = Rng(11);
    for _ in 0..20_000 {
        // Three blocks, so runs cross boundaries.
        let bytes: Vec<u8> = (0..192)
            .map(|_| if rng.percent(45) { b'\\' } else { b'a' })
            .collect();
        let mut naive = vec![false; bytes.len()];
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\\' {
                if i + 1 < bytes.len() {
                    naive[i + 1] = true;
                }
                i += 2;
            } else {
                i += 1;
            }
        }
        let mut carry = 0;
        for (k, chunk) in bytes.chunks(64).enumerate() {
            let mut backslash = 0u64;
            for (j, &b) in chunk.iter().enumerate() {
                backslash |= u64::from(b == b'\\') << j;
            }
            let got = index::escaped_bytes(backslash, &mut carry);
            for j in 0..64 {
                // The simdjson mask marks escaped non-backslashes only; an escaped backslash
                // matters only as the end of its pair.
                let want = naive[64 * k + j] && bytes[64 * k + j] != b'\\';
                assert_eq!(got >> j & 1 == 1, want, "block {k} byte {j}: {bytes:?}");
            }
        }
    }
}

/// Lines long enough to be cut into pieces that the walk may jump over ([`index::PIECE`]):
/// long strings of text dense in escapes and backslash runs, between them random values, and
/// something that matters (a quote, a backslash, a control or non-ASCII byte, a brace) put
/// around a piece's start or anywhere. Judged as serde_json judges them, fields included.
/// Every other line has the helper's part done first, so that the walk meets every piece it
/// did (and jumps over those it could) whatever the threads' timing.
#[test]
fn long_lines_cut_into_pieces_agree_with_serde_json() {
    let cases = env("JSONSCAN_CASES", 8000) as usize / 20;
    let mut rng = Rng(env("JSONSCAN_SEED", 11) ^ 0x10A6);
    let text: &[&[u8]] = &[
        b"plain words ",
        br"\n",
        br#"\""#,
        br"\\",
        br"\\\\\\",
        br#"\\\""#,
        br"\u00e9",
        br"\uD83D\uDE00",
        "naïve € 😀 ".as_bytes(),
        b"| 2024-03 | 1234.56 |",
    ];
    let skipped = index::SKIPPED.load(std::sync::atomic::Ordering::Relaxed);
    let mut valid = 0;
    for case in 0..cases {
        let mut line = br#"{"id":"x","content":""#.to_vec();
        let target = index::UTF8_APART + rng.below(6 * index::PIECE);
        while line.len() < target {
            // A long string, then now and then a few values and another string.
            for _ in 0..1 + rng.below(200) {
                line.extend_from_slice(rng.pick(text));
            }
            if rng.percent(10) {
                line.extend_from_slice(br#"","n":["#);
                for i in 0..1 + rng.below(4) {
                    if i > 0 {
                        line.push(b',');
                    }
                    value(&mut rng, &mut line, 2);
                }
                line.extend_from_slice(br#"],"more":""#);
            }
        }
        line.extend_from_slice(br#"","sort":1}"#);
        if rng.percent(50) {
            let piece = index::PIECE * (1 + rng.below(line.len() / index::PIECE));
            let at = (piece + rng.below(5)).saturating_sub(2).min(line.len() - 1);
            let bytes = rng.pick(&[
                &b"\""[..],
                b"\\",
                b"\\\\",
                b"\x01",
                b"\n",
                b"\xff",
                b"}",
                b"\xc3",
            ]);
            if rng.percent(50) {
                line.splice(at..at, bytes.iter().copied());
            } else {
                line[at] = bytes[0];
            }
        }
        if rng.percent(10) {
            mutate(&mut rng, &mut line);
        }
        assert!(line.len() >= index::UTF8_APART);
        index::HELPER_FIRST.set(case % 2 == 1);
        if check(&line, &format!("long line {case}")) {
            valid += 1;
        }
        index::HELPER_FIRST.set(false);
    }
    assert!(valid > cases / 3, "{valid} of {cases} valid");
    // Lines of at least four pieces, half of them with the helper's part done first.
    let now = index::SKIPPED.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        now - skipped > cases / 2,
        "{} pieces jumped over",
        now - skipped
    );
}
