use super::precise::{Scanner, scan_whole, skip_plain, special_lanes};
use super::*;

/// [`scan_frame`] with the scanner that came before it, for tests.
fn scan_frame_reference(s: &[u8]) -> Result<TopFields, Invalid> {
    scan_whole(s, |p| p.value())
}

impl Scanner<'_> {
    /// The scanner before [`Scanner::object`] split the line's own object from nested values:
    /// one loop for everything. Kept for tests, as the reference the new one must agree with.
    // One long function on purpose: a reference is worth most unchanged from what it was.
    fn value(&mut self) -> Result<(), Invalid> {
        let mut stack = BitStack::default();
        // The top-level key being read, and where its value started when it is a container.
        let mut key = Key::Other;
        let mut container_start = 0;
        loop {
            self.ws();
            let depth = stack.len();
            let start = self.i;
            // graphPath elements: count them and keep the first if it is a string.
            let in_path = depth == 2 && key == Key::GraphPath && !stack.last_is_object();
            let scalar = match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.i += 1;
                    self.ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if depth >= MAX_DEPTH {
                        return Err(self.err("less nesting"));
                    }
                    if in_path {
                        self.top
                            .graph_path
                            .get_or_insert_with(GraphPath::default)
                            .len += 1;
                    }
                    if depth == 1 && key == Key::GraphPath && open == b'[' {
                        self.top.graph_path = Some(GraphPath::default());
                    }
                    if self.peek() == Some(close) {
                        self.i += 1;
                        true
                    } else {
                        if depth == 1 {
                            container_start = start;
                        }
                        stack.push(open == b'{');
                        if open == b'{' {
                            let name = self.key(stack.len() == 1)?;
                            if stack.len() == 1 {
                                key = name;
                                self.top.forget(key);
                            }
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    let span = self.string()?;
                    if depth == 1 {
                        match key {
                            Key::Id => self.top.id = Some(Field::Str(span)),
                            Key::Role => self.top.role = Some(Field::Str(span)),
                            Key::Content => self.top.content = Some(Field::Str(span)),
                            Key::ToolCall => self.top.tool_call = true,
                            Key::Sort => self.top.sort = Some(Field::Str(span)),
                            Key::Type => self.top.has_type = true,
                            _ => {}
                        }
                    } else if in_path {
                        let path = self.top.graph_path.get_or_insert_with(GraphPath::default);
                        path.len += 1;
                        if path.len == 1 {
                            path.head = Some(span);
                        }
                    }
                    false
                }
                Some(b't') => {
                    self.literal(b"true")?;
                    if depth == 1 && key == Key::IsDelta {
                        self.top.is_delta = true;
                    }
                    true
                }
                Some(b'f') => self.literal(b"false").map(|_| true)?,
                Some(b'n') => {
                    self.literal(b"null")?;
                    if in_path {
                        self.top
                            .graph_path
                            .get_or_insert_with(GraphPath::default)
                            .len += 1;
                    }
                    false // null reads as absent
                }
                Some(b'-' | b'0'..=b'9') => self.number().map(|_| true)?,
                _ => return Err(self.err("a value")),
            };
            if scalar {
                if in_path && !matches!(self.s[start], b'{' | b'[') {
                    self.top
                        .graph_path
                        .get_or_insert_with(GraphPath::default)
                        .len += 1;
                }
                if depth == 1 {
                    self.top.record_raw(key, start, self.i);
                }
            }
            // After a value: close containers or move to the next element.
            loop {
                if stack.len() == 0 {
                    return Ok(());
                }
                let is_object = stack.last_is_object();
                self.ws();
                match (self.peek(), is_object) {
                    (Some(b','), true) => {
                        self.i += 1;
                        self.ws();
                        let name = self.key(stack.len() == 1)?;
                        if stack.len() == 1 {
                            key = name;
                            self.top.forget(key);
                        }
                        break;
                    }
                    (Some(b','), false) => {
                        self.i += 1;
                        break;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.i += 1;
                        stack.pop();
                        if stack.len() == 1 {
                            self.top.record_raw(key, container_start, self.i);
                        }
                    }
                    (_, true) => return Err(self.err("',' or '}'")),
                    (_, false) => return Err(self.err("',' or ']'")),
                }
            }
        }
    }
}

const VALID: &[&str] = &[
    "{}",
    " { } ",
    r#"{"a":1}"#,
    r#"{"a":[1,2.5,-3e10,0,-0.1E+2,true,false,null,"x",{},[]]}"#,
    r#"{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 long text long text long text"}"#,
    r#"{"nested":{"a":{"b":{"c":[[[{"d":"e"}]]]}}}}"#,
    "{\"unicode\":\"h\u{e9}llo w\u{f6}rld \u{1F600} \u{20AC}\u{10FFFF}\"}",
];

const INVALID: &[&str] = &[
    "",
    "[]",
    "1",
    "\"x\"",
    "{",
    "}",
    r#"{"a"}"#,
    r#"{"a":}"#,
    r#"{"a":1,}"#,
    r#"{"a":1 "b":2}"#,
    r#"{a:1}"#,
    r#"{"a":01}"#,
    r#"{"a":1.}"#,
    r#"{"a":-}"#,
    r#"{"a":1e}"#,
    r#"{"a":tru}"#,
    r#"{"a":"\x"}"#,
    r#"{"a":"\u12"}"#,
    "{\"a\":\"tab\there\"}",
    r#"{"a":[1,]}"#,
    r#"{"a":[1}"#,
    r#"{} {}"#,
    r#"{"a":1}x"#,
    r#"{"a":"unterminated}"#,
    r#"{"a":NaN}"#,
];

fn serde_accepts(s: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(s).is_ok()
}

#[test]
fn agrees_with_serde_json() {
    for s in VALID {
        assert!(check_object(s.as_bytes()).is_ok(), "{s}");
        assert!(serde_accepts(s.as_bytes()));
    }
    for s in INVALID {
        assert!(check_object(s.as_bytes()).is_err(), "{s}");
        assert!(!serde_accepts(s.as_bytes()), "{s}");
    }
}

#[test]
fn utf8_is_validated_inside_strings_and_refused_outside() {
    let bad: &[&[u8]] = &[
        b"{\"a\":\"\xff\"}",
        b"{\"a\":\"\xc3\"}",             // truncated sequence
        b"{\"a\":\"\xc0\xaf\"}",         // overlong
        b"{\"a\":\"\xed\xa0\x80\"}",     // surrogate
        b"{\"a\":\"\xf4\x90\x80\x80\"}", // beyond U+10FFFF
        b"{\"a\":1\xc3\xa9}",            // non-ASCII outside a string
    ];
    for s in bad {
        assert!(check_object(s).is_err(), "{:?}", String::from_utf8_lossy(s));
        assert!(!serde_accepts(s));
    }
    // Every lane position of a multi-byte character.
    for pad in 0..9 {
        let s = format!("{{\"a\":\"{}€ü😀\"}}", "x".repeat(pad));
        assert!(check_object(s.as_bytes()).is_ok(), "{s}");
    }
}

#[test]
fn the_table_driven_utf8_check_agrees_with_the_byte_at_a_time_one() {
    // Every sequence of up to four bytes drawn from the edges of Unicode Table 3-7, read from
    // every start, with ASCII after it or not.
    const EDGES: &[u8] = &[
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ];
    let reference = |s: &[u8], mut i: usize| {
        while i < s.len() && s[i] >= 0x80 {
            i += utf8_len(&s[i..])?;
        }
        Some(i)
    };
    let mut s = Vec::with_capacity(5);
    for n in 1..=4u32 {
        for mut k in 0..EDGES.len().pow(n) {
            s.clear();
            for _ in 0..n {
                s.push(EDGES[k % EDGES.len()]);
                k /= EDGES.len();
            }
            for tail in [None, Some(b'x')] {
                s.truncate(n as usize);
                s.extend(tail);
                for i in 0..s.len() {
                    assert_eq!(
                        super::index::utf8_run(&s, i),
                        reference(&s, i),
                        "{s:x?} from {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn numbers_end_where_a_byte_at_a_time_count_says() {
    // Every count of leading digits, then each byte that is not one (those next to the digit
    // range, and those a carry could spill from), then anything.
    let not_digits = [
        b'/', b':', b'.', b'e', b' ', b'"', 0x00, 0x20, 0x7F, 0x80, 0xFA, 0xFF,
    ];
    let any = [b'0', b'9', b':', 0xFF, 0xFA, 0x00];
    for n in 0..=8 {
        for (j, &stop) in not_digits.iter().enumerate() {
            for k in 0..any.len() {
                let mut word = [0u8; 8];
                for (i, b) in word.iter_mut().enumerate() {
                    *b = match i.cmp(&n) {
                        std::cmp::Ordering::Less => b'0' + ((i + j + k) % 10) as u8,
                        std::cmp::Ordering::Equal => stop,
                        std::cmp::Ordering::Greater => any[(i + k) % any.len()],
                    };
                }
                let want = word.iter().take_while(|b| b.is_ascii_digit()).count();
                assert_eq!(want, n);
                assert_eq!(
                    super::index::leading_digits(u64::from_le_bytes(word)),
                    want,
                    "{word:x?}"
                );
            }
        }
    }
}

#[test]
fn mutations_agree_with_serde_json() {
    // Every single-byte deletion and replacement of a realistic frame: the scanner and serde
    // must agree on validity.
    let base = r#"{"id":"f1","sort":7,"role":"assistant","content":"Rev \"q\" \u00e9 €","isDelta":true,"graphPath":["final","x"],"toolCall":{"result":"{\"data\":[[\"1\"]]}"},"n":-1.5e3,"ok":null}"#.as_bytes();
    let replacements = [
        b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'e', b'x', b' ', 0x01, 0xC3,
    ];
    for i in 0..base.len() {
        let mut del = base.to_vec();
        del.remove(i);
        assert_eq!(
            check_object(&del).is_ok(),
            serde_accepts(&del),
            "deleting byte {i}: {}",
            String::from_utf8_lossy(&del)
        );
        for r in replacements {
            let mut rep = base.to_vec();
            rep[i] = r;
            assert_eq!(
                check_object(&rep).is_ok(),
                serde_accepts(&rep),
                "byte {i} -> {r:#x}: {}",
                String::from_utf8_lossy(&rep)
            );
        }
    }
}

#[test]
fn every_prefix_of_a_valid_object_is_invalid() {
    let s = br#"{"id":"x","content":"some \"quoted\" text with \u00e9","n":[1,2,{"k":null}]}"#;
    for end in 0..s.len() {
        assert!(
            check_object(&s[..end]).is_err(),
            "{}",
            String::from_utf8_lossy(&s[..end])
        );
    }
    assert!(check_object(s).is_ok());
}

#[test]
fn special_bytes_are_found_in_every_lane() {
    for lane in 0..8 {
        for special in [b'"', b'\\', 0x00, 0x1f, 0x80, 0xff] {
            let mut w = [b'a'; 8];
            w[lane] = special;
            let lanes = special_lanes(u64::from_le_bytes(w));
            assert_eq!(
                lanes.trailing_zeros() / 8,
                lane as u32,
                "lane {lane} byte {special}"
            );
        }
        let mut w = [b'a'; 8];
        w[lane] = b' ';
        assert_eq!(special_lanes(u64::from_le_bytes(w)), 0);
    }
}

#[test]
fn duplicate_keys_let_the_last_one_win() {
    let s = br#"{"isDelta":true,"isDelta":false,"graphPath":["final"],"graphPath":null,"content":"a","content":null,"role":"x","role":"assistant"}"#;
    let f = scan_frame(s).unwrap();
    assert!(!f.is_delta);
    assert_eq!(f.graph_path, None);
    assert_eq!(f.content, None);
    assert_eq!(text(s, f.role).as_deref(), Some("assistant"));
}

#[test]
fn what_the_scanner_accepts_serde_can_read_at_the_depth_limit() {
    for depth in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
        // `depth` containers in all: the object and depth-1 arrays, the innermost empty.
        let line = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        );
        assert_eq!(
            check_object(line.as_bytes()).is_ok(),
            depth <= MAX_DEPTH,
            "depth {depth}"
        );
        assert_eq!(
            check_object(line.as_bytes()).is_ok(),
            serde_accepts(line.as_bytes()),
            "depth {depth}"
        );
    }
}

#[test]
fn depth_is_bounded() {
    let deep = format!(
        "{{\"a\":{}{}}}",
        "[".repeat(MAX_DEPTH + 1),
        "]".repeat(MAX_DEPTH + 1)
    );
    assert!(check_object(deep.as_bytes()).is_err());
    let ok = format!("{{\"a\":{}{}}}", "[".repeat(10), "]".repeat(10));
    assert!(check_object(ok.as_bytes()).is_ok());
}

fn text(s: &[u8], f: Option<Field>) -> Option<String> {
    match f? {
        Field::Str(span) => unescape(s, span),
        Field::Raw(a, b) => Some(String::from_utf8_lossy(&s[a..b]).into_owned()),
    }
}

#[test]
fn top_level_fields_are_located() {
    let s = br#"{"toolCall":null,"nested":{"role":"user","graphPath":["x"]},"id":"f1","role":"assistant","content":"a \"b\"","isDelta":true,"graphPath":["final",{"k":[1]},null]}"#;
    let f = scan_frame(s).unwrap();
    assert_eq!(text(s, f.id).as_deref(), Some("f1"));
    assert_eq!(text(s, f.role).as_deref(), Some("assistant"));
    assert_eq!(text(s, f.content).as_deref(), Some("a \"b\""));
    assert!(f.is_delta);
    assert!(!f.tool_call, "null reads as absent");
    let path = f.graph_path.unwrap();
    assert_eq!(path.len, 3);
    assert_eq!(unescape(s, path.head.unwrap()).as_deref(), Some("final"));

    let s = br#"{"content":{"table":[1,2]},"isDelta":false,"graphPath":[],"toolCall":{"name":"q"},"id":5}"#;
    let f = scan_frame(s).unwrap();
    assert_eq!(text(s, f.content).as_deref(), Some(r#"{"table":[1,2]}"#));
    assert_eq!(text(s, f.id).as_deref(), Some("5"));
    assert!(!f.is_delta);
    assert!(f.tool_call);
    assert_eq!(f.graph_path, Some(GraphPath { head: None, len: 0 }));

    let s = br#"{"graphPath":"final","\u0072ole":"assistant"}"#;
    let f = scan_frame(s).unwrap();
    assert_eq!(f.graph_path, None);
    assert_eq!(
        text(s, f.role).as_deref(),
        Some("assistant"),
        "escaped keys are read"
    );
}

#[test]
fn skip_plain_stops_where_a_byte_at_a_time_scan_does() {
    let naive = |s: &[u8], i: usize| {
        (i..s.len())
            .find(|&j| matches!(s[j], b'"' | b'\\' | 0..=0x1F | 0x80..=0xFF))
            .unwrap_or(s.len())
    };
    // Every stop byte at every offset of lines long enough for both the 16- and 8-byte paths.
    for stop in [b'"', b'\\', 0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF, b' ', b'~'] {
        for len in [0usize, 1, 7, 8, 15, 16, 17, 31, 40] {
            for at in 0..=len {
                let mut s = vec![b'a'; len];
                if at < len {
                    s[at] = stop;
                }
                for from in 0..=len {
                    assert_eq!(
                        skip_plain(&s, from),
                        naive(&s, from),
                        "stop {stop:#x} at {at} of {len}, from {from}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_split_scanner_agrees_with_the_single_loop_reference() {
    // Same fields and same errors (offset and words), on realistic frames and every single-byte
    // deletion and replacement of them.
    let bases: &[&[u8]] = &[
        br#"{"id":"f1","sort":7,"role":"assistant","content":"Rev \"q\" \u00e9","isDelta":true,"graphPath":["final","x"],"toolCall":{"result":"{\"data\":[[\"1\"]]}"},"n":-1.5e3,"ok":null}"#,
        br#" { "graphPath" : [ null , "final" , [ ] , { "a" : [ 1 , true ] } ] , "type" : "usage" , "sort" : "3" } "#,
        br#"{"id":"__state__","sort":9,"state":{"messages":[{"lc":1,"kwargs":{"content":"x"}}]},"graphPath":[],"content":{},"toolCall":[],"id":false}"#,
        br#"{"graphPath":{"x":1},"role":["assistant"],"content":12,"isDelta":false,"sort":-0.5E+2,"type":null}"#,
    ];
    let replacements = [
        b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'e', b'n', b't', b' ', 0x01, 0xC3,
    ];
    let same = |line: &[u8]| {
        assert_eq!(
            scan_frame(line),
            scan_frame_reference(line),
            "{}",
            String::from_utf8_lossy(line)
        );
    };
    for base in bases {
        same(base);
        for i in 0..base.len() {
            let mut del = base.to_vec();
            del.remove(i);
            same(&del);
            for r in replacements {
                let mut rep = base.to_vec();
                rep[i] = r;
                same(&rep);
            }
        }
    }
    // Nesting at and past the limit, in a plain value and inside graphPath.
    for depth in [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
        let deep = |prefix: &str, suffix: &str| {
            format!("{prefix}{}{}{suffix}", "[".repeat(depth), "]".repeat(depth)).into_bytes()
        };
        same(&deep(r#"{"a":"#, "}"));
        same(&deep(r#"{"graphPath":["#, "]}"));
    }
}

#[test]
fn white_space_after_a_string_across_block_boundaries() {
    // A string's closing quote is no token: its end is found back from the token after it, over
    // white space that may reach into earlier blocks (past 64 bytes too), with the escapes
    // seen in the block masks, and strings that cross from one chunk of 16 blocks into the
    // next.
    for shift in (0..64).chain(980..1040) {
        for pad in [0, 1, 2, 30, 63, 64, 65, 100, 130] {
            let ws = " \t\r ".repeat(pad).chars().take(pad).collect::<String>();
            let x = "x".repeat(shift);
            for (line, want_id, want_content) in [
                (
                    format!(r#"{{"p":"{x}","content":"a\"b"{ws},"id":"f"{ws}}}"#),
                    "f",
                    "a\"b",
                ),
                (
                    format!(r#"{{"p":"{x}","i\u0064"{ws}:"v{x}","content":"plain"{ws}}}"#),
                    &*format!("v{x}"),
                    "plain",
                ),
            ] {
                let line = line.as_bytes();
                let f = scan_frame(line).unwrap();
                assert_eq!(f, scan_frame_reference(line).unwrap(), "{shift} {pad}");
                assert_eq!(text(line, f.id).as_deref(), Some(want_id), "{shift} {pad}");
                assert_eq!(text(line, f.content).as_deref(), Some(want_content));
            }
        }
    }
}

mod props;
mod shapes;

/// Lines long enough to be checked in pieces on two threads: characters across a piece's end at every offset,
/// bad sequences anywhere (across a piece's end among them), a bad byte of structure, each
/// judged as serde_json judges it, by the scanner of runs of lines too.
#[test]
fn long_lines_are_judged_whole_in_pieces() {
    let body = "€ü😀 plain ".repeat(index::UTF8_APART / 5);
    let line = |pad: usize| {
        let id = "i".repeat(pad);
        format!("{{\"id\":\"{id}\",\"content\":\"{body}\",\"sort\":1}}").into_bytes()
    };
    // Where the second piece ends.
    let edge = 2 * index::PIECE;
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    // The text repeats every 15 bytes: a character across the edge at every offset.
    for pad in 0..15 {
        cases.push((format!("good, padded by {pad}"), line(pad)));
    }
    let good = line(0);
    assert!(good.len() > index::UTF8_APART * 2 && good.len() > edge * 4);
    let first = good.iter().position(|&b| b >= 0x80).unwrap();
    let ats = [
        first,
        edge - 3,
        edge - 2,
        edge - 1,
        edge,
        edge + 1,
        good.len() - 20,
    ];
    for at in ats {
        for bad in [
            &b"\xff"[..],
            b"\xc3",
            b"\xe2\x82",
            b"\xed\xa0\x80",
            b"\x80\x80\x80\x80",
        ] {
            let mut l = good.clone();
            l.splice(at..at, bad.iter().copied());
            cases.push((format!("{bad:?} at {at}"), l));
        }
    }
    let mut structure = good.clone();
    let near_end = structure.len() - 10;
    structure[near_end] = b'}';
    cases.push(("a brace in place of a quote".into(), structure));
    let mut scanner = FrameScanner::default();
    let before = index::LONG_SCANS.load(std::sync::atomic::Ordering::Relaxed);
    for (what, l) in &cases {
        let serde = serde_accepts(l);
        assert_eq!(serde, what.starts_with("good"), "{what}");
        assert_eq!(scan_frame(l).is_ok(), serde, "{what}");
        let mut top = TopFields::default();
        assert_eq!(
            scanner.scan_frame_into(l, &mut top).is_ok(),
            serde,
            "{what}"
        );
        if serde {
            assert_eq!(
                text(l, top.content).as_deref(),
                Some(body.as_str()),
                "{what}"
            );
        }
    }
    // Both scanners took the long way with every line (other tests may add to the count).
    let after = index::LONG_SCANS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        after - before >= 2 * cases.len(),
        "{} of {}",
        after - before,
        2 * cases.len()
    );
}

/// Every byte after a backslash, in every lane of a block that holds other escapes (where the
/// AVX classifications look the block up whole) and in a line's short last block (where they
/// check it one escape at a time), `\u` with good and bad hex digits among them: each line
/// judged as serde_json judges it, by every classification.
#[test]
fn every_escaped_byte_in_every_lane_is_judged_as_serde_judges_it() {
    // Escapes every three bytes: any 64-byte block of the text holds many.
    let body: Vec<u8> = br"ab\n".repeat(50);
    let mut escapes: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b'\\', b]).collect();
    escapes.extend([
        br"\u00e9".to_vec(),
        br"\u00E9".to_vec(),
        br"\u00g9".to_vec(),
        br"\u00".to_vec(),
    ]);
    let places = (0..66).chain(body.len() - 8..=body.len());
    for at in places {
        for escape in &escapes {
            let mut line = br#"{"a":""#.to_vec();
            line.extend_from_slice(&body[..at]);
            line.extend_from_slice(escape);
            line.extend_from_slice(&body[at..]);
            line.extend_from_slice(br#""}"#);
            let serde = serde_accepts(&line);
            let show = || format!("{:?} at {at}", String::from_utf8_lossy(escape));
            assert_eq!(
                index::scan_with(&line, index::Sse2).is_some(),
                serde,
                "sse2, {}",
                show()
            );
            if let Some(avx2) = index::Avx2::detect() {
                assert_eq!(
                    index::scan_with(&line, avx2).is_some(),
                    serde,
                    "avx2, {}",
                    show()
                );
            }
            if let Some(avx512) = index::Avx512::detect() {
                let got = index::scan_with(&line, avx512).is_some();
                assert_eq!(got, serde, "avx512, {}", show());
            }
        }
    }
}
