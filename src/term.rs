//! The process's surroundings, below everything that prints: the environment (as a snapshot
//! tests can replace), diagnostics on stderr, the colour decision and the terminal's width.
//! Settings, the client and the renderers all use these; this file uses none of them.

use std::collections::HashMap;
use std::io::Write;

/// A snapshot of environment variables.
#[derive(Clone, Debug, Default)]
pub struct Env(HashMap<String, String>);

impl Env {
    /// The process environment.
    pub fn from_process() -> Env {
        Env(std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect())
    }

    /// A given set of variables (for tests).
    #[cfg(test)]
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Env {
        Env(pairs
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect())
    }

    /// A variable's value; empty counts as unset.
    pub fn get(&self, name: &str) -> Option<String> {
        self.0.get(name).filter(|v| !v.is_empty()).cloned()
    }
}

/// `--color` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal
    #[default]
    Auto,
    /// Always colour
    Always,
    /// Never colour
    Never,
}

/// Which ANSI styles to use on one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Whether to emit colour codes at all.
    pub color: bool,
}

impl Style {
    /// Decide colour for a stream: `--color`, then `NO_COLOR`, then `CLICOLOR_FORCE`, then
    /// whether the stream is a terminal.
    pub fn decide(choice: ColorChoice, env: &Env, is_terminal: bool) -> Style {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if env.get("NO_COLOR").is_some() {
                    false
                } else if env.get("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                    true
                } else {
                    is_terminal
                }
            }
        };
        Style { color }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    /// Bold.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    /// Dim (secondary information).
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    /// Red (errors).
    pub fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }
    /// Green (success).
    pub fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }
    /// Cyan (tool calls).
    pub fn cyan(&self, s: &str) -> String {
        self.paint("36", s)
    }
}

/// Columns of stdout: the terminal's width, else `COLUMNS`, else 80.
pub fn out_width(env: &Env) -> usize {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    if stdout.is_terminal()
        && let Some((w, _)) = terminal_size::terminal_size_of(&stdout)
    {
        return w.0 as usize;
    }
    env.get("COLUMNS")
        .and_then(|c| c.trim().parse().ok())
        .filter(|w: &usize| *w > 0)
        .unwrap_or(80)
}

/// Print a warning on stderr.
pub fn warn(message: impl std::fmt::Display) {
    diag(format_args!("analyst: warning: {message}"));
}

/// Print an error on stderr (the run may go on).
pub fn error(message: impl std::fmt::Display) {
    diag(format_args!("analyst: {message}"));
}

/// The secrets of this run (API keys, tokens), as read: never printed in diagnostics, even when
/// a server echoes one back in an error or a body shown with `-vv`.
static SECRETS: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

/// Register a secret that diagnostics must never show. Values shorter than 8 bytes are not
/// masked: they would hide ordinary words, and no real key is that short.
pub fn never_print(secret: &str) {
    if secret.len() < 8 {
        return;
    }
    if let Ok(mut all) = SECRETS.write()
        && !all.iter().any(|s| s == secret)
    {
        all.push(secret.to_owned());
    }
}

/// `text` with every registered secret replaced by `***`.
pub fn masked(text: &str) -> std::borrow::Cow<'_, str> {
    let Ok(all) = SECRETS.read() else {
        return text.into();
    };
    let mut out = std::borrow::Cow::Borrowed(text);
    for secret in all.iter() {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), "***").into();
        }
    }
    out
}

/// Write one line of diagnostics to stderr, secrets masked. Unlike `eprintln!`, a closed stderr
/// is not a panic: diagnostics are best effort, and the exit status still tells what happened.
pub fn diag(line: std::fmt::Arguments<'_>) {
    let text = line.to_string();
    let _ = writeln!(std::io::stderr().lock(), "{}", masked(&text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_secrets_are_masked_and_short_values_are_not() {
        never_print("sk-live-abcdef123");
        never_print("short");
        assert_eq!(
            masked("invalid key sk-live-abcdef123 (sk-live-abcdef123)"),
            "invalid key *** (***)"
        );
        assert_eq!(masked("a short word"), "a short word");
    }

    #[test]
    fn colour_rules() {
        let none = Env::default();
        assert!(!Style::decide(ColorChoice::Auto, &none, false).color);
        assert!(Style::decide(ColorChoice::Auto, &none, true).color);
        assert!(
            !Style::decide(
                ColorChoice::Auto,
                &Env::from_pairs([("NO_COLOR", "1")]),
                true
            )
            .color
        );
        assert!(
            Style::decide(
                ColorChoice::Auto,
                &Env::from_pairs([("CLICOLOR_FORCE", "1")]),
                false
            )
            .color
        );
        assert!(
            !Style::decide(
                ColorChoice::Auto,
                &Env::from_pairs([("CLICOLOR_FORCE", "0")]),
                false
            )
            .color
        );
        assert!(
            Style::decide(
                ColorChoice::Always,
                &Env::from_pairs([("NO_COLOR", "1")]),
                false
            )
            .color
        );
        assert!(!Style::decide(ColorChoice::Never, &none, true).color);
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let env = Env::from_pairs([("A", ""), ("B", "x")]);
        assert_eq!(env.get("A"), None);
        assert_eq!(env.get("B").as_deref(), Some("x"));
    }
}
