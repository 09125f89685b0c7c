//! `run_sql`'s one call to the data query API (PROTOCOL.md, "Data query API"): a plain
//! `POST {data_url}/v1/cubesql` whose NDJSON answer is `{schema}`, then `{data}` chunks, and
//! maybe an `{error}` line. Rows are kept up to a cap, and the query is cancelled past it.

use super::super::chat_request::Service;
use crate::client::http::{error_for_status, read_bounded};
use crate::client::stream::{Framed, Lines};
use crate::client::Http;
use crate::exit::{fail, usage, Status};
use crate::settings::Secret;
use anyhow::Result;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use url::Url;

/// Where the data API is and its token.
pub struct DataSettings {
    root: Url,
    token: Secret,
    http: Http,
    idle: Duration,
}

impl DataSettings {
    /// `ANALYST_DATA_URL` / config `data_url` (a bare origin gets `/cubejs-api`), and
    /// `ANALYST_DATA_TOKEN` / config `data_token`.
    pub fn resolve(svc: &Service) -> Result<DataSettings> {
        let r = &svc.resolver;
        let (url, origin) = r
            .env
            .get("ANALYST_DATA_URL")
            .map(|u| (u, "ANALYST_DATA_URL"))
            .or_else(|| r.profile.data_url.clone().map(|u| (u, "data_url")))
            .ok_or_else(|| {
                usage("no data URL: set ANALYST_DATA_URL, or data_url in a config profile")
            })?;
        let mut root = Url::parse(url.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| usage(format!("{origin} {url:?}: not an http(s) URL")))?;
        if root.path().trim_end_matches('/').is_empty() {
            root.set_path("/cubejs-api");
        }
        let token = match r.env.get("ANALYST_DATA_TOKEN") {
            Some(t) => Secret::new(t, "ANALYST_DATA_TOKEN")?,
            None => Secret::new(
                r.profile.data_token.clone().ok_or_else(|| {
                    usage("no data API token: set ANALYST_DATA_TOKEN, or data_token in a config profile")
                })?,
                "data_token",
            )?,
        };
        Ok(DataSettings {
            root,
            token,
            http: svc.client.http.clone(),
            idle: svc.idle(),
        })
    }

    fn url(&self, tail: &str) -> Url {
        let mut url = self.root.clone();
        let path = format!("{}/{tail}", url.path().trim_end_matches('/'));
        url.set_path(&path);
        url
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
pub async fn run_data_query(settings: &DataSettings, sql: &str, limit: usize) -> Result<Value> {
    let url = settings.url("v1/cubesql");
    let request_id = request_id();
    let what = "run_sql";
    let mut response = settings
        .http
        .client
        .post(url.clone())
        .header("Authorization", settings.token.expose())
        .header("Content-Type", "application/json")
        .header("x-request-id", &request_id)
        .body(serde_json::to_vec(&json!({ "query": sql }))?)
        .send()
        .await
        .map_err(|e| crate::client::chat::network(what, &url, &e))?;
    let status = response.status();
    if !status.is_success() {
        let body = read_bounded(&mut response, 64 * 1024)
            .await
            .map(|b| b.body)
            .unwrap_or_default();
        return Err(error_for_status(what, status, &body));
    }
    let truncated = Arc::new(AtomicBool::new(false));
    let mut rows = Rows {
        limit,
        truncated: truncated.clone(),
        ..Rows::default()
    };
    {
        let mut framed = Framed::new(&mut rows);
        loop {
            let next = tokio::time::timeout(settings.idle, response.chunk()).await;
            match next {
                Err(_) => {
                    return Err(fail(
                        Status::Network,
                        format!("{what}: no data for {:?}", settings.idle),
                    ))
                }
                Ok(Err(e)) => return Err(crate::client::chat::network(what, &url, &e)),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(bytes))) => {
                    use crate::client::stream::Chunks;
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
        cancel(settings, &request_id).await;
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

/// Stop the query on the service (`DELETE .../v1/running-query/ID`); best effort, since the
/// rows wanted are already here.
async fn cancel(settings: &DataSettings, request_id: &str) {
    let url = settings.url(&format!("v1/running-query/{request_id}"));
    let sent = settings
        .http
        .client
        .delete(url)
        .header("Authorization", settings.token.expose())
        .send()
        .await;
    if let Err(e) = sent {
        crate::render::warn(format!(
            "run_sql: could not cancel the query past the row limit: {e}"
        ));
    }
}

/// A random UUID (v4) for `x-request-id`, which names the query for a cancel.
fn request_id() -> String {
    let mut b = [0u8; 16];
    // Without randomness the id is still unique enough for one process's queries.
    if getrandom::getrandom(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        b = t.to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}
