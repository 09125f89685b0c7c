//! The sink of an `ask` turn: it keeps the turn's messages (tool calls with their parsed input
//! and result) instead of printing them, and reports each tool call as it starts and finishes,
//! for the caller's progress notifications.

use crate::protocol::tool::{Tool, classify, parse_input, parse_result, tool_error};
use crate::protocol::{Frame, FrameKind};
use crate::render::chat_text::tool_summary;
use crate::render::state_table::StateView;
use crate::render::table::Dataset;
use crate::stream::tracker::Sink;
use anyhow::Result;
use serde_json::{Value, json};
use std::collections::HashSet;
use tokio::sync::mpsc::UnboundedSender;

/// Rows of each SQL result put into `ask`'s structured content; `run_sql` gives them all.
pub const FIRST_ROWS: usize = 20;

/// Gathers a turn's frames; sends one line per tool call event to `progress`.
pub struct Collect {
    view: StateView,
    started: HashSet<String>,
    finished: HashSet<String>,
    progress: Option<UnboundedSender<String>>,
}

impl Collect {
    /// A sink that reports tool calls to `progress`, when given.
    pub fn new(progress: Option<UnboundedSender<String>>) -> Collect {
        Collect {
            view: StateView::default(),
            started: HashSet::new(),
            finished: HashSet::new(),
            progress,
        }
    }

    /// The turn as `thread_state` shows a thread: `{chatId, isStreaming, messages}`.
    pub fn messages(&self) -> Value {
        self.view.to_value()["messages"].clone()
    }

    fn report(&mut self, f: &Frame) {
        let Some(call) = &f.tool_call else { return };
        let id = f.id.0.clone().unwrap_or_default();
        let name = call.name.0.clone().unwrap_or_else(|| "tool".into());
        let input = call.input.as_ref().map(parse_input).unwrap_or(Value::Null);
        let result = call.result.as_ref().map(parse_result);
        let line = match &result {
            None if self.started.insert(id.clone()) => {
                format!("calling {}", summary(&name, &input, None))
            }
            Some(r) if self.finished.insert(id) => match tool_error(r) {
                Some(e) => format!("{} failed: {e}", summary(&name, &input, None)),
                None => summary(&name, &input, Some(r)),
            },
            _ => return,
        };
        if let Some(tx) = &self.progress {
            // The receiver is gone only when the call is over: nothing is left to tell.
            let _ = tx.send(line);
        }
    }
}

fn summary(name: &str, input: &Value, result: Option<&Value>) -> String {
    let line = tool_summary(name, input, result);
    line.trim_start_matches("» ").to_owned()
}

impl Sink for Collect {
    fn line(&mut self, _raw: &[u8], frame: Option<&Frame>) -> Result<()> {
        if let Some(f) = frame {
            if f.kind() == FrameKind::ToolCall {
                self.report(f);
            }
            self.view.frame(f);
        }
        Ok(())
    }

    fn chunk_done(&mut self) -> Result<()> {
        Ok(())
    }

    /// The thread is named first, so a caller can look at it or stop it while it answers.
    fn chat_id(&mut self, id: &str) -> Result<()> {
        if let Some(tx) = &self.progress {
            let _ = tx.send(format!("thread {id}"));
        }
        Ok(())
    }
}

/// The SQL queries among a thread's messages (as [`StateView::to_value`] gives them), in order:
/// `{title, sql, schema, rows, totalRows, vegaSpec, error?}` with at most `rows` rows each.
pub fn queries(messages: &Value, rows: usize) -> Vec<Value> {
    let Some(list) = messages.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|m| {
            let call = m.get("toolCall")?;
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            let result = call.get("result").filter(|r| !r.is_null());
            let Tool::Sql { input, result } = classify(&input, result) else {
                return None;
            };
            let result = result.map(|r| *r).unwrap_or_default();
            let sql = result
                .sql_query
                .0
                .clone()
                .or_else(|| input.sql().map(str::to_owned));
            let vega = result.vega_spec.0.clone().or_else(|| input.vega_spec.0.clone());
            // Rows as objects with `annotation` (docs, legacy) read as `schema` and rows as
            // arrays, as text output reads them, so every wire variant gives one shape.
            let set = Dataset::from_result(&result);
            let arrived = set.as_ref().map_or(0, |s| s.rows.len());
            let total = result.total_rows.unwrap_or(arrived as i64);
            let schema = set.as_ref().map(|s| {
                s.fields
                    .iter()
                    .map(|f| {
                        let mut c = json!({"name": f.name, "column_type": f.kind});
                        if let Some(title) = &f.title {
                            c["title"] = Value::String(title.clone());
                        }
                        c
                    })
                    .collect::<Vec<_>>()
            });
            let rows: Vec<Vec<Value>> = set
                .map(|s| s.rows.into_iter().take(rows).collect())
                .unwrap_or_default();
            let mut q = json!({
                "title": result.query_title.0.clone().or_else(|| input.query_title.0.clone()),
                "sql": sql,
                "schema": schema,
                "rows": rows,
                "totalRows": total,
                // The spec is JSON text on the wire; an assistant gets it as JSON.
                "vegaSpec": vega.map(|v| serde_json::from_str::<Value>(&v).unwrap_or(Value::String(v))),
            });
            if let Some(e) = result.error.as_ref() {
                q["error"] = Value::String(e.clone());
            }
            Some(q)
        })
        .collect()
}

/// The messages of the last turn: those after the last user message (a thread read after a
/// drop holds every turn).
pub fn last_turn(messages: &Value) -> Value {
    let Some(list) = messages.as_array() else {
        return Value::Array(Vec::new());
    };
    let from = list
        .iter()
        .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map_or(0, |i| i + 1);
    Value::Array(list[from..].to_vec())
}
