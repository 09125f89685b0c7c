//! Realistic chat streams for benchmarks, generated deterministically: thinking and answer
//! deltas, meta and SQL tool calls with escaped JSON results, `__state__` and `__usage__`.

use std::io::Write;

/// A small deterministic PRNG (splitmix64), so every run measures the same bytes.
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// Next value.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A value below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "revenue",
    "grew",
    "by",
    "the",
    "in",
    "Germany",
    "orders",
    "category",
    "Electronics",
    "was",
    "highest",
    "with",
    "a",
    "total",
    "of",
    "compared",
    "to",
    "last",
    "quarter",
    "customers",
    "average",
    "order",
    "value",
    "increased",
    "€",
    "12,345.67",
    "Über",
    "naïve",
    "📈",
    "and",
    "while",
    "Books",
    "declined",
    "slightly",
];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    s
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Write one stream of a turn; returns the bytes written.
pub fn write_stream(out: &mut impl Write, rng: &mut Rng, n: u64) -> std::io::Result<()> {
    let chat = format!("chat-{n}");
    let msg = format!("{}-message", 1_700_000_000_000u64 + n);
    let mut sort = 0;
    let line = |out: &mut dyn Write, s: String| -> std::io::Result<()> {
        out.write_all(s.as_bytes())?;
        out.write_all(b"\n")
    };
    line(
        out,
        format!(
            r#"{{"id":"__cutoff__","sort":0,"state":{{"chatId":"{chat}","isStreaming":true}}}}"#
        ),
    )?;
    sort += 1;
    line(
        out,
        format!(
            r#"{{"id":"{msg}","sort":{sort},"role":"user","content":{},"isDelta":false,"isInProcess":false}}"#,
            json_str(&words(rng, 8))
        ),
    )?;
    let think_id = format!("{msg}-think");
    let mut thinking = String::new();
    for _ in 0..(10 + rng.below(20)) {
        sort += 1;
        let chunk = words(rng, 3) + " ";
        thinking.push_str(&chunk);
        line(
            out,
            format!(
                r#"{{"id":"{think_id}","sort":{sort},"role":"assistant","content":"","thinking":{},"isDelta":true,"isInProcess":true,"graphPath":["data_analyst_agent"],"isStructuredResponse":false}}"#,
                json_str(&chunk)
            ),
        )?;
    }
    sort += 1;
    line(
        out,
        format!(
            r#"{{"id":"{think_id}","sort":{sort},"role":"assistant","content":"","thinking":{},"isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent"],"isStructuredResponse":false}}"#,
            json_str(&thinking)
        ),
    )?;
    // A SQL tool call: start, then the result as an escaped JSON string with up to 100 rows.
    let tool_id = format!("{msg}-tool-1");
    let sql = "SELECT p.category, SUM(li.quantity * li.unit_price) AS revenue FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY 1 ORDER BY 2 DESC";
    let input = format!(
        r#"{{"sqlQuery":{},"queryTitle":"Revenue by category","description":"Revenue per category","userRequest":"revenue by category"}}"#,
        json_str(sql)
    );
    sort += 1;
    line(
        out,
        format!(
            r#"{{"id":"{tool_id}","sort":{sort},"role":"assistant","content":"","toolCall":{{"name":"dataSqlApi","input":{input}}},"isDelta":false,"isInProcess":true,"graphPath":["data_analyst_agent","tools"]}}"#
        ),
    )?;
    let rows: Vec<String> = (0..(20 + rng.below(80)))
        .map(|i| {
            format!(
                r#"["{}","{}.{:02}"]"#,
                WORDS[(i % WORDS.len() as u64) as usize],
                rng.below(100_000),
                rng.below(100)
            )
        })
        .collect();
    let result = format!(
        r#"{{"sqlQuery":{},"schema":[{{"name":"category","column_type":"string"}},{{"name":"revenue","column_type":"number"}}],"data":[{}],"totalRows":{},"uuid":"0b6c1f1e-0000-4000-8000-{:012}"}}"#,
        json_str(sql),
        rows.join(","),
        rows.len(),
        n
    );
    sort += 1;
    line(
        out,
        format!(
            r#"{{"id":"{tool_id}","sort":{sort},"role":"assistant","content":"","toolCall":{{"name":"dataSqlApi","input":{input},"result":{}}},"isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent","tools"]}}"#,
            json_str(&result)
        ),
    )?;
    // The answer: many small deltas under ["final"], then the complete frame.
    let final_id = format!("{msg}-final");
    let mut answer = String::new();
    for _ in 0..(40 + rng.below(80)) {
        sort += 1;
        let n_words = 2 + rng.below(4) as usize;
        let chunk = words(rng, n_words) + " ";
        answer.push_str(&chunk);
        line(
            out,
            format!(
                r#"{{"id":"{final_id}","sort":{sort},"role":"assistant","content":{},"isDelta":true,"isInProcess":true,"graphPath":["final"],"isStructuredResponse":false}}"#,
                json_str(&chunk)
            ),
        )?;
    }
    sort += 1;
    line(
        out,
        format!(
            r#"{{"id":"{final_id}","sort":{sort},"role":"assistant","content":{},"isDelta":false,"isInProcess":false,"graphPath":["final"],"isStructuredResponse":false}}"#,
            json_str(&answer)
        ),
    )?;
    sort += 1;
    line(
        out,
        format!(
            r#"{{"id":"__state__","sort":{sort},"state":{{"messages":[{{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{{"content":"question"}}}},{{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{{"content":{}}}}}]}}}}"#,
            json_str(&answer)
        ),
    )?;
    line(out, r#"{"id":"__usage__","type":"usage","usage":{"models":["m"],"llmCalls":3,"inputTokens":1200,"outputTokens":300,"cacheWriteTokens":0,"cacheReadTokens":0,"totalTokens":1500}}"#.to_owned())
}

/// Write streams until `bytes` have been written.
pub fn write_streams(path: &std::path::Path, bytes: u64) -> std::io::Result<u64> {
    let file = std::fs::File::create(path)?;
    let mut out = CountingWriter {
        inner: std::io::BufWriter::with_capacity(1 << 20, file),
        count: 0,
    };
    let mut rng = Rng::new(42);
    let mut n = 0;
    while out.count < bytes {
        write_stream(&mut out, &mut rng, n)?;
        n += 1;
    }
    out.inner.flush()?;
    Ok(out.count)
}

struct CountingWriter<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
