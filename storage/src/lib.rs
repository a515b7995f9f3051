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

mod common;
mod error;
mod rollup;
mod traits;
mod types;

pub use error::{StorageError, StorageResult};
pub use traits::{Accounts, Bookings, Catalogue, Cluster, DispatchLogStore, Documents, Import, Ledger, Reports};
pub use types::*;

use std::sync::Arc;

/// Everything the product keeps: the one thing callers take, as an
/// `Arc<dyn Storage>` chosen at start from the configured URL. Its methods
/// are its parts', one trait per aggregate: [`Catalogue`], [`Accounts`],
/// [`Documents`], [`Bookings`], [`Ledger`], [`Reports`], [`DispatchLogStore`],
/// [`Cluster`] and [`Import`]. Object safe, as each part is.
pub trait Storage:
    Catalogue + Accounts + Documents + Bookings + Ledger + Reports + DispatchLogStore + Cluster + Import + 'static
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
        Accounts, Bookings, Catalogue, Cluster, DispatchLogStore, Documents, Import, Ledger, Reports,
    };
}

/// Opens the storage a URL names: `postgres://…` (or `postgresql://`) for
/// PostgreSQL, `sqlite://PATH` or a plain file path for SQLite. Applies the
/// migrations before returning.
pub async fn open(url: &str) -> StorageResult<Arc<dyn Storage>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PostgresStorage::connect(url).await?))
    } else {
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        Ok(Arc::new(sqlite::SqliteStorage::open(std::path::Path::new(path)).await?))
    }
}

pub mod postgres;
pub mod sqlite;
