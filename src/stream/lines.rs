//! Chunks of bytes -> complete lines: the glue between whatever reads a body (an HTTP response,
//! a file) and whatever handles its lines, with the line bound that keeps a hostile server from
//! exhausting memory.

use super::ndjson::{DEFAULT_MAX_LINE, Event, Framer};
use anyhow::Result;

/// What a body is read into.
pub trait Chunks {
    /// A chunk of bytes: its lines are handed over, not yet flushed.
    fn chunk(&mut self, bytes: &[u8]) -> Result<()>;
    /// No more bytes are at hand (the reader is about to wait for them): flush what the
    /// lines so far made, so that every frame is out before any wait.
    fn caught_up(&mut self) -> Result<()>;
    /// Nothing has arrived for a while (`true`), or bytes arrived again (`false`).
    fn waiting(&mut self, quiet: bool);
}

/// Something that takes complete lines.
pub trait Lines {
    /// One line: `raw` with its terminator, `text` without.
    fn line(&mut self, raw: &[u8], text: &[u8]) -> Result<()>;
    /// The lines at hand have all been handed over, and the reader is about to wait for more
    /// (flush here; see [`Chunks::caught_up`]).
    fn chunk_done(&mut self) -> Result<()> {
        Ok(())
    }
    /// See [`Chunks::waiting`].
    fn waiting(&mut self, _quiet: bool) {}
}

/// Frames chunks into lines for a [`Lines`]: glue between a body reader and line handling.
pub struct Framed<'a> {
    framer: Framer,
    lines: &'a mut dyn Lines,
    /// Lines longer than the bound, skipped.
    pub too_long: u64,
    /// Registered secrets to mask in each line before it is handed on, for readers that do
    /// not go through the chat tracker (which masks its own).
    masker: Option<crate::term::Masker>,
}

impl<'a> Framed<'a> {
    /// A framer feeding `lines`.
    pub fn new(lines: &'a mut dyn Lines) -> Self {
        Framed {
            framer: Framer::new(DEFAULT_MAX_LINE),
            lines,
            too_long: 0,
            masker: None,
        }
    }

    /// A framer feeding `lines` with every registered secret masked: a data API that echoes a
    /// token inside a row must not have it printed.
    pub fn masking(lines: &'a mut dyn Lines) -> Self {
        Framed {
            masker: Some(crate::term::Masker::now()),
            ..Framed::new(lines)
        }
    }

    /// [`Framed::finish_response`], and the last line it did not hand on (what followed the
    /// last newline, when that is no whole JSON object; empty otherwise), for the caller to
    /// judge: the front of a line cut short, or a body that was never NDJSON.
    pub fn finish_body(&mut self) -> Result<Vec<u8>> {
        let tail = self.framer.partial().to_vec();
        Ok(if self.finish_response()? {
            Vec::new()
        } else {
            tail
        })
    }

    /// A response body closed: a last line without a newline counts only when it is a whole
    /// JSON object; anything else is the front of a line the connection lost, which is
    /// dropped, never handed on (`false`: the body was cut in the middle of a line).
    pub fn finish_response(&mut self) -> Result<bool> {
        let tail = self.framer.partial();
        if !tail.is_empty() && super::jsonscan::check_object(tail).is_err() {
            self.framer.discard_partial();
            return Ok(false);
        }
        self.finish()?;
        Ok(true)
    }

    /// The input ended (a file): a last line without a newline still counts.
    pub fn finish(&mut self) -> Result<()> {
        let (lines, too_long, masker) = (&mut *self.lines, &mut self.too_long, &self.masker);
        self.framer
            .finish(&mut |e: Event<'_>| dispatch(e, lines, too_long, masker.as_ref()))
    }
}

impl Chunks for Framed<'_> {
    fn chunk(&mut self, bytes: &[u8]) -> Result<()> {
        let (lines, too_long, masker) = (&mut *self.lines, &mut self.too_long, &self.masker);
        self.framer.feed(bytes, &mut |e: Event<'_>| {
            dispatch(e, lines, too_long, masker.as_ref())
        })
    }

    fn caught_up(&mut self) -> Result<()> {
        self.lines.chunk_done()
    }

    fn waiting(&mut self, quiet: bool) {
        self.lines.waiting(quiet)
    }
}

fn dispatch(
    e: Event<'_>,
    lines: &mut dyn Lines,
    too_long: &mut u64,
    masker: Option<&crate::term::Masker>,
) -> Result<()> {
    match e {
        Event::Line(l) => match masker.map(|m| m.apply_line(l.raw, l.text)) {
            Some((raw, text)) => lines.line(&raw, &raw[text]),
            None => lines.line(l.raw, l.text),
        },
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
