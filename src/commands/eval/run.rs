//! Running cases: each turn goes through the same client path as `chat` (`converse`, with its
//! resume, retries and suspensions), `-j` cases at a time on one task.

use super::collect::{Call, Collect, Live};
use super::expect::{Observed, check, sql_calls};
use super::suite::{Case, Expect};
use crate::client::abort::abort;
use crate::client::chat::ChatClient;
use crate::client::resume::{TurnPlan, converse};
use crate::exit::{Status, status_of};
use crate::protocol::chat::{AbortRequest, message_id_at};
use crate::protocol::{ChatRequest, SessionSettings};
use crate::stream::answer::FinalTracker;
use crate::stream::tracker::Tracker;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{Map, Value};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What every case shares.
pub struct Runner<'a> {
    /// The service.
    pub client: &'a ChatClient,
    /// The identity of cases without a `session`.
    pub identity: &'a SessionSettings,
    /// Recoveries per turn (`--retries`).
    pub retries: u32,
    /// Longest wait for the next byte.
    pub idle: Duration,
    /// First pause before a recovery.
    pub backoff: Duration,
    /// `--fallback`.
    pub fallback: bool,
    /// `--save-dir`, created already.
    pub save_dir: Option<PathBuf>,
    /// Threads of running cases.
    pub live: Live,
    /// The next message id's milliseconds: ids stay unique however many turns start at once.
    next_ms: AtomicU64,
}

/// One run of one case.
pub struct Job<'a> {
    /// Its place in the run (reports keep suite order).
    pub slot: usize,
    /// The case.
    pub case: &'a Case,
    /// The name reported: the case's, with `#N` under `--repeat`.
    pub name: String,
}

/// How a case ended.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Place in the run.
    pub slot: usize,
    /// Reported name.
    pub name: String,
    /// Suite file.
    pub suite: String,
    /// The last question asked.
    pub question: String,
    /// Unmet expectations, `<key>: <reason>`.
    pub failures: Vec<String>,
    /// The stream failed (no answer to check): its status and message.
    pub error: Option<(Status, String)>,
    /// Whether any response stream began (for the exit status of a run where none did).
    pub got_stream: bool,
    /// The last turn's answer.
    pub answer: Option<String>,
    /// The thread.
    pub chat_id: Option<String>,
    /// From the first send to the last answer.
    pub seconds: f64,
    /// When the case began, so that a suite's time is its cases' wall span (they overlap).
    pub started: Option<Instant>,
    /// `__usage__` summed over the turns.
    pub usage: Option<Value>,
    /// SQL the last turn ran.
    pub sql: Vec<String>,
}

impl CaseResult {
    /// Every expectation met and the stream whole.
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.failures.is_empty()
    }

    /// `usage.totalTokens`.
    pub fn tokens(&self) -> Option<u64> {
        self.usage.as_ref()?.get("totalTokens")?.as_u64()
    }
}

/// What one turn left.
struct Turn {
    answer: Option<String>,
    calls: Vec<Call>,
    error: Option<(Status, String)>,
    got_stream: bool,
}

impl<'a> Runner<'a> {
    /// A runner; see the fields.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        client: &'a ChatClient,
        identity: &'a SessionSettings,
        retries: u32,
        idle: Duration,
        backoff: Duration,
        fallback: bool,
        save_dir: Option<PathBuf>,
    ) -> Runner<'a> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default();
        Runner {
            client,
            identity,
            retries,
            idle,
            backoff,
            fallback,
            save_dir,
            live: Live::default(),
            next_ms: AtomicU64::new(now),
        }
    }

    /// Run `jobs`, at most `concurrency` at once, calling `done` as each finishes.
    pub async fn run_all(
        &self,
        jobs: Vec<Job<'_>>,
        concurrency: usize,
        mut done: impl FnMut(CaseResult),
    ) {
        let mut pending = jobs.into_iter();
        let mut running = FuturesUnordered::new();
        for job in pending.by_ref().take(concurrency.max(1)) {
            running.push(self.run_case(job));
        }
        while let Some(result) = running.next().await {
            done(result);
            if let Some(job) = pending.next() {
                running.push(self.run_case(job));
            }
        }
    }

    /// The identity a case runs with: its own session, else the run's.
    pub fn identity_of<'c>(&'c self, case: &'c Case) -> &'c SessionSettings {
        case.session.as_ref().unwrap_or(self.identity)
    }

    /// The first request of a case (what `--dry-run` shows).
    pub fn first_request(&self, case: &Case) -> ChatRequest {
        ChatRequest {
            input: Some(case.question.clone()),
            message_id: Some(self.message_id()),
            session_settings: self.identity_of(case).clone(),
            ..ChatRequest::default()
        }
    }

    fn message_id(&self) -> String {
        message_id_at(u128::from(self.next_ms.fetch_add(1, Ordering::Relaxed)))
    }

    async fn run_case(&self, job: Job<'_>) -> CaseResult {
        let case = job.case;
        let identity = self.identity_of(case);
        let started = Instant::now();
        let mut result = CaseResult::starting(&job);
        result.started = Some(started);
        let mut save = match self.open_save(&job.name) {
            Ok(s) => s,
            Err(e) => {
                result.error = Some((Status::Usage, format!("{e:#}")));
                return result;
            }
        };
        let mut last_calls = Vec::new();
        for text in case.turns() {
            result.question = text.to_owned();
            let request = ChatRequest {
                input: Some(text.to_owned()),
                chat_id: result.chat_id.clone(),
                message_id: Some(self.message_id()),
                session_settings: identity.clone(),
                ..ChatRequest::default()
            };
            let turn = self
                .turn(
                    request,
                    case.timeout,
                    job.slot,
                    identity,
                    &mut save,
                    &mut result,
                )
                .await;
            result.got_stream |= turn.got_stream;
            result.answer = turn.answer;
            last_calls = turn.calls;
            if let Some(e) = turn.error {
                result.error = Some(e);
                break;
            }
        }
        if let Some((path, mut out)) = save
            && let Err(e) = out.flush()
        {
            result
                .error
                .get_or_insert((Status::Failure, format!("--save-dir: writing {path}: {e}")));
        }
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&job.slot);
        result.seconds = started.elapsed().as_secs_f64();
        result.judge(&case.expect, &last_calls);
        result
    }

    fn open_save(&self, name: &str) -> anyhow::Result<Option<(String, BufWriter<std::fs::File>)>> {
        let Some(dir) = &self.save_dir else {
            return Ok(None);
        };
        let path = dir.join(format!("{name}.ndjson"));
        let shown = path.display().to_string();
        let file = std::fs::File::create(&path)
            .map_err(|e| crate::exit::usage(format!("--save-dir: cannot create {shown}: {e}")))?;
        Ok(Some((shown, BufWriter::new(file))))
    }

    async fn turn(
        &self,
        request: ChatRequest,
        timeout: Option<Duration>,
        slot: usize,
        identity: &SessionSettings,
        save: &mut Option<(String, BufWriter<std::fs::File>)>,
        result: &mut CaseResult,
    ) -> Turn {
        let plan = TurnPlan {
            request,
            retries: self.retries,
            idle: self.idle,
            backoff: self.backoff,
        };
        let mut tracker = Tracker::new();
        tracker.answer = FinalTracker::new(self.fallback);
        let save = save
            .as_mut()
            .map(|(name, out)| (name.as_str(), out as &mut dyn Write));
        let mut sink = Collect::new(save, &self.live, slot, identity);
        let conversed = {
            let go = converse(self.client, &plan, &mut tracker, &mut sink);
            match timeout {
                Some(limit) => tokio::time::timeout(limit, go).await.ok(),
                None => Some(go.await),
            }
        };
        let calls = std::mem::take(&mut sink.calls);
        result.chat_id = tracker.chat_id.clone().or(result.chat_id.take());
        add_usage(&mut result.usage, tracker.usage.as_ref());
        let got_stream = tracker.saw_stream();
        let error = match conversed {
            None => {
                let limit = timeout.unwrap_or_default();
                if let Some(id) = &tracker.chat_id {
                    // The agent would go on answering nobody.
                    let request = AbortRequest {
                        chat_id: id.clone(),
                        session_settings: identity.clone(),
                    };
                    let _ = abort(self.client, &request).await;
                }
                Some((
                    Status::Failure,
                    format!("timeout: no final answer within {}", seconds_text(limit)),
                ))
            }
            Some(Err(e)) => Some((status_of(&e), format!("{e:#}"))),
            Some(Ok(())) => tracker
                .outcome()
                .err()
                .map(|e| (status_of(&e), format!("{e:#}"))),
        };
        let answer = tracker.answer.answer();
        if error.is_none() && answer.as_ref().is_some_and(|a| a.incomplete) {
            return Turn {
                answer: answer.map(|a| a.text),
                calls,
                error: Some((
                    Status::NoAnswer,
                    "the final answer is incomplete: its complete frame never arrived".into(),
                )),
                got_stream,
            };
        }
        Turn {
            answer: answer.map(|a| a.text),
            calls,
            error,
            got_stream,
        }
    }
}

/// A duration as a suite writes it: `2m`, `90s`, `1.5s`.
fn seconds_text(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}m", s / 60.0)
    } else {
        format!("{s}s")
    }
}

/// Add a turn's `usage` to the case's: numbers summed, anything else from the latest turn.
fn add_usage(total: &mut Option<Value>, turn: Option<&Value>) {
    let Some(Value::Object(turn)) = turn else {
        return;
    };
    let sum = total.get_or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(sum) = sum else {
        return;
    };
    for (k, v) in turn {
        let added = match (sum.get(k).and_then(Value::as_u64), v.as_u64()) {
            (Some(a), Some(b)) => Value::from(a + b),
            _ => v.clone(),
        };
        sum.insert(k.clone(), added);
    }
}

/// Abort the threads of cases still running (the first Ctrl-C); returns how many were stopped.
pub async fn abort_running(client: &ChatClient, live: &Live) -> (usize, usize) {
    let threads: Vec<(String, SessionSettings)> = live
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .cloned()
        .collect();
    let results = futures_util::future::join_all(threads.iter().map(|(id, identity)| {
        let request = AbortRequest {
            chat_id: id.clone(),
            session_settings: identity.clone(),
        };
        async move {
            let r = abort(client, &request).await;
            match &r {
                Ok(()) => crate::term::diag(format_args!("aborted {id}")),
                Err(e) => {
                    crate::term::diag(format_args!("analyst: could not stop thread {id}: {e:#}"))
                }
            }
            r.is_ok()
        }
    }))
    .await;
    (results.iter().filter(|ok| **ok).count(), threads.len())
}

impl CaseResult {
    /// A result for `job` before its first turn: named, with no answer, error or failures yet.
    fn starting(job: &Job<'_>) -> CaseResult {
        CaseResult {
            slot: job.slot,
            name: job.name.clone(),
            suite: job.case.suite.clone(),
            question: job.case.question.clone(),
            failures: Vec::new(),
            error: None,
            got_stream: false,
            answer: None,
            chat_id: None,
            seconds: 0.0,
            started: None,
            usage: None,
            sql: Vec::new(),
        }
    }

    /// Fills in the SQL run and the unmet expectations (or the stream error as the one
    /// failure), from the last turn's calls.
    fn judge(&mut self, expect: &Expect, last_calls: &[Call]) {
        self.sql = sql_calls(last_calls)
            .into_iter()
            .filter_map(|(s, _)| s)
            .collect();
        if self.error.is_none() {
            let observed = Observed {
                answer: self.answer.as_deref().unwrap_or_default(),
                calls: last_calls,
                seconds: self.seconds,
            };
            self.failures = check(expect, &observed);
        } else if let Some((_, message)) = &self.error {
            self.failures = vec![format!("stream: {message}")];
        }
    }
}
