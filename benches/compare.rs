//! The benchmark harness: each figure of the performance issue side by side with its peer in
//! the same run, as a Markdown table of medians and ratios.
//!
//! Run: `cargo bench --bench compare [NAME...]`, where NAME picks rows by name: extract-final,
//! relay, ttff, render, startup, load, scim, sql, eval; `extract-final:KIND,...` picks stream
//! kinds (project, vendor, turns, crlf, non-ascii, huge-line; `support/kinds.rs`). BENCH_MB
//! (default 400) sets the size of each stream file (the huge line is at most 60 MB),
//! BENCH_RELAY_MB (200) the relayed stream, BENCH_RUNS (5) the runs per median, BENCH_PAIRS
//! (11) the rounds of paired runs (extract-final beside `wc -l`, sql beside curl, taking
//! turns), BENCH_CHATS (1000) the concurrent chats, BENCH_USERS (10000) the SCIM users,
//! BENCH_CASES (200) the eval cases. BENCH_BASELINE names another build of `analyst` (an older
//! commit's) to run in the same turns, for a row that says whether this one is slower.
//! BENCH_DOC=PAGE writes the command, the machine and the table between the page's
//! `<!-- bench-table:begin -->` and `<!-- bench-table:end -->` markers (docs/performance-streams.md).
//! Needs `jq`, `curl` and `wc` on PATH. The engine's own figures (dataset build, answer
//! latency) are in `cargo bench --bench engine`.

#[path = "support/eval.rs"]
mod eval;
#[path = "support/kinds.rs"]
mod kinds;
#[path = "support/load.rs"]
mod load;
#[path = "support/measure.rs"]
mod measure;
#[path = "support/relay.rs"]
mod relay;
#[path = "support/streams.rs"]
mod streams;

use measure::{Row, median, ms};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The stream file of `kind` ("project": this project's own generator), generated if missing.
fn stream_file(kind: &str, mb: u64) -> PathBuf {
    let name = if kind == "project" {
        format!("streams-{mb}mb.ndjson")
    } else {
        format!("kind-{kind}-{mb}mb.ndjson")
    };
    let path = data_dir().join(name);
    if !path.exists() {
        eprintln!("generating {} ...", path.display());
        let tmp = path.with_extension("tmp");
        if kind == "project" {
            streams::write_streams(&tmp, mb * 1_000_000).unwrap();
        } else {
            kinds::write_kind(kind, &tmp, mb * 1_000_000).unwrap();
        }
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

/// `extract-final` beside `wc -l` on one kind of stream, the two (and the baseline build, when
/// BENCH_BASELINE names one) taking turns, page cache warm.
fn extract_final_kind(bin: &str, kind: &str, mb: u64, rounds: usize) -> (Vec<Row>, Duration) {
    let path = stream_file(kind, mb);
    let size = std::fs::metadata(&path).unwrap().len() as f64;
    let p = path.display().to_string();
    // Warm the page cache.
    median(&format!("cat {p} > /dev/null"), 1);
    let with_args = |program: &str| {
        let mut cmd = vec![program.to_owned(), "extract-final".to_owned()];
        cmd.extend(kinds::args(kind).split_whitespace().map(str::to_owned));
        cmd.push(p.clone());
        cmd
    };
    let mut cmds = vec![
        measure::Cmd::new(&with_args(bin)),
        measure::Cmd::new(&["wc", "-l", &p]),
    ];
    let baseline = std::env::var("BENCH_BASELINE").ok();
    if let Some(base) = &baseline {
        cmds.push(measure::Cmd::new(&with_args(base)));
    }
    let times = measure::paired(&cmds, rounds);
    let ours = measure::median_of(times[0].clone());
    let wc = measure::median_of(times[1].clone());
    let vs_wc = measure::median_ratio(&times[0], &times[1]);
    let gbps = |d: Duration| size / d.as_secs_f64() / 1e9;
    let label = format!("extract-final, {kind}, {:.0} MB", size / 1e6);
    let mut rows = vec![Row {
        figure: label.clone(),
        ours: format!("{} ({:.2} GB/s)", ms(ours), gbps(ours)),
        peer: format!("wc -l: {} ({:.2} GB/s)", ms(wc), gbps(wc)),
        ratio: format!("{vs_wc:.2}x wc -l"),
        target: "≤ 2x wc -l".into(),
        met: vs_wc <= 2.0,
    }];
    if baseline.is_some() {
        let base = measure::median_of(times[2].clone());
        let vs_base = measure::median_ratio(&times[0], &times[2]);
        rows.push(Row {
            figure: label,
            ours: ms(ours),
            peer: format!("BENCH_BASELINE build: {}", ms(base)),
            ratio: format!("{vs_base:.2}x the baseline"),
            target: "≤ 1x the baseline".into(),
            // Within the noise of paired runs on a shared machine.
            met: vs_base <= 1.03,
        });
    }
    (rows, ours)
}

fn extract_final(bin: &str, runs: usize, only: &dyn Fn(&str) -> bool) -> Vec<Row> {
    let mb = env_u64("BENCH_MB", 400);
    let rounds = env_u64("BENCH_PAIRS", 11) as usize;
    let mut rows = Vec::new();
    if only("project") {
        let (paired, ours) = extract_final_kind(bin, "project", mb, rounds);
        rows.extend(paired);
        let p = stream_file("project", mb).display().to_string();
        let jq = median(
            &format!(
                r#"jq -c 'select(.role=="assistant" and .graphPath[0]=="final" and (.graphPath|length)<=2)' {p} | tail -n 1"#
            ),
            1,
        );
        let rss = median(&format!("{bin} extract-final {p}"), runs.min(3));
        let vs_jq = jq.wall.as_secs_f64() / ours.as_secs_f64();
        let rss_mb = rss.max_rss_kib as f64 / 1024.0;
        rows.push(Row {
            figure: format!("extract-final, project, {mb} MB"),
            ours: ms(ours),
            peer: format!("jq: {}", ms(jq.wall)),
            ratio: format!("{vs_jq:.1}x faster than jq"),
            target: "≥ 30x jq".into(),
            met: vs_jq >= 30.0,
        });
        rows.push(Row {
            figure: "extract-final peak RSS".into(),
            ours: format!("{rss_mb:.1} MB"),
            peer: format!("jq: {:.1} MB", jq.max_rss_kib as f64 / 1024.0),
            ratio: "-".into(),
            target: "< 30 MB".into(),
            met: rss_mb < 30.0,
        });
    }
    for kind in kinds::KINDS {
        if only(kind) {
            rows.extend(extract_final_kind(bin, kind, mb, rounds).0);
        }
    }
    rows
}

fn startup(bin: &str, runs: usize) -> Vec<Row> {
    let tiny = data_dir().join("tiny.ndjson");
    std::fs::write(&tiny, "{\"id\":\"f\",\"role\":\"assistant\",\"content\":\"ok\",\"isDelta\":false,\"graphPath\":[\"final\"]}\n").unwrap();
    // 20 invocations per sample, so process start-up dominates and timer noise does not.
    let loop20 = |cmd: String| format!("for i in $(seq 20); do {cmd} >/dev/null; done");
    let curl = median(&loop20("curl --version".into()), runs);
    let version = median(&loop20(format!("{bin} --version")), runs);
    let extract = median(
        &loop20(format!("{bin} extract-final {}", tiny.display())),
        runs,
    );
    let row = |figure: &str, ours: measure::Run| {
        let ratio = ours.wall.as_secs_f64() / curl.wall.as_secs_f64();
        Row {
            figure: figure.into(),
            ours: ms(ours.wall / 20),
            peer: format!("curl --version: {}", ms(curl.wall / 20)),
            ratio: format!("{ratio:.2}x curl"),
            target: "≤ 2x curl".into(),
            met: ratio <= 2.0,
        }
    };
    vec![
        row("start-up: analyst --version", version),
        row("start-up: extract-final tiny file", extract),
    ]
}

/// Environment for running `analyst chat` against a bench server: a key, an identity, nothing
/// from the user's own config or thread store.
const CHAT_ENV: &str = "ANALYST_API_KEY=bench-key ANALYST_EXTERNAL_ID=bench ANALYST_CONFIG=/dev/null HOME=/tmp/analyst-bench-home XDG_CONFIG_HOME=/tmp/analyst-bench-home NO_COLOR=1";

/// [`CHAT_ENV`] for a [`std::process::Command`].
fn chat_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    for pair in CHAT_ENV.split(' ') {
        let (k, v) = pair.split_once('=').unwrap();
        cmd.env(k, v);
    }
    cmd
}

fn chat_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/api/v1/public/bench/agents/1/chat/stream-chat-state")
}

/// A stream of `frames` content deltas with increasing `sort`, then a complete final frame.
fn delta_stream(frames: u64) -> Vec<u8> {
    let mut body = Vec::with_capacity(frames as usize * 200);
    body.extend_from_slice(b"{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{\"chatId\":\"bench\",\"isStreaming\":true}}\n");
    for sort in 1..=frames {
        body.extend_from_slice(
            format!("{{\"id\":\"f\",\"sort\":{sort},\"role\":\"assistant\",\"content\":\"word{} \",\"isDelta\":true,\"isInProcess\":true,\"graphPath\":[\"final\"],\"isStructuredResponse\":false}}\n", sort % 97)
                .as_bytes(),
        );
    }
    body.extend_from_slice(format!("{{\"id\":\"f\",\"sort\":{},\"role\":\"assistant\",\"content\":\"done\",\"isDelta\":false,\"isInProcess\":false,\"graphPath\":[\"final\"]}}\n", frames + 1).as_bytes());
    body.extend_from_slice(
        format!(
            "{{\"id\":\"__state__\",\"sort\":{},\"state\":{{\"messages\":[]}}}}\n",
            frames + 2
        )
        .as_bytes(),
    );
    body
}

/// A stream of `frames` lines where every 100th is a finished SQL tool call with 20 rows and a
/// bar chart spec (rendered as a table and a chart in `text`), the rest answer deltas.
fn charted_stream(frames: u64) -> Vec<u8> {
    let rows: Vec<String> = (0..20)
        .map(|i| {
            format!(
                r#"[\"category {i}\",\"{}.{:02}\"]"#,
                1000 + i * 7919 % 100_000,
                i
            )
        })
        .collect();
    let spec = r#"{\\\"mark\\\":\\\"bar\\\",\\\"encoding\\\":{\\\"x\\\":{\\\"field\\\":\\\"category\\\",\\\"type\\\":\\\"nominal\\\",\\\"sort\\\":\\\"-y\\\"},\\\"y\\\":{\\\"field\\\":\\\"revenue\\\",\\\"type\\\":\\\"quantitative\\\"}}}"#;
    let tool = format!(
        r#"{{"id":"t{{n}}","sort":{{sort}},"role":"assistant","isInProcess":false,"graphPath":["data_analyst_agent","tools"],"toolCall":{{"name":"dataSqlApi","input":{{"sqlQuery":"SELECT category, SUM(revenue) AS revenue FROM orders GROUP BY 1"}},"result":"{{\"sqlQuery\":\"SELECT 1\",\"schema\":[{{\"name\":\"category\",\"column_type\":\"string\"}},{{\"name\":\"revenue\",\"column_type\":\"number\"}}],\"data\":[{}],\"totalRows\":250,\"vegaSpec\":\"{spec}\"}}"}}}}"#,
        rows.join(",")
    );
    let mut body = Vec::with_capacity(frames as usize * 220);
    body.extend_from_slice(b"{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{\"chatId\":\"bench\",\"isStreaming\":true}}\n");
    for sort in 1..=frames {
        if sort % 100 == 0 {
            body.extend_from_slice(
                tool.replace("{n}", &sort.to_string())
                    .replace("{sort}", &sort.to_string())
                    .as_bytes(),
            );
            body.push(b'\n');
            continue;
        }
        body.extend_from_slice(
            format!("{{\"id\":\"f\",\"sort\":{sort},\"role\":\"assistant\",\"content\":\"word{} \",\"isDelta\":true,\"isInProcess\":true,\"graphPath\":[\"final\"],\"isStructuredResponse\":false}}\n", sort % 97)
                .as_bytes(),
        );
    }
    body.extend_from_slice(format!("{{\"id\":\"f\",\"sort\":{},\"role\":\"assistant\",\"content\":\"done\",\"isDelta\":false,\"isInProcess\":false,\"graphPath\":[\"final\"]}}\n", frames + 1).as_bytes());
    body.extend_from_slice(
        format!(
            "{{\"id\":\"__state__\",\"sort\":{},\"state\":{{\"messages\":[]}}}}\n",
            frames + 2
        )
        .as_bytes(),
    );
    body
}

/// How many delta frames make a stream of about `bytes`.
fn frames_for(bytes: u64) -> u64 {
    let per_frame = delta_stream(1000).len() as u64 / 1000;
    bytes / per_frame
}

fn relay(bin: &str, runs: usize) -> Vec<Row> {
    let mb = env_u64("BENCH_RELAY_MB", 200);
    let body = delta_stream(frames_for(mb * 1_000_000));
    let size = body.len();
    let port = relay::serve_body(std::sync::Arc::new(body));
    let url = chat_url(port);
    let curl = median(
        &format!("curl -sN -X POST -H 'Content-Type: application/json' -d '{{}}' {url}"),
        runs,
    );
    let ours = median(
        &format!("{CHAT_ENV} {bin} chat -o ndjson --url {url} q"),
        runs,
    );
    // Memory flat in stream length: the same relay at a tenth of the size.
    let small_port = relay::serve_body(std::sync::Arc::new(delta_stream(frames_for(mb * 100_000))));
    let small = median(
        &format!(
            "{CHAT_ENV} {bin} chat -o ndjson --url {} q",
            chat_url(small_port)
        ),
        runs,
    );
    let ratio = ours.wall.as_secs_f64() / curl.wall.as_secs_f64();
    vec![
        Row {
            figure: format!("chat -o ndjson relay, {} MB", size / 1_000_000),
            ours: ms(ours.wall),
            peer: format!("curl -sN: {}", ms(curl.wall)),
            ratio: format!("{ratio:.2}x curl"),
            target: "≤ 1.15x curl".into(),
            met: ratio <= 1.15,
        },
        Row {
            figure: "chat relay peak RSS".into(),
            ours: format!(
                "{:.1} MB at {} MB, {:.1} MB at {} MB",
                ours.max_rss_kib as f64 / 1024.0,
                size / 1_000_000,
                small.max_rss_kib as f64 / 1024.0,
                size / 10_000_000
            ),
            peer: format!("curl: {:.1} MB", curl.max_rss_kib as f64 / 1024.0),
            ratio: format!(
                "{:.2}x from 10x the stream",
                ours.max_rss_kib as f64 / small.max_rss_kib.max(1) as f64
            ),
            target: "flat in stream length".into(),
            met: (ours.max_rss_kib as f64) < small.max_rss_kib as f64 * 1.5,
        },
    ]
}

/// Median time from the server writing the first frame to the client printing it.
fn first_frame_latency(program: &str, args: &[&str], runs: usize) -> std::time::Duration {
    use std::io::Read;
    const FRAME: &[u8] =
        b"{\"id\":\"__cutoff__\",\"sort\":0,\"state\":{\"chatId\":\"t\",\"isStreaming\":true}}\n";
    let (port, written, close) = relay::serve_first_frame(FRAME);
    let url = chat_url(port);
    let mut samples = Vec::new();
    for _ in 0..runs + 1 {
        let mut cmd = std::process::Command::new(program);
        chat_env(&mut cmd)
            .args(args)
            .arg(&url)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        out.read_exact(&mut byte).unwrap();
        let seen = std::time::Instant::now();
        let t0 = written.recv().unwrap();
        samples.push(seen - t0);
        close.send(()).unwrap();
        let _ = child.wait();
    }
    samples.remove(0); // warm-up
    samples.sort();
    samples[samples.len() / 2]
}

fn ttff(bin: &str, runs: usize) -> Vec<Row> {
    let curl = first_frame_latency(
        "curl",
        &[
            "-sN",
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-d",
            "{}",
        ],
        runs.max(9),
    );
    let ours = first_frame_latency(bin, &["chat", "-o", "ndjson", "q", "--url"], runs.max(9));
    let diff = ours.as_secs_f64() - curl.as_secs_f64();
    vec![Row {
        figure: "time to first frame".into(),
        ours: ms(ours),
        peer: format!("curl -sN: {}", ms(curl)),
        ratio: format!("{:+.2} ms", diff * 1000.0),
        target: "within 2 ms of curl".into(),
        met: diff <= 0.002,
    }]
}

fn text_render(bin: &str, runs: usize) -> Vec<Row> {
    let frames = 1_000_000u64;
    let path = data_dir().join("deltas-1m.ndjson");
    if !path.exists() {
        std::fs::write(&path, delta_stream(frames)).unwrap();
    }
    let out = data_dir().join("render-out.txt");
    let ours = median(
        &format!(
            "{CHAT_ENV} {bin} -q chat -o text --replay {} > {}",
            path.display(),
            out.display()
        ),
        runs,
    );
    let rate = frames as f64 / ours.wall.as_secs_f64();
    // The same with a table and a chart every 100 frames (10,000 of each).
    let charted = data_dir().join("charted-1m.ndjson");
    if !charted.exists() {
        std::fs::write(&charted, charted_stream(frames)).unwrap();
    }
    let with_charts = median(
        &format!(
            "{CHAT_ENV} COLUMNS=100 {bin} -q chat -o text --replay {} > {}",
            charted.display(),
            out.display()
        ),
        runs,
    );
    let charted_rate = frames as f64 / with_charts.wall.as_secs_f64();
    vec![
        Row {
            figure: "chat -o text, 1M deltas to a file".into(),
            ours: format!("{} ({:.0} frames/s)", ms(ours.wall), rate),
            peer: "-".into(),
            ratio: "-".into(),
            target: "≥ 200,000 frames/s".into(),
            met: rate >= 200_000.0,
        },
        Row {
            figure: "chat -o text, 1M frames, a table and chart every 100".into(),
            ours: format!("{} ({:.0} frames/s)", ms(with_charts.wall), charted_rate),
            peer: "-".into(),
            ratio: "-".into(),
            target: "≥ 200,000 frames/s".into(),
            met: charted_rate >= 200_000.0,
        },
    ]
}

fn emulator_load(
    rt: &tokio::runtime::Runtime,
    emu: &analyst::emulator::server::Running,
) -> Vec<Row> {
    let chats = env_u64("BENCH_CHATS", 1000) as usize;
    let run = load::chats(rt, emu, chats);
    let rate = run.frames as f64 / run.wall.as_secs_f64();
    vec![Row {
        figure: format!("emulator load, {chats} concurrent chats, --pace 0"),
        ours: format!(
            "{} frames in {} ({rate:.0} frames/s)",
            run.frames,
            ms(run.wall)
        ),
        peer: "-".into(),
        ratio: format!(
            "first frame p50 {}, p99 {}",
            ms(run.ttff_quantile(0.5)),
            ms(run.ttff_quantile(0.99))
        ),
        target: "all complete correctly".into(),
        met: run.chats == chats, // every chat was checked, or the run panicked
    }]
}

fn scim(
    rt: &tokio::runtime::Runtime,
    emu: &analyst::emulator::server::Running,
    bin: &str,
) -> Vec<Row> {
    let users = env_u64("BENCH_USERS", 10_000) as usize;
    let run = load::scim_bulk(rt, emu, bin, users).expect("bulk SCIM run");
    let (peer, ratio) = match run.curl {
        Some(c) => (
            format!("curl --parallel-max 4: {}", ms(c)),
            format!("{:.2}x curl", run.ours.as_secs_f64() / c.as_secs_f64()),
        ),
        None => ("curl failed".into(), "-".into()),
    };
    vec![Row {
        figure: format!("scim patch --deactivate, {users} users (-j 4)"),
        ours: format!(
            "{} ({:.0} users/s)",
            ms(run.ours),
            run.users as f64 / run.ours.as_secs_f64()
        ),
        peer,
        ratio,
        target: "< 10 s".into(),
        met: run.ours < std::time::Duration::from_secs(10),
    }]
}

/// A data API answer of `rows` rows: the schema line, then `{data}` lines of 1,000 rows each,
/// values as strings (as the service sends them).
fn data_answer(rows: u64) -> Vec<u8> {
    let mut body = Vec::with_capacity(rows as usize * 70);
    body.extend_from_slice(br#"{"schema":[{"name":"orders.created_at","column_type":"Timestamp"},{"name":"orders.category","column_type":"String"},{"name":"orders.revenue","column_type":"Decimal"},{"name":"orders.count","column_type":"Int64"}],"lastRefreshTime":"2025-01-13T12:00:00.000Z"}"#);
    body.push(b'\n');
    let categories = [
        "Books",
        "Toys, Games & Puzzles",
        "Garden",
        r#"Caf\u00e9 \"Deluxe\""#,
        "Home",
    ];
    let mut i = 0u64;
    while i < rows {
        body.extend_from_slice(b"{\"data\":[");
        let end = (i + 1000).min(rows);
        for r in i..end {
            if r > i {
                body.push(b',');
            }
            body.extend_from_slice(
                format!(
                    "[\"2024-{:02}-{:02}T00:00:00.000\",\"{}\",\"{}.{:02}\",\"{}\"]",
                    r % 12 + 1,
                    r % 28 + 1,
                    categories[(r % 5) as usize],
                    r * 7 % 100_000,
                    r % 100,
                    r % 1000
                )
                .as_bytes(),
            );
        }
        body.extend_from_slice(b"]}\n");
        i = end;
    }
    body
}

fn sql(bin: &str, runs: usize) -> Vec<Row> {
    let rows = 1_000_000u64;
    let body = data_answer(rows);
    let size = body.len();
    // The data API as fast as the wire: a loopback server writing a prepared answer from
    // memory, chunked one line per chunk as the service sends it, so that neither a SQL engine
    // nor the server is what is measured.
    let port = relay::serve_chunked_lines(&body);
    drop(body);
    let url = format!("http://127.0.0.1:{port}/cubejs-api/v1/cubesql");
    let raw = data_dir().join("sql-raw.ndjson");
    let curl = measure::Cmd::new(&[
        "curl",
        "-sN",
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-H",
        "Authorization: bench",
        "-d",
        r#"{"query":"SELECT 1"}"#,
        &url,
    ])
    .stdout_to(&raw);
    let data_url = format!("http://127.0.0.1:{port}");
    let sql_cmd = |program: &str, format: &str| {
        measure::Cmd::new(&[
            program,
            "sql",
            "--data-url",
            &data_url,
            "-o",
            format,
            "SELECT 1",
        ])
        .env(CHAT_ENV)
        .env("ANALYST_DATA_TOKEN=bench")
        .stdout_to(&data_dir().join(format!("sql-out.{format}")))
    };
    let rounds = env_u64("BENCH_PAIRS", 11) as usize;
    let baseline = std::env::var("BENCH_BASELINE").ok();
    let mut out = Vec::new();
    for format in ["csv", "ndjson"] {
        let mut cmds = vec![sql_cmd(bin, format), curl.clone()];
        if let Some(base) = &baseline {
            cmds.push(sql_cmd(base, format));
        }
        let times = measure::paired(&cmds, rounds);
        let ours = measure::median_of(times[0].clone());
        let peer = measure::median_of(times[1].clone());
        let vs_curl = measure::median_ratio(&times[0], &times[1]);
        let rate = rows as f64 / ours.as_secs_f64();
        let figure = format!(
            "sql -o {format}, 1M rows ({} MB answer), to a file",
            size / 1_000_000
        );
        out.push(Row {
            figure: figure.clone(),
            ours: format!("{} ({rate:.0} rows/s)", ms(ours)),
            peer: format!("curl -sN to a file: {}", ms(peer)),
            ratio: format!("{vs_curl:.2}x curl"),
            target: "≤ 1.5x curl".into(),
            met: vs_curl <= 1.5,
        });
        if baseline.is_some() {
            let vs_base = measure::median_ratio(&times[0], &times[2]);
            out.push(Row {
                figure,
                ours: ms(ours),
                peer: format!(
                    "BENCH_BASELINE build: {}",
                    ms(measure::median_of(times[2].clone()))
                ),
                ratio: format!("{vs_base:.2}x the baseline"),
                target: "≤ 1x the baseline".into(),
                met: vs_base <= 1.03,
            });
        }
    }
    let curl_line = format!(
        "curl -sN -X POST -H 'Content-Type: application/json' -H 'Authorization: bench' -d '{{\"query\":\"SELECT 1\"}}' {url}"
    );
    // Each row as CSV (`.data[]?` skips the schema line; `@csv` takes a row array).
    let jq = median(
        &format!("{curl_line} | jq -r '.data[]? | @csv' > /dev/null"),
        1,
    );
    let csv = data_dir().join("sql-out.csv");
    let ours = median(
        &format!(
            "{CHAT_ENV} ANALYST_DATA_TOKEN=bench {bin} sql --data-url {data_url} -o csv 'SELECT 1' > {}",
            csv.display()
        ),
        runs.min(3),
    );
    let curl_rss = median(&format!("{curl_line} > {}", raw.display()), 1);
    let vs_jq = jq.wall.as_secs_f64() / ours.wall.as_secs_f64();
    let rss_mb = ours.max_rss_kib as f64 / 1024.0;
    out.push(Row {
        figure: "sql -o csv, 1M rows".into(),
        ours: ms(ours.wall),
        peer: format!("curl | jq -r '.data[]? | @csv': {}", ms(jq.wall)),
        ratio: format!("{vs_jq:.1}x faster than curl | jq"),
        target: "≥ 10x curl | jq".into(),
        met: vs_jq >= 10.0,
    });
    out.push(Row {
        figure: "sql peak RSS, 1M rows".into(),
        ours: format!("{rss_mb:.1} MB"),
        peer: format!("curl: {:.1} MB", curl_rss.max_rss_kib as f64 / 1024.0),
        ratio: "-".into(),
        target: "< 30 MB".into(),
        met: rss_mb < 30.0,
    });
    out
}

fn main() {
    // `cargo bench` passes --bench; a filter argument picks figures by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let load_at_start = measure::load_average();
    let wanted = |name: &str| {
        filter.is_empty()
            || filter
                .iter()
                .any(|f| name.contains(f.split(':').next().unwrap_or_default()))
    };
    let bin = env!("CARGO_BIN_EXE_analyst");
    let runs = env_u64("BENCH_RUNS", 5) as usize;
    let mut rows = Vec::new();
    // Each figure's rows go to stderr as soon as they are measured; the table comes at the end.
    let mut add = |new: Vec<Row>| {
        for r in &new {
            eprintln!("{}: {} | {} | {}", r.figure, r.ours, r.peer, r.ratio);
        }
        rows.extend(new);
    };
    if wanted("extract-final") {
        // `extract-final:vendor,crlf` picks stream kinds; all of them by default.
        let picked: Vec<String> = filter
            .iter()
            .filter_map(|f| f.strip_prefix("extract-final:"))
            .flat_map(|k| k.split(',').map(str::to_owned))
            .collect();
        let only = |kind: &str| picked.is_empty() || picked.iter().any(|k| k == kind);
        add(extract_final(bin, runs, &only));
    }
    if wanted("relay") {
        add(relay(bin, runs));
    }
    if wanted("ttff") {
        add(ttff(bin, runs));
    }
    if wanted("render") {
        add(text_render(bin, runs));
    }
    if wanted("startup") {
        add(startup(bin, runs));
    }
    if wanted("sql") {
        add(sql(bin, runs));
    }
    if wanted("eval") {
        add(eval::rows(bin, runs, env_u64("BENCH_CASES", 200) as usize));
    }
    if wanted("load") || wanted("scim") {
        let (rt, emu) = load::emulator();
        if wanted("load") {
            add(emulator_load(&rt, &emu));
        }
        if wanted("scim") {
            add(scim(&rt, &emu, bin));
        }
        rt.block_on(emu.shutdown());
    }
    println!();
    let table = measure::table(&rows);
    print!("{table}");
    if let Ok(page) = std::env::var("BENCH_DOC") {
        // The command as it was run, its knobs included, and the machine, above the table.
        let knobs: Vec<String> = ["BENCH_MB", "BENCH_PAIRS", "BENCH_RUNS"]
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| format!("{k}={v} ")))
            .collect();
        let baseline = std::env::var("BENCH_BASELINE")
            .map(|_| "BENCH_BASELINE=<older build> ".to_owned())
            .unwrap_or_default();
        let text = format!(
            "Measured by `BENCH_DOC={page} {}{baseline}cargo bench --bench compare -- {}` on {} \
             (at the start: {load_at_start}), rustc {}:\n\n{table}",
            knobs.concat(),
            filter.join(" "),
            measure::machine(),
            rustc_version(),
        );
        match measure::write_into_page(&page, &text) {
            Ok(()) => eprintln!("table written into {page}"),
            Err(e) => eprintln!("BENCH_DOC: {e}"),
        }
    }
}

/// `rustc --version`'s number, for the page.
fn rustc_version() -> String {
    std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| v.split_whitespace().nth(1).map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}
