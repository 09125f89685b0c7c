//! The one way tests run the `analyst` binary: an empty environment (so nothing of the user's
//! ANALYST_* variables, config or state leaks in), HOME and XDG directories inside the test's
//! temporary directory, no colour, and a 1 ms resume backoff.

use std::path::Path;
use std::process::Command;

/// A cache shared by every test of the run: the demo's sample database is built once a date,
/// not once a process (see `keep_samples_in`). Tests of a first run in a fresh HOME, and of the
/// cache itself, leave it out.
pub const SHARED_CACHE: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/cache");

/// Cut `cmd` off from the user's environment; `home` holds its HOME, config and state.
pub fn isolate(cmd: &mut Command, home: &Path) {
    cmd.env_clear()
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", SHARED_CACHE)
        .env("ANALYST_TEST_BACKOFF_MS", "1")
        .env("NO_COLOR", "1");
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
}

/// The `analyst` binary, isolated.
pub fn isolated(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_analyst"));
    isolate(&mut cmd, home);
    cmd
}
