//! The one support module of the integration tests: each test binary declares `mod common;`
//! and uses the parts it needs (so most of it is dead code in any one binary).
//!
//! - `isolation`: the binary run with HOME, config and state dirs and the environment isolated;
//! - `pty`: a child on a pseudo-terminal, typed at and read as a user would;
//! - `scripted`: a scripted HTTP server with byte-level control (chunks, drops, stalls) that
//!   records every request, and frame builders;
//! - `serve`: the emulator in-process on a free port, with a manual clock;
//! - `hardening`: the emulator on its own runtime, and the checks every hardening case makes;
//! - `scim`: a scripted SCIM server and the `scim patch` command;
//! - `engine`: the demo engine and hand-written SQL over the sample;
//! - `sql`: data-API answers for the `sql` tests;
//! - `venv`: where the Python tools (scim2-server, scim2-tester, the MCP SDK) live.
#![allow(dead_code)]

pub mod engine;
pub mod hardening;
pub mod isolation;
pub mod pty;
pub mod scim;
pub mod scripted;
pub mod serve;
pub mod sql;
pub mod table;
pub mod venv;

/// A client builder for servers on loopback: reqwest 0.13 wants a TLS provider installed even
/// for plain http://, and the binary installs ring (src/client/http.rs); tests do the same.
pub fn http_client() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}
