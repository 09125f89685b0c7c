use super::*;
use crate::protocol::scim::USER_URN;
use serde_json::json;

fn user() -> Map<String, Value> {
    json!({
        "userName": "ana@example.com",
        "name": {"givenName": "Ana", "familyName": "Lyst"},
        "emails": [
            {"value": "ana@example.com", "primary": true, "type": "work"},
            {"value": "ana@home.example", "primary": false, "type": "home"}
        ],
        "active": true
    })
    .as_object()
    .cloned()
    .unwrap()
}

fn op(op: &str, path: Option<&str>, value: Option<Value>) -> Operation {
    Operation {
        op: Op::parse(op).expect("add, remove or replace"),
        path: path.map(str::to_owned),
        value,
    }
}

fn patched(ops: &[Operation]) -> Result<Value, PatchError> {
    let mut u = user();
    for o in ops {
        apply(&mut u, o)?;
    }
    Ok(Value::Object(u))
}

#[test]
fn simple_and_sub_attribute_paths() {
    let u = patched(&[
        op("replace", Some("active"), Some(json!(false))),
        op("replace", Some("name.givenName"), Some(json!("Anna"))),
        op("add", Some("title"), Some(json!("Boss"))),
        op("remove", Some("name.familyName"), None),
    ])
    .unwrap();
    assert_eq!(u["active"], false);
    assert_eq!(u["name"], json!({"givenName": "Anna"}));
    assert_eq!(u["title"], "Boss");
    let u = patched(&[op("replace", Some("NAME.GIVENNAME"), Some(json!("A")))]).unwrap();
    assert_eq!(u["name"]["givenName"], "A", "paths are case-insensitive");
    let qualified = format!("{USER_URN}:name.familyName");
    let u = patched(&[op("replace", Some(&qualified), Some(json!("X")))]).unwrap();
    assert_eq!(u["name"]["familyName"], "X");
}

#[test]
fn value_filters() {
    let u = patched(&[op(
        "replace",
        Some("emails[primary eq true].value"),
        Some(json!("new@example.com")),
    )])
    .unwrap();
    assert_eq!(u["emails"][0]["value"], "new@example.com");
    assert_eq!(u["emails"][1]["value"], "ana@home.example");
    let u = patched(&[op("remove", Some("emails[type eq \"home\"]"), None)]).unwrap();
    assert_eq!(u["emails"].as_array().unwrap().len(), 1);
    let u = patched(&[op(
        "add",
        Some("emails[type eq \"work\" and primary eq true].display"),
        Some(json!("Work")),
    )])
    .unwrap();
    assert_eq!(u["emails"][0]["display"], "Work");
    let miss = patched(&[op(
        "replace",
        Some("emails[type eq \"other\"].value"),
        Some(json!("x")),
    )]);
    assert_eq!(miss.unwrap_err().scim_type, "noTarget");
}

#[test]
fn pathless_replace_and_multi_valued_add() {
    let u = patched(&[
        op(
            "replace",
            None,
            Some(json!({"active": false, "name.familyName": "New", "displayName": "Ana L"})),
        ),
        op(
            "add",
            Some("emails"),
            Some(json!([{"value": "third@example.com"}])),
        ),
    ])
    .unwrap();
    assert_eq!(u["active"], false);
    assert_eq!(u["name"], json!({"givenName": "Ana", "familyName": "New"}));
    assert_eq!(u["displayName"], "Ana L");
    assert_eq!(u["emails"].as_array().unwrap().len(), 3);
    let u = patched(&[op(
        "replace",
        None,
        Some(json!({"name": {"givenName": "Z"}})),
    )])
    .unwrap();
    assert_eq!(
        u["name"]["familyName"], "Lyst",
        "complex replace keeps other sub-attributes"
    );
}

#[test]
fn errors_carry_scim_types() {
    let kind = |o: Operation| patched(&[o]).unwrap_err().scim_type;
    assert_eq!(
        kind(op("replace", Some("bad path!"), Some(json!(1)))),
        "invalidPath"
    );
    assert_eq!(
        kind(op("replace", Some("emails[type eq]"), Some(json!(1)))),
        "invalidPath"
    );
    assert_eq!(
        kind(op("replace", Some("emails[x eq 1"), Some(json!(1)))),
        "invalidPath"
    );
    assert_eq!(
        kind(op("replace", Some("active.x"), Some(json!(1)))),
        "invalidPath"
    );
    assert_eq!(
        kind(op("replace", Some("id"), Some(json!("x")))),
        "mutability"
    );
    assert_eq!(kind(op("add", Some("title"), None)), "invalidValue");
    assert_eq!(
        kind(op("remove", Some("title[value eq 1]"), None)),
        "noTarget"
    );
}

#[test]
fn paths_outside_the_published_schemas_are_invalid() {
    let ent = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
    for (o, path) in [
        (op("replace", Some("actve"), Some(json!(false))), "actve"),
        (op("add", Some("foo.bar"), Some(json!(1))), "foo.bar"),
        (
            op("replace", Some("name.givenNam"), Some(json!("A"))),
            "name.givenNam",
        ),
        (op("remove", Some("nickname.x"), None), "nickname.x"),
        (op("replace", None, Some(json!({"bogus": 1}))), "bogus"),
        (
            op("add", Some(&format!("{ent}:departmnt")), Some(json!("R&D"))),
            "departmnt",
        ),
        (
            op(
                "add",
                Some("urn:example:ext:1.0:User:shoeSize"),
                Some(json!(44)),
            ),
            "shoeSize",
        ),
    ] {
        let e = patched(&[o]).unwrap_err();
        assert_eq!(e.scim_type, "invalidPath", "{path}: {e:?}");
        assert!(e.detail.contains(path), "{path}: {e:?}");
    }
    // The names the published schemas define pass, in any case.
    let u = patched(&[
        op("replace", Some("ACTIVE"), Some(json!(false))),
        op("replace", Some("Name.GivenName"), Some(json!("Anna"))),
        op("add", Some("externalId"), Some(json!("ana-1"))),
        op(
            "add",
            Some(&format!("{ent}:department")),
            Some(json!("R&D")),
        ),
        op(
            "add",
            Some(&format!("{ent}:manager.value")),
            Some(json!("b1")),
        ),
        op(
            "add",
            Some(&format!("{USER_URN}:title")),
            Some(json!("CFO")),
        ),
        op(
            "replace",
            None,
            Some(json!({"nickName": "A", "emails[type eq \"work\"].value": "a@x.io"})),
        ),
    ])
    .unwrap();
    assert_eq!(u["active"], false);
    assert_eq!(u["name"]["givenName"], "Anna");
    assert_eq!(u[ent]["manager"]["value"], "b1");
    assert_eq!(u["title"], "CFO");
}

#[test]
fn attributes_inside_values_must_be_published_too() {
    let ent = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
    for (o, named) in [
        (
            op("replace", None, Some(json!({"name": {"givenNam": "Ana"}}))),
            "name.givenNam",
        ),
        (
            op(
                "replace",
                Some("name"),
                Some(json!({"givenName": "A", "middle": "x"})),
            ),
            "name.middle",
        ),
        (
            op("add", Some("emails"), Some(json!([{"valu": "x@y.z"}]))),
            "emails.valu",
        ),
        (
            op("replace", None, Some(json!({ent: {"departmen": "x"}}))),
            "departmen",
        ),
        (
            op("add", Some(ent), Some(json!({"manager": {"valu": "b1"}}))),
            "manager.valu",
        ),
    ] {
        let e = patched(&[o]).unwrap_err();
        assert_eq!(e.scim_type, "invalidPath", "{named}: {e:?}");
        assert!(e.detail.contains(named), "{named}: {e:?}");
    }
    let u = patched(&[
        op(
            "replace",
            None,
            Some(json!({"name": {"GivenName": "Anna", "familyName": "L"}})),
        ),
        op(
            "add",
            Some("emails"),
            Some(json!([{"value": "a@b.c", "type": "home", "primary": false}])),
        ),
        op(
            "replace",
            Some("emails[type eq \"work\"]"),
            Some(json!({"value": "w@b.c"})),
        ),
        op(
            "add",
            Some(ent),
            Some(json!({"department": "R&D", "manager": {"value": "b1"}})),
        ),
    ])
    .unwrap();
    assert_eq!(u[ent]["manager"]["value"], "b1");
}
