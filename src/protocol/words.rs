//! What the service's error bodies and error lines say, in words fit for one line of stderr.

/// The body of an error response as one trimmed line: the server's own words, shortened.
pub fn trim_body(body: &[u8]) -> String {
    const MAX: usize = 300;
    let text = String::from_utf8_lossy(body);
    let mut one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > MAX {
        one_line = one_line.chars().take(MAX).collect::<String>() + "…";
    }
    one_line
}

/// The message of a JSON error body (`error`, `message`, `detail`), else the trimmed body.
pub fn server_words(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body)
        && let Some(text) = ["error", "message", "detail", "msg"]
            .iter()
            .find_map(|k| v.get(*k).and_then(super::frame::error_text))
    {
        return trim_body(text.as_bytes());
    }
    trim_body(body)
}

/// Whether a server's words (lowercase) speak of refused credentials: the auth errors of
/// servers that answer them without a 401 or 403 ("Not authorized", "jwt expired", "bad key").
/// Shared by error documents and the stream's error lines.
pub fn about_credentials(words: &str) -> bool {
    const PHRASES: [&str; 10] = [
        "authori", // unauthorized, not authorized, Authorization header
        "unauthenticated",
        "authenticat",
        "forbidden",
        "permission",
        "credential",
        "access denied",
        "api key",
        "api-key",
        "apikey",
    ];
    // A secret's name with what is wrong with it: "invalid token", "jwt expired", "bad key".
    const SECRETS: [&str; 5] = ["token", "jwt", "key", "signature", "password"];
    const WRONG: [&str; 8] = [
        "invalid",
        "expired",
        "missing",
        "revoked",
        "bad",
        "wrong",
        "malformed",
        "not valid",
    ];
    PHRASES.iter().any(|w| words.contains(w))
        || (SECRETS.iter().any(|w| words.contains(w)) && WRONG.iter().any(|w| words.contains(w)))
}

/// Whether a JSON-RPC error code is one of JSON-RPC 2.0's own (parse error, invalid request,
/// method not found, invalid params, internal error): those say what went wrong, while the
/// codes servers define (-32000 and the like) on a JSON-RPC style error object in a 200 are
/// the bad-credentials answer PROTOCOL.md describes.
pub fn is_jsonrpc_standard_error(code: Option<i64>) -> bool {
    matches!(code, Some(-32700 | -32603..=-32600))
}

/// Whether a service's words say the thread is busy with another message, which the
/// service says with an HTTP error (400, 409) or an error line in a 200: exit 5 either way.
pub fn is_busy(words: &str) -> bool {
    words
        .to_ascii_lowercase()
        .contains("streaming for thread is in progress")
}
