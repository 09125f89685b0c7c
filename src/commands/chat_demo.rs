//! `chat --demo`: the built-in emulator, started in this process on a free loopback port, so
//! that the whole client path (HTTP, streaming, rendering) runs without an account.

use super::chat_request::Override;
use crate::emulator::server::{start as start_emulator, Running, ServeOptions};
use crate::exit::{fail, Status};
use crate::protocol::Dialect;
use anyhow::Result;

/// A running demo service; it stops when this is dropped.
pub struct Demo {
    /// Where it listens and its key.
    pub target: Override,
    _running: Running,
}

/// Start the emulator with its demo options, speaking `dialect`.
pub async fn start(dialect: Dialect) -> Result<Demo> {
    let opts = ServeOptions {
        dialect,
        ..ServeOptions::demo()
    };
    let running = start_emulator(opts).await.map_err(|e| {
        fail(
            Status::Failure,
            format!("--demo: cannot start the emulator: {e:#}"),
        )
    })?;
    Ok(Demo {
        target: Override {
            url: running.chat_url.clone(),
            api_key: running.api_key.clone(),
        },
        _running: running,
    })
}
