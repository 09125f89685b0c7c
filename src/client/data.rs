//! The data query API: `POST {data_url}/v1/cubesql` (a streamed NDJSON answer) and
//! `DELETE {data_url}/v1/running-query/{requestId}` (cancel), with the token sent as
//! `Authorization: <token>` and masked in every diagnostic.

use super::http::{Http, Outgoing, RequestLog, error_body, insert, secret_header};
use crate::exit::{Status, fail};
use crate::protocol::data::QueryRequest;
use crate::protocol::words::server_words;
use crate::settings::DataSettings;
use anyhow::Result;
use reqwest::header::{HeaderMap, HeaderValue};
use std::time::Duration;
use url::Url;

/// How long a cancel may take before it is given up (the query's rows are no longer read).
const CANCEL_TIMEOUT: Duration = Duration::from_secs(10);

/// A client for one data query API with one token.
#[derive(Clone, Debug)]
pub struct DataClient {
    /// The shared HTTP client.
    pub http: Http,
    root: Url,
    headers: HeaderMap,
}

impl DataClient {
    /// A client for `settings.root`, sending `settings.token`.
    pub fn new(http: Http, settings: &DataSettings) -> Result<DataClient> {
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
        insert(
            &mut headers,
            "authorization",
            secret_header("", &settings.token)?,
        );
        Ok(DataClient {
            http,
            root: settings.root.clone(),
            headers,
        })
    }

    fn url(&self, tail: &[&str]) -> Url {
        let mut url = self.root.clone();
        {
            let mut segs = url.path_segments_mut().expect("http URLs have paths");
            segs.pop_if_empty().extend(tail);
        }
        url
    }

    /// `{data_url}/v1/cubesql`.
    pub fn query_url(&self) -> Url {
        self.url(&["v1", "cubesql"])
    }

    /// `{data_url}/v1/running-query/{request_id}`.
    pub fn cancel_url(&self, request_id: &str) -> Url {
        self.url(&["v1", "running-query", request_id])
    }

    fn headers_for(&self, request_id: &str) -> HeaderMap {
        let mut headers = self.headers.clone();
        if let Ok(v) = HeaderValue::from_str(request_id) {
            insert(&mut headers, "x-request-id", v);
        }
        headers
    }

    /// The query request as it would be sent, token masked (`--dry-run`, `-vv`).
    pub fn describe(&self, body: &[u8], request_id: &str) -> RequestLog {
        RequestLog::new(
            reqwest::Method::POST,
            self.query_url().as_str(),
            &self.headers_for(request_id),
            Some(body),
        )
    }

    /// Send the query; a non-success status becomes an error with the service's words: 400 is
    /// exit 2, 401/403 exit 3, 5xx exit 1, no answer exit 6.
    pub async fn open(&self, query: &QueryRequest, request_id: &str) -> Result<reqwest::Response> {
        let body = serde_json::to_vec(query)?;
        let url = self.query_url();
        let mut response = self
            .http
            .send(Outgoing {
                method: reqwest::Method::POST,
                url: &url,
                headers: self.headers_for(request_id),
                body: Some(body),
                timeout: None,
                what: "sql",
            })
            .await?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = error_body(&mut response).await;
        let words = server_words(&body);
        let code = status.as_u16();
        let meaning = match code {
            400 => " (the service judged the query invalid)",
            401 | 403 => " (the data API refused the token)",
            404 => " (check --data-url: it should end in /cubejs-api)",
            _ => "",
        };
        let detail = if words.is_empty() {
            String::new()
        } else {
            format!(": {words}")
        };
        Err(fail(
            Status::from_http(code),
            format!("sql: HTTP {status}{meaning}{detail}"),
        ))
    }

    /// Cancel a running query (`DELETE .../running-query/{id}`); errors come back for a warning.
    pub async fn cancel(&self, request_id: &str) -> Result<()> {
        let url = self.cancel_url(request_id);
        let response = self
            .http
            .send(Outgoing {
                method: reqwest::Method::DELETE,
                url: &url,
                headers: self.headers_for(request_id),
                body: None,
                timeout: Some(CANCEL_TIMEOUT),
                what: "cancelling the query",
            })
            .await?;
        let status = response.status();
        if status.is_success() || status == reqwest::StatusCode::NOT_FOUND {
            // 404: the query had already finished; nothing runs any more either way.
            return Ok(());
        }
        Err(fail(
            Status::from_http(status.as_u16()),
            format!("cancelling the query: HTTP {status}"),
        ))
    }
}

/// A fresh request id: a random UUID (version 4), so the query can be cancelled by it.
pub fn request_id() -> String {
    let mut b = [0u8; 16];
    // The id only has to be unique; a clock-derived one will do if randomness is unavailable.
    if getrandom::fill(&mut b).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        b = nanos.to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Secret;

    #[test]
    fn urls_and_masking() {
        let settings = DataSettings {
            root: Url::parse("http://h:1/cubejs-api").unwrap(),
            token: Secret::new("eyJ.secret.jwt".into(), "t").unwrap(),
        };
        let c = DataClient::new(Http::new(None, None, 0), &settings).unwrap();
        assert_eq!(c.query_url().as_str(), "http://h:1/cubejs-api/v1/cubesql");
        assert_eq!(
            c.cancel_url("r-1").as_str(),
            "http://h:1/cubejs-api/v1/running-query/r-1"
        );
        let text = c.describe(b"{}", "r-1").render();
        assert!(!text.contains("eyJ.secret.jwt"), "{text}");
        assert!(text.contains("authorization: ***") && text.contains("x-request-id: r-1"));
    }

    #[test]
    fn request_ids_are_uuids() {
        let a = request_id();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_ne!(a, request_id());
    }
}
