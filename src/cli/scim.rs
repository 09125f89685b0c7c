//! `analyst scim users` and `analyst scim groups`: find and read users and groups, change a
//! group's members.

use super::{DryRunArgs, LookArgs, NetArgs, ProfileArgs, ScimFormat, ScimListFormat};
use clap::{Args, Subcommand};
use std::path::PathBuf;

// Where the SCIM service is and the token it takes.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Service")]
pub struct ScimServiceArgs {
    /// SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]
    #[arg(long, value_name = "URL")]
    pub scim_url: Option<String>,
    /// Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself
    #[arg(long, value_name = "FILE")]
    pub scim_token_file: Option<PathBuf>,
    /// Retries of 429 and 503 per request (3: at most 4 tries)
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,
}

// The paging and filtering of a list.
#[derive(Debug, Args, Clone, Default)]
pub struct ScimListArgs {
    /// A SCIM filter, e.g. 'userName ew "@old.example.com" and active eq true'
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Read every page (the next startIndex follows the itemsPerPage answered)
    #[arg(long)]
    pub all: bool,
    /// Page size to ask for (with --all, default 1000)
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// 1-based index of the first result
    #[arg(long, value_name = "N")]
    pub start_index: Option<u64>,
}

/// `analyst scim users ...`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ScimUsersCommand {
    /// List users: a filter, a page or every page
    List(ScimUsersListArgs),
    /// Read users by id or userName
    Get(ScimUsersGetArgs),
}

// `analyst scim users list`.
#[derive(Debug, Args)]
#[command(after_help = "\
Every page is printed as it arrives; a user who comes again on a later page is printed once:
  analyst scim users list --filter 'userName ew \"@old.example.com\"' --all --ids \\
    | analyst scim patch --ids-from - --deactivate

A server that ignores paging is read once; one whose pages never end is stopped after 1000
pages (exit 1). No match is an empty list and exit 0.

Formats: table (default on a terminal), ndjson (default otherwise: each User as sent), json,
yaml, csv (id,userName,active,externalId,givenName,familyName,email).")]
pub struct ScimUsersListArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub list: ScimListArgs,
    /// Ask for these attributes only (comma-separated)
    #[arg(long, value_name = "LIST")]
    pub attributes: Option<String>,
    /// Print only the ids, one a line (for `scim patch --ids-from -`)
    #[arg(long, conflicts_with = "output")]
    pub ids: bool,
    /// Output format (default: table on a terminal, else ndjson)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ScimListFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ScimServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub net: NetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst scim users get`.
#[derive(Debug, Args)]
#[command(after_help = "\
One user: the User resource. Several: one array with -o json, one line each with -o ndjson; a
user not found is said on stderr, the others are still printed, and the exit status is 1
(4 when the only user asked for is not found).")]
pub struct ScimUsersGetArgs {
    /// User ids
    #[arg(value_name = "ID", required_unless_present = "user_names")]
    pub ids: Vec<String>,
    /// Find the user by userName (repeat)
    #[arg(long = "user-name", value_name = "NAME")]
    pub user_names: Vec<String>,
    /// Ask for these attributes only (comma-separated)
    #[arg(long, value_name = "LIST")]
    pub attributes: Option<String>,
    /// Output format (default: table on a terminal, else json)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ScimListFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ScimServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub net: NetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

/// `analyst scim groups ...`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ScimGroupsCommand {
    /// List groups: a filter, a page or every page
    List(ScimGroupsListArgs),
    /// Read a group and its members
    Get(ScimGroupsGetArgs),
    /// Put users in a group
    AddMember(ScimMembersArgs),
    /// Take users out of a group
    RemoveMember(ScimMembersArgs),
}

// `analyst scim groups list`.
#[derive(Debug, Args)]
#[command(after_help = "\
Formats: table (default on a terminal: id, displayName, member count), ndjson (default
otherwise: each Group as sent), json, yaml, csv (id,displayName,externalId,members).")]
pub struct ScimGroupsListArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub list: ScimListArgs,
    /// Ask for these attributes only (comma-separated)
    #[arg(long, value_name = "LIST")]
    pub attributes: Option<String>,
    /// Output format (default: table on a terminal, else ndjson)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ScimListFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ScimServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub net: NetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst scim groups get`.
#[derive(Debug, Args)]
pub struct ScimGroupsGetArgs {
    /// Group id
    #[arg(
        value_name = "ID",
        required_unless_present = "group_name",
        conflicts_with = "group_name"
    )]
    pub id: Option<String>,
    /// Find the group by displayName
    #[arg(long, value_name = "NAME")]
    pub group_name: Option<String>,
    /// Output format (default: table on a terminal, else json)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ScimListFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ScimServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub net: NetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

// `analyst scim groups add-member` and `remove-member`.
#[derive(Debug, Args)]
#[command(after_help = "\
GROUP is the first argument, unless --group-name names the group; the other arguments are user
ids, and --user-name adds users by userName:
  analyst scim groups add-member 7f3c 2819c223 --user-name ann@example.com
  analyst scim groups remove-member --group-name Admins --user-name bo@example.com

One PATCH /Groups/{id} changes every user's membership. A user already in the group (or already
out of it) is a success, said on stderr. Exit status as for `scim patch`.

Formats: table (default on a terminal), json (default otherwise), ndjson, yaml.")]
pub struct ScimMembersArgs {
    /// GROUP (unless --group-name), then user ids
    #[arg(value_name = "GROUP|ID")]
    pub args: Vec<String>,
    /// Find the group by displayName
    #[arg(long, value_name = "NAME")]
    pub group_name: Option<String>,
    /// Find the user by userName (repeat)
    #[arg(long = "user-name", value_name = "NAME")]
    pub user_names: Vec<String>,
    /// userName lookups in flight at once
    #[arg(short = 'j', long, value_name = "N", default_value_t = 4)]
    pub concurrency: usize,
    /// Output format (default: table on a terminal, else json)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ScimFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ScimServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub net: NetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}
