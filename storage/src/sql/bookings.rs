//! [`Bookings`]: a booking's commit and reads, its SOS alerts, tracking and
//! chat. The write path a commit shares with the bulk import is in
//! `commit.rs`.

use super::commit::{
    apply_effects, check_lease, insert_booking, lock_users, replace_offers, update_booking, users_touched,
};
use super::earnings_rollup::{part_columns, read_part_columns, update_rollup};
use super::lists::{ListSpec, page_of, push_keyset, push_order_limit};
use super::{Conn, D, Store, fetch_all, found, push_in, settle, write_error};
use crate::Bookings;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::{parse_status, status_text};
use crate::common::cursor::{booking_sort_column, booking_sort_value, encode_cursor, encode_sort_cursor};
use crate::common::dialect::Dialect;
use crate::common::rows::{
    BookingRow, ChatRow, RankedSosRow, SOS_COLUMNS, SOS_OPEN_RANK, SosRow, TrackingRow, sos_rank,
};
use crate::common::search::{SearchQuery, SearchTable};
use crate::error::{StorageError, StorageResult};
use crate::types::{BookingFilter, Committed, OwedBookings, Page, PageRequest, SortOrder, SosFilter, StoredChat};
use async_trait::async_trait;
use sqlx::AssertSqlSafe;
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;
use wayfare_engine::booking::Effect;
use wayfare_engine::sos::{SosAlert, SosState};
use wayfare_engine::{Booking, BookingId, ChatMessage, LatLng, Millis, SosId, TrackingPoint, UserId};

/// The bookings the earnings rules count (`engine::earnings::counts_for_report`).
const DRIVER_TRIP: &str = "(status IN ('PAID', 'COMPLETE') OR (status = 'CANCELLED' AND cancellation_fee_micros > 0))";

fn booking_rows(rows: Vec<BookingRow>) -> Vec<Booking> {
    rows.into_iter().map(BookingRow::into_booking).collect()
}

pub(super) async fn insert_tracking(conn: &mut Conn, booking: BookingId, point: &TrackingPoint) -> StorageResult<()> {
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
                Some(_) => {
                    check_lease(&mut tx, self.fence.get().map(String::as_str), booking.id, now).await?;
                    read_part_columns(&mut tx, booking.id.0).await?
                }
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

    async fn driver_trips(&self, driver: UserId, from: Millis, until: Millis) -> StorageResult<Vec<Booking>> {
        let rows: Vec<BookingRow> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT version, doc FROM bookings
             WHERE driver = $1 AND tripdate >= $2 AND tripdate < $3 AND {DRIVER_TRIP}
             ORDER BY tripdate, id"
        )))
        .bind(driver.0)
        .bind(from)
        .bind(until)
        .fetch_all(&self.pool)
        .await?;
        Ok(booking_rows(rows))
    }

    async fn driver_trip_dates(&self, driver: UserId) -> StorageResult<Vec<Millis>> {
        let rows: Vec<(i64,)> = sqlx::query_as(AssertSqlSafe(format!(
            "SELECT tripdate FROM bookings WHERE driver = $1 AND {DRIVER_TRIP} ORDER BY tripdate DESC"
        )))
        .bind(driver.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(tripdate,)| tripdate).collect())
    }

    async fn recent_pickups(&self, from: Millis, until: Millis, limit: u32) -> StorageResult<Vec<(LatLng, Millis)>> {
        // Only the pickup is decoded of each document.
        #[derive(serde::Deserialize)]
        struct Pickup {
            pickup: LatLng,
        }
        let rows: Vec<(i64, Json<Pickup>)> = sqlx::query_as(
            "SELECT tripdate, doc FROM bookings WHERE tripdate >= $1 AND tripdate < $2
             ORDER BY tripdate DESC, id DESC LIMIT $3",
        )
        .bind(from)
        .bind(until)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().rev().map(|(tripdate, doc)| (doc.0.pickup, tripdate)).collect())
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
