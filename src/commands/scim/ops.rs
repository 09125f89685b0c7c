//! The PatchOp of `scim patch`, from the operation flags in command-line order or from `--body`.

use crate::cli::ScimPatchArgs;
use crate::exit::usage;
use crate::protocol::scim::{Op, Operation, PatchOp};
use crate::settings::read_document;
use anyhow::Result;
use serde_json::{Map, Value};

/// One operation flag of `scim patch`, read off the command line in the order given
/// (`commands::args::patch_flags`): clap keeps each kind of flag apart, the order matters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatchFlag {
    /// `--activate` (true) or `--deactivate` (false).
    Active(bool),
    /// `--replace` or `--add`, with its raw `PATH=VALUE` or `PATH:=JSON`.
    Set(Op, String),
    /// `--remove PATH`.
    Remove(String),
}

/// The PatchOp to send: `--body` as given (checked), or the operation flags in their order.
pub fn patch_op(args: &ScimPatchArgs, flags: &[PatchFlag]) -> Result<PatchOp> {
    if let Some(body) = &args.body {
        let doc = read_document("--body", body)?;
        return PatchOp::from_document(&doc).map_err(|e| usage(format!("--body: {e}")));
    }
    let mut ops = flags.iter().map(operation).collect::<Result<Vec<_>>>()?;
    if ops.is_empty() {
        return Err(usage(
            "nothing to patch: give an operation (--deactivate, --activate, --replace, --add, \
             --remove) or a whole PatchOp with --body",
        ));
    }
    if args.pathless {
        ops = pathless(ops)?;
    }
    Ok(PatchOp::new(ops))
}

/// The operation one flag asks for.
fn operation(flag: &PatchFlag) -> Result<Operation> {
    Ok(match flag {
        PatchFlag::Active(value) => Operation {
            op: Op::Replace,
            path: Some("active".into()),
            value: Some(Value::Bool(*value)),
        },
        PatchFlag::Set(op, raw) => {
            let (path, value) = path_value(&format!("--{op}"), raw)?;
            Operation {
                op: *op,
                path: Some(path),
                value: Some(value),
            }
        }
        PatchFlag::Remove(path) => {
            let path = path.trim();
            if path.is_empty() {
                return Err(usage("--remove needs a PATH"));
            }
            Operation {
                op: Op::Remove,
                path: Some(path.to_owned()),
                value: None,
            }
        }
    })
}

/// `PATH=VALUE` (a string) or `PATH:=JSON`. The `=` that splits is the first one outside a
/// filter (`emails[type eq "a=b"].value=x`).
fn path_value(flag: &str, raw: &str) -> Result<(String, Value)> {
    let mut depth = 0usize;
    let mut in_quotes = false;
    let split = raw.char_indices().find(|&(_, c)| {
        match c {
            '"' if depth > 0 => in_quotes = !in_quotes,
            '[' if !in_quotes => depth += 1,
            ']' if !in_quotes => depth = depth.saturating_sub(1),
            '=' if depth == 0 => return true,
            _ => {}
        }
        false
    });
    let Some((at, _)) = split else {
        return Err(usage(format!(
            "{flag} {raw:?}: expected PATH=VALUE (a string) or PATH:=JSON"
        )));
    };
    let (path, raw_json) = match raw[..at].strip_suffix(':') {
        Some(path) => (path, true),
        None => (&raw[..at], false),
    };
    let path = path.trim();
    if path.is_empty() {
        return Err(usage(format!("{flag} {raw:?}: the PATH is empty")));
    }
    let text = &raw[at + 1..];
    let value = if raw_json {
        serde_json::from_str(text)
            .map_err(|e| usage(format!("{flag} {raw:?}: invalid JSON after := ({e})")))?
    } else {
        Value::String(text.to_owned())
    };
    Ok((path.to_owned(), value))
}

/// Fold replaces into path-less replaces whose value is an object: `name.givenName` becomes
/// `{"name": {"givenName": ...}}`, and an extension attribute `urn:...:User:employeeNumber`
/// becomes `{"urn:...:User": {"employeeNumber": ...}}`. Each run of consecutive replaces is one
/// operation, and a replace whose path lies on one already in the run (the same, inside it, or
/// around it) starts another: the operations still apply in the order given (RFC 7644
/// §3.5.2), and no value in one object overwrites another.
fn pathless(ops: Vec<Operation>) -> Result<Vec<Operation>> {
    let mut out = Vec::with_capacity(ops.len());
    let mut run = PathlessRun::default();
    for op in ops {
        match (op.op, op.path, op.value) {
            (Op::Replace, Some(path), Some(value)) => {
                let keys = pathless_keys(&path)?;
                if run.overlaps(&keys) {
                    out.extend(run.take());
                }
                set_nested(&mut run.value, &keys, value);
                run.paths.push(keys);
            }
            (op, path, value) => {
                out.extend(run.take());
                out.push(Operation { op, path, value });
            }
        }
    }
    out.extend(run.take());
    Ok(out)
}

/// Consecutive replaces gathered into one path-less value, with the paths they set.
#[derive(Default)]
struct PathlessRun {
    value: Map<String, Value>,
    paths: Vec<Vec<String>>,
}

impl PathlessRun {
    /// Whether `keys` is a path already set, or inside or around one.
    fn overlaps(&self, keys: &[String]) -> bool {
        self.paths.iter().any(|p| {
            let n = p.len().min(keys.len());
            p[..n]
                .iter()
                .zip(&keys[..n])
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
        })
    }

    /// The run as one operation (none when empty), leaving it empty.
    fn take(&mut self) -> Option<Operation> {
        self.paths.clear();
        (!self.value.is_empty()).then(|| Operation {
            op: Op::Replace,
            path: None,
            value: Some(Value::Object(std::mem::take(&mut self.value))),
        })
    }
}

/// The keys of a path-less value for `path`: an extension URN is one key, then the attribute
/// and its sub-attribute. A filter cannot be expressed without a path.
fn pathless_keys(path: &str) -> Result<Vec<String>> {
    if path.contains(['[', ']']) {
        return Err(usage(format!(
            "--pathless: {path:?} has a filter, which a path-less value cannot express"
        )));
    }
    let (urn, attr) = match path.rsplit_once(':') {
        Some((urn, attr)) if urn.to_ascii_lowercase().starts_with("urn:") => (Some(urn), attr),
        _ => (None, path),
    };
    let mut keys: Vec<String> = urn.into_iter().map(str::to_owned).collect();
    keys.extend(attr.split('.').map(str::to_owned));
    if keys.iter().any(|k| k.is_empty()) {
        return Err(usage(format!(
            "--pathless: {path:?} is not an attribute path"
        )));
    }
    Ok(keys)
}

/// Set `value` at `keys` in `map`, making objects on the way. Attribute names are
/// case-insensitive in SCIM (RFC 7643 §2.1), so a parent already there under another case is
/// the one descended into (`name.givenName` and `NAME.familyName` share one `name`).
fn set_nested(map: &mut Map<String, Value>, keys: &[String], value: Value) {
    let Some((last, parents)) = keys.split_last() else {
        return;
    };
    let mut at = map;
    for key in parents {
        let key = at
            .keys()
            .find(|k| k.eq_ignore_ascii_case(key))
            .cloned()
            .unwrap_or_else(|| key.clone());
        let entry = at.entry(key).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        let Value::Object(next) = entry else { return };
        at = next;
    }
    at.insert(last.clone(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(f: impl FnOnce(&mut ScimPatchArgs)) -> ScimPatchArgs {
        use clap::Parser;
        let cli = crate::cli::Cli::parse_from(["analyst", "scim", "patch", "1"]);
        let crate::cli::Command::Scim(crate::cli::ScimCommand::Patch(mut a)) = cli.command else {
            unreachable!()
        };
        f(&mut a);
        a
    }

    fn from_command_line(words: &[&str]) -> Result<PatchOp> {
        use clap::{CommandFactory, FromArgMatches};
        let mut argv = vec!["analyst", "scim", "patch", "1"];
        argv.extend(words);
        let m = crate::cli::Cli::command().try_get_matches_from(argv)?;
        let cli = crate::cli::Cli::from_arg_matches(&m)?;
        let crate::cli::Command::Scim(crate::cli::ScimCommand::Patch(a)) = cli.command else {
            unreachable!()
        };
        let sub = m
            .subcommand_matches("scim")
            .and_then(|s| s.subcommand_matches("patch"))
            .unwrap();
        patch_op(&a, &crate::commands::args::patch_flags(&a, sub))
    }

    fn ops(op: &PatchOp) -> Value {
        serde_json::to_value(&op.operations).unwrap()
    }

    #[test]
    fn flags_keep_their_command_line_order() {
        let op = from_command_line(&[
            "--remove",
            "title",
            "--replace",
            "active:=false",
            "--deactivate",
            "--add",
            "emails:=[{\"value\":\"a@b.c\"}]",
            "--replace",
            "nickName=Al",
        ])
        .unwrap();
        assert_eq!(
            ops(&op),
            json!([
                {"op": "remove", "path": "title"},
                {"op": "replace", "path": "active", "value": false},
                {"op": "replace", "path": "active", "value": false},
                {"op": "add", "path": "emails", "value": [{"value": "a@b.c"}]},
                {"op": "replace", "path": "nickName", "value": "Al"},
            ])
        );
    }

    #[test]
    fn strings_raw_json_and_bad_json() {
        assert_eq!(
            path_value("--replace", "title=a=b").unwrap(),
            ("title".into(), json!("a=b"))
        );
        assert_eq!(
            path_value("--replace", r#"emails[type eq "a=b"].value=x"#).unwrap(),
            (r#"emails[type eq "a=b"].value"#.into(), json!("x"))
        );
        assert_eq!(path_value("--add", "n:=5").unwrap().1, json!(5));
        let e = path_value("--add", "active:=fals").unwrap_err().to_string();
        assert!(
            e.starts_with("--add \"active:=fals\": invalid JSON after :="),
            "{e}"
        );
        assert!(path_value("--replace", "title").is_err());
        assert!(path_value("--replace", "=x").is_err());
    }

    #[test]
    fn no_operation_is_a_usage_error() {
        let e = patch_op(&args(|_| {}), &[]).unwrap_err();
        assert_eq!(crate::exit::status_of(&e), crate::exit::Status::Usage);
    }

    #[test]
    fn pathless_nests_and_keeps_other_ops_in_place() {
        let op = from_command_line(&[
            "--pathless",
            "--add",
            "x=1",
            "--deactivate",
            "--remove",
            "title",
            "--replace",
            "name.givenName=Ann",
            "--replace",
            "name.familyName=Lee",
            "--replace",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber=7",
        ])
        .unwrap();
        // In the order given: the remove splits the replaces into two runs.
        assert_eq!(
            ops(&op),
            json!([
                {"op": "add", "path": "x", "value": "1"},
                {"op": "replace", "value": {"active": false}},
                {"op": "remove", "path": "title"},
                {"op": "replace", "value": {
                    "name": {"givenName": "Ann", "familyName": "Lee"},
                    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "7"}
                }},
            ])
        );
        // A replace of a path the run already set, or around or inside one, starts another
        // operation: applied one after the other, as given.
        let op = from_command_line(&[
            "--pathless",
            "--replace",
            "title=x",
            "--remove",
            "title",
            "--replace",
            "title=y",
            "--replace",
            "name.familyName=B",
            "--replace",
            "NAME:={\"givenName\":\"A\"}",
            "--replace",
            "title=z",
            "--replace",
            "name.middleName=C",
        ])
        .unwrap();
        assert_eq!(
            ops(&op),
            json!([
                {"op": "replace", "value": {"title": "x"}},
                {"op": "remove", "path": "title"},
                {"op": "replace", "value": {"title": "y", "name": {"familyName": "B"}}},
                {"op": "replace", "value": {"NAME": {"givenName": "A"}, "title": "z"}},
                {"op": "replace", "value": {"name": {"middleName": "C"}}},
            ])
        );
        assert!(
            from_command_line(&["--pathless", "--replace", "emails[type eq \"w\"].value=x"])
                .is_err()
        );
    }

    #[test]
    fn bodies_are_checked_and_name_the_flag() {
        let a = args(|a| a.body = Some(r#"{"Operations":[]}"#.into()));
        let e = patch_op(&a, &[]).unwrap_err().to_string();
        assert!(e.starts_with("--body: "), "{e}");
        let a = args(|a| {
            a.body = Some(
                r#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":false}]}"#.into(),
            )
        });
        let op = patch_op(&a, &[]).unwrap();
        assert_eq!(op.active_after(), Some(false));
    }

    #[test]
    fn expected_active_follows_the_last_word() {
        let op = from_command_line(&["--deactivate", "--activate"]).unwrap();
        assert_eq!(op.active_after(), Some(true));
        let op = from_command_line(&["--pathless", "--deactivate"]).unwrap();
        assert_eq!(op.active_after(), Some(false));
        let op = from_command_line(&["--replace", "title=x"]).unwrap();
        assert_eq!(op.active_after(), None);
    }
}
