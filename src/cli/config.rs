//! `analyst config`: the config file written and read without an editor.

use super::{DocumentFormat, LookArgs, ProfileArgs, ReportFormat};
use clap::{Args, Subcommand};

/// `analyst config` subcommands.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ConfigCommand {
    /// Write a profile (asks on a terminal for what the flags do not give)
    Init(ConfigInitArgs),
    /// Print every setting as resolved, with where it came from (secrets as ***)
    Show(ConfigShowArgs),
    /// Print the config file's path (existing or not)
    Path(ConfigPathArgs),
    /// Set one key of a profile (--profile, else the default profile)
    Set(ConfigSetArgs),
    /// Remove one key of a profile
    Unset(ConfigUnsetArgs),
    /// List the profiles, marking the default
    Profiles(ConfigProfilesArgs),
}

// `analyst config show`.
#[derive(Debug, Args)]
pub struct ConfigShowArgs {
    /// Output format (default: text)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<DocumentFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst config path`.
#[derive(Debug, Args)]
pub struct ConfigPathArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst config profiles`.
#[derive(Debug, Args)]
pub struct ConfigProfilesArgs {
    /// Output format (default: text)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ReportFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst config init`.
#[derive(Debug, Args, Default)]
pub struct ConfigInitArgs {
    /// Full chat URL (the agent's Chat API URL, ending in /chat/stream-chat-state)
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Name of the environment variable that holds the API key (the key is never written)
    #[arg(long, value_name = "VAR", conflicts_with = "api_key_command")]
    pub api_key_env: Option<String>,
    /// Command that prints the API key, e.g. "pass show acme/analyst"
    #[arg(long, value_name = "CMD")]
    pub api_key_command: Option<String>,
    /// External user id the agent acts for (lowercase, no spaces)
    #[arg(long, value_name = "ID")]
    pub external_id: Option<String>,
    /// SCIM root, e.g. https://acme.example.com/api/scim/v2
    #[arg(long, value_name = "URL")]
    pub scim_url: Option<String>,
    /// Name of the environment variable that holds the SCIM token
    #[arg(long, value_name = "VAR", conflicts_with = "scim_token_command")]
    pub scim_token_env: Option<String>,
    /// Command that prints the SCIM token
    #[arg(long, value_name = "CMD")]
    pub scim_token_command: Option<String>,
    /// Data query API root (.../cubejs-api)
    #[arg(long, value_name = "URL")]
    pub data_url: Option<String>,
    /// Make this profile the default one
    #[arg(long)]
    pub default: bool,
    /// Overwrite an existing profile of that name
    #[arg(long)]
    pub force: bool,
    /// Do not run doctor on the new profile after writing (for provisioning without network)
    #[arg(long)]
    pub no_check: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst config set`.
#[derive(Debug, Args)]
pub struct ConfigSetArgs {
    /// The key, as in the settings table (chat_url, api_key_env, session.externalId, ...)
    #[arg(value_name = "KEY")]
    pub key: String,
    /// Its value
    #[arg(value_name = "VALUE")]
    pub value: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst config unset`.
#[derive(Debug, Args)]
pub struct ConfigUnsetArgs {
    /// The key to remove
    #[arg(value_name = "KEY")]
    pub key: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Check the built-in emulator instead of the configured service
    #[arg(long)]
    pub demo: bool,
    /// The date the --demo emulator resolves relative periods against, and where its sample
    /// data end, e.g. 2025-06-15 (see `analyst serve --today`)
    #[arg(long, value_name = "DATE", requires = "demo")]
    pub today: Option<String>,
    /// Output format (default: text)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ReportFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}
