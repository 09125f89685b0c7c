//! The chart spec of an answer: Vega-Lite v5, without data (the client joins it with the SQL
//! tool's rows).

use crate::emulator::engine::sqlgen::{Column, Role};
use serde_json::{Value, json};

/// Words that ask how a whole divides into parts: the chart is an arc (a pie of shares).
const SHARE_WORDS: &[&str] = &[
    "share",
    "split",
    "proportion",
    "percentage",
    "percent",
    "distribution",
    "mix",
    "pie",
];

/// The Vega-Lite spec (without data) for a result: a line for a trend over time, an arc for a
/// share of a whole, a point chart for two measures against each other, bars to compare
/// groups, a text mark for a single number. Fields are the result's column names.
pub fn vega(cols: &[Column], title: &str, question: &str) -> Value {
    let time = cols.iter().find(|c| matches!(c.role, Role::Time(_)));
    let dim = cols.iter().find(|c| c.role == Role::Dimension);
    let mut measures = cols.iter().filter(|c| matches!(c.role, Role::Measure(_)));
    let Some(m) = measures.next() else {
        return json!({});
    };
    let second = measures.next();
    let lower = question.to_lowercase();
    let share = SHARE_WORDS.iter().any(|w| {
        lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word == *w || word.strip_suffix('s') == Some(w))
    });
    let y = json!({"field": m.name, "type": "quantitative", "title": m.title});
    let mut spec =
        json!({"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "title": title});
    let (mark, encoding) = match (time, dim, second) {
        (Some(t), d, _) => {
            let mut e =
                json!({"x": {"field": t.name, "type": "temporal", "title": t.title}, "y": y});
            if let Some(d) = d {
                e["color"] = json!({"field": d.name, "type": "nominal", "title": d.title});
            }
            (json!({"type": "line", "point": true}), e)
        }
        (None, Some(d), Some(m2)) => (
            json!({"type": "point", "filled": true}),
            json!({
                "x": {"field": m.name, "type": "quantitative", "title": m.title},
                "y": {"field": m2.name, "type": "quantitative", "title": m2.title},
                "tooltip": [{"field": d.name, "type": "nominal", "title": d.title}],
            }),
        ),
        (None, Some(d), None) if share => (
            json!({"type": "arc", "innerRadius": 50}),
            json!({
                "theta": {"field": m.name, "type": "quantitative", "title": m.title},
                "color": {"field": d.name, "type": "nominal", "title": d.title, "sort": null},
            }),
        ),
        (None, Some(d), None) => (
            json!({"type": "bar"}),
            json!({"x": {"field": d.name, "type": "nominal", "title": d.title, "sort": "-y"}, "y": y}),
        ),
        (None, None, _) => (
            json!({"type": "text", "fontSize": 32}),
            json!({"text": {"field": m.name, "type": "quantitative", "title": m.title}}),
        ),
    };
    spec["mark"] = mark;
    spec["encoding"] = encoding;
    spec
}
