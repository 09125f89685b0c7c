//! One file per subcommand: settings in, client and renderers called, exit status out.

mod abort;
mod chat;
mod chat_demo;
mod chat_request;
mod chat_sink;
pub mod completions;
mod extract_final;
mod scim;
mod serve;
mod state;
mod thread_store;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::exit::Status;
use crate::render::Style;
use crate::settings::{Env, Resolver};
use anyhow::Result;

/// What every command gets: the global flags, the environment, and stderr's style.
pub struct Ctx {
    /// Global flags.
    pub global: GlobalArgs,
    /// The environment snapshot.
    pub env: Env,
    /// Styles for stdout.
    pub out_style: Style,
    /// Styles for stderr.
    pub err_style: Style,
    /// Whether stderr is a terminal (spinners and progress bars only then).
    pub stderr_is_terminal: bool,
}

impl Ctx {
    /// Load the config file and profile (only commands that talk to a service need it).
    pub fn resolver(&self) -> Result<Resolver> {
        Resolver::load(
            self.global.config.as_deref(),
            self.global.profile.as_deref(),
            self.env.clone(),
        )
    }

    /// Whether hints and spinners may be shown on stderr.
    pub fn chatty(&self) -> bool {
        !self.global.quiet && self.stderr_is_terminal
    }
}

/// Run the parsed command line.
pub fn dispatch(cli: Cli, matches: &clap::ArgMatches) -> Result<Status> {
    use std::io::IsTerminal;
    let env = Env::from_process();
    let ctx = Ctx {
        out_style: Style::decide(cli.global.color, &env, std::io::stdout().is_terminal()),
        err_style: Style::decide(cli.global.color, &env, std::io::stderr().is_terminal()),
        stderr_is_terminal: std::io::stderr().is_terminal(),
        global: cli.global,
        env,
    };
    match cli.command {
        Command::ExtractFinal(args) => extract_final::run(&ctx, args),
        Command::Completions(args) => completions::run(args),
        Command::Chat(args) => chat::run(&ctx, args),
        Command::State(args) => state::run(&ctx, args),
        Command::Abort(args) => abort::run(&ctx, args),
        Command::Scim(command) => {
            let sub = matches
                .subcommand_matches("scim")
                .and_then(|m| m.subcommand().map(|(_, m)| m));
            scim::run(&ctx, command, sub)
        }
        Command::Serve(args) => serve::run(&ctx, args),
    }
}
