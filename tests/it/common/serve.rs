//! Helpers for the `serve_*` tests: start the emulator in-process on a free port and talk to
//! it over real HTTP.

use analyst::emulator::server::{Clock, Fault, Running, ServeOptions, start};
use serde_json::{Value, json};
use std::time::Duration;

/// 2026-11-15T12:00:00Z: a fixed "now" so answers and ids are the same on every run.
pub const NOW_MS: u64 = 1_794_744_000_000;

/// A running emulator and a client for it.
pub struct Srv {
    pub running: Running,
    pub http: reqwest::Client,
}

/// Start with pace 0, a manual clock at [`NOW_MS`], and these faults.
pub async fn serve(faults: &[&str]) -> Srv {
    serve_with(|o| {
        o.faults = faults.iter().map(|f| f.parse::<Fault>().unwrap()).collect();
    })
    .await
}

/// Start with pace 0 and a manual clock, then adjust the options.
pub async fn serve_with(adjust: impl FnOnce(&mut ServeOptions)) -> Srv {
    let mut opts = ServeOptions::demo();
    opts.pace = Duration::ZERO;
    opts.clock = Clock::manual(NOW_MS);
    adjust(&mut opts);
    let running = start(opts).await.expect("emulator starts");
    Srv {
        running,
        http: super::http_client().build().unwrap(),
    }
}

/// `<13+ digits>-message` for a small number.
pub fn mid(n: u64) -> String {
    format!("{}-message", 1_700_000_000_000 + n)
}

/// sessionSettings of an external user.
pub fn ext(id: &str) -> Value {
    json!({ "externalId": id })
}

impl Srv {
    /// The chat URL.
    pub fn chat_url(&self) -> String {
        self.running.chat_url.clone()
    }

    /// The abort URL.
    pub fn abort_url(&self) -> String {
        self.running.chat_url.replace("stream-chat-state", "abort")
    }

    /// The origin, e.g. `http://127.0.0.1:1234`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.running.addr)
    }

    /// POST JSON with the API key.
    pub async fn post(&self, url: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(url)
            .header("Authorization", format!("Api-Key {}", self.running.api_key))
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("request sent")
    }

    /// POST a chat body with the API key.
    pub async fn chat(&self, body: Value) -> reqwest::Response {
        self.post(&self.chat_url(), &body).await
    }

    /// Send a message as an external user and collect the whole stream.
    pub async fn ask(&self, user: &str, chat_id: Option<&str>, n: u64, input: &str) -> Vec<Value> {
        let mut body = json!({"input": input, "messageId": mid(n), "sessionSettings": ext(user)});
        if let Some(c) = chat_id {
            body["chatId"] = json!(c);
        }
        let resp = self.chat(body).await;
        assert_eq!(resp.status(), 200);
        frames(resp).await
    }

    /// Read a thread's state as an external user.
    pub async fn read(&self, user: &str, chat_id: &str) -> reqwest::Response {
        self.chat(json!({"chatId": chat_id, "sessionSettings": ext(user)}))
            .await
    }

    /// Abort a thread as an external user; the HTTP status.
    pub async fn abort(&self, user: &str, chat_id: &str) -> u16 {
        self.post(
            &self.abort_url(),
            &json!({"chatId": chat_id, "sessionSettings": ext(user)}),
        )
        .await
        .status()
        .as_u16()
    }

    /// A SCIM request with the SCIM token.
    pub async fn scim(&self, method: &str, path: &str, body: Option<Value>) -> reqwest::Response {
        let url = format!("{}{}", self.running.scim_url, path);
        let mut req = self.http.request(method.parse().unwrap(), url).header(
            "Authorization",
            format!("Bearer {}", self.running.scim_token),
        );
        if let Some(b) = body {
            req = req
                .header("Content-Type", "application/scim+json")
                .body(b.to_string());
        }
        req.send().await.expect("request sent")
    }

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

/// The JSON body of a response.
pub async fn body_json(resp: reqwest::Response) -> Value {
    let text = resp.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// All frames of a stream.
pub async fn frames(resp: reqwest::Response) -> Vec<Value> {
    let text = resp.text().await.unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
        .collect()
}

/// The ids of frames, for order assertions.
pub fn ids(frames: &[Value]) -> Vec<String> {
    frames
        .iter()
        .map(|f| f["id"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// `state.chatId` of the `__cutoff__` frame.
pub fn chat_id(frames: &[Value]) -> String {
    frames[0]["state"]["chatId"].as_str().unwrap().to_owned()
}

/// Reads a stream line by line as it arrives.
pub struct Lines {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Lines {
    /// Start reading a response.
    pub fn new(resp: reqwest::Response) -> Lines {
        Lines {
            resp,
            buf: Vec::new(),
        }
    }

    /// The next line; `Ok(None)` at a clean end, `Err` when the connection broke.
    pub async fn next(&mut self) -> Result<Option<String>, reqwest::Error> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                return Ok(Some(String::from_utf8_lossy(&line[..i]).into_owned()));
            }
            match self.resp.chunk().await? {
                Some(chunk) => self.buf.extend_from_slice(&chunk),
                None => return Ok(None),
            }
        }
    }

    /// The next line as JSON (panics at the end or on a broken connection).
    pub async fn frame(&mut self) -> Value {
        let line = self.next().await.unwrap().expect("another line");
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
    }

    /// Every remaining frame until a clean end.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(line) = self.next().await.unwrap() {
            out.push(serde_json::from_str(&line).unwrap());
        }
        out
    }
}
