//! Where the tests that need tools from outside Rust find them: the virtual environment that
//! `.ci/install-scim2-server` makes (scim2-server, scim2-tester and the MCP Python SDK in one
//! venv).

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// Where `bin/NAME` may be, best first: `$var` (a path `.ci/run` exports), else
/// `$ANALYST_SCIM2_VENV/bin/NAME`, else the newest `~/.cache/analyst/scim2-server-*/bin/NAME`.
pub fn candidates(var: &str, name: &str) -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return vec![PathBuf::from(p)];
    }
    if let Some(venv) = std::env::var_os("ANALYST_SCIM2_VENV") {
        return vec![PathBuf::from(venv).join("bin").join(name)];
    }
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    let mut venvs: Vec<PathBuf> = std::fs::read_dir(PathBuf::from(home).join(".cache/analyst"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("scim2-server-"))
        })
        .collect();
    venvs.sort();
    // The newest first.
    venvs
        .into_iter()
        .rev()
        .map(|v| v.join("bin").join(name))
        .collect()
}

/// The first python of [`candidates`] that can run `import MODULES`; `missing` says what is
/// not installed when none can.
pub fn python_with(var: &str, modules: &str, missing: &str) -> Result<PathBuf, String> {
    candidates(var, "python")
        .into_iter()
        .find(|py| {
            Command::new(py)
                .args(["-c", &format!("import {modules}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .ok_or_else(|| format!("{missing} (run .ci/install-scim2-server)"))
}

/// A line on the stderr handle itself, which libtest does not capture: a skip shows in the
/// plain `cargo test` output.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
