//! What a SCIM answer means: a reply as it came, judged into a patched user, a found id, or a
//! per-user failure with its status, exit status and message.

use super::MAX_BODY_NAME;
use crate::client::http::{ErrorDoc, describe_body};
use crate::exit::Status;
use crate::protocol::scim::{GROUP_URN, LIST_RESPONSE_URN, ScimError, USER_URN, User};
use crate::protocol::words::{server_words, trim_body};
use reqwest::StatusCode;
use serde_json::Value;

/// An answer that was not retried away.
#[derive(Clone, Debug)]
pub struct Reply {
    /// HTTP status.
    pub status: StatusCode,
    /// `Location`, for redirects that were not followed.
    pub location: Option<String>,
    /// `Content-Type`, to say what came back when it is not SCIM.
    pub content_type: Option<String>,
    /// `Content-Encoding`; the client asks for none and decodes none.
    pub content_encoding: Option<String>,
    /// The body (at most [`MAX_BODY`] bytes).
    pub body: Vec<u8>,
    /// Whether the body went past [`MAX_BODY`] (and was cut there).
    pub over_limit: bool,
}

impl Reply {
    /// What came back, for a message: content type and first words.
    pub(super) fn described(&self) -> String {
        describe_body(self.content_type.as_deref(), &self.body)
    }

    /// A 2xx that is not the SCIM document asked for (`User`, `Group`, `ListResponse`): a
    /// failure saying what came back instead.
    pub(super) fn not_a(&self, what: &str) -> Failed {
        Failed::new(
            Some(self.status.as_u16()),
            Status::Failure,
            format!(
                "HTTP {} but the body is not a SCIM {what}: {}",
                self.status,
                self.described()
            ),
        )
    }

    /// A 2xx whose body cannot be judged as a resource: cut at the size limit, compressed
    /// though nothing asked for it, or an error document (JSON-RPC, `{"error"}`, SCIM Error)
    /// from a server that reports failures with 200. `None` when the body may be read.
    pub(super) fn unreadable(&self) -> Option<Failed> {
        let code = self.status.as_u16();
        let (exit, why) = if self.over_limit {
            (
                Status::Failure,
                format!(
                    "with a body larger than the {MAX_BODY_NAME} limit, not read further ({})",
                    self.described()
                ),
            )
        } else if let Some(encoding) = self
            .content_encoding
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty() && !e.eq_ignore_ascii_case("identity"))
        {
            (
                Status::Failure,
                format!(
                    "with Content-Encoding: {encoding}, which was not asked for and cannot be read"
                ),
            )
        } else {
            let doc = ErrorDoc::find(&self.body)?;
            let hint = match doc.status() {
                Status::Auth => " (check the SCIM token)",
                _ => "",
            };
            (doc.status(), format!("but the body is {doc}{hint}"))
        };
        Some(Failed::new(
            Some(code),
            exit,
            format!("HTTP {} {why}", self.status),
        ))
    }
}

/// Why one user could not be patched (or looked up).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// The HTTP status of the last answer; `None` when none came (network) or no PATCH was sent.
    pub status: Option<u16>,
    /// The exit status this failure maps to.
    pub exit: Status,
    /// What happened, with the server's own words, trimmed.
    pub message: String,
}

impl Failed {
    /// Registered secrets in `message` become `***` (as in [`crate::exit::fail`]): the
    /// message reaches the `error` of `-o json` as well as stderr.
    pub(super) fn new(status: Option<u16>, exit: Status, message: impl Into<String>) -> Failed {
        let message = message.into();
        Failed {
            status,
            exit,
            message: crate::term::masked(&message).into_owned(),
        }
    }

    /// A failure the shared HTTP layer reported (no answer came): its status and words, kept
    /// per user so a bulk run reports each and goes on.
    pub(super) fn from_error(e: &anyhow::Error) -> Failed {
        Failed::new(None, crate::exit::status_of(e), format!("{e:#}"))
    }
}

/// A successful PATCH.
#[derive(Clone, Debug)]
pub struct Patched {
    /// 200, 204 or another 2xx.
    pub status: u16,
    /// The User the server sent back, as sent (absent for 204).
    pub user: Option<Value>,
}

/// Whether a JSON value can be a User resource (RFC 7643 §4.1), read leniently: an object with
/// the User schema, an `id` or a `userName`, or `meta.resourceType` "User" (any key case).
pub(super) fn is_user(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let has_schema = obj
        .get("schemas")
        .and_then(Value::as_array)
        .is_some_and(|s| {
            s.iter()
                .any(|u| u.as_str().is_some_and(|u| u.eq_ignore_ascii_case(USER_URN)))
        });
    has_schema
        || ["id", "userName"]
            .iter()
            .any(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
        || User::from_value(v)
            .and_then(|u| u.meta.resource_type)
            .is_some_and(|t| t.eq_ignore_ascii_case("User"))
}

/// Whether a JSON value can be a Group resource (RFC 7643 §4.2), read leniently: an object with
/// the Group schema, an `id` or a `displayName`, or `meta.resourceType` "Group" (any key case).
pub(super) fn is_group(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let has_schema = obj
        .get("schemas")
        .and_then(Value::as_array)
        .is_some_and(|s| {
            s.iter().any(|u| {
                u.as_str()
                    .is_some_and(|u| u.eq_ignore_ascii_case(GROUP_URN))
            })
        });
    has_schema
        || ["id", "displayName"]
            .iter()
            .any(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
        || User::from_value(v)
            .and_then(|u| u.meta.resource_type)
            .is_some_and(|t| t.eq_ignore_ascii_case("Group"))
}

/// Whether a JSON value is a ListResponse: its schema, or `totalResults` or `Resources`.
pub(super) fn is_list_response(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    obj.get("schemas")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|u| u.as_str() == Some(LIST_RESPONSE_URN)))
        || ["totalResults", "Resources", "resources"]
            .iter()
            .any(|k| obj.contains_key(*k))
}

/// An HTTP error: status, a hint, and the SCIM error's detail or the server's words, trimmed.
pub fn http_failure(status: StatusCode, body: &[u8]) -> Failed {
    let code = status.as_u16();
    let words = match ScimError::from_slice(body) {
        Some(e) => trim_body(e.to_string().as_bytes()),
        None => server_words(body),
    };
    let hint = match code {
        401 => " (check the SCIM token)",
        403 => " (the token may not manage users)",
        404 => " (no such user, or check the SCIM URL)",
        412 => " (the user changed since that ETag)",
        _ => "",
    };
    let detail = if words.is_empty() {
        String::new()
    } else {
        format!(": {words}")
    };
    Failed::new(
        Some(code),
        Status::from_http(code),
        format!("HTTP {status}{hint}{detail}"),
    )
}

pub(super) fn redirect_failure(reply: &Reply) -> Failed {
    let code = reply.status.as_u16();
    Failed::new(
        Some(code),
        Status::Failure,
        format!(
            "HTTP {}: redirected to {}, not followed so the token stays with the SCIM URL's host \
             (use the final URL as --scim-url if it is trusted)",
            reply.status,
            reply.location.as_deref().unwrap_or("nowhere")
        ),
    )
}
