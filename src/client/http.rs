//! The HTTP client every command shares: timeouts, redirects that never carry credentials to
//! another origin, `-v`/`-vv` diagnostics and `--dry-run` output with secrets masked ([`log`]),
//! one send helper, one bounded body read, and error answers read into messages
//! ([`error_doc`]).

use crate::exit::{Status, fail};
use anyhow::Result;
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::redirect;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use url::Url;

mod error_doc;
mod log;

pub use error_doc::{ErrorDoc, describe_body, error_for_status};
pub use log::{RequestLog, log_response, secret_header};

/// The shared client and its diagnostic level.
#[derive(Clone, Debug)]
pub struct Http {
    /// The configured reqwest clients (proxies from the environment are honoured).
    clients: Arc<Clients>,
    /// `-v` count.
    pub verbose: u8,
    /// The longest wait for the next byte of a response, if set.
    pub idle_timeout: Option<Duration>,
}

/// The reqwest clients, each made when a request first needs it. Loading the system's trusted
/// certificates takes several milliseconds (hundreds of files on a Linux machine), half of a
/// short command's time, which a command talking plain HTTP (the emulator, a local server) need
/// not pay.
#[derive(Debug)]
struct Clients {
    connect_timeout: Duration,
    idle_timeout: Option<Duration>,
    /// A proxy is configured in the environment (read once, as reqwest reads it once when a
    /// client is made).
    proxy: bool,
    /// For https, and for anything when a proxy is configured: the platform's verifier.
    tls: OnceLock<Result<reqwest::Client, String>>,
    /// For http with no proxy configured: no trusted certificates at all. Redirects keep the
    /// scheme, so no https URL reaches it; one that did would fail to verify, never pass.
    plain: OnceLock<Result<reqwest::Client, String>>,
}

/// The variables reqwest reads proxies from (a proxy may itself be reached over TLS).
const PROXY_VARS: [&str; 6] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// Whether a request to `url` may need TLS: an https URL, or any URL when a proxy is
/// configured (the proxy itself may be reached over TLS).
fn needs_tls(url: &Url, proxy: bool) -> bool {
    url.scheme() != "http" || proxy
}

impl Clients {
    /// The client for `url`, made the first time one is needed.
    fn for_url(&self, url: &Url) -> Result<&reqwest::Client> {
        let tls = needs_tls(url, self.proxy);
        let cell = if tls { &self.tls } else { &self.plain };
        cell.get_or_init(|| self.build(tls).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| fail(Status::Network, format!("cannot set up HTTP: {e}")))
    }

    fn build(&self, tls: bool) -> reqwest::Result<reqwest::Client> {
        // The process-wide TLS provider: ring (see Cargo.toml). A second install (another
        // command in the same process, a test) finds it there already, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("analyst/", env!("CARGO_PKG_VERSION")))
            .redirect(same_origin_redirects())
            .connect_timeout(self.connect_timeout)
            .tcp_nodelay(true);
        if let Some(idle) = self.idle_timeout {
            builder = builder.read_timeout(idle);
        }
        if !tls {
            builder = builder.tls_certs_only([]);
        }
        builder.build()
    }
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
    /// The client for these timeouts and verbosity (the reqwest clients are made when a
    /// request first needs one).
    pub fn new(
        connect_timeout: Option<Duration>,
        idle_timeout: Option<Duration>,
        verbose: u8,
    ) -> Http {
        Http {
            clients: Arc::new(Clients {
                connect_timeout: connect_timeout.unwrap_or(Duration::from_secs(30)),
                idle_timeout,
                proxy: PROXY_VARS
                    .iter()
                    .any(|v| std::env::var_os(v).is_some_and(|p| !p.is_empty())),
                tls: OnceLock::new(),
                plain: OnceLock::new(),
            }),
            verbose,
            idle_timeout,
        }
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
            .clients
            .for_url(req.url)?
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

/// Insert a header by name.
pub fn insert(headers: &mut HeaderMap, name: &'static str, value: HeaderValue) {
    headers.insert(HeaderName::from_static(name), value);
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

#[cfg(test)]
mod tests {
    use super::log::is_secret_header;
    use super::*;
    use crate::protocol::words::trim_body;
    use crate::settings::Secret;

    #[test]
    fn only_plain_http_without_a_proxy_goes_without_tls() {
        let url = |u: &str| Url::parse(u).unwrap();
        assert!(!needs_tls(&url("http://127.0.0.1:8080/api"), false));
        assert!(needs_tls(&url("http://127.0.0.1:8080/api"), true));
        assert!(needs_tls(&url("https://example.com/api"), false));
        assert!(needs_tls(&url("https://example.com/api"), true));
    }

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
