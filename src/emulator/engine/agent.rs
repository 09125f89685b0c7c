//! One agent turn: thinking, the `dataMeta` search, the `dataSqlApi` query, and the final answer,
//! as the ordered frames of PROTOCOL.md's stream (the server adds `sort` and the framing frames).

use crate::protocol::Dialect;
use crate::protocol::emit::{self, TextField};
use serde_json::Value;

use super::answer_text::{self, Scope};
use super::catalog::ViewCat;
use super::loaded::Engine;
use super::meta_search;
use super::planner::{self, Condition, QueryPlan};
use super::request::{AgentRequest, AgentRun, TurnMemory};
use super::semantic::SecurityContext;
use super::sqlgen;
use super::warehouse::QueryResult;
use super::words::words;

mod query;

use query::{Query, run_query};

/// Longest question read; the rest is ignored rather than planned at length.
const MAX_QUESTION: usize = 4000;

/// A uuid-shaped id derived from text (FNV-1a then splitmix), so ids repeat for equal inputs.
pub fn uuid_from(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let (a, b) = (mix(h), mix(h ^ 0xA5A5_A5A5));
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-4{}-a{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// Splits text into chunks of a few words (more per chunk for long texts, so a turn stays within
/// a few dozen frames); the chunks concatenate back to the text exactly.
fn chunks(text: &str) -> Vec<String> {
    let pieces: Vec<&str> = text.split_inclusive(' ').collect();
    let per = (pieces.len() / 20).max(3);
    pieces.chunks(per).map(|c| c.concat()).collect()
}

fn stream_text(frames: &mut Vec<Value>, id: &str, graph: &[&str], field: TextField, text: &str) {
    for c in chunks(text) {
        frames.push(emit::assistant_text(id, graph, field, &c, true));
    }
    frames.push(emit::assistant_text(id, graph, field, text, false));
}

fn tool(frames: &mut Vec<Value>, agent: &str, id: &str, name: &str, input: &Value, result: &Value) {
    frames.push(emit::tool_start(id, &[agent, "tools"], name, input));
    frames.push(emit::tool_done(id, &[agent, "tools"], name, input, result));
}

/// Words naming a plan: "Revenue by category and month" plus scope.
fn describe(plan: &QueryPlan, view: &ViewCat) -> (String, Scope) {
    let t = |i: &usize| view.members[*i].title.clone();
    let measures: Vec<String> = plan.measures.iter().map(t).collect();
    let mut by: Vec<String> = plan
        .dimensions
        .iter()
        .map(|d| t(d).to_lowercase())
        .collect();
    if let Some(g) = plan.grain {
        by.push(g.as_str().to_string());
    }
    let mut title = measures.join(" and ");
    if !by.is_empty() {
        title.push_str(&format!(" by {}", by.join(" and ")));
    }
    let mut filters = if plan.filters.is_empty() {
        String::new()
    } else {
        format!(
            " for {}",
            plan.filters
                .iter()
                .map(|(_, v)| v.clone())
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    // Exclusions narrow the scope as much as filters do: a total or share over it must say so.
    let excluded: Vec<&str> = plan
        .conditions
        .iter()
        .filter_map(|(_, c)| match c {
            Condition::NotEquals(v) => Some(v.as_str()),
            _ => None,
        })
        .collect();
    if !excluded.is_empty() {
        filters.push_str(&format!(" excluding {}", excluded.join(" and ")));
    }
    for w in answer_text::compared_words(view, &plan.conditions) {
        filters.push_str(&format!(" with {w}"));
    }
    let having = answer_text::compared_words(view, &plan.having).join(" and ");
    if !having.is_empty() {
        title.push_str(&format!(" with {having}"));
    }
    let range = match (&plan.compare, &plan.range) {
        (Some((a, b, _)), _) => format!(", {} vs {}", a.label, b.label),
        (None, Some(r)) => format!(", {}", r.label),
        (None, None) => String::new(),
    };
    (
        title,
        Scope {
            filters,
            range,
            having,
        },
    )
}

impl Engine {
    /// Plan and answer one question; pure and deterministic for the same inputs.
    pub fn run(&self, req: &AgentRequest) -> AgentRun {
        run(self, req)
    }
}

/// One turn's fixed parts, and the frames it has emitted so far.
struct Turn<'a> {
    engine: &'a Engine,
    req: &'a AgentRequest,
    question: String,
    frames: Vec<Value>,
}

impl Turn<'_> {
    /// A frame id of this turn.
    fn id(&self, s: &str) -> String {
        format!("{}-{s}", self.req.message_id)
    }

    /// The agent's thinking.
    fn think(&mut self, text: &str) {
        let id = self.id("think");
        let agent = self.req.dialect.agent_node();
        stream_text(&mut self.frames, &id, &[agent], TextField::Thinking, text);
    }

    /// The meta tool call: the model searched for the question's words.
    fn search_model(&mut self) {
        let search = meta_search::search_query(&self.question, self.engine.vocabulary());
        let found = meta_search::search(&search, self.engine.views());
        let id = self.id("tool-1");
        tool(
            &mut self.frames,
            self.req.dialect.agent_node(),
            &id,
            self.req.dialect.meta_tool(),
            &emit::meta_input(&search),
            &match self.req.dialect {
                Dialect::Legacy => meta_search::older_shape(found),
                _ => found,
            }
            .to_value(),
        );
    }

    /// A SQL tool call.
    fn sql_call(&mut self, slot: &str, spec: &str, input: &Value, result: &Value) {
        let id = self.id(slot);
        let name = self.req.dialect.sql_tool(!spec.is_empty() && spec != "{}");
        let agent = self.req.dialect.agent_node();
        tool(&mut self.frames, agent, &id, name, input, result);
    }

    /// The final answer, and the turn as run.
    fn finish(mut self, answer: String, memory: TurnMemory) -> AgentRun {
        let id = self.id("final");
        let node = self.req.dialect.answer_node();
        stream_text(&mut self.frames, &id, &[node], TextField::Content, &answer);
        AgentRun {
            frames: self.frames,
            answer,
            memory,
        }
    }
}

/// Plans and answers one question.
fn run(engine: &Engine, req: &AgentRequest) -> AgentRun {
    let question: String = req.question.chars().take(MAX_QUESTION).collect();
    let views = engine.views();
    let plan = planner::plan(
        &question,
        &req.history,
        views,
        engine.lexicons(),
        engine.vocabulary(),
        super::dates::Date::new(req.today),
    );
    let mut turn = Turn {
        engine,
        req,
        question,
        frames: Vec::new(),
    };
    let plan = match plan {
        Some(p) if !p.unread_periods.is_empty() => return refuse_periods(turn, &p.unread_periods),
        Some(p) if p.unknown.is_empty() && p.unapplied.is_empty() => p,
        Some(p) => return refuse_parts(turn, &p.unknown, &p.unapplied),
        // Nothing planned: a comparison in the question is still named as not understood.
        None => {
            let unknown: Vec<String> = super::comparisons::find(&turn.question)
                .into_iter()
                .map(|c| c.text)
                .collect();
            return refuse(turn, &unknown);
        }
    };
    let view = &views[plan.view];
    let (title, scope) = describe(&plan, view);
    let follow = if req.history.is_empty() {
        ""
    } else {
        " Earlier turns of this thread fill in what the question leaves out."
    };
    turn.think(&format!("The user asks for {}{}{}.{follow} I'll check the {} {} in the data model, then write one SQL query and summarise its result.", title.to_lowercase(), scope.filters, scope.range, view.name, view.kind));
    turn.search_model();
    let target = sqlgen::single_cube(view, &plan, engine.targets()).unwrap_or(view);
    let sql = sqlgen::build_on(target, view, &plan);
    let ctx = SecurityContext::new(&req.user_attributes);
    let query_title = format!("{title}{}{}", scope.filters, scope.range);
    let description = format!("{} from the {} {}", title, target.name, target.kind);
    let main = Query {
        sql: &sql,
        title: &query_title,
        description: &description,
        question: &turn.question,
        chart_title: &title,
        chart: true,
    };
    let id = |s: &str| format!("{}-{s}", req.message_id);
    let (outcome, columns, input, result, spec_text) = run_query(engine, req, &ctx, &main, &id);
    if !plan.share_part.is_empty() {
        let whole = match &outcome {
            Ok(_) => whole_of_share(&mut turn, &plan, (target, view), &description, &ctx),
            Err(_) => None,
        };
        turn.sql_call("tool-2", &spec_text, &input, &result);
        let answer = match (&outcome, whole) {
            (Ok(r), Some((w, whole_scope))) => {
                answer_text::part_of_whole(&plan, &columns, r, &w, &whole_scope)
            }
            (Err(e), _) => query_failed(req, &title, e),
            (Ok(_), None) => format!(
                "The query for the whole of {} failed, so I cannot give the share.",
                title.to_lowercase()
            ),
        };
        return turn.finish(answer, planner::to_memory(&plan, views));
    }
    let total = match &outcome {
        Ok(r) => total(
            &mut turn,
            &plan,
            r,
            (target, view),
            &scope,
            &description,
            &ctx,
        ),
        Err(_) => None,
    };
    turn.sql_call("tool-2", &spec_text, &input, &result);
    let answer = match &outcome {
        Ok(r) => match &plan.compare {
            Some(_) => answer_text::growth(&plan, &columns, r, total.as_deref(), &scope),
            None if !plan.having.is_empty() => {
                answer_text::thresholds(&plan, view, &columns, r, &scope)
            }
            None => answer_text::write(&plan, view, &columns, r, total.as_deref(), &scope),
        },
        Err(e) => query_failed(req, &title, e),
    };
    turn.finish(answer, planner::to_memory(&plan, views))
}

/// The answer when the query failed: what failed, and no numbers.
fn query_failed(req: &AgentRequest, title: &str, e: &str) -> String {
    if e.contains("Bad branch") {
        let branch = req.branch.clone().unwrap_or_default();
        return format!(
            "I could not query the data: the branch \"{branch}\" does not exist in this deployment ({e}). Switch to the main branch, or to a branch the model declares, and ask again."
        );
    }
    format!(
        "The query for {} failed, so I cannot answer with numbers: {e}",
        title.to_lowercase()
    )
}

/// A question that maps to nothing (or names what the model lacks): the model searched, an
/// honest answer, no query; the thread's memory stays as it was.
fn refuse(turn: Turn<'_>, unknown: &[String]) -> AgentRun {
    refuse_parts(turn, unknown, &[])
}

/// A question with parts the plan could not read (`unknown`) or could not apply
/// (`unapplied`): answering without them would answer another question, so it is refused,
/// naming them, with no query.
fn refuse_parts(mut turn: Turn<'_>, unknown: &[String], unapplied: &[String]) -> AgentRun {
    turn.think(&format!("The question \"{}\" names something I cannot find in the data model or cannot apply. I'll search the model to list what it can answer.", turn.question.trim()));
    turn.search_model();
    let answer = unmapped(turn.engine.views(), unknown, unapplied);
    let memory = turn.req.history.last().cloned().unwrap_or_default();
    turn.finish(answer, memory)
}

/// A question whose periods the plan cannot honour: said, and no query (answering for one of
/// the periods would be a confident wrong answer).
fn refuse_periods(mut turn: Turn<'_>, unread: &[String]) -> AgentRun {
    turn.think(&format!(
        "The question \"{}\" names {}, which I cannot query as asked.",
        turn.question.trim(),
        unread.join(" and ")
    ));
    let answer = format!(
        "I can't answer that as asked: it names {}, and I query one period at a time, so I did not run a query. Ask for one period (\"revenue by month in 2025\"), or compare two whole periods (\"revenue growth from 2024 to 2025\").",
        unread.join(" and ")
    );
    let memory = turn.req.history.last().cloned().unwrap_or_default();
    turn.finish(answer, memory)
}

/// A total or share is its own query over the same scope, never a sum of the groups (distinct
/// counts do not add up, and a top 5 is not the whole). It is shown before the main query, so
/// that the answer's last SQL is the one the answer is about (`analyst sql` and eval's `rows`
/// take the last). `None` when the answer needs no total.
fn total(
    turn: &mut Turn<'_>,
    plan: &QueryPlan,
    r: &QueryResult,
    (target, view): (&ViewCat, &ViewCat),
    scope: &Scope,
    description: &str,
    ctx: &SecurityContext,
) -> Option<std::sync::Arc<QueryResult>> {
    // A threshold's groups are a selection: their whole is no total of the scope.
    let grouped = (!plan.dimensions.is_empty() || plan.grain.is_some()) && plan.having.is_empty();
    if !(grouped && r.rows.len() > 1 || plan.compare.is_some() && !plan.dimensions.is_empty()) {
        return None;
    }
    let mut whole = plan.clone();
    whole.dimensions.clear();
    whole.grain = None;
    whole.limit = None;
    whole.descending = None;
    let sql = sqlgen::build_on(target, view, &whole);
    let (t_title, _) = describe(&whole, view);
    let t_title = format!("{t_title} in total{}{}", scope.filters, scope.range);
    let q = Query {
        sql: &sql,
        title: &t_title,
        description,
        question: &turn.question,
        chart_title: &t_title,
        chart: false,
    };
    let req = turn.req;
    let id = |s: &str| format!("{}-{s}", req.message_id);
    let (o, _, input, result, spec) = run_query(turn.engine, req, ctx, &q, &id);
    turn.sql_call("tool-3", &spec, &input, &result);
    o.ok()
}

/// The whole a share is a part of: the plan without the part's filters, as its own query (shown
/// before the part's, which the answer is about), with the whole's scope in words.
fn whole_of_share(
    turn: &mut Turn<'_>,
    plan: &QueryPlan,
    (target, view): (&ViewCat, &ViewCat),
    description: &str,
    ctx: &SecurityContext,
) -> Option<(std::sync::Arc<QueryResult>, Scope)> {
    let mut whole = plan.clone();
    whole.filters.retain(|f| !plan.share_part.contains(f));
    whole.share_part.clear();
    let sql = sqlgen::build_on(target, view, &whole);
    let (w_title, scope) = describe(&whole, view);
    let w_title = format!("{w_title} in total{}{}", scope.filters, scope.range);
    let q = Query {
        sql: &sql,
        title: &w_title,
        description,
        question: &turn.question,
        chart_title: &w_title,
        chart: false,
    };
    let req = turn.req;
    let id = |s: &str| format!("{}-{s}", req.message_id);
    let (o, _, input, result, spec) = run_query(turn.engine, req, ctx, &q, &id);
    turn.sql_call("tool-3", &spec, &input, &result);
    Some((o.ok()?, scope))
}

/// The honest answer to a question that maps to nothing: what the model does know.
fn unmapped(views: &[ViewCat], unknown: &[String], unapplied: &[String]) -> String {
    let mut measures = Vec::new();
    let mut dims = Vec::new();
    for v in views {
        for m in &v.members {
            let list = if m.is_measure() {
                &mut measures
            } else {
                &mut dims
            };
            if !list.contains(&m.title) && !words(&m.name).iter().any(|w| w == "id") {
                list.push(m.title.clone());
            }
        }
    }
    let example = match (
        measures.first(),
        dims.iter().find(|d| !d.to_lowercase().contains("date")),
    ) {
        (Some(m), Some(d)) => format!(
            " For example: \"{} by {} last month\".",
            m.to_lowercase(),
            d.to_lowercase()
        ),
        _ => String::new(),
    };
    let quoted = |ws: &[&String]| {
        ws.iter()
            .map(|w| format!("\"{w}\""))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    // Numeric filters ("over 100") are phrases with a number; the rest are unknown words.
    let (numeric, names): (Vec<&String>, Vec<&String>) = unknown
        .iter()
        .partition(|w| w.chars().any(|c| c.is_ascii_digit()));
    let missing = match (names.as_slice(), numeric.as_slice()) {
        ([], []) => String::new(),
        (names, []) => format!(": it has nothing called {}", quoted(names)),
        ([], numeric) => format!(
            ": I cannot tell what the numeric filter {} applies to (I can filter rows on an amount the model has per row, such as an order's total, or keep groups by a measure, as in \"customers with more than 5 orders\")",
            quoted(numeric)
        ),
        (names, numeric) => format!(
            ": it has nothing called {}, and I cannot apply a numeric filter such as {}",
            quoted(names),
            quoted(numeric)
        ),
    };
    let missing = match (missing.is_empty(), unapplied.is_empty()) {
        (_, true) => missing,
        (true, false) => format!(": {}", unapplied.join("; ")),
        (false, false) => format!("{missing}; and {}", unapplied.join("; ")),
    };
    format!(
        "I can't answer that from this model{missing}, so I did not run a query. I can answer questions about these measures: {}; broken down or filtered by: {}; over time by day, week, month, quarter or year.{example}",
        measures.join(", "),
        dims.join(", ")
    )
}
