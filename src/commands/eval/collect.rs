//! The sink of an eval turn: it keeps the turn's tool calls (what the expectations read),
//! writes every shown line to the case's `--save-dir` file, and tells the run which thread a
//! case is on, so that Ctrl-C and timeouts can abort it.

use crate::protocol::thread::state_messages;
use crate::protocol::tool::{parse_input, parse_result, tool_error};
use crate::protocol::{Frame, FrameKind, SessionSettings};
use crate::stream::tracker::Sink;
use anyhow::{Context, Result};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// One tool call of a turn, parsed.
#[derive(Clone, Debug, Default)]
pub struct Call {
    /// The tool's name as sent.
    pub name: String,
    /// Its input, parsed.
    pub input: Value,
    /// Its result, parsed, once finished.
    pub result: Option<Value>,
    /// The failed tool's error.
    pub error: Option<String>,
}

/// The threads of running cases, by case slot: what an interrupted run aborts.
pub type Live = Arc<Mutex<BTreeMap<usize, (String, SessionSettings)>>>;

/// A turn's sink.
pub struct Collect<'a> {
    /// Tool calls in the order they started.
    pub calls: Vec<Call>,
    by_id: HashMap<String, usize>,
    save: Option<(&'a str, &'a mut dyn Write)>,
    live: (&'a Live, usize, &'a SessionSettings),
}

impl<'a> Collect<'a> {
    /// A sink for case `slot` with this identity, saving to `save` (named for errors).
    pub fn new(
        save: Option<(&'a str, &'a mut dyn Write)>,
        live: &'a Live,
        slot: usize,
        identity: &'a SessionSettings,
    ) -> Collect<'a> {
        Collect {
            calls: Vec::new(),
            by_id: HashMap::new(),
            save,
            live: (live, slot, identity),
        }
    }

    fn tool(&mut self, f: &Frame) {
        let Some(call) = &f.tool_call else {
            return;
        };
        let key =
            f.id.0
                .clone()
                .unwrap_or_else(|| format!("#{}", self.calls.len()));
        let calls = &mut self.calls;
        let index = *self.by_id.entry(key).or_insert_with(|| {
            calls.push(Call::default());
            calls.len() - 1
        });
        let entry = &mut self.calls[index];
        if let Some(name) = call.name.as_ref() {
            entry.name = name.clone();
        }
        if let Some(input) = call.input.as_ref() {
            entry.input = parse_input(input);
        }
        if let Some(result) = call.result.as_ref() {
            let parsed = parse_result(result);
            entry.error = tool_error(&parsed);
            entry.result = Some(parsed);
        }
    }
}

/// The tool calls of the thread's last turn (after its last user message), from `__state__`:
/// each assistant tool call with the result of the tool message that answers it.
fn last_turn_calls(state: &Value) -> Vec<Call> {
    let messages = state_messages(state);
    let start = messages
        .iter()
        .rposition(|m| m.role == "user")
        .map_or(0, |i| i + 1);
    let turn = &messages[start..];
    let mut calls = Vec::new();
    for m in turn {
        for c in &m.tool_calls {
            let result = turn
                .iter()
                .find(|t| t.role == "tool" && t.tool_call_id.is_some() && t.tool_call_id == c.id)
                .map(|t| parse_result(&Value::String(t.text.clone())));
            calls.push(Call {
                name: c.name.clone(),
                input: parse_input(&c.args),
                error: result.as_ref().and_then(tool_error),
                result,
            });
        }
    }
    calls
}

impl Sink for Collect<'_> {
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> Result<()> {
        if let Some((name, out)) = &mut self.save {
            out.write_all(raw)
                .with_context(|| format!("--save-dir: writing {name}"))?;
        }
        match frame.map(|f| (f.kind(), f)) {
            Some((FrameKind::ToolCall, f)) => self.tool(f),
            Some((FrameKind::State, f)) => {
                // Tool calls made while a dropped connection was being resumed never arrive as
                // frames; the thread's state names them all.
                let known = f.state.as_ref().map(last_turn_calls).unwrap_or_default();
                if known.len() > self.calls.len() {
                    self.calls = known;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn chunk_done(&mut self) -> Result<()> {
        Ok(())
    }

    fn chat_id(&mut self, id: &str) -> Result<()> {
        let (live, slot, identity) = self.live;
        live.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(slot, (id.to_owned(), identity.clone()));
        Ok(())
    }
}
