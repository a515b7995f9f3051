//! The monthly earnings roll-up: one row per (local month, driver, fleet)
//! with the sums of the bookings that count for earnings, kept by
//! `commit_booking` in the same transaction as the booking. A month's report
//! then reads one row per driver instead of grouping the month's bookings.
//!
//! Months are cut in one platform offset (`earnings_rollup.utc_offset_minutes`,
//! set from the server's configuration; changing it rebuilds the table). A
//! scope in another offset, or a date range that does not start and end on
//! month boundaries, is summed from the bookings as before: same answer,
//! slower.
//!
//! The dashboard's roll-up sits beside it: per (grain, period, fleet) the
//! rides and Σ `trip_cost` that the panel counts (`engine::earnings::
//! counts_for_earnings`), for each local day, each local month and all
//! time, cut in the same offset, kept by the same transaction, rebuilt by the
//! same pass. The dashboard's three cards are then three primary-key reads.
//!
//! The pure parts live here; the SQL that applies them is in
//! `sql/earnings_rollup.rs`.

use crate::common::earnings::EarningsGroup;
use crate::common::money::from_micros;
use crate::types::EarningsScope;
use chrono::{Datelike, Timelike};
use uuid::Uuid;
use wayfare_engine::{BookingId, BookingStatus, EarningsInput, Millis, UserId, earnings, timefmt};

/// The "no fleet" key: the roll-up's primary key cannot hold a NULL.
pub(crate) const NO_FLEET: Uuid = Uuid::nil();

/// The typed booking columns a booking's part is computed from, read from
/// the row (before an update) or taken from the booking being written.
#[derive(sqlx::FromRow, Debug, Clone)]
pub(crate) struct PartColumns {
    pub id: Uuid,
    pub status: String,
    pub tripdate: i64,
    pub driver: Option<Uuid>,
    pub fleetadmin: Option<Uuid>,
    pub driver_name: String,
    pub vehicle_number: String,
    pub driver_share_micros: i64,
    pub trip_cost_micros: i64,
    pub convenience_fees_micros: i64,
    pub discount_amount_micros: i64,
    pub customer_paid_micros: i64,
    pub cancellation_fee_micros: i64,
}

impl PartColumns {
    /// The booking as the engine's earnings rules read it; `None` without a
    /// driver (nothing counts then) or with a status that is not ours.
    fn earnings_input(&self) -> Option<EarningsInput> {
        Some(EarningsInput {
            booking: BookingId(self.id),
            status: BookingStatus::parse(&self.status)?,
            tripdate: self.tripdate,
            driver: UserId(self.driver?),
            driver_name: self.driver_name.clone(),
            vehicle_number: self.vehicle_number.clone(),
            trip_cost: from_micros(self.trip_cost_micros),
            driver_share: from_micros(self.driver_share_micros),
            convenience_fees: from_micros(self.convenience_fees_micros),
            discount_amount: from_micros(self.discount_amount_micros),
            customer_paid: from_micros(self.customer_paid_micros),
            cancellation_fee: from_micros(self.cancellation_fee_micros),
        })
    }
}

/// One booking's contribution to one roll-up row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EarningsPart {
    pub ym: i64,
    pub driver: Uuid,
    pub fleet: Uuid,
    /// PAID or COMPLETE; otherwise a cancellation that charged a fee.
    pub ride: bool,
    pub driver_share: i64,
    pub trip_cost: i64,
    pub convenience_fee: i64,
    pub discount_amount: i64,
    pub customer_paid: i64,
    pub cancellation_fee: i64,
    pub tripdate: i64,
    pub id: Uuid,
    pub driver_name: String,
    pub vehicle_number: String,
}

impl EarningsPart {
    /// The part a booking adds, or `None` when it does not count (the rules
    /// of `engine::earnings`: rides, and cancellations with a fee, that have
    /// a driver).
    pub fn of(columns: &PartColumns, utc_offset_minutes: i32) -> Option<EarningsPart> {
        let driver = columns.driver?;
        let ride = matches!(columns.status.as_str(), "PAID" | "COMPLETE");
        let charged = columns.status == "CANCELLED" && columns.cancellation_fee_micros > 0;
        if !ride && !charged {
            return None;
        }
        Some(EarningsPart {
            ym: year_month_key(columns.tripdate, utc_offset_minutes),
            driver,
            fleet: columns.fleetadmin.unwrap_or(NO_FLEET),
            ride,
            driver_share: columns.driver_share_micros,
            trip_cost: columns.trip_cost_micros,
            convenience_fee: columns.convenience_fees_micros,
            discount_amount: columns.discount_amount_micros,
            customer_paid: columns.customer_paid_micros,
            cancellation_fee: columns.cancellation_fee_micros,
            tripdate: columns.tripdate,
            id: columns.id,
            driver_name: columns.driver_name.clone(),
            vehicle_number: columns.vehicle_number.clone(),
        })
    }

    pub fn key(&self) -> (i64, Uuid, Uuid) {
        (self.ym, self.driver, self.fleet)
    }
}

/// `yyyymm` of an instant in the offset, 0 for the "Unknown" month.
pub(crate) fn year_month_key(at: Millis, utc_offset_minutes: i32) -> i64 {
    let (year, month) = timefmt::year_month(at, utc_offset_minutes);
    i64::from(year) * 100 + i64::from(month)
}

/// The months of the roll-up that answer a scope exactly: `Some(None)` for
/// every month (no date range), `Some(Some((first, last)))` for a range that
/// starts and ends on month boundaries of the roll-up's offset, `None` when
/// only the bookings can answer (another offset, a partial month, half a
/// range).
pub(crate) fn months_of(scope: &EarningsScope, rollup_offset_minutes: i32) -> Option<Option<(i64, i64)>> {
    if scope.utc_offset_minutes != rollup_offset_minutes {
        return None;
    }
    match (scope.tripdate_from, scope.tripdate_until) {
        (None, None) => Some(None),
        (Some(from), Some(until)) if from < until => {
            let aligned = |at: Millis| {
                timefmt::local_datetime(at, rollup_offset_minutes).is_ok_and(|local| {
                    local.day() == 1 && local.num_seconds_from_midnight() == 0 && local.nanosecond() == 0
                })
            };
            if !aligned(from) || !aligned(until) {
                return None;
            }
            let first = year_month_key(from, rollup_offset_minutes);
            let last = year_month_key(until - 1, rollup_offset_minutes);
            (first != 0 && last != 0).then_some(Some((first, last)))
        }
        _ => None,
    }
}

/// The booking that names a roll-up row (the latest by trip date, then id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Latest {
    pub tripdate: i64,
    pub id: Uuid,
    pub driver_name: String,
    pub vehicle_number: String,
}

impl Latest {
    fn of(part: &EarningsPart) -> Latest {
        Latest {
            tripdate: part.tripdate,
            id: part.id,
            driver_name: part.driver_name.clone(),
            vehicle_number: part.vehicle_number.clone(),
        }
    }

    /// Whether `other` names the row instead of `self`: the database's rule
    /// (trip date, then id as bytes), so a rebuilt row matches a kept one.
    fn yields_to(&self, other: &Latest) -> bool {
        (other.tripdate, other.id.as_bytes()) >= (self.tripdate, self.id.as_bytes())
    }
}

/// What one statement adds to a roll-up row (negative to take a part away).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RollupAdd {
    pub ym: i64,
    pub driver: Uuid,
    pub fleet: Uuid,
    pub rides: i64,
    pub driver_share: i64,
    pub trip_cost: i64,
    pub convenience_fee: i64,
    pub discount_amount: i64,
    pub customer_paid: i64,
    pub charged_cancellations: i64,
    pub cancellation_fee: i64,
    pub ride_latest: Option<Latest>,
    pub latest: Option<Latest>,
}

impl RollupAdd {
    /// A part added (`sign` 1) or taken away (`sign` -1). Taking away never
    /// renames: a counted booking only moves from PAID to COMPLETE, and is
    /// added back at once, naming the row again.
    pub fn of(part: &EarningsPart, sign: i64) -> RollupAdd {
        let ride = i64::from(part.ride);
        let named = (sign > 0).then(|| Latest::of(part));
        RollupAdd {
            ym: part.ym,
            driver: part.driver,
            fleet: part.fleet,
            rides: sign * ride,
            driver_share: sign * ride * part.driver_share,
            trip_cost: sign * ride * part.trip_cost,
            convenience_fee: sign * ride * part.convenience_fee,
            discount_amount: sign * ride * part.discount_amount,
            customer_paid: sign * ride * part.customer_paid,
            charged_cancellations: sign * (1 - ride),
            cancellation_fee: sign * (1 - ride) * part.cancellation_fee,
            ride_latest: if part.ride { named.clone() } else { None },
            latest: named,
        }
    }

    fn merge(&mut self, other: RollupAdd) {
        self.rides += other.rides;
        self.driver_share += other.driver_share;
        self.trip_cost += other.trip_cost;
        self.convenience_fee += other.convenience_fee;
        self.discount_amount += other.discount_amount;
        self.customer_paid += other.customer_paid;
        self.charged_cancellations += other.charged_cancellations;
        self.cancellation_fee += other.cancellation_fee;
        for (mine, theirs) in [(&mut self.ride_latest, other.ride_latest), (&mut self.latest, other.latest)] {
            if let Some(theirs) = theirs
                && mine.as_ref().is_none_or(|current| current.yields_to(&theirs))
            {
                *mine = Some(theirs);
            }
        }
    }
}

/// Folds parts into one row per (month, driver, fleet), for a rebuild.
#[derive(Debug, Default)]
pub(crate) struct Fold {
    rows: std::collections::HashMap<(i64, Uuid, Uuid), RollupAdd>,
}

impl Fold {
    pub fn add(&mut self, part: &EarningsPart) {
        let add = RollupAdd::of(part, 1);
        match self.rows.entry(part.key()) {
            std::collections::hash_map::Entry::Occupied(mut row) => row.get_mut().merge(add),
            std::collections::hash_map::Entry::Vacant(row) => {
                row.insert(add);
            }
        }
    }

    pub fn into_rows(self) -> Vec<RollupAdd> {
        self.rows.into_values().collect()
    }
}

/// The grains of the dashboard roll-up: all time (period 0), a local month
/// (`yyyymm`) and a local day (`yyyymmdd`).
pub(crate) const GRAIN_ALL: i64 = 0;
pub(crate) const GRAIN_MONTH: i64 = 1;
pub(crate) const GRAIN_DAY: i64 = 2;

/// `yyyymmdd` of a local date.
pub(crate) fn day_key(date: chrono::NaiveDate) -> i64 {
    i64::from(date.year()) * 10_000 + i64::from(date.month()) * 100 + i64::from(date.day())
}

/// `yyyymm` of a local date.
pub(crate) fn month_key(date: chrono::NaiveDate) -> i64 {
    i64::from(date.year()) * 100 + i64::from(date.month())
}

/// One booking's part in the dashboard roll-up: a ride the panel counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DashboardPart {
    pub fleet: Uuid,
    pub trip_cost: i64,
    /// Its local date, when a calendar places its trip date.
    pub date: Option<chrono::NaiveDate>,
}

/// What one statement adds to a dashboard roll-up row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DashboardAdd {
    pub grain: i64,
    pub period: i64,
    pub fleet: Uuid,
    pub rides: i64,
    pub trip_cost: i64,
}

impl DashboardPart {
    /// The part a booking adds, or `None` when the panel does not count it
    /// (the engine's rule).
    pub fn of(columns: &PartColumns, utc_offset_minutes: i32) -> Option<DashboardPart> {
        let input = columns.earnings_input()?;
        if !earnings::counts_for_earnings(&input) {
            return None;
        }
        Some(DashboardPart {
            fleet: columns.fleetadmin.unwrap_or(NO_FLEET),
            trip_cost: columns.trip_cost_micros,
            date: timefmt::local_date(columns.tripdate, utc_offset_minutes),
        })
    }

    /// Its rows: all time, and its month and day when it has a date; taken
    /// away with `sign` -1.
    pub fn adds(&self, sign: i64) -> Vec<DashboardAdd> {
        let add = |grain, period| DashboardAdd {
            grain,
            period,
            fleet: self.fleet,
            rides: sign,
            trip_cost: sign * self.trip_cost,
        };
        let mut adds = vec![add(GRAIN_ALL, 0)];
        if let Some(date) = self.date {
            adds.push(add(GRAIN_MONTH, month_key(date)));
            adds.push(add(GRAIN_DAY, day_key(date)));
        }
        adds
    }
}

/// Folds dashboard parts into one row per (grain, period, fleet), for a
/// rebuild or a bulk import.
#[derive(Debug, Default)]
pub(crate) struct DashboardFold {
    rows: std::collections::HashMap<(i64, i64, Uuid), (i64, i64)>,
}

impl DashboardFold {
    pub fn add(&mut self, part: &DashboardPart) {
        self.fold(part, 1);
    }

    /// Takes a part away (a booking that no longer counts as it did).
    pub fn take(&mut self, part: &DashboardPart) {
        self.fold(part, -1);
    }

    fn fold(&mut self, part: &DashboardPart, sign: i64) {
        for add in part.adds(sign) {
            let sums = self.rows.entry((add.grain, add.period, add.fleet)).or_default();
            sums.0 += add.rides;
            sums.1 += add.trip_cost;
        }
    }

    pub fn into_rows(self) -> Vec<DashboardAdd> {
        self.rows
            .into_iter()
            .map(|((grain, period, fleet), (rides, trip_cost))| DashboardAdd { grain, period, fleet, rides, trip_cost })
            .collect()
    }
}

/// A roll-up row as read for a report.
#[derive(sqlx::FromRow, Debug)]
pub(crate) struct RollupRow {
    pub ym: i64,
    pub driver: Uuid,
    pub rides: i64,
    pub driver_share: i64,
    pub trip_cost: i64,
    pub convenience_fee: i64,
    pub discount_amount: i64,
    pub customer_paid: i64,
    pub charged_cancellations: i64,
    pub cancellation_fee: i64,
    pub ride_latest_tripdate: Option<i64>,
    pub ride_latest_id: Option<Uuid>,
    pub ride_driver_name: Option<String>,
    pub ride_vehicle_number: Option<String>,
    pub latest_tripdate: Option<i64>,
    pub latest_id: Option<Uuid>,
    pub driver_name: Option<String>,
    pub vehicle_number: Option<String>,
}

/// Which bookings a report sums: rides only (driver earnings) or rides and
/// charged cancellations (the earnings report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counted {
    Rides,
    Reported,
}

/// Folds roll-up rows, ordered by (month, driver), into one group per
/// (month, driver): a driver who changed fleet within a month has a row per
/// fleet. The name and vehicle are those of the latest counted booking.
pub(crate) fn groups_of(rows: Vec<RollupRow>, counted: Counted) -> Vec<EarningsGroup> {
    type Latest = Option<(i64, Uuid)>;
    let mut groups: Vec<(EarningsGroup, Latest)> = Vec::new();
    for row in rows {
        let (latest, name, vehicle) = match counted {
            Counted::Rides => {
                (row.ride_latest_tripdate.zip(row.ride_latest_id), row.ride_driver_name, row.ride_vehicle_number)
            }
            Counted::Reported => (row.latest_tripdate.zip(row.latest_id), row.driver_name, row.vehicle_number),
        };
        let (cancellation_fee, counts) = match counted {
            Counted::Rides => (0, row.rides),
            Counted::Reported => (row.cancellation_fee, row.rides + row.charged_cancellations),
        };
        if counts <= 0 {
            continue;
        }
        let same = groups.last().is_some_and(|(group, _)| group.ym == row.ym && group.driver == row.driver);
        if !same {
            groups.push((
                EarningsGroup {
                    ym: row.ym,
                    driver: row.driver,
                    rides: 0,
                    driver_share: 0,
                    trip_cost: 0,
                    convenience_fee: 0,
                    discount_amount: 0,
                    customer_paid: 0,
                    cancellation_fee: 0,
                    driver_name: None,
                    vehicle_number: None,
                },
                None,
            ));
        }
        let Some((group, group_latest)) = groups.last_mut() else {
            continue;
        };
        group.rides += row.rides;
        group.driver_share += row.driver_share;
        group.trip_cost += row.trip_cost;
        group.convenience_fee += row.convenience_fee;
        group.discount_amount += row.discount_amount;
        group.customer_paid += row.customer_paid;
        group.cancellation_fee += cancellation_fee;
        if latest.is_some() && latest >= *group_latest {
            *group_latest = latest;
            group.driver_name = name;
            group.vehicle_number = vehicle;
        }
    }
    groups.into_iter().map(|(group, _)| group).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECEMBER_2025_UTC: Millis = 1_764_547_200_000;
    const JANUARY_2026_UTC: Millis = 1_767_225_600_000;
    const FIVE_HOURS: Millis = 5 * 3_600_000;

    fn scope(from: Option<Millis>, until: Option<Millis>, offset: i32) -> EarningsScope {
        EarningsScope { tripdate_from: from, tripdate_until: until, utc_offset_minutes: offset, ..Default::default() }
    }

    #[test]
    fn whole_months_in_the_rollup_offset_come_from_the_rollup() {
        assert_eq!(months_of(&scope(None, None, 0), 0), Some(None));
        assert_eq!(
            months_of(&scope(Some(DECEMBER_2025_UTC), Some(JANUARY_2026_UTC), 0), 0),
            Some(Some((202512, 202512)))
        );
        // December in UTC−5 starts five hours later.
        let december_local = scope(Some(DECEMBER_2025_UTC + FIVE_HOURS), Some(JANUARY_2026_UTC + FIVE_HOURS), -300);
        assert_eq!(months_of(&december_local, -300), Some(Some((202512, 202512))));
        assert_eq!(months_of(&december_local, 0), None, "another offset");
        assert_eq!(months_of(&scope(Some(DECEMBER_2025_UTC + 1), Some(JANUARY_2026_UTC), 0), 0), None);
        assert_eq!(months_of(&scope(Some(DECEMBER_2025_UTC), None, 0), 0), None, "half a range");
        assert_eq!(months_of(&scope(Some(JANUARY_2026_UTC), Some(DECEMBER_2025_UTC), 0), 0), None);
    }

    fn columns(status: &str, fee: i64) -> PartColumns {
        PartColumns {
            id: Uuid::from_u128(7),
            status: status.to_string(),
            tripdate: DECEMBER_2025_UTC + 1,
            driver: Some(Uuid::from_u128(1)),
            fleetadmin: None,
            driver_name: "Ann".into(),
            vehicle_number: "V1".into(),
            driver_share_micros: 10,
            trip_cost_micros: 12,
            convenience_fees_micros: 2,
            discount_amount_micros: 0,
            customer_paid_micros: 12,
            cancellation_fee_micros: fee,
        }
    }

    #[test]
    fn only_rides_and_charged_cancellations_with_a_driver_count() {
        let ride = EarningsPart::of(&columns("COMPLETE", 0), 0).unwrap();
        assert!(ride.ride);
        assert_eq!((ride.ym, ride.fleet), (202512, NO_FLEET));
        assert!(EarningsPart::of(&columns("PAID", 0), 0).is_some());
        assert!(!EarningsPart::of(&columns("CANCELLED", 5), 0).unwrap().ride);
        assert_eq!(EarningsPart::of(&columns("CANCELLED", 0), 0), None);
        assert_eq!(EarningsPart::of(&columns("STARTED", 0), 0), None);
        let mut no_driver = columns("COMPLETE", 0);
        no_driver.driver = None;
        assert_eq!(EarningsPart::of(&no_driver, 0), None);
    }

    #[test]
    fn the_dashboard_counts_paid_rides_on_their_local_day() {
        // 2025-12-01 00:00:01 UTC is November 30th in UTC−5.
        let mut paid = columns("PAID", 0);
        paid.fleetadmin = Some(Uuid::from_u128(9));
        let part = DashboardPart::of(&paid, -300).unwrap();
        assert_eq!((part.fleet, part.trip_cost), (Uuid::from_u128(9), 12));
        let keys: Vec<(i64, i64)> = part.adds(1).iter().map(|add| (add.grain, add.period)).collect();
        assert_eq!(keys, [(GRAIN_ALL, 0), (GRAIN_MONTH, 202511), (GRAIN_DAY, 20251130)]);
        assert_eq!(
            DashboardPart::of(&paid, 0).unwrap().adds(-1)[2],
            DashboardAdd { grain: GRAIN_DAY, period: 20251201, fleet: Uuid::from_u128(9), rides: -1, trip_cost: -12 }
        );
        // A ride without a convenience fee counts, as in the reports (issue
        // #34); not a ride, no driver: not on the dashboard.
        let mut no_fee = columns("COMPLETE", 0);
        no_fee.convenience_fees_micros = 0;
        assert_eq!(DashboardPart::of(&no_fee, 0).map(|part| part.trip_cost), Some(12));
        assert_eq!(DashboardPart::of(&columns("CANCELLED", 5), 0), None);
        let mut no_driver = columns("COMPLETE", 0);
        no_driver.driver = None;
        assert_eq!(DashboardPart::of(&no_driver, 0), None);
        // A trip date no calendar places counts in the total only.
        let mut nowhere = columns("COMPLETE", 0);
        nowhere.tripdate = i64::MAX;
        assert_eq!(DashboardPart::of(&nowhere, 0).unwrap().adds(1).len(), 1);
    }

    fn row(fleet_rides: i64, latest: i64, name: &str, cancellations: i64) -> RollupRow {
        RollupRow {
            ym: 202512,
            driver: Uuid::from_u128(1),
            rides: fleet_rides,
            driver_share: 10 * fleet_rides,
            trip_cost: 12 * fleet_rides,
            convenience_fee: 2 * fleet_rides,
            discount_amount: 0,
            customer_paid: 12 * fleet_rides,
            charged_cancellations: cancellations,
            cancellation_fee: 5 * cancellations,
            ride_latest_tripdate: (fleet_rides > 0).then_some(latest),
            ride_latest_id: (fleet_rides > 0).then_some(Uuid::from_u128(latest as u128)),
            ride_driver_name: (fleet_rides > 0).then(|| name.to_string()),
            ride_vehicle_number: (fleet_rides > 0).then(|| "V".to_string()),
            latest_tripdate: Some(latest),
            latest_id: Some(Uuid::from_u128(latest as u128)),
            driver_name: Some(name.to_string()),
            vehicle_number: Some("V".to_string()),
        }
    }

    #[test]
    fn a_driver_in_two_fleets_in_one_month_is_one_group_named_by_the_latest_booking() {
        let groups = groups_of(vec![row(2, 20, "New name", 0), row(1, 10, "Old name", 1)], Counted::Reported);
        assert_eq!(groups.len(), 1);
        assert_eq!((groups[0].rides, groups[0].driver_share, groups[0].cancellation_fee), (3, 30, 5));
        assert_eq!(groups[0].driver_name.as_deref(), Some("New name"));
        // Rides only: the cancellation's fee is not earnings.
        let rides = groups_of(vec![row(0, 30, "Cancelled", 1), row(1, 10, "Ride", 0)], Counted::Rides);
        assert_eq!((rides[0].rides, rides[0].cancellation_fee), (1, 0));
        assert_eq!(rides[0].driver_name.as_deref(), Some("Ride"));
        assert!(groups_of(vec![row(0, 30, "Cancelled", 1)], Counted::Rides).is_empty());
    }
}
