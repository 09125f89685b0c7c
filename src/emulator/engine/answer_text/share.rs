//! A part of a whole in words: "Electronics accounted for 23.4% of revenue in 2025
//! ($1,075,377.12 of $4,598,790.05)", both numbers from their own queries.

use super::{Scope, fmt_of, format_value, num, share};
use crate::emulator::engine::planner::QueryPlan;
use crate::emulator::engine::sqlgen::{Column, Role};
use crate::emulator::engine::warehouse::QueryResult;

/// The share the part (`part`: the plan's query, every filter applied) is of the whole
/// (`whole`: the same query without the part's filters, whose scope `whole_scope` says).
pub fn part_of_whole(
    plan: &QueryPlan,
    cols: &[Column],
    part: &QueryResult,
    whole: &QueryResult,
    whole_scope: &Scope,
) -> String {
    let Some(mi) = cols.iter().position(|c| matches!(c.role, Role::Measure(_))) else {
        return "The query returned no measures.".into();
    };
    let f = fmt_of(&cols[mi]);
    let measure = cols[mi].title.to_lowercase();
    let named: Vec<&str> = plan.share_part.iter().map(|(_, v)| v.as_str()).collect();
    let named = named.join(" and ");
    let mut chars = named.chars();
    let named: String = chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect());
    let of = format!("{measure}{}{}", whole_scope.filters, whole_scope.range);
    let value = |r: &QueryResult| r.rows.first().and_then(|row| num(row, mi));
    let (p, w) = (value(part).unwrap_or(0.0), value(whole).unwrap_or(0.0));
    if w == 0.0 {
        return format!(
            "I found no data for {of}, so there is no whole to take a share of. Nothing matched the question's filters (or your access rights)."
        );
    }
    format!(
        "{named} accounted for {} of {of} ({} of {}).",
        share(100.0 * p / w),
        format_value(p, f),
        format_value(w, f)
    )
}
