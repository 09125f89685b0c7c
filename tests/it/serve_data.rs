//! `serve --write-sample` and `serve --data FILE.csv`, from the built binary: the sample as the
//! demo sees it lands in a file anyone's SQLite reads, and a bad CSV is a usage error naming the
//! file and line before anything starts.

use crate::common;

use common::hardening::{analyst, expect_status, outs, run};

#[test]
fn write_sample_writes_the_demo_data_up_to_today_and_never_overwrites() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let file = h.join("shop.sqlite");
    let out = run(analyst(h)
        .args(["serve", "--today", "2026-11-28", "--write-sample"])
        .arg(&file));
    expect_status(&out, 0, "--write-sample");
    let conn = rusqlite::Connection::open(&file).unwrap();
    let one = |sql: &str| -> String { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    // The data run up to the demo's today, and not past it.
    assert_eq!(
        one("SELECT substr(MAX(created_at), 1, 10) FROM orders"),
        "2026-11-28"
    );
    assert_eq!(
        one("SELECT substr(MIN(created_at), 1, 10) FROM orders"),
        "2023-01-01"
    );
    // Last month has orders whatever the real date: "last month" of 2026-11-28 is October.
    let october: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM orders WHERE created_at >= '2026-10-01' AND created_at < '2026-11-01'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(october > 1000, "{october} orders in October 2026");
    // The same numbers as the demo's answer for that day.
    let revenue: f64 = conn
        .query_row(
            "SELECT ROUND(SUM(i.amount), 2) FROM order_items i JOIN orders o ON o.id = i.order_id
             WHERE o.created_at >= '2026-10-01' AND o.created_at < '2026-11-01'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let out = run(analyst(h).args([
        "chat",
        "--demo",
        "--today",
        "2026-11-28",
        "-o",
        "final",
        "What were total sales last month?",
    ]));
    expect_status(&out, 0, "chat --demo");
    let want = common::engine::money(revenue);
    assert!(outs(&out).0.contains(&want), "{want} in {}", outs(&out).0);
    // An existing file is never overwritten.
    let before = std::fs::metadata(&file).unwrap().len();
    let out = run(analyst(h).args(["serve", "--write-sample"]).arg(&file));
    expect_status(&out, 2, "an existing file");
    assert!(outs(&out).1.contains("shop.sqlite"), "{}", outs(&out).1);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), before);
}

#[test]
fn a_bad_csv_is_a_usage_error_naming_file_and_line() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let good = h.join("customers.csv");
    std::fs::write(&good, "customer_id,name\n1,Ann\n2,Bo\n").unwrap();
    let ragged = h.join("orders.csv");
    std::fs::write(&ragged, "order_id,customer_id,total\n1,1,9.5\n2,2\n").unwrap();
    let out = run(analyst(h)
        .args(["serve", "--data"])
        .arg(&good)
        .arg("--data")
        .arg(&ragged));
    expect_status(&out, 2, "a ragged CSV");
    let err = outs(&out).1;
    assert!(
        err.contains("orders.csv") && err.contains("line 3"),
        "{err}"
    );
    // CSV and SQLite together are refused, naming the flag.
    let db = h.join("x.sqlite");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE t (a INTEGER)")
        .unwrap();
    let out = run(analyst(h)
        .args(["serve", "--data"])
        .arg(&good)
        .arg("--data")
        .arg(&db));
    expect_status(&out, 2, "mixed data files");
    assert!(outs(&out).1.contains("--data"), "{}", outs(&out).1);
}
