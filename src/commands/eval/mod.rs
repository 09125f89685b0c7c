//! `analyst eval`: run suites of questions as chat turns and check each answer against its
//! expectations; report for people (a table), machines (json, ndjson, yaml) and CI (JUnit).

mod baseline;
mod collect;
mod expect;
mod numbers;
mod report;
mod run;
mod suite;

use super::Ctx;
use super::chat_request::{Service, service};
use crate::cli::{EvalArgs, Format};
use crate::emulator::server::{Clock, ServeOptions};
use crate::exit::{Status, fail, usage};
use crate::render::pick_format;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use regex::Regex;
use run::{CaseResult, Job, Runner};
use std::io::Write;
use std::time::{Duration, Instant};

/// `--demo`'s date, 2026-06-30 12:00 UTC: the sample's data window and relative dates follow
/// the emulator's date, so a suite of exact numbers (examples/demo-suite.yaml) needs it fixed.
const DEMO_NOW_MS: u64 = 1_782_820_800_000;

/// The first pause before a recovery, as for `chat`.
const BACKOFF: Duration = Duration::from_millis(200);

/// Run the command.
pub fn run(ctx: &Ctx, args: EvalArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[
            Format::Table,
            Format::Json,
            Format::Ndjson,
            Format::Yaml,
            Format::Markdown,
        ],
        Format::Table,
        Format::Json,
        "eval",
    )?;
    if args.concurrency == 0 {
        return Err(usage("-j/--concurrency: must be at least 1"));
    }
    if args.repeat == 0 {
        return Err(usage("--repeat: must be at least 1"));
    }
    let filter = args
        .filter
        .as_deref()
        .map(|f| Regex::new(f).map_err(|e| usage(format!("--filter: bad regex: {e}"))))
        .transpose()?;
    let mut cases = suite::load(&args.suites)?;
    if let Some(re) = &filter {
        cases.retain(|c| re.is_match(&c.name));
        if cases.is_empty() {
            return Err(usage(format!(
                "--filter {}: matches no case",
                args.filter.as_deref().unwrap_or_default()
            )));
        }
    }
    let baseline = args
        .baseline
        .as_deref()
        .map(baseline::Baseline::load)
        .transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(live(ctx, &args, format, &cases, baseline.as_ref()))
}

async fn live(
    ctx: &Ctx,
    args: &EvalArgs,
    format: Format,
    cases: &[suite::Case],
    baseline: Option<&baseline::Baseline>,
) -> Result<Status> {
    let demo = if args.demo {
        let options = ServeOptions {
            clock: Clock::manual(DEMO_NOW_MS),
            today: super::serve::today_arg(args.today.as_deref())?,
            ..ServeOptions::demo()
        };
        Some(super::chat_demo::start_with(ctx, options, false).await?)
    } else {
        None
    };
    // A case's `session` is its whole identity; when every case has one, the flags,
    // environment and profile need not name one.
    let all_sessions = cases
        .iter()
        .all(|c| c.session.is_some())
        .then(|| serde_json::to_value(cases[0].session.as_ref()))
        .transpose()?;
    let svc = service(
        ctx,
        &args.service,
        &args.identity,
        all_sessions.as_ref(),
        demo.as_ref().map(|d| &d.target),
    )?;
    if !ctx.global.dry_run
        && let Some(dir) = &args.save_dir
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| usage(format!("--save-dir {}: cannot create: {e}", dir.display())))?;
    }
    let runner = runner(ctx, args, &svc);
    let jobs = jobs(cases, args.repeat);
    if ctx.global.dry_run {
        return dry_run(ctx, &runner, &svc, &jobs);
    }
    let total = jobs.len();
    let started = Instant::now();
    let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
    let (mut results, finished) =
        run_with_progress(ctx, &runner, jobs, args.concurrency, format, &mut out).await?;
    results.sort_by_key(|r| r.slot);
    let elapsed = started.elapsed();
    if !finished && !stop_running(&svc, &runner, results.len(), total).await {
        return Ok(Status::Interrupted);
    }
    let findings = baseline.map(|b| b.compare(&results));
    if format != Format::Ndjson {
        report::write(&mut out, format, &results, findings.as_ref(), ctx.out_style)?;
    }
    out.flush()?;
    drop(out);
    if let Some(path) = &args.junit {
        report::write_junit(path, &results, elapsed)?;
    }
    if ctx.env.get("GITHUB_ACTIONS").as_deref() == Some("true") {
        for line in report::github_errors(&results) {
            eprintln!("{line}");
        }
    }
    summarise(ctx, &results, findings.as_ref(), elapsed);
    if !finished {
        return Ok(Status::Interrupted);
    }
    verdict(&results)
}

/// The runner for this suite: retries, idle timeout, backoff (`ANALYST_TEST_BACKOFF_MS` in
/// tests), fallback and where answers are saved.
fn runner<'a>(ctx: &Ctx, args: &EvalArgs, svc: &'a Service) -> Runner<'a> {
    Runner::new(
        &svc.client,
        &svc.identity,
        args.retries,
        svc.idle(),
        ctx.env
            .get("ANALYST_TEST_BACKOFF_MS")
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(BACKOFF),
        args.fallback,
        args.save_dir.clone(),
    )
}

/// `--dry-run`: the first turn of every job as the request it would send.
fn dry_run(ctx: &Ctx, runner: &Runner<'_>, svc: &Service, jobs: &[Job<'_>]) -> Result<Status> {
    // Follow-ups need the thread the first answer names, so only first turns are shown.
    let logs: Vec<_> = jobs
        .iter()
        .map(|j| {
            let body = serde_json::to_vec_pretty(&runner.first_request(j.case))?;
            Ok(svc.client.describe(&svc.client.endpoint.stream, &body))
        })
        .collect::<Result<_>>()?;
    super::write_dry_run(ctx.global.output, &logs)?;
    Ok(Status::Success)
}

/// Runs the jobs under a progress bar (when chatty), writing each result as an NDJSON line as
/// it finishes when that is the format; the results in finishing order, and whether all ran
/// (false on Ctrl-C).
async fn run_with_progress(
    ctx: &Ctx,
    runner: &Runner<'_>,
    jobs: Vec<Job<'_>>,
    concurrency: usize,
    format: Format,
    out: &mut impl Write,
) -> Result<(Vec<CaseResult>, bool)> {
    let bar = ctx.chatty().then(|| progress(jobs.len()));
    let mut results: Vec<CaseResult> = Vec::with_capacity(jobs.len());
    let mut write_error = None;
    let finished = {
        let on_done = |r: CaseResult| {
            if let Some(bar) = &bar {
                bar.inc(1);
                if !r.passed() {
                    bar.set_message(format!("failed: {}", r.name));
                }
            }
            if format == Format::Ndjson && write_error.is_none() {
                let written = match &bar {
                    Some(bar) => bar.suspend(|| report::write_ndjson_line(out, &r)),
                    None => report::write_ndjson_line(out, &r),
                };
                write_error = written.err();
            }
            results.push(r);
        };
        tokio::select! {
            () = runner.run_all(jobs, concurrency, on_done) => true,
            _ = tokio::signal::ctrl_c() => false,
        }
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    match write_error {
        Some(e) => Err(e),
        None => Ok((results, finished)),
    }
}

/// After a Ctrl-C: says so and aborts the threads still running; false when a second Ctrl-C
/// cut that short.
async fn stop_running(svc: &Service, runner: &Runner<'_>, done: usize, total: usize) -> bool {
    let running = runner.live.lock().map(|l| l.len()).unwrap_or(0);
    crate::term::diag(format_args!(
        "analyst: interrupted; {done} of {total} cases finished, stopping {running} running (Ctrl-C again to quit at once)"
    ));
    tokio::select! {
        _ = run::abort_running(&svc.client, &runner.live) => true,
        _ = tokio::signal::ctrl_c() => false,
    }
}

/// The baseline's findings and the one-line summary, on stderr.
fn summarise(
    ctx: &Ctx,
    results: &[CaseResult],
    findings: Option<&baseline::Findings>,
    elapsed: Duration,
) {
    if let Some(f) = findings {
        for line in f.lines() {
            crate::term::diag(format_args!("{line}"));
        }
    }
    if ctx.global.quiet {
        return;
    }
    let passed = results.iter().filter(|r| r.passed()).count();
    let regressed = findings
        .map(|f| format!(", {} regressed", f.regressed_cases()))
        .unwrap_or_default();
    crate::term::diag(format_args!(
        "analyst: {passed} passed, {} failed{regressed} of {} cases in {:.1} s",
        results.len() - passed,
        results.len(),
        elapsed.as_secs_f64()
    ));
}

/// Every case `repeat` times, named `case#k` when repeated, in suite order.
fn jobs(cases: &[suite::Case], repeat: usize) -> Vec<Job<'_>> {
    let mut jobs = Vec::with_capacity(cases.len() * repeat);
    for case in cases {
        for k in 1..=repeat {
            let name = if repeat > 1 {
                format!("{}#{k}", case.name)
            } else {
                case.name.clone()
            };
            jobs.push(Job {
                slot: jobs.len(),
                case,
                name,
            });
        }
    }
    jobs
}

/// The bar on stderr while the cases run.
fn progress(total: usize) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {pos}/{len} cases {wide_bar} {msg}")
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// The status of a finished run: 0 when every case passed, 1 otherwise (a regressed case failed,
/// so it is counted there; baseline findings alone never fail a run); a run where no case got a
/// stream failed as a whole, with its own status and why.
fn verdict(results: &[CaseResult]) -> Result<Status> {
    if !results.is_empty()
        && results.iter().all(|r| !r.got_stream)
        && let Some((status, message)) = results.iter().find_map(|r| r.error.clone())
        && matches!(status, Status::Usage | Status::Auth | Status::Network)
    {
        return Err(fail(status, format!("no case got an answer: {message}")));
    }
    Ok(if results.iter().all(CaseResult::passed) {
        Status::Success
    } else {
        Status::Failure
    })
}
