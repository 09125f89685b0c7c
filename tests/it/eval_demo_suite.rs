//! examples/demo-suite.yaml: every expected number is a fact of the sample data, checked here
//! against SQL written by hand on the emulator's warehouse (at `eval --demo`'s fixed date), and
//! the whole suite passes under `eval --demo`, which makes it a regression test of the agent.

use crate::common;

use analyst::emulator::engine::Engine;
use analyst::emulator::engine::warehouse::Cell;
use serde_json::Value;
use std::path::Path;

/// Joins of the sample schema, written independently of the model.
const J: &str = "FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id \
                 JOIN categories c ON c.id = p.category_id JOIN customers u ON u.id = o.customer_id";
const Y2025: &str = "o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01'";
const Y2024: &str = "o.created_at >= '2024-01-01' AND o.created_at < '2025-01-01'";

/// (case, hand-written SQL whose first cell is the case's expected number).
fn facts() -> Vec<(&'static str, String)> {
    let rev = "ROUND(SUM(i.amount), 2)";
    vec![
        ("revenue-2025", format!("SELECT {rev} {J} WHERE {Y2025}")),
        ("orders-2025", format!("SELECT COUNT(*) FROM orders o WHERE {Y2025}")),
        ("revenue-2024", format!("SELECT {rev} {J} WHERE {Y2024}")),
        ("orders-2024", format!("SELECT COUNT(*) FROM orders o WHERE {Y2024}")),
        ("top-categories-2025", format!("SELECT {rev} {J} WHERE {Y2025} GROUP BY c.name ORDER BY 1 DESC LIMIT 1")),
        ("revenue-by-country-2025", format!("SELECT {rev} {J} WHERE {Y2025} GROUP BY u.country ORDER BY 1 DESC LIMIT 1")),
        ("electronics-2025", format!("SELECT {rev} {J} WHERE {Y2025} AND c.name = 'Electronics'")),
        ("germany-2025", format!("SELECT {rev} {J} WHERE {Y2025} AND u.country = 'Germany'")),
        ("europe-countries-2025", format!("SELECT {rev} {J} WHERE {Y2025} AND u.region = 'Europe'")),
        ("top-products-2025", format!("SELECT {rev} {J} WHERE {Y2025} GROUP BY p.name ORDER BY 1 DESC LIMIT 1")),
        ("units-by-category-2025", format!("SELECT SUM(i.quantity) {J} WHERE {Y2025} GROUP BY c.name ORDER BY 1 DESC LIMIT 1")),
        ("most-orders-country-2025", format!("SELECT COUNT(*) FROM orders o JOIN customers u ON u.id = o.customer_id WHERE {Y2025} GROUP BY u.country ORDER BY 1 DESC LIMIT 1")),
        ("revenue-by-year", format!("SELECT {rev} {J}")),
        ("order-lines-q1-2025", "SELECT COUNT(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.created_at >= '2025-01-01' AND o.created_at < '2025-04-01'".into()),
        ("book-customers-2025", format!("SELECT COUNT(DISTINCT o.customer_id) {J} WHERE {Y2025} AND c.name = 'Books'")),
        ("revenue-by-status-2025", format!("SELECT {rev} {J} WHERE {Y2025} AND o.status = 'completed'")),
        ("category-then-country", format!("SELECT {rev} {J} WHERE {Y2025} AND u.country = 'United States'")),
        ("germany-then-2024", format!("SELECT {rev} {J} WHERE {Y2024} AND u.country = 'Germany'")),
        ("aov-by-region-2025", format!("SELECT ROUND(SUM(i.amount) / COUNT(DISTINCT o.id), 2) {J} WHERE {Y2025} AND u.region = 'Europe'")),
        ("sales-trend-2025", format!("SELECT {rev} {J} WHERE o.created_at >= '2025-12-01' AND o.created_at < '2026-01-01'")),
        ("orders-by-quarter-2025", "SELECT COUNT(*) FROM orders o WHERE o.created_at >= '2025-01-01' AND o.created_at < '2025-04-01'".into()),
        ("bottom-categories-units-2025", format!("SELECT SUM(i.quantity) {J} WHERE {Y2025} GROUP BY c.name ORDER BY 1 ASC LIMIT 1")),
    ]
}

fn hand_number(engine: &Engine, sql: &str) -> f64 {
    let r = engine
        .warehouse()
        .query(sql)
        .unwrap_or_else(|e| panic!("hand SQL failed: {e}\n{sql}"));
    r.rows
        .first()
        .and_then(|row| row.first())
        .and_then(Cell::as_f64)
        .unwrap_or_else(|| panic!("no number from {sql}"))
}

fn suite() -> serde_norway::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo-suite.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn expected_numbers_are_facts_of_the_sample() {
    // `eval --demo` fixes the emulator's date at 2026-06-30: the sample as of that day.
    let engine = Engine::sample_until(Some((2026, 6, 30))).expect("sample engine");
    let suite = suite();
    let cases = suite["cases"].as_sequence().unwrap();
    let facts = facts();
    let mut checked = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let number = &case["expect"]["number"];
        let Some(value) = number["value"].as_f64().or(number.as_f64()) else {
            continue;
        };
        let tolerance = number["tolerance"].as_f64().unwrap_or(0.0);
        let (_, sql) = facts
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name}: no hand-written SQL for its number"));
        let fact = hand_number(&engine, sql);
        if std::env::var_os("PRINT_FACTS").is_some() {
            println!("{name}: {fact}");
            continue;
        }
        assert!(
            (fact - value).abs() <= tolerance * value.abs() + 0.005,
            "{name}: the suite expects {value}, the data say {fact}"
        );
        checked += 1;
    }
    if std::env::var_os("PRINT_FACTS").is_none() {
        assert!(checked >= 20, "only {checked} numbers checked");
    }
}

#[test]
fn the_demo_suite_passes_under_eval_demo() {
    let home = tempfile::tempdir().unwrap();
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo-suite.yaml");
    let out = common::isolation::isolated(home.path())
        .args(["eval", "--demo", "-o", "json", "-j", "4"])
        .arg(&suite)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr: {stderr}"));
    let failed: Vec<String> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] != true)
        .map(|c| format!("{}: {} (answer: {})", c["name"], c["failures"], c["answer"]))
        .collect();
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(doc["summary"]["total"].as_u64().unwrap() >= 20);
}

/// The example suite of the manual's eval page (`# revenue.yaml`), as a reader copies it: its
/// numbers are facts of the sample for its session (region Europe), and it passes under
/// `eval --demo`.
#[test]
fn the_readme_example_suite_passes_under_eval_demo() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/eval.md"))
            .unwrap();
    let start = readme
        .find("# revenue.yaml\n")
        .expect("docs/eval.md's example suite");
    let end = start + readme[start..].find("```").unwrap();
    let yaml = &readme[start..end];
    let parsed: serde_norway::Value = serde_norway::from_str(yaml).unwrap();
    let region = &parsed["defaults"]["session"]["userAttributes"][0]["value"];
    assert_eq!(region.as_str(), Some("Europe"), "{yaml}");
    // `eval --demo` fixes the emulator's date at 2026-06-30: the sample as of that day.
    let engine = Engine::sample_until(Some((2026, 6, 30))).expect("sample engine");
    let rev = "ROUND(SUM(i.amount), 2)";
    for (name, sql) in [
        (
            "revenue-2025",
            format!("SELECT {rev} {J} WHERE {Y2025} AND u.region = 'Europe'"),
        ),
        (
            "germany-then-2024",
            format!("SELECT {rev} {J} WHERE {Y2024} AND u.country = 'Germany'"),
        ),
    ] {
        let case = parsed["cases"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|c| c["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("{name} in the README's suite"));
        let number = &case["expect"]["number"];
        let value = number["value"].as_f64().or(number.as_f64()).unwrap();
        let fact = hand_number(&engine, &sql);
        assert!(
            (fact - value).abs() < 0.005,
            "{name}: README {value}, data {fact}"
        );
    }

    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("revenue.yaml");
    std::fs::write(&file, yaml).unwrap();
    let out = common::isolation::isolated(home.path())
        .args(["eval", "--demo", "-o", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr: {stderr}"));
    assert_eq!(out.status.code(), Some(0), "{doc}\n{stderr}");
    assert_eq!(doc["summary"]["passed"], 2, "{doc}");
}
