//! Tables, terminal charts and chart files from saved streams (`tests/fixtures/charts`, one per
//! mark type, in both `data` shapes, and negative values and a cut result): golden text at
//! fixed widths with and without colour, SVG structure, and `.vl.json` data equal to the result
//! rows. `ANALYST_REGENERATE=1` rewrites the golden files.

use crate::common;

use common::scripted::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURES: [&str; 11] = [
    "bar",
    "bar_series",
    "line",
    "line_series",
    "area",
    "point",
    "arc",
    "bar_negative",
    "bar_series_negative",
    "arc_negative",
    "line_cut",
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/charts/{name}.ndjson"))
}

/// `chat --replay FIXTURE` with extra arguments, `COLUMNS` set.
fn replay(home: &Path, name: &str, columns: usize, args: &[&str]) -> std::process::Output {
    let mut cmd = analyst(home);
    cmd.env("COLUMNS", columns.to_string())
        .args(["chat", "--replay"])
        .arg(fixture(name))
        .args(args);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{name}: {}", text(&out.stderr));
    out
}

fn golden(file: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/charts/golden")
        .join(file);
    if std::env::var_os("ANALYST_REGENERATE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (ANALYST_REGENERATE=1 writes it)", path.display()));
    assert_eq!(
        actual, expected,
        "{file} differs (ANALYST_REGENERATE=1 rewrites it)"
    );
}

#[test]
fn text_tables_and_charts_match_the_golden_files() {
    let home = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        for columns in [80, 60] {
            let out = replay(
                home.path(),
                name,
                columns,
                &["-o", "text", "--color", "never"],
            );
            golden(&format!("{name}-{columns}.txt"), &text(&out.stdout));
        }
        let out = replay(home.path(), name, 80, &["-o", "text", "--color", "always"]);
        golden(&format!("{name}-80-color.txt"), &text(&out.stdout));
    }
}

#[test]
fn no_line_is_wider_than_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        for columns in [100, 72, 50] {
            let out = replay(home.path(), name, columns, &["-o", "text"]);
            for line in text(&out.stdout).lines() {
                // The SQL note and the tool line are plain text that the terminal wraps; the
                // table frame and the chart must fit.
                if line.starts_with('»')
                    || line.starts_with('…')
                    || !line.contains(['│', '┤', '█', '└', '┌', '╞'])
                {
                    continue;
                }
                let width = line.chars().count();
                assert!(
                    width <= columns,
                    "{name} at {columns}: {width} columns: {line}"
                );
            }
        }
    }
}

#[test]
fn rows_and_no_chart() {
    let home = tempfile::tempdir().unwrap();
    let all = text(
        &replay(
            home.path(),
            "line",
            80,
            &["-o", "text", "--rows", "0", "--no-chart"],
        )
        .stdout,
    );
    assert!(all.contains("2025-12-01"), "all 24 rows: {all}");
    assert!(!all.contains('┤'), "no chart: {all}");
    assert!(!all.contains("more rows"), "{all}");
    let three = text(&replay(home.path(), "line", 80, &["-o", "text", "--rows", "3"]).stdout);
    assert!(
        three.contains("… 21 more rows (24 in all); --rows 0 shows the 24 that arrived"),
        "{three}"
    );
    assert!(three.contains("3 of 24 rows shown"), "{three}");
    let point = text(&replay(home.path(), "point", 80, &["-o", "text"]).stdout);
    // A replay of a file from another service, with no settings: no `analyst sql` hint it
    // could not back (issue 33, item 3), the count of rows all the same.
    assert!(point.contains("(240 in all)"), "{point}");
    assert!(!point.contains("all of them: analyst sql"), "{point}");
}

#[test]
fn other_formats_keep_values_as_sent() {
    let home = tempfile::tempdir().unwrap();
    let out = replay(home.path(), "bar", 80, &["-o", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sql = &doc["toolCalls"][1]["result"];
    assert_eq!(
        sql["data"][0],
        serde_json::json!(["Electronics", "2767850.4"])
    );
    let raw = replay(home.path(), "bar", 80, &["-o", "ndjson"]);
    assert_eq!(raw.stdout, std::fs::read(fixture("bar")).unwrap());
}

/// The attribute `name` of an SVG element's text.
fn attr(element: &str, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let start = element.find(&key).unwrap() + key.len();
    element[start..].split('"').next().unwrap().parse().unwrap()
}

/// Well-formed XML, checked by hand: every tag closed in order, attributes quoted, entities known.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let text = &rest[..i];
        for (j, _) in text.match_indices('&') {
            let ent = &text[j..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "bare & in {text:?}"
            );
        }
        let end = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes: <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_owned());
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

fn chart_file(home: &Path, name: &str, ext: &str, format: &str) -> String {
    let path = home.join(format!("{name}.{ext}"));
    let out = replay(
        home,
        name,
        80,
        &["-o", format, "--chart", path.to_str().unwrap()],
    );
    assert!(
        text(&out.stderr).contains(&format!("wrote {}", path.display())),
        "{}",
        text(&out.stderr)
    );
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn svg_bars_follow_the_rows() {
    let home = tempfile::tempdir().unwrap();
    let svg = chart_file(home.path(), "bar", "svg", "final");
    assert_well_formed(&svg);
    let bars: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<rect class=\"bar\""))
        .collect();
    let rows = [
        ("Electronics", 2767850.4),
        ("Clothing", 2194571.1),
        ("Sports", 1735505.05),
        ("Beauty", 1092890.12),
        ("Home &amp; Garden", 1010699.66),
        ("Toys", 836614.76),
        ("Books", 811749.57),
        ("Grocery", 348626.24),
    ];
    assert_eq!(bars.len(), rows.len(), "one bar per row");
    let h0 = attr(bars[0], "height");
    for (bar, (label, value)) in bars.iter().zip(rows) {
        assert!(bar.contains(&format!("<title>{label}:")), "{bar}");
        let ratio = attr(bar, "height") / h0;
        assert!((ratio - value / rows[0].1).abs() < 0.01, "{label}: {ratio}");
        assert!(
            svg.contains("class=\"label\"") && svg.contains(&format!(">{label}</text>")),
            "label {label}"
        );
    }
    assert!(svg.contains(">Revenue by category</text>"), "title");
    assert!(
        svg.contains(">Category</text>") && svg.contains(">Revenue</text>"),
        "axis titles"
    );
    // Ticks in the unit and decimals of the values on the bars (2.77M): one precision per axis.
    assert!(
        svg.contains(">3.00M</text>"),
        "ticks with formatted numbers"
    );
}

#[test]
fn every_mark_type_draws_valid_svg() {
    let home = tempfile::tempdir().unwrap();
    for (name, mark, n) in [
        ("bar_series", "<rect class=\"bar\"", 15),
        ("line", "<path class=\"line\"", 1),
        ("line_series", "<path class=\"line\"", 3),
        ("area", "<path class=\"area\"", 1),
        ("point", "<circle class=\"point\"", 15),
        ("arc", "<path class=\"arc\"", 5),
    ] {
        let svg = chart_file(home.path(), name, "svg", "ndjson");
        assert_well_formed(&svg);
        assert_eq!(svg.matches(mark).count(), n, "{name}");
    }
    let series = std::fs::read_to_string(home.path().join("line_series.svg")).unwrap();
    for s in ["completed", "cancelled", "returned", "Orders Status"] {
        assert!(series.contains(&format!(">{s}</text>")), "legend {s}");
    }
}

#[test]
fn vega_lite_files_carry_the_rows() {
    let home = tempfile::tempdir().unwrap();
    // Rows as arrays with a schema: objects keyed by column name, values as sent.
    let spec: Value =
        serde_json::from_str(&chart_file(home.path(), "bar", "vl.json", "text")).unwrap();
    let values = spec["data"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 8);
    assert_eq!(
        values[0],
        serde_json::json!({"categories_name": "Electronics", "revenue": "2767850.4"})
    );
    assert_eq!(spec["mark"]["type"], "bar");
    assert_eq!(spec["encoding"]["x"]["sort"], "-y");
    assert_eq!(spec["data"]["format"]["parse"]["revenue"], "number");
    // Rows as objects: the very objects of the result, dotted names escaped in the encoding.
    let spec: Value =
        serde_json::from_str(&chart_file(home.path(), "arc", "vl.json", "yaml")).unwrap();
    let raw = std::fs::read_to_string(fixture("arc")).unwrap();
    let result: Value = raw
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|f| {
            f["toolCall"]["result"]
                .as_str()
                .map(|r| serde_json::from_str::<Value>(r).unwrap())
        })
        .find(|r| r.get("data").is_some())
        .unwrap();
    assert_eq!(spec["data"]["values"], result["data"]);
    assert_eq!(spec["encoding"]["theta"]["field"], "orders\\.count");
}

#[test]
fn html_pages_embed_the_spec_and_several_charts_are_numbered() {
    let home = tempfile::tempdir().unwrap();
    let page = chart_file(home.path(), "line", "html", "final");
    assert!(page.contains("vegaEmbed(\"#vis\", spec"), "{page}");
    assert!(page.contains("https://cdn.jsdelivr.net/npm/vega-lite@5"));
    assert!(
        page.contains("\"values\":[{\"month\":\"2024-01-01T00:00:00.000\""),
        "data inlined"
    );
    // Two charted results in one answer: -1 and -2 before the extension.
    let bar = std::fs::read_to_string(fixture("bar")).unwrap();
    let line = std::fs::read_to_string(fixture("line")).unwrap();
    let tools: Vec<&str> = line
        .lines()
        .filter(|l| l.contains("\"toolCall\""))
        .collect();
    let mut lines: Vec<&str> = bar.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| l.contains("\"toolCall\""))
        .unwrap()
        + 1;
    for (i, t) in tools.iter().enumerate() {
        lines.insert(at + i, t);
    }
    let both = home.path().join("both.ndjson");
    std::fs::write(&both, lines.join("\n") + "\n").unwrap();
    let out = analyst(home.path())
        .args(["chat", "-o", "final", "--replay"])
        .arg(&both)
        .arg("--chart")
        .arg(home.path().join("c.vl.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(home.path().join("c-1.vl.json").exists() && home.path().join("c-2.vl.json").exists());
    assert!(!home.path().join("c.vl.json").exists());
    let bad = analyst(home.path())
        .args(["chat", "-o", "final", "--replay"])
        .arg(fixture("bar"))
        .args(["--chart", "c.png"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--chart c.png: the name must end in .svg, .html or .vl.json")
    );
}

/// The emulator's agent picks the mark the question suits (issue 16, item 5): a trend is a line,
/// a share an arc, two measures a point chart, a comparison bars; each draws as SVG.
#[test]
fn the_demo_agent_charts_each_kind_of_question() {
    let home = tempfile::tempdir().unwrap();
    for (question, mark) in [
        ("revenue by month in 2025", "line"),
        ("share of revenue by category in 2025", "arc"),
        ("revenue and units by category in 2025", "point"),
        ("revenue by category in 2025", "bar"),
    ] {
        let svg = home.path().join(format!("{mark}.svg"));
        let out = analyst(home.path())
            .args(["chat", "--demo", "-o", "json", "--chart"])
            .arg(&svg)
            .arg(question)
            .output()
            .unwrap();
        assert!(out.status.success(), "{question}: {}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let spec = doc["toolCalls"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find_map(|t| t["input"]["vegaSpec"].as_str())
            .unwrap_or_else(|| panic!("{question}: no vegaSpec"));
        let spec: Value = serde_json::from_str(spec).unwrap();
        assert_eq!(spec["mark"]["type"], mark, "{question}: {spec}");
        // Each SQL result with a spec is a file (CLI.md): the total the answer cites is a
        // `text` mark, drawn as a number; the answer's own query, the last, is the chart.
        let specs = doc["toolCalls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["input"]["vegaSpec"].is_string())
            .count();
        let files: Vec<PathBuf> = match specs {
            1 => vec![svg.clone()],
            n => (1..=n)
                .map(|i| home.path().join(format!("{mark}-{i}.svg")))
                .collect(),
        };
        for f in &files {
            let drawn = std::fs::read_to_string(f)
                .unwrap_or_else(|e| panic!("{question}: {}: {e}", f.display()));
            assert_well_formed(&drawn);
        }
        let charts = files
            .iter()
            .filter(|f| {
                !std::fs::read_to_string(f)
                    .unwrap()
                    .contains("class=\"number\"")
            })
            .count();
        assert_eq!(charts, 1, "{question}: one chart beside the numbers");
    }
}

/// A result whose spec is a `text` mark (a single number) is written too: as the number in
/// `.svg`, as its spec in `.vl.json` (it was left out, with "no result carried a chart"); the
/// number is the orders of 2025 counted by hand. A mark SVG does not draw is left out of
/// `.svg` with a warning that names the formats that keep it.
#[test]
fn a_single_number_is_written_as_a_chart_too() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let want = common::engine::hand(
        common::engine::sample(),
        "SELECT COUNT(*) FROM orders WHERE created_at >= '2025-01-01' AND created_at < '2026-01-01'",
    )[0][0]
        .parse::<f64>()
        .unwrap();
    let saved = h.join("n.ndjson");
    let out = analyst(h)
        .args([
            "chat",
            "--demo",
            "--today",
            "2026-03-10",
            "-o",
            "final",
            "--save",
        ])
        .arg(&saved)
        .args(["--chart", "n.svg", "how many orders last year"])
        .current_dir(h)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(h.join("n.svg")).unwrap();
    assert_well_formed(&svg);
    let value = svg
        .lines()
        .find(|l| l.contains("class=\"number\""))
        .and_then(|l| l.split('>').nth(1))
        .and_then(|t| t.split('<').next())
        .unwrap_or_else(|| panic!("no value in {svg}"));
    assert_eq!(
        value.replace(',', "").parse::<f64>().unwrap(),
        want,
        "{svg}"
    );
    let out = analyst(h)
        .args(["chat", "-o", "final", "--replay"])
        .arg(&saved)
        .args(["--chart", "n.vl.json"])
        .current_dir(h)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let vl: Value =
        serde_json::from_str(&std::fs::read_to_string(h.join("n.vl.json")).unwrap()).unwrap();
    assert_eq!(vl["mark"]["type"], "text", "{vl}");
    assert_eq!(
        vl["data"]["values"].as_array().map(Vec::len),
        Some(1),
        "{vl}"
    );

    // A mark the SVG writer does not draw: kept by .vl.json, left out of .svg with a warning.
    let stream = std::fs::read_to_string(&saved)
        .unwrap()
        .replace(r#"type\\\":\\\"text"#, r#"type\\\":\\\"rule"#);
    assert!(stream.contains("rule"), "the fixture's mark was replaced");
    let ruled = h.join("rule.ndjson");
    std::fs::write(&ruled, stream).unwrap();
    let out = analyst(h)
        .args(["chat", "-o", "final", "--replay"])
        .arg(&ruled)
        .args(["--chart", "r.svg"])
        .current_dir(h)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!h.join("r.svg").exists());
    // With several charts, a chart keeps its number in every format: the total (now a rule)
    // is not drawn as SVG, and the breakdown is -2 in .svg as in .html.
    let two = h.join("two.ndjson");
    let out = analyst(h)
        .args([
            "chat",
            "--demo",
            "--today",
            "2026-03-10",
            "-o",
            "final",
            "--save",
        ])
        .arg(&two)
        .arg("revenue by category in 2025")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The total the answer cites carries no chart (issue 33); a first charted result is made
    // of the breakdown's frames under another id, its mark a rule.
    let saved_two = std::fs::read_to_string(&two).unwrap();
    let main = |l: &&str| l.contains("-tool-2\"");
    let copies: Vec<String> = saved_two
        .lines()
        .filter(main)
        .map(|l| {
            l.replace("-tool-2\"", "-tool-0\"")
                .replace(r#"type\\\":\\\"bar"#, r#"type\\\":\\\"rule"#)
        })
        .collect();
    assert!(
        copies.iter().any(|l| l.contains("rule")),
        "the mark was replaced"
    );
    let mut ruled_two = String::new();
    let mut placed = false;
    for line in saved_two.lines() {
        if main(&line) && !placed {
            placed = true;
            for c in &copies {
                ruled_two.push_str(c);
                ruled_two.push('\n');
            }
        }
        ruled_two.push_str(line);
        ruled_two.push('\n');
    }
    std::fs::write(&two, ruled_two).unwrap();
    for chart in ["t.svg", "t.html"] {
        let out = analyst(h)
            .args(["chat", "-o", "final", "--replay"])
            .arg(&two)
            .args(["--chart", chart])
            .current_dir(h)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert!(!h.join("t-1.svg").exists() && h.join("t-2.svg").exists());
    assert!(h.join("t-1.html").exists() && h.join("t-2.html").exists());
    assert!(
        stderr.contains("--chart r.svg not written: SVG output does not draw its mark")
            && stderr.contains(".vl.json keep"),
        "{stderr}"
    );
}

/// A `vegaSpec` that cannot be charted (not JSON, or without a mark) is named in a warning
/// instead of vanishing: the run used to write the good chart alone, or say "no result in the
/// answer carried a chart" when it was the only one, as if the answer had none. It takes no
/// number, so the good chart is numbered as it would be without it.
#[test]
fn a_spec_that_cannot_be_charted_is_named() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let sql_frame = |n: usize, title: &str, spec: &str| {
        let result = serde_json::json!({
            "sqlQuery": "SELECT 1",
            "queryTitle": title,
            "schema": [{"name": "c", "column_type": "String"}, {"name": "v", "column_type": "Float64"}],
            "data": [["a", "1"], ["b", "2"]],
            "vegaSpec": spec,
        });
        serde_json::json!({
            "id": format!("1735000000001-message-tool-{n}"),
            "role": "assistant", "content": "", "isDelta": false, "isInProcess": false,
            "graphPath": ["data_analyst_agent", "tools"],
            "toolCall": {"name": "dataSqlApi", "input": "{\"sqlQuery\": \"SELECT 1\"}",
                         "result": result.to_string()},
            "sort": n + 1,
        })
        .to_string()
    };
    let good = r#"{"mark":"bar","encoding":{"x":{"field":"c","type":"nominal"},"y":{"field":"v","type":"quantitative"}}}"#;
    let lines = [
        r#"{"id":"__cutoff__","state":{"chatId":"c","isStreaming":false},"sort":0}"#.to_owned(),
        sql_frame(1, "Broken spec", r#"{"mark": "bar", "#),
        sql_frame(2, "Good", good),
        sql_frame(3, "Markless", r#"{"encoding": {}}"#),
        r#"{"id":"1735000000001-message-final","role":"assistant","content":"a and b","isDelta":false,"isInProcess":false,"graphPath":["final"],"sort":9}"#.to_owned(),
    ];
    let stream = h.join("s.ndjson");
    std::fs::write(&stream, lines.join("\n") + "\n").unwrap();
    for (chart, file) in [("c.svg", "c.svg"), ("c.vl.json", "c.vl.json")] {
        let out = analyst(h)
            .args(["chat", "-o", "final", "--replay"])
            .arg(&stream)
            .args(["--chart", chart])
            .current_dir(h)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(h.join(file).exists(), "{stderr}");
        assert!(
            stderr.contains(
                r#"the chart of "Broken spec" is not written: its vegaSpec is not JSON ("#
            ),
            "{stderr}"
        );
        assert!(
            stderr.contains(r#"the chart of "Markless" is not written: its vegaSpec has no mark"#),
            "{stderr}"
        );
        assert!(stderr.contains(&format!("wrote {file}")), "{stderr}");
    }
    // Alone, the broken spec is said, not "no result carried a chart".
    let alone = h.join("alone.ndjson");
    std::fs::write(
        &alone,
        [lines[0].clone(), lines[1].clone(), lines[4].clone()].join("\n") + "\n",
    )
    .unwrap();
    let out = analyst(h)
        .args(["chat", "-o", "final", "--replay"])
        .arg(&alone)
        .args(["--chart", "d.svg"])
        .current_dir(h)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("Broken spec") && !stderr.contains("carried a chart"),
        "{stderr}"
    );
    assert!(!h.join("d.svg").exists());
}

/// The lines of the terminal chart titled `title` (from the title to the blank line after it).
fn chart_lines(out: &str, title: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| *l != title)
        .take_while(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The line of the chart that starts with `label`, cut at the axis: (left of it without the
/// label, right of it).
fn sides<'a>(lines: &'a [String], label: &str) -> (&'a str, &'a str) {
    let line = lines
        .iter()
        .find(|l| l.starts_with(&format!("{label} ")))
        .unwrap_or_else(|| panic!("no bar for {label}: {lines:#?}"));
    let (left, right) = line
        .split_once('│')
        .unwrap_or_else(|| panic!("no zero axis in {line:?}"));
    (&left[label.len()..], right)
}

/// The display column of the zero axis in `line`.
fn axis_column(line: &str) -> usize {
    line.split_once('│').unwrap().0.chars().count()
}

/// Cells of bar glyphs in `s`.
fn bar_cells(s: &str) -> usize {
    s.chars().filter(|c| "█▓▐▉▊▋▌▍▎▏".contains(*c)).count()
}

/// Negative values are bars left of a zero axis, positive ones right of it, to one scale (the
/// terminal drew every bar growing right from the same origin, -1,000 the longest; only the
/// value's sign told them apart). The value column stays at the right edge.
#[test]
fn negative_bars_extend_left_of_the_zero_axis() {
    let home = tempfile::tempdir().unwrap();
    for columns in [60, 80, 100] {
        let out = text(
            &replay(
                home.path(),
                "bar_negative",
                columns,
                &["-o", "text", "--color", "never"],
            )
            .stdout,
        );
        let lines = chart_lines(&out, "Revenue change");
        assert!(lines.len() >= 5, "{out}");
        for l in &lines {
            assert!(l.chars().count() <= columns, "{columns}: {l}");
        }
        let (books_l, books_r) = sides(&lines, "Books");
        let (toys_l, toys_r) = sides(&lines, "Toys");
        let (grocery_l, grocery_r) = sides(&lines, "Grocery");
        // One axis for all bars, with a 0 under it.
        let axis = axis_column(lines.iter().find(|l| l.starts_with("Books")).unwrap());
        for l in lines.iter().filter(|l| l.contains('│')) {
            assert_eq!(axis_column(l), axis, "{columns}: {lines:#?}");
        }
        let zero = lines.last().unwrap();
        assert_eq!(zero.trim(), "0", "{lines:#?}");
        assert_eq!(
            zero.chars().count() - 1,
            axis,
            "0 under the axis: {lines:#?}"
        );
        // Negative bars are left of the axis and end at it; the positive one is right of it.
        assert_eq!(bar_cells(books_r), 0, "{columns}: {books_r:?}");
        assert_eq!(bar_cells(toys_r), 0, "{columns}: {toys_r:?}");
        assert_eq!(bar_cells(grocery_l), 0, "{columns}: {grocery_l:?}");
        assert!(
            books_l.ends_with('█') && toys_l.ends_with('█'),
            "{lines:#?}"
        );
        assert!(grocery_r.starts_with('█'), "{lines:#?}");
        // Lengths follow the sizes: 1,000 : 500 : 300 (to within a cell).
        let (b, t, g) = (
            bar_cells(books_l) as f64,
            bar_cells(toys_l) as f64,
            bar_cells(grocery_r) as f64,
        );
        assert!((t - b / 2.0).abs() <= 1.0, "{columns}: {b} {t}");
        assert!((g - b * 0.3).abs() <= 1.0, "{columns}: {b} {g}");
        // The values keep their column, signs and all.
        assert!(books_r.trim_end().ends_with(" -1,000"), "{books_r:?}");
        assert!(toys_r.trim_end().ends_with(" -500"), "{toys_r:?}");
        assert!(grocery_r.trim_end().ends_with(" 300"), "{grocery_r:?}");
    }
}

/// Stacked series stack each side from zero (as Vega-Lite does): negative parts left of the
/// axis, positive ones right, in the terminal and in SVG (which left negative parts out).
#[test]
fn stacked_negative_values_stack_below_zero() {
    let home = tempfile::tempdir().unwrap();
    let out = text(
        &replay(
            home.path(),
            "bar_series_negative",
            80,
            &["-o", "text", "--color", "never"],
        )
        .stdout,
    );
    let lines = chart_lines(&out, "Revenue change by channel");
    // Books: Online -400 next to the axis, Stores -250 beyond it; nothing right of zero.
    let (l, r) = sides(&lines, "Books");
    assert_eq!(bar_cells(r), 0, "{lines:#?}");
    assert!(l.trim_start().starts_with('▓') && l.ends_with('█'), "{l:?}");
    // Toys: Stores -150 left, Online 300 right; Sports: Online -100 left, Stores 350 right.
    let (l, r) = sides(&lines, "Toys");
    assert!(
        l.trim().chars().all(|c| c == '▓') && r.starts_with('█'),
        "{lines:#?}"
    );
    let (l, r) = sides(&lines, "Sports");
    assert!(
        l.trim().chars().all(|c| c == '█') && r.starts_with('▓'),
        "{lines:#?}"
    );
    let (l, r) = sides(&lines, "Grocery");
    assert_eq!(bar_cells(l), 0, "{lines:#?}");
    assert!(r.starts_with('█') && r.contains('▓'), "{lines:#?}");

    let svg = chart_file(home.path(), "bar_series_negative", "svg", "final");
    assert_well_formed(&svg);
    let bars: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<rect class=\"bar\""))
        .collect();
    assert_eq!(bars.len(), 8, "every value is a segment: {svg}");
    // The zero axis is the vertical line of the axis group; negative segments end at or
    // left of it, positive ones start at or right of it.
    let axis_line = svg
        .lines()
        .find(|l| l.starts_with("<g class=\"axis\""))
        .unwrap();
    let zero = attr(axis_line, "x1");
    for bar in bars {
        let (x, w) = (attr(bar, "x"), attr(bar, "width"));
        let negative = bar.contains(": -");
        if negative {
            assert!((x + w - zero).abs() < 0.6 || x + w < zero, "{bar}");
        } else {
            assert!(x >= zero - 0.6, "{bar}");
        }
    }
}

/// An arc of values not all positive cannot be a pie or shares: drawn as bars with a note
/// saying why, in the terminal and in SVG.
#[test]
fn an_arc_of_negative_values_is_drawn_as_bars_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let note = "Negative values are not shares of a whole: drawn as bars, not a pie";
    let out = text(
        &replay(
            home.path(),
            "arc_negative",
            80,
            &["-o", "text", "--color", "never"],
        )
        .stdout,
    );
    let lines = chart_lines(&out, "Share of profit");
    assert!(lines.iter().any(|l| l == note), "{lines:#?}");
    assert!(
        !lines.iter().any(|l| l.contains('%')),
        "no shares: {lines:#?}"
    );
    let (l, r) = sides(&lines, "Books");
    assert!(bar_cells(l) > 0 && bar_cells(r) == 0, "{lines:#?}");
    let svg = chart_file(home.path(), "arc_negative", "svg", "final");
    assert_well_formed(&svg);
    assert!(!svg.contains("class=\"arc\""), "no pie: {svg}");
    assert_eq!(svg.matches("<rect class=\"bar\"").count(), 3, "{svg}");
    assert!(svg.contains(&format!(
        "class=\"note\" font-style=\"italic\">{note}</text>"
    )));
}

/// A result that carries fewer rows than it has (`totalRows`) says so under the terminal chart,
/// under the SVG's title and in the Vega-Lite title's subtitle; the rows themselves are not
/// touched. A whole result carries no note.
#[test]
fn a_cut_result_says_its_chart_shows_part_of_it() {
    let home = tempfile::tempdir().unwrap();
    let note = "Only the first 100 of 365 rows are charted";
    for columns in [60, 80, 100] {
        let out = text(
            &replay(
                home.path(),
                "line_cut",
                columns,
                &["-o", "text", "--color", "never"],
            )
            .stdout,
        );
        let lines = chart_lines(&out, "Revenue by day");
        let axis = lines.iter().position(|l| l.contains('└')).unwrap();
        assert!(
            lines[axis..].iter().any(|l| l == note),
            "{columns}: note under the chart: {lines:#?}"
        );
    }
    // Narrower than the note: wrapped, not wider than the terminal.
    let out = text(
        &replay(
            home.path(),
            "line_cut",
            30,
            &["-o", "text", "--color", "never"],
        )
        .stdout,
    );
    let lines = chart_lines(&out, "Revenue by day");
    assert!(
        lines.iter().any(|l| l.starts_with("Only the first")),
        "{lines:#?}"
    );
    assert!(lines.iter().all(|l| l.chars().count() <= 30), "{lines:#?}");

    let svg = chart_file(home.path(), "line_cut", "svg", "final");
    assert_well_formed(&svg);
    assert!(
        svg.contains(&format!(
            "class=\"note\" font-style=\"italic\">{note}</text>"
        )),
        "{svg}"
    );
    let vl: Value =
        serde_json::from_str(&chart_file(home.path(), "line_cut", "vl.json", "final")).unwrap();
    assert_eq!(
        vl["title"],
        serde_json::json!({"text": "Revenue by day", "subtitle": note})
    );
    assert_eq!(vl["data"]["values"].as_array().map(Vec::len), Some(100));

    // All rows arrived: no note anywhere.
    let out = text(&replay(home.path(), "bar", 80, &["-o", "text"]).stdout);
    assert!(!out.contains("are charted"), "{out}");
    let svg = chart_file(home.path(), "bar", "svg", "final");
    assert!(!svg.contains("class=\"note\""), "{svg}");
    let vl: Value =
        serde_json::from_str(&chart_file(home.path(), "bar", "vl.json", "final")).unwrap();
    assert_eq!(vl["title"], "Revenue by category");
}

/// Issue 33, item 1: a breakdown's answer presents one result, so `--chart cat.svg` writes
/// exactly `cat.svg`: the total the agent runs to compute shares carries no `vegaSpec` and is
/// no file (it was `cat-1.svg`, a lone number, beside `cat-2.svg`).
#[test]
fn one_presented_result_writes_exactly_the_file_named() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for question in [
        "Revenue by category in 2025",
        "What share of revenue came from Electronics in 2025?",
    ] {
        let out = analyst(h)
            .args(["chat", "--demo", "--today", "2026-03-10", "-o", "json"])
            .args(["--chart", "cat.svg", question])
            .current_dir(h)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let sql_calls = doc["toolCalls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["input"]["sqlQuery"].is_string())
            .count();
        assert_eq!(
            sql_calls, 2,
            "{question}: the whole and the presented result"
        );
        assert!(h.join("cat.svg").exists(), "{question}");
        assert!(!h.join("cat-1.svg").exists() && !h.join("cat-2.svg").exists());
        std::fs::remove_file(h.join("cat.svg")).unwrap();
    }
}
