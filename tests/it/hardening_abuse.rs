//! Matrix 6: the emulator under abuse. 1,000 concurrent chats with seeded (deterministic)
//! disconnects, resubscribes and aborts; afterwards it still answers, its task count returns
//! to near where it started, and its memory does not keep growing from one round to the next.

use crate::common;

use common::serve::*;
use serde_json::{Value, json};
use std::sync::Arc;

fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// One client's script, chosen by a seeded generator: read all, disconnect after k lines,
/// disconnect then resubscribe, or abort mid-stream.
async fn one(srv: Arc<Srv>, i: u64, seed: u64) -> Result<(), String> {
    let r = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407 ^ i);
    let (action, k) = ((r >> 33) % 4, 1 + (r >> 40) % 12);
    let user = format!("u{}", i % 50);
    let body = json!({"input": "How many orders?", "messageId": mid(seed * 10_000 + i), "sessionSettings": ext(&user)});
    let resp = srv.chat(body.clone()).await;
    if resp.status() != 200 {
        // Too many threads for one user or one already streaming: refused cleanly is fine.
        return Ok(());
    }
    let mut lines = Lines::new(resp);
    let first = lines.frame().await;
    let chat = first["state"]["chatId"]
        .as_str()
        .ok_or("no chat id")?
        .to_owned();
    match action {
        0 => {
            lines.rest().await;
        }
        1 => {
            for _ in 0..k {
                if lines.next().await.ok().flatten().is_none() {
                    break;
                }
            }
            drop(lines);
        }
        2 => {
            for _ in 0..k {
                if lines.next().await.ok().flatten().is_none() {
                    break;
                }
            }
            drop(lines);
            let mut again = body;
            again["chatId"] = json!(chat);
            let resp = srv.chat(again).await;
            if resp.status() == 200 {
                Lines::new(resp).rest().await;
            }
        }
        _ => {
            let _ = lines.next().await;
            let code = srv.abort(&user, &chat).await;
            if ![204, 404, 409].contains(&code) && code != 200 {
                return Err(format!("abort answered {code}"));
            }
            while let Ok(Some(_)) = lines.next().await {}
        }
    }
    Ok(())
}

async fn round(srv: &Arc<Srv>, seed: u64) {
    let tasks: Vec<_> = (0..1000)
        .map(|i| tokio::spawn(one(srv.clone(), i, seed)))
        .collect();
    for t in tasks {
        t.await.expect("client task").expect("client script");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_abusive_clients_leave_no_tasks_or_growth_behind() {
    let mut srv = serve(&[]).await;
    // No idle pool: a kept-alive connection holds a task on each side, which is the client's
    // choice, not a leak of the server's.
    srv.http = common::http_client()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let srv = Arc::new(srv);
    let metrics = tokio::runtime::Handle::current().metrics();
    let warm: Vec<Value> = srv.ask("warm", None, 1, "How many orders?").await;
    assert!(!warm.is_empty());
    let base_tasks = metrics.num_alive_tasks();
    round(&srv, 1).await;
    let after_one = rss_kb();
    round(&srv, 2).await;
    let after_two = rss_kb();
    // Connections and turns wind down on their own: wait for it (a gate with a loose bound).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while metrics.num_alive_tasks() > base_tasks + 8 {
        assert!(
            std::time::Instant::now() < deadline,
            "tasks stay at {} (started at {base_tasks})",
            metrics.num_alive_tasks()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Still answers.
    let frames = srv.ask("after", None, 2, "How many orders?").await;
    assert!(frames.iter().any(|f| f["id"] == "__state__"), "{frames:?}");
    // The second round's threads are kept (as the service keeps them); allow for that, not
    // for a leak proportional to the traffic.
    assert!(
        after_two < after_one + after_one / 2 + 64 * 1024,
        "RSS {after_one} kB -> {after_two} kB"
    );
}
