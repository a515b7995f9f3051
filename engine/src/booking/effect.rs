use crate::ids::{BookingId, UserId};
use crate::model::{Booking, Millis, Place, Timer, TimerKind, TrackingPoint, WalletEntryType};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Wallet ledger references of booking money.
pub const TX_REF_DRIVER_SHARE: &str = "DriverShare";
pub const TX_REF_CASH_COLLECTED: &str = "CashCollected";
pub const TX_REF_WALLET_PAYMENT: &str = "WalletPayment";
pub const TX_REF_CANCELLATION_FEE: &str = "CancellationFee";
pub const TX_REF_REFUND: &str = "Refund";

/// The body key of a notification; the title is always `notification_title`
/// (spec §9 "Language keys used for messages").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKey {
    /// To a driver offered or assigned a booking.
    AcceptBookingRequest,
    BookingAccepted,
    DriverArrived,
    TripStarted,
    TripReached,
    PaymentDue,
    PaymentReceived,
    BookingCancelled,
    /// To the rider: the system gave up finding a driver, free of charge.
    NoDriverAvailable,
    RatingReceived,
    ChatRequested,
    WalletUpdated,
}

impl NoticeKey {
    /// Every notice, in declaration order.
    pub const ALL: [NoticeKey; 12] = [
        NoticeKey::AcceptBookingRequest,
        NoticeKey::BookingAccepted,
        NoticeKey::DriverArrived,
        NoticeKey::TripStarted,
        NoticeKey::TripReached,
        NoticeKey::PaymentDue,
        NoticeKey::PaymentReceived,
        NoticeKey::BookingCancelled,
        NoticeKey::NoDriverAvailable,
        NoticeKey::RatingReceived,
        NoticeKey::ChatRequested,
        NoticeKey::WalletUpdated,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKey::AcceptBookingRequest => "accept_booking_request",
            NoticeKey::BookingAccepted => "booking_accepted",
            NoticeKey::DriverArrived => "driver_arrived",
            NoticeKey::TripStarted => "trip_started",
            NoticeKey::TripReached => "trip_reached",
            NoticeKey::PaymentDue => "payment_due",
            NoticeKey::PaymentReceived => "payment_received",
            NoticeKey::BookingCancelled => "booking_cancelled",
            NoticeKey::NoDriverAvailable => "notice_no_driver_available",
            NoticeKey::RatingReceived => "rating_received",
            NoticeKey::ChatRequested => "chat_requested",
            NoticeKey::WalletUpdated => "wallet_updated",
        }
    }
}

/// The notification title key of every notice.
pub const NOTIFICATION_TITLE_KEY: &str = "notification_title";

/// Why offers were taken back from drivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WithdrawReason {
    /// Another driver accepted first.
    Taken,
    Declined,
    Expired,
    Cancelled,
}

/// One ledger entry to write. The idempotency key is unique per user, so a
/// replayed transition never moves money twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalletChange {
    pub user: UserId,
    pub entry_type: WalletEntryType,
    pub amount: Decimal,
    pub tx_ref: String,
    pub idempotency_key: String,
    /// Whether a debit may take the balance below zero (`settings.negativeBalance`).
    /// Storage checks it in the same statement as the debit, so two debits
    /// that each passed the engine's balance check cannot both overdraw.
    #[serde(default)]
    pub overdraw: bool,
}

impl WalletChange {
    /// The change to the balance: +amount for credits, -amount otherwise.
    pub fn signed_amount(&self) -> Decimal {
        self.entry_type.sign() * self.amount
    }
}

/// What a transition asks the world to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Notify {
        to: UserId,
        key: NoticeKey,
    },
    Wallet(WalletChange),
    Tracking(TrackingPoint),
    /// The driver's busy flag (spec §3 `queue`).
    SetQueue {
        driver: UserId,
        busy: bool,
    },
    OfferMade {
        drivers: Vec<UserId>,
        deadline: Option<Millis>,
    },
    OfferWithdrawn {
        drivers: Vec<UserId>,
        reason: WithdrawReason,
    },
    /// Ask the dispatcher for the next wave of offers.
    RequestDispatch,
    TimerSet {
        kind: TimerKind,
        timer: Timer,
    },
    TimerCleared {
        kind: TimerKind,
    },
    /// Add a rating to the driver's average (one decimal).
    RecordRating {
        driver: UserId,
        customer: UserId,
        rating: u8,
    },
    /// Save the drop to the rider's saved addresses.
    SaveAddress {
        customer: UserId,
        place: Place,
    },
    /// Count the rider as a user of the promo.
    PromoUsed {
        promo_name: String,
        customer: UserId,
    },
    /// Store a refund of the booking's money (issue #37). A refund to the
    /// wallet comes with its ledger credit (a `Wallet` effect of the same
    /// idempotency key), whose entry takes the refund's reason.
    Refund(Box<super::refunds::Refund>),
}

/// The result of a command: the booking as it now is and what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub booking: Booking,
    pub effects: Vec<Effect>,
}

impl Transition {
    pub fn wallet_changes(&self) -> impl Iterator<Item = &WalletChange> {
        self.effects.iter().filter_map(|effect| match effect {
            Effect::Wallet(change) => Some(change),
            _ => None,
        })
    }

    pub fn notified(&self) -> impl Iterator<Item = (UserId, NoticeKey)> + '_ {
        self.effects.iter().filter_map(|effect| match effect {
            Effect::Notify { to, key } => Some((*to, *key)),
            _ => None,
        })
    }
}

/// A ledger key for a booking's money movement of one purpose.
pub fn booking_idempotency_key(booking: BookingId, purpose: &str) -> String {
    format!("booking:{booking}:{purpose}")
}
