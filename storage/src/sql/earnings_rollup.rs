//! Keeping the monthly earnings roll-up and the dashboard's: the SQL side of
//! `crate::rollup`. A booking's commit moves its part in the same
//! transaction; a change of offset, or a roll-up that does not hold every
//! booking yet, rebuilds them from the bookings.

use super::{Conn, D, built, fetch_all, push_row};
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::BookingColumns;
use crate::common::dialect::Dialect;
use crate::error::StorageResult;
use crate::rollup::{self, Counted, DashboardPart, EarningsPart, PartColumns};
use crate::types::EarningsScope;
use sqlx::FromRow;
use uuid::Uuid;
use wayfare_engine::Booking;

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
pub(super) const VERSION_AND_PART_COLUMNS: &str = concat!("SELECT b.version, ", part_columns!(), " FROM bookings b");

/// The roll-up's offset when it holds every booking, else `None`.
pub(super) async fn rollup_offset(conn: &mut Conn) -> StorageResult<Option<i32>> {
    let row: Option<(i32, bool)> = sqlx::query_as("SELECT utc_offset_minutes, built FROM earnings_rollup WHERE id = 1")
        .fetch_optional(&mut *conn)
        .await?;
    Ok(row.and_then(|(offset, built)| built.then_some(offset)))
}

pub(super) async fn read_part_columns(conn: &mut Conn, id: Uuid) -> StorageResult<Option<PartColumns>> {
    let mut builder = SqlBuilder::new(PART_COLUMNS);
    builder.push_bind(" WHERE b.id = ", Bind::Uuid(id));
    Ok(built(builder).try_map(|row| PartColumns::from_row(&row)).fetch_optional(&mut *conn).await?)
}

pub(super) fn part_columns(booking: &Booking) -> StorageResult<PartColumns> {
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
pub(super) fn counts_in_rollup(columns: &PartColumns) -> bool {
    EarningsPart::of(columns, 0).is_some()
}

/// Moves a booking's part in the roll-up from what it was to what it is, in
/// the booking's transaction. Bookings that count for nothing cost one read.
pub(super) async fn update_rollup(
    conn: &mut Conn,
    before: Option<&PartColumns>,
    after: &PartColumns,
) -> StorageResult<()> {
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

/// Values of one row of `dashboard_earnings` and of `earnings_months`.
const DASHBOARD_VALUES: usize = 5;
const ROLLUP_VALUES: usize = 19;

/// Rows per multi-row statement: as many as the dialect's budget of bound
/// values holds (SQLite's is kept low on purpose, see `SqliteDialect`).
fn rows_per_statement(values_per_row: usize) -> usize {
    (D::MAX_ROW_BINDS / values_per_row).max(1)
}

/// Adds to dashboard roll-up rows, many rows per statement.
pub(super) async fn write_dashboard(conn: &mut Conn, adds: &[rollup::DashboardAdd]) -> StorageResult<()> {
    for chunk in adds.chunks(rows_per_statement(DASHBOARD_VALUES)) {
        let mut builder = SqlBuilder::rows(
            "INSERT INTO dashboard_earnings (grain, period, fleet, rides, trip_cost) VALUES ",
            D::ANONYMOUS_ROW_BINDS,
        );
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
    let mut builder = SqlBuilder::rows(
        "INSERT INTO earnings_months (ym, driver, fleet, rides, driver_share, trip_cost, convenience_fee,
            discount_amount, customer_paid, charged_cancellations, cancellation_fee,
            ride_latest_tripdate, ride_latest_id, ride_driver_name, ride_vehicle_number,
            latest_tripdate, latest_id, driver_name, vehicle_number) VALUES ",
        D::ANONYMOUS_ROW_BINDS,
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

/// Adds folded rows to the roll-up, many rows per statement.
pub(super) async fn write_fold(conn: &mut Conn, folded: rollup::Fold) -> StorageResult<()> {
    for chunk in folded.into_rows().chunks(rows_per_statement(ROLLUP_VALUES)) {
        upsert_rollup(conn, chunk).await?;
    }
    Ok(())
}

/// Recomputes the roll-up from every booking, in pages by id, folding in
/// memory (one entry per driver-month) and writing in multi-row inserts.
pub(super) async fn rebuild_rollup(conn: &mut Conn, utc_offset_minutes: i32) -> StorageResult<()> {
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
pub(super) fn rollup_select(scope: &EarningsScope, months: Option<(i64, i64)>, counted: Counted) -> SqlBuilder {
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
