//! The emulator's data query API (`POST /cubejs-api/v1/cubesql`, `DELETE .../running-query/ID`)
//! driven by the real `analyst sql` binary: rows equal an independent SQLite query on the
//! sample, row-level security comes from signed tokens (`serve --token-for`), the compiler's
//! refusals are 400s (exit 2), bad tokens 403 (exit 3), `--limit` cancels on the service, and
//! `sql --demo --from` re-runs a `chat --demo` answer's SQL.

use crate::common;

use common::engine::{hand, sample};
use common::hardening::{Emulator, analyst, emulator, expect_status, outs, run};
use std::path::Path;

/// The base tables of the sample, joined, for the hand-written queries.
const LINES: &str = "FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id JOIN categories c ON c.id = p.category_id JOIN customers u ON u.id = o.customer_id";

const TOP5_2025: &str = "SELECT categories_name, MEASURE(revenue) AS revenue FROM sales WHERE orders_created_at >= '2025-01-01' AND orders_created_at < '2026-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 5";

fn top5_by_hand() -> Vec<Vec<String>> {
    hand(
        sample(),
        &format!(
            "SELECT c.name, ROUND(SUM(i.amount), 2) {LINES} WHERE o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 5"
        ),
    )
}

/// CSV output (header first) as rows of fields; values here have no quotes or commas.
fn csv_rows(stdout: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = stdout
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<String>>());
    let header = lines.next().unwrap_or_default();
    (header, lines.collect())
}

/// Rows equal, numbers within a cent.
fn same(got: &[Vec<String>], want: &[Vec<String>], context: &str) {
    assert!(!want.is_empty(), "{context}: the hand query found nothing");
    assert_eq!(
        got.len(),
        want.len(),
        "{context}\n got {got:?}\nwant {want:?}"
    );
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.len(), w.len(), "{context}: {g:?} vs {w:?}");
        for (a, b) in g.iter().zip(w) {
            match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => assert!((x - y).abs() < 0.011, "{context}: {g:?} vs {w:?}"),
                _ => assert_eq!(a, b, "{context}: {g:?} vs {w:?}"),
            }
        }
    }
}

/// A token from `analyst serve --token-for USER --attr ...` with the emulator's secret.
fn token_for(home: &Path, emu: &Emulator, user: &str, attrs: &[&str]) -> String {
    let secret = home.join("data-secret");
    std::fs::write(&secret, &emu.running.data_secret).unwrap();
    let mut cmd = analyst(home);
    cmd.args(["serve", "--data-secret-file"])
        .arg(&secret)
        .args(["--token-for", user]);
    for a in attrs {
        cmd.args(["--attr", a]);
    }
    let out = run(&mut cmd);
    expect_status(&out, 0, "serve --token-for");
    let token = outs(&out).0.trim().to_string();
    assert_eq!(token.split('.').count(), 3, "a JWT: {token}");
    token
}

/// `analyst sql -o csv QUERY` against the emulator's data API with this token.
fn sql_with(home: &Path, emu: &Emulator, token: &str, query: &str) -> std::process::Output {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_DATA_URL", &emu.running.data_url)
        .env("ANALYST_DATA_TOKEN", token)
        .args(["sql", "-o", "csv", query]);
    run(&mut cmd)
}

#[test]
fn sql_demo_gives_the_rows_of_an_independent_sqlite_query() {
    let home = tempfile::tempdir().unwrap();
    let out = run(analyst(home.path()).args(["sql", "--demo", "-o", "csv", TOP5_2025]));
    expect_status(&out, 0, "sql --demo");
    let (header, rows) = csv_rows(&outs(&out).0);
    assert_eq!(header, ["categories_name", "revenue"]);
    same(&rows, &top5_by_hand(), TOP5_2025);
}

#[test]
fn tokens_with_different_regions_get_their_own_rows() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let query = "SELECT customers_region, MEASURE(revenue) FROM sales WHERE orders_created_at >= '2025-01-01' GROUP BY 1 ORDER BY 1";
    let mut seen = Vec::new();
    for region in ["Europe", "Americas"] {
        let token = token_for(home.path(), &emu, "alice", &[&format!("region={region}")]);
        let out = sql_with(home.path(), &emu, &token, query);
        expect_status(&out, 0, region);
        let (_, rows) = csv_rows(&outs(&out).0);
        // Only the policy's region, with the numbers of a hand query restricted to it.
        let want = hand(
            sample(),
            &format!(
                "SELECT u.region, ROUND(SUM(i.amount), 2) {LINES} WHERE o.created_at >= '2025-01-01' AND u.region = '{region}' GROUP BY 1"
            ),
        );
        same(&rows, &want, region);
        assert!(rows.iter().all(|r| r[0] == region), "{region}: {rows:?}");
        seen.push(rows);
    }
    assert_ne!(seen[0], seen[1], "different attributes, different rows");
    // A region the data does not have: no rows at all, not everyone's.
    let token = token_for(home.path(), &emu, "bob", &["region=Atlantis"]);
    let out = sql_with(home.path(), &emu, &token, query);
    expect_status(&out, 0, "no such region");
    assert!(csv_rows(&outs(&out).0).1.is_empty(), "{}", outs(&out).0);
}

#[test]
fn base_tables_and_writes_are_refused_with_the_services_message() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let token = emu.running.data_token.clone();
    for (query, says) in [
        (
            "SELECT * FROM order_items_raw",
            "is not a cube or view of the model",
        ),
        (
            "SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id",
            "",
        ),
        ("DELETE FROM sales", "only SELECT queries are allowed"),
        ("SELECT products_name FROM sales; SELECT 1", ""),
    ] {
        let out = sql_with(home.path(), &emu, &token, query);
        expect_status(&out, 2, query);
        let stderr = outs(&out).1;
        assert!(stderr.contains("HTTP 400"), "{query}: {stderr}");
        assert!(stderr.contains(says), "{query}: {stderr}");
    }
}

#[test]
fn unsigned_and_wrongly_signed_tokens_are_refused_with_403() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let claims = serde_json::json!({"sub": "mallory", "userAttributes": {}});
    for (case, token) in [
        (
            "unsigned",
            analyst::emulator::http::auth::unsigned_token(&claims),
        ),
        (
            "wrong secret",
            analyst::emulator::http::auth::signed_token(&claims, "not-the-secret"),
        ),
        ("not a JWT", "garbage".to_string()),
    ] {
        let out = sql_with(home.path(), &emu, &token, TOP5_2025);
        expect_status(&out, 3, case);
        assert!(
            outs(&out).1.contains("Invalid token"),
            "{case}: {}",
            outs(&out).1
        );
    }
}

#[test]
fn limit_cancels_the_running_query_on_the_emulator() {
    let home = tempfile::tempdir().unwrap();
    let out = run(analyst(home.path()).args([
        "sql",
        "-v",
        "--demo",
        "--limit",
        "5",
        "-o",
        "csv",
        "SELECT products_name, orders_created_at FROM sales LIMIT 50000",
    ]));
    expect_status(&out, 0, "--limit");
    let (stdout, stderr) = outs(&out);
    assert_eq!(csv_rows(&stdout).1.len(), 5, "{stdout}");
    assert!(
        stderr.contains("> DELETE ") && stderr.contains("/cubejs-api/v1/running-query/"),
        "{stderr}"
    );
    assert!(
        stderr.contains("< 204"),
        "the emulator cancelled it: {stderr}"
    );
}

#[test]
fn sql_demo_from_a_saved_chat_demo_answer_gives_its_rows() {
    let home = tempfile::tempdir().unwrap();
    let saved = home.path().join("run.ndjson");
    let out = run(analyst(home.path())
        .args(["chat", "--demo", "-o", "ndjson", "--save"])
        .arg(&saved)
        .arg("Top 5 product categories by revenue in 2025"));
    expect_status(&out, 0, "chat --demo --save");
    let out = run(analyst(home.path())
        .args(["sql", "--demo", "-o", "csv", "--from"])
        .arg(&saved));
    expect_status(&out, 0, "sql --demo --from");
    let (_, rows) = csv_rows(&outs(&out).0);
    same(&rows, &top5_by_hand(), "the answer's SQL");
}

/// A cut table's note names the command that fetches all its rows: pasted into a shell as
/// printed, after a `chat --demo`, it must reach the demo too (it said `analyst sql '…'`,
/// which asks for a data URL), and give every row the note counts.
#[test]
fn the_cut_tables_command_works_when_pasted() {
    // As the demo user, and as a user whose rows are Europe's (the command must carry the
    // identity: the rows follow its attributes).
    for (identity, scope) in [
        (vec![], ""),
        (
            vec!["--external-id", "eu-analyst", "--attr", "region=Europe"],
            " AND u.region = 'Europe'",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        let out = run(analyst(home.path())
            .args(["chat", "--demo", "--today", "2026-03-10", "-o", "text"])
            .args(["--no-chart"])
            .args(&identity)
            .arg("Revenue by day last year"));
        expect_status(&out, 0, "chat --demo");
        let text = outs(&out).0;
        let note = text
            .lines()
            .find(|l| l.contains("all of them: "))
            .unwrap_or_else(|| panic!("no cut-table note:\n{text}"));
        let in_all: usize = note
            .split_once(" in all)")
            .and_then(|(head, _)| head.rsplit_once('(').map(|(_, n)| n.replace(',', "")))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count in {note}"));
        let command = note.split_once("all of them: ").unwrap().1;
        let flags = identity.join(" ");
        assert!(
            command.starts_with(
                &format!("analyst sql --demo --today 2026-03-10 {flags}").replace("  ", " ")
            ),
            "{command}"
        );
        let bin = assert_cmd::cargo::cargo_bin("analyst");
        let out = run(std::process::Command::new("sh")
            .env_clear()
            .env("HOME", home.path())
            .env("XDG_CACHE_HOME", common::isolation::SHARED_CACHE)
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", bin.parent().unwrap().display()),
            )
            .args(["-c", &format!("{command} -o csv")]));
        expect_status(&out, 0, "the pasted command");
        let (_, rows) = csv_rows(&outs(&out).0);
        assert_eq!(rows.len(), in_all, "{note}");
        // Independently: the days of 2025 with revenue (in the user's region), and their sum.
        let want = common::engine::hand_number(
            sample(),
            &format!(
                "SELECT ROUND(SUM(i.amount), 2) {LINES} WHERE o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01'{scope}"
            ),
        );
        let got: f64 = rows.iter().map(|r| r[1].parse::<f64>().unwrap()).sum();
        assert!(
            (got - want).abs() < 0.01,
            "{identity:?}: sum {got} != {want}"
        );
    }
}

/// PROTOCOL.md caps rows only "without `LIMIT`" (at most 50,000 "unless streaming", and this
/// answer streams): a `LIMIT` past 50,000 is answered whole (it was cut at 50,000, silently),
/// and no `LIMIT` gives the 10,000 default.
#[test]
fn a_limit_past_fifty_thousand_is_answered_whole() {
    let home = tempfile::tempdir().unwrap();
    let orders = hand(sample(), "SELECT COUNT(*) FROM orders")[0][0]
        .parse::<usize>()
        .unwrap();
    assert!(orders > 60_000, "the sample has {orders} orders");
    for (query, rows) in [
        ("SELECT id FROM orders LIMIT 60000", 60_000),
        ("SELECT id FROM orders", 10_000),
    ] {
        let out = run(analyst(home.path()).args(["sql", "--demo", "-o", "csv", query]));
        expect_status(&out, 0, query);
        let (_, got) = csv_rows(&outs(&out).0);
        assert_eq!(got.len(), rows, "{query}");
    }
}

/// `mcp` takes the data API's flags as `sql` does (it refused `--data-url` while its `run_sql`
/// error said "pass --data-url"): `run_sql` then runs on that API with that token. A secret
/// file named `-` is refused, since stdin carries the MCP messages.
#[test]
fn mcp_takes_the_data_api_flags() {
    use std::io::{BufRead, BufReader, Write};
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let emu = emulator(&[]);
    let (key, token) = (h.join("key"), h.join("data-token"));
    std::fs::write(&key, &emu.running.api_key).unwrap();
    std::fs::write(&token, token_for(h, &emu, "bot", &[])).unwrap();
    let mut child = analyst(h)
        .args([
            "mcp",
            "--url",
            &emu.running.chat_url,
            "--external-id",
            "bot",
            "--api-key-file",
        ])
        .arg(&key)
        .args(["--data-url", &emu.running.data_url, "--data-token-file"])
        .arg(&token)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let call = |stdin: &mut std::process::ChildStdin, msg: serde_json::Value| {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    };
    call(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    call(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    call(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "run_sql", "arguments": {"query": "SELECT MEASURE(count) AS n FROM orders"}}}),
    );
    let reply = loop {
        let line = lines.next().expect("an answer").unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["id"] == 2 {
            break v;
        }
    };
    drop(stdin);
    let _ = child.wait();
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{reply}");
    let want = hand(sample(), "SELECT COUNT(*) FROM orders")[0][0].clone();
    assert_eq!(
        result["structuredContent"]["rows"][0][0],
        want.as_str(),
        "{reply}"
    );

    let out = run(analyst(h)
        .args([
            "mcp",
            "--url",
            &emu.running.chat_url,
            "--external-id",
            "bot",
        ])
        .args(["--api-key-file", "-"]));
    expect_status(&out, 2, "mcp --api-key-file -");
    assert!(outs(&out).1.contains("stdin carries the MCP messages"));
    let out = run(analyst(h).args(["mcp", "--url", &emu.running.chat_url, "--session", "-"]));
    expect_status(&out, 2, "mcp --session -");
    assert!(outs(&out).1.contains("stdin carries the MCP messages"));
}

/// PROTOCOL.md's `timezone` is an IANA name: one that is not is a 400 naming the field (it was
/// answered 200 as if valid); a real one runs.
#[test]
fn a_timezone_that_is_no_iana_name_is_refused() {
    let emu = emulator(&[]);
    let home = tempfile::tempdir().unwrap();
    let token = emu.running.data_token.clone();
    let query = TOP5_2025;
    for (tz, code) in [
        ("Mars/Olympus", 2),
        ("not a zone", 2),
        ("Europe/Paris", 0),
        ("UTC", 0),
    ] {
        let mut cmd = analyst(home.path());
        cmd.env("ANALYST_DATA_URL", &emu.running.data_url)
            .env("ANALYST_DATA_TOKEN", &token)
            .args(["sql", "-o", "csv", "--timezone", tz, query]);
        let out = run(&mut cmd);
        expect_status(&out, code, tz);
        if code == 2 {
            let stderr = outs(&out).1;
            assert!(
                stderr.contains("HTTP 400") && stderr.contains("timezone"),
                "{tz}: {stderr}"
            );
        }
    }
}
