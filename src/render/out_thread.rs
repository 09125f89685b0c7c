//! Output written by a thread of its own: the bytes a command produces are gathered here and
//! handed, a buffer at a time, to a thread that writes them, so that the writes' cost (the
//! kernel's copy into a file or a pipe) overlaps the work that makes the next bytes.
//!
//! `analyst sql` makes rows from the socket's bytes on one thread; a write of its output to a
//! file costs about as much CPU as making it (ndjson writes twice the bytes it reads), so on
//! one thread the wall time was the sum of the two.
//!
//! A write error on the thread (stdout closed: `| head`) is kept and returned by the next
//! `write`, `flush` or [`OutThread::close`]; what is handed over after it is dropped.
//! Dropping an `OutThread` writes what it holds and waits for the thread.

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Bytes gathered before they are handed over without being asked to.
const HANDOVER: usize = 1 << 20;
/// Buffers in flight at most: bounds memory at about this many times [`HANDOVER`].
const IN_FLIGHT: usize = 4;

/// A [`Write`] whose bytes another thread writes to the inner writer.
pub struct OutThread {
    pending: Vec<u8>,
    to_writer: Option<SyncSender<Vec<u8>>>,
    /// Emptied buffers coming back, to be filled again (no allocation per handover).
    spare: Receiver<Vec<u8>>,
    failed: Arc<Mutex<Option<io::Error>>>,
    thread: Option<JoinHandle<()>>,
}

impl OutThread {
    /// Start the thread writing to `out`.
    pub fn new<W: Write + Send + 'static>(mut out: W) -> OutThread {
        let (to_writer, from_main) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, spare) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let failed = Arc::new(Mutex::new(None));
        let seen = failed.clone();
        let thread = std::thread::spawn(move || {
            let mut broken = false;
            for mut buf in from_main {
                if !broken {
                    let written = if buf.is_empty() {
                        out.flush()
                    } else {
                        out.write_all(&buf).and_then(|()| out.flush())
                    };
                    if let Err(e) = written {
                        broken = true;
                        *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    }
                }
                buf.clear();
                let _ = give_back.try_send(buf);
            }
        });
        OutThread {
            pending: Vec::with_capacity(HANDOVER + HANDOVER / 4),
            to_writer: Some(to_writer),
            spare,
            failed,
            thread: Some(thread),
        }
    }

    /// The error the thread met, if any (returned once; the thread writes nothing after it).
    fn check(&self) -> io::Result<()> {
        match self.failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Hand what is gathered to the thread.
    fn hand_over(&mut self) -> io::Result<()> {
        self.check()?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let fresh = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(HANDOVER + HANDOVER / 4));
        let full = std::mem::replace(&mut self.pending, fresh);
        if let Some(tx) = &self.to_writer
            && tx.send(full).is_err()
        {
            return Err(io::Error::other("the output thread ended"));
        }
        Ok(())
    }

    /// Write everything handed over and wait for the thread: the first write error, if any.
    pub fn close(&mut self) -> io::Result<()> {
        let handed = self.hand_over();
        self.to_writer = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        handed?;
        self.check()
    }
}

impl Write for OutThread {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= HANDOVER {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Hands the bytes over without waiting for them to be written (the thread writes them in
    /// order, and flushes the inner writer after each buffer); [`OutThread::close`] waits.
    fn flush(&mut self) -> io::Result<()> {
        self.hand_over()
    }
}

/// Rows are made straight into the buffers this thread writes: a full one is taken as it is.
impl super::rows::RowOut for OutThread {
    fn handover_at(&self) -> usize {
        HANDOVER
    }

    fn take(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        // What was written before goes first.
        self.hand_over()?;
        std::mem::swap(&mut self.pending, buf);
        self.hand_over()
    }
}

impl Drop for OutThread {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that keeps what it is given, failing after `limit` bytes.
    #[derive(Clone)]
    struct Sink {
        got: Arc<Mutex<Vec<u8>>>,
        limit: usize,
    }

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut got = self.got.lock().unwrap();
            if got.len() + buf.len() > self.limit {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            got.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn bytes_arrive_in_order_and_whole() {
        let sink = Sink {
            got: Arc::default(),
            limit: usize::MAX,
        };
        let mut expect = Vec::new();
        {
            let mut out = OutThread::new(sink.clone());
            for i in 0..200_000u32 {
                let line = format!("{i},{}\n", i * 7);
                out.write_all(line.as_bytes()).unwrap();
                expect.extend_from_slice(line.as_bytes());
                if i % 1000 == 0 {
                    out.flush().unwrap();
                }
            }
            out.close().unwrap();
        }
        assert_eq!(*sink.got.lock().unwrap(), expect);
        // Dropping without close writes everything too.
        let sink = Sink {
            got: Arc::default(),
            limit: usize::MAX,
        };
        drop({
            let mut out = OutThread::new(sink.clone());
            out.write_all(b"tail").unwrap();
            out
        });
        assert_eq!(*sink.got.lock().unwrap(), b"tail");
    }

    #[test]
    fn a_write_error_comes_back_to_the_caller() {
        let sink = Sink {
            got: Arc::default(),
            limit: 10,
        };
        let mut out = OutThread::new(sink);
        let mut result = Ok(());
        for _ in 0..10 {
            result = out.write_all(&[b'x'; HANDOVER]).and_then(|()| out.flush());
            if result.is_err() {
                break;
            }
        }
        let err = result.err().or_else(|| out.close().err()).unwrap();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
