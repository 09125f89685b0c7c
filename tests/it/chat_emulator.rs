//! The real binary against the real emulator (`analyst serve`, started in-process on
//! 127.0.0.1:0): --demo, resume through injected drops and suspensions, state, abort, Ctrl-C.

use crate::common;

use analyst::emulator::server::{Fault, Running, ServeOptions, start};
use common::scripted::*;
use serde_json::Value;
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const QUESTION: &str = "Top 5 product categories by revenue in 2025";

/// An emulator with these faults, and the runtime that serves it.
struct Emulator {
    running: Running,
    _runtime: tokio::runtime::Runtime,
}

fn emulator(faults: &[&str]) -> Emulator {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let opts = ServeOptions {
        faults: faults.iter().map(|f| f.parse::<Fault>().unwrap()).collect(),
        ..ServeOptions::demo()
    };
    let running = runtime.block_on(start(opts)).unwrap();
    Emulator {
        running,
        _runtime: runtime,
    }
}

fn client(home: &std::path::Path, emu: &Emulator, command: &str) -> assert_cmd::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_CHAT_URL", &emu.running.chat_url)
        .env("ANALYST_API_KEY", &emu.running.api_key)
        .env("ANALYST_EXTERNAL_ID", "bot")
        .arg(command);
    cmd
}

fn final_answer(home: &std::path::Path, emu: &Emulator) -> String {
    let out = client(home, emu, "chat")
        .args(["-o", "final", QUESTION])
        .assert()
        .success();
    text(&out.get_output().stdout)
}

/// Every (id, sort) of the stream appears once, and so does `__cutoff__`.
fn assert_no_repeats(ndjson: &str) {
    let mut seen = HashSet::new();
    for line in ndjson.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if let (Some(id), Some(sort)) = (v["id"].as_str(), v["sort"].as_i64()) {
            assert!(seen.insert((id.to_owned(), sort)), "repeated: {line}");
        }
    }
    assert_eq!(ndjson.matches("__cutoff__").count(), 1);
}

#[test]
fn demo_runs_the_whole_client_path() {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .args(["chat", "--demo", "-o", "json", QUESTION])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        doc["final"].as_str().unwrap().contains("Electronics"),
        "{doc}"
    );
    assert!(doc["toolCalls"].as_array().unwrap().len() >= 2);
    assert!(doc["usage"]["totalTokens"].as_u64().unwrap() > 0);
}

#[test]
fn drops_anywhere_are_resumed_to_the_same_answer() {
    let home = tempfile::tempdir().unwrap();
    let expected = final_answer(home.path(), &emulator(&[]));
    assert!(expected.contains("Electronics"));
    // From 4 on: the emulator yields the first lines at once and a drop right after them can
    // come before hyper flushed them, i.e. before any response (the thread id never arrives).
    for n in [4, 12, 16, 20, 28] {
        // Two runs, each dropped once.
        let spec = format!("drop-after={n},times=2");
        let emu = emulator(&[&spec]);
        assert_eq!(final_answer(home.path(), &emu), expected, "{spec}");
        let out = client(home.path(), &emu, "chat")
            .args(["-o", "ndjson", QUESTION])
            .assert()
            .success();
        assert_no_repeats(&text(&out.get_output().stdout));
    }
}

#[test]
fn retries_zero_gives_up_on_a_drop() {
    let home = tempfile::tempdir().unwrap();
    client(home.path(), &emulator(&["drop-after=5,times=1"]), "chat")
        .args(["-o", "final", "--retries", "0", QUESTION])
        .assert()
        .code(6);
}

#[test]
fn a_suspended_turn_resumes() {
    let home = tempfile::tempdir().unwrap();
    let expected = final_answer(home.path(), &emulator(&[]));
    assert_eq!(
        final_answer(home.path(), &emulator(&["suspend-after=10,times=1"])),
        expected
    );
}

#[test]
fn state_and_abort_of_the_last_thread() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&[]);
    final_answer(home.path(), &emu);
    let out = client(home.path(), &emu, "state")
        .args(["-c", "-o", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["isStreaming"], false);
    let kinds: Vec<&str> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"final") && kinds.contains(&"tool"), "{doc}");
    // Another user may not stop this thread.
    client(home.path(), &emu, "abort")
        .args(["-c", "--external-id", "someone-else"])
        .assert()
        .code(3);
}

#[test]
fn ctrl_c_aborts_a_held_turn() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&["hold-after=4,times=1"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_analyst"))
        .env_clear()
        .env("HOME", home.path())
        .env("ANALYST_CHAT_URL", &emu.running.chat_url)
        .env("ANALYST_API_KEY", &emu.running.api_key)
        .args(["chat", "--external-id", "bot", "-o", "ndjson", QUESTION])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let chat_id = serde_json::from_str::<Value>(&first).unwrap()["state"]["chatId"]
        .as_str()
        .unwrap()
        .to_owned();
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains(&format!("aborted {chat_id}")), "{stderr}");
    // The thread has stopped.
    let out = client(home.path(), &emu, "state")
        .args(["--chat-id", &chat_id, "-o", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["isStreaming"], false, "{doc}");
}

#[test]
fn demo_today_fixes_relative_periods_and_is_checked() {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .args([
            "chat",
            "--demo",
            "--today",
            "2025-06-15",
            "-o",
            "final",
            "What was revenue last month?",
        ])
        .assert()
        .success();
    let answer = text(&out.get_output().stdout);
    assert!(answer.contains("May 2025"), "{answer}");
    let out = analyst(home.path())
        .args(["chat", "--demo", "--today", "2025-02-30", "hi"])
        .assert()
        .code(2);
    let err = text(&out.get_output().stderr);
    assert!(err.contains("--today"), "{err}");
}

/// CLI.md: `--today` fixes the sample's data window too: nothing is dated after the emulated
/// today. The count is checked against SQL written here over the sample's own tables.
#[test]
fn demo_today_ends_the_sample_data_there() {
    let engine = common::engine::sample();
    let want = common::engine::hand_number(
        engine,
        "SELECT COUNT(*) FROM orders WHERE created_at >= '2025-01-01' \
         AND substr(created_at, 1, 10) <= '2025-06-15'",
    );
    let all = common::engine::hand_number(
        engine,
        "SELECT COUNT(*) FROM orders WHERE created_at >= '2025-01-01' AND created_at < '2026-01-01'",
    );
    assert!(
        want < all,
        "the window must cut something for the test to mean anything"
    );
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .args(["chat", "--demo", "--today", "2025-06-15", "-o", "final"])
        .arg("How many orders did we get in 2025?")
        .assert()
        .success();
    let answer = text(&out.get_output().stdout);
    assert!(
        answer.contains(&common::engine::count(want)),
        "{answer} (want {want})"
    );
}

/// The continue hint of a run whose service and identity came from flags carries them: pasted
/// into a shell as printed, it reaches the same thread as the same user (it printed
/// `analyst chat --chat-id ID MESSAGE`, which had no URL and no identity: exit 2).
#[test]
fn the_continue_hint_works_when_pasted() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let key = home.path().join("key");
    std::fs::write(&key, &emu.running.api_key).unwrap();
    let out = analyst(home.path())
        .args(["chat", "-o", "text", "--url", &emu.running.chat_url])
        .arg("--api-key-file")
        .arg(&key)
        .args([
            "--external-id",
            "zed",
            "--attr",
            "region=Europe",
            "--group",
            "o'neil &co",
        ])
        .arg(QUESTION)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let hint = stderr
        .lines()
        .find_map(|l| l.split_once("continue with: ").map(|(_, c)| c.to_owned()))
        .unwrap_or_else(|| panic!("no hint: {stderr}"));
    let command = hint.replace("MESSAGE", "'and by month?'");
    let bin = assert_cmd::cargo::cargo_bin("analyst");
    let out = Command::new("sh")
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CACHE_HOME", common::isolation::SHARED_CACHE)
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", bin.parent().unwrap().display()),
        )
        .current_dir(home.path())
        .args(["-c", &format!("{command} -o json")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first_id = hint.split("--chat-id ").nth(1).unwrap().split(' ').next();
    assert_eq!(doc["chatId"].as_str(), first_id, "{doc}");
}
