//! Durable storage for Wayfare behind one async [`Storage`] trait, with two
//! backends: SQLite (the embedded default, a WAL-mode file in the data
//! directory) and PostgreSQL (selected by a `postgres://` URL). Migrations are
//! embedded in the binary, one folder per backend, and applied at open.
//!
//! Domain types come from `wayfare-engine` and carry no sqlx derives; rows map
//! through wrapper types here. This crate stores and queries: it decides no
//! rule. A booking transition computed by the engine is written with
//! [`Bookings::commit_booking`] in one transaction, guarded by the booking's
//! version (compare-and-set), so two writers can never both win.

pub mod archive;
mod common;
mod error;
mod rollup;
mod traits;
mod types;

pub use error::{StorageError, StorageResult};
pub use traits::{
    Accounts, Archive, Bookings, Catalogue, Cluster, DispatchLogStore, Documents, Import, Ledger, Reports,
};
pub use types::*;

use std::sync::Arc;

/// Everything the product keeps: the one thing callers take, as an
/// `Arc<dyn Storage>` chosen at start from the configured URL. Its methods
/// are its parts', one trait per aggregate: [`Catalogue`], [`Accounts`],
/// [`Documents`], [`Bookings`], [`Ledger`], [`Reports`], [`DispatchLogStore`],
/// [`Cluster`], [`Archive`] and [`Import`]. Object safe, as each part is.
pub trait Storage:
    Catalogue + Accounts + Documents + Bookings + Ledger + Reports + DispatchLogStore + Cluster + Archive + Import + 'static
{
    /// Which database keeps it.
    fn backend(&self) -> Backend;
}

/// The parts of [`Storage`] and `Storage` itself, to call their methods on a
/// concrete store or a part: `use wayfare_storage::prelude::*`. (On an
/// `Arc<dyn Storage>` they are callable without it.)
pub mod prelude {
    pub use crate::Storage;
    pub use crate::traits::{
        Accounts, Archive, Bookings, Catalogue, Cluster, DispatchLogStore, Documents, Import, Ledger, Reports,
    };
}

/// Opens the storage a URL names: `postgres://…` (or `postgresql://`) for
/// PostgreSQL, `sqlite://PATH` or a plain file path for SQLite. Applies the
/// migrations before returning.
pub async fn open(url: &str) -> StorageResult<Arc<dyn Storage>> {
    open_at_schema(url, None).await
}

/// Opens the storage a URL names, as [`open`] does, with the migrations
/// applied only up to `schema_version` (all when `None`): an archive of an
/// older release is imported at its own schema, then
/// [`Archive::apply_migrations`] brings the database forward.
pub async fn open_at_schema(url: &str, schema_version: Option<i64>) -> StorageResult<Arc<dyn Storage>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let options: sqlx::postgres::PgConnectOptions = url.parse()?;
        Ok(Arc::new(postgres::PostgresStorage::connect_migrated_to(options, schema_version).await?))
    } else {
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        Ok(Arc::new(sqlite::SqliteStorage::open_migrated_to(std::path::Path::new(path), schema_version).await?))
    }
}

pub mod postgres;
pub mod sqlite;
