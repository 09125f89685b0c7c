//! Threads and their running turn. A [`Run`] is the log of one turn's frames: the agent task
//! appends to it, and every connection attached to the turn reads from it at its own pace, so
//! the turn goes on when clients disconnect and a resubscriber can join the running stream.

use super::external_users::UserKey;
use crate::emulator::engine::TurnMemory;
use crate::protocol::emit;
use axum::body::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::watch;

/// Turns a thread may hold; a bound on memory.
pub(crate) const MAX_TURNS: usize = 200;
/// Threads the emulator holds at once.
pub(crate) const MAX_THREADS: usize = 100_000;
/// Threads one user may own.
pub(crate) const MAX_THREADS_PER_USER: usize = 1_000;
/// Frames a run's log keeps; a connection that falls further behind is ended with an error line.
const MAX_LOG: usize = 10_000;

/// One conversation.
#[derive(Debug)]
pub(crate) struct Thread {
    /// Who created it; only they may read, write or abort it.
    pub owner: UserKey,
    /// The thread serialised as `__state__` sends it (langchain-style messages).
    pub messages: Vec<Value>,
    /// What earlier turns asked for, for follow-up questions.
    pub history: Vec<TurnMemory>,
    /// Message ids of turns that have ended, so a repeat does not run again.
    pub answered: HashSet<String>,
    /// The turn now streaming, if any.
    pub running: Option<Arc<Run>>,
}

/// All threads, with per-owner counts for the bounds.
#[derive(Debug, Default)]
pub(crate) struct Threads {
    map: HashMap<String, Thread>,
    owned: HashMap<UserKey, usize>,
    /// The thread each user's message went to, so that a resend of a message without its
    /// `chatId` (the client lost the connection before it learnt it) finds the turn it started
    /// instead of starting another (PROTOCOL.md, "Idempotency and resume").
    sent: HashMap<(UserKey, String), String>,
}

impl Threads {
    /// A thread by id.
    pub fn get_mut(&mut self, chat_id: &str) -> Option<&mut Thread> {
        self.map.get_mut(chat_id)
    }

    /// Whether a user may open one more thread (`Err` says why not).
    pub fn room_for(&self, owner: &UserKey) -> Result<(), String> {
        if self.map.len() >= MAX_THREADS {
            return Err(format!("the emulator holds at most {MAX_THREADS} threads"));
        }
        if self.owned.get(owner).copied().unwrap_or(0) >= MAX_THREADS_PER_USER {
            return Err(format!(
                "a user may own at most {MAX_THREADS_PER_USER} threads in the emulator"
            ));
        }
        Ok(())
    }

    /// The thread `owner`'s message `message_id` went to, if it is still held.
    pub fn thread_of_message(&self, owner: &UserKey, message_id: &str) -> Option<String> {
        self.sent
            .get(&(owner.clone(), message_id.to_owned()))
            .cloned()
    }

    /// Record that `owner`'s message `message_id` went to thread `chat_id`.
    pub fn note_message(&mut self, owner: &UserKey, message_id: &str, chat_id: &str) {
        self.sent
            .insert((owner.clone(), message_id.to_owned()), chat_id.to_owned());
    }

    /// Add an empty thread.
    pub fn insert(&mut self, chat_id: String, owner: UserKey) -> &mut Thread {
        *self.owned.entry(owner.clone()).or_default() += 1;
        self.map.entry(chat_id).or_insert(Thread {
            owner,
            messages: Vec::new(),
            history: Vec::new(),
            answered: HashSet::new(),
            running: None,
        })
    }

    /// Remove threads (of an expired user); their running turns finish unobserved.
    pub fn remove(&mut self, chat_ids: &[String]) {
        for id in chat_ids {
            let Some(t) = self.map.remove(id) else {
                continue;
            };
            let running = t.running.as_ref().map(|r| &r.message_id);
            for m in t.answered.iter().chain(running) {
                self.sent.remove(&(t.owner.clone(), m.clone()));
            }
            if let Some(n) = self.owned.get_mut(&t.owner) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.owned.remove(&t.owner);
                }
            }
        }
    }
}

/// A finished thread of an external user as data, so that `chat --demo` can keep its threads
/// from one run of the emulator to the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedThread {
    /// The thread's id.
    pub chat_id: String,
    /// Its owner's externalId.
    pub external_id: String,
    /// The thread as `__state__` sends it.
    pub messages: Vec<Value>,
    /// What its turns asked for, for follow-up questions.
    pub history: Vec<TurnMemory>,
    /// Message ids of its turns.
    pub answered: Vec<String>,
}

impl Threads {
    /// The threads of external users with no turn running (internal users' SCIM ids are new
    /// in every run, so their threads could not be owned again).
    pub fn export(&self) -> Vec<SavedThread> {
        let mut saved: Vec<SavedThread> = self
            .map
            .iter()
            .filter(|(_, t)| t.running.is_none())
            .filter_map(|(id, t)| match &t.owner {
                UserKey::External(ext) => {
                    let mut answered: Vec<String> = t.answered.iter().cloned().collect();
                    answered.sort();
                    Some(SavedThread {
                        chat_id: id.clone(),
                        external_id: ext.clone(),
                        messages: t.messages.clone(),
                        history: t.history.clone(),
                        answered,
                    })
                }
                UserKey::Internal(_) => None,
            })
            .collect();
        saved.sort_by(|a, b| a.chat_id.cmp(&b.chat_id));
        saved
    }

    /// Add saved threads; ids already present, and threads beyond the bounds, are skipped.
    pub fn import(&mut self, saved: Vec<SavedThread>) {
        for s in saved {
            let owner = UserKey::External(s.external_id);
            if self.map.contains_key(&s.chat_id) || self.room_for(&owner).is_err() {
                continue;
            }
            for m in &s.answered {
                self.sent
                    .insert((owner.clone(), m.clone()), s.chat_id.clone());
            }
            let thread = self.insert(s.chat_id, owner);
            thread.messages = s.messages;
            thread.history = s.history;
            thread.answered = s.answered.into_iter().collect();
        }
    }
}

/// One line of a run's log.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The serialised frame, `\n`-terminated.
    pub line: Bytes,
    /// Connections end after writing it (`__suspended__`).
    pub ends_stream: bool,
}

/// What a reader finds at its position in the log.
pub(crate) enum Read {
    /// The next line.
    Line(Entry),
    /// Nothing yet: wait for the bell.
    Wait,
    /// The run has ended and the reader has everything.
    Done,
    /// The reader fell behind the bounded log.
    Behind,
}

#[derive(Debug, Default)]
struct Log {
    entries: VecDeque<Entry>,
    /// Absolute index of `entries[0]`.
    base: usize,
    next_sort: u64,
    done: bool,
    paused: bool,
    /// The turn's `__usage__` frame once the agent has run (sent after an early end too).
    usage: Option<Value>,
}

/// One turn's frames as they are produced.
#[derive(Debug)]
pub(crate) struct Run {
    /// The user's messageId of this turn.
    pub message_id: String,
    log: Mutex<Log>,
    /// Rung on every change, so readers and the agent task wake without polling.
    bell: watch::Sender<u64>,
}

impl Run {
    /// A run whose first frame will carry `sort: 1` (`__cutoff__` is 0 on every connection).
    pub fn new(message_id: String) -> Arc<Run> {
        Arc::new(Run {
            message_id,
            log: Mutex::new(Log {
                next_sort: 1,
                ..Log::default()
            }),
            bell: watch::channel(0).0,
        })
    }

    fn log(&self) -> MutexGuard<'_, Log> {
        // A panic while holding this lock cannot leave the log inconsistent; carry on.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ring(&self) {
        self.bell.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A receiver that wakes on every change.
    pub fn bell(&self) -> watch::Receiver<u64> {
        self.bell.subscribe()
    }

    /// Append a frame, giving it the next `sort` (after `id`) when `sorted`; false once ended.
    pub fn push(&self, frame: &Value, sorted: bool, ends_stream: bool) -> bool {
        let mut log = self.log();
        if log.done {
            return false;
        }
        let mut value = frame.clone();
        if sorted {
            value = emit::with_sort(frame, log.next_sort);
            log.next_sort += 1;
        }
        let mut line = value.to_string().into_bytes();
        line.push(b'\n');
        log.entries.push_back(Entry {
            line: Bytes::from(line),
            ends_stream,
        });
        if log.entries.len() > MAX_LOG {
            log.entries.pop_front();
            log.base += 1;
        }
        drop(log);
        self.ring();
        true
    }

    /// Push the last frames and end the run in one step; false if it had already ended.
    pub fn finish(&self, sorted: &[Value], unsorted: &[Value]) -> bool {
        if self.is_done() {
            return false;
        }
        for f in sorted {
            self.push(f, true, false);
        }
        for f in unsorted {
            self.push(f, false, false);
        }
        self.end()
    }

    /// Mark the run ended; false if it already was.
    pub fn end(&self) -> bool {
        let was = std::mem::replace(&mut self.log().done, true);
        self.ring();
        !was
    }

    /// Whether the run has ended.
    pub fn is_done(&self) -> bool {
        self.log().done
    }

    /// The absolute index where the next frame will go: a new reader starts here.
    pub fn position(&self) -> usize {
        let log = self.log();
        log.base + log.entries.len()
    }

    /// The line at `index`, or what to do instead.
    pub fn read(&self, index: usize) -> Read {
        let log = self.log();
        if index < log.base {
            return Read::Behind;
        }
        match log.entries.get(index - log.base) {
            Some(entry) => Read::Line(entry.clone()),
            None if log.done => Read::Done,
            None => Read::Wait,
        }
    }

    /// Pause or resume the agent task (`__suspended__`); returns the previous state.
    pub fn set_paused(&self, paused: bool) -> bool {
        let was = std::mem::replace(&mut self.log().paused, paused);
        self.ring();
        was
    }

    /// Record the turn's `__usage__` frame.
    pub fn set_usage(&self, usage: Value) {
        self.log().usage = Some(usage);
    }

    /// The turn's `__usage__` frame, if the agent has run.
    pub fn usage(&self) -> Option<Value> {
        self.log().usage.clone()
    }

    /// Whether the agent task should wait.
    pub fn is_paused(&self) -> bool {
        self.log().paused
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(r: Read) -> String {
        match r {
            Read::Line(e) => String::from_utf8_lossy(&e.line).into_owned(),
            Read::Wait => "wait".into(),
            Read::Done => "done".into(),
            Read::Behind => "behind".into(),
        }
    }

    #[test]
    fn frames_get_sort_after_id_and_the_log_ends_once() {
        let run = Run::new("1-message".into());
        assert!(run.push(&json!({"role": "user", "id": "m"}), true, false));
        assert_eq!(
            text(run.read(0)),
            "{\"id\":\"m\",\"sort\":1,\"role\":\"user\"}\n"
        );
        assert_eq!(text(run.read(1)), "wait");
        assert!(run.finish(&[json!({"id": "__state__"})], &[json!({"id": "__usage__"})]));
        assert!(!run.finish(&[], &[]), "a second end is refused");
        assert!(!run.push(&json!({}), true, false));
        assert_eq!(text(run.read(1)), "{\"id\":\"__state__\",\"sort\":2}\n");
        assert_eq!(text(run.read(2)), "{\"id\":\"__usage__\"}\n");
        assert_eq!(text(run.read(3)), "done");
        assert_eq!(run.position(), 3);
    }

    #[test]
    fn finished_external_threads_export_and_import() {
        let mut threads = Threads::default();
        let t = threads.insert("c1".into(), UserKey::External("demo".into()));
        t.messages.push(json!({"kwargs": {"content": "hi"}}));
        t.answered.insert("1-message".into());
        threads.insert("c2".into(), UserKey::Internal("scim-id".into()));
        threads
            .insert("c3".into(), UserKey::External("demo".into()))
            .running = Some(Run::new("2-message".into()));
        let saved = threads.export();
        assert_eq!(saved.len(), 1, "only finished threads of external users");
        assert_eq!(saved[0].chat_id, "c1");
        let mut again = Threads::default();
        again.import(saved.clone());
        again.import(saved.clone());
        assert_eq!(again.export(), saved);
        assert_eq!(again.owned[&UserKey::External("demo".into())], 1);
        let demo = UserKey::External("demo".into());
        assert_eq!(
            again.thread_of_message(&demo, "1-message").as_deref(),
            Some("c1"),
            "a kept thread's messages are found again"
        );
    }

    #[test]
    fn messages_are_forgotten_with_their_threads() {
        let mut threads = Threads::default();
        let (ana, bo) = (
            UserKey::External("ana".into()),
            UserKey::External("bo".into()),
        );
        threads.insert("c1".into(), ana.clone()).running = Some(Run::new("2-message".into()));
        threads
            .get_mut("c1")
            .unwrap()
            .answered
            .insert("1-message".into());
        threads.note_message(&ana, "1-message", "c1");
        threads.note_message(&ana, "2-message", "c1");
        assert_eq!(
            threads.thread_of_message(&ana, "2-message").as_deref(),
            Some("c1")
        );
        assert_eq!(
            threads.thread_of_message(&bo, "2-message"),
            None,
            "per user"
        );
        threads.remove(&["c1".into()]);
        assert_eq!(threads.thread_of_message(&ana, "1-message"), None);
        assert!(threads.sent.is_empty(), "{:?}", threads.sent);
    }

    #[test]
    fn the_log_is_bounded() {
        let run = Run::new("m".into());
        for _ in 0..MAX_LOG + 5 {
            run.push(&json!({}), true, false);
        }
        assert_eq!(text(run.read(0)), "behind");
        assert!(matches!(run.read(5), Read::Line(_)));
    }
}
