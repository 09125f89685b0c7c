//! `analyst chat -i` through a pseudo-terminal: line editing, turns in one thread, prompt
//! commands, Ctrl-C mid-answer (the service gets the abort, the prompt comes back), Ctrl-D;
//! and the refusal without a terminal.

use crate::common;

use common::pty::{Pty, prompt_cmd};
use common::scripted::*;

#[test]
fn a_session_with_the_demo_service() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = prompt_cmd(home.path());
    cmd.args(["chat", "-i", "--demo"]);
    let mut pty = Pty::spawn(cmd);
    pty.expect("analyst> ");
    pty.send("revenue by category\r");
    pty.expect("Category");
    pty.expect("Electronics");
    pty.expect("█");
    pty.expect("Electronics had the highest revenue");
    pty.expect("analyst> ");
    pty.send("/sql\r");
    // The answer's own query is its last SQL (the total it cites runs first).
    pty.expect("SQL 2 of 2:");
    // All its rows, from the data query API, then the command for a shell.
    pty.expect("Electronics");
    pty.expect("From a shell: analyst sql --demo 'SELECT ");
    pty.expect("analyst> ");
    pty.send("/chart c.svg\r");
    // The breakdown is the one result presented: the total it cites carries no chart.
    pty.expect("Wrote c.svg.");
    pty.send("/save s.ndjson\r");
    pty.expect("Wrote s.ndjson.");
    // The second message goes to the same thread: the answer knows the earlier turn.
    pty.send("and by month?\r");
    pty.expect("analyst> ");
    pty.send("/state\r");
    pty.expect("and by month?");
    pty.expect("analyst> ");
    pty.send("/nope\r");
    pty.expect("Unknown command /nope");
    pty.send("\x04");
    assert_eq!(pty.wait(), 0);
    assert!(
        std::fs::read_to_string(home.path().join("c.svg"))
            .unwrap()
            .contains("<rect class=\"bar\"")
    );
    let saved = std::fs::read_to_string(home.path().join("s.ndjson")).unwrap();
    assert!(saved.contains("\"__cutoff__\"") && saved.ends_with('\n'));
    let history = std::fs::read_to_string(home.path().join("state/analyst/history")).unwrap();
    assert!(
        history.contains("revenue by category") && history.contains("/sql"),
        "{history}"
    );
}

/// `/sql` runs the N-th SQL of the last answer, not of the thread: after a follow-up, `/sql 1`
/// is the follow-up's query (its printed command was `sql --pick 1 --chat-id`, which counts the
/// thread's queries and fetched the first turn's). The rows shown are checked against a query
/// written here over the sample.
#[test]
fn sql_in_the_prompt_runs_the_last_answers_query() {
    let home = tempfile::tempdir().unwrap();
    let hand = |year: &str| {
        common::engine::hand(
            common::engine::sample(),
            &format!(
                "SELECT ROUND(SUM(i.amount), 2) FROM order_items i JOIN orders o ON o.id = i.order_id \
                 JOIN customers u ON u.id = o.customer_id WHERE u.country = 'Germany' \
                 AND o.created_at >= '{year}-01-01' AND o.created_at < '{}-01-01'",
                year.parse::<i32>().unwrap() + 1
            ),
        )[0][0]
            .clone()
    };
    let (y2025, y2024) = (hand("2025"), hand("2024"));
    assert_ne!(y2025, y2024);
    // As chat's tables show a number: grouped by thousands.
    let group = |s: &str| {
        let s = s.trim_end_matches(".0");
        let (whole, decimals) = s.split_once('.').map_or((s, None), |(w, d)| (w, Some(d)));
        let groups: Vec<String> = whole
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        match decimals {
            Some(d) => format!("{}.{d}", groups.join(",")),
            None => groups.join(","),
        }
    };
    let mut cmd = prompt_cmd(home.path());
    cmd.args(["chat", "-i", "--demo"]);
    let mut pty = Pty::spawn(cmd);
    pty.expect("analyst> ");
    pty.send("revenue in Germany in 2025\r");
    pty.expect("analyst> ");
    pty.send("and in 2024?\r");
    pty.expect("analyst> ");
    pty.send("/sql 1\r");
    pty.expect("SQL 1 of 1:");
    pty.expect("'2024-01-01'");
    pty.expect(&group(&y2024));
    pty.expect("1 row");
    pty.expect("From a shell: analyst sql --demo 'SELECT ");
    pty.expect("analyst> ");
    pty.send("/sql 2\r");
    pty.expect("/sql N: N is 1 to 1.");
    pty.send("\x04");
    let seen = pty.seen.clone();
    assert_eq!(pty.wait(), 0);
    // The first turn's value shows only as the answer wrote it (with separators), never as
    // the data API's raw cell.
    let raw_2025 = y2025.trim_end_matches(".0");
    let whole = raw_2025.split('.').next().unwrap();
    let seen = String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
    assert!(
        seen.contains(&group(whole)) && !seen.contains(raw_2025),
        "{y2025}: {seen}"
    );
}

/// `chat -i --demo -c` continues the demo's last thread, as `chat --demo -c` does (it looked
/// for a profile's last thread, which a demo run never sets).
#[test]
fn the_prompt_continues_the_demos_last_thread() {
    let home = tempfile::tempdir().unwrap();
    let out = prompt_cmd(home.path())
        .args([
            "chat",
            "--demo",
            "-o",
            "final",
            "Revenue in Germany in 2025",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut cmd = prompt_cmd(home.path());
    cmd.args(["chat", "-i", "--demo", "-c"]);
    let mut pty = Pty::spawn(cmd);
    pty.expect("analyst> ");
    pty.send("and the year before?\r");
    // Germany, 2024: the thread's earlier turn gives the country.
    pty.expect("Germany");
    pty.expect("2024");
    pty.expect("analyst> ");
    pty.send("\x04");
    assert_eq!(pty.wait(), 0);
}

#[test]
fn ctrl_c_aborts_the_turn_and_the_prompt_goes_on() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, earlier| {
        if req.is_abort() {
            return Reply::status(204, "");
        }
        if earlier.iter().filter(|s| s.is_message()).count() == 0 {
            // The first answer stalls half-way.
            return Reply::lines(&[
                cutoff("c1", false),
                echo(MID, 1, "Top?"),
                delta("a1", 2, "Books are "),
            ])
            .then_stall();
        }
        Reply::lines(&happy(MID))
    });
    let mut cmd = prompt_cmd(home.path());
    cmd.env("ANALYST_API_KEY", "sk-test").args([
        "chat",
        "-i",
        "--url",
        &server.url(),
        "--external-id",
        "bot",
    ]);
    let mut pty = Pty::spawn(cmd);
    pty.expect("analyst> ");
    pty.send("Top?\r");
    pty.expect("Books are ");
    pty.send("\x03");
    pty.expect("stopped the answer (aborted c1)");
    pty.expect("analyst> ");
    // Ctrl-C at the prompt clears the line; the prompt stays.
    pty.send("half typed\x03");
    pty.expect("analyst> ");
    pty.send("Again?\r");
    pty.expect("Books lead.");
    pty.expect("analyst> ");
    pty.send("\x04");
    assert_eq!(pty.wait(), 0);
    let seen = server.seen();
    let aborts: Vec<_> = seen.iter().filter(|s| s.is_abort()).collect();
    assert_eq!(aborts.len(), 1, "{seen:?}");
    assert_eq!(aborts[0].body["chatId"], "c1");
    let messages: Vec<_> = seen.iter().filter(|s| s.is_message()).collect();
    assert_eq!(messages.len(), 2, "half typed was never sent");
    assert_eq!(messages[1].body["input"], "Again?");
    assert_eq!(messages[1].body["chatId"], "c1", "same thread");
}

#[test]
fn without_a_terminal_the_prompt_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let out = analyst(home.path())
        .args(["chat", "-i", "--demo"])
        .write_stdin("hello\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("-i needs a terminal"),
        "{}",
        text(&out.stderr)
    );
}
