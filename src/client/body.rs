//! Reading a streamed response body chunk by chunk, with an idle timer, so that every frame is
//! handled the moment its bytes arrive and a stalled stream is noticed.

use crate::stream::lines::Chunks;
use anyhow::Result;
use std::time::Duration;
use tokio::time::{Instant, sleep, sleep_until};

/// How long nothing must arrive before the caller is told it is waiting (a spinner appears).
const QUIET_AFTER: Duration = Duration::from_millis(300);

/// How a body ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The server closed the body normally.
    Closed,
    /// The connection failed, or stalled past the idle timeout: why.
    Lost(String),
}

/// Read `response`'s body into `into` until it ends; errors of `into` (e.g. a closed stdout)
/// stop the read and come back as errors, a failing connection as [`Ended::Lost`].
pub async fn read_body(
    response: &mut reqwest::Response,
    idle: Duration,
    into: &mut dyn Chunks,
) -> Result<Ended> {
    loop {
        let deadline = Instant::now() + idle;
        let next = response.chunk();
        tokio::pin!(next);
        let mut quiet = false;
        let got = loop {
            tokio::select! {
                r = &mut next => break Some(r),
                _ = sleep(QUIET_AFTER), if !quiet => {
                    quiet = true;
                    into.waiting(true);
                }
                _ = sleep_until(deadline) => break None,
            }
        };
        if quiet {
            into.waiting(false);
        }
        match got {
            None => return Ok(Ended::Lost(format!("no data for {}", show(idle)))),
            Some(Ok(Some(bytes))) => into.chunk(&bytes)?,
            Some(Ok(None)) => return Ok(Ended::Closed),
            Some(Err(e)) if e.is_timeout() => {
                return Ok(Ended::Lost(format!("no data for {}", show(idle))));
            }
            Some(Err(e)) => return Ok(Ended::Lost(innermost(&e))),
        }
    }
}

/// The innermost cause of an error: the words that say what actually failed.
pub fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// A duration in the shortest usual unit.
pub fn show(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{}ms", d.as_millis())
    } else if !d.as_secs().is_multiple_of(60) || d.as_secs() < 60 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}m", d.as_secs() / 60)
    }
}
