//! `analyst eval` against the emulator, faults included: the demo suite passes through dropped
//! connections and suspended turns (the chat client path resumes them), and a case's timeout
//! ends a turn that never finishes.

use crate::common;

use analyst::emulator::server::{Clock, Dialect, Fault, Running, ServeOptions, start};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `eval --demo`'s date, so the demo suite's numbers hold here too.
const DEMO_NOW_MS: u64 = 1_782_820_800_000;

struct Emulator {
    running: Running,
    _runtime: tokio::runtime::Runtime,
}

fn emulator(faults: &[&str]) -> Emulator {
    emulator_speaking(faults, Dialect::Seed)
}

fn emulator_speaking(faults: &[&str], dialect: Dialect) -> Emulator {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let opts = ServeOptions {
        faults: faults.iter().map(|f| f.parse::<Fault>().unwrap()).collect(),
        pace: Duration::ZERO,
        clock: Clock::manual(DEMO_NOW_MS),
        dialect,
        ..ServeOptions::demo()
    };
    let running = runtime.block_on(start(opts)).unwrap();
    Emulator {
        running,
        _runtime: runtime,
    }
}

fn demo_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo-suite.yaml")
}

fn eval(home: &Path, emu: &Emulator, args: &[&str]) -> (Option<i32>, Value, String) {
    let out = common::isolation::isolated(home)
        .env("ANALYST_CHAT_URL", &emu.running.chat_url)
        .env("ANALYST_API_KEY", &emu.running.api_key)
        .args(["eval", "-o", "json"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr: {stderr}"));
    (out.status.code(), doc, stderr)
}

fn assert_all_passed(doc: &Value, status: Option<i32>, stderr: &str) {
    let failed: Vec<String> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] != true)
        .map(|c| format!("{}: {}", c["name"], c["failures"]))
        .collect();
    assert!(failed.is_empty(), "{}\n{stderr}", failed.join("\n"));
    assert_eq!(status, Some(0), "{stderr}");
}

#[test]
fn the_demo_suite_passes_through_dropped_connections() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&["drop-after=6,times=12", "cut-after=9,times=4"]);
    let suite = demo_suite();
    let (status, doc, stderr) = eval(home.path(), &emu, &["-j", "4", suite.to_str().unwrap()]);
    assert_all_passed(&doc, status, &stderr);
}

#[test]
fn the_demo_suite_passes_through_suspended_turns() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&["suspend-after=8,times=10"]);
    let suite = demo_suite();
    let (status, doc, stderr) = eval(home.path(), &emu, &["-j", "3", suite.to_str().unwrap()]);
    assert_all_passed(&doc, status, &stderr);
}

#[test]
fn a_turn_past_its_timeout_fails_the_case_and_the_run_goes_on() {
    let home = tempfile::tempdir().unwrap();
    let emu = emulator(&["hold-after=4,times=1"]);
    let suite = home.path().join("s.yaml");
    std::fs::write(
        &suite,
        "defaults: {timeout: 1s, session: {externalId: ci}}\ncases:\n  - {name: held, question: Total revenue in 2025}\n  - {name: after, question: Total revenue in 2025, expect: {number: 4598790.05}}\n",
    )
    .unwrap();
    let (status, doc, stderr) = eval(home.path(), &emu, &["-j", "1", suite.to_str().unwrap()]);
    assert_eq!(status, Some(1), "{stderr}");
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases[0]["passed"], false);
    let why = cases[0]["failures"][0].as_str().unwrap();
    assert!(
        why.starts_with("stream: timeout: no final answer within 1s"),
        "{why}"
    );
    assert!(cases[0]["chatId"].is_string(), "the held thread is named");
    assert_eq!(cases[1]["passed"], true, "{}", cases[1]);
}

#[test]
fn refused_credentials_exit_3_in_every_dialect() {
    // `seed` refuses with a 401; `docs` and `legacy` with a JSON-RPC error object in a 200,
    // which is a refusal, not a stream.
    for dialect in [Dialect::Seed, Dialect::Docs, Dialect::Legacy] {
        let home = tempfile::tempdir().unwrap();
        let emu = emulator_speaking(&[], dialect);
        let suite = home.path().join("s.yaml");
        std::fs::write(
            &suite,
            "cases:\n  - {name: one, question: Total revenue in 2025}\n",
        )
        .unwrap();
        let out = common::isolation::isolated(home.path())
            .env("ANALYST_API_KEY", "wrong")
            .args(["eval", "-o", "json", "--fallback", "--external-id", "x"])
            .args(["--url", &emu.running.chat_url])
            .arg(&suite)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{dialect:?}: {stderr}");
        assert!(
            stderr.contains("no case got an answer"),
            "{dialect:?}: {stderr}"
        );
    }
}
