//! `analyst`: a command-line client for a conversational analytics service, and a local emulator
//! of that service. The binary's `main` only calls [`run`]; everything else lives here so that
//! integration tests and benches can reach the same code.

pub(crate) mod cli;
pub(crate) mod client;
pub(crate) mod commands;
pub(crate) mod duration;
pub mod emulator;
pub(crate) mod exit;
pub mod protocol;
pub(crate) mod render;
pub(crate) mod settings;
pub mod stream;
pub(crate) mod term;
#[cfg(test)]
mod testkit;

pub use commands::completions::generated_files;

use clap::{CommandFactory, FromArgMatches};

/// clap's refusal of the command line; an option put before the command name (`analyst -v
/// chat`) also gets the way to say it, which clap gives for long options only.
fn refuse(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let before = args.first().filter(|a| a.starts_with('-') && a.len() > 1);
    let command = cli::Cli::command();
    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    let named = args.iter().find(|a| names.contains(&a.as_str()));
    if let (ErrorKind::UnknownArgument, Some(option), Some(name)) = (e.kind(), before, named) {
        let _ = e.print();
        eprintln!("tip: options follow the command name: analyst {name} {option} ...");
        std::process::exit(2);
    }
    e.exit()
}

/// Parse the command line, run the command, and return the process exit code.
pub fn run() -> i32 {
    let matches = match cli::Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => refuse(e),
    };
    let cli = match cli::Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match commands::dispatch(cli, &matches) {
        // However the run ended after its reader went away (`| head`), it ends quietly with 0:
        // what it could not write is the reader's choice, not a failure.
        _ if crate::term::stdout_closed() => 0,
        Ok(status) => status.code(),
        Err(e) if exit::is_broken_pipe(&e) => 0,
        Err(e) => {
            // The message may quote the service: its control characters are shown, not obeyed.
            let message = format!("{e:#}");
            crate::term::diag(format_args!(
                "analyst: {}",
                crate::term::visible_text(&message)
            ));
            exit::status_of(&e).code()
        }
    }
}
