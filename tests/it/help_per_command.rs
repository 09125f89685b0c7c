//! Issue 33 item 5: each command's help shows only the formats and options it takes (they are
//! declared per command, not as global options some commands refuse at run time), and an
//! option given before the command name is refused with the way to say it.

use crate::common;

fn help(args: &[&str]) -> String {
    let out = common::isolation::isolated(tempfile::tempdir().unwrap().path())
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    // One line per option: clap wraps long helps.
    String::from_utf8(out.stdout)
        .unwrap()
        .replace("\n    ", " ")
}

/// The `[possible values: ...]` of `-o`, as a list.
fn formats(help: &str) -> Vec<String> {
    let at = help.find("-o, --output").expect("an -o option");
    let rest = &help[at..];
    let values = rest
        .find("[possible values: ")
        .map(|i| &rest[i + "[possible values: ".len()..])
        .expect("possible values");
    let end = values.find(']').unwrap();
    values[..end]
        .split(',')
        .map(|v| v.split_whitespace().collect::<Vec<_>>().join(""))
        .collect()
}

#[test]
fn each_help_lists_only_its_formats_and_options() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["chat"], &["text", "ndjson", "json", "yaml", "final"]),
        (&["state"], &["table", "ndjson", "json", "yaml"]),
        (&["scim", "patch"], &["table", "json", "ndjson", "yaml"]),
        (&["extract-final"], &["text", "json", "yaml"]),
        (&["sql"], &["table", "csv", "tsv", "ndjson", "json", "yaml"]),
        (&["eval"], &["table", "json", "ndjson", "yaml", "markdown"]),
    ];
    for (command, want) in cases {
        let text = help(command);
        assert_eq!(formats(&text), *want, "{command:?}:\n{text}");
    }
    // Options a command does not take are not in its help.
    let absent: &[(&[&str], &[&str])] = &[
        (
            &["extract-final"],
            &[
                "--dry-run",
                "--verbose",
                "--idle-timeout",
                "--connect-timeout",
                "--profile",
            ],
        ),
        (
            &["completions", "bash"],
            &["--output", "--dry-run", "--verbose", "--profile"],
        ),
        (&["serve"], &["--dry-run", "--idle-timeout", "--profile"]),
        (&["mcp"], &["--output", "--dry-run"]),
    ];
    for (command, options) in absent {
        let text = help(command);
        for option in *options {
            assert!(
                !text.contains(&format!("{option} ")) && !text.contains(&format!("{option}\n")),
                "{command:?} shows {option}:\n{text}"
            );
        }
    }
    // And those it takes are, under one heading.
    let chat = help(&["chat"]);
    assert!(chat.contains("Common options:"), "{chat}");
    for option in [
        "--color",
        "--quiet",
        "--verbose",
        "--dry-run",
        "--profile",
        "--config",
    ] {
        assert!(chat.contains(option), "chat lacks {option}:\n{chat}");
    }
}

#[test]
fn an_option_before_the_command_name_is_refused_with_the_way_to_say_it() {
    let home = tempfile::tempdir().unwrap();
    let out = common::isolation::isolated(home.path())
        .args(["-v", "chat", "--demo", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'-v'") && err.contains("options follow the command name: analyst chat -v"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// The commands a help lists under `Commands:`, with their descriptions (wrapped lines
/// joined), `help` left out.
fn listed_commands(help: &str) -> Vec<(String, String)> {
    let Some(at) = help.find("\nCommands:\n") else {
        return Vec::new();
    };
    let mut listed: Vec<(String, String)> = Vec::new();
    for line in help[at + "\nCommands:\n".len()..].lines() {
        if line.is_empty() {
            break;
        }
        let text = line.trim_start();
        if line.len() - text.len() > 2 {
            // A description wrapped onto the next line.
            if let Some((_, about)) = listed.last_mut() {
                about.push(' ');
                about.push_str(text);
            }
            continue;
        }
        let (name, about) = text.split_once(' ').unwrap_or((text, ""));
        listed.push((name.to_owned(), about.trim().to_owned()));
    }
    listed.retain(|(name, _)| name != "help");
    listed
}

fn help_of(path: &[String]) -> String {
    help(&path.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn each_command_describes_itself_as_its_parent_lists_it() {
    // Commands' arguments are built only when the command runs (clap's `defer`), after the
    // description its parent lists: a doc comment on an arguments struct would then replace
    // that description in the command's own help, man page and completions.
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    while let Some(path) = todo.pop() {
        for (name, about) in listed_commands(&help_of(&path)) {
            let mut child = path.clone();
            child.push(name);
            let own = help_of(&child);
            let first = own.split("\n\n").next().unwrap();
            assert_eq!(
                words(first),
                words(&about),
                "analyst {} --help",
                child.join(" ")
            );
            seen += 1;
            todo.push(child);
        }
    }
    assert!(seen >= 25, "only {seen} commands found");
}
