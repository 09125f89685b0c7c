//! SCIM `Groups` over HTTP: list (filter, sort, paging), `.search`, GET, POST, PUT, PATCH
//! (membership) and DELETE, with ETags and `If-Match`, as `analyst scim groups` and identity
//! providers use them.

// Handlers return `Result<_, Response>` so `?` can answer early (as in scim_routes).
#![allow(clippy::result_large_err)]

use super::auth;
use super::scim_groups::ScimGroup;
use super::scim_http::{
    self, Outcome, check_if_match, json_object, patch_op, query_of, resource, write_error,
};
use super::scim_query::Query;
use super::shared::{Shared, World};
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::sync::Arc;

fn not_found(id: &str) -> Response {
    scim_http::not_found("group", id)
}

fn group_resource(
    shared: &Shared,
    world: &World,
    group: &ScimGroup,
    code: StatusCode,
    query: &Query,
) -> Response {
    let rendered = group.render(&shared.scim_root, &world.scim, &world.groups);
    resource(shared, rendered, &group.etag(), code, query)
}

fn check_group_if_match(headers: &HeaderMap, group: &ScimGroup) -> Result<(), Response> {
    check_if_match(headers, &group.etag(), |tag| group.matches(tag))
}

/// The matches of a query among groups (places in creation order), cached until the next
/// write, as for users.
pub(super) fn matched_groups(shared: &Shared, world: &mut World, query: &Query) -> Arc<Vec<u64>> {
    let generation = (world.scim.generation(), world.groups.generation());
    let World {
        scim,
        groups,
        scim_lists,
        ..
    } = world;
    let root = &shared.scim_root;
    scim_lists.matches(query.list_key("Groups"), generation, || {
        if query.filter.is_none() && !query.sorted() {
            return groups.seqs().map(|(seq, _)| seq).collect();
        }
        let keep = |g: &Value| query.filter.as_ref().is_none_or(|f| f.matches(g));
        if !query.sorted() {
            // One rendered resource at a time: 100,000 at once would be ~300 MB.
            return groups
                .seqs()
                .filter(|(_, g)| keep(&g.render(root, scim, groups)))
                .map(|(seq, _)| seq)
                .collect();
        }
        let mut found: Vec<(u64, Value)> = groups
            .seqs()
            .map(|(seq, g)| (seq, g.render(root, scim, groups)))
            .filter(|(_, g)| keep(g))
            .collect();
        query.sort_with(&mut found, |(_, g)| g);
        found.into_iter().map(|(seq, _)| seq).collect()
    })
}

/// The page a query asks for.
fn list_groups(shared: &Shared, query: &Query) -> Response {
    let mut world = shared.world();
    let matched = matched_groups(shared, &mut world, query);
    scim_http::list_page(shared, query, &matched, |seq| {
        let g = world.groups.by_seq(seq)?;
        Some(g.render(&shared.scim_root, &world.scim, &world.groups))
    })
}

/// `GET /Groups?filter=&sortBy=&sortOrder=&startIndex=&count=&attributes=&excludedAttributes=`.
pub(crate) async fn list(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        Ok(list_groups(&shared, &query_of(&query)?))
    };
    run().unwrap_or_else(|r| r)
}

/// `POST /Groups/.search`: a SearchRequest.
pub(crate) async fn search(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let body = json_object(body).await?;
        let query = Query::from_search_request(&body).map_err(scim_http::bad_query)?;
        Ok::<_, Response>(list_groups(&shared, &query))
    };
    run.await.unwrap_or_else(|r| r)
}

/// `GET /Groups/{id}`.
pub(crate) async fn get_one(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = query_of(&query)?;
        let world = shared.world();
        let group = world.groups.get(&id).ok_or_else(|| not_found(&id))?;
        Ok(group_resource(
            &shared,
            &world,
            group,
            StatusCode::OK,
            &query,
        ))
    };
    run().unwrap_or_else(|r| r)
}

/// `POST /Groups`: 201 with Location and ETag; 409 when the displayName is taken; 400 when a
/// member is not a user or group.
pub(crate) async fn create(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = query_of(&query)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        let World { scim, groups, .. } = &mut *world;
        let id = groups
            .create(&attrs, None, scim, &shared.clock)
            .map_err(write_error)?
            .id
            .clone();
        let group = world.groups.get(&id).ok_or_else(|| not_found(&id))?;
        let mut resp = group_resource(&shared, &world, group, StatusCode::CREATED, &query);
        let location = format!("{}/Groups/{id}", shared.scim_root);
        if let Ok(v) = HeaderValue::from_str(&location) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
        Ok::<_, Response>(resp)
    };
    run.await.unwrap_or_else(|r| r)
}

/// `PUT /Groups/{id}`: replace displayName, externalId and members.
pub(crate) async fn replace(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = query_of(&query)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        let World { scim, groups, .. } = &mut *world;
        check_group_if_match(&headers, groups.get(&id).ok_or_else(|| not_found(&id))?)?;
        groups
            .replace(&id, &attrs, scim, &shared.clock)
            .map_err(write_error)?;
        let group = world.groups.get(&id).ok_or_else(|| not_found(&id))?;
        Ok::<_, Response>(group_resource(
            &shared,
            &world,
            group,
            StatusCode::OK,
            &query,
        ))
    };
    run.await.unwrap_or_else(|r| r)
}

/// `PATCH /Groups/{id}`: a PatchOp, all operations or none; 200 with the Group.
pub(crate) async fn patch(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let query = query_of(&query)?;
        let ops = patch_op(body).await?;
        let mut world = shared.world();
        let World { scim, groups, .. } = &mut *world;
        check_group_if_match(&headers, groups.get(&id).ok_or_else(|| not_found(&id))?)?;
        groups
            .patch(&id, &ops.operations, scim, &shared.clock)
            .map_err(write_error)?;
        let group = world.groups.get(&id).ok_or_else(|| not_found(&id))?;
        Ok::<_, Response>(group_resource(
            &shared,
            &world,
            group,
            StatusCode::OK,
            &query,
        ))
    };
    run.await.unwrap_or_else(|r| r)
}

/// `DELETE /Groups/{id}`: 204.
pub(crate) async fn delete(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let mut world = shared.world();
        check_group_if_match(
            &headers,
            world.groups.get(&id).ok_or_else(|| not_found(&id))?,
        )?;
        world.groups.delete(&id, &shared.clock);
        Ok(StatusCode::NO_CONTENT.into_response())
    };
    run().unwrap_or_else(|r| r)
}
