//! The request `analyst chat` sends: every flag, --body, environment and profile; identity
//! rules; --dry-run and -vv never showing secrets; --continue.

use crate::common;

use common::scripted::*;
use serde_json::{Value, json};

/// The body of the only message the server received.
fn sent(server: &Server) -> Value {
    let seen = server.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    seen[0].body.clone()
}

#[test]
fn every_flag_lands_in_the_body() {
    let home = tempfile::tempdir().unwrap();
    let image = home.path().join("chart.PNG");
    std::fs::write(&image, b"\x89PNG").unwrap();
    let server = Server::always(happy(MID));
    chat(home.path(), &server)
        .args([
            "--chat-id",
            "c9",
            "--branch",
            "dev",
            "--default-branch",
            "--email",
            "bot@example.com",
            "--attr",
            "region=EU",
            "--attr",
            "tier=a=b",
            "--group",
            "g1",
            "--role",
            "r1",
            "--security-context",
            r#"{"team":"x"}"#,
            "--timezone",
            "Europe/Berlin",
            "--persist-user",
            "--user-ttl",
            "2h",
            "--image",
            image.to_str().unwrap(),
            "Top",
            "5",
            "categories",
        ])
        .assert()
        .success();
    let body = sent(&server);
    assert_eq!(
        body,
        json!({
            "input": "Top 5 categories",
            "chatId": "c9",
            "messageId": MID,
            "sessionSettings": {
                "externalId": "bot", "email": "bot@example.com",
                "userAttributes": [{"name":"region","value":"EU"},{"name":"tier","value":"a=b"}],
                "groups": ["g1"], "roles": ["r1"], "securityContext": {"team":"x"},
                "timezone": "Europe/Berlin", "isEphemeral": false, "ephemeralTtlSeconds": 7200
            },
            "activeBranchName": "dev",
            "isDefaultBranch": true,
            "images": [{"mimeType":"image/png","data":"iVBORw==","name":"chart.PNG"}]
        })
    );
    let seen = server.seen();
    assert_eq!(
        seen[0].header("authorization"),
        Some("Api-Key sk-test-secret")
    );
    assert_eq!(
        seen[0].path,
        "/api/v1/public/acme/agents/3/chat/stream-chat-state"
    );
}

#[test]
fn body_is_the_start_and_flags_override_it() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    analyst(home.path())
        .env("ANALYST_API_KEY", "k")
        .args(["chat", "--url", &server.url(), "--email", "flag@example.com", "--body", "-", "From flags"])
        .write_stdin(r#"{"input":"from body","chatId":"c5","messageId":"1700000000001-message","futureField":[1],
            "sessionSettings":{"externalId":"body-user","email":"body@example.com","groups":["g"]}}"#)
        .assert()
        .success();
    let body = sent(&server);
    assert_eq!(body["input"], "From flags");
    assert_eq!(body["chatId"], "c5");
    assert_eq!(body["messageId"], "1700000000001-message");
    assert_eq!(body["futureField"], json!([1]));
    assert_eq!(body["sessionSettings"]["externalId"], "body-user");
    assert_eq!(body["sessionSettings"]["email"], "flag@example.com");
    assert_eq!(body["sessionSettings"]["groups"], json!(["g"]));
}

#[test]
fn message_ids_are_generated_when_absent() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    analyst(home.path())
        .env("ANALYST_API_KEY", "k")
        .env("ANALYST_EXTERNAL_ID", "env-user")
        .args(["chat", "--url", &server.url(), "-"])
        .write_stdin("Question from stdin\n")
        .assert()
        .success();
    let body = sent(&server);
    let id = body["messageId"].as_str().unwrap();
    let digits = id.strip_suffix("-message").unwrap();
    assert!(
        digits.len() >= 13 && digits.bytes().all(|b| b.is_ascii_digit()),
        "{id}"
    );
    assert_eq!(body["input"], "Question from stdin");
    assert_eq!(body["sessionSettings"]["externalId"], "env-user");
}

#[test]
fn profiles_supply_url_key_and_identity() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    let config = home.path().join("config/analyst/config.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "default_profile: prod\nprofiles:\n  prod:\n    chat_url: {}\n    api_key_env: ACME_KEY\n    session:\n      externalId: ci-bot\n      userAttributes: [{{name: region, value: EU}}]\n",
            server.url()
        ),
    )
    .unwrap();
    analyst(home.path())
        .env("ACME_KEY", "sk-from-profile")
        .args(["chat", "-o", "final", "Top?"])
        .assert()
        .success()
        .stdout("Books lead.\n");
    let seen = server.seen();
    assert_eq!(
        seen[0].header("authorization"),
        Some("Api-Key sk-from-profile")
    );
    assert_eq!(seen[0].body["sessionSettings"]["externalId"], "ci-bot");
    assert_eq!(
        seen[0].body["sessionSettings"]["userAttributes"][0]["value"],
        "EU"
    );
}

#[test]
fn token_auth_makes_the_identity_optional() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    analyst(home.path())
        .env("ANALYST_TOKEN", "jwt-secret")
        .args(["chat", "--url", &server.url(), "Top?"])
        .assert()
        .success();
    let seen = server.seen();
    assert_eq!(seen[0].header("x-cube-auth-token"), Some("jwt-secret"));
    assert!(seen[0].header("authorization").is_none());
    assert_eq!(seen[0].body["sessionSettings"], json!({}));
}

#[test]
fn identity_and_input_errors_exit_2_before_sending() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["Top?"], "no identity"),
        (vec!["--external-id", "Bob", "Top?"], "lowercase"),
        (vec!["--external-id", "a b", "Top?"], "spaces"),
        (
            vec!["--internal-id", "a@b.c", "--group", "g", "Top?"],
            "--group",
        ),
        (
            vec!["--external-id", "a", "--internal-id", "a@b.c", "Top?"],
            "not both",
        ),
        (
            vec!["--external-id", "a", "--attr", "novalue", "Top?"],
            "--attr",
        ),
        (
            vec!["--external-id", "a", "--message-id", "12-message", "Top?"],
            "--message-id",
        ),
        (
            vec!["--external-id", "a", "--image", "x.bmp", "Top?"],
            "--image",
        ),
        (
            vec!["--external-id", "a", "--image", "missing.png", "Top?"],
            "--image",
        ),
        (vec!["--external-id", "a"], "no message"),
        (
            vec!["--external-id", "a", "--body", "{oops", "Top?"],
            "--body",
        ),
    ];
    for (args, words) in cases {
        let out = analyst(home.path())
            .env("ANALYST_API_KEY", "k")
            .args(["chat", "--url", &server.url()])
            .args(&args)
            .assert()
            .code(2);
        let stderr = text(&out.get_output().stderr);
        assert!(stderr.contains(words), "{args:?}: {stderr}");
    }
    assert!(server.seen().is_empty());
}

#[test]
fn dry_run_and_verbose_never_show_the_key() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    let out = chat(home.path(), &server)
        .args(["--dry-run", "Top?"])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert!(
        stdout.starts_with(&format!("POST {}\n", server.url())),
        "{stdout}"
    );
    assert!(stdout.contains("authorization: ***"), "{stdout}");
    assert!(stdout.contains(r#""input": "Top?""#), "{stdout}");
    assert!(!stdout.contains("sk-test-secret"));
    assert!(server.seen().is_empty(), "dry-run sends nothing");

    let out = chat(home.path(), &server)
        .args(["-vv", "-o", "final", "Top?"])
        .assert()
        .success();
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("> authorization: ***"), "{stderr}");
    assert!(stderr.contains("< 200"), "{stderr}");
    assert!(!stderr.contains("sk-test-secret"), "{stderr}");
}

#[test]
fn continue_uses_the_last_thread_of_the_profile() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    let out = chat(home.path(), &server)
        .args(["-c", "Again?"])
        .assert()
        .code(2);
    assert!(text(&out.get_output().stderr).contains("--continue: no thread remembered"));
    chat(home.path(), &server).arg("First").assert().success();
    chat(home.path(), &server)
        .args(["--continue", "Again?"])
        .assert()
        .success();
    let seen = server.seen();
    assert!(seen[0].body.get("chatId").is_none());
    assert_eq!(seen[1].body["chatId"], "c1");
}

/// PROTOCOL.md: `sessionSettings.timezone` is an IANA name. One that is not is a usage error
/// naming where it came from, and nothing is sent (it was sent, and the emulator took it).
#[test]
fn a_timezone_that_is_no_iana_name_is_refused_before_sending() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::always(happy(MID));
    for tz in ["Mars/Base", "utc", "+02:00"] {
        let out = chat(home.path(), &server)
            .args(["--timezone", tz, "hi"])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains("--timezone") && stderr.contains("IANA"),
            "{tz}: {stderr}"
        );
    }
    assert!(server.seen().is_empty(), "nothing sent");
}
