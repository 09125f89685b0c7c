//! `analyst scim groups get|add-member|remove-member`: a group read by id or displayName, and
//! its members changed with one PATCH, users named by id or by userName.

use super::super::Ctx;
use super::targets::{Target, Targets};
use super::users::{client, runtime};
use crate::cli::{Format, ScimGroupsGetArgs, ScimMembersArgs};
use crate::client::scim::groups::{Change, member_ids, membership_patch};
use crate::client::scim::{Failed, Resource, ScimClient, id_of};
use crate::exit::{Status, fail, usage};
use crate::render::scim_list::{Kind, ListFormat, ListWriter, write_group_table};
use crate::render::{pick_format, write_document};
use anyhow::Result;
use futures_util::stream::{self, StreamExt};
use serde_json::{Map, Value, json};
use std::io::Write;

/// `scim groups get`.
pub fn get(ctx: &Ctx, args: ScimGroupsGetArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[
            Format::Table,
            Format::Ndjson,
            Format::Json,
            Format::Yaml,
            Format::Csv,
        ],
        Format::Table,
        Format::Json,
        "scim groups get",
    )?;
    let client = client(ctx, &args.service)?;
    let which = group_of(args.id.as_deref(), args.group_name.as_deref())?;
    if ctx.global.dry_run {
        super::super::write_dry_run(ctx.global.output, &[which.request(&client).log()])?;
        return Ok(Status::Success);
    }
    let group = runtime()?
        .block_on(which.read(&client))
        .map_err(|f| fail(f.exit, f.message))?;
    let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
    match format {
        Format::Table => write_group_table(&mut out, &group, ctx.out_style)?,
        Format::Json | Format::Yaml => write_document(&mut out, &group, format)?,
        f => {
            let lf = ListFormat::of(f).unwrap_or(ListFormat::Ndjson);
            let mut w = ListWriter::new(&mut out, lf, Kind::Groups, ctx.out_style);
            w.push(&group)?;
            w.finish()?;
        }
    }
    out.flush()?;
    Ok(Status::Success)
}

/// A group as the command line names it.
enum Which {
    Id(String),
    Name(String),
}

fn group_of(id: Option<&str>, name: Option<&str>) -> Result<Which> {
    match (id.map(str::trim), name.map(str::trim)) {
        (Some(id), None) if !id.is_empty() && id != "." && id != ".." => {
            Ok(Which::Id(id.to_owned()))
        }
        (None, Some(name)) if !name.is_empty() => Ok(Which::Name(name.to_owned())),
        (Some(id), None) => Err(usage(format!("{id:?} is not a group id"))),
        (None, Some(_)) => Err(usage("--group-name is empty")),
        _ => Err(usage("name the group: its id, or --group-name NAME")),
    }
}

impl Which {
    fn request(&self, client: &ScimClient) -> crate::client::scim::Request {
        match self {
            Which::Id(id) => client.get_request(Resource::Groups, id, None),
            Which::Name(name) => client.find_request(Resource::Groups, name),
        }
    }

    /// The Group, read by id or found by displayName.
    async fn read(&self, client: &ScimClient) -> Result<Value, Failed> {
        match self {
            Which::Id(_) => client.get(&self.request(client), Resource::Groups, 0).await,
            Which::Name(name) => client.find(Resource::Groups, name, 0).await,
        }
    }
}

/// What became of one user of a membership change.
struct Outcome {
    id: Option<String>,
    user_name: Option<String>,
    /// "added", "removed", "already a member", "not a member", or the failure.
    result: Result<&'static str, Failed>,
}

impl Outcome {
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        if let Some(n) = &self.user_name {
            m.insert("userName".into(), json!(n));
        }
        match &self.result {
            Ok(r) => m.insert("result".into(), json!(r)),
            Err(f) => {
                m.insert("status".into(), json!(f.status));
                m.insert("error".into(), json!(f.message))
            }
        };
        Value::Object(m)
    }
}

/// `scim groups add-member` and `remove-member`.
pub fn members(ctx: &Ctx, args: ScimMembersArgs, change: Change) -> Result<Status> {
    let command = match change {
        Change::Add => "scim groups add-member",
        Change::Remove => "scim groups remove-member",
    };
    let format = pick_format(
        ctx.global.output,
        &[Format::Table, Format::Json, Format::Ndjson, Format::Yaml],
        Format::Table,
        Format::Json,
        command,
    )?;
    if args.concurrency == 0 {
        return Err(usage("-j/--concurrency must be at least 1"));
    }
    let (which, user_ids) = match &args.group_name {
        Some(name) => (group_of(None, Some(name))?, &args.args[..]),
        None => match args.args.split_first() {
            Some((group, users)) => (group_of(Some(group), None)?, users),
            None => return Err(usage("name the group: its id, or --group-name NAME")),
        },
    };
    if user_ids.is_empty() && args.user_names.is_empty() {
        return Err(usage(
            "name the users: their ids after GROUP (or after --group-name NAME), or --user-name NAME",
        ));
    }
    let targets = Targets::gather(user_ids, None, &args.user_names)?;
    let client = client(ctx, &args.service)?;
    if ctx.global.dry_run {
        return dry_run(ctx, &client, &which, &targets, change);
    }
    let status = runtime()?.block_on(change_members(
        ctx,
        &client,
        &which,
        targets,
        change,
        args.concurrency,
        format,
    ))?;
    Ok(status)
}

/// Every request the change would send, ids that only lookups can tell shown as `<id of NAME>`.
fn dry_run(
    ctx: &Ctx,
    client: &ScimClient,
    which: &Which,
    targets: &Targets,
    change: Change,
) -> Result<Status> {
    let mut requests = vec![which.request(client).log()];
    let mut ids = Vec::new();
    for t in &targets.list {
        match t {
            Target::Id(id) => ids.push(id.clone()),
            Target::UserName(name) => {
                requests.push(client.lookup_request(name).log());
                ids.push(format!("<id of {name}>"));
            }
        }
    }
    let op = membership_patch(change, &ids);
    requests.push(match which {
        Which::Id(id) => client.group_patch_request(id, &op).log(),
        Which::Name(name) => {
            // The URL shows the stand-in as is, not percent-encoded.
            let placeholder = "ID";
            let mut log = client.group_patch_request(placeholder, &op).log();
            let base = client
                .resource_url(Resource::Groups, placeholder)
                .to_string();
            let stand_in = format!("{}<id of {name}>", &base[..base.len() - placeholder.len()]);
            log.url = log.url.replacen(&base, &stand_in, 1);
            log
        }
    });
    super::super::write_dry_run(ctx.global.output, &requests)?;
    if !ctx.global.quiet {
        crate::term::diag(format_args!(
            "analyst: dry run: nothing was sent; the PATCH lists every user, though users already \
             in (or out of) the group would be left out of it"
        ));
    }
    Ok(Status::Success)
}

async fn change_members(
    ctx: &Ctx,
    client: &ScimClient,
    which: &Which,
    targets: Targets,
    change: Change,
    concurrency: usize,
    format: Format,
) -> Result<Status> {
    let say = |text: &str| {
        if !ctx.global.quiet {
            crate::term::diag(format_args!("analyst: {text}"));
        }
    };
    let group = which
        .read(client)
        .await
        .map_err(|f| fail(f.exit, f.message))?;
    let group_id = id_of(&group)
        .ok_or_else(|| fail(Status::Failure, "the group the server sent has no id"))?;
    let group_label = group
        .get("displayName")
        .and_then(Value::as_str)
        .map_or_else(|| format!("group {group_id}"), |n| format!("group {n:?}"));
    let before = member_ids(&group);
    // Resolve userNames, a few at a time; ids stand as given.
    let total = targets.list.len();
    let mut outcomes: Vec<Outcome> = stream::iter(targets.list.into_iter().enumerate())
        .map(|(n, t)| async move {
            match t {
                Target::Id(id) => Outcome {
                    id: Some(id),
                    user_name: None,
                    result: Ok(""),
                },
                Target::UserName(name) => match client.find_user(&name, n as u64).await {
                    Ok(id) => Outcome {
                        id: Some(id),
                        user_name: Some(name),
                        result: Ok(""),
                    },
                    Err(f) => Outcome {
                        id: None,
                        user_name: Some(name),
                        result: Err(f),
                    },
                },
            }
        })
        .buffered(concurrency)
        .collect()
        .await;
    // Who needs the PATCH: not yet in (add), still in (remove); each id once.
    let mut to_change: Vec<String> = Vec::new();
    for o in &mut outcomes {
        let (Some(id), Ok(_)) = (&o.id, &o.result) else {
            continue;
        };
        let is_member = before.contains(id);
        let who = match &o.user_name {
            Some(n) => format!("user {id} ({n})"),
            None => format!("user {id}"),
        };
        match (change, is_member) {
            (Change::Add, true) => {
                say(&format!("{who} is already a member of {group_label}"));
                o.result = Ok("already a member");
            }
            (Change::Remove, false) => {
                say(&format!("{who} is not a member of {group_label}"));
                o.result = Ok("not a member");
            }
            _ if to_change.contains(id) => o.result = Ok("repeated"),
            _ => to_change.push(id.clone()),
        }
    }
    if !to_change.is_empty() {
        let req = client.group_patch_request(&group_id, &membership_patch(change, &to_change));
        let done = match change {
            Change::Add => "added",
            Change::Remove => "removed",
        };
        let answer = client.patch_group(&req, 0).await;
        for o in &mut outcomes {
            let Some(id) = &o.id else { continue };
            if !to_change.contains(id) || o.result.as_ref().is_ok_and(|r| *r == "repeated") {
                continue;
            }
            o.result = match &answer {
                Err(f) => Err(f.clone()),
                Ok(p) => match p.user.as_ref().map(member_ids) {
                    // A Group sent back that still says otherwise: the change did not happen.
                    Some(after) if after.contains(id) != (change == Change::Add) => Err(Failed {
                        status: Some(p.status),
                        exit: Status::Failure,
                        message: format!(
                            "HTTP {} but the group sent back {} user {id}",
                            p.status,
                            if change == Change::Add {
                                "does not list"
                            } else {
                                "still lists"
                            }
                        ),
                    }),
                    _ => Ok(done),
                },
            };
        }
    }
    outcomes.retain(|o| !o.result.as_ref().is_ok_and(|r| *r == "repeated"));
    let mut status = Status::Success;
    let mut ok = 0;
    for o in &outcomes {
        match &o.result {
            Ok(_) => ok += 1,
            Err(f) => {
                let who = match (&o.id, &o.user_name) {
                    (Some(id), _) => format!("user {id}: "),
                    _ => String::new(),
                };
                crate::term::diag(format_args!(
                    "analyst: {}",
                    ctx.err_style.red(&format!("{who}{}", f.message))
                ));
                status = status.worst(f.exit);
            }
        }
    }
    write_outcomes(ctx, &outcomes, format)?;
    if total > 1 {
        let verb = match change {
            Change::Add => "in",
            Change::Remove => "out of",
        };
        crate::term::diag(format_args!(
            "analyst: {ok} of {} users {verb} {group_label}{}",
            outcomes.len(),
            if ok < outcomes.len() {
                format!("; {} failed", outcomes.len() - ok)
            } else {
                String::new()
            }
        ));
        if status != Status::Success {
            status = Status::Failure;
        }
    }
    Ok(status)
}

fn write_outcomes(ctx: &Ctx, outcomes: &[Outcome], format: Format) -> Result<()> {
    let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
    match format {
        Format::Ndjson => {
            for o in outcomes {
                serde_json::to_writer(&mut out, &o.to_json())?;
                out.write_all(b"\n")?;
            }
        }
        Format::Json | Format::Yaml => write_document(
            &mut out,
            &Value::Array(outcomes.iter().map(Outcome::to_json).collect()),
            format,
        )?,
        _ => {
            let mut t = crate::render::table(ctx.out_style);
            t.set_header(crate::render::headers(
                ctx.out_style,
                ["ID", "USERNAME", "RESULT"],
            ));
            for o in outcomes {
                let result = match &o.result {
                    Ok(r) => (*r).to_owned(),
                    Err(f) => f.message.clone(),
                };
                t.add_row(
                    [
                        o.id.as_deref().unwrap_or("-"),
                        o.user_name.as_deref().unwrap_or(""),
                        &result,
                    ]
                    .map(|c| crate::term::visible(c).into_owned())
                    .to_vec(),
                );
            }
            crate::render::write_table(&mut out, &mut t)?;
        }
    }
    Ok(out.flush()?)
}
