//! Issue 35, `analyst config`: a profile written without an editor (0600 in a 0700 folder, the
//! key recorded by where it comes from, never itself), then used as is by `chat` against the
//! emulator; `show` says where each setting came from with secrets masked; bad input (an
//! unknown key, a secret's value, an existing profile, an unwritable folder) is exit 2 naming
//! the culprit, and leaves the file as it was.

use crate::common;

use common::hardening::{API_KEY, analyst, emulator, expect_status, outs, run};
use std::path::Path;

fn config_file(home: &Path) -> std::path::PathBuf {
    home.join("config/analyst/config.yaml")
}

#[test]
fn init_writes_a_private_profile_that_chat_uses_as_is() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let out = run(analyst(h).args([
        "config",
        "init",
        "--url",
        &emu.running.chat_url,
        "--api-key-env",
        "ACME_ANALYST_KEY",
        "--external-id",
        "ci-bot",
        "--no-check",
    ]));
    expect_status(&out, 0, "config init");
    let file = config_file(h);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("api_key_env: ACME_ANALYST_KEY"), "{text}");
    assert!(!text.contains(API_KEY), "the key itself is never written");
    assert!(text.contains("default_profile: default"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
    }
    // `config path` names it; `config profiles` marks the default.
    let out = run(analyst(h).args(["config", "path"]));
    assert_eq!(outs(&out).0.trim(), file.display().to_string());
    let out = run(analyst(h).args(["config", "profiles"]));
    assert_eq!(outs(&out).0, "* default\n");
    // chat with nothing but the profile and the variable it names.
    let out = run(analyst(h)
        .env("ACME_ANALYST_KEY", &emu.running.api_key)
        .args(["chat", "-o", "final", "Total revenue in 2025"]));
    expect_status(&out, 0, "chat with the written profile");
    assert!(outs(&out).0.contains("Revenue"), "{}", outs(&out).0);
    // show: the value masked, its source named.
    let out = run(analyst(h)
        .env("ACME_ANALYST_KEY", &emu.running.api_key)
        .env("ANALYST_DATA_URL", "http://127.0.0.1:9/cubejs-api")
        .args(["config", "show", "-o", "json"]));
    expect_status(&out, 0, "config show");
    let (stdout, _) = outs(&out);
    assert!(!stdout.contains(&emu.running.api_key), "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["api_key"]["value"], "***");
    assert!(
        doc["api_key"]["source"]
            .as_str()
            .unwrap()
            .contains("ACME_ANALYST_KEY")
    );
    assert_eq!(doc["chat_url"]["value"], emu.running.chat_url.as_str());
    assert!(
        doc["chat_url"]["source"]
            .as_str()
            .unwrap()
            .starts_with("profile")
    );
    assert!(
        doc["data_url"]["source"]
            .as_str()
            .unwrap()
            .starts_with("environment")
    );
    assert_eq!(doc["external_id"]["value"], "ci-bot");
}

#[test]
fn set_and_unset_edit_one_key_and_keep_the_rest() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let file = config_file(h);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "default_profile: prod\nprofiles:\n  prod:\n    chat_url: https://ai.example.com/api/v1/public/a/agents/1/chat/stream-chat-state\n  staging:\n    agent: 7\n",
    )
    .unwrap();
    let out = run(analyst(h).args([
        "config",
        "set",
        "scim_url",
        "https://a.example.com/api/scim/v2",
    ]));
    expect_status(&out, 0, "set");
    let out = run(analyst(h).args(["config", "unset", "agent", "--profile", "staging"]));
    expect_status(&out, 0, "unset");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("scim_url: https://a.example.com/api/scim/v2"),
        "{text}"
    );
    assert!(text.contains("chat_url: https://ai.example.com"), "{text}");
    assert!(!text.contains("agent:"), "{text}");
    let out = run(analyst(h).args(["config", "profiles"]));
    assert_eq!(outs(&out).0, "* prod\n  staging\n");
}

#[test]
fn bad_input_is_exit_2_naming_the_culprit_and_leaves_the_file_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let url = "https://ai.example.com/api/v1/public/a/agents/1/chat/stream-chat-state";
    let out = run(analyst(h).args(["config", "init", "--url", url, "--no-check"]));
    expect_status(&out, 0, "init");
    let file = config_file(h);
    let before = std::fs::read(&file).unwrap();
    for (args, culprit) in [
        (vec!["config", "set", "colour", "red"], "colour"),
        (
            vec!["config", "set", "api_key", "sk-live-123"],
            "api_key_env",
        ),
        (
            vec!["config", "init", "--url", url, "--no-check"],
            "--force",
        ),
        (
            vec![
                "config",
                "init",
                "--url",
                "https://ai.example.com/chat",
                "--no-check",
                "--force",
            ],
            "/chat/stream-chat-state",
        ),
        (vec!["config", "init", "--no-check", "--force"], "--url"),
    ] {
        let out = run(analyst(h).args(&args));
        expect_status(&out, 2, &args.join(" "));
        let (stdout, stderr) = outs(&out);
        assert!(stderr.contains(culprit), "{args:?}: {stderr}");
        assert!(!stderr.contains("sk-live-123") && !stdout.contains("sk-live-123"));
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "{args:?} changed the file"
        );
    }
    // A folder that cannot be made (a file stands where it would go, which holds for root
    // too): exit 2 naming it.
    let blocker = h.join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let out = run(analyst(h)
        .env("ANALYST_CONFIG", blocker.join("config.yaml"))
        .args(["config", "init", "--url", url, "--no-check"]));
    expect_status(&out, 2, "unwritable folder");
    assert!(outs(&out).1.contains("not-a-folder"), "{}", outs(&out).1);
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "x");
}

#[test]
fn init_runs_doctor_on_the_new_profile_and_exits_with_its_status() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let init = |extra: &[&str], key: &str| {
        run(analyst(h)
            .env("ACME_KEY", key)
            .args(["config", "init", "--url", &emu.running.chat_url])
            .args(["--api-key-env", "ACME_KEY", "--external-id", "ci-bot"])
            .args(extra))
    };
    let out = init(&[], &emu.running.api_key);
    expect_status(&out, 0, "init with a good key");
    let (stdout, stderr) = outs(&out);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("credentials") && stderr.contains("ok"),
        "{stderr}"
    );
    // A refused key: doctor's exit 1, the file written all the same.
    let out = init(&["--profile", "other"], "sk-wrong-1");
    expect_status(&out, 1, "init with a refused key");
    assert!(outs(&out).1.contains("refused"), "{}", outs(&out).1);
    assert!(config_file(h).exists());
}

/// On a terminal, `config init` asks for what the flags leave out: a chat URL that is not a
/// Chat API URL is asked again, the key is given as a variable's name, and doctor runs on the
/// new profile against the emulator.
#[test]
fn init_on_a_terminal_asks_and_asks_again_after_a_typo() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let mut cmd = common::isolation::isolated(h);
    cmd.env("ACME_KEY", &emu.running.api_key)
        .args(["config", "init"]);
    let mut pty = common::pty::Pty::spawn(cmd);
    pty.expect("Chat API URL");
    // A typo: the path does not end in /chat/stream-chat-state.
    let typo = emu
        .running
        .chat_url
        .replace("stream-chat-state", "stream-chat-stat");
    pty.send(&format!("{typo}\r"));
    pty.expect("try again");
    pty.expect("Chat API URL");
    pty.send(&format!("{}\r", emu.running.chat_url));
    pty.expect("API key");
    pty.send("ACME_KEY\r");
    pty.expect("External user id");
    pty.send("ci-bot\r");
    pty.expect("SCIM URL");
    pty.send("\r");
    pty.expect("Data API URL");
    pty.send("\r");
    pty.expect("credentials");
    assert_eq!(pty.wait(), 0);
    let text = std::fs::read_to_string(config_file(h)).unwrap();
    assert!(
        text.contains("api_key_env: ACME_KEY") && text.contains("externalId: ci-bot"),
        "{text}"
    );
    assert!(!text.contains("stream-chat-stat\n"), "{text}");
}
