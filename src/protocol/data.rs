//! The data query API (`POST {data_url}/v1/cubesql`): the request body, and the lines of its
//! streamed answer (`{schema, lastRefreshTime?}`, then `{data: [[...], ...]}` chunks, maybe a
//! last `{error, requestId?}`).
//!
//! Rows are handed to a [`RowSink`] one by one while a line is parsed, borrowing their text
//! from the line, so that no row is ever built as a JSON value or kept after it was written.

use super::tool::Column;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

pub mod csv;
mod scan;
pub use scan::NdjsonKeys;

/// The body of `POST {data_url}/v1/cubesql`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRequest {
    /// The SQL.
    pub query: String,
    /// IANA time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// `stale-if-slow`, `stale-while-revalidate`, `must-revalidate` or `no-cache`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
}

/// One value of a row, as sent: a string, null, or a value of another JSON type kept as its
/// JSON text, so that `4.50` is written back as `4.50` and `true` as `true`, never as strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    /// `null`.
    Null,
    /// A string.
    Text(Cow<'a, str>),
    /// A number, `true`/`false`, an array or an object: its JSON text as sent (arrays and
    /// objects without the white space between their tokens, so it stays on one line).
    Json(Cow<'a, str>),
}

impl Cell<'_> {
    /// The text (a string's, or another value's JSON text), `None` for null.
    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Null => None,
            Cell::Text(t) | Cell::Json(t) => Some(t),
        }
    }
}

/// Where the rows of an answer go while its lines are parsed.
pub trait RowSink {
    /// The `schema` line's columns.
    fn schema(&mut self, columns: Vec<Column>);
    /// The position of a column by name (rows sent as objects are put in schema order).
    fn column(&self, name: &str) -> Option<usize>;
    /// How many columns the schema has.
    fn width(&self) -> usize;
    /// One row; `false` stops the parse (enough rows, or the output failed).
    fn row(&mut self, cells: &[Cell<'_>]) -> bool;
    /// The output, when rows are wanted appended to it as csv records or ndjson objects: the
    /// fast path then writes each row there (as `csv.rs` does, or as `render/rows.rs` writes
    /// ndjson) and calls [`RowSink::direct_row`] instead of [`RowSink::row`]. `None` (the
    /// default): rows come as cells.
    fn direct(&mut self) -> Option<Direct<'_>> {
        None
    }
    /// A row was appended to the buffer of [`RowSink::direct`]; as [`RowSink::row`], `false`
    /// stops.
    fn direct_row(&mut self) -> bool {
        true
    }
}

/// A sink's output that the fast path appends whole rows to (see [`RowSink::direct`]).
pub enum Direct<'a> {
    /// Rows as csv records.
    Csv(&'a mut Vec<u8>),
    /// Rows as ndjson objects, with what goes before each column's value.
    Ndjson(&'a mut Vec<u8>, &'a NdjsonKeys),
}

/// What a line said besides its rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineInfo {
    /// The line carried a schema.
    pub schema: bool,
    /// Rows handed to the sink.
    pub rows: u64,
    /// The service's error message (an `{error}` line).
    pub error: Option<String>,
    /// The query's `requestId`, when the line names it.
    pub request_id: Option<String>,
    /// The sink asked to stop in the middle of the line.
    pub stopped: bool,
}

/// Parse one line of the answer, handing its rows to `sink`. An error means the line is not a
/// JSON object of the expected shape (after the rows before the fault were handed over).
///
/// `{"data":[...]}` lines go through a hand-written scanner (`scan.rs`); anything it does not
/// take whole is read by serde_json, which gives the same rows and the same errors.
pub fn read_line(line: &[u8], sink: &mut dyn RowSink) -> Result<LineInfo, serde_json::Error> {
    // One UTF-8 check of the whole line is cheaper than serde_json's check of every string
    // (simdutf8: the same verdict as std's, many bytes a cycle).
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => match scan::data_line(text, sink) {
            scan::Scan::Done(info) => Ok(info),
            scan::Scan::Fallback(handed) => {
                read_from(serde_json::Deserializer::from_str(text), sink, handed)
            }
        },
        Err(_) => read_from(serde_json::Deserializer::from_slice(line), sink, 0),
    }
}

/// The serde path alone: what the fast path is checked against.
#[cfg(test)]
fn read_serde(line: &[u8], sink: &mut dyn RowSink) -> Result<LineInfo, serde_json::Error> {
    match std::str::from_utf8(line) {
        Ok(text) => read_from(serde_json::Deserializer::from_str(text), sink, 0),
        Err(_) => read_from(serde_json::Deserializer::from_slice(line), sink, 0),
    }
}

/// The serde path; the first `handed` rows were already handed to the sink (by the fast path)
/// and are only counted.
fn read_from<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    sink: &mut dyn RowSink,
    handed: u64,
) -> Result<LineInfo, serde_json::Error> {
    let mut info = LineInfo::default();
    let result = LineSeed {
        sink,
        info: &mut info,
        handed,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match result {
        Err(_) if info.stopped => Ok(info),
        Err(e) => Err(e),
        Ok(()) => Ok(info),
    }
}

struct LineSeed<'s> {
    sink: &'s mut dyn RowSink,
    info: &'s mut LineInfo,
    handed: u64,
}

impl<'de> DeserializeSeed<'de> for LineSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "schema" => {
                    let v: Value = map.next_value()?;
                    let columns: Vec<Column> = serde_json::from_value(v).unwrap_or_default();
                    self.sink.schema(columns);
                    self.info.schema = true;
                }
                "data" => map.next_value_seed(RowsSeed {
                    sink: &mut *self.sink,
                    info: &mut *self.info,
                    handed: self.handed,
                })?,
                "error" => {
                    let v: Value = map.next_value()?;
                    self.info.error = super::frame::error_text(&v);
                }
                "requestId" => {
                    let v: Value = map.next_value()?;
                    self.info.request_id = v.as_str().map(str::to_owned);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct RowsSeed<'s> {
    sink: &'s mut dyn RowSink,
    info: &'s mut LineInfo,
    handed: u64,
}

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut rows: A) -> Result<(), A::Error> {
        let mut cells: Vec<Cell<'de>> = Vec::with_capacity(self.sink.width());
        loop {
            cells.clear();
            let seed = RowSeed {
                sink: &*self.sink,
                cells: &mut cells,
            };
            if rows.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            self.info.rows += 1;
            if self.info.rows <= self.handed {
                continue;
            }
            if !self.sink.row(&cells) {
                self.info.stopped = true;
                return Err(serde::de::Error::custom("stopped"));
            }
        }
    }
}

struct RowSeed<'s, 'de> {
    sink: &'s dyn RowSink,
    cells: &'s mut Vec<Cell<'de>>,
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a row (an array, or an object keyed by column)")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(cell) = seq.next_element::<Cell<'de>>()? {
            self.cells.push(cell);
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.cells.resize(self.sink.width(), Cell::Null);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let cell = map.next_value::<Cell<'de>>()?;
            if let Some(i) = self.sink.column(&key)
                && let Some(slot) = self.cells.get_mut(i)
            {
                *slot = cell;
            }
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Cell<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cell<'de>, D::Error> {
        // The value's text as sent: a number's digits are not known once serde has read it.
        let raw = <&'de RawValue>::deserialize(d)?;
        cell_from_json(raw.get()).map_err(serde::de::Error::custom)
    }
}

/// A cell from one JSON value's text (valid JSON, no white space around it).
fn cell_from_json(json: &str) -> Result<Cell<'_>, serde_json::Error> {
    match json.as_bytes().first() {
        Some(b'"') => match json.get(1..json.len() - 1) {
            Some(inner) if !inner.contains('\\') => Ok(Cell::Text(Cow::Borrowed(inner))),
            _ => serde_json::from_str::<String>(json).map(|s| Cell::Text(Cow::Owned(s))),
        },
        Some(b'n') => Ok(Cell::Null),
        Some(b'[' | b'{') => Ok(Cell::Json(Cow::Owned(compact(json)))),
        _ => Ok(Cell::Json(Cow::Borrowed(json))),
    }
}

/// JSON text without the white space between its tokens (strings, and so numbers, untouched).
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect {
        names: Vec<String>,
        rows: Vec<Vec<Option<String>>>,
        stop_after: Option<usize>,
    }

    impl RowSink for Collect {
        fn schema(&mut self, columns: Vec<Column>) {
            self.names = columns.into_iter().filter_map(|c| c.name.0).collect();
        }
        fn column(&self, name: &str) -> Option<usize> {
            self.names.iter().position(|n| n == name)
        }
        fn width(&self) -> usize {
            self.names.len()
        }
        fn row(&mut self, cells: &[Cell<'_>]) -> bool {
            self.rows
                .push(cells.iter().map(|c| c.text().map(str::to_owned)).collect());
            self.stop_after != Some(self.rows.len())
        }
    }

    #[test]
    fn schema_rows_and_errors() {
        let mut c = Collect::default();
        let i = read_line(
            br#"{"schema":[{"name":"a","column_type":"String"},{"name":"b","column_type":"Int64"}],"lastRefreshTime":"x"}"#,
            &mut c,
        )
        .unwrap();
        assert!(i.schema);
        let i = read_line(
            br#"{"data":[["x\"y",null],["\u00e9",7],{"b":"2","a":"o"}]}"#,
            &mut c,
        )
        .unwrap();
        assert_eq!(i.rows, 3);
        assert_eq!(
            c.rows,
            [
                vec![Some("x\"y".into()), None],
                vec![Some("é".into()), Some("7".into())],
                vec![Some("o".into()), Some("2".into())]
            ]
        );
        let i = read_line(br#"{"error":"boom","requestId":"r1"}"#, &mut c).unwrap();
        assert_eq!(i.error.as_deref(), Some("boom"));
        assert_eq!(i.request_id.as_deref(), Some("r1"));
        assert!(read_line(b"{\"data\":[[\"a\"]", &mut c).is_err());
        assert!(read_line(b"[1]", &mut c).is_err());
    }

    #[test]
    fn a_sink_can_stop_in_the_middle_of_a_line() {
        let mut c = Collect {
            stop_after: Some(2),
            ..Collect::default()
        };
        let i = read_line(br#"{"data":[["1"],["2"],["3"]]}"#, &mut c).unwrap();
        assert!(i.stopped);
        assert_eq!(c.rows.len(), 2);
    }
}
