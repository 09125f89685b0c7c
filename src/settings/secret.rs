//! Secrets: taken from the environment, a file, stdin or a command; never printed.

use crate::exit::usage;
use anyhow::Result;
use std::fmt;
use std::io::Read;
use std::path::Path;

/// A secret value and where it came from. Its `Debug` and `Display` print `***`; only
/// [`Secret::expose`] reveals it.
#[derive(Clone)]
pub struct Secret {
    value: String,
}

impl PartialEq for Secret {
    fn eq(&self, other: &Secret) -> bool {
        self.value == other.value
    }
}

impl Eq for Secret {}

impl Secret {
    /// Wrap a value read from `origin` (named in errors); surrounding white space is dropped.
    pub fn new(value: String, origin: &str) -> Result<Secret> {
        let trimmed = value.trim_start_matches('\u{FEFF}').trim();
        if trimmed.is_empty() {
            return Err(usage(format!("{origin} is empty")));
        }
        if trimmed.contains(['\n', '\r']) {
            return Err(usage(format!("{origin} holds more than one line")));
        }
        // Diagnostics never show it, even when a server echoes it back.
        crate::term::never_print(trimmed);
        Ok(Secret {
            value: trimmed.to_owned(),
        })
    }

    /// Read a secret from a file, or stdin for `-`.
    pub fn from_file(path: &Path, flag: &str) -> Result<Secret> {
        let mut text = String::new();
        let read = if path.as_os_str() == "-" {
            super::source::claim_stdin(flag)?;
            std::io::stdin().read_to_string(&mut text).map(|_| ())
        } else {
            std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text).map(|_| ()))
        };
        read.map_err(|e| usage(format!("{flag}: cannot read {}: {e}", path.display())))?;
        Secret::new(text, &format!("{flag} {}", path.display()))
    }

    /// Run a configured command (`sh -c`) and take its stdout.
    pub fn from_command(command: &str, key: &str) -> Result<Secret> {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| usage(format!("{key}: cannot run {command:?}: {e}")))?;
        if !out.status.success() {
            return Err(usage(format!("{key}: {command:?} failed ({})", out.status)));
        }
        let text = String::from_utf8(out.stdout)
            .map_err(|_| usage(format!("{key}: {command:?} printed non-UTF-8 output")))?;
        Secret::new(text, &format!("the output of {key}"))
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.value
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_printed() {
        let s = Secret::new(" sk-123\n".into(), "x").unwrap();
        assert_eq!(format!("{s} {s:?}"), "*** ***");
        assert_eq!(s.expose(), "sk-123");
        assert!(
            Secret::new("  ".into(), "ANALYST_API_KEY")
                .unwrap_err()
                .to_string()
                .contains("ANALYST_API_KEY is empty")
        );
    }

    #[test]
    fn from_command() {
        assert_eq!(
            Secret::from_command("echo tok", "k").unwrap().expose(),
            "tok"
        );
        let err = Secret::from_command("exit 3", "api_key_command")
            .unwrap_err()
            .to_string();
        assert!(err.contains("api_key_command"), "{err}");
    }
}
