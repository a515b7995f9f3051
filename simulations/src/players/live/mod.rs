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
//!
//! This file holds the run and its riders; [`driver`] plays the drivers'
//! apps and [`summary`] is what the run reports.

mod driver;
mod summary;

pub use summary::{LiveBooking, LiveOutcome, LiveSummary, write_summary};

use crate::players::client::{Api, LiveError, Person, Refused};
use crate::scenario::Scenario;
use crate::sim::REASON_RIDER_GAVE_UP;
use crate::{Prepared, Progress};
use driver::Driver;
use futures_util::future::join_all;
use futures_util::stream::{self, FuturesUnordered, StreamExt};
use reqwest::Method;
use serde_json::json;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::{Instant, sleep_until, timeout, timeout_at};
use wayfare_engine::LatLng;

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
    fn a_speed_that_is_not_a_positive_number_is_refused() {
        for speed in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let options = LiveOptions { speed, ..LiveOptions::default() };
            assert!(matches!(options.checked(), Err(LiveError::BadSpeed(_))), "{speed}");
        }
        assert!(LiveOptions { speed: 0.5, ..LiveOptions::default() }.checked().is_ok());
    }
}
