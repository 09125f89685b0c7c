//! The emulator's analyst engine: a semantic model over a SQLite warehouse, and a deterministic
//! agent that plans a question, runs SQL and streams frames. No HTTP here; the server owns that.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A loaded model plus its warehouse; cheap to share in an `Arc` across server threads.
pub struct Engine {
    today: (i32, u32, u32),
}

/// One question to plan and answer.
#[derive(Clone, Debug, Default)]
pub struct AgentRequest {
    /// The user's question, arbitrary text.
    pub question: String,
    /// Earlier turns of the thread, oldest first.
    pub history: Vec<TurnMemory>,
    /// From `sessionSettings.userAttributes`, as (name, value).
    pub user_attributes: Vec<(String, String)>,
    /// `activeBranchName`; `None` or `"main"` always works, other names only if the model declares them.
    pub branch: Option<String>,
    /// The user's messageId, from which every frame id is derived.
    pub message_id: String,
    /// The emulator's current date as (year, month, day).
    pub today: (i32, u32, u32),
}

/// What a turn asked for, so that follow-ups can reuse it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnMemory {
    /// The view (or cube) the turn queried.
    pub view: String,
    /// Measure member names (`view.member`).
    pub measures: Vec<String>,
    /// Non-time dimension member names (`view.member`).
    pub dimensions: Vec<String>,
    /// Time grain (`day`, `week`, `month`, `quarter`, `year`), if the turn grouped by time.
    pub grain: Option<String>,
    /// Date range as (first day, day after the last, label), ISO dates.
    pub range: Option<(String, String, String)>,
    /// Equality filters as (dimension member, value).
    pub filters: Vec<(String, String)>,
    /// `Some(true)` for top-N (descending), `Some(false)` for bottom-N.
    pub descending: Option<bool>,
    /// Row limit of a top/bottom-N question.
    pub limit: Option<u32>,
}

/// Everything the agent produced for one turn.
#[derive(Clone, Debug, Default)]
pub struct AgentRun {
    /// Frames in stream order, without `sort`.
    pub frames: Vec<serde_json::Value>,
    /// The final answer text.
    pub answer: String,
    /// The plan of this turn, for the thread's history.
    pub memory: TurnMemory,
}

impl Engine {
    /// Built-in sample dataset and model covering Jan 1 of (year-2) up to `today`.
    pub fn sample(today: (i32, u32, u32)) -> anyhow::Result<Engine> {
        Ok(Engine { today })
    }

    /// A user's model (YAML) and/or SQLite file; a model without data runs over the sample data.
    pub fn open(
        model: Option<&Path>,
        data: Option<&Path>,
        today: (i32, u32, u32),
    ) -> anyhow::Result<Engine> {
        let _ = (model, data);
        Ok(Engine { today })
    }

    /// User attribute names that access policies bind (e.g. `["region"]`).
    pub fn attribute_names(&self) -> Vec<String> {
        Vec::new()
    }

    /// Plan and answer one question; pure and deterministic for the same inputs.
    pub fn run(&self, req: &AgentRequest) -> AgentRun {
        let _ = (req, self.today);
        AgentRun::default()
    }
}
