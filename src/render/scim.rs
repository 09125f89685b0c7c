//! Results of `scim patch`: one per user, as NDJSON lines (written as each finishes), a table,
//! or one JSON/YAML document.

use super::{table, write_document};
use crate::exit::Status;
use crate::protocol::scim::User;
use crate::render::Format;
use crate::term::{Style, visible};
use anyhow::Result;
use serde_json::{Map, Value, json};
use std::io::Write;

/// What became of one user.
#[derive(Clone, Debug)]
pub struct PatchResult {
    /// Input order, so documents list users as given even though they finish in any order.
    pub seq: usize,
    /// The id patched; `None` when a userName lookup found none (or several).
    pub id: Option<String>,
    /// The userName the id was looked up from, if it was.
    pub user_name: Option<String>,
    /// HTTP status of the PATCH (or of the failed lookup); `None` when no answer came.
    pub status: Option<u16>,
    /// The User the server sent back.
    pub user: Option<Value>,
    /// Why it failed; `None` on success.
    pub error: Option<String>,
    /// The exit status this result maps to (success or the failure's).
    pub exit: Status,
}

impl PatchResult {
    /// Whether this user was patched as asked.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// `{"id", "status", "user" | "error"}`, plus `"userName"` when the id came from a lookup.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        if let Some(name) = &self.user_name {
            m.insert("userName".into(), json!(name));
        }
        m.insert("status".into(), json!(self.status));
        match &self.error {
            Some(e) => m.insert("error".into(), json!(e)),
            None => m.insert("user".into(), self.user.clone().unwrap_or(Value::Null)),
        };
        Value::Object(m)
    }
}

/// One NDJSON line, flushed so a reader sees each user as it finishes.
pub fn write_ndjson(out: &mut impl Write, r: &PatchResult) -> Result<()> {
    serde_json::to_writer(&mut *out, &r.to_json())?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// All results at the end: a table, or one document. A single user's JSON/YAML document is the
/// User resource itself (nothing for a 204 or a failure), as `curl | jq` users expect.
pub fn write_all(
    out: &mut impl Write,
    results: &[PatchResult],
    format: Format,
    single: bool,
    style: Style,
) -> Result<()> {
    match format {
        Format::Table => write_table(out, results, style),
        Format::Ndjson => results.iter().try_for_each(|r| write_ndjson(out, r)),
        _ if single => match results.first().and_then(|r| r.user.as_ref()) {
            Some(user) => write_document(out, user, format),
            None => Ok(()),
        },
        _ => {
            let all = Value::Array(results.iter().map(PatchResult::to_json).collect());
            write_document(out, &all, format)
        }
    }
}

fn write_table(out: &mut impl Write, results: &[PatchResult], style: Style) -> Result<()> {
    use comfy_table::{Cell, Color};
    let mut table = table(style);
    table.set_header(super::headers(
        style,
        ["ID", "STATUS", "USERNAME", "ACTIVE", "ERROR"],
    ));
    for r in results {
        let user = r.user.as_ref().and_then(User::from_value);
        let user_name = user
            .as_ref()
            .and_then(|u| u.user_name.0.clone())
            .or_else(|| r.user_name.clone())
            .unwrap_or_default();
        let active = user
            .as_ref()
            .and_then(|u| u.active.0)
            .map(|a| a.to_string())
            .unwrap_or_default();
        let status = r.status.map_or("-".to_owned(), |s| s.to_string());
        // Coloured by the table, not with escape codes in the text, so the column keeps its width.
        let status = Cell::new(status).fg(if r.ok() {
            Color::DarkGreen
        } else {
            Color::DarkRed
        });
        table.add_row(vec![
            Cell::new(visible(r.id.as_deref().unwrap_or("-")).into_owned()),
            status,
            Cell::new(visible(&user_name).into_owned()),
            Cell::new(active),
            Cell::new(visible(r.error.as_deref().unwrap_or_default()).into_owned()),
        ]);
    }
    super::write_table(out, &mut table)?;
    Ok(())
}

/// `patched 9998 of 10000 users; 2 failed`.
pub fn summary(ok: usize, total: usize) -> String {
    let failed = total - ok;
    let noun = if total == 1 { "user" } else { "users" };
    if failed == 0 {
        format!("patched {ok} of {total} {noun}")
    } else {
        format!("patched {ok} of {total} {noun}; {failed} failed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, error: Option<&str>) -> PatchResult {
        PatchResult {
            seq: 0,
            id: Some(id.into()),
            user_name: None,
            status: Some(if error.is_some() { 404 } else { 200 }),
            user: error
                .is_none()
                .then(|| json!({"id": id, "userName": "ann@x", "active": "False"})),
            error: error.map(str::to_owned),
            exit: Status::Success,
        }
    }

    #[test]
    fn ndjson_lines_carry_user_or_error() {
        let mut out = Vec::new();
        write_ndjson(&mut out, &result("1", None)).unwrap();
        write_ndjson(&mut out, &result("2", Some("HTTP 404"))).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["user"]["userName"], "ann@x");
        assert_eq!(
            lines[1],
            json!({"id": "2", "status": 404, "error": "HTTP 404"})
        );
    }

    #[test]
    fn tables_and_summaries() {
        let mut out = Vec::new();
        let rs = [result("1", None), result("2", Some("HTTP 404 Not Found"))];
        write_all(&mut out, &rs, Format::Table, false, Style::default()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().next().unwrap().contains("USERNAME"), "{text}");
        assert!(text.contains("ann@x") && text.contains("false"), "{text}");
        assert!(text.contains("HTTP 404 Not Found"), "{text}");
        assert_eq!(
            summary(9998, 10000),
            "patched 9998 of 10000 users; 2 failed"
        );
        assert_eq!(summary(1, 1), "patched 1 of 1 user");
    }

    #[test]
    fn one_user_prints_the_resource_or_nothing() {
        let mut out = Vec::new();
        write_all(
            &mut out,
            &[result("1", None)],
            Format::Json,
            true,
            Style::default(),
        )
        .unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&out).unwrap()["id"], "1");
        let mut out = Vec::new();
        let mut r = result("1", None);
        r.user = None;
        write_all(&mut out, &[r], Format::Json, true, Style::default()).unwrap();
        assert!(out.is_empty());
    }
}
