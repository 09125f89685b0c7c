//! SCIM attribute paths and value filters (RFC 7644 3.5.2 and 3.4.2.2): `active`,
//! `name.givenName`, `emails[primary eq true].value`, URN-qualified names, and the filter
//! grammar shared by PATCH paths and list queries.

use crate::protocol::scim::{ENTERPRISE_USER_URN, USER_URN};
use serde_json::Value;
use std::cmp::Ordering;

/// A PATCH failure: the RFC's `scimType` and a detail for the client. Defined here, below
/// `scim_patch`, because a path that does not parse is the first such failure.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PatchError {
    /// `invalidPath`, `invalidValue`, `noTarget`, `mutability` or `invalidFilter`.
    pub scim_type: &'static str,
    /// What is wrong.
    pub detail: String,
}

/// A [`PatchError`] of this type and detail.
pub(super) fn err(scim_type: &'static str, detail: impl Into<String>) -> PatchError {
    PatchError {
        scim_type,
        detail: detail.into(),
    }
}

/// A parsed attribute path.
#[derive(Debug, PartialEq)]
pub(super) struct Path {
    /// An extension schema URN: the rest of the path is inside that extension's object.
    pub(super) ext: Option<String>,
    pub(super) attr: String,
    pub(super) filter: Option<Filter>,
    pub(super) sub: Option<String>,
}

/// A filter: alternatives (`or`) of conjunctions (`and`) of comparisons, as in value paths
/// (`emails[type eq "work"]`) and list queries (`userName eq "a@b.c"`).
#[derive(Debug, PartialEq)]
pub(crate) struct Filter(Vec<Vec<Cmp>>);

#[derive(Debug, PartialEq)]
struct Cmp {
    attr: String,
    op: String,
    value: Option<Value>,
}

pub(super) fn parse_path(raw: &str) -> Result<Path, PatchError> {
    let invalid = |why: &str| err("invalidPath", format!("path {raw:?}: {why}"));
    let rest = raw.trim();
    let core_prefix = format!("{USER_URN}:");
    if rest.len() > core_prefix.len()
        && rest[..core_prefix.len()].eq_ignore_ascii_case(&core_prefix)
    {
        return parse_in(raw, &rest[core_prefix.len()..]);
    }
    if !is_urn(rest) {
        return parse_in(raw, rest);
    }
    if rest.eq_ignore_ascii_case(ENTERPRISE_USER_URN) {
        // The whole extension object.
        return Ok(Path {
            ext: None,
            attr: ENTERPRISE_USER_URN.to_owned(),
            filter: None,
            sub: None,
        });
    }
    // An extension schema: the URN up to the last ':', then a path inside its object.
    let (urn, inner) = rest.rsplit_once(':').ok_or_else(|| invalid("bad URN"))?;
    let mut path = parse_in(raw, inner)?;
    path.ext = Some(urn.to_owned());
    Ok(path)
}

fn is_urn(s: &str) -> bool {
    s.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("urn:"))
}

/// A path without a schema URN: `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`.
fn parse_in(raw: &str, mut rest: &str) -> Result<Path, PatchError> {
    let invalid = |why: &str| err("invalidPath", format!("path {raw:?}: {why}"));
    let end = rest.find(['[', '.']).unwrap_or(rest.len());
    let attr = &rest[..end];
    if !is_name(attr) {
        return Err(invalid("expected an attribute name"));
    }
    rest = &rest[end..];
    let mut filter = None;
    if let Some(inner) = rest.strip_prefix('[') {
        let close = closing_bracket(inner).ok_or_else(|| invalid("unclosed ["))?;
        filter = Some(parse_filter(&inner[..close]).map_err(|why| invalid(&why))?);
        rest = &inner[close + 1..];
    }
    let sub = match rest.strip_prefix('.') {
        Some(sub) if is_name(sub) => Some(sub.to_owned()),
        Some(_) => return Err(invalid("expected one sub-attribute name after '.'")),
        None if rest.is_empty() => None,
        None => return Err(invalid("unexpected text after the attribute")),
    };
    Ok(Path {
        ext: None,
        attr: attr.to_owned(),
        filter,
        sub,
    })
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
}

/// The index of the `]` closing a filter, skipping brackets inside quoted strings.
fn closing_bracket(s: &str) -> Option<usize> {
    let (mut in_str, mut escaped) = (false, false);
    for (i, c) in s.char_indices() {
        match (in_str, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_str = false,
            (false, _, '"') => in_str = true,
            (false, _, ']') => return Some(i),
            _ => {}
        }
    }
    None
}

/// Split a filter into words, keeping quoted strings (with escapes) as single JSON words.
fn words(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut escaped = false;
            let end = loop {
                match chars.next() {
                    Some((_, '\\')) if !escaped => escaped = true,
                    Some((i, '"')) if !escaped => break i,
                    Some(_) => escaped = false,
                    None => return Err("unterminated string in filter".into()),
                }
            };
            out.push(s[start..=end].to_owned());
        } else {
            let mut end = s.len();
            while let Some(&(i, c)) = chars.peek() {
                if c.is_whitespace() {
                    end = i;
                    break;
                }
                chars.next();
            }
            out.push(s[start..end].to_owned());
        }
    }
    Ok(out)
}

pub(super) fn parse_filter(s: &str) -> Result<Filter, String> {
    let words = words(s)?;
    let mut alternatives = vec![Vec::new()];
    let mut i = 0;
    let mut dangling = false;
    while i < words.len() {
        let attr = &words[i];
        if attr_segments(attr).is_none() {
            return Err(format!(
                "filter: expected an attribute name, found {attr:?}"
            ));
        }
        let op = words
            .get(i + 1)
            .ok_or("filter: expected an operator")?
            .to_ascii_lowercase();
        let value = if op == "pr" {
            i += 2;
            None
        } else if ["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"].contains(&op.as_str()) {
            let raw = words.get(i + 2).ok_or("filter: expected a value")?;
            i += 3;
            Some(serde_json::from_str(raw).map_err(|_| format!("filter: {raw:?} is not a value"))?)
        } else {
            return Err(format!("filter: unknown operator {op:?}"));
        };
        let last = alternatives.len() - 1;
        alternatives[last].push(Cmp {
            attr: attr.clone(),
            op,
            value,
        });
        dangling = true;
        match words.get(i).map(|w| w.to_ascii_lowercase()).as_deref() {
            None => dangling = false,
            Some("and") => i += 1,
            Some("or") => {
                i += 1;
                alternatives.push(Vec::new());
            }
            Some(w) => return Err(format!("filter: expected and/or, found {w:?}")),
        }
    }
    if dangling {
        return Err("filter: ends with and/or".into());
    }
    if alternatives[0].is_empty() {
        return Err("empty filter".into());
    }
    Ok(Filter(alternatives))
}

impl Filter {
    /// Parse a filter expression; the error says what is wrong.
    pub(crate) fn parse(s: &str) -> Result<Filter, String> {
        parse_filter(s)
    }

    /// Whether a JSON object satisfies the filter.
    pub(crate) fn matches(&self, item: &Value) -> bool {
        self.0.iter().any(|all| all.iter().all(|c| c.matches(item)))
    }
}

/// An attribute path outside brackets (`userName`, `name.givenName`, URN-qualified, or a whole
/// extension's URN) as the keys to follow; `None` when it is not one.
pub(crate) fn attr_segments(path: &str) -> Option<Vec<String>> {
    let path = path.trim();
    let core_prefix = format!("{USER_URN}:");
    let (mut out, rest) = if path.len() > core_prefix.len()
        && path[..core_prefix.len()].eq_ignore_ascii_case(&core_prefix)
    {
        (Vec::new(), &path[core_prefix.len()..])
    } else if path.eq_ignore_ascii_case(ENTERPRISE_USER_URN) {
        return Some(vec![ENTERPRISE_USER_URN.to_owned()]);
    } else if is_urn(path) {
        let (urn, rest) = path.rsplit_once(':')?;
        (vec![urn.to_owned()], rest)
    } else {
        (Vec::new(), path)
    };
    for part in rest.split('.') {
        if !is_name(part) {
            return None;
        }
        out.push(part.to_owned());
    }
    Some(out)
}

/// The values at a path of keys (case-insensitive); a multi-valued attribute on the way
/// contributes each of its values.
pub(crate) fn values_at<'a>(item: &'a Value, segments: &[String]) -> Vec<&'a Value> {
    let mut found = vec![item];
    for seg in segments {
        let mut next = Vec::new();
        for v in found {
            let got = v.as_object().and_then(|o| {
                o.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(seg))
                    .map(|(_, v)| v)
            });
            match got {
                Some(Value::Array(items)) => next.extend(items.iter()),
                Some(v) => next.push(v),
                None => {}
            }
        }
        found = next;
    }
    found
}

impl Cmp {
    fn matches(&self, item: &Value) -> bool {
        let segments = attr_segments(&self.attr).unwrap_or_default();
        let got = values_at(item, &segments);
        if got.is_empty() {
            return self.compare(None);
        }
        if self.op == "ne" {
            return got.iter().all(|g| self.compare(Some(g)));
        }
        got.iter().any(|g| self.compare(Some(g)))
    }

    fn compare(&self, got: Option<&Value>) -> bool {
        let (got, want) = match (got, &self.value) {
            (got, None) => return got.is_some_and(|v| !v.is_null()),
            (None, Some(want)) => return self.op == "ne" && !want.is_null(),
            (Some(g), Some(w)) => (g, w),
        };
        let lower = |v: &Value| v.as_str().map(str::to_lowercase);
        let order = match (got, want) {
            (Value::String(_), Value::String(_)) => lower(got).cmp(&lower(want)),
            (Value::Number(a), Value::Number(b)) => a
                .as_f64()
                .partial_cmp(&b.as_f64())
                .unwrap_or(Ordering::Less),
            _ if got == want => Ordering::Equal,
            // Lenient like the lenient readers: "True" matches true.
            (Value::String(s), Value::Bool(b)) | (Value::Bool(b), Value::String(s))
                if s.eq_ignore_ascii_case(&b.to_string()) =>
            {
                Ordering::Equal
            }
            _ => return self.op == "ne",
        };
        let (g, w) = (
            lower(got).unwrap_or_default(),
            lower(want).unwrap_or_default(),
        );
        match self.op.as_str() {
            "eq" => order == Ordering::Equal,
            "ne" => order != Ordering::Equal,
            "co" => g.contains(&w),
            "sw" => g.starts_with(&w),
            "ew" => g.ends_with(&w),
            "gt" => order == Ordering::Greater,
            "ge" => order != Ordering::Less,
            "lt" => order == Ordering::Less,
            _ => order != Ordering::Greater,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filters_parse() {
        let f = parse_filter(r#"type eq "a]b\"c" or primary pr"#).unwrap();
        assert_eq!(f.0.len(), 2);
        assert!(f.matches(&json!({"type": "A]B\"C"})));
        assert!(f.matches(&json!({"primary": false})));
        assert!(!f.matches(&json!({"type": "x"})));
        assert!(parse_filter("").is_err());
        assert!(parse_filter("a eq 1 and").is_err());
        assert!(parse_filter("a zz 1").is_err());
        assert!(parse_filter("a eq \"open").is_err());
    }
}
