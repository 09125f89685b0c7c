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

/// A value as one shell word, for commands printed to be pasted: as is when it has nothing a
/// shell would read, else in single quotes.
pub fn shell_word(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:/@+%=".contains(c));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

/// The registered secrets as they stand, for masking a stream's lines as they arrive (before
/// any format, `--save` or the answer sees them): a service that echoes the key back, in an
/// error line or an answer, must not put it in a CI log. Built once per run (after settings
/// registered the secrets), so a line costs one search per secret and no lock.
pub struct Masker {
    secrets: Vec<memchr::memmem::Finder<'static>>,
}

impl std::fmt::Debug for Masker {
    /// How many secrets, never what they are.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Masker({} secrets)", self.secrets.len())
    }
}

impl Masker {
    /// The secrets registered so far.
    pub fn now() -> Masker {
        let secrets = SECRETS
            .read()
            .map(|all| {
                all.iter()
                    .map(|s| memchr::memmem::Finder::new(s.as_bytes()).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        Masker { secrets }
    }

    /// `line` with every registered secret replaced by `***` (borrowed when it holds none,
    /// as nearly every line does).
    pub fn apply<'a>(&self, line: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        let mut out = std::borrow::Cow::Borrowed(line);
        for secret in &self.secrets {
            if secret.find(&out).is_none() {
                continue;
            }
            let mut masked = Vec::with_capacity(out.len());
            let mut at = 0;
            for i in secret.find_iter(&out) {
                if i < at {
                    continue;
                }
                masked.extend_from_slice(&out[at..i]);
                masked.extend_from_slice(b"***");
                at = i + secret.needle().len();
            }
            masked.extend_from_slice(&out[at..]);
            out = std::borrow::Cow::Owned(masked);
        }
        out
    }

    /// A framed line (`raw` as received, of which `text` is the part without its terminator,
    /// and without a byte-order mark before the input's first line) masked: the masked line,
    /// and where its text is in it. A secret holds no line break and no mark, so what is
    /// around the text is untouched.
    pub fn apply_line<'a>(
        &self,
        raw: &'a [u8],
        text: &[u8],
    ) -> (std::borrow::Cow<'a, [u8]>, std::ops::Range<usize>) {
        // `text` is a part of `raw` (the framer hands out both from one buffer).
        let start = (text.as_ptr() as usize)
            .checked_sub(raw.as_ptr() as usize)
            .filter(|&s| s + text.len() <= raw.len())
            .unwrap_or(0);
        let after = raw.len() - (start + text.len()).min(raw.len());
        let masked = self.apply(raw);
        let end = masked.len() - after;
        (masked, start..end)
    }

    /// How much of `pending`, text that streams in chunks, can be shown now: its whole secrets
    /// masked, and a tail that could be the start of a secret the next chunk completes held
    /// back (a key split across two chunks is never shown in two halves). Returns the text to
    /// show and how many bytes of `pending` it covers; the rest waits for more text.
    pub fn streamed(&self, pending: &str) -> (String, usize) {
        let bytes = pending.as_bytes();
        // A held tail never starts inside a whole secret (secrets may overlap themselves).
        let last_end = self
            .secrets
            .iter()
            .filter_map(|s| s.find_iter(bytes).last().map(|i| i + s.needle().len()))
            .max()
            .unwrap_or(0);
        let mut hold = 0;
        for secret in &self.secrets {
            let needle = secret.needle();
            if let Some(k) = (hold + 1..needle.len()).rev().find(|&k| {
                bytes.len() >= k && bytes.len() - k >= last_end && bytes.ends_with(&needle[..k])
            }) {
                hold = k;
            }
        }
        // The held tail starts with a secret's first byte, which starts a character.
        let covered = bytes.len() - hold;
        let shown = String::from_utf8_lossy(&self.apply(&bytes[..covered])).into_owned();
        (shown, covered)
    }
}

/// Set once a write to stdout found it closed (`| head`): from then on the run says nothing
/// more (CLI.md: a closed stdout ends the program quietly with status 0).
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Woken when stdout is found closed, for a reader waiting on the network (see
/// [`stdout_closed_wait`]).
static STDOUT_CLOSED_NOTIFY: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Note that stdout was found closed (called by the stdout writer that saw the broken pipe,
/// which may be the output thread's while the main thread waits for bytes).
pub fn note_stdout_closed() {
    STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    STDOUT_CLOSED_NOTIFY.notify_waiters();
}

/// Resolves once stdout is found closed (at once if it already was): a body reader waits on
/// it beside the network, so that `| head` ends a run whose server has gone quiet instead of
/// leaving it waiting for bytes nobody will read.
pub async fn stdout_closed_wait() {
    loop {
        let notified = STDOUT_CLOSED_NOTIFY.notified();
        tokio::pin!(notified);
        // Registered before the flag is read, so that a note between the two is not missed.
        notified.as_mut().enable();
        if stdout_closed() {
            return;
        }
        notified.await;
    }
}

/// Whether stdout was found closed: the reader went away, the run ends quietly with status 0.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Write one line of diagnostics to stderr, secrets masked. Unlike `eprintln!`, a closed stderr
/// is not a panic: diagnostics are best effort, and the exit status still tells what happened.
/// Once stdout was found closed nothing more is said: warnings about what the run did not get
/// to write (an answer cut short) would only report the reader's own `| head`.
pub fn diag(line: std::fmt::Arguments<'_>) {
    if stdout_closed() {
        return;
    }
    let text = line.to_string();
    let _ = writeln!(std::io::stderr().lock(), "{}", masked(&text));
}

/// Server text as a terminal should show it: every control character (C0, DEL, C1) in caret
/// notation, as `cat -v`, `less` and `gh` show them (ESC `^[`, BEL `^G`, CR `^M`, DEL `^?`; a
/// C1 character as its 7-bit form, CSI U+009B `^[[`), so that a value cannot move the cursor,
/// recolour the screen or ring the bell. For table cells and one-line fields.
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    escape_controls(s, false)
}

/// [`visible`] for running text: LF and tab are kept (the answer's lines and indentation).
pub fn visible_text(s: &str) -> std::borrow::Cow<'_, str> {
    escape_controls(s, true)
}

fn is_control(c: char, keep_lines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_lines,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        _ => false,
    }
}

fn escape_controls(s: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    // Nearly all text has none: one look, no copy.
    if !s.chars().any(|c| is_control(c, keep_lines)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_control(c, keep_lines) {
            out.push(c);
            continue;
        }
        let code = c as u32;
        out.push('^');
        match code {
            0x7f => out.push('?'),
            0x80..=0x9f => {
                out.push('[');
                out.push(char::from_u32(code - 0x40).unwrap_or('?'));
            }
            _ => out.push(char::from_u32(code + 0x40).unwrap_or('?')),
        }
    }
    std::borrow::Cow::Owned(out)
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
    fn streamed_text_never_shows_a_secret_in_two_halves() {
        never_print("sk-stream-4242");
        never_print("abcabcab");
        let m = Masker::now();
        // Chunk by chunk, as a renderer feeds it: the held tail waits for the next chunk.
        let mut shown = String::new();
        let mut pending = String::new();
        for chunk in ["your key is sk-str", "eam-42", "42, done s", "o long"] {
            pending.push_str(chunk);
            let (out, covered) = m.streamed(&pending);
            shown.push_str(&out);
            pending.drain(..covered);
        }
        shown.push_str(&pending);
        assert_eq!(shown, "your key is ***, done so long");
        assert_eq!(m.streamed("key sk-str"), ("key ".to_owned(), 4));
        // A tail that starts inside a whole (self-overlapping) secret is not held.
        assert_eq!(m.streamed("x abcabcab"), ("x ***".to_owned(), 10));
        assert_eq!(m.streamed("plain text."), ("plain text.".to_owned(), 11));
    }

    #[test]
    fn raw_lines_are_masked_and_borrowed_when_clean() {
        never_print("tok-raw-0123456789");
        never_print("zqzqzqzq");
        let m = Masker::now();
        let clean = br#"{"id":"x","content":"nothing here"}"#;
        assert!(matches!(m.apply(clean), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            &*m.apply(br#"{"error":"bad tok-raw-0123456789, tok-raw-0123456789"}"#),
            br#"{"error":"bad ***, ***"}"#
        );
        // Occurrences that overlap are masked once, from the left.
        assert_eq!(&*m.apply(b"zqzqzqzqzqzq!"), b"***zqzq!");
    }

    #[test]
    fn control_characters_are_shown_in_caret_notation() {
        assert_eq!(visible("plain ünï ✓"), "plain ünï ✓");
        assert_eq!(
            visible("esc\u{1b}[31mRED\u{1b}[0m bell\u{7} cr\r lf\n tab\t nul\u{0} del\u{7f}"),
            "esc^[[31mRED^[[0m bell^G cr^M lf^J tab^I nul^@ del^?"
        );
        assert_eq!(visible("csi\u{9b}2J nel\u{85}"), "csi^[[2J nel^[E");
        assert_eq!(visible_text("a\n\tb\r\u{1b}c"), "a\n\tb^M^[c");
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
