//! The search for the newline that ends a long line, shared by the workers.
//!
//! A block's last line that runs past the bytes mapped with the block is mapped whole, from its
//! start, and its newline searched for (`feed_long_line`). Meanwhile the other workers claim
//! the blocks that lie inside that line, and each used to map its block and search it for a
//! line start that is not there: for a line of 55 MB, all of the other cores' work, spent on
//! maps of their own of the pages the first worker's map then faults in again. Instead the
//! search is published ([`Searches`]), and a worker that claims a block inside its line joins
//! it: the line's map is searched a chunk at a time by whoever claims the next chunk, so its
//! pages are brought in by every core and found in place by the line's scan, and the joining
//! worker's block is settled by the result (no line starts in it) without a map of its own.

use super::map::Map;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

/// Bytes searched per claim, a block's worth: a claim costs nothing beside its search, and
/// two searchers seldom fault in pages under the same page table at once (one covers 2 MiB of
/// addresses, and its lock is taken per fault). With 1 MiB claims `perf record` showed the
/// searchers in the kernel's spin-lock slow path, and `huge-line` and `vendor` took 3-4%
/// longer. (A few bytes in unit tests, so that lines of kilobytes are shared.)
pub(super) const CHUNK: usize = if cfg!(test) { 64 } else { 4 << 20 };

/// One line's search: the first newline in `map` from `from` on, by as many threads as join.
pub(super) struct Search {
    map: Arc<Map>,
    /// The file offset of the map's first byte, the line's start. Nothing before `from` in
    /// the map is a newline (the line's front, searched with the block it starts in).
    start: u64,
    from: usize,
    /// The next chunk to claim, counted from `from`.
    next: AtomicUsize,
    /// The least index of a newline found so far, or `usize::MAX`.
    found: AtomicUsize,
    /// Searchers between taking a claim and recording what they found.
    busy: AtomicUsize,
}

impl Search {
    pub(super) fn new(map: Arc<Map>, start: u64, from: usize) -> Search {
        Search {
            map,
            start,
            from,
            next: AtomicUsize::new(0),
            found: AtomicUsize::new(usize::MAX),
            busy: AtomicUsize::new(0),
        }
    }

    /// Search chunks until none is left before a newline found, then wait for the chunks
    /// others still search: the index in the map of the first newline at or after `from`.
    /// Any number of threads may call it, at any time, each getting the same answer.
    pub(super) fn run(&self) -> Option<usize> {
        let bytes = self.map.bytes();
        loop {
            // Counted busy before the claim: a searcher that sees no one busy after its own
            // last claim knows every chunk claimed before it has been searched.
            self.busy.fetch_add(1, SeqCst);
            let at = self
                .next
                .fetch_add(1, SeqCst)
                .saturating_mul(CHUNK)
                .saturating_add(self.from);
            if at >= bytes.len() || at > self.found.load(SeqCst) {
                self.busy.fetch_sub(1, SeqCst);
                break;
            }
            let end = at.saturating_add(CHUNK).min(bytes.len());
            if let Some(i) = memchr::memchr(b'\n', &bytes[at..end]) {
                self.found.fetch_min(at + i, SeqCst);
            }
            self.busy.fetch_sub(1, SeqCst);
        }
        // At most the time of one chunk's search: the others' last claims.
        while self.busy.load(SeqCst) != 0 {
            std::thread::yield_now();
        }
        Some(self.found.load(SeqCst)).filter(|&i| i != usize::MAX)
    }

    /// Whether a block whose first line would start after the first newline at or after
    /// `start - 1` lies where this search settles it.
    fn covers(&self, start: u64) -> bool {
        start > self.start && start - 1 <= self.reach()
    }

    /// The last offset this search can settle: its line's newline, or where it may be (a
    /// newline found before every chunk before it was searched), or the window's last byte.
    fn reach(&self) -> u64 {
        let found = self.found.load(SeqCst);
        let last = if found == usize::MAX {
            self.map.bytes().len().saturating_sub(1)
        } else {
            found
        };
        self.start + last as u64
    }

    /// Join the search and settle the block that ends at `end` (one whose start it
    /// [`covers`](Self::covers)): true when no line starts in it (the block lies inside the
    /// line), false when one may, and the block must be framed.
    fn settles_empty(&self, end: u64) -> bool {
        let window_end = self.start + self.map.bytes().len() as u64;
        match self.run() {
            // The first newline at or after the block's byte before it (nothing between the
            // line's start and `from` is one), and a line starts after it only if that is
            // before the block's last byte. A newline before the block's byte before it ends
            // the line before the block, which is then not this search's to settle.
            Some(i) => self.start + i as u64 + 1 >= end,
            // No newline anywhere up to the window's end.
            None => end <= window_end + 1,
        }
    }
}

/// The searches of the scan, for the workers that claim a block to look in. A search stays
/// after it ends: the blocks inside its line that are claimed later are settled by its result
/// (as the line's scan goes on, the other workers claim them). It goes once a block past its
/// reach is claimed: blocks are claimed in order, so no later block lies inside its line.
#[derive(Default)]
pub(super) struct Searches(Mutex<Vec<Arc<Search>>>);

impl Searches {
    /// Run `search`, published for others to join: its result.
    pub(super) fn run(&self, search: Search) -> Option<usize> {
        let search = Arc::new(search);
        if let Ok(mut all) = self.0.lock() {
            all.push(Arc::clone(&search));
        }
        search.run()
    }

    /// True when a search settles that no line starts in the block `[start, end)`, having
    /// joined it if it was still going; false when the block must be framed.
    pub(super) fn settle_empty(&self, start: u64, end: u64) -> bool {
        let (search, past) = match self.0.lock() {
            Ok(mut all) => {
                // Dropped after the lock is let go: the last owner of a line's map unmaps it.
                let past: Vec<_> = all
                    .extract_if(.., |s| s.reach() < start.saturating_sub(1))
                    .collect();
                (all.iter().find(|s| s.covers(start)).cloned(), past)
            }
            Err(_) => (None, Vec::new()),
        };
        drop(past);
        search.is_some_and(|s| s.settles_empty(end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn mapped(content: &[u8]) -> (std::fs::File, Arc<Map>) {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(content).unwrap();
        let map = Map::new(&f, 0, content.len() as u64, false).unwrap();
        (f, Arc::new(map))
    }

    #[test]
    fn every_searcher_finds_the_first_newline() {
        // Newlines at chunk starts and ends, in the middle, twice in a chunk, none at all, and
        // before `from` (which the search must not see).
        let len = 40 * CHUNK + 7;
        let cases: &[&[usize]] = &[
            &[],
            &[3],
            &[5 * CHUNK],
            &[5 * CHUNK - 1],
            &[17 * CHUNK + 9, 17 * CHUNK + 10],
            &[39 * CHUNK + 3, 2 * CHUNK + 1],
            &[len - 1],
        ];
        for newlines in cases {
            let mut content = vec![b'x'; len];
            for &i in *newlines {
                content[i] = b'\n';
            }
            for from in [0, 4, CHUNK + 1] {
                let want = memchr::memchr(b'\n', &content[from..]).map(|i| from + i);
                for threads in 1..=4 {
                    let (_f, map) = mapped(&content);
                    let search = Search::new(map, 0, from);
                    let got: Vec<_> = std::thread::scope(|s| {
                        let handles: Vec<_> =
                            (0..threads).map(|_| s.spawn(|| search.run())).collect();
                        handles.into_iter().map(|h| h.join().unwrap()).collect()
                    });
                    assert!(
                        got.iter().all(|g| *g == want),
                        "newlines {newlines:?}, from {from}, {threads} threads: {got:?}, want {want:?}"
                    );
                    // A searcher that comes after the others have finished gets the same.
                    assert_eq!(search.run(), want);
                }
            }
        }
    }

    #[test]
    fn a_joining_worker_settles_blocks_inside_the_line_only() {
        // A line from offset 10 to its newline at 10 + 100 * CHUNK, then short lines.
        let start = 10u64;
        let nl = start as usize + 100 * CHUNK;
        let mut content = vec![b'x'; nl + 40];
        content[start as usize - 1] = b'\n';
        content[nl] = b'\n';
        content[nl + 20] = b'\n';
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&content).unwrap();
        let window = content.len() as u64 - start;
        let map = Arc::new(Map::new(&f, start, window, false).unwrap());
        let searches = Searches::default();
        let search = Arc::new(Search::new(map, start, 5));
        searches.0.lock().unwrap().push(Arc::clone(&search));
        let empty = |from: u64, to: u64| searches.settle_empty(from, to);
        let nl = nl as u64;
        // Inside the line, whatever the block's size.
        assert!(empty(start + 1, start + 2));
        assert!(empty(start + 100, nl));
        assert!(
            empty(start + 100, nl + 1),
            "the newline is the block's last byte"
        );
        // A line starts right after the newline, inside the block: it must be framed.
        assert!(!empty(start + 100, nl + 2));
        assert!(!empty(nl, nl + 30));
        assert!(
            !empty(nl + 1, nl + 30),
            "the block starts right after the newline"
        );
        // Past the line: not this search's to settle.
        assert!(!empty(nl + 2, nl + 30));
        // A block at or before the line's start is not inside it.
        assert!(!empty(start, start + 50));
        assert!(!empty(0, start + 50));
        // Without the search, nothing is settled.
        searches.0.lock().unwrap().clear();
        assert!(!empty(start + 1, start + 2));
    }

    #[test]
    fn a_line_without_a_newline_settles_the_blocks_within_its_window() {
        let content = vec![b'x'; 50 * CHUNK];
        let (_f, map) = mapped(&content);
        let searches = Searches::default();
        searches
            .0
            .lock()
            .unwrap()
            .push(Arc::new(Search::new(map, 0, 0)));
        let len = content.len() as u64;
        assert!(searches.settle_empty(1, len));
        assert!(searches.settle_empty(len - 5, len + 1));
        assert!(!searches.settle_empty(len - 5, len + 2));
        assert!(!searches.settle_empty(len + 2, len + 9));
    }
}
