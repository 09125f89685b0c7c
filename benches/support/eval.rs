//! `analyst eval`: 200 cases against `analyst serve --pace 0` at `-j 8`, beside the same questions
//! as a loop of `analyst chat -o final` processes (what teams script today).

use super::measure::{Row, median, ms};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

/// `analyst serve` on a free port at pace 0: the child and its chat URL and API key.
fn serve(bin: &str) -> (Child, String, String) {
    let mut child = Command::new(bin)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--pace",
            "0",
            "-o",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("analyst serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("serve prints its URLs");
    let info: serde_json::Value = serde_json::from_str(&line).expect("serve -o json");
    (
        child,
        info["chatUrl"].as_str().unwrap().to_owned(),
        info["apiKey"].as_str().unwrap().to_owned(),
    )
}

/// The single-turn questions of examples/demo-suite.yaml.
fn questions() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo-suite.yaml");
    let suite: serde_norway::Value =
        serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    suite["cases"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|c| c.get("then").is_none())
        .map(|c| c["question"].as_str().unwrap().to_owned())
        .collect()
}

/// The rows: eval -j 8 (cases/s), eval -j 1, and the loop of processes.
pub fn rows(bin: &str, runs: usize, cases: usize) -> Vec<Row> {
    let dir = std::env::temp_dir().join(format!("analyst-bench-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let qs = questions();
    let picked: Vec<&String> = (0..cases).map(|i| &qs[i % qs.len()]).collect();
    let suite = dir.join("suite.yaml");
    let mut yaml = String::from("cases:\n");
    for (i, q) in picked.iter().enumerate() {
        yaml.push_str(&format!(
            "  - {{name: c{i}, question: {}, expect: {{answer_excludes: [sorry]}}}}\n",
            serde_json::to_string(q).unwrap()
        ));
    }
    std::fs::write(&suite, yaml).unwrap();
    let list = dir.join("questions.txt");
    let mut f = std::fs::File::create(&list).unwrap();
    for q in &picked {
        writeln!(f, "{q}").unwrap();
    }
    let (mut server, url, key) = serve(bin);
    // One emulator user per measured run (`$$`, the shell's pid): it keeps at most 1000 threads
    // per user.
    let env = format!(
        "ANALYST_CHAT_URL='{url}' ANALYST_API_KEY='{key}' ANALYST_EXTERNAL_ID=bench-$$ ANALYST_CONFIG=/dev/null HOME={d} XDG_CONFIG_HOME={d} XDG_STATE_HOME={d} NO_COLOR=1",
        d = dir.display()
    );
    let s = suite.display();
    let eval8 = median(&format!("{env} {bin} eval -q -j 8 -o json {s}"), runs);
    let eval1 = median(&format!("{env} {bin} eval -q -j 1 -o json {s}"), runs);
    let lp = median(
        &format!(
            "while IFS= read -r q; do {env} {bin} chat -q -o final \"$q\" || exit 1; done < {}",
            list.display()
        ),
        runs.min(3),
    );
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let n = cases as f64;
    let per = |d: std::time::Duration| d.as_secs_f64() * 1000.0 / n;
    let ratio = lp.wall.as_secs_f64() / eval8.wall.as_secs_f64();
    vec![
        Row {
            figure: format!("eval, {cases} cases against serve --pace 0, -j 8"),
            ours: format!(
                "{} ({:.0} cases/s)",
                ms(eval8.wall),
                n / eval8.wall.as_secs_f64()
            ),
            peer: format!("loop of chat -o final processes: {}", ms(lp.wall)),
            ratio: format!("{ratio:.1}x faster"),
            target: "≥ 3x faster than the loop".into(),
            met: ratio >= 3.0,
        },
        Row {
            figure: format!("eval, {cases} cases, -j 1: time per case"),
            ours: format!("{:.2} ms/case", per(eval1.wall)),
            peer: format!("chat -o final process: {:.2} ms/case", per(lp.wall)),
            ratio: format!(
                "overhead of a process per case: {:.2} ms",
                per(lp.wall) - per(eval1.wall)
            ),
            target: "-".into(),
            met: true,
        },
    ]
}
