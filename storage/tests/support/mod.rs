//! The harness of the backend suite: every test is written once as
//! `async fn name(fixture: Fixture)` and [`backend_suite!`] makes a
//! `sqlite::name` and a `postgres::name` test of it.
//!
//! SQLite tests get a fresh file in a temporary directory. PostgreSQL tests
//! run when `WAYFARE_TEST_POSTGRES_URL` is set, each in a fresh schema that is
//! dropped afterwards; when the variable is set and the server does not
//! answer, or in CI (`CI=true`) when it is not set, the test fails rather
//! than passing silently.

#![allow(dead_code)]

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{AssertSqlSafe, Executor};
use std::future::Future;
use std::ops::Deref;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use wayfare_engine::{Booking, Millis, User};
use wayfare_storage::postgres::PostgresStorage;
use wayfare_storage::sqlite::SqliteStorage;
use wayfare_storage::{Storage, StorageResult};

pub const POSTGRES_URL_VARIABLE: &str = "WAYFARE_TEST_POSTGRES_URL";

/// The PostgreSQL to test on; `None` (the variant is not run) when
/// [`POSTGRES_URL_VARIABLE`] is not set, except in CI, where a PostgreSQL
/// variant that would pass without running is a failure.
pub fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var(POSTGRES_URL_VARIABLE) {
        return Some(url);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI runs the storage suite on PostgreSQL too: set {POSTGRES_URL_VARIABLE} (`make test` starts a local PostgreSQL and sets it)"
    );
    eprintln!("postgres backend not tested: {POSTGRES_URL_VARIABLE} is not set");
    None
}

/// One storage under test, through the trait, plus the concrete backend for
/// what the trait does not offer (bulk imports, raw SQL).
pub struct Fixture {
    pub storage: Arc<dyn Storage>,
    pub concrete: Concrete,
    _directory: Option<tempfile::TempDir>,
}

pub enum Concrete {
    Sqlite(SqliteStorage),
    Postgres(PostgresStorage),
}

impl Deref for Fixture {
    type Target = dyn Storage;

    fn deref(&self) -> &Self::Target {
        self.storage.as_ref()
    }
}

impl Fixture {
    pub async fn import_users(&self, users: &[User], now: Millis) -> StorageResult<()> {
        match &self.concrete {
            Concrete::Sqlite(storage) => storage.import_users(users, now).await,
            Concrete::Postgres(storage) => storage.import_users(users, now).await,
        }
    }

    pub async fn import_bookings(&self, bookings: &[Booking], now: Millis) -> StorageResult<()> {
        match &self.concrete {
            Concrete::Sqlite(storage) => storage.import_bookings(bookings, now).await,
            Concrete::Postgres(storage) => storage.import_bookings(bookings, now).await,
        }
    }

    /// Runs SQL directly, around the storage's own checks.
    pub async fn raw_execute(&self, sql: &'static str) -> Result<u64, sqlx::Error> {
        match &self.concrete {
            Concrete::Sqlite(storage) => storage.pool().execute(sql).await.map(|result| result.rows_affected()),
            Concrete::Postgres(storage) => storage.pool().execute(sql).await.map(|result| result.rows_affected()),
        }
    }

    /// The one text column of each row from raw SQL, in the query's order.
    pub async fn raw_texts(&self, sql: &'static str) -> Vec<String> {
        match &self.concrete {
            Concrete::Sqlite(storage) => sqlx::query_scalar(sql).fetch_all(storage.pool()).await.expect("texts"),
            Concrete::Postgres(storage) => sqlx::query_scalar(sql).fetch_all(storage.pool()).await.expect("texts"),
        }
    }

    /// A single number from raw SQL.
    pub async fn raw_scalar(&self, sql: &'static str) -> i64 {
        match &self.concrete {
            Concrete::Sqlite(storage) => sqlx::query_scalar(sql).fetch_one(storage.pool()).await.expect("scalar"),
            Concrete::Postgres(storage) => sqlx::query_scalar(sql).fetch_one(storage.pool()).await.expect("scalar"),
        }
    }
}

pub async fn with_sqlite<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut,
    Fut: Future<Output = ()>,
{
    let directory = tempfile::tempdir().expect("temporary directory");
    let storage = SqliteStorage::open(&directory.path().join("wayfare.db")).await.expect("open sqlite storage");
    test(Fixture {
        storage: Arc::new(storage.clone()),
        concrete: Concrete::Sqlite(storage),
        _directory: Some(directory),
    })
    .await;
}

pub async fn with_postgres<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let Some(url) = postgres_url() else { return };
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .connect(&url)
        .await
        .unwrap_or_else(|error| panic!("{POSTGRES_URL_VARIABLE} is set but PostgreSQL does not answer: {error}"));
    // Only hex digits follow the prefix, so the name needs no quoting.
    let schema = format!("wayfare_test_{}", uuid::Uuid::now_v7().simple());
    admin.execute(AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).await.expect("create test schema");
    let options = PgConnectOptions::from_str(&url).expect("postgres url").options([("search_path", schema.as_str())]);
    let storage = PostgresStorage::connect_with(options).await.expect("connect postgres storage");
    let pool = storage.pool().clone();
    let fixture =
        Fixture { storage: Arc::new(storage.clone()), concrete: Concrete::Postgres(storage), _directory: None };
    let outcome = tokio::spawn(test(fixture)).await;
    pool.close().await;
    admin.execute(AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE"))).await.expect("drop test schema");
    admin.close().await;
    if let Err(error) = outcome {
        std::panic::resume_unwind(error.into_panic());
    }
}

/// Makes a SQLite and a PostgreSQL test of each named `async fn(Fixture)`.
#[macro_export]
macro_rules! backend_suite {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    $crate::support::with_sqlite($crate::$test).await
                }
            )*
        }

        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    $crate::support::with_postgres($crate::$test).await
                }
            )*
        }
    };
}
