//! Frames and results -> text, tables, JSON, YAML and NDJSON, plus the terminal conventions
//! (colour, which format is the default) that every command shares.

pub mod chart;
pub mod chat;
pub mod chat_doc;
pub mod chat_text;
pub mod numbers;
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

/// A table that draws colour itself: cells are coloured with comfy-table's own `Cell::fg`, so
/// column widths are measured on the plain text and escape codes never count as width. Colour
/// follows `style` (our `--color`/`NO_COLOR` decision), not comfy-table's own look at stdout.
pub fn table(style: Style) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    if style.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table
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
