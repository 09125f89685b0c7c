//! A suite file: YAML with `defaults` and `cases`, checked whole before any question is sent.
//! Every key is read by hand (not by a derive) so that each error names the file, the case and
//! the key the user has to fix.

use crate::exit::usage;
use crate::protocol::SessionSettings;
use crate::protocol::chat::check_external_id;
use anyhow::Result;
use regex::Regex;
use serde::de::DeserializeOwned;
use serde_norway::{Mapping, Value};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// One case: a question, follow-ups in the same thread, and expectations on the last answer.
#[derive(Clone, Debug)]
pub struct Case {
    /// Unique across the run; `[A-Za-z0-9._-]`.
    pub name: String,
    /// The suite file it comes from, as given on the command line.
    pub suite: String,
    /// The first message.
    pub question: String,
    /// Follow-up messages, same thread.
    pub then: Vec<String>,
    /// The whole identity of the case (its own, else the suite's default).
    pub session: Option<SessionSettings>,
    /// Longest time per turn, from send to final answer.
    pub timeout: Option<Duration>,
    /// What the last answer must satisfy.
    pub expect: Expect,
}

impl Case {
    /// Every message of the case, in order.
    pub fn turns(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.question.as_str()).chain(self.then.iter().map(String::as_str))
    }
}

/// Expectations on a case's last turn.
#[derive(Clone, Debug, Default)]
pub struct Expect {
    /// A regex the answer matches.
    pub answer_matches: Option<Regex>,
    /// Substrings the answer contains (case-insensitive).
    pub answer_contains: Vec<String>,
    /// Substrings the answer does not contain (case-insensitive).
    pub answer_excludes: Vec<String>,
    /// Numbers the answer cites, each within its relative tolerance.
    pub numbers: Vec<NumberExpect>,
    /// A regex some SQL the agent ran matches.
    pub sql_matches: Option<Regex>,
    /// Tools that must have been called (any name variant).
    pub tools: Vec<String>,
    /// Bounds on the rows of the last SQL result.
    pub rows: Option<RowsExpect>,
    /// No tool call may have failed.
    pub no_tool_errors: bool,
    /// The case's longest duration, in seconds.
    pub max_seconds: Option<f64>,
}

/// `number: {value, tolerance}` (or a bare number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumberExpect {
    /// The expected value.
    pub value: f64,
    /// Relative tolerance, e.g. 0.005 for half a percent.
    pub tolerance: f64,
}

/// `rows: {min, max}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowsExpect {
    /// At least this many rows.
    pub min: Option<u64>,
    /// At most this many rows.
    pub max: Option<u64>,
}

const TOP_KEYS: &[&str] = &["defaults", "cases"];
const DEFAULT_KEYS: &[&str] = &["session", "timeout"];
const CASE_KEYS: &[&str] = &["name", "question", "then", "session", "timeout", "expect"];
const EXPECT_KEYS: &[&str] = &[
    "answer_matches",
    "answer_contains",
    "answer_excludes",
    "number",
    "sql_matches",
    "tools",
    "rows",
    "no_tool_errors",
    "max_seconds",
];

/// Read and check suite files; case names must be unique across all of them.
pub fn load(paths: &[std::path::PathBuf]) -> Result<Vec<Case>> {
    let mut cases: Vec<Case> = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| usage(format!("{}: cannot read: {e}", path.display())))?;
        for case in parse(path, &text)? {
            if let Some(first) = seen.get(&case.name) {
                let place = if *first == case.suite {
                    "earlier in this file".to_owned()
                } else {
                    format!("in {first}")
                };
                return Err(usage(format!(
                    "{}: case {}: name: duplicate (also {place}); case names are unique across a run",
                    case.suite, case.name
                )));
            }
            seen.insert(case.name.clone(), case.suite.clone());
            cases.push(case);
        }
    }
    Ok(cases)
}

/// Parse one suite's text; `path` names it in errors.
pub fn parse(path: &Path, text: &str) -> Result<Vec<Case>> {
    let file = path.display().to_string();
    let doc: Value = serde_norway::from_str(text)
        .map_err(|e| usage(format!("{file}: not a YAML suite: {e}")))?;
    let top = mapping(&doc, &file, "the suite")?;
    check_keys(top, TOP_KEYS, &file, "top level")?;
    let mut defaults = (None, None);
    if let Some(d) = top.get("defaults") {
        let where_ = format!("{file}: defaults");
        let d = mapping(d, &where_, "defaults")?;
        check_keys(d, DEFAULT_KEYS, &where_, "defaults")?;
        defaults = (session(d, &where_)?, timeout(d, &where_)?);
    }
    let Some(list) = top.get("cases") else {
        return Err(usage(format!("{file}: cases: missing (a list of cases)")));
    };
    let Value::Sequence(list) = list else {
        return Err(usage(format!("{file}: cases: must be a list of cases")));
    };
    if list.is_empty() {
        return Err(usage(format!("{file}: cases: the list is empty")));
    }
    list.iter()
        .enumerate()
        .map(|(i, v)| case(v, i, &file, &defaults))
        .collect()
}

fn case(
    v: &Value,
    index: usize,
    file: &str,
    defaults: &(Option<SessionSettings>, Option<Duration>),
) -> Result<Case> {
    let unnamed = format!("{file}: case #{}", index + 1);
    let m = mapping(v, &unnamed, "a case")?;
    let name: String =
        field(m, "name", &unnamed)?.ok_or_else(|| usage(format!("{unnamed}: name: missing")))?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err(usage(format!(
            "{unnamed}: name: {name:?} may use only letters, digits, '.', '_' and '-'"
        )));
    }
    let at = format!("{file}: case {name}");
    check_keys(m, CASE_KEYS, &at, "a case")?;
    let question: String =
        field(m, "question", &at)?.ok_or_else(|| usage(format!("{at}: question: missing")))?;
    if question.trim().is_empty() {
        return Err(usage(format!("{at}: question: empty")));
    }
    let then: Vec<String> = strings(m, "then", &at)?;
    if let Some(i) = then.iter().position(|t| t.trim().is_empty()) {
        return Err(usage(format!("{at}: then: follow-up #{} is empty", i + 1)));
    }
    let expect = match m.get("expect") {
        None => Expect::default(),
        Some(e) => expect(e, &format!("{at}: expect"))?,
    };
    Ok(Case {
        name,
        suite: file.to_owned(),
        question,
        then,
        session: session(m, &at)?.or_else(|| defaults.0.clone()),
        timeout: timeout(m, &at)?.or(defaults.1),
        expect,
    })
}

fn expect(v: &Value, at: &str) -> Result<Expect> {
    let m = mapping(v, at, "expectations")?;
    check_keys(m, EXPECT_KEYS, at, "expect")?;
    let numbers = match m.get("number") {
        None => Vec::new(),
        Some(Value::Sequence(items)) => {
            items.iter().map(|v| number(v, at)).collect::<Result<_>>()?
        }
        Some(v) => vec![number(v, at)?],
    };
    let rows = match m.get("rows") {
        None => None,
        Some(v) => {
            let where_ = format!("{at}.rows");
            let r = mapping(v, &where_, "{min, max}")?;
            check_keys(r, &["min", "max"], &where_, "rows")?;
            let rows = RowsExpect {
                min: field(r, "min", &where_)?,
                max: field(r, "max", &where_)?,
            };
            if let (Some(lo), Some(hi)) = (rows.min, rows.max)
                && lo > hi
            {
                return Err(usage(format!("{where_}: min {lo} is above max {hi}")));
            }
            Some(rows)
        }
    };
    let max_seconds: Option<f64> = field(m, "max_seconds", at)?;
    if max_seconds.is_some_and(|s| s.is_nan() || s <= 0.0) {
        return Err(usage(format!("{at}.max_seconds: must be above 0")));
    }
    Ok(Expect {
        answer_matches: regex(m, "answer_matches", at)?,
        answer_contains: strings(m, "answer_contains", at)?,
        answer_excludes: strings(m, "answer_excludes", at)?,
        numbers,
        sql_matches: regex(m, "sql_matches", at)?,
        tools: strings(m, "tools", at)?,
        rows,
        no_tool_errors: field(m, "no_tool_errors", at)?.unwrap_or(false),
        max_seconds,
    })
}

/// `number: 42`, `number: {value: 42, tolerance: 0.01}`, or a list of those.
fn number(v: &Value, at: &str) -> Result<NumberExpect> {
    let where_ = format!("{at}.number");
    let n = match v {
        Value::Number(_) => NumberExpect {
            value: de(v, &where_)?,
            tolerance: 0.0,
        },
        Value::Mapping(m) => {
            check_keys(m, &["value", "tolerance"], &where_, "number")?;
            NumberExpect {
                value: field(m, "value", &where_)?
                    .ok_or_else(|| usage(format!("{where_}.value: missing")))?,
                tolerance: field(m, "tolerance", &where_)?.unwrap_or(0.0),
            }
        }
        _ => {
            return Err(usage(format!(
                "{where_}: must be a number or {{value, tolerance}}"
            )));
        }
    };
    if !n.value.is_finite() || !n.tolerance.is_finite() || n.tolerance < 0.0 {
        return Err(usage(format!(
            "{where_}: value must be finite and tolerance at least 0"
        )));
    }
    Ok(n)
}

fn mapping<'a>(v: &'a Value, at: &str, what: &str) -> Result<&'a Mapping> {
    match v {
        Value::Mapping(m) => Ok(m),
        _ => Err(usage(format!("{at}: must be a mapping ({what})"))),
    }
}

fn check_keys(m: &Mapping, known: &[&str], at: &str, what: &str) -> Result<()> {
    for k in m.keys() {
        let name = match k {
            Value::String(s) => s.clone(),
            other => serde_norway::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        if !known.contains(&name.as_str()) {
            return Err(usage(format!(
                "{at}: {name}: unknown key in {what} (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn de<T: DeserializeOwned>(v: &Value, at: &str) -> Result<T> {
    serde_norway::from_value(v.clone()).map_err(|e| usage(format!("{at}: {e}")))
}

fn field<T: DeserializeOwned>(m: &Mapping, key: &str, at: &str) -> Result<Option<T>> {
    m.get(key)
        .map(|v| de(v, &format!("{at}: {key}")))
        .transpose()
}

/// A list of strings, or one string.
fn strings(m: &Mapping, key: &str, at: &str) -> Result<Vec<String>> {
    match m.get(key) {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(v) => de(v, &format!("{at}: {key}")),
    }
}

fn regex(m: &Mapping, key: &str, at: &str) -> Result<Option<Regex>> {
    let Some(text) = field::<String>(m, key, at)? else {
        return Ok(None);
    };
    Regex::new(&text)
        .map(Some)
        .map_err(|e| usage(format!("{at}: {key}: bad regex: {e}")))
}

fn timeout(m: &Mapping, at: &str) -> Result<Option<Duration>> {
    let Some(text) = field::<Value>(m, "timeout", at)? else {
        return Ok(None);
    };
    let text = match text {
        Value::Number(n) => format!("{n}s"),
        Value::String(s) => s,
        _ => return Err(usage(format!("{at}: timeout: a duration such as 2m"))),
    };
    match crate::duration::parse_duration(&text) {
        Ok(d) if !d.is_zero() => Ok(Some(d)),
        Ok(_) => Err(usage(format!("{at}: timeout: must be above 0"))),
        Err(e) => Err(usage(format!("{at}: timeout: {text:?}: {e}"))),
    }
}

/// A case's `session`: a whole sessionSettings, held to the identity rules of `chat`.
fn session(m: &Mapping, at: &str) -> Result<Option<SessionSettings>> {
    let Some(v) = m.get("session") else {
        return Ok(None);
    };
    let at = format!("{at}: session");
    let s: SessionSettings = de(v, &at)?;
    match (&s.external_id, &s.internal_id) {
        (Some(_), Some(_)) => {
            return Err(usage(format!(
                "{at}: give externalId or internalId, not both"
            )));
        }
        (None, None) => return Err(usage(format!("{at}: needs externalId or internalId"))),
        (Some(id), None) => {
            check_external_id(id).map_err(|e| usage(format!("{at}: externalId: {e}")))?
        }
        (None, Some(_)) => {
            let extra = [
                ("userAttributes", s.user_attributes.is_some()),
                ("groups", s.groups.is_some()),
                ("roles", s.roles.is_some()),
                ("securityContext", s.security_context.is_some()),
            ];
            if let Some((key, _)) = extra.iter().find(|(_, given)| *given) {
                return Err(usage(format!("{at}: {key}: not allowed with internalId")));
            }
        }
    }
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        format!("{:#}", parse(Path::new("s.yaml"), text).unwrap_err())
    }

    #[test]
    fn a_full_case_parses() {
        let cases = parse(
            Path::new("s.yaml"),
            r#"
defaults: {session: {externalId: ci-bot}, timeout: 2m}
cases:
  - name: rev
    question: Total revenue in 2025
    then: ["And 2024?"]
    expect:
      answer_matches: '\$[0-9,.]+'
      answer_contains: revenue
      number: {value: 3809438.61, tolerance: 0.005}
      rows: {min: 1}
      tools: [dataSqlApi]
      no_tool_errors: true
      max_seconds: 30
"#,
        )
        .unwrap();
        let c = &cases[0];
        assert_eq!(
            c.turns().collect::<Vec<_>>(),
            ["Total revenue in 2025", "And 2024?"]
        );
        assert_eq!(
            c.session.as_ref().unwrap().external_id.as_deref(),
            Some("ci-bot")
        );
        assert_eq!(c.timeout, Some(Duration::from_secs(120)));
        assert_eq!(c.expect.answer_contains, ["revenue"]);
        assert_eq!(c.expect.numbers[0].tolerance, 0.005);
        assert_eq!(
            c.expect.rows,
            Some(RowsExpect {
                min: Some(1),
                max: None
            })
        );
    }

    #[test]
    fn errors_name_file_case_and_key() {
        let e = err("cases:\n  - name: a\n    question: q\n    expect: {answer_contain: x}\n");
        assert!(
            e.contains("s.yaml: case a: expect: answer_contain: unknown key"),
            "{e}"
        );
        let e = err("cases:\n  - name: a\n    question: q\n    expect: {sql_matches: '('}\n");
        assert!(
            e.contains("s.yaml: case a: expect: sql_matches: bad regex"),
            "{e}"
        );
        let e = err("cases:\n  - name: a\n");
        assert!(e.contains("s.yaml: case a: question: missing"), "{e}");
        let e = err("cases:\n  - question: q\n");
        assert!(e.contains("s.yaml: case #1: name: missing"), "{e}");
        let e = err("cases:\n  - {name: 'a b', question: q}\n");
        assert!(e.contains("name: \"a b\""), "{e}");
        let e = err("cases:\n  - {name: a, question: q, session: {externalId: Bot}}\n");
        assert!(e.contains("case a: session: externalId"), "{e}");
        let e = err("cases:\n  - {name: a, question: q, expect: {number: {value: x}}}\n");
        assert!(e.contains("case a: expect.number: value"), "{e}");
        let e = err("case: []\n");
        assert!(e.contains("s.yaml: case: unknown key"), "{e}");
    }
}
