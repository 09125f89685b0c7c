//! Helpers shared by the engine tests: a pinned date, one sample engine per test binary, and
//! ways to read what a run produced.

use std::sync::OnceLock;

use analyst::emulator::engine::warehouse::Cell;
use analyst::emulator::engine::{AgentRequest, AgentRun, Engine, TurnMemory};
use serde_json::Value;

/// The emulator's "today" in every test: a Sunday in mid-June.
pub const TODAY: (i32, u32, u32) = (2025, 6, 15);

/// The sample engine, built once per test binary.
pub fn sample() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::sample().expect("sample engine"))
}

/// A request with defaults for everything but the question and history.
pub fn request(question: &str, history: Vec<TurnMemory>) -> AgentRequest {
    AgentRequest {
        question: question.into(),
        history,
        message_id: "1718000000000-message".into(),
        today: TODAY,
        ..Default::default()
    }
}

/// Asks `questions` in one thread and returns the last run.
pub fn ask_thread(engine: &Engine, questions: &[&str], attrs: &[(&str, &str)]) -> AgentRun {
    let mut history = Vec::new();
    let mut last = None;
    for q in questions {
        let mut req = request(q, history.clone());
        req.user_attributes = attrs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let run = engine.run(&req);
        history.push(run.memory.clone());
        last = Some(run);
    }
    last.expect("at least one question")
}

/// The parsed result of the answer's SQL tool call (its last: a grouped answer's total query
/// comes first), if the run made one.
pub fn sql_result(run: &AgentRun) -> Option<Value> {
    run.frames.iter().rev().find_map(|f| {
        let tc = f.get("toolCall")?;
        (tc["name"] == "dataSqlApi").then(|| {
            tc.get("result")?
                .as_str()
                .map(|s| serde_json::from_str(s).expect("result is JSON"))
        })?
    })
}

/// Rows of a hand-written query, as text.
pub fn hand(engine: &Engine, sql: &str) -> Vec<Vec<String>> {
    let r = engine
        .warehouse()
        .query(sql)
        .unwrap_or_else(|e| panic!("hand SQL failed: {e}\n{sql}"));
    r.rows
        .iter()
        .map(|row| row.iter().map(|c| c.text().unwrap_or_default()).collect())
        .collect()
}

/// A single number from a hand-written query.
pub fn hand_number(engine: &Engine, sql: &str) -> f64 {
    let r = engine
        .warehouse()
        .query(sql)
        .unwrap_or_else(|e| panic!("hand SQL failed: {e}\n{sql}"));
    r.rows
        .first()
        .and_then(|row| row.first())
        .and_then(Cell::as_f64)
        .unwrap_or(0.0)
}

fn grouped(int: u64) -> String {
    let s = int.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "$1,234.50", written independently of the engine's formatter.
pub fn money(v: f64) -> String {
    let cents = (v.abs() * 100.0).round() as u64;
    format!(
        "{}${}.{:02}",
        if v < 0.0 { "-" } else { "" },
        grouped(cents / 100),
        cents % 100
    )
}

/// "1,234".
pub fn count(v: f64) -> String {
    grouped(v.round() as u64)
}

/// Asserts that the SQL tool's data equal hand-written rows (numbers within a cent).
pub fn assert_same_rows(got: &Value, want: &[Vec<String>], context: &str) {
    let got: Vec<Vec<String>> = got["data"]
        .as_array()
        .unwrap_or_else(|| panic!("{context}: no data in {got}"))
        .iter()
        .map(|row| {
            row.as_array()
                .expect("row")
                .iter()
                .map(|c| c.as_str().unwrap_or("").to_string())
                .collect()
        })
        .collect();
    assert_eq!(
        got.len(),
        want.len(),
        "{context}: row count\n got {got:?}\nwant {want:?}"
    );
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.len(), w.len(), "{context}: columns of {g:?} vs {w:?}");
        for (a, b) in g.iter().zip(w) {
            match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => assert!(
                    (x - y).abs() < 0.011,
                    "{context}: {x} != {y} in {g:?} vs {w:?}"
                ),
                _ => assert_eq!(a, b, "{context}: {g:?} vs {w:?}"),
            }
        }
    }
}
