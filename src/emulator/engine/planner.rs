//! The deterministic planner: a question (plus the thread's earlier turns) becomes a [`QueryPlan`] of
//! measures, dimensions, time grain and range, filters and ordering, by matching words against
//! the model's titles, names, synonyms and the warehouse's dimension values.

use super::catalog::{Kind, ViewCat};
use super::comparisons::{self, Comparison, Phrase, Resolved, Role};
use super::dates::{Date, Range, parse_iso};
use super::model::DimKind;
use super::request::TurnMemory;
use super::timeparse::{self, Grain};
use super::words::{Vocabulary, number_word, words};

/// A condition of a plan on one member, in the dialect.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// `member = 'value'`.
    Equals(String),
    /// `member <> 'value'` (also keeps NULLs out, as SQL does).
    NotEquals(String),
    /// `member > number` and the like: (operator, number).
    Compare(&'static str, f64),
}

impl Condition {
    /// As kept in a thread's memory: (operator, value).
    pub fn to_memory(&self) -> (String, String) {
        match self {
            Condition::Equals(v) => ("=".into(), v.clone()),
            Condition::NotEquals(v) => ("<>".into(), v.clone()),
            Condition::Compare(op, n) => ((*op).into(), n.to_string()),
        }
    }
    /// Back from a thread's memory.
    pub fn from_memory(op: &str, v: &str) -> Option<Condition> {
        Some(match op {
            "=" => Condition::Equals(v.into()),
            "<>" => Condition::NotEquals(v.into()),
            ">" => Condition::Compare(">", v.parse().ok()?),
            ">=" => Condition::Compare(">=", v.parse().ok()?),
            "<" => Condition::Compare("<", v.parse().ok()?),
            "<=" => Condition::Compare("<=", v.parse().ok()?),
            _ => return None,
        })
    }
}

/// What to query, with member indices into one view's member list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryPlan {
    /// Index of the view in the engine's catalog.
    pub view: usize,
    /// Measures, in the order asked.
    pub measures: Vec<usize>,
    /// Non-time dimensions to group by.
    pub dimensions: Vec<usize>,
    /// The time dimension used for grain and range.
    pub time: Option<usize>,
    /// Time grain to group by.
    pub grain: Option<Grain>,
    /// Date range.
    pub range: Option<Range>,
    /// Equality filters (dimension, value).
    pub filters: Vec<(usize, String)>,
    /// Other conditions: negations ("except Electronics"), numeric comparisons on dimensions
    /// ("orders over $100": the order total).
    pub conditions: Vec<(usize, Condition)>,
    /// Conditions on measures per group, the dialect's `HAVING` ("customers with more than 5
    /// orders"): (measure, [`Condition::Compare`]).
    pub having: Vec<(usize, Condition)>,
    /// Ordering by the first measure: `Some(true)` descending.
    pub descending: Option<bool>,
    /// Row limit for top/bottom-N.
    pub limit: Option<u32>,
    /// Two periods to compare (earlier, later) at a grain: growth and change questions.
    pub compare: Option<(Range, Range, Grain)>,
    /// A comparison ranks by decline ("biggest drop") rather than growth.
    pub decline: bool,
    /// Words after "by"/"per" that name nothing in the model: the question cannot be answered.
    pub unknown: Vec<String>,
    /// Caveats to mention in the answer.
    pub notes: Vec<String>,
}

/// Words that name members and values of one view, longest phrases first.
#[derive(Debug, Default)]
pub struct Lexicon {
    phrases: Vec<(Vec<String>, usize)>,
    values: Vec<(Vec<String>, usize, String)>,
}

impl Lexicon {
    /// Phrases from member names, titles and synonyms, plus known values of string dimensions.
    pub fn new(view: &ViewCat, values: &[(usize, Vec<String>)], vocab: &mut Vocabulary) -> Lexicon {
        let mut lex = Lexicon::default();
        for (i, m) in view.members.iter().enumerate() {
            let mut names = vec![m.title.clone(), m.member.clone(), m.name.clone()];
            names.extend(m.synonyms.iter().cloned());
            for n in names {
                let w = words(&n);
                // A lone filler ("total", the orders' member) names nothing: "total revenue".
                let filler = matches!(w.as_slice(), [x] if FILLERS.contains(&x.as_str()));
                if !w.is_empty() && !filler && !lex.phrases.iter().any(|(p, j)| *p == w && *j == i)
                {
                    vocab.add(&n);
                    lex.phrases.push((w, i));
                }
            }
        }
        for (member, vals) in values {
            for v in vals {
                let w = words(v);
                if !w.is_empty() && w.len() <= 4 {
                    vocab.add(v);
                    lex.values.push((w, *member, v.clone()));
                }
            }
        }
        lex.phrases.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        lex.values
            .sort_by_key(|(p, _, _)| std::cmp::Reverse(p.len()));
        lex
    }
}

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
/// Openers that mark a follow-up question.
const FOLLOW_CUES: &[&str] = &[
    "and",
    "now",
    "same",
    "also",
    "instead",
    "then",
    "only",
    "just",
    "but",
    "ok",
    "okay",
    "what about",
    "how about",
    "what if",
    "same for",
    "compare",
];

/// One view's reading of the question, with how many words it recognised.
struct Reading {
    plan: QueryPlan,
    score: usize,
    grouped: bool,
    all_time: bool,
    before: Option<Grain>,
    /// Comparisons with nothing to compare in the question ("and over $200?").
    orphans: Vec<Comparison>,
}

/// Words that negate the value after them: "except Electronics", "not Germany".
const NEGATIONS: &[&str] = &[
    "except",
    "excluding",
    "exclude",
    "not",
    "without",
    "besides",
];
/// Words that may stand between "by" and a member without naming anything.
const FILLERS: &[&str] = &[
    "the", "a", "an", "our", "their", "its", "each", "all", "total",
];
/// Words of growth and change between two periods.
const GROWTH: &[&str] = &[
    "growth",
    "grew",
    "grow",
    "growing",
    "change",
    "changed",
    "increase",
    "increased",
    "gain",
    "decline",
    "declined",
    "drop",
    "dropped",
    "decrease",
    "decreased",
    "fell",
    "shrank",
    "vs",
    "versus",
    "compared",
    "compare",
];
/// Words that make a comparison rank by decline.
const DECLINE: &[&str] = &[
    "decline",
    "declined",
    "drop",
    "dropped",
    "decrease",
    "decreased",
    "fell",
    "shrank",
    "worst",
];
/// Words that tie a count of people to their purchases rather than to their own dates.
const PURCHASE: &[&str] = &[
    "bought",
    "buy",
    "ordered",
    "purchased",
    "spent",
    "spend",
    "buying",
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
fn read(
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
    let tw = timeparse::parse(t, &mut used, today);
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
        if matches!(t[i].as_str(), "top" | "bottom") || n.is_some() {
            plan.limit = Some(n.unwrap_or(default_n));
        }
        cue_at[i + 1 + usize::from(n.is_some())] = true;
    }
    cue_at
}

/// Known values of string dimensions as filters ("in Germany") or, after a negation, as
/// conditions ("except Electronics"); returns how many words they took.
fn values(plan: &mut QueryPlan, lex: &Lexicon, t: &[String], used: &mut [bool]) -> usize {
    let mut score = 0;
    for (vw, member, value) in &lex.values {
        let mut i = 0;
        while i + vw.len() <= t.len() {
            if !(used[i..i + vw.len()].iter().all(|u| !u) && t[i..i + vw.len()] == vw[..]) {
                i += 1;
                continue;
            }
            used[i..i + vw.len()].iter_mut().for_each(|u| *u = true);
            let before = |k: usize| i.checked_sub(k).and_then(|j| t.get(j)).map(String::as_str);
            let negated = before(1).is_some_and(|w| NEGATIONS.contains(&w))
                || (before(1) == Some("than") && before(2) == Some("other"));
            if negated {
                let c = Condition::NotEquals(value.clone());
                if !plan.conditions.iter().any(|(m, x)| m == member && *x == c) {
                    plan.conditions.push((*member, c));
                }
            } else if !plan.filters.iter().any(|(m, v)| m == member && v == value) {
                plan.filters.push((*member, value.clone()));
            }
            score += vw.len();
            i += vw.len();
        }
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
    for (x, role) in found.iter().zip(roles) {
        let (i, len) = (x.at, x.len);
        let cue = cue_at[i]
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
        match view.members[m].kind {
            Kind::Measure(..) if !plan.measures.contains(&m) => plan.measures.push(m),
            Kind::Dimension(DimKind::Time) => {
                plan.time = Some(m);
                if cue && plan.grain.is_none() {
                    plan.grain = Some(Grain::Month);
                    grouped = true;
                }
            }
            Kind::Dimension(_)
                if !plan.dimensions.contains(&m) && !plan.filters.iter().any(|(f, _)| *f == m) =>
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

/// Resolved comparisons into the plan: row filters as conditions, thresholds as `having` (which
/// needs groups: without one, the comparison is unknown), the subject's count when no measure
/// was asked.
fn apply(plan: &mut QueryPlan, r: Resolved, grouped: &mut bool, cmps: &[Comparison]) {
    for (d, op, v) in r.wheres {
        plan.conditions.push((d, Condition::Compare(op, v)));
    }
    if plan.measures.is_empty() {
        plan.measures.extend(r.subject_measure);
    }
    if !r.having.is_empty() {
        if plan.dimensions.is_empty() {
            // A threshold per what? "revenue over $10,000" alone names no group.
            plan.unknown.extend(
                cmps.iter()
                    .filter(|c| !r.unknown.contains(&c.text))
                    .map(|c| c.text.clone())
                    .take(1),
            );
        } else {
            *grouped = true;
        }
        for (m, op, v) in r.having {
            if !plan.measures.contains(&m) {
                plan.measures.push(m);
            }
            plan.having.push((m, Condition::Compare(op, v)));
        }
    }
    plan.unknown.extend(r.unknown);
    plan.notes.extend(r.notes);
}

/// Plans a question; `None` when nothing in it maps to the model.
pub fn plan(
    question: &str,
    history: &[TurnMemory],
    views: &[ViewCat],
    lexicons: &[Lexicon],
    vocab: &Vocabulary,
    today: Date,
) -> Option<QueryPlan> {
    let t: Vec<String> = words(question).iter().map(|w| vocab.correct(w)).collect();
    let cmps = comparisons::find(question);
    let prev = history.last().and_then(|m| from_memory(m, views));
    let readings = views
        .iter()
        .zip(lexicons)
        .enumerate()
        .map(|(i, (v, l))| read(i, v, l, &t, &cmps, today));
    // A follow-up stays in the previous turn's view; otherwise the view that recognises most words.
    let best = readings.max_by_key(|r| {
        (
            r.score + usize::from(prev.as_ref().is_some_and(|p| p.view == r.plan.view)),
            std::cmp::Reverse(r.plan.view),
        )
    })?;
    let Reading {
        plan: mut new,
        score,
        grouped,
        all_time,
        before,
        orphans,
    } = best;
    // "And the quarter before?": the period before the thread's previous range.
    if let (Some(g), Some(p)) = (before, prev.as_ref().and_then(|p| p.range.as_ref())) {
        new.range = Some(timeparse::period_before(p.start, g));
    }
    // "And over $200?": new bounds for the previous turn's numeric condition.
    let rebound = match prev.as_ref().filter(|p| p.view == new.view) {
        Some(p) => rebind(p, &mut new, &orphans),
        None => false,
    };
    if score == 0 && new.descending.is_none() && !rebound {
        return None;
    }
    let opener = t.iter().take(2).cloned().collect::<Vec<_>>().join(" ");
    let cue = FOLLOW_CUES
        .iter()
        .any(|c| opener == *c || t.first().is_some_and(|w| w == c));
    let mut plan = match prev {
        Some(p) if p.view == new.view && (cue || new.measures.is_empty()) => {
            merge(p, new, grouped, all_time)
        }
        _ => {
            if new.measures.is_empty() && (grouped || new.descending.is_some()) {
                let view = &views[new.view];
                new.measures
                    .extend(view.members.iter().position(|m| m.is_measure()));
            }
            new
        }
    };
    if plan.measures.is_empty() {
        return None;
    }
    if asks_one_row(question) && plan.limit == Some(5) {
        plan.limit = Some(1);
    }
    compare(&mut plan, &t);
    let view = &views[plan.view];
    time_dimension(&mut plan, view, &t);
    Some(plan)
}

/// "top city" (a singular noun, no number) asks for one row; "top cities" for five.
fn asks_one_row(question: &str) -> bool {
    let raw: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    raw.windows(2).any(|w| {
        matches!(w[0].as_str(), "top" | "bottom")
            && number_word(&w[1]).is_none()
            && !w[1].ends_with('s')
            && w[1] != "the"
    })
}

/// The time dimension a period, grain or comparison needs, when no phrase named one: the
/// measure's own (see [`own_time`]), else the view's first; without any, they are dropped
/// with a note.
fn time_dimension(plan: &mut QueryPlan, view: &ViewCat, t: &[String]) {
    if plan.time.is_some()
        || !(plan.grain.is_some() || plan.range.is_some() || plan.compare.is_some())
    {
        return;
    }
    plan.time = own_time(plan, view, t).or_else(|| view.members.iter().position(|m| m.is_time()));
    if plan.time.is_none() {
        plan.notes.push(
            "the model has no time dimension, so I could not restrict or group by time".into(),
        );
        plan.grain = None;
        plan.range = None;
        plan.compare = None;
    }
}

/// The time dimension of the first measure's own cube ("customers signed up last month" counts
/// signups), unless the question ties the measure to another cube: a filter or grouping on
/// another cube, or a purchase verb ("customers who bought books") keeps the view's first one.
fn own_time(plan: &QueryPlan, view: &ViewCat, t: &[String]) -> Option<usize> {
    let cube = &view.members[*plan.measures.first()?].cube;
    let other = plan
        .dimensions
        .iter()
        .chain(plan.filters.iter().map(|(m, _)| m))
        .chain(plan.conditions.iter().map(|(m, _)| m))
        .chain(plan.having.iter().map(|(m, _)| m))
        .any(|m| view.members[*m].cube != *cube);
    if other || t.iter().any(|w| PURCHASE.contains(&w.as_str())) {
        return None;
    }
    view.members
        .iter()
        .position(|m| m.is_time() && m.cube == *cube)
}

/// Growth and change: two whole periods of one grain, named ("from 2024 to 2025", "Q1 2025 vs
/// Q1 2024"), or one named period and the one before it ("revenue growth last year").
fn compare(plan: &mut QueryPlan, t: &[String]) {
    if !t.iter().any(|w| GROWTH.contains(&w.as_str())) {
        return;
    }
    let named = timeparse::explicit_periods(t);
    let pair = match (named.as_slice(), &plan.range) {
        ([a, b, ..], _) => Some((a.clone(), b.clone())),
        (_, Some(r)) => timeparse::whole_period(r.start, r.end)
            .map(|g| (timeparse::period_before(r.start, g), r.clone())),
        _ => None,
    };
    let Some((mut a, mut b)) = pair else {
        plan.notes
            .push("name two periods to compare, e.g. \"from 2024 to 2025\"".into());
        return;
    };
    if b.start < a.start {
        std::mem::swap(&mut a, &mut b);
    }
    let (ga, gb) = (
        timeparse::whole_period(a.start, a.end),
        timeparse::whole_period(b.start, b.end),
    );
    match (ga, gb) {
        (Some(g), Some(h)) if g == h && a.end <= b.start => {
            plan.compare = Some((a, b, g));
            plan.range = None;
            plan.grain = None;
            plan.limit = None;
            plan.decline = t.iter().any(|w| DECLINE.contains(&w.as_str()));
        }
        _ => plan.notes.push(
            "I can compare two whole years, quarters or months of the same kind; these periods are not".into(),
        ),
    }
}

/// A follow-up's bare comparisons ("and over $200?") as new bounds on the member of the
/// previous turn's last numeric condition (or threshold); whether there was one.
fn rebind(prev: &QueryPlan, new: &mut QueryPlan, orphans: &[Comparison]) -> bool {
    let last = |list: &[(usize, Condition)]| {
        list.iter()
            .rev()
            .find(|(_, c)| matches!(c, Condition::Compare(..)))
            .map(|(m, _)| *m)
    };
    let target = match (last(&prev.having), last(&prev.conditions)) {
        (Some(m), _) => (m, true),
        (None, Some(d)) => (d, false),
        (None, None) => return false,
    };
    if orphans.is_empty() {
        return false;
    }
    for c in orphans {
        new.unknown.retain(|u| *u != c.text);
        let list = if target.1 {
            &mut new.having
        } else {
            &mut new.conditions
        };
        list.extend(
            c.bounds
                .iter()
                .map(|(op, v)| (target.0, Condition::Compare(op, *v))),
        );
    }
    true
}

/// A follow-up: what the new question names replaces the previous turn's parts; the rest stays.
fn merge(mut prev: QueryPlan, new: QueryPlan, grouped: bool, all_time: bool) -> QueryPlan {
    if !new.measures.is_empty() {
        prev.measures = new.measures;
    }
    if grouped {
        prev.dimensions = new.dimensions;
        prev.grain = new.grain;
        prev.time = new.time.or(prev.time);
    }
    if new.range.is_some() || all_time {
        prev.range = new.range;
    }
    for (m, v) in new.filters {
        prev.filters.retain(|(f, _)| *f != m);
        prev.conditions.retain(|(f, _)| *f != m);
        prev.filters.push((m, v));
    }
    // A new numeric condition on a member replaces the old ones on it ("and over $200?").
    let compared: Vec<usize> = new
        .conditions
        .iter()
        .filter(|(_, c)| matches!(c, Condition::Compare(..)))
        .map(|(m, _)| *m)
        .collect();
    prev.conditions
        .retain(|(f, c)| !(compared.contains(f) && matches!(c, Condition::Compare(..))));
    for (m, c) in new.conditions {
        prev.filters.retain(|(f, _)| *f != m);
        prev.conditions.push((m, c));
    }
    if !new.having.is_empty() {
        prev.having = new.having;
    }
    prev.notes = new.notes;
    prev.unknown = new.unknown;
    if new.descending.is_some() {
        prev.descending = new.descending;
        prev.limit = new.limit;
    }
    prev
}

/// What a turn's plan looks like in the thread's history.
pub fn to_memory(plan: &QueryPlan, views: &[ViewCat]) -> TurnMemory {
    let view = &views[plan.view];
    let name = |m: &usize| view.members[*m].name.clone();
    TurnMemory {
        view: view.name.clone(),
        measures: plan.measures.iter().map(name).collect(),
        dimensions: plan.dimensions.iter().map(name).collect(),
        grain: plan.grain.map(|g| g.as_str().to_string()),
        range: plan
            .range
            .as_ref()
            .map(|r| (r.start.to_string(), r.end.to_string(), r.label.clone())),
        filters: plan
            .filters
            .iter()
            .map(|(m, v)| (name(m), v.clone()))
            .collect(),
        descending: plan.descending,
        limit: plan.limit,
        time: plan.time.map(|t| name(&t)),
        conditions: plan
            .conditions
            .iter()
            .map(|(m, c)| {
                let (op, v) = c.to_memory();
                (name(m), op, v)
            })
            .collect(),
        having: plan
            .having
            .iter()
            .map(|(m, c)| {
                let (op, v) = c.to_memory();
                (name(m), op, v)
            })
            .collect(),
    }
}

/// A remembered turn back as a plan; members the view no longer has are dropped.
pub fn from_memory(m: &TurnMemory, views: &[ViewCat]) -> Option<QueryPlan> {
    let vi = views.iter().position(|v| v.name == m.view)?;
    let view = &views[vi];
    let idx = |n: &String| view.members.iter().position(|x| &x.name == n);
    Some(QueryPlan {
        view: vi,
        measures: m.measures.iter().filter_map(idx).collect(),
        dimensions: m.dimensions.iter().filter_map(idx).collect(),
        time: m.time.as_ref().and_then(idx),
        grain: m.grain.as_deref().and_then(Grain::parse),
        range: m.range.as_ref().and_then(|(s, e, l)| {
            Some(Range {
                start: parse_iso(s)?,
                end: parse_iso(e)?,
                label: l.clone(),
            })
        }),
        filters: m
            .filters
            .iter()
            .filter_map(|(n, v)| Some((idx(n)?, v.clone())))
            .collect(),
        descending: m.descending,
        limit: m.limit,
        conditions: m
            .conditions
            .iter()
            .filter_map(|(n, op, v)| Some((idx(n)?, Condition::from_memory(op, v)?)))
            .collect(),
        having: m
            .having
            .iter()
            .filter_map(|(n, op, v)| Some((idx(n)?, Condition::from_memory(op, v)?)))
            .collect(),
        compare: None,
        decline: false,
        unknown: Vec::new(),
        notes: Vec::new(),
    })
}
