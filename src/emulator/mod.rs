//! The service side: a protocol-faithful local emulator (`analyst serve`, `chat --demo`).
//!
//! The analyst engine ([`engine::Engine`]) is a library without HTTP: a semantic model
//! ([`model`]) over a SQLite warehouse ([`warehouse`]), a deterministic planner ([`plan`]) and the
//! agent ([`agent`]) that turns a question into the frames of one turn.

pub mod agent;
pub mod answer;
pub mod catalog;
mod check;
pub mod dates;
pub mod engine;
mod infer;
pub mod meta;
pub mod model;
pub mod model_yaml;
pub mod plan;
pub mod sample;
pub mod sqlgen;
pub mod text;
pub mod timeparse;
pub mod warehouse;

// The HTTP side (`analyst serve`): routes, threads and streams, users, SCIM, faults, clock.
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
