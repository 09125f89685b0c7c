//! The analyst, without HTTP: a semantic model ([`model`], read from YAML by [`model_yaml`] or
//! inferred from the data by [`model_infer`]) over a SQLite warehouse ([`warehouse`], built-in
//! [`sample_data`]), a deterministic planner ([`planner`]) that reads questions with
//! [`timeparse`], [`comparisons`] and [`words`], dialect SQL from plans ([`sqlgen`]) compiled by the semantic layer
//! ([`semantic`]: joins and access policies, for the agent and the data query API), and the agent
//! ([`agent`]) that turns a question into the frames of one turn, with the answer text
//! ([`answer_text`]). Only `emulator::http` imports this room; it imports nothing of `http`.

pub(crate) mod agent;
pub(crate) mod answer_text;
pub(crate) mod catalog;
pub(crate) mod comparisons;
pub mod csv_data;
pub(crate) mod dates;
pub(crate) mod loaded;
pub(crate) mod meta_search;
pub(crate) mod model;
mod model_check;
mod model_infer;
pub mod model_yaml;
pub(crate) mod planner;
pub(crate) mod request;
pub(crate) mod sample_data;
pub(crate) mod semantic;
pub(crate) mod sqlgen;
pub(crate) mod timeparse;
pub mod warehouse;
pub(crate) mod words;

pub use loaded::{Engine, keep_samples_in};
pub use request::{AgentRequest, AgentRun, TurnMemory};
pub use semantic::{CompileError, Compiled, QueryError, SecurityContext};
