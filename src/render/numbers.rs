//! Numbers, dates and names as people read them: thousands separators, a fixed number of
//! decimals per column, dates without a zero time part, `categories_name` as "Categories name",
//! and axis labels in one unit and precision per axis (`0.4M, 0.8M, 1.2M`).

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

/// How every number on one value axis is written, its ticks and the values drawn against it:
/// one unit (`k`, `M`, `B` or none) chosen from the largest, and one number of decimals, so
/// that a chart never shows `1.19M` beside `926.3k` and `734.95k`. Zero is written `0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisFormat {
    scale: f64,
    unit: &'static str,
    decimals: usize,
}

impl AxisFormat {
    /// The format for `ticks` (round values, as [`nice_ticks`] makes them): the unit of the
    /// largest, and as many decimals as tell the ticks apart.
    pub fn of_ticks(ticks: &[f64]) -> AxisFormat {
        let largest = ticks.iter().fold(0.0_f64, |m, t| m.max(t.abs()));
        // Below 10,000 the number itself reads better than a unit: `2,500`, not `2.5k`.
        let (scale, unit) = if largest >= 1e9 {
            (1e9, "B")
        } else if largest >= 1e6 {
            (1e6, "M")
        } else if largest >= 1e4 {
            (1e3, "k")
        } else {
            (1.0, "")
        };
        let scaled: Vec<f64> = ticks.iter().map(|t| t / scale).collect();
        let decimals = (0..6).find(|&d| exact(&scaled, d)).unwrap_or(6);
        AxisFormat {
            scale,
            unit,
            decimals,
        }
    }

    /// The same unit, with decimals enough to show `values` (drawn as labels beside the
    /// ticks) to three significant digits of the largest, at most two, and no more than
    /// they have: counts stay whole.
    pub fn with_values(self, values: impl IntoIterator<Item = f64>) -> AxisFormat {
        let values: Vec<f64> = values
            .into_iter()
            .filter(|v| v.is_finite())
            .map(|v| v / self.scale)
            .collect();
        let largest = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let int_digits = if largest < 1.0 {
            1
        } else {
            largest.log10().floor() as usize + 1
        };
        let significant = 3usize.saturating_sub(int_digits).min(2);
        let wanted = (0..significant)
            .find(|&d| exact(&values, d))
            .unwrap_or(significant);
        AxisFormat {
            decimals: self.decimals.max(wanted),
            ..self
        }
    }

    /// `x` in this format: `0.25M`, `1.00M`, `292k`, `0`.
    pub fn format(&self, x: f64) -> String {
        if x == 0.0 {
            return "0".to_owned();
        }
        format_number(x / self.scale, self.decimals) + self.unit
    }
}

/// Whether every one of `values` is written exactly with `decimals` digits after the point.
fn exact(values: &[f64], decimals: usize) -> bool {
    let m = 10f64.powi(decimals as i32);
    values.iter().all(|v| {
        let x = v * m;
        (x - x.round()).abs() < 1e-6 * x.abs().max(1.0)
    })
}

/// Labels for the ticks of an axis in one format ([`AxisFormat::of_ticks`]): `0, 2,500,
/// 5,000`, `0, 12.5k, 25.0k`, `0, 0.4M, 0.8M, 1.2M`.
pub fn axis_labels(ticks: &[f64]) -> Vec<String> {
    let f = AxisFormat::of_ticks(ticks);
    ticks.iter().map(|&t| f.format(t)).collect()
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
    fn axis_labels_share_a_unit() {
        assert_eq!(
            axis_labels(&[0.0, 2500.0, 5000.0, 7500.0, 10000.0]),
            ["0", "2.5k", "5.0k", "7.5k", "10.0k"]
        );
        assert_eq!(axis_labels(&[0.0, 500.0, 1000.0]), ["0", "500", "1,000"]);
        assert_eq!(axis_labels(&[0.0, 0.25, 0.5]), ["0", "0.25", "0.50"]);
        assert_eq!(
            axis_labels(&[0.0, 4e5, 8e5, 1.2e6]),
            ["0", "0.4M", "0.8M", "1.2M"]
        );
        assert_eq!(axis_labels(&[-2e5, 0.0, 2e5]), ["-200k", "0", "200k"]);
        assert_eq!(axis_labels(&[0.0, 1e6, 2e6, 3e6]), ["0", "1M", "2M", "3M"]);
        assert_eq!(axis_labels(&[0.0, 2e-4, 4e-4]), ["0", "0.0002", "0.0004"]);
    }

    /// The chart: ticks every 250k up to 1.25M and bars of 1,192,711.44, 926,303.08
    /// and 734,954.33 read `1.19M`, `926.3k`, `734.95k`; now every label of the chart is in M
    /// with two decimals.
    #[test]
    fn one_precision_per_axis() {
        let ticks = nice_ticks(0.0, 1_192_711.44, 5);
        let values = [1_192_711.44, 926_303.08, 734_954.33, 147_184.16];
        let f = AxisFormat::of_ticks(&ticks).with_values(values);
        let labels: Vec<String> = ticks.iter().chain(&values).map(|&v| f.format(v)).collect();
        assert_eq!(
            labels,
            [
                "0", "0.25M", "0.50M", "0.75M", "1.00M", "1.25M", "1.19M", "0.93M", "0.73M",
                "0.15M"
            ]
        );
        for l in labels.iter().filter(|l| *l != "0") {
            let (int, frac) = l.trim_end_matches('M').split_once('.').unwrap();
            assert!(
                l.ends_with('M') && frac.len() == 2 && !int.is_empty(),
                "{l}"
            );
        }
        // Ticks 100k apart with values near 290k: whole thousands.
        let f = AxisFormat::of_ticks(&[0.0, 1e5, 2e5, 3e5]).with_values([292_430.0, 258_350.7]);
        assert_eq!(f.format(3e5), "300k");
        assert_eq!(f.format(292_430.0), "292k");
        // Values keep no more decimals than they have: counts stay whole, round hundreds too.
        let f = AxisFormat::of_ticks(&[-1e3, -5e2, 0.0, 5e2]).with_values([-1e3, 3e2, -5e2]);
        assert_eq!(
            (f.format(-1e3), f.format(3e2)),
            ("-1,000".into(), "300".into())
        );
        let f = AxisFormat::of_ticks(&[0.0, 1e4, 2e4]).with_values([12_000.0, 8_500.0]);
        assert_eq!(
            (f.format(2e4), f.format(8_500.0)),
            ("20.0k".into(), "8.5k".into())
        );
        let f = AxisFormat::of_ticks(&[0.0, 2.0, 4.0, 6.0, 8.0]).with_values([7.0, 3.0]);
        assert_eq!((f.format(8.0), f.format(7.0)), ("8".into(), "7".into()));
        let f = AxisFormat::of_ticks(&[0.0, 0.1, 0.2]).with_values([0.126]);
        assert_eq!(
            (f.format(0.2), f.format(0.126)),
            ("0.20".into(), "0.13".into())
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
