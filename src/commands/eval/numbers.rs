//! Numbers in an answer, read as people write them: `$3,809,438.61`, `3.8M`, `$1.2 million`,
//! `31.8%`, `1.2k`, `-42`, `−7.5`.

/// A number found in text: the values it may stand for (a percentage stands for both `31.8`
/// and `0.318`) and the text it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// What it was read as.
    pub values: Vec<f64>,
    /// The text, as written.
    pub text: String,
}

/// Every number in `text`, in order.
pub fn numbers(text: &str) -> Vec<Found> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_ascii_digit() {
            i += 1;
            continue;
        }
        // Digits glued to letters (a "Q4", an id like "x86") are not amounts.
        if i > 0 && chars[i - 1].1.is_alphabetic() {
            while i < chars.len() && chars[i].1.is_ascii_alphanumeric() {
                i += 1;
            }
            continue;
        }
        // ".5" is a half: a point with no digit before it starts the number, unless it ends
        // a word ("v.5") or follows another number.
        let bare_point =
            i > 0 && chars[i - 1].1 == '.' && (i == 1 || !chars[i - 2].1.is_alphanumeric());
        let start = if bare_point { i - 1 } else { i };
        let mut digits = String::from(if bare_point { "0." } else { "" });
        while i < chars.len() {
            let c = chars[i].1;
            if c.is_ascii_digit() {
                digits.push(c);
                i += 1;
            } else if c == ',' && group_follows(&chars, i + 1) {
                i += 1;
            } else {
                break;
            }
        }
        if !bare_point
            && i + 1 < chars.len()
            && chars[i].1 == '.'
            && chars[i + 1].1.is_ascii_digit()
        {
            digits.push('.');
            i += 1;
            while i < chars.len() && chars[i].1.is_ascii_digit() {
                digits.push(chars[i].1);
                i += 1;
            }
        }
        let Ok(mut value) = digits.parse::<f64>() else {
            continue;
        };
        let negative = is_negative(&chars, start);
        let (factor, percent, end) = suffix(&chars, i);
        value *= factor;
        if negative {
            value = -value;
        }
        let from = sign_start(&chars, start, negative);
        let to = chars.get(end).map_or(text.len(), |c| c.0);
        let mut values = vec![value];
        if percent {
            values.push(value / 100.0);
        }
        out.push(Found {
            values,
            text: text[chars[from].0..to].to_owned(),
        });
        i = end;
    }
    out
}

/// Whether a `,` at `at - 1` separates thousands: exactly three digits follow.
fn group_follows(chars: &[(usize, char)], at: usize) -> bool {
    (0..3).all(|k| chars.get(at + k).is_some_and(|c| c.1.is_ascii_digit()))
        && !chars.get(at + 3).is_some_and(|c| c.1.is_ascii_digit())
}

const CURRENCY: &[char] = &['$', '€', '£', '¥'];
const MINUS: &[char] = &['-', '−'];

/// A minus sign before the number (possibly before a currency sign), not a hyphen between
/// words or digits (`2025-06`, `year-over-year`).
fn is_negative(chars: &[(usize, char)], start: usize) -> bool {
    let mut j = start;
    if j > 0 && CURRENCY.contains(&chars[j - 1].1) {
        j -= 1;
    }
    if j == 0 || !MINUS.contains(&chars[j - 1].1) {
        return false;
    }
    j -= 1;
    j == 0 || !chars[j - 1].1.is_alphanumeric()
}

fn sign_start(chars: &[(usize, char)], start: usize, negative: bool) -> usize {
    let mut j = start;
    if j > 0 && CURRENCY.contains(&chars[j - 1].1) {
        j -= 1;
    }
    if negative {
        j -= 1;
        if j > 0 && CURRENCY.contains(&chars[j - 1].1) && j + 1 < start {
            j -= 1;
        }
    }
    j
}

/// A scale or percent after the number: `k`, `K`, `M`, `mn`, `B`, `bn` (right after it or
/// after a space), `%`, or the words `thousand`, `million`, `billion` after a space. Returns
/// (factor, percent, end).
fn suffix(chars: &[(usize, char)], at: usize) -> (f64, bool, usize) {
    let word_end = |from: usize| {
        let mut j = from;
        while j < chars.len() && chars[j].1.is_alphabetic() {
            j += 1;
        }
        j
    };
    let Some(&(_, c)) = chars.get(at) else {
        return (1.0, false, at);
    };
    if c == '%' {
        return (1.0, true, at + 1);
    }
    if c.is_alphabetic() {
        let end = word_end(at);
        let word: String = chars[at..end].iter().map(|c| c.1).collect();
        let factor = match word.as_str() {
            "k" | "K" => 1e3,
            // Not `m` or `b` alone: "5m" is more often minutes than millions.
            "M" | "mn" => 1e6,
            "B" | "bn" => 1e9,
            _ => return (1.0, false, at),
        };
        return (factor, false, end);
    }
    if c == ' ' {
        let end = word_end(at + 1);
        // "2024 B2B" is a year before a word, not 2024 billion.
        if chars.get(end).is_some_and(|c| c.1.is_ascii_digit()) {
            return (1.0, false, at);
        }
        let word: String = chars[at + 1..end].iter().map(|c| c.1).collect();
        let factor = match word.as_str() {
            // "3.9 M", as the abbreviations are also written after a space.
            "k" | "K" => 1e3,
            "M" | "mn" => 1e6,
            "B" | "bn" => 1e9,
            _ => match word.to_ascii_lowercase().as_str() {
                "thousand" => 1e3,
                "million" => 1e6,
                "billion" => 1e9,
                _ => return (1.0, false, at),
            },
        };
        return (factor, false, end);
    }
    (1.0, false, at)
}

/// The first number in `text` within `tolerance` (relative) of `value`.
pub fn find_near(text: &str, value: f64, tolerance: f64) -> Option<Found> {
    numbers(text)
        .into_iter()
        .find(|f| f.values.iter().any(|n| near(*n, value, tolerance)))
}

/// |n - value| <= tolerance x |value|, with room for the rounding of floating point.
pub fn near(n: f64, value: f64, tolerance: f64) -> bool {
    (n - value).abs() <= tolerance * value.abs() + 1e-9 * value.abs().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<f64> {
        numbers(text).into_iter().map(|f| f.values[0]).collect()
    }

    #[test]
    fn reads_numbers_as_people_write_them() {
        assert_eq!(
            values("Revenue in 2025 was $3,809,438.61."),
            [2025.0, 3_809_438.61]
        );
        assert_eq!(values("about 3.8M, or $1.2 million"), [3.8e6, 1.2e6]);
        assert_eq!(values("1.2k orders, 7bn"), [1200.0, 7e9]);
        assert_eq!(
            values("a loss of -42 and −7.5 and -$1,000"),
            [-42.0, -7.5, -1000.0]
        );
        assert_eq!(values("34,199."), [34199.0]);
        assert_eq!(values("1,2 and 12,3456"), [1.0, 2.0, 12.0, 3456.0]);
        assert_eq!(values("2025-06-15"), [2025.0, 6.0, 15.0]);
        assert_eq!(values("Q4 x86 3 Months"), [3.0]);
        let pct = &numbers("42.5% of it")[0];
        assert_eq!(pct.values, [42.5, 0.425]);
        assert_eq!(pct.text, "42.5%");
        assert_eq!(numbers("cost -$5 today")[0].text, "-$5");
        assert_eq!(values("a share of .5 and -.25, $.75"), [0.5, -0.25, 0.75]);
        assert_eq!(numbers("of .5 today")[0].text, ".5");
        assert_eq!(values("v.5 and 1.2.5"), [5.0, 1.2, 5.0]);
        assert_eq!(
            values("3.9 M, 2 K, 1.5 bn, 4 Months"),
            [3.9e6, 2e3, 1.5e9, 4.0]
        );
        assert_eq!(values("in 2024 B2B"), [2024.0]);
    }

    #[test]
    fn a_bare_point_is_no_whole_number() {
        assert!(find_near("rose by .5 points", 5.0, 0.0).is_none());
        assert!(find_near("rose by .5 points", 0.5, 0.0).is_some());
        assert!(find_near("Revenue: 3.9 M", 3_900_000.0, 0.0).is_some());
    }

    #[test]
    fn tolerance_is_relative() {
        let t = "Total: $3,809,438.61";
        assert!(find_near(t, 3_809_438.61, 0.0).is_some());
        assert!(find_near(t, 3_800_000.0, 0.005).is_some());
        assert!(find_near(t, 3_700_000.0, 0.005).is_none());
        assert!(find_near("Share 42.5%", 0.425, 0.0).is_some());
        assert!(find_near("it fell -5%", -5.0, 0.0).is_some());
        assert!(find_near("it fell 5%", -5.0, 0.0).is_none());
        assert!(find_near("zero: 0", 0.0, 0.1).is_some());
    }
}
