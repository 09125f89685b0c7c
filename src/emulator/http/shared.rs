//! The state every route shares: configuration, the engine, and the mutable world behind one
//! lock; and the one bounded body read the routes use.

use super::clock::Clock;
use super::external_users::ExternalUsers;
use super::faults::Faults;
use super::scim_groups::GroupStore;
use super::scim_http::ListCache;
use super::scim_store::ScimStore;
use super::threads::Threads;
use crate::emulator::engine::Engine;
use crate::protocol::Dialect;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::StatusCode;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

/// Everything the routes share.
pub(crate) struct Shared {
    pub account: String,
    pub agent: String,
    pub api_key: String,
    pub scim_token: String,
    pub scim_root: String,
    /// The HS256 secret of tokens (data API and chat token auth).
    pub data_secret: String,
    /// Data API queries running or streaming now, by `x-request-id`.
    pub running: Mutex<HashMap<String, Arc<RunningQuery>>>,
    pub engine: Arc<Engine>,
    pub attributes: Vec<String>,
    pub clock: Clock,
    /// `--today`, when fixed.
    pub today: Option<(i32, u32, u32)>,
    pub pace: Duration,
    pub faults: Faults,
    /// The wire variant spoken.
    pub dialect: Dialect,
    /// Request log level (`serve -v`, `-vv`).
    pub log: u8,
    /// Becomes true at shutdown; streams and turns end on it.
    pub shutdown: watch::Receiver<bool>,
    pub world: Mutex<World>,
}

/// A data API query from its request until its response ends: cancelling sets `cancelled` (the
/// stream stops) and interrupts the SQLite statement if one is running.
#[derive(Default)]
pub(crate) struct RunningQuery {
    /// Whose query it is (the token's `sub`, else its whole claims): only they may cancel it.
    pub owner: String,
    pub cancelled: std::sync::atomic::AtomicBool,
    /// Set only while the statement runs, and cleared (under this lock) before its connection
    /// returns to the pool, so an interrupt never reaches another query.
    pub interrupt: Mutex<Option<rusqlite::InterruptHandle>>,
}

impl RunningQuery {
    /// Stop the query: the stream ends, the statement is interrupted.
    pub fn cancel(&self) {
        self.cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(h) = self
            .interrupt
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            h.interrupt();
        }
    }
}

/// The mutable state, behind one lock held only briefly (never across an await).
pub(crate) struct World {
    pub scim: ScimStore,
    pub groups: GroupStore,
    /// Recent list matches of Users and Groups, so paging does not filter again.
    pub scim_lists: ListCache,
    pub externals: ExternalUsers,
    pub threads: Threads,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("account", &self.account)
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// The account's API keys: the chat key and the SCIM token, each accepted wherever the
    /// other is (PROTOCOL.md: the SCIM token is an ordinary API key of the account).
    pub fn account_keys(&self) -> [&str; 2] {
        [&self.api_key, &self.scim_token]
    }

    /// Lock the world. A panic elsewhere cannot leave it half-updated in a harmful way, so a
    /// poisoned lock is taken over rather than failing every later request.
    pub fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lock the running data queries (held only to insert, remove or interrupt).
    pub fn running(&self) -> MutexGuard<'_, HashMap<String, Arc<RunningQuery>>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Read a request body of at most `limit` bytes: 413 beyond it (judged from Content-Length
/// before reading when the client sends one), 400 when the body breaks off.
pub(crate) async fn read_body(body: Body, limit: usize) -> Result<Bytes, StatusCode> {
    if usize::try_from(body.size_hint().lower()).map_or(true, |n| n > limit) {
        return Err(StatusCode::PAYLOAD_TOO_LARGE);
    }
    let mut stream = body.into_data_stream();
    let mut buf = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| StatusCode::BAD_REQUEST)?;
        if buf.len() + chunk.len() > limit {
            return Err(StatusCode::PAYLOAD_TOO_LARGE);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}
