//! Running one query: send it, write its rows as they arrive, stop at `--limit`, and cancel it
//! on the service (`DELETE .../running-query/{requestId}`) when the rows are no longer wanted:
//! the limit was reached, Ctrl-C was pressed, or stdout was closed.

use crate::client::body::{Ended, read_body};
use crate::client::data::{DataClient, request_id};
use crate::exit::{Status, fail};
use crate::protocol::data::{Cell, Direct, QueryRequest, RowSink, read_line};
use crate::protocol::tool::Column;
use crate::render::rows::{RowOut, RowWriter};
use crate::stream::lines::{Framed, Lines};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};

/// How to run.
pub struct Run<'a> {
    /// The data API.
    pub client: &'a DataClient,
    /// The longest wait for the next byte.
    pub idle: Duration,
    /// `--limit`.
    pub limit: Option<u64>,
    /// Show rows and rows/s on stderr.
    pub progress: bool,
    /// Say on stderr when the limit stopped the query.
    pub chatty: bool,
}

/// The rows stopped coming because enough were written: not an error.
#[derive(Debug)]
struct Enough;

impl std::fmt::Display for Enough {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the --limit was reached")
    }
}

impl std::error::Error for Enough {}

/// The answer's lines into the writer.
struct Answer<'w, W: RowOut> {
    writer: &'w mut RowWriter<W>,
    limit: Option<u64>,
    names: Vec<String>,
    line: u64,
    schema: bool,
    /// The service's error line: message and requestId.
    error: Option<(String, Option<String>)>,
    /// A write that failed while rows were handed over.
    failed: Option<anyhow::Error>,
    limited: bool,
    /// The cancel sent at `--limit` while the response was still open.
    cancelled: Option<Result<()>>,
    progress: Progress,
    /// The answer's Content-Type, to name an answer of another kind.
    content_type: Option<String>,
}

impl<W: RowOut> RowSink for Answer<'_, W> {
    fn schema(&mut self, columns: Vec<Column>) {
        self.schema = true;
        self.names = columns
            .iter()
            .map(|c| c.name.0.clone().unwrap_or_default())
            .collect();
        if let Err(e) = self.writer.start(columns) {
            self.failed.get_or_insert(e);
        }
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    fn width(&self) -> usize {
        self.names.len()
    }

    fn row(&mut self, cells: &[Cell<'_>]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        if !self.schema {
            // Rows before any schema: columns by position, named by number.
            self.schema(
                (1..=cells.len())
                    .map(|i| Column {
                        name: Some(format!("column{i}")).into(),
                        column_type: None.into(),
                    })
                    .collect(),
            );
        }
        if let Err(e) = self.writer.row(cells) {
            self.failed = Some(e);
            return false;
        }
        self.enough()
    }

    fn direct(&mut self) -> Option<Direct<'_>> {
        // Rows before any schema go through `row`, which makes one up.
        if self.failed.is_some() || !self.schema {
            return None;
        }
        self.writer.direct()
    }

    fn direct_row(&mut self) -> bool {
        if let Err(e) = self.writer.direct_row() {
            self.failed = Some(e);
            return false;
        }
        self.enough()
    }
}

impl<W: RowOut> Answer<'_, W> {
    /// `--limit` reached: stop.
    fn enough(&mut self) -> bool {
        if self.limit == Some(self.writer.rows()) {
            self.limited = true;
            return false;
        }
        true
    }
}

impl<W: RowOut> Lines for Answer<'_, W> {
    fn line(&mut self, _raw: &[u8], text: &[u8]) -> Result<()> {
        self.line += 1;
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let info = read_line(text, self);
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if self.limited {
            return Err(anyhow::Error::new(Enough));
        }
        match info {
            Ok(info) => {
                if let Some(message) = info.error {
                    self.error = Some((message, info.request_id));
                }
                Ok(())
            }
            // The first line already wrong: an answer of another kind (a sign-in page).
            Err(_) if self.line == 1 && !self.schema => {
                Err(not_ndjson(self.content_type.as_deref()))
            }
            Err(e) => Err(fail(
                Status::Failure,
                format!(
                    "line {} of the data API's answer is not what it sends ({e}); the result is incomplete: {} {} written",
                    self.line,
                    self.writer.rows(),
                    rows_word(self.writer.rows())
                ),
            )),
        }
    }

    fn chunk_done(&mut self) -> Result<()> {
        self.writer.flush()?;
        self.progress.tick(self.writer.rows());
        Ok(())
    }
}

/// Run `query`, writing its rows to `writer`. The status is what the run ends with; errors are
/// failures before or while streaming (HTTP status, output).
pub async fn run_query<W: RowOut>(
    run: &Run<'_>,
    query: &QueryRequest,
    writer: &mut RowWriter<W>,
) -> Result<Status> {
    let id = request_id();
    let mut answer = Answer {
        writer,
        limit: run.limit,
        names: Vec::new(),
        line: 0,
        schema: false,
        error: None,
        failed: None,
        limited: false,
        cancelled: None,
        progress: Progress::new(run.progress),
        content_type: None,
    };
    let streamed = tokio::select! {
        r = stream(run, query, &id, &mut answer) => Some(r),
        _ = tokio::signal::ctrl_c() => None,
    };
    answer.progress.clear();
    let sent = match streamed {
        None => return Ok(interrupted(run, &id, &mut answer).await),
        Some(r) => r,
    };
    let ended = match sent {
        Ok(ended) => ended,
        Err(e) if e.is::<Enough>() => return limit_reached(run, &id, &mut answer).await,
        Err(e) => {
            // The rows are not wanted any more (stdout closed, a bad line): stop the query.
            let began = answer.schema;
            let _ = answer.writer.end();
            if began {
                let _ = run.client.cancel(&id).await;
            }
            return Err(e);
        }
    };
    answer.writer.end()?;
    outcome(&mut answer, ended)
}

/// Ctrl-C while the rows came: end the output where it is and cancel the query (a second
/// Ctrl-C stops waiting for the cancel).
async fn interrupted<W: RowOut>(run: &Run<'_>, id: &str, answer: &mut Answer<'_, W>) -> Status {
    let rows = answer.writer.rows();
    let _ = answer.writer.end();
    crate::term::diag(format_args!(
        "analyst: interrupted after {rows} {}; cancelling the query (Ctrl-C again to quit at once)",
        rows_word(rows)
    ));
    tokio::select! {
        r = run.client.cancel(id) => match r {
            Ok(()) => crate::term::diag(format_args!("cancelled query {id}")),
            Err(e) => crate::term::diag(format_args!("analyst: could not cancel query {id}: {e:#}")),
        },
        _ = tokio::signal::ctrl_c() => {}
    }
    Status::Interrupted
}

/// `--limit` rows were written: a success; the query is cancelled (if the stream has not
/// already done so while the response was open).
async fn limit_reached<W: RowOut>(
    run: &Run<'_>,
    id: &str,
    answer: &mut Answer<'_, W>,
) -> Result<Status> {
    let rows = answer.writer.rows();
    answer.writer.end()?;
    if run.chatty {
        crate::term::diag(format_args!(
            "analyst: stopped after {rows} {} (--limit); cancelling the query",
            rows_word(rows)
        ));
    }
    let cancelled = match answer.cancelled.take() {
        Some(r) => r,
        None => run.client.cancel(id).await,
    };
    if let Err(e) = cancelled {
        crate::term::warn(format!("could not cancel query {id}: {e:#}"));
    }
    Ok(Status::Success)
}

/// What a stream that ended (cleanly or not) amounts to: an error the service reported, a
/// lost connection and an empty answer are failures that say how many rows were written.
fn outcome<W: RowOut>(answer: &mut Answer<'_, W>, ended: Ended) -> Result<Status> {
    let rows = answer.writer.rows();
    if let Some((message, rid)) = answer.error.take() {
        let rid = rid.map(|r| format!(" (requestId {r})")).unwrap_or_default();
        let tail = if answer.schema {
            format!(
                "; the result is incomplete: {rows} {} written",
                rows_word(rows)
            )
        } else {
            String::new()
        };
        return Err(fail(
            Status::Failure,
            format!("sql: the service reported: {message}{rid}{tail}"),
        ));
    }
    if let Ended::Lost(why) = ended {
        return Err(fail(
            Status::Network,
            format!(
                "sql: connection lost ({why}); the result is incomplete: {rows} {} written",
                rows_word(rows)
            ),
        ));
    }
    if !answer.schema {
        return Err(fail(
            Status::Failure,
            "sql: the data API's answer had no schema and no rows (an empty body)",
        ));
    }
    Ok(Status::Success)
}

async fn stream<W: RowOut>(
    run: &Run<'_>,
    query: &QueryRequest,
    id: &str,
    answer: &mut Answer<'_, W>,
) -> Result<Ended> {
    let mut response = run.client.open(query, id).await?;
    answer.content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut framed = Framed::masking(answer);
    let ended = match read_body(&mut response, run.idle, &mut framed).await {
        Err(e) if e.is::<Enough>() => {
            // Cancel while the response is still open: the service sees its query stopped by
            // the client, not a dropped connection, and still knows the request id.
            let cancelled = run.client.cancel(id).await;
            drop(framed);
            answer.cancelled = Some(cancelled);
            return Err(e);
        }
        r => r?,
    };
    if ended == Ended::Closed && !framed.finish_response()? {
        drop(framed);
        if answer.line == 0 {
            // The body ended as the server meant it to, and all of it is one unterminated
            // line that is not JSON: not a line cut short, but an answer of another kind
            // (exit 1, as the same body with a newline is).
            return Err(not_ndjson(answer.content_type.as_deref()));
        }
        return Ok(Ended::Lost(
            "the connection closed in the middle of a line".into(),
        ));
    }
    Ok(ended)
}

/// An answer whose first line is not the data API's: its Content-Type named, exit 1.
fn not_ndjson(content_type: Option<&str>) -> anyhow::Error {
    fail(
        Status::Failure,
        format!(
            "sql: the service answered {}, not the data API's NDJSON; 0 rows written",
            content_type.unwrap_or("a body without a Content-Type")
        ),
    )
}

fn rows_word(n: u64) -> &'static str {
    if n == 1 { "row" } else { "rows" }
}

/// Rows received and rows per second on stderr (a terminal, not `-q`).
struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed:.dim}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_message("waiting for rows");
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
        }
    }

    fn tick(&mut self, rows: u64) {
        if let Some(bar) = &self.bar {
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!(
                "{rows} {} ({:.0} rows/s)",
                rows_word(rows),
                rows as f64 / secs
            ));
        }
    }

    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
