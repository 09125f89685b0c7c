//! The benchmark harness: each figure of the performance issue side by side with its peer in
//! the same run, as a table of medians and ratios.
//!
//! Run: `cargo bench --bench compare` (BENCH_MB=400 sets the size of the stream file; BENCH_RUNS
//! the runs per figure). Needs `jq`, `curl` and `wc` on PATH.

#[path = "support/measure.rs"]
mod measure;
#[path = "support/streams.rs"]
mod streams;

use measure::{median, ms, print_table, Row};
use std::path::{Path, PathBuf};

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

fn extract_final(bin: &str, runs: usize) -> Vec<Row> {
    let mb = env_u64("BENCH_MB", 400);
    let path = data_dir().join(format!("streams-{mb}mb.ndjson"));
    if !path.exists() {
        eprintln!("generating {} ...", path.display());
        streams::write_streams(&path, mb * 1_000_000).unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len() as f64;
    let p = path.display();
    // Warm the page cache.
    median(&format!("cat {p} > /dev/null"), 1);
    let ours = median(&format!("{bin} extract-final {p}"), runs);
    let wc = median(&format!("wc -l {p}"), runs);
    let jq = median(
        &format!(
            r#"jq -c 'select(.role=="assistant" and .graphPath[0]=="final" and (.graphPath|length)<=2)' {p} | tail -n 1"#
        ),
        1,
    );
    let gbps = |d: std::time::Duration| size / d.as_secs_f64() / 1e9;
    let vs_jq = jq.wall.as_secs_f64() / ours.wall.as_secs_f64();
    let vs_wc = ours.wall.as_secs_f64() / wc.wall.as_secs_f64();
    let rss_mb = ours.max_rss_kib as f64 / 1024.0;
    vec![
        Row {
            figure: format!("extract-final, {mb} MB"),
            ours: format!("{} ({:.2} GB/s)", ms(ours.wall), gbps(ours.wall)),
            peer: format!("jq: {}", ms(jq.wall)),
            ratio: format!("{vs_jq:.1}x faster than jq"),
            target: "≥ 30x jq".into(),
            met: vs_jq >= 30.0,
        },
        Row {
            figure: format!("extract-final, {mb} MB"),
            ours: ms(ours.wall),
            peer: format!("wc -l: {} ({:.2} GB/s)", ms(wc.wall), gbps(wc.wall)),
            ratio: format!("{vs_wc:.2}x wc -l"),
            target: "≤ 2x wc -l".into(),
            met: vs_wc <= 2.0,
        },
        Row {
            figure: "extract-final peak RSS".into(),
            ours: format!("{rss_mb:.1} MB"),
            peer: format!("jq: {:.1} MB", jq.max_rss_kib as f64 / 1024.0),
            ratio: "-".into(),
            target: "< 30 MB".into(),
            met: rss_mb < 30.0,
        },
    ]
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

fn main() {
    // `cargo bench` passes --bench; a filter argument picks figures by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    let bin = env!("CARGO_BIN_EXE_analyst");
    let runs = env_u64("BENCH_RUNS", 5) as usize;
    let mut rows = Vec::new();
    if wanted("extract-final") {
        rows.extend(extract_final(bin, runs));
    }
    if wanted("startup") {
        rows.extend(startup(bin, runs));
    }
    println!();
    print_table(&rows);
}
