//! How a client asks for users and for parts of them (RFC 7644 sections 3.4.2 and 3.4.3):
//! `filter`, `sortBy`/`sortOrder`, `startIndex`/`count` and `attributes`/`excludedAttributes`,
//! from a query string or a SearchRequest body, and the projection of a rendered resource.

use super::scim_filter::{Filter, attr_segments, values_at};
use super::scim_schema::MAX_RESULTS;
use crate::protocol::scim::SEARCH_REQUEST_URN;
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// A failed parameter: `scimType` and detail (always a 400).
pub(crate) type QueryError = (&'static str, String);

/// The parameters of a list or a search, and the projection of any resource answer.
#[derive(Debug, Default)]
pub(crate) struct Query {
    pub filter: Option<Filter>,
    /// The filter as sent, a key of cached matches.
    filter_text: String,
    /// 1-based, as on the wire.
    pub start: usize,
    pub count: usize,
    sort_by: Option<Vec<String>>,
    descending: bool,
    attributes: Vec<Vec<String>>,
    excluded: Vec<Vec<String>>,
}

fn paths(what: &str, list: &str) -> Result<Vec<Vec<String>>, QueryError> {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            attr_segments(p).ok_or_else(|| {
                (
                    "invalidValue",
                    format!("{what}: {p:?} is not an attribute path"),
                )
            })
        })
        .collect()
}

impl Query {
    fn new() -> Query {
        Query {
            start: 1,
            count: 100,
            ..Query::default()
        }
    }

    fn set(&mut self, key: &str, value: &Value) -> Result<(), QueryError> {
        let text = || match value {
            Value::String(s) => Ok(s.clone()),
            Value::Array(items) => Ok(items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(",")),
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(("invalidValue", format!("{key} must be a string"))),
        };
        let number = || {
            let t = text()?;
            t.trim().parse::<i64>().map_err(|_| {
                (
                    "invalidValue",
                    format!("{key} must be a whole number, not {t:?}"),
                )
            })
        };
        match key {
            "filter" => {
                let t = text()?;
                let parsed = Filter::parse(&t).map_err(|why| ("invalidFilter", why))?;
                self.filter = Some(parsed);
                self.filter_text = t;
            }
            // RFC 7644 3.4.2.4: below 1 counts as 1; a negative count as 0.
            "startIndex" => self.start = number()?.max(1) as usize,
            "count" => self.count = (number()?.max(0) as usize).min(MAX_RESULTS),
            "sortBy" => {
                let t = text()?;
                let segments = attr_segments(&t)
                    .ok_or_else(|| ("invalidValue", format!("sortBy: {t:?} is not a path")))?;
                self.sort_by = Some(segments);
            }
            "sortOrder" => {
                self.descending = match text()?.to_ascii_lowercase().as_str() {
                    "ascending" => false,
                    "descending" => true,
                    other => {
                        return Err((
                            "invalidValue",
                            format!("sortOrder must be ascending or descending, not {other:?}"),
                        ));
                    }
                }
            }
            "attributes" => self.attributes = paths(key, &text()?)?,
            "excludedAttributes" => self.excluded = paths(key, &text()?)?,
            _ => {}
        }
        Ok(())
    }

    /// From a URL query string; unknown keys are ignored.
    pub(crate) fn from_query_string(query: &str) -> Result<Query, QueryError> {
        let mut q = Query::new();
        for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
            q.set(&key, &Value::String(value.into_owned()))?;
        }
        Ok(q)
    }

    /// From a SearchRequest body (`POST /Users/.search`).
    pub(crate) fn from_search_request(body: &Map<String, Value>) -> Result<Query, QueryError> {
        let schemas_ok = body
            .get("schemas")
            .and_then(Value::as_array)
            .is_some_and(|s| s.iter().any(|u| u.as_str() == Some(SEARCH_REQUEST_URN)));
        if !schemas_ok {
            return Err((
                "invalidSyntax",
                format!("`schemas` must contain {SEARCH_REQUEST_URN:?}"),
            ));
        }
        let mut q = Query::new();
        for (key, value) in body {
            if !value.is_null() {
                q.set(key, value)?;
            }
        }
        Ok(q)
    }

    /// Whether the answer is in another order than creation order.
    pub(crate) fn sorted(&self) -> bool {
        self.sort_by.is_some()
    }

    /// What identifies the matches of this query among resources of `kind` (paging and the
    /// projection aside): the key of cached list results.
    pub(crate) fn list_key(&self, kind: &str) -> String {
        format!(
            "{kind}\u{0}{}\u{0}{:?}\u{0}{}",
            self.filter_text, self.sort_by, self.descending
        )
    }

    /// Sort rendered resources by `sortBy` (none: creation order, as stored).
    #[cfg(test)]
    pub(crate) fn sort(&self, resources: &mut [Value]) {
        self.sort_with(resources, |v| v);
    }

    /// Sort items by the rendered resource each holds (stable: ties keep creation order).
    pub(crate) fn sort_with<T>(&self, items: &mut [T], resource: impl Fn(&T) -> &Value) {
        let Some(path) = &self.sort_by else { return };
        items.sort_by(|a, b| {
            let (a, b) = (resource(a), resource(b));
            let order = compare(sort_key(a, path), sort_key(b, path));
            if self.descending {
                order.reverse()
            } else {
                order
            }
        });
    }

    /// Keep what `attributes` asks for (and `id`, `schemas`, which are always returned), then
    /// drop what `excludedAttributes` names.
    pub(crate) fn project(&self, resource: Value) -> Value {
        let Value::Object(full) = resource else {
            return resource;
        };
        let mut out = if self.attributes.is_empty() {
            full
        } else {
            let mut out = Map::new();
            for key in ["schemas", "id"] {
                if let Some(v) = full.get(key) {
                    out.insert(key.to_owned(), v.clone());
                }
            }
            for path in &self.attributes {
                pick(&full, path, &mut out);
            }
            out
        };
        for path in &self.excluded {
            let always = path.len() == 1
                && ["id", "schemas"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(&path[0]));
            if !always {
                drop_path(&mut out, path);
            }
        }
        Value::Object(out)
    }
}

fn find_key(map: &Map<String, Value>, name: &str) -> Option<String> {
    map.keys().find(|k| k.eq_ignore_ascii_case(name)).cloned()
}

/// Copy the value at `path` from `src` into `dst`, keeping the shape around it.
fn pick(src: &Map<String, Value>, path: &[String], dst: &mut Map<String, Value>) {
    let Some(key) = find_key(src, &path[0]) else {
        return;
    };
    let value = &src[&key];
    if path.len() == 1 {
        dst.insert(key, value.clone());
        return;
    }
    match value {
        Value::Object(inner) => {
            let slot = dst
                .entry(key.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(slot) = slot {
                pick(inner, &path[1..], slot);
                if slot.is_empty() {
                    dst.remove(&key);
                }
            }
        }
        Value::Array(items) => {
            let picked: Vec<Value> = items
                .iter()
                .filter_map(|item| {
                    let mut one = Map::new();
                    pick(item.as_object()?, &path[1..], &mut one);
                    (!one.is_empty()).then_some(Value::Object(one))
                })
                .collect();
            if picked.is_empty() {
                return;
            }
            // Merge with what another path picked from the same values, index by index.
            match dst.get_mut(&key) {
                Some(Value::Array(have)) if have.len() == picked.len() => {
                    for (h, p) in have.iter_mut().zip(picked) {
                        if let (Value::Object(h), Value::Object(p)) = (h, p) {
                            h.extend(p);
                        }
                    }
                }
                _ => {
                    dst.insert(key, Value::Array(picked));
                }
            }
        }
        _ => {}
    }
}

/// Remove the value at `path`; a container left empty goes too.
fn drop_path(map: &mut Map<String, Value>, path: &[String]) {
    let Some(key) = find_key(map, &path[0]) else {
        return;
    };
    if path.len() == 1 {
        map.remove(&key);
        return;
    }
    let empty = match map.get_mut(&key) {
        Some(Value::Object(inner)) => {
            drop_path(inner, &path[1..]);
            inner.is_empty()
        }
        Some(Value::Array(items)) => {
            for item in items.iter_mut() {
                if let Value::Object(inner) = item {
                    drop_path(inner, &path[1..]);
                }
            }
            items.retain(|i| !i.as_object().is_some_and(Map::is_empty));
            items.is_empty()
        }
        _ => false,
    };
    if empty {
        map.remove(&key);
    }
}

/// The value a resource sorts by: for a multi-valued attribute, the primary value's, else the
/// first (RFC 7644 3.4.2.3).
fn sort_key<'a>(resource: &'a Value, path: &[String]) -> Option<&'a Value> {
    let (last, parents) = path.split_last()?;
    let holders = values_at(resource, parents);
    let holder = holders
        .iter()
        .find(|h| h.get("primary").and_then(Value::as_bool) == Some(true))
        .or(holders.first())?;
    values_at(holder, std::slice::from_ref(last))
        .into_iter()
        .find(|v| !v.is_null())
}

/// Unassigned values sort last (ascending); strings compare case-insensitively.
fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(Value::String(a)), Some(Value::String(b))) => a.to_lowercase().cmp(&b.to_lowercase()),
        (Some(Value::Number(a)), Some(Value::Number(b))) => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(Ordering::Equal),
        (Some(Value::Bool(a)), Some(Value::Bool(b))) => a.cmp(b),
        (Some(a), Some(b)) => a.to_string().cmp(&b.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user() -> Value {
        json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "id": "1", "userName": "ana", "title": "Boss",
            "name": {"givenName": "Ana", "familyName": "Lyst"},
            "emails": [{"value": "a@x", "type": "work"}, {"value": "b@x", "primary": true}],
            "meta": {"resourceType": "User"},
        })
    }

    #[test]
    fn attributes_keep_id_schemas_and_the_named_parts() {
        let q = Query::from_query_string("attributes=name.givenName,emails.value").unwrap();
        assert_eq!(
            q.project(user()),
            json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "id": "1",
                "name": {"givenName": "Ana"}, "emails": [{"value": "a@x"}, {"value": "b@x"}],
            })
        );
        let q = Query::from_query_string(
            "excludedAttributes=id,title,emails.type,urn:ietf:params:scim:schemas:core:2.0:User:name",
        )
        .unwrap();
        let out = q.project(user());
        assert_eq!(out["id"], "1", "id is always returned");
        assert!(out.get("title").is_none() && out.get("name").is_none());
        assert_eq!(out["emails"][0], json!({"value": "a@x"}));
    }

    #[test]
    fn sorting_uses_the_primary_value_and_puts_unassigned_last() {
        let mut rs = vec![
            json!({"id": "a", "emails": [{"value": "z@x"}, {"value": "b@x", "primary": true}]}),
            json!({"id": "b"}),
            json!({"id": "c", "emails": [{"value": "A@x"}]}),
        ];
        let q = Query::from_query_string("sortBy=emails.value").unwrap();
        q.sort(&mut rs);
        let ids: Vec<_> = rs.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["c", "a", "b"]);
        let q = Query::from_query_string("sortBy=emails.value&sortOrder=descending").unwrap();
        q.sort(&mut rs);
        assert_eq!(rs[0]["id"], "b");
        assert!(Query::from_query_string("sortOrder=up").is_err());
        assert!(Query::from_search_request(&Map::new()).is_err());
    }
}
