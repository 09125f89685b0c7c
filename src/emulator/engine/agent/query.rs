//! One dialect query of a turn: compiled with the user's policies, run on the warehouse, and
//! written as the SQL tool's input and result (rows as arrays, or as objects with an
//! `annotation` for the documented and legacy shapes).

use super::uuid_from;
use crate::emulator::engine::answer_text;
use crate::emulator::engine::loaded::Engine;
use crate::emulator::engine::request::AgentRequest;
use crate::emulator::engine::semantic::SecurityContext;
use crate::emulator::engine::sqlgen;
use crate::emulator::engine::warehouse::QueryResult;
use crate::protocol::emit;
use crate::protocol::tool::{Column, SqlInput, SqlResult};
use serde_json::Value;

/// One dialect query of a turn, with the words that title it.
pub(super) struct Query<'a> {
    /// The dialect SQL.
    pub(super) sql: &'a str,
    /// The tool call's `queryTitle`.
    pub(super) title: &'a str,
    /// The tool call's `description`.
    pub(super) description: &'a str,
    /// The question, as the tool call's `userRequest`.
    pub(super) question: &'a str,
    /// The chart's title.
    pub(super) chart_title: &'a str,
    /// Whether the result is presented (and so charted): a query run only to compute a figure
    /// of another (the whole of a share) carries no `vegaSpec`.
    pub(super) chart: bool,
}

pub(super) type Ran = (
    Result<std::sync::Arc<QueryResult>, String>,
    Vec<sqlgen::Column>,
    Value,
    Value,
    String,
);

/// Compiles (with the user's policies) and runs one dialect query: its outcome, columns, and
/// the SQL tool's input and result.
pub(super) fn run_query(
    engine: &Engine,
    req: &AgentRequest,
    ctx: &SecurityContext,
    q: &Query<'_>,
    id: &dyn Fn(&str) -> String,
) -> Ran {
    // The SQL shown is the SQL run: the semantic layer compiles it with this user's policies.
    let compiled = engine.compile(q.sql, ctx);
    let columns = compiled
        .as_ref()
        .map(|c| c.columns.clone())
        .unwrap_or_default();
    let spec_text = if q.chart {
        answer_text::vega(&columns, q.chart_title, q.question).to_string()
    } else {
        String::new()
    };
    let spec = || (!spec_text.is_empty()).then(|| spec_text.clone());
    let input = if req.dialect.sql_input_is_query_only() {
        SqlInput {
            query: Some(q.sql.to_string()).into(),
            ..SqlInput::default()
        }
    } else {
        SqlInput {
            sql_query: Some(q.sql.to_string()).into(),
            query_title: Some(q.title.to_string()).into(),
            description: Some(q.description.to_string()).into(),
            user_request: Some(q.question.to_string()).into(),
            memory_id: Some(uuid_from(&id("memory"))).into(),
            vega_spec: spec().into(),
            ..SqlInput::default()
        }
    }
    .to_value();
    let outcome = if !engine.branch_ok(req.branch.as_deref()) {
        Err("Error: BadRequestError: Bad branch".to_string())
    } else {
        match &compiled {
            Ok(c) => engine
                .warehouse()
                .query(&c.sql)
                .map(|r| (c.sql.clone(), r))
                .map_err(|e| format!("Error: QueryError: {e:#}")),
            Err(e) => Err(format!("Error: QueryError: {e}")),
        }
    };
    let result = match &outcome {
        Ok((executed, r)) => {
            let schema: Vec<Column> = columns
                .iter()
                .map(|c| Column {
                    name: Some(c.name.clone()).into(),
                    column_type: Some(c.sql_type.to_owned()).into(),
                })
                .collect();
            let data: Vec<Value> = r
                .rows
                .iter()
                .take(100)
                .map(|row| {
                    Value::from(
                        row.iter()
                            .map(|c| c.text().map_or(Value::Null, Value::from))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            let (schema, data, annotation) = if req.dialect.rows_as_objects() {
                let (data, annotation) = rows_as_objects(&columns, data);
                (None, data, Some(annotation))
            } else {
                (Some(schema), data, None)
            };
            SqlResult {
                sql_query: Some(q.sql.to_string()).into(),
                query_title: Some(q.title.to_string()).into(),
                description: Some(q.description.to_string()).into(),
                user_request: Some(q.question.to_string()).into(),
                schema,
                data: Some(data),
                annotation: annotation.into(),
                total_rows: Some(r.total_rows as i64).into(),
                uuid: Some(uuid_from(&format!("{}\n{executed}", req.message_id))).into(),
                vega_spec: spec().into(),
                ..SqlResult::default()
            }
            .to_value()
        }
        Err(e) => SqlResult::failed(e).to_value(),
    };
    (outcome.map(|(_, r)| r), columns, input, result, spec_text)
}

/// Rows as objects keyed by column, and the `annotation` that titles them (docs and legacy).
fn rows_as_objects(columns: &[sqlgen::Column], rows: Vec<Value>) -> (Vec<Value>, Value) {
    let objects = rows
        .into_iter()
        .map(|row| {
            let cells = match row {
                Value::Array(cells) => cells,
                other => vec![other],
            };
            let map: serde_json::Map<String, Value> =
                columns.iter().map(|c| c.name.clone()).zip(cells).collect();
            Value::Object(map)
        })
        .collect();
    let members: Vec<emit::Annotated<'_>> = columns
        .iter()
        .map(|c| emit::Annotated {
            name: &c.name,
            title: &c.title,
            kind: c.sql_type,
            measure: matches!(c.role, sqlgen::Role::Measure(_)),
        })
        .collect();
    (objects, emit::annotation(&members))
}
