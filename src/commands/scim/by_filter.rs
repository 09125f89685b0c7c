//! `scim patch --filter EXPR`: the users a filter matches, found as `scim users list --filter
//! EXPR --all` finds them, shown and confirmed before anything is patched.

use super::super::Ctx;
use super::targets::{Target, Targets};
use crate::client::scim::{ListQuery, Pager, Resource, ScimClient};
use crate::exit::{Status, fail, usage};
use anyhow::Result;
use serde_json::Value;
use std::io::{BufRead, IsTerminal};

/// How many userNames the confirmation shows before "and N more".
const SHOWN: usize = 5;

/// Whether a person can be asked: stdin and stderr are terminals.
fn can_ask(ctx: &Ctx) -> bool {
    ctx.stderr_is_terminal && std::io::stdin().is_terminal()
}

/// Refuse, before anything is sent, a run that could patch many users with no one asked.
pub(super) fn check(ctx: &Ctx, yes: bool) -> Result<()> {
    if !yes && !ctx.global.dry_run && !can_ask(ctx) {
        return Err(usage(
            "--filter patches every user it matches, and there is no terminal to confirm on: \
             add --yes to patch them, or --dry-run to see them first",
        ));
    }
    Ok(())
}

/// A matched user.
struct Match {
    id: String,
    user_name: Option<String>,
}

/// Every user the filter matches, each once.
async fn matches(client: &ScimClient, filter: &str) -> Result<Vec<Match>> {
    let query = ListQuery {
        filter: Some(filter.to_owned()),
        ..ListQuery::default()
    };
    let mut pager = Pager::new(client, Resource::Users, query, true);
    let mut found = Vec::new();
    let mut no_id = 0usize;
    while let Some(page) = pager.next().await {
        let items = page.map_err(|f| {
            fail(
                f.exit,
                format!(
                    "finding the users of --filter: {}; nothing patched",
                    f.message
                ),
            )
        })?;
        for item in items {
            let Some(id) = item.id.filter(|id| !id.is_empty()) else {
                no_id += 1;
                continue;
            };
            let user_name = serde_json::from_str::<Value>(item.raw.get())
                .ok()
                .as_ref()
                .and_then(crate::protocol::scim::User::from_value)
                .and_then(|u| u.user_name.0);
            found.push(Match { id, user_name });
        }
    }
    if pager.duplicates > 0 {
        crate::term::diag(format_args!(
            "analyst: {}",
            super::users::repeats_note(pager.duplicates, "user")
        ));
    }
    if no_id > 0 {
        return Err(fail(
            Status::Failure,
            format!("{no_id} of the users --filter matched came without an id; nothing patched"),
        ));
    }
    Ok(found)
}

fn names(found: &[Match], limit: usize) -> String {
    let mut shown: Vec<String> = found
        .iter()
        .take(limit)
        .map(|m| crate::term::visible(m.user_name.as_deref().unwrap_or(&m.id)).into_owned())
        .collect();
    if found.len() > limit {
        shown.push(format!("and {} more", found.len() - limit));
    }
    shown.join(", ")
}

/// The users to patch, or `None` when there are none (no match, or the person said no).
pub(super) fn targets(
    ctx: &Ctx,
    client: &ScimClient,
    filter: &str,
    yes: bool,
) -> Result<Option<Targets>> {
    let rt = super::users::runtime()?;
    let found = rt.block_on(matches(client, filter))?;
    let n = found.len();
    let noun = if n == 1 { "user" } else { "users" };
    if n == 0 {
        if !ctx.global.quiet {
            crate::term::diag(format_args!(
                "analyst: no user matches {filter:?}; nothing patched"
            ));
        }
        return Ok(None);
    }
    if ctx.global.dry_run {
        // Every match, one a line, so a person can check the list before the real run.
        crate::term::diag(format_args!(
            "analyst: dry run: {n} {noun} match {filter:?}:"
        ));
        for m in &found {
            crate::term::diag(format_args!(
                "  {}  {}",
                crate::term::visible(&m.id),
                crate::term::visible(m.user_name.as_deref().unwrap_or(""))
            ));
        }
    } else if !yes {
        crate::term::diag(format_args!(
            "analyst: {n} {noun} match {filter:?}: {}",
            names(&found, SHOWN)
        ));
        eprint!("Patch {} {noun}? [y/N] ", n);
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            crate::term::diag(format_args!("analyst: nothing patched"));
            return Ok(None);
        }
    }
    let mut t = Targets::default();
    for m in found {
        if t.ids.insert(m.id.clone()) {
            t.list.push(Target::Id(m.id));
        }
    }
    Ok(Some(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_confirmation_names_the_first_users() {
        let found: Vec<Match> = (1..=7)
            .map(|i| Match {
                id: format!("id{i}"),
                user_name: (i != 2).then(|| format!("u{i}@x")),
            })
            .collect();
        assert_eq!(names(&found, 5), "u1@x, id2, u3@x, u4@x, u5@x, and 2 more");
        assert_eq!(names(&found[..1], 5), "u1@x");
    }
}
