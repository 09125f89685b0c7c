//! The agent answers the question asked, correctly, or says plainly what it could not do: the
//! defects of the h40 review (a filter silently dropped, "before 2024" read as "in 2024", an
//! unknown metric answered with revenue, "A vs B" summed). Every number an answer states is
//! checked against hand-written SQL on the engine's warehouse (never through the engine's
//! compiler); a refusal states no number, names the part it could not use and runs no query.
//! The emulator's today is fixed per case, never the wall clock.

use crate::common;

use analyst::emulator::engine::{AgentRequest, AgentRun};
use common::engine::*;

/// All order lines with their order, product, category and customer (independent of the model).
const J: &str = "FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id JOIN categories c ON c.id = p.category_id JOIN customers u ON u.id = o.customer_id";
const REV: &str = "ROUND(SUM(i.amount), 2)";

/// After the sample's last day (2025-12-31): relative and open ranges see all its data.
const LATE: (i32, u32, u32) = (2026, 1, 10);

fn ask_on(today: (i32, u32, u32), question: &str) -> AgentRun {
    let req = AgentRequest {
        question: question.into(),
        message_id: "1718000000000-message".into(),
        today,
        ..Default::default()
    };
    sample().run(&req)
}

/// Revenue over order lines matching `cond`.
fn revenue(cond: &str) -> f64 {
    hand_number(sample(), &format!("SELECT {REV} {J} WHERE {cond}"))
}

/// Orders matching `cond` (on `o`).
fn orders(cond: &str) -> f64 {
    hand_number(
        sample(),
        &format!("SELECT COUNT(*) FROM orders o WHERE {cond}"),
    )
}

/// One number stated in an answer.
#[derive(Debug)]
enum Stated {
    Money(f64),
    Count(f64),
    Percent(f64),
}

/// The numbers an answer states, past dates ("2025-11-28"), years, quarters and halves ("Q4",
/// "H1"), which name periods.
fn stated(answer: &str) -> Vec<Stated> {
    let b = answer.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let money = b[i] == b'$';
        let start = if money { i + 1 } else { i };
        let prev_alpha = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-');
        if start >= b.len() || !b[start].is_ascii_digit() || (!money && prev_alpha) {
            i += 1;
            continue;
        }
        let mut end = start;
        while end < b.len()
            && (b[end].is_ascii_digit()
                || ((b[end] == b',' || b[end] == b'.')
                    && end + 1 < b.len()
                    && b[end + 1].is_ascii_digit()))
        {
            end += 1;
        }
        let text = &answer[start..end];
        let date = end < b.len() && b[end] == b'-' && text.len() == 4;
        let v: f64 = text.replace(',', "").parse().unwrap_or(f64::NAN);
        let percent = end < b.len() && b[end] == b'%';
        let year = !money && !percent && text.len() == 4 && (1900.0..2200.0).contains(&v);
        if !date && !year {
            out.push(if money {
                Stated::Money(v)
            } else if percent {
                Stated::Percent(v)
            } else {
                Stated::Count(v)
            });
        }
        // Past the whole token (a date's other parts too).
        let mut k = end;
        while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'-' || b[k] == b'%') {
            k += 1;
        }
        i = k.max(i + 1);
    }
    out
}

/// Every number the answer states is one of `truth` (money within a cent, counts exactly), or a
/// share or change between two of them (to the tenth of a percent); and every `must` is stated.
fn check(question: &str, run: &AgentRun, truth: &[f64], must: &[f64]) {
    let a = &run.answer;
    assert!(
        !a.starts_with("I can't answer"),
        "{question}: refused:\n{a}"
    );
    for m in must {
        let said = stated(a).iter().any(|s| match s {
            Stated::Money(v) | Stated::Count(v) => (v - m).abs() < 0.006,
            Stated::Percent(_) => false,
        });
        assert!(said, "{question}: answer lacks {m}:\n{a}");
    }
    let pct_ok = |p: f64| {
        truth.iter().any(|x| {
            truth.iter().any(|y| {
                *y != 0.0
                    && ((x / y * 100.0 - p).abs() < 0.051
                        || ((x - y) / y * 100.0 - p).abs() < 0.051
                        || ((x - y) / y * 100.0 + p).abs() < 0.051)
            })
        })
    };
    for s in stated(a) {
        let ok = match s {
            Stated::Money(v) | Stated::Count(v) => truth.iter().any(|t| (t - v).abs() < 0.006),
            Stated::Percent(p) => pct_ok(p),
        };
        assert!(ok, "{question}: {s:?} is no true value {truth:?}:\n{a}");
    }
}

/// A refusal: no query ran, no number is stated, and `part` (the part it could not use) is named.
fn declined(question: &str, part: &str) {
    declined_on(LATE, question, part);
}

fn declined_on(today: (i32, u32, u32), question: &str, part: &str) {
    let run = ask_on(today, question);
    let a = &run.answer;
    assert!(
        a.starts_with("I can't answer"),
        "{question}: answered:\n{a}"
    );
    assert!(
        a.to_lowercase().contains(&part.to_lowercase()),
        "{question}: the refusal does not name {part:?}:\n{a}"
    );
    assert!(
        sql_result(&run).is_none(),
        "{question}: a query ran for a refusal"
    );
    assert!(
        stated(a).is_empty(),
        "{question}: a refusal states numbers {:?}:\n{a}",
        stated(a)
    );
}

/// A one-number answer: exactly `want`.
fn one(question: &str, want: f64) {
    let run = ask_on(LATE, question);
    check(question, &run, &[want], &[want]);
}

// ---- Filter values: a country code or short name is the country, never dropped (D01, D15). ----

#[test]
fn country_codes_and_short_names_filter_by_the_country() {
    let us = "u.country = 'United States'";
    let y2025 = "o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01'";
    for q in [
        "revenue in the US in 2025",
        "revenue in the USA in 2025",
        "revenue in the states in 2025",
        "US revenue in 2025",
        "revenue in us in 2025",
        "REVENUE IN THE US IN 2025",
        "revenue in United States in 2025",
    ] {
        one(q, revenue(&format!("{us} AND {y2025}")));
    }
    one(
        "revenue in the UK in 2025",
        revenue(&format!("u.country = 'United Kingdom' AND {y2025}")),
    );
    one(
        "revenue in IN in 2025",
        revenue(&format!("u.country = 'India' AND {y2025}")),
    );
    one(
        "how many customers in the US",
        hand_number(
            sample(),
            "SELECT COUNT(*) FROM customers u WHERE u.country = 'United States'",
        ),
    );
    // "us" as a pronoun is no country.
    let all = revenue(y2025);
    one("tell us the revenue in 2025", all);
    let rows = hand(
        sample(),
        &format!("SELECT c.name, {REV} {J} WHERE {y2025} GROUP BY 1 ORDER BY 2 DESC LIMIT 5"),
    );
    let q = "show us revenue by category in 2025";
    let run = ask_on(LATE, q);
    let mut truth: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    let must = truth.clone();
    truth.push(all);
    check(q, &run, &truth, &must);
    // The US top products are the US ones, not the world's.
    let rows = hand(
        sample(),
        &format!("SELECT p.name, {REV} {J} WHERE {us} GROUP BY 1 ORDER BY 2 DESC LIMIT 5"),
    );
    let run = ask_on(LATE, "top products in the US");
    assert!(run.answer.contains(&rows[0][0]), "{}", run.answer);
    let values: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    let total = revenue(us);
    let mut truth = values.clone();
    truth.push(total);
    check("top products in the US", &run, &truth, &values);
}

// ---- Open ranges: before / after / until / prior to / up to / through (D02). ----

#[test]
fn open_ranges_are_read_as_ranges_not_as_the_period_named() {
    one(
        "revenue before 2024",
        revenue("o.created_at < '2024-01-01'"),
    );
    one(
        "revenue after 2024",
        revenue("o.created_at >= '2025-01-01'"),
    );
    one(
        "revenue prior to 2025",
        revenue("o.created_at < '2025-01-01'"),
    );
    one(
        "revenue until March 2025",
        revenue("o.created_at < '2025-04-01'"),
    );
    one(
        "revenue through 2024",
        revenue("o.created_at < '2025-01-01'"),
    );
    one(
        "orders before March 2025",
        orders("o.created_at < '2025-03-01'"),
    );
    one("orders up to 2024", orders("o.created_at < '2025-01-01'"));
    one(
        "orders after June 2025",
        orders("o.created_at >= '2025-07-01'"),
    );
}

// ---- Explicit dates, halves, weeks and spans (D03, D14). ----

#[test]
fn explicit_dates_halves_weeks_and_spans_are_read_as_written() {
    let day = "substr(o.created_at, 1, 10) = '2025-11-28'";
    let nov = "o.created_at >= '2025-11-01' AND o.created_at < '2025-12-01'";
    one("revenue on 2025-11-28", revenue(day));
    one("orders on November 28, 2025", orders(day));
    one("revenue in 2025-11", revenue(nov));
    one("revenue in 11/2025", revenue(nov));
    one("revenue in Nov 2025", revenue(nov));
    one(
        "revenue in the week of 2025-11-24",
        revenue("o.created_at >= '2025-11-24' AND o.created_at < '2025-12-01'"),
    );
    let h1 = revenue("o.created_at >= '2025-01-01' AND o.created_at < '2025-07-01'");
    one("turnover in H1 2025", h1);
    one("revenue in the first half of 2025", h1);
    one(
        "revenue in H2 2024",
        revenue("o.created_at >= '2024-07-01' AND o.created_at < '2025-01-01'"),
    );
    one(
        "revenue between April and June 2025",
        revenue("o.created_at >= '2025-04-01' AND o.created_at < '2025-07-01'"),
    );
    one(
        "revenue from January to March 2025",
        revenue("o.created_at >= '2025-01-01' AND o.created_at < '2025-04-01'"),
    );
    one(
        "orders from 2025-03-01 to 2025-05-31",
        orders("o.created_at >= '2025-03-01' AND o.created_at < '2025-06-01'"),
    );
    one(
        "revenue in 2025 Q4 for Beauty",
        revenue(
            "o.created_at >= '2025-10-01' AND o.created_at < '2026-01-01' AND c.name = 'Beauty'",
        ),
    );
}

// ---- "A vs B": two values side by side, never their sum as a change over time (D07). ----

#[test]
fn a_versus_b_compares_the_two_values() {
    let y2024 = "o.created_at >= '2024-01-01' AND o.created_at < '2025-01-01'";
    let y2025 = "o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01'";
    let side_by_side = |q: &str, member: &str, a: &str, b: &str, measure: &str, when: &str| {
        let value = |v: &str| {
            hand_number(
                sample(),
                &format!("SELECT {measure} {J} WHERE {when} AND {member} = '{v}'"),
            )
        };
        let (x, y) = (value(a), value(b));
        let both = hand_number(
            sample(),
            &format!("SELECT {measure} {J} WHERE {when} AND {member} IN ('{a}', '{b}')"),
        );
        let run = ask_on(LATE, q);
        check(q, &run, &[x, y, both], &[x, y]);
        assert!(
            !run.answer.contains("went from"),
            "{q}: a change over time:\n{}",
            run.answer
        );
    };
    side_by_side(
        "Books vs Toys revenue in 2024",
        "c.name",
        "Books",
        "Toys",
        REV,
        y2024,
    );
    side_by_side(
        "compare revenue of Books and Toys in 2024",
        "c.name",
        "Books",
        "Toys",
        REV,
        y2024,
    );
    side_by_side(
        "France vs Germany revenue in 2025",
        "u.country",
        "France",
        "Germany",
        REV,
        y2025,
    );
    side_by_side(
        "Electronics versus Clothing units sold last year",
        "c.name",
        "Electronics",
        "Clothing",
        "SUM(i.quantity)",
        y2025,
    );
    side_by_side(
        "compare Consumer and Corporate average order value",
        "u.segment",
        "Consumer",
        "Corporate",
        "ROUND(SUM(i.amount) / COUNT(DISTINCT o.id), 2)",
        "1 = 1",
    );
}

// ---- Top N names N items; fewer groups than asked are said (D13). ----

/// The answer names the first column of every row.
fn names_all(q: &str, answer: &str, rows: &[Vec<String>]) {
    for r in rows {
        assert!(answer.contains(&r[0]), "{q}: lacks {}:\n{answer}", r[0]);
    }
}

#[test]
fn a_top_n_names_n_items() {
    let y2025 = "o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01'";
    let rows = hand(
        sample(),
        &format!("SELECT p.name, {REV} {J} WHERE {y2025} GROUP BY 1 ORDER BY 2 DESC LIMIT 7"),
    );
    let q = "top 7 products by revenue in 2025";
    let run = ask_on(LATE, q);
    names_all(q, &run.answer, &rows);
    let mut truth: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    let must = truth.clone();
    truth.push(revenue(y2025));
    truth.push(7.0);
    check(q, &run, &truth, &must);

    let rows = hand(
        sample(),
        &format!("SELECT c.name, {REV} {J} GROUP BY 1 ORDER BY 2 DESC"),
    );
    let q = "top 10 categories by revenue";
    let run = ask_on(LATE, q);
    names_all(q, &run.answer, &rows);
    let mut truth: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    truth.extend([
        hand_number(sample(), &format!("SELECT {REV} {J}")),
        8.0,
        10.0,
    ]);
    check(q, &run, &truth, &[]);
    assert!(run.answer.contains("Only 8"), "{q}: {}", run.answer);
}

// ---- "Most customers" counts customers (D04). ----

#[test]
fn the_most_customers_counts_customers() {
    let rows = hand(
        sample(),
        "SELECT country, COUNT(*) FROM customers GROUP BY 1 ORDER BY 2 DESC",
    );
    let q = "which country has the most customers";
    let run = ask_on(LATE, q);
    assert!(
        run.answer
            .contains(&format!("{} had the highest customers", rows[0][0])),
        "{q}: {}",
        run.answer
    );
    let mut truth: Vec<f64> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    truth.push(6000.0);
    check(q, &run, &truth, &[truth[0]]);
}

// ---- What it cannot do, it says, with no number and no query (D04, D05, D06, D09). ----

#[test]
fn unknown_values_and_metrics_are_declined_by_name() {
    for (q, part) in [
        ("how many pending orders", "pending"),
        ("how many open orders", "open"),
        ("how many delivered orders in 2025", "delivered"),
        ("refunded orders in 2025", "refunded"),
        ("What is our profit margin by category?", "profit margin"),
        ("gross margin by product", "margin"),
        ("inventory levels by product", "inventory"),
        ("average rating by product", "rating"),
        ("return rate by category", "return"),
        ("conversion rate by month", "conversion"),
        ("customer lifetime value", "lifetime"),
        ("average customer age", "\"age\""),
        ("customer satisfaction score", "satisfaction"),
        ("revenue by sales rep", "rep"),
        ("revenue by sales channel", "channel"),
        ("net revenue in 2025", "net"),
        ("repeat customers in 2025", "repeat"),
    ] {
        declined(q, part);
    }
}

#[test]
fn rankings_and_comparisons_it_cannot_make_are_declined() {
    declined("What was the largest order in 2025?", "largest order");
    declined("biggest order last year", "biggest order");
    declined("average order total in 2024", "average");
    declined("average list price by category", "average");
    declined(
        "which product has the highest list price",
        "highest list price",
    );
    // "This year vs last year" named two periods it cannot compare as whole periods.
    declined_on(
        TODAY,
        "revenue growth this year vs last year",
        "more than one period",
    );
    declined_on(
        TODAY,
        "revenue this month vs last month",
        "more than one period",
    );
}

/// The stated-number reader itself: dates, years and period names are no numbers.
#[test]
fn the_number_reader_skips_periods() {
    let s = stated(
        "Revenue, the week of 2025-11-24 (2025-11-24 to 2025-11-30), Q4 2025: $1,234.50; orders: 3,207, 12.5% of 2024.",
    );
    let got: Vec<String> = s.iter().map(|x| format!("{x:?}")).collect();
    assert_eq!(got, ["Money(1234.5)", "Count(3207.0)", "Percent(12.5)"]);
}
