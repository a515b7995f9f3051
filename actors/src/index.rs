//! The spatial index actor: owns the engine's `DriverIndex`, answers radius
//! queries and an admin's assignment candidates, serves live positions to the
//! dispatch console and plans dispatch waves, handing the offers to the
//! booking actor.

use crate::booking::BookingMsg;
use crate::events::{DispatchEntry, DispatchLog};
use crate::shared::Shared;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use tracing::debug;
use wayfare_engine::console::{DriverState, driver_state};
use wayfare_engine::dispatch::{self, Candidate, DispatchPlan, DriverIndex, IndexedDriver};
use wayfare_engine::{Booking, BookingStatus, DomainResult, LatLng, UserId};

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
}

/// A driver on the console's map.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct DriverPosition {
    pub id: UserId,
    pub carType: String,
    pub lat: f64,
    pub lng: f64,
    pub available: bool,
    pub state: DriverState,
    /// Degrees from north, when the device sent one.
    pub heading: Option<f64>,
}

/// What the console shows of a driver that dispatch does not need.
#[derive(Debug, Clone, Copy, Default)]
struct ConsoleFacts {
    heading: Option<f64>,
    holds_offer: bool,
    trip: Option<BookingStatus>,
}

pub struct IndexState {
    index: DriverIndex,
    console: HashMap<UserId, ConsoleFacts>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct IndexCounts {
    pub online: usize,
    pub available: usize,
}

pub struct SpatialIndexActor {
    pub shared: Arc<Shared>,
}

impl Actor for SpatialIndexActor {
    type Msg = IndexMsg;
    type State = IndexState;
    type Arguments = DriverIndex;

    async fn pre_start(
        &self,
        _myself: ActorRef<IndexMsg>,
        index: DriverIndex,
    ) -> Result<IndexState, ActorProcessingErr> {
        Ok(IndexState { index, console: HashMap::new() })
    }

    async fn handle(
        &self,
        _myself: ActorRef<IndexMsg>,
        message: IndexMsg,
        state: &mut IndexState,
    ) -> Result<(), ActorProcessingErr> {
        let IndexState { index, console } = state;
        match message {
            IndexMsg::Upsert { driver, car_type, position, available } => {
                index.upsert(driver, &car_type, position, available);
            }
            IndexMsg::Move { driver, position, heading } => {
                index.move_to(driver, position);
                if heading.is_some() {
                    console.entry(driver).or_default().heading = heading;
                }
            }
            IndexMsg::Facts { driver, holds_offer, trip } => {
                let facts = console.entry(driver).or_default();
                facts.holds_offer = holds_offer;
                facts.trip = trip;
            }
            IndexMsg::SetAvailable { driver, available } => {
                index.set_available(driver, available);
            }
            IndexMsg::Remove { driver } => {
                index.remove(driver);
                console.remove(&driver);
            }
            IndexMsg::Dispatch { booking, reply_to } => self.dispatch(index, &booking, &reply_to),
            IndexMsg::Nearest { car_type, point, radius_km, limit, reply } => {
                let _ = reply.send(index.nearest(&car_type, point, radius_km, limit, |_| false));
            }
            IndexMsg::Candidates { booking, limit, reply } => {
                let settings = &self.shared.catalog().settings;
                let _ = reply.send(dispatch::manual_candidates(&booking, index, settings, limit));
            }
            IndexMsg::Positions(reply) => {
                let facts = |driver: UserId| console.get(&driver).copied().unwrap_or_default();
                let _ = reply.send(index.iter().map(|driver| position_of(driver, facts(driver.driver))).collect());
            }
            IndexMsg::Counts(reply) => {
                let _ = reply.send(IndexCounts { online: index.len(), available: index.available_len() });
            }
        }
        Ok(())
    }
}

fn position_of(driver: IndexedDriver<'_>, facts: ConsoleFacts) -> DriverPosition {
    DriverPosition {
        id: driver.driver,
        carType: driver.car_type.to_string(),
        lat: driver.position.lat,
        lng: driver.position.lng,
        available: driver.available,
        state: driver_state(driver.available, facts.holds_offer, facts.trip),
        heading: facts.heading,
    }
}

impl SpatialIndexActor {
    fn dispatch(&self, index: &DriverIndex, booking: &Booking, reply_to: &ActorRef<BookingMsg>) {
        let now = self.shared.now();
        let catalog = self.shared.catalog();
        let log = |log| {
            let car_type = booking.carType.clone();
            self.shared.log_dispatch(DispatchEntry { at: now, booking: booking.id, car_type, log })
        };
        match dispatch::plan(booking, index, &catalog.settings, now) {
            DispatchPlan::Offer { drivers, wave, deadline } => {
                // The booking actor logs the offer once committed, with these distances.
                if reply_to.cast(BookingMsg::Offer { candidates: drivers, wave, deadline }).is_err() {
                    debug!(booking_id = %booking.id, "booking actor gone before its offers");
                }
            }
            // The booking stays NEW; the retry timer asks again.
            DispatchPlan::NoCandidates { wave } => log(DispatchLog::NoCandidates { wave }),
            DispatchPlan::Exhausted => log(DispatchLog::Exhausted),
            DispatchPlan::AwaitBatch | DispatchPlan::NotDispatchable => {}
        }
    }
}
