//! A file's lines, scanned in parallel blocks and reduced in order.
//!
//! The file is cut into fixed-size blocks; each line belongs to the block where it starts.
//! Workers claim blocks in order, frame them with their own [`Framer`] and fold each line into
//! a per-block state; the caller's `reduce` receives the states strictly in block order, so an
//! order-dependent rule (the last final frame wins) merges exactly as a sequential scan would.
//! Memory is a few blocks' worth of buffers and states, whatever the file's size.
//!
//! A block is read through a memory map of it where the system allows ([`Plan::map`]): the
//! bytes are scanned where the page cache holds them, which saves a copy of the whole file (a
//! read costs as much CPU as `wc -l` spends in all). Only the end of a block's last line, past
//! the block, is read into a buffer. The one thing a map cannot do that a read can is report
//! a file that another process truncates while it is scanned: the process then gets SIGBUS.

use super::{Event, Framer};
use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};

/// What a worker produced for one block.
#[derive(Debug)]
pub struct Block<S> {
    /// The folded state.
    pub state: S,
    /// Lines that start in the block (blank ones included), for absolute line numbers.
    pub lines: u64,
    /// The map of the block's last line, when it was long (mapped whole) and `scan`'s `keep`
    /// wanted it: the caller can read the line again where it is, without mapping or reading
    /// it a second time.
    pub line: Option<LineMap>,
}

/// A long line of the file, mapped (see [`Block::line`]).
#[derive(Debug)]
pub struct LineMap {
    map: Arc<map::Map>,
    /// The line's offset in the file (the map's first byte) and its length.
    start: u64,
    len: usize,
}

impl LineMap {
    /// The file's `len` bytes at `offset`, if they lie within this line.
    pub fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let from = usize::try_from(offset.checked_sub(self.start)?).ok()?;
        self.map.bytes()[..self.len].get(from..from.checked_add(len)?)
    }

    /// The line's offset in the file.
    pub fn start(&self) -> u64 {
        self.start
    }
}

/// How to cut and scan.
#[derive(Clone, Copy, Debug)]
pub struct ScanPlan {
    /// Block size in bytes.
    pub block: u64,
    /// Worker threads.
    pub threads: usize,
    /// The line-length bound.
    pub max_line: usize,
    /// Read the blocks through memory maps where the system allows (no copy), else with reads.
    pub map: bool,
}

const READ: usize = 1 << 20;
/// How much to read at a time past a block's end, looking for its last line's newline.
const TAIL: usize = 64 << 10;

/// Scan `file` (of `len` bytes). `fold` sees each event with its line number relative to its
/// block; `reduce` gets the blocks in order and returns false to stop early. `keep` says, from
/// a block's state and the offset of its last line, when that line was long enough to be
/// mapped whole, whether the block should carry the map to `reduce` ([`Block::line`]).
pub fn scan<S, I, F, K, R>(
    file: &File,
    len: u64,
    plan: ScanPlan,
    init: I,
    fold: F,
    keep: K,
    mut reduce: R,
) -> std::io::Result<()>
where
    S: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, Event<'_>) + Sync,
    K: Fn(&S, u64) -> bool + Sync,
    R: FnMut(Block<S>) -> bool,
{
    let block = plan.block.max(1);
    let count = len.div_ceil(block);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let searches = search::Searches::default();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(u64, std::io::Result<Block<S>>)>(plan.threads * 2);
        for _ in 0..plan.threads.max(1) {
            let tx = tx.clone();
            let (next, stop, init, fold, keep) = (&next, &stop, &init, &fold, &keep);
            let with = Scanning {
                max_line: plan.max_line,
                map: plan.map,
                searches: &searches,
            };
            scope.spawn(move || {
                // Allocated when first needed: mapped blocks read nothing into it.
                let mut buf = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let start = i * block;
                    let end = (start + block).min(len);
                    // A block inside a long line another worker is searching: this one helps
                    // that search, whose result settles the block.
                    let result = if with.searches.settle_empty(start, end) {
                        Ok(empty(init()))
                    } else {
                        let at = Place {
                            file,
                            len,
                            start,
                            end,
                        };
                        scan_block(at, with, &mut buf, init(), fold, keep)
                    };
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Reduce in block order; results that arrive early wait (at most a few of them).
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (i, result) in rx {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&want) {
                want += 1;
                match result {
                    Ok(b) => {
                        if !reduce(b) {
                            stop.store(true, Ordering::Relaxed);
                            return Ok(());
                        }
                    }
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    })
}

/// A block of the file: `[start, end)` of its `len` bytes.
#[derive(Clone, Copy)]
struct Place<'f> {
    file: &'f File,
    len: u64,
    start: u64,
    end: u64,
}

/// How every block is scanned.
#[derive(Clone, Copy)]
struct Scanning<'s> {
    max_line: usize,
    map: bool,
    searches: &'s search::Searches,
}

/// Fold the lines that start in the block.
fn scan_block<S, F: Fn(&mut S, Event<'_>), K: Fn(&S, u64) -> bool>(
    at: Place<'_>,
    with: Scanning<'_>,
    buf: &mut Vec<u8>,
    mut state: S,
    fold: &F,
    keep: &K,
) -> std::io::Result<Block<S>> {
    let Place {
        file,
        len,
        start,
        end,
    } = at;
    let Scanning { max_line, map, .. } = with;
    let mut framer = if start == 0 {
        Framer::new(max_line)
    } else {
        Framer::inside_input(max_line)
    };
    let mut on = |e: Event<'_>| -> Result<(), std::convert::Infallible> {
        fold(&mut state, e);
        Ok(())
    };
    // The first line of this block starts after the first newline at or after `start - 1`.
    let mut pos = start;
    // The block's bytes (and the one before it) mapped, where the system allows: read in place,
    // they cost no copy. So are the next TAIL bytes, where the block's last line most likely
    // ends.
    let from = start.saturating_sub(1);
    let past = (end + TAIL as u64).min(len);
    let mapped = if map {
        map::Map::new(file, from, past - from, true)
    } else {
        None
    };
    let mut long = None;
    if let Some(map) = mapped {
        match feed_mapped(&mut framer, &mut on, map.bytes(), from, at) {
            Mapped::Empty => return Ok(empty(state)),
            Mapped::Reached(reached) => pos = reached,
            Mapped::Long { line_start, clear } => {
                drop(map);
                let whole = feed_long_line(at, line_start, clear, with, &mut framer, &mut on);
                // Too long for the bound, or the input's last line without a newline: read
                // from its start, as a block that is not mapped is.
                (pos, long) = whole.unwrap_or((line_start, None));
            }
        }
    } else if start > 0 {
        buf.resize(READ, 0);
        match find_newline(file, start - 1, end, buf)? {
            Some(nl) if nl + 1 < end => pos = nl + 1,
            // No line starts here: the block lies inside a line that began earlier.
            _ => return Ok(empty(state)),
        }
    }
    if pos >= end && !framer.has_partial() {
        if pos >= len {
            let _ = framer.finish(&mut on);
        }
        let lines = framer.lines();
        // The long line, if it was the block's last and the caller wants it.
        let line = long.filter(|l: &LineMap| keep(&state, l.start));
        return Ok(Block { state, lines, line });
    }
    if !framer.has_partial() {
        framer.set_position(pos);
    }
    let pos = feed_read(&mut framer, &mut on, file, len, pos, end, buf)?;
    if pos >= len {
        let _ = framer.finish(&mut on);
    }
    let lines = framer.lines();
    Ok(Block {
        state,
        lines,
        line: None,
    })
}

/// The block of a state where no line starts.
fn empty<S>(state: S) -> Block<S> {
    Block {
        state,
        lines: 0,
        line: None,
    }
}

/// Feed `framer` the file's bytes from `pos` (a line start, or inside the block's last line)
/// up to `end`, then on to the newline that ends the block's last line: read through `buf`,
/// where the block is not mapped. The position reached.
fn feed_read(
    framer: &mut Framer,
    on: &mut impl FnMut(Event<'_>) -> Result<(), std::convert::Infallible>,
    file: &File,
    len: u64,
    mut pos: u64,
    end: u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<u64> {
    buf.resize(READ, 0);
    while pos < len {
        // Past the block only the end of its last line is wanted: read a little at a time
        // (the next block's worker reads those bytes again).
        let room = if pos >= end { TAIL } else { buf.len() };
        let want = room.min((len - pos) as usize);
        let n = read_at(file, &mut buf[..want], pos)?;
        if n == 0 {
            break;
        }
        let mut chunk = &buf[..n];
        if pos >= end {
            if let Some(nl) = memchr::memchr(b'\n', chunk) {
                chunk = &chunk[..=nl];
            }
            let done = chunk.last() == Some(&b'\n');
            let _ = framer.feed(chunk, on);
            pos += chunk.len() as u64;
            if done {
                break;
            }
            continue;
        }
        if pos + n as u64 > end {
            chunk = &chunk[..(end - pos) as usize];
        }
        let _ = framer.feed(chunk, on);
        pos += chunk.len() as u64;
        if pos >= end && !framer.has_partial() {
            break;
        }
    }
    Ok(pos)
}

/// How far [`feed_mapped`] took a block.
enum Mapped {
    /// No line starts in the block.
    Empty,
    /// Its lines fed, up to this position (past the newline that ends its last line, or the
    /// input's end).
    Reached(u64),
    /// Its lines fed but the last, which starts at `line_start` and has no newline up to
    /// `clear`, the end of the mapped bytes: a long line, none of it fed yet.
    Long { line_start: u64, clear: u64 },
}

/// The lines that start in a mapped block, fed to `framer`: `bytes` are the file's from `from`
/// (the byte before the block's start, or 0) to the block's end and on, up to TAIL more. The
/// block's last line is fed only if it ends within those bytes: one that goes on past them is
/// left for [`feed_long_line`], so that its front (up to a block) is not copied into the
/// framer only to be thrown away.
fn feed_mapped(
    framer: &mut Framer,
    on: &mut impl FnMut(Event<'_>) -> Result<(), std::convert::Infallible>,
    bytes: &[u8],
    from: u64,
    at: Place<'_>,
) -> Mapped {
    let Place {
        len, start, end, ..
    } = at;
    let (block, after) = bytes.split_at((end - from) as usize);
    let mut pos = start;
    if start > 0 {
        match memchr::memchr(b'\n', block) {
            Some(nl) if from + (nl as u64) + 1 < end => pos = from + nl as u64 + 1,
            _ => return Mapped::Empty,
        }
    }
    framer.set_position(pos);
    let body = &block[(pos - from) as usize..];
    // The block's whole lines, then its last line (the bytes after its last newline).
    let last = memchr::memrchr(b'\n', body).map_or(0, |nl| nl + 1);
    let _ = framer.feed(&body[..last], on);
    let tail = &body[last..];
    if tail.is_empty() {
        return Mapped::Reached(end);
    }
    let clear = end + after.len() as u64;
    let rest = match memchr::memchr(b'\n', after) {
        Some(nl) => &after[..=nl],
        // The input's last line, without a newline: the framer finishes it.
        None if clear >= len => after,
        None => {
            let line_start = end - tail.len() as u64;
            return Mapped::Long { line_start, clear };
        }
    };
    let _ = framer.feed(tail, on);
    let _ = framer.feed(rest, on);
    Mapped::Reached(end + rest.len() as u64)
}

/// The block's last line, from `line_start`, goes on past the mapped bytes (it has no newline
/// before `clear`; the framer, at a line start, holds none of it): map it whole, from its
/// start to its newline, and hand it over in place, so that a long line (a tool result or a
/// state of megabytes, a file of one line) costs no copy. The position reached, and the
/// line's map; None when the line is not whole within the line bound (too long, or the
/// input's last line without a newline), which the read path then deals with.
fn feed_long_line(
    at: Place<'_>,
    line_start: u64,
    clear: u64,
    with: Scanning<'_>,
    framer: &mut Framer,
    on: &mut impl FnMut(Event<'_>) -> Result<(), std::convert::Infallible>,
) -> Option<(u64, Option<LineMap>)> {
    let held = usize::try_from(clear - line_start).ok()?;
    // Room for the longest line the framer takes: the bound, a CR, a byte-order mark and
    // the newline.
    let window = (with.max_line as u64 + 5).min(at.len - line_start);
    if held as u64 >= window {
        return None;
    }
    // Not populated ahead: the window may reach far past a line of a megabyte. The search for
    // the newline brings the line's pages in, and the scan finds them there.
    let map = map::Map::new(at.file, line_start, window, false)?;
    let map = Arc::new(map);
    let bytes = map.bytes();
    // Most long lines end within a chunk (a tool result of a megabyte): searched alone. A
    // longer one is searched by every worker that claims a block inside it.
    let first = bytes.len().min(held + search::CHUNK);
    let nl = match memchr::memchr(b'\n', &bytes[held..first]) {
        Some(i) => Some(held + i),
        None if first < bytes.len() => {
            let line = search::Search::new(Arc::clone(&map), line_start, first);
            with.searches.run(line)
        }
        None => None,
    };
    let line = &bytes[..=nl?];
    framer.set_position(line_start);
    // The line's one newline is its last byte: no need to search it again.
    let _ = framer.feed_line(line, on);
    let kept = LineMap {
        map: Arc::clone(&map),
        start: line_start,
        len: line.len(),
    };
    Some((line_start + line.len() as u64, Some(kept)))
}

pub(crate) mod map;
mod search;

fn read_at(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    loop {
        match file.read_at(buf, pos) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// The offset of the first newline in `[from, until)`.
fn find_newline(
    file: &File,
    mut from: u64,
    until: u64,
    buf: &mut [u8],
) -> std::io::Result<Option<u64>> {
    while from < until {
        let want = buf.len().min((until - from) as usize);
        let n = read_at(file, &mut buf[..want], from)?;
        if n == 0 {
            return Ok(None);
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(Some(from + i as u64));
        }
        from += n as u64;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// (absolute line number, text) of every line, or "!N" for too-long ones.
    fn lines_by_blocks(content: &[u8], block: u64, threads: usize, max_line: usize) -> Vec<String> {
        let mapped = lines_by_blocks_read(content, block, threads, max_line, true);
        let read = lines_by_blocks_read(content, block, threads, max_line, false);
        assert_eq!(
            mapped, read,
            "mapped and read, block {block}, threads {threads}"
        );
        mapped
    }

    fn lines_by_blocks_read(
        content: &[u8],
        block: u64,
        threads: usize,
        max_line: usize,
        map: bool,
    ) -> Vec<String> {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(content).unwrap();
        let mut out = Vec::new();
        let mut base = 0;
        scan(
            &f,
            content.len() as u64,
            ScanPlan {
                block,
                threads,
                max_line,
                map,
            },
            Vec::new,
            |s: &mut Vec<(u64, String)>, e| match e {
                Event::Line(l) => s.push((l.number, String::from_utf8_lossy(l.text).into_owned())),
                Event::TooLong { number, .. } => s.push((number, "!".into())),
            },
            |_, _| false,
            |b| {
                out.extend(
                    b.state
                        .into_iter()
                        .map(|(n, t)| format!("{}:{t}", base + n)),
                );
                base += b.lines;
                true
            },
        )
        .unwrap();
        out
    }

    #[test]
    fn every_block_size_gives_the_sequential_lines() {
        let content = b"{\"a\":1}\n\nsecond line\r\nx\n0123456789abcdef\nlast without newline";
        let expected = lines_by_blocks(content, 1 << 20, 1, 10);
        assert_eq!(expected.len(), 6);
        assert_eq!(expected[4], "5:!");
        for block in 1..=content.len() as u64 + 1 {
            for threads in [1, 2, 3] {
                assert_eq!(
                    lines_by_blocks(content, block, threads, 10),
                    expected,
                    "block {block}, threads {threads}"
                );
            }
        }
        let ends_with_newline = b"a\nbb\nccc\n";
        for block in 1..=10 {
            assert_eq!(
                lines_by_blocks(ends_with_newline, block, 2, 100),
                ["1:a", "2:bb", "3:ccc"],
                "block {block}"
            );
        }
        assert!(lines_by_blocks(b"", 4, 2, 10).is_empty());
    }

    /// The lines a sequential read frames, as [`lines_by_blocks`] writes them.
    fn sequential(content: &[u8], max_line: usize) -> Vec<String> {
        let mut out = Vec::new();
        super::super::read_lines(content, max_line, &mut |e| {
            out.push(match e {
                Event::Line(l) => format!("{}:{}", l.number, String::from_utf8_lossy(l.text)),
                Event::TooLong { number, .. } => format!("{number}:!"),
            });
            Ok::<_, ()>(())
        })
        .unwrap()
        .unwrap();
        out
    }

    #[test]
    fn lines_past_a_blocks_mapped_tail_frame_as_a_sequential_read_does() {
        // Lines that run past a block and the TAIL mapped after it: whole within the bound
        // (mapped whole, their newline searched by every worker), too long for it (read from
        // their start), the input's first line with a byte-order mark, and a last line
        // without a newline; each beside short lines and a block boundary anywhere.
        let long = "y".repeat(2 * TAIL + 333);
        let contents = [
            format!("{long}\nshort\n"),
            format!("\u{FEFF}{long}\nshort\n"),
            format!("a\n{long}\n{long}\nb\n"),
            format!("a\n{long}"),
            format!("{long}\n\n{long}x\nlast"),
        ];
        for content in &contents {
            for max_line in [3 * TAIL, 2 * TAIL + 300, 100] {
                let want = sequential(content.as_bytes(), max_line);
                for block in [999, 4096, TAIL as u64 + 1, 3 * TAIL as u64] {
                    for threads in [1, 2, 3] {
                        assert_eq!(
                            lines_by_blocks(content.as_bytes(), block, threads, max_line),
                            want,
                            "content of {} bytes, max_line {max_line}, block {block}, threads {threads}",
                            content.len()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn only_the_files_first_line_drops_a_byte_order_mark() {
        // A mark at the start of a later line is that line's bytes, whichever block the line
        // opens: every block size gives what a sequential read frames.
        let content = b"\xEF\xBB\xBFone\ntwo\n\xEF\xBB\xBFthree\n";
        let mut sequential = Vec::new();
        super::super::read_lines(&content[..], 100, &mut |e| {
            if let Event::Line(l) = e {
                let text = String::from_utf8_lossy(l.text);
                sequential.push(format!("{}:{text}", l.number));
            }
            Ok::<_, ()>(())
        })
        .unwrap()
        .unwrap();
        assert_eq!(sequential, ["1:one", "2:two", "3:\u{FEFF}three"]);
        for block in 1..=content.len() as u64 {
            assert_eq!(
                lines_by_blocks(content, block, 2, 100),
                sequential,
                "block {block}"
            );
        }
    }

    #[test]
    fn a_line_longer_than_several_blocks_and_reads_is_whole() {
        // The tail past a block is read 64 KiB at a time: a line must survive any number of
        // those reads, and the blocks inside it must give no lines.
        let long = "x".repeat(3 * TAIL + 17);
        let content = format!("first\n{long}\nlast\n");
        for block in [1000, 4096, TAIL as u64, 1 << 20] {
            assert_eq!(
                lines_by_blocks(content.as_bytes(), block, 2, 1 << 20),
                [
                    "1:first".to_owned(),
                    format!("2:{long}"),
                    "3:last".to_owned()
                ],
                "block {block}"
            );
        }
    }

    #[test]
    fn reduce_can_stop_early() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&b"line\n".repeat(1000)).unwrap();
        let mut seen = 0;
        scan(
            &f,
            5000,
            ScanPlan {
                block: 50,
                threads: 2,
                max_line: 100,
                map: true,
            },
            || 0u64,
            |n, _| *n += 1,
            |_, _| false,
            |_| {
                seen += 1;
                seen < 3
            },
        )
        .unwrap();
        assert_eq!(seen, 3);
    }
}
