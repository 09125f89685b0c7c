//! `--fault SPEC`: failures injected on purpose so that clients can be tested against them.
//!
//! A spec is comma-joined `key=value` pairs; the grammar is in `analyst serve --help` (cli.rs). Selection is deterministic
//! (counters, never randomness), so a test that injects a fault knows which request gets it.

use crate::duration::parse_duration;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Which kind of request a fault applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `stream-chat-state` (messages and reads).
    Chat,
    /// `abort`.
    Abort,
    /// SCIM `Users`.
    Scim,
}

/// One parsed `--fault` spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fault {
    spec: String,
    on: Vec<Target>,
    times: Option<u64>,
    every: Option<u64>,
    status: Option<u16>,
    retry_after: Option<u64>,
    delay: Option<Duration>,
    lines: LineFaults,
}

/// Faults counted in lines of one chat response (each `None` when not injected).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineFaults {
    /// End the connection abruptly after this many lines.
    pub drop_after: Option<u64>,
    /// End the connection abruptly in the middle of the line after this many.
    pub cut_after: Option<u64>,
    /// Write a non-JSON line after this many lines.
    pub malformed_after: Option<u64>,
    /// Stop writing after this many lines, keeping the connection open.
    pub stall_after: Option<u64>,
    /// Send `__suspended__` after this many lines and pause the turn.
    pub suspend_after: Option<u64>,
    /// The turn stops producing after this many lines until aborted.
    pub hold_after: Option<u64>,
}

impl LineFaults {
    fn merge(&mut self, other: &LineFaults) {
        fn min(a: &mut Option<u64>, b: Option<u64>) {
            *a = match (*a, b) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            };
        }
        min(&mut self.drop_after, other.drop_after);
        min(&mut self.cut_after, other.cut_after);
        min(&mut self.malformed_after, other.malformed_after);
        min(&mut self.stall_after, other.stall_after);
        min(&mut self.suspend_after, other.suspend_after);
        min(&mut self.hold_after, other.hold_after);
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec)
    }
}

impl FromStr for Fault {
    type Err = String;

    /// Parse a spec; the error says which part is wrong (the caller names the whole spec).
    fn from_str(spec: &str) -> Result<Fault, String> {
        let mut fault = Fault {
            spec: spec.trim().to_owned(),
            ..Fault::default()
        };
        if fault.spec.is_empty() {
            return Err("empty fault spec".into());
        }
        for part in fault.spec.clone().split(',') {
            let (key, value) = part
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("{part:?} is not KEY=VALUE"))?;
            let count = || -> Result<u64, String> {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("{key}={value}: expected a whole number"))
            };
            match key {
                "drop-after" => fault.lines.drop_after = Some(count()?),
                "cut-after" => fault.lines.cut_after = Some(count()?),
                "malformed-after" => fault.lines.malformed_after = Some(count()?),
                "stall-after" => fault.lines.stall_after = Some(count()?),
                "suspend-after" => fault.lines.suspend_after = Some(count()?),
                "hold-after" => fault.lines.hold_after = Some(count()?),
                "retry-after" => fault.retry_after = Some(count()?),
                "times" => fault.times = Some(count()?),
                "delay" => {
                    fault.delay = Some(parse_duration(value).map_err(|e| format!("{key}: {e}"))?)
                }
                "status" => fault.parse_status(value)?,
                "on" => fault.on.push(match value {
                    "chat" => Target::Chat,
                    "abort" => Target::Abort,
                    "scim" => Target::Scim,
                    _ => return Err(format!("on={value}: expected chat, abort or scim")),
                }),
                _ => return Err(format!("unknown key {key:?}")),
            }
        }
        if fault.retry_after.is_some() && fault.status.is_none() {
            return Err("retry-after needs a status=CODE in the same spec".into());
        }
        // `on=`, `times=` and `every` only select requests: a spec of nothing else would be
        // accepted and do nothing, which a user testing a client would not notice.
        if fault.status.is_none() && fault.delay.is_none() && fault.lines == LineFaults::default() {
            return Err(
                "it names no failure: give status=CODE, delay=DURATION or one of \
                 drop-after, cut-after, malformed-after, stall-after, suspend-after, hold-after"
                    .into(),
            );
        }
        Ok(fault)
    }
}

impl Fault {
    fn parse_status(&mut self, value: &str) -> Result<(), String> {
        let (code, rest) = match value.find(['x', '@']) {
            Some(i) => value.split_at(i),
            None => (value, ""),
        };
        let code: u16 = code
            .parse()
            .ok()
            .filter(|c| (400..=599).contains(c))
            .ok_or_else(|| {
                format!("status={value}: CODE must be an HTTP status from 400 to 599")
            })?;
        self.status = Some(code);
        if let Some(k) = rest.strip_prefix('x') {
            // `x0` would be a fault that never fires: a usage error, not a silent no-op.
            let k = k.parse().ok().filter(|k: &u64| *k > 0).ok_or_else(|| {
                format!("status={value}: xK needs a whole number K of at least 1")
            })?;
            self.times = Some(k);
        } else if let Some(p) = rest.strip_prefix('@') {
            let p: f64 = p
                .parse()
                .ok()
                .filter(|p: &f64| *p > 0.0 && *p <= 1.0)
                .ok_or_else(|| format!("status={value}: @P needs a fraction 0 < P <= 1"))?;
            self.every = Some((1.0 / p).round().max(1.0) as u64);
        }
        Ok(())
    }

    /// The spec as given on the command line.
    pub fn spec(&self) -> &str {
        &self.spec
    }
}

/// What the faults decided for one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Injected {
    /// Wait this long before answering.
    pub delay: Duration,
    /// Answer this status instead (with the spec that caused it and an optional Retry-After).
    pub status: Option<(u16, Option<u64>, String)>,
    /// Faults for the lines of a chat stream.
    pub lines: LineFaults,
}

/// The faults of a server with their counters.
#[derive(Debug, Default)]
pub struct Faults {
    rules: Vec<(Fault, AtomicU64)>,
}

impl Faults {
    /// Counters start at zero.
    pub fn new(faults: Vec<Fault>) -> Faults {
        Faults {
            rules: faults.into_iter().map(|f| (f, AtomicU64::new(0))).collect(),
        }
    }

    /// Count this request against every matching spec and collect what fires.
    pub fn on_request(&self, target: Target) -> Injected {
        let mut out = Injected::default();
        for (fault, counter) in &self.rules {
            if !fault.on.is_empty() && !fault.on.contains(&target) {
                continue;
            }
            let n = counter.fetch_add(1, Ordering::SeqCst);
            let in_times = fault.times.is_none_or(|k| n < k);
            let on_beat = fault.every.is_none_or(|e| (n + 1) % e == 0);
            if !(in_times && on_beat) {
                continue;
            }
            out.delay += fault.delay.unwrap_or_default();
            if out.status.is_none()
                && let Some(code) = fault.status
            {
                out.status = Some((code, fault.retry_after, fault.spec.clone()));
            }
            if target == Target::Chat {
                out.lines.merge(&fault.lines);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Fault {
        s.parse().unwrap()
    }

    #[test]
    fn specs_parse_and_errors_name_the_part() {
        let f = parse("status=503x2,retry-after=1");
        assert_eq!(
            (f.status, f.times, f.retry_after),
            (Some(503), Some(2), Some(1))
        );
        assert_eq!(parse("status=500@0.25").every, Some(4));
        assert_eq!(parse("delay=250ms").delay, Some(Duration::from_millis(250)));
        assert_eq!(parse("drop-after=3").lines.drop_after, Some(3));
        assert_eq!(
            parse("on=scim,on=abort,status=429").on,
            [Target::Scim, Target::Abort]
        );
        let err = |s: &str| s.parse::<Fault>().unwrap_err();
        assert!(err("bogus=1").contains("bogus"));
        assert!(err("drop-after=x").contains("drop-after"));
        assert!(err("status=200").contains("400 to 599"));
        assert!(err("status=500@0").contains("fraction"));
        assert!(err("retry-after=1").contains("status"));
        assert!(err("delay").contains("KEY=VALUE"));
        assert!(err("on=web").contains("chat, abort or scim"));
        assert!(err("on=chat").contains("names no failure"));
        assert!(err("times=2").contains("names no failure"));
    }

    #[test]
    fn selection_is_deterministic() {
        let faults = Faults::new(vec![parse("status=503x2"), parse("status=500@0.5,on=scim")]);
        let codes: Vec<_> = (0..4)
            .map(|_| faults.on_request(Target::Scim).status.map(|s| s.0))
            .collect();
        assert_eq!(codes, [Some(503), Some(503), None, Some(500)]);
        assert_eq!(faults.on_request(Target::Chat).status, None);
    }

    #[test]
    fn line_faults_only_reach_chat() {
        let faults = Faults::new(vec![
            parse("drop-after=2"),
            parse("drop-after=5,stall-after=7"),
        ]);
        let lines = faults.on_request(Target::Chat).lines;
        assert_eq!((lines.drop_after, lines.stall_after), (Some(2), Some(7)));
        assert_eq!(faults.on_request(Target::Scim).lines, LineFaults::default());
    }
}
