//! `analyst extract-final`: the final answer of saved NDJSON streams, at close to I/O speed.

use super::Ctx;
use crate::cli::{ExtractFinalArgs, Format};
use crate::exit::{Status, fail, usage};
use crate::render::{pick_format, write_document};
use crate::stream::answer::{Answer, FinalTracker, InPlace, write_decoded};
use crate::stream::ndjson::blocks::{self, LineMap, ScanPlan};
use crate::stream::ndjson::{self, Event};
use crate::term::warn;
use anyhow::Result;
use serde_json::{Value, json};
use std::io::{Seek, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The first malformed line of an input, and how many there were.
#[derive(Debug, Default)]
struct Malformed {
    count: u64,
    first: Option<(u64, String)>,
}

/// How an input is read: `--fallback`, `--strict`, and whether only the answer's text is
/// shown.
#[derive(Clone, Copy)]
struct Modes {
    fallback: bool,
    strict: bool,
    text_only: bool,
}

/// What one input gave.
struct Outcome {
    answer: Option<Answer>,
    /// Instead of `answer`: the text of a complete frame, still in the file (text output of
    /// a long line, see [`FinalTracker::text_in_place`]).
    in_place: Option<Kept>,
    malformed: Malformed,
}

/// An answer's text still in its file, and the map of its line the scan made, when it kept
/// one (a line mapped whole, see [`blocks::Block::line`]).
struct Kept {
    file: std::fs::File,
    place: InPlace,
    map: Option<LineMap>,
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
    let mut printer = Printer {
        out: std::io::BufWriter::new(crate::exit::stdout_lock()),
        format,
        labelled: inputs.len() > 1,
        documents: Vec::new(),
        printed_any: false,
    };
    let mut status = Status::Success;
    // Text shows only the answer's text: its line need not be parsed into a message.
    let text_only = format == Format::Text;
    for path in &inputs {
        let name = if path.as_os_str() == "-" {
            "stdin".to_owned()
        } else {
            path.display().to_string()
        };
        let outcome = match extract(path, &name, args.fallback, args.strict, text_only) {
            Ok(scanned) => scanned?, // a malformed line under --strict ends the run
            Err(e) if printer.labelled => {
                // One unreadable file does not stop the others; it sets the status.
                crate::term::error(format_args!("{e:#}"));
                status = status.worst(crate::exit::status_of(&e));
                printer.failed(&name, format!("{e:#}"));
                continue;
            }
            Err(e) => return Err(e),
        };
        report_malformed(&name, &outcome.malformed);
        if let Some(kept) = &outcome.in_place {
            if kept.place.from_fallback {
                warn(format!(
                    "{name}: no final frame; using the last complete assistant message (--fallback)"
                ));
            }
            printer
                .text_in_place(&name, kept)
                .map_err(|e| read_error(&name, e))?;
            continue;
        }
        let Some(answer) = outcome.answer else {
            let hint = if args.fallback {
                ""
            } else {
                " (try --fallback)"
            };
            crate::term::error(format_args!("{name}: no final answer{hint}"));
            status = status.worst(Status::NoAnswer);
            printer.failed(&name, "no final answer".to_owned());
            continue;
        };
        if answer.incomplete {
            // Shown (it is all there is), but no complete final answer was found: status 7,
            // as `chat -o final` gives for the same stream, so that `extract-final f && publish`
            // never publishes the front of an answer.
            warn(format!(
                "{name}: the final answer is incomplete: its complete frame never arrived, so the text was rebuilt from its chunks"
            ));
            status = status.worst(Status::NoAnswer);
        }
        if format != Format::Text && !answer.left_out.is_empty() {
            warn(format!(
                "{name}: left out of the message: {} (a number beyond the range of a 64-bit float, which this output cannot hold)",
                answer.left_out.join(", ")
            ));
        }
        if answer.from_fallback {
            warn(format!(
                "{name}: no final frame; using the last complete assistant message (--fallback)"
            ));
        }
        printer.answer(&name, &answer)?;
    }
    printer.finish()?;
    Ok(status)
}

/// Where the answers go: text as it comes (labelled `==> file <==` when there are several
/// inputs), or one document (an array of per-file documents when there are several).
struct Printer<W: Write> {
    out: W,
    format: Format,
    labelled: bool,
    documents: Vec<Value>,
    printed_any: bool,
}

impl<W: Write> Printer<W> {
    /// The label of a file's answer, when there are several.
    fn label(&mut self, name: &str) -> std::io::Result<()> {
        if self.labelled {
            let sep = if self.printed_any { "\n" } else { "" };
            writeln!(self.out, "{sep}==> {name} <==")?;
        }
        Ok(())
    }

    /// A text answer still in its file: decoded from a map of it straight to the output,
    /// never held whole (text output only). A read error is the input's.
    fn text_in_place(&mut self, name: &str, kept: &Kept) -> std::io::Result<()> {
        self.label(name)?;
        let Kept { file, place, map } = kept;
        let (start, len) = (
            place.offset + place.span.start as u64,
            place.span.end - place.span.start,
        );
        // The scan's map of the line, whose pages are in place, when it kept one; else a map
        // of the text, not populated ahead: a long text is decoded by several threads, and
        // each brings in the pages of its own pieces.
        let (mapped, read);
        let content = match map.as_ref().and_then(|m| m.get(start, len)) {
            Some(bytes) => bytes,
            None => match blocks::map::Map::new(file, start, len as u64, false) {
                Some(map) => {
                    mapped = map;
                    mapped.bytes()
                }
                None => {
                    let mut buf = vec![0; len];
                    file.read_exact_at(&mut buf, start)?;
                    read = buf;
                    &read
                }
            },
        };
        let last = write_decoded(content, place.span.escaped, &mut self.out)?;
        if last != Some(b'\n') {
            self.out.write_all(b"\n")?;
        }
        self.printed_any = true;
        Ok(())
    }

    fn answer(&mut self, name: &str, answer: &Answer) -> Result<()> {
        match self.format {
            Format::Text => {
                self.label(name)?;
                self.out.write_all(answer.text.as_bytes())?;
                if !answer.text.ends_with('\n') {
                    self.out.write_all(b"\n")?;
                }
                self.printed_any = true;
            }
            _ if self.labelled => self.documents.push(
                json!({"file": name, "incomplete": answer.incomplete, "message": answer.message}),
            ),
            format => write_document(&mut self.out, &answer.message, format)?,
        }
        Ok(())
    }

    /// An input without an answer: its entry in the document of several files (the error
    /// itself is on stderr).
    fn failed(&mut self, name: &str, error: String) {
        if self.labelled && self.format != Format::Text {
            self.documents
                .push(json!({"file": name, "message": Value::Null, "error": error}));
        }
    }

    fn finish(mut self) -> Result<()> {
        if self.labelled && self.format != Format::Text {
            write_document(&mut self.out, &Value::Array(self.documents), self.format)?;
        }
        self.out.flush()?;
        Ok(())
    }
}

fn report_malformed(name: &str, m: &Malformed) {
    if let Some((line, why)) = &m.first {
        warn(format!(
            "{name}: skipped {} malformed line{}; the first, line {line}: {why}",
            m.count,
            if m.count == 1 { "" } else { "s" }
        ));
    }
}

/// Why a line is not a JSON object, if it is not; `offset`: where it is in the file, when it
/// can be read again.
fn check_line(tracker: &mut FinalTracker, text: &[u8], offset: Option<u64>) -> Option<String> {
    let e = tracker.observe_at(text, offset).err()?;
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
        Event::Line(line) => {
            check_line(&mut scan.tracker, line.text, line.offset).map(|why| (line.number, why))
        }
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

/// Scan one input. The outer error is an input that cannot be read (a multi-file run goes on);
/// the inner one a malformed line under `--strict` (the run stops).
fn extract(
    path: &Path,
    name: &str,
    fallback: bool,
    strict: bool,
    text_only: bool,
) -> Result<Result<Outcome>> {
    let modes = Modes {
        fallback,
        strict,
        text_only,
    };
    if path.as_os_str() == "-" {
        return scan_stream(std::io::stdin().lock(), name, modes);
    }
    if path.is_dir() {
        return Err(usage(format!("{name}: is a directory")));
    }
    let file = std::fs::File::open(path).map_err(|e| usage(format!("{name}: cannot read: {e}")))?;
    let meta = file.metadata().map_err(|e| read_error(name, e))?;
    if !meta.is_file() {
        // A pipe, FIFO or device (`<(...)`, /dev/stdin): no length to cut into blocks.
        return scan_stream(file, name, modes);
    }
    // The first pass does not gather the chunks of unfinished final messages: nearly always a
    // complete final frame arrives and they are thrown away. Only when the answer is such a
    // message (incomplete, status 7) is the file read again, gathering them.
    let first = scan_file(&file, meta.len(), name, modes, false)?;
    if let Ok(outcome) = &first
        && outcome.answer.as_ref().is_some_and(|a| a.incomplete)
    {
        return scan_file(&file, meta.len(), name, modes, true);
    }
    Ok(first)
}

/// Scan a regular file of `len` bytes in parallel blocks; with `text`, gathering the chunks of
/// unfinished final messages (see [`FinalTracker::without_text`]).
fn scan_file(
    file: &std::fs::File,
    len: u64,
    name: &str,
    modes: Modes,
    text: bool,
) -> Result<Result<Outcome>> {
    let Modes {
        fallback, strict, ..
    } = modes;
    let plan = ScanPlan {
        block: BLOCK,
        threads: crate::stream::cpus().min(len.div_ceil(BLOCK).max(1) as usize),
        max_line: ndjson::DEFAULT_MAX_LINE,
        map: true,
    };
    let tracker = |t: FinalTracker| if text { t } else { t.without_text() };
    let mut total = Scan::new(tracker(FinalTracker::new(fallback)));
    let mut base = 0;
    let mut failed = None;
    let init = || Scan::new(tracker(FinalTracker::for_block(fallback)));
    // The maps of long lines the answer may be read from again (its final frame's, its
    // fallback's): at most two are kept, each dropped once a later line takes its place.
    let keep = |scan: &Scan, offset| scan.tracker.keeps_place(offset);
    let mut maps: Vec<LineMap> = Vec::new();
    blocks::scan(file, len, plan, init, fold, keep, |block| {
        let Scan { tracker, malformed } = block.state;
        if let Some((line, why)) = malformed.first {
            if strict {
                failed = Some(usage(format!("{name}:{}: {why}", base + line)));
                return false;
            }
            total.malformed.count += malformed.count;
            total.malformed.first.get_or_insert((base + line, why));
        }
        total.tracker.merge(tracker);
        maps.extend(block.line);
        maps.retain(|m| total.tracker.keeps_place(m.start()));
        base += block.lines;
        true
    })
    .map_err(|e| read_error(name, e))?;
    if let Some(e) = failed {
        return Ok(Err(e));
    }
    if !total.tracker.merged_exactly() {
        // Rare (see `merged_exactly`): one pass is the rule's own answer.
        let mut file = file;
        file.rewind().map_err(|e| read_error(name, e))?;
        return scan_stream(file, name, modes);
    }
    if modes.text_only
        && let Some(place) = total.tracker.text_in_place()
    {
        let file = file.try_clone().map_err(|e| read_error(name, e))?;
        let map = maps.into_iter().find(|m| m.start() == place.offset);
        return Ok(Ok(Outcome {
            answer: None,
            in_place: Some(Kept { file, place, map }),
            malformed: total.malformed,
        }));
    }
    total
        .tracker
        .load_places(|offset, len| {
            if let Some(line) = maps.iter().find_map(|m| m.get(offset, len)) {
                return Ok(line.to_vec());
            }
            let mut line = vec![0; len];
            file.read_exact_at(&mut line, offset)?;
            Ok(line)
        })
        .map_err(|e| read_error(name, e))?;
    Ok(Ok(total.finish(modes.text_only)))
}

/// Scan a stream sequentially; with `strict`, stop at the first malformed line.
fn scan_stream(reader: impl std::io::Read, name: &str, modes: Modes) -> Result<Result<Outcome>> {
    let Modes {
        fallback,
        strict,
        text_only,
    } = modes;
    let mut total = Scan::new(FinalTracker::new(fallback));
    let mut on = |e: Event<'_>| -> Result<()> {
        fold(&mut total, e);
        match &total.malformed.first {
            Some((line, why)) if strict => Err(usage(format!("{name}:{line}: {why}"))),
            _ => Ok(()),
        }
    };
    let scanned = ndjson::read_lines(reader, ndjson::DEFAULT_MAX_LINE, &mut on)
        .map_err(|e| read_error(name, e))?;
    Ok(scanned.map(|()| total.finish(text_only)))
}

fn read_error(name: &str, e: std::io::Error) -> anyhow::Error {
    fail(Status::Usage, format!("{name}: read error: {e}"))
}

impl Scan {
    fn new(tracker: FinalTracker) -> Scan {
        Scan {
            tracker,
            malformed: Malformed::default(),
        }
    }

    /// The outcome; with `text_only`, an answer without its message (see
    /// [`FinalTracker::into_text_answer`]).
    fn finish(self, text_only: bool) -> Outcome {
        Outcome {
            answer: if text_only {
                self.tracker.into_text_answer()
            } else {
                self.tracker.answer()
            },
            in_place: None,
            malformed: self.malformed,
        }
    }
}
