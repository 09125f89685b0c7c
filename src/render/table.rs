//! SQL results as tables people read: member titles as headers, numbers right-aligned with
//! thousands separators and one number of decimals per column, dates without a zero time part,
//! a row limit with a note on how to get the rest, and a frame that fits the terminal.

use super::numbers::{
    decimals_of, format_number, number, numeric_type, readable_name, short_date, time_type,
};
use crate::protocol::tool::{Column, MetaResult, SqlResult, cell_text};
use crate::term::Style;
use comfy_table::{Cell, CellAlignment, ContentArrangement};
use serde_json::Value;
use std::collections::HashMap;
use unicode_width::UnicodeWidthChar;

/// A result's rows with their raw values, whichever shape they came in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// Columns, in order.
    pub fields: Vec<Field>,
    /// Cells as sent (strings, numbers or null), one per field.
    pub rows: Vec<Vec<Value>>,
    /// Rows in all, when the server said.
    pub total_rows: Option<i64>,
}

/// A result column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Field {
    /// The key in the data (`schema` name or member name).
    pub name: String,
    /// The annotation's title.
    pub title: Option<String>,
    /// `column_type` or the annotation's `type`.
    pub kind: Option<String>,
}

impl Field {
    /// The `i`th column of a `schema` (unnamed: `columnN`, counting from 1).
    pub fn from_column(i: usize, c: &Column) -> Field {
        Field {
            name: c
                .name
                .0
                .clone()
                .unwrap_or_else(|| format!("column{}", i + 1)),
            title: None,
            kind: c.column_type.0.clone(),
        }
    }
}

impl Dataset {
    /// The rows of a SQL result: `schema` + array rows, or object rows with `annotation`.
    pub fn from_result(r: &SqlResult) -> Option<Dataset> {
        let data = r.data.as_ref()?;
        let mut set = Dataset {
            total_rows: r.total_rows.0,
            ..Dataset::default()
        };
        if let Some(schema) = &r.schema {
            set.fields = schema
                .iter()
                .enumerate()
                .map(|(i, c)| Field::from_column(i, c))
                .collect();
        } else {
            for row in data {
                if let Value::Object(map) = row {
                    for k in map.keys() {
                        if !set.fields.iter().any(|f| &f.name == k) {
                            let (title, kind) = annotation_of(r.annotation.as_ref(), k);
                            set.fields.push(Field {
                                name: k.clone(),
                                title,
                                kind,
                            });
                        }
                    }
                }
            }
        }
        for row in data {
            let cells = match row {
                Value::Array(cells) => cells.clone(),
                Value::Object(map) => set
                    .fields
                    .iter()
                    .map(|f| map.get(&f.name).cloned().unwrap_or(Value::Null))
                    .collect(),
                other => vec![other.clone()],
            };
            set.rows.push(cells);
        }
        Some(set)
    }

    /// The column of a field named in a chart spec (`a\.b` escapes a dot; `a.b` and `a_b` are
    /// taken as the same member when only one of them exists).
    pub fn index(&self, field: &str) -> Option<usize> {
        let plain = field.replace("\\.", ".");
        let find = |name: &str| self.fields.iter().position(|f| f.name == name);
        find(field)
            .or_else(|| find(&plain))
            .or_else(|| find(&plain.replace('.', "_")))
            .or_else(|| {
                self.fields
                    .iter()
                    .position(|f| f.name.replace('.', "_") == plain)
            })
    }
}

/// Title and type of a member in an `annotation`.
fn annotation_of(annotation: Option<&Value>, member: &str) -> (Option<String>, Option<String>) {
    let Some(a) = annotation else {
        return (None, None);
    };
    for group in ["measures", "dimensions", "timeDimensions", "segments"] {
        if let Some(m) = a.get(group).and_then(|g| g.get(member)) {
            let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
            return (s("title"), s("type"));
        }
    }
    (None, None)
}

/// Member titles learned from the meta tool's results, looked up by column name.
#[derive(Clone, Debug, Default)]
pub struct Titles {
    map: HashMap<String, String>,
}

impl Titles {
    /// Remember the titles of a meta result's members, under the member's name, the name with
    /// `_` for `.` (how SQL aliases them) and the part after the view's name.
    pub fn learn(&mut self, meta: &MetaResult) {
        for cube in &meta.cubes {
            for m in cube.all_members() {
                let (Some(name), Some(title)) = (m.name.as_ref(), m.title.as_ref()) else {
                    continue;
                };
                if title.is_empty() {
                    continue;
                }
                self.map.insert(name.clone(), title.clone());
                self.map.insert(name.replace('.', "_"), title.clone());
                if let Some((_, short)) = name.split_once('.') {
                    self.map.entry(short.to_owned()).or_insert(title.clone());
                }
            }
        }
    }

    /// A known title for a column.
    pub fn get(&self, column: &str) -> Option<&str> {
        self.map.get(column).map(String::as_str)
    }
}

/// How to show a table.
#[derive(Clone, Copy, Debug)]
pub struct TableOpts<'a> {
    /// Rows to show; 0 = all that arrived.
    pub rows: usize,
    /// Columns of the terminal.
    pub width: usize,
    /// Colour.
    pub style: Style,
    /// Options the cut-table note's `analyst sql` command needs to reach the same service
    /// (` --demo`, ` --profile NAME`), so that it works when pasted; `None`: no such command
    /// (nothing tells how the run that made the result reached its service).
    pub sql_flags: Option<&'a str>,
}

/// How a column's cells are shown.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Number { decimals: usize },
    Date,
    Text,
}

fn column_kind(field: &Field, cells: &[&Value]) -> Kind {
    let declared = field.kind.as_deref().unwrap_or("");
    let filled: Vec<&&Value> = cells.iter().filter(|v| !cell_empty(v)).collect();
    let all_numbers = !filled.is_empty() && filled.iter().all(|v| number(v).is_some());
    let textual = ["string", "text", "varchar", "utf8", "bool"]
        .iter()
        .any(|t| declared.to_ascii_lowercase().contains(t));
    if all_numbers && (numeric_type(declared) || (!textual && !time_type(declared))) {
        let max = filled
            .iter()
            .filter_map(|v| number(v))
            .fold(0.0f64, |m, x| m.max(x.abs()));
        let cap = if max >= 100.0 { 2 } else { 4 };
        let decimals = filled
            .iter()
            .map(|v| decimals_of(v))
            .max()
            .unwrap_or(0)
            .min(cap);
        return Kind::Number { decimals };
    }
    let dates = !filled.is_empty()
        && filled
            .iter()
            .all(|v| v.as_str().is_some_and(|s| short_date(s).is_some()));
    if dates { Kind::Date } else { Kind::Text }
}

fn cell_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// The header of a column: the annotation's title, the meta tool's, the chart's, else the
/// name made readable.
pub fn header(field: &Field, titles: &Titles, chart: &HashMap<String, String>) -> String {
    field
        .title
        .clone()
        .or_else(|| titles.get(&field.name).map(str::to_owned))
        .or_else(|| chart.get(&field.name).cloned())
        .unwrap_or_else(|| readable_name(&field.name))
}

/// The longest a text cell gets before it is cut with an ellipsis.
const CELL_MAX: usize = 60;

/// A result as a framed table, the rows beyond `opts.rows` left out, and a note on what is
/// missing and how to get it (`sql` is the query behind the result).
pub fn render(
    set: &Dataset,
    headers: &[String],
    sql: Option<&str>,
    opts: &TableOpts<'_>,
) -> String {
    let shown = if opts.rows == 0 {
        set.rows.len()
    } else {
        set.rows.len().min(opts.rows)
    };
    let rows = &set.rows[..shown];
    let columns = set
        .fields
        .len()
        .max(rows.iter().map(Vec::len).max().unwrap_or(0));
    let kinds: Vec<Kind> = (0..columns)
        .map(|c| {
            let cells: Vec<&Value> = set.rows.iter().filter_map(|r| r.get(c)).collect();
            let field = set.fields.get(c).cloned().unwrap_or_default();
            column_kind(&field, &cells)
        })
        .collect();
    let mut grid = super::table(opts.style);
    grid.set_content_arrangement(ContentArrangement::Dynamic);
    grid.set_width(opts.width.max(20) as u16);
    grid.set_header(super::headers(
        opts.style,
        (0..columns).map(|c| {
            let h = headers
                .get(c)
                .cloned()
                .unwrap_or_else(|| format!("Column {}", c + 1));
            cut(&crate::term::visible(&h), CELL_MAX)
        }),
    ));
    for row in rows {
        grid.add_row((0..columns).map(|c| {
            let v = row.get(c).unwrap_or(&Value::Null);
            Cell::new(crate::term::visible(&cell(v, kinds[c])).into_owned())
        }));
    }
    for (c, kind) in kinds.iter().enumerate() {
        if let (Kind::Number { .. }, Some(col)) = (kind, grid.column_mut(c)) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = super::table_string(&mut grid);
    let total = set.total_rows.unwrap_or(set.rows.len() as i64).max(0) as usize;
    if total > shown {
        let more = total - shown;
        let rows = if more == 1 { "row" } else { "rows" };
        let mut note = format!(
            "… {} more {rows} ({} in all)",
            format_number(more as f64, 0),
            format_number(total as f64, 0)
        );
        if set.rows.len() > shown {
            note.push_str(&format!(
                "; --rows 0 shows the {} that arrived",
                set.rows.len()
            ));
        }
        if let (true, Some(sql), Some(flags)) = (total > set.rows.len(), sql, opts.sql_flags) {
            let one = one_line(sql);
            note.push_str(&format!(
                "; all of them: analyst sql{} {}",
                flags,
                crate::term::shell_word(one.as_deref().unwrap_or(sql))
            ));
        }
        out.push('\n');
        out.push_str(&opts.style.dim(&note));
    }
    out
}

fn cell(v: &Value, kind: Kind) -> String {
    if cell_empty(v) {
        return String::new();
    }
    match kind {
        Kind::Number { decimals } => number(v)
            .map(|x| format_number(x, decimals))
            .unwrap_or_else(|| cell_text(v)),
        Kind::Date => v
            .as_str()
            .and_then(short_date)
            .map(str::to_owned)
            .unwrap_or_else(|| cell_text(v)),
        Kind::Text => cut(&cell_text(v), CELL_MAX),
    }
}

/// Text cut to `max` columns with an ellipsis; newlines and tabs as spaces, so a cell never
/// breaks the frame, and any other control character in caret notation (`term::visible`), so
/// that the service's text cannot drive the terminal.
pub fn cut(s: &str, max: usize) -> String {
    let folded: String = s
        .chars()
        .map(|c| if matches!(c, '\n' | '\t') { ' ' } else { c })
        .collect();
    let s = crate::term::visible(&folded);
    let mut out = String::new();
    let mut width = 0;
    let total: usize = s.chars().map(|c| c.width().unwrap_or(0)).sum();
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if total > max && width + w > max.saturating_sub(1) {
            out.push('…');
            return out;
        }
        width += w;
        out.push(c);
    }
    out
}

/// `sql` on one line, white space outside quotes collapsed and `--` comments left out, for a
/// note; `None` when that would change the query: white space other than one space inside a
/// quoted string or name.
fn one_line(sql: &str) -> Option<String> {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut chars = sql.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c.is_whitespace()
                    && (c != ' ' || chars.peek().is_some_and(|n| n.is_whitespace()))
                {
                    return None;
                }
                if c == q {
                    quote = None;
                }
                out.push(c);
            }
            // A `--` comment ends at its line's end: joined, it would swallow the lines after
            // it, so it is left out (it changes nothing the service runs).
            None if c == '-' && chars.peek() == Some(&'-') => {
                while chars.next_if(|n| *n != '\n').is_some() {}
            }
            None if c.is_whitespace() => {
                while chars.next_if(|n| n.is_whitespace()).is_some() {}
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            None => {
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    Some(out.trim_end().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cut table's command keeps the query as it ran: a `--` comment would swallow the
    /// lines after it once joined, and white space inside quotes is part of the value.
    #[test]
    fn sql_goes_on_one_line_only_when_that_keeps_it() {
        assert_eq!(
            one_line("SELECT a,\n       b\nFROM t  WHERE x = 'a b'").as_deref(),
            Some("SELECT a, b FROM t WHERE x = 'a b'")
        );
        assert_eq!(
            one_line("SELECT a -- the a\nFROM t -- end").as_deref(),
            Some("SELECT a FROM t")
        );
        assert_eq!(
            one_line("SELECT '--' AS d\nFROM t").as_deref(),
            Some("SELECT '--' AS d FROM t")
        );
        assert_eq!(one_line("SELECT 'a  b'"), None);
        assert_eq!(one_line("SELECT 'a\nb'"), None);
        assert_eq!(one_line("SELECT \"x  y\" FROM t"), None);
    }
    use serde_json::json;

    fn set(v: Value) -> Dataset {
        Dataset::from_result(&serde_json::from_value(v).unwrap()).unwrap()
    }

    #[test]
    fn both_shapes() {
        let a = set(
            json!({"schema":[{"name":"cat","column_type":"string"},{"name":"rev","column_type":"number"}],
            "data":[["Books","12.5"],["Toys",3]],"totalRows":9}),
        );
        assert_eq!(a.fields[1].name, "rev");
        assert_eq!(a.rows[1], [json!("Toys"), json!(3)]);
        let b = set(
            json!({"data":[{"o.status":"paid","o.count":"10"},{"o.count":null,"o.status":"new"}],
            "annotation":{"measures":{"o.count":{"title":"Count","type":"number"}},"dimensions":{"o.status":{"title":"Status","type":"string"}}}}),
        );
        assert_eq!(b.fields[0].title.as_deref(), Some("Status"));
        assert_eq!(b.rows[1], [json!("new"), Value::Null]);
        assert_eq!(b.index("o\\.count"), Some(1));
        assert_eq!(b.index("o_count"), Some(1));
    }

    #[test]
    fn cut_keeps_width() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abcd", 4), "abcd");
        assert_eq!(cut("a\nb", 4), "a b");
        assert_eq!(cut("a\u{1b}[2Jb\r\u{7}", 20), "a^[[2Jb^M^G");
    }

    #[test]
    fn numbers_dates_and_the_note() {
        let s = set(
            json!({"schema":[{"name":"month","column_type":"time"},{"name":"revenue","column_type":"number"}],
            "data":[["2024-01-01T00:00:00.000","43166.6"],["2024-02-01T00:00:00.000","1234567.25"]],"totalRows":500}),
        );
        let h = vec!["Month".to_owned(), "Revenue".to_owned()];
        let out = render(
            &s,
            &h,
            Some("SELECT 1"),
            &TableOpts {
                rows: 1,
                width: 60,
                style: Style::default(),
                sql_flags: Some(""),
            },
        );
        assert!(out.contains("\n2024-01-01  43,166.60\n"), "{out}");
        assert!(
            out.ends_with("… 499 more rows (500 in all); --rows 0 shows the 2 that arrived; all of them: analyst sql 'SELECT 1'"),
            "{out}"
        );
    }
}
