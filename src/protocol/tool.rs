//! Tool inputs and results: SQL (rows as arrays with `schema`, or rows as objects with
//! `annotation`), meta search (members, or the older `measures` list), and tool errors.
//! Tools are recognised by the shape of what they carry, not by their (varying) names.

use super::lenient::Lenient;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Input of a SQL tool (`dataSqlApi`, `cubeSqlApi`, ...); some servers send only `query`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SqlInput {
    /// The SQL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql_query: Lenient<String>,
    /// The SQL, on servers that use the short form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Lenient<String>,
    /// A short title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_title: Lenient<String>,
    /// What the query does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Lenient<String>,
    /// The user's request as the agent understood it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_request: Lenient<String>,
    /// Memory id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_id: Lenient<String>,
    /// Vega-Lite v5 spec as JSON text, without data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vega_spec: Lenient<String>,
}

/// A payload as the JSON the service writes (a tool's `input` or `result` before it is
/// serialised to text).
fn payload<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl SqlInput {
    /// As written on the wire.
    pub fn to_value(&self) -> Value {
        payload(self)
    }

    /// The SQL text, from either field.
    pub fn sql(&self) -> Option<&str> {
        self.sql_query.as_deref().or(self.query.as_deref())
    }
}

/// A result column.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Column {
    /// Column name.
    pub name: Lenient<String>,
    /// Column type, e.g. `string`, `number`, `time`.
    pub column_type: Lenient<String>,
}

/// Result of a SQL tool.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SqlResult {
    /// The SQL that ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql_query: Lenient<String>,
    /// A short title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_title: Lenient<String>,
    /// What the query does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Lenient<String>,
    /// The user's request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_request: Lenient<String>,
    /// Columns, for rows given as arrays.
    #[serde(deserialize_with = "columns", skip_serializing_if = "Option::is_none")]
    pub schema: Option<Vec<Column>>,
    /// Rows: arrays (with `schema`) or objects keyed by member name (with `annotation`).
    #[serde(deserialize_with = "rows", skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<Value>>,
    /// How many rows the query produced in all (`data` holds at most 100 by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_rows: Lenient<i64>,
    /// Result id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Lenient<String>,
    /// Vega-Lite v5 spec as JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vega_spec: Lenient<String>,
    /// `{measures: {...}, dimensions: {...}}` with `title` and `type`, for rows given as objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotation: Lenient<Value>,
    /// A failed tool's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Lenient<String>,
}

fn columns<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Column>>, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

fn rows<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Value>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(rows) => Some(rows),
        _ => None,
    })
}

/// A result as a plain table of text cells, whichever shape it came in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column headers (titles where the annotation gives them).
    pub columns: Vec<String>,
    /// Cells as text.
    pub rows: Vec<Vec<String>>,
    /// Rows in all, when the server said.
    pub total_rows: Option<i64>,
}

impl SqlResult {
    /// A failed query: only `error`.
    pub fn failed(message: &str) -> SqlResult {
        SqlResult {
            error: Some(message.to_owned()).into(),
            ..SqlResult::default()
        }
    }

    /// As written on the wire.
    pub fn to_value(&self) -> Value {
        payload(self)
    }

    /// The rows as a table: `schema` + array rows, or object rows with `annotation` titles.
    pub fn table(&self) -> Option<Table> {
        let data = self.data.as_ref()?;
        let mut table = Table {
            total_rows: self.total_rows.0,
            ..Table::default()
        };
        if let Some(schema) = &self.schema {
            table.columns = schema
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    c.name
                        .0
                        .clone()
                        .unwrap_or_else(|| format!("column{}", i + 1))
                })
                .collect();
            for row in data {
                let cells = match row {
                    Value::Array(cells) => cells.iter().map(cell_text).collect(),
                    Value::Object(map) => table
                        .columns
                        .iter()
                        .map(|c| map.get(c).map(cell_text).unwrap_or_default())
                        .collect(),
                    other => vec![cell_text(other)],
                };
                table.rows.push(cells);
            }
            return Some(table);
        }
        // Rows as objects: columns in order of first appearance.
        let mut keys: Vec<String> = Vec::new();
        for row in data {
            if let Value::Object(map) = row {
                for k in map.keys() {
                    if !keys.contains(k) {
                        keys.push(k.clone());
                    }
                }
            }
        }
        table.columns = keys
            .iter()
            .map(|k| self.member_title(k).unwrap_or_else(|| k.clone()))
            .collect();
        for row in data {
            let cells = match row {
                Value::Object(map) => keys
                    .iter()
                    .map(|k| map.get(k).map(cell_text).unwrap_or_default())
                    .collect(),
                Value::Array(cells) => cells.iter().map(cell_text).collect(),
                other => vec![cell_text(other)],
            };
            table.rows.push(cells);
        }
        Some(table)
    }

    fn member_title(&self, member: &str) -> Option<String> {
        let annotation = self.annotation.as_ref()?;
        ["measures", "dimensions", "timeDimensions", "segments"]
            .iter()
            .find_map(|group| annotation.get(group)?.get(member)?.get("title")?.as_str())
            .map(str::to_owned)
    }
}

/// A cell's text: strings as they are, null as empty, anything else as JSON.
pub fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Result of a meta (data model search) tool.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MetaResult {
    /// The search the agent ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_query: Lenient<String>,
    /// Matching views or cubes.
    #[serde(deserialize_with = "cubes")]
    pub cubes: Vec<Cube>,
}

impl MetaResult {
    /// As written on the wire.
    pub fn to_value(&self) -> Value {
        payload(self)
    }
}

fn cubes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Cube>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|c| serde_json::from_value(c).ok())
            .collect(),
        _ => Vec::new(),
    })
}

/// A cube or view in a meta result.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Cube {
    /// Name.
    pub name: Lenient<String>,
    /// `cube` or `view`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Lenient<String>,
    /// Title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Lenient<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Lenient<String>,
    /// Members (newer servers).
    #[serde(deserialize_with = "members", skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// Measures (older servers).
    #[serde(deserialize_with = "members", skip_serializing_if = "Vec::is_empty")]
    pub measures: Vec<Member>,
    /// Dimensions (older servers).
    #[serde(deserialize_with = "members", skip_serializing_if = "Vec::is_empty")]
    pub dimensions: Vec<Member>,
}

impl Cube {
    /// All members, whichever field carried them.
    pub fn all_members(&self) -> impl Iterator<Item = &Member> {
        self.members
            .iter()
            .chain(&self.measures)
            .chain(&self.dimensions)
    }
}

fn members<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Member>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|m| match m {
                Value::String(name) => Some(Member {
                    name: Some(name).into(),
                    ..Member::default()
                }),
                other => serde_json::from_value(other).ok(),
            })
            .collect(),
        _ => Vec::new(),
    })
}

/// A member of a cube or view.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Member {
    /// Full name, e.g. `orders.revenue`.
    pub name: Lenient<String>,
    /// Title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Lenient<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Lenient<String>,
    /// `number`, `string`, `time`, `boolean`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Lenient<String>,
    /// Aggregation of a measure, e.g. `sum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agg_type: Lenient<String>,
}

/// What a tool call is, judged by the shape of its input and result.
#[derive(Clone, Debug)]
pub enum Tool {
    /// Runs SQL.
    Sql {
        /// Parsed input.
        input: Box<SqlInput>,
        /// Parsed result, once finished.
        result: Option<Box<SqlResult>>,
    },
    /// Searches the data model.
    Meta {
        /// The search text.
        search: Option<String>,
        /// Parsed result, once finished.
        result: Option<MetaResult>,
    },
    /// Any other tool.
    Other,
}

/// Parse a tool result: a JSON string holding JSON (the usual case), or an object already.
pub fn parse_result(result: &Value) -> Value {
    match result {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
        other => other.clone(),
    }
}

/// Parse a tool input: an object, or a JSON string holding one.
pub fn parse_input(input: &Value) -> Value {
    parse_result(input)
}

/// The error of a failed tool: `error` in the parsed result.
pub fn tool_error(result: &Value) -> Option<String> {
    match result.get("error")? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => super::frame::error_text(other),
    }
}

/// Recognise a tool by the shape of its (parsed) result first, which is unambiguous, then of
/// its input (a meta tool may take `{"query": ...}` too).
pub fn classify(input: &Value, result: Option<&Value>) -> Tool {
    let has = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).is_some();
    let sql = || Tool::Sql {
        input: Box::new(serde_json::from_value(input.clone()).unwrap_or_default()),
        result: result
            .and_then(|r| serde_json::from_value(r.clone()).ok())
            .map(Box::new),
    };
    let meta = || Tool::Meta {
        search: input
            .get("searchQuery")
            .and_then(Value::as_str)
            .map(str::to_owned),
        result: result.and_then(|r| serde_json::from_value(r.clone()).ok()),
    };
    if has(result, "cubes") {
        return meta();
    }
    if has(result, "schema")
        || has(result, "sqlQuery")
        || result
            .and_then(|r| r.get("data"))
            .is_some_and(Value::is_array)
    {
        return sql();
    }
    if has(Some(input), "searchQuery") {
        return meta();
    }
    if has(Some(input), "sqlQuery") || has(Some(input), "query") {
        return sql();
    }
    Tool::Other
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_as_arrays_with_schema() {
        let r: SqlResult = serde_json::from_value(json!({
            "schema": [{"name": "category", "column_type": "string"}, {"name": "revenue", "column_type": "number"}],
            "data": [["Books", "12.5"], ["Toys", 3]],
            "totalRows": 250
        }))
        .unwrap();
        let t = r.table().unwrap();
        assert_eq!(t.columns, ["category", "revenue"]);
        assert_eq!(t.rows, [["Books", "12.5"], ["Toys", "3"]]);
        assert_eq!(t.total_rows, Some(250));
    }

    #[test]
    fn rows_as_objects_with_annotation() {
        let r: SqlResult = serde_json::from_value(json!({
            "data": [{"orders.status": "paid", "orders.count": "10"}, {"orders.status": "new", "orders.count": null}],
            "annotation": {"measures": {"orders.count": {"title": "Orders Count", "type": "number"}},
                           "dimensions": {"orders.status": {"title": "Orders Status", "type": "string"}}}
        }))
        .unwrap();
        let t = r.table().unwrap();
        assert_eq!(t.columns, ["Orders Status", "Orders Count"]);
        assert_eq!(t.rows, [["paid", "10"], ["new", ""]]);
    }

    #[test]
    fn tools_are_recognised_by_shape() {
        let sql = parse_result(&json!(
            "{\"sqlQuery\":\"SELECT 1\",\"schema\":[],\"data\":[]}"
        ));
        assert!(matches!(
            classify(&json!({"query": "SELECT 1"}), Some(&sql)),
            Tool::Sql { .. }
        ));
        let meta = parse_result(&json!(
            "{\"searchQuery\":\"rev\",\"cubes\":[{\"name\":\"orders\",\"measures\":[\"orders.count\"]}]}"
        ));
        match classify(&json!({"searchQuery": "rev"}), Some(&meta)) {
            Tool::Meta {
                result: Some(m), ..
            } => {
                assert_eq!(
                    m.cubes[0].all_members().next().unwrap().name.as_deref(),
                    Some("orders.count")
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify(&json!({"x": 1}), None), Tool::Other));
        let cubes = json!({"cubes": [{"name": "orders"}]});
        assert!(
            matches!(
                classify(&json!({"query": "revenue"}), Some(&cubes)),
                Tool::Meta { .. }
            ),
            "the result decides"
        );
        let failed = parse_result(&json!("{\"error\":\"Error: BadRequestError: Bad branch\"}"));
        assert_eq!(
            tool_error(&failed).as_deref(),
            Some("Error: BadRequestError: Bad branch")
        );
    }
}
