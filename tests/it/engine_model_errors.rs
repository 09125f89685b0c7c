//! Bad model and data files fail with messages naming the file, the path inside it, and the problem.

use analyst::emulator::engine::Engine;

const GOOD_CUBE: &str = "  - name: orders\n    sql_table: orders\n    measures:\n      - {name: count, type: count}\n    dimensions:\n      - {name: status, sql: status, type: string}\n";

fn error_for(yaml: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad-model.yaml");
    std::fs::write(&path, yaml).unwrap();
    let err = Engine::open(Some(&path), None)
        .err()
        .expect("the model must be rejected");
    let msg = format!("{err:#}");
    assert!(msg.contains("bad-model.yaml"), "no file name in: {msg}");
    msg
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} does not mention {p:?}");
    }
}

#[test]
fn structural_errors_name_the_path() {
    let cases: &[(&str, &[&str])] = &[
        (
            &format!(
                "cubes:\n{GOOD_CUBE}  - name: items\n    sql_table: order_items\n    measures:\n      - {{name: revenue, type: summ, sql: amount}}\n"
            ),
            &["cubes[1].measures[0].type", "summ", "sum"],
        ),
        (
            "cubes:\n  - name: orders\n    measures: []\n",
            &["cubes[0].sql_table", "required"],
        ),
        ("cubes: []\n", &["cubes", "at least one"]),
        ("views: {}\n", &["cubes"]),
        (
            &format!("cubes:\n{GOOD_CUBE}    joins:\n      - {{name: nowhere, sql: \"1 = 1\"}}\n"),
            &["cubes[0].joins[0].name", "nowhere"],
        ),
        (
            &format!(
                "cubes:\n{GOOD_CUBE}views:\n  - name: v\n    cubes:\n      - join_path: orders\n      - join_path: orders.customers\n"
            ),
            &["views[0].cubes[1].join_path", "customers"],
        ),
        (
            &format!(
                "cubes:\n{GOOD_CUBE}    access_policy:\n      - {{member: region, user_attribute: region}}\n"
            ),
            &["cubes[0].access_policy[0].member", "region"],
        ),
        (
            &format!(
                "cubes:\n{GOOD_CUBE}    access_policy:\n      - {{member: status, equals: \"{{ nope }}\"}}\n"
            ),
            &["cubes[0].access_policy[0].equals"],
        ),
        (
            "cubes:\n  - name: 2bad\n    sql_table: orders\n",
            &["cubes[0].name", "identifier"],
        ),
        (
            "cubes:\n  - name: orders\n    sql_table: orders\n    dimensions:\n      - {name: status, sql: status}\n",
            &["cubes[0].dimensions[0].type", "required"],
        ),
        (
            &format!(
                "cubes:\n{GOOD_CUBE}      - {{name: total, sql: amount, type: number, sub_query: true}}\n"
            ),
            &["cubes[0].dimensions[1].sql", "{cube.measure}"],
        ),
        (
            &format!(
                "cubes:\n{GOOD_CUBE}      - {{name: total, sql: \"{{items.revenue}}\", type: number, sub_query: true}}\n  - name: items\n    sql_table: order_items\n    measures:\n      - {{name: revenue, type: sum, sql: amount}}\n"
            ),
            &["cubes[0].dimensions[1].sql", "no join"],
        ),
        ("cubes:\n  - name: orders\n   sql_table: [\n", &["line"]),
    ];
    for (yaml, parts) in cases {
        assert_mentions(&error_for(yaml), parts);
    }
}

#[test]
fn errors_against_the_data_name_the_path() {
    assert_mentions(
        &error_for("cubes:\n  - name: orders\n    sql_table: nosuch\n"),
        &["cubes[0].sql_table", "nosuch"],
    );
    let bad_column = "cubes:\n  - name: orders\n    sql_table: orders\n    dimensions:\n      - {name: status, sql: status, type: string}\n      - {name: colour, sql: colour, type: string}\n";
    assert_mentions(
        &error_for(bad_column),
        &["cubes[0].dimensions[1].sql", "colour"],
    );
}

#[test]
fn bad_data_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.sqlite");
    assert!(
        format!("{:#}", Engine::open(None, Some(&missing)).err().unwrap())
            .contains("missing.sqlite")
    );
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(
        &junk,
        "this is not a database, just text that is long enough to have a header",
    )
    .unwrap();
    assert!(
        format!("{:#}", Engine::open(None, Some(&junk)).err().unwrap()).contains("junk.sqlite")
    );
    let missing_model = dir.path().join("nomodel.yaml");
    assert!(
        format!(
            "{:#}",
            Engine::open(Some(&missing_model), None).err().unwrap()
        )
        .contains("nomodel.yaml")
    );
}
