//! Expectations checked against what a case's last turn produced. Each unmet expectation is
//! one string, `<key>: <reason>`, as the reports and JUnit show it.

use super::collect::Call;
use super::numbers::{find_near, numbers};
use super::suite::Expect;
use crate::protocol::tool::{Tool, classify};

/// What a case produced, as the expectations read it.
pub struct Observed<'a> {
    /// The final answer of the last turn.
    pub answer: &'a str,
    /// The last turn's tool calls.
    pub calls: &'a [Call],
    /// The whole case's duration.
    pub seconds: f64,
}

/// The SQL tool calls of a turn, in order: (SQL text, rows of the result).
pub fn sql_calls(calls: &[Call]) -> Vec<(Option<String>, Option<u64>)> {
    calls
        .iter()
        .filter_map(|c| match classify(&c.input, c.result.as_ref()) {
            Tool::Sql { input, result } => {
                let sql = input
                    .sql()
                    .map(str::to_owned)
                    .or_else(|| result.as_ref().and_then(|r| r.sql_query.0.clone()));
                let rows = result.as_ref().and_then(|r| {
                    r.total_rows
                        .and_then(|n| u64::try_from(n).ok())
                        .or_else(|| r.data.as_ref().map(|d| d.len() as u64))
                });
                Some((sql, rows))
            }
            _ => None,
        })
        .collect()
}

/// A tool's kind, whatever the deployment calls it (PROTOCOL.md, "Tool names vary").
#[derive(Debug, PartialEq, Eq)]
enum Kind<'a> {
    Sql,
    Meta,
    Named(&'a str),
}

fn kind_of_name(name: &str) -> Kind<'_> {
    match name {
        "dataSqlApi" | "cubeSqlApi" | "cubeSqlApiWithChart" => Kind::Sql,
        "dataMeta" | "cubeMeta" => Kind::Meta,
        other => Kind::Named(other),
    }
}

fn kind_of_call(call: &Call) -> Kind<'_> {
    match classify(&call.input, call.result.as_ref()) {
        Tool::Sql { .. } => Kind::Sql,
        Tool::Meta { .. } => Kind::Meta,
        Tool::Other => kind_of_name(&call.name),
    }
}

fn quote(s: &str) -> String {
    let short: String = s.chars().take(80).collect();
    if short.len() < s.len() {
        format!("{short:?}...")
    } else {
        format!("{short:?}")
    }
}

/// Every unmet expectation, in the order of the keys in CLI.md.
pub fn check(e: &Expect, o: &Observed<'_>) -> Vec<String> {
    let mut failures = Vec::new();
    check_text(e, o, &mut failures);
    check_numbers(e, o, &mut failures);
    check_calls(e, o, &mut failures);
    if let Some(limit) = e.max_seconds
        && o.seconds > limit
    {
        failures.push(format!(
            "max_seconds: took {:.1} s, more than {limit} s",
            o.seconds
        ));
    }
    failures
}

/// `answer_matches`, `answer_contains` and `answer_excludes` (the last two ignoring case).
fn check_text(e: &Expect, o: &Observed<'_>, failures: &mut Vec<String>) {
    let lower = o.answer.to_lowercase();
    if let Some(re) = &e.answer_matches
        && !re.is_match(o.answer)
    {
        failures.push(format!(
            "answer_matches: the answer does not match /{re}/: {}",
            quote(o.answer)
        ));
    }
    for want in &e.answer_contains {
        if !lower.contains(&want.to_lowercase()) {
            failures.push(format!("answer_contains: {want:?} is not in the answer"));
        }
    }
    for unwanted in &e.answer_excludes {
        if lower.contains(&unwanted.to_lowercase()) {
            failures.push(format!("answer_excludes: the answer contains {unwanted:?}"));
        }
    }
}

/// `numbers`: each wanted value appears in the answer, within its tolerance.
fn check_numbers(e: &Expect, o: &Observed<'_>, failures: &mut Vec<String>) {
    for n in &e.numbers {
        if find_near(o.answer, n.value, n.tolerance).is_none() {
            let seen: Vec<String> = numbers(o.answer)
                .into_iter()
                .take(6)
                .map(|f| f.text)
                .collect();
            let within = if n.tolerance > 0.0 {
                format!("within {}% of", n.tolerance * 100.0)
            } else {
                "equal to".into()
            };
            failures.push(format!(
                "number: no number {within} {} in the answer (it has {})",
                n.value,
                if seen.is_empty() {
                    "none".to_owned()
                } else {
                    seen.join(", ")
                }
            ));
        }
    }
}

/// `sql_matches`, `tools`, `rows` and `no_tool_errors`: what the agent called and got back.
fn check_calls(e: &Expect, o: &Observed<'_>, failures: &mut Vec<String>) {
    let sqls = sql_calls(o.calls);
    if let Some(re) = &e.sql_matches {
        let texts: Vec<&str> = sqls.iter().filter_map(|(s, _)| s.as_deref()).collect();
        if texts.is_empty() {
            failures.push(format!("sql_matches: no SQL was run (wanted /{re}/)"));
        } else if !texts.iter().any(|s| re.is_match(s)) {
            failures.push(format!(
                "sql_matches: none of {} SQL queries matches /{re}/; the last: {}",
                texts.len(),
                quote(texts[texts.len() - 1])
            ));
        }
    }
    for want in &e.tools {
        let kind = kind_of_name(want);
        let called = o
            .calls
            .iter()
            .any(|c| c.name == *want || kind_of_call(c) == kind);
        if !called {
            let names: Vec<&str> = o.calls.iter().map(|c| c.name.as_str()).collect();
            failures.push(format!(
                "tools: {want} was not called (called: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        }
    }
    if let Some(r) = &e.rows {
        match sqls.iter().rev().find_map(|(_, rows)| *rows) {
            None => failures.push("rows: no SQL result came back".to_owned()),
            Some(n) => {
                if let Some(min) = r.min.filter(|m| n < *m) {
                    failures.push(format!("rows: {n} rows, fewer than {min}"));
                }
                if let Some(max) = r.max.filter(|m| n > *m) {
                    failures.push(format!("rows: {n} rows, more than {max}"));
                }
            }
        }
    }
    if e.no_tool_errors {
        for c in o.calls.iter().filter(|c| c.error.is_some()) {
            failures.push(format!(
                "no_tool_errors: {} failed: {}",
                c.name,
                c.error.as_deref().unwrap_or_default()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::suite::{NumberExpect, RowsExpect};
    use super::*;
    use serde_json::json;

    fn calls() -> Vec<Call> {
        vec![
            Call {
                name: "cubeMeta".into(),
                input: json!({"searchQuery": "revenue"}),
                result: Some(json!({"cubes": []})),
                error: None,
            },
            Call {
                name: "cubeSqlApi".into(),
                input: json!({"sqlQuery": "SELECT MEASURE(revenue) FROM orders"}),
                result: Some(json!({"schema": [], "data": [["1"], ["2"]], "totalRows": 250})),
                error: None,
            },
            Call {
                name: "dataSqlApi".into(),
                input: json!({"query": "SELECT broken"}),
                result: Some(json!({"error": "Error: bad"})),
                error: Some("Error: bad".into()),
            },
        ]
    }

    #[test]
    fn each_kind_passes_and_fails() {
        let calls = calls();
        let o = Observed {
            answer: "Revenue was $3.8M, up 12.5%.",
            calls: &calls,
            seconds: 2.0,
        };
        let pass = Expect {
            answer_matches: Some(regex::Regex::new(r"\$[0-9.]+M").unwrap()),
            answer_contains: vec!["REVENUE".into()],
            answer_excludes: vec!["sorry".into()],
            numbers: vec![NumberExpect {
                value: 3_790_000.0,
                tolerance: 0.01,
            }],
            sql_matches: Some(regex::Regex::new("MEASURE").unwrap()),
            tools: vec!["dataSqlApi".into(), "dataMeta".into()],
            rows: Some(RowsExpect {
                min: Some(100),
                max: Some(300),
            }),
            no_tool_errors: false,
            max_seconds: Some(3.0),
        };
        assert_eq!(check(&pass, &o), Vec::<String>::new());
        let fail = Expect {
            answer_matches: Some(regex::Regex::new("euro").unwrap()),
            answer_contains: vec!["profit".into()],
            answer_excludes: vec!["UP".into()],
            numbers: vec![NumberExpect {
                value: 4e6,
                tolerance: 0.01,
            }],
            sql_matches: Some(regex::Regex::new("COUNT").unwrap()),
            tools: vec!["chartTool".into()],
            rows: Some(RowsExpect {
                min: None,
                max: Some(10),
            }),
            no_tool_errors: true,
            max_seconds: Some(1.0),
        };
        let keys: Vec<String> = check(&fail, &o)
            .iter()
            .map(|f| f.split(':').next().unwrap().to_owned())
            .collect();
        assert_eq!(
            keys,
            [
                "answer_matches",
                "answer_contains",
                "answer_excludes",
                "number",
                "sql_matches",
                "tools",
                "rows",
                "no_tool_errors",
                "max_seconds"
            ]
        );
    }
}
