//! bytes -> lines -> frames -> answer: NDJSON framing ([`ndjson`], [`lines`]), the validating
//! scanner ([`jsonscan`]), the turn tracker ([`tracker`]) and the final-answer rule
//! ([`answer`]). One path for a live chat, `--replay` and `extract-final`, with no HTTP in it:
//! the client hands it chunks, a file hands it the same.

pub mod answer;
pub(crate) mod jsonscan;
pub(crate) mod lines;
pub mod ndjson;
pub(crate) mod tracker;

/// How many threads the system lets this process run at once (1 when it cannot say), asked
/// once: the standard library reads the cgroup's CPU quota files on every call, and
/// `extract-final` asks for both its scan and its decoding.
pub(crate) fn cpus() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The top bits of a 64-byte block held in two AVX2 registers (bytes 0-31, 32-63), as a mask
/// with byte `i` at bit `i`: what a byte compare of a block gives with AVX2 (AVX-512 gives
/// the mask itself). Shared by the scans that look at 64 bytes at a time.
///
/// # Safety
/// The CPU must have AVX2 (it is inlined into functions compiled for it).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn avx2_bits(
    low: std::arch::x86_64::__m256i,
    high: std::arch::x86_64::__m256i,
) -> u64 {
    use std::arch::x86_64::_mm256_movemask_epi8;
    // SAFETY: the caller's CPU has AVX2.
    unsafe {
        u64::from(_mm256_movemask_epi8(low) as u32)
            | u64::from(_mm256_movemask_epi8(high) as u32) << 32
    }
}
