//! The model flattened for querying: each view (or cube, when a model has no views) as a list
//! of members with the join path that reaches them, and SQL expressions compiled from templates.

use std::collections::BTreeMap;

use super::model::*;

/// Whether a member aggregates or groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A measure, with its aggregation and format.
    Measure(MeasureKind, Format),
    /// A dimension, with its type.
    Dimension(DimKind),
}

/// A member as a view exposes it.
#[derive(Clone, Debug)]
pub struct Member {
    /// Name inside the view (possibly prefixed with the cube name).
    pub name: String,
    /// The cube it belongs to.
    pub cube: String,
    /// Its name inside the cube.
    pub member: String,
    /// Human title.
    pub title: String,
    /// Free text.
    pub description: String,
    /// Measure or dimension.
    pub kind: Kind,
    /// Extra words naming it.
    pub synonyms: Vec<String>,
}

impl Member {
    /// Whether this is a measure.
    pub fn is_measure(&self) -> bool {
        matches!(self.kind, Kind::Measure(..))
    }
    /// Whether this is a time dimension.
    pub fn is_time(&self) -> bool {
        self.kind == Kind::Dimension(DimKind::Time)
    }
}

/// A queryable view.
#[derive(Clone, Debug)]
pub struct ViewCat {
    /// Name.
    pub name: String,
    /// `"view"` or `"cube"`.
    pub kind: &'static str,
    /// Human title.
    pub title: String,
    /// Free text.
    pub description: String,
    /// The cube every query starts from.
    pub root: String,
    /// Members in declaration order.
    pub members: Vec<Member>,
    /// Join path (from the root) of every cube the view touches.
    pub paths: BTreeMap<String, Vec<String>>,
}

/// Flattens the model's views; synthesises one view per cube when it declares none.
pub fn views(model: &Model) -> Vec<ViewCat> {
    if !model.views.is_empty() {
        return model
            .views
            .iter()
            .map(|v| flatten(model, v, "view"))
            .collect();
    }
    model
        .cubes
        .iter()
        .map(|c| flatten(model, &synthetic_view(model, c), "cube"))
        .collect()
}

/// Everything a dialect query may name: the views, then (when the model declares views) each
/// cube not shadowed by a view's name, as its own view with the cubes it reaches.
pub fn queryable(model: &Model, views: &[ViewCat]) -> Vec<ViewCat> {
    let mut out = views.to_vec();
    if !model.views.is_empty() {
        for c in &model.cubes {
            if !out.iter().any(|v| v.name == c.name) {
                out.push(flatten(model, &synthetic_view(model, c), "cube"));
            }
        }
    }
    out
}

/// A cube plus every cube reachable through many-to-one or one-to-one joins (which cannot
/// multiply its rows), the latter prefixed by their cube name.
fn synthetic_view(model: &Model, cube: &Cube) -> View {
    let mut entries = vec![ViewCube {
        join_path: vec![cube.name.clone()],
        ..Default::default()
    }];
    let mut i = 0;
    while i < entries.len() {
        let path = entries[i].join_path.clone();
        if let Some(c) = path.last().and_then(|n| model.cube(n)) {
            for j in c
                .joins
                .iter()
                .filter(|j| j.relationship != Relationship::OneToMany)
            {
                if !entries.iter().any(|e| e.join_path.last() == Some(&j.name)) {
                    let mut p = path.clone();
                    p.push(j.name.clone());
                    // A joined cube's rows repeat once per row of the root that reaches them:
                    // its sums and averages would add an order's total once per order line.
                    // Counts stay (they count the joined cube's distinct keys).
                    let excludes = model.cube(&j.name).map_or_else(Vec::new, |t| {
                        let distinct = |m: &Measure| match m.kind {
                            MeasureKind::CountDistinct => true,
                            MeasureKind::Count => m.sql.is_empty() && t.primary_key().is_some(),
                            _ => false,
                        };
                        t.measures
                            .iter()
                            .filter(|m| !distinct(m))
                            .map(|m| m.name.clone())
                            .collect()
                    });
                    entries.push(ViewCube {
                        join_path: p,
                        prefix: true,
                        excludes,
                        ..Default::default()
                    });
                }
            }
        }
        i += 1;
    }
    View {
        name: cube.name.clone(),
        title: cube.title.clone(),
        description: cube.description.clone(),
        cubes: entries,
    }
}

fn flatten(model: &Model, view: &View, kind_name: &'static str) -> ViewCat {
    let mut members = Vec::new();
    let mut paths = BTreeMap::new();
    for entry in &view.cubes {
        for (i, hop) in entry.join_path.iter().enumerate() {
            paths
                .entry(hop.clone())
                .or_insert_with(|| entry.join_path[..=i].to_vec());
        }
        let Some(cube) = entry.join_path.last().and_then(|n| model.cube(n)) else {
            continue;
        };
        let wanted = |n: &str| {
            entry.includes.as_ref().is_none_or_contains(n) && !entry.excludes.iter().any(|e| e == n)
        };
        let name = |n: &str| {
            if entry.prefix {
                format!("{}_{n}", cube.name)
            } else {
                n.to_string()
            }
        };
        let mut push =
            |member: &str, title: &str, description: &str, kind: Kind, synonyms: &[String]| {
                let exposed = name(member);
                if wanted(member) && !members.iter().any(|m: &Member| m.name == exposed) {
                    // "Orders" of orders reached from order lines is "Orders", not "Orders
                    // orders"; "Product name" needs no "Products" either.
                    let own = |t: &str| {
                        let (t, c) = (t.to_lowercase(), cube.title.to_lowercase());
                        t.contains(&c) || t.contains(&crate::emulator::engine::words::singular(&c))
                    };
                    let title = if entry.prefix && kind_name == "cube" && !own(title) {
                        format!("{} {}", cube.title, title.to_lowercase())
                    } else {
                        title.to_string()
                    };
                    members.push(Member {
                        name: exposed,
                        cube: cube.name.clone(),
                        member: member.to_string(),
                        title,
                        description: description.to_string(),
                        kind,
                        synonyms: synonyms.to_vec(),
                    });
                }
            };
        for m in &cube.measures {
            push(
                &m.name,
                &m.title,
                &m.description,
                Kind::Measure(m.kind, m.format),
                &m.synonyms,
            );
        }
        for d in &cube.dimensions {
            push(
                &d.name,
                &d.title,
                &d.description,
                Kind::Dimension(d.kind),
                &d.synonyms,
            );
        }
    }
    let root = view.cubes[0].join_path[0].clone();
    ViewCat {
        name: view.name.clone(),
        kind: kind_name,
        title: view.title.clone(),
        description: view.description.clone(),
        root,
        members,
        paths,
    }
}

trait IncludesExt {
    fn is_none_or_contains(&self, n: &str) -> bool;
}

impl IncludesExt for Option<&Vec<String>> {
    fn is_none_or_contains(&self, n: &str) -> bool {
        self.is_none_or(|l| l.iter().any(|x| x == n))
    }
}

/// Double-quotes an SQL identifier.
pub fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// Compiles a member's `sql` template within `cube`: a bare column gets the cube's alias;
/// `{CUBE}` and `{cube}` become aliases; `{member}` and `{cube.member}` expand to that member.
pub fn expand(model: &Model, root: &str, cube: &str, sql: &str, depth: u32) -> String {
    let bare = !sql.is_empty() && sql.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if bare {
        return format!("{}.{}", quote(cube), quote(sql));
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let inner = rest[open + 1..open + close].trim();
        out.push_str(
            &reference(model, root, cube, inner, depth)
                .unwrap_or_else(|| rest[open..=open + close].to_string()),
        );
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

fn reference(model: &Model, root: &str, cube: &str, inner: &str, depth: u32) -> Option<String> {
    if inner == "CUBE" {
        return Some(quote(cube));
    }
    let (c, m) = inner.split_once('.').unwrap_or((cube, inner));
    if !inner.contains('.') && model.cube(inner).is_some() && inner != cube {
        return Some(quote(inner));
    }
    let target = model.cube(c)?;
    if depth > 8 {
        return None; // a cycle of references: leave it for SQLite to reject
    }
    if let Some(d) = target.dimensions.iter().find(|d| d.name == m) {
        return Some(format!("({})", dimension_sql(model, root, c, d, depth + 1)));
    }
    if let Some(x) = target.measures.iter().find(|x| x.name == m) {
        return Some(format!("({})", aggregate(model, root, c, x, depth + 1)));
    }
    (model.cube(inner).is_some()).then(|| quote(inner))
}

/// The SQL of a dimension of `cube`: its template expanded, or for a `sub_query` dimension a
/// correlated subquery (see [`sub_query`]).
pub fn dimension_sql(model: &Model, root: &str, cube: &str, d: &Dimension, depth: u32) -> String {
    if d.sub_query {
        sub_query(model, cube, d, depth).unwrap_or_else(|| "NULL".into())
    } else {
        expand(model, root, cube, &d.sql, depth)
    }
}

/// The cube and measure a `sub_query` dimension's `{cube.measure}` names.
pub fn sub_query_target(sql: &str) -> Option<(&str, &str)> {
    let inner = sql.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    let (c, m) = inner.split_once('.')?;
    let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (ok(c) && ok(m)).then_some((c, m))
}

/// A measure of another cube per row of `cube` (an order's total from its lines): the measure's
/// aggregate over that cube's table under its own alias, restricted by the join between the two
/// cubes (declared either way) to the rows of the outer row. `None` when the model does not
/// allow it (the model check reports why).
fn sub_query(model: &Model, cube: &str, d: &Dimension, depth: u32) -> Option<String> {
    let (other, measure) = sub_query_target(&d.sql)?;
    let inner = model.cube(other).filter(|_| other != cube && depth <= 8)?;
    let m = inner.measures.iter().find(|x| x.name == measure)?;
    // Its own alias, so that the outer query's alias of the same cube (and the join planner,
    // which looks for aliases) never mistakes the inner rows for the outer ones.
    let alias = format!("{other}__{cube}_{}", d.name);
    let rename = |s: String| s.replace(&quote(other), &quote(&alias));
    let on = match inner.join_to(cube) {
        Some(j) => expand(model, other, other, &j.sql, depth + 1),
        None => expand(
            model,
            cube,
            cube,
            &model.cube(cube)?.join_to(other)?.sql,
            depth + 1,
        ),
    };
    Some(format!(
        "(SELECT {} FROM {} AS {} WHERE {})",
        rename(aggregate(model, other, other, m, depth + 1)),
        inner.sql_table,
        quote(&alias),
        rename(on)
    ))
}

/// The aggregate SQL of a measure in a query rooted at `root`: counts of another cube are distinct
/// on its primary key, since its rows repeat once per row of the root.
pub fn aggregate(model: &Model, root: &str, cube: &str, m: &Measure, depth: u32) -> String {
    let through_join = cube != root;
    let e = || expand(model, root, cube, &m.sql, depth);
    match m.kind {
        MeasureKind::Count if !m.sql.is_empty() => format!("COUNT({})", e()),
        MeasureKind::Count => match model.cube(cube).and_then(|c| c.primary_key()) {
            Some(pk) if through_join => format!(
                "COUNT(DISTINCT {})",
                expand(model, root, cube, &pk.sql, depth)
            ),
            _ => "COUNT(*)".to_string(),
        },
        MeasureKind::CountDistinct => format!("COUNT(DISTINCT {})", e()),
        MeasureKind::Sum => format!("ROUND(SUM({}), 2)", e()),
        MeasureKind::Avg => format!("ROUND(AVG({}), 2)", e()),
        MeasureKind::Min => format!("MIN({})", e()),
        MeasureKind::Max => format!("MAX({})", e()),
        MeasureKind::Number => format!("ROUND({}, 4)", e()),
    }
}
