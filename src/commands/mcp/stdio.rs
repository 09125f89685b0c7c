//! stdio for the MCP server, as JSON-RPC 2.0 asks: a line that is not JSON is answered with a
//! Parse error (`id: null`, code -32700) and the server goes on. rmcp's own stdio transport
//! drops such lines without a word, so lines are read here, checked, and only JSON is passed on
//! to rmcp through a pipe; rmcp's answers and ours go out through one writer, a whole line at a
//! time, so they never interleave.

use serde_json::{Value, json};
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
            match serde_json::from_slice::<serde_json::Value>(text) {
                Ok(message) => refusal(&message),
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
    reply_line(&Value::Null, code, message)
}

/// A JSON-RPC error response to the request with `id`.
fn reply_line(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// The error answer for a message that is JSON but not one rmcp should get; `None` passes it
/// on. rmcp answers an Invalid Request without the `id` member JSON-RPC 2.0 §5 requires, and a
/// `tools/call` or `initialize` without its params as "Method not found"; here the first gets
/// its id (or `null` when none can be read) and the second "Invalid params" (-32602).
fn refusal(message: &Value) -> Option<String> {
    let Some(fields) = message.as_object() else {
        let what = if message.is_array() {
            "a batch (MCP sends one message a line)"
        } else {
            "not an object"
        };
        return Some(error_line(-32600, &format!("Invalid Request: {what}")));
    };
    // An id that is there and a string or a number is echoed; any other is not an id. rmcp
    // takes integers (as MCP's ids are in practice), so another number is refused here.
    let id = fields
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned();
    if id.as_ref().is_some_and(|id| id.is_number() && !id.is_i64()) {
        return Some(reply_line(
            id.as_ref().unwrap_or(&Value::Null),
            -32600,
            "Invalid Request: a numeric id is an integer",
        ));
    }
    let invalid = |why: &str| {
        Some(reply_line(
            id.as_ref().unwrap_or(&Value::Null),
            -32600,
            &format!("Invalid Request: {why}"),
        ))
    };
    if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    if fields.contains_key("id") && id.is_none() {
        return invalid("an id is a string or a number");
    }
    let Some(method) = fields.get("method") else {
        // A response to a request of ours: an id, and a result or an error.
        if id.is_some() && (fields.contains_key("result") != fields.contains_key("error")) {
            return None;
        }
        return invalid("no method, and not a response (an id with a result or an error)");
    };
    let Some(method) = method.as_str() else {
        return invalid("the method is not a string");
    };
    let params = fields.get("params");
    if params.is_some_and(|p| !p.is_object() && !p.is_array()) {
        return invalid("params must be an object or an array");
    }
    // A notification is never answered; of requests, two methods need their params.
    let id = id?;
    let needs = match method {
        "initialize" => "an object with protocolVersion, capabilities and clientInfo",
        "tools/call" => "an object with the tool's name (and its arguments)",
        _ => return None,
    };
    let fits = match params.and_then(Value::as_object) {
        Some(p) if method == "tools/call" => p.get("name").is_some_and(Value::is_string),
        Some(_) => true,
        None => false,
    };
    (!fits).then(|| {
        reply_line(
            &id,
            -32602,
            &format!("Invalid params: {method} takes {needs}"),
        )
    })
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
                    Ok(0) | Err(_) => {
                        // rmcp ends after its input does, which the reader closes only after
                        // queueing its last answer: what is queued now is all there is.
                        while let Ok(reply) = ours.try_recv() {
                            if out.write_all(format!("{reply}\n").as_bytes()).await.is_err() {
                                break;
                            }
                        }
                        let _ = out.flush().await;
                        break;
                    }
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

    #[tokio::test]
    async fn answers_queued_when_rmcp_ends_are_still_written() {
        // rmcp's output already over (as at the end of input), our answers queued behind it.
        let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
        drop(rmcp_out);
        let (tx, rx) = mpsc::unbounded_channel();
        for n in 0..3 {
            tx.send(reply_line(&json!(n), -32600, "Invalid Request"))
                .unwrap();
        }
        let mut out = Vec::new();
        write_output(from_rmcp, rx, &mut out).await;
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2]["id"], 2);
    }
}
