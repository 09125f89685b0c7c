//! A plan becomes SQLite SQL: joins along the view's paths for the cubes the query touches, time
//! buckets over ISO-8601 text, filters, and the row-level security predicates of access policies.

use std::collections::BTreeMap;

use super::catalog::{aggregate, expand, quote, Kind, ViewCat};
use super::model::{Format, Model};
use super::planner::Plan;
use super::timeparse::Grain;

/// What a result column holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// A time bucket at a grain.
    Time(Grain),
    /// A dimension value.
    Dimension,
    /// A measure value.
    Measure(Format),
}

/// A column of the query's result.
#[derive(Clone, Debug)]
pub struct Column {
    /// Alias in SQL.
    pub name: String,
    /// Human title.
    pub title: String,
    /// What it holds.
    pub role: Role,
    /// `column_type` in the SQL tool's schema.
    pub sql_type: &'static str,
}

/// The SQL of a plan.
#[derive(Clone, Debug)]
pub struct Query {
    /// As the SQL tool shows it (row-level security is the warehouse's business, not the agent's).
    pub shown: String,
    /// As run, with the user's row-level filters.
    pub executed: String,
    /// Result columns.
    pub columns: Vec<Column>,
}

/// Escapes a string literal.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The bucket of an ISO-8601 text time at a grain, as an ISO date.
fn bucket(e: &str, g: Grain) -> String {
    match g {
        Grain::Day => format!("substr({e}, 1, 10)"),
        Grain::Month => format!("substr({e}, 1, 7) || '-01'"),
        Grain::Year => format!("substr({e}, 1, 4) || '-01-01'"),
        Grain::Quarter => format!("substr({e}, 1, 5) || printf('%02d', (CAST(substr({e}, 6, 2) AS INTEGER) - 1) / 3 * 3 + 1) || '-01'"),
        Grain::Week => format!("date(substr({e}, 1, 10), '-' || ((CAST(strftime('%w', substr({e}, 1, 10)) AS INTEGER) + 6) % 7) || ' days')"),
    }
}

/// Row-level predicates for a user, one per policy on a cube of the view (none when no policy applies).
fn security(model: &Model, view: &ViewCat, attrs: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for cube_name in view.paths.keys() {
        let Some(cube) = model.cube(cube_name) else {
            continue;
        };
        for p in &cube.policies {
            let Some(dim) = cube.dimensions.iter().find(|d| d.name == p.member) else {
                continue;
            };
            let values: Vec<String> = attrs
                .iter()
                .filter(|(n, _)| *n == p.attribute)
                .map(|(_, v)| literal(v))
                .collect();
            let e = expand(model, &view.root, cube_name, &dim.sql, 0);
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

/// Builds the SQL of a plan for a user with the given attributes.
pub fn build(model: &Model, view: &ViewCat, plan: &Plan, attrs: &[(String, String)]) -> Query {
    let expr = |i: usize| {
        let m = &view.members[i];
        let cube = model.cube(&m.cube);
        match m.kind {
            Kind::Measure(..) => cube
                .and_then(|c| c.measures.iter().find(|x| x.name == m.member))
                .map(|x| aggregate(model, &view.root, &m.cube, x, 0)),
            Kind::Dimension(_) => cube
                .and_then(|c| c.dimensions.iter().find(|x| x.name == m.member))
                .map(|x| expand(model, &view.root, &m.cube, &x.sql, 0)),
        }
        .unwrap_or_else(|| "NULL".to_string())
    };
    let mut select = Vec::new();
    let mut columns = Vec::new();
    if let (Some(g), Some(t)) = (plan.grain, plan.time) {
        select.push(format!("{} AS {}", bucket(&expr(t), g), quote(g.as_str())));
        columns.push(Column {
            name: g.as_str().into(),
            title: g.as_str().into(),
            role: Role::Time(g),
            sql_type: "time",
        });
    }
    for &d in &plan.dimensions {
        let m = &view.members[d];
        select.push(format!("{} AS {}", expr(d), quote(&m.name)));
        let sql_type = if let Kind::Dimension(k) = m.kind {
            k.as_str()
        } else {
            "string"
        };
        columns.push(Column {
            name: m.name.clone(),
            title: m.title.clone(),
            role: Role::Dimension,
            sql_type,
        });
    }
    let groups = columns.len();
    for &i in &plan.measures {
        let m = &view.members[i];
        select.push(format!("{} AS {}", expr(i), quote(&m.name)));
        let format = if let Kind::Measure(_, f) = m.kind {
            f
        } else {
            Format::Number
        };
        columns.push(Column {
            name: m.name.clone(),
            title: m.title.clone(),
            role: Role::Measure(format),
            sql_type: "number",
        });
    }
    let mut wheres = Vec::new();
    if let (Some(r), Some(t)) = (&plan.range, plan.time) {
        let e = expr(t);
        wheres.push(format!(
            "{e} >= {} AND {e} < {}",
            literal(&r.start.to_string()),
            literal(&r.end.to_string())
        ));
    }
    for (d, v) in &plan.filters {
        wheres.push(format!("{} = {}", expr(*d), literal(v)));
    }
    let rls = security(model, view, attrs);
    let mut tail = String::new();
    if groups > 0 {
        tail.push_str(&format!(
            "\nGROUP BY {}",
            (1..=groups)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let first_measure = groups + 1;
    let order = match (plan.descending, plan.grain.is_some() && plan.time.is_some()) {
        (Some(desc), _) if groups > 0 => Some(format!(
            "{first_measure} {}",
            if desc { "DESC" } else { "ASC" }
        )),
        (_, true) if groups > 1 => Some(format!("1, {first_measure} DESC")),
        (_, true) => Some("1".to_string()),
        _ if groups > 0 => Some(format!("{first_measure} DESC")),
        _ => None,
    };
    if let Some(o) = order {
        tail.push_str(&format!("\nORDER BY {o}"));
    }
    if let (Some(n), true) = (plan.limit, groups > 0) {
        tail.push_str(&format!("\nLIMIT {n}"));
    }
    let head = format!("SELECT {}", select.join(",\n       "));
    let from = joins(
        model,
        view,
        &[head.as_str(), &wheres.join(" "), &rls.join(" ")].concat(),
    );
    let render = |extra: &[String]| {
        let all: Vec<&String> = wheres.iter().chain(extra).collect();
        let w = if all.is_empty() {
            String::new()
        } else {
            format!(
                "\nWHERE {}",
                all.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n  AND ")
            )
        };
        format!("{head}\n{from}{w}{tail}")
    };
    Query {
        shown: render(&[]),
        executed: render(&rls),
        columns,
    }
}

/// FROM and LEFT JOINs for every cube whose alias the SQL mentions, with the cubes on its path.
fn joins(model: &Model, view: &ViewCat, sql: &str) -> String {
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
