//! The identity (`sessionSettings`), resolved as a whole.
//!
//! Levels, highest first: flags (individual flags over `--session` over `--body`'s
//! `sessionSettings`), the environment, the profile's `session`. The highest level that names
//! an external or internal id supplies it; every other field comes from the highest level that
//! sets it. With an internal id, attributes, groups, roles and a security context are refused
//! when given at or above the id's level (naming the flag) and dropped when they come from a
//! lower level, where they belonged to another identity.

use super::{Resolver, parse_duration, read_document};
use crate::exit::usage;
use crate::protocol::chat::check_external_id;
use crate::protocol::{SessionSettings, UserAttribute};
use anyhow::Result;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Identity flags as given on the command line.
#[derive(Clone, Debug, Default)]
pub struct IdentityFlags {
    /// `--external-id`.
    pub external_id: Option<String>,
    /// `--internal-id`.
    pub internal_id: Option<String>,
    /// `--email`.
    pub email: Option<String>,
    /// `--attr NAME=VALUE`.
    pub attrs: Vec<String>,
    /// `--group`.
    pub groups: Vec<String>,
    /// `--role`.
    pub roles: Vec<String>,
    /// `--security-context`.
    pub security_context: Option<String>,
    /// `--timezone`.
    pub timezone: Option<String>,
    /// `--persist-user`.
    pub persist_user: bool,
    /// `--user-ttl`.
    pub user_ttl: Option<String>,
    /// `--session`.
    pub session: Option<String>,
}

/// One level: wire fields with the name of where each came from.
#[derive(Default)]
struct Level {
    fields: Map<String, Value>,
    origins: HashMap<String, String>,
}

impl Level {
    fn set(&mut self, key: &str, value: Value, origin: &str) {
        self.fields.insert(key.to_owned(), value);
        self.origins.insert(key.to_owned(), origin.to_owned());
    }

    /// Take every field of a sessionSettings document, checking its types first.
    fn merge_document(&mut self, doc: &Value, origin: &str) -> Result<()> {
        let Value::Object(map) = doc else {
            return Err(usage(format!(
                "{origin}: sessionSettings must be a JSON object"
            )));
        };
        serde_json::from_value::<SessionSettings>(doc.clone())
            .map_err(|e| usage(format!("{origin}: {e}")))?;
        // A document that names an id replaces the identity of the documents below it.
        if map.contains_key(EXTERNAL) || map.contains_key(INTERNAL) {
            self.fields.remove(EXTERNAL);
            self.fields.remove(INTERNAL);
        }
        for (k, v) in map {
            self.set(k, v.clone(), &format!("{origin} ({k})"));
        }
        Ok(())
    }

    fn origin<'a>(&'a self, key: &'a str) -> &'a str {
        self.origins.get(key).map(String::as_str).unwrap_or(key)
    }
}

const EXTERNAL: &str = "externalId";
const INTERNAL: &str = "internalId";
const NOT_WITH_INTERNAL: [&str; 4] = ["userAttributes", "groups", "roles", "securityContext"];

fn flag_level(flags: &IdentityFlags, body_session: Option<&Value>) -> Result<Level> {
    let mut level = Level::default();
    if let Some(doc) = body_session {
        level.merge_document(doc, "--body sessionSettings")?;
    }
    if let Some(s) = &flags.session {
        // Name the file in messages when the document came from one.
        let inline = s.trim_start().starts_with(['{', '[']);
        let origin = if inline {
            "--session".to_owned()
        } else {
            format!("--session {s}")
        };
        level.merge_document(&read_document("--session", s)?, &origin)?;
    }
    // An id flag replaces the identity of the documents below it.
    if let Some(id) = &flags.external_id {
        level.fields.remove(INTERNAL);
        level.set(EXTERNAL, Value::String(id.clone()), "--external-id");
    }
    if let Some(id) = &flags.internal_id {
        if flags.external_id.is_none() {
            level.fields.remove(EXTERNAL);
        }
        level.set(INTERNAL, Value::String(id.clone()), "--internal-id");
    }
    if let Some(email) = &flags.email {
        level.set("email", Value::String(email.clone()), "--email");
    }
    if !flags.attrs.is_empty() {
        let mut attrs = Vec::new();
        for a in &flags.attrs {
            let (name, value) = a
                .split_once('=')
                .filter(|(n, _)| !n.trim().is_empty())
                .ok_or_else(|| {
                    usage(format!(
                        "--attr {a:?}: expected NAME=VALUE, e.g. --attr region=EU"
                    ))
                })?;
            attrs.push(serde_json::to_value(UserAttribute {
                name: name.trim().to_owned(),
                value: value.to_owned(),
            })?);
        }
        level.set("userAttributes", Value::Array(attrs), "--attr");
    }
    if !flags.groups.is_empty() {
        level.set("groups", serde_json::to_value(&flags.groups)?, "--group");
    }
    if !flags.roles.is_empty() {
        level.set("roles", serde_json::to_value(&flags.roles)?, "--role");
    }
    if let Some(sc) = &flags.security_context {
        let doc = read_document("--security-context", sc)?;
        if !doc.is_object() {
            return Err(usage("--security-context: must be a JSON object"));
        }
        level.set("securityContext", doc, "--security-context");
    }
    if let Some(tz) = &flags.timezone {
        level.set("timezone", Value::String(tz.clone()), "--timezone");
    }
    if flags.persist_user {
        level.set("isEphemeral", Value::Bool(false), "--persist-user");
    }
    if let Some(ttl) = &flags.user_ttl {
        let d = parse_duration(ttl).map_err(|e| usage(format!("--user-ttl {ttl:?}: {e}")))?;
        // Whole seconds on the wire: a fraction rounds up, never down to nothing.
        let secs = d.as_secs_f64().ceil() as u64;
        if secs == 0 {
            return Err(usage(format!(
                "--user-ttl {ttl:?}: must be at least one second"
            )));
        }
        level.set("ephemeralTtlSeconds", Value::from(secs), "--user-ttl");
    }
    Ok(level)
}

/// Resolve the identity; `required` is false with token auth, where the token names the user.
pub(super) fn resolve(
    r: &Resolver,
    flags: &IdentityFlags,
    body_session: Option<&Value>,
    required: bool,
) -> Result<SessionSettings> {
    let mut env_level = Level::default();
    for (var, key) in [
        ("ANALYST_EXTERNAL_ID", EXTERNAL),
        ("ANALYST_INTERNAL_ID", INTERNAL),
    ] {
        if let Some(v) = r.env.get(var) {
            env_level.set(key, Value::String(v), var);
        }
    }
    let mut profile_level = Level::default();
    if let Some(doc) = &r.profile.session {
        let origin = format!(
            "profile {:?} session",
            r.profile_name.as_deref().unwrap_or("")
        );
        profile_level.merge_document(doc, &origin)?;
    }
    merge(
        [flag_level(flags, body_session)?, env_level, profile_level],
        required,
    )
}

/// The identity of `chat --demo`: the flags (and `--session`, `--body`) only, else the
/// external user `demo`. The profile's and the environment's identities belong to a real
/// service; taking them here would make the demo's numbers depend on a config file.
pub(super) fn resolve_demo(
    flags: &IdentityFlags,
    body_session: Option<&Value>,
) -> Result<SessionSettings> {
    let mut s = merge(
        [
            flag_level(flags, body_session)?,
            Level::default(),
            Level::default(),
        ],
        false,
    )?;
    if s.external_id.is_none() && s.internal_id.is_none() {
        s.external_id = Some(DEMO_USER.to_owned());
    }
    Ok(s)
}

/// The external user `chat --demo` asks as when no identity flag is given.
pub const DEMO_USER: &str = "demo";

/// Merge levels (flags, environment, profile) into one identity.
fn merge(levels: [Level; 3], required: bool) -> Result<SessionSettings> {
    let id_level = levels
        .iter()
        .position(|l| l.fields.contains_key(EXTERNAL) || l.fields.contains_key(INTERNAL));
    let mut merged = Map::new();
    if let Some(i) = id_level {
        let l = &levels[i];
        if l.fields.contains_key(EXTERNAL) && l.fields.contains_key(INTERNAL) {
            return Err(usage(format!(
                "give exactly one of an external and an internal id, not both ({} and {})",
                l.origin(EXTERNAL),
                l.origin(INTERNAL)
            )));
        }
        let key = if l.fields.contains_key(EXTERNAL) {
            EXTERNAL
        } else {
            INTERNAL
        };
        let id = l.fields[key].as_str().unwrap_or_default();
        if key == EXTERNAL {
            check_external_id(id)
                .map_err(|p| usage(format!("{}: external id {p}", l.origin(key))))?;
        } else if id.trim().is_empty() {
            return Err(usage(format!(
                "{}: internal id must not be empty",
                l.origin(key)
            )));
        }
        merged.insert(key.to_owned(), l.fields[key].clone());
    } else if required {
        return Err(usage(
            "no identity: pass --external-id ID or --internal-id EMAIL (or set ANALYST_EXTERNAL_ID, or session.externalId in a config profile)",
        ));
    }
    let internal = merged.contains_key(INTERNAL);
    for (depth, level) in levels.iter().enumerate() {
        for (key, value) in &level.fields {
            if key == EXTERNAL || key == INTERNAL || merged.contains_key(key) {
                continue;
            }
            // PROTOCOL.md: an IANA name (the client is strict about what it sends).
            if key == "timezone"
                && let Some(tz) = value
                    .as_str()
                    .filter(|tz| !crate::protocol::chat::is_iana_name(tz))
            {
                return Err(usage(format!(
                    "{}: {tz:?} is not an IANA time zone name (such as Europe/Paris or UTC)",
                    level.origin(key)
                )));
            }
            if internal && NOT_WITH_INTERNAL.contains(&key.as_str()) {
                if depth <= id_level.unwrap_or(0) {
                    return Err(usage(format!(
                        "{} cannot be used with an internal id ({}); the internal user's own settings apply",
                        level.origin(key),
                        levels[id_level.unwrap_or(0)].origin(INTERNAL)
                    )));
                }
                continue;
            }
            merged.insert(key.clone(), value.clone());
        }
    }
    serde_json::from_value(Value::Object(merged))
        .map_err(|e| usage(format!("sessionSettings: {e}")))
}
