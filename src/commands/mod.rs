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

use crate::cli::{Cli, Command, ConfigCommand, Format, GlobalArgs, ScimCommand};
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

/// Which global options mean something to a command. `-q` and `--color` mean something to every
/// command (each prints something), so they are not listed. The README has this as a table.
struct Globals {
    /// `-o`: the command has formats.
    output: bool,
    /// `-v`: the command sends requests (or, for `serve`, answers them) it can show diagnostics of.
    verbose: bool,
    /// `--dry-run`: the command sends requests it could show instead.
    dry_run: bool,
    /// `--connect-timeout`, `--idle-timeout`: the command makes HTTP requests.
    timeouts: bool,
    /// `--profile`, `--config`: the command reads settings from the config file.
    settings: bool,
}

fn globals_of(command: &Command) -> (&'static str, Globals) {
    let (all, none) = (true, false);
    // Every command that sends requests shows their diagnostics with `-v`.
    let g = |output, dry_run, timeouts, settings| Globals {
        output,
        verbose: timeouts,
        dry_run,
        timeouts,
        settings,
    };
    match command {
        // A saved stream is rendered: nothing is sent and no settings are read.
        Command::Chat(a) if a.replay.is_some() => ("chat --replay", g(all, none, none, none)),
        Command::Chat(_) => ("chat", g(all, all, all, all)),
        Command::State(_) => ("state", g(all, all, all, all)),
        // abort prints nothing on stdout; its only output is a --dry-run (checked below).
        Command::Abort(_) => ("abort", g(none, all, all, all)),
        Command::Scim(ScimCommand::Patch(_)) => ("scim patch", g(all, all, all, all)),
        Command::ExtractFinal(_) => ("extract-final", g(all, none, none, none)),
        Command::Sql(_) => ("sql", g(all, all, all, all)),
        // stdout carries only the protocol; no request is shown instead of being sent.
        Command::Mcp(_) => ("mcp", g(none, none, all, all)),
        Command::Eval(_) => ("eval", g(all, all, all, all)),
        // `-v` logs a line per request it answers.
        Command::Serve(_) => (
            "serve",
            Globals {
                verbose: true,
                ..g(all, none, none, none)
            },
        ),
        Command::Completions(_) => ("completions", g(none, none, none, none)),
        Command::Config(ConfigCommand::Show) => ("config show", g(all, none, none, all)),
        Command::Config(ConfigCommand::Profiles) => ("config profiles", g(all, none, none, all)),
        Command::Config(_) => ("config", g(none, none, none, all)),
        Command::Doctor(_) => ("doctor", g(all, none, none, all)),
    }
}

/// A global option given to a command it means nothing to is a usage error naming both, so a
/// script never believes `--dry-run` kept `extract-final` from doing something, or that
/// `--connect-timeout` bounded a command that connects nowhere.
fn check_globals(command: &Command, g: &GlobalArgs) -> Result<()> {
    let (name, takes) = globals_of(command);
    if let Command::Chat(a) = command
        && a.replay.is_some()
        && !a.message.is_empty()
    {
        return Err(usage(
            "MESSAGE means nothing to `analyst chat --replay` (it renders a saved stream and sends no message); leave the words out",
        ));
    }
    let output_ok = takes.output || (matches!(command, Command::Abort(_)) && g.dry_run);
    let given = [
        (
            g.output.is_some() && !output_ok,
            "-o/--output",
            "it has no output formats",
        ),
        (
            g.verbose > 0 && !takes.verbose,
            "-v/--verbose",
            "it sends no request to show diagnostics of",
        ),
        (
            g.dry_run && !takes.dry_run,
            "--dry-run",
            "it sends no request",
        ),
        (
            g.connect_timeout.is_some() && !takes.timeouts,
            "--connect-timeout",
            "it makes no HTTP request",
        ),
        (
            g.idle_timeout.is_some() && !takes.timeouts,
            "--idle-timeout",
            "it makes no HTTP request",
        ),
        (
            g.profile.is_some() && !takes.settings,
            "--profile",
            "it reads no settings from the config file",
        ),
        (
            // `serve --config` reads the users and groups it starts with.
            g.config.is_some() && !takes.settings && !matches!(command, Command::Serve(_)),
            "--config",
            "it reads no settings from the config file",
        ),
    ];
    match given.iter().find(|(bad, _, _)| *bad) {
        Some((_, option, why)) => {
            let why = if *option == "-o/--output" && name == "abort" {
                "it prints nothing on stdout; -o applies to abort only with --dry-run"
            } else {
                why
            };
            Err(usage(format!(
                "{option} means nothing to `analyst {name}` ({why}); leave it out"
            )))
        }
        None => Ok(()),
    }
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

/// Run the parsed command line.
pub fn dispatch(cli: Cli, matches: &clap::ArgMatches) -> Result<Status> {
    use std::io::IsTerminal;
    check_globals(&cli.command, &cli.global)?;
    let env = Env::from_process();
    let ctx = Ctx {
        out_style: Style::decide(cli.global.color, &env, std::io::stdout().is_terminal()),
        err_style: Style::decide(cli.global.color, &env, std::io::stderr().is_terminal()),
        stderr_is_terminal: std::io::stderr().is_terminal(),
        demo: match &cli.command {
            Command::Chat(a) => a.demo,
            Command::Sql(a) => a.demo,
            Command::Mcp(a) => a.demo,
            Command::Eval(a) => a.demo,
            _ => false,
        },
        global: cli.global,
        env,
    };
    // Spinners and progress bars (indicatif) style through `console`, which decides colour by
    // itself from stdout; they draw on stderr, so our decision for stderr is the one to hold.
    console::set_colors_enabled(ctx.err_style.color);
    console::set_colors_enabled_stderr(ctx.err_style.color);
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
        Command::Mcp(args) => mcp::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args),
        Command::Sql(args) => sql::run(&ctx, args),
    }
}
