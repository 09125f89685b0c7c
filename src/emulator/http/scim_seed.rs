//! The SCIM users and groups the emulator starts with: the sample's (three users, three
//! groups), or those of a `serve --config` document, plus synthetic users for paging and
//! benchmarks (`serve --scim-users N`).

use super::clock::Clock;
use super::scim_groups::GroupStore;
use super::scim_store::ScimStore;
use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

/// What SCIM holds at start.
#[derive(Clone, Debug, Default)]
pub struct ScimSeed {
    /// Users instead of the sample's: SCIM User attributes, each with an optional `id`.
    pub users: Option<Vec<Map<String, Value>>>,
    /// Groups instead of the sample's: `displayName`, `members` (user ids or userNames, or
    /// group ids), optional `id` and `externalId`.
    pub groups: Option<Vec<Map<String, Value>>>,
    /// Synthetic users added after those (`user000001@example.com`, ...).
    pub synthetic_users: usize,
}

/// The sample's groups: (displayName, members by userName).
const SAMPLE_GROUPS: &[(&str, &[&str])] = &[
    ("Analysts", &["ana@example.com", "bo@example.com"]),
    ("Admins", &["ana@example.com"]),
    ("Alumni", &["cy@example.com"]),
];

fn objects(doc: &Map<String, Value>, key: &str) -> anyhow::Result<Option<Vec<Map<String, Value>>>> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(o) => Ok(o.clone()),
                other => bail!("{key}[{i}] must be a mapping, not {other}"),
            })
            .collect::<anyhow::Result<Vec<_>>>()
            .map(Some),
        Some(other) => bail!("{key} must be a list, not {other}"),
    }
}

impl ScimSeed {
    /// Read the `users:` and `groups:` of a YAML (or JSON) document; other keys are left to
    /// whoever else reads the file.
    pub fn from_document(text: &str) -> anyhow::Result<ScimSeed> {
        let doc: Value = serde_norway::from_str(text).context("not a YAML or JSON document")?;
        let doc = match doc {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => bail!("the document must be a mapping, not {other}"),
        };
        Ok(ScimSeed {
            users: objects(&doc, "users")?,
            groups: objects(&doc, "groups")?,
            synthetic_users: 0,
        })
    }

    /// The stores, filled; an entry that does not fit (a taken userName, a member nobody is)
    /// is an error naming it.
    pub(crate) fn build(&self, clock: &Clock) -> anyhow::Result<(ScimStore, GroupStore)> {
        let mut users = match &self.users {
            None => ScimStore::seeded(clock),
            Some(list) => {
                let mut store = ScimStore::default();
                for (i, attrs) in list.iter().enumerate() {
                    let mut attrs = attrs.clone();
                    let id = match attrs.remove("id") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(s)) => Some(s),
                        Some(other) => bail!("users[{i}].id must be a string, not {other}"),
                    };
                    store
                        .create_with_id(attrs, id, clock)
                        .map_err(|(_, _, why)| anyhow::anyhow!("users[{i}]: {why}"))?;
                }
                store
            }
        };
        let mut groups = GroupStore::default();
        match &self.groups {
            Some(list) => {
                for (i, g) in list.iter().enumerate() {
                    add_group(&mut groups, &users, g, clock)
                        .with_context(|| format!("groups[{i}]"))?;
                }
            }
            // The sample's groups name the sample's users.
            None if self.users.is_none() => {
                for (name, members) in SAMPLE_GROUPS {
                    let g = json!({"displayName": name, "members": members});
                    if let Value::Object(g) = g {
                        add_group(&mut groups, &users, &g, clock)?;
                    }
                }
            }
            None => {}
        }
        for n in 1..=self.synthetic_users {
            let name = format!("user{n:06}@example.com");
            let attrs = json!({
                "userName": name,
                "name": {"givenName": "User", "familyName": format!("{n:06}")},
                "emails": [{"value": name, "primary": true, "type": "work"}],
                // Every tenth inactive, so filters on active have something to find.
                "active": n % 10 != 0,
            });
            if let Value::Object(attrs) = attrs {
                users
                    .create(attrs, clock)
                    .map_err(|(_, _, why)| anyhow::anyhow!("--scim-users: {why}"))?;
            }
        }
        Ok((users, groups))
    }
}

/// One group of a document: members may be user ids, userNames, or ids of groups before it.
fn add_group(
    groups: &mut GroupStore,
    users: &ScimStore,
    g: &Map<String, Value>,
    clock: &Clock,
) -> anyhow::Result<()> {
    let mut attrs = g.clone();
    let id = match attrs.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => bail!("id must be a string, not {other}"),
    };
    if let Some(members) = attrs.remove("members") {
        let Value::Array(members) = members else {
            bail!("members must be a list of user ids or userNames");
        };
        let resolved = members
            .iter()
            .map(|m| {
                let named = match m {
                    Value::String(s) => s.as_str(),
                    Value::Object(o) => o.get("value").and_then(Value::as_str).unwrap_or(""),
                    other => bail!("a member must be an id or a userName, not {other}"),
                };
                let id = users
                    .get(named)
                    .map(|u| u.id.clone())
                    .or_else(|| users.by_user_name(named).map(|u| u.id.clone()))
                    .or_else(|| groups.get(named).map(|g| g.id.clone()))
                    .with_context(|| {
                        format!("member {named:?} is no user id, userName or group id")
                    })?;
                Ok(json!({"value": id}))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        attrs.insert("members".into(), Value::Array(resolved));
    }
    groups
        .create(&attrs, id, users, clock)
        .map_err(|(_, _, why)| anyhow::anyhow!("{why}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_names_users_and_groups() {
        let seed = ScimSeed::from_document(
            "users:\n  - {userName: a@x.org, id: u1}\n  - userName: b@x.org\n\
             groups:\n  - {displayName: Team, id: g1, members: [u1, B@X.org]}\n  - {displayName: All, members: [g1]}\n",
        )
        .unwrap();
        let clock = Clock::manual(0);
        let (users, groups) = seed.build(&clock).unwrap();
        assert_eq!(users.len(), 2);
        let team = groups.get("g1").unwrap();
        assert!(team.has_member("u1"));
        assert_eq!(team.members().len(), 2);
        assert_eq!(groups.all().count(), 2);
        let bad = ScimSeed::from_document("groups:\n  - {displayName: X, members: [nobody]}\n")
            .unwrap()
            .build(&clock);
        assert!(format!("{:#}", bad.unwrap_err()).contains("nobody"));
        assert!(ScimSeed::from_document("users: 3").is_err());
    }

    #[test]
    fn the_sample_has_groups_and_synthetic_users_add_up() {
        let seed = ScimSeed {
            synthetic_users: 25,
            ..ScimSeed::default()
        };
        let (users, groups) = seed.build(&Clock::manual(0)).unwrap();
        assert_eq!(users.len(), 28);
        assert_eq!(groups.all().count(), 3);
        assert!(users.by_user_name("user000025@example.com").is_some());
    }
}
