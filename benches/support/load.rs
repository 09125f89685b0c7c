//! Rows that run against the in-process emulator: many concurrent chats at `--pace 0`, and a
//! bulk SCIM deactivation by the release binary beside curl doing the same PATCHes.

use analyst::emulator::server::{Running, ServeOptions, start};
use analyst::stream::answer::FinalTracker;
use futures_util::stream::{self, StreamExt};
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A runtime on the machine's cores with an emulator at `--pace 0`.
pub fn emulator() -> (tokio::runtime::Runtime, Running) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
        )
        .enable_all()
        .build()
        .expect("runtime");
    let emu = rt
        .block_on(start(ServeOptions {
            pace: Duration::ZERO,
            ..ServeOptions::demo()
        }))
        .expect("emulator starts");
    (rt, emu)
}

/// What the load run measured.
pub struct Load {
    /// Chats run.
    pub chats: usize,
    /// Frames received, all chats together.
    pub frames: u64,
    /// From the first request sent to the last stream ended.
    pub wall: Duration,
    /// Times from sending a request to its first complete line, sorted.
    pub ttff: Vec<Duration>,
}

impl Load {
    /// The `q` quantile (0..=1) of time to first frame.
    pub fn ttff_quantile(&self, q: f64) -> Duration {
        let i = ((self.ttff.len() as f64 - 1.0) * q).round() as usize;
        self.ttff[i]
    }
}

const QUESTIONS: &[&str] = &[
    "How many orders did we get in 2024?",
    "revenue by category",
    "top 5 products by revenue in 2024",
    "average order value by region",
];

/// One chat: stream it, and check that it ends with `__state__` and a complete final answer.
async fn one_chat(
    http: &reqwest::Client,
    emu_url: &str,
    key: &str,
    i: usize,
) -> anyhow::Result<(u64, Duration)> {
    let body = json!({
        "input": QUESTIONS[i % QUESTIONS.len()],
        "messageId": format!("{}-message", 1_700_000_000_000u64 + i as u64),
        "sessionSettings": {"externalId": format!("load-{i}")},
    });
    let sent = Instant::now();
    let mut resp = http
        .post(emu_url)
        .header("Authorization", format!("Api-Key {key}"))
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await?
        .error_for_status()?;
    let mut first = None;
    let mut pending = Vec::new();
    let mut answer = FinalTracker::new(false);
    let (mut frames, mut state) = (0u64, false);
    while let Some(chunk) = resp.chunk().await? {
        pending.extend_from_slice(&chunk);
        while let Some(nl) = memchr::memchr(b'\n', &pending) {
            first.get_or_insert_with(|| sent.elapsed());
            let line = &pending[..nl];
            frames += 1;
            if answer.observe(line).is_err() {
                anyhow::bail!("chat {i}: a line is not a JSON object");
            }
            state |= line.starts_with(br#"{"id":"__state__""#);
            pending.drain(..=nl);
        }
    }
    anyhow::ensure!(state, "chat {i}: no __state__");
    let final_answer = answer.answer();
    anyhow::ensure!(
        final_answer.is_some_and(|a| !a.incomplete && !a.text.is_empty()),
        "chat {i}: no complete final answer"
    );
    Ok((frames, first.unwrap_or_default()))
}

/// `chats` concurrent chats against the emulator, each checked.
pub fn chats(rt: &tokio::runtime::Runtime, emu: &Running, chats: usize) -> Load {
    let http = client().pool_max_idle_per_host(0).build().expect("client");
    let start = Instant::now();
    let results: Vec<(u64, Duration)> = rt.block_on(async {
        let tasks: Vec<_> = (0..chats)
            .map(|i| {
                let (http, url, key) = (http.clone(), emu.chat_url.clone(), emu.api_key.clone());
                tokio::spawn(async move { one_chat(&http, &url, &key, i).await })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.expect("task").expect("chat completes correctly"));
        }
        out
    });
    let wall = start.elapsed();
    let mut ttff: Vec<Duration> = results.iter().map(|r| r.1).collect();
    ttff.sort();
    Load {
        chats,
        frames: results.iter().map(|r| r.0).sum(),
        wall,
        ttff,
    }
}

/// What the bulk SCIM run measured.
pub struct Bulk {
    /// Users deactivated.
    pub users: usize,
    /// `analyst scim patch --deactivate` at its default concurrency.
    pub ours: Duration,
    /// curl doing the same PATCHes (to reactivate them), 4 in flight; None without curl.
    pub curl: Option<Duration>,
}

/// Create `users` SCIM users, deactivate them all with `bin`, and reactivate them with curl.
pub fn scim_bulk(
    rt: &tokio::runtime::Runtime,
    emu: &Running,
    bin: &str,
    users: usize,
) -> anyhow::Result<Bulk> {
    let dir = tempfile::tempdir()?;
    // Create the users over SCIM POST, 16 at a time (not timed).
    let http = client().build().unwrap();
    let ids: Vec<String> = rt.block_on(async {
        stream::iter(0..users)
            .map(|i| {
                let req = http
                    .post(format!("{}/Users", emu.scim_url))
                    .bearer_auth(&emu.scim_token)
                    .header("content-type", "application/scim+json")
                    .body(
                        json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                               "userName": format!("bench{i}@example.com"), "active": true})
                        .to_string(),
                    );
                async move {
                    let resp = req.send().await?.error_for_status()?;
                    let user: serde_json::Value = serde_json::from_slice(&resp.bytes().await?)?;
                    anyhow::Ok(user["id"].as_str().unwrap_or_default().to_owned())
                }
            })
            .buffer_unordered(16)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let ids_file = dir.path().join("ids.txt");
    std::fs::write(&ids_file, ids.join("\n") + "\n")?;

    let t = Instant::now();
    let out = Command::new(bin)
        .args([
            "scim",
            "patch",
            "--deactivate",
            "-o",
            "ndjson",
            "--ids-from",
        ])
        .arg(&ids_file)
        .env("ANALYST_SCIM_URL", &emu.scim_url)
        .env("ANALYST_SCIM_TOKEN", &emu.scim_token)
        .env("ANALYST_CONFIG", "/dev/null")
        .env("HOME", dir.path())
        .stderr(Stdio::inherit())
        .output()?;
    let ours = t.elapsed();
    anyhow::ensure!(out.status.success(), "analyst exited {}", out.status);
    // Exit 0 says every user was patched and reported inactive; one result line each.
    let lines = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    anyhow::ensure!(lines == users, "{lines} results for {users} users");

    // curl: the same PATCHes (activate), 4 in flight, from one config file.
    let config = dir.path().join("curl.cfg");
    let mut cfg = std::io::BufWriter::new(std::fs::File::create(&config)?);
    let body = r#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"active","value":true}]}"#;
    let quoted = body.replace('"', "\\\"");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            writeln!(cfg, "next")?;
        }
        writeln!(
            cfg,
            "url = \"{}/Users/{id}\"\nrequest = PATCH\nheader = \"Authorization: Bearer {}\"\n\
             header = \"Content-Type: application/scim+json\"\ndata = \"{quoted}\"\noutput = /dev/null",
            emu.scim_url, emu.scim_token
        )?;
    }
    drop(cfg);
    let t = Instant::now();
    let curl = Command::new("curl")
        .args([
            "-s",
            "--no-progress-meter",
            "--parallel",
            "--parallel-max",
            "4",
            "-K",
        ])
        .arg(&config)
        .status()
        .ok()
        .filter(|s| s.success())
        .map(|_| t.elapsed());
    Ok(Bulk { users, ours, curl })
}

/// reqwest 0.13 wants a TLS provider installed even for plain http://; the binary installs ring.
fn client() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}
