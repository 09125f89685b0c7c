//! What the SCIM routes of Users and Groups share: bodies read and checked, errors as SCIM
//! Errors, `If-Match`, the dialect's wire shape, and list pages (RFC 7644 section 3.4.2.4)
//! served from a small cache of matches, so that walking 100,000 users page by page costs
//! one filter pass, not one per page.

// Handlers return `Result<_, Response>` so `?` can answer early (as in scim_routes).
#![allow(clippy::result_large_err)]

use super::responses::{scim_error, scim_json};
use super::scim_query::{Query, QueryError};
use super::scim_store::WriteError;
use super::shared::{Shared, read_body};
use crate::protocol::scim::{LIST_RESPONSE_URN, PatchOp};
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::sync::Arc;

const MAX_BODY: usize = 1 << 20;

/// A handler's answer, or the error it answers with early.
pub(super) type Outcome = Result<Response, Response>;

fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A store's refusal as a SCIM Error.
pub(super) fn write_error((code, scim_type, detail): WriteError) -> Response {
    scim_error(status(code), scim_type, &detail)
}

/// 404 for a resource of this kind (`user`, `group`).
pub(super) fn not_found(kind: &str, id: &str) -> Response {
    scim_error(
        StatusCode::NOT_FOUND,
        None,
        &format!("{kind} {id:?} not found"),
    )
}

/// 412 when `If-Match` names another version than `etag`.
pub(super) fn check_if_match(
    headers: &HeaderMap,
    etag: &str,
    matches: impl Fn(&str) -> bool,
) -> Result<(), Response> {
    match headers
        .get(header::IF_MATCH)
        .map(|v| v.to_str().unwrap_or(""))
    {
        Some(tag) if !matches(tag) => Err(scim_error(
            StatusCode::PRECONDITION_FAILED,
            None,
            &format!("If-Match {tag:?} does not match the current version {etag}"),
        )),
        _ => Ok(()),
    }
}

/// A body that must be one JSON object (at most 1 MiB).
pub(super) async fn json_object(body: Body) -> Result<Map<String, Value>, Response> {
    let bytes = read_body(body, MAX_BODY)
        .await
        .map_err(|code| scim_error(code, None, "the body is larger than 1 MiB"))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(scim_error(
            StatusCode::BAD_REQUEST,
            Some("invalidSyntax"),
            "the body must be a JSON object",
        )),
        Err(e) => Err(scim_error(
            StatusCode::BAD_REQUEST,
            Some("invalidSyntax"),
            &format!("the body is not JSON: {e}"),
        )),
    }
}

/// A PatchOp body, its shape checked.
pub(super) async fn patch_op(body: Body) -> Result<PatchOp, Response> {
    let doc = Value::Object(json_object(body).await?);
    PatchOp::from_document(&doc).map_err(|why| {
        let scim_type = if why.contains("needs a value") {
            "invalidValue"
        } else if why.contains("needs a path") {
            "noTarget"
        } else {
            "invalidSyntax"
        };
        scim_error(StatusCode::BAD_REQUEST, Some(scim_type), &why)
    })
}

/// A bad query parameter: 400 with its `scimType` (`invalidFilter` for a filter).
pub(super) fn bad_query((scim_type, detail): QueryError) -> Response {
    scim_error(StatusCode::BAD_REQUEST, Some(scim_type), &detail)
}

/// The parameters of a request's query string.
pub(super) fn query_of(query: &Option<String>) -> Result<Query, Response> {
    Query::from_query_string(query.as_deref().unwrap_or("")).map_err(bad_query)
}

/// A rendered resource as this dialect sends it: as stored, or (`legacy`) with `active` as
/// the string `"True"`/`"False"` and `meta`'s keys in PascalCase, as some servers write them.
/// Filters and sorting read the stored form; only the answer changes.
pub(super) fn on_the_wire(shared: &Shared, mut resource: Value) -> Value {
    if !shared.dialect.scim_variants() {
        return resource;
    }
    if let Some(active) = resource.get("active").and_then(Value::as_bool) {
        resource["active"] = Value::String(if active { "True" } else { "False" }.into());
    }
    if let Some(Value::Object(meta)) = resource.get_mut("meta") {
        let pascal = std::mem::take(meta)
            .into_iter()
            .map(|(k, v)| {
                let mut c = k.chars();
                let first = c.next().map(|f| f.to_ascii_uppercase());
                (first.into_iter().chain(c).collect::<String>(), v)
            })
            .collect();
        *meta = pascal;
    }
    resource
}

/// One resource: projected, in the dialect's shape, with its ETag.
pub(super) fn resource(
    shared: &Shared,
    rendered: Value,
    etag: &str,
    code: StatusCode,
    query: &Query,
) -> Response {
    let body = on_the_wire(shared, query.project(rendered));
    scim_json(code, &body, Some(etag))
}

/// The ListResponse of a page: `totalResults` counts every match, `Resources` holds at most
/// `count` of them from `startIndex` (1-based); `count=0` asks for the total alone.
pub(super) fn list_page<T: Copy>(
    shared: &Shared,
    query: &Query,
    matched: &[T],
    render: impl Fn(T) -> Option<Value>,
) -> Response {
    let from = (query.start - 1).min(matched.len());
    let to = from.saturating_add(query.count).min(matched.len());
    let page: Vec<Value> = matched[from..to]
        .iter()
        .filter_map(|&item| render(item))
        .map(|r| on_the_wire(shared, query.project(r)))
        .collect();
    let body = json!({
        "schemas": [LIST_RESPONSE_URN],
        "totalResults": matched.len(),
        "startIndex": query.start,
        "itemsPerPage": page.len(),
        "Resources": page,
    });
    scim_json(StatusCode::OK, &body, None)
}

/// Recent list matches (resources' places in creation order), by query and by the stores'
/// generations: any write makes them stale. A handful is enough for a client walking pages of
/// one query at a time, and bounds memory at a few MB over 100,000 users.
#[derive(Debug, Default)]
pub(crate) struct ListCache {
    entries: VecDeque<Cached>,
}

/// A query's key, the stores' generations it was computed at, and its matches.
type Cached = (String, (u64, u64), Arc<Vec<u64>>);

const CACHED_LISTS: usize = 8;

impl ListCache {
    /// The matches of `key` at `generation`, computed when not cached.
    pub(crate) fn matches(
        &mut self,
        key: String,
        generation: (u64, u64),
        compute: impl FnOnce() -> Vec<u64>,
    ) -> Arc<Vec<u64>> {
        self.entries.retain(|(_, g, _)| *g == generation);
        if let Some(i) = self.entries.iter().position(|(k, _, _)| *k == key) {
            let hit = self.entries.remove(i).expect("the index was found");
            let seqs = hit.2.clone();
            self.entries.push_front(hit);
            return seqs;
        }
        let seqs = Arc::new(compute());
        self.entries.push_front((key, generation, seqs.clone()));
        self.entries.truncate(CACHED_LISTS);
        seqs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_recomputes_after_a_write_only() {
        let mut cache = ListCache::default();
        let mut runs = 0;
        for _ in 0..3 {
            cache.matches("a".into(), (1, 0), || {
                runs += 1;
                vec![1, 2]
            });
        }
        assert_eq!(runs, 1);
        let after_write = cache.matches("a".into(), (2, 0), || vec![1]);
        assert_eq!(*after_write, vec![1]);
        for i in 0..20 {
            cache.matches(format!("k{i}"), (2, 0), Vec::new);
        }
        assert!(cache.entries.len() <= CACHED_LISTS);
    }
}
