//! Ranges and dates beyond one named period: open ranges ("before 2024", "after March 2025",
//! "until 2024", "prior to 2025", "up to 2024"), spans ("between April and June 2025", "from
//! 2025-03-01 to 2025-05-31"), explicit dates ("2025-11-28", "2025-11", "11/2025",
//! "November 28, 2025"), halves ("H1 2025", "first half of 2025") and weeks ("the week of
//! 2025-11-24"). Words are as [`crate::emulator::engine::words::words`] reads them: "2025-11-28"
//! is the three words "2025", "11", "28".

use super::{Found, MONTHS, named, range, relative, year};
use crate::emulator::engine::dates::{Date, Range};

/// The first day any open range starts on ("before 2024").
const EPOCH: (i32, u32, u32) = (1900, 1, 1);

/// Words that rank, after which a number is a count ("top 11 2025" is no November).
const COUNT_CUES: &[&str] = &[
    "top", "bottom", "first", "last", "best", "worst", "past", "next",
];

fn w(t: &[String], k: usize) -> &str {
    t.get(k).map_or("", String::as_str)
}

/// A month number written with digits (1..=12), as in "11/2025" or "2025-03".
fn month_num(s: &str) -> Option<u32> {
    (s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
        .filter(|m| (1..=12).contains(m))
}

/// A day number written with digits (1..=31).
fn day_num(s: &str) -> Option<u32> {
    (s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
        .filter(|d| (1..=31).contains(d))
}

fn month_name(s: &str) -> Option<u32> {
    MONTHS.iter().position(|m| *m == s).map(|i| i as u32 + 1)
}

fn day(d: Date, words: &str) -> Range {
    range(d, d.add_days(1), words)
}

/// An explicit date or month at `i`: "2025 11 28", "2025 11", "11 2025", "11 28 2025",
/// "november 28 2025", "28 november 2025", "2025 q4", "h1 2025", "first half of 2025".
pub(super) fn explicit(t: &[String], i: usize) -> Option<(Range, usize)> {
    let counted = i > 0 && COUNT_CUES.contains(&w(t, i - 1));
    if let Some(y) = year(w(t, i)) {
        // ISO: 2025-11-28, 2025-11 (a two-digit month, as ISO writes it); 2025 Q4.
        if w(t, i + 1).len() == 2
            && let Some(m) = month_num(w(t, i + 1))
        {
            if w(t, i + 2).len() == 2
                && let Some(d) = day_num(w(t, i + 2))
            {
                let date = Date::new((y, m, d));
                return Some((day(date, &date.to_string()), 3));
            }
            let start = Date::new((y, m, 1));
            let end = start.month_start(1);
            return Some((range(start, end, &super::describe(start, end)), 2));
        }
        let q = w(t, i + 1);
        if q.len() == 2 && q.starts_with('q') && matches!(&q[1..], "1" | "2" | "3" | "4") {
            let qn: u32 = q[1..].parse().unwrap_or(1);
            let start = Date::new((y, qn * 3 - 2, 1));
            return Some((range(start, start.month_start(3), &format!("Q{qn} {y}")), 2));
        }
        return None;
    }
    // 11/2025, 11/28/2025 (month first, as US dates are written).
    if let Some(m) = month_num(w(t, i)).filter(|_| !counted) {
        if let Some(y) = year(w(t, i + 1)) {
            let start = Date::new((y, m, 1));
            let end = start.month_start(1);
            return Some((range(start, end, &super::describe(start, end)), 2));
        }
        if let (Some(d), Some(y)) = (day_num(w(t, i + 1)), year(w(t, i + 2))) {
            let date = Date::new((y, m, d));
            return Some((day(date, &date.to_string()), 3));
        }
        // 28/11/2025, 28.11.2025: day first (the day is above 12, or it would be read above).
    }
    if let (Some(d), Some(m), Some(y)) = (
        day_num(w(t, i)).filter(|_| !counted),
        month_num(w(t, i + 1)),
        year(w(t, i + 2)),
    ) {
        let date = Date::new((y, m, d));
        return Some((day(date, &date.to_string()), 3));
    }
    // November 28, 2025; 28 November 2025.
    if let (Some(m), Some(d), Some(y)) =
        (month_name(w(t, i)), day_num(w(t, i + 1)), year(w(t, i + 2)))
    {
        let date = Date::new((y, m, d));
        return Some((day(date, &date.to_string()), 3));
    }
    if let (Some(d), Some(m), Some(y)) = (
        day_num(w(t, i)).filter(|_| !counted),
        month_name(w(t, i + 1)),
        year(w(t, i + 2)),
    ) {
        let date = Date::new((y, m, d));
        return Some((day(date, &date.to_string()), 3));
    }
    // H1 2025, first half of 2025.
    let (half, take) = match (w(t, i), w(t, i + 1), w(t, i + 2)) {
        ("h1", ..) => (Some(1), 1),
        ("h2", ..) => (Some(2), 1),
        ("first", "half", "of") => (Some(1), 3),
        ("second", "half", "of") => (Some(2), 3),
        ("first", "half", _) => (Some(1), 2),
        ("second", "half", _) => (Some(2), 2),
        _ => (None, 0),
    };
    if let (Some(h), Some(y)) = (half, year(w(t, i + take))) {
        let start = Date::new((y, if h == 1 { 1 } else { 7 }, 1));
        let label = format!("H{h} {y}");
        return Some((range(start, start.month_start(6), &label), take + 1));
    }
    None
}

/// One period at `k`, for the ends of a span or an open range: an explicit date, a named
/// period or a relative one. Also says whether a lone month name stood there (its year may come
/// from the other end: "between April and June 2025").
fn period_at(t: &[String], k: usize, today: Date) -> Option<(Range, usize, Option<u32>)> {
    if k >= t.len() {
        return None;
    }
    if let Some((r, n)) = explicit(t, k) {
        return Some((r, n, Some(0)));
    }
    let lone_month = month_name(w(t, k)).filter(|_| year(w(t, k + 1)).is_none());
    let found = relative(t, k, today).or_else(|| {
        // "since"/"from" at `k` would read a span of its own; only a period is wanted here.
        if matches!(w(t, k), "since" | "from") {
            None
        } else if lone_month.is_some() && w(t, k) == "may" {
            let (s, n) = super::month_or_year(t, k, today);
            Some((
                Found::Range(range(s, s.month_start(1), &t[k..k + n].join(" "))),
                n,
            ))
        } else {
            named(t, k, today)
        }
    })?;
    match found {
        (Found::Range(r), n) => Some((r, n, lone_month)),
        _ => None,
    }
}

/// Open ranges and spans at `i`: "before 2024", "prior to 2025", "until March 2025", "up to
/// 2024", "through 2024", "after 2024", "since 2025-03-01", "from/between P1 to/and P2", "the
/// week of 2025-11-24". `None` when no such phrase starts at `i`.
pub(super) fn bounded(t: &[String], i: usize, today: Date) -> Option<(Found, usize)> {
    let tomorrow = today.add_days(1);
    enum Bound {
        Before,
        Until,
        After,
        Since,
    }
    let (bound, skip) = match (w(t, i), w(t, i + 1)) {
        ("before", _) => (Bound::Before, 1),
        ("prior", "to") => (Bound::Before, 2),
        ("until" | "till" | "through" | "thru", _) => (Bound::Until, 1),
        ("up", "to" | "until" | "through") => (Bound::Until, 2),
        ("after", _) => (Bound::After, 1),
        // "since March" keeps its older reading (see `named`); an explicit date is read here.
        ("since", _) if explicit(t, i + 1).is_some() => (Bound::Since, 1),
        ("from" | "between", _) => return span(t, i, today),
        ("week", "of") => {
            let (r, n, _) = period_at(t, i + 2, today)?;
            if r.end != r.start.add_days(1) {
                return None;
            }
            let start = r.start.week_start();
            let words = format!("the week of {}", start);
            return Some((Found::Range(range(start, start.add_days(7), &words)), n + 2));
        }
        _ => return None,
    };
    let (p, n, _) = period_at(t, i + skip, today)?;
    let words = super::pretty(&t[i..i + skip].join(" "));
    let open = |start: Date, end: Date, label: String| Range { start, end, label };
    let desc = super::describe(p.start, p.end);
    let r = match bound {
        Bound::Before => open(Date::new(EPOCH), p.start, format!("{words} {desc}")),
        Bound::Until => open(
            Date::new(EPOCH),
            p.end,
            format!("{words} {desc} (up to {})", p.end.add_days(-1)),
        ),
        Bound::After => open(
            p.end,
            tomorrow.max(p.end),
            format!("{words} {desc} (from {})", p.end),
        ),
        Bound::Since => open(p.start, tomorrow.max(p.start), format!("{words} {desc}")),
    };
    Some((Found::Range(r), skip + n))
}

/// "from P1 to P2", "between P1 and P2" (a lone month takes the other end's year: "between
/// April and June 2025"); "from P1" alone runs to today.
fn span(t: &[String], i: usize, today: Date) -> Option<(Found, usize)> {
    let (a, n1, lone) = period_at(t, i + 1, today)?;
    // "from March 2025" and "from 2023 to 2024" keep their older reading (see `named`); a lone
    // month ("from January to March 2025") or an explicit date is read here.
    if w(t, i) == "from" && lone.is_none() {
        return None;
    }
    let lone = lone.filter(|m| *m > 0);
    let c = i + 1 + n1;
    let connector = matches!(
        w(t, c),
        "to" | "and" | "until" | "through" | "till" | "thru"
    );
    let second = if connector {
        period_at(t, c + 1, today)
    } else {
        None
    };
    let Some((b, n2, _)) = second else {
        if w(t, i) == "between" {
            return None;
        }
        let r = range(a.start, today.add_days(1).max(a.start), &t[i..c].join(" "));
        return Some((Found::Range(r), n1 + 1));
    };
    let mut start = a.start;
    if let Some(m) = lone {
        start = Date::new((b.start.y, m, 1));
        if start > b.start {
            start = Date::new((b.start.y - 1, m, 1));
        }
    }
    if b.end <= start {
        return None;
    }
    let span_words = &t[i..c + 1 + n2];
    // Dates written with digits ("2025-03-01") are said as dates, not as their parts.
    let numeric = span_words
        .iter()
        .any(|x| x.len() <= 2 && x.chars().all(|ch| ch.is_ascii_digit()));
    let r = if numeric {
        Range {
            start,
            end: b.end,
            label: super::describe(start, b.end),
        }
    } else {
        range(start, b.end, &span_words.join(" "))
    };
    Some((Found::Range(r), n1 + n2 + 2))
}
