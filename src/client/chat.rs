//! Requests to the chat endpoint: auth headers, `-v`/`--dry-run` diagnostics, and the mapping
//! of HTTP failures to exit statuses. Streaming and resume live in `stream` and `resume`.

use super::http::{
    Http, Outgoing, RequestLog, error_body, error_for_status, insert, secret_header,
};
use crate::exit::{Status, fail};
use crate::protocol::ChatRequest;
use crate::settings::{ChatAuth, ChatEndpoint};
use anyhow::Result;
use reqwest::header::{HeaderMap, HeaderValue};
use url::Url;

/// A client for one chat endpoint with one way to authenticate.
#[derive(Clone, Debug)]
pub struct ChatClient {
    /// The shared HTTP client.
    pub http: Http,
    /// Stream and abort URLs.
    pub endpoint: ChatEndpoint,
    headers: HeaderMap,
}

impl ChatClient {
    /// A client for `endpoint`, authenticating with `auth`.
    pub fn new(http: Http, endpoint: ChatEndpoint, auth: &ChatAuth) -> Result<ChatClient> {
        let mut headers = HeaderMap::new();
        insert(
            &mut headers,
            "content-type",
            HeaderValue::from_static("application/json"),
        );
        insert(
            &mut headers,
            "accept",
            HeaderValue::from_static("application/x-ndjson, application/json"),
        );
        match auth {
            ChatAuth::ApiKey(key) => insert(
                &mut headers,
                "authorization",
                secret_header("Api-Key ", key)?,
            ),
            ChatAuth::Token(token) => {
                insert(&mut headers, "x-cube-auth-token", secret_header("", token)?)
            }
        }
        Ok(ChatClient {
            http,
            endpoint,
            headers,
        })
    }

    /// The request as it would be sent to `url`, secrets masked (for `--dry-run` and `-vv`).
    pub fn describe(&self, url: &Url, body: &[u8]) -> RequestLog {
        RequestLog::new(
            reqwest::Method::POST,
            url.as_str(),
            &self.headers,
            Some(body),
        )
    }

    /// POST a chat request (a message or a state read) to the stream URL; a non-success status
    /// becomes an error with the server's words. `what` names the request in messages.
    pub async fn open(&self, request: &ChatRequest, what: &str) -> Result<reqwest::Response> {
        let body = serde_json::to_vec(request)?;
        let url = self.endpoint.stream.clone();
        self.post(&url, body, what).await
    }

    /// POST a JSON body to `url` and check the status.
    pub async fn post(&self, url: &Url, body: Vec<u8>, what: &str) -> Result<reqwest::Response> {
        let mut response = self
            .http
            .send(Outgoing {
                method: reqwest::Method::POST,
                url,
                headers: self.headers.clone(),
                body: Some(body),
                timeout: None,
                what,
            })
            .await?;
        if response.status().is_success() {
            return unreadable_success(response, what).await;
        }
        let status = response.status();
        let body = error_body(&mut response).await;
        let error = error_for_status(what, status, &body);
        // PROTOCOL.md: the deployments URL form "accepts only token auth".
        if status == reqwest::StatusCode::FORBIDDEN
            && self.headers.contains_key("authorization")
            && is_deployments_url(url)
        {
            return Err(error.context(
                "a /deployments/ chat URL accepts only token auth: give the token with --token-file or ANALYST_TOKEN (an API key was sent)",
            ));
        }
        Err(error)
    }
}

/// `.../public/{account}/deployments/{id}/...`: the URL form that takes only token auth (an
/// account may be named `deployments` too).
fn is_deployments_url(url: &Url) -> bool {
    let segments: Vec<&str> = url
        .path_segments()
        .map(Iterator::collect)
        .unwrap_or_default();
    segments
        .windows(3)
        .any(|w| w[0] == "public" && w[2] == "deployments")
}

/// A 2xx whose body cannot be the service's JSON: a compressed body we never asked for (the
/// client does not decode any), or an HTML page (a proxy's or a login page). Said plainly with
/// the page's first words, rather than reported later as a stream that "closed before its end".
async fn unreadable_success(response: reqwest::Response, what: &str) -> Result<reqwest::Response> {
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase())
    };
    if let Some(encoding) = header(reqwest::header::CONTENT_ENCODING)
        && !encoding.is_empty()
        && encoding != "identity"
    {
        return Err(fail(
            Status::Failure,
            format!(
                "{what}: HTTP {} with Content-Encoding: {encoding}, which was not asked for and cannot be read",
                response.status()
            ),
        ));
    }
    if let Some(content_type) =
        header(reqwest::header::CONTENT_TYPE).filter(|t| t.starts_with("text/html"))
    {
        let status = response.status();
        let mut response = response;
        let body = error_body(&mut response).await;
        let words = crate::protocol::words::server_words(&body);
        return Err(fail(
            Status::Failure,
            format!(
                "{what}: the service answered {content_type}, not NDJSON (HTTP {status}, an HTML page): {words}"
            ),
        ));
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deployments_form_is_told_by_its_place_in_the_path() {
        let is = |u: &str| is_deployments_url(&Url::parse(u).unwrap());
        assert!(is(
            "https://ai.x.com/api/v1/public/acme/deployments/7/chat/stream-chat-state"
        ));
        assert!(!is(
            "https://ai.x.com/api/v1/public/deployments/agents/7/chat/stream-chat-state"
        ));
    }
}
