//! The four tools: `ask`, `thread_state`, `abort`, `run_sql`. Every failure is a tool error
//! (`isError: true`) carrying the message the CLI would print, arguments that do not fit the
//! schema included, so an assistant can read it and correct itself; none ends the server.

use super::super::chat_request::{Service, message_id};
use super::collect::{Collect, FIRST_ROWS, last_turn, queries};
use super::data::{DataApi, run_data_query};
use crate::client::abort::abort;
use crate::client::resume::{TurnPlan, converse, read_request, read_state};
use crate::protocol::chat::AbortRequest;
use crate::protocol::{ChatRequest, Frame};
use crate::render::state_table::StateView;
use crate::stream::answer::FinalTracker;
use crate::stream::tracker::Tracker;
use rmcp::handler::server::common::schema_for_input;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ProgressNotificationParam,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// What every tool call shares: the resolved service and the server's options.
pub struct Shared {
    /// Chat URL, auth and identity.
    pub svc: Service,
    /// The data query API, or why `run_sql` cannot run.
    pub data: Result<DataApi, String>,
    /// Recoveries per `ask` turn.
    pub retries: u32,
    /// The last complete assistant message answers when no final frame comes.
    pub fallback: bool,
    /// The first pause before a recovery.
    pub backoff: Duration,
}

/// The MCP server.
#[derive(Clone)]
pub struct Analyst {
    shared: Arc<Shared>,
    tool_router: ToolRouter<Self>,
}

/// `ask`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskInput {
    /// The question for the data agent, in plain language, e.g. "Revenue by month last year".
    question: String,
    /// Continue this thread (a chatId from an earlier answer) so follow-ups keep their
    /// context; leave it out to start a new thread.
    #[serde(default)]
    chat_id: Option<String>,
}

/// A thread's id.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadInput {
    /// The thread's id, as `ask` returned it.
    chat_id: String,
}

/// `run_sql`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SqlInput {
    /// SQL to run (the service's PostgreSQL-like dialect over the semantic model's cubes and
    /// views). Give this, or chatId to rerun a query of that thread.
    #[serde(default)]
    query: Option<String>,
    /// Rerun a SQL query the agent ran in this thread, for its full results.
    #[serde(default)]
    chat_id: Option<String>,
    /// Which of the thread's SQL queries, 1-based in the order they ran; default the last.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pick: Option<usize>,
    /// The most rows to return (default 1000); `truncated` says whether more exist.
    #[serde(default)]
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

fn schema<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|e| panic!("a tool's input schema: {e}"))
}

/// A tool error saying `message`.
fn failed(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The error of a failed step, as the CLI would print it (without its `analyst: ` prefix).
fn failure(e: &anyhow::Error) -> CallToolResult {
    failed(format!("{e:#}"))
}

/// The arguments as `T`, or a tool error naming what does not fit.
fn args<T: DeserializeOwned>(tool: &str, given: JsonObject) -> Result<T, String> {
    serde_json::from_value(Value::Object(given))
        .map_err(|e| format!("{tool}: invalid arguments: {e}"))
}

/// A result: `text` for people and older clients, `doc` as structured content.
fn answer(text: String, doc: Value) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(doc);
    r
}

/// A chatId as given: not empty.
fn thread(tool: &str, id: &str) -> Result<String, String> {
    let id = id.trim();
    if id.is_empty() {
        return Err(format!("{tool}: chatId must not be empty"));
    }
    Ok(id.to_owned())
}

#[tool_router]
impl Analyst {
    /// A server for `shared`.
    pub fn new(shared: Arc<Shared>) -> Analyst {
        Analyst {
            shared,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Ask the data agent a question about the business data. It searches the semantic model, runs SQL and answers in prose. Returns the final answer as text, and as structured content {chatId, answer, queries: [{title, sql, schema, rows (the first rows), totalRows, vegaSpec}]}. Pass the returned chatId with the next question for a follow-up in the same thread. Answers can take a minute; progress notifications report each tool the agent calls.",
        input_schema = schema::<AskInput>()
    )]
    async fn ask(
        &self,
        given: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let input: AskInput = match args("ask", given) {
            Ok(a) => a,
            Err(e) => return Ok(failed(e)),
        };
        if input.question.trim().is_empty() {
            return Ok(failed("ask: the question is empty"));
        }
        let chat_id = match input.chat_id.as_deref().map(|id| thread("ask", id)) {
            Some(Err(e)) => return Ok(failed(e)),
            Some(Ok(id)) => Some(id),
            None => None,
        };
        // Progress goes out from here; the turn runs on a thread of its own (see `local`) and
        // reports each tool call through the channel.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let forward = async move {
            let mut n = 0u32;
            while let Some(line) = rx.recv().await {
                let Some(token) = &token else { continue };
                n += 1;
                let note =
                    ProgressNotificationParam::new(token.clone(), f64::from(n)).with_message(line);
                // A client that went away is not an error of the turn.
                let _ = peer.notify_progress(note).await;
            }
        };
        let shared = self.shared.clone();
        let ct = context.ct.clone();
        let cancel = async move { ct.cancelled().await };
        let turn = local(move || turn(shared, input.question, chat_id, tx, cancel));
        let (result, ()) = tokio::join!(turn, forward);
        Ok(result)
    }

    #[tool(
        description = "Read a thread's current state: {chatId, isStreaming, messages}, each message with role, kind (message, tool, final, thinking), text and, for tool calls, the tool's name, input and result.",
        input_schema = schema::<ThreadInput>(),
        annotations(read_only_hint = true)
    )]
    async fn thread_state(&self, given: JsonObject) -> Result<CallToolResult, ErrorData> {
        let input: ThreadInput = match args("thread_state", given) {
            Ok(a) => a,
            Err(e) => return Ok(failed(e)),
        };
        let id = match thread("thread_state", &input.chat_id) {
            Ok(id) => id,
            Err(e) => return Ok(failed(e)),
        };
        let shared = self.shared.clone();
        let read = {
            let id = id.clone();
            local(move || async move { state(&shared, &id).await.map_err(|e| format!("{e:#}")) })
        };
        Ok(match read.await {
            Ok(doc) => {
                let n = doc["messages"].as_array().map_or(0, Vec::len);
                let streaming = if doc["isStreaming"] == true {
                    ", still answering"
                } else {
                    ""
                };
                let s = if n == 1 { "" } else { "s" };
                answer(format!("thread {id}: {n} message{s}{streaming}"), doc)
            }
            Err(e) => failed(e),
        })
    }

    #[tool(
        description = "Stop the answer a thread is streaming (the service ends the turn). Use it when a question was a mistake or takes too long.",
        input_schema = schema::<ThreadInput>(),
        annotations(destructive_hint = true, idempotent_hint = true)
    )]
    async fn abort(&self, given: JsonObject) -> Result<CallToolResult, ErrorData> {
        let input: ThreadInput = match args("abort", given) {
            Ok(a) => a,
            Err(e) => return Ok(failed(e)),
        };
        let id = match thread("abort", &input.chat_id) {
            Ok(id) => id,
            Err(e) => return Ok(failed(e)),
        };
        let svc = &self.shared.svc;
        let request = AbortRequest {
            chat_id: id.clone(),
            session_settings: svc.identity.clone(),
        };
        Ok(match abort(&svc.client, &request).await {
            Ok(()) => answer(
                format!("aborted {id}"),
                json!({"chatId": id, "aborted": true}),
            ),
            Err(e) => failure(&e),
        })
    }

    #[tool(
        description = "Run SQL on the data query API and return the rows: {schema, rows, rowCount, truncated}. Give `query` (SQL over the semantic model's cubes and views), or `chatId` (and `pick`) to rerun a query the agent ran in that thread: answers show at most 100 rows of a result, this gets them all, up to `limit` (default 1000).",
        input_schema = schema::<SqlInput>(),
        annotations(read_only_hint = true)
    )]
    async fn run_sql(&self, given: JsonObject) -> Result<CallToolResult, ErrorData> {
        let input: SqlInput = match args("run_sql", given) {
            Ok(a) => a,
            Err(e) => return Ok(failed(e)),
        };
        let shared = self.shared.clone();
        Ok(local(move || async move { sql(&shared, input).await.unwrap_or_else(failed) }).await)
    }
}

/// Run `make`'s future to its end on a blocking thread of the runtime. The client's stream
/// readers hold `&mut dyn` sinks, which are not `Send`, while the MCP service runs tools as
/// `Send` tasks; a blocking thread drives such a future with the same runtime (I/O, timers).
async fn local<F, Fut, T>(make: F) -> T
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = T>,
    T: Send + 'static,
{
    let handle = tokio::runtime::Handle::current();
    match tokio::task::spawn_blocking(move || handle.block_on(make())).await {
        Ok(t) => t,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// One `ask` turn, as `chat` runs it: sent once, resumed on drops, aborted on cancel.
async fn turn(
    shared: Arc<Shared>,
    question: String,
    chat_id: Option<String>,
    progress: tokio::sync::mpsc::UnboundedSender<String>,
    cancel: impl Future<Output = ()>,
) -> CallToolResult {
    let svc = &shared.svc;
    let message_id = match message_id(None, None) {
        Ok(id) => id,
        Err(e) => return failure(&e),
    };
    let plan = TurnPlan {
        request: ChatRequest {
            input: Some(question),
            chat_id,
            message_id: Some(message_id),
            session_settings: svc.identity.clone(),
            ..ChatRequest::default()
        },
        retries: shared.retries,
        idle: svc.idle(),
        backoff: shared.backoff,
    };
    let mut sink = Collect::new(Some(progress));
    let mut tracker = Tracker::new();
    tracker.answer = FinalTracker::new(shared.fallback);
    let finished = tokio::select! {
        r = converse(&svc.client, &plan, &mut tracker, &mut sink) => Some(r),
        () = cancel => None,
    };
    let messages = sink.messages();
    match finished {
        None => return cancelled(&shared, tracker.chat_id.clone()).await,
        Some(Err(e)) => return failure(&e),
        Some(Ok(())) => {}
    }
    if let Err(e) = tracker.outcome() {
        return failure(&e);
    }
    let Some(found) = tracker.answer.answer() else {
        return failed("the stream ended without a final answer");
    };
    let mut text = found.text;
    if found.incomplete {
        text.push_str("\n\n(incomplete: the answer's complete frame never arrived)");
    }
    let doc = json!({
        "chatId": tracker.chat_id,
        "answer": text,
        "queries": queries(&last_turn(&messages), FIRST_ROWS),
    });
    answer(text, doc)
}

/// The caller cancelled `ask`: stop the thread, as Ctrl-C does for `chat`.
async fn cancelled(shared: &Shared, chat_id: Option<String>) -> CallToolResult {
    let Some(id) = chat_id else {
        return failed("cancelled before the service named the thread; nothing to stop");
    };
    let svc = &shared.svc;
    let request = AbortRequest {
        chat_id: id.clone(),
        session_settings: svc.identity.clone(),
    };
    match abort(&svc.client, &request).await {
        Ok(()) => {
            crate::term::diag(format_args!("analyst mcp: ask cancelled; aborted {id}"));
            failed(format!("cancelled; aborted thread {id}"))
        }
        Err(e) => failed(format!("cancelled; could not stop thread {id}: {e:#}")),
    }
}

/// A thread's state as `{chatId, isStreaming, messages}`.
async fn state(shared: &Shared, id: &str) -> anyhow::Result<Value> {
    let svc = &shared.svc;
    let request = read_request(&ChatRequest {
        chat_id: Some(id.to_owned()),
        session_settings: svc.identity.clone(),
        ..ChatRequest::default()
    });
    let probe = read_state(&svc.client, &request, svc.idle()).await?;
    let mut view = StateView::of(id);
    for raw in &probe.lines {
        if let Some(f) = Frame::parse(raw) {
            view.frame(&f);
        }
    }
    Ok(view.to_value())
}

/// `run_sql`: the SQL from `query` or from the thread, then the data API.
async fn sql(shared: &Shared, input: SqlInput) -> Result<CallToolResult, String> {
    let limit = input.limit.unwrap_or(1000);
    if limit == 0 {
        return Err("run_sql: limit must be at least 1".to_owned());
    }
    if input.pick.is_some() && input.chat_id.is_none() {
        return Err("run_sql: pick needs chatId".to_owned());
    }
    let sql = match (&input.query, &input.chat_id) {
        (Some(q), None) if !q.trim().is_empty() => q.clone(),
        (Some(_), None) => return Err("run_sql: the query is empty".to_owned()),
        (Some(_), Some(_)) => {
            return Err("run_sql: give either query or chatId (with pick), not both".to_owned());
        }
        (None, None) => {
            return Err(
                "run_sql: give query (SQL), or chatId (and pick) to rerun a query of a thread"
                    .to_owned(),
            );
        }
        (None, Some(id)) => {
            let id = thread("run_sql", id)?;
            let doc = state(shared, &id).await.map_err(|e| format!("{e:#}"))?;
            pick(&id, &queries(&doc["messages"], 0), input.pick)?
        }
    };
    let data = shared
        .data
        .as_ref()
        .map_err(|why| format!("run_sql: {why}"))?;
    let mut doc = run_data_query(data, &sql, limit)
        .await
        .map_err(|e| format!("{e:#}"))?;
    let n = doc["rowCount"].as_u64().unwrap_or(0);
    let more = if doc["truncated"] == true {
        format!(" (cut at limit {limit}; more exist)")
    } else {
        String::new()
    };
    doc["sql"] = Value::String(sql);
    let rows = if n == 1 { "row" } else { "rows" };
    let text = format!(
        "{n} {rows}{more}\n{}",
        serde_json::to_string(&doc).unwrap_or_default()
    );
    Ok(answer(text, doc))
}

/// The SQL of query `pick` (1-based; default the last) among a thread's queries.
fn pick(id: &str, found: &[Value], pick: Option<usize>) -> Result<String, String> {
    if found.is_empty() {
        return Err(format!("run_sql: thread {id} ran no SQL query"));
    }
    let n = pick.unwrap_or(found.len());
    let q = n.checked_sub(1).and_then(|i| found.get(i)).ok_or_else(|| {
        format!(
            "run_sql: pick {n}: thread {id} ran {} SQL quer{} (1 to {})",
            found.len(),
            if found.len() == 1 { "y" } else { "ies" },
            found.len()
        )
    })?;
    q["sql"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("run_sql: query {n} of thread {id} carries no SQL"))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Analyst {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("analyst", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "A data agent over the business's semantic model. Use `ask` for questions in plain \
                 language (pass the returned chatId for follow-ups), `run_sql` for the full rows \
                 behind an answer, `thread_state` to read a thread, `abort` to stop one.",
            )
    }
}
