//! Read-only memory maps of a file's blocks and long lines.

use std::fs::File;
use std::os::unix::io::AsRawFd;

/// `len` bytes of a file from `offset`, mapped read-only; unmapped when dropped.
#[derive(Debug)]
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
        // under the mapping raises SIGBUS (see `blocks`' documentation).
        unsafe { std::slice::from_raw_parts(self.base.cast::<u8>().add(self.skip), self.len) }
    }
}

// SAFETY: a `Map` owns its mapping: its bytes are read-only for its whole life and only its
// drop unmaps them, so it can be handed to another thread (a block's long line goes to the
// thread that merges the blocks) and read from several at once (the decoding threads).
unsafe impl Send for Map {}
// SAFETY: as above; `&Map` gives only `&[u8]` of the read-only mapping.
unsafe impl Sync for Map {}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: `base`/`mapped` are the mapping `new` made, unmapped once.
        unsafe {
            libc::munmap(self.base, self.mapped);
        }
    }
}
