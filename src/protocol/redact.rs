//! Which names carry secrets, and JSON with their values masked: the one rule for what the
//! client's `-v`/`-vv`/`--dry-run` and the emulator's `serve -vv` may show.

use serde_json::Value;

/// What a secret is shown as.
pub const MASK: &str = "***";

/// Whether a header, a JSON key or a SCIM attribute path names a credential: passwords,
/// secrets, tokens, API keys, private keys, auth headers and cookies. Case, `-` and `_` do not
/// matter, and of a path only its last attribute counts (`urn:...:User:password`).
pub fn is_secret_name(name: &str) -> bool {
    let last = name.rsplit(':').next().unwrap_or(name);
    let n: String = last
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        n.as_str(),
        "authorization"
            | "proxyauthorization"
            | "cookie"
            | "setcookie"
            | "passwd"
            | "pwd"
            | "credential"
            | "credentials"
    ) || [
        "password",
        "secret",
        "token",
        "apikey",
        "privatekey",
        "accesskey",
    ]
    .iter()
    .any(|end| n.ends_with(end))
}

/// `value` with the value of every secret key masked, at any depth; `also` names more keys to
/// mask. An object whose `path` or `name` names a secret (a SCIM PATCH operation
/// `{"op":"replace","path":"password","value":...}`, a `{name, value}` attribute) has its
/// `value` masked too.
pub fn masked(value: Value, also: &[&str]) -> Value {
    match value {
        Value::Object(map) => {
            let names_secret = ["path", "name"].iter().any(|k| {
                map.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(is_secret_name)
            });
            Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let secret = is_secret_name(&k)
                            || also.iter().any(|a| a.eq_ignore_ascii_case(&k))
                            || (names_secret && (k == "value" || k == "values"));
                        let v = if secret {
                            Value::from(MASK)
                        } else {
                            masked(v, also)
                        };
                        (k, v)
                    })
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| masked(v, also)).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_names() {
        for name in [
            "password",
            "Password",
            "urn:ietf:params:scim:schemas:core:2.0:User:password",
            "apiKey",
            "api_key",
            "X-Api-Key",
            "x-cube-auth-token",
            "client_secret",
            "accessToken",
            "Authorization",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "userName",
            "active",
            "totalTokens",
            "emails[type eq \"work\"].value",
            "query",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn secrets_are_masked_at_any_depth_and_by_the_path_that_names_them() {
        let v = json!({"userName": "a", "password": "p", "x": [{"apiKey": {"k": 1}}],
            "Operations": [{"op": "replace", "path": "password", "value": "hunter2"},
                           {"op": "replace", "path": "active", "value": false},
                           {"op": "replace", "value": {"password": "p2", "displayName": "D"}}],
            "userAttributes": [{"name": "api_token", "value": "t"}, {"name": "region", "value": "EU"}],
            "context": {"k": "v"}});
        assert_eq!(
            masked(v, &["context"]),
            json!({"userName": "a", "password": "***", "x": [{"apiKey": "***"}],
                "Operations": [{"op": "replace", "path": "password", "value": "***"},
                               {"op": "replace", "path": "active", "value": false},
                               {"op": "replace", "value": {"password": "***", "displayName": "D"}}],
                "userAttributes": [{"name": "api_token", "value": "***"}, {"name": "region", "value": "EU"}],
                "context": "***"})
        );
    }
}
