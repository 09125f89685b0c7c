//! HTTP to the service: one configured client, auth headers, redaction of secrets in
//! diagnostics, and the mapping of HTTP failures to exit statuses; the chat stream with its
//! resume logic, and abort.

pub mod abort;
pub mod chat;
pub mod data;
pub mod http;
pub mod resume;
pub mod scim;
pub mod stream;
pub mod tracker;

pub use http::{error_for_status, trim_body, Http, RequestLog};
