//! `analyst config`: write and read the config file without an editor. Edits go through a YAML
//! document (every other profile and key kept), written to a temporary file beside the config
//! and renamed over it, so a failed write leaves the file as it was; the file is created 0600 in
//! a folder created 0700. Secrets are never written: a key's source is recorded (a variable's
//! name or a command).

use super::Ctx;
use crate::cli::{ConfigCommand, ConfigInitArgs, Format};
use crate::exit::{Status, usage};
use crate::render::pick_format;
use crate::settings::{Config, config_path};
use anyhow::Result;
use serde_norway::{Mapping, Value};
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

/// Keys of a profile `config set` takes (CLI.md's settings table), and whether they hold a
/// secret itself (refused: only its `_env` or `_command` is written).
const KEYS: &[(&str, bool)] = &[
    ("chat_url", false),
    ("base_url", false),
    ("account", false),
    ("agent", false),
    ("api_key", true),
    ("api_key_env", false),
    ("api_key_command", false),
    ("token_env", false),
    ("scim_url", false),
    ("scim_token", true),
    ("scim_token_env", false),
    ("scim_token_command", false),
    ("data_url", false),
    ("data_token", true),
    ("data_token_env", false),
    ("data_token_command", false),
];

/// sessionSettings fields `config set session.FIELD VALUE` takes as text.
const SESSION_FIELDS: &[&str] = &["externalId", "internalId", "email", "timezone"];

/// Run the command.
pub fn run(ctx: &Ctx, command: ConfigCommand) -> Result<Status> {
    let path = config_path(ctx.global.config.as_deref(), &ctx.env)
        .ok_or_else(|| usage("no config file path: set HOME, XDG_CONFIG_HOME or ANALYST_CONFIG"))?;
    match command {
        ConfigCommand::Path(_) => {
            let mut out = crate::exit::stdout_lock();
            writeln!(out, "{}", path.display())?;
            out.flush()?;
            Ok(Status::Success)
        }
        ConfigCommand::Profiles(_) => profiles(ctx, &path),
        ConfigCommand::Show(_) => show(ctx, &path),
        ConfigCommand::Set(a) => {
            let (key, value) = checked_key(&a.key, Some(&a.value))?;
            edit(ctx, &path, |profile| {
                set_key(profile, &key, value.map(|v| Value::String(v.to_string())));
                Ok(())
            })
        }
        ConfigCommand::Unset(a) => {
            let (key, _) = checked_key(&a.key, None)?;
            edit(ctx, &path, |profile| {
                set_key(profile, &key, None);
                Ok(())
            })
        }
        ConfigCommand::Init(a) => init(ctx, &path, a),
    }
}

/// The key as the file spells it, checked against the settings table; a secret's own value is
/// refused (it would sit in a file, and in shell history).
fn checked_key<'a>(key: &str, value: Option<&'a str>) -> Result<(String, Option<&'a str>)> {
    if let Some(field) = key.strip_prefix("session.") {
        if !SESSION_FIELDS.contains(&field) {
            return Err(usage(format!(
                "config: unknown key {key:?}; session keys: {}",
                SESSION_FIELDS
                    .iter()
                    .map(|f| format!("session.{f}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        return Ok((key.to_string(), value));
    }
    match KEYS.iter().find(|(k, _)| *k == key) {
        None => Err(usage(format!(
            "config: unknown key {key:?}; keys: {}, session.FIELD",
            KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
        ))),
        Some((_, true)) if value.is_some() => Err(usage(format!(
            "config set {key}: a secret is not written into the file; set {key}_env to the name of a variable that holds it, or {key}_command to a command that prints it"
        ))),
        Some(_) => Ok((key.to_string(), value)),
    }
}

/// The profile a command edits or reads: `--profile`, `$ANALYST_PROFILE`, `default_profile`,
/// else `default`.
fn profile_name(ctx: &Ctx, doc: &Value) -> String {
    ctx.global
        .profile
        .clone()
        .or_else(|| ctx.env.get("ANALYST_PROFILE"))
        .or_else(|| {
            doc.get("default_profile")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "default".into())
}

/// The file as a YAML document (an empty mapping when absent); parsed as the config too, so an
/// edit never starts from a file the other commands refuse.
fn read_doc(path: &Path) -> Result<Value> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Value::Mapping(Mapping::new())),
        Ok(text) => {
            Config::load(path).map_err(|e| usage(format!("config: {e:#}")))?;
            serde_norway::from_str(&text)
                .map_err(|e| usage(format!("config: {}: {e}", path.display())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Mapping(Mapping::new())),
        Err(e) => Err(usage(format!(
            "config: cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Writes the document: folder 0700 when created, the file 0600, through a temporary file
/// renamed over it.
fn write_doc(path: &Path, doc: &Value) -> Result<()> {
    let text = serde_norway::to_string(doc)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let fail = |what: &str, e: std::io::Error| {
        usage(format!("config: cannot {what} {}: {e}", dir.display()))
    };
    if !dir.exists() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir).map_err(|e| fail("create the folder", e))?;
    }
    let tmp = dir.join(format!(".config.yaml.{}.tmp", std::process::id()));
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let written = o
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(usage(format!(
            "config: cannot write {}: {e}",
            path.display()
        )));
    }
    Ok(())
}

/// The profile mapping `name` of `doc`, created when missing.
fn profile_mut<'a>(doc: &'a mut Value, name: &str) -> Result<&'a mut Mapping> {
    let root = doc
        .as_mapping_mut()
        .ok_or_else(|| usage("config: the file is not a YAML mapping"))?;
    let profiles = root
        .entry(Value::from("profiles"))
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    if profiles.is_null() {
        *profiles = Value::Mapping(Mapping::new());
    }
    let profile = profiles
        .as_mapping_mut()
        .ok_or_else(|| usage("config: profiles is not a mapping"))?
        .entry(Value::from(name))
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    if profile.is_null() {
        *profile = Value::Mapping(Mapping::new());
    }
    profile
        .as_mapping_mut()
        .ok_or_else(|| usage(format!("config: profile {name:?} is not a mapping")))
}

/// Sets (or with `None` removes) a key; `session.FIELD` goes inside `session:`.
fn set_key(profile: &mut Mapping, key: &str, value: Option<Value>) {
    if let Some(field) = key.strip_prefix("session.") {
        let session = profile
            .entry(Value::from("session"))
            .or_insert_with(|| Value::Mapping(Mapping::new()));
        if let Some(m) = session.as_mapping_mut() {
            match value {
                Some(v) => {
                    m.insert(Value::from(field), v);
                }
                None => {
                    m.remove(field);
                }
            }
            if m.is_empty() {
                profile.remove("session");
            }
        }
        return;
    }
    match value {
        Some(v) => {
            profile.insert(Value::from(key), v);
        }
        None => {
            profile.remove(key);
        }
    }
}

/// Read, change one profile, check that the result is a config the other commands take,
/// write; the file is left as it was on any error.
fn edit(ctx: &Ctx, path: &Path, change: impl FnOnce(&mut Mapping) -> Result<()>) -> Result<Status> {
    let mut doc = read_doc(path)?;
    let name = profile_name(ctx, &doc);
    change(profile_mut(&mut doc, &name)?)?;
    let text = serde_norway::to_string(&doc)?;
    serde_norway::from_str::<Config>(&text).map_err(|e| {
        usage(format!(
            "config: the change would make the file invalid: {e}"
        ))
    })?;
    write_doc(path, &doc)?;
    Ok(Status::Success)
}

/// `config profiles`: one name a line, `*` before the default one.
fn profiles(ctx: &Ctx, path: &Path) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Text, Format::Json],
        Format::Text,
        Format::Text,
        "config profiles",
    )?;
    let doc = read_doc(path)?;
    let default = doc
        .get("default_profile")
        .and_then(Value::as_str)
        .map(str::to_string);
    let names: Vec<String> = doc
        .get("profiles")
        .and_then(Value::as_mapping)
        .map(|m| {
            m.keys()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut out = crate::exit::stdout_lock();
    if format == Format::Json {
        let list: Vec<serde_json::Value> = names
            .iter()
            .map(|n| serde_json::json!({"name": n, "default": default.as_deref() == Some(n.as_str())}))
            .collect();
        writeln!(out, "{}", serde_json::Value::Array(list))?;
    } else {
        for n in &names {
            let mark = if default.as_deref() == Some(n.as_str()) {
                "*"
            } else {
                " "
            };
            writeln!(out, "{mark} {n}")?;
        }
    }
    out.flush()?;
    Ok(Status::Success)
}

/// One setting as `config show` prints it.
struct Shown {
    name: &'static str,
    value: Option<String>,
    source: String,
}

/// `config show`: each setting with its value (secrets as ***) and where it came from.
fn show(ctx: &Ctx, path: &Path) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Text, Format::Json, Format::Yaml],
        Format::Text,
        Format::Text,
        "config show",
    )?;
    let doc = read_doc(path)?;
    let name = profile_name(ctx, &doc);
    let profile = doc
        .get("profiles")
        .and_then(|p| p.get(name.as_str()))
        .cloned()
        .unwrap_or(Value::Null);
    let key = |k: &str| {
        profile.get(k).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    };
    let env = |v: &str| ctx.env.get(v);
    let mut rows = Vec::new();
    let mut plain = |name: &'static str, var: &str, k: &str| {
        let (value, source) = match (env(var), key(k)) {
            (Some(v), _) => (Some(v), format!("environment ({var})")),
            (None, Some(v)) => (Some(v), format!("profile ({k})")),
            _ => (None, "default (unset)".into()),
        };
        rows.push(Shown {
            name,
            value,
            source,
        });
    };
    plain("chat_url", "ANALYST_CHAT_URL", "chat_url");
    plain("base_url", "ANALYST_BASE_URL", "base_url");
    plain("account", "ANALYST_ACCOUNT", "account");
    plain("agent", "ANALYST_AGENT", "agent");
    plain("scim_url", "ANALYST_SCIM_URL", "scim_url");
    plain("data_url", "ANALYST_DATA_URL", "data_url");
    let mut secret = |name: &'static str, var: &str, k: &str| {
        let literal = key(k).map(|_| format!("profile ({k})"));
        let from_env = key(&format!("{k}_env")).map(|v| {
            let set = if env(&v).is_some() { "set" } else { "not set" };
            format!("profile ({k}_env: {v}, {set})")
        });
        let from_cmd = key(&format!("{k}_command")).map(|c| format!("profile ({k}_command: {c})"));
        let source = env(var)
            .map(|_| format!("environment ({var})"))
            .or(literal)
            .or(from_env)
            .or(from_cmd);
        let value = source.as_ref().map(|_| "***".to_string());
        rows.push(Shown {
            name,
            value,
            source: source.unwrap_or_else(|| "default (unset)".into()),
        });
    };
    secret("api_key", "ANALYST_API_KEY", "api_key");
    secret("scim_token", "ANALYST_SCIM_TOKEN", "scim_token");
    secret("data_token", "ANALYST_DATA_TOKEN", "data_token");
    let token = env("ANALYST_TOKEN")
        .map(|_| "environment (ANALYST_TOKEN)".to_string())
        .or_else(|| key("token_env").map(|v| format!("profile (token_env: {v})")));
    rows.push(Shown {
        name: "token",
        value: token.as_ref().map(|_| "***".into()),
        source: token.unwrap_or_else(|| "default (unset)".into()),
    });
    for (name, var, field) in [
        ("external_id", "ANALYST_EXTERNAL_ID", "externalId"),
        ("internal_id", "ANALYST_INTERNAL_ID", "internalId"),
    ] {
        let from_profile = profile
            .get("session")
            .and_then(|s| s.get(field))
            .and_then(Value::as_str)
            .map(str::to_string);
        let (value, source) = match (env(var), from_profile) {
            (Some(v), _) => (Some(v), format!("environment ({var})")),
            (None, Some(v)) => (Some(v), format!("profile (session.{field})")),
            _ => (None, "default (unset)".into()),
        };
        rows.push(Shown {
            name,
            value,
            source,
        });
    }
    let mut out = crate::exit::stdout_lock();
    match format {
        Format::Json | Format::Yaml => {
            let mut m = serde_json::Map::new();
            m.insert(
                "profile".into(),
                serde_json::json!({"value": name, "source": "profile"}),
            );
            m.insert("config".into(), serde_json::json!({"value": path.display().to_string(), "source": if path.exists() { "file" } else { "default (absent)" }}));
            for r in &rows {
                m.insert(
                    r.name.into(),
                    serde_json::json!({"value": r.value, "source": r.source}),
                );
            }
            crate::render::write_document(&mut out, &serde_json::Value::Object(m), format)?;
        }
        _ => {
            writeln!(
                out,
                "config    {}{}",
                path.display(),
                if path.exists() { "" } else { " (absent)" }
            )?;
            writeln!(out, "profile   {name}")?;
            let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
            for r in &rows {
                writeln!(
                    out,
                    "{:w$}  {}  [{}]",
                    r.name,
                    r.value.as_deref().unwrap_or("-"),
                    r.source
                )?;
            }
        }
    }
    out.flush()?;
    Ok(Status::Success)
}

/// Asks for a line on the terminal; `None` at end of input.
fn ask(prompt: &str) -> Option<String> {
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_string()),
    }
}

/// `config init`: a profile from the flags, and on a terminal from answers to what they leave
/// out; the chat URL is checked as typed. Secrets are recorded by where they come from.
fn init(ctx: &Ctx, path: &Path, mut a: ConfigInitArgs) -> Result<Status> {
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let check_url = |u: &str| crate::settings::endpoint_from_url(u, "--url").map(|_| ());
    if let Some(u) = &a.url {
        check_url(u)?;
    }
    if terminal {
        while a.url.is_none() {
            let Some(u) =
                ask("Chat API URL (from the agent's settings, ends in /chat/stream-chat-state): ")
            else {
                return Err(usage("config init: no chat URL given"));
            };
            match check_url(&u) {
                Ok(()) => a.url = Some(u),
                Err(e) => eprintln!("{e:#}; try again"),
            }
        }
        if a.api_key_env.is_none() && a.api_key_command.is_none() {
            let answer = ask("API key from an environment variable (its name) or a command (start with !), e.g. ACME_KEY or !pass show acme: ").unwrap_or_default();
            match answer.strip_prefix('!') {
                Some(cmd) if !cmd.trim().is_empty() => a.api_key_command = Some(cmd.trim().into()),
                _ if !answer.is_empty() => a.api_key_env = Some(answer),
                _ => {}
            }
        }
        if a.external_id.is_none() {
            a.external_id = ask("External user id the agent acts for (blank for none): ")
                .filter(|s| !s.is_empty());
        }
        if a.scim_url.is_none() {
            a.scim_url = ask("SCIM URL (blank to skip): ").filter(|s| !s.is_empty());
        }
        if a.data_url.is_none() {
            a.data_url =
                ask("Data API URL, .../cubejs-api (blank to skip): ").filter(|s| !s.is_empty());
        }
    }
    let url = a.url.clone().ok_or_else(|| {
        usage("config init: --url is required without a terminal (the agent's Chat API URL)")
    })?;
    if let Some(id) = &a.external_id
        && (id.is_empty() || id.chars().any(|c| c.is_whitespace() || c.is_uppercase()))
    {
        return Err(usage(format!(
            "--external-id {id:?}: lowercase, without spaces"
        )));
    }
    let mut doc = read_doc(path)?;
    let name = ctx
        .global
        .profile
        .clone()
        .unwrap_or_else(|| "default".into());
    let exists = doc
        .get("profiles")
        .and_then(|p| p.get(name.as_str()))
        .is_some();
    if exists && !a.force {
        return Err(usage(format!(
            "config init: profile {name:?} exists in {}; pass --force to overwrite it",
            path.display()
        )));
    }
    let first = doc
        .get("profiles")
        .and_then(Value::as_mapping)
        .is_none_or(|m| m.is_empty());
    let profile = profile_mut(&mut doc, &name)?;
    profile.clear();
    let mut put = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            profile.insert(Value::from(k), Value::from(v.as_str()));
        }
    };
    put("chat_url", &Some(url));
    put("api_key_env", &a.api_key_env);
    put("api_key_command", &a.api_key_command);
    put("scim_url", &a.scim_url);
    put("scim_token_env", &a.scim_token_env);
    put("scim_token_command", &a.scim_token_command);
    put("data_url", &a.data_url);
    if let Some(id) = &a.external_id {
        set_key(
            profile,
            "session.externalId",
            Some(Value::from(id.as_str())),
        );
    }
    if (first || a.default)
        && let Some(root) = doc.as_mapping_mut()
    {
        root.insert(Value::from("default_profile"), Value::from(name.as_str()));
    }
    let text = serde_norway::to_string(&doc)?;
    serde_norway::from_str::<Config>(&text)
        .map_err(|e| usage(format!("config init: the profile would be invalid: {e}")))?;
    write_doc(path, &doc)?;
    if ctx.chatty() {
        crate::term::diag(format_args!("wrote profile {name:?} to {}", path.display()));
    }
    if a.no_check {
        return Ok(Status::Success);
    }
    // The new profile checked as `analyst doctor --profile NAME` would; the file stays written
    // whatever it finds, and the status is doctor's.
    let mut global = ctx.global.clone();
    global.profile = Some(name);
    global.config = Some(path.to_path_buf());
    global.output = None;
    let check = Ctx {
        global,
        env: ctx.env.clone(),
        out_style: ctx.out_style,
        err_style: ctx.err_style,
        stderr_is_terminal: ctx.stderr_is_terminal,
        demo: false,
    };
    super::doctor::checks_to(
        &check,
        crate::cli::DoctorArgs {
            demo: false,
            today: None,
            output: None,
            look: Default::default(),
            settings: Default::default(),
        },
        true,
    )
}
