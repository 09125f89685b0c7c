//! SCIM Users and Groups as `scim users|groups list|get` print them, written as they arrive:
//! ndjson (each resource as the server sent it), one JSON array, one YAML sequence, csv, only
//! the ids, or a table. Every format but `table` keeps nothing of a resource once written, so
//! memory stays flat however many pages come; `table` keeps the few cells of each row it shows
//! (its column widths depend on every row), so a listing of 100,000 users is for `-o ndjson` or
//! `-o csv`, not for a table.

use super::{Format, table};
use crate::term::{Style, visible};
use anyhow::Result;
use serde_json::Value;
use std::io::Write;

/// Which resources a listing holds (their table and csv columns differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// SCIM Users.
    Users,
    /// SCIM Groups.
    Groups,
}

/// How a listing is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    /// One resource a line, as sent.
    Ndjson,
    /// One JSON array.
    Json,
    /// One YAML sequence.
    Yaml,
    /// RFC 4180, a header row first.
    Csv,
    /// Only the ids, one a line (`--ids`).
    Ids,
    /// A table.
    Table,
}

impl ListFormat {
    /// The list format for a command's `-o`; `None` for a format lists do not write.
    pub fn of(format: Format) -> Option<ListFormat> {
        Some(match format {
            Format::Ndjson => ListFormat::Ndjson,
            Format::Json => ListFormat::Json,
            Format::Yaml => ListFormat::Yaml,
            Format::Csv => ListFormat::Csv,
            Format::Table => ListFormat::Table,
            _ => return None,
        })
    }
}

/// A listing being written.
pub struct ListWriter<W: Write> {
    out: W,
    format: ListFormat,
    kind: Kind,
    style: Style,
    written: usize,
    /// `table`: the cells of every row.
    rows: Vec<Vec<String>>,
}

/// An attribute of a resource: the exact key, else any case (RFC 7643 §2.1).
fn attr<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let obj = v.as_object()?;
    obj.get(name).or_else(|| {
        obj.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// `active` as true/false, also from the strings some servers send.
fn active(v: &Value) -> String {
    match attr(v, "active") {
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => "true".into(),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => "false".into(),
        other => text(other),
    }
}

/// The primary email, else the first.
fn email(v: &Value) -> String {
    let Some(emails) = attr(v, "emails").and_then(Value::as_array) else {
        return String::new();
    };
    let primary = emails
        .iter()
        .find(|e| attr(e, "primary").is_some_and(|p| p == true || p == "true"));
    text(primary.or(emails.first()).and_then(|e| attr(e, "value")))
}

/// displayName, else name.formatted, else given and family names.
fn display_name(v: &Value) -> String {
    if let Some(d) = attr(v, "displayName").and_then(Value::as_str) {
        return d.to_owned();
    }
    let name = attr(v, "name");
    if let Some(f) = name
        .and_then(|n| attr(n, "formatted"))
        .and_then(Value::as_str)
    {
        return f.to_owned();
    }
    let part = |p: &str| text(name.and_then(|n| attr(n, p)));
    [part("givenName"), part("familyName")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn members(v: &Value) -> usize {
    attr(v, "members")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

impl Kind {
    fn table_header(self) -> &'static [&'static str] {
        match self {
            Kind::Users => &["ID", "USERNAME", "ACTIVE", "NAME", "EMAIL"],
            Kind::Groups => &["ID", "DISPLAYNAME", "MEMBERS"],
        }
    }

    fn table_row(self, v: &Value) -> Vec<String> {
        match self {
            Kind::Users => vec![
                text(attr(v, "id")),
                text(attr(v, "userName")),
                active(v),
                display_name(v),
                email(v),
            ],
            Kind::Groups => vec![
                text(attr(v, "id")),
                text(attr(v, "displayName")),
                members(v).to_string(),
            ],
        }
    }

    fn csv_header(self) -> &'static [&'static str] {
        match self {
            Kind::Users => &[
                "id",
                "userName",
                "active",
                "externalId",
                "givenName",
                "familyName",
                "email",
            ],
            Kind::Groups => &["id", "displayName", "externalId", "members"],
        }
    }

    fn csv_row(self, v: &Value) -> Vec<String> {
        match self {
            Kind::Users => {
                let name = attr(v, "name");
                vec![
                    text(attr(v, "id")),
                    text(attr(v, "userName")),
                    active(v),
                    text(attr(v, "externalId")),
                    text(name.and_then(|n| attr(n, "givenName"))),
                    text(name.and_then(|n| attr(n, "familyName"))),
                    email(v),
                ]
            }
            Kind::Groups => vec![
                text(attr(v, "id")),
                text(attr(v, "displayName")),
                text(attr(v, "externalId")),
                members(v).to_string(),
            ],
        }
    }
}

impl<W: Write> ListWriter<W> {
    /// A listing of `kind` to `out`.
    pub fn new(out: W, format: ListFormat, kind: Kind, style: Style) -> ListWriter<W> {
        ListWriter {
            out,
            format,
            kind,
            style,
            written: 0,
            rows: Vec::new(),
        }
    }

    /// One resource as the server sent it (`raw` is its JSON text), with its id if known.
    pub fn push_raw(&mut self, raw: &str, id: Option<&str>) -> Result<()> {
        match self.format {
            // As sent, unless the server pretty-printed it over several lines.
            ListFormat::Ndjson if memchr::memchr2(b'\n', b'\r', raw.as_bytes()).is_none() => {
                self.out.write_all(raw.as_bytes())?;
                self.out.write_all(b"\n")?;
                self.written += 1;
                return Ok(());
            }
            ListFormat::Ids => {
                if let Some(id) = id {
                    writeln!(self.out, "{}", visible(id))?;
                    self.written += 1;
                    return Ok(());
                }
            }
            _ => {}
        }
        let value: Value = serde_json::from_str(raw)?;
        self.push(&value)
    }

    /// One resource.
    pub fn push(&mut self, v: &Value) -> Result<()> {
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            ListFormat::Ndjson => {
                serde_json::to_writer(&mut self.out, v)?;
                self.out.write_all(b"\n")?;
            }
            ListFormat::Ids => {
                // A resource without an id has nothing to print here.
                match attr(v, "id") {
                    Some(id @ (Value::String(_) | Value::Number(_))) => {
                        writeln!(self.out, "{}", visible(&text(Some(id))))?
                    }
                    _ => self.written -= 1,
                }
            }
            ListFormat::Json => {
                self.out
                    .write_all(if first { b"[\n  " } else { b",\n  " })?;
                let pretty = serde_json::to_vec_pretty(v)?;
                // Indented one level, as a pretty-printed array would have it.
                for (i, line) in pretty.split(|&b| b == b'\n').enumerate() {
                    if i > 0 {
                        self.out.write_all(b"\n  ")?;
                    }
                    self.out.write_all(line)?;
                }
            }
            ListFormat::Yaml => {
                let item = serde_norway::to_string(std::slice::from_ref(v))?;
                self.out.write_all(item.as_bytes())?;
            }
            ListFormat::Csv => {
                // The csv crate quotes as RFC 4180 says; a writer per record keeps no state.
                let mut csv = csv::WriterBuilder::new()
                    .has_headers(false)
                    .buffer_capacity(1024)
                    .from_writer(&mut self.out);
                if first {
                    csv.write_record(self.kind.csv_header())?;
                }
                csv.write_record(self.kind.csv_row(v))?;
                csv.flush()?;
            }
            ListFormat::Table => self.rows.push(
                self.kind
                    .table_row(v)
                    .iter()
                    .map(|c| visible(c).into_owned())
                    .collect(),
            ),
        }
        Ok(())
    }

    /// The end of a page: what was written reaches the reader now.
    pub fn flush(&mut self) -> Result<()> {
        Ok(self.out.flush()?)
    }

    /// Close the listing (the array's bracket, the table) and flush.
    pub fn finish(mut self) -> Result<()> {
        match self.format {
            ListFormat::Json if self.written == 0 => self.out.write_all(b"[]\n")?,
            ListFormat::Json => self.out.write_all(b"\n]\n")?,
            ListFormat::Yaml if self.written == 0 => self.out.write_all(b"[]\n")?,
            ListFormat::Csv if self.written == 0 => {
                let mut csv = csv::Writer::from_writer(&mut self.out);
                csv.write_record(self.kind.csv_header())?;
                csv.flush()?;
            }
            ListFormat::Table if !self.rows.is_empty() => {
                let mut t = table(self.style);
                t.set_header(super::headers(
                    self.style,
                    self.kind.table_header().iter().copied(),
                ));
                for row in std::mem::take(&mut self.rows) {
                    t.add_row(row);
                }
                super::write_table(&mut self.out, &mut t)?;
            }
            _ => {}
        }
        self.flush()
    }
}

/// A Group as `scim groups get` shows it in a table: its id, name and member count, then one
/// row per member (value, display).
pub fn write_group_table(out: &mut impl Write, group: &Value, style: Style) -> Result<()> {
    let mut head = ListWriter::new(&mut *out, ListFormat::Table, Kind::Groups, style);
    head.push(group)?;
    head.finish()?;
    let list = attr(group, "members")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if list.is_empty() {
        return Ok(());
    }
    let mut t = table(style);
    t.set_header(super::headers(style, ["MEMBER", "DISPLAY"]));
    for m in &list {
        t.add_row(vec![
            visible(&text(attr(m, "value"))).into_owned(),
            visible(&text(attr(m, "display"))).into_owned(),
        ]);
    }
    writeln!(out)?;
    super::write_table(out, &mut t)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(format: ListFormat, users: &[&str]) -> String {
        let mut out = Vec::new();
        let mut w = ListWriter::new(&mut out, format, Kind::Users, Style::default());
        for u in users {
            w.push_raw(u, None).unwrap();
        }
        w.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    const ANN: &str = r#"{"id":"1","userName":"ann@x","active":"False","name":{"givenName":"Ann","familyName":"Lee"},"emails":[{"value":"a@w"},{"value":"ann@x","primary":true}]}"#;
    const BO: &str = "{\"id\": \"2\",\n \"userName\": \"bo,\\\"b\"}";

    #[test]
    fn ndjson_is_as_sent_on_one_line() {
        assert_eq!(
            render(ListFormat::Ndjson, &[ANN, BO]),
            format!("{ANN}\n{{\"id\":\"2\",\"userName\":\"bo,\\\"b\"}}\n")
        );
    }

    #[test]
    fn documents_are_one_array_or_sequence() {
        let all: Value = serde_json::from_str(&render(ListFormat::Json, &[ANN, BO])).unwrap();
        assert_eq!(all[1]["userName"], "bo,\"b");
        assert_eq!(render(ListFormat::Json, &[]), "[]\n");
        let all: Value = serde_norway::from_str(&render(ListFormat::Yaml, &[ANN, BO])).unwrap();
        assert_eq!(all[0]["name"]["familyName"], "Lee");
        assert_eq!(render(ListFormat::Yaml, &[]), "[]\n");
    }

    #[test]
    fn csv_has_the_columns_of_cli_md() {
        assert_eq!(
            render(ListFormat::Csv, &[ANN, BO]),
            "id,userName,active,externalId,givenName,familyName,email\n\
             1,ann@x,false,,Ann,Lee,ann@x\n2,\"bo,\"\"b\",,,,,\n"
        );
    }

    #[test]
    fn tables_show_the_names_and_primary_email() {
        let t = render(ListFormat::Table, &[ANN]);
        assert!(t.contains("USERNAME") && t.contains("Ann Lee"), "{t}");
        assert!(t.contains("ann@x") && t.contains("false"), "{t}");
        let mut out = Vec::new();
        write_group_table(
            &mut out,
            &json!({"id": "g", "displayName": "Team", "members": [{"value": "1", "display": "ann@x"}]}),
            Style::default(),
        )
        .unwrap();
        let t = String::from_utf8(out).unwrap();
        assert!(
            t.contains("Team") && t.contains("MEMBER") && t.contains("ann@x"),
            "{t}"
        );
    }
}
