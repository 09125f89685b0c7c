//! `chat --demo`: the built-in emulator, started in this process on a free loopback port, so
//! that the whole client path (HTTP, streaming, rendering) runs without an account.

use super::chat_request::Override;
use crate::emulator::server::{start as start_emulator, Running, ServeOptions};
use crate::exit::{fail, Status};
use anyhow::Result;

/// A running demo service; it stops when this is dropped.
pub struct Demo {
    /// Where it listens and its key.
    pub target: Override,
    _running: Running,
}

/// Start the emulator with its demo options.
pub async fn start() -> Result<Demo> {
    start_with(ServeOptions::demo()).await
}

/// Start the emulator with these options (`eval --demo` fixes its date).
pub async fn start_with(options: ServeOptions) -> Result<Demo> {
    let running = start_emulator(options).await.map_err(|e| {
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
