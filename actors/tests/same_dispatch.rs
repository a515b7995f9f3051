//! The simulator dispatches as the server does (issue #36): a run of the
//! simulator is replayed through the actors' runtime on a manual clock,
//! on a real database — the same drivers coming online and moving, the
//! same bookings, the same answers and trip stages at the same instants —
//! and the runtime must make the same offers (booking, drivers, wave,
//! deadline) at the same times, under every policy. The runtime's own
//! timers (offer deadlines, retries, batch windows) fire from its own
//! scheduler, so a window armed or a timer set differently shows up as an
//! offer at another time.

mod common;

use async_trait::async_trait;
use common::*;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wayfare_actors::{BatchRoads, Clock, Event, LocationUpdate, RuntimeOptions};
use wayfare_engine::booking::By;
use wayfare_engine::*;
use wayfare_maps::{DistanceMatrix, Leg, MapsError, MapsProvider, PlaceDetails, Route, Suggestion};
use wayfare_simulations::scenario::{Demand, DemandArea, Scenario};
use wayfare_simulations::sim::{self, RunInput, Traced};
use wayfare_simulations::travel::Travel;
use wayfare_simulations::{Catalog, Prepared, prepare};

/// One offer: (ms after the first step, ride, drivers, wave, deadline ms after the first step).
type Offer = (i64, usize, Vec<UserId>, u32, Option<i64>);

/// An offer as the runtime made it: (clock, booking, drivers, wave, deadline).
type Heard = (Millis, BookingId, Vec<UserId>, u32, Option<Millis>);

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn platform(policy: DispatchPolicy) -> Settings {
    Settings {
        autoDispatch: true,
        dispatchPolicy: policy,
        dispatchWaveSize: 2,
        dispatchOfferSeconds: 15,
        dispatchMaxWaves: 3,
        // Not a divisor of the one-minute dispatch retry: a window closing
        // at the very millisecond a retry fires is a race between two
        // clocks' work, in the server as here.
        dispatchBatchSeconds: 17,
        driverRadius: 3.0,
        // The simulator's and the runtime's codes are drawn apart.
        otp_secure: false,
        ..Settings::default()
    }
}

/// HIVE's Denver demo on its OSMnx roads: the first `requests` requests
/// and every vehicle. Every driver answers yes after 2 to 25 s, so offers
/// lapse too (the deadline is 15 s); riders give up after about four
/// minutes (never on a minute, when retries fire).
fn denver(requests: usize) -> (Scenario, Prepared) {
    let mut scenario = Scenario {
        name: "HIVE Denver demo".into(),
        network: repo("data/hive/denver_downtown/downtown_denver_network.json").display().to_string(),
        requests: Some(repo("data/hive/denver_downtown/denver_demo_requests.csv")),
        vehicles: Some(repo("data/hive/denver_downtown/denver_demo_vehicles.csv")),
        ..Scenario::default()
    };
    scenario.drivers.respond_min_s = 2.0;
    scenario.drivers.respond_max_s = 25.0;
    scenario.riders.cancel_after_s = 247;
    let mut prepared = prepared(&scenario);
    prepared.trips.truncate(requests);
    (scenario, prepared)
}

/// A generated hour around one centre on straight lines: drivers decline
/// four times in ten and answer after 2 to 25 s, riders give up after
/// about three minutes.
fn generated() -> (Scenario, Prepared) {
    let mut scenario = Scenario {
        name: "generated".into(),
        demand: Some(Demand {
            start: "2026-03-02T08:00:00Z".into(),
            hours: 1,
            hourly_profile: Vec::new(),
            areas: vec![DemandArea { lat: 39.29, lng: -76.61, radius_km: 2.0, per_hour: 50.0 }],
        }),
        fleet: Some(10),
        seed: 8,
        ..Scenario::default()
    };
    scenario.drivers.accept_probability = 0.6;
    scenario.drivers.respond_min_s = 2.0;
    scenario.drivers.respond_max_s = 25.0;
    scenario.riders.cancel_after_s = 187;
    let prepared = prepared(&scenario);
    (scenario, prepared)
}

fn prepared(scenario: &Scenario) -> Prepared {
    let cache = tempfile::tempdir().unwrap();
    let catalog = Catalog { settings: Settings::default(), car_types: vec![car_type(1, "Economy")] };
    let mut prepared = prepare(scenario, catalog, cache.path(), &mut |_, _, _| {}).unwrap();
    // Requests of the same second would meet the server's windows and
    // timers at the very same millisecond, where the order of two clocks'
    // work is a coin toss: each is moved by a few odd milliseconds.
    for (number, trip) in prepared.trips.iter_mut().enumerate() {
        trip.at_ms += 1 + (number as i64 * 7_919) % 29_989;
    }
    prepared.trips.sort_by_key(|trip| trip.at_ms);
    prepared
}

/// The simulator's run, traced.
fn simulate(scenario: &Scenario, prepared: &Prepared, settings: &Settings) -> Vec<Traced> {
    let car = car_type(1, "Economy");
    let input = RunInput {
        travel: &prepared.travel,
        trips: &prepared.trips,
        vehicles: &prepared.vehicles,
        settings,
        car: &car,
        scenario,
        start_ms: prepared.start_ms.max(T0),
        span_ms: prepared.trips.last().map_or(0, |trip| trip.at_ms),
    };
    sim::run_traced(input, scenario.seed).1
}

/// The simulator's roads as the runtime's maps, so a batch window times
/// its pickups as the simulator does.
struct SimRoads(Arc<Prepared>);

#[async_trait]
impl MapsProvider for SimRoads {
    async fn autocomplete(&self, _: &str, _: Option<LatLng>, _: Option<&str>) -> Result<Vec<Suggestion>, MapsError> {
        Err(MapsError::NoRoute)
    }
    async fn place(&self, _: &str) -> Result<PlaceDetails, MapsError> {
        Err(MapsError::UnknownPlace)
    }
    async fn reverse(&self, _: LatLng) -> Result<String, MapsError> {
        Err(MapsError::NoRoute)
    }
    async fn directions(&self, _: LatLng, _: LatLng, _: &[LatLng]) -> Result<Route, MapsError> {
        Err(MapsError::NoRoute)
    }
    async fn distance_matrix(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError> {
        let travel: &Travel = &self.0.travel;
        let targets: Vec<_> = destinations
            .iter()
            .map(|point| travel.spot(*point).map(|spot| travel.target(&spot)).ok_or(MapsError::InvalidPoint))
            .collect::<Result<_, _>>()?;
        let targets: Vec<_> = targets.iter().collect();
        origins
            .iter()
            .map(|origin| {
                let from = travel.spot(*origin).ok_or(MapsError::InvalidPoint)?;
                Ok(travel
                    .legs_to_targets(&from, &targets)
                    .into_iter()
                    .map(|leg| {
                        leg.map(|leg| Leg { distance_km: leg.distance_m / 1000.0, time_secs: sim::pickup_secs(&leg) })
                    })
                    .collect())
            })
            .collect()
    }
}

/// Instants where the simulator did something a person does (a booking, an
/// answer, a move) at the very millisecond a timer or a window was due:
/// two clocks order those as they like, so a fair comparison has none.
fn races(trace: &[Traced]) -> Vec<Millis> {
    let due: std::collections::HashSet<Millis> = trace
        .iter()
        .filter_map(|step| match step {
            Traced::Set { due, .. } => Some(*due),
            _ => None,
        })
        .collect();
    trace
        .iter()
        .filter(|step| !matches!(step, Traced::Set { .. } | Traced::Due { .. } | Traced::Offered { .. }))
        .map(Traced::at)
        .filter(|at| due.contains(at))
        .collect()
}

/// The offers the simulator made, from its trace.
fn offers_of(trace: &[Traced], zero: Millis) -> Vec<Offer> {
    let mut offers: Vec<Offer> = trace
        .iter()
        .filter_map(|step| match step {
            Traced::Offered { at, ride, drivers, wave, deadline } => {
                Some((at - zero, *ride, drivers.clone(), *wave, deadline.map(|deadline| deadline - zero)))
            }
            _ => None,
        })
        .collect();
    offers.sort();
    offers
}

fn driver_user(id: UserId, number: usize, point: LatLng) -> User {
    let mut user = driver(number as u128 + 1, "Economy", 0.0);
    user.id = id;
    user.driverActiveStatus = false;
    user.location = Some(point);
    user
}

/// Replays `trace` through the runtime and returns the offers it made.
async fn replay(trace: &[Traced], settings: Settings, roads: Arc<Prepared>) -> Vec<Offer> {
    let drivers: Vec<User> = trace
        .iter()
        .filter_map(|step| match step {
            Traced::Online { driver, point, .. } => Some((*driver, *point)),
            _ => None,
        })
        .collect::<BTreeMap<_, _>>()
        .into_iter()
        .enumerate()
        .map(|(number, (id, point))| driver_user(id, number, point))
        .collect();
    let options =
        RuntimeOptions { batch_roads: Some(BatchRoads { maps: Arc::new(SimRoads(roads)), local: true }), ..options() };
    let mut world = World::start_with(Backend::Sqlite, settings, &drivers, options).await;
    let zero = trace.first().map_or(T0, Traced::at);
    assert!(zero >= world.now(), "the run starts after the world's clock");
    let mut rider = sim::rider();
    rider.email = "simulated@test.wayfare".into();
    rider.mobile = "+14105559999".into();
    rider.approved = true;
    rider.referralId = "SIMRIDER".into();
    world.storage.insert_user(&rider).await.unwrap();
    world.drain();

    // Every offer the runtime makes, at the clock's time (it stands still
    // while the runtime works).
    let offered: Arc<Mutex<Vec<Heard>>> = Arc::default();
    let heard = Arc::new(AtomicUsize::new(0));
    let listener = {
        let mut events = world.runtime.subscribe();
        let (offered, heard, clock) = (offered.clone(), heard.clone(), world.clock.clone());
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                heard.fetch_add(1, Ordering::SeqCst);
                if let Event::OfferMade { booking, drivers, deadline } = event.as_ref() {
                    let at = Clock::now(&clock);
                    offered.lock().unwrap().push((at, booking.id, drivers.clone(), booking.dispatch.wave, *deadline));
                }
            }
        })
    };

    let by_id: HashMap<UserId, &User> = drivers.iter().map(|user| (user.id, user)).collect();
    let mut booking_of: HashMap<usize, BookingId> = HashMap::new();
    for step in trace {
        if step.at() > world.now() {
            world.clock.set(step.at());
            settle(&world, &heard).await;
        }
        match step {
            Traced::Online { driver, .. } => world.runtime.driver_online(by_id[driver]).await.unwrap(),
            Traced::Moved { driver, point, .. } => {
                world.runtime.driver_location(*driver, LocationUpdate::at(*point)).unwrap();
                world.runtime.driver(*driver).await;
            }
            Traced::Offline { driver, .. } => world.runtime.driver_offline(*driver).await.unwrap(),
            Traced::Booked { ride, request, .. } => {
                let booking = world
                    .runtime
                    .create_booking("Economy", request.clone(), &rider, By::Rider(rider.id))
                    .await
                    .unwrap_or_else(|error| panic!("ride {ride} books: {error}"));
                booking_of.insert(*ride, booking.id);
            }
            Traced::Command { ride, by, command, .. } => {
                // Refused or not, as it was in the simulator.
                let _ = world.runtime.command(booking_of[ride], *by, command.clone()).await;
            }
            Traced::Set { .. } | Traced::Due { .. } | Traced::Offered { .. } => {}
        }
        settle(&world, &heard).await;
    }
    listener.abort();
    world.finish().await;
    let ride_of: HashMap<BookingId, usize> = booking_of.into_iter().map(|(ride, id)| (id, ride)).collect();
    let mut offers: Vec<Offer> = offered
        .lock()
        .unwrap()
        .iter()
        .map(|(at, booking, drivers, wave, deadline)| {
            (at - zero, ride_of[booking], drivers.clone(), *wave, deadline.map(|deadline| deadline - zero))
        })
        .collect();
    offers.sort();
    offers
}

/// Waits until the runtime is quiet: its actors answer and no event came
/// for a few milliseconds (a batch window's timing and matching run on
/// their own tasks).
async fn settle(world: &World, heard: &AtomicUsize) {
    loop {
        let before = heard.load(Ordering::SeqCst);
        world.settle().await;
        tokio::time::sleep(Duration::from_millis(4)).await;
        world.settle().await;
        if heard.load(Ordering::SeqCst) == before {
            return;
        }
    }
}

async fn same_offers(name: &str, (scenario, prepared): (Scenario, Prepared)) {
    let prepared = Arc::new(prepared);
    for policy in [DispatchPolicy::Broadcast, DispatchPolicy::Waves, DispatchPolicy::Nearest, DispatchPolicy::Batch] {
        let settings = platform(policy);
        let trace = simulate(&scenario, &prepared, &settings);
        let zero = trace.first().map_or(0, Traced::at);
        let expected = offers_of(&trace, zero);
        assert_eq!(
            races(&trace),
            Vec::<Millis>::new(),
            "{name} {policy:?}: pick inputs without same-millisecond races"
        );
        assert!(expected.len() >= 20, "{name} {policy:?}: a run worth comparing ({} offers)", expected.len());
        let served = trace
            .iter()
            .filter(|step| matches!(step, Traced::Command { command: booking::Command::Pay { .. }, .. }))
            .count();
        assert!(served > 5, "{name} {policy:?}: rides are served ({served})");
        let deadlines: std::collections::HashSet<Millis> = trace
            .iter()
            .filter_map(|step| match step {
                Traced::Offered { deadline, .. } => *deadline,
                _ => None,
            })
            .collect();
        let lapsed = trace.iter().filter(|step| matches!(step, Traced::Due { at } if deadlines.contains(at))).count();
        let declined = trace
            .iter()
            .filter(|step| matches!(step, Traced::Command { command: booking::Command::Decline, .. }))
            .count();
        if policy != DispatchPolicy::Broadcast {
            assert!(lapsed > 0, "{name} {policy:?}: offers lapse");
        }
        if name == "generated" {
            assert!(declined > 0, "{name} {policy:?}: drivers decline");
        }
        let replayed = replay(&trace, settings, prepared.clone()).await;
        let first_difference = expected.iter().zip(&replayed).position(|(a, b)| a != b);
        if let (Some(at), Ok(_)) = (first_difference, std::env::var("SAME_DISPATCH_DEBUG")) {
            let rides = [expected[at].1, replayed[at].1];
            for step in &trace {
                let ride = match step {
                    Traced::Booked { ride, .. } | Traced::Command { ride, .. } | Traced::Offered { ride, .. } => {
                        Some(*ride)
                    }
                    _ => None,
                };
                if ride.is_none_or(|ride| rides.contains(&ride)) && (step.at() - zero - expected[at].0).abs() < 120_000
                {
                    eprintln!("{:>9} {:?}", step.at() - zero, step);
                }
            }
            eprintln!("runtime: {:?}", replayed.iter().filter(|offer| rides.contains(&offer.1)).collect::<Vec<_>>());
        }
        assert!(
            expected == replayed,
            "{name} {policy:?}: the runtime's offers differ from the simulator's ({} against {}); first difference at {:?}: simulator {:?}, runtime {:?}",
            expected.len(),
            replayed.len(),
            first_difference,
            first_difference.map(|at| &expected[at]),
            first_difference.map(|at| &replayed[at]),
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_denver_demo_gets_the_same_offers_at_the_same_times_from_the_simulator_and_the_runtime() {
    same_offers("Denver", denver(80)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_day_with_declines_and_lapses_gets_the_same_offers_from_both() {
    let (scenario, prepared) = generated();
    same_offers("generated", (scenario, prepared)).await;
}
