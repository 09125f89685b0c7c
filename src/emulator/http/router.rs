//! The routes of the service, and the fault-injection layer in front of them.

use super::chat_routes;
use super::data_routes;
use super::faults::Target;
use super::request_log;
use super::responses::{error, scim_error};
use super::scim_routes;
use super::shared::Shared;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{delete, post};
use std::sync::Arc;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let public = "/api/v1/public/{account}";
    Router::new()
        .route(
            &format!("{public}/agents/{{agent}}/chat/stream-chat-state"),
            post(chat_routes::agent_chat),
        )
        .route(
            &format!("{public}/agents/{{agent}}/chat/abort"),
            post(chat_routes::agent_abort),
        )
        .route(
            &format!("{public}/deployments/{{deployment}}/chat/stream-chat-state"),
            post(chat_routes::deployment_chat),
        )
        .route(
            &format!("{public}/deployments/{{deployment}}/chat/abort"),
            post(chat_routes::deployment_abort),
        )
        .route("/cubejs-api/v1/cubesql", post(data_routes::cubesql))
        .route(
            "/cubejs-api/v1/running-query/{id}",
            delete(data_routes::cancel),
        )
        .nest(
            "/api/scim/v2",
            scim_routes::router().layer(middleware::from_fn_with_state(
                shared.clone(),
                numeric_scim_status,
            )),
        )
        .fallback(|uri: axum::http::Uri| async move {
            // Under the SCIM root even a path axum's nesting leaves out is a SCIM Error.
            if uri.path().starts_with("/api/scim/") {
                scim_error(StatusCode::NOT_FOUND, None, "no such SCIM endpoint")
            } else {
                error(StatusCode::NOT_FOUND, "no such endpoint")
            }
        })
        .layer(middleware::from_fn_with_state(
            shared.clone(),
            inject_faults,
        ))
        .layer(middleware::from_fn_with_state(
            shared.clone(),
            request_log::log_requests,
        ))
        .with_state(shared)
}

/// `--dialect legacy`: SCIM Errors with `status` as a number, as some servers send it
/// (PROTOCOL.md: "`status` (a string, though some servers send a number)"). Other dialects,
/// and answers that are not errors, pass unchanged.
async fn numeric_scim_status(
    State(shared): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    let resp = next.run(req).await;
    if !shared.dialect.scim_variants() || resp.status().is_success() {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    // SCIM Errors are small; anything past the bound is passed on empty rather than held.
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let mut doc: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => return Response::from_parts(parts, axum::body::Body::from(bytes)),
    };
    if let Some(n) = doc
        .get("status")
        .and_then(serde_json::Value::as_str)
        .and_then(|s| s.parse::<u16>().ok())
    {
        doc["status"] = n.into();
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(doc.to_string()))
}

/// Apply `--fault` delays and statuses before the route runs, and hand line faults to it.
async fn inject_faults(
    State(shared): State<Arc<Shared>>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    let target = if path.starts_with("/api/scim/") {
        Some(Target::Scim)
    } else if path.ends_with("/chat/abort") {
        Some(Target::Abort)
    } else if path.ends_with("/chat/stream-chat-state") {
        Some(Target::Chat)
    } else {
        None
    };
    let injected = target
        .map(|t| shared.faults.on_request(t))
        .unwrap_or_default();
    if !injected.delay.is_zero() {
        let mut stop = shared.shutdown.clone();
        tokio::select! {
            _ = tokio::time::sleep(injected.delay) => {}
            _ = stop.wait_for(|s| *s) => {}
        }
    }
    if let Some((code, retry_after, spec)) = injected.status {
        let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let message = format!("injected fault ({spec}): HTTP {code}");
        let mut resp = match target {
            Some(Target::Scim) => scim_error(status, None, &message),
            _ => error(status, message),
        };
        if let Some(secs) = retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        return resp;
    }
    req.extensions_mut().insert(injected.lines);
    next.run(req).await
}
