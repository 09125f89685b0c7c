//! The built-in sample: an online shop's orders from [`FIRST_DAY`] up to the emulator's today,
//! generated from a fixed seed, so that relative periods ("last month", "this quarter") have
//! data whatever the date, and a given today always gives the same numbers. The generator draws
//! day by day, so the rows of a day never depend on the days after it: the orders of 2023 to
//! 2025 are the same for every today from [`LAST_DAY`] on, and a today inside that window ends
//! the same rows there.

use rusqlite::{Connection, params};

use super::dates::Date;

/// The sample's semantic model (also the reference example of the YAML format).
pub const MODEL_YAML: &str = include_str!("sample_model.yaml");

/// First day with orders.
pub const FIRST_DAY: (i32, u32, u32) = (2023, 1, 1);
/// The end of the base window: a today before it ends the data at today; a later today extends
/// the orders up to it.
pub const LAST_DAY: (i32, u32, u32) = (2025, 12, 31);

/// Seed of the generator; changing it changes every number in the sample.
const SEED: u64 = 0x005E_ED0F_A11A_1157;

/// splitmix64: tiny, fast, and good enough for synthetic data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [0, n).
    fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n.max(1)
    }
    /// An index drawn with the given relative weights.
    fn weighted(&mut self, weights: &Weights) -> usize {
        let mut x = self.unit() * weights.total;
        // An index loop: the sample is built in test processes, where iterator adapters are
        // not optimised away (with the sum at every draw, 13% of a debug build's samples).
        let w = &weights.each;
        let mut i = 0;
        while i < w.len() {
            if x < w[i] {
                return i;
            }
            x -= w[i];
            i += 1;
        }
        w.len() - 1
    }
}

/// Relative weights with their total, summed once rather than at every draw (the same sum, in
/// the same order: the draws do not change).
struct Weights {
    each: Vec<f64>,
    total: f64,
}

impl Weights {
    fn new(each: Vec<f64>) -> Weights {
        let total = each.iter().sum();
        Weights { each, total }
    }
}

/// (category, [(product, price)]).
const CATALOG: &[(&str, &[(&str, f64)])] = &[
    (
        "Electronics",
        &[
            ("Wireless Headphones", 89.99),
            ("Smartphone Stand", 19.5),
            ("Bluetooth Speaker", 59.0),
            ("USB-C Charger", 24.99),
            ("Smart Watch", 199.0),
            ("E-Reader", 129.0),
            ("Webcam HD", 49.9),
            ("Mechanical Keyboard", 109.0),
        ],
    ),
    (
        "Books",
        &[
            ("Mystery Novel", 14.99),
            ("Cookbook Classics", 29.5),
            ("Science Atlas", 39.0),
            ("Poetry Collection", 12.0),
            ("Travel Guide", 22.5),
            ("Business Strategy", 27.99),
        ],
    ),
    (
        "Clothing",
        &[
            ("Denim Jacket", 79.0),
            ("Running Shoes", 119.0),
            ("Wool Sweater", 65.0),
            ("Rain Coat", 99.5),
            ("Cotton T-Shirt", 19.99),
            ("Leather Belt", 35.0),
        ],
    ),
    (
        "Home & Garden",
        &[
            ("Ceramic Vase", 34.0),
            ("Garden Hose", 27.5),
            ("Scented Candle", 15.99),
            ("Throw Pillow", 24.0),
            ("Cast Iron Pan", 45.0),
            ("Desk Lamp", 39.99),
        ],
    ),
    (
        "Sports",
        &[
            ("Yoga Mat", 29.99),
            ("Dumbbell Set", 89.0),
            ("Tennis Racket", 75.0),
            ("Cycling Helmet", 59.99),
            ("Water Bottle", 12.5),
        ],
    ),
    (
        "Toys",
        &[
            ("Building Blocks", 49.99),
            ("Puzzle 1000", 18.0),
            ("Plush Bear", 21.5),
            ("Remote Car", 64.0),
            ("Board Game", 34.99),
        ],
    ),
    (
        "Beauty",
        &[
            ("Face Cream", 32.0),
            ("Perfume", 74.5),
            ("Hair Dryer", 54.99),
            ("Lip Balm", 6.5),
        ],
    ),
    (
        "Grocery",
        &[
            ("Coffee Beans", 16.99),
            ("Green Tea", 9.5),
            ("Olive Oil", 13.99),
            ("Dark Chocolate", 4.99),
            ("Honey Jar", 8.5),
        ],
    ),
];

/// (country, region, cities, weight).
const COUNTRIES: &[(&str, &str, &[&str], f64)] = &[
    (
        "United States",
        "Americas",
        &["New York", "Chicago", "Austin", "Seattle"],
        24.0,
    ),
    ("Canada", "Americas", &["Toronto", "Vancouver"], 6.0),
    ("Brazil", "Americas", &["Sao Paulo", "Rio de Janeiro"], 5.0),
    ("Mexico", "Americas", &["Mexico City", "Monterrey"], 3.0),
    ("Germany", "Europe", &["Berlin", "Munich", "Hamburg"], 14.0),
    ("United Kingdom", "Europe", &["London", "Manchester"], 12.0),
    ("France", "Europe", &["Paris", "Lyon"], 9.0),
    ("Spain", "Europe", &["Madrid", "Barcelona"], 5.0),
    ("Italy", "Europe", &["Rome", "Milan"], 5.0),
    ("Netherlands", "Europe", &["Amsterdam", "Rotterdam"], 4.0),
    ("Japan", "Asia Pacific", &["Tokyo", "Osaka"], 6.0),
    ("Australia", "Asia Pacific", &["Sydney", "Melbourne"], 5.0),
    ("India", "Asia Pacific", &["Mumbai", "Bangalore"], 2.0),
];

const FIRST: &[&str] = &[
    "Anna", "Ben", "Chloe", "David", "Emma", "Felix", "Grace", "Hugo", "Ines", "Jonas", "Kira",
    "Liam", "Maya", "Noah", "Olga", "Paul", "Quinn", "Rosa", "Sam", "Tara",
];
const LAST: &[&str] = &[
    "Adams", "Berg", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Hansen", "Ito", "Jensen",
    "Kumar", "Lopez", "Meyer", "Novak", "Okafor", "Park", "Rossi", "Silva", "Tanaka", "Weber",
];

const CUSTOMERS: usize = 6000;

/// Ends the built sample at `today` (a today inside the base window): the emulated world has
/// no order, line or customer after its own today. The rows before it are the same as ever.
fn end_at(conn: &Connection, today: (i32, u32, u32)) -> anyhow::Result<()> {
    let day = Date::new(today).to_string();
    conn.execute(
        "DELETE FROM order_items WHERE order_id IN
           (SELECT id FROM orders WHERE substr(created_at, 1, 10) > ?1)",
        params![day],
    )?;
    conn.execute(
        "DELETE FROM orders WHERE substr(created_at, 1, 10) > ?1",
        params![day],
    )?;
    // A customer who signed up later but already has an order stays (the sample has orders
    // before their customer's signup date): an order must never lose its customer.
    conn.execute(
        "DELETE FROM customers WHERE substr(created_at, 1, 10) > ?1
           AND id NOT IN (SELECT customer_id FROM orders)",
        params![day],
    )?;
    Ok(())
}

/// Builds the sample as of `today` into `conn`: orders from [`FIRST_DAY`] to `today` (to
/// [`LAST_DAY`] when `today` is `None`, the fixed window), with no row dated after `today`. One
/// generator feeds the catalog, the customers and the orders in that order: the draws, and so
/// every number of the sample, depend on it.
pub fn build(conn: &Connection, today: Option<Date>) -> anyhow::Result<()> {
    let base_end = Date::new(LAST_DAY);
    let end = today.map_or(base_end, |t| t.max(base_end));
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
         CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category_id INTEGER NOT NULL, price REAL NOT NULL);
         CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, region TEXT NOT NULL,
                                 city TEXT NOT NULL, segment TEXT NOT NULL, created_at TEXT NOT NULL);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, created_at TEXT NOT NULL, status TEXT NOT NULL);
         CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, product_id INTEGER NOT NULL,
                                   quantity INTEGER NOT NULL, unit_price REAL NOT NULL, amount REAL NOT NULL);
         BEGIN;",
    )?;
    let mut rng = Rng(SEED);
    let start = Date::new(FIRST_DAY);
    let products = catalog(conn, &mut rng)?;
    let base_span = (base_end.days() - start.days()).max(1);
    let span = (end.days() - start.days()).max(1);
    customers(conn, &mut rng, start, (base_span, span))?;
    // Statuses age relative to the end of the data, not the calendar, so they never move either.
    orders(conn, &mut rng, &products, (start, end, span))?;
    conn.execute_batch("COMMIT;")?;
    if let Some(t) = today.filter(|t| *t < base_end) {
        end_at(conn, (t.y, t.m, t.d))?;
    }
    conn.execute_batch(
        "
         CREATE INDEX orders_created_at ON orders (created_at);
         CREATE INDEX orders_customer ON orders (customer_id);
         CREATE INDEX order_items_order ON order_items (order_id, product_id, quantity, unit_price, amount);
         CREATE INDEX order_items_product ON order_items (product_id);
         ANALYZE;",
    )?;
    Ok(())
}

/// Writes the sample as of `today` to a new SQLite file at `path` (which must not exist).
pub fn write(path: &std::path::Path, today: Date) -> anyhow::Result<()> {
    use anyhow::Context;
    let conn = Connection::open_in_memory()?;
    build(&conn, Some(today))?;
    conn.execute("VACUUM INTO ?1", params![path.to_string_lossy()])
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The categories and products; returns (id, price, popularity) per product.
fn catalog(conn: &Connection, rng: &mut Rng) -> anyhow::Result<Vec<(usize, f64, f64)>> {
    let mut products = Vec::new();
    for (ci, (cat, items)) in CATALOG.iter().enumerate() {
        conn.execute(
            "INSERT INTO categories VALUES (?1, ?2)",
            params![ci + 1, cat],
        )?;
        for (name, price) in items.iter() {
            let id = products.len() + 1;
            conn.execute(
                "INSERT INTO products VALUES (?1, ?2, ?3, ?4)",
                params![id, name, ci + 1, price],
            )?;
            products.push((id, *price, 0.3 + rng.unit() * 2.0 / (1.0 + price / 100.0)));
        }
    }
    Ok(products)
}

/// The customers, with unique names, signing up from a year before the first order to the end
/// of the data: drawn over the base window, then stretched over a longer one (one draw each
/// whatever the end, so the orders that follow draw the same).
fn customers(
    conn: &Connection,
    rng: &mut Rng,
    start: Date,
    (base_span, span): (i64, i64),
) -> anyhow::Result<()> {
    let weights = Weights::new(COUNTRIES.iter().map(|c| c.3).collect());
    let mut ins = conn.prepare("INSERT INTO customers VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    // Names are unique: an answer that groups by customer name must not add namesakes up
    // (a second "Chloe Meyer" becomes "Chloe A. Meyer"). The draws stay the same.
    let mut seen: std::collections::HashMap<(usize, usize), usize> = Default::default();
    for id in 1..=CUSTOMERS {
        let (country, region, cities, _) = COUNTRIES[rng.weighted(&weights)];
        let (first, last) = (rng.below(FIRST.len()), rng.below(LAST.len()));
        let n = seen.entry((first, last)).or_default();
        *n += 1;
        let name = match *n - 1 {
            0 => format!("{} {}", FIRST[first], LAST[last]),
            k => {
                let initial = char::from(b'A' + ((k - 1) % 26) as u8);
                let round = (k - 1) / 26;
                let suffix = if round == 0 {
                    String::new()
                } else {
                    format!(" {}", round + 1)
                };
                format!("{} {initial}. {}{suffix}", FIRST[first], LAST[last])
            }
        };
        let segment = [
            "Consumer",
            "Consumer",
            "Consumer",
            "Small Business",
            "Corporate",
        ][rng.below(5)];
        // Signups from a year before the first order to the data's end, so every year has some.
        let drawn = rng.below(base_span as usize + 365) as i64;
        let joined = start.add_days(drawn * (span + 365) / (base_span + 365) - 365);
        ins.execute(params![
            id,
            name,
            country,
            region,
            cities[rng.below(cities.len())],
            segment,
            joined.to_string()
        ])?;
    }
    Ok(())
}

/// The orders and their lines, day by day, with growth, seasons and busier weekends.
fn orders(
    conn: &Connection,
    rng: &mut Rng,
    products: &[(usize, f64, f64)],
    (start, today, span): (Date, Date, i64),
) -> anyhow::Result<()> {
    let popularity = Weights::new(products.iter().map(|p| p.2).collect());
    let items = Weights::new(vec![35.0, 30.0, 20.0, 10.0, 5.0]);
    let quantities = Weights::new(vec![80.0, 15.0, 5.0]);
    let mut ins_order = conn.prepare("INSERT INTO orders VALUES (?1, ?2, ?3, ?4)")?;
    let mut ins_item = conn.prepare("INSERT INTO order_items VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    let (mut order_id, mut item_id) = (0u64, 0u64);
    for day in 0..=span {
        let date = start.add_days(day);
        // Growth of ~30% a year, a December peak and a summer dip, busier weekends.
        let season = [
            0.9, 0.85, 0.95, 1.0, 1.0, 0.9, 0.85, 0.9, 1.0, 1.05, 1.2, 1.45,
        ][date.m as usize - 1];
        let weekend = if (date.days() + 3).rem_euclid(7) >= 5 {
            1.15
        } else {
            1.0
        };
        let expected = 62.0 * (1.0 + 0.3 * day as f64 / 365.0) * season * weekend;
        let n = (expected * (0.85 + 0.3 * rng.unit())) as usize;
        let age = today.days() - date.days();
        for _ in 0..n {
            order_id += 1;
            let status = match (age, rng.below(100)) {
                (0..=2, _) => "processing",
                (3..=9, r) if r < 70 => "shipped",
                (_, r) if r < 6 => "cancelled",
                (_, r) if r < 11 => "returned",
                _ => "completed",
            };
            let ts = format!(
                "{date} {:02}:{:02}:{:02}",
                6 + rng.below(17),
                rng.below(60),
                rng.below(60)
            );
            ins_order.execute(params![order_id, 1 + rng.below(CUSTOMERS), ts, status])?;
            for _ in 0..1 + rng.weighted(&items) {
                item_id += 1;
                let (pid, price, _) = products[rng.weighted(&popularity)];
                let qty = 1 + rng.weighted(&quantities) as i64;
                let unit = if rng.below(10) == 0 {
                    (price * 0.85 * 100.0).round() / 100.0
                } else {
                    price
                };
                let amount = (unit * qty as f64 * 100.0).round() / 100.0;
                ins_item.execute(params![item_id, order_id, pid, qty, unit, amount])?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ending_at_a_day_leaves_nothing_after_it_and_no_order_without_its_customer() {
        let conn = Connection::open_in_memory().unwrap();
        build(&conn, Some(Date::new((2025, 6, 15)))).unwrap();
        let one = |sql: &str| -> String { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            one("SELECT substr(MAX(created_at), 1, 10) FROM orders"),
            "2025-06-15"
        );
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM orders o LEFT JOIN customers c ON c.id = o.customer_id
                 WHERE c.id IS NULL"
            ),
            0
        );
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM order_items i LEFT JOIN orders o ON o.id = i.order_id
                 WHERE o.id IS NULL"
            ),
            0
        );
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM customers c WHERE substr(c.created_at, 1, 10) > '2025-06-15'
                 AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)"
            ),
            0
        );
    }
}
