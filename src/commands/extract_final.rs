//! `analyst extract-final`: the final answer of saved NDJSON streams, at close to I/O speed.

use super::Ctx;
use crate::answer::{Answer, FinalTracker};
use crate::cli::{ExtractFinalArgs, Format};
use crate::exit::{fail, usage, Status};
use crate::ndjson::{self, Event};
use crate::render::{pick_format, warn, write_document};
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::Path;

/// The first malformed line of an input, and how many there were.
#[derive(Debug, Default)]
struct Malformed {
    count: u64,
    first: Option<(u64, String)>,
}

/// What one input gave.
struct Outcome {
    answer: Option<Answer>,
    malformed: Malformed,
}

/// Run the command.
pub fn run(ctx: &Ctx, args: ExtractFinalArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Text, Format::Json, Format::Yaml],
        Format::Text,
        Format::Text,
        "extract-final",
    )?;
    let inputs: Vec<&Path> = if args.files.is_empty() {
        vec![Path::new("-")]
    } else {
        args.files.iter().map(|p| p.as_path()).collect()
    };
    if inputs.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(usage("extract-final: stdin (-) can be read only once"));
    }
    let labelled = inputs.len() > 1;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = Status::Success;
    let mut documents = Vec::new();
    for (i, path) in inputs.iter().enumerate() {
        let name = if path.as_os_str() == "-" {
            "stdin".to_owned()
        } else {
            path.display().to_string()
        };
        let outcome = match extract(path, &name, args.fallback, args.strict) {
            Ok(o) => o,
            Err(e) if labelled && crate::exit::status_of(&e) == Status::Usage && !args.strict => {
                // One unreadable file does not stop the others; it sets the status.
                eprintln!("analyst: {e:#}");
                status = status.worst(Status::Usage);
                continue;
            }
            Err(e) => return Err(e),
        };
        report_malformed(&name, &outcome.malformed);
        let Some(answer) = outcome.answer else {
            eprintln!(
                "analyst: {name}: no final answer{}",
                if args.fallback {
                    ""
                } else {
                    " (try --fallback)"
                }
            );
            status = status.worst(Status::NoAnswer);
            if labelled && format != Format::Text {
                documents.push(json!({"file": name, "message": Value::Null}));
            }
            continue;
        };
        if answer.incomplete {
            warn(format!("{name}: the final answer is incomplete: its complete frame never arrived, so the text was rebuilt from its chunks"));
        }
        if answer.from_fallback {
            warn(format!(
                "{name}: no final frame; using the last complete assistant message (--fallback)"
            ));
        }
        match format {
            Format::Text => {
                if labelled {
                    let sep = if i == 0 { "" } else { "\n" };
                    writeln!(out, "{sep}==> {name} <==")?;
                }
                out.write_all(answer.text.as_bytes())?;
                if !answer.text.ends_with('\n') {
                    out.write_all(b"\n")?;
                }
            }
            _ if labelled => documents.push(
                json!({"file": name, "incomplete": answer.incomplete, "message": answer.message}),
            ),
            _ => write_document(&mut out, &answer.message, format)?,
        }
    }
    if labelled && format != Format::Text {
        write_document(&mut out, &Value::Array(documents), format)?;
    }
    out.flush()?;
    Ok(status)
}

fn report_malformed(name: &str, m: &Malformed) {
    if let Some((line, why)) = &m.first {
        let more = if m.count > 1 {
            format!(" ({} in all)", m.count)
        } else {
            String::new()
        };
        warn(format!(
            "{name}: skipped {} malformed line{}{more}; the first, line {line}: {why}",
            m.count,
            if m.count == 1 { "" } else { "s" }
        ));
    }
}

fn open(path: &Path, name: &str) -> Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    if path.is_dir() {
        return Err(usage(format!("{name}: is a directory")));
    }
    let file = std::fs::File::open(path).map_err(|e| usage(format!("{name}: cannot read: {e}")))?;
    Ok(Box::new(file))
}

/// Why a line is not a JSON object, if it is not.
fn check_line(tracker: &mut FinalTracker, text: &[u8]) -> Option<String> {
    match tracker.observe(text) {
        Ok(true) => None,
        Ok(false) => {
            if let Err(e) = std::str::from_utf8(text) {
                return Some(format!("invalid UTF-8 at byte {}", e.valid_up_to()));
            }
            crate::jsonscan::check_object(text).err().map(|e| {
                format!(
                    "not a JSON object: expected {} at byte {}",
                    e.expected, e.offset
                )
            })
        }
        Err(e) if e.is_syntax() || e.is_eof() => Some(format!("not a JSON object: {e}")),
        Err(e) => Some(format!("not a JSON object: {e}")),
    }
}

fn extract(path: &Path, name: &str, fallback: bool, strict: bool) -> Result<Outcome> {
    let reader = open(path, name)?;
    let mut tracker = FinalTracker::new(fallback);
    let mut malformed = Malformed::default();
    let mut on_event = |event: Event<'_>| -> Result<()> {
        let problem = match event {
            Event::Line(line) if line.is_blank() => None,
            Event::Line(line) => check_line(&mut tracker, line.text).map(|why| (line.number, why)),
            Event::TooLong { number, limit } => {
                Some((number, format!("longer than the limit of {limit} bytes")))
            }
        };
        if let Some((number, why)) = problem {
            if strict {
                return Err(usage(format!("{name}:{number}: {why}")));
            }
            malformed.count += 1;
            malformed.first.get_or_insert((number, why));
        }
        Ok(())
    };
    ndjson::read_lines(reader, ndjson::DEFAULT_MAX_LINE, &mut on_event)
        .map_err(|e| fail(Status::Usage, format!("{name}: read error: {e}")))
        .context("reading input")??;
    Ok(Outcome {
        answer: tracker.answer(),
        malformed,
    })
}
