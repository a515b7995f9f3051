//! [`Import`]: the bulk writes of an import (issue #38). Each record is
//! written by its id with `INSERT … ON CONFLICT … DO UPDATE`, as many rows
//! per statement as the dialect binds, each call in one transaction; the
//! columns are the ones the parts' own writes keep (so a user's balance is
//! still only the ledger's). Bookings mark the earnings roll-ups for a
//! rebuild rather than fold themselves in: an update would count twice.
//!
//! Into an empty bookings or tracking table (a first import) the rows go in
//! one transaction with the table's secondary indexes and text-index
//! triggers set aside, and those are built once from the loaded rows
//! (`bulk_load.rs`): building an index from sorted rows is much cheaper than
//! keeping 15 of them and an FTS5 index row by row. The statements are the
//! same upserts, so the rows are the same.

use super::accounts::{INSERT_USER, USER_VALUES, push_user_values};
use super::bulk_load::{all_empty, grow_cache, put_back, restore_cache, set_aside};
use super::commit::{BOOKING_VALUES, INSERT_BOOKING, push_booking_values};
use super::{Conn, D, Store, built, json, push_in, push_row, settle, write_error};
use crate::Import;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::{entry_type_text, status_text};
use crate::common::dialect::Dialect;
use crate::common::money::{from_micros, to_micros};
use crate::common::rows::sos_rank;
use crate::error::{StorageError, StorageResult};
use crate::types::{CatalogueImport, FileRecord, UserContact};
use async_trait::async_trait;
use rust_decimal::Decimal;
use sqlx::types::Json;
use std::collections::{BTreeMap, BTreeSet};
use uuid::Uuid;
use wayfare_engine::exicube::{ImportedChat, ImportedPoint, ImportedRecord, LedgerLine};
use wayfare_engine::sos::SosAlert;
use wayfare_engine::{Booking, Millis, User, UserId, WithdrawRequest};

/// Runs `rows` through `start` + rows + `end`, as many rows per statement as
/// the dialect binds; returns the rows each statement answered (`RETURNING`).
async fn write_in_chunks<T>(
    conn: &mut Conn,
    (start, end): (&'static str, &'static str),
    values_per_row: usize,
    rows: &[T],
    push: impl Fn(&mut SqlBuilder, &T) -> StorageResult<()>,
) -> StorageResult<Vec<<super::Db as sqlx::Database>::Row>> {
    let rows_per_statement = (D::MAX_ROW_BINDS / values_per_row).max(1);
    let mut answered = Vec::new();
    for chunk in rows.chunks(rows_per_statement) {
        let mut builder = SqlBuilder::rows(start, D::ANONYMOUS_ROW_BINDS);
        for (index, row) in chunk.iter().enumerate() {
            if index > 0 {
                builder.push(", ");
            }
            push(&mut builder, row)?;
        }
        builder.push(end);
        answered.extend(built(builder).fetch_all(&mut *conn).await.map_err(write_error)?);
    }
    Ok(answered)
}

/// `DELETE … WHERE <column> IN (…)` for many ids, a chunk at a time.
async fn delete_in_chunks(
    conn: &mut Conn,
    start: &'static str,
    column: &'static str,
    ids: &[Uuid],
) -> StorageResult<()> {
    for chunk in ids.chunks(D::MAX_BINDS_PER_STATEMENT) {
        let mut builder = SqlBuilder::new(start);
        push_in(&mut builder, column, chunk.iter().map(|id| Bind::Uuid(*id)));
        built(builder).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Rows a bulk load writes between two calls of its progress callback.
const LOAD_PROGRESS_ROWS: usize = 10_000;

const UPSERT_USER: &str = " ON CONFLICT (id) DO UPDATE SET
    role = excluded.role, email = excluded.email, mobile = excluded.mobile, referral = excluded.referral,
    fleetadmin = excluded.fleetadmin, approved = excluded.approved, driver_active = excluded.driver_active,
    queue = excluded.queue, car_type = excluded.car_type, lat = excluded.lat, lng = excluded.lng,
    platform = excluded.platform, push_token = excluded.push_token, language = excluded.language,
    search_text = excluded.search_text, updated_at = excluded.updated_at, doc = excluded.doc";

const UPSERT_BOOKING: &str = " ON CONFLICT (id) DO UPDATE SET
    version = bookings.version + 1, reference = excluded.reference, status = excluded.status,
    active = excluded.active, customer = excluded.customer, driver = excluded.driver,
    fleetadmin = excluded.fleetadmin, tripdate = excluded.tripdate, booking_date = excluded.booking_date,
    trip_cost_micros = excluded.trip_cost_micros, driver_share_micros = excluded.driver_share_micros,
    convenience_fees_micros = excluded.convenience_fees_micros,
    discount_amount_micros = excluded.discount_amount_micros, customer_paid_micros = excluded.customer_paid_micros,
    cancellation_fee_micros = excluded.cancellation_fee_micros, driver_name = excluded.driver_name,
    vehicle_number = excluded.vehicle_number, search_text = excluded.search_text, updated_at = excluded.updated_at,
    doc = excluded.doc, customer_name = excluded.customer_name, car_type = excluded.car_type,
    fee_owed_micros = excluded.fee_owed_micros";

/// Tables an import writes, for [`Import::table_counts`].
const IMPORTED_TABLES: [&str; 18] = [
    "settings",
    "cancel_reasons",
    "car_types",
    "promos",
    "promo_uses",
    "notifications",
    "languages",
    "payment_gateways",
    "users",
    "bookings",
    "booking_offers",
    "tracking_points",
    "chat_messages",
    "sos_alerts",
    "withdraws",
    "wallet_entries",
    "files",
    "imported_records",
];

async fn write_catalogue(conn: &mut Conn, catalogue: &CatalogueImport<'_>, now: Millis) -> StorageResult<()> {
    if let Some(settings) = catalogue.settings {
        sqlx::query(
            "INSERT INTO settings (id, created_at, updated_at, doc) VALUES (1, $1, $1, $2)
             ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(now)
        .bind(Json(settings))
        .execute(&mut *conn)
        .await?;
    }
    if let Some(reasons) = catalogue.cancel_reasons {
        sqlx::query("DELETE FROM cancel_reasons").execute(&mut *conn).await?;
        let rows: Vec<(usize, &String)> = reasons.iter().enumerate().collect();
        write_in_chunks(
            conn,
            ("INSERT INTO cancel_reasons (position, reason, created_at, updated_at) VALUES ", ""),
            4,
            &rows,
            |builder, (position, reason)| {
                push_row(
                    builder,
                    [Bind::Int(*position as i64), Bind::Text((*reason).clone()), Bind::Int(now), Bind::Int(now)],
                );
                Ok(())
            },
        )
        .await?;
    }
    write_in_chunks(
        conn,
        (
            "INSERT INTO car_types (id, name, created_at, updated_at, doc) VALUES ",
            " ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at, doc = excluded.doc",
        ),
        5,
        catalogue.car_types,
        |builder, car_type| {
            push_row(
                builder,
                [
                    Bind::Uuid(car_type.id.0),
                    Bind::Text(car_type.name.clone()),
                    Bind::Int(car_type.createdAt),
                    Bind::Int(now),
                    json(car_type)?,
                ],
            );
            Ok(())
        },
    )
    .await?;
    write_in_chunks(
        conn,
        (
            "INSERT INTO promos (id, name, user_avail, created_at, updated_at, doc) VALUES ",
            " ON CONFLICT (id) DO UPDATE SET name = excluded.name, user_avail = excluded.user_avail,
              updated_at = excluded.updated_at, doc = excluded.doc",
        ),
        6,
        catalogue.promos,
        |builder, promo| {
            push_row(
                builder,
                [
                    Bind::Uuid(promo.id.0),
                    Bind::Text(promo.promo_name.clone()),
                    Bind::Int(i64::from(promo.user_avail)),
                    Bind::Int(promo.createdAt),
                    Bind::Int(now),
                    json(promo)?,
                ],
            );
            Ok(())
        },
    )
    .await?;
    write_in_chunks(
        conn,
        ("INSERT INTO promo_uses (promo_name, user_id, created_at, updated_at) VALUES ", " ON CONFLICT DO NOTHING"),
        4,
        catalogue.promo_uses,
        |builder, (name, user)| {
            push_row(builder, [Bind::Text(name.clone()), Bind::Uuid(user.0), Bind::Int(now), Bind::Int(now)]);
            Ok(())
        },
    )
    .await?;
    write_in_chunks(
        conn,
        (
            "INSERT INTO notifications (id, created_at, updated_at, doc) VALUES ",
            " ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, updated_at = excluded.updated_at,
              doc = excluded.doc",
        ),
        4,
        catalogue.notifications,
        |builder, notification| {
            push_row(
                builder,
                [Bind::Uuid(notification.id.0), Bind::Int(notification.createdAt), Bind::Int(now), json(notification)?],
            );
            Ok(())
        },
    )
    .await?;
    // One default language: an imported default takes the flag first.
    if let Some(default) = catalogue.languages.iter().find(|language| language.default) {
        sqlx::query("UPDATE languages SET is_default = FALSE, updated_at = $1 WHERE is_default AND id <> $2")
            .bind(now)
            .bind(default.id.0)
            .execute(&mut *conn)
            .await?;
    }
    write_in_chunks(
        conn,
        (
            "INSERT INTO languages (id, locale, is_default, created_at, updated_at, doc) VALUES ",
            " ON CONFLICT (id) DO UPDATE SET locale = excluded.locale, is_default = excluded.is_default,
              updated_at = excluded.updated_at, doc = excluded.doc",
        ),
        6,
        catalogue.languages,
        |builder, language| {
            push_row(
                builder,
                [
                    Bind::Uuid(language.id.0),
                    Bind::Text(language.langLocale.clone()),
                    Bind::Bool(language.default),
                    Bind::Int(language.createdAt),
                    Bind::Int(now),
                    json(language)?,
                ],
            );
            Ok(())
        },
    )
    .await?;
    Ok(())
}

async fn write_bookings(conn: &mut Conn, bookings: &[Booking], now: Millis) -> StorageResult<()> {
    let ids: Vec<Uuid> = bookings.iter().map(|booking| booking.id.0).collect();
    write_booking_rows(conn, bookings, now).await?;
    delete_in_chunks(conn, "DELETE FROM booking_offers WHERE TRUE", "booking_id", &ids).await?;
    write_offers(conn, bookings, now).await?;
    mark_rollups_stale(conn).await
}

async fn write_booking_rows(conn: &mut Conn, bookings: &[Booking], now: Millis) -> StorageResult<()> {
    write_in_chunks(conn, (INSERT_BOOKING, UPSERT_BOOKING), BOOKING_VALUES, bookings, |builder, booking| {
        push_booking_values(builder, booking, 1, now)
    })
    .await?;
    Ok(())
}

/// Inserts the drivers each booking was offered to.
async fn write_offers(conn: &mut Conn, bookings: &[Booking], now: Millis) -> StorageResult<()> {
    let offers: Vec<(Uuid, Uuid)> = bookings
        .iter()
        .flat_map(|booking| booking.requestedDrivers.0.iter().map(|driver| (booking.id.0, driver.0)))
        .collect();
    write_in_chunks(
        conn,
        ("INSERT INTO booking_offers (booking_id, driver_id, created_at, updated_at) VALUES ", ""),
        4,
        &offers,
        |builder, (booking, driver)| {
            push_row(builder, [Bind::Uuid(*booking), Bind::Uuid(*driver), Bind::Int(now), Bind::Int(now)]);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Rebuilt from the bookings at the next `prepare_earnings_rollup`; until
/// then reports sum the bookings themselves, with the same answers.
async fn mark_rollups_stale(conn: &mut Conn) -> StorageResult<()> {
    sqlx::query("UPDATE earnings_rollup SET built = FALSE").execute(&mut *conn).await?;
    Ok(())
}

/// [`Import::load_bookings`] inside its transaction.
async fn load_bookings_into_empty(
    conn: &mut Conn,
    bookings: &[Booking],
    now: Millis,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> StorageResult<bool> {
    if !all_empty(conn, &["bookings", "booking_offers"]).await? {
        return Ok(false);
    }
    let bookings_aside = set_aside(conn, "bookings").await?;
    let offers_aside = set_aside(conn, "booking_offers").await?;
    for chunk in bookings.chunks(LOAD_PROGRESS_ROWS) {
        write_booking_rows(conn, chunk, now).await?;
        progress(chunk.len() as u64);
    }
    write_offers(conn, bookings, now).await?;
    put_back(conn, bookings_aside).await?;
    put_back(conn, offers_aside).await?;
    mark_rollups_stale(conn).await?;
    Ok(true)
}

async fn write_tracking(conn: &mut Conn, points: &[ImportedPoint], now: Millis) -> StorageResult<()> {
    let bookings: BTreeSet<Uuid> = points.iter().map(|point| point.booking.0).collect();
    let bookings: Vec<Uuid> = bookings.into_iter().collect();
    delete_in_chunks(conn, "DELETE FROM tracking_points WHERE imported", "booking_id", &bookings).await?;
    insert_points(conn, points, now).await
}

async fn insert_points(conn: &mut Conn, points: &[ImportedPoint], now: Millis) -> StorageResult<()> {
    if Store::insert_points_by_column(conn, points, now).await? {
        return Ok(());
    }
    write_in_chunks(
        conn,
        (
            "INSERT INTO tracking_points (booking_id, at, status, lat, lng, created_at, updated_at, imported) VALUES ",
            "",
        ),
        8,
        points,
        |builder, imported| {
            let point = &imported.point;
            push_row(
                builder,
                [
                    Bind::Uuid(imported.booking.0),
                    Bind::Int(point.at),
                    Bind::Text(status_text(point.status).to_string()),
                    Bind::OptFloat(Some(point.lat)),
                    Bind::OptFloat(Some(point.lng)),
                    Bind::Int(point.at),
                    Bind::Int(now),
                    Bind::Bool(true),
                ],
            );
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// [`Import::load_tracking`] inside its transaction.
async fn load_tracking_into_empty(
    conn: &mut Conn,
    points: &[ImportedPoint],
    now: Millis,
    progress: &(dyn Fn(u64) + Send + Sync),
) -> StorageResult<bool> {
    if !all_empty(conn, &["tracking_points"]).await? {
        return Ok(false);
    }
    let aside = set_aside(conn, "tracking_points").await?;
    for chunk in points.chunks(LOAD_PROGRESS_ROWS * 5) {
        insert_points(conn, chunk, now).await?;
        progress(chunk.len() as u64);
    }
    put_back(conn, aside).await?;
    Ok(true)
}

/// Writes the ledger lines not written before and moves their users'
/// balances by them; returns how many were new.
async fn write_ledger(conn: &mut Conn, lines: &[LedgerLine], now: Millis) -> StorageResult<u64> {
    let inserted = write_in_chunks(
        conn,
        (
            "INSERT INTO wallet_entries (id, user_id, entry_type, amount_micros, date, tx_ref, idempotency_key,
                created_at, updated_at, description) VALUES ",
            " ON CONFLICT (user_id, idempotency_key) DO NOTHING RETURNING user_id, entry_type, amount_micros",
        ),
        10,
        lines,
        |builder, line| {
            if line.entry.amount < Decimal::ZERO {
                return Err(StorageError::Invalid("amount"));
            }
            push_row(
                builder,
                [
                    Bind::Uuid(line.id),
                    Bind::Uuid(line.user.0),
                    Bind::Text(entry_type_text(line.entry.entry_type).to_string()),
                    Bind::Int(to_micros(line.entry.amount, "amount")?),
                    Bind::Int(line.entry.date),
                    Bind::Text(line.entry.txRef.clone()),
                    Bind::Text(line.idempotency_key.clone()),
                    Bind::Int(now),
                    Bind::Int(now),
                    Bind::OptText(line.entry.description.clone()),
                ],
            );
            Ok(())
        },
    )
    .await?;
    let mut moves: BTreeMap<Uuid, i64> = BTreeMap::new();
    for row in &inserted {
        let (user, entry_type, amount): (Uuid, String, i64) = sqlx::FromRow::from_row(row)?;
        let signed = if entry_type == "Credit" { amount } else { -amount };
        *moves.entry(user).or_default() += signed;
    }
    let moves: Vec<(Uuid, i64)> = moves.into_iter().filter(|(_, delta)| *delta != 0).collect();
    // One statement per chunk of users: `UPDATE … FROM (VALUES …)` (both
    // backends name the columns of a VALUES list column1, column2).
    for chunk in moves.chunks(D::MAX_BINDS_PER_STATEMENT / 2 - 1) {
        let mut builder = SqlBuilder::new(
            "UPDATE users SET wallet_balance_micros = wallet_balance_micros + v.column2, updated_at = ",
        );
        builder.bind(Bind::Int(now)).push(" FROM (VALUES ");
        for (index, (user, delta)) in chunk.iter().enumerate() {
            if index > 0 {
                builder.push(", ");
            }
            push_row(&mut builder, [Bind::Uuid(*user), Bind::Int(*delta)]);
        }
        builder.push(") AS v WHERE users.id = v.column1");
        built(builder).execute(&mut *conn).await?;
    }
    Ok(inserted.len() as u64)
}

#[async_trait]
impl Import for Store {
    async fn user_contacts(&self) -> StorageResult<Vec<UserContact>> {
        let rows: Vec<(Uuid, String, String, String)> =
            sqlx::query_as("SELECT id, email, mobile, referral FROM users").fetch_all(&self.pool).await?;
        Ok(rows
            .into_iter()
            .map(|(id, email, mobile, referral)| UserContact { id: UserId(id), email, mobile, referral })
            .collect())
    }

    async fn import_catalogue(&self, catalogue: &CatalogueImport<'_>, now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_catalogue(&mut tx, catalogue, now).await;
        settle(tx, work).await
    }

    async fn upsert_users(&self, users: &[User], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_in_chunks(&mut tx, (INSERT_USER, UPSERT_USER), USER_VALUES, users, |builder, user| {
            push_user_values(builder, user, now)
        })
        .await
        .map(|_| ());
        settle(tx, work).await
    }

    async fn upsert_bookings(&self, bookings: &[Booking], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_bookings(&mut tx, bookings, now).await;
        settle(tx, work).await
    }

    async fn replace_imported_tracking(&self, points: &[ImportedPoint], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_tracking(&mut tx, points, now).await;
        settle(tx, work).await
    }

    async fn load_bookings(
        &self,
        bookings: &[Booking],
        now: Millis,
        progress: &(dyn Fn(u64) + Send + Sync),
    ) -> StorageResult<bool> {
        let (_turn, mut tx) = self.begin_write().await?;
        let cache = grow_cache(&mut tx).await?;
        let work = load_bookings_into_empty(&mut tx, bookings, now, progress).await;
        let restored = restore_cache(&mut tx, cache).await;
        let work = work.and_then(|loaded| restored.map(|()| loaded));
        settle(tx, work).await
    }

    async fn load_tracking(
        &self,
        points: &[ImportedPoint],
        now: Millis,
        progress: &(dyn Fn(u64) + Send + Sync),
    ) -> StorageResult<bool> {
        let (_turn, mut tx) = self.begin_write().await?;
        let cache = grow_cache(&mut tx).await?;
        let work = load_tracking_into_empty(&mut tx, points, now, progress).await;
        let restored = restore_cache(&mut tx, cache).await;
        let work = work.and_then(|loaded| restored.map(|()| loaded));
        settle(tx, work).await
    }

    async fn upsert_chats(&self, chats: &[ImportedChat], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_in_chunks(
            &mut tx,
            (
                "INSERT INTO chat_messages (id, booking_id, sender, read_at, created_at, updated_at, doc) VALUES ",
                " ON CONFLICT (id) DO UPDATE SET booking_id = excluded.booking_id, sender = excluded.sender,
                  read_at = COALESCE(chat_messages.read_at, excluded.read_at), created_at = excluded.created_at,
                  updated_at = excluded.updated_at, doc = excluded.doc",
            ),
            7,
            chats,
            |builder, chat| {
                push_row(
                    builder,
                    [
                        Bind::Uuid(chat.id),
                        Bind::Uuid(chat.booking.0),
                        Bind::Uuid(chat.message.from.0),
                        Bind::OptInt(chat.read_at),
                        Bind::Int(chat.message.createdAt),
                        Bind::Int(now),
                        json(&chat.message)?,
                    ],
                );
                Ok(())
            },
        )
        .await
        .map(|_| ());
        settle(tx, work).await
    }

    async fn upsert_sos(&self, alerts: &[SosAlert], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_in_chunks(
            &mut tx,
            (
                "INSERT INTO sos_alerts (id, booking_id, reference, raised_by, raised_by_role, raised_by_name, lat, lng,
                    fleetadmin, taken_by, taken_by_name, taken_at, resolved_by, resolved_by_name, resolved_at, note,
                    list_rank, created_at, updated_at) VALUES ",
                " ON CONFLICT (id) DO UPDATE SET booking_id = excluded.booking_id, reference = excluded.reference,
                  raised_by = excluded.raised_by, raised_by_role = excluded.raised_by_role,
                  raised_by_name = excluded.raised_by_name, lat = excluded.lat, lng = excluded.lng,
                  fleetadmin = excluded.fleetadmin, taken_by = excluded.taken_by, taken_by_name = excluded.taken_by_name,
                  taken_at = excluded.taken_at, resolved_by = excluded.resolved_by,
                  resolved_by_name = excluded.resolved_by_name, resolved_at = excluded.resolved_at, note = excluded.note,
                  list_rank = excluded.list_rank, created_at = excluded.created_at, updated_at = excluded.updated_at",
            ),
            19,
            alerts,
            |builder, alert| {
                push_row(
                    builder,
                    [
                        Bind::Uuid(alert.id.0),
                        Bind::Uuid(alert.booking.0),
                        Bind::Text(alert.reference.clone()),
                        Bind::Uuid(alert.raised_by.0),
                        Bind::Text(alert.raised_by_role.as_str().to_string()),
                        Bind::Text(alert.raised_by_name.clone()),
                        Bind::OptFloat(Some(alert.lat)),
                        Bind::OptFloat(Some(alert.lng)),
                        Bind::OptUuid(alert.fleetadmin.map(|id| id.0)),
                        Bind::OptUuid(alert.taken_by.map(|id| id.0)),
                        Bind::Text(alert.taken_by_name.clone()),
                        Bind::OptInt(alert.taken_at),
                        Bind::OptUuid(alert.resolved_by.map(|id| id.0)),
                        Bind::Text(alert.resolved_by_name.clone()),
                        Bind::OptInt(alert.resolved_at),
                        Bind::Text(alert.note.clone()),
                        Bind::Int(sos_rank(alert)),
                        Bind::Int(alert.created_at),
                        Bind::Int(now),
                    ],
                );
                Ok(())
            },
        )
        .await
        .map(|_| ());
        settle(tx, work).await
    }

    async fn upsert_withdraws(&self, withdraws: &[WithdrawRequest], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_in_chunks(
            &mut tx,
            (
                "INSERT INTO withdraws (id, user_id, date, amount_micros, processed, proces_date, created_at, updated_at,
                    doc) VALUES ",
                " ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, date = excluded.date,
                  amount_micros = excluded.amount_micros, processed = excluded.processed,
                  proces_date = excluded.proces_date, updated_at = excluded.updated_at, doc = excluded.doc",
            ),
            9,
            withdraws,
            |builder, request| {
                push_row(
                    builder,
                    [
                        Bind::Uuid(request.id.0),
                        Bind::Uuid(request.uid.0),
                        Bind::Int(request.date),
                        Bind::Int(to_micros(request.amount, "amount")?),
                        Bind::Bool(request.processed),
                        Bind::OptInt(request.procesDate),
                        Bind::Int(request.date),
                        Bind::Int(now),
                        json(request)?,
                    ],
                );
                Ok(())
            },
        )
        .await
        .map(|_| ());
        settle(tx, work).await
    }

    async fn import_ledger(&self, lines: &[LedgerLine], now: Millis) -> StorageResult<u64> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_ledger(&mut tx, lines, now).await;
        settle(tx, work).await
    }

    async fn wallet_balances(&self, users: &[UserId]) -> StorageResult<Vec<(UserId, Decimal)>> {
        let mut balances = Vec::with_capacity(users.len());
        for chunk in users.chunks(D::MAX_BINDS_PER_STATEMENT) {
            let mut builder = SqlBuilder::new("SELECT id, wallet_balance_micros FROM users WHERE TRUE");
            push_in(&mut builder, "id", chunk.iter().map(|user| Bind::Uuid(user.0)));
            for row in built(builder).fetch_all(&self.pool).await? {
                let (id, micros): (Uuid, i64) = sqlx::FromRow::from_row(&row)?;
                balances.push((UserId(id), from_micros(micros)));
            }
        }
        Ok(balances)
    }

    async fn upsert_files(&self, files: &[FileRecord], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_in_chunks(
            &mut tx,
            (
                "INSERT INTO files (id, owner, key, mime, size, created_at, updated_at) VALUES ",
                " ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, key = excluded.key, mime = excluded.mime,
                  size = excluded.size, updated_at = excluded.updated_at",
            ),
            7,
            files,
            |builder, file| {
                push_row(
                    builder,
                    [
                        Bind::Uuid(file.id),
                        Bind::OptUuid(file.owner.map(|owner| owner.0)),
                        Bind::Text(file.key.clone()),
                        Bind::Text(file.mime.clone()),
                        Bind::Int(i64::try_from(file.size).map_err(|_| StorageError::Invalid("size"))?),
                        Bind::Int(file.created_at),
                        Bind::Int(now),
                    ],
                );
                Ok(())
            },
        )
        .await
        .map(|_| ());
        settle(tx, work).await
    }

    async fn upsert_imported_records(
        &self,
        source: &str,
        records: &[ImportedRecord],
        now: Millis,
    ) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = write_in_chunks(
            &mut tx,
            (
                "INSERT INTO imported_records (source, node, original_key, entity_id, extra, created_at, updated_at)
                 VALUES ",
                " ON CONFLICT (source, node, original_key) DO UPDATE SET entity_id = excluded.entity_id,
                  extra = excluded.extra, updated_at = excluded.updated_at",
            ),
            7,
            records,
            |builder, record| {
                push_row(
                    builder,
                    [
                        Bind::Text(source.to_string()),
                        Bind::Text(record.node.clone()),
                        Bind::Text(record.key.clone()),
                        Bind::OptUuid(record.entity),
                        json(&record.extra)?,
                        Bind::Int(now),
                        Bind::Int(now),
                    ],
                );
                Ok(())
            },
        )
        .await
        .map(|_| ());
        settle(tx, work).await
    }

    async fn table_counts(&self) -> StorageResult<BTreeMap<String, u64>> {
        let mut counts = BTreeMap::new();
        for table in IMPORTED_TABLES {
            let count: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
                .fetch_one(&self.pool)
                .await?;
            counts.insert(table.to_string(), u64::try_from(count).unwrap_or_default());
        }
        Ok(counts)
    }
}
