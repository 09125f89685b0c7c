//! Unit tests of `scim_filter`.

use super::*;
use serde_json::json;

fn user() -> Value {
    json!({
        "id": "2819c223-7f76-453a-919d-413861904646",
        "externalId": "Ext-1",
        "userName": "Bjensen@Example.com",
        "name": {"familyName": "Jensen", "givenName": "Barbara"},
        "title": "",
        "active": true,
        "emails": [
            {"value": "bjensen@example.com", "type": "work", "primary": true},
            {"value": "babs@jensen.org", "type": "home"}
        ],
        "loginCount": 7,
        "meta": {"lastModified": "2011-05-13T04:42:34Z", "version": "W/\"3\""},
    })
}

fn m(f: &str) -> bool {
    Filter::parse(f)
        .unwrap_or_else(|e| panic!("{f}: {e}"))
        .matches(&user())
}

#[test]
fn operators() {
    assert!(
        m(r#"userName eq "bjensen@example.com""#),
        "userName is not caseExact"
    );
    assert!(m(r#"USERNAME Eq "BJENSEN@EXAMPLE.COM""#));
    assert!(!m(r#"externalId eq "ext-1""#), "externalId is caseExact");
    assert!(m(r#"externalId eq "Ext-1""#));
    assert!(m(r#"name.familyName co "ens""#));
    assert!(m(r#"userName sw "bj""#) && m(r#"userName ew ".COM""#));
    assert!(m(r#"userName ne "x""#) && !m(r#"userName ne "bjensen@example.com""#));
    assert!(!m("title pr"), "an empty string is not present");
    assert!(m("name pr") && m("emails pr") && !m("nickName pr"));
    assert!(m("loginCount gt 6") && m("loginCount ge 7") && !m("loginCount lt 7"));
    assert!(m("loginCount le 7.0") && m("loginCount eq 7"));
    assert!(m("active eq true") && !m("active eq false") && m("active ne false"));
    assert!(m("nickName eq null") && m("userName ne null") && !m("userName eq null"));
    assert!(
        m(r#"nickName ne "x""#),
        "ne matches an unassigned attribute"
    );
    assert!(
        m(r#"emails.value ew "jensen.org""#),
        "any value of a multi-valued attribute"
    );
    assert!(
        m(r#"emails co "babs""#),
        "a complex value stands for its value"
    );
    assert!(m(
        r#"urn:ietf:params:scim:schemas:core:2.0:User:name.givenName eq "barbara""#
    ));
}

#[test]
fn instants_compare_as_times() {
    assert!(m(r#"meta.lastModified gt "2011-05-13T04:42:33Z""#));
    assert!(m(r#"meta.lastModified eq "2011-05-13T06:42:34.000+02:00""#));
    assert!(m(r#"meta.lastModified lt "2011-05-13T04:42:34.5Z""#));
    assert!(!m(r#"meta.lastModified ge "2012-01-01T00:00:00Z""#));
    assert!(m(r#"meta.version eq "W/\"3\"""#));
}

#[test]
fn logic_precedence_brackets_and_value_paths() {
    // and binds tighter than or; not tighter than and.
    assert!(m(r#"userName eq "x" and title pr or active eq true"#));
    assert!(!m(r#"userName eq "x" and (title pr or active eq true)"#));
    assert!(!m(r#"not active eq true and userName pr"#));
    assert!(m(r#"not (userName eq "x") and not (active eq false)"#));
    assert!(m(r#"emails[type eq "work" and value co "@example.com"]"#));
    assert!(!m(r#"emails[type eq "home" and value co "@example.com"]"#));
    assert!(m(r#"emails[not (primary eq true)] and userName pr"#));
    assert!(m(r#"(((userName sw "b")))"#));
}

#[test]
fn invalid_filters_say_why() {
    for bad in [
        "",
        "userName",
        "userName eq",
        "userName zz \"x\"",
        "userName eq \"open",
        "userName eq bare",
        "(userName pr",
        "userName pr)",
        "userName pr and",
        "userName pr userName pr",
        "emails[type eq \"work\"",
        "emails[type[value pr]]",
        "active gt true",
        "userName co 3",
        "title sw null",
        "1abc eq 1",
        "not",
    ] {
        let e = Filter::parse(bad).expect_err(bad);
        assert!(e.contains("filter"), "{bad}: {e}");
    }
}

#[test]
fn instants_parse() {
    assert_eq!(
        instant("1970-01-01T00:00:00Z").map(|(s, _)| s),
        instant("1970-01-01T01:00:00+01:00").map(|(s, _)| s)
    );
    assert!(instant("1970-01-01T00:00:01Z") > instant("1970-01-01T00:00:00.999Z"));
    assert!(instant("2020-13-01T00:00:00Z").is_none() && instant("nope").is_none());
}
