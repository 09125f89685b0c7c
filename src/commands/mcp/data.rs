//! `run_sql`'s one call to the data query API (PROTOCOL.md, "Data query API"): a plain
//! `POST {data_url}/v1/cubesql` whose NDJSON answer is `{schema}`, then `{data}` chunks, and
//! maybe an `{error}` line. Rows are kept up to a cap, and the query is cancelled past it.

use crate::client::data::{request_id, DataClient};
use crate::client::Http;
use crate::exit::{fail, Status};
use crate::protocol::data::QueryRequest;
use crate::settings::DataSettings;
use crate::stream::lines::{Framed, Lines};
use anyhow::Result;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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

/// The rows so far, from the answer's lines.
#[derive(Default)]
struct Rows {
    schema: Option<Value>,
    rows: Vec<Value>,
    limit: usize,
    /// More rows came than `limit`: reading stops (set here, read past the framer).
    truncated: Arc<AtomicBool>,
    error: Option<String>,
}

impl Lines for Rows {
    fn line(&mut self, _raw: &[u8], text: &[u8]) -> Result<()> {
        let Ok(Value::Object(mut line)) = serde_json::from_slice::<Value>(text) else {
            return Ok(());
        };
        if let Some(schema) = line.remove("schema") {
            self.schema = Some(schema);
        }
        if let Some(Value::Array(chunk)) = line.remove("data") {
            for row in chunk {
                if self.rows.len() >= self.limit {
                    self.truncated.store(true, Ordering::Relaxed);
                    break;
                }
                self.rows.push(row);
            }
        }
        if let Some(e) = line.remove("error") {
            self.error = Some(match e {
                Value::String(s) => s,
                other => other.to_string(),
            });
        }
        Ok(())
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
        let mut framed = Framed::new(&mut rows);
        loop {
            let next = tokio::time::timeout(api.idle, response.chunk()).await;
            match next {
                Err(_) => {
                    return Err(fail(
                        Status::Network,
                        format!("{what}: no data for {:?}", api.idle),
                    ))
                }
                Ok(Err(e)) => {
                    return Err(fail(
                        Status::Network,
                        format!(
                            "{what}: connection lost: {}",
                            crate::client::body::innermost(&e)
                        ),
                    ))
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(bytes))) => {
                    use crate::stream::lines::Chunks;
                    framed.chunk(&bytes)?;
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
