//! Reading a model from YAML with errors that name the file, the path inside it and the problem.
//! The file is walked as a `serde_norway::Value` rather than derived structs, because serde's errors
//! do not carry paths like `cubes[2].measures[0].type`.

use std::path::Path;

use anyhow::{Context, anyhow};
use serde_norway::Value;

use super::model::*;

/// A problem at a path inside the file.
struct Problem {
    path: String,
    message: String,
}

type Res<T> = Result<T, Problem>;

fn problem<T>(path: &str, message: impl Into<String>) -> Res<T> {
    Err(Problem {
        path: path.to_string(),
        message: message.into(),
    })
}

/// Reads and validates a model file.
pub fn load(path: &Path) -> anyhow::Result<Model> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read model file {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// Parses and validates model text; `source` names the file in errors.
pub fn parse(text: &str, source: &str) -> anyhow::Result<Model> {
    let value: Value = serde_norway::from_str(text).map_err(|e| match e.location() {
        Some(l) => anyhow!(
            "{source}: line {}, column {}: invalid YAML: {e}",
            l.line(),
            l.column()
        ),
        None => anyhow!("{source}: invalid YAML: {e}"),
    })?;
    let model = read_model(&value).map_err(|p| anyhow!("{source}: {}: {}", p.path, p.message))?;
    super::model_check::references(&model)
        .map_err(|(path, message)| anyhow!("{source}: {path}: {message}"))?;
    Ok(model)
}

fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_mapping()
        .and_then(|m| m.get(key))
        .filter(|v| !v.is_null())
}

fn string(v: &Value, key: &str, path: &str) -> Res<Option<String>> {
    match get(v, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(_) => problem(&format!("{path}.{key}"), "expected a string"),
    }
}

fn required(v: &Value, key: &str, path: &str) -> Res<String> {
    match string(v, key, path)? {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => problem(&format!("{path}.{key}"), "is required"),
    }
}

fn name(v: &Value, path: &str) -> Res<String> {
    let n = required(v, "name", path)?;
    let ok = n
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return problem(
            &format!("{path}.name"),
            format!("'{n}' is not an identifier (letters, digits, _)"),
        );
    }
    Ok(n)
}

fn list<'a>(v: &'a Value, key: &str, path: &str) -> Res<Vec<(String, &'a Value)>> {
    match get(v, key) {
        None => Ok(Vec::new()),
        Some(Value::Sequence(items)) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, it)| (format!("{path}{key}[{i}]"), it))
            .collect()),
        Some(_) => problem(&format!("{path}{key}"), "expected a list"),
    }
}

fn strings(v: &Value, key: &str, path: &str) -> Res<Vec<String>> {
    list(v, key, &format!("{path}."))?
        .into_iter()
        .map(|(p, it)| match it {
            Value::String(s) => Ok(s.clone()),
            _ => problem(&p, "expected a string"),
        })
        .collect()
}

fn boolean(v: &Value, key: &str, path: &str) -> Res<bool> {
    match get(v, key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => problem(&format!("{path}.{key}"), "expected true or false"),
    }
}

fn pick<T: Copy>(v: &Value, key: &str, path: &str, options: &[(&str, T)]) -> Res<Option<T>> {
    let Some(s) = string(v, key, path)? else {
        return Ok(None);
    };
    match options.iter().find(|(n, _)| n.eq_ignore_ascii_case(&s)) {
        Some((_, t)) => Ok(Some(*t)),
        None => {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            problem(
                &format!("{path}.{key}"),
                format!("unknown {key} '{s}' (expected one of {})", names.join(", ")),
            )
        }
    }
}

fn read_model(v: &Value) -> Res<Model> {
    if !v.is_mapping() {
        return problem(
            "(top)",
            "expected a mapping with `cubes:` (and optionally `views:`)",
        );
    }
    let cubes = list(v, "cubes", "")?
        .into_iter()
        .map(|(p, c)| read_cube(c, &p))
        .collect::<Res<Vec<_>>>()?;
    if cubes.is_empty() {
        return problem("cubes", "at least one cube is required");
    }
    let views = list(v, "views", "")?
        .into_iter()
        .map(|(p, c)| read_view(c, &p))
        .collect::<Res<_>>()?;
    Ok(Model {
        cubes,
        views,
        branches: strings(v, "branches", "")?,
    })
}

fn titled(v: &Value, path: &str, name: &str) -> Res<(String, String)> {
    let title = string(v, "title", path)?.unwrap_or_else(|| title_from_name(name));
    Ok((title, string(v, "description", path)?.unwrap_or_default()))
}

fn read_cube(v: &Value, path: &str) -> Res<Cube> {
    let name = name(v, path)?;
    let (title, description) = titled(v, path, &name)?;
    let sql_table = required(v, "sql_table", path)?;
    let p = format!("{path}.");
    let measures = list(v, "measures", &p)?
        .into_iter()
        .map(|(p, m)| read_measure(m, &p))
        .collect::<Res<_>>()?;
    let dimensions = list(v, "dimensions", &p)?
        .into_iter()
        .map(|(p, d)| read_dimension(d, &p))
        .collect::<Res<_>>()?;
    let joins = list(v, "joins", &p)?
        .into_iter()
        .map(|(p, j)| read_join(j, &p))
        .collect::<Res<_>>()?;
    let policies = list(v, "access_policy", &p)?
        .into_iter()
        .map(|(p, j)| read_policy(j, &p))
        .collect::<Res<_>>()?;
    Ok(Cube {
        name,
        title,
        description,
        sql_table,
        measures,
        dimensions,
        joins,
        policies,
    })
}

fn read_measure(v: &Value, path: &str) -> Res<Measure> {
    use MeasureKind::*;
    let name = name(v, path)?;
    let (title, description) = titled(v, path, &name)?;
    let kinds = [
        ("count", Count),
        ("sum", Sum),
        ("avg", Avg),
        ("min", Min),
        ("max", Max),
        ("count_distinct", CountDistinct),
        ("countDistinct", CountDistinct),
        ("number", Number),
    ];
    let Some(kind) = pick(v, "type", path, &kinds)? else {
        return problem(&format!("{path}.type"), "is required");
    };
    let sql = if kind == Count {
        string(v, "sql", path)?.unwrap_or_default()
    } else {
        required(v, "sql", path)?
    };
    let formats = [
        ("number", Format::Number),
        ("currency", Format::Currency),
        ("percent", Format::Percent),
    ];
    let format = pick(v, "format", path, &formats)?.unwrap_or_default();
    Ok(Measure {
        name,
        title,
        description,
        kind,
        sql,
        synonyms: strings(v, "synonyms", path)?,
        format,
    })
}

fn read_dimension(v: &Value, path: &str) -> Res<Dimension> {
    let name = name(v, path)?;
    let (title, description) = titled(v, path, &name)?;
    let kinds = [
        ("string", DimKind::String),
        ("number", DimKind::Number),
        ("time", DimKind::Time),
        ("boolean", DimKind::Boolean),
    ];
    let Some(kind) = pick(v, "type", path, &kinds)? else {
        return problem(&format!("{path}.type"), "is required");
    };
    let sql = required(v, "sql", path)?;
    let primary_key = boolean(v, "primary_key", path)?;
    let sub_query = boolean(v, "sub_query", path)?;
    Ok(Dimension {
        name,
        title,
        description,
        kind,
        sql,
        primary_key,
        sub_query,
        synonyms: strings(v, "synonyms", path)?,
    })
}

fn read_join(v: &Value, path: &str) -> Res<Join> {
    use Relationship::*;
    let rels = [
        ("many_to_one", ManyToOne),
        ("belongs_to", ManyToOne),
        ("belongsTo", ManyToOne),
        ("one_to_one", OneToOne),
        ("has_one", OneToOne),
        ("hasOne", OneToOne),
        ("one_to_many", OneToMany),
        ("has_many", OneToMany),
        ("hasMany", OneToMany),
    ];
    let relationship = pick(v, "relationship", path, &rels)?.unwrap_or(ManyToOne);
    Ok(Join {
        name: name(v, path)?,
        sql: required(v, "sql", path)?,
        relationship,
    })
}

fn read_policy(v: &Value, path: &str) -> Res<Policy> {
    let member = required(v, "member", path)?;
    let attribute = match (
        string(v, "user_attribute", path)?,
        string(v, "equals", path)?,
    ) {
        (Some(a), _) => a,
        (None, Some(t)) => {
            let inner = t
                .trim()
                .trim_start_matches('{')
                .trim_end_matches('}')
                .trim();
            match inner
                .strip_prefix("userAttributes.")
                .or_else(|| inner.strip_prefix("securityContext."))
            {
                Some(a) if !a.is_empty() => a.to_string(),
                _ => {
                    return problem(
                        &format!("{path}.equals"),
                        format!("expected \"{{ userAttributes.<name> }}\", got '{t}'"),
                    );
                }
            }
        }
        (None, None) => {
            return problem(
                &format!("{path}.user_attribute"),
                "is required (or `equals: \"{ userAttributes.<name> }\"`)",
            );
        }
    };
    let all_if_missing =
        pick(v, "if_missing", path, &[("all", true), ("none", false)])?.unwrap_or(false);
    Ok(Policy {
        member,
        attribute,
        all_if_missing,
    })
}

fn read_view(v: &Value, path: &str) -> Res<View> {
    let name = name(v, path)?;
    let (title, description) = titled(v, path, &name)?;
    let mut cubes = Vec::new();
    for (p, c) in list(v, "cubes", &format!("{path}."))? {
        let join_path: Vec<String> = required(c, "join_path", &p)?
            .split('.')
            .map(|s| s.trim().to_string())
            .collect();
        let includes = match get(c, "includes") {
            None => None,
            Some(Value::String(s)) if s == "*" => None,
            Some(Value::Sequence(_)) => Some(strings(c, "includes", &p)?),
            Some(_) => {
                return problem(
                    &format!("{p}.includes"),
                    "expected \"*\" or a list of member names",
                );
            }
        };
        cubes.push(ViewCube {
            join_path,
            includes,
            excludes: strings(c, "excludes", &p)?,
            prefix: boolean(c, "prefix", &p)?,
        });
    }
    if cubes.is_empty() {
        return problem(
            &format!("{path}.cubes"),
            "a view needs at least one `join_path`",
        );
    }
    Ok(View {
        name,
        title,
        description,
        cubes,
    })
}
