//! Issue 35, eval for CI pages: `-o markdown` (a summary line and a table, for
//! $GITHUB_STEP_SUMMARY and pull-request comments) and, under GITHUB_ACTIONS=true, one
//! `::error title=CASE::REASON` workflow command per failed case on stderr, stdout keeping
//! only the report.

use crate::common;

use common::hardening::{analyst, outs, run};

#[test]
fn markdown_report_and_workflow_errors() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let suite = h.join("s.yaml");
    std::fs::write(
        &suite,
        "cases:\n  - name: revenue\n    question: Total revenue in 2025\n    expect: {answer_contains: [revenue]}\n  - name: no-zebra\n    question: Total revenue in 2025\n    expect: {answer_contains: [\"zebra|x\"]}\n",
    )
    .unwrap();
    let out = run(analyst(h)
        .env("GITHUB_ACTIONS", "true")
        .args(["eval", "--demo", "--today", "2026-06-30", "-o", "markdown"])
        .arg(&suite));
    assert_eq!(out.status.code(), Some(1), "a failed case");
    let (stdout, stderr) = outs(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].contains("1 of 2 cases passed") && lines[0].contains("1 failed"),
        "{stdout}"
    );
    assert_eq!(
        lines[2],
        "| Case | Verdict | Seconds | Tokens | First failure |"
    );
    assert!(lines[3].starts_with("|---|"), "{stdout}");
    let row = lines
        .iter()
        .find(|l| l.starts_with("| no-zebra |"))
        .unwrap();
    // The pipe inside the reason is escaped, so the row keeps its five cells.
    assert!(row.contains(r"zebra\|x"), "{row}");
    assert_eq!(row.matches(" | ").count() + 2, 6, "{row}");
    assert!(!stdout.contains("::error"), "stdout keeps only the report");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].starts_with("::error title=no-zebra::answer_contains"),
        "{stderr}"
    );
    // Without GITHUB_ACTIONS, no workflow commands.
    let out = run(analyst(h)
        .args(["eval", "--demo", "--today", "2026-06-30", "-o", "markdown"])
        .arg(&suite));
    assert!(!outs(&out).1.contains("::error"), "{}", outs(&out).1);
}
