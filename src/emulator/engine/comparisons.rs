//! Numeric comparisons in a question: "over $100", "more than 5", "at least 3", "under 20
//! dollars", "between $50 and $100", "5 or more", with the number as written (`$`, thousands
//! separators, decimals, `10k`). Each comparison says which of the planner's words it covers
//! (the words of [`super::words::words`], which split where these segments split), so the
//! planner can find what stands before it ("orders over $100") and after it ("more than 5
//! orders"). A plain year ("revenue over 2024") is a period, not an amount.
//!
//! [`resolve`] then decides, against one view, what each comparison applies to: a numeric
//! dimension per row (a `WHERE`), or a measure per group (a `HAVING`), or nothing (the question
//! is refused rather than answered without it).

mod resolve;

pub use resolve::{Phrase, Resolved, Role, amount_rank, resolve};

/// One comparison, over words `start..end` of the question.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// First word covered (the operator, or the number of "5 or more").
    pub start: usize,
    /// One past the last word covered.
    pub end: usize,
    /// The first word after the number and its unit ("orders" in "more than 5 orders").
    pub after: usize,
    /// Conditions on one value: `(">", 100.0)`, or two for "between".
    pub bounds: Vec<(&'static str, f64)>,
    /// Whether the number was money (`$100`, "500 dollars").
    pub money: bool,
    /// The words as the question wrote them ("over $100").
    pub text: String,
}

/// Bounds of a comparison, whether they were money, and the first word after them.
type Found = (Vec<(&'static str, f64)>, bool, usize);

/// A word of the question with where it stands in the text.
struct Seg {
    word: String,
    from: usize,
    to: usize,
}

/// The question's words (split as [`super::words::words`] splits) with their byte offsets.
fn segments(question: &str) -> Vec<Seg> {
    super::words::word_spans(question)
        .into_iter()
        .map(|(from, to)| Seg {
            word: question[from..to].to_lowercase(),
            from,
            to,
        })
        .collect()
}

const MONEY_UNITS: &[&str] = &["dollar", "dollars", "usd", "bucks", "eur", "euro", "euros"];

/// Operators before a number: (words, operator).
const PREFIX: &[(&[&str], &str)] = &[
    (&["over"], ">"),
    (&["above"], ">"),
    (&["exceeding"], ">"),
    (&["exceeds"], ">"),
    (&["exceed"], ">"),
    (&["beyond"], ">"),
    (&["more", "than"], ">"),
    (&["greater", "than"], ">"),
    (&["higher", "than"], ">"),
    (&["larger", "than"], ">"),
    (&["bigger", "than"], ">"),
    (&["in", "excess", "of"], ">"),
    (&["at", "least"], ">="),
    (&["no", "less", "than"], ">="),
    (&["no", "fewer", "than"], ">="),
    (&["minimum", "of"], ">="),
    (&["under"], "<"),
    (&["below"], "<"),
    (&["less", "than"], "<"),
    (&["fewer", "than"], "<"),
    (&["lower", "than"], "<"),
    (&["smaller", "than"], "<"),
    (&["cheaper", "than"], "<"),
    (&["at", "most"], "<="),
    (&["no", "more", "than"], "<="),
    (&["up", "to"], "<="),
    (&["maximum", "of"], "<="),
];

/// Operators after a number ("5 or more"): (words, operator).
const POSTFIX: &[(&[&str], &str)] = &[
    (&["or", "more"], ">="),
    (&["or", "above"], ">="),
    (&["or", "over"], ">="),
    (&["or", "higher"], ">="),
    (&["or", "greater"], ">="),
    (&["and", "above"], ">="),
    (&["and", "up"], ">="),
    (&["or", "less"], "<="),
    (&["or", "fewer"], "<="),
    (&["or", "below"], "<="),
    (&["or", "under"], "<="),
    (&["or", "lower"], "<="),
    (&["and", "below"], "<="),
    (&["and", "under"], "<="),
];

/// A number at segment `i`: (value, money, first segment after it and its unit).
fn number(q: &str, s: &[Seg], i: usize) -> Option<(f64, bool, usize)> {
    let gap = |k: usize| &q[if k == 0 { 0 } else { s[k - 1].to }..s[k].from];
    let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let (head, mut scale) = split_suffix(&s.get(i)?.word);
    if !digits(head) {
        return None;
    }
    let mut text = head.to_string();
    let mut j = i + 1;
    let mut plain = scale == 1.0 && head.len() == 4;
    if scale == 1.0 {
        while j < s.len() && gap(j) == "," && s[j].word.len() == 3 && digits(&s[j].word) {
            text.push_str(&s[j].word);
            j += 1;
            plain = false;
        }
        if j < s.len() && gap(j) == "." {
            let (frac, k) = split_suffix(&s[j].word);
            if digits(frac) {
                text = format!("{text}.{frac}");
                scale = k;
                j += 1;
                plain = false;
            }
        }
    }
    match s.get(j).map(|x| x.word.as_str()) {
        Some("thousand") => (scale, j, plain) = (scale * 1e3, j + 1, false),
        Some("million") => (scale, j, plain) = (scale * 1e6, j + 1, false),
        _ => {}
    }
    let mut money = gap(i).trim_end().ends_with(['$', '€', '£']);
    if s.get(j)
        .is_some_and(|x| MONEY_UNITS.contains(&x.word.as_str()))
    {
        money = true;
        j += 1;
    }
    let value = text.parse::<f64>().ok()? * scale;
    let year = plain && !money && (1900.0..=2100.0).contains(&value);
    (!year && value.is_finite()).then_some((value, money, j))
}

/// "10k" -> ("10", 1000), "2m" -> ("2", 1e6), "100" -> ("100", 1).
fn split_suffix(w: &str) -> (&str, f64) {
    if let Some(h) = w.strip_suffix('k') {
        (h, 1e3)
    } else if let Some(h) = w.strip_suffix('m') {
        (h, 1e6)
    } else {
        (w, 1.0)
    }
}

fn words_at(s: &[Seg], i: usize, ws: &[&str]) -> bool {
    ws.iter()
        .enumerate()
        .all(|(k, w)| s.get(i + k).is_some_and(|x| x.word == *w))
}

/// Every comparison in the question, in order, none overlapping.
pub fn find(question: &str) -> Vec<Comparison> {
    let s = segments(question);
    let mut out: Vec<Comparison> = Vec::new();
    let text = |a: usize, b: usize| question[s[a].from..s[b - 1].to].to_string();
    let mut i = 0;
    while i < s.len() {
        let found = if words_at(&s, i, &["between"]) {
            between(question, &s, i)
        } else if let Some((ws, op)) = PREFIX.iter().find(|(ws, _)| words_at(&s, i, ws)) {
            number(question, &s, i + ws.len())
                .map(|(v, money, after)| (vec![(*op, v)], money, after))
        } else {
            number(question, &s, i).and_then(|(v, money, j)| {
                let (ws, op) = POSTFIX.iter().find(|(ws, _)| words_at(&s, j, ws))?;
                Some((vec![(*op, v)], money, j + ws.len()))
            })
        };
        match found {
            Some((bounds, money, after)) => {
                out.push(Comparison {
                    start: i,
                    end: after,
                    after,
                    bounds,
                    money,
                    text: text(i, after),
                });
                i = after;
            }
            None => i += 1,
        }
    }
    out
}

/// "between $50 and $100" at `i`: both bounds, inclusive, low first.
fn between(q: &str, s: &[Seg], i: usize) -> Option<Found> {
    let (a, ma, j) = number(q, s, i + 1)?;
    if !words_at(s, j, &["and"]) {
        return None;
    }
    let (b, mb, k) = number(q, s, j + 1)?;
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    Some((vec![(">=", lo), ("<=", hi)], ma || mb, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(q: &str) -> (Vec<(&'static str, f64)>, bool, String) {
        let f = find(q);
        assert_eq!(f.len(), 1, "{q}: {f:?}");
        (f[0].bounds.clone(), f[0].money, f[0].text.clone())
    }

    #[test]
    fn operators_numbers_and_money() {
        assert_eq!(
            one("How many orders over $100 in 2025?"),
            (vec![(">", 100.0)], true, "over $100".into())
        );
        assert_eq!(
            one("revenue from orders above 500 dollars"),
            (vec![(">", 500.0)], true, "above 500 dollars".into())
        );
        assert_eq!(one("customers with more than 5 orders").0, [(">", 5.0)]);
        assert_eq!(
            one("products with revenue over $10,000").0,
            [(">", 10000.0)]
        );
        assert_eq!(one("orders under $19.99").0, [("<", 19.99)]);
        assert_eq!(one("products above $1.5k").0, [(">", 1500.0)]);
        assert_eq!(one("customers with at least 3 orders").0, [(">=", 3.0)]);
        assert_eq!(one("customers with 5 or more orders").0, [(">=", 5.0)]);
        assert_eq!(
            one("orders between $100 and $50").0,
            [(">=", 50.0), ("<=", 100.0)]
        );
        let f = find("customers with more than 5 orders in 2025");
        assert_eq!((f[0].start, f[0].end, f[0].after), (2, 5, 5));
    }

    #[test]
    fn years_and_other_numbers_are_not_amounts() {
        assert!(find("revenue over 2024").is_empty());
        assert!(find("orders between 2024 and 2025").is_empty());
        assert!(find("top 5 products over the last 6 months").is_empty());
        assert!(find("most orders in 2024").is_empty());
        assert_eq!(one("orders over $2,024").0, [(">", 2024.0)]);
    }
}
