//! The rules of a gateway checkout (spec §7 "External maps and payment": a
//! form POST with order_id, amount, currency, product_name, first_name,
//! last_name, quantity, cust_id, mobile_no, email): what the order is, who
//! may pay it and for how much. The server decides the amount (DESIGN.md
//! invariant 5): the form's amount must be what the booking asks, never less
//! or more. What a confirmed payment does to a booking is the state machine's
//! `ConfirmPayment`.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{BookingId, UserId};
use crate::model::{Booking, BookingStatus, Settings};
use crate::money;
use rust_decimal::Decimal;
use std::str::FromStr;

/// An `order_id` starting with this names a wallet top-up of `cust_id`
/// (`wallet-<anything the client likes>`); any other is a booking id.
pub const WALLET_TOP_UP_PREFIX: &str = "wallet";

/// The ledger reference of money paid into a wallet through a gateway.
pub const TX_REF_TOP_UP: &str = "TopUp";
/// The ledger reference of a payment that arrived for a booking that could no
/// longer take it (cancelled meanwhile): the money goes to the wallet.
pub const TX_REF_PAYMENT_REFUND: &str = "PaymentRefund";

/// What a checkout pays for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckoutOrder {
    Booking(BookingId),
    WalletTopUp,
}

/// Reads the form's `order_id`.
pub fn parse_order(order_id: &str) -> DomainResult<CheckoutOrder> {
    let order_id = order_id.trim();
    if order_id == WALLET_TOP_UP_PREFIX || order_id.starts_with("wallet-") {
        return Ok(CheckoutOrder::WalletTopUp);
    }
    order_id
        .parse::<uuid::Uuid>()
        .map(|id| CheckoutOrder::Booking(BookingId(id)))
        .map_err(|_| DomainError::on_field(ErrorKey::InvalidInput, "order_id"))
}

/// Reads the form's `amount`: a plain positive decimal number.
pub fn parse_amount(amount: &str) -> DomainResult<Decimal> {
    let amount = amount.trim();
    let plain = !amount.is_empty() && amount.chars().all(|character| character.is_ascii_digit() || character == '.');
    match Decimal::from_str(amount) {
        Ok(value) if plain && value > Decimal::ZERO => Ok(value),
        _ => Err(DomainError::on_field(ErrorKey::InvalidAmount, "amount")),
    }
}

/// The payer pays in the platform's currency (settings `code`).
pub fn check_currency(currency: &str, settings: &Settings) -> DomainResult<()> {
    if currency.trim().eq_ignore_ascii_case(settings.code.trim()) {
        Ok(())
    } else {
        Err(DomainError::on_field(ErrorKey::InvalidInput, "currency"))
    }
}

/// The statuses a booking takes a gateway payment in: PAYMENT_PENDING (a
/// prepaid delivery, spec §4 creation) and the end of a trip the rider pays
/// by card (REACHED, PENDING: spec §4 "Pay now").
pub fn awaits_payment(status: BookingStatus) -> bool {
    matches!(status, BookingStatus::PaymentPending | BookingStatus::Reached | BookingStatus::Pending)
}

/// A checkout of a booking: by its rider (`cust_id` is the payer), while it
/// awaits payment, for exactly what it asks.
pub fn check_booking_checkout(booking: &Booking, payer: UserId, amount: Decimal) -> DomainResult<()> {
    if booking.customer != payer {
        // Someone else's booking is not known to exist.
        return Err(ErrorKey::NotFound.into());
    }
    if booking.prepaid || !awaits_payment(booking.status) {
        return Err(ErrorKey::StatusNotAllowed.into());
    }
    if amount != booking.payableAmount {
        return Err(DomainError::on_field(ErrorKey::InvalidAmount, "amount"));
    }
    Ok(())
}

/// A wallet top-up: a positive amount with no more decimals than the
/// platform's (`settings.decimal`), and no more than any one wallet move
/// may be (`wallet::check_within_limit`).
pub fn check_top_up(amount: Decimal, settings: &Settings) -> DomainResult<()> {
    if amount > Decimal::ZERO && money::is_rounded(amount, settings.decimal) {
        crate::wallet::check_within_limit(amount).map(|_| ())
    } else {
        Err(DomainError::on_field(ErrorKey::InvalidAmount, "amount"))
    }
}

/// The ledger key of a gateway payment: one credit per payment, however
/// often its confirmation arrives (DESIGN.md invariant 4).
pub fn payment_idempotency_key(payment: uuid::Uuid) -> String {
    format!("payment:{payment}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn booking(status: BookingStatus) -> Booking {
        let json = serde_json::json!({
            "id": uuid::Uuid::from_u128(50), "reference": "ABCDEF", "appcat": "delivery", "carType": "Economy",
            "customer": UserId::from_u128(1),
            "pickup": {"lat": 39.28, "lng": -76.6, "add": "A"}, "drop": {"lat": 39.29, "lng": -76.59, "add": "B"},
            "pickupAddress": "A", "dropAddress": "B", "estimate": 25.85, "estimateDistance": 2.0, "estimateTime": 300,
            "status": status, "bookLater": false, "tripdate": 0, "bookingDate": 0, "otp": null,
            "trip_cost": 25.85, "convenience_fees": 2.35, "driver_share": 23.5, "payableAmount": 25.85,
        });
        serde_json::from_value(json).expect("a booking")
    }

    #[test]
    fn an_order_id_is_a_booking_id_or_a_wallet_top_up() {
        let id = uuid::Uuid::from_u128(50);
        assert_eq!(parse_order(&id.to_string()), Ok(CheckoutOrder::Booking(BookingId(id))));
        assert_eq!(parse_order("wallet"), Ok(CheckoutOrder::WalletTopUp));
        assert_eq!(parse_order("wallet-1800000000000"), Ok(CheckoutOrder::WalletTopUp));
        assert_eq!(parse_order("ABCDEF").unwrap_err(), DomainError::on_field(ErrorKey::InvalidInput, "order_id"));
        assert_eq!(parse_order("wallets").unwrap_err().key, ErrorKey::InvalidInput);
    }

    #[test]
    fn amounts_are_plain_positive_numbers() {
        assert_eq!(parse_amount("25.85"), Ok(dec!(25.85)));
        assert_eq!(parse_amount(" 7 "), Ok(dec!(7)));
        for bad in ["", "0", "-3", "1e3", "abc", "12,5", "NaN"] {
            assert_eq!(parse_amount(bad).unwrap_err().key, ErrorKey::InvalidAmount, "{bad}");
        }
    }

    #[test]
    fn a_booking_is_paid_by_its_rider_for_exactly_what_it_asks() {
        let pending = booking(BookingStatus::PaymentPending);
        let rider = UserId::from_u128(1);
        assert!(check_booking_checkout(&pending, rider, dec!(25.850)).is_ok());
        assert_eq!(check_booking_checkout(&pending, rider, dec!(25.84)).unwrap_err().key, ErrorKey::InvalidAmount);
        assert_eq!(check_booking_checkout(&pending, rider, dec!(30)).unwrap_err().key, ErrorKey::InvalidAmount);
        assert_eq!(
            check_booking_checkout(&pending, UserId::from_u128(2), dec!(25.85)).unwrap_err().key,
            ErrorKey::NotFound
        );
        assert!(check_booking_checkout(&booking(BookingStatus::Pending), rider, dec!(25.85)).is_ok());
        for status in [BookingStatus::New, BookingStatus::Accepted, BookingStatus::Paid, BookingStatus::Cancelled] {
            assert_eq!(
                check_booking_checkout(&booking(status), rider, dec!(25.85)).unwrap_err().key,
                ErrorKey::StatusNotAllowed
            );
        }
        let mut prepaid = booking(BookingStatus::Pending);
        prepaid.prepaid = true;
        assert_eq!(check_booking_checkout(&prepaid, rider, dec!(25.85)).unwrap_err().key, ErrorKey::StatusNotAllowed);
    }

    #[test]
    fn a_top_up_is_positive_and_rounded_to_the_platform_decimals() {
        let settings = Settings { decimal: 2, ..Settings::default() };
        assert!(check_top_up(dec!(20), &settings).is_ok());
        assert!(check_top_up(dec!(20.50), &settings).is_ok());
        assert_eq!(check_top_up(dec!(20.505), &settings).unwrap_err().key, ErrorKey::InvalidAmount);
        assert_eq!(check_top_up(dec!(0), &settings).unwrap_err().key, ErrorKey::InvalidAmount);
        assert!(check_top_up(dec!(1000000), &settings).is_ok());
        assert_eq!(check_top_up(dec!(1000000.01), &settings).unwrap_err().key, ErrorKey::InvalidAmount);
    }

    #[test]
    fn the_currency_is_the_platforms() {
        let settings = Settings { code: "USD".into(), ..Settings::default() };
        assert!(check_currency("usd", &settings).is_ok());
        assert_eq!(check_currency("EUR", &settings).unwrap_err().field, Some("currency"));
    }
}
