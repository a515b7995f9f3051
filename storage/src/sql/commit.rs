//! A booking's write path: its row (inserted, or updated by compare-and-set
//! on its version), its offers and the stored effects of its transition, in
//! one transaction. PostgreSQL runs it a statement at a time
//! ([`Bookings::commit_booking`](crate::Bookings::commit_booking)); SQLite
//! in scripts (`commit_booking_in_scripts`). The bulk import of bookings
//! writes the same rows.

use super::accounts::{user_document_for_update, write_user_document};
use super::bookings::insert_tracking;
use super::earnings_rollup::{
    VERSION_AND_PART_COLUMNS, counts_in_rollup, part_columns, rollup_offset, update_rollup, write_dashboard, write_fold,
};
use super::ledger::{apply_ledger, insert_refund};
use super::{Conn, D, ScriptConn, Store, built, found, insert_in_chunks, json, push_in, push_row, write_error};
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::{BookingColumns, add_rating};
use crate::common::dialect::Dialect;
use crate::common::money::from_micros;
use crate::error::{StorageError, StorageResult};
use crate::rollup::{self, DashboardPart, EarningsPart, PartColumns};
use crate::types::Committed;
use rust_decimal::Decimal;
use sqlx::{AssertSqlSafe, FromRow};
use std::collections::BTreeSet;
use uuid::Uuid;
use wayfare_engine::booking::Effect;
use wayfare_engine::{Booking, BookingId, Millis, Ratings, UserId};

pub(super) const INSERT_BOOKING: &str = "INSERT INTO bookings (
    id, version, reference, status, active, customer, driver, fleetadmin, tripdate, booking_date,
    trip_cost_micros, driver_share_micros, convenience_fees_micros, discount_amount_micros,
    customer_paid_micros, cancellation_fee_micros, driver_name, vehicle_number, search_text,
    updated_at, doc, customer_name, car_type, fee_owed_micros, created_at
) VALUES ";

pub(super) const BOOKING_VALUES: usize = UPDATE_VALUES + 1;

const UPDATE_VALUES: usize = 24;

/// Binds one new booking's values in [`INSERT_BOOKING`]'s column order.
pub(super) fn push_booking_values(
    builder: &mut SqlBuilder,
    booking: &Booking,
    version: u64,
    now: Millis,
) -> StorageResult<()> {
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

pub(super) async fn insert_booking(conn: &mut Conn, booking: &Booking, now: Millis) -> StorageResult<()> {
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

pub(super) async fn update_booking(
    conn: &mut Conn,
    booking: &Booking,
    expected: u64,
    now: Millis,
) -> StorageResult<()> {
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
pub(super) async fn replace_offers(conn: &mut Conn, booking: &Booking, fresh: bool, now: Millis) -> StorageResult<()> {
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

/// The users a transition's effects write, so PostgreSQL can lock them in
/// one order and two transitions never deadlock on each other's users.
pub(super) fn users_touched(effects: &[Effect]) -> BTreeSet<Uuid> {
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

/// In cluster mode (`fence`: this node), a booking is updated only by the
/// node holding its lease: one declared dead while it was only paused finds
/// its lease taken or lapsed and is refused as a lost compare-and-set. A
/// booking with no lease (a finished one) is written as before. The row is
/// not locked: a lock held to the commit made every renewal of the node's
/// leases wait for its slowest commit, and the commits of its other bookings
/// for that renewal. A takeover that commits between this read and the
/// commit reads the booking before or after it; before, the new owner's
/// next write loses the compare-and-set and starts again from this one.
pub(super) async fn check_lease(
    conn: &mut Conn,
    fence: Option<&str>,
    booking: BookingId,
    now: Millis,
) -> StorageResult<()> {
    let Some(node) = fence else { return Ok(()) };
    let lease: Option<(String, i64)> =
        sqlx::query_as("SELECT node, expires_at FROM leases WHERE kind = 'booking' AND key = $1")
            .bind(booking.to_string())
            .fetch_optional(&mut *conn)
            .await?;
    match lease {
        Some((holder, expires_at)) if holder != node || expires_at <= now => {
            tracing::warn!(booking_id = %booking, node, holder, expires_at, "booking write refused: its lease is not this node's");
            Err(StorageError::Conflict)
        }
        _ => Ok(()),
    }
}

pub(super) async fn lock_users(conn: &mut Conn, users: &BTreeSet<Uuid>) -> StorageResult<()> {
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
pub(super) async fn apply_effects(
    conn: &mut Conn,
    booking: BookingId,
    effects: &[Effect],
    now: Millis,
) -> StorageResult<Vec<(UserId, Decimal)>> {
    let mut balances: Vec<(UserId, Decimal)> = Vec::new();
    for effect in effects {
        match effect {
            Effect::Wallet(change) => {
                // A refund's ledger credit carries the refund's reason.
                let note = effects.iter().find_map(|effect| match effect {
                    Effect::Refund(refund) if refund.idempotency_key == change.idempotency_key => {
                        Some(refund.reason.as_str())
                    }
                    _ => None,
                });
                let (applied, balance) = apply_ledger(conn, change, note, None, now).await?;
                if applied {
                    balances.retain(|(user, _)| *user != change.user);
                    balances.push((change.user, from_micros(balance)));
                }
            }
            Effect::Tracking(point) => insert_tracking(conn, booking, point).await?,
            Effect::SetQueue { driver, busy } => set_queue(conn, booking, *driver, *busy, now).await?,
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
            Effect::Refund(refund) => insert_refund(conn, refund, now).await?,
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

/// The statuses in which a booking holds its driver: `queue` is true exactly
/// while one of the driver's bookings is in one of them (`wayfare audit`).
pub(super) const HOLDING: &str = "('ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED')";

/// A driver's busy flag, written as the bookings make it: taking a trip is
/// refused ([`StorageError::DriverBusy`]) while another of the driver's
/// bookings holds them (two offers accepted at once, on two nodes or one),
/// and leaving a trip keeps the flag while another still holds them. The
/// user's row is locked before (`lock_users`; SQLite has one writer), so two
/// commits for one driver see each other's bookings.
async fn set_queue(conn: &mut Conn, booking: BookingId, driver: UserId, busy: bool, now: Millis) -> StorageResult<()> {
    let held_elsewhere = sqlx::query_scalar::<_, i32>(AssertSqlSafe(format!(
        "SELECT 1 FROM bookings WHERE driver = $1 AND active AND id <> $2 AND status IN {HOLDING} LIMIT 1"
    )))
    .bind(driver.0)
    .bind(booking.0)
    .fetch_optional(&mut *conn)
    .await?
    .is_some();
    if busy && held_elsewhere {
        return Err(StorageError::DriverBusy);
    }
    sqlx::query("UPDATE users SET queue = $1, updated_at = $2 WHERE id = $3")
        .bind(busy || held_elsewhere)
        .bind(now)
        .bind(driver.0)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

impl Store {
    /// [`Bookings::commit_booking`](crate::Bookings::commit_booking) on
    /// SQLite, in as few hand-offs to the connection's thread as the commit
    /// allows. Taken one statement at a time, each hand-off came back to a
    /// runtime thread busy with sockets while the commit held the write turn
    /// every other writer queues for.
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
    pub(super) async fn commit_booking_in_scripts(
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
                    check_lease(&mut *conn, self.fence.get().map(String::as_str), booking.id, now).await?;
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
}
