//! One run: a discrete-event clock drives the production booking machine
//! (`booking::create`, `booking::apply`), dispatch planner (`dispatch::plan`,
//! `dispatch::batch_problem`) and driver index of `wayfare-engine`, as the
//! server's actors do, with drivers and riders played by the behaviour
//! models (docs/simulations.md "The model").
//!
//! Time is virtual and events at the same instant run in the order they
//! were scheduled, so a run is a function of its inputs and seed.

use crate::scenario::{IdleBehaviour, Scenario};
use crate::travel::{Leg, STRAIGHT_LINE_KMH, Spot, Start, Target, Travel};
use h3o::CellIndex;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use wayfare_engine::booking::{self, By, Command, Context, DriverSnapshot, Effect, NewBooking, RouteInfo};
use wayfare_engine::dispatch::{Asked, BatchProblem, Closed, DispatchWindow, DriverIndex, PickupTimes, Wake};
use wayfare_engine::geo::distance_km;
use wayfare_engine::reposition::{self, DemandModel};
use wayfare_engine::rules::booking::DeliveryDetails;
use wayfare_engine::{
    Booking, BookingId, BookingStatus, CancelledBy, CarType, LatLng, Millis, PaymentMode, Place, Settings, TimerKind,
    User, UserId,
};

mod idle;
mod trace;

pub use trace::{Traced, driver_id, rider};

/// Why a rider gives up, as the booking records it.
pub const REASON_RIDER_GAVE_UP: &str = "Waited too long for a driver";

/// A request ready to run: its places on the network and its route.
#[derive(Debug, Clone)]
pub struct Trip {
    pub id: String,
    /// Ms from the clock's zero.
    pub at_ms: i64,
    pub origin: Spot,
    pub destination: Spot,
    /// Pickup to drop; `None` when the roads do not join them.
    pub route: Option<Leg>,
}

/// What one run is given.
pub struct RunInput<'a> {
    pub travel: &'a Travel,
    /// In order of `at_ms`.
    pub trips: &'a [Trip],
    pub vehicles: &'a [Spot],
    /// The platform settings with the run's policy.
    pub settings: &'a Settings,
    pub car: &'a CarType,
    pub scenario: &'a Scenario,
    /// The clock's zero as epoch ms (bookings carry real dates).
    pub start_ms: Millis,
    /// From the zero to the last request.
    pub span_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Open,
    Served,
    CancelledByRider,
    CancelledBySystem,
    NeverDispatched,
}

/// What happened to one request.
#[derive(Debug, Clone)]
pub struct Ride {
    pub request_at: i64,
    pub origin: LatLng,
    pub outcome: Outcome,
    /// The driver (index into the fleet) who took it.
    pub driver: Option<usize>,
    pub accepted_at: Option<i64>,
    pub picked_at: Option<i64>,
    pub dropped_at: Option<i64>,
    /// When it was served or given up.
    pub ended_at: Option<i64>,
    /// Pickup to drop, as driven.
    pub trip: Leg,
    /// Offers sent for it.
    pub offers: u32,
}

/// What one driver did.
#[derive(Debug, Clone, Default)]
pub struct DriverTally {
    pub distance_m: f64,
    pub empty_m: f64,
    /// Ms going to a pickup or with a rider.
    pub busy_ms: i64,
    /// Ms on shift.
    pub shift_ms: i64,
    pub earnings: f64,
}

/// Everything a run leaves for the report.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub rides: Vec<Ride>,
    pub drivers: Vec<DriverTally>,
    /// Drivers on shift and free at each 15-minute bin's start.
    pub idle_samples: Vec<u64>,
    pub answers_yes: u64,
    pub answers_no: u64,
    pub events: u64,
    /// Ms from the zero to the last event.
    pub end_ms: i64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Request(usize),
    Timer { ride: usize, kind: TimerKind, generation: u64 },
    Respond { ride: usize, driver: usize, accept: bool },
    AtPickup(usize),
    Start(usize),
    AtDrop(usize),
    GiveUp(usize),
    BatchWindow(u64),
    Idle { driver: usize, generation: u64 },
    Moved { driver: usize, generation: u64 },
    ShiftStart(usize),
    ShiftEnd(usize),
    Sample(usize),
}

/// An event in the queue: earliest first, then in the order scheduled.
struct Queued {
    at: i64,
    seq: u64,
    event: Event,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: the heap pops the greatest.
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

#[derive(Debug, Clone, Copy)]
enum State {
    Off,
    Idle,
    Moving { from: Spot, to: Spot, leg: Leg, since: i64 },
    ToPickup,
    OnTrip,
}

struct Driver {
    id: UserId,
    spot: Spot,
    state: State,
    on_shift: bool,
    /// Bumped whenever a planned idle move no longer applies.
    generation: u64,
    shift_since: i64,
    busy_since: i64,
    tally: DriverTally,
}

impl Driver {
    fn free(&self) -> bool {
        self.on_shift && matches!(self.state, State::Idle | State::Moving { .. })
    }
}

struct Sim<'a> {
    input: RunInput<'a>,
    now: i64,
    queue: BinaryHeap<Queued>,
    next_seq: u64,
    rng: StdRng,
    index: DriverIndex,
    drivers: Vec<Driver>,
    driver_of: HashMap<UserId, usize>,
    bookings: Vec<Option<Booking>>,
    rides: Vec<Ride>,
    rider: User,
    /// The server's dispatch window, on the virtual clock; handles are rides.
    window: DispatchWindow<usize>,
    /// The waiting bookings' pickups, by ride.
    pickups: HashMap<usize, Pickup>,
    /// Free drivers' kept searches, by driver, with the place each is from.
    starts: HashMap<usize, ([u64; 2], Start)>,
    idle_samples: Vec<u64>,
    answers_yes: u64,
    answers_no: u64,
    handled: u64,
    /// What dispatch was told, when the run is traced.
    trace: Option<Vec<Traced>>,
    /// The demand seen so far, when idle drivers reposition.
    demand: Option<DemandModel>,
    /// Free drivers per cell (where each is or is heading), and when it was counted.
    supply: HashMap<CellIndex, u32>,
    supply_at: Option<i64>,
}

/// A waiting booking's pickup, prepared for drives to it, with the times
/// from each driver weighed so far and the place each was timed from: a
/// booking waiting through several windows is not timed again from a
/// driver who has not moved.
struct Pickup {
    target: Target,
    times: HashMap<usize, ([u64; 2], Option<u64>)>,
}

/// Runs the day; `progress` hears (requests made, of).
pub fn run(input: RunInput<'_>, seed: u64, progress: &mut dyn FnMut(usize, usize)) -> RunResult {
    run_with(Sim::new(input, seed), progress).0
}

/// Runs the day and keeps what dispatch was told and offered, in order.
pub fn run_traced(input: RunInput<'_>, seed: u64) -> (RunResult, Vec<Traced>) {
    let mut sim = Sim::new(input, seed);
    sim.trace = Some(Vec::new());
    let (result, trace) = run_with(sim, &mut |_, _| {});
    (result, trace.unwrap_or_default())
}

fn run_with(mut sim: Sim<'_>, progress: &mut dyn FnMut(usize, usize)) -> (RunResult, Option<Vec<Traced>>) {
    let total = sim.input.trips.len();
    let step = (total / 100).max(1);
    let mut made = 0;
    while let Some(Queued { at, event, .. }) = sim.queue.pop() {
        if sim.is_stale(&event) {
            // A timer cleared, a rider already gone, an idle move overtaken:
            // dropped without moving the clock, so the day ends with its last real event.
            continue;
        }
        sim.now = at;
        sim.handled += 1;
        if let Event::Request(_) = event {
            made += 1;
            if made % step == 0 || made == total {
                progress(made, total);
            }
        }
        sim.handle(event);
    }
    let trace = sim.trace.take();
    (sim.finish(), trace)
}

impl<'a> Sim<'a> {
    fn new(input: RunInput<'a>, seed: u64) -> Sim<'a> {
        let rider = rider();
        let trips = input.trips.len();
        let mut sim = Sim {
            now: 0,
            queue: BinaryHeap::new(),
            next_seq: 0,
            rng: StdRng::seed_from_u64(seed),
            index: DriverIndex::new(),
            drivers: Vec::with_capacity(input.vehicles.len()),
            driver_of: HashMap::with_capacity(input.vehicles.len()),
            bookings: vec![None; trips],
            rides: input
                .trips
                .iter()
                .map(|trip| Ride {
                    request_at: trip.at_ms,
                    origin: trip.origin.point,
                    outcome: Outcome::Open,
                    driver: None,
                    accepted_at: None,
                    picked_at: None,
                    dropped_at: None,
                    ended_at: None,
                    trip: Leg::default(),
                    offers: 0,
                })
                .collect(),
            rider,
            window: DispatchWindow::new(),
            pickups: HashMap::new(),
            starts: HashMap::new(),
            idle_samples: Vec::new(),
            answers_yes: 0,
            answers_no: 0,
            handled: 0,
            trace: None,
            demand: (input.scenario.drivers.idle == IdleBehaviour::Reposition)
                .then(|| DemandModel::new(reposition::Settings::default())),
            supply: HashMap::new(),
            supply_at: None,
            input,
        };
        let shift_ms = (sim.input.scenario.drivers.shift_hours * 3_600_000.0) as i64;
        let fleet = sim.input.vehicles.len();
        for (number, spot) in sim.input.vehicles.iter().enumerate() {
            let id = driver_id(number);
            sim.driver_of.insert(id, number);
            sim.drivers.push(Driver {
                id,
                spot: *spot,
                state: State::Off,
                on_shift: false,
                generation: 0,
                shift_since: 0,
                busy_since: 0,
                tally: DriverTally::default(),
            });
            if shift_ms > 0 {
                // Shifts start evenly over the span, so the city is covered all day.
                let latest = (sim.input.span_ms - shift_ms).max(0);
                let start = if fleet > 1 { latest * number as i64 / (fleet as i64 - 1) } else { 0 };
                sim.schedule(start, Event::ShiftStart(number));
                sim.schedule(start + shift_ms, Event::ShiftEnd(number));
            } else {
                sim.schedule(0, Event::ShiftStart(number));
            }
        }
        for (ride, trip) in sim.input.trips.iter().enumerate() {
            sim.schedule(trip.at_ms, Event::Request(ride));
        }
        let bins = (sim.input.span_ms / (crate::report::SERIES_BIN_S as i64 * 1000)) as usize + 1;
        for bin in 0..bins {
            sim.schedule(bin as i64 * crate::report::SERIES_BIN_S as i64 * 1000, Event::Sample(bin));
        }
        sim
    }

    fn is_stale(&self, event: &Event) -> bool {
        match *event {
            Event::Timer { ride, kind, generation } => {
                self.bookings[ride].as_ref().is_none_or(|booking| !booking.timers.is_current(kind, generation))
            }
            Event::GiveUp(ride) => self.status(ride) != Some(BookingStatus::New),
            Event::Idle { driver, generation } | Event::Moved { driver, generation } => {
                self.drivers[driver].generation != generation
            }
            _ => false,
        }
    }

    fn schedule(&mut self, at: i64, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(Queued { at: at.max(self.now), seq, event });
    }

    fn epoch(&self) -> Millis {
        self.input.start_ms + self.now
    }

    /// Keeps a step of the trace, when the run is traced.
    fn record(&mut self, step: impl FnOnce(Millis) -> Traced) {
        let at = self.epoch();
        if let Some(trace) = self.trace.as_mut() {
            trace.push(step(at));
        }
    }

    fn handle(&mut self, event: Event) {
        if matches!(event, Event::Timer { .. } | Event::BatchWindow(_)) {
            self.record(|at| Traced::Due { at });
        }
        match event {
            Event::Request(ride) => self.request(ride),
            Event::Timer { ride, kind, generation } => {
                let _ = self.apply(ride, By::System, Command::TimerFired { kind, generation });
            }
            Event::Respond { ride, driver, accept } => self.respond(ride, driver, accept),
            Event::AtPickup(ride) => self.at_pickup(ride),
            Event::Start(ride) => self.start(ride),
            Event::AtDrop(ride) => self.at_drop(ride),
            Event::GiveUp(ride) => {
                if self.status(ride) == Some(BookingStatus::New) {
                    let customer = self.rider.id;
                    let reason = REASON_RIDER_GAVE_UP.to_string();
                    let _ = self.apply(ride, By::Rider(customer), Command::Cancel { reason, wallet_balance: None });
                }
            }
            Event::BatchWindow(window) => self.batch_window(window),
            Event::Idle { driver, generation } => self.idle_move(driver, generation),
            Event::Moved { driver, generation } => self.moved(driver, generation),
            Event::ShiftStart(driver) => self.shift_start(driver),
            Event::ShiftEnd(driver) => self.shift_end(driver),
            Event::Sample(bin) => {
                let idle = self.drivers.iter().filter(|driver| driver.free()).count() as u64;
                if self.idle_samples.len() <= bin {
                    self.idle_samples.resize(bin + 1, 0);
                }
                self.idle_samples[bin] = idle;
            }
        }
    }

    fn status(&self, ride: usize) -> Option<BookingStatus> {
        self.bookings[ride].as_ref().map(|booking| booking.status)
    }

    fn context(&self) -> Context<'a> {
        Context { now: self.epoch(), settings: self.input.settings, car_type: Some(self.input.car) }
    }

    fn request(&mut self, ride: usize) {
        let trip = &self.input.trips[ride];
        let Some(route) = trip.route else {
            self.end(ride, Outcome::NeverDispatched);
            return;
        };
        let place = |spot: &Spot| Place { lat: spot.point.lat, lng: spot.point.lng, add: String::new() };
        let request = NewBooking {
            pickup: place(&trip.origin),
            drop: place(&trip.destination),
            book_later: false,
            tripdate: None,
            route: RouteInfo {
                distance_km: route.distance_m / 1000.0,
                time_secs: (route.time_ms / 1000).max(0) as u64,
                coords: Vec::new(),
                waypoints: Vec::new(),
            },
            parcel_type_index: None,
            option_index: None,
            delivery: DeliveryDetails::default(),
            promo: None,
            payment_mode: Some(PaymentMode::Cash),
        };
        let id = booking_id(ride);
        let at = self.epoch();
        if let Some(demand) = self.demand.as_mut() {
            demand.observe(trip.origin.point, at);
        }
        let context = self.context();
        if self.trace.is_some() {
            let request = request.clone();
            self.record(|at| Traced::Booked { at, ride, request });
        }
        let created = booking::create(id, request, &self.rider, By::Rider(self.rider.id), &context, &mut self.rng);
        match created {
            Ok(transition) => {
                self.bookings[ride] = Some(transition.booking);
                let cancel_after = self.input.scenario.riders.cancel_after_s as i64 * 1000;
                self.schedule(self.now + cancel_after, Event::GiveUp(ride));
                self.effects(ride, transition.effects);
            }
            Err(_) => self.end(ride, Outcome::NeverDispatched),
        }
    }

    /// Applies a command to the ride's booking as its actor would: the
    /// transition, then its effects.
    fn apply(&mut self, ride: usize, by: By, command: Command) -> Result<(), wayfare_engine::DomainError> {
        if self.bookings[ride].is_none() {
            return Err(wayfare_engine::ErrorKey::NotFound.into());
        }
        if self.trace.is_some() && by != By::System {
            let command = command.clone();
            self.record(|at| Traced::Command { at, ride, by, command });
        }
        let Some(current) = self.bookings[ride].as_ref() else {
            return Err(wayfare_engine::ErrorKey::NotFound.into());
        };
        let transition = booking::apply(current, by, command, &self.context())?;
        self.bookings[ride] = Some(transition.booking);
        self.effects(ride, transition.effects);
        Ok(())
    }

    fn effects(&mut self, ride: usize, effects: Vec<Effect>) {
        let mut dispatch_requested = false;
        for effect in effects {
            match effect {
                // A paid ride is over for the simulation: closing its record
                // (no rating) and payment reminders change no dispatch, and
                // would only stretch the simulated day.
                Effect::TimerSet { kind: TimerKind::AutoComplete | TimerKind::PaymentReminder, .. } => {}
                Effect::TimerSet { kind, timer } => {
                    self.record(|at| Traced::Set { at, due: timer.at });
                    let at = timer.at - self.input.start_ms;
                    self.schedule(at, Event::Timer { ride, kind, generation: timer.generation });
                }
                Effect::RequestDispatch => dispatch_requested = true,
                Effect::OfferMade { drivers, deadline } => {
                    if self.trace.is_some() {
                        let wave = self.bookings[ride].as_ref().map_or(0, |booking| booking.dispatch.wave);
                        let offered = drivers.clone();
                        self.record(|at| Traced::Offered { at, ride, drivers: offered, wave, deadline });
                    }
                    for driver in drivers {
                        self.offer_to(ride, driver);
                    }
                }
                Effect::SetQueue { driver, busy } => {
                    if let Some(&number) = self.driver_of.get(&driver) {
                        let free = !busy && self.drivers[number].free();
                        self.index.set_available(driver, free);
                    }
                }
                _ => {}
            }
        }
        match self.bookings[ride].as_ref().map(|booking| (booking.status, booking.cancelledBy)) {
            Some((BookingStatus::Cancelled, Some(CancelledBy::Rider))) => self.end(ride, Outcome::CancelledByRider),
            Some((BookingStatus::Cancelled, _)) => self.end(ride, Outcome::CancelledBySystem),
            _ => {}
        }
        if dispatch_requested {
            self.dispatch(ride);
        }
    }

    fn end(&mut self, ride: usize, outcome: Outcome) {
        let record = &mut self.rides[ride];
        if record.outcome == Outcome::Open {
            record.outcome = outcome;
            record.ended_at = Some(self.now);
            self.window.leave(booking_id(ride));
        }
    }

    /// The booking asks for offers: the server's dispatch window decides.
    fn dispatch(&mut self, ride: usize) {
        let Some(booking) = self.bookings[ride].as_ref() else { return };
        let now = self.epoch();
        match self.window.ask(booking, ride, &self.index, self.input.settings, now) {
            Asked::Offer { drivers, wave, deadline, .. } => {
                let drivers = drivers.into_iter().map(|candidate| candidate.driver).collect();
                let _ = self.apply(ride, By::System, Command::Offer { drivers, wave, deadline });
            }
            Asked::Waits { wake } => self.arm(wake),
            // As the server: the booking stays NEW and its retry timer asks again.
            Asked::Nothing { .. } => {}
        }
    }

    fn arm(&mut self, wake: Option<Wake>) {
        if let Some(wake) = wake {
            self.record(|at| Traced::Set { at, due: wake.at });
            self.schedule(wake.at - self.input.start_ms, Event::BatchWindow(wake.window));
        }
    }

    /// A batch window closes: its pickups are timed on the run's roads and
    /// its offers made, all at this instant.
    fn batch_window(&mut self, window: u64) {
        let now = self.epoch();
        let bookings: Vec<&Booking> = self.window.waiting().filter_map(|ride| self.bookings[*ride].as_ref()).collect();
        let (closed, _) = self.window.close(window, &bookings, &self.index, self.input.settings, now);
        let problem = match closed {
            Closed::Time(problem) => problem,
            Closed::Done { wake } => return self.arm(wake),
            Closed::Replan(rides) => {
                for ride in rides {
                    self.dispatch(ride);
                }
                return;
            }
            Closed::Stale => return,
        };
        let mut times = self.pickup_times(&problem);
        let index = &self.index;
        let available = |driver| index.get(driver).is_some_and(|indexed| indexed.available);
        self.window.timed(window, &problem, &mut times, available);
        let offers = problem.solve(&times, self.input.settings, now);
        let index = &self.index;
        let available = |driver| index.get(driver).is_some_and(|indexed| indexed.available);
        let Some(matched) = self.window.matched(window, offers, available, self.input.settings, now) else { return };
        for (ride, offer) in matched.offers {
            let command =
                Command::Offer { drivers: vec![offer.driver.driver], wave: offer.wave, deadline: Some(offer.deadline) };
            let _ = self.apply(ride, By::System, command);
        }
        let window = &self.window;
        self.pickups.retain(|ride, _| window.is_waiting(booking_id(*ride)));
        self.arm(matched.wake);
    }

    /// Each candidate's pickup time on the run's roads. Pairs not timed yet
    /// from where the driver is now are timed by driver: one forward search
    /// from each driver for every pickup it is weighed for (a window's
    /// candidates are a sparse tenth of drivers × pickups, and these
    /// searches stop early where a matrix sweeps).
    fn pickup_times(&mut self, problem: &BatchProblem) -> PickupTimes {
        let place = |number: usize| {
            let point = self.drivers[number].spot.point;
            [point.lat.to_bits(), point.lng.to_bits()]
        };
        let travel = self.input.travel;
        let ride_of = |booking: &BookingId| *self.window.handle(*booking).expect("a weighed booking waits");
        let mut times: PickupTimes = Vec::with_capacity(problem.bookings.len());
        let mut untimed: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
        for (row, ((booking, _, _), candidates)) in problem.bookings.iter().zip(&problem.candidates).enumerate() {
            let ride = ride_of(booking);
            let pickup = self.pickups.entry(ride).or_insert_with(|| Pickup {
                target: travel.target(&self.input.trips[ride].origin),
                times: HashMap::new(),
            });
            let cached = candidates
                .iter()
                .enumerate()
                .map(|(column, candidate)| {
                    let number = self.driver_of[&candidate.driver];
                    match pickup.times.get(&number) {
                        Some((at, time)) if *at == place(number) => *time,
                        _ => {
                            untimed.entry(number).or_default().push((row, column));
                            None
                        }
                    }
                })
                .collect();
            times.push(cached);
        }
        for (number, cells) in untimed {
            let rides: Vec<usize> = cells.iter().map(|(row, _)| ride_of(&problem.bookings[*row].0)).collect();
            let here = place(number);
            // The driver's search is kept while it stays at this place.
            if self.starts.get(&number).is_none_or(|(at, _)| *at != here) {
                self.starts.insert(number, (here, travel.start(&self.drivers[number].spot)));
            }
            let start = &self.starts[&number].1;
            let legs: Vec<Option<Leg>> =
                rides.iter().map(|ride| travel.leg_between(start, &self.pickups[ride].target)).collect();
            for (((row, column), ride), leg) in cells.into_iter().zip(rides).zip(legs) {
                let time = leg.map(|leg| pickup_secs(&leg));
                times[row][column] = time;
                if let Some(pickup) = self.pickups.get_mut(&ride) {
                    pickup.times.insert(number, (here, time));
                }
            }
        }
        times
    }

    /// The driver model hears an offer: whether and when they answer.
    fn offer_to(&mut self, ride: usize, driver: UserId) {
        let Some(&number) = self.driver_of.get(&driver) else { return };
        self.rides[ride].offers += 1;
        let model = &self.input.scenario.drivers;
        let km = distance_km(self.drivers[number].spot.point, self.input.trips[ride].origin.point);
        let chance = (model.accept_probability - model.accept_decay_per_km * km).clamp(0.0, 1.0);
        let accept = chance >= 1.0 || self.rng.random_bool(chance);
        let delay_s = if model.respond_max_s > model.respond_min_s {
            self.rng.random_range(model.respond_min_s..model.respond_max_s)
        } else {
            model.respond_min_s
        };
        self.schedule(self.now + (delay_s * 1000.0).round() as i64, Event::Respond { ride, driver: number, accept });
    }

    fn respond(&mut self, ride: usize, number: usize, accept: bool) {
        let id = self.drivers[number].id;
        let offered = self.bookings[ride]
            .as_ref()
            .is_some_and(|booking| booking.status == BookingStatus::New && booking.is_requested(&id));
        if !offered {
            // Taken by another driver, withdrawn or lapsed before the answer.
            return;
        }
        // A driver already on a trip (or off shift) says no: the app does not
        // let them hold two bookings.
        if !accept || !self.drivers[number].free() {
            self.answers_no += 1;
            let _ = self.apply(ride, By::Driver(id), Command::Decline);
            return;
        }
        let here = self.current_spot(number);
        let snapshot = DriverSnapshot {
            id,
            name: format!("Driver {}", number + 1),
            image: String::new(),
            contact: String::new(),
            push_token: String::new(),
            rating: Decimal::ZERO,
            vehicle_number: String::new(),
            fleetadmin: None,
            location: Some(here.point),
        };
        if self.apply(ride, By::Driver(id), Command::Accept { driver: snapshot }).is_err() {
            return;
        }
        self.answers_yes += 1;
        let pickup = self.input.trips[ride].origin;
        let leg = self.input.travel.leg(&here, &pickup).unwrap_or_else(|| straight(&here, &pickup));
        let driver = &mut self.drivers[number];
        driver.spot = here;
        driver.generation += 1;
        driver.state = State::ToPickup;
        driver.busy_since = self.now;
        driver.tally.distance_m += leg.distance_m;
        driver.tally.empty_m += leg.distance_m;
        self.index.set_available(id, false);
        // Busy until the trip ends, somewhere else: its kept search is done with.
        self.starts.remove(&number);
        let record = &mut self.rides[ride];
        record.driver = Some(number);
        record.accepted_at = Some(self.now);
        self.schedule(self.now + leg.time_ms, Event::AtPickup(ride));
    }

    /// Where the driver is now: part-way along an idle move, counted as driven.
    fn current_spot(&mut self, number: usize) -> Spot {
        let driver = &mut self.drivers[number];
        let State::Moving { from, to, leg, since } = driver.state else { return driver.spot };
        let share =
            if leg.time_ms > 0 { ((self.now - since) as f64 / leg.time_ms as f64).clamp(0.0, 1.0) } else { 1.0 };
        driver.tally.distance_m += leg.distance_m * share;
        driver.tally.empty_m += leg.distance_m * share;
        driver.state = State::Idle;
        let point = LatLng::new(
            from.point.lat + (to.point.lat - from.point.lat) * share,
            from.point.lng + (to.point.lng - from.point.lng) * share,
        );
        let spot = self.input.travel.spot(point).unwrap_or(if share < 0.5 { from } else { to });
        self.drivers[number].spot = spot;
        spot
    }

    fn driver_of_ride(&self, ride: usize) -> Option<(usize, UserId)> {
        let number = self.rides[ride].driver?;
        Some((number, self.drivers[number].id))
    }

    fn at_pickup(&mut self, ride: usize) {
        let Some((number, id)) = self.driver_of_ride(ride) else { return };
        let pickup = self.input.trips[ride].origin;
        if self.apply(ride, By::Driver(id), Command::Arrive { location: Some(pickup.point) }).is_err() {
            return;
        }
        self.drivers[number].spot = pickup;
        self.rides[ride].picked_at = Some(self.now);
        self.schedule(self.now + self.input.scenario.boarding_s as i64 * 1000, Event::Start(ride));
    }

    fn start(&mut self, ride: usize) {
        let Some((number, id)) = self.driver_of_ride(ride) else { return };
        let otp = self.bookings[ride].as_ref().and_then(|booking| booking.otp.0);
        let pickup = self.input.trips[ride].origin.point;
        if self.apply(ride, By::Driver(id), Command::Start { otp, location: Some(pickup) }).is_err() {
            return;
        }
        let route = self.input.trips[ride].route.unwrap_or_default();
        self.drivers[number].state = State::OnTrip;
        self.rides[ride].trip = route;
        self.schedule(self.now + route.time_ms, Event::AtDrop(ride));
    }

    fn at_drop(&mut self, ride: usize) {
        let Some((number, id)) = self.driver_of_ride(ride) else { return };
        let drop = self.input.trips[ride].destination;
        let reach = Command::Reach { location: Some(drop.point), drop_address: None, route: Vec::new() };
        if self.apply(ride, By::Driver(id), reach).is_err() {
            return;
        }
        let pay = Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO };
        let paid = self.apply(ride, By::Driver(id), pay).is_ok();
        let share = self.bookings[ride].as_ref().map(|booking| booking.driver_share).unwrap_or_default();
        let record = &mut self.rides[ride];
        record.dropped_at = Some(self.now);
        if paid {
            self.end(ride, Outcome::Served);
        }
        let driver = &mut self.drivers[number];
        driver.tally.distance_m += self.rides[ride].trip.distance_m;
        driver.tally.busy_ms += self.now - driver.busy_since;
        driver.tally.earnings += share.to_f64().unwrap_or(0.0);
        driver.spot = drop;
        self.index.move_to(id, drop.point);
        self.record(|at| Traced::Moved { at, driver: id, point: drop.point });
        if self.drivers[number].on_shift {
            self.become_idle(number);
        } else {
            self.go_off(number);
        }
    }

    fn shift_start(&mut self, number: usize) {
        let driver = &mut self.drivers[number];
        driver.on_shift = true;
        driver.shift_since = self.now;
        let (id, point) = (driver.id, driver.spot.point);
        self.index.upsert(id, &self.input.car.name, point, true);
        self.record(|at| Traced::Online { at, driver: id, point });
        self.become_idle(number);
    }

    fn shift_end(&mut self, number: usize) {
        let driver = &mut self.drivers[number];
        driver.on_shift = false;
        if matches!(driver.state, State::Idle | State::Moving { .. }) {
            self.current_spot(number);
            self.go_off(number);
        }
    }

    fn go_off(&mut self, number: usize) {
        let driver = &mut self.drivers[number];
        driver.state = State::Off;
        driver.generation += 1;
        driver.tally.shift_ms += self.now - driver.shift_since;
        let id = driver.id;
        self.index.remove(id);
        self.starts.remove(&number);
        self.record(|at| Traced::Offline { at, driver: id });
    }

    fn finish(mut self) -> RunResult {
        for driver in &mut self.drivers {
            if !matches!(driver.state, State::Off) {
                driver.tally.shift_ms += self.now - driver.shift_since;
            }
        }
        RunResult {
            rides: self.rides,
            drivers: self.drivers.into_iter().map(|driver| driver.tally).collect(),
            idle_samples: self.idle_samples,
            answers_yes: self.answers_yes,
            answers_no: self.answers_no,
            events: self.handled,
            end_ms: self.now,
        }
    }
}

/// A ride's booking id (rides are numbered from zero, bookings from one).
fn booking_id(ride: usize) -> BookingId {
    BookingId::from_u128(ride as u128 + 1)
}

/// A drive's time in whole seconds, as the batch matching weighs it.
pub fn pickup_secs(leg: &Leg) -> u64 {
    (leg.time_ms / 1000).max(0) as u64
}

/// A drive where the roads give none (a pickup cut off by the extract's
/// edge): a straight line at the straight-line speed.
fn straight(from: &Spot, to: &Spot) -> Leg {
    let km = distance_km(from.point, to.point);
    Leg { time_ms: (km / STRAIGHT_LINE_KMH * 3_600_000.0).round() as i64, distance_m: km * 1000.0 }
}
