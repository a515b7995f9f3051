//! The [`Storage`] implementation, written once for both backends, one file
//! per part.
//!
//! This folder is compiled twice: `sqlite.rs` and `postgres.rs` each declare
//! `#[path = "sql/mod.rs"] mod sql;`, and in each copy `super::Db` is that
//! backend's `sqlx::Database`, `super::Store` its storage type (which holds
//! `pool: Pool<Db>`) and `super::BackendDialect` its
//! [`Dialect`](crate::common::dialect::Dialect). The SQL here is the same
//! text on both (`$n` placeholders, `ON CONFLICT`, `RETURNING` and row values
//! work on SQLite and PostgreSQL alike); what really differs (text search, row
//! locks, how a write transaction starts, how a unique violation names its
//! index) comes from the dialect.
//!
//! Every write that must be atomic runs in one transaction; reads go to the
//! pool. This file holds what every part uses: running a built statement,
//! turning constraint violations into errors, and the write turn each write
//! takes. Then one file per part of the trait (`catalogue`, `accounts`,
//! `documents`, `bookings`, `ledger`, `reports`, `dispatch_log`, `cluster`,
//! `archive`, `import`),
//! and what several parts share: `lists` (keyset pages and search plans),
//! `commit` (a booking's write path) and `earnings_rollup` (the roll-ups a
//! commit keeps and the reports read).

mod accounts;
mod archive;
mod bookings;
mod bulk_load;
mod catalogue;
mod cluster;
mod commit;
mod dispatch_log;
mod documents;
mod earnings_rollup;
mod import;
mod ledger;
mod lists;
mod reports;

use super::{BACKEND, BackendDialect as D, Db, Store, migrator};
use crate::Storage;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::dialect::Dialect;
use crate::common::write_gate::WriteTurn;
use crate::error::{StorageError, StorageResult};
use crate::types::Backend;
use sqlx::{AssertSqlSafe, Database, FromRow};

type Conn = <Db as Database>::Connection;
type Query = sqlx::query::Query<'static, Db, <Db as Database>::Arguments>;

/// Turns a built statement into a query with its values bound.
fn built(builder: SqlBuilder) -> Query {
    let mut query = sqlx::query(AssertSqlSafe(builder.sql));
    for value in builder.binds {
        query = match value {
            Bind::Uuid(value) => query.bind(value),
            Bind::OptUuid(value) => query.bind(value),
            Bind::Int(value) => query.bind(value),
            Bind::Bool(value) => query.bind(value),
            Bind::Text(value) => query.bind(value),
            Bind::OptText(value) => query.bind(value),
            Bind::OptFloat(value) => query.bind(value),
            Bind::OptInt(value) => query.bind(value),
            Bind::Json(value) => query.bind(value),
        };
    }
    query
}

/// Runs a built statement and decodes each row as `T`.
async fn fetch_all<'e, T, E>(executor: E, builder: SqlBuilder) -> StorageResult<Vec<T>>
where
    T: for<'r> FromRow<'r, <Db as Database>::Row> + Send + Unpin,
    E: sqlx::Executor<'e, Database = Db>,
{
    let rows = built(builder).fetch_all(executor).await?;
    rows.iter().map(|row| T::from_row(row).map_err(StorageError::from)).collect()
}

/// Turns the constraint violations of a write into our errors: a taken
/// unique value is `Duplicate`, a missing parent row `NotFound`.
pub(super) fn write_error(error: sqlx::Error) -> StorageError {
    if let sqlx::Error::Database(database_error) = &error {
        if database_error.is_unique_violation() {
            return StorageError::Duplicate(D::duplicate_field(database_error.as_ref()));
        }
        if database_error.is_foreign_key_violation() {
            return StorageError::NotFound;
        }
    }
    StorageError::Database(error)
}

fn json<T: serde::Serialize>(value: &T) -> StorageResult<Bind> {
    let raw = serde_json::value::to_raw_value(value).map_err(|error| StorageError::Corrupt(error.to_string()))?;
    Ok(Bind::Json(raw))
}

fn found<T>(value: Option<T>) -> StorageResult<T> {
    value.ok_or(StorageError::NotFound)
}

fn must_affect(rows_affected: u64) -> StorageResult<()> {
    if rows_affected == 0 { Err(StorageError::NotFound) } else { Ok(()) }
}

/// Appends `($a, $b, …)` binding the values.
fn push_row(builder: &mut SqlBuilder, values: impl IntoIterator<Item = Bind>) {
    builder.push("(");
    for (index, value) in values.into_iter().enumerate() {
        if index > 0 {
            builder.push(", ");
        }
        builder.bind(value);
    }
    builder.push(")");
}

/// Appends ` AND <column> IN ($a, $b, …)`; nothing for an empty list.
fn push_in(builder: &mut SqlBuilder, column: &'static str, values: impl IntoIterator<Item = Bind>) {
    let mut values = values.into_iter().peekable();
    if values.peek().is_none() {
        return;
    }
    builder.push(" AND ").push(column).push(" IN (");
    let mut first = true;
    for value in values {
        if !first {
            builder.push(", ");
        }
        first = false;
        builder.bind(value);
    }
    builder.push(")");
}

/// Runs `rows` through a multi-row insert, as many rows per statement as the
/// bound-value limit allows.
async fn insert_in_chunks<T>(
    conn: &mut Conn,
    start: &'static str,
    values_per_row: usize,
    rows: &[T],
    push_row: impl Fn(&mut SqlBuilder, &T) -> StorageResult<()>,
) -> StorageResult<()> {
    let rows_per_statement = (D::MAX_ROW_BINDS / values_per_row).max(1);
    for chunk in rows.chunks(rows_per_statement) {
        let mut builder = SqlBuilder::rows(start, D::ANONYMOUS_ROW_BINDS);
        for (index, row) in chunk.iter().enumerate() {
            if index > 0 {
                builder.push(", ");
            }
            push_row(&mut builder, row)?;
        }
        built(builder).execute(&mut *conn).await.map_err(write_error)?;
    }
    Ok(())
}

/// Commits a write transaction whose work succeeded; otherwise rolls it back
/// and waits for that before the caller's write turn ends. (A dropped SQLite
/// transaction only queues its rollback, so the next writer could find the
/// database still locked and sleep in SQLite's busy handler.)
async fn settle<T>(tx: sqlx::Transaction<'static, Db>, work: StorageResult<T>) -> StorageResult<T> {
    match work {
        Ok(value) => {
            tx.commit().await?;
            Ok(value)
        }
        Err(error) => {
            if let Err(rollback) = tx.rollback().await {
                tracing::warn!(%rollback, "rollback failed");
            }
            Err(error)
        }
    }
}

/// A pooled connection for one write outside a transaction, held with the
/// process's write turn (see
/// [`WriteGate`](crate::common::write_gate::WriteGate)). The connection goes
/// back first.
struct WriteConn {
    conn: sqlx::pool::PoolConnection<Db>,
    _turn: WriteTurn,
}

impl std::ops::Deref for WriteConn {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        &self.conn
    }
}

impl std::ops::DerefMut for WriteConn {
    fn deref_mut(&mut self) -> &mut Conn {
        &mut self.conn
    }
}

/// A connection running a script that begins and ends its own transaction,
/// which sqlx does not track: a script cut short (an error, or its caller
/// gone mid-call) is rolled back, and when that cannot be confirmed the
/// connection is closed, which rolls it back, instead of going back to the
/// pool inside a transaction.
pub(super) struct ScriptConn {
    pub(super) conn: sqlx::pool::PoolConnection<Db>,
    /// The script's transaction may still be open.
    pub(super) open: bool,
}

impl ScriptConn {
    async fn roll_back(&mut self) {
        if sqlx::query("ROLLBACK").execute(&mut *self.conn).await.is_ok() {
            self.open = false;
        }
    }
}

impl Drop for ScriptConn {
    fn drop(&mut self) {
        if self.open {
            self.conn.close_on_drop();
        }
    }
}

impl Store {
    /// A write transaction begun in turn (see
    /// [`WriteGate`](crate::common::write_gate::WriteGate)). Bind the turn
    /// first (`let (_turn, mut tx)`) so it is let go after the transaction.
    async fn begin_write(&self) -> StorageResult<(WriteTurn, sqlx::Transaction<'static, Db>)> {
        let turn = self.writes.turn().await;
        let tx = self.pool.begin_with(D::BEGIN_WRITE).await?;
        Ok((turn, tx))
    }

    /// A write transaction whose commit does not wait for the disk, for
    /// writes that acknowledge nothing to anyone: last-known positions and
    /// the write-behind dispatch log. The process dying loses none of it (it
    /// is in the OS's cache); a power cut may lose the last moments until the
    /// next durable commit, which flushes everything before it. Their fsyncs
    /// were most of the commits' and held the write turn a booking waits for.
    async fn begin_relaxed_write(&self) -> StorageResult<(WriteTurn, sqlx::Transaction<'static, Db>)> {
        let turn = self.writes.turn().await;
        let mut tx = self.relaxed.begin_with(D::BEGIN_WRITE).await?;
        if let Some(statement) = D::RELAXED_COMMIT {
            sqlx::query(statement).execute(&mut *tx).await?;
        }
        Ok((turn, tx))
    }

    /// A connection for one statement that writes, in turn.
    async fn write_conn(&self) -> StorageResult<WriteConn> {
        let turn = self.writes.turn().await;
        let conn = self.pool.acquire().await?;
        Ok(WriteConn { conn, _turn: turn })
    }

    /// Refreshes the planner's statistics (after a bulk load).
    pub async fn analyze(&self) -> StorageResult<()> {
        sqlx::query("ANALYZE").execute(&mut *self.write_conn().await?).await?;
        Ok(())
    }
}

impl Storage for Store {
    fn backend(&self) -> Backend {
        BACKEND
    }
}
