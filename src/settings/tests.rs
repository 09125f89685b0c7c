//! Precedence, profiles, identity rules and URLs.

use super::*;
use crate::exit::{Status, status_of};
use std::io::Write;

fn config(yaml: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(yaml.as_bytes())
        .unwrap();
    (dir, path)
}

const CONFIG: &str = "
default_profile: prod
profiles:
  prod:
    chat_url: https://ai.example.com/api/v1/public/acme/agents/3/chat/stream-chat-state
    api_key_env: ACME_KEY
    scim_url: https://acme.example.com
    scim_token_command: echo scim-secret
    session:
      externalId: ci-bot
      email: bot@example.com
      userAttributes: [{name: region, value: EU}]
  staging:
    base_url: https://staging.example.com/
    account: acme
    agent: 7
    session:
      internalId: ann@example.com
";

fn resolver(
    yaml: &str,
    profile: Option<&str>,
    env: &[(&str, &str)],
) -> (tempfile::TempDir, Resolver) {
    let (dir, path) = config(yaml);
    let r = Resolver::load(Some(&path), profile, Env::from_pairs(env.iter().copied())).unwrap();
    (dir, r)
}

fn err_text(e: anyhow::Error) -> String {
    assert_eq!(status_of(&e), Status::Usage, "{e:#}");
    format!("{e:#}")
}

#[test]
fn default_profile_and_precedence_of_the_chat_url() {
    let (_d, r) = resolver(CONFIG, None, &[]);
    let ep = r.chat_endpoint(&ServiceFlags::default()).unwrap();
    assert_eq!(
        ep.stream.as_str(),
        "https://ai.example.com/api/v1/public/acme/agents/3/chat/stream-chat-state"
    );
    assert_eq!(
        ep.abort.as_str(),
        "https://ai.example.com/api/v1/public/acme/agents/3/chat/abort"
    );

    let (_d, r) = resolver(
        CONFIG,
        None,
        &[(
            "ANALYST_CHAT_URL",
            "http://env.test/x/chat/stream-chat-state",
        )],
    );
    assert_eq!(
        r.chat_endpoint(&ServiceFlags::default())
            .unwrap()
            .stream
            .as_str(),
        "http://env.test/x/chat/stream-chat-state"
    );

    let flags = ServiceFlags {
        url: Some("http://flag.test/chat/stream-chat-state".into()),
        base_url: Some("http://ignored.test".into()),
        ..Default::default()
    };
    assert_eq!(
        r.chat_endpoint(&flags).unwrap().stream.host_str(),
        Some("flag.test"),
        "a full URL beats parts at the same level"
    );
}

#[test]
fn parts_make_a_url_and_fill_from_lower_levels() {
    let (_d, r) = resolver(CONFIG, Some("staging"), &[]);
    let ep = r.chat_endpoint(&ServiceFlags::default()).unwrap();
    assert_eq!(
        ep.stream.as_str(),
        "https://staging.example.com/api/v1/public/acme/agents/7/chat/stream-chat-state"
    );
    // --agent alone on the command line keeps the profile's host and account.
    let (_d, r) = resolver(CONFIG, None, &[]);
    let flags = ServiceFlags {
        agent: Some("9".into()),
        ..Default::default()
    };
    assert_eq!(
        r.chat_endpoint(&flags).unwrap().stream.as_str(),
        "https://ai.example.com/api/v1/public/acme/agents/9/chat/stream-chat-state"
    );
    let (_d, r) = resolver("profiles: {}", None, &[]);
    let err = err_text(r.chat_endpoint(&flags).unwrap_err());
    assert!(err.contains("--base-url, --account missing"), "{err}");
}

#[test]
fn bad_chat_urls_are_refused() {
    let (_d, r) = resolver("", None, &[]);
    for (url, needle) in [
        ("ftp://x/chat/stream-chat-state", "http or https"),
        (
            "https://x/chat/other",
            "must end in /chat/stream-chat-state",
        ),
        ("not a url", "is not a URL"),
        ("https://u:p@x/chat/stream-chat-state", "credentials"),
    ] {
        let flags = ServiceFlags {
            url: Some(url.into()),
            ..Default::default()
        };
        let err = err_text(r.chat_endpoint(&flags).unwrap_err());
        assert!(
            err.contains("--url") && err.contains(needle),
            "{url}: {err}"
        );
    }
    let err = err_text(r.chat_endpoint(&ServiceFlags::default()).unwrap_err());
    assert!(err.contains("no chat URL"), "{err}");
    let flags = ServiceFlags {
        url: Some("https://x/chat/other?key=sk-secret".into()),
        ..Default::default()
    };
    let err = err_text(r.chat_endpoint(&flags).unwrap_err());
    assert!(!err.contains("sk-secret"), "{err}");
    let flags = ServiceFlags {
        base_url: Some("https://x".into()),
        account: Some(" ".into()),
        agent: Some("1".into()),
        ..Default::default()
    };
    assert!(err_text(r.chat_endpoint(&flags).unwrap_err()).contains("--account is empty"));
    // Deployment URLs are accepted too.
    let flags = ServiceFlags {
        url: Some(
            "https://ai.eu.example.com/api/v1/public/acme/deployments/5/chat/stream-chat-state"
                .into(),
        ),
        ..Default::default()
    };
    assert!(
        r.chat_endpoint(&flags)
            .unwrap()
            .abort
            .as_str()
            .ends_with("/deployments/5/chat/abort")
    );
}

#[test]
fn profiles_are_checked() {
    let (_d, path) = config(CONFIG);
    let e = Resolver::load(Some(&path), Some("nope"), Env::default()).unwrap_err();
    assert!(err_text(e).contains("profiles: prod, staging"));
    let (_d, path) = config("profiles:\n  p:\n    api-key: x\n");
    let e = Resolver::load(Some(&path), None, Env::default()).unwrap_err();
    assert!(err_text(e).contains("api-key"));
    let e =
        Resolver::load(Some(Path::new("/nonexistent/c.yaml")), None, Env::default()).unwrap_err();
    assert!(err_text(e).contains("--config"));
    let (_d, path) = config(CONFIG);
    let env = Env::from_pairs([("ANALYST_PROFILE", "staging")]);
    assert_eq!(
        Resolver::load(Some(&path), None, env)
            .unwrap()
            .profile_name
            .as_deref(),
        Some("staging")
    );
}

#[test]
fn api_key_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "from-file\n").unwrap();
    let (_d, r) = resolver(CONFIG, None, &[("ACME_KEY", "from-profile-env")]);
    assert_eq!(
        r.chat_auth(&ServiceFlags::default()).unwrap(),
        Some(ChatAuth::ApiKey(
            Secret::new("from-profile-env".into(), "t").unwrap()
        ))
    );
    let (_d, r) = resolver(
        CONFIG,
        None,
        &[("ACME_KEY", "p"), ("ANALYST_API_KEY", "from-env")],
    );
    assert_eq!(
        r.chat_auth(&ServiceFlags::default()).unwrap().unwrap(),
        ChatAuth::ApiKey(Secret::new("from-env".into(), "t").unwrap())
    );
    let flags = ServiceFlags {
        api_key_file: Some(key_file.clone()),
        ..Default::default()
    };
    assert_eq!(
        r.chat_auth(&flags).unwrap().unwrap(),
        ChatAuth::ApiKey(Secret::new("from-file".into(), "t").unwrap())
    );
    let flags = ServiceFlags {
        token_file: Some(key_file),
        ..Default::default()
    };
    assert!(
        matches!(r.chat_auth(&flags).unwrap().unwrap(), ChatAuth::Token(_)),
        "a flag beats the environment"
    );
    let (_d, r) = resolver(CONFIG, None, &[]);
    assert!(err_text(r.chat_auth(&ServiceFlags::default()).unwrap_err()).contains("ACME_KEY"));
}

#[test]
fn scim_settings() {
    let (_d, r) = resolver(CONFIG, None, &[]);
    let s = r.scim(None, None).unwrap();
    assert_eq!(s.root.as_str(), "https://acme.example.com/api/scim/v2");
    assert_eq!(s.token.expose(), "scim-secret");
    assert_eq!(
        scim_root("https://t.example.com/api/scim/v2/", "x")
            .unwrap()
            .as_str(),
        "https://t.example.com/api/scim/v2"
    );
    assert_eq!(
        scim_root("http://127.0.0.1:9/scim/v2", "x")
            .unwrap()
            .as_str(),
        "http://127.0.0.1:9/scim/v2"
    );
    assert_eq!(
        scim_root("http://h/base", "x").unwrap().as_str(),
        "http://h/base/api/scim/v2"
    );
    let (_d, r) = resolver("", None, &[]);
    assert_eq!(
        status_of(&r.scim(Some("http://h"), None).unwrap_err()),
        Status::Usage
    );
}

#[test]
fn a_url_with_credentials_points_to_its_own_secret_flag() {
    let url = "http://admin:PASSWD@127.0.0.1:9/a/chat/stream-chat-state";
    let errors = [
        (endpoint_from_url(url, "--url").map(drop), "--api-key-file"),
        (scim_root(url, "--scim-url").map(drop), "--scim-token-file"),
        (data_root(url, "--data-url").map(drop), "--data-token-file"),
    ];
    for (result, flag) in errors {
        let e = err_text(result.unwrap_err());
        assert!(e.contains(flag), "{e}");
        assert!(!e.contains("PASSWD"), "{e}");
    }
}

fn id(r: &Resolver, flags: IdentityFlags) -> Result<crate::protocol::SessionSettings> {
    r.identity(&flags, None, true)
}

#[test]
fn identity_comes_whole_from_the_highest_level_that_names_one() {
    let (_d, r) = resolver(CONFIG, None, &[]);
    let s = id(&r, IdentityFlags::default()).unwrap();
    assert_eq!(s.external_id.as_deref(), Some("ci-bot"));
    assert_eq!(s.user_attributes.as_ref().unwrap()[0].value, "EU");

    // --internal-id beats ANALYST_EXTERNAL_ID; the profile's attributes belonged to another user.
    let (_d, r) = resolver(CONFIG, None, &[("ANALYST_EXTERNAL_ID", "env-bot")]);
    let s = id(
        &r,
        IdentityFlags {
            internal_id: Some("ann@example.com".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(s.internal_id.as_deref(), Some("ann@example.com"));
    assert_eq!(s.external_id, None);
    assert_eq!(s.user_attributes, None);
    assert_eq!(
        s.email.as_deref(),
        Some("bot@example.com"),
        "other fields merge by precedence"
    );

    let s = id(
        &r,
        IdentityFlags {
            email: Some("x@y.z".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(s.external_id.as_deref(), Some("env-bot"));
    assert_eq!(s.email.as_deref(), Some("x@y.z"));
}

// Long as a table is: one case after another, each with the message it must give.
#[test]
fn identity_rules_name_the_flag() {
    let (_d, r) = resolver("", None, &[]);
    let cases: Vec<(IdentityFlags, &str)> = vec![
        (IdentityFlags::default(), "no identity"),
        (
            IdentityFlags {
                external_id: Some("a".into()),
                internal_id: Some("b".into()),
                ..Default::default()
            },
            "--external-id and --internal-id",
        ),
        (
            IdentityFlags {
                external_id: Some("Bot".into()),
                ..Default::default()
            },
            "--external-id: external id \"Bot\" must be lowercase",
        ),
        (
            IdentityFlags {
                external_id: Some("a b".into()),
                ..Default::default()
            },
            "--external-id: external id \"a b\" must not contain spaces",
        ),
        (
            IdentityFlags {
                internal_id: Some("a@b.c".into()),
                attrs: vec!["region=EU".into()],
                ..Default::default()
            },
            "--attr cannot be used with an internal id",
        ),
        (
            IdentityFlags {
                internal_id: Some("a@b.c".into()),
                groups: vec!["g".into()],
                ..Default::default()
            },
            "--group cannot",
        ),
        (
            IdentityFlags {
                internal_id: Some("a@b.c".into()),
                roles: vec!["r".into()],
                ..Default::default()
            },
            "--role cannot",
        ),
        (
            IdentityFlags {
                internal_id: Some("a@b.c".into()),
                security_context: Some("{}".into()),
                ..Default::default()
            },
            "--security-context cannot",
        ),
        (
            IdentityFlags {
                external_id: Some("a".into()),
                attrs: vec!["region".into()],
                ..Default::default()
            },
            "--attr \"region\": expected NAME=VALUE",
        ),
        (
            IdentityFlags {
                external_id: Some("a".into()),
                user_ttl: Some("soon".into()),
                ..Default::default()
            },
            "--user-ttl",
        ),
        (
            IdentityFlags {
                session: Some(r#"{"externalId": 5}"#.into()),
                ..Default::default()
            },
            "--session",
        ),
    ];
    for (flags, needle) in cases {
        let err = err_text(id(&r, flags).unwrap_err());
        assert!(err.contains(needle), "expected {needle:?} in {err:?}");
    }
}

#[test]
fn flags_override_the_session_document() {
    let (_d, r) = resolver("", None, &[]);
    let flags = IdentityFlags {
        session: Some(
            r#"{"internalId":"ann@example.com","email":"old@x.y","timezone":"UTC"}"#.into(),
        ),
        external_id: Some("bot".into()),
        email: Some("new@x.y".into()),
        attrs: vec!["region=EU".into(), "tier=a=b".into()],
        persist_user: true,
        user_ttl: Some("2h".into()),
        ..Default::default()
    };
    let s = id(&r, flags).unwrap();
    assert_eq!(s.external_id.as_deref(), Some("bot"));
    assert_eq!(s.internal_id, None);
    assert_eq!(s.email.as_deref(), Some("new@x.y"));
    assert_eq!(s.timezone.as_deref(), Some("UTC"));
    assert_eq!(
        s.user_attributes.unwrap()[1],
        crate::protocol::UserAttribute {
            name: "tier".into(),
            value: "a=b".into()
        }
    );
    assert_eq!(s.is_ephemeral, Some(false));
    assert_eq!(s.ephemeral_ttl_seconds, Some(7200));
}

#[test]
fn a_session_document_replaces_the_body_identity() {
    let (_d, r) = resolver("", None, &[]);
    let body = serde_json::json!({"internalId": "ann@example.com", "email": "ann@example.com"});
    let flags = IdentityFlags {
        session: Some(r#"{"externalId":"bot"}"#.into()),
        ..Default::default()
    };
    let s = r.identity(&flags, Some(&body), true).unwrap();
    assert_eq!(s.external_id.as_deref(), Some("bot"));
    assert_eq!(s.internal_id, None);
    assert_eq!(s.email.as_deref(), Some("ann@example.com"));
}

#[test]
fn a_session_file_that_is_not_an_object_is_named() {
    let (d, r) = resolver("", None, &[]);
    let list = d.path().join("list.yml");
    std::fs::write(&list, "- a\n- b\n").unwrap();
    let flags = IdentityFlags {
        session: Some(list.display().to_string()),
        ..Default::default()
    };
    let err = err_text(r.identity(&flags, None, true).unwrap_err());
    assert!(
        err.contains(&format!("--session {}", list.display()))
            && err.contains("must be a JSON object"),
        "{err}"
    );
}

#[test]
fn durations_must_be_positive() {
    let (_d, r) = resolver("", None, &[]);
    assert!(
        err_text(r.common(None, Some("0")).unwrap_err())
            .contains("--idle-timeout \"0\": must be greater than zero")
    );
    let s = id(
        &r,
        IdentityFlags {
            external_id: Some("a".into()),
            user_ttl: Some("1.5s".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(s.ephemeral_ttl_seconds, Some(2));
}

#[test]
fn empty_profiles_and_numeric_names_are_fine() {
    let (_d, r) = resolver(
        "default_profile: p\nprofiles:\n  p:\n  q: {account: 123, agent: 4, base_url: 'http://h'}\n",
        Some("q"),
        &[],
    );
    let ep = r.chat_endpoint(&ServiceFlags::default()).unwrap();
    assert_eq!(
        ep.stream.as_str(),
        "http://h/api/v1/public/123/agents/4/chat/stream-chat-state"
    );
    let (_d, r) = resolver("default_profile: p\nprofiles:\n  p:\n", None, &[]);
    assert_eq!(r.profile_name.as_deref(), Some("p"));
}

#[test]
fn token_auth_makes_the_identity_optional() {
    let (_d, r) = resolver("", None, &[]);
    let s = r.identity(&IdentityFlags::default(), None, false).unwrap();
    assert_eq!(s, crate::protocol::SessionSettings::default());
}

#[test]
fn a_config_holding_a_secret_readable_by_others_still_loads() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, path) = config("profiles:\n  p:\n    api_key: sk-secret\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = Resolver::load(Some(&path), Some("p"), Env::default()).unwrap();
    assert_eq!(
        r.chat_auth(&ServiceFlags::default()).unwrap().unwrap(),
        ChatAuth::ApiKey(Secret::new("sk-secret".into(), "t").unwrap())
    );
}

#[test]
fn the_demo_identity_takes_flags_only() {
    let (_d, r) = resolver(CONFIG, None, &[("ANALYST_EXTERNAL_ID", "env-user")]);
    let s = r.demo_identity(&IdentityFlags::default(), None).unwrap();
    assert_eq!(s.external_id.as_deref(), Some("demo"));
    assert!(s.user_attributes.is_none() && s.email.is_none(), "{s:?}");
    let flags = IdentityFlags {
        attrs: vec!["region=Europe".into()],
        ..IdentityFlags::default()
    };
    let s = r.demo_identity(&flags, None).unwrap();
    assert_eq!(s.external_id.as_deref(), Some("demo"));
    assert_eq!(s.user_attributes.unwrap()[0].value, "Europe");
    let flags = IdentityFlags {
        internal_id: Some("ana@example.com".into()),
        ..IdentityFlags::default()
    };
    let s = r.demo_identity(&flags, None).unwrap();
    assert_eq!(s.internal_id.as_deref(), Some("ana@example.com"));
    assert!(s.external_id.is_none());
}
