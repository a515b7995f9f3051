//! The living demo (issue #35): the demo city's drivers and riders played
//! against a running server, for as long as it runs, so a newcomer finds a
//! city at work. `wayfare serve --demo` starts it beside itself; its people
//! are the demo users marked `demo` (never the people's accounts), signed in
//! by the server, and everything they do goes through the public REST API
//! and the drivers' Socket.IO, as the apps do: the server dispatches,
//! prices and checks every stage.
//!
//! The people follow the same kind of models as the simulator's and live
//! mode's ([`super::live`]): drivers work shifts with breaks, cruise when
//! idle, drive along the roads the server's directions give, answer offers
//! after a few seconds (most accept, some decline, some let the offer lapse)
//! and run their trips to payment; riders book at the panel's rate
//! (`livingDemoBookingsPerHour`), pay in cash or from their wallet, rate
//! most trips and give up when nobody comes. The panel's `livingDemo`
//! switch, read every few seconds, stops new bookings and sends the drivers
//! home once they are not carrying a rider.

mod driver;

use crate::players::client::{Api, Person, Refused, bearing};
use driver::drive;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_socketio::asynchronous::Client as Socket;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep, sleep_until};
use wayfare_engine::LatLng;
use wayfare_engine::geo::distance_km;

/// How often the switch and the rate are read.
const SETTINGS_EVERY: Duration = Duration::from_secs(5);
/// How often a rider's app looks at its booking.
const RIDER_LOOKS_EVERY: Duration = Duration::from_secs(3);
/// Speed where the roads give no route, km/h.
const STRAIGHT_KMH: f64 = 30.0;
/// The car types a demo rider chooses, and how often (the demo's catalogue).
const CAR_CHOICE: [(&str, f64); 3] = [("Economy", 0.6), ("Comfort", 0.25), ("XL", 0.15)];
/// Reasons a demo rider gives, from the demo's cancellation reasons.
const GAVE_UP: [&str; 2] = ["Changed my plans", "Found another ride"];
const DRIVER_LATE: &str = "Driver is taking too long";
/// How long a rider waits for a driver before giving up, minutes (real
/// time; past the server's `noDriverCancelMinutes` the server gives up first).
const PATIENCE_MIN: (f64, f64) = (4.0, 14.0);
/// Minutes after acceptance a rider still waiting at the pickup cancels.
const LATE_DRIVER_MIN: f64 = 20.0;

/// What the server gives the living demo: its own address, an admin's
/// session (to read the switch and, as the rider tells it, a booking's
/// code) and the sessions of the people to play.
pub struct LivingCity {
    pub url: String,
    pub admin: Person,
    pub drivers: Vec<Person>,
    pub riders: Vec<Person>,
    /// Riders book within `radius_km` of here.
    pub centre: LatLng,
    pub radius_km: f64,
    /// Demo seconds per real second for drives and boarding (1: real time;
    /// the tests speed trips up). Offers and the server's timers keep real time.
    pub speed: f64,
    pub seed: u64,
}

/// What the living demo has done since it started, for the server's log and tests.
#[derive(Debug, Default)]
pub struct LivingStats {
    pub booked: AtomicU64,
    pub accepted: AtomicU64,
    pub declined: AtomicU64,
    pub lapsed: AtomicU64,
    pub completed: AtomicU64,
    pub cancelled: AtomicU64,
    pub positions: AtomicU64,
    pub online: AtomicU64,
    pub errors: AtomicU64,
}

impl LivingStats {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// One line for the server's log.
    pub fn line(&self) -> String {
        let read = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        format!(
            "{} drivers online; {} booked, {} accepted, {} declined, {} lapsed, {} completed, {} cancelled; {} positions, {} errors",
            read(&self.online),
            read(&self.booked),
            read(&self.accepted),
            read(&self.declined),
            read(&self.lapsed),
            read(&self.completed),
            read(&self.cancelled),
            read(&self.positions),
            read(&self.errors),
        )
    }
}

/// The panel's switch and rate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Switch {
    on: bool,
    per_hour: u32,
}

/// The demo drivers' open sockets, so a stopping server closes them before
/// its own: a player's task is aborted, but its client's connection is not.
#[derive(Clone, Default)]
pub struct Sockets(Arc<Mutex<HashMap<usize, Socket>>>);

impl Sockets {
    fn open(&self, driver: usize, socket: Socket) {
        self.0.lock().expect("sockets lock").insert(driver, socket);
    }

    fn closed(&self, driver: usize) {
        self.0.lock().expect("sockets lock").remove(&driver);
    }

    /// Disconnects every socket still open (each given a moment).
    pub async fn close_all(&self) {
        let open: Vec<Socket> = self.0.lock().expect("sockets lock").drain().map(|(_, socket)| socket).collect();
        for socket in open {
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.disconnect()).await;
        }
    }
}

struct Shared {
    api: Api,
    city: LivingCity,
    switch: watch::Receiver<Switch>,
    stats: Arc<LivingStats>,
    /// Riders with a booking under way: one at a time each.
    riding: Mutex<HashSet<usize>>,
    sockets: Sockets,
}

impl Shared {
    fn on(&self) -> bool {
        self.switch.borrow().on
    }

    /// Refusals the demo meets now and then (an offer taken by another
    /// driver, a booking cancelled meanwhile) are counted, not logged one by one.
    fn refused(&self, _action: &str, _refused: &Refused) {
        LivingStats::add(&self.stats.errors);
    }

    /// Real time for demo seconds.
    fn real_s(&self, demo_s: f64) -> Duration {
        Duration::from_secs_f64((demo_s / self.city.speed).max(0.0))
    }

    fn place(&self, rng: &mut StdRng, around: LatLng, from_km: f64, to_km: f64) -> LatLng {
        place_within(rng, self.city.centre, self.city.radius_km, around, from_km, to_km)
    }

    /// The route the server's maps give, as the driver's app asks for it.
    async fn route(&self, token: &str, from: LatLng, to: LatLng) -> Path {
        let body = json!({ "start": point_json(from), "dest": point_json(to) });
        if let Ok(route) = self.api.post("/geo/directions", token, Some(body)).await {
            let points: Vec<LatLng> = route["coords"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|coord| Some(LatLng::new(coord["latitude"].as_f64()?, coord["longitude"].as_f64()?)))
                .collect();
            let secs = route["time_in_secs"].as_f64().unwrap_or(0.0);
            if points.len() >= 2 && secs > 0.0 {
                return Path::new(points, self.real_s(secs));
            }
        }
        let km = distance_km(from, to);
        Path::new(vec![from, to], self.real_s(km / STRAIGHT_KMH * 3600.0))
    }
}

/// A place `from_km` to `to_km` from `around`, within `radius_km` of
/// `centre` (anywhere within it when a few draws fall outside).
fn place_within(rng: &mut StdRng, centre: LatLng, radius_km: f64, around: LatLng, from_km: f64, to_km: f64) -> LatLng {
    for _ in 0..8 {
        let point = offset(around, rng.random_range(from_km..to_km), rng.random_range(0.0..std::f64::consts::TAU));
        if distance_km(centre, point) <= radius_km {
            return point;
        }
    }
    offset(centre, rng.random_range(0.0..radius_km), rng.random_range(0.0..std::f64::consts::TAU))
}

fn offset(from: LatLng, km: f64, bearing: f64) -> LatLng {
    let lat = from.lat + km * bearing.cos() / 111.195;
    let lng = from.lng + km * bearing.sin() / (111.195 * from.lat.to_radians().cos());
    LatLng::new(lat, lng)
}

fn point_json(point: LatLng) -> Value {
    json!({ "lat": point.lat, "lng": point.lng })
}

fn between(rng: &mut StdRng, (low, high): (f64, f64)) -> f64 {
    if high > low { rng.random_range(low..high) } else { low }
}

fn minutes(rng: &mut StdRng, range: (f64, f64)) -> Duration {
    Duration::from_secs_f64(between(rng, range) * 60.0)
}

/// A drive along a line of points, at an even pace.
#[derive(Debug, Clone)]
struct Path {
    points: Vec<LatLng>,
    /// Km from the first point to each point.
    along: Vec<f64>,
    departed: Instant,
    arrives: Instant,
}

impl Path {
    fn new(points: Vec<LatLng>, takes: Duration) -> Path {
        let mut along = Vec::with_capacity(points.len());
        let mut total = 0.0;
        for (index, point) in points.iter().enumerate() {
            if index > 0 {
                total += distance_km(points[index - 1], *point);
            }
            along.push(total);
        }
        let departed = Instant::now();
        Path { points, along, departed, arrives: departed + takes }
    }

    fn km(&self) -> f64 {
        self.along.last().copied().unwrap_or(0.0)
    }

    fn end(&self) -> LatLng {
        self.points.last().copied().unwrap_or(LatLng::new(0.0, 0.0))
    }

    /// Where the car is at `now`, its heading, and its speed in m/s.
    fn at(&self, now: Instant) -> (LatLng, Option<f64>, f64) {
        let total = self.arrives.saturating_duration_since(self.departed).as_secs_f64();
        if total <= 0.0 || now >= self.arrives {
            return (self.end(), None, 0.0);
        }
        let share = (now.saturating_duration_since(self.departed).as_secs_f64() / total).clamp(0.0, 1.0);
        let target = share * self.km();
        let next = self.along.partition_point(|km| *km < target).clamp(1, self.points.len() - 1);
        let (from, to) = (self.points[next - 1], self.points[next]);
        let leg = self.along[next] - self.along[next - 1];
        let part = if leg > 0.0 { ((target - self.along[next - 1]) / leg).clamp(0.0, 1.0) } else { 1.0 };
        let here = LatLng::new(from.lat + (to.lat - from.lat) * part, from.lng + (to.lng - from.lng) * part);
        (here, Some(bearing(from, to)), self.km() * 1000.0 / total)
    }
}

/// Plays the city until the task is dropped (the server aborts it when it stops).
pub async fn run(city: LivingCity, stats: Arc<LivingStats>, sockets: Sockets) {
    let api = match Api::new(&city.url) {
        Ok(api) => api,
        Err(_) => return,
    };
    // The server answers before anyone plays.
    while api.health().await.is_err() {
        sleep(Duration::from_millis(200)).await;
    }
    let (switch_tx, switch) = watch::channel(Switch { on: false, per_hour: 0 });
    let seed = city.seed;
    let drivers = city.drivers.len();
    let shared = Arc::new(Shared { api, city, switch, stats, riding: Mutex::new(HashSet::new()), sockets });
    let mut tasks = JoinSet::new();
    tasks.spawn(read_switch(shared.clone(), switch_tx));
    tasks.spawn(book(shared.clone(), seed));
    for number in 0..drivers {
        tasks.spawn(drive(shared.clone(), number, seed ^ (number as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    }
    while tasks.join_next().await.is_some() {}
}

/// Reads the panel's switch and rate every few seconds.
async fn read_switch(shared: Arc<Shared>, switch: watch::Sender<Switch>) {
    loop {
        match shared.api.get("/settings", &shared.city.admin.token).await {
            Ok(settings) => {
                let read = Switch {
                    on: settings["livingDemo"].as_bool().unwrap_or(false),
                    per_hour: settings["livingDemoBookingsPerHour"].as_u64().unwrap_or(0).min(u64::from(u32::MAX))
                        as u32,
                };
                switch.send_if_modified(|current| {
                    let changed = *current != read;
                    *current = read;
                    changed
                });
            }
            Err(refused) => shared.refused("settings", &refused),
        }
        sleep(SETTINGS_EVERY).await;
    }
}

/// The riders: bookings at the panel's rate, each by a rider with none under way.
async fn book(shared: Arc<Shared>, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0xb00c);
    let mut switch = shared.switch.clone();
    let mut rides = JoinSet::new();
    loop {
        let now = *switch.borrow_and_update();
        if !now.on || now.per_hour == 0 || shared.city.riders.is_empty() {
            tokio::select! {
                changed = switch.changed() => if changed.is_err() { return },
                Some(_) = rides.join_next(), if !rides.is_empty() => {}
            }
            continue;
        }
        // Bookings arrive as a Poisson process at the rate.
        let gap = -(1.0 - rng.random::<f64>()).ln() * 3600.0 / f64::from(now.per_hour);
        let due = Instant::now() + Duration::from_secs_f64(gap);
        loop {
            tokio::select! {
                () = sleep_until(due) => break,
                changed = switch.changed() => if changed.is_err() { return } else { break },
                Some(_) = rides.join_next(), if !rides.is_empty() => {}
            }
        }
        if Instant::now() < due || !shared.on() {
            continue;
        }
        let free: Vec<usize> = {
            let riding = shared.riding.lock().expect("riding lock");
            (0..shared.city.riders.len()).filter(|rider| !riding.contains(rider)).collect()
        };
        if free.is_empty() {
            continue;
        }
        let rider = free[rng.random_range(0..free.len())];
        shared.riding.lock().expect("riding lock").insert(rider);
        let ride_seed = rng.random();
        let shared = shared.clone();
        rides.spawn(async move {
            ride(&shared, rider, ride_seed).await;
            shared.riding.lock().expect("riding lock").remove(&rider);
        });
    }
}

/// One rider's booking, from the request to the rating.
async fn ride(shared: &Shared, rider_number: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let rider = &shared.city.riders[rider_number];
    let pickup = shared.place(&mut rng, shared.city.centre, 0.0, shared.city.radius_km);
    let drop = shared.place(&mut rng, pickup, 1.0, 5.0);
    let mut pick = rng.random::<f64>();
    let car = CAR_CHOICE.iter().find(|(_, share)| {
        pick -= share;
        pick < 0.0
    });
    let car = car.map_or(CAR_CHOICE[0].0, |(name, _)| name);
    // Some riders pay from their wallet when it holds enough for a ride.
    let balance = match shared.api.get("/auth/me", &rider.token).await {
        Ok(me) => me["walletBalance"].as_f64().unwrap_or(0.0),
        Err(_) => 0.0,
    };
    let mode = if balance >= 60.0 && rng.random_bool(0.4) { "wallet" } else { "cash" };
    let place = |point: LatLng| json!({ "lat": point.lat, "lng": point.lng, "add": "" });
    let body = json!({
        "pickup": place(pickup),
        "drop": place(drop),
        "carType": car,
        "bookLater": false,
        "payment_mode": mode,
    });
    let booking = match shared.api.post("/bookings", &rider.token, Some(body)).await {
        Ok(created) => match created["id"].as_str() {
            Some(id) => id.to_string(),
            None => return,
        },
        Err(refused) => return shared.refused("book", &refused),
    };
    LivingStats::add(&shared.stats.booked);
    let path = |verb: &str| format!("/bookings/{booking}/{verb}");
    let booked_at = Instant::now();
    let patience = minutes(&mut rng, PATIENCE_MIN);
    let mut accepted_at: Option<Instant> = None;
    let mut paying = false;
    loop {
        sleep(RIDER_LOOKS_EVERY).await;
        let seen = match shared.api.get(&format!("/bookings/{booking}"), &rider.token).await {
            Ok(seen) => seen,
            Err(refused) => {
                shared.refused("read booking", &refused);
                continue;
            }
        };
        let cancel_with = match seen["status"].as_str().unwrap_or_default() {
            // Nobody came in time, or the demo was switched off meanwhile.
            "NEW" if booked_at.elapsed() >= patience || !shared.on() => {
                Some(GAVE_UP[rng.random_range(0..GAVE_UP.len())])
            }
            "ACCEPTED" => {
                let since = *accepted_at.get_or_insert_with(Instant::now);
                (since.elapsed() >= Duration::from_secs_f64(LATE_DRIVER_MIN * 60.0)).then_some(DRIVER_LATE)
            }
            "REACHED" if mode == "wallet" && !paying => {
                paying = true;
                if let Err(refused) =
                    shared.api.post(&path("pay"), &rider.token, Some(json!({ "payment_mode": "wallet" }))).await
                {
                    shared.refused("pay", &refused);
                }
                None
            }
            "PAID" => {
                // Most riders rate, mostly well; the rest skip it.
                let body = if rng.random_bool(0.85) {
                    json!({ "rating": if rng.random_bool(0.7) { 5 } else { rng.random_range(3..=4) } })
                } else {
                    json!({ "skip": true })
                };
                if let Err(refused) = shared.api.post(&path("rate"), &rider.token, Some(body)).await {
                    shared.refused("rate", &refused);
                }
                return;
            }
            "COMPLETE" => return,
            "CANCELLED" => {
                LivingStats::add(&shared.stats.cancelled);
                return;
            }
            _ => None,
        };
        if let Some(reason) = cancel_with {
            match shared.api.post(&path("cancel"), &rider.token, Some(json!({ "reason": reason }))).await {
                Ok(_) => {
                    LivingStats::add(&shared.stats.cancelled);
                    return;
                }
                // Taken in between: the ride goes on.
                Err(refused) if refused.status == Some(409) => {}
                Err(refused) => shared.refused("cancel", &refused),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_driven_at_an_even_pace_along_its_points() {
        let points = vec![LatLng::new(39.28, -76.60), LatLng::new(39.29, -76.60), LatLng::new(39.29, -76.59)];
        let path = Path::new(points.clone(), Duration::from_secs(100));
        let (start, _, _) = path.at(path.departed);
        assert!(distance_km(start, points[0]) < 0.001);
        let first_leg = distance_km(points[0], points[1]);
        // A third of the way through the time is a third of the way along the line.
        let third = path.departed + Duration::from_secs_f64(100.0 / 3.0);
        let (point, heading, speed) = path.at(third);
        let expected = path.km() / 3.0;
        assert!(expected < first_leg, "the third falls on the first leg");
        assert!((distance_km(points[0], point) - expected).abs() < 0.002, "{point:?}");
        assert!(heading.is_some_and(|heading| !(1.0..=359.0).contains(&heading)), "north: {heading:?}");
        assert!((speed - path.km() * 10.0).abs() < 0.01);
        let (end, heading, _) = path.at(path.arrives + Duration::from_secs(1));
        assert!(distance_km(end, points[2]) < 0.001 && heading.is_none());
    }

    #[test]
    fn places_stay_within_the_radius_of_the_centre() {
        let centre = LatLng::new(39.286, -76.58);
        let mut rng = StdRng::seed_from_u64(7);
        let mut far = 0;
        for _ in 0..500 {
            // From the edge of town, drops 1 to 5 km away stay in town.
            let from = offset(centre, 2.9, rng.random_range(0.0..std::f64::consts::TAU));
            let point = place_within(&mut rng, centre, 3.0, from, 1.0, 5.0);
            assert!(distance_km(centre, point) <= 3.0 + 1e-9, "{point:?}");
            far += usize::from(distance_km(from, point) >= 1.0);
        }
        assert!(far > 250, "most keep their distance from the start: {far}");
        let shifted = offset(centre, 2.0, std::f64::consts::FRAC_PI_2);
        assert!((distance_km(centre, shifted) - 2.0).abs() < 0.01);
    }
}
