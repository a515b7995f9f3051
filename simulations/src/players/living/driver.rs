//! A demo driver's day: shifts and breaks, and on shift the driver's app as
//! its person runs it (offers heard and answered, trips driven stage by
//! stage, idle cruising), all through the server's API.

use super::{LivingStats, Path, Shared, between, minutes};
use crate::players::client::{Heard, Person, connect_socket, emit_location, epoch_ms};
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rust_socketio::asynchronous::Client as Socket;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, sleep_until};
use wayfare_engine::LatLng;

/// How often a driver's app reports its position.
const POSITION_EVERY: Duration = Duration::from_secs(3);
/// How often a driver on the way to a pickup checks the booking still stands.
const DRIVER_LOOKS_EVERY: Duration = Duration::from_secs(10);

/// The driver model: the share of offers accepted and declined (the rest
/// lapse unanswered), and the seconds taken to answer.
const ACCEPT: f64 = 0.8;
const DECLINE: f64 = 0.1;
const ANSWER_S: (f64, f64) = (2.0, 9.0);
/// Minutes on shift, and on a break between shifts (real time).
const SHIFT_MIN: (f64, f64) = (45.0, 150.0);
const BREAK_MIN: (f64, f64) = (5.0, 25.0);
/// The share of drivers on shift when the demo starts (the rest start with a break).
const ON_SHIFT_AT_START: f64 = 0.85;
/// The chance an idle driver drives round the neighbourhood at each look.
const CRUISE: f64 = 0.7;
/// Seconds a rider takes to get in, in demo time.
const BOARDING_S: (f64, f64) = (20.0, 50.0);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    ToPickup,
    Boarding,
    OnTrip,
}

/// The booking a driver is running.
struct Job {
    booking: String,
    pickup: LatLng,
    drop: LatLng,
    stage: Stage,
    due: Instant,
    otp: Option<u64>,
    cash: bool,
    next_look: Instant,
}

/// An answer to an offer, given when the driver has thought it over.
struct Answer {
    at: Instant,
    booking: String,
    pickup: LatLng,
    drop: LatLng,
    /// `None`: the offer is left to lapse.
    accept: Option<bool>,
}

/// A demo driver at work: signed in, online, its socket open.
struct OnShift<'a> {
    shared: &'a Shared,
    person: &'a Person,
    socket: Socket,
    hearing: mpsc::UnboundedReceiver<Heard>,
    here: LatLng,
    path: Option<Path>,
    job: Option<Job>,
    answers: Vec<Answer>,
    next_position: Instant,
    next_idle: Instant,
    /// Set off at least once this shift (the first look always does).
    cruised: bool,
}

/// One driver's days: shifts and breaks while the demo is on, offline when it is off.
pub(super) async fn drive(shared: Arc<Shared>, number: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let person = &shared.city.drivers[number];
    let mut switch = shared.switch.clone();
    let mut here = shared.place(&mut rng, shared.city.centre, 0.0, shared.city.radius_km);
    // Most start within the first half minute; the others are on a break.
    let mut duty_at = Instant::now()
        + if rng.random_bool(ON_SHIFT_AT_START) {
            Duration::from_secs_f64(rng.random_range(0.0..30.0))
        } else {
            minutes(&mut rng, (2.0, 10.0))
        };
    // Only what this player put online is taken offline: while the demo is
    // off (and before its switch is first read) a person may drive the account.
    let mut left_online = false;
    loop {
        if !switch.borrow_and_update().on {
            if left_online {
                left_online = !set_online(&shared, person, false).await;
            }
            if switch.changed().await.is_err() {
                return;
            }
            continue;
        }
        if Instant::now() < duty_at {
            tokio::select! {
                () = sleep_until(duty_at) => {}
                changed = switch.changed() => if changed.is_err() { return },
            }
            continue;
        }
        let shift = minutes(&mut rng, SHIFT_MIN);
        // `None`: it could not go online, and tries again after a break.
        if let Some(left_at) = work(&shared, number, here, Instant::now() + shift, &mut rng).await {
            here = left_at;
        }
        left_online = !set_online(&shared, person, false).await;
        duty_at = Instant::now() + minutes(&mut rng, BREAK_MIN);
    }
}

/// Posts the driver's status; true when the server took it.
async fn set_online(shared: &Shared, person: &Person, online: bool) -> bool {
    match shared.api.post("/drivers/me/status", &person.token, Some(json!({ "driverActiveStatus": online }))).await {
        Ok(_) => true,
        Err(refused) => {
            shared.refused("status", &refused);
            false
        }
    }
}

/// A shift: online until it ends or the demo is switched off, and no rider
/// is waiting on this driver. Where the car stopped, or `None` when it
/// could not go online.
async fn work(shared: &Shared, number: usize, here: LatLng, ends: Instant, rng: &mut StdRng) -> Option<LatLng> {
    let person = &shared.city.drivers[number];
    if !set_online(shared, person, true).await {
        sleep(Duration::from_secs(30)).await;
        return None;
    }
    let (socket, hearing) = match connect_socket(&shared.api, person, false).await {
        Ok(connected) => connected,
        Err(_) => {
            LivingStats::add(&shared.stats.errors);
            sleep(Duration::from_secs(30)).await;
            return None;
        }
    };
    shared.sockets.open(number, socket.clone());
    LivingStats::add(&shared.stats.online);
    let now = Instant::now();
    let mut shift = OnShift {
        shared,
        person,
        socket,
        hearing,
        here,
        path: None,
        job: None,
        answers: Vec::new(),
        next_position: now,
        // Soon out on the roads: a city where nothing moves looks dead.
        next_idle: now + Duration::from_secs_f64(rng.random_range(3.0..20.0)),
        cruised: false,
    };
    // The socket closed (the server dropped it): no more offers; the shift
    // ends once the car is free, and the next one connects afresh.
    let mut closed = false;
    loop {
        if shift.job.is_none() && (closed || Instant::now() >= ends || !shared.on()) {
            break;
        }
        let wake = shift.next_wake();
        tokio::select! {
            heard = shift.hearing.recv(), if !closed => match heard {
                Some(Heard::Offer(offer)) => shift.offered(&offer, rng),
                Some(Heard::Withdrawn(booking)) => shift.answers.retain(|answer| answer.booking != booking),
                Some(Heard::Closed) | None => closed = true,
            },
            () = sleep_until(wake) => {}
        }
        shift.due_work(rng).await;
    }
    let (stopped, _, _) = shift.position(Instant::now());
    shared.sockets.closed(number);
    let _ = shift.socket.disconnect().await;
    shared.stats.online.fetch_sub(1, Ordering::Relaxed);
    Some(stopped)
}

impl OnShift<'_> {
    fn position(&self, now: Instant) -> (LatLng, Option<f64>, f64) {
        match &self.path {
            Some(path) => path.at(now),
            None => (self.here, None, 0.0),
        }
    }

    fn next_wake(&self) -> Instant {
        let mut wake = self.next_position;
        let candidates = [
            self.job.as_ref().map(|job| job.due.min(job.next_look)),
            self.answers.iter().map(|answer| answer.at).min(),
            self.job.is_none().then_some(self.next_idle),
        ];
        for at in candidates.into_iter().flatten() {
            wake = wake.min(at);
        }
        wake
    }

    /// An offer heard: whether and when to answer it.
    fn offered(&mut self, offer: &Value, rng: &mut StdRng) {
        let booking = &offer["booking"];
        let Some(id) = booking["id"].as_str() else { return };
        if self.answers.iter().any(|answer| answer.booking == id) {
            return;
        }
        let point = |place: &Value| {
            LatLng::new(place["lat"].as_f64().unwrap_or(f64::NAN), place["lng"].as_f64().unwrap_or(f64::NAN))
        };
        let (pickup, drop) = (point(&booking["pickup"]), point(&booking["drop"]));
        let roll = rng.random::<f64>();
        let accept = if !pickup.is_valid() || !drop.is_valid() || self.job.is_some() {
            Some(false)
        } else if roll < ACCEPT {
            Some(true)
        } else if roll < ACCEPT + DECLINE {
            Some(false)
        } else {
            None
        };
        let at = Instant::now() + Duration::from_secs_f64(between(rng, ANSWER_S));
        self.answers.push(Answer { at, booking: id.to_string(), pickup, drop, accept });
    }

    async fn due_work(&mut self, rng: &mut StdRng) {
        while let Some(index) = self.answers.iter().position(|answer| answer.at <= Instant::now()) {
            let answer = self.answers.swap_remove(index);
            self.answer(answer).await;
        }
        if let Some(job) = &self.job {
            let now = Instant::now();
            if job.due <= now {
                self.advance(rng).await;
            } else if job.next_look <= now {
                self.look().await;
            }
        }
        if self.job.is_none() && self.next_idle <= Instant::now() {
            self.idle_move(rng).await;
        }
        if self.next_position <= Instant::now() {
            self.report().await;
        }
    }

    async fn report(&mut self) {
        let (point, heading, speed) = self.position(Instant::now());
        let update = json!({
            "lat": point.lat,
            "lng": point.lng,
            "heading": heading,
            "speed": speed,
            "accuracy": 5,
            "at": epoch_ms(),
        });
        match emit_location(&self.socket, update).await {
            Ok(()) => LivingStats::add(&self.shared.stats.positions),
            Err(refused) => self.shared.refused("location", &refused),
        }
        self.next_position = Instant::now() + POSITION_EVERY;
    }

    /// Sets off along the roads to `to`; when it will be there.
    async fn set_off(&mut self, to: LatLng) -> Instant {
        let (from, _, _) = self.position(Instant::now());
        self.here = from;
        let path = self.shared.route(&self.person.token, from, to).await;
        let arrives = path.arrives;
        self.path = Some(path);
        arrives
    }

    /// At a stop: the car is there, and the server hears it before the stage.
    async fn stop_at(&mut self, spot: LatLng) {
        self.path = None;
        self.here = spot;
        self.report().await;
    }

    async fn answer(&mut self, answer: Answer) {
        let path = |verb: &str| format!("/bookings/{}/{verb}", answer.booking);
        let token = &self.person.token;
        let accept = match answer.accept {
            None => {
                LivingStats::add(&self.shared.stats.lapsed);
                return;
            }
            Some(accept) => accept && self.job.is_none(),
        };
        if !accept {
            match self.shared.api.post(&path("decline"), token, None).await {
                Ok(_) => LivingStats::add(&self.shared.stats.declined),
                Err(refused) if refused.is_lost_offer() || refused.code == "status_not_allowed" => {}
                Err(refused) => self.shared.refused("decline", &refused),
            }
            return;
        }
        match self.shared.api.post(&path("accept"), token, None).await {
            Ok(_) => {}
            Err(refused) if refused.is_lost_offer() => return,
            Err(refused) => return self.shared.refused("accept", &refused),
        }
        LivingStats::add(&self.shared.stats.accepted);
        // The rider tells the driver the code at the car; the demo reads it
        // as an admin sees the booking.
        let read = format!("/bookings/{}", answer.booking);
        let seen = self.shared.api.get(&read, &self.shared.city.admin.token).await.unwrap_or(Value::Null);
        let otp = seen["otp"].as_u64().or_else(|| seen["otp"].as_str().and_then(|otp| otp.parse().ok()));
        let cash = seen["payment_mode"].as_str().is_none_or(|mode| mode == "cash");
        let due = self.set_off(answer.pickup).await;
        self.job = Some(Job {
            booking: answer.booking,
            pickup: answer.pickup,
            drop: answer.drop,
            stage: Stage::ToPickup,
            due,
            otp,
            cash,
            next_look: Instant::now() + DRIVER_LOOKS_EVERY,
        });
    }

    /// On the way to a pickup: the rider may have cancelled.
    async fn look(&mut self) {
        let Some(job) = self.job.as_mut() else { return };
        job.next_look = Instant::now() + DRIVER_LOOKS_EVERY;
        if job.stage != Stage::ToPickup {
            return;
        }
        let booking = job.booking.clone();
        if let Ok(seen) = self.shared.api.get(&format!("/bookings/{booking}"), &self.person.token).await
            && seen["status"] == "CANCELLED"
        {
            self.free();
        }
    }

    /// The next stage of the trip, as the driver's app runs it.
    async fn advance(&mut self, rng: &mut StdRng) {
        let Some(job) = self.job.as_ref() else { return };
        let (booking, stage, pickup, drop, otp, cash) =
            (job.booking.clone(), job.stage, job.pickup, job.drop, job.otp, job.cash);
        let path = |verb: &str| format!("/bookings/{booking}/{verb}");
        let token = self.person.token.clone();
        let api = self.shared.api.clone();
        let next = match stage {
            Stage::ToPickup => {
                self.stop_at(pickup).await;
                let boarding = self.shared.real_s(between(rng, BOARDING_S));
                api.post(&path("arrive"), &token, None)
                    .await
                    .map(|_| Some((Stage::Boarding, Instant::now() + boarding)))
                    .map_err(|refused| ("arrive", refused))
            }
            Stage::Boarding => {
                let body = otp.map_or_else(|| json!({}), |otp| json!({ "otp": otp }));
                match api.post(&path("start"), &token, Some(body)).await {
                    Ok(_) => Ok(Some((Stage::OnTrip, self.set_off(drop).await))),
                    Err(refused) => Err(("start", refused)),
                }
            }
            Stage::OnTrip => {
                self.stop_at(drop).await;
                match api.post(&path("reach"), &token, None).await {
                    // Cash is the driver's to confirm; a wallet or card rider pays in their app.
                    Ok(_) if cash => api
                        .post(&path("pay"), &token, Some(json!({ "payment_mode": "cash" })))
                        .await
                        .map(|_| None)
                        .map_err(|refused| ("pay", refused)),
                    Ok(_) => Ok(None),
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
                LivingStats::add(&self.shared.stats.completed);
                self.free();
            }
            Err((action, refused)) => {
                // Cancelled by the rider meanwhile is the race of any trip.
                if refused.code != "status_not_allowed" {
                    self.shared.refused(action, &refused);
                }
                self.free();
            }
        }
    }

    /// Done with the job: stops where the car is, free for the next.
    fn free(&mut self) {
        let (here, _, _) = self.position(Instant::now());
        self.here = here;
        self.path = None;
        self.job = None;
        self.next_idle = Instant::now() + Duration::from_secs(90);
    }

    /// Idle: now and then a drive round the neighbourhood, back towards the
    /// middle of town when far out.
    async fn idle_move(&mut self, rng: &mut StdRng) {
        self.next_idle = Instant::now() + Duration::from_secs_f64(rng.random_range(60.0..180.0));
        let driving = self.path.as_ref().is_some_and(|path| path.arrives > Instant::now());
        if driving || (self.cruised && !rng.random_bool(CRUISE)) {
            return;
        }
        self.cruised = true;
        let (from, _, _) = self.position(Instant::now());
        let to = self.shared.place(rng, from, 0.4, 2.0);
        let arrives = self.set_off(to).await;
        self.next_idle = self.next_idle.max(arrives);
    }
}
