//! Typed events the runtime publishes; the http edge forwards them to sockets.

use std::sync::Arc;
use tokio::sync::broadcast;
use wayfare_engine::booking::{NoticeKey, WithdrawReason};
use wayfare_engine::sos::SosAlert;
use wayfare_engine::{Booking, BookingId, ChatMessage, LatLng, Millis, TrackingPoint, UserId};

/// The dispatch log lives in the engine (storage keeps it too).
pub use wayfare_engine::dispatch::{DispatchEntry, DispatchLog};

/// Serde: in a cluster every node's sockets hear every node's events.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
        #[serde(with = "rust_decimal::serde::str")]
        balance: rust_decimal::Decimal,
    },
    Notification {
        to: UserId,
        key: NoticeKey,
        booking: Option<BookingId>,
    },
    Dispatch(DispatchEntry),
    /// An SOS alert raised, taken or resolved: for the admins and the
    /// fleet admin of the booking's driver.
    Sos(Arc<SosAlert>),
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
