//! The service side: a protocol-faithful local emulator (`analyst serve`, `chat --demo`).

pub mod engine;

pub mod auth;
mod chat;
pub mod clock;
pub mod faults;
mod reply;
mod scim;
mod scim_patch;
mod scim_routes;
pub mod server;
mod stream;
mod threads;
mod turn;
mod users;
mod validate;
