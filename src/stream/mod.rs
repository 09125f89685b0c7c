//! bytes -> lines -> frames -> answer: NDJSON framing ([`ndjson`], [`lines`]), the validating
//! scanner ([`jsonscan`]), the turn tracker ([`tracker`]) and the final-answer rule
//! ([`answer`]). One path for a live chat, `--replay` and `extract-final`, with no HTTP in it:
//! the client hands it chunks, a file hands it the same.

pub mod answer;
pub(crate) mod jsonscan;
pub(crate) mod lines;
pub mod ndjson;
pub(crate) mod tracker;
