//! URLs from settings: the chat endpoint and its abort sibling, the SCIM root, and how a URL
//! may appear in messages (never with a password or query values).

use super::ChatEndpoint;
use crate::exit::usage;
use anyhow::Result;
use url::Url;

/// Where a chat URL's credentials belong.
pub(super) const CHAT_SECRET: &str =
    "--api-key-file or --token-file (or ANALYST_API_KEY, ANALYST_TOKEN)";

/// `s` as an http(s) URL; `secret` names where this URL's credentials belong instead, for the
/// message that refuses a URL carrying them.
pub(super) fn parse_http_url(s: &str, origin: &str, secret: &str) -> Result<Url> {
    let url = Url::parse(s.trim())
        .map_err(|e| usage(format!("{origin} is not a URL ({e}): {}", redact_url(s))))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(usage(format!(
            "{origin} {} must be an http or https URL",
            redact_url(s)
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(usage(format!(
            "{origin} must not carry credentials; use {secret}"
        )));
    }
    Ok(url)
}

/// A URL as it may appear in messages: no password, no query values (either may be a secret).
pub fn redact_url(s: &str) -> String {
    match Url::parse(s.trim()) {
        Ok(mut url) => {
            if url.password().is_some() {
                let _ = url.set_password(Some("***"));
            }
            if url.query().is_some() {
                url.set_query(Some("***"));
            }
            url.to_string()
        }
        // Unparseable: show only what cannot hold credentials.
        Err(_) if s.contains('@') || s.contains('?') => {
            "(not shown: it may hold credentials)".to_owned()
        }
        Err(_) => format!("{s:?}"),
    }
}

/// The stream and abort URLs from a full chat URL, which must end in `/chat/stream-chat-state`.
pub fn endpoint_from_url(s: &str, origin: &str) -> Result<ChatEndpoint> {
    let stream = parse_http_url(s, origin, CHAT_SECRET)?;
    if !stream
        .path()
        .trim_end_matches('/')
        .ends_with("/chat/stream-chat-state")
    {
        return Err(usage(format!(
            "{origin} {} must end in /chat/stream-chat-state (copy the agent's Chat API URL)",
            redact_url(s)
        )));
    }
    let mut abort = stream.clone();
    {
        let mut segs = abort.path_segments_mut().expect("http URLs have paths");
        segs.pop_if_empty().pop().push("abort");
    }
    Ok(ChatEndpoint { stream, abort })
}

/// (base, account, agent) of a chat URL of the usual form, if it is one.
pub(super) fn split_chat_url(s: &str) -> Option<(String, String, String)> {
    let url = Url::parse(s).ok()?;
    let segs: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    let n = segs.len();
    if n < 8
        || segs[n - 8..n - 5] != ["api", "v1", "public"]
        || segs[n - 4] != "agents"
        || segs[n - 2..] != ["chat", "stream-chat-state"]
    {
        return None;
    }
    let mut base = url.clone();
    base.set_path(&segs[..n - 8].join("/"));
    base.set_query(None);
    Some((
        base.to_string(),
        segs[n - 5].to_owned(),
        segs[n - 3].to_owned(),
    ))
}

/// The SCIM root: as given when its path ends in `/scim/v2` (any case; a trailing `/Users...`
/// pasted along is dropped), else with `/api/scim/v2` appended. No query or fragment.
pub fn scim_root(s: &str, origin: &str) -> Result<Url> {
    let mut url = parse_http_url(s, origin, "--scim-token-file (or ANALYST_SCIM_TOKEN)")?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err(usage(format!(
            "{origin} must not have a query or fragment: {}",
            redact_url(s)
        )));
    }
    let mut segs: Vec<String> = url
        .path_segments()
        .map(|p| p.filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default();
    if let Some(users) = segs.iter().rposition(|s| s.eq_ignore_ascii_case("users"))
        && users >= 2
        && segs[users - 2].eq_ignore_ascii_case("scim")
        && segs[users - 1].eq_ignore_ascii_case("v2")
    {
        segs.truncate(users);
    }
    let is_root = segs.len() >= 2
        && segs[segs.len() - 2].eq_ignore_ascii_case("scim")
        && segs[segs.len() - 1].eq_ignore_ascii_case("v2");
    if !is_root {
        segs.extend(["api", "scim", "v2"].map(str::to_owned));
    }
    url.set_path(&segs.join("/"));
    Ok(url)
}

/// The data query API root: as given (trailing `/` dropped) when it has a path, else with
/// `/cubejs-api` appended to the bare origin. No query or fragment.
pub fn data_root(s: &str, origin: &str) -> Result<Url> {
    let mut url = parse_http_url(s, origin, "--data-token-file (or ANALYST_DATA_TOKEN)")?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err(usage(format!(
            "{origin} must not have a query or fragment: {}",
            redact_url(s)
        )));
    }
    let path = url.path().trim_end_matches('/').to_owned();
    if path.is_empty() {
        url.set_path("/cubejs-api");
    } else {
        url.set_path(&path);
    }
    Ok(url)
}
