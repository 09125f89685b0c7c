//! The emulator's HTTP server: options, start and shutdown, the routes, and the state they
//! share. `analyst serve`, `chat --demo` and the tests all start it through [`start`].

use super::auth::unsigned_token;
use super::chat;
use super::engine::Engine;
use super::faults::{Faults, Target};
use super::reply::{error, random_hex, scim_error};
use super::scim::ScimStore;
use super::scim_routes;
use super::threads::Threads;
use super::users::ExternalUsers;
use anyhow::Context;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use futures_util::StreamExt;
use serde_json::json;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use super::clock::Clock;
pub use super::faults::Fault;
pub use super::threads::SavedThread;

/// How to run the emulator.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Address to listen on; port 0 picks a free one.
    pub listen: SocketAddr,
    /// Account name in the URLs.
    pub account: String,
    /// Agent id (and deployment id) in the URLs.
    pub agent: String,
    /// The API key chat clients must send; generated when `None`.
    pub api_key: Option<String>,
    /// The SCIM token; generated when `None`.
    pub scim_token: Option<String>,
    /// A semantic model (YAML) instead of the built-in one.
    pub model: Option<PathBuf>,
    /// A SQLite database instead of the built-in sample data.
    pub data: Option<PathBuf>,
    /// Delay between frames of a stream.
    pub pace: Duration,
    /// Injected failures.
    pub faults: Vec<Fault>,
    /// Time for expiry, the agent's `today` and generated ids.
    pub clock: Clock,
}

impl ServeOptions {
    /// Loopback on a free port, account `demo`, agent `1`, generated secrets, built-in data.
    pub fn demo() -> ServeOptions {
        ServeOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            account: "demo".into(),
            agent: "1".into(),
            api_key: None,
            scim_token: None,
            model: None,
            data: None,
            pace: Duration::from_millis(5),
            faults: Vec::new(),
            clock: Clock::real(),
        }
    }
}

/// A SCIM user the server starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededUser {
    /// SCIM id.
    pub id: String,
    /// userName, usable as `sessionSettings.internalId`.
    pub user_name: String,
    /// Whether it may chat.
    pub active: bool,
}

/// A started server. Dropping it stops the server too, without waiting.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The full chat URL (ends in `/chat/stream-chat-state`).
    pub chat_url: String,
    /// The SCIM root (ends in `/api/scim/v2`).
    pub scim_url: String,
    /// The API key chat clients must send.
    pub api_key: String,
    /// The SCIM token.
    pub scim_token: String,
    /// An `X-Cube-Auth-Token` the server accepts, for the external user `demo-user`.
    pub token: String,
    /// User attributes that drive row-level security in the model.
    pub attributes: Vec<String>,
    /// The SCIM users seeded at start.
    pub users: Vec<SeededUser>,
    clock: Clock,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl Running {
    /// Finished threads of external users, as data (`chat --demo` keeps them between runs).
    pub fn export_threads(&self) -> Vec<SavedThread> {
        self.shared.world().threads.export()
    }

    /// Threads exported by an earlier run; ids already known are skipped.
    pub fn import_threads(&self, saved: Vec<SavedThread>) {
        self.shared.world().threads.import(saved);
    }

    /// A user attribute the model's policies bind, with a value its data has.
    pub fn attribute_example(&self) -> Option<(String, String)> {
        self.shared.engine.attribute_example()
    }

    /// Stop accepting requests, end open streams, and wait (at most a few seconds) for the end.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(Duration::from_secs(5), &mut task)
                .await
                .is_err()
            {
                task.abort();
            }
        }
    }

    /// The server's clock (advance it to expire ephemeral users in tests).
    pub fn clock(&self) -> Clock {
        self.clock.clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// Everything the routes share.
pub(crate) struct Shared {
    pub account: String,
    pub agent: String,
    pub api_key: String,
    pub scim_token: String,
    pub scim_root: String,
    pub engine: Arc<Engine>,
    pub attributes: Vec<String>,
    pub clock: Clock,
    pub pace: Duration,
    pub faults: Faults,
    /// Becomes true at shutdown; streams and turns end on it.
    pub shutdown: watch::Receiver<bool>,
    world: Mutex<World>,
}

/// The mutable state, behind one lock held only briefly (never across an await).
pub(crate) struct World {
    pub scim: ScimStore,
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
    /// Lock the world. A panic elsewhere cannot leave it half-updated in a harmful way, so a
    /// poisoned lock is taken over rather than failing every later request.
    pub fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Start the emulator: load the engine, bind, and serve in the background.
pub async fn start(opts: ServeOptions) -> anyhow::Result<Running> {
    let today = opts.clock.today();
    let (model, data) = (opts.model.clone(), opts.data.clone());
    let engine = tokio::task::spawn_blocking(move || match (model, data) {
        (None, None) => Engine::sample(today),
        (model, data) => Engine::open(model.as_deref(), data.as_deref(), today),
    })
    .await
    .context("loading the engine")??;
    let listener = tokio::net::TcpListener::bind(opts.listen)
        .await
        .with_context(|| format!("cannot listen on {}", opts.listen))?;
    let addr = listener.local_addr()?;
    // URLs must be usable by a client even when listening on all interfaces.
    let host = match addr.ip() {
        ip if ip.is_unspecified() && ip.is_ipv4() => {
            SocketAddr::from(([127, 0, 0, 1], addr.port()))
        }
        ip if ip.is_unspecified() => SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port())),
        _ => addr,
    };
    let origin = format!("http://{host}");
    let chat_url = format!(
        "{origin}/api/v1/public/{}/agents/{}/chat/stream-chat-state",
        opts.account, opts.agent
    );
    let scim_url = format!("{origin}/api/scim/v2");
    let api_key = opts
        .api_key
        .unwrap_or_else(|| format!("ak_{}", random_hex(16)));
    let scim_token = opts
        .scim_token
        .unwrap_or_else(|| format!("scim_{}", random_hex(16)));
    let scim = ScimStore::seeded(&opts.clock);
    let users = scim
        .all()
        .map(|u| SeededUser {
            id: u.id.clone(),
            user_name: u.user_name().to_owned(),
            active: u.active(),
        })
        .collect();
    let attributes = engine.attribute_names();
    let (stop, shutdown) = watch::channel(false);
    let shared = Arc::new(Shared {
        account: opts.account,
        agent: opts.agent,
        api_key: api_key.clone(),
        scim_token: scim_token.clone(),
        scim_root: scim_url.clone(),
        engine: Arc::new(engine),
        attributes: attributes.clone(),
        clock: opts.clock.clone(),
        pace: opts.pace,
        faults: Faults::new(opts.faults),
        shutdown: shutdown.clone(),
        world: Mutex::new(World {
            scim,
            externals: ExternalUsers::default(),
            threads: Threads::default(),
        }),
    });
    let app = router(shared.clone());
    let mut stopped = shutdown;
    let task = tokio::spawn(async move {
        let signal = async move {
            let _ = stopped.wait_for(|s| *s).await;
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(signal)
            .await
        {
            {
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "analyst: serve: {e}");
            };
        }
    });
    Ok(Running {
        addr,
        chat_url,
        scim_url,
        api_key,
        scim_token,
        token: unsigned_token(&json!({"externalId": "demo-user"})),
        attributes,
        users,
        clock: opts.clock,
        shared,
        stop,
        task: Some(task),
    })
}

fn router(shared: Arc<Shared>) -> Router {
    let public = "/api/v1/public/{account}";
    Router::new()
        .route(
            &format!("{public}/agents/{{agent}}/chat/stream-chat-state"),
            post(chat::agent_chat),
        )
        .route(
            &format!("{public}/agents/{{agent}}/chat/abort"),
            post(chat::agent_abort),
        )
        .route(
            &format!("{public}/deployments/{{deployment}}/chat/stream-chat-state"),
            post(chat::deployment_chat),
        )
        .route(
            &format!("{public}/deployments/{{deployment}}/chat/abort"),
            post(chat::deployment_abort),
        )
        .route(
            "/api/scim/v2/Users",
            get(scim_routes::list).post(scim_routes::create),
        )
        .route(
            "/api/scim/v2/Users/{id}",
            get(scim_routes::get_one)
                .put(scim_routes::replace)
                .patch(scim_routes::patch)
                .delete(scim_routes::delete),
        )
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such endpoint") })
        .layer(middleware::from_fn_with_state(
            shared.clone(),
            inject_faults,
        ))
        .with_state(shared)
}

/// Apply `--fault` delays and statuses before the route runs, and hand line faults to it.
async fn inject_faults(
    State(shared): State<Arc<Shared>>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    let target = if path.starts_with("/api/scim/") {
        Some(Target::Scim)
    } else if path.ends_with("/chat/abort") {
        Some(Target::Abort)
    } else if path.ends_with("/chat/stream-chat-state") {
        Some(Target::Chat)
    } else {
        None
    };
    let injected = target
        .map(|t| shared.faults.on_request(t))
        .unwrap_or_default();
    if !injected.delay.is_zero() {
        let mut stop = shared.shutdown.clone();
        tokio::select! {
            _ = tokio::time::sleep(injected.delay) => {}
            _ = stop.wait_for(|s| *s) => {}
        }
    }
    if let Some((code, retry_after, spec)) = injected.status {
        let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let message = format!("injected fault ({spec}): HTTP {code}");
        let mut resp = match target {
            Some(Target::Scim) => scim_error(status, None, &message),
            _ => error(status, message),
        };
        if let Some(secs) = retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        return resp;
    }
    req.extensions_mut().insert(injected.lines);
    next.run(req).await
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
