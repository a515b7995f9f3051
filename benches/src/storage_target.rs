//! The database a storage benchmark runs on, named by one argument: a
//! `postgres://` URL or a SQLite file path. Fills it from a [`Plan`] with the
//! storage crate's bulk imports (multi-row inserts, one transaction per
//! batch) and prepares it for reading (statistics, text-index merge).

use crate::storage_data::Plan;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use wayfare_engine::{Booking, User};
use wayfare_storage::postgres::PostgresStorage;
use wayfare_storage::sqlite::SqliteStorage;
use wayfare_storage::{Storage, StorageResult};

/// Rows per bulk-import transaction.
const BATCH: u64 = 10_000;

/// The offset the benchmark city's reports are cut in (UTC−5).
pub const REPORT_UTC_OFFSET_MINUTES: i32 = -300;

pub enum BenchStorage {
    Sqlite(SqliteStorage),
    Postgres(PostgresStorage),
}

/// How long each part of a fill took.
#[derive(Debug, Clone, Copy)]
pub struct FillTimes {
    pub users: Duration,
    pub bookings: Duration,
    pub prepare: Duration,
}

impl BenchStorage {
    pub async fn open(target: &str) -> StorageResult<Self> {
        if target.starts_with("postgres://") || target.starts_with("postgresql://") {
            Ok(BenchStorage::Postgres(PostgresStorage::connect(target).await?))
        } else {
            let path = target.strip_prefix("sqlite://").unwrap_or(target);
            Ok(BenchStorage::Sqlite(SqliteStorage::open(std::path::Path::new(path)).await?))
        }
    }

    pub fn storage(&self) -> Arc<dyn Storage> {
        match self {
            BenchStorage::Sqlite(storage) => Arc::new(storage.clone()),
            BenchStorage::Postgres(storage) => Arc::new(storage.clone()),
        }
    }

    pub async fn count(&self, table: Table) -> i64 {
        let sql = match table {
            Table::Users => "SELECT COUNT(*) FROM users",
            Table::Bookings => "SELECT COUNT(*) FROM bookings",
        };
        let counted = match self {
            BenchStorage::Sqlite(storage) => sqlx::query_scalar(sql).fetch_one(storage.pool()).await,
            BenchStorage::Postgres(storage) => sqlx::query_scalar(sql).fetch_one(storage.pool()).await,
        };
        counted.expect("count rows")
    }

    /// How many bookings a one-word search matches (a word start, as the
    /// storage's search means it).
    pub async fn count_matches(&self, word: &str) -> i64 {
        let word = word.to_lowercase();
        let counted = match self {
            BenchStorage::Sqlite(storage) => {
                sqlx::query_scalar("SELECT COUNT(*) FROM bookings_fts WHERE bookings_fts MATCH $1")
                    .bind(format!("\"{word}\"*"))
                    .fetch_one(storage.pool())
                    .await
            }
            BenchStorage::Postgres(storage) => {
                sqlx::query_scalar("SELECT COUNT(*) FROM bookings WHERE search_vector @@ to_tsquery('simple', $1)")
                    .bind(format!("{word}:*"))
                    .fetch_one(storage.pool())
                    .await
            }
        };
        counted.expect("count matches")
    }

    async fn import_users(&self, users: &[User]) -> StorageResult<()> {
        match self {
            BenchStorage::Sqlite(storage) => storage.import_users(users, crate::storage_data::END).await,
            BenchStorage::Postgres(storage) => storage.import_users(users, crate::storage_data::END).await,
        }
    }

    /// Keeps (or rebuilds) the monthly earnings roll-up in this offset.
    pub async fn prepare_earnings_rollup(&self, utc_offset_minutes: i32) -> StorageResult<()> {
        use wayfare_storage::Reports;
        match self {
            BenchStorage::Sqlite(storage) => storage.prepare_earnings_rollup(utc_offset_minutes).await,
            BenchStorage::Postgres(storage) => storage.prepare_earnings_rollup(utc_offset_minutes).await,
        }
    }

    async fn import_bookings(&self, bookings: &[Booking]) -> StorageResult<()> {
        match self {
            BenchStorage::Sqlite(storage) => storage.import_bookings(bookings, crate::storage_data::END).await,
            BenchStorage::Postgres(storage) => storage.import_bookings(bookings, crate::storage_data::END).await,
        }
    }

    /// Fills an empty database. Records are generated on a thread of their
    /// own while the previous batch is written.
    pub async fn fill(&self, plan: Plan, progress: impl Fn(&str, u64, u64)) -> StorageResult<FillTimes> {
        let started = Instant::now();
        let users = plan.fleets + plan.riders + plan.drivers;
        let (sender, mut receiver) = mpsc::channel::<Vec<User>>(2);
        let generator = std::thread::spawn(move || {
            let all = (0..plan.fleets)
                .map(move |index| plan.fleetadmin(index))
                .chain((0..plan.riders).map(move |index| plan.rider(index)))
                .chain((0..plan.drivers).map(move |index| plan.driver(index)));
            let mut batch = Vec::with_capacity(BATCH as usize);
            for user in all {
                batch.push(user);
                if batch.len() as u64 == BATCH && sender.blocking_send(std::mem::take(&mut batch)).is_err() {
                    return;
                }
            }
            let _ = sender.blocking_send(batch);
        });
        let mut done = 0;
        while let Some(batch) = receiver.recv().await {
            self.import_users(&batch).await?;
            done += batch.len() as u64;
            progress("users", done, users);
        }
        generator.join().expect("user generator");
        let users_time = started.elapsed();

        // The city reports in UTC−5; the monthly earnings roll-up is kept in
        // that offset as bookings are imported.
        self.prepare_earnings_rollup(REPORT_UTC_OFFSET_MINUTES).await?;
        let started = Instant::now();
        let (sender, mut receiver) = mpsc::channel::<Vec<Booking>>(2);
        let generator = std::thread::spawn(move || {
            let mut start = 0;
            while start < plan.bookings {
                let end = (start + BATCH).min(plan.bookings);
                if sender.blocking_send((start..end).map(|index| plan.booking(index)).collect()).is_err() {
                    return;
                }
                start = end;
            }
        });
        let mut done = 0;
        while let Some(batch) = receiver.recv().await {
            self.import_bookings(&batch).await?;
            done += batch.len() as u64;
            progress("bookings", done, plan.bookings);
        }
        generator.join().expect("booking generator");
        let bookings_time = started.elapsed();

        let started = Instant::now();
        self.prepare().await?;
        Ok(FillTimes { users: users_time, bookings: bookings_time, prepare: started.elapsed() })
    }

    /// What an operator does after a bulk load: fresh planner statistics;
    /// on PostgreSQL a VACUUM so index-only scans need not visit the heap; on
    /// SQLite one merge of the FTS5 segments the load left behind.
    pub async fn prepare(&self) -> StorageResult<()> {
        match self {
            BenchStorage::Sqlite(storage) => {
                sqlx::query("INSERT INTO bookings_fts (bookings_fts) VALUES ('optimize')")
                    .execute(storage.pool())
                    .await?;
                sqlx::query("INSERT INTO users_fts (users_fts) VALUES ('optimize')").execute(storage.pool()).await?;
                storage.analyze().await?;
            }
            BenchStorage::Postgres(storage) => {
                sqlx::query("VACUUM ANALYZE").execute(storage.pool()).await?;
            }
        }
        Ok(())
    }
}

/// Values per tracking point row.
const TRACKING_VALUES: usize = 7;

/// `INSERT INTO tracking_points … VALUES ($1, …), …` for `rows` rows.
fn tracking_insert(rows: usize) -> String {
    let mut sql =
        String::from("INSERT INTO tracking_points (booking_id, at, status, lat, lng, created_at, updated_at) VALUES ");
    for row in 0..rows {
        if row > 0 {
            sql.push_str(", ");
        }
        let first = row * TRACKING_VALUES;
        let placeholders: Vec<String> = (1..=TRACKING_VALUES).map(|value| format!("${}", first + value)).collect();
        sql.push('(');
        sql.push_str(&placeholders.join(", "));
        sql.push(')');
    }
    sql
}

/// One tracking point: booking, time, status, latitude, longitude.
type Point = (uuid::Uuid, i64, &'static str, f64, f64);

/// `per_booking` points of booking `index`, evenly along the straight line
/// from pickup to drop, 30 s apart from its trip date.
fn track(plan: &Plan, index: u64, per_booking: u64) -> Vec<Point> {
    let booking = plan.booking(index);
    let steps = per_booking.max(2) - 1;
    (0..per_booking)
        .map(|step| {
            let share = step as f64 / steps as f64;
            let lat = booking.pickup.lat + (booking.drop.lat - booking.pickup.lat) * share;
            let lng = booking.pickup.lng + (booking.drop.lng - booking.pickup.lng) * share;
            (booking.id.0, booking.tripdate + step as i64 * 30_000, "STARTED", lat, lng)
        })
        .collect()
}

macro_rules! insert_points {
    ($pool:expr, $points:expr, $per_statement:expr) => {{
        let mut tx = $pool.begin().await?;
        for chunk in $points.chunks($per_statement) {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(tracking_insert(chunk.len())));
            for (booking, at, status, lat, lng) in chunk {
                query = query.bind(*booking).bind(*at).bind(*status).bind(*lat).bind(*lng).bind(*at).bind(*at);
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
    }};
}

impl BenchStorage {
    /// Adds `per_booking` tracking points to each of the plan's bookings
    /// (the trips' tracks), in transactions of 10,000 rows.
    pub async fn fill_tracking(&self, plan: Plan, per_booking: u64) -> StorageResult<Duration> {
        let started = Instant::now();
        let bookings_per_batch = (BATCH / per_booking.max(1)).max(1);
        let (sender, mut receiver) = mpsc::channel::<Vec<Point>>(2);
        let generator = std::thread::spawn(move || {
            let mut start = 0;
            while start < plan.bookings {
                let end = (start + bookings_per_batch).min(plan.bookings);
                let points = (start..end).flat_map(|index| track(&plan, index, per_booking)).collect();
                if sender.blocking_send(points).is_err() {
                    return;
                }
                start = end;
            }
        });
        while let Some(points) = receiver.recv().await {
            match self {
                // SQLite looks bound names up linearly: keep statements small.
                BenchStorage::Sqlite(storage) => insert_points!(storage.pool(), points, 1_000 / TRACKING_VALUES),
                BenchStorage::Postgres(storage) => insert_points!(storage.pool(), points, 30_000 / TRACKING_VALUES),
            }
        }
        generator.join().expect("tracking generator");
        Ok(started.elapsed())
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Table {
    Users,
    Bookings,
}
