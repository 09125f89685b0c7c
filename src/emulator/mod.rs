//! The service side: a protocol-faithful local emulator (`analyst serve`, `chat --demo`), in two
//! rooms: [`engine`], the analyst (semantic model, planner, SQL, warehouse, answer text), and
//! [`http`], the service around it (routes, auth, threads and streams, users, SCIM, faults).
//! Arrows point one way: `http -> engine -> protocol`.

pub mod engine;
pub mod http;

// The paths the commands start the emulator by.
pub use engine::model_yaml;
pub use http::server;

/// `--today DATE` as the emulator reads it: `YYYY-MM-DD`, a calendar date.
pub fn parse_today(value: &str) -> Result<(i32, u32, u32), String> {
    engine::dates::parse_date_arg(value)
}

/// `serve --write-sample FILE`: the sample shop as the demo sees it on `today`, every table and
/// row, written to a new SQLite file.
pub fn write_sample(path: &std::path::Path, today: (i32, u32, u32)) -> anyhow::Result<()> {
    engine::sample_data::write(path, engine::dates::Date::new(today))
}

/// `serve --data a.csv b.csv`: each file a readable CSV with a header row and rows of its width,
/// table names distinct; the error names the file and line.
pub fn check_csv_files(paths: &[std::path::PathBuf]) -> anyhow::Result<()> {
    engine::csv_data::check(paths)
}
