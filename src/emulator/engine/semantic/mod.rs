//! The semantic layer: SQL in the service's dialect (PostgreSQL-like, over the model's views and
//! cubes: members are columns, measures are aggregated with `MEASURE(m)` or their own aggregate)
//! compiled to SQLite over the base tables, with the model's joins and the access policies of a
//! security context. The agent's `sqlQuery` and the data query API both go through
//! [`Engine::compile`], so re-running an answer's SQL gives the same rows under the same
//! row-level security.
//!
//! Parsing is `sqlparser`'s ([`translate`] walks its statement, [`expr`] its expressions); what this module adds is the model:
//! [`security`] (policy predicates), [`joins`] (the FROM clause) and [`bucket`] (`DATE_TRUNC` over
//! ISO-8601 text).

mod expr;
mod translate;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::catalog::{ViewCat, dimension_sql, expand, quote};
use super::loaded::Engine;
use super::model::{Format, Model};
use super::timeparse::Grain;
use super::warehouse::QueryResult;

/// Who is asking: the attributes access policies bind (`userAttributes` of a token or of a chat's
/// session settings), as (name, value); several values of one name mean any of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecurityContext {
    /// `userAttributes` as (name, value).
    pub user_attributes: Vec<(String, String)>,
}

impl SecurityContext {
    /// A context from (name, value) pairs.
    pub fn new(user_attributes: &[(String, String)]) -> SecurityContext {
        SecurityContext {
            user_attributes: user_attributes.to_vec(),
        }
    }
}

/// What a result column holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// A time bucket at a grain (`DATE_TRUNC`).
    Time(Grain),
    /// A dimension value (or any other non-aggregated expression).
    Dimension,
    /// A measure value (or any aggregated expression).
    Measure(Format),
}

/// A column of a compiled query's result.
#[derive(Clone, Debug)]
pub struct Column {
    /// Name in the result (the alias, else the member's name).
    pub name: String,
    /// Human title (the member's title).
    pub title: String,
    /// What it holds.
    pub role: Role,
    /// `column_type` in a schema: `time`, `string`, `number` or `boolean`.
    pub sql_type: &'static str,
}

/// A dialect query compiled for one security context.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// SQLite over the base tables, row-level security included.
    pub sql: String,
    /// The query's `LIMIT`, if it has one (the data API caps rows differently without).
    pub limit: Option<u64>,
    /// Result columns in order.
    pub columns: Vec<Column>,
    /// The view or cube queried.
    pub view: String,
}

/// Why a query was refused; the message names the construct, member or name at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError(pub String);

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CompileError {}

/// Why [`Engine::query`] failed: the SQL was refused, or SQLite failed running it.
#[derive(Debug)]
pub enum QueryError {
    /// Refused by the compiler (a 400 on the data API).
    Compile(CompileError),
    /// Failed while running (time limit, SQLite error).
    Run(String),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Compile(e) => write!(f, "{e}"),
            QueryError::Run(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for QueryError {}

impl Engine {
    /// Compiles dialect SQL for a security context: one `SELECT` over one view or cube.
    pub fn compile(&self, sql: &str, ctx: &SecurityContext) -> Result<Compiled, CompileError> {
        translate::compile(self.model(), self.targets(), sql, ctx)
    }

    /// Compiles and runs dialect SQL (result cached by the compiled text, so two users with
    /// different attributes never share a result).
    pub fn query(
        &self,
        sql: &str,
        ctx: &SecurityContext,
    ) -> Result<(Compiled, Arc<QueryResult>), QueryError> {
        let compiled = self.compile(sql, ctx).map_err(QueryError::Compile)?;
        let rows = self
            .warehouse()
            .query(&compiled.sql)
            .map_err(|e| QueryError::Run(format!("{e:#}")))?;
        Ok((compiled, rows))
    }
}

/// Escapes a string literal.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The bucket of an ISO-8601 text time at a grain, as an ISO date.
pub(crate) fn bucket(e: &str, g: Grain) -> String {
    match g {
        Grain::Day => format!("substr({e}, 1, 10)"),
        Grain::Month => format!("substr({e}, 1, 7) || '-01'"),
        Grain::Year => format!("substr({e}, 1, 4) || '-01-01'"),
        Grain::Quarter => format!(
            "substr({e}, 1, 5) || printf('%02d', (CAST(substr({e}, 6, 2) AS INTEGER) - 1) / 3 * 3 + 1) || '-01'"
        ),
        Grain::Week => format!(
            "date(substr({e}, 1, 10), '-' || ((CAST(strftime('%w', substr({e}, 1, 10)) AS INTEGER) + 6) % 7) || ' days')"
        ),
    }
}

/// Row-level predicates for a context, one per policy on a cube of the view (none when no
/// policy applies). A user without a bound attribute sees nothing unless the policy says
/// `if_missing: all`.
pub(crate) fn security(model: &Model, view: &ViewCat, ctx: &SecurityContext) -> Vec<String> {
    let mut out = Vec::new();
    for cube_name in view.paths.keys() {
        let Some(cube) = model.cube(cube_name) else {
            continue;
        };
        for p in &cube.policies {
            let Some(dim) = cube.dimensions.iter().find(|d| d.name == p.member) else {
                out.push("1 = 0".to_string()); // a policy that cannot be applied hides everything
                continue;
            };
            let values: Vec<String> = ctx
                .user_attributes
                .iter()
                .filter(|(n, _)| *n == p.attribute)
                .map(|(_, v)| literal(v))
                .collect();
            let e = dimension_sql(model, &view.root, cube_name, dim, 0);
            out.push(match values.len() {
                0 if p.all_if_missing => continue,
                0 => "1 = 0".to_string(),
                1 => format!("{e} = {}", values[0]),
                _ => format!("{e} IN ({})", values.join(", ")),
            });
        }
    }
    out
}

/// FROM and LEFT JOINs for every cube whose alias the SQL mentions, with the cubes on its path.
pub(crate) fn joins(model: &Model, view: &ViewCat, sql: &str) -> String {
    let table = |c: &str| {
        model
            .cube(c)
            .map_or_else(|| c.to_string(), |c| c.sql_table.clone())
    };
    let mut needed: BTreeMap<(usize, String), (String, String)> = BTreeMap::new();
    for (cube, path) in &view.paths {
        if cube == &view.root || !sql.contains(&format!("{}.", quote(cube))) {
            continue;
        }
        for k in 1..path.len() {
            let (from, to) = (&path[k - 1], &path[k]);
            let on = model.cube(from).and_then(|c| c.join_to(to)).map_or_else(
                || "1 = 1".to_string(),
                |j| expand(model, &view.root, from, &j.sql, 0),
            );
            needed.insert((k, to.clone()), (table(to), on));
        }
    }
    let mut out = format!("FROM {} AS {}", table(&view.root), quote(&view.root));
    for ((_, alias), (t, on)) in needed {
        out.push_str(&format!("\nLEFT JOIN {t} AS {} ON {on}", quote(&alias)));
    }
    out
}
