//! The common options (CLI.md, "Common options"), in groups that each command flattens when it
//! takes them, and each command's own `-o` formats. A command shows in its help only what it
//! takes, and anything else is a usage error from the parser itself, naming the option.

use super::{ColorChoice, Format};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

// `--color` and `-q`: every command that prints something on a terminal.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Common options")]
pub struct LookArgs {
    /// When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,
    /// No spinner, progress bar or hints on stderr
    #[arg(short, long)]
    pub quiet: bool,
}

// `-v` and the timeouts: commands that make HTTP requests.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Common options")]
pub struct NetArgs {
    /// Request and response diagnostics on stderr (repeat for more; secrets show as ***)
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Longest wait to connect, e.g. 10s
    #[arg(long, value_name = "DURATION")]
    pub connect_timeout: Option<String>,
    /// Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)
    #[arg(long, value_name = "DURATION")]
    pub idle_timeout: Option<String>,
}

// `--dry-run`: commands whose requests can be shown instead of sent.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Common options")]
pub struct DryRunArgs {
    /// Print the request that would be sent (secrets as ***) and exit without sending it
    #[arg(long)]
    pub dry_run: bool,
}

// `--profile` and `--config`: commands that read settings from the config file.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Common options")]
pub struct ProfileArgs {
    /// Profile of the config file to use [env: ANALYST_PROFILE]
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Config file to read [env: ANALYST_CONFIG]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Declares a command's `-o` values as its own enum (so `-h` and completions list only those),
/// each turned into the one [`Format`] the renderers know.
macro_rules! formats {
    ($($(#[$doc:meta])* $name:ident: $($variant:ident),+;)+) => {$(
        $(#[$doc])*
        #[allow(missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
        pub enum $name { $($variant),+ }

        impl From<$name> for Format {
            fn from(f: $name) -> Format {
                match f { $($name::$variant => Format::$variant),+ }
            }
        }
    )+};
}

formats! {
    /// `chat -o`.
    ChatFormat: Text, Ndjson, Json, Yaml, Final;
    /// `state -o`.
    StateFormat: Table, Ndjson, Json, Yaml;
    /// `-o` of a command whose only output is `--dry-run`'s requests (`abort`).
    RequestFormat: Text, Json, Ndjson, Yaml;
    /// `scim patch -o` and the group membership commands.
    ScimFormat: Table, Json, Ndjson, Yaml;
    /// `scim users list|get -o` and `scim groups list|get -o`.
    ScimListFormat: Table, Ndjson, Json, Yaml, Csv;
    /// `extract-final -o`.
    ExtractFormat: Text, Json, Yaml;
    /// `sql -o`.
    SqlFormat: Table, Csv, Tsv, Ndjson, Json, Yaml;
    /// `eval -o`.
    EvalFormat: Table, Json, Ndjson, Yaml, Markdown;
    /// `-o` of a report for people or for a script: `serve`, `doctor`, `config profiles`.
    ReportFormat: Text, Json;
    /// `config show -o`.
    DocumentFormat: Text, Json, Yaml;
}

/// The common options as one command line gave them: what every command's code reads, whatever
/// groups its arguments flattened (the ones it does not take stay at their defaults).
#[derive(Debug, Clone, Default)]
pub struct GlobalArgs {
    /// `-o`, already one of the command's own formats.
    pub output: Option<Format>,
    /// `--color`.
    pub color: ColorChoice,
    /// `-v`, counted.
    pub verbose: u8,
    /// `-q`.
    pub quiet: bool,
    /// `--connect-timeout`.
    pub connect_timeout: Option<String>,
    /// `--idle-timeout`.
    pub idle_timeout: Option<String>,
    /// `--dry-run`.
    pub dry_run: bool,
    /// `--profile`.
    pub profile: Option<String>,
    /// `--config`.
    pub config: Option<PathBuf>,
}

impl GlobalArgs {
    /// Start from `-o` and the look of the output.
    pub fn new(output: Option<impl Into<Format>>, look: &LookArgs) -> Self {
        GlobalArgs {
            output: output.map(Into::into),
            color: look.color,
            quiet: look.quiet,
            ..GlobalArgs::default()
        }
    }

    /// With `-v` and the timeouts.
    pub fn net(mut self, net: &NetArgs) -> Self {
        self.verbose = net.verbose;
        self.connect_timeout.clone_from(&net.connect_timeout);
        self.idle_timeout.clone_from(&net.idle_timeout);
        self
    }

    /// With `--dry-run`.
    pub fn dry_run(mut self, d: &DryRunArgs) -> Self {
        self.dry_run = d.dry_run;
        self
    }

    /// With `--profile` and `--config`.
    pub fn profile(mut self, p: &ProfileArgs) -> Self {
        self.profile.clone_from(&p.profile);
        self.config.clone_from(&p.config);
        self
    }
}
