//! The general guard: every meaningful word of the question must be accounted for by the plan.
//! A word no period, rank, value, member or comparison took, and that is no grammar word, is a
//! part of the question the plan would silently drop ("pending orders" answered with all
//! orders, "before 2024" with 2024): the plan names it and the question is refused. Words the
//! planner knows but did not apply (a rank with nothing to rank, a comparison word with nothing
//! to compare) are named with what the agent can do instead.

use super::{DECLINE, GROWTH, PURCHASE, QueryPlan, RATE, SHARES, STATISTICS};
use crate::emulator::engine::catalog::{Kind, ViewCat};
use crate::emulator::engine::model::DimKind;
use crate::emulator::engine::timeparse::Grain;
use crate::emulator::engine::words::singular;

use super::Lexicon;

/// Words that carry no part of what to compute: grammar, question and request words, and
/// verbs of selling and earning the measures already say.
const GRAMMAR: &[&str] = &[
    "the",
    "a",
    "an",
    "of",
    "in",
    "for",
    "from",
    "to",
    "by",
    "per",
    "on",
    "at",
    "with",
    "and",
    "or",
    "nor",
    "as",
    "into",
    "during",
    "within",
    "across",
    "among",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "how",
    "many",
    "much",
    "when",
    "where",
    "why",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "do",
    "doe",
    "does",
    "did",
    "done",
    "have",
    "ha",
    "has",
    "had",
    "having",
    "we",
    "our",
    "ours",
    "us",
    "me",
    "my",
    "i",
    "you",
    "your",
    "they",
    "their",
    "them",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "there",
    "here",
    "all",
    "each",
    "every",
    "any",
    "both",
    "show",
    "give",
    "tell",
    "list",
    "get",
    "got",
    "display",
    "find",
    "see",
    "want",
    "need",
    "please",
    "can",
    "could",
    "would",
    "will",
    "should",
    "let",
    "s",
    "t",
    "ll",
    "ve",
    "re",
    "d",
    "m",
    "so",
    "far",
    "ever",
    "yet",
    "still",
    "just",
    "also",
    "too",
    "very",
    "really",
    "overall",
    "total",
    "totals",
    "sum",
    "number",
    "count",
    "amount",
    "figure",
    "data",
    "report",
    "summary",
    "breakdown",
    "split",
    "wise",
    "made",
    "make",
    "generate",
    "generated",
    "bring",
    "brought",
    "earn",
    "earned",
    "earning",
    "grossing",
    "gross",
    "sold",
    "sell",
    "selling",
    "seller",
    "performing",
    "performer",
    "perform",
    "performed",
    "performance",
    "popular",
    "ranked",
    "rank",
    "ranking",
    "happened",
    "look",
    "like",
    "now",
    "currently",
    "company",
    "business",
    "shop",
    "whole",
    "general",
    "term",
    "about",
    "kind",
    "type",
    "sort",
    "one",
    "go",
    "went",
    "doing",
    "did",
    "what",
    "whats",
    "hi",
    "hello",
    "thanks",
    "thank",
    "quick",
    "some",
    "up",
    "over",
    "time",
    "date",
    "period",
    "trend",
    "including",
    "include",
    "included",
    "across",
    "get",
    "getting",
    "come",
    "came",
    "from",
    "then",
    "only",
    "just",
    "same",
    "instead",
    "now",
    "ok",
    "okay",
    "but",
    "if",
    "also",
    "than",
    "other",
    "together",
    "combined",
    "altogether",
    "value",
    "values",
    "level",
    "result",
    "results",
    "stat",
    "stats",
    "metric",
    "metrics",
    "since",
    "distinct",
    "unique",
    "different",
    "individual",
    "something",
    "anything",
    // Verbs of receiving and recording: "orders did we receive", "break down revenue by".
    "receive",
    "received",
    "receiving",
    "take",
    "took",
    "record",
    "recorded",
    "book",
    "booked",
    "break",
    "broke",
    "broken",
    "down",
    "out",
    "happen",
    "exist",
    "existing",
    "located",
    "based",
    "live",
    "living",
    "coming",
    "account",
    "accounted",
];

/// Words that rank ("top", "highest"): applied only when there is something to rank.
const RANK_WORDS: &[&str] = &[
    "top", "best", "highest", "largest", "biggest", "most", "bottom", "worst", "lowest",
    "smallest", "least", "fewest",
];

/// Words that negate (the reader's list): applied when the plan holds an exclusion.
use super::reading::NEGATIONS;

/// What the guard found: words nothing read, and parts read but not applied.
#[derive(Debug, Default)]
pub(super) struct Coverage {
    /// Words (runs of words, as written) that name nothing the plan holds.
    pub(super) unknown: Vec<String>,
    /// Parts understood but not applied, each with what the agent can do instead.
    pub(super) unapplied: Vec<String>,
}

/// Checks that every meaningful word of the question is accounted for by `plan`. `t` are the
/// words as the planner read them, `written` as the question wrote them (one for one), `used`
/// the words a reading took.
pub(super) fn check(
    plan: &QueryPlan,
    t: &[String],
    written: &[String],
    used: &[bool],
    lex: &Lexicon,
    view: &ViewCat,
) -> Coverage {
    let mut out = Coverage::default();
    if written.len() != t.len() || used.len() != t.len() {
        return out;
    }
    let grouped = !plan.dimensions.is_empty() || plan.grain.is_some();
    let compared = plan.compare.is_some() || super::versus_member(plan, t).is_some();
    let excluded = plan
        .conditions
        .iter()
        .any(|(_, c)| matches!(c, super::Condition::NotEquals(_)));
    let said = |j: usize| written[j].clone();
    let accounted = |j: usize| -> bool {
        let w = t[j].as_str();
        // The word as written too: the spelling correction may have read a grammar word as a
        // name it resembles.
        let as_written = singular(&written[j].to_lowercase());
        let grammar = |x: &str| GRAMMAR.contains(&x) || PURCHASE.contains(&x);
        if used[j] || grammar(w) || grammar(&as_written) {
            return true;
        }
        if let Some(g) = Grain::parse(w) {
            let cmp = plan.compare.as_ref().map(|c| c.2);
            return plan.grain == Some(g)
                || cmp == Some(g)
                || (w == "year" && plan.range.is_some());
        }
        if matches!(w, "average" | "avg" | "mean") {
            // Said by an average measure ("avg unit price"); else an average of what no
            // measure averages ("average order total", "average customer age").
            return plan.measures.iter().any(|m| {
                let title = view.members[*m].title.to_lowercase();
                title.contains("average") || title.contains("avg")
            });
        }
        if w == "new" {
            // "new customers (signed up) in 2025": counted by their own date (signups), or over
            // all time; "new customers who bought in 2025" is no count of signups.
            let own = |m: &usize| {
                plan.measures
                    .first()
                    .is_some_and(|f| view.members[*m].cube == view.members[*f].cube)
            };
            return plan.time.as_ref().is_none_or(own);
        }
        if NEGATIONS.contains(&w) {
            return excluded;
        }
        if GROWTH.contains(&w) || DECLINE.contains(&w) || RATE.contains(&w) {
            return compared || (SHARES.contains(&w) && (grouped || !plan.share_part.is_empty()));
        }
        if SHARES.contains(&w) || STATISTICS.contains(&w) {
            // Refused already by `unanswerable` when it cannot be honoured.
            return true;
        }
        false
    };
    // A rank with nothing to rank ("the largest order in 2025" was the count of orders).
    if plan.descending.is_some()
        && !grouped
        && !compared
        && plan.having.is_empty()
        && let Some(j) = (0..t.len()).find(|&j| RANK_WORDS.contains(&t[j].as_str()))
    {
        let next = t.get(j + 1).map(String::as_str).unwrap_or("");
        out.unapplied.push(format!(
            "\"{} {}\" asks for a single largest or smallest item, and I can only rank groups such as products, categories, countries or months (\"top products by revenue\")",
            said(j),
            written.get(j + 1).map_or(next, String::as_str)
        ));
    }
    // A rank by an attribute that is no measure: "the highest list price" ranked revenue.
    for j in 0..t.len() {
        if !RANK_WORDS.contains(&t[j].as_str()) {
            continue;
        }
        let k = (j + 1..t.len()).find(|&k| !matches!(t[k].as_str(), "the" | "a" | "an"));
        let Some(k) = k else { continue };
        let numeric_attr = lex.phrases.iter().find(|(p, m)| {
            t.get(k..k + p.len()) == Some(&p[..])
                && matches!(view.members[*m].kind, Kind::Dimension(DimKind::Number))
        });
        if let Some((p, _)) = numeric_attr {
            out.unapplied.push(format!(
                "\"{} {}\" ranks by an attribute, not by a measure I can compute (I can rank by revenue, units, orders, customers or average order value)",
                said(j),
                written[k..k + p.len()].join(" ")
            ));
        }
    }
    // A comparison word with nothing compared ("compare Consumer and Corporate").
    let cmp_word = (0..t.len()).find(|&j| GROWTH.contains(&t[j].as_str()) && !accounted(j));
    if let Some(j) = cmp_word {
        out.unapplied.push(format!(
            "\"{}\" asks for a comparison I cannot make here: I compare two whole years, quarters or months (\"revenue growth from 2024 to 2025\", \"Q1 2025 vs Q1 2024\") or two values of one dimension in one period (\"France vs Germany revenue in 2025\")",
            said(j)
        ));
    }
    // Every other word nothing took, in runs as written.
    let mut j = 0;
    while j < t.len() {
        let skip = accounted(j)
            || GROWTH.contains(&t[j].as_str())
            || (plan.descending.is_some() && RANK_WORDS.contains(&t[j].as_str()));
        if skip {
            j += 1;
            continue;
        }
        let mut end = j + 1;
        while end < t.len()
            && !accounted(end)
            && !GROWTH.contains(&t[end].as_str())
            && !RANK_WORDS.contains(&t[end].as_str())
        {
            end += 1;
        }
        out.unknown.push(written[j..end].join(" "));
        j = end;
    }
    out
}
