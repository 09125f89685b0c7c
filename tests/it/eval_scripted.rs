//! `analyst eval` against a scripted server: each expectation kind passing and failing, JUnit
//! read by a real XML parser, concurrency bounded and used, follow-ups, identities, baseline,
//! --save-dir, Ctrl-C, and usage errors that send nothing.

use crate::common;

use common::scripted::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// A whole stream on thread `chat` answering `answer` after one SQL call.
fn stream(chat: &str, answer: &str) -> Vec<String> {
    vec![
        cutoff(chat, true),
        echo(MID, 1, "q"),
        sql_tool("t1", 2),
        complete("a1", 3, answer),
        state(answer),
        usage(),
    ]
}

/// A failed tool call.
fn broken_tool(sort: i64) -> String {
    json!({"id":"t9","sort":sort,"role":"assistant","isInProcess":false,"graphPath":["data_analyst_agent","tools"],
        "toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT nope"},"result":"{\"error\":\"Error: BadRequestError: no such column\"}"}}).to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `analyst eval` against `server` with a key and an identity.
fn eval(home: &Path, server: &Server) -> assert_cmd::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_API_KEY", "sk-test-secret").args([
        "eval",
        "--url",
        &server.url(),
        "--external-id",
        "bot",
    ]);
    cmd
}

fn json_out(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

fn case<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {doc}"))
}

fn keys(c: &Value) -> Vec<String> {
    c["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().split(':').next().unwrap().to_owned())
        .collect()
}

const ANSWER: &str = "Books led with $1,234.50, 60% of revenue; Toys -3.5k.";

#[test]
fn each_expectation_kind_passes_and_fails() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        let q = req.body["input"].as_str().unwrap_or_default();
        let mut lines = stream("c1", ANSWER);
        if q.contains("broken") {
            lines.insert(2, broken_tool(2));
        }
        Reply::lines(&lines)
    });
    let suite = write(
        home.path(),
        "kinds.yaml",
        r#"
cases:
  - name: all-pass
    question: Top categories?
    expect:
      answer_matches: '\$[0-9,.]+'
      answer_contains: [BOOKS, revenue]
      answer_excludes: [sorry]
      number: [{value: 1234.5}, {value: 0.6}, {value: -3500}, {value: 1240, tolerance: 0.01}]
      sql_matches: 'SUM\(revenue\)'
      tools: [cubeSqlApi]
      rows: {min: 2, max: 2}
      no_tool_errors: true
      max_seconds: 60
  - name: all-fail
    question: Top categories, broken?
    expect:
      answer_matches: 'EUR'
      answer_contains: [profit]
      answer_excludes: [toys]
      number: {value: 1300, tolerance: 0.01}
      sql_matches: 'COUNT'
      tools: [dataMeta]
      rows: {min: 5}
      no_tool_errors: true
      max_seconds: 0.000001
"#,
    );
    let out = eval(home.path(), &server)
        .args(["-o", "json"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let doc = json_out(&out);
    assert_eq!(
        doc["summary"],
        json!({"total": 2, "passed": 1, "failed": 1, "regressed": 0})
    );
    let pass = case(&doc, "all-pass");
    assert_eq!(pass["passed"], true, "{pass}");
    assert_eq!(pass["answer"], ANSWER);
    assert_eq!(pass["chatId"], "c1");
    assert_eq!(pass["usage"]["totalTokens"], 42);
    assert_eq!(pass["suite"], suite.display().to_string());
    assert!(pass["sql"][0].as_str().unwrap().contains("SUM(revenue)"));
    let failed = case(&doc, "all-fail");
    assert_eq!(
        keys(failed),
        [
            "answer_matches",
            "answer_contains",
            "answer_excludes",
            "number",
            "sql_matches",
            "tools",
            "rows",
            "no_tool_errors",
            "max_seconds"
        ],
        "{failed}"
    );
    let failures = failed["failures"].to_string();
    assert!(failures.contains("no such column"), "{failures}");
    assert!(
        failures.contains("$1,234.50"),
        "the numbers seen are named: {failures}"
    );
}

#[test]
fn junit_is_read_by_a_real_xml_parser() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        let q = req.body["input"].as_str().unwrap_or_default();
        if q.contains("boom") {
            return Reply::status(500, r#"{"error":"the agent fell over"}"#);
        }
        Reply::lines(&stream("c1", "Books & <Toys> lead: $5."))
    });
    let a = write(
        home.path(),
        "a.yaml",
        "cases:\n  - {name: good, question: q1, expect: {number: 5}}\n  - {name: bad, question: q2, expect: {number: 6, answer_contains: [zebra]}}\n",
    );
    let b = write(
        home.path(),
        "b.yaml",
        "cases:\n  - {name: boom, question: boom}\n",
    );
    let junit = home.path().join("out/junit.xml");
    std::fs::create_dir_all(junit.parent().unwrap()).unwrap();
    let out = eval(home.path(), &server)
        .args(["-o", "json", "--junit"])
        .arg(&junit)
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some("3"));
    assert_eq!(root.attribute("failures"), Some("1"));
    assert_eq!(root.attribute("errors"), Some("1"));
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2, "one testsuite per suite file");
    assert_eq!(
        suites[0].attribute("name"),
        Some(a.display().to_string().as_str())
    );
    assert_eq!(suites[0].attribute("tests"), Some("2"));
    let cases: Vec<_> = suites[0]
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases[0].attribute("name"), Some("good"));
    assert_eq!(cases[0].attribute("classname"), Some("a"));
    let out_text = |c: &roxmltree::Node| {
        c.children()
            .find(|n| n.has_tag_name("system-out"))
            .and_then(|n| n.text())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        out_text(&cases[0]).contains("Books & <Toys> lead: $5."),
        "the answer, escaped and read back"
    );
    assert!(!cases[0].children().any(|n| n.has_tag_name("failure")));
    let failure = cases[1]
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("a failure");
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .contains("2 expectations unmet")
    );
    let reasons = failure.text().unwrap();
    assert_eq!(
        reasons.lines().count(),
        2,
        "one line per unmet expectation: {reasons}"
    );
    assert!(reasons.contains("number:") && reasons.contains("answer_contains:"));
    let boom = suites[1]
        .children()
        .find(|n| n.has_tag_name("testcase"))
        .unwrap();
    let error = boom
        .children()
        .find(|n| n.has_tag_name("error"))
        .expect("an error for a failed stream");
    assert!(
        error
            .attribute("message")
            .unwrap()
            .contains("the agent fell over")
    );
}

#[test]
fn concurrency_is_bounded_and_used() {
    use std::io::Write;
    for (jobs, bound) in [("1", 1), ("3", 3)] {
        let home = tempfile::tempdir().unwrap();
        let inflight = Arc::new(AtomicUsize::new(0));
        let max = Arc::new(AtomicUsize::new(0));
        let (i, m) = (inflight.clone(), max.clone());
        // The scripted server answers one request at a time; this one serves each connection
        // on its own thread, so overlapping cases show as overlapping requests.
        let (base, heads) = common::hardening::raw_server(true, move |mut conn, _| {
            let now = i.fetch_add(1, Ordering::SeqCst) + 1;
            m.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(150));
            let mut body = common::hardening::CHUNKED_200.as_bytes().to_vec();
            for line in stream("c1", "ok") {
                body.extend(common::hardening::chunk(format!("{line}\n").as_bytes()));
            }
            body.extend(b"0\r\n\r\n");
            i.fetch_sub(1, Ordering::SeqCst);
            let _ = conn.write_all(&body);
        });
        let cases: String = (1..=7)
            .map(|n| format!("  - {{name: c{n}, question: q{n}}}\n"))
            .collect();
        let suite = write(home.path(), "s.yaml", &format!("cases:\n{cases}"));
        let out = analyst(home.path())
            .env("ANALYST_API_KEY", "k")
            .args([
                "eval",
                "--external-id",
                "bot",
                "-o",
                "json",
                "-j",
                jobs,
                "--url",
            ])
            .arg(common::hardening::chat_url(&base))
            .arg(&suite)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let seen = max.load(Ordering::SeqCst);
        assert!(seen <= bound, "-j {jobs}: {seen} requests at once");
        if bound > 1 {
            assert!(seen >= 2, "-j {jobs}: cases never overlapped");
        }
        assert_eq!(heads.lock().unwrap().len(), 7);
    }
}

#[test]
fn follow_ups_share_the_thread_and_sessions_beat_flags() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        let q = req.body["input"].as_str().unwrap_or_default();
        let answer = if q.contains("year before") {
            "2024: $7."
        } else {
            "2025: $9."
        };
        Reply::lines(&stream("c42", answer))
    });
    let suite = write(
        home.path(),
        "s.yaml",
        r#"
cases:
  - name: two-turns
    question: Revenue in 2025
    then: ["And the year before?"]
    session: {externalId: eu-analyst, userAttributes: [{name: region, value: EU}]}
    expect: {number: 7}
  - name: plain
    question: Plain question
"#,
    );
    let out = eval(home.path(), &server)
        .args(["-o", "json", "-j", "1"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let messages: Vec<Seen> = server.seen().into_iter().filter(Seen::is_message).collect();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0].body["input"], "Revenue in 2025");
    assert!(messages[0].body.get("chatId").is_none());
    assert_eq!(messages[1].body["input"], "And the year before?");
    assert_eq!(messages[1].body["chatId"], "c42");
    assert_ne!(messages[0].body["messageId"], messages[1].body["messageId"]);
    for m in &messages[..2] {
        assert_eq!(m.body["sessionSettings"]["externalId"], "eu-analyst");
        assert_eq!(
            m.body["sessionSettings"]["userAttributes"][0]["value"],
            "EU"
        );
    }
    assert_eq!(
        messages[2].body["sessionSettings"],
        json!({"externalId": "bot"})
    );
    assert_eq!(case(&json_out(&out), "two-turns")["answer"], "2024: $7.");
}

#[test]
fn save_dir_keeps_each_stream() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(stream("c1", "Saved: $3."));
    let suite = write(
        home.path(),
        "s.yaml",
        "cases:\n  - {name: one, question: q, then: [again]}\n",
    );
    let dir = home.path().join("runs/new");
    let out = eval(home.path(), &server)
        .args(["-o", "json", "--save-dir"])
        .arg(&dir)
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let saved = std::fs::read_to_string(dir.join("one.ndjson")).unwrap();
    assert_eq!(
        saved.lines().count(),
        2 * stream("c1", "x").len(),
        "both turns: {saved}"
    );
    let extracted = analyst(home.path())
        .arg("extract-final")
        .arg(dir.join("one.ndjson"))
        .output()
        .unwrap();
    assert_eq!(text(&extracted.stdout).trim(), "Saved: $3.");
}

#[test]
fn baseline_reports_regressions() {
    let home = tempfile::tempdir().unwrap();
    let changed = Arc::new(AtomicBool::new(false));
    let flag = changed.clone();
    let server = Server::start(move |req, _| {
        let q = req.body["input"].as_str().unwrap_or_default();
        let later = flag.load(Ordering::SeqCst);
        if later && q.contains("slow") {
            std::thread::sleep(Duration::from_millis(1100));
        }
        let answer = match (later, q) {
            (true, "steady?") => "Steady: $1.",
            (true, _) => "Now: $2.",
            _ if q == "steady?" => "Steady: $1.",
            _ => "Then: $1.",
        };
        Reply::lines(&stream("c1", answer))
    });
    let suite = write(
        home.path(),
        "s.yaml",
        "cases:\n  - {name: keeps, question: 'steady?', expect: {number: 1}}\n  - {name: breaks, question: 'breaks?', expect: {number: 1}}\n  - {name: slow, question: 'slow?'}\n",
    );
    let first = eval(home.path(), &server)
        .args(["-o", "json"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    // The earlier run's `slow` case had fewer tokens too.
    let mut before = json_out(&first);
    // By name: the order of `cases` is not what this test is about.
    let slow = before["cases"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["name"] == "slow")
        .unwrap();
    before["cases"][slow]["usage"]["totalTokens"] = json!(20);
    let baseline = write(home.path(), "baseline.json", &before.to_string());

    changed.store(true, Ordering::SeqCst);
    // One case at a time: the scripted server answers one request at a time, so with -j 4 a
    // case queued behind `slow` would be slower too, by the server's doing, not its own.
    let out = eval(home.path(), &server)
        .args(["-o", "json", "-j", "1", "--baseline"])
        .arg(&baseline)
        .arg(&suite)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("regressed breaks"), "{stderr}");
    assert!(stderr.contains("answer changed breaks"), "{stderr}");
    assert!(stderr.contains("answer changed slow"), "{stderr}");
    assert!(stderr.contains("slower slow"), "{stderr}");
    assert!(stderr.contains("more tokens slow (20 -> 42)"), "{stderr}");
    assert!(!stderr.contains(" keeps"), "{stderr}");
    let doc = json_out(&out);
    // Only `breaks` regressed; `slow` still passes, however much slower and costlier.
    assert_eq!(doc["summary"]["regressed"], 1);
    assert_eq!(doc["baseline"]["regressed"], json!(["breaks"]));
    assert_eq!(doc["baseline"]["slower"][0]["name"], "slow");

    // Only an unchanged run against its own result is clean.
    let again = eval(home.path(), &server)
        .args(["-o", "json", "--filter", "^keeps$", "--baseline"])
        .arg(&baseline)
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
}

#[test]
fn a_changed_answer_alone_is_reported_but_neither_fails_nor_regresses() {
    let home = tempfile::tempdir().unwrap();
    let changed = Arc::new(AtomicBool::new(false));
    let flag = changed.clone();
    let server = Server::start(move |_, _| {
        let answer = if flag.load(Ordering::SeqCst) {
            "Revenue in 2023: $2."
        } else {
            "Revenue in 2024: $1."
        };
        Reply::lines(&stream("c1", answer))
    });
    let suite = write(
        home.path(),
        "b.yaml",
        "cases:\n  - {name: by-category, question: 'Revenue by category in 2024', expect: {answer_contains: [revenue]}}\n",
    );
    let first = eval(home.path(), &server)
        .args(["-o", "json"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let baseline = write(home.path(), "base.json", &text(&first.stdout));
    changed.store(true, Ordering::SeqCst);
    let out = eval(home.path(), &server)
        .args(["-o", "json", "--baseline"])
        .arg(&baseline)
        .arg(&suite)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("answer changed by-category"), "{stderr}");
    assert!(!stderr.contains("regressed by-category"), "{stderr}");
    assert!(stderr.contains("0 regressed"), "{stderr}");
    let doc = json_out(&out);
    assert_eq!(doc["summary"]["regressed"], 0, "{doc}");
    assert_eq!(doc["summary"]["failed"], 0, "{doc}");
    assert_eq!(doc["baseline"]["answerChanged"], json!(["by-category"]));
}

#[test]
fn usage_errors_name_file_case_and_key_and_send_nothing() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(stream("c1", "x"));
    let dir = home.path();
    let good = write(dir, "good.yaml", "cases:\n  - {name: a, question: q}\n");
    let bad = [
        (
            "unknown.yaml",
            "cases:\n  - {name: a, question: q, expect: {answer_contain: x}}\n",
            "unknown.yaml: case a: expect: answer_contain: unknown key",
        ),
        (
            "regex.yaml",
            "cases:\n  - {name: r, question: q, expect: {answer_matches: '[a-'}}\n",
            "regex.yaml: case r: expect: answer_matches: bad regex",
        ),
        (
            "noquestion.yaml",
            "cases:\n  - {name: nq}\n",
            "noquestion.yaml: case nq: question: missing",
        ),
        (
            "dup.yaml",
            "cases:\n  - {name: a, question: q}\n",
            "dup.yaml: case a: name: duplicate (also in",
        ),
        (
            "top.yaml",
            "defaults: {}\ncase: []\n",
            "top.yaml: case: unknown key",
        ),
        (
            "type.yaml",
            "cases:\n  - {name: t, question: q, expect: {rows: {min: many}}}\n",
            "type.yaml: case t: expect.rows: min",
        ),
    ];
    for (file, text_, message) in bad {
        let path = write(dir, file, text_);
        let out = eval(dir, &server).arg(&good).arg(&path).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(message), "{file}: {stderr}");
    }
    for (args, message) in [
        (vec!["--filter", "("], "--filter: bad regex"),
        (vec!["--filter", "zzz"], "--filter zzz: matches no case"),
        (vec!["-j", "0"], "-j/--concurrency"),
        (
            vec!["--baseline", "/nonexistent/b.json"],
            "--baseline /nonexistent/b.json",
        ),
    ] {
        let out = eval(dir, &server).args(&args).arg(&good).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let missing = analyst(dir).args(["eval"]).arg(&good).output().unwrap();
    assert_eq!(
        missing.status.code(),
        Some(2),
        "no URL: {}",
        text(&missing.stderr)
    );
    assert!(
        server.seen().is_empty(),
        "a request was sent: {:?}",
        server.seen()
    );
}

#[test]
fn a_run_where_no_case_got_a_stream_exits_with_its_status() {
    let home = tempfile::tempdir().unwrap();
    let suite = write(
        home.path(),
        "s.yaml",
        "cases:\n  - {name: a, question: q}\n  - {name: b, question: r}\n",
    );
    let refused = Server::start(|_, _| Reply::status(401, r#"{"error":"Invalid API key"}"#));
    let out = eval(home.path(), &refused)
        .args(["-o", "json"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(json_out(&out)["summary"]["failed"], 2);
    // Nothing listens on a port just freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = analyst(home.path())
        .env("ANALYST_API_KEY", "k")
        .args([
            "eval",
            "--external-id",
            "bot",
            "-o",
            "json",
            "--retries",
            "0",
            "--url",
        ])
        .arg(format!(
            "http://127.0.0.1:{port}/api/v1/public/a/agents/1/chat/stream-chat-state"
        ))
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
}

#[test]
fn ctrl_c_aborts_every_running_case_and_reports_what_finished() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.is_abort() {
            return Reply {
                status: 204,
                parts: vec![],
            };
        }
        let q = req.body["input"].as_str().unwrap_or_default().to_owned();
        if let Some(n) = q.strip_prefix("hold") {
            return Reply::lines(&[
                cutoff(&format!("held{n}"), true),
                delta("a1", 1, "Thinking "),
            ])
            .then_stall();
        }
        Reply::lines(&stream("fast", "Done: $1."))
    });
    let suite = write(
        home.path(),
        "s.yaml",
        "cases:\n  - {name: held-1, question: hold1}\n  - {name: quick, question: quick}\n  - {name: held-2, question: hold2}\n",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_analyst"))
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("ANALYST_API_KEY", "k")
        .args([
            "eval",
            "--url",
            &server.url(),
            "--external-id",
            "bot",
            "-o",
            "ndjson",
            "-j",
            "3",
        ])
        .arg(&suite)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The quick case's line is out; wait until both held threads are named too.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("\"quick\""), "{first}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server.seen().iter().filter(|s| s.is_message()).count() < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "the held cases never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("1 of 3 cases finished"), "{stderr}");
    let mut aborted: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.is_abort())
        .map(|s| {
            assert_eq!(s.body["sessionSettings"]["externalId"], "bot");
            s.body["chatId"].as_str().unwrap().to_owned()
        })
        .collect();
    aborted.sort();
    assert_eq!(aborted, ["held1", "held2"], "{stderr}");
    assert!(
        stderr.contains("aborted held1") && stderr.contains("aborted held2"),
        "{stderr}"
    );
}

#[test]
fn ndjson_is_a_case_per_line_and_repeat_names_each_run() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(stream("c1", "Total: $3."));
    let suite = write(
        home.path(),
        "s.yaml",
        "cases:\n  - {name: a, question: q, expect: {number: 3}}\n  - {name: b, question: r, expect: {number: 4}}\n",
    );
    let out = eval(home.path(), &server)
        .args(["-o", "ndjson", "--repeat", "2", "-j", "2"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut names: Vec<&str> = lines.iter().map(|c| c["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["a#1", "a#2", "b#1", "b#2"], "no summary line");
    assert!(
        lines
            .iter()
            .all(|c| c["passed"] == c["name"].as_str().unwrap().starts_with('a'))
    );
    let yaml = eval(home.path(), &server)
        .args(["-o", "yaml", "--filter", "^a$"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(yaml.status.code(), Some(0), "{}", text(&yaml.stderr));
    let doc: Value = serde_norway::from_slice(&yaml.stdout).unwrap();
    assert_eq!(doc["summary"]["total"], 1);
    assert_eq!(doc["cases"][0]["answer"], "Total: $3.");
}

/// Cases run at once: a suite's time is its wall span and the run's time the run's wall time,
/// so `<testsuites time>` is never below a `<testsuite time>` (it was the sum of the cases).
#[test]
fn junit_times_are_wall_spans_of_concurrent_cases() {
    let home = tempfile::tempdir().unwrap();
    // Each answer takes 400 ms, so concurrent cases overlap; no rendezvous between them (a
    // barrier waiting for all four hung when the run sent them otherwise).
    let server = Server::start(move |req, _| {
        if req.is_message() {
            std::thread::sleep(Duration::from_millis(400));
        }
        Reply::lines(&stream("c1", "Revenue was $5."))
    });
    let suite = write(
        home.path(),
        "s.yaml",
        "cases:\n  - {name: a, question: q1}\n  - {name: b, question: q2}\n  - {name: c, question: q3}\n  - {name: d, question: q4}\n",
    );
    let junit = home.path().join("junit.xml");
    let out = eval(home.path(), &server)
        .args(["-o", "json", "-j", "4", "--junit"])
        .arg(&junit)
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let time = |n: &roxmltree::Node| -> f64 { n.attribute("time").unwrap().parse().unwrap() };
    let root = doc.root_element();
    let suite = root
        .children()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    let cases: Vec<f64> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| time(&c))
        .collect();
    assert_eq!(cases.len(), 4);
    let longest = cases.iter().cloned().fold(0.0, f64::max);
    assert!(
        time(&root) >= time(&suite),
        "testsuites time {} below its testsuite's {}:\n{xml}",
        time(&root),
        time(&suite)
    );
    assert!(
        time(&suite) >= longest,
        "a suite's time spans its longest case:\n{xml}"
    );
}
