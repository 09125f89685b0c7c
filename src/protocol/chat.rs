//! The chat request body (`stream-chat-state`), its `sessionSettings`, and their rules.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// The body of a chat request; a read of the thread's state when `input` is absent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRequest {
    /// The user's message; absent for a state read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The thread; absent to create a new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    /// `<unix-ms>-message`; makes a resend idempotent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Who is asking (required).
    pub session_settings: SessionSettings,
    /// `activeBranchName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_branch_name: Option<String>,
    /// `isDefaultBranch`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_default_branch: Option<bool>,
    /// Images attached to the message (newer servers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<Image>>,
    /// Fields this version does not know, kept so that `--body` passes them through.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An attached image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// e.g. `image/png`.
    pub mime_type: String,
    /// Base64 of the file's bytes.
    pub data: String,
    /// The file name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `sessionSettings`: the identity the agent acts for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSettings {
    /// An external user id: lowercase, trimmed, no spaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// An existing internal user, usually an email.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal_id: Option<String>,
    /// The user's email.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Attributes that drive row-level security.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_attributes: Option<Vec<UserAttribute>>,
    /// Groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<String>>,
    /// Roles (newer servers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<String>>,
    /// A security context object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_context: Option<Value>,
    /// IANA time zone (newer servers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Whether an external user is removed after its TTL (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_ephemeral: Option<bool>,
    /// The TTL of an ephemeral user (default one week).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ephemeral_ttl_seconds: Option<u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One `{name, value}` user attribute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAttribute {
    /// The attribute's name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// A rule of `sessionSettings` that a value breaks, with the wire field it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// The field on the wire, e.g. `sessionSettings.externalId`.
    pub field: &'static str,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl SessionSettings {
    /// Check the identity rules of the protocol: exactly one id, a well-formed external id, and
    /// no attributes, groups, roles or security context with an internal id.
    pub fn validate(&self) -> Result<(), RuleError> {
        match (&self.external_id, &self.internal_id) {
            (Some(_), Some(_)) => {
                return Err(RuleError {
                    field: "sessionSettings",
                    problem: "give exactly one of externalId and internalId, not both".into(),
                });
            }
            (None, None) => {
                return Err(RuleError {
                    field: "sessionSettings",
                    problem: "give exactly one of externalId and internalId".into(),
                });
            }
            (Some(ext), None) => check_external_id(ext).map_err(|problem| RuleError {
                field: "sessionSettings.externalId",
                problem,
            })?,
            (None, Some(int)) => {
                if int.trim().is_empty() {
                    return Err(RuleError {
                        field: "sessionSettings.internalId",
                        problem: "must not be empty".into(),
                    });
                }
                let forbidden = [
                    (
                        "sessionSettings.userAttributes",
                        self.user_attributes.is_some(),
                    ),
                    ("sessionSettings.groups", self.groups.is_some()),
                    ("sessionSettings.roles", self.roles.is_some()),
                    (
                        "sessionSettings.securityContext",
                        self.security_context.is_some(),
                    ),
                ];
                if let Some((field, _)) = forbidden.iter().find(|(_, present)| *present) {
                    return Err(RuleError {
                        field,
                        problem: "cannot be sent with internalId (the internal user's own settings apply)"
                            .into(),
                    });
                }
            }
        }
        // PROTOCOL.md: `sessionSettings.timezone` is an IANA name.
        if let Some(tz) = self.timezone.as_deref().filter(|tz| !is_iana_name(tz)) {
            return Err(RuleError {
                field: "sessionSettings.timezone",
                problem: format!(
                    "{tz:?} is not an IANA time zone name (such as Europe/Paris or UTC)"
                ),
            });
        }
        Ok(())
    }
}

/// Whether `tz` is a name of the IANA time zone database (a zone or a link: `UTC`,
/// `Europe/Paris`, `US/Eastern`, `Etc/GMT+2`), case-sensitive as the database is.
pub fn is_iana_name(tz: &str) -> bool {
    super::tz_names::NAMES.binary_search(&tz).is_ok()
}

/// An external id must be non-empty, lowercase, trimmed and without spaces.
pub fn check_external_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        Err("must not be empty".into())
    } else if id.chars().any(char::is_whitespace) {
        Err(format!("{id:?} must not contain spaces"))
    } else if id.chars().any(char::is_uppercase) {
        Err(format!(
            "{id:?} must be lowercase (try {:?})",
            id.to_lowercase()
        ))
    } else {
        Ok(())
    }
}

/// Whether a message id has the form `^\d{13,}-message$`.
pub fn is_valid_message_id(id: &str) -> bool {
    id.strip_suffix("-message")
        .is_some_and(|digits| digits.len() >= 13 && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// A new message id from a time in milliseconds since the Unix epoch.
pub fn message_id_at(unix_ms: u128) -> String {
    format!("{unix_ms:013}-message")
}

/// The abort request body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbortRequest {
    /// The thread to stop.
    pub chat_id: String,
    /// Who is asking (every request carries the identity).
    pub session_settings: SessionSettings,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_zones_are_the_iana_databases_names() {
        for tz in [
            "UTC",
            "Europe/Paris",
            "US/Eastern",
            "Etc/GMT+2",
            "America/Argentina/Salta",
        ] {
            assert!(is_iana_name(tz), "{tz}");
        }
        for tz in [
            "Mars/Olympus",
            "utc",
            "europe/paris",
            "",
            "Europe/",
            "+02:00",
        ] {
            assert!(!is_iana_name(tz), "{tz}");
        }
        // Sorted, so that the binary search finds every name.
        assert!(
            super::super::tz_names::NAMES
                .windows(2)
                .all(|w| w[0] < w[1])
        );
    }

    fn ext(id: &str) -> SessionSettings {
        SessionSettings {
            external_id: Some(id.into()),
            ..Default::default()
        }
    }

    #[test]
    fn message_ids() {
        assert!(is_valid_message_id("1700000000000-message"));
        assert!(is_valid_message_id("17000000000001-message"));
        assert!(!is_valid_message_id("170000000000-message"));
        assert!(!is_valid_message_id("1700000000000-msg"));
        assert!(!is_valid_message_id("17000000000a0-message"));
        assert_eq!(message_id_at(1_700_000_000_123), "1700000000123-message");
    }

    #[test]
    fn identity_rules() {
        assert!(ext("ci-bot").validate().is_ok());
        assert_eq!(
            ext("CI").validate().unwrap_err().field,
            "sessionSettings.externalId"
        );
        assert!(
            ext("a b")
                .validate()
                .unwrap_err()
                .problem
                .contains("spaces")
        );
        assert!(SessionSettings::default().validate().is_err());
        let both = SessionSettings {
            internal_id: Some("a@b.c".into()),
            ..ext("x")
        };
        assert!(both.validate().unwrap_err().problem.contains("not both"));
        let internal_with_groups = SessionSettings {
            internal_id: Some("a@b.c".into()),
            groups: Some(vec!["g".into()]),
            ..Default::default()
        };
        assert_eq!(
            internal_with_groups.validate().unwrap_err().field,
            "sessionSettings.groups"
        );
    }

    #[test]
    fn request_round_trips_unknown_fields_and_skips_absent_ones() {
        let body =
            r#"{"input":"hi","sessionSettings":{"externalId":"x","futureFlag":1},"newField":[1]}"#;
        let req: ChatRequest = serde_json::from_str(body).unwrap();
        assert_eq!(req.extra["newField"], serde_json::json!([1]));
        assert_eq!(req.session_settings.extra["futureFlag"], 1);
        let out = serde_json::to_string(&req).unwrap();
        assert_eq!(
            out,
            r#"{"input":"hi","sessionSettings":{"externalId":"x","futureFlag":1},"newField":[1]}"#
        );
    }
}
