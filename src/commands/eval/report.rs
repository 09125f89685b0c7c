//! The reports of a run: a table for people, json / yaml / ndjson for machines, JUnit XML for CI.

use super::baseline::Findings;
use super::run::CaseResult;
use crate::render::Format;
use crate::render::write_document;
use crate::term::Style;
use anyhow::{Context, Result};
use comfy_table::{Cell, Color};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// One case as json reports it (`-o json`, `-o ndjson`, `--baseline` reads it back).
pub fn case_json(r: &CaseResult) -> Value {
    json!({
        "name": r.name,
        "suite": r.suite,
        "passed": r.passed(),
        "failures": r.failures,
        "answer": r.answer,
        "chatId": r.chat_id,
        "seconds": (r.seconds * 1000.0).round() / 1000.0,
        "usage": r.usage,
        "sql": r.sql,
    })
}

/// `{summary, cases, baseline?}`.
pub fn document(results: &[CaseResult], findings: Option<&Findings>) -> Value {
    let passed = results.iter().filter(|r| r.passed()).count();
    let mut doc = json!({
        "summary": {
            "total": results.len(),
            "passed": passed,
            "failed": results.len() - passed,
            "regressed": findings.map_or(0, Findings::regressed_cases),
        },
        "cases": results.iter().map(case_json).collect::<Vec<_>>(),
    });
    if let Some(f) = findings {
        doc["baseline"] = f.to_json();
    }
    doc
}

/// Write the report of `format` (not ndjson: its lines go out as cases finish).
pub fn write(
    out: &mut impl Write,
    format: Format,
    results: &[CaseResult],
    findings: Option<&Findings>,
    style: Style,
) -> Result<()> {
    match format {
        Format::Json | Format::Yaml => write_document(out, &document(results, findings), format)?,
        Format::Table => {
            let mut table = crate::render::table(style);
            table.set_header(crate::render::headers(
                style,
                ["CASE", "VERDICT", "SECONDS", "TOKENS", "FIRST FAILURE"],
            ));
            for r in results {
                // Coloured by the table (its own styling), never by escapes in the text,
                // which the table would count as width and misalign the row.
                let (verdict, colour) = if r.passed() {
                    ("pass", Color::DarkGreen)
                } else if r.error.is_some() {
                    ("ERROR", Color::DarkRed)
                } else {
                    ("FAIL", Color::DarkRed)
                };
                table.add_row([
                    Cell::new(&r.name),
                    Cell::new(verdict).fg(colour),
                    Cell::new(format!("{:.2}", r.seconds)),
                    Cell::new(r.tokens().map(|t| t.to_string()).unwrap_or_default()),
                    Cell::new(
                        r.failures
                            .first()
                            .map(|f| one_line(f, 100))
                            .unwrap_or_default(),
                    ),
                ]);
            }
            crate::render::write_table(out, &mut table)?;
        }
        Format::Markdown => write_markdown(out, results, findings)?,
        _ => {}
    }
    Ok(out.flush()?)
}

/// `-o markdown`: a summary line, then one row per case, as `$GITHUB_STEP_SUMMARY` and
/// pull-request comments render it.
fn write_markdown(
    out: &mut impl Write,
    results: &[CaseResult],
    findings: Option<&Findings>,
) -> Result<()> {
    let passed = results.iter().filter(|r| r.passed()).count();
    let failed = results.len() - passed;
    let regressed = findings.map_or(0, Findings::regressed_cases);
    let mark = if failed == 0 { "✅" } else { "❌" };
    write!(
        out,
        "{mark} **{passed} of {} cases passed**, {failed} failed",
        results.len()
    )?;
    if findings.is_some() {
        write!(out, ", {regressed} regressed against the baseline")?;
    }
    writeln!(out, "\n")?;
    writeln!(out, "| Case | Verdict | Seconds | Tokens | First failure |")?;
    writeln!(out, "|---|---|---:|---:|---|")?;
    for r in results {
        let verdict = if r.passed() {
            "✅ pass"
        } else if r.error.is_some() {
            "⚠️ error"
        } else {
            "❌ fail"
        };
        writeln!(
            out,
            "| {} | {verdict} | {:.2} | {} | {} |",
            markdown_cell(&r.name),
            r.seconds,
            r.tokens().map(|t| t.to_string()).unwrap_or_default(),
            r.failures
                .first()
                .map(|f| markdown_cell(&one_line(f, 200)))
                .unwrap_or_default()
        )?;
    }
    Ok(())
}

/// Text inside a Markdown table cell: pipes escaped, lines joined, HTML not interpreted.
fn markdown_cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Under `GITHUB_ACTIONS=true`, one workflow command per failed case on stderr
/// (`::error title=NAME::REASON`), escaped as the runner reads them.
pub fn github_errors(results: &[CaseResult]) -> Vec<String> {
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    results
        .iter()
        .filter(|r| !r.passed())
        .map(|r| {
            let reason = r
                .error
                .as_ref()
                .map(|(_, m)| m.clone())
                .or_else(|| r.failures.first().cloned())
                .unwrap_or_else(|| "failed".into());
            format!("::error title={}::{}", property(&r.name), data(&reason))
        })
        .collect()
}

/// One case's line of `-o ndjson`.
pub fn write_ndjson_line(out: &mut impl Write, r: &CaseResult) -> Result<()> {
    serde_json::to_writer(&mut *out, &case_json(r))?;
    out.write_all(b"\n")?;
    Ok(out.flush()?)
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max - 3).collect();
        format!("{cut}...")
    } else {
        flat
    }
}

/// JUnit XML: one testsuite per suite file (in the order given), one testcase per case, a
/// `<failure>` listing the unmet expectations or an `<error>` for a stream that failed, the
/// answer in `<system-out>`.
pub fn junit(results: &[CaseResult], total: Duration) -> Result<String> {
    let mut report = Report::new("analyst eval");
    report.set_time(total);
    let mut suites: Vec<(String, TestSuite)> = Vec::new();
    for r in results {
        let index = match suites.iter().position(|(name, _)| *name == r.suite) {
            Some(i) => i,
            None => {
                suites.push((r.suite.clone(), TestSuite::new(r.suite.as_str())));
                suites.len() - 1
            }
        };
        let status = match (&r.error, r.failures.as_slice()) {
            (Some((_, message)), _) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message(xml_text(&one_line(message, 500)))
                    .set_type("stream");
                s.set_description(xml_text(message));
                s
            }
            (None, []) => TestCaseStatus::success(),
            (None, failures) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                let first = &failures[0];
                let key = first.split(':').next().unwrap_or("expect");
                let message = if failures.len() == 1 {
                    one_line(first, 500)
                } else {
                    format!(
                        "{} expectations unmet; first {}",
                        failures.len(),
                        one_line(first, 400)
                    )
                };
                s.set_message(xml_text(&message)).set_type(xml_text(key));
                s.set_description(xml_text(&failures.join("\n")));
                s
            }
        };
        let mut case = TestCase::new(r.name.as_str(), status);
        case.set_classname(class_name(&r.suite));
        case.set_time(Duration::from_secs_f64(r.seconds));
        let mut out = format!("question: {}\n", r.question);
        if let Some(id) = &r.chat_id {
            out.push_str(&format!("chatId: {id}\n"));
        }
        out.push_str(&format!(
            "answer: {}\n",
            r.answer.as_deref().unwrap_or("(none)")
        ));
        for sql in &r.sql {
            out.push_str(&format!("sql: {sql}\n"));
        }
        case.set_system_out(xml_text(&out));
        suites[index].1.add_test_case(case);
    }
    for (name, mut suite) in suites {
        suite.set_time(wall_span(results.iter().filter(|r| r.suite == name)));
        report.add_test_suite(suite);
    }
    report.to_string().context("writing JUnit XML")
}

/// The wall time from the first of these cases' start to the last one's end: cases run at once,
/// so a suite's time is its span, never the sum of its cases (which can exceed the whole run's).
fn wall_span<'a>(cases: impl Iterator<Item = &'a CaseResult>) -> Duration {
    let spans: Vec<(std::time::Instant, std::time::Instant)> = cases
        .filter_map(|r| {
            let start = r.started?;
            Some((start, start + Duration::from_secs_f64(r.seconds)))
        })
        .collect();
    let first = spans.iter().map(|(s, _)| *s).min();
    let last = spans.iter().map(|(_, e)| *e).max();
    match (first, last) {
        (Some(first), Some(last)) => last.saturating_duration_since(first),
        _ => Duration::ZERO,
    }
}

/// Text as JUnit XML can hold it, whole: control characters from the service in caret notation
/// (`^[[31m`; quick-junit would strip an escape sequence with the text it colours, and drop
/// other controls), and the two characters XML 1.0 forbids that Rust strings can hold
/// (U+FFFE, U+FFFF) as U+FFFD, so that the file always parses.
fn xml_text(s: &str) -> String {
    crate::term::visible_text(s)
        .chars()
        .map(|c| match c {
            '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// A suite file's stem, as CI systems group test cases by class.
fn class_name(suite: &str) -> String {
    Path::new(suite)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| suite.to_owned())
}

/// Write the JUnit file.
pub fn write_junit(path: &Path, results: &[CaseResult], total: Duration) -> Result<()> {
    let xml = junit(results, total)?;
    std::fs::write(path, xml)
        .map_err(|e| crate::exit::usage(format!("--junit {}: cannot write: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::Status;

    fn result(answer: &str, failures: Vec<String>, error: Option<(Status, String)>) -> CaseResult {
        CaseResult {
            slot: 0,
            name: "c1".into(),
            suite: "suites/s.yaml".into(),
            question: format!("echo {answer}"),
            failures,
            error,
            got_stream: true,
            answer: Some(answer.into()),
            chat_id: Some("t1".into()),
            seconds: 0.5,
            started: None,
            usage: None,
            sql: vec![],
        }
    }

    #[test]
    fn the_coloured_table_keeps_its_columns() {
        let results = [
            result("a", vec![], None),
            result("b", vec!["number: off".into()], None),
            result("c", vec![], Some((Status::Failure, "lost".into()))),
        ];
        let mut out = Vec::new();
        write(
            &mut out,
            Format::Table,
            &results,
            None,
            Style { color: true },
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\x1b["), "coloured: {text}");
        // Each column starts at the same place on screen once the colour codes are taken out.
        let plain = |l: &str| {
            let mut s = String::new();
            let mut chars = l.chars();
            while let Some(c) = chars.next() {
                if c == '\x1b' {
                    chars.by_ref().find(|c| c.is_ascii_alphabetic());
                } else {
                    s.push(c);
                }
            }
            s
        };
        let lines: Vec<String> = text.lines().map(plain).collect();
        for column in ["VERDICT", "SECONDS"] {
            let at = lines[0].find(column).unwrap();
            for row in &lines[2..] {
                let cell = &row[at..];
                assert!(
                    !cell.starts_with(' ') && row[..at].ends_with("  "),
                    "{column} at {at}:\n{text}"
                );
            }
        }
    }

    #[test]
    fn junit_holds_any_text_and_always_parses() {
        let text =
            "a <b> & \"c\" ]]> bell\u{7} \u{1b}[31mred\u{1b}[0m \u{FFFE}\u{FFFF} end\r\nnext";
        let results = [
            result(text, vec![], None),
            result(text, vec![format!("answer_contains: {text}")], None),
            result(text, vec![], Some((Status::Failure, text.to_owned()))),
        ];
        let xml = junit(&results, Duration::from_secs(1)).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let outs: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("system-out"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(outs.len(), 3);
        for out in outs {
            // Every visible character kept; the controls shown, not dropped with their text.
            assert!(
                out.contains(
                    "a <b> & \"c\" ]]> bell^G ^[[31mred^[[0m \u{FFFD}\u{FFFD} end^M\nnext"
                ),
                "{out}"
            );
        }
    }
}
