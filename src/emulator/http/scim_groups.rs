//! The SCIM group store (RFC 7643 section 4.2): groups with a displayName and members (users,
//! or other groups), versions for ETags; PATCH applies its operations through
//! `scim_group_patch`.

use super::clock::Clock;
use super::ids::uuid;
use super::scim_schema::GROUP_URN;
use super::scim_store::{ScimStore, WriteError};
use crate::protocol::scim::Operation;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Groups held at once (a bound on memory).
pub(crate) const MAX_GROUPS: usize = 10_000;

/// What a member is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    User,
    Group,
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::User => "User",
            Kind::Group => "Group",
        }
    }
}

/// One member: the id of a user or group. `display` and `$ref` are derived when rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    pub value: String,
    pub kind: Kind,
}

/// One stored group.
#[derive(Clone, Debug)]
pub(crate) struct ScimGroup {
    pub id: String,
    pub display_name: String,
    pub external_id: Option<String>,
    members: Vec<Member>,
    /// The ids in `members`, so membership checks do not scan.
    member_ids: HashSet<String>,
    created: String,
    last_modified: String,
    version: u64,
}

impl ScimGroup {
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

    /// Whether `id` is a direct member.
    pub fn has_member(&self, id: &str) -> bool {
        self.member_ids.contains(id)
    }

    /// The members, in the order they were added.
    #[cfg(test)]
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    fn set_members(&mut self, members: Vec<Member>) {
        self.members.clear();
        self.member_ids.clear();
        for m in members {
            if self.member_ids.insert(m.value.clone()) {
                self.members.push(m);
            }
        }
    }

    /// The resource as sent on the wire; members' `display` is the user's displayName (else
    /// userName) or the group's displayName, as they are now.
    pub fn render(&self, scim_root: &str, users: &ScimStore, groups: &GroupStore) -> Value {
        let members: Vec<Value> = self
            .members
            .iter()
            .map(|m| {
                let display = match m.kind {
                    Kind::User => users.get(&m.value).map(|u| {
                        u.attrs
                            .get("displayName")
                            .and_then(Value::as_str)
                            .unwrap_or(u.user_name())
                            .to_owned()
                    }),
                    Kind::Group => groups.get(&m.value).map(|g| g.display_name.clone()),
                };
                let kind = m.kind.name();
                json!({
                    "value": m.value,
                    "display": display,
                    "$ref": format!("{scim_root}/{kind}s/{}", m.value),
                    "type": kind,
                })
            })
            .collect();
        let mut out = Map::new();
        out.insert("schemas".into(), json!([GROUP_URN]));
        out.insert("id".into(), json!(self.id));
        if let Some(ext) = &self.external_id {
            out.insert("externalId".into(), json!(ext));
        }
        out.insert("displayName".into(), json!(self.display_name));
        if !members.is_empty() {
            out.insert("members".into(), Value::Array(members));
        }
        out.insert(
            "meta".into(),
            json!({
                "resourceType": "Group",
                "created": self.created,
                "lastModified": self.last_modified,
                "location": format!("{scim_root}/Groups/{}", self.id),
                "version": self.etag(),
            }),
        );
        Value::Object(out)
    }
}

/// The writable attributes of a group, checked.
pub(super) struct Fields {
    pub(super) display_name: String,
    pub(super) external_id: Option<String>,
    pub(super) members: Vec<Member>,
}

/// All groups, listed in creation order.
#[derive(Debug, Default)]
pub(crate) struct GroupStore {
    by_seq: BTreeMap<u64, ScimGroup>,
    seq_of: HashMap<String, u64>,
    next_seq: u64,
    /// Bumped by every change, so cached list results know when they are stale.
    generation: u64,
}

pub(super) fn invalid(detail: String) -> WriteError {
    (400, Some("invalidValue"), detail)
}

fn not_found() -> WriteError {
    (404, None, "group not found".into())
}

pub(super) fn key<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    map.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
        .filter(|v| !v.is_null())
}

impl GroupStore {
    /// A group by id.
    pub fn get(&self, id: &str) -> Option<&ScimGroup> {
        self.seq_of.get(id).and_then(|s| self.by_seq.get(s))
    }

    /// A group by its place in creation order (see [`GroupStore::seqs`]).
    pub fn by_seq(&self, seq: u64) -> Option<&ScimGroup> {
        self.by_seq.get(&seq)
    }

    /// Groups in creation order, with their places.
    pub fn seqs(&self) -> impl Iterator<Item = (u64, &ScimGroup)> {
        self.by_seq.iter().map(|(s, g)| (*s, g))
    }

    /// Groups in creation order.
    pub fn all(&self) -> impl Iterator<Item = &ScimGroup> {
        self.by_seq.values()
    }

    /// Changes so far (a cache key).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The user's `groups` attribute (RFC 7643 section 4.1.2): the groups that hold it
    /// directly, read-only.
    pub fn groups_of(&self, user_id: &str, scim_root: &str) -> Vec<Value> {
        self.all()
            .filter(|g| g.has_member(user_id))
            .map(|g| {
                json!({
                    "value": g.id,
                    "$ref": format!("{scim_root}/Groups/{}", g.id),
                    "display": g.display_name,
                    "type": "direct",
                })
            })
            .collect()
    }

    /// A group from a POST body (or a `--config` document, which may fix the id).
    pub fn create(
        &mut self,
        attrs: &Map<String, Value>,
        id: Option<String>,
        users: &ScimStore,
        clock: &Clock,
    ) -> Result<&ScimGroup, WriteError> {
        if self.by_seq.len() >= MAX_GROUPS {
            return Err((
                403,
                None,
                format!("the emulator holds at most {MAX_GROUPS} SCIM groups"),
            ));
        }
        let id = id.unwrap_or_else(uuid);
        if id.trim().is_empty() || self.get(&id).is_some() || users.get(&id).is_some() {
            return Err((409, Some("uniqueness"), format!("id {id:?} is taken")));
        }
        let fields = self.fields(attrs, &id, users)?;
        let now = clock.rfc3339();
        let mut group = ScimGroup {
            id: id.clone(),
            display_name: fields.display_name,
            external_id: fields.external_id,
            members: Vec::new(),
            member_ids: HashSet::new(),
            created: now.clone(),
            last_modified: now,
            version: 1,
        };
        group.set_members(fields.members);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.generation += 1;
        self.seq_of.insert(id, seq);
        Ok(self.by_seq.entry(seq).or_insert(group))
    }

    /// Replace a group's writable attributes (PUT).
    pub fn replace(
        &mut self,
        id: &str,
        attrs: &Map<String, Value>,
        users: &ScimStore,
        clock: &Clock,
    ) -> Result<&ScimGroup, WriteError> {
        let fields = self.fields(attrs, id, users)?;
        self.commit(id, fields, clock)
    }

    /// Apply PATCH operations, all or none. A PATCH that changes nothing (adding a member
    /// already in, removing one already out) succeeds and keeps the version.
    pub fn patch(
        &mut self,
        id: &str,
        ops: &[Operation],
        users: &ScimStore,
        clock: &Clock,
    ) -> Result<&ScimGroup, WriteError> {
        let group = self.get(id).ok_or_else(not_found)?;
        let mut fields = Fields {
            display_name: group.display_name.clone(),
            external_id: group.external_id.clone(),
            members: group.members.clone(),
        };
        for op in ops {
            self.apply(&mut fields, op, id, users)?;
        }
        let group = self.get(id).ok_or_else(not_found)?;
        let unchanged = fields.display_name == group.display_name
            && fields.external_id == group.external_id
            && fields.members == group.members;
        if unchanged {
            return self.get(id).ok_or_else(not_found);
        }
        self.check_name(&fields.display_name, id)?;
        self.commit(id, fields, clock)
    }

    /// Delete a group (and its place in other groups); false when there was none.
    pub fn delete(&mut self, id: &str, clock: &Clock) -> bool {
        let Some(seq) = self.seq_of.remove(id) else {
            return false;
        };
        self.by_seq.remove(&seq);
        self.generation += 1;
        self.drop_member(id, clock);
        true
    }

    /// Take a deleted user or group out of every group that held it.
    pub fn drop_member(&mut self, id: &str, clock: &Clock) {
        let now = clock.rfc3339();
        for g in self.by_seq.values_mut().filter(|g| g.has_member(id)) {
            let kept = g
                .members
                .iter()
                .filter(|m| m.value != id)
                .cloned()
                .collect();
            g.set_members(kept);
            g.version += 1;
            g.last_modified = now.clone();
            self.generation += 1;
        }
    }

    fn commit(
        &mut self,
        id: &str,
        fields: Fields,
        clock: &Clock,
    ) -> Result<&ScimGroup, WriteError> {
        let seq = *self.seq_of.get(id).ok_or_else(not_found)?;
        let group = self.by_seq.get_mut(&seq).ok_or_else(not_found)?;
        group.display_name = fields.display_name;
        group.external_id = fields.external_id;
        group.set_members(fields.members);
        group.version += 1;
        group.last_modified = clock.rfc3339();
        self.generation += 1;
        Ok(group)
    }

    /// A unique displayName (case-insensitive): `--group-name NAME` must find one group.
    fn check_name(&self, name: &str, id: &str) -> Result<(), WriteError> {
        if name.trim().is_empty() {
            return Err(invalid("displayName must be a non-empty string".into()));
        }
        match self
            .all()
            .find(|g| g.id != id && g.display_name.eq_ignore_ascii_case(name))
        {
            Some(other) => Err((
                409,
                Some("uniqueness"),
                format!("displayName {name:?} is taken by group {}", other.id),
            )),
            None => Ok(()),
        }
    }

    /// The attributes of a POST or PUT body, checked; read-only ones (`id`, `meta`,
    /// `schemas`, members' `display`) are ignored.
    fn fields(
        &self,
        attrs: &Map<String, Value>,
        id: &str,
        users: &ScimStore,
    ) -> Result<Fields, WriteError> {
        let display_name = match key(attrs, "displayName") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(invalid("displayName must be a string".into())),
            None => return Err(invalid("displayName is required (a string)".into())),
        };
        self.check_name(&display_name, id)?;
        let external_id = match key(attrs, "externalId") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(invalid("externalId must be a string".into())),
            None => None,
        };
        let members = match key(attrs, "members") {
            None => Vec::new(),
            Some(v) => self.members_of(v, id, users)?,
        };
        Ok(Fields {
            display_name,
            external_id,
            members,
        })
    }

    /// Members from a value: `[{value, type?}]` (one object is taken as a list of one). Each
    /// `value` must be the id of a user or of another group: a membership of nobody would
    /// answer success and mean nothing.
    pub(super) fn members_of(
        &self,
        value: &Value,
        group_id: &str,
        users: &ScimStore,
    ) -> Result<Vec<Member>, WriteError> {
        let items = match value {
            Value::Array(items) => items.as_slice(),
            one @ Value::Object(_) => std::slice::from_ref(one),
            _ => {
                return Err(invalid(
                    "members must be an array of {\"value\": ID}".into(),
                ));
            }
        };
        items
            .iter()
            .map(|item| {
                let obj = item
                    .as_object()
                    .ok_or_else(|| invalid(format!("a member must be an object, not {item}")))?;
                for k in obj.keys() {
                    if !["value", "type", "display", "$ref"]
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(k))
                    {
                        return Err((
                            400,
                            Some("invalidPath"),
                            format!(
                                "{k:?} is not an attribute of members (value, type, display, $ref)"
                            ),
                        ));
                    }
                }
                let value = match key(obj, "value") {
                    Some(Value::String(s)) => s.clone(),
                    _ => {
                        return Err(invalid(format!(
                            "a member needs a string value (an id): {item}"
                        )));
                    }
                };
                let kind = if users.get(&value).is_some() {
                    Kind::User
                } else if self.get(&value).is_some() && value != group_id {
                    Kind::Group
                } else {
                    return Err(invalid(format!(
                        "member {value:?} is not the id of a user or of another group"
                    )));
                };
                Ok(Member { value, kind })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::scim::PatchOp;

    fn ops(v: Value) -> Vec<Operation> {
        PatchOp::from_document(&json!({
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": v,
        }))
        .unwrap()
        .operations
    }

    fn attrs(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn membership_changes_bump_the_version_and_no_ops_do_not() {
        let clock = Clock::manual(0);
        let users = ScimStore::seeded(&clock);
        let ids: Vec<String> = users.all().map(|u| u.id.clone()).collect();
        let mut groups = GroupStore::default();
        let g = groups
            .create(
                &attrs(json!({"displayName": "G"})),
                Some("g".into()),
                &users,
                &clock,
            )
            .unwrap();
        assert_eq!(g.etag(), "W/\"1\"");
        let add = ops(
            json!([{"op": "Add", "path": "members", "value": [{"value": ids[0]}, {"value": ids[1]}]}]),
        );
        assert_eq!(
            groups.patch("g", &add, &users, &clock).unwrap().etag(),
            "W/\"2\""
        );
        assert_eq!(
            groups.patch("g", &add, &users, &clock).unwrap().etag(),
            "W/\"2\""
        );
        let urn_path = format!("{GROUP_URN}:members[value eq \"{}\"]", ids[0]);
        let remove = ops(json!([{"op": "remove", "path": urn_path}]));
        let g = groups.patch("g", &remove, &users, &clock).unwrap();
        assert_eq!((g.members().len(), g.etag().as_str()), (1, "W/\"3\""));
        assert!(groups.patch("g", &remove, &users, &clock).is_ok());
        // All or nothing: the add before a bad member is not kept.
        let mixed = ops(json!([
            {"op": "add", "path": "members", "value": [{"value": ids[2]}]},
            {"op": "add", "path": "members", "value": [{"value": "ghost"}]},
        ]));
        let err = groups.patch("g", &mixed, &users, &clock).unwrap_err();
        assert_eq!((err.0, err.1), (400, Some("invalidValue")));
        assert!(!groups.get("g").unwrap().has_member(&ids[2]));
        let by_value =
            ops(json!([{"op": "remove", "path": "members", "value": [{"value": ids[1]}]}]));
        assert!(
            groups
                .patch("g", &by_value, &users, &clock)
                .unwrap()
                .members()
                .is_empty()
        );
        let ext = ops(json!([{"op": "replace", "path": "urn:x:y:displayName", "value": "Z"}]));
        assert_eq!(
            groups.patch("g", &ext, &users, &clock).unwrap_err().1,
            Some("invalidPath")
        );
    }
}
