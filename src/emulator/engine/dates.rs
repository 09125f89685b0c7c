//! Civil-date arithmetic (proleptic Gregorian) without a date crate, after Howard Hinnant's
//! `days_from_civil` / `civil_from_days`, plus the date ranges the planner speaks about.

use std::fmt;

/// A calendar date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    /// Year, e.g. 2025.
    pub y: i32,
    /// Month, 1..=12.
    pub m: u32,
    /// Day of month, 1..=31.
    pub d: u32,
}

/// Days since 1970-01-01 of a civil date.
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> Date {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = (yoe + era * 400 + i64::from(m <= 2)) as i32;
    Date { y, m, d }
}

/// Number of days in a month.
pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl Date {
    /// A date from (year, month, day), clamping out-of-range parts so no input panics.
    pub fn new((y, m, d): (i32, u32, u32)) -> Date {
        let y = y.clamp(1, 9998);
        let m = m.clamp(1, 12);
        Date {
            y,
            m,
            d: d.clamp(1, days_in_month(y, m)),
        }
    }
    /// Days since 1970-01-01.
    pub fn days(self) -> i64 {
        days_from_civil(self.y, self.m, self.d)
    }
    /// This date moved by `n` days.
    pub fn add_days(self, n: i64) -> Date {
        civil_from_days(self.days() + n)
    }
    /// The first day of the month `n` months after this date's month.
    pub fn month_start(self, n: i32) -> Date {
        let idx = self.y * 12 + self.m as i32 - 1 + n;
        Date {
            y: idx.div_euclid(12),
            m: (idx.rem_euclid(12) + 1) as u32,
            d: 1,
        }
    }
    /// The first day of this date's quarter.
    pub fn quarter_start(self) -> Date {
        Date {
            y: self.y,
            m: (self.m - 1) / 3 * 3 + 1,
            d: 1,
        }
    }
    /// Monday of this date's ISO week.
    pub fn week_start(self) -> Date {
        // 1970-01-01 was a Thursday, so Monday-based weekday is (days + 3) mod 7.
        self.add_days(-(self.days() + 3).rem_euclid(7))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.y, self.m, self.d)
    }
}

/// A half-open date range `[start, end)` with the words used to describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// First day included.
    pub start: Date,
    /// First day not included.
    pub end: Date,
    /// How the answer names it, e.g. "last month (2025-05)".
    pub label: String,
}

/// Parses an ISO `YYYY-MM-DD` date.
pub fn parse_iso(s: &str) -> Option<Date> {
    let mut it = s.splitn(3, '-');
    let y = it.next()?.parse().ok()?;
    let m = it.next()?.parse().ok()?;
    let d = it.next()?.get(..2)?.parse().ok()?;
    Some(Date::new((y, m, d)))
}

/// Parses a `--today` value: a real calendar date written `YYYY-MM-DD`.
pub fn parse_date_arg(s: &str) -> Result<(i32, u32, u32), String> {
    let bad = || format!("{s:?} is not a date; write it as YYYY-MM-DD, e.g. 2025-06-15");
    let parts: Vec<&str> = s.trim().split('-').collect();
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let (y, m, d): (i32, u32, u32) = (
        y.parse().map_err(|_| bad())?,
        m.parse().map_err(|_| bad())?,
        d.parse().map_err(|_| bad())?,
    );
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) || y < 1 {
        return Err(format!("{s:?} is not a calendar date"));
    }
    Ok((y, m, d))
}

/// English month names, for parsing and labels.
pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_weeks() {
        for z in [-800_000i64, -1, 0, 1, 19_000, 20_000, 2_000_000] {
            let d = civil_from_days(z);
            assert_eq!(days_from_civil(d.y, d.m, d.d), z);
        }
        assert_eq!(
            Date::new((2025, 6, 15)).week_start().to_string(),
            "2025-06-09"
        );
        assert_eq!(
            Date::new((2025, 1, 31)).month_start(-1).to_string(),
            "2024-12-01"
        );
        assert_eq!(Date::new((2024, 2, 30)).to_string(), "2024-02-29");
        assert_eq!(parse_date_arg("2024-02-29"), Ok((2024, 2, 29)));
        assert!(parse_date_arg("2025-02-29").is_err());
        assert!(parse_date_arg("2025-6-15").is_err());
        assert!(parse_date_arg("yesterday").is_err());
        assert_eq!(
            parse_iso("2024-03-05 10:00:00"),
            Some(Date::new((2024, 3, 5)))
        );
    }
}
