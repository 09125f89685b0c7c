//! Property tests: random valid NDJSON streams, re-chunked at every possible boundary (1-byte
//! chunks and multi-byte UTF-8 split across chunks included), give the same lines and the same
//! final answer as the unchunked input. Deterministic: a fixed-seed generator, no wall clock.

use analyst::stream::answer::{Answer, FinalTracker};
use analyst::stream::ndjson::{Event, Framer};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "Umsatz",
    " stieg",
    " um",
    " 12,5 %",
    " — ",
    "€",
    "😀",
    "\"quoted\"",
    "\\",
    "\n",
    "\t",
    "naïve",
    " ok",
    "日本",
];

/// A random stream: frames of every kind, with CRLF or LF endings and blank lines here and there.
fn random_stream(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let mut sort = 0;
    let messages = 1 + rng.below(3);
    out.extend_from_slice(
        b"{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{\"chatId\":\"c\",\"isStreaming\":true}}\n",
    );
    for m in 0..messages {
        let path = [
            "[\"final\"]",
            "[\"final\",\"x\"]",
            "[\"data_analyst_agent\"]",
            "[\"final\",\"a\",\"b\"]",
        ][rng.below(4)];
        let chunks = 1 + rng.below(6);
        let mut whole = String::new();
        for _ in 0..chunks {
            sort += 1;
            let piece: String = (0..1 + rng.below(3))
                .map(|_| PIECES[rng.below(PIECES.len())])
                .collect();
            whole.push_str(&piece);
            let frame = serde_json::json!({"id": format!("m{m}"), "sort": sort, "role": "assistant", "content": piece, "isDelta": true, "graphPath": serde_json::from_str::<serde_json::Value>(path).unwrap()});
            out.extend_from_slice(frame.to_string().as_bytes());
            out.extend_from_slice(if rng.below(4) == 0 { b"\r\n" } else { b"\n" });
            if rng.below(8) == 0 {
                out.extend_from_slice(b"\n");
            }
        }
        if rng.below(3) > 0 {
            sort += 1;
            let frame = serde_json::json!({"id": format!("m{m}"), "sort": sort, "role": "assistant", "content": whole, "isDelta": false, "graphPath": serde_json::from_str::<serde_json::Value>(path).unwrap()});
            out.extend_from_slice(frame.to_string().as_bytes());
            out.push(b'\n');
        }
    }
    out.extend_from_slice(
        b"{\"id\":\"__usage__\",\"type\":\"usage\",\"usage\":{\"totalTokens\":3}}",
    );
    if rng.below(2) == 0 {
        out.push(b'\n');
    }
    out
}

/// Lines (raw bytes) and the answer, feeding `input` cut at the given boundaries.
fn run(input: &[u8], cuts: &[usize]) -> (Vec<Vec<u8>>, Option<Answer>) {
    let mut framer = Framer::new(1 << 20);
    let mut tracker = FinalTracker::new(false);
    let mut lines = Vec::new();
    let mut on = |e: Event<'_>| -> Result<(), ()> {
        if let Event::Line(l) = e {
            lines.push(l.raw.to_vec());
            if !l.is_blank() {
                tracker.observe(l.text).expect("generated lines are valid");
            }
        }
        Ok(())
    };
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        framer.feed(&input[start..cut], &mut on).unwrap();
        start = cut;
    }
    framer.finish(&mut on).unwrap();
    (lines, tracker.answer())
}

#[test]
fn every_single_cut_and_one_byte_chunks_give_the_same_frames_and_answer() {
    let mut rng = Rng(7);
    for case in 0..40 {
        let input = random_stream(&mut rng);
        let whole = run(&input, &[]);
        // A last line without a newline is handed out with one.
        let mut ended = input.clone();
        if !ended.is_empty() && !ended.ends_with(b"\n") {
            ended.push(b'\n');
        }
        assert_eq!(
            whole.0.concat(),
            ended,
            "case {case}: lines reassemble the input byte for byte"
        );
        for cut in 0..=input.len() {
            assert_eq!(run(&input, &[cut]), whole, "case {case}, cut at {cut}");
        }
        let every_byte: Vec<usize> = (1..input.len()).collect();
        assert_eq!(
            run(&input, &every_byte),
            whole,
            "case {case}, 1-byte chunks"
        );
    }
}

#[test]
fn random_chunkings_give_the_same_frames_and_answer() {
    let mut rng = Rng(11);
    for case in 0..300 {
        let input = random_stream(&mut rng);
        let whole = run(&input, &[]);
        for _ in 0..20 {
            let mut cuts: Vec<usize> = (0..rng.below(12))
                .map(|_| rng.below(input.len() + 1))
                .collect();
            cuts.sort_unstable();
            assert_eq!(run(&input, &cuts), whole, "case {case}, cuts {cuts:?}");
        }
    }
}

#[test]
fn multibyte_characters_split_across_chunks_survive() {
    let text = "€😀日本naïve";
    let line = serde_json::json!({"id": "f", "role": "assistant", "content": text, "isDelta": false, "graphPath": ["final"]}).to_string() + "\n";
    let input = line.as_bytes();
    for cut in 0..=input.len() {
        let (lines, answer) = run(input, &[cut]);
        assert_eq!(lines.len(), 1);
        assert_eq!(answer.unwrap().text, text, "cut at {cut}");
    }
}
