//! A table of questions (phrasings, synonyms, typos, follow-ups, unanswerable ones): the SQL
//! tool's rows and the numbers cited in each answer are checked against SQL written by hand and
//! run directly on the engine's warehouse.

use crate::common;

use common::engine::*;

/// Joins of the sample schema, written independently of the model.
const J: &str = "FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id \
                 JOIN categories c ON c.id = p.category_id JOIN customers u ON u.id = o.customer_id";

#[derive(Clone, Copy, PartialEq)]
enum Fmt {
    Money,
    Count,
}

/// Which numbers of the hand-written result the answer must cite.
/// Numbers an answer must cite. `Total` is the sum of all the rows, so it is only for results
/// that hold every group: a top N's rows are not the whole, and the answer cites the real total
/// from its own query (checked in tests/engine_answers.rs).
#[derive(Clone, Copy)]
enum Cite {
    First,
    Last,
    Total,
}

struct Case {
    /// Earlier questions of the thread, then the question under test.
    thread: Vec<&'static str>,
    sql: String,
    fmt: Fmt,
    cite: Vec<Cite>,
}

fn case(thread: &[&'static str], sql: String, fmt: Fmt, cite: &[Cite]) -> Case {
    Case {
        thread: thread.to_vec(),
        sql,
        fmt,
        cite: cite.to_vec(),
    }
}

fn cases() -> Vec<Case> {
    use Cite::*;
    use Fmt::*;
    let rev = "ROUND(SUM(i.amount), 2)";
    let may = "o.created_at >= '2025-05-01' AND o.created_at < '2025-06-01'";
    let y2024 = "o.created_at >= '2024-01-01' AND o.created_at < '2025-01-01'";
    let ytd = "o.created_at >= '2025-01-01' AND o.created_at < '2025-06-16'";
    let month = "substr(o.created_at, 1, 7) || '-01'";
    let by_country_2024 =
        format!("SELECT u.country, {rev} {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC");
    vec![
        case(&["What was revenue last month?"], format!("SELECT {rev} {J} WHERE {may}"), Money, &[First]),
        case(&["What were our sales last month?"], format!("SELECT {rev} {J} WHERE {may}"), Money, &[First]),
        case(&["turnover in 2024"], format!("SELECT {rev} {J} WHERE {y2024}"), Money, &[First]),
        case(&["revnue in 2024"], format!("SELECT {rev} {J} WHERE {y2024}"), Money, &[First]),
        case(&["How many orders did we get in 2024?"], format!("SELECT COUNT(*) FROM orders o WHERE {y2024}"), Count, &[First]),
        case(&["number of purchases this year"], format!("SELECT COUNT(*) FROM orders o WHERE {ytd}"), Count, &[First]),
        case(&["top 5 products by revenue in 2024"], format!("SELECT p.name, {rev} {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC LIMIT 5"), Money, &[First]),
        case(&["top 5 prodcts by revenu in 2024"], format!("SELECT p.name, {rev} {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC LIMIT 5"), Money, &[First]),
        case(&["bottom 3 categories by units sold last year"], format!("SELECT c.name, SUM(i.quantity) {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 ASC LIMIT 3"), Count, &[First]),
        case(&["revenue by category"], format!("SELECT c.name, {rev} {J} GROUP BY 1 ORDER BY 2 DESC"), Money, &[First, Total]),
        case(&["sales per country in Europe"], format!("SELECT u.country, {rev} {J} WHERE u.region = 'Europe' GROUP BY 1 ORDER BY 2 DESC"), Money, &[First, Total]),
        case(&["revenue in Germany last month"], format!("SELECT {rev} {J} WHERE {may} AND u.country = 'Germany'"), Money, &[First]),
        case(&["revenue for electronics in 2024"], format!("SELECT {rev} {J} WHERE {y2024} AND c.name = 'Electronics'"), Money, &[First]),
        case(&["electornics revenue in 2024"], format!("SELECT {rev} {J} WHERE {y2024} AND c.name = 'Electronics'"), Money, &[First]),
        case(&["monthly revenue over the last 6 months"], format!("SELECT {month}, {rev} {J} WHERE o.created_at >= '2024-12-01' AND o.created_at < '2025-06-01' GROUP BY 1 ORDER BY 1"), Money, &[First, Last, Total]),
        case(&["What is the trend of sales in 2024?"], format!("SELECT {month}, {rev} {J} WHERE {y2024} GROUP BY 1 ORDER BY 1"), Money, &[First, Last, Total]),
        case(&["orders by quarter in 2024"], format!("SELECT printf('%s-%02d-01', substr(o.created_at, 1, 4), (CAST(substr(o.created_at, 6, 2) AS INT) + 2) / 3 * 3 - 2), COUNT(*) FROM orders o WHERE {y2024} GROUP BY 1 ORDER BY 1"), Count, &[First, Last, Total]),
        case(&["revenue by year"], format!("SELECT substr(o.created_at, 1, 4) || '-01-01', {rev} {J} GROUP BY 1 ORDER BY 1"), Money, &[First, Last, Total]),
        case(&["daily orders last week"], "SELECT substr(o.created_at, 1, 10), COUNT(*) FROM orders o WHERE o.created_at >= '2025-06-09' AND o.created_at < '2025-06-16' GROUP BY 1 ORDER BY 1".replace("2025-06-09", "2025-06-02").replace("2025-06-16", "2025-06-09"), Count, &[First, Last, Total]),
        case(&["weekly revenue in the last 4 weeks"], format!("SELECT date(substr(o.created_at, 1, 10), 'weekday 0', '-6 days'), {rev} {J} WHERE o.created_at >= '2025-05-12' AND o.created_at < '2025-06-09' GROUP BY 1 ORDER BY 1"), Money, &[First, Last, Total]),
        case(&["how many customers bought books this year"], format!("SELECT COUNT(DISTINCT o.customer_id) {J} WHERE {ytd} AND c.name = 'Books'"), Count, &[First]),
        case(&["average order value by region"], format!("SELECT u.region, ROUND(SUM(i.amount) / COUNT(DISTINCT o.id), 4) {J} GROUP BY 1 ORDER BY 2 DESC"), Money, &[First]),
        case(&["top 3 customers by revenue in 2024"], format!("SELECT u.name, {rev} {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC LIMIT 3"), Money, &[First]),
        case(&["which country had the most orders in 2024"], format!("SELECT u.country, COUNT(*) FROM orders o JOIN customers u ON u.id = o.customer_id WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC"), Count, &[First, Total]),
        case(&["units sold by category for Germany this year"], format!("SELECT c.name, SUM(i.quantity) {J} WHERE {ytd} AND u.country = 'Germany' GROUP BY 1 ORDER BY 2 DESC"), Count, &[First, Total]),
        case(&["average unit price by category"], format!("SELECT c.name, ROUND(AVG(i.unit_price), 2) {J} GROUP BY 1 ORDER BY 2 DESC"), Money, &[First]),
        case(&["order lines in Q1 2025"], "SELECT COUNT(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.created_at >= '2025-01-01' AND o.created_at < '2025-04-01'".into(), Count, &[First]),
        case(&["revenue by order status in 2024"], format!("SELECT o.status, {rev} {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC"), Money, &[First, Total]),
        case(&["revenue since march 2025"], format!("SELECT {rev} {J} WHERE o.created_at >= '2025-03-01' AND o.created_at < '2025-06-16'"), Money, &[First]),
        case(&["revenue by region and category last month"], format!("SELECT u.region, c.name, {rev} {J} WHERE {may} GROUP BY 1, 2 ORDER BY 3 DESC"), Money, &[First, Total]),
        // Follow-ups reuse the previous turn's measure, grouping, range and filters.
        case(&["revenue by category in 2024", "now by country"], by_country_2024.clone(), Money, &[First, Total]),
        case(&["revenue in Germany last month", "and last year?"], format!("SELECT {rev} {J} WHERE {y2024} AND u.country = 'Germany'"), Money, &[First]),
        case(&["revenue by country in 2024", "what about orders?"], format!("SELECT u.country, COUNT(*) FROM orders o JOIN customers u ON u.id = o.customer_id WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC"), Count, &[First, Total]),
        case(&["monthly revenue in 2024", "what about Germany?"], format!("SELECT {month}, {rev} {J} WHERE {y2024} AND u.country = 'Germany' GROUP BY 1 ORDER BY 1"), Money, &[First, Last, Total]),
        case(&["top 5 products by revenue in 2024", "and by units sold?"], format!("SELECT p.name, SUM(i.quantity) {J} WHERE {y2024} GROUP BY 1 ORDER BY 2 DESC LIMIT 5"), Count, &[First]),
    ]
}

#[test]
fn answers_cite_the_numbers_of_hand_written_sql() {
    let engine = sample();
    let cases = cases();
    assert!(cases.len() >= 30);
    let mut failures = Vec::new();
    for c in &cases {
        let run = ask_thread(engine, &c.thread, &[]);
        let ctx = c.thread.join(" / ");
        let Some(result) = sql_result(&run) else {
            failures.push(format!("{ctx}: no SQL tool call; answer: {}", run.answer));
            continue;
        };
        let want = hand(engine, &c.sql);
        let check = std::panic::catch_unwind(|| assert_same_rows(&result, &want, &ctx));
        if check.is_err() {
            failures.push(format!("{ctx}: rows differ\nSQL: {}", result["sqlQuery"]));
            continue;
        }
        let value = |row: &Vec<String>| {
            row.last()
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let fmt = |v: f64| {
            if c.fmt == Fmt::Money {
                money(v)
            } else {
                count(v)
            }
        };
        for cite in &c.cite {
            let v = match cite {
                Cite::First => value(&want[0]),
                Cite::Last => value(&want[want.len() - 1]),
                Cite::Total => want.iter().map(value).sum(),
            };
            if !run.answer.contains(&fmt(v)) {
                failures.push(format!(
                    "{ctx}: answer lacks {} \n  answer: {}",
                    fmt(v),
                    run.answer
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn unanswerable_questions_get_an_honest_answer_without_sql() {
    for q in [
        "what is the weather like?",
        "tell me a joke",
        "",
        "¿qué tal?",
        "thanks!",
    ] {
        let run = ask_thread(sample(), &[q], &[]);
        assert!(sql_result(&run).is_none(), "{q}: made a SQL call");
        assert!(
            run.frames
                .iter()
                .any(|f| f["toolCall"]["name"] == "dataMeta"),
            "{q}: no meta call"
        );
        for known in ["Revenue", "Orders", "Country", "Category"] {
            assert!(
                run.answer.contains(known),
                "{q}: answer does not name {known}: {}",
                run.answer
            );
        }
    }
}
