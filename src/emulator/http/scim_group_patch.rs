//! Membership PATCH of a group (RFC 7644 section 3.5.2) in the forms clients send: `add` to
//! `members`, `remove` at `members[value eq "ID"]`, `replace` of `displayName` or of all
//! `members`, `remove` of `members` to empty the group, and path-less `replace`.

use super::scim_groups::{Fields, GroupStore, Member, invalid, key};
use super::scim_path::{Path, parse_path};
use super::scim_schema::GROUP_URN;
use super::scim_store::{ScimStore, WriteError};
use crate::protocol::scim::{Op, Operation};
use serde_json::{Value, json};

impl GroupStore {
    /// Apply one operation to a group's fields (not yet stored).
    pub(super) fn apply(
        &self,
        fields: &mut Fields,
        op: &Operation,
        id: &str,
        users: &ScimStore,
    ) -> Result<(), WriteError> {
        let Some(raw) = &op.path else {
            let Some(Value::Object(values)) = &op.value else {
                return Err(match op.op {
                    Op::Remove => (400, Some("noTarget"), "remove needs a path".into()),
                    _ => invalid("a path-less operation needs an object value".into()),
                });
            };
            for (k, v) in values
                .iter()
                .filter(|(k, _)| !k.eq_ignore_ascii_case("schemas"))
            {
                let path = group_path(k)?;
                self.apply_at(fields, op.op, &path, Some(v), id, users)?;
            }
            return Ok(());
        };
        let path = group_path(raw)?;
        self.apply_at(fields, op.op, &path, op.value.as_ref(), id, users)
    }

    fn apply_at(
        &self,
        fields: &mut Fields,
        op: Op,
        path: &Path,
        value: Option<&Value>,
        id: &str,
        users: &ScimStore,
    ) -> Result<(), WriteError> {
        let attr = path.attr.as_str();
        let is = |name: &str| attr.eq_ignore_ascii_case(name);
        if ["id", "meta", "schemas"].iter().any(|r| is(r)) {
            return Err((400, Some("mutability"), format!("{attr} is read-only")));
        }
        let needs_value = || {
            value
                .filter(|v| !v.is_null())
                .ok_or_else(|| invalid(format!("{op} {attr} needs a value")))
        };
        if is("displayName") || is("externalId") {
            if path.filter.is_some() || path.sub.is_some() {
                return Err((
                    400,
                    Some("invalidPath"),
                    format!("{attr} is a simple attribute"),
                ));
            }
            let text = match op {
                Op::Remove => None,
                _ => match needs_value()? {
                    Value::String(s) => Some(s.clone()),
                    other => return Err(invalid(format!("{attr} must be a string, not {other}"))),
                },
            };
            if is("externalId") {
                fields.external_id = text;
            } else {
                fields.display_name = text.ok_or_else(|| {
                    (
                        400,
                        Some("mutability"),
                        "displayName is required and cannot be removed".into(),
                    )
                })?;
            }
            return Ok(());
        }
        if !is("members") {
            return Err((
                400,
                Some("invalidPath"),
                format!(
                    "{attr:?} is not an attribute of the Group schema (displayName, members, externalId)"
                ),
            ));
        }
        if path.sub.is_some() {
            return Err((
                400,
                Some("invalidPath"),
                "members' sub-attributes are immutable: add or remove whole members".into(),
            ));
        }
        let rendered = |m: &Member| json!({"value": m.value, "type": m.kind.name()});
        match (op, &path.filter) {
            (Op::Add, None) => {
                for m in self.members_of(needs_value()?, id, users)? {
                    if !fields.members.contains(&m) {
                        fields.members.push(m);
                    }
                }
            }
            (Op::Replace, None) => fields.members = self.members_of(needs_value()?, id, users)?,
            (Op::Remove, None) => match value.filter(|v| !v.is_null()) {
                // With a value (as Azure AD sends it): just those members.
                Some(v) => {
                    let named: Vec<String> = member_values(v);
                    fields.members.retain(|m| !named.contains(&m.value));
                }
                None => fields.members.clear(),
            },
            (Op::Remove, Some(filter)) => {
                // Removing a member who is not there leaves the group as it is: the outcome
                // the caller wants holds.
                fields.members.retain(|m| !filter.matches(&rendered(m)));
            }
            (Op::Replace, Some(filter)) => {
                let before = fields.members.len();
                fields.members.retain(|m| !filter.matches(&rendered(m)));
                if fields.members.len() == before {
                    return Err((400, Some("noTarget"), "no member matches the filter".into()));
                }
                for m in self.members_of(needs_value()?, id, users)? {
                    if !fields.members.contains(&m) {
                        fields.members.push(m);
                    }
                }
            }
            (Op::Add, Some(_)) => {
                return Err((
                    400,
                    Some("invalidPath"),
                    "add takes the path members (a filter selects existing members)".into(),
                ));
            }
        }
        Ok(())
    }
}

/// The `value`s named in a remove's value: `[{"value": ID}]`, `{"value": ID}` or `"ID"`.
pub(super) fn member_values(v: &Value) -> Vec<String> {
    let one = |i: &Value| match i {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => key(o, "value").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    };
    match v {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    }
}

/// A PATCH path of the Group schema: `displayName`, `members`, `members[value eq "ID"]`,
/// optionally prefixed with the Group schema's URN.
fn group_path(raw: &str) -> Result<Path, WriteError> {
    let prefix = format!("{GROUP_URN}:");
    let inner = match raw.trim() {
        r if r.len() > prefix.len() && r[..prefix.len()].eq_ignore_ascii_case(&prefix) => {
            &r[prefix.len()..]
        }
        r => r,
    };
    let path = parse_path(inner).map_err(|e| (400, Some(e.scim_type), e.detail))?;
    if path.ext.is_some() {
        return Err((
            400,
            Some("invalidPath"),
            format!("path {raw:?}: groups have no schema extensions"),
        ));
    }
    Ok(path)
}
