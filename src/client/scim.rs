//! SCIM over HTTP (RFC 7644): PATCH one user, find a user by userName, read Users and Groups
//! page by page ([`list`]), change a group's members ([`groups`]). 429 and 503 are retried
//! as [`RetryPolicy`] says; every other answer is handed back as it came ([`Reply`]), for the
//! caller to judge ([`reply`] says what an answer means).

pub mod groups;
pub mod list;
mod reply;
mod retry;

pub use list::{ListQuery, Pager, Resource, id_of};
#[cfg(test)]
use reply::is_list_response;
#[cfg(test)]
use reply::is_user;
pub use reply::{Failed, Patched, Reply};
use reply::{http_failure, redirect_failure};
pub use retry::{RetryAfter, RetryPolicy, come_back, parse_retry_after};

use super::http::{Http, Outgoing, RequestLog, insert, network, read_bounded, secret_header};
use crate::exit::{Status, usage};
use crate::settings::ScimSettings;
use anyhow::Result;
use reqwest::Method;
use reqwest::header::{
    CONTENT_ENCODING, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION, RETRY_AFTER,
};
use serde_json::Value;
use std::time::SystemTime;
use url::Url;

/// The SCIM media type (RFC 7644 §3.1).
pub const SCIM_JSON: &str = "application/scim+json";

/// The most of a response body kept: enough for any User, and a hostile server cannot make the
/// client hold more. A 2xx past it is a failure, named with [`MAX_BODY_NAME`].
const MAX_BODY: usize = 4 << 20;
const MAX_BODY_NAME: &str = "4 MiB";

/// What a PATCH carries besides the user id.
#[derive(Clone, Debug)]
pub struct PatchSpec {
    /// The serialized PatchOp, the same bytes for every user.
    pub body: Vec<u8>,
    /// `If-Match`.
    pub if_match: Option<String>,
    /// `?attributes=`.
    pub attributes: Option<String>,
}

/// One request, built once and then sent, logged or shown by `--dry-run`.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET` or `PATCH`.
    pub method: Method,
    /// The full URL.
    pub url: Url,
    /// Headers; the token is marked sensitive.
    pub headers: HeaderMap,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
}

impl Request {
    /// The request as `-vv` and `--dry-run` show it, token masked.
    pub fn log(&self) -> RequestLog {
        RequestLog::new(
            self.method.clone(),
            self.url.as_str(),
            &self.headers,
            self.body.as_deref(),
        )
    }
}

/// A SCIM client for one root and token; cheap to share (one connection pool).
#[derive(Debug)]
pub struct ScimClient {
    http: Http,
    root: Url,
    users: Url,
    auth: HeaderValue,
    retry: RetryPolicy,
}

impl ScimClient {
    /// A client for `settings.root`, sending `settings.token` as a Bearer token.
    pub fn new(http: Http, settings: &ScimSettings, retry: RetryPolicy) -> Result<ScimClient> {
        let mut users = settings.root.clone();
        users
            .path_segments_mut()
            .map_err(|_| usage(format!("the SCIM URL {} cannot take a path", settings.root)))?
            .pop_if_empty()
            .push("Users");
        // A token pasted with its scheme ("Bearer abc") is sent as is, not as "Bearer Bearer abc".
        let token = settings.token.expose();
        let has_scheme = token
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("bearer "));
        let auth = secret_header(if has_scheme { "" } else { "Bearer " }, &settings.token)?;
        Ok(ScimClient {
            http,
            root: settings.root.clone(),
            users,
            auth,
            retry,
        })
    }

    fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        insert(&mut h, "authorization", self.auth.clone());
        insert(
            &mut h,
            "accept",
            HeaderValue::from_static("application/scim+json, application/json"),
        );
        h
    }

    /// `{root}/Users/{id}`, the id percent-encoded as one path segment.
    pub fn user_url(&self, id: &str) -> Url {
        let mut url = self.users.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.push(id);
        }
        url
    }

    /// The PATCH of one user.
    pub fn patch_request(&self, id: &str, spec: &PatchSpec) -> Request {
        let mut url = self.user_url(id);
        if let Some(list) = &spec.attributes {
            url.set_query(Some(&format!("attributes={}", encode_query(list, b","))));
        }
        let mut headers = self.headers();
        insert(
            &mut headers,
            "content-type",
            HeaderValue::from_static(SCIM_JSON),
        );
        if let Some(etag) = &spec.if_match
            && let Ok(v) = HeaderValue::from_str(etag)
        {
            insert(&mut headers, "if-match", v);
        }
        Request {
            method: Method::PATCH,
            url,
            headers,
            body: Some(spec.body.clone()),
        }
    }

    /// `GET {root}/Users?filter=userName eq "NAME"`.
    pub fn lookup_request(&self, user_name: &str) -> Request {
        self.find_request(Resource::Users, user_name)
    }

    /// Send a request; 429 and 503 are retried per the policy. `salt` varies the jitter.
    pub async fn send(&self, req: &Request, salt: u64) -> Result<Reply, Failed> {
        let verbose = self.http.verbose;
        let what = format!("{} {}", req.method, req.url.path());
        let mut retry = 0;
        loop {
            let mut resp = self
                .http
                .send(Outgoing {
                    method: req.method.clone(),
                    url: &req.url,
                    headers: req.headers.clone(),
                    body: req.body.clone(),
                    timeout: None,
                    what: &what,
                })
                .await
                .map_err(|e| Failed::from_error(&e))?;
            let status = resp.status();
            let location = header_text(resp.headers(), LOCATION);
            let retry_after = header_text(resp.headers(), RETRY_AFTER);
            let content_type = header_text(resp.headers(), CONTENT_TYPE);
            let content_encoding = header_text(resp.headers(), CONTENT_ENCODING);
            let read = read_bounded(&mut resp, MAX_BODY)
                .await
                .map_err(|e| Failed::from_error(&network(&what, &req.url, &e)))?;
            let body = read.body;
            if !matches!(status.as_u16(), 429 | 503) {
                return Ok(Reply {
                    status,
                    location,
                    content_type,
                    content_encoding,
                    body,
                    over_limit: read.over_limit,
                });
            }
            let tries = retry + 1;
            if retry >= self.retry.retries {
                let mut f = http_failure(status, &body);
                f.message.push_str(&format!(
                    " (gave up after {tries} tr{})",
                    if tries == 1 { "y" } else { "ies" }
                ));
                return Err(f);
            }
            let now = SystemTime::now();
            let wait = match retry_after.as_deref().map(|v| parse_retry_after(v, now)) {
                Some(RetryAfter::Wait(w)) if w > self.retry.max_wait => {
                    let mut f = http_failure(status, &body);
                    f.message = format!(
                        "{}; the server asked to come back {}, later than the {} s this waits",
                        f.message,
                        come_back(w, now),
                        self.retry.max_wait.as_secs()
                    );
                    return Err(f);
                }
                Some(RetryAfter::Wait(w)) => w,
                Some(RetryAfter::Invalid) | None => self.retry.backoff(retry, salt),
            };
            if verbose > 0 {
                crate::term::diag(format_args!(
                    "analyst: {} {}: HTTP {status}, try {} of {} in {:.1}s",
                    req.method,
                    req.url,
                    tries + 1,
                    self.retry.retries + 1,
                    wait.as_secs_f64()
                ));
            }
            tokio::time::sleep(wait).await;
            retry += 1;
        }
    }

    /// PATCH one user and judge the answer: a 204, a 2xx with no body, or a 2xx with a User
    /// succeeds; anything else, a 200 with an SSO page or an error document included, is a
    /// [`Failed`] that says what came back, so a script never counts a patch that did not happen.
    pub async fn patch(&self, id: &str, spec: &PatchSpec, salt: u64) -> Result<Patched, Failed> {
        let reply = self.send(&self.patch_request(id, spec), salt).await?;
        judge_patch(&reply, Resource::Users)
    }

    /// The id of the one user whose userName is `name`; no match or several is a [`Failed`]
    /// with no HTTP status (nothing was patched).
    pub async fn find_user(&self, name: &str, salt: u64) -> Result<String, Failed> {
        let user = self.find(Resource::Users, name, salt).await?;
        id_of(&user).ok_or_else(|| {
            Failed::new(
                None,
                Status::Failure,
                format!("looking up userName {name:?}: the user found has no id"),
            )
        })
    }
}

/// A PATCH's answer judged: a 204, a 2xx with no body, or a 2xx with the resource succeeds;
/// anything else, a 200 with an SSO page or an error document included, is a [`Failed`].
fn judge_patch(reply: &Reply, kind: Resource) -> Result<Patched, Failed> {
    let code = reply.status.as_u16();
    if reply.status.is_redirection() {
        return Err(redirect_failure(reply));
    }
    if !reply.status.is_success() {
        return Err(http_failure(reply.status, &reply.body));
    }
    if code == 204 {
        return Ok(Patched {
            status: code,
            user: None,
        });
    }
    if let Some(f) = reply.unreadable() {
        return Err(f);
    }
    if reply.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Patched {
            status: code,
            user: None,
        });
    }
    match serde_json::from_slice::<Value>(&reply.body) {
        Ok(v) if kind.recognises(&v) => Ok(Patched {
            status: code,
            user: Some(v),
        }),
        _ => Err(reply.not_a(kind.schema_name())),
    }
}

/// Percent-encode a query value: everything but RFC 3986 unreserved characters and `keep`
/// (spaces become %20, not `+`, which not every SCIM server decodes).
fn encode_query(value: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(value.len() * 3 / 2);
    for &b in value.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || keep.contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn header_text(headers: &HeaderMap, name: reqwest::header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::ErrorDoc;
    use crate::protocol::scim::USER_URN;
    use crate::settings::Secret;
    use reqwest::StatusCode;

    fn client(token: &str) -> ScimClient {
        let settings = ScimSettings {
            root: Url::parse("https://t.example.com/api/scim/v2").unwrap(),
            token: Secret::new(token.into(), "t").unwrap(),
        };
        ScimClient::new(Http::new(None, None, 0), &settings, RetryPolicy::new(3)).unwrap()
    }

    fn spec() -> PatchSpec {
        PatchSpec {
            body: b"{}".to_vec(),
            if_match: Some("W/\"3\"".into()),
            attributes: Some("userName,active".into()),
        }
    }

    #[test]
    fn ids_are_one_encoded_segment() {
        let c = client("tok");
        assert_eq!(
            c.user_url("a/b c?d#e%f").as_str(),
            "https://t.example.com/api/scim/v2/Users/a%2Fb%20c%3Fd%23e%25f"
        );
        let r = c.patch_request("42", &spec());
        assert_eq!(
            r.url.as_str(),
            "https://t.example.com/api/scim/v2/Users/42?attributes=userName,active"
        );
        assert_eq!(r.headers["if-match"], "W/\"3\"");
        assert_eq!(r.headers["content-type"], SCIM_JSON);
        assert_eq!(r.headers["authorization"], "Bearer tok");
    }

    #[test]
    fn bearer_is_not_doubled_and_never_shown() {
        let r = client("Bearer tok").patch_request("1", &spec());
        assert_eq!(r.headers["authorization"], "Bearer tok");
        let shown = r.log().render();
        assert!(
            shown.contains("authorization: ***") && !shown.contains("tok"),
            "{shown}"
        );
    }

    #[test]
    fn lookup_query_is_percent_encoded() {
        let r = client("t").lookup_request("a b\"c@d.e");
        assert_eq!(
            r.url.query(),
            Some("filter=userName%20eq%20%22a%20b%5C%22c%40d.e%22")
        );
    }

    #[test]
    fn error_documents_in_a_200_mean_what_they_say() {
        let status = |body: &str| ErrorDoc::find(body.as_bytes()).map(|d| d.status());
        assert_eq!(
            status(r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Invalid API key"}}"#),
            Some(Status::Auth)
        );
        assert_eq!(
            status(r#"{"jsonrpc":"2.0","error":{"code":403,"message":"nope"}}"#),
            Some(Status::Auth)
        );
        assert_eq!(
            status(r#"{"error":"Thread not found"}"#),
            Some(Status::NotFound)
        );
        // A parser's "token" is not a credential.
        assert_eq!(
            status(r#"{"error":"Unexpected token < in JSON at position 0"}"#),
            Some(Status::Failure)
        );
        assert_eq!(
            status(
                r#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":409,"detail":"taken"}"#
            ),
            Some(Status::Conflict)
        );
        // A User is no error, whatever extension fields it carries.
        assert_eq!(status(r#"{"id":"1","detail":"x","error":null}"#), None);
        assert_eq!(status("<html>"), None);
    }

    #[test]
    fn users_and_lists_are_recognised_leniently() {
        for yes in [
            serde_json::json!({"id": "1"}),
            serde_json::json!({"userName": "a@b"}),
            serde_json::json!({"schemas": [USER_URN]}),
            serde_json::json!({"Meta": {"ResourceType": "User"}}),
        ] {
            assert!(is_user(&yes), "{yes}");
        }
        for no in [
            serde_json::json!({}),
            serde_json::json!({"id": null, "result": "queued"}),
            serde_json::json!([{"id": "1"}]),
            serde_json::json!("ok"),
        ] {
            assert!(!is_user(&no), "{no}");
        }
        assert!(is_list_response(&serde_json::json!({"totalResults": 0})));
        assert!(!is_list_response(&serde_json::json!({"ok": true})));
    }

    #[test]
    fn errors_name_the_status_and_detail() {
        let f = http_failure(
            StatusCode::NOT_FOUND,
            br#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"404","detail":"User 7 not found"}"#,
        );
        assert_eq!(f.exit, Status::NotFound);
        assert!(f.message.ends_with(": User 7 not found"), "{}", f.message);
        let f = http_failure(
            StatusCode::CONFLICT,
            br#"{"status":409,"scimType":"uniqueness","detail":"taken"}"#,
        );
        assert_eq!(f.exit, Status::Conflict);
        assert!(f.message.ends_with("taken (uniqueness)"), "{}", f.message);
        let f = http_failure(
            StatusCode::BAD_GATEWAY,
            b"<html>\n<h1>Bad gateway</h1></html>",
        );
        assert_eq!(f.exit, Status::Failure);
        assert!(
            f.message.contains("<html> <h1>Bad gateway</h1></html>"),
            "{}",
            f.message
        );
    }
}
