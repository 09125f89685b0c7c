//! `analyst state`: read a thread's current state (a chat request without `input`).

use super::Ctx;
use super::chat_request::{body_request, service, thread_id};
use crate::cli::{Format, StateArgs};
use crate::client::body::{Ended, read_body};
use crate::client::resume::{body_ended, read_request};
use crate::exit::{Status, fail, usage};
use crate::protocol::{Frame, FrameKind};
use crate::render::pick_format;
use crate::render::state_table::StateView;
use crate::stream::lines::Framed;
use crate::stream::tracker::{Feed, Sink, Source, Tracker};
use anyhow::Result;
use std::io::{BufWriter, Write};
type Stdout = crate::exit::StdoutWriter<std::io::Stdout>;

/// Run the command.
pub fn run(ctx: &Ctx, args: StateArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Table, Format::Ndjson, Format::Json, Format::Yaml],
        Format::Table,
        Format::Ndjson,
        "state",
    )?;
    let (mut request, body_session) = body_request(args.body.as_deref())?;
    let svc = service(
        ctx,
        &args.service,
        &args.identity,
        body_session.as_ref(),
        None,
    )?;
    let chat_id = thread_id(ctx, &args.thread, svc.profile(), request.chat_id.take())?
        .ok_or_else(|| usage("state: which thread? pass --chat-id ID, or -c for the last one"))?;
    request.chat_id = Some(chat_id);
    request.session_settings = svc.identity.clone();
    // A read never carries a message.
    let request = read_request(&request);
    if ctx.global.dry_run {
        svc.dry_run(&svc.client.endpoint.stream, &request)?;
        return Ok(Status::Success);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let response = svc.client.open(&request, "state").await?;
        let mut out = StateOut {
            format,
            out: BufWriter::new(crate::exit::stdout()),
            view: StateView::of(request.chat_id.as_deref().unwrap_or_default()),
            arrived: false,
        };
        // What arrived is printed whether or not the read was whole; the status says which. A
        // read that failed before any frame of the thread printed nothing: an empty thread
        // would look like a valid answer to `| jq`.
        let outcome = read_into(response, svc.idle(), &mut out).await;
        if outcome.is_ok() || out.arrived {
            match format {
                Format::Table => {
                    out.view.write_table(
                        &mut out.out,
                        ctx.out_style,
                        crate::term::out_width(&ctx.env),
                    )?;
                    if let Some(hint) = out.view.still_answering_hint()
                        && !ctx.global.quiet
                    {
                        out.out.flush()?;
                        crate::term::diag(format_args!("analyst: {hint}"));
                    }
                }
                Format::Json | Format::Yaml => out.view.write_doc(&mut out.out, format)?,
                _ => {}
            }
        }
        out.out.flush()?;
        outcome.map(|()| Status::Success)
    })
}

/// Read a state read's answer into `sink`: `Ok` when the whole state arrived, else the
/// failure (an error line, a lost connection, an answer that ends before `__state__`). Shared
/// by `state` and the prompt's `/state`.
pub(super) async fn read_into(
    mut response: reqwest::Response,
    idle: std::time::Duration,
    sink: &mut dyn Sink,
) -> Result<()> {
    let mut tracker = Tracker::new();
    tracker.source(Source::Response(
        response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
    ));
    let mut sink = Watched {
        sink,
        state: false,
        streaming: false,
    };
    let ended = {
        let mut feed = Feed::new(&mut tracker, &mut sink);
        let mut framed = Framed::new(&mut feed);
        // A last line cut off by the connection is dropped, never read as the state; a body
        // that is not the service's stream at all is said as what it is.
        match read_body(&mut response, idle, &mut framed).await? {
            Ended::Closed => {
                let tail = framed.finish_body()?;
                body_ended(&mut tracker, &tail)?
            }
            ended => ended,
        }
    };
    // As chat says it: a skipped line is not silently lost.
    super::chat::warn_skipped(&tracker);
    if let Some(e) = &tracker.error {
        return Err(fail(
            e.status,
            format!("the service reported: {}", e.message),
        ));
    }
    if let Ended::Lost(why) = ended {
        return Err(fail(
            Status::Network,
            format!("state: connection lost: {why}"),
        ));
    }
    if !sink.state && !sink.streaming {
        // An empty 200, or one that stops before `__state__`: what arrived is not the
        // thread's state (an empty thread still has its `__state__`), as for chat. A read of a
        // thread that streams may be its `__cutoff__` alone.
        return Err(fail(
            Status::Network,
            "state: the answer closed before its end (no __state__): the thread's state did not arrive",
        ));
    }
    Ok(())
}

/// A sink that notes whether a read is whole: `__state__` arrived, or a `__cutoff__` that says
/// the thread streams.
struct Watched<'a> {
    sink: &'a mut dyn Sink,
    state: bool,
    streaming: bool,
}

impl Sink for Watched<'_> {
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> Result<()> {
        if let Some(f) = frame {
            match f.kind() {
                FrameKind::State => self.state = true,
                FrameKind::Cutoff => self.streaming |= f.is_streaming() == Some(true),
                _ => {}
            }
        }
        self.sink.line(raw, frame)
    }
    fn chunk_done(&mut self) -> Result<()> {
        self.sink.chunk_done()
    }
    fn wants_frames(&self) -> bool {
        true
    }
    fn waiting(&mut self, quiet: bool) {
        self.sink.waiting(quiet)
    }
    fn chat_id(&mut self, id: &str) -> Result<()> {
        self.sink.chat_id(id)
    }
}

/// The state read's output: raw lines for ndjson, else gathered into a view.
struct StateOut {
    format: Format,
    out: BufWriter<Stdout>,
    view: StateView,
    /// A frame of the thread arrived (not only an error).
    arrived: bool,
}

impl Sink for StateOut {
    fn line(&mut self, raw: &[u8], frame: Option<&Frame>) -> Result<()> {
        self.arrived |= frame.is_some_and(|f| f.is_of_stream() && f.kind() != FrameKind::Error);
        if self.format == Format::Ndjson {
            // An echoed secret is masked already (the tracker masks each line), as in chat.
            self.out.write_all(raw)?;
        } else if let Some(f) = frame {
            self.view.frame(f);
        }
        Ok(())
    }

    fn chunk_done(&mut self) -> Result<()> {
        if self.format == Format::Ndjson {
            self.out.flush()?;
        }
        Ok(())
    }
}
