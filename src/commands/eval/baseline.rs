//! `--baseline`: compare this run with an earlier `-o json` result.

use super::run::CaseResult;
use crate::exit::usage;
use anyhow::Result;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// A case as an earlier run reported it.
#[derive(Debug, Deserialize)]
struct Earlier {
    name: String,
    #[serde(default)]
    passed: bool,
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    seconds: Option<f64>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Doc {
    cases: Vec<Earlier>,
}

/// An earlier run.
pub struct Baseline {
    file: String,
    cases: HashMap<String, Earlier>,
}

/// A case is slower when it took more than this many times as long as before...
const SLOWER: f64 = 2.0;
/// ...and at least this many seconds more (below that, timing noise is not a regression).
const SLOWER_FLOOR: f64 = 1.0;
/// Tokens up by more than half.
const MORE_TOKENS: f64 = 1.5;

/// What changed since the baseline.
#[derive(Debug, Default)]
pub struct Findings {
    /// Passed then, fail now.
    pub regressed: Vec<String>,
    /// A different answer.
    pub answer_changed: Vec<String>,
    /// (name, seconds then, seconds now).
    pub slower: Vec<(String, f64, f64)>,
    /// (name, tokens then, tokens now).
    pub more_tokens: Vec<(String, u64, u64)>,
    /// Cases of the baseline this run did not have (renamed, filtered out, interrupted).
    pub missing: Vec<String>,
    file: String,
}

impl Baseline {
    /// Read `path`, an `analyst eval -o json` result.
    pub fn load(path: &Path) -> Result<Baseline> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| usage(format!("--baseline {file}: cannot read: {e}")))?;
        let doc: Doc = serde_json::from_str(&text).map_err(|e| {
            usage(format!(
                "--baseline {file}: not an `analyst eval -o json` result: {e}"
            ))
        })?;
        Ok(Baseline {
            file,
            cases: doc.cases.into_iter().map(|c| (c.name.clone(), c)).collect(),
        })
    }

    /// Compare `results` (in run order) with the baseline.
    pub fn compare(&self, results: &[CaseResult]) -> Findings {
        let mut f = Findings {
            file: self.file.clone(),
            ..Findings::default()
        };
        let mut ran = BTreeSet::new();
        for now in results {
            ran.insert(now.name.as_str());
            let Some(then) = self.cases.get(&now.name) else {
                continue;
            };
            if then.passed && !now.passed() {
                f.regressed.push(now.name.clone());
            }
            if then.answer.is_some() && then.answer != now.answer {
                f.answer_changed.push(now.name.clone());
            }
            if let Some(before) = then.seconds
                && now.seconds > before * SLOWER
                && now.seconds - before >= SLOWER_FLOOR
            {
                f.slower.push((now.name.clone(), before, now.seconds));
            }
            let tokens_then = then
                .usage
                .as_ref()
                .and_then(|u| u.get("totalTokens"))
                .and_then(Value::as_u64);
            if let (Some(before), Some(after)) = (tokens_then, now.tokens())
                && before > 0
                && after as f64 > before as f64 * MORE_TOKENS
            {
                f.more_tokens.push((now.name.clone(), before, after));
            }
        }
        let mut missing: Vec<String> = self
            .cases
            .keys()
            .filter(|k| !ran.contains(k.as_str()))
            .cloned()
            .collect();
        missing.sort();
        f.missing = missing;
        f
    }
}

impl Findings {
    /// Cases that passed in the baseline and fail now. A changed answer, a slower case or more
    /// tokens is reported but is no regression: a case that still meets its expectations passed.
    pub fn regressed_cases(&self) -> usize {
        self.regressed.len()
    }

    /// The stderr lines: `regressed NAME`, `answer changed NAME`, `slower NAME`, `more tokens NAME`.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        out.extend(self.regressed.iter().map(|n| format!("regressed {n}")));
        out.extend(
            self.answer_changed
                .iter()
                .map(|n| format!("answer changed {n}")),
        );
        out.extend(
            self.slower
                .iter()
                .map(|(n, a, b)| format!("slower {n} ({a:.2} s -> {b:.2} s)")),
        );
        out.extend(
            self.more_tokens
                .iter()
                .map(|(n, a, b)| format!("more tokens {n} ({a} -> {b})")),
        );
        out
    }

    /// `baseline: {...}` of the json report.
    pub fn to_json(&self) -> Value {
        json!({
            "file": self.file,
            "regressed": self.regressed,
            "answerChanged": self.answer_changed,
            "slower": self.slower.iter().map(|(n, a, b)| json!({"name": n, "before": a, "now": b})).collect::<Vec<_>>(),
            "moreTokens": self.more_tokens.iter().map(|(n, a, b)| json!({"name": n, "before": a, "now": b})).collect::<Vec<_>>(),
            "missing": self.missing,
        })
    }
}
