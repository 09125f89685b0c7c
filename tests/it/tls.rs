//! https against a real TLS server on loopback: the server's certificate is checked against the
//! certificates the system trusts (here `SSL_CERT_FILE`, which the platform verifier reads on
//! Linux), so a server whose chain ends at a trusted CA is read and one whose chain does not is
//! refused with exit 6. The client loads the trusted certificates only when an https URL first
//! needs them (`client/http.rs`); these tests hold it to still checking them every time.
//!
//! `tests/fixtures/tls`: a CA (`ca.pem`, its key not kept) and a certificate it signed for
//! `localhost` and 127.0.0.1 (`server.pem`, with its key `server.key`: a test key that secures
//! nothing), valid from 2000 to 2100, so that no machine's clock makes them not yet or no
//! longer valid.

use crate::common;

use common::scripted::{analyst, text};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tls")
        .join(name)
}

/// A data API over TLS with `fixture`'s certificate: every connection gets `body` as the answer
/// to its one request. Returns the port.
fn tls_data_api(body: &'static str) -> u16 {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(fixture("server.pem"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(fixture("server.key")).unwrap();
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let conn = rustls::ServerConnection::new(config).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                // A client that refuses the certificate ends here, in the handshake.
                let _ = answer(&mut tls, body);
            });
        }
    });
    port
}

/// Read one request (headers, then a Content-Length body) and send `body` as NDJSON.
fn answer(stream: &mut (impl Read + Write), body: &str) -> std::io::Result<()> {
    let mut reader = BufReader::new(&mut *stream);
    let mut len = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    reader.read_exact(&mut vec![0; len])?;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

const BODY: &str = concat!(
    r#"{"schema":[{"name":"n","column_type":"String"}]}"#,
    "\n",
    r#"{"data":[["1"],["2"]]}"#,
    "\n"
);

/// `analyst sql` against the TLS data API on `host`, trusting only what `ca_file` holds.
fn sql_over_tls(home: &Path, host: &str, port: u16, ca_file: &Path) -> std::process::Output {
    let empty_dir = home.join("no-certs");
    std::fs::create_dir_all(&empty_dir).unwrap();
    analyst(home)
        .env("SSL_CERT_FILE", ca_file)
        .env("SSL_CERT_DIR", &empty_dir)
        .env("ANALYST_DATA_TOKEN", "tls-test-token")
        .args([
            "sql",
            "--data-url",
            &format!("https://{host}:{port}/cubejs-api"),
            "SELECT n",
        ])
        .output()
        .unwrap()
}

#[test]
fn a_server_whose_certificate_chains_to_a_trusted_ca_is_read() {
    let home = tempfile::tempdir().unwrap();
    let port = tls_data_api(BODY);
    for host in ["localhost", "127.0.0.1"] {
        let out = sql_over_tls(home.path(), host, port, &fixture("ca.pem"));
        assert_eq!(out.status.code(), Some(0), "{host}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "n\r\n1\r\n2\r\n", "{host}");
    }
}

#[test]
fn a_server_whose_certificate_is_not_trusted_is_refused_with_exit_6() {
    let home = tempfile::tempdir().unwrap();
    let port = tls_data_api(BODY);
    // Trusting another CA (the server's own certificate is no CA): the chain ends nowhere
    // trusted.
    let out = sql_over_tls(home.path(), "localhost", port, &fixture("server.pem"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(
        stderr.contains(&format!("https://localhost:{port}")) && stderr.contains("certificate"),
        "the error names where and why: {stderr}"
    );
}
