//! `serve -v`: one line per request on stderr (method, path, status, duration, user); `-vv`
//! adds the request body with secrets masked. The outermost layer, so faults are logged too.

use super::auth;
use super::shared::{Shared, read_body};
use crate::protocol::redact;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// Largest body the log reads; larger ones are passed on unread and logged without a user.
const MAX_LOGGED: usize = 10 << 20;
/// Fields masked besides credentials ([`redact::is_secret_name`]): the row-level security
/// context, and image data (long, and the user's own).
const ALSO_MASKED: &[&str] = &["securityContext", "data"];

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
    let (parts, body) = req.into_parts();
    let bytes = read_body(body, MAX_LOGGED).await.unwrap_or_default();
    let json: Option<Value> = serde_json::from_slice(&bytes).ok();
    let user = user(&shared, &path, &parts.headers, json.as_ref()).unwrap_or_else(|| "-".into());
    let body_text = (shared.log >= 2 && !bytes.is_empty()).then(|| match &json {
        Some(v) => redact::masked(v.clone(), ALSO_MASKED).to_string(),
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

/// Who the request authenticated as, by the routes' own checks: the data API token's `sub`;
/// for SCIM the token, when it is accepted; for chat and abort the token's identity or, with a
/// valid API key, the body's `sessionSettings`. `None` when the credentials are refused.
fn user(shared: &Shared, path: &str, headers: &HeaderMap, body: Option<&Value>) -> Option<String> {
    if path.starts_with("/cubejs-api/") {
        let token = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
        let token = token.strip_prefix("Bearer ").unwrap_or(token);
        let claims = auth::verified_claims(token, &shared.data_secret, &shared.clock).ok()?;
        return claims.get("sub").and_then(Value::as_str).map(str::to_owned);
    }
    if path.starts_with("/api/scim/") {
        return auth::scim_caller(headers, &shared.account_keys())
            .ok()
            .map(|()| "(scim token)".to_owned());
    }
    let token_only = path.contains("/deployments/");
    let caller = auth::caller_of(shared, headers, token_only).ok()?;
    let named = |s: &Value| {
        s.get("externalId")
            .or_else(|| s.get("internalId"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match caller {
        auth::ChatCaller::ApiKey => named(body?.get("sessionSettings")?),
        auth::ChatCaller::Token(settings) => settings
            .external_id
            .clone()
            .or_else(|| settings.internal_id.clone())
            .or(Some("(token)".to_owned())),
    }
}
