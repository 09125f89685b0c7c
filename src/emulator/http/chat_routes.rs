//! `stream-chat-state` and `abort`: path, auth and body checks, then the thread logic: read,
//! new turn, resubscribe to the running turn, or replay of an answered one.

// Handlers return `Result<_, Response>` so `?` can answer early; the error is built once per
// request and handed straight to axum, so boxing it would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

use super::auth::{self, ChatCaller};
use super::body_check;
use super::chat_stream;
use super::external_users::UserKey;
use super::faults::LineFaults;
use super::ids::uuid;
use super::responses::{error, field_error};
use super::shared::{Shared, World, read_body};
use super::threads::MAX_TURNS;
use super::turn::{self, TurnFaults};
use crate::emulator::engine::AgentRequest;
use crate::protocol::chat::{AbortRequest, is_valid_message_id};
use crate::protocol::emit;
use crate::protocol::{ChatRequest, SessionSettings};
use axum::Extension;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::sync::Arc;

/// Largest chat body without images.
const MAX_BODY: usize = 1 << 20;
/// Largest chat body with images.
const MAX_BODY_WITH_IMAGES: usize = 10 << 20;

/// `POST .../agents/{agent}/chat/stream-chat-state`.
pub(crate) async fn agent_chat(
    State(shared): State<Arc<Shared>>,
    Path((account, agent)): Path<(String, String)>,
    Extension(lines): Extension<LineFaults>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    chat(&shared, &account, &agent, false, &headers, body, lines)
        .await
        .unwrap_or_else(|r| r)
}

/// `POST .../deployments/{id}/chat/stream-chat-state`: token auth only.
pub(crate) async fn deployment_chat(
    State(shared): State<Arc<Shared>>,
    Path((account, deployment)): Path<(String, String)>,
    Extension(lines): Extension<LineFaults>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    chat(&shared, &account, &deployment, true, &headers, body, lines)
        .await
        .unwrap_or_else(|r| r)
}

/// `POST .../agents/{agent}/chat/abort`.
pub(crate) async fn agent_abort(
    State(shared): State<Arc<Shared>>,
    Path((account, agent)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    abort(&shared, &account, &agent, false, &headers, body)
        .await
        .unwrap_or_else(|r| r)
}

/// `POST .../deployments/{id}/chat/abort`.
pub(crate) async fn deployment_abort(
    State(shared): State<Arc<Shared>>,
    Path((account, deployment)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    abort(&shared, &account, &deployment, true, &headers, body)
        .await
        .unwrap_or_else(|r| r)
}

type Outcome = Result<Response, Response>;

/// The checks every chat and abort request passes: account, agent, credentials, JSON body.
/// Returns the caller, the body as JSON and its size.
async fn admit(
    shared: &Shared,
    account: &str,
    agent: &str,
    token_only: bool,
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<(ChatCaller, Value, usize), Response> {
    if account != shared.account {
        return Err(error(
            StatusCode::NOT_FOUND,
            format!("account {account:?} not found"),
        ));
    }
    if agent != shared.agent {
        let what = if token_only { "deployment" } else { "agent" };
        return Err(error(
            StatusCode::NOT_FOUND,
            format!("{what} {agent:?} not found in account {account:?}"),
        ));
    }
    let caller = auth::caller_of(shared, headers, token_only)?;
    let bytes = read_body(body, limit).await.map_err(|too_big| {
        error(
            too_big,
            format!("the body is larger than {} MiB", limit >> 20),
        )
    })?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        field_error(
            StatusCode::BAD_REQUEST,
            "body",
            format!("the body is not JSON: {e}"),
        )
    })?;
    Ok((caller, value, bytes.len()))
}

/// The identity of the request: the token's claims, or the checked `sessionSettings`.
fn identity(
    caller: ChatCaller,
    sent: SessionSettings,
    shared: &Shared,
) -> Result<SessionSettings, Response> {
    let settings = match caller {
        ChatCaller::Token(claims) => *claims,
        ChatCaller::ApiKey => {
            sent.validate()
                .map_err(|e| field_error(StatusCode::BAD_REQUEST, e.field, e.problem))?;
            sent
        }
    };
    for (i, attr) in settings.user_attributes.iter().flatten().enumerate() {
        if !shared.attributes.contains(&attr.name) {
            let known = if shared.attributes.is_empty() {
                "the model declares none".to_owned()
            } else {
                format!("the model's are: {}", shared.attributes.join(", "))
            };
            return Err(field_error(
                StatusCode::BAD_REQUEST,
                &format!("sessionSettings.userAttributes[{i}].name"),
                format!("unknown user attribute {:?} ({known})", attr.name),
            ));
        }
    }
    Ok(settings)
}

/// Find or create the chat user; internal users must be active SCIM users.
fn user_key(
    world: &mut World,
    s: &SessionSettings,
    now_ms: u64,
    create: bool,
) -> Result<UserKey, Response> {
    if let Some(name) = &s.internal_id {
        // An unknown user is a parameter the body got wrong (400, as PROTOCOL.md's table has
        // it; a 403 would read as refused credentials); a deactivated one is refused (403).
        let user = world.scim.by_user_name(name).ok_or_else(|| {
            field_error(
                StatusCode::BAD_REQUEST,
                "sessionSettings.internalId",
                format!("internal user {name:?} does not exist (provision it with SCIM first)"),
            )
        })?;
        if !user.active() {
            return Err(field_error(
                StatusCode::FORBIDDEN,
                "sessionSettings.internalId",
                format!("internal user {name:?} is deactivated"),
            ));
        }
        return Ok(UserKey::Internal(user.id.clone()));
    }
    let id = s.external_id.clone().unwrap_or_default();
    if create {
        world
            .externals
            .touch(s, now_ms)
            .map_err(|r| field_error(StatusCode::FORBIDDEN, r.field, r.message))?;
    }
    Ok(UserKey::External(id))
}

/// Expire users whose time has come, with their threads.
fn sweep(world: &mut World, now_ms: u64) {
    let gone = world.externals.sweep(now_ms);
    world.threads.remove(&gone);
}

fn thread_of<'w>(
    world: &'w mut World,
    chat_id: &str,
    key: &UserKey,
) -> Result<&'w mut super::threads::Thread, Response> {
    let thread = world.threads.get_mut(chat_id).ok_or_else(|| {
        error(
            StatusCode::NOT_FOUND,
            format!("thread {chat_id:?} not found"),
        )
    })?;
    if &thread.owner != key {
        return Err(error(
            StatusCode::FORBIDDEN,
            format!("thread {chat_id:?} belongs to another user"),
        ));
    }
    Ok(thread)
}

async fn chat(
    shared: &Arc<Shared>,
    account: &str,
    agent: &str,
    token_only: bool,
    headers: &HeaderMap,
    body: Body,
    lines: LineFaults,
) -> Outcome {
    let (req, settings) =
        checked_request(shared, account, agent, token_only, headers, body).await?;
    let now = shared.clock.now_ms();
    let mut world = shared.world();
    sweep(&mut world, now);
    let key = user_key(&mut world, &settings, now, req.input.is_some())?;
    let shutdown = shared.shutdown.clone();
    let Some(input) = req.input.clone() else {
        let head = read_state(shared, &mut world, &req, &key)?;
        return Ok(chat_stream::respond(head, None, lines, shutdown));
    };
    // A message resent without its chatId (a client that lost the connection before the
    // `__cutoff__` named the thread) goes to the thread it started, as a resubscribe.
    let known = req.chat_id.clone().or_else(|| {
        req.message_id
            .as_deref()
            .and_then(|m| world.threads.thread_of_message(&key, m))
    });
    let chat_id = match known {
        Some(chat_id) => match continue_thread(shared, &mut world, &req, &key, chat_id)? {
            Next::Turn(chat_id) => chat_id,
            Next::Respond(head, joined) => {
                return Ok(chat_stream::respond(head, joined, lines, shutdown));
            }
        },
        None => new_thread(&mut world, &key)?,
    };
    let message_id = req
        .message_id
        .clone()
        .unwrap_or_else(|| shared.clock.next_message_id());
    world.threads.note_message(&key, &message_id, &chat_id);
    let thread = thread_of(&mut world, &chat_id, &key)?;
    let prompt_chars = input.len()
        + thread
            .messages
            .iter()
            .filter_map(|m| m["kwargs"]["content"].as_str())
            .map(str::len)
            .sum::<usize>();
    let history = thread.history.clone();
    let run = turn::begin(thread, &message_id, &input);
    drop(world);
    let branch = match req.is_default_branch {
        Some(true) => None,
        _ => req.active_branch_name.clone(),
    };
    let agent_req = AgentRequest {
        question: input,
        history,
        user_attributes: settings
            .user_attributes
            .iter()
            .flatten()
            .map(|a| (a.name.clone(), a.value.clone()))
            .collect(),
        branch,
        message_id,
        today: shared.today.unwrap_or_else(|| shared.clock.today()),
        dialect: shared.dialect,
    };
    let faults = TurnFaults {
        suspend_after: lines.suspend_after,
        hold_after: lines.hold_after,
    };
    tokio::spawn(turn::drive(
        shared.clone(),
        chat_id.clone(),
        run.clone(),
        agent_req,
        faults,
        prompt_chars,
    ));
    // `isStreaming` tells whether the thread was streaming when the request arrived: not on a
    // fresh send (a resubscribe says true).
    let head = vec![turn::cutoff(shared.dialect, &chat_id, false)];
    Ok(chat_stream::respond(head, Some((run, 0)), lines, shutdown))
}

/// The request admitted (auth, size, shape) and checked field by field as the service checks
/// it, with the identity it speaks for.
async fn checked_request(
    shared: &Arc<Shared>,
    account: &str,
    agent: &str,
    token_only: bool,
    headers: &HeaderMap,
    body: Body,
) -> Result<(ChatRequest, SessionSettings), Response> {
    let (caller, mut value, size) = admit(
        shared,
        account,
        agent,
        token_only,
        headers,
        body,
        MAX_BODY_WITH_IMAGES,
    )
    .await?;
    let need_session = matches!(caller, ChatCaller::ApiKey);
    if !need_session && let Some(body) = value.as_object_mut() {
        // PROTOCOL.md: under token auth `sessionSettings` is ignored, whatever its shape.
        body.remove("sessionSettings");
    }
    body_check::chat_body(&value, need_session)
        .map_err(|e| field_error(StatusCode::BAD_REQUEST, &e.field, e.message))?;
    let has_images = value
        .get("images")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if size > MAX_BODY && !has_images {
        return Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the body is larger than 1 MiB (10 MiB with images)",
        ));
    }
    if value.get("sessionSettings").is_none_or(Value::is_null) {
        value["sessionSettings"] = serde_json::json!({}); // a token carries the identity
    }
    let req: ChatRequest = serde_json::from_value(value)
        .map_err(|e| field_error(StatusCode::BAD_REQUEST, "body", e.to_string()))?;
    let settings = identity(caller, req.session_settings.clone(), shared)?;
    if let Some(id) = req
        .message_id
        .as_deref()
        .filter(|id| !is_valid_message_id(id))
    {
        return Err(field_error(
            StatusCode::BAD_REQUEST,
            "messageId",
            format!("{id:?} does not match ^\\d{{13,}}-message$"),
        ));
    }
    if req.input.as_deref().is_some_and(|i| i.trim().is_empty()) {
        return Err(field_error(
            StatusCode::BAD_REQUEST,
            "input",
            "must not be empty",
        ));
    }
    Ok((req, settings))
}

/// A read (no input): the thread's state, and whether it is streaming.
fn read_state(
    shared: &Shared,
    world: &mut World,
    req: &ChatRequest,
    key: &UserKey,
) -> Result<Vec<axum::body::Bytes>, Response> {
    let chat_id = req.chat_id.as_deref().ok_or_else(|| {
        field_error(
            StatusCode::BAD_REQUEST,
            "chatId",
            "a read (no input) needs a chatId",
        )
    })?;
    let thread = thread_of(world, chat_id, key)?;
    Ok(vec![
        turn::cutoff(shared.dialect, chat_id, thread.running.is_some()),
        state_line(&thread.messages),
    ])
}

/// What a message to an existing thread leads to.
enum Next {
    /// A new turn on this thread.
    Turn(String),
    /// An answer without a new turn: these head lines, then the running turn joined where it
    /// is (a resubscribe), or nothing more.
    Respond(
        Vec<axum::body::Bytes>,
        Option<(Arc<super::threads::Run>, usize)>,
    ),
}

/// A message to an existing thread: refused while another message streams, joined when it is
/// the streaming one (a resubscribe, which also resumes a suspended turn), answered with the
/// state when it was answered already, else a new turn.
fn continue_thread(
    shared: &Shared,
    world: &mut World,
    req: &ChatRequest,
    key: &UserKey,
    chat_id: String,
) -> Result<Next, Response> {
    let thread = thread_of(world, &chat_id, key)?;
    if let Some(run) = &thread.running {
        if req.message_id.as_deref() != Some(run.message_id.as_str()) {
            // The service refuses with 400 (not 409) and this exact message; docs and
            // legacy servers send it as an error line in a 200.
            const BUSY: &str = "Streaming for thread is in progress";
            if !shared.dialect.http_refusals() {
                return Ok(Next::Respond(
                    vec![turn::line(&emit::error_line(BUSY))],
                    None,
                ));
            }
            return Err(error(StatusCode::BAD_REQUEST, BUSY));
        }
        let run = run.clone();
        let start = run.position();
        run.set_paused(false);
        let head = vec![turn::cutoff(shared.dialect, &chat_id, true)];
        return Ok(Next::Respond(head, Some((run, start))));
    }
    if req
        .message_id
        .as_ref()
        .is_some_and(|m| thread.answered.contains(m))
    {
        // That message was answered already: never a second answer; send the state.
        let head = vec![
            turn::cutoff(shared.dialect, &chat_id, false),
            state_line(&thread.messages),
        ];
        return Ok(Next::Respond(head, None));
    }
    if thread.answered.len() >= MAX_TURNS {
        return Err(field_error(
            StatusCode::BAD_REQUEST,
            "chatId",
            format!("the thread has {MAX_TURNS} turns, the emulator's limit; start a new thread"),
        ));
    }
    Ok(Next::Turn(chat_id))
}

/// A new thread for `key`, if the user has room for one.
fn new_thread(world: &mut World, key: &UserKey) -> Result<String, Response> {
    world
        .threads
        .room_for(key)
        .map_err(|why| error(StatusCode::FORBIDDEN, why))?;
    let chat_id = uuid();
    if let UserKey::External(ext) = key {
        world.externals.add_thread(ext, &chat_id);
    }
    world.threads.insert(chat_id.clone(), key.clone());
    Ok(chat_id)
}

fn state_line(messages: &[Value]) -> axum::body::Bytes {
    // `__state__` follows `__cutoff__` (sort 0) on a read.
    turn::line(&emit::with_sort(&emit::state(messages), 1))
}

async fn abort(
    shared: &Arc<Shared>,
    account: &str,
    agent: &str,
    token_only: bool,
    headers: &HeaderMap,
    body: Body,
) -> Outcome {
    let (caller, mut value, _) =
        admit(shared, account, agent, token_only, headers, body, MAX_BODY).await?;
    let need_session = matches!(caller, ChatCaller::ApiKey);
    if !need_session && let Some(body) = value.as_object_mut() {
        body.remove("sessionSettings"); // ignored under token auth, as for chat
    }
    body_check::abort_body(&value, need_session)
        .map_err(|e| field_error(StatusCode::BAD_REQUEST, &e.field, e.message))?;
    if value.get("sessionSettings").is_none_or(Value::is_null) {
        value["sessionSettings"] = serde_json::json!({});
    }
    let req: AbortRequest = serde_json::from_value(value)
        .map_err(|e| field_error(StatusCode::BAD_REQUEST, "body", e.to_string()))?;
    let settings = identity(caller, req.session_settings, shared)?;
    let now = shared.clock.now_ms();
    let mut world = shared.world();
    sweep(&mut world, now);
    let key = user_key(&mut world, &settings, now, false)?;
    let thread = thread_of(&mut world, &req.chat_id, &key)?;
    // Aborting a thread that is not streaming succeeds too: the outcome the caller wants holds.
    turn::abort(thread, shared.dialect);
    Ok(StatusCode::NO_CONTENT.into_response())
}
