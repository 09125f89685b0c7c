//! The deterministic planner: a question (plus the thread's earlier turns) becomes a [`QueryPlan`] of
//! measures, dimensions, time grain and range, filters and ordering, by matching words against
//! the model's titles, names, synonyms and the warehouse's dimension values.

use super::catalog::{Kind, ViewCat};
use super::comparisons::{self, Comparison, Resolved};
use super::dates::{Date, Range};
use super::model::MeasureKind;
use super::request::TurnMemory;
use super::timeparse::{self, Grain};
use super::words::{Vocabulary, number_word, words};

mod aliases;
mod coverage;
mod follow_up;
mod reading;
mod unresolved;

pub use follow_up::{from_memory, to_memory};
use follow_up::{merge, rebind};
use reading::{FILLERS, Reading, read};

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
    /// A comparison ranks by the rate of change ("grew fastest") rather than the amount.
    pub by_rate: bool,
    /// Words after "by"/"per" that name nothing in the model: the question cannot be answered.
    pub unknown: Vec<String>,
    /// Periods the plan cannot honour, in words (a period left out; several periods outside a
    /// comparison): the question is refused, naming them, never answered for one of them.
    pub unread_periods: Vec<String>,
    /// Parts of the question understood but not applied (a rank with nothing to rank, a
    /// comparison with nothing to compare), each with what can be asked instead: the question is
    /// refused, naming them.
    pub unapplied: Vec<String>,
    /// Caveats to mention in the answer.
    pub notes: Vec<String>,
    /// A share of a whole ("what share of revenue came from Electronics"): the filters that
    /// make the part. The plan with all its filters is the part; without these, the whole.
    pub share_part: Vec<(usize, String)>,
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
            // "mean order value" and "avg order value" say "average order value".
            let averaged: Vec<String> = names
                .iter()
                .filter_map(|n| {
                    let l = n.to_lowercase();
                    let rest = ["average ", "avg ", "mean "]
                        .iter()
                        .find_map(|a| l.strip_prefix(a))?
                        .to_string();
                    Some(["average", "avg", "mean"].map(|a| format!("{a} {rest}")))
                })
                .flatten()
                .collect();
            names.extend(averaged);
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
        aliases::add_values(&mut lex);
        lex.phrases.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        lex.values
            .sort_by_key(|(p, _, _)| std::cmp::Reverse(p.len()));
        lex
    }
}

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
/// Words that make a comparison rank by the rate of change: "grew fastest", "growth rate".
const RATE: &[&str] = &[
    "fastest",
    "faster",
    "fast",
    "quickest",
    "quickly",
    "rate",
    "percent",
    "percentage",
    "relative",
];
/// Statistics no measure computes: "median order value" was answered with the order count.
const STATISTICS: &[&str] = &[
    "median",
    "percentile",
    "quartile",
    "mode",
    "variance",
    "deviation",
    "stddev",
];
/// Words asking for a share of a whole ("percentage of orders returned"): without a grouping
/// or a comparison, the answer would be the filtered amount, not its share.
const SHARES: &[&str] = &[
    "portion",
    "percentage",
    "percent",
    "proportion",
    "fraction",
    "ratio",
    "share",
    "rate",
];

/// Words that tie a count of people to their purchases rather than to their own dates.
const PURCHASE: &[&str] = &[
    "bought",
    "buy",
    "ordered",
    "purchased",
    "purchase",
    "spent",
    "spend",
    "buying",
    "placed",
    "place",
    "active",
    "shopped",
];

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
    // The words as written, and as the spelling correction reads them (one for one).
    let raw = words(question);
    let mut t: Vec<String> = raw.iter().map(|w| vocab.correct(w)).collect();
    aliases::rewrite(&mut t, &unresolved::as_written(question));
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
        periods,
        negated_period,
        used,
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
            // "signups by month", "when did customers join": a row's own date named with no
            // measure counts those rows (the count of the date's cube), never the view's first
            // measure.
            if new.measures.is_empty()
                && let Some(count) = new.time.and_then(|t| event_count(&views[new.view], t))
            {
                new.measures.push(count);
            }
            let v = new.view;
            spend(&mut new, &views[v], &t);
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
    compare(&mut plan, &t, periods.len());
    rank_periods(&mut plan, &t, &used);
    if let Some(p) = negated_period {
        plan.unread_periods
            .push(format!("a period left out (\"{p}\")"));
    } else if plan.compare.is_none() && periods.len() > 1 {
        plan.unread_periods
            .push(format!("more than one period ({})", periods.join(", ")));
    }
    let (view, lex) = (&views[plan.view], &lexicons[plan.view]);
    share_of_filter(&mut plan, &t, lex);
    time_dimension(&mut plan, view, &t);
    unread_words(&mut plan, question, &raw, &t, &used, lex, view);
    Some(plan)
}

/// What the plan could not read, for the answer to say: the unknown words as the question
/// wrote them, what the view cannot answer, and names nothing in the model took. `raw` are the
/// words as written, `t` as the spelling correction read them (one for one), `used` the words
/// a reading took.
fn unread_words(
    plan: &mut QueryPlan,
    question: &str,
    raw: &[String],
    t: &[String],
    used: &[bool],
    lex: &Lexicon,
    view: &ViewCat,
) {
    // An unknown word is said as the question wrote it, not as the spelling correction read it
    // ("nothing called \"weather\"", not "\"leather\"").
    for u in &mut plan.unknown {
        if let Some(j) = t.iter().position(|w| w == u)
            && let Some(r) = raw.get(j)
        {
            u.clone_from(r);
        }
    }
    let written = unresolved::as_written(question);
    unanswerable(plan, lex, view, t, &written);
    // Words the general guard (`coverage`) judges in context ("new customers").
    let known = |w: &str| {
        [
            PURCHASE,
            GROWTH,
            DECLINE,
            RATE,
            STATISTICS,
            SHARES,
            &["new"],
        ]
        .iter()
        .any(|list| list.contains(&w))
    };
    for name in unresolved::names(question, t, used, &known) {
        if !plan.unknown.contains(&name) {
            plan.unknown.push(name);
        }
    }
    // The general guard: every other meaningful word must be accounted for by the plan.
    let found = coverage::check(plan, t, &written, used, lex, view);
    for name in found.unknown {
        // Already named, whole words within whole words ("Acme Corp" holds "Corp"; "average"
        // does not hold "age").
        let within =
            |a: &[String], b: &[String]| !a.is_empty() && b.windows(a.len()).any(|w| w == a);
        let mine = words(&name);
        let known_already = plan.unknown.iter().any(|u| {
            let theirs = words(u);
            within(&mine, &theirs) || within(&theirs, &mine)
        });
        if !known_already {
            plan.unknown.push(name);
        }
    }
    for part in found.unapplied {
        if !plan.unapplied.contains(&part) {
            plan.unapplied.push(part);
        }
    }
}

/// Words that set two things side by side.
pub(super) const VERSUS: &[&str] = &["vs", "versus", "compare", "compared", "against"];

/// The member two or more filter values of which a "vs" sets side by side, if any.
pub(super) fn versus_member(plan: &QueryPlan, t: &[String]) -> Option<usize> {
    if !t.iter().any(|w| VERSUS.contains(&w.as_str())) {
        return None;
    }
    plan.filters
        .iter()
        .map(|(m, _)| *m)
        .find(|m| plan.filters.iter().filter(|(f, _)| f == m).count() >= 2)
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

/// Questions the plan would answer with another number: a statistic no measure computes ("median
/// order value"), a share with nothing to share out ("percentage of orders returned"), a count
/// of what no measure counts ("how many products": the model has products, not their count).
fn unanswerable(plan: &mut QueryPlan, lex: &Lexicon, view: &ViewCat, t: &[String], raw: &[String]) {
    let mut unknown = Vec::new();
    for (j, w) in t.iter().enumerate() {
        let said = raw.get(j).unwrap_or(w);
        if STATISTICS.contains(&w.as_str()) {
            unknown.push(said.clone());
        }
        let grouped = !plan.dimensions.is_empty() || plan.grain.is_some();
        if SHARES.contains(&w.as_str())
            && !grouped
            && plan.compare.is_none()
            && plan.share_part.is_empty()
        {
            unknown.push(said.clone());
        }
    }
    for k in t
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] == "how" && w[1] == "many")
        .map(|(k, _)| k)
    {
        let Some(j) = (k + 2..t.len()).find(|&j| !FILLERS.contains(&t[j].as_str())) else {
            continue;
        };
        let named: Vec<usize> = lex
            .phrases
            .iter()
            .filter(|(p, _)| t.get(j..j + p.len()) == Some(&p[..]))
            .map(|(_, m)| *m)
            .collect();
        if !named.is_empty() && !named.iter().any(|&m| view.members[m].is_measure()) {
            unknown.push(format!("number of {}", raw.get(j).unwrap_or(&t[j])));
        }
    }
    for u in unknown {
        if !plan.unknown.contains(&u) {
            plan.unknown.push(u);
        }
    }
}

/// "Best month ever", "which quarter had the lowest orders": a rank over periods of a grain
/// named by a word nothing else took is a ranking of those periods, one unless a number said
/// more ("top 3 months"); without it, the rank word was dropped and the answer was the total.
fn rank_periods(plan: &mut QueryPlan, t: &[String], used: &[bool]) {
    if plan.descending.is_none() || plan.compare.is_some() || !plan.dimensions.is_empty() {
        return;
    }
    let grain = t
        .iter()
        .zip(used)
        .filter(|(w, u)| !**u && *w != "date")
        .find_map(|(w, _)| Grain::parse(w));
    if let (Some(g), None) = (grain, plan.grain) {
        plan.grain = Some(g);
    }
    if plan.grain.is_some() && plan.limit.is_none() {
        plan.limit = Some(1);
    }
}

/// Words that ask for a part of a whole.
const PART_OF: &[&str] = &[
    "share",
    "percentage",
    "percent",
    "proportion",
    "fraction",
    "portion",
];

/// "What share of revenue came from Electronics", "what percentage of customers are in
/// Europe": one number as a part of a whole. The part is named by the values after the
/// measure the share word introduces; values before it ("what share of Germany's revenue")
/// belong to the whole, as do the period and every other filter. Nothing is set when the
/// question groups (a share per group is a ranking's) or names no part.
fn share_of_filter(plan: &mut QueryPlan, t: &[String], lex: &Lexicon) {
    if !plan.dimensions.is_empty()
        || plan.grain.is_some()
        || plan.compare.is_some()
        || plan.filters.is_empty()
    {
        return;
    }
    let Some(s) = t.iter().position(|w| PART_OF.contains(&w.as_str())) else {
        return;
    };
    let at =
        |p: &[String], from: usize| (from..t.len()).find(|&i| t.get(i..i + p.len()) == Some(p));
    // The end of the measure's phrase after the share word.
    let boundary = plan
        .measures
        .first()
        .and_then(|m| {
            lex.phrases
                .iter()
                .filter(|(_, j)| j == m)
                .filter_map(|(p, _)| at(p, s + 1).map(|i| i + p.len()))
                .min()
        })
        .unwrap_or(s + 1);
    let after: Vec<(usize, String)> = plan
        .filters
        .iter()
        .filter(|(_, v)| at(&words(v), 0).is_some_and(|i| i >= boundary))
        .cloned()
        .collect();
    // "Electronics' share of revenue", "proportion of returned orders": with no value after
    // the measure, the values named are the part.
    plan.share_part = if after.is_empty() {
        plan.filters.clone()
    } else {
        after
    };
}

/// Verbs of paying: what people spend is money, never a count of them.
const SPEND: &[&str] = &["spend", "spent", "spending", "pay", "paid", "paying"];

/// "How much did customers in Germany spend": the people are whose spending is summed, so a
/// count of them gives way to the view's money measure (its first currency sum).
fn spend(plan: &mut QueryPlan, view: &ViewCat, t: &[String]) {
    if !t.iter().any(|w| SPEND.contains(&w.as_str())) {
        return;
    }
    let currency = |m: &usize| {
        matches!(
            view.members[*m].kind,
            Kind::Measure(MeasureKind::Sum, super::model::Format::Currency)
        )
    };
    if plan.measures.iter().any(currency) {
        return;
    }
    let Some(money) = (0..view.members.len()).find(currency) else {
        return;
    };
    let counts = |m: &usize| matches!(view.members[*m].kind, Kind::Measure(MeasureKind::Count, _));
    if plan.measures.iter().all(counts) {
        plan.measures = vec![money];
    }
}

/// The count measure of the cube a time dimension belongs to: what "signups" count.
fn event_count(view: &ViewCat, time: usize) -> Option<usize> {
    let cube = &view.members.get(time)?.cube;
    view.members
        .iter()
        .position(|m| m.cube == *cube && matches!(m.kind, Kind::Measure(MeasureKind::Count, _)))
}

/// The time dimension a period, grain or comparison needs, when no phrase named one: the
/// measure's own (see [`own_time`]), else the view's first; without any, the question is
/// refused, naming the period (an answer over all time would be another number).
fn time_dimension(plan: &mut QueryPlan, view: &ViewCat, t: &[String]) {
    if plan.time.is_some()
        || !(plan.grain.is_some() || plan.range.is_some() || plan.compare.is_some())
    {
        return;
    }
    plan.time = own_time(plan, view, t).or_else(|| view.members.iter().position(|m| m.is_time()));
    if plan.time.is_none() {
        let asked = match (&plan.range, &plan.compare, plan.grain) {
            (Some(r), _, _) => r.label.clone(),
            (_, Some((a, b, _)), _) => format!("{} vs {}", a.label, b.label),
            (_, _, Some(g)) => format!("by {}", g.as_str()),
            _ => String::new(),
        };
        plan.unapplied.push(format!(
            "\"{asked}\" needs a date, and {} has no time dimension (nor reaches one)",
            view.title
        ));
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
    // A measure of another cube ("customers who placed an order": orders) ties the question to
    // the view's time too; one time dimension serves every measure of the query.
    let other = plan
        .measures
        .iter()
        .chain(&plan.dimensions)
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
fn compare(plan: &mut QueryPlan, t: &[String], periods: usize) {
    if !t.iter().any(|w| GROWTH.contains(&w.as_str())) {
        return;
    }
    let named = timeparse::explicit_periods(t);
    // "this year vs last year": two periods named, but not both as whole named periods; comparing
    // the range's own period with the one before would answer for other periods (the question
    // is refused as naming more than one period).
    if periods >= 2 && named.len() < 2 {
        return;
    }
    // "Books vs Toys", "compare France and Germany": two values of one member are compared
    // side by side, each its own group, never summed.
    if let Some(m) = versus_member(plan, t) {
        if !plan.dimensions.contains(&m) {
            plan.dimensions.insert(0, m);
        }
        plan.limit = None;
        if named.len() < 2 {
            return;
        }
    }
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
            plan.by_rate = t.iter().any(|w| RATE.contains(&w.as_str()));
        }
        _ => plan.notes.push(
            "I can compare two whole years, quarters or months of the same kind; these periods are not".into(),
        ),
    }
}
