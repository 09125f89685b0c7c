//! `analyst scim patch`: PATCH SCIM users by id or userName, many at once, with retries of
//! throttled requests, one result per user, and a status that says whether all succeeded.

mod by_filter;
pub(super) mod groups;
pub(super) mod ops;
mod targets;
pub(super) mod users;

use super::Ctx;
use crate::cli::{Format, ScimPatchArgs};
use crate::client::scim::{Failed, PatchSpec, Patched, RetryPolicy, ScimClient};
use crate::exit::{Status, usage};
use crate::protocol::scim::User;
use crate::render::pick_format;
use crate::render::scim::{PatchResult, summary, write_all, write_ndjson};
use crate::term::Style;
use anyhow::Result;
use futures_util::stream::{self, StreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use ops::PatchFlag;
use std::collections::HashSet;
use std::io::Write;
use std::sync::Mutex;
use targets::{Target, Targets};

/// `scim patch`: `flags` are its operation flags in command-line order.
pub fn patch(ctx: &Ctx, args: ScimPatchArgs, flags: &[PatchFlag]) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Table, Format::Json, Format::Ndjson, Format::Yaml],
        Format::Table,
        Format::Json,
        "scim patch",
    )?;
    if args.concurrency == 0 {
        return Err(usage("-j/--concurrency must be at least 1"));
    }
    check_one_stdin(&args)?;
    if args
        .if_match
        .as_deref()
        .is_some_and(|e| reqwest::header::HeaderValue::from_str(e).is_err())
    {
        return Err(usage(
            "--if-match: the ETag holds characters an HTTP header cannot carry",
        ));
    }
    let op = ops::patch_op(&args, flags)?;
    let expected_active = op.active_after();
    let targets = match &args.filter {
        Some(_) => {
            by_filter::check(ctx, args.yes)?;
            None
        }
        None => Some(Targets::gather(
            &args.ids,
            args.ids_from.as_deref(),
            &args.user_names,
        )?),
    };
    let resolver = ctx.resolver()?;
    let http = super::args::http(&resolver, &ctx.global)?;
    let settings = resolver.scim(args.scim_url.as_deref(), args.scim_token_file.as_deref())?;
    let client = ScimClient::new(http, &settings, RetryPolicy::new(args.retries))?;
    let targets = match (targets, &args.filter) {
        (Some(t), _) => t,
        (None, Some(filter)) => match by_filter::targets(ctx, &client, filter, args.yes)? {
            Some(t) => t,
            None => return Ok(Status::Success),
        },
        (None, None) => unreachable!("targets come from ids or a filter"),
    };
    let spec = PatchSpec {
        body: serde_json::to_vec(&op)?,
        if_match: args.if_match.clone(),
        attributes: args.attributes.clone(),
    };
    if targets.duplicates > 0 && !ctx.global.quiet {
        crate::term::diag(format_args!(
            "analyst: {} repeated id{} or userName{} skipped (each user is patched once)",
            targets.duplicates,
            if targets.duplicates == 1 { "" } else { "s" },
            if targets.duplicates == 1 { "" } else { "s" },
        ));
    }
    if ctx.global.dry_run {
        return dry_run(ctx, &client, &spec, &targets);
    }
    let run = Run {
        client: &client,
        spec: &spec,
        expected_active,
        format,
        concurrency: args.concurrency,
        out_style: ctx.out_style,
        say: Say::new(ctx, targets.list.len()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run.all(targets))
}

/// stdin can feed one thing only.
fn check_one_stdin(args: &ScimPatchArgs) -> Result<()> {
    let mut readers = Vec::new();
    if args
        .ids_from
        .as_deref()
        .is_some_and(|p| p.as_os_str() == "-")
    {
        readers.push("--ids-from");
    }
    if args
        .body
        .as_deref()
        .is_some_and(|b| matches!(b.trim(), "-" | "@-"))
    {
        readers.push("--body");
    }
    if args
        .scim_token_file
        .as_deref()
        .is_some_and(|p| p.as_os_str() == "-")
    {
        readers.push("--scim-token-file");
    }
    if readers.len() > 1 {
        return Err(usage(format!(
            "{} all read stdin (-); only one of them can",
            readers.join(" and ")
        )));
    }
    Ok(())
}

/// `--dry-run`: every request that would be sent, token masked, and nothing sent. A userName's
/// PATCH goes to an id only its lookup can tell, shown as `<id of NAME>`.
/// With `-o json` one request is one object and several are an array; `-o ndjson` is one line each.
fn dry_run(ctx: &Ctx, client: &ScimClient, spec: &PatchSpec, targets: &Targets) -> Result<Status> {
    let placeholder = "ID";
    let base = client.user_url(placeholder).to_string();
    let mut names = 0;
    let mut requests = Vec::new();
    for target in &targets.list {
        match target {
            Target::Id(id) => requests.push(client.patch_request(id, spec).log()),
            Target::UserName(name) => {
                names += 1;
                requests.push(client.lookup_request(name).log());
                let mut log = client.patch_request(placeholder, spec).log();
                let stand_in = format!("{}<id of {name}>", &base[..base.len() - placeholder.len()]);
                log.url = log.url.replacen(&base, &stand_in, 1);
                requests.push(log);
            }
        }
    }
    super::write_dry_run(ctx.global.output, &requests)?;
    if names > 0 && !ctx.global.quiet {
        crate::term::diag(format_args!(
            "analyst: dry run: nothing was sent; <id of NAME> stands for the id the userName \
             lookup would find"
        ));
    }
    Ok(Status::Success)
}

/// Messages on stderr, kept clear of the progress bar.
struct Say {
    bar: Option<ProgressBar>,
    quiet: bool,
    style: Style,
}

impl Say {
    fn new(ctx: &Ctx, total: usize) -> Say {
        // A bar for one user is noise; for many it is only for a person watching a terminal.
        let bar = (ctx.chatty() && total > 1).then(|| {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{spinner} {pos}/{len} users {wide_bar} {eta}")
            {
                bar.set_style(style);
            }
            bar
        });
        Say {
            bar,
            quiet: ctx.global.quiet,
            style: ctx.err_style,
        }
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| crate::term::diag(format_args!("{text}"))),
            None => crate::term::diag(format_args!("{text}")),
        }
    }

    fn error(&self, text: &str) {
        self.line(&format!("analyst: {}", self.style.red(text)));
    }

    fn note(&self, text: &str) {
        if !self.quiet {
            self.line(&format!("analyst: {text}"));
        }
    }

    fn tick(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Who a target is, once looked up.
enum Resolved {
    /// Patch this id (and the userName it came from).
    User(String, Option<String>),
    /// A userName of a user already in the run: patched once, so skipped.
    Duplicate,
    /// The lookup failed: this is the user's result.
    Failed(PatchResult),
}

/// One run over many users.
struct Run<'a> {
    client: &'a ScimClient,
    spec: &'a PatchSpec,
    expected_active: Option<bool>,
    format: Format,
    concurrency: usize,
    out_style: Style,
    say: Say,
}

impl Run<'_> {
    /// Patch every target with `concurrency` requests in flight. The stream pulls targets
    /// lazily, so a huge list never becomes a huge set of futures; NDJSON lines are written as
    /// each user finishes, every other format once all have.
    async fn all(&self, targets: Targets) -> Result<Status> {
        let total = targets.list.len();
        let single = total == 1;
        // Ids given directly are claimed up front; a userName that resolves to a claimed id is
        // the same user and is not patched a second time.
        let claimed = Mutex::new(targets.ids);
        let mut results = stream::iter(targets.list.into_iter().enumerate())
            .map(|(seq, target)| self.one(seq, target, &claimed))
            .buffer_unordered(self.concurrency);
        let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
        let mut kept = Vec::new();
        let (mut rows, mut ok) = (0usize, 0usize);
        let mut status = Status::Success;
        while let Some(result) = results.next().await {
            self.say.tick();
            let Some(result) = result else { continue };
            rows += 1;
            if result.ok() {
                ok += 1;
            } else {
                status = status.worst(result.exit);
            }
            if self.format == Format::Ndjson {
                // A closed stdout stops the run here: the error is a broken pipe, which ends
                // the program quietly with 0, and no further users are patched.
                write_ndjson(&mut out, &result)?;
            } else {
                kept.push(result);
            }
        }
        self.say.done();
        kept.sort_by_key(|r| r.seq);
        write_all(&mut out, &kept, self.format, single, self.out_style)?;
        out.flush()?;
        if !single {
            self.say.line(&format!("analyst: {}", summary(ok, rows)));
            if status != Status::Success {
                status = Status::Failure;
            }
        }
        Ok(status)
    }

    /// Who a target is: an id as given, or the id a userName looks up to (unless that user is
    /// already in the run), or the failed lookup's result.
    async fn resolve(
        &self,
        seq: usize,
        target: Target,
        claimed: &Mutex<HashSet<String>>,
    ) -> Resolved {
        let salt = seq as u64;
        match target {
            Target::Id(id) => Resolved::User(id, None),
            Target::UserName(name) => match self.client.find_user(&name, salt).await {
                Ok(id) => {
                    let fresh = claimed
                        .lock()
                        .map(|mut set| set.insert(id.clone()))
                        .unwrap_or(true);
                    if !fresh {
                        self.say.note(&format!(
                            "userName {name:?} is user {id}, already in this run; patched once"
                        ));
                        return Resolved::Duplicate;
                    }
                    Resolved::User(id, Some(name))
                }
                Err(f) => {
                    self.say.error(&f.message);
                    Resolved::Failed(PatchResult {
                        seq,
                        id: None,
                        user_name: Some(name),
                        status: f.status,
                        user: None,
                        error: Some(f.message),
                        exit: f.exit,
                    })
                }
            },
        }
    }

    /// The patch's outcome into the user's result; a user the server still reports with the
    /// wrong `active` is a failure.
    fn record(&self, result: &mut PatchResult, outcome: Result<Patched, Failed>) {
        match outcome {
            Ok(patched) => {
                result.status = Some(patched.status);
                let active = patched
                    .user
                    .as_ref()
                    .and_then(User::from_value)
                    .and_then(|u| u.active.0);
                if let (Some(want), Some(got)) = (self.expected_active, active)
                    && want != got
                {
                    result.error = Some(format!(
                        "HTTP {} but the server still reports active: {got}",
                        patched.status
                    ));
                    result.exit = Status::Failure;
                }
                result.user = patched.user;
            }
            Err(f) => {
                result.status = f.status;
                result.error = Some(f.message);
                result.exit = f.exit;
            }
        }
    }

    /// Look up (for a userName) and patch one user; `None` when a userName turned out to be a
    /// user already in the run.
    async fn one(
        &self,
        seq: usize,
        target: Target,
        claimed: &Mutex<HashSet<String>>,
    ) -> Option<PatchResult> {
        let salt = seq as u64;
        let (id, user_name) = match self.resolve(seq, target, claimed).await {
            Resolved::User(id, user_name) => (id, user_name),
            Resolved::Duplicate => return None,
            Resolved::Failed(result) => return Some(result),
        };
        let label = match &user_name {
            Some(name) => format!("user {id} (userName {name:?})"),
            None => format!("user {id}"),
        };
        let outcome = self.client.patch(&id, self.spec, salt).await;
        let mut result = PatchResult {
            seq,
            id: Some(id),
            user_name,
            status: None,
            user: None,
            error: None,
            exit: Status::Success,
        };
        self.record(&mut result, outcome);
        if let Some(e) = &result.error {
            self.say.error(&format!("{label}: {e}"));
        }
        Some(result)
    }
}
