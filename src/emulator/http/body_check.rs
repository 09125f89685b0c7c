//! Shape checks of chat and abort bodies before they are typed, so that a 400 can name the
//! exact field (`sessionSettings.userAttributes[0].value`) instead of a serde position.

use serde_json::{Map, Value};

/// A body field that breaks a rule.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FieldError {
    /// The field's path on the wire.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

fn fail(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

type Check = Result<(), FieldError>;

/// A chat body: `input`, `chatId`, `messageId`, branch fields, `images` and `sessionSettings`
/// (required unless a token carries the identity).
pub(crate) fn chat_body(v: &Value, need_session: bool) -> Check {
    let obj = v
        .as_object()
        .ok_or_else(|| fail("body", "the body must be a JSON object"))?;
    for key in ["input", "chatId", "messageId", "activeBranchName"] {
        string(obj, key, key)?;
    }
    boolean(obj, "isDefaultBranch", "isDefaultBranch")?;
    if let Some(images) = present(obj, "images") {
        let items = images
            .as_array()
            .ok_or_else(|| fail("images", "must be an array"))?;
        for (i, image) in items.iter().enumerate() {
            let at = format!("images[{i}]");
            let img = image
                .as_object()
                .ok_or_else(|| fail(&at, "must be an object {mimeType, data, name?}"))?;
            for key in ["mimeType", "data"] {
                if present(img, key).is_none() {
                    return Err(fail(format!("{at}.{key}"), "is required"));
                }
                string(img, key, &format!("{at}.{key}"))?;
            }
            string(img, "name", &format!("{at}.name"))?;
        }
    }
    session(obj, need_session)
}

/// An abort body: a `chatId` and (unless a token carries it) the identity.
pub(crate) fn abort_body(v: &Value, need_session: bool) -> Check {
    let obj = v
        .as_object()
        .ok_or_else(|| fail("body", "the body must be a JSON object"))?;
    if present(obj, "chatId").is_none() {
        return Err(fail("chatId", "is required: the thread to stop"));
    }
    string(obj, "chatId", "chatId")?;
    session(obj, need_session)
}

fn session(obj: &Map<String, Value>, need_session: bool) -> Check {
    let Some(s) = present(obj, "sessionSettings") else {
        return if need_session {
            Err(fail(
                "sessionSettings",
                "is required: give externalId or internalId",
            ))
        } else {
            Ok(())
        };
    };
    let s = s
        .as_object()
        .ok_or_else(|| fail("sessionSettings", "must be an object"))?;
    for key in ["externalId", "internalId", "email", "timezone"] {
        string(s, key, &format!("sessionSettings.{key}"))?;
    }
    boolean(s, "isEphemeral", "sessionSettings.isEphemeral")?;
    if let Some(ttl) = present(s, "ephemeralTtlSeconds")
        && ttl.as_u64().is_none()
    {
        return Err(fail(
            "sessionSettings.ephemeralTtlSeconds",
            "must be a whole number of seconds",
        ));
    }
    if let Some(ctx) = present(s, "securityContext")
        && !ctx.is_object()
    {
        return Err(fail("sessionSettings.securityContext", "must be an object"));
    }
    for key in ["groups", "roles"] {
        if let Some(list) = present(s, key) {
            let field = format!("sessionSettings.{key}");
            let items = list
                .as_array()
                .ok_or_else(|| fail(&field, "must be an array of strings"))?;
            if let Some(i) = items.iter().position(|x| !x.is_string()) {
                return Err(fail(format!("{field}[{i}]"), "must be a string"));
            }
        }
    }
    if let Some(attrs) = present(s, "userAttributes") {
        let field = "sessionSettings.userAttributes";
        let items = attrs
            .as_array()
            .ok_or_else(|| fail(field, "must be an array of {name, value}"))?;
        for (i, item) in items.iter().enumerate() {
            let at = format!("{field}[{i}]");
            let pair = item
                .as_object()
                .ok_or_else(|| fail(&at, "must be an object {name, value}"))?;
            for key in ["name", "value"] {
                match pair.get(key) {
                    Some(Value::String(_)) => {}
                    Some(_) => return Err(fail(format!("{at}.{key}"), "must be a string")),
                    None => return Err(fail(format!("{at}.{key}"), "is required")),
                }
            }
        }
    }
    Ok(())
}

/// A field's value unless absent or null (null counts as absent, as serde reads it).
fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn string(obj: &Map<String, Value>, key: &str, field: &str) -> Check {
    match present(obj, key) {
        Some(v) if !v.is_string() => Err(fail(field, format!("must be a string, not {}", kind(v)))),
        _ => Ok(()),
    }
}

fn boolean(obj: &Map<String, Value>, key: &str, field: &str) -> Check {
    match present(obj, key) {
        Some(v) if !v.is_boolean() => {
            Err(fail(field, format!("must be a boolean, not {}", kind(v))))
        }
        _ => Ok(()),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(v: Value) -> String {
        chat_body(&v, true).unwrap_err().field
    }

    #[test]
    fn fields_are_named() {
        let ok = json!({"input": "hi", "sessionSettings": {"externalId": "a"}});
        assert!(chat_body(&ok, true).is_ok());
        assert!(chat_body(&json!({"input": "hi"}), false).is_ok());
        assert_eq!(field(json!([1])), "body");
        assert_eq!(field(json!({"input": 5, "sessionSettings": {}})), "input");
        assert_eq!(field(json!({"input": "x"})), "sessionSettings");
        assert_eq!(
            field(json!({"sessionSettings": {"userAttributes": [{"name": "r", "value": 1}]}})),
            "sessionSettings.userAttributes[0].value"
        );
        assert_eq!(
            field(json!({"sessionSettings": {"groups": ["a", 2]}})),
            "sessionSettings.groups[1]"
        );
        assert_eq!(
            field(json!({"sessionSettings": {"ephemeralTtlSeconds": -1}})),
            "sessionSettings.ephemeralTtlSeconds"
        );
        assert_eq!(
            field(json!({"images": [{"mimeType": "image/png"}], "sessionSettings": {}})),
            "images[0].data"
        );
        assert_eq!(abort_body(&json!({}), true).unwrap_err().field, "chatId");
    }
}
