//! `-o text`: the answer as it streams, one line per tool call, SQL results as tables, and
//! (with `--show-thinking`) the agent's reasoning, dimmed.

use super::chat::{ChatRender, End};
use super::result_view::{TABLE_ROWS, TextView};
use super::table::Titles;
use crate::protocol::tool::{Tool, classify, parse_input, parse_result, tool_error};
use crate::protocol::{Frame, FrameKind};
use crate::term::Style;
use anyhow::Result;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{self, Write};
use unicode_width::UnicodeWidthStr;

/// The longest SQL shown on a tool line.
const SQL_WIDTH: usize = 160;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Field {
    Content,
    Thinking,
}

/// The text renderer.
pub struct TextRender<W: Write> {
    out: W,
    style: Style,
    show_thinking: bool,
    view: TextView,
    /// Member titles from the meta tool, for table headers.
    titles: Titles,
    /// Text printed so far for messages whose complete frame has not arrived.
    printed: HashMap<(String, Field), String>,
    /// Chunks received but not printed yet: a tail that could be the start of a secret the
    /// next chunk completes (lines are masked whole; a key split across two chunks is not).
    held: HashMap<(String, Field), String>,
    masker: crate::term::Masker,
    /// What is being printed now, to separate it from the next message.
    current: Option<(String, Field)>,
    at_line_start: bool,
    /// Tool calls started but not finished: name and input.
    pending_tools: Vec<(String, String, Value)>,
    /// The text printed of the last final-answer message, for a fix-up from the state.
    last_final: Option<String>,
}

impl<W: Write> TextRender<W> {
    /// Write to `out` in `style`.
    pub fn new(out: W, style: Style, show_thinking: bool) -> Self {
        TextRender {
            out,
            style,
            show_thinking,
            view: TextView::default(),
            titles: Titles::default(),
            printed: HashMap::new(),
            held: HashMap::new(),
            masker: crate::term::Masker::now(),
            current: None,
            at_line_start: true,
            pending_tools: Vec::new(),
            last_final: None,
        }
    }

    /// Show SQL results as `view` says.
    pub fn with_view(mut self, view: TextView) -> Self {
        self.view = view;
        self
    }

    fn write(&mut self, s: &str, field: Field) -> io::Result<()> {
        if s.is_empty() {
            return Ok(());
        }
        // The service's text, its control characters shown rather than obeyed (LF, tab kept).
        self.at_line_start = s.ends_with('\n');
        let s = crate::term::visible_text(s);
        let shown = match field {
            Field::Content => s.into_owned(),
            Field::Thinking => self.style.dim(&s),
        };
        self.out.write_all(shown.as_bytes())?;
        Ok(())
    }

    fn end_line(&mut self) -> io::Result<()> {
        if !self.at_line_start {
            self.out.write_all(b"\n")?;
            self.at_line_start = true;
        }
        Ok(())
    }

    /// Text of one field of an assistant frame: chunks are printed as they come (but for a
    /// tail that could begin a secret); a complete frame prints what the chunks did not, or
    /// (when it differs from them) the whole text again. Returns the text printed of a chunk.
    fn text(&mut self, id: &str, field: Field, text: &str, delta: bool) -> io::Result<String> {
        let key = (id.to_owned(), field);
        if text.is_empty() && !self.printed.contains_key(&key) {
            // Frames carry `content: ""` next to thinking: nothing to show, nothing to switch.
            return Ok(String::new());
        }
        if self.current.as_ref() != Some(&key) {
            self.end_line()?;
            self.current = Some(key.clone());
        }
        if delta {
            let mut pending = self.held.remove(&key).unwrap_or_default();
            pending.push_str(text);
            let (shown, covered) = self.masker.streamed(&pending);
            pending.drain(..covered);
            if !pending.is_empty() {
                self.held.insert(key.clone(), pending);
            }
            self.write(&shown, field)?;
            self.printed.entry(key).or_default().push_str(&shown);
            return Ok(shown);
        }
        self.held.remove(&key);
        let printed = self.printed.remove(&key).unwrap_or_default();
        match text.strip_prefix(printed.as_str()) {
            Some(rest) => self.write(rest, field)?,
            None => {
                // The complete text is not what the chunks said: show it whole, on its own line.
                self.end_line()?;
                self.write(text, field)?;
            }
        }
        self.end_line()?;
        self.current = None;
        Ok(String::new())
    }

    fn tool(&mut self, id: &str, f: &Frame) -> io::Result<()> {
        let Some(call) = &f.tool_call else {
            return Ok(());
        };
        let name = call.name.0.clone().unwrap_or_else(|| "tool".into());
        let input = call.input.as_ref().map(parse_input).unwrap_or(Value::Null);
        let Some(result) = call.result.as_ref() else {
            if !self.pending_tools.iter().any(|(i, _, _)| i == id) {
                self.pending_tools.push((id.to_owned(), name, input));
            }
            return Ok(());
        };
        self.pending_tools.retain(|(i, _, _)| i != id);
        let result = parse_result(result);
        self.end_line()?;
        self.current = None;
        let tool = classify(&input, Some(&result));
        // One line of the terminal, cut by display width (the SQL gives way first, so the row
        // count stays): the full SQL stays in `-o json`, `--save` and `/sql`.
        let width = self.view.width;
        let line = match tool_error(&result) {
            Some(e) => {
                let line = tool_line(&name, &tool, self.view.rows, usize::MAX);
                self.style
                    .red(&super::table::cut(&format!("{line} · error: {e}"), width))
            }
            None => self.style.cyan(&super::table::cut(
                &tool_line(&name, &tool, self.view.rows, width),
                width,
            )),
        };
        writeln!(self.out, "{line}")?;
        match &tool {
            Tool::Meta {
                result: Some(meta), ..
            } => self.titles.learn(meta),
            Tool::Sql {
                input,
                result: Some(r),
            } => {
                let shown = super::result_view::show(
                    r,
                    input.vega_spec.as_deref(),
                    input.sql().or(r.sql_query.as_deref()),
                    &self.titles,
                    &self.view,
                    self.style,
                );
                if let Some(text) = shown {
                    // A blank line after the table keeps it apart from the answer that follows.
                    writeln!(self.out, "{text}\n")?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl<W: Write> ChatRender for TextRender<W> {
    fn line(&mut self, _raw: &[u8], frame: Option<&Frame>) -> io::Result<()> {
        let Some(f) = frame else {
            return Ok(());
        };
        let id = f.id.as_deref().unwrap_or("");
        match f.kind() {
            FrameKind::ToolCall => self.tool(id, f),
            FrameKind::Assistant => {
                let delta = f.is_delta();
                if self.show_thinking
                    && let Some(t) = f.thinking.as_ref()
                {
                    self.text(id, Field::Thinking, t, delta)?;
                }
                if let Some(c) = f.content.as_ref() {
                    let shown = self.text(id, Field::Content, c, delta)?;
                    if f.is_final() {
                        // What was printed of the final answer, for a fix-up from the state.
                        let so_far = self.last_final.get_or_insert_with(String::new);
                        if delta {
                            so_far.push_str(&shown);
                        } else {
                            *so_far = c.clone();
                        }
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn mid_line(&self) -> bool {
        !self.at_line_start
    }

    fn finish(&mut self, end: &End<'_>) -> Result<()> {
        if end.answer_from_state
            && let Some(answer) = end.answer
        {
            // The stream dropped mid-answer: finish the text from the thread's state.
            let printed = self.last_final.take().unwrap_or_default();
            match answer.strip_prefix(printed.as_str()) {
                Some(rest) if !printed.is_empty() => self.write(rest, Field::Content)?,
                _ => {
                    self.end_line()?;
                    self.write(answer, Field::Content)?;
                }
            }
        }
        self.end_line()?;
        for (_, name, input) in std::mem::take(&mut self.pending_tools) {
            let line = format!("{} · no result", tool_summary(&name, &input, None));
            let line = self.style.dim(&super::table::cut(&line, self.view.width));
            writeln!(self.out, "{line}")?;
        }
        Ok(self.out.flush()?)
    }
}

/// A tool call as one line (`» tool · title · SQL · rows`).
pub fn tool_summary(name: &str, input: &Value, result: Option<&Value>) -> String {
    tool_line(name, &classify(input, result), TABLE_ROWS, usize::MAX)
}

/// The line of a recognised tool; `rows` is how many rows its table shows (0 = all). The SQL
/// is cut so that the line fits `width` columns where the other parts leave it room.
fn tool_line(name: &str, tool: &Tool, rows: usize, width: usize) -> String {
    let mut parts = vec![format!("» {name}")];
    match tool {
        Tool::Sql { input, result } => {
            let title = result
                .as_ref()
                .and_then(|r| r.query_title.0.clone())
                .or_else(|| input.query_title.0.clone());
            parts.extend(title);
            let sql = input
                .sql()
                .map(str::to_owned)
                .or_else(|| result.as_ref().and_then(|r| r.sql_query.0.clone()));
            let sql_at = sql.as_ref().map(|_| parts.len());
            if let Some(sql) = &sql {
                parts.push(shorten(sql, SQL_WIDTH));
            }
            if let Some(r) = result.as_ref().filter(|r| r.data.is_some()) {
                let arrived = r.data.as_ref().map_or(0, Vec::len);
                let total = r.total_rows.unwrap_or(arrived as i64);
                let shown = if rows == 0 {
                    arrived
                } else {
                    arrived.min(rows)
                };
                parts.push(if (shown as i64) < total {
                    format!("{shown} of {total} rows shown")
                } else {
                    format!("{total} row{}", if total == 1 { "" } else { "s" })
                });
            }
            if let Some(at) = sql_at {
                let others: usize = parts
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != at)
                    .map(|(_, p)| p.width() + " · ".width())
                    .sum();
                // Room for the SQL when the other parts leave some (else the line is cut).
                if let Some(room) = width.checked_sub(others).filter(|r| *r >= 12) {
                    parts[at] = super::table::cut(&parts[at], room);
                }
            }
        }
        Tool::Meta { search, result } => {
            if let Some(s) = search {
                parts.push(format!("search {s:?}"));
            }
            if let Some(r) = result {
                let n = r.cubes.len();
                parts.push(format!("{n} cube{}", if n == 1 { "" } else { "s" }));
            }
        }
        Tool::Other => {}
    }
    parts.join(" · ")
}

/// Whitespace collapsed, cut at `width` characters.
fn shorten(s: &str, width: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > width {
        one.chars().take(width).collect::<String>() + "…"
    } else {
        one
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(lines: &[&str], end: End<'_>) -> String {
        let mut out = Vec::new();
        let mut r = TextRender::new(&mut out, Style::default(), true);
        for l in lines {
            r.line(l.as_bytes(), Frame::parse(l.as_bytes()).as_ref())
                .unwrap();
        }
        r.finish(&end).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn deltas_then_complete_print_once() {
        let out = render(
            &[
                r#"{"id":"m","role":"assistant","content":"Hel","isDelta":true,"graphPath":["final"]}"#,
                r#"{"id":"m","role":"assistant","content":"lo","isDelta":true,"graphPath":["final"]}"#,
                r#"{"id":"m","role":"assistant","content":"Hello!","isDelta":false,"graphPath":["final"]}"#,
            ],
            End::default(),
        );
        assert_eq!(out, "Hello!\n");
    }

    #[test]
    fn thinking_streams_on_its_own_line_despite_empty_content() {
        let out = render(
            &[
                r#"{"id":"k","role":"assistant","content":"","thinking":"Let me ","isDelta":true}"#,
                r#"{"id":"k","role":"assistant","content":"","thinking":"think.","isDelta":true}"#,
                r#"{"id":"k","role":"assistant","content":"","thinking":"Let me think.","isDelta":false}"#,
                r#"{"id":"m","role":"assistant","content":"Done","isDelta":false,"graphPath":["final"]}"#,
            ],
            End::default(),
        );
        assert_eq!(out, "Let me think.\nDone\n");
    }

    #[test]
    fn a_differing_complete_text_is_shown_whole() {
        let out = render(
            &[
                r#"{"id":"m","role":"assistant","content":"Helo","isDelta":true}"#,
                r#"{"id":"m","role":"assistant","content":"Hello","isDelta":false}"#,
            ],
            End::default(),
        );
        assert_eq!(out, "Helo\nHello\n");
    }

    #[test]
    fn sql_tools_get_a_line_and_a_table() {
        let result =
            serde_json::json!({"queryTitle":"Top","schema":[{"name":"cat"},{"name":"rev"}],
            "data":[["Books","10"],["Toys","5"]],"totalRows":40})
            .to_string();
        let frame = serde_json::json!({"id":"t","role":"assistant","isInProcess":false,
            "toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT cat,\n rev FROM t"},"result":result}}).to_string();
        let out = render(&[&frame], End::default());
        assert!(
            out.starts_with("» dataSqlApi · Top · SELECT cat, rev FROM t · 2 of 40 rows shown\n"),
            "{out}"
        );
        assert!(out.contains("Books"), "{out}");
    }

    #[test]
    fn an_answer_from_the_state_completes_the_printed_text() {
        let out = render(
            &[
                r#"{"id":"m","role":"assistant","content":"Books lead","isDelta":true,"graphPath":["final"]}"#,
            ],
            End {
                answer: Some("Books lead with 40%."),
                answer_from_state: true,
                ..End::default()
            },
        );
        assert_eq!(out, "Books lead with 40%.\n");
    }
}
