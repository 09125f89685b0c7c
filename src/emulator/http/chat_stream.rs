//! One chat response: a few lines of its own (`__cutoff__`, a state read) and then, when
//! attached to a turn, the turn's log from where it joined. Connection faults (drop, stall,
//! malformed line) are applied here; each line is its own chunk, so it is flushed as written.

use super::faults::LineFaults;
use super::threads::{Read, Run};
use crate::protocol::emit;
use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::watch;

/// A streaming 200 response: `head` lines, then the run's lines from `start` (if attached).
pub(crate) fn respond(
    head: Vec<Bytes>,
    run: Option<(Arc<Run>, usize)>,
    faults: LineFaults,
    shutdown: watch::Receiver<bool>,
) -> Response {
    let conn = Conn {
        head: head.into(),
        run: run.map(|(run, index)| {
            let bell = run.bell();
            (run, index, bell)
        }),
        written: 0,
        faults,
        malformed_sent: false,
        finished: false,
        shutdown,
    };
    let stream = futures_util::stream::unfold(conn, |mut conn| async move {
        let item = conn.next().await?;
        Some((item, conn))
    });
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

struct Conn {
    head: VecDeque<Bytes>,
    run: Option<(Arc<Run>, usize, watch::Receiver<u64>)>,
    written: u64,
    faults: LineFaults,
    malformed_sent: bool,
    finished: bool,
    shutdown: watch::Receiver<bool>,
}

impl Conn {
    async fn next(&mut self) -> Option<Result<Bytes, std::io::Error>> {
        if self.finished || *self.shutdown.borrow() {
            return None;
        }
        if self.faults.drop_after == Some(self.written) {
            // Let hyper flush the lines already queued (it flushes when the body is pending);
            // otherwise they would be lost with the connection and the client see fewer.
            tokio::task::yield_now().await;
            // An error from the body makes hyper cut the connection without the final chunk,
            // which is what a client sees when a proxy or network drops it.
            self.finished = true;
            return Some(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionAborted,
                "injected fault: drop-after",
            )));
        }
        if self.faults.stall_after == Some(self.written) {
            // Keep the connection open and silent until the client gives up or we shut down.
            while self.shutdown.changed().await.is_ok() && !*self.shutdown.borrow() {}
            return None;
        }
        if self.faults.malformed_after == Some(self.written) && !self.malformed_sent {
            self.malformed_sent = true;
            self.written += 1;
            return Some(Ok(Bytes::from_static(
                b"{\"id\": \"__malformed__\", this is not JSON\n",
            )));
        }
        let line = self.next_line().await?;
        if self.faults.cut_after == Some(self.written) {
            // Half the line goes out on its own; the next poll drops the connection.
            self.faults.drop_after = Some(self.written);
            return Some(Ok(line.slice(..line.len() / 2)));
        }
        self.written += 1;
        Some(Ok(line))
    }

    async fn next_line(&mut self) -> Option<Bytes> {
        if let Some(line) = self.head.pop_front() {
            return Some(line);
        }
        let (run, index, bell) = self.run.as_mut()?;
        loop {
            bell.borrow_and_update();
            match run.read(*index) {
                Read::Line(entry) => {
                    *index += 1;
                    self.finished = entry.ends_stream;
                    return Some(entry.line);
                }
                Read::Done => return None,
                Read::Behind => {
                    self.finished = true;
                    let mut line = emit::error_line(
                        "this connection fell too far behind the stream; read the thread's state",
                    )
                    .to_string();
                    line.push('\n');
                    return Some(Bytes::from(line));
                }
                Read::Wait => {
                    tokio::select! {
                        changed = bell.changed() => if changed.is_err() { return None },
                        _ = self.shutdown.changed() => return None,
                    }
                }
            }
        }
    }
}
