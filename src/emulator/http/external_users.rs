//! Chat users made from `sessionSettings`: external users (created on first use, ephemeral
//! unless `isEphemeral: false`) and the key that owns threads.

use crate::protocol::SessionSettings;
use std::collections::{BTreeSet, HashMap};

/// Persistent external users an account may hold (the service's documented limit).
pub(crate) const MAX_PERSISTENT: usize = 10_000;
/// Ephemeral users held at once; a bound on memory against clients that invent ids.
pub(crate) const MAX_EPHEMERAL: usize = 100_000;
/// The default `ephemeralTtlSeconds`: one week.
pub(crate) const DEFAULT_TTL_SECONDS: u64 = 604_800;

/// Who owns a thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UserKey {
    /// An external user, by externalId.
    External(String),
    /// An internal user, by SCIM id (so a renamed userName keeps its threads).
    Internal(String),
}

#[derive(Debug)]
struct ExternalUser {
    /// `Some(ms)`: ephemeral, removed at that time; `None`: persistent.
    expires_at_ms: Option<u64>,
    /// Threads to remove with the user.
    threads: Vec<String>,
}

/// Why a user may not chat.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The field of `sessionSettings` concerned.
    pub field: &'static str,
    /// What to tell the client.
    pub message: String,
}

/// The external users of the account.
#[derive(Debug, Default)]
pub(crate) struct ExternalUsers {
    users: HashMap<String, ExternalUser>,
    /// (expiry, externalId) of ephemeral users, soonest first, so a sweep is cheap.
    expiry: BTreeSet<(u64, String)>,
    persistent: usize,
}

impl ExternalUsers {
    /// Remove users whose time has come; returns the chat ids of their threads.
    pub fn sweep(&mut self, now_ms: u64) -> Vec<String> {
        let mut threads = Vec::new();
        while let Some((at, id)) = self.expiry.first().cloned() {
            if at > now_ms {
                break;
            }
            self.expiry.pop_first();
            if let Some(user) = self.users.remove(&id) {
                threads.extend(user.threads);
            }
        }
        threads
    }

    /// Create the user on first use, or promote it to persistent when `isEphemeral: false`
    /// arrives later. A persistent user is never demoted, and the TTL counts from creation.
    pub fn touch(&mut self, s: &SessionSettings, now_ms: u64) -> Result<(), Refusal> {
        let Some(id) = s.external_id.as_deref() else {
            return Ok(());
        };
        let wants_persistent = s.is_ephemeral == Some(false);
        let limit_refusal = || Refusal {
            field: "sessionSettings.isEphemeral",
            message: format!(
                "the account already has {MAX_PERSISTENT} persistent external users (the limit); \
                 send isEphemeral: true or reuse an existing externalId"
            ),
        };
        if let Some(user) = self.users.get_mut(id) {
            if let (true, Some(at)) = (wants_persistent, user.expires_at_ms) {
                if self.persistent >= MAX_PERSISTENT {
                    return Err(limit_refusal());
                }
                self.expiry.remove(&(at, id.to_owned()));
                user.expires_at_ms = None;
                self.persistent += 1;
            }
            return Ok(());
        }
        let expires_at_ms = if wants_persistent {
            if self.persistent >= MAX_PERSISTENT {
                return Err(limit_refusal());
            }
            self.persistent += 1;
            None
        } else {
            if self.expiry.len() >= MAX_EPHEMERAL {
                return Err(Refusal {
                    field: "sessionSettings.externalId",
                    message: format!(
                        "the emulator holds at most {MAX_EPHEMERAL} ephemeral users at once"
                    ),
                });
            }
            let ttl = s.ephemeral_ttl_seconds.unwrap_or(DEFAULT_TTL_SECONDS);
            let at = now_ms.saturating_add(ttl.saturating_mul(1000));
            self.expiry.insert((at, id.to_owned()));
            Some(at)
        };
        self.users.insert(
            id.to_owned(),
            ExternalUser {
                expires_at_ms,
                threads: Vec::new(),
            },
        );
        Ok(())
    }

    /// Record a new thread of an external user, so it goes when the user does.
    pub fn add_thread(&mut self, external_id: &str, chat_id: &str) {
        if let Some(user) = self.users.get_mut(external_id) {
            user.threads.push(chat_id.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(id: &str, ephemeral: Option<bool>, ttl: Option<u64>) -> SessionSettings {
        SessionSettings {
            external_id: Some(id.into()),
            is_ephemeral: ephemeral,
            ephemeral_ttl_seconds: ttl,
            ..Default::default()
        }
    }

    #[test]
    fn ephemeral_users_expire_with_their_threads() {
        let mut users = ExternalUsers::default();
        users.touch(&ext("a", None, Some(10)), 0).unwrap();
        users.touch(&ext("b", Some(false), Some(10)), 0).unwrap();
        users.add_thread("a", "t1");
        users.add_thread("b", "t2");
        assert!(users.sweep(9_999).is_empty());
        assert_eq!(users.sweep(10_000), ["t1"]);
        assert!(!users.users.contains_key("a"));
        assert_eq!(users.users["b"].threads, ["t2"]);
    }

    #[test]
    fn promotion_and_the_persistent_limit() {
        let mut users = ExternalUsers::default();
        users.touch(&ext("x", None, Some(1)), 0).unwrap();
        users.touch(&ext("x", Some(false), None), 0).unwrap();
        assert!(
            users.sweep(u64::MAX).is_empty(),
            "promoted users do not expire"
        );
        for i in 1..MAX_PERSISTENT {
            users
                .touch(&ext(&format!("p{i}"), Some(false), None), 0)
                .unwrap();
        }
        let err = users
            .touch(&ext("one-more", Some(false), None), 0)
            .unwrap_err();
        assert_eq!(err.field, "sessionSettings.isEphemeral");
        assert!(users.touch(&ext("eph", None, None), 0).is_ok());
        assert!(
            users.touch(&ext("p1", Some(false), None), 0).is_ok(),
            "existing ones still chat"
        );
    }
}
