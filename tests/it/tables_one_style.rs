//! Issue 33 item 6: every table of the tool is drawn in one style (columns two spaces apart,
//! the header over a rule of `─` per column, no other lines), and `--color never` or a pipe
//! gives the same table without escape codes, `--color always` the same with a bold header.

use crate::common;

use common::hardening::{self as hs, against, analyst, outs, run};

/// The table's lines in `out`, from its header (the line before the first rule) to its last
/// row; panics if there is none.
fn table_of<'a>(out: &'a str, what: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = out.lines().collect();
    let rule = lines
        .iter()
        .position(|l| is_rule(l))
        .unwrap_or_else(|| panic!("{what}: no header rule:\n{out}"));
    assert!(rule > 0, "{what}: a rule with no header:\n{out}");
    let end = lines[rule + 1..]
        .iter()
        .position(|l| l.trim().is_empty())
        .map_or(lines.len(), |n| rule + 1 + n);
    lines[rule - 1..end].to_vec()
}

fn is_rule(line: &str) -> bool {
    let plain = strip(line);
    plain.contains('─') && plain.chars().all(|c| c == '─' || c == ' ')
}

/// The text without SGR escape codes.
fn strip(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for n in chars.by_ref() {
                if n == 'm' {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// One style: no frame, no column rules; each column's rule starts where its header does, and
/// no line ends in blanks.
fn check_style(table: &[&str], what: &str) {
    let all = table.join("\n");
    for bad in ['│', '┆', '┌', '╞', '═', '+', '|'] {
        assert!(
            !table.iter().skip(2).any(|l| strip(l).starts_with(bad))
                && !strip(table[1]).contains(bad),
            "{what}: a frame or column rule ({bad}):\n{all}"
        );
    }
    for l in table {
        assert_eq!(l.trim_end(), *l, "{what}: trailing blanks in {l:?}");
    }
    let rule = strip(table[1]);
    let header = strip(table[0]);
    // Each run of `─` covers one column, and starts where the column's header does.
    let mut at = 0;
    for run in rule.split(' ') {
        if !run.is_empty() {
            let head: String = header.chars().skip(at).take(run.chars().count()).collect();
            assert!(
                !head.trim().is_empty(),
                "{what}: a rule under no header:\n{all}"
            );
        }
        at += run.chars().count() + 1;
    }
    assert!(
        header.chars().count() <= rule.chars().count(),
        "{what}: the rule spans the header:\n{all}"
    );
}

#[test]
fn every_table_has_the_one_style_and_colour_follows_color() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let emu = hs::emulator(&[]);
    // chat's result tables.
    let chat = run(&mut against(
        h,
        &emu,
        &["chat", "-o", "text", "--no-chart", hs::QUESTION],
    ));
    hs::expect_status(&chat, 0, "chat");
    let (chat_out, _) = outs(&chat);
    // state's table of the thread.
    let chat_id = chat_out
        .lines()
        .chain(outs(&chat).1.lines())
        .find_map(|l| l.split("--chat-id ").nth(1))
        .map(|s| s.split_whitespace().next().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no thread in {}", outs(&chat).1));
    let state = run(&mut against(
        h,
        &emu,
        &["state", "--chat-id", &chat_id, "-o", "table"],
    ));
    hs::expect_status(&state, 0, "state");
    // scim patch's results.
    let id = emu.user_id("ana@example.com");
    let scim = run(&mut against(
        h,
        &emu,
        &["scim", "patch", &id, "--activate", "-o", "table"],
    ));
    hs::expect_status(&scim, 0, "scim patch");
    // sql's rows.
    let sql_table = |extra: &[&str]| {
        run(analyst(h)
            .args(["sql", "--demo", "--today", "2026-06-30", "-o", "table"])
            .args(extra)
            .arg("SELECT customers_country, MEASURE(revenue) AS revenue FROM sales GROUP BY 1"))
    };
    let sql = sql_table(&[]);
    hs::expect_status(&sql, 0, "sql");
    // eval's report.
    let suite = h.join("s.yaml");
    std::fs::write(
        &suite,
        "cases:\n  - name: revenue\n    question: Total revenue in 2025\n    expect: {answer_contains: [revenue]}\n",
    )
    .unwrap();
    let eval = run(analyst(h)
        .args(["eval", "--demo", "--today", "2026-06-30", "-o", "table"])
        .arg(&suite));
    hs::expect_status(&eval, 0, "eval");
    for (what, out) in [
        ("chat", &chat),
        ("state", &state),
        ("scim patch", &scim),
        ("sql", &sql),
        ("eval", &eval),
    ] {
        let stdout = outs(out).0;
        assert!(
            !stdout.contains('\x1b'),
            "{what}: escape codes in a pipe:\n{stdout}"
        );
        check_style(&table_of(&stdout, what), what);
    }
    // --color always: the same table, its header bold.
    let coloured = sql_table(&["--color", "always"]);
    let (stdout, _) = outs(&coloured);
    let table = table_of(&stdout, "sql --color always");
    assert!(
        table[0].contains("\x1b[1m"),
        "a bold header: {:?}",
        table[0]
    );
    let plain: Vec<String> = table.iter().map(|l| strip(l)).collect();
    assert_eq!(
        plain,
        table_of(&outs(&sql).0, "sql"),
        "colour changes nothing else"
    );
}
