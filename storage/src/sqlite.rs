//! The SQLite backend: the embedded default, one file in the data directory.
//!
//! The file is created when missing and opened in WAL mode (readers never
//! wait for the writer), with foreign keys on, `synchronous = FULL` (a commit
//! is on disk before it is acknowledged: DESIGN.md invariant 3; writes that
//! acknowledge nothing use one `NORMAL` connection, see `begin_relaxed_write`,
//! and bookings' commits use it too, then wait for a shared fsync of the WAL,
//! see `commit_booking_in_scripts`) and a busy
//! timeout so concurrent writers queue for the write lock instead of failing.
//! Write transactions start with `BEGIN IMMEDIATE`. Text search uses FTS5
//! tables kept in step by triggers (see the migration).

use crate::common::builder::{Bind, SqlBuilder};
use crate::common::dialect::{Dialect, TextCounts, unique_field};
use crate::common::search::{SearchQuery, SearchTable};
use crate::common::write_gate::WriteGate;
use crate::error::StorageResult;
use crate::types::Backend;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

// The one implementation of the trait, compiled here against this backend's
// types (and once more in `postgres.rs`): see the top of `sql/mod.rs`.
#[allow(clippy::duplicate_mod)]
#[path = "sql/mod.rs"]
mod sql;

type Db = sqlx::Sqlite;
type Store = SqliteStorage;
type BackendDialect = SqliteDialect;
const BACKEND: Backend = Backend::Sqlite;

/// How long a writer waits for another's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Readers run in parallel in WAL mode; writes take turns.
const MAX_CONNECTIONS: u32 = 8;
/// 64 MiB of page cache per connection.
const CACHE_KIB: u32 = 64 * 1024;
/// Up to 1 GiB of the file read through the memory map.
const MMAP_BYTES: u64 = 1 << 30;
/// How often a background task copies the WAL into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);
/// A commit checkpoints by itself only past this many WAL pages (~40 MB):
/// a backstop for a checkpointer that fell behind. SQLite's default, 1,000,
/// made every second or so commit under load pay for a checkpoint and its
/// fsync, the tail of booking-to-offer.
const AUTOCHECKPOINT_PAGES: u32 = 10_000;

/// Bytes SQLite holds in this process (page caches, statements, schema),
/// for the `wayfare_sqlite_memory_bytes` gauge: the page caches grow with
/// the database up to `CACHE_KIB` per connection, and an operator tells
/// that from a leak with this.
pub fn memory_used() -> u64 {
    // SAFETY: takes no arguments and only reads SQLite's own counter, which
    // is thread-safe in the threadsafe build sqlx links.
    let used = unsafe { libsqlite3_sys::sqlite3_memory_used() };
    u64::try_from(used).unwrap_or(0)
}

/// Storage in one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStorage {
    pool: SqlitePool,
    /// One connection with `synchronous = NORMAL`, for relaxed commits.
    relaxed: SqlitePool,
    /// Every write of this process takes its turn here (see [`WriteGate`]).
    writes: WriteGate,
    /// Stops the checkpointer when the last clone goes.
    _checkpointer: Arc<Checkpointer>,
    /// Syncs the WAL for commits made on `relaxed` that must be durable.
    wal_sync: Arc<WalSync>,
    /// In cluster mode, the node whose booking leases every booking update
    /// must hold (`Cluster::fence_booking_writes`).
    fence: Arc<std::sync::OnceLock<String>>,
}

/// Group commit: one thread fsyncs the WAL file for every commit that asked
/// since its last fsync. A commit made with `synchronous = NORMAL` is in the
/// WAL (the OS's cache) when it returns; an fsync begun after that puts it
/// on disk. Waiters that arrive during an fsync share the next one.
#[derive(Debug)]
struct WalSync {
    requests: std::sync::mpsc::Sender<oneshot::Sender<std::io::Result<()>>>,
}

/// An fsync of the WAL file.
fn sync_file(wal: &Path) -> std::io::Result<()> {
    match std::fs::File::open(wal) {
        Ok(file) => file.sync_all(),
        // No WAL: SQLite removes it only once all of it is in the synced database file.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

impl WalSync {
    /// Starts the thread; it ends when the last storage clone is dropped.
    fn start(wal: PathBuf) -> std::io::Result<Self> {
        Self::start_with(move || sync_file(&wal))
    }

    fn start_with(sync: impl Fn() -> std::io::Result<()> + Send + 'static) -> std::io::Result<Self> {
        let (requests, inbox) = std::sync::mpsc::channel::<oneshot::Sender<std::io::Result<()>>>();
        std::thread::Builder::new().name("sqlite-wal-sync".into()).spawn(move || {
            while let Ok(first) = inbox.recv() {
                let waiting: Vec<_> = std::iter::once(first).chain(inbox.try_iter()).collect();
                let synced = sync();
                for waiter in waiting {
                    let _ = waiter.send(match &synced {
                        Ok(()) => Ok(()),
                        Err(error) => Err(std::io::Error::new(error.kind(), error.to_string())),
                    });
                }
            }
        })?;
        Ok(WalSync { requests })
    }

    /// Returns once every commit made before the call is on disk.
    async fn sync(&self) -> StorageResult<()> {
        let stopped = || sqlx::Error::Io(std::io::Error::other("the WAL sync thread stopped"));
        let (done, synced) = oneshot::channel();
        self.requests.send(done).map_err(|_| stopped())?;
        synced.await.map_err(|_| stopped())?.map_err(sqlx::Error::Io)?;
        Ok(())
    }
}

/// The background checkpointer's task, aborted on drop.
#[derive(Debug)]
struct Checkpointer(tokio::task::JoinHandle<()>);

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Copies the WAL into the database file off the commit path: a passive
/// checkpoint waits for no reader or writer, so commits go on meanwhile
/// and the WAL stays short (a short WAL is also a quick recovery).
async fn checkpoint(pool: SqlitePool) {
    let mut interval = tokio::time::interval(CHECKPOINT_EVERY);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").execute(&pool).await {
            tracing::debug!(%error, "wal checkpoint failed; the next one catches up");
        }
    }
}

impl SqliteStorage {
    /// Opens (creating when missing) the database file and applies the
    /// migrations.
    pub async fn open(path: &Path) -> StorageResult<Self> {
        Self::open_migrated_to(path, None).await
    }

    /// Opens (creating when missing) the database file and applies the
    /// migrations up to `schema_version` (all when `None`): an archive of an
    /// older release is imported into the schema it was written from, then
    /// migrated forward ([`crate::Archive::apply_migrations`]).
    #[tracing::instrument(skip_all, fields(path = %path.display()))]
    pub async fn open_migrated_to(path: &Path, schema_version: Option<i64>) -> StorageResult<Self> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(sqlx::Error::Io)?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT)
            // Page cache per connection (negative: KiB) and memory-mapped
            // reads shared by all of them: the hot indexes stay in memory.
            .pragma("cache_size", format!("-{}", CACHE_KIB))
            .pragma("mmap_size", MMAP_BYTES.to_string())
            .pragma("temp_store", "memory")
            .pragma("wal_autocheckpoint", AUTOCHECKPOINT_PAGES.to_string());
        // No ping before each acquire: the connection is in this process
        // and cannot have been dropped by a server; the ping was a round
        // trip to the connection's thread before every transaction and read.
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(BUSY_TIMEOUT)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        migrator(schema_version).run(&pool).await?;
        // In WAL mode a NORMAL commit is safe from corruption and survives
        // the process's death (it is in the OS's cache); only a power cut
        // may lose it, until the next FULL commit or checkpoint syncs the WAL.
        // It also carries bookings' commits, which then wait for `wal_sync`.
        let relaxed = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(BUSY_TIMEOUT)
            .test_before_acquire(false)
            .connect_with(options.synchronous(SqliteSynchronous::Normal).pragma("cache_size", "-8192"))
            .await?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let wal_sync = Arc::new(WalSync::start(PathBuf::from(wal)).map_err(sqlx::Error::Io)?);
        tracing::info!("sqlite storage open");
        let checkpointer = Arc::new(Checkpointer(tokio::spawn(checkpoint(pool.clone()))));
        Ok(SqliteStorage {
            pool,
            relaxed,
            writes: WriteGate::serial(),
            _checkpointer: checkpointer,
            wal_sync,
            fence: Arc::default(),
        })
    }

    /// Waits until every commit made so far is on disk (see [`WalSync`]).
    async fn sync_commits(&self) -> StorageResult<()> {
        self.wal_sync.sync().await
    }

    /// Writes nothing, answering false: SQLite binds a multi-row insert's
    /// values by position cheaply, so an import's tracking points take the
    /// shared insert (PostgreSQL's writes them by column).
    async fn insert_points_by_column(
        _conn: &mut sqlx::SqliteConnection,
        _points: &[wayfare_engine::exicube::ImportedPoint],
        _now: wayfare_engine::Millis,
    ) -> StorageResult<bool> {
        Ok(false)
    }

    /// The connection pool, for tools and tests that need raw SQL.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

/// The embedded migrations up to `schema_version` (all when `None`).
fn migrator(schema_version: Option<i64>) -> sqlx::migrate::Migrator {
    crate::archive::migrations_up_to(sqlx::migrate!("./migrations/sqlite"), schema_version)
}

/// SQLite's side of the shared SQL.
pub(crate) struct SqliteDialect;

impl Dialect for SqliteDialect {
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    const FOR_UPDATE: &'static str = "";
    const RELAXED_COMMIT: Option<&'static str> = None;
    /// SQLite looks a parameter's name up by a linear scan (sqlx asks for
    /// each one), so a statement with n parameters costs n²: keep n small.
    const MAX_BINDS_PER_STATEMENT: usize = 1_000;
    /// Bound by position, a value costs the same in a statement of any size
    /// (SQLite's limit is 32,766).
    const ANONYMOUS_ROW_BINDS: bool = true;
    const MAX_ROW_BINDS: usize = 10_000;
    const SCRIPTS: bool = true;

    /// Exact for years 0000..=9999 (the date functions' range).
    const YEAR_MONTH_OF_LOCAL_SECONDS: &'static str = "CAST(strftime('%Y%m', l.local_s, 'unixepoch') AS INTEGER)";

    /// SQLite's planner has no estimate of how many rows an FTS5 query
    /// matches, so the shared code counts (up to a limit) and picks the plan.
    fn text_counts(table: SearchTable) -> Option<TextCounts> {
        Some(match table {
            SearchTable::Bookings => TextCounts {
                documents: "SELECT COUNT(*) FROM (SELECT rowid FROM bookings_fts WHERE bookings_fts MATCH $1 LIMIT $2)",
                occurrences: "SELECT COUNT(*) FROM (SELECT 1 FROM bookings_fts_words WHERE term >= $1 AND term < $2 LIMIT $3)",
            },
            SearchTable::Users => TextCounts {
                documents: "SELECT COUNT(*) FROM (SELECT rowid FROM users_fts WHERE users_fts MATCH $1 LIMIT $2)",
                occurrences: "SELECT COUNT(*) FROM (SELECT 1 FROM users_fts_words WHERE term >= $1 AND term < $2 LIMIT $3)",
            },
        })
    }

    fn index_text(query: &SearchQuery) -> String {
        query.fts5()
    }

    /// Drives the join from the FTS5 matches (`CROSS JOIN` fixes the join
    /// order in SQLite).
    fn push_index_from(builder: &mut SqlBuilder, table: SearchTable, text: String) {
        match table {
            SearchTable::Bookings => builder
                .push("bookings_fts CROSS JOIN bookings b ON b.seq = bookings_fts.rowid WHERE bookings_fts MATCH "),
            SearchTable::Users => {
                builder.push("users_fts CROSS JOIN users u ON u.seq = users_fts.rowid WHERE users_fts MATCH ")
            }
        };
        builder.bind(Bind::Text(text));
    }

    /// SQLite names the columns: "UNIQUE constraint failed: users.email".
    fn duplicate_field(error: &dyn sqlx::error::DatabaseError) -> &'static str {
        unique_field(error.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    /// Requests made while an fsync runs wait for, and share, the next one.
    #[tokio::test]
    async fn commits_waiting_during_an_fsync_share_the_next() {
        let calls = Arc::new(AtomicUsize::new(0));
        let (entered, first_entered) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let released = std::sync::Mutex::new(released);
        let counted = calls.clone();
        let sync = WalSync::start_with(move || {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                entered.send(()).unwrap();
                released.lock().unwrap().recv().unwrap();
            }
            Ok(())
        })
        .unwrap();
        let sync = Arc::new(sync);
        let first = tokio::spawn({
            let sync = sync.clone();
            async move { sync.sync().await }
        });
        tokio::task::spawn_blocking(move || first_entered.recv().unwrap()).await.unwrap();
        // The first fsync is under way: these ten are sent meanwhile.
        let (sent, all_sent) = tokio::sync::mpsc::unbounded_channel();
        let later: Vec<_> = (0..10)
            .map(|_| {
                let sync = sync.clone();
                let sent = sent.clone();
                tokio::spawn(async move {
                    let (done, synced) = oneshot::channel();
                    sync.requests.send(done).unwrap();
                    sent.send(()).unwrap();
                    synced.await.unwrap()
                })
            })
            .collect();
        let mut all_sent = all_sent;
        for _ in 0..10 {
            all_sent.recv().await.unwrap();
        }
        release.send(()).unwrap();
        first.await.unwrap().expect("first sync");
        for waiter in later {
            waiter.await.unwrap().expect("a later sync");
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2, "one fsync for the first, one shared by the ten");
    }

    #[tokio::test]
    async fn a_failed_fsync_fails_the_commits_waiting_for_it() {
        let sync = WalSync::start_with(|| Err(std::io::Error::other("disk gone"))).unwrap();
        let error = sync.sync().await.expect_err("an fsync that failed");
        assert!(error.to_string().contains("disk gone"), "{error}");
        assert!(error.is_unavailable());
    }

    #[tokio::test]
    async fn a_script_cut_short_leaves_no_transaction_behind() {
        let directory = tempfile::tempdir().unwrap();
        let storage = SqliteStorage::open(&directory.path().join("wayfare.db")).await.unwrap();
        let mut cut = sql::ScriptConn { conn: storage.relaxed.acquire().await.unwrap(), open: true };
        sqlx::query("BEGIN IMMEDIATE").execute(&mut *cut.conn).await.unwrap();
        // Its caller went away mid-script: the connection is closed, not
        // pooled (pooled, it would refuse a BEGIN inside its open one).
        drop(cut);
        let mut next = storage.relaxed.acquire().await.unwrap();
        sqlx::query("BEGIN IMMEDIATE").execute(&mut *next).await.unwrap();
        sqlx::query("ROLLBACK").execute(&mut *next).await.unwrap();
    }

    #[tokio::test]
    async fn the_wal_file_is_synced_and_a_missing_one_needs_no_sync() {
        let directory = tempfile::tempdir().unwrap();
        let wal = directory.path().join("wayfare.db-wal");
        sync_file(&wal).expect("no WAL: nothing to sync");
        std::fs::write(&wal, b"frames").unwrap();
        WalSync::start(wal.clone()).unwrap().sync().await.expect("the WAL synced");
        let not_a_directory = wal.join("wayfare.db-wal");
        assert!(sync_file(&not_a_directory).is_err(), "an fsync that cannot open its file fails");
    }
}
