//! Time words in a question: date ranges ("last month", "in 2024", "last 6 months", "this
//! year", "Q3 2024", "since March") and grains ("by week", "monthly", "over time").

use super::dates::{Date, MONTHS, Range};
use super::words::number_word;

mod ranges;

/// A time grain to group by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grain {
    /// Calendar day.
    Day,
    /// ISO week, starting Monday.
    Week,
    /// Calendar month.
    Month,
    /// Calendar quarter.
    Quarter,
    /// Calendar year.
    Year,
}

impl Grain {
    /// Lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Grain::Day => "day",
            Grain::Week => "week",
            Grain::Month => "month",
            Grain::Quarter => "quarter",
            Grain::Year => "year",
        }
    }
    /// From a word such as "month", "monthly", "daily", "annual".
    pub fn parse(w: &str) -> Option<Grain> {
        Some(match w {
            "day" | "daily" | "date" => Grain::Day,
            "week" | "weekly" => Grain::Week,
            "month" | "monthly" => Grain::Month,
            "quarter" | "quarterly" => Grain::Quarter,
            "year" | "yearly" | "annual" | "annually" => Grain::Year,
            _ => return None,
        })
    }
}

/// What the time words of a question asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeWords {
    /// A date range, if any.
    pub range: Option<Range>,
    /// "all time": drop any range a follow-up would inherit.
    pub all_time: bool,
    /// A grain, if any.
    pub grain: Option<Grain>,
    /// "the quarter before": the period of this grain before the thread's previous range
    /// (`range` holds the reading relative to today, for a thread without one).
    pub before: Option<Grain>,
    /// The label of every period found, in order (the plan keeps the last as `range`).
    pub labels: Vec<String>,
}

fn month_name(m: u32) -> String {
    let n = MONTHS[(m.clamp(1, 12) - 1) as usize];
    n[..1].to_uppercase() + &n[1..]
}

/// Names a range for answers: "May 2025", "2024", "Q2 2025", or "2025-01-01 to 2025-06-15".
pub fn describe(start: Date, end: Date) -> String {
    let last = end.add_days(-1);
    if start.d == 1 && start.month_start(1) == end {
        format!("{} {}", month_name(start.m), start.y)
    } else if start.d == 1 && start.m == 1 && end == Date::new((start.y + 1, 1, 1)) {
        start.y.to_string()
    } else if start.d == 1 && (start.m - 1).is_multiple_of(3) && start.month_start(3) == end {
        format!("Q{} {}", (start.m - 1) / 3 + 1, start.y)
    } else if start == last {
        start.to_string()
    } else {
        format!("{start} to {last}")
    }
}

/// Question words made presentable: month names capitalised, units plural after numbers > 1.
fn pretty(words: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for w in words.split(' ') {
        let plural = out
            .last()
            .and_then(|p| number_word(p))
            .is_some_and(|n| n > 1)
            && Grain::parse(w).is_some();
        out.push(match MONTHS.iter().position(|m| *m == w) {
            Some(i) => month_name(i as u32 + 1),
            None if plural => format!("{w}s"),
            None => w.to_string(),
        });
    }
    out.join(" ")
}

fn range(start: Date, end: Date, words: &str) -> Range {
    let words = pretty(words);
    let desc = describe(start, end);
    // "q3 2025" is the period's own name in other letters: say it as the period is named.
    let label = if words.eq_ignore_ascii_case(&desc) {
        desc
    } else if words.contains(&desc) {
        words.to_string()
    } else {
        format!("{words} ({desc})")
    };
    Range { start, end, label }
}

/// The whole period of grain `g` just before `start`'s period, e.g. the quarter before Q2 2025.
pub fn period_before(start: Date, g: Grain) -> Range {
    let cur = unit_start(start, g);
    let prev = shift(cur, g, -1);
    Range {
        start: prev,
        end: cur,
        label: describe(prev, cur),
    }
}

/// The grain whose one whole period is exactly `[start, end)`, if any.
pub fn whole_period(start: Date, end: Date) -> Option<Grain> {
    [Grain::Year, Grain::Quarter, Grain::Month]
        .into_iter()
        .find(|g| unit_start(start, *g) == start && shift(start, *g, 1) == end)
}

/// Explicit periods named in the question, in order: "2024", "Q1 2025", "March 2024".
pub fn explicit_periods(t: &[String]) -> Vec<Range> {
    let w = |i: usize| t.get(i).map_or("", String::as_str);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let q = w(i);
        if let (true, Some(y)) = (
            q.len() == 2 && q.starts_with('q') && matches!(&q[1..], "1" | "2" | "3" | "4"),
            year(w(i + 1)),
        ) {
            let qn: u32 = q[1..].parse().unwrap_or(1);
            let start = Date::new((y, qn * 3 - 2, 1));
            out.push(range(start, start.month_start(3), &format!("Q{qn} {y}")));
            i += 2;
        } else if let (Some(m), Some(y)) = (MONTHS.iter().position(|m| *m == q), year(w(i + 1))) {
            let start = Date::new((y, m as u32 + 1, 1));
            out.push(range(start, start.month_start(1), &t[i..i + 2].join(" ")));
            i += 2;
        } else if let Some(y) = year(q) {
            let start = Date::new((y, 1, 1));
            out.push(range(start, Date::new((y + 1, 1, 1)), &y.to_string()));
            i += 1;
        } else {
            i += 1;
        }
    }
    out
}

fn unit_start(d: Date, g: Grain) -> Date {
    match g {
        Grain::Day => d,
        Grain::Week => d.week_start(),
        Grain::Month => d.month_start(0),
        Grain::Quarter => d.quarter_start(),
        Grain::Year => Date::new((d.y, 1, 1)),
    }
}

fn shift(d: Date, g: Grain, n: i32) -> Date {
    match g {
        Grain::Day => d.add_days(i64::from(n)),
        Grain::Week => d.add_days(7 * i64::from(n)),
        Grain::Month => d.month_start(n),
        Grain::Quarter => d.month_start(3 * n),
        Grain::Year => Date::new((d.y + n, 1, 1)),
    }
}

fn year(w: &str) -> Option<i32> {
    w.parse().ok().filter(|y| (1900..=2200).contains(y))
}

/// What a time phrase at one word sets.
enum Found {
    /// A date range.
    Range(Range),
    /// "the quarter before": a range, and the grain to step back by in a thread.
    Before(Range, Grain),
    /// "all time".
    AllTime,
}

/// Finds time words in `t` (marking them in `used`), relative to `today`.
pub fn parse(t: &[String], used: &mut [bool], today: Date) -> TimeWords {
    let mut out = TimeWords::default();
    let mut i = 0;
    while i < t.len() {
        if used[i] {
            i += 1; // a comparison's number ("over $2,024") is no period
            continue;
        }
        let Some((found, take)) = ranges::bounded(t, i, today)
            .or_else(|| relative(t, i, today))
            .or_else(|| ranges::explicit(t, i).map(|(r, n)| (Found::Range(r), n)))
            .or_else(|| named(t, i, today))
        else {
            i += 1;
            continue;
        };
        match found {
            Found::Range(r) => {
                out.labels.push(r.label.clone());
                out.range = Some(r);
            }
            Found::Before(r, g) => {
                out.labels.push(r.label.clone());
                out.range = Some(r);
                out.before = Some(g);
            }
            Found::AllTime => out.all_time = true,
        }
        used[i..(i + take).min(t.len())]
            .iter_mut()
            .for_each(|u| *u = true);
        i += take;
    }
    grain(t, used, &mut out);
    out
}

/// A grain word at `k` ("month", "weeks"; "day" but not "daily" or "date").
fn grain_at(t: &[String], k: usize) -> Option<Grain> {
    let w = t.get(k).map_or("", String::as_str);
    Grain::parse(w).filter(|g| *g != Grain::Day || w == "day")
}

/// Periods relative to today at word `i`: "ytd", "year to date", "yesterday", "today", "the
/// month before", "all time", "last 6 months", "past year", "this quarter"; with the words taken.
fn relative(t: &[String], i: usize, today: Date) -> Option<(Found, usize)> {
    let tomorrow = today.add_days(1);
    let w = |k: usize| t.get(k).map_or("", String::as_str);
    let year_to_date = || range(Date::new((today.y, 1, 1)), tomorrow, "this year to date");
    Some(match w(i) {
        "ytd" => (Found::Range(year_to_date()), 1),
        "year" if w(i + 1) == "to" && w(i + 2) == "date" => (Found::Range(year_to_date()), 3),
        "yesterday" => (
            Found::Range(range(today.add_days(-1), today, "yesterday")),
            1,
        ),
        "today" => (Found::Range(range(today, tomorrow, "today")), 1),
        _ if grain_at(t, i).is_some() && w(i + 1) == "before" => {
            let g = Grain::parse(w(i)).unwrap_or(Grain::Month);
            let cur = unit_start(today, g);
            let r = range(
                shift(cur, g, -1),
                cur,
                &format!("the {} before", g.as_str()),
            );
            (Found::Before(r, g), 2)
        }
        "all" if w(i + 1) == "time" => (Found::AllTime, 2),
        "last" | "past" | "previous" | "prior" | "trailing" => {
            let n = number_word(w(i + 1));
            let unit = if n.is_some() { i + 2 } else { i + 1 };
            let g = grain_at(t, unit)?;
            let cur = unit_start(today, g);
            let words = t[i..=unit].join(" ");
            let r = match (n, g) {
                (Some(n), Grain::Day) => range(today.add_days(1 - i64::from(n)), tomorrow, &words),
                (Some(n), _) => range(shift(cur, g, -(n.min(500) as i32)), cur, &words),
                (None, _) => range(shift(cur, g, -1), cur, &words),
            };
            (Found::Range(r), unit + 1 - i)
        }
        "this" | "current" => {
            let g = grain_at(t, i + 1)?;
            let r = range(
                unit_start(today, g),
                tomorrow,
                &format!("this {} to date", g.as_str()),
            );
            (Found::Range(r), 2)
        }
        _ => return None,
    })
}

/// A quarter's number from its ordinal: "third" and "3rd" are 3.
fn ordinal(w: &str) -> Option<u32> {
    Some(match w {
        "first" | "1st" => 1,
        "second" | "2nd" => 2,
        "third" | "3rd" => 3,
        "fourth" | "4th" | "last" => return (w != "last").then_some(4),
        _ => return None,
    })
}

/// Named periods at word `i`: "since March", "from 2023 to 2024", "Q3 2024", "Q3" (the latest
/// not after today), "March 2024", "in May", "2024"; with the words taken.
fn named(t: &[String], i: usize, today: Date) -> Option<(Found, usize)> {
    let w = |k: usize| t.get(k).map_or("", String::as_str);
    Some(match w(i) {
        "since" | "from" if year(w(i + 1)).is_some() || MONTHS.contains(&w(i + 1)) => {
            let (start, n) = month_or_year(t, i + 1, today);
            let end = if matches!(w(i + n + 1), "to" | "until" | "through" | "and") {
                year(w(i + n + 2)).map(|y| Date::new((y + 1, 1, 1)))
            } else {
                None
            };
            let taken = if end.is_some() { n + 3 } else { n + 1 };
            let end = end.unwrap_or(today.add_days(1)).max(start);
            let r = range(start, end, &t[i..i + taken].join(" "));
            (Found::Range(r), taken)
        }
        // "the third quarter of 2024", "2nd quarter 2025": Q3 2024, Q2 2025.
        o if w(i + 1) == "quarter" && ordinal(o).is_some() => {
            let qn = ordinal(o).unwrap_or(1);
            let (y, take) = match (w(i + 2), w(i + 3)) {
                ("of" | "in", y) if year(y).is_some() => (year(y), 4),
                (y, _) if year(y).is_some() => (year(y), 3),
                _ => (None, 2),
            };
            let mut start = Date::new((y.unwrap_or(today.y), qn * 3 - 2, 1));
            if y.is_none() && start > today {
                start = Date::new((today.y - 1, qn * 3 - 2, 1));
            }
            let label = format!("Q{qn} {}", start.y);
            let r = range(start, start.month_start(3), &label);
            (Found::Range(r), take)
        }
        q if q.len() == 2 && q.starts_with('q') && matches!(&q[1..], "1" | "2" | "3" | "4") => {
            let qn: u32 = q[1..].parse().unwrap_or(1);
            // "Q3 2024", and "Q3 of 2024".
            let of = usize::from(matches!(w(i + 1), "of" | "in") && year(w(i + 2)).is_some());
            let y = year(w(i + 1 + of));
            let mut start = Date::new((y.unwrap_or(today.y), qn * 3 - 2, 1));
            if y.is_none() && start > today {
                start = Date::new((today.y - 1, qn * 3 - 2, 1));
            }
            let take = 1 + usize::from(y.is_some()) + of;
            let r = range(start, start.month_start(3), &t[i..i + take].join(" "));
            (Found::Range(r), take)
        }
        m if MONTHS.contains(&m)
            && (m != "may" || year(w(i + 1)).is_some() || w(i.wrapping_sub(1)) == "in") =>
        {
            let (start, n) = month_or_year(t, i, today);
            let r = range(start, start.month_start(1), &t[i..i + n].join(" "));
            (Found::Range(r), n)
        }
        y => {
            let y = year(y)?;
            let start = Date::new((y, 1, 1));
            let r = range(start, Date::new((y + 1, 1, 1)), &format!("in {y}"));
            (Found::Range(r), 1)
        }
    })
}

/// "march 2024" / "march" (the latest March not after today) / "2024": start and tokens taken.
fn month_or_year(t: &[String], i: usize, today: Date) -> (Date, usize) {
    let w = |k: usize| t.get(k).map_or("", String::as_str);
    if let Some(m) = MONTHS.iter().position(|n| *n == w(i)) {
        let m = m as u32 + 1;
        return match year(w(i + 1)) {
            Some(y) => (Date::new((y, m, 1)), 2),
            None if m > today.m => (Date::new((today.y - 1, m, 1)), 1),
            None => (Date::new((today.y, m, 1)), 1),
        };
    }
    (Date::new((year(w(i)).unwrap_or(today.y), 1, 1)), 1)
}

/// Grain words: "by month", "per week", "each quarter", "monthly", "month by month", "trend".
fn grain(t: &[String], used: &mut [bool], out: &mut TimeWords) {
    for i in 0..t.len() {
        if used[i] {
            continue;
        }
        let w = t[i].as_str();
        let cue = i > 0
            && matches!(
                t[i - 1].as_str(),
                "by" | "per" | "each" | "every" | "over" | "a" | "of"
            );
        let g = match Grain::parse(w) {
            Some(g)
                if w.ends_with("ly")
                    || w == "annual"
                    || cue
                    || t.get(i + 1).is_some_and(|n| n == "over" || n == "by") =>
            {
                Some(g)
            }
            _ => None,
        };
        if let Some(g) = g {
            out.grain = Some(g);
            used[i] = true;
            if cue {
                used[i - 1] = true;
            }
        } else if (w == "trend" || (w == "time" && i > 0 && t[i - 1] == "over"))
            && out.grain.is_none()
        {
            used[i] = true;
            out.grain = Some(Grain::Month);
        }
    }
    if out.grain == Some(Grain::Day)
        && t.iter().any(|w| w == "date")
        && !t.iter().any(|w| w == "daily" || w == "day")
    {
        // "by order date" names the time dimension, not a daily grain; months read better.
        out.grain = Some(Grain::Month);
    }
}

/// The month of `d` as "May 2025", for answers about time series.
pub fn month_label(d: Date) -> String {
    format!("{} {}", month_name(d.m), d.y)
}

#[cfg(test)]
mod label_tests {
    use super::*;

    fn label(question: &str) -> String {
        let t: Vec<String> = question.split(' ').map(str::to_owned).collect();
        let mut used = vec![false; t.len()];
        parse(&t, &mut used, Date::new((2025, 6, 15)))
            .range
            .expect("a period")
            .label
    }

    #[test]
    fn a_period_named_in_other_letters_is_said_once() {
        assert_eq!(label("q3 2025"), "Q3 2025");
    }
}
