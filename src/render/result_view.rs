//! A SQL result in `text`: its table, and under it the chart its `vegaSpec` asks for.

use super::chart::{self, Chart};
use super::table::{self, Dataset, TableOpts, Titles};
use crate::protocol::tool::SqlResult;
use crate::term::Style;
use std::collections::HashMap;

/// Rows of a SQL result shown in a table; the rest are counted.
pub const TABLE_ROWS: usize = 10;
/// How SQL results are shown: rows per table, the width to fit, charts under tables.
#[derive(Clone, Debug)]
pub struct TextView {
    /// Rows per table (0 = all that arrived).
    pub rows: usize,
    /// Columns to fit tables and charts in.
    pub width: usize,
    /// Draw charts of results that carry a `vegaSpec`.
    pub charts: bool,
    /// Options the `analyst sql` command of a cut table's note needs (` --demo`); `None` when
    /// no pasted command could reach the service (a `--replay` does not know its settings).
    pub sql_flags: Option<String>,
}

impl Default for TextView {
    fn default() -> Self {
        TextView {
            rows: TABLE_ROWS,
            width: 80,
            charts: true,
            sql_flags: Some(String::new()),
        }
    }
}

/// The table (and chart) of a result, without a trailing newline; `None` for a result without
/// rows or columns.
pub fn show(
    result: &SqlResult,
    input_spec: Option<&str>,
    sql: Option<&str>,
    titles: &Titles,
    view: &TextView,
    style: Style,
) -> Option<String> {
    let data = Dataset::from_result(result)?;
    if data.fields.is_empty() && data.rows.is_empty() {
        return None;
    }
    let charted = chart::charted_result(result, input_spec);
    let spec_titles: HashMap<String, String> = charted
        .as_ref()
        .map(|c| chart::field_titles(&c.spec).into_iter().collect())
        .unwrap_or_default();
    let headers: Vec<String> = data
        .fields
        .iter()
        .map(|f| table::header(f, titles, &spec_titles))
        .collect();
    let opts = TableOpts {
        rows: view.rows,
        width: view.width,
        style,
        sql_flags: view.sql_flags.as_deref(),
    };
    let mut out = table::render(&data, &headers, sql, &opts);
    if view.charts
        && let Some(charted) = charted.as_ref()
        && let Some(mut c) = Chart::build(&charted.spec, &charted.data)
    {
        // The table may be cut at --rows; the chart draws every row that arrived: say so,
        // or a reader takes the two for the same rows.
        let in_table = match view.rows {
            0 => data.rows.len(),
            n => n.min(data.rows.len()),
        };
        let in_chart = charted.data.rows.len();
        if in_chart > in_table {
            c.notes.push(format!(
                "the chart draws all {in_chart} rows; the table above shows {in_table}"
            ));
        }
        out.push_str("\n\n");
        out.push_str(chart::term::draw(&c, view.width, style).trim_end_matches('\n'));
    }
    Some(out)
}
