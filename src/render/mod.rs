//! Frames and results -> text, tables, JSON, YAML and NDJSON, plus the terminal conventions
//! (colour, which format is the default) that every command shares.

pub mod chart;
pub mod chat;
pub mod chat_doc;
pub mod chat_text;
pub mod numbers;
pub mod out_thread;
pub mod result_view;
pub mod rows;
pub mod scim;
pub mod scim_list;
pub mod spinner;
pub mod state_table;
pub mod table;

use crate::exit::usage;
use crate::term::Style;
use anyhow::Result;
use std::io::Write;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Human-readable text (chat, extract-final)
    Text,
    /// Raw lines as received (chat, state, scim patch)
    Ndjson,
    /// One JSON document
    Json,
    /// One YAML document
    Yaml,
    /// Only the final answer's text (chat)
    Final,
    /// A table (state, scim patch, sql)
    Table,
    /// Comma-separated values, RFC 4180 (sql)
    Csv,
    /// Tab-separated values (sql)
    Tsv,
    /// A Markdown table with a summary line (eval: $GITHUB_STEP_SUMMARY, pull-request comments)
    Markdown,
}

/// The one table style of the tool, for every command's tables: columns two spaces apart, the
/// header over a rule drawn per column, no other lines. It reads on a terminal and pastes as it
/// is into a chat, an issue or a spreadsheet (split on runs of spaces), like `gh`, `kubectl` and
/// `psql`'s plain tables; box drawing would paste as noise.
///
/// ```text
/// Country  Revenue
/// ───────  ─────────
/// Germany  1,190,000
/// France     926,300
/// ```
///
/// Colour is comfy-table's own (`Cell::fg`), so widths are measured on the plain text and escape
/// codes never count as width; it follows `style` (our `--color`/`NO_COLOR` decision), not
/// comfy-table's own look at stdout. Headers go through [`headers`]; print with [`write_table`],
/// which drops the trailing blanks of every line.
pub fn table(style: Style) -> comfy_table::Table {
    use comfy_table::{ContentLineStyle, LineStyle, TableStyle};
    const PLAIN: TableStyle = TableStyle::new()
        .header_lines(ContentLineStyle::none().junction(' '))
        .header_separator(LineStyle::none().fill('─').junction(' '))
        .content_lines(ContentLineStyle::none().junction(' '));
    let mut table = comfy_table::Table::new();
    if style.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table.load_style(PLAIN);
    table
}

/// Header cells: bold when colour is on, plain text otherwise.
pub fn headers<I, S>(style: Style, names: I) -> Vec<comfy_table::Cell>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    names
        .into_iter()
        .map(|n| {
            let cell = comfy_table::Cell::new(n.into());
            if style.color {
                cell.add_attribute(comfy_table::Attribute::Bold)
            } else {
                cell
            }
        })
        .collect()
}

/// Write a [`table`]: one padding space on the right of each column (with the column gap, two
/// spaces between columns), the blanks at the end of each line dropped.
pub fn write_table(
    out: &mut (impl Write + ?Sized),
    table: &mut comfy_table::Table,
) -> std::io::Result<()> {
    for column in table.column_iter_mut() {
        column.set_padding((0, 1));
    }
    for line in table.lines() {
        writeln!(out, "{}", trim_line_end(&line))?;
    }
    Ok(())
}

/// A table line without the blanks at its end, also those a closing colour code follows
/// (`revenue \x1b[0m` -> `revenue\x1b[0m`).
fn trim_line_end(line: &str) -> String {
    let mut rest = line.trim_end();
    let mut codes = Vec::new();
    while let Some(at) = rest.rfind("\x1b[") {
        let code = &rest[at..];
        if !code.ends_with('m')
            || code[2..code.len() - 1].contains(|c: char| !c.is_ascii_digit() && c != ';')
        {
            break;
        }
        codes.push(code);
        rest = rest[..at].trim_end();
    }
    let mut out = rest.to_owned();
    out.extend(codes.into_iter().rev());
    out
}

#[cfg(test)]
mod table_tests {
    use super::trim_line_end;

    #[test]
    fn trailing_blanks_go_also_before_colour_codes() {
        assert_eq!(trim_line_end("a  b  "), "a  b");
        assert_eq!(
            trim_line_end("\x1b[1ma\x1b[0m  \x1b[1mb \x1b[0m"),
            "\x1b[1ma\x1b[0m  \x1b[1mb\x1b[0m"
        );
        assert_eq!(trim_line_end("x \x1b[0m \x1b[39m "), "x\x1b[0m\x1b[39m");
        assert_eq!(trim_line_end("plain"), "plain");
    }
}

/// [`write_table`] into a string (no newline after the last line).
pub fn table_string(table: &mut comfy_table::Table) -> String {
    let mut out = Vec::new();
    write_table(&mut out, table).expect("writing to memory");
    let mut s = String::from_utf8(out).expect("comfy-table writes UTF-8");
    s.truncate(s.trim_end_matches('\n').len());
    s
}

/// The output format: the one asked for if the command takes it, else the default for a
/// terminal or a pipe.
pub fn pick_format(
    requested: Option<Format>,
    allowed: &[Format],
    on_terminal: Format,
    otherwise: Format,
    command: &str,
) -> Result<Format> {
    match requested {
        None => Ok(if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            on_terminal
        } else {
            otherwise
        }),
        Some(f) if allowed.contains(&f) => Ok(f),
        Some(f) => Err(usage(format!(
            "-o {}: {command} writes {}",
            format_name(f),
            allowed
                .iter()
                .map(|f| format_name(*f))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The name of a format as written on the command line.
pub fn format_name(f: Format) -> &'static str {
    match f {
        Format::Text => "text",
        Format::Ndjson => "ndjson",
        Format::Json => "json",
        Format::Yaml => "yaml",
        Format::Final => "final",
        Format::Table => "table",
        Format::Csv => "csv",
        Format::Tsv => "tsv",
        Format::Markdown => "markdown",
    }
}

/// Write a value as pretty JSON or YAML, ending with a newline.
pub fn write_document(
    out: &mut impl Write,
    value: &serde_json::Value,
    format: Format,
) -> Result<()> {
    match format {
        Format::Yaml => {
            let text = serde_norway::to_string(value)?;
            out.write_all(text.as_bytes())?;
        }
        _ => {
            serde_json::to_writer_pretty(&mut *out, value)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_checked_per_command() {
        let e = pick_format(
            Some(Format::Table),
            &[Format::Text, Format::Json],
            Format::Text,
            Format::Text,
            "extract-final",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "-o table: extract-final writes text, json");
    }
}
