//! Live mode of `wayfare simulate` (docs/simulations.md "Live mode"): the
//! scenario's drivers and riders played against a running server, in real
//! time, through its public REST API and Socket.IO, as the apps do, so the
//! live dispatch console shows a busy city and the server meets realistic
//! behaviour.
//!
//! Nothing here decides a rule: the server dispatches, prices, times offers
//! out and checks every stage; this module only plays people with the
//! scenario's models ([`crate::scenario::DriverModel`], [`crate::scenario::RiderModel`]).
//! The people are the demo city's (`wayfare serve --demo`), signed in with
//! the codes of the dev outbox: drivers `driverN@demo.wayfare` of the
//! scenario's car type, riders `riderN@demo.wayfare`. Every duration of the
//! scenario (request times, answers, drives, boarding, giving up) is divided
//! by the speed; the server's own timers (offer expiry, retries) keep real
//! time.
//!
//! Every person is a future polled by the caller's task: they borrow the
//! prepared scenario, and what they do is wait, not compute.

mod client;

use crate::scenario::{IdleBehaviour, Scenario};
use crate::sim::REASON_RIDER_GAVE_UP;
use crate::travel::{Leg, STRAIGHT_LINE_KMH, Spot};
use crate::{Prepared, Progress};
pub(crate) use client::{Api, Heard, bearing, connect_socket, emit_location, epoch_ms};
pub use client::{LiveError, Person, Refused};
use futures_util::future::join_all;
use futures_util::stream::{self, FuturesUnordered, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use rust_socketio::asynchronous::Client as Socket;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep_until, timeout, timeout_at};
use wayfare_engine::LatLng;
use wayfare_engine::geo::distance_km;

const ADMIN_EMAIL: &str = "admin@demo.wayfare";
/// People signed in at once: a handful, so a big fleet does not look like an attack.
const SIGN_IN_LANES: usize = 4;
/// How long a rider's app waits to hear that the driver it saw on the
/// booking is one of the run's, before it stops following the booking.
const FOLLOW_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// Scenario seconds per real second.
    pub speed: f64,
    /// How often a driver's app reports its position (real time).
    pub position_every: Duration,
    /// How often progress is reported (real time).
    pub report_every: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions { speed: 1.0, position_every: Duration::from_secs(2), report_every: Duration::from_secs(5) }
    }
}

impl LiveOptions {
    /// Refuses a speed no clock can run at, before any call to the server.
    fn checked(self) -> Result<LiveOptions, LiveError> {
        if self.speed > 0.0 && self.speed.is_finite() { Ok(self) } else { Err(LiveError::BadSpeed(self.speed)) }
    }
}

/// How one booking of the run ended, as its rider and driver saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveOutcome {
    /// Driven to the drop and paid in cash (PAID).
    Completed,
    /// Given up by its rider after `cancel_after_s` without a driver.
    CancelledByRider,
    /// Taken by a driver outside the run, or cancelled by someone else.
    EndedElsewhere,
    /// A stage was refused or failed (see the errors).
    Failed,
    /// Still going when the run stopped.
    Open,
}

/// One booking the run made.
#[derive(Debug, Clone, Serialize)]
pub struct LiveBooking {
    /// The request's id in the scenario.
    pub request: String,
    /// The booking's id on the server.
    pub booking: String,
    pub rider: String,
    /// The run's driver who took it.
    pub driver: Option<String>,
    pub outcome: LiveOutcome,
}

/// What a live run did, counted on the client's side.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LiveSummary {
    pub url: String,
    pub speed: f64,
    pub car_type: String,
    /// Demo drivers played: the scenario's fleet, capped by the server's.
    pub drivers: usize,
    pub riders: usize,
    /// Requests in the scenario, and those the server booked.
    pub requests: u64,
    pub booked: u64,
    /// `offer` events the run's drivers were sent.
    pub offers_seen: u64,
    /// Offers accepted and won.
    pub accepted: u64,
    pub declined: u64,
    /// Accepts that came too late: 409 `booking_taken`, or the offer gone.
    pub lost_races: u64,
    /// Offers of bookings made outside the run, declined: their rider's otp
    /// is out of the run's reach, so their trip could not start.
    pub foreign_offers: u64,
    pub completed: u64,
    /// Bookings given up by their rider.
    pub cancelled: u64,
    pub positions_sent: u64,
    /// Refusals and failures by `action: code`, e.g. `start: otp_mismatch`.
    pub errors: BTreeMap<String, u64>,
    /// Of those, the answers that mean a bug: 5xx, `internal_error`,
    /// malformed input.
    pub server_errors: u64,
    pub wall_s: f64,
    pub bookings: Vec<LiveBooking>,
}

impl fmt::Display for LiveSummary {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            out,
            "live run on {} at speed {}: {} {} drivers, {} riders, {:.1} s",
            self.url, self.speed, self.drivers, self.car_type, self.riders, self.wall_s
        )?;
        let columns = ["requests", "booked", "offers", "accepted", "declined", "lost races", "completed", "cancelled"];
        let values = [
            self.requests,
            self.booked,
            self.offers_seen,
            self.accepted,
            self.declined,
            self.lost_races,
            self.completed,
            self.cancelled,
        ];
        for column in columns {
            write!(out, "{column:>11}")?;
        }
        writeln!(out)?;
        for value in values {
            write!(out, "{value:>11}")?;
        }
        writeln!(out)?;
        if self.foreign_offers > 0 {
            writeln!(out, "{} offers of bookings made outside the run declined", self.foreign_offers)?;
        }
        if self.errors.is_empty() {
            return write!(out, "errors: none");
        }
        write!(out, "errors ({} from server faults):", self.server_errors)?;
        for (key, count) in &self.errors {
            write!(out, "\n  {key:<40} {count:>6}")?;
        }
        Ok(())
    }
}

/// `live.json` in `out`: the summary, for scripts.
pub fn write_summary(out: &Path, summary: &LiveSummary) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let mut json = serde_json::to_string_pretty(summary).expect("the summary serialises");
    json.push('\n');
    std::fs::write(out.join("live.json"), json)
}

/// Where a booking of the run stands, for its rider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Waiting,
    /// A driver of the run won it.
    Taken,
    Ended(LiveOutcome),
}

/// A booking of the run, known to its rider and to the driver who takes it.
struct Ride {
    /// The request (index into the trips); `None` until its rider hears
    /// back from the booking call (a driver may accept first).
    request: Option<usize>,
    rider: Option<usize>,
    otp: Option<u64>,
    driver: Option<usize>,
    phase: watch::Sender<Phase>,
}

impl Ride {
    fn new() -> Ride {
        Ride { request: None, rider: None, otp: None, driver: None, phase: watch::channel(Phase::Waiting).0 }
    }
}

#[derive(Default)]
struct Tally {
    booked: u64,
    offers_seen: u64,
    accepted: u64,
    declined: u64,
    lost_races: u64,
    foreign_offers: u64,
    completed: u64,
    cancelled: u64,
    positions_sent: u64,
    errors: BTreeMap<String, u64>,
    server_errors: u64,
    /// Requests that are over: refused, or their booking ended.
    settled: u64,
}

/// What the run's people share.
struct Run<'a> {
    scenario: &'a Scenario,
    prepared: &'a Prepared,
    api: Api,
    options: LiveOptions,
    car_type: String,
    riders: Vec<Person>,
    rider_ids: HashSet<String>,
    driver_ids: HashMap<String, usize>,
    driver_emails: Vec<String>,
    started: Instant,
    rides: Mutex<HashMap<String, Ride>>,
    tally: Mutex<Tally>,
    /// Set when every request is settled: the drivers sign off.
    done: watch::Sender<bool>,
}

impl Run<'_> {
    /// Real time for a scenario duration.
    fn real(&self, scenario_ms: i64) -> Duration {
        Duration::from_secs_f64(scenario_ms.max(0) as f64 / 1000.0 / self.options.speed)
    }

    fn real_s(&self, scenario_s: f64) -> Duration {
        Duration::from_secs_f64(scenario_s.max(0.0) / self.options.speed)
    }

    /// Ms of scenario time since the run began.
    fn scenario_now(&self) -> i64 {
        (self.started.elapsed().as_secs_f64() * 1000.0 * self.options.speed) as i64
    }

    fn count(&self, what: impl FnOnce(&mut Tally)) {
        what(&mut self.tally.lock().expect("tally lock"));
    }

    fn refused(&self, action: &str, refused: &Refused) {
        self.count(|tally| {
            *tally.errors.entry(format!("{action}: {}", refused.key())).or_default() += 1;
            if refused.is_server_fault() {
                tally.server_errors += 1;
            }
        });
    }

    fn with_ride<T>(&self, booking: &str, change: impl FnOnce(&mut Ride) -> T) -> T {
        let mut rides = self.rides.lock().expect("rides lock");
        change(rides.entry(booking.to_string()).or_insert_with(Ride::new))
    }

    fn phase(&self, booking: &str) -> Phase {
        self.with_ride(booking, |ride| *ride.phase.borrow())
    }

    /// Ends a ride once; later ends (a driver's failure after the rider
    /// gave up) change nothing.
    fn end(&self, booking: &str, outcome: LiveOutcome) {
        let ended = self.with_ride(booking, |ride| {
            ride.phase.send_if_modified(|phase| {
                if matches!(phase, Phase::Ended(_)) {
                    return false;
                }
                *phase = Phase::Ended(outcome);
                true
            })
        });
        if ended {
            self.count(|tally| {
                tally.settled += 1;
                match outcome {
                    LiveOutcome::Completed => tally.completed += 1,
                    LiveOutcome::CancelledByRider => tally.cancelled += 1,
                    _ => {}
                }
            });
        }
    }

    /// Makes the requests at their times, each followed by its rider until
    /// it is settled; then tells the drivers to sign off.
    async fn riders(&self) {
        let trips = &self.prepared.trips;
        let mut active = FuturesUnordered::new();
        let mut next = 0;
        loop {
            let due = trips.get(next).map(|trip| self.started + self.real(trip.at_ms));
            tokio::select! {
                Some(()) = active.next(), if !active.is_empty() => {}
                () = sleep_until(due.unwrap_or(self.started)), if due.is_some() => {
                    active.push(self.ride(next));
                    next += 1;
                }
                else => break,
            }
        }
        self.done.send_replace(true);
    }

    /// One request: booked by a demo rider (round robin), given up after
    /// `cancel_after_s` without a driver, followed until it ends.
    async fn ride(&self, request: usize) {
        let trip = &self.prepared.trips[request];
        let rider_number = request % self.riders.len();
        let rider = &self.riders[rider_number];
        let place = |point: LatLng| json!({ "lat": point.lat, "lng": point.lng, "add": "" });
        let body = json!({
            "pickup": place(trip.origin.point),
            "drop": place(trip.destination.point),
            "carType": self.car_type,
            "bookLater": false,
            "payment_mode": "cash",
        });
        let refused = |refused: Refused| {
            self.refused("book", &refused);
            self.count(|tally| tally.settled += 1);
        };
        let created = match self.api.post("/bookings", &rider.token, Some(body)).await {
            Ok(created) => created,
            Err(error) => return refused(error),
        };
        let Some(booking) = created["id"].as_str().map(str::to_string) else {
            return refused(Refused { status: None, code: "no id in the answer".into() });
        };
        let mut phase = self.with_ride(&booking, |ride| {
            ride.request = Some(request);
            ride.rider = Some(rider_number);
            ride.otp = created["otp"].as_u64();
            ride.phase.subscribe()
        });
        self.count(|tally| tally.booked += 1);
        let give_up_at = Instant::now() + self.real_s(self.scenario.riders.cancel_after_s as f64);
        let taken = timeout_at(give_up_at, phase.wait_for(|phase| *phase != Phase::Waiting)).await.is_ok();
        if !taken {
            self.give_up(&booking, rider).await;
        }
        let _ = phase.wait_for(|phase| matches!(phase, Phase::Ended(_))).await;
    }

    /// The rider's app shows the booking: one still waiting for a driver is
    /// cancelled; one a driver took goes on.
    async fn give_up(&self, booking: &str, rider: &Person) {
        let seen = match self.api.get(&format!("/bookings/{booking}"), &rider.token).await {
            Ok(seen) => seen,
            Err(refused) => {
                self.refused("read booking", &refused);
                return self.end(booking, LiveOutcome::Failed);
            }
        };
        match seen["status"].as_str() {
            Some("NEW") => {
                let body = json!({ "reason": REASON_RIDER_GAVE_UP });
                match self.api.post(&format!("/bookings/{booking}/cancel"), &rider.token, Some(body)).await {
                    Ok(_) => return self.end(booking, LiveOutcome::CancelledByRider),
                    // A driver accepted in between: the ride goes on.
                    Err(refused) if refused.status == Some(409) => {}
                    Err(refused) => {
                        self.refused("cancel", &refused);
                        return self.end(booking, LiveOutcome::Failed);
                    }
                }
            }
            Some("CANCELLED") => return self.end(booking, LiveOutcome::EndedElsewhere),
            _ if !seen["driver"].as_str().is_some_and(|driver| self.driver_ids.contains_key(driver)) => {
                return self.end(booking, LiveOutcome::EndedElsewhere);
            }
            _ => {}
        }
        // Taken by one of the run's drivers, whose accept answer may still
        // be on its way.
        let mut phase = self.with_ride(booking, |ride| ride.phase.subscribe());
        let ours = timeout(FOLLOW_TIMEOUT, phase.wait_for(|phase| *phase != Phase::Waiting)).await.is_ok();
        if !ours {
            self.end(booking, LiveOutcome::EndedElsewhere);
        }
    }

    /// Every few seconds, the counts so far.
    async fn report(&self, progress: Progress<'_>) {
        let mut done = self.done.subscribe();
        let requests = self.prepared.trips.len();
        loop {
            let line = {
                let tally = self.tally.lock().expect("tally lock");
                let settled = tally.settled as usize;
                let errors: u64 = tally.errors.values().sum();
                (
                    format!(
                        "live: {} booked, {} offers, {} accepted, {} completed, {} cancelled, {errors} errors",
                        tally.booked, tally.offers_seen, tally.accepted, tally.completed, tally.cancelled
                    ),
                    settled.min(requests),
                )
            };
            progress(&line.0, line.1, requests);
            if *done.borrow_and_update() {
                return;
            }
            let _ = timeout(self.options.report_every, done.changed()).await;
        }
    }

    fn summary(&self, url: &str, wall_s: f64) -> LiveSummary {
        let tally = self.tally.lock().expect("tally lock");
        let rides = self.rides.lock().expect("rides lock");
        let mut bookings: Vec<(usize, LiveBooking)> = rides
            .iter()
            .filter_map(|(id, ride)| {
                let request = ride.request?;
                let outcome = match *ride.phase.borrow() {
                    Phase::Ended(outcome) => outcome,
                    Phase::Waiting | Phase::Taken => LiveOutcome::Open,
                };
                let booking = LiveBooking {
                    request: self.prepared.trips[request].id.clone(),
                    booking: id.clone(),
                    rider: ride.rider.map(|rider| self.riders[rider].email.clone()).unwrap_or_default(),
                    driver: ride.driver.map(|driver| self.driver_emails[driver].clone()),
                    outcome,
                };
                Some((request, booking))
            })
            .collect();
        bookings.sort_by_key(|(request, _)| *request);
        LiveSummary {
            url: url.to_string(),
            speed: self.options.speed,
            car_type: self.car_type.clone(),
            drivers: self.driver_emails.len(),
            riders: self.riders.len(),
            requests: self.prepared.trips.len() as u64,
            booked: tally.booked,
            offers_seen: tally.offers_seen,
            accepted: tally.accepted,
            declined: tally.declined,
            lost_races: tally.lost_races,
            foreign_offers: tally.foreign_offers,
            completed: tally.completed,
            cancelled: tally.cancelled,
            positions_sent: tally.positions_sent,
            errors: tally.errors.clone(),
            server_errors: tally.server_errors,
            wall_s,
            bookings: bookings.into_iter().map(|(_, booking)| booking).collect(),
        }
    }
}

/// A drive in progress: a straight line between two places (the legs have
/// a time and a distance, not a shape).
#[derive(Debug, Clone, Copy)]
struct Motion {
    from: Spot,
    to: Spot,
    departed: Instant,
    arrives: Instant,
    /// Metres per second of scenario time, for the app's `speed`.
    speed_ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    ToPickup,
    Boarding,
    OnTrip,
}

/// The booking a driver is running.
struct Job {
    booking: String,
    pickup: Spot,
    drop: Spot,
    stage: Stage,
    due: Instant,
}

/// An answer to an offer, given when the driver model has thought it over.
struct Answer {
    at: Instant,
    booking: String,
    accept: bool,
    /// The pickup and the drop, when they are on the network.
    places: Option<(Spot, Spot)>,
}

/// A demo driver's app, played by the driver model.
struct Driver {
    number: usize,
    person: Person,
    socket: Socket,
    hearing: mpsc::UnboundedReceiver<Heard>,
    rng: StdRng,
    here: Spot,
    motion: Option<Motion>,
    job: Option<Job>,
    answers: Vec<Answer>,
    next_position: Instant,
    next_idle: Option<Instant>,
}

impl Driver {
    /// Goes online, connects its socket and reports where it starts.
    async fn start(run: &Run<'_>, number: usize, person: Person, start: Spot) -> Result<Driver, LiveError> {
        let online = json!({ "driverActiveStatus": true });
        run.api
            .post("/drivers/me/status", &person.token, Some(online))
            .await
            .map_err(|refused| LiveError::Refused { what: format!("{} going online", person.email), refused })?;
        let (socket, hearing) = connect_socket(&run.api, &person, true).await?;
        let seed = run.scenario.seed ^ 0x11fe_d21e ^ (number as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut driver = Driver {
            number,
            person,
            socket,
            hearing,
            rng: StdRng::seed_from_u64(seed),
            here: start,
            motion: None,
            job: None,
            answers: Vec::new(),
            next_position: Instant::now(),
            next_idle: None,
        };
        if let Err(refused) = driver.send_position(run, start.point).await {
            let what = format!("{} reporting its start", driver.person.email);
            return Err(LiveError::Refused { what, refused });
        }
        Ok(driver)
    }

    /// Where the car is now: part-way along its drive.
    fn position(&self, now: Instant) -> LatLng {
        let Some(motion) = self.motion else { return self.here.point };
        let total = motion.arrives.saturating_duration_since(motion.departed).as_secs_f64();
        let share = if total > 0.0 {
            (now.saturating_duration_since(motion.departed).as_secs_f64() / total).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let (from, to) = (motion.from.point, motion.to.point);
        LatLng::new(from.lat + (to.lat - from.lat) * share, from.lng + (to.lng - from.lng) * share)
    }

    /// Stops where the car is, on the network when it can be.
    fn stop(&mut self, run: &Run<'_>) {
        if let Some(motion) = self.motion {
            let point = self.position(Instant::now());
            self.here = run.prepared.travel.spot(point).unwrap_or(motion.from);
            self.motion = None;
        }
    }

    fn drive(&mut self, run: &Run<'_>, to: Spot) -> Instant {
        self.stop(run);
        let leg = run.prepared.travel.leg(&self.here, &to).unwrap_or_else(|| straight(&self.here, &to));
        let now = Instant::now();
        let arrives = now + run.real(leg.time_ms);
        let speed_ms = if leg.time_ms > 0 { leg.distance_m / (leg.time_ms as f64 / 1000.0) } else { 0.0 };
        self.motion = Some(Motion { from: self.here, to, departed: now, arrives, speed_ms });
        arrives
    }

    /// Sends a position over the socket and waits for its ack.
    async fn send_position(&mut self, run: &Run<'_>, point: LatLng) -> Result<(), Refused> {
        let (heading, speed) = match self.motion {
            Some(motion) => (Some(bearing(motion.from.point, motion.to.point)), motion.speed_ms),
            None => (None, 0.0),
        };
        let update = json!({
            "lat": point.lat,
            "lng": point.lng,
            "heading": heading,
            "speed": speed,
            "accuracy": 5,
            "at": epoch_ms(),
        });
        let sent = emit_location(&self.socket, update).await;
        // Counted when the server answered, refusing or not.
        if !matches!(&sent, Err(refused) if refused.status.is_none()) {
            run.count(|tally| tally.positions_sent += 1);
        }
        sent
    }

    /// Plays until every request is settled and no trip is left, then signs off.
    async fn play(mut self, run: &Run<'_>) {
        let mut done = run.done.subscribe();
        // Idle moves follow the scenario's clock, which starts now.
        self.become_idle(run);
        loop {
            if *done.borrow_and_update() && self.job.is_none() {
                break;
            }
            let wake = self.next_wake();
            tokio::select! {
                heard = self.hearing.recv() => match heard {
                    Some(Heard::Offer(offer)) => self.offered(run, &offer),
                    Some(Heard::Withdrawn(booking)) => self.answers.retain(|answer| answer.booking != booking),
                    // The client reconnects by itself; the server sends the offers again.
                    Some(Heard::Closed) => run.refused("socket", &Refused::network("closed")),
                    None => {}
                },
                _ = done.changed() => {}
                () = sleep_until(wake) => {}
            }
            self.due_work(run).await;
        }
        let offline = json!({ "driverActiveStatus": false });
        if let Err(refused) = run.api.post("/drivers/me/status", &self.person.token, Some(offline)).await {
            run.refused("go offline", &refused);
        }
        let _ = self.socket.disconnect().await;
    }

    fn next_wake(&self) -> Instant {
        let mut wake = self.next_position;
        let candidates = [
            self.job.as_ref().map(|job| job.due),
            self.answers.iter().map(|answer| answer.at).min(),
            self.next_idle,
            self.motion.filter(|_| self.job.is_none()).map(|motion| motion.arrives),
        ];
        for at in candidates.into_iter().flatten() {
            wake = wake.min(at);
        }
        wake
    }

    async fn due_work(&mut self, run: &Run<'_>) {
        let now = Instant::now();
        if self.job.as_ref().is_some_and(|job| job.due <= now) {
            self.advance(run).await;
        }
        while let Some(index) = self.answers.iter().position(|answer| answer.at <= Instant::now()) {
            let answer = self.answers.swap_remove(index);
            self.answer(run, answer).await;
        }
        if self.job.is_none() {
            if let Some(motion) = self.motion.filter(|motion| motion.arrives <= Instant::now()) {
                // An idle move ended.
                self.here = motion.to;
                self.motion = None;
                self.become_idle(run);
            }
            if self.next_idle.is_some_and(|at| at <= Instant::now()) {
                self.idle_move(run);
            }
        }
        if self.next_position <= Instant::now() {
            let point = self.position(Instant::now());
            if let Err(refused) = self.send_position(run, point).await {
                run.refused("location", &refused);
            }
            self.next_position = Instant::now() + run.options.position_every;
        }
    }

    /// The driver model hears an offer: whether and when to answer.
    fn offered(&mut self, run: &Run<'_>, offer: &Value) {
        run.count(|tally| tally.offers_seen += 1);
        let booking = &offer["booking"];
        let Some(id) = booking["id"].as_str() else { return };
        if self.answers.iter().any(|answer| answer.booking == id) {
            // Sent again on a reconnect: already being thought over.
            return;
        }
        let point = |place: &Value| {
            LatLng::new(place["lat"].as_f64().unwrap_or(f64::NAN), place["lng"].as_f64().unwrap_or(f64::NAN))
        };
        let (pickup, drop) = (point(&booking["pickup"]), point(&booking["drop"]));
        let ours = booking["customer"].as_str().is_some_and(|customer| run.rider_ids.contains(customer));
        // The run's requests are on the network (`prepare` placed them).
        let places = run.prepared.travel.spot(pickup).zip(run.prepared.travel.spot(drop));
        let model = &run.scenario.drivers;
        let km = if pickup.is_valid() { distance_km(self.position(Instant::now()), pickup) } else { f64::INFINITY };
        let chance = (model.accept_probability - model.accept_decay_per_km * km).clamp(0.0, 1.0);
        let accept = ours && places.is_some() && (chance >= 1.0 || self.rng.random_bool(chance));
        let delay_s = if model.respond_max_s > model.respond_min_s {
            self.rng.random_range(model.respond_min_s..model.respond_max_s)
        } else {
            model.respond_min_s
        };
        if !ours {
            run.count(|tally| tally.foreign_offers += 1);
        }
        let at = Instant::now() + run.real_s(delay_s);
        self.answers.push(Answer { at, booking: id.to_string(), accept, places });
    }

    async fn answer(&mut self, run: &Run<'_>, answer: Answer) {
        let path = |verb: &str| format!("/bookings/{}/{verb}", answer.booking);
        // A driver on a trip says no: the app does not let them hold two bookings.
        let places = answer.places.filter(|_| answer.accept && self.job.is_none());
        let Some((pickup, drop)) = places else {
            match run.api.post(&path("decline"), &self.person.token, None).await {
                Ok(_) => run.count(|tally| tally.declined += 1),
                // Gone before the answer: nothing to decline.
                Err(refused) if refused.is_lost_offer() || refused.code == "status_not_allowed" => {}
                Err(refused) => run.refused("decline", &refused),
            }
            return;
        };
        match run.api.post(&path("accept"), &self.person.token, None).await {
            Ok(_) => {}
            Err(refused) if refused.is_lost_offer() => return run.count(|tally| tally.lost_races += 1),
            Err(refused) => return run.refused("accept", &refused),
        }
        run.count(|tally| tally.accepted += 1);
        let number = self.number;
        run.with_ride(&answer.booking, |ride| {
            ride.driver = Some(number);
            ride.phase.send_if_modified(|phase| {
                let waiting = *phase == Phase::Waiting;
                if waiting {
                    *phase = Phase::Taken;
                }
                waiting
            });
        });
        self.next_idle = None;
        let due = self.drive(run, pickup);
        self.job = Some(Job { booking: answer.booking, pickup, drop, stage: Stage::ToPickup, due });
    }

    /// The next stage of the trip, as the driver app runs it.
    async fn advance(&mut self, run: &Run<'_>) {
        let Some(job) = self.job.as_ref() else { return };
        let (booking, stage, pickup, drop) = (job.booking.clone(), job.stage, job.pickup, job.drop);
        if matches!(run.phase(&booking), Phase::Ended(_)) {
            // The rider cancelled meanwhile.
            return self.free(run);
        }
        let path = |verb: &str| format!("/bookings/{booking}/{verb}");
        let token = self.person.token.clone();
        // The next stage and when it is due; `None` when the trip is paid.
        let next: Result<Option<(Stage, Instant)>, (&str, Refused)> = match stage {
            Stage::ToPickup => {
                self.arrive_at(run, pickup).await;
                match run.api.post(&path("arrive"), &token, None).await {
                    Ok(_) => Ok(Some((Stage::Boarding, Instant::now() + run.real_s(run.scenario.boarding_s as f64)))),
                    Err(refused) => Err(("arrive", refused)),
                }
            }
            Stage::Boarding => {
                // The rider tells the driver the otp, as in the app.
                let otp = run.with_ride(&booking, |ride| ride.otp);
                let body = otp.map_or_else(|| json!({}), |otp| json!({ "otp": otp }));
                match run.api.post(&path("start"), &token, Some(body)).await {
                    Ok(_) => Ok(Some((Stage::OnTrip, self.drive(run, drop)))),
                    Err(refused) => Err(("start", refused)),
                }
            }
            Stage::OnTrip => {
                self.arrive_at(run, drop).await;
                match run.api.post(&path("reach"), &token, None).await {
                    Ok(_) => {
                        let cash = json!({ "payment_mode": "cash" });
                        run.api
                            .post(&path("pay"), &token, Some(cash))
                            .await
                            .map(|_| None)
                            .map_err(|refused| ("pay", refused))
                    }
                    Err(refused) => Err(("reach", refused)),
                }
            }
        };
        match next {
            Ok(Some((stage, due))) => {
                if let Some(job) = self.job.as_mut() {
                    job.stage = stage;
                    job.due = due;
                }
            }
            Ok(None) => {
                run.end(&booking, LiveOutcome::Completed);
                self.free(run);
            }
            Err((action, refused)) => {
                // A refusal after the rider gave up is the race, not a fault.
                if !matches!(run.phase(&booking), Phase::Ended(_)) {
                    run.refused(action, &refused);
                }
                run.end(&booking, LiveOutcome::Failed);
                self.free(run);
            }
        }
    }

    /// Done with the job: stops where the car is and is free for the next.
    fn free(&mut self, run: &Run<'_>) {
        self.stop(run);
        self.job = None;
        self.become_idle(run);
    }

    /// At a stop: the server takes the stage's place from the last position.
    async fn arrive_at(&mut self, run: &Run<'_>, spot: Spot) {
        self.motion = None;
        self.here = spot;
        if let Err(refused) = self.send_position(run, spot.point).await {
            run.refused("location", &refused);
        }
        self.next_position = Instant::now() + run.options.position_every;
    }

    /// Free again: stays, or plans a move per the idle behaviour while
    /// requests are still to come.
    fn become_idle(&mut self, run: &Run<'_>) {
        let model = &run.scenario.drivers;
        let span_ms = run.prepared.trips.last().map_or(0, |trip| trip.at_ms);
        self.next_idle = (model.idle != IdleBehaviour::Stay && run.scenario_now() < span_ms)
            .then(|| Instant::now() + run.real_s(model.idle_every_s as f64));
    }

    fn idle_move(&mut self, run: &Run<'_>) {
        self.next_idle = None;
        let model = &run.scenario.drivers;
        let from = self.here;
        let target = match model.idle {
            IdleBehaviour::Stay => None,
            IdleBehaviour::Return => {
                // Where a request of the last half hour started.
                let trips = &run.prepared.trips;
                let now = run.scenario_now();
                let end = trips.partition_point(|trip| trip.at_ms <= now);
                let begin = trips.partition_point(|trip| trip.at_ms < now - 30 * 60_000);
                (begin < end).then(|| trips[self.rng.random_range(begin..end)].origin)
            }
            IdleBehaviour::Cruise => {
                let km = self.rng.random_range(0.0..model.cruise_km);
                let bearing = self.rng.random_range(0.0..std::f64::consts::TAU);
                let lat = from.point.lat + km * bearing.cos() / 111.195;
                let lng = from.point.lng + km * bearing.sin() / (111.195 * from.point.lat.to_radians().cos());
                run.prepared.travel.spot(LatLng::new(lat, lng))
            }
        };
        match target {
            Some(to) => {
                self.drive(run, to);
            }
            None => self.become_idle(run),
        }
    }
}

/// A drive where the roads give none: a straight line at the straight-line speed.
fn straight(from: &Spot, to: &Spot) -> Leg {
    let km = distance_km(from.point, to.point);
    Leg { time_ms: (km / STRAIGHT_LINE_KMH * 3_600_000.0).round() as i64, distance_m: km * 1000.0 }
}

/// Plays the scenario's drivers and riders against the server at `url`
/// until every request is settled. `progress` hears the setup's stages and
/// then the counts every few seconds.
pub async fn run_live(
    scenario: &Scenario,
    prepared: &Prepared,
    url: &str,
    options: LiveOptions,
    progress: Progress<'_>,
) -> Result<LiveSummary, LiveError> {
    let options = options.checked()?;
    let wall = std::time::Instant::now();
    let api = Api::new(url)?;
    api.health().await?;

    let car_type = match scenario.car_type.as_str() {
        "" => prepared.catalog.car_types.first().map(|car| car.name.clone()).unwrap_or_default(),
        name => name.to_string(),
    };
    let on_server = api
        .call(Method::GET, "/cartypes", None, None)
        .await
        .map_err(|refused| LiveError::Refused { what: "reading the car types".into(), refused })?;
    let known = on_server.as_array().into_iter().flatten().any(|car| car["name"].as_str() == Some(&car_type));
    if !known {
        return Err(LiveError::UnknownCarType(car_type));
    }

    progress("signing in the demo people", 0, 1);
    let admin = api.sign_in(ADMIN_EMAIL).await?;
    let mut driver_emails = api.demo_people(&admin.token, "driver", Some(&car_type)).await?;
    driver_emails.truncate(prepared.vehicles.len());
    if driver_emails.is_empty() {
        return Err(LiveError::NoDrivers(car_type));
    }
    let mut rider_emails = api.demo_people(&admin.token, "rider", None).await?;
    rider_emails.truncate(prepared.trips.len().max(1));
    if rider_emails.is_empty() {
        return Err(LiveError::NoRiders);
    }
    let everyone: Vec<&String> = rider_emails.iter().chain(&driver_emails).collect();
    let total = everyone.len();
    let mut people = Vec::with_capacity(total);
    let mut signing_in = stream::iter(everyone).map(|email| api.sign_in(email)).buffered(SIGN_IN_LANES);
    while let Some(person) = signing_in.next().await {
        people.push(person?);
        progress("signing in the demo people", people.len(), total);
    }
    drop(signing_in);
    let drivers_people = people.split_off(rider_emails.len());
    let riders = people;

    let (done, _) = watch::channel(false);
    let mut run = Run {
        scenario,
        prepared,
        api,
        options,
        car_type,
        rider_ids: riders.iter().map(|rider| rider.id.clone()).collect(),
        riders,
        driver_ids: drivers_people.iter().enumerate().map(|(number, driver)| (driver.id.clone(), number)).collect(),
        driver_emails,
        started: Instant::now(),
        rides: Mutex::new(HashMap::new()),
        tally: Mutex::new(Tally::default()),
        done,
    };
    let mut drivers = Vec::with_capacity(drivers_people.len());
    let fleet = drivers_people.len();
    progress("drivers going online", 0, fleet);
    let mut starting = stream::iter(drivers_people.into_iter().enumerate())
        .map(|(number, person)| Driver::start(&run, number, person, prepared.vehicles[number]))
        .buffered(SIGN_IN_LANES);
    while let Some(driver) = starting.next().await {
        drivers.push(driver?);
        progress("drivers going online", drivers.len(), fleet);
    }
    drop(starting);
    debug_assert_eq!(run.driver_ids.len(), drivers.len());

    // The scenario's clock starts once every driver is on the map.
    run.started = Instant::now();
    let run = &run;
    tokio::join!(run.riders(), join_all(drivers.into_iter().map(|driver| driver.play(run))), run.report(progress));
    Ok(run.summary(url, wall.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_faults_are_5xx_and_malformed_requests_not_refusals() {
        let refused = |status: u16, code: &str| Refused { status: Some(status), code: code.into() };
        assert!(refused(500, "internal_error").is_server_fault());
        assert!(refused(502, "http_502").is_server_fault());
        assert!(refused(400, "invalid_input").is_server_fault());
        assert!(!refused(409, "booking_taken").is_server_fault());
        assert!(!refused(400, "no_route_found").is_server_fault());
        assert!(!Refused::network("connection refused").is_server_fault());
        assert!(refused(409, "booking_taken").is_lost_offer());
        assert!(refused(403, "not_offered").is_lost_offer());
        assert!(!refused(409, "status_not_allowed").is_lost_offer());
    }

    #[test]
    fn network_failures_share_one_key_in_the_errors() {
        assert_eq!(Refused::network("connection reset by peer").key(), "network");
        assert_eq!(Refused { status: Some(409), code: "booking_taken".into() }.key(), "booking_taken");
    }

    #[test]
    fn headings_are_degrees_clockwise_from_north() {
        let here = LatLng::new(39.28, -76.58);
        let close = |actual: f64, expected: f64| assert!((actual - expected).abs() < 0.5, "{actual} vs {expected}");
        close(bearing(here, LatLng::new(39.29, -76.58)), 0.0);
        close(bearing(here, LatLng::new(39.28, -76.57)), 90.0);
        close(bearing(here, LatLng::new(39.27, -76.58)), 180.0);
        close(bearing(here, LatLng::new(39.28, -76.59)), 270.0);
    }

    #[test]
    fn a_speed_that_is_not_a_positive_number_is_refused() {
        for speed in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let options = LiveOptions { speed, ..LiveOptions::default() };
            assert!(matches!(options.checked(), Err(LiveError::BadSpeed(_))), "{speed}");
        }
        assert!(LiveOptions { speed: 0.5, ..LiveOptions::default() }.checked().is_ok());
    }
}
