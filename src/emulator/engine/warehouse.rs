//! The SQL warehouse: SQLite behind a small pool of read-only connections, with a row cap, a time
//! limit, and a cache of results (the data never change, so a query's result is reusable by every
//! chat that asks the same thing).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

/// Rows kept from one query; the rest are only counted.
pub const ROW_CAP: usize = 10_000;
/// Rows counted before a query is stopped.
const COUNT_CAP: usize = 1_000_000;
/// Most CPU time a query may take.
pub const TIME_LIMIT: Duration = Duration::from_secs(5);
/// Connections per warehouse: enough for a 2-8 core machine; more would only contend.
const POOL_SIZE: usize = 8;
/// One query's result in the cache, filled once by the first caller while the others wait.
type Slot = OnceLock<Result<Arc<QueryResult>, String>>;

/// Results kept before the cache is emptied and starts again.
const CACHE_ENTRIES: usize = 2048;

/// One value of a result.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Real(f64),
    /// Text (blobs are shown as their length).
    Text(String),
}

impl Cell {
    /// As a number, if it is one (or numeric text).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Real(f) => Some(*f),
            Cell::Text(t) => t.trim().parse().ok(),
            Cell::Null => None,
        }
    }
    /// As text, as the SQL tool's `data` shows it; `None` for NULL.
    pub fn text(&self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Int(i) => Some(i.to_string()),
            Cell::Real(f) => Some(f.to_string()),
            Cell::Text(t) => Some(t.clone()),
        }
    }
}

/// The outcome of one query.
#[derive(Clone, Debug, Default)]
pub struct QueryResult {
    /// Column names.
    pub columns: Vec<String>,
    /// At most [`ROW_CAP`] rows.
    pub rows: Vec<Vec<Cell>>,
    /// Rows the query produced (up to a counting cap).
    pub total_rows: usize,
}

/// A read-only SQLite database shared by all chats.
pub struct Warehouse {
    source: Source,
    idle: Mutex<Vec<Connection>>,
    returned: Condvar,
    opened: Mutex<usize>,
    cache: Arc<Cache>,
}

/// Results by query text.
type Cache = Mutex<HashMap<String, Arc<Slot>>>;

enum Source {
    /// The built-in sample, copied into a temporary file removed on drop.
    Temp(PathBuf),
    /// A user's file, never written.
    User(PathBuf),
    /// A copy shared by every warehouse of the process that opens it (see [`Shared`]).
    Shared(Arc<Shared>),
}

/// A database kept once in memory, for the life of the process, that each later warehouse
/// reads in place through connections of its own (SQLite's read-only deserialize: no copy per
/// connection, and reads in parallel): a test harness starts hundreds of emulators, and a copy
/// of the sample per start (`VACUUM INTO` a file, which also rebuilds every index) was most of
/// each start's CPU.
pub struct Shared {
    bytes: &'static [u8],
    /// The results of queries over them, shared as well: the same bytes give the same answer
    /// to every warehouse that asks.
    cache: Arc<Cache>,
}

impl Shared {
    /// `built`'s pages, kept for the rest of the process (a process keeps one per date; see
    /// `loaded.rs`).
    pub fn copy(built: &mut Connection) -> anyhow::Result<Arc<Shared>> {
        let pages = built.serialize(rusqlite::MAIN_DB)?.to_vec();
        Ok(Arc::new(Shared {
            bytes: Box::leak(pages.into_boxed_slice()),
            cache: Arc::default(),
        }))
    }
}

/// Locks a mutex even if another thread panicked while holding it: the guarded data (idle
/// connections, cached results) stay valid regardless.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Warehouse {
    /// Copies a database built in memory into a private temporary file and serves it read-only;
    /// a file lets each pooled connection read in parallel, which a shared-cache memory database
    /// would serialise. The pool is opened at once and the file unlinked, so nothing is left
    /// behind even if the process is killed (where unlinking an open file fails, drop removes it).
    pub fn from_memory(built: &Connection) -> anyhow::Result<Warehouse> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "analyst-sample-{}-{}.sqlite",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_file(&path);
        built
            .execute("VACUUM INTO ?1", [path.to_string_lossy()])
            .with_context(|| format!("cannot write the sample database to {}", path.display()))?;
        let w = Self::new(Source::Temp(path.clone()));
        let conns = (0..POOL_SIZE)
            .map(|_| w.connect())
            .collect::<anyhow::Result<Vec<_>>>()?;
        *lock(&w.idle) = conns;
        *lock(&w.opened) = POOL_SIZE;
        let _ = std::fs::remove_file(&path);
        Ok(w)
    }

    /// A kept sample file (see `loaded.rs`), opened read-only with the whole pool at once, so
    /// that the file may be replaced or removed by another process afterwards.
    pub fn open_kept(path: &Path) -> anyhow::Result<Warehouse> {
        Self::open_pool(Self::new(Source::User(path.to_path_buf())))
    }

    /// A warehouse over a [`Shared`] copy, with connections of its own.
    pub fn open_shared(shared: &Arc<Shared>) -> anyhow::Result<Warehouse> {
        Self::open_pool(Self::new(Source::Shared(Arc::clone(shared))))
    }

    /// `w` with its whole pool opened, checked to hold the sample.
    fn open_pool(w: Warehouse) -> anyhow::Result<Warehouse> {
        let conns = (0..POOL_SIZE)
            .map(|_| w.connect())
            .collect::<anyhow::Result<Vec<_>>>()?;
        conns[0]
            .query_row("SELECT count(*) FROM orders", [], |r| r.get::<_, i64>(0))
            .with_context(|| match &w.source {
                Source::Temp(path) | Source::User(path) => {
                    format!("{}: not a whole sample", path.display())
                }
                Source::Shared(_) => "the kept sample is not whole".to_owned(),
            })?;
        *lock(&w.idle) = conns;
        *lock(&w.opened) = POOL_SIZE;
        Ok(w)
    }

    /// A user's data: one SQLite file, or CSV files (one table each, see [`super::csv_data`]).
    pub fn open_data(paths: &[PathBuf]) -> anyhow::Result<Warehouse> {
        let csv = |p: &PathBuf| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        match paths {
            [one] if !csv(one) => Warehouse::open_file(one),
            _ if paths.iter().all(csv) => Warehouse::from_memory(&super::csv_data::load(paths)?),
            _ => bail!("--data takes one SQLite file, or one or more .csv files, not both"),
        }
    }

    /// Opens a user's SQLite file read-only, checking that it is a database.
    pub fn open_file(path: &Path) -> anyhow::Result<Warehouse> {
        if !path.is_file() {
            bail!("{}: no such data file", path.display());
        }
        let w = Self::new(Source::User(path.to_path_buf()));
        w.query("SELECT count(*) FROM sqlite_master")
            .with_context(|| format!("{}: not a readable SQLite database", path.display()))?;
        Ok(w)
    }

    fn new(source: Source) -> Warehouse {
        let cache = match &source {
            Source::Shared(shared) => Arc::clone(&shared.cache),
            Source::Temp(_) | Source::User(_) => Arc::default(),
        };
        Warehouse {
            source,
            idle: Mutex::new(Vec::new()),
            returned: Condvar::new(),
            opened: Mutex::new(0),
            cache,
        }
    }

    fn connect(&self) -> anyhow::Result<Connection> {
        let conn = match &self.source {
            Source::Temp(path) | Source::User(path) => {
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                Connection::open_with_flags(path, flags)
                    .with_context(|| format!("cannot open {}", path.display()))?
            }
            Source::Shared(shared) => {
                let mut conn = Connection::open_in_memory()?;
                conn.deserialize_bytes(rusqlite::MAIN_DB, shared.bytes)?;
                conn
            }
        };
        // Sorting for GROUP BY must not spill to temporary files: keep temp b-trees in memory
        // and give each connection a page cache big enough for the sample.
        conn.execute_batch(
            "PRAGMA mmap_size = 268435456; PRAGMA query_only = 1; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536;",
        )?;
        Ok(conn)
    }

    /// Borrows an idle connection, opening one if the pool is not full, else waits for one.
    fn checkout(&self) -> anyhow::Result<Connection> {
        let mut idle = lock(&self.idle);
        loop {
            if let Some(c) = idle.pop() {
                return Ok(c);
            }
            let mut opened = lock(&self.opened);
            if *opened < POOL_SIZE {
                *opened += 1;
                drop(opened);
                drop(idle);
                return self.connect().inspect_err(|_| *lock(&self.opened) -= 1);
            }
            drop(opened);
            idle = self
                .returned
                .wait(idle)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn checkin(&self, c: Connection) {
        lock(&self.idle).push(c);
        self.returned.notify_one();
    }

    /// Runs a query (cached by its text), keeping at most [`ROW_CAP`] rows and stopping after
    /// [`TIME_LIMIT`] of CPU. Callers asking for a query that is already running wait for its result
    /// rather than running it again: a thousand identical chats arriving at once cost one query,
    /// not a thousand.
    pub fn query(&self, sql: &str) -> anyhow::Result<Arc<QueryResult>> {
        let slot = {
            let mut cache = lock(&self.cache);
            if cache.len() >= CACHE_ENTRIES && !cache.contains_key(sql) {
                cache.clear();
            }
            Arc::clone(cache.entry(sql.to_string()).or_default())
        };
        let outcome = slot.get_or_init(|| {
            let mut conn = self.checkout().map_err(|e| format!("{e:#}"))?;
            let result = run(&mut conn, sql);
            // A connection whose time limit cannot be lifted would stop the next query at once.
            if conn.progress_handler(0, None::<fn() -> bool>).is_ok() {
                self.checkin(conn);
            }
            result.map(Arc::new).map_err(|e| format!("{e:#}"))
        });
        match outcome {
            Ok(result) => Ok(Arc::clone(result)),
            Err(e) => {
                // Failures are not kept: a query stopped under load may succeed later.
                let mut cache = lock(&self.cache);
                if cache.get(sql).is_some_and(|s| Arc::ptr_eq(s, &slot)) {
                    cache.remove(sql);
                }
                Err(anyhow::anyhow!("{e}"))
            }
        }
    }

    /// Streams a query's rows (never cached) in chunks of at most `chunk` rows to `emit`, which
    /// answers false to stop; at most `cap` rows. `started` gets the connection's interrupt
    /// handle before the query runs and returns a guard dropped when it has stopped, before the
    /// connection goes back to the pool (so a late interrupt never reaches another query).
    /// Stops after `limit`, or when interrupted ("query cancelled").
    pub fn stream<G>(
        &self,
        sql: &str,
        cap: usize,
        chunk: usize,
        limit: Duration,
        started: impl FnOnce(rusqlite::InterruptHandle) -> G,
        emit: impl FnMut(Vec<Vec<Cell>>) -> bool,
    ) -> anyhow::Result<()> {
        let mut conn = self.checkout()?;
        let guard = started(conn.get_interrupt_handle());
        let result = stream_rows(&mut conn, sql, cap, chunk.max(1), limit, emit);
        drop(guard);
        if conn.progress_handler(0, None::<fn() -> bool>).is_ok() {
            self.checkin(conn);
        }
        result
    }

    /// Names of the tables and views in the database.
    pub fn tables(&self) -> anyhow::Result<Vec<String>> {
        let r = self.query(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name",
        )?;
        Ok(r.rows
            .iter()
            .filter_map(|row| row.first().and_then(Cell::text))
            .collect())
    }
}

fn stream_rows(
    conn: &mut Connection,
    sql: &str,
    cap: usize,
    chunk: usize,
    limit: Duration,
    mut emit: impl FnMut(Vec<Vec<Cell>>) -> bool,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + limit;
    conn.progress_handler(10_000, Some(move || Instant::now() > deadline))?;
    let stopped = |e: rusqlite::Error| match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            if Instant::now() > deadline {
                anyhow::anyhow!("query stopped after {} s", limit.as_secs())
            } else {
                anyhow::anyhow!("query cancelled")
            }
        }
        e => e.into(),
    };
    let mut stmt = conn.prepare(sql).map_err(stopped)?;
    let n = stmt.column_count();
    let mut cursor = stmt.query([]).map_err(stopped)?;
    let (mut batch, mut sent) = (Vec::new(), 0usize);
    while sent + batch.len() < cap {
        let Some(row) = cursor.next().map_err(stopped)? else {
            break;
        };
        batch.push((0..n).map(|i| cell(row.get_ref(i))).collect());
        if batch.len() == chunk {
            sent += batch.len();
            if !emit(std::mem::take(&mut batch)) {
                return Ok(());
            }
        }
    }
    if !batch.is_empty() {
        emit(batch);
    }
    Ok(())
}

/// CPU time this thread has used. A query's limit counts the CPU it spends, not the wall
/// clock: on a loaded machine (a CI runner, a test suite on 2 cores) a query waiting for a core
/// is not a costly query, and a wall-clock limit stopped cheap ones there.
#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer to a timespec; the clock id is a constant of the platform.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    if ok {
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    } else {
        Duration::ZERO
    }
}

/// Elsewhere, the wall clock (since the first call).
#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

fn run(conn: &mut Connection, sql: &str) -> anyhow::Result<QueryResult> {
    // The progress handler runs on the thread that runs the query.
    let deadline = thread_cpu() + TIME_LIMIT;
    conn.progress_handler(10_000, Some(move || thread_cpu() > deadline))?;
    let mut stmt = conn.prepare(sql)?;
    let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let n = columns.len();
    let mut rows = Vec::new();
    let mut total = 0;
    let mut cursor = stmt.query([])?;
    while let Some(row) = cursor.next().map_err(|e| match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            anyhow::anyhow!("query stopped after {} s", TIME_LIMIT.as_secs())
        }
        e => e.into(),
    })? {
        total += 1;
        if rows.len() < ROW_CAP {
            rows.push((0..n).map(|i| cell(row.get_ref(i))).collect());
        }
        if total >= COUNT_CAP {
            break;
        }
    }
    Ok(QueryResult {
        columns,
        rows,
        total_rows: total,
    })
}

fn cell(v: rusqlite::Result<ValueRef<'_>>) -> Cell {
    match v {
        Ok(ValueRef::Integer(i)) => Cell::Int(i),
        Ok(ValueRef::Real(f)) => Cell::Real(f),
        Ok(ValueRef::Text(t)) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
        Ok(ValueRef::Blob(b)) => Cell::Text(format!("<{} bytes>", b.len())),
        Ok(ValueRef::Null) | Err(_) => Cell::Null,
    }
}

impl Drop for Warehouse {
    fn drop(&mut self) {
        lock(&self.idle).clear();
        if let Source::Temp(path) = &self.source {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Warehouses over one kept copy read the same data, each through connections of its
    /// own, and outlive one another.
    #[test]
    fn warehouses_over_a_shared_copy_read_it_in_place() {
        let mut built = Connection::open_in_memory().unwrap();
        built
            .execute_batch(
                "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL);
                 INSERT INTO orders (amount) VALUES (1.5), (2.5), (4.0);",
            )
            .unwrap();
        let shared = Shared::copy(&mut built).unwrap();
        // Later changes to the built database are not the copy's.
        built.execute("DELETE FROM orders", []).unwrap();
        let first = Warehouse::open_shared(&shared).unwrap();
        let second = Warehouse::open_shared(&shared).unwrap();
        let sum = "SELECT sum(amount) FROM orders";
        assert_eq!(first.query(sum).unwrap().rows, vec![vec![Cell::Real(8.0)]]);
        drop(first);
        // A query of its own (results are shared too): read after the first one is gone.
        let count = "SELECT count(*) FROM orders";
        assert_eq!(second.query(count).unwrap().rows, vec![vec![Cell::Int(3)]]);
        // Read-only: the copy cannot be changed through a warehouse.
        assert!(second.query("DELETE FROM orders").is_err());
        assert_eq!(
            Warehouse::open_shared(&shared)
                .unwrap()
                .query(sum)
                .unwrap()
                .rows,
            vec![vec![Cell::Real(8.0)]]
        );
    }
}
