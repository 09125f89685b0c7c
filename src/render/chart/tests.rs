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
