//! The runtime's message protocol: every actor's message enum and the small
//! values those messages carry. Actors import this, never each other, so an
//! actor's file reads as its state and its `handle`, and this file as what
//! the actors say to one another.
//!
//! - `BookingMsg` — to one booking's actor (commands, offers, timers);
//! - `DriverMsg` — to one driver's actor (positions, busy, offers, trip),
//!   and `DriverFact`, a fact about a driver as told to its actor here and,
//!   in a cluster, to the other nodes' replicas;
//! - `IndexMsg` — to the spatial index (positions, dispatch, batch windows);
//! - `SchedulerMsg` — to the timer queue;
//! - `SupervisorMsg` — to the supervisor (spawn a booking or driver actor).

use crate::error::ActorResult;
use ractor::{ActorRef, RpcReplyPort};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use wayfare_engine::booking::{By, Command, Effect};
use wayfare_engine::console::DriverState;
use wayfare_engine::dispatch::{BatchOffer, BatchProblem, Candidate, PickupTimes};
use wayfare_engine::reposition::SuggestedArea;
use wayfare_engine::{Booking, BookingId, BookingStatus, DomainResult, LatLng, Millis, Timer, TimerKind, User, UserId};

// ---- booking actor ------------------------------------------------------------

pub type BookingReply = RpcReplyPort<ActorResult<Arc<Booking>>>;

// A command is the big variant; boxing it would allocate for every message
// to save bytes in a mailbox that rarely holds more than one.
#[allow(clippy::large_enum_variant)]
pub enum BookingMsg {
    Command {
        by: By,
        command: Command,
        reply: Option<BookingReply>,
    },
    /// The dispatcher's next wave, with each candidate's distance for the log.
    Offer {
        candidates: Vec<Candidate>,
        wave: u32,
        deadline: Option<Millis>,
    },
    Timer {
        kind: TimerKind,
        generation: u64,
    },
    Snapshot(RpcReplyPort<Arc<Booking>>),
    /// Another node committed this version (cluster mode): when it is newer
    /// than ours, that node serves the booking now, and this actor stops.
    Superseded(Arc<Booking>),
    #[cfg(feature = "fault-injection")]
    Crash,
}

/// What a booking's actor starts from.
pub struct BookingArgs {
    pub booking: Booking,
    /// Effects of the transition that made the booking (creation), to carry
    /// out once the actor runs.
    pub effects: Vec<Effect>,
    /// Distances of the first wave, when the creation carried it.
    pub offer_distances: HashMap<UserId, f64>,
}

impl BookingArgs {
    /// A booking read back from storage: nothing left to carry out.
    pub fn restored(booking: Booking) -> Self {
        BookingArgs { booking, effects: Vec::new(), offer_distances: HashMap::new() }
    }
}

// ---- driver actor -------------------------------------------------------------

/// The socket's `location` event (DESIGN.md API conventions).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LocationUpdate {
    pub lat: f64,
    pub lng: f64,
    #[serde(default)]
    pub heading: Option<f64>,
    #[serde(default)]
    pub speed: Option<f64>,
    #[serde(default)]
    pub accuracy: Option<f64>,
    /// When the device took the fix; the server's clock is used when absent.
    #[serde(default)]
    pub at: Option<Millis>,
}

impl LocationUpdate {
    pub fn at(point: LatLng) -> Self {
        LocationUpdate { lat: point.lat, lng: point.lng, heading: None, speed: None, accuracy: None, at: None }
    }

    pub fn point(&self) -> LatLng {
        LatLng::new(self.lat, self.lng)
    }
}

/// Where a driver's message was born: here (store it, publish its events)
/// or on another node of the cluster (apply it to this node's replica).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Here,
    Replica,
}

pub enum DriverMsg {
    Location(LocationUpdate, Origin),
    SetBusy(bool),
    OfferReceived(BookingId),
    OfferWithdrawn(BookingId),
    /// The driver's booking changed status.
    Trip {
        booking: BookingId,
        status: BookingStatus,
    },
    Snapshot(RpcReplyPort<DriverView>),
}

/// A driver's live state, for tests and the console.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriverView {
    pub id: UserId,
    pub car_type: String,
    pub position: Option<LatLng>,
    pub heading: Option<f64>,
    pub busy: bool,
    pub offers: Vec<BookingId>,
    pub trip: Option<(BookingId, BookingStatus)>,
    pub updates: u64,
}

/// A fact about a driver, born on one node: told to the driver's actor
/// there and, in a cluster, carried to the other nodes (`crate::cluster`),
/// which apply it to their replica only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum DriverFact {
    Online { driver: UserId },
    Offline { driver: UserId },
    Location { driver: UserId, update: LocationUpdate },
    Busy { driver: UserId, busy: bool },
    Offered { driver: UserId, booking: BookingId },
    Withdrawn { driver: UserId, booking: BookingId },
    Trip { driver: UserId, booking: BookingId, status: BookingStatus },
}

impl DriverFact {
    pub fn driver(&self) -> UserId {
        match self {
            DriverFact::Online { driver }
            | DriverFact::Offline { driver }
            | DriverFact::Location { driver, .. }
            | DriverFact::Busy { driver, .. }
            | DriverFact::Offered { driver, .. }
            | DriverFact::Withdrawn { driver, .. }
            | DriverFact::Trip { driver, .. } => *driver,
        }
    }

    /// The driver actor's message for this fact; `None` for going on- or
    /// offline, which start or stop the actor itself.
    pub(crate) fn message(&self, origin: Origin) -> Option<DriverMsg> {
        Some(match *self {
            DriverFact::Online { .. } | DriverFact::Offline { .. } => return None,
            DriverFact::Location { update, .. } => DriverMsg::Location(update, origin),
            DriverFact::Busy { busy, .. } => DriverMsg::SetBusy(busy),
            DriverFact::Offered { booking, .. } => DriverMsg::OfferReceived(booking),
            DriverFact::Withdrawn { booking, .. } => DriverMsg::OfferWithdrawn(booking),
            DriverFact::Trip { booking, status, .. } => DriverMsg::Trip { booking, status },
        })
    }
}

// ---- spatial index ------------------------------------------------------------

pub enum IndexMsg {
    Upsert {
        driver: UserId,
        car_type: String,
        position: LatLng,
        available: bool,
    },
    Move {
        driver: UserId,
        position: LatLng,
        heading: Option<f64>,
    },
    /// What the console's map shows besides the position: whether the
    /// driver holds an offer and their trip's status.
    Facts {
        driver: UserId,
        holds_offer: bool,
        trip: Option<BookingStatus>,
    },
    SetAvailable {
        driver: UserId,
        available: bool,
    },
    Remove {
        driver: UserId,
    },
    /// Plan the next offers for a booking and send them to its actor.
    Dispatch {
        booking: Arc<Booking>,
        reply_to: ActorRef<BookingMsg>,
    },
    /// A new booking's first wave, planned before it is stored so that both
    /// commit together; `None` when the plan is anything but offers (the
    /// booking's actor then asks with `Dispatch` as usual).
    FirstWave {
        booking: Arc<Booking>,
        reply: RpcReplyPort<Option<Wave>>,
    },
    /// Pickups of earlier bookings, oldest first, read from storage when the
    /// node starts: demand learned before a restart is not lost.
    SeedDemand {
        pickups: Vec<(LatLng, Millis)>,
    },
    /// The booking is no longer NEW: it stops waiting for a batch window.
    LeftNew {
        booking: BookingId,
    },
    /// The batch window `window` closes (a wake-up on the runtime's clock).
    BatchWindow {
        window: u64,
    },
    /// The window's pickups, timed off the actor.
    BatchTimed {
        window: u64,
        problem: BatchProblem,
        times: PickupTimes,
    },
    /// The window's matching, solved off the actor.
    BatchSolved {
        window: u64,
        offers: Vec<BatchOffer>,
    },
    Nearest {
        car_type: String,
        point: LatLng,
        radius_km: f64,
        limit: usize,
        reply: RpcReplyPort<Vec<Candidate>>,
    },
    /// The drivers an admin may assign a booking to, nearest first
    /// (`dispatch::manual_candidates`).
    Candidates {
        booking: Arc<Booking>,
        limit: usize,
        reply: RpcReplyPort<DomainResult<Vec<Candidate>>>,
    },
    Positions(RpcReplyPort<Vec<DriverPosition>>),
    Counts(RpcReplyPort<IndexCounts>),
    /// Where a free driver could wait for riders (`engine::reposition`);
    /// `None` for a driver who is not free or has nowhere better.
    SuggestArea {
        driver: UserId,
        reply: RpcReplyPort<Option<SuggestedArea>>,
    },
}

/// Offers planned for a booking: nearest first, with their distances.
#[derive(Debug, Clone)]
pub struct Wave {
    pub candidates: Vec<Candidate>,
    pub wave: u32,
    pub deadline: Option<Millis>,
}

/// A driver on the console's map.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct DriverPosition {
    pub id: UserId,
    /// Shared by every driver of the type: the whole map is read once a second.
    pub carType: Arc<str>,
    pub lat: f64,
    pub lng: f64,
    pub available: bool,
    pub state: DriverState,
    /// Degrees from north, when the device sent one.
    pub heading: Option<f64>,
    /// No usable fix for `fix::STALE_AFTER_MS`: the map greys the driver out
    /// rather than show an old place as current.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct IndexCounts {
    pub online: usize,
    pub available: usize,
}

// ---- scheduler ----------------------------------------------------------------

pub enum SchedulerMsg {
    Schedule {
        booking: BookingId,
        kind: TimerKind,
        timer: Timer,
    },
    Cancel {
        booking: BookingId,
        kind: TimerKind,
    },
    Tick,
    /// Timers waiting, for tests and metrics.
    Pending(RpcReplyPort<usize>),
}

// ---- supervisor ---------------------------------------------------------------

// Spawn requests carry the booking or user they start from; they are rare.
#[allow(clippy::large_enum_variant)]
pub enum SupervisorMsg {
    SpawnBooking { args: BookingArgs, reply: RpcReplyPort<Result<ActorRef<BookingMsg>, String>> },
    SpawnDriver { user: User, reply: RpcReplyPort<Result<ActorRef<DriverMsg>, String>> },
    Counts(RpcReplyPort<SupervisorCounts>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SupervisorCounts {
    pub booking_restarts: u64,
    pub driver_restarts: u64,
}
