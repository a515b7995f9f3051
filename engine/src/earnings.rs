//! Driver earnings and the platform's earnings report (spec §3 "Earnings
//! rows", §9): which bookings count, how they group into one row per driver per
//! month, and what each column sums. These functions are the definition; the
//! storage layer computes the same sums in SQL and is tested against them.
//!
//! The rules, in one place:
//! - A booking is a *ride* when it is PAID or COMPLETE. Only rides add to
//!   `total_rides`, `driverShare`, `tripCost`, `convenienceFee`,
//!   `discountAmount` and `customerPaid`.
//! - A *charged cancellation* is a CANCELLED booking with `cancellationFee`
//!   above 0. It appears in the report only, and adds only its fee to
//!   `cancellationFee`; its trip cost and driver share were an estimate that
//!   nobody paid. Any other status counts nowhere.
//! - The fee is debited from the rider and credited to the driver (DESIGN.md),
//!   yet `driverShare` does **not** include it: `driverShare` is the driver's
//!   share of fares, the fee has its own column, and the driver's total take
//!   for a month is `driverShare + cancellationFee`. Keeping them apart lets the
//!   driver earning table (which, per §9, counts only rides) and the report
//!   agree on `driverShare`, and keeps the fee out of `myEarning`.
//! - Rows group by (local year, local month of `tripdate`, driver). The month
//!   is read with one fixed UTC offset for the whole table (see
//!   [`crate::timefmt`]); an unplaceable `tripdate` goes to the month-0 row
//!   named `"Unknown"` rather than vanishing from the sums.
//! - Each column is summed exactly, then rounded once to `decimals` with
//!   [`money::round`] (SQL: `ROUND(SUM(x), d)`, half away from zero). The
//!   derived `rideCost` and `myEarning` are computed from those rounded sums, so
//!   their identities hold to the last digit on every row.
//! - `driverName` and `driverVehicleNo` come from the latest booking the table
//!   counts in the group: the greatest `tripdate`, ties broken by the greatest
//!   booking id.
//! - Rows are sorted newest month first, then by driver name (byte order, as
//!   SQL's `BINARY` / `COLLATE "C"`), then by driver id.
//!
//! This module does not filter by role or fleet; the caller passes the inputs
//! the viewer may see.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{BookingId, UserId};
use crate::model::{
    BookingStatus, DashboardEarnings, DashboardRides, EarningsInput, EarningsReportRow, EarningsRow, MINUTE_MS, Millis,
};
use crate::money;
use crate::timefmt;
use chrono::Datelike;
use rust_decimal::Decimal;
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// A ride: PAID or COMPLETE (spec §9). Counted in every earnings table.
pub fn counts_for_earnings(input: &EarningsInput) -> bool {
    input.status.is_paid()
}

/// A CANCELLED booking whose rider was charged a fee above 0 (spec §9).
pub fn is_charged_cancellation(input: &EarningsInput) -> bool {
    input.status == BookingStatus::Cancelled && input.cancellation_fee > Decimal::ZERO
}

/// Counted in the earnings report: a ride, or a charged cancellation (spec §9).
pub fn counts_for_report(input: &EarningsInput) -> bool {
    counts_for_earnings(input) || is_charged_cancellation(input)
}

/// Driver earnings per driver per month (spec §3 "Earnings rows"), from rides
/// only ([`counts_for_earnings`]):
/// - `driverShare` = Σ `driver_share` of the rides, rounded;
/// - `total_rides` = number of rides;
/// - `monthsName` = the English month name.
///
/// This is what a driver sees of their own months (spec §6). A group without
/// rides has no row.
pub fn driver_earnings(inputs: &[EarningsInput], utc_offset_minutes: i32, decimals: u32) -> Vec<EarningsRow> {
    earnings_rows(inputs, utc_offset_minutes, decimals, counts_for_earnings)
}

/// The earnings report per driver per month (spec §3 "Earnings rows",
/// §2 "/earningreports"), from rides and charged cancellations
/// ([`counts_for_report`]). Each sum is rounded to `decimals`:
/// - `driverShare`, `total_rides`: as in [`driver_earnings`] (rides only);
/// - `tripCost` = Σ `trip_cost` of rides (the fare including the fee);
/// - `convenienceFee` = Σ `convenience_fees` of rides;
/// - `discountAmount` = Σ `discount_amount` of rides;
/// - `customerPaid` = Σ `customer_paid` of rides;
/// - `cancellationFee` = Σ `cancellation_fee` of charged cancellations;
/// - `rideCost` = `tripCost` − `convenienceFee` (the fare before the fee);
/// - `myEarning` = `tripCost` − `driverShare` − `discountAmount`: what the
///   platform keeps. The platform absorbs promo discounts, and cancellation
///   fees go to the driver, so they are not part of it.
///
/// A group holding only charged cancellations has a row with zero rides and
/// only `cancellationFee` set.
pub fn earnings_report(inputs: &[EarningsInput], utc_offset_minutes: i32, decimals: u32) -> Vec<EarningsReportRow> {
    let mut rows: Vec<EarningsReportRow> = group(inputs, utc_offset_minutes, counts_for_report)
        .into_iter()
        .map(|(key, totals)| {
            let trip_cost = money::round(totals.trip_cost, decimals);
            let convenience_fee = money::round(totals.convenience_fee, decimals);
            let discount_amount = money::round(totals.discount_amount, decimals);
            let earnings = totals.earnings_row(key, decimals);
            EarningsReportRow {
                rideCost: trip_cost - convenience_fee,
                myEarning: trip_cost - earnings.driverShare - discount_amount,
                discountAmount: discount_amount,
                customerPaid: money::round(totals.customer_paid, decimals),
                convenienceFee: convenience_fee,
                tripCost: trip_cost,
                cancellationFee: money::round(totals.cancellation_fee, decimals),
                earnings,
            }
        })
        .collect();
    rows.sort_by(|left, right| row_order(&left.earnings).cmp(&row_order(&right.earnings)));
    rows
}

/// The dashboard's gross earning cards (spec §2 "Dashboard"): Σ `trip_cost`
/// of the rides ([`counts_for_earnings`], the rule of every earnings table,
/// so the cards and the reports count the same rides — issue #34; the
/// original panel also required a convenience fee above 0, which left the
/// rides of fee-free car types out of the cards only), by trip date: those on
/// the local day of `now`, in its local month, and all of them. Days and
/// months are cut at `utc_offset_minutes`, as the reports' months are; a trip
/// date no calendar places counts in the total only. Each sum is exact, then
/// rounded once to `decimals`.
pub fn dashboard_earnings(
    inputs: &[EarningsInput],
    now: Millis,
    utc_offset_minutes: i32,
    decimals: u32,
) -> DashboardEarnings {
    let today = timefmt::local_date(now, utc_offset_minutes);
    let this_month = today.map(|date| (date.year(), date.month()));
    let (mut today_sum, mut month_sum, mut total_sum) = (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
    let mut rides = DashboardRides::default();
    for input in inputs.iter().filter(|input| counts_for_earnings(input)) {
        total_sum += input.trip_cost;
        rides.total += 1;
        let Some(date) = timefmt::local_date(input.tripdate, utc_offset_minutes) else { continue };
        if this_month == Some((date.year(), date.month())) {
            month_sum += input.trip_cost;
            rides.thisMonth += 1;
        }
        if today == Some(date) {
            today_sum += input.trip_cost;
            rides.today += 1;
        }
    }
    DashboardEarnings {
        today: money::round(today_sum, decimals),
        thisMonth: money::round(month_sum, decimals),
        total: money::round(total_sum, decimals),
        rides,
    }
}

/// The trip dates a report covers: `from` inclusive, `until` exclusive,
/// either open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportPeriod {
    pub from: Option<Millis>,
    pub until: Option<Millis>,
}

/// What a report was asked for: a local calendar month or year (the panel's
/// month and year filters), or a range of instants, never both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PeriodQuery {
    pub year: Option<i32>,
    pub month: Option<u32>,
    pub from: Option<Millis>,
    pub until: Option<Millis>,
}

/// Resolves a [`PeriodQuery`] to instants, cutting months at
/// `utc_offset_minutes` as the rows are grouped (see [`crate::timefmt`]), so a
/// month's report holds exactly that month's row. Refusals are
/// `invalid_input` on the field at fault: a month without a year, a month
/// outside 1..=12, a year outside [`timefmt::MIN_YEAR`]..=[`timefmt::MAX_YEAR`],
/// a calendar filter mixed with a range, a range that ends before it starts, or
/// an offset out of range.
pub fn report_period(query: PeriodQuery, utc_offset_minutes: i32) -> DomainResult<ReportPeriod> {
    let invalid = |field| DomainError::on_field(ErrorKey::InvalidInput, field);
    timefmt::validate_utc_offset(utc_offset_minutes)?;
    let calendar = query.year.is_some() || query.month.is_some();
    if calendar && (query.from.is_some() || query.until.is_some()) {
        return Err(invalid("from"));
    }
    if !calendar {
        if let (Some(from), Some(until)) = (query.from, query.until)
            && from >= until
        {
            return Err(invalid("until"));
        }
        return Ok(ReportPeriod { from: query.from, until: query.until });
    }
    let Some(year) = query.year.filter(|year| (timefmt::MIN_YEAR..=timefmt::MAX_YEAR).contains(year)) else {
        return Err(invalid("year"));
    };
    if query.month.is_some_and(|month| !(1..=12).contains(&month)) {
        return Err(invalid("month"));
    }
    let (start, end) = match query.month {
        Some(12) => ((year, 12), (year + 1, 1)),
        Some(month) => ((year, month), (year, month + 1)),
        None => ((year, 1), (year + 1, 1)),
    };
    let local_start = |(year, month): (i32, u32)| {
        chrono::NaiveDate::from_ymd_opt(year, month, 1)
            .and_then(|date| date.and_hms_opt(0, 0, 0))
            .map(|midnight| midnight.and_utc().timestamp_millis() - i64::from(utc_offset_minutes) * MINUTE_MS)
            .ok_or_else(|| invalid("year"))
    };
    Ok(ReportPeriod { from: Some(local_start(start)?), until: Some(local_start(end)?) })
}

/// (year, month, driver): one row each.
type GroupKey = (i32, u32, UserId);

/// Exact running sums of one group; rounded only when the row is built.
#[derive(Debug, Default)]
struct GroupTotals {
    latest: Option<(Millis, BookingId)>,
    driver_name: String,
    vehicle_number: String,
    rides: u32,
    driver_share: Decimal,
    trip_cost: Decimal,
    convenience_fee: Decimal,
    discount_amount: Decimal,
    customer_paid: Decimal,
    cancellation_fee: Decimal,
}

impl GroupTotals {
    /// Adds a booking the table counts. Amounts are stored money (far below
    /// `Decimal::MAX`), so the sums cannot overflow.
    fn add(&mut self, input: &EarningsInput) {
        let recency = (input.tripdate, input.booking);
        if self.latest.is_none_or(|latest| recency > latest) {
            self.latest = Some(recency);
            self.driver_name.clone_from(&input.driver_name);
            self.vehicle_number.clone_from(&input.vehicle_number);
        }
        if counts_for_earnings(input) {
            self.rides = self.rides.saturating_add(1);
            self.driver_share += input.driver_share;
            self.trip_cost += input.trip_cost;
            self.convenience_fee += input.convenience_fees;
            self.discount_amount += input.discount_amount;
            self.customer_paid += input.customer_paid;
        } else if is_charged_cancellation(input) {
            self.cancellation_fee += input.cancellation_fee;
        }
    }

    fn earnings_row(&self, (year, month, driver): GroupKey, decimals: u32) -> EarningsRow {
        EarningsRow {
            year,
            month,
            monthsName: timefmt::month_name(month).to_string(),
            driverShare: money::round(self.driver_share, decimals),
            total_rides: self.rides,
            driverName: self.driver_name.clone(),
            driverVehicleNo: self.vehicle_number.clone(),
            driverUId: driver,
        }
    }
}

fn group(
    inputs: &[EarningsInput],
    utc_offset_minutes: i32,
    counts: fn(&EarningsInput) -> bool,
) -> BTreeMap<GroupKey, GroupTotals> {
    let mut groups: BTreeMap<GroupKey, GroupTotals> = BTreeMap::new();
    for input in inputs.iter().filter(|input| counts(input)) {
        let (year, month) = timefmt::year_month(input.tripdate, utc_offset_minutes);
        groups.entry((year, month, input.driver)).or_default().add(input);
    }
    groups
}

fn earnings_rows(
    inputs: &[EarningsInput],
    utc_offset_minutes: i32,
    decimals: u32,
    counts: fn(&EarningsInput) -> bool,
) -> Vec<EarningsRow> {
    let mut rows: Vec<EarningsRow> = group(inputs, utc_offset_minutes, counts)
        .into_iter()
        .map(|(key, totals)| totals.earnings_row(key, decimals))
        .collect();
    rows.sort_by(|left, right| row_order(left).cmp(&row_order(right)));
    rows
}

/// Newest month first, then driver name, then driver id.
fn row_order(row: &EarningsRow) -> (Reverse<i32>, Reverse<u32>, &str, UserId) {
    (Reverse(row.year), Reverse(row.month), row.driverName.as_str(), row.driverUId)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    const ASHA: UserId = UserId(uuid::Uuid::from_u128(0xA));
    const BRAM: UserId = UserId(uuid::Uuid::from_u128(0xB));
    const CHEN: UserId = UserId(uuid::Uuid::from_u128(0xC));

    fn utc(year: i32, month: u32, day: u32, hour: u32, minute: u32) -> Millis {
        NaiveDate::from_ymd_opt(year, month, day)
            .and_then(|date| date.and_hms_opt(hour, minute, 0))
            .expect("valid test date")
            .and_utc()
            .timestamp_millis()
    }

    /// A ride or a cancellation with its money; the rest is filled by `booking`.
    struct Money {
        trip_cost: Decimal,
        driver_share: Decimal,
        convenience_fees: Decimal,
        discount_amount: Decimal,
        customer_paid: Decimal,
        cancellation_fee: Decimal,
    }

    const NO_MONEY: Money = Money {
        trip_cost: Decimal::ZERO,
        driver_share: Decimal::ZERO,
        convenience_fees: Decimal::ZERO,
        discount_amount: Decimal::ZERO,
        customer_paid: Decimal::ZERO,
        cancellation_fee: Decimal::ZERO,
    };

    fn booking(
        number: u128,
        driver: UserId,
        status: BookingStatus,
        tripdate: Millis,
        name: &str,
        money: Money,
    ) -> EarningsInput {
        EarningsInput {
            booking: BookingId::from_u128(number),
            status,
            tripdate,
            driver,
            driver_name: name.to_string(),
            vehicle_number: format!("{name} car"),
            trip_cost: money.trip_cost,
            driver_share: money.driver_share,
            convenience_fees: money.convenience_fees,
            discount_amount: money.discount_amount,
            customer_paid: money.customer_paid,
            cancellation_fee: money.cancellation_fee,
        }
    }

    fn ride(trip_cost: Decimal, driver_share: Decimal, convenience_fees: Decimal, discount_amount: Decimal) -> Money {
        Money {
            trip_cost,
            driver_share,
            convenience_fees,
            discount_amount,
            customer_paid: trip_cost - discount_amount,
            cancellation_fee: Decimal::ZERO,
        }
    }

    /// Two months, three drivers; every status rule of spec §9 appears once.
    #[rustfmt::skip]
    fn two_months() -> Vec<EarningsInput> {
        use BookingStatus::*;
        let charged = |fee| Money { cancellation_fee: fee, ..ride(dec!(20), dec!(16), dec!(2), dec!(0)) };
        vec![
            // March 2026
            booking(1, ASHA, Paid, utc(2026, 3, 3, 10, 0), "Asha", ride(dec!(100), dec!(80), dec!(10), dec!(5))),
            booking(2, ASHA, Complete, utc(2026, 3, 20, 12, 0), "Asha K", ride(dec!(12.505), dec!(10.005), dec!(1.25), dec!(0))),
            booking(3, ASHA, Cancelled, utc(2026, 3, 25, 9, 0), "Asha K", charged(dec!(3.5))),
            booking(4, ASHA, Cancelled, utc(2026, 3, 26, 9, 0), "Asha K", charged(dec!(0))),
            booking(5, BRAM, Paid, utc(2026, 3, 10, 8, 0), "Bram", ride(dec!(15), dec!(12.005), dec!(1.5), dec!(2.5))),
            booking(6, BRAM, Complete, utc(2026, 3, 11, 8, 0), "Bram", ride(dec!(15), dec!(12.005), dec!(1.5), dec!(0))),
            booking(7, BRAM, New, utc(2026, 3, 12, 8, 0), "Bram", ride(dec!(99), dec!(79), dec!(9), dec!(0))),
            booking(8, BRAM, Accepted, utc(2026, 3, 13, 8, 0), "Bram", ride(dec!(99), dec!(79), dec!(9), dec!(0))),
            // April 2026
            booking(9, ASHA, Paid, utc(2026, 4, 2, 18, 0), "Asha K", ride(dec!(60), dec!(48), dec!(6), dec!(0))),
            booking(10, BRAM, Complete, utc(2026, 4, 5, 18, 0), "Bram", ride(dec!(25), dec!(20), dec!(0), dec!(0))),
            booking(11, CHEN, Cancelled, utc(2026, 4, 6, 18, 0), "Chen", Money { cancellation_fee: dec!(2), ..NO_MONEY }),
        ]
    }

    fn earnings(year: i32, month: u32, driver: UserId, name: &str, share: Decimal, rides: u32) -> EarningsRow {
        EarningsRow {
            year,
            month,
            monthsName: timefmt::month_name(month).to_string(),
            driverShare: share,
            total_rides: rides,
            driverName: name.to_string(),
            driverVehicleNo: format!("{name} car"),
            driverUId: driver,
        }
    }

    #[test]
    fn counted_statuses_are_paid_and_complete_plus_charged_cancellations_in_reports() {
        // spec §9: earnings only for PAID or COMPLETE; cancelled count in reports with a fee
        for status in BookingStatus::ALL {
            let with_fee = booking(1, ASHA, status, 0, "Asha", Money { cancellation_fee: dec!(1), ..NO_MONEY });
            let without_fee = booking(1, ASHA, status, 0, "Asha", NO_MONEY);
            let paid = matches!(status, BookingStatus::Paid | BookingStatus::Complete);
            assert_eq!(counts_for_earnings(&without_fee), paid, "{status:?}");
            assert_eq!(counts_for_report(&without_fee), paid, "{status:?}");
            assert_eq!(counts_for_report(&with_fee), paid || status == BookingStatus::Cancelled, "{status:?}");
        }
    }

    #[test]
    fn the_dashboard_counts_a_ride_without_a_convenience_fee_as_the_reports_do() {
        // Issue #34: the cards and the reports count the same rides.
        let with_fee = booking(1, ASHA, BookingStatus::Paid, 0, "Asha", ride(dec!(10), dec!(8), dec!(1), dec!(0)));
        let without_fee = booking(2, ASHA, BookingStatus::Paid, 0, "Asha", ride(dec!(10), dec!(8), dec!(0), dec!(0)));
        let inputs = [with_fee, without_fee];
        let cards = dashboard_earnings(&inputs, 0, 0, 2);
        let report = earnings_report(&inputs, 0, 2);
        assert_eq!(cards.rides.total, 2);
        let reported: u64 = report.iter().map(|row| u64::from(row.earnings.total_rides)).sum();
        assert_eq!(cards.rides.total, reported);
    }

    #[test]
    fn the_dashboard_sums_panel_rides_of_the_local_day_month_and_ever() {
        use BookingStatus::*;
        // spec §2 "Dashboard", §9: PAID or COMPLETE (issue #34: with or
        // without a convenience fee, as the reports count them).
        let now = utc(2026, 4, 1, 3, 0); // March 31st, 22:00 in UTC−5
        let inputs = vec![
            booking(1, ASHA, Paid, utc(2026, 4, 1, 2, 0), "Asha", ride(dec!(10.005), dec!(8), dec!(1), dec!(0))),
            booking(2, ASHA, Complete, utc(2026, 3, 31, 5, 0), "Asha", ride(dec!(20), dec!(16), dec!(2), dec!(0))),
            // 04:59 UTC on the 31st is the 30th locally: this month, not today.
            booking(3, BRAM, Complete, utc(2026, 3, 31, 4, 59), "Bram", ride(dec!(5.005), dec!(4), dec!(0.5), dec!(0))),
            // Local April 1st: next month.
            booking(4, BRAM, Paid, utc(2026, 4, 1, 5, 0), "Bram", ride(dec!(7), dec!(6), dec!(1), dec!(0))),
            // February, and a trip date no calendar places: the total only.
            booking(5, CHEN, Complete, utc(2026, 2, 10, 12, 0), "Chen", ride(dec!(3), dec!(2), dec!(1), dec!(0))),
            booking(6, CHEN, Complete, i64::MAX, "Chen", ride(dec!(1), dec!(1), dec!(0.1), dec!(0))),
            // A ride without a fee counts; not paid, cancelled with a fee do not.
            booking(7, ASHA, Complete, utc(2026, 4, 1, 2, 0), "Asha", ride(dec!(50), dec!(50), dec!(0), dec!(0))),
            booking(8, ASHA, Reached, utc(2026, 4, 1, 2, 0), "Asha", ride(dec!(50), dec!(40), dec!(5), dec!(0))),
            booking(
                9,
                ASHA,
                Cancelled,
                utc(2026, 4, 1, 2, 0),
                "Asha",
                Money { cancellation_fee: dec!(4), ..ride(dec!(9), dec!(8), dec!(1), dec!(0)) },
            ),
        ];
        let cards = dashboard_earnings(&inputs, now, -300, 2);
        assert_eq!(
            cards,
            DashboardEarnings {
                // 10.005 + 20 + 50, rounded once.
                today: dec!(80.01),
                thisMonth: dec!(85.01),
                total: dec!(96.01),
                rides: DashboardRides { today: 3, thisMonth: 4, total: 7 },
            }
        );
        // In UTC the same instant is April 1st: the first ride, the fee-free one and the fourth.
        let utc_cards = dashboard_earnings(&inputs, now, 0, 2);
        assert_eq!((utc_cards.today, utc_cards.rides.today), (dec!(67.01), 3));
        assert_eq!(utc_cards.total, cards.total);
        // A `now` no calendar places has no today and no month.
        let nowhere = dashboard_earnings(&inputs, i64::MAX, 0, 2);
        assert_eq!((nowhere.today, nowhere.thisMonth, nowhere.total), (dec!(0), dec!(0), cards.total));
    }

    #[test]
    fn driver_earnings_sum_rides_per_driver_per_month_newest_first() {
        // spec §3 "Earnings rows", §9: PAID/COMPLETE only; NEW, ACCEPTED and
        // CANCELLED (with or without a fee) add nothing; sums rounded once.
        let rows = driver_earnings(&two_months(), 0, 2);
        assert_eq!(
            rows,
            vec![
                earnings(2026, 4, ASHA, "Asha K", dec!(48), 1),
                earnings(2026, 4, BRAM, "Bram", dec!(20), 1),
                // 80 + 10.005 = 90.005, rounded half away from zero.
                earnings(2026, 3, ASHA, "Asha K", dec!(90.01), 2),
                // 12.005 + 12.005 = 24.01: summed, then rounded (not 24.02).
                earnings(2026, 3, BRAM, "Bram", dec!(24.01), 2),
            ]
        );
        assert_eq!(rows[0].monthsName, "April");
        assert_eq!(rows[2].monthsName, "March");
    }

    #[test]
    #[rustfmt::skip]
    fn the_report_adds_the_platform_side_and_cancellation_fees() {
        // spec §3 "Earnings rows": report columns; §9: a cancelled booking counts
        // only with a fee, and then only with its fee.
        let rows = earnings_report(&two_months(), 0, 2);
        let summary: Vec<_> = rows
            .iter()
            .map(|row| {
                (
                    row.earnings.month,
                    row.earnings.driverName.as_str(),
                    row.earnings.total_rides,
                    row.earnings.driverShare,
                    row.tripCost,
                    row.convenienceFee,
                    row.discountAmount,
                    row.customerPaid,
                    row.cancellationFee,
                    row.rideCost,
                    row.myEarning,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                // (month, name, rides, driverShare, tripCost, convenienceFee, discountAmount,
                //  customerPaid, cancellationFee, rideCost, myEarning)
                (4, "Asha K", 1, dec!(48), dec!(60), dec!(6), dec!(0), dec!(60), dec!(0), dec!(54), dec!(12)),
                (4, "Bram", 1, dec!(20), dec!(25), dec!(0), dec!(0), dec!(25), dec!(0), dec!(25), dec!(5)),
                // Chen only had a charged cancellation: a row with the fee alone.
                (4, "Chen", 0, dec!(0), dec!(0), dec!(0), dec!(0), dec!(0), dec!(2), dec!(0), dec!(0)),
                // Trip 112.505 → 112.51, paid 107.505 → 107.51; the 3.50 fee stays
                // out of driverShare and myEarning: 112.51 − 90.01 − 5 = 17.50.
                (3, "Asha K", 2, dec!(90.01), dec!(112.51), dec!(11.25), dec!(5), dec!(107.51), dec!(3.5), dec!(101.26), dec!(17.5)),
                // 30 − 24.01 − 2.50 = 3.49: the platform absorbs the discount.
                (3, "Bram", 2, dec!(24.01), dec!(30), dec!(3), dec!(2.5), dec!(27.5), dec!(0), dec!(27), dec!(3.49)),
            ]
        );
    }

    #[test]
    fn the_report_and_driver_earnings_agree_on_every_ride_month() {
        // spec §3: report rows are earnings rows plus the platform's columns
        let report = earnings_report(&two_months(), 0, 2);
        let from_report: Vec<_> =
            report.into_iter().filter(|row| row.earnings.total_rides > 0).map(|row| row.earnings).collect();
        assert_eq!(from_report, driver_earnings(&two_months(), 0, 2));
    }

    #[test]
    fn the_offset_moves_a_late_evening_booking_into_the_next_month() {
        // spec §3: grouped by month of tripdate, read in the caller's zone
        let late_on_march_31 = utc(2026, 3, 31, 23, 30);
        let inputs = [booking(
            1,
            ASHA,
            BookingStatus::Paid,
            late_on_march_31,
            "Asha",
            ride(dec!(10), dec!(8), dec!(1), dec!(0)),
        )];
        let in_utc = driver_earnings(&inputs, 0, 2);
        assert_eq!((in_utc[0].year, in_utc[0].month, in_utc[0].monthsName.as_str()), (2026, 3, "March"));
        let in_paris = driver_earnings(&inputs, 60, 2);
        assert_eq!((in_paris[0].year, in_paris[0].month, in_paris[0].monthsName.as_str()), (2026, 4, "April"));
        let early_new_year = utc(2027, 1, 1, 1, 0);
        let inputs =
            [booking(2, ASHA, BookingStatus::Paid, early_new_year, "Asha", ride(dec!(10), dec!(8), dec!(1), dec!(0)))];
        let in_new_york = earnings_report(&inputs, -300, 2);
        assert_eq!((in_new_york[0].earnings.year, in_new_york[0].earnings.month), (2026, 12));
    }

    #[test]
    fn name_and_vehicle_come_from_the_latest_counted_booking_of_the_group() {
        // spec §3: driverName and driverVehicleNo of the group
        use BookingStatus::*;
        let inputs = [
            booking(3, ASHA, Complete, utc(2026, 5, 20, 0, 0), "Asha new", ride(dec!(10), dec!(8), dec!(1), dec!(0))),
            booking(1, ASHA, Paid, utc(2026, 5, 2, 0, 0), "Asha old", ride(dec!(10), dec!(8), dec!(1), dec!(0))),
            // Same tripdate as booking 3: the greater booking id wins the tie.
            booking(2, ASHA, Paid, utc(2026, 5, 20, 0, 0), "Asha tie", ride(dec!(10), dec!(8), dec!(1), dec!(0))),
            booking(
                4,
                ASHA,
                Cancelled,
                utc(2026, 5, 30, 0, 0),
                "Asha cancelled",
                Money { cancellation_fee: dec!(1), ..NO_MONEY },
            ),
        ];
        let earnings_row = &driver_earnings(&inputs, 0, 2)[0];
        assert_eq!(
            (earnings_row.driverName.as_str(), earnings_row.driverVehicleNo.as_str()),
            ("Asha new", "Asha new car")
        );
        // The report counts the charged cancellation, so it is the latest there.
        assert_eq!(earnings_report(&inputs, 0, 2)[0].earnings.driverName, "Asha cancelled");
    }

    #[test]
    fn drivers_with_the_same_name_are_separate_rows_in_id_order() {
        let inputs = [
            booking(
                1,
                BRAM,
                BookingStatus::Paid,
                utc(2026, 5, 2, 0, 0),
                "Sam",
                ride(dec!(10), dec!(8), dec!(1), dec!(0)),
            ),
            booking(
                2,
                ASHA,
                BookingStatus::Paid,
                utc(2026, 5, 3, 0, 0),
                "Sam",
                ride(dec!(10), dec!(7), dec!(1), dec!(0)),
            ),
        ];
        let drivers: Vec<_> =
            driver_earnings(&inputs, 0, 2).iter().map(|row| (row.driverUId, row.driverShare)).collect();
        assert_eq!(drivers, vec![(ASHA, dec!(7)), (BRAM, dec!(8))]);
    }

    #[test]
    fn a_month_or_a_year_is_cut_at_the_reports_offset() {
        // spec §2 earning reports: filter by month and year; months as the rows group them
        let march =
            report_period(PeriodQuery { year: Some(2026), month: Some(3), ..PeriodQuery::default() }, 0).unwrap();
        assert_eq!(march, ReportPeriod { from: Some(utc(2026, 3, 1, 0, 0)), until: Some(utc(2026, 4, 1, 0, 0)) });
        let december_in_new_york =
            report_period(PeriodQuery { year: Some(2026), month: Some(12), ..PeriodQuery::default() }, -300).unwrap();
        assert_eq!(
            december_in_new_york,
            ReportPeriod { from: Some(utc(2026, 12, 1, 5, 0)), until: Some(utc(2027, 1, 1, 5, 0)) }
        );
        let year = report_period(PeriodQuery { year: Some(2026), ..PeriodQuery::default() }, 60).unwrap();
        assert_eq!(year, ReportPeriod { from: Some(utc(2025, 12, 31, 23, 0)), until: Some(utc(2026, 12, 31, 23, 0)) });
        // Every booking of the period falls in the period's month, and none outside it does.
        let inputs = [
            booking(
                1,
                ASHA,
                BookingStatus::Paid,
                utc(2026, 12, 1, 4, 59),
                "Asha",
                ride(dec!(10), dec!(8), dec!(1), dec!(0)),
            ),
            booking(
                2,
                ASHA,
                BookingStatus::Paid,
                utc(2026, 12, 1, 5, 0),
                "Asha",
                ride(dec!(10), dec!(7), dec!(1), dec!(0)),
            ),
        ];
        let period = december_in_new_york;
        let inside: Vec<_> = inputs
            .iter()
            .filter(|input| {
                period.from.is_none_or(|from| input.tripdate >= from)
                    && period.until.is_none_or(|until| input.tripdate < until)
            })
            .cloned()
            .collect();
        let rows = driver_earnings(&inside, -300, 2);
        assert_eq!((rows.len(), rows[0].year, rows[0].month, rows[0].driverShare), (1, 2026, 12, dec!(7)));
    }

    #[test]
    fn a_range_passes_through_and_bad_periods_name_their_field() {
        let range = PeriodQuery { from: Some(10), until: Some(20), ..PeriodQuery::default() };
        assert_eq!(report_period(range, 0).unwrap(), ReportPeriod { from: Some(10), until: Some(20) });
        assert_eq!(report_period(PeriodQuery::default(), 0).unwrap(), ReportPeriod::default());
        let open = PeriodQuery { from: Some(10), ..PeriodQuery::default() };
        assert_eq!(report_period(open, 0).unwrap(), ReportPeriod { from: Some(10), until: None });
        let field = |query: PeriodQuery, offset: i32| {
            let error = report_period(query, offset).unwrap_err();
            assert_eq!(error.key, ErrorKey::InvalidInput);
            error.field.unwrap()
        };
        assert_eq!(field(PeriodQuery { month: Some(3), ..PeriodQuery::default() }, 0), "year");
        assert_eq!(field(PeriodQuery { year: Some(2026), month: Some(13), ..PeriodQuery::default() }, 0), "month");
        assert_eq!(field(PeriodQuery { year: Some(2026), month: Some(0), ..PeriodQuery::default() }, 0), "month");
        assert_eq!(field(PeriodQuery { year: Some(10_000), ..PeriodQuery::default() }, 0), "year");
        assert_eq!(field(PeriodQuery { year: Some(2026), from: Some(1), ..PeriodQuery::default() }, 0), "from");
        assert_eq!(field(PeriodQuery { from: Some(20), until: Some(20), ..PeriodQuery::default() }, 0), "until");
        assert_eq!(field(PeriodQuery::default(), 15 * 60), "utc_offset_minutes");
    }

    #[test]
    fn no_inputs_give_no_rows() {
        assert!(driver_earnings(&[], 0, 2).is_empty());
        assert!(earnings_report(&[], 0, 2).is_empty());
    }

    #[test]
    fn an_unplaceable_tripdate_keeps_its_money_in_an_unknown_month_row() {
        // Money never vanishes from the sums; the odd row sorts last.
        let inputs = [
            booking(1, ASHA, BookingStatus::Paid, Millis::MAX, "Asha", ride(dec!(10), dec!(8), dec!(1), dec!(0))),
            booking(
                2,
                ASHA,
                BookingStatus::Paid,
                utc(2026, 5, 3, 0, 0),
                "Asha",
                ride(dec!(10), dec!(7), dec!(1), dec!(0)),
            ),
        ];
        let rows = driver_earnings(&inputs, 0, 2);
        assert_eq!((rows[0].year, rows[0].month), (2026, 5));
        assert_eq!((rows[1].year, rows[1].month, rows[1].monthsName.as_str()), (0, 0, "Unknown"));
        assert_eq!(rows[1].driverShare, dec!(8));
    }

    fn any_input(decimals: u32, extra_places: u32) -> impl Strategy<Value = EarningsInput> {
        let scale = decimals + extra_places;
        let amount = move || (0i64..1_000_000).prop_map(move |units| Decimal::new(units, scale));
        (
            0u128..1_000,
            prop::sample::select(BookingStatus::ALL.to_vec()),
            // About four months around the turn of a year, to cross boundaries.
            utc(2026, 10, 1, 0, 0)..utc(2027, 2, 1, 0, 0),
            prop::sample::select(vec![ASHA, BRAM, CHEN]),
            (amount(), amount(), amount(), amount(), amount(), amount()),
        )
            .prop_map(|(number, status, tripdate, driver, money)| {
                let (trip_cost, driver_share, convenience_fees, discount_amount, customer_paid, cancellation_fee) =
                    money;
                let name = if driver == ASHA { "Asha" } else { "Other" };
                booking(
                    number,
                    driver,
                    status,
                    tripdate,
                    name,
                    Money {
                        trip_cost,
                        driver_share,
                        convenience_fees,
                        discount_amount,
                        customer_paid,
                        cancellation_fee,
                    },
                )
            })
    }

    fn inputs_and_decimals(extra_places: u32) -> impl Strategy<Value = (Vec<EarningsInput>, u32, i32)> {
        (0u32..=3, -720i32..=840).prop_flat_map(move |(decimals, offset)| {
            (prop::collection::vec(any_input(decimals, extra_places), 0..40), Just(decimals), Just(offset))
        })
    }

    proptest! {
        #[test]
        fn driver_share_over_rows_equals_driver_share_over_rides_when_amounts_are_stored_rounded(
            (inputs, decimals, offset) in inputs_and_decimals(0),
        ) {
            // spec §9: only PAID/COMPLETE count; amounts rounded to settings.decimal
            let rides: Vec<_> = inputs.iter().filter(|input| counts_for_earnings(input)).collect();
            let expected = money::round(rides.iter().map(|input| input.driver_share).sum(), decimals);
            let rows = driver_earnings(&inputs, offset, decimals);
            prop_assert_eq!(rows.iter().map(|row| row.driverShare).sum::<Decimal>(), expected);
            prop_assert_eq!(rows.iter().map(|row| row.total_rides as usize).sum::<usize>(), rides.len());
            let report = earnings_report(&inputs, offset, decimals);
            prop_assert_eq!(report.iter().map(|row| row.earnings.driverShare).sum::<Decimal>(), expected);
            let fees: Decimal =
                inputs.iter().filter(|input| is_charged_cancellation(input)).map(|input| input.cancellation_fee).sum();
            prop_assert_eq!(report.iter().map(|row| row.cancellationFee).sum::<Decimal>(), fees);
        }

        #[test]
        fn row_rounding_drifts_at_most_half_a_unit_per_row(
            (inputs, decimals, offset) in inputs_and_decimals(2),
        ) {
            // spec §9: each row is rounded once, so unrounded inputs drift a little
            let exact: Decimal = inputs.iter().filter(|input| counts_for_earnings(input)).map(|input| input.driver_share).sum();
            let rows = driver_earnings(&inputs, offset, decimals);
            let half_unit = Decimal::new(5, decimals + 1);
            let drift = (rows.iter().map(|row| row.driverShare).sum::<Decimal>() - exact).abs();
            prop_assert!(drift <= half_unit * Decimal::from(rows.len()));
        }

        #[test]
        fn every_report_row_splits_trip_cost_into_platform_driver_and_discount(
            (inputs, decimals, offset) in inputs_and_decimals(2),
        ) {
            // spec §3 "Earnings rows": myEarning = tripCost − driverShare − discountAmount,
            // rideCost = tripCost − convenienceFee; cancellation fees stay outside,
            // so this holds on rows with fees too.
            for row in earnings_report(&inputs, offset, decimals) {
                prop_assert_eq!(row.myEarning + row.earnings.driverShare + row.discountAmount, row.tripCost);
                prop_assert_eq!(row.rideCost + row.convenienceFee, row.tripCost);
                prop_assert!(money::is_rounded(row.myEarning, decimals));
                prop_assert!(money::is_rounded(row.cancellationFee, decimals));
            }
        }

        #[test]
        fn rows_are_sorted_newest_month_first_then_by_driver_name(
            (inputs, decimals, offset) in inputs_and_decimals(0),
        ) {
            let rows = earnings_report(&inputs, offset, decimals);
            for pair in rows.windows(2) {
                prop_assert!(row_order(&pair[0].earnings) < row_order(&pair[1].earnings));
            }
        }
    }
}
