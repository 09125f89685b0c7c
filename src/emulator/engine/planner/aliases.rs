//! Other names of values and periods: country codes and short names ("US", "USA", "the UK",
//! "in the States"), and month abbreviations ("Nov 2025", "Sept"). The words are rewritten one
//! for one, so that the question as written still lines up with them.

use super::Lexicon;

/// Short names of countries, as words: (alias, the country as the data names it).
const COUNTRY_NAMES: &[(&str, &str)] = &[
    ("usa", "United States"),
    ("uk", "United Kingdom"),
    ("britain", "United Kingdom"),
    ("holland", "Netherlands"),
];

/// ISO 3166 codes, read only when written in capitals ("US", "IN", "DE"): lowercase, most of
/// them are English words ("us", "in", "it").
const COUNTRY_CODES: &[(&str, &str)] = &[
    ("us", "United States"),
    ("usa", "United States"),
    ("uk", "United Kingdom"),
    ("gb", "United Kingdom"),
    ("de", "Germany"),
    ("fr", "France"),
    ("in", "India"),
    ("jp", "Japan"),
    ("br", "Brazil"),
    ("ca", "Canada"),
    ("au", "Australia"),
    ("mx", "Mexico"),
    ("nl", "Netherlands"),
    ("es", "Spain"),
    ("it", "Italy"),
];

/// Month abbreviations, to the month names the time words know.
const MONTH_ABBREVIATIONS: &[(&str, &str)] = &[
    ("jan", "january"),
    ("feb", "february"),
    ("mar", "march"),
    ("apr", "april"),
    ("jun", "june"),
    ("jul", "july"),
    ("aug", "august"),
    ("sep", "september"),
    ("sept", "september"),
    ("oct", "october"),
    ("nov", "november"),
    ("dec", "december"),
];

/// The word a code stands for in the lexicon: no question word can be it.
fn code_word(code: &str) -> String {
    format!("iso3166{code}")
}

/// Alias words for the known values of `lex`: short names and codes of countries the data
/// holds (whatever member holds them).
pub(super) fn add_values(lex: &mut Lexicon) {
    let mut extra = Vec::new();
    for (_, member, value) in &lex.values {
        for (alias, country) in COUNTRY_NAMES {
            if value == country {
                extra.push((vec![(*alias).to_string()], *member, value.clone()));
            }
        }
        for (code, country) in COUNTRY_CODES {
            if value == country {
                extra.push((vec![code_word(code)], *member, value.clone()));
            }
        }
    }
    lex.values.extend(extra);
}

/// Rewrites the words `t` (one for one with `written`, the question as written): a country
/// code in capitals ("US", "IN"), "the US" and "the States" become the codes' words; month
/// abbreviations become month names.
pub(super) fn rewrite(t: &mut [String], written: &[String]) {
    if written.len() != t.len() {
        return;
    }
    // A question in capitals capitalises words, not codes.
    let shouting = !written
        .iter()
        .any(|w| w.chars().any(|c| c.is_ascii_lowercase()));
    for j in 0..t.len() {
        let w = &written[j];
        let caps = w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase());
        let lower = w.to_lowercase();
        // "the US", "in US", "from US": the country; "tell us", "for us": the pronoun.
        let after_the = j > 0 && matches!(t[j - 1].as_str(), "the" | "in" | "from" | "across");
        let code = if caps && !shouting {
            COUNTRY_CODES.iter().find(|(c, _)| *c == lower)
        } else if after_the && (lower == "us" || lower == "usa") {
            COUNTRY_CODES.iter().find(|(c, _)| *c == "us")
        } else if j >= 2
            && t[j - 1] == "the"
            && lower == "states"
            && matches!(t[j - 2].as_str(), "in" | "from" | "across" | "for")
        {
            COUNTRY_CODES.iter().find(|(c, _)| *c == "us")
        } else {
            None
        };
        if let Some((c, _)) = code {
            t[j] = code_word(c);
            continue;
        }
        if let Some((_, m)) = MONTH_ABBREVIATIONS.iter().find(|(a, _)| *a == lower) {
            t[j] = (*m).to_string();
        }
    }
}
