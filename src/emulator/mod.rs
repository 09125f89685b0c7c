//! The service side: a protocol-faithful local emulator (`analyst serve`, `chat --demo`).

pub mod engine;
