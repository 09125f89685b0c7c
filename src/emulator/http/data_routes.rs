//! The data query API: `POST /cubejs-api/v1/cubesql` (dialect SQL through the semantic layer,
//! under the row-level security of the token's security context, answered as chunked NDJSON)
//! and `DELETE /cubejs-api/v1/running-query/{id}` (interrupt a running query).

use super::auth::verified_claims;
use super::responses::error;
use super::shared::{RunningQuery, Shared, read_body};
use crate::emulator::engine::warehouse::Cell;
use crate::emulator::engine::{Engine, SecurityContext};
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::mpsc;

/// Largest request body.
const MAX_BODY: usize = 1 << 20;
/// Rows per `{"data": ...}` line.
const CHUNK_ROWS: usize = 1_000;
/// Rows answered when the query has no `LIMIT` (PROTOCOL.md: "Without `LIMIT` the service caps
/// rows (default 10,000; at most 50,000 unless streaming)"). A `LIMIT` is honoured whole: this
/// answer streams, in chunks through a bounded channel, so no ceiling keeps memory flat, and a
/// silent one would cut a result a client asked for in full.
const DEFAULT_ROWS: usize = 10_000;
/// Longest a data query may run (a slow reader counts: rows wait for it).
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// What the query thread hands the response.
enum Event {
    Rows(Vec<Vec<Cell>>),
    Failed(String),
}

/// `POST /cubejs-api/v1/cubesql`.
pub(crate) async fn cubesql(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (ctx, owner) = match caller_context(&shared, &headers) {
        Ok(caller) => caller,
        Err((status, message)) => return error(status, message),
    };
    let query = match query_text(body).await {
        Ok(q) => q,
        Err((status, message)) => return error(status, message),
    };
    let compiled = match shared.engine.compile(&query, &ctx) {
        Ok(c) => c,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.0),
    };
    let cap = match compiled.limit {
        Some(l) => usize::try_from(l).unwrap_or(usize::MAX),
        None => DEFAULT_ROWS,
    };
    let request_id = request_id(&headers);
    let schema: Vec<Value> = compiled
        .columns
        .iter()
        .map(|c| json!({"name": c.name, "column_type": c.sql_type}))
        .collect();
    let registered = Registered::new(&shared, &request_id, owner);
    let mut rx = run_in_warehouse(
        shared.engine.clone(),
        compiled.sql,
        cap,
        registered.query.clone(),
    );
    // An error before any row is an HTTP error; after, the stream's last line.
    let first = rx.recv().await;
    if let Some(Event::Failed(message)) = &first {
        return error(StatusCode::INTERNAL_SERVER_ERROR, message.clone());
    }
    let head = line(&json!({"schema": schema}));
    let first = first.map(|e| render(e, &request_id));
    stream_response(head, first, rx, request_id, registered, shared.pace)
}

/// Why a request was refused: the status and message of its error response.
type Refusal = (StatusCode, String);

/// The security context of the bearer token's verified claims and who it is ([`owner_of`]),
/// or the 403 that refuses it.
fn caller_context(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<(SecurityContext, String), Refusal> {
    let Some(token) = headers.get(header::AUTHORIZATION) else {
        return Err((
            StatusCode::FORBIDDEN,
            "Authorization header isn't set".into(),
        ));
    };
    let token = token.to_str().unwrap_or("").trim();
    let token = token.strip_prefix("Bearer ").unwrap_or(token);
    let Ok(claims) = verified_claims(token, &shared.data_secret, &shared.clock) else {
        return Err((StatusCode::FORBIDDEN, "Invalid token".into()));
    };
    Ok((security_context(&claims), owner_of(&claims)))
}

/// Who a token speaks for: its `sub`, else its whole claims (two tokens without `sub` are the
/// same caller only when they claim the same).
fn owner_of(claims: &Value) -> String {
    match claims.get("sub").and_then(Value::as_str) {
        Some(sub) => format!("sub:{sub}"),
        None => format!("claims:{claims}"),
    }
}

/// PROTOCOL.md's optional fields, checked as the service would: `cache` one of its four
/// policies, `timezone` an IANA name (`UTC`, `Etc/GMT+2`, `Europe/Paris`, `America/Argentina/
/// Salta`). The emulator's data has no time of day, so the zone changes no row here.
fn options_are_valid(body: &Value) -> Result<(), String> {
    const CACHE: [&str; 4] = [
        "stale-if-slow",
        "stale-while-revalidate",
        "must-revalidate",
        "no-cache",
    ];
    match body.get("cache") {
        None | Some(Value::Null) => {}
        Some(Value::String(c)) if CACHE.contains(&c.as_str()) => {}
        Some(other) => {
            return Err(format!(
                "`cache` must be one of {}, not {other}",
                CACHE.join(", ")
            ));
        }
    }
    match body.get("timezone") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(tz)) if crate::protocol::chat::is_iana_name(tz) => Ok(()),
        Some(other) => Err(format!(
            "`timezone` must be an IANA time zone name such as Europe/Paris or UTC, not {other}"
        )),
    }
}

/// The body's `query` string, or the 400 (or 413) that says what is wrong with the body.
async fn query_text(body: Body) -> Result<String, Refusal> {
    let bytes = match read_body(body, MAX_BODY).await {
        Ok(b) => b,
        Err(status) => return Err((status, "the request body is too large or broke off".into())),
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) => {
            options_are_valid(&v).map_err(|why| (StatusCode::BAD_REQUEST, why))?;
            match v.get("query").and_then(Value::as_str) {
                Some(q) => Ok(q.to_string()),
                None => Err((
                    StatusCode::BAD_REQUEST,
                    "the body needs a `query` string".into(),
                )),
            }
        }
        Err(e) => Err((
            StatusCode::BAD_REQUEST,
            format!("the body is not JSON: {e}"),
        )),
    }
}

/// The caller's `x-request-id`, or a fresh one when it sent none.
fn request_id(headers: &HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| format!("emu-{}", super::ids::random_hex(8)))
}

/// Runs the compiled SQL on a blocking thread, sending chunks of rows (and at most one failure,
/// also when cancelled) to the returned receiver.
fn run_in_warehouse(
    engine: Arc<Engine>,
    sql: String,
    cap: usize,
    query: Arc<RunningQuery>,
) -> mpsc::Receiver<Event> {
    let (tx, rx) = mpsc::channel::<Event>(4);
    tokio::task::spawn_blocking(move || {
        let rows_tx = tx.clone();
        let result = engine.warehouse().stream(
            &sql,
            cap,
            CHUNK_ROWS,
            TIME_LIMIT,
            |handle| Interruptible::new(&query, handle),
            |rows| {
                !query.cancelled.load(Ordering::SeqCst)
                    && rows_tx.blocking_send(Event::Rows(rows)).is_ok()
            },
        );
        let result = match result {
            Ok(()) if query.cancelled.load(Ordering::SeqCst) => {
                Err(anyhow::anyhow!("query cancelled"))
            }
            r => r,
        };
        if let Err(e) = result {
            let _ = tx.blocking_send(Event::Failed(format!("{e:#}")));
        }
    });
    rx
}

/// The 200 NDJSON response: the schema line, the first chunk, then the rest as they come.
fn stream_response(
    head: Bytes,
    first: Option<Bytes>,
    rx: mpsc::Receiver<Event>,
    request_id: String,
    registered: Registered,
    pace: Duration,
) -> Response {
    // The query stays cancellable (DELETE answers 204) until its response ends. Chunks after
    // the first are paced (`--pace`) as a warehouse's rows arrive over time, which also leaves
    // a client's cancel something to stop.
    let rest = futures_util::stream::unfold(
        (rx, request_id, registered),
        move |(mut rx, id, registered)| async move {
            if !pace.is_zero() {
                tokio::time::sleep(pace).await;
            }
            let event = rx.recv().await?;
            let bytes = render(event, &id);
            Some((Ok::<Bytes, std::io::Error>(bytes), (rx, id, registered)))
        },
    );
    use futures_util::StreamExt;
    let lines = futures_util::stream::iter(
        std::iter::once(head)
            .chain(first)
            .map(Ok::<Bytes, std::io::Error>),
    )
    .chain(rest);
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(lines),
    )
        .into_response()
}

/// `DELETE /cubejs-api/v1/running-query/{id}`: 204 when a query of the caller's with that
/// request id was running (it is interrupted), else 404: another user's query is not theirs to
/// stop, nor to learn of.
pub(crate) async fn cancel(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let Some(token) = headers.get(header::AUTHORIZATION) else {
        return error(StatusCode::FORBIDDEN, "Authorization header isn't set");
    };
    let token = token.to_str().unwrap_or("").trim();
    let token = token.strip_prefix("Bearer ").unwrap_or(token);
    let Ok(claims) = verified_claims(token, &shared.data_secret, &shared.clock) else {
        return error(StatusCode::FORBIDDEN, "Invalid token");
    };
    let owner = owner_of(&claims);
    let query = shared
        .running()
        .get(&id)
        .filter(|q| q.owner == owner)
        .cloned();
    match query {
        Some(query) => {
            query.cancel();
            StatusCode::NO_CONTENT.into_response()
        }
        None => error(StatusCode::NOT_FOUND, format!("no running query {id:?}")),
    }
}

/// The security context of a token's claims: `userAttributes` values (a list means any of them).
fn security_context(claims: &Value) -> SecurityContext {
    let mut pairs = Vec::new();
    if let Some(attrs) = claims.get("userAttributes").and_then(Value::as_object) {
        for (name, value) in attrs {
            let values = match value {
                Value::Array(items) => items.iter().collect(),
                v => vec![v],
            };
            for v in values {
                match v {
                    Value::String(s) => pairs.push((name.clone(), s.clone())),
                    Value::Null | Value::Array(_) | Value::Object(_) => {}
                    other => pairs.push((name.clone(), other.to_string())),
                }
            }
        }
    }
    SecurityContext::new(&pairs)
}

fn render(event: Event, request_id: &str) -> Bytes {
    match event {
        Event::Rows(rows) => {
            let data: Vec<Vec<Option<String>>> = rows
                .iter()
                .map(|row| row.iter().map(Cell::text).collect())
                .collect();
            line(&json!({ "data": data }))
        }
        Event::Failed(message) => line(&json!({"error": message, "requestId": request_id})),
    }
}

fn line(value: &Value) -> Bytes {
    let mut out = serde_json::to_vec(value).unwrap_or_default();
    out.push(b'\n');
    Bytes::from(out)
}

/// A query registered under its request id from its request until its response ends.
struct Registered {
    shared: Arc<Shared>,
    id: String,
    query: Arc<RunningQuery>,
}

impl Registered {
    fn new(shared: &Arc<Shared>, id: &str, owner: String) -> Registered {
        let query = Arc::new(RunningQuery {
            owner,
            ..RunningQuery::default()
        });
        shared.running().insert(id.to_string(), query.clone());
        Registered {
            shared: shared.clone(),
            id: id.to_string(),
            query,
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut running = self.shared.running();
        if running
            .get(&self.id)
            .is_some_and(|q| Arc::ptr_eq(q, &self.query))
        {
            running.remove(&self.id);
        }
    }
}

/// The statement's interrupt handle, offered to cancels while it runs.
struct Interruptible(Arc<RunningQuery>);

impl Interruptible {
    fn new(query: &Arc<RunningQuery>, handle: rusqlite::InterruptHandle) -> Interruptible {
        *query.interrupt.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        if query.cancelled.load(Ordering::SeqCst) {
            query.cancel(); // cancelled before the statement started
        }
        Interruptible(query.clone())
    }
}

impl Drop for Interruptible {
    fn drop(&mut self) {
        *self.0.interrupt.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
