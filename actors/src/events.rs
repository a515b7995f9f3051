//! Typed events the runtime publishes; the http edge forwards them to sockets.

use serde::Serialize;
use std::sync::Arc;
use tokio::sync::broadcast;
use wayfare_engine::booking::{NoticeKey, WithdrawReason};
use wayfare_engine::{Booking, BookingId, ChatMessage, LatLng, Millis, TrackingPoint, UserId};

/// What happened in dispatch, for the live console's event log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DispatchLog {
    Offered { wave: u32, drivers: Vec<UserId>, deadline: Option<Millis> },
    Withdrawn { drivers: Vec<UserId>, reason: WithdrawReason },
    Accepted { driver: UserId },
    NoCandidates { wave: u32 },
    Exhausted,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DispatchEntry {
    pub at: Millis,
    pub booking: BookingId,
    #[serde(flatten)]
    pub log: DispatchLog,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The booking after each change.
    BookingChanged(Arc<Booking>),
    OfferMade {
        booking: Arc<Booking>,
        drivers: Vec<UserId>,
        deadline: Option<Millis>,
    },
    OfferWithdrawn {
        booking: BookingId,
        drivers: Vec<UserId>,
        reason: WithdrawReason,
    },
    /// Throttled per driver; the console batches these further.
    DriverMoved {
        driver: UserId,
        position: LatLng,
        heading: Option<f64>,
        available: bool,
        at: Millis,
    },
    Tracking {
        booking: BookingId,
        point: TrackingPoint,
    },
    Chat {
        booking: BookingId,
        message: ChatMessage,
    },
    WalletChanged {
        user: UserId,
        balance: rust_decimal::Decimal,
    },
    Notification {
        to: UserId,
        key: NoticeKey,
        booking: Option<BookingId>,
    },
    Dispatch(DispatchEntry),
}

/// A broadcast channel of events. Slow subscribers lag and skip, they never
/// slow the actors down.
#[derive(Debug, Clone)]
pub struct EventBus {
    sender: broadcast::Sender<Arc<Event>>,
}

impl EventBus {
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(16));
        EventBus { sender }
    }

    pub fn publish(&self, event: Event) {
        // No subscriber is not an error.
        let _ = self.sender.send(Arc::new(event));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }
}
