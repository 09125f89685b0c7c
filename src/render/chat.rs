//! Renderers of a chat stream, one per `-o` format. Each is fed the frames to show as they
//! arrive and told how the run ended; none holds the whole stream.

use crate::protocol::Frame;
use anyhow::Result;
use serde_json::Value;
use std::io::{self, Write};

/// How a chat run ended, for the renderers' closing output.
#[derive(Clone, Debug, Default)]
pub struct End<'a> {
    /// The thread id.
    pub chat_id: Option<&'a str>,
    /// The message id sent.
    pub message_id: Option<&'a str>,
    /// The final answer's text, if any.
    pub answer: Option<&'a str>,
    /// The answer came from the thread's state after a drop: the stream never carried it whole.
    pub answer_from_state: bool,
    /// `__usage__`'s `usage`.
    pub usage: Option<&'a Value>,
    /// What went wrong, if anything.
    pub error: Option<&'a str>,
}

/// A renderer of one output format.
pub trait ChatRender {
    /// A line to show (never a repeat); `frame` is `None` when it is not a JSON object.
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> io::Result<()>;
    /// A chunk of the stream has been handled: make it visible.
    fn flush(&mut self) -> io::Result<()>;
    /// The run is over.
    fn finish(&mut self, end: &End<'_>) -> Result<()>;
    /// Whether a line of output is unfinished (a spinner drawn now would overwrite it on a
    /// terminal shared by stdout and stderr).
    fn mid_line(&self) -> bool {
        false
    }
    /// Whether [`ChatRender::line`] reads `frame` (when not, plain frames come as `None`).
    fn wants_frames(&self) -> bool {
        true
    }
}

/// `-o ndjson`: every line byte for byte, flushed per chunk.
pub struct RawRender<W: Write> {
    out: W,
}

impl<W: Write> RawRender<W> {
    /// Write to `out`.
    pub fn new(out: W) -> Self {
        RawRender { out }
    }
}

impl<W: Write> ChatRender for RawRender<W> {
    fn line(&mut self, raw: &[u8], _: Option<&Frame>) -> io::Result<()> {
        self.out.write_all(raw)
    }
    fn wants_frames(&self) -> bool {
        false
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
    fn finish(&mut self, _: &End<'_>) -> Result<()> {
        // Frames the service sent while the client was away are not invented: an answer taken
        // from the thread's state is not written as a frame.
        Ok(self.out.flush()?)
    }
}

/// `-o final`: only the final answer's text, at the end.
pub struct FinalRender<W: Write> {
    out: W,
}

impl<W: Write> FinalRender<W> {
    /// Write to `out`.
    pub fn new(out: W) -> Self {
        FinalRender { out }
    }
}

impl<W: Write> ChatRender for FinalRender<W> {
    fn line(&mut self, _: &[u8], _: Option<&Frame>) -> io::Result<()> {
        Ok(())
    }
    fn wants_frames(&self) -> bool {
        false
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn finish(&mut self, end: &End<'_>) -> Result<()> {
        if let Some(text) = end.answer {
            self.out.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                self.out.write_all(b"\n")?;
            }
        }
        Ok(self.out.flush()?)
    }
}
