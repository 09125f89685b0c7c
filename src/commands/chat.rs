//! `analyst chat`: send a message and stream the answer; or `--replay` a saved stream.

use super::Ctx;
use super::chat_request::{Service, body_request, image, message_id, service, thread_id};
use super::chat_sink::{Pipeline, Remember, renderer};
use crate::cli::{ChatArgs, Format, IdentityArgs, ServiceArgs};
use crate::client::abort::abort;
use crate::client::resume::{TurnPlan, converse};
use crate::exit::{Status, usage};
use crate::protocol::chat::AbortRequest;
use crate::protocol::{ChatRequest, SessionSettings};
use crate::render::chat::End;
use crate::render::pick_format;
use crate::render::result_view::TextView;
use crate::stream::answer::FinalTracker;
use crate::stream::lines::{Chunks, Framed};
use crate::stream::tracker::{Feed, Sink, Source, Tracker};
use crate::term::warn;
use anyhow::Result;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// The first pause before a recovery. `ANALYST_TEST_BACKOFF_MS` (internal, for tests) replaces it.
pub(super) const BACKOFF: Duration = Duration::from_millis(200);

/// Run the command.
pub fn run(ctx: &Ctx, args: ChatArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[
            Format::Text,
            Format::Ndjson,
            Format::Json,
            Format::Yaml,
            Format::Final,
        ],
        Format::Text,
        Format::Ndjson,
        "chat",
    )?;
    if let Some(path) = &args.replay {
        return replay(ctx, &args, path, format);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(live(ctx, &args, format))
}

/// The message: the words joined with spaces, or stdin for `-`, else the body's `input`.
fn message(args: &ChatArgs, from_body: Option<String>) -> Result<String> {
    let text = match args.message.as_slice() {
        [] => from_body.unwrap_or_default(),
        [dash] if dash == "-" => {
            if args.body.as_deref() == Some("-") {
                return Err(usage("the message and --body cannot both come from stdin"));
            }
            crate::settings::read_text_source("MESSAGE", "-")?
                .trim_end_matches(['\n', '\r'])
                .to_owned()
        }
        words => words.join(" "),
    };
    if text.trim().is_empty() {
        return Err(usage(
            "no message: pass it as arguments, - for stdin, or \"input\" in --body",
        ));
    }
    Ok(text)
}

async fn live(ctx: &Ctx, args: &ChatArgs, format: Format) -> Result<Status> {
    let (mut request, body_session) = body_request(args.body.as_deref())?;
    let input = message(args, request.input.take())?;
    // Ctrl-C is ours from here on (after the message was read from a terminal, where it must
    // still stop the typing), before anything slow such as starting the demo's emulator: a
    // press at any moment exits 130 with a message, never by the signal.
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    let demo = if args.demo {
        let start = super::chat_demo::start(ctx, args.dialect.into(), args.today.as_deref());
        tokio::select! {
            d = start => Some(d?),
            _ = sigint.recv() => return Ok(interrupted_unnamed()),
        }
    } else {
        None
    };
    let svc = service(
        ctx,
        &args.service,
        &args.identity,
        body_session.as_ref(),
        demo.as_ref().map(|d| &d.target),
    )?;
    request.input = Some(input);
    let from_body = request.chat_id.take();
    request.chat_id = match &demo {
        Some(d) => d.thread_id(ctx, &args.thread, from_body)?,
        None => thread_id(ctx, &args.thread, svc.profile(), from_body)?,
    };
    request.message_id = Some(message_id(
        args.message_id.as_deref(),
        request.message_id.take(),
    )?);
    branch_and_images(args, &mut request)?;
    request.session_settings = svc.identity.clone();
    if ctx.global.dry_run {
        svc.dry_run(&svc.client.endpoint.stream, &request)?;
        return Ok(Status::Success);
    }

    let remember = Remember::for_run(args.demo, svc.profile());
    let demo_identity = args.demo.then_some(&svc.identity);
    let mut pipeline = Pipeline::new(
        renderer(
            ctx,
            format,
            args.show_thinking,
            text_view(ctx, args, demo_identity),
        ),
        args.save.as_deref(),
        ctx.chatty(),
        remember,
        &ctx.env,
    )?
    .with_charts(args.chart.as_deref())?;
    let plan = TurnPlan {
        request,
        retries: args.retries,
        idle: svc.idle(),
        backoff: backoff(ctx),
    };
    let mut tracker = tracker_for(format, args.fallback);
    let finished = tokio::select! {
        r = converse(&svc.client, &plan, &mut tracker, &mut pipeline) => Some(r),
        _ = sigint.recv() => None,
    };
    match finished {
        None => {
            pipeline.stop();
            let flags = service_flags(ctx, args, demo_identity);
            let chat_id = tracker.chat_id.clone().or(plan.request.chat_id.clone());
            // `state` takes no --demo: a demo thread is looked at again by continuing it (the
            // demo keeps its threads between runs, this one's too).
            let later = match args.demo {
                false => Later::State(flags),
                true => Later::Chat(continue_flags(ctx, args, demo_identity)),
            };
            interrupted(&svc, args.no_abort, chat_id, later, &mut sigint).await
        }
        // Refused before any stream: only the error. Refused later (a state read or a resend
        // answered 404, 400 busy...): the run ends as the others do, its document included.
        Some(Err(e)) if !tracker.saw_stream() => {
            pipeline.stop();
            Err(e)
        }
        Some(result) => finish(
            ctx,
            Run {
                flags: Some(continue_flags(ctx, args, demo_identity)),
                format,
                message_id: plan.request.message_id.as_deref(),
                asked_chat_id: plan.request.chat_id.as_deref(),
                failed: result.err(),
            },
            &tracker,
            pipeline,
        ),
    }
}

/// `--branch`, `--default-branch` and `--image` into the request (images read and encoded).
fn branch_and_images(args: &ChatArgs, request: &mut ChatRequest) -> Result<()> {
    if let Some(branch) = &args.branch {
        request.active_branch_name = Some(branch.clone());
    }
    if args.default_branch {
        request.is_default_branch = Some(true);
    }
    if !args.images.is_empty() {
        request.images = Some(
            args.images
                .iter()
                .map(|p| image(p))
                .collect::<Result<_>>()?,
        );
    }
    Ok(())
}

/// The first pause before a recovery: [`BACKOFF`], or `ANALYST_TEST_BACKOFF_MS` in tests.
fn backoff(ctx: &Ctx) -> Duration {
    ctx.env
        .get("ANALYST_TEST_BACKOFF_MS")
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(BACKOFF)
}

/// How an interrupted thread is looked at again, with the flags that reach its service.
enum Later {
    /// `analyst state`.
    State(String),
    /// `analyst chat --demo ... --chat-id` (`state` has no `--demo`).
    Chat(String),
}

/// The first Ctrl-C: abort the thread (unless `--no-abort`), say how to look at it later, and
/// exit 130; a second Ctrl-C while the abort is on its way quits at once.
async fn interrupted(
    svc: &Service,
    no_abort: bool,
    chat_id: Option<String>,
    later: Later,
    sigint: &mut tokio::signal::unix::Signal,
) -> Result<Status> {
    let Some(id) = chat_id else {
        return Ok(interrupted_unnamed());
    };
    if !no_abort {
        crate::term::diag(format_args!(
            "analyst: interrupted; stopping thread {id} (Ctrl-C again to quit at once)"
        ));
        let request = AbortRequest {
            chat_id: id.clone(),
            session_settings: svc.identity.clone(),
        };
        tokio::select! {
            r = abort(&svc.client, &request) => match r {
                Ok(()) => crate::term::diag(format_args!("aborted {id}")),
                Err(e) => crate::term::diag(format_args!("analyst: could not stop the thread: {e:#}")),
            },
            _ = sigint.recv() => return Ok(Status::Interrupted),
        }
    } else {
        crate::term::diag(format_args!(
            "analyst: interrupted; thread {id} goes on (--no-abort)"
        ));
    }
    match later {
        Later::State(flags) => crate::term::diag(format_args!(
            "analyst: look at it later with: analyst state{flags} --chat-id {id}"
        )),
        Later::Chat(flags) => crate::term::diag(format_args!(
            "analyst: continue it with: analyst chat{flags} --chat-id {id} MESSAGE"
        )),
    }
    Ok(Status::Interrupted)
}

/// Ctrl-C before the service named a thread: nothing to stop, and still exit 130.
fn interrupted_unnamed() -> Status {
    crate::term::diag(format_args!(
        "analyst: interrupted before the service named the thread; nothing to stop"
    ));
    Status::Interrupted
}

/// The options a printed `analyst chat`/`analyst sql` command needs to reach this run's
/// service as this run did: ` --demo` for the built-in emulator (its threads are kept between
/// runs, apart from the profiles'), with the identity the run asked as when it is not the
/// demo's own (a thread belongs to its user, and rows follow the user's attributes); else
/// the `--config` and `--profile` named and the service and identity flags given (settings
/// from the environment or the profile reach a pasted command by themselves). `demo` is the
/// run's identity in a demo run.
pub(super) fn service_flags(ctx: &Ctx, args: &ChatArgs, demo: Option<&SessionSettings>) -> String {
    let Some(identity) = demo else {
        let mut flags = String::new();
        if let Some(config) = &ctx.global.config {
            let config = std::path::absolute(config).unwrap_or_else(|_| config.clone());
            let config = config.to_string_lossy();
            flags.push_str(&format!(" --config {}", crate::term::shell_word(&config)));
        }
        flags.push_str(&profile_flag(ctx));
        flags.push_str(&given_flags(&args.service, &args.identity));
        return flags;
    };
    let mut flags = " --demo".to_owned();
    let word = crate::term::shell_word;
    // The demo's numbers follow its date: a pasted command must ask on the same day.
    if let Some(today) = &args.today {
        flags.push_str(&format!(" --today {}", word(today)));
    }
    match (&identity.external_id, &identity.internal_id) {
        (Some(ext), _) if ext != crate::settings::DEMO_USER => {
            flags.push_str(&format!(" --external-id {}", word(ext)));
        }
        (_, Some(int)) => flags.push_str(&format!(" --internal-id {}", word(int))),
        _ => {}
    }
    for a in identity.user_attributes.iter().flatten() {
        flags.push_str(&format!(
            " --attr {}",
            word(&format!("{}={}", a.name, a.value))
        ));
    }
    for g in identity.groups.iter().flatten() {
        flags.push_str(&format!(" --group {}", word(g)));
    }
    flags
}

/// The flags of the continue hint: [`service_flags`], and the branch the run worked on (the
/// next message belongs there too).
fn continue_flags(ctx: &Ctx, args: &ChatArgs, demo: Option<&SessionSettings>) -> String {
    let mut flags = service_flags(ctx, args, demo);
    if demo.is_some() && args.dialect != crate::cli::DialectArg::Seed {
        // The thread lives in a demo speaking that variant; the next message must be read so.
        let dialect = clap::ValueEnum::to_possible_value(&args.dialect)
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default();
        flags.push_str(&format!(" --dialect {dialect}"));
    }
    if let Some(branch) = &args.branch {
        flags.push_str(&format!(" --branch {}", crate::term::shell_word(branch)));
    }
    if args.default_branch {
        flags.push_str(" --default-branch");
    }
    flags
}

/// The service and identity flags given on the command line, as shell words: a pasted command
/// needs them to reach the same service as the same user. Values read from stdin (`-`) are
/// left out: a pasted command has no such stdin (and asks for what is missing).
fn given_flags(service: &ServiceArgs, identity: &IdentityArgs) -> String {
    let mut words: Vec<(&str, String)> = Vec::new();
    let mut one = |flag: &'static str, value: Option<String>| {
        if let Some(v) = value.filter(|v| v != "-") {
            words.push((flag, v));
        }
    };
    // Absolute, so that the command works from another directory too.
    let path = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .filter(|p| p.as_os_str() != "-")
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
            .map(|p| p.to_string_lossy().into_owned())
    };
    one("--url", service.url.clone());
    one("--base-url", service.base_url.clone());
    one("--account", service.account.clone());
    one("--agent", service.agent.clone());
    one("--api-key-file", path(&service.api_key_file));
    one("--token-file", path(&service.token_file));
    one("--session", identity.session.clone());
    one("--external-id", identity.external_id.clone());
    one("--internal-id", identity.internal_id.clone());
    one("--email", identity.email.clone());
    one("--security-context", identity.security_context.clone());
    one("--timezone", identity.timezone.clone());
    one("--user-ttl", identity.user_ttl.clone());
    for (flag, values) in [
        ("--attr", &identity.attrs),
        ("--group", &identity.groups),
        ("--role", &identity.roles),
    ] {
        for v in values {
            words.push((flag, v.clone()));
        }
    }
    let mut flags: String = words
        .iter()
        .map(|(flag, v)| format!(" {flag} {}", crate::term::shell_word(v)))
        .collect();
    if identity.persist_user {
        flags.push_str(" --persist-user");
    }
    flags
}

fn profile_flag(ctx: &Ctx) -> String {
    ctx.global
        .profile
        .as_deref()
        .map(|p| format!(" --profile {p}"))
        .unwrap_or_default()
}

/// How `text` shows SQL results: `--rows`, `--no-chart`, and the width of the terminal (else
/// `COLUMNS`, else 80).
pub(super) fn text_view(ctx: &Ctx, args: &ChatArgs, demo: Option<&SessionSettings>) -> TextView {
    TextView {
        rows: args.rows,
        width: crate::term::out_width(&ctx.env),
        charts: !args.no_chart,
        // A replayed stream does not say how its run reached the service (`--demo`, which
        // day, which profile): no command is offered that could not work when pasted.
        sql_flags: args
            .replay
            .is_none()
            .then(|| service_flags(ctx, args, demo)),
    }
}

/// Lines the tracker skipped because they were not JSON objects, said on stderr.
pub(super) fn warn_skipped(tracker: &Tracker) {
    if let Some((n, first)) = tracker.skipped() {
        let (lines, were) = if n == 1 {
            ("line", "was")
        } else {
            ("lines", "were")
        };
        warn(format!(
            "skipped {n} {lines} that {were} not a JSON object; the first, {first}"
        ));
    }
}

/// Why an answer rebuilt from its chunks is not a complete one.
const INCOMPLETE: &str = "the final answer is incomplete: its complete frame never arrived";

/// Close the output and decide the exit status from what the stream said.
/// How a live run went, for [`finish`].
struct Run<'a> {
    /// What a printed command needs to reach this run's service (see [`service_flags`]);
    /// `None` for a replay, whose stream does not say how its run reached the service.
    flags: Option<String>,
    format: Format,
    message_id: Option<&'a str>,
    /// The thread the request named (`--chat-id`, `-c`): known even when `__cutoff__` does
    /// not carry it.
    asked_chat_id: Option<&'a str>,
    /// An error that ended the run after its stream began (it outranks the stream's outcome).
    failed: Option<anyhow::Error>,
}

fn finish(ctx: &Ctx, run: Run<'_>, tracker: &Tracker, mut pipeline: Pipeline) -> Result<Status> {
    let Run {
        flags,
        format,
        message_id,
        asked_chat_id,
        failed,
    } = run;
    let chat_id = tracker.chat_id.as_deref().or(asked_chat_id);
    pipeline.stop();
    warn_skipped(tracker);
    let found = tracker.answer.answer();
    let answer = found.as_ref().map(|a| (a.text.clone(), a.incomplete));
    let outcome = match failed.map_or_else(|| tracker.outcome(), Err) {
        // Exit 0 means a complete answer: chunks of a final message whose complete frame never
        // came are shown, but end the run as no final answer (as `eval` counts them).
        Ok(()) if answer.as_ref().is_some_and(|(_, incomplete)| *incomplete) => {
            Err(crate::exit::fail(Status::NoAnswer, INCOMPLETE))
        }
        outcome => {
            if let Some((_, true)) = &answer {
                warn(INCOMPLETE);
            }
            outcome
        }
    };
    let error = outcome.as_ref().err().map(|e| format!("{e:#}"));
    if found.as_ref().is_some_and(|a| a.from_fallback) {
        warn(
            "no final frame in the stream; the answer is the last complete assistant message (--fallback)",
        );
    }
    let from_state = found.as_ref().is_some_and(|a| a.from_state);
    // `-o final` is only the answer text, with no room to say the run failed: a run that failed
    // for another reason than an unfinished final message (a lost connection, a refused state
    // read...) prints none of it, rather than the front of an answer or the message the
    // fallback took before the break. The documents keep it, beside their `error`.
    let failed_otherwise = outcome
        .as_ref()
        .is_err_and(|e| crate::exit::status_of(e) != Status::NoAnswer);
    let answer_text = answer
        .as_ref()
        .map(|(text, _)| text.as_str())
        .filter(|_| !(format == Format::Final && failed_otherwise));
    let end = End {
        chat_id,
        message_id: message_id.or(tracker.message_id.as_deref()),
        answer: answer_text,
        answer_from_state: from_state,
        usage: tracker.usage.as_ref(),
        error: error.as_deref(),
    };
    pipeline.finish(&end, ctx.global.quiet)?;
    if tracker.chat_id.is_none()
        && let Some(id) = asked_chat_id
    {
        // The thread the request named is the last one used, even when `__cutoff__` does
        // not say it (`-c` must not go back to the one before).
        pipeline.chat_id(id)?;
    }
    if chat_id.is_none() && tracker.saw_stream() {
        // PROTOCOL.md: a client that gets no thread id cannot resume or continue, and says so;
        // `-c` must not continue the thread before this one either.
        pipeline.thread_unknown();
        if !ctx.global.quiet {
            warn(
                "the service sent no thread id (no chatId in __cutoff__): this thread cannot be continued, and a dropped connection could not have been resumed",
            );
        }
    }
    if format == Format::Text
        && !ctx.global.quiet
        && let Some(id) = chat_id
    {
        let hint = match flags {
            Some(flags) => {
                format!("thread {id} · continue with: analyst chat{flags} --chat-id {id} MESSAGE")
            }
            None => format!("thread {id}"),
        };
        crate::term::diag(format_args!("{}", ctx.err_style.dim(&hint)));
    }
    outcome.map(|()| Status::Success)
}

/// A tracker for a run in `format`. `-o ndjson` never shows the answer's text, only its
/// presence decides the status: its chunks are not gathered, so memory stays flat however long
/// the answer.
pub(super) fn tracker_for(format: Format, fallback: bool) -> Tracker {
    let mut tracker = Tracker::new();
    tracker.answer = FinalTracker::new(fallback);
    if format == Format::Ndjson {
        tracker.answer = tracker.answer.without_text();
    }
    tracker
}

/// `--replay`: render a saved stream without contacting the service.
fn replay(ctx: &Ctx, args: &ChatArgs, path: &Path, format: Format) -> Result<Status> {
    let name = if path.as_os_str() == "-" {
        "stdin".to_owned()
    } else {
        path.display().to_string()
    };
    let mut reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(
            std::fs::File::open(path)
                .map_err(|e| usage(format!("--replay {name}: cannot read: {e}")))?,
        )
    };
    let mut pipeline = Pipeline::new(
        renderer(ctx, format, args.show_thinking, text_view(ctx, args, None)),
        args.save.as_deref(),
        false,
        Remember::Not,
        &ctx.env,
    )?
    .with_charts(args.chart.as_deref())?;
    let mut tracker = tracker_for(format, args.fallback);
    tracker.source(Source::File(name.clone()));
    {
        let mut feed = Feed::new(&mut tracker, &mut pipeline);
        let mut framed = Framed::new(&mut feed);
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(usage(format!("--replay {name}: read error: {e}"))),
            };
            framed.chunk(&buf[..n])?;
            framed.caught_up()?;
        }
        framed.finish()?;
    }
    if tracker.saw_nothing() {
        pipeline.stop();
        return Err(crate::exit::fail(
            Status::NoAnswer,
            format!("{name}: no final answer (the stream is empty)"),
        ));
    }
    if !tracker.ended && tracker.error.is_none() && tracker.suspended.is_none() {
        // A live run would have resumed such a stream: with a complete answer it would have
        // succeeded; without one the live run lost its connection (exit 6).
        match tracker.answer.answer() {
            Some(a) if !a.incomplete => warn(format!(
                "{name}: the saved stream ends before __state__ (cut off?)"
            )),
            _ => {
                tracker.lost = Some(format!(
                    "{name}: the saved stream ends before its end (no __state__) and without a complete answer"
                ))
            }
        }
    }
    let run = Run {
        flags: None,
        format,
        message_id: None,
        asked_chat_id: None,
        failed: None,
    };
    finish(ctx, run, &tracker, pipeline)
}
