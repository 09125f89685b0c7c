//! HTTP to the service: one configured client, auth headers, redaction of secrets in
//! diagnostics, and the mapping of HTTP failures to exit statuses.

pub mod http;
pub mod scim;

pub use http::{error_for_status, trim_body, Http, RequestLog};
