//! Earnings summed in SQL: the query that groups the counted bookings per
//! (local month, driver), the bounds it places trip dates within, and the
//! group it returns, turned into the engine's rows.

use super::money::from_micros;
use crate::types::EarningsScope;
use uuid::Uuid;
use wayfare_engine::{EarningsReportRow, EarningsRow, UserId, money, timefmt};

/// The SQL that sums earnings per (local month, driver), in four levels:
/// the counted bookings with their local time in whole seconds (`$1` is the
/// UTC offset in ms; only trip dates in `$2..=$3`, whose local year is
/// 1..=9999, are placed, the others go to the month-0 "Unknown" row as in the
/// engine; the floor division keeps instants before 1970 in the right
/// second), their local month as `yyyymm`, the latest booking of each group
/// (greatest tripdate, then id) by a window function, and the sums. Callers
/// push [`EARNINGS_COUNTED`], the counted-status condition and the scope
/// filters, then [`EARNINGS_MONTH`], the month expression (the dialect's, or a
/// constant when the whole range lies in one month) and [`EARNINGS_GROUP`].
pub(crate) const EARNINGS_COUNTED: &str = "
SELECT
    ym, driver,
    COUNT(CASE WHEN ride THEN 1 END) AS rides,
    CAST(SUM(CASE WHEN ride THEN driver_share_micros ELSE 0 END) AS BIGINT) AS driver_share,
    CAST(SUM(CASE WHEN ride THEN trip_cost_micros ELSE 0 END) AS BIGINT) AS trip_cost,
    CAST(SUM(CASE WHEN ride THEN convenience_fees_micros ELSE 0 END) AS BIGINT) AS convenience_fee,
    CAST(SUM(CASE WHEN ride THEN discount_amount_micros ELSE 0 END) AS BIGINT) AS discount_amount,
    CAST(SUM(CASE WHEN ride THEN customer_paid_micros ELSE 0 END) AS BIGINT) AS customer_paid,
    CAST(SUM(CASE WHEN ride THEN 0 ELSE cancellation_fee_micros END) AS BIGINT) AS cancellation_fee,
    MAX(CASE WHEN latest = 1 THEN driver_name END) AS driver_name,
    MAX(CASE WHEN latest = 1 THEN vehicle_number END) AS vehicle_number
FROM (
    SELECT
        m.*,
        ROW_NUMBER() OVER (PARTITION BY ym, driver ORDER BY tripdate DESC, id DESC) AS latest
    FROM (
        SELECT l.*, ";

/// Between [`EARNINGS_COUNTED`]'s month expression and its filters.
pub(crate) const EARNINGS_LOCAL: &str = " AS ym
        FROM (
            SELECT
                b.id, b.tripdate, b.driver, b.driver_name, b.vehicle_number,
                b.status IN ('PAID', 'COMPLETE') AS ride,
                b.driver_share_micros, b.trip_cost_micros, b.convenience_fees_micros,
                b.discount_amount_micros, b.customer_paid_micros, b.cancellation_fee_micros,
                CASE WHEN b.tripdate BETWEEN $2 AND $3
                    THEN (b.tripdate + $1 - ((b.tripdate + $1) % 1000 + 1000) % 1000) / 1000
                END AS local_s
            FROM bookings b
            WHERE b.driver IS NOT NULL";

/// Closes the earnings query: one row per (month, driver).
pub(crate) const EARNINGS_GROUP: &str = "
        ) l
    ) m
) counted
GROUP BY ym, driver";

/// Only rides (PAID, COMPLETE).
pub(crate) const EARNINGS_RIDES: &str = " AND b.status IN ('PAID', 'COMPLETE')";
/// Rides and cancellations that charged a fee; written as a status list so
/// the index on (status, tripdate) serves it.
pub(crate) const EARNINGS_REPORTED: &str = " AND b.status IN ('PAID', 'COMPLETE', 'CANCELLED')
                AND (b.status <> 'CANCELLED' OR b.cancellation_fee_micros > 0)";

/// The local month a scope's whole trip-date range lies in, when it does:
/// then the month is a constant and the query groups by driver alone.
pub(crate) fn single_month(scope: &EarningsScope) -> Option<i64> {
    let (from, until) = (scope.tripdate_from?, scope.tripdate_until?);
    let first = timefmt::year_month(from, scope.utc_offset_minutes);
    let last = timefmt::year_month(until.checked_sub(1)?, scope.utc_offset_minutes);
    (from < until && first == last && first != timefmt::UNKNOWN_YEAR_MONTH)
        .then(|| i64::from(first.0) * 100 + i64::from(first.1))
}

/// One (month, driver) group of sums in micro-units.
#[derive(sqlx::FromRow, Debug)]
pub(crate) struct EarningsGroup {
    pub ym: i64,
    pub driver: Uuid,
    pub rides: i64,
    pub driver_share: i64,
    pub trip_cost: i64,
    pub convenience_fee: i64,
    pub discount_amount: i64,
    pub customer_paid: i64,
    pub cancellation_fee: i64,
    pub driver_name: Option<String>,
    pub vehicle_number: Option<String>,
}

/// The bound values `$1..=$3` of the earnings query: the offset in ms and the trip dates
/// whose local year is within 1..=9999. An offset outside the engine's range
/// makes every date unplaceable, as in the engine.
pub(crate) fn earnings_bounds(utc_offset_minutes: i32) -> (i64, i64, i64) {
    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in ms.
    const FIRST_MS: i64 = -62_135_596_800_000;
    const END_MS: i64 = 253_402_300_800_000;
    if timefmt::validate_utc_offset(utc_offset_minutes).is_err() {
        return (0, 1, 0);
    }
    let offset_ms = i64::from(utc_offset_minutes) * wayfare_engine::MINUTE_MS;
    (offset_ms, FIRST_MS - offset_ms, END_MS - 1 - offset_ms)
}

impl EarningsGroup {
    fn year_month(&self) -> (i32, u32) {
        let year = i32::try_from(self.ym / 100).unwrap_or_default();
        let month = u32::try_from(self.ym % 100).unwrap_or_default();
        (year, month)
    }

    pub fn earnings_row(&self, decimals: u32) -> EarningsRow {
        let (year, month) = self.year_month();
        EarningsRow {
            year,
            month,
            monthsName: timefmt::month_name(month).to_string(),
            driverShare: money::round(from_micros(self.driver_share), decimals),
            total_rides: u32::try_from(self.rides).unwrap_or(u32::MAX),
            driverName: self.driver_name.clone().unwrap_or_default(),
            driverVehicleNo: self.vehicle_number.clone().unwrap_or_default(),
            driverUId: UserId(self.driver),
        }
    }

    /// The report row, derived exactly as `engine::earnings::earnings_report`.
    pub fn report_row(&self, decimals: u32) -> EarningsReportRow {
        let earnings = self.earnings_row(decimals);
        let trip_cost = money::round(from_micros(self.trip_cost), decimals);
        let convenience_fee = money::round(from_micros(self.convenience_fee), decimals);
        let discount_amount = money::round(from_micros(self.discount_amount), decimals);
        EarningsReportRow {
            rideCost: trip_cost - convenience_fee,
            myEarning: trip_cost - earnings.driverShare - discount_amount,
            discountAmount: discount_amount,
            customerPaid: money::round(from_micros(self.customer_paid), decimals),
            convenienceFee: convenience_fee,
            tripCost: trip_cost,
            cancellationFee: money::round(from_micros(self.cancellation_fee), decimals),
            earnings,
        }
    }
}

/// Newest month first, then driver name in byte order, then driver id: the
/// engine's order. Sorting here keeps the SQL free of collation differences.
pub(crate) fn sort_earnings(groups: &mut [EarningsGroup]) {
    groups.sort_by(|left, right| {
        right
            .ym
            .cmp(&left.ym)
            .then_with(|| left.driver_name.as_deref().unwrap_or("").cmp(right.driver_name.as_deref().unwrap_or("")))
            .then_with(|| left.driver.cmp(&right.driver))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earnings_bounds_keep_local_years_within_one_to_9999() {
        let (offset, first, last) = earnings_bounds(60);
        assert_eq!(offset, 3_600_000);
        assert_eq!(timefmt::year_month(first, 60).0, 1);
        assert_eq!(timefmt::year_month(first - 1, 60), timefmt::UNKNOWN_YEAR_MONTH);
        assert_eq!(timefmt::year_month(last, 60).0, 9999);
        assert_eq!(timefmt::year_month(last + 1, 60), timefmt::UNKNOWN_YEAR_MONTH);
        let (_, first, last) = earnings_bounds(24 * 60);
        assert!(first > last, "an invalid offset places nothing");
    }
}
