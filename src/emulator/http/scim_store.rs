//! The SCIM user store: the account's internal users, with versions for ETags. Internal chat
//! users (`sessionSettings.internalId`) are looked up here by userName.

use super::clock::Clock;
use super::ids::uuid;
use super::scim_patch;
use super::scim_path::PatchError;
use crate::protocol::scim::{ENTERPRISE_USER_URN, Operation, USER_URN};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};

/// SCIM users held at once (a bound on memory: about 1 KB each).
pub(crate) const MAX_USERS: usize = 200_000;

/// One stored user.
#[derive(Clone, Debug)]
pub(crate) struct ScimUser {
    /// Server id.
    pub id: String,
    /// Everything but `id`, `meta` and `schemas`.
    pub attrs: Map<String, Value>,
    created: String,
    last_modified: String,
    version: u64,
}

impl ScimUser {
    /// The userName (always present: every write checks it).
    pub fn user_name(&self) -> &str {
        self.attrs
            .get("userName")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// Whether the user may chat.
    pub fn active(&self) -> bool {
        self.attrs.get("active").and_then(Value::as_bool) != Some(false)
    }

    /// The ETag of this version, also sent as `meta.version`.
    pub fn etag(&self) -> String {
        format!("W/\"{}\"", self.version)
    }

    /// Whether an `If-Match` header value allows a write to this version.
    pub fn matches(&self, if_match: &str) -> bool {
        let etag = self.etag();
        if_match.split(',').map(str::trim).any(|tag| {
            tag == "*" || tag == etag || tag.strip_prefix("W/").unwrap_or(tag) == &etag[2..]
        })
    }

    /// The resource as sent on the wire, with its `groups` (read-only, from the group store).
    pub fn render(&self, scim_root: &str, groups: Vec<Value>) -> Value {
        let mut out = Map::new();
        // The core schema, then each extension the user has attributes of (their keys are URNs).
        let mut schemas = vec![json!(USER_URN)];
        schemas.extend(
            self.attrs
                .keys()
                .filter(|k| k.len() > 4 && k[..4].eq_ignore_ascii_case("urn:"))
                .map(|k| json!(k)),
        );
        out.insert("schemas".into(), Value::Array(schemas));
        out.insert("id".into(), json!(self.id));
        out.extend(self.attrs.iter().map(|(k, v)| (k.clone(), v.clone())));
        if !groups.is_empty() {
            out.insert("groups".into(), Value::Array(groups));
        }
        out.insert(
            "meta".into(),
            json!({
                "resourceType": "User",
                "created": self.created,
                "lastModified": self.last_modified,
                "location": format!("{scim_root}/Users/{}", self.id),
                "version": self.etag(),
            }),
        );
        Value::Object(out)
    }
}

/// A failed write: HTTP status, `scimType` and detail.
pub(crate) type WriteError = (u16, Option<&'static str>, String);

fn from_patch(e: PatchError) -> WriteError {
    (400, Some(e.scim_type), e.detail)
}

/// All SCIM users of the account, listed in creation order.
#[derive(Debug, Default)]
pub(crate) struct ScimStore {
    by_seq: BTreeMap<u64, ScimUser>,
    seq_of: HashMap<String, u64>,
    /// Lowercased userName -> id, so chat's internal-user lookup does not scan.
    by_name: HashMap<String, String>,
    next_seq: u64,
    /// Bumped by every change, so cached list results know when they are stale.
    generation: u64,
}

impl ScimStore {
    /// A store holding the users `analyst serve` starts with.
    pub fn seeded(clock: &Clock) -> ScimStore {
        let mut store = ScimStore::default();
        let seeds = [
            ("ana@example.com", "Ana", "Lyst", true),
            ("bo@example.com", "Bo", "Ard", true),
            ("cy@example.com", "Cy", "Gone", false),
        ];
        for (email, given, family, active) in seeds {
            let attrs = json!({
                "userName": email,
                "name": {"givenName": given, "familyName": family},
                "emails": [{"value": email, "primary": true, "type": "work"}],
                "active": active,
            });
            if let Value::Object(attrs) = attrs {
                // Cannot fail: the seeds are valid and distinct.
                let _ = store.create(attrs, clock);
            }
        }
        store
    }

    /// A user by id.
    pub fn get(&self, id: &str) -> Option<&ScimUser> {
        self.seq_of.get(id).and_then(|s| self.by_seq.get(s))
    }

    /// A user by userName (case-insensitive, as the core schema says).
    pub fn by_user_name(&self, name: &str) -> Option<&ScimUser> {
        self.by_name
            .get(&name.to_lowercase())
            .and_then(|id| self.get(id))
    }

    /// Users in creation order.
    pub fn all(&self) -> impl Iterator<Item = &ScimUser> {
        self.by_seq.values()
    }

    /// Users in creation order, with their places.
    pub fn seqs(&self) -> impl Iterator<Item = (u64, &ScimUser)> {
        self.by_seq.iter().map(|(s, u)| (*s, u))
    }

    /// A user by its place in creation order (see [`ScimStore::seqs`]).
    pub fn by_seq(&self, seq: u64) -> Option<&ScimUser> {
        self.by_seq.get(&seq)
    }

    /// How many users there are.
    pub fn len(&self) -> usize {
        self.by_seq.len()
    }

    /// Changes so far (a cache key).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Create a user with a chosen id (a `--config` document's), else a fresh one.
    pub fn create_with_id(
        &mut self,
        attrs: Map<String, Value>,
        id: Option<String>,
        clock: &Clock,
    ) -> Result<&ScimUser, WriteError> {
        if let Some(id) = &id
            && (id.trim().is_empty() || self.get(id).is_some())
        {
            return Err((409, Some("uniqueness"), format!("id {id:?} is taken")));
        }
        let user = self.create(attrs, clock)?;
        let Some(id) = id else {
            let id = user.id.clone();
            return self.get(&id).ok_or_else(not_found);
        };
        let old = user.id.clone();
        let seq = self.seq_of.remove(&old).ok_or_else(not_found)?;
        self.seq_of.insert(id.clone(), seq);
        let user = self.by_seq.get_mut(&seq).ok_or_else(not_found)?;
        user.id = id.clone();
        self.by_name.insert(user.user_name().to_lowercase(), id);
        Ok(user)
    }

    /// Create a user from a POST body's attributes.
    pub fn create(
        &mut self,
        attrs: Map<String, Value>,
        clock: &Clock,
    ) -> Result<&ScimUser, WriteError> {
        if self.by_seq.len() >= MAX_USERS {
            return Err((
                403,
                None,
                format!("the emulator holds at most {MAX_USERS} SCIM users"),
            ));
        }
        let attrs = self.checked(attrs, None)?;
        let now = clock.rfc3339();
        let user = ScimUser {
            id: uuid(),
            attrs,
            created: now.clone(),
            last_modified: now,
            version: 1,
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.generation += 1;
        self.seq_of.insert(user.id.clone(), seq);
        self.by_name
            .insert(user.user_name().to_lowercase(), user.id.clone());
        Ok(self.by_seq.entry(seq).or_insert(user))
    }

    /// Replace a user's attributes (PUT).
    pub fn replace(
        &mut self,
        id: &str,
        attrs: Map<String, Value>,
        clock: &Clock,
    ) -> Result<&ScimUser, WriteError> {
        let attrs = self.checked(attrs, Some(id))?;
        self.commit(id, attrs, clock)
    }

    /// Apply PATCH operations all-or-nothing.
    pub fn patch(
        &mut self,
        id: &str,
        ops: &[Operation],
        clock: &Clock,
    ) -> Result<&ScimUser, WriteError> {
        let mut attrs = self.get(id).ok_or_else(not_found)?.attrs.clone();
        for op in ops {
            scim_patch::apply(&mut attrs, op).map_err(from_patch)?;
        }
        let attrs = self.checked(attrs, Some(id))?;
        self.commit(id, attrs, clock)
    }

    /// Delete a user; false when there was none.
    pub fn delete(&mut self, id: &str) -> bool {
        let Some(user) = self
            .seq_of
            .remove(id)
            .and_then(|seq| self.by_seq.remove(&seq))
        else {
            return false;
        };
        self.by_name.remove(&user.user_name().to_lowercase());
        self.generation += 1;
        true
    }

    fn commit(
        &mut self,
        id: &str,
        attrs: Map<String, Value>,
        clock: &Clock,
    ) -> Result<&ScimUser, WriteError> {
        let seq = *self.seq_of.get(id).ok_or_else(not_found)?;
        let user = self.by_seq.get_mut(&seq).ok_or_else(not_found)?;
        self.by_name.remove(&user.user_name().to_lowercase());
        user.attrs = attrs;
        self.by_name
            .insert(user.user_name().to_lowercase(), user.id.clone());
        user.version += 1;
        user.last_modified = clock.rfc3339();
        self.generation += 1;
        Ok(user)
    }

    /// Normalise and check a user's attributes: read-only ones dropped, nulls unassigned,
    /// `active` a boolean (`"False"` accepted), a unique non-empty userName, the password
    /// checked and then dropped, an extension with no attributes left removed.
    ///
    /// The password is kept in no form, not even hashed: nothing in the emulator signs in with
    /// one (chat takes API keys and tokens), so a hash would be a secret at rest with no reader,
    /// and RFC 7643 makes it write-only and never returned anyway.
    fn checked(
        &self,
        mut attrs: Map<String, Value>,
        id: Option<&str>,
    ) -> Result<Map<String, Value>, WriteError> {
        take_password_and_extension(&mut attrs)?;
        drop_unassigned(&mut attrs);
        check_core(&mut attrs)?;
        let name = attrs.get("userName").and_then(Value::as_str).unwrap_or("");
        if let Some(other) = self.by_user_name(name)
            && Some(other.id.as_str()) != id
        {
            return Err((
                409,
                Some("uniqueness"),
                format!("userName {name:?} is already taken"),
            ));
        }
        Ok(attrs)
    }
}

/// A 400 `invalidValue` with this detail.
fn invalid(detail: String) -> WriteError {
    (400, Some("invalidValue"), detail)
}

/// Drops the password (after checking it is a string) and files the enterprise extension
/// under its canonical URN (after checking it is an object).
fn take_password_and_extension(attrs: &mut Map<String, Value>) -> Result<(), WriteError> {
    if let Some(k) = attrs
        .keys()
        .find(|k| k.eq_ignore_ascii_case("password"))
        .cloned()
    {
        match attrs.remove(&k) {
            Some(Value::String(_) | Value::Null) | None => {}
            Some(_) => return Err(invalid("password must be a string".into())),
        }
    }
    if let Some(k) = attrs
        .keys()
        .find(|k| k.eq_ignore_ascii_case(ENTERPRISE_USER_URN))
        .cloned()
    {
        match attrs.remove(&k) {
            Some(v @ (Value::Object(_) | Value::Null)) => {
                attrs.insert(ENTERPRISE_USER_URN.to_owned(), v);
            }
            _ => return Err(invalid(format!("{ENTERPRISE_USER_URN} must be an object"))),
        }
    }
    Ok(())
}

/// Drops nulls, empty extensions and the read-only `id`, `meta`, `schemas` and `groups` (a
/// user's groups are what the groups say: `PATCH /Groups/{id}` changes them).
fn drop_unassigned(attrs: &mut Map<String, Value>) {
    attrs.retain(|k, v| {
        let empty_extension = k.len() > 4
            && k[..4].eq_ignore_ascii_case("urn:")
            && v.as_object().is_some_and(Map::is_empty);
        !v.is_null()
            && !empty_extension
            && !["id", "meta", "schemas", "groups"]
                .iter()
                .any(|r| r.eq_ignore_ascii_case(k))
    });
}

/// Files `userName` and `active` under their canonical names and checks the types of those
/// and of `name` and `emails`; `active` may arrive as `"True"`/`"False"`.
fn check_core(attrs: &mut Map<String, Value>) -> Result<(), WriteError> {
    for (key, want) in [("userName", "a string"), ("active", "a boolean")] {
        if let Some(k) = attrs.keys().find(|k| k.eq_ignore_ascii_case(key)).cloned() {
            if let Some(v) = attrs.remove(&k) {
                attrs.insert(key.to_owned(), v);
            }
        } else if key == "userName" {
            return Err(invalid(format!("userName is required ({want})")));
        }
    }
    match attrs.get("userName") {
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        _ => return Err(invalid("userName must be a non-empty string".into())),
    }
    if let Some(active) = attrs.get_mut("active") {
        *active = match &*active {
            Value::Bool(b) => Value::Bool(*b),
            Value::String(s) if s.eq_ignore_ascii_case("true") => Value::Bool(true),
            Value::String(s) if s.eq_ignore_ascii_case("false") => Value::Bool(false),
            other => return Err(invalid(format!("active must be a boolean, not {other}"))),
        };
    }
    for (key, ok) in [
        ("name", Value::is_object as fn(&Value) -> bool),
        ("emails", Value::is_array),
    ] {
        if attrs.get(key).is_some_and(|v| !ok(v)) {
            let what = if key == "name" {
                "an object"
            } else {
                "an array"
            };
            return Err(invalid(format!("{key} must be {what}")));
        }
    }
    Ok(())
}

fn not_found() -> WriteError {
    (404, None, "user not found".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn writes_are_checked_and_versioned() {
        let clock = Clock::manual(0);
        let mut store = ScimStore::seeded(&clock);
        assert_eq!(store.all().count(), 3);
        let ana = store.by_user_name("ANA@example.com").unwrap().clone();
        assert!(ana.matches("W/\"1\"") && ana.matches("\"1\"") && ana.matches("*"));
        let dup = store.create(attrs(json!({"userName": "ana@example.com"})), &clock);
        assert_eq!(dup.unwrap_err().0, 409);
        let bad = store.create(attrs(json!({"userName": "x", "active": 3})), &clock);
        assert_eq!(bad.unwrap_err().1, Some("invalidValue"));
        let lenient = store
            .create(
                attrs(json!({"UserName": "z", "active": "False", "id": "mine"})),
                &clock,
            )
            .unwrap();
        assert!(!lenient.active());
        assert_ne!(lenient.id, "mine");
        let op = Operation {
            op: crate::protocol::scim::Op::Replace,
            path: Some("active".into()),
            value: Some(json!(false)),
        };
        let patched = store.patch(&ana.id, &[op], &clock).unwrap();
        assert!(!patched.active());
        assert_eq!(patched.etag(), "W/\"2\"");
        assert!(!patched.matches("W/\"1\""));
        assert!(store.delete(&ana.id));
        assert!(store.get(&ana.id).is_none());
    }
}
