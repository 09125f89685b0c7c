//! A loaded engine: the validated semantic model over its SQLite warehouse, with the catalog,
//! lexicons and vocabulary the planner reads. The agent answers questions with it.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::catalog::{self, ViewCat};
use super::model::Model;
use super::planner::Lexicon;
use super::warehouse::Warehouse;
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

/// The sample's database as of `today`. Building it takes about a second of CPU (a debug
/// build: 1 s; most of it SQLite inserting, indexing and analysing 24 MB). A process that starts
/// an emulator a second time for the same `today` (a test harness starts hundreds, `eval`
/// several) keeps the built database from then on and copies it for each later start; one that
/// starts a single emulator (`chat --demo`, `serve`) never holds a second copy.
fn sample_warehouse(today: Option<(i32, u32, u32)>) -> anyhow::Result<Warehouse> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    enum Kept {
        /// Built once and let go.
        Once,
        /// Built again, and kept.
        Built(rusqlite::Connection),
    }
    type ByToday = HashMap<Option<(i32, u32, u32)>, Kept>;
    static SAMPLES: Mutex<Option<ByToday>> = Mutex::new(None);
    // A panic elsewhere while the lock was held leaves nothing half-done here worth refusing.
    let mut samples = SAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    let samples = samples.get_or_insert_with(HashMap::new);
    if let Some(Kept::Built(conn)) = samples.get(&today) {
        return Warehouse::from_memory(conn);
    }
    let conn = rusqlite::Connection::open_in_memory()?;
    sample_data::build(&conn, today.map(super::dates::Date::new))?;
    let warehouse = Warehouse::from_memory(&conn)?;
    let kept = match samples.get(&today) {
        None => Kept::Once,
        Some(_) => Kept::Built(conn),
    };
    samples.insert(today, kept);
    Ok(warehouse)
}
