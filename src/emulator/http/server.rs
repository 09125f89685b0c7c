//! The emulator's HTTP server: options, start and shutdown. `analyst serve`, `chat --demo` and the tests all start it through [`start`].

use super::auth::signed_token;
use super::external_users::ExternalUsers;
use super::faults::Faults;
use super::ids::random_hex;
use super::router::router;
pub use super::scim_seed::ScimSeed;
use super::scim_store::ScimStore;
use super::shared::{Shared, World};
use super::threads::Threads;
use crate::emulator::engine::Engine;
pub use crate::protocol::Dialect;
use anyhow::Context;
use serde_json::json;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use super::clock::Clock;
pub use super::faults::Fault;
pub use super::threads::SavedThread;
pub use crate::emulator::engine::keep_samples_in;

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
    /// The HS256 secret of tokens (data API, chat token auth); generated when `None`.
    pub data_secret: Option<String>,
    /// A semantic model (YAML) instead of the built-in one.
    pub model: Option<PathBuf>,
    /// The user's data instead of the built-in sample: one SQLite file, or CSV files.
    pub data: Vec<PathBuf>,
    /// Delay between frames of a stream.
    pub pace: Duration,
    /// Injected failures.
    pub faults: Vec<Fault>,
    /// Time for expiry, the agent's `today` and generated ids.
    pub clock: Clock,
    /// `--today`: the date the agent resolves relative periods against (default: the clock's).
    pub today: Option<(i32, u32, u32)>,
    /// The wire variant to speak (PROTOCOL.md, "Wire variants").
    pub dialect: Dialect,
    /// Request log on stderr: 0 none, 1 one line per request, 2 also bodies (secrets masked).
    pub log: u8,
    /// The SCIM users and groups at start (default: the sample's).
    pub scim: ScimSeed,
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
            data_secret: None,
            model: None,
            data: Vec::new(),
            pace: Duration::from_millis(5),
            faults: Vec::new(),
            clock: Clock::real(),
            today: None,
            dialect: Dialect::Seed,
            log: 0,
            scim: ScimSeed::default(),
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

/// A SCIM group the server starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededGroup {
    /// SCIM id.
    pub id: String,
    /// displayName.
    pub display_name: String,
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
    /// The data query API root (ends in `/cubejs-api`).
    pub data_url: String,
    /// A data API token for the demo user (`sub` `demo-user`, no attributes).
    pub data_token: String,
    /// The HS256 secret every token is signed with.
    pub data_secret: String,
    /// User attributes that drive row-level security in the model.
    pub attributes: Vec<String>,
    /// The SCIM users seeded at start (synthetic ones, `--scim-users`, left out).
    pub users: Vec<SeededUser>,
    /// The SCIM groups seeded at start.
    pub groups: Vec<SeededGroup>,
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
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(5), &mut task)
                .await
                .is_err()
        {
            task.abort();
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

/// Start the emulator: load the engine, bind, and serve in the background.
pub async fn start(opts: ServeOptions) -> anyhow::Result<Running> {
    // The sample runs up to the emulator's today: `--today`, else the clock's date at start.
    let today = opts.today.unwrap_or_else(|| opts.clock.today());
    let engine = load_engine(opts.model.clone(), opts.data.clone(), Some(today)).await?;
    let listener = tokio::net::TcpListener::bind(opts.listen)
        .await
        .with_context(|| format!("cannot listen on {}", opts.listen))?;
    let addr = listener.local_addr()?;
    let origin = client_origin(addr);
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
    let data_secret = opts
        .data_secret
        .unwrap_or_else(|| format!("ds_{}", random_hex(24)));
    let (scim, groups) = opts
        .scim
        .build(&opts.clock)
        .context("the SCIM users and groups")?;
    let users = seeded_users(&scim, scim.len() - opts.scim.synthetic_users);
    let seeded_groups = groups
        .all()
        .map(|g| SeededGroup {
            id: g.id.clone(),
            display_name: g.display_name.clone(),
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
        data_secret: data_secret.clone(),
        running: Mutex::new(Default::default()),
        engine: Arc::new(engine),
        attributes: attributes.clone(),
        clock: opts.clock.clone(),
        today: opts.today,
        pace: opts.pace,
        faults: Faults::new(opts.faults),
        dialect: opts.dialect,
        log: opts.log,
        shutdown: shutdown.clone(),
        world: Mutex::new(World {
            scim,
            groups,
            scim_lists: Default::default(),
            externals: ExternalUsers::default(),
            threads: Threads::default(),
        }),
    });
    let task = serve_in_background(listener, router(shared.clone()), shutdown);
    Ok(Running {
        addr,
        chat_url,
        scim_url,
        api_key,
        scim_token,
        token: signed_token(&json!({"externalId": "demo-user"}), &data_secret),
        data_url: format!("{origin}/cubejs-api"),
        data_token: data_token("demo-user", &[], &data_secret),
        data_secret,
        attributes,
        users,
        groups: seeded_groups,
        clock: opts.clock,
        shared,
        stop,
        task: Some(task),
    })
}

/// The engine from the model and data files, or the sample as of `today` when neither is
/// given; loaded on a blocking thread.
async fn load_engine(
    model: Option<PathBuf>,
    data: Vec<PathBuf>,
    today: Option<(i32, u32, u32)>,
) -> anyhow::Result<Engine> {
    tokio::task::spawn_blocking(move || Engine::open_files(model.as_deref(), &data, today))
        .await
        .context("loading the engine")?
}

/// `http://host:port` for clients: loopback in place of an unspecified address, so URLs are
/// usable even when listening on all interfaces.
fn client_origin(addr: SocketAddr) -> String {
    let host = match addr.ip() {
        ip if ip.is_unspecified() && ip.is_ipv4() => {
            SocketAddr::from(([127, 0, 0, 1], addr.port()))
        }
        ip if ip.is_unspecified() => SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port())),
        _ => addr,
    };
    format!("http://{host}")
}

/// The first `n` seeded SCIM users (the synthetic ones come after), as the tests see them.
fn seeded_users(scim: &ScimStore, n: usize) -> Vec<SeededUser> {
    scim.all()
        .take(n)
        .map(|u| SeededUser {
            id: u.id.clone(),
            user_name: u.user_name().to_owned(),
            active: u.active(),
        })
        .collect()
}

/// Serves `app` on `listener` in a task until `shutdown` turns true.
fn serve_in_background(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    mut stopped: watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let signal = async move {
            let _ = stopped.wait_for(|s| *s).await;
        };
        // Without TCP_NODELAY a response on a kept-alive connection waits out the client's
        // delayed ACK (40 ms a turn): clients that reuse connections (eval, mcp) would crawl.
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(signal)
            .await
        {
            {
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "analyst: serve: {e}");
            };
        }
    })
}

/// A data API token for `user` with these user attributes (several values of one name become a
/// list: any of them), signed with `secret`.
pub fn data_token(user: &str, attributes: &[(String, String)], secret: &str) -> String {
    let mut attrs = serde_json::Map::new();
    for (name, value) in attributes {
        match attrs.get_mut(name) {
            None => {
                attrs.insert(name.clone(), json!(value));
            }
            Some(serde_json::Value::Array(list)) => list.push(json!(value)),
            Some(first) => *first = json!([first.clone(), value]),
        }
    }
    signed_token(
        &json!({"sub": user, "userAttributes": attrs, "groups": []}),
        secret,
    )
}
