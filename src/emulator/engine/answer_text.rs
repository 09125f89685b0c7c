//! The final answer's text, citing numbers from the result, and the chart spec (Vega-Lite v5,
//! without data: the client joins it with the SQL tool's rows).

use serde_json::{Value, json};

use super::catalog::{Kind, Member, ViewCat};
use super::comparisons::amount_rank;
use super::dates::parse_iso;
use super::model::{Format, MeasureKind};
use super::planner::{Condition, QueryPlan};
use super::sqlgen::{Column, Role};
use super::timeparse::{Grain, month_label};
use super::warehouse::{Cell, QueryResult};

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

/// Growth and change between the two periods of `plan.compare`, per group: the rows are
/// (period, groups..., measure); the difference and percentage are computed from them.
pub fn growth(
    plan: &QueryPlan,
    cols: &[Column],
    r: &QueryResult,
    total: Option<&QueryResult>,
    scope: &Scope,
) -> String {
    let Some((a, b, g)) = &plan.compare else {
        return String::new();
    };
    let Some(mi) = cols.iter().position(|c| matches!(c.role, Role::Measure(_))) else {
        return "The query returned no measures.".into();
    };
    let f = fmt_of(&cols[mi]);
    let title = cols[mi].title.clone();
    let (la, lb) = (
        period(&a.start.to_string(), *g),
        period(&b.start.to_string(), *g),
    );
    let a_start = a.start.to_string();
    let mut groups = by_period(r, mi, &a_start);
    let change = |x: f64, y: f64| change(x, y, f);
    if groups.is_empty() {
        return format!(
            "I found no data for {}{} in {la} or {lb}.",
            title.to_lowercase(),
            scope.filters
        );
    }
    if mi == 1 {
        let (_, x, y) = &groups[0];
        return format!(
            "{title}{} went from {} in {la} to {} in {lb} ({}).",
            scope.filters,
            format_value(*x, f),
            format_value(*y, f),
            change(*x, *y)
        );
    }
    // Biggest growth first (or biggest decline), ties by name.
    groups.sort_by(|p, q| {
        let o = (q.2 - q.1)
            .partial_cmp(&(p.2 - p.1))
            .unwrap_or(std::cmp::Ordering::Equal);
        let o = if plan.decline { o.reverse() } else { o };
        o.then_with(|| p.0.cmp(&q.0))
    });
    let (k, x, y) = &groups[0];
    let dim_title: Vec<String> = cols[1..mi].iter().map(|c| c.title.to_lowercase()).collect();
    let most = if plan.decline { "decline" } else { "growth" };
    let mut out = format!(
        "{title}{} by {}, {la} to {lb}: {k} had the biggest {most} ({}), from {} to {}.",
        scope.filters,
        dim_title.join(" and "),
        change(*x, *y),
        format_value(*x, f),
        format_value(*y, f)
    );
    let rest: Vec<String> = groups
        .iter()
        .skip(1)
        .take(4)
        .map(|(k, x, y)| format!("{k} ({})", change(*x, *y)))
        .collect();
    if !rest.is_empty() {
        out.push_str(&format!(" Next: {}.", rest.join(", ")));
    }
    if let Some(t) = total {
        let (tx, ty) = (
            period_value(t, &a_start),
            period_value(t, &b.start.to_string()),
        );
        out.push_str(&format!(
            " Overall, {} went from {} to {} ({}).",
            title.to_lowercase(),
            format_value(tx, f),
            format_value(ty, f),
            change(tx, ty)
        ));
    }
    out
}

/// The rows of a comparison (period, groups..., measure at `mi`) as (group, earlier value,
/// later value), groups in the order they first appear; the earlier period starts `a_start`.
fn by_period(r: &QueryResult, mi: usize, a_start: &str) -> Vec<(String, f64, f64)> {
    let mut groups: Vec<(String, f64, f64)> = Vec::new();
    for row in &r.rows {
        let k = (1..mi)
            .map(|i| row[i].text().unwrap_or_else(|| "(none)".into()))
            .collect::<Vec<_>>()
            .join(" / ");
        let v = row.get(mi).and_then(Cell::as_f64).unwrap_or(0.0);
        let early = row[0].text().is_some_and(|p| p.starts_with(a_start));
        let slot = match groups.iter().position(|(x, _, _)| *x == k) {
            Some(i) => i,
            None => {
                groups.push((k, 0.0, 0.0));
                groups.len() - 1
            }
        };
        if early {
            groups[slot].1 += v;
        } else {
            groups[slot].2 += v;
        }
    }
    groups
}

/// The value of the period starting `start` in a comparison's total (period, measure).
fn period_value(t: &QueryResult, start: &str) -> f64 {
    t.rows
        .iter()
        .find(|row| row[0].text().is_some_and(|x| x.starts_with(start)))
        .and_then(|row| row.get(1).and_then(Cell::as_f64))
        .unwrap_or(0.0)
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

/// Whether a member holds money: a currency measure, or a dimension named as an amount.
fn money_member(m: &Member) -> bool {
    match m.kind {
        Kind::Measure(_, f) => f == Format::Currency,
        Kind::Dimension(_) => amount_rank(m).is_some(),
    }
}

/// A condition's number: "$100", "$19.99", "5", "2.50".
fn bound(v: f64, money: bool) -> String {
    let s = format_value(
        v,
        if money {
            Format::Currency
        } else {
            Format::Number
        },
    );
    s.strip_suffix(".00")
        .map_or_else(|| s.clone(), str::to_string)
}

/// Numeric conditions on one member in words: "order total over $100", "revenue between $50
/// and $100", and for counts "more than 5 orders".
pub fn condition_words(m: &Member, bounds: &[(&'static str, f64)]) -> String {
    let money = money_member(m);
    let counted = m.is_measure() && !money;
    let op = |o: &str| match (o, counted) {
        (">", true) => "more than",
        (">", false) => "over",
        (">=", _) => "at least",
        ("<", true) => "fewer than",
        ("<", false) => "under",
        ("<=", _) => "at most",
        _ => "",
    };
    let range = match bounds {
        [(">=", a), ("<=", b)] => format!("between {} and {}", bound(*a, money), bound(*b, money)),
        _ => bounds
            .iter()
            .map(|(o, v)| format!("{} {}", op(o), bound(*v, money)))
            .collect::<Vec<_>>()
            .join(" and "),
    };
    if counted {
        format!("{range} {}", counted_noun(&m.title))
    } else {
        format!("{} {range}", m.title.to_lowercase())
    }
}

/// What a count counts, after a number: "orders" (also for an inferred model's "Orders count").
fn counted_noun(title: &str) -> String {
    let t = title.to_lowercase();
    t.strip_suffix(" count").unwrap_or(&t).to_string()
}

/// The numeric conditions of a list, grouped by member in order, in words.
pub fn compared_words(view: &ViewCat, list: &[(usize, Condition)]) -> Vec<String> {
    let mut groups: Vec<(usize, Vec<(&'static str, f64)>)> = Vec::new();
    for (m, c) in list {
        let Condition::Compare(op, v) = c else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| g == m) {
            Some((_, b)) => b.push((op, *v)),
            None => groups.push((*m, vec![(op, *v)])),
        }
    }
    groups
        .iter()
        .map(|(m, b)| condition_words(&view.members[*m], b))
        .collect()
}

/// "customer" -> "customers", "category" -> "categories", "clients name" -> "clients".
fn plural(title: &str) -> String {
    let t = title.to_lowercase();
    let t = t.strip_suffix(" name").unwrap_or(&t).to_string();
    if t.ends_with('s') {
        t
    } else if t.ends_with('y') && !t.ends_with("ay") && !t.ends_with("ey") && !t.ends_with("oy") {
        format!("{}ies", &t[..t.len() - 1])
    } else if t.ends_with("ch") || t.ends_with("sh") || t.ends_with('x') {
        format!("{t}es")
    } else {
        format!("{t}s")
    }
}

/// The answer to a threshold per group ("customers with more than 5 orders in 2025"): how many
/// groups pass (the query's row count: `HAVING` keeps exactly those), the largest by the
/// threshold's measure, and for a sum asked besides, its total over all of them (a sum over
/// groups that partition the rows is the sum over those rows).
pub fn thresholds(
    plan: &QueryPlan,
    view: &ViewCat,
    cols: &[Column],
    r: &QueryResult,
    scope: &Scope,
) -> String {
    let measures: Vec<usize> = (0..cols.len())
        .filter(|&i| matches!(cols[i].role, Role::Measure(_)))
        .collect();
    let groups: Vec<usize> = (0..cols.len())
        .filter(|&i| !matches!(cols[i].role, Role::Measure(_)))
        .collect();
    let at = |m: usize| {
        plan.measures
            .iter()
            .position(|x| *x == m)
            .and_then(|p| measures.get(p).copied())
    };
    let (Some(hi), Some(&main)) = (
        plan.having.first().and_then(|(m, _)| at(*m)),
        measures.first(),
    ) else {
        return "The query returned no measures.".into();
    };
    let noun = group_noun(cols, &groups);
    let n = r.total_rows;
    let scope_words = format!("{}{}", scope.filters, scope.range);
    let mut out = if n == 0 {
        format!("No {noun} had {}{scope_words}.", scope.having)
    } else {
        let one = if n == 1 {
            noun.strip_suffix('s').unwrap_or(&noun).to_string()
        } else {
            noun.clone()
        };
        let mut out = format!(
            "{} {one} had {}{scope_words}",
            format_value(n as f64, Format::Number),
            scope.having
        );
        let summable = matches!(
            view.members[plan.measures[0]].kind,
            Kind::Measure(MeasureKind::Sum, _)
        );
        if main != hi && summable && r.rows.len() == n {
            let sum: f64 = r.rows.iter().map(|row| cell(row, main)).sum();
            out.push_str(&format!(
                "; together, their {} was {}",
                cols[main].title.to_lowercase(),
                format_value((sum * 100.0).round() / 100.0, fmt_of(&cols[main]))
            ));
        }
        let shown = plan.limit.map_or(5, |l| (l as usize).min(5));
        out.push_str(&largest(cols, r, &groups, (hi, main), shown));
        if n > 100 {
            out.push_str(&format!(
                " The table lists the first 100 of the {} rows.",
                format_value(n as f64, Format::Number)
            ));
        }
        out
    };
    for x in &plan.notes {
        out.push_str(&format!(" Note: {x}."));
    }
    out
}

/// What the groups of a threshold are: "customers", or "customer and month combinations".
fn group_noun(cols: &[Column], groups: &[usize]) -> String {
    match groups {
        [g] => plural(&cols[*g].title),
        _ => format!(
            "{} combinations",
            groups
                .iter()
                .map(|&g| cols[g].title.to_lowercase())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

/// A cell as a number (0 when empty).
fn cell(row: &[Cell], i: usize) -> f64 {
    row.get(i).and_then(Cell::as_f64).unwrap_or(0.0)
}

/// ". The largest: A (18 orders), B (17 orders)": the first `k` groups by the threshold's
/// measure `hi` (ties by label), with the main measure when it is another.
fn largest(
    cols: &[Column],
    r: &QueryResult,
    groups: &[usize],
    (hi, main): (usize, usize),
    k: usize,
) -> String {
    let label = |row: &[Cell]| {
        groups
            .iter()
            .map(|&g| match cols[g].role {
                Role::Time(gr) => period(&row[g].text().unwrap_or_default(), gr),
                _ => row[g].text().unwrap_or_else(|| "(none)".into()),
            })
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let shown = |row: &[Cell], i: usize| {
        let v = format_value(cell(row, i), fmt_of(&cols[i]));
        if fmt_of(&cols[i]) == Format::Currency {
            v
        } else {
            format!("{v} {}", counted_noun(&cols[i].title))
        }
    };
    let mut ranked: Vec<&Vec<Cell>> = r.rows.iter().collect();
    ranked.sort_by(|a, b| {
        cell(b, hi)
            .partial_cmp(&cell(a, hi))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| label(a).cmp(&label(b)))
    });
    let top: Vec<String> = ranked
        .iter()
        .take(k)
        .map(|row| {
            let mut s = format!("{} ({}", label(row), shown(row, hi));
            if main != hi {
                s.push_str(&format!(", {}", shown(row, main)));
            }
            s + ")"
        })
        .collect();
    let lead = if r.total_rows > top.len() {
        "The largest"
    } else {
        "They are"
    };
    format!(". {lead}: {}.", top.join(", "))
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
        let mut out = format!(
            "{} was {}",
            self.what,
            format_value(num(row, mi).unwrap_or(0.0), f)
        );
        for (i, c) in &self.measures[1..] {
            if let Some(v) = num(row, *i) {
                out.push_str(&format!(
                    "; {} was {}",
                    c.title.to_lowercase(),
                    format_value(v, fmt_of(c))
                ));
            }
        }
        out.push('.');
        out
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
        let mut out = format!(
            "{} by {dim_title}: {who}{when} {verb} the {} {}, {}{}",
            self.what,
            if desc { "highest" } else { "lowest" },
            cols[mi].title.to_lowercase(),
            format_value(top_value.unwrap_or(0.0), f),
            self.others(top)
        );
        match (self.whole, self.additive) {
            (Some(t), true) if t != 0.0 && time.is_none() => {
                let pct = top_value.unwrap_or(0.0) / t * 100.0;
                out.push_str(&format!(
                    ", {pct:.1}% of the {} total{}{}",
                    format_value(t, f),
                    self.scope.filters,
                    self.scope.range
                ));
            }
            (Some(t), false) => {
                out.push_str(&format!(", against {} overall", format_value(t, f)));
            }
            _ => {}
        }
        out.push('.');
        let rest: Vec<String> = ranked
            .iter()
            .skip(1)
            .take(4)
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

/// A Vega-Lite v5 spec for the result: a line over time, bars for categories, text for one number.
/// Words that ask how a whole divides into parts: the chart is an arc (a pie of shares).
const SHARE_WORDS: &[&str] = &[
    "share",
    "split",
    "proportion",
    "percentage",
    "percent",
    "distribution",
    "mix",
    "pie",
];

/// The Vega-Lite spec (without data) for a result: a line for a trend over time, an arc for a
/// share of a whole, a point chart for two measures against each other, bars to compare
/// groups, a text mark for a single number. Fields are the result's column names.
pub fn vega(cols: &[Column], title: &str, question: &str) -> Value {
    let time = cols.iter().find(|c| matches!(c.role, Role::Time(_)));
    let dim = cols.iter().find(|c| c.role == Role::Dimension);
    let mut measures = cols.iter().filter(|c| matches!(c.role, Role::Measure(_)));
    let Some(m) = measures.next() else {
        return json!({});
    };
    let second = measures.next();
    let lower = question.to_lowercase();
    let share = SHARE_WORDS.iter().any(|w| {
        lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word == *w || word.strip_suffix('s') == Some(w))
    });
    let y = json!({"field": m.name, "type": "quantitative", "title": m.title});
    let mut spec =
        json!({"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "title": title});
    let (mark, encoding) = match (time, dim, second) {
        (Some(t), d, _) => {
            let mut e =
                json!({"x": {"field": t.name, "type": "temporal", "title": t.title}, "y": y});
            if let Some(d) = d {
                e["color"] = json!({"field": d.name, "type": "nominal", "title": d.title});
            }
            (json!({"type": "line", "point": true}), e)
        }
        (None, Some(d), Some(m2)) => (
            json!({"type": "point", "filled": true}),
            json!({
                "x": {"field": m.name, "type": "quantitative", "title": m.title},
                "y": {"field": m2.name, "type": "quantitative", "title": m2.title},
                "tooltip": [{"field": d.name, "type": "nominal", "title": d.title}],
            }),
        ),
        (None, Some(d), None) if share => (
            json!({"type": "arc", "innerRadius": 50}),
            json!({
                "theta": {"field": m.name, "type": "quantitative", "title": m.title},
                "color": {"field": d.name, "type": "nominal", "title": d.title, "sort": null},
            }),
        ),
        (None, Some(d), None) => (
            json!({"type": "bar"}),
            json!({"x": {"field": d.name, "type": "nominal", "title": d.title, "sort": "-y"}, "y": y}),
        ),
        (None, None, _) => (
            json!({"type": "text", "fontSize": 32}),
            json!({"text": {"field": m.name, "type": "quantitative", "title": m.title}}),
        ),
    };
    spec["mark"] = mark;
    spec["encoding"] = encoding;
    spec
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
