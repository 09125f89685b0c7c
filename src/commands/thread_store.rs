//! The last thread used with each profile, for `-c/--continue`: a small JSON map in
//! `$XDG_STATE_HOME/analyst/last-threads.json` (else `~/.local/state/analyst/`).

use crate::exit::usage;
use crate::settings::Env;
use anyhow::{Context, Result};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// The key used when no profile is in use.
const NO_PROFILE: &str = "-";

/// Where the last threads are remembered.
#[derive(Clone, Debug)]
pub struct ThreadStore {
    path: Option<PathBuf>,
}

impl ThreadStore {
    /// The store for this environment (none when neither XDG_STATE_HOME nor HOME is set).
    pub fn new(env: &Env) -> ThreadStore {
        let dir = env
            .get("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                env.get("HOME")
                    .map(|h| PathBuf::from(h).join(".local/state"))
            });
        ThreadStore {
            path: dir.map(|d| d.join("analyst").join("last-threads.json")),
        }
    }

    fn read(&self) -> Map<String, Value> {
        self.path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|v| match v {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The last thread of `profile`, or a usage error saying there is none.
    pub fn last(&self, profile: Option<&str>) -> Result<String> {
        let key = profile.unwrap_or(NO_PROFILE);
        self.read()
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                let whose = match profile {
                    Some(p) => format!("with profile {p:?}"),
                    None => "without a profile".to_owned(),
                };
                usage(format!(
                    "--continue: no thread remembered {whose} yet; start one with `analyst chat MESSAGE` or pass --chat-id ID"
                ))
            })
    }

    /// Remember `chat_id` as the last thread of `profile` (written atomically).
    pub fn remember(&self, profile: Option<&str>, chat_id: &str) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut map = self.read();
        map.insert(
            profile.unwrap_or(NO_PROFILE).to_owned(),
            Value::String(chat_id.to_owned()),
        );
        let dir = path.parent().unwrap_or(path);
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(&Value::Object(map))?)
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_profile() {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::from_pairs([("XDG_STATE_HOME", dir.path().to_str().unwrap())]);
        let store = ThreadStore::new(&env);
        assert!(store.last(None).is_err());
        store.remember(None, "c1").unwrap();
        store.remember(Some("prod"), "c2").unwrap();
        assert_eq!(store.last(None).unwrap(), "c1");
        assert_eq!(store.last(Some("prod")).unwrap(), "c2");
        assert!(dir.path().join("analyst/last-threads.json").exists());
    }
}
