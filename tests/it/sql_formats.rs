//! `analyst sql` output formats, byte for byte, and the request it sends.

use crate::common;

use common::scripted::{Part, Reply, Server, text};
use common::sql::*;
use serde_json::{Value, json};

fn tricky() -> Vec<String> {
    vec![
        schema(&["name", "note"]),
        data(json!([["a,b", "say \"hi\""], ["two\nlines", null]])),
        data(json!([["ünïcødé ✓", ""], ["tab\there", "back\\slash\r"]])),
    ]
}

fn run(format: &str, extra: &[&str]) -> (String, Server) {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(tricky());
    let out = sql(home.path(), &server)
        .args(["-o", format])
        .args(extra)
        .arg("SELECT name, note FROM things")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_no_token(&out);
    (text(&out.stdout), server)
}

#[test]
fn csv_is_rfc_4180_with_nulls_empty() {
    // RFC 4180: records end with CRLF; a LF inside a value stays as sent, inside quotes.
    let (out, _) = run("csv", &[]);
    assert_eq!(
        out,
        "name,note\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",\r\nünïcødé ✓,\r\ntab\there,\"back\\slash\r\"\r\n"
    );
    let (out, _) = run("csv", &["--no-header"]);
    assert!(out.starts_with("\"a,b\""), "{out}");
}

#[test]
fn csv_is_the_default_on_a_pipe() {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(tricky());
    let out = sql(home.path(), &server).arg("SELECT 1").output().unwrap();
    assert!(text(&out.stdout).starts_with("name,note\r\n\"a,b\""));
}

#[test]
fn tsv_escapes_tabs_newlines_and_backslashes() {
    let (out, _) = run("tsv", &[]);
    assert_eq!(
        out,
        "name\tnote\na,b\tsay \"hi\"\ntwo\\nlines\t\nünïcødé ✓\t\ntab\\there\tback\\\\slash\\r\n"
    );
}

#[test]
fn ndjson_is_one_object_per_row() {
    let (out, _) = run("ndjson", &[]);
    let rows: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0], json!({"name": "a,b", "note": "say \"hi\""}));
    assert_eq!(rows[1], json!({"name": "two\nlines", "note": null}));
    assert_eq!(rows[2]["name"], "ünïcødé ✓");
}

#[test]
fn json_and_yaml_are_one_document() {
    let (out, _) = run("json", &[]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["rowCount"], 4);
    assert_eq!(
        doc["schema"][0],
        json!({"name": "name", "column_type": "String"})
    );
    assert_eq!(doc["rows"][1], json!(["two\nlines", null]));
    let (out, _) = run("yaml", &[]);
    let y: Value = serde_norway::from_str(&out).unwrap();
    assert_eq!(y, doc);
}

#[test]
fn table_shows_the_first_rows_then_a_count() {
    let (out, _) = run("table", &["--rows", "2"]);
    assert!(out.contains("a,b") && out.contains("name"), "{out}");
    assert!(!out.contains("ünïcødé"), "{out}");
    assert!(out.contains("2 of 4 rows shown"), "{out}");
}

#[test]
fn the_request_is_as_the_api_expects() {
    let (_, server) = run(
        "csv",
        &["--timezone", "Europe/Berlin", "--cache", "must-revalidate"],
    );
    let q = &queries(&server)[0];
    assert_eq!(q.header("authorization"), Some(DATA_TOKEN), "no prefix");
    assert_eq!(q.header("content-type"), Some("application/json"));
    let id = q.header("x-request-id").unwrap();
    assert_eq!(id.len(), 36, "{id}");
    assert_eq!(
        q.body,
        json!({"query": "SELECT name, note FROM things", "timezone": "Europe/Berlin", "cache": "must-revalidate"})
    );
    let (_, server) = run("csv", &[]);
    assert_eq!(
        queries(&server)[0].body,
        json!({"query": "SELECT name, note FROM things"})
    );
}

#[test]
fn rows_split_across_chunks_and_object_rows() {
    let home = tempfile::tempdir().unwrap();
    let line = data(json!([["1", "x"], ["2", "y"]])) + "\n";
    let (a, b) = line.as_bytes().split_at(9);
    let (a, b) = (a.to_vec(), b.to_vec());
    let head = schema(&["n", "s"]) + "\n";
    let objects = data(json!([{"s": "z", "n": "3"}])) + "\n";
    let server = Server::start(move |_, _| Reply {
        status: 200,
        parts: vec![
            Part::Data(head.clone().into_bytes()),
            Part::Data(a.clone()),
            Part::Data(b.clone()),
            Part::Data(objects.clone().into_bytes()),
        ],
    });
    let out = sql(home.path(), &server).arg("SELECT 1").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "n,s\r\n1,x\r\n2,y\r\n3,z\r\n");
}

#[test]
fn an_empty_result_is_a_header_only() {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(vec![schema(&["a"])]);
    let out = sql(home.path(), &server).arg("SELECT 1").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "a\r\n");
    let out = sql(home.path(), &server)
        .args(["-o", "json", "SELECT 1"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"], json!([]));
    assert_eq!(doc["rowCount"], 0);
}

/// Numbers, booleans and nested values the data API sends are written back as the same JSON
/// values (number text exactly as sent), on the fast path (array rows) and on the serde path
/// (object rows, nested cells) alike; csv and tsv write their JSON text.
#[test]
fn values_of_other_json_types_are_kept_as_sent() {
    let home = tempfile::tempdir().unwrap();
    let lines = vec![
        schema(&["s", "n", "b", "z", "e", "x"]),
        // Written by hand: `json!` would make `4.50` into `4.5`.
        r#"{"data":[["a",4.50,true,null,1e5,-7]]}"#.to_owned(),
        r#"{"data":[{"x":[ 1.10 , "y z" ],"e":1E+2,"z":null,"b":false,"n":12.300,"s":"b"}]}"#
            .to_owned(),
    ];
    let server = data_api(lines);
    let run = |format: &str| {
        let out = sql(home.path(), &server)
            .args(["-o", format, "SELECT 1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(
        run("ndjson"),
        concat!(
            r#"{"s":"a","n":4.50,"b":true,"z":null,"e":1e5,"x":-7}"#,
            "\n",
            r#"{"s":"b","n":12.300,"b":false,"z":null,"e":1E+2,"x":[1.10,"y z"]}"#,
            "\n"
        )
    );
    let json = run("json");
    assert!(
        json.contains(r#"["a", 4.50, true, null, 1e5, -7]"#),
        "{json}"
    );
    assert!(
        json.contains(r#"["b", 12.300, false, null, 1E+2, [1.10,"y z"]]"#),
        "{json}"
    );
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["rows"][0], json!(["a", 4.5, true, null, 100000.0, -7]));
    let yaml: Value = serde_norway::from_str(&run("yaml")).unwrap();
    assert_eq!(yaml["rows"], doc["rows"]);
    assert_eq!(
        run("csv"),
        "s,n,b,z,e,x\r\na,4.50,true,,1e5,-7\r\nb,12.300,false,,1E+2,\"[1.10,\"\"y z\"\"]\"\r\n"
    );
    assert_eq!(
        run("tsv"),
        "s\tn\tb\tz\te\tx\na\t4.50\ttrue\t\t1e5\t-7\nb\t12.300\tfalse\t\t1E+2\t[1.10,\"y z\"]\n"
    );
}

/// `-o table` shows control characters in cells and names in caret notation (the service's
/// text must not drive the terminal); csv, tsv, json and ndjson keep them as sent.
#[test]
fn table_shows_control_characters_csv_and_json_keep_them() {
    let home = tempfile::tempdir().unwrap();
    let server = data_api(vec![
        schema(&["name\u{1b}[1m", "note"]),
        data(json!([
            ["esc\u{1b}[31mRED\u{1b}[0m", "bell\u{7}"],
            ["cr\r del\u{7f} csi\u{9b}2J", "lf\nx"]
        ])),
    ]);
    let run = |format: &str| {
        let out = sql(home.path(), &server)
            .args(["-o", format, "--color", "never", "SELECT 1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let table = run("table");
    for control in ['\u{1b}', '\u{7}', '\r', '\u{7f}', '\u{9b}'] {
        assert!(
            !table.contains(control),
            "{control:?} reached the terminal: {table:?}"
        );
    }
    for shown in [
        "esc^[[31mRED^[[0m",
        "bell^G",
        "cr^M del^? csi^[[2J",
        "lf x",
        "name^[[1m",
    ] {
        assert!(table.contains(shown), "{shown}: {table}");
    }
    let ndjson = run("ndjson");
    let first: Value = serde_json::from_str(ndjson.lines().next().unwrap()).unwrap();
    assert_eq!(first["note"], "bell\u{7}");
    assert!(run("csv").contains("esc\u{1b}[31mRED\u{1b}[0m,bell\u{7}\r\n"));
}
