//! Speed of the analyst engine: building the sample dataset, and planning + answering questions
//! (cold: the first time a query runs; warm: answered from the result cache).
//! Run with `cargo bench --bench engine`. Targets: build < 2 s, median answer < 50 ms.

use std::time::{Duration, Instant};

use analyst::emulator::engine::{AgentRequest, Engine};

const TODAY: (i32, u32, u32) = (2025, 6, 15);

const QUESTIONS: &[&str] = &[
    "What was revenue last month?",
    "top 5 products by revenue in 2024",
    "revenue by category",
    "monthly revenue over the last 6 months",
    "how many orders did we get in 2024?",
    "average order value by region",
    "units sold by category for Germany this year",
    "which country had the most orders in 2024",
    "weekly revenue in the last 4 weeks",
    "revenue by region and category last month",
    "how many customers bought books this year",
    "bottom 3 categories by units sold last year",
    "revenue by order status in 2024",
    "daily orders last week",
    "what is the weather like?",
    "top 3 customers by revenue in 2024",
    "Which product had the biggest revenue growth from 2024 to 2025?",
    "How many customers signed up last month?",
    "orders by category last year",
    "How many orders over $100 in 2025?",
    "revenue from orders above 500 dollars in 2025",
    "customers with more than 5 orders in 2025",
    "how many orders between $50 and $100 in 2025",
    "products with revenue over $10,000 in 2025",
    "What share of revenue came from Electronics in 2025?",
    "What percentage of customers are in Europe?",
    "signups by month in 2024",
    "break down 2024 revenue by segment",
    "revenue in the third quarter of 2024",
];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let mut builds = Vec::new();
    let mut engine = None;
    for _ in 0..3 {
        let t = Instant::now();
        engine = Some(Engine::sample()?);
        builds.push(t.elapsed());
    }
    let engine = engine.expect("built");
    let lines = engine
        .warehouse()
        .query("SELECT count(*) FROM order_items")?;
    let ask = |q: &str| {
        let req = AgentRequest {
            question: q.into(),
            message_id: "1700000000000-message".into(),
            today: TODAY,
            ..Default::default()
        };
        let t = Instant::now();
        let run = engine.run(&req);
        (t.elapsed(), run.frames.len())
    };
    let cold: Vec<Duration> = QUESTIONS.iter().map(|q| ask(q).0).collect();
    let mut warm = Vec::new();
    for _ in 0..20 {
        warm.extend(QUESTIONS.iter().map(|q| ask(q).0));
    }
    let slowest = QUESTIONS
        .iter()
        .zip(&cold)
        .max_by_key(|(_, d)| **d)
        .map(|(q, d)| format!("{q:?} {d:.1?}"));
    println!(
        "sample build: median {:.0?} over 3 builds ({} order lines)",
        median(builds),
        lines.rows[0][0].text().unwrap_or_default()
    );
    println!(
        "answer, cold (first run of each of {} questions): median {:.1?}, slowest {}",
        QUESTIONS.len(),
        median(cold),
        slowest.unwrap_or_default()
    );
    println!(
        "answer, warm (result cache hit): median {:.2?} over {} runs",
        median(warm.clone()),
        warm.len()
    );
    Ok(())
}
