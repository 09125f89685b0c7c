//! SCIM PATCH (RFC 7644 3.5.2) over a User's attributes: attribute paths (`active`,
//! `name.givenName`, `emails[primary eq true].value`, URN-qualified names) and value filters.

use crate::protocol::scim::{ENTERPRISE_USER_URN, Op, Operation, USER_URN};
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// A PATCH failure: the RFC's `scimType` and a detail for the client.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PatchError {
    /// `invalidPath`, `invalidValue`, `noTarget`, `mutability` or `invalidFilter`.
    pub scim_type: &'static str,
    /// What is wrong.
    pub detail: String,
}

fn err(scim_type: &'static str, detail: impl Into<String>) -> PatchError {
    PatchError {
        scim_type,
        detail: detail.into(),
    }
}

/// Attribute names of the core User schema, to store new attributes in their canonical case.
const CANONICAL: &[&str] = &[
    "userName",
    "name",
    "displayName",
    "nickName",
    "profileUrl",
    "title",
    "userType",
    "preferredLanguage",
    "locale",
    "timezone",
    "active",
    "password",
    "emails",
    "phoneNumbers",
    "ims",
    "photos",
    "addresses",
    "entitlements",
    "roles",
    "x509Certificates",
    "externalId",
    "givenName",
    "familyName",
    "middleName",
    "formatted",
    "honorificPrefix",
    "honorificSuffix",
    "value",
    "display",
    "type",
    "primary",
    "streetAddress",
    "locality",
    "region",
    "postalCode",
    "country",
    "$ref",
    ENTERPRISE_USER_URN,
    "employeeNumber",
    "costCenter",
    "organization",
    "division",
    "department",
    "manager",
    "displayName",
];

/// Attributes a client may not write.
const READ_ONLY: &[&str] = &["id", "meta", "schemas", "groups"];

/// A parsed attribute path.
#[derive(Debug, PartialEq)]
struct Path {
    /// An extension schema URN: the rest of the path is inside that extension's object.
    ext: Option<String>,
    attr: String,
    filter: Option<Filter>,
    sub: Option<String>,
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

/// Apply one (already shape-checked) operation to a user's attributes.
pub(crate) fn apply(user: &mut Map<String, Value>, op: &Operation) -> Result<(), PatchError> {
    match (&op.path, op.op) {
        (None, Op::Add | Op::Replace) => {
            let Some(Value::Object(values)) = &op.value else {
                return Err(err(
                    "invalidValue",
                    "a path-less operation needs an object value",
                ));
            };
            for (key, value) in values {
                if key.eq_ignore_ascii_case("schemas") {
                    continue;
                }
                let path = parse_path(key)?;
                apply_at(user, op.op, &path, Some(value))?;
            }
            Ok(())
        }
        (Some(p), _) => apply_at(user, op.op, &parse_path(p)?, op.value.as_ref()),
        (None, _) => Err(err("noTarget", "remove needs a path")),
    }
}

fn apply_at(
    user: &mut Map<String, Value>,
    op: Op,
    path: &Path,
    value: Option<&Value>,
) -> Result<(), PatchError> {
    let Some(urn) = &path.ext else {
        return apply_in(user, op, path, value);
    };
    let key = key_for(user, urn);
    let slot = user
        .entry(key.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(inner) = slot else {
        return Err(err(
            "invalidPath",
            format!("{key} is not an extension object"),
        ));
    };
    let outcome = apply_in(inner, op, path, value);
    // An extension with no attributes left is no longer part of the resource.
    if inner.is_empty() {
        user.remove(&key);
    }
    outcome
}

/// Apply at a path inside one object (the resource, or an extension's object).
fn apply_in(
    user: &mut Map<String, Value>,
    op: Op,
    path: &Path,
    value: Option<&Value>,
) -> Result<(), PatchError> {
    if READ_ONLY.iter().any(|r| r.eq_ignore_ascii_case(&path.attr)) {
        return Err(err("mutability", format!("{} is read-only", path.attr)));
    }
    let value = match (op, value) {
        (Op::Remove, v) => v,
        (_, Some(v)) => Some(v),
        (_, None) => return Err(err("invalidValue", format!("{op} needs a value"))),
    };
    let key = key_for(user, &path.attr);
    match (&path.filter, &path.sub) {
        (None, None) => {
            match op {
                Op::Remove => remove_whole(user, &key, value),
                Op::Add => add_whole(user, &key, value),
                Op::Replace => replace_whole(user, &key, value),
            }
            Ok(())
        }
        (None, Some(sub)) => {
            let slot = user
                .entry(key.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(obj) = slot else {
                return Err(err(
                    "invalidPath",
                    format!(
                        "{key} is not a complex attribute; use a filter like {key}[type eq \"work\"].{sub}"
                    ),
                ));
            };
            let sub_key = key_for(obj, sub);
            match (op, value) {
                (Op::Remove, _) => {
                    obj.remove(&sub_key);
                }
                (_, Some(v)) => {
                    obj.insert(sub_key, v.clone());
                }
                (_, None) => {}
            }
            if obj.is_empty() {
                user.remove(&key);
            }
            Ok(())
        }
        (Some(filter), sub) => apply_filtered(user, op, &key, filter, sub.as_deref(), value),
    }
}

fn add_whole(user: &mut Map<String, Value>, key: &str, value: Option<&Value>) {
    let Some(value) = value else { return };
    match (user.get_mut(key), value) {
        (Some(Value::Array(items)), Value::Array(new)) => {
            for v in new {
                if !items.contains(v) {
                    items.push(v.clone());
                }
            }
        }
        (Some(Value::Array(items)), v) => {
            if !items.contains(v) {
                items.push(v.clone());
            }
        }
        (Some(Value::Object(obj)), Value::Object(new)) => {
            obj.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        _ => {
            user.insert(key.to_owned(), value.clone());
        }
    }
}

fn replace_whole(user: &mut Map<String, Value>, key: &str, value: Option<&Value>) {
    let Some(value) = value else { return };
    // A complex single-valued attribute keeps the sub-attributes the value does not name.
    if let (Some(Value::Object(obj)), Value::Object(new)) = (user.get_mut(key), value) {
        for (k, v) in new {
            let k = key_for(obj, k);
            obj.insert(k, v.clone());
        }
        return;
    }
    user.insert(key.to_owned(), value.clone());
}

fn remove_whole(user: &mut Map<String, Value>, key: &str, value: Option<&Value>) {
    // `remove` with a value on a multi-valued attribute removes just those values (Azure AD).
    if let (Some(Value::Array(items)), Some(v)) = (user.get_mut(key), value) {
        let gone: Vec<Value> = match v {
            Value::Array(vs) => vs.clone(),
            other => vec![other.clone()],
        };
        items.retain(|item| !gone.iter().any(|g| same_member(item, g)));
        if !items.is_empty() {
            return;
        }
    }
    user.remove(key);
}

/// Two members of a multi-valued attribute are the same when equal, or when both have equal `value`.
fn same_member(a: &Value, b: &Value) -> bool {
    a == b || (a.get("value").is_some() && a.get("value") == b.get("value"))
}

fn apply_filtered(
    user: &mut Map<String, Value>,
    op: Op,
    key: &str,
    filter: &Filter,
    sub: Option<&str>,
    value: Option<&Value>,
) -> Result<(), PatchError> {
    let Some(Value::Array(items)) = user.get_mut(key) else {
        return Err(err(
            "noTarget",
            format!("{key} has no values for the filter to match"),
        ));
    };
    let hits: Vec<usize> = (0..items.len())
        .filter(|&i| filter.matches(&items[i]))
        .collect();
    if hits.is_empty() {
        return Err(err(
            "noTarget",
            format!("no value of {key} matches the filter"),
        ));
    }
    match (op, sub) {
        (Op::Remove, None) => {
            let mut i = 0;
            items.retain(|_| {
                i += 1;
                !hits.contains(&(i - 1))
            });
        }
        (_, Some(sub)) => {
            for &i in &hits {
                let Value::Object(obj) = &mut items[i] else {
                    return Err(err(
                        "invalidPath",
                        format!("values of {key} are not complex"),
                    ));
                };
                let sub_key = key_for(obj, sub);
                match value.filter(|_| op != Op::Remove) {
                    Some(v) => obj.insert(sub_key, v.clone()),
                    None => obj.remove(&sub_key),
                };
            }
        }
        (_, None) => {
            for &i in &hits {
                match (&mut items[i], value) {
                    (Value::Object(obj), Some(Value::Object(new))) if op == Op::Add => {
                        obj.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
                    }
                    (slot, Some(v)) => *slot = v.clone(),
                    (_, None) => {}
                }
            }
        }
    }
    if items.is_empty() {
        user.remove(key);
    }
    Ok(())
}

/// The existing key matching `name` case-insensitively, else the canonical spelling, else `name`.
fn key_for(map: &Map<String, Value>, name: &str) -> String {
    if let Some(k) = map.keys().find(|k| k.eq_ignore_ascii_case(name)) {
        return k.clone();
    }
    CANONICAL
        .iter()
        .find(|c| c.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |c| (*c).to_owned())
}

fn parse_path(raw: &str) -> Result<Path, PatchError> {
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

fn parse_filter(s: &str) -> Result<Filter, String> {
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
#[path = "scim_patch_tests.rs"]
mod tests;
