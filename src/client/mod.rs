//! HTTP to the service: one configured client, auth headers, redaction of secrets in
//! diagnostics, and the mapping of HTTP failures to exit statuses; the chat stream with its
//! resume logic, and abort.

pub mod abort;
pub mod body;
pub mod chat;
pub mod data;
pub mod http;
pub mod resume;
pub mod scim;

pub use http::{Http, RequestLog};
