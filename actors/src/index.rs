//! The spatial index actor: owns the engine's `DriverIndex`, answers radius
//! queries and an admin's assignment candidates, serves live positions to the
//! dispatch console, plans dispatch waves and runs the `batch` policy's
//! windows (`crate::batch`), handing the offers to the booking actors.

use crate::batch::{self, BatchRoads, BatchWindow};
use crate::events::{DispatchEntry, DispatchLog};
use crate::protocol::{BookingMsg, DriverPosition, IndexCounts, IndexMsg, PickupTimes, Wave};
use crate::shared::Shared;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tracing::{debug, warn};
use wayfare_engine::console::driver_state;
use wayfare_engine::dispatch::{self, BatchOffer, BatchProblem, DispatchPlan, DriverIndex, IndexedDriver};
use wayfare_engine::{Booking, BookingId, BookingStatus, DispatchPolicy, Millis, UserId, fix};

/// What the console shows of a driver that dispatch does not need.
#[derive(Debug, Clone, Copy, Default)]
struct ConsoleFacts {
    heading: Option<f64>,
    holds_offer: bool,
    trip: Option<BookingStatus>,
    /// When the driver's last usable fix arrived (the runtime's clock).
    seen: Millis,
}

pub struct IndexState {
    index: DriverIndex,
    console: HashMap<UserId, ConsoleFacts>,
    batch: BatchWindow,
    /// The car types' names as the console's positions share them.
    car_types: Vec<Arc<str>>,
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
        Ok(IndexState { index, console: HashMap::new(), batch: BatchWindow::default(), car_types: Vec::new() })
    }

    async fn handle(
        &self,
        myself: ActorRef<IndexMsg>,
        message: IndexMsg,
        state: &mut IndexState,
    ) -> Result<(), ActorProcessingErr> {
        let IndexState { index, console, batch, car_types } = state;
        match message {
            IndexMsg::Upsert { driver, car_type, position, available } => {
                index.upsert(driver, &car_type, position, available);
                console.entry(driver).or_default().seen = self.shared.now();
            }
            IndexMsg::Move { driver, position, heading } => {
                index.move_to(driver, position);
                let facts = console.entry(driver).or_default();
                facts.seen = self.shared.now();
                if heading.is_some() {
                    facts.heading = heading;
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
            IndexMsg::Dispatch { booking, reply_to } => self.dispatch(&myself, index, batch, booking, reply_to),
            IndexMsg::FirstWave { booking, reply } => {
                let plan = dispatch::plan(&booking, index, &self.shared.catalog().settings, self.shared.now());
                let wave = match plan {
                    DispatchPlan::Offer { drivers, wave, deadline } => {
                        Some(Wave { candidates: drivers, wave, deadline })
                    }
                    _ => None,
                };
                let _ = reply.send(wave);
            }
            IndexMsg::LeftNew { booking } => {
                batch.waiting.remove(&booking);
            }
            IndexMsg::BatchWindow { window } => self.close_window(&myself, index, batch, window),
            IndexMsg::BatchTimed { window, problem, times } => {
                self.solve_window(&myself, index, batch, window, problem, times)
            }
            IndexMsg::BatchSolved { window, offers } => self.send_batch_offers(&myself, index, batch, window, offers),
            IndexMsg::Nearest { car_type, point, radius_km, limit, reply } => {
                let _ = reply.send(index.nearest(&car_type, point, radius_km, limit, |_| false));
            }
            IndexMsg::Candidates { booking, limit, reply } => {
                let settings = &self.shared.catalog().settings;
                let _ = reply.send(dispatch::manual_candidates(&booking, index, settings, limit));
            }
            IndexMsg::Positions(reply) => {
                let facts = |driver: UserId| console.get(&driver).copied().unwrap_or_default();
                let now = self.shared.now();
                let mut positions = Vec::with_capacity(index.len());
                for driver in index.iter() {
                    let car_type = shared_name(car_types, driver.car_type);
                    positions.push(position_of(driver, car_type, facts(driver.driver), now));
                }
                let _ = reply.send(positions);
            }
            IndexMsg::Counts(reply) => {
                let _ = reply.send(IndexCounts { online: index.len(), available: index.available_len() });
            }
        }
        Ok(())
    }
}

/// The shared name of a car type (a handful of them: a scan beats a hash).
fn shared_name(names: &mut Vec<Arc<str>>, name: &str) -> Arc<str> {
    if let Some(shared) = names.iter().find(|shared| &***shared == name) {
        return shared.clone();
    }
    let shared: Arc<str> = Arc::from(name);
    names.push(shared.clone());
    shared
}

fn position_of(driver: IndexedDriver<'_>, car_type: Arc<str>, facts: ConsoleFacts, now: Millis) -> DriverPosition {
    DriverPosition {
        stale: fix::is_stale(facts.seen, now),
        id: driver.driver,
        carType: car_type,
        lat: driver.position.lat,
        lng: driver.position.lng,
        available: driver.available,
        state: driver_state(driver.available, facts.holds_offer, facts.trip),
        heading: facts.heading,
    }
}

impl SpatialIndexActor {
    fn dispatch(
        &self,
        myself: &ActorRef<IndexMsg>,
        index: &DriverIndex,
        batch: &mut BatchWindow,
        booking: Arc<Booking>,
        reply_to: ActorRef<BookingMsg>,
    ) {
        let now = self.shared.now();
        let catalog = self.shared.catalog();
        let log = |log| self.log(&booking, log);
        match dispatch::plan(&booking, index, &catalog.settings, now) {
            DispatchPlan::Offer { drivers, wave, deadline } => {
                // The booking actor logs the offer once committed, with these distances.
                if reply_to.cast(BookingMsg::Offer { candidates: drivers, wave, deadline }).is_err() {
                    debug!(booking_id = %booking.id, "booking actor gone before its offers");
                }
            }
            // The booking stays NEW; the retry timer asks again.
            DispatchPlan::NoCandidates { wave } => log(DispatchLog::NoCandidates { wave }),
            DispatchPlan::Exhausted => log(DispatchLog::Exhausted),
            DispatchPlan::AwaitBatch => {
                batch.wait(booking, reply_to);
                if !batch.open {
                    self.arm_window(myself, batch);
                }
            }
            DispatchPlan::NotDispatchable => {
                batch.waiting.remove(&booking.id);
            }
        }
    }

    fn log(&self, booking: &Booking, log: DispatchLog) {
        let entry =
            DispatchEntry { at: self.shared.now(), booking: booking.id, car_type: booking.carType.clone(), log };
        self.shared.log_dispatch(entry);
    }

    /// A wake-up for the next window, `dispatchBatchSeconds` from now.
    fn arm_window(&self, myself: &ActorRef<IndexMsg>, batch: &mut BatchWindow) {
        let seconds = self.shared.catalog().settings.dispatchBatchSeconds.max(1);
        batch.window += 1;
        batch.open = true;
        let window = batch.window;
        let wake = self.shared.clock.sleep_until(self.shared.now() + i64::from(seconds) * 1000);
        let index_actor = myself.clone();
        tokio::spawn(async move {
            wake.await;
            let _ = index_actor.cast(IndexMsg::BatchWindow { window });
        });
    }

    /// The window is done: the next one is armed while bookings still wait.
    fn finish_window(&self, myself: &ActorRef<IndexMsg>, batch: &mut BatchWindow) {
        batch.open = false;
        if !batch.waiting.is_empty() {
            self.arm_window(myself, batch);
        }
    }

    /// The window closes: its problem is built here, its pickups timed by a
    /// task (the maps are IO).
    fn close_window(&self, myself: &ActorRef<IndexMsg>, index: &DriverIndex, batch: &mut BatchWindow, window: u64) {
        if !batch.is_current(window) {
            return;
        }
        let catalog = self.shared.catalog();
        let settings = &catalog.settings;
        if !(settings.autoDispatch && settings.dispatchPolicy == DispatchPolicy::Batch) {
            // The policy changed (or auto-dispatch went off) while bookings
            // waited: each is planned afresh.
            batch.open = false;
            for (_, waiting) in std::mem::take(&mut batch.waiting) {
                self.dispatch(myself, index, batch, waiting.booking, waiting.reply_to);
            }
            return;
        }
        let bookings: Vec<&Booking> = batch.waiting.values().map(|waiting| waiting.booking.as_ref()).collect();
        let problem = dispatch::batch_problem(&bookings, index, settings);
        let weighed: HashSet<BookingId> = problem.bookings.iter().map(|(booking, ..)| *booking).collect();
        batch.waiting.retain(|id, waiting| {
            if weighed.contains(id) {
                return true;
            }
            // Holding offers, it waits for answers, not for a window.
            if !waiting.booking.requestedDrivers.0.is_empty() {
                return false;
            }
            // Nobody to weigh; it waits for drivers to come into range.
            if !waiting.logged_no_candidates {
                waiting.logged_no_candidates = true;
                let wave = waiting.booking.dispatch.wave.saturating_add(1);
                self.log(&waiting.booking, DispatchLog::NoCandidates { wave });
            }
            true
        });
        if problem.is_empty() {
            self.finish_window(myself, batch);
            return;
        }
        let maps = BatchRoads::for_window(self.shared.options.batch_roads.as_ref(), settings);
        // Timing never takes longer than a window.
        let budget = Duration::from_secs(settings.dispatchBatchSeconds.max(1).into());
        let index_actor = myself.clone();
        tokio::spawn(async move {
            // Its own task, so that a panic in the maps loses the road times, not the window.
            let timing = tokio::spawn({
                let problem = problem.clone();
                async move { batch::pickup_times(&problem, maps, budget).await }
            });
            let times = match timing.await {
                Ok(times) => times,
                Err(error) => {
                    warn!(%error, "batch pickup timing failed, straight lines used");
                    batch::straight_line_times(&problem)
                }
            };
            let _ = index_actor.cast(IndexMsg::BatchTimed { window, problem, times });
        });
    }

    /// The pickups are timed: drivers who went offline or busy meanwhile and
    /// bookings that stopped waiting are left out, then the matching is
    /// solved on a blocking thread (a large window is milliseconds of CPU).
    fn solve_window(
        &self,
        myself: &ActorRef<IndexMsg>,
        index: &DriverIndex,
        batch: &mut BatchWindow,
        window: u64,
        problem: BatchProblem,
        mut times: PickupTimes,
    ) {
        if !batch.is_current(window) {
            return;
        }
        for (((booking, ..), candidates), row) in problem.bookings.iter().zip(&problem.candidates).zip(&mut times) {
            let waiting = batch.waiting.contains_key(booking);
            for (candidate, time) in candidates.iter().zip(row.iter_mut()) {
                if !waiting || !is_available(index, candidate.driver) {
                    *time = None;
                }
            }
        }
        let catalog = self.shared.catalog();
        let now = self.shared.now();
        let index_actor = myself.clone();
        tokio::spawn(async move {
            let solving = tokio::task::spawn_blocking(move || problem.solve(&times, &catalog.settings, now));
            let offers = solving.await.unwrap_or_else(|error| {
                warn!(%error, "batch matching failed, the bookings wait for the next window");
                Vec::new()
            });
            let _ = index_actor.cast(IndexMsg::BatchSolved { window, offers });
        });
    }

    /// Each offer goes to its booking's actor, as a wave's would; the booking
    /// stops waiting. A driver who went unavailable while the matching was
    /// solved is not offered: that booking waits for the next window.
    fn send_batch_offers(
        &self,
        myself: &ActorRef<IndexMsg>,
        index: &DriverIndex,
        batch: &mut BatchWindow,
        window: u64,
        offers: Vec<BatchOffer>,
    ) {
        if !batch.is_current(window) {
            return;
        }
        for offer in offers {
            if !is_available(index, offer.driver.driver) {
                continue;
            }
            let Some(waiting) = batch.waiting.remove(&offer.booking) else { continue };
            let message =
                BookingMsg::Offer { candidates: vec![offer.driver], wave: offer.wave, deadline: Some(offer.deadline) };
            if waiting.reply_to.cast(message).is_err() {
                debug!(booking_id = %offer.booking, "booking actor gone before its batch offer");
            }
        }
        self.finish_window(myself, batch);
    }
}

fn is_available(index: &DriverIndex, driver: UserId) -> bool {
    index.get(driver).is_some_and(|indexed| indexed.available)
}
