//! Durations as people write them on command lines and in fault specs: `500ms`, `30s`, `5m`,
//! `2h`, `7d`, `1w`, or plain seconds. A leaf module: the client side and the emulator both use
//! it, and it uses nothing of ours.

use std::time::Duration;

/// Parse a duration such as `30s`, `1.5m`, `250ms`, `2h`, `7d`, `1w` or `10` (seconds).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let value: f64 = num.parse().map_err(|_| {
        "expected a number with an optional unit (ms, s, m, h, d, w), e.g. 30s".to_string()
    })?;
    let secs = match unit.trim() {
        "ms" => value / 1000.0,
        "" | "s" | "sec" | "secs" => value,
        "m" | "min" | "mins" => value * 60.0,
        "h" | "hr" | "hrs" => value * 3600.0,
        "d" | "day" | "days" => value * 86_400.0,
        "w" | "week" | "weeks" => value * 604_800.0,
        other => return Err(format!("unknown unit {other:?} (use ms, s, m, h, d or w)")),
    };
    if !secs.is_finite() || secs > 1e12 {
        return Err("too large".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("1.5m").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("7d").unwrap(), Duration::from_secs(604_800));
        assert_eq!(parse_duration("1w").unwrap(), Duration::from_secs(604_800));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
