//! `analyst`: a command-line client for a conversational analytics service, and a local emulator
//! of that service. The binary's `main` only calls [`run`]; everything else lives here so that
//! integration tests and benches can reach the same code.

pub mod emulator;
