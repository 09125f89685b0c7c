//! Error answers in the shapes servers send (JSON-RPC, plain `{"error": ...}`, SCIM Error) read
//! into one description, and an HTTP failure turned into a message with its exit status.

use crate::exit::{Status, fail};
use crate::protocol::words::{is_busy, server_words, trim_body};

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
        match http {
            Some(401 | 403) => Status::Auth,
            Some(404) => Status::NotFound,
            _ if crate::protocol::words::about_credentials(&words) => Status::Auth,
            _ if words.contains("not found") => Status::NotFound,
            // PROTOCOL.md: a JSON-RPC style error object in a 200 is how some servers say
            // "bad credentials" (their 401), whatever its words; JSON-RPC's own codes for
            // broken requests and internal errors say otherwise.
            _ if self.kind == ErrorKind::JsonRpc
                && !crate::protocol::words::is_jsonrpc_standard_error(self.code) =>
            {
                Status::Auth
            }
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
