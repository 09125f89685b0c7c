//! One line of the chat stream, parsed leniently, and what kind of frame it is.

use super::lenient::Lenient;
use serde::Deserialize;
use serde_json::Value;

/// Id of the first frame of every response: the thread id and whether it was streaming.
pub const CUTOFF_ID: &str = "__cutoff__";
/// Id of the frame that carries the thread, serialised; the end of a turn.
pub const STATE_ID: &str = "__state__";
/// Id of the token-usage frame, the very last one.
pub const USAGE_ID: &str = "__usage__";
/// Id of the frame that ends an aborted turn.
pub const ABORTED_ID: &str = "__aborted__";
/// Id of the frame that suspends a turn until the same request is sent again.
pub const SUSPENDED_ID: &str = "__suspended__";

/// A stream frame. Every field is optional; a field of an unexpected type reads as absent.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Frame {
    /// Message id, or `__cutoff__`, `__state__`, `__usage__`, `__aborted__`, `__suspended__`.
    pub id: Lenient<String>,
    /// Increases through the stream; absent on `__usage__` and error lines.
    pub sort: Lenient<i64>,
    /// `user` or `assistant`.
    pub role: Lenient<String>,
    /// Answer text: a chunk on delta frames, the whole text on complete ones.
    pub content: Lenient<String>,
    /// Reasoning text, chunked like `content`.
    pub thinking: Lenient<String>,
    /// A chunk to append (true) or the complete message (false).
    pub is_delta: Lenient<bool>,
    /// Still being produced.
    pub is_in_process: Lenient<bool>,
    /// The agent graph node, e.g. `["final"]` or `["data_analyst_agent", "tools"]`.
    pub graph_path: Lenient<Vec<String>>,
    /// A tool call and, once done, its result.
    #[serde(deserialize_with = "tool_call")]
    pub tool_call: Option<ToolCall>,
    /// Thread state on `__cutoff__` and `__state__`.
    pub state: Lenient<Value>,
    /// An error: a string on error lines, an object on JSON-RPC style replies.
    pub error: Lenient<Value>,
    /// `usage`, `abort`, `suspend` on newer frames.
    #[serde(rename = "type")]
    pub kind: Lenient<String>,
    /// e.g. `chat_aborted`, `chat_suspended`.
    pub code: Lenient<String>,
    /// Token usage on `__usage__`.
    pub usage: Lenient<Value>,
    /// `"2.0"` on a JSON-RPC style error object: the protocol's bad-credentials answer in a
    /// 200 (PROTOCOL.md).
    pub jsonrpc: Lenient<String>,
}

/// `toolCall`: the tool's name, its input, and (when finished) its result as a JSON string.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolCall {
    /// e.g. `dataSqlApi`.
    pub name: Lenient<String>,
    /// The input object (some servers send it as a JSON string).
    pub input: Lenient<Value>,
    /// The result, usually a JSON string.
    pub result: Lenient<Value>,
}

fn tool_call<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ToolCall>, D::Error> {
    Ok(match Value::deserialize(d)? {
        v @ Value::Object(_) => serde_json::from_value(v).ok(),
        _ => None,
    })
}

/// The kinds of frame PROTOCOL.md describes; anything else is `Unknown` and passes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// `__cutoff__`: first frame, carries `state.chatId`.
    Cutoff,
    /// `__state__`: the thread, serialised; the stream's end.
    State,
    /// `__usage__`: token usage, the very last frame.
    Usage,
    /// `__aborted__`.
    Aborted,
    /// `__suspended__`: resend the same request to resume.
    Suspended,
    /// `{"error": ...}` mid-stream, or a JSON-RPC style error object.
    Error,
    /// The user's message echoed back.
    UserEcho,
    /// An assistant tool call (start or result).
    ToolCall,
    /// Assistant text or thinking, delta or complete.
    Assistant,
    /// Anything else.
    Unknown,
}

impl Frame {
    /// Parse one line leniently; `None` when it is not a JSON object at all.
    pub fn parse(line: &[u8]) -> Option<Frame> {
        // serde would also accept an array as a struct's fields in order: only objects are frames.
        let first = line.iter().find(|b| !b.is_ascii_whitespace())?;
        if *first != b'{' {
            return None;
        }
        serde_json::from_slice(line).ok()
    }

    /// Whether this is a frame of the service's stream, by its shape: every frame has an `id`,
    /// a `role` or a `type` (an error line has none of them, nor has JSON that is no frame).
    /// The tracker reads the same from its scan's fields.
    pub fn is_of_stream(&self) -> bool {
        self.id.is_some() || self.role.is_some() || self.kind.is_some()
    }

    /// What kind of frame this is.
    pub fn kind(&self) -> FrameKind {
        match (self.id.as_deref(), self.kind.as_deref()) {
            (Some(CUTOFF_ID), _) => return FrameKind::Cutoff,
            (Some(STATE_ID), _) => return FrameKind::State,
            (Some(USAGE_ID), _) | (_, Some("usage")) => return FrameKind::Usage,
            (Some(ABORTED_ID), _) | (_, Some("abort")) => return FrameKind::Aborted,
            (Some(SUSPENDED_ID), _) | (_, Some("suspend")) => return FrameKind::Suspended,
            _ => {}
        }
        if self.error.is_some() && self.role.is_none() {
            return FrameKind::Error;
        }
        match self.role.as_deref() {
            Some("user") => FrameKind::UserEcho,
            Some("assistant") if self.tool_call.is_some() => FrameKind::ToolCall,
            Some("assistant") => FrameKind::Assistant,
            _ => FrameKind::Unknown,
        }
    }

    /// Whether this is a final-answer frame: assistant, `graphPath[0] == "final"`, at most two
    /// path elements.
    pub fn is_final(&self) -> bool {
        self.role.as_deref() == Some("assistant")
            && self
                .graph_path
                .as_ref()
                .is_some_and(|p| p.first().map(String::as_str) == Some("final") && p.len() <= 2)
    }

    /// Whether this frame is a chunk (`isDelta: true`).
    pub fn is_delta(&self) -> bool {
        self.is_delta == Some(true)
    }

    /// The thread id carried by `__cutoff__` (`state.chatId`).
    pub fn chat_id(&self) -> Option<&str> {
        self.state.as_ref()?.get("chatId")?.as_str()
    }

    /// `state.isStreaming` on `__cutoff__`.
    pub fn is_streaming(&self) -> Option<bool> {
        self.state.as_ref()?.get("isStreaming")?.as_bool()
    }

    /// The error message: the string of an error line, or `message`/`detail` of an error object.
    pub fn error_message(&self) -> Option<String> {
        error_text(self.error.as_ref()?)
    }
}

/// Readable text of an error value: a string, or an object's `message`, `detail` or `error`.
pub fn error_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => ["message", "detail", "error", "msg"]
            .iter()
            .find_map(|k| map.get(*k).and_then(error_text))
            .or_else(|| Some(v.to_string())),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(line: &str) -> FrameKind {
        Frame::parse(line.as_bytes()).unwrap().kind()
    }

    #[test]
    fn every_kind_is_recognised() {
        assert_eq!(
            kind(r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":true}}"#),
            FrameKind::Cutoff
        );
        assert_eq!(
            kind(r#"{"id":"__state__","state":{"messages":[]}}"#),
            FrameKind::State
        );
        assert_eq!(
            kind(r#"{"id":"__usage__","type":"usage","usage":{}}"#),
            FrameKind::Usage
        );
        assert_eq!(kind(r#"{"type":"usage","usage":{}}"#), FrameKind::Usage);
        assert_eq!(
            kind(r#"{"id":"__aborted__","type":"abort","code":"chat_aborted","error":"x"}"#),
            FrameKind::Aborted
        );
        assert_eq!(
            kind(r#"{"id":"__suspended__","type":"suspend","retryable":true,"error":"x"}"#),
            FrameKind::Suspended
        );
        assert_eq!(kind(r#"{"error":"boom"}"#), FrameKind::Error);
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized"}}"#),
            FrameKind::Error
        );
        assert_eq!(
            kind(r#"{"id":"1-message","role":"user","isDelta":false}"#),
            FrameKind::UserEcho
        );
        assert_eq!(
            kind(r#"{"id":"t","role":"assistant","toolCall":{"name":"dataMeta","input":{}}}"#),
            FrameKind::ToolCall
        );
        assert_eq!(
            kind(r#"{"id":"a","role":"assistant","content":"x"}"#),
            FrameKind::Assistant
        );
        assert_eq!(kind(r#"{"something":"new"}"#), FrameKind::Unknown);
    }

    #[test]
    fn wrong_types_read_as_absent() {
        let f = Frame::parse(
            br#"{"id":5,"sort":"3","isDelta":"true","graphPath":"final","toolCall":[]}"#,
        )
        .unwrap();
        assert_eq!(f.id, None);
        assert_eq!(f.sort, Some(3));
        assert_eq!(f.is_delta, Some(true));
        assert_eq!(f.graph_path, None);
        assert!(f.tool_call.is_none());
    }

    #[test]
    fn final_rule() {
        let f = |p: &str| {
            Frame::parse(format!(r#"{{"role":"assistant","graphPath":{p}}}"#).as_bytes())
                .unwrap()
                .is_final()
        };
        assert!(f(r#"["final"]"#));
        assert!(f(r#"["final","x"]"#));
        assert!(!f(r#"["final","x","y"]"#));
        assert!(!f(r#"["data_analyst_agent"]"#));
        assert!(!f("[]"));
    }

    #[test]
    fn error_texts() {
        let f = Frame::parse(br#"{"error":{"code":1,"message":"Invalid API key"}}"#).unwrap();
        assert_eq!(f.error_message().as_deref(), Some("Invalid API key"));
        assert!(Frame::parse(b"[1]").is_none());
    }
}
