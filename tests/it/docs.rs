//! The documentation is held to what it says: every relative link and `#anchor` in README.md,
//! CHANGELOG.md and docs/ resolves (anchors as GitHub makes them from headings), nothing points
//! outside the repository, and every `analyst ... --demo` command line of the README's shell
//! blocks runs as written with the built binary and exits 0.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::isolation::isolate;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, CHANGELOG.md and every Markdown file under docs/, relative to the root.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md"), PathBuf::from("CHANGELOG.md")];
    let mut dirs = vec![PathBuf::from("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(root().join(&dir)).expect("docs/ exists") {
            let path = dir.join(entry.unwrap().file_name());
            if root().join(&path).is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The lines of a Markdown text outside fenced code blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence {
            out.push((i + 1, line));
        }
    }
    out
}

/// A line with its inline code spans taken out, so that `[a](b)` shown as code is no link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut parts = line.split('`');
    let mut in_code = false;
    for part in parts.by_ref() {
        if !in_code {
            out.push_str(part);
        }
        in_code = !in_code;
    }
    out
}

/// The anchor GitHub gives a heading: its text as rendered (code spans and links reduced to
/// their text, emphasis dropped), lowercased, with everything but letters, digits, spaces,
/// hyphens and underscores removed and spaces turned into hyphens.
fn github_anchor(heading: &str) -> String {
    let link = regex::Regex::new(r"\[([^\]]*)\]\([^)]*\)").unwrap();
    let text = link.replace_all(heading, "$1");
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a Markdown file, with GitHub's `-1`, `-2`... for repeated headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = github_anchor(&line[hashes + 1..]);
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            });
            *n += 1;
        }
    }
    out
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(
        github_anchor("Seeing the answer: tables, charts and the prompt"),
        "seeing-the-answer-tables-charts-and-the-prompt"
    );
    assert_eq!(github_anchor("`analyst chat`"), "analyst-chat");
    assert_eq!(
        github_anchor("The emulator's analyst: what it answers"),
        "the-emulators-analyst-what-it-answers"
    );
    assert_eq!(
        github_anchor("Patching users: `scim patch`"),
        "patching-users-scim-patch"
    );
    let twice = anchors("# Options\ntext\n## Options\n```\n# not a heading\n```\n");
    assert_eq!(
        twice,
        BTreeSet::from(["options".into(), "options-1".into()])
    );
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)(?:\s+\x22[^\x22]*\x22)?\)").unwrap();
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(root().join(&file))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (number, line) in prose_lines(&text) {
            for cap in link.captures_iter(&without_code_spans(line)) {
                let target = &cap[1];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
                let dest = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                let where_ = format!("{}:{number}: {target}", file.display());
                let Ok(full) = root().join(&dest).canonicalize() else {
                    broken.push(format!("{where_}: no such file"));
                    continue;
                };
                if !full.starts_with(root().canonicalize().unwrap()) {
                    broken.push(format!("{where_}: outside the repository"));
                    continue;
                }
                if !anchor.is_empty() {
                    let dest_text = std::fs::read_to_string(&full).unwrap_or_default();
                    if !anchors(&dest_text).contains(anchor) {
                        broken.push(format!("{where_}: no heading makes #{anchor}"));
                    }
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} links found: is the parser broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_read_in_five_minutes() {
    let lines = std::fs::read_to_string(root().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the rest belongs in docs/"
    );
}

#[test]
fn the_docs_name_no_file_outside_the_repository() {
    let mut found = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        for (i, line) in text.lines().enumerate() {
            for outside in ["CLI.md", "PROTOCOL.md", "DESIGN.md", "../shared"] {
                if line.contains(outside) {
                    found.push(format!("{}:{}: {outside}", file.display(), i + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "references outside the repository:\n{}",
        found.join("\n")
    );
}

/// The command lines of the README's `sh` blocks, continuation lines joined.
fn readme_shell_lines() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut lines = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && matches!(trimmed, "```sh" | "```bash" | "```shell");
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(front) = line.strip_suffix('\\') {
            pending.push_str(front);
            continue;
        }
        pending.push_str(line);
        let command = std::mem::take(&mut pending).trim().to_string();
        if !command.is_empty() && !command.starts_with('#') {
            lines.push(command);
        }
    }
    lines
}

/// A line runs the demo when `analyst` is one of its commands and it passes `--demo`.
fn is_demo_line(line: &str) -> bool {
    let command = regex::Regex::new(r"(^|[|;&(]\s*)analyst\s").unwrap();
    command.is_match(line) && line.split_whitespace().any(|w| w == "--demo")
}

#[test]
fn the_readme_demo_commands_run_as_written() {
    let demo: Vec<String> = readme_shell_lines()
        .into_iter()
        .filter(|l| is_demo_line(l))
        .collect();
    assert!(demo.len() >= 5, "the README's tour runs the demo: {demo:?}");
    for line in demo.iter().filter(|l| l.contains("analyst chat")) {
        assert!(
            line.contains("--today "),
            "a chat --demo line of the README pins --today, so its output stays true: {line}"
        );
    }

    // One home for the whole tour, in order: `-c` continues the thread the line before made,
    // `extract-final` reads the file the line before wrote. examples/ is there as in a clone.
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(work.join("examples")).unwrap();
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), work.join("examples").join(entry.file_name())).unwrap();
    }
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_analyst")).parent().unwrap();
    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut dirs = vec![bin_dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&p));
            std::env::join_paths(dirs).unwrap()
        }
        None => bin_dir.as_os_str().to_owned(),
    };

    let mut failed = Vec::new();
    for line in &demo {
        let mut cmd = Command::new("bash");
        isolate(&mut cmd, &tmp.path().join("home"));
        cmd.env("PATH", &path)
            .current_dir(&work)
            .args(["-o", "pipefail", "-c", line]);
        let out = cmd.output().expect("bash runs");
        if !out.status.success() {
            failed.push(format!(
                "{line}\n  exit {:?}\n  stderr: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "README commands that failed:\n{}",
        failed.join("\n")
    );
}

#[test]
fn readme_lines_are_picked_as_a_reader_runs_them() {
    assert!(is_demo_line("analyst chat --demo --today 2025-12-31 \"x\""));
    assert!(is_demo_line("printf '%s\\n' '{}' | analyst mcp --demo"));
    assert!(!is_demo_line("cargo run --release -- chat --demo \"x\""));
    assert!(!is_demo_line("analyst serve --today 2025-12-31"));
    assert!(!is_demo_line("analyst chat \"--demo is a word here\""));
}
