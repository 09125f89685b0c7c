//! A plan becomes SQL in the service's dialect over the view (members as columns, measures with
//! `MEASURE(...)`, time buckets with `DATE_TRUNC`): the SQL the answer shows is the SQL that runs,
//! through the semantic layer ([`super::semantic`]), which adds joins and row-level security.

use super::catalog::ViewCat;
use super::planner::Plan;
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

/// A condition of a plan on one member, in the dialect.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// `member = 'value'`.
    Equals(String),
    /// `member <> 'value'` (also keeps NULLs out, as SQL does).
    NotEquals(String),
    /// `member > number` and the like: (operator, number).
    Compare(&'static str, f64),
}

/// The dialect SQL of a plan.
pub fn build(view: &ViewCat, plan: &Plan) -> String {
    let name = |i: usize| ident(&view.members[i].name);
    let mut select = Vec::new();
    if let (Some(g), Some(t)) = (plan.grain, plan.time) {
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
    let mut wheres = Vec::new();
    if let (Some(r), Some(t)) = (&plan.range, plan.time) {
        wheres.push(format!(
            "{} >= {} AND {} < {}",
            name(t),
            literal(&r.start.to_string()),
            name(t),
            literal(&r.end.to_string())
        ));
    }
    for (d, v) in &plan.filters {
        wheres.push(format!("{} = {}", name(*d), literal(v)));
    }
    for (d, c) in &plan.conditions {
        wheres.push(match c {
            Condition::Equals(v) => format!("{} = {}", name(*d), literal(v)),
            Condition::NotEquals(v) => format!("{} <> {}", name(*d), literal(v)),
            Condition::Compare(op, n) => format!("{} {op} {n}", name(*d)),
        });
    }
    let mut sql = format!("SELECT {}\nFROM {}", select.join(", "), ident(&view.name));
    if !wheres.is_empty() {
        sql.push_str(&format!("\nWHERE {}", wheres.join("\n  AND ")));
    }
    if groups > 0 {
        let list: Vec<String> = (1..=groups).map(|i| i.to_string()).collect();
        sql.push_str(&format!("\nGROUP BY {}", list.join(", ")));
    }
    let first_measure = groups + 1;
    let timed = plan.grain.is_some() && plan.time.is_some();
    let order = match (plan.descending, timed) {
        (Some(desc), _) if groups > 0 => Some(format!(
            "{first_measure} {}",
            if desc { "DESC" } else { "ASC" }
        )),
        (_, true) if groups > 1 => Some(format!("1, {first_measure} DESC")),
        (_, true) => Some("1".to_string()),
        _ if groups > 0 => Some(format!("{first_measure} DESC")),
        _ => None,
    };
    if let Some(o) = order {
        // Ties are broken by the first group column, so the same question always lists the same rows.
        let tie = if groups > 0 && !o.starts_with('1') {
            ", 1"
        } else {
            ""
        };
        sql.push_str(&format!("\nORDER BY {o}{tie}"));
    }
    if let (Some(n), true) = (plan.limit, groups > 0) {
        sql.push_str(&format!("\nLIMIT {n}"));
    }
    sql
}
