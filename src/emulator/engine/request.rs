//! What one agent turn takes and gives: the question with its context, the frames and answer,
//! and the memory of a turn that follow-up questions reuse.

use crate::protocol::Dialect;
use serde::{Deserialize, Serialize};

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
    /// The wire variant: node and tool names, final frames, the shape of SQL rows.
    pub dialect: Dialect,
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
    /// The time dimension used for grain and range (`view.member`).
    pub time: Option<String>,
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
    /// Other conditions as (dimension member, operator, value): `<>` for "except X".
    #[serde(default)]
    pub conditions: Vec<(String, String, String)>,
    /// Thresholds on measures per group as (measure member, operator, value): `HAVING`.
    #[serde(default)]
    pub having: Vec<(String, String, String)>,
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
