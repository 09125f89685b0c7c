//! Matrix 4: hostile local input for every command. One table: each case runs the binary with
//! stdin closed and fails on a panic or status 101; it asserts the documented status and that
//! stderr names the culprit (flag or file).

use crate::common;

use common::hardening::*;

#[test]
fn hostile_local_input_is_a_usage_error_naming_the_culprit() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = h.join("adir");
    std::fs::create_dir(&dir).unwrap();
    let empty = h.join("empty.json");
    std::fs::write(&empty, "").unwrap();
    let bad_json = h.join("bad.json");
    std::fs::write(&bad_json, "{\"externalId\": ").unwrap();
    let bad_yaml = h.join("bad.yaml");
    std::fs::write(&bad_yaml, "externalId: [unclosed\n  - x: {").unwrap();
    let list_yaml = h.join("list.yml");
    std::fs::write(&list_yaml, "- a\n- b\n").unwrap();
    let unreadable = h.join("secret.json");
    std::fs::write(&unreadable, "{}").unwrap();
    std::fs::set_permissions(
        &unreadable,
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    let binary = h.join("bin.ndjson");
    std::fs::write(&binary, b"\xff\xfe\x00garbage\n").unwrap();
    let (d, e, bj, by, ly, u, m, b) = (
        dir.to_str().unwrap(),
        empty.to_str().unwrap(),
        bad_json.to_str().unwrap(),
        bad_yaml.to_str().unwrap(),
        list_yaml.to_str().unwrap(),
        unreadable.to_str().unwrap(),
        h.join("missing.json"),
        binary.to_str().unwrap(),
    );
    let m = m.to_str().unwrap();
    let url = "http://127.0.0.1:9/api/v1/public/a/agents/1/chat/stream-chat-state";
    let chat = |rest: &[&str]| -> Vec<String> {
        ["chat", "--url", url, "--external-id", "bot"]
            .iter()
            .chain(rest)
            .map(|s| s.to_string())
            .collect()
    };
    let at = |p: &str| format!("@{p}");
    // (args, status, words stderr must contain)
    let mut cases: Vec<(Vec<String>, i32, Vec<&str>)> = vec![
        (vec!["--bogus".into()], 2, vec!["--bogus"]),
        (
            vec!["chat".into(), "--retries".into(), "many".into(), "x".into()],
            2,
            vec!["--retries"],
        ),
        (
            vec![
                "chat".into(),
                "--idle-timeout".into(),
                "soon".into(),
                "x".into(),
            ],
            2,
            vec!["--idle-timeout"],
        ),
        (
            vec!["chat".into(), "--color".into(), "purple".into(), "x".into()],
            2,
            vec!["--color"],
        ),
        (
            vec!["chat".into(), "-o".into(), "table".into(), "x".into()],
            2,
            vec!["table"],
        ),
        (
            chat(&["--external-id", "Has Space", "x"]),
            2,
            vec!["external"],
        ),
        (chat(&["--internal-id", "a@b.c", "x"]), 2, vec!["internal"]),
        (chat(&["--attr", "novalue", "x"]), 2, vec!["--attr"]),
        (chat(&["--url", "not a url", "x"]), 2, vec!["--url"]),
        (
            chat(&["--url", "ftp://h/x/chat/stream-chat-state", "x"]),
            2,
            vec!["url"],
        ),
        (chat(&["--session", "{not json", "x"]), 2, vec!["--session"]),
        (
            chat(&["--session", &at(bj), "x"]),
            2,
            vec!["--session", "bad.json"],
        ),
        (
            chat(&["--session", &at(by), "x"]),
            2,
            vec!["--session", "bad.yaml"],
        ),
        (chat(&["--session", ly, "x"]), 2, vec!["--session"]),
        (
            chat(&["--session", &at(m), "x"]),
            2,
            vec!["--session", "missing.json"],
        ),
        (
            chat(&["--session", &at(d), "x"]),
            2,
            vec!["--session", "adir"],
        ),
        (
            chat(&["--session", &at(e), "x"]),
            2,
            vec!["--session", "empty.json"],
        ),
        (
            chat(&["--session", &at(u), "x"]),
            2,
            vec!["--session", "secret.json"],
        ),
        (chat(&["--session", "-", "x"]), 2, vec!["--session"]),
        (
            chat(&["--security-context", "[1,", "x"]),
            2,
            vec!["--security-context"],
        ),
        (chat(&["--body", "{\"input\": 3", "x"]), 2, vec!["--body"]),
        (chat(&["--body", &at(by)]), 2, vec!["--body", "bad.yaml"]),
        (chat(&["--body", &at(d)]), 2, vec!["--body", "adir"]),
        (chat(&["--body", "[1,2]"]), 2, vec!["--body"]),
        (
            chat(&["--image", m, "x"]),
            2,
            vec!["--image", "missing.json"],
        ),
        (chat(&["--image", d, "x"]), 2, vec!["--image", "adir"]),
        (chat(&["--replay", m]), 2, vec!["--replay", "missing.json"]),
        (chat(&["--replay", d]), 2, vec!["--replay", "adir"]),
        (
            chat(&["--api-key-file", m, "x"]),
            2,
            vec!["--api-key-file", "missing.json"],
        ),
        (
            chat(&["--api-key-file", e, "x"]),
            2,
            vec!["--api-key-file", "empty.json"],
        ),
        (
            chat(&["--api-key-file", "-", "x"]),
            2,
            vec!["--api-key-file"],
        ),
        (chat(&["-"]), 2, vec!["stdin"]),
        (chat(&[]), 2, vec!["message"]),
        (
            vec!["chat".into(), "--config".into(), bj.into(), "x".into()],
            2,
            vec!["bad.json"],
        ),
        (
            vec!["chat".into(), "--config".into(), d.into(), "x".into()],
            2,
            vec!["adir"],
        ),
        (
            vec![
                "chat".into(),
                "--profile".into(),
                "nope".into(),
                "--url".into(),
                url.into(),
                "x".into(),
            ],
            2,
            vec!["nope"],
        ),
        (
            vec![
                "state".into(),
                "--url".into(),
                url.into(),
                "--external-id".into(),
                "bot".into(),
            ],
            2,
            vec!["--chat-id"],
        ),
        (
            vec![
                "state".into(),
                "--url".into(),
                url.into(),
                "--external-id".into(),
                "bot".into(),
                "--chat-id".into(),
                "c".into(),
                "--body".into(),
                at(d),
            ],
            2,
            vec!["--body"],
        ),
        (
            vec![
                "state".into(),
                "--url".into(),
                url.into(),
                "--chat-id".into(),
                "c".into(),
                "--session".into(),
                at(bj),
            ],
            2,
            vec!["--session"],
        ),
        (
            vec![
                "abort".into(),
                "--url".into(),
                url.into(),
                "--external-id".into(),
                "bot".into(),
            ],
            2,
            vec!["--chat-id"],
        ),
        (
            vec![
                "abort".into(),
                "--url".into(),
                url.into(),
                "--chat-id".into(),
                "c".into(),
                "--external-id".into(),
                "A B".into(),
            ],
            2,
            vec!["external"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--deactivate".into(),
            ],
            2,
            vec!["id"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "x".into(),
            ],
            2,
            vec!["--deactivate"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--replace".into(),
                "active".into(),
                "x".into(),
            ],
            2,
            vec!["--replace"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--add".into(),
                "emails:=[oops".into(),
                "x".into(),
            ],
            2,
            vec!["--add"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--body".into(),
                at(by),
                "x".into(),
            ],
            2,
            vec!["--body"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--ids-from".into(),
                m.into(),
                "--deactivate".into(),
            ],
            2,
            vec!["--ids-from", "missing.json"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--ids-from".into(),
                d.into(),
                "--deactivate".into(),
            ],
            2,
            vec!["--ids-from", "adir"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--ids-from".into(),
                "-".into(),
                "--deactivate".into(),
            ],
            2,
            vec!["id"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "-j".into(),
                "0".into(),
                "--deactivate".into(),
                "x".into(),
            ],
            2,
            vec!["-j"],
        ),
        (
            vec![
                "scim".into(),
                "patch".into(),
                "--scim-url".into(),
                "http://127.0.0.1:9".into(),
                "--scim-token-file".into(),
                m.into(),
                "--deactivate".into(),
                "x".into(),
            ],
            2,
            vec!["--scim-token-file"],
        ),
        (
            vec!["extract-final".into(), m.into()],
            2,
            vec!["missing.json"],
        ),
        (vec!["extract-final".into(), d.into()], 2, vec!["adir"]),
        (
            vec!["extract-final".into(), u.into()],
            2,
            vec!["secret.json"],
        ),
        (
            vec!["extract-final".into(), "-".into(), "-".into()],
            2,
            vec!["stdin"],
        ),
        (
            vec!["extract-final".into(), "--strict".into(), b.into()],
            2,
            vec!["bin.ndjson"],
        ),
        (vec!["extract-final".into(), e.into()], 7, vec![]),
        (vec!["extract-final".into()], 7, vec![]),
        (
            vec!["serve".into(), "--listen".into(), "nowhere".into()],
            2,
            vec!["--listen"],
        ),
        (
            vec!["serve".into(), "--fault".into(), "drop-after=x".into()],
            2,
            vec!["drop-after"],
        ),
        (
            vec!["serve".into(), "--model".into(), by.into()],
            2,
            vec!["bad.yaml"],
        ),
        (
            vec!["serve".into(), "--model".into(), d.into()],
            2,
            vec!["adir"],
        ),
        (
            vec!["serve".into(), "--data".into(), m.into()],
            2,
            vec!["missing.json"],
        ),
        (
            vec!["serve".into(), "--api-key-file".into(), e.into()],
            2,
            vec!["--api-key-file"],
        ),
        (
            vec!["serve".into(), "--pace".into(), "fast".into()],
            2,
            vec!["--pace"],
        ),
        (vec!["completions".into(), "tcsh".into()], 2, vec!["tcsh"]),
        (vec!["completions".into()], 2, vec!["SHELL"]),
    ];
    // Running as root, a mode-000 file is still readable: drop the cases that need it not to be.
    if std::fs::read(&unreadable).is_ok() {
        cases.retain(|(args, _, _)| !args.iter().any(|a| a.contains("secret.json")));
    }
    let mut failures = Vec::new();
    let n = cases.len();
    for (args, code, words) in &cases {
        let out = run(analyst(h)
            .env("ANALYST_API_KEY", API_KEY)
            .env("ANALYST_SCIM_TOKEN", SCIM_TOKEN)
            .args(args));
        let (_, stderr) = outs(&out);
        let named = words.iter().all(|w| stderr.contains(w));
        if stderr.contains("panicked") || out.status.code() != Some(*code) || !named {
            failures.push(format!(
                "{args:?}: exit {:?} (want {code}, words {words:?}): {}",
                out.status.code(),
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
