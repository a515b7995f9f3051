//! One page of a list: keyset pagination (a page is an index seek from the
//! last row of the previous one; `limit + 1` rows are read to know whether
//! there is a next page) and, with a search, the plan that picks the page's
//! ids: from the text index, by walking the sort order, or a bounded walk
//! first.

use super::{D, Db, Store, fetch_all};
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::cursor::{SortKind, SortValue, decode_sort_cursor, order_fragments};
use crate::common::dialect::Dialect;
use crate::common::search::{
    SEARCH_INDEX_LIMIT, SEARCH_SCAN_CAP, SearchPlan, SearchQuery, SearchTable, is_short_word, prefix_range_end,
};
use crate::error::StorageResult;
use crate::types::{Page, SortOrder};
use sqlx::{Database, FromRow};

/// Splits `limit + 1` fetched rows into a page and the next cursor.
pub(super) fn page_of<T>(mut items: Vec<T>, limit: u32, cursor_of: impl Fn(&T) -> String) -> Page<T> {
    let limit = limit as usize;
    let next = if items.len() > limit {
        items.truncate(limit);
        items.last().map(cursor_of)
    } else {
        None
    };
    Page { items, next }
}

/// Appends `AND (<sort>, <id>) < ($a, $b)` (or `>` ascending) for a cursor.
pub(super) fn push_keyset(
    builder: &mut SqlBuilder,
    sort_column: &'static str,
    id_column: &'static str,
    order: SortOrder,
    after: Option<&str>,
) -> StorageResult<()> {
    push_keyset_of(builder, sort_column, SortKind::Int, id_column, order, after)
}

/// [`push_keyset`] for a sort column of either kind.
fn push_keyset_of(
    builder: &mut SqlBuilder,
    sort_column: &'static str,
    kind: SortKind,
    id_column: &'static str,
    order: SortOrder,
    after: Option<&str>,
) -> StorageResult<()> {
    if let Some(cursor) = after {
        let (sort_value, id) = decode_sort_cursor(cursor, kind)?;
        let sort_value = match sort_value {
            SortValue::Int(number) => Bind::Int(number),
            SortValue::Text(text) => Bind::Text(text),
        };
        let (comparison, _) = order_fragments(order);
        builder.push(" AND (").push(sort_column).push(", ").push(id_column).push(")").push(comparison);
        builder.push_bind("(", sort_value).push_bind(", ", Bind::Uuid(id)).push(")");
    }
    Ok(())
}

/// Appends `ORDER BY <sort> <dir>, <id> <dir>`.
fn push_order(builder: &mut SqlBuilder, sort_column: &'static str, id_column: &'static str, order: SortOrder) {
    let (_, direction) = order_fragments(order);
    builder.push(" ORDER BY ").push(sort_column).push(direction).push(", ").push(id_column).push(direction);
}

/// Appends `ORDER BY <sort> <dir>, <id> <dir> LIMIT $n` reading one row more
/// than the page.
pub(super) fn push_order_limit(
    builder: &mut SqlBuilder,
    sort_column: &'static str,
    id_column: &'static str,
    order: SortOrder,
    limit: u32,
) {
    push_order(builder, sort_column, id_column, order);
    builder.push_bind(" LIMIT ", Bind::Int(i64::from(limit) + 1));
}

/// One page of a list: the table, the columns read for each row, the sort.
pub(super) struct ListSpec<'a> {
    pub(super) table: SearchTable,
    pub(super) columns: &'static str,
    pub(super) sort_column: &'static str,
    pub(super) sort_kind: SortKind,
    pub(super) order: SortOrder,
    pub(super) limit: u32,
    pub(super) after: Option<&'a str>,
}

/// How a page's ids are chosen.
enum Pick<'a> {
    /// No search: the list's own index.
    All,
    /// The text index's matches of `text`, sorted; `verify` re-tests the words.
    Index { query: &'a SearchQuery, text: String, verify: bool },
    /// The list's own order, testing each row's words.
    Scan { query: &'a SearchQuery },
    /// As `Scan`, within the first [`SEARCH_SCAN_CAP`] rows of the order.
    CappedScan { query: &'a SearchQuery },
}

/// Appends ` AND (' ' || <text>) LIKE '% word%'` for each word: each word
/// starts a word of the search text, as the text indexes mean it.
fn push_words(builder: &mut SqlBuilder, text_column: &'static str, query: &SearchQuery) {
    for pattern in query.like_patterns() {
        builder.push(" AND (' ' || ").push(text_column).push_bind(") LIKE ", Bind::Text(pattern));
    }
}

/// Pushes `SELECT <id> AS pick_id, <sort> AS pick_sort FROM … LIMIT n + 1`,
/// the ids of one page.
fn push_pick(
    builder: &mut SqlBuilder,
    list: &ListSpec<'_>,
    filters: &(dyn Fn(&mut SqlBuilder) + Sync),
    pick: Pick<'_>,
) -> StorageResult<()> {
    let table = list.table;
    if let Pick::CappedScan { query } = pick {
        builder.push("SELECT pick_id, pick_sort FROM (SELECT ").push(table.id()).push(" AS pick_id, ");
        builder.push(list.sort_column).push(" AS pick_sort, ").push(table.search_text()).push(" AS pick_text FROM ");
        builder.push(table.from()).push(" WHERE TRUE");
        filters(builder);
        push_keyset_of(builder, list.sort_column, list.sort_kind, table.id(), list.order, list.after)?;
        push_order(builder, list.sort_column, table.id(), list.order);
        builder.push_bind(" LIMIT ", Bind::Int(SEARCH_SCAN_CAP)).push(") capped WHERE TRUE");
        push_words(builder, "pick_text", query);
        push_order(builder, "pick_sort", "pick_id", list.order);
        builder.push_bind(" LIMIT ", Bind::Int(i64::from(list.limit) + 1));
        return Ok(());
    }
    builder.push("SELECT ").push(table.id()).push(" AS pick_id, ").push(list.sort_column).push(" AS pick_sort FROM ");
    match pick {
        Pick::All | Pick::CappedScan { .. } => {
            builder.push(table.from()).push(" WHERE TRUE");
        }
        Pick::Index { query, text, verify } => {
            D::push_index_from(builder, table, text);
            if verify {
                push_words(builder, table.search_text(), query);
            }
        }
        Pick::Scan { query } => {
            builder.push(table.from()).push(" WHERE TRUE");
            push_words(builder, table.search_text(), query);
        }
    }
    filters(builder);
    push_keyset_of(builder, list.sort_column, list.sort_kind, table.id(), list.order, list.after)?;
    push_order(builder, list.sort_column, table.id(), list.order);
    builder.push_bind(" LIMIT ", Bind::Int(i64::from(list.limit) + 1));
    Ok(())
}

impl Store {
    /// Chooses how to run a text search on a backend that asks (SQLite), from
    /// counts the text index answers by reading at most a few thousand
    /// entries: a word with few matches makes the search rare (read its
    /// matches from the index, re-test the other words); when every word is
    /// common, a subset of the matches that reaches the limit makes it common
    /// (walk the sort order); otherwise a bounded walk comes first. A list
    /// narrowed to one rider or driver is short, so it is always walked.
    async fn search_plan(&self, table: SearchTable, query: &SearchQuery, narrow: bool) -> StorageResult<SearchPlan> {
        let Some(counts) = D::text_counts(table) else {
            return Ok(SearchPlan::Index { text: D::index_text(query), verify: false });
        };
        if narrow {
            return Ok(SearchPlan::Scan);
        }
        let mut rare_words = Vec::new();
        for word in &query.words {
            let matches: i64 = if is_short_word(word) {
                sqlx::query_scalar(counts.documents)
                    .bind(SearchQuery::fts5_of([word]))
                    .bind(SEARCH_INDEX_LIMIT)
                    .fetch_one(&self.pool)
                    .await?
            } else {
                sqlx::query_scalar(counts.occurrences)
                    .bind(word)
                    .bind(prefix_range_end(word))
                    .bind(SEARCH_INDEX_LIMIT)
                    .fetch_one(&self.pool)
                    .await?
            };
            if matches < SEARCH_INDEX_LIMIT {
                rare_words.push(word);
            }
        }
        if !rare_words.is_empty() {
            let verify = rare_words.len() < query.words.len();
            return Ok(SearchPlan::Index { text: SearchQuery::fts5_of(rare_words), verify });
        }
        let together: i64 = sqlx::query_scalar(counts.documents)
            .bind(query.fts5_subset())
            .bind(SEARCH_INDEX_LIMIT)
            .fetch_one(&self.pool)
            .await?;
        Ok(if together >= SEARCH_INDEX_LIMIT { SearchPlan::Scan } else { SearchPlan::ScanThenIndex })
    }

    /// Reads one page of a list: chooses the page's ids from the indexes
    /// (with the search, when there is one), then reads only those rows.
    pub(super) async fn list_page<T>(
        &self,
        list: &ListSpec<'_>,
        filters: &(dyn Fn(&mut SqlBuilder) + Sync),
        search: Option<&SearchQuery>,
        narrow: bool,
    ) -> StorageResult<Vec<T>>
    where
        T: for<'r> FromRow<'r, <Db as Database>::Row> + Send + Unpin,
    {
        let Some(query) = search else {
            return self.fetch_page(list, filters, Pick::All).await;
        };
        match self.search_plan(list.table, query, narrow).await? {
            SearchPlan::Index { text, verify } => {
                self.fetch_page(list, filters, Pick::Index { query, text, verify }).await
            }
            SearchPlan::Scan => self.fetch_page(list, filters, Pick::Scan { query }).await,
            SearchPlan::ScanThenIndex => {
                let rows: Vec<T> = self.fetch_page(list, filters, Pick::CappedScan { query }).await?;
                if rows.len() > list.limit as usize {
                    return Ok(rows);
                }
                let text = D::index_text(query);
                self.fetch_page(list, filters, Pick::Index { query, text, verify: false }).await
            }
        }
    }

    async fn fetch_page<T>(
        &self,
        list: &ListSpec<'_>,
        filters: &(dyn Fn(&mut SqlBuilder) + Sync),
        pick: Pick<'_>,
    ) -> StorageResult<Vec<T>>
    where
        T: for<'r> FromRow<'r, <Db as Database>::Row> + Send + Unpin,
    {
        let (_, direction) = order_fragments(list.order);
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(list.columns).push(" FROM (");
        push_pick(&mut builder, list, filters, pick)?;
        builder.push(") page JOIN ").push(list.table.from()).push(" ON ").push(list.table.id());
        builder.push(" = page.pick_id ORDER BY page.pick_sort").push(direction).push(", page.pick_id").push(direction);
        fetch_all(&self.pool, builder).await
    }
}
