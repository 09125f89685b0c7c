//! The one place where clap's parsed arguments become settings' flag values (ripgrep's raw
//! arguments -> resolved value, fd's `Opts` -> `Config`): nothing below `commands` sees
//! `cli.rs`'s types.

use crate::cli::{GlobalArgs, IdentityArgs, ServiceArgs};
use crate::settings::{Common, IdentityFlags, Resolver, ServiceFlags};
use anyhow::Result;

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

/// The timeouts of the global flags, checked.
pub fn timeouts(resolver: &Resolver, global: &GlobalArgs) -> Result<Common> {
    resolver.common(
        global.connect_timeout.as_deref(),
        global.idle_timeout.as_deref(),
    )
}
