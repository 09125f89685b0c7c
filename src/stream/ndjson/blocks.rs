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
use std::sync::mpsc;

/// What a worker produced for one block.
#[derive(Debug)]
pub struct Block<S> {
    /// The folded state.
    pub state: S,
    /// Lines that start in the block (blank ones included), for absolute line numbers.
    pub lines: u64,
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
/// block; `reduce` gets the blocks in order and returns false to stop early.
pub fn scan<S, I, F, R>(
    file: &File,
    len: u64,
    plan: ScanPlan,
    init: I,
    fold: F,
    mut reduce: R,
) -> std::io::Result<()>
where
    S: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, Event<'_>) + Sync,
    R: FnMut(Block<S>) -> bool,
{
    let block = plan.block.max(1);
    let count = len.div_ceil(block);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(u64, std::io::Result<Block<S>>)>(plan.threads * 2);
        for _ in 0..plan.threads.max(1) {
            let tx = tx.clone();
            let (next, stop, init, fold) = (&next, &stop, &init, &fold);
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
                    let result = scan_block(
                        file,
                        len,
                        start,
                        end,
                        plan.max_line,
                        plan.map,
                        &mut buf,
                        init(),
                        fold,
                    );
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

/// Fold the lines that start in `[start, end)`.
#[allow(clippy::too_many_arguments)]
fn scan_block<S, F: Fn(&mut S, Event<'_>)>(
    file: &File,
    len: u64,
    start: u64,
    end: u64,
    max_line: usize,
    map: bool,
    buf: &mut Vec<u8>,
    mut state: S,
    fold: &F,
) -> std::io::Result<Block<S>> {
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
    if let Some(map) = mapped {
        match feed_mapped(&mut framer, &mut on, map.bytes(), from, start, end) {
            Some(reached) => pos = reached,
            None => return Ok(Block { state, lines: 0 }),
        }
        if pos < len && !framer.partial().is_empty() {
            pos = feed_long_line(file, len, pos, max_line, &mut framer, &mut on);
        }
    } else if start > 0 {
        buf.resize(READ, 0);
        match find_newline(file, start - 1, end, buf)? {
            Some(nl) if nl + 1 < end => pos = nl + 1,
            // No line starts here: the block lies inside a line that began earlier.
            _ => return Ok(Block { state, lines: 0 }),
        }
    }
    if pos >= end && !framer.has_partial() {
        if pos >= len {
            let _ = framer.finish(&mut on);
        }
        let lines = framer.lines();
        return Ok(Block { state, lines });
    }
    if !framer.has_partial() {
        framer.set_position(pos);
    }
    let pos = feed_read(&mut framer, &mut on, file, len, pos, end, buf)?;
    if pos >= len {
        let _ = framer.finish(&mut on);
    }
    let lines = framer.lines();
    Ok(Block { state, lines })
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

/// The lines that start in a mapped block, fed to `framer`: `bytes` are the file's from `from`
/// (the byte before `start`, or 0) to `end` and on, up to TAIL more. The position reached (past
/// the newline that ends the block's last line, if the mapped bytes hold it), or None when no
/// line starts in the block.
fn feed_mapped(
    framer: &mut Framer,
    on: &mut impl FnMut(Event<'_>) -> Result<(), std::convert::Infallible>,
    bytes: &[u8],
    from: u64,
    start: u64,
    end: u64,
) -> Option<u64> {
    let (block, after) = bytes.split_at((end - from) as usize);
    let mut pos = start;
    if start > 0 {
        match memchr::memchr(b'\n', block) {
            Some(nl) if from + (nl as u64) + 1 < end => pos = from + nl as u64 + 1,
            _ => return None,
        }
    }
    framer.set_position(pos);
    let _ = framer.feed(&block[(pos - from) as usize..], on);
    pos = end;
    if framer.has_partial() {
        // The rest of the last line, up to its newline if the mapped bytes hold it.
        let rest = memchr::memchr(b'\n', after).map_or(after, |nl| &after[..=nl]);
        let _ = framer.feed(rest, on);
        pos += rest.len() as u64;
    }
    Some(pos)
}

/// The block's last line goes on past the mapped bytes (the framer holds its front, up to
/// `pos`): map it whole, from its start to its newline, and hand it over in place, so that a
/// long line (a tool result or a state of megabytes, a file of one line) costs no copy. The
/// position reached; `pos` unchanged when the line is not whole within the line bound (too
/// long, or the input's last line without a newline), which the read path then deals with.
fn feed_long_line(
    file: &File,
    len: u64,
    pos: u64,
    max_line: usize,
    framer: &mut Framer,
    on: &mut impl FnMut(Event<'_>) -> Result<(), std::convert::Infallible>,
) -> u64 {
    let held = framer.partial().len() as u64;
    let line_start = pos - held;
    // Room for the longest line the framer takes: the bound, a CR, a byte-order mark and
    // the newline.
    let window = (max_line as u64 + 5).min(len - line_start);
    // Not populated ahead: the window may reach far past a line of a megabyte. The search for
    // the newline brings the line's pages in, and the scan finds them there.
    let Some(map) = map::Map::new(file, line_start, window, false) else {
        return pos;
    };
    let bytes = map.bytes();
    let Some(nl) = memchr::memchr(b'\n', &bytes[held as usize..]) else {
        return pos;
    };
    let line = &bytes[..held as usize + nl + 1];
    framer.discard_partial();
    framer.set_position(line_start);
    // The line's one newline is its last byte: no need to search it again.
    let _ = framer.feed_line(line, on);
    line_start + line.len() as u64
}

/// Read-only memory maps of a file's blocks.
pub(crate) mod map {
    use std::fs::File;
    use std::os::unix::io::AsRawFd;

    /// `len` bytes of a file from `offset`, mapped read-only; unmapped when dropped.
    pub(crate) struct Map {
        /// The start of the mapping (page-aligned, at or before the bytes asked for).
        base: *mut libc::c_void,
        /// The mapping's length.
        mapped: usize,
        /// Where the bytes asked for start in it, and how many.
        skip: usize,
        len: usize,
    }

    impl Map {
        /// The mapping, or None when the system refuses (the caller reads instead); with
        /// `populate`, its pages are mapped at once (no fault per page as they are read).
        pub(crate) fn new(file: &File, offset: u64, len: u64, populate: bool) -> Option<Map> {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let page = u64::try_from(page).ok().filter(|p| p.is_power_of_two())?;
            let aligned = offset & !(page - 1);
            let skip = usize::try_from(offset - aligned).ok()?;
            let len = usize::try_from(len).ok()?;
            let mapped = skip.checked_add(len)?;
            if len == 0 {
                return None;
            }
            // SAFETY: a fresh read-only private mapping of an open file; nothing else refers
            // to the address range it returns.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    mapped,
                    libc::PROT_READ,
                    if populate {
                        libc::MAP_PRIVATE | libc::MAP_POPULATE
                    } else {
                        libc::MAP_PRIVATE
                    },
                    file.as_raw_fd(),
                    libc::off_t::try_from(aligned).ok()?,
                )
            };
            (base != libc::MAP_FAILED).then_some(Map {
                base,
                mapped,
                skip,
                len,
            })
        }

        /// The bytes asked for.
        pub(crate) fn bytes(&self) -> &[u8] {
            // SAFETY: the mapping covers `skip + len` readable bytes and lives as long as
            // `self`; nothing writes through it (read-only, private). Bytes another process
            // writes to the file meanwhile may or may not show, as with reads; a truncation
            // under the mapping raises SIGBUS (see the module's documentation).
            unsafe { std::slice::from_raw_parts(self.base.cast::<u8>().add(self.skip), self.len) }
        }
    }

    impl Drop for Map {
        fn drop(&mut self) {
            // SAFETY: `base`/`mapped` are the mapping `new` made, unmapped once.
            unsafe {
                libc::munmap(self.base, self.mapped);
            }
        }
    }
}

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
            |_| {
                seen += 1;
                seen < 3
            },
        )
        .unwrap();
        assert_eq!(seen, 3);
    }
}
