//! The wire format of the service, shared by the client and the emulator: pure data, no I/O.
//!
//! Parsing is lenient (unknown fields and frame kinds pass, known fields of an unexpected type
//! read as absent); building is strict (validation before anything is sent).

pub mod chat;
pub mod data;
pub mod dialect;
pub mod emit;
pub mod frame;
mod lenient;
pub mod redact;
pub mod scim;
pub mod thread;
pub mod tool;
mod tz_names;
pub mod words;

pub use chat::{ChatRequest, SessionSettings, UserAttribute};
pub use dialect::Dialect;
pub use frame::{Frame, FrameKind};
