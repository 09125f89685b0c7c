//! The last thread used with each profile, for `-c/--continue`: a small JSON map in
//! `$XDG_STATE_HOME/analyst/last-threads.json` (else `~/.local/state/analyst/`). And the
//! threads of `chat --demo`, kept apart in `demo-threads.json` next to it.

use crate::emulator::server::SavedThread;
use crate::exit::usage;
use crate::term::Env;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// `$XDG_STATE_HOME/analyst`, else `~/.local/state/analyst` (none without either variable).
fn state_dir(env: &Env) -> Option<PathBuf> {
    env.get("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            env.get("HOME")
                .map(|h| PathBuf::from(h).join(".local/state"))
        })
        .map(|d| d.join("analyst"))
}

/// Write `bytes` to `path` through a temporary file and a rename, so a reader never sees half.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(path);
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

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
        ThreadStore {
            path: state_dir(env).map(|d| d.join("last-threads.json")),
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

    /// The last thread of `profile`, or a usage error saying there is none (or that the last
    /// run's thread came without an id).
    pub fn last(&self, profile: Option<&str>) -> Result<String> {
        let key = profile.unwrap_or(NO_PROFILE);
        let whose = || match profile {
            Some(p) => format!("with profile {p:?}"),
            None => "without a profile".to_owned(),
        };
        match self.read().get(key) {
            Some(Value::String(id)) => Ok(id.clone()),
            Some(Value::Null) => Err(usage(format!(
                "--continue: the last thread used {} came without an id (no chatId in its __cutoff__), so it cannot be continued; pass --chat-id ID",
                whose()
            ))),
            _ => Err(usage(format!(
                "--continue: no thread remembered {} yet; start one with `analyst chat MESSAGE` or pass --chat-id ID",
                whose()
            ))),
        }
    }

    /// The last thread of `profile` is one whose id the service did not send.
    pub fn forget(&self, profile: Option<&str>) -> Result<()> {
        self.put(profile, Value::Null)
    }

    /// Remember `chat_id` as the last thread of `profile` (written atomically).
    pub fn remember(&self, profile: Option<&str>, chat_id: &str) -> Result<()> {
        self.put(profile, Value::String(chat_id.to_owned()))
    }

    fn put(&self, profile: Option<&str>, value: Value) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut map = self.read();
        map.insert(profile.unwrap_or(NO_PROFILE).to_owned(), value);
        write_atomically(path, &serde_json::to_vec_pretty(&Value::Object(map))?)
    }
}

/// Threads `chat --demo` keeps between runs; the oldest go first.
pub const DEMO_THREADS_KEPT: usize = 50;

/// What `demo-threads.json` holds: the demo's last thread (for `--continue`) and its threads,
/// oldest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DemoThreads {
    /// The thread the last demo run used.
    #[serde(default)]
    pub last: Option<String>,
    /// Finished threads, oldest first, at most [`DEMO_THREADS_KEPT`].
    #[serde(default)]
    pub threads: Vec<SavedThread>,
}

impl DemoThreads {
    /// Where the demo's threads are kept (none when neither XDG_STATE_HOME nor HOME is set).
    pub fn path(env: &Env) -> Option<PathBuf> {
        state_dir(env).map(|d| d.join("demo-threads.json"))
    }

    /// The kept threads; none when the file is missing, and none with a warning when it cannot
    /// be read (a demo must still run).
    pub fn load(path: Option<&Path>) -> DemoThreads {
        let Some(path) = path else {
            return DemoThreads::default();
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return DemoThreads::default(),
            Err(e) => {
                crate::term::warn(format!("cannot read {}: {e}", path.display()));
                return DemoThreads::default();
            }
        };
        serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            crate::term::warn(format!(
                "{}: not demo threads ({e}); starting without them",
                path.display()
            ));
            DemoThreads::default()
        })
    }

    /// Write them (atomically).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomically(path, &serde_json::to_vec(self)?)
    }

    /// After a run: the emulator's threads `now` merged in. A thread that is new or changed
    /// moves to the end and becomes `last`; the oldest beyond [`DEMO_THREADS_KEPT`] go.
    pub fn merged(&self, now: Vec<SavedThread>) -> DemoThreads {
        let mut out = self.clone();
        for thread in now {
            match out.threads.iter().position(|t| t.chat_id == thread.chat_id) {
                Some(i) if out.threads[i] == thread => continue,
                Some(i) => {
                    out.threads.remove(i);
                }
                None => {}
            }
            out.last = Some(thread.chat_id.clone());
            out.threads.push(thread);
        }
        let extra = out.threads.len().saturating_sub(DEMO_THREADS_KEPT);
        out.threads.drain(..extra);
        out
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

    fn saved(id: &str, turns: usize) -> SavedThread {
        SavedThread {
            chat_id: id.into(),
            external_id: "demo".into(),
            messages: Vec::new(),
            history: Vec::new(),
            answered: (0..turns).map(|i| format!("{i}-message")).collect(),
        }
    }

    #[test]
    fn demo_threads_keep_the_newest_and_remember_the_changed_one() {
        let mut kept = DemoThreads::default();
        for i in 0..DEMO_THREADS_KEPT {
            kept = kept.merged(vec![saved(&format!("t{i}"), 1)]);
        }
        assert_eq!(kept.last.as_deref(), Some("t49"));
        // The emulator exports every thread it holds; only the one that changed moves.
        let mut now = kept.threads.clone();
        now[0] = saved("t0", 2);
        now.push(saved("new", 1));
        let after = kept.merged(now);
        assert_eq!(after.threads.len(), DEMO_THREADS_KEPT, "bounded");
        assert_eq!(after.threads[0].chat_id, "t2", "the oldest went");
        let ids: Vec<&str> = after.threads[DEMO_THREADS_KEPT - 2..]
            .iter()
            .map(|t| t.chat_id.as_str())
            .collect();
        assert_eq!(ids, ["t0", "new"]);
        assert_eq!(after.last.as_deref(), Some("new"));
        assert_eq!(
            after.merged(after.threads.clone()),
            after,
            "nothing changed"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo-threads.json");
        after.save(&path).unwrap();
        assert_eq!(DemoThreads::load(Some(&path)), after);
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(DemoThreads::load(Some(&path)), DemoThreads::default());
    }
}
