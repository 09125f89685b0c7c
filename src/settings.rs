//! Flags + environment + config profile -> validated settings, by CLI.md's precedence:
//! flag > environment > profile > default.
//!
//! Resolution is lazy: a command asks only for what it needs ([`Resolver::chat_endpoint`],
//! [`Resolver::chat_auth`], [`Resolver::identity`], [`Resolver::scim`]), so that, say, a
//! configured `api_key_command` never runs for `scim patch`.

mod config;
mod data;
mod identity;
mod secret;
mod source;
mod urls;

pub use crate::duration::parse_duration;
pub use config::{Config, Profile, config_path};
pub use data::DataSettings;
pub use identity::{DEMO_USER, IdentityFlags};
pub use secret::Secret;

pub use source::{read_document, read_text_source};
pub use urls::{data_root, endpoint_from_url, scim_root};
use urls::{parse_http_url, split_chat_url};

use crate::exit::usage;
use crate::term::Env;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

/// How a chat request authenticates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatAuth {
    /// `Authorization: Api-Key <key>`.
    ApiKey(Secret),
    /// `X-Cube-Auth-Token: <JWT>`; the service takes the identity from the token.
    Token(Secret),
}

/// The chat endpoint: the stream URL and the abort URL next to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatEndpoint {
    /// `.../chat/stream-chat-state`.
    pub stream: Url,
    /// `.../chat/abort`.
    pub abort: Url,
}

/// The SCIM service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScimSettings {
    /// The SCIM root, ending in `/scim/v2`.
    pub root: Url,
    /// The token, sent as `Authorization: Bearer`.
    pub token: Secret,
}

/// Flags that locate the chat service.
#[derive(Clone, Debug, Default)]
pub struct ServiceFlags {
    /// `--url`.
    pub url: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--account`.
    pub account: Option<String>,
    /// `--agent`.
    pub agent: Option<String>,
    /// `--api-key-file`.
    pub api_key_file: Option<PathBuf>,
    /// `--token-file`.
    pub token_file: Option<PathBuf>,
}

/// The timeouts every command that talks to a service shares.
#[derive(Clone, Debug)]
pub struct Common {
    /// `--connect-timeout`.
    pub connect_timeout: Option<Duration>,
    /// `--idle-timeout`.
    pub idle_timeout: Option<Duration>,
}

/// Resolves settings from flags, environment and the config file's profile.
#[derive(Debug)]
pub struct Resolver {
    /// The environment (a snapshot; tests pass their own).
    pub env: Env,
    /// The profile chosen (`--profile`, `ANALYST_PROFILE`, `default_profile`), if any.
    pub profile_name: Option<String>,
    /// That profile's settings (empty when there is no config file or profile).
    pub profile: Profile,
}

impl Resolver {
    /// Load the config file and pick the profile.
    pub fn load(
        config_flag: Option<&Path>,
        profile_flag: Option<&str>,
        env: Env,
    ) -> Result<Resolver> {
        let (config, config_path) = Config::locate_and_load(config_flag, &env)?;
        let profile_name = profile_flag
            .map(str::to_owned)
            .or_else(|| env.get("ANALYST_PROFILE"))
            .or_else(|| config.as_ref().and_then(|c| c.default_profile.clone()));
        let profile = match (&profile_name, &config) {
            (None, _) => Profile::default(),
            (Some(name), Some(cfg)) => match cfg.profiles.get(name) {
                Some(p) => p.clone(),
                None => {
                    let known: Vec<&str> = cfg.profiles.keys().map(String::as_str).collect();
                    return Err(usage(format!(
                        "profile {name:?} is not in {} (profiles: {})",
                        config_path
                            .as_deref()
                            .unwrap_or(Path::new("the config"))
                            .display(),
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    )));
                }
            },
            (Some(name), None)
                if profile_flag.is_some() || env.get("ANALYST_PROFILE").is_some() =>
            {
                return Err(usage(format!(
                    "profile {name:?} was asked for, but there is no config file"
                )));
            }
            (Some(_), None) => Profile::default(),
        };
        Ok(Resolver {
            env,
            profile_name,
            profile,
        })
    }

    /// Settings without a config file or profile: `--demo` reads none (a broken or foreign
    /// config file must not stop it, and no profile's settings reach the demo).
    pub fn without_config(env: Env) -> Resolver {
        Resolver {
            env,
            profile_name: None,
            profile: Profile::default(),
        }
    }

    /// The timeouts of `--connect-timeout` and `--idle-timeout`, checked.
    pub fn common(
        &self,
        connect_timeout: Option<&str>,
        idle_timeout: Option<&str>,
    ) -> Result<Common> {
        let timeout = |flag: &str, v: Option<&str>| -> Result<Option<Duration>> {
            v.map(|s| match parse_duration(s) {
                Ok(d) if d.is_zero() => {
                    Err(usage(format!("{flag} {s:?}: must be greater than zero")))
                }
                Ok(d) => Ok(d),
                Err(e) => Err(usage(format!("{flag} {s:?}: {e}"))),
            })
            .transpose()
        };
        Ok(Common {
            connect_timeout: timeout("--connect-timeout", connect_timeout)?,
            idle_timeout: timeout("--idle-timeout", idle_timeout)?,
        })
    }

    /// The chat URL, from `--url` or its parts, by precedence (a full URL beats its parts at the
    /// same level; parts missing at the winning level are filled from lower ones).
    pub fn chat_endpoint(&self, flags: &ServiceFlags) -> Result<ChatEndpoint> {
        let levels = self.url_levels(flags);
        let Some(top) = levels.iter().position(Level::any) else {
            return Err(usage(
                "no chat URL: pass --url (the agent's Chat API URL), or --base-url, --account and --agent \
                 (or set ANALYST_CHAT_URL, or chat_url in a config profile)",
            ));
        };
        for level in &levels {
            for (value, origin) in [&level.url, &level.base, &level.account, &level.agent]
                .into_iter()
                .flatten()
            {
                if value.trim().is_empty() {
                    return Err(usage(format!("{origin} is empty")));
                }
            }
        }
        if let Some((url, origin)) = &levels[top].url {
            return endpoint_from_url(url, origin);
        }
        let (base, account, agent) = url_parts(&levels[top..])?;
        chat_url_from_parts(&base, &account, &agent)
    }

    /// Where the chat URL and its parts may come from, highest precedence first.
    fn url_levels(&self, flags: &ServiceFlags) -> [Level; 3] {
        let env = |name: &'static str| self.env.get(name).map(|v| (v, name));
        let p = &self.profile;
        [
            Level {
                name: "flags",
                url: flags.url.clone().map(|v| (v, "--url")),
                base: flags.base_url.clone().map(|v| (v, "--base-url")),
                account: flags.account.clone().map(|v| (v, "--account")),
                agent: flags.agent.clone().map(|v| (v, "--agent")),
            },
            Level {
                name: "environment",
                url: env("ANALYST_CHAT_URL"),
                base: env("ANALYST_BASE_URL"),
                account: env("ANALYST_ACCOUNT"),
                agent: env("ANALYST_AGENT"),
            },
            Level {
                name: "profile",
                url: p.chat_url.clone().map(|v| (v, "chat_url")),
                base: p.base_url.clone().map(|v| (v, "base_url")),
                account: p.account.clone().map(|v| (v, "account")),
                agent: p.agent.clone().map(|v| (v, "agent")),
            },
        ]
    }

    /// How to authenticate chat requests: the highest level giving an API key or a token wins; at
    /// the same level the API key wins (as the service would).
    pub fn chat_auth(&self, flags: &ServiceFlags) -> Result<Option<ChatAuth>> {
        if let Some(f) = &flags.api_key_file {
            return Ok(Some(ChatAuth::ApiKey(Secret::from_file(
                f,
                "--api-key-file",
            )?)));
        }
        if let Some(f) = &flags.token_file {
            return Ok(Some(ChatAuth::Token(Secret::from_file(f, "--token-file")?)));
        }
        if let Some(v) = self.env.get("ANALYST_API_KEY") {
            return Ok(Some(ChatAuth::ApiKey(Secret::new(v, "ANALYST_API_KEY")?)));
        }
        if let Some(v) = self.env.get("ANALYST_TOKEN") {
            return Ok(Some(ChatAuth::Token(Secret::new(v, "ANALYST_TOKEN")?)));
        }
        let p = &self.profile;
        if let Some(key) =
            self.profile_secret(&p.api_key, &p.api_key_env, &p.api_key_command, "api_key")?
        {
            return Ok(Some(ChatAuth::ApiKey(key)));
        }
        if let Some(var) = &p.token_env {
            let v = self
                .env
                .get(var)
                .ok_or_else(|| usage(format!("token_env names {var}, which is not set")))?;
            return Ok(Some(ChatAuth::Token(Secret::new(v, var)?)));
        }
        Ok(None)
    }

    /// The chat auth, required.
    pub fn require_chat_auth(&self, flags: &ServiceFlags) -> Result<ChatAuth> {
        // Nothing was sent, so nothing was refused: a usage error (2), not an auth failure (3).
        self.chat_auth(flags)?.ok_or_else(|| {
            usage(
                "no API key: pass --api-key-file FILE, or set ANALYST_API_KEY (or ANALYST_TOKEN for token auth), \
                 or api_key / api_key_env / api_key_command (or token_env) in a config profile",
            )
        })
    }

    /// The SCIM root and token.
    pub fn scim(&self, url_flag: Option<&str>, token_file: Option<&Path>) -> Result<ScimSettings> {
        let (url, origin) = url_flag
            .map(|u| (u.to_owned(), "--scim-url"))
            .or_else(|| self.env.get("ANALYST_SCIM_URL").map(|u| (u, "ANALYST_SCIM_URL")))
            .or_else(|| self.profile.scim_url.clone().map(|u| (u, "scim_url")))
            .ok_or_else(|| usage("no SCIM URL: pass --scim-url, or set ANALYST_SCIM_URL, or scim_url in a config profile"))?;
        let root = scim_root(&url, origin)?;
        let token = if let Some(f) = token_file {
            Secret::from_file(f, "--scim-token-file")?
        } else if let Some(v) = self.env.get("ANALYST_SCIM_TOKEN") {
            Secret::new(v, "ANALYST_SCIM_TOKEN")?
        } else {
            let p = &self.profile;
            self.profile_secret(&p.scim_token, &p.scim_token_env, &p.scim_token_command, "scim_token")?
                .ok_or_else(|| {
                    usage(
                        "no SCIM token: pass --scim-token-file FILE, or set ANALYST_SCIM_TOKEN, or scim_token / \
                         scim_token_env / scim_token_command in a config profile",
                    )
                })?
        };
        Ok(ScimSettings { root, token })
    }

    /// The session settings (identity), resolved as a whole; see [`identity`].
    pub fn identity(
        &self,
        flags: &IdentityFlags,
        body_session: Option<&serde_json::Value>,
        required: bool,
    ) -> Result<crate::protocol::SessionSettings> {
        identity::resolve(self, flags, body_session, required)
    }

    /// The identity of `chat --demo`: from the identity flags only, else the user `demo`.
    pub fn demo_identity(
        &self,
        flags: &IdentityFlags,
        body_session: Option<&serde_json::Value>,
    ) -> Result<crate::protocol::SessionSettings> {
        identity::resolve_demo(flags, body_session)
    }

    pub(crate) fn profile_secret(
        &self,
        literal: &Option<String>,
        env_name: &Option<String>,
        command: &Option<String>,
        key: &str,
    ) -> Result<Option<Secret>> {
        if let Some(v) = literal {
            return Ok(Some(Secret::new(v.clone(), key)?));
        }
        if let Some(var) = env_name {
            let v = self
                .env
                .get(var)
                .ok_or_else(|| usage(format!("{key}_env names {var}, which is not set")))?;
            return Ok(Some(Secret::new(v, var)?));
        }
        if let Some(cmd) = command {
            return Secret::from_command(cmd, &format!("{key}_command")).map(Some);
        }
        Ok(None)
    }
}

struct Level {
    name: &'static str,
    url: Option<(String, &'static str)>,
    base: Option<(String, &'static str)>,
    account: Option<(String, &'static str)>,
    agent: Option<(String, &'static str)>,
}

impl Level {
    fn any(&self) -> bool {
        self.url.is_some() || self.base.is_some() || self.account.is_some() || self.agent.is_some()
    }
}

/// A value and the name of where it came from.
type Sourced = (String, &'static str);

/// The base URL, account and agent, from the winning level (`levels[0]`), each part it lacks
/// filled from lower levels (their parts, or the parts of their full URL).
fn url_parts(levels: &[Level]) -> Result<(Sourced, Sourced, Sourced)> {
    const LOWER: &str = "a lower-precedence chat URL";
    let (mut base, mut account, mut agent) = (None, None, None);
    for level in levels {
        let parsed = level.url.as_ref().and_then(|(u, _)| split_chat_url(u));
        base = base
            .or(level.base.clone())
            .or_else(|| parsed.clone().map(|p| (p.0, LOWER)));
        account = account
            .or(level.account.clone())
            .or_else(|| parsed.clone().map(|p| (p.1, LOWER)));
        agent = agent
            .or(level.agent.clone())
            .or_else(|| parsed.map(|p| (p.2, LOWER)));
    }
    if let (Some(base), Some(account), Some(agent)) = (&base, &account, &agent) {
        return Ok((base.clone(), account.clone(), agent.clone()));
    }
    let flags = [
        ("--base-url", base.is_some()),
        ("--account", account.is_some()),
        ("--agent", agent.is_some()),
    ];
    let names = |set: bool| -> String {
        flags
            .iter()
            .filter(|(_, s)| *s == set)
            .map(|(f, _)| *f)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(usage(format!(
        "incomplete chat URL: {} set by {}, but {} missing (or pass --url)",
        names(true),
        levels[0].name,
        names(false)
    )))
}

/// `{base}/api/v1/public/{account}/agents/{agent}/chat/stream-chat-state`.
fn chat_url_from_parts(
    (base, base_origin): &Sourced,
    (account, _): &Sourced,
    (agent, _): &Sourced,
) -> Result<ChatEndpoint> {
    let mut url = parse_http_url(base, base_origin, urls::CHAT_SECRET)?;
    {
        let mut segs = url
            .path_segments_mut()
            .map_err(|_| usage(format!("{base_origin} {base:?} cannot be a base URL")))?;
        segs.pop_if_empty();
        segs.extend([
            "api",
            "v1",
            "public",
            account,
            "agents",
            agent,
            "chat",
            "stream-chat-state",
        ]);
    }
    endpoint_from_url(url.as_str(), base_origin)
}

/// Read a file named by a flag, mapping failures to exit 2 with the flag and path.
pub fn read_file_for(flag: &str, path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .with_context(|| format!("{flag}: cannot read {}", path.display()))
        .map_err(|e| usage(format!("{e:#}")))
}

#[cfg(test)]
mod tests;
