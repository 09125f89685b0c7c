//! Numbers, dates and names as people read them: thousands separators, a fixed number of
//! decimals per column, dates without a zero time part, `categories_name` as "Categories name",
//! and short axis labels (`1.2M`).

use serde_json::Value;

/// A cell as a number, if it is one: a JSON number, or a string holding one (values often
/// arrive as strings).
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_number(s),
        _ => None,
    }
}

/// A number written as text (no separators, no units); `NaN` and infinities are not numbers.
pub fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
    {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Digits after the decimal point as written (`12.50` -> 2, `1e3` -> 0).
pub fn decimals_of(v: &Value) -> usize {
    let s = match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => return 0,
    };
    if s.contains(['e', 'E']) {
        return 0;
    }
    s.split_once('.').map_or(0, |(_, d)| d.len())
}

/// `x` with `decimals` digits after the point and a comma between thousands.
pub fn format_number(x: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, x.abs());
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text.as_str(), None),
    };
    let mut out = String::with_capacity(text.len() + text.len() / 3 + 1);
    // "-0.00" is not worth a sign.
    if x < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        out.push('-');
    }
    let digits = int.len();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (digits - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// A short label for an axis: `950`, `12.5k`, `1.2M`, `3B`; small numbers keep a few digits.
pub fn compact(x: f64) -> String {
    let a = x.abs();
    let (v, unit) = if a >= 1e9 {
        (x / 1e9, "B")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e4 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let text = if unit.is_empty() && a < 1e4 && a.fract() == 0.0 {
        format_number(v, 0)
    } else {
        let t = format!("{v:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    };
    if text == "-0" {
        "0".into()
    } else {
        text + unit
    }
}

/// Labels for the ticks of an axis, as Vega's `~s` format writes them: `0, 2.5k, 5k, 10k`,
/// `200k, 1.2M`; no trailing zeros.
pub fn axis_labels(ticks: &[f64]) -> Vec<String> {
    ticks
        .iter()
        .map(|&t| {
            let a = t.abs();
            let (v, unit) = if a >= 1e9 {
                (t / 1e9, "B")
            } else if a >= 1e6 {
                (t / 1e6, "M")
            } else if a >= 1e3 {
                (t / 1e3, "k")
            } else {
                (t, "")
            };
            let text = format!("{v:.3}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            if text == "-0" || text.is_empty() {
                "0".to_owned()
            } else {
                format!("{text}{unit}")
            }
        })
        .collect()
}

/// Whether a column type (`schema[].column_type`, or an annotation's `type`) is numeric.
pub fn numeric_type(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    [
        "number", "int", "float", "double", "decimal", "numeric", "real", "bigint", "long",
    ]
    .iter()
    .any(|k| t.contains(k))
}

/// Whether a column type is a date or time.
pub fn time_type(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    t.contains("time") || t.contains("date")
}

/// `2025-01-01T00:00:00.000` (or with a space, a `Z`) without its zero time part; other text as
/// it is (`None` when there is nothing to cut).
pub fn short_date(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    if b.len() <= 10 || !looks_like_date(s) || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let rest = s[11..].trim_end_matches('Z');
    let zero = !rest.is_empty() && rest.bytes().all(|c| matches!(c, b'0' | b':' | b'.'));
    zero.then(|| &s[..10])
}

/// `YYYY-MM-DD` at the start.
fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

/// A date or date-time as days since 1970-01-01 (fractions for the time of day).
pub fn days(s: &str) -> Option<f64> {
    let s = s.trim();
    if !looks_like_date(s) {
        // A bare year or year-month (`2024`, `2024-03`) is a date too.
        let parts: Vec<&str> = s.split('-').collect();
        return match parts.as_slice() {
            [y] if y.len() == 4 => Some(civil_days(y.parse().ok()?, 1, 1) as f64),
            [y, m] if y.len() == 4 && m.len() == 2 => {
                Some(civil_days(y.parse().ok()?, m.parse().ok()?, 1) as f64)
            }
            _ => None,
        };
    }
    let y: i64 = s[..4].parse().ok()?;
    let m: u32 = s[5..7].parse().ok()?;
    let d: u32 = s[8..10].parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut day = civil_days(y, m, d) as f64;
    if s.len() > 11 {
        let t: Vec<f64> = s[11..]
            .trim_end_matches('Z')
            .split(':')
            .map(|p| p.parse::<f64>().unwrap_or(0.0))
            .collect();
        let secs = t.first().unwrap_or(&0.0) * 3600.0
            + t.get(1).unwrap_or(&0.0) * 60.0
            + t.get(2).unwrap_or(&0.0);
        day += secs / 86_400.0;
    }
    Some(day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_days(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number: (year, month, day).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Labels for dates given as day numbers: `Jan 2024` when all are firsts of months,
/// `2024-01-15` otherwise, with the time when one has a time of day.
pub fn date_labels(days: &[f64]) -> Vec<String> {
    let whole = days.iter().all(|d| d.fract() == 0.0);
    let firsts = whole && days.iter().all(|d| civil_from_days(*d as i64).2 == 1);
    days.iter()
        .map(|&d| {
            let (y, m, day) = civil_from_days(d.floor() as i64);
            if firsts {
                format!("{} {y}", MONTHS[m as usize - 1])
            } else if whole {
                format!("{y:04}-{m:02}-{day:02}")
            } else {
                let mins = ((d - d.floor()) * 1440.0).round() as i64;
                format!("{y:04}-{m:02}-{day:02} {:02}:{:02}", mins / 60, mins % 60)
            }
        })
        .collect()
}

/// A column name made readable: the part after the last dot, `_` as spaces, first letter up
/// (`orders.created_at` -> "Created at", `categories_name` -> "Categories name").
pub fn readable_name(name: &str) -> String {
    let last = name.rsplit('.').next().unwrap_or(name);
    let spaced: String = last
        .chars()
        .map(|c| if c == '_' { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if spaced.is_empty() {
        return name.to_owned();
    }
    let mut chars = spaced.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    first.unwrap_or_default() + chars.as_str()
}

/// Up to about `count` round tick values covering `lo..=hi` (1, 2 or 5 times a power of ten).
pub fn nice_ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let (lo, hi) = if (hi - lo).abs() < f64::EPSILON {
        if lo == 0.0 {
            (0.0, 1.0)
        } else {
            (lo.min(0.0), lo.max(0.0))
        }
    } else {
        (lo, hi)
    };
    let raw = (hi - lo) / count.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let start = (lo / step).floor() * step;
    let mut ticks = Vec::new();
    let mut t = start;
    while t <= hi + step * 1e-9 {
        ticks.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    if ticks.last().is_some_and(|l| *l < hi) {
        ticks.push(t);
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn thousands_and_decimals() {
        assert_eq!(format_number(43166.6, 2), "43,166.60");
        assert_eq!(format_number(1234567.0, 0), "1,234,567");
        assert_eq!(format_number(-1234.5, 1), "-1,234.5");
        assert_eq!(format_number(999.0, 0), "999");
        assert_eq!(format_number(-0.001, 2), "0.00");
        assert_eq!(decimals_of(&json!("12.50")), 2);
        assert_eq!(decimals_of(&json!(3)), 0);
        assert_eq!(number(&json!("1e3")), Some(1000.0));
        assert_eq!(number(&json!("N/A")), None);
        assert_eq!(number(&json!("nan")), None);
    }

    #[test]
    fn compact_labels() {
        assert_eq!(compact(950.0), "950");
        assert_eq!(compact(12_500.0), "12.5k");
        assert_eq!(compact(2_767_850.4), "2.77M");
        assert_eq!(compact(3e9), "3B");
        assert_eq!(compact(0.25), "0.25");
        assert_eq!(compact(-0.0), "0");
    }

    #[test]
    fn axis_labels_share_a_unit() {
        assert_eq!(
            axis_labels(&[0.0, 2500.0, 5000.0, 7500.0, 10000.0]),
            ["0", "2.5k", "5k", "7.5k", "10k"]
        );
        assert_eq!(axis_labels(&[0.0, 500.0, 1000.0]), ["0", "500", "1k"]);
        assert_eq!(axis_labels(&[0.0, 0.25, 0.5]), ["0", "0.25", "0.5"]);
        assert_eq!(
            axis_labels(&[0.0, 2e5, 4e5, 1.2e6]),
            ["0", "200k", "400k", "1.2M"]
        );
    }

    #[test]
    fn dates() {
        assert_eq!(short_date("2024-01-01T00:00:00.000"), Some("2024-01-01"));
        assert_eq!(short_date("2024-01-01 00:00:00"), Some("2024-01-01"));
        assert_eq!(short_date("2024-01-01T10:00:00.000"), None);
        assert_eq!(short_date("2024-01-01"), None);
        assert_eq!(days("1970-01-02"), Some(1.0));
        assert_eq!(days("2024-03"), days("2024-03-01"));
        let d = days("2024-02-29").unwrap() as i64;
        assert_eq!(civil_from_days(d), (2024, 2, 29));
        assert_eq!(
            date_labels(&[days("2024-01-01").unwrap(), days("2024-02-01").unwrap()]),
            ["Jan 2024", "Feb 2024"]
        );
    }

    #[test]
    fn names_and_ticks() {
        assert_eq!(readable_name("categories_name"), "Categories name");
        assert_eq!(readable_name("orders.created_at"), "Created at");
        assert_eq!(nice_ticks(0.0, 2_767_850.4, 5), [0.0, 1e6, 2e6, 3e6]);
        assert_eq!(nice_ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    }
}
