//! What `-v` and `-vv` show of a request and its answer, with every secret masked: the method
//! and URL, the headers (credentials and API keys shown as `***`), the body, and the status.

use crate::protocol::redact::is_secret_name;
use crate::settings::Secret;
use anyhow::Result;
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderValue};

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
        // A JSON body's credentials (a SCIM password, a token in a body) are masked too: the log
        // is for reading, unlike `--dry-run`, whose output is the request itself.
        let body = self.body.as_deref().map(|text| {
            serde_json::from_str(text).map_or_else(
                |_| text.to_owned(),
                |v| crate::protocol::redact::masked(v, &[]).to_string(),
            )
        });
        let shown = RequestLog {
            body,
            ..self.clone()
        };
        for line in shown.render().lines() {
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
/// judged by [`is_secret_name`] (auth and cookie headers, `*-token`, `*-secret`, API keys: the
/// rule `serve -vv` masks bodies by), and any `*-key` header too.
pub fn is_secret_header(name: &str, value: &HeaderValue) -> bool {
    value.is_sensitive() || is_secret_name(name) || name.to_ascii_lowercase().ends_with("-key")
}

/// A header value that carries a secret: marked sensitive so it is masked everywhere.
pub fn secret_header(prefix: &str, secret: &Secret) -> Result<HeaderValue> {
    let mut v = HeaderValue::from_str(&format!("{prefix}{}", secret.expose())).map_err(|_| {
        crate::exit::usage("the secret holds characters that cannot go into an HTTP header")
    })?;
    v.set_sensitive(true);
    Ok(v)
}
