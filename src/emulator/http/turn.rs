//! One turn of a thread: the frames the server adds around the agent's (`__cutoff__`, the user
//! echo, `__state__`, `__usage__`, `__aborted__`, `__suspended__`) and the task that runs the
//! agent and feeds the turn's [`Run`] at the configured pace.

use super::shared::Shared;
use super::threads::{Run, Thread};
use crate::emulator::engine::{AgentRequest, AgentRun};
use crate::protocol::emit;
use crate::protocol::tool::parse_input;
use crate::protocol::{Dialect, Frame};
use axum::body::Bytes;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::watch;

/// The model name reported in `__usage__`.
const MODEL: &str = "analyst-emulator";

/// `__cutoff__` as one line: always `sort: 0`, on every connection.
pub(crate) fn cutoff(dialect: Dialect, chat_id: &str, is_streaming: bool) -> Bytes {
    line(&emit::cutoff(
        chat_id,
        is_streaming,
        dialect.cutoff_has_role(),
    ))
}

/// A frame serialised as one `\n`-terminated line.
pub(crate) fn line(frame: &Value) -> Bytes {
    let mut text = frame.to_string().into_bytes();
    text.push(b'\n');
    Bytes::from(text)
}

/// Open a turn on a thread: record the human message, start its run with the user echo, and
/// mark the thread streaming. The caller spawns [`drive`] after releasing the world lock.
pub(crate) fn begin(thread: &mut Thread, message_id: &str, input: &str) -> Arc<Run> {
    thread.messages.push(emit::human_message(input, message_id));
    let run = Run::new(message_id.to_owned());
    run.push(&emit::user_echo(message_id, input), true, false);
    thread.running = Some(run.clone());
    run
}

/// Stop a thread's running turn with `__aborted__`; false when nothing was running.
pub(crate) fn abort(thread: &mut Thread, dialect: Dialect) -> bool {
    let Some(run) = thread.running.take() else {
        return false;
    };
    thread.answered.insert(run.message_id.clone());
    if !dialect.has_turn_frames() {
        // Legacy servers know neither `__aborted__` nor `__usage__`: the stream just ends.
        run.finish(&[], &[]);
        return true;
    }
    // `__usage__` stays the very last frame, after an abort too.
    let usage = run.usage().unwrap_or_else(no_usage);
    run.finish(
        &[emit::aborted("The chat was aborted by the user")],
        &[usage],
    );
    true
}

/// Faults that act on the turn itself rather than on one connection.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TurnFaults {
    /// Send `__suspended__` and pause once this many lines are out.
    pub suspend_after: Option<u64>,
    /// Stop producing once this many lines are out, until aborted.
    pub hold_after: Option<u64>,
}

/// Run the agent and feed the turn's log; the turn ends with `__state__` and `__usage__`, or
/// earlier by abort, or is left unfinished at shutdown.
pub(crate) async fn drive(
    shared: Arc<Shared>,
    chat_id: String,
    run: Arc<Run>,
    req: AgentRequest,
    faults: TurnFaults,
    prompt_chars: usize,
) {
    let mut bell = run.bell();
    let mut shutdown = shared.shutdown.clone();
    let engine = shared.engine.clone();
    let job = tokio::task::spawn_blocking(move || engine.run(&req));
    let agent = tokio::select! {
        joined = job => match joined {
            Ok(agent) => agent,
            Err(_) => return fail(&shared, &chat_id, &run, "internal error: the agent failed"),
        },
        _ = wait_for(&run, &mut bell, &mut shutdown, Run::is_done) => return,
    };
    let usage = usage_frame(&agent, prompt_chars);
    run.set_usage(usage.clone());
    let mut suspended_once = false;
    for frame in &agent.frames {
        // Lines as the first connection counts them: `__cutoff__` plus the log.
        let lines = run.position() as u64 + 1;
        let can_suspend = shared.dialect.has_turn_frames();
        if can_suspend && !suspended_once && faults.suspend_after.is_some_and(|n| lines >= n) {
            suspended_once = true;
            run.set_paused(true);
            run.push(
                &emit::suspended(
                    &run.message_id,
                    "The turn was suspended; send the same request again to resume it",
                ),
                true,
                false,
            );
            // `__usage__` stays the very last frame of the connection, after a suspension too.
            run.push(&usage, false, true);
            let resumed = |r: &Run| !r.is_paused() || r.is_done();
            if !wait_for(&run, &mut bell, &mut shutdown, resumed).await || run.is_done() {
                return;
            }
        }
        if faults.hold_after.is_some_and(|n| lines >= n) {
            // A turn that never finishes on its own: only abort (or shutdown) ends it.
            wait_for(&run, &mut bell, &mut shutdown, Run::is_done).await;
            return;
        }
        if !shared.pace.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(shared.pace) => {}
                _ = shutdown.changed() => return,
            }
        }
        if !run.push(frame, true, false) {
            return; // aborted meanwhile
        }
    }
    finish(&shared, &chat_id, &run, agent, usage);
}

/// Wait until `done(run)` holds (true) or the server shuts down (false), woken by the bell.
async fn wait_for(
    run: &Run,
    bell: &mut watch::Receiver<u64>,
    shutdown: &mut watch::Receiver<bool>,
    done: impl Fn(&Run) -> bool,
) -> bool {
    loop {
        bell.borrow_and_update();
        if done(run) {
            return true;
        }
        if *shutdown.borrow() {
            return false;
        }
        tokio::select! {
            changed = bell.changed() => if changed.is_err() { return false },
            _ = shutdown.changed() => return false,
        }
    }
}

/// End the turn normally: store its messages in the thread, then `__state__` and `__usage__`.
fn finish(shared: &Shared, chat_id: &str, run: &Arc<Run>, agent: AgentRun, usage: Value) {
    // Legacy servers send no `__usage__`.
    let usage: &[Value] = if shared.dialect.has_turn_frames() {
        &[usage]
    } else {
        &[]
    };
    let mut world = shared.world();
    let Some(thread) = world.threads.get_mut(chat_id) else {
        // The owner expired mid-turn; the thread is gone, but attached clients get an ending.
        run.finish(&[emit::state(&[])], usage);
        return;
    };
    if !thread.running.as_ref().is_some_and(|r| Arc::ptr_eq(r, run)) {
        return; // aborted: `__aborted__` already ended the run
    }
    for call in tool_calls(&agent.frames) {
        thread
            .messages
            .push(emit::ai_tool_call(&call.id, &call.name, &call.input));
        thread
            .messages
            .push(emit::tool_message(&call.result, &call.id, &call.name));
    }
    thread.messages.push(emit::ai_message(&agent.answer));
    thread.history.push(agent.memory);
    thread.answered.insert(run.message_id.clone());
    thread.running = None;
    run.finish(&[emit::state(&thread.messages)], usage);
}

/// End the turn with an error line (the HTTP status is already 200).
fn fail(shared: &Shared, chat_id: &str, run: &Arc<Run>, message: &str) {
    let mut world = shared.world();
    if let Some(thread) = world.threads.get_mut(chat_id)
        && thread.running.as_ref().is_some_and(|r| Arc::ptr_eq(r, run))
    {
        thread.running = None;
        thread.answered.insert(run.message_id.clone());
    }
    run.finish(&[], &[emit::error_line(message)]);
}

/// A finished tool call of the agent's frames.
struct DoneCall {
    id: String,
    name: String,
    /// The input, parsed.
    input: Value,
    /// The result's JSON text.
    result: String,
}

/// The agent's frames, read with the client's parser.
fn parsed(frames: &[Value]) -> impl Iterator<Item = Frame> + '_ {
    frames
        .iter()
        .filter_map(|f| serde_json::from_value::<Frame>(f.clone()).ok())
}

/// Completed tool calls of the agent's frames.
fn tool_calls(frames: &[Value]) -> Vec<DoneCall> {
    parsed(frames)
        .filter_map(|f| {
            let call = f.tool_call?;
            let result = call.result.0.filter(|r| !r.is_null())?;
            Some(DoneCall {
                id: f.id.0.unwrap_or_default(),
                name: call.name.0.unwrap_or_default(),
                input: call.input.as_ref().map_or(Value::Null, parse_input),
                result: result
                    .as_str()
                    .map_or_else(|| result.to_string(), str::to_owned),
            })
        })
        .collect()
}

/// `__usage__` of a turn ended before the agent produced anything.
fn no_usage() -> Value {
    emit::usage(&emit::Usage {
        models: vec![MODEL.to_owned()],
        ..emit::Usage::default()
    })
}

/// `__usage__`: token counts derived from text lengths (about four characters a token), so the
/// same turn always reports the same usage.
fn usage_frame(agent: &AgentRun, prompt_chars: usize) -> Value {
    let calls = tool_calls(&agent.frames).len();
    let output_chars: usize = parsed(&agent.frames)
        .filter(|f| !f.is_delta())
        .map(|f| {
            let text = |t: &Option<String>| t.as_deref().map_or(0, str::len);
            let input =
                f.tool_call
                    .as_ref()
                    .and_then(|c| c.input.as_ref())
                    .map_or(0, |i| match i {
                        Value::String(s) => s.len(),
                        other => other.to_string().len(),
                    });
            text(&f.content) + text(&f.thinking) + input
        })
        .sum();
    // Each LLM call reads the prompt again, plus what earlier calls produced.
    let input_tokens = (prompt_chars.div_ceil(4) + 400) * (calls + 1);
    let output_tokens = output_chars.div_ceil(4);
    emit::usage(&emit::Usage {
        models: vec![MODEL.to_owned()],
        llm_calls: calls as u64 + 1,
        input_tokens: input_tokens as u64,
        output_tokens: output_tokens as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_is_deterministic_and_counts_tool_calls() {
        let agent = AgentRun {
            frames: vec![
                json!({"id": "t", "toolCall": {"name": "dataSqlApi", "input": {"sqlQuery": "SELECT 1"}}, "isInProcess": true, "isDelta": false}),
                json!({"id": "t", "toolCall": {"name": "dataSqlApi", "input": "{\"sqlQuery\":\"SELECT 1\"}", "result": "{\"data\":[]}"}, "isInProcess": false}),
                json!({"id": "a", "content": "Hello", "isDelta": true}),
                json!({"id": "a", "content": "Hello world", "isDelta": false}),
            ],
            answer: "Hello world".into(),
            ..Default::default()
        };
        let u = usage_frame(&agent, 40);
        assert_eq!(u["usage"]["llmCalls"], 2);
        assert_eq!(u["usage"], usage_frame(&agent, 40)["usage"]);
        let calls = tool_calls(&agent.frames);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].input, json!({"sqlQuery": "SELECT 1"}));
    }
}
