//! What the SCIM endpoint says about itself (RFC 7643 sections 5-8, RFC 7644 section 4): the
//! core User schema and the enterprise extension as the store keeps them, the resource type, and
//! the service provider configuration. Pure data; the routes are in `scim_discovery`.

use crate::protocol::scim::{
    ENTERPRISE_USER_URN, RESOURCE_TYPE_URN, SCHEMA_URN, SERVICE_PROVIDER_CONFIG_URN, USER_URN,
};
use serde_json::{Value, json};

/// Largest page of a list, announced as `filter.maxResults`.
pub(crate) const MAX_RESULTS: usize = 1_000;

/// The core Group schema (RFC 7643 section 4.2).
pub(crate) const GROUP_URN: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";

/// One attribute definition (RFC 7643 section 7), built with the defaults of section 2.2.
struct Attr {
    name: &'static str,
    ty: &'static str,
    description: &'static str,
    multi: bool,
    required: bool,
    case_exact: bool,
    mutability: &'static str,
    returned: &'static str,
    uniqueness: &'static str,
    canonical: &'static [&'static str],
    refs: &'static [&'static str],
    sub: Vec<Attr>,
}

fn attr(name: &'static str, ty: &'static str, description: &'static str) -> Attr {
    Attr {
        name,
        ty,
        description,
        multi: false,
        required: false,
        case_exact: false,
        mutability: "readWrite",
        returned: "default",
        uniqueness: "none",
        canonical: &[],
        refs: &[],
        sub: Vec::new(),
    }
}

fn string(name: &'static str, description: &'static str) -> Attr {
    attr(name, "string", description)
}

fn complex(name: &'static str, description: &'static str, sub: Vec<Attr>) -> Attr {
    Attr {
        sub,
        ..attr(name, "complex", description)
    }
}

/// A multi-valued attribute with the usual `value`, `display`, `type` and `primary`.
fn plural(
    name: &'static str,
    description: &'static str,
    value: Attr,
    types: &'static [&'static str],
) -> Attr {
    Attr {
        multi: true,
        ..complex(
            name,
            description,
            vec![
                value,
                string(
                    "display",
                    "A human-readable name, primarily used for display.",
                ),
                Attr {
                    canonical: types,
                    ..string("type", "A label indicating the attribute's function.")
                },
                attr(
                    "primary",
                    "boolean",
                    "Whether this is the preferred value; at most one is.",
                ),
            ],
        )
    }
}

fn read_only(a: Attr) -> Attr {
    Attr {
        mutability: "readOnly",
        sub: a.sub.into_iter().map(read_only).collect(),
        ..a
    }
}

impl Attr {
    fn to_json(&self) -> Value {
        let mut v = json!({
            "name": self.name,
            "type": self.ty,
            "multiValued": self.multi,
            "description": self.description,
            "required": self.required,
            "caseExact": self.case_exact,
            "mutability": self.mutability,
            "returned": self.returned,
            "uniqueness": self.uniqueness,
        });
        if !self.canonical.is_empty() {
            v["canonicalValues"] = json!(self.canonical);
        }
        if !self.refs.is_empty() {
            v["referenceTypes"] = json!(self.refs);
        }
        if !self.sub.is_empty() {
            v["subAttributes"] = self.sub.iter().map(Attr::to_json).collect();
        }
        v
    }
}

/// The core User schema's attributes, as the schema endpoints describe them.
// One function because it is a table: one entry per attribute of RFC 7643's User schema, to be
// read side by side with the RFC; split, the order and the shared canonical values would scatter.
fn user_attributes() -> Vec<Attr> {
    let work_home_other: &[&str] = &["work", "home", "other"];
    vec![
        Attr {
            required: true,
            uniqueness: "server",
            ..string(
                "userName",
                "Unique identifier for the User, used to sign in.",
            )
        },
        complex(
            "name",
            "The components of the user's real name.",
            vec![
                string("formatted", "The full name, formatted for display."),
                string("familyName", "The family name of the User."),
                string("givenName", "The given name of the User."),
                string("middleName", "The middle name(s) of the User."),
                string("honorificPrefix", "The honorific prefix(es) of the User."),
                string("honorificSuffix", "The honorific suffix(es) of the User."),
            ],
        ),
        string("displayName", "The name of the User, suitable for display."),
        string("nickName", "The casual way to address the user."),
        Attr {
            refs: &["external"],
            ..attr(
                "profileUrl",
                "reference",
                "A URI of the User's online profile.",
            )
        },
        string("title", "The user's title, such as \"Vice President\"."),
        string(
            "userType",
            "The relationship between the organization and the user.",
        ),
        string(
            "preferredLanguage",
            "The User's preferred written or spoken language.",
        ),
        string("locale", "The User's default location, for localizing."),
        string("timezone", "The User's time zone, in IANA format."),
        attr("active", "boolean", "The User's administrative status."),
        Attr {
            mutability: "writeOnly",
            returned: "never",
            ..string(
                "password",
                "The User's cleartext password; write-only, never kept or returned.",
            )
        },
        plural(
            "emails",
            "Email addresses for the user.",
            string("value", "An email address."),
            work_home_other,
        ),
        plural(
            "phoneNumbers",
            "Phone numbers for the User.",
            string("value", "A phone number."),
            &["work", "home", "mobile", "fax", "pager", "other"],
        ),
        plural(
            "ims",
            "Instant messaging addresses for the User.",
            string("value", "An instant messaging address."),
            &["aim", "gtalk", "icq", "xmpp", "msn", "skype", "qq", "yahoo"],
        ),
        plural(
            "photos",
            "URLs of images of the User.",
            Attr {
                refs: &["external"],
                ..attr("value", "reference", "The URL of an image of the User.")
            },
            &["photo", "thumbnail"],
        ),
        Attr {
            multi: true,
            ..complex(
                "addresses",
                "A physical mailing address for this User.",
                vec![
                    string(
                        "formatted",
                        "The full mailing address, formatted for display.",
                    ),
                    string("streetAddress", "The full street address component."),
                    string("locality", "The city or locality component."),
                    string("region", "The state or region component."),
                    string("postalCode", "The zip code or postal code component."),
                    string("country", "The country name component."),
                    Attr {
                        canonical: work_home_other,
                        ..string("type", "A label indicating the attribute's function.")
                    },
                    attr(
                        "primary",
                        "boolean",
                        "Whether this is the preferred value; at most one is.",
                    ),
                ],
            )
        },
        read_only(Attr {
            multi: true,
            ..complex(
                "groups",
                "The groups the user belongs to directly (change them with PATCH /Groups/{id}).",
                vec![
                    string("value", "The identifier of the User's group."),
                    Attr {
                        refs: &["User", "Group"],
                        ..attr("$ref", "reference", "The URI of the group.")
                    },
                    string(
                        "display",
                        "A human-readable name, primarily used for display.",
                    ),
                    Attr {
                        canonical: &["direct", "indirect"],
                        ..string("type", "How the membership came about.")
                    },
                ],
            )
        }),
        plural(
            "entitlements",
            "A list of entitlements for the User.",
            string("value", "The value of an entitlement."),
            &[],
        ),
        plural(
            "roles",
            "A list of roles for the User.",
            string("value", "The value of a role."),
            &[],
        ),
        plural(
            "x509Certificates",
            "A list of certificates issued to the User.",
            attr("value", "binary", "The value of an X.509 certificate."),
            &[],
        ),
    ]
}

/// The core Group schema's attributes: `displayName` and `members`, whose `value`, `$ref`
/// and `type` name a user or a group and whose `display` the server fills in.
fn group_attributes() -> Vec<Attr> {
    let immutable = |a: Attr| Attr {
        mutability: "immutable",
        ..a
    };
    vec![
        Attr {
            required: true,
            uniqueness: "server",
            ..string("displayName", "A human-readable name for the Group.")
        },
        Attr {
            multi: true,
            ..complex(
                "members",
                "A list of members of the Group.",
                vec![
                    immutable(string("value", "Identifier of the member of this Group.")),
                    immutable(Attr {
                        refs: &["User", "Group"],
                        ..attr(
                            "$ref",
                            "reference",
                            "The URI of the corresponding 'User' or 'Group' resource.",
                        )
                    }),
                    read_only(string("display", "The member's name, for display.")),
                    immutable(Attr {
                        canonical: &["User", "Group"],
                        ..string("type", "The type of the member: User or Group.")
                    }),
                ],
            )
        },
    ]
}

fn enterprise_attributes() -> Vec<Attr> {
    vec![
        string(
            "employeeNumber",
            "Identifies the user within the organization.",
        ),
        string("costCenter", "Identifies the name of a cost center."),
        string("organization", "Identifies the name of an organization."),
        string("division", "Identifies the name of a division."),
        string("department", "Identifies the name of a department."),
        complex(
            "manager",
            "The User's manager.",
            vec![
                string(
                    "value",
                    "The id of the SCIM resource representing the manager.",
                ),
                Attr {
                    refs: &["User"],
                    ..attr("$ref", "reference", "The URI of the manager's resource.")
                },
                read_only(string("displayName", "The displayName of the manager.")),
            ],
        ),
    ]
}

/// Whether the schemas this endpoint publishes define what a PATCH path names: an attribute
/// (and, given `sub`, its sub-attribute) of the core User schema, one of the common attributes
/// of RFC 7643 section 3.1, the enterprise extension as a whole, or an attribute of the
/// extension `ext`. Names compare without regard to case (RFC 7643 section 2.1). A path
/// naming anything else is `invalidPath`: stored, a typo (`actve`) would report success.
pub(crate) fn defines(ext: Option<&str>, attr: &str, sub: Option<&str>) -> bool {
    if ext.is_none()
        && ["id", "externalId", "meta", "schemas", ENTERPRISE_USER_URN]
            .iter()
            .any(|a| a.eq_ignore_ascii_case(attr))
    {
        return true;
    }
    attribute(ext, attr)
        .is_some_and(|a| sub.is_none_or(|s| a.sub.iter().any(|x| x.name.eq_ignore_ascii_case(s))))
}

/// The definition of `attr` in the core User schema (`ext` none) or in the extension `ext`.
fn attribute(ext: Option<&str>, attr: &str) -> Option<Attr> {
    let attrs = match ext {
        None => user_attributes(),
        Some(urn) if urn.eq_ignore_ascii_case(ENTERPRISE_USER_URN) => enterprise_attributes(),
        Some(_) => return None,
    };
    attrs
        .into_iter()
        .find(|a| a.name.eq_ignore_ascii_case(attr))
}

/// The sub-attribute names of a complex attribute of the published schemas (`name`:
/// `givenName`, ...; `emails`: `value`, `type`, ...), or `None` for a simple or unknown one.
pub(crate) fn sub_attributes(ext: Option<&str>, attr: &str) -> Option<Vec<&'static str>> {
    attribute(ext, attr)
        .filter(|a| !a.sub.is_empty())
        .map(|a| a.sub.iter().map(|s| s.name).collect())
}

fn meta(root: &str, resource_type: &str, path: &str) -> Value {
    json!({"resourceType": resource_type, "location": format!("{root}{path}")})
}

/// Every schema served, each with its `meta`: the core User, the core Group and the
/// enterprise extension.
pub(crate) fn schemas(root: &str) -> Vec<Value> {
    [
        (USER_URN, "User", "User Account", user_attributes()),
        (GROUP_URN, "Group", "Group", group_attributes()),
        (
            ENTERPRISE_USER_URN,
            "EnterpriseUser",
            "Enterprise User",
            enterprise_attributes(),
        ),
    ]
    .into_iter()
    .map(|(id, name, description, attrs)| {
        json!({
            "schemas": [SCHEMA_URN],
            "id": id,
            "name": name,
            "description": description,
            "attributes": attrs.iter().map(Attr::to_json).collect::<Vec<_>>(),
            "meta": meta(root, "Schema", &format!("/Schemas/{id}")),
        })
    })
    .collect()
}

/// Every resource type served: User, with the enterprise extension, and Group.
pub(crate) fn resource_types(root: &str) -> Vec<Value> {
    vec![
        json!({
        "schemas": [RESOURCE_TYPE_URN],
        "id": "User",
        "name": "User",
        "endpoint": "/Users",
        "description": "User Account",
        "schema": USER_URN,
        "schemaExtensions": [{"schema": ENTERPRISE_USER_URN, "required": false}],
        "meta": meta(root, "ResourceType", "/ResourceTypes/User"),
        }),
        json!({
            "schemas": [RESOURCE_TYPE_URN],
            "id": "Group",
            "name": "Group",
            "endpoint": "/Groups",
            "description": "Group",
            "schema": GROUP_URN,
            "schemaExtensions": [],
            "meta": meta(root, "ResourceType", "/ResourceTypes/Group"),
        }),
    ]
}

/// `/ServiceProviderConfig`: what the emulator really does.
pub(crate) fn service_provider_config(root: &str) -> Value {
    json!({
        "schemas": [SERVICE_PROVIDER_CONFIG_URN],
        "patch": {"supported": true},
        "bulk": {"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
        "filter": {"supported": true, "maxResults": MAX_RESULTS},
        // Accepted and answered with 200; never kept, since nothing signs in with a password.
        "changePassword": {"supported": true},
        "sort": {"supported": true},
        "etag": {"supported": true},
        "authenticationSchemes": [{
            "type": "oauthbearertoken",
            "name": "OAuth Bearer Token",
            "description": "Authorization: Bearer <the SCIM token analyst serve prints> \
                            (Api-Key <token> is accepted too)",
            "primary": true,
        }],
        "meta": meta(root, "ServiceProviderConfig", "/ServiceProviderConfig"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_is_write_only_and_never_returned() {
        let user = &schemas("http://x")[0];
        let password = user["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "password")
            .unwrap();
        assert_eq!(password["mutability"], "writeOnly");
        assert_eq!(password["returned"], "never");
        assert_eq!(
            user["meta"]["location"],
            format!("http://x/Schemas/{USER_URN}")
        );
    }
}
