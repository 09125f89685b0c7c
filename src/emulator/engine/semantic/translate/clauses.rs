//! The clauses after the select list: `GROUP BY` (names, positions, aliases; checked against the
//! projection), `ORDER BY` and `LIMIT`/`OFFSET`.

use crate::emulator::engine::catalog::quote;
use crate::emulator::engine::semantic::CompileError;
use crate::emulator::engine::semantic::expr::{Cx, Place, Tr, err};
use sqlparser::ast::{
    Expr, GroupByExpr, LimitClause, OrderByKind, OrderBySort, Query, Select, Value,
};

/// GROUP BY items by position, alias or expression, as SQLite; never a measure.
pub(super) fn group_by(
    cx: &Cx<'_>,
    select: &Select,
    items: &[(Tr, String)],
) -> Result<Vec<String>, CompileError> {
    let mut groups: Vec<String> = Vec::new();
    match &select.group_by {
        GroupByExpr::All(_) => return err("GROUP BY ALL is not supported; list the dimensions"),
        GroupByExpr::Expressions(list, modifiers) => {
            if !modifiers.is_empty() {
                return err(
                    "GROUP BY modifiers (ROLLUP, CUBE, GROUPING SETS, TOTALS) are not supported",
                );
            }
            for g in list {
                let sql = match position(g)? {
                    Some(n) => {
                        let Some((tr, name)) = items.get(n.wrapping_sub(1)) else {
                            return err(format!(
                                "GROUP BY {n}: the query has {} result columns",
                                items.len()
                            ));
                        };
                        if tr.agg {
                            return err(format!(
                                "GROUP BY {n}: `{name}` is a measure; group by dimensions only"
                            ));
                        }
                        tr.sql.clone()
                    }
                    None => match alias_of(g, items) {
                        Some(tr) if !tr.agg => tr.sql.clone(),
                        Some(_) => {
                            return err(format!(
                                "GROUP BY {g}: it is a measure; group by dimensions only"
                            ));
                        }
                        None => {
                            let tr = cx.expr(g, Place::GroupBy)?;
                            tr.sql
                        }
                    },
                };
                if !groups.contains(&sql) {
                    groups.push(sql);
                }
            }
        }
    }
    Ok(groups)
}

/// ORDER BY items by position, alias or expression, with direction and NULLS placement.
pub(super) fn order_by(
    cx: &Cx<'_>,
    q: &Query,
    items: &[(Tr, String)],
    groups: &[String],
    aggregated: bool,
) -> Result<Vec<String>, CompileError> {
    let mut order = Vec::new();
    if let Some(ob) = &q.order_by {
        if ob.interpolate.is_some() {
            return err("INTERPOLATE is not supported");
        }
        let OrderByKind::Expressions(list) = &ob.kind else {
            return err("ORDER BY ALL is not supported; list the columns");
        };
        for o in list {
            if o.with_fill.is_some() {
                return err("WITH FILL is not supported");
            }
            let target = match position(&o.expr)? {
                Some(n) if (1..=items.len()).contains(&n) => n.to_string(),
                Some(n) => {
                    return err(format!(
                        "ORDER BY {n}: the query has {} result columns",
                        items.len()
                    ));
                }
                None => match alias_name(&o.expr, items) {
                    Some(name) => quote(&name),
                    None => {
                        let tr = cx.expr(&o.expr, Place::OrderBy)?;
                        if tr.agg && !aggregated {
                            return err("ORDER BY a measure needs an aggregated query");
                        }
                        if aggregated && !tr.agg && tr.reads && !groups.contains(&tr.sql) {
                            return err(format!(
                                "ORDER BY {}: not in GROUP BY and not aggregated",
                                o.expr
                            ));
                        }
                        tr.sql
                    }
                },
            };
            let dir = match &o.options.sort {
                Some(OrderBySort::Desc) => " DESC",
                Some(OrderBySort::Asc) => " ASC",
                Some(OrderBySort::Using(_)) => return err("ORDER BY ... USING is not supported"),
                None => "",
            };
            let nulls = match o.options.nulls_first {
                Some(true) => " NULLS FIRST",
                Some(false) => " NULLS LAST",
                None => "",
            };
            order.push(format!("{target}{dir}{nulls}"));
        }
    }

    Ok(order)
}

/// LIMIT and OFFSET as whole numbers.
pub(super) fn limit_offset(q: &Query) -> Result<(Option<u64>, Option<u64>), CompileError> {
    Ok(match &q.limit_clause {
        None => (None, None),
        Some(LimitClause::OffsetCommaLimit { .. }) => {
            return err("LIMIT offset, count is not supported; write LIMIT n OFFSET m");
        }
        Some(LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return err("LIMIT BY is not supported");
            }
            let limit = limit
                .as_ref()
                .map(|e| count_literal(e, "LIMIT"))
                .transpose()?;
            let offset = offset
                .as_ref()
                .map(|o| count_literal(&o.value, "OFFSET"))
                .transpose()?;
            (limit, offset)
        }
    })
}

/// `GROUP BY 2` / `ORDER BY 2`: the 1-based position, if the expression is an integer literal.
fn position(e: &Expr) -> Result<Option<usize>, CompileError> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n
                .parse::<usize>()
                .map(Some)
                .map_err(|_| CompileError(format!("{n} is not a column position"))),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// A bare name that is a result column's alias (or name).
fn alias_name(e: &Expr, items: &[(Tr, String)]) -> Option<String> {
    let Expr::Identifier(i) = e else { return None };
    items
        .iter()
        .find(|(_, n)| *n == i.value)
        .map(|(_, n)| n.clone())
}

fn alias_of<'a>(e: &Expr, items: &'a [(Tr, String)]) -> Option<&'a Tr> {
    let name = alias_name(e, items)?;
    items.iter().find(|(_, n)| *n == name).map(|(t, _)| t)
}

fn count_literal(e: &Expr, clause: &str) -> Result<u64, CompileError> {
    if let Expr::Value(v) = e {
        if let Value::Number(n, _) = &v.value
            && let Ok(k) = n.parse::<u64>()
        {
            return Ok(k);
        }
        if matches!(v.value, Value::Null) && clause == "LIMIT" {
            return Ok(u64::from(u32::MAX));
        }
    }
    err(format!("{clause} takes a whole number, not `{e}`"))
}
