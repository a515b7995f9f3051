//! What both backends share that does not depend on which database runs it,
//! one module per concept. The queries themselves are in `sql/`, compiled
//! once per backend.
//!
//! - `money` — amounts as integer micro-units;
//! - `cursor` — keyset cursors and sort keys;
//! - `search` — the search text, the query syntax and the search plans;
//! - `builder` — [`builder::SqlBuilder`], SQL from static fragments with bound values;
//! - `dialect` — the [`dialect::Dialect`] contract each backend fills in;
//! - `columns` — the typed columns copied out of each document;
//! - `rows` — row wrapper types, so domain types carry no sqlx;
//! - `earnings` — the earnings query and the groups it returns;
//! - `write_gate` — turns for the write lock inside this process.

pub(crate) mod builder;
pub(crate) mod columns;
pub(crate) mod cursor;
pub(crate) mod dialect;
pub(crate) mod earnings;
pub(crate) mod money;
pub(crate) mod rows;
pub(crate) mod search;
pub(crate) mod write_gate;
