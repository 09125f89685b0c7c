//! A group's members changed with one PATCH (RFC 7644 §3.5.2): `add` with the members' values,
//! or one `remove` of `members[value eq "ID"]` per user.

use super::{Failed, Patched, Request, Resource, ScimClient, judge_patch};
use crate::protocol::scim::PATCH_OP_URN;
use reqwest::Method;
use reqwest::header::HeaderValue;
use serde_json::{Value, json};
use std::collections::HashSet;

/// Which way a membership changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Put users in the group.
    Add,
    /// Take users out of it.
    Remove,
}

/// The PatchOp that makes `ids` members of a group, or no longer members.
pub fn membership_patch(change: Change, ids: &[String]) -> Value {
    let operations: Vec<Value> = match change {
        Change::Add => vec![json!({
            "op": "add",
            "path": "members",
            "value": ids.iter().map(|id| json!({"value": id})).collect::<Vec<_>>(),
        })],
        Change::Remove => ids
            .iter()
            .map(|id| {
                json!({
                    "op": "remove",
                    // The id as a JSON string: quotes and backslashes escaped as SCIM filters want.
                    "path": format!("members[value eq {}]", Value::String(id.clone())),
                })
            })
            .collect(),
    };
    json!({"schemas": [PATCH_OP_URN], "Operations": operations})
}

/// The user ids a Group lists as members (a group without `members` has none).
pub fn member_ids(group: &Value) -> HashSet<String> {
    group
        .as_object()
        .and_then(|o| o.iter().find(|(k, _)| k.eq_ignore_ascii_case("members")))
        .and_then(|(_, m)| m.as_array())
        .map(|members| {
            members
                .iter()
                .filter_map(|m| match m.get("value")? {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

impl ScimClient {
    /// `PATCH {root}/Groups/{id}` with a PatchOp.
    pub fn group_patch_request(&self, id: &str, op: &Value) -> Request {
        let mut headers = self.headers();
        super::insert(
            &mut headers,
            "content-type",
            HeaderValue::from_static(super::SCIM_JSON),
        );
        Request {
            method: Method::PATCH,
            url: self.resource_url(Resource::Groups, id),
            headers,
            body: Some(op.to_string().into_bytes()),
        }
    }

    /// Send a group's PATCH and judge the answer: a 204, an empty 2xx or a 2xx with a Group
    /// succeeds (`user` holds the Group); anything else is a [`Failed`] saying what came back.
    pub async fn patch_group(&self, req: &Request, salt: u64) -> Result<Patched, Failed> {
        let reply = self.send(req, salt).await?;
        judge_patch(&reply, Resource::Groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn membership_documents() {
        let ids = ["u1".to_owned(), "a\"b".to_owned()];
        assert_eq!(
            membership_patch(Change::Add, &ids)["Operations"],
            json!([{"op": "add", "path": "members", "value": [{"value": "u1"}, {"value": "a\"b"}]}])
        );
        assert_eq!(
            membership_patch(Change::Remove, &ids)["Operations"][1]["path"],
            "members[value eq \"a\\\"b\"]"
        );
        let g = json!({"id": "g", "members": [{"value": "u1"}, {"value": 7}, {"display": "x"}]});
        assert_eq!(
            member_ids(&g),
            HashSet::from(["u1".to_owned(), "7".to_owned()])
        );
        assert!(member_ids(&json!({"id": "g"})).is_empty());
    }
}
