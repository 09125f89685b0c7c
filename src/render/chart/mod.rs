//! Charts of SQL results from the agent's Vega-Lite spec: the spec and the rows are read into a
//! small model (categories and values for bar and arc marks, points for line, area and point
//! marks), which is drawn in the terminal (`term`) or as SVG (`svg`); `html` and `.vl.json`
//! files carry the spec itself with the rows inlined.

pub mod files;
pub mod html;
pub mod svg;
pub mod term;

use super::numbers::{self, number, readable_name};
use super::table::Dataset;
use crate::protocol::Frame;
use crate::protocol::tool::{Tool, classify, parse_input, parse_result};
use serde_json::{Map, Value, json};
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
}

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

/// A charted SQL result: the spec (as sent, without data) and the rows.
#[derive(Clone, Debug)]
pub struct Charted {
    /// The Vega-Lite spec.
    pub spec: Value,
    /// The rows.
    pub data: Dataset,
}

/// The charted result a tool frame carries, if any: a finished SQL tool whose result (or input)
/// has a `vegaSpec` with a mark.
pub fn charted(frame: &Frame) -> Option<Charted> {
    let call = frame.tool_call.as_ref()?;
    let result = parse_result(call.result.as_ref()?);
    let input = call.input.as_ref().map(parse_input).unwrap_or(Value::Null);
    let Tool::Sql { input, result } = classify(&input, Some(&result)) else {
        return None;
    };
    let result = result?;
    charted_result(&result, input.vega_spec.as_deref())
}

/// The charted result of a parsed SQL result (`input_spec` is the input's `vegaSpec`).
pub fn charted_result(
    result: &crate::protocol::tool::SqlResult,
    input_spec: Option<&str>,
) -> Option<Charted> {
    let text = result.vega_spec.as_deref().or(input_spec)?;
    let spec: Value = serde_json::from_str(text).ok()?;
    mark_of(&spec)?;
    let data = Dataset::from_result(result)?;
    Some(Charted { spec, data })
}

/// The spec's mark type, if we draw it.
fn mark_of(spec: &Value) -> Option<Mark> {
    let m = layer(spec).get("mark")?;
    let name = m
        .as_str()
        .or_else(|| m.get("type").and_then(Value::as_str))?;
    Some(match name {
        "bar" | "rect" => Mark::Bar,
        "line" | "trail" => Mark::Line,
        "area" => Mark::Area,
        "point" | "circle" | "square" | "tick" => Mark::Point,
        "arc" => Mark::Arc,
        _ => return None,
    })
}

/// The spec, or its first layer when the top has no mark.
fn layer(spec: &Value) -> &Value {
    if spec.get("mark").is_some() {
        return spec;
    }
    spec.get("layer")
        .and_then(|l| l.get(0))
        .filter(|l| l.get("mark").is_some())
        .unwrap_or(spec)
}

/// An encoding channel.
struct Channel<'a> {
    name: &'static str,
    def: &'a Value,
    col: Option<usize>,
}

impl Channel<'_> {
    fn kind(&self) -> &str {
        self.def.get("type").and_then(Value::as_str).unwrap_or("")
    }
    fn quantitative(&self) -> bool {
        self.kind() == "quantitative"
    }
    fn field(&self) -> Option<&str> {
        self.def.get("field").and_then(Value::as_str)
    }
    fn title(&self, data: &Dataset) -> String {
        if let Some(t) = self.def.get("title").and_then(Value::as_str) {
            return t.to_owned();
        }
        match self.col.and_then(|c| data.fields.get(c)) {
            Some(f) => f.title.clone().unwrap_or_else(|| readable_name(&f.name)),
            None if self.def.get("aggregate").and_then(Value::as_str) == Some("count") => {
                "Count".into()
            }
            None => self.field().map(readable_name).unwrap_or_default(),
        }
    }
}

fn channel<'a>(spec: &'a Value, data: &Dataset, name: &'static str) -> Option<Channel<'a>> {
    let def = layer(spec).get("encoding")?.get(name)?;
    if !def.is_object() {
        return None;
    }
    let col = def
        .get("field")
        .and_then(Value::as_str)
        .and_then(|f| data.index(f));
    Some(Channel { name, def, col })
}

/// Titles the spec gives to fields (for table headers).
pub fn field_titles(spec: &Value) -> Vec<(String, String)> {
    let Some(enc) = layer(spec).get("encoding").and_then(Value::as_object) else {
        return Vec::new();
    };
    enc.values()
        .filter_map(|d| {
            let f = d.get("field")?.as_str()?;
            let t = d.get("title")?.as_str()?;
            Some((f.replace("\\.", "."), t.to_owned()))
        })
        .collect()
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => numbers::short_date(s).unwrap_or(s).to_owned(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// Where an x axis may put labels: every category of a band, every distinct date of a time
/// scale, or `count` round numbers of a linear one; `band_label` shapes a category's text.
pub(super) fn x_candidates(
    xs: &XScale,
    points: &[Vec<(f64, f64)>],
    (xlo, xhi): (f64, f64),
    count: usize,
    band_label: impl Fn(&str) -> String,
) -> Vec<(f64, String)> {
    match xs {
        XScale::Band(labels) => labels
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f64, band_label(l)))
            .collect(),
        XScale::Time => {
            let mut d: Vec<f64> = points.iter().flatten().map(|p| p.0).collect();
            d.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
            d.dedup();
            d.iter().copied().zip(numbers::date_labels(&d)).collect()
        }
        XScale::Linear => {
            let t = numbers::nice_ticks(xlo, xhi, count);
            t.iter().copied().zip(numbers::axis_labels(&t)).collect()
        }
    }
}

/// The spec's title: a plain string or the `text` of a title object.
fn title_of(spec: &Value) -> Option<String> {
    match spec.get("title") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(t) => t.get("text").and_then(Value::as_str).map(str::to_owned),
        None => None,
    }
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
        };
        match mark {
            Mark::Bar | Mark::Arc => chart.fill_categories(spec, data, &series_of)?,
            Mark::Line | Mark::Area | Mark::Point => chart.fill_points(spec, data, &series_of)?,
        }
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

/// Series in order of first appearance, at most [`MAX_SERIES`] (those with the largest totals).
fn pick_series<'a>(items: impl Iterator<Item = (&'a String, f64)>) -> (Vec<String>, usize) {
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
fn sort_order(
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

/// The spec with the rows inlined as `data.values` (objects keyed by field name, values as
/// sent) and number parsing for quantitative fields sent as strings; field names with dots are
/// escaped so that Vega-Lite does not read them as nested objects.
pub fn inline_spec(c: &Charted) -> Value {
    let mut spec = c.spec.clone();
    let values: Vec<Value> = c
        .data
        .rows
        .iter()
        .map(|r| {
            let m: Map<String, Value> = c
                .data
                .fields
                .iter()
                .zip(r)
                .map(|(f, v)| (f.name.clone(), v.clone()))
                .collect();
            Value::Object(m)
        })
        .collect();
    let mut parse = Map::new();
    escape_fields(&mut spec, &c.data, &mut parse);
    let mut data = json!({ "values": values });
    if !parse.is_empty() {
        data["format"] = json!({ "parse": parse });
    }
    if let Value::Object(m) = &mut spec {
        m.insert("data".into(), data);
    }
    spec
}

/// Escape the dots of data keys named in encodings (in the spec and its layers), and note the
/// quantitative ones whose values arrive as strings.
fn escape_fields(spec: &mut Value, data: &Dataset, parse: &mut Map<String, Value>) {
    if let Some(layers) = spec.get_mut("layer").and_then(Value::as_array_mut) {
        for l in layers {
            escape_fields(l, data, parse);
        }
    }
    let Some(enc) = spec.get_mut("encoding").and_then(Value::as_object_mut) else {
        return;
    };
    for def in enc.values_mut() {
        let Some(field) = def.get("field").and_then(Value::as_str) else {
            continue;
        };
        let Some(col) = data.index(field) else {
            continue;
        };
        let name = &data.fields[col].name;
        let escaped = name.replace('.', "\\.");
        if def.get("type").and_then(Value::as_str) == Some("quantitative")
            && data
                .rows
                .iter()
                .any(|r| r.get(col).is_some_and(Value::is_string))
        {
            parse.insert(escaped.clone(), json!("number"));
        }
        def["field"] = Value::String(escaped);
    }
}

#[cfg(test)]
mod tests;
