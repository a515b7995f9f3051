//! The spatial index actor: owns the engine's `DriverIndex`, answers radius
//! queries and an admin's assignment candidates, serves live positions to the
//! dispatch console, plans dispatch waves and runs the `batch` policy's
//! windows (`crate::batch`), handing the offers to the booking actors.

use crate::batch::{self, BatchRoads, Waiting};
use crate::events::{DispatchEntry, DispatchLog};
use crate::protocol::{BookingMsg, DriverPosition, IndexCounts, IndexMsg, Wave};
use crate::shared::Shared;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tracing::{debug, warn};
use wayfare_engine::console::driver_state;
use wayfare_engine::dispatch::{
    self, Asked, BatchOffer, BatchProblem, Closed, DispatchPlan, DispatchWindow, DriverIndex, IndexedDriver,
    PickupTimes, Wake,
};
use wayfare_engine::reposition::{self, DemandModel, Pointed, SuggestedArea};
use wayfare_engine::{Booking, BookingId, BookingStatus, LatLng, Millis, UserId, fix};

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
    /// The pickups of the bookings that asked for a driver now.
    demand: DemandModel,
    pointed: Pointed,
    console: HashMap<UserId, ConsoleFacts>,
    batch: DispatchWindow<Waiting>,
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
        Ok(IndexState {
            index,
            demand: DemandModel::new(self.shared.options.reposition),
            pointed: Pointed::default(),
            console: HashMap::new(),
            batch: DispatchWindow::new(),
            car_types: Vec::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<IndexMsg>,
        message: IndexMsg,
        state: &mut IndexState,
    ) -> Result<(), ActorProcessingErr> {
        let IndexState { index, demand, pointed, console, batch, car_types } = state;
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
            IndexMsg::SeedDemand { pickups } => {
                for (pickup, at) in pickups {
                    demand.observe(pickup, at);
                }
            }
            IndexMsg::Dispatch { booking, reply_to } => self.dispatch(&myself, index, batch, booking, reply_to),
            IndexMsg::FirstWave { booking, reply } => {
                // Every booking wanting a driver now comes here first.
                demand.observe(LatLng::new(booking.pickup.lat, booking.pickup.lng), self.shared.now());
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
                batch.leave(booking);
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
            IndexMsg::SuggestArea { driver, reply } => {
                let _ = reply.send(suggest_area(index, demand, pointed, driver, self.shared.now()));
            }
        }
        Ok(())
    }
}

/// Where a free driver could wait: the engine weighs the demand seen
/// against the free drivers of the same car type within reach (each counted
/// where it was pointed lately, if it was). The driver is then counted there.
fn suggest_area(
    index: &DriverIndex,
    demand: &DemandModel,
    pointed: &mut Pointed,
    driver: UserId,
    now: Millis,
) -> Option<SuggestedArea> {
    let me = index.get(driver).filter(|me| me.available)?;
    // The rings' reach and a cell beyond; at most a city centre's worth counted.
    let reach_km = f64::from(demand.settings().rings + 1) * 0.9;
    let near = index.nearest(me.car_type, me.position, reach_km, 5_000, |other| *other == driver);
    let free =
        reposition::free_by_cell(near.iter().map(|candidate| (candidate.driver, candidate.position)), pointed, now);
    let area = demand.suggest(me.position, now, |cell| free.get(&cell).copied().unwrap_or(0))?;
    if let Some(cell) = reposition::cell_of(area.center) {
        pointed.point(driver, cell, now);
    }
    Some(area)
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
    /// A booking asks for offers: the engine's dispatch window decides.
    fn dispatch(
        &self,
        myself: &ActorRef<IndexMsg>,
        index: &DriverIndex,
        batch: &mut DispatchWindow<Waiting>,
        booking: Arc<Booking>,
        reply_to: ActorRef<BookingMsg>,
    ) {
        let now = self.shared.now();
        let catalog = self.shared.catalog();
        let waiting = Waiting { booking: booking.clone(), reply_to };
        match batch.ask(&booking, waiting, index, &catalog.settings, now) {
            Asked::Offer { to, drivers, wave, deadline } => {
                // The booking actor logs the offer once committed, with these distances.
                if to.reply_to.cast(BookingMsg::Offer { candidates: drivers, wave, deadline }).is_err() {
                    debug!(booking_id = %booking.id, "booking actor gone before its offers");
                }
            }
            // The booking stays NEW; the retry timer asks again.
            Asked::Nothing { log, .. } => {
                if let Some(log) = log {
                    self.log(booking.id, &booking.carType, log);
                }
            }
            Asked::Waits { wake } => self.arm(myself, wake),
        }
    }

    fn log(&self, booking: BookingId, car_type: &str, log: DispatchLog) {
        let entry = DispatchEntry { at: self.shared.now(), booking, car_type: car_type.to_string(), log };
        self.shared.log_dispatch(entry);
    }

    /// A wake-up for window `wake.window` on the runtime's clock.
    fn arm(&self, myself: &ActorRef<IndexMsg>, wake: Option<Wake>) {
        let Some(Wake { window, at }) = wake else { return };
        let wake = self.shared.clock.sleep_until(at);
        let index_actor = myself.clone();
        tokio::spawn(async move {
            wake.await;
            let _ = index_actor.cast(IndexMsg::BatchWindow { window });
        });
    }

    /// The window closes: its problem is built by the engine, its pickups
    /// timed by a task (the maps are IO).
    fn close_window(
        &self,
        myself: &ActorRef<IndexMsg>,
        index: &DriverIndex,
        batch: &mut DispatchWindow<Waiting>,
        window: u64,
    ) {
        let catalog = self.shared.catalog();
        let settings = &catalog.settings;
        let waiting: Vec<Arc<Booking>> = batch.waiting().map(|waiting| waiting.booking.clone()).collect();
        let bookings: Vec<&Booking> = waiting.iter().map(|booking| booking.as_ref()).collect();
        let (closed, logs) = batch.close(window, &bookings, index, settings, self.shared.now());
        for (booking, log) in logs {
            let car_type = waiting.iter().find(|waiting| waiting.id == booking).map(|booking| booking.carType.as_str());
            self.log(booking, car_type.unwrap_or_default(), log);
        }
        let problem = match closed {
            Closed::Time(problem) => problem,
            Closed::Done { wake } => return self.arm(myself, wake),
            // The policy changed (or auto-dispatch went off) while bookings
            // waited: each is planned afresh.
            Closed::Replan(waiting) => {
                for Waiting { booking, reply_to } in waiting {
                    self.dispatch(myself, index, batch, booking, reply_to);
                }
                return;
            }
            Closed::Stale => return,
        };
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
                    dispatch::straight_line_times(&problem)
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
        batch: &DispatchWindow<Waiting>,
        window: u64,
        problem: BatchProblem,
        mut times: PickupTimes,
    ) {
        if !batch.timed(window, &problem, &mut times, |driver| is_available(index, driver)) {
            return;
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

    /// Each offer goes to its booking's actor, as a wave's would.
    fn send_batch_offers(
        &self,
        myself: &ActorRef<IndexMsg>,
        index: &DriverIndex,
        batch: &mut DispatchWindow<Waiting>,
        window: u64,
        offers: Vec<BatchOffer>,
    ) {
        let catalog = self.shared.catalog();
        let available = |driver| is_available(index, driver);
        let Some(matched) = batch.matched(window, offers, available, &catalog.settings, self.shared.now()) else {
            return;
        };
        for (waiting, offer) in matched.offers {
            let message =
                BookingMsg::Offer { candidates: vec![offer.driver], wave: offer.wave, deadline: Some(offer.deadline) };
            if waiting.reply_to.cast(message).is_err() {
                debug!(booking_id = %offer.booking, "booking actor gone before its batch offer");
            }
        }
        self.arm(myself, matched.wake);
    }
}

fn is_available(index: &DriverIndex, driver: UserId) -> bool {
    index.get(driver).is_some_and(|indexed| indexed.available)
}
