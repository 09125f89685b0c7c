//! The thread as serialised in a `__state__` frame's `state.messages`.
//!
//! Entries are usually LangChain constructor objects
//! (`{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{...}}`);
//! plainer servers send `{role, content}` or `{type: "ai", content}`. Both are read leniently.

use serde_json::Value;

/// One message of a thread's state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateMessage {
    /// The message's own id (`kwargs.id`, or `id` when it is a string rather than a LangChain
    /// class path), if the entry carries one.
    pub id: Option<String>,
    /// `user`, `assistant`, `tool`, `system`, or the entry's own word for it.
    pub role: String,
    /// The text (content parts joined; non-text content as JSON).
    pub text: String,
    /// The tools an assistant message called: name, arguments and call id.
    pub tool_calls: Vec<ToolCallRef>,
    /// A tool message's call id (`tool_call_id`).
    pub tool_call_id: Option<String>,
    /// A tool message's tool name.
    pub name: Option<String>,
}

/// A tool call named by an assistant message of the state.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallRef {
    /// The tool.
    pub name: String,
    /// Its arguments (the tool's input).
    pub args: Value,
    /// The call id, matched by the tool message that carries the result.
    pub id: Option<String>,
}

/// The messages of a `__state__` frame's `state` value.
pub fn state_messages(state: &Value) -> Vec<StateMessage> {
    state
        .get("messages")
        .and_then(Value::as_array)
        .map(|all| all.iter().map(state_message).collect())
        .unwrap_or_default()
}

/// The answer of the thread's last turn: its last assistant message with text after the last
/// user message. None when the thread ends in a user message with no such reply (the turn
/// failed or was stopped): an assistant message before it answers an earlier question.
pub fn last_answer(state: &Value) -> Option<String> {
    last_answer_entry(state).map(|(text, _)| text)
}

/// [`last_answer`], with the message's entry in `state.messages` as the service sent it.
pub fn last_answer_entry(state: &Value) -> Option<(String, &Value)> {
    let entries = state.get("messages").and_then(Value::as_array)?;
    for entry in entries.iter().rev() {
        let m = state_message(entry);
        match m.role.as_str() {
            "user" => return None,
            "assistant" if !m.text.trim().is_empty() => return Some((m.text, entry)),
            _ => {}
        }
    }
    None
}

fn state_message(entry: &Value) -> StateMessage {
    // LangChain entries keep their fields under `kwargs`.
    let body = entry.get("kwargs").unwrap_or(entry);
    let class = entry
        .get("id")
        .and_then(Value::as_array)
        .and_then(|path| path.last())
        .and_then(Value::as_str)
        .unwrap_or("");
    let word = body
        .get("role")
        .or_else(|| body.get("type"))
        .or_else(|| entry.get("role"))
        .or_else(|| {
            entry
                .get("type")
                .filter(|t| t.as_str() != Some("constructor"))
        })
        .and_then(Value::as_str)
        .unwrap_or(class);
    let role = match word {
        "ai" | "assistant" | "AIMessage" | "AIMessageChunk" => "assistant",
        "human" | "user" | "HumanMessage" => "user",
        "tool" | "ToolMessage" => "tool",
        "system" | "SystemMessage" => "system",
        other => other,
    }
    .to_owned();
    let tool_calls = body
        .get("tool_calls")
        .or_else(|| body.get("toolCalls"))
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| {
                    Some(ToolCallRef {
                        name: c.get("name")?.as_str()?.to_owned(),
                        args: c
                            .get("args")
                            .or_else(|| c.get("input"))
                            .cloned()
                            .unwrap_or(Value::Null),
                        id: c.get("id").and_then(Value::as_str).map(str::to_owned),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let text_field = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_owned);
    // A constructor entry's top-level `id` is its class path (an array), never a message id.
    let id = body
        .get("id")
        .or_else(|| entry.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    StateMessage {
        id,
        role,
        text: content_text(body.get("content")),
        tool_calls,
        tool_call_id: text_field("tool_call_id"),
        name: text_field("name"),
    }
}

/// Content as text: a string, or the `text` of content parts, or JSON for anything else.
fn content_text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p {
                Value::String(s) => s.clone(),
                other => other
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join(""),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn langchain_and_plain_entries() {
        let state = json!({"messages": [
            {"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"Top 5?"}},
            {"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"","tool_calls":[{"name":"dataSqlApi","args":{"sqlQuery":"SELECT 1"},"id":"t1"}]}},
            {"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"content":"{}","tool_call_id":"t1","name":"dataSqlApi"}},
            {"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":[{"type":"text","text":"Books lead."}]}},
            {"role":"user","content":"and?"}
        ]});
        let msgs = state_messages(&state);
        let roles: Vec<&str> = msgs.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "assistant", "user"]);
        assert_eq!(msgs[1].tool_calls[0].name, "dataSqlApi");
        assert_eq!(msgs[1].tool_calls[0].args["sqlQuery"], "SELECT 1");
        assert_eq!(msgs[2].tool_call_id.as_deref(), Some("t1"));
        // The last turn ("and?") has no reply: "Books lead." answers the question before it.
        assert_eq!(last_answer(&state), None);
        let mut answered = state.clone();
        answered["messages"].as_array_mut().unwrap().extend([
            json!({"role":"assistant","content":"Music next."}),
            json!({"role":"tool","content":"{}"}),
        ]);
        assert_eq!(last_answer(&answered).as_deref(), Some("Music next."));
        answered["messages"].as_array_mut().unwrap().truncate(4);
        assert_eq!(last_answer(&answered).as_deref(), Some("Books lead."));
        assert_eq!(last_answer(&json!({"messages": 3})), None);
    }
}
