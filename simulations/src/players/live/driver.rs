//! A demo driver's app in live mode, played by the scenario's driver
//! model: it goes online, reports its position, thinks offers over,
//! runs the trips it wins stage by stage and moves when idle.

use super::{LiveOutcome, Phase, Run};
use crate::players::client::{Heard, LiveError, Person, Refused, bearing, connect_socket, emit_location, epoch_ms};
use crate::scenario::IdleBehaviour;
use crate::travel::{Leg, STRAIGHT_LINE_KMH, Spot};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_socketio::asynchronous::Client as Socket;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};
use wayfare_engine::LatLng;
use wayfare_engine::geo::distance_km;

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
pub(super) struct Driver {
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
    pub(super) async fn start(run: &Run<'_>, number: usize, person: Person, start: Spot) -> Result<Driver, LiveError> {
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
    pub(super) async fn play(mut self, run: &Run<'_>) {
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
                self.idle_move(run).await;
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

    async fn idle_move(&mut self, run: &Run<'_>) {
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
            IdleBehaviour::Reposition => {
                // The area the server shows this driver, as the app would fetch it.
                match run.api.get("/drivers/me/area", &self.person.token).await {
                    Ok(answer) => serde_json::from_value::<LatLng>(answer["area"]["center"].clone())
                        .ok()
                        .and_then(|center| run.prepared.travel.spot(center)),
                    Err(refused) => {
                        run.refused("area", &refused);
                        None
                    }
                }
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
