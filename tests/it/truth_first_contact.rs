//! Issue 11, first contact: what a new user meets in the first minutes must be true. `--demo`
//! answers as the `demo` user whatever the config says, and keeps its threads between runs;
//! a missing credential is a usage error before anything is sent; the install steps, the serve
//! help and the serve banner's "Try:" lines work when pasted.

use crate::common;

use common::scripted::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const QUESTION: &str = "Total revenue in 2025";

/// A config whose default profile names another user, with a row-level security attribute.
const CONFIG: &str = "default_profile: work
profiles:
  work:
    session:
      externalId: ci-bot
      userAttributes: [{name: region, value: Europe}]
";

fn write_config(home: &Path) {
    let dir = home.join("config/analyst");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), CONFIG).unwrap();
}

/// `chat --demo ARGS...` in `home`; (status, stdout, stderr).
fn demo(home: &Path, envs: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let out = analyst(home)
        .envs(envs.iter().copied())
        .args(["chat", "--demo"])
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// The body `--dry-run` prints after the headers.
fn dry_run_body(home: &Path, envs: &[(&str, &str)], args: &[&str]) -> Value {
    let mut all = vec!["--dry-run"];
    all.extend_from_slice(args);
    all.push(QUESTION);
    let (code, out, err) = demo(home, envs, &all);
    assert_eq!(code, 0, "{err}");
    let (_, body) = out
        .split_once("\n\n")
        .expect("headers, a blank line, the body");
    serde_json::from_str(body).unwrap()
}

fn demo_json(home: &Path, envs: &[(&str, &str)], args: &[&str]) -> Value {
    let mut all = vec!["-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = demo(home, envs, &all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

// ----- item 10: --demo's identity -----

#[test]
fn demo_identity_ignores_profile_and_environment() {
    let home = tempfile::tempdir().unwrap();
    write_config(home.path());
    let env = [("ANALYST_EXTERNAL_ID", "someone-else")];
    let body = dry_run_body(home.path(), &env, &[]);
    assert_eq!(
        body["sessionSettings"],
        serde_json::json!({"externalId": "demo"}),
        "profile and environment identities must not leak into --demo: {body}"
    );
    // Identity flags still apply.
    let body = dry_run_body(home.path(), &env, &["--external-id", "alice"]);
    assert_eq!(body["sessionSettings"]["externalId"], "alice", "{body}");
}

#[test]
fn demo_numbers_do_not_change_when_a_config_file_appears() {
    let plain = tempfile::tempdir().unwrap();
    let configured = tempfile::tempdir().unwrap();
    write_config(configured.path());
    let question = "Revenue by region in 2025";
    let before = demo_json(plain.path(), &[], &[question]);
    let after = demo_json(configured.path(), &[], &[question]);
    assert_eq!(before["final"], after["final"]);
}

// ----- item 14: missing credentials -----

#[test]
fn missing_api_key_is_a_usage_error_and_nothing_is_sent() {
    let server = Server::always(happy(MID));
    let home = tempfile::tempdir().unwrap();
    let url = server.url();
    for args in [
        vec!["chat", "--url", &url, "--external-id", "bot", "hello"],
        vec![
            "state",
            "--url",
            &url,
            "--external-id",
            "bot",
            "--chat-id",
            "c1",
        ],
        vec![
            "abort",
            "--url",
            &url,
            "--external-id",
            "bot",
            "--chat-id",
            "c1",
        ],
    ] {
        let out = analyst(home.path()).args(&args).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for place in ["--api-key-file", "ANALYST_API_KEY", "api_key"] {
            assert!(err.contains(place), "{args:?} should name {place}: {err}");
        }
    }
    assert!(server.seen().is_empty(), "{:?}", server.seen());
}

#[test]
fn missing_scim_token_is_a_usage_error_and_nothing_is_sent() {
    let server = Server::always(Vec::new());
    let home = tempfile::tempdir().unwrap();
    let root = format!("{}/api/scim/v2", server.base);
    let out = analyst(home.path())
        .args(["scim", "patch", "--scim-url", &root, "u1", "--deactivate"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for place in ["--scim-token-file", "ANALYST_SCIM_TOKEN", "scim_token"] {
        assert!(err.contains(place), "should name {place}: {err}");
    }
    assert!(server.seen().is_empty());
}

#[test]
fn serve_data_that_is_not_sqlite_is_a_usage_error_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("notsqlite.txt");
    std::fs::write(&file, "region,revenue\nEurope,1\n").unwrap();
    let out = analyst(home.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(&file)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--data"), "{err}");
    assert!(err.contains("notsqlite.txt"), "{err}");
    assert!(err.contains("SQLite"), "{err}");
}

// ----- item 16: install steps and the release profile -----

/// The first ```sh block after `heading` in the manual's install page.
fn readme_block(heading: &str) -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/install.md")).unwrap();
    let section = &readme[readme.find(heading).expect(heading)..];
    let start = section.find("```sh\n").unwrap() + "```sh\n".len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_owned()
}

/// PATH with the directory of the binary under test first, so pasted `analyst` lines run it.
fn path_with_binary() -> String {
    let dir = Path::new(env!("CARGO_BIN_EXE_analyst"))
        .parent()
        .unwrap()
        .to_owned();
    let mut paths = vec![dir];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap().into_string().unwrap()
}

/// `bash -c script` with `analyst` on PATH, isolated in `home`.
fn bash(home: &Path, script: &str) -> std::process::Output {
    let mut cmd = Command::new("bash");
    cmd.current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("NO_COLOR", "1")
        .env("PATH", path_with_binary())
        .args(["-euo", "pipefail", "-c", script]);
    assert_cmd::Command::from_std(cmd)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

#[test]
fn readme_install_steps_work_on_a_fresh_machine() {
    let cargo = readme_block("## With cargo");
    assert!(
        cargo.lines().any(|l| l.starts_with("cargo install")),
        "{cargo}"
    );
    let block = format!("{cargo}\n{}", readme_block("## Shell completions"));
    let mut rest = Vec::new();
    for line in block.lines() {
        let command = line.split(" #").next().unwrap().trim();
        if command.starts_with("cargo install") {
            assert!(
                command.contains("--locked"),
                "install with the tested Cargo.lock: {line}"
            );
        } else if !command.is_empty() {
            rest.push(command.to_owned());
        }
    }
    let home = tempfile::tempdir().unwrap();
    let out = bash(home.path(), &rest.join("\n"));
    assert!(out.status.success(), "{rest:?}: {}", text(&out.stderr));
    let script = home
        .path()
        .join(".local/share/bash-completion/completions/analyst");
    assert!(std::fs::metadata(script).unwrap().len() > 0);
}

#[test]
fn release_builds_strip_debug_info_and_the_readme_says_the_size() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let release = manifest.split("[profile.release]").nth(1).unwrap();
    let release = release.split("\n[").next().unwrap();
    assert!(release.contains("strip ="), "{release}");
    let dist = manifest.split("[profile.dist]").nth(1).unwrap();
    let dist = dist.split("\n[").next().unwrap();
    assert!(dist.contains("strip = true"), "{dist}");
    let perf = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/performance.md"))
        .unwrap();
    let size = perf.split("## Binary size").nth(1).unwrap();
    let size = size.split("\n## ").next().unwrap();
    assert!(
        size.contains(" MB") && size.contains("Bytes"),
        "the manual states the binary's size, measured"
    );
}

// ----- item 17: serve's help and banner -----

/// A `serve` child, killed when dropped.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_help_example_returns() {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = text(&out.stdout);
    assert!(
        !help.contains("| head -1"),
        "that pipe never returns: {help}"
    );
    let examples = &help[help.find("Examples:").unwrap()..];
    // The scripted example: every line of it from the one that starts the server in the background.
    let script: Vec<&str> = examples
        .lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with("coproc"))
        .take_while(|l| !l.is_empty() && !l.starts_with("analyst serve"))
        .collect();
    assert!(!script.is_empty(), "a scripted example: {examples}");
    // A machine with only the Rust toolchain may lack jq: a stand-in for `jq -r .chatUrl`.
    let shim =
        "command -v jq >/dev/null || jq() { grep -o '\"chatUrl\":\"[^\"]*' | cut -d'\"' -f4; }";
    let out = bash(home.path(), &format!("{shim}\n{}", script.join("\n")));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{script:?}: {}", text(&out.stderr));
    assert!(
        stdout.trim().ends_with("/chat/stream-chat-state"),
        "{script:?} printed {stdout:?}"
    );
}

#[test]
fn serve_banner_try_lines_work_when_pasted() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_analyst"));
    cmd.env_clear()
        .env("HOME", home.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--pace", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut serve = Serve(cmd.spawn().unwrap());
    let mut banner = Vec::new();
    for line in BufReader::new(serve.0.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let last = line.trim_start().starts_with("ANALYST_SCIM_TOKEN=");
        banner.push(line);
        if last {
            break;
        }
    }
    let banner = banner.join("\n");

    // The chat line: its answer sees data.
    let chat = banner
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("ANALYST_API_KEY="))
        .expect(&banner);
    assert!(!chat.contains("VALUE"), "{chat}");
    let out = bash(
        home.path(),
        &format!("{chat} > stream.ndjson; analyst extract-final stream.ndjson"),
    );
    let answer = text(&out.stdout);
    assert!(out.status.success(), "{chat}: {}", text(&out.stderr));
    assert!(
        answer.contains('$') && !answer.contains("no data"),
        "{chat}: {answer}"
    );

    // Every SCIM user's id is in the banner, and patching by it works.
    let users: Vec<&str> = banner
        .lines()
        .filter(|l| l.contains("@example.com") && !l.contains("scim patch"))
        .collect();
    assert_eq!(users.len(), 3, "{banner}");
    let token = banner
        .split("ANALYST_SCIM_TOKEN=")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let scim_url = banner
        .lines()
        .find(|l| l.trim_start().starts_with("SCIM URL"))
        .unwrap()
        .split_whitespace()
        .last()
        .unwrap();
    let bo = users.iter().find(|l| l.contains("bo@example.com")).unwrap();
    let id = bo
        .split_whitespace()
        .skip_while(|w| *w != "id")
        .nth(1)
        .expect(bo);
    let out = bash(
        home.path(),
        &format!(
            "ANALYST_SCIM_TOKEN={token} analyst scim patch --scim-url {scim_url} {id} --deactivate -o json"
        ),
    );
    assert!(out.status.success(), "{id}: {}", text(&out.stderr));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["active"],
        false
    );

    // The SCIM line, pasted, works too (bo is already inactive: patching again is fine).
    let scim = banner
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("ANALYST_SCIM_TOKEN="))
        .unwrap();
    let out = bash(home.path(), scim);
    assert!(out.status.success(), "{scim}: {}", text(&out.stderr));
}

// ----- item 18: demo threads between runs -----

#[test]
fn demo_follow_up_continues_the_thread_of_the_last_run() {
    let home = tempfile::tempdir().unwrap();
    let first = demo_json(home.path(), &[], &["Revenue in Germany last month"]);
    let chat_id = first["chatId"].as_str().unwrap().to_owned();
    // A follow-up in a new process: the thread, and what its turns asked for, were kept.
    let second = demo_json(home.path(), &[], &["-c", "and last year?"]);
    assert_eq!(second["chatId"], chat_id.as_str(), "{second}");
    let answer = second["final"].as_str().unwrap();
    assert!(
        answer.contains("Germany") && answer.contains("last year"),
        "the follow-up keeps the first question's filter: {answer}"
    );
    // --chat-id names a demo thread just as well.
    let third = demo_json(home.path(), &[], &["--chat-id", &chat_id, "and in France?"]);
    assert_eq!(third["chatId"], chat_id.as_str(), "{third}");
    let answer = third["final"].as_str().unwrap();
    assert!(
        answer.contains("France") && answer.contains("last year"),
        "{answer}"
    );
}

#[test]
fn demo_continue_is_separate_from_profile_threads() {
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join("state/analyst");
    std::fs::create_dir_all(&state).unwrap();
    let remembered = r#"{"-": "a-real-service-thread"}"#;
    std::fs::write(state.join("last-threads.json"), remembered).unwrap();
    let (code, _, err) = demo(home.path(), &[], &["-c", "and last year?"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--demo"), "{err}");
    assert!(!err.contains("a-real-service-thread"), "{err}");
    demo_json(home.path(), &[], &[QUESTION]);
    assert_eq!(
        std::fs::read_to_string(state.join("last-threads.json")).unwrap(),
        remembered,
        "a demo run does not touch the profiles' last threads"
    );
}
