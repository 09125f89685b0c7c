//! The HTTP client every command shares: timeouts, redirects that never carry credentials to
//! another origin, `-v`/`-vv` diagnostics and `--dry-run` output with secrets masked.

use crate::exit::{Status, fail};
use crate::protocol::words::{is_busy, server_words, trim_body};
use crate::settings::Secret;
use anyhow::Result;
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::redirect;
use std::time::Duration;
use url::Url;

/// The shared client and its diagnostic level.
#[derive(Clone, Debug)]
pub struct Http {
    /// The configured reqwest client (proxies from the environment are honoured).
    pub client: reqwest::Client,
    /// `-v` count.
    pub verbose: u8,
    /// The longest wait for the next byte of a response, if set.
    pub idle_timeout: Option<Duration>,
}

/// Redirects are followed only within the same origin (scheme, host, port), so neither an API
/// key nor a token is ever sent to another host, and only 307/308, which keep the method and
/// body (a 301/302/303 would turn a POST or PATCH into a body-less GET). Any other redirect
/// comes back as the 3xx, and the error names where it pointed.
fn same_origin_redirects() -> redirect::Policy {
    redirect::Policy::custom(|attempt| {
        if attempt.previous().len() >= 5 || !matches!(attempt.status().as_u16(), 307 | 308) {
            return attempt.stop();
        }
        let first = &attempt.previous()[0];
        let next = attempt.url();
        if next.scheme() == first.scheme()
            && next.host_str() == first.host_str()
            && next.port_or_known_default() == first.port_or_known_default()
        {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

impl Http {
    /// Build the client from the timeouts and verbosity.
    pub fn new(
        connect_timeout: Option<Duration>,
        idle_timeout: Option<Duration>,
        verbose: u8,
    ) -> Result<Http> {
        // The process-wide TLS provider: ring (see Cargo.toml). A second install (another
        // command in the same process, a test) finds it there already, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("analyst/", env!("CARGO_PKG_VERSION")))
            .redirect(same_origin_redirects())
            .connect_timeout(connect_timeout.unwrap_or(Duration::from_secs(30)))
            .tcp_nodelay(true);
        if let Some(idle) = idle_timeout {
            builder = builder.read_timeout(idle);
        }
        let client = builder
            .build()
            .map_err(|e| fail(Status::Network, format!("cannot set up HTTP: {e}")))?;
        Ok(Http {
            client,
            verbose,
            idle_timeout,
        })
    }
}

/// The most of an error body (or of a 2xx body that is judged whole) the client reads.
pub const BODY_LIMIT: usize = 64 * 1024;

/// One request to send with [`Http::send`].
pub struct Outgoing<'a> {
    /// The method.
    pub method: Method,
    /// The full URL.
    pub url: &'a Url,
    /// Headers (secrets marked sensitive, so the log masks them).
    pub headers: HeaderMap,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
    /// A bound on the whole exchange (a cancel must not hang), beyond the idle timeout.
    pub timeout: Option<Duration>,
    /// What the request is, for messages ("sql", "abort c1", "PATCH user 42").
    pub what: &'a str,
}

impl Http {
    /// The one way a request goes out: logged for `-v`/`-vv` (secrets masked), sent, a failed
    /// send turned into an exit-6 error that names where it was going and why, the response's
    /// status and headers logged. Statuses are the caller's to judge.
    pub async fn send(&self, req: Outgoing<'_>) -> Result<reqwest::Response> {
        if self.verbose > 0 {
            RequestLog::new(
                req.method.clone(),
                req.url.as_str(),
                &req.headers,
                req.body.as_deref(),
            )
            .log(self.verbose);
        }
        let mut builder = self
            .client
            .request(req.method, req.url.clone())
            .headers(req.headers);
        if let Some(body) = req.body {
            builder = builder.body(body);
        }
        if let Some(timeout) = req.timeout {
            builder = builder.timeout(timeout);
        }
        let response = builder
            .send()
            .await
            .map_err(|e| network(req.what, req.url, &e))?;
        log_response(self.verbose, response.status(), response.headers());
        Ok(response)
    }
}

/// A failed send as an exit-6 error that says what it was, where it was going and why (the
/// innermost cause: refused, DNS, TLS...).
pub fn network(what: &str, url: &Url, e: &reqwest::Error) -> anyhow::Error {
    let why = if e.is_timeout() {
        "timed out waiting for"
    } else if e.is_connect() {
        "cannot connect to"
    } else {
        "request failed to"
    };
    let origin = url.origin().ascii_serialization();
    let cause = crate::client::body::innermost(e);
    fail(Status::Network, format!("{what}: {why} {origin}: {cause}"))
}

/// Up to [`BODY_LIMIT`] bytes of an error response's body; whatever arrived if the read fails.
pub async fn error_body(response: &mut reqwest::Response) -> Vec<u8> {
    let mut read = Bounded::default();
    // A failing read still leaves the server's first words to quote.
    let _ = read_into(response, BODY_LIMIT, &mut read).await;
    read.body
}

/// A request as it will be (or would have been) sent, for `-v`, `-vv` and `--dry-run`.
#[derive(Clone, Debug)]
pub struct RequestLog {
    /// Method.
    pub method: Method,
    /// URL.
    pub url: String,
    /// Headers, secrets already masked.
    pub headers: Vec<(String, String)>,
    /// Body, if any.
    pub body: Option<String>,
}

impl RequestLog {
    /// A request with headers; values of secret headers ([`is_secret_header`]) are `***`.
    pub fn new(method: Method, url: &str, headers: &HeaderMap, body: Option<&[u8]>) -> RequestLog {
        let headers = headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), shown(k.as_str(), v).to_owned()))
            .collect();
        RequestLog {
            method,
            url: url.to_owned(),
            headers,
            body: body.map(|b| String::from_utf8_lossy(b).into_owned()),
        }
    }

    /// The curl-like rendering: request line, headers, blank line, body.
    pub fn render(&self) -> String {
        let mut s = format!("{} {}\n", self.method, self.url);
        for (k, v) in &self.headers {
            s.push_str(&format!("{k}: {v}\n"));
        }
        if let Some(body) = &self.body {
            s.push('\n');
            s.push_str(body);
            if !body.ends_with('\n') {
                s.push('\n');
            }
        }
        s
    }

    /// `{method, url, headers, body}` for `--dry-run -o json|ndjson|yaml`: headers as an object
    /// (secrets already masked; repeated names joined with `, `), the body parsed when it is
    /// JSON, else a string, `null` when there is none.
    pub fn to_json(&self) -> serde_json::Value {
        let mut headers = serde_json::Map::new();
        for (k, v) in &self.headers {
            let joined = match headers.get(k).and_then(serde_json::Value::as_str) {
                Some(before) => format!("{before}, {v}"),
                None => v.clone(),
            };
            headers.insert(k.clone(), joined.into());
        }
        let body = match &self.body {
            None => serde_json::Value::Null,
            Some(text) => serde_json::from_str(text).unwrap_or_else(|_| text.clone().into()),
        };
        serde_json::json!({"method": self.method.as_str(), "url": self.url, "headers": headers, "body": body})
    }

    /// Print to stderr at the given verbosity: `-v` the request line, `-vv` headers and body.
    pub fn log(&self, verbose: u8) {
        if verbose == 0 {
            return;
        }
        if verbose == 1 {
            crate::term::diag(format_args!("> {} {}", self.method, self.url));
            return;
        }
        for line in self.render().lines() {
            crate::term::diag(format_args!("> {line}"));
        }
    }
}

/// Log a response's status (and headers with `-vv`) on stderr.
pub fn log_response(verbose: u8, status: reqwest::StatusCode, headers: &HeaderMap) {
    if verbose == 0 {
        return;
    }
    crate::term::diag(format_args!("< {}", status));
    if verbose >= 2 {
        for (k, v) in headers {
            crate::term::diag(format_args!("< {k}: {}", shown(k.as_str(), v)));
        }
    }
}

/// A header's value as diagnostics show it: `***` for a secret.
fn shown<'a>(name: &str, value: &'a HeaderValue) -> &'a str {
    if is_secret_header(name, value) {
        "***"
    } else {
        value.to_str().unwrap_or("<binary>")
    }
}

/// The one rule for what `-v`, `-vv` and `--dry-run` may show, for requests and responses alike:
/// a value is secret when we marked it sensitive, or when its header's name says it can carry a
/// credential (what a server sends back, a cookie or a fresh token, is never marked). Names are
/// matched case-insensitively: the usual auth and cookie headers, and any `*-token`, `*-key` or
/// `*-secret`.
pub fn is_secret_header(name: &str, value: &HeaderValue) -> bool {
    if value.is_sensitive() {
        return true;
    }
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization"
            | "proxy-authorization"
            | "cookie"
            | "set-cookie"
            | "x-cube-auth-token"
            | "token"
            | "apikey"
    ) || ["-token", "-key", "-secret"]
        .iter()
        .any(|end| name.ends_with(end))
}

/// A header value that carries a secret: marked sensitive so it is masked everywhere.
pub fn secret_header(prefix: &str, secret: &Secret) -> Result<HeaderValue> {
    let mut v = HeaderValue::from_str(&format!("{prefix}{}", secret.expose())).map_err(|_| {
        crate::exit::usage("the secret holds characters that cannot go into an HTTP header")
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// Insert a header by name.
pub fn insert(headers: &mut HeaderMap, name: &'static str, value: HeaderValue) {
    headers.insert(HeaderName::from_static(name), value);
}

/// An error for an HTTP failure: the status, what it means, and the server's words.
pub fn error_for_status(what: &str, status: reqwest::StatusCode, body: &[u8]) -> anyhow::Error {
    let words = server_words(body);
    let code = status.as_u16();
    let mut exit = Status::from_http(code);
    let hint = match code {
        300..=399 => {
            " (a redirect that was not followed: credentials only go to the URL given; use the URL it points to)"
        }
        401 => " (check the API key)",
        403 => " (permission refused)",
        404 => " (check the URL, account, agent or id)",
        _ => "",
    };
    if is_busy(&String::from_utf8_lossy(body)) {
        exit = Status::Conflict;
    }
    let detail = if words.is_empty() {
        String::new()
    } else {
        format!(": {words}")
    };
    fail(exit, format!("{what}: HTTP {status}{hint}{detail}"))
}

// ----- judging the body of a 2xx answer -----

/// A response body read up to a limit.
#[derive(Clone, Debug, Default)]
pub struct Bounded {
    /// At most the limit's worth of bytes.
    pub body: Vec<u8>,
    /// Whether more came than the limit (the rest was not read).
    pub over_limit: bool,
}

/// Read at most `limit` bytes of a body, so a hostile server cannot make the client hold more,
/// and say whether the body went past it (a cut body must not be judged as if it were whole).
pub async fn read_bounded(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Bounded, reqwest::Error> {
    let mut out = Bounded::default();
    read_into(response, limit, &mut out).await?;
    Ok(out)
}

/// [`read_bounded`] into `out`, which keeps what arrived when the read fails.
async fn read_into(
    response: &mut reqwest::Response,
    limit: usize,
    out: &mut Bounded,
) -> Result<(), reqwest::Error> {
    while let Some(chunk) = response.chunk().await? {
        let room = limit.saturating_sub(out.body.len());
        out.body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() > room {
            out.over_limit = true;
            break;
        }
    }
    Ok(())
}

/// What an unexpected body was, for a message: its Content-Type (or that it had none) and its
/// first words, trimmed; bytes that are not text are counted, not shown.
pub fn describe_body(content_type: Option<&str>, body: &[u8]) -> String {
    const WORDS: usize = 100;
    let kind = match content_type.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => format!("Content-Type: {t}"),
        None => "no Content-Type".to_owned(),
    };
    let head = &body[..body.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => Some(t),
        // Cut in the middle of a character by the 4096 above: the text before it.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).ok(),
        Err(_) => None,
    };
    let Some(text) = text.filter(|t| !t.chars().any(|c| c.is_control() && !c.is_whitespace()))
    else {
        return format!("{} bytes that are not text ({kind})", body.len());
    };
    let mut words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.is_empty() {
        return format!("an empty body ({kind})");
    }
    if words.chars().count() > WORDS || head.len() < body.len() {
        words = words.chars().take(WORDS).collect::<String>() + "…";
    }
    format!("{kind}: {words}")
}

/// An error document in the body of a 2xx answer, sent by servers that report failures with
/// status 200: JSON-RPC style (`{"jsonrpc":"2.0","error":{"code","message"}}`), a bare
/// `{"error": ...}`, or a SCIM Error (RFC 7644 §3.12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorDoc {
    /// Which of the three shapes.
    pub kind: ErrorKind,
    /// The JSON-RPC or error code, or the SCIM Error's `status`.
    pub code: Option<i64>,
    /// The server's words, trimmed.
    pub message: String,
}

/// The shapes of [`ErrorDoc`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `{"jsonrpc": "2.0", "error": {...}}`.
    JsonRpc,
    /// `{"error": ...}`.
    Plain,
    /// `urn:ietf:params:scim:api:messages:2.0:Error`.
    Scim,
}

impl ErrorDoc {
    /// Find an error document in `body`; `None` when the body is anything else.
    pub fn find(body: &[u8]) -> Option<ErrorDoc> {
        use serde_json::Value;
        let v: Value = serde_json::from_slice(body).ok()?;
        let obj = v.as_object()?;
        let code_of = |v: Option<&Value>| match v? {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        let words = |v: &Value| {
            crate::protocol::frame::error_text(v)
                .map(|t| trim_body(t.as_bytes()))
                .unwrap_or_default()
        };
        if let Some(error) = obj.get("error").filter(|e| !e.is_null()) {
            let kind = if obj.contains_key("jsonrpc") {
                ErrorKind::JsonRpc
            } else {
                ErrorKind::Plain
            };
            let code = code_of(error.get("code"))
                .or_else(|| code_of(obj.get("code")))
                .or_else(|| code_of(obj.get("status")));
            return Some(ErrorDoc {
                kind,
                code,
                message: words(error),
            });
        }
        let scim = crate::protocol::scim::ScimError::from_slice(body)?;
        let declared = scim
            .schemas
            .as_ref()
            .is_some_and(|s| s.iter().any(|u| u == crate::protocol::scim::ERROR_URN));
        // Without the schema, `detail` or `scimType` only mean an error in a body with no id.
        (declared || !obj.contains_key("id")).then(|| ErrorDoc {
            kind: ErrorKind::Scim,
            code: scim.status.0,
            message: trim_body(scim.to_string().as_bytes()),
        })
    }

    /// The exit status it means: a SCIM Error's HTTP `status`; else 401/403 or words about
    /// credentials are refusals, 404 or "not found" is not found, anything else a failure.
    pub fn status(&self) -> Status {
        let http = self.code.and_then(|c| u16::try_from(c).ok());
        if let (ErrorKind::Scim, Some(code @ 400..=599)) = (self.kind, http) {
            return Status::from_http(code);
        }
        let words = self.message.to_ascii_lowercase();
        let about_credentials = [
            "unauthori",
            "unauthenticated",
            "authenticat",
            "forbidden",
            "permission",
            "credential",
            "access denied",
            "api key",
            "api-key",
            "apikey",
        ]
        .iter()
        .any(|w| words.contains(w))
            || (words.contains("token")
                && ["invalid", "expired", "missing", "revoked"]
                    .iter()
                    .any(|w| words.contains(w)));
        match http {
            Some(401 | 403) => Status::Auth,
            Some(404) => Status::NotFound,
            _ if about_credentials => Status::Auth,
            _ if words.contains("not found") => Status::NotFound,
            _ => Status::Failure,
        }
    }
}

impl std::fmt::Display for ErrorDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, code) = match self.kind {
            ErrorKind::JsonRpc => ("a JSON-RPC error", "code"),
            ErrorKind::Plain => ("an error object", "code"),
            ErrorKind::Scim => ("a SCIM Error", "status"),
        };
        f.write_str(kind)?;
        if let Some(c) = self.code {
            write!(f, " ({code} {c})")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_in_logs() {
        let mut h = HeaderMap::new();
        insert(
            &mut h,
            "authorization",
            secret_header("Api-Key ", &Secret::new("sk-live-123".into(), "t").unwrap()).unwrap(),
        );
        insert(
            &mut h,
            "content-type",
            HeaderValue::from_static("application/json"),
        );
        let log = RequestLog::new(
            Method::POST,
            "http://h/chat/stream-chat-state",
            &h,
            Some(b"{}"),
        );
        let text = log.render();
        assert!(!text.contains("sk-live-123"));
        assert!(text.contains("authorization: ***"));
        assert!(text.contains("content-type: application/json"));
    }

    #[test]
    fn dry_run_objects_parse_json_bodies_and_keep_others_as_text() {
        let mut h = HeaderMap::new();
        insert(
            &mut h,
            "authorization",
            secret_header("Bearer ", &Secret::new("tok-9".into(), "t").unwrap()).unwrap(),
        );
        let v =
            RequestLog::new(Method::PATCH, "http://h/Users/1", &h, Some(br#"{"a":1}"#)).to_json();
        assert_eq!(
            v,
            serde_json::json!({"method": "PATCH", "url": "http://h/Users/1",
                "headers": {"authorization": "***"}, "body": {"a": 1}})
        );
        let v = RequestLog::new(Method::POST, "http://h/", &h, Some(b"not json")).to_json();
        assert_eq!(v["body"], "not json");
        let v = RequestLog::new(Method::GET, "http://h/", &h, None).to_json();
        assert_eq!(v["body"], serde_json::Value::Null);
    }

    #[test]
    fn credential_headers_are_masked_by_name_whatever_their_case() {
        let plain = HeaderValue::from_static("s3cret");
        for name in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "SET-COOKIE",
            "X-Cube-Auth-Token",
            "x-api-key",
            "X-Auth-Token",
            "x-amz-security-token",
            "Ocp-Apim-Subscription-Key",
            "x-client-secret",
        ] {
            assert!(is_secret_header(name, &plain), "{name}");
        }
        for name in [
            "content-type",
            "x-request-id",
            "keep-alive",
            "www-authenticate",
        ] {
            assert!(!is_secret_header(name, &plain), "{name}");
        }
        // Unmarked values in a request are masked by name too.
        let mut h = HeaderMap::new();
        h.insert(HeaderName::from_static("x-api-key"), plain.clone());
        h.insert(HeaderName::from_static("cookie"), plain);
        let text = RequestLog::new(Method::GET, "http://h/", &h, None).render();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(
            text.contains("x-api-key: ***") && text.contains("cookie: ***"),
            "{text}"
        );
    }

    #[test]
    fn error_bodies_are_trimmed_and_mapped() {
        let e = error_for_status(
            "chat",
            reqwest::StatusCode::NOT_FOUND,
            br#"{"error":"Agent not found"}"#,
        );
        assert_eq!(crate::exit::status_of(&e), Status::NotFound);
        assert!(e.to_string().ends_with(": Agent not found"), "{e}");
        let e = error_for_status(
            "chat",
            reqwest::StatusCode::BAD_REQUEST,
            b"<html>\n<body>Bad</body>\n</html>",
        );
        assert_eq!(crate::exit::status_of(&e), Status::Usage);
        assert!(e.to_string().contains("<html> <body>Bad</body> </html>"));
        let long = "x".repeat(1000);
        assert!(trim_body(long.as_bytes()).chars().count() <= 301);
        let e = error_for_status(
            "chat",
            reqwest::StatusCode::BAD_REQUEST,
            br#"{"error":"Streaming for thread is in progress"}"#,
        );
        assert_eq!(crate::exit::status_of(&e), Status::Conflict);
    }
}
