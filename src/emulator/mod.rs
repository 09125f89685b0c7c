//! The service side: a protocol-faithful local emulator (`analyst serve`, `chat --demo`), in two
//! rooms: [`engine`], the analyst (semantic model, planner, SQL, warehouse, answer text), and
//! [`http`], the service around it (routes, auth, threads and streams, users, SCIM, faults).
//! Arrows point one way: `http -> engine -> protocol`.

pub mod engine;
pub mod http;

// The paths the commands start the emulator by.
pub use engine::model_yaml;
pub use http::server;
