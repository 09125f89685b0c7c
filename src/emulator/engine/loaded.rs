//! A loaded engine: the validated semantic model over its SQLite warehouse, with the catalog,
//! lexicons and vocabulary the planner reads. The agent answers questions with it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;

use super::catalog::{self, ViewCat};
use super::model::Model;
use super::planner::Lexicon;
use super::warehouse::{Shared, Warehouse};
use super::words::Vocabulary;
use super::{model_check, model_infer, model_yaml, sample_data};

/// A loaded model plus its warehouse; cheap to share in an `Arc` across server threads.
pub struct Engine {
    model: Model,
    views: Vec<ViewCat>,
    /// What dialect SQL may name: the views, and the cubes.
    targets: Vec<ViewCat>,
    lexicons: Vec<Lexicon>,
    vocab: Vocabulary,
    warehouse: Warehouse,
}

// The server shares one engine across threads.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Engine>();
};

impl Engine {
    /// Built-in sample dataset and model over the fixed base window (2023 to 2025, see
    /// [`sample_data::LAST_DAY`]).
    pub fn sample() -> anyhow::Result<Engine> {
        Engine::sample_until(None)
    }

    /// The sample as of `today` (the emulator's date): data up to that day, and no row dated
    /// after it; `None` is the fixed base window.
    pub fn sample_until(today: Option<(i32, u32, u32)>) -> anyhow::Result<Engine> {
        let model = model_yaml::parse(sample_data::MODEL_YAML, "(built-in sample model)")?;
        Engine::new(
            model,
            sample_warehouse(today)?,
            "(built-in sample model)",
            "the sample data",
        )
    }

    /// A user's model (YAML) and/or SQLite file; a model without data runs over the sample data,
    /// data without a model get a model inferred from the file's tables and foreign keys.
    pub fn open(model: Option<&Path>, data: Option<&Path>) -> anyhow::Result<Engine> {
        let data: Vec<PathBuf> = data.map(Path::to_path_buf).into_iter().collect();
        Engine::open_files(model, &data, None)
    }

    /// A user's model and/or data files (one SQLite file, or CSV files, see
    /// [`Warehouse::open_data`]); no data is the sample as of `today`.
    pub fn open_files(
        model: Option<&Path>,
        data: &[PathBuf],
        today: Option<(i32, u32, u32)>,
    ) -> anyhow::Result<Engine> {
        // The model is read first: a typo in it should fail before seconds of data building.
        let loaded = model.map(model_yaml::load).transpose()?;
        let warehouse = match data {
            [] if model.is_none() => return Engine::sample_until(today),
            [] => sample_warehouse(today)?,
            files => Warehouse::open_data(files)?,
        };
        let data_name = if data.is_empty() {
            "the sample data".to_string()
        } else {
            data.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (loaded, model) {
            (Some(m), Some(path)) => {
                Engine::new(m, warehouse, &path.display().to_string(), &data_name)
            }
            _ => {
                let inferred = model_infer::model(&warehouse)
                    .with_context(|| format!("{data_name}: cannot infer a model; pass one"))?;
                Engine::new(
                    inferred,
                    warehouse,
                    "(model inferred from the data)",
                    &data_name,
                )
            }
        }
    }

    fn new(model: Model, warehouse: Warehouse, source: &str, data: &str) -> anyhow::Result<Engine> {
        model_check::against_data(&model, &warehouse, source, data)?;
        let views = catalog::views(&model);
        let targets = catalog::queryable(&model, &views);
        let values = model_check::dimension_values(&model, &views, &warehouse);
        let mut vocab = Vocabulary::default();
        vocab.add(KEYWORDS);
        let lexicons = views
            .iter()
            .zip(&values)
            .map(|(v, vals)| Lexicon::new(v, vals, &mut vocab))
            .collect();
        Ok(Engine {
            model,
            views,
            targets,
            lexicons,
            vocab,
            warehouse,
        })
    }

    /// User attribute names that access policies bind (e.g. `["region"]`).
    pub fn attribute_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .model
            .cubes
            .iter()
            .flat_map(|c| c.policies.iter().map(|p| p.attribute.clone()))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// An attribute a policy binds, with a value the data has (e.g. `("region", "Europe")`),
    /// so that examples work when pasted.
    pub fn attribute_example(&self) -> Option<(String, String)> {
        let policies = self
            .model
            .cubes
            .iter()
            .flat_map(|c| c.policies.iter().map(move |p| (c, p)));
        policies.into_iter().find_map(|(c, p)| {
            let values =
                super::model_check::distinct(&self.model, &self.warehouse, &c.name, &p.member)?;
            Some((p.attribute.clone(), values.into_iter().next()?))
        })
    }

    /// The warehouse, for running SQL directly (tests compare the agent's numbers with it).
    pub fn warehouse(&self) -> &Warehouse {
        &self.warehouse
    }

    /// The validated model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Whether a branch name exists: none, "main", or one the model declares.
    pub fn branch_ok(&self, branch: Option<&str>) -> bool {
        branch.is_none_or_main()
            || branch.is_some_and(|b| self.model.branches.iter().any(|x| x == b))
    }

    pub(crate) fn views(&self) -> &[ViewCat] {
        &self.views
    }

    pub(crate) fn targets(&self) -> &[ViewCat] {
        &self.targets
    }

    pub(crate) fn lexicons(&self) -> &[Lexicon] {
        &self.lexicons
    }

    pub(crate) fn vocabulary(&self) -> &Vocabulary {
        &self.vocab
    }
}

/// Words of the planner's own grammar, so that typos of them get corrected too.
const KEYWORDS: &str = "top bottom highest lowest largest smallest previous quarter quarterly monthly weekly daily yearly annual \
    january february march april june july august september october november december yesterday today since \
    breakdown across average total number";

trait MainBranch {
    fn is_none_or_main(&self) -> bool;
}

impl MainBranch for Option<&str> {
    fn is_none_or_main(&self) -> bool {
        matches!(self, None | Some("") | Some("main"))
    }
}

/// Where built sample databases are kept between processes (set once, by the command layer,
/// see [`keep_samples_in`]); unset, nothing is written.
static SAMPLE_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Keep built sample databases in `dir` (a cache: `$XDG_CACHE_HOME/analyst`), so that the next
/// process to start a demo on the same date opens the file instead of building it again. The
/// first call wins.
pub fn keep_samples_in(dir: PathBuf) {
    let _ = SAMPLE_DIR.set(dir);
}

/// The sample's database as of `today`. Building it takes about a second of CPU in a debug
/// build, a third of one in a release build (most of it SQLite inserting, indexing and
/// analysing 24 MB), so it is built once and kept:
/// - in the cache directory ([`keep_samples_in`]), a file per date and build of this program,
///   opened read-only by every later process, and built by one process at a time;
/// - in memory, read in place by every later start for the same date in one process: from the
///   first start where there is no cache directory (a library user: the test harness starts
///   hundreds), else from the second (a file that could not be written or read), so that one
///   that starts a single emulator (`chat --demo`, `serve`) never holds a second copy.
fn sample_warehouse(today: Option<(i32, u32, u32)>) -> anyhow::Result<Warehouse> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    enum Kept {
        /// Built once and let go.
        Once,
        /// Built again, and kept in memory for every later start to read in place.
        Shared(Arc<Shared>),
    }
    type ByToday = HashMap<Option<(i32, u32, u32)>, Kept>;
    static SAMPLES: Mutex<Option<ByToday>> = Mutex::new(None);
    // A panic elsewhere while the lock was held leaves nothing half-done here worth refusing.
    let mut samples = SAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let samples = samples.get_or_insert_with(HashMap::new);
    if let Some(Kept::Shared(shared)) = samples.get(&today) {
        return Warehouse::open_shared(shared);
    }
    let file = SAMPLE_DIR
        .get()
        .and_then(|dir| sample_cache::file(dir, today));
    if let Some(w) = file.as_deref().and_then(sample_cache::open) {
        return Ok(w);
    }
    // Another process starting on the same date (a script's commands run side by side, a test
    // harness's hundreds) may be building it now: wait for its file rather than build it twice.
    // Held until this function returns: past the write of the file, which a waiter then opens.
    let building = file.as_deref().and_then(sample_cache::building);
    if building.is_some()
        && let Some(w) = file.as_deref().and_then(sample_cache::open)
    {
        return Ok(w);
    }
    let mut conn = rusqlite::Connection::open_in_memory()?;
    sample_data::build(&conn, today.map(super::dates::Date::new))?;
    if let Some(file) = &file {
        sample_cache::write(&conn, file);
        // The file just written serves this start too: a private copy would be a second one.
        if let Some(w) = sample_cache::open(file) {
            return Ok(w);
        }
    }
    // Kept in memory for the starts after this one: from the first build where no file can
    // keep it (no cache directory: a library user, such as the test harness, which starts
    // hundreds); from the second where one should have and could not be written or read.
    if file.is_some()
        && let std::collections::hash_map::Entry::Vacant(first) = samples.entry(today)
    {
        first.insert(Kept::Once);
        return Warehouse::from_memory(&conn);
    }
    let shared = Shared::copy(&mut conn)?;
    samples.insert(today, Kept::Shared(Arc::clone(&shared)));
    Warehouse::open_shared(&shared)
}

/// Sample databases kept as files: `sample-<build>-<date>.sqlite`, `<build>` telling this
/// program's builds apart (its executable's size and time), so a changed generator never reads
/// an old sample. Every failure is silent: the cache only saves time.
mod sample_cache {
    use super::Warehouse;
    use std::path::{Path, PathBuf};

    /// Files kept for one build: the dates used most recently.
    const KEEP: usize = 4;

    /// The file for `today` in `dir`, or `None` when this build cannot be told apart.
    pub fn file(dir: &Path, today: Option<(i32, u32, u32)>) -> Option<PathBuf> {
        let date = today.map_or("base".to_owned(), |(y, m, d)| {
            format!("{y:04}-{m:02}-{d:02}")
        });
        Some(dir.join(format!("sample-{}-{date}.sqlite", build()?)))
    }

    fn build() -> Option<String> {
        let exe = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
        let modified = exe
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(format!("{:x}{:x}", exe.len(), modified.as_nanos()))
    }

    /// The kept file, opened read-only, if it is there and whole (files are renamed into place
    /// only once written).
    pub fn open(file: &Path) -> Option<Warehouse> {
        if !file.is_file() {
            return None;
        }
        let w = Warehouse::open_kept(file).ok()?;
        // Touched, so the dates in use are the ones kept.
        let _ = std::fs::File::options()
            .append(true)
            .open(file)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        Some(w)
    }

    /// How long to wait for another process's build of the same file before building it
    /// anyway: a build takes about a second of CPU in a debug build; a holder that takes longer
    /// is stopped or stuck, and must not hold this process up for good.
    const BUILD_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

    /// Held while this process builds `file`: an exclusive lock on `.<file name>.lock` beside
    /// it, removed when dropped (before the lock is let go, so a process that waited on it finds
    /// the file written, and one that comes later a fresh lock).
    pub struct Building {
        path: PathBuf,
        _file: std::fs::File,
    }

    impl Drop for Building {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// The lock for building `file`, once no other process holds it (waiting for one that does,
    /// up to [`BUILD_WAIT`]); `None` when it cannot be had, and this process builds unguarded.
    pub fn building(file: &Path) -> Option<Building> {
        let dir = file.parent()?;
        std::fs::create_dir_all(dir).ok()?;
        let path = dir.join(format!(".{}.lock", file.file_name()?.to_str()?));
        let waited = std::time::Instant::now();
        loop {
            let lock = std::fs::File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .ok()?;
            match lock.try_lock() {
                // The holder before us removes the file before it lets go: a lock on a removed
                // file guards nothing, so take the one now at the path.
                Ok(()) if same_file(&lock, &path) => {
                    return Some(Building { path, _file: lock });
                }
                Ok(()) => continue,
                Err(std::fs::TryLockError::WouldBlock) if waited.elapsed() < BUILD_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(_) => return None,
            }
        }
    }

    /// Whether `file` is still the one at `path`.
    #[cfg(unix)]
    fn same_file(file: &std::fs::File, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    /// Elsewhere (Windows) a removed file that is still open keeps its path from being opened
    /// again until it is closed (the open fails, and this process builds unguarded): a lock
    /// that was taken is on the file at the path.
    #[cfg(not(unix))]
    fn same_file(_: &std::fs::File, _: &Path) -> bool {
        true
    }

    /// Write the built sample to `file` (through a temporary name and a rename, so a reader
    /// never sees half a file), then leave only this build's most recent dates.
    pub fn write(built: &rusqlite::Connection, file: &Path) {
        let Some(dir) = file.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let temp = dir.join(format!(".sample-{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        let written = built
            .execute("VACUUM INTO ?1", [temp.to_string_lossy()])
            .is_ok()
            && std::fs::rename(&temp, file).is_ok();
        if !written {
            let _ = std::fs::remove_file(&temp);
            return;
        }
        prune(dir, file);
    }

    /// Remove other builds' samples, and this build's beyond the [`KEEP`] most recent.
    fn prune(dir: &Path, kept: &Path) {
        let Some(name) = kept.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        // `sample-<build>-`: the dates of this build.
        let Some(ours) = name.rsplitn(4, '-').nth(3).map(|b| format!("{b}-")) else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut mine = Vec::new();
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if !n.starts_with("sample-") || !n.ends_with(".sqlite") {
                continue;
            }
            if n.starts_with(&ours) {
                let at = e.metadata().and_then(|m| m.modified()).ok();
                mine.push((at, e.path()));
            } else {
                let _ = std::fs::remove_file(e.path());
            }
        }
        mine.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (_, path) in mine.into_iter().skip(KEEP) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sample_cache::building;

    /// One process builds a date at a time: while the lock is held no other open of it can
    /// take it; once let go its file is gone and the next taker gets a fresh one at once.
    #[test]
    fn one_build_of_a_file_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir
            .path()
            .join("analyst")
            .join("sample-b-2025-12-31.sqlite");
        let lock = dir
            .path()
            .join("analyst")
            .join(".sample-b-2025-12-31.sqlite.lock");
        let held = building(&file).expect("the first taker gets the lock");
        assert!(lock.is_file());
        let other = std::fs::File::options().write(true).open(&lock).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        // A waiter holds the old file open: it must not keep the next taker out.
        drop(held);
        assert!(!lock.exists());
        let next = building(&file).expect("the next taker gets a fresh lock");
        assert!(lock.is_file());
        assert!(matches!(
            std::fs::File::options()
                .write(true)
                .open(&lock)
                .unwrap()
                .try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(next);
        drop(other);
        assert!(!lock.exists());
    }
}
