//! `analyst extract-final` run as a user runs it: real files, stdin, bad input.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::PathBuf;

const CUTOFF: &str = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":true}}"#;
const USER: &str =
    r#"{"id":"1700000000000-message","sort":1,"role":"user","content":"Revenue?","isDelta":false}"#;
const THINK: &str = r#"{"id":"a1","sort":2,"role":"assistant","content":"","thinking":"Looking","isDelta":true,"isInProcess":true,"graphPath":["data_analyst_agent"]}"#;
const TOOL: &str = r#"{"id":"t1","sort":3,"role":"assistant","content":"","toolCall":{"name":"dataSqlApi","input":{"sqlQuery":"SELECT 1"},"result":"{\"data\":[[\"1\"]]}"},"isInProcess":false,"graphPath":["data_analyst_agent","tools"]}"#;
const AGENT: &str = r#"{"id":"a2","sort":4,"role":"assistant","content":"Agent says 41.","isDelta":false,"isInProcess":false,"graphPath":["data_analyst_agent"]}"#;
const D1: &str = r#"{"id":"f1","sort":5,"role":"assistant","content":"Revenue was ","isDelta":true,"isInProcess":true,"graphPath":["final"]}"#;
const D2: &str = r#"{"id":"f1","sort":6,"role":"assistant","content":"$42.","isDelta":true,"isInProcess":true,"graphPath":["final"]}"#;
const DONE: &str = r#"{"id":"f1","sort":7,"role":"assistant","content":"Revenue was $42.","isDelta":false,"isInProcess":false,"graphPath":["final"]}"#;
const STATE: &str = r#"{"id":"__state__","sort":8,"state":{"messages":[]}}"#;
const USAGE: &str = r#"{"id":"__usage__","type":"usage","usage":{"totalTokens":10}}"#;

fn stream(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn analyst() -> Command {
    let mut cmd = Command::cargo_bin("analyst").unwrap();
    cmd.env_remove("ANALYST_CONFIG").env("NO_COLOR", "1");
    cmd
}

fn file(dir: &tempfile::TempDir, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    path
}

fn full() -> String {
    stream(&[CUTOFF, USER, THINK, TOOL, AGENT, D1, D2, DONE, STATE, USAGE])
}

#[test]
fn prints_the_final_answer_from_stdin_and_files() {
    analyst()
        .arg("extract-final")
        .write_stdin(full())
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr("");
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "run.ndjson", full());
    analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .success()
        .stdout("Revenue was $42.\n");
    analyst()
        .args(["extract-final", "-"])
        .write_stdin(full())
        .assert()
        .success()
        .stdout("Revenue was $42.\n");
}

#[test]
fn json_and_yaml_print_the_whole_message() {
    let out = analyst()
        .args(["extract-final", "-o", "json"])
        .write_stdin(full())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["id"], "f1");
    assert_eq!(v["sort"], 7);
    assert_eq!(v["content"], "Revenue was $42.");
    analyst()
        .args(["extract-final", "-o", "yaml"])
        .write_stdin(full())
        .assert()
        .success()
        .stdout(predicate::str::contains("content: Revenue was $42.\n"));
    analyst()
        .args(["extract-final", "-o", "table"])
        .write_stdin(full())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'table' for '--output",
        ))
        .stderr(predicate::str::contains(
            "[possible values: text, json, yaml]",
        ));
}

/// A number beyond f64 is valid JSON that serde cannot hold: only the field that holds it is
/// left out of `-o json`, with a warning naming it; the message's other fields stay.
#[test]
fn json_leaves_out_only_a_field_with_a_number_beyond_f64_and_says_so() {
    let line = r#"{"id":"m1","role":"assistant","content":"ok","isDelta":false,"graphPath":["final"],"sort":7,"usage":{"x":1e400},"extra":"kept"}"#;
    let out = analyst()
        .args(["extract-final", "-o", "json"])
        .write_stdin(format!("{line}\n"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "stdin: left out of the message: usage (a number beyond the range",
        ))
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"id":"m1","role":"assistant","content":"ok","isDelta":false,
            "graphPath":["final"],"sort":7,"extra":"kept"})
    );
    // Text shows the answer and has nothing to leave out.
    analyst()
        .args(["extract-final"])
        .write_stdin(format!("{line}\n"))
        .assert()
        .success()
        .stdout("ok\n")
        .stderr("");
}

#[test]
fn a_truncated_stream_is_rebuilt_from_chunks_with_a_warning() {
    // Shown, but no complete final answer: status 7, as `chat -o final` gives.
    let truncated = stream(&[CUTOFF, USER, D1, D2]) + &DONE[..40];
    analyst()
        .arg("extract-final")
        .write_stdin(truncated)
        .assert()
        .code(7)
        .stdout("Revenue was $42.\n")
        .stderr(
            predicate::str::contains("skipped 1 malformed line")
                .and(predicate::str::contains("line 5")),
        )
        .stderr(predicate::str::contains("incomplete"));
}

#[test]
fn no_final_answer_exits_7_and_fallback_is_opt_in() {
    let no_final = stream(&[CUTOFF, USER, THINK, TOOL, AGENT, STATE]);
    analyst()
        .arg("extract-final")
        .write_stdin(no_final.clone())
        .assert()
        .code(7)
        .stdout("")
        .stderr(predicate::str::contains(
            "stdin: no final answer (try --fallback)",
        ));
    analyst()
        .args(["extract-final", "--fallback"])
        .write_stdin(no_final)
        .assert()
        .success()
        .stdout("Agent says 41.\n")
        .stderr(predicate::str::contains("--fallback"));
    analyst()
        .arg("extract-final")
        .write_stdin("")
        .assert()
        .code(7);
    analyst()
        .arg("extract-final")
        .write_stdin("\n\n  \n\t\r\n")
        .assert()
        .code(7)
        .stderr(predicate::str::contains("malformed").not());
    // A form feed (or a vertical tab) is no JSON white space: such a line is malformed.
    analyst()
        .arg("extract-final")
        .write_stdin(format!("\x0c\n \x0c\r\n\x0b\n{}", full()))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "stdin: skipped 3 malformed lines; the first, line 1:",
        ));
}

#[test]
fn crlf_and_a_last_line_without_newline() {
    let crlf = full().replace('\n', "\r\n");
    analyst()
        .arg("extract-final")
        .write_stdin(crlf)
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr("");
    let no_newline = stream(&[CUTOFF, D1, D2]) + DONE;
    analyst()
        .arg("extract-final")
        .write_stdin(no_newline)
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr("");
}

#[test]
fn malformed_lines_are_counted_or_fatal_with_strict() {
    let input = stream(&[CUTOFF, "{not json", DONE, "[1,2]", "\"string\""]);
    analyst()
        .arg("extract-final")
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr(predicate::str::contains(
            "skipped 3 malformed lines; the first, line 2",
        ));
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "bad.ndjson", input);
    analyst()
        .args(["extract-final", "--strict"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "{}:2: not a JSON object",
            path.display()
        )));
}

#[test]
fn a_malformed_final_candidate_is_reported_with_its_line() {
    let input = stream(&[
        CUTOFF,
        DONE,
        r#"{"role":"assistant","graphPath":["final"],"content":"cut"#,
    ]);
    analyst()
        .args(["extract-final", "--strict"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("stdin:3: not a JSON object"));
}

#[test]
fn invalid_utf8_is_reported_with_its_line() {
    let mut input = stream(&[CUTOFF]).into_bytes();
    input.extend_from_slice(b"{\"content\":\"\xff\xfe\"}\n");
    input.extend_from_slice(stream(&[DONE]).as_bytes());
    analyst()
        .arg("extract-final")
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr(predicate::str::contains("line 2: invalid UTF-8"));
    analyst()
        .args(["extract-final", "--strict"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("stdin:2: invalid UTF-8"));
}

#[test]
fn unreadable_inputs_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    analyst()
        .args(["extract-final", "/nonexistent/run.ndjson"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "/nonexistent/run.ndjson: cannot read",
        ));
    analyst()
        .arg("extract-final")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
    analyst()
        .args(["extract-final", "-", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only once"));
}

#[test]
fn several_files_are_labelled_and_each_counts() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "a.ndjson", full());
    let b = file(&dir, "b.ndjson", stream(&[CUTOFF, AGENT]));
    let c = file(&dir, "c.ndjson", stream(&[D1]));
    let out = analyst()
        .arg("extract-final")
        .args([&a, &b, &c])
        .assert()
        .code(7)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        format!(
            "==> {} <==\nRevenue was $42.\n\n==> {} <==\nRevenue was \n",
            a.display(),
            c.display()
        )
    );
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains(&format!("{}: no final answer", b.display()))
    );

    let out = analyst()
        .args(["extract-final", "-o", "json"])
        .args([&a, &b])
        .assert()
        .code(7)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v[0]["file"], a.display().to_string());
    assert_eq!(v[0]["message"]["content"], "Revenue was $42.");
    assert_eq!(v[1]["message"], serde_json::Value::Null);

    // An unreadable file among good ones: the others still print, the status says so.
    analyst()
        .arg("extract-final")
        .arg(&a)
        .arg(dir.path().join("missing.ndjson"))
        .assert()
        .code(2)
        .stdout(predicate::str::contains("Revenue was $42."))
        .stderr(predicate::str::contains("missing.ndjson: cannot read"));
}

#[test]
fn over_long_lines_are_skipped_and_named() {
    // The bound is 64 MiB; a 65 MiB line must be skipped without holding it.
    let mut input = stream(&[CUTOFF, DONE]).into_bytes();
    input.extend(std::iter::repeat_n(b'x', 65 * 1024 * 1024));
    input.push(b'\n');
    analyst()
        .arg("extract-final")
        .write_stdin(input)
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr(predicate::str::contains(
            "line 3: longer than the limit of 67108864 bytes",
        ));
}

#[test]
fn large_files_scanned_in_parallel_blocks_agree_with_stdin() {
    // ~12 MB, so a file is cut into several blocks; lines cross block boundaries, a malformed
    // line sits deep inside, and the answer is a delta whose chunks span blocks.
    let mut content = String::new();
    let mut n = 0;
    while content.len() < 12 << 20 {
        n += 1;
        let id = format!("m{n}");
        content.push_str(&format!(r#"{{"id":"{id}","role":"assistant","content":"chunk {n} \"q\" é","isDelta":true,"graphPath":["final"]}}"#));
        content.push('\n');
        if n % 1000 == 0 {
            content.push_str(&format!(r#"{{"id":"{id}","role":"assistant","content":"complete {n}","isDelta":false,"graphPath":["final"]}}"#));
            content.push('\n');
        }
        if n == 70_000 {
            content.push_str("{broken\n");
        }
    }
    // The last message: many deltas, no complete frame.
    for i in 0..50_000 {
        content.push_str(&format!(r#"{{"id":"last","role":"assistant","content":"{i},","isDelta":true,"graphPath":["final"]}}"#));
        content.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "big.ndjson", &content);
    let from_file = analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .code(7) // an incomplete answer: shown, but not a complete one
        .get_output()
        .clone();
    let from_stdin = analyst()
        .arg("extract-final")
        .write_stdin(content.clone())
        .assert()
        .code(7) // an incomplete answer: shown, but not a complete one
        .get_output()
        .clone();
    assert_eq!(from_file.stdout, from_stdin.stdout);
    let expected: String = (0..50_000).map(|i| format!("{i},")).collect::<String>() + "\n";
    assert_eq!(String::from_utf8(from_file.stdout).unwrap(), expected);
    let stderr_file = String::from_utf8(from_file.stderr).unwrap();
    let stderr_stdin = String::from_utf8(from_stdin.stderr).unwrap();
    assert_eq!(
        stderr_file.replace(&path.display().to_string(), "stdin"),
        stderr_stdin
    );
    let broken_line = content.lines().position(|l| l == "{broken").unwrap() + 1;
    assert!(
        stderr_stdin.contains(&format!(
            "skipped 1 malformed line; the first, line {broken_line}:"
        )),
        "{stderr_stdin}"
    );
    analyst()
        .args(["extract-final", "--strict"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}:{broken_line}: not a JSON object",
            path.display()
        )));
}

#[test]
fn more_unfinished_messages_than_the_bound_give_the_answer_one_pass_gives() {
    // One pass drops the gathered chunks when a 65th unfinished final message opens. Here
    // message Z and 30 others open before the first 4 MiB block boundary, Z again and 40
    // others after it, then Z's last chunk: one pass drops Z's first two chunks in the second
    // block, which the blocks scanned apart cannot see; the file must give stdin's answer.
    let delta = |id: &str, text: &str| {
        format!(
            r#"{{"id":"{id}","role":"assistant","content":"{text}","isDelta":true,"graphPath":["final"]}}"#
        ) + "\n"
    };
    let pad = r#"{"id":"p","role":"assistant","content":"","thinking":"padding words here","isDelta":true,"graphPath":["data_analyst_agent"]}"#;
    let boundary = 4 << 20;
    let mut content = String::new();
    while content.len() < boundary - 20_000 {
        content.push_str(pad);
        content.push('\n');
    }
    content.push_str(&delta("Z", "<Z1>"));
    for i in 0..30 {
        content.push_str(&delta(&format!("a{i}"), "<a>"));
    }
    while content.len() < boundary + 100 {
        content.push_str(pad);
        content.push('\n');
    }
    content.push_str(&delta("Z", "<Z2>"));
    for i in 0..40 {
        content.push_str(&delta(&format!("b{i}"), "<b>"));
    }
    content.push_str(&delta("Z", "<Z3>"));
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "many.ndjson", &content);
    let warning = "the final answer is incomplete";
    analyst()
        .arg("extract-final")
        .write_stdin(content.clone())
        .assert()
        .code(7)
        .stdout("<Z3>\n")
        .stderr(predicate::str::contains(warning));
    analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .code(7)
        .stdout("<Z3>\n")
        .stderr(predicate::str::contains(warning));
}

#[test]
fn saved_runs_joined_give_the_last_runs_answer_here_and_in_replay() {
    // `cat run1.ndjson run2.ndjson`: the second run numbers its frames from the start again.
    let run = |n: u32, text: &str| {
        [
            r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":true}}"#.to_owned(),
            format!(r#"{{"id":"{n}-message","sort":1,"role":"user","content":"q{n}","isDelta":false}}"#),
            format!(r#"{{"id":"{n}-final","sort":2,"role":"assistant","content":"{text}","isDelta":false,"graphPath":["final"]}}"#),
            r#"{"id":"__state__","sort":3,"state":{"chatId":"c1","isStreaming":false}}"#.to_owned(),
        ]
        .join("\n")
            + "\n"
    };
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "runs.ndjson", run(1, "First.") + &run(2, "Second."));
    analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .success()
        .stdout("Second.\n");
    analyst()
        .args(["chat", "-o", "final", "--replay"])
        .arg(&path)
        .assert()
        .success()
        .stdout("Second.\n");
}

#[test]
fn pipes_and_devices_named_as_files_are_read_as_streams() {
    analyst()
        .args(["extract-final", "/dev/stdin"])
        .write_stdin(full())
        .assert()
        .success()
        .stdout("Revenue was $42.\n");
}

#[test]
fn a_byte_order_mark_does_not_spoil_the_first_line() {
    let with_bom = format!("\u{FEFF}{}", stream(&[DONE]));
    analyst()
        .arg("extract-final")
        .write_stdin(with_bom)
        .assert()
        .success()
        .stdout("Revenue was $42.\n")
        .stderr("");
}

#[test]
fn the_status_of_several_files_does_not_depend_on_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let empty = file(&dir, "empty.ndjson", "");
    let missing = dir.path().join("missing.ndjson");
    analyst()
        .arg("extract-final")
        .arg(&empty)
        .arg(&missing)
        .assert()
        .code(2);
    analyst()
        .arg("extract-final")
        .arg(&missing)
        .arg(&empty)
        .assert()
        .code(2);
    let out = analyst()
        .args(["extract-final", "-o", "json"])
        .arg(&missing)
        .arg(&empty)
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(v[0]["error"].as_str().unwrap().contains("cannot read"));
    assert_eq!(v[1]["error"], "no final answer");
}

/// A file of two turns (a session's `/save`, `eval --save-dir` with `then:`) whose second turn
/// was recovered by a state read: its answer is that read's, since no final frame follows it
/// (CLI.md), not the first turn's final frame, which both commands printed with status 0. A
/// final frame without content is no answer either (it printed an empty line, status 0).
#[test]
fn a_later_turns_state_read_is_its_answer_here_and_in_replay() {
    let cut = r#"{"id":"__cutoff__","sort":0,"state":{"chatId":"c1","isStreaming":false}}"#;
    let msg = |kind: &str, text: &str| {
        format!(
            r#"{{"lc":1,"type":"constructor","id":["langchain_core","messages","{kind}"],"kwargs":{{"content":"{text}"}}}}"#
        )
    };
    let state1 = format!(
        r#"{{"id":"__state__","sort":3,"state":{{"messages":[{},{}]}}}}"#,
        msg("HumanMessage", "Q1"),
        msg("AIMessage", "Turn1 answer")
    );
    let state2 = format!(
        r#"{{"id":"__state__","sort":9,"state":{{"messages":[{},{},{},{}]}}}}"#,
        msg("HumanMessage", "Q1"),
        msg("AIMessage", "Turn1 answer"),
        msg("HumanMessage", "Q2"),
        msg("AIMessage", "Turn2 answer")
    );
    let echo1 = r#"{"id":"1-message","role":"user","content":"Q1","isDelta":false,"sort":1}"#;
    let final1 = r#"{"id":"f1","role":"assistant","content":"Turn1 answer","isDelta":false,"graphPath":["final"],"sort":2}"#;
    let usage = r#"{"id":"__usage__","type":"usage","usage":{}}"#;
    let echo2 = r#"{"id":"2-message","role":"user","content":"Q2","isDelta":false,"sort":1}"#;
    let lines = [cut, echo1, final1, &state1, usage, cut, echo2, cut, &state2];
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "two-turns.ndjson", stream(&lines));
    analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .success()
        .stdout("Turn2 answer\n");
    analyst()
        .args(["chat", "--replay"])
        .arg(&path)
        .args(["-o", "final"])
        .assert()
        .success()
        .stdout("Turn2 answer\n");
    // `-o json`: the state's message as it was, said to come from the state; no id, isDelta
    // or graphPath that no one sent.
    let out = analyst()
        .args(["extract-final", "-o", "json"])
        .arg(&path)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["content"], "Turn2 answer");
    assert_eq!(doc["source"], "__state__");
    assert_eq!(doc["stateMessage"]["kwargs"]["content"], "Turn2 answer");
    assert!(
        doc.get("graphPath").is_none() && doc.get("isDelta").is_none(),
        "{doc}"
    );
    // The same on stdin, scanned in one pass.
    analyst()
        .arg("extract-final")
        .write_stdin(stream(&lines))
        .assert()
        .success()
        .stdout("Turn2 answer\n");
    let empty = r#"{"id":"f9","role":"assistant","content":null,"isDelta":false,"graphPath":["final"],"sort":3}"#;
    analyst()
        .arg("extract-final")
        .write_stdin(stream(&[cut, echo1, final1, empty]))
        .assert()
        .success()
        .stdout("Turn1 answer\n");
    analyst()
        .arg("extract-final")
        .write_stdin(stream(&[cut, echo1, empty]))
        .assert()
        .code(7)
        .stdout("");
}

/// A file is read first without gathering the chunks of unfinished answers (nearly always a
/// complete frame comes and they would be thrown away), and again with them only when the
/// answer is such a message: the text is then whole, across the file's parallel blocks, and
/// the malformed lines are counted once.
#[test]
fn an_unfinished_answer_in_a_file_is_rebuilt_whole_across_blocks() {
    let mut text = String::new();
    let mut body = stream(&[CUTOFF, USER, THINK]);
    body.push_str("{not json\n");
    // About 10 MB of deltas of one final message: more than two of the file's 4 MB blocks.
    for i in 0..60_000 {
        let chunk = format!("part {i:05} of the answer, with \\\"quotes\\\" and é; ");
        text.push_str(&chunk.replace("\\\"", "\""));
        body.push_str(&format!(
            r#"{{"id":"f9","sort":{},"role":"assistant","content":"{chunk}","isDelta":true,"isInProcess":true,"graphPath":["final"]}}"#,
            i + 10
        ));
        body.push('\n');
    }
    assert!(body.len() > 9 << 20);
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "unfinished.ndjson", &body);
    let out = analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .code(7)
        .stderr(predicate::str::contains("incomplete"))
        .stderr(predicate::str::contains("skipped 1 malformed line").count(1))
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(out).unwrap(), format!("{text}\n"));
    // With the complete frame at the end, the first read is the answer.
    body.push_str(&format!(
        r#"{{"id":"f9","sort":99999,"role":"assistant","content":"{}","isDelta":false,"graphPath":["final"]}}"#,
        "done"
    ));
    body.push('\n');
    let path = file(&dir, "finished.ndjson", &body);
    analyst()
        .arg("extract-final")
        .arg(&path)
        .assert()
        .success()
        .stdout("done\n");
}

#[test]
fn answers_in_lines_longer_than_a_block_are_read_whole_and_decoded_as_json_reads_them() {
    // Lines of megabytes (a tool result, a state, the answer itself) cross the 4 MB blocks
    // and run far past the bytes mapped with each block. The text of an answer decoded from its
    // line must be what its message's content says, escapes, pairs and lone surrogates included.
    let row = r#"| Caf\u00e9 \"Deluxe\" | 売上高 \ud83d\udcc8 | lone \ud800 | tab\there |\n"#;
    let content: String = row.repeat(9 << 20 >> 7);
    let result = format!(r#"{{\"data\":[[\"{}\"]]}}"#, "x".repeat(6 << 20));
    let tool = format!(
        r#"{{"id":"t9","role":"assistant","content":"","toolCall":{{"name":"dataSqlApi","result":"{result}"}},"graphPath":["data_analyst_agent","tools"]}}"#
    );
    let done = format!(
        r#"{{"id":"f9","sort":9,"role":"assistant","content":"{content}","isDelta":false,"graphPath":["final"]}}"#
    );
    let dir = tempfile::tempdir().unwrap();
    for (name, lines) in [
        ("one-line.ndjson", vec![done.as_str()]),
        (
            "mixed.ndjson",
            vec![CUTOFF, USER, &tool, DONE, &tool, &done, STATE],
        ),
    ] {
        let path = file(&dir, name, stream(&lines));
        let text = analyst()
            .arg("extract-final")
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let json = analyst()
            .args(["extract-final", "-o", "json"])
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let message: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let expected = message["content"].as_str().unwrap();
        assert!(
            expected.starts_with("| Café \"Deluxe\" | 売上高 📈 | lone \u{FFFD} | tab\there |\n")
        );
        assert_eq!(String::from_utf8(text).unwrap(), expected, "{name}");
        let from_stdin = analyst()
            .arg("extract-final")
            .write_stdin(std::fs::read(&path).unwrap())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        assert_eq!(String::from_utf8(from_stdin).unwrap(), expected, "{name}");
    }
}
