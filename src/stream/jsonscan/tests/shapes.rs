//! The shapes' scan (`index/shapes.rs`) held to [`scan_frame`]: a [`FrameScanner`] that has
//! seen a line must answer for every line of the same shape (other text in its strings, other
//! digits, names, literals and white space) and for every mutation of one exactly as the walk
//! does, verdict, fields and error alike. Each valid line is shown first, so that the lines
//! made from it meet its shape; the test asserts that they did.

use super::props::{BYTES, FRAMES, KEYS, PIECES, object, string, white};
use super::*;
use crate::testkit::{Rng, env};

/// `scanner` answers `line` as [`scan_frame`] does.
pub(super) fn agree(scanner: &mut FrameScanner, line: &[u8], case: &str) {
    let mut top = TopFields::default();
    let got = scanner.scan_frame_into(line, &mut top).map(|()| top);
    assert_eq!(
        got,
        scan_frame(line),
        "shapes, {case}: {:?}",
        String::from_utf8_lossy(line)
    );
}

/// Where a line's strings (interior, and whether a key: a colon follows), its numbers and
/// literals, and the places white space may go are, as a reader of valid JSON sees them.
#[derive(Default)]
struct Parts {
    strings: Vec<(usize, usize, bool)>,
    atoms: Vec<(usize, usize)>,
    gaps: Vec<usize>,
}

fn parts(line: &[u8]) -> Parts {
    let mut parts = Parts::default();
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < line.len() && line[j] != b'"' {
                    j += if line[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(line.len());
                let mut k = end + 1;
                while k < line.len() && matches!(line[k], b' ' | b'\t' | b'\r' | b'\n') {
                    k += 1;
                }
                parts.strings.push((start, end, line.get(k) == Some(&b':')));
                i = end + 1;
            }
            b'{' | b'[' | b',' | b':' => {
                parts.gaps.push(i + 1);
                i += 1;
            }
            b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            _ => {
                let start = i;
                while i < line.len() && !b"{}[]:,\" \t\r\n".contains(&line[i]) {
                    i += 1;
                }
                parts.atoms.push((start, i));
            }
        }
    }
    parts
}

/// Numbers and literals, valid and not, to put where one was.
const ATOMS: &[&[u8]] = &[
    b"0",
    b"7",
    b"42",
    b"1234567",
    b"-3",
    b"-0",
    b"2.5",
    b"1e5",
    b"-1.5E-7",
    b"1e400",
    b"true",
    b"false",
    b"null",
    b"01",
    b"00",
    b"1.",
    b"-",
    b"1e",
    b".5",
    b"+1",
    b"0x1",
    b"tru",
    b"nul",
    b"falsey",
    b"True",
    b"truefalse",
    b"1-",
    b"--1",
];

/// One change that keeps the line's shape when it keeps it valid (or, now and then, a hostile
/// byte where one would change it).
fn vary(rng: &mut Rng, line: &mut Vec<u8>) {
    let p = parts(line);
    match rng.below(6) {
        // Other text in a string (what differs most between frames of a kind).
        0 | 1 if !p.strings.is_empty() => {
            let (start, end, _) = p.strings[rng.below(p.strings.len())];
            let mut text = Vec::new();
            string(rng, &mut text);
            let mut text = text[1..text.len() - 1].to_vec();
            if rng.percent(15) {
                let at = rng.below(text.len() + 1);
                if rng.percent(50) {
                    text.splice(at..at, rng.pick(PIECES).iter().copied());
                } else {
                    text.insert(at, rng.pick(BYTES));
                }
            }
            if rng.percent(5) {
                // A lone backslash last: the quote after it is escaped, not the string's end.
                text.push(b'\\');
            }
            line.splice(start..end, text);
        }
        // Another name for a key: the rule's fields are named by them.
        2 => {
            let keys: Vec<_> = p.strings.iter().filter(|s| s.2).collect();
            if let Some(&&(start, end, _)) = keys.get(rng.below(keys.len().max(1))) {
                let name: Vec<u8> = if rng.percent(70) {
                    rng.pick(KEYS).as_bytes().to_vec()
                } else {
                    let len = rng.below(10);
                    (0..len).map(|_| rng.pick(b"acdeginorstuyDP")).collect()
                };
                line.splice(start..end, name);
            }
        }
        // Another number or literal.
        3 if !p.atoms.is_empty() => {
            let (start, end) = p.atoms[rng.below(p.atoms.len())];
            line.splice(start..end, rng.pick(ATOMS).iter().copied());
        }
        // White space between tokens.
        4 if !p.gaps.is_empty() => {
            let at = p.gaps[rng.below(p.gaps.len())];
            let mut space = Vec::new();
            rng.white(&mut space, 4);
            if rng.percent(5) {
                space.push(0x0C); // a form feed: no JSON white space
            }
            line.splice(at..at, space);
        }
        _ => {
            // Any byte anywhere, now and then.
            if rng.percent(30) && !line.is_empty() {
                let i = rng.below(line.len());
                line[i] = rng.pick(BYTES);
            }
        }
    }
}

#[test]
fn lines_of_a_known_shape_give_what_the_walk_gives() {
    let cases = env("JSONSCAN_CASES", 8000) as usize / 4;
    let seed = env("JSONSCAN_SEED", 0x5EED);
    let mut rng = Rng(seed ^ 0x5A4E);
    let mut scanner = FrameScanner::never_resting();
    let mut base = Vec::new();
    let mut variants = 0;
    for n in 0..cases {
        // A valid line: a frame of the wire's kinds, or a generated object.
        base.clear();
        if rng.percent(60) {
            base.extend_from_slice(rng.pick(FRAMES).as_bytes());
        } else {
            white(&mut rng, &mut base);
            object(&mut rng, &mut base, 1);
        }
        if scan_frame(&base).is_err() {
            continue;
        }
        // Twice: a shape is made the second time its token bytes come.
        agree(&mut scanner, &base, &format!("seed {seed} case {n}, base"));
        agree(
            &mut scanner,
            &base,
            &format!("seed {seed} case {n}, base again"),
        );
        for k in 0..8 {
            let mut line = base.clone();
            for _ in 0..=rng.below(2) {
                vary(&mut rng, &mut line);
            }
            agree(
                &mut scanner,
                &line,
                &format!("seed {seed} case {n}, variant {k}"),
            );
            variants += 1;
        }
    }
    // The lines met their shapes, not only the walk: most variants keep the shape.
    if let Some(hits) = scanner.shape_hits() {
        assert!(hits * 3 > variants, "{hits} of {variants} from a shape");
    }
    // Or their paths: a variant with other text or digits is read along its base's path.
    if let Some(hits) = scanner.path_hits() {
        assert!(hits * 4 > variants, "{hits} of {variants} along a path");
    }
}

/// The readable cases: the same shape with a key renamed (the field is no longer there), with
/// other names of the same length, with white space, and with a number that is not one.
#[test]
fn a_known_shape_still_reads_each_line_for_itself() {
    let mut scanner = FrameScanner::default();
    let lines: &[&str] = &[
        r#"{"id":"a","sort":1,"role":"assistant","content":"x","graphPath":["final"],"isDelta":true}"#,
        r#"{"id":"b","sort":22,"role":"assistant","content":"yy \"z\"","graphPath":["final"],"isDelta":true}"#,
        r#"{"id":"b","sort":22,"role":"assistant","content":"yy","graphPath":["final"],"isDelta":tru }"#,
        r#"{"id":"b","sort":02,"role":"assistant","content":"yy","graphPath":["final"],"isDelta":true}"#,
        r#"{"id":"c","sort":3,"role":"assistant","content" : "w","graphPath":[ "final" ],"isDelta":true}"#,
        r#"{"id":"d","sort":45.5e-3,"role":"user","content":"","graphPath":["tools"],"isDelta":true}"#,
        r#"{"id":"b","sort":22,"role":"assistant","contenT":"yy","graphPath":["final"],"isDelta":true}"#,
        r#"{"xx":"c","sort":3,"role":"assistant","content":"w","graphPath":["final"],"isDelta":false}"#,
        r#"{"id":"c","type":3,"role":"assistant","content":"w","graphPath":["final"],"isDelta":true}"#,
        r#"{"id":"c","sort":3,"role":"assistant","content":"w","graphPath":["final"],"isDelta":true}"#,
    ];
    // A shape is made the second time its token bytes come.
    agree(&mut scanner, lines[0].as_bytes(), lines[0]);
    for line in lines {
        agree(&mut scanner, line.as_bytes(), line);
    }
    assert!(scan_frame(lines[2].as_bytes()).is_err());
    assert!(scan_frame(lines[3].as_bytes()).is_err());
    assert_eq!(scan_frame(lines[6].as_bytes()).unwrap().content, None);
    // Lines 1, 3 and 5 are of line 0's shape, made when line 0 came again: its names, its
    // literals and its white space. Line 2's `tru` and line 4's white space are not the
    // shape's fixed bytes, and are walked.
    if let Some(hits) = scanner.shape_hits() {
        assert_eq!(hits, 3, "lines from a shape");
    }
}

/// A stream whose shapes do not recur is walked without gathering its tokens (or trying the
/// paths of lines before) for a while, and shapes or paths are looked for again after that.
#[test]
fn shapes_and_paths_rest_when_none_recurs() {
    let mut scanner = FrameScanner::default();
    let hits = |scanner: &FrameScanner| scanner.shape_hits().or(scanner.path_hits());
    // 64 lines of 64 shapes, each seen once.
    for n in 1..=64 {
        let fields: Vec<String> = (0..n).map(|i| format!(r#""k{i}":{i}"#)).collect();
        let line = format!("{{{}}}", fields.join(","));
        agree(&mut scanner, line.as_bytes(), &line);
    }
    let Some(0) = hits(&scanner) else {
        return; // this CPU has neither the shapes' scan nor the paths'
    };
    let line = r#"{"id":"a","role":"assistant","content":"x","graphPath":["final"]}"#;
    for _ in 0..4000 {
        agree(&mut scanner, line.as_bytes(), line);
    }
    assert_eq!(hits(&scanner), Some(0), "resting: no shape looked for");
    for _ in 0..200 {
        agree(&mut scanner, line.as_bytes(), line);
    }
    let hits = hits(&scanner).unwrap();
    assert!(
        (100..200).contains(&hits),
        "{hits} lines from a shape or a path after the rest"
    );
}

/// Two kinds of frame with the same token bytes and other names (an answer delta and a
/// thinking delta) keep a shape each, in the two ways of their set, rather than displacing
/// each other at every line.
#[test]
fn frames_alike_but_for_their_names_keep_a_shape_each() {
    let mut scanner = FrameScanner::never_resting();
    let answer = r#"{"id":"m","sort":1,"role":"assistant","content":"a","graphPath":["final"]}"#;
    let thinking = r#"{"id":"m","sort":2,"role":"assistant","thinking":"b","graphPath":["final"]}"#;
    for _ in 0..10 {
        agree(&mut scanner, answer.as_bytes(), answer);
        agree(&mut scanner, thinking.as_bytes(), thinking);
    }
    if let Some(hits) = scanner.shape_hits() {
        // The bytes' second miss (the first thinking delta) makes its shape, the third (the
        // second answer) the answer's: 3 lines walked, 17 from a shape.
        assert_eq!(hits, 17, "lines from a shape");
    }
}

/// A line read along the shape of the line before it: a string ends at the first quote no
/// backslash escapes, whatever the bytes after an escaped one look like.
#[test]
fn a_line_read_along_its_shape_ends_its_strings_where_the_walk_does() {
    let mut scanner = FrameScanner::never_resting();
    let shape = r#"{"id":"m","content":"x","sort":1}"#;
    // Made the second time, read along the third.
    for _ in 0..3 {
        agree(&mut scanner, shape.as_bytes(), shape);
    }
    let lines = [
        // The quote after `x\` is escaped: the string goes on to `,` and the line is invalid.
        r#"{"id":"m","content":"x\","sort":1}"#,
        // An escaped backslash, then the closing quote.
        r#"{"id":"m","content":"x\\","sort":1}"#,
        r#"{"id":"m","content":"\"\\\"","sort":12}"#,
        r#"{"id":"m","content":"x\","sort":1}","sort":1}"#,
        r#"{"id":"m","content":"naïve \u00e9 📈","sort":1}"#,
        r#"{"id":"m","content":"bad \x","sort":1}"#,
        r#"{"id":"m","content":"x","sort":1} "#,
        r#"{"id":"m","content":"x","sort":1"#,
        r#"{"id":"m","content":"x","sort":-0.5e+3}"#,
        r#"{"id":"m","content":"x","sort":1.}"#,
        r#"{"id":"m","content":"x","sort":1}"#,
    ];
    for line in lines {
        agree(&mut scanner, line.as_bytes(), line);
        agree(&mut scanner, shape.as_bytes(), shape);
    }
    assert!(scan_frame(lines[0].as_bytes()).is_err());
    assert!(scan_frame(lines[3].as_bytes()).is_err());
    assert!(scan_frame(lines[5].as_bytes()).is_err());
    if let Some(hits) = scanner.shape_hits() {
        // The shape's line itself, read along its path at each turn but the first.
        assert!(hits >= 12, "{hits} lines from a shape");
    }
}

/// An escape whose backslash ends one 64-byte block and whose escaped byte begins the next is
/// checked like any other, when a line is read along a path (or a shape's) as when it is
/// walked: `\x` there is refused.
#[test]
fn an_escape_cut_by_a_block_boundary_is_checked() {
    let mut scanner = FrameScanner::never_resting();
    // The text starts at byte 12: the backslash at 139 ends the block from 76, the `x` at 140
    // starts the next.
    let text = |tail: &str| format!(r#"{{"content":"{}{tail}","id":"x"}}"#, "a".repeat(127));
    let valid = text(r"\n");
    let invalid = text(r"\x");
    assert_eq!(invalid.find(r"\x"), Some(139));
    for _ in 0..3 {
        agree(&mut scanner, valid.as_bytes(), "the valid line");
    }
    agree(&mut scanner, invalid.as_bytes(), "the cut escape");
    assert!(scan_frame(invalid.as_bytes()).is_err());
    agree(&mut scanner, valid.as_bytes(), "the valid line after");
}

/// Where the CPU has AVX2 but not the shapes' scan, lines are read along the paths of lines
/// seen before: kinds of frame taking turns, and runs of one kind, each walked once.
#[test]
fn kinds_taking_turns_are_read_along_their_paths() {
    let mut scanner = FrameScanner::default();
    let kinds = [
        r#"{"id":"m-think","sort":N,"role":"assistant","content":"","thinking":"T","isDelta":true,"graphPath":["agent"]}"#,
        r#"{"id":"m-final","sort":N,"role":"assistant","content":"T","isDelta":true,"graphPath":["final"]}"#,
        r#"{"id":"m-tool","sort":N,"role":"assistant","toolCall":{"name":"sql","input":{"q":"T"}},"graphPath":["agent","tools"]}"#,
    ];
    let line = |kind: usize, n: usize| {
        kinds[kind]
            .replace('N', &n.to_string())
            .replace('T', &"naïve \\\"word\\\" ".repeat(n % 7))
    };
    let mut n = 0;
    // Taking turns, then in runs of five.
    for turn in 0..30 {
        for kind in 0..3 {
            n += 1;
            let line = line(kind, n);
            agree(&mut scanner, line.as_bytes(), &format!("turn {turn}"));
        }
    }
    for run in 0..6 {
        for _ in 0..5 {
            n += 1;
            let line = line(run % 3, n);
            agree(&mut scanner, line.as_bytes(), &format!("run {run}"));
        }
    }
    if let Some(hits) = scanner.path_hits() {
        // Each kind's first line walked; every other line read along a path.
        assert_eq!(hits, n - 3, "lines read along a path");
    }
}
