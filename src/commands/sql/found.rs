//! The SQL an answer ran, found in a chat stream: its tool-call frames and its `__state__`
//! (the thread, with the assistant's tool calls and the tool messages carrying their results).
//! SQL tools are recognised by shape (an input with `sqlQuery` or `query`, a result with
//! `schema`, `sqlQuery` or `data`), whatever their name; inputs and results may be JSON strings
//! or objects.

use crate::protocol::thread::state_messages;
use crate::protocol::tool::{Tool, classify, parse_input, parse_result};
use crate::protocol::{Frame, FrameKind};
use crate::stream::lines::Lines;
use anyhow::Result;
use serde_json::Value;
use std::collections::HashMap;

/// One SQL query of an answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// `queryTitle`, if any.
    pub title: Option<String>,
    /// The SQL.
    pub sql: String,
    /// Rows the tool result carried (at most 100 by default), if the result is known.
    pub rows: Option<usize>,
    /// `totalRows` of the result, if given.
    pub total_rows: Option<i64>,
}

impl Found {
    /// `{index, title, sqlQuery, rows, totalRows}` for `--list -o json`.
    pub fn to_json(&self, index: usize) -> Value {
        serde_json::json!({
            "index": index,
            "title": self.title,
            "sqlQuery": self.sql,
            "rows": self.rows,
            "totalRows": self.total_rows,
        })
    }
}

/// A SQL tool call from its (unparsed) input and result, if it is one and names its SQL.
fn sql_call(input: Option<&Value>, result: Option<&Value>) -> Option<Found> {
    let input = input.map(parse_input).unwrap_or(Value::Null);
    let result = result.map(parse_result);
    let Tool::Sql { input, result } = classify(&input, result.as_ref()) else {
        return None;
    };
    let sql = result
        .as_ref()
        .and_then(|r| r.sql_query.0.clone())
        .or_else(|| input.sql().map(str::to_owned))
        .filter(|s| !s.trim().is_empty())?;
    Some(Found {
        title: input
            .query_title
            .0
            .clone()
            .or_else(|| result.as_ref().and_then(|r| r.query_title.0.clone())),
        sql,
        rows: result.as_ref().and_then(|r| r.data.as_ref().map(Vec::len)),
        total_rows: result.as_ref().and_then(|r| r.total_rows.0),
    })
}

/// Collects SQL tool calls from the lines of a stream.
#[derive(Debug, Default)]
pub struct Finder {
    /// From tool-call frames, by frame id (a later frame of the same call replaces an earlier).
    frames: Vec<(String, Found)>,
    /// From the last `__state__`, in the thread's order.
    state: Option<Vec<Found>>,
    /// Lines that were not JSON objects.
    pub skipped: u64,
}

impl Finder {
    /// Look at one line.
    pub fn text(&mut self, text: &[u8]) {
        if text.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Some(frame) = Frame::parse(text) else {
            self.skipped += 1;
            return;
        };
        if frame.kind() == FrameKind::State {
            if let Some(state) = frame.state.as_ref() {
                self.state = Some(from_state(state));
            }
            return;
        }
        let Some(call) = &frame.tool_call else {
            return;
        };
        let Some(found) = sql_call(call.input.as_ref(), call.result.as_ref()) else {
            return;
        };
        let key = frame
            .id
            .0
            .clone()
            .unwrap_or_else(|| format!("#{}", self.frames.len()));
        match self.frames.iter_mut().find(|(k, _)| *k == key) {
            Some((_, earlier)) => *earlier = found,
            None => self.frames.push((key, found)),
        }
    }

    /// The queries in the thread's order: the state's (it holds the whole thread), completed
    /// by what the frames knew of the same calls; calls only the frames saw come last.
    pub fn finish(self) -> Vec<Found> {
        let frames = self.frames.into_iter().map(|(_, f)| f);
        let Some(mut all) = self.state else {
            return frames.collect();
        };
        let mut matched = vec![false; all.len()];
        let mut only_frames = Vec::new();
        for f in frames {
            let same = all.iter().enumerate().position(|(i, s)| {
                !matched[i]
                    && s.sql == f.sql
                    && (s.title.is_none() || f.title.is_none() || s.title == f.title)
            });
            match same {
                Some(i) => {
                    matched[i] = true;
                    let s = &mut all[i];
                    s.title = s.title.take().or(f.title);
                    s.rows = s.rows.or(f.rows);
                    s.total_rows = s.total_rows.or(f.total_rows);
                }
                None => only_frames.push(f),
            }
        }
        all.extend(only_frames);
        all
    }
}

impl Lines for Finder {
    fn line(&mut self, _raw: &[u8], text: &[u8]) -> Result<()> {
        self.text(text);
        Ok(())
    }
}

/// The SQL tool calls of a `__state__`'s messages, with the results their tool messages carry.
fn from_state(state: &Value) -> Vec<Found> {
    let messages = state_messages(state);
    let results: HashMap<&str, Value> = messages
        .iter()
        .filter(|m| m.role == "tool")
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, Value::String(m.text.clone()))))
        .collect();
    messages
        .iter()
        .filter(|m| m.role == "assistant")
        .flat_map(|m| &m.tool_calls)
        .filter_map(|call| {
            let result = call.id.as_deref().and_then(|id| results.get(id));
            sql_call(Some(&call.args), result)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_frame(id: &str, name: &str, input: Value, result: Option<Value>) -> String {
        let mut call = json!({"name": name, "input": input});
        if let Some(r) = result {
            call["result"] = r;
        }
        json!({"id": id, "role": "assistant", "toolCall": call}).to_string()
    }

    #[test]
    fn frames_by_shape_whatever_the_name() {
        let mut f = Finder::default();
        let lines = [
            tool_frame("m", "cubeMeta", json!({"searchQuery": "rev"}), None),
            tool_frame(
                "a",
                "anything",
                json!("{\"sqlQuery\":\"SELECT 1\",\"queryTitle\":\"One\"}"),
                None,
            ),
            tool_frame(
                "a",
                "anything",
                json!("{\"sqlQuery\":\"SELECT 1\",\"queryTitle\":\"One\"}"),
                Some(json!(
                    "{\"schema\":[],\"data\":[[\"1\"]],\"totalRows\":300}"
                )),
            ),
            tool_frame(
                "b",
                "cubeSqlApi",
                json!({"query": "SELECT 2"}),
                Some(json!({"data": [{"x": "1"}, {"x": "2"}]})),
            ),
        ];
        for l in &lines {
            f.text(l.as_bytes());
        }
        f.text(b"not json");
        assert_eq!(f.skipped, 1);
        let all = f.finish();
        assert_eq!(all.len(), 2);
        assert_eq!(
            all[0],
            Found {
                title: Some("One".into()),
                sql: "SELECT 1".into(),
                rows: Some(1),
                total_rows: Some(300)
            }
        );
        assert_eq!(all[1].sql, "SELECT 2");
        assert_eq!(all[1].rows, Some(2));
    }

    #[test]
    fn state_holds_the_thread_and_frames_complete_it() {
        let class = |c: &str| json!(["langchain_core", "messages", c]);
        let state = json!({"id": "__state__", "state": {"messages": [
            {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"","tool_calls":[
                {"name":"dataSqlApi","args":{"sqlQuery":"SELECT old"},"id":"t0"}]}},
            {"lc":1,"type":"constructor","id":class("ToolMessage"),"kwargs":{"content":"{\"sqlQuery\":\"SELECT old\",\"data\":[[\"1\"]],\"totalRows\":1}","tool_call_id":"t0"}},
            {"lc":1,"type":"constructor","id":class("AIMessage"),"kwargs":{"content":"","tool_calls":[
                {"name":"x","args":"{\"query\":\"SELECT new\"}","id":"t1"}]}}
        ]}});
        let mut f = Finder::default();
        f.text(
            tool_frame(
                "t",
                "x",
                json!({"query": "SELECT new"}),
                Some(json!("{\"data\":[],\"totalRows\":0}")),
            )
            .as_bytes(),
        );
        f.text(state.to_string().as_bytes());
        let all = f.finish();
        let sqls: Vec<&str> = all.iter().map(|f| f.sql.as_str()).collect();
        assert_eq!(sqls, ["SELECT old", "SELECT new"]);
        assert_eq!(all[0].total_rows, Some(1));
        assert_eq!(
            all[1].rows,
            Some(0),
            "the frame's result completes the state's call"
        );
    }

    /// Calls the state does not hold (a `__state__` of human and AI messages only) come after
    /// its own, in the frames' order; two of them used to index past the state's calls and
    /// panic.
    #[test]
    fn calls_only_the_frames_saw_come_last() {
        let mut f = Finder::default();
        for (id, sql) in [("a", "SELECT 1"), ("b", "SELECT 2"), ("c", "SELECT 1")] {
            let input = json!({ "sqlQuery": sql }).to_string();
            f.text(tool_frame(id, "dataSqlApi", json!(input), None).as_bytes());
        }
        f.text(br#"{"id":"__state__","state":{"messages":[]}}"#);
        let sqls: Vec<String> = f.finish().into_iter().map(|f| f.sql).collect();
        assert_eq!(sqls, ["SELECT 1", "SELECT 2", "SELECT 1"]);
    }
}
