//! `-o json` / `-o yaml`: one document at the end. Only the document's parts are kept while the
//! stream runs (the tool calls), never the stream itself.

use super::chat::{ChatRender, End};
use super::write_document;
use crate::protocol::tool::{parse_input, parse_result, tool_error};
use crate::protocol::{Frame, FrameKind};
use crate::render::Format;
use anyhow::Result;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::{self, Write};

/// One tool call of the document.
struct Call {
    name: String,
    input: Value,
    result: Option<Value>,
    error: Option<String>,
}

/// The document renderer.
pub struct DocRender<W: Write> {
    out: W,
    format: Format,
    calls: Vec<Call>,
    by_id: HashMap<String, usize>,
}

impl<W: Write> DocRender<W> {
    /// Write a `format` (json or yaml) document to `out`.
    pub fn new(out: W, format: Format) -> Self {
        DocRender {
            out,
            format,
            calls: Vec::new(),
            by_id: HashMap::new(),
        }
    }
}

impl<W: Write> ChatRender for DocRender<W> {
    fn line(&mut self, _raw: &[u8], frame: Option<&Frame>) -> io::Result<()> {
        let Some(f) = frame.filter(|f| f.kind() == FrameKind::ToolCall) else {
            return Ok(());
        };
        let Some(call) = &f.tool_call else {
            return Ok(());
        };
        let key =
            f.id.0
                .clone()
                .unwrap_or_else(|| format!("#{}", self.calls.len()));
        let index = *self.by_id.entry(key).or_insert_with(|| {
            self.calls.push(Call {
                name: String::new(),
                input: Value::Null,
                result: None,
                error: None,
            });
            self.calls.len() - 1
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
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, end: &End<'_>) -> Result<()> {
        let calls: Vec<Value> = self
            .calls
            .drain(..)
            .map(|c| {
                let mut m = Map::new();
                m.insert("name".into(), Value::String(c.name));
                m.insert("input".into(), c.input);
                match (c.error, c.result) {
                    (Some(e), _) => {
                        m.insert("error".into(), Value::String(e));
                    }
                    (None, Some(r)) => {
                        m.insert("result".into(), r);
                    }
                    (None, None) => {}
                }
                Value::Object(m)
            })
            .collect();
        let mut doc = json!({
            "chatId": end.chat_id,
            "messageId": end.message_id,
            "final": end.answer,
            "toolCalls": calls,
        });
        if let Some(usage) = end.usage {
            doc["usage"] = usage.clone();
        }
        if let Some(error) = end.error {
            doc["error"] = Value::String(error.to_owned());
        }
        write_document(&mut self.out, &doc, self.format)?;
        Ok(self.out.flush()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_results_and_errors() {
        let mut out = Vec::new();
        let mut r = DocRender::new(&mut out, Format::Json);
        let lines = [
            r#"{"id":"t1","role":"assistant","toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT 1"}}}"#,
            r#"{"id":"t1","role":"assistant","toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT 1"},"result":"{\"data\":[[1]]}"}}"#,
            r#"{"id":"t2","role":"assistant","toolCall":{"name":"dataMeta","input":"{\"searchQuery\":\"x\"}","result":"{\"error\":\"Bad branch\"}"}}"#,
        ];
        for l in lines {
            r.line(l.as_bytes(), Frame::parse(l.as_bytes()).as_ref())
                .unwrap();
        }
        let usage = json!({"totalTokens": 3});
        r.finish(&End {
            chat_id: Some("c"),
            message_id: Some("1-message"),
            answer: Some("A"),
            usage: Some(&usage),
            ..End::default()
        })
        .unwrap();
        let doc: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["chatId"], "c");
        assert_eq!(doc["final"], "A");
        assert_eq!(doc["toolCalls"][0]["result"]["data"][0][0], 1);
        assert_eq!(doc["toolCalls"][1]["input"]["searchQuery"], "x");
        assert_eq!(doc["toolCalls"][1]["error"], "Bad branch");
        assert_eq!(doc["usage"]["totalTokens"], 3);
        assert!(doc.get("error").is_none());
    }
}
