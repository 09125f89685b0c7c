//! Shared helpers for the chat, state and abort tests: a scripted HTTP server with byte-level
//! control (chunked bodies, drops, stalls) that records every request, frame builders, and an
//! `analyst` command isolated from the user's environment.

use assert_cmd::Command;

use super::isolation;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Seen {
    /// e.g. `POST`.
    pub method: String,
    /// Path and query.
    pub path: String,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body, parsed (Null when not JSON).
    pub body: Value,
}

impl Seen {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// Whether this is a message (has `input`), not a state read or an abort.
    pub fn is_message(&self) -> bool {
        self.body.get("input").is_some()
    }
    /// Whether this went to the abort URL.
    pub fn is_abort(&self) -> bool {
        self.path.ends_with("/chat/abort")
    }
}

/// One piece of a scripted response body.
#[derive(Clone, Debug)]
pub enum Part {
    /// Bytes, sent as one HTTP chunk.
    Data(Vec<u8>),
    /// Close the connection mid-body (the chunked body never ends).
    Drop,
    /// Keep the connection open, sending nothing, until the client goes away.
    Stall,
}

/// A scripted response.
#[derive(Clone, Debug)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// The body in pieces; a 200 is sent chunked, anything else with a length.
    pub parts: Vec<Part>,
}

impl Reply {
    /// A 200 stream of these lines, one chunk each, ending normally.
    pub fn lines(lines: &[String]) -> Reply {
        Reply {
            status: 200,
            parts: lines
                .iter()
                .map(|l| Part::Data(format!("{l}\n").into_bytes()))
                .collect(),
        }
    }
    /// Then drop the connection.
    pub fn then_drop(mut self) -> Reply {
        self.parts.push(Part::Drop);
        self
    }
    /// Then stall.
    pub fn then_stall(mut self) -> Reply {
        self.parts.push(Part::Stall);
        self
    }
    /// A status with a body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            parts: vec![Part::Data(body.as_bytes().to_vec())],
        }
    }
}

type Handler = dyn Fn(&Seen, &[Seen]) -> Reply + Send + Sync;

/// A scripted server on 127.0.0.1; each connection is served on its own thread.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    /// Start a server answering each request with `handler(request, earlier requests)`.
    pub fn start(handler: impl Fn(&Seen, &[Seen]) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (handler, log) = (handler.clone(), log.clone());
                std::thread::spawn(move || serve(stream, &*handler, &log));
            }
        });
        Server { base, seen }
    }

    /// A server that answers every message and read with the same lines.
    pub fn always(lines: Vec<String>) -> Server {
        Server::start(move |_, _| Reply::lines(&lines))
    }

    /// The chat URL.
    pub fn url(&self) -> String {
        format!(
            "{}/api/v1/public/acme/agents/3/chat/stream-chat-state",
            self.base
        )
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request = Seen {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let reply = {
        let mut log = log.lock().unwrap();
        let reply = handler(&request, &log);
        log.push(request);
        reply
    };
    let _ = respond(stream, reader, reply);
}

fn respond(
    mut stream: TcpStream,
    mut reader: BufReader<TcpStream>,
    reply: Reply,
) -> std::io::Result<()> {
    if reply.status != 200 {
        let body: Vec<u8> = reply
            .parts
            .iter()
            .flat_map(|p| match p {
                Part::Data(d) => d.clone(),
                _ => Vec::new(),
            })
            .collect();
        write!(
            stream,
            "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            reply.status,
            body.len()
        )?;
        stream.write_all(&body)?;
        return stream.flush();
    }
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    )?;
    stream.flush()?;
    for part in reply.parts {
        match part {
            Part::Data(d) => {
                write!(stream, "{:x}\r\n", d.len())?;
                stream.write_all(&d)?;
                stream.write_all(b"\r\n")?;
                stream.flush()?;
            }
            Part::Drop => {
                return stream.shutdown(Shutdown::Both);
            }
            Part::Stall => {
                // Until the client closes its side.
                let mut sink = Vec::new();
                let _ = reader.read_to_end(&mut sink);
                return Ok(());
            }
        }
    }
    stream.write_all(b"0\r\n\r\n")?;
    stream.flush()
}

// ----- frames -----

/// `__cutoff__`.
pub fn cutoff(chat_id: &str, streaming: bool) -> String {
    json!({"id":"__cutoff__","sort":0,"state":{"chatId":chat_id,"isStreaming":streaming}})
        .to_string()
}
/// The user's echo.
pub fn echo(message_id: &str, sort: i64, text: &str) -> String {
    json!({"id":message_id,"sort":sort,"role":"user","content":text,"isDelta":false}).to_string()
}
/// A final-answer delta.
pub fn delta(id: &str, sort: i64, text: &str) -> String {
    json!({"id":id,"sort":sort,"role":"assistant","content":text,"isDelta":true,"isInProcess":true,"graphPath":["final"]}).to_string()
}
/// A complete final answer.
pub fn complete(id: &str, sort: i64, text: &str) -> String {
    json!({"id":id,"sort":sort,"role":"assistant","content":text,"isDelta":false,"isInProcess":false,"graphPath":["final"]}).to_string()
}
/// A finished SQL tool call.
pub fn sql_tool(id: &str, sort: i64) -> String {
    let result = json!({"queryTitle":"Revenue by category","sqlQuery":"SELECT category, SUM(revenue) FROM orders GROUP BY 1",
        "schema":[{"name":"category","column_type":"string"},{"name":"revenue","column_type":"number"}],
        "data":[["Books","120"],["Toys","80"]],"totalRows":2});
    json!({"id":id,"sort":sort,"role":"assistant","isInProcess":false,"graphPath":["data_analyst_agent","tools"],
        "toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT category, SUM(revenue) FROM orders GROUP BY 1","queryTitle":"Revenue by category"},
        "result":result.to_string()}}).to_string()
}
/// `__state__` whose last AI message says `answer`.
pub fn state(answer: &str) -> String {
    state_for("q", answer)
}
/// `__state__` of a thread whose one turn is `question`, answered `answer`.
pub fn state_for(question: &str, answer: &str) -> String {
    json!({"id":"__state__","sort":99,"state":{"messages":[
        {"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":question}},
        {"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":answer}}]}}).to_string()
}
/// `__usage__`.
pub fn usage() -> String {
    json!({"id":"__usage__","type":"usage","usage":{"totalTokens":42}}).to_string()
}

/// A whole happy stream for thread `c1`.
pub fn happy(message_id: &str) -> Vec<String> {
    vec![
        cutoff("c1", true),
        echo(message_id, 1, "Top categories?"),
        sql_tool("t1", 2),
        delta("a1", 3, "Books "),
        delta("a1", 4, "lead."),
        complete("a1", 5, "Books lead."),
        state("Books lead."),
        usage(),
    ]
}

/// The message id tests send.
pub const MID: &str = "1700000000000-message";

// ----- the command -----

/// `analyst`, cut off from the user's environment (see `tests/common/isolation.rs`).
pub fn analyst(home: &Path) -> Command {
    Command::from_std(isolation::isolated(home))
}

/// `analyst chat` against `server` with a key and an identity.
pub fn chat(home: &Path, server: &Server) -> Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_API_KEY", "sk-test-secret").args([
        "chat",
        "--url",
        &server.url(),
        "--external-id",
        "bot",
        "--message-id",
        MID,
    ]);
    cmd
}

/// stdout as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
