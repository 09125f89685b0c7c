//! Words: tokenising questions, singular forms, and typo-tolerant matching against a vocabulary.

use std::collections::BTreeSet;

/// The byte spans of the text's runs of alphanumeric characters, in order: where each word
/// [`words`] reads stands in the text as written.
pub fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Lowercase alphanumeric words of a text, singularised; `&`, punctuation and quotes split words.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .flat_map(|w| w.split('_'))
        .filter(|w| !w.is_empty())
        .map(|w| singular(&w.to_lowercase()))
        .collect()
}

/// A crude English singular, enough to make "categories" meet "category".
pub fn singular(w: &str) -> String {
    let n = w.chars().count();
    if n <= 3 || w.chars().any(|c| c.is_ascii_digit()) || KEEP_S.contains(&w) {
        return w.to_string();
    }
    if let Some(stem) = w.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for (suffix, keep) in [("sses", "ss"), ("uses", "us"), ("xes", "x"), ("ches", "ch")] {
        if let Some(stem) = w.strip_suffix(suffix) {
            return format!("{stem}{keep}");
        }
    }
    if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

/// Words ending in `s` that are not plurals.
const KEEP_S: &[&str] = &[
    "this", "status", "analysis", "sales", "was", "has", "always", "plus", "less", "always",
];

/// Common words never "corrected" into vocabulary words they happen to resemble.
const COMMON: &[&str] = &[
    "about", "above", "after", "again", "their", "there", "these", "those", "where", "which",
    "while", "would", "could", "should", "other", "under", "every", "first", "since", "until",
    "being", "doing", "thing", "think", "tell", "show", "please", "compare", "versus", "against",
    "between", "total", "group", "number", "count", "overall", "latest", "recent", "change",
];

/// Optimal-string-alignment edit distance (a swap of neighbours counts as one edit).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Edits tolerated for a word: none below five letters, one up to seven, two beyond.
fn tolerance(len: usize) -> usize {
    match len {
        0..=4 => 0,
        5..=7 => 1,
        _ => 2,
    }
}

/// A vocabulary that maps misspelt words to known ones.
#[derive(Debug, Default)]
pub struct Vocabulary {
    known: BTreeSet<String>,
}

impl Vocabulary {
    /// Adds every word of a phrase.
    pub fn add(&mut self, phrase: &str) {
        self.known.extend(words(phrase));
    }
    /// The word itself if known (or common, or short); else the closest known word within
    /// tolerance, the alphabetically first on ties so that answers stay deterministic.
    pub fn correct(&self, w: &str) -> String {
        let tol = tolerance(w.chars().count());
        if tol == 0 || self.known.contains(w) || COMMON.contains(&w) || w.len() > 40 {
            return w.to_string();
        }
        let mut best: Option<(usize, &String)> = None;
        for k in &self.known {
            if k.len().abs_diff(w.len()) > tol || tolerance(k.chars().count()) == 0 {
                continue;
            }
            let dist = edit_distance(w, k);
            if dist <= tol && best.is_none_or(|(b, _)| dist < b) {
                best = Some((dist, k));
            }
        }
        best.map_or_else(|| w.to_string(), |(_, k)| k.clone())
    }
}

/// Small number words, for "top five products".
pub fn number_word(w: &str) -> Option<u32> {
    let n = match w {
        "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "twelve" => 12,
        "fifteen" => 15,
        "twenty" => 20,
        _ => return w.parse().ok().filter(|n| (1..=1000).contains(n)),
    };
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_typos() {
        assert_eq!(
            words("Top-5 Categories, by Countries!"),
            ["top", "5", "category", "by", "country"]
        );
        assert_eq!(edit_distance("reveune", "revenue"), 1);
        let mut v = Vocabulary::default();
        v.add("revenue category electronics");
        assert_eq!(v.correct("revenu"), "revenue");
        assert_eq!(v.correct("electornic"), "electronic");
        assert_eq!(v.correct("where"), "where");
        assert_eq!(v.correct("cat"), "cat");
    }
}
