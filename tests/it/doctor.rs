//! Issue 35, `analyst doctor`: all ok against the emulator; a refused key, a URL that answers
//! HTML, a closed port and a clock 20 minutes off are each told apart, with the fix, and with
//! the exit status of CLI.md (1 a check failed, 2 nothing to check, a warning is no failure).

use crate::common;

use common::hardening::{analyst, emulator, expect_status, outs, run};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;

/// A server answering every request with `head` (status line and headers) and `body`.
fn raw_server(head: &'static str, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut s) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            // Read the head, then the body its Content-Length announces.
            while let Ok(n) = s.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_lowercase();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            let reply = format!(
                "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(reply.as_bytes());
        }
    });
    format!("http://{addr}/api/v1/public/acme/agents/3/chat/stream-chat-state")
}

fn doctor(home: &Path, url: &str, key: &str) -> (i32, serde_json::Value, String) {
    let out = run(analyst(home)
        .env("ANALYST_CHAT_URL", url)
        .env("ANALYST_API_KEY", key)
        .env("ANALYST_EXTERNAL_ID", "bot")
        .args(["doctor", "-o", "json"]));
    let (stdout, stderr) = outs(&out);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
    (out.status.code().unwrap(), doc, stdout)
}

fn check<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {doc}"))
}

#[test]
fn against_the_emulator_every_check_is_ok_and_a_wrong_key_is_named() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let (code, doc, _) = doctor(home.path(), &emu.running.chat_url, &emu.running.api_key);
    assert_eq!(code, 0, "{doc}");
    for name in [
        "config",
        "chat url",
        "dns",
        "tcp",
        "request",
        "credentials",
        "clock",
    ] {
        assert_eq!(check(&doc, name)["status"], "ok", "{name}: {doc}");
    }
    let (code, doc, stdout) = doctor(home.path(), &emu.running.chat_url, "sk-wrong-key-123");
    assert_eq!(code, 1, "{doc}");
    let c = check(&doc, "credentials");
    assert_eq!(c["status"], "fail", "{doc}");
    assert!(c["detail"].as_str().unwrap().contains("refused"), "{doc}");
    assert!(c["fix"].as_str().unwrap().contains("API key"), "{doc}");
    assert!(!stdout.contains("sk-wrong-key-123"), "no secret printed");
}

#[test]
fn an_html_page_a_closed_port_and_a_wrong_clock_are_told_apart() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // A web server that is not the service: an HTML 404.
    let html = raw_server(
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/html",
        "<html><body>Not Found</body></html>",
    );
    let (code, doc, _) = doctor(h, &html, "k");
    assert_eq!(code, 1, "{doc}");
    let url_check = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "chat url" && c["status"] == "fail")
        .unwrap_or_else(|| panic!("the URL is named wrong: {doc}"));
    assert!(
        url_check["detail"].as_str().unwrap().contains("HTML"),
        "{doc}"
    );
    // A closed port: the TCP check fails, nothing after it runs.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        format!("http://127.0.0.1:{port}/api/v1/public/acme/agents/3/chat/stream-chat-state")
    };
    let (code, doc, _) = doctor(h, &closed, "k");
    assert_eq!(code, 1, "{doc}");
    assert_eq!(check(&doc, "tcp")["status"], "fail", "{doc}");
    // The service's answer for an unknown thread, with a Date 20 minutes behind: a warning.
    let old = httpdate::fmt_http_date(
        std::time::SystemTime::now() - std::time::Duration::from_secs(1200),
    );
    let head: &'static str = Box::leak(
        format!("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nDate: {old}")
            .into_boxed_str(),
    );
    let late = raw_server(head, r#"{"error":"Chat not found"}"#);
    let (code, doc, _) = doctor(h, &late, "k");
    assert_eq!(code, 0, "a warning is no failure: {doc}");
    assert_eq!(check(&doc, "credentials")["status"], "ok", "{doc}");
    let clock = check(&doc, "clock");
    assert_eq!(clock["status"], "warn", "{doc}");
    assert!(clock["fix"].as_str().unwrap().contains("clock"), "{doc}");
}

#[test]
fn nothing_configured_is_exit_2_with_the_way_to_configure() {
    let home = tempfile::tempdir().unwrap();
    let out = run(analyst(home.path()).args(["doctor"]));
    expect_status(&out, 2, "doctor without settings");
    assert!(
        outs(&out).0.contains("analyst config init"),
        "{}",
        outs(&out).0
    );
}
