//! Where values come from besides the environment ([`crate::term::Env`]): documents given as inline JSON, `@FILE`, a plain path or `-` for stdin.

use crate::exit::usage;
use anyhow::Result;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Read a JSON document option (`--body`, `--session`, `--security-context`): inline JSON (a
/// value starting with `{` or `[`), `@FILE`, a plain file path, or `-` for stdin. Files ending
/// in `.yaml`/`.yml` are read as YAML.
pub fn read_document(flag: &str, value: &str) -> Result<Value> {
    let trimmed = value.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return serde_json::from_str(value)
            .map_err(|e| usage(format!("{flag}: invalid JSON: {e}")));
    }
    let path = value.strip_prefix('@').unwrap_or(value);
    let text = read_text_source(flag, path)?;
    let is_yaml = path.ends_with(".yaml") || path.ends_with(".yml");
    if is_yaml {
        let yaml: serde_norway::Value = serde_norway::from_str(&text)
            .map_err(|e| usage(format!("{flag}: {path}: invalid YAML: {e}")))?;
        serde_json::to_value(yaml).map_err(|e| usage(format!("{flag}: {path}: {e}")))
    } else {
        let shown = if path == "-" { "stdin" } else { path };
        serde_json::from_str(&text)
            .map_err(|e| usage(format!("{flag}: {shown}: invalid JSON: {e}")))
    }
}

/// Take stdin for `what` (a flag, or the message). Stdin can be read once: a second option
/// that asks for it would only see its end, so it is refused, naming both.
pub fn claim_stdin(what: &str) -> Result<()> {
    static OWNER: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    let mut owner = OWNER.lock().unwrap_or_else(|e| e.into_inner());
    match owner.as_deref() {
        Some(first) if first != what => Err(usage(format!(
            "{what} and {first} both ask for stdin (-); only one can read it"
        ))),
        _ => {
            *owner = Some(what.to_owned());
            Ok(())
        }
    }
}

/// Read text from a file, or stdin for `-`; errors name the flag and the path (exit 2).
pub fn read_text_source(flag: &str, path: &str) -> Result<String> {
    let mut text = String::new();
    let result = if path == "-" {
        claim_stdin(flag)?;
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        let p = Path::new(path);
        if p.is_dir() {
            return Err(usage(format!("{flag}: {path} is a directory")));
        }
        std::fs::File::open(p).and_then(|mut f| f.read_to_string(&mut text).map(|_| ()))
    };
    result.map_err(|e| {
        let what = if path == "-" {
            "stdin".to_owned()
        } else {
            path.to_owned()
        };
        usage(format!("{flag}: cannot read {what}: {e}"))
    })?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_file_and_yaml_documents() {
        assert_eq!(read_document("--body", r#"{"a":1}"#).unwrap()["a"], 1);
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("b.json");
        std::fs::write(&json, r#"{"b":2}"#).unwrap();
        let yaml = dir.path().join("s.yaml");
        std::fs::write(
            &yaml,
            "externalId: bot\nuserAttributes:\n  - {name: region, value: EU}\n",
        )
        .unwrap();
        assert_eq!(
            read_document("--body", &format!("@{}", json.display())).unwrap()["b"],
            2
        );
        assert_eq!(
            read_document("--body", json.to_str().unwrap()).unwrap()["b"],
            2
        );
        let s = read_document("--session", yaml.to_str().unwrap()).unwrap();
        assert_eq!(s["userAttributes"][0]["value"], "EU");
        let err = read_document("--body", "{oops").unwrap_err().to_string();
        assert!(err.starts_with("--body: invalid JSON"), "{err}");
        let err = read_document("--session", "@/nonexistent/x.json")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--session: cannot read /nonexistent/x.json"),
            "{err}"
        );
        let err = read_document("--body", dir.path().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a directory"), "{err}");
    }
}
