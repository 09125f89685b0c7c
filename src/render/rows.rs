//! Rows of the data query API as they arrive -> csv (RFC 4180), tsv, ndjson, json, yaml or a
//! table. Every format but `table` writes each row the moment it is given and keeps nothing
//! of it, so memory stays flat however many rows come; `table` keeps its first `--rows`.
//!
//! One writer serves one run: several results (`sql --all`) are separated as CLI.md says
//! (a blank line for csv and tsv, one JSON array, one YAML sequence).
//!
//! csv as `protocol/data/csv.rs` writes it. Output is gathered in a buffer handed to the output when
//! it passes 64 KiB and at every [`RowWriter::flush`]; csv rows can also be appended to it
//! straight from the data API's lines, and so can ndjson rows ([`RowWriter::direct`]).

use super::table;
use crate::protocol::data::csv;
use crate::protocol::data::{Cell, Direct, NdjsonKeys};
use crate::protocol::tool::Column;
use crate::term::Style;
use anyhow::Result;
use std::io::Write;

/// The formats of `analyst sql`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    /// A table of the first rows, then a count.
    Table,
    /// RFC 4180 (CRLF record ends).
    Csv,
    /// Tab-separated, with `\t`, `\n`, `\r`, `\\` escaped.
    Tsv,
    /// One object per row, keys the column names.
    Ndjson,
    /// `{schema, rows, rowCount}`.
    Json,
    /// The same document as YAML.
    Yaml,
}

/// How to write.
#[derive(Clone, Copy, Debug)]
pub struct RowOptions {
    /// The format.
    pub format: RowFormat,
    /// csv and tsv: a header row.
    pub header: bool,
    /// table: rows shown (0 = all).
    pub table_rows: usize,
    /// table: colours.
    pub style: Style,
    /// table: columns of the terminal it is fitted to.
    pub width: usize,
    /// Several results: json an array, yaml a sequence.
    pub many: bool,
}

/// Writes results, row by row.
pub struct RowWriter<W: RowOut> {
    out: W,
    /// What is written and not yet handed to `out`.
    buf: Vec<u8>,
    opts: RowOptions,
    columns: Vec<Column>,
    /// ndjson: what goes before each column's value (`{"name":`, `,"name":`), made once per
    /// result.
    keys: NdjsonKeys,
    /// table: the rows kept.
    kept: Vec<Vec<serde_json::Value>>,
    /// table: the member titles its headers take (chat's `/sql`); without them, the column
    /// names as the query gave them.
    titles: Option<table::Titles>,
    rows: u64,
    results: usize,
    open: bool,
}

const OUT_BUFFER: usize = 64 * 1024;

/// What a [`RowWriter`] writes to: any writer, to which its buffer is written when full, or one
/// that takes the full buffer itself in exchange for an empty one, so that rows are never
/// copied a second time ([`OutThread`](super::out_thread::OutThread)).
pub trait RowOut: Write {
    /// How full the buffer may get before it is handed over.
    fn handover_at(&self) -> usize {
        OUT_BUFFER
    }
    /// Take `buf`'s bytes, leaving it empty.
    fn take(&mut self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        self.write_all(buf)?;
        buf.clear();
        Ok(())
    }
}

impl RowOut for Vec<u8> {}
impl<T: RowOut + ?Sized> RowOut for &mut T {
    fn handover_at(&self) -> usize {
        (**self).handover_at()
    }
    fn take(&mut self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        (**self).take(buf)
    }
}
impl<W: Write> RowOut for crate::exit::StdoutWriter<W> {}

impl<W: RowOut> RowWriter<W> {
    /// A writer to `out`.
    pub fn new(out: W, opts: RowOptions) -> RowWriter<W> {
        let full = out.handover_at();
        RowWriter {
            buf: Vec::with_capacity(full + full / 4),
            out,
            opts,
            columns: Vec::new(),
            keys: NdjsonKeys::default(),
            kept: Vec::new(),
            titles: None,
            rows: 0,
            results: 0,
            open: false,
        }
    }

    /// Tables head their columns with these titles, else the column names made readable, as
    /// `chat` heads its result tables.
    pub fn with_titles(mut self, titles: table::Titles) -> Self {
        self.titles = Some(titles);
        self
    }

    /// The output itself.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Rows written for the current result.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The output of every format but csv.
    fn plain(&mut self) -> &mut dyn Write {
        &mut self.buf
    }

    /// csv and ndjson: the buffer a row may be appended to directly (then
    /// [`Self::direct_row`]), while a result is open; `None` for the other formats.
    pub fn direct(&mut self) -> Option<Direct<'_>> {
        if !self.open {
            return None;
        }
        match self.opts.format {
            RowFormat::Csv => Some(Direct::Csv(&mut self.buf)),
            RowFormat::Ndjson => Some(Direct::Ndjson(&mut self.buf, &self.keys)),
            _ => None,
        }
    }

    /// A row was appended to [`Self::direct`]'s buffer: it counts as a row.
    #[inline]
    pub fn direct_row(&mut self) -> Result<()> {
        self.rows += 1;
        self.spill()
    }

    /// Hand the buffer to the output once it is full.
    #[inline]
    fn spill(&mut self) -> Result<()> {
        if self.buf.len() >= self.out.handover_at() {
            self.out.take(&mut self.buf)?;
        }
        Ok(())
    }

    /// A result begins with its schema (ends the previous one if it is still open).
    pub fn start(&mut self, columns: Vec<Column>) -> Result<()> {
        if self.open {
            self.end()?;
        }
        let names: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.name
                    .0
                    .clone()
                    .unwrap_or_else(|| format!("column{}", i + 1))
            })
            .collect();
        let first = self.results == 0;
        self.results += 1;
        self.rows = 0;
        self.open = true;
        self.kept.clear();
        let header = self.opts.header;
        match self.opts.format {
            RowFormat::Csv => {
                if !first {
                    // The blank line between results, ended as csv records are.
                    self.buf.extend_from_slice(b"\r\n");
                }
                if header {
                    csv::write_record(&mut self.buf, names.iter().map(String::as_str));
                }
            }
            RowFormat::Tsv => {
                let out = self.plain();
                if !first {
                    out.write_all(b"\n")?;
                }
                if header {
                    for (i, n) in names.iter().enumerate() {
                        if i > 0 {
                            out.write_all(b"\t")?;
                        }
                        write_tsv(out, n)?;
                    }
                    out.write_all(b"\n")?;
                }
            }
            RowFormat::Ndjson => {
                self.keys = NdjsonKeys::new(&names);
            }
            RowFormat::Json | RowFormat::Yaml => self.document_head(&columns, first)?,
            RowFormat::Table => {}
        }
        self.columns = columns;
        self.spill()
    }

    /// json and yaml: a result's document up to its first row (the schema, then `rows`), inside
    /// the list of results when there are several.
    fn document_head(&mut self, columns: &[Column], first: bool) -> Result<()> {
        let many = self.opts.many;
        if self.opts.format == RowFormat::Json {
            let schema = serde_json::to_string(columns)?;
            let out = self.plain();
            let (lead, pad) = if many { ("  ", "    ") } else { ("", "  ") };
            match (many, first) {
                (true, true) => out.write_all(b"[\n")?,
                (true, false) => out.write_all(b",\n")?,
                _ => {}
            }
            write!(
                out,
                "{lead}{{\n{pad}\"schema\": {schema},\n{pad}\"rows\": ["
            )?;
            return Ok(());
        }
        let schema = serde_norway::to_string(columns)?;
        let out = self.plain();
        let (first_lead, lead) = if many { ("- ", "  ") } else { ("", "") };
        if columns.is_empty() {
            writeln!(out, "{first_lead}schema: []")?;
        } else {
            writeln!(out, "{first_lead}schema:")?;
            for line in schema.lines() {
                writeln!(out, "{lead}{line}")?;
            }
        }
        write!(out, "{lead}rows:")?;
        Ok(())
    }

    /// One row, written at once (table: kept while there is room).
    pub fn row(&mut self, cells: &[Cell<'_>]) -> Result<()> {
        self.rows += 1;
        let many = self.opts.many;
        match self.opts.format {
            RowFormat::Csv => {
                csv::write_record(&mut self.buf, cells.iter().map(|c| c.text().unwrap_or("")));
            }
            RowFormat::Tsv => {
                let out = self.plain();
                for (i, c) in cells.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b"\t")?;
                    }
                    if let Some(t) = c.text() {
                        write_tsv(out, t)?;
                    }
                }
                out.write_all(b"\n")?;
            }
            RowFormat::Ndjson => {
                let out = &mut self.buf;
                if cells.is_empty() {
                    out.push(b'{');
                }
                for (i, c) in cells.iter().enumerate() {
                    self.keys.push(out, i);
                    write_json(out, c)?;
                }
                out.write_all(b"}\n")?;
            }
            RowFormat::Json => {
                let first = self.rows == 1;
                let out = self.plain();
                let pad = if many { "      " } else { "    " };
                out.write_all(if first { b"\n" } else { b",\n" })?;
                out.write_all(pad.as_bytes())?;
                write_array(out, cells)?;
            }
            RowFormat::Yaml => {
                let out = self.plain();
                let lead = if many { "\n  - " } else { "\n- " };
                out.write_all(lead.as_bytes())?;
                // A JSON array is a YAML flow sequence; JSON strings are YAML double-quoted scalars.
                write_array(out, cells)?;
            }
            RowFormat::Table => {
                let room = self.opts.table_rows == 0 || self.kept.len() < self.opts.table_rows;
                if room {
                    // Values, so that the table formats numbers and dates as chat's do.
                    self.kept.push(cells.iter().map(cell_value).collect());
                }
            }
        }
        self.spill()
    }

    /// The current result is over (complete or not): close its document, draw its table.
    pub fn end(&mut self) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let (rows, many) = (self.rows, self.opts.many);
        match self.opts.format {
            RowFormat::Json => {
                let out = self.plain();
                let (lead, pad) = if many { ("  ", "    ") } else { ("", "  ") };
                if rows > 0 {
                    write!(out, "\n{pad}")?;
                }
                write!(out, "],\n{pad}\"rowCount\": {rows}\n{lead}}}")?;
                if !many {
                    out.write_all(b"\n")?;
                }
            }
            RowFormat::Yaml => {
                let out = self.plain();
                let lead = if many { "  " } else { "" };
                if rows == 0 {
                    out.write_all(b" []")?;
                }
                write!(out, "\n{lead}rowCount: {rows}\n")?;
            }
            RowFormat::Table => self.draw_table()?,
            _ => {}
        }
        self.flush()
    }

    fn draw_table(&mut self) -> Result<()> {
        // chat's table: numbers right-aligned with one precision a column, dates shortened,
        // control characters shown, never sent to the terminal.
        let fields: Vec<table::Field> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| table::Field::from_column(i, c))
            .collect();
        let headers: Vec<String> = fields
            .iter()
            .map(|f| match &self.titles {
                Some(titles) => table::header(f, titles, &Default::default()),
                None => f.name.clone(),
            })
            .collect();
        let set = table::Dataset {
            fields,
            rows: std::mem::take(&mut self.kept),
            total_rows: None,
        };
        let grid = table::render(
            &set,
            &headers,
            None,
            &table::TableOpts {
                rows: 0,
                width: self.opts.width,
                style: self.opts.style,
                sql_flags: None,
            },
        );
        let shown = (self.opts.table_rows as u64).min(self.rows);
        let count = if self.opts.table_rows == 0 || self.rows <= shown {
            format!("{} {}", self.rows, plural(self.rows))
        } else {
            format!("{shown} of {} rows shown (--rows N for more)", self.rows)
        };
        let style = self.opts.style;
        let first = self.results == 1;
        let out = self.plain();
        if !first {
            out.write_all(b"\n")?;
        }
        writeln!(out, "{grid}")?;
        writeln!(out, "{}", style.dim(&count))?;
        Ok(())
    }

    /// Everything is written: close a `--all` JSON array.
    pub fn finish(&mut self) -> Result<()> {
        self.end()?;
        if self.opts.many && self.opts.format == RowFormat::Json {
            let close: &[u8] = if self.results == 0 { b"[]\n" } else { b"\n]\n" };
            self.plain().write_all(close)?;
        }
        self.flush()
    }

    /// Hand what is buffered to the output.
    pub fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.out.take(&mut self.buf)?;
        }
        self.out.flush()?;
        Ok(())
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "row" } else { "rows" }
}

/// A tsv field: tab, LF, CR and backslash as `\t`, `\n`, `\r`, `\\`.
fn write_tsv(out: &mut dyn Write, s: &str) -> std::io::Result<()> {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\\' => b"\\\\",
            _ => continue,
        };
        out.write_all(&bytes[start..i])?;
        out.write_all(esc)?;
        start = i + 1;
    }
    out.write_all(&bytes[start..])
}

/// A cell as JSON: a string quoted, any other value its JSON text as sent (`4.50` stays
/// `4.50`; in YAML's flow style it is the same number).
fn write_json<W: Write + ?Sized>(out: &mut W, cell: &Cell<'_>) -> std::io::Result<()> {
    match cell {
        Cell::Null => out.write_all(b"null"),
        Cell::Json(t) => out.write_all(t.as_bytes()),
        // A string that serde_json would write as it is (nearly every cell: it escapes only
        // `"`, `\` and control characters) is copied between quotes: the same bytes, without
        // a pass of its escaper over each character.
        Cell::Text(t) if !t.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') => {
            out.write_all(b"\"")?;
            out.write_all(t.as_bytes())?;
            out.write_all(b"\"")
        }
        Cell::Text(t) => serde_json::to_writer(out, t.as_ref()).map_err(std::io::Error::from),
    }
}

fn write_array(out: &mut dyn Write, cells: &[Cell<'_>]) -> std::io::Result<()> {
    out.write_all(b"[")?;
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.write_all(b", ")?;
        }
        write_json(out, c)?;
    }
    out.write_all(b"]")
}

/// A cell as a JSON value: a number stays a number, a string a string.
fn cell_value(c: &Cell<'_>) -> serde_json::Value {
    match c {
        Cell::Null => serde_json::Value::Null,
        Cell::Text(t) => serde_json::Value::String(t.to_string()),
        Cell::Json(t) => {
            serde_json::from_str(t).unwrap_or_else(|_| serde_json::Value::String(t.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn cols(names: &[&str]) -> Vec<Column> {
        names
            .iter()
            .map(|n| Column {
                name: Some((*n).into()).into(),
                column_type: Some("String".into()).into(),
            })
            .collect()
    }

    fn t(s: &str) -> Cell<'_> {
        Cell::Text(Cow::Borrowed(s))
    }

    fn render(format: RowFormat, many: bool, results: &[&[Vec<Cell<'_>>]]) -> String {
        let mut buf = Vec::new();
        {
            let mut w = RowWriter::new(
                &mut buf,
                RowOptions {
                    format,
                    header: true,
                    table_rows: 1,
                    style: Style::default(),
                    width: 80,
                    many,
                },
            );
            for rows in results {
                w.start(cols(&["a", "b"])).unwrap();
                for r in rows.iter() {
                    w.row(r).unwrap();
                }
                w.end().unwrap();
            }
            w.finish().unwrap();
        }
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn csv_quotes_what_it_must() {
        let rows = [
            vec![t("x,y"), t("say \"hi\"")],
            vec![t("two\nlines"), Cell::Null],
            vec![t("ünï"), t("")],
        ];
        assert_eq!(
            render(RowFormat::Csv, false, &[&rows]),
            "a,b\r\n\"x,y\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",\r\nünï,\r\n"
        );
        let one = [vec![t("1"), t("2")]];
        assert_eq!(
            render(RowFormat::Csv, true, &[&one, &one]),
            "a,b\r\n1,2\r\n\r\na,b\r\n1,2\r\n"
        );
    }

    #[test]
    fn tsv_escapes() {
        let rows = [vec![t("a\tb\\c"), t("l1\r\nl2")], vec![Cell::Null, t("z")]];
        assert_eq!(
            render(RowFormat::Tsv, false, &[&rows]),
            "a\tb\na\\tb\\\\c\tl1\\r\\nl2\n\tz\n"
        );
    }

    #[test]
    fn json_yaml_ndjson_documents_parse() {
        let rows = [vec![t("x\"y"), Cell::Null], vec![t("é"), t("2")]];
        let doc: serde_json::Value =
            serde_json::from_str(&render(RowFormat::Json, false, &[&rows])).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({"schema": [{"name":"a","column_type":"String"},{"name":"b","column_type":"String"}],
                "rows": [["x\"y", null], ["é", "2"]], "rowCount": 2})
        );
        let many: serde_json::Value =
            serde_json::from_str(&render(RowFormat::Json, true, &[&rows, &[]])).unwrap();
        assert_eq!(many[1]["rows"], serde_json::json!([]));
        assert_eq!(many[0], doc);
        let y: serde_json::Value =
            serde_norway::from_str(&render(RowFormat::Yaml, false, &[&rows])).unwrap();
        assert_eq!(y, doc);
        let y: serde_json::Value =
            serde_norway::from_str(&render(RowFormat::Yaml, true, &[&rows, &[]])).unwrap();
        assert_eq!(y[0], doc);
        assert_eq!(y[1]["rowCount"], 0);
        let nd = render(RowFormat::Ndjson, false, &[&rows]);
        let first: serde_json::Value = serde_json::from_str(nd.lines().next().unwrap()).unwrap();
        assert_eq!(first, serde_json::json!({"a": "x\"y", "b": null}));
    }

    #[test]
    fn table_shows_the_first_rows_then_a_count() {
        let rows = [vec![t("1"), t("2")], vec![t("3"), t("4")]];
        let text = render(RowFormat::Table, false, &[&rows]);
        assert!(text.contains('1') && !text.contains('3'), "{text}");
        assert!(text.contains("1 of 2 rows shown"), "{text}");
    }
}
