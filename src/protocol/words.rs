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

/// Whether a service's words say the thread is busy with another message, which the
/// service says with an HTTP error (400, 409) or an error line in a 200: exit 5 either way.
pub fn is_busy(words: &str) -> bool {
    words
        .to_ascii_lowercase()
        .contains("streaming for thread is in progress")
}
