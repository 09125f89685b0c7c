//! The checked-in completions and man pages match the command tree.
//! Regenerate them with: ANALYST_REGENERATE=1 cargo test --test it generated::

use std::path::Path;

#[test]
fn completions_and_man_pages_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let regenerate = std::env::var_os("ANALYST_REGENERATE").is_some();
    let mut stale = Vec::new();
    let files = analyst::generated_files();
    assert!(
        files.len() >= 5 + 9,
        "five shells and a man page per command"
    );
    for (rel, bytes) in &files {
        let path = root.join(rel);
        if regenerate {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            stale.push(rel.clone());
        }
    }
    // No leftover pages for commands that no longer exist.
    for dir in ["completions", "man"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let rel = format!("{dir}/{}", entry.unwrap().file_name().to_string_lossy());
            if !files.iter().any(|(r, _)| *r == rel) {
                if regenerate {
                    std::fs::remove_file(root.join(&rel)).unwrap();
                } else {
                    stale.push(format!("{rel} (no longer generated)"));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {stale:?}\nrun: ANALYST_REGENERATE=1 cargo test --test it generated::"
    );
}
