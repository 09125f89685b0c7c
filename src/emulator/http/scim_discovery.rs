//! SCIM discovery (RFC 7644 section 4): `/ServiceProviderConfig`, `/Schemas` and
//! `/ResourceTypes`, read-only; and the SCIM Errors for an unknown path (404) and a method a
//! path does not take (405).

// Handlers return `Result<_, Response>` so `?` can answer early (as in scim_routes).
#![allow(clippy::result_large_err)]

use super::auth;
use super::responses::{scim_error, scim_json};
use super::scim_schema;
use super::shared::Shared;
use crate::protocol::scim::LIST_RESPONSE_URN;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};
use std::sync::Arc;

/// Discovery takes the same token as Users, and refuses `filter` with 403 as RFC 7644 section
/// 4 says (a client must not believe a filter was applied).
fn checked(shared: &Shared, headers: &HeaderMap, query: &Option<String>) -> Result<(), Response> {
    auth::scim_caller(headers, &shared.account_keys())?;
    let query = query.as_deref().unwrap_or("");
    if url::form_urlencoded::parse(query.as_bytes()).any(|(k, _)| k == "filter") {
        return Err(scim_error(
            StatusCode::FORBIDDEN,
            None,
            "discovery endpoints take no filter",
        ));
    }
    Ok(())
}

fn list(resources: Vec<Value>) -> Response {
    let body = json!({
        "schemas": [LIST_RESPONSE_URN],
        "totalResults": resources.len(),
        "startIndex": 1,
        "itemsPerPage": resources.len(),
        "Resources": resources,
    });
    scim_json(StatusCode::OK, &body, None)
}

fn one_of(resources: Vec<Value>, id: &str, what: &str) -> Response {
    match resources.into_iter().find(|r| r["id"] == id) {
        Some(r) => scim_json(StatusCode::OK, &r, None),
        None => scim_error(StatusCode::NOT_FOUND, None, &format!("no {what} {id:?}")),
    }
}

/// `GET /ServiceProviderConfig`.
pub(crate) async fn service_provider_config(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    checked(&shared, &headers, &query)
        .map(|()| {
            let body = scim_schema::service_provider_config(&shared.scim_root);
            scim_json(StatusCode::OK, &body, None)
        })
        .unwrap_or_else(|r| r)
}

/// `GET /Schemas`: a ListResponse.
pub(crate) async fn schemas(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    checked(&shared, &headers, &query)
        .map(|()| list(scim_schema::schemas(&shared.scim_root)))
        .unwrap_or_else(|r| r)
}

/// `GET /Schemas/{urn}`.
pub(crate) async fn schema(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    checked(&shared, &headers, &query)
        .map(|()| one_of(scim_schema::schemas(&shared.scim_root), &id, "schema"))
        .unwrap_or_else(|r| r)
}

/// `GET /ResourceTypes`: a ListResponse.
pub(crate) async fn resource_types(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    checked(&shared, &headers, &query)
        .map(|()| list(scim_schema::resource_types(&shared.scim_root)))
        .unwrap_or_else(|r| r)
}

/// `GET /ResourceTypes/{name}`.
pub(crate) async fn resource_type(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    checked(&shared, &headers, &query)
        .map(|()| {
            let types = scim_schema::resource_types(&shared.scim_root);
            one_of(types, &id, "resource type")
        })
        .unwrap_or_else(|r| r)
}

/// A method the path does not take: 405 as a SCIM Error.
pub(crate) async fn method_not_allowed(method: Method, uri: Uri) -> Response {
    scim_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &format!("{method} is not allowed on {}", uri.path()),
    )
}

/// A path under the SCIM root that names nothing: 404 as a SCIM Error.
pub(crate) async fn no_such_endpoint(uri: Uri) -> Response {
    scim_error(
        StatusCode::NOT_FOUND,
        None,
        &format!("no SCIM endpoint {}", uri.path()),
    )
}
