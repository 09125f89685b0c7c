//! Every command and flag of `analyst`, with its help text. This tree drives parsing, `--help`,
//! the completions in `completions/` and the man pages in `man/`. No logic lives here.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

mod common;
mod config;
mod scim;
pub use common::*;
pub use config::*;
pub use scim::*;

pub use crate::render::Format;
pub use crate::term::ColorChoice;

const AFTER_HELP: &str = "\
Settings come from flags, then the environment (ANALYST_*), then a profile of the config file
($ANALYST_CONFIG, else $XDG_CONFIG_HOME/analyst/config.yaml, else ~/.config/analyst/config.yaml).

Exit status: 0 success; 1 the service reported a failure; 2 usage error or 400; 3 authentication
or permission refused; 4 not found; 5 conflict (thread streaming, 409, 412); 6 network; 7 no final
answer; 130 interrupted.";

/// Script a conversational analytics service: chat with its agent, read and stop threads,
/// patch SCIM users, extract answers from saved streams, or run a local emulator.
#[derive(Debug, Parser)]
#[command(name = "analyst", version, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// `--dialect` values: the wire variants of PROTOCOL.md.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// The service's document: final frames, HTTP statuses for refusals
    #[default]
    Seed,
    /// The vendor's published examples: cube_* names, no final frames, errors in a 200
    Docs,
    /// Older servers: as docs, rows as objects, SQL tool input as a bare query, the older meta
    /// shape, SCIM users with active as a string and PascalCase meta, no
    /// __usage__/__suspended__/__aborted__
    Legacy,
}

impl From<DialectArg> for crate::protocol::Dialect {
    fn from(d: DialectArg) -> Self {
        match d {
            DialectArg::Seed => crate::protocol::Dialect::Seed,
            DialectArg::Docs => crate::protocol::Dialect::Docs,
            DialectArg::Legacy => crate::protocol::Dialect::Legacy,
        }
    }
}

/// The commands.
///
/// Each command's arguments are built only when it runs (`defer`, here and on the nested
/// command enums): building every command's arguments made most of the 1.2-1.7 ms from `main`
/// to the parsed command line (0.4-0.5 ms since), a quarter of the CPU of a short run (`perf
/// stat -r 40 analyst extract-final /dev/null`: 3.1-3.8 ms of CPU before, 2.0-2.8 ms after;
/// docs/performance-streams.md). Help, completions and man pages build the whole tree first,
/// and show the same. Under `defer` an arguments struct's own `about` is applied after its
/// command's, so the structs below carry plain comments, not doc comments, which clap would
/// take for one (`help_per_command` in the tests checks every command's description).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Send a message to the agent and stream the answer
    Chat(ChatArgs),
    /// Read a thread's current state
    State(StateArgs),
    /// Stop a running stream
    Abort(AbortArgs),
    /// SCIM users and groups: find, read, patch (e.g. deactivate), change group members
    #[command(subcommand)]
    Scim(ScimCommand),
    /// Print the final answer from saved NDJSON
    ExtractFinal(ExtractFinalArgs),
    /// Run SQL on the data query API and stream every row (the full results behind an answer)
    Sql(SqlArgs),
    /// Serve the agent to AI assistants over the Model Context Protocol (stdio)
    Mcp(McpArgs),
    /// Run suites of questions with expectations; report for people and CI (JUnit)
    Eval(EvalArgs),
    /// Run the built-in local emulator of the service (chat, abort, SCIM, data API)
    Serve(ServeArgs),
    /// Write and read the config file without an editor
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check settings, reachability and credentials, each with its fix
    Doctor(DoctorArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

// Where the chat service is and how to authenticate.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Service")]
pub struct ServiceArgs {
    /// Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Account name [env: ANALYST_ACCOUNT]
    #[arg(long, value_name = "NAME")]
    pub account: Option<String>,
    /// Agent id [env: ANALYST_AGENT]
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself
    #[arg(long, value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API
    /// key, or set ANALYST_TOKEN to the token itself
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
}

// Who the agent acts for (`sessionSettings`).
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Identity")]
pub struct IdentityArgs {
    /// External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]
    #[arg(long, value_name = "ID")]
    pub external_id: Option<String>,
    /// Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]
    #[arg(long, value_name = "ID")]
    pub internal_id: Option<String>,
    /// The user's email
    #[arg(long, value_name = "EMAIL")]
    pub email: Option<String>,
    /// User attribute for row-level security (repeat)
    #[arg(long = "attr", value_name = "NAME=VALUE")]
    pub attrs: Vec<String>,
    /// Group (repeat)
    #[arg(long = "group", value_name = "G")]
    pub groups: Vec<String>,
    /// Role (repeat)
    #[arg(long = "role", value_name = "R")]
    pub roles: Vec<String>,
    /// Security context object: inline JSON, @FILE, FILE or - for stdin
    #[arg(long, value_name = "JSON|@FILE")]
    pub security_context: Option<String>,
    /// IANA time zone, e.g. Europe/Berlin (for sql: the query's time zone)
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
    /// Keep the external user (isEphemeral: false)
    #[arg(long)]
    pub persist_user: bool,
    /// Lifetime of an ephemeral user, e.g. 2h or 7d
    #[arg(long, value_name = "DURATION")]
    pub user_ttl: Option<String>,
    /// The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields
    #[arg(long, value_name = "JSON|@FILE")]
    pub session: Option<String>,
}

// Which thread.
#[derive(Debug, Args, Clone, Default)]
pub struct ThreadArgs {
    /// The thread (chat) id
    #[arg(long, value_name = "ID")]
    pub chat_id: Option<String>,
    /// The last thread used with this profile
    #[arg(short = 'c', long = "continue", conflicts_with = "chat_id")]
    pub continue_last: bool,
}

// `analyst chat`.
#[derive(Debug, Args)]
#[command(
    after_help = "Formats: text (default on a terminal), ndjson (default otherwise), json, yaml, final."
)]
pub struct ChatArgs {
    /// The message; words are joined with spaces; - reads it from stdin
    #[arg(value_name = "MESSAGE")]
    pub message: Vec<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArgs,
    /// Message id (default: <unix-ms>-message)
    #[arg(long, value_name = "ID")]
    pub message_id: Option<String>,
    /// Branch to work on (activeBranchName)
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// Mark the branch as the default one (isDefaultBranch)
    #[arg(long)]
    pub default_branch: bool,
    /// Attach an image (repeat)
    #[arg(long = "image", value_name = "FILE")]
    pub images: Vec<PathBuf>,
    /// Also write the raw lines to FILE (exactly what -o ndjson prints)
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// With no final frame in the stream, take the last complete assistant message (with a warning)
    #[arg(long)]
    pub fallback: bool,
    /// Show the agent's reasoning (text format)
    #[arg(long)]
    pub show_thinking: bool,
    /// How often to resume a dropped stream
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,
    /// On Ctrl-C, do not send an abort for the thread
    #[arg(long)]
    pub no_abort: bool,
    /// Talk to the built-in emulator, started in-process on a free loopback port
    #[arg(long, conflicts_with_all = ["url", "base_url", "replay"])]
    pub demo: bool,
    /// Wire variant the --demo emulator speaks (see `analyst serve --dialect`)
    #[arg(
        long,
        value_enum,
        value_name = "DIALECT",
        default_value = "seed",
        requires = "demo"
    )]
    pub dialect: DialectArg,
    /// The date the --demo emulator resolves relative periods against (see `analyst serve --today`)
    #[arg(long, value_name = "DATE", requires = "demo")]
    pub today: Option<String>,
    /// A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields
    #[arg(long, value_name = "JSON|@FILE")]
    pub body: Option<String>,
    /// Render a saved stream (FILE or -) without contacting the service
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "dry_run", "verbose", "connect_timeout", "idle_timeout", "profile", "config",
    ])]
    pub replay: Option<PathBuf>,
    /// Rows of each result table in text (0 = all that arrived)
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub rows: usize,
    /// Write each charted result to FILE: .svg, .html or .vl.json (several: FILE-1, FILE-2...)
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// Do not draw charts under the tables in text
    #[arg(long)]
    pub no_chart: bool,
    /// A prompt: each line a message in the same thread (terminal only)
    #[arg(short = 'i', long, conflicts_with_all = ["replay", "body", "message_id", "save", "chart"])]
    pub interactive: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub identity: IdentityArgs,
    /// Output format (default: text on a terminal, else ndjson)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ChatFormat>,
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

// `analyst state`.
#[derive(Debug, Args)]
#[command(
    after_help = "Formats: table (default on a terminal), ndjson (default otherwise), json, yaml."
)]
pub struct StateArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArgs,
    /// A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields
    #[arg(long, value_name = "JSON|@FILE")]
    pub body: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub identity: IdentityArgs,
    /// Output format (default: table on a terminal, else ndjson)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<StateFormat>,
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

// `analyst abort`.
#[derive(Debug, Args)]
pub struct AbortArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub identity: IdentityArgs,
    /// Format of --dry-run's request (default: text)
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        requires = "dry_run"
    )]
    pub output: Option<RequestFormat>,
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

// `analyst mcp`.
#[derive(Debug, Args)]
#[command(after_help = "\
JSON-RPC on stdin and stdout; logs only on stderr. Tools: ask (question, optional chatId),
thread_state (chatId), abort (chatId), run_sql (query, or chatId and pick; limit). Failures come
back as tool errors with the message the CLI would print; a bad request never ends the server.

An assistant's configuration (e.g. Claude Desktop's mcpServers):
  {\"analyst\": {\"command\": \"analyst\", \"args\": [\"mcp\", \"--profile\", \"prod\"]}}
Try it without an account: \"args\": [\"mcp\", \"--demo\"]")]
pub struct McpArgs {
    /// Serve the built-in emulator, started in-process on a free loopback port
    #[arg(long, conflicts_with_all = ["url", "base_url", "data_url"])]
    pub demo: bool,
    /// The date the --demo emulator resolves relative periods against, and where its sample
    /// data end, e.g. 2025-06-15 (see `analyst serve --today`)
    #[arg(long, value_name = "DATE", requires = "demo")]
    pub today: Option<String>,
    /// Wire variant the --demo emulator speaks (see `analyst serve --dialect`)
    #[arg(
        long,
        value_enum,
        value_name = "DIALECT",
        default_value = "seed",
        requires = "demo"
    )]
    pub dialect: DialectArg,
    /// With no final frame in the stream, take the last complete assistant message
    #[arg(long)]
    pub fallback: bool,
    /// How often `ask` resumes a dropped stream
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub identity: IdentityArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub net: NetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: ProfileArgs,
}

/// `analyst scim ...`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ScimCommand {
    /// Patch SCIM users, e.g. deactivate them
    Patch(ScimPatchArgs),
    /// Find SCIM users (a filter, every page) and read them
    #[command(subcommand)]
    Users(ScimUsersCommand),
    /// Read SCIM groups and change their members
    #[command(subcommand)]
    Groups(ScimGroupsCommand),
}

// `analyst scim patch`.
#[derive(Debug, Args)]
#[command(after_help = "\
Operations are sent in the order given. PATH=VALUE sends a string, PATH:=JSON raw JSON:
  analyst scim patch 42 --deactivate
  analyst scim patch --user-name ann@example.com --replace title=Boss --add 'emails:=[{\"value\":\"a@b.c\"}]'
  analyst scim patch --ids-from ids.txt --deactivate -o ndjson
  analyst scim patch --filter 'userName ew \"@old.example.com\"' --deactivate --yes

--filter patches every user the filter matches (found as `scim users list --filter EXPR --all`
finds them): on a terminal it shows them and asks first; without a terminal it needs --yes.

429 and 503 are retried, honouring Retry-After up to 60 s (a longer one fails that user at once).
--dry-run sends nothing, not even a userName lookup: a --user-name's PATCH is shown going to
/Users/<id of NAME>. Several users: one result each, a summary on stderr, exit 1 if any failed.

Formats: table (default on a terminal), json (default otherwise), ndjson, yaml.")]
pub struct ScimPatchArgs {
    /// User ids to patch
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Read ids from FILE (- for stdin), one per line; # comments and blank lines are skipped
    #[arg(long, value_name = "FILE")]
    pub ids_from: Option<PathBuf>,
    /// Find the user by userName (repeat)
    #[arg(long = "user-name", value_name = "NAME")]
    pub user_names: Vec<String>,
    /// Patch every user this SCIM filter matches (every page)
    #[arg(long, value_name = "EXPR", conflicts_with_all = ["ids", "ids_from", "user_names"])]
    pub filter: Option<String>,
    /// With --filter: patch without asking (needed when there is no terminal to ask on)
    #[arg(short = 'y', long, requires = "filter")]
    pub yes: bool,
    /// replace active false
    #[arg(long, help_heading = "Operations")]
    pub deactivate: bool,
    /// replace active true
    #[arg(long, help_heading = "Operations")]
    pub activate: bool,
    /// replace PATH with VALUE (repeat)
    #[arg(long, value_name = "PATH=VALUE", help_heading = "Operations")]
    pub replace: Vec<String>,
    /// add VALUE at PATH (repeat)
    #[arg(long, value_name = "PATH=VALUE", help_heading = "Operations")]
    pub add: Vec<String>,
    /// remove PATH (repeat)
    #[arg(long, value_name = "PATH", help_heading = "Operations")]
    pub remove: Vec<String>,
    /// Send replace operations as one path-less value object
    #[arg(long, help_heading = "Operations")]
    pub pathless: bool,
    /// A whole PatchOp document (inline JSON, @FILE, FILE or -)
    #[arg(long, value_name = "JSON|@FILE", help_heading = "Operations",
          conflicts_with_all = ["deactivate", "activate", "replace", "add", "remove", "pathless"])]
    pub body: Option<String>,
    /// Send If-Match: ETAG (the server answers 412 when the user changed)
    #[arg(long, value_name = "ETAG")]
    pub if_match: Option<String>,
    /// Ask for these attributes of the patched user (comma-separated)
    #[arg(long, value_name = "LIST")]
    pub attributes: Option<String>,
    /// Requests in flight at once
    #[arg(short = 'j', long, value_name = "N", default_value_t = 4)]
    pub concurrency: usize,
    /// Retries of 429 and 503 per user (3: at most 4 tries)
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,
    /// SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]
    #[arg(long, value_name = "URL", help_heading = "Service")]
    pub scim_url: Option<String>,
    /// Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself
    #[arg(long, value_name = "FILE", help_heading = "Service")]
    pub scim_token_file: Option<PathBuf>,
    /// Output format (default: table on a terminal, else json)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ScimFormat>,
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

// `analyst extract-final`.
#[derive(Debug, Args)]
#[command(after_help = "Formats: text (default), json, yaml.\n\n\
Examples:\n  analyst chat \"Revenue last month\" -o ndjson | analyst extract-final\n  \
analyst extract-final runs/*.ndjson")]
pub struct ExtractFinalArgs {
    /// Saved NDJSON streams (stdin when none, or -)
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Accept the last complete assistant message with content when there is no final frame
    #[arg(long)]
    pub fallback: bool,
    /// Stop at the first malformed line instead of skipping it
    #[arg(long)]
    pub strict: bool,
    /// Output format (default: text)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ExtractFormat>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
}

// `analyst eval`.
#[derive(Debug, Args)]
#[command(after_help = "\
A suite (YAML):
  defaults: {session: {externalId: ci-bot}, timeout: 2m}
  cases:
    - name: revenue-2025
      question: Total revenue in 2025
      then: [\"And in 2024?\"]          # follow-ups in the same thread
      expect:
        answer_contains: [revenue]      # also answer_matches, answer_excludes
        number: {value: 3809438.61, tolerance: 0.005}
        sql_matches: 'SUM|MEASURE'
        tools: [dataSqlApi]
        rows: {min: 1, max: 100}
        no_tool_errors: true
        max_seconds: 30

--baseline reports cases that passed and now fail, changed answers, cases more than twice as
slow (and at least 1 s slower) and tokens up by more than half, each a line on stderr; only a
case that passed and now fails is a regression (it failed, so the run exits 1); the others alone
do not fail a run. --demo fixes the emulator's date at 2026-06-30, so expected numbers stay true.

Formats: table (default on a terminal), json (default otherwise), ndjson (a case per line as it
finishes), yaml. Exit status: 0 every case passed, 1 any failed; 2, 3 or 6 only
when no case got a stream at all.")]
pub struct EvalArgs {
    /// Suite files (YAML)
    #[arg(value_name = "SUITE", required = true)]
    pub suites: Vec<PathBuf>,
    /// Run only cases whose name this regex matches (anywhere in it)
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Cases run at once
    #[arg(short = 'j', long, value_name = "N", default_value_t = 4)]
    pub concurrency: usize,
    /// Run each case N times (reported as NAME#1, NAME#2, ...)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub repeat: usize,
    /// Also write JUnit XML to FILE
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Keep each case's raw stream as DIR/NAME.ndjson (DIR is created when missing)
    #[arg(long, value_name = "DIR")]
    pub save_dir: Option<PathBuf>,
    /// Compare with an earlier `-o json` result and report regressions
    #[arg(long, value_name = "RESULTS.json")]
    pub baseline: Option<PathBuf>,
    /// How often to resume a dropped stream, per turn
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,
    /// With no final frame in a stream, take the last complete assistant message
    #[arg(long)]
    pub fallback: bool,
    /// Talk to the built-in emulator, started in-process on a free loopback port
    #[arg(long, conflicts_with_all = ["url", "base_url"])]
    pub demo: bool,
    /// The date the --demo emulator resolves relative periods against, and where its sample
    /// data end, default 2026-06-30 for eval, so that suites of exact numbers stay true; e.g. 2025-06-15 (see `analyst serve --today`)
    #[arg(long, value_name = "DATE", requires = "demo")]
    pub today: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub identity: IdentityArgs,
    /// Output format (default: table on a terminal, else json)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<EvalFormat>,
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

// `analyst serve`.
#[derive(Debug, Args)]
#[command(after_help = "\
Fault specs (repeat --fault; each applies to chat, abort and SCIM requests alike unless on= says):
  drop-after=N          close the connection after N lines of a chat stream (the turn goes on)
  cut-after=N           as drop-after, but in the middle of line N+1: half a line, then the drop
  delay=DURATION        wait before answering, e.g. delay=2s
  status=CODE[xK|@P]    answer CODE (400-599) for the next K requests, or every round(1/P)-th
                        request for a fraction P (0..1]; plain status=CODE answers every request
  retry-after=SECS      send Retry-After with status faults (e.g. status=429x2,retry-after=1)
  malformed-after=N     write a line that is not JSON after N lines, then go on
  stall-after=N         stop writing after N lines without closing the connection
  suspend-after=N       send __suspended__ after N lines and pause the turn until the same
                        request (chatId, messageId) is sent again
  hold-after=N          the turn stops after N lines and waits until aborted
  times=K               the spec fires for its first K matching requests only
  on=chat|abort|scim    only these requests (repeat on= for several; default all)
Lines are counted from the first line of a response, __cutoff__ included. Several keys may be
joined with commas in one spec: --fault status=503x1,retry-after=0

Formats: text (default), json (one line with the URLs, credentials, users and attributes).

Examples:
  analyst serve
  coproc analyst serve --listen 127.0.0.1:0 -o json   # bash: serve in the background,
  read -r info <&\"${COPROC[0]}\"                       # read its one JSON line,
  jq -r .chatUrl <<<\"$info\"; kill \"$COPROC_PID\"       # use it, and stop the server
  analyst serve --pace 0 --fault drop-after=4,times=1 --fault status=429@0.5,retry-after=1")]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    pub listen: String,
    /// Account name in the chat URL
    #[arg(long, value_name = "NAME", default_value = "demo")]
    pub account: String,
    /// Agent id in the chat URL
    #[arg(long, value_name = "ID", default_value = "1")]
    pub agent: String,
    /// Read the API key clients must send from FILE (generated when absent)
    #[arg(long, value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// Read the SCIM token clients must send from FILE (generated when absent)
    #[arg(long, value_name = "FILE")]
    pub scim_token_file: Option<PathBuf>,
    /// Semantic model (YAML) instead of the built-in one
    #[arg(long, value_name = "FILE.yaml")]
    pub model: Option<PathBuf>,
    /// Your data instead of the built-in sample: one SQLite file, or CSV files (repeat: one
    /// table per file, named after it; a header row required); a model is inferred without --model
    #[arg(long, value_name = "FILE.sqlite|FILE.csv")]
    pub data: Vec<PathBuf>,
    /// Write the built-in sample shop, as the demo sees it on --today (default: the real
    /// date), to a new SQLite file and exit
    #[arg(long, value_name = "FILE.sqlite", conflicts_with_all = ["data", "model", "token_for"])]
    pub write_sample: Option<PathBuf>,
    /// Delay between frames of a stream, e.g. 20ms
    #[arg(long, value_name = "DURATION", default_value = "15ms")]
    pub pace: String,
    /// Inject a failure (see below; repeat)
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// Wire variant to speak: the service's document, the vendor's examples, older servers
    #[arg(long, value_enum, value_name = "DIALECT", default_value = "seed")]
    pub dialect: DialectArg,
    /// The date relative periods ("last month") resolve against, e.g. 2025-06-15 (default: today)
    #[arg(long, value_name = "DATE")]
    pub today: Option<String>,
    /// Read the HS256 secret of tokens (data API, token auth) from FILE (generated when absent)
    #[arg(long, value_name = "FILE")]
    pub data_secret_file: Option<PathBuf>,
    /// Print a data API token for USER signed with --data-secret-file's secret, and exit
    #[arg(long, value_name = "USER", requires = "data_secret_file")]
    pub token_for: Option<String>,
    /// A user attribute of --token-for's token (repeat; several values of one name: any of them)
    #[arg(long = "attr", value_name = "NAME=VALUE", requires = "token_for")]
    pub attrs: Vec<String>,
    /// Output format of the start-up report (default: text)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<ReportFormat>,
    /// Log a line per request answered on stderr (repeat for more)
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub look: LookArgs,
    /// Also start with N synthetic SCIM users (user000001@example.com, ...; for paging tests)
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(..=200_000))]
    pub scim_users: u32,
    /// A YAML or JSON document whose `users:` and `groups:` are the SCIM users and groups to
    /// start with, instead of the sample's
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
}

// `analyst sql`.
#[derive(Debug, Args)]
#[command(after_help = "\
The query comes from QUERY, stdin (-), or the SQL tool calls of an answer: --from a saved stream
(chat --save or -o ndjson; - for stdin) or --chat-id/-c (the thread's state). --pick N takes the
N-th (default the last), --all runs each in turn, --list shows them and sends nothing.

Formats: table (default on a terminal), csv (default otherwise), tsv, ndjson, json, yaml.

Examples:
  analyst sql 'SELECT status, MEASURE(count) FROM orders GROUP BY 1'
  analyst sql --from run.ndjson -o csv > all.csv
  analyst sql --from run.ndjson --list
  analyst sql -c --pick 2 --limit 1000 -o ndjson

Exit status: 0 every row written (or --limit reached); 1 an error line from the service (the rows
already written stay) or 5xx; 2 usage or a 400 (the service's message is shown); 3 the token was
refused (401, 403); 6 network; 130 interrupted (the query is cancelled on the service).")]
pub struct SqlArgs {
    /// The SQL; - reads it from stdin
    #[arg(value_name = "QUERY", conflicts_with_all = ["from", "chat_id", "continue_last"])]
    pub query: Option<String>,
    /// Take the SQL from a saved chat stream (FILE, or - for stdin)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["chat_id", "continue_last"])]
    pub from: Option<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArgs,
    /// Which SQL of the answer to run, from 1 (default: the last)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          conflicts_with_all = ["all", "list"])]
    pub pick: Option<u32>,
    /// Run every SQL of the answer, one after another
    #[arg(long, conflicts_with = "list")]
    pub all: bool,
    /// List the SQL of the answer (index, title, rows shown, totalRows) and send nothing
    #[arg(long)]
    pub list: bool,
    /// Stop after N rows and cancel the query on the service
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Cache policy of the query
    #[arg(long, value_name = "POLICY")]
    pub cache: Option<CachePolicy>,
    /// Rows shown in a table (then a count); 0 = all
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub rows: usize,
    /// csv and tsv: no header row
    #[arg(long)]
    pub no_header: bool,
    /// Run against the built-in emulator, started in-process (--from a --demo run works)
    #[arg(long, conflicts_with_all = ["url", "base_url", "data_url"])]
    pub demo: bool,
    /// The date the --demo emulator resolves relative periods against, and where its sample
    /// data end, e.g. 2025-06-15 (see `analyst serve --today`)
    #[arg(long, value_name = "DATE", requires = "demo")]
    pub today: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub data: DataArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub service: ServiceArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub identity: IdentityArgs,
    /// Output format (default: table on a terminal, else csv)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<SqlFormat>,
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

// Where the data query API is and how to sign in to it: `sql`, and `mcp`'s `run_sql`.
#[derive(Debug, Args)]
pub struct DataArgs {
    /// Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets
    /// /cubejs-api appended) [env: ANALYST_DATA_URL]
    #[arg(long, value_name = "URL", help_heading = "Data API")]
    pub data_url: Option<String>,
    /// Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the
    /// token itself; with token auth the chat token is the default
    #[arg(long, value_name = "FILE", help_heading = "Data API")]
    pub data_token_file: Option<PathBuf>,
}

/// `--cache` values of the data query API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CachePolicy {
    /// Serve from cache when the query is slow
    StaleIfSlow,
    /// Serve from cache and refresh in the background
    StaleWhileRevalidate,
    /// Always check freshness first
    MustRevalidate,
    /// Bypass the cache
    NoCache,
}

impl CachePolicy {
    /// The value as sent in the body.
    pub fn wire(self) -> &'static str {
        match self {
            CachePolicy::StaleIfSlow => "stale-if-slow",
            CachePolicy::StaleWhileRevalidate => "stale-while-revalidate",
            CachePolicy::MustRevalidate => "must-revalidate",
            CachePolicy::NoCache => "no-cache",
        }
    }
}

// `analyst completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}
