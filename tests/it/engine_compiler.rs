//! The semantic layer's compiler: dialect SQL over views and cubes -> SQLite over the base tables.
//! Each supported construct is checked against an independent hand-written SQLite query; each
//! refused construct gets an error naming it; row-level security is proven on the sample
//! (`if_missing: all`) and on the help-desk fixture (`if_missing: none`).

use crate::common;

use std::path::{Path, PathBuf};

use analyst::emulator::engine::{Engine, SecurityContext};
use common::engine::*;

fn anyone() -> SecurityContext {
    SecurityContext::default()
}

fn ctx(pairs: &[(&str, &str)]) -> SecurityContext {
    SecurityContext {
        user_attributes: pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
    }
}

/// Rows of a dialect query, as text.
fn rows(engine: &Engine, sql: &str, c: &SecurityContext) -> Vec<Vec<String>> {
    let (_, r) = engine
        .query(sql, c)
        .unwrap_or_else(|e| panic!("dialect SQL failed: {e}\n{sql}"));
    r.rows
        .iter()
        .map(|row| row.iter().map(|c| c.text().unwrap_or_default()).collect())
        .collect()
}

fn same(got: Vec<Vec<String>>, want: Vec<Vec<String>>, context: &str) {
    assert!(!want.is_empty(), "{context}: the hand query found nothing");
    assert_eq!(
        got.len(),
        want.len(),
        "{context}\n got {got:?}\nwant {want:?}"
    );
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.len(), w.len(), "{context}: {g:?} vs {w:?}");
        for (a, b) in g.iter().zip(w) {
            match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => assert!((x - y).abs() < 0.011, "{context}: {g:?} vs {w:?}"),
                _ => assert_eq!(a, b, "{context}: {g:?} vs {w:?}"),
            }
        }
    }
}

/// A dialect query and the hand-written SQLite that must give the same rows.
fn check(sql: &str, hand_sql: &str) {
    let e = sample();
    same(rows(e, sql, &anyone()), hand(e, hand_sql), sql);
}

const LINES: &str = "FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id JOIN categories c ON c.id = p.category_id JOIN customers u ON u.id = o.customer_id";

#[test]
fn projection_measure_where_group_by_position_order_limit() {
    check(
        "SELECT categories_name, MEASURE(revenue) AS revenue FROM sales WHERE orders_created_at >= '2025-01-01' AND orders_created_at < '2026-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 5",
        &format!(
            "SELECT c.name, ROUND(SUM(i.amount), 2) {LINES} WHERE o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 5"
        ),
    );
}

#[test]
fn a_measure_by_its_own_aggregate_equals_measure() {
    check(
        "SELECT SUM(revenue), COUNT(orders_count), AVG(average_price) FROM sales",
        &format!(
            "SELECT ROUND(SUM(i.amount), 2), COUNT(DISTINCT o.id), ROUND(AVG(i.unit_price), 2) {LINES}"
        ),
    );
}

#[test]
fn group_by_name_and_qualified_members() {
    check(
        "SELECT sales.customers_region, MEASURE(sales.orders_count) FROM sales GROUP BY customers_region ORDER BY customers_region",
        &format!("SELECT u.region, COUNT(DISTINCT o.id) {LINES} GROUP BY 1 ORDER BY 1"),
    );
}

#[test]
fn where_in_between_like_is_null_not_or() {
    check(
        "SELECT customers_country, MEASURE(units) FROM sales WHERE customers_country IN ('Germany', 'France') AND orders_created_at BETWEEN '2024-01-01' AND '2024-12-31 23:59:59' AND NOT (orders_status = 'cancelled' OR orders_status = 'returned') AND products_name LIKE 'W%' AND customers_name IS NOT NULL GROUP BY 1 ORDER BY 1",
        &format!(
            "SELECT u.country, SUM(i.quantity) {LINES} WHERE u.country IN ('Germany', 'France') AND o.created_at BETWEEN '2024-01-01' AND '2024-12-31 23:59:59' AND o.status NOT IN ('cancelled', 'returned') AND p.name LIKE 'W%' GROUP BY 1 ORDER BY 1"
        ),
    );
    check(
        "SELECT MEASURE(line_count) FROM sales WHERE customers_name IS NULL",
        &format!("SELECT COUNT(*) {LINES} WHERE u.name IS NULL"),
    );
}

#[test]
fn numeric_comparisons_and_timestamps_with_t() {
    check(
        "SELECT MEASURE(line_count) FROM sales WHERE products_price > 100 AND orders_created_at >= TIMESTAMP '2025-03-01T00:00:00.000Z' AND orders_created_at < '2025-04-01T00:00:00Z'",
        &format!(
            "SELECT COUNT(*) {LINES} WHERE p.price > 100 AND o.created_at >= '2025-03-01' AND o.created_at < '2025-04-01'"
        ),
    );
}

#[test]
fn having_on_measures_and_offset() {
    check(
        "SELECT products_name, MEASURE(revenue) FROM sales GROUP BY 1 HAVING MEASURE(revenue) > 200000 ORDER BY 2 DESC, 1 LIMIT 3 OFFSET 1",
        &format!(
            "SELECT p.name, ROUND(SUM(i.amount), 2) {LINES} GROUP BY 1 HAVING SUM(i.amount) > 200000 ORDER BY 2 DESC, 1 LIMIT 3 OFFSET 1"
        ),
    );
}

/// An order's total from its lines, per order (the sum of `order_items.amount`), by hand.
const TOTALS: &str = "(SELECT order_id, SUM(amount) total FROM order_items GROUP BY order_id)";

#[test]
fn a_sub_query_dimension_is_a_measure_of_the_joined_cube_per_row() {
    // On its own cube: orders over $100 in 2025.
    check(
        "SELECT MEASURE(count) FROM orders WHERE total > 100 AND created_at >= '2025-01-01' AND created_at < '2026-01-01'",
        &format!(
            "SELECT COUNT(*) FROM orders o JOIN {TOTALS} t ON t.order_id = o.id WHERE t.total > 100 AND o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01'"
        ),
    );
    // Over the view rooted at the lines: the lines of orders between $50 and $100.
    check(
        "SELECT categories_name, MEASURE(revenue) FROM sales WHERE orders_total BETWEEN 50 AND 100 GROUP BY 1 ORDER BY 2 DESC, 1",
        &format!(
            "SELECT c.name, ROUND(SUM(i.amount), 2) {LINES} JOIN {TOTALS} t ON t.order_id = o.id WHERE t.total BETWEEN 50 AND 100 GROUP BY 1 ORDER BY 2 DESC, 1"
        ),
    );
    // Selected, grouped and ordered like any dimension.
    check(
        "SELECT id, total FROM orders WHERE id <= 3 ORDER BY 1",
        &format!(
            "SELECT o.id, ROUND(t.total, 2) FROM orders o JOIN {TOTALS} t ON t.order_id = o.id WHERE o.id <= 3 ORDER BY 1"
        ),
    );
    check(
        "SELECT MEASURE(orders_count), MEASURE(revenue) FROM sales WHERE orders_total < 20",
        &format!(
            "SELECT COUNT(DISTINCT o.id), ROUND(SUM(i.amount), 2) {LINES} JOIN {TOTALS} t ON t.order_id = o.id WHERE t.total < 20"
        ),
    );
}

#[test]
fn a_sub_query_dimension_keeps_the_policy_of_the_outer_rows() {
    let e = sample();
    let got = rows(
        e,
        "SELECT MEASURE(count) FROM orders WHERE total > 300",
        &ctx(&[("region", "Europe")]),
    );
    let want = hand(
        e,
        &format!(
            "SELECT COUNT(*) FROM orders o JOIN customers u ON u.id = o.customer_id JOIN {TOTALS} t ON t.order_id = o.id WHERE t.total > 300 AND u.region = 'Europe'"
        ),
    );
    same(got, want, "orders over $300 in Europe");
}

#[test]
fn having_keeps_groups_by_a_measure_threshold() {
    // Customers with more than 5 orders in 2025: one row per customer that passes.
    check(
        "SELECT customers_name, MEASURE(orders_count) AS orders_count FROM sales WHERE orders_created_at >= '2025-01-01' AND orders_created_at < '2026-01-01' GROUP BY 1 HAVING MEASURE(orders_count) > 5 ORDER BY 2 DESC, 1",
        "SELECT u.name, COUNT(*) FROM orders o JOIN customers u ON u.id = o.customer_id WHERE o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01' GROUP BY u.id HAVING COUNT(*) > 5 ORDER BY 2 DESC, 1",
    );
}

#[test]
fn date_trunc_on_time_dimensions() {
    check(
        "SELECT DATE_TRUNC('month', orders_created_at) AS month, MEASURE(orders_count) FROM sales WHERE orders_created_at >= '2025-01-01' AND orders_created_at < '2025-07-01' GROUP BY 1 ORDER BY 1",
        "SELECT substr(created_at, 1, 7) || '-01', COUNT(*) FROM orders WHERE created_at >= '2025-01-01' AND created_at < '2025-07-01' GROUP BY 1 ORDER BY 1",
    );
    check(
        "SELECT DATE_TRUNC('quarter', orders_created_at), MEASURE(orders_count) FROM sales WHERE orders_created_at < '2024-01-01' GROUP BY DATE_TRUNC('quarter', orders_created_at) ORDER BY 1",
        "SELECT substr(created_at, 1, 5) || printf('%02d', (CAST(substr(created_at, 6, 2) AS INTEGER) - 1) / 3 * 3 + 1) || '-01', COUNT(*) FROM orders WHERE created_at < '2024-01-01' GROUP BY 1 ORDER BY 1",
    );
}

#[test]
fn arithmetic_of_measures_divides_as_numbers() {
    check(
        "SELECT MEASURE(revenue) / MEASURE(orders_count) AS aov, MEASURE(average_order_value) FROM sales WHERE orders_created_at >= '2025-01-01'",
        &format!(
            "SELECT SUM(i.amount) * 1.0 / COUNT(DISTINCT o.id), SUM(i.amount) * 1.0 / COUNT(DISTINCT o.id) {LINES} WHERE o.created_at >= '2025-01-01'"
        ),
    );
}

#[test]
fn cubes_are_queryable_too() {
    check(
        "SELECT status, MEASURE(count) FROM orders GROUP BY 1 ORDER BY 1",
        "SELECT status, COUNT(*) FROM orders GROUP BY 1 ORDER BY 1",
    );
}

#[test]
fn the_result_columns_carry_names_titles_and_roles() {
    let c = sample()
        .compile(
            "SELECT DATE_TRUNC('year', orders_created_at), categories_name AS cat, MEASURE(revenue) FROM sales GROUP BY 1, 2",
            &anyone(),
        )
        .unwrap();
    let names: Vec<&str> = c.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["orders_created_at", "cat", "revenue"]);
    let types: Vec<&str> = c.columns.iter().map(|c| c.sql_type).collect();
    assert_eq!(types, ["time", "string", "number"]);
    assert_eq!(c.columns[2].title, "Revenue");
}

/// The error of a refused query, which must name `needle`.
fn refused(sql: &str, needle: &str) {
    let e = sample()
        .compile(sql, &anyone())
        .expect_err(&format!("should be refused: {sql}"));
    assert!(
        e.to_string().contains(needle),
        "{sql}\nerror {e:?} does not name {needle:?}"
    );
}

#[test]
fn refuses_base_tables_writes_and_second_statements() {
    refused("SELECT name FROM sqlite_master", "not a cube or view");
    refused("SELECT amount FROM order_lines", "not a cube or view");
    refused("INSERT INTO orders VALUES (1)", "INSERT");
    refused("DELETE FROM orders", "DELETE");
    refused("DROP TABLE orders", "DROP");
    refused("UPDATE orders SET status = 'x'", "UPDATE");
    refused("PRAGMA query_only = 0", "");
    refused(
        "SELECT MEASURE(revenue) FROM sales; SELECT 1 FROM sales",
        "one statement",
    );
    refused("ATTACH DATABASE 'x' AS y", "");
}

#[test]
fn refuses_functions_outside_the_allow_list() {
    refused("SELECT random() FROM sales", "function RANDOM");
    refused("SELECT sqlite_version() FROM sales", "SQLITE_VERSION");
    refused(
        "SELECT MEASURE(revenue) FROM sales WHERE load_extension('x') = 1",
        "LOAD_EXTENSION",
    );
    refused("SELECT COUNT(*) FROM sales", "COUNT(*)");
    refused("SELECT AVG(revenue) FROM sales", "does not match");
    refused("SELECT SUM(customers_country) FROM sales", "is a dimension");
    refused(
        "SELECT DATE_TRUNC('month', customers_country) FROM sales",
        "not a time dimension",
    );
    refused(
        "SELECT DATE_TRUNC('fortnight', orders_created_at) FROM sales",
        "'month'",
    );
    refused(
        "SELECT MEASURE(revenue) OVER () FROM sales",
        "window functions",
    );
}

#[test]
fn refuses_other_constructs_by_name() {
    refused("SELECT * FROM sales", "SELECT *");
    refused("SELECT DISTINCT customers_country FROM sales", "DISTINCT");
    refused(
        "SELECT customers_country FROM sales JOIN orders ON 1 = 1",
        "JOIN",
    );
    refused(
        "SELECT customers_country FROM sales, orders",
        "only one view",
    );
    refused("SELECT x FROM (SELECT 1 AS x) t", "subquery in FROM");
    refused(
        "SELECT MEASURE(revenue) FROM sales WHERE customers_country IN (SELECT country FROM customers)",
        "subquery",
    );
    refused("SELECT CASE WHEN units > 1 THEN 1 END FROM sales", "CASE");
    refused("SELECT CAST(revenue AS INT) FROM sales", "CAST");
    refused(
        "WITH t AS (SELECT 1) SELECT MEASURE(revenue) FROM sales",
        "WITH",
    );
    refused(
        "SELECT customers_country FROM sales UNION SELECT customers_region FROM sales",
        "UNION",
    );
    refused("SELECT revenue FROM sales", "MEASURE(revenue)");
    refused(
        "SELECT MEASURE(revenue) FROM sales WHERE MEASURE(revenue) > 10",
        "HAVING",
    );
    refused(
        "SELECT customers_country, MEASURE(revenue) FROM sales",
        "GROUP BY",
    );
    refused("SELECT MEASURE(revenue) FROM sales GROUP BY 1", "measure");
    refused("SELECT MEASURE(nope) FROM sales", "`nope` is not a member");
    refused("SELECT orders.status FROM sales", "not the queried");
    refused("SELECT MEASURE(revenue) FROM sales LIMIT 'x'", "LIMIT");
    refused(
        "SELECT MEASURE(revenue) FROM sales ORDER BY 3",
        "ORDER BY 3",
    );
    refused("SELEC revenue FROM sales", "syntax error");
}

#[test]
fn the_shown_sql_is_rerunnable_with_the_same_numbers() {
    // One compiler for the agent and the data API: the same SQL gives the same rows twice.
    let sql = "SELECT customers_country, MEASURE(orders_count) FROM sales GROUP BY 1 ORDER BY 2 DESC LIMIT 3";
    let a = rows(sample(), sql, &anyone());
    let b = rows(sample(), sql, &anyone());
    assert_eq!(a, b);
}

#[test]
fn two_users_get_different_rows_from_the_same_sql() {
    let e = sample();
    let sql = "SELECT customers_region, MEASURE(revenue) FROM sales WHERE orders_created_at >= '2025-01-01' GROUP BY 1 ORDER BY 1";
    for region in ["Europe", "Americas"] {
        let got = rows(e, sql, &ctx(&[("region", region)]));
        let want = hand(
            e,
            &format!(
                "SELECT u.region, ROUND(SUM(i.amount), 2) {LINES} WHERE o.created_at >= '2025-01-01' AND u.region = '{region}' GROUP BY 1"
            ),
        );
        same(got, want, region);
    }
    // Without the attribute, the sample's policy (`if_missing: all`) shows every region.
    assert_eq!(rows(e, sql, &anyone()).len(), 3);
    // Two values of one attribute: either.
    let both = rows(
        e,
        sql,
        &ctx(&[("region", "Europe"), ("region", "Asia Pacific")]),
    );
    assert_eq!(both.len(), 2, "{both:?}");
}

#[test]
fn no_query_reaches_rows_outside_the_policy() {
    let e = sample();
    let europe = ctx(&[("region", "Europe")]);
    let total_europe = hand_number(
        e,
        &format!("SELECT ROUND(SUM(i.amount), 2) {LINES} WHERE u.region = 'Europe'"),
    );
    for sql in [
        "SELECT MEASURE(revenue) FROM sales WHERE 1 = 1 OR customers_region = 'Americas'",
        "SELECT MEASURE(revenue) FROM sales WHERE customers_region = 'Americas' OR TRUE",
        "SELECT MEASURE(revenue) FROM sales WHERE NOT (customers_region = 'Europe') OR 1 = 1",
        "SELECT MEASURE(revenue) FROM sales HAVING MEASURE(revenue) > 0 OR 1 = 1",
    ] {
        let got = rows(e, sql, &europe);
        let v: f64 = got[0][0].parse().unwrap();
        assert!(
            (v - total_europe).abs() < 0.011,
            "{sql}: {v} vs {total_europe}"
        );
    }
    let other = rows(
        e,
        "SELECT customers_region, MEASURE(orders_count) FROM sales WHERE customers_region <> 'Europe' GROUP BY 1",
        &europe,
    );
    assert!(other.is_empty(), "{other:?}");
    // The orders cube reaches customers through its join, so its policy applies there too.
    let orders = rows(e, "SELECT MEASURE(count) FROM orders", &europe);
    let want = hand_number(
        e,
        "SELECT COUNT(*) FROM orders o JOIN customers u ON u.id = o.customer_id WHERE u.region = 'Europe'",
    );
    assert_eq!(orders[0][0].parse::<f64>().unwrap(), want);
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/engine")
        .join(name)
}

#[test]
fn a_policy_without_the_attribute_shows_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("support.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&std::fs::read_to_string(fixture("support.sql")).unwrap())
        .unwrap();
    let e = Engine::open(Some(&fixture("support.yaml")), Some(&db)).unwrap();
    let sql = "SELECT teams_office, MEASURE(count) FROM support GROUP BY 1 ORDER BY 1";
    assert!(rows(&e, sql, &anyone()).is_empty());
    assert!(rows(&e, sql, &ctx(&[("team", "Berlin")])).is_empty());
    for office in ["Berlin", "Lisbon"] {
        let got = rows(&e, sql, &ctx(&[("office", office)]));
        let want = hand(
            &e,
            &format!(
                "SELECT t.office, COUNT(*) FROM tickets k JOIN teams t ON t.id = k.team_id WHERE t.office = '{office}' GROUP BY 1"
            ),
        );
        same(got, want, office);
    }
    // A literal that looks like an escape cannot break out of the policy.
    let sneaky = ctx(&[("office", "Berlin' OR '1'='1")]);
    assert!(rows(&e, sql, &sneaky).is_empty());
}

#[test]
fn the_agents_sql_is_dialect_sql_that_reruns_to_the_same_rows() {
    let e = sample();
    for (question, attrs) in [
        ("Top 5 product categories by revenue in 2025", &[][..]),
        ("monthly orders in 2024", &[("region", "Europe")][..]),
        (
            "revenue by country last month",
            &[("region", "Americas")][..],
        ),
        // Numeric filters: an order total (a sub_query dimension) and a HAVING threshold.
        (
            "How many orders over $100 in 2025?",
            &[("region", "Europe")][..],
        ),
        ("revenue from orders above 500 dollars in 2025", &[][..]),
        (
            "products with revenue over $10,000 in 2025",
            &[("region", "Americas")][..],
        ),
    ] {
        let run = ask_thread(e, &[question], attrs);
        let result = sql_result(&run).expect("a SQL tool call");
        let sql = result["sqlQuery"].as_str().unwrap();
        // Over the view, or over the one cube every member belongs to ("monthly orders").
        assert!(
            sql.contains("MEASURE(") && (sql.contains("FROM sales") || sql.contains("FROM orders")),
            "{sql}"
        );
        assert!(!sql.contains("JOIN") && !sql.contains("region ="), "{sql}");
        let c = ctx(attrs);
        let again = rows(e, sql, &c);
        let shown: Vec<Vec<String>> = result["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .collect();
        assert_eq!(again, shown, "{question}: {sql}");
    }
}
