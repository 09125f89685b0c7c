//! Matrix 3: hostile bytes from the server. Each case: a clear message naming the problem, the
//! documented exit status, no panic, and nothing unbounded.

use crate::common;

use common::hardening::*;
use std::io::Write;
use std::net::TcpStream;

const CUTOFF: &[u8] =
    b"{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{\"chatId\":\"c1\",\"isStreaming\":true}}\n";

fn chat(home: &std::path::Path, base: &str) -> std::process::Command {
    let mut cmd = analyst(home);
    cmd.env("ANALYST_API_KEY", API_KEY).args([
        "chat",
        "--url",
        &chat_url(base),
        "--external-id",
        "bot",
        "--retries",
        "1",
        "--idle-timeout",
        "2s",
        "-o",
        "ndjson",
        "hello",
    ]);
    cmd
}

fn write(mut s: &TcpStream, bytes: &[u8]) {
    let _ = s.write_all(bytes);
    let _ = s.flush();
}

/// (name, server behaviour, expected status, words stderr must contain).
type Behaviour = fn(TcpStream, &str);

#[test]
fn hostile_responses_end_with_a_clear_message_and_the_documented_status() {
    let cases: Vec<(&str, Behaviour, i32, &[&str])> = vec![
        (
            "html 200",
            |s, _| {
                let body = "<!DOCTYPE html><html><body>Login</body></html>\n";
                write(&s, format!("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).as_bytes());
            },
            1,
            &["html", "login"],
        ),
        (
            "invalid utf-8 in a line",
            |s, _| {
                write(&s, CHUNKED_200.as_bytes());
                write(&s, &chunk(CUTOFF));
                write(&s, &chunk(b"{\"id\":\"a1\",\"sort\":1,\"role\":\"assistant\",\"content\":\"\xff\xfe\",\"graphPath\":[\"final\"],\"isDelta\":false}\n"));
                write(&s, b"0\r\n\r\n");
            },
            6,
            &["no __state__"],
        ),
        (
            "gzip garbage",
            |s, _| {
                write(&s, b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n");
                write(&s, &chunk(b"\x1f\x8b\x08\x00garbage garbage\n"));
                write(&s, b"0\r\n\r\n");
            },
            1,
            &["content-encoding: gzip"],
        ),
        (
            "broken chunked encoding",
            |s, _| {
                write(&s, CHUNKED_200.as_bytes());
                write(&s, &chunk(CUTOFF));
                write(&s, b"zz-not-hex\r\nabc\r\n");
            },
            6,
            &["connection lost"],
        ),
        (
            "reset mid-frame",
            |s, _| {
                write(&s, CHUNKED_200.as_bytes());
                write(&s, &chunk(b"{\"id\":\"__cutoff__\",\"sort\":0,\"sta"));
                reset(s);
            },
            6,
            &["connection lost"],
        ),
        ("reset before the head", |s, _| reset(s), 6, &[]),
        ("closed before the head", |s, _| drop(s), 6, &[]),
        (
            "status line garbage",
            |s, _| write(&s, b"SMTP READY\r\n\r\n"),
            6,
            &[],
        ),
    ];
    let home = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, behaviour, code, words) in &cases {
        let (base, _) = raw_server(true, *behaviour);
        let out = run(&mut chat(home.path(), &base));
        let (_, stderr) = outs(&out);
        let ok = !stderr.contains("panicked")
            && out.status.code() == Some(*code)
            && words.iter().all(|w| stderr.to_lowercase().contains(w));
        if !ok {
            failures.push(format!(
                "{name}: exit {:?} (want {code}, words {words:?}): {}",
                out.status.code(),
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// A line that never ends stops at the documented limit (64 MiB) with a message naming it; the
/// client's peak memory stays near the limit, not the 200 MB the server sends.
#[test]
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its peak RSS
fn an_endless_line_is_refused_at_the_limit_with_bounded_memory() {
    let (base, _) = raw_server(true, |s, _| {
        write(&s, CHUNKED_200.as_bytes());
        let block = chunk(&vec![b'a'; 1 << 20]);
        for _ in 0..200 {
            if (&s).write_all(&block).is_err() {
                return;
            }
        }
        write(&s, b"0\r\n\r\n");
    });
    let home = tempfile::tempdir().unwrap();
    let child = chat(home.path(), &base)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stderr = child.stderr.unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    // The peak is the child's own high-water mark since its exec (VmHWM), read until it exits
    // (the mark only rises, so the last reading is the peak). wait4's ru_maxrss also counts the
    // moments between fork and exec, when the child is a copy of this test process: with every
    // test in one binary that copy alone was hundreds of MB.
    let vm_hwm_kb = || -> Option<i64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    let mut peak_kb = 0;
    loop {
        if let Some(kb) = vm_hwm_kb() {
            peak_kb = peak_kb.max(kb);
        }
        let mut info = unsafe { std::mem::zeroed::<libc::siginfo_t>() };
        // WNOWAIT: see that it exited without reaping it, so wait4 below still can.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if r == 0 && unsafe { info.si_pid() } == pid {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    let stderr = reader.join().unwrap();
    assert!(libc::WIFEXITED(status), "{stderr}");
    let code = libc::WEXITSTATUS(status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("64 MiB") || stderr.contains("67108864"),
        "names the limit: {stderr}"
    );
    assert!(peak_kb > 0, "the child's memory was read");
    let peak_mb = peak_kb / 1024;
    assert!(peak_mb < 190, "peak RSS {peak_mb} MB for a 200 MB line");
}

/// A redirect to another origin is not followed: the other server sees no credentials (neither
/// the API key nor the token), and the message says why.
#[test]
fn a_redirect_to_another_host_carries_no_credentials() {
    let (other, other_seen) = raw_server(true, |s, _| {
        write(&s, b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
    let target = chat_url(&other);
    for status in [301, 302, 303, 307, 308] {
        let location = target.clone();
        let (base, _) = raw_server(true, move |s, _| {
            write(&s, format!("HTTP/1.1 {status} Moved\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").as_bytes());
        });
        let home = tempfile::tempdir().unwrap();
        for token in [false, true] {
            let mut cmd = chat(home.path(), &base);
            if token {
                cmd.env_remove("ANALYST_API_KEY")
                    .env("ANALYST_TOKEN", TOKEN);
            }
            let out = run(&mut cmd);
            let (_, stderr) = outs(&out);
            expect_status(&out, 1, &format!("redirect {status}"));
            assert!(stderr.contains("redirect"), "{stderr}");
        }
    }
    for head in other_seen.lock().unwrap().iter() {
        let lower = head.to_lowercase();
        assert!(
            !lower.contains("authorization") && !lower.contains("x-cube-auth-token"),
            "{head}"
        );
        assert!(!head.contains(API_KEY) && !head.contains(TOKEN), "{head}");
    }
}

/// The server hangs up while a big image is being uploaded: the EPIPE/ECONNRESET of the socket
/// is a network failure (exit 6), not a closed stdout (which would be a quiet exit 0).
#[test]
fn a_server_hanging_up_during_an_upload_is_a_network_failure() {
    let (base, _) = raw_server(false, |s, _| reset(s));
    let home = tempfile::tempdir().unwrap();
    let image = home.path().join("big.png");
    std::fs::write(&image, vec![0u8; 48 << 20]).unwrap();
    let mut cmd = chat(home.path(), &base);
    cmd.args(["--image", image.to_str().unwrap()]);
    let out = run(&mut cmd);
    expect_status(&out, 6, "upload cut");
}
