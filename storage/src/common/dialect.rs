//! The [`Dialect`] contract: where the two backends' SQL differs (how a write
//! transaction starts, row locks, text search, how a unique violation names
//! its index). Everything else is one text for both.

use super::builder::SqlBuilder;
use super::search::{SearchQuery, SearchTable};

/// Counting SQL for the search planner, each counting up to a limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextCounts {
    /// Rows matching the text-index query `$1`, up to `$2`.
    pub documents: &'static str,
    /// Occurrences of words from `$1` (inclusive) to `$2` (exclusive), up to
    /// `$3`: at least the rows matching the prefix, read without merging.
    pub occurrences: &'static str,
}

/// Where the two backends' SQL differs. Everything else is one text.
pub(crate) trait Dialect {
    /// Starts a transaction that will write. SQLite takes the write lock at
    /// once (`BEGIN IMMEDIATE`) so a read followed by a write never fails on a
    /// stale snapshot; PostgreSQL locks rows as it goes.
    const BEGIN_WRITE: &'static str;
    /// Appended to a `SELECT` of rows the transaction will then update:
    /// ` FOR UPDATE` on PostgreSQL, nothing on SQLite (one writer at a time).
    const FOR_UPDATE: &'static str;
    /// Run first in a write transaction whose commit need not wait for the
    /// disk (see `begin_relaxed_write`): PostgreSQL turns the commit's flush
    /// off for that transaction; SQLite has no per-transaction switch, and
    /// uses a connection opened with `synchronous = NORMAL` instead.
    const RELAXED_COMMIT: Option<&'static str>;
    /// Bound values per statement of a bulk insert.
    const MAX_BINDS_PER_STATEMENT: usize;
    /// A bulk write binds its rows' values as plain `?` (`SqlBuilder::rows`),
    /// up to `MAX_ROW_BINDS` a statement.
    const ANONYMOUS_ROW_BINDS: bool;
    const MAX_ROW_BINDS: usize;
    /// Takes a script of several statements with bound values (numbered
    /// across the script) in one call: SQLite, whose sqlx driver steps
    /// through them on the connection's thread. PostgreSQL's extended
    /// protocol takes one statement per call.
    const SCRIPTS: bool;
    /// For a backend whose planner has no estimate of text matches (SQLite),
    /// the SQL the shared code counts with to choose a
    /// [`SearchPlan`](super::search::SearchPlan); `None` where the planner
    /// chooses (PostgreSQL).
    fn text_counts(table: SearchTable) -> Option<TextCounts>;
    /// The text-index query meaning exactly this search.
    fn index_text(query: &SearchQuery) -> String;
    /// Pushes `FROM <table> <alias> … WHERE <the text index matches $n>`.
    fn push_index_from(builder: &mut SqlBuilder, table: SearchTable, text: String);
    /// `yyyymm` of the local instant `l.local_s` (seconds since the epoch, or
    /// NULL), or NULL.
    const YEAR_MONTH_OF_LOCAL_SECONDS: &'static str;
    /// Which unique value a unique violation is about.
    fn duplicate_field(error: &dyn sqlx::error::DatabaseError) -> &'static str;
}

/// The name of the unique value an index or constraint guards.
pub(crate) fn unique_field(constraint_or_message: &str) -> &'static str {
    const FIELDS: [(&str, &str); 7] = [
        ("users_email", "email"),
        ("users.email", "email"),
        ("users_mobile", "mobile"),
        ("users.mobile", "mobile"),
        ("users_referral", "referral"),
        ("users.referral", "referral"),
        ("name", "name"),
    ];
    FIELDS.iter().find(|(needle, _)| constraint_or_message.contains(needle)).map(|(_, field)| *field).unwrap_or("id")
}
