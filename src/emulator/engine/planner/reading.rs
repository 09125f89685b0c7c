//! Reading a question against one view: the lexicon's phrases, ranks ("top 5"), known values
//! ("in Germany", "except Electronics") and the members the phrases name.

use super::{Condition, Lexicon, QueryPlan, apply};
use crate::emulator::engine::catalog::{Kind, ViewCat};
use crate::emulator::engine::comparisons::{self, Comparison, Phrase, Role};
use crate::emulator::engine::dates::Date;
use crate::emulator::engine::model::DimKind;
use crate::emulator::engine::timeparse::{self, Grain};
use crate::emulator::engine::words::number_word;

/// Words that make the next member a grouping ("by country", "top 5 products", "which category").
const GROUP_CUES: &[&str] = &[
    "by",
    "per",
    "each",
    "every",
    "across",
    "which",
    "what",
    "among",
    "breakdown",
    "split",
];

/// One view's reading of the question, with how many words it recognised.
pub(super) struct Reading {
    pub(super) plan: QueryPlan,
    pub(super) score: usize,
    pub(super) grouped: bool,
    pub(super) all_time: bool,
    pub(super) before: Option<Grain>,
    /// Comparisons with nothing to compare in the question ("and over $200?").
    pub(super) orphans: Vec<Comparison>,
    /// The labels of the periods the question names, in order.
    pub(super) periods: Vec<String>,
    /// A period after a negation ("excluding December"), in the question's words.
    pub(super) negated_period: Option<String>,
    /// The words a period, rank, value, member or comparison took.
    pub(super) used: Vec<bool>,
}

/// Words that negate the value after them: "except Electronics", "not Germany".
pub(super) const NEGATIONS: &[&str] = &[
    "except",
    "excluding",
    "exclude",
    "not",
    "without",
    "besides",
    "outside",
];

/// Words that may stand between "by" and a member without naming anything.
pub(super) const FILLERS: &[&str] = &[
    "the", "a", "an", "our", "their", "its", "each", "all", "total",
];

/// Lexicon phrases in the question, longest first at each position, marking their words used.
fn find_phrases(lex: &Lexicon, t: &[String], used: &mut [bool]) -> Vec<Phrase> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let found = lex.phrases.iter().find(|(p, _)| {
            i + p.len() <= t.len()
                && used[i..i + p.len()].iter().all(|u| !u)
                && t[i..i + p.len()] == p[..]
        });
        let Some((p, _)) = found else {
            i += 1;
            continue;
        };
        let candidates = lex
            .phrases
            .iter()
            .filter(|(q, _)| q == p)
            .map(|(_, m)| *m)
            .collect();
        used[i..i + p.len()].iter_mut().for_each(|u| *u = true);
        out.push(Phrase {
            at: i,
            len: p.len(),
            candidates,
        });
        i += p.len();
    }
    out
}

/// One view's reading of the question: periods, ranks, values, then members by phrase, with
/// the comparisons resolved against the phrases around them.
pub(super) fn read(
    view_idx: usize,
    view: &ViewCat,
    lex: &Lexicon,
    t: &[String],
    cmps: &[Comparison],
    today: Date,
) -> Reading {
    let mut used = vec![false; t.len()];
    // A comparison's words ("at least 5", "over $100") are neither periods, ranks nor values.
    for c in cmps {
        used[c.start..c.end.min(t.len())]
            .iter_mut()
            .for_each(|u| *u = true);
    }
    let untimed = used.clone();
    let tw = timeparse::parse(t, &mut used, today);
    let negated_period = negated_period(t, &untimed, &used);
    let mut plan = QueryPlan {
        view: view_idx,
        grain: tw.grain,
        range: tw.range,
        ..QueryPlan::default()
    };
    let cue_at = ranks(&mut plan, t, &mut used);
    let mut score =
        usize::from(plan.range.is_some() || tw.all_time) + usize::from(plan.grain.is_some());
    score += values(&mut plan, lex, t, &mut used);
    let found = find_phrases(lex, t, &mut used);
    let mut resolved = comparisons::resolve(view, t, &used, &found, cmps);
    score += found.iter().map(|x| x.len).sum::<usize>();
    let mut grouped = members(&mut plan, view, t, &found, &resolved.roles, &cue_at);
    let orphans = std::mem::take(&mut resolved.orphans);
    apply(&mut plan, resolved, &mut grouped, cmps);
    unknown_after_by(&mut plan, t, &used);
    Reading {
        plan,
        score,
        grouped,
        all_time: tw.all_time,
        before: tw.before,
        orphans,
        periods: tw.labels,
        negated_period,
        used,
    }
}

/// Ranking words ("top 5", "lowest", "most") into the plan's order and limit; returns where a
/// grouping cue stands ("by", "which", and the word after a rank), for [`members`].
fn ranks(plan: &mut QueryPlan, t: &[String], used: &mut [bool]) -> Vec<bool> {
    let mut cue_at = vec![false; t.len() + 1];
    for i in 0..t.len() {
        if used[i] {
            continue;
        }
        let (desc, default_n) = match t[i].as_str() {
            "top" | "best" | "highest" | "largest" | "biggest" | "most" => (true, 5),
            "bottom" | "worst" | "lowest" | "smallest" | "least" | "fewest" => (false, 5),
            w if GROUP_CUES.contains(&w) => {
                cue_at[i + 1] = true;
                continue;
            }
            _ => continue,
        };
        plan.descending = Some(desc);
        used[i] = true;
        let n = t.get(i + 1).and_then(|w| number_word(w));
        if n.is_some() {
            used[i + 1] = true;
        }
        // "the 3 worst selling products": the number before the rank word.
        let before = (n.is_none() && i > 0 && !used[i - 1])
            .then(|| number_word(&t[i - 1]))
            .flatten();
        if before.is_some() {
            used[i - 1] = true;
        }
        let n = n.or(before);
        if matches!(t[i].as_str(), "top" | "bottom") || n.is_some() {
            plan.limit = Some(n.unwrap_or(default_n));
        }
        // "the most customers" counts customers (a measure); "top customers" ranks them.
        if !matches!(t[i].as_str(), "most" | "least" | "fewest") || n.is_some() {
            cue_at[i + 1 + usize::from(n.is_some() && before.is_none())] = true;
        }
    }
    // "which 3 countries had the most orders": the number after a question word is how many
    // groups to rank, and the word after it the grouping.
    if plan.descending.is_some() {
        for i in 1..t.len() {
            if used[i] || !matches!(t[i - 1].as_str(), "which" | "what" | "the" | "our" | "list") {
                continue;
            }
            if let Some(n) = number_word(&t[i]).filter(|_| i + 1 < t.len()) {
                plan.limit = Some(n);
                used[i] = true;
                cue_at[i + 1] = true;
                break;
            }
        }
    }
    cue_at
}

/// A period right after a negation ("excluding December", "not in 2024"), with the negation,
/// in the question's words: `untimed` and `timed` are the words taken before and after the time
/// words were read.
fn negated_period(t: &[String], untimed: &[bool], timed: &[bool]) -> Option<String> {
    let is_time = |j: usize| timed[j] && !untimed[j];
    let negation = |j: Option<usize>| j.is_some_and(|j| NEGATIONS.contains(&t[j].as_str()));
    let start = (0..t.len()).find(|&j| {
        is_time(j)
            && (j == 0 || !is_time(j - 1))
            && (negation(j.checked_sub(1))
                || (j >= 1
                    && matches!(t[j - 1].as_str(), "in" | "from" | "for" | "of" | "during")
                    && negation(j.checked_sub(2))))
    })?;
    let from = (0..start).rev().find(|&j| negation(Some(j)))?;
    let end = (start..t.len()).find(|&j| !is_time(j)).unwrap_or(t.len());
    Some(t[from..end].join(" "))
}

/// Known values of string dimensions as filters ("in Germany") or, after a negation, as
/// conditions ("except Electronics"); returns how many words they took. A negation covers a
/// list of values of the same member: "excluding Corporate and Consumer", "other than Books or
/// Toys", "except Books, Toys" (the commas are gone from the words).
fn values(plan: &mut QueryPlan, lex: &Lexicon, t: &[String], used: &mut [bool]) -> usize {
    // Every match first (longest values claim their words first, as the lexicon is ordered),
    // then read in the question's order, so that a list knows what came before it.
    let mut found: Vec<(usize, usize, usize, &String)> = Vec::new();
    for (vw, member, value) in &lex.values {
        let mut i = 0;
        while i + vw.len() <= t.len() {
            if !(used[i..i + vw.len()].iter().all(|u| !u) && t[i..i + vw.len()] == vw[..]) {
                i += 1;
                continue;
            }
            used[i..i + vw.len()].iter_mut().for_each(|u| *u = true);
            found.push((i, vw.len(), *member, value));
            i += vw.len();
        }
    }
    found.sort_by_key(|&(start, ..)| start);
    let mut score = 0;
    // Where the last value ended, its member, and whether it was negated.
    let mut last: Option<(usize, usize, bool)> = None;
    for (i, len, member, value) in found {
        let before = |k: usize| i.checked_sub(k).and_then(|j| t.get(j)).map(String::as_str);
        let continues_list = last.is_some_and(|(end, m, negated)| {
            negated
                && m == member
                && (end == i || (end + 1 == i && matches!(before(1), Some("and" | "or" | "nor"))))
        });
        let negation = |w: Option<&str>| w.is_some_and(|w| NEGATIONS.contains(&w));
        // "except Books", "other than Books", and with a preposition between: "not in Germany",
        // "excluding those from France".
        let negated = continues_list
            || negation(before(1))
            || (before(1) == Some("than") && before(2) == Some("other"))
            || (matches!(before(1), Some("in" | "from" | "for" | "of")) && negation(before(2)));
        if negated {
            let c = Condition::NotEquals(value.clone());
            if !plan.conditions.iter().any(|(m, x)| *m == member && *x == c) {
                plan.conditions.push((member, c));
            }
        } else if !plan.filters.iter().any(|(m, v)| *m == member && v == value) {
            plan.filters.push((member, value.clone()));
        }
        last = Some((i + len, member, negated));
        score += len;
    }
    score
}

/// The members the phrases name, as measures, groupings or the time dimension: a phrase after
/// a grouping cue is a dimension if it can be, else a measure if it can be; comparisons decide
/// their own phrases. Returns whether the plan groups.
fn members(
    plan: &mut QueryPlan,
    view: &ViewCat,
    t: &[String],
    found: &[Phrase],
    roles: &[Role],
    cue_at: &[bool],
) -> bool {
    let mut grouped = plan.grain.is_some();
    // Where a measure named right after a rank ends: "highest revenue customers" ranks
    // customers by revenue.
    let mut ranked_measure_end = None;
    for (x, role) in found.iter().zip(roles) {
        let (i, len) = (x.at, x.len);
        let cue = cue_at[i]
            || ranked_measure_end == Some(i)
            || t.get(i + len)
                .is_some_and(|w| w == "breakdown" || w == "wise");
        let pick = |want_measure: bool| {
            x.candidates
                .iter()
                .copied()
                .find(|&m| view.members[m].is_measure() == want_measure)
        };
        // "top city by amount": after a ranked grouping, "by" names the measure to rank by.
        let rank_by = i > 0
            && t[i - 1] == "by"
            && plan.descending.is_some()
            && !plan.dimensions.is_empty()
            && plan.measures.is_empty();
        let chosen = match role {
            Role::Subject => None,
            Role::Measure(m) | Role::Group(m) => Some(*m),
            Role::Free if cue && !rank_by => pick(false).or_else(|| pick(true)),
            Role::Free => pick(true).or_else(|| pick(false)),
        };
        let Some(m) = chosen else { continue };
        if cue_at[i] && plan.descending.is_some() && view.members[m].is_measure() {
            ranked_measure_end = Some(i + len);
        }
        match view.members[m].kind {
            Kind::Measure(..) if !plan.measures.contains(&m) => plan.measures.push(m),
            Kind::Dimension(DimKind::Time) => {
                plan.time = Some(m);
                if cue && plan.grain.is_none() {
                    plan.grain = Some(Grain::Month);
                    grouped = true;
                }
            }
            // Grouping by a member filtered to one value would show one group; to two or more
            // ("by country for Germany and France"), it compares them.
            Kind::Dimension(_)
                if !plan.dimensions.contains(&m)
                    && plan.filters.iter().filter(|(f, _)| *f == m).count() != 1 =>
            {
                plan.dimensions.push(m);
                grouped = true;
            }
            _ => {}
        }
    }
    grouped
}

/// A word after "by"/"per" that names nothing ("revenue by weather") makes the plan unknown.
fn unknown_after_by(plan: &mut QueryPlan, t: &[String], used: &[bool]) {
    for k in 0..t.len() {
        if !matches!(t[k].as_str(), "by" | "per") {
            continue;
        }
        let next = (k + 1..t.len()).find(|&j| !FILLERS.contains(&t[j].as_str()));
        if let Some(j) = next
            && !used[j]
            && number_word(&t[j]).is_none()
        {
            plan.unknown.push(t[j].clone());
        }
    }
}
