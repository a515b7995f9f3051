//! A booking's refunds (issue #37): the record of one, and how much of a
//! booking may still go back. The rules of a refund request (where it may
//! go, the reason) are `crate::refund`'s; these are what the booking's state
//! machine needs to apply one.

use super::effect::{TX_REF_REFUND, WalletChange, booking_idempotency_key};
use crate::ids::{BookingId, RefundId, UserId};
use crate::model::{Booking, BookingStatus, Millis, WalletEntryType};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Where the money goes back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RefundDestination {
    /// Back to the card, through the gateway that took the payment.
    Gateway,
    /// A credit to the rider's wallet.
    Wallet,
}

impl RefundDestination {
    pub fn as_str(self) -> &'static str {
        match self {
            RefundDestination::Gateway => "gateway",
            RefundDestination::Wallet => "wallet",
        }
    }

    pub fn parse(text: &str) -> Option<RefundDestination> {
        match text {
            "gateway" => Some(RefundDestination::Gateway),
            "wallet" => Some(RefundDestination::Wallet),
            _ => None,
        }
    }
}

/// How a refund ended. A wallet refund is done or refused; a gateway refund
/// the gateway declined is kept as `failed`, and a retry with the same key
/// may still make it `done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RefundStatus {
    Done,
    Failed,
}

impl RefundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RefundStatus::Done => "done",
            RefundStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<RefundStatus> {
        match text {
            "done" => Some(RefundStatus::Done),
            "failed" => Some(RefundStatus::Failed),
            _ => None,
        }
    }
}

/// One refund of a booking's money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Refund {
    pub id: RefundId,
    /// The gateway payment refunded (a refund through the gateway, or to the
    /// wallet of a booking paid by card).
    pub payment: Option<uuid::Uuid>,
    pub booking: BookingId,
    /// The payer, who gets the money.
    pub user: UserId,
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    pub amount: Decimal,
    pub currency: String,
    pub destination: RefundDestination,
    pub reason: String,
    pub status: RefundStatus,
    /// The gateway's id of the refund.
    pub gateway_ref: Option<String>,
    /// The ledger's key too when the money went to the wallet.
    pub idempotency_key: String,
    /// The admin who made it.
    pub made_by: UserId,
    pub created_at: Millis,
}

impl Refund {
    /// The wallet credit of a refund to the wallet (`None` through the
    /// gateway): txRef `Refund:<reference>`, keyed by the refund.
    pub fn ledger_change(&self, booking_reference: &str) -> Option<WalletChange> {
        (self.destination == RefundDestination::Wallet).then(|| WalletChange {
            user: self.user,
            entry_type: WalletEntryType::Credit,
            amount: self.amount,
            tx_ref: format!("{TX_REF_REFUND}:{booking_reference}"),
            idempotency_key: self.idempotency_key.clone(),
            overdraw: false,
        })
    }
}

/// The key of an admin's refund of a booking; `request_key` is the client's
/// `Idempotency-Key` or a fresh unique id. The same as the ledger key the
/// panel's refund wrote before refunds had a table, so a retry across the
/// upgrade still refunds once.
pub fn refund_key(booking: BookingId, request_key: &str) -> String {
    booking_idempotency_key(booking, &format!("admin_refund:{}", request_key.trim()))
}

/// The statuses whose money may be refunded: paid, completed, or cancelled
/// (a cancellation fee, a prepayment).
pub fn is_refundable_status(status: BookingStatus) -> bool {
    matches!(status, BookingStatus::Paid | BookingStatus::Complete | BookingStatus::Cancelled)
}

/// What may still be refunded of a booking: what the rider paid (fare and
/// cancellation fee, less the part of the fee still owed), less refunds so
/// far; a cancelled prepaid booking has had its prepayment back already.
pub fn refundable(booking: &Booking) -> Decimal {
    let prepaid_returned = if booking.status == BookingStatus::Cancelled && booking.prepaid {
        booking.customer_paid
    } else {
        Decimal::ZERO
    };
    let left = booking.customer_paid + booking.cancellationFee
        - booking.cancellationFeeOwed
        - booking.refunded
        - prepaid_returned;
    left.max(Decimal::ZERO)
}
