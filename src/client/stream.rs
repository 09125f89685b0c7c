//! Reading a streamed response body chunk by chunk, with an idle timer, so that every frame is
//! handled the moment its bytes arrive and a stalled stream is noticed.

use crate::ndjson::{Event, Framer, DEFAULT_MAX_LINE};
use anyhow::Result;
use std::time::Duration;
use tokio::time::{sleep, sleep_until, Instant};

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

/// What a body is read into.
pub trait Chunks {
    /// A chunk of bytes.
    fn chunk(&mut self, bytes: &[u8]) -> Result<()>;
    /// Nothing has arrived for a while (`true`), or bytes arrived again (`false`).
    fn waiting(&mut self, quiet: bool);
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
                return Ok(Ended::Lost(format!("no data for {}", show(idle))))
            }
            Some(Err(e)) => return Ok(Ended::Lost(innermost(&e))),
        }
    }
}

/// Something that takes complete lines.
pub trait Lines {
    /// One line: `raw` with its terminator, `text` without.
    fn line(&mut self, raw: &[u8], text: &[u8]) -> Result<()>;
    /// A chunk's lines have all been handed over (flush here).
    fn chunk_done(&mut self) -> Result<()> {
        Ok(())
    }
    /// See [`Chunks::waiting`].
    fn waiting(&mut self, _quiet: bool) {}
}

/// Frames chunks into lines for a [`Lines`]: glue between [`read_body`] and line handling.
pub struct Framed<'a> {
    framer: Framer,
    lines: &'a mut dyn Lines,
    /// Lines longer than the bound, skipped.
    pub too_long: u64,
}

impl<'a> Framed<'a> {
    /// A framer feeding `lines`.
    pub fn new(lines: &'a mut dyn Lines) -> Self {
        Framed {
            framer: Framer::new(DEFAULT_MAX_LINE),
            lines,
            too_long: 0,
        }
    }

    /// A response body closed: a last line without a newline counts only when it is a whole
    /// JSON object; anything else is the front of a line the connection lost, which is
    /// dropped, never handed on (`false`: the body was cut in the middle of a line).
    pub fn finish_response(&mut self) -> Result<bool> {
        let tail = self.framer.partial();
        if !tail.is_empty() && crate::jsonscan::check_object(tail).is_err() {
            self.framer.discard_partial();
            return Ok(false);
        }
        self.finish()?;
        Ok(true)
    }

    /// The input ended (a file): a last line without a newline still counts.
    pub fn finish(&mut self) -> Result<()> {
        let (lines, too_long) = (&mut *self.lines, &mut self.too_long);
        self.framer
            .finish(&mut |e: Event<'_>| dispatch(e, lines, too_long))
    }
}

impl Chunks for Framed<'_> {
    fn chunk(&mut self, bytes: &[u8]) -> Result<()> {
        let (lines, too_long) = (&mut *self.lines, &mut self.too_long);
        self.framer
            .feed(bytes, &mut |e: Event<'_>| dispatch(e, lines, too_long))?;
        self.lines.chunk_done()
    }

    fn waiting(&mut self, quiet: bool) {
        self.lines.waiting(quiet)
    }
}

fn dispatch(e: Event<'_>, lines: &mut dyn Lines, too_long: &mut u64) -> Result<()> {
    match e {
        Event::Line(l) => lines.line(l.raw, l.text),
        // A line past the bound is not a frame the service would send: skipping it would
        // silently lose part of the answer, and a server that never ends it would keep us
        // reading forever. Stop with words that name the limit.
        Event::TooLong { number, limit } => {
            *too_long += 1;
            Err(crate::exit::fail(
                crate::exit::Status::Failure,
                format!(
                    "line {number} of the response is longer than the {} MiB line limit; the stream cannot be read",
                    limit >> 20
                ),
            ))
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
    } else if d.as_secs() % 60 != 0 || d.as_secs() < 60 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}m", d.as_secs() / 60)
    }
}
