//! The order of a chart's categories and series: the spec's `sort`, the largest series first, a
//! comparison's periods in time order.

use super::MAX_SERIES;
use super::spec::{Channel, text_of};
use crate::render::numbers;
use serde_json::Value;
use std::cmp::Ordering;

/// Series in order of first appearance, at most [`MAX_SERIES`] (those with the largest totals).
pub(super) fn pick_series<'a>(
    items: impl Iterator<Item = (&'a String, f64)>,
) -> (Vec<String>, usize) {
    let mut all: Vec<(String, f64)> = Vec::new();
    for (s, v) in items {
        match all.iter_mut().find(|(n, _)| n == s) {
            Some(e) => e.1 += v.abs(),
            None => all.push((s.clone(), v.abs())),
        }
    }
    if all.len() <= MAX_SERIES {
        return (all.into_iter().map(|(s, _)| s).collect(), 0);
    }
    let mut by_size: Vec<usize> = (0..all.len()).collect();
    by_size.sort_by(|&a, &b| all[b].1.partial_cmp(&all[a].1).unwrap_or(Ordering::Equal));
    let mut keep: Vec<usize> = by_size[..MAX_SERIES].to_vec();
    keep.sort_unstable();
    let dropped = all.len() - MAX_SERIES;
    (
        keep.into_iter().map(|i| all[i].0.clone()).collect(),
        dropped,
    )
}

/// Labels compared as numbers or dates when both are, else as text.
fn compare_labels(a: &str, b: &str) -> Ordering {
    match (numbers::parse_number(a), numbers::parse_number(b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        _ => a.cmp(b),
    }
}

/// The drawing order of categories from the category channel's `sort` (Vega-Lite's rules: by
/// label ascending unless told otherwise; `-y` by value descending; `null` the data's order; an
/// array first those values). Arcs keep the data's order unless told.
pub(super) fn sort_order(
    cat: &Channel<'_>,
    val: &Channel<'_>,
    labels: &[String],
    totals: &[f64],
    data_order_default: bool,
) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    let by_label = |idx: &mut Vec<usize>, desc: bool| {
        idx.sort_by(|&a, &b| {
            let o = compare_labels(&labels[a], &labels[b]);
            if desc { o.reverse() } else { o }
        })
    };
    let by_value = |idx: &mut Vec<usize>, desc: bool| {
        if totals.len() == labels.len() {
            idx.sort_by(|&a, &b| {
                let o = totals[a].partial_cmp(&totals[b]).unwrap_or(Ordering::Equal);
                if desc { o.reverse() } else { o }
            })
        }
    };
    match cat.def.get("sort") {
        None if data_order_default => {}
        None => by_label(&mut idx, false),
        Some(Value::Null) => {}
        Some(Value::String(s)) => {
            let (desc, name) = match s.strip_prefix('-') {
                Some(n) => (true, n),
                None => (false, s.as_str()),
            };
            match name {
                "ascending" => by_label(&mut idx, false),
                "descending" => by_label(&mut idx, true),
                n if n == cat.name => by_label(&mut idx, desc),
                _ => by_value(&mut idx, desc),
            }
        }
        Some(Value::Array(order)) => {
            let rank = |l: &str| {
                order
                    .iter()
                    .position(|o| text_of(o) == l)
                    .unwrap_or(usize::MAX)
            };
            idx.sort_by_key(|&i| rank(&labels[i]));
        }
        Some(Value::Object(o)) => {
            let desc = o.get("order").and_then(Value::as_str) == Some("descending");
            let on_value = o.get("op").is_some()
                || o.get("encoding").and_then(Value::as_str) == Some(val.name)
                || (o.get("field").is_some() && o.get("field") == val.def.get("field"));
            if on_value {
                by_value(&mut idx, desc)
            } else {
                by_label(&mut idx, desc)
            }
        }
        Some(_) => {}
    }
    idx
}
