//! SCIM `Users` over HTTP: GET (by id and filtered list), `.search`, POST, PUT, PATCH and
//! DELETE, with ETags and `If-Match`, and the router of the whole SCIM root. Every body is
//! `application/scim+json`.

// Handlers return `Result<_, Response>` so `?` can answer early; the error is built once per
// request and handed straight to axum, so boxing it would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

use super::auth;
use super::responses::{scim_error, scim_json};
use super::scim_discovery;
use super::scim_query::{Query, QueryError};
use super::scim_store::{ScimUser, WriteError};
use super::shared::{Shared, read_body};
use crate::protocol::scim::{LIST_RESPONSE_URN, PatchOp};
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde_json::{Map, Value, json};
use std::sync::Arc;

const MAX_BODY: usize = 1 << 20;

type Outcome = Result<Response, Response>;

fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

fn write_error((code, scim_type, detail): WriteError) -> Response {
    scim_error(status(code), scim_type, &detail)
}

fn not_found(id: &str) -> Response {
    scim_error(
        StatusCode::NOT_FOUND,
        None,
        &format!("user {id:?} not found"),
    )
}

fn resource(shared: &Shared, user: &ScimUser, code: StatusCode, query: &Query) -> Response {
    let body = on_the_wire(shared, query.project(user.render(&shared.scim_root)));
    scim_json(code, &body, Some(&user.etag()))
}

/// A rendered User as this dialect sends it: as stored, or (`legacy`) with `active` as the
/// string `"True"`/`"False"` and `meta`'s keys in PascalCase, as some servers write them.
/// Filters and sorting read the stored form; only the answer changes.
fn on_the_wire(shared: &Shared, mut user: Value) -> Value {
    if !shared.dialect.scim_variants() {
        return user;
    }
    if let Some(active) = user.get("active").and_then(Value::as_bool) {
        user["active"] = Value::String(if active { "True" } else { "False" }.into());
    }
    if let Some(Value::Object(meta)) = user.get_mut("meta") {
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
    user
}

/// 412 when `If-Match` names another version.
fn check_if_match(headers: &HeaderMap, user: &ScimUser) -> Result<(), Response> {
    match headers
        .get(header::IF_MATCH)
        .map(|v| v.to_str().unwrap_or(""))
    {
        Some(tag) if !user.matches(tag) => Err(scim_error(
            StatusCode::PRECONDITION_FAILED,
            None,
            &format!(
                "If-Match {tag:?} does not match the current version {}",
                user.etag()
            ),
        )),
        _ => Ok(()),
    }
}

async fn json_object(body: Body) -> Result<Map<String, Value>, Response> {
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

fn bad_query((scim_type, detail): QueryError) -> Response {
    scim_error(StatusCode::BAD_REQUEST, Some(scim_type), &detail)
}

/// The projection (`attributes`, `excludedAttributes`) a request's query string asks for.
fn projection(query: &Option<String>) -> Result<Query, Response> {
    Query::from_query_string(query.as_deref().unwrap_or("")).map_err(bad_query)
}

/// `GET /Users?filter=&sortBy=&sortOrder=&startIndex=&count=&attributes=&excludedAttributes=`.
pub(crate) async fn list(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        Ok(list_users(&shared, &projection(&query)?))
    };
    run().unwrap_or_else(|r| r)
}

/// `POST /Users/.search` (and `POST /.search`: users are the only resources): a SearchRequest.
pub(crate) async fn search(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let body = json_object(body).await?;
        let query = Query::from_search_request(&body).map_err(bad_query)?;
        Ok::<_, Response>(list_users(&shared, &query))
    };
    run.await.unwrap_or_else(|r| r)
}

fn list_users(shared: &Shared, query: &Query) -> Response {
    let mut matched: Vec<Value> = {
        let world = shared.world();
        world
            .scim
            .all()
            .map(|u| u.render(&shared.scim_root))
            .filter(|u| query.filter.as_ref().is_none_or(|f| f.matches(u)))
            .collect()
    };
    query.sort(&mut matched);
    let total = matched.len();
    let page: Vec<Value> = matched
        .into_iter()
        .skip(query.start - 1)
        .take(query.count)
        .map(|u| on_the_wire(shared, query.project(u)))
        .collect();
    let body = json!({
        "schemas": [LIST_RESPONSE_URN],
        "totalResults": total,
        "startIndex": query.start,
        "itemsPerPage": page.len(),
        "Resources": page,
    });
    scim_json(StatusCode::OK, &body, None)
}

/// `GET /Users/{id}`.
pub(crate) async fn get_one(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = projection(&query)?;
        let world = shared.world();
        let user = world.scim.get(&id).ok_or_else(|| not_found(&id))?;
        Ok(resource(&shared, user, StatusCode::OK, &query))
    };
    run().unwrap_or_else(|r| r)
}

/// `POST /Users`: 201 with Location and ETag; 409 when the userName is taken.
pub(crate) async fn create(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = projection(&query)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        let user = world
            .scim
            .create(attrs, &shared.clock)
            .map_err(write_error)?;
        let mut resp = resource(&shared, user, StatusCode::CREATED, &query);
        let location = format!("{}/Users/{}", shared.scim_root, user.id);
        if let Ok(v) = HeaderValue::from_str(&location) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
        Ok::<_, Response>(resp)
    };
    run.await.unwrap_or_else(|r| r)
}

/// `PUT /Users/{id}`: replace all writable attributes.
pub(crate) async fn replace(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = projection(&query)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        check_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        let user = world
            .scim
            .replace(&id, attrs, &shared.clock)
            .map_err(write_error)?;
        Ok::<_, Response>(resource(&shared, user, StatusCode::OK, &query))
    };
    run.await.unwrap_or_else(|r| r)
}

/// `PATCH /Users/{id}`: a PatchOp, all operations or none; 200 with the User.
pub(crate) async fn patch(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = projection(&query)?;
        let doc = Value::Object(json_object(body).await?);
        let ops = PatchOp::from_document(&doc).map_err(|why| {
            let scim_type = if why.contains("needs a value") {
                "invalidValue"
            } else if why.contains("needs a path") {
                "noTarget"
            } else {
                "invalidSyntax"
            };
            scim_error(StatusCode::BAD_REQUEST, Some(scim_type), &why)
        })?;
        let mut world = shared.world();
        check_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        let user = world
            .scim
            .patch(&id, &ops.operations, &shared.clock)
            .map_err(write_error)?;
        Ok::<_, Response>(resource(&shared, user, StatusCode::OK, &query))
    };
    run.await.unwrap_or_else(|r| r)
}

/// `DELETE /Users/{id}`: 204.
pub(crate) async fn delete(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let mut world = shared.world();
        check_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        world.scim.delete(&id);
        Ok(StatusCode::NO_CONTENT.into_response())
    };
    run().unwrap_or_else(|r| r)
}

/// Every SCIM route, relative to the SCIM root: Users, search, discovery; any other path is
/// a SCIM 404 and any other method a SCIM 405.
pub(crate) fn router() -> Router<Arc<Shared>> {
    let only =
        |route: MethodRouter<Arc<Shared>>| route.fallback(scim_discovery::method_not_allowed);
    Router::new()
        .route("/Users", only(get(list).post(create)))
        .route("/Users/.search", only(post(search)))
        .route("/.search", only(post(search)))
        .route(
            "/Users/{id}",
            only(get(get_one).put(replace).patch(patch).delete(delete)),
        )
        .route(
            "/ServiceProviderConfig",
            only(get(scim_discovery::service_provider_config)),
        )
        .route("/Schemas", only(get(scim_discovery::schemas)))
        .route("/Schemas/{id}", only(get(scim_discovery::schema)))
        .route("/ResourceTypes", only(get(scim_discovery::resource_types)))
        .route(
            "/ResourceTypes/{id}",
            only(get(scim_discovery::resource_type)),
        )
        .fallback(scim_discovery::no_such_endpoint)
}
