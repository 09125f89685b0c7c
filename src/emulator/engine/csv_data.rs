//! CSV files as a warehouse (`serve --data a.csv --data b.csv`): one table per file, named after
//! it, from a header row; each column's type inferred from its values (integers, numbers, dates
//! and timestamps, text), empty cells as NULL. Foreign keys are then inferred from `*_id`
//! columns by the model inference, as for a SQLite file without declared keys.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rusqlite::{Connection, types::Value};

/// A column's type, from the values it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Integer,
    Real,
    Date,
    Timestamp,
    Text,
}

impl Ty {
    fn sql(self) -> &'static str {
        match self {
            Ty::Integer => "INTEGER",
            Ty::Real => "REAL",
            Ty::Date => "DATE",
            Ty::Timestamp => "TIMESTAMP",
            Ty::Text => "TEXT",
        }
    }
    /// A value's own type.
    fn of(v: &str) -> Ty {
        if v.parse::<i64>().is_ok() {
            Ty::Integer
        } else if v.parse::<f64>().is_ok_and(f64::is_finite) {
            Ty::Real
        } else if is_date(v) {
            Ty::Date
        } else if v.len() > 10 && is_date(&v[..10]) && matches!(v.as_bytes()[10], b' ' | b'T') {
            Ty::Timestamp
        } else {
            Ty::Text
        }
    }
    /// The narrowest type that holds this one's values and `v`.
    fn widen(self, v: &str) -> Ty {
        match (self, Ty::of(v)) {
            (a, b) if a == b => a,
            (Ty::Integer, Ty::Real) | (Ty::Real, Ty::Integer) => Ty::Real,
            (Ty::Date, Ty::Timestamp) | (Ty::Timestamp, Ty::Date) => Ty::Timestamp,
            _ => Ty::Text,
        }
    }
}

/// `YYYY-MM-DD`.
fn is_date(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// A name usable as a SQL identifier: lower case, runs of anything else as `_`.
fn ident(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    match out.chars().next() {
        None => String::new(),
        Some(c) if c.is_ascii_digit() => format!("t_{out}"),
        Some(_) => out,
    }
}

/// The table a file becomes: its file name without the extension.
pub fn table_name(path: &Path) -> String {
    ident(
        &path
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default(),
    )
}

fn reader(path: &Path) -> anyhow::Result<csv::Reader<std::fs::File>> {
    csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(path)
        .with_context(|| format!("{}: cannot read", path.display()))
}

/// One file's columns (names and types), checked: a header, unique names, every row as wide.
fn columns(path: &Path) -> anyhow::Result<Vec<(String, Ty)>> {
    let mut rd = reader(path)?;
    let header = rd
        .headers()
        .with_context(|| format!("{}: cannot read the header row", path.display()))?
        .clone();
    if header.is_empty() || header.iter().all(|h| h.trim().is_empty()) {
        bail!(
            "{}: no header row (the first line must name the columns)",
            path.display()
        );
    }
    let mut names = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, h) in header.iter().enumerate() {
        let name = match ident(h) {
            n if n.is_empty() => format!("column_{}", i + 1),
            n => n,
        };
        if !seen.insert(name.clone()) {
            bail!(
                "{}: two columns are named {name:?} in the header",
                path.display()
            );
        }
        names.push(name);
    }
    let mut types: Vec<Option<Ty>> = vec![None; names.len()];
    for (n, rec) in rd.records().enumerate() {
        let rec = rec.map_err(|e| anyhow::anyhow!("{}: line {}: {e}", path.display(), n + 2))?;
        for (slot, v) in types.iter_mut().zip(rec.iter()) {
            if !v.trim().is_empty() {
                let v = v.trim();
                *slot = Some(slot.map_or_else(|| Ty::of(v), |t| t.widen(v)));
            }
        }
    }
    Ok(names
        .into_iter()
        .zip(types)
        .map(|(n, t)| (n, t.unwrap_or(Ty::Text)))
        .collect())
}

/// Checks the files as `serve --data` takes them: each readable CSV with a header and rows of
/// its width, table names distinct. The error names the file (and line).
pub fn check(paths: &[PathBuf]) -> anyhow::Result<()> {
    let mut tables = BTreeSet::new();
    for p in paths {
        let t = table_name(p);
        if t.is_empty() {
            bail!("{}: the file name gives no table name", p.display());
        }
        if !tables.insert(t.clone()) {
            bail!("{}: a second file for table {t:?}", p.display());
        }
        columns(p)?;
    }
    Ok(())
}

/// The files loaded into a new in-memory database, one table each.
pub fn load(paths: &[PathBuf]) -> anyhow::Result<Connection> {
    check(paths)?;
    let conn = Connection::open_in_memory()?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;")?;
    for p in paths {
        let table = table_name(p);
        let cols = columns(p)?;
        let defs: Vec<String> = cols
            .iter()
            .map(|(n, t)| format!("\"{n}\" {}", t.sql()))
            .collect();
        conn.execute_batch(&format!("CREATE TABLE \"{table}\" ({})", defs.join(", ")))?;
        let marks = vec!["?"; cols.len()].join(", ");
        let mut ins = conn.prepare(&format!("INSERT INTO \"{table}\" VALUES ({marks})"))?;
        for rec in reader(p)?.records() {
            let rec = rec?;
            let values = cols.iter().zip(rec.iter()).map(|((_, t), v)| {
                let v = v.trim();
                match t {
                    _ if v.is_empty() => Value::Null,
                    Ty::Integer => v.parse().map_or(Value::Null, Value::Integer),
                    Ty::Real => v.parse().map_or(Value::Null, Value::Real),
                    _ => Value::Text(v.to_string()),
                }
            });
            ins.execute(rusqlite::params_from_iter(values))?;
        }
    }
    conn.execute_batch("COMMIT;")?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_widen_as_values_come() {
        let t = |vs: &[&str]| {
            vs.iter()
                .fold(None, |acc: Option<Ty>, v| {
                    Some(acc.map_or_else(|| Ty::of(v), |t| t.widen(v)))
                })
                .unwrap()
        };
        assert_eq!(t(&["1", "2"]), Ty::Integer);
        assert_eq!(t(&["1", "2.5"]), Ty::Real);
        assert_eq!(t(&["2024-01-02", "2024-01-03"]), Ty::Date);
        assert_eq!(t(&["2024-01-02", "2024-01-03 10:00:00"]), Ty::Timestamp);
        assert_eq!(t(&["1", "x"]), Ty::Text);
        assert_eq!(ident("Order Items (2024)"), "order_items_2024");
        assert_eq!(ident("2024 sales"), "t_2024_sales");
    }
}
