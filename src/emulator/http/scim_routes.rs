//! SCIM `Users` over HTTP: GET (by id and filtered list), POST, PUT, PATCH and DELETE, with
//! ETags and `If-Match`. Every body is `application/scim+json`.

// Handlers return `Result<_, Response>` so `?` can answer early; the error is built once per
// request and handed straight to axum, so boxing it would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

use super::auth;
use super::responses::{scim_error, scim_json};
use super::scim_patch::Filter;
use super::scim_store::{ScimUser, WriteError};
use super::shared::{read_body, Shared};
use crate::protocol::scim::{PatchOp, LIST_RESPONSE_URN};
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};
use std::sync::Arc;

const MAX_BODY: usize = 1 << 20;
/// Largest page of a list.
const MAX_COUNT: usize = 1_000;

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

fn resource(shared: &Shared, user: &ScimUser, code: StatusCode) -> Response {
    scim_json(code, &user.render(&shared.scim_root), Some(&user.etag()))
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

/// `GET /Users?filter=...&startIndex=&count=`.
pub(crate) async fn list(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    list_users(&shared, &headers, query.as_deref().unwrap_or("")).unwrap_or_else(|r| r)
}

fn list_users(shared: &Shared, headers: &HeaderMap, query: &str) -> Outcome {
    auth::scim_caller(headers, &shared.scim_token)?;
    let (mut filter, mut start, mut count) = (None, 1usize, 100usize);
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        let number = |what: &str| {
            value.trim().parse::<usize>().map_err(|_| {
                scim_error(
                    StatusCode::BAD_REQUEST,
                    Some("invalidValue"),
                    &format!("{what} must be a whole number"),
                )
            })
        };
        match key.as_ref() {
            "filter" => {
                let parsed = Filter::parse(&value).map_err(|why| {
                    scim_error(StatusCode::BAD_REQUEST, Some("invalidFilter"), &why)
                })?;
                filter = Some(parsed);
            }
            "startIndex" => start = number("startIndex")?.max(1),
            "count" => count = number("count")?.min(MAX_COUNT),
            _ => {}
        }
    }
    let world = shared.world();
    let matched: Vec<&ScimUser> = world
        .scim
        .all()
        .filter(|u| {
            filter.as_ref().map_or(true, |f| {
                let mut attrs = u.attrs.clone();
                attrs.insert("id".into(), json!(u.id));
                f.matches(&Value::Object(attrs))
            })
        })
        .collect();
    let page: Vec<Value> = matched
        .iter()
        .skip(start - 1)
        .take(count)
        .map(|u| u.render(&shared.scim_root))
        .collect();
    let body = json!({
        "schemas": [LIST_RESPONSE_URN],
        "totalResults": matched.len(),
        "startIndex": start,
        "itemsPerPage": page.len(),
        "Resources": page,
    });
    Ok(scim_json(StatusCode::OK, &body, None))
}

/// `GET /Users/{id}`.
pub(crate) async fn get_one(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.scim_token)?;
        let world = shared.world();
        let user = world.scim.get(&id).ok_or_else(|| not_found(&id))?;
        Ok(resource(&shared, user, StatusCode::OK))
    };
    run().unwrap_or_else(|r| r)
}

/// `POST /Users`: 201 with Location and ETag; 409 when the userName is taken.
pub(crate) async fn create(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.scim_token)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        let user = world
            .scim
            .create(attrs, &shared.clock)
            .map_err(write_error)?;
        let mut resp = resource(&shared, user, StatusCode::CREATED);
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
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.scim_token)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        check_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        let user = world
            .scim
            .replace(&id, attrs, &shared.clock)
            .map_err(write_error)?;
        Ok::<_, Response>(resource(&shared, user, StatusCode::OK))
    };
    run.await.unwrap_or_else(|r| r)
}

/// `PATCH /Users/{id}`: a PatchOp, all operations or none; 200 with the User.
pub(crate) async fn patch(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.scim_token)?;
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
        Ok::<_, Response>(resource(&shared, user, StatusCode::OK))
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
        auth::scim_caller(&headers, &shared.scim_token)?;
        let mut world = shared.world();
        check_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        world.scim.delete(&id);
        Ok(StatusCode::NO_CONTENT.into_response())
    };
    run().unwrap_or_else(|r| r)
}
