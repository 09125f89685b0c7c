//! The final answer's text, citing numbers from the result: one number, a trend, a ranking
//! (here); growth between periods, thresholds per group, and the chart spec (in the rooms
//! below).

use super::catalog::{Kind, ViewCat};
use super::dates::parse_iso;
use super::model::{Format, MeasureKind};
use super::planner::QueryPlan;
use super::sqlgen::{Column, Role};
use super::timeparse::{Grain, month_label};
use super::warehouse::{Cell, QueryResult};

mod chart;
mod growth;
mod share;
mod thresholds;

pub use chart::vega;
pub use growth::growth;
pub use share::part_of_whole;
pub use thresholds::{compared_words, thresholds};

/// Groups digits in threes: 1234567 -> "1,234,567".
fn group(int: u128) -> String {
    let s = int.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number as answers write it: "$1,234.50" for money, "12.5%" for percentages, "1,234" or
/// "1,234.57" otherwise.
pub fn format_value(v: f64, format: Format) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let a = v.abs();
    let fixed = |x: f64, decimals: usize| {
        let s = format!("{x:.decimals$}");
        let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
        let int = group(int.parse().unwrap_or(0));
        if frac.is_empty() {
            int
        } else {
            format!("{int}.{frac}")
        }
    };
    match format {
        Format::Currency => format!("{sign}${}", fixed(a, 2)),
        Format::Percent => format!("{sign}{}%", fixed(a * 100.0, 1)),
        Format::Number if a.fract() == 0.0 && a < 1e18 => format!("{sign}{}", fixed(a, 0)),
        Format::Number => format!("{sign}{}", fixed(a, 2)),
    }
}

/// A time bucket as words: "May 2025", "Q2 2025", "2024", "the week of 2025-05-05".
pub fn period(text: &str, g: Grain) -> String {
    let Some(d) = parse_iso(text) else {
        return text.to_string();
    };
    match g {
        Grain::Day => d.to_string(),
        Grain::Week => format!("the week of {d}"),
        Grain::Month => month_label(d),
        Grain::Quarter => format!("Q{} {}", (d.m - 1) / 3 + 1, d.y),
        Grain::Year => d.y.to_string(),
    }
}

/// Whether the measure is an amount with a total (a sum or a count), so a share of it means
/// something; averages and ratios have an overall value instead.
fn additive(plan: &QueryPlan, view: &ViewCat) -> bool {
    plan.measures.first().is_some_and(|m| {
        matches!(
            view.members[*m].kind,
            Kind::Measure(
                MeasureKind::Sum | MeasureKind::Count | MeasureKind::CountDistinct,
                _
            )
        )
    })
}

/// A change from `x` to `y`: "+$1,234.00, +12.5%" (no percentage from zero).
fn change(x: f64, y: f64, f: Format) -> String {
    let d = y - x;
    let sign = if d >= 0.0 { "+" } else { "-" };
    let pct = if x != 0.0 {
        format!(
            ", {}{:.1}%",
            if d >= 0.0 { "+" } else { "" },
            d / x.abs() * 100.0
        )
    } else {
        String::new()
    };
    format!("{sign}{}{pct}", format_value(d.abs(), f))
}

/// Everything the answer needs about the question, in words.
pub struct Scope {
    /// e.g. " for Germany with order total over $100" (leading space) or "".
    pub filters: String,
    /// e.g. " in 2024" or "".
    pub range: String,
    /// Thresholds per group, e.g. "more than 5 orders", or "".
    pub having: String,
}

/// The answer text for a result: one number, a trend over time, or a ranking of groups (with
/// the whole from its own query, `total`), then the caveats.
pub fn write(
    plan: &QueryPlan,
    view: &ViewCat,
    cols: &[Column],
    r: &QueryResult,
    total: Option<&QueryResult>,
    scope: &Scope,
) -> String {
    let measures: Vec<(usize, &Column)> = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.role, Role::Measure(_)))
        .collect();
    let Some(&(mi, mc)) = measures.first() else {
        return "The query returned no measures.".into();
    };
    let rows: Vec<&Vec<Cell>> = r.rows.iter().filter(|row| num(row, mi).is_some()).collect();
    if rows.is_empty() {
        return format!(
            "I found no data for {}{}{}. Nothing matched the question's filters (or your access rights).",
            mc.title.to_lowercase(),
            scope.filters,
            scope.range
        );
    }
    let time = cols.iter().position(|c| matches!(c.role, Role::Time(_)));
    let dims: Vec<usize> = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.role == Role::Dimension)
        .map(|(i, _)| i)
        .collect();
    let shape = Shape {
        plan,
        cols,
        scope,
        what: format!("{}{}{}", mc.title, scope.filters, scope.range),
        f: fmt_of(mc),
        measures,
        mi,
        rows,
        // The whole's value comes from its own query (see the agent), never from adding rows up.
        whole: total
            .and_then(|t| t.rows.first())
            .and_then(|row| row.first())
            .and_then(Cell::as_f64),
        additive: additive(plan, view),
    };
    let mut out = match (time, dims.is_empty()) {
        (None, true) => shape.single(),
        // "Best month ever": the periods ranked, not a trend read in the ranking's order.
        (Some(ti), true) if plan.descending.is_some() && plan.limit.is_some() => {
            match shape.top_periods(ti) {
                Some(text) => text,
                None => return String::new(),
            }
        }
        (Some(ti), true) => match shape.trend(ti) {
            Some(text) => text,
            None => return String::new(),
        },
        (_, false) => shape.ranking(time, &dims),
    };
    if r.total_rows > 100 {
        out.push_str(&format!(
            " The result has {} rows; the table shows the first 100.",
            r.total_rows
        ));
    }
    for n in &plan.notes {
        out.push_str(&format!(" Note: {n}."));
    }
    out
}

/// A measure column's format (plain numbers for anything else).
fn fmt_of(c: &Column) -> Format {
    if let Role::Measure(f) = c.role {
        f
    } else {
        Format::Number
    }
}

/// A cell as a number, if it is one.
fn num(row: &[Cell], i: usize) -> Option<f64> {
    row.get(i).and_then(Cell::as_f64)
}

/// A result as [`write`] reads it: the first measure's column, its rows, the whole.
struct Shape<'a> {
    plan: &'a QueryPlan,
    cols: &'a [Column],
    scope: &'a Scope,
    /// "Revenue for Germany, in 2024".
    what: String,
    /// The first measure's format.
    f: Format,
    measures: Vec<(usize, &'a Column)>,
    /// The first measure's column.
    mi: usize,
    /// Rows with a value of the first measure.
    rows: Vec<&'a Vec<Cell>>,
    /// The whole, from the total query.
    whole: Option<f64>,
    /// Whether the first measure adds up (a sum or count), so the whole is a total.
    additive: bool,
}

impl Shape<'_> {
    /// One number (and the other measures of the same row).
    fn single(&self) -> String {
        let (row, mi, f) = (self.rows[0], self.mi, self.f);
        // "Orders for Germany, in 2024: 4,806" (a colon, not "was": titles are often plural).
        let mut out = format!(
            "{}: {}",
            self.what,
            format_value(num(row, mi).unwrap_or(0.0), f)
        );
        for (i, c) in &self.measures[1..] {
            if let Some(v) = num(row, *i) {
                out.push_str(&format!(
                    "; {}: {}",
                    c.title.to_lowercase(),
                    format_value(v, fmt_of(c))
                ));
            }
        }
        out.push('.');
        out
    }

    /// Periods ranked by the first measure, as the query ordered them ("best month ever"): the
    /// leader and the next ones. `None` if column `ti` is no time bucket.
    fn top_periods(&self, ti: usize) -> Option<String> {
        let Role::Time(g) = self.cols[ti].role else {
            return None;
        };
        let (mi, f) = (self.mi, self.f);
        let at = |row: &[Cell]| period(&row[ti].text().unwrap_or_default(), g);
        let value = |row: &[Cell]| format_value(num(row, mi).unwrap_or(0.0), f);
        let top = self.rows[0];
        let mut out = format!(
            "{} by {}{}{}: the {} was {}, with {}{}.",
            self.cols[mi].title,
            g.as_str(),
            self.scope.filters,
            self.scope.range,
            if self.plan.descending == Some(false) {
                "lowest"
            } else {
                "highest"
            },
            at(top),
            value(top),
            self.others(top)
        );
        let rest: Vec<String> = self.rows[1..]
            .iter()
            .take(4)
            .map(|row| format!("{} ({})", at(row), value(row)))
            .collect();
        if !rest.is_empty() {
            out.push_str(&format!(" Next: {}.", rest.join(", ")));
        }
        Some(out)
    }

    /// A series over time: its span, the whole, first to last (with the change), the peak.
    /// `None` if column `ti` is no time bucket.
    fn trend(&self, ti: usize) -> Option<String> {
        let Role::Time(g) = self.cols[ti].role else {
            return None;
        };
        let (rows, mi, f) = (&self.rows, self.mi, self.f);
        let at = |row: &[Cell]| period(&row[ti].text().unwrap_or_default(), g);
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        let (a, b) = (num(first, mi).unwrap_or(0.0), num(last, mi).unwrap_or(0.0));
        let mut out = format!(
            "{}, by {}: {} {}s from {} to {}",
            self.what,
            g.as_str(),
            rows.len(),
            g.as_str(),
            at(first),
            at(last)
        );
        match (self.whole, self.additive) {
            (Some(t), true) => out.push_str(&format!(", {} in total", format_value(t, f))),
            (Some(t), false) => out.push_str(&format!(", {} overall", format_value(t, f))),
            _ => {}
        }
        out.push_str(&format!(
            ". It went from {} in {} to {} in {}",
            format_value(a, f),
            at(first),
            format_value(b, f),
            at(last)
        ));
        if a != 0.0 && rows.len() > 1 {
            let pct = (b - a) / a.abs() * 100.0;
            out.push_str(&format!(
                " ({}{:.1}%)",
                if pct >= 0.0 { "+" } else { "" },
                pct
            ));
        }
        let peak = rows.iter().max_by(|x, y| {
            num(x, mi)
                .partial_cmp(&num(y, mi))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        if let (Some(p), true) = (peak, rows.len() > 2) {
            out.push_str(&format!(
                ". The highest was {} in {}",
                format_value(num(p, mi).unwrap_or(0.0), f),
                at(p)
            ));
        }
        out.push('.');
        Some(out)
    }

    /// Groups ranked by the first measure: the leader (ties named), its share of the whole
    /// (or the whole, for averages and ratios), and the next four.
    fn ranking(&self, time: Option<usize>, dims: &[usize]) -> String {
        let (cols, mi, f) = (self.cols, self.mi, self.f);
        let label = |row: &[Cell]| {
            dims.iter()
                .map(|&i| row[i].text().unwrap_or_else(|| "(none)".into()))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let desc = self.plan.descending.unwrap_or(true);
        let mut ranked = self.rows.clone();
        ranked.sort_by(|x, y| {
            let o = num(y, mi)
                .partial_cmp(&num(x, mi))
                .unwrap_or(std::cmp::Ordering::Equal);
            if desc { o } else { o.reverse() }
        });
        let top = ranked[0];
        let when = time
            .map(|ti| {
                if let Role::Time(g) = cols[ti].role {
                    format!(" in {}", period(&top[ti].text().unwrap_or_default(), g))
                } else {
                    String::new()
                }
            })
            .unwrap_or_default();
        let dim_title = dims
            .iter()
            .map(|&i| cols[i].title.to_lowercase())
            .collect::<Vec<_>>()
            .join(" and ");
        let top_value = num(top, mi);
        let tied: Vec<String> = ranked
            .iter()
            .filter(|row| num(row, mi) == top_value)
            .map(|row| label(row))
            .collect();
        let (who, verb) = if tied.len() > 1 {
            (format!("{} (a tie)", tied.join(" and ")), "share")
        } else {
            (label(top), "had")
        };
        // The scope once, after the grouping ("Revenue by category excluding Books, in 2024:
        // ..."); the total below is over the same scope, so it is not said again.
        let mut out = format!(
            "{} by {dim_title}{}{}: {who}{when} {verb} the {} {}, {}{}",
            cols[mi].title,
            self.scope.filters,
            self.scope.range,
            if desc { "highest" } else { "lowest" },
            cols[mi].title.to_lowercase(),
            format_value(top_value.unwrap_or(0.0), f),
            self.others(top)
        );
        match (self.whole, self.additive) {
            (Some(t), true) if t != 0.0 && time.is_none() => {
                let pct = top_value.unwrap_or(0.0) / t * 100.0;
                out.push_str(&format!(
                    ", {} of the {} total",
                    share(pct),
                    format_value(t, f)
                ));
            }
            (Some(t), false) => {
                out.push_str(&format!(", against {} overall", format_value(t, f)));
            }
            _ => {}
        }
        out.push('.');
        // The tied leaders are named once; then as many as a "top N" asked for (five by
        // default, at most twenty).
        let shown = tied.len().max(1);
        let want = self.plan.limit.map_or(5, |n| (n as usize).clamp(1, 20));
        let rest: Vec<String> = ranked
            .iter()
            .skip(shown)
            .take(want.saturating_sub(shown))
            .map(|row| {
                format!(
                    "{} ({})",
                    label(row),
                    format_value(num(row, mi).unwrap_or(0.0), f)
                )
            })
            .collect();
        if !rest.is_empty() {
            out.push_str(&format!(" Next: {}.", rest.join(", ")));
        }
        if let Some(n) = self.plan.limit
            && (ranked.len() as u64) < u64::from(n)
            && self.plan.having.is_empty()
        {
            out.push_str(&format!(
                " Only {} {dim_title} values have data here, fewer than the {n} asked for.",
                ranked.len()
            ));
        }
        out
    }

    /// The other measures of a row: " (units sold 1,234, orders 56)".
    fn others(&self, row: &[Cell]) -> String {
        let extra: Vec<String> = self.measures[1..]
            .iter()
            .filter_map(|(i, c)| {
                Some(format!(
                    "{} {}",
                    c.title.to_lowercase(),
                    format_value(num(row, *i)?, fmt_of(c))
                ))
            })
            .collect();
        if extra.is_empty() {
            String::new()
        } else {
            format!(" ({})", extra.join(", "))
        }
    }
}

/// A share of a total, to one decimal unless that would hide it: a share that is there is
/// never `0.0%`, nor one short of the whole `100.0%`; those get the decimals that show two
/// significant digits of it (0.0427 -> `0.043%`, 99.9613 -> `99.961%`), so the number stated is
/// still the share, rounded.
fn share(pct: f64) -> String {
    let shown = format!("{pct:.1}%");
    let gap = if pct > 0.0 && shown == "0.0%" {
        pct
    } else if pct < 100.0 && shown == "100.0%" {
        100.0 - pct
    } else {
        return shown;
    };
    let decimals = ((-gap.log10()).ceil() as usize + 1).min(8);
    format!("{pct:.decimals$}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(format_value(1234567.891, Format::Currency), "$1,234,567.89");
        assert_eq!(format_value(-12.5, Format::Number), "-12.50");
        assert_eq!(format_value(1000.0, Format::Number), "1,000");
        assert_eq!(format_value(0.125, Format::Percent), "12.5%");
        assert_eq!(period("2025-04-01", Grain::Quarter), "Q2 2025");
    }

    #[test]
    fn a_share_is_never_rounded_away() {
        assert_eq!(share(25.93), "25.9%");
        assert_eq!(share(0.0427), "0.043%");
        assert_eq!(share(0.05), "0.1%");
        assert_eq!(share(0.0), "0.0%");
        assert_eq!(share(99.9613), "99.961%");
        assert_eq!(share(100.0), "100.0%");
        assert_eq!(share(0.00012), "0.00012%");
    }

    fn col(name: &str, role: Role) -> Column {
        Column {
            name: name.into(),
            title: name.into(),
            role,
            sql_type: "string",
        }
    }

    #[test]
    fn the_mark_suits_the_question() {
        let mark = |cols: &[Column], q: &str| vega(cols, "t", q)["mark"]["type"].clone();
        let cat = col("categories_name", Role::Dimension);
        let rev = col("revenue", Role::Measure(Format::Currency));
        let units = col("units", Role::Measure(Format::Number));
        assert_eq!(
            mark(&[cat.clone(), rev.clone()], "revenue by category"),
            "bar"
        );
        assert_eq!(
            mark(&[cat.clone(), rev.clone()], "share of revenue by category"),
            "arc"
        );
        assert_eq!(
            mark(
                &[cat.clone(), rev.clone(), units],
                "revenue and units by category"
            ),
            "point"
        );
        let month = col("orders_created_at_month", Role::Time(Grain::Month));
        assert_eq!(mark(&[month, rev.clone()], "revenue by month"), "line");
        assert_eq!(mark(&[rev], "total revenue"), "text");
        let arc = vega(
            &[cat, col("revenue", Role::Measure(Format::Currency))],
            "t",
            "revenue split by category",
        );
        assert_eq!(arc["encoding"]["theta"]["field"], "revenue");
        assert_eq!(arc["encoding"]["color"]["field"], "categories_name");
    }
}
