//! Refunds of a booking's money (issue #37): what may go back to the rider,
//! and where. A booking paid by card through a gateway may be refunded
//! through that gateway or to the rider's wallet; one paid from the wallet
//! or in cash goes back to the wallet only. Never more than the rider paid
//! less what was refunded already, and through a gateway never more than
//! that payment less its earlier gateway refunds.
//!
//! A refund that passed is a [`Refund`] record; the booking's state machine
//! (`Command::Refund`) adds it to the booking's `refunded` and, to the
//! wallet, writes one ledger credit under the refund's own idempotency key,
//! all in the booking's one transaction. Calling the gateway is the http
//! crate's business; this module only decides.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::{Booking, PaymentMode, Settings};
use crate::money;
use crate::wallet::check_within_limit;
use rust_decimal::Decimal;
use serde::Serialize;

/// The longest reason an admin may give (a refund, a debit, an adjustment).
pub const MAX_REASON_LEN: usize = 500;

/// The ledger reference of a refund to the wallet: `Refund:<reference>`.
pub use crate::booking::TX_REF_REFUND;

pub use crate::booking::refunds::*;

/// The card payment of a booking, as far as a refund through its gateway
/// cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardPayment {
    pub payment: uuid::Uuid,
    pub amount: Decimal,
    /// Refunded through the gateway so far (done refunds only).
    pub refunded_at_gateway: Decimal,
}

/// Whether a booking's money may go back through its gateway: it was paid
/// by card, and a gateway payment of it is known (a card payment marked
/// paid outside the app has none).
pub fn gateway_possible(booking: &Booking, card: Option<&CardPayment>) -> bool {
    booking.payment_mode == Some(PaymentMode::Card) && card.is_some()
}

/// A reason an admin gives: trimmed, not blank (`select_proper` on
/// `reason`), at most [`MAX_REASON_LEN`] characters (`invalid_input`).
pub fn validate_reason(reason: &str) -> DomainResult<String> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(DomainError::on_field(ErrorKey::SelectProper, "reason"));
    }
    if reason.chars().count() > MAX_REASON_LEN {
        return Err(DomainError::on_field(ErrorKey::InvalidInput, "reason"));
    }
    Ok(reason.to_string())
}

/// What an admin asked to refund.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequest {
    pub amount: Decimal,
    pub destination: RefundDestination,
    pub reason: String,
}

/// A refund that passed the rules: its amount rounded to `settings.decimal`
/// and its reason trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRefund {
    pub amount: Decimal,
    pub destination: RefundDestination,
    pub reason: String,
    /// The gateway payment it refunds from, when the booking was paid by card.
    pub payment: Option<uuid::Uuid>,
}

/// Checks a refund before any money moves: a finished or paid booking
/// (`status_not_allowed`), a reason, an amount above 0 once rounded and at
/// most what is left (`invalid_amount`), and through the gateway only a card
/// payment made through one (`invalid_input` on `destination`), at most what
/// that payment has left.
pub fn plan_refund(
    booking: &Booking,
    card: Option<&CardPayment>,
    request: &RefundRequest,
    settings: &Settings,
) -> DomainResult<PlannedRefund> {
    if !is_refundable_status(booking.status) {
        return Err(ErrorKey::StatusNotAllowed.into());
    }
    let reason = validate_reason(&request.reason)?;
    let amount = money::round_to(request.amount, settings);
    if amount <= Decimal::ZERO || amount > refundable(booking) {
        return Err(DomainError::on_field(ErrorKey::InvalidAmount, "amount"));
    }
    check_within_limit(amount)?;
    if request.destination == RefundDestination::Gateway {
        let Some(card) = card.filter(|card| gateway_possible(booking, Some(card))) else {
            return Err(DomainError::on_field(ErrorKey::InvalidInput, "destination"));
        };
        if amount > card.amount - card.refunded_at_gateway {
            return Err(DomainError::on_field(ErrorKey::InvalidAmount, "amount"));
        }
    }
    let payment = card.filter(|card| gateway_possible(booking, Some(card))).map(|card| card.payment);
    Ok(PlannedRefund { amount, destination: request.destination, reason, payment })
}

/// The money a booking's refunds page shows: what was paid, refunded, and
/// what is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RefundTotals {
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    pub paid: Decimal,
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    pub refunded: Decimal,
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    pub refundable: Decimal,
}

/// [`RefundTotals`] of a booking as it now is.
pub fn totals(booking: &Booking) -> RefundTotals {
    let refundable = refundable(booking);
    RefundTotals { paid: refundable + booking.refunded, refunded: booking.refunded, refundable }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{BookingId, RefundId, UserId};
    use crate::model::BookingStatus;
    use crate::rules::test_support::failure;
    use rust_decimal_macros::dec;

    fn booking(status: BookingStatus, mode: PaymentMode, paid: Decimal) -> Booking {
        let json = serde_json::json!({
            "id": uuid::Uuid::from_u128(50), "reference": "ABCDEF", "appcat": "taxi", "carType": "Economy",
            "customer": UserId::from_u128(1),
            "pickup": {"lat": 39.28, "lng": -76.6, "add": "A"}, "drop": {"lat": 39.29, "lng": -76.59, "add": "B"},
            "pickupAddress": "A", "dropAddress": "B", "estimate": paid, "estimateDistance": 2.0, "estimateTime": 300,
            "status": status, "bookLater": false, "tripdate": 0, "bookingDate": 0, "otp": null,
            "trip_cost": paid, "convenience_fees": 0, "driver_share": paid, "payableAmount": paid,
            "customer_paid": paid, "payment_mode": mode,
        });
        serde_json::from_value(json).expect("a booking")
    }

    fn request(amount: Decimal, destination: RefundDestination) -> RefundRequest {
        RefundRequest { amount, destination, reason: " Long detour ".into() }
    }

    fn card(amount: Decimal, refunded: Decimal) -> CardPayment {
        CardPayment { payment: uuid::Uuid::from_u128(9), amount, refunded_at_gateway: refunded }
    }

    #[test]
    fn a_card_paid_booking_goes_back_to_its_gateway_or_the_wallet() {
        let settings = Settings::default();
        let paid = booking(BookingStatus::Complete, PaymentMode::Card, dec!(20));
        let card = card(dec!(20), dec!(0));
        let planned = plan_refund(&paid, Some(&card), &request(dec!(7.005), RefundDestination::Gateway), &settings);
        let planned = planned.unwrap();
        assert_eq!(planned.amount, money::round_to(dec!(7.005), &settings));
        assert_eq!(planned.reason, "Long detour");
        assert_eq!(planned.payment, Some(card.payment));
        let to_wallet = plan_refund(&paid, Some(&card), &request(dec!(20), RefundDestination::Wallet), &settings);
        assert_eq!(to_wallet.unwrap().destination, RefundDestination::Wallet);
    }

    #[test]
    fn wallet_or_cash_paid_money_goes_back_to_the_wallet_only() {
        let settings = Settings::default();
        for mode in [PaymentMode::Wallet, PaymentMode::Cash] {
            let paid = booking(BookingStatus::Paid, mode, dec!(12));
            assert_eq!(
                failure(plan_refund(&paid, None, &request(dec!(5), RefundDestination::Gateway), &settings)),
                (ErrorKey::InvalidInput, Some("destination"))
            );
            assert!(plan_refund(&paid, None, &request(dec!(12), RefundDestination::Wallet), &settings).is_ok());
        }
        // A card payment marked paid outside the app has no gateway payment.
        let manual = booking(BookingStatus::Paid, PaymentMode::Card, dec!(12));
        assert_eq!(
            failure(plan_refund(&manual, None, &request(dec!(5), RefundDestination::Gateway), &settings)),
            (ErrorKey::InvalidInput, Some("destination"))
        );
    }

    #[test]
    fn never_more_than_paid_less_refunded_and_never_nothing() {
        let settings = Settings::default();
        let mut paid = booking(BookingStatus::Complete, PaymentMode::Card, dec!(20));
        paid.refunded = dec!(15);
        assert_eq!(refundable(&paid), dec!(5));
        assert_eq!(totals(&paid), RefundTotals { paid: dec!(20), refunded: dec!(15), refundable: dec!(5) });
        let card = card(dec!(20), dec!(15));
        for amount in [dec!(5.01), dec!(0), dec!(-1), dec!(0.0001)] {
            assert_eq!(
                failure(plan_refund(&paid, Some(&card), &request(amount, RefundDestination::Wallet), &settings)),
                (ErrorKey::InvalidAmount, Some("amount")),
                "{amount}"
            );
        }
        assert!(plan_refund(&paid, Some(&card), &request(dec!(5), RefundDestination::Wallet), &settings).is_ok());
    }

    #[test]
    fn through_the_gateway_never_more_than_that_payment_has_left() {
        // Part of the fare from the wallet, the rest by card: the card gets back its part only.
        let settings = Settings::default();
        let paid = booking(BookingStatus::Complete, PaymentMode::Card, dec!(20));
        let card = card(dec!(15), dec!(10));
        assert_eq!(
            failure(plan_refund(&paid, Some(&card), &request(dec!(6), RefundDestination::Gateway), &settings)),
            (ErrorKey::InvalidAmount, Some("amount"))
        );
        assert!(plan_refund(&paid, Some(&card), &request(dec!(5), RefundDestination::Gateway), &settings).is_ok());
    }

    #[test]
    fn a_refund_needs_a_reason_and_a_paid_or_finished_booking() {
        let settings = Settings::default();
        let paid = booking(BookingStatus::Paid, PaymentMode::Wallet, dec!(10));
        let blank = RefundRequest { reason: "  ".into(), ..request(dec!(1), RefundDestination::Wallet) };
        assert_eq!(failure(plan_refund(&paid, None, &blank, &settings)), (ErrorKey::SelectProper, Some("reason")));
        let long = RefundRequest { reason: "x".repeat(501), ..request(dec!(1), RefundDestination::Wallet) };
        assert_eq!(failure(plan_refund(&paid, None, &long, &settings)), (ErrorKey::InvalidInput, Some("reason")));
        let running = booking(BookingStatus::Started, PaymentMode::Wallet, dec!(10));
        assert_eq!(
            plan_refund(&running, None, &request(dec!(1), RefundDestination::Wallet), &settings).unwrap_err().key,
            ErrorKey::StatusNotAllowed
        );
    }

    #[test]
    fn a_wallet_refund_is_one_credit_keyed_by_the_refund() {
        let refund = Refund {
            id: RefundId::from_u128(1),
            payment: None,
            booking: BookingId::from_u128(50),
            user: UserId::from_u128(1),
            amount: dec!(4),
            currency: "USD".into(),
            destination: RefundDestination::Wallet,
            reason: "Long detour".into(),
            status: RefundStatus::Done,
            gateway_ref: None,
            idempotency_key: refund_key(BookingId::from_u128(50), "k1"),
            made_by: UserId::from_u128(2),
            created_at: 0,
        };
        let change = refund.ledger_change("ABCDEF").unwrap();
        assert_eq!((change.user, change.signed_amount()), (UserId::from_u128(1), dec!(4)));
        assert_eq!(change.tx_ref, "Refund:ABCDEF");
        assert_eq!(change.idempotency_key, refund.idempotency_key);
        assert!(refund.idempotency_key.starts_with("booking:") && refund.idempotency_key.ends_with(":admin_refund:k1"));
        let through_gateway = Refund { destination: RefundDestination::Gateway, ..refund };
        assert_eq!(through_gateway.ledger_change("ABCDEF"), None);
    }
}
