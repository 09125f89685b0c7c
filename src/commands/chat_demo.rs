//! `chat --demo`: the built-in emulator, started in this process on a free loopback port, so
//! that the whole client path (HTTP, streaming, rendering) runs without an account. Its
//! threads are kept between runs (see [`DemoThreads`]), so follow-ups, `-c` and `--chat-id`
//! work as they do against a service.

use super::Ctx;
use super::chat_request::{Override, thread_id};
use super::thread_store::DemoThreads;
use crate::cli::ThreadArgs;
use crate::emulator::server::{Running, ServeOptions, start as start_emulator};
use crate::exit::{Status, fail, usage};
use crate::protocol::Dialect;
use anyhow::Result;
use std::path::PathBuf;

/// A running demo service; it stops when this is dropped, and its threads are saved then.
pub struct Demo {
    /// Where it listens and its key.
    pub target: Override,
    /// Its data query API root (`.../cubejs-api`), for `sql --demo` and `mcp --demo`.
    pub data_url: String,
    /// The threads kept when it started, and where they are kept.
    kept: DemoThreads,
    path: Option<PathBuf>,
    running: Running,
}

/// Start the emulator with its demo options, speaking `dialect`, with `today` fixed (`--today`),
/// with the threads of earlier demo runs.
pub async fn start(ctx: &Ctx, dialect: Dialect, today: Option<&str>) -> Result<Demo> {
    let mut opts = ServeOptions {
        dialect,
        today: super::serve::today_arg(today)?,
        ..ServeOptions::demo()
    };
    // Tests hold the demo's answer part-way (`ANALYST_TEST_DEMO_FAULT`, internal, a `serve
    // --fault` spec) to press Ctrl-C during a stream without betting on its speed.
    if let Some(spec) = ctx.env.get("ANALYST_TEST_DEMO_FAULT") {
        let fault = spec
            .parse()
            .map_err(|e| usage(format!("ANALYST_TEST_DEMO_FAULT: {e}")))?;
        opts.faults.push(fault);
    }
    start_with(ctx, opts, true).await
}

/// Start the emulator with these options; `keep` loads and saves the threads of demo runs
/// (`eval --demo` fixes its date and keeps nothing: its many threads are not a user's).
pub async fn start_with(ctx: &Ctx, options: ServeOptions, keep: bool) -> Result<Demo> {
    // Tests make the start slow (`ANALYST_TEST_DEMO_DELAY_MS`, internal) to press Ctrl-C
    // during it without betting on how long a start takes.
    if let Some(ms) = ctx
        .env
        .get("ANALYST_TEST_DEMO_DELAY_MS")
        .and_then(|v| v.parse().ok())
    {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
    let running = start_emulator(options).await.map_err(|e| {
        fail(
            Status::Failure,
            format!("--demo: cannot start the emulator: {e:#}"),
        )
    })?;
    let path = DemoThreads::path(&ctx.env).filter(|_| keep);
    let kept = DemoThreads::load(path.as_deref());
    running.import_threads(kept.threads.clone());
    Ok(Demo {
        target: Override {
            url: running.chat_url.clone(),
            api_key: running.api_key.clone(),
        },
        data_url: running.data_url.clone(),
        kept,
        path,
        running,
    })
}

impl Demo {
    /// Its data query API as `identity` reaches it (`sql --demo`, `mcp --demo`'s run_sql): a
    /// token for its user with its user attributes, so rows follow them as the agent's
    /// answers do (`sql --demo --attr region=Europe`).
    pub fn data_settings_as(
        &self,
        identity: &crate::protocol::SessionSettings,
    ) -> Result<crate::settings::DataSettings> {
        let user = identity
            .external_id
            .as_deref()
            .or(identity.internal_id.as_deref())
            .unwrap_or(crate::settings::DEMO_USER);
        let attributes: Vec<(String, String)> = identity
            .user_attributes
            .iter()
            .flatten()
            .map(|a| (a.name.clone(), a.value.clone()))
            .collect();
        let token =
            crate::emulator::server::data_token(user, &attributes, &self.running.data_secret);
        Ok(crate::settings::DataSettings {
            root: crate::settings::data_root(&self.data_url, "the demo emulator")?,
            token: crate::settings::Secret::new(token, "the demo emulator")?,
        })
    }

    /// The thread to use: `--continue` means the last demo thread, never a profile's (those
    /// live on a real service); otherwise as for any service.
    pub fn thread_id(
        &self,
        ctx: &Ctx,
        thread: &ThreadArgs,
        from_body: Option<String>,
    ) -> Result<Option<String>> {
        if thread.continue_last && thread.chat_id.is_none() {
            return self.kept.last.clone().map(Some).ok_or_else(|| {
                usage(
                    "--continue: no --demo thread yet; start one with `analyst chat --demo MESSAGE` or pass --chat-id ID",
                )
            });
        }
        thread_id(ctx, thread, None, from_body)
    }
}

impl Drop for Demo {
    /// Save what the run changed, whichever way it ended (answer, error or Ctrl-C).
    fn drop(&mut self) {
        let Some(path) = &self.path else { return };
        let now = self.kept.merged(self.running.export_threads());
        if now != self.kept
            && let Err(e) = now.save(path)
        {
            crate::term::warn(format!("cannot keep the demo's threads: {e:#}"));
        }
    }
}
