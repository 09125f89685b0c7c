//! Frames and results -> text, tables, JSON, YAML and NDJSON, plus the terminal conventions
//! (colour, which format is the default) that every command shares.

pub mod chart;
pub mod chat;
pub mod chat_doc;
pub mod chat_text;
pub mod csv;
pub mod numbers;
pub mod result_view;
pub mod rows;
pub mod scim;
pub mod spinner;
pub mod state_table;
pub mod table;

use crate::cli::{ColorChoice, Format};
use crate::exit::usage;
use crate::settings::Env;
use anyhow::Result;
use std::io::Write;

/// Which ANSI styles to use on one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Whether to emit colour codes at all.
    pub color: bool,
}

impl Style {
    /// Decide colour for a stream: `--color`, then `NO_COLOR`, then `CLICOLOR_FORCE`, then
    /// whether the stream is a terminal.
    pub fn decide(choice: ColorChoice, env: &Env, is_terminal: bool) -> Style {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if env.get("NO_COLOR").is_some() {
                    false
                } else if env.get("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                    true
                } else {
                    is_terminal
                }
            }
        };
        Style { color }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    /// Bold.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    /// Dim (secondary information).
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    /// Red (errors).
    pub fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }
    /// Green (success).
    pub fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }
    /// Yellow (warnings).
    pub fn yellow(&self, s: &str) -> String {
        self.paint("33", s)
    }
    /// Cyan (tool calls).
    pub fn cyan(&self, s: &str) -> String {
        self.paint("36", s)
    }
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
            let text = serde_yaml::to_string(value)?;
            out.write_all(text.as_bytes())?;
        }
        _ => {
            serde_json::to_writer_pretty(&mut *out, value)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// Columns of stdout: the terminal's width, else `COLUMNS`, else 80.
pub fn out_width(env: &Env) -> usize {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        if let Some((w, _)) = terminal_size::terminal_size_of(&stdout) {
            return w.0 as usize;
        }
    }
    env.get("COLUMNS")
        .and_then(|c| c.trim().parse().ok())
        .filter(|w: &usize| *w > 0)
        .unwrap_or(80)
}

/// Print a warning on stderr.
pub fn warn(message: impl std::fmt::Display) {
    diag(format_args!("analyst: warning: {message}"));
}

/// Print an error on stderr (the run may go on).
pub fn error(message: impl std::fmt::Display) {
    diag(format_args!("analyst: {message}"));
}

/// Write one line of diagnostics to stderr. Unlike `eprintln!`, a closed stderr is not a panic:
/// diagnostics are best effort, and the exit status still tells what happened.
pub fn diag(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_rules() {
        let none = Env::default();
        assert!(!Style::decide(ColorChoice::Auto, &none, false).color);
        assert!(Style::decide(ColorChoice::Auto, &none, true).color);
        assert!(
            !Style::decide(
                ColorChoice::Auto,
                &Env::from_pairs([("NO_COLOR", "1")]),
                true
            )
            .color
        );
        assert!(
            Style::decide(
                ColorChoice::Auto,
                &Env::from_pairs([("CLICOLOR_FORCE", "1")]),
                false
            )
            .color
        );
        assert!(
            !Style::decide(
                ColorChoice::Auto,
                &Env::from_pairs([("CLICOLOR_FORCE", "0")]),
                false
            )
            .color
        );
        assert!(
            Style::decide(
                ColorChoice::Always,
                &Env::from_pairs([("NO_COLOR", "1")]),
                false
            )
            .color
        );
        assert!(!Style::decide(ColorChoice::Never, &none, true).color);
    }

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
