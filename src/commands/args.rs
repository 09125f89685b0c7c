//! The one place where clap's parsed arguments become settings' flag values (ripgrep's raw
//! arguments -> resolved value, fd's `Opts` -> `Config`): nothing below `commands` sees
//! `cli.rs`'s types.

use super::scim::ops::PatchFlag;
use crate::cli::{GlobalArgs, IdentityArgs, ScimPatchArgs, ServiceArgs};
use crate::client::Http;
use crate::protocol::scim::Op;
use crate::settings::{IdentityFlags, Resolver, ServiceFlags};
use anyhow::Result;
use clap::ArgMatches;

impl From<&ServiceArgs> for ServiceFlags {
    fn from(a: &ServiceArgs) -> Self {
        ServiceFlags {
            url: a.url.clone(),
            base_url: a.base_url.clone(),
            account: a.account.clone(),
            agent: a.agent.clone(),
            api_key_file: a.api_key_file.clone(),
            token_file: a.token_file.clone(),
        }
    }
}

impl From<&IdentityArgs> for IdentityFlags {
    fn from(a: &IdentityArgs) -> Self {
        IdentityFlags {
            external_id: a.external_id.clone(),
            internal_id: a.internal_id.clone(),
            email: a.email.clone(),
            attrs: a.attrs.clone(),
            groups: a.groups.clone(),
            roles: a.roles.clone(),
            security_context: a.security_context.clone(),
            timezone: a.timezone.clone(),
            persist_user: a.persist_user,
            user_ttl: a.user_ttl.clone(),
            session: a.session.clone(),
        }
    }
}

/// The HTTP client of a command, built once: the global flags' timeouts (checked) and `-v`.
pub fn http(resolver: &Resolver, global: &GlobalArgs) -> Result<Http> {
    let timeouts = resolver.common(
        global.connect_timeout.as_deref(),
        global.idle_timeout.as_deref(),
    )?;
    Ok(Http::new(
        timeouts.connect_timeout,
        timeouts.idle_timeout,
        global.verbose,
    ))
}

/// `scim patch`'s operation flags in the order they stood on the command line. Clap keeps each
/// kind of flag apart; `indices_of` gives back the order across kinds. (A flag whose positions
/// clap cannot give goes after those it can, in a fixed order.)
pub fn patch_flags(args: &ScimPatchArgs, matches: &ArgMatches) -> Vec<PatchFlag> {
    let mut found: Vec<(usize, PatchFlag)> = Vec::new();
    let mut unplaced = usize::MAX / 2;
    let mut place = |id: &str, flags: Vec<PatchFlag>| {
        let at: Vec<usize> = matches
            .indices_of(id)
            .map(Iterator::collect)
            .unwrap_or_default();
        let at = if at.len() == flags.len() {
            at
        } else {
            (0..flags.len())
                .map(|_| {
                    unplaced += 1;
                    unplaced
                })
                .collect()
        };
        found.extend(at.into_iter().zip(flags));
    };
    place(
        "deactivate",
        args.deactivate
            .then_some(PatchFlag::Active(false))
            .into_iter()
            .collect(),
    );
    place(
        "activate",
        args.activate
            .then_some(PatchFlag::Active(true))
            .into_iter()
            .collect(),
    );
    let set = |op: Op, raws: &[String]| -> Vec<PatchFlag> {
        raws.iter().map(|r| PatchFlag::Set(op, r.clone())).collect()
    };
    place("replace", set(Op::Replace, &args.replace));
    place("add", set(Op::Add, &args.add));
    place(
        "remove",
        args.remove.iter().cloned().map(PatchFlag::Remove).collect(),
    );
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, flag)| flag).collect()
}
