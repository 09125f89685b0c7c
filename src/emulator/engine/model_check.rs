//! Checks a model: its cross-references, and against the data at load time (so a wrong table or column fails fast, naming
//! the path in the model file), and collects the values of string dimensions for the planner.

use std::collections::{HashMap, HashSet};

use anyhow::bail;

use super::catalog::{Kind, ViewCat, aggregate, dimension_sql, quote, sub_query_target};
use super::model::{DimKind, MeasureKind, Model};
use super::warehouse::{Cell, Warehouse};

/// String dimensions with more distinct values than this are not matched as filter values.
const MAX_VALUES: usize = 200;

/// Whether compiled SQL refers only to `cube`'s alias (so it can run against its table alone).
fn own_only(model: &Model, cube: &str, sql: &str) -> bool {
    model
        .cubes
        .iter()
        .all(|c| c.name == cube || !sql.contains(&format!("{}.", quote(&c.name))))
}

/// Fails on the first cube whose table, or member whose SQL, SQLite rejects.
pub fn against_data(model: &Model, w: &Warehouse, source: &str, data: &str) -> anyhow::Result<()> {
    for (ci, c) in model.cubes.iter().enumerate() {
        let from = format!("FROM {} AS {}", c.sql_table, quote(&c.name));
        if let Err(e) = w.query(&format!("SELECT 1 {from} LIMIT 0")) {
            bail!(
                "{source}: cubes[{ci}].sql_table: table '{}' is not usable in {data}: {e}",
                c.sql_table
            );
        }
        let dims = c.dimensions.iter().enumerate().map(|(i, d)| {
            (
                format!("dimensions[{i}]"),
                dimension_sql(model, &c.name, &c.name, d, 0),
            )
        });
        let measures = c.measures.iter().enumerate().map(|(i, m)| {
            (
                format!("measures[{i}]"),
                aggregate(model, &c.name, &c.name, m, 0),
            )
        });
        for (path, e) in dims.chain(measures) {
            if !own_only(model, &c.name, &e) {
                continue; // refers to joined cubes; checked when a query joins them
            }
            if let Err(err) = w.query(&format!("SELECT {e} {from} LIMIT 0")) {
                bail!(
                    "{source}: cubes[{ci}].{path}.sql: SQLite rejects `{e}` on table '{}': {err}",
                    c.sql_table
                );
            }
        }
    }
    Ok(())
}

/// For each view, the known values of each string dimension, as (member index, values).
pub fn dimension_values(
    model: &Model,
    views: &[ViewCat],
    w: &Warehouse,
) -> Vec<Vec<(usize, Vec<String>)>> {
    let mut seen: HashMap<(String, String), Option<Vec<String>>> = HashMap::new();
    views
        .iter()
        .map(|v| {
            let mut out = Vec::new();
            for (i, m) in v.members.iter().enumerate() {
                if m.kind != Kind::Dimension(DimKind::String) {
                    continue;
                }
                let values = seen
                    .entry((m.cube.clone(), m.member.clone()))
                    .or_insert_with(|| distinct(model, w, &m.cube, &m.member));
                if let Some(values) = values {
                    out.push((i, values.clone()));
                }
            }
            out
        })
        .collect()
}

/// The values of a cube's dimension, sorted (none when there are too many to list).
pub(super) fn distinct(
    model: &Model,
    w: &Warehouse,
    cube: &str,
    member: &str,
) -> Option<Vec<String>> {
    let c = model.cube(cube)?;
    let d = c.dimensions.iter().find(|d| d.name == member)?;
    let e = dimension_sql(model, cube, cube, d, 0);
    if !own_only(model, cube, &e) {
        return None;
    }
    let sql = format!(
        "SELECT DISTINCT {e} FROM {} AS {} WHERE {e} IS NOT NULL ORDER BY 1 LIMIT {}",
        c.sql_table,
        quote(cube),
        MAX_VALUES + 1
    );
    let r = w.query(&sql).ok()?;
    (r.rows.len() <= MAX_VALUES).then(|| {
        r.rows
            .iter()
            .filter_map(|row| row.first().and_then(Cell::text))
            .filter(|s| !s.trim().is_empty())
            .collect()
    })
}

fn problem<T>(path: &str, message: impl Into<String>) -> Result<T, (String, String)> {
    Err((path.to_string(), message.into()))
}

/// A `sub_query` dimension names a measure of another cube joined to this one, which has no
/// access policy of its own (the subquery reads its rows outside the query's policies).
fn sub_query_dimension(m: &Model, cube: &str, d: &super::model::Dimension) -> Result<(), String> {
    let Some((other, measure)) = sub_query_target(&d.sql) else {
        return Err(format!(
            "a `sub_query` dimension's sql is one measure of another cube, as {{cube.measure}}; got '{}'",
            d.sql
        ));
    };
    let Some(target) = m.cube(other).filter(|_| other != cube) else {
        return Err(format!("'{other}' is not another cube of the model"));
    };
    let Some(x) = target.measures.iter().find(|x| x.name == measure) else {
        return Err(format!("cube '{other}' has no measure '{measure}'"));
    };
    if x.kind == MeasureKind::Number {
        return Err(format!(
            "'{other}.{measure}' is a `number` measure; a sub_query takes a sum, count, avg, min or max"
        ));
    }
    if x.sql.replace("{CUBE}", "").contains('{') {
        return Err(format!(
            "'{other}.{measure}' refers to other members; a sub_query takes a measure over its cube's own columns"
        ));
    }
    if target.join_to(cube).is_none() && m.cube(cube).and_then(|c| c.join_to(other)).is_none() {
        return Err(format!(
            "cubes '{cube}' and '{other}' have no join between them"
        ));
    }
    if !target.policies.is_empty() {
        return Err(format!(
            "cube '{other}' has an access policy, which a sub_query would bypass"
        ));
    }
    if d.kind != DimKind::Number {
        return Err("a `sub_query` dimension has `type: number`".into());
    }
    Ok(())
}

/// Cross-references inside a model: unique names, joins to existing cubes, view paths and members, policies.
pub fn references(m: &Model) -> Result<(), (String, String)> {
    let mut cube_names = HashSet::new();
    for (ci, c) in m.cubes.iter().enumerate() {
        if !cube_names.insert(&c.name) {
            return problem(
                &format!("cubes[{ci}].name"),
                format!("duplicate cube '{}'", c.name),
            );
        }
        cube_references(m, ci, c)?;
    }
    for (vi, v) in m.views.iter().enumerate() {
        view_references(m, vi, v)?;
    }
    Ok(())
}

/// One cube's cross-references: unique member names, joins to existing cubes, `number`
/// measures over other measures, `sub_query` dimensions, policies on its own dimensions.
fn cube_references(m: &Model, ci: usize, c: &super::model::Cube) -> Result<(), (String, String)> {
    let mut members = HashSet::new();
    for (i, n) in c.measures.iter().map(|x| &x.name).enumerate() {
        if !members.insert(n) {
            return problem(
                &format!("cubes[{ci}].measures[{i}].name"),
                format!("duplicate member '{n}'"),
            );
        }
    }
    for (i, n) in c.dimensions.iter().map(|x| &x.name).enumerate() {
        if !members.insert(n) {
            return problem(
                &format!("cubes[{ci}].dimensions[{i}].name"),
                format!("duplicate member '{n}'"),
            );
        }
    }
    for (i, j) in c.joins.iter().enumerate() {
        if !m.cubes.iter().any(|t| t.name == j.name) {
            return problem(
                &format!("cubes[{ci}].joins[{i}].name"),
                format!("no cube named '{}'", j.name),
            );
        }
    }
    for (i, mm) in c.measures.iter().enumerate() {
        if mm.kind == MeasureKind::Number && !mm.sql.contains('{') {
            return problem(
                &format!("cubes[{ci}].measures[{i}].sql"),
                "a `number` measure must reference other measures as {name}",
            );
        }
    }
    for (i, d) in c.dimensions.iter().enumerate() {
        if d.sub_query {
            sub_query_dimension(m, &c.name, d)
                .map_err(|e| (format!("cubes[{ci}].dimensions[{i}].sql"), e))?;
        }
    }
    for (i, p) in c.policies.iter().enumerate() {
        if !c.dimensions.iter().any(|d| d.name == p.member) {
            return problem(
                &format!("cubes[{ci}].access_policy[{i}].member"),
                format!("'{}' is not a dimension of cube '{}'", p.member, c.name),
            );
        }
    }
    Ok(())
}

/// One view's cross-references: join paths from its root along declared joins, and included
/// members that exist.
fn view_references(m: &Model, vi: usize, v: &super::model::View) -> Result<(), (String, String)> {
    let root = &v.cubes[0].join_path[0];
    for (ei, e) in v.cubes.iter().enumerate() {
        let p = format!("views[{vi}].cubes[{ei}]");
        if &e.join_path[0] != root {
            return problem(
                &format!("{p}.join_path"),
                format!("must start at the view's root cube '{root}'"),
            );
        }
        let mut cur = m
            .cube(root)
            .ok_or_else(|| (format!("{p}.join_path"), format!("no cube named '{root}'")))?;
        for hop in &e.join_path[1..] {
            if cur.join_to(hop).is_none() {
                return problem(
                    &format!("{p}.join_path"),
                    format!("cube '{}' has no join to '{hop}'", cur.name),
                );
            }
            cur = m
                .cube(hop)
                .ok_or_else(|| (format!("{p}.join_path"), format!("no cube named '{hop}'")))?;
        }
        for (ii, inc) in e.includes.iter().flatten().enumerate() {
            if !cur.measures.iter().any(|x| &x.name == inc)
                && !cur.dimensions.iter().any(|x| &x.name == inc)
            {
                return problem(
                    &format!("{p}.includes[{ii}]"),
                    format!("cube '{}' has no member '{inc}'", cur.name),
                );
            }
        }
    }
    Ok(())
}
