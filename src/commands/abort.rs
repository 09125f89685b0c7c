//! `analyst abort`: stop a running stream.

use super::Ctx;
use super::chat_request::{service, thread_id};
use crate::cli::AbortArgs;
use crate::client::abort::abort;
use crate::exit::{Status, usage};
use crate::protocol::chat::AbortRequest;
use anyhow::Result;

/// Run the command.
pub fn run(ctx: &Ctx, args: AbortArgs) -> Result<Status> {
    let svc = service(ctx, &args.service, &args.identity, None, None)?;
    let chat_id = thread_id(ctx, &args.thread, svc.profile(), None)?
        .ok_or_else(|| usage("abort: which thread? pass --chat-id ID, or -c for the last one"))?;
    let request = AbortRequest {
        chat_id: chat_id.clone(),
        session_settings: svc.identity.clone(),
    };
    if ctx.global.dry_run {
        svc.dry_run(&svc.client.endpoint.abort, &request)?;
        return Ok(Status::Success);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(abort(&svc.client, &request))?;
    crate::term::diag(format_args!("aborted {chat_id}"));
    Ok(Status::Success)
}
