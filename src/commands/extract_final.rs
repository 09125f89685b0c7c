//! `analyst extract-final`: the final answer of saved NDJSON streams, at close to I/O speed.

use super::Ctx;
use crate::answer::{Answer, FinalTracker};
use crate::cli::{ExtractFinalArgs, Format};
use crate::exit::{fail, usage, Status};
use crate::ndjson::blocks::{self, Plan};
use crate::ndjson::{self, Event};
use crate::render::{pick_format, warn, write_document};
use anyhow::Result;
use serde_json::{json, Value};
use std::io::Write;
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

/// Why a line is not a JSON object, if it is not.
fn check_line(tracker: &mut FinalTracker, text: &[u8]) -> Option<String> {
    let e = tracker.observe(text).err()?;
    Some(if e.expected == "valid UTF-8" {
        format!("invalid UTF-8 at byte {}", e.offset)
    } else {
        format!(
            "not a JSON object: expected {} at byte {}",
            e.expected, e.offset
        )
    })
}

/// One input's (or one block's) scan: the answer tracker and the malformed lines met, with
/// line numbers relative to where the scan began.
struct Scan {
    tracker: FinalTracker,
    malformed: Malformed,
}

fn fold(scan: &mut Scan, event: Event<'_>) {
    let problem = match event {
        Event::Line(line) if line.is_blank() => None,
        Event::Line(line) => check_line(&mut scan.tracker, line.text).map(|why| (line.number, why)),
        Event::TooLong { number, limit } => {
            Some((number, format!("longer than the limit of {limit} bytes")))
        }
    };
    if let Some(first) = problem {
        scan.malformed.count += 1;
        scan.malformed.first.get_or_insert(first);
    }
}

/// Blocks of a regular file scanned in parallel: large enough that thread hand-offs are rare,
/// small enough that the blocks in flight stay a few megabytes.
const BLOCK: u64 = 4 << 20;

fn extract(path: &Path, name: &str, fallback: bool, strict: bool) -> Result<Outcome> {
    let read_error = |e: std::io::Error| fail(Status::Usage, format!("{name}: read error: {e}"));
    let strict_error = |m: &Malformed, base: u64| {
        let (line, why) = m
            .first
            .as_ref()
            .expect("only called when a line was malformed");
        usage(format!("{name}:{}: {why}", base + line))
    };
    let mut total = Scan {
        tracker: FinalTracker::new(fallback),
        malformed: Malformed::default(),
    };
    if path.as_os_str() == "-" {
        let stdin = std::io::stdin().lock();
        // Strict mode stops at the first bad line; otherwise everything is read.
        let mut on = |e: Event<'_>| -> Result<()> {
            fold(&mut total, e);
            if strict && total.malformed.count > 0 {
                return Err(strict_error(&total.malformed, 0));
            }
            Ok(())
        };
        ndjson::read_lines(stdin, ndjson::DEFAULT_MAX_LINE, &mut on).map_err(read_error)??;
    } else {
        if path.is_dir() {
            return Err(usage(format!("{name}: is a directory")));
        }
        let file =
            std::fs::File::open(path).map_err(|e| usage(format!("{name}: cannot read: {e}")))?;
        let len = file.metadata().map_err(read_error)?.len();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(len.div_ceil(BLOCK) as usize);
        let plan = Plan {
            block: BLOCK,
            threads,
            max_line: ndjson::DEFAULT_MAX_LINE,
        };
        let mut base = 0;
        let mut failed = None;
        let init = || Scan {
            tracker: FinalTracker::for_block(fallback),
            malformed: Malformed::default(),
        };
        blocks::scan(&file, len, plan, init, fold, |block| {
            let Scan { tracker, malformed } = block.state;
            if let Some((line, why)) = malformed.first {
                if strict {
                    failed = Some(strict_error(
                        &Malformed {
                            count: 1,
                            first: Some((line, why)),
                        },
                        base,
                    ));
                    return false;
                }
                total.malformed.count += malformed.count;
                total.malformed.first.get_or_insert((base + line, why));
            }
            total.tracker.merge(tracker);
            base += block.lines;
            true
        })
        .map_err(read_error)?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    Ok(Outcome {
        answer: total.tracker.answer(),
        malformed: total.malformed,
    })
}
