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
