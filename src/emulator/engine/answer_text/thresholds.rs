//! Numeric conditions in words ("order total over $100", "more than 5 orders") and the answer
//! to a threshold per group: how many groups pass, the largest, a total over them.

use super::{Scope, fmt_of, format_value, period};
use crate::emulator::engine::catalog::{Kind, Member, ViewCat};
use crate::emulator::engine::comparisons::amount_rank;
use crate::emulator::engine::model::{Format, MeasureKind};
use crate::emulator::engine::planner::{Condition, QueryPlan};
use crate::emulator::engine::sqlgen::{Column, Role};
use crate::emulator::engine::warehouse::{Cell, QueryResult};

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
