//! `analyst mcp`: the data agent as a Model Context Protocol server over stdio, so AI
//! assistants and agent frameworks can ask it questions. stdout carries only JSON-RPC; every
//! diagnostic goes to stderr. The tools are in [`tools`]; a turn of `ask` runs the same client
//! path as `chat` (resume included) into the collecting sink of [`collect`].

mod collect;
mod data;
mod stdio;
mod tools;

use super::Ctx;
use super::chat_request::service;
use crate::cli::McpArgs;
use crate::exit::{Status, fail};
use crate::settings::ServiceFlags;
use anyhow::Result;
use rmcp::ServiceExt;
use std::sync::Arc;
use std::time::Duration;

/// Run the command: serve until the client closes stdin.
pub fn run(ctx: &Ctx, args: McpArgs) -> Result<Status> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(serve(ctx, args))
}

async fn serve(ctx: &Ctx, args: McpArgs) -> Result<Status> {
    // stdin carries the JSON-RPC messages: a secret read from it would swallow them.
    for (flag, file) in [
        ("--api-key-file", &args.service.api_key_file),
        ("--token-file", &args.service.token_file),
        ("--data-token-file", &args.data.data_token_file),
    ] {
        if file.as_deref().is_some_and(|f| f.as_os_str() == "-") {
            return Err(crate::exit::usage(format!(
                "mcp: {flag} -: stdin carries the MCP messages; name a file, or use the environment variable"
            )));
        }
    }
    for (flag, value) in [
        ("--session", &args.identity.session),
        ("--security-context", &args.identity.security_context),
    ] {
        if value.as_deref().is_some_and(|v| v == "-" || v == "@-") {
            return Err(crate::exit::usage(format!(
                "mcp: {flag} {}: stdin carries the MCP messages; give the JSON, or @FILE",
                value.as_deref().unwrap_or_default()
            )));
        }
    }
    // The demo is kept alive (and its threads saved when dropped) for as long as the server runs.
    let demo = if args.demo {
        Some(super::chat_demo::start(ctx, args.dialect.into(), args.today.as_deref()).await?)
    } else {
        None
    };
    // Settings are resolved once, before the first message: a missing URL or key is said at
    // start (exit 2), not as the answer to every question.
    let svc = service(
        ctx,
        &args.service,
        &args.identity,
        None,
        demo.as_ref().map(|d| &d.target),
    )?;
    let data = if let Some(demo) = &demo {
        demo.data_settings_as(&svc.identity)
            .and_then(|settings| data::DataApi::new(svc.client.http.clone(), &settings, svc.idle()))
            .map_err(|e| format!("{e:#}"))
    } else {
        ctx.resolver()
            .and_then(|r| {
                r.data(
                    args.data.data_url.as_deref(),
                    args.data.data_token_file.as_deref(),
                    &ServiceFlags::from(&args.service),
                )
            })
            .and_then(|settings| data::DataApi::new(svc.client.http.clone(), &settings, svc.idle()))
            .map_err(|e| format!("{e:#}"))
    };
    let backoff = ctx
        .env
        .get("ANALYST_TEST_BACKOFF_MS")
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_millis(200));
    let server = tools::Analyst::new(Arc::new(tools::Shared {
        svc,
        data,
        retries: args.retries,
        fallback: args.fallback,
        backoff,
    }));
    if !ctx.global.quiet {
        crate::term::diag(format_args!(
            "analyst mcp: serving on stdio{}",
            if args.demo { " (--demo)" } else { "" }
        ));
    }
    let (transport, writer) = stdio::transport();
    let running = server.serve(transport).await.map_err(|e| {
        fail(
            Status::Failure,
            format!("mcp: the session did not start: {e}"),
        )
    })?;
    let end = running.waiting().await;
    // The service has dropped its end of the pipe: the writer ends once all is on stdout.
    let _ = writer.await;
    drop(demo);
    match end {
        Ok(_) => Ok(Status::Success),
        Err(e) => Err(fail(
            Status::Failure,
            format!("mcp: the session failed: {e}"),
        )),
    }
}
