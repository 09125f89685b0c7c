use analyst::emulator::engine::*;
#[test]
fn scratch() {
    let t = std::time::Instant::now();
    let e = Engine::sample((2025, 6, 15)).unwrap();
    eprintln!("build {:?}", t.elapsed());
    let r = e.warehouse().query("select count(*) from order_items").unwrap();
    eprintln!("lines {:?}", r.rows);
    let mut hist = vec![];
    for q in std::env::var("QS").unwrap_or_default().split('|') {
        let t = std::time::Instant::now();
        let run = e.run(&AgentRequest { question: q.into(), history: hist.clone(), message_id: "1700000000000-message".into(), today: (2025, 6, 15), ..Default::default() });
        let el = t.elapsed();
        for f in &run.frames { if let Some(tc) = f.get("toolCall") { if tc["name"] == "dataSqlApi" && tc.get("result").is_none() { eprintln!("SQL:\n{}", tc["input"]["sqlQuery"].as_str().unwrap()); } if tc["name"]=="dataSqlApi" && tc.get("result").is_some() && std::env::var("RES").is_ok() { eprintln!("RES {}", tc["result"]); } } }
        eprintln!("Q: {q}\nA: {}\n({} frames, {:?})\n", run.answer, run.frames.len(), el);
        hist.push(run.memory);
    }
}
