//! Charts of SQL results from the agent's Vega-Lite spec: the spec and the rows are read into a
//! small model (categories and values for bar and arc marks, points for line, area and point
//! marks), which is drawn in the terminal (`term`) or as SVG (`svg`); `html` and `.vl.json`
//! files carry the spec itself with the rows inlined. What is read from the spec is in `spec`,
//! the order of categories and series in `order`.

pub mod files;
pub mod html;
mod order;
mod spec;
pub mod svg;
pub mod term;

use order::{pick_series, sort_order};
use spec::{Channel, channel, layer, mark_of, text_of, title_of, x_candidates};
pub use spec::{Charted, Unchartable, charted, charted_result, field_titles, inline_spec};

use super::numbers::{self, number};
use super::table::Dataset;
use serde_json::Value;
use std::cmp::Ordering;

/// The most series (values of a `color` field) drawn; the rest are named in a note.
pub const MAX_SERIES: usize = 6;

/// A mark type we draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Bars, one per category (stacked per series).
    Bar,
    /// A line through the points of each series.
    Line,
    /// A line with the area under it filled.
    Area,
    /// A scatter plot.
    Point,
    /// Shares of a whole (pie / donut).
    Arc,
}

/// What the x axis of a line, area or point chart holds.
#[derive(Clone, Debug, PartialEq)]
pub enum XScale {
    /// Numbers.
    Linear,
    /// Dates, as day numbers.
    Time,
    /// Categories, placed at their index.
    Band(Vec<String>),
}

/// A chart, ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The mark.
    pub mark: Mark,
    /// The spec's title.
    pub title: Option<String>,
    /// Title of the category (bar, arc) or x axis.
    pub x_title: String,
    /// Title of the value (bar, arc) or y axis.
    pub y_title: String,
    /// Title of the series field, when there is one.
    pub color_title: Option<String>,
    /// Series names (one empty name without a `color` field).
    pub series: Vec<String>,
    /// Series left out beyond [`MAX_SERIES`].
    pub dropped_series: usize,
    /// The value axis includes zero (Vega-Lite's default; `scale: {zero: false}` turns it off).
    pub zero: bool,
    /// A pie's hole, as a fraction of its radius (`innerRadius`).
    pub hole: f64,
    /// What to draw.
    pub body: Body,
    /// Notes drawn with the chart (under it in the terminal, under the title in SVG): the rows
    /// it leaves out ([`cut_note`]), an arc of negative values drawn as bars.
    pub notes: Vec<String>,
}

/// The note a chart of `data` carries when the result has more rows than arrived (the server
/// sends at most 100 by default; `totalRows` counts them all): "Only the first 100 of 365 rows
/// are charted".
pub fn cut_note(data: &Dataset) -> Option<String> {
    let total = usize::try_from(data.total_rows?).ok()?;
    let n = data.rows.len();
    (total > n).then(|| {
        format!(
            "Only the first {} of {} rows are charted",
            numbers::format_number(n as f64, 0),
            numbers::format_number(total as f64, 0)
        )
    })
}

/// The note of an arc whose values are not all positive, drawn as bars instead.
pub const NEGATIVE_ARC_NOTE: &str =
    "Negative values are not shares of a whole: drawn as bars, not a pie";

/// The data of a chart.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Bar and arc marks: labels in drawing order, `values[series][label]`.
    Categories {
        /// Category labels, sorted as the spec says.
        labels: Vec<String>,
        /// One value per series and label (0 where a pair has no row).
        values: Vec<Vec<f64>>,
        /// Bars along x (the category is on y).
        horizontal: bool,
    },
    /// Line, area and point marks: per series, points sorted by x.
    Points {
        /// The x scale.
        x: XScale,
        /// `points[series]` = (x, y).
        points: Vec<Vec<(f64, f64)>>,
    },
}

/// Summed values keyed by (category, series), in first-seen order.
type Sums = Vec<(String, String, f64)>;

/// Category labels in first-seen order, and the summed value per (category, series); rows
/// without a number are skipped unless the value is a count.
fn category_sums(
    data: &Dataset,
    cat: &Channel,
    val: &Channel,
    series_of: impl Fn(&[Value]) -> String,
) -> Option<(Vec<String>, Sums)> {
    let cat_col = cat.col?;
    let count = val.def.get("aggregate").and_then(Value::as_str) == Some("count");
    let mut labels: Vec<String> = Vec::new();
    let mut sums: Sums = Vec::new();
    for row in &data.rows {
        let label = row.get(cat_col).map(text_of).unwrap_or_default();
        let v = if count {
            1.0
        } else {
            match val.col.and_then(|c| row.get(c)).and_then(number) {
                Some(v) => v,
                None => continue,
            }
        };
        let s = series_of(row);
        if !labels.contains(&label) {
            labels.push(label.clone());
        }
        match sums.iter_mut().find(|(l, ss, _)| *l == label && *ss == s) {
            Some(e) => e.2 += v,
            None => sums.push((label, s, v)),
        }
    }
    Some((labels, sums))
}

impl Chart {
    /// Read a spec and its rows into a chart; `None` when the spec names no usable fields.
    pub fn build(spec: &Value, data: &Dataset) -> Option<Chart> {
        let mark = mark_of(spec)?;
        let color = channel(spec, data, "color").filter(|c| c.col.is_some() && !c.quantitative());
        let series_of = |row: &[Value]| -> String {
            color
                .as_ref()
                .and_then(|c| row.get(c.col?))
                .map(text_of)
                .unwrap_or_default()
        };
        let mut chart = Chart {
            mark,
            title: title_of(spec),
            x_title: String::new(),
            y_title: String::new(),
            color_title: color.as_ref().map(|c| c.title(data)),
            series: Vec::new(),
            dropped_series: 0,
            zero: true,
            hole: 0.0,
            body: Body::Points {
                x: XScale::Linear,
                points: Vec::new(),
            },
            notes: Vec::new(),
        };
        match mark {
            Mark::Bar | Mark::Arc => chart.fill_categories(spec, data, &series_of)?,
            Mark::Line | Mark::Area | Mark::Point => chart.fill_points(spec, data, &series_of)?,
        }
        chart.notes.extend(cut_note(data));
        Some(chart)
    }

    /// Bars and arcs: pick the category and value channels, sum the values per category and
    /// series, and order the categories.
    fn fill_categories(
        &mut self,
        spec: &Value,
        data: &Dataset,
        series_of: &dyn Fn(&[Value]) -> String,
    ) -> Option<()> {
        let arc = self.mark == Mark::Arc;
        let (cat, val, horizontal) = if arc {
            let val = channel(spec, data, "theta").or_else(|| channel(spec, data, "radius"))?;
            // An arc's categories are its colour field; its series are not split.
            let cat = channel(spec, data, "color")?;
            self.color_title = None;
            self.hole = layer(spec)
                .pointer("/mark/innerRadius")
                .and_then(Value::as_f64)
                .map_or(0.0, |r| (r / 100.0).clamp(0.0, 0.8));
            (cat, val, false)
        } else {
            let x = channel(spec, data, "x")?;
            let y = channel(spec, data, "y")?;
            if x.quantitative() && !y.quantitative() {
                (y, x, true)
            } else {
                (x, y, false)
            }
        };
        self.x_title = cat.title(data);
        self.y_title = val.title(data);
        let (labels, sums) = category_sums(data, &cat, &val, |row| {
            if arc { String::new() } else { series_of(row) }
        })?;
        let (series, dropped) = pick_series(sums.iter().map(|(_, s, v)| (s, *v)));
        let values: Vec<Vec<f64>> = series
            .iter()
            .map(|s| {
                labels
                    .iter()
                    .map(|l| {
                        sums.iter()
                            .find(|(ll, ss, _)| ll == l && ss == s)
                            .map_or(0.0, |e| e.2)
                    })
                    .collect()
            })
            .collect();
        let totals: Vec<f64> = (0..labels.len())
            .map(|i| values.iter().map(|v| v[i]).sum())
            .collect();
        let order = sort_order(&cat, &val, &labels, &totals, arc);
        self.body = Body::Categories {
            labels: order.iter().map(|&i| labels[i].clone()).collect(),
            values: values
                .iter()
                .map(|v| order.iter().map(|&i| v[i]).collect())
                .collect(),
            horizontal,
        };
        self.series = series;
        self.dropped_series = dropped;
        if arc && values.iter().flatten().any(|v| *v < 0.0) {
            // A share of a whole cannot be negative: a pie would hide these values (or draw
            // them as if positive). Bars show each value on its side of zero.
            self.mark = Mark::Bar;
            self.hole = 0.0;
            self.notes.push(NEGATIVE_ARC_NOTE.to_owned());
        }
        Some(())
    }

    /// Lines, areas and points: decide the x scale (time, band or linear), map each row to a
    /// point of its series, and sort lines along x.
    fn fill_points(
        &mut self,
        spec: &Value,
        data: &Dataset,
        series_of: &dyn Fn(&[Value]) -> String,
    ) -> Option<()> {
        let x = channel(spec, data, "x")?;
        let y = channel(spec, data, "y")?;
        self.zero = y.def.pointer("/scale/zero") != Some(&Value::Bool(false));
        self.x_title = x.title(data);
        self.y_title = y.title(data);
        let (xc, yc) = (x.col?, y.col?);
        let time = x.kind() == "temporal"
            || (x.kind().is_empty()
                && data.rows.iter().all(|r| {
                    r.get(xc)
                        .and_then(Value::as_str)
                        .is_some_and(|s| numbers::days(s).is_some())
                }));
        let band = !time && !x.quantitative();
        let mut labels: Vec<String> = Vec::new();
        if band {
            for r in &data.rows {
                let l = r.get(xc).map(text_of).unwrap_or_default();
                if !labels.contains(&l) {
                    labels.push(l);
                }
            }
            let order = sort_order(&x, &y, &labels, &[], false);
            labels = order.iter().map(|&i| labels[i].clone()).collect();
        }
        let mut pts: Vec<(String, f64, f64)> = Vec::new();
        for r in &data.rows {
            let Some(yv) = r.get(yc).and_then(number) else {
                continue;
            };
            let xv = match r.get(xc) {
                Some(v) if time => v.as_str().and_then(numbers::days).or_else(|| number(v)),
                Some(v) if band => {
                    let l = text_of(v);
                    labels.iter().position(|x| *x == l).map(|i| i as f64)
                }
                Some(v) => number(v),
                None => None,
            };
            if let Some(xv) = xv {
                pts.push((series_of(r), xv, yv));
            }
        }
        let (series, dropped) = pick_series(pts.iter().map(|(s, _, y)| (s, *y)));
        let sorted = self.mark != Mark::Point;
        let points = series
            .iter()
            .map(|s| {
                let mut p: Vec<(f64, f64)> = pts
                    .iter()
                    .filter(|(ss, _, _)| ss == s)
                    .map(|(_, x, y)| (*x, *y))
                    .collect();
                if sorted {
                    p.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal));
                }
                p
            })
            .collect();
        self.body = Body::Points {
            x: if time {
                XScale::Time
            } else if band {
                XScale::Band(labels)
            } else {
                XScale::Linear
            },
            points,
        };
        self.series = series;
        self.dropped_series = dropped;
        Some(())
    }

    /// The value range to draw: from 0 (or below, for negatives) for bars; the data's for
    /// points; stacked bars count their sums.
    pub fn value_range(&self) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        match &self.body {
            Body::Categories { values, .. } => {
                for i in 0..values.first().map_or(0, Vec::len) {
                    let (pos, neg) = values.iter().fold((0.0, 0.0), |(p, n), v| {
                        if v[i] >= 0.0 {
                            (p + v[i], n)
                        } else {
                            (p, n + v[i])
                        }
                    });
                    hi = hi.max(pos);
                    lo = lo.min(neg);
                }
                lo = lo.min(0.0);
                hi = hi.max(0.0);
            }
            Body::Points { points, .. } => {
                for (_, y) in points.iter().flatten() {
                    lo = lo.min(*y);
                    hi = hi.max(*y);
                }
                if self.mark == Mark::Area || self.zero {
                    // Vega-Lite's scales include zero unless the spec says otherwise.
                    lo = lo.min(0.0);
                    hi = hi.max(0.0);
                }
            }
        }
        if !lo.is_finite() {
            (0.0, 1.0)
        } else {
            (lo, hi)
        }
    }

    /// The x range of a points chart.
    pub fn x_range(&self) -> (f64, f64) {
        match &self.body {
            Body::Points { points, x } => {
                if let XScale::Band(l) = x {
                    return (0.0, l.len().saturating_sub(1) as f64);
                }
                let xs = points.iter().flatten().map(|p| p.0);
                let lo = xs.clone().fold(f64::INFINITY, f64::min);
                let hi = xs.fold(f64::NEG_INFINITY, f64::max);
                if !lo.is_finite() {
                    return (0.0, 1.0);
                }
                if *x == XScale::Linear {
                    // Numbers on x end on round ticks, so no point sits on the frame.
                    let t = numbers::nice_ticks(lo, hi, 5);
                    return (t[0], *t.last().unwrap_or(&hi));
                }
                (lo, hi)
            }
            Body::Categories { .. } => (0.0, 1.0),
        }
    }
}

#[cfg(test)]
mod tests;
