//! A thread's turns: a follow-up merged into the previous plan, bare comparisons rebound to the
//! previous condition, and a plan as the thread remembers it.

use super::{Condition, QueryPlan};
use crate::emulator::engine::catalog::ViewCat;
use crate::emulator::engine::comparisons::Comparison;
use crate::emulator::engine::dates::{Range, parse_iso};
use crate::emulator::engine::request::TurnMemory;
use crate::emulator::engine::timeparse::Grain;

/// A follow-up's bare comparisons ("and over $200?") as new bounds on the member of the
/// previous turn's last numeric condition (or threshold); whether there was one.
pub(super) fn rebind(prev: &QueryPlan, new: &mut QueryPlan, orphans: &[Comparison]) -> bool {
    let last = |list: &[(usize, Condition)]| {
        list.iter()
            .rev()
            .find(|(_, c)| matches!(c, Condition::Compare(..)))
            .map(|(m, _)| *m)
    };
    let target = match (last(&prev.having), last(&prev.conditions)) {
        (Some(m), _) => (m, true),
        (None, Some(d)) => (d, false),
        (None, None) => return false,
    };
    if orphans.is_empty() {
        return false;
    }
    for c in orphans {
        new.unknown.retain(|u| *u != c.text);
        let list = if target.1 {
            &mut new.having
        } else {
            &mut new.conditions
        };
        list.extend(
            c.bounds
                .iter()
                .map(|(op, v)| (target.0, Condition::Compare(op, *v))),
        );
    }
    true
}

/// A follow-up: what the new question names replaces the previous turn's parts; the rest stays.
pub(super) fn merge(
    mut prev: QueryPlan,
    new: QueryPlan,
    grouped: bool,
    all_time: bool,
) -> QueryPlan {
    if !new.measures.is_empty() {
        prev.measures = new.measures;
    }
    if grouped {
        prev.dimensions = new.dimensions;
        prev.grain = new.grain;
        prev.time = new.time.or(prev.time);
    }
    if new.range.is_some() || all_time {
        prev.range = new.range;
    }
    for (m, v) in new.filters {
        prev.filters.retain(|(f, _)| *f != m);
        prev.conditions.retain(|(f, _)| *f != m);
        prev.filters.push((m, v));
    }
    // A new numeric condition on a member replaces the old ones on it ("and over $200?").
    let compared: Vec<usize> = new
        .conditions
        .iter()
        .filter(|(_, c)| matches!(c, Condition::Compare(..)))
        .map(|(m, _)| *m)
        .collect();
    prev.conditions
        .retain(|(f, c)| !(compared.contains(f) && matches!(c, Condition::Compare(..))));
    for (m, c) in new.conditions {
        prev.filters.retain(|(f, _)| *f != m);
        prev.conditions.push((m, c));
    }
    if !new.having.is_empty() {
        prev.having = new.having;
    }
    prev.notes = new.notes;
    prev.unknown = new.unknown;
    if new.descending.is_some() {
        prev.descending = new.descending;
        prev.limit = new.limit;
    }
    prev
}

/// What a turn's plan looks like in the thread's history.
pub fn to_memory(plan: &QueryPlan, views: &[ViewCat]) -> TurnMemory {
    let view = &views[plan.view];
    let name = |m: &usize| view.members[*m].name.clone();
    TurnMemory {
        view: view.name.clone(),
        measures: plan.measures.iter().map(name).collect(),
        dimensions: plan.dimensions.iter().map(name).collect(),
        grain: plan.grain.map(|g| g.as_str().to_string()),
        range: plan
            .range
            .as_ref()
            .map(|r| (r.start.to_string(), r.end.to_string(), r.label.clone())),
        filters: plan
            .filters
            .iter()
            .map(|(m, v)| (name(m), v.clone()))
            .collect(),
        descending: plan.descending,
        limit: plan.limit,
        time: plan.time.map(|t| name(&t)),
        conditions: plan
            .conditions
            .iter()
            .map(|(m, c)| {
                let (op, v) = c.to_memory();
                (name(m), op, v)
            })
            .collect(),
        having: plan
            .having
            .iter()
            .map(|(m, c)| {
                let (op, v) = c.to_memory();
                (name(m), op, v)
            })
            .collect(),
    }
}

/// A remembered turn back as a plan; members the view no longer has are dropped.
pub fn from_memory(m: &TurnMemory, views: &[ViewCat]) -> Option<QueryPlan> {
    let vi = views.iter().position(|v| v.name == m.view)?;
    let view = &views[vi];
    let idx = |n: &String| view.members.iter().position(|x| &x.name == n);
    Some(QueryPlan {
        view: vi,
        measures: m.measures.iter().filter_map(idx).collect(),
        dimensions: m.dimensions.iter().filter_map(idx).collect(),
        time: m.time.as_ref().and_then(idx),
        grain: m.grain.as_deref().and_then(Grain::parse),
        range: m.range.as_ref().and_then(|(s, e, l)| {
            Some(Range {
                start: parse_iso(s)?,
                end: parse_iso(e)?,
                label: l.clone(),
            })
        }),
        filters: m
            .filters
            .iter()
            .filter_map(|(n, v)| Some((idx(n)?, v.clone())))
            .collect(),
        descending: m.descending,
        limit: m.limit,
        conditions: m
            .conditions
            .iter()
            .filter_map(|(n, op, v)| Some((idx(n)?, Condition::from_memory(op, v)?)))
            .collect(),
        having: m
            .having
            .iter()
            .filter_map(|(n, op, v)| Some((idx(n)?, Condition::from_memory(op, v)?)))
            .collect(),
        compare: None,
        decline: false,
        by_rate: false,
        unknown: Vec::new(),
        unread_periods: Vec::new(),
        unapplied: Vec::new(),
        notes: Vec::new(),
        share_part: Vec::new(),
    })
}
