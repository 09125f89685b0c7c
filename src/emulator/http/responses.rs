//! Response builders shared by the routes: chat errors, JSON, SCIM errors and bodies.

use crate::protocol::{Dialect, emit};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The SCIM media type, sent on every SCIM response.
pub(crate) const SCIM_JSON: &str = "application/scim+json";

/// A chat-side error: `{"error": message}` as JSON.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    json_response(status, &emit::error_line(&message.into()))
}

/// Bad chat credentials: 401, or (docs, legacy) a JSON-RPC style error object in a 200.
pub(crate) fn unauthorized(dialect: Dialect, message: &str) -> Response {
    if dialect.http_refusals() {
        error(StatusCode::UNAUTHORIZED, message)
    } else {
        // In a 200, where a stream would be: one `\n`-terminated line, as stream lines are.
        (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            format!("{}\n", emit::jsonrpc_error(-32001, message)),
        )
            .into_response()
    }
}

/// A chat-side validation error naming the field: `{"error", "field"}`.
pub(crate) fn field_error(status: StatusCode, field: &str, message: impl Into<String>) -> Response {
    let mut body = emit::error_line(&message.into());
    body["field"] = json!(field);
    json_response(status, &body)
}

/// Any JSON body with `Content-Type: application/json`.
pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// A SCIM Error (RFC 7644 3.12); `status` is a string as the RFC says.
pub(crate) fn scim_error(status: StatusCode, scim_type: Option<&str>, detail: &str) -> Response {
    let mut body = json!({
        "schemas": [crate::protocol::scim::ERROR_URN],
        "status": status.as_u16().to_string(),
        "detail": detail,
    });
    if let Some(t) = scim_type {
        body["scimType"] = json!(t);
    }
    scim_json(status, &body, None)
}

/// A SCIM body with the SCIM media type and, for a resource, its ETag.
pub(crate) fn scim_json(status: StatusCode, body: &Value, etag: Option<&str>) -> Response {
    let mut resp = (
        status,
        [(header::CONTENT_TYPE, SCIM_JSON)],
        body.to_string(),
    )
        .into_response();
    if let Some(value) = etag.and_then(|e| HeaderValue::from_str(e).ok()) {
        resp.headers_mut().insert(header::ETAG, value);
    }
    resp
}
