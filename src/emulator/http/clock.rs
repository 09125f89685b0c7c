//! Injectable time for the emulator: ephemeral-user expiry, the agent's `today`, SCIM timestamps
//! and generated message ids all read this clock, so tests can move time instead of sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A clock shared by the whole server: the real time plus an offset, or a manual time that only
/// moves when [`Clock::advance`] is called. Clones share the same time.
#[derive(Clone, Debug)]
pub struct Clock(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    /// `None`: real time; `Some`: the frozen start of a manual clock, in Unix milliseconds.
    base_ms: Option<u64>,
    /// Milliseconds added by `advance`.
    offset_ms: AtomicU64,
    /// The last generated message id's milliseconds, so ids stay unique on a frozen clock.
    last_id_ms: AtomicU64,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::real()
    }
}

impl Clock {
    /// The system clock.
    pub fn real() -> Clock {
        Clock::with_base(None)
    }

    /// A clock frozen at `unix_ms` (milliseconds since the Unix epoch) until advanced.
    pub fn manual(unix_ms: u64) -> Clock {
        Clock::with_base(Some(unix_ms))
    }

    fn with_base(base_ms: Option<u64>) -> Clock {
        Clock(Arc::new(Inner {
            base_ms,
            offset_ms: AtomicU64::new(0),
            last_id_ms: AtomicU64::new(0),
        }))
    }

    /// Move time forward (on a real clock too: the offset is added to the system time).
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        // fetch_update cannot fail with a closure that always returns Some.
        let _ = self
            .0
            .offset_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |o| {
                Some(o.saturating_add(ms))
            });
    }

    /// Now, in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        let base = self.0.base_ms.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0)
        });
        base.saturating_add(self.0.offset_ms.load(Ordering::SeqCst))
    }

    /// Today's date (UTC) as (year, month, day).
    pub fn today(&self) -> (i32, u32, u32) {
        civil_from_days((self.now_ms() / 86_400_000) as i64)
    }

    /// Now as an RFC 3339 timestamp in UTC with milliseconds, e.g. `2026-01-31T09:05:00.123Z`.
    pub fn rfc3339(&self) -> String {
        let ms = self.now_ms();
        let (y, m, d) = civil_from_days((ms / 86_400_000) as i64);
        let in_day = ms % 86_400_000;
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
            in_day / 3_600_000,
            in_day / 60_000 % 60,
            in_day / 1000 % 60,
            in_day % 1000
        )
    }

    /// A fresh `<unix-ms>-message` id, strictly increasing even when the clock stands still.
    pub fn next_message_id(&self) -> String {
        let now = self.now_ms();
        let mut ms = now;
        let _ = self
            .0
            .last_id_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
                ms = now.max(last.saturating_add(1));
                Some(ms)
            });
        crate::protocol::chat::message_id_at(u128::from(ms))
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year as i32, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        let clock = Clock::manual(1_709_164_800_123); // 2024-02-29T00:00:00.123Z
        assert_eq!(clock.today(), (2024, 2, 29));
        assert_eq!(clock.rfc3339(), "2024-02-29T00:00:00.123Z");
        clock.advance(Duration::from_secs(86_400 + 61));
        assert_eq!(clock.today(), (2024, 3, 1));
        assert_eq!(clock.rfc3339(), "2024-03-01T00:01:01.123Z");
    }

    #[test]
    fn message_ids_are_unique_on_a_frozen_clock() {
        let clock = Clock::manual(1_700_000_000_000);
        let a = clock.next_message_id();
        let b = clock.clone().next_message_id();
        assert_eq!(a, "1700000000000-message");
        assert_eq!(b, "1700000000001-message");
    }
}
