//! The fast path against the serde path: on random `{data}` lines and on hostile ones (cut,
//! mutated, invalid UTF-8, bad escapes), [`read_line`] hands the sink exactly the rows the serde
//! path alone hands it, in the same calls, and returns the same answer or the same error; a
//! sink that takes csv gets the bytes the `csv` crate writes for the serde path's rows, and one
//! that takes ndjson the bytes serde_json writes for them.
//!
//! A seeded PRNG, so a failure names its case and replays. `DATASCAN_CASES` (default 6000 per
//! generator) asks for more, `DATASCAN_SEED` for another sequence:
//! `DATASCAN_CASES=200000 cargo test --release --lib protocol::data`.

use super::super::{Cell, Direct, LineInfo, NdjsonKeys, RowSink, read_line, read_serde};
use crate::protocol::tool::Column;

use crate::testkit::{Rng, env};

/// Everything a sink is told, in order.
#[derive(Debug, Default, PartialEq)]
struct Record {
    names: Vec<String>,
    events: Vec<Event>,
    /// Stop after this many rows (`row` says `false`).
    stop_after: Option<usize>,
    rows: usize,
    /// Rows wanted as csv, here.
    csv: Option<Vec<u8>>,
    /// Rows wanted as ndjson, here, with these keys (`"name":`, for the reference writer) and
    /// the same as the fast path takes them.
    ndjson: Option<(Vec<u8>, Vec<Vec<u8>>, NdjsonKeys)>,
}

#[derive(Debug, PartialEq)]
enum Event {
    Schema(Vec<Column>),
    /// The cells, kinds and all: a number or `true` handed over as a string is a difference.
    Row(Vec<Cell<'static>>),
}

fn owned(c: &Cell<'_>) -> Cell<'static> {
    match c {
        Cell::Null => Cell::Null,
        Cell::Text(t) => Cell::Text(t.to_string().into()),
        Cell::Json(t) => Cell::Json(t.to_string().into()),
    }
}

impl RowSink for Record {
    fn schema(&mut self, columns: Vec<Column>) {
        self.names = columns
            .iter()
            .map(|c| c.name.0.clone().unwrap_or_default())
            .collect();
        self.events.push(Event::Schema(columns));
    }
    fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
    fn width(&self) -> usize {
        self.names.len()
    }
    fn row(&mut self, cells: &[Cell<'_>]) -> bool {
        self.rows += 1;
        if let Some((out, keys, _)) = &mut self.ndjson {
            ndjson_reference(out, keys, cells);
            return self.stop_after != Some(self.rows);
        }
        match &mut self.csv {
            // As `RowWriter` writes a row handed as cells.
            Some(out) => {
                super::super::csv::write_record(out, cells.iter().map(|c| c.text().unwrap_or("")))
            }
            None => self
                .events
                .push(Event::Row(cells.iter().map(owned).collect())),
        }
        self.stop_after != Some(self.rows)
    }
    fn direct(&mut self) -> Option<Direct<'_>> {
        if let Some((out, _, keys)) = &mut self.ndjson {
            return Some(Direct::Ndjson(out, keys));
        }
        self.csv.as_mut().map(Direct::Csv)
    }
    fn direct_row(&mut self) -> bool {
        self.rows += 1;
        self.stop_after != Some(self.rows)
    }
}

/// A row of cells as `render/rows.rs` writes ndjson, by serde_json alone.
fn ndjson_reference(out: &mut Vec<u8>, keys: &[Vec<u8>], cells: &[Cell<'_>]) {
    out.push(b'{');
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match keys.get(i) {
            Some(k) => out.extend_from_slice(k),
            None => out.extend_from_slice(format!("\"column{}\":", i + 1).as_bytes()),
        }
        match c {
            Cell::Null => out.extend_from_slice(b"null"),
            Cell::Json(t) => out.extend_from_slice(t.as_bytes()),
            Cell::Text(t) => serde_json::to_writer(&mut *out, t.as_ref()).unwrap(),
        }
    }
    out.extend_from_slice(b"}\n");
}

type Outcome = (Result<LineInfo, String>, Record);

fn run(line: &[u8], stop_after: Option<usize>, serde_only: bool) -> Outcome {
    run_into(line, stop_after, serde_only, None)
}

fn run_into(
    line: &[u8],
    stop_after: Option<usize>,
    serde_only: bool,
    csv: Option<Vec<u8>>,
) -> Outcome {
    let mut sink = Record {
        names: vec!["a".into(), "b".into(), "c".into()],
        stop_after,
        csv,
        ..Record::default()
    };
    let r = if serde_only {
        read_serde(line, &mut sink)
    } else {
        read_line(line, &mut sink)
    };
    (r.map_err(|e| e.to_string()), sink)
}

/// Both paths on `line`, with and without a sink that stops; `false` (and a message) if they
/// differ anywhere.
fn check(line: &[u8], stop_after: Option<usize>, case: &str) -> bool {
    let fast = run(line, stop_after, false);
    let slow = run(line, stop_after, true);
    if fast != slow {
        eprintln!(
            "{case}: the fast path differs on {:?}\n  fast: {:?}\n  serde: {:?}",
            String::from_utf8_lossy(line),
            fast,
            slow
        );
        return false;
    }
    // As csv, after a record already in the buffer: the serde path's rows through the csv crate.
    let before = b"x,y\r\n".to_vec();
    let (result, sink) = run_into(line, stop_after, false, Some(before.clone()));
    let mut reference = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(csv::Terminator::CRLF)
        .from_writer(before);
    for event in &slow.1.events {
        if let Event::Row(cells) = event {
            let texts = cells.iter().map(|c| c.text().unwrap_or(""));
            reference.write_record(texts).unwrap();
        }
    }
    let reference = reference.into_inner().unwrap();
    let written = sink.csv.unwrap_or_default();
    // As ndjson, two keys for rows of any width: the serde path's rows by serde_json.
    let keys = vec![b"\"a\":".to_vec(), b"\"b\\\"\":".to_vec()];
    let mut nd_reference = b"{}\n".to_vec();
    for event in &slow.1.events {
        if let Event::Row(cells) = event {
            ndjson_reference(&mut nd_reference, &keys, cells);
        }
    }
    let mut nd = Record {
        names: vec!["a".into(), "b".into(), "c".into()],
        stop_after,
        ndjson: Some((b"{}\n".to_vec(), keys, NdjsonKeys::new(&["a", "b\""]))),
        ..Record::default()
    };
    let nd_result = read_line(line, &mut nd).map_err(|e| e.to_string());
    let nd_written = nd.ndjson.map(|(out, _, _)| out).unwrap_or_default();
    if nd_result != slow.0 || nd_written != nd_reference || nd.rows != slow.1.rows {
        eprintln!(
            "{case}: the fast path's ndjson differs on {:?}\n  fast: {:?} {:?}\n  serde: {:?} {:?}",
            String::from_utf8_lossy(line),
            nd_result,
            String::from_utf8_lossy(&nd_written),
            slow.0,
            String::from_utf8_lossy(&nd_reference),
        );
        return false;
    }
    if result != slow.0 || written != reference || sink.rows != slow.1.rows {
        eprintln!(
            "{case}: the fast path's csv differs on {:?}\n  fast: {:?} {:?}\n  serde: {:?} {:?}",
            String::from_utf8_lossy(line),
            result,
            String::from_utf8_lossy(&written),
            slow.0,
            String::from_utf8_lossy(&reference),
        );
        return false;
    }
    true
}

fn white(rng: &mut Rng, out: &mut Vec<u8>) {
    rng.white(out, 10);
}

/// A string cell: plain text, the bytes csv must quote, unicode, every escape.
fn string(rng: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    let len = if rng.percent(15) {
        rng.below(100)
    } else {
        rng.below(14)
    };
    for _ in 0..len {
        match rng.below(16) {
            0 => out.extend_from_slice(rng.pick(&[
                &br#"\""#[..],
                br"\\",
                br"\/",
                br"\b",
                br"\f",
                br"\n",
                br"\r",
                br"\t",
                br"\u00e9",
                br"\u00E9",
                br"\u0000",
                br"\u001f",
                br"\u0022",
                br"\u002C",
                br"\uD83D\uDE00",
                br"\ud83d\ude00",
                br"\uDBFF\uDFFF",
                br"\uFFFF",
            ])),
            1 => out.extend_from_slice(
                rng.pick(&["é", "€", "😀", "ü", "\u{10FFFF}", "\u{7f}"])
                    .as_bytes(),
            ),
            2 => out.extend_from_slice(rng.pick(&[&b","[..], b",", br#"\""#, b"'"])),
            _ => out.push(rng.pick(b"abcdefghij {}[]:0123456789 ,.-")),
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
        b"123456789012345678",
        b"-123456789012345678",
        b"1234567890123456789",
        b"9223372036854775807",
        b"9223372036854775808",
        b"-9223372036854775808",
        b"-9223372036854775809",
        b"18446744073709551615",
        b"18446744073709551616",
        b"3.25",
        b"-0.5",
        b"0.1",
        b"1.0",
        b"-0.0",
        b"1e5",
        b"1E5",
        b"-2.5E-3",
        b"6E+2",
        b"1e308",
        b"2.5e-400",
        b"0e0",
        b"4.50",
        b"-0.000",
        b"1.0E+2",
        b"12.3400e-07",
        // Out of range for an f64: kept as sent all the same.
        b"-1e400",
    ]);
    out.extend_from_slice(n);
}

fn cell(rng: &mut Rng, out: &mut Vec<u8>) {
    match rng.below(20) {
        0..=11 => string(rng, out),
        12 | 13 => out.extend_from_slice(b"null"),
        14 | 15 => number(rng, out),
        16 => out.extend_from_slice(rng.pick(&[&b"true"[..], b"false"])),
        // Nested values are their JSON text (left to serde: now and then).
        17 if rng.percent(20) => out.extend_from_slice(rng.pick(&[
            &br#"[1,"a",null]"#[..],
            br#"{"k":[true,{"x":"y"}]}"#,
            b"[]",
            b"{}",
            br#"[ [ "\u00e9" ] ]"#,
            b"[ 4.50 ,\n\t-1E+2 , \"a \\\" , b\" ]",
        ])),
        _ => string(rng, out),
    }
}

fn row(rng: &mut Rng, out: &mut Vec<u8>) {
    if rng.percent(3) {
        // A row as an object, keyed by column.
        out.extend_from_slice(br#"{"b":"2","a":"1","zz":null}"#);
        return;
    }
    out.push(b'[');
    let n = rng.pick(&[0, 1, 1, 2, 3, 3, 3, 4, 5]);
    for i in 0..n {
        if i > 0 {
            white(rng, out);
            out.push(b',');
        }
        white(rng, out);
        cell(rng, out);
        white(rng, out);
    }
    out.push(b']');
}

/// A `{data}` line, now and then with other keys or white space around the tokens.
fn data_line(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    white(rng, &mut out);
    out.push(b'{');
    white(rng, &mut out);
    if rng.percent(3) {
        out.extend_from_slice(br#""requestId":"r1","#);
    }
    out.extend_from_slice(br#""data""#);
    white(rng, &mut out);
    out.push(b':');
    white(rng, &mut out);
    out.push(b'[');
    let rows = if rng.percent(5) { 0 } else { 1 + rng.below(8) };
    for i in 0..rows {
        if i > 0 {
            white(rng, &mut out);
            out.push(b',');
        }
        white(rng, &mut out);
        row(rng, &mut out);
    }
    white(rng, &mut out);
    out.push(b']');
    if rng.percent(3) {
        out.extend_from_slice(rng.pick(&[
            &br#","error":"boom","requestId":"r2""#[..],
            br#","data":[["again"]]"#,
            br#","lastRefreshTime":"x""#,
        ]));
    }
    white(rng, &mut out);
    out.push(b'}');
    white(rng, &mut out);
    out
}

/// Bytes that matter to a JSON scanner, to put anywhere.
const BYTES: &[u8] = &[
    b'"', b'\\', b'{', b'}', b'[', b']', b':', b',', b'0', b'1', b'-', b'.', b'e', b'u', b'n',
    b't', b' ', b'\t', b'\n', b'\r', 0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF,
];

/// Pieces that matter, to put anywhere.
const PIECES: &[&[u8]] = &[
    br#"\""#,
    br"\\",
    br"\u00e9",
    br"\uD83D\uDE00",
    br"\uD800",
    br"\uDC00",
    br"\uD800\u0041",
    br"\uD800\uD800",
    br"\uD800\n",
    br"\u12",
    br"\u12G4",
    br"\x",
    br"\U0041",
    "é".as_bytes(),
    b"\xE2\x82",
    b"\xC0\xAF",
    b"\xED\xA0\x80",
    b"1e400",
    b"01",
    b"-",
    b"1.",
    b"1e",
    b"nul",
    b"tru",
    b"[[",
    b"]]",
    b",]",
    b"[,",
    br#"{"a":"#,
];

fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
    let at = |rng: &mut Rng, line: &Vec<u8>| rng.below(line.len() + 1);
    match rng.below(6) {
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
        // Cut: what a lost connection leaves.
        _ => {
            let i = at(rng, line);
            line.truncate(i);
        }
    }
}

#[test]
fn the_fast_path_hands_over_what_serde_does_on_random_and_hostile_lines() {
    let cases = env("DATASCAN_CASES", 6000);
    let seed = env("DATASCAN_SEED", 0x5EED_DA7A);
    let mut rng = Rng(seed);
    let mut failures = 0;
    let (mut fast_whole, mut total) = (0u64, 0u64);

    for case in 0..cases {
        let line = data_line(&mut rng);
        let stop = rng.percent(10).then(|| 1 + rng.below(4));
        total += 1;
        if matches!(
            super::data_line(std::str::from_utf8(&line).unwrap(), &mut Record::default()),
            super::Scan::Done(_)
        ) {
            fast_whole += 1;
        }
        if !check(&line, stop, &format!("seed {seed:#x}, random case {case}")) {
            failures += 1;
        }
        let mut bad = line.clone();
        for _ in 0..=rng.below(3) {
            mutate(&mut rng, &mut bad);
        }
        if !check(&bad, stop, &format!("seed {seed:#x}, hostile case {case}")) {
            failures += 1;
        }
        if failures > 10 {
            break;
        }
    }
    assert_eq!(failures, 0, "see the cases above");
    // Nested cells, object rows, other keys and out-of-range numbers go to serde.
    assert!(
        fast_whole * 2 > total,
        "the fast path read {fast_whole} of {total} random lines whole"
    );
}

#[test]
fn the_shapes_the_fast_path_takes_and_leaves() {
    let lines: &[&[u8]] = &[
        br#"{"data":[]}"#,
        br#"{"data":[[]]}"#,
        br#"{"data":[[""]]}"#,
        br#" { "data" : [ [ "a" , null ] , [ ] ] } "#,
        br#"{"data":[["x\"y",null],["\u00e9",7],{"b":"2","a":"o"}]}"#,
        br#"{"data":[["\ud83d\ude00","\uD83D\uDE00x"]]}"#,
        br#"{"data":[[1e5,-0.5,-0,0,1.0,18446744073709551616,123456789012345678]]}"#,
        br#"{"data":[[true,false,[1,"a"],{"k":null}]]}"#,
        br#"{"data":null}"#,
        br#"{"data":[["a"]],"error":"boom","requestId":"r1"}"#,
        br#"{"data":[["a"]],"data":[["b"]]}"#,
        br#"{"schema":[{"name":"a","column_type":"String"}],"lastRefreshTime":"x"}"#,
        br#"{"error":"boom"}"#,
        br#"{"data":[["a"],["b"]"#,
        br#"{"data":[["a"],["b"],]}"#,
        br#"{"data":[["a"],["\uD800"]]}"#,
        br#"{"data":[["a"],["\x"]]}"#,
        b"{\"data\":[[\"a\"],[\"tab\there\"]]}",
        b"{\"data\":[[\"a\"],[\"\xff\"]]}",
        br#"{"data":[["a"],[1e400]]}"#,
        br#"{"data":[["a"],[01]]}"#,
        br#"{"data":[["a"]]} x"#,
        b"[1]",
        b"",
    ];
    for line in lines {
        for stop in [None, Some(1)] {
            assert!(check(line, stop, "fixed"));
        }
    }
    // Numbers, booleans and nested values are their JSON text as sent, not strings.
    for line in [
        &br#"{"data":[[1e5,-0.5,-0,7,true,4.50,false,"4.50",null]]}"#[..],
        br#"{"data":[[1e5,-0.5,-0,7,true,4.50,false,"4.50",null,{ "k" : [ 1.10 , "a b" ] }]]}"#,
    ] {
        let (r, sink) = run(line, None, false);
        assert_eq!(r.unwrap().rows, 1);
        let json = |s: &'static str| Cell::Json(s.into());
        let mut want = vec![
            json("1e5"),
            json("-0.5"),
            json("-0"),
            json("7"),
            json("true"),
            json("4.50"),
            json("false"),
            Cell::Text("4.50".into()),
            Cell::Null,
        ];
        if line.len() > 60 {
            want.push(json(r#"{"k":[1.10,"a b"]}"#));
        }
        assert_eq!(sink.events, [Event::Row(want)]);
    }
}

#[test]
fn the_string_stop_finds_the_first_quote_backslash_or_control_and_commas_before_it() {
    let mut rng = Rng(7);
    for _ in 0..40_000 {
        let len = rng.below(70);
        let b: Vec<u8> = (0..len)
            .map(|_| {
                if rng.percent(85) {
                    rng.pick(&[b'a', 0x20, 0x7F, 0x80, 0xFF, 0xE2])
                } else {
                    rng.pick(&[b'"', b'\\', 0x00, 0x1F, b','])
                }
            })
            .collect();
        let from = rng.below(len + 1);
        let want = (from..len)
            .find(|&i| b[i] == b'"' || b[i] == b'\\' || b[i] < 0x20)
            .unwrap_or(len);
        let comma = b[from..want].contains(&b',');
        assert_eq!(
            super::find_string_stop_comma(&b, from),
            (want, comma),
            "{b:?} from {from}"
        );
        assert_eq!(
            super::find_string_stop_comma_swar(&b, from),
            (want, comma),
            "{b:?} from {from}"
        );
    }
}
