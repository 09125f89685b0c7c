//! What `chat`, `state` and `abort` share: the service (URL, auth, identity) resolved from
//! flags, environment and profile, the thread to use, and the request body built from
//! `--body` and the flags.

use super::Ctx;
use super::thread_store::ThreadStore;
use crate::cli::{IdentityArgs, ServiceArgs, ThreadArgs};
use crate::client::chat::ChatClient;
use crate::exit::usage;
use crate::protocol::chat::{Image, is_valid_message_id, message_id_at};
use crate::protocol::{ChatRequest, SessionSettings};
use crate::settings::{
    ChatAuth, IdentityFlags, Resolver, Secret, ServiceFlags, endpoint_from_url, read_document,
    read_file_for,
};
use anyhow::Result;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The longest wait for the next byte of a stream when `--idle-timeout` is not given: agents
/// may think for minutes, but a stream silent for longer has stalled.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(300);

/// A service to talk to, resolved.
pub struct Service {
    /// The client (URL, auth headers, timeouts).
    pub client: ChatClient,
    /// The identity every request carries.
    pub identity: SessionSettings,
    /// The resolver, for the profile's name.
    pub resolver: Resolver,
    /// `-o`, which also shapes `--dry-run`'s output.
    pub output: Option<crate::render::Format>,
}

/// Where to find the service when it is not configured: `--demo`'s emulator.
pub struct Override {
    /// The emulator's chat URL.
    pub url: String,
    /// Its API key.
    pub api_key: String,
}

/// Resolve URL, auth and identity, in that order, so that every rule is checked before any
/// request is sent. `body_session` is `--body`'s `sessionSettings`.
pub fn service(
    ctx: &Ctx,
    service: &ServiceArgs,
    identity: &IdentityArgs,
    body_session: Option<&Value>,
    demo: Option<&Override>,
) -> Result<Service> {
    let resolver = ctx.resolver()?;
    let http = super::args::http(&resolver, &ctx.global)?;
    let flags = ServiceFlags::from(service);
    let (endpoint, auth) = match demo {
        Some(d) => (
            endpoint_from_url(&d.url, "the demo emulator")?,
            ChatAuth::ApiKey(Secret::new(d.api_key.clone(), "the demo emulator")?),
        ),
        None => (
            resolver.chat_endpoint(&flags)?,
            resolver.require_chat_auth(&flags)?,
        ),
    };
    // With an API key the service needs to know who is asking; a token names the user itself.
    // The demo asks as its own user unless identity flags say otherwise.
    let flags = IdentityFlags::from(identity);
    let ids = match demo {
        Some(_) => resolver.demo_identity(&flags, body_session)?,
        None => {
            let required = !matches!(auth, ChatAuth::Token(_));
            resolver.identity(&flags, body_session, required)?
        }
    };
    Ok(Service {
        client: ChatClient::new(http, endpoint, &auth)?,
        identity: ids,
        resolver,
        output: ctx.global.output,
    })
}

impl Service {
    /// The longest wait for the next byte.
    pub fn idle(&self) -> Duration {
        self.client.http.idle_timeout.unwrap_or(DEFAULT_IDLE)
    }

    /// The profile in use, if any (threads are remembered per profile).
    pub fn profile(&self) -> Option<&str> {
        self.resolver.profile_name.as_deref()
    }

    /// Print the request as it would be sent (secrets masked) on stdout: `--dry-run`, as text
    /// or, with `-o json|ndjson|yaml`, as one `{method, url, headers, body}` object.
    pub fn dry_run(&self, url: &url::Url, body: &impl serde::Serialize) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(body)?;
        super::write_dry_run(self.output, &[self.client.describe(url, &bytes)])
    }
}

/// `--body` split into the request (without identity) and its `sessionSettings`.
pub fn body_request(body: Option<&str>) -> Result<(ChatRequest, Option<Value>)> {
    let Some(text) = body else {
        return Ok((ChatRequest::default(), None));
    };
    let Value::Object(mut map) = read_document("--body", text)? else {
        return Err(usage("--body: must be a JSON object (a chat request)"));
    };
    let session = map.remove("sessionSettings");
    map.insert(
        "sessionSettings".into(),
        Value::Object(serde_json::Map::new()),
    );
    let request: ChatRequest = serde_json::from_value(Value::Object(map))
        .map_err(|e| usage(format!("--body: not a chat request: {e}")))?;
    Ok((request, session))
}

/// The thread: `--chat-id`, else `--continue`'s remembered thread, else the body's `chatId`.
pub fn thread_id(
    ctx: &Ctx,
    thread: &ThreadArgs,
    profile: Option<&str>,
    from_body: Option<String>,
) -> Result<Option<String>> {
    if let Some(id) = &thread.chat_id {
        if id.trim().is_empty() {
            return Err(usage("--chat-id: must not be empty"));
        }
        return Ok(Some(id.clone()));
    }
    if thread.continue_last {
        return ThreadStore::new(&ctx.env).last(profile).map(Some);
    }
    Ok(from_body)
}

/// The message id: `--message-id`, else the body's, else a new `<unix-ms>-message`; a given one
/// must have that form.
pub fn message_id(flag: Option<&str>, from_body: Option<String>) -> Result<String> {
    let (given, origin) = match (flag, from_body) {
        (Some(f), _) => (f.to_owned(), "--message-id"),
        (None, Some(b)) => (b, "--body messageId"),
        (None, None) => {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or_default();
            return Ok(message_id_at(ms));
        }
    };
    if !is_valid_message_id(&given) {
        return Err(usage(format!(
            "{origin} {given:?}: must be at least 13 digits then \"-message\", e.g. 1700000000000-message"
        )));
    }
    Ok(given)
}

/// An attached image: MIME type by extension, data as base64, the file's name.
pub fn image(path: &Path) -> Result<Image> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let mime = match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => {
            return Err(usage(format!(
                "--image {}: unsupported type (use .png, .jpg/.jpeg, .gif or .webp)",
                path.display()
            )));
        }
    };
    let bytes = read_file_for("--image", path)?;
    Ok(Image {
        mime_type: mime.to_owned(),
        data: base64(&bytes),
        name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
    })
}

/// Standard base64 with padding. Twenty lines here rather than a crate for one call site.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn message_ids_are_checked() {
        assert!(message_id(Some("12-message"), None).is_err());
        assert_eq!(
            message_id(None, Some("1700000000000-message".into())).unwrap(),
            "1700000000000-message"
        );
        assert!(is_valid_message_id(&message_id(None, None).unwrap()));
    }

    #[test]
    fn body_keeps_unknown_fields_and_splits_the_session() {
        let (req, session) = body_request(Some(
            r#"{"input":"x","sessionSettings":{"externalId":"a"},"extra":1}"#,
        ))
        .unwrap();
        assert_eq!(req.input.as_deref(), Some("x"));
        assert_eq!(req.extra["extra"], 1);
        assert_eq!(session.unwrap()["externalId"], "a");
        assert!(body_request(Some("[1]")).is_err());
    }
}
