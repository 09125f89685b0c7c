//! `analyst completions SHELL`, and the generated files checked into `completions/` and `man/`.

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::Status;
use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;

/// Print the completion script for a shell.
pub fn run(args: CompletionsArgs) -> Result<Status> {
    crate::exit::stdout_lock().write_all(&completion(args.shell))?;
    Ok(Status::Success)
}

fn completion(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "analyst", &mut out);
    out
}

/// Every generated file, by path relative to the repository root: one completion script per
/// shell and one man page per command. `ANALYST_REGENERATE=1 cargo test --test generated`
/// writes them; the same test fails when the checked-in copies are stale.
pub fn generated_files() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "analyst.bash"),
        (Shell::Zsh, "_analyst"),
        (Shell::Fish, "analyst.fish"),
        (Shell::PowerShell, "_analyst.ps1"),
        (Shell::Elvish, "analyst.elv"),
    ] {
        files.push((format!("completions/{name}"), completion(shell)));
    }
    let mut root = Cli::command();
    root.build();
    man_pages(&root, "analyst", &mut files);
    files
}

fn man_pages(cmd: &clap::Command, name: &str, files: &mut Vec<(String, Vec<u8>)>) {
    let page = cmd
        .clone()
        .name(name.to_owned())
        .bin_name(name.replace('-', " "));
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .expect("rendering to memory cannot fail");
    files.push((format!("man/{name}.1"), out));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        man_pages(sub, &format!("{name}-{}", sub.get_name()), files);
    }
}
