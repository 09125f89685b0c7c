//! `analyst chat -i`: a prompt with line editing and history; each line is a message in the
//! same thread, rendered as `text`. Ctrl-C during an answer aborts that turn and returns to the
//! prompt; Ctrl-C at the prompt clears the line; Ctrl-D exits.

use super::Ctx;
use super::chat::{BACKOFF, text_view, tracker_for};
use super::chat_request::{Service, message_id, service, thread_id};
use super::chat_sink::{Pipeline, Remember, renderer};
use crate::cli::{ChatArgs, Format};
use crate::client::abort::abort;
use crate::client::resume::{TurnPlan, converse, read_request};
use crate::exit::{Status, usage};
use crate::protocol::Frame;
use crate::protocol::chat::{AbortRequest, ChatRequest};
use crate::protocol::data::QueryRequest;
use crate::protocol::tool::{Tool, classify, parse_input, parse_result};
use crate::render::chart::files::{self, Charts};
use crate::render::chat::End;
use crate::render::state_table::StateView;
use crate::render::table::Titles;
use crate::settings::DataSettings;
use crate::stream::tracker::{Sink, Tracker};
use crate::term::{diag, error};
use anyhow::Result;
use rustyline::error::ReadlineError;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use tokio::runtime::Runtime;

const PROMPT: &str = "analyst> ";

const HELP: &str = "\
Each line is a message in the same thread. Commands:
  /new         start a new thread
  /state       show the thread's messages
  /sql [N]     all rows of the N-th SQL of the last answer (default: the last)
  /chart FILE  write the last answer's charts (.svg, .html or .vl.json)
  /save FILE   write the raw stream of this session (NDJSON)
  /help        this help
  /quit        leave (or Ctrl-D)
Ctrl-C stops the running answer; at the prompt it clears the line.";

/// What the session knows.
struct Session {
    chat_id: Option<String>,
    /// Every line of every turn, as received.
    raw: Vec<u8>,
    /// The last answer's charts.
    charts: Charts,
    /// The last answer's SQL queries, in order.
    sqls: Vec<String>,
    /// Member titles the meta tool gave in this thread, for `/sql`'s table headers.
    titles: Titles,
    /// What `/sql`'s `analyst sql` command needs to reach this service (` --demo`).
    service_flags: String,
    /// Where `/sql` runs a query, or why it cannot (no data API configured).
    data: std::result::Result<DataSettings, String>,
    /// The query's time zone (`--timezone`, as `analyst sql` sends it).
    timezone: Option<String>,
}

/// Run the prompt.
pub fn run(ctx: &Ctx, args: &ChatArgs) -> Result<Status> {
    refuse_unless_interactive(ctx)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let demo = match args.demo {
        true => Some(runtime.block_on(super::chat_demo::start(
            ctx,
            args.dialect.into(),
            args.today.as_deref(),
        ))?),
        false => None,
    };
    let svc = service(
        ctx,
        &args.service,
        &args.identity,
        None,
        demo.as_ref().map(|d| &d.target),
    )?;
    let mut session = Session {
        // `-c` continues the demo's own last thread under --demo, as `chat --demo -c` does.
        chat_id: match &demo {
            Some(d) => d.thread_id(ctx, &args.thread, None)?,
            None => thread_id(ctx, &args.thread, svc.profile(), None)?,
        },
        service_flags: super::chat::service_flags(ctx, args, args.demo.then_some(&svc.identity)),
        // Rows follow the identity the flags give, as the answers do.
        data: match &demo {
            Some(d) => d.data_settings_as(&svc.identity),
            None => ctx.resolver().and_then(|r| {
                r.data(
                    None,
                    None,
                    &crate::settings::ServiceFlags::from(&args.service),
                )
            }),
        }
        .map_err(|e| format!("{e:#}")),
        timezone: args.identity.timezone.clone(),
        raw: Vec::new(),
        charts: Charts::default(),
        sqls: Vec::new(),
        titles: Titles::default(),
    };
    let mut editor = rustyline::DefaultEditor::new()?;
    let history = history_path(ctx);
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    if !ctx.global.quiet {
        diag(format_args!(
            "{}",
            ctx.err_style
                .dim("Each line is a message; /help for commands; Ctrl-D to leave.")
        ));
    }
    if !args.message.is_empty() {
        turn(
            ctx,
            args,
            &svc,
            &mut session,
            &runtime,
            args.message.join(" "),
        );
    }
    loop {
        let line = match editor.readline(PROMPT) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        remember_line(&mut editor, history.as_deref(), line);
        match line.strip_prefix('/') {
            Some(cmd) => {
                if !command(ctx, &svc, &mut session, &runtime, cmd) {
                    break;
                }
            }
            None => turn(ctx, args, &svc, &mut session, &runtime, line.to_owned()),
        }
    }
    Ok(Status::Success)
}

/// The usage errors of `-i`: it needs a terminal, and `--dry-run` and `-o` do not apply.
fn refuse_unless_interactive(ctx: &Ctx) -> Result<()> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(usage(
            "-i needs a terminal on stdin and stdout; to script a chat, pass the message as arguments or - for stdin",
        ));
    }
    if ctx.global.dry_run {
        return Err(usage(
            "-i sends a message per line; --dry-run does not apply",
        ));
    }
    if ctx.global.output.is_some_and(|f| f != Format::Text) {
        return Err(usage("-i shows answers as text; -o does not apply"));
    }
    Ok(())
}

/// Adds the line to the editor's history and saves the history (best effort).
fn remember_line(editor: &mut rustyline::DefaultEditor, history: Option<&Path>, line: &str) {
    let _ = editor.add_history_entry(line);
    if let Some(h) = history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(h);
    }
}

/// `$XDG_STATE_HOME/analyst/history`, else `~/.local/state/analyst/history`.
fn history_path(ctx: &Ctx) -> Option<PathBuf> {
    let dir = ctx
        .env
        .get("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            ctx.env
                .get("HOME")
                .map(|h| PathBuf::from(h).join(".local/state"))
        })?;
    Some(dir.join("analyst").join("history"))
}

/// A prompt command; `false` to leave.
fn command(ctx: &Ctx, svc: &Service, session: &mut Session, rt: &Runtime, cmd: &str) -> bool {
    let (name, arg) = cmd
        .split_once(char::is_whitespace)
        .map_or((cmd, ""), |(n, a)| (n, a.trim()));
    let mut out = std::io::stdout().lock();
    match name {
        "quit" | "exit" | "q" => return false,
        "help" | "?" => {
            let _ = writeln!(out, "{HELP}");
        }
        "new" => {
            session.chat_id = None;
            session.charts = Charts::default();
            session.sqls.clear();
            session.titles = Titles::default();
            let _ = writeln!(out, "A new thread starts with the next message.");
        }
        "state" => match &session.chat_id {
            None => {
                let _ = writeln!(out, "No thread yet: send a message first.");
            }
            Some(id) => {
                if let Err(e) = rt.block_on(show_state(ctx, svc, id)) {
                    error(format!("{e:#}"));
                }
            }
        },
        "sql" => show_sql(ctx, session, rt, arg, &mut out),
        "chart" if arg.is_empty() => {
            let _ = writeln!(out, "/chart FILE: name a .svg, .html or .vl.json file.");
        }
        "chart" => write_charts(session, arg, &mut out),
        "save" if arg.is_empty() => {
            let _ = writeln!(out, "/save FILE: name the file for the session's stream.");
        }
        "save" => match std::fs::write(arg, &session.raw) {
            Ok(()) => {
                let _ = writeln!(out, "Wrote {arg}.");
            }
            Err(e) => error(format!("/save {arg}: {e}")),
        },
        other => {
            let _ = writeln!(out, "Unknown command /{other}; /help lists them.");
        }
    }
    true
}

/// `/sql [N]`: the N-th SQL of the last answer (the last by default), all its rows from the data
/// query API (a table: the first 100, then a count), and the command that fetches them from a
/// shell. The command carries the SQL itself: `sql --pick N --chat-id` counts the queries of
/// the whole thread, not of the last answer.
fn show_sql(ctx: &Ctx, session: &Session, rt: &Runtime, arg: &str, out: &mut impl Write) {
    // As `analyst sql --pick`: the last SQL by default.
    let n = if arg.is_empty() {
        Ok(session.sqls.len())
    } else {
        arg.parse::<usize>()
    };
    match (n, session.sqls.len()) {
        (_, 0) => {
            let _ = writeln!(out, "The last answer ran no SQL.");
        }
        (Ok(n), count) if (1..=count).contains(&n) => {
            let sql = &session.sqls[n - 1];
            let _ = writeln!(out, "SQL {n} of {count}:\n{sql}");
            let _ = out.flush();
            match &session.data {
                Ok(data) => {
                    let body = QueryRequest {
                        query: sql.clone(),
                        timezone: session.timezone.clone(),
                        cache: None,
                    };
                    match rt.block_on(super::sql::table_to_stdout(
                        ctx,
                        data,
                        &body,
                        100,
                        &session.titles,
                    )) {
                        Ok(Status::Success) => {}
                        Ok(_) => error("the rows above are not all of the result"),
                        Err(e) => error(format!("{e:#}")),
                    }
                }
                Err(why) => {
                    let _ = writeln!(out, "Its rows cannot be fetched here: {why}");
                }
            }
            let _ = writeln!(
                out,
                "{}",
                ctx.out_style.dim(&format!(
                    "From a shell: analyst sql{} {}",
                    session.service_flags,
                    crate::term::shell_word(sql)
                ))
            );
        }
        (_, count) => {
            let _ = writeln!(out, "/sql N: N is 1 to {count}.");
        }
    }
}

/// `/chart FILE`: the last answer's charts written to FILE, and the names written.
fn write_charts(session: &Session, arg: &str, out: &mut impl Write) {
    let path = std::path::Path::new(arg);
    match files::write(path, &session.charts) {
        Ok(written) => {
            if let Some(note) = written.undrawn_note() {
                let _ = writeln!(out, "{note}");
            }
            for u in &written.unchartable {
                let _ = writeln!(out, "Note: {u}.");
            }
            if written.nothing() {
                let _ = writeln!(out, "The last answer has no chart.");
            } else if let Some(files) = written.files_list() {
                let _ = writeln!(out, "Wrote {files}.");
            }
        }
        Err(e) => error(format!("{e:#}")),
    }
}

/// One message and its answer; errors are shown, and the prompt goes on.
fn turn(
    ctx: &Ctx,
    args: &ChatArgs,
    svc: &Service,
    session: &mut Session,
    rt: &Runtime,
    input: String,
) {
    let request = ChatRequest {
        input: Some(input),
        chat_id: session.chat_id.clone(),
        message_id: message_id(None, None).ok(),
        session_settings: svc.identity.clone(),
        active_branch_name: args.branch.clone(),
        is_default_branch: args.default_branch.then_some(true),
        ..ChatRequest::default()
    };
    let remember = Remember::for_run(args.demo, svc.profile());
    let pipeline = match Pipeline::new(
        renderer(
            ctx,
            Format::Text,
            args.show_thinking,
            text_view(ctx, args, args.demo.then_some(&svc.identity)),
        ),
        None,
        ctx.chatty(),
        remember,
        &ctx.env,
    ) {
        Ok(p) => p,
        Err(e) => return error(format!("{e:#}")),
    };
    let mut sink = TurnSink {
        pipeline,
        raw: &mut session.raw,
        titles: &mut session.titles,
        charts: Charts::default(),
        sqls: Vec::new(),
    };
    let plan = TurnPlan {
        request,
        retries: args.retries,
        idle: svc.idle(),
        backoff: BACKOFF,
    };
    let mut tracker = tracker_for(Format::Text, args.fallback);
    let finished = rt.block_on(async {
        tokio::select! {
            r = converse(&svc.client, &plan, &mut tracker, &mut sink) => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    let (charts, sqls) = (
        std::mem::take(&mut sink.charts),
        std::mem::take(&mut sink.sqls),
    );
    let mut pipeline = sink.pipeline;
    pipeline.stop();
    if tracker.chat_id.is_some() {
        session.chat_id = tracker.chat_id.clone();
    }
    session.charts = charts;
    session.sqls = sqls;
    match finished {
        None => stopped(args, svc, rt, tracker.chat_id.clone()),
        Some(Err(e)) => error(format!("{e:#}")),
        Some(Ok(())) => show_end(&tracker, &mut pipeline, plan.request.message_id.as_deref()),
    }
}

/// After Ctrl-C during an answer: aborts the thread in the service unless `--no-abort` (or
/// the service never named it), saying what happened; a second Ctrl-C stops waiting.
fn stopped(args: &ChatArgs, svc: &Service, rt: &Runtime, chat_id: Option<String>) {
    let _ = std::io::stdout().write_all(b"\n");
    let Some(id) = chat_id else {
        return diag(format_args!(
            "analyst: stopped before the service named the thread"
        ));
    };
    if args.no_abort {
        return diag(format_args!(
            "analyst: stopped; the answer goes on in the service (--no-abort)"
        ));
    }
    let request = AbortRequest {
        chat_id: id.clone(),
        session_settings: svc.identity.clone(),
    };
    let aborted = rt.block_on(async {
        tokio::select! {
            r = abort(&svc.client, &request) => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    match aborted {
        Some(Ok(())) => diag(format_args!("analyst: stopped the answer (aborted {id})")),
        Some(Err(e)) => error(format!("could not stop the answer: {e:#}")),
        None => diag(format_args!(
            "analyst: stopped without waiting for the abort"
        )),
    }
}

/// A finished turn: the pipeline's closing output (answer, usage, errors), then the error.
fn show_end(tracker: &Tracker, pipeline: &mut Pipeline, message_id: Option<&str>) {
    let outcome = tracker.outcome();
    let found = tracker.answer.answer();
    let err = outcome.as_ref().err().map(|e| format!("{e:#}"));
    let end = End {
        chat_id: tracker.chat_id.as_deref(),
        message_id,
        answer: found.as_ref().map(|a| a.text.as_str()),
        answer_from_state: found.as_ref().is_some_and(|a| a.from_state),
        usage: tracker.usage.as_ref(),
        error: err.as_deref(),
    };
    if let Err(e) = pipeline.finish(&end, true) {
        error(format!("{e:#}"));
    }
    if let Some(e) = err {
        error(e);
    }
}

/// A turn's sink: the text pipeline, plus the session's raw stream, charts and SQL.
struct TurnSink<'a> {
    pipeline: Pipeline,
    raw: &'a mut Vec<u8>,
    titles: &'a mut Titles,
    charts: Charts,
    sqls: Vec<String>,
}

impl Sink for TurnSink<'_> {
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> Result<()> {
        self.raw.extend_from_slice(raw);
        if let Some(call) = frame.and_then(|f| f.tool_call.as_ref())
            && let Some(result) = call.result.as_ref()
        {
            let input = call.input.as_ref().map(parse_input).unwrap_or_default();
            match classify(&input, Some(&parse_result(result))) {
                Tool::Sql { input, result } => {
                    let sql = input
                        .sql()
                        .map(str::to_owned)
                        .or_else(|| result.and_then(|r| r.sql_query.0));
                    self.sqls.extend(sql);
                }
                Tool::Meta {
                    result: Some(meta), ..
                } => self.titles.learn(&meta),
                _ => {}
            }
            if let Some(f) = frame {
                self.charts.see(f);
            }
        }
        self.pipeline.line(raw, frame)
    }
    fn chunk_done(&mut self) -> Result<()> {
        self.pipeline.chunk_done()
    }
    fn wants_frames(&self) -> bool {
        true
    }
    fn waiting(&mut self, quiet: bool) {
        self.pipeline.waiting(quiet)
    }
    fn chat_id(&mut self, id: &str) -> Result<()> {
        self.pipeline.chat_id(id)
    }
}

/// `/state`: read the thread and show its messages as `analyst state` does.
async fn show_state(ctx: &Ctx, svc: &Service, chat_id: &str) -> Result<()> {
    let request = read_request(&ChatRequest {
        chat_id: Some(chat_id.to_owned()),
        session_settings: svc.identity.clone(),
        ..ChatRequest::default()
    });
    let response = svc.client.open(&request, "state").await?;
    let mut view = ViewSink(StateView::of(chat_id));
    let outcome = super::state::read_into(response, svc.idle(), &mut view).await;
    let mut out = std::io::stdout().lock();
    view.0
        .write_table(&mut out, ctx.out_style, crate::term::out_width(&ctx.env))?;
    out.flush()?;
    if let Some(hint) = view.0.still_answering_hint() {
        crate::term::diag(format_args!("analyst: {hint}"));
    }
    outcome
}

struct ViewSink(StateView);

impl Sink for ViewSink {
    fn line(&mut self, _: &[u8], frame: Option<&Frame>) -> Result<()> {
        if let Some(f) = frame {
            self.0.frame(f);
        }
        Ok(())
    }
    fn chunk_done(&mut self) -> Result<()> {
        Ok(())
    }
}
