//! A loopback HTTP server for client benchmarks: it answers every request with a prepared
//! NDJSON body, written as fast as the socket takes it, or (for time to first frame) writes one
//! frame, notes the instant, and holds the connection until told to close.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Instant;

/// Read one HTTP request (headers and a Content-Length body) and drop it.
fn read_request(stream: &TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body)
}

/// Serve `body` to every request, in the background; returns the port.
pub fn serve_body(body: Arc<Vec<u8>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let body = body.clone();
            std::thread::spawn(move || {
                let mut stream = stream;
                if read_request(&stream).is_err() {
                    return;
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream
                    .write_all(head.as_bytes())
                    .and_then(|_| stream.write_all(&body));
            });
        }
    });
    port
}

/// Serve `body` to every request as the data API sends it: `Transfer-Encoding: chunked`, one
/// chunk per line. The chunked bytes are made once, so each answer is one write from memory
/// and the server is never what is measured. Returns the port.
pub fn serve_chunked_lines(body: &[u8]) -> u16 {
    let mut chunked = Vec::with_capacity(body.len() + body.len() / 100 + 64);
    for line in body.split_inclusive(|&b| b == b'\n') {
        chunked.extend_from_slice(format!("{:x}\r\n", line.len()).as_bytes());
        chunked.extend_from_slice(line);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let chunked = Arc::new(chunked);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let chunked = chunked.clone();
            std::thread::spawn(move || {
                let mut stream = stream;
                if read_request(&stream).is_err() {
                    return;
                }
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
                let _ = stream
                    .write_all(head.as_bytes())
                    .and_then(|_| stream.write_all(&chunked));
            });
        }
    });
    port
}

/// For time to first frame: each connection gets one frame; the instant it was written goes to
/// the returned channel, and when the harness sends on `close` the stream ends properly (a final
/// answer and `__state__`), so that a client does not try to resume it.
pub fn serve_first_frame(frame: &'static [u8]) -> (u16, mpsc::Receiver<Instant>, mpsc::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (written_tx, written_rx) = mpsc::channel();
    let (close_tx, close_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            stream.set_nodelay(true).unwrap();
            if read_request(&stream).is_err() {
                continue;
            }
            let head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
            let chunk = [format!("{:x}\r\n", frame.len()).as_bytes(), frame, b"\r\n"].concat();
            stream.write_all(head).unwrap();
            let t0 = Instant::now();
            stream.write_all(&chunk).unwrap();
            written_tx.send(t0).unwrap();
            let _ = close_rx.recv();
            let end: &[u8] = b"{\"id\":\"f\",\"sort\":1,\"role\":\"assistant\",\"content\":\"ok\",\"isDelta\":false,\"graphPath\":[\"final\"]}\n{\"id\":\"__state__\",\"sort\":2,\"state\":{\"messages\":[]}}\n";
            let _ = stream.write_all(
                &[
                    format!("{:x}\r\n", end.len()).as_bytes(),
                    end,
                    b"\r\n0\r\n\r\n",
                ]
                .concat(),
            );
        }
    });
    (port, written_rx, close_tx)
}
