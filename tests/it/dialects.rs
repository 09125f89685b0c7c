//! The client's end-to-end behaviour against every wire variant `serve --dialect` speaks: one
//! table of scenarios, each run for `seed`, `docs` and `legacy` against the real binary and a
//! fresh in-process emulator.
//! Every row must pass in every dialect; all failures are reported together.

use crate::common;

use analyst::emulator::server::{Dialect, Fault, Running, ServeOptions, start};
use common::scripted::*;
use serde_json::Value;
use std::path::Path;

const QUESTION: &str = "Top 5 product categories by revenue in 2025";

/// An emulator speaking one dialect, with these faults, and the runtime that serves it.
struct Emulator {
    running: Running,
    dialect: Dialect,
    _runtime: tokio::runtime::Runtime,
}

fn emulator(dialect: Dialect, faults: &[&str]) -> Emulator {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let opts = ServeOptions {
        faults: faults.iter().map(|f| f.parse::<Fault>().unwrap()).collect(),
        dialect,
        ..ServeOptions::demo()
    };
    let running = runtime.block_on(start(opts)).unwrap();
    Emulator {
        running,
        dialect,
        _runtime: runtime,
    }
}

impl Emulator {
    /// The client, pointed at this emulator, running `command`.
    fn client(&self, home: &Path, command: &str) -> assert_cmd::Command {
        let mut cmd = analyst(home);
        cmd.env("ANALYST_CHAT_URL", &self.running.chat_url)
            .env("ANALYST_API_KEY", &self.running.api_key)
            .env("ANALYST_EXTERNAL_ID", "bot")
            .arg(command);
        cmd
    }

    /// `chat` with the flags this dialect needs for an answer: `--fallback` where the stream
    /// has no final frames.
    fn chat(&self, home: &Path) -> assert_cmd::Command {
        let mut cmd = self.client(home, "chat");
        if self.dialect != Dialect::Seed {
            cmd.arg("--fallback");
        }
        cmd
    }
}

/// What one run of the client gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(cmd: &mut assert_cmd::Command) -> Run {
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code(),
        stdout: text(&out.stdout),
        stderr: text(&out.stderr),
    }
}

fn expect(r: &Run, code: i32, what: &str) -> Result<(), String> {
    if r.code == Some(code) {
        Ok(())
    } else {
        Err(format!(
            "{what}: exit {:?}, want {code}; stderr: {}",
            r.code,
            r.stderr.trim()
        ))
    }
}

/// The answer the sample gives to `QUESTION`, whatever the dialect.
fn answer_ok(answer: &str) -> Result<(), String> {
    if answer.contains("Electronics") {
        Ok(())
    } else {
        Err(format!("not the answer: {answer:?}"))
    }
}

/// The thread id the client reported on a `-o json` run.
fn chat_id(doc: &str) -> Result<String, String> {
    let v: Value = serde_json::from_str(doc).map_err(|e| format!("{e}: {doc}"))?;
    v["chatId"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no chatId in {doc}"))
}

// ---- scenarios -------------------------------------------------------------------------------

fn wire_then_extract_final(d: Dialect, home: &Path) -> Result<(), String> {
    // The wire itself, read by `extract-final`: every dialect carries the answer.
    let emu = emulator(d, &[]);
    let saved = home.join("wire.ndjson");
    let r = run(emu
        .client(home, "chat")
        .args(["-o", "ndjson", "--save"])
        .arg(&saved)
        .arg(QUESTION));
    let first = r.stdout.lines().next().unwrap_or("");
    let cutoff: Value = serde_json::from_str(first).map_err(|e| format!("{e}: {first}"))?;
    if cutoff["id"] != "__cutoff__" || cutoff["state"]["isStreaming"] != false {
        return Err(format!("first line: {first}"));
    }
    let has_usage = r.stdout.contains("\"__usage__\"");
    if has_usage != (d != Dialect::Legacy) {
        return Err(format!("__usage__ present: {has_usage}"));
    }
    let mut x = analyst(home);
    x.args(["extract-final", "--fallback"]).arg(&saved);
    let x = run(&mut x);
    expect(&x, 0, "extract-final --fallback")?;
    answer_ok(&x.stdout)
}

fn chat_in_each_format(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    for format in ["final", "json", "text", "ndjson"] {
        let r = run(emu.chat(home).args(["-o", format, QUESTION]));
        expect(&r, 0, &format!("-o {format}"))?;
        if format != "ndjson" {
            answer_ok(&r.stdout).map_err(|e| format!("-o {format}: {e}"))?;
        }
    }
    Ok(())
}

fn resume_after_a_drop(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &["drop-after=6,times=1"]);
    let r = run(emu.chat(home).args(["-o", "final", QUESTION]));
    expect(&r, 0, "resumed chat")?;
    answer_ok(&r.stdout)
}

fn suspended_turn(d: Dialect, home: &Path) -> Result<(), String> {
    // Legacy servers never suspend; the fault is a no-op there and the chat simply answers.
    let emu = emulator(d, &["suspend-after=10,times=1"]);
    let r = run(emu.chat(home).args(["-o", "final", QUESTION]));
    expect(&r, 0, "suspended chat")?;
    answer_ok(&r.stdout)
}

fn busy_thread(d: Dialect, home: &Path) -> Result<(), String> {
    // The first turn holds forever; a second message to the thread is refused as busy (exit 5).
    let emu = emulator(d, &["hold-after=4,times=1"]);
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_analyst"));
    let out = home.join("first.ndjson");
    first
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("ANALYST_CHAT_URL", &emu.running.chat_url)
        .env("ANALYST_API_KEY", &emu.running.api_key)
        .env("ANALYST_EXTERNAL_ID", "bot")
        .args(["chat", "--no-abort", "-o", "ndjson", "--save"])
        .arg(&out)
        .arg(QUESTION)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = first.spawn().unwrap();
    let chat = (0..200)
        .find_map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(25));
            let saved = std::fs::read_to_string(&out).ok()?;
            let line: Value = serde_json::from_str(saved.lines().next()?).ok()?;
            line["state"]["chatId"].as_str().map(str::to_owned)
        })
        .ok_or_else(|| "the first turn never showed its thread id".to_owned());
    let result = chat.and_then(|chat| {
        let r = run(emu.client(home, "chat").args([
            "--chat-id",
            &chat,
            "-o",
            "final",
            "another question",
        ]));
        expect(&r, 5, "second message to a busy thread")
    });
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn bad_key(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    let r = run(emu
        .client(home, "chat")
        .env("ANALYST_API_KEY", "not-the-key")
        .args(["-o", "final", QUESTION]));
    expect(&r, 3, "wrong API key")
}

fn replay_of_a_saved_stream(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    let saved = home.join("saved.ndjson");
    let live = run(emu
        .chat(home)
        .args(["-o", "final", "--save"])
        .arg(&saved)
        .arg(QUESTION));
    expect(&live, 0, "live chat")?;
    let mut replay = analyst(home);
    replay.args(["chat", "-o", "final", "--replay"]).arg(&saved);
    if d != Dialect::Seed {
        replay.arg("--fallback");
    }
    let again = run(&mut replay);
    expect(&again, 0, "--replay")?;
    if again.stdout != live.stdout {
        return Err(format!(
            "replay {:?} != live {:?}",
            again.stdout, live.stdout
        ));
    }
    Ok(())
}

fn state_and_abort(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    let live = run(emu.chat(home).args(["-o", "json", QUESTION]));
    expect(&live, 0, "chat")?;
    let chat = chat_id(&live.stdout)?;
    let state = run(emu
        .client(home, "state")
        .args(["--chat-id", &chat, "-o", "json"]));
    expect(&state, 0, "state")?;
    let doc: Value = serde_json::from_str(&state.stdout).map_err(|e| e.to_string())?;
    if doc["isStreaming"] != false || doc["messages"].as_array().is_none_or(Vec::is_empty) {
        return Err(format!("state: {doc}"));
    }
    let abort = run(emu.client(home, "abort").args(["--chat-id", &chat]));
    expect(&abort, 0, "abort")
}

/// `scim patch` against the dialect's SCIM answers (`legacy`: `"active": "False"` as a string,
/// PascalCase `meta`): a deactivation is confirmed, by id and by userName, and the raw
/// answer has the dialect's shape.
fn scim_deactivate(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    let user = emu
        .running
        .users
        .iter()
        .find(|u| u.active)
        .ok_or("no active seeded user")?;
    let scim = |args: &[&str]| {
        let mut cmd = analyst(home);
        cmd.env("ANALYST_SCIM_URL", &emu.running.scim_url)
            .env("ANALYST_SCIM_TOKEN", &emu.running.scim_token)
            .args(["scim", "patch"])
            .args(args);
        run(&mut cmd)
    };
    let r = scim(&["--deactivate", "-o", "json", &user.id]);
    expect(&r, 0, "scim patch --deactivate ID")?;
    let doc: Value = serde_json::from_str(&r.stdout).map_err(|e| format!("{e}: {}", r.stdout))?;
    // One user: the document is the User resource as the service answered it.
    let resource = &doc;
    let (active, meta_key) = if d == Dialect::Legacy {
        (Value::from("False"), "ResourceType")
    } else {
        (Value::from(false), "resourceType")
    };
    if resource["active"] != active || resource["meta"].get(meta_key).is_none() {
        return Err(format!("the answer's shape: {doc}"));
    }
    let r = scim(&["--replace", "active=true", "--user-name", &user.user_name]);
    expect(&r, 0, "scim patch --replace active=true --user-name")?;
    // An unknown user: a SCIM Error whose `status` is a string, or (legacy) a number; exit 4.
    let r = scim(&["--deactivate", "no-such-user"]);
    expect(&r, 4, "scim patch --deactivate no-such-user")?;
    let body = raw_get(
        &format!("{}/Users/no-such-user", emu.running.scim_url),
        &emu.running.scim_token,
    );
    let doc: Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
    let numeric = doc["status"].is_u64();
    if numeric != (d == Dialect::Legacy) || doc["status"].to_string().trim_matches('"') != "404" {
        return Err(format!("the SCIM Error's status: {doc}"));
    }
    Ok(())
}

/// The body of a plain `GET url` with a bearer token (HTTP/1.1 on loopback).
fn raw_get(url: &str, token: &str) -> String {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    let body = all.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    // A chunked body: the JSON object between its first '{' and last '}'.
    match (body.find('{'), body.rfind('}')) {
        (Some(a), Some(b)) => body[a..=b].to_owned(),
        _ => body.to_owned(),
    }
}

// ---- the table -------------------------------------------------------------------------------

type Scenario = fn(Dialect, &Path) -> Result<(), String>;

/// One row: a scenario, run for every dialect.
struct Row {
    name: &'static str,
    scenario: Scenario,
}

/// The meta tool's result in the dialect's shape: `members` (newer servers), or `measures`
/// and `dimensions` (PROTOCOL.md: older servers), and the client reads either: the text
/// output's tool line counts the cube.
fn meta_shape(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    let r = run(emu.chat(home).args(["-o", "json", QUESTION]));
    expect(&r, 0, "-o json")?;
    let doc: Value = serde_json::from_str(&r.stdout).map_err(|e| e.to_string())?;
    let cube = doc["toolCalls"]
        .as_array()
        .and_then(|t| t.iter().find(|c| c["result"]["cubes"].is_array()))
        .map(|c| c["result"]["cubes"][0].clone())
        .ok_or("no meta result")?;
    let older = cube.get("members").is_none()
        && cube["measures"]
            .as_array()
            .is_some_and(|m| !m.is_empty() && m.iter().all(|x| x["title"].is_string()))
        && cube["dimensions"].is_array();
    if older != (d == Dialect::Legacy) {
        return Err(format!("meta cube: {cube}"));
    }
    let r = run(emu.chat(home).args(["-o", "text", QUESTION]));
    expect(&r, 0, "-o text")?;
    if !r
        .stdout
        .lines()
        .any(|l| l.contains("Meta") && l.ends_with("· 1 cube"))
    {
        return Err(format!("no meta line counting the cube:\n{}", r.stdout));
    }
    Ok(())
}

/// The SQL tool's input in the dialect's shape: the full input, or `{"query"}` alone (PROTOCOL.md:
/// "some servers send only `{\"query\": \"...\"}`"), and the client reads either: the chart
/// comes from the result's spec, and `sql --from` finds the query with the result's title.
fn sql_input_shape(d: Dialect, home: &Path) -> Result<(), String> {
    let emu = emulator(d, &[]);
    let saved = home.join("s.ndjson");
    let r = run(emu
        .chat(home)
        .current_dir(home)
        .args(["-o", "final", "--chart", "c.vl.json", "--save"])
        .arg(&saved)
        .arg(QUESTION));
    expect(&r, 0, "chat --chart")?;
    answer_ok(&r.stdout)?;
    let stream = std::fs::read_to_string(&saved).map_err(|e| e.to_string())?;
    let parsed = |v: &Value| -> Value {
        v.as_str()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null)
    };
    let (input, result) = stream
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|f| {
            (
                parsed(&f["toolCall"]["input"]),
                parsed(&f["toolCall"]["result"]),
            )
        })
        .find(|(_, result)| result["data"].is_array())
        .ok_or("no SQL result on the wire")?;
    let keys: Vec<&str> = input
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let query_only = keys == ["query"];
    if query_only != (d == Dialect::Legacy) || (!query_only && input["sqlQuery"].is_null()) {
        return Err(format!("SQL input: {input}"));
    }
    // The total the answer cites carries no chart: the top 5 is the one chart, c.vl.json.
    let chart: Value = std::fs::read_to_string(home.join("c.vl.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| format!("no chart written: {}", r.stderr))?;
    if chart["data"]["values"].as_array().map(Vec::len) != Some(5) {
        return Err(format!("chart: {chart}"));
    }
    let r = run(emu
        .client(home, "sql")
        .arg("--from")
        .arg(&saved)
        .arg("--list"));
    expect(&r, 0, "sql --list")?;
    let title = result["queryTitle"].as_str().ok_or("no queryTitle")?;
    if !r.stdout.contains(title) {
        return Err(format!("sql --list does not name {title:?}:\n{}", r.stdout));
    }
    Ok(())
}

const TABLE: &[Row] = &[
    Row {
        name: "the SQL input in the dialect's shape",
        scenario: sql_input_shape,
    },
    Row {
        name: "scim patch on the dialect's SCIM answers",
        scenario: scim_deactivate,
    },
    Row {
        name: "the meta result in the dialect's shape",
        scenario: meta_shape,
    },
    Row {
        name: "the wire carries the answer (ndjson, extract-final)",
        scenario: wire_then_extract_final,
    },
    Row {
        name: "chat in each format",
        scenario: chat_in_each_format,
    },
    Row {
        name: "resume after a drop",
        scenario: resume_after_a_drop,
    },
    Row {
        name: "suspended turn",
        scenario: suspended_turn,
    },
    Row {
        name: "busy thread exits 5",
        scenario: busy_thread,
    },
    Row {
        name: "bad key exits 3",
        scenario: bad_key,
    },
    Row {
        name: "--replay of a saved stream",
        scenario: replay_of_a_saved_stream,
    },
    Row {
        name: "state and abort",
        scenario: state_and_abort,
    },
];

#[test]
fn every_scenario_in_every_dialect() {
    // Four pairs at a time, each with its own emulator and home: a pair spends most of its
    // time waiting on two processes (the emulator's start, the client's turn), which one at a
    // time left a core idle for half of this test's ten seconds.
    let pairs: Vec<_> = TABLE
        .iter()
        .flat_map(|row| Dialect::ALL.into_iter().map(move |d| (row, d)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some((row, d)) =
                    pairs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let home = tempfile::tempdir().unwrap();
                    if let Err(e) = (row.scenario)(*d, home.path()) {
                        let failure = format!("[{d}] {}: {e}", row.name);
                        failures.lock().unwrap().push(failure);
                    }
                }
            });
        }
    });
    assert_eq!(done.into_inner(), pairs.len(), "every pair ran");
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
