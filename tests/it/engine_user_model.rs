//! A user's model and SQLite file from tests/fixtures/engine, end to end: questions, row-level
//! security by office (no attribute means no rows), branches, a model over the sample data, and a
//! model inferred from a file alone.

use crate::common;

use std::path::{Path, PathBuf};

use analyst::emulator::engine::Engine;
use common::engine::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/engine")
        .join(name)
}

/// Builds the fixture database from its SQL script into a temporary directory.
fn database(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("support.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&std::fs::read_to_string(fixture("support.sql")).unwrap())
        .unwrap();
    path
}

fn user_engine(dir: &tempfile::TempDir) -> Engine {
    Engine::open(Some(&fixture("support.yaml")), Some(&database(dir))).unwrap()
}

#[test]
fn user_model_answers_with_row_level_security() {
    let dir = tempfile::tempdir().unwrap();
    let engine = user_engine(&dir);
    assert_eq!(engine.attribute_names(), ["office"]);
    for office in ["Berlin", "Lisbon"] {
        let run = ask_thread(
            &engine,
            &["how many tickets by team in 2024"],
            &[("office", office)],
        );
        let want = hand(
            &engine,
            &format!(
                "SELECT t.name, COUNT(*) FROM tickets k JOIN teams t ON t.id = k.team_id WHERE t.office = '{office}' \
             AND k.opened_at >= '2024-01-01' AND k.opened_at < '2025-01-01' GROUP BY 1 ORDER BY 2 DESC, 1"
            ),
        );
        assert!(!want.is_empty());
        let result = sql_result(&run).expect("SQL call");
        assert_same_rows(&result, &want, office);
        assert!(
            run.answer.contains(&want[0][0]) && run.answer.contains(&want[0][1]),
            "{}",
            run.answer
        );
        assert!(
            !result["sqlQuery"].as_str().unwrap().contains(office),
            "the shown SQL leaks the security filter"
        );
    }
    let run = ask_thread(
        &engine,
        &["average resolution time by priority"],
        &[("office", "Lisbon")],
    );
    let want = hand(
        &engine,
        "SELECT k.priority, ROUND(AVG(k.resolution_hours), 2) FROM tickets k JOIN teams t ON t.id = k.team_id \
                              WHERE t.office = 'Lisbon' GROUP BY 1 ORDER BY 2 DESC, 1",
    );
    assert_same_rows(&sql_result(&run).unwrap(), &want, "avg resolution");
    let run = ask_thread(&engine, &["how many tickets in 2024"], &[]);
    assert_eq!(
        sql_result(&run).unwrap()["data"],
        serde_json::json!([["0"]]),
        "no office attribute must see no rows"
    );
}

#[test]
fn branches_are_checked_against_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let engine = user_engine(&dir);
    let mut req = request("how many tickets", Vec::new());
    req.user_attributes = vec![("office".into(), "Berlin".into())];
    req.branch = Some("staging".into());
    assert!(
        sql_result(&engine.run(&req))
            .unwrap()
            .get("error")
            .is_none()
    );
    req.branch = Some("feature-x".into());
    let run = engine.run(&req);
    assert_eq!(
        sql_result(&run).unwrap()["error"],
        "Error: BadRequestError: Bad branch"
    );
    assert!(run.answer.contains("feature-x"), "{}", run.answer);
}

#[test]
fn a_model_without_data_runs_over_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("orders.yaml");
    std::fs::write(&model, "cubes:\n  - name: orders\n    sql_table: orders\n    measures:\n      - {name: count, type: count, title: Orders}\n    dimensions:\n      - {name: status, sql: status, type: string}\n      - {name: created_at, sql: created_at, type: time}\n").unwrap();
    let engine = Engine::open(Some(&model), None).unwrap();
    let run = ask_thread(&engine, &["orders by status in 2024"], &[]);
    let want = hand(
        &engine,
        "SELECT status, COUNT(*) FROM orders WHERE created_at >= '2024-01-01' AND created_at < '2025-01-01' GROUP BY 1 ORDER BY 2 DESC, 1",
    );
    assert_same_rows(&sql_result(&run).unwrap(), &want, "orders by status");
}

#[test]
fn data_without_a_model_gets_an_inferred_one() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(None, Some(&database(&dir))).unwrap();
    let run = ask_thread(&engine, &["tickets by priority"], &[]);
    let want = hand(
        &engine,
        "SELECT priority, COUNT(*) FROM tickets GROUP BY 1 ORDER BY 2 DESC, 1",
    );
    assert_same_rows(&sql_result(&run).expect(&run.answer), &want, "inferred");
    let run = ask_thread(&engine, &["tickets by team name"], &[]);
    let want = hand(
        &engine,
        "SELECT t.name, COUNT(*) FROM tickets k JOIN teams t ON t.id = k.team_id GROUP BY 1 ORDER BY 2 DESC, 1",
    );
    assert_same_rows(
        &sql_result(&run).expect(&run.answer),
        &want,
        "inferred join",
    );
}
