//! [`Archive`]: the whole database streamed out table by table, and back
//! into an empty one in one transaction, generically: each table's columns
//! and their types come from the database's own catalogue (SQLite's
//! `pragma_table_xinfo`, PostgreSQL's `information_schema`), not from a
//! mapping per entity, so a new column is archived without a line here.
//!
//! Table names come from [`ARCHIVE_TABLES`] (static) and column names from
//! the catalogue, never from the archive: an archive's columns are matched
//! against the catalogue's, and only those names reach the SQL.

use super::{BACKEND, Conn, D, Db, Store, migrator, settle};
use crate::Archive;
use crate::archive::{
    ARCHIVE_TABLES, ArchiveColumn, ArchiveRow, ArchiveTable, ArchiveValue, ColumnKind, ExportItem, ImportItem,
    ImportSummary, is_backend_local,
};
use crate::common::dialect::Dialect;
use crate::error::{StorageError, StorageResult};
use crate::types::Backend;
use async_trait::async_trait;
use futures_util::TryStreamExt;
use serde_json::value::RawValue;
use sqlx::{AssertSqlSafe, Database, Row};
use tokio::sync::mpsc;
use tracing::instrument;

type DbRow = <Db as Database>::Row;
type Query = sqlx::query::Query<'static, Db, <Db as Database>::Arguments>;

/// A column as the catalogue reports it: name, declared type, whether it
/// may be left out of an insert, and its place in the primary key.
#[derive(Debug, Clone)]
struct CatalogColumn {
    name: String,
    declared: String,
    not_null: bool,
    has_default: bool,
    /// Computed by the database (PostgreSQL's `search_vector`): never written.
    generated: bool,
    /// `GENERATED ALWAYS AS IDENTITY` (PostgreSQL): written with
    /// `OVERRIDING SYSTEM VALUE`, its sequence moved past the rows after.
    identity: bool,
    /// 1-based position in the primary key, 0 when not in it.
    primary_key: i64,
}

/// The columns of `$1`, in their order, with `name`, declared type, NOT
/// NULL, has a default, generated, identity and primary-key position.
const CATALOG_COLUMNS: &str = match BACKEND {
    Backend::Sqlite => {
        "SELECT name, type, \"notnull\" <> 0, dflt_value IS NOT NULL, hidden <> 0, 0, pk \
         FROM pragma_table_xinfo($1) ORDER BY cid"
    }
    Backend::Postgres => {
        "SELECT c.column_name::text, c.data_type::text, c.is_nullable = 'NO', \
         c.column_default IS NOT NULL OR c.is_identity = 'YES', c.is_generated = 'ALWAYS', c.is_identity = 'YES', \
         COALESCE((SELECT array_position(i.indkey::int2[], a.attnum)::bigint \
                   FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid \
                   WHERE i.indrelid = to_regclass(c.table_name::text) AND i.indisprimary \
                   AND a.attname = c.column_name::text), 0) \
         FROM information_schema.columns c \
         WHERE c.table_schema = current_schema() AND c.table_name = $1 ORDER BY c.ordinal_position"
    }
};

/// A consistent snapshot for the whole export: SQLite's read transaction
/// sees the database as of its first read; PostgreSQL's REPEATABLE READ as
/// of its first statement.
const BEGIN_SNAPSHOT: &str = match BACKEND {
    Backend::Sqlite => "BEGIN",
    Backend::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
};

/// Identifiers reach SQL only from the catalogue and our list; quoted, and
/// refused if they hold anything but lowercase letters, digits and `_`.
fn quoted(identifier: &str) -> StorageResult<String> {
    let plain = !identifier.is_empty()
        && identifier.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_');
    if plain {
        Ok(format!("\"{identifier}\""))
    } else {
        Err(StorageError::Corrupt(format!("unexpected identifier {identifier:?}")))
    }
}

fn archive_error(message: impl Into<String>) -> StorageError {
    StorageError::Archive(message.into())
}

impl Store {
    async fn catalog_columns(&self, table: &str) -> StorageResult<Vec<CatalogColumn>> {
        let rows = sqlx::query(CATALOG_COLUMNS).bind(table).fetch_all(&self.pool).await?;
        let columns = rows
            .iter()
            .map(|row| {
                Ok(CatalogColumn {
                    name: row.try_get_unchecked(0)?,
                    declared: row.try_get_unchecked(1)?,
                    not_null: row.try_get_unchecked(2)?,
                    has_default: row.try_get_unchecked(3)?,
                    generated: row.try_get_unchecked(4)?,
                    identity: row.try_get_unchecked(5)?,
                    primary_key: row.try_get_unchecked(6)?,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        Ok(columns)
    }

    /// The archived tables this database has, with their catalogue: all of
    /// [`ARCHIVE_TABLES`] at the newest schema; fewer in a database migrated
    /// only to an older archive's schema.
    async fn present_tables(&self) -> StorageResult<Vec<(&'static str, Vec<CatalogColumn>)>> {
        let mut present = Vec::with_capacity(ARCHIVE_TABLES.len());
        for table in ARCHIVE_TABLES {
            let columns = self.catalog_columns(table).await?;
            if !columns.is_empty() {
                present.push((*table, columns));
            }
        }
        Ok(present)
    }
}

/// The archived columns of a table (backend-local and generated left
/// out) and the primary key's columns, in key order.
fn archive_table(table: &str, catalog: &[CatalogColumn]) -> StorageResult<(ArchiveTable, Vec<String>)> {
    let mut columns = Vec::new();
    for column in catalog {
        if column.generated || is_backend_local(table, &column.name) {
            continue;
        }
        let kind = ColumnKind::from_declared(&column.name, &column.declared).ok_or_else(|| {
            StorageError::Corrupt(format!("{table}.{} has a type an archive cannot hold", column.name))
        })?;
        // A key column is never NULL (SQLite does not say so of its rowid alias).
        let nullable = !column.not_null && column.primary_key == 0;
        columns.push(ArchiveColumn { name: column.name.clone(), kind, nullable });
    }
    let mut key: Vec<&CatalogColumn> = catalog.iter().filter(|column| column.primary_key > 0).collect();
    key.sort_by_key(|column| column.primary_key);
    let key = key.into_iter().map(|column| column.name.clone()).collect();
    Ok((ArchiveTable { name: table.to_string(), columns }, key))
}

/// `SELECT "a", CAST("n" AS BIGINT), … FROM "table" ORDER BY <key>`:
/// integers read as 64 bits whatever their declared width.
fn select_sql(table: &ArchiveTable, key: &[String]) -> StorageResult<String> {
    let mut columns = Vec::with_capacity(table.columns.len());
    for column in &table.columns {
        let name = quoted(&column.name)?;
        columns.push(match column.kind {
            ColumnKind::Integer => format!("CAST({name} AS BIGINT)"),
            _ => name,
        });
    }
    let mut sql = format!("SELECT {} FROM {}", columns.join(", "), quoted(&table.name)?);
    if !key.is_empty() {
        let key = key.iter().map(|column| quoted(column)).collect::<StorageResult<Vec<_>>>()?;
        sql.push_str(" ORDER BY ");
        sql.push_str(&key.join(", "));
    }
    Ok(sql)
}

fn decode(row: &DbRow, table: &ArchiveTable) -> StorageResult<ArchiveRow> {
    let mut values = Vec::with_capacity(table.columns.len());
    for (index, column) in table.columns.iter().enumerate() {
        let value = match column.kind {
            ColumnKind::Integer => row.try_get_unchecked::<Option<i64>, _>(index)?.map(ArchiveValue::Integer),
            ColumnKind::Real => row.try_get_unchecked::<Option<f64>, _>(index)?.map(ArchiveValue::Real),
            ColumnKind::Boolean => row.try_get_unchecked::<Option<bool>, _>(index)?.map(ArchiveValue::Boolean),
            ColumnKind::Text => row.try_get_unchecked::<Option<String>, _>(index)?.map(ArchiveValue::Text),
            ColumnKind::Uuid => row.try_get_unchecked::<Option<uuid::Uuid>, _>(index)?.map(ArchiveValue::Uuid),
            ColumnKind::Json => row
                .try_get_unchecked::<Option<sqlx::types::Json<Box<RawValue>>>, _>(index)?
                .map(|json| ArchiveValue::Json(json.0)),
        };
        values.push(value.unwrap_or(ArchiveValue::Null));
    }
    Ok(values)
}

/// Where an archive's table goes: the statement's start and, per archive
/// column, its kind here (`None`: a backend-local column dropped).
struct Target {
    name: String,
    insert: String,
    /// Per archive column: `Some(kind)` when written, `None` when dropped.
    columns: Vec<Option<ColumnKind>>,
    written: usize,
    identity: Vec<String>,
    rows: u64,
}

/// Matches an archive's table with this database's: same name, every
/// archived column here with the same kind, and every column here that the
/// archive lacks able to take its default.
fn target(table: &ArchiveTable, catalog: &[CatalogColumn]) -> StorageResult<Target> {
    let mut names = Vec::new();
    let mut columns = Vec::new();
    for column in &table.columns {
        let here = catalog.iter().find(|here| here.name == column.name && !here.generated);
        match here {
            Some(here) => {
                let kind = ColumnKind::from_declared(&here.name, &here.declared);
                if kind != Some(column.kind) {
                    return Err(archive_error(format!(
                        "{}.{} is {:?} in the archive but {} here",
                        table.name, column.name, column.kind, here.declared
                    )));
                }
                names.push(quoted(&here.name)?);
                columns.push(Some(column.kind));
            }
            None if is_backend_local(&table.name, &column.name) => columns.push(None),
            None => return Err(archive_error(format!("this database has no column {}.{}", table.name, column.name))),
        }
    }
    for here in catalog {
        let archived = table.columns.iter().any(|column| column.name == here.name);
        if !archived
            && !here.generated
            && here.not_null
            && !here.has_default
            && !is_backend_local(&table.name, &here.name)
        {
            return Err(archive_error(format!("the archive has no column {}.{}", table.name, here.name)));
        }
    }
    let identity: Vec<String> = catalog
        .iter()
        .filter(|here| here.identity && table.columns.iter().any(|column| column.name == here.name))
        .map(|here| here.name.clone())
        .collect();
    let overriding = if identity.is_empty() { "" } else { " OVERRIDING SYSTEM VALUE" };
    let insert = format!("INSERT INTO {} ({}){overriding} VALUES ", quoted(&table.name)?, names.join(", "));
    Ok(Target { name: table.name.clone(), insert, written: names.len(), columns, identity, rows: 0 })
}

/// Binds a value as its column's type (a NULL typed too: PostgreSQL wants
/// the parameter's type to match the column's).
fn bind(query: Query, kind: ColumnKind, value: ArchiveValue) -> StorageResult<Query> {
    Ok(match (kind, value) {
        (ColumnKind::Integer, ArchiveValue::Integer(value)) => query.bind(value),
        (ColumnKind::Integer, ArchiveValue::Null) => query.bind(None::<i64>),
        (ColumnKind::Real, ArchiveValue::Real(value)) => query.bind(value),
        (ColumnKind::Real, ArchiveValue::Integer(value)) => query.bind(value as f64),
        (ColumnKind::Real, ArchiveValue::Null) => query.bind(None::<f64>),
        (ColumnKind::Boolean, ArchiveValue::Boolean(value)) => query.bind(value),
        (ColumnKind::Boolean, ArchiveValue::Null) => query.bind(None::<bool>),
        (ColumnKind::Text, ArchiveValue::Text(value)) => query.bind(value),
        (ColumnKind::Text, ArchiveValue::Null) => query.bind(None::<String>),
        (ColumnKind::Uuid, ArchiveValue::Uuid(value)) => query.bind(value),
        (ColumnKind::Uuid, ArchiveValue::Null) => query.bind(None::<uuid::Uuid>),
        (ColumnKind::Json, ArchiveValue::Json(value)) => query.bind(value),
        (ColumnKind::Json, ArchiveValue::Null) => query.bind(None::<Box<RawValue>>),
        (kind, value) => return Err(archive_error(format!("a {kind:?} column cannot hold {value:?}"))),
    })
}

/// Inserts a batch as multi-row statements, as many rows per statement as
/// the backend's bound-value limit allows.
async fn insert_rows(conn: &mut Conn, target: &mut Target, rows: Vec<ArchiveRow>) -> StorageResult<()> {
    let per_statement = (D::MAX_ROW_BINDS / target.written.max(1)).max(1);
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let chunk: Vec<ArchiveRow> = rows.by_ref().take(per_statement).collect();
        let mut sql = String::with_capacity(target.insert.len() + chunk.len() * target.written * 6);
        sql.push_str(&target.insert);
        let mut placeholder = 0;
        for (index, row) in chunk.iter().enumerate() {
            if row.len() != target.columns.len() {
                return Err(archive_error(format!(
                    "a row of {} has {} values for {} columns",
                    target.name,
                    row.len(),
                    target.columns.len()
                )));
            }
            sql.push_str(if index == 0 { "(" } else { ", (" });
            for written in 0..target.written {
                placeholder += 1;
                if written > 0 {
                    sql.push_str(", ");
                }
                // Bound in order; see `SqlBuilder::rows` for why SQLite's are plain.
                if D::ANONYMOUS_ROW_BINDS {
                    sql.push('?');
                } else {
                    sql.push('$');
                    sql.push_str(&placeholder.to_string());
                }
            }
            sql.push(')');
        }
        let count = chunk.len() as u64;
        let mut query: Query = sqlx::query(AssertSqlSafe(sql));
        for row in chunk {
            for (kind, value) in target.columns.iter().zip(row) {
                if let Some(kind) = kind {
                    query = bind(query, *kind, value)?;
                }
            }
        }
        query.execute(&mut *conn).await.map_err(|error| match &error {
            sqlx::Error::Database(database) => archive_error(format!("{}: {}", target.name, database.message())),
            _ => StorageError::Database(error),
        })?;
        target.rows += count;
    }
    Ok(())
}

/// Which of `tables` have rows, read on `conn`.
async fn tables_with_rows(conn: &mut Conn, tables: &[&str]) -> StorageResult<Vec<String>> {
    let mut found = Vec::new();
    for table in tables {
        let sql = format!("SELECT COUNT(*) FROM (SELECT 1 FROM {} LIMIT 1) t", quoted(table)?);
        let rows: i64 = sqlx::query_scalar(AssertSqlSafe(sql)).fetch_one(&mut *conn).await?;
        if rows > 0 {
            found.push(table.to_string());
        }
    }
    Ok(found)
}

/// The import's work inside its transaction.
async fn import_into(
    conn: &mut Conn,
    catalog: &[(&'static str, Vec<CatalogColumn>)],
    input: &mut mpsc::Receiver<ImportItem>,
) -> StorageResult<ImportSummary> {
    let names: Vec<&str> = catalog.iter().map(|(name, _)| *name).collect();
    let holding = tables_with_rows(conn, &names).await?;
    if !holding.is_empty() {
        return Err(archive_error(format!(
            "the database is not empty ({} hold rows): import into a new, empty database",
            holding.join(", ")
        )));
    }
    let mut done: Vec<Target> = Vec::new();
    let mut current: Option<Target> = None;
    loop {
        match input.recv().await {
            Some(ImportItem::Table(table)) => {
                let Some(position) = catalog.iter().position(|(name, _)| *name == table.name) else {
                    return Err(archive_error(format!("this database archives no table {}", table.name)));
                };
                if done.iter().chain(current.as_ref()).any(|target| target.name == table.name) {
                    return Err(archive_error(format!("the archive holds {} twice", table.name)));
                }
                done.extend(current.take());
                current = Some(target(&table, &catalog[position].1)?);
            }
            Some(ImportItem::Rows(rows)) => {
                let Some(target) = current.as_mut() else {
                    return Err(archive_error("rows before their table"));
                };
                insert_rows(conn, target, rows).await?;
            }
            Some(ImportItem::Commit) => break,
            None => return Err(archive_error("the archive ended before it was all read")),
        }
    }
    done.extend(current.take());
    for target in &done {
        for column in &target.identity {
            // The next generated value follows the imported ones.
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence('{table}', '{column}'), COALESCE(MAX({quoted_column}), 0) + 1, false) FROM {quoted_table}",
                table = target.name,
                column = column,
                quoted_column = quoted(column)?,
                quoted_table = quoted(&target.name)?,
            );
            sqlx::query(AssertSqlSafe(sql)).execute(&mut *conn).await?;
        }
    }
    // The roll-ups are not archived: rebuilt from the bookings at the next
    // `prepare_earnings_rollup` (the import command's, or the server's start).
    sqlx::query("UPDATE earnings_rollup SET built = FALSE").execute(&mut *conn).await?;
    Ok(ImportSummary { tables: done.into_iter().map(|target| (target.name, target.rows)).collect() })
}

#[async_trait]
impl Archive for Store {
    async fn schema_version(&self) -> StorageResult<i64> {
        let version: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success").fetch_one(&self.pool).await?;
        Ok(version.unwrap_or(0))
    }

    async fn archive_tables(&self) -> StorageResult<Vec<ArchiveTable>> {
        let present = self.present_tables().await?;
        present.iter().map(|(table, catalog)| Ok(archive_table(table, catalog)?.0)).collect()
    }

    #[instrument(skip_all)]
    async fn export_archive(&self, batch_rows: usize, out: mpsc::Sender<ExportItem>) -> StorageResult<()> {
        let mut plans = Vec::with_capacity(ARCHIVE_TABLES.len());
        for (table, catalog) in self.present_tables().await? {
            let (table, key) = archive_table(table, &catalog)?;
            let sql = select_sql(&table, &key)?;
            plans.push((table, sql));
        }
        let gone = || archive_error("the archive's writer stopped");
        let mut tx = self.pool.begin_with(BEGIN_SNAPSHOT).await?;
        for (table, sql) in plans {
            out.send(ExportItem::Table(table.clone())).await.map_err(|_| gone())?;
            let mut rows = sqlx::query(AssertSqlSafe(sql)).fetch(&mut *tx);
            let mut batch = Vec::with_capacity(batch_rows);
            while let Some(row) = rows.try_next().await? {
                batch.push(decode(&row, &table)?);
                if batch.len() >= batch_rows {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(batch_rows));
                    out.send(ExportItem::Rows(full)).await.map_err(|_| gone())?;
                }
            }
            if !batch.is_empty() {
                out.send(ExportItem::Rows(batch)).await.map_err(|_| gone())?;
            }
        }
        tx.rollback().await?;
        Ok(())
    }

    async fn apply_migrations(&self) -> StorageResult<()> {
        migrator(None).run(&self.pool).await?;
        Ok(())
    }

    async fn tables_with_rows(&self) -> StorageResult<Vec<String>> {
        let present = self.present_tables().await?;
        let names: Vec<&str> = present.iter().map(|(name, _)| *name).collect();
        let mut conn = self.pool.acquire().await?;
        tables_with_rows(&mut conn, &names).await
    }

    #[instrument(skip_all)]
    async fn import_archive(&self, mut input: mpsc::Receiver<ImportItem>) -> StorageResult<ImportSummary> {
        let catalog = self.present_tables().await?;
        let (_turn, mut tx) = self.begin_write().await?;
        let work = import_into(&mut tx, &catalog, &mut input).await;
        settle(tx, work).await
    }
}
