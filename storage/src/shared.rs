//! The [`Storage`] implementation, written once for both backends.
//!
//! This file is compiled twice: `sqlite.rs` and `postgres.rs` each declare
//! `#[path = "shared.rs"] mod shared;`, and in each copy `super::Db` is that
//! backend's `sqlx::Database`, `super::Store` its storage type (which holds
//! `pool: Pool<Db>`) and `super::BackendDialect` its [`Dialect`]. The SQL
//! here is the same text on both (`$n` placeholders, `ON CONFLICT`,
//! `RETURNING` and row values work on SQLite and PostgreSQL alike); what
//! really differs (text search, row locks, how a write transaction starts,
//! how a unique violation names its index) comes from the dialect.
//!
//! Every write that must be atomic runs in one transaction; reads go to the
//! pool. Lists are keyset-paginated: each page is an index seek from the last
//! row of the previous one, and `limit + 1` rows are read to know whether
//! there is a next page.

use super::{BACKEND, BackendDialect as D, Db, Store};
use crate::common::builder::*;
use crate::common::columns::*;
use crate::common::cursor::*;
use crate::common::dialect::*;
use crate::common::earnings::*;
use crate::common::money::*;
use crate::common::rows::*;
use crate::common::search::*;
use crate::common::write_gate::*;
use crate::error::{StorageError, StorageResult};
use crate::rollup::{self, Counted, DashboardPart, EarningsPart, PartColumns, RollupRow};
use crate::types::*;
use crate::{Accounts, Bookings, Catalogue, Cluster, DispatchLogStore, Documents, Ledger, Reports, Storage};
use async_trait::async_trait;
use rust_decimal::Decimal;
use sqlx::types::Json;
use sqlx::{AssertSqlSafe, Database, FromRow};
use std::collections::BTreeSet;
use tracing::instrument;
use uuid::Uuid;
use wayfare_engine::booking::{Effect, WalletChange};
use wayfare_engine::dispatch::DispatchEntry;
use wayfare_engine::sos::{SosAlert, SosState};
use wayfare_engine::{
    Booking, BookingId, CarType, CarTypeId, ChatMessage, DashboardEarnings, DashboardRides, DocumentKind,
    DocumentStatus, DriverDocument, EarningsReportRow, EarningsRow, Language, LanguageId, LatLng, Millis, Notification,
    NotificationId, PaymentProvider, Promo, PromoId, Ratings, Settings, SosId, TrackingPoint, User, UserId,
    WalletEntry, WalletEntryType, WithdrawId, WithdrawRequest,
};

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
fn write_error(error: sqlx::Error) -> StorageError {
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

/// Moving the default flag touches two rows and the unique index; taking
/// every language row's lock in id order first (PostgreSQL; SQLite writers
/// take turns anyway) makes concurrent moves wait in line instead of
/// deadlocking. There are a handful of languages.
async fn lock_languages(conn: &mut Conn) -> StorageResult<()> {
    if D::FOR_UPDATE.is_empty() {
        return Ok(());
    }
    let mut builder = SqlBuilder::new("SELECT id FROM languages ORDER BY id");
    builder.push(D::FOR_UPDATE);
    built(builder).fetch_all(&mut *conn).await?;
    Ok(())
}

/// Two transactions making different languages the default at once: the
/// unique index lets one commit; the other lost a race, a `Conflict`.
fn default_race(error: sqlx::Error) -> StorageError {
    match write_error(error) {
        StorageError::Duplicate(_) => StorageError::Conflict,
        other => other,
    }
}

fn json<T: serde::Serialize>(value: &T) -> StorageResult<Bind> {
    let raw = serde_json::value::to_raw_value(value).map_err(|error| StorageError::Corrupt(error.to_string()))?;
    Ok(Bind::Json(raw))
}

/// Positions per statement (and transaction) in `save_locations`: 3 values
/// each. Small, because SQLite binds in time quadratic in the number of
/// values (see `Dialect::MAX_BINDS_PER_STATEMENT`) and a chunk holds the
/// write lock while it is written.
const POSITION_CHUNK: usize = 200;

fn found<T>(value: Option<T>) -> StorageResult<T> {
    value.ok_or(StorageError::NotFound)
}

fn must_affect(rows_affected: u64) -> StorageResult<()> {
    if rows_affected == 0 { Err(StorageError::NotFound) } else { Ok(()) }
}

/// Splits `limit + 1` fetched rows into a page and the next cursor.
fn page_of<T>(mut items: Vec<T>, limit: u32, cursor_of: impl Fn(&T) -> String) -> Page<T> {
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
fn push_keyset(
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
fn push_order_limit(
    builder: &mut SqlBuilder,
    sort_column: &'static str,
    id_column: &'static str,
    order: SortOrder,
    limit: u32,
) {
    push_order(builder, sort_column, id_column, order);
    builder.push_bind(" LIMIT ", Bind::Int(i64::from(limit) + 1));
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

// ---- lists -------------------------------------------------------------------

/// One page of a list: the table, the columns read for each row, the sort.
struct ListSpec<'a> {
    table: SearchTable,
    columns: &'static str,
    sort_column: &'static str,
    sort_kind: SortKind,
    order: SortOrder,
    limit: u32,
    after: Option<&'a str>,
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

// ---- bookings: the shared write path ----------------------------------------

const INSERT_BOOKING: &str = "INSERT INTO bookings (
    id, version, reference, status, active, customer, driver, fleetadmin, tripdate, booking_date,
    trip_cost_micros, driver_share_micros, convenience_fees_micros, discount_amount_micros,
    customer_paid_micros, cancellation_fee_micros, driver_name, vehicle_number, search_text,
    updated_at, doc, customer_name, car_type, fee_owed_micros, created_at
) VALUES ";

const BOOKING_VALUES: usize = UPDATE_VALUES + 1;

/// Binds one new booking's values in [`INSERT_BOOKING`]'s column order.
fn push_booking_values(builder: &mut SqlBuilder, booking: &Booking, version: u64, now: Millis) -> StorageResult<()> {
    let mut values = booking_values(booking, version, version, now)?;
    values.push(Bind::Int(now));
    debug_assert_eq!(values.len(), BOOKING_VALUES);
    push_row(builder, values);
    Ok(())
}

/// A booking's values in [`UPDATE_BOOKING`]'s order, `$1` to `$24`: its id,
/// `version` (the new row's, or the one an update expects), its columns,
/// `updated_at`, its document (at `document_version`), customer name and
/// car type, the cancellation fee owed. A new row adds `created_at`
/// ([`INSERT_BOOKING`]).
fn booking_values(booking: &Booking, version: u64, document_version: u64, now: Millis) -> StorageResult<Vec<Bind>> {
    let columns = BookingColumns::of(booking)?;
    let mut document = booking.clone();
    document.version = document_version;
    let values = vec![
        Bind::Uuid(booking.id.0),
        Bind::Int(i64::try_from(version).map_err(|_| StorageError::Invalid("version"))?),
        Bind::Text(booking.reference.clone()),
        Bind::Text(columns.status.to_string()),
        Bind::Bool(columns.active),
        Bind::Uuid(booking.customer.0),
        Bind::OptUuid(booking.driver.map(|driver| driver.0)),
        Bind::OptUuid(booking.fleetadmin.map(|fleetadmin| fleetadmin.0)),
        Bind::Int(booking.tripdate),
        Bind::Int(booking.bookingDate),
        Bind::Int(columns.trip_cost),
        Bind::Int(columns.driver_share),
        Bind::Int(columns.convenience_fees),
        Bind::Int(columns.discount_amount),
        Bind::Int(columns.customer_paid),
        Bind::Int(columns.cancellation_fee),
        Bind::Text(booking.driver_name.clone()),
        Bind::Text(booking.vehicle_number.clone()),
        Bind::Text(columns.search_text),
        Bind::Int(now),
        json(&document)?,
        Bind::Text(booking.customer_name.clone()),
        Bind::Text(booking.carType.clone()),
        Bind::Int(columns.fee_owed),
    ];
    debug_assert_eq!(values.len(), UPDATE_VALUES);
    Ok(values)
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

/// The compare-and-set update: the row is written only if it still has the
/// version the writer read.
const UPDATE_BOOKING: &str = "UPDATE bookings SET
    version = version + 1, reference = $3, status = $4, active = $5, customer = $6, driver = $7,
    fleetadmin = $8, tripdate = $9, booking_date = $10, trip_cost_micros = $11,
    driver_share_micros = $12, convenience_fees_micros = $13, discount_amount_micros = $14,
    customer_paid_micros = $15, cancellation_fee_micros = $16, driver_name = $17,
    vehicle_number = $18, search_text = $19, updated_at = $20, doc = $21, customer_name = $22,
    car_type = $23, fee_owed_micros = $24
WHERE id = $1 AND version = $2";

async fn insert_booking(conn: &mut Conn, booking: &Booking, now: Millis) -> StorageResult<()> {
    let mut builder = SqlBuilder::new(INSERT_BOOKING);
    push_booking_values(&mut builder, booking, 1, now)?;
    match built(builder).execute(&mut *conn).await.map_err(write_error) {
        Err(StorageError::Duplicate(_)) => Err(StorageError::Conflict),
        other => other.map(|_| ()),
    }
}

/// [`UPDATE_BOOKING`] with its values bound; more statements may follow,
/// numbered on from its 24 values.
fn booking_update(booking: &Booking, expected: u64, now: Millis) -> StorageResult<SqlBuilder> {
    let mut builder = SqlBuilder::new(UPDATE_BOOKING);
    builder.binds = booking_values(booking, expected, expected + 1, now)?;
    Ok(builder)
}

const UPDATE_VALUES: usize = 24;

async fn update_booking(conn: &mut Conn, booking: &Booking, expected: u64, now: Millis) -> StorageResult<()> {
    let result = built(booking_update(booking, expected, now)?).execute(&mut *conn).await.map_err(write_error)?;
    if result.rows_affected() == 1 {
        return Ok(());
    }
    let exists: Option<i64> = sqlx::query_scalar("SELECT version FROM bookings WHERE id = $1")
        .bind(booking.id.0)
        .fetch_optional(&mut *conn)
        .await?;
    match exists {
        Some(_) => {
            tracing::debug!(booking_id = %booking.id, expected, "booking version conflict");
            Err(StorageError::Conflict)
        }
        None => Err(StorageError::NotFound),
    }
}

/// Rewrites the offer rows of a booking from its requestedDrivers.
async fn replace_offers(conn: &mut Conn, booking: &Booking, fresh: bool, now: Millis) -> StorageResult<()> {
    if !fresh {
        sqlx::query("DELETE FROM booking_offers WHERE booking_id = $1").bind(booking.id.0).execute(&mut *conn).await?;
    }
    let mut builder = SqlBuilder::new("");
    if push_offers(&mut builder, booking, now) {
        built(builder).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Appends the insert of a booking's offer rows; false when it has none.
fn push_offers(builder: &mut SqlBuilder, booking: &Booking, now: Millis) -> bool {
    if booking.requestedDrivers.0.is_empty() {
        return false;
    }
    builder.push("INSERT INTO booking_offers (booking_id, driver_id, created_at, updated_at) VALUES ");
    for (index, driver) in booking.requestedDrivers.0.iter().enumerate() {
        if index > 0 {
            builder.push(", ");
        }
        push_row(builder, [Bind::Uuid(booking.id.0), Bind::Uuid(driver.0), Bind::Int(now), Bind::Int(now)]);
    }
    true
}

/// Appends the end of a booking's scripted commit (see
/// `commit_booking_in_scripts`): for a creation the booking's insert, for an
/// update (appended to its [`booking_update`]) the removal of its offers;
/// then its offers and `COMMIT`.
fn push_closing(
    builder: &mut SqlBuilder,
    booking: &Booking,
    expected_version: Option<u64>,
    now: Millis,
) -> StorageResult<()> {
    match expected_version {
        None => {
            builder.push(INSERT_BOOKING);
            push_booking_values(builder, booking, 1, now)?;
        }
        Some(_) => {
            builder.push_bind("; DELETE FROM booking_offers WHERE booking_id = ", Bind::Uuid(booking.id.0));
        }
    }
    builder.push("; ");
    if push_offers(builder, booking, now) {
        builder.push("; ");
    }
    builder.push("COMMIT");
    Ok(())
}

/// Whether a transition's effect is state to store (the others the actors
/// publish).
fn is_stored(effect: &Effect) -> bool {
    !matches!(
        effect,
        Effect::Notify { .. }
            | Effect::OfferMade { .. }
            | Effect::OfferWithdrawn { .. }
            | Effect::RequestDispatch
            | Effect::TimerSet { .. }
            | Effect::TimerCleared { .. }
    )
}

/// Writes one ledger entry unless its (user, idempotency key) exists, and
/// moves the balance only when the entry is new. Returns whether it was
/// applied and the balance after, in micro-units.
async fn apply_ledger(conn: &mut Conn, change: &WalletChange, now: Millis) -> StorageResult<(bool, i64)> {
    if change.amount < Decimal::ZERO {
        return Err(StorageError::Invalid("amount"));
    }
    let amount = to_micros(change.amount, "amount")?;
    let inserted = sqlx::query(
        "INSERT INTO wallet_entries
            (id, user_id, entry_type, amount_micros, date, tx_ref, idempotency_key, created_at, updated_at, booking_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $5, $5, $8)
         ON CONFLICT (user_id, idempotency_key) DO NOTHING",
    )
    .bind(Uuid::now_v7())
    .bind(change.user.0)
    .bind(entry_type_text(change.entry_type))
    .bind(amount)
    .bind(now)
    .bind(&change.tx_ref)
    .bind(&change.idempotency_key)
    .bind(booking_of_key(&change.idempotency_key))
    .execute(&mut *conn)
    .await
    .map_err(write_error)?
    .rows_affected()
        == 1;
    if !inserted {
        let balance: Option<i64> = sqlx::query_scalar("SELECT wallet_balance_micros FROM users WHERE id = $1")
            .bind(change.user.0)
            .fetch_optional(&mut *conn)
            .await?;
        return Ok((false, found(balance)?));
    }
    let (signed, guarded) = match change.entry_type {
        WalletEntryType::Credit => (amount, false),
        WalletEntryType::Debit | WalletEntryType::Withdraw => (-amount, !change.overdraw),
    };
    // The floor is checked by the statement that moves the balance, so two
    // debits that each read enough cannot both take it below zero (the row
    // lock on PostgreSQL, the one writer on SQLite).
    let balance: Option<i64> = sqlx::query_scalar(
        "UPDATE users SET wallet_balance_micros = wallet_balance_micros + $1, updated_at = $2
         WHERE id = $3 AND (NOT $4 OR wallet_balance_micros + $1 >= 0) RETURNING wallet_balance_micros",
    )
    .bind(signed)
    .bind(now)
    .bind(change.user.0)
    .bind(guarded)
    .fetch_optional(&mut *conn)
    .await?;
    match balance {
        Some(balance) => Ok((true, balance)),
        None if guarded => {
            let exists: Option<i64> = sqlx::query_scalar("SELECT wallet_balance_micros FROM users WHERE id = $1")
                .bind(change.user.0)
                .fetch_optional(&mut *conn)
                .await?;
            // The caller's transaction is dropped with the error: the ledger
            // entry above goes with it.
            Err(if exists.is_some() { StorageError::InsufficientBalance } else { StorageError::NotFound })
        }
        None => Err(StorageError::NotFound),
    }
}

/// Writes every column and the document of `user` but the wallet balance,
/// the online flag and the queue: their setters write them while a request
/// holds a copy of the user read earlier (a booking assigned during a profile
/// edit must stay assigned), and reads take all three from their columns.
async fn write_user(conn: &mut Conn, user: &User, now: Millis) -> StorageResult<()> {
    let columns = UserColumns::of(user);
    let result = sqlx::query(
        "UPDATE users SET
            role = $2, email = $3, mobile = $4, referral = $5, fleetadmin = $6, approved = $7,
            car_type = $8, lat = $9, lng = $10, platform = $11,
            push_token = $12, language = $13, search_text = $14, updated_at = $15, doc = $16
         WHERE id = $1",
    )
    .bind(user.id.0)
    .bind(columns.role)
    .bind(&user.email)
    .bind(&user.mobile)
    .bind(&user.referralId)
    .bind(columns.fleetadmin)
    .bind(user.approved)
    .bind(&user.carType)
    .bind(columns.lat)
    .bind(columns.lng)
    .bind(columns.platform)
    .bind(&user.pushToken)
    .bind(columns.language)
    .bind(columns.search_text)
    .bind(now)
    .bind(Json(user))
    .execute(&mut *conn)
    .await
    .map_err(write_error)?;
    must_affect(result.rows_affected())
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

/// Reads a user's document for an update later in the same transaction.
async fn user_document_for_update(conn: &mut Conn, user: UserId) -> StorageResult<Option<User>> {
    let mut builder = SqlBuilder::new("SELECT doc FROM users WHERE id = ");
    builder.bind(Bind::Uuid(user.0)).push(D::FOR_UPDATE);
    let row = built(builder).fetch_optional(&mut *conn).await?;
    row.map(|row| <(Json<User>,)>::from_row(&row).map(|(document,)| document.0)).transpose().map_err(StorageError::from)
}

async fn write_user_document(conn: &mut Conn, user: &User, now: Millis) -> StorageResult<()> {
    sqlx::query("UPDATE users SET doc = $1, updated_at = $2 WHERE id = $3")
        .bind(Json(user))
        .bind(now)
        .bind(user.id.0)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The users a transition's effects write, so PostgreSQL can lock them in
/// one order and two transitions never deadlock on each other's users.
fn users_touched(effects: &[Effect]) -> BTreeSet<Uuid> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Wallet(change) => Some(change.user),
            Effect::SetQueue { driver, .. } | Effect::RecordRating { driver, .. } => Some(*driver),
            Effect::SaveAddress { customer, .. } => Some(*customer),
            _ => None,
        })
        .map(|user| user.0)
        .collect()
}

async fn lock_users(conn: &mut Conn, users: &BTreeSet<Uuid>) -> StorageResult<()> {
    if D::FOR_UPDATE.is_empty() || users.is_empty() {
        return Ok(());
    }
    let mut builder = SqlBuilder::new("SELECT id FROM users WHERE TRUE");
    push_in(&mut builder, "id", users.iter().map(|user| Bind::Uuid(*user)));
    builder.push(" ORDER BY id").push(D::FOR_UPDATE);
    built(builder).fetch_all(&mut *conn).await?;
    Ok(())
}

/// Carries out the persistent effects of a transition, in order. Returns the
/// balances of the users whose wallets moved.
async fn apply_effects(
    conn: &mut Conn,
    booking: BookingId,
    effects: &[Effect],
    now: Millis,
) -> StorageResult<Vec<(UserId, Decimal)>> {
    let mut balances: Vec<(UserId, Decimal)> = Vec::new();
    for effect in effects {
        match effect {
            Effect::Wallet(change) => {
                let (applied, balance) = apply_ledger(conn, change, now).await?;
                if applied {
                    balances.retain(|(user, _)| *user != change.user);
                    balances.push((change.user, from_micros(balance)));
                }
            }
            Effect::Tracking(point) => insert_tracking(conn, booking, point).await?,
            Effect::SetQueue { driver, busy } => {
                sqlx::query("UPDATE users SET queue = $1, updated_at = $2 WHERE id = $3")
                    .bind(*busy)
                    .bind(now)
                    .bind(driver.0)
                    .execute(&mut *conn)
                    .await?;
            }
            Effect::RecordRating { driver, customer, rating } => {
                if let Some(mut user) = user_document_for_update(conn, *driver).await? {
                    add_rating(user.ratings.get_or_insert_with(Ratings::default), *customer, *rating);
                    write_user_document(conn, &user, now).await?;
                }
            }
            Effect::SaveAddress { customer, place } => {
                if let Some(mut user) = user_document_for_update(conn, *customer).await? {
                    wayfare_engine::geo::save_address(&mut user.savedAddresses, &place.add, place.point());
                    write_user_document(conn, &user, now).await?;
                }
            }
            Effect::PromoUsed { promo_name, customer } => {
                let first_use = sqlx::query(
                    "INSERT INTO promo_uses (promo_name, user_id, created_at, updated_at) VALUES ($1, $2, $3, $3)
                     ON CONFLICT (promo_name, user_id) DO NOTHING",
                )
                .bind(promo_name)
                .bind(customer.0)
                .bind(now)
                .execute(&mut *conn)
                .await?
                .rows_affected()
                    == 1;
                if first_use {
                    sqlx::query("UPDATE promos SET user_avail = user_avail + 1, updated_at = $1 WHERE name = $2")
                        .bind(now)
                        .bind(promo_name)
                        .execute(&mut *conn)
                        .await?;
                }
            }
            // Not state: the actors publish these.
            Effect::Notify { .. }
            | Effect::OfferMade { .. }
            | Effect::OfferWithdrawn { .. }
            | Effect::RequestDispatch
            | Effect::TimerSet { .. }
            | Effect::TimerCleared { .. } => {}
        }
    }
    Ok(balances)
}

async fn insert_tracking(conn: &mut Conn, booking: BookingId, point: &TrackingPoint) -> StorageResult<()> {
    sqlx::query(
        "INSERT INTO tracking_points (booking_id, at, status, lat, lng, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $2, $2)",
    )
    .bind(booking.0)
    .bind(point.at)
    .bind(status_text(point.status))
    .bind(point.lat)
    .bind(point.lng)
    .execute(&mut *conn)
    .await
    .map_err(write_error)?;
    Ok(())
}

const INSERT_DISPATCH_EVENT: &str =
    "INSERT INTO dispatch_events (booking_id, at, kind, car_type, created_at, updated_at, doc) VALUES ";

const DISPATCH_EVENT_VALUES: usize = 7;

// ---- users: the shared write path -------------------------------------------

const INSERT_USER: &str = "INSERT INTO users (
    id, role, email, mobile, referral, fleetadmin, approved, driver_active, queue, car_type,
    lat, lng, platform, push_token, language, search_text, created_at, updated_at, doc
) VALUES ";

const USER_VALUES: usize = 19;

/// Binds one user's values in [`INSERT_USER`]'s column order; `updated_at`
/// is `now`. The wallet balance column starts at zero.
fn push_user_values(builder: &mut SqlBuilder, user: &User, now: Millis) -> StorageResult<()> {
    let columns = UserColumns::of(user);
    let values = [
        Bind::Uuid(user.id.0),
        Bind::Text(columns.role.to_string()),
        Bind::Text(user.email.clone()),
        Bind::Text(user.mobile.clone()),
        Bind::Text(user.referralId.clone()),
        Bind::OptUuid(columns.fleetadmin),
        Bind::Bool(user.approved),
        Bind::Bool(user.driverActiveStatus),
        Bind::Bool(user.queue),
        Bind::OptText(user.carType.clone()),
        Bind::OptFloat(columns.lat),
        Bind::OptFloat(columns.lng),
        Bind::Text(columns.platform.to_string()),
        Bind::OptText(user.pushToken.clone()),
        Bind::OptText(columns.language),
        Bind::Text(columns.search_text),
        Bind::Int(user.createdAt),
        Bind::Int(now),
        json(user)?,
    ];
    debug_assert_eq!(values.len(), USER_VALUES);
    push_row(builder, values);
    Ok(())
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
    let rows_per_statement = (D::MAX_BINDS_PER_STATEMENT / values_per_row).max(1);
    for chunk in rows.chunks(rows_per_statement) {
        let mut builder = SqlBuilder::new(start);
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

// ---- helpers that are not part of the trait ---------------------------------

/// A pooled connection for one write outside a transaction, held with the
/// process's write turn (see [`WriteGate`]). The connection goes back first.
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
    /// A write transaction begun in turn (see [`WriteGate`]). Bind the turn
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

    /// [`Bookings::commit_booking`] on SQLite, in as few hand-offs to the
    /// connection's thread as the commit allows. Taken one statement at a
    /// time, each hand-off came back to a runtime thread busy with sockets
    /// while the commit held the write turn every other writer queues for.
    /// - the opening script, `BEGIN IMMEDIATE` and, for an update, the
    ///   stored version and roll-up columns (the write lock is held from
    ///   there, so the compare-and-set is decided by that read);
    /// - the roll-up and the stored effects, a statement at a time, only
    ///   when there are some (their statements read as they go);
    /// - the closing script: the booking's insert or update, its offers,
    ///   `COMMIT`.
    ///
    /// A creation with nothing between is one script (every booking's
    /// creation but a prepaid one's).
    ///
    /// The scripts run on the `NORMAL` connection, so the `COMMIT` does not
    /// wait for the disk while the write turn is held; the turn goes, and
    /// then [`Store::sync_commits`] waits for one fsync of the WAL shared by
    /// every commit made meanwhile (group commit). The booking is on disk
    /// before it is acknowledged, as with `synchronous = FULL`, and a slow
    /// fsync no longer queues every writer behind it.
    async fn commit_booking_in_scripts(
        &self,
        booking: &Booking,
        expected_version: Option<u64>,
        effects: &[Effect],
        now: Millis,
    ) -> StorageResult<Committed> {
        let after = part_columns(booking)?;
        let mut opening = SqlBuilder::new(D::BEGIN_WRITE);
        let closing = match expected_version {
            None if !effects.iter().any(is_stored) && !counts_in_rollup(&after) => {
                opening.push("; ");
                push_closing(&mut opening, booking, None, now)?;
                None
            }
            None => {
                // The row first: the effects (tracking, the ledger) refer to it.
                opening.push("; ").push(INSERT_BOOKING);
                push_booking_values(&mut opening, booking, 1, now)?;
                let mut closing = SqlBuilder::new("");
                if push_offers(&mut closing, booking, now) {
                    closing.push("; ");
                }
                closing.push("COMMIT");
                Some(closing)
            }
            Some(expected) => {
                opening.push("; ").push(VERSION_AND_PART_COLUMNS).push_bind(" WHERE b.id = ", Bind::Uuid(booking.id.0));
                let mut closing = booking_update(booking, expected, now)?;
                push_closing(&mut closing, booking, Some(expected), now)?;
                Some(closing)
            }
        };
        let turn = self.writes.turn().await;
        let mut script = ScriptConn { conn: self.relaxed.acquire().await?, open: true };
        let conn = &mut *script.conn;
        let written = async {
            let Some(closing) = closing else {
                built(opening).execute(&mut *conn).await.map_err(write_error)?;
                return Ok(Vec::new());
            };
            let before = match expected_version {
                None => {
                    built(opening).execute(&mut *conn).await?;
                    None
                }
                Some(expected) => {
                    let row = built(opening).fetch_optional(&mut *conn).await?;
                    let row = found(row)?;
                    let version: i64 = sqlx::Row::try_get(&row, "version")?;
                    if u64::try_from(version).ok() != Some(expected) {
                        tracing::debug!(booking_id = %booking.id, expected, "booking version conflict");
                        return Err(StorageError::Conflict);
                    }
                    Some(PartColumns::from_row(&row)?)
                }
            };
            update_rollup(&mut *conn, before.as_ref(), &after).await?;
            // No row locks to take (`lock_users`): SQLite has one writer.
            let balances = apply_effects(&mut *conn, booking.id, effects, now).await?;
            built(closing).execute(&mut *conn).await.map_err(write_error)?;
            Ok(balances)
        }
        .await;
        let balances = match written {
            Ok(balances) => {
                script.open = false;
                balances
            }
            Err(error) => {
                script.roll_back().await;
                // Inserting a booking that exists is someone having written first.
                return Err(match error {
                    StorageError::Duplicate(_) if expected_version.is_none() => StorageError::Conflict,
                    other => other,
                });
            }
        };
        drop(script);
        drop(turn);
        self.sync_commits().await?;
        let mut stored = booking.clone();
        stored.version = expected_version.map_or(1, |expected| expected + 1);
        Ok(Committed { booking: stored, balances })
    }

    /// A connection for one statement that writes, in turn.
    async fn write_conn(&self) -> StorageResult<WriteConn> {
        let turn = self.writes.turn().await;
        let conn = self.pool.acquire().await?;
        Ok(WriteConn { conn, _turn: turn })
    }

    /// Inserts many users in one transaction with multi-row statements: for
    /// imports, seeds and load tests. Same rules as [`Accounts::insert_user`].
    pub async fn import_users(&self, users: &[User], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        insert_in_chunks(&mut tx, INSERT_USER, USER_VALUES, users, |builder, user| {
            push_user_values(builder, user, now)
        })
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Inserts many new bookings (version 1) and their offers in one
    /// transaction with multi-row statements. Effects are not applied.
    pub async fn import_bookings(&self, bookings: &[Booking], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        insert_in_chunks(&mut tx, INSERT_BOOKING, BOOKING_VALUES, bookings, |builder, booking| {
            push_booking_values(builder, booking, 1, now)
        })
        .await?;
        let offers: Vec<(Uuid, Uuid)> = bookings
            .iter()
            .flat_map(|booking| booking.requestedDrivers.0.iter().map(|driver| (booking.id.0, driver.0)))
            .collect();
        insert_in_chunks(
            &mut tx,
            "INSERT INTO booking_offers (booking_id, driver_id, created_at, updated_at) VALUES ",
            4,
            &offers,
            |builder, (booking, driver)| {
                push_row(builder, [Bind::Uuid(*booking), Bind::Uuid(*driver), Bind::Int(now), Bind::Int(now)]);
                Ok(())
            },
        )
        .await?;
        if let Some(offset) = rollup_offset(&mut tx).await? {
            let mut folded = rollup::Fold::default();
            let mut dashboard = rollup::DashboardFold::default();
            for booking in bookings {
                let columns = part_columns(booking)?;
                if let Some(part) = EarningsPart::of(&columns, offset) {
                    folded.add(&part);
                }
                if let Some(part) = DashboardPart::of(&columns, offset) {
                    dashboard.add(&part);
                }
            }
            write_fold(&mut tx, folded).await?;
            write_dashboard(&mut tx, &dashboard.into_rows()).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Refreshes the planner's statistics (after a bulk load).
    pub async fn analyze(&self) -> StorageResult<()> {
        sqlx::query("ANALYZE").execute(&mut *self.write_conn().await?).await?;
        Ok(())
    }

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
    async fn list_page<T>(
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

    async fn earnings_groups(&self, scope: &EarningsScope, counted: Counted) -> StorageResult<Vec<EarningsGroup>> {
        let rollup_offset = rollup_offset(&mut *self.pool.acquire().await?).await?;
        if let Some(months) = rollup_offset.and_then(|offset| rollup::months_of(scope, offset)) {
            let mut builder = rollup_select(scope, months, counted);
            builder.push(" ORDER BY e.ym, e.driver");
            let rows: Vec<RollupRow> = fetch_all(&self.pool, builder).await?;
            let mut groups = rollup::groups_of(rows, counted);
            sort_earnings(&mut groups);
            return Ok(groups);
        }
        let counted = match counted {
            Counted::Rides => EARNINGS_RIDES,
            Counted::Reported => EARNINGS_REPORTED,
        };
        let (offset_ms, first_placeable, last_placeable) = earnings_bounds(scope.utc_offset_minutes);
        let mut builder = SqlBuilder::new(EARNINGS_COUNTED);
        builder.binds = vec![Bind::Int(offset_ms), Bind::Int(first_placeable), Bind::Int(last_placeable)];
        match single_month(scope) {
            Some(year_month) => builder.bind(Bind::Int(year_month)),
            None => builder.push("COALESCE(").push(D::YEAR_MONTH_OF_LOCAL_SECONDS).push(", 0)"),
        };
        builder.push(EARNINGS_LOCAL).push(counted);
        if let Some(fleetadmin) = scope.fleetadmin {
            builder.push_bind(" AND b.fleetadmin = ", Bind::Uuid(fleetadmin.0));
        }
        if let Some(driver) = scope.driver {
            builder.push_bind(" AND b.driver = ", Bind::Uuid(driver.0));
        }
        if let Some(from) = scope.tripdate_from {
            builder.push_bind(" AND b.tripdate >= ", Bind::Int(from));
        }
        if let Some(until) = scope.tripdate_until {
            builder.push_bind(" AND b.tripdate < ", Bind::Int(until));
        }
        builder.push(EARNINGS_GROUP);
        let mut groups: Vec<EarningsGroup> = fetch_all(&self.pool, builder).await?;
        sort_earnings(&mut groups);
        Ok(groups)
    }

    /// One page of a report's groups in (month, driver) descending order.
    async fn earnings_page(
        &self,
        scope: &EarningsScope,
        counted: Counted,
        page: &PageRequest,
    ) -> StorageResult<Page<EarningsGroup>> {
        let limit = page.limit();
        let after = page.after.as_deref().map(decode_cursor).transpose()?;
        let rollup_offset = rollup_offset(&mut *self.pool.acquire().await?).await?;
        let Some(months) = rollup_offset.and_then(|offset| rollup::months_of(scope, offset)) else {
            // Summed from the bookings, then paged.
            let mut groups = self.earnings_groups(scope, counted).await?;
            groups.sort_by_key(|group| std::cmp::Reverse((group.ym, group.driver)));
            groups.retain(|group| after.is_none_or(|after| (group.ym, group.driver) < after));
            groups.truncate(limit as usize + 1);
            return Ok(page_of(groups, limit, earnings_cursor));
        };
        // A driver who changed fleet within a month has a row per fleet: read
        // in chunks, and keep the last group of a full chunk for the next one,
        // which starts from it again.
        let want = limit as usize + 1;
        let mut chunk = (want * 2).max(64);
        let mut groups: Vec<EarningsGroup> = Vec::with_capacity(want);
        let mut resume = after;
        loop {
            let mut builder = rollup_select(scope, months, counted);
            if let Some((ym, driver)) = resume {
                builder
                    .push_bind(" AND (e.ym, e.driver) < (", Bind::Int(ym))
                    .push_bind(", ", Bind::Uuid(driver))
                    .push(")");
            }
            builder.push(" ORDER BY e.ym DESC, e.driver DESC");
            builder.push_bind(" LIMIT ", Bind::Int(chunk as i64));
            let rows: Vec<RollupRow> = fetch_all(&self.pool, builder).await?;
            let full = rows.len() == chunk;
            let mut read = rollup::groups_of(rows, counted);
            if full {
                read.pop();
                if read.is_empty() {
                    chunk *= 2;
                    continue;
                }
            }
            resume = read.last().map(|group| (group.ym, group.driver));
            groups.extend(read);
            if !full || groups.len() >= want {
                break;
            }
        }
        groups.truncate(want);
        Ok(page_of(groups, limit, earnings_cursor))
    }
}

// ---- the monthly earnings roll-up (see rollup.rs) ----------------------------

/// The columns of [`PartColumns`].
macro_rules! part_columns {
    () => {
        "b.id, b.status, b.tripdate, b.driver, b.fleetadmin, b.driver_name, b.vehicle_number,
        b.driver_share_micros, b.trip_cost_micros, b.convenience_fees_micros, b.discount_amount_micros,
        b.customer_paid_micros, b.cancellation_fee_micros"
    };
}

const PART_COLUMNS: &str = concat!("SELECT ", part_columns!(), " FROM bookings b");
/// The same with the booking's version, for a compare-and-set decided by a read.
const VERSION_AND_PART_COLUMNS: &str = concat!("SELECT b.version, ", part_columns!(), " FROM bookings b");

/// The roll-up's offset when it holds every booking, else `None`.
async fn rollup_offset(conn: &mut Conn) -> StorageResult<Option<i32>> {
    let row: Option<(i32, bool)> = sqlx::query_as("SELECT utc_offset_minutes, built FROM earnings_rollup WHERE id = 1")
        .fetch_optional(&mut *conn)
        .await?;
    Ok(row.and_then(|(offset, built)| built.then_some(offset)))
}

async fn read_part_columns(conn: &mut Conn, id: Uuid) -> StorageResult<Option<PartColumns>> {
    let mut builder = SqlBuilder::new(PART_COLUMNS);
    builder.push_bind(" WHERE b.id = ", Bind::Uuid(id));
    Ok(built(builder).try_map(|row| PartColumns::from_row(&row)).fetch_optional(&mut *conn).await?)
}

fn part_columns(booking: &Booking) -> StorageResult<PartColumns> {
    let columns = BookingColumns::of(booking)?;
    Ok(PartColumns {
        id: booking.id.0,
        status: columns.status.to_string(),
        tripdate: booking.tripdate,
        driver: booking.driver.map(|driver| driver.0),
        fleetadmin: booking.fleetadmin.map(|fleetadmin| fleetadmin.0),
        driver_name: booking.driver_name.clone(),
        vehicle_number: booking.vehicle_number.clone(),
        driver_share_micros: columns.driver_share,
        trip_cost_micros: columns.trip_cost,
        convenience_fees_micros: columns.convenience_fees,
        discount_amount_micros: columns.discount_amount,
        customer_paid_micros: columns.customer_paid,
        cancellation_fee_micros: columns.cancellation_fee,
    })
}

/// Whether a booking in this state has a part in the earnings roll-up.
fn counts_in_rollup(columns: &PartColumns) -> bool {
    EarningsPart::of(columns, 0).is_some()
}

/// Moves a booking's part in the roll-up from what it was to what it is, in
/// the booking's transaction. Bookings that count for nothing cost one read.
async fn update_rollup(conn: &mut Conn, before: Option<&PartColumns>, after: &PartColumns) -> StorageResult<()> {
    if !before.is_some_and(counts_in_rollup) && !counts_in_rollup(after) {
        return Ok(());
    }
    let Some(offset) = rollup_offset(conn).await? else {
        return Ok(());
    };
    let old = before.and_then(|columns| EarningsPart::of(columns, offset));
    let new = EarningsPart::of(after, offset);
    if old != new {
        if let Some(old) = &old {
            upsert_rollup(conn, &[rollup::RollupAdd::of(old, -1)]).await?;
        }
        if let Some(new) = &new {
            upsert_rollup(conn, &[rollup::RollupAdd::of(new, 1)]).await?;
        }
    }
    // The dashboard's rides are a subset of the month's: PAID → COMPLETE
    // leaves them as they were, a fleet change moves them.
    let old_day = before.and_then(|columns| DashboardPart::of(columns, offset));
    let new_day = DashboardPart::of(after, offset);
    if old_day != new_day {
        // One statement may touch a row once (PostgreSQL): merge by key.
        let mut fold = rollup::DashboardFold::default();
        if let Some(old) = &old_day {
            fold.take(old);
        }
        if let Some(new) = &new_day {
            fold.add(new);
        }
        write_dashboard(conn, &fold.into_rows()).await?;
    }
    Ok(())
}

/// Adds to dashboard roll-up rows, 1,000 rows per statement.
async fn write_dashboard(conn: &mut Conn, adds: &[rollup::DashboardAdd]) -> StorageResult<()> {
    for chunk in adds.chunks(1_000) {
        let mut builder =
            SqlBuilder::new("INSERT INTO dashboard_earnings (grain, period, fleet, rides, trip_cost) VALUES ");
        for (index, add) in chunk.iter().enumerate() {
            if index > 0 {
                builder.push(", ");
            }
            push_row(
                &mut builder,
                [
                    Bind::Int(add.grain),
                    Bind::Int(add.period),
                    Bind::Uuid(add.fleet),
                    Bind::Int(add.rides),
                    Bind::Int(add.trip_cost),
                ],
            );
        }
        builder.push(
            " ON CONFLICT (grain, period, fleet) DO UPDATE SET
                rides = dashboard_earnings.rides + excluded.rides,
                trip_cost = dashboard_earnings.trip_cost + excluded.trip_cost",
        );
        built(builder).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Adds rows to the roll-up; a row already there takes the sums and, when
/// the added booking is later (trip date, then id), its name and vehicle.
async fn upsert_rollup(conn: &mut Conn, rows: &[rollup::RollupAdd]) -> StorageResult<()> {
    let mut builder = SqlBuilder::new(
        "INSERT INTO earnings_months (ym, driver, fleet, rides, driver_share, trip_cost, convenience_fee,
            discount_amount, customer_paid, charged_cancellations, cancellation_fee,
            ride_latest_tripdate, ride_latest_id, ride_driver_name, ride_vehicle_number,
            latest_tripdate, latest_id, driver_name, vehicle_number) VALUES ",
    );
    for (index, row) in rows.iter().enumerate() {
        builder.push(if index == 0 { "(" } else { ", (" });
        builder.bind(Bind::Int(row.ym));
        builder.push_bind(", ", Bind::Uuid(row.driver));
        builder.push_bind(", ", Bind::Uuid(row.fleet));
        for value in [
            row.rides,
            row.driver_share,
            row.trip_cost,
            row.convenience_fee,
            row.discount_amount,
            row.customer_paid,
            row.charged_cancellations,
            row.cancellation_fee,
        ] {
            builder.push_bind(", ", Bind::Int(value));
        }
        for latest in [&row.ride_latest, &row.latest] {
            builder.push_bind(", ", Bind::OptInt(latest.as_ref().map(|latest| latest.tripdate)));
            builder.push_bind(", ", Bind::OptUuid(latest.as_ref().map(|latest| latest.id)));
            builder.push_bind(", ", Bind::OptText(latest.as_ref().map(|latest| latest.driver_name.clone())));
            builder.push_bind(", ", Bind::OptText(latest.as_ref().map(|latest| latest.vehicle_number.clone())));
        }
        builder.push(")");
    }
    builder.push(ROLLUP_CONFLICT);
    built(builder).execute(&mut *conn).await?;
    Ok(())
}

/// The sums add up; the names follow the later booking. In `SET`, every
/// expression sees the row as it was, so the order of the columns is free.
const ROLLUP_CONFLICT: &str = "
 ON CONFLICT (ym, driver, fleet) DO UPDATE SET
    rides = earnings_months.rides + excluded.rides,
    driver_share = earnings_months.driver_share + excluded.driver_share,
    trip_cost = earnings_months.trip_cost + excluded.trip_cost,
    convenience_fee = earnings_months.convenience_fee + excluded.convenience_fee,
    discount_amount = earnings_months.discount_amount + excluded.discount_amount,
    customer_paid = earnings_months.customer_paid + excluded.customer_paid,
    charged_cancellations = earnings_months.charged_cancellations + excluded.charged_cancellations,
    cancellation_fee = earnings_months.cancellation_fee + excluded.cancellation_fee,
    ride_latest_tripdate = CASE WHEN excluded.ride_latest_tripdate IS NOT NULL AND (earnings_months.ride_latest_tripdate IS NULL OR excluded.ride_latest_tripdate > earnings_months.ride_latest_tripdate OR (excluded.ride_latest_tripdate = earnings_months.ride_latest_tripdate AND excluded.ride_latest_id >= earnings_months.ride_latest_id)) THEN excluded.ride_latest_tripdate ELSE earnings_months.ride_latest_tripdate END,
    ride_latest_id = CASE WHEN excluded.ride_latest_tripdate IS NOT NULL AND (earnings_months.ride_latest_tripdate IS NULL OR excluded.ride_latest_tripdate > earnings_months.ride_latest_tripdate OR (excluded.ride_latest_tripdate = earnings_months.ride_latest_tripdate AND excluded.ride_latest_id >= earnings_months.ride_latest_id)) THEN excluded.ride_latest_id ELSE earnings_months.ride_latest_id END,
    ride_driver_name = CASE WHEN excluded.ride_latest_tripdate IS NOT NULL AND (earnings_months.ride_latest_tripdate IS NULL OR excluded.ride_latest_tripdate > earnings_months.ride_latest_tripdate OR (excluded.ride_latest_tripdate = earnings_months.ride_latest_tripdate AND excluded.ride_latest_id >= earnings_months.ride_latest_id)) THEN excluded.ride_driver_name ELSE earnings_months.ride_driver_name END,
    ride_vehicle_number = CASE WHEN excluded.ride_latest_tripdate IS NOT NULL AND (earnings_months.ride_latest_tripdate IS NULL OR excluded.ride_latest_tripdate > earnings_months.ride_latest_tripdate OR (excluded.ride_latest_tripdate = earnings_months.ride_latest_tripdate AND excluded.ride_latest_id >= earnings_months.ride_latest_id)) THEN excluded.ride_vehicle_number ELSE earnings_months.ride_vehicle_number END,
    latest_tripdate = CASE WHEN excluded.latest_tripdate IS NOT NULL AND (earnings_months.latest_tripdate IS NULL OR excluded.latest_tripdate > earnings_months.latest_tripdate OR (excluded.latest_tripdate = earnings_months.latest_tripdate AND excluded.latest_id >= earnings_months.latest_id)) THEN excluded.latest_tripdate ELSE earnings_months.latest_tripdate END,
    latest_id = CASE WHEN excluded.latest_tripdate IS NOT NULL AND (earnings_months.latest_tripdate IS NULL OR excluded.latest_tripdate > earnings_months.latest_tripdate OR (excluded.latest_tripdate = earnings_months.latest_tripdate AND excluded.latest_id >= earnings_months.latest_id)) THEN excluded.latest_id ELSE earnings_months.latest_id END,
    driver_name = CASE WHEN excluded.latest_tripdate IS NOT NULL AND (earnings_months.latest_tripdate IS NULL OR excluded.latest_tripdate > earnings_months.latest_tripdate OR (excluded.latest_tripdate = earnings_months.latest_tripdate AND excluded.latest_id >= earnings_months.latest_id)) THEN excluded.driver_name ELSE earnings_months.driver_name END,
    vehicle_number = CASE WHEN excluded.latest_tripdate IS NOT NULL AND (earnings_months.latest_tripdate IS NULL OR excluded.latest_tripdate > earnings_months.latest_tripdate OR (excluded.latest_tripdate = earnings_months.latest_tripdate AND excluded.latest_id >= earnings_months.latest_id)) THEN excluded.vehicle_number ELSE earnings_months.vehicle_number END";

/// Adds folded rows to the roll-up, 500 per statement (19 values each, under
/// both backends' limit on bound values).
async fn write_fold(conn: &mut Conn, folded: rollup::Fold) -> StorageResult<()> {
    for chunk in folded.into_rows().chunks(500) {
        upsert_rollup(conn, chunk).await?;
    }
    Ok(())
}

/// Recomputes the roll-up from every booking, in pages by id, folding in
/// memory (one entry per driver-month) and writing in multi-row inserts.
async fn rebuild_rollup(conn: &mut Conn, utc_offset_minutes: i32) -> StorageResult<()> {
    sqlx::query("DELETE FROM earnings_months").execute(&mut *conn).await?;
    sqlx::query("DELETE FROM dashboard_earnings").execute(&mut *conn).await?;
    let mut folded = rollup::Fold::default();
    let mut dashboard = rollup::DashboardFold::default();
    let mut after: Option<Uuid> = None;
    loop {
        let mut builder = SqlBuilder::new(PART_COLUMNS);
        builder.push(" WHERE b.driver IS NOT NULL AND b.status IN ('PAID', 'COMPLETE', 'CANCELLED')");
        if let Some(after) = after {
            builder.push_bind(" AND b.id > ", Bind::Uuid(after));
        }
        builder.push(" ORDER BY b.id LIMIT 20000");
        let rows: Vec<PartColumns> = fetch_all(&mut *conn, builder).await?;
        let Some(last) = rows.last() else { break };
        after = Some(last.id);
        for columns in &rows {
            if let Some(part) = EarningsPart::of(columns, utc_offset_minutes) {
                folded.add(&part);
            }
            if let Some(part) = DashboardPart::of(columns, utc_offset_minutes) {
                dashboard.add(&part);
            }
        }
    }
    write_fold(conn, folded).await?;
    write_dashboard(conn, &dashboard.into_rows()).await?;
    sqlx::query("UPDATE earnings_rollup SET utc_offset_minutes = $1, built = TRUE WHERE id = 1")
        .bind(utc_offset_minutes)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The roll-up rows of a scope that count for this report.
fn rollup_select(scope: &EarningsScope, months: Option<(i64, i64)>, counted: Counted) -> SqlBuilder {
    let mut builder = SqlBuilder::new(
        "SELECT e.ym, e.driver, e.rides, e.driver_share, e.trip_cost, e.convenience_fee, e.discount_amount,
                e.customer_paid, e.charged_cancellations, e.cancellation_fee,
                e.ride_latest_tripdate, e.ride_latest_id, e.ride_driver_name, e.ride_vehicle_number,
                e.latest_tripdate, e.latest_id, e.driver_name, e.vehicle_number
         FROM earnings_months e WHERE ",
    );
    builder.push(match counted {
        Counted::Rides => "e.rides > 0",
        Counted::Reported => "e.rides + e.charged_cancellations > 0",
    });
    if let Some((first, last)) = months {
        builder.push_bind(" AND e.ym BETWEEN ", Bind::Int(first)).push_bind(" AND ", Bind::Int(last));
    }
    if let Some(fleetadmin) = scope.fleetadmin {
        builder.push_bind(" AND e.fleet = ", Bind::Uuid(fleetadmin.0));
    }
    if let Some(driver) = scope.driver {
        builder.push_bind(" AND e.driver = ", Bind::Uuid(driver.0));
    }
    builder
}

/// Where a page of a report resumes: after this (month, driver), in
/// descending order.
fn earnings_cursor(group: &EarningsGroup) -> String {
    encode_cursor(group.ym, group.driver)
}

/// The approval queue's FROM and WHERE: one row per driver with a pending
/// document (the pending index), who is approved already or has every
/// required kind uploaded and not rejected.
fn push_application_filter(builder: &mut SqlBuilder, fleet: Option<UserId>, required: &[DocumentKind]) {
    builder.push(
        " FROM (SELECT DISTINCT driver_id FROM driver_documents WHERE status = 'pending') p
          JOIN users u ON u.id = p.driver_id WHERE u.role = 'driver'",
    );
    if let Some(fleet) = fleet {
        builder.push_bind(" AND u.fleetadmin = ", Bind::Uuid(fleet.0));
    }
    builder.push(" AND (u.approved OR (SELECT COUNT(*) FROM driver_documents r WHERE r.driver_id = p.driver_id AND r.status <> 'rejected'");
    push_in(builder, "r.kind", required.iter().map(|kind| Bind::Text(kind.as_str().to_string())));
    builder.push_bind(") = ", Bind::Int(required.len() as i64)).push(")");
}

fn user_rows(rows: Vec<UserRow>) -> Vec<User> {
    rows.into_iter().map(UserRow::into_user).collect()
}

fn booking_rows(rows: Vec<BookingRow>) -> Vec<Booking> {
    rows.into_iter().map(BookingRow::into_booking).collect()
}

impl Storage for Store {
    fn backend(&self) -> Backend {
        BACKEND
    }
}

#[async_trait]
impl Catalogue for Store {
    async fn settings(&self) -> StorageResult<Option<Settings>> {
        let row: Option<(Json<Settings>,)> =
            sqlx::query_as("SELECT doc FROM settings WHERE id = 1").fetch_optional(&self.pool).await?;
        Ok(row.map(|(document,)| document.0))
    }

    async fn save_settings(&self, settings: &Settings, now: Millis) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO settings (id, created_at, updated_at, doc) VALUES (1, $1, $1, $2)
             ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(now)
        .bind(Json(settings))
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(())
    }

    async fn car_types(&self) -> StorageResult<Vec<CarType>> {
        let rows: Vec<(Json<CarType>,)> =
            sqlx::query_as("SELECT doc FROM car_types ORDER BY created_at, name").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }

    async fn car_type(&self, id: CarTypeId) -> StorageResult<CarType> {
        let row: Option<(Json<CarType>,)> =
            sqlx::query_as("SELECT doc FROM car_types WHERE id = $1").bind(id.0).fetch_optional(&self.pool).await?;
        found(row).map(|(document,)| document.0)
    }

    async fn car_type_by_name(&self, name: &str) -> StorageResult<CarType> {
        let row: Option<(Json<CarType>,)> =
            sqlx::query_as("SELECT doc FROM car_types WHERE name = $1").bind(name).fetch_optional(&self.pool).await?;
        found(row).map(|(document,)| document.0)
    }

    async fn save_car_type(&self, car_type: &CarType, now: Millis) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO car_types (id, name, created_at, updated_at, doc) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(car_type.id.0)
        .bind(&car_type.name)
        .bind(car_type.createdAt)
        .bind(now)
        .bind(Json(car_type))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn delete_car_type(&self, id: CarTypeId) -> StorageResult<()> {
        let result = sqlx::query("DELETE FROM car_types WHERE id = $1")
            .bind(id.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    async fn cancel_reasons(&self) -> StorageResult<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT reason FROM cancel_reasons ORDER BY position").fetch_all(&self.pool).await?)
    }

    async fn save_cancel_reasons(&self, reasons: &[String], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        sqlx::query("DELETE FROM cancel_reasons").execute(&mut *tx).await?;
        for (position, reason) in reasons.iter().enumerate() {
            sqlx::query(
                "INSERT INTO cancel_reasons (position, reason, created_at, updated_at) VALUES ($1, $2, $3, $3)",
            )
            .bind(position as i64)
            .bind(reason)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn payment_providers(&self) -> StorageResult<Vec<PaymentProvider>> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT name, link FROM payment_providers ORDER BY position").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|(name, link)| PaymentProvider { name, link }).collect())
    }

    async fn save_payment_providers(&self, providers: &[PaymentProvider], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        sqlx::query("DELETE FROM payment_providers").execute(&mut *tx).await?;
        for (position, provider) in providers.iter().enumerate() {
            sqlx::query(
                "INSERT INTO payment_providers (position, name, link, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
            )
            .bind(position as i64)
            .bind(&provider.name)
            .bind(&provider.link)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn promos(&self) -> StorageResult<Vec<Promo>> {
        let rows: Vec<PromoRow> =
            sqlx::query_as("SELECT user_avail, doc FROM promos ORDER BY created_at, id").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(PromoRow::into_promo).collect())
    }

    async fn promo(&self, id: PromoId) -> StorageResult<Promo> {
        let row: Option<PromoRow> = sqlx::query_as("SELECT user_avail, doc FROM promos WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
        found(row).map(PromoRow::into_promo)
    }

    async fn promo_by_name(&self, name: &str) -> StorageResult<Option<Promo>> {
        let row: Option<PromoRow> = sqlx::query_as("SELECT user_avail, doc FROM promos WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(PromoRow::into_promo))
    }

    async fn save_promo(&self, promo: &Promo, now: Millis) -> StorageResult<()> {
        // user_avail is counted by the store: written on insert, kept on update.
        sqlx::query(
            "INSERT INTO promos (id, name, user_avail, created_at, updated_at, doc) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(promo.id.0)
        .bind(&promo.promo_name)
        .bind(i64::from(promo.user_avail))
        .bind(promo.createdAt)
        .bind(now)
        .bind(Json(promo))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn delete_promo(&self, id: PromoId) -> StorageResult<()> {
        let result =
            sqlx::query("DELETE FROM promos WHERE id = $1").bind(id.0).execute(&mut *self.write_conn().await?).await?;
        must_affect(result.rows_affected())
    }

    async fn promo_used_by(&self, promo_name: &str, user: UserId) -> StorageResult<bool> {
        let uses: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM promo_uses WHERE promo_name = $1 AND user_id = $2")
            .bind(promo_name)
            .bind(user.0)
            .fetch_one(&self.pool)
            .await?;
        Ok(uses > 0)
    }

    async fn insert_notification(&self, notification: &Notification) -> StorageResult<()> {
        sqlx::query("INSERT INTO notifications (id, created_at, updated_at, doc) VALUES ($1, $2, $2, $3)")
            .bind(notification.id.0)
            .bind(notification.createdAt)
            .bind(Json(notification))
            .execute(&mut *self.write_conn().await?)
            .await
            .map_err(write_error)?;
        Ok(())
    }

    async fn notifications(&self, page: &PageRequest) -> StorageResult<Page<Notification>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new("SELECT n.doc FROM notifications n WHERE TRUE");
        push_keyset(&mut builder, "n.created_at", "n.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "n.created_at", "n.id", order, limit);
        let rows: Vec<(Json<Notification>,)> = fetch_all(&self.pool, builder).await?;
        let notifications = rows.into_iter().map(|(document,)| document.0).collect();
        Ok(page_of(notifications, limit, |notification: &Notification| {
            encode_cursor(notification.createdAt, notification.id.0)
        }))
    }

    async fn delete_notification(&self, id: NotificationId) -> StorageResult<()> {
        let result = sqlx::query("DELETE FROM notifications WHERE id = $1")
            .bind(id.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    async fn languages(&self) -> StorageResult<Vec<Language>> {
        let rows: Vec<(bool, Json<Language>)> =
            sqlx::query_as("SELECT is_default, doc FROM languages ORDER BY created_at, id")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(is_default, document)| Language { default: is_default, ..document.0 }).collect())
    }

    #[instrument(skip_all, fields(language_id = %language.id))]
    async fn save_language(&self, language: &Language, now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        if language.default {
            lock_languages(&mut tx).await?;
        }
        let mut builder = SqlBuilder::new("SELECT is_default FROM languages WHERE id = ");
        builder.bind(Bind::Uuid(language.id.0)).push(D::FOR_UPDATE);
        let current: Option<(bool,)> = fetch_all(&mut *tx, builder).await?.into_iter().next();
        if language.default {
            sqlx::query("UPDATE languages SET is_default = FALSE, updated_at = $1 WHERE is_default AND id <> $2")
                .bind(now)
                .bind(language.id.0)
                .execute(&mut *tx)
                .await?;
        } else if current == Some((true,)) {
            return Err(StorageError::DefaultLanguage);
        }
        sqlx::query(
            "INSERT INTO languages (id, locale, is_default, created_at, updated_at, doc) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET
                locale = excluded.locale, is_default = excluded.is_default,
                updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(language.id.0)
        .bind(&language.langLocale)
        .bind(language.default)
        .bind(language.createdAt)
        .bind(now)
        .bind(Json(language))
        .execute(&mut *tx)
        .await
        .map_err(default_race)?;
        tx.commit().await?;
        Ok(())
    }

    #[instrument(skip_all, fields(language_id = %id))]
    async fn delete_language(&self, id: LanguageId) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let mut builder = SqlBuilder::new("SELECT is_default FROM languages WHERE id = ");
        builder.bind(Bind::Uuid(id.0)).push(D::FOR_UPDATE);
        let current: Option<(bool,)> = fetch_all(&mut *tx, builder).await?.into_iter().next();
        match current {
            None => return Err(StorageError::NotFound),
            Some((true,)) => return Err(StorageError::DefaultLanguage),
            Some((false,)) => {}
        }
        sqlx::query("DELETE FROM languages WHERE id = $1").bind(id.0).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    #[instrument(skip_all, fields(language_id = %id))]
    async fn make_default_language(&self, id: LanguageId, now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        lock_languages(&mut tx).await?;
        // Two statements: a unique index is checked row by row, so the old
        // default must be cleared before the new one is set.
        sqlx::query("UPDATE languages SET is_default = FALSE, updated_at = $1 WHERE is_default AND id <> $2")
            .bind(now)
            .bind(id.0)
            .execute(&mut *tx)
            .await?;
        let result = sqlx::query("UPDATE languages SET is_default = TRUE, updated_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id.0)
            .execute(&mut *tx)
            .await
            .map_err(default_race)?;
        must_affect(result.rows_affected())?;
        tx.commit().await?;
        Ok(())
    }
}

#[async_trait]
impl Accounts for Store {
    #[instrument(skip_all, fields(user_id = %user.id))]
    async fn insert_user(&self, user: &User) -> StorageResult<()> {
        let mut builder = SqlBuilder::new(INSERT_USER);
        push_user_values(&mut builder, user, user.createdAt)?;
        built(builder).execute(&mut *self.write_conn().await?).await.map_err(write_error)?;
        Ok(())
    }

    async fn user(&self, id: UserId) -> StorageResult<User> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push_bind(" FROM users u WHERE u.id = ", Bind::Uuid(id.0));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        found(rows.into_iter().next()).map(UserRow::into_user)
    }

    async fn users_by_id(&self, ids: &[UserId]) -> StorageResult<Vec<User>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE TRUE");
        push_in(&mut builder, "u.id", ids.iter().map(|id| Bind::Uuid(id.0)));
        builder.push(" ORDER BY u.id");
        Ok(user_rows(fetch_all(&self.pool, builder).await?))
    }

    async fn user_by_email(&self, email: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE u.email <> ''");
        builder.push_bind(" AND u.email = ", Bind::Text(email.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    async fn user_by_mobile(&self, mobile: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE u.mobile <> ''");
        builder.push_bind(" AND u.mobile = ", Bind::Text(mobile.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    async fn user_by_referral(&self, referral_id: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE u.referral <> ''");
        builder.push_bind(" AND u.referral = ", Bind::Text(referral_id.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    #[instrument(skip_all, fields(user_id = %user.id))]
    async fn update_user(&self, user: &User, now: Millis) -> StorageResult<()> {
        write_user(&mut *self.write_conn().await?, user, now).await
    }

    #[instrument(skip_all, fields(user_id = %id))]
    async fn modify_user(
        &self,
        id: UserId,
        now: Millis,
        edit: &mut (dyn for<'u> FnMut(&'u mut User) -> bool + Send),
    ) -> StorageResult<Option<User>> {
        let (_turn, mut tx) = self.begin_write().await?;
        // The row stays locked (PostgreSQL; SQLite writers take turns) from
        // this read to the commit, so no other write falls in between.
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push_bind(" FROM users u WHERE u.id = ", Bind::Uuid(id.0)).push(D::FOR_UPDATE);
        let row = built(builder).fetch_optional(&mut *tx).await?;
        let mut user = found(row.map(|row| UserRow::from_row(&row)).transpose()?)?.into_user();
        if !edit(&mut user) {
            tx.rollback().await?;
            return Ok(None);
        }
        if user.id != id {
            // Only the row read above is locked.
            return settle(tx, Err(StorageError::Invalid("id"))).await;
        }
        let written = write_user(&mut tx, &user, now).await;
        settle(tx, written).await?;
        Ok(Some(user))
    }

    #[instrument(skip_all, fields(user_id = %id))]
    async fn delete_user(&self, id: UserId) -> StorageResult<()> {
        let result =
            sqlx::query("DELETE FROM users WHERE id = $1").bind(id.0).execute(&mut *self.write_conn().await?).await?;
        must_affect(result.rows_affected())
    }

    async fn list_users(&self, filter: &UserFilter, page: &PageRequest) -> StorageResult<Page<User>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let list = ListSpec {
            table: SearchTable::Users,
            columns: USER_COLUMNS,
            sort_column: "u.created_at",
            sort_kind: SortKind::Int,
            order,
            limit,
            after: page.after.as_deref(),
        };
        let filters = |builder: &mut SqlBuilder| {
            push_in(builder, "u.role", filter.roles.iter().map(|role| Bind::Text(role.as_str().to_string())));
            if let Some(fleetadmin) = filter.fleetadmin {
                builder.push_bind(" AND u.fleetadmin = ", Bind::Uuid(fleetadmin.0));
            }
            if let Some(approved) = filter.approved {
                builder.push_bind(" AND u.approved = ", Bind::Bool(approved));
            }
        };
        let search = filter.search.as_deref().and_then(SearchQuery::parse);
        let rows = self.list_page(&list, &filters, search.as_ref(), false).await?;
        let users = user_rows(rows);
        Ok(page_of(users, limit, |user| encode_cursor(user.createdAt, user.id.0)))
    }

    async fn push_targets(&self, filter: &PushFilter, page: &PageRequest) -> StorageResult<Page<PushTarget>> {
        let limit = page.limit();
        let mut builder =
            SqlBuilder::new("SELECT u.id, u.role, u.platform, u.push_token, u.language FROM users u WHERE TRUE");
        push_in(&mut builder, "u.role", filter.roles.iter().map(|role| Bind::Text(role.as_str().to_string())));
        push_in(
            &mut builder,
            "u.platform",
            filter.platforms.iter().map(|platform| Bind::Text(platform_text(*platform).to_string())),
        );
        if let Some(cursor) = page.after.as_deref() {
            let (_, after) = decode_cursor(cursor)?;
            builder.push_bind(" AND u.id > ", Bind::Uuid(after));
        }
        builder.push_bind(" ORDER BY u.id LIMIT ", Bind::Int(i64::from(limit) + 1));
        let rows: Vec<PushTargetRow> = fetch_all(&self.pool, builder).await?;
        let targets = rows
            .into_iter()
            .map(|row| {
                Ok(PushTarget {
                    user: UserId(row.id),
                    role: parse_role(&row.role)?,
                    platform: parse_platform(&row.platform)?,
                    push_token: row.push_token,
                    language: row.language,
                })
            })
            .collect::<StorageResult<Vec<_>>>()?;
        Ok(page_of(targets, limit, |target| encode_cursor(0, target.user.0)))
    }

    async fn ratings(&self, driver: UserId) -> StorageResult<Option<Ratings>> {
        let row: Option<(Json<User>,)> =
            sqlx::query_as("SELECT doc FROM users WHERE id = $1").bind(driver.0).fetch_optional(&self.pool).await?;
        found(row).map(|(document,)| document.0.ratings)
    }

    async fn set_driver_active(&self, driver: UserId, active: bool, now: Millis) -> StorageResult<()> {
        let result = sqlx::query("UPDATE users SET driver_active = $1, updated_at = $2 WHERE id = $3")
            .bind(active)
            .bind(now)
            .bind(driver.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    async fn set_queue(&self, driver: UserId, busy: bool, now: Millis) -> StorageResult<()> {
        let result = sqlx::query("UPDATE users SET queue = $1, updated_at = $2 WHERE id = $3")
            .bind(busy)
            .bind(now)
            .bind(driver.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    #[instrument(skip_all, fields(positions = positions.len()))]
    async fn save_locations(&self, positions: &[(UserId, LatLng)], now: Millis) -> StorageResult<()> {
        if positions.is_empty() {
            return Ok(());
        }
        // One order for every batch, so two batches never wait on each other's rows.
        let mut ordered: Vec<&(UserId, LatLng)> = positions.iter().collect();
        ordered.sort_by_key(|(user, _)| *user);
        // One statement and one transaction per chunk, so a booking's commit
        // waits behind one chunk at most, never the whole batch (the rows are
        // last-known positions: a batch cut short by a crash loses nothing
        // the next batch would not rewrite). Positions of accounts deleted
        // meanwhile are skipped.
        for chunk in ordered.chunks(POSITION_CHUNK) {
            let (_turn, mut tx) = self.begin_relaxed_write().await?;
            let mut builder = SqlBuilder::new("WITH v (id, lat, lng) AS (VALUES ");
            for (index, (user, location)) in chunk.iter().enumerate() {
                builder.push(if index == 0 { "(" } else { ", (" });
                builder.push_bind("", Bind::Uuid(user.0));
                builder.push_bind(", ", Bind::OptFloat(Some(location.lat)));
                builder.push_bind(", ", Bind::OptFloat(Some(location.lng)));
                builder.push(")");
            }
            builder.push_bind(
                ") INSERT INTO driver_positions (user_id, lat, lng, updated_at) SELECT v.id, v.lat, v.lng, ",
                Bind::Int(now),
            );
            builder.push(
                " FROM v WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = v.id)
                 ON CONFLICT (user_id) DO UPDATE SET lat = excluded.lat, lng = excluded.lng, updated_at = excluded.updated_at",
            );
            built(builder).execute(&mut *tx).await?;
            tx.commit().await?;
        }
        Ok(())
    }

    async fn online_drivers(&self) -> StorageResult<Vec<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(
            " FROM users u WHERE u.driver_active AND u.role = 'driver'
               AND (u.lat IS NOT NULL OR EXISTS (SELECT 1 FROM driver_positions p WHERE p.user_id = u.id))
             ORDER BY u.id",
        );
        Ok(user_rows(fetch_all(&self.pool, builder).await?))
    }

    async fn insert_challenge(&self, challenge: &Challenge) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO otp_challenges
                (id, contact, code_hash, expires_at, attempts, consumed_at, client, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
        )
        .bind(challenge.id)
        .bind(&challenge.contact)
        .bind(&challenge.code_hash)
        .bind(challenge.expires_at)
        .bind(i64::from(challenge.attempts))
        .bind(challenge.consumed_at)
        .bind(&challenge.client)
        .bind(challenge.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn latest_challenge(&self, contact: &str) -> StorageResult<Option<Challenge>> {
        let row: Option<ChallengeRow> = sqlx::query_as(
            "SELECT id, contact, code_hash, created_at, expires_at, attempts, consumed_at, client
             FROM otp_challenges WHERE contact = $1 AND consumed_at IS NULL
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(contact)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|row| Challenge {
            id: row.id,
            contact: row.contact,
            code_hash: row.code_hash,
            created_at: row.created_at,
            expires_at: row.expires_at,
            attempts: u32::try_from(row.attempts).unwrap_or(u32::MAX),
            consumed_at: row.consumed_at,
            client: row.client,
        }))
    }

    async fn record_failed_attempt(&self, id: Uuid) -> StorageResult<u32> {
        let attempts: Option<i64> =
            sqlx::query_scalar("UPDATE otp_challenges SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts")
                .bind(id)
                .fetch_optional(&mut *self.write_conn().await?)
                .await?;
        found(attempts).map(|attempts| u32::try_from(attempts).unwrap_or(u32::MAX))
    }

    async fn consume_challenge(&self, id: Uuid, now: Millis) -> StorageResult<()> {
        let result = sqlx::query(
            "UPDATE otp_challenges SET consumed_at = $2, updated_at = $2 WHERE id = $1 AND consumed_at IS NULL",
        )
        .bind(id)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        if result.rows_affected() == 1 {
            return Ok(());
        }
        // Two verifications of one code: only the first signs in.
        let exists: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM otp_challenges WHERE id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        if exists > 0 { Err(StorageError::AlreadyProcessed) } else { Err(StorageError::NotFound) }
    }

    async fn challenges_since(&self, contact: &str, since: Millis) -> StorageResult<u64> {
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM otp_challenges WHERE contact = $1 AND created_at >= $2")
                .bind(contact)
                .bind(since)
                .fetch_one(&self.pool)
                .await?;
        Ok(u64::try_from(count).unwrap_or_default())
    }

    async fn insert_session(&self, session: &Session) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO sessions (token_hash, user_id, expires_at, revoked_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(&session.token_hash)
        .bind(session.user.0)
        .bind(session.expires_at)
        .bind(session.revoked_at)
        .bind(session.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn session(&self, token_hash: &str) -> StorageResult<Option<Session>> {
        let row: Option<SessionRow> = sqlx::query_as(
            "SELECT token_hash, user_id, created_at, expires_at, revoked_at FROM sessions WHERE token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(SessionRow::into_session))
    }

    async fn session_with_user(&self, token_hash: &str) -> StorageResult<Option<(Session, User)>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(SESSION_COLUMNS).push(USER_COLUMNS).push_bind(
            " FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ",
            Bind::Text(token_hash.to_string()),
        );
        let rows: Vec<SessionUserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(|row| (row.session.into_session(), row.user.into_user())))
    }

    async fn revoke_session(&self, token_hash: &str, now: Millis) -> StorageResult<()> {
        // Revoking twice keeps the first time.
        let result = sqlx::query(
            "UPDATE sessions SET revoked_at = COALESCE(revoked_at, $2), updated_at = $2 WHERE token_hash = $1",
        )
        .bind(token_hash)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        must_affect(result.rows_affected())
    }

    async fn revoke_user_sessions(&self, user: UserId, now: Millis) -> StorageResult<u64> {
        let result = sqlx::query(
            "UPDATE sessions SET revoked_at = $2, updated_at = $2 WHERE user_id = $1 AND revoked_at IS NULL",
        )
        .bind(user.0)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(result.rows_affected())
    }
}

#[async_trait]
impl Documents for Store {
    async fn insert_file(&self, file: &FileRecord) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO files (id, owner, key, mime, size, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(file.id)
        .bind(file.owner.map(|owner| owner.0))
        .bind(&file.key)
        .bind(&file.mime)
        .bind(i64::try_from(file.size).map_err(|_| StorageError::Invalid("size"))?)
        .bind(file.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn file(&self, id: Uuid) -> StorageResult<FileRecord> {
        let row: Option<FileRow> =
            sqlx::query_as("SELECT id, owner, key, mime, size, created_at FROM files WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        let row = found(row)?;
        Ok(FileRecord {
            id: row.id,
            owner: row.owner.map(UserId),
            key: row.key,
            mime: row.mime,
            size: u64::try_from(row.size).unwrap_or_default(),
            created_at: row.created_at,
        })
    }

    async fn save_driver_document(&self, document: &DriverDocument) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO driver_documents (driver_id, kind, status, expires_at, reminded_at, created_at, updated_at, doc)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (driver_id, kind) DO UPDATE SET status = excluded.status, expires_at = excluded.expires_at,
                reminded_at = excluded.reminded_at, updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(document.driver.0)
        .bind(document.kind.as_str())
        .bind(document.status.as_str())
        .bind(document.expires_at)
        .bind(document.reminded_at)
        .bind(document.created_at)
        .bind(document.updated_at)
        .bind(Json(document))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn driver_documents(&self, driver: UserId) -> StorageResult<Vec<DriverDocument>> {
        let rows: Vec<(Json<DriverDocument>,)> =
            sqlx::query_as("SELECT doc FROM driver_documents WHERE driver_id = $1 ORDER BY kind")
                .bind(driver.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }

    #[instrument(skip_all, fields(user_id = %driver))]
    async fn review_driver_documents(
        &self,
        driver: UserId,
        status: DocumentStatus,
        reason: Option<&str>,
        by: UserId,
        now: Millis,
    ) -> StorageResult<Vec<DriverDocument>> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = async {
            let mut select =
                SqlBuilder::new("SELECT doc FROM driver_documents WHERE status = 'pending' AND driver_id = ");
            select.push_bind("", Bind::Uuid(driver.0)).push(" ORDER BY kind").push(D::FOR_UPDATE);
            let rows: Vec<(Json<DriverDocument>,)> = fetch_all(&mut *tx, select).await?;
            let mut reviewed = Vec::with_capacity(rows.len());
            for (Json(mut document),) in rows {
                document.status = status;
                document.reason = reason.map(str::to_string);
                document.reviewed_by = Some(by);
                document.reviewed_at = Some(now);
                document.updated_at = now;
                sqlx::query(
                    "UPDATE driver_documents SET status = $3, updated_at = $4, doc = $5 WHERE driver_id = $1 AND kind = $2",
                )
                .bind(driver.0)
                .bind(document.kind.as_str())
                .bind(status.as_str())
                .bind(now)
                .bind(Json(&document))
                .execute(&mut *tx)
                .await?;
                reviewed.push(document);
            }
            Ok(reviewed)
        }
        .await;
        settle(tx, work).await
    }

    async fn driver_applications(
        &self,
        fleet: Option<UserId>,
        required: &[DocumentKind],
        page: &PageRequest,
    ) -> StorageResult<Page<User>> {
        let limit = page.limit();
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS);
        push_application_filter(&mut builder, fleet, required);
        if let Some(after) = page.after.as_deref() {
            let after = Uuid::parse_str(after).map_err(|_| StorageError::Invalid("cursor"))?;
            builder.push_bind(" AND p.driver_id > ", Bind::Uuid(after));
        }
        builder.push(" ORDER BY p.driver_id").push_bind(" LIMIT ", Bind::Int(i64::from(limit) + 1));
        let users = user_rows(fetch_all(&self.pool, builder).await?);
        Ok(page_of(users, limit, |user| user.id.0.simple().to_string()))
    }

    async fn count_driver_applications(&self, fleet: Option<UserId>, required: &[DocumentKind]) -> StorageResult<u64> {
        let mut builder = SqlBuilder::new("SELECT COUNT(*)");
        push_application_filter(&mut builder, fleet, required);
        let rows: Vec<(i64,)> = fetch_all(&self.pool, builder).await?;
        Ok(rows.first().map_or(0, |(count,)| u64::try_from(*count).unwrap_or_default()))
    }

    async fn documents_to_remind(&self, before: Millis, limit: u32) -> StorageResult<Vec<DriverDocument>> {
        let rows: Vec<(Json<DriverDocument>,)> = sqlx::query_as(
            "SELECT doc FROM driver_documents WHERE reminded_at IS NULL AND expires_at IS NOT NULL
             AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
        )
        .bind(before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }

    async fn mark_document_reminded(&self, driver: UserId, kind: DocumentKind, now: Millis) -> StorageResult<bool> {
        let mut conn = self.write_conn().await?;
        let row: Option<(Json<DriverDocument>,)> = sqlx::query_as(
            "SELECT doc FROM driver_documents WHERE driver_id = $1 AND kind = $2 AND reminded_at IS NULL",
        )
        .bind(driver.0)
        .bind(kind.as_str())
        .fetch_optional(&mut *conn)
        .await?;
        let Some((Json(mut document),)) = row else { return Ok(false) };
        document.reminded_at = Some(now);
        // The condition decides between two sweeps: only one changes the row.
        let result = sqlx::query(
            "UPDATE driver_documents SET reminded_at = $3, doc = $4
             WHERE driver_id = $1 AND kind = $2 AND reminded_at IS NULL",
        )
        .bind(driver.0)
        .bind(kind.as_str())
        .bind(now)
        .bind(Json(&document))
        .execute(&mut *conn)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    async fn online_expired_documents(&self, now: Millis) -> StorageResult<Vec<DriverDocument>> {
        // From the online drivers' partial index, then each one's documents by key.
        let rows: Vec<(Json<DriverDocument>,)> = sqlx::query_as(
            "SELECT d.doc FROM users u JOIN driver_documents d ON d.driver_id = u.id
             WHERE u.driver_active AND u.role = 'driver' AND d.expires_at IS NOT NULL AND d.expires_at <= $1
             ORDER BY d.driver_id, d.kind",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }
}

#[async_trait]
impl Bookings for Store {
    #[instrument(skip_all, fields(booking_id = %booking.id, expected_version = ?expected_version))]
    async fn commit_booking(
        &self,
        booking: &Booking,
        expected_version: Option<u64>,
        effects: &[Effect],
        now: Millis,
    ) -> StorageResult<Committed> {
        if D::SCRIPTS {
            return self.commit_booking_in_scripts(booking, expected_version, effects, now).await;
        }
        // PostgreSQL: a statement per call, in an ordinary transaction (the
        // server groups its flushes itself).
        let (_turn, mut tx) = self.begin_write().await?;
        let written = async {
            let before = match expected_version {
                Some(_) => read_part_columns(&mut tx, booking.id.0).await?,
                None => None,
            };
            let version = match expected_version {
                None => {
                    insert_booking(&mut tx, booking, now).await?;
                    1
                }
                Some(expected) => {
                    update_booking(&mut tx, booking, expected, now).await?;
                    expected + 1
                }
            };
            update_rollup(&mut tx, before.as_ref(), &part_columns(booking)?).await?;
            replace_offers(&mut tx, booking, expected_version.is_none(), now).await?;
            lock_users(&mut tx, &users_touched(effects)).await?;
            let balances = apply_effects(&mut tx, booking.id, effects, now).await?;
            Ok((version, balances))
        }
        .await;
        // A lost compare-and-set and a refused debit are routine here.
        let (version, balances) = settle(tx, written).await?;
        let mut stored = booking.clone();
        stored.version = version;
        Ok(Committed { booking: stored, balances })
    }

    async fn booking(&self, id: BookingId) -> StorageResult<Booking> {
        let row: Option<BookingRow> = sqlx::query_as("SELECT version, doc FROM bookings WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
        found(row).map(BookingRow::into_booking)
    }

    async fn list_bookings(&self, filter: &BookingFilter, page: &PageRequest) -> StorageResult<Page<Booking>> {
        let limit = page.limit();
        let (sort_column, sort_kind) = booking_sort_column(filter.sort);
        let list = ListSpec {
            table: SearchTable::Bookings,
            columns: "b.version, b.doc",
            sort_column,
            sort_kind,
            order: filter.order,
            limit,
            after: page.after.as_deref(),
        };
        let filters = |builder: &mut SqlBuilder| {
            if let Some(customer) = filter.customer {
                builder.push_bind(" AND b.customer = ", Bind::Uuid(customer.0));
            }
            if let Some(driver) = filter.driver {
                builder.push_bind(" AND b.driver = ", Bind::Uuid(driver.0));
            }
            if let Some(fleetadmin) = filter.fleetadmin {
                builder.push_bind(" AND b.fleetadmin = ", Bind::Uuid(fleetadmin.0));
            }
            push_in(
                builder,
                "b.status",
                filter.statuses.iter().map(|status| Bind::Text(status_text(*status).to_string())),
            );
        };
        let search = filter.search.as_deref().and_then(SearchQuery::parse);
        let narrow = filter.customer.is_some() || filter.driver.is_some();
        let rows = self.list_page(&list, &filters, search.as_ref(), narrow).await?;
        let bookings = booking_rows(rows);
        Ok(page_of(bookings, limit, |booking| {
            encode_sort_cursor(&booking_sort_value(booking, filter.sort), booking.id.0)
        }))
    }

    async fn active_bookings(&self) -> StorageResult<Vec<Booking>> {
        let rows: Vec<BookingRow> =
            sqlx::query_as("SELECT b.version, b.doc FROM bookings b WHERE b.active ORDER BY b.tripdate, b.id")
                .fetch_all(&self.pool)
                .await?;
        Ok(booking_rows(rows))
    }

    async fn bookings_offered_to(&self, driver: UserId) -> StorageResult<Vec<Booking>> {
        let rows: Vec<BookingRow> = sqlx::query_as(
            "SELECT b.version, b.doc FROM booking_offers o JOIN bookings b ON b.id = o.booking_id
             WHERE o.driver_id = $1 ORDER BY b.tripdate, b.id",
        )
        .bind(driver.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(booking_rows(rows))
    }

    async fn owed_bookings(&self, fleetadmin: Option<UserId>, limit: u32) -> StorageResult<OwedBookings> {
        // The status index and the partial index of fees owed, each read newest first.
        let mut lists = Vec::with_capacity(2);
        for start in [
            "SELECT b.version, b.doc FROM bookings b WHERE b.status = 'PENDING'",
            "SELECT b.version, b.doc FROM bookings b WHERE b.fee_owed_micros > 0",
        ] {
            let mut builder = SqlBuilder::new(start);
            if let Some(fleet) = fleetadmin {
                builder.push_bind(" AND b.fleetadmin = ", Bind::Uuid(fleet.0));
            }
            builder
                .push_bind(" ORDER BY b.tripdate DESC, b.id DESC LIMIT ", Bind::Int(i64::from(limit.clamp(1, 1000))));
            let rows: Vec<BookingRow> = fetch_all(&self.pool, builder).await?;
            lists.push(booking_rows(rows));
        }
        let fees = lists.pop().unwrap_or_default();
        let pending = lists.pop().unwrap_or_default();
        Ok(OwedBookings { pending, fees })
    }

    #[instrument(skip_all, fields(sos_id = %alert.id, booking_id = %alert.booking))]
    async fn raise_sos(&self, alert: &SosAlert, now: Millis) -> StorageResult<(SosAlert, bool)> {
        let mut conn = self.write_conn().await?;
        // The partial unique index on (booking, raiser) while unresolved
        // makes a second press find the first alert instead of a new one.
        let inserted: Option<SosRow> = sqlx::query_as(AssertSqlSafe(format!(
            "INSERT INTO sos_alerts (id, booking_id, reference, raised_by, raised_by_role, raised_by_name, lat, lng,
                 fleetadmin, list_rank, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT DO NOTHING
             RETURNING {SOS_COLUMNS}"
        )))
        .bind(alert.id.0)
        .bind(alert.booking.0)
        .bind(&alert.reference)
        .bind(alert.raised_by.0)
        .bind(alert.raised_by_role.as_str())
        .bind(&alert.raised_by_name)
        .bind(alert.lat)
        .bind(alert.lng)
        .bind(alert.fleetadmin.map(|id| id.0))
        .bind(sos_rank(alert))
        .bind(alert.created_at)
        .bind(now)
        .fetch_optional(&mut *conn.conn)
        .await
        .map_err(write_error)?;
        if let Some(row) = inserted {
            return Ok((row.into_alert()?, true));
        }
        let open: Option<SosRow> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT {SOS_COLUMNS} FROM sos_alerts WHERE booking_id = $1 AND raised_by = $2 AND resolved_at IS NULL"
        )))
        .bind(alert.booking.0)
        .bind(alert.raised_by.0)
        .fetch_optional(&mut *conn.conn)
        .await?;
        // Nothing open and nothing inserted: the id was taken by another alert.
        let open = open.ok_or(StorageError::Duplicate("id"))?;
        Ok((open.into_alert()?, false))
    }

    async fn sos_alert(&self, id: SosId) -> StorageResult<SosAlert> {
        let row: Option<SosRow> =
            sqlx::query_as(AssertSqlSafe(format!("SELECT {SOS_COLUMNS} FROM sos_alerts WHERE id = $1")))
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        found(row)?.into_alert()
    }

    async fn sos_alerts(&self, filter: &SosFilter, page: &PageRequest) -> StorageResult<Page<SosAlert>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new(
            "SELECT s.id, s.booking_id, s.reference, s.raised_by, s.raised_by_role, s.raised_by_name, s.lat, s.lng, \
             s.fleetadmin, s.taken_by, s.taken_by_name, s.taken_at, s.resolved_by, s.resolved_by_name, s.resolved_at, \
             s.note, s.created_at, s.list_rank FROM sos_alerts s WHERE TRUE",
        );
        if let Some(fleet) = filter.fleetadmin {
            builder.push_bind(" AND s.fleetadmin = ", Bind::Uuid(fleet.0));
        }
        if filter.open_only {
            // The unresolved ones are the top of the rank index: a range, not a scan.
            builder.push_bind(" AND s.list_rank >= ", Bind::Int(SOS_OPEN_RANK));
            builder.push(" AND s.taken_at IS NULL");
        }
        push_keyset(&mut builder, "s.list_rank", "s.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "s.list_rank", "s.id", order, limit);
        let rows: Vec<RankedSosRow> = fetch_all(&self.pool, builder).await?;
        let alerts = rows
            .into_iter()
            .map(|ranked| Ok((ranked.row.into_alert()?, ranked.list_rank)))
            .collect::<StorageResult<Vec<_>>>()?;
        let page = page_of(alerts, limit, |(alert, rank)| encode_cursor(*rank, alert.id.0));
        Ok(Page { items: page.items.into_iter().map(|(alert, _)| alert).collect(), next: page.next })
    }

    #[instrument(skip_all, fields(sos_id = %alert.id))]
    async fn update_sos(&self, alert: &SosAlert, from: SosState, now: Millis) -> StorageResult<()> {
        let guard = match from {
            SosState::Open => " AND taken_at IS NULL AND resolved_at IS NULL",
            SosState::Taken => " AND taken_at IS NOT NULL AND resolved_at IS NULL",
            SosState::Resolved => " AND resolved_at IS NOT NULL",
        };
        let mut conn = self.write_conn().await?;
        let updated = sqlx::query(AssertSqlSafe(format!(
            "UPDATE sos_alerts SET taken_by = $2, taken_by_name = $3, taken_at = $4, resolved_by = $5,
                 resolved_by_name = $6, resolved_at = $7, note = $8, list_rank = $9, updated_at = $10
             WHERE id = $1{guard}"
        )))
        .bind(alert.id.0)
        .bind(alert.taken_by.map(|id| id.0))
        .bind(&alert.taken_by_name)
        .bind(alert.taken_at)
        .bind(alert.resolved_by.map(|id| id.0))
        .bind(&alert.resolved_by_name)
        .bind(alert.resolved_at)
        .bind(&alert.note)
        .bind(sos_rank(alert))
        .bind(now)
        .execute(&mut *conn.conn)
        .await?;
        if updated.rows_affected() == 1 {
            return Ok(());
        }
        let exists: Option<Uuid> = sqlx::query_scalar("SELECT id FROM sos_alerts WHERE id = $1")
            .bind(alert.id.0)
            .fetch_optional(&mut *conn.conn)
            .await?;
        match exists {
            Some(_) => Err(StorageError::Conflict),
            None => Err(StorageError::NotFound),
        }
    }

    async fn append_tracking(&self, booking: BookingId, point: &TrackingPoint) -> StorageResult<()> {
        insert_tracking(&mut *self.write_conn().await?, booking, point).await
    }

    async fn latest_tracking(&self, booking: BookingId) -> StorageResult<Option<TrackingPoint>> {
        let row: Option<TrackingRow> = sqlx::query_as(
            "SELECT at, status, lat, lng FROM tracking_points WHERE booking_id = $1 ORDER BY at DESC, seq DESC LIMIT 1",
        )
        .bind(booking.0)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| Ok(TrackingPoint { at: row.at, status: parse_status(&row.status)?, lat: row.lat, lng: row.lng }))
            .transpose()
    }

    async fn tracking(&self, booking: BookingId) -> StorageResult<Vec<TrackingPoint>> {
        let rows: Vec<TrackingRow> =
            sqlx::query_as("SELECT at, status, lat, lng FROM tracking_points WHERE booking_id = $1 ORDER BY at, seq")
                .bind(booking.0)
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter()
            .map(|row| Ok(TrackingPoint { at: row.at, status: parse_status(&row.status)?, lat: row.lat, lng: row.lng }))
            .collect()
    }

    async fn append_chat(&self, booking: BookingId, message: &ChatMessage) -> StorageResult<StoredChat> {
        let id = Uuid::now_v7();
        sqlx::query(
            "INSERT INTO chat_messages (id, booking_id, sender, read_at, created_at, updated_at, doc)
             VALUES ($1, $2, $3, NULL, $4, $4, $5)",
        )
        .bind(id)
        .bind(booking.0)
        .bind(message.from.0)
        .bind(message.createdAt)
        .bind(Json(message))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(StoredChat { id, message: message.clone(), read_at: None })
    }

    async fn chat(&self, booking: BookingId) -> StorageResult<Vec<StoredChat>> {
        let rows: Vec<ChatRow> =
            sqlx::query_as("SELECT id, read_at, doc FROM chat_messages WHERE booking_id = $1 ORDER BY created_at, seq")
                .bind(booking.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let mut message = row.doc.0;
                // A read message's smsId is its id, unless it came with one.
                if row.read_at.is_some() && message.smsId.is_none() {
                    message.smsId = Some(row.id.to_string());
                }
                StoredChat { id: row.id, message, read_at: row.read_at }
            })
            .collect())
    }

    async fn mark_chat_read(&self, booking: BookingId, reader: UserId, now: Millis) -> StorageResult<u64> {
        let result = sqlx::query(
            "UPDATE chat_messages SET read_at = $3, updated_at = $3
             WHERE booking_id = $1 AND sender <> $2 AND read_at IS NULL",
        )
        .bind(booking.0)
        .bind(reader.0)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(result.rows_affected())
    }
}

#[async_trait]
impl Ledger for Store {
    #[instrument(skip_all, fields(user_id = %change.user, key = %change.idempotency_key))]
    async fn apply_wallet(&self, change: &WalletChange, now: Millis) -> StorageResult<WalletOutcome> {
        let (_turn, mut tx) = self.begin_write().await?;
        let applied = apply_ledger(&mut tx, change, now).await;
        let (applied, balance) = settle(tx, applied).await?;
        if !applied {
            tracing::debug!("wallet entry already applied");
        }
        Ok(WalletOutcome { applied, balance: from_micros(balance) })
    }

    async fn wallet_balance(&self, user: UserId) -> StorageResult<Decimal> {
        let balance: Option<i64> = sqlx::query_scalar("SELECT wallet_balance_micros FROM users WHERE id = $1")
            .bind(user.0)
            .fetch_optional(&self.pool)
            .await?;
        found(balance).map(from_micros)
    }

    async fn wallet_history(&self, user: UserId, page: &PageRequest) -> StorageResult<Page<WalletRecord>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new(
            "SELECT w.entry_type, w.amount_micros, w.date, w.tx_ref, w.idempotency_key, w.id
             FROM wallet_entries w WHERE w.user_id = ",
        );
        builder.bind(Bind::Uuid(user.0));
        push_keyset(&mut builder, "w.date", "w.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "w.date", "w.id", order, limit);
        let rows: Vec<WalletRow> = fetch_all(&self.pool, builder).await?;
        let records = rows
            .into_iter()
            .map(|row| {
                let record = WalletRecord {
                    entry: WalletEntry {
                        entry_type: parse_entry_type(&row.entry_type)?,
                        amount: from_micros(row.amount_micros),
                        date: row.date,
                        txRef: row.tx_ref,
                    },
                    idempotency_key: row.idempotency_key,
                };
                Ok((record, row.id))
            })
            .collect::<StorageResult<Vec<_>>>()?;
        let page = page_of(records, limit, |(record, id)| encode_cursor(record.entry.date, *id));
        Ok(Page { items: page.items.into_iter().map(|(record, _)| record).collect(), next: page.next })
    }

    async fn booking_ledger(&self, booking: BookingId) -> StorageResult<Vec<LedgerRecord>> {
        let rows: Vec<LedgerRow> = sqlx::query_as(
            "SELECT w.user_id, w.entry_type, w.amount_micros, w.date, w.tx_ref FROM wallet_entries w
             WHERE w.booking_id = $1 ORDER BY w.date, w.id",
        )
        .bind(booking.0)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|row| {
                Ok(LedgerRecord {
                    user: UserId(row.user_id),
                    entry: WalletEntry {
                        entry_type: parse_entry_type(&row.entry_type)?,
                        amount: from_micros(row.amount_micros),
                        date: row.date,
                        txRef: row.tx_ref,
                    },
                })
            })
            .collect()
    }

    #[instrument(skip_all, fields(withdraw_id = %request.id, user_id = %request.uid))]
    async fn create_withdraw(
        &self,
        request: &WithdrawRequest,
        debit: &WalletChange,
        now: Millis,
    ) -> StorageResult<WalletOutcome> {
        if debit.user != request.uid {
            return Err(StorageError::Invalid("debit"));
        }
        let amount = to_micros(request.amount, "amount")?;
        let (_turn, mut tx) = self.begin_write().await?;
        let (applied, balance) = match apply_ledger(&mut tx, debit, now).await {
            Ok(outcome) => outcome,
            Err(error) => return settle(tx, Err(error)).await,
        };
        // A replayed debit means this request was stored the first time.
        if applied {
            sqlx::query(
                "INSERT INTO withdraws (id, user_id, date, amount_micros, processed, proces_date, created_at, updated_at, doc)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(request.id.0)
            .bind(request.uid.0)
            .bind(request.date)
            .bind(amount)
            .bind(request.processed)
            .bind(request.procesDate)
            .bind(now)
            .bind(Json(request))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(WalletOutcome { applied, balance: from_micros(balance) })
    }

    #[instrument(skip_all, fields(withdraw_id = %id))]
    async fn complete_withdraw(&self, id: WithdrawId, now: Millis) -> StorageResult<WithdrawRequest> {
        let completed: Option<WithdrawRow> = sqlx::query_as(
            "UPDATE withdraws SET processed = TRUE, proces_date = $2, updated_at = $2
             WHERE id = $1 AND NOT processed
             RETURNING processed, proces_date, doc",
        )
        .bind(id.0)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(row) = completed {
            return Ok(row.into_withdraw());
        }
        let exists: Option<bool> = sqlx::query_scalar("SELECT processed FROM withdraws WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
        match exists {
            Some(_) => Err(StorageError::AlreadyProcessed),
            None => Err(StorageError::NotFound),
        }
    }

    async fn withdraw(&self, id: WithdrawId) -> StorageResult<WithdrawRequest> {
        let row: Option<WithdrawRow> =
            sqlx::query_as("SELECT processed, proces_date, doc FROM withdraws WHERE id = $1")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        found(row).map(WithdrawRow::into_withdraw)
    }

    async fn withdraws(&self, user: Option<UserId>, page: &PageRequest) -> StorageResult<Page<WithdrawRequest>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new("SELECT w.processed, w.proces_date, w.doc FROM withdraws w WHERE TRUE");
        if let Some(user) = user {
            builder.push_bind(" AND w.user_id = ", Bind::Uuid(user.0));
        }
        push_keyset(&mut builder, "w.date", "w.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "w.date", "w.id", order, limit);
        let rows: Vec<WithdrawRow> = fetch_all(&self.pool, builder).await?;
        let requests = rows.into_iter().map(WithdrawRow::into_withdraw).collect();
        Ok(page_of(requests, limit, |request: &WithdrawRequest| encode_cursor(request.date, request.id.0)))
    }

    async fn insert_payment(&self, payment: &PaymentRecord) -> StorageResult<()> {
        let (order_kind, booking) = match payment.order {
            PaymentOrder::Booking(booking) => ("booking", Some(booking.0)),
            PaymentOrder::WalletTopUp => ("wallet", None),
        };
        sqlx::query(
            "INSERT INTO payments (id, gateway, order_kind, booking_id, customer, amount_micros, currency, status,
                gateway_ref, event_id, success_url, cancel_url, settled_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)",
        )
        .bind(payment.id)
        .bind(&payment.gateway)
        .bind(order_kind)
        .bind(booking)
        .bind(payment.customer.0)
        .bind(to_micros(payment.amount, "amount")?)
        .bind(&payment.currency)
        .bind(payment.status.as_str())
        .bind(&payment.gateway_ref)
        .bind(&payment.event_id)
        .bind(&payment.success_url)
        .bind(&payment.cancel_url)
        .bind(payment.settled_at)
        .bind(payment.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn payment(&self, id: Uuid) -> StorageResult<PaymentRecord> {
        let row: Option<PaymentRow> = sqlx::query_as(
            "SELECT id, gateway, order_kind, booking_id, customer, amount_micros, currency, status, gateway_ref,
                event_id, success_url, cancel_url, settled_at, created_at
             FROM payments WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        found(row)?.into_record()
    }

    async fn set_payment_reference(&self, id: Uuid, gateway_ref: &str, now: Millis) -> StorageResult<()> {
        let result = sqlx::query("UPDATE payments SET gateway_ref = $1, updated_at = $2 WHERE id = $3")
            .bind(gateway_ref)
            .bind(now)
            .bind(id)
            .execute(&mut *self.write_conn().await?)
            .await
            .map_err(write_error)?;
        must_affect(result.rows_affected())
    }

    async fn settle_payment(
        &self,
        id: Uuid,
        status: PaymentStatus,
        event_id: Option<&str>,
        now: Millis,
    ) -> StorageResult<bool> {
        // One UPDATE guarded by the status: of two concurrent confirmations,
        // exactly one sees a row change.
        let result = sqlx::query(
            "UPDATE payments SET status = $1, event_id = $2, settled_at = $3, updated_at = $3
             WHERE id = $4 AND status = 'pending'",
        )
        .bind(status.as_str())
        .bind(event_id)
        .bind(now)
        .bind(id)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        if result.rows_affected() == 1 {
            return Ok(true);
        }
        let exists: Option<(Uuid,)> =
            sqlx::query_as("SELECT id FROM payments WHERE id = $1").bind(id).fetch_optional(&self.pool).await?;
        found(exists)?;
        Ok(false)
    }
}

#[async_trait]
impl Reports for Store {
    #[instrument(skip_all)]
    async fn driver_earnings(&self, scope: &EarningsScope) -> StorageResult<Vec<EarningsRow>> {
        let groups = self.earnings_groups(scope, Counted::Rides).await?;
        Ok(groups.iter().map(|group| group.earnings_row(scope.decimals)).collect())
    }

    #[instrument(skip_all)]
    async fn earnings_report(&self, scope: &EarningsScope) -> StorageResult<Vec<EarningsReportRow>> {
        let groups = self.earnings_groups(scope, Counted::Reported).await?;
        Ok(groups.iter().map(|group| group.report_row(scope.decimals)).collect())
    }

    #[instrument(skip_all)]
    async fn earnings_report_page(
        &self,
        scope: &EarningsScope,
        page: &PageRequest,
    ) -> StorageResult<Page<EarningsReportRow>> {
        let groups = self.earnings_page(scope, Counted::Reported, page).await?;
        Ok(Page {
            items: groups.items.iter().map(|group| group.report_row(scope.decimals)).collect(),
            next: groups.next,
        })
    }

    async fn driver_earnings_page(
        &self,
        scope: &EarningsScope,
        page: &PageRequest,
    ) -> StorageResult<Page<EarningsRow>> {
        let groups = self.earnings_page(scope, Counted::Rides, page).await?;
        Ok(Page {
            items: groups.items.iter().map(|group| group.earnings_row(scope.decimals)).collect(),
            next: groups.next,
        })
    }

    #[instrument(skip(self))]
    async fn prepare_earnings_rollup(&self, utc_offset_minutes: i32) -> StorageResult<()> {
        wayfare_engine::timefmt::validate_utc_offset(utc_offset_minutes)
            .map_err(|_| StorageError::Invalid("utc_offset_minutes"))?;
        let (_turn, mut tx) = self.begin_write().await?;
        if rollup_offset(&mut tx).await? == Some(utc_offset_minutes) {
            return Ok(());
        }
        rebuild_rollup(&mut tx, utc_offset_minutes).await?;
        tx.commit().await?;
        Ok(())
    }

    #[instrument(skip_all)]
    async fn dashboard_earnings(&self, scope: &DashboardScope) -> StorageResult<DashboardEarnings> {
        let today = wayfare_engine::timefmt::local_date(scope.now, scope.utc_offset_minutes);
        let rollup_offset = rollup_offset(&mut *self.pool.acquire().await?).await?;
        let sums = if rollup_offset == Some(scope.utc_offset_minutes) {
            // Three primary-key reads: a fleet's row, or every fleet's.
            let keys = [
                (rollup::GRAIN_ALL, Some(0)),
                (rollup::GRAIN_MONTH, today.map(rollup::month_key)),
                (rollup::GRAIN_DAY, today.map(rollup::day_key)),
            ];
            let mut builder = SqlBuilder::default();
            for (index, (grain, period)) in keys.into_iter().enumerate() {
                builder.push(if index == 0 { "SELECT " } else { " UNION ALL SELECT " });
                builder.push_bind("CAST(", Bind::Int(grain)).push(
                    " AS BIGINT) AS grain, CAST(COALESCE(SUM(d.rides), 0) AS BIGINT) AS rides,
                        CAST(COALESCE(SUM(d.trip_cost), 0) AS BIGINT) AS trip_cost
                     FROM dashboard_earnings d WHERE d.grain = ",
                );
                builder.bind(Bind::Int(grain));
                // A `now` no calendar places has no day or month: -1 is no period.
                builder.push_bind(" AND d.period = ", Bind::Int(period.unwrap_or(-1)));
                if let Some(fleetadmin) = scope.fleetadmin {
                    builder.push_bind(" AND d.fleet = ", Bind::Uuid(fleetadmin.0));
                }
            }
            let rows: Vec<(i64, i64, i64)> =
                built(builder).try_map(|row| <(i64, i64, i64)>::from_row(&row)).fetch_all(&self.pool).await?;
            let of = |grain| rows.iter().find(|row| row.0 == grain).map(|row| (row.1, row.2)).unwrap_or_default();
            [of(rollup::GRAIN_DAY), of(rollup::GRAIN_MONTH), of(rollup::GRAIN_ALL)]
        } else {
            // Summed from the bookings (the covering earnings indexes): the
            // panel's rides are those of `counts_for_earnings`.
            let span = |span: Option<(Millis, Millis)>| span.unwrap_or((0, 0));
            let (day_from, day_until) =
                span(wayfare_engine::timefmt::local_day_span(scope.now, scope.utc_offset_minutes));
            let (month_from, month_until) =
                span(wayfare_engine::timefmt::local_month_span(scope.now, scope.utc_offset_minutes));
            let mut builder = SqlBuilder::new(
                "SELECT
                    CAST(COUNT(CASE WHEN b.tripdate >= $1 AND b.tripdate < $2 THEN 1 END) AS BIGINT),
                    CAST(COALESCE(SUM(CASE WHEN b.tripdate >= $1 AND b.tripdate < $2 THEN b.trip_cost_micros ELSE 0 END), 0) AS BIGINT),
                    CAST(COUNT(CASE WHEN b.tripdate >= $3 AND b.tripdate < $4 THEN 1 END) AS BIGINT),
                    CAST(COALESCE(SUM(CASE WHEN b.tripdate >= $3 AND b.tripdate < $4 THEN b.trip_cost_micros ELSE 0 END), 0) AS BIGINT),
                    CAST(COUNT(*) AS BIGINT),
                    CAST(COALESCE(SUM(b.trip_cost_micros), 0) AS BIGINT)
                 FROM bookings b
                 WHERE b.driver IS NOT NULL AND b.status IN ('PAID', 'COMPLETE')",
            );
            builder.binds =
                vec![Bind::Int(day_from), Bind::Int(day_until), Bind::Int(month_from), Bind::Int(month_until)];
            if let Some(fleetadmin) = scope.fleetadmin {
                builder.push_bind(" AND b.fleetadmin = ", Bind::Uuid(fleetadmin.0));
            }
            let row: (i64, i64, i64, i64, i64, i64) =
                built(builder).try_map(|row| FromRow::from_row(&row)).fetch_one(&self.pool).await?;
            [(row.0, row.1), (row.2, row.3), (row.4, row.5)]
        };
        let [(today_rides, today_sum), (month_rides, month_sum), (total_rides, total_sum)] = sums;
        let amount = |micros| wayfare_engine::money::round(from_micros(micros), scope.decimals);
        let count = |rides: i64| u64::try_from(rides).unwrap_or_default();
        Ok(DashboardEarnings {
            today: amount(today_sum),
            thisMonth: amount(month_sum),
            total: amount(total_sum),
            rides: DashboardRides {
                today: count(today_rides),
                thisMonth: count(month_rides),
                total: count(total_rides),
            },
        })
    }

    async fn audit(&self) -> StorageResult<Audit> {
        // Statuses that hold the driver (the engine sets `queue` on accept and
        // clears it on PENDING, PAID from REACHED, or a cancel).
        const HOLDING: &str = "('ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED')";
        const TRIP: &str = "('ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID', 'COMPLETE')";
        let ids = |sql: String| async move {
            let ids: Vec<Uuid> = sqlx::query_scalar(AssertSqlSafe(sql)).fetch_all(&self.pool).await?;
            StorageResult::Ok(ids)
        };
        let (users, bookings, active_bookings): (i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM bookings),
                    (SELECT COUNT(*) FROM bookings WHERE active)",
        )
        .fetch_one(&self.pool)
        .await?;
        // Debits and withdraws are stored as positive amounts.
        let wallets: Vec<(Uuid, i64, i64)> = sqlx::query_as(
            "SELECT id, balance, ledger FROM (
                SELECT u.id, u.wallet_balance_micros AS balance,
                       CAST(COALESCE((SELECT SUM(CASE WHEN w.entry_type = 'Credit' THEN w.amount_micros
                                                      ELSE -w.amount_micros END)
                                      FROM wallet_entries w WHERE w.user_id = u.id), 0) AS BIGINT) AS ledger
                FROM users u) t
             WHERE balance <> ledger ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        let drivers_on_two_trips = ids(format!(
            "SELECT driver FROM bookings WHERE driver IS NOT NULL AND status IN {HOLDING}
             GROUP BY driver HAVING COUNT(*) > 1 ORDER BY driver"
        ))
        .await?;
        let busy_flag_mismatches = ids(format!(
            "SELECT u.id FROM users u WHERE u.role = 'driver'
               AND u.queue <> EXISTS (SELECT 1 FROM bookings b WHERE b.driver = u.id AND b.status IN {HOLDING})
             ORDER BY u.id"
        ))
        .await?;
        let active_flag_mismatches =
            ids("SELECT id FROM bookings WHERE active <> (status NOT IN ('COMPLETE', 'CANCELLED')) ORDER BY id".into())
                .await?;
        let trips_without_driver =
            ids(format!("SELECT id FROM bookings WHERE driver IS NULL AND status IN {TRIP} ORDER BY id")).await?;
        let offers_on_taken_bookings =
            ids("SELECT DISTINCT o.booking_id FROM booking_offers o JOIN bookings b ON b.id = o.booking_id
             WHERE b.status <> 'NEW' ORDER BY o.booking_id"
                .into())
            .await?;
        let user_ids = |ids: Vec<Uuid>| ids.into_iter().map(UserId).collect();
        let booking_ids = |ids: Vec<Uuid>| ids.into_iter().map(BookingId).collect();
        Ok(Audit {
            users: users as u64,
            bookings: bookings as u64,
            active_bookings: active_bookings as u64,
            wallet_mismatches: wallets
                .into_iter()
                .map(|(user, balance_micros, ledger_micros)| WalletMismatch {
                    user: UserId(user),
                    balance_micros,
                    ledger_micros,
                })
                .collect(),
            drivers_on_two_trips: user_ids(drivers_on_two_trips),
            busy_flag_mismatches: user_ids(busy_flag_mismatches),
            active_flag_mismatches: booking_ids(active_flag_mismatches),
            trips_without_driver: booking_ids(trips_without_driver),
            offers_on_taken_bookings: booking_ids(offers_on_taken_bookings),
        })
    }
}

#[async_trait]
impl DispatchLogStore for Store {
    #[instrument(skip_all, fields(entries = entries.len()))]
    async fn append_dispatch_events(&self, entries: &[DispatchEntry], now: Millis) -> StorageResult<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let (_turn, mut tx) = self.begin_relaxed_write().await?;
        insert_in_chunks(&mut tx, INSERT_DISPATCH_EVENT, DISPATCH_EVENT_VALUES, entries, |builder, entry| {
            let values = [
                Bind::Uuid(entry.booking.0),
                Bind::Int(entry.at),
                Bind::Text(entry.log.kind().to_string()),
                Bind::Text(entry.car_type.clone()),
                Bind::Int(now),
                Bind::Int(now),
                json(entry)?,
            ];
            debug_assert_eq!(values.len(), DISPATCH_EVENT_VALUES);
            push_row(builder, values);
            Ok(())
        })
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn dispatch_events(&self, booking: BookingId) -> StorageResult<Vec<DispatchEntry>> {
        let rows: Vec<DispatchEventRow> =
            sqlx::query_as("SELECT doc FROM dispatch_events WHERE booking_id = $1 ORDER BY at, seq")
                .bind(booking.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|row| row.doc.0).collect())
    }

    async fn recent_dispatch_events(&self, limit: u32) -> StorageResult<Vec<DispatchEntry>> {
        let rows: Vec<DispatchEventRow> = sqlx::query_as("SELECT doc FROM dispatch_events ORDER BY seq DESC LIMIT $1")
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.into_iter().map(|row| row.doc.0).collect())
    }
}

#[async_trait]
impl Cluster for Store {
    async fn acquire_lease(
        &self,
        kind: &str,
        key: &str,
        node: &str,
        now: Millis,
        expires_at: Millis,
    ) -> StorageResult<bool> {
        // One statement: a free key is inserted; a held one changes hands
        // only when it lapsed or is already this node's.
        let result = sqlx::query(
            "INSERT INTO leases (kind, key, node, expires_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (kind, key) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
             WHERE leases.expires_at <= $5 OR leases.node = excluded.node",
        )
        .bind(kind)
        .bind(key)
        .bind(node)
        .bind(expires_at)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    async fn renew_leases(&self, node: &str, now: Millis, expires_at: Millis) -> StorageResult<Vec<Lease>> {
        // A lapsed lease is not revived: another node may be taking it over,
        // and this node stops serving it.
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "UPDATE leases SET expires_at = $1 WHERE node = $2 AND expires_at > $3
             RETURNING kind, key, node, expires_at",
        )
        .bind(expires_at)
        .bind(node)
        .bind(now)
        .fetch_all(&mut *self.write_conn().await?)
        .await?;
        Ok(rows.into_iter().map(|(kind, key, node, expires_at)| Lease { kind, key, node, expires_at }).collect())
    }

    async fn lapsed_leases(&self, kind: &str, now: Millis, limit: u32) -> StorageResult<Vec<Lease>> {
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "SELECT kind, key, node, expires_at FROM leases WHERE kind = $1 AND expires_at <= $2
             ORDER BY expires_at, key LIMIT $3",
        )
        .bind(kind)
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(kind, key, node, expires_at)| Lease { kind, key, node, expires_at }).collect())
    }

    async fn lease(&self, kind: &str, key: &str) -> StorageResult<Option<Lease>> {
        let row: Option<(String, String, String, i64)> =
            sqlx::query_as("SELECT kind, key, node, expires_at FROM leases WHERE kind = $1 AND key = $2")
                .bind(kind)
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(kind, key, node, expires_at)| Lease { kind, key, node, expires_at }))
    }

    async fn release_lease(&self, kind: &str, key: &str, node: &str) -> StorageResult<()> {
        sqlx::query("DELETE FROM leases WHERE kind = $1 AND key = $2 AND node = $3")
            .bind(kind)
            .bind(key)
            .bind(node)
            .execute(&mut *self.write_conn().await?)
            .await?;
        Ok(())
    }

    async fn release_node_leases(&self, node: &str) -> StorageResult<u64> {
        // Lapsed, not deleted: the other nodes' keepers take them over at
        // their next round (a deleted lease of an active booking is served
        // by no one until some node restarts).
        let result = sqlx::query("UPDATE leases SET expires_at = 0 WHERE node = $1")
            .bind(node)
            .execute(&mut *self.write_conn().await?)
            .await?;
        Ok(result.rows_affected())
    }
}
