//! What a portable archive of the whole database holds (`wayfare export`,
//! `wayfare import wayfare`), as plain data: which tables, in which order,
//! their columns with a portable type each, and the values. The file format
//! (a zip of NDJSON files and a manifest) is the http crate's; this module
//! only says what the rows are, so the backends can read and write them
//! generically, one column list per table read from the database itself.
//!
//! Both backends have the same tables and columns (the migrations are kept
//! in step; `storage/tests/archive.rs` checks it against the catalogues),
//! except for [`BACKEND_LOCAL_COLUMNS`], which an archive leaves out.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use uuid::Uuid;

/// The tables an archive holds, parents before children (every foreign
/// key points to a table earlier in the list), so an import inserts them
/// in this order with the foreign keys checked as it goes.
pub const ARCHIVE_TABLES: &[&str] = &[
    "settings",
    "car_types",
    "cancel_reasons",
    "payment_providers",
    "promos",
    "notifications",
    "languages",
    "users",
    "bookings",
    "booking_offers",
    "promo_uses",
    "wallet_entries",
    "withdraws",
    "tracking_points",
    "chat_messages",
    "dispatch_events",
    "sos_alerts",
    "files",
    "driver_documents",
    "driver_positions",
    "sessions",
    "user_identities",
    "payments",
    "refunds",
    "receipt_mails",
    "payment_gateways",
    "payment_gateway_changes",
    "imported_records",
];

/// Tables an archive leaves out, and why: derived ones are rebuilt from the
/// archived rows, transient ones mean nothing on another database.
pub const SKIPPED_TABLES: &[(&str, &str)] = &[
    ("earnings_months", "derived: the monthly earnings roll-up, rebuilt from the bookings after an import"),
    ("dashboard_earnings", "derived: the dashboard's roll-up, rebuilt from the bookings after an import"),
    ("earnings_rollup", "derived: the roll-ups' offset and built flag; an import marks them to rebuild"),
    ("leases", "transient: which cluster node serves what, retaken by the nodes that run"),
    (
        "otp_challenges",
        "transient: one-time sign-in codes, valid minutes; their hashes of six digits do not belong in a backup",
    ),
    ("oauth_attempts", "transient: social sign-in round trips, single use, valid minutes"),
];

/// Columns one backend has for itself, left out of archives: SQLite's
/// `seq` rowids that its FTS5 indexes point at (an import assigns new ones).
/// Generated columns (PostgreSQL's `search_vector`) are left out as such.
pub const BACKEND_LOCAL_COLUMNS: &[(&str, &str)] = &[("users", "seq"), ("bookings", "seq")];

/// Columns kept as JSON: JSONB on PostgreSQL, TEXT holding JSON on SQLite
/// (whose declared type cannot say so).
const JSON_COLUMNS: &[&str] = &["doc", "fields", "changed", "extra"];

/// Whether an archive carries this table's column.
pub fn is_backend_local(table: &str, column: &str) -> bool {
    BACKEND_LOCAL_COLUMNS.iter().any(|(local_table, local_column)| *local_table == table && *local_column == column)
}

/// A column's portable type: how its values are written in an archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnKind {
    /// A 64-bit integer (times are milliseconds since the epoch, money is
    /// micro-units).
    Integer,
    /// A double.
    Real,
    Boolean,
    Text,
    /// A UUID, written as its hyphenated text.
    Uuid,
    /// A JSON document, written as JSON.
    Json,
}

impl ColumnKind {
    /// The kind of a column by its declared SQL type, or `None` for a type
    /// an archive cannot carry.
    pub fn from_declared(column: &str, declared: &str) -> Option<ColumnKind> {
        let declared = declared.to_ascii_lowercase();
        Some(match declared.as_str() {
            "integer" | "bigint" | "int" | "int8" | "int4" | "smallint" => ColumnKind::Integer,
            "real" | "double precision" | "float8" => ColumnKind::Real,
            "boolean" | "bool" => ColumnKind::Boolean,
            "blob" | "uuid" => ColumnKind::Uuid,
            "jsonb" | "json" => ColumnKind::Json,
            "text" if JSON_COLUMNS.contains(&column) => ColumnKind::Json,
            "text" => ColumnKind::Text,
            _ => return None,
        })
    }
}

/// One column of an archived table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveColumn {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ColumnKind,
    pub nullable: bool,
}

/// An archived table with its columns, in the order its rows give values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveTable {
    pub name: String,
    pub columns: Vec<ArchiveColumn>,
}

/// One value of a row.
#[derive(Debug, Clone)]
pub enum ArchiveValue {
    Null,
    Integer(i64),
    Real(f64),
    Boolean(bool),
    Text(String),
    Uuid(Uuid),
    Json(Box<RawValue>),
}

impl PartialEq for ArchiveValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ArchiveValue::Null, ArchiveValue::Null) => true,
            (ArchiveValue::Integer(a), ArchiveValue::Integer(b)) => a == b,
            (ArchiveValue::Real(a), ArchiveValue::Real(b)) => a.to_bits() == b.to_bits(),
            (ArchiveValue::Boolean(a), ArchiveValue::Boolean(b)) => a == b,
            (ArchiveValue::Text(a), ArchiveValue::Text(b)) => a == b,
            (ArchiveValue::Uuid(a), ArchiveValue::Uuid(b)) => a == b,
            (ArchiveValue::Json(a), ArchiveValue::Json(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

/// A row's values, in its table's column order.
pub type ArchiveRow = Vec<ArchiveValue>;

/// What an export sends, in order: each table, then its rows in batches.
#[derive(Debug)]
pub enum ExportItem {
    Table(ArchiveTable),
    Rows(Vec<ArchiveRow>),
}

/// What an import receives, in order: each table as the archive has it,
/// then its rows in batches, and `Commit` once everything was read and
/// verified. An input that ends without `Commit` is rolled back.
#[derive(Debug)]
pub enum ImportItem {
    Table(ArchiveTable),
    Rows(Vec<ArchiveRow>),
    Commit,
}

/// How many rows an import wrote, per table, in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    pub tables: Vec<(String, u64)>,
}

/// The embedded migrations up to `schema_version` (all when `None`). A
/// database already migrated further keeps its newer migrations (they are
/// not "missing"): the import then finds a newer schema than the archive's
/// and refuses.
pub(crate) fn migrations_up_to(
    migrator: sqlx::migrate::Migrator,
    schema_version: Option<i64>,
) -> sqlx::migrate::Migrator {
    let Some(schema_version) = schema_version else { return migrator };
    let migrations: Vec<sqlx::migrate::Migration> =
        migrator.migrations.iter().filter(|migration| migration.version <= schema_version).cloned().collect();
    sqlx::migrate::Migrator { migrations: migrations.into(), ignore_missing: true, ..migrator }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_to_portable_kinds() {
        assert_eq!(ColumnKind::from_declared("id", "BLOB"), Some(ColumnKind::Uuid));
        assert_eq!(ColumnKind::from_declared("id", "uuid"), Some(ColumnKind::Uuid));
        assert_eq!(ColumnKind::from_declared("doc", "TEXT"), Some(ColumnKind::Json));
        assert_eq!(ColumnKind::from_declared("doc", "jsonb"), Some(ColumnKind::Json));
        assert_eq!(ColumnKind::from_declared("email", "TEXT"), Some(ColumnKind::Text));
        assert_eq!(ColumnKind::from_declared("lat", "double precision"), Some(ColumnKind::Real));
        assert_eq!(ColumnKind::from_declared("lat", "REAL"), Some(ColumnKind::Real));
        assert_eq!(ColumnKind::from_declared("approved", "BOOLEAN"), Some(ColumnKind::Boolean));
        assert_eq!(ColumnKind::from_declared("seq", "INTEGER"), Some(ColumnKind::Integer));
        assert_eq!(ColumnKind::from_declared("search_vector", "tsvector"), None);
    }

    #[test]
    fn no_table_is_both_archived_and_skipped() {
        for (skipped, _) in SKIPPED_TABLES {
            assert!(!ARCHIVE_TABLES.contains(skipped), "{skipped}");
        }
        let mut names: Vec<&str> = ARCHIVE_TABLES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ARCHIVE_TABLES.len(), "a table listed twice");
    }
}
