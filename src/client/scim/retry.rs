//! When to try a SCIM request again: `Retry-After` (seconds or an HTTP date), else exponential
//! backoff, with a ceiling beyond which the client gives up instead of sleeping.

use std::time::{Duration, SystemTime};

/// How a run retries 429 and 503 answers.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    /// Retries after the first try (`--retries`); 3 means at most 4 tries.
    pub retries: u32,
    /// The longest `Retry-After` worth waiting for; a longer one fails the user at once.
    pub max_wait: Duration,
    /// The first backoff when the server names no wait; doubled on each retry.
    pub base: Duration,
    /// The longest backoff.
    pub cap: Duration,
}

impl RetryPolicy {
    /// The policy of CLI.md: `retries` retries, `Retry-After` honoured up to 60 s.
    pub fn new(retries: u32) -> RetryPolicy {
        RetryPolicy {
            retries,
            max_wait: Duration::from_secs(60),
            base: Duration::from_millis(250),
            cap: Duration::from_secs(8),
        }
    }

    /// The backoff before retry number `retry` (0-based), with a little jitter so that many
    /// users throttled at once do not all come back in the same millisecond.
    pub fn backoff(&self, retry: u32, salt: u64) -> Duration {
        let exp = self.base.saturating_mul(1u32 << retry.min(16));
        let wait = exp.min(self.cap);
        // Up to +25%, from a cheap mix of the salt and the clock; no RNG crate needed.
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.subsec_nanos() as u64)
            .unwrap_or(0);
        let mix = (salt ^ nanos).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54; // 0..1024
        wait + wait.mul_f64(mix as f64 / 4096.0)
    }
}

/// What a `Retry-After` header asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetryAfter {
    /// Wait this long (a date in the past means no wait).
    Wait(Duration),
    /// The header was there but was neither seconds nor an HTTP date.
    Invalid,
}

/// Parse `Retry-After`: delay-seconds or an HTTP date (RFC 9110 §10.2.3), relative to `now`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> RetryAfter {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return RetryAfter::Wait(Duration::from_secs(secs));
    }
    match httpdate::parse_http_date(value) {
        Ok(at) => RetryAfter::Wait(at.duration_since(now).unwrap_or(Duration::ZERO)),
        Err(_) => RetryAfter::Invalid,
    }
}

/// "in 3600 s (at Tue, 01 Jan 2030 00:00:00 GMT)": when the server asked to be called again.
pub fn come_back(wait: Duration, now: SystemTime) -> String {
    format!(
        "in {} s (at {})",
        wait.as_secs(),
        httpdate::fmt_http_date(now + wait)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_dates_and_garbage() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            parse_retry_after(" 120 ", now),
            RetryAfter::Wait(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:50:37 GMT", now),
            RetryAfter::Wait(Duration::from_secs(60))
        );
        // A date already past: retry at once.
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            RetryAfter::Wait(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), RetryAfter::Invalid);
        assert_eq!(parse_retry_after("-5", now), RetryAfter::Invalid);
        assert_eq!(
            come_back(Duration::from_secs(60), now),
            "in 60 s (at Sun, 06 Nov 1994 08:50:37 GMT)"
        );
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let p = RetryPolicy::new(3);
        let b0 = p.backoff(0, 1);
        let b2 = p.backoff(2, 1);
        assert!(b0 >= Duration::from_millis(250) && b0 < Duration::from_millis(320));
        assert!(b2 >= Duration::from_secs(1) && b2 < Duration::from_millis(1260));
        assert!(p.backoff(30, 1) <= Duration::from_secs(10));
    }
}
