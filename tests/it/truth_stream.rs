//! Issue 11, items 1-6: chat against servers written from PROTOCOL.md alone (scripted on raw
//! TCP), where the emulator cannot produce the wire: bodies closed cleanly in the middle of a
//! line, usage after a suspension, a busy thread as HTTP 400, bodies that are not NDJSON,
//! streams with no final frame.

use crate::common;
use common::hardening as hs;

use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const CUT: &str = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"t1","isStreaming":false}}"#;
const ECHO: &str =
    r#"{"id":"1700000000000-message","sort":1,"role":"user","content":"q","isDelta":false}"#;
const D1: &str = r#"{"id":"a1","sort":2,"role":"assistant","content":"The total ","isDelta":true,"isInProcess":true,"graphPath":["final"]}"#;
const D2: &str = r#"{"id":"a1","sort":3,"role":"assistant","content":"is 42.","isDelta":true,"isInProcess":true,"graphPath":["final"]}"#;
const DONE: &str = r#"{"id":"a1","sort":4,"role":"assistant","content":"The total is 42.","isDelta":false,"isInProcess":false,"graphPath":["final"]}"#;
const STATE: &str = r#"{"id":"__state__","state":{"messages":[{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"q"}},{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"The total is 42."}}]}}"#;
const USAGE: &str = r#"{"id":"__usage__","type":"usage","usage":{"totalTokens":7}}"#;
const READ_CUT: &str =
    r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"t1","isStreaming":false}}"#;
const RESUB_CUT: &str =
    r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"t1","isStreaming":true}}"#;

/// A 200 whose body ends when the connection closes (no length, no chunking): the form in
/// which a drop looks like a clean end to the client.
fn close_delimited(mut s: TcpStream, content_type: &str, body: &[u8]) {
    let head =
        format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n");
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let _ = s.flush();
}

fn lines(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect()
}

/// A server answering its n-th request (from 0) with `script(n, stream)`; counts requests.
fn scripted(
    script: impl Fn(usize, TcpStream) + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let (base, _) = hs::raw_server(true, move |s, _| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        script(n, s);
    });
    (hs::chat_url(&base), count)
}

fn chat(home: &Path, url: &str, args: &[&str]) -> Output {
    hs::run(
        hs::analyst(home)
            .env("ANALYST_CHAT_URL", url)
            .env("ANALYST_API_KEY", hs::API_KEY)
            .env("ANALYST_EXTERNAL_ID", "bot")
            .arg("chat")
            .args(args),
    )
}

fn run_ok(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = hs::run(hs::analyst(home).args(args));
    let (o, e) = hs::outs(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

/// Item 1: a body closed cleanly mid-line leaves no partial line on stdout or in --save; the
/// frame comes again after the resume. Item 2: the turn finished meanwhile, so the state
/// read's lines are written and both files give the live answer.
#[test]
fn a_clean_close_mid_line_writes_only_whole_lines_and_the_files_keep_the_answer() {
    let (url, count) = scripted(|n, s| match n {
        0 => {
            let mut body = lines(&[CUT, ECHO, D1]);
            body.extend_from_slice(&D2.as_bytes()[..20]);
            close_delimited(s, "application/json", &body);
        }
        // The state read: the turn has finished.
        _ => close_delimited(s, "application/json", &lines(&[READ_CUT, STATE])),
    });
    let home = tempfile::tempdir().unwrap();
    let save = home.path().join("run.ndjson");
    let save_arg = save.to_str().unwrap();
    let out = chat(
        home.path(),
        &url,
        &["-o", "ndjson", "--save", save_arg, "q"],
    );
    hs::expect_status(&out, 0, "recovered through the state");
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(
        stdout,
        String::from_utf8(lines(&[CUT, ECHO, D1, READ_CUT, STATE])).unwrap()
    );
    assert_eq!(
        std::fs::read(&save).unwrap(),
        out.stdout,
        "--save is what stdout got"
    );
    assert_eq!(
        count.load(Ordering::SeqCst),
        2,
        "one send, one read: never asked twice"
    );

    for args in [
        vec!["extract-final", save_arg],
        vec!["chat", "--replay", save_arg, "-o", "final"],
    ] {
        let (code, stdout, stderr) = run_ok(home.path(), &args);
        assert_eq!(
            (code, stdout.trim()),
            (0, "The total is 42."),
            "{args:?}: {stderr}"
        );
    }
}

/// Item 1, the same for `-o final` live: the answer comes from the state, exit 0.
#[test]
fn the_live_final_answer_after_a_mid_line_close_comes_from_the_state() {
    let (url, _) = scripted(|n, s| match n {
        0 => {
            let mut body = lines(&[CUT, D1]);
            body.extend_from_slice(&DONE.as_bytes()[..30]);
            close_delimited(s, "application/json", &body);
        }
        _ => close_delimited(s, "application/json", &lines(&[READ_CUT, STATE])),
    });
    let home = tempfile::tempdir().unwrap();
    let out = chat(home.path(), &url, &["-o", "final", "q"]);
    hs::expect_status(&out, 0, "final");
    assert_eq!(hs::outs(&out).0.trim(), "The total is 42.");
}

/// Item 3: `__suspended__` then `__usage__` (servers send usage last): the turn is resumed.
#[test]
fn a_suspension_followed_by_usage_is_resumed() {
    let (url, count) = scripted(|n, s| match n {
        0 => close_delimited(
            s,
            "application/json",
            &lines(&[
                CUT,
                ECHO,
                D1,
                r#"{"id":"__suspended__","type":"suspend","code":"chat_suspended","retryable":true,"messageId":"1700000000000-message","error":"paused"}"#,
                USAGE,
            ]),
        ),
        _ => close_delimited(
            s,
            "application/json",
            &lines(&[RESUB_CUT, D1, D2, DONE, STATE, USAGE]),
        ),
    });
    let home = tempfile::tempdir().unwrap();
    let save = home.path().join("run.ndjson");
    let save_arg = save.to_str().unwrap();
    for format in ["final", "ndjson"] {
        count.store(0, Ordering::SeqCst);
        let out = chat(home.path(), &url, &["-o", format, "--save", save_arg, "q"]);
        hs::expect_status(&out, 0, format);
        assert_eq!(count.load(Ordering::SeqCst), 2, "{format}: one resend");
        let (code, stdout, stderr) =
            run_ok(home.path(), &["chat", "--replay", save_arg, "-o", "final"]);
        assert_eq!(
            (code, stdout.trim()),
            (0, "The total is 42."),
            "{format}: {stderr}"
        );
    }
}

/// Item 4: a busy thread is exit 5 however it arrives.
#[test]
fn a_busy_thread_is_exit_5_as_400_409_or_an_error_line() {
    let busy = r#"{"error":"Streaming for thread is in progress"}"#;
    for (what, reply) in [
        ("400 JSON", format!("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{busy}", busy.len())),
        ("400 text", "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 36\r\nconnection: close\r\n\r\nStreaming for thread is in progress\n".to_owned()),
        ("400 nested", format!("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 77\r\nconnection: close\r\n\r\n{}", r#"{"error":{"code":400,"message":"Error: streaming for thread is in progress"}}"#)),
        ("409", format!("HTTP/1.1 409 Conflict\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{busy}", busy.len())),
        ("error line", format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{busy}\n")),
    ] {
        let (url, _) = scripted(move |_, mut s| {
            let _ = s.write_all(reply.as_bytes());
        });
        let home = tempfile::tempdir().unwrap();
        let out = chat(home.path(), &url, &["-o", "final", "--chat-id", "t1", "q"]);
        hs::expect_status(&out, 5, what);
        assert!(hs::outs(&out).1.to_lowercase().contains("streaming for thread is in progress"), "{what}");
    }
}

/// Item 5: a 200 whose body is not NDJSON says what came, not "connection lost".
#[test]
fn a_body_that_is_not_ndjson_is_named() {
    let cases: [(&str, &str, &[u8], &str); 3] = [
        (
            "html",
            "text/html; charset=utf-8",
            b"<!doctype html><html><body>Sign in to continue</body></html>\n",
            "the service answered text/html; charset=utf-8, not NDJSON",
        ),
        (
            "plain",
            "text/plain",
            b"Service temporarily unavailable\n",
            "the service answered text/plain, not NDJSON: Service temporarily unavailable",
        ),
        (
            "utf8",
            "application/octet-stream",
            b"{\"id\":\"\xff\xfe\"}\n",
            "invalid UTF-8 at byte 7",
        ),
    ];
    for (what, content_type, body, said) in cases {
        let (url, count) = scripted(move |_, s| close_delimited(s, content_type, body));
        let home = tempfile::tempdir().unwrap();
        let out = chat(home.path(), &url, &["-o", "ndjson", "q"]);
        hs::expect_status(&out, 1, what);
        let (stdout, stderr) = hs::outs(&out);
        assert!(stderr.contains(said), "{what}: {stderr}");
        assert!(!stderr.contains("connection lost"), "{what}: {stderr}");
        assert!(stdout.is_empty(), "{what}: nothing written: {stdout}");
        assert_eq!(count.load(Ordering::SeqCst), 1, "{what}: not resent");
    }
}

/// A whole 200 body of another kind, however it ends, is said as what it is (PROTOCOL.md:
/// "show whatever text or JSON comes back, trimmed"): text without a final newline was
/// "connection lost" (exit 6); a JSON document that is no frame was "the stream closed before
/// its end" (6) with its message never shown; an auth error printed over several lines was
/// skipped line by line (exit 1) instead of read as the refusal it is (3). `state` reads the
/// same way. A JSON line cut at the end of a JSON body is still a lost connection.
#[test]
fn a_whole_body_of_another_kind_is_named_however_it_ends() {
    let pretty = "{\n  \"jsonrpc\": \"2.0\",\n  \"error\": {\n    \"code\": -32001,\n    \"message\": \"Invalid API key\"\n  }\n}";
    let cases: [(&str, &str, &'static [u8], i32, &str); 5] = [
        (
            "text",
            "text/plain",
            b"Service temporarily unavailable",
            1,
            "the service answered text/plain, not NDJSON: Service temporarily unavailable",
        ),
        (
            "json text",
            "application/json",
            b"Service temporarily unavailable",
            1,
            "the service answered application/json, not NDJSON: Service temporarily unavailable",
        ),
        (
            "not a frame",
            "application/json",
            br#"{"status":"error","message":"quota exceeded"}"#,
            1,
            "with JSON that is not its stream: quota exceeded",
        ),
        (
            "pretty auth error",
            "application/json",
            pretty.as_bytes(),
            3,
            "Invalid API key",
        ),
        (
            "pretty auth error, newline",
            "application/json",
            format!("{pretty}\n").leak().as_bytes(),
            3,
            "Invalid API key",
        ),
    ];
    for (what, content_type, body, code, said) in cases {
        let (url, count) = scripted(move |_, s| close_delimited(s, content_type, body));
        let home = tempfile::tempdir().unwrap();
        let out = chat(home.path(), &url, &["-o", "final", "q"]);
        hs::expect_status(&out, code, what);
        let (stdout, stderr) = hs::outs(&out);
        assert!(stderr.contains(said), "{what}: {stderr}");
        for wrong in [
            "connection lost",
            "skipped",
            "no thread id",
            "closed before",
        ] {
            assert!(!stderr.contains(wrong), "{what}: {stderr}");
        }
        assert!(stdout.is_empty(), "{what}: {stdout}");
        assert_eq!(count.load(Ordering::SeqCst), 1, "{what}: not resent");
        let out = hs::run(
            hs::analyst(home.path())
                .env("ANALYST_CHAT_URL", &url)
                .env("ANALYST_API_KEY", hs::API_KEY)
                .env("ANALYST_EXTERNAL_ID", "bot")
                .args(["state", "--chat-id", "t1", "-o", "json"]),
        );
        hs::expect_status(&out, code, &format!("state: {what}"));
        let (stdout, stderr) = hs::outs(&out);
        assert!(stderr.contains(said), "state: {what}");
        // No empty thread that `| jq` would take for an answer.
        assert!(stdout.is_empty(), "state: {what}: {stdout}");
        // The same body as the answer to the state read of a resume: said as what it is, not
        // "connection lost" after three more tries.
        let (url, count) = scripted(move |n, s| {
            match n {
            0 => close_delimited(
                s,
                "application/json",
                &lines(&[
                    r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"t1","isStreaming":false}}"#,
                    r#"{"id":"a1","sort":1,"role":"assistant","content":"Bo","isDelta":true,"graphPath":["final"]}"#,
                ])
                .into_iter()
                .chain(br#"{"id":"a1","so"#.iter().copied())
                .collect::<Vec<u8>>(),
            ),
            _ => close_delimited(s, content_type, body),
        }
        });
        let out = chat(home.path(), &url, &["-o", "final", "q"]);
        hs::expect_status(&out, code, &format!("resume: {what}"));
        let (stdout, stderr) = hs::outs(&out);
        assert!(
            stderr.contains("reading the thread state") && stderr.contains(said),
            "resume: {what}: {stderr}"
        );
        assert!(stdout.is_empty(), "resume: {what}: {stdout}");
        assert_eq!(count.load(Ordering::SeqCst), 2, "resume: {what}: one read");
    }
    // The front of a JSON line at the end of a JSON body: the connection's loss (resumed).
    let (url, count) = scripted(|_, s| {
        close_delimited(
            s,
            "application/json",
            br#"{"id":"__cutoff__","sort":0,"sta"#,
        )
    });
    let home = tempfile::tempdir().unwrap();
    let out = chat(home.path(), &url, &["-o", "final", "--retries", "0", "q"]);
    hs::expect_status(&out, 6, "a cut first line");
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

/// Item 5: `--replay` speaks of files; an empty file has no final answer (7).
#[test]
fn replay_messages_speak_of_files() {
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("empty.ndjson");
    std::fs::write(&empty, b"").unwrap();
    let (code, _, stderr) = run_ok(
        home.path(),
        &["chat", "--replay", empty.to_str().unwrap(), "-o", "final"],
    );
    assert_eq!(code, 7, "{stderr}");
    assert!(
        stderr.contains("no final answer (the stream is empty)"),
        "{stderr}"
    );
    let cut = home.path().join("cut.ndjson");
    std::fs::write(&cut, lines(&[CUT, D1])).unwrap();
    let (code, _, stderr) = run_ok(
        home.path(),
        &["chat", "--replay", cut.to_str().unwrap(), "-o", "final"],
    );
    assert_eq!(code, 6, "{stderr}");
    assert!(
        stderr.contains("cut.ndjson") && !stderr.contains("connection"),
        "{stderr}"
    );
}

/// Item 6: `chat --fallback` for streams with no final frame (the vendor's examples).
#[test]
fn chat_fallback_takes_the_last_complete_assistant_message() {
    let docs: &[&str] = &[
        r#"{"id":"__cutoff__","role":"assistant","state":{"chatId":"t1","isStreaming":false},"sort":0}"#,
        r#"{"id":"1732512345678-message","role":"user","content":"q","isDelta":false,"sort":1}"#,
        r#"{"id":"b1","role":"assistant","content":"The total ","isDelta":true,"isInProcess":true,"graphPath":["cube_data_analyst_agent"],"sort":2}"#,
        r#"{"id":"b1","role":"assistant","content":"The total is 42.","isDelta":false,"isInProcess":false,"graphPath":["cube_data_analyst_agent"],"sort":3}"#,
        STATE,
    ];
    let body = lines(docs);
    let (url, _) = scripted(move |_, s| close_delimited(s, "application/json", &body));
    let home = tempfile::tempdir().unwrap();
    let out = chat(home.path(), &url, &["-o", "final", "q"]);
    hs::expect_status(&out, 7, "no final frame without --fallback");
    let out = chat(home.path(), &url, &["-o", "final", "--fallback", "q"]);
    hs::expect_status(&out, 0, "--fallback");
    let (stdout, stderr) = hs::outs(&out);
    assert_eq!(stdout.trim(), "The total is 42.");
    assert!(stderr.contains("--fallback"), "a warning says so: {stderr}");
}

/// Item 2, the resend's side: the state read says the turn still streams, the resend joins
/// after the final frames went out and gets only `__state__`. The answer comes from that state,
/// live and from the saved file alike (the resend's `__cutoff__` is written as the mark).
#[test]
fn a_resend_that_missed_the_final_frames_takes_the_answer_from_its_state() {
    let (url, count) = scripted(|n, s| match n {
        0 => close_delimited(s, "application/json", &lines(&[CUT, ECHO, D1])),
        1 => close_delimited(s, "application/json", &lines(&[RESUB_CUT, STATE])),
        _ => close_delimited(s, "application/json", &lines(&[RESUB_CUT, STATE, USAGE])),
    });
    let home = tempfile::tempdir().unwrap();
    let save = home.path().join("run.ndjson");
    let save_arg = save.to_str().unwrap();
    let out = chat(home.path(), &url, &["-o", "final", "--save", save_arg, "q"]);
    hs::expect_status(&out, 0, "resend");
    assert_eq!(hs::outs(&out).0.trim(), "The total is 42.");
    assert_eq!(count.load(Ordering::SeqCst), 3, "send, read, resend");
    assert_eq!(
        std::fs::read(&save).unwrap(),
        lines(&[CUT, ECHO, D1, RESUB_CUT, STATE, USAGE])
    );
    for args in [
        vec!["extract-final", save_arg],
        vec!["chat", "--replay", save_arg, "-o", "final"],
    ] {
        let (code, stdout, stderr) = run_ok(home.path(), &args);
        assert_eq!(
            (code, stdout.trim()),
            (0, "The total is 42."),
            "{args:?}: {stderr}"
        );
    }
}
