use super::*;
use crate::dispatch::fixtures::{self, PICKUP};
use crate::ids::UserId;
use crate::model::Role;
use crate::model::{AmountType, PricedChoice, PromoDetails};
use crate::permissions::{Principal, UserRef};
use rust_decimal_macros::dec;

fn driver_id() -> UserId {
    UserId::from_u128(7)
}

/// A card-paid taxi trip: 18.50 trip cost with a 1.50 fee, 2.00 promo.
fn paid_by_card() -> Booking {
    let mut booking = fixtures::booking("Economy", PICKUP);
    booking.status = BookingStatus::Paid;
    booking.driver = Some(driver_id());
    booking.driver_name = "Dana Driver".into();
    booking.vehicle_number = "MD 123".into();
    booking.trip_cost = dec!(18.50);
    booking.convenience_fees = dec!(1.50);
    booking.driver_share = dec!(17.00);
    booking.discount_amount = dec!(2.00);
    booking.discount = dec!(2.00);
    booking.promo_details = Some(PromoDetails {
        promo_name: "SPRING".into(),
        promo_discount_type: AmountType::Flat,
        promo_discount_value: dec!(2),
        max_promo_discount_value: dec!(2),
    });
    booking.payableAmount = dec!(16.50);
    booking.customer_paid = dec!(16.50);
    booking.cardPaymentAmount = dec!(16.50);
    booking.payment_mode = Some(PaymentMode::Card);
    booking.gateway = Some("stripe".into());
    booking.distance = 8.2;
    booking.total_trip_time = 960;
    booking.endTime = Some(fixtures::NOW + 960_000);
    booking
}

fn company_settings() -> Settings {
    Settings {
        CompanyName: "Wayfare Cabs Ltd".into(),
        CompanyAddress: "1 Harbor St, Baltimore".into(),
        taxNumber: "US-99-123".into(),
        ..Settings::default()
    }
}

#[test]
fn a_card_paid_trip_lists_fare_fee_discount_and_the_card_part() {
    let receipt = receipt(&paid_by_card(), &company_settings()).unwrap();
    let lines: Vec<(LineKind, Decimal)> = receipt.lines.iter().map(|line| (line.kind, line.amount)).collect();
    assert_eq!(
        lines,
        vec![(LineKind::Fare, dec!(17.00)), (LineKind::ConvenienceFee, dec!(1.50)), (LineKind::Discount, dec!(-2.00))]
    );
    assert_eq!(receipt.lines[2].detail.as_deref(), Some("SPRING"));
    assert_eq!(receipt.total, dec!(16.50));
    assert_eq!(
        receipt.payments,
        vec![ReceiptPayment { method: PaidWith::Card, gateway: Some("stripe".into()), amount: dec!(16.50) }]
    );
    assert_eq!(receipt.number, "ABCDEF");
    assert_eq!(receipt.date, fixtures::NOW + 960_000);
    assert_eq!(receipt.company.name, "Wayfare Cabs Ltd");
    assert_eq!(receipt.company.tax_number, "US-99-123");
    assert_eq!(receipt.tax, None);
    assert_eq!(receipt.distance_unit, "km");
}

#[test]
fn a_delivery_lists_its_parcel_type_and_option_within_the_trip_cost() {
    let mut booking = paid_by_card();
    booking.appcat = AppCategory::Delivery;
    booking.parcelTypeSelected = Some(PricedChoice { description: "Small box".into(), amount: dec!(3) });
    booking.optionSelected = Some(PricedChoice { description: "Fragile".into(), amount: dec!(1.25) });
    let receipt = receipt(&booking, &company_settings()).unwrap();
    let lines: Vec<(LineKind, Option<&str>, Decimal)> =
        receipt.lines.iter().map(|line| (line.kind, line.detail.as_deref(), line.amount)).collect();
    assert_eq!(
        lines,
        vec![
            (LineKind::Fare, None, dec!(12.75)),
            (LineKind::ParcelType, Some("Small box"), dec!(3.00)),
            (LineKind::Option, Some("Fragile"), dec!(1.25)),
            (LineKind::ConvenienceFee, None, dec!(1.50)),
            (LineKind::Discount, Some("SPRING"), dec!(-2.00)),
        ]
    );
    let sum: Decimal = receipt.lines.iter().map(|line| line.amount).sum();
    assert_eq!(sum, receipt.total);
}

#[test]
fn a_tax_rate_shows_the_part_of_the_total_that_is_tax() {
    let settings = Settings { taxName: "VAT".into(), taxRate: dec!(20), ..company_settings() };
    let receipt = receipt(&paid_by_card(), &settings).unwrap();
    // 16.50 × 20 / 120 = 2.75
    assert_eq!(
        receipt.tax,
        Some(ReceiptTax { name: "VAT".into(), rate: dec!(20), amount: dec!(2.75), included: true })
    );
    let settings = Settings { taxRate: dec!(7.7), ..company_settings() };
    // 16.50 × 7.7 / 107.7 = 1.17966... → 1.18
    assert_eq!(tax_of(dec!(16.50), &settings).unwrap().amount, dec!(1.18));
}

#[test]
fn cash_and_wallet_parts_are_each_shown() {
    let mut booking = paid_by_card();
    booking.cardPaymentAmount = Decimal::ZERO;
    booking.gateway = None;
    booking.usedWalletMoney = dec!(10);
    booking.cashPaymentAmount = dec!(6.50);
    let receipt = receipt(&booking, &Settings::default()).unwrap();
    assert_eq!(
        receipt.payments,
        vec![
            ReceiptPayment { method: PaidWith::Wallet, gateway: None, amount: dec!(10.00) },
            ReceiptPayment { method: PaidWith::Cash, gateway: None, amount: dec!(6.50) },
        ]
    );
    // No company name: the app's name stands in.
    assert_eq!(receipt.company.name, "Wayfare");
}

#[test]
fn a_charged_cancellation_has_only_its_fee() {
    let mut booking = paid_by_card();
    booking.status = BookingStatus::Cancelled;
    booking.cancellationFee = dec!(5);
    booking.cancellationFeeOwed = dec!(1.5);
    let receipt = receipt(&booking, &Settings::default()).unwrap();
    assert_eq!(receipt.lines, vec![ReceiptLine { kind: LineKind::CancellationFee, detail: None, amount: dec!(5.00) }]);
    assert_eq!(receipt.total, dec!(5.00));
    assert_eq!(receipt.payments, vec![ReceiptPayment { method: PaidWith::Wallet, gateway: None, amount: dec!(3.50) }]);
    assert_eq!(receipt.owed, dec!(1.50));
}

#[test]
fn unpaid_and_free_cancelled_bookings_have_no_receipt() {
    for status in [BookingStatus::New, BookingStatus::Started, BookingStatus::Pending, BookingStatus::Cancelled] {
        let mut booking = paid_by_card();
        booking.status = status;
        assert_eq!(receipt(&booking, &Settings::default()).unwrap_err().key, ErrorKey::StatusNotAllowed, "{status:?}");
    }
    let mut complete = paid_by_card();
    complete.status = BookingStatus::Complete;
    assert!(receipt(&complete, &Settings::default()).is_ok());
}

fn trip(id: u128, tripdate: Millis, status: BookingStatus) -> Booking {
    let mut booking = paid_by_card();
    booking.id = BookingId::from_u128(id);
    booking.reference = format!("REF{id}");
    booking.tripdate = tripdate;
    booking.status = status;
    booking
}

/// 2023-11-13 00:00 UTC, a Monday (ISO week 2023-W46).
const MONDAY_UTC: Millis = 1_699_833_600_000;
const HOUR: Millis = 3_600_000;

#[test]
fn weeks_parse_and_span_monday_to_monday_in_the_offset() {
    let week = IsoWeek::parse("2023-W46").unwrap();
    assert_eq!(week.to_string(), "2023-W46");
    assert_eq!(week.span(0).unwrap(), (MONDAY_UTC, MONDAY_UTC + 7 * 24 * HOUR));
    // At UTC+2 the local Monday starts two hours earlier.
    assert_eq!(week.span(120).unwrap().0, MONDAY_UTC - 2 * HOUR);
    for bad in ["2023-46", "2023-W54", "23-W01", "2023-W1", "", "2023-W00"] {
        assert_eq!(IsoWeek::parse(bad).unwrap_err().key, ErrorKey::InvalidInput, "{bad:?}");
    }
    assert_eq!(IsoWeek::parse("2020-W53").unwrap().week, 53);
}

#[test]
fn statement_weeks_are_newest_first_and_each_once() {
    let dates = [MONDAY_UTC + HOUR, MONDAY_UTC + 2 * HOUR, MONDAY_UTC - HOUR, MONDAY_UTC + 8 * 24 * HOUR];
    let weeks: Vec<String> = statement_weeks(&dates, 0).iter().map(ToString::to_string).collect();
    assert_eq!(weeks, ["2023-W47", "2023-W46", "2023-W45"]);
}

#[test]
fn a_weekly_statement_sums_rides_and_charged_cancellations_of_the_week() {
    let card = trip(1, MONDAY_UTC + HOUR, BookingStatus::Complete);
    let mut cash = trip(2, MONDAY_UTC + 30 * HOUR, BookingStatus::Paid);
    cash.cardPaymentAmount = Decimal::ZERO;
    cash.cashPaymentAmount = dec!(16.50);
    cash.driver_share = dec!(17.005);
    let mut fee = trip(3, MONDAY_UTC + 50 * HOUR, BookingStatus::Cancelled);
    fee.cancellationFee = dec!(4);
    let free = trip(4, MONDAY_UTC + 60 * HOUR, BookingStatus::Cancelled);
    let last_week = trip(5, MONDAY_UTC - HOUR, BookingStatus::Complete);
    let mut other_driver = trip(6, MONDAY_UTC + HOUR, BookingStatus::Complete);
    other_driver.driver = Some(UserId::from_u128(8));
    let bookings = [fee, cash, card, free, last_week, other_driver];
    let week = IsoWeek::parse("2023-W46").unwrap();
    let statement = weekly_statement(driver_id(), "Dana", week, &bookings, 0, &Settings::default()).unwrap();
    let refs: Vec<&str> = statement.trips.iter().map(|trip| trip.reference.as_str()).collect();
    assert_eq!(refs, ["REF1", "REF2", "REF3"]);
    assert_eq!(statement.trips[2].trip_cost, Decimal::ZERO);
    assert_eq!(statement.trips[2].cancellation_fee, dec!(4.00));
    let totals = &statement.totals;
    assert_eq!(totals.rides, 2);
    assert_eq!(totals.trip_cost, dec!(37.00));
    // 17.00 + 17.005 summed exactly, rounded once.
    assert_eq!(totals.driver_share, dec!(34.01));
    assert_eq!(totals.convenience_fees, dec!(3.00));
    assert_eq!(totals.discount_amount, dec!(4.00));
    assert_eq!(totals.card_paid, dec!(16.50));
    assert_eq!(totals.cash_collected, dec!(16.50));
    assert_eq!(totals.cancellation_fee, dec!(4.00));
    assert_eq!(totals.earnings, dec!(38.01));
    // The platform owes the driver their take less the cash they kept.
    assert_eq!(totals.balance, dec!(21.51));
    assert_eq!(statement.from, MONDAY_UTC);
    assert_eq!(statement.driver_name, "Dana Driver");
}

#[test]
fn a_weekly_statement_agrees_with_the_earnings_report_of_the_week() {
    let bookings: Vec<Booking> = (0..20)
        .map(|index| {
            let mut booking = trip(index + 1, MONDAY_UTC + (index as i64) * 7 * HOUR, BookingStatus::Complete);
            booking.driver_share = dec!(10.333) + Decimal::from(index as u32);
            booking.trip_cost = dec!(12.347);
            booking
        })
        .collect();
    let week = IsoWeek::parse("2023-W46").unwrap();
    let statement = weekly_statement(driver_id(), "", week, &bookings, 0, &Settings::default()).unwrap();
    let inputs: Vec<_> = bookings
        .iter()
        .filter(|booking| (statement.from..statement.until).contains(&booking.tripdate))
        .map(earnings_input_for_test)
        .collect();
    let rows = crate::earnings::earnings_report(&inputs, 0, 2);
    let driver_share: Decimal = rows.iter().map(|row| row.earnings.driverShare).sum();
    let trip_cost: Decimal = rows.iter().map(|row| row.tripCost).sum();
    let rides: u32 = rows.iter().map(|row| row.earnings.total_rides).sum();
    assert_eq!(
        (statement.totals.driver_share, statement.totals.trip_cost, statement.totals.rides),
        (driver_share, trip_cost, rides)
    );
}

fn earnings_input_for_test(booking: &Booking) -> crate::model::EarningsInput {
    crate::model::EarningsInput {
        booking: booking.id,
        status: booking.status,
        tripdate: booking.tripdate,
        driver: driver_id(),
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

#[test]
fn statements_are_read_by_the_driver_admins_and_their_fleet_admin() {
    let fleet = UserId::from_u128(9);
    let driver = UserRef { id: driver_id(), role: Role::Driver, fleetadmin: Some(fleet) };
    let outcome = |principal: Principal| statement_access(&principal, driver).map_err(|error| error.key);
    assert_eq!(outcome(Principal::new(driver_id(), Role::Driver)), Ok(()));
    assert_eq!(outcome(Principal::new(UserId::from_u128(1), Role::Admin)), Ok(()));
    assert_eq!(outcome(Principal::new(fleet, Role::Fleetadmin)), Ok(()));
    assert_eq!(outcome(Principal::new(UserId::from_u128(10), Role::Fleetadmin)), Err(ErrorKey::NotFound));
    assert_eq!(outcome(Principal::new(UserId::from_u128(11), Role::Driver)), Err(ErrorKey::NotFound));
    assert_eq!(outcome(Principal::new(UserId::from_u128(12), Role::Rider)), Err(ErrorKey::NotAllowed));
    let rider = UserRef { id: UserId::from_u128(12), role: Role::Rider, fleetadmin: None };
    assert_eq!(
        statement_access(&Principal::new(UserId::from_u128(1), Role::Admin), rider).map_err(|error| error.key),
        Err(ErrorKey::NotFound)
    );
}
