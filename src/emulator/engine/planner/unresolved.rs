//! Names the planner could not resolve: a word after "for"/"of"/"in"/"from" ("revenue for
//! iPhone") or a capitalised name ("orders did Hugo B. Dubois place") that is no member, value,
//! period or known word. Dropping it would answer a wider question than the one asked (total
//! revenue for "revenue for iPhone"), so the plan names it and the question is refused.

use crate::emulator::engine::words::{number_word, word_spans};

/// Prepositions a filter value follows: "for Electronics", "in Germany", "from France".
const PREPOSITIONS: &[&str] = &["for", "of", "in", "from"];

/// Words a grouping follows: "top city", "which city", "what region". The word after one (past
/// numbers and determiners) is what to rank or group by; left unread, the answer would be a
/// total ("Which city had the most revenue?" answered with all revenue).
const RANKS: &[&str] = &["top", "which", "what"];

/// Words between a preposition and what it names: "for the iPhone", "of our customers".
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "our", "my", "their", "its", "your", "all", "each", "every", "any", "this",
    "that", "these", "those", "both",
];

/// Words a preposition may govern that name nothing to filter on: "in total", "for each",
/// "of all time", "in the shop", "for which".
const BENIGN: &[&str] = &[
    "total",
    "general",
    "term",
    "which",
    "what",
    "whom",
    "who",
    "it",
    "them",
    "us",
    "me",
    "ever",
    "time",
    "now",
    "far",
    "shop",
    "store",
    "company",
    "business",
    "data",
    "sample",
    "whole",
    "overall",
    "sum",
    "last",
    "past",
    "previous",
    "next",
    "current",
    "recent",
    "same",
    "period",
    "date",
    "so",
    "one",
    "how",
    "many",
    "much",
    "and",
    "or",
    "to",
    "with",
    "by",
    "per",
    "during",
    "between",
    "over",
    "under",
    "above",
    "below",
    "than",
    "at",
    "on",
    "is",
    "are",
    "was",
    "were",
    "do",
    "did",
    "we",
    "there",
    "here",
    "average",
    "number",
    "count",
    "amount",
    "had",
    "has",
    "have",
    "does",
    "s",
    "kind",
    "kinds",
    "type",
    "types",
    "sort",
    "selling",
    "seller",
    "sellers",
    "performing",
    "performer",
    "performers",
    "grossing",
    "earning",
    "popular",
    "ranked",
    "rated",
    "happened",
    "about",
    "share",
    "day",
    "week",
    "month",
    "quarter",
    "year",
];

/// One word of the question as written, with its byte span (the same words as
/// [`crate::emulator::engine::words::words`], one for one).
struct Written<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// The words of a question as written ("Median", "products"), one for one with
/// [`crate::emulator::engine::words::words`].
pub(super) fn as_written(question: &str) -> Vec<String> {
    written(question)
        .iter()
        .map(|w| w.text.to_string())
        .collect()
}

fn written(question: &str) -> Vec<Written<'_>> {
    word_spans(question)
        .into_iter()
        .map(|(start, end)| Written {
            text: &question[start..end],
            start,
            end,
        })
        .collect()
}

/// A word that names nothing but could be a name: no number, no grammar word, none of the
/// planner's own words (`known`: "active", "fastest").
fn nameable(w: &str, known: &dyn Fn(&str) -> bool) -> bool {
    !known(w)
        && !w.chars().any(|c| c.is_ascii_digit())
        && number_word(w).is_none()
        && !BENIGN.contains(&w)
        && !DETERMINERS.contains(&w)
        && !PREPOSITIONS.contains(&w)
}

/// The unresolved names of a question, as written ("iPhone", "Hugo B. Dubois"): `t` are its
/// words as the planner read them and `used` the ones a period, rank, value, member or
/// comparison took.
pub(super) fn names(
    question: &str,
    t: &[String],
    used: &[bool],
    known: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let w = written(question);
    if w.len() != t.len() || used.len() != t.len() {
        return Vec::new();
    }
    let free = |j: usize| !used[j] && nameable(&t[j], known);
    let capital = |j: usize| w[j].text.chars().next().is_some_and(char::is_uppercase);
    // A question in title case ("Revenue By Category") capitalises words, not names.
    let letters = w.iter().filter(|x| x.text.chars().any(char::is_alphabetic));
    let title_case = letters
        .clone()
        .filter(|x| x.text.chars().next().is_some_and(char::is_uppercase));
    let title_case = title_case.count() * 2 > letters.count().max(2);
    let mut out = Vec::new();
    let mut j = 0;
    while j < t.len() {
        let after_preposition = j > 0 && {
            let mut k = j - 1;
            while k > 0 && DETERMINERS.contains(&t[k].as_str()) {
                k -= 1;
            }
            PREPOSITIONS.contains(&t[k].as_str())
        };
        let after_rank = j > 0 && {
            let mut k = j - 1;
            while k > 0
                && (DETERMINERS.contains(&t[k].as_str())
                    || t[k].chars().all(|c| c.is_ascii_digit())
                    || number_word(&t[k]).is_some())
            {
                k -= 1;
            }
            RANKS.contains(&t[k].as_str())
        };
        let name = j > 0 && !title_case && capital(j) && w[j].text != "I";
        if !(free(j) && (after_preposition || after_rank || name)) {
            j += 1;
            continue;
        }
        // The name runs on over free words (capitalised ones, for a name outside a preposition's
        // reach: "Hugo B. Dubois").
        let mut end = j + 1;
        while end < t.len() && free(end) && (after_preposition || capital(end)) {
            end += 1;
        }
        out.push(question[w[j].start..w[end - 1].end].to_string());
        j = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::engine::words::words;

    fn unresolved(q: &str, used_words: &[&str]) -> Vec<String> {
        let t = words(q);
        let used: Vec<bool> = t.iter().map(|w| used_words.contains(&w.as_str())).collect();
        names(q, &t, &used, &|w| w == "active")
    }

    #[test]
    fn names_after_a_preposition_or_capitalised() {
        assert_eq!(
            unresolved("Revenue for iPhone in 2024", &["revenue", "2024"]),
            ["iPhone"]
        );
        assert_eq!(
            unresolved("How many orders did Hugo B. Dubois place?", &["order"]),
            ["Hugo B. Dubois"]
        );
        assert_eq!(
            unresolved("revenue for the Acme Pro line", &["revenue"]),
            ["Acme Pro line"]
        );
        // What a ranking word asks to group by.
        assert_eq!(
            unresolved(
                "Which city had the most revenue in 2024?",
                &["revenue", "most", "2024"]
            ),
            ["city"]
        );
        assert_eq!(
            unresolved("top 3 cities by revenue", &["revenue", "top", "3"]),
            ["cities"]
        );
        // Grammar words after a preposition, and title case, name nothing.
        assert!(unresolved("total revenue in the shop in 2024", &["revenue", "2024"]).is_empty());
        assert!(unresolved("revenue for each category", &["revenue", "category"]).is_empty());
        assert!(unresolved("number of active customers", &["number", "customer"]).is_empty());
        assert!(
            unresolved(
                "Revenue By Category In Europe",
                &["revenue", "category", "europe"]
            )
            .is_empty()
        );
    }
}
