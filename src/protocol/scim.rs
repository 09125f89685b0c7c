//! SCIM 2.0 (RFC 7644): PatchOp, User, Error and ListResponse, tolerant of what servers send.

use super::lenient::Lenient;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The PatchOp message schema.
pub const PATCH_OP_URN: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
/// The Error message schema.
pub const ERROR_URN: &str = "urn:ietf:params:scim:api:messages:2.0:Error";
/// The ListResponse message schema.
pub const LIST_RESPONSE_URN: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
/// The core User schema.
pub const USER_URN: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
/// The core Group schema.
pub const GROUP_URN: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";
/// The enterprise User extension schema (RFC 7643 section 4.3).
pub const ENTERPRISE_USER_URN: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
/// The SearchRequest message schema (`POST .../.search`).
pub const SEARCH_REQUEST_URN: &str = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";
/// The schema of `/ServiceProviderConfig`.
pub const SERVICE_PROVIDER_CONFIG_URN: &str =
    "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
/// The schema of `/ResourceTypes` entries.
pub const RESOURCE_TYPE_URN: &str = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
/// The schema of `/Schemas` entries.
pub const SCHEMA_URN: &str = "urn:ietf:params:scim:schemas:core:2.0:Schema";

/// A PATCH request body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatchOp {
    /// `[PATCH_OP_URN]`.
    pub schemas: Vec<String>,
    /// The operations, applied in order.
    #[serde(rename = "Operations")]
    pub operations: Vec<Operation>,
}

/// The kind of a PATCH operation: sent lowercase, read in any case (`"Replace"` is common).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `add`.
    Add,
    /// `remove`.
    Remove,
    /// `replace`.
    Replace,
}

impl Op {
    /// Parse an `op`, whatever its case.
    pub fn parse(name: &str) -> Option<Op> {
        [Op::Add, Op::Remove, Op::Replace]
            .into_iter()
            .find(|op| op.name().eq_ignore_ascii_case(name))
    }

    /// The name as sent.
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Remove => "remove",
            Op::Replace => "replace",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Op {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Op, D::Error> {
        let name = String::deserialize(d)?;
        Op::parse(&name).ok_or_else(|| {
            serde::de::Error::custom(format!("op {name:?} is not add, remove or replace"))
        })
    }
}

/// One PATCH operation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    /// What it does.
    pub op: Op,
    /// The attribute path; optional for add and replace, required for remove.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The value; absent for remove.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

impl PatchOp {
    /// A PatchOp with these operations.
    pub fn new(operations: Vec<Operation>) -> PatchOp {
        PatchOp {
            schemas: vec![PATCH_OP_URN.to_owned()],
            operations,
        }
    }

    /// What the operations leave `active` at, when they set it to a boolean: the user the
    /// server sends back must agree, or the patch did not take (some servers answer 200 and
    /// ignore it).
    pub fn active_after(&self) -> Option<bool> {
        let is_active = |name: &str| name.eq_ignore_ascii_case("active");
        self.operations.iter().fold(None, |expected, o| {
            match (o.op, o.path.as_deref(), &o.value) {
                (Op::Add | Op::Replace, Some(p), Some(v)) if is_active(p) => v.as_bool(),
                (Op::Add | Op::Replace, None, Some(Value::Object(map))) => map
                    .iter()
                    .find(|(k, _)| is_active(k))
                    .map_or(expected, |(_, v)| v.as_bool()),
                (Op::Remove, Some(p), _) if is_active(p) => None,
                _ => expected,
            }
        })
    }

    /// Parse and check a whole PatchOp document: the schema URN, an `Operations` array, each op
    /// one of add/remove/replace (any case; normalised to lowercase), remove with a path.
    pub fn from_document(doc: &Value) -> Result<PatchOp, String> {
        let obj = doc.as_object().ok_or("a PatchOp must be a JSON object")?;
        let schemas = obj
            .get("schemas")
            .and_then(Value::as_array)
            .ok_or("`schemas` must be an array")?;
        if !schemas.iter().any(|s| s.as_str() == Some(PATCH_OP_URN)) {
            return Err(format!("`schemas` must contain {PATCH_OP_URN:?}"));
        }
        let ops = obj
            .get("Operations")
            .or_else(|| obj.get("operations"))
            .and_then(Value::as_array)
            .ok_or("`Operations` must be an array")?;
        if ops.is_empty() {
            return Err("`Operations` is empty".into());
        }
        let mut operations = Vec::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            let name = op
                .get("op")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("Operations[{i}].op must be a string"))?;
            let kind = Op::parse(name).ok_or_else(|| {
                format!("Operations[{i}].op {name:?} is not add, remove or replace")
            })?;
            let path = match op.get("path") {
                None | Some(Value::Null) => None,
                Some(Value::String(p)) => Some(p.clone()),
                Some(_) => return Err(format!("Operations[{i}].path must be a string")),
            };
            let value = op.get("value").cloned();
            match kind {
                Op::Add | Op::Replace => {
                    if value.is_none() {
                        return Err(format!("Operations[{i}] ({kind}) needs a value"));
                    }
                    if path.is_none() && !value.as_ref().is_some_and(Value::is_object) {
                        return Err(format!(
                            "Operations[{i}] ({kind}) without a path needs an object value"
                        ));
                    }
                }
                Op::Remove => {
                    if path.is_none() {
                        return Err(format!("Operations[{i}] (remove) needs a path"));
                    }
                }
            }
            operations.push(Operation {
                op: kind,
                path,
                value,
            });
        }
        Ok(PatchOp::new(operations))
    }
}

/// A SCIM User, as servers send it (string booleans, PascalCase meta keys and nulls tolerated).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct User {
    /// Server id.
    pub id: Lenient<String>,
    /// userName.
    pub user_name: Lenient<String>,
    /// Whether the user may sign in; `"False"` as a string counts.
    pub active: Lenient<bool>,
    /// externalId.
    pub external_id: Lenient<String>,
    /// Emails.
    pub emails: Lenient<Value>,
    /// Name.
    pub name: Lenient<Value>,
    /// meta, with keys in either case.
    #[serde(alias = "Meta", deserialize_with = "meta")]
    pub meta: Meta,
}

/// `meta` of a resource.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// resourceType.
    pub resource_type: Option<String>,
    /// created.
    pub created: Option<String>,
    /// lastModified.
    pub last_modified: Option<String>,
    /// location.
    pub location: Option<String>,
    /// version (ETag).
    pub version: Option<String>,
}

fn meta<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Meta, D::Error> {
    let map = match Value::deserialize(d)? {
        Value::Object(map) => map,
        _ => return Ok(Meta::default()),
    };
    let get = |key: &str| -> Option<String> {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .and_then(|(_, v)| v.as_str().map(str::to_owned))
    };
    Ok(Meta {
        resource_type: get("resourceType"),
        created: get("created"),
        last_modified: get("lastModified"),
        location: get("location"),
        version: get("version"),
    })
}

impl User {
    /// Parse a User leniently; `None` when the value is not an object. Attribute names are
    /// case-insensitive (RFC 7643 §2.1): `Active` is `active` (the exact spelling wins when a
    /// server sends both).
    pub fn from_value(v: &Value) -> Option<User> {
        const NAMES: [&str; 7] = [
            "id",
            "userName",
            "active",
            "externalId",
            "emails",
            "name",
            "meta",
        ];
        let mut user = serde_json::Map::new();
        for (key, value) in v.as_object()? {
            match NAMES.iter().find(|n| n.eq_ignore_ascii_case(key)) {
                Some(name) if *name != key && !user.contains_key(*name) => {
                    user.insert((*name).to_owned(), value.clone());
                }
                Some(name) if *name != key => {}
                _ => {
                    user.insert(key.clone(), value.clone());
                }
            }
        }
        serde_json::from_value(Value::Object(user)).ok()
    }
}

/// A SCIM error response body.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScimError {
    /// Should hold ERROR_URN.
    pub schemas: Lenient<Vec<String>>,
    /// The HTTP status, a string by the RFC, a number on some servers.
    pub status: Lenient<i64>,
    /// e.g. `invalidFilter`, `mutability`.
    pub scim_type: Lenient<String>,
    /// Human-readable detail.
    pub detail: Lenient<String>,
}

impl ScimError {
    /// Parse an error body; `None` unless it looks like a SCIM error (schema, detail or scimType).
    pub fn from_slice(body: &[u8]) -> Option<ScimError> {
        let err: ScimError = serde_json::from_slice(body).ok()?;
        let is_scim = err
            .schemas
            .as_ref()
            .is_some_and(|s| s.iter().any(|u| u == ERROR_URN))
            || err.detail.is_some()
            || err.scim_type.is_some();
        is_scim.then_some(err)
    }
}

impl fmt::Display for ScimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.detail.as_deref(), self.scim_type.as_deref()) {
            (Some(d), Some(t)) => write!(f, "{d} ({t})"),
            (Some(d), None) => f.write_str(d),
            (None, Some(t)) => f.write_str(t),
            (None, None) => f.write_str("SCIM error"),
        }
    }
}

/// A ListResponse (`GET /Users?filter=...`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ListResponse {
    /// How many resources matched.
    #[serde(rename = "totalResults")]
    pub total_results: Lenient<i64>,
    /// The resources (this page).
    #[serde(
        rename = "Resources",
        alias = "resources",
        deserialize_with = "resources"
    )]
    pub resources: Vec<Value>,
}

fn resources<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items,
        _ => Vec::new(),
    })
}

/// The filter `userName eq "<name>"`, the name escaped as a JSON string.
pub fn user_name_filter(name: &str) -> String {
    format!("userName eq {}", Value::String(name.to_owned()))
}

/// The filter `displayName eq "<name>"`, the name escaped as a JSON string.
pub fn display_name_filter(name: &str) -> String {
    format!("displayName eq {}", Value::String(name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patch_documents_are_checked() {
        let ok = PatchOp::from_document(&json!({
            "schemas": [PATCH_OP_URN],
            "Operations": [{"op": "Replace", "path": "active", "value": false}, {"op": "remove", "path": "title"}]
        }))
        .unwrap();
        assert_eq!(ok.operations[0].op, Op::Replace);
        let err = |doc: Value| PatchOp::from_document(&doc).unwrap_err();
        assert!(err(json!({"Operations": []})).contains("schemas"));
        assert!(err(json!({"schemas": [PATCH_OP_URN]})).contains("Operations"));
        assert!(
            err(json!({"schemas": [PATCH_OP_URN], "Operations": [{"op": "remove"}]}))
                .contains("path")
        );
        assert!(
            err(json!({"schemas": [PATCH_OP_URN], "Operations": [{"op": "move", "path": "a"}]}))
                .contains("move")
        );
        assert!(
            err(json!({"schemas": [PATCH_OP_URN], "Operations": [{"op": "replace", "value": 1}]}))
                .contains("object")
        );
    }

    #[test]
    fn users_are_read_leniently() {
        let u = User::from_value(&json!({
            "id": "42", "userName": "a@b.c", "active": "False", "name": null,
            "Meta": {"ResourceType": "User", "LastModified": "2024-01-01T00:00:00Z"}
        }))
        .unwrap();
        assert_eq!(u.active, Some(false));
        assert_eq!(u.meta.resource_type.as_deref(), Some("User"));
        assert_eq!(
            u.meta.last_modified.as_deref(),
            Some("2024-01-01T00:00:00Z")
        );
        // Attribute names in any case (RFC 7643 §2.1); the exact spelling wins.
        let u = User::from_value(&json!({"Id": "7", "Active": true, "USERNAME": "x"})).unwrap();
        assert_eq!(
            (u.id.as_deref(), u.active.0, u.user_name.as_deref()),
            (Some("7"), Some(true), Some("x"))
        );
        let u = User::from_value(&json!({"Active": true, "active": false})).unwrap();
        assert_eq!(u.active.0, Some(false));
    }

    #[test]
    fn errors_with_string_or_numeric_status() {
        let a = ScimError::from_slice(br#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"404","detail":"User not found"}"#).unwrap();
        assert_eq!(a.status, Some(404));
        assert_eq!(a.to_string(), "User not found");
        let b =
            ScimError::from_slice(br#"{"status":409,"scimType":"uniqueness","detail":"taken"}"#)
                .unwrap();
        assert_eq!(b.status, Some(409));
        assert_eq!(b.to_string(), "taken (uniqueness)");
        assert!(ScimError::from_slice(b"<html>").is_none());
        assert!(ScimError::from_slice(br#"{"message":"x"}"#).is_none());
    }

    #[test]
    fn filters_escape_the_name() {
        assert_eq!(user_name_filter("a@b.c"), r#"userName eq "a@b.c""#);
        assert_eq!(user_name_filter(r#"x"y\z"#), r#"userName eq "x\"y\\z""#);
    }
}
