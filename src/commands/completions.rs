//! `analyst completions SHELL`.

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::Status;
use anyhow::Result;
use clap::CommandFactory;
use std::io::Write;

/// Print the completion script for a shell.
pub fn run(args: CompletionsArgs) -> Result<Status> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "analyst", &mut out);
    std::io::stdout().lock().write_all(&out)?;
    Ok(Status::Success)
}
