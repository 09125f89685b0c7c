//! Issue 32: the analyst reads ordinary questions as a structure (what is measured, how: total,
//! average, share of a whole, growth, ranking; grouped by what, filtered by what, over which
//! period), over the sample and over a shop database it has never seen (SQLite, and the same
//! tables as CSV files). Every kind of question comes in at least five phrasings, and every
//! number an answer must state is computed here by SQL written by hand on the raw tables, never
//! taken from what the engine returned.

use crate::common;

use std::path::{Path, PathBuf};

use analyst::emulator::engine::Engine;
use common::engine::*;

/// How a hand-computed figure is written in an answer.
#[derive(Clone, Copy)]
enum F {
    Money,
    Count,
    /// A share, from a part and a whole: one decimal and a percent sign.
    Pct,
}

/// A question kind: phrasings that must all state the same figures.
struct Kind {
    name: &'static str,
    phrasings: Vec<&'static str>,
    /// (hand SQL giving one number, how it is written); for `Pct`, the SQL gives the part
    /// and the whole as two columns.
    figures: Vec<(String, F)>,
}

fn kind(name: &'static str, phrasings: &[&'static str], figures: Vec<(String, F)>) -> Kind {
    Kind {
        name,
        phrasings: phrasings.to_vec(),
        figures,
    }
}

/// The figure as the answer must write it.
fn written(engine: &Engine, sql: &str, f: F) -> String {
    match f {
        F::Money => money(hand_number(engine, sql)),
        F::Count => count(hand_number(engine, sql)),
        F::Pct => {
            let row = &hand(engine, sql)[0];
            let (part, whole): (f64, f64) = (row[0].parse().unwrap(), row[1].parse().unwrap());
            format!("{:.1}%", 100.0 * part / whole)
        }
    }
}

/// Asks every phrasing of every kind; returns the failures (a refusal, a missing figure).
fn check(engine: &Engine, kinds: &[Kind]) -> Vec<String> {
    let mut failures = Vec::new();
    for k in kinds {
        assert!(
            k.phrasings.len() >= 5,
            "{}: five phrasings at least",
            k.name
        );
        let want: Vec<String> = k
            .figures
            .iter()
            .map(|(sql, f)| written(engine, sql, *f))
            .collect();
        for q in &k.phrasings {
            let run = ask_thread(engine, &[q], &[]);
            if run.answer.contains("can't answer") || sql_result(&run).is_none() {
                failures.push(format!("[{}] {q}: refused: {}", k.name, run.answer));
                continue;
            }
            for w in &want {
                if !run.answer.contains(w.as_str()) {
                    failures.push(format!(
                        "[{}] {q}: answer lacks {w}: {}",
                        k.name, run.answer
                    ));
                }
            }
        }
    }
    failures
}

/// Joins of the sample schema, written independently of the model.
const J: &str = "FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id \
                 JOIN categories c ON c.id = p.category_id JOIN customers u ON u.id = o.customer_id";

fn year(col: &str, y: i32) -> String {
    format!("{col} >= '{y}-01-01' AND {col} < '{}-01-01'", y + 1)
}

fn sample_kinds() -> Vec<Kind> {
    let rev = "SUM(i.amount)";
    let y24 = year("o.created_at", 2024);
    let y25 = year("o.created_at", 2025);
    vec![
        kind(
            "share of revenue from a value",
            &[
                "What share of revenue came from Electronics in 2024?",
                "What percentage of 2024 revenue was Electronics?",
                "Electronics' share of revenue in 2024",
                "How much of our 2024 revenue came from Electronics, as a percentage?",
                "What proportion of revenue in 2024 was from Electronics?",
                "Percentage of revenue from Electronics in 2024",
            ],
            vec![
                (format!("SELECT SUM(CASE WHEN c.name = 'Electronics' THEN i.amount END), {rev} {J} WHERE {y24}"), F::Pct),
                (format!("SELECT {rev} {J} WHERE {y24} AND c.name = 'Electronics'"), F::Money),
                (format!("SELECT {rev} {J} WHERE {y24}"), F::Money),
            ],
        ),
        kind(
            "share of customers",
            &[
                "What percentage of customers are in Europe?",
                "share of customers from Europe",
                "what fraction of our customers are in Europe",
                "proportion of customers in Europe",
                "percent of customers located in Europe",
            ],
            vec![
                ("SELECT SUM(region = 'Europe'), COUNT(*) FROM customers".into(), F::Pct),
                ("SELECT COUNT(*) FROM customers WHERE region = 'Europe'".into(), F::Count),
            ],
        ),
        kind(
            "share of orders with a status",
            &[
                "What percentage of orders were returned in 2024?",
                "share of orders returned in 2024",
                "what portion of orders in 2024 were returned",
                "what percent of 2024 orders got returned",
                "proportion of returned orders in 2024",
            ],
            vec![
                (format!("SELECT SUM(o.status = 'returned'), COUNT(*) FROM orders o WHERE {y24}"), F::Pct),
                (format!("SELECT COUNT(*) FROM orders o WHERE {y24} AND o.status = 'returned'"), F::Count),
            ],
        ),
        kind(
            "signups",
            &[
                "how many customers signed up in 2024",
                "customers who joined in 2024",
                "new customers in 2024",
                "number of registrations in 2024",
                "signups by month in 2024",
                "new customers per quarter in 2024",
            ],
            vec![(format!("SELECT COUNT(*) FROM customers u WHERE {}", year("u.created_at", 2024)), F::Count)],
        ),
        kind(
            "average order value",
            &[
                "average order value in 2024",
                "what was the avg order value in 2024",
                "mean order value in 2024",
                "AOV in 2024",
                "average basket in 2024",
            ],
            vec![(
                format!("SELECT ROUND({rev} / COUNT(DISTINCT o.id), 2) {J} WHERE {y24}"),
                F::Money,
            )],
        ),
        kind(
            "count of an entity",
            &[
                "how many customers do we have",
                "number of customers",
                "customer count",
                "how many customers are there",
                "total number of customers",
            ],
            vec![("SELECT COUNT(*) FROM customers".into(), F::Count)],
        ),
        kind(
            "count of orders in a quarter",
            &[
                "How many orders did we receive in Q1 2025?",
                "orders in the first quarter of 2025",
                "number of orders in Q1 2025",
                "how many orders were placed in Q1 2025",
                "order count for Q1 2025",
            ],
            vec![(
                "SELECT COUNT(*) FROM orders WHERE created_at >= '2025-01-01' AND created_at < '2025-04-01'".into(),
                F::Count,
            )],
        ),
        kind(
            "ranking of entities",
            &[
                "top 3 customers by revenue in 2024",
                "best 3 customers by revenue in 2024",
                "which 3 customers had the most revenue in 2024",
                "who were our top 3 customers by revenue in 2024",
                "highest revenue customers in 2024, top 3",
            ],
            vec![(
                format!("SELECT {rev} {J} WHERE {y24} GROUP BY u.id ORDER BY 1 DESC LIMIT 1"),
                F::Money,
            )],
        ),
        kind(
            "break down by a dimension",
            &[
                "break down 2024 revenue by segment",
                "split 2024 revenue by customer segment",
                "revenue per segment in 2024",
                "2024 revenue for each segment",
                "segment breakdown of revenue in 2024",
            ],
            vec![
                (format!("SELECT {rev} {J} WHERE {y24} GROUP BY u.segment ORDER BY 1 DESC LIMIT 1"), F::Money),
                (format!("SELECT {rev} {J} WHERE {y24}"), F::Money),
            ],
        ),
        kind(
            "a quarter named in words",
            &[
                "revenue in Q3 2024",
                "revenue in the third quarter of 2024",
                "sales in the 3rd quarter of 2024",
                "what was revenue in Q3 of 2024",
                "Q3 2024 revenue",
            ],
            vec![(
                format!("SELECT {rev} {J} WHERE o.created_at >= '2024-07-01' AND o.created_at < '2024-10-01'"),
                F::Money,
            )],
        ),
        kind(
            "relative periods",
            &[
                "revenue last month",
                "what were total sales last month?",
                "last month's revenue",
                "revenue in May",
                "how much revenue did we make last month",
            ],
            vec![(
                format!("SELECT {rev} {J} WHERE o.created_at >= '2025-05-01' AND o.created_at < '2025-06-01'"),
                F::Money,
            )],
        ),
        kind(
            "growth between two periods",
            &[
                "revenue growth from 2023 to 2024",
                "how did revenue change between 2023 and 2024",
                "2024 vs 2023 revenue",
                "compare revenue 2024 with 2023",
                "revenue increase from 2023 to 2024",
            ],
            vec![
                (format!("SELECT {rev} {J} WHERE {}", year("o.created_at", 2023)), F::Money),
                (format!("SELECT {rev} {J} WHERE {y24}"), F::Money),
            ],
        ),
        kind(
            "a value filter with a period",
            &[
                "revenue from Germany in 2025",
                "Germany revenue 2025",
                "sales in Germany in 2025",
                "how much did customers in Germany spend in 2025",
                "what was revenue for Germany in 2025",
            ],
            vec![(format!("SELECT {rev} {J} WHERE {y25} AND u.country = 'Germany'"), F::Money)],
        ),
    ]
}

#[test]
fn ordinary_questions_about_the_sample_state_hand_computed_numbers() {
    let failures = check(sample(), &sample_kinds());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A shop the model was never written for: other table and column names, keys only as
/// `<table>_id` columns (no declared foreign keys), money as `total_amount` and `line_total`,
/// prices per unit, signups as `signup_date`. Deterministic, orders up to the tests' today.
fn unseen_shop(dir: &Path) -> PathBuf {
    let path = dir.join("shop.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name TEXT, email TEXT,
                                 country TEXT, segment TEXT, signup_date TEXT);
         CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name TEXT, category TEXT,
                                unit_price REAL);
         CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, order_date TEXT,
                              status TEXT, total_amount REAL);
         CREATE TABLE order_items (item_id INTEGER PRIMARY KEY, order_id INTEGER,
                                   product_id INTEGER, quantity INTEGER, line_total REAL);
         BEGIN;",
    )
    .unwrap();
    let mut seed: u64 = 42;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let countries = [
        "Germany",
        "France",
        "Spain",
        "United States",
        "Canada",
        "Japan",
    ];
    let segments = ["Consumer", "Corporate", "Home Office"];
    let products = [
        ("Desk", "Furniture", 310.0),
        ("Chair", "Furniture", 129.5),
        ("Laptop", "Technology", 899.0),
        ("Monitor", "Technology", 219.99),
        ("Phone", "Technology", 499.0),
        ("Paper", "Office Supplies", 6.49),
        ("Binder", "Office Supplies", 4.25),
    ];
    for (i, (name, cat, price)) in products.iter().enumerate() {
        conn.execute(
            "INSERT INTO products VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![i + 1, name, cat, price],
        )
        .unwrap();
    }
    let day = |n: u64| {
        // Days from 2023-01-01, as ISO dates, by a civil calendar written here.
        let mut d = n as i64;
        let mut y = 2023;
        loop {
            let len = if y % 4 == 0 { 366 } else { 365 };
            if d < len {
                break;
            }
            d -= len;
            y += 1;
        }
        let months = [
            31,
            if y % 4 == 0 { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        let mut m = 0;
        while d >= months[m] {
            d -= months[m];
            m += 1;
        }
        format!("{y}-{:02}-{:02}", m + 1, d + 1)
    };
    // 2023-01-01 to 2025-06-15 is 896 days.
    for c in 1..=300u64 {
        conn.execute(
            "INSERT INTO customers VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![
                c,
                format!("Customer {c:03}"),
                format!("c{c}@example.com"),
                countries[next(countries.len() as u64) as usize],
                segments[next(3) as usize],
                day(next(896)),
            ],
        )
        .unwrap();
    }
    let (mut order, mut item) = (0u64, 0u64);
    for d in 0..896 {
        for _ in 0..next(4) {
            order += 1;
            let mut total = 0.0;
            for _ in 0..1 + next(3) {
                item += 1;
                let p = next(products.len() as u64) as usize;
                let q = 1 + next(3);
                let line = (products[p].2 * q as f64 * 100.0).round() / 100.0;
                total += line;
                conn.execute(
                    "INSERT INTO order_items VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![item, order, p + 1, q, line],
                )
                .unwrap();
            }
            let status =
                ["delivered", "delivered", "delivered", "shipped", "returned"][next(5) as usize];
            conn.execute(
                "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![
                    order,
                    1 + next(300),
                    format!("{} 10:00:00", day(d)),
                    status,
                    (total * 100.0f64).round() / 100.0
                ],
            )
            .unwrap();
        }
    }
    conn.execute_batch("COMMIT;").unwrap();
    path
}

fn unseen_kinds() -> Vec<Kind> {
    let lines = "FROM order_items i JOIN orders o ON o.order_id = i.order_id \
                 JOIN products p ON p.product_id = i.product_id JOIN customers c ON c.customer_id = o.customer_id";
    let rev = "SUM(i.line_total)";
    let y24 = year("o.order_date", 2024);
    vec![
        kind(
            "count of an entity",
            &[
                "How many customers do we have?",
                "number of customers",
                "customer count",
                "how many customers are there",
                "total number of customers",
            ],
            vec![("SELECT COUNT(*) FROM customers".into(), F::Count)],
        ),
        kind(
            "orders in a quarter",
            &[
                "How many orders did we receive in Q1 2025?",
                "orders in the first quarter of 2025",
                "number of orders in Q1 2025",
                "how many orders were placed in Q1 2025",
                "order count for Q1 2025",
            ],
            vec![(
                "SELECT COUNT(*) FROM orders WHERE order_date >= '2025-01-01' AND order_date < '2025-04-01'".into(),
                F::Count,
            )],
        ),
        kind(
            "average of a money column",
            &[
                "average order value in 2024",
                "avg order value in 2024",
                "mean order value in 2024",
                "what was the average order amount in 2024",
                "average order size in 2024",
            ],
            vec![(
                format!("SELECT ROUND(AVG(o.total_amount), 2) FROM orders o WHERE {y24}"),
                F::Money,
            )],
        ),
        kind(
            "signups",
            &[
                "signups in 2024",
                "how many customers signed up in 2024",
                "new customers in 2024",
                "customers who joined in 2024",
                "signups by month in 2024",
            ],
            vec![(
                format!("SELECT COUNT(*) FROM customers c WHERE {}", year("c.signup_date", 2024)),
                F::Count,
            )],
        ),
        kind(
            "revenue in a period",
            &[
                "revenue in Q3 2024",
                "revenue in the third quarter of 2024",
                "total sales in Q3 2024",
                "what was revenue in Q3 of 2024",
                "Q3 2024 revenue",
            ],
            vec![(
                format!("SELECT {rev} {lines} WHERE o.order_date >= '2024-07-01' AND o.order_date < '2024-10-01'"),
                F::Money,
            )],
        ),
        kind(
            "revenue for a value, last year",
            &[
                "revenue from Germany last year",
                "Germany revenue last year",
                "sales in Germany last year",
                "what was revenue for Germany last year",
                "last year's revenue from Germany",
            ],
            vec![(format!("SELECT {rev} {lines} WHERE {y24} AND c.country = 'Germany'"), F::Money)],
        ),
        kind(
            "break down by segment",
            &[
                "break down 2024 revenue by segment",
                "split 2024 revenue by segment",
                "revenue per segment in 2024",
                "2024 revenue for each segment",
                "revenue by segment in 2024",
            ],
            vec![
                (format!("SELECT {rev} {lines} WHERE {y24} GROUP BY c.segment ORDER BY 1 DESC LIMIT 1"), F::Money),
                (format!("SELECT {rev} {lines} WHERE {y24}"), F::Money),
            ],
        ),
        kind(
            "entities counted by a dimension",
            &[
                "customers by segment",
                "how many customers per segment",
                "number of customers by segment",
                "customer count by segment",
                "which segment has the most customers",
            ],
            vec![(
                "SELECT COUNT(*) FROM customers GROUP BY segment ORDER BY 1 DESC LIMIT 1".into(),
                F::Count,
            )],
        ),
        kind(
            "top customers",
            &[
                "top 3 customers by revenue",
                "best 3 customers by revenue",
                "which 3 customers had the most revenue",
                "who are our top 3 customers by revenue",
                "top three customers by sales",
            ],
            vec![(
                format!("SELECT {rev} {lines} GROUP BY c.customer_id ORDER BY 1 DESC LIMIT 1"),
                F::Money,
            )],
        ),
        kind(
            "share of a value",
            &[
                "what share of revenue came from Technology in 2024?",
                "what percentage of 2024 revenue was Technology?",
                "Technology's share of revenue in 2024",
                "proportion of revenue from Technology in 2024",
                "percentage of revenue from Technology in 2024",
            ],
            vec![(
                format!("SELECT SUM(CASE WHEN p.category = 'Technology' THEN i.line_total END), {rev} {lines} WHERE {y24}"),
                F::Pct,
            )],
        ),
        kind(
            "share of customers",
            &[
                "what percentage of customers are in Germany?",
                "share of customers from Germany",
                "what fraction of our customers are in Germany",
                "proportion of customers in Germany",
                "percent of customers located in Germany",
            ],
            vec![("SELECT SUM(country = 'Germany'), COUNT(*) FROM customers".into(), F::Pct)],
        ),
        kind(
            "growth",
            &[
                "revenue growth from 2023 to 2024",
                "how did revenue change between 2023 and 2024",
                "2024 vs 2023 revenue",
                "compare revenue 2024 with 2023",
                "revenue increase from 2023 to 2024",
            ],
            vec![
                (format!("SELECT {rev} {lines} WHERE {}", year("o.order_date", 2023)), F::Money),
                (format!("SELECT {rev} {lines} WHERE {y24}"), F::Money),
            ],
        ),
    ]
}

#[test]
fn ordinary_questions_about_a_database_never_seen_state_hand_computed_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(None, Some(&unseen_shop(dir.path()))).unwrap();
    let failures = check(&engine, &unseen_kinds());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_same_tables_as_csv_files_give_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = unseen_shop(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut files = Vec::new();
    for table in ["customers", "products", "orders", "order_items"] {
        let path = dir.path().join(format!("{table}.csv"));
        let mut w = csv::Writer::from_path(&path).unwrap();
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
        w.write_record(&names).unwrap();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            let cells: Vec<String> = (0..names.len())
                .map(|i| match row.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                    rusqlite::types::ValueRef::Real(f) => f.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into(),
                    _ => String::new(),
                })
                .collect();
            w.write_record(&cells).unwrap();
        }
        w.flush().unwrap();
        files.push(path);
    }
    let from_csv = Engine::open_files(None, &files, None).unwrap();
    let from_sqlite = Engine::open(None, Some(&db)).unwrap();
    for q in [
        "How many customers do we have?",
        "revenue from Germany last year",
        "break down 2024 revenue by segment",
        "signups by month in 2024",
        "average order value in 2024",
        "what share of revenue came from Technology in 2024?",
    ] {
        let a = ask_thread(&from_csv, &[q], &[]).answer;
        let b = ask_thread(&from_sqlite, &[q], &[]).answer;
        assert_eq!(a, b, "{q}");
        assert!(!a.contains("can't answer"), "{q}: {a}");
    }
}

#[test]
fn a_period_a_table_cannot_date_is_refused_not_answered_over_all_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tickets.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE tickets (id INTEGER PRIMARY KEY, team TEXT, minutes INTEGER);
         INSERT INTO tickets VALUES (1, 'red', 10), (2, 'blue', 20);",
    )
    .unwrap();
    let engine = Engine::open(None, Some(&path)).unwrap();
    let run = ask_thread(&engine, &["total minutes in 2024"], &[]);
    assert!(
        run.answer.contains("can't answer") && run.answer.contains("2024"),
        "{}",
        run.answer
    );
    assert!(
        sql_result(&run).is_none(),
        "no query for a refused question"
    );
    // Without a period the same table answers.
    let run = ask_thread(&engine, &["total minutes"], &[]);
    assert!(run.answer.contains("30"), "{}", run.answer);
}

#[test]
fn a_share_runs_its_whole_as_a_query_without_a_chart() {
    let run = ask_thread(
        sample(),
        &["What share of revenue came from Electronics in 2024?"],
        &[],
    );
    let calls: Vec<&serde_json::Value> = run
        .frames
        .iter()
        .filter_map(|f| f.get("toolCall"))
        .filter(|tc| tc.get("result").is_some() && tc["name"] != "dataMeta")
        .collect();
    assert_eq!(calls.len(), 2, "the whole, then the part");
    let input = |tc: &serde_json::Value| -> serde_json::Value {
        serde_json::from_str(tc["input"].as_str().unwrap()).unwrap()
    };
    assert!(
        input(calls[0]).get("vegaSpec").is_none(),
        "the whole carries no chart"
    );
    assert!(
        input(calls[1]).get("vegaSpec").is_some(),
        "the part is presented"
    );
    assert!(
        input(calls[1])["sqlQuery"]
            .as_str()
            .unwrap()
            .contains("Electronics")
    );
    assert!(
        !input(calls[0])["sqlQuery"]
            .as_str()
            .unwrap()
            .contains("Electronics")
    );
}
