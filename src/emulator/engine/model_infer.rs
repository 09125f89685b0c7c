//! A model inferred from a SQLite file's schema, for data given without a model: one cube per
//! table, a count for each, sums and averages of numeric columns (prices only averaged), a
//! dimension per column, and joins from the declared foreign keys and from `<table>_id` columns.
//! The words people use come with it: a table's money column is its "revenue", its name column
//! is the entity ("top customers"), a people table's first date is their signup.

use super::model::*;
use super::warehouse::{Cell, Warehouse};
use super::words::singular;

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
    let schemas = tables
        .iter()
        .map(|t| schema(w, t))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let cubes = schemas.iter().map(|t| cube(t, &schemas)).collect();
    Ok(Model {
        cubes,
        views: Vec::new(),
        branches: Vec::new(),
    })
}

/// One table as SQLite describes it.
struct Table {
    name: String,
    /// (name, declared type in upper case, part of the primary key).
    columns: Vec<(String, String, bool)>,
    /// Declared foreign keys: (target table, from column, to column).
    fks: Vec<(String, String, String)>,
}

impl Table {
    /// The single-column primary key, declared, else `id` or `<singular>_id` when present.
    fn key(&self) -> Option<&str> {
        let declared: Vec<&str> = self
            .columns
            .iter()
            .filter(|c| c.2)
            .map(|c| c.0.as_str())
            .collect();
        if let [one] = declared.as_slice() {
            return Some(one);
        }
        let own = format!("{}_id", singular(&self.name.to_lowercase()));
        self.columns
            .iter()
            .map(|c| c.0.as_str())
            .find(|c| c.eq_ignore_ascii_case("id") || c.eq_ignore_ascii_case(&own))
    }

    /// The entity this table holds, in the singular ("customer" for `customers`).
    fn entity(&self) -> String {
        singular(&self.name.to_lowercase().replace('_', " "))
    }
}

fn schema(w: &Warehouse, t: &str) -> anyhow::Result<Table> {
    let cols = w.query(&format!(
        "SELECT name, type, pk FROM pragma_table_info('{t}')"
    ))?;
    let fks = w.query(&format!(
        "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list('{t}')"
    ))?;
    Ok(Table {
        name: t.to_string(),
        columns: cols
            .rows
            .iter()
            .map(|r| (text(r, 0), text(r, 1).to_uppercase(), text(r, 2) != "0"))
            .filter(|c| ident(&c.0))
            .collect(),
        fks: fks
            .rows
            .iter()
            .map(|r| (text(r, 0), text(r, 1), text(r, 2)))
            .collect(),
    })
}

/// The table a `<name>_id` column points at: `<name>`, its plural, or a table whose key has the
/// column's name; with the column it joins on.
fn referenced<'a>(column: &str, from: &Table, tables: &'a [Table]) -> Option<(&'a Table, String)> {
    let lc = column.to_lowercase();
    let stem = lc.strip_suffix("_id").filter(|s| !s.is_empty())?;
    tables.iter().filter(|t| t.name != from.name).find_map(|t| {
        let key = t.key()?;
        let name = t.name.to_lowercase();
        let named = singular(&name) == singular(stem) || name == stem;
        (named || key.eq_ignore_ascii_case(column)).then(|| (t, key.to_string()))
    })
}

/// The cube of one table: a count, sums and averages of its numeric columns that are no keys,
/// a dimension per column, and a many-to-one join per foreign key, declared or read from a
/// `<table>_id` column.
fn cube(table: &Table, tables: &[Table]) -> Cube {
    let t = table.name.as_str();
    let mut joins: Vec<(String, String, String)> = table
        .fks
        .iter()
        .filter(|(target, from, to)| {
            tables.iter().any(|x| x.name == *target) && ident(from) && ident(to)
        })
        .cloned()
        .collect();
    let key = table.key().map(str::to_string);
    for (name, _, _) in &table.columns {
        if key.as_deref() == Some(name.as_str()) || joins.iter().any(|j| j.1 == *name) {
            continue;
        }
        if let Some((target, to)) = referenced(name, table, tables) {
            joins.push((target.name.clone(), name.clone(), to));
        }
    }
    let fk_cols: Vec<String> = joins.iter().map(|j| j.1.clone()).collect();
    let entity = table.entity();
    let mut cube = Cube {
        name: t.to_string(),
        title: title_from_name(t),
        sql_table: t.to_string(),
        ..Cube::default()
    };
    cube.measures.push(Measure {
        name: "count".into(),
        title: title_from_name(t),
        description: format!("Number of {}", t.replace('_', " ")),
        kind: MeasureKind::Count,
        sql: String::new(),
        synonyms: count_words(t, &entity),
        format: Format::Number,
    });
    let revenue = revenue_column(table, key.as_deref(), &fk_cols);
    let label = label_column(table);
    let first_time = table
        .columns
        .iter()
        .find(|c| is_time(&c.0, &c.1))
        .map(|c| c.0.clone());
    for (name, ty, _) in &table.columns {
        let role = Role {
            key: key.as_deref() == Some(name.as_str()) || fk_cols.contains(name),
            own_key: key.as_deref() == Some(name.as_str()),
            revenue: revenue.as_deref() == Some(name.as_str()),
            label: label.as_deref() == Some(name.as_str()),
            first_time: first_time.as_deref() == Some(name.as_str()),
        };
        column(&mut cube, name, ty, &entity, role);
    }
    for (target, from, to) in joins {
        if cube.join_to(&target).is_none() {
            cube.joins.push(Join {
                sql: format!("{{CUBE}}.{from} = {{{target}}}.{to}"),
                name: target,
                relationship: Relationship::ManyToOne,
            });
        }
    }
    cube
}

/// What a column is to its table, beyond its type.
#[derive(Clone, Copy)]
struct Role {
    /// The table's key, or a column pointing at another table's.
    key: bool,
    /// The table's own key.
    own_key: bool,
    /// The table's money column whose sum is what "revenue" and "sales" mean.
    revenue: bool,
    /// The column that names a row ("customers" grouped or ranked are their names).
    label: bool,
    /// The table's first time column: when a row came to be ("signups", "joined").
    first_time: bool,
}

fn is_numeric(ty: &str) -> bool {
    ["INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"]
        .iter()
        .any(|k| ty.contains(k))
}

fn is_time(name: &str, ty: &str) -> bool {
    let lname = name.to_lowercase();
    ty.contains("DATE")
        || ty.contains("TIME")
        || lname.ends_with("_at")
        || lname.ends_with("date")
        || lname.ends_with("_on")
}

/// One column of a table into its cube: a dimension; for a numeric column that is no key, a
/// sum (unless it is a price, whose sum means nothing) and an average.
fn column(cube: &mut Cube, name: &str, ty: &str, entity: &str, role: Role) {
    let lname = name.to_lowercase();
    let numeric = is_numeric(ty);
    let time = is_time(name, ty);
    let kind = if time {
        DimKind::Time
    } else if numeric {
        DimKind::Number
    } else {
        DimKind::String
    };
    let spoken = lname.replace('_', " ");
    if numeric && !time && !role.key && !lname.ends_with("id") {
        let per_unit = PER_UNIT.iter().any(|p| lname.contains(p));
        let quantity = QUANTITY.iter().any(|q| lname == *q || lname.contains(q));
        let format = if money(&lname) {
            Format::Currency
        } else {
            Format::Number
        };
        if !per_unit {
            let mut synonyms = vec![name.to_string(), spoken.clone()];
            if role.revenue {
                synonyms.extend(MONEY_WORDS.iter().map(|w| w.to_string()));
            }
            if quantity {
                synonyms.extend(QUANTITY_WORDS.iter().map(|w| w.to_string()));
            }
            cube.measures.push(Measure {
                name: format!("total_{name}"),
                title: if role.revenue {
                    format!("Revenue (sum of {spoken})")
                } else {
                    format!("Total {spoken}")
                },
                description: format!("Sum of {spoken}"),
                kind: MeasureKind::Sum,
                sql: name.to_string(),
                synonyms,
                format,
            });
        }
        let mut synonyms: Vec<String> = ["average", "avg", "mean"]
            .iter()
            .map(|a| format!("{a} {spoken}"))
            .collect();
        if per_unit {
            // "price" alone is the average price: a sum of prices answers nothing.
            synonyms.push(spoken.clone());
        }
        if role.revenue {
            // "average order value": the average of an order's money column.
            for w in ["value", "amount", "size", "total"] {
                synonyms.push(format!("average {entity} {w}"));
                synonyms.push(format!("avg {entity} {w}"));
            }
        }
        cube.measures.push(Measure {
            name: format!("avg_{name}"),
            title: format!("Average {spoken}"),
            description: format!("Average {spoken} per {entity}"),
            kind: MeasureKind::Avg,
            sql: name.to_string(),
            synonyms,
            format,
        });
    }
    let mut synonyms = Vec::new();
    if role.label {
        synonyms.push(entity.to_string());
        if PEOPLE.contains(&cube.name.to_lowercase().as_str()) {
            synonyms.extend(PEOPLE_WORDS.iter().map(|w| singular(w)));
        }
    }
    if time && role.first_time {
        // A row's own date: "signups" for people, the stem of the name ("signup" of
        // signup_date) otherwise, unless the stem is the entity itself ("order" of order_date
        // would take every "orders").
        let stem = ["_at", "_date", "_on", "_time", "date"]
            .iter()
            .find_map(|s| lname.strip_suffix(s))
            .unwrap_or(&lname)
            .trim_matches('_')
            .replace('_', " ");
        if !stem.is_empty() && singular(&stem) != *entity && stem != "created" {
            synonyms.push(stem);
        }
        if PEOPLE.contains(&cube.name.to_lowercase().as_str()) {
            synonyms.extend(SIGNUP_WORDS.iter().map(|w| w.to_string()));
        }
    }
    cube.dimensions.push(Dimension {
        name: name.to_string(),
        title: title_from_name(name),
        description: String::new(),
        kind,
        sql: name.to_string(),
        primary_key: role.own_key,
        sub_query: false,
        synonyms,
    });
}

/// The table's money column that "revenue" names: the first by [`MONEY`]'s order of preference.
fn revenue_column(table: &Table, key: Option<&str>, fks: &[String]) -> Option<String> {
    let candidates: Vec<&String> = table
        .columns
        .iter()
        .filter(|(n, ty, _)| {
            is_numeric(ty)
                && key != Some(n.as_str())
                && !fks.contains(n)
                && !PER_UNIT.iter().any(|p| n.to_lowercase().contains(p))
        })
        .map(|c| &c.0)
        .collect();
    MONEY.iter().find_map(|m| {
        candidates
            .iter()
            .find(|c| c.to_lowercase().contains(m))
            .map(|c| c.to_string())
    })
}

/// The column that names a row: `name`, `<entity>_name`, else the first text column with
/// "name", "title" or "label" in its name.
fn label_column(table: &Table) -> Option<String> {
    let text_cols: Vec<&String> = table
        .columns
        .iter()
        .filter(|(n, ty, _)| !is_numeric(ty) && !is_time(n, ty))
        .map(|c| &c.0)
        .collect();
    let own = format!("{}_name", table.entity().replace(' ', "_"));
    text_cols
        .iter()
        .find(|c| c.eq_ignore_ascii_case("name") || c.eq_ignore_ascii_case(&own))
        .or_else(|| {
            text_cols.iter().find(|c| {
                let l = c.to_lowercase();
                ["name", "title", "label"].iter().any(|k| l.contains(k))
            })
        })
        .map(|c| c.to_string())
}

/// Column names that hold money, best first: the sum of the first a table has is what
/// "revenue" and "sales" mean in such a file.
const MONEY: &[&str] = &[
    "revenue",
    "sales",
    "total_amount",
    "amount",
    "line_total",
    "total",
    "subtotal",
    "value",
    "paid",
    "spend",
    "turnover",
    "price",
    "cost",
];
/// Columns whose values are per unit (a price): averaged, never summed.
const PER_UNIT: &[&str] = &["price", "rate", "unit_cost", "fee_per"];
/// Columns that count units.
const QUANTITY: &[&str] = &["quantity", "qty", "units"];
const QUANTITY_WORDS: &[&str] = &["units", "units sold", "items sold", "quantity", "volume"];
/// Words people say for money sums.
const MONEY_WORDS: &[&str] = &[
    "revenue",
    "sales",
    "turnover",
    "income",
    "money",
    "sales amount",
];
/// Table names that hold people, and the words people say for them.
const PEOPLE: &[&str] = &[
    "customers",
    "clients",
    "buyers",
    "users",
    "members",
    "accounts",
    "customer",
    "client",
    "user",
    "member",
    "account",
];
const PEOPLE_WORDS: &[&str] = &["customers", "buyers", "clients", "shoppers"];
/// Words for the day a person joined.
const SIGNUP_WORDS: &[&str] = &[
    "signup",
    "sign up",
    "signed up",
    "joined",
    "join date",
    "registration",
    "registered",
];

fn money(lname: &str) -> bool {
    MONEY.iter().any(|m| lname == *m || lname.contains(m))
}

/// Words naming a table's count: the table, "number of" it, plus the words for people when it
/// holds people.
fn count_words(table: &str, entity: &str) -> Vec<String> {
    let spoken = table.to_lowercase().replace('_', " ");
    let mut out = vec![
        table.to_string(),
        spoken.clone(),
        format!("number of {spoken}"),
        format!("{entity} count"),
    ];
    if PEOPLE.contains(&table.to_lowercase().as_str()) {
        out.extend(PEOPLE_WORDS.iter().map(|w| w.to_string()));
    }
    out
}
