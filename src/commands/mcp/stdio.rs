//! stdio for the MCP server, as JSON-RPC 2.0 asks: a line that is not JSON is answered with a
//! Parse error (`id: null`, code -32700) and the server goes on. rmcp's own stdio transport
//! drops such lines without a word, so lines are read here and decoded as rmcp will decode them
//! (see [`verdict`]): only what rmcp can take is passed on to it through a pipe, every request
//! that is not is answered here with its id, and a notification never. rmcp's answers and ours
//! go out through one writer, a whole line at a time, so they never interleave.

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, ClientJsonRpcMessage, ConstString, DiscoverRequest,
    DiscoverRequestMethod, InitializeRequest, InitializeResultMethod, ListToolsRequest,
    ListToolsRequestMethod, PingRequest, PingRequestMethod,
};
use serde::de::DeserializeOwned;
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
            Verdict::Answer(error_line(
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
                Ok(message) => verdict(&message, text),
                Err(e) => Verdict::Answer(error_line(-32700, &format!("Parse error: {e}"))),
            }
        };
        match reply {
            Verdict::Answer(reply) => {
                if errors.send(reply).is_err() {
                    break;
                }
            }
            Verdict::Drop => {}
            Verdict::Pass => {
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

/// What becomes of a line that is JSON.
#[derive(Debug)]
enum Verdict {
    /// rmcp gets it: it decodes as the message rmcp expects.
    Pass,
    /// Answered here with this error line; rmcp never sees it.
    Answer(String),
    /// A notification or a response that does not decode: JSON-RPC answers neither, so it is
    /// dropped (rmcp would answer it, and without an id).
    Drop,
}

/// The requests this server serves, each with the rmcp type it is decoded into and the shape
/// of its params for the error message. A served request whose params do not decode is
/// "Invalid params" (-32602) here: rmcp would file it as a custom request and answer "Method
/// not found", or, when the params are not an object, "Invalid request" without its id.
const SERVED: &[(&str, Decode, &str)] = &[
    (
        InitializeResultMethod::VALUE,
        decodes::<InitializeRequest>,
        "an object with protocolVersion, capabilities and clientInfo",
    ),
    (
        CallToolRequestMethod::VALUE,
        decodes::<CallToolRequest>,
        "an object with the tool's name (a string) and its arguments (an object)",
    ),
    (
        ListToolsRequestMethod::VALUE,
        decodes::<ListToolsRequest>,
        "no params, or an object (with an optional cursor)",
    ),
    (
        PingRequestMethod::VALUE,
        decodes::<PingRequest>,
        "no params, or an object",
    ),
    (
        DiscoverRequestMethod::VALUE,
        decodes::<DiscoverRequest>,
        "an object",
    ),
];

type Decode = fn(&[u8]) -> Result<(), serde_json::Error>;

fn decodes<T: DeserializeOwned>(text: &[u8]) -> Result<(), serde_json::Error> {
    serde_json::from_slice::<T>(text).map(drop)
}

/// What to do with `message` (JSON, whose text is `text`). rmcp decodes a line into its typed
/// message and, when that fails, answers "Invalid request" with no `id` member at all, even to
/// a notification; a served method whose params do not fit its type it answers "Method not
/// found". So the message is decoded here first, as rmcp will: what rmcp would mishandle is
/// answered here, a request always with its id (JSON-RPC 2.0 §5), `id: null` only when the id
/// cannot be read; a notification or a response is never answered.
fn verdict(message: &Value, text: &[u8]) -> Verdict {
    let answer = |id: Option<&Value>, code: i64, message: String| {
        Verdict::Answer(reply_line(id.unwrap_or(&Value::Null), code, &message))
    };
    let Some(fields) = message.as_object() else {
        let what = if message.is_array() {
            "a batch (MCP sends one message a line)"
        } else {
            "not an object"
        };
        return answer(None, -32600, format!("Invalid Request: {what}"));
    };
    // An id that is there and a string or a number is echoed; any other is not an id. rmcp
    // takes integers (as MCP's ids are in practice), so another number is refused here.
    let id = fields
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    let invalid = |why: &str| answer(id, -32600, format!("Invalid Request: {why}"));
    if id.is_some_and(|id| id.is_number() && !id.is_i64()) {
        return invalid("a numeric id is an integer");
    }
    if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    if fields.contains_key("id") && id.is_none() {
        return invalid("an id is a string or a number");
    }
    let rmcp_takes = || serde_json::from_slice::<ClientJsonRpcMessage>(text);
    let Some(method) = fields.get("method") else {
        // A response to a request of ours: an id, and a result or an error. It is never
        // answered, even when it does not decode.
        if id.is_some() && (fields.contains_key("result") != fields.contains_key("error")) {
            return if rmcp_takes().is_ok() {
                Verdict::Pass
            } else {
                Verdict::Drop
            };
        }
        return invalid("no method, and not a response (an id with a result or an error)");
    };
    let Some(method) = method.as_str() else {
        return invalid("the method is not a string");
    };
    if fields
        .get("params")
        .is_some_and(|p| !p.is_object() && !p.is_array())
    {
        return invalid("params must be an object or an array");
    }
    // From here the message is a well-formed request or notification.
    let Some(id) = id else {
        return if rmcp_takes().is_ok() {
            Verdict::Pass
        } else {
            Verdict::Drop
        };
    };
    let served = SERVED.iter().find(|(name, _, _)| *name == method);
    if let Some((_, decode, takes)) = served
        && let Err(e) = decode(text)
    {
        let what = if fields.get("params").is_some_and(Value::is_array) {
            "params must be an object (MCP passes them by name), not an array".to_owned()
        } else if let Some(key) = culprit(message, *decode) {
            format!("{key} does not fit: {}", detail(&e))
        } else {
            detail(&e)
        };
        return answer(
            Some(id),
            -32602,
            format!("Invalid params: {method}: {what}; {method} takes {takes}"),
        );
    }
    match rmcp_takes() {
        Ok(_) => Verdict::Pass,
        // A method rmcp does not serve, with params it cannot carry (an array).
        Err(_) if served.is_none() => {
            answer(Some(id), -32601, format!("Method not found: {method}"))
        }
        Err(e) => invalid(&e.to_string()),
    }
}

/// The member of `message`'s params without which it decodes: the one at fault, if one is.
fn culprit(message: &Value, decode: Decode) -> Option<&str> {
    let params = message.get("params")?.as_object()?;
    params.keys().map(String::as_str).find(|key| {
        let mut without = message.clone();
        if let Some(p) = without.get_mut("params").and_then(Value::as_object_mut) {
            p.remove(*key);
        }
        serde_json::to_vec(&without).is_ok_and(|text| decode(&text).is_ok())
    })
}

/// A decoding error without its position (the line is one message, the position of no use).
fn detail(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&at).unwrap_or(&text).to_owned()
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

    /// The verdict on `line`, and the error it answers with (`None` for pass or drop).
    fn judge(line: &str) -> (Verdict, Option<Value>) {
        let v = verdict(&serde_json::from_str(line).unwrap(), line.as_bytes());
        let reply = match &v {
            Verdict::Answer(r) => Some(serde_json::from_str(r).unwrap()),
            _ => None,
        };
        (v, reply)
    }

    #[test]
    fn a_request_rmcp_cannot_decode_is_answered_with_its_id() {
        for (line, id, code, says) in [
            (
                r#"{"jsonrpc":"2.0","id":"p3","method":"tools/list","params":[]}"#,
                json!("p3"),
                -32602,
                "tools/list: params must be an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"p6","method":"tools/call","params":{"name":"ask","arguments":["x"]}}"#,
                json!("p6"),
                -32602,
                "arguments does not fit",
            ),
            (
                r#"{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"ask","arguments":"hello"}}"#,
                json!(29),
                -32602,
                "arguments does not fit",
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#,
                json!(4),
                -32602,
                "missing field `name`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":[]}"#,
                json!(5),
                -32602,
                "ping: params must be an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"no/such","params":[1]}"#,
                json!(6),
                -32601,
                "no/such",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}"#,
                json!(7),
                -32600,
                "Invalid Request",
            ),
        ] {
            let (_, reply) = judge(line);
            let reply = reply.unwrap_or_else(|| panic!("{line} is answered"));
            assert_eq!(reply["id"], id, "{line}: {reply}");
            assert_eq!(reply["error"]["code"], code, "{line}: {reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(message.contains(says), "{line}: {reply}");
        }
    }

    #[test]
    fn what_rmcp_decodes_passes_and_a_bad_notification_or_response_is_dropped() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"no/such"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        ] {
            assert!(matches!(judge(line).0, Verdict::Pass), "{line}");
        }
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}"#,
            r#"{"jsonrpc":"2.0","method":"no/such","params":[1]}"#,
        ] {
            let (v, reply) = judge(line);
            assert!(
                matches!(v, Verdict::Drop | Verdict::Pass) && reply.is_none(),
                "{line}: never answered, got {v:?}"
            );
        }
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
