//! One actor per online driver: position, heading, busy flag and the offers
//! it holds. Positions go to the spatial index at once and to storage behind,
//! in batches; during a trip a tracking point is stored every few seconds or
//! metres.

use crate::events::Event;
use crate::protocol::{DriverMsg, DriverView, IndexMsg, LocationUpdate, Origin};
use crate::shared::Shared;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::sync::Arc;
use tracing::warn;
use wayfare_engine::{BookingStatus, LatLng, Millis, TrackingPoint, User, fix, geo};

pub struct DriverState {
    view: DriverView,
    /// The trip's status as the console shows it (REACHED too, which is no
    /// longer tracked), and what the index was last told of it.
    console_trip: Option<BookingStatus>,
    told_index: (bool, Option<BookingStatus>),
    last_track: Option<(Millis, LatLng)>,
    last_moved_event: Option<Millis>,
}

/// Its peer, handed over at spawn: the index it keeps up to date.
pub struct DriverActor {
    pub shared: Arc<Shared>,
    pub index: ActorRef<IndexMsg>,
}

impl Actor for DriverActor {
    type Msg = DriverMsg;
    type State = DriverState;
    type Arguments = User;

    async fn pre_start(&self, myself: ActorRef<DriverMsg>, user: User) -> Result<DriverState, ActorProcessingErr> {
        self.shared.drivers.insert(user.id, myself);
        let view = DriverView {
            id: user.id,
            car_type: user.carType.clone().unwrap_or_default(),
            position: user.location.filter(LatLng::is_valid),
            heading: None,
            busy: user.queue,
            offers: Vec::new(),
            trip: None,
            updates: 0,
        };
        let state = DriverState {
            view,
            console_trip: None,
            told_index: (false, None),
            last_track: None,
            last_moved_event: None,
        };
        self.index_upsert(&state.view, user.approved);
        Ok(state)
    }

    async fn post_stop(&self, myself: ActorRef<DriverMsg>, state: &mut DriverState) -> Result<(), ActorProcessingErr> {
        self.shared.drivers.remove_if(&state.view.id, myself.get_id());
        Ok(())
    }

    async fn handle(
        &self,
        _myself: ActorRef<DriverMsg>,
        message: DriverMsg,
        state: &mut DriverState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            DriverMsg::Location(update, origin) => self.location(state, update, origin).await,
            DriverMsg::SetBusy(busy) => {
                state.view.busy = busy;
                if !busy {
                    state.view.trip = None;
                    state.console_trip = None;
                }
                let _ = self.index.cast(IndexMsg::SetAvailable { driver: state.view.id, available: !busy });
            }
            DriverMsg::OfferReceived(booking) => {
                if !state.view.offers.contains(&booking) {
                    state.view.offers.push(booking);
                }
            }
            DriverMsg::OfferWithdrawn(booking) => state.view.offers.retain(|offer| *offer != booking),
            DriverMsg::Trip { booking, status } => {
                state.view.offers.retain(|offer| *offer != booking);
                state.view.trip = status.is_tracked().then_some((booking, status));
                if state.view.trip.is_none() {
                    state.last_track = None;
                }
                let on_trip = status.is_tracked() || status == BookingStatus::Reached;
                state.console_trip = on_trip.then_some(status);
            }
            DriverMsg::Snapshot(reply) => {
                let _ = reply.send(state.view.clone());
            }
        }
        self.tell_index_facts(state);
        Ok(())
    }
}

impl DriverActor {
    /// The console's colour of this driver, when it changed.
    fn tell_index_facts(&self, state: &mut DriverState) {
        let facts = (!state.view.offers.is_empty(), state.console_trip);
        if facts == state.told_index {
            return;
        }
        state.told_index = facts;
        let (holds_offer, trip) = facts;
        let _ = self.index.cast(IndexMsg::Facts { driver: state.view.id, holds_offer, trip });
    }

    fn index_upsert(&self, view: &DriverView, approved: bool) {
        if let Some(position) = view.position {
            let available = approved && !view.busy;
            let _ = self.index.cast(IndexMsg::Upsert {
                driver: view.id,
                car_type: view.car_type.clone(),
                position,
                available,
            });
        }
    }

    async fn location(&self, state: &mut DriverState, update: LocationUpdate, origin: Origin) {
        let point = update.point();
        // A vague fix would offer the driver the wrong pickups and draw a
        // zigzag on the rider's map: it is not used at all.
        if !point.is_valid() || !fix::is_usable(update.accuracy) {
            return;
        }
        let shared = &self.shared;
        let now = shared.now();
        let first = state.view.position.is_none();
        state.view.position = Some(point);
        state.view.heading = update.heading.or(state.view.heading);
        state.view.updates += 1;
        let index = &self.index;
        if first {
            let car_type = state.view.car_type.clone();
            let _ = index.cast(IndexMsg::Upsert {
                driver: state.view.id,
                car_type,
                position: point,
                available: !state.view.busy,
            });
        }
        if !first || update.heading.is_some() {
            let _ = index.cast(IndexMsg::Move { driver: state.view.id, position: point, heading: update.heading });
        }
        // The node that got the position stores it and tells the sockets.
        if origin == Origin::Replica {
            return;
        }
        shared.positions.put(state.view.id, point);
        if state.last_moved_event.is_none_or(|last| now - last >= shared.options.moved_event_every_ms) {
            state.last_moved_event = Some(now);
            shared.bus.publish(Event::DriverMoved {
                driver: state.view.id,
                position: point,
                heading: state.view.heading,
                available: !state.view.busy,
                at: now,
            });
        }
        // A fix queued while the network was down keeps its own time, so the
        // track has no hole where the driver was offline.
        let tracked_at = fix::track_time(update.at, now, state.last_track.map(|(at, _)| at));
        if let (Some((booking, status)), Some(at)) = (state.view.trip, tracked_at) {
            let due = match state.last_track {
                None => true,
                Some((last_at, last)) => {
                    at - last_at >= shared.options.tracking_every_ms
                        || geo::distance_km(last, point) >= shared.options.tracking_every_km
                }
            };
            if due {
                state.last_track = Some((at, point));
                let tracked = TrackingPoint { at, status, lat: point.lat, lng: point.lng };
                match shared.storage.append_tracking(booking, &tracked).await {
                    Ok(()) => shared.bus.publish(Event::Tracking { booking, point: tracked }),
                    Err(error) => warn!(booking_id = %booking, %error, "tracking point not stored"),
                }
            }
        }
    }
}
