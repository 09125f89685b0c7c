//! Resume after dropped connections (CLI.md "Resume"): state reads, resends with the same
//! messageId, no duplicate output, --retries 0, suspension and stalls.

use crate::common;

use common::scripted::*;
use serde_json::Value;

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A server whose first message stream drops after `first` lines of the happy stream; state
/// reads say the turn is still streaming; the resend replays the whole stream from the start
/// (the worst case for duplicates).
fn drop_after(first: usize) -> Server {
    Server::start(move |req, earlier| {
        let messages = earlier.iter().filter(|s| s.is_message()).count();
        if !req.is_message() {
            return Reply::lines(&[cutoff("c1", true)]);
        }
        let all = happy(MID);
        if messages == 0 {
            Reply::lines(&all[..first]).then_drop()
        } else {
            Reply::lines(&all)
        }
    })
}

#[test]
fn drops_at_several_points_resume_without_duplicates() {
    for first in 1..happy(MID).len() - 1 {
        let home = tempfile::tempdir().unwrap();
        let server = drop_after(first);
        let out = chat(home.path(), &server)
            .args(["-o", "ndjson", "Top categories?"])
            .assert()
            .success();
        assert_eq!(
            text(&out.get_output().stdout),
            joined(&happy(MID)),
            "dropped after {first} lines"
        );
        let seen = server.seen();
        let kinds: Vec<&str> = seen
            .iter()
            .map(|s| if s.is_message() { "message" } else { "read" })
            .collect();
        assert_eq!(kinds, ["message", "read", "message"], "after {first}");
        // The read carries the thread and identity, but no input or messageId.
        let read = &seen[1].body;
        assert_eq!(read["chatId"], "c1");
        assert_eq!(read["sessionSettings"]["externalId"], "bot");
        assert!(read.get("messageId").is_none());
        // The resend is the same message, same id, now on the thread.
        assert_eq!(seen[2].body["messageId"], MID);
        assert_eq!(seen[2].body["input"], seen[0].body["input"]);
        assert_eq!(seen[2].body["chatId"], "c1");
        assert!(seen[0].body.get("chatId").is_none());
    }
}

#[test]
fn text_after_a_resume_prints_the_answer_once() {
    let home = tempfile::tempdir().unwrap();
    let server = drop_after(4);
    let out = chat(home.path(), &server)
        .args(["-o", "text", "Top?"])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert_eq!(stdout.matches("Books lead.").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("» dataSqlApi").count(), 1, "{stdout}");
}

#[test]
fn a_finished_turn_is_taken_from_the_state_and_nothing_is_invented() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.is_message() {
            Reply::lines(&[cutoff("c1", true), delta("a1", 1, "Books ")]).then_drop()
        } else {
            Reply::lines(&[cutoff("c1", false), state_for("Top?", "Books lead by far.")])
        }
    });
    chat(home.path(), &server)
        .args(["-o", "final", "Top?"])
        .assert()
        .success()
        .stdout("Books lead by far.\n");
    let out = chat(home.path(), &server)
        .args(["-o", "ndjson", "Top?"])
        .assert()
        .success();
    // What arrived, then the state read's own lines, which carry the answer (its
    // `__cutoff__` marks the reconnection for extract-final and --replay).
    assert_eq!(
        text(&out.get_output().stdout),
        joined(&[
            cutoff("c1", true),
            delta("a1", 1, "Books "),
            cutoff("c1", false),
            state_for("Top?", "Books lead by far.")
        ])
    );
    let out = chat(home.path(), &server)
        .args(["-o", "text", "Top?"])
        .assert()
        .success();
    assert_eq!(text(&out.get_output().stdout), "Books lead by far.\n");
    // Never a second message: one message, one read, per run.
    let messages = server.seen().iter().filter(|s| s.is_message()).count();
    assert_eq!(messages, 3);
}

#[test]
fn retries_zero_exits_6_on_a_drop() {
    let home = tempfile::tempdir().unwrap();
    let server = drop_after(3);
    let out = chat(home.path(), &server)
        .args(["-o", "ndjson", "--retries", "0", "Top?"])
        .assert()
        .code(6);
    assert!(text(&out.get_output().stderr).contains("connection lost"));
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn retries_run_out_while_the_thread_keeps_streaming() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.is_message() {
            Reply::lines(&[cutoff("c1", true)]).then_drop()
        } else {
            Reply::lines(&[cutoff("c1", true)])
        }
    });
    chat(home.path(), &server)
        .args(["-o", "ndjson", "--retries", "2", "Top?"])
        .assert()
        .code(6);
    let messages = server.seen().iter().filter(|s| s.is_message()).count();
    assert_eq!(messages, 3, "the first send and two resends");
}

#[test]
fn a_drop_before_the_thread_id_cannot_be_resumed() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|_, _| Reply::lines(&[]).then_drop());
    let out = chat(home.path(), &server).arg("Top?").assert().code(6);
    assert!(text(&out.get_output().stderr).contains("thread id never arrived"));
    assert_eq!(server.seen().len(), 1);
}

fn suspends_once() -> Server {
    let suspended: String =
        serde_json::json!({"id":"__suspended__","type":"suspend","code":"chat_suspended",
        "retryable":true,"messageId":MID,"error":"Chat suspended"})
        .to_string();
    Server::start(move |_, earlier| {
        if earlier.is_empty() {
            Reply::lines(&[
                cutoff("c1", true),
                delta("a1", 1, "Books "),
                suspended.clone(),
            ])
        } else {
            Reply::lines(&[
                cutoff("c1", true),
                delta("a1", 2, "lead."),
                complete("a1", 3, "Books lead."),
                state("Books lead."),
            ])
        }
    })
}

#[test]
fn a_suspended_turn_is_resent_at_once() {
    let home = tempfile::tempdir().unwrap();
    let server = suspends_once();
    chat(home.path(), &server)
        .args(["-o", "final", "Top?"])
        .assert()
        .success()
        .stdout("Books lead.\n");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].body["messageId"], MID);
    assert_eq!(seen[1].body["chatId"], "c1");
    // With no retries, a suspension is a failure.
    chat(home.path(), &suspends_once())
        .args(["-o", "final", "--retries", "0", "Top?"])
        .assert()
        .code(1);
}

fn stalls_once() -> Server {
    Server::start(|req, earlier| {
        let messages = earlier.iter().filter(|s| s.is_message()).count();
        match (req.is_message(), messages) {
            (true, 0) => Reply::lines(&[cutoff("c1", true), delta("a1", 1, "Books ")]).then_stall(),
            (true, _) => Reply::lines(&happy(MID)),
            (false, _) => Reply::lines(&[cutoff("c1", true)]),
        }
    })
}

#[test]
fn a_stalled_stream_is_a_drop() {
    let home = tempfile::tempdir().unwrap();
    let server = stalls_once();
    let out = chat(home.path(), &server)
        .args(["-o", "json", "--idle-timeout", "300ms", "Top?"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["final"], "Books lead.");
    let out = chat(home.path(), &stalls_once())
        .args([
            "-o",
            "ndjson",
            "--idle-timeout",
            "300ms",
            "--retries",
            "0",
            "Top?",
        ])
        .assert()
        .code(6);
    assert!(text(&out.get_output().stderr).contains("no data for 300ms"));
}

/// An existing thread whose send drops before any byte; the read finds the thread idle, holding
/// only `held_question`'s turn (answered "OLD answer").
fn drops_before_anything(held_question: &'static str) -> Server {
    drops_after(&[], held_question)
}

/// The same, but the send's first lines (`first`) arrive before the drop.
fn drops_after(first: &[String], held_question: &'static str) -> Server {
    let first = first.to_vec();
    Server::start(move |req, _| {
        if req.is_message() {
            return if first.is_empty() {
                Reply {
                    status: 200,
                    parts: vec![Part::Drop],
                }
            } else {
                Reply::lines(&first).then_drop()
            };
        }
        let human = |text: &str| serde_json::json!({"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":text}});
        let ai = serde_json::json!({"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"OLD answer"}});
        let state = serde_json::json!({"id":"__state__","sort":9,"state":{"messages":[human(held_question), ai]}});
        Reply::lines(&[
            cutoff("c1", false),
            echo("1690000000000-message", 1, held_question),
            complete("o1", 3, "OLD answer"),
            state.to_string(),
        ])
    })
}

#[test]
fn a_message_that_never_reached_the_thread_does_not_take_another_turns_answer() {
    let home = tempfile::tempdir().unwrap();
    let server = drops_before_anything("an older question");
    let save = home.path().join("saved.ndjson");
    let out = chat(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "final", "--save"])
        .arg(&save)
        .arg("a new question")
        .assert()
        .code(6);
    let out = out.get_output();
    assert_eq!(text(&out.stdout), "", "no answer is printed for it");
    assert!(
        text(&out.stderr).contains("not answered"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !std::fs::read_to_string(&save)
            .unwrap()
            .contains("OLD answer")
    );
    // Never a second message.
    assert_eq!(server.seen().iter().filter(|s| s.is_message()).count(), 1);
}

#[test]
fn a_cutoff_alone_does_not_make_another_turns_answer_this_ones() {
    // The send's `__cutoff__` arrived, then the drop: no echo, and the idle thread's last
    // question is another one. Its answer is not this message's.
    let home = tempfile::tempdir().unwrap();
    let server = drops_after(&[cutoff("c1", false)], "an older question");
    let out = chat(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "final", "a new question"])
        .assert()
        .code(6);
    let out = out.get_output();
    assert_eq!(text(&out.stdout), "");
    assert!(
        text(&out.stderr).contains("not answered"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.seen().iter().filter(|s| s.is_message()).count(), 1);
}

#[test]
fn a_turn_that_ended_without_a_reply_is_not_answered_by_the_turn_before() {
    // The message was echoed, then the drop; the read finds the thread idle with this question
    // last and no reply after it (the turn failed while the client was away). The reply before
    // it answers another question: exit 7, nothing printed, in every place the rule runs.
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        let human = |text: &str| serde_json::json!({"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":text}});
        let ai = serde_json::json!({"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"OLD answer"}});
        if req.is_message() {
            Reply::lines(&[
                cutoff("c1", false),
                echo("1700000000000-message", 1, "why?"),
            ])
            .then_drop()
        } else {
            let state = serde_json::json!({"id":"__state__","sort":9,"state":{"messages":[human("before"), ai, human("why?")]}});
            Reply::lines(&[cutoff("c1", false), state.to_string()])
        }
    });
    let save = home.path().join("saved.ndjson");
    let out = chat(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "final", "--save"])
        .arg(&save)
        .arg("why?")
        .assert()
        .code(7);
    assert_eq!(text(&out.get_output().stdout), "");
    let save = save.to_str().unwrap();
    for replay in [
        &["extract-final", save][..],
        &["chat", "--replay", save, "-o", "final"][..],
    ] {
        let out = analyst(home.path()).args(replay).assert().code(7);
        assert_eq!(text(&out.get_output().stdout), "", "{replay:?}");
    }
}

#[test]
fn a_message_the_idle_thread_holds_is_answered_from_the_state() {
    // The same drop, but the thread's last message is this one: the turn finished while the
    // client was away, and the state carries its answer.
    let home = tempfile::tempdir().unwrap();
    let server = drops_before_anything("the question");
    chat(home.path(), &server)
        .args(["--chat-id", "c1", "-o", "final", "the question"])
        .assert()
        .success()
        .stdout("OLD answer\n");
}

#[test]
fn a_state_read_after_a_drop_shows_no_frame_twice() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.is_message() {
            Reply::lines(&[
                cutoff("c1", true),
                echo(MID, 1, "Top?"),
                sql_tool("t1", 2),
                delta("a1", 3, "Books "),
            ])
            .then_drop()
        } else {
            // The read lists the thread's messages with the sorts they streamed with.
            Reply::lines(&[
                cutoff("c1", false),
                echo(MID, 1, "Top?"),
                sql_tool("t1", 2),
                complete("a1", 5, "Books lead."),
                state("Books lead."),
            ])
        }
    });
    let save = home.path().join("saved.ndjson");
    let out = chat(home.path(), &server)
        .args(["-o", "ndjson", "--save"])
        .arg(&save)
        .arg("Top?")
        .assert()
        .success();
    let want = joined(&[
        cutoff("c1", true),
        echo(MID, 1, "Top?"),
        sql_tool("t1", 2),
        delta("a1", 3, "Books "),
        cutoff("c1", false),
        complete("a1", 5, "Books lead."),
        state("Books lead."),
    ]);
    assert_eq!(text(&out.get_output().stdout), want);
    assert_eq!(std::fs::read_to_string(&save).unwrap(), want);
    let out = chat(home.path(), &server)
        .args(["-o", "text", "Top?"])
        .assert()
        .success();
    let stdout = text(&out.get_output().stdout);
    assert_eq!(stdout.matches("» dataSqlApi").count(), 1, "{stdout}");
    // The saved stream replays to the same answer.
    analyst(home.path())
        .args(["chat", "-o", "final", "--replay"])
        .arg(&save)
        .assert()
        .success()
        .stdout("Books lead.\n");
}

#[test]
fn a_refusal_after_the_stream_began_still_ends_with_the_document() {
    // The stream brought the thread and a tool call, then dropped; the state read is refused
    // (404). `-o json` still prints its document (chatId, the tool call, the error), exit 4.
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(|req, _| {
        if req.is_message() {
            Reply::lines(&[cutoff("c1", false), echo(MID, 1, "Top?"), sql_tool("t1", 2)])
                .then_drop()
        } else {
            Reply::status(404, r#"{"error":"no such thread"}"#)
        }
    });
    for format in ["json", "yaml"] {
        let out = chat(home.path(), &server)
            .args(["-o", format, "Top?"])
            .assert()
            .code(4);
        let stdout = text(&out.get_output().stdout);
        let doc: Value = if format == "json" {
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
        } else {
            serde_norway::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
        };
        assert_eq!(doc["chatId"], "c1", "{stdout}");
        assert_eq!(
            doc["toolCalls"].as_array().map(Vec::len),
            Some(1),
            "{stdout}"
        );
        assert!(
            doc["error"].as_str().is_some_and(|e| e.contains("404")),
            "{stdout}"
        );
        assert!(doc["final"].is_null(), "{stdout}");
    }
}
