//! `chat --demo`: the built-in emulator, started in this process on a free loopback port.

use super::chat_request::Override;
use anyhow::Result;

/// A running demo service.
pub struct Demo {
    /// Where it listens and its key.
    pub target: Override,
}

/// Start the emulator.
pub async fn start() -> Result<Demo> {
    Err(crate::exit::usage(
        "--demo needs the built-in emulator, which is not in this build yet",
    ))
}
