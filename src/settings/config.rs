//! The YAML config file: `default_profile` and named `profiles`.

use crate::exit::usage;
use anyhow::Result;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The profile used when none is named.
    pub default_profile: Option<String>,
    /// Profiles by name (an empty profile, `prod:` alone, is allowed).
    #[serde(default, deserialize_with = "profiles")]
    pub profiles: BTreeMap<String, Profile>,
}

/// One profile: any of the settings of CLI.md's table.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Full chat URL.
    pub chat_url: Option<String>,
    /// Base URL.
    pub base_url: Option<String>,
    /// Account name.
    #[serde(default, deserialize_with = "string_or_number")]
    pub account: Option<String>,
    /// Agent id.
    #[serde(default, deserialize_with = "string_or_number")]
    pub agent: Option<String>,
    /// API key, literally (draws a warning when the file is readable by others).
    pub api_key: Option<String>,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Command printing the API key.
    pub api_key_command: Option<String>,
    /// Environment variable holding a token for X-Cube-Auth-Token.
    pub token_env: Option<String>,
    /// SCIM root.
    pub scim_url: Option<String>,
    /// SCIM token, literally.
    pub scim_token: Option<String>,
    /// Environment variable holding the SCIM token.
    pub scim_token_env: Option<String>,
    /// Command printing the SCIM token.
    pub scim_token_command: Option<String>,
    /// Data query API root (`.../cubejs-api`).
    pub data_url: Option<String>,
    /// Data API token, literally.
    pub data_token: Option<String>,
    /// Environment variable holding the data API token.
    pub data_token_env: Option<String>,
    /// Command printing the data API token.
    pub data_token_command: Option<String>,
    /// sessionSettings, keys as on the wire.
    pub session: Option<serde_json::Value>,
}

fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<serde_norway::Value>::deserialize(d)? {
        Some(serde_norway::Value::String(s)) => Some(s),
        Some(serde_norway::Value::Number(n)) => Some(n.to_string()),
        Some(_) => return Err(serde::de::Error::custom("expected a string or a number")),
        None => None,
    })
}

fn profiles<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Profile>, D::Error> {
    let raw = Option::<BTreeMap<String, Option<Profile>>>::deserialize(d)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, v.unwrap_or_default()))
        .collect())
}

/// Where the config file is (existing or not): `--config`, `$ANALYST_CONFIG`,
/// `$XDG_CONFIG_HOME/analyst/config.yaml`, `~/.config/analyst/config.yaml`.
pub fn config_path(flag: Option<&Path>, env: &crate::term::Env) -> Option<PathBuf> {
    flag.map(Path::to_path_buf)
        .or_else(|| env.get("ANALYST_CONFIG").map(PathBuf::from))
        .or_else(|| {
            env.get("XDG_CONFIG_HOME")
                .map(|d| PathBuf::from(d).join("analyst/config.yaml"))
        })
        .or_else(|| {
            env.get("HOME")
                .map(|h| PathBuf::from(h).join(".config/analyst/config.yaml"))
        })
}

impl Config {
    /// Find the config file (`--config`, `$ANALYST_CONFIG`, `$XDG_CONFIG_HOME/analyst/config.yaml`,
    /// `~/.config/analyst/config.yaml`) and load it. A file named explicitly must exist; the
    /// default one may be absent.
    pub fn locate_and_load(
        flag: Option<&Path>,
        env: &crate::term::Env,
    ) -> Result<(Option<Config>, Option<PathBuf>)> {
        let explicit = flag.map(|p| (p.to_path_buf(), "--config")).or_else(|| {
            env.get("ANALYST_CONFIG")
                .map(|p| (PathBuf::from(p), "ANALYST_CONFIG"))
        });
        if let Some((path, origin)) = explicit {
            let config = Config::load(&path).map_err(|e| usage(format!("{origin}: {e:#}")))?;
            return Ok((Some(config), Some(path)));
        }
        let default = env
            .get("XDG_CONFIG_HOME")
            .map(|d| PathBuf::from(d).join("analyst/config.yaml"))
            .or_else(|| {
                env.get("HOME")
                    .map(|h| PathBuf::from(h).join(".config/analyst/config.yaml"))
            });
        match default {
            Some(path) if path.exists() => {
                let config = Config::load(&path).map_err(|e| usage(format!("{e:#}")))?;
                Ok((Some(config), Some(path)))
            }
            _ => Ok((None, None)),
        }
    }

    /// Load and parse one file; warn when it holds a secret and others can read it.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let config: Config = if text.trim().is_empty() {
            Config::default()
        } else {
            serde_norway::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        };
        if config
            .profiles
            .values()
            .any(|p| p.api_key.is_some() || p.scim_token.is_some() || p.data_token.is_some())
        {
            warn_if_readable_by_others(path);
        }
        Ok(config)
    }
}

/// Once per file and run: a command may load its settings more than once (`sql` resolves the
/// data API and the HTTP client separately), and one warning says it all.
#[cfg(unix)]
fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    static WARNED: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if warned.iter().any(|p| p == path) {
        return;
    }
    if let Ok(meta) = std::fs::metadata(path) {
        let mode = meta.permissions().mode();
        if mode & 0o044 != 0 {
            crate::term::diag(format_args!(
                "analyst: warning: {} holds a secret and others can read it (mode {:o}); run: chmod 600 {}",
                path.display(),
                mode & 0o777,
                path.display()
            ));
            warned.push(path.to_owned());
        }
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_: &Path) {}
