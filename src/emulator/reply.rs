//! Response builders shared by the routes, and random ids and secrets.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// The SCIM media type, sent on every SCIM response.
pub(crate) const SCIM_JSON: &str = "application/scim+json";

/// A chat-side error: `{"error": message}` as JSON.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    json_response(status, &json!({ "error": message.into() }))
}

/// A chat-side validation error naming the field: `{"error", "field"}`.
pub(crate) fn field_error(status: StatusCode, field: &str, message: impl Into<String>) -> Response {
    json_response(status, &json!({ "error": message.into(), "field": field }))
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

/// Fill `buf` from the operating system's random source. If that fails (it practically never
/// does), mix the process's randomly keyed hasher with a counter so ids still differ.
fn fill_random(buf: &mut [u8]) {
    if getrandom::getrandom(buf).is_ok() {
        return;
    }
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    for chunk in buf.chunks_mut(8) {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        let bytes = h.finish().to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

/// `n` random bytes as lowercase hex.
pub(crate) fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    fill_random(&mut buf);
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random version-4 UUID, the form the service uses for thread and user ids.
pub(crate) fn uuid() -> String {
    let mut b = [0u8; 16];
    fill_random(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_look_like_v4() {
        let id = super::uuid();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert_ne!(id, super::uuid());
        assert_eq!(super::random_hex(16).len(), 32);
    }
}
