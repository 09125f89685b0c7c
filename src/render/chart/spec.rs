//! The Vega-Lite spec an answer carries: which SQL results have one, the mark and the encoding
//! channels read from it, and the spec written back with its rows inlined (for the vega-embed
//! page and `.vl.json` files).

use super::{Mark, XScale};
use crate::protocol::Frame;
use crate::protocol::tool::{Tool, classify, parse_input, parse_result};
use crate::render::numbers::{self, readable_name};
use crate::render::table::Dataset;
use serde_json::{Map, Value, json};
use std::cmp::Ordering;

/// A charted SQL result: the spec (as sent, without data) and the rows.
#[derive(Clone, Debug)]
pub struct Charted {
    /// The Vega-Lite spec.
    pub spec: Value,
    /// The rows.
    pub data: Dataset,
}

/// What a finished SQL tool frame's `vegaSpec` gives, if the frame carries one: the charted
/// result, or why it cannot be charted (said where the charts are written, not dropped
/// silently). A failed tool gives nothing here: its failure is shown with the answer.
pub fn charted(frame: &Frame) -> Option<Result<Charted, Unchartable>> {
    let call = frame.tool_call.as_ref()?;
    let result = parse_result(call.result.as_ref()?);
    let input = call.input.as_ref().map(parse_input).unwrap_or(Value::Null);
    let Tool::Sql { input, result } = classify(&input, Some(&result)) else {
        return None;
    };
    chart_of(&*result?, input.vega_spec.as_deref())
}

/// The charted result of a parsed SQL result (`input_spec` is the input's `vegaSpec`), if it
/// can be charted.
pub fn charted_result(
    result: &crate::protocol::tool::SqlResult,
    input_spec: Option<&str>,
) -> Option<Charted> {
    chart_of(result, input_spec)?.ok()
}

/// A SQL result that carries a `vegaSpec` which cannot be charted: its title, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Unchartable {
    /// The result's `queryTitle`, if it has one.
    pub title: Option<String>,
    /// Why, as a clause: "its vegaSpec is not JSON (...)".
    pub why: String,
}

impl std::fmt::Display for Unchartable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.title {
            Some(t) => write!(f, "the chart of \"{t}\" is not written: {}", self.why),
            None => write!(f, "a result's chart is not written: {}", self.why),
        }
    }
}

/// [`charted_result`], with why a spec that is there cannot be charted.
fn chart_of(
    result: &crate::protocol::tool::SqlResult,
    input_spec: Option<&str>,
) -> Option<Result<Charted, Unchartable>> {
    if result.error.is_some() {
        return None;
    }
    let text = result.vega_spec.as_deref().or(input_spec)?;
    let unchartable = |why: String| {
        Some(Err(Unchartable {
            title: result.query_title.0.clone(),
            why,
        }))
    };
    let spec: Value = match serde_json::from_str(text) {
        Ok(spec) => spec,
        Err(e) => return unchartable(format!("its vegaSpec is not JSON ({e})")),
    };
    // Any spec with a mark counts (CLI.md: each result that carries a `vegaSpec`): `.html` and
    // `.vl.json` keep every mark; the terminal and `.svg` draw the marks they know.
    if layer(&spec).get("mark").is_none() {
        return unchartable("its vegaSpec has no mark".into());
    }
    let Some(data) = Dataset::from_result(result) else {
        return unchartable("the result carries no rows".into());
    };
    Some(Ok(Charted { spec, data }))
}

/// The name of the spec's mark (`"bar"`, or `{"type": "bar", ...}`).
pub(super) fn mark_name(spec: &Value) -> Option<&str> {
    let m = layer(spec).get("mark")?;
    m.as_str().or_else(|| m.get("type").and_then(Value::as_str))
}

/// The spec's mark type, if we draw it.
pub(super) fn mark_of(spec: &Value) -> Option<Mark> {
    Some(match mark_name(spec)? {
        "bar" | "rect" => Mark::Bar,
        "line" | "trail" => Mark::Line,
        "area" => Mark::Area,
        "point" | "circle" | "square" | "tick" => Mark::Point,
        "arc" => Mark::Arc,
        _ => return None,
    })
}

/// The spec, or its first layer when the top has no mark.
pub(super) fn layer(spec: &Value) -> &Value {
    if spec.get("mark").is_some() {
        return spec;
    }
    spec.get("layer")
        .and_then(|l| l.get(0))
        .filter(|l| l.get("mark").is_some())
        .unwrap_or(spec)
}

/// An encoding channel.
pub(super) struct Channel<'a> {
    /// `x`, `y`, `color`, `theta`...
    pub(super) name: &'static str,
    /// Its definition in the spec's `encoding`.
    pub(super) def: &'a Value,
    /// The result's column its field names, if any.
    pub(super) col: Option<usize>,
}

impl Channel<'_> {
    pub(super) fn kind(&self) -> &str {
        self.def.get("type").and_then(Value::as_str).unwrap_or("")
    }
    pub(super) fn quantitative(&self) -> bool {
        self.kind() == "quantitative"
    }
    pub(super) fn field(&self) -> Option<&str> {
        self.def.get("field").and_then(Value::as_str)
    }
    pub(super) fn title(&self, data: &Dataset) -> String {
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

pub(super) fn channel<'a>(
    spec: &'a Value,
    data: &Dataset,
    name: &'static str,
) -> Option<Channel<'a>> {
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

pub(super) fn text_of(v: &Value) -> String {
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
pub(super) fn title_of(spec: &Value) -> Option<String> {
    match spec.get("title") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(t) => t.get("text").and_then(Value::as_str).map(str::to_owned),
        None => None,
    }
}

/// The spec with the rows inlined as `data.values` (objects keyed by field name, values as
/// sent) and number parsing for quantitative fields sent as strings; field names with dots are
/// escaped so that Vega-Lite does not read them as nested objects. When the result has more
/// rows than arrived, its title gets a subtitle that says so ([`super::cut_note`]).
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
    if let Some(note) = super::cut_note(&c.data) {
        add_subtitle(&mut spec, note);
    }
    spec
}

/// `note` as a line of the spec's title's `subtitle` (after any it has); a spec without a
/// title gets the note as a title of its own, set as a note (small, italic, not bold).
fn add_subtitle(spec: &mut Value, note: String) {
    let Some(title) = spec.get_mut("title").filter(|t| !t.is_null()) else {
        if let Some(spec) = spec.as_object_mut() {
            spec.insert(
                "title".into(),
                json!({"text": note, "fontSize": 11, "fontStyle": "italic", "fontWeight": "normal"}),
            );
        }
        return;
    };
    if let Value::String(text) = title {
        *title = json!({ "text": text.clone() });
    }
    let Some(t) = title.as_object_mut().filter(|t| t.contains_key("text")) else {
        return;
    };
    match t.get_mut("subtitle") {
        Some(Value::Array(lines)) => lines.push(Value::String(note)),
        Some(Value::String(line)) => {
            let line = std::mem::take(line);
            t.insert("subtitle".into(), json!([line, note]));
        }
        _ => {
            t.insert("subtitle".into(), Value::String(note));
        }
    }
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
