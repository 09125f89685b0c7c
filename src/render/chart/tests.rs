use super::*;
use serde_json::json;

fn data(v: Value) -> Dataset {
    Dataset::from_result(&serde_json::from_value(v).unwrap()).unwrap()
}

fn bar_data() -> Dataset {
    data(
        json!({"schema":[{"name":"cat","column_type":"string"},{"name":"rev","column_type":"number"}],
        "data":[["Toys","5"],["Books","12.5"],["Games","7"]]}),
    )
}

#[test]
fn bars_follow_the_sort() {
    let spec = |sort: Value| {
        let mut s = json!({"mark":"bar","encoding":{"x":{"field":"cat","type":"nominal"},"y":{"field":"rev","type":"quantitative","title":"Revenue"}}});
        if !sort.is_null() || sort == json!("null") {
            s["encoding"]["x"]["sort"] = sort;
        }
        s
    };
    let labels = |c: Chart| match c.body {
        Body::Categories { labels, .. } => labels,
        _ => panic!(),
    };
    let d = bar_data();
    let c = Chart::build(&spec(json!("-y")), &d).unwrap();
    assert_eq!(c.y_title, "Revenue");
    assert_eq!(c.x_title, "Cat");
    assert_eq!(labels(c), ["Books", "Games", "Toys"]);
    assert_eq!(
        labels(Chart::build(&spec(Value::Null), &d).unwrap()),
        ["Books", "Games", "Toys"]
    );
    let mut s = spec(Value::Null);
    s["encoding"]["x"]["sort"] = Value::Null;
    assert_eq!(
        labels(Chart::build(&s, &d).unwrap()),
        ["Toys", "Books", "Games"]
    );
    assert_eq!(
        labels(Chart::build(&spec(json!("y")), &d).unwrap()),
        ["Toys", "Games", "Books"]
    );
    assert_eq!(
        labels(Chart::build(&spec(json!(["Games"])), &d).unwrap())[0],
        "Games"
    );
    assert_eq!(
        labels(
            Chart::build(
                &spec(json!({"op":"sum","field":"rev","order":"descending"})),
                &d
            )
            .unwrap()
        ),
        ["Books", "Games", "Toys"]
    );
}

#[test]
fn lines_take_dates_and_series() {
    let d = data(json!({"data":[
        {"o.month":"2024-02-01T00:00:00.000","o.status":"paid","o.count":"3"},
        {"o.month":"2024-01-01T00:00:00.000","o.status":"paid","o.count":"1"},
        {"o.month":"2024-01-01T00:00:00.000","o.status":"new","o.count":"2"}],
        "annotation":{"measures":{"o.count":{"title":"Orders","type":"number"}},
            "dimensions":{"o.status":{"title":"Status","type":"string"}},
            "timeDimensions":{"o.month":{"title":"Month","type":"time"}}}}));
    let spec = json!({"mark":{"type":"line","point":true},"encoding":{
        "x":{"field":"o.month","type":"temporal"},
        "y":{"field":"o.count","type":"quantitative"},
        "color":{"field":"o.status","type":"nominal"}}});
    let c = Chart::build(&spec, &d).unwrap();
    assert_eq!(
        (c.x_title.as_str(), c.y_title.as_str()),
        ("Month", "Orders")
    );
    assert_eq!(c.series, ["paid", "new"]);
    assert_eq!(c.color_title.as_deref(), Some("Status"));
    let Body::Points { x, points } = &c.body else {
        panic!()
    };
    assert_eq!(*x, XScale::Time);
    assert!(points[0][0].0 < points[0][1].0, "sorted by x");
    assert_eq!(points[0][1].1, 3.0);
}

#[test]
fn inlined_data_is_the_rows() {
    let d = data(json!({"data":[{"o.status":"paid","o.count":"10"}],
        "annotation":{"measures":{"o.count":{"title":"Count","type":"number"}}}}));
    let c = Charted {
        spec: json!({"mark":"arc","encoding":{"theta":{"field":"o.count","type":"quantitative"},"color":{"field":"o.status","type":"nominal"}}}),
        data: d,
    };
    let s = inline_spec(&c);
    assert_eq!(
        s["data"]["values"],
        json!([{"o.status":"paid","o.count":"10"}])
    );
    assert_eq!(s["encoding"]["theta"]["field"], "o\\.count");
    assert_eq!(s["data"]["format"]["parse"], json!({"o\\.count":"number"}));
    let chart = Chart::build(&c.spec, &c.data).unwrap();
    assert_eq!(chart.mark, Mark::Arc);
}

fn bars_of(rows: Value) -> Chart {
    let d = data(
        json!({"schema":[{"name":"cat","column_type":"string"},{"name":"s","column_type":"string"},{"name":"v","column_type":"number"}],
        "data": rows}),
    );
    let spec = json!({"mark":"bar","encoding":{"x":{"field":"cat","type":"nominal","sort":null},
        "y":{"field":"v","type":"quantitative"},"color":{"field":"s","type":"nominal"}}});
    Chart::build(&spec, &d).unwrap()
}

/// At every width, with negatives alone, mixed, or in stacks whose parts cancel out (whose
/// positive part is longer than the net total), no line is wider than the terminal and every
/// bar's row has its axis in the same column.
#[test]
fn terminal_bars_fit_any_width_with_negatives() {
    let style = crate::term::Style { color: false };
    let charts = [
        bars_of(json!([["a", "x", "-3"], ["b", "x", "-1.5"]])),
        bars_of(json!([
            ["a", "x", "-1000"],
            ["b", "x", "500"],
            ["c", "x", "0"]
        ])),
        bars_of(json!([
            ["a", "x", "10"],
            ["a", "y", "-9"],
            ["b", "x", "1"],
            ["b", "y", "2"]
        ])),
        bars_of(json!([["a", "x", "10"], ["a", "y", "-5"], ["b", "x", "6"]])),
    ];
    for chart in &charts {
        for width in 30..=140 {
            let out = term::draw(chart, width, style);
            let axes: Vec<usize> = out
                .lines()
                .filter_map(|l| l.split_once('│'))
                .map(|(l, _)| l.chars().count())
                .collect();
            assert!(!axes.is_empty(), "{out}");
            assert!(axes.iter().all(|a| *a == axes[0]), "{width}:\n{out}");
            for l in out.lines() {
                assert!(l.chars().count() <= width, "{width}: {l:?}\n{out}");
            }
        }
    }
    // Without negatives, no axis: bars start next to their labels, as before.
    let out = term::draw(
        &bars_of(json!([["a", "x", "2"], ["b", "x", "1"]])),
        40,
        style,
    );
    assert!(!out.contains('│') && out.contains("a █"), "{out}");
}

/// A cut result's chart carries a note, and its Vega-Lite spec a subtitle: added to a string
/// title, appended to a title's subtitle, the title itself without one.
#[test]
fn a_cut_result_has_a_note_and_a_subtitle() {
    let mut d = bar_data();
    let spec = json!({"mark":"bar","title":"Top","encoding":{"x":{"field":"cat","type":"nominal"},"y":{"field":"rev","type":"quantitative"}}});
    assert!(Chart::build(&spec, &d).unwrap().notes.is_empty());
    d.total_rows = Some(3);
    assert!(
        Chart::build(&spec, &d).unwrap().notes.is_empty(),
        "all rows"
    );
    d.total_rows = Some(1200);
    let note = "Only the first 3 of 1,200 rows are charted";
    assert_eq!(Chart::build(&spec, &d).unwrap().notes, [note]);
    let inlined = |spec: Value| {
        inline_spec(&Charted {
            spec,
            data: d.clone(),
        })
    };
    assert_eq!(
        inlined(spec.clone())["title"],
        json!({"text": "Top", "subtitle": note})
    );
    let mut s = spec.clone();
    s["title"] = json!({"text": "Top", "subtitle": "By revenue", "anchor": "start"});
    assert_eq!(
        inlined(s)["title"],
        json!({"text": "Top", "subtitle": ["By revenue", note], "anchor": "start"})
    );
    // Without a title (or a null one), the note is the title, set as a note: it was lost.
    for untitled in [None, Some(Value::Null)] {
        let mut s = spec.clone();
        s.as_object_mut().unwrap().remove("title");
        if let Some(t) = untitled {
            s["title"] = t;
        }
        let s = inlined(s);
        assert_eq!(s["title"]["text"], note, "{s}");
        assert_eq!(s["title"]["fontStyle"], "italic", "{s}");
        assert_eq!(s["data"]["values"].as_array().map(Vec::len), Some(3));
    }
}

/// An arc with a negative value is bars with a note; an arc of positive values stays an arc.
#[test]
fn an_arc_with_negative_values_is_bars() {
    let spec = json!({"mark":"arc","encoding":{"theta":{"field":"rev","type":"quantitative"},"color":{"field":"cat","type":"nominal"}}});
    let c = Chart::build(&spec, &bar_data()).unwrap();
    assert_eq!((c.mark, c.notes.len()), (Mark::Arc, 0));
    let d = data(
        json!({"schema":[{"name":"cat","column_type":"string"},{"name":"rev","column_type":"number"}],
        "data":[["Toys","5"],["Books","-2"]]}),
    );
    let c = Chart::build(&spec, &d).unwrap();
    assert_eq!(c.mark, Mark::Bar);
    assert_eq!(c.notes, [NEGATIVE_ARC_NOTE]);
}
