//! `analyst config`: the config file written and read without an editor.

use clap::{Args, Subcommand};

/// `analyst config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write a profile (asks on a terminal for what the flags do not give)
    Init(ConfigInitArgs),
    /// Print every setting as resolved, with where it came from (secrets as ***)
    Show,
    /// Print the config file's path (existing or not)
    Path,
    /// Set one key of a profile (--profile, else the default profile)
    Set(ConfigSetArgs),
    /// Remove one key of a profile
    Unset(ConfigUnsetArgs),
    /// List the profiles, marking the default
    Profiles,
}

/// `analyst config init`.
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
}

/// `analyst config set`.
#[derive(Debug, Args)]
pub struct ConfigSetArgs {
    /// The key, as in the settings table (chat_url, api_key_env, session.externalId, ...)
    #[arg(value_name = "KEY")]
    pub key: String,
    /// Its value
    #[arg(value_name = "VALUE")]
    pub value: String,
}

/// `analyst config unset`.
#[derive(Debug, Args)]
pub struct ConfigUnsetArgs {
    /// The key to remove
    #[arg(value_name = "KEY")]
    pub key: String,
}

/// `analyst doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Check the built-in emulator instead of the configured service
    #[arg(long)]
    pub demo: bool,
}
