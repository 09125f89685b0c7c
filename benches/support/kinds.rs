//! Streams this project's own generator does not make, for `extract-final` beside `wc -l`:
//! each kind stresses another part of the scan. Deterministic (a seeded PRNG), so every run
//! measures the same bytes.
//!
//! - `vendor`: the shapes of the vendor's published examples (the `docs` wire variant:
//!   `cube_data_analyst_agent`, `cubeMeta`/`cubeSqlApi`, no `final` frames, so the answer is the
//!   last complete assistant message, `--fallback`): many small deltas, SQL results of 100 rows
//!   as objects with an `annotation`, every fourth turn a result of about 1 MB in one line and a
//!   `__state__` line of about 1 MB that holds it again.
//! - `turns`: three frame kinds taking turns line by line (thinking, answer and tool-progress
//!   deltas of three messages interleaved), so that no line has the shape of the line before.
//! - `crlf`: the project's own streams with CRLF line ends.
//! - `non-ascii`: deltas and results in Japanese, Russian, Greek, Arabic and emoji.
//! - `huge-line`: one line of about 60 MB (under the 64 MiB line bound): a final frame whose
//!   content is a long Markdown report: a `\n` escape a row, quotes on some rows, a third of
//!   the rows in non-ASCII text.

use super::streams::{Rng, write_stream};
use std::io::Write;

/// The stream kinds, by name.
pub const KINDS: &[&str] = &["vendor", "turns", "crlf", "non-ascii", "huge-line"];

/// Extra arguments `extract-final` needs for a kind (the `docs` variant has no final frames).
pub fn args(kind: &str) -> &'static str {
    if kind == "vendor" { "--fallback" } else { "" }
}

/// Write the kind's file of about `bytes` bytes (`huge-line`: one line of about that size,
/// kept under the line bound).
pub fn write_kind(kind: &str, path: &std::path::Path, bytes: u64) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let mut out = Counting {
        inner: std::io::BufWriter::with_capacity(1 << 20, file),
        count: 0,
    };
    let mut rng = Rng::new(7);
    let mut n = 0u64;
    match kind {
        "huge-line" => huge_line(&mut out, &mut rng, bytes.min(60_000_000))?,
        _ => {
            while out.count < bytes {
                match kind {
                    "vendor" => vendor_turn(&mut out, &mut rng, n)?,
                    "turns" => interleaved_turn(&mut out, &mut rng, n)?,
                    "crlf" => {
                        let mut lf = Vec::with_capacity(64 << 10);
                        write_stream(&mut lf, &mut rng, n)?;
                        // The generator's JSON holds no raw newline: each one ends a line.
                        for line in lf.split_inclusive(|&b| b == b'\n') {
                            out.write_all(&line[..line.len() - 1])?;
                            out.write_all(b"\r\n")?;
                        }
                    }
                    "non-ascii" => non_ascii_turn(&mut out, &mut rng, n)?,
                    other => panic!("unknown stream kind {other}"),
                }
                n += 1;
            }
        }
    }
    out.inner.flush()
}

struct Counting<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn line(out: &mut impl Write, s: &str) -> std::io::Result<()> {
    out.write_all(s.as_bytes())?;
    out.write_all(b"\n")
}

const EN: &[&str] = &[
    "revenue",
    "grew",
    "by",
    "the",
    "in",
    "Germany",
    "orders",
    "category",
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
    "and",
    "while",
    "Books",
    "declined",
    "slightly",
    "12.4%",
    "**Electronics**",
];

const INTL: &[&str] = &[
    "売上高",
    "は",
    "前年比",
    "で",
    "増加しました",
    "カテゴリ",
    "注文",
    "顧客",
    "平均",
    "Выручка",
    "выросла",
    "на",
    "по",
    "сравнению",
    "с",
    "прошлым",
    "кварталом",
    "заказы",
    "Τα",
    "έσοδα",
    "αυξήθηκαν",
    "κατά",
    "πελάτες",
    "الإيرادات",
    "ارتفعت",
    "بنسبة",
    "العملاء",
    "📈",
    "📊",
    "€",
    "12 345,67",
    "—",
    "«",
    "»",
    "营收",
    "同比增长",
    "类别",
];

fn words(rng: &mut Rng, from: &[&str], n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(from[rng.below(from.len() as u64) as usize]);
    }
    s
}

/// SQL result rows as objects keyed by member name, values as strings (the `docs` shape).
fn object_rows(rng: &mut Rng, rows: usize, text: &[&str]) -> String {
    let mut s = String::from("[");
    for i in 0..rows {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"orders.category":{},"orders.created_at.month":"2024-{:02}-01T00:00:00.000","orders.total_revenue":"{}.{:02}","orders.count":"{}"}}"#,
            json(&words(rng, text, 2)),
            i % 12 + 1,
            rng.below(1_000_000),
            rng.below(100),
            rng.below(10_000)
        ));
    }
    s.push(']');
    s
}

/// A SQL tool result (JSON text, to be sent as a string) of `rows` rows.
fn sql_result(rng: &mut Rng, sql: &str, rows: usize, text: &[&str]) -> String {
    format!(
        r#"{{"sqlQuery":{},"queryTitle":"Revenue by category and month","description":"Monthly revenue per category","userRequest":"revenue by category by month","data":{},"annotation":{{"measures":{{"orders.total_revenue":{{"title":"Orders Total Revenue","shortTitle":"Total Revenue","type":"number"}},"orders.count":{{"title":"Orders Count","shortTitle":"Count","type":"number"}}}},"dimensions":{{"orders.category":{{"title":"Orders Category","shortTitle":"Category","type":"string"}}}},"timeDimensions":{{"orders.created_at.month":{{"title":"Orders Created at","shortTitle":"Created at","type":"time"}}}}}},"totalRows":{rows},"uuid":"6f1c2a9e-{:04x}-4000-8000-000000000000"}}"#,
        json(sql),
        object_rows(rng, rows, text),
        rng.below(0xffff)
    )
}

const SQL: &str = "SELECT orders.category, DATE_TRUNC('month', orders.created_at) AS month, MEASURE(orders.total_revenue), MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2024-01-01' GROUP BY 1, 2 ORDER BY 3 DESC";

/// One turn in the `docs` variant.
fn vendor_turn(out: &mut impl Write, rng: &mut Rng, n: u64) -> std::io::Result<()> {
    let agent = "cube_data_analyst_agent";
    let msg = format!("{}-message", 1_732_512_345_678u64 + n);
    let mut sort = 0;
    line(
        out,
        r#"{"id":"__cutoff__","role":"assistant","state":{"isStreaming":false},"sort":0}"#,
    )?;
    sort += 1;
    let question = words(rng, EN, 9);
    line(
        out,
        &format!(
            r#"{{"id":"{msg}","role":"user","content":{},"isDelta":false,"sort":{sort}}}"#,
            json(&question)
        ),
    )?;
    // Thinking, in small deltas.
    let think = format!("{msg}-a1");
    let mut thinking = String::new();
    for _ in 0..(20 + rng.below(30)) {
        sort += 1;
        let count = 1 + rng.below(2) as usize;
        let chunk = words(rng, EN, count) + " ";
        thinking.push_str(&chunk);
        line(
            out,
            &format!(
                r#"{{"id":"{think}","role":"assistant","content":"","thinking":{},"isDelta":true,"isInProcess":true,"graphPath":["{agent}"],"isStructuredResponse":false,"sort":{sort}}}"#,
                json(&chunk)
            ),
        )?;
    }
    // The data model searched, then the SQL run.
    let meta_id = format!("{msg}-t1");
    let meta_in = r#"{"searchQuery":"revenue category month"}"#;
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{meta_id}","role":"assistant","toolCall":{{"name":"cubeMeta","input":{}}},"isInProcess":true,"graphPath":["{agent}","tools"],"sort":{sort}}}"#,
            json(meta_in)
        ),
    )?;
    let members: Vec<String> = (0..12)
        .map(|i| format!(r#"{{"name":"orders.m{i}","title":"Orders M{i}","description":"A member of the orders cube","type":"number","aggType":"sum"}}"#))
        .collect();
    let meta_result = format!(
        r#"{{"searchQuery":"revenue category month","cubes":[{{"name":"orders","type":"cube","title":"Orders","members":[{}]}}]}}"#,
        members.join(",")
    );
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{meta_id}","role":"assistant","toolCall":{{"name":"cubeMeta","input":{},"result":{}}},"isInProcess":false,"graphPath":["{agent}","tools"],"sort":{sort}}}"#,
            json(meta_in),
            json(&meta_result)
        ),
    )?;
    let sql_id = format!("{msg}-t2");
    let sql_in = format!(
        r#"{{"sqlQuery":{},"queryTitle":"Revenue by category and month","description":"Monthly revenue per category","userRequest":{},"memoryId":"m-{n}"}}"#,
        json(SQL),
        json(&question)
    );
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{sql_id}","role":"assistant","toolCall":{{"name":"cubeSqlApi","input":{}}},"isInProcess":true,"graphPath":["{agent}","tools"],"sort":{sort}}}"#,
            json(&sql_in)
        ),
    )?;
    // Every fourth turn, about 1 MB of rows (a raised row limit); else the default 100.
    let big = n % 4 == 3;
    let result = sql_result(rng, SQL, if big { 6_000 } else { 100 }, EN);
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{sql_id}","role":"assistant","toolCall":{{"name":"cubeSqlApi","input":{},"result":{}}},"isInProcess":false,"graphPath":["{agent}","tools"],"sort":{sort}}}"#,
            json(&sql_in),
            json(&result)
        ),
    )?;
    // The answer in many small deltas, then complete.
    let answer_id = format!("{msg}-a2");
    let mut answer = String::new();
    for _ in 0..(150 + rng.below(150)) {
        sort += 1;
        let count = 1 + rng.below(2) as usize;
        let chunk = words(rng, EN, count) + " ";
        answer.push_str(&chunk);
        line(
            out,
            &format!(
                r#"{{"id":"{answer_id}","role":"assistant","content":{},"isDelta":true,"isInProcess":true,"graphPath":["{agent}"],"isStructuredResponse":false,"sort":{sort}}}"#,
                json(&chunk)
            ),
        )?;
    }
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{answer_id}","role":"assistant","content":{},"thinking":{},"isDelta":false,"isInProcess":false,"graphPath":["{agent}"],"isStructuredResponse":false,"sort":{sort}}}"#,
            json(&answer),
            json(&thinking)
        ),
    )?;
    // The thread: the question, the tool messages (their results again, as strings), the
    // answer; about 1 MB on the turns with the large result.
    let entry = |kind: &str, content: &str| {
        format!(
            r#"{{"lc":1,"type":"constructor","id":["langchain_core","messages","{kind}"],"kwargs":{{"content":{},"additional_kwargs":{{}},"response_metadata":{{}}}}}}"#,
            json(content)
        )
    };
    let messages = [
        entry("HumanMessage", &question),
        entry("ToolMessage", &meta_result),
        entry("ToolMessage", &result),
        entry("AIMessage", &answer),
    ];
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"__state__","state":{{"messages":[{}]}},"sort":{sort}}}"#,
            messages.join(",")
        ),
    )?;
    line(
        out,
        r#"{"id":"__usage__","type":"usage","usage":{"models":["claude"],"llmCalls":4,"inputTokens":18211,"outputTokens":912,"cacheWriteTokens":0,"cacheReadTokens":12030,"totalTokens":19123}}"#,
    )
}

/// One turn whose thinking, answer and tool-progress deltas take turns line by line.
fn interleaved_turn(out: &mut impl Write, rng: &mut Rng, n: u64) -> std::io::Result<()> {
    let msg = format!("{}-message", 1_700_000_000_000u64 + n);
    let mut sort = 0;
    line(
        out,
        &format!(
            r#"{{"id":"__cutoff__","sort":0,"state":{{"chatId":"chat-{n}","isStreaming":false}}}}"#
        ),
    )?;
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{msg}","sort":{sort},"role":"user","content":{},"isDelta":false,"isInProcess":false}}"#,
            json(&words(rng, EN, 8))
        ),
    )?;
    let (think, fin, tool) = (
        format!("{msg}-think"),
        format!("{msg}-final"),
        format!("{msg}-tool"),
    );
    let (mut thinking, mut answer) = (String::new(), String::new());
    for i in 0..(90 + rng.below(90)) {
        sort += 1;
        let s = match i % 3 {
            0 => {
                let chunk = words(rng, EN, 2) + " ";
                thinking.push_str(&chunk);
                format!(
                    r#"{{"id":"{think}","sort":{sort},"role":"assistant","content":"","thinking":{},"isDelta":true,"isInProcess":true,"graphPath":["data_analyst_agent"],"isStructuredResponse":false}}"#,
                    json(&chunk)
                )
            }
            1 => {
                let chunk = words(rng, EN, 3) + " ";
                answer.push_str(&chunk);
                format!(
                    r#"{{"id":"{fin}","sort":{sort},"role":"assistant","content":{},"isDelta":true,"isInProcess":true,"graphPath":["final"],"isStructuredResponse":false}}"#,
                    json(&chunk)
                )
            }
            _ => format!(
                r#"{{"id":"{tool}","sort":{sort},"role":"assistant","content":"","toolCall":{{"name":"dataSqlApi","input":{{"sqlQuery":{},"queryTitle":"Revenue by category"}},"progress":{{"rowsRead":{},"elapsedMs":{}}}}},"isDelta":true,"isInProcess":true,"graphPath":["data_analyst_agent","tools"]}}"#,
                json(SQL),
                rng.below(1_000_000),
                rng.below(10_000)
            ),
        };
        line(out, &s)?;
    }
    let result = sql_result(rng, SQL, 100, EN);
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{tool}","sort":{sort},"role":"assistant","content":"","toolCall":{{"name":"dataSqlApi","input":{{"sqlQuery":{}}},"result":{}}},"isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent","tools"]}}"#,
            json(SQL),
            json(&result)
        ),
    )?;
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{think}","sort":{sort},"role":"assistant","content":"","thinking":{},"isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent"],"isStructuredResponse":false}}"#,
            json(&thinking)
        ),
    )?;
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{fin}","sort":{sort},"role":"assistant","content":{},"isDelta":false,"isInProcess":false,"graphPath":["final"],"isStructuredResponse":false}}"#,
            json(&answer)
        ),
    )?;
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"__state__","sort":{sort},"state":{{"messages":[{{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{{"content":{}}}}}]}}}}"#,
            json(&answer)
        ),
    )
}

/// One turn of non-ASCII text: thinking and answer deltas, a result of 100 rows.
fn non_ascii_turn(out: &mut impl Write, rng: &mut Rng, n: u64) -> std::io::Result<()> {
    let msg = format!("{}-message", 1_700_000_000_000u64 + n);
    let mut sort = 0;
    line(
        out,
        &format!(
            r#"{{"id":"__cutoff__","sort":0,"state":{{"chatId":"chat-{n}","isStreaming":false}}}}"#
        ),
    )?;
    sort += 1;
    line(
        out,
        &format!(
            r#"{{"id":"{msg}","sort":{sort},"role":"user","content":{},"isDelta":false,"isInProcess":false}}"#,
            json(&words(rng, INTL, 8))
        ),
    )?;
    for (id, path, count) in [
        (
            format!("{msg}-think"),
            "data_analyst_agent",
            20 + rng.below(20),
        ),
        (format!("{msg}-final"), "final", 60 + rng.below(80)),
    ] {
        let field = if path == "final" {
            "content"
        } else {
            "thinking"
        };
        let mut text = String::new();
        for _ in 0..count {
            sort += 1;
            let count = 2 + rng.below(4) as usize;
            let chunk = words(rng, INTL, count) + " ";
            text.push_str(&chunk);
            let content = if field == "content" {
                json(&chunk)
            } else {
                "\"\"".into()
            };
            let thinking = if field == "thinking" {
                format!(r#","thinking":{}"#, json(&chunk))
            } else {
                String::new()
            };
            line(
                out,
                &format!(
                    r#"{{"id":"{id}","sort":{sort},"role":"assistant","content":{content}{thinking},"isDelta":true,"isInProcess":true,"graphPath":["{path}"],"isStructuredResponse":false}}"#
                ),
            )?;
        }
        if path == "data_analyst_agent" {
            let result = sql_result(rng, SQL, 100, INTL);
            sort += 1;
            line(
                out,
                &format!(
                    r#"{{"id":"{msg}-tool","sort":{sort},"role":"assistant","content":"","toolCall":{{"name":"dataSqlApi","input":{{"sqlQuery":{}}},"result":{}}},"isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent","tools"]}}"#,
                    json(SQL),
                    json(&result)
                ),
            )?;
        }
        sort += 1;
        line(
            out,
            &format!(
                r#"{{"id":"{id}","sort":{sort},"role":"assistant","content":{},"isDelta":false,"isInProcess":false,"graphPath":["{path}"],"isStructuredResponse":false}}"#,
                json(&text)
            ),
        )?;
    }
    sort += 1;
    line(
        out,
        &format!(r#"{{"id":"__state__","sort":{sort},"state":{{"messages":[]}}}}"#),
    )
}

/// One final frame whose content is a report of about `bytes` bytes.
fn huge_line(out: &mut impl Write, rng: &mut Rng, bytes: u64) -> std::io::Result<()> {
    let mut report = String::with_capacity(bytes as usize);
    report
        .push_str("# Revenue report\n\n| Category | Month | Revenue | Note |\n|---|---|---|---|\n");
    while (report.len() as u64) < bytes * 9 / 10 {
        let text = if rng.below(3) == 0 { INTL } else { EN };
        // A quoted remark on one row in four.
        let note = if rng.below(4) == 0 {
            format!("\"{}\" {}", words(rng, text, 3), words(rng, EN, 3))
        } else {
            words(rng, EN, 5)
        };
        report.push_str(&format!(
            "| {} | 2024-{:02} | {}.{:02} | {note} |\n",
            words(rng, text, 2),
            rng.below(12) + 1,
            rng.below(1_000_000),
            rng.below(100),
        ));
    }
    write!(
        out,
        r#"{{"id":"1700000000000-final","sort":1,"role":"assistant","content":{},"isDelta":false,"isInProcess":false,"graphPath":["final"],"isStructuredResponse":false}}"#,
        json(&report)
    )?;
    out.write_all(b"\n")
}
