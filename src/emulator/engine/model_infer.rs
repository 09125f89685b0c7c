//! A model inferred from a SQLite file's schema, for data given without a model: one cube per
//! table, a count for each, sums of numeric columns, dimensions for the rest, and joins from the
//! declared foreign keys.

use super::model::*;
use super::warehouse::{Cell, Warehouse};

fn text(row: &[Cell], i: usize) -> String {
    row.get(i).and_then(Cell::text).unwrap_or_default()
}

fn ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Builds a model from the tables of the warehouse.
pub fn model(w: &Warehouse) -> anyhow::Result<Model> {
    let tables: Vec<String> = w
        .tables()?
        .into_iter()
        .filter(|t| ident(t) && !t.starts_with("sqlite_"))
        .collect();
    if tables.is_empty() {
        anyhow::bail!("the file has no tables");
    }
    let cubes = tables
        .iter()
        .map(|t| cube(w, t, &tables))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Model {
        cubes,
        views: Vec::new(),
        branches: Vec::new(),
    })
}

/// The cube of one table: a count, a sum per numeric column that is no key, a dimension per
/// column, a many-to-one join per declared foreign key to another of the `tables`.
fn cube(w: &Warehouse, t: &str, tables: &[String]) -> anyhow::Result<Cube> {
    let cols = w.query(&format!(
        "SELECT name, type, pk FROM pragma_table_info('{t}')"
    ))?;
    let fks = w.query(&format!(
        "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list('{t}')"
    ))?;
    let fk_cols: Vec<String> = fks.rows.iter().map(|r| text(r, 1)).collect();
    let mut cube = Cube {
        name: t.to_string(),
        title: title_from_name(t),
        sql_table: t.to_string(),
        ..Cube::default()
    };
    cube.measures.push(Measure {
        name: "count".into(),
        title: format!("{} count", title_from_name(t)),
        description: String::new(),
        kind: MeasureKind::Count,
        sql: String::new(),
        synonyms: count_words(t),
        format: Format::Number,
    });
    for row in &cols.rows {
        column(&mut cube, row, &fk_cols);
    }
    for r in &fks.rows {
        let (target, from, to) = (text(r, 0), text(r, 1), text(r, 2));
        if tables.contains(&target) && ident(&from) && ident(&to) && cube.join_to(&target).is_none()
        {
            cube.joins.push(Join {
                sql: format!("{{CUBE}}.{from} = {{{target}}}.{to}"),
                name: target,
                relationship: Relationship::ManyToOne,
            });
        }
    }
    Ok(cube)
}

/// One column of a table (name, type, pk) into its cube: a dimension, and a sum if it is a
/// numeric column that is no key (a money column's sum answers to "revenue" and "sales").
fn column(cube: &mut Cube, row: &[Cell], fk_cols: &[String]) {
    let (name, ty, pk) = (
        text(row, 0),
        text(row, 1).to_uppercase(),
        text(row, 2) != "0",
    );
    if !ident(&name) {
        return;
    }
    let lname = name.to_lowercase();
    let numeric = ["INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"]
        .iter()
        .any(|k| ty.contains(k));
    let time = ty.contains("DATE")
        || ty.contains("TIME")
        || lname.ends_with("_at")
        || lname.ends_with("date");
    let kind = if time {
        DimKind::Time
    } else if numeric {
        DimKind::Number
    } else {
        DimKind::String
    };
    if numeric && !pk && !fk_cols.contains(&name) && !lname.ends_with("id") {
        cube.measures.push(Measure {
            name: format!("total_{name}"),
            title: format!("Total {}", title_from_name(&name).to_lowercase()),
            description: String::new(),
            kind: MeasureKind::Sum,
            sql: name.clone(),
            synonyms: sum_words(&lname, &name),
            format: if money(&lname) {
                Format::Currency
            } else {
                Format::Number
            },
        });
    }
    cube.dimensions.push(Dimension {
        name: name.clone(),
        title: title_from_name(&name),
        description: String::new(),
        kind,
        sql: name,
        primary_key: pk,
        sub_query: false,
        synonyms: Vec::new(),
    });
}

/// Column names that hold money: their sums are what "revenue" and "sales" mean in such a file.
const MONEY: &[&str] = &[
    "amount", "price", "revenue", "sales", "total", "value", "cost", "paid", "spend", "turnover",
];
/// Words people say for money sums.
const MONEY_WORDS: &[&str] = &["revenue", "sales", "turnover", "income", "amount", "money"];
/// Table names that hold people, and the words people say for them.
const PEOPLE: &[&str] = &[
    "customers",
    "clients",
    "buyers",
    "users",
    "members",
    "accounts",
];
const PEOPLE_WORDS: &[&str] = &["customers", "buyers", "clients", "shoppers"];

fn money(lname: &str) -> bool {
    MONEY.iter().any(|m| lname == *m || lname.contains(m))
}

/// Words naming a column's sum: the column, plus the money words when it holds money.
fn sum_words(lname: &str, name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    if money(lname) {
        out.extend(MONEY_WORDS.iter().map(|w| w.to_string()));
    }
    out
}

/// Words naming a table's count: the table, plus the words for people when it holds people.
fn count_words(table: &str) -> Vec<String> {
    let mut out = vec![table.to_string()];
    if PEOPLE.contains(&table.to_lowercase().as_str()) {
        out.extend(PEOPLE_WORDS.iter().map(|w| w.to_string()));
    }
    out
}
