//! `run_sql`'s one call to the data query API (PROTOCOL.md, "Data query API"): a plain
//! `POST {data_url}/v1/cubesql` whose NDJSON answer is `{schema}`, then `{data}` chunks, and
//! maybe an `{error}` line. Rows are kept up to a cap, and the query is cancelled past it.

use crate::client::Http;
use crate::client::data::{DataClient, request_id};
use crate::exit::{Status, fail};
use crate::protocol::data::{Cell, QueryRequest, RowSink, read_line};
use crate::protocol::tool::Column;
use crate::settings::DataSettings;
use crate::stream::lines::{Framed, Lines};
use anyhow::Result;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The data API client `run_sql` uses (the one `analyst sql` uses), and the idle bound.
pub struct DataApi {
    client: DataClient,
    idle: Duration,
}

impl DataApi {
    /// A client for these settings over the shared HTTP client.
    pub fn new(http: Http, settings: &DataSettings, idle: Duration) -> Result<DataApi> {
        Ok(DataApi {
            client: DataClient::new(http, settings)?,
            idle,
        })
    }
}

/// The rows so far, from the answer's lines (read by the one reader of the data API's lines,
/// as `analyst sql` reads them: values as sent, rows sent as objects are put in
/// schema order).
#[derive(Default)]
struct Rows {
    schema: Option<Value>,
    names: Vec<String>,
    rows: Vec<Value>,
    limit: usize,
    /// More rows came than `limit`: reading stops (set here, read past the framer).
    truncated: Arc<AtomicBool>,
    error: Option<String>,
    /// Lines read so far.
    line: u64,
}

impl RowSink for Rows {
    fn schema(&mut self, columns: Vec<Column>) {
        self.names = columns
            .iter()
            .map(|c| c.name.0.clone().unwrap_or_default())
            .collect();
        self.schema = Some(serde_json::to_value(&columns).unwrap_or_default());
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    fn width(&self) -> usize {
        self.names.len()
    }

    fn row(&mut self, cells: &[Cell<'_>]) -> bool {
        if self.rows.len() >= self.limit {
            self.truncated.store(true, Ordering::Relaxed);
            return false;
        }
        self.rows.push(Value::Array(
            cells
                .iter()
                .map(|c| match c {
                    Cell::Null => Value::Null,
                    Cell::Text(t) => Value::String(t.to_string()),
                    // Valid JSON already (the reader checked it).
                    Cell::Json(t) => {
                        serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string()))
                    }
                })
                .collect(),
        ));
        true
    }
}

impl Lines for Rows {
    fn line(&mut self, _raw: &[u8], text: &[u8]) -> Result<()> {
        self.line += 1;
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        match read_line(text, self) {
            Ok(info) => {
                if let Some(e) = info.error {
                    self.error = Some(e);
                }
                Ok(())
            }
            Err(e) => Err(fail(
                Status::Failure,
                format!(
                    "run_sql: line {} of the data API's answer is not what it sends ({e})",
                    self.line
                ),
            )),
        }
    }
}

/// Run `sql` and keep at most `limit` rows: `{schema, rows, rowCount, truncated}`. An error
/// line after rows began fails the whole call (a partial result is not an answer).
pub async fn run_data_query(api: &DataApi, sql: &str, limit: usize) -> Result<Value> {
    let what = "run_sql";
    let id = request_id();
    let query = QueryRequest {
        query: sql.to_owned(),
        timezone: None,
        cache: None,
    };
    let mut response = api.client.open(&query, &id).await?;
    let truncated = Arc::new(AtomicBool::new(false));
    let mut rows = Rows {
        limit,
        truncated: truncated.clone(),
        ..Rows::default()
    };
    {
        let mut framed = Framed::masking(&mut rows);
        loop {
            let next = tokio::time::timeout(api.idle, response.chunk()).await;
            match next {
                Err(_) => {
                    return Err(fail(
                        Status::Network,
                        format!("{what}: no data for {:?}", api.idle),
                    ));
                }
                Ok(Err(e)) => {
                    return Err(fail(
                        Status::Network,
                        format!(
                            "{what}: connection lost: {}",
                            crate::client::body::innermost(&e)
                        ),
                    ));
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(bytes))) => {
                    use crate::stream::lines::Chunks;
                    framed.chunk(&bytes)?;
                    framed.caught_up()?;
                }
            }
            if truncated.load(Ordering::Relaxed) {
                break;
            }
        }
        if !truncated.load(Ordering::Relaxed) {
            framed.finish()?;
        }
    }
    let truncated = truncated.load(Ordering::Relaxed);
    if truncated {
        drop(response);
        // Best effort: the rows wanted are already here.
        if let Err(e) = api.client.cancel(&id).await {
            crate::term::warn(format!(
                "run_sql: could not cancel the query past the row limit: {e:#}"
            ));
        }
    }
    if let Some(e) = rows.error {
        return Err(fail(
            Status::Failure,
            format!(
                "{what}: the data API reported: {e} (after {} rows; the result is incomplete)",
                rows.rows.len()
            ),
        ));
    }
    let count = rows.rows.len();
    Ok(json!({
        "schema": rows.schema.unwrap_or(Value::Array(Vec::new())),
        "rows": rows.rows,
        "rowCount": count,
        "truncated": truncated,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(limit: usize, lines: &[&str]) -> (Rows, Result<()>) {
        let mut rows = Rows {
            limit,
            ..Rows::default()
        };
        let mut result = Ok(());
        for l in lines {
            result = rows.line(l.as_bytes(), l.as_bytes());
            if result.is_err() {
                break;
            }
        }
        (rows, result)
    }

    #[test]
    fn rows_are_read_as_analyst_sql_reads_them() {
        let (r, ok) = rows(
            10,
            &[
                r#"{"schema":[{"name":"a","column_type":"String"},{"name":"b","column_type":"Int64"}]}"#,
                "",
                r#"{"data":[["x,y",null],{"b":"2","a":"o"}]}"#,
                r#"{"error":"boom","requestId":"r1"}"#,
            ],
        );
        ok.unwrap();
        assert_eq!(
            r.schema,
            Some(json!([{"name":"a","column_type":"String"},{"name":"b","column_type":"Int64"}]))
        );
        assert_eq!(r.rows, [json!(["x,y", null]), json!(["o", "2"])]);
        assert_eq!(r.error.as_deref(), Some("boom"));
        assert!(!r.truncated.load(Ordering::Relaxed));
    }

    #[test]
    fn rows_past_the_limit_stop_the_read() {
        let (r, ok) = rows(2, &[r#"{"data":[["1"],["2"],["3"]]}"#]);
        ok.unwrap();
        assert_eq!(r.rows.len(), 2);
        assert!(r.truncated.load(Ordering::Relaxed));
    }

    #[test]
    fn a_line_that_is_not_json_fails_the_call() {
        let (r, err) = rows(10, &[r#"{"data":[["1"]]}"#, r#"{"data":[["2"]"#]);
        let err = err.unwrap_err().to_string();
        assert!(err.contains("line 2 of the data API's answer"), "{err}");
        // The rows before the fault were read; the call fails all the same.
        assert_eq!(r.rows, [json!(["1"]), json!(["2"])]);
    }
}
