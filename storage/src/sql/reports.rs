//! [`Reports`]: earnings (from the roll-up when the scope allows, else summed
//! from the bookings), the dashboard's cards and the consistency audit.

use super::commit::HOLDING;
use super::earnings_rollup::{rebuild_rollup, rollup_offset, rollup_select};
use super::lists::page_of;
use super::{D, Store, built, fetch_all};
use crate::Reports;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::cursor::{decode_cursor, encode_cursor};
use crate::common::dialect::Dialect;
use crate::common::earnings::{
    EARNINGS_COUNTED, EARNINGS_GROUP, EARNINGS_LOCAL, EARNINGS_REPORTED, EARNINGS_RIDES, EarningsGroup,
    earnings_bounds, single_month, sort_earnings,
};
use crate::common::money::from_micros;
use crate::error::{StorageError, StorageResult};
use crate::rollup::{self, Counted, RollupRow};
use crate::types::{Audit, DashboardScope, EarningsScope, Page, PageRequest, WalletMismatch};
use async_trait::async_trait;
use sqlx::{AssertSqlSafe, FromRow};
use tracing::instrument;
use uuid::Uuid;
use wayfare_engine::{BookingId, DashboardEarnings, DashboardRides, EarningsReportRow, EarningsRow, Millis, UserId};

/// Where a page of a report resumes: after this (month, driver), in
/// descending order.
fn earnings_cursor(group: &EarningsGroup) -> String {
    encode_cursor(group.ym, group.driver)
}

impl Store {
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
