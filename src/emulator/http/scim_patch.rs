//! SCIM PATCH (RFC 7644 3.5.2) over a User's attributes: each operation applied at its path
//! (parsed in [`super::scim_path`]), whole values, filtered multi-valued members, mutability.

use super::scim_path::{Filter, PatchError, Path, err, parse_path};
use crate::protocol::scim::{ENTERPRISE_USER_URN, Op, Operation};
use serde_json::{Map, Value};

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
    if !super::scim_schema::defines(path.ext.as_deref(), &path.attr, path.sub.as_deref()) {
        let named = match (&path.ext, &path.sub) {
            (Some(urn), Some(sub)) => format!("{urn}:{}.{sub}", path.attr),
            (Some(urn), None) => format!("{urn}:{}", path.attr),
            (None, Some(sub)) => format!("{}.{sub}", path.attr),
            (None, None) => path.attr.clone(),
        };
        return Err(unknown_attribute(&named));
    }
    if let Some(v) = value {
        check_value(path, v)?;
    }
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

/// The `invalidPath` of a name the published schemas do not define.
fn unknown_attribute(name: &str) -> PatchError {
    err(
        "invalidPath",
        format!(
            "{name:?} is not an attribute of the User schemas this server publishes (GET /Schemas)"
        ),
    )
}

/// A value's own keys must be attributes too: the sub-attributes of a complex attribute
/// (`name: {givenNam: ...}`, each object of `emails: [{valu: ...}]`), the enterprise
/// extension's attributes in its object. Stored, a typo there would report success as one in
/// the path would.
fn check_value(path: &Path, value: &Value) -> Result<(), PatchError> {
    if path.sub.is_some() {
        return Ok(());
    }
    if path.ext.is_none() && path.attr.eq_ignore_ascii_case(ENTERPRISE_USER_URN) {
        let Value::Object(map) = value else {
            return Ok(());
        };
        // A client may write the extension as a resource of its own, with its `schemas`.
        for (key, inner) in map
            .iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("schemas"))
        {
            let inner_path = Path {
                ext: Some(ENTERPRISE_USER_URN.to_owned()),
                attr: key.clone(),
                filter: None,
                sub: None,
            };
            if !super::scim_schema::defines(Some(ENTERPRISE_USER_URN), key, None) {
                return Err(unknown_attribute(&format!("{ENTERPRISE_USER_URN}:{key}")));
            }
            check_value(&inner_path, inner)?;
        }
        return Ok(());
    }
    let Some(subs) = super::scim_schema::sub_attributes(path.ext.as_deref(), &path.attr) else {
        return Ok(());
    };
    let objects: Vec<&Map<String, Value>> = match value {
        Value::Object(m) => vec![m],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    for key in objects.iter().flat_map(|m| m.keys()) {
        if !subs.iter().any(|s| s.eq_ignore_ascii_case(key)) {
            return Err(unknown_attribute(&format!("{}.{key}", path.attr)));
        }
    }
    Ok(())
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

#[cfg(test)]
#[path = "scim_patch_tests.rs"]
mod tests;
