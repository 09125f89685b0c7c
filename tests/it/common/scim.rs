//! Shared by the `scim_*` tests: the binary in an environment cut off from the user's, and
//! scripted HTTP servers that record what they received.

use super::isolation;
use axum::body::Body;
use axum::http::{HeaderMap, Request, Response, StatusCode};
use std::sync::{Arc, Mutex};

/// The `analyst` binary, cut off from the user's environment (see `tests/common/isolation.rs`).
pub fn analyst(home: &tempfile::TempDir) -> assert_cmd::Command {
    assert_cmd::Command::from_std(isolation::isolated(home.path()))
}

/// The same isolation for a plain `std::process::Command` (when a test needs pipes of its own).
pub fn isolate(cmd: &mut std::process::Command, home: &tempfile::TempDir) {
    isolation::isolate(cmd, home.path());
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    /// Path and query, as sent (still percent-encoded).
    pub target: String,
    pub headers: HeaderMap,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

/// What a scripted server answers.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl Answer {
    pub fn new(status: u16, body: impl Into<String>) -> Answer {
        Answer {
            status,
            headers: vec![("content-type", "application/scim+json".into())],
            body: body.into(),
        }
    }
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Answer {
        self.headers.retain(|(n, _)| *n != name);
        self.headers.push((name, value.into()));
        self
    }
    /// A User resource with this id and active flag (any JSON value).
    pub fn user(id: &str, active: serde_json::Value) -> Answer {
        Answer::new(
            200,
            serde_json::json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "id": id, "userName": format!("{id}@example.com"), "active": active,
                "meta": {"resourceType": "User"}
            })
            .to_string(),
        )
    }
}

type Script = dyn Fn(&Seen, usize) -> Answer + Send + Sync;

/// A loopback HTTP server that answers each request by a script given the request and its
/// 0-based number, and keeps every request it saw.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Server {
    pub fn start(script: impl Fn(&Seen, usize) -> Answer + Send + Sync + 'static) -> Server {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let script: Arc<Script> = Arc::new(script);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let record = seen.clone();
        runtime.spawn(async move {
            let app = axum::Router::new().fallback(move |req: Request<Body>| {
                let record = record.clone();
                let script = script.clone();
                async move {
                    let (parts, body) = req.into_parts();
                    let body = axum::body::to_bytes(body, usize::MAX)
                        .await
                        .unwrap_or_default();
                    let seen = Seen {
                        method: parts.method.to_string(),
                        target: parts
                            .uri
                            .path_and_query()
                            .map(|p| p.to_string())
                            .unwrap_or_default(),
                        headers: parts.headers,
                        body: String::from_utf8_lossy(&body).into_owned(),
                    };
                    let n = {
                        let mut all = record.lock().unwrap();
                        all.push(seen.clone());
                        all.len() - 1
                    };
                    let answer = script(&seen, n);
                    let mut resp =
                        Response::builder().status(StatusCode::from_u16(answer.status).unwrap());
                    for (k, v) in answer.headers {
                        resp = resp.header(k, v);
                    }
                    resp.body(Body::from(answer.body)).unwrap()
                }
            });
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
        Server {
            origin,
            seen,
            _runtime: runtime,
        }
    }

    /// The SCIM root to pass as --scim-url.
    pub fn scim_url(&self) -> String {
        format!("{}/api/scim/v2", self.origin)
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Write a token file and return its path.
pub fn token_file(home: &tempfile::TempDir, token: &str) -> std::path::PathBuf {
    let path = home.path().join("scim-token");
    std::fs::write(&path, format!("{token}\n")).unwrap();
    path
}

/// `analyst scim ARGS` against a SCIM root with a token; (exit code, stdout, stderr).
pub fn scim_run(root: &str, token: &str, args: &[&str]) -> (i32, String, String) {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(&home)
        .arg("scim")
        .args(args)
        .env("ANALYST_SCIM_URL", root)
        .env("ANALYST_SCIM_TOKEN", token)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The emulator in-process on its own runtime, seeded with these SCIM users and groups.
pub struct Emu {
    pub rt: tokio::runtime::Runtime,
    pub running: analyst::emulator::server::Running,
    pub http: reqwest::Client,
}

impl Emu {
    pub fn start(seed: analyst::emulator::server::ScimSeed) -> Emu {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let mut opts = analyst::emulator::server::ServeOptions::demo();
        opts.pace = std::time::Duration::ZERO;
        opts.scim = seed;
        let running = rt
            .block_on(analyst::emulator::server::start(opts))
            .expect("the emulator starts");
        Emu {
            rt,
            running,
            http: super::http_client().build().unwrap(),
        }
    }

    /// `analyst scim ARGS` against this emulator.
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        scim_run(&self.running.scim_url, &self.running.scim_token, args)
    }

    /// A GET of the SCIM API, sent directly (not through `analyst`): its JSON body.
    pub fn get(&self, path: &str) -> serde_json::Value {
        let url = format!("{}{path}", self.running.scim_url);
        self.rt.block_on(async {
            let resp = self
                .http
                .get(url)
                .bearer_auth(&self.running.scim_token)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), 200, "GET {path}");
            serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap()
        })
    }
}
