//! The dialect's syntax tree (from `sqlparser`) to SQLite: names resolve to members of one view
//! or cube, measures to their aggregates, `DATE_TRUNC` to buckets; everything else is refused
//! with an error naming the construct.

use sqlparser::ast::{
    ObjectName, ObjectNamePart, Query, Select, SelectItem, SetExpr, Statement, TableFactor,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

mod clauses;

use super::super::catalog::{ViewCat, quote};
use super::super::model::{Format, Model};
use super::SecurityContext;
use super::expr::{Cx, Place, Tr, err};
use super::{Column, CompileError, Compiled, Role, joins, security};
use clauses::{group_by, limit_offset, order_by};

/// Longest query text read; a dialect query is a few lines.
const MAX_SQL: usize = 100_000;
/// Parses and compiles one query.
pub(super) fn compile(
    model: &Model,
    targets: &[ViewCat],
    sql: &str,
    ctx: &SecurityContext,
) -> Result<Compiled, CompileError> {
    if sql.len() > MAX_SQL {
        return err(format!("the query is longer than {MAX_SQL} characters"));
    }
    let statements = Parser::parse_sql(&PostgreSqlDialect {}, sql)
        .map_err(|e| CompileError(format!("SQL syntax error: {e}")))?;
    let statement = match statements.as_slice() {
        [] => return err("no SQL statement"),
        [one] => one,
        _ => return err("only one statement per query (found a second statement after `;`)"),
    };
    let Statement::Query(query) = statement else {
        let first = statement.to_string();
        let word = first.split_whitespace().next().unwrap_or("").to_uppercase();
        return err(format!(
            "only SELECT queries are allowed; {word} statements are refused (the data is read-only)"
        ));
    };
    select_query(model, targets, query, ctx)
}

/// One `SELECT` over one view or cube, clause by clause, then assembled with the joins its
/// members need and the policies of the context.
fn select_query(
    model: &Model,
    targets: &[ViewCat],
    q: &Query,
    ctx: &SecurityContext,
) -> Result<Compiled, CompileError> {
    let select = refuse_other_clauses(q)?;
    let view = from(targets, select)?;
    let cx = Cx { model, view };
    let items = projection(&cx, select)?;
    let wheres = match &select.selection {
        Some(e) => Some(cx.expr(e, Place::Where)?.sql),
        None => None,
    };
    let groups = group_by(&cx, select, &items)?;
    let aggregated = items.iter().any(|(t, _)| t.agg) || !groups.is_empty();
    if aggregated {
        for (tr, name) in &items {
            if !tr.agg && tr.reads && !groups.contains(&tr.sql) {
                return err(format!(
                    "`{name}` must appear in GROUP BY (or be aggregated with MEASURE)"
                ));
            }
        }
    }
    let having = match &select.having {
        Some(_) if !aggregated => {
            return err("HAVING needs an aggregated query (a MEASURE in SELECT or a GROUP BY)");
        }
        Some(e) => Some(cx.expr(e, Place::Having)?.sql),
        None => None,
    };
    let order = order_by(&cx, q, &items, &groups, aggregated)?;
    let (limit, offset) = limit_offset(q)?;
    let clauses = Clauses {
        wheres,
        groups,
        having,
        order,
        limit,
        offset,
    };
    Ok(Compiled {
        sql: assemble(model, view, ctx, &items, &clauses),
        limit,
        columns: columns(&items),
        view: view.name.clone(),
    })
}

/// The compiled clauses of a query, besides its projection.
struct Clauses {
    wheres: Option<String>,
    groups: Vec<String>,
    having: Option<String>,
    order: Vec<String>,
    limit: Option<u64>,
    offset: Option<u64>,
}

/// The query's `SELECT`, once every clause the dialect does not have is refused by name.
fn refuse_other_clauses(q: &Query) -> Result<&Select, CompileError> {
    if q.with.is_some() {
        return err("WITH (common table expressions) is not supported");
    }
    if q.fetch.is_some() {
        return err("FETCH is not supported; use LIMIT");
    }
    if !q.locks.is_empty() {
        return err("FOR UPDATE/SHARE is not supported");
    }
    if q.for_clause.is_some() || q.settings.is_some() || q.format_clause.is_some() {
        return err("FOR/SETTINGS/FORMAT clauses are not supported");
    }
    if !q.pipe_operators.is_empty() {
        return err("pipe operators are not supported");
    }
    let select: &Select = match q.body.as_ref() {
        SetExpr::Select(s) => s,
        SetExpr::SetOperation { op, .. } => {
            return err(format!(
                "{} is not supported; run one query per view",
                op.to_string().to_uppercase()
            ));
        }
        SetExpr::Query(_) => return err("a parenthesised subquery is not supported"),
        SetExpr::Values(_) => return err("VALUES is not supported"),
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
            return err("only SELECT queries are allowed (the data is read-only)");
        }
        SetExpr::Table(_) => return err("TABLE statements are not supported; use SELECT"),
    };
    if select.distinct.is_some() {
        return err("SELECT DISTINCT is not supported; GROUP BY the dimensions instead");
    }
    if select.top.is_some() {
        return err("TOP is not supported; use LIMIT");
    }
    if select.into.is_some() {
        return err("SELECT INTO is not supported (the data is read-only)");
    }
    if !select.lateral_views.is_empty()
        || select.prewhere.is_some()
        || !select.connect_by.is_empty()
        || !select.cluster_by.is_empty()
        || !select.distribute_by.is_empty()
        || !select.sort_by.is_empty()
        || !select.named_window.is_empty()
        || select.qualify.is_some()
        || select.exclude.is_some()
    {
        return err(
            "dialect-specific SELECT clauses (LATERAL VIEW, PREWHERE, CONNECT BY, CLUSTER/DISTRIBUTE/SORT BY, WINDOW, QUALIFY, EXCLUDE) are not supported",
        );
    }
    Ok(select)
}

/// The SELECT list: each item translated, with its result name (the alias, else the member's
/// name); two columns may not share a name.
fn projection(cx: &Cx<'_>, select: &Select) -> Result<Vec<(Tr, String)>, CompileError> {
    let view = cx.view;
    let mut items: Vec<(Tr, String)> = Vec::new();
    for item in &select.projection {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            SelectItem::ExprWithAliases { .. } => {
                return err("several aliases for one column are not supported");
            }
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                return err(format!(
                    "SELECT * is not supported; name the members, e.g. SELECT {} FROM {}",
                    example_members(view),
                    view.name
                ));
            }
        };
        let tr = cx.expr(expr, Place::Select)?;
        let name = alias.unwrap_or_else(|| {
            tr.column
                .as_ref()
                .map_or_else(|| expr.to_string(), |c| c.0.clone())
        });
        items.push((tr, name));
    }
    let mut seen = Vec::new();
    for (_, name) in &items {
        if seen.contains(name) {
            return err(format!(
                "two result columns are named `{name}`; give one an alias with AS"
            ));
        }
        seen.push(name.clone());
    }

    Ok(items)
}

/// The SQLite text: the projection, FROM with the joins the query's members need, the
/// user's condition in parentheses and the policies, then the other clauses.
fn assemble(
    model: &Model,
    view: &ViewCat,
    ctx: &SecurityContext,
    items: &[(Tr, String)],
    c: &Clauses,
) -> String {
    let (wheres, groups, having, order) = (&c.wheres, &c.groups, &c.having, &c.order);
    let head = format!(
        "SELECT {}",
        items
            .iter()
            .map(|(t, n)| format!("{} AS {}", t.sql, quote(n)))
            .collect::<Vec<_>>()
            .join(",\n       ")
    );
    let rls = security(model, view, ctx);
    let mut conditions: Vec<String> = Vec::new();
    if let Some(w) = wheres {
        // Parenthesised, so that an OR in the user's condition cannot escape the policy's AND.
        conditions.push(format!("({w})"));
    }
    conditions.extend(rls.iter().map(|p| format!("({p})")));
    let mentions = [
        head.as_str(),
        &conditions.join(" "),
        &groups.join(" "),
        having.as_deref().unwrap_or(""),
        &order.join(" "),
    ]
    .concat();
    let mut out = format!("{head}\n{}", joins(model, view, &mentions));
    if !conditions.is_empty() {
        out.push_str(&format!("\nWHERE {}", conditions.join("\n  AND ")));
    }
    if !groups.is_empty() {
        out.push_str(&format!("\nGROUP BY {}", groups.join(", ")));
    }
    if let Some(h) = having {
        out.push_str(&format!("\nHAVING {h}"));
    }
    if !order.is_empty() {
        out.push_str(&format!("\nORDER BY {}", order.join(", ")));
    }
    match (c.limit, c.offset) {
        (Some(l), Some(o)) => out.push_str(&format!("\nLIMIT {l} OFFSET {o}")),
        (Some(l), None) => out.push_str(&format!("\nLIMIT {l}")),
        (None, Some(o)) => out.push_str(&format!("\nLIMIT -1 OFFSET {o}")),
        (None, None) => {}
    }
    out
}

/// The result columns: a member's name, title and role, else the expression's own.
fn columns(items: &[(Tr, String)]) -> Vec<Column> {
    items
        .iter()
        .map(|(t, name)| {
            let (_, title, role, sql_type) = t.column.clone().unwrap_or_else(|| {
                if t.agg {
                    (
                        name.clone(),
                        name.clone(),
                        Role::Measure(Format::Number),
                        "number",
                    )
                } else {
                    (name.clone(), name.clone(), Role::Dimension, "string")
                }
            });
            Column {
                name: name.clone(),
                title,
                role,
                sql_type,
            }
        })
        .collect()
}

fn example_members(view: &ViewCat) -> String {
    let dim = view
        .members
        .iter()
        .find(|m| !m.is_measure() && !m.is_time());
    let measure = view.members.iter().find(|m| m.is_measure());
    match (dim, measure) {
        (Some(d), Some(m)) => format!("{}, MEASURE({})", d.name, m.name),
        (None, Some(m)) => format!("MEASURE({})", m.name),
        (Some(d), None) => d.name.clone(),
        _ => "...".into(),
    }
}

/// The one view or cube in FROM.
fn from<'a>(targets: &'a [ViewCat], select: &Select) -> Result<&'a ViewCat, CompileError> {
    let names = || {
        targets
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let [twj] = select.from.as_slice() else {
        return if select.from.is_empty() {
            err(format!(
                "a FROM clause naming a view or cube is required (one of: {})",
                names()
            ))
        } else {
            err(
                "only one view or cube per query (FROM a, b is a join): the view's joins are already declared in the model",
            )
        };
    };
    if !twj.joins.is_empty() {
        return err(
            "JOIN is not supported: query one view or cube, whose joins the model declares",
        );
    }
    let TableFactor::Table {
        name, args, alias, ..
    } = &twj.relation
    else {
        return err(match &twj.relation {
            TableFactor::Derived { .. } => {
                "a subquery in FROM is not supported; query a view or cube".to_string()
            }
            other => format!("FROM {other} is not supported; query a view or cube"),
        });
    };
    if args.is_some() {
        return err(format!("table function {name} is not supported"));
    }
    if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
        return err("column aliases on FROM are not supported");
    }
    let parts = object_parts(name)?;
    // `public.sales` and `db.sales` name the same view as `sales`.
    let last = parts.last().map(String::as_str).unwrap_or("");
    targets
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(last))
        .ok_or_else(|| {
            CompileError(format!(
                "`{name}` is not a cube or view of the model; only cubes and views can be queried (one of: {})",
                names()
            ))
        })
}

fn object_parts(name: &ObjectName) -> Result<Vec<String>, CompileError> {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
            ObjectNamePart::Function(_) => err(format!("`{name}` is not a cube or view")),
        })
        .collect()
}
