//! One file per subcommand: settings in, client and renderers called, exit status out.

mod abort;
mod args;
mod chat;
mod chat_demo;
mod chat_interactive;
mod chat_request;
mod chat_sink;
pub mod completions;
mod config;
mod doctor;
mod eval;
mod extract_final;
mod mcp;
mod scim;
mod serve;
mod sql;
mod state;
mod thread_store;

use crate::cli::{
    Cli, Command, ConfigCommand, Format, GlobalArgs, ScimCommand, ScimGroupsCommand,
    ScimUsersCommand,
};
use crate::client::RequestLog;
use crate::exit::{Status, usage};
use crate::render::write_document;
use crate::settings::Resolver;
use crate::term::Env;
use crate::term::Style;
use anyhow::Result;
use std::io::Write;

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
    /// A `--demo` run: it reads no config file at all.
    pub demo: bool,
}

impl Ctx {
    /// Load the config file and profile (only commands that talk to a service need it).
    pub fn resolver(&self) -> Result<Resolver> {
        if self.demo {
            return Ok(Resolver::without_config(self.env.clone()));
        }
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

/// The common options as the command line gave them. Each command declares only the groups it
/// takes (`src/cli/common.rs`), so the parser itself refuses the others, naming them.
fn common_of(command: &Command) -> GlobalArgs {
    let none: Option<Format> = None;
    match command {
        Command::Chat(a) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::State(a) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::Abort(a) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::Scim(ScimCommand::Patch(a)) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::Scim(ScimCommand::Users(ScimUsersCommand::List(a))) => {
            GlobalArgs::new(a.output, &a.look)
                .net(&a.net)
                .dry_run(&a.dry_run)
                .profile(&a.settings)
        }
        Command::Scim(ScimCommand::Users(ScimUsersCommand::Get(a))) => {
            GlobalArgs::new(a.output, &a.look)
                .net(&a.net)
                .dry_run(&a.dry_run)
                .profile(&a.settings)
        }
        Command::Scim(ScimCommand::Groups(ScimGroupsCommand::List(a))) => {
            GlobalArgs::new(a.output, &a.look)
                .net(&a.net)
                .dry_run(&a.dry_run)
                .profile(&a.settings)
        }
        Command::Scim(ScimCommand::Groups(ScimGroupsCommand::Get(a))) => {
            GlobalArgs::new(a.output, &a.look)
                .net(&a.net)
                .dry_run(&a.dry_run)
                .profile(&a.settings)
        }
        Command::Scim(ScimCommand::Groups(
            ScimGroupsCommand::AddMember(a) | ScimGroupsCommand::RemoveMember(a),
        )) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::ExtractFinal(a) => GlobalArgs::new(a.output, &a.look),
        Command::Sql(a) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::Mcp(a) => GlobalArgs::new(none, &a.look)
            .net(&a.net)
            .profile(&a.settings),
        Command::Eval(a) => GlobalArgs::new(a.output, &a.look)
            .net(&a.net)
            .dry_run(&a.dry_run)
            .profile(&a.settings),
        Command::Serve(a) => GlobalArgs {
            verbose: a.verbose,
            ..GlobalArgs::new(a.output, &a.look)
        },
        Command::Completions(_) => GlobalArgs::default(),
        Command::Config(c) => match c {
            ConfigCommand::Init(a) => GlobalArgs::new(none, &a.look).profile(&a.settings),
            ConfigCommand::Show(a) => GlobalArgs::new(a.output, &a.look).profile(&a.settings),
            ConfigCommand::Path(a) => GlobalArgs::default().profile(&a.settings),
            ConfigCommand::Set(a) => GlobalArgs::new(none, &a.look).profile(&a.settings),
            ConfigCommand::Unset(a) => GlobalArgs::new(none, &a.look).profile(&a.settings),
            ConfigCommand::Profiles(a) => GlobalArgs::new(a.output, &a.look).profile(&a.settings),
        },
        Command::Doctor(a) => GlobalArgs::new(a.output, &a.look).profile(&a.settings),
    }
}

/// Words given to `chat --replay` would never be sent: a usage error, not silence.
fn check_replay(command: &Command) -> Result<()> {
    if let Command::Chat(a) = command
        && a.replay.is_some()
        && !a.message.is_empty()
    {
        return Err(usage(
            "MESSAGE means nothing to `analyst chat --replay` (it renders a saved stream and sends no message); leave the words out",
        ));
    }
    Ok(())
}

/// Print requests for `--dry-run`, secrets already masked: with `-o json` one object (an array
/// for several requests), `-o ndjson` one object per line, `-o yaml` the JSON document as YAML;
/// otherwise curl-like text (request line, headers, blank line, body), blank lines between.
pub(crate) fn write_dry_run(output: Option<Format>, requests: &[RequestLog]) -> Result<()> {
    let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
    let doc = || match requests {
        [one] => one.to_json(),
        many => serde_json::Value::Array(many.iter().map(RequestLog::to_json).collect()),
    };
    match output {
        Some(Format::Ndjson) => {
            for r in requests {
                serde_json::to_writer(&mut out, &r.to_json())?;
                out.write_all(b"\n")?;
            }
        }
        Some(f @ (Format::Json | Format::Yaml)) => write_document(&mut out, &doc(), f)?,
        _ => {
            for (i, r) in requests.iter().enumerate() {
                if i > 0 {
                    out.write_all(b"\n")?;
                }
                out.write_all(r.render().as_bytes())?;
            }
        }
    }
    Ok(out.flush()?)
}

/// `$XDG_CACHE_HOME/analyst`, else `$HOME/.cache/analyst` (absolute paths only, as the XDG
/// base directory specification asks).
fn cache_dir(env: &Env) -> Option<std::path::PathBuf> {
    let absolute = |v: String| Some(std::path::PathBuf::from(v)).filter(|p| p.is_absolute());
    env.get("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| env.get("HOME").and_then(absolute).map(|h| h.join(".cache")))
        .map(|d| d.join("analyst"))
}

/// Run the parsed command line.
pub fn dispatch(cli: Cli, matches: &clap::ArgMatches) -> Result<Status> {
    use std::io::IsTerminal;
    check_replay(&cli.command)?;
    let global = common_of(&cli.command);
    let env = Env::from_process();
    let ctx = Ctx {
        out_style: Style::decide(global.color, &env, std::io::stdout().is_terminal()),
        err_style: Style::decide(global.color, &env, std::io::stderr().is_terminal()),
        stderr_is_terminal: std::io::stderr().is_terminal(),
        demo: match &cli.command {
            Command::Chat(a) => a.demo,
            Command::Sql(a) => a.demo,
            Command::Mcp(a) => a.demo,
            Command::Eval(a) => a.demo,
            _ => false,
        },
        global,
        env,
    };
    // Spinners and progress bars (indicatif) style through `console`, which decides colour by
    // itself from stdout; they draw on stderr, so our decision for stderr is the one to hold.
    console::set_colors_enabled(ctx.err_style.color);
    console::set_colors_enabled_stderr(ctx.err_style.color);
    // The emulator's sample database is a cache: `$XDG_CACHE_HOME/analyst`, else
    // `~/.cache/analyst`.
    if let Some(dir) = cache_dir(&ctx.env) {
        crate::emulator::server::keep_samples_in(dir);
    }
    match cli.command {
        Command::ExtractFinal(args) => extract_final::run(&ctx, args),
        Command::Completions(args) => completions::run(args),
        Command::Config(command) => config::run(&ctx, command),
        Command::Doctor(args) => doctor::run(&ctx, args),
        // The prompt builds on chat's pieces (chat_interactive -> chat, never back).
        Command::Chat(args) if args.interactive => chat_interactive::run(&ctx, &args),
        Command::Chat(args) => chat::run(&ctx, args),
        Command::Eval(args) => eval::run(&ctx, args),
        Command::State(args) => state::run(&ctx, args),
        Command::Abort(args) => abort::run(&ctx, args),
        Command::Scim(ScimCommand::Patch(args)) => {
            let flags = matches
                .subcommand_matches("scim")
                .and_then(|m| m.subcommand_matches("patch"))
                .map(|m| args::patch_flags(&args, m))
                .unwrap_or_default();
            scim::patch(&ctx, args, &flags)
        }
        Command::Scim(ScimCommand::Users(ScimUsersCommand::List(args))) => {
            scim::users::users_list(&ctx, args)
        }
        Command::Scim(ScimCommand::Users(ScimUsersCommand::Get(args))) => {
            scim::users::users_get(&ctx, args)
        }
        Command::Scim(ScimCommand::Groups(ScimGroupsCommand::List(args))) => {
            scim::users::groups_list(&ctx, args)
        }
        Command::Scim(ScimCommand::Groups(ScimGroupsCommand::Get(args))) => {
            scim::groups::get(&ctx, args)
        }
        Command::Scim(ScimCommand::Groups(ScimGroupsCommand::AddMember(args))) => {
            scim::groups::members(&ctx, args, crate::client::scim::groups::Change::Add)
        }
        Command::Scim(ScimCommand::Groups(ScimGroupsCommand::RemoveMember(args))) => {
            scim::groups::members(&ctx, args, crate::client::scim::groups::Change::Remove)
        }
        Command::Mcp(args) => mcp::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args),
        Command::Sql(args) => sql::run(&ctx, args),
    }
}
