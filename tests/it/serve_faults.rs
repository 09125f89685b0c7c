//! `--fault` kinds over HTTP, and the `analyst serve` binary itself.

use crate::common;

use common::serve::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn message(n: u64) -> Value {
    json!({"input": "How many orders?", "messageId": mid(n), "sessionSettings": ext("f")})
}

#[tokio::test]
async fn status_faults_for_the_next_k_requests_with_retry_after() {
    let srv = serve(&["status=503x2,retry-after=1"]).await;
    for n in 0..2 {
        let resp = srv.chat(message(n)).await;
        assert_eq!(resp.status(), 503);
        assert_eq!(resp.headers()["retry-after"], "1");
        assert!(
            body_json(resp).await["error"]
                .as_str()
                .unwrap()
                .contains("status=503x2")
        );
    }
    assert_eq!(srv.chat(message(3)).await.status(), 200);
}

#[tokio::test]
async fn status_faults_for_a_fraction_and_only_on_scim() {
    let srv = serve(&["status=500@0.5,on=scim"]).await;
    let codes: Vec<u16> = {
        let mut v = Vec::new();
        for _ in 0..4 {
            v.push(srv.scim("GET", "/Users", None).await.status().as_u16());
        }
        v
    };
    assert_eq!(
        codes,
        [200, 500, 200, 500],
        "every second request, deterministically"
    );
    let resp = srv.scim("GET", "/Users", None).await;
    assert_eq!(resp.status(), 200);
    let failed = srv.scim("GET", "/Users", None).await;
    assert_eq!(failed.headers()["content-type"], "application/scim+json");
    assert_eq!(body_json(failed).await["status"], "500");
    assert_eq!(
        srv.chat(message(1)).await.status(),
        200,
        "chat is not affected"
    );
}

#[tokio::test]
async fn delay_faults_wait_before_answering() {
    let srv = serve(&["delay=300ms,on=abort"]).await;
    let chat = chat_id(&srv.ask("f", None, 1, "How many orders?").await);
    let started = Instant::now();
    assert_eq!(srv.abort("f", &chat).await, 204);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn a_malformed_line_then_the_rest_of_the_stream() {
    let srv = serve(&["malformed-after=2"]).await;
    let text = srv.chat(message(1)).await.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        serde_json::from_str::<Value>(lines[2]).is_err(),
        "{}",
        lines[2]
    );
    for (i, line) in lines.iter().enumerate().filter(|(i, _)| *i != 2) {
        assert!(
            serde_json::from_str::<Value>(line).is_ok(),
            "line {i}: {line}"
        );
    }
    assert!(lines.last().unwrap().contains("__usage__"));
}

#[tokio::test]
async fn a_stalled_stream_stays_open_until_shutdown() {
    let srv = serve(&["stall-after=2"]).await;
    let mut stream = Lines::new(srv.chat(message(1)).await);
    stream.frame().await;
    stream.frame().await;
    let next = tokio::time::timeout(Duration::from_millis(300), stream.next()).await;
    assert!(next.is_err(), "nothing more arrives");
    // Shutdown ends stalled streams instead of waiting for them forever.
    tokio::time::timeout(Duration::from_secs(10), srv.running.shutdown())
        .await
        .expect("shutdown completes");
}

fn analyst() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_analyst"));
    cmd.env_remove("ANALYST_CONFIG").env("NO_COLOR", "1");
    cmd
}

/// `serve --fault SPEC` refused with exit 2 before serving: its stderr. A server that accepted
/// the spec would run until stopped: `-o json` makes it say so on stdout at once, and it is
/// then stopped and the test fails, instead of hanging.
fn serve_refuses(spec: &str) -> String {
    let mut child = analyst()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "-o",
            "json",
            "--fault",
            spec,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut banner = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut banner,
    )
    .unwrap();
    if !banner.is_empty() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    assert!(banner.is_empty(), "{spec}: the server started: {banner}");
    assert_eq!(out.status.code(), Some(2), "{spec}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bad_fault_specs_are_usage_errors_naming_the_spec() {
    let out = analyst()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--fault",
            "status=503",
            "--fault",
            "explode=1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--fault \"explode=1\"") && err.contains("explode"),
        "{err}"
    );
    // Selectors alone inject nothing: that is a mistake to say, not a server to start.
    for spec in ["on=chat", "on=scim,times=2"] {
        let err = serve_refuses(spec);
        assert!(
            err.contains(&format!("--fault {spec:?}")) && err.contains("names no failure"),
            "{err}"
        );
    }
    // `x0` is a fault that would never fire (it was accepted and did nothing).
    assert!(serve_refuses("status=503x0").contains("at least 1"));
    let out = analyst()
        .args(["serve", "--pace", "fast"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = analyst()
        .args(["serve", "--listen", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
#[tokio::test]
async fn the_binary_prints_one_json_line_serves_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "my-key\n").unwrap();
    let mut child = analyst()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--pace",
            "0",
            "-o",
            "json",
            "--api-key-file",
        ])
        .arg(&key_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(info["apiKey"], "my-key");
    assert!(info["scimToken"].as_str().unwrap().len() > 16);
    assert_eq!(info["attributes"], json!(["region"]));
    assert_eq!(info["users"].as_array().unwrap().len(), 3);

    let http = common::http_client().build().unwrap();
    let resp = http
        .post(info["chatUrl"].as_str().unwrap())
        .header("Authorization", "Api-Key my-key")
        .body(message(1).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let frames = frames(resp).await;
    assert_eq!(frames.last().unwrap()["id"], "__usage__");
    let scim = http
        .get(format!("{}/Users", info["scimUrl"].as_str().unwrap()))
        .header(
            "Authorization",
            format!("Bearer {}", info["scimToken"].as_str().unwrap()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(scim.status(), 200);

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(0), "a clean shutdown");
}
