//! Matrix 5: no command prints the API key, the token or the SCIM token, with `-vv`,
//! `--dry-run`, or on an error path (401, 403, 500, network error, bad URL).

use crate::common;

use common::hardening::*;

#[test]
fn no_secret_is_ever_printed() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let emu = emulator(&[]);
    let key_file = h.join("key");
    std::fs::write(&key_file, format!("{API_KEY}\n")).unwrap();
    // A server that answers every request with one status (its body echoes nothing secret).
    let status_server = |code: u16| {
        raw_server(true, move |s, _| {
            use std::io::Write;
            let body = format!("{{\"error\":\"status {code}\"}}");
            let _ = (&s).write_all(format!("HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).as_bytes());
        })
        .0
    };
    let mut bases: Vec<(String, String)> = vec![
        ("emulator".into(), emu.running.chat_url.clone()),
        ("network error".into(), chat_url("http://127.0.0.1:9")),
        (
            "bad url".into(),
            format!("http://{API_KEY}@[::1/chat/stream-chat-state"),
        ),
    ];
    for code in [401, 403, 500] {
        bases.push((format!("{code}"), chat_url(&status_server(code))));
    }
    let id = emu.user_id("ana@example.com");
    let mut n = 0;
    let mut failures = Vec::new();
    for (what, url) in &bases {
        let scim_url = if what == "emulator" {
            emu.running.scim_url.clone()
        } else {
            url.replace(
                "/api/v1/public/acme/agents/3/chat/stream-chat-state",
                "/api/scim/v2",
            )
        };
        let commands: Vec<Vec<&str>> = vec![
            vec![
                "chat",
                "--url",
                url,
                "--external-id",
                "bot",
                "-o",
                "ndjson",
                "hi",
            ],
            vec![
                "state",
                "--url",
                url,
                "--external-id",
                "bot",
                "--chat-id",
                "c1",
            ],
            vec![
                "abort",
                "--url",
                url,
                "--external-id",
                "bot",
                "--chat-id",
                "c1",
            ],
            vec![
                "scim",
                "patch",
                "--scim-url",
                &scim_url,
                "--deactivate",
                &id,
            ],
        ];
        for cmd in commands {
            for extra in [&["-vv"][..], &["--dry-run"], &["-vv", "--dry-run"]] {
                for auth in ["key", "token", "key-file"] {
                    let mut c = analyst(h);
                    match auth {
                        "key" => c.env("ANALYST_API_KEY", API_KEY),
                        "token" => c.env("ANALYST_TOKEN", TOKEN),
                        _ => c.args(["--api-key-file", key_file.to_str().unwrap()]),
                    };
                    c.env("ANALYST_SCIM_TOKEN", SCIM_TOKEN)
                        .args(extra)
                        .args(&cmd);
                    let out = run(&mut c);
                    n += 1;
                    let (stdout, stderr) = outs(&out);
                    for secret in [API_KEY, TOKEN, SCIM_TOKEN] {
                        if stdout.contains(secret) || stderr.contains(secret) {
                            failures.push(format!("{what} {auth} {extra:?} {cmd:?}: {secret} printed\n{stdout}\n{stderr}"));
                        }
                    }
                    if stderr.contains("panicked") {
                        failures.push(format!("{what} {extra:?} {cmd:?}: panic {stderr}"));
                    }
                }
            }
        }
    }
    // The emulator prints the secrets it serves with on purpose; the client never does.
    assert!(
        failures.is_empty(),
        "{} of {n} runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A server that echoes the secret back in its error reaches `-o json` / `-o yaml` through the
/// run's own `error` field (analyst's message, as on stderr), and `-o ndjson` and `--save`
/// through the raw line: masked in all of them.
#[test]
fn an_echoed_secret_is_masked_in_documents_too() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let body = |status: &str, body: String| json_reply(status, &body);
    let answers = [
        // An error line in a 200 stream.
        body(
            "200 OK",
            format!(
                "{{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{{\"chatId\":\"c1\",\"isStreaming\":false}}}}\n{{\"error\":\"bad credentials Api-Key {API_KEY}\"}}\n"
            ),
        ),
        // A JSON-RPC refusal in a 200 (the docs/legacy servers).
        body(
            "200 OK",
            format!(
                "{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":-32001,\"message\":\"Unauthorized key {API_KEY}\"}}}}"
            ),
        ),
        body(
            "401 Unauthorized",
            format!("{{\"error\":\"no such key {API_KEY}\"}}"),
        ),
    ];
    for answer in answers {
        let (base, _) = raw_server(true, move |s, _| {
            use std::io::Write;
            let _ = (&s).write_all(answer.as_bytes());
        });
        for format in ["json", "yaml", "ndjson"] {
            let save = h.join("saved.ndjson");
            let mut c = analyst(h);
            c.env("ANALYST_API_KEY", API_KEY).args([
                "chat",
                "--url",
                &chat_url(&base),
                "--external-id",
                "bot",
                "--save",
                save.to_str().unwrap(),
                "-o",
                format,
                "hi",
            ]);
            let out = run(&mut c);
            let (stdout, stderr) = outs(&out);
            let saved = std::fs::read_to_string(&save).unwrap_or_default();
            assert_ne!(out.status.code(), Some(0), "{stdout}{stderr}");
            assert!(
                !stdout.contains(API_KEY) && !stderr.contains(API_KEY) && !saved.contains(API_KEY),
                "-o {format}: the key printed\n{stdout}\n{stderr}\n{saved}"
            );
        }
    }
    // SCIM: `-o json` results of several users carry each failure's message.
    let (base, _) = raw_server(true, |s, _| {
        use std::io::Write;
        let b = format!("{{\"detail\":\"token {SCIM_TOKEN} revoked\",\"status\":\"401\"}}");
        let _ = (&s).write_all(format!("HTTP/1.1 401 Unauthorized\r\ncontent-type: application/scim+json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}", b.len()).as_bytes());
    });
    let mut c = analyst(h);
    c.env("ANALYST_SCIM_TOKEN", SCIM_TOKEN).args([
        "scim",
        "patch",
        "--scim-url",
        &format!("{base}/scim/v2"),
        "--deactivate",
        "-o",
        "json",
        "u1",
        "u2",
    ]);
    let out = run(&mut c);
    let (stdout, stderr) = outs(&out);
    assert!(stdout.contains("revoked"), "{stdout}{stderr}");
    assert!(
        !stdout.contains(SCIM_TOKEN) && !stderr.contains(SCIM_TOKEN),
        "scim: the token printed\n{stdout}\n{stderr}"
    );
}

/// A service that puts the key inside an answer: every format prints it as `***` (it was
/// printed whole outside `-o ndjson`), and the live `-o final` answer is the one
/// `extract-final` and `--replay -o final` give from the run's `--save` file (CLI.md's truth).
/// `state` shows the same thread masked in every format.
#[test]
fn a_secret_inside_an_answer_is_masked_in_every_format() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let stream = format!(
        concat!(
            "{{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{{\"chatId\":\"c1\",\"isStreaming\":false}}}}\n",
            "{{\"id\":\"1718000000000-message-final\",\"role\":\"assistant\",\"content\":\"your key is {k}\",\"isDelta\":false,\"isInProcess\":false,\"graphPath\":[\"final\"],\"sort\":1}}\n",
            "{{\"id\":\"__state__\",\"sort\":2,\"state\":{{\"messages\":[",
            "{{\"lc\":1,\"type\":\"constructor\",\"id\":[\"langchain_core\",\"messages\",\"HumanMessage\"],\"kwargs\":{{\"content\":\"hi\"}}}},",
            "{{\"lc\":1,\"type\":\"constructor\",\"id\":[\"langchain_core\",\"messages\",\"AIMessage\"],\"kwargs\":{{\"content\":\"your key is {k}\"}}}}]}}}}\n"
        ),
        k = API_KEY
    );
    let reply = json_reply("200 OK", &stream);
    let (base, _) = raw_server(true, move |s, _| {
        use std::io::Write;
        let _ = (&s).write_all(reply.as_bytes());
    });
    let url = chat_url(&base);
    let save = h.join("saved.ndjson");
    let mut live_final = String::new();
    for format in ["final", "text", "json", "yaml", "ndjson"] {
        let mut c = analyst(h);
        c.env("ANALYST_API_KEY", API_KEY).args([
            "chat",
            "--url",
            &url,
            "--external-id",
            "bot",
            "-o",
            format,
            "--save",
        ]);
        c.arg(&save).arg("hi");
        let out = run(&mut c);
        let (stdout, stderr) = outs(&out);
        assert_eq!(out.status.code(), Some(0), "-o {format}: {stderr}");
        let saved = std::fs::read_to_string(&save).unwrap();
        assert!(
            !stdout.contains(API_KEY) && !stderr.contains(API_KEY) && !saved.contains(API_KEY),
            "-o {format}: the key printed\n{stdout}\n{stderr}\n{saved}"
        );
        assert!(stdout.contains("your key is ***"), "-o {format}: {stdout}");
        if format == "final" {
            live_final = stdout;
        }
    }
    let replayed = run(analyst(h)
        .args(["chat", "-o", "final", "--replay"])
        .arg(&save));
    let extracted = run(analyst(h).arg("extract-final").arg(&save));
    assert_eq!(outs(&replayed).0, live_final);
    assert_eq!(outs(&extracted).0, live_final);
    for format in ["json", "yaml", "table", "ndjson"] {
        let mut c = analyst(h);
        c.env("ANALYST_API_KEY", API_KEY).args([
            "state",
            "--url",
            &url,
            "--external-id",
            "bot",
            "--chat-id",
            "c1",
            "-o",
            format,
        ]);
        let out = run(&mut c);
        let (stdout, stderr) = outs(&out);
        assert_eq!(out.status.code(), Some(0), "state -o {format}: {stderr}");
        assert!(
            !stdout.contains(API_KEY) && stdout.contains("***"),
            "state -o {format}: {stdout}"
        );
    }
}

/// A token the data API echoes inside a row (`sql`, MCP `run_sql`), and a key inside a thread
/// state read by MCP `thread_state`: masked like chat's lines (they were printed whole).
#[test]
fn secrets_in_rows_and_in_mcp_state_reads_are_masked() {
    use std::io::{BufRead, BufReader, Write};
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let reply = |body: String| json_reply("200 OK", &body);
    let rows = reply(format!(
        "{{\"schema\":[{{\"name\":\"note\",\"column_type\":\"string\"}}]}}\n{{\"data\":[[\"token {TOKEN} here\"]]}}\n"
    ));
    let state = reply(format!(
        concat!(
            "{{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{{\"chatId\":\"c1\",\"isStreaming\":false}}}}\n",
            "{{\"id\":\"__state__\",\"sort\":1,\"state\":{{\"messages\":[",
            "{{\"lc\":1,\"type\":\"constructor\",\"id\":[\"langchain_core\",\"messages\",\"AIMessage\"],\"kwargs\":{{\"content\":\"key {k}\"}}}}]}}}}\n"
        ),
        k = API_KEY
    ));
    let (base, _) = raw_server(true, move |s, head| {
        let body = if head.contains("cubesql") {
            &rows
        } else {
            &state
        };
        let _ = (&s).write_all(body.as_bytes());
    });
    for format in ["csv", "json", "table", "ndjson"] {
        let out = run(analyst(h).env("ANALYST_DATA_TOKEN", TOKEN).args([
            "sql",
            "--data-url",
            &base,
            "-o",
            format,
            "SELECT note FROM x",
        ]));
        let (stdout, stderr) = outs(&out);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        assert!(
            !stdout.contains(TOKEN) && stdout.contains("***"),
            "sql -o {format}: {stdout}"
        );
    }
    let mut child = analyst(h)
        .env("ANALYST_API_KEY", API_KEY)
        .env("ANALYST_DATA_TOKEN", TOKEN)
        .args(["mcp", "--url", &chat_url(&base), "--external-id", "bot"])
        .args(["--data-url", &base])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answer = |stdin: &mut std::process::ChildStdin, id: u64, msg: serde_json::Value| {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = lines.next().expect("an answer").unwrap();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return line;
            }
        }
    };
    answer(
        &mut stdin,
        1,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    writeln!(
        stdin,
        "{}",
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    for (id, tool, args) in [
        (2, "thread_state", serde_json::json!({"chatId": "c1"})),
        (
            3,
            "run_sql",
            serde_json::json!({"query": "SELECT note FROM x"}),
        ),
    ] {
        let line = answer(
            &mut stdin,
            id,
            serde_json::json!({"jsonrpc": "2.0", "id": id,
            "method": "tools/call", "params": {"name": tool, "arguments": args}}),
        );
        assert!(
            !line.contains(API_KEY) && !line.contains(TOKEN) && line.contains("***"),
            "{tool}: {line}"
        );
    }
    drop(stdin);
    let _ = child.wait();
}

/// A key split across two chunks of the answer (a service streams token by token): `-o text`
/// prints the answer as it streams, and never the key's halves (each line was masked whole,
/// and neither held the whole key).
#[test]
fn a_secret_split_across_chunks_is_not_printed_in_halves() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (front, back) = API_KEY.split_at(6);
    let frame = |content: &str, delta: bool, sort: u32| {
        serde_json::json!({"id": "1718000000000-message-final", "role": "assistant",
            "content": content, "isDelta": delta, "isInProcess": delta,
            "graphPath": ["final"], "sort": sort})
        .to_string()
    };
    let stream = [
        r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":false}}"#.to_owned(),
        frame(&format!("your key is {front}"), true, 1),
        frame(&format!("{back}, kept"), true, 2),
        frame(&format!("your key is {API_KEY}, kept"), false, 3),
        r#"{"id":"__state__","sort":4,"state":{"messages":[]}}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    let reply = json_reply("200 OK", &stream);
    let (base, _) = raw_server(true, move |s, _| {
        use std::io::Write;
        let _ = (&s).write_all(reply.as_bytes());
    });
    let out = run(analyst(h).env("ANALYST_API_KEY", API_KEY).args([
        "chat",
        "--url",
        &chat_url(&base),
        "--external-id",
        "bot",
        "-o",
        "text",
        "hi",
    ]));
    let (stdout, stderr) = outs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stdout.contains(front) && !stdout.contains(back),
        "a half of the key printed: {stdout}"
    );
    assert_eq!(stdout.trim_end(), "your key is ***, kept", "{stdout}");
}
