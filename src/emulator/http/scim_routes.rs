//! SCIM `Users` over HTTP: GET (by id and filtered list), `.search`, POST, PUT, PATCH and
//! DELETE, with ETags and `If-Match`, and the router of the whole SCIM root (Groups are in
//! `scim_group_routes`). Every body is `application/scim+json`.

// Handlers return `Result<_, Response>` so `?` can answer early; the error is built once per
// request and handed straight to axum, so boxing it would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

use super::auth;
use super::scim_discovery;
use super::scim_group_routes;
use super::scim_http::{
    self, Outcome, check_if_match, json_object, patch_op, query_of, resource, write_error,
};
use super::scim_query::Query;
use super::scim_store::ScimUser;
use super::shared::{Shared, World};
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde_json::Value;
use std::sync::Arc;

fn not_found(id: &str) -> Response {
    scim_http::not_found("user", id)
}

/// A user as sent: rendered with its groups.
fn rendered(shared: &Shared, world: &World, user: &ScimUser) -> Value {
    let root = &shared.scim_root;
    user.render(root, world.groups.groups_of(&user.id, root))
}

fn user_resource(
    shared: &Shared,
    world: &World,
    user: &ScimUser,
    code: StatusCode,
    query: &Query,
) -> Response {
    resource(
        shared,
        rendered(shared, world, user),
        &user.etag(),
        code,
        query,
    )
}

/// 412 when `If-Match` names another version of the user.
fn check_user_if_match(headers: &HeaderMap, user: &ScimUser) -> Result<(), Response> {
    check_if_match(headers, &user.etag(), |tag| user.matches(tag))
}

/// `GET /Users?filter=&sortBy=&sortOrder=&startIndex=&count=&attributes=&excludedAttributes=`.
pub(crate) async fn list(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let run = || -> Outcome {
        auth::scim_caller(&headers, &shared.account_keys())?;
        Ok(list_users(&shared, &query_of(&query)?))
    };
    run().unwrap_or_else(|r| r)
}

/// `POST /Users/.search`: a SearchRequest.
pub(crate) async fn search(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let body = json_object(body).await?;
        let query = Query::from_search_request(&body).map_err(scim_http::bad_query)?;
        Ok::<_, Response>(list_users(&shared, &query))
    };
    run.await.unwrap_or_else(|r| r)
}

/// The matches of a query among users (places in creation order), cached until the next write.
fn matched_users(shared: &Shared, world: &mut World, query: &Query) -> Arc<Vec<u64>> {
    let generation = (world.scim.generation(), world.groups.generation());
    let World {
        scim,
        groups,
        scim_lists,
        ..
    } = world;
    let root = &shared.scim_root;
    scim_lists.matches(query.list_key("Users"), generation, || {
        if query.filter.is_none() && !query.sorted() {
            return scim.seqs().map(|(seq, _)| seq).collect();
        }
        let keep = |u: &Value| query.filter.as_ref().is_none_or(|f| f.matches(u));
        if !query.sorted() {
            // One rendered resource at a time: 100,000 at once would be ~300 MB.
            return scim
                .seqs()
                .filter(|(_, u)| keep(&u.render(root, groups.groups_of(&u.id, root))))
                .map(|(seq, _)| seq)
                .collect();
        }
        let mut found: Vec<(u64, Value)> = scim
            .seqs()
            .map(|(seq, u)| (seq, u.render(root, groups.groups_of(&u.id, root))))
            .filter(|(_, u)| keep(u))
            .collect();
        query.sort_with(&mut found, |(_, u)| u);
        found.into_iter().map(|(seq, _)| seq).collect()
    })
}

/// The page a query asks for. The matches of a query are computed once and cached until the
/// next write, so a client walking every page pays for one pass, not one per page.
fn list_users(shared: &Shared, query: &Query) -> Response {
    let mut world = shared.world();
    let matched = matched_users(shared, &mut world, query);
    scim_http::list_page(shared, query, &matched, |seq| {
        let u = world.scim.by_seq(seq)?;
        Some(rendered(shared, &world, u))
    })
}

/// `POST /.search`: a SearchRequest over every resource type, users then groups (each in
/// its own order).
pub(crate) async fn search_all(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let run = async {
        auth::scim_caller(&headers, &shared.account_keys())?;
        let body = json_object(body).await?;
        let query = Query::from_search_request(&body).map_err(scim_http::bad_query)?;
        let mut world = shared.world();
        let users = matched_users(&shared, &mut world, &query);
        let groups = scim_group_routes::matched_groups(&shared, &mut world, &query);
        let both: Vec<(bool, u64)> = users
            .iter()
            .map(|&s| (true, s))
            .chain(groups.iter().map(|&s| (false, s)))
            .collect();
        let root = &shared.scim_root;
        Ok::<_, Response>(scim_http::list_page(
            &shared,
            &query,
            &both,
            |(user, seq)| {
                if user {
                    world.scim.by_seq(seq).map(|u| rendered(&shared, &world, u))
                } else {
                    let g = world.groups.by_seq(seq)?;
                    Some(g.render(root, &world.scim, &world.groups))
                }
            },
        ))
    };
    run.await.unwrap_or_else(|r| r)
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
        let query = query_of(&query)?;
        let world = shared.world();
        let user = world.scim.get(&id).ok_or_else(|| not_found(&id))?;
        Ok(user_resource(&shared, &world, user, StatusCode::OK, &query))
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
        let query = query_of(&query)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        let id = world
            .scim
            .create(attrs, &shared.clock)
            .map_err(write_error)?
            .id
            .clone();
        let user = world.scim.get(&id).ok_or_else(|| not_found(&id))?;
        let mut resp = user_resource(&shared, &world, user, StatusCode::CREATED, &query);
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
        let query = query_of(&query)?;
        let attrs = json_object(body).await?;
        let mut world = shared.world();
        check_user_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        world
            .scim
            .replace(&id, attrs, &shared.clock)
            .map_err(write_error)?;
        let user = world.scim.get(&id).ok_or_else(|| not_found(&id))?;
        Ok::<_, Response>(user_resource(&shared, &world, user, StatusCode::OK, &query))
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
        let query = query_of(&query)?;
        let ops = patch_op(body).await?;
        let mut world = shared.world();
        check_user_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        world
            .scim
            .patch(&id, &ops.operations, &shared.clock)
            .map_err(write_error)?;
        let user = world.scim.get(&id).ok_or_else(|| not_found(&id))?;
        Ok::<_, Response>(user_resource(&shared, &world, user, StatusCode::OK, &query))
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
        check_user_if_match(&headers, world.scim.get(&id).ok_or_else(|| not_found(&id))?)?;
        world.scim.delete(&id);
        world.groups.drop_member(&id, &shared.clock);
        Ok(StatusCode::NO_CONTENT.into_response())
    };
    run().unwrap_or_else(|r| r)
}

/// Every SCIM route, relative to the SCIM root: Users, Groups, search, discovery; any other path is
/// a SCIM 404 and any other method a SCIM 405.
pub(crate) fn router() -> Router<Arc<Shared>> {
    let only =
        |route: MethodRouter<Arc<Shared>>| route.fallback(scim_discovery::method_not_allowed);
    Router::new()
        .route("/Users", only(get(list).post(create)))
        .route("/Users/.search", only(post(search)))
        .route("/.search", only(post(search_all)))
        .route(
            "/Users/{id}",
            only(get(get_one).put(replace).patch(patch).delete(delete)),
        )
        .route(
            "/Groups",
            only(get(scim_group_routes::list).post(scim_group_routes::create)),
        )
        .route("/Groups/.search", only(post(scim_group_routes::search)))
        .route(
            "/Groups/{id}",
            only(
                get(scim_group_routes::get_one)
                    .put(scim_group_routes::replace)
                    .patch(scim_group_routes::patch)
                    .delete(scim_group_routes::delete),
            ),
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
