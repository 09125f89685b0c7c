//! The analyst, without HTTP: a semantic model ([`model`], read from YAML by [`model_yaml`] or
//! inferred from the data by [`model_infer`]) over a SQLite warehouse ([`warehouse`], built-in
//! [`sample_data`]), a deterministic planner ([`planner`]) that reads questions with
//! [`timeparse`], [`comparisons`] and [`words`], dialect SQL from plans ([`sqlgen`]) compiled by the semantic layer
//! ([`semantic`]: joins and access policies, for the agent and the data query API), and the agent
//! ([`agent`]) that turns a question into the frames of one turn, with the answer text
//! ([`answer_text`]). Only `emulator::http` imports this room; it imports nothing of `http`.

pub mod agent;
pub mod answer_text;
pub mod catalog;
pub mod comparisons;
pub mod dates;
pub mod loaded;
pub mod meta_search;
pub mod model;
mod model_check;
mod model_infer;
pub mod model_yaml;
pub mod planner;
pub mod request;
pub mod sample_data;
pub mod semantic;
pub mod sqlgen;
pub mod timeparse;
pub mod warehouse;
pub mod words;

pub use loaded::Engine;
pub use request::{AgentRequest, AgentRun, TurnMemory};
pub use semantic::{CompileError, Compiled, QueryError, SecurityContext};
