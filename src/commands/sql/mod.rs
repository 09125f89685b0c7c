//! `analyst sql`: run SQL on the data query API and stream every row (CLI.md, `sql`).
//!
//! The query comes from the argument, stdin, or the SQL tool calls of an answer (a saved
//! stream, or a thread's state read through the chat service). `--list` sends nothing.

mod exec;
mod found;

use super::Ctx;
use super::chat_request::{service, thread_id};
use crate::cli::{Format, SqlArgs};
use crate::client::Http;
use crate::client::data::{DataClient, request_id};
use crate::client::resume::read_state;
use crate::exit::{Status, usage};
use crate::protocol::ChatRequest;
use crate::protocol::data::QueryRequest;
use crate::render::out_thread::OutThread;
use crate::render::rows::{RowFormat, RowOptions, RowWriter};
use crate::render::{pick_format, write_document};
use crate::settings::{DataSettings, ServiceFlags, read_text_source};
use crate::stream::lines::{Chunks, Framed};
use anyhow::Result;
use exec::{Run, run_query};
use found::{Finder, Found};
use std::io::{Read, Write};
use std::path::Path;

/// Where the SQL comes from.
enum Source<'a> {
    /// The argument, or stdin.
    Given(&'a str),
    /// A saved stream (a file, or stdin).
    Saved(&'a Path),
    /// A thread's state.
    Thread,
}

/// Which of the answer's queries to run.
#[derive(Clone, Copy)]
enum Choice {
    /// The N-th, from 1.
    Pick(usize),
    /// The last.
    Last,
    /// Each.
    All,
}

/// Run the command.
pub fn run(ctx: &Ctx, args: SqlArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[
            Format::Table,
            Format::Csv,
            Format::Tsv,
            Format::Ndjson,
            Format::Json,
            Format::Yaml,
        ],
        Format::Table,
        Format::Csv,
        "sql",
    )?;
    let source = match (&args.query, &args.from) {
        (Some(q), _) => Source::Given(q),
        (None, Some(path)) => Source::Saved(path),
        (None, None) if args.thread.chat_id.is_some() || args.thread.continue_last => {
            Source::Thread
        }
        (None, None) => {
            return Err(usage(
                "no query: pass the SQL as QUERY (- for stdin), or take it from an answer with --from FILE or --chat-id ID (-c for the last thread)",
            ));
        }
    };
    if matches!(source, Source::Given(_)) {
        for (given, flag) in [
            (args.list, "--list"),
            (args.all, "--all"),
            (args.pick.is_some(), "--pick"),
        ] {
            if given {
                return Err(usage(format!(
                    "{flag} chooses among the SQL of an answer: use it with --from FILE or --chat-id ID, not with QUERY"
                )));
            }
        }
    }
    let choice = match (args.pick, args.all) {
        (Some(n), _) => Choice::Pick(n as usize),
        (None, true) => Choice::All,
        (None, false) => Choice::Last,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_async(ctx, &args, format, source, choice))
}

async fn run_async(
    ctx: &Ctx,
    args: &SqlArgs,
    format: Format,
    source: Source<'_>,
    choice: Choice,
) -> Result<Status> {
    // The demo's data API: needed unless nothing is sent to it.
    let demo = if args.demo && (!args.list || matches!(source, Source::Thread)) {
        Some(
            super::chat_demo::start(ctx, crate::protocol::Dialect::Seed, args.today.as_deref())
                .await?,
        )
    } else {
        None
    };
    // Rows follow the identity the flags give, as the demo agent's answers do.
    let demo_data = match &demo {
        Some(d) if !args.list => {
            let svc = service(ctx, &args.service, &args.identity, None, Some(&d.target))?;
            Some(d.data_settings_as(&svc.identity)?)
        }
        _ => None,
    };
    // The SQL, or the answer's queries.
    let queries: Vec<Found> = match source {
        Source::Given(q) => vec![Found {
            sql: given_sql(q)?,
            ..Found::default()
        }],
        Source::Saved(path) => saved_queries(path)?,
        Source::Thread => match thread_queries(ctx, args, demo.as_ref(), &demo_data, choice).await?
        {
            Some(queries) => queries,
            // --dry-run: the requests were shown instead.
            None => return Ok(Status::Success),
        },
    };
    if args.list {
        return list(ctx, &queries);
    }
    let chosen = choose(&queries, choice, args)?;
    let data = data_settings(ctx, args, demo_data)?;
    let client = DataClient::new(http(ctx)?, &data)?;
    let bodies: Vec<QueryRequest> = chosen
        .iter()
        .map(|f| query_body(args, f.sql.clone()))
        .collect();
    if ctx.global.dry_run {
        let requests: Vec<_> = bodies
            .iter()
            .map(|b| Ok(client.describe(&serde_json::to_vec_pretty(b)?, &request_id())))
            .collect::<Result<_>>()?;
        super::write_dry_run(ctx.global.output, &requests)?;
        return Ok(Status::Success);
    }
    run_all(ctx, args, format, choice, &client, &bodies).await
}

/// The SQL of a thread's answer, from its state read through the chat service; `None` when
/// `--dry-run` showed the requests instead (nothing is sent, not even the state read).
async fn thread_queries(
    ctx: &Ctx,
    args: &SqlArgs,
    demo: Option<&super::chat_demo::Demo>,
    demo_data: &Option<DataSettings>,
    choice: Choice,
) -> Result<Option<Vec<Found>>> {
    let svc = service(
        ctx,
        &args.service,
        &args.identity,
        None,
        demo.map(|d| &d.target),
    )?;
    let chat_id = match demo {
        Some(d) => d.thread_id(ctx, &args.thread, None)?,
        None => thread_id(ctx, &args.thread, svc.profile(), None)?,
    }
    .ok_or_else(|| usage("sql: which thread? pass --chat-id ID, or -c for the last one"))?;
    let request = ChatRequest {
        chat_id: Some(chat_id.clone()),
        session_settings: svc.identity.clone(),
        ..ChatRequest::default()
    };
    if ctx.global.dry_run {
        // The query is shown as a placeholder.
        let data = data_settings(ctx, args, demo_data.clone())?;
        let client = DataClient::new(http(ctx)?, &data)?;
        let state_read = svc.client.describe(
            &svc.client.endpoint.stream,
            &serde_json::to_vec_pretty(&request)?,
        );
        let which = match choice {
            Choice::Pick(n) => format!("query {n}"),
            Choice::Last => "the last query".into(),
            Choice::All => "each query, one request each".into(),
        };
        let body = query_body(args, format!("<the SQL of {which} of thread {chat_id}>"));
        let requests = [
            state_read,
            client.describe(&serde_json::to_vec_pretty(&body)?, &request_id()),
        ];
        super::write_dry_run(ctx.global.output, &requests)?;
        return Ok(None);
    }
    let probe = read_state(&svc.client, &request, svc.idle()).await?;
    let mut finder = Finder::default();
    for line in &probe.lines {
        finder.text(line);
    }
    Ok(Some(finder.finish()))
}

/// Run each query in turn, its rows to stdout; the first that does not succeed ends the run.
async fn run_all(
    ctx: &Ctx,
    args: &SqlArgs,
    format: Format,
    choice: Choice,
    client: &DataClient,
    bodies: &[QueryRequest],
) -> Result<Status> {
    // Written by a thread of its own: the writes to a file or a pipe overlap the making of
    // the next rows (docs/performance-streams.md, "sql beside curl").
    let mut writer = RowWriter::new(
        OutThread::new(crate::exit::stdout()),
        RowOptions {
            format: row_format(format),
            header: !args.no_header,
            table_rows: args.rows,
            style: ctx.out_style,
            width: crate::term::out_width(&ctx.env),
            many: matches!(choice, Choice::All),
        },
    );
    let run = run_of(ctx, client, args.limit);
    for body in bodies {
        match run_query(&run, body, &mut writer).await {
            Ok(Status::Success) => {}
            Ok(other) => {
                let _ = writer.finish();
                return Ok(other);
            }
            Err(e) => {
                let _ = writer.finish();
                return Err(e);
            }
        }
    }
    writer.finish()?;
    writer.get_mut().close()?;
    Ok(Status::Success)
}

/// One query's rows to stdout as a table, the first `rows` shown and then a count (the prompt's
/// `/sql`): its status, as `analyst sql` would end with it.
pub(super) async fn table_to_stdout(
    ctx: &Ctx,
    data: &DataSettings,
    body: &QueryRequest,
    rows: usize,
    titles: &crate::render::table::Titles,
) -> Result<Status> {
    let client = DataClient::new(http(ctx)?, data)?;
    let mut writer = RowWriter::new(
        crate::exit::stdout(),
        RowOptions {
            format: RowFormat::Table,
            header: true,
            table_rows: rows,
            style: ctx.out_style,
            width: crate::term::out_width(&ctx.env),
            many: false,
        },
    )
    .with_titles(titles.clone());
    let run = run_of(ctx, &client, None);
    let status = run_query(&run, body, &mut writer).await;
    let finished = writer.finish();
    let status = status?;
    finished?;
    Ok(status)
}

/// How to run a query on `client`: its idle timeout, the limit, progress on a terminal.
fn run_of<'a>(ctx: &Ctx, client: &'a DataClient, limit: Option<u64>) -> Run<'a> {
    Run {
        client,
        idle: client
            .http
            .idle_timeout
            .unwrap_or(super::chat_request::DEFAULT_IDLE),
        limit,
        progress: ctx.chatty(),
        chatty: ctx.chatty(),
    }
}

fn http(ctx: &Ctx) -> Result<Http> {
    super::args::http(&ctx.resolver()?, &ctx.global)
}

fn data_settings(ctx: &Ctx, args: &SqlArgs, demo: Option<DataSettings>) -> Result<DataSettings> {
    if let Some(d) = demo {
        return Ok(d);
    }
    ctx.resolver()?.data(
        args.data.data_url.as_deref(),
        args.data.data_token_file.as_deref(),
        &ServiceFlags::from(&args.service),
    )
}

fn query_body(args: &SqlArgs, sql: String) -> QueryRequest {
    QueryRequest {
        query: sql,
        timezone: args.identity.timezone.clone(),
        cache: args.cache.map(|c| c.wire().to_owned()),
    }
}

/// QUERY, or stdin for `-`; never empty.
fn given_sql(q: &str) -> Result<String> {
    let sql = if q == "-" {
        read_text_source("QUERY", "-")?
    } else {
        q.to_owned()
    };
    let sql = sql.trim();
    if sql.is_empty() {
        return Err(usage("QUERY is empty"));
    }
    Ok(sql.to_owned())
}

/// The SQL tool calls of a saved stream, read as it is framed (any size).
fn saved_queries(path: &Path) -> Result<Vec<Found>> {
    let mut finder = Finder::default();
    let name = path.display().to_string();
    {
        let mut framed = Framed::masking(&mut finder);
        let mut input: Box<dyn Read> = if path.as_os_str() == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            Box::new(
                std::fs::File::open(path)
                    .map_err(|e| usage(format!("--from: cannot read {name}: {e}")))?,
            )
        };
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = input
                .read(&mut buf)
                .map_err(|e| usage(format!("--from: cannot read {name}: {e}")))?;
            if n == 0 {
                break;
            }
            framed.chunk(&buf[..n])?;
            framed.caught_up()?;
        }
        framed.finish()?;
    }
    if finder.skipped > 0 {
        crate::term::warn(format!(
            "--from {name}: {} {} not JSON, skipped",
            finder.skipped,
            if finder.skipped == 1 {
                "line was"
            } else {
                "lines were"
            }
        ));
    }
    Ok(finder.finish())
}

fn choose<'a>(queries: &'a [Found], choice: Choice, args: &SqlArgs) -> Result<Vec<&'a Found>> {
    let from = match &args.from {
        Some(p) => format!("--from {}", p.display()),
        None => "the thread".to_owned(),
    };
    if queries.is_empty() {
        return Err(usage(format!(
            "{from}: no SQL tool call found (nothing to run)"
        )));
    }
    Ok(match choice {
        Choice::All => queries.iter().collect(),
        Choice::Last => vec![queries.last().expect("not empty")],
        Choice::Pick(n) => match queries.get(n - 1) {
            Some(q) => vec![q],
            None => {
                return Err(usage(format!(
                    "--pick {n}: {from} has {} SQL {} (see --list)",
                    queries.len(),
                    if queries.len() == 1 {
                        "query"
                    } else {
                        "queries"
                    }
                )));
            }
        },
    })
}

/// `--list`: one line per query (`N<TAB>title<TAB>rows shown<TAB>totalRows`), or documents.
fn list(ctx: &Ctx, queries: &[Found]) -> Result<Status> {
    let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
    let docs = || {
        queries
            .iter()
            .enumerate()
            .map(|(i, f)| f.to_json(i + 1))
            .collect::<Vec<_>>()
    };
    match ctx.global.output {
        Some(f @ (Format::Json | Format::Yaml)) => {
            write_document(&mut out, &serde_json::Value::Array(docs()), f)?
        }
        Some(Format::Ndjson) => {
            for d in docs() {
                serde_json::to_writer(&mut out, &d)?;
                out.write_all(b"\n")?;
            }
        }
        _ => {
            let num = |n: Option<String>| n.unwrap_or_else(|| "-".into());
            for (i, f) in queries.iter().enumerate() {
                let title = f
                    .title
                    .as_deref()
                    .unwrap_or("")
                    .replace(['\t', '\n', '\r'], " ");
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}",
                    i + 1,
                    title,
                    num(f.rows.map(|r| r.to_string())),
                    num(f.total_rows.map(|r| r.to_string()))
                )?;
            }
        }
    }
    out.flush()?;
    Ok(Status::Success)
}

fn row_format(f: Format) -> RowFormat {
    match f {
        Format::Csv => RowFormat::Csv,
        Format::Tsv => RowFormat::Tsv,
        Format::Ndjson => RowFormat::Ndjson,
        Format::Json => RowFormat::Json,
        Format::Yaml => RowFormat::Yaml,
        _ => RowFormat::Table,
    }
}
