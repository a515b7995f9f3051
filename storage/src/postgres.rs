//! The PostgreSQL backend, selected by a `postgres://` URL: the system of
//! record when Wayfare runs on more than one machine (DESIGN.md "Scale").
//!
//! Transactions run at READ COMMITTED: a compare-and-set `UPDATE … WHERE
//! version = $n` that waited for a concurrent writer re-reads the row and
//! matches nothing, and rows read for a later update are locked with
//! `FOR UPDATE`. Text search uses a generated `tsvector` with a GIN index;
//! the planner chooses between it and the list's sort index.

use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::status_text;
use crate::common::dialect::{Dialect, TextCounts, unique_field};
use crate::common::search::{SearchQuery, SearchTable};
use crate::common::write_gate::WriteGate;
use crate::error::StorageResult;
use crate::types::Backend;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use wayfare_engine::Millis;
use wayfare_engine::exicube::ImportedPoint;

// The one implementation of the trait, compiled here against this backend's
// types (and once more in `sqlite.rs`): see the top of `sql/mod.rs`.
#[allow(clippy::duplicate_mod)]
#[path = "sql/mod.rs"]
mod sql;

type Db = sqlx::Postgres;
type Store = PostgresStorage;
type BackendDialect = PostgresDialect;
const BACKEND: Backend = Backend::Postgres;

const MAX_CONNECTIONS: u32 = 16;
/// Tracking points per `UNNEST` statement of an import.
const POINTS_PER_STATEMENT: usize = 50_000;
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

/// Storage in a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PostgresStorage {
    pool: PgPool,
    /// The same pool: a relaxed commit is asked for per transaction.
    relaxed: PgPool,
    writes: WriteGate,
    /// In cluster mode, the node whose booking leases every booking update
    /// must hold (`Cluster::fence_booking_writes`).
    fence: Arc<OnceLock<String>>,
}

impl PostgresStorage {
    /// Every commit is on disk when it returns: nothing to wait for (the
    /// shared code that calls this runs on SQLite only).
    async fn sync_commits(&self) -> StorageResult<()> {
        Ok(())
    }

    /// Inserts an import's tracking points with one array per column
    /// (`INSERT … SELECT … FROM UNNEST`): five arrays a statement, where a
    /// multi-row `INSERT` binds eight values a row for PostgreSQL to parse
    /// and plan. Always true: written (SQLite's answers false, and the shared
    /// multi-row insert runs there).
    async fn insert_points_by_column(
        conn: &mut sqlx::PgConnection,
        points: &[ImportedPoint],
        now: Millis,
    ) -> StorageResult<bool> {
        for chunk in points.chunks(POINTS_PER_STATEMENT) {
            let bookings: Vec<uuid::Uuid> = chunk.iter().map(|imported| imported.booking.0).collect();
            let times: Vec<i64> = chunk.iter().map(|imported| imported.point.at).collect();
            let statuses: Vec<&str> = chunk.iter().map(|imported| status_text(imported.point.status)).collect();
            let lats: Vec<f64> = chunk.iter().map(|imported| imported.point.lat).collect();
            let lngs: Vec<f64> = chunk.iter().map(|imported| imported.point.lng).collect();
            sqlx::query(
                "INSERT INTO tracking_points (booking_id, at, status, lat, lng, created_at, updated_at, imported)
                 SELECT p.booking_id, p.at, p.status, p.lat, p.lng, p.at, $6, TRUE
                 FROM UNNEST($1::uuid[], $2::int8[], $3::text[], $4::float8[], $5::float8[])
                      WITH ORDINALITY AS p (booking_id, at, status, lat, lng, n)
                 ORDER BY p.n",
            )
            .bind(bookings)
            .bind(times)
            .bind(statuses)
            .bind(lats)
            .bind(lngs)
            .bind(now)
            .execute(&mut *conn)
            .await
            .map_err(sql::write_error)?;
        }
        Ok(true)
    }

    /// Connects to the database a `postgres://` URL names and applies the
    /// migrations.
    pub async fn connect(url: &str) -> StorageResult<Self> {
        Self::connect_with(PgConnectOptions::from_str(url)?).await
    }

    /// Connects with explicit options (for example a `search_path`, as the
    /// tests do to give each test its own schema) and applies the migrations.
    pub async fn connect_with(options: PgConnectOptions) -> StorageResult<Self> {
        Self::connect_migrated_to(options, None).await
    }

    /// Connects and applies the migrations up to `schema_version` (all when
    /// `None`); see `SqliteStorage::open_migrated_to`.
    #[tracing::instrument(skip_all)]
    pub async fn connect_migrated_to(options: PgConnectOptions, schema_version: Option<i64>) -> StorageResult<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await?;
        migrator(schema_version).run(&pool).await?;
        tracing::info!("postgres storage connected");
        Ok(PostgresStorage { relaxed: pool.clone(), pool, writes: WriteGate::concurrent(), fence: Arc::default() })
    }

    /// The connection pool, for tools and tests that need raw SQL.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

/// The embedded migrations up to `schema_version` (all when `None`).
fn migrator(schema_version: Option<i64>) -> sqlx::migrate::Migrator {
    crate::archive::migrations_up_to(sqlx::migrate!("./migrations/postgres"), schema_version)
}

/// PostgreSQL's side of the shared SQL.
pub(crate) struct PostgresDialect;

impl Dialect for PostgresDialect {
    const BEGIN_WRITE: &'static str = "BEGIN";
    const FOR_UPDATE: &'static str = " FOR UPDATE";
    const RELAXED_COMMIT: Option<&'static str> = Some("SET LOCAL synchronous_commit TO OFF");
    /// The protocol allows 65,535.
    const MAX_BINDS_PER_STATEMENT: usize = 30_000;
    const ANONYMOUS_ROW_BINDS: bool = false;
    const MAX_ROW_BINDS: usize = 30_000;
    const SCRIPTS: bool = false;

    const YEAR_MONTH_OF_LOCAL_SECONDS: &'static str =
        "CAST(to_char(to_timestamp(l.local_s) AT TIME ZONE 'UTC', 'YYYYMM') AS BIGINT)";

    /// The planner estimates a `tsquery`'s matches from the column statistics
    /// and chooses between the GIN index and walking the sort index itself.
    fn text_counts(_table: SearchTable) -> Option<TextCounts> {
        None
    }

    /// `simple` configuration: no stemming or stop words, so `to_tsquery`
    /// prefixes (`smi:*`) match word starts exactly as FTS5 does on SQLite.
    fn index_text(query: &SearchQuery) -> String {
        query.tsquery()
    }

    fn push_index_from(builder: &mut SqlBuilder, table: SearchTable, text: String) {
        match table {
            SearchTable::Bookings => builder.push("bookings b WHERE b.search_vector @@ to_tsquery('simple', "),
            SearchTable::Users => builder.push("users u WHERE u.search_vector @@ to_tsquery('simple', "),
        };
        builder.bind(Bind::Text(text)).push(")");
    }

    /// PostgreSQL names the index or constraint: "users_email".
    fn duplicate_field(error: &dyn sqlx::error::DatabaseError) -> &'static str {
        unique_field(error.constraint().unwrap_or_else(|| error.message()))
    }
}
