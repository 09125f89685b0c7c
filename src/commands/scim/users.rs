//! `analyst scim users list|get` and `scim groups list`: a list streamed page by page, and
//! users read by id or userName.

use super::super::Ctx;
use crate::cli::{Format, ScimListArgs, ScimServiceArgs, ScimUsersGetArgs, ScimUsersListArgs};
use crate::client::scim::{Failed, ListQuery, Pager, Resource, RetryPolicy, ScimClient};
use crate::exit::{Status, fail, usage};
use crate::render::scim_list::{Kind, ListFormat, ListWriter};
use crate::render::{pick_format, write_document};
use anyhow::Result;
use serde_json::Value;
use std::collections::HashSet;
use std::io::Write;

const LIST_FORMATS: &[Format] = &[
    Format::Table,
    Format::Ndjson,
    Format::Json,
    Format::Yaml,
    Format::Csv,
];

/// The client of a SCIM command: the resolved root and token, the command's HTTP settings.
pub(super) fn client(ctx: &Ctx, service: &ScimServiceArgs) -> Result<ScimClient> {
    let resolver = ctx.resolver()?;
    let http = super::super::args::http(&resolver, &ctx.global)?;
    let settings = resolver.scim(
        service.scim_url.as_deref(),
        service.scim_token_file.as_deref(),
    )?;
    ScimClient::new(http, &settings, RetryPolicy::new(service.retries))
}

pub(super) fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// What a list asks for, checked.
pub(super) fn list_query(list: &ScimListArgs, attributes: Option<String>) -> Result<ListQuery> {
    if list.count == Some(0) && list.all {
        return Err(usage(
            "--count 0 with --all would read no page but the first: give a page size of 1 or more",
        ));
    }
    if list.start_index == Some(0) {
        return Err(usage("--start-index counts from 1"));
    }
    Ok(ListQuery {
        filter: list.filter.clone(),
        start_index: list.start_index,
        count: list.count,
        attributes,
    })
}

/// `scim users list`.
pub fn users_list(ctx: &Ctx, args: ScimUsersListArgs) -> Result<Status> {
    let format = if args.ids {
        ListFormat::Ids
    } else {
        let f = pick_format(
            ctx.global.output,
            LIST_FORMATS,
            Format::Table,
            Format::Ndjson,
            "scim users list",
        )?;
        ListFormat::of(f).unwrap_or(ListFormat::Ndjson)
    };
    let query = list_query(&args.list, args.attributes.clone())?;
    list(
        ctx,
        Resource::Users,
        query,
        args.list.all,
        &args.service,
        format,
    )
}

/// `scim groups list`.
pub fn groups_list(ctx: &Ctx, args: crate::cli::ScimGroupsListArgs) -> Result<Status> {
    let f = pick_format(
        ctx.global.output,
        LIST_FORMATS,
        Format::Table,
        Format::Ndjson,
        "scim groups list",
    )?;
    let format = ListFormat::of(f).unwrap_or(ListFormat::Ndjson);
    let query = list_query(&args.list, args.attributes.clone())?;
    list(
        ctx,
        Resource::Groups,
        query,
        args.list.all,
        &args.service,
        format,
    )
}

fn kind_of(r: Resource) -> Kind {
    match r {
        Resource::Users => Kind::Users,
        Resource::Groups => Kind::Groups,
    }
}

/// "3 users came twice across pages; each printed once".
pub(super) fn repeats_note(duplicates: u64, noun: &str) -> String {
    let s = if duplicates == 1 { "" } else { "s" };
    format!(
        "warning: {duplicates} {noun}{s} came twice across pages (the server's paging shifted or \
         repeats itself); each printed once"
    )
}

/// A list, printed page by page as the pages arrive.
fn list(
    ctx: &Ctx,
    kind: Resource,
    query: ListQuery,
    all: bool,
    service: &ScimServiceArgs,
    format: ListFormat,
) -> Result<Status> {
    let client = client(ctx, service)?;
    let mut pager = Pager::new(&client, kind, query, all);
    if ctx.global.dry_run {
        super::super::write_dry_run(ctx.global.output, &[pager.request().log()])?;
        if all && !ctx.global.quiet {
            crate::term::diag(format_args!(
                "analyst: dry run: nothing was sent; --all would go on with the next startIndex \
                 until totalResults are read"
            ));
        }
        return Ok(Status::Success);
    }
    runtime()?.block_on(async {
        let out = std::io::BufWriter::new(crate::exit::stdout_lock());
        let mut w = ListWriter::new(out, format, kind_of(kind), ctx.out_style);
        let mut stopped: Option<Failed> = None;
        while let Some(page) = pager.next().await {
            match page {
                Ok(items) => {
                    for item in &items {
                        w.push_raw(item.raw.get(), item.id.as_deref())?;
                    }
                    // A closed stdout ends the walk here (a broken pipe: quietly, exit 0).
                    w.flush()?;
                }
                Err(f) => stopped = Some(f),
            }
        }
        w.finish()?;
        if pager.duplicates > 0 {
            crate::term::diag(format_args!(
                "analyst: {}",
                repeats_note(pager.duplicates, kind.noun())
            ));
        }
        if let Some(f) = stopped {
            return Err(fail(f.exit, f.message));
        }
        if !all
            && ctx.chatty()
            && let Some(total) = pager.total.filter(|&t| t > pager.read)
        {
            crate::term::diag(format_args!(
                "analyst: {} of {total} {}s shown; --all reads every page",
                pager.read,
                kind.noun()
            ));
        }
        Ok(Status::Success)
    })
}

/// `scim users get`.
pub fn users_get(ctx: &Ctx, args: ScimUsersGetArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        LIST_FORMATS,
        Format::Table,
        Format::Json,
        "scim users get",
    )?;
    // Each user once: ids as given, userNames case-insensitively.
    let mut seen = HashSet::new();
    let mut wanted: Vec<(bool, String)> = Vec::new();
    for id in &args.ids {
        let id = id.trim();
        if id.is_empty() || id == "." || id == ".." || id == "-" {
            return Err(usage(format!("{id:?} is not a user id")));
        }
        if seen.insert(format!("i{id}")) {
            wanted.push((false, id.to_owned()));
        }
    }
    for name in &args.user_names {
        let name = name.trim();
        if name.is_empty() {
            return Err(usage("--user-name is empty"));
        }
        if seen.insert(format!("n{}", name.to_lowercase())) {
            wanted.push((true, name.to_owned()));
        }
    }
    let client = client(ctx, &args.service)?;
    let attributes = args.attributes.as_deref();
    if ctx.global.dry_run {
        let requests: Vec<_> = wanted
            .iter()
            .map(|(by_name, w)| {
                if *by_name {
                    client.find_request(Resource::Users, w).log()
                } else {
                    client.get_request(Resource::Users, w, attributes).log()
                }
            })
            .collect();
        super::super::write_dry_run(ctx.global.output, &requests)?;
        return Ok(Status::Success);
    }
    let single = wanted.len() == 1;
    let mut found: Vec<Value> = Vec::new();
    let mut status = Status::Success;
    let rt = runtime()?;
    for (n, (by_name, w)) in wanted.iter().enumerate() {
        let salt = n as u64;
        let got = rt.block_on(async {
            if !*by_name {
                return client
                    .get(
                        &client.get_request(Resource::Users, w, attributes),
                        Resource::Users,
                        salt,
                    )
                    .await;
            }
            let user = client.find(Resource::Users, w, salt).await?;
            match (attributes, crate::client::scim::id_of(&user)) {
                // The lookup answered every attribute; --attributes asks the user itself.
                (Some(a), Some(id)) => {
                    client
                        .get(
                            &client.get_request(Resource::Users, &id, Some(a)),
                            Resource::Users,
                            salt,
                        )
                        .await
                }
                _ => Ok(user),
            }
        });
        match got {
            Ok(v) => found.push(v),
            Err(f) if single => return Err(fail(f.exit, f.message)),
            Err(f) => {
                let label = if *by_name {
                    format!("userName {w:?}")
                } else {
                    format!("user {w}")
                };
                let message = if f.message.contains(w.as_str()) {
                    f.message
                } else {
                    format!("{label}: {}", f.message)
                };
                crate::term::diag(format_args!("analyst: {}", ctx.err_style.red(&message)));
                status = Status::Failure;
            }
        }
    }
    let mut out = std::io::BufWriter::new(crate::exit::stdout_lock());
    match (format, single) {
        (Format::Json | Format::Yaml, true) => {
            if let Some(user) = found.first() {
                write_document(&mut out, user, format)?;
            }
        }
        _ => {
            let lf = ListFormat::of(format).unwrap_or(ListFormat::Json);
            let mut w = ListWriter::new(&mut out, lf, Kind::Users, ctx.out_style);
            for user in &found {
                w.push(user)?;
            }
            w.finish()?;
        }
    }
    out.flush()?;
    if !single && status != Status::Success {
        crate::term::diag(format_args!(
            "analyst: read {} of {} users",
            found.len(),
            wanted.len()
        ));
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_are_counted_in_words() {
        assert!(repeats_note(3, "user").starts_with("warning: 3 users came twice"));
        assert!(repeats_note(1, "group").starts_with("warning: 1 group came twice"));
    }
}
