//! Reading a streamed response body chunk by chunk, with an idle timer, so that every frame is
//! handled the moment its bytes arrive and a stalled stream is noticed.

use crate::stream::lines::Chunks;
use anyhow::Result;
use futures_util::FutureExt;
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
        let next = response.chunk();
        tokio::pin!(next);
        // Bytes already at hand are handled at once: no timer is set and nothing is flushed,
        // so that a body arriving faster than it is handled is written out in large pieces
        // (`sql` hands its output to a writer thread a megabyte at a time instead of a wake-up
        // per chunk). The connection is read by a task of its own on the same runtime, so
        // bytes are at hand when, after a yield (which also polls the socket), the chunk is
        // ready. Before any wait, what the lines made is flushed.
        let mut ready = (&mut next).now_or_never();
        if ready.is_none() {
            tokio::task::yield_now().await;
            ready = (&mut next).now_or_never();
        }
        let got = match ready {
            Some(r) => Some(r),
            None => {
                into.caught_up()?;
                let deadline = Instant::now() + idle;
                let mut quiet = false;
                let got = loop {
                    tokio::select! {
                        r = &mut next => break Some(r),
                        _ = sleep(QUIET_AFTER), if !quiet => {
                            quiet = true;
                            into.waiting(true);
                        }
                        _ = sleep_until(deadline) => break None,
                        // The output thread found stdout closed while this waited: nothing
                        // more will be read, so stop now, as a failed write would.
                        _ = crate::term::stdout_closed_wait() => {
                            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe).into());
                        }
                    }
                };
                if quiet {
                    into.waiting(false);
                }
                got
            }
        };
        let ended = match got {
            None => Ended::Lost(format!("no data for {}", show(idle))),
            Some(Ok(Some(bytes))) => {
                into.chunk(&bytes)?;
                continue;
            }
            Some(Ok(None)) => Ended::Closed,
            Some(Err(e)) if e.is_timeout() => Ended::Lost(format!("no data for {}", show(idle))),
            Some(Err(e)) => Ended::Lost(innermost(&e)),
        };
        into.caught_up()?;
        return Ok(ended);
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
