//! One chat turn, carried through dropped connections and suspensions (CLI.md, "Resume").
//!
//! The message is sent once. After that, the only requests are state reads (no `input`, no
//! `messageId`) and, while the thread is still streaming, resends of the very same request
//! (same `messageId`, and the `chatId` learned from `__cutoff__`), which the service attaches
//! to the running stream instead of starting a second answer.

use super::chat::ChatClient;
use crate::client::body::{Ended, read_body};
use crate::exit::{Status, fail, status_of};
use crate::protocol::thread::{StateMessage, state_messages};
use crate::protocol::{ChatRequest, Frame, FrameKind};
use crate::stream::lines::{Framed, Lines};
use crate::stream::tracker::{
    Feed, Sink, Source, StreamError, Tracker, Whole, classify_error, judge_whole_body,
};
use anyhow::Result;
use std::time::Duration;

/// The longest pause between two recovery attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How to run a turn.
#[derive(Clone, Debug)]
pub struct TurnPlan {
    /// The message request, exactly as first sent.
    pub request: ChatRequest,
    /// How many recoveries (state read plus resend) a run may use.
    pub retries: u32,
    /// The longest wait for the next byte.
    pub idle: Duration,
    /// The first pause before a recovery; it doubles each time, up to [`MAX_BACKOFF`].
    pub backoff: Duration,
}

/// Run one turn: send the message, stream the answer into `sink`, and recover from drops.
/// Failures the stream reports are left in `tracker` for the caller to turn into a status;
/// errors returned are HTTP or output failures.
pub async fn converse(
    client: &ChatClient,
    plan: &TurnPlan,
    tracker: &mut Tracker,
    sink: &mut dyn Sink,
) -> Result<()> {
    let mut request = plan.request.clone();
    let mut recoveries = 0u32;
    let mut first = true;
    'connections: loop {
        let ended = match client.open(&request, "chat").await {
            Ok(response) => read_connection(response, plan.idle, tracker, sink).await?,
            // A resend that cannot connect is one more drop; the first send's failure is final.
            Err(e) if !first && status_of(&e) == Status::Network => Ended::Lost(format!("{e:#}")),
            Err(e) => return Err(e),
        };
        first = false;
        if request.chat_id.is_none() {
            request.chat_id = tracker.chat_id.clone();
        }
        if tracker.error.is_some() {
            return Ok(());
        }
        // A pending suspension comes first, whatever followed it (`__usage__` does).
        if tracker.suspended.is_some() {
            // The service resumes a suspended turn on the same request, at once.
            if recoveries < plan.retries {
                recoveries += 1;
                tracker.reconnected();
                continue;
            }
            return Ok(());
        }
        if tracker.ended {
            return Ok(());
        }
        let mut why = match ended {
            Ended::Closed => "the stream closed before its end (no __state__)".to_owned(),
            Ended::Lost(why) => why,
        };
        loop {
            if recoveries >= plan.retries {
                tracker.lost = Some(gave_up(plan.retries, &why));
                return Ok(());
            }
            let Some(chat_id) = request.chat_id.clone() else {
                tracker.lost = Some(format!(
                    "connection lost: {why}; the thread id never arrived, so the turn cannot be resumed"
                ));
                return Ok(());
            };
            tokio::time::sleep(backoff(plan.backoff, recoveries)).await;
            recoveries += 1;
            match read_state(client, &read_request(&request), plan.idle).await {
                Ok(probe) if probe.streaming => {
                    tracker.reconnected();
                    continue 'connections;
                }
                Ok(probe) if !saw_echo(tracker, &request) && !probe.holds(&request) => {
                    // This message's echo never arrived (a `__cutoff__` may have), and the
                    // thread, idle, does not hold the message: it never reached the service.
                    // Its last answer is another question's, so it is not shown as this one's.
                    tracker.lost = Some(format!(
                        "connection lost: {why}; thread {chat_id} is idle and holds no turn for \
                         this message (its last message is another one), so it was not answered: \
                         send it again"
                    ));
                    return Ok(());
                }
                Ok(probe) => {
                    // The turn finished while we were away: the read's own lines carry the
                    // answer, so they are shown and saved (its `__cutoff__` marks the gap).
                    return show_state_read(tracker, sink, &probe);
                }
                Err(e) if status_of(&e) == Status::Network => {
                    why = format!("{e:#} (reading the state of thread {chat_id})");
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Whether the stream echoed `request`'s message (so it reached the thread).
fn saw_echo(tracker: &Tracker, request: &ChatRequest) -> bool {
    tracker
        .message_id
        .as_deref()
        .is_some_and(|seen| request.message_id.as_deref().is_none_or(|id| id == seen))
}

/// The pause before recovery number `n` (from 0).
pub fn backoff(base: Duration, n: u32) -> Duration {
    base.saturating_mul(1u32 << n.min(16)).min(MAX_BACKOFF)
}

/// The state read for a request: same thread and identity, without `input`, `messageId` or
/// images.
pub fn read_request(request: &ChatRequest) -> ChatRequest {
    ChatRequest {
        input: None,
        message_id: None,
        images: None,
        ..request.clone()
    }
}

/// The Content-Type a response declared.
fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// What a state read told, with its lines (a read is short: `__cutoff__` and `__state__`).
#[derive(Debug, Default)]
pub struct StateProbe {
    /// `__cutoff__`'s `state.isStreaming`.
    pub streaming: bool,
    /// The read's lines as received.
    pub lines: Vec<Vec<u8>>,
    /// The response's Content-Type.
    pub content_type: Option<String>,
    /// An error line of the read, classified as the stream's are (an auth refusal is 3).
    error: Option<StreamError>,
    /// `__cutoff__` arrived (an error before it that speaks of keys is a refusal).
    cutoff: bool,
    /// The ids of the user echoes among the read's frames.
    echoes: Vec<String>,
    /// The thread's last user message in the read's `__state__`, if it has one.
    last_user: Option<StateMessage>,
    /// `__state__` arrived.
    whole: bool,
    /// A frame of the stream came (an `id`, `role` or `type`, or an error line).
    frames: bool,
}

impl StateProbe {
    /// Whether the thread holds `request`'s message: a user echo with its `messageId`, or a
    /// `__state__` whose last user message is it (by id, or else by its text).
    pub fn holds(&self, request: &ChatRequest) -> bool {
        let id = request.message_id.as_deref();
        if id.is_some_and(|id| self.echoes.iter().any(|e| e == id)) {
            return true;
        }
        let Some(last) = &self.last_user else {
            return false;
        };
        match (&last.id, id) {
            (Some(found), Some(id)) if found == id => true,
            _ => request
                .input
                .as_deref()
                .is_some_and(|input| last.text.trim() == input.trim()),
        }
    }
}

impl Lines for StateProbe {
    fn line(&mut self, raw: &[u8], text: &[u8]) -> Result<()> {
        self.lines.push(raw.to_vec());
        let Some(f) = Frame::parse(text) else {
            return Ok(());
        };
        self.frames |= f.is_of_stream() || f.kind() == FrameKind::Error;
        match f.kind() {
            FrameKind::Cutoff => {
                self.cutoff = true;
                self.streaming = f.is_streaming().unwrap_or(false);
            }
            FrameKind::Error => self.error = Some(classify_error(&f, !self.cutoff)),
            FrameKind::UserEcho => self.echoes.extend(f.id.0.clone()),
            FrameKind::State => {
                self.whole = true;
                self.last_user = f.state.as_ref().and_then(|state| {
                    state_messages(state)
                        .into_iter()
                        .rev()
                        .find(|m| m.role == "user")
                });
            }
            _ => {}
        }
        Ok(())
    }
}

/// Feeds one connection's lines through the tracker to the sink, until the body ends or
/// breaks off (a line cut short counts as lost).
async fn read_connection(
    mut response: reqwest::Response,
    idle: Duration,
    tracker: &mut Tracker,
    sink: &mut dyn Sink,
) -> Result<Ended> {
    tracker.source(Source::Response(content_type(&response)));
    let mut conn = Feed::new(tracker, sink);
    let mut framed = Framed::new(&mut conn);
    let ended = read_body(&mut response, idle, &mut framed).await?;
    if ended != Ended::Closed {
        return Ok(ended);
    }
    let tail = framed.finish_body()?;
    body_ended(tracker, &tail)
}

/// A response's body closed as the server meant it, `tail` the last line it did not hand on
/// ([`Framed::finish_body`]): the tracker says whether the body was whole, cut in the middle of
/// a line (a lost connection), or not the service's stream at all (an error).
pub fn body_ended(tracker: &mut Tracker, tail: &[u8]) -> Result<Ended> {
    Ok(if tracker.body_ended(tail)? {
        Ended::Closed
    } else {
        Ended::Lost("the connection closed in the middle of a line".into())
    })
}

/// Why the turn was given up after `retries` recoveries, for `tracker.lost`.
fn gave_up(retries: u32, why: &str) -> String {
    if retries == 0 {
        format!("connection lost: {why} (--retries 0: not resumed)")
    } else {
        format!("connection lost: {why} (gave up after {retries} attempts)")
    }
}

/// The state read of a turn that finished while we were away: its own lines carry the
/// answer, so they are shown and saved (its `__cutoff__` marks the gap), and the turn ends.
fn show_state_read(tracker: &mut Tracker, sink: &mut dyn Sink, probe: &StateProbe) -> Result<()> {
    tracker.state_read();
    tracker.source(Source::Response(probe.content_type.clone()));
    for raw in &probe.lines {
        let text = raw.strip_suffix(b"\n").unwrap_or(raw);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        tracker.line(raw, text, sink)?;
    }
    sink.chunk_done()?;
    tracker.ended = true;
    Ok(())
}

/// Read a thread's state without showing it: is it still streaming, and what did it answer.
pub async fn read_state(
    client: &ChatClient,
    request: &ChatRequest,
    idle: Duration,
) -> Result<StateProbe> {
    let mut response = client.open(request, "reading the thread state").await?;
    let mut probe = StateProbe {
        content_type: content_type(&response),
        ..StateProbe::default()
    };
    // Masked, as the tracker masks a stream: the read's lines are shown (after a resume, and
    // by MCP `thread_state`), and a key the service echoes in them must not be.
    let mut framed = Framed::masking(&mut probe);
    let ended = read_body(&mut response, idle, &mut framed).await?;
    let tail = match ended {
        Ended::Closed => framed.finish_body()?,
        _ => Vec::new(),
    };
    let ended = match ended {
        Ended::Closed if !probe.frames => {
            // Not one frame of the stream: a body of another kind, said as what it is (the
            // same judgement as a stream's).
            let mut doc = probe.lines.concat();
            doc.extend_from_slice(&tail);
            let one_line = probe.lines.is_empty();
            if doc.trim_ascii().is_empty() {
                Ended::Closed
            } else {
                match judge_whole_body(&doc, probe.content_type.as_deref(), one_line, true)
                    .map_err(|e| e.context("reading the thread state"))?
                {
                    // Said below, as an error line of the read is.
                    Whole::Refusal(e) => {
                        probe.error = Some(e);
                        Ended::Closed
                    }
                    Whole::Cut => {
                        Ended::Lost("the connection closed in the middle of a line".into())
                    }
                }
            }
        }
        Ended::Closed if !tail.is_empty() => {
            Ended::Lost("the connection closed in the middle of a line".into())
        }
        ended => ended,
    };
    match ended {
        Ended::Closed => {}
        Ended::Lost(why) => {
            return Err(fail(
                Status::Network,
                format!("reading the thread state: {why}"),
            ));
        }
    }
    if let Some(e) = probe.error.take() {
        return Err(fail(
            e.status,
            format!(
                "reading the thread state: the service reported: {}",
                e.message
            ),
        ));
    }
    if !probe.whole && !probe.streaming {
        // An empty 200, or one that stops before `__state__` without saying the turn still
        // streams, tells neither whether to resend nor what was answered.
        return Err(fail(
            Status::Network,
            "reading the thread state: the answer closed before its end (no __state__)",
        ));
    }
    Ok(probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let base = Duration::from_millis(200);
        assert_eq!(backoff(base, 0), base);
        assert_eq!(backoff(base, 2), Duration::from_millis(800));
        assert_eq!(backoff(base, 40), MAX_BACKOFF);
        assert_eq!(backoff(Duration::ZERO, 3), Duration::ZERO);
    }

    #[test]
    fn reads_carry_no_input_or_message_id() {
        let req = ChatRequest {
            input: Some("hi".into()),
            message_id: Some("1700000000000-message".into()),
            chat_id: Some("c".into()),
            ..Default::default()
        };
        let read = read_request(&req);
        assert_eq!(read.input, None);
        assert_eq!(read.message_id, None);
        assert_eq!(read.chat_id.as_deref(), Some("c"));
    }
}
