//! SCIM attribute paths and value filters (RFC 7644 3.5.2 and 3.4.2.2): `active`,
//! `name.givenName`, `emails[primary eq true].value`, URN-qualified names. The filter inside
//! brackets is parsed by [`super::scim_filter`], which list queries use too.

pub(crate) use super::scim_filter::Filter;
#[cfg(test)]
use super::scim_filter::attr_segments;
use super::scim_filter::{is_name, is_urn};
use crate::protocol::scim::{ENTERPRISE_USER_URN, USER_URN};

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
        filter = Some(Filter::parse(&inner[..close]).map_err(|why| invalid(&why))?);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse() {
        let p = parse_path(r#"emails[type eq "a]b"].value"#).unwrap();
        assert_eq!(
            (p.attr.as_str(), p.sub.as_deref()),
            ("emails", Some("value"))
        );
        assert!(p.filter.is_some());
        assert!(parse_path("emails[type eq \"open").is_err());
        assert!(parse_path("emails[").is_err());
        assert!(parse_path("9x").is_err());
        assert_eq!(
            attr_segments("name.givenName"),
            Some(vec!["name".to_owned(), "givenName".to_owned()])
        );
    }
}
