//! The demo's past (issue #35, "A history"): a city seeded now gets
//! `history_days` days of trips, so the dashboard, earnings, reports,
//! exports and replays have content on the first start.
//!
//! The simulator plays the days ([`wayfare_simulations::sim`]): demand drawn
//! around the demo's neighbourhoods with a day's shape, the demo drivers
//! (numbered past the people's) on shifts with their car types and start
//! spots, dispatch under the demo's policy, drives on the map's roads
//! (straight lines without an extract), riders no driver took in time. Each
//! request it played is then played again through the engine's booking
//! machine with the demo's riders and drivers, a payment mode (cash, wallet,
//! card), a rating or a rider's cancellation, and stored as the server
//! stores a booking: [`Storage::commit_booking`] with its effects (ledger,
//! tracking, ratings, promo use, roll-ups), with the wallet top-ups, card
//! payments and withdraws around it. Deterministic for its seed; it runs
//! only on the start that seeded the city, so it is never run twice.

use crate::config::Config;
use anyhow::Context as _;
use futures_util::StreamExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use replay::{Plan, Replay, Routed, Served, SimRide};
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use wayfare_engine::booking::RouteInfo;
use wayfare_engine::{AppCategory, CarType, Coord, LatLng, Millis, Place, Role, Settings, User, UserId};
use wayfare_maps::{MapsProvider, ProviderKind};
use wayfare_simulations::scenario::{Demand, DemandArea, DriverModel, IdleBehaviour, RiderModel, Scenario};
use wayfare_simulations::sim::{self, Outcome, RunInput, Trip};
use wayfare_simulations::travel::{Spot, Travel};
use wayfare_storage::Storage;

mod replay;

/// The history's seed: the same city gets the same past.
pub const SEED: u64 = 35;
/// The promo code the history's riders use.
pub const PROMO: &str = "WELCOME10";
const HOUR_MS: Millis = 3_600_000;
const DAY_MS: Millis = 24 * HOUR_MS;
/// The history ends this long before the start, so its last trips are over.
const END_BEFORE_NOW_MS: Millis = 3 * HOUR_MS;
/// Requests a day, over every car type.
const REQUESTS_PER_DAY: f64 = 150.0;
/// The share of requests of each car type, in the catalogue's order.
const CAR_SHARES: [f64; 3] = [0.6, 0.25, 0.15];
/// Drivers who take part: a `make city` demo of thousands keeps the same
/// few trips a day, so the rest would only slow the runs.
const FLEET_MAX: usize = 60;
/// Seconds from the driver at the pickup to the trip's start.
const BOARDING_S: u64 = 45;
/// Points of a trip's track: enough to draw it on the roads.
const TRACK_POINTS: usize = 24;
/// Bookings written at once: their commits share the WAL's fsyncs.
const WRITES_AT_ONCE: usize = 16;
/// A day's shape: the share of the day's requests in each local hour,
/// midnight first (as data/scenarios/baltimore-day.toml).
const HOURLY_PROFILE: [f64; 24] = [
    3.0, 2.0, 1.5, 1.0, 1.0, 1.5, 3.0, 6.0, 8.0, 6.0, 5.0, 5.0, 6.0, 5.5, 5.0, 5.5, 7.0, 9.0, 8.0, 7.0, 6.0, 6.0, 5.5,
    4.5,
];
/// Where requests start and end around the demo centre: (lat, lng,
/// radius km, weight), from the Baltimore weekday scenario.
const AREAS: [(f64, f64, f64, f64); 9] = [
    (39.2845, -76.6005, 0.7, 300.0), // Harbor East and Little Italy
    (39.2825, -76.5930, 0.6, 280.0), // Fells Point
    (39.2790, -76.5760, 0.8, 220.0), // Canton
    (39.2785, -76.6060, 0.5, 150.0), // Federal Hill
    (39.2705, -76.5930, 0.7, 90.0),  // Locust Point
    (39.2900, -76.5830, 0.7, 120.0), // Patterson Park
    (39.2880, -76.5680, 0.7, 110.0), // Highlandtown
    (39.2970, -76.5920, 0.5, 240.0), // Johns Hopkins Hospital
    (39.2810, -76.5620, 0.5, 50.0),  // Brewers Hill
];

/// What the history holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistorySummary {
    pub days: u32,
    /// `osm` (the map's roads) or `straight-line`.
    pub network: String,
    pub bookings: u64,
    pub completed: u64,
    pub rated: u64,
    pub cash: u64,
    pub wallet: u64,
    pub card: u64,
    /// Cancelled by the system: no driver took the booking in time.
    pub no_driver: u64,
    pub cancelled_by_riders: u64,
    pub cancellation_fees: u64,
    pub promo_uses: u64,
    pub top_ups: u64,
    pub tracking_points: u64,
    pub withdraws: u64,
    pub withdraws_completed: u64,
}

/// Seeds the past `config.demo_seed.history_days` days, ending a few hours
/// before `now`, with trips made by the simulator on the server's map.
/// Only for a city seeded now (see [`crate::start`]).
pub async fn seed(
    storage: &dyn Storage,
    maps: &Arc<dyn MapsProvider>,
    config: &Config,
    now: Millis,
) -> anyhow::Result<HistorySummary> {
    let started = std::time::Instant::now();
    let days = config.demo_seed.history_days;
    let settings = storage.settings().await?.unwrap_or_else(super::settings);
    if days == 0 || settings.appcat != AppCategory::Taxi {
        tracing::info!(days, "no demo history to seed (none asked, or not a taxi platform)");
        return Ok(HistorySummary::default());
    }
    let mut car_types = storage.car_types().await?;
    if car_types.is_empty() {
        car_types = super::car_types();
    }
    let (riders, fleet) = people(storage, config.demo_seed.drivers, &car_types).await?;
    if riders.is_empty() || fleet.is_empty() {
        tracing::info!("no demo riders or drivers to make a history with");
        return Ok(HistorySummary::default());
    }
    let end = now - END_BEFORE_NOW_MS;
    let window = Window { start: end - i64::from(days) * DAY_MS, end, days, utc_offset_ms: offset_ms(config) };
    let world = World { settings, car_types, riders, fleet, window };
    // The extract's roads as the OpenStreetMap provider just loaded them
    // (its cache); the simulator's straight lines with any other provider.
    let osm = config.maps.kind() == ProviderKind::Osm;
    let road_file = config.maps.osm_file.clone().filter(|_| osm);
    let cache_dir = config.maps_cache_dir();
    // Only a provider on this machine is asked for every trip's route.
    let local_maps = osm || config.maps.kind() == ProviderKind::StraightLine;
    let maps = local_maps.then(|| maps.clone());
    let handle = tokio::runtime::Handle::current();
    // Loading roads, simulating and replaying are CPU work: off the async threads.
    let (plan, mut progress) = tokio::task::spawn_blocking(move || {
        let mut progress = Progress::new();
        let plan = plan(&world, road_file.as_deref(), &cache_dir, maps.as_deref(), &handle, &mut progress);
        plan.map(|plan| (plan, progress))
    })
    .await??;
    write(storage, &plan, &mut progress).await?;
    progress.finish();
    let summary = plan.summary;
    tracing::info!(
        days,
        network = %summary.network,
        bookings = summary.bookings,
        completed = summary.completed,
        no_driver = summary.no_driver,
        cancelled_by_riders = summary.cancelled_by_riders,
        withdraws = summary.withdraws,
        seconds = started.elapsed().as_secs_f64(),
        "demo history seeded"
    );
    Ok(summary)
}

/// The time the history covers.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: Millis,
    end: Millis,
    days: u32,
    utc_offset_ms: Millis,
}

/// What the history is made of, read before the work goes off the async threads.
struct World {
    settings: Settings,
    car_types: Vec<CarType>,
    riders: Vec<User>,
    fleet: Vec<FleetDriver>,
    window: Window,
}

/// A demo driver as the simulator sees them.
struct FleetDriver {
    user: User,
    /// Index into the car types.
    car: usize,
    home: LatLng,
}

fn offset_ms(config: &Config) -> Millis {
    i64::from(config.reports.utc_offset_minutes) * 60_000
}

/// The demo riders and drivers played in the history, as stored, by id:
/// never the people's accounts (numbered up to [`super::PEOPLE`]).
async fn people(
    storage: &dyn Storage,
    drivers: u32,
    car_types: &[CarType],
) -> anyhow::Result<(Vec<User>, Vec<FleetDriver>)> {
    let demo = super::users_with(drivers.min(super::PEOPLE + FLEET_MAX as u32));
    let ids: Vec<UserId> = demo.iter().filter(|user| user.demo).map(|user| user.id).collect();
    let mut stored = storage.users_by_id(&ids).await?;
    stored.retain(|user| user.demo);
    stored.sort_by_key(|user| user.id);
    let riders: Vec<User> = stored.iter().filter(|user| user.usertype == Role::Rider).cloned().collect();
    let fleet = stored
        .into_iter()
        .filter(|user| user.usertype == Role::Driver && user.approved)
        .filter_map(|user| {
            let car = car_types.iter().position(|car| Some(&car.name) == user.carType.as_ref())?;
            let home = user.location?;
            Some(FleetDriver { user, car, home })
        })
        .collect();
    Ok((riders, fleet))
}

// ---- the plan: simulate, route, replay --------------------------------------

fn plan(
    world: &World,
    road_file: Option<&std::path::Path>,
    cache_dir: &std::path::Path,
    maps: Option<&dyn MapsProvider>,
    handle: &tokio::runtime::Handle,
    progress: &mut Progress,
) -> anyhow::Result<Plan> {
    progress.show("loading the roads", 0, 1);
    let travel = match road_file {
        Some(file) => Travel::from_extract(file, cache_dir, |_, _, _| {}).map_err(anyhow::Error::msg)?.0,
        None => Travel::straight_line(),
    };
    progress.show("loading the roads", 1, 1);
    let rides = simulate(world, &travel, progress)?;
    let routed = route(&rides, maps, handle, progress);
    let mut replay = Replay::new(world);
    replay.summary.network = travel.kind().to_string();
    progress.show("replaying the trips", 0, rides.len());
    for (done, (ride, routed)) in rides.iter().zip(&routed).enumerate() {
        replay.play(ride, routed)?;
        progress.show("replaying the trips", done + 1, rides.len());
    }
    replay.plan_withdraws();
    Ok(replay.finish())
}

/// Runs the simulator once a day for each car type's drivers and requests.
fn simulate(world: &World, travel: &Travel, progress: &mut Progress) -> anyhow::Result<Vec<SimRide>> {
    let window = world.window;
    let settings = Settings { autoDispatch: true, ..world.settings.clone() };
    let scenario = Scenario {
        name: "demo history".into(),
        boarding_s: BOARDING_S,
        drivers: DriverModel {
            accept_probability: 0.92,
            accept_decay_per_km: 0.05,
            respond_min_s: 3.0,
            respond_max_s: 15.0,
            idle: IdleBehaviour::Return,
            idle_every_s: 300,
            cruise_km: 1.0,
            shift_hours: 10.0,
        },
        // Riders wait for the engine's own no-driver cancellation.
        riders: RiderModel { cancel_after_s: u64::from(settings.noDriverCancelMinutes) * 60 + 300 },
        ..Scenario::default()
    };
    let local_hour = ((window.start + window.utc_offset_ms).div_euclid(HOUR_MS)).rem_euclid(24) as usize;
    let hourly_profile: Vec<f64> = (0..24).map(|hour| HOURLY_PROFILE[(hour + local_hour) % 24]).collect();
    let weights: f64 = AREAS.iter().map(|area| area.3).sum();
    let runs = window.days as usize * world.car_types.len();
    let mut volume = StdRng::seed_from_u64(SEED);
    let mut rides = Vec::new();
    progress.show("simulating the days", 0, runs);
    for day in 0..window.days {
        let day_start = window.start + i64::from(day) * DAY_MS;
        // Some days are busier than others.
        let busy = volume.random_range(0.85..1.15);
        for (car_index, car) in world.car_types.iter().enumerate() {
            let run = day as usize * world.car_types.len() + car_index;
            let seed = SEED ^ ((run as u64 + 1) << 20);
            let members: Vec<usize> =
                (0..world.fleet.len()).filter(|driver| world.fleet[*driver].car == car_index).collect();
            if members.is_empty() {
                progress.show("simulating the days", run + 1, runs);
                continue;
            }
            let share = CAR_SHARES.get(car_index).copied().unwrap_or(0.1);
            let per_hour = REQUESTS_PER_DAY * share * busy / 24.0;
            let demand = Demand {
                start: (day_start / 1000).to_string(),
                hours: 24,
                hourly_profile: hourly_profile.clone(),
                areas: AREAS
                    .iter()
                    .map(|&(lat, lng, radius_km, weight)| DemandArea {
                        lat,
                        lng,
                        radius_km,
                        per_hour: per_hour * weight / weights,
                    })
                    .collect(),
            };
            let requests = wayfare_simulations::generate_demand(&demand, seed)?;
            let trips: Vec<Trip> = requests
                .iter()
                .filter_map(|request| {
                    let origin = travel.spot(request.origin)?;
                    let destination = travel.spot(request.destination)?;
                    let route = travel.leg(&origin, &destination);
                    let at_ms = request.at * 1000 - day_start;
                    Some(Trip { id: request.id.clone(), at_ms, origin, destination, route })
                })
                .collect();
            let vehicles: Vec<Spot> = members
                .iter()
                .map(|driver| {
                    let home = world.fleet[*driver].home;
                    travel.spot(home).unwrap_or(Spot::free(home))
                })
                .collect();
            let input = RunInput {
                travel,
                trips: &trips,
                vehicles: &vehicles,
                settings: &settings,
                car,
                scenario: &scenario,
                start_ms: day_start,
                span_ms: trips.last().map_or(0, |trip| trip.at_ms),
            };
            let result = sim::run(input, seed, &mut |_, _| {});
            for (trip, ride) in trips.iter().zip(&result.rides) {
                let served = match (ride.outcome, ride.driver, ride.accepted_at, ride.picked_at, ride.dropped_at) {
                    (Outcome::Served, Some(driver), Some(accepted), Some(picked), Some(dropped)) => Some(Served {
                        driver: members[driver],
                        accepted_at: day_start + accepted,
                        arrived_at: day_start + picked,
                        dropped_at: day_start + dropped,
                    }),
                    (Outcome::CancelledByRider | Outcome::CancelledBySystem, ..) => None,
                    // Never dispatched (no road between its places): not a booking.
                    _ => continue,
                };
                let leg = trip.route.unwrap_or_default();
                rides.push(SimRide {
                    car: car_index,
                    requested_at: day_start + trip.at_ms,
                    pickup: trip.origin.point,
                    drop: trip.destination.point,
                    distance_m: leg.distance_m,
                    time_ms: leg.time_ms,
                    served,
                });
            }
            progress.show("simulating the days", run + 1, runs);
        }
    }
    rides.sort_by_key(|ride| ride.requested_at);
    Ok(rides)
}

/// Each request's addresses and route from the server's maps, as booking
/// asks for them; from the simulator's drive in a straight line when the
/// maps are a web service (a few thousand calls are not the demo's to make)
/// or find no route.
fn route(
    rides: &[SimRide],
    maps: Option<&dyn MapsProvider>,
    handle: &tokio::runtime::Handle,
    progress: &mut Progress,
) -> Vec<Routed> {
    progress.show("routing the trips", 0, rides.len());
    let mut routed = Vec::with_capacity(rides.len());
    for (done, ride) in rides.iter().enumerate() {
        let address = |point: LatLng| {
            let named = maps.and_then(|maps| handle.block_on(maps.reverse(point)).ok());
            named.unwrap_or_else(|| format!("{:.5}, {:.5}", point.lat, point.lng))
        };
        let pickup = Place { lat: ride.pickup.lat, lng: ride.pickup.lng, add: address(ride.pickup) };
        let drop = Place { lat: ride.drop.lat, lng: ride.drop.lng, add: address(ride.drop) };
        let found = maps.and_then(|maps| handle.block_on(maps.directions(ride.pickup, ride.drop, &[])).ok());
        let route = match found {
            Some(route) => RouteInfo {
                distance_km: route.distance_km,
                time_secs: route.time_secs,
                coords: route.coords,
                waypoints: Vec::new(),
            },
            None => RouteInfo {
                distance_km: ride.distance_m / 1000.0,
                time_secs: (ride.time_ms / 1000).max(0) as u64,
                coords: [ride.pickup, ride.drop]
                    .map(|point| Coord { latitude: point.lat, longitude: point.lng })
                    .to_vec(),
                waypoints: Vec::new(),
            },
        };
        routed.push(Routed { pickup, drop, route });
        progress.show("routing the trips", done + 1, rides.len());
    }
    routed
}

// ---- storing ---------------------------------------------------------------

/// Stores the plan through the Storage trait: the promo, the top-ups (before
/// the wallet payments that spend them), the bookings with their effects and
/// card payments, then the withdraws in time order (each within what the
/// driver's ledger holds by then).
async fn write(storage: &dyn Storage, plan: &Plan, progress: &mut Progress) -> anyhow::Result<()> {
    storage.save_promo(&plan.promo, plan.promo.createdAt).await.context("saving the promo")?;
    let total = plan.top_ups.len() + plan.bookings.len() + plan.withdraws.len();
    let mut done = 0;
    progress.show("storing the history", done, total);
    for top_up in &plan.top_ups {
        storage.insert_payment(&top_up.payment).await.context("storing a top-up")?;
        storage.apply_wallet(&top_up.credit, top_up.payment.created_at).await.context("crediting a top-up")?;
        done += 1;
        progress.show("storing the history", done, total);
    }
    let mut commits = futures_util::stream::iter(&plan.bookings)
        .map(|planned| async move {
            let reference = &planned.booking.reference;
            let made = planned.created.bookingDate;
            let inserted = storage
                .commit_booking(&planned.created, None, &planned.created_effects, made)
                .await
                .with_context(|| format!("storing booking {reference}"))?;
            storage
                .commit_booking(&planned.booking, Some(inserted.booking.version), &planned.effects, planned.at)
                .await
                .with_context(|| format!("storing the trip of booking {reference}"))?;
            if let Some(card) = &planned.card {
                storage
                    .insert_payment(card)
                    .await
                    .with_context(|| format!("storing the card payment of {reference}"))?;
            }
            anyhow::Ok(())
        })
        .buffer_unordered(WRITES_AT_ONCE);
    while let Some(written) = commits.next().await {
        written?;
        done += 1;
        progress.show("storing the history", done, total);
    }
    for withdraw in &plan.withdraws {
        let id = withdraw.request.id;
        storage
            .create_withdraw(&withdraw.request, &withdraw.debit, withdraw.request.date)
            .await
            .with_context(|| format!("storing withdraw {id}"))?;
        if let Some(at) = withdraw.completed_at {
            storage.complete_withdraw(id, at).await.with_context(|| format!("completing withdraw {id}"))?;
        }
        done += 1;
        progress.show("storing the history", done, total);
    }
    Ok(())
}

// ---- progress --------------------------------------------------------------

/// How far the seeding is: a bar redrawn on stderr when it is a terminal
/// (as `wayfare map prepare` draws one), and a log line when a stage starts,
/// when it ends, and at each tenth of it that comes a second or more after
/// the last line (a quick stage logs twice, a slow one at most eleven times).
struct Progress {
    terminal: bool,
    stage: &'static str,
    percent: usize,
    logged: std::time::Instant,
}

impl Progress {
    fn new() -> Progress {
        let logged = std::time::Instant::now();
        Progress { terminal: std::io::stderr().is_terminal(), stage: "", percent: 0, logged }
    }

    fn show(&mut self, stage: &'static str, done: usize, of: usize) {
        let percent = (done * 100).checked_div(of).unwrap_or(100).min(100);
        let new_stage = stage != self.stage;
        if !new_stage && percent == self.percent {
            return;
        }
        let tenth = percent / 10 != self.percent / 10 && self.logged.elapsed() >= std::time::Duration::from_secs(1);
        let log = new_stage || percent == 100 || tenth;
        self.stage = stage;
        self.percent = percent;
        let mut stderr = std::io::stderr();
        if log {
            if self.terminal {
                // The log line goes where the bar was; the bar follows it.
                let _ = write!(stderr, "\r\x1b[2K");
                let _ = stderr.flush();
            }
            tracing::info!(stage, done, of, "seeding the demo history");
            self.logged = std::time::Instant::now();
        }
        if self.terminal {
            let filled = percent * 30 / 100;
            let _ = write!(stderr, "\r[{}{}] {percent:>3}% {stage:<24}", "#".repeat(filled), "-".repeat(30 - filled));
            let _ = stderr.flush();
        }
    }

    fn finish(&mut self) {
        if self.terminal && !self.stage.is_empty() {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests;
