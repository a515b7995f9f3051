//! Bulk loads into empty tables (issue #38's first import): a table's
//! secondary indexes, SQLite's text-index triggers and PostgreSQL's foreign
//! keys are set aside inside the load's transaction and built once from the
//! loaded rows, which is much cheaper than keeping them row by row.

use super::{BACKEND, Conn, write_error};
use crate::error::StorageResult;
use crate::types::Backend;

/// What a bulk load into an empty table set aside, and the statements that
/// put it back: the table's secondary indexes (not those of its primary key
/// or unique constraints, which the upserts need); on SQLite the triggers
/// that keep an FTS5 index with the table as its content, whose index is
/// rebuilt from the table instead; on PostgreSQL the table's foreign keys,
/// checked once when added back. Read from the database itself, so an index
/// a later migration adds is covered.
pub(super) struct SetAside {
    restore: Vec<String>,
}

/// `name` as an SQL identifier (names come from the catalogue, and may hold
/// anything).
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Drops `table`'s secondary indexes and text-index triggers, in the
/// caller's transaction (both backends roll DDL back with it); see
/// [`SetAside`].
pub(super) async fn set_aside(conn: &mut Conn, table: &str) -> StorageResult<SetAside> {
    let mut drops = Vec::new();
    let mut restore = Vec::new();
    match BACKEND {
        Backend::Sqlite => {
            // `sql` is NULL for the indexes SQLite makes for PRIMARY KEY and UNIQUE.
            let indexes: Vec<(String, String)> = sqlx::query_as(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = $1 AND sql IS NOT NULL
                 ORDER BY name",
            )
            .bind(table)
            .fetch_all(&mut *conn)
            .await?;
            for (name, sql) in indexes {
                drops.push(format!("DROP INDEX {}", quoted(&name)));
                restore.push(sql);
            }
            let text_indexes: Vec<(String, String)> = sqlx::query_as(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'
                 ORDER BY name",
            )
            .fetch_all(&mut *conn)
            .await?;
            let content = format!("content='{table}'");
            let triggers: Vec<(String, String)> = sqlx::query_as(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = $1 ORDER BY name",
            )
            .bind(table)
            .fetch_all(&mut *conn)
            .await?;
            for (text_index, sql) in text_indexes {
                let compact: String = sql.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
                if !compact.contains(&content) {
                    continue;
                }
                let mentions = text_index.to_lowercase();
                for (name, sql) in triggers.iter().filter(|(_, sql)| sql.to_lowercase().contains(&mentions)) {
                    drops.push(format!("DROP TRIGGER {}", quoted(name)));
                    restore.push(sql.clone());
                }
                restore.push(format!("INSERT INTO {0} ({0}) VALUES ('rebuild')", quoted(&text_index)));
            }
        }
        Backend::Postgres => {
            // The table as the search path finds it; the names come back
            // schema-qualified and quoted.
            let indexes: Vec<(String, String)> = sqlx::query_as(
                "SELECT format('%I.%I', x.schemaname, x.indexname), x.indexdef
                 FROM pg_indexes x JOIN pg_class t ON t.relname = x.tablename
                 JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = x.schemaname
                 WHERE t.oid = $1::regclass
                   AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                                   WHERE c.conindid = format('%I.%I', x.schemaname, x.indexname)::regclass)
                 ORDER BY x.indexname",
            )
            .bind(table)
            .fetch_all(&mut *conn)
            .await?;
            if !indexes.is_empty() {
                // Memory to sort each index in, for this transaction only.
                restore.push("SET LOCAL maintenance_work_mem = '256MB'".to_string());
            }
            for (name, definition) in indexes {
                drops.push(format!("DROP INDEX {name}"));
                restore.push(definition);
            }
            // Foreign keys too: PostgreSQL checks one row at a time (a
            // trigger each), and adding the key back checks every row in one
            // join.
            let foreign_keys: Vec<(String, String)> = sqlx::query_as(
                "SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname),
                        format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname,
                               pg_get_constraintdef(oid))
                 FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f' ORDER BY conname",
            )
            .bind(table)
            .fetch_all(&mut *conn)
            .await?;
            for (drop, add) in foreign_keys {
                drops.push(drop);
                restore.push(add);
            }
        }
    }
    for statement in drops {
        sqlx::query(sqlx::AssertSqlSafe(statement)).execute(&mut *conn).await?;
    }
    Ok(SetAside { restore })
}

/// Builds what [`set_aside`] dropped, from the rows now in the table.
pub(super) async fn put_back(conn: &mut Conn, aside: SetAside) -> StorageResult<()> {
    for statement in aside.restore {
        sqlx::query(sqlx::AssertSqlSafe(statement)).execute(&mut *conn).await.map_err(write_error)?;
    }
    Ok(())
}

/// Page cache of SQLite's connection while a bulk load builds indexes (KiB):
/// each index is built by a scan of the table, which the load's transaction
/// holds in its cache or else in the WAL (read page by page).
const LOAD_CACHE_KIB: i64 = 1024 * 1024;

/// On SQLite, grows the connection's page cache for a bulk load; answers the
/// size to give back with [`restore_cache`] before the commit (which writes
/// the dirty pages out whatever the size). The cache only grows as pages are
/// read. Nothing on PostgreSQL.
pub(super) async fn grow_cache(conn: &mut Conn) -> StorageResult<Option<i64>> {
    if BACKEND != Backend::Sqlite {
        return Ok(None);
    }
    let before: i64 = sqlx::query_scalar("PRAGMA cache_size").fetch_one(&mut *conn).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA cache_size = -{LOAD_CACHE_KIB}"))).execute(&mut *conn).await?;
    Ok(Some(before))
}

pub(super) async fn restore_cache(conn: &mut Conn, before: Option<i64>) -> StorageResult<()> {
    if let Some(size) = before {
        sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA cache_size = {size}"))).execute(&mut *conn).await?;
    }
    Ok(())
}

/// True when none of `tables` has a row.
pub(super) async fn all_empty(conn: &mut Conn, tables: &[&str]) -> StorageResult<bool> {
    for table in tables {
        let any: bool =
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT EXISTS (SELECT 1 FROM {})", quoted(table))))
                .fetch_one(&mut *conn)
                .await?;
        if any {
            return Ok(false);
        }
    }
    Ok(true)
}
