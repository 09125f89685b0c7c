//! Frames, state messages and tool payloads as the service writes them. The emulator writes
//! every frame through these constructors and the client reads them with [`super::frame`]'s
//! parsers, so a field name lives in this module and nowhere else on the writing side.

use super::frame::{ABORTED_ID, CUTOFF_ID, STATE_ID, SUSPENDED_ID, USAGE_ID};
use serde_json::{Map, Value, json};

/// Which text field an assistant frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextField {
    /// `content`: the answer (or a message's) text.
    Content,
    /// `thinking`: the agent's reasoning.
    Thinking,
}

impl TextField {
    fn key(self) -> &'static str {
        match self {
            TextField::Content => "content",
            TextField::Thinking => "thinking",
        }
    }
}

/// `__cutoff__`: always `sort: 0`. `isStreaming` tells whether the thread was streaming when the
/// request arrived; `with_role` adds `role: "assistant"` as the vendor's published example does.
pub fn cutoff(chat_id: &str, is_streaming: bool, with_role: bool) -> Value {
    let mut f = Map::new();
    f.insert("id".into(), CUTOFF_ID.into());
    if with_role {
        f.insert("role".into(), "assistant".into());
    }
    f.insert("sort".into(), 0.into());
    f.insert(
        "state".into(),
        json!({"chatId": chat_id, "isStreaming": is_streaming}),
    );
    Value::Object(f)
}

/// The user's message echoed back, complete.
pub fn user_echo(message_id: &str, content: &str) -> Value {
    json!({"id": message_id, "role": "user", "content": content, "isDelta": false, "isInProcess": false})
}

/// An assistant frame of the agent graph node `graph`: a chunk (`delta`) or the complete text.
pub fn assistant_text(
    id: &str,
    graph: &[&str],
    field: TextField,
    text: &str,
    delta: bool,
) -> Value {
    let mut f = assistant(id, graph, delta, delta);
    f[field.key()] = json!(text);
    f
}

fn assistant(id: &str, graph: &[&str], delta: bool, in_process: bool) -> Value {
    json!({"id": id, "role": "assistant", "content": "", "isDelta": delta, "isInProcess": in_process, "graphPath": graph, "isStructuredResponse": false})
}

/// A tool call as it starts: `toolCall: {name, input}`, `input` as a JSON string (clients
/// `JSON.parse` it, as they do `result`).
pub fn tool_start(id: &str, graph: &[&str], name: &str, input: &Value) -> Value {
    let mut f = assistant(id, graph, false, true);
    f["toolCall"] = json!({"name": name, "input": input.to_string()});
    f
}

/// The same tool call, finished: `result`, like `input`, as a JSON string.
pub fn tool_done(id: &str, graph: &[&str], name: &str, input: &Value, result: &Value) -> Value {
    let mut f = assistant(id, graph, false, false);
    f["toolCall"] = json!({"name": name, "input": input.to_string(), "result": result.to_string()});
    f
}

/// The input of a meta (data model search) tool.
pub fn meta_input(search_query: &str) -> Value {
    json!({ "searchQuery": search_query })
}

/// A member of a SQL result's `annotation`: its name (the key of object rows), title, type.
pub struct Annotated<'a> {
    /// Member name, e.g. `orders.revenue`.
    pub name: &'a str,
    /// Human title.
    pub title: &'a str,
    /// `number`, `string`, `time`, ...
    pub kind: &'a str,
    /// A measure (else a dimension).
    pub measure: bool,
}

/// `annotation: {measures: {...}, dimensions: {...}}` with each member's `title` and `type`,
/// for SQL results whose rows are objects keyed by member name.
pub fn annotation(members: &[Annotated<'_>]) -> Value {
    let (mut measures, mut dimensions) = (Map::new(), Map::new());
    for m in members {
        let group = if m.measure {
            &mut measures
        } else {
            &mut dimensions
        };
        group.insert(m.name.to_owned(), json!({"title": m.title, "type": m.kind}));
    }
    json!({"measures": measures, "dimensions": dimensions})
}

/// `__state__` with the thread's messages (`sort` is added by [`with_sort`]).
pub fn state(messages: &[Value]) -> Value {
    json!({"id": STATE_ID, "state": {"messages": messages}})
}

/// The frame with `sort` placed right after `id`, as the service orders its keys.
pub fn with_sort(frame: &Value, sort: u64) -> Value {
    let Value::Object(obj) = frame else {
        return frame.clone();
    };
    let mut out = Map::with_capacity(obj.len() + 1);
    if let Some(id) = obj.get("id") {
        out.insert("id".into(), id.clone());
    }
    out.insert("sort".into(), sort.into());
    for (k, v) in obj {
        if k != "id" && k != "sort" {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// Token usage of one turn, as `__usage__` reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Model names.
    pub models: Vec<String>,
    /// LLM calls made.
    pub llm_calls: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

/// `__usage__`: the very last frame, without `role` or `sort`.
pub fn usage(u: &Usage) -> Value {
    json!({
        "id": USAGE_ID,
        "type": "usage",
        "usage": {
            "models": u.models,
            "llmCalls": u.llm_calls,
            "inputTokens": u.input_tokens,
            "outputTokens": u.output_tokens,
            "cacheWriteTokens": 0,
            "cacheReadTokens": 0,
            "totalTokens": u.input_tokens + u.output_tokens,
        }
    })
}

/// `__aborted__`.
pub fn aborted(message: &str) -> Value {
    json!({"id": ABORTED_ID, "type": "abort", "code": "chat_aborted", "error": message})
}

/// `__suspended__`: the client resends the same request to resume.
pub fn suspended(message_id: &str, message: &str) -> Value {
    json!({"id": SUSPENDED_ID, "type": "suspend", "code": "chat_suspended", "retryable": true, "messageId": message_id, "error": message})
}

/// An error line `{"error": message}` (also the body of the service's HTTP errors).
pub fn error_line(message: &str) -> Value {
    json!({ "error": message })
}

/// A JSON-RPC style error object, as some deployments answer bad credentials (in a 200).
pub fn jsonrpc_error(code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}})
}

fn lc(class: &str, mut kwargs: Value) -> Value {
    kwargs["additional_kwargs"] = json!({});
    kwargs["response_metadata"] = json!({});
    json!({"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs})
}

/// A state entry for the user's message.
pub fn human_message(content: &str, message_id: &str) -> Value {
    lc(
        "HumanMessage",
        json!({"content": content, "id": message_id}),
    )
}

/// A state entry for an assistant message with text.
pub fn ai_message(content: &str) -> Value {
    lc("AIMessage", json!({ "content": content }))
}

/// A state entry for an assistant message that calls a tool with `args`.
pub fn ai_tool_call(call_id: &str, name: &str, args: &Value) -> Value {
    lc(
        "AIMessage",
        json!({"content": "", "tool_calls": [{"name": name, "args": args, "id": call_id, "type": "tool_call"}]}),
    )
}

/// A state entry for a tool's result (`content` is the result's JSON text).
pub fn tool_message(content: &str, call_id: &str, name: &str) -> Value {
    lc(
        "ToolMessage",
        json!({"content": content, "tool_call_id": call_id, "name": name}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::frame::{Frame, FrameKind};

    fn parse(v: &Value) -> Frame {
        Frame::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn what_is_written_parses_back_as_its_kind() {
        let c = parse(&cutoff("c1", false, false));
        assert_eq!(c.kind(), FrameKind::Cutoff);
        assert_eq!((c.chat_id(), c.is_streaming()), (Some("c1"), Some(false)));
        assert_eq!(parse(&cutoff("c", true, true)).kind(), FrameKind::Cutoff);
        assert_eq!(
            parse(&user_echo("1-message", "hi")).kind(),
            FrameKind::UserEcho
        );
        let t = parse(&assistant_text(
            "a",
            &["final"],
            TextField::Content,
            "x",
            false,
        ));
        assert!(t.is_final() && !t.is_delta());
        let input = json!({"sqlQuery": "SELECT 1"});
        let done = parse(&tool_done(
            "t",
            &["agent", "tools"],
            "sql",
            &input,
            &json!({}),
        ));
        assert_eq!(done.kind(), FrameKind::ToolCall);
        let call = done.tool_call.unwrap();
        assert_eq!(
            call.input,
            Some(json!(input.to_string())),
            "input is a JSON string"
        );
        assert_eq!(parse(&state(&[])).kind(), FrameKind::State);
        assert_eq!(parse(&usage(&Usage::default())).kind(), FrameKind::Usage);
        assert_eq!(parse(&aborted("x")).kind(), FrameKind::Aborted);
        assert_eq!(parse(&suspended("m", "x")).kind(), FrameKind::Suspended);
        assert_eq!(parse(&error_line("boom")).kind(), FrameKind::Error);
        assert_eq!(parse(&jsonrpc_error(-32001, "no")).kind(), FrameKind::Error);
    }

    #[test]
    fn sort_goes_right_after_id() {
        let f = with_sort(&json!({"a": 1, "id": "x"}), 7);
        assert_eq!(f.to_string(), r#"{"id":"x","sort":7,"a":1}"#);
    }
}
