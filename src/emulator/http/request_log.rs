//! `serve -v`: one line per request on stderr (method, path, status, duration, user); `-vv`
//! adds the request body with secrets masked. The outermost layer, so faults are logged too.

use super::shared::{Shared, read_body};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// Largest body the log reads; larger ones are passed on unread and logged without a user.
const MAX_LOGGED: usize = 10 << 20;
/// Fields whose values never appear in the log.
const SECRET_KEYS: &[&str] = &["password", "securityContext", "data", "token", "apiKey"];

/// Log the request after it is answered (a stream: when its head is sent).
pub(crate) async fn log_requests(
    State(shared): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    if shared.log == 0 {
        return next.run(req).await;
    }
    let started = Instant::now();
    let (method, path) = (req.method().clone(), req.uri().path().to_owned());
    let token_user = req
        .headers()
        .get("x-cube-auth-token")
        .map(|_| "(token)".to_owned());
    let scim = req.headers().contains_key(header::AUTHORIZATION) && path.starts_with("/api/scim/");
    let (parts, body) = req.into_parts();
    let bytes = read_body(body, MAX_LOGGED).await.unwrap_or_default();
    let json: Option<Value> = serde_json::from_slice(&bytes).ok();
    let user = json
        .as_ref()
        .and_then(|v| v.get("sessionSettings"))
        .and_then(|s| s.get("externalId").or_else(|| s.get("internalId")))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or(token_user)
        .or_else(|| scim.then(|| "(scim token)".to_owned()))
        .unwrap_or_else(|| "-".to_owned());
    let body_text = (shared.log >= 2 && !bytes.is_empty()).then(|| match &json {
        Some(v) => masked(v.clone()).to_string(),
        None => format!("({} bytes, not JSON)", bytes.len()),
    });
    let resp = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let line = format!(
        "analyst serve: {method} {path} {} {:.1}ms user={user}",
        resp.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    let mut err = std::io::stderr().lock();
    use std::io::Write;
    let _ = writeln!(err, "{line}");
    if let Some(body) = body_text {
        let _ = writeln!(err, "  body: {body}");
    }
    resp
}

/// The value with every secret field's value replaced by `***`.
fn masked(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let secret = SECRET_KEYS.iter().any(|s| s.eq_ignore_ascii_case(&k));
                    (
                        k,
                        if secret {
                            Value::from("***")
                        } else {
                            masked(v)
                        },
                    )
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(masked).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_masked_at_any_depth() {
        let v = json!({"userName": "a", "password": "p", "x": [{"securityContext": {"k": 1}}]});
        assert_eq!(
            masked(v),
            json!({"userName": "a", "password": "***", "x": [{"securityContext": "***"}]})
        );
    }
}
