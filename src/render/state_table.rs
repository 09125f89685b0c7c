//! `analyst state` as a table (one row per message: sort, role, kind, text or tool summary) or
//! as one JSON/YAML document. A state read is one thread, so its messages are gathered.

use super::chat_text::tool_summary;
use super::{table, write_document};
use crate::protocol::thread::state_messages;
use crate::protocol::tool::{parse_input, parse_result, tool_error};
use crate::protocol::{Frame, FrameKind};
use crate::render::Format;
use crate::term::Style;
use anyhow::Result;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;

/// The longest text shown in a table cell.
const CELL_WIDTH: usize = 100;

/// One message of the thread, with the id and sort the service gave it (a message known only
/// from `__state__` has the id found there, if any, and no sort: none is invented).
#[derive(Clone, Debug, Default)]
struct Row {
    id: Option<String>,
    sort: Option<i64>,
    role: String,
    kind: &'static str,
    text: String,
    tool: Option<Value>,
    /// A tool call whose result is an error.
    failed: bool,
}

/// Gathers a state read's frames into rows.
#[derive(Debug, Default)]
pub struct StateView {
    chat_id: Option<String>,
    streaming: Option<bool>,
    rows: Vec<Row>,
    by_id: HashMap<String, usize>,
    state: Option<Value>,
}

impl StateView {
    /// The view of thread `chat_id` (the id the read asked for, kept when the service's
    /// answer does not repeat it).
    pub fn of(chat_id: &str) -> StateView {
        StateView {
            chat_id: Some(chat_id.to_owned()),
            ..StateView::default()
        }
    }

    /// Take one frame of the state read.
    pub fn frame(&mut self, f: &Frame) {
        let kind = f.kind();
        match kind {
            FrameKind::Cutoff => {
                if let Some(id) = f.chat_id() {
                    self.chat_id = Some(id.to_owned());
                }
                self.streaming = f.is_streaming();
                return;
            }
            FrameKind::State => {
                self.state = f.state.0.clone();
                return;
            }
            FrameKind::UserEcho | FrameKind::Assistant | FrameKind::ToolCall => {}
            _ => return,
        }
        let key = f.id.0.clone().unwrap_or_default();
        let index = *self.by_id.entry(key).or_insert_with(|| {
            self.rows.push(Row {
                id: f.id.0.clone(),
                sort: f.sort.0,
                ..Row::default()
            });
            self.rows.len() - 1
        });
        let row = &mut self.rows[index];
        // The complete frame is the message as the service keeps it: its sort, not a chunk's.
        if !f.is_delta() && f.sort.is_some() {
            row.sort = f.sort.0;
        }
        row.role = f.role.0.clone().unwrap_or_default();
        row.kind = match kind {
            FrameKind::ToolCall => "tool",
            FrameKind::UserEcho => "message",
            _ if f.is_final() => "final",
            _ if f.content.as_deref().unwrap_or("").is_empty() && f.thinking.is_some() => {
                "thinking"
            }
            _ => "message",
        };
        if let Some(call) = &f.tool_call {
            let name = call.name.0.clone().unwrap_or_else(|| "tool".into());
            let input = call.input.as_ref().map(parse_input).unwrap_or(Value::Null);
            let result = call.result.as_ref().map(parse_result);
            let summary = tool_summary(&name, &input, result.as_ref());
            let error = result.as_ref().and_then(tool_error);
            row.failed = error.is_some();
            row.text = match error {
                Some(e) => format!("{summary} · error: {e}"),
                None => summary,
            };
            row.tool = Some(json!({"name": name, "input": input, "result": result}));
        } else {
            let text = f
                .content
                .0
                .clone()
                .or_else(|| f.thinking.0.clone())
                .unwrap_or_default();
            if f.is_delta() {
                row.text.push_str(&text);
            } else {
                row.text = text;
            }
        }
    }

    /// Rows from the frames, with the messages known only from `__state__` (by an id no frame
    /// has; `sort: null`) in their place in the thread's order; servers that send only
    /// `__state__` give all rows from it. A state message without an id (PROTOCOL.md's
    /// serialised shape has none) cannot be matched by id: the frames of a read are the last
    /// turn, so the state's messages before that turn's question (the last user message with
    /// the text of the frames' first one) are the earlier turns, and the rest are the frames'.
    fn rows(&self) -> Vec<Row> {
        let from_state = self.state.as_ref().map(rows_from_state).unwrap_or_default();
        if self.rows.is_empty() {
            return from_state;
        }
        let turn = self
            .rows
            .iter()
            .find(|r| r.role == "user")
            .and_then(|q| {
                from_state
                    .iter()
                    .rposition(|r| r.id.is_none() && r.role == "user" && r.text == q.text)
            })
            .unwrap_or(0);
        let mut rows = Vec::with_capacity(self.rows.len() + from_state.len());
        let mut next = 0; // frame rows up to here are out
        for (i, row) in from_state.into_iter().enumerate() {
            let Some(id) = &row.id else {
                if i < turn {
                    rows.push(row);
                }
                continue;
            };
            match self.by_id.get(id) {
                Some(&at) => {
                    if at >= next {
                        rows.extend_from_slice(&self.rows[next..=at]);
                        next = at + 1;
                    }
                }
                None => rows.push(row),
            }
        }
        rows.extend_from_slice(&self.rows[next..]);
        rows
    }

    /// Write the table; tool calls in cyan and failed ones in red, as `chat -o text` shows them,
    /// fitted to `width` columns (long texts wrap inside their column).
    pub fn write_table(&self, out: &mut impl Write, style: Style, width: usize) -> Result<()> {
        use comfy_table::{Cell, Color};
        let mut grid = table(style);
        grid.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
        grid.set_width(u16::try_from(width).unwrap_or(u16::MAX));
        grid.set_header(super::headers(style, ["SORT", "ROLE", "KIND", "TEXT"]));
        let rows = self.rows();
        // One line a message: the text is cut to what the other columns leave of the width
        // (4 columns: a padding space each and 3 gaps), at most CELL_WIDTH.
        let widest = |f: &dyn Fn(&Row) -> usize, header: usize| {
            rows.iter().map(f).max().unwrap_or(0).max(header)
        };
        let others = widest(&|r| r.sort.map_or(1, |s| s.to_string().len()), 4)
            + widest(&|r| r.role.chars().count(), 4)
            + widest(&|r| r.kind.len(), 4);
        let room = width.saturating_sub(others + 7).clamp(20, CELL_WIDTH);
        for r in rows {
            let kind = Cell::new(r.kind);
            let text = Cell::new(crate::term::visible(&shorten(&r.text, room)).into_owned());
            let (kind, text) = match (r.kind, r.failed) {
                (_, true) => (kind.fg(Color::DarkRed), text.fg(Color::DarkRed)),
                ("tool", _) => (kind.fg(Color::DarkCyan), text),
                _ => (kind, text),
            };
            grid.add_row(vec![
                Cell::new(r.sort.map_or("-".to_owned(), |s| s.to_string())),
                Cell::new(r.role),
                kind,
                text,
            ]);
        }
        super::write_table(out, &mut grid)?;
        Ok(())
    }

    /// The hint for stderr (CLI.md: stdout carries only the data) when the thread was still
    /// answering: the table is not its last word.
    pub fn still_answering_hint(&self) -> Option<&'static str> {
        (self.streaming == Some(true))
            .then_some("the thread is still answering: read it again for the rest")
    }

    /// Write the document: `chatId`, `isStreaming`, `messages`.
    pub fn write_doc(&self, out: &mut impl Write, format: Format) -> Result<()> {
        write_document(out, &self.to_value(), format)
    }

    /// The thread as one document: `{chatId, isStreaming, messages}`.
    pub fn to_value(&self) -> Value {
        let messages: Vec<Value> = self
            .rows()
            .into_iter()
            .map(|r| {
                let mut m = json!({"id": r.id, "sort": r.sort, "role": r.role, "kind": r.kind, "text": r.text});
                if let Some(tool) = r.tool {
                    m["toolCall"] = tool;
                }
                m
            })
            .collect();
        json!({"chatId": self.chat_id, "isStreaming": self.streaming, "messages": messages})
    }
}

/// One row per message of the serialised thread; a tool call and its result share a row.
fn rows_from_state(state: &Value) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    // Tool calls waiting for their result: (call id, name, args, row index).
    let mut open: Vec<(Option<String>, String, Value, usize)> = Vec::new();
    for m in state_messages(state) {
        if m.role == "tool" {
            let at = open
                .iter()
                .position(|(id, _, _, _)| id.is_some() && *id == m.tool_call_id)
                .or_else(|| {
                    open.iter()
                        .position(|(_, name, _, _)| Some(name) == m.name.as_ref())
                });
            if let Some(at) = at {
                let (_, name, args, row) = open.remove(at);
                let result = parse_result(&Value::String(m.text.clone()));
                let summary = tool_summary(&name, &args, Some(&result));
                let error = tool_error(&result);
                rows[row].failed = error.is_some();
                rows[row].text = match error {
                    Some(e) => format!("{summary} · error: {e}"),
                    None => summary,
                };
                rows[row].tool = Some(json!({"name": name, "input": args, "result": result}));
                continue;
            }
        }
        if m.tool_calls.is_empty() {
            let kind = if m.role == "assistant" {
                "final"
            } else {
                "message"
            };
            rows.push(Row {
                id: m.id,
                role: m.role,
                kind,
                text: m.text,
                ..Row::default()
            });
            continue;
        }
        for call in m.tool_calls {
            let summary = tool_summary(&call.name, &call.args, None);
            // The message's id; a message calling several tools has one row per call, and
            // without an id of its own each row is known by its call's id.
            let id = m.id.clone().or_else(|| call.id.clone());
            open.push((call.id, call.name.clone(), call.args.clone(), rows.len()));
            rows.push(Row {
                id,
                role: m.role.clone(),
                kind: "tool",
                text: summary,
                tool: Some(json!({"name": call.name, "input": call.args})),
                ..Row::default()
            });
        }
    }
    rows
}

fn shorten(s: &str, width: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > width {
        one.chars()
            .take(width.saturating_sub(1))
            .collect::<String>()
            + "…"
    } else {
        one
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PROTOCOL.md's `__state__` entries carry no id: the earlier turns they hold are still
    /// rows when the read's frames give the last turn (they were dropped).
    #[test]
    fn state_messages_without_ids_before_the_frames_turn_are_kept() {
        let mut v = StateView::default();
        let msg = |kind: &str, text: &str| {
            format!(
                r#"{{"lc":1,"type":"constructor","id":["langchain_core","messages","{kind}"],"kwargs":{{"content":"{text}"}}}}"#
            )
        };
        let state = format!(
            r#"{{"id":"__state__","sort":9,"state":{{"messages":[{},{},{},{}]}}}}"#,
            msg("HumanMessage", "Q0?"),
            msg("AIMessage", "Answer zero."),
            msg("HumanMessage", "Q1?"),
            msg("AIMessage", "Answer one.")
        );
        for l in [
            r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c","isStreaming":false}}"#,
            r#"{"id":"u1","sort":1,"role":"user","content":"Q1?","isDelta":false}"#,
            r#"{"id":"a1","sort":2,"role":"assistant","content":"Answer one.","isDelta":false,"graphPath":["final"]}"#,
            state.as_str(),
        ] {
            let f = Frame::parse(l.as_bytes()).unwrap();
            v.frame(&f);
        }
        let texts: Vec<String> = v.rows().into_iter().map(|r| r.text).collect();
        assert_eq!(texts, ["Q0?", "Answer zero.", "Q1?", "Answer one."]);
    }

    #[test]
    fn frames_become_rows() {
        let mut v = StateView::default();
        for l in [
            r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c","isStreaming":false}}"#,
            r#"{"id":"u","sort":1,"role":"user","content":"Top?","isDelta":false}"#,
            r#"{"id":"a","sort":2,"role":"assistant","content":"Bo","isDelta":true,"graphPath":["final"]}"#,
            r#"{"id":"a","sort":3,"role":"assistant","content":"Books","isDelta":false,"graphPath":["final"]}"#,
        ] {
            v.frame(&Frame::parse(l.as_bytes()).unwrap());
        }
        let mut out = Vec::new();
        v.write_doc(&mut out, Format::Json).unwrap();
        let doc: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["chatId"], "c");
        assert_eq!(doc["messages"][1]["text"], "Books");
        assert_eq!(doc["messages"][1]["kind"], "final");
        let mut table = Vec::new();
        v.write_table(&mut table, Style::default(), 200).unwrap();
        assert!(String::from_utf8(table).unwrap().contains("Books"));
    }

    #[test]
    fn messages_known_only_from_the_state_keep_their_place_with_no_sort() {
        let human = |id: &str, text: &str| json!({"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":text,"id":id}});
        let ai = |id: &str, text: &str| json!({"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":text,"id":id}});
        let state = json!({"id":"__state__","state":{"messages":[
            human("h0", "older q"), ai("old-ai", "older answer"), human("u", "Top?"), ai("a", "Books"),
        ]}});
        let mut v = StateView::default();
        for l in [
            r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c","isStreaming":false}}"#.to_owned(),
            r#"{"id":"u","sort":1,"role":"user","content":"Top?","isDelta":false}"#.to_owned(),
            r#"{"id":"a","sort":3,"role":"assistant","content":"Books","isDelta":false,"graphPath":["final"]}"#.to_owned(),
            state.to_string(),
        ] {
            v.frame(&Frame::parse(l.as_bytes()).unwrap());
        }
        let doc = v.to_value();
        let got: Vec<(Value, Value, Value)> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["id"].clone(), m["sort"].clone(), m["text"].clone()))
            .collect();
        assert_eq!(
            got,
            [
                (json!("h0"), Value::Null, json!("older q")),
                (json!("old-ai"), Value::Null, json!("older answer")),
                (json!("u"), json!(1), json!("Top?")),
                (json!("a"), json!(3), json!("Books")),
            ]
        );
    }
}
