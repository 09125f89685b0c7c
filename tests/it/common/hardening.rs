//! Shared by the `hardening_*` tests: an in-process emulator on its own runtime, the binary
//! isolated from the user's environment, and checks every hardening case makes (no panic, the
//! documented status, no secret in the output).

use super::isolation;
use analyst::emulator::server::{Fault, Running, ServeOptions, start};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// Distinctive secrets: a test fails if any of them shows up in any output.
pub const API_KEY: &str = "sk-SECRET-abc123";
pub const TOKEN: &str = "tok-SECRET-def456";
pub const SCIM_TOKEN: &str = "scim-SECRET-ghi789";

/// The question every chat test asks.
pub const QUESTION: &str = "Top 5 product categories by revenue in 2025";

/// A running emulator and the runtime that serves it.
pub struct Emulator {
    pub running: Running,
    _runtime: tokio::runtime::Runtime,
}

/// Start the emulator (pace 0, the demo dataset) with these faults on a runtime of its own.
pub fn emulator(faults: &[&str]) -> Emulator {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let opts = ServeOptions {
        faults: faults.iter().map(|f| f.parse::<Fault>().unwrap()).collect(),
        pace: Duration::ZERO,
        api_key: Some(API_KEY.into()),
        scim_token: Some(SCIM_TOKEN.into()),
        // The sample's fixed window (its data end on this day), whatever the real date.
        today: Some((2025, 12, 31)),
        ..ServeOptions::demo()
    };
    let running = runtime.block_on(start(opts)).unwrap();
    Emulator {
        running,
        _runtime: runtime,
    }
}

impl Emulator {
    /// The SCIM id of a seeded user.
    pub fn user_id(&self, user_name: &str) -> String {
        self.running
            .users
            .iter()
            .find(|u| u.user_name == user_name)
            .map(|u| u.id.clone())
            .unwrap()
    }
}

/// `analyst`, cut off from the user's environment (see `tests/common/isolation.rs`), with
/// stdin closed.
pub fn analyst(home: &Path) -> std::process::Command {
    let mut cmd = isolation::isolated(home);
    cmd.stdin(std::process::Stdio::null());
    cmd
}

/// `analyst COMMAND` pointed at the emulator with its credentials and an external identity.
pub fn against(home: &Path, emu: &Emulator, command: &[&str]) -> std::process::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_CHAT_URL", &emu.running.chat_url)
        .env("ANALYST_API_KEY", &emu.running.api_key)
        .env("ANALYST_SCIM_URL", &emu.running.scim_url)
        .env("ANALYST_SCIM_TOKEN", &emu.running.scim_token)
        .args(command);
    if command[0] != "scim" {
        cmd.env("ANALYST_EXTERNAL_ID", "bot");
    }
    cmd
}

/// Run to the end; panics (failing the test) if it takes longer than `limit` (a hang).
pub fn run_within(cmd: &mut std::process::Command, limit: Duration) -> Output {
    use std::process::Stdio;
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // Only the child we started, by its id.
            unsafe { libc::kill(id as i32, libc::SIGKILL) };
            panic!("{cmd:?} still running after {limit:?}: a hang");
        }
    }
}

/// Run with the loose hang bound every hardening test uses.
pub fn run(cmd: &mut std::process::Command) -> Output {
    run_within(cmd, Duration::from_secs(30))
}

/// stdout and stderr as text.
pub fn outs(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// No panic, no 101, and the expected status; the message names what the test passes.
pub fn expect_status(out: &Output, code: i32, case: &str) {
    let (stdout, stderr) = outs(out);
    assert!(
        !stderr.contains("panicked") && out.status.code() != Some(101),
        "{case}: panic\n{stderr}"
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "{case}: status\nstdout: {}\nstderr: {stderr}",
        &stdout[..stdout.len().min(2000)]
    );
}

/// Every (id, sort) of an NDJSON stream appears once and every line is a JSON object (a
/// malformed line from the server is skipped, never written). A second `__cutoff__` may appear
/// only as the mark of a state read after a drop (`isStreaming: false`), followed by that
/// read's `__state__`.
pub fn assert_no_repeats(ndjson: &str, case: &str) {
    let mut seen = std::collections::HashSet::new();
    let mut cutoffs = 0;
    for line in ndjson.lines() {
        let v: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{case}: a line that is not JSON ({e}): {line}"));
        if v["id"] == "__cutoff__" {
            cutoffs += 1;
            assert!(
                cutoffs == 1 || v["state"]["isStreaming"] == false,
                "{case}: __cutoff__ repeated: {line}"
            );
            continue;
        }
        if let (Some(id), Some(sort)) = (v["id"].as_str(), v["sort"].as_i64()) {
            assert!(
                seen.insert((id.to_owned(), sort)),
                "{case}: repeated: {line}"
            );
        }
    }
    assert!(cutoffs <= 2, "{case}: {cutoffs} __cutoff__ lines");
}

/// A raw TCP server on 127.0.0.1: each connection goes to `handler` on its own thread, after
/// its request head (and a Content-Length body, unless `read_body` is false) has been read.
/// Records the request heads. Returns the base URL and the heads seen.
pub fn raw_server(
    read_body: bool,
    handler: impl Fn(std::net::TcpStream, &str) + Send + Sync + 'static,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = heads.clone();
    let handler = std::sync::Arc::new(handler);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (handler, log) = (handler.clone(), log.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push_str(&line);
                    if line == "\r\n" {
                        break;
                    }
                }
                if read_body {
                    let length = head
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse::<u64>().ok())?
                        })
                        .unwrap_or(0);
                    let _ = std::io::copy(&mut (&mut reader).take(length), &mut std::io::sink());
                }
                log.lock().unwrap().push(head.clone());
                handler(stream, &head);
            });
        }
    });
    (base, heads)
}

/// The chat URL path on a raw server.
/// A whole HTTP/1.1 response with a JSON body and its length, closing the connection: what
/// [`raw_server`] handlers write.
pub fn json_reply(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

pub fn chat_url(base: &str) -> String {
    format!("{base}/api/v1/public/acme/agents/3/chat/stream-chat-state")
}

/// A chunked 200 head.
pub const CHUNKED_200: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";

/// One HTTP chunk.
pub fn chunk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

/// Close a socket with a TCP reset instead of a FIN.
pub fn reset(stream: std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &linger as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    drop(stream);
}
