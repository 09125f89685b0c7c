//! Which users to patch: ids from arguments and `--ids-from`, and userNames to look up.

use crate::exit::usage;
use crate::settings::read_text_source;
use anyhow::Result;
use std::collections::HashSet;
use std::path::Path;

/// One user to patch, in input order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A SCIM id.
    Id(String),
    /// A userName, resolved to an id with a filtered GET.
    UserName(String),
}

/// The users of a run: ids deduplicated in first-seen order, then the userNames (also once each).
#[derive(Debug, Default)]
pub struct Targets {
    /// Everything to do, in order.
    pub list: Vec<Target>,
    /// The ids given directly, so a userName that resolves to one of them is not patched again.
    pub ids: HashSet<String>,
    /// How many repeated ids and userNames were dropped.
    pub duplicates: usize,
}

impl Targets {
    /// Gather ids from arguments, then `--ids-from`, then `--user-name`.
    pub fn gather(args: &[String], ids_from: Option<&Path>, names: &[String]) -> Result<Targets> {
        let mut t = Targets::default();
        for id in args {
            // `-` reads stdin elsewhere in analyst; as an id it would PATCH a user named "-"
            // and leave the ids piped in unread.
            if id.trim() == "-" {
                return Err(usage(
                    "\"-\" is not a user id: to read ids from stdin, use --ids-from -",
                ));
            }
            t.push_id(id.trim(), "an ID argument")?;
        }
        if let Some(path) = ids_from {
            let shown = path.to_string_lossy();
            let text = read_text_source("--ids-from", &shown)?;
            // A byte-order mark, as Windows editors save a file, is no part of the first id.
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            for (n, line) in text.lines().enumerate() {
                // A `#` comment fills a line or follows an id after white space (`u1  # leaver`),
                // as in a shell; a `#` inside an id (`a#b`) is part of it.
                let comment = line
                    .as_bytes()
                    .windows(2)
                    .position(|w| matches!(w, [b' ' | b'\t', b'#']));
                let line = comment.map_or(line, |at| &line[..at]);
                let id = line.trim();
                if id.is_empty() || id.starts_with('#') {
                    continue;
                }
                let place = format!("--ids-from {}:{}", shown, n + 1);
                t.push_id(id, &place)?;
            }
        }
        let mut seen_names = HashSet::new();
        for name in names {
            let name = name.trim();
            if name.is_empty() {
                return Err(usage("--user-name is empty"));
            }
            // userName is case-insensitive in SCIM (RFC 7643 §4.1.1), so is our dedup.
            if seen_names.insert(name.to_lowercase()) {
                t.list.push(Target::UserName(name.to_owned()));
            } else {
                t.duplicates += 1;
            }
        }
        if t.list.is_empty() {
            return Err(usage(
                "no users to patch: give ids as arguments, --ids-from FILE (or - for stdin), \
                 or --user-name NAME",
            ));
        }
        Ok(t)
    }

    fn push_id(&mut self, id: &str, place: &str) -> Result<()> {
        if id.is_empty() {
            return Err(usage(format!("{place}: the id is empty")));
        }
        // `.` and `..` would be read as relative path steps, addressing some other resource.
        if id == "." || id == ".." {
            return Err(usage(format!("{place}: {id:?} is not a user id")));
        }
        if self.ids.insert(id.to_owned()) {
            self.list.push(Target::Id(id.to_owned()));
        } else {
            self.duplicates += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dash_argument_points_to_ids_from() {
        let e = Targets::gather(&["a".into(), "-".into()], None, &[]).unwrap_err();
        assert_eq!(crate::exit::status_of(&e), crate::exit::Status::Usage);
        assert!(e.to_string().contains("--ids-from -"), "{e}");
    }

    #[test]
    fn files_skip_comments_blanks_and_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("ids.txt");
        std::fs::write(&f, "# users to remove\n  b  \n\na\n# a\nb\r\nc\n").unwrap();
        let t =
            Targets::gather(&["a".into()], Some(&f), &["Ann@x".into(), "ann@X".into()]).unwrap();
        assert_eq!(
            t.list,
            vec![
                Target::Id("a".into()),
                Target::Id("b".into()),
                Target::Id("c".into()),
                Target::UserName("Ann@x".into()),
            ]
        );
        assert_eq!(t.duplicates, 3);
    }

    #[test]
    fn nothing_or_odd_ids_are_usage_errors() {
        assert!(Targets::gather(&[], None, &[]).is_err());
        assert!(Targets::gather(&["..".into()], None, &[]).is_err());
        let e = Targets::gather(&[], Some(Path::new("/nonexistent/ids")), &[]).unwrap_err();
        assert!(e.to_string().contains("--ids-from"), "{e}");
    }
}
