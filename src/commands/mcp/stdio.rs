//! stdio for the MCP server, as JSON-RPC 2.0 asks: a line that is not JSON is answered with a
//! Parse error (`id: null`, code -32700) and the server goes on. rmcp's own stdio transport
//! drops such lines without a word, so lines are read here, checked, and only JSON is passed on
//! to rmcp through a pipe; rmcp's answers and ours go out through one writer, a whole line at a
//! time, so they never interleave.

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line read, as rmcp's own bound: a longer one is refused and skipped.
const MAX_LINE: usize = 16 << 20;
/// Room in each pipe between this module and rmcp.
const PIPE: usize = 64 << 10;

/// The transport rmcp serves on, and the task writing stdout: await it after the service
/// ends, so the last answers are flushed.
pub fn transport() -> (
    (
        impl AsyncRead + Send + Unpin + 'static,
        impl AsyncWrite + Send + Unpin + 'static,
    ),
    JoinHandle<()>,
) {
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
    let (errors, replies) = mpsc::unbounded_channel();
    tokio::spawn(read_input(tokio::io::stdin(), to_rmcp, errors));
    let writer = tokio::spawn(write_output(from_rmcp, replies, tokio::io::stdout()));
    ((rmcp_in, rmcp_out), writer)
}

/// Pass each JSON line of `input` on to rmcp; answer the others with an error of our own.
async fn read_input(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    errors: mpsc::UnboundedSender<String>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let whole = match read_line(&mut input, &mut line).await {
            Ok(Some(whole)) => whole,
            Ok(None) | Err(_) => break,
        };
        let reply = if !whole {
            Some(error_line(
                -32600,
                &format!("Invalid Request: a line longer than {MAX_LINE} bytes"),
            ))
        } else {
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
                Ok(_) => None,
                Err(e) => Some(error_line(-32700, &format!("Parse error: {e}"))),
            }
        };
        match reply {
            Some(reply) => {
                if errors.send(reply).is_err() {
                    break;
                }
            }
            None => {
                line.push(b'\n');
                if to_rmcp.write_all(&line).await.is_err() {
                    break;
                }
            }
        }
    }
    // Dropping the pipe is rmcp's end of input.
    let _ = to_rmcp.shutdown().await;
}

/// A JSON-RPC error response to no request (`id: null`).
fn error_line(code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}).to_string()
}

/// Read one line into `buf` (without its `\n`): `Some(true)` a line, `Some(false)` a line past
/// [`MAX_LINE`] (skipped to its end), `None` the end of input.
async fn read_line(
    input: &mut (impl AsyncBufReadExt + Unpin),
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    let mut over = false;
    let mut any = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(any.then_some(!over));
        }
        any = true;
        let (take, end) = match memchr::memchr(b'\n', available) {
            Some(i) => (i, Some(i + 1)),
            None => (available.len(), None),
        };
        if !over && buf.len() + take <= MAX_LINE {
            buf.extend_from_slice(&available[..take]);
        } else {
            over = true;
            buf.clear();
        }
        input.consume(end.unwrap_or(take));
        if end.is_some() {
            return Ok(Some(!over));
        }
    }
}

/// Write rmcp's lines and our error lines to `out`, each whole, until rmcp is done.
async fn write_output(
    from_rmcp: impl AsyncRead + Unpin,
    mut ours: mpsc::UnboundedReceiver<String>,
    mut out: impl AsyncWrite + Unpin,
) {
    let mut lines = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let mut ours_open = true;
    loop {
        tokio::select! {
            read = lines.read_until(b'\n', &mut line) => {
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if !line.ends_with(b"\n") {
                            line.push(b'\n');
                        }
                        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                            break;
                        }
                        line.clear();
                    }
                }
            }
            reply = ours.recv(), if ours_open => {
                match reply {
                    Some(reply) => {
                        let written = out.write_all(format!("{reply}\n").as_bytes()).await;
                        if written.is_err() || out.flush().await.is_err() {
                            break;
                        }
                    }
                    None => ours_open = false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_json_reaches_rmcp_and_the_rest_is_answered() {
        let input: &[u8] =
            b"not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n{\"a\":\n";
        let (to_rmcp, mut rmcp_in) = tokio::io::duplex(PIPE);
        let (tx, mut rx) = mpsc::unbounded_channel();
        read_input(input, to_rmcp, tx).await;
        let mut passed = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut rmcp_in, &mut passed)
            .await
            .unwrap();
        assert_eq!(
            passed,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"
        );
        for _ in 0..2 {
            let e: serde_json::Value = serde_json::from_str(&rx.recv().await.unwrap()).unwrap();
            assert_eq!(
                (e["id"].is_null(), &e["error"]["code"]),
                (true, &json!(-32700))
            );
        }
        assert!(rx.recv().await.is_none());
    }
}
