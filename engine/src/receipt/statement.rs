//! A driver's weekly earnings statement: the ISO week (Monday to Sunday in
//! the reporting offset, as the earnings reports cut months), every booking
//! the earnings rules count in it (`crate::earnings`: rides, and charged
//! cancellations for their fee only), and what the week comes to.
//!
//! - `driver_share`, `trip_cost`, `convenience_fees`, `discount_amount` sum
//!   the rides only, each exactly and then rounded once, so they equal the
//!   earnings report of the same week to the last digit.
//! - `earnings` = `driver_share` + `cancellation_fee`: the driver's take.
//! - `cash_collected` is the cash the driver took from riders; card and
//!   wallet went to the platform.
//! - `balance` = `earnings` − `cash_collected`, as the wallet ledger moves it
//!   (share credited, cash debited): above 0 the platform owes the driver,
//!   below 0 the driver owes the platform.

use super::CompanyDetails;
use crate::earnings::{counts_for_earnings, counts_for_report, is_charged_cancellation};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{BookingId, UserId};
use crate::model::{Booking, BookingStatus, EarningsInput, Millis, Role};
use crate::money::{self, MoneyFormat};
use crate::permissions::{Principal, UserRef};
use crate::timefmt;
use chrono::{Datelike, NaiveDate, Weekday};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// An ISO 8601 week, written `2024-W05`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IsoWeek {
    pub year: i32,
    pub week: u32,
}

impl IsoWeek {
    /// Parses `YYYY-Www`; `invalid_input` on `week` otherwise.
    pub fn parse(text: &str) -> DomainResult<IsoWeek> {
        let invalid = || DomainError::on_field(ErrorKey::InvalidInput, "week");
        let (year, week) = text.trim().split_once("-W").ok_or_else(invalid)?;
        if year.len() != 4 || week.len() != 2 {
            return Err(invalid());
        }
        let year: i32 = year.parse().map_err(|_| invalid())?;
        let week: u32 = week.parse().map_err(|_| invalid())?;
        let parsed = IsoWeek { year, week };
        parsed.monday().ok_or_else(invalid)?;
        Ok(parsed)
    }

    /// The week holding a local date.
    pub fn of_date(date: NaiveDate) -> IsoWeek {
        let iso = date.iso_week();
        IsoWeek { year: iso.year(), week: iso.week() }
    }

    /// The week holding an instant in the offset, if the instant can be placed.
    pub fn of_instant(at: Millis, utc_offset_minutes: i32) -> Option<IsoWeek> {
        timefmt::local_date(at, utc_offset_minutes).map(IsoWeek::of_date)
    }

    pub fn monday(self) -> Option<NaiveDate> {
        NaiveDate::from_isoywd_opt(self.year, self.week, Weekday::Mon)
            .filter(|_| (timefmt::MIN_YEAR..=timefmt::MAX_YEAR).contains(&self.year))
    }

    /// The instants `[start, end)` of the week in the offset.
    pub fn span(self, utc_offset_minutes: i32) -> DomainResult<(Millis, Millis)> {
        timefmt::validate_utc_offset(utc_offset_minutes)?;
        let invalid = || DomainError::on_field(ErrorKey::InvalidInput, "week");
        let monday = self.monday().ok_or_else(invalid)?;
        let next_monday = monday.checked_add_days(chrono::Days::new(7)).ok_or_else(invalid)?;
        let start = timefmt::start_of(monday, utc_offset_minutes).ok_or_else(invalid)?;
        let end = timefmt::start_of(next_monday, utc_offset_minutes).ok_or_else(invalid)?;
        Ok((start, end))
    }
}

impl std::fmt::Display for IsoWeek {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{:04}-W{:02}", self.year, self.week)
    }
}

/// The weeks holding these trip dates, newest first, each once.
pub fn statement_weeks(trip_dates: &[Millis], utc_offset_minutes: i32) -> Vec<IsoWeek> {
    let mut weeks: Vec<IsoWeek> =
        trip_dates.iter().filter_map(|at| IsoWeek::of_instant(*at, utc_offset_minutes)).collect();
    weeks.sort_unstable_by(|left, right| right.cmp(left));
    weeks.dedup();
    weeks
}

/// One booking of a statement. A charged cancellation has only its fee.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StatementTrip {
    pub booking: BookingId,
    pub reference: String,
    pub tripdate: Millis,
    pub status: BookingStatus,
    pub pickup_address: String,
    pub drop_address: String,
    pub trip_cost: Decimal,
    pub driver_share: Decimal,
    pub convenience_fees: Decimal,
    pub discount_amount: Decimal,
    pub cash_collected: Decimal,
    pub card_paid: Decimal,
    pub wallet_paid: Decimal,
    pub cancellation_fee: Decimal,
}

/// What a week comes to (see the module's rules).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StatementTotals {
    pub rides: u32,
    pub trip_cost: Decimal,
    pub driver_share: Decimal,
    pub convenience_fees: Decimal,
    pub discount_amount: Decimal,
    pub cash_collected: Decimal,
    pub card_paid: Decimal,
    pub wallet_paid: Decimal,
    pub cancellation_fee: Decimal,
    pub earnings: Decimal,
    pub balance: Decimal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WeeklyStatement {
    pub driver: UserId,
    pub driver_name: String,
    pub vehicle_number: String,
    /// `YYYY-Www`.
    pub week: String,
    /// The week's first instant (Monday 00:00 in the offset).
    pub from: Millis,
    /// The next week's first instant.
    pub until: Millis,
    pub utc_offset_minutes: i32,
    /// In trip date order.
    pub trips: Vec<StatementTrip>,
    pub totals: StatementTotals,
    pub company: CompanyDetails,
    pub money: MoneyFormat,
}

fn earnings_input(booking: &Booking, driver: UserId) -> EarningsInput {
    EarningsInput {
        booking: booking.id,
        status: booking.status,
        tripdate: booking.tripdate,
        driver,
        driver_name: booking.driver_name.clone(),
        vehicle_number: booking.vehicle_number.clone(),
        trip_cost: booking.trip_cost,
        driver_share: booking.driver_share,
        convenience_fees: booking.convenience_fees,
        discount_amount: booking.discount_amount,
        customer_paid: booking.customer_paid,
        cancellation_fee: booking.cancellationFee,
    }
}

/// The statement of `driver` for `week` from their bookings (others, and
/// those outside the week or not counted by the earnings rules, are left
/// out). `driver_name` and `vehicle_number` come from the latest counted trip,
/// else from `fallback_name`.
pub fn weekly_statement(
    driver: UserId,
    fallback_name: &str,
    week: IsoWeek,
    bookings: &[Booking],
    utc_offset_minutes: i32,
    settings: &crate::model::Settings,
) -> DomainResult<WeeklyStatement> {
    let (from, until) = week.span(utc_offset_minutes)?;
    let mut counted: Vec<&Booking> = bookings
        .iter()
        .filter(|booking| booking.driver == Some(driver) && (from..until).contains(&booking.tripdate))
        .filter(|booking| counts_for_report(&earnings_input(booking, driver)))
        .collect();
    counted.sort_by_key(|booking| (booking.tripdate, booking.id));
    let round = |amount: Decimal| money::round_to(amount, settings);
    let mut exact = StatementTotals::default();
    let mut trips = Vec::with_capacity(counted.len());
    for booking in &counted {
        let input = earnings_input(booking, driver);
        let ride = counts_for_earnings(&input);
        let fee = if is_charged_cancellation(&input) { booking.cancellationFee } else { Decimal::ZERO };
        let only_ride = |amount: Decimal| if ride { amount } else { Decimal::ZERO };
        let trip = StatementTrip {
            booking: booking.id,
            reference: booking.reference.clone(),
            tripdate: booking.tripdate,
            status: booking.status,
            pickup_address: booking.pickupAddress.clone(),
            drop_address: booking.dropAddress.clone(),
            trip_cost: only_ride(booking.trip_cost),
            driver_share: only_ride(booking.driver_share),
            convenience_fees: only_ride(booking.convenience_fees),
            discount_amount: only_ride(booking.discount_amount),
            cash_collected: only_ride(booking.cashPaymentAmount),
            card_paid: only_ride(booking.cardPaymentAmount),
            wallet_paid: only_ride(booking.usedWalletMoney),
            cancellation_fee: fee,
        };
        if ride {
            exact.rides = exact.rides.saturating_add(1);
        }
        exact.trip_cost += trip.trip_cost;
        exact.driver_share += trip.driver_share;
        exact.convenience_fees += trip.convenience_fees;
        exact.discount_amount += trip.discount_amount;
        exact.cash_collected += trip.cash_collected;
        exact.card_paid += trip.card_paid;
        exact.wallet_paid += trip.wallet_paid;
        exact.cancellation_fee += trip.cancellation_fee;
        trips.push(StatementTrip {
            trip_cost: round(trip.trip_cost),
            driver_share: round(trip.driver_share),
            convenience_fees: round(trip.convenience_fees),
            discount_amount: round(trip.discount_amount),
            cash_collected: round(trip.cash_collected),
            card_paid: round(trip.card_paid),
            wallet_paid: round(trip.wallet_paid),
            cancellation_fee: round(trip.cancellation_fee),
            ..trip
        });
    }
    let driver_share = round(exact.driver_share);
    let cancellation_fee = round(exact.cancellation_fee);
    let cash_collected = round(exact.cash_collected);
    let earnings = driver_share + cancellation_fee;
    let totals = StatementTotals {
        rides: exact.rides,
        trip_cost: round(exact.trip_cost),
        driver_share,
        convenience_fees: round(exact.convenience_fees),
        discount_amount: round(exact.discount_amount),
        cash_collected,
        card_paid: round(exact.card_paid),
        wallet_paid: round(exact.wallet_paid),
        cancellation_fee,
        earnings,
        balance: earnings - cash_collected,
    };
    let latest = counted.last();
    Ok(WeeklyStatement {
        driver,
        driver_name: latest.map_or_else(|| fallback_name.to_string(), |booking| booking.driver_name.clone()),
        vehicle_number: latest.map(|booking| booking.vehicle_number.clone()).unwrap_or_default(),
        week: week.to_string(),
        from,
        until,
        utc_offset_minutes,
        trips,
        totals,
        company: CompanyDetails::of(settings),
        money: MoneyFormat::of(settings),
    })
}

/// Who reads a driver's statements: the driver, admins, and the driver's
/// fleet admin. Riders never (`not_allowed`); others learn nothing
/// (`not_found`), and a statement of someone who is no driver is `not_found`.
pub fn statement_access(principal: &Principal, driver: UserRef) -> DomainResult<()> {
    if principal.role == Role::Rider {
        return Err(ErrorKey::NotAllowed.into());
    }
    if driver.role != Role::Driver {
        return Err(ErrorKey::NotFound.into());
    }
    let allowed = match principal.role {
        Role::Admin => true,
        Role::Driver => principal.id == driver.id,
        Role::Fleetadmin => driver.fleetadmin == Some(principal.id),
        Role::Rider => false,
    };
    if allowed { Ok(()) } else { Err(ErrorKey::NotFound.into()) }
}
