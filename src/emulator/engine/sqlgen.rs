//! A plan becomes SQL in the service's dialect over the view (members as columns, measures with
//! `MEASURE(...)`, time buckets with `DATE_TRUNC`): the SQL the answer shows is the SQL that runs,
//! through the semantic layer ([`super::semantic`]), which adds joins and row-level security.

use super::catalog::ViewCat;
use super::planner::{Condition, QueryPlan};
use super::semantic::literal;

pub use super::semantic::{Column, Role};

/// An identifier as the dialect reads it: bare when it is a plain lowercase name that is not a
/// keyword, double-quoted otherwise.
pub fn ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    let upper = name.to_ascii_uppercase();
    if plain
        && sqlparser::keywords::ALL_KEYWORDS
            .binary_search(&upper.as_str())
            .is_err()
    {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The one cube every member of a plan belongs to, when it is not the view's root: such a
/// question ("customers who signed up last month") is about that cube's own rows, which the
/// view would reach only through its root (customers without orders would vanish).
pub fn single_cube<'a>(
    view: &ViewCat,
    plan: &QueryPlan,
    targets: &'a [ViewCat],
) -> Option<&'a ViewCat> {
    let used: Vec<usize> = plan
        .measures
        .iter()
        .chain(&plan.dimensions)
        .chain(plan.time.iter())
        .chain(plan.filters.iter().map(|(m, _)| m))
        .chain(plan.conditions.iter().map(|(m, _)| m))
        .chain(plan.having.iter().map(|(m, _)| m))
        .copied()
        .collect();
    let cube = &view.members[*used.first()?].cube;
    if cube == &view.root || used.iter().any(|m| &view.members[*m].cube != cube) {
        return None;
    }
    targets
        .iter()
        .find(|t| t.kind == "cube" && &t.name == cube && t.root == *cube)
}

/// The dialect SQL of a plan made over `source`, written against `target` (the same view, or
/// the single cube all its members belong to).
pub fn build_on(target: &ViewCat, source: &ViewCat, plan: &QueryPlan) -> String {
    let name = |i: usize| {
        let m = &source.members[i];
        let on = target
            .members
            .iter()
            .find(|x| x.cube == m.cube && x.member == m.member)
            .map_or(&m.name, |x| &x.name);
        ident(on)
    };
    let (select, groups) = select_list(plan, &name);
    let wheres = where_list(plan, &name);
    let mut sql = format!("SELECT {}\nFROM {}", select.join(", "), ident(&target.name));
    if !wheres.is_empty() {
        sql.push_str(&format!("\nWHERE {}", wheres.join("\n  AND ")));
    }
    if groups > 0 {
        let list: Vec<String> = (1..=groups).map(|i| i.to_string()).collect();
        sql.push_str(&format!("\nGROUP BY {}", list.join(", ")));
        let having: Vec<String> = plan
            .having
            .iter()
            .filter_map(|(m, c)| match c {
                Condition::Compare(op, n) => Some(format!("MEASURE({}) {op} {n}", name(*m))),
                _ => None,
            })
            .collect();
        if !having.is_empty() {
            sql.push_str(&format!("\nHAVING {}", having.join(" AND ")));
        }
    }
    if let Some(o) = order_by(plan, groups) {
        sql.push_str(&format!("\nORDER BY {o}"));
    }
    // A threshold's groups are all listed: how many pass is the answer (a top N is in its text).
    let compare = plan.compare.is_some() && plan.time.is_some();
    if let (Some(n), true, false, true) = (plan.limit, groups > 0, compare, plan.having.is_empty())
    {
        sql.push_str(&format!("\nLIMIT {n}"));
    }
    sql
}

/// The SELECT list: the time bucket, the dimensions, then the measures; and how many columns
/// come before the measures (the GROUP BY positions).
fn select_list(plan: &QueryPlan, name: &dyn Fn(usize) -> String) -> (Vec<String>, usize) {
    let mut select = Vec::new();
    let grain = plan.compare.as_ref().map(|(_, _, g)| *g).or(plan.grain);
    if let (Some(g), Some(t)) = (grain, plan.time) {
        select.push(format!(
            "DATE_TRUNC('{}', {}) AS {}",
            g.as_str(),
            name(t),
            ident(g.as_str())
        ));
    }
    for &d in &plan.dimensions {
        select.push(name(d));
    }
    let groups = select.len();
    for &m in &plan.measures {
        select.push(format!("MEASURE({}) AS {}", name(m), name(m)));
    }
    (select, groups)
}

/// The WHERE conditions: the period (or the two compared periods), equality filters, and the
/// other conditions.
fn where_list(plan: &QueryPlan, name: &dyn Fn(usize) -> String) -> Vec<String> {
    let mut wheres = Vec::new();
    if let (Some((a, b, _)), Some(t)) = (&plan.compare, plan.time) {
        let t = name(t);
        wheres.push(format!(
            "(({t} >= {} AND {t} < {}) OR ({t} >= {} AND {t} < {}))",
            literal(&a.start.to_string()),
            literal(&a.end.to_string()),
            literal(&b.start.to_string()),
            literal(&b.end.to_string())
        ));
    } else if let (Some(r), Some(t)) = (&plan.range, plan.time) {
        wheres.push(format!(
            "{} >= {} AND {} < {}",
            name(t),
            literal(&r.start.to_string()),
            name(t),
            literal(&r.end.to_string())
        ));
    }
    // Two values of one member ("for Germany and France") mean either: one IN, never two
    // equalities that no row meets at once.
    let mut members: Vec<usize> = Vec::new();
    for (d, _) in &plan.filters {
        if !members.contains(d) {
            members.push(*d);
        }
    }
    for d in members {
        let values: Vec<String> = plan
            .filters
            .iter()
            .filter(|(m, _)| *m == d)
            .map(|(_, v)| literal(v))
            .collect();
        wheres.push(match values.as_slice() {
            [one] => format!("{} = {one}", name(d)),
            many => format!("{} IN ({})", name(d), many.join(", ")),
        });
    }
    let mut k = 0;
    while k < plan.conditions.len() {
        let (d, c) = &plan.conditions[k];
        let next = plan.conditions.get(k + 1);
        // "between $50 and $100": one BETWEEN, so an order total is computed once per row.
        if let (Condition::Compare(">=", lo), Some((e, Condition::Compare("<=", hi)))) = (c, next)
            && e == d
        {
            wheres.push(format!("{} BETWEEN {lo} AND {hi}", name(*d)));
            k += 2;
            continue;
        }
        wheres.push(match c {
            Condition::Equals(v) => format!("{} = {}", name(*d), literal(v)),
            Condition::NotEquals(v) => format!("{} <> {}", name(*d), literal(v)),
            Condition::Compare(op, n) => format!("{} {op} {n}", name(*d)),
        });
        k += 1;
    }
    wheres
}

/// ORDER BY: periods in order for comparisons and trends, else the first measure (descending
/// unless a bottom N), ties broken by the first group column so the same question always lists
/// the same rows.
fn order_by(plan: &QueryPlan, groups: usize) -> Option<String> {
    let compare = plan.compare.is_some() && plan.time.is_some();
    let first_measure = groups + 1;
    let timed = (plan.grain.is_some() || compare) && plan.time.is_some();
    let order = match (plan.descending, timed) {
        _ if compare && groups > 1 => Some("2, 1".to_string()),
        _ if compare => Some("1".to_string()),
        (Some(desc), _) if groups > 0 => Some(format!(
            "{first_measure} {}",
            if desc { "DESC" } else { "ASC" }
        )),
        (_, true) if groups > 1 => Some(format!("1, {first_measure} DESC")),
        (_, true) => Some("1".to_string()),
        _ if groups > 0 => Some(format!("{first_measure} DESC")),
        _ => None,
    }?;
    let tie = if groups > 0 && !order.starts_with('1') && !order.contains(',') {
        ", 1"
    } else {
        ""
    };
    Some(format!("{order}{tie}"))
}
