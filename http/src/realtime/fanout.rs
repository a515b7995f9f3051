//! One task between the runtime's event bus and the sockets: each event goes
//! to the rooms that may see it, presented for each viewer; driver positions
//! are batched into the `drivers` feed for the maps.
//!
//! The task owns its caches — who the parties of a booking are, where each
//! driver was last seen, which fleet each driver belongs to — so no event
//! costs a storage query. What it does not know yet it looks up in a spawned
//! task, once, and is told the answer through its own mailbox (`Note`); the
//! loop itself only ever waits on its inputs.

use super::console::{Scope, Tracker, hexes_room};
use super::{events, rooms};
use crate::notify::InAppNotice;
use crate::present;
use crate::state::AppState;
use serde::Serialize;
use socketioxide::SocketIo;
use socketioxide::extract::SocketRef;
use socketioxide::socket::Sid;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tracing::{debug, warn};
use wayfare_actors::{DispatchEntry, DispatchLog, DriverPosition, Event};
use wayfare_engine::console::hexagons;
use wayfare_engine::permissions::Principal;
use wayfare_engine::{Booking, BookingId, BookingStatus, LatLng, Millis, Role, UserId, geo};

/// What the sessions and the fan-out's own helpers tell the fan-out.
#[derive(Debug)]
pub(super) enum Note {
    /// A driver's socket connected: their fleet, fresh from the session.
    DriverFleet {
        driver: UserId,
        fleet: Option<UserId>,
    },
    /// An admin (`None`) or a fleet admin connected: send the feed at the
    /// next tick even if nothing moved (an empty list included), so their map
    /// fills at once.
    FeedWanted {
        fleet: Option<UserId>,
    },
    /// Every online driver, from the spatial index.
    Positions(DriversNow),
    /// Fleets looked up for drivers the cache did not know; those `asked`
    /// but not `found` (storage failed) are asked again at a later tick.
    Fleets {
        asked: Vec<UserId>,
        found: Vec<(UserId, Option<UserId>)>,
    },
    /// The parties of a booking the cache did not know.
    Parties {
        booking: BookingId,
        parties: Parties,
    },
    /// A console connected or chose a resolution: it is sent the figures
    /// and hexes at once, and the hexes of that resolution from then on.
    ConsoleJoined {
        socket: SocketRef,
        scope: Scope,
        resolution: u8,
    },
    ConsoleLeft {
        socket: Sid,
    },
    /// The active bookings at start (restored before the fan-out listened),
    /// so the console counts the ones still waiting.
    Restored(Vec<Booking>),
}

/// The two people a booking's trip events go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Parties {
    customer: UserId,
    driver: Option<UserId>,
}

impl Parties {
    fn of(booking: &Booking) -> Self {
        Parties { customer: booking.customer, driver: booking.driver }
    }

    fn rooms(&self) -> Vec<String> {
        std::iter::once(self.customer).chain(self.driver).map(rooms::user).collect()
    }
}

pub(super) struct Fanout {
    io: SocketIo,
    state: AppState,
    /// For helpers to report back.
    notes: UnboundedSender<Note>,
    parties: HashMap<BookingId, Parties>,
    /// Each online driver's last known position, for an offer's distance.
    positions: HashMap<UserId, LatLng>,
    fleets: HashMap<UserId, Option<UserId>>,
    fleets_asked: HashSet<UserId>,
    /// The fleets that may see each booking in dispatch: those whose drivers
    /// it was offered to, then the accepting driver's alone.
    booking_fleets: HashMap<BookingId, BTreeSet<UserId>>,
    feed: Feed,
    /// Every online driver as last read from the index (shared with the
    /// feed's last send, which is usually the same map).
    drivers_now: Arc<Vec<DriverPosition>>,
    /// What the `console` and `hexes` pushes are computed from.
    tracker: Tracker,
    /// Each console socket's scope and resolution.
    consoles: HashMap<Sid, (Scope, u8)>,
}

/// What the `drivers` feed last sent, so an unchanged map is not sent again.
#[derive(Default)]
struct Feed {
    snapshot_in_flight: bool,
    dispatch: Option<Arc<Vec<DriverPosition>>>,
    fleets: HashMap<UserId, Arc<Vec<DriverPosition>>>,
    /// Fleets whose admin just connected.
    fleets_wanted: HashSet<UserId>,
}

#[derive(Serialize)]
struct Withdrawn {
    booking: BookingId,
    reason: wayfare_engine::booking::WithdrawReason,
}

#[derive(Serialize)]
struct Tracked<'a> {
    booking: BookingId,
    point: &'a wayfare_engine::TrackingPoint,
}

#[derive(Serialize)]
struct Chatted<'a> {
    booking: BookingId,
    message: &'a wayfare_engine::ChatMessage,
}

impl Fanout {
    pub(super) fn new(io: SocketIo, state: AppState, notes: UnboundedSender<Note>) -> Self {
        Fanout {
            io,
            state,
            notes,
            parties: HashMap::new(),
            positions: HashMap::new(),
            fleets: HashMap::new(),
            fleets_asked: HashSet::new(),
            booking_fleets: HashMap::new(),
            feed: Feed::default(),
            drivers_now: Arc::new(Vec::new()),
            tracker: Tracker::default(),
            consoles: HashMap::new(),
        }
    }

    /// Runs until the event bus closes. A slow fan-out skips the events it
    /// lagged behind on (logged); it never stops for them.
    pub(super) async fn run(
        mut self,
        mut events: broadcast::Receiver<Arc<Event>>,
        mut notices: broadcast::Receiver<Arc<InAppNotice>>,
        remote: Option<crate::cluster::Remote>,
        mut notes: UnboundedReceiver<Note>,
    ) {
        // One node: nothing ever comes from the others.
        let clustered = remote.is_some();
        let (mut remote_events, mut remote_notices) = match remote {
            Some(remote) => (remote.events, remote.notices),
            None => (broadcast::channel(1).1, broadcast::channel(1).1),
        };
        let mut remote_open = clustered;
        let period = Duration::from_millis(self.state.config.realtime.drivers_feed_ms.max(1));
        let mut feed_tick = tokio::time::interval(period);
        feed_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let realtime = &self.state.config.realtime;
        let mut console_tick = tokio::time::interval(Duration::from_millis(realtime.console_ms.max(1)));
        console_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut hexes_tick = tokio::time::interval(Duration::from_millis(realtime.hexes_ms.max(1)));
        hexes_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut notices_open = true;
        self.ask_restored();
        loop {
            tokio::select! {
                received = events.recv() => match received {
                    Ok(event) => self.event(&event).await,
                    Err(RecvError::Lagged(skipped)) => warn!(skipped, "socket fan-out lagged behind the event bus"),
                    Err(RecvError::Closed) => break,
                },
                received = notices.recv(), if notices_open => match received {
                    Ok(notice) => self.emit(notice.to.iter().copied().map(rooms::user).collect(), events::NOTIFICATION, &notice.payload).await,
                    Err(RecvError::Lagged(skipped)) => warn!(skipped, "socket fan-out lagged behind the notifications"),
                    Err(RecvError::Closed) => notices_open = false,
                },
                received = remote_events.recv(), if remote_open => match received {
                    Ok(event) => self.event(&event).await,
                    Err(RecvError::Lagged(skipped)) => warn!(skipped, "socket fan-out lagged behind the other nodes' events"),
                    Err(RecvError::Closed) => remote_open = false,
                },
                received = remote_notices.recv(), if remote_open => match received {
                    Ok(notice) => self.emit(notice.to.iter().copied().map(rooms::user).collect(), events::NOTIFICATION, &notice.payload).await,
                    Err(RecvError::Lagged(skipped)) => warn!(skipped, "socket fan-out lagged behind the other nodes' notifications"),
                    Err(RecvError::Closed) => remote_open = false,
                },
                Some(note) = notes.recv() => self.note(note).await,
                _ = feed_tick.tick() => self.ask_positions(),
                _ = console_tick.tick() => self.console_tick().await,
                _ = hexes_tick.tick() => self.hexes_tick(),
            }
        }
        debug!("socket fan-out stopped");
    }

    async fn emit<T: Serialize + ?Sized>(&self, to: Vec<String>, event: &'static str, data: &T) {
        if to.is_empty() {
            return;
        }
        if let Err(error) = events::emit_to(&self.io, to, event, data).await {
            debug!(%error, event, "socket emit failed");
        }
    }

    /// Sends from a task of its own, serialized on a blocking thread: the
    /// whole map is a megabyte of JSON at 10,000 drivers, and neither this
    /// loop (which sends the offers) nor an async thread may wait for it.
    fn emit_detached<T: Serialize + Send + Sync + 'static>(&self, to: Vec<String>, event: &'static str, data: Arc<T>) {
        let io = self.io.clone();
        tokio::spawn(async move {
            let payload = match tokio::task::spawn_blocking(move || serde_json::value::to_raw_value(&*data)).await {
                Ok(Ok(payload)) => payload,
                Ok(Err(error)) => return debug!(%error, event, "socket payload not serialized"),
                Err(error) => return debug!(%error, event, "socket payload serializer failed"),
            };
            if let Err(error) = events::emit_to(&io, to, event, &payload).await {
                debug!(%error, event, "socket emit failed");
            }
        });
    }

    async fn event(&mut self, event: &Event) {
        match event {
            Event::BookingChanged(booking) => {
                self.tracker.booking(booking);
                self.booking_changed(booking).await
            }
            Event::OfferMade { booking, drivers, deadline } => {
                self.parties.insert(booking.id, Parties::of(booking));
                let catalog = self.state.runtime.catalog();
                let pickup = booking.pickup.point();
                let mut presenter = present::Presenter::new(booking, &catalog.settings);
                for driver in drivers {
                    let presented = presenter.for_viewer(&Principal::new(*driver, Role::Driver));
                    let distance_km = self.positions.get(driver).map(|position| geo::distance_km(*position, pickup));
                    let offer = present::offer(presented, *deadline, distance_km);
                    self.emit(vec![rooms::user(*driver)], events::OFFER, &offer).await;
                }
                self.offered_to_fleets(booking, drivers).await;
            }
            Event::OfferWithdrawn { booking, drivers, reason } => {
                let to = drivers.iter().copied().map(rooms::user).collect();
                self.emit(to, events::OFFER_WITHDRAWN, &Withdrawn { booking: *booking, reason: *reason }).await;
            }
            Event::DriverMoved { driver, position, .. } => {
                self.positions.insert(*driver, *position);
            }
            Event::Tracking { booking, point } => {
                let payload = serde_json::to_value(Tracked { booking: *booking, point }).unwrap_or_default();
                self.send_to_parties(*booking, events::TRACKING, payload).await;
            }
            Event::Chat { booking, message } => {
                let payload = serde_json::to_value(Chatted { booking: *booking, message }).unwrap_or_default();
                self.send_to_parties(*booking, events::CHAT, payload).await;
            }
            Event::WalletChanged { user, balance } => {
                self.emit(vec![rooms::user(*user)], events::WALLET, &present::wallet(*balance)).await;
            }
            // Put in the receiver's language by `crate::notify::booking_notices`,
            // which hands them back through the notifier (the branch above).
            Event::Notification { .. } => {}
            Event::Dispatch(entry) => {
                let fleets = &self.fleets;
                self.tracker.entry(entry, |driver| fleets.get(&driver).copied().flatten());
                self.dispatch_entry(entry).await
            }
            Event::Sos(alert) => {
                // Admins are all in the dispatch room; of the fleet admins,
                // only the one whose driver is on the booking.
                let to =
                    std::iter::once(rooms::DISPATCH.to_string()).chain(alert.fleetadmin.map(rooms::fleet)).collect();
                self.emit(to, events::SOS, &present::sos(alert)).await;
            }
        }
    }

    /// The fleet a driver belongs to, as far as the cache knows.
    fn fleet_of(&self, driver: UserId) -> Option<UserId> {
        self.fleets.get(&driver).copied().flatten()
    }

    /// A booking now offered to some fleets' drivers: those fleets see it
    /// from now on (cut to their drivers). Drivers whose fleet is not known
    /// yet are looked up; until then their fleet sees nothing of it.
    async fn offered_to_fleets(&mut self, booking: &Booking, drivers: &[UserId]) {
        let unknown: Vec<UserId> = drivers.iter().copied().filter(|driver| !self.fleets.contains_key(driver)).collect();
        self.ask_fleets(unknown);
        let fleets: BTreeSet<UserId> = drivers.iter().filter_map(|driver| self.fleet_of(*driver)).collect();
        let known = self.booking_fleets.entry(booking.id).or_default();
        let new: Vec<UserId> = fleets.into_iter().filter(|fleet| known.insert(*fleet)).collect();
        let catalog = self.state.runtime.catalog();
        for fleet in new {
            let presented = present::booking_for_fleet(booking, fleet, &catalog.settings, |driver| {
                self.fleet_of(driver) == Some(fleet)
            });
            self.emit(vec![rooms::fleet(fleet)], events::BOOKING, &presented).await;
        }
    }

    /// The whole entry to the admins' console; to each fleet concerned, the
    /// entry cut to its drivers (`DispatchEntry::for_fleet`).
    async fn dispatch_entry(&mut self, entry: &DispatchEntry) {
        self.emit(vec![rooms::DISPATCH.to_string()], events::DISPATCH, entry).await;
        let booking_fleets = self.booking_fleets.get(&entry.booking).cloned().unwrap_or_default();
        let named: BTreeSet<UserId> = entry.log.drivers().iter().filter_map(|driver| self.fleet_of(*driver)).collect();
        for fleet in booking_fleets.union(&named) {
            let concerns = booking_fleets.contains(fleet);
            if let Some(cut) = entry.for_fleet(|driver| self.fleet_of(driver) == Some(*fleet), concerns) {
                self.emit(vec![rooms::fleet(*fleet)], events::DISPATCH, &cut).await;
            }
        }
        match &entry.log {
            // From here on the booking is the accepting driver's fleet's only.
            DispatchLog::Accepted { driver } => match self.fleet_of(*driver) {
                Some(fleet) => {
                    self.booking_fleets.insert(entry.booking, BTreeSet::from([fleet]));
                }
                None => {
                    self.booking_fleets.remove(&entry.booking);
                }
            },
            DispatchLog::Cancelled => {
                self.booking_fleets.remove(&entry.booking);
            }
            _ => {}
        }
    }

    /// Each viewer of the booking gets it as they may see it.
    async fn booking_changed(&mut self, booking: &Booking) {
        if booking.status.is_active() {
            self.parties.insert(booking.id, Parties::of(booking));
        } else {
            self.parties.remove(&booking.id);
            // A cancelled booking's fleets still get its `cancelled` entry.
            if booking.status != BookingStatus::Cancelled {
                self.booking_fleets.remove(&booking.id);
            }
        }
        let catalog = self.state.runtime.catalog();
        let mut presenter = present::Presenter::new(booking, &catalog.settings);
        for viewer in present::booking_viewers(booking) {
            match viewer.role {
                Role::Rider | Role::Driver => {
                    let presented = presenter.for_viewer(&viewer);
                    self.emit(vec![rooms::user(viewer.id)], events::BOOKING, presented).await
                }
                Role::Fleetadmin => {
                    let presented = self.for_fleet(booking, viewer.id);
                    self.emit(vec![rooms::fleet(viewer.id)], events::BOOKING, &presented).await
                }
                Role::Admin => {
                    let presented = presenter.for_viewer(&viewer);
                    self.emit(vec![rooms::DISPATCH.to_string()], events::BOOKING, presented).await
                }
            }
        }
        // Fleets whose drivers hold its offers, while it has no driver.
        if booking.driver.is_none() {
            let fleets = self.booking_fleets.get(&booking.id).cloned().unwrap_or_default();
            for fleet in fleets.into_iter().filter(|fleet| booking.fleetadmin != Some(*fleet)) {
                let presented = self.for_fleet(booking, fleet);
                self.emit(vec![rooms::fleet(fleet)], events::BOOKING, &presented).await;
            }
        }
    }

    fn for_fleet(&self, booking: &Booking, fleet: UserId) -> Box<serde_json::value::RawValue> {
        let catalog = self.state.runtime.catalog();
        present::booking_for_fleet(booking, fleet, &catalog.settings, |driver| self.fleet_of(driver) == Some(fleet))
    }

    /// A trip event for the booking's rider and driver. A booking the cache
    /// does not know (restored at start, or finished) is looked up once, off
    /// the loop.
    async fn send_to_parties(&mut self, booking: BookingId, event: &'static str, payload: serde_json::Value) {
        if let Some(parties) = self.parties.get(&booking) {
            self.emit(parties.rooms(), event, &payload).await;
            return;
        }
        let runtime = self.state.runtime.clone();
        let io = self.io.clone();
        let notes = self.notes.clone();
        tokio::spawn(async move {
            let found = match runtime.booking(booking).await {
                Ok(found) => found,
                Err(error) => {
                    warn!(booking_id = %booking, %error, event, "socket event for an unknown booking dropped");
                    return;
                }
            };
            let parties = Parties::of(&found);
            if let Err(error) = events::emit_to(&io, parties.rooms(), event, &payload).await {
                debug!(%error, event, "socket emit failed");
            }
            if found.status.is_active() {
                let _ = notes.send(Note::Parties { booking, parties });
            }
        });
    }

    async fn note(&mut self, note: Note) {
        match note {
            Note::DriverFleet { driver, fleet } => {
                self.fleets.insert(driver, fleet);
            }
            Note::FeedWanted { fleet: None } => self.feed.dispatch = None,
            Note::FeedWanted { fleet: Some(fleet) } => {
                self.feed.fleets_wanted.insert(fleet);
            }
            Note::Positions(now) => {
                self.feed.snapshot_in_flight = false;
                self.send_feed(now);
            }
            Note::Fleets { asked, found } => {
                for driver in asked {
                    self.fleets_asked.remove(&driver);
                }
                self.fleets.extend(found);
            }
            Note::Parties { booking, parties } => {
                self.parties.entry(booking).or_insert(parties);
            }
            Note::ConsoleJoined { socket, scope, resolution } => {
                self.consoles.insert(socket.id, (scope, resolution));
                let payload = self.console_payload(scope, self.state.runtime.now());
                if let Err(error) = socket.emit(events::CONSOLE, &payload) {
                    debug!(%error, "console not sent");
                }
                self.send_hexes(scope, resolution, HexesTo::Socket(socket));
            }
            Note::ConsoleLeft { socket } => {
                self.consoles.remove(&socket);
            }
            Note::Restored(bookings) => {
                for booking in &bookings {
                    self.tracker.restored(booking);
                }
            }
        }
    }

    /// Asks the spatial index for every online driver, unless still waiting
    /// for the last answer. The map is sorted and indexed off this loop
    /// (10,000 drivers take milliseconds, and this loop sends the offers).
    fn ask_positions(&mut self) {
        if self.feed.snapshot_in_flight {
            return;
        }
        self.feed.snapshot_in_flight = true;
        let runtime = self.state.runtime.clone();
        let notes = self.notes.clone();
        tokio::spawn(async move {
            let positions = match runtime.driver_positions().await {
                Ok(positions) => positions,
                Err(error) => {
                    debug!(%error, "driver positions not read");
                    Vec::new()
                }
            };
            let now = tokio::task::spawn_blocking(move || DriversNow::of(positions)).await.unwrap_or_default();
            let _ = notes.send(Note::Positions(now));
        });
    }

    /// The whole map to the admins' consoles, each fleet's drivers to its
    /// fleet admin's, each only when it changed since the last time and only
    /// while a console of that scope is open on this node.
    fn send_feed(&mut self, now: DriversNow) {
        self.positions = now.at;
        let positions = now.positions;
        self.drivers_now = positions.clone();
        let watched = self.watched_scopes();
        let watched_fleets: BTreeSet<UserId> = watched
            .iter()
            .filter_map(|scope| match scope {
                Scope::Fleet(fleet) => Some(*fleet),
                Scope::All => None,
            })
            .collect();
        if !watched.contains(&Scope::All) {
            // The next admin to open a console is sent the map at once.
            self.feed.dispatch = None;
        } else if self.feed.dispatch.as_ref().is_none_or(|last| **last != *positions) {
            self.emit_detached(vec![rooms::DISPATCH.to_string()], events::DRIVERS, positions.clone());
            self.feed.dispatch = Some(positions.clone());
        }
        let wanted = std::mem::take(&mut self.feed.fleets_wanted);
        self.feed.fleets.retain(|fleet, _| watched_fleets.contains(fleet));
        if watched_fleets.is_empty() {
            return;
        }
        let (mut by_fleet, unknown) = group_by_fleet(&positions, &self.fleets, &watched_fleets);
        self.ask_fleets(unknown);
        for fleet in watched_fleets {
            let current = by_fleet.remove(&fleet).unwrap_or_default();
            let unchanged = self.feed.fleets.get(&fleet).map_or(current.is_empty(), |last| **last == current);
            if unchanged && !wanted.contains(&fleet) {
                continue;
            }
            let current = Arc::new(current);
            self.emit_detached(vec![rooms::fleet(fleet)], events::DRIVERS, current.clone());
            if current.is_empty() {
                self.feed.fleets.remove(&fleet);
            } else {
                self.feed.fleets.insert(fleet, current);
            }
        }
    }

    /// The scopes of the consoles open on this node.
    fn watched_scopes(&self) -> BTreeSet<Scope> {
        self.consoles.values().map(|(scope, _)| *scope).collect()
    }

    /// The online drivers a scope's console shows.
    fn scope_drivers(&self, scope: Scope) -> Vec<&DriverPosition> {
        match scope {
            Scope::All => self.drivers_now.iter().collect(),
            Scope::Fleet(fleet) => {
                self.drivers_now.iter().filter(|driver| self.fleet_of(driver.id) == Some(fleet)).collect()
            }
        }
    }

    /// `{figures, history}` for a scope, recording the minute's sample.
    fn console_payload(&mut self, scope: Scope, now: Millis) -> serde_json::Value {
        let fleets = &self.fleets;
        let fleet_of = |driver: UserId| fleets.get(&driver).copied().flatten();
        let drivers: Vec<&DriverPosition> = match scope {
            Scope::All => self.drivers_now.iter().collect(),
            Scope::Fleet(fleet) => {
                self.drivers_now.iter().filter(|driver| fleet_of(driver.id) == Some(fleet)).collect()
            }
        };
        let figures = self.tracker.figures(scope, now, &drivers, fleet_of);
        let history = self.tracker.record(scope, figures);
        serde_json::json!({ "figures": figures, "history": history })
    }

    /// The figures to every scope watched, computed once per scope. The
    /// admins' are computed (and their history kept) even when no one
    /// watches, so a console opened later has its last hour.
    async fn console_tick(&mut self) {
        let now = self.state.runtime.now();
        self.tracker.prune(now);
        let watched = self.watched_scopes();
        let scopes: BTreeSet<Scope> = watched.iter().copied().chain([Scope::All]).collect();
        for scope in scopes {
            let payload = self.console_payload(scope, now);
            if watched.contains(&scope) {
                self.emit(vec![scope_room(scope)], events::CONSOLE, &payload).await;
            }
        }
    }

    /// The hexes of every (scope, resolution) in use, each computed once.
    fn hexes_tick(&self) {
        let wanted: BTreeSet<(Scope, u8)> = self.consoles.values().copied().collect();
        for (scope, resolution) in wanted {
            self.send_hexes(scope, resolution, HexesTo::Room(hexes_room(scope, resolution)));
        }
    }

    /// Computes a scope's cells off the async threads (thousands of drivers
    /// take milliseconds) and sends them.
    fn send_hexes(&self, scope: Scope, resolution: u8, to: HexesTo) {
        let now = self.state.runtime.now();
        let available: Vec<LatLng> = self
            .scope_drivers(scope)
            .into_iter()
            .filter(|driver| driver.available)
            .map(|driver| LatLng::new(driver.lat, driver.lng))
            .collect();
        let demand = self.tracker.demand(scope, now);
        let io = self.io.clone();
        tokio::spawn(async move {
            let computed = tokio::task::spawn_blocking(move || hexagons(resolution, available, demand)).await;
            let cells = match computed {
                Ok(Ok(cells)) => cells,
                Ok(Err(error)) => return debug!(%error, resolution, "hexes not computed"),
                Err(error) => return warn!(%error, "hexes computation failed"),
            };
            let payload = serde_json::json!({ "resolution": resolution, "cells": cells });
            let sent = match to {
                HexesTo::Room(room) => events::emit_to(&io, vec![room], events::HEXES, &payload).await,
                HexesTo::Socket(socket) => socket.emit(events::HEXES, &payload).map_err(|error| error.to_string()),
            };
            if let Err(error) = sent {
                debug!(%error, "hexes not sent");
            }
        });
    }

    fn ask_restored(&self) {
        let storage = self.state.storage.clone();
        let notes = self.notes.clone();
        tokio::spawn(async move {
            match storage.active_bookings().await {
                Ok(bookings) => {
                    let _ = notes.send(Note::Restored(bookings));
                }
                Err(error) => warn!(%error, "active bookings not read for the console"),
            }
        });
    }

    /// Looks up, once, the fleet of drivers the cache does not know.
    fn ask_fleets(&mut self, unknown: Vec<UserId>) {
        let unknown: Vec<UserId> = unknown.into_iter().filter(|driver| self.fleets_asked.insert(*driver)).collect();
        if unknown.is_empty() {
            return;
        }
        let storage = self.state.storage.clone();
        let notes = self.notes.clone();
        tokio::spawn(async move {
            let mut found = Vec::with_capacity(unknown.len());
            for driver in unknown.iter().copied() {
                match storage.user(driver).await {
                    Ok(user) => found.push((driver, user.fleetadmin)),
                    Err(wayfare_storage::StorageError::NotFound) => found.push((driver, None)),
                    // Asked again at a later tick.
                    Err(error) => warn!(%error, user = %driver, "driver's fleet not read"),
                }
            }
            let _ = notes.send(Note::Fleets { asked: unknown, found });
        });
    }
}

/// Where a scope's `console` push goes.
fn scope_room(scope: Scope) -> String {
    match scope {
        Scope::All => rooms::DISPATCH.to_string(),
        Scope::Fleet(fleet) => rooms::fleet(fleet),
    }
}

enum HexesTo {
    Room(String),
    Socket(SocketRef),
}

/// Every online driver as the index last told, sorted by id, and where each
/// one is (for an offer's distance).
#[derive(Debug, Default)]
pub(super) struct DriversNow {
    positions: Arc<Vec<DriverPosition>>,
    at: HashMap<UserId, LatLng>,
}

impl DriversNow {
    fn of(mut positions: Vec<DriverPosition>) -> Self {
        positions.sort_by_key(|position| position.id);
        let at = positions.iter().map(|position| (position.id, LatLng::new(position.lat, position.lng))).collect();
        DriversNow { positions: Arc::new(positions), at }
    }
}

/// The drivers of each fleet `watched`, and the drivers whose fleet is not
/// known yet.
fn group_by_fleet(
    positions: &[DriverPosition],
    fleets: &HashMap<UserId, Option<UserId>>,
    watched: &BTreeSet<UserId>,
) -> (BTreeMap<UserId, Vec<DriverPosition>>, Vec<UserId>) {
    let mut by_fleet: BTreeMap<UserId, Vec<DriverPosition>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for position in positions {
        match fleets.get(&position.id) {
            Some(Some(fleet)) if watched.contains(fleet) => by_fleet.entry(*fleet).or_default().push(position.clone()),
            Some(_) => {}
            None => unknown.push(position.id),
        }
    }
    (by_fleet, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(number: u128) -> DriverPosition {
        DriverPosition {
            id: UserId::from_u128(number),
            carType: "Economy".into(),
            lat: 39.29,
            lng: -76.61,
            available: true,
            state: wayfare_actors::DriverState::Available,
            heading: None,
            stale: false,
        }
    }

    #[test]
    fn fleets_see_only_their_drivers_and_unknown_drivers_are_looked_up() {
        let fleet = UserId::from_u128(100);
        let unwatched = UserId::from_u128(200);
        let fleets = HashMap::from([
            (UserId::from_u128(1), Some(fleet)),
            (UserId::from_u128(2), None),
            (UserId::from_u128(4), Some(unwatched)),
        ]);
        let positions = [position(1), position(2), position(3), position(4)];
        let (by_fleet, unknown) = group_by_fleet(&positions, &fleets, &BTreeSet::from([fleet]));
        // A fleet nobody watches here is not grouped at all.
        assert_eq!(by_fleet.len(), 1);
        assert_eq!(by_fleet[&fleet], vec![position(1)]);
        assert_eq!(unknown, vec![UserId::from_u128(3)]);
    }

    #[test]
    fn the_drivers_map_is_sorted_and_indexed_for_offer_distances() {
        let now = DriversNow::of(vec![position(3), position(1), position(2)]);
        let ids: Vec<UserId> = now.positions.iter().map(|position| position.id).collect();
        assert_eq!(ids, vec![UserId::from_u128(1), UserId::from_u128(2), UserId::from_u128(3)]);
        assert_eq!(now.at.len(), 3);
        assert_eq!(now.at[&UserId::from_u128(2)], LatLng::new(39.29, -76.61));
    }

    #[test]
    fn trip_events_go_to_the_rider_and_the_assigned_driver() {
        let parties = Parties { customer: UserId::from_u128(1), driver: Some(UserId::from_u128(2)) };
        assert_eq!(parties.rooms(), vec![rooms::user(UserId::from_u128(1)), rooms::user(UserId::from_u128(2))]);
        let unassigned = Parties { customer: UserId::from_u128(1), driver: None };
        assert_eq!(unassigned.rooms(), vec![rooms::user(UserId::from_u128(1))]);
    }
}
