//! Bulk `scim patch`: 10,000 users deactivated against the in-process emulator by the real
//! release binary with the default concurrency (target: under 10 s), side by side with curl
//! doing the same PATCHes (`curl --parallel --parallel-max 4`, one process, kept-alive
//! connections) to reactivate them.
//!
//! Run with `cargo bench --bench scim_bulk` (USERS=N to change the count).

use analyst::emulator::server::{start, ServeOptions};
use futures_util::stream::{self, StreamExt};
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let users: usize = std::env::var("USERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut opts = ServeOptions::demo();
    opts.pace = Duration::ZERO;
    let emu = rt.block_on(start(opts))?;
    let dir = tempfile::tempdir()?;

    // Create the users over SCIM POST, 16 at a time.
    let t = Instant::now();
    let http = reqwest::Client::new();
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
    println!(
        "created {} users over SCIM POST in {:.2?}",
        ids.len(),
        t.elapsed()
    );
    let ids_file = dir.path().join("ids.txt");
    std::fs::write(&ids_file, ids.join("\n") + "\n")?;

    // analyst: deactivate them all.
    let bin = env!("CARGO_BIN_EXE_analyst");
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
        .env("HOME", dir.path())
        .stderr(Stdio::inherit())
        .output()?;
    let ours = t.elapsed();
    let lines = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    anyhow::ensure!(out.status.success(), "analyst exited {}", out.status);
    anyhow::ensure!(lines == users, "{lines} results for {users} users");
    println!(
        "analyst scim patch --deactivate (-j 4): {users} users in {ours:.2?} ({:.0} users/s){}",
        users as f64 / ours.as_secs_f64(),
        if ours < Duration::from_secs(10) {
            ""
        } else {
            "  ** over the 10 s target **"
        }
    );

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
    match Command::new("curl")
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
    {
        Ok(status) if status.success() => {
            let theirs = t.elapsed();
            println!(
                "curl --parallel --parallel-max 4: {users} users in {theirs:.2?}; \
                 analyst/curl time ratio {:.2}",
                ours.as_secs_f64() / theirs.as_secs_f64()
            );
        }
        Ok(status) => println!("curl failed ({status}); no comparison"),
        Err(e) => println!("curl is not available ({e}); no comparison"),
    }
    rt.block_on(emu.shutdown());
    Ok(())
}
