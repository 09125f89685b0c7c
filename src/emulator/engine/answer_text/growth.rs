//! Growth and change between two periods, per group, in words.

use super::{Scope, change, fmt_of, format_value, period};
use crate::emulator::engine::planner::QueryPlan;
use crate::emulator::engine::sqlgen::{Column, Role};
use crate::emulator::engine::warehouse::{Cell, QueryResult};

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
    rank(plan, &mut groups);
    let (k, x, y) = &groups[0];
    let dim_title: Vec<String> = cols[1..mi].iter().map(|c| c.title.to_lowercase()).collect();
    let lead = lead(plan, k, *x, *y, &dim_title.join(" and "));
    let mut out = format!(
        "{title}{} by {}, {la} to {lb}: {lead} ({}), from {} to {}.",
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

/// Biggest growth first (or biggest decline), by amount or by rate ("grew fastest"; a group
/// from nothing has no rate and comes last), ties by name.
fn rank(plan: &QueryPlan, groups: &mut [(String, f64, f64)]) {
    let by = |p: &(String, f64, f64)| match (plan.by_rate, p.1 != 0.0) {
        (false, _) => p.2 - p.1,
        (true, true) => (p.2 - p.1) / p.1.abs(),
        (true, false) if plan.decline => f64::INFINITY,
        (true, false) => f64::NEG_INFINITY,
    };
    groups.sort_by(|p, q| {
        let o = by(q)
            .partial_cmp(&by(p))
            .unwrap_or(std::cmp::Ordering::Equal);
        let o = if plan.decline { o.reverse() } else { o };
        o.then_with(|| p.0.cmp(&q.0))
    });
}

/// What the first-ranked group `k` (from `x` to `y`) did, over the groups named `dims`.
/// "Which category declined most?" when every one grew: "the biggest decline (+15.6%)" would
/// answer another question; say none did, and which came closest.
fn lead(plan: &QueryPlan, k: &str, x: f64, y: f64, dims: &str) -> String {
    let none = if plan.decline { y >= x } else { y <= x };
    match (none, plan.decline) {
        (true, true) => format!("no {dims} declined; {k} had the smallest growth"),
        (true, false) => format!("no {dims} grew; {k} had the smallest decline"),
        (false, _) => {
            let most = if plan.decline { "decline" } else { "growth" };
            let how = if plan.by_rate { "fastest" } else { "biggest" };
            format!("{k} had the {how} {most}")
        }
    }
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
