//! The `nearest` and `batch` dispatch policies on the runtime (issue #16), on
//! a real database and a virtual clock: one driver at a time, and bookings
//! gathered for `dispatchBatchSeconds` then matched for the least total
//! pickup time, on straight lines or on the maps' road times.

mod common;

use async_trait::async_trait;
use common::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use wayfare_actors::{BatchRoads, DispatchLog, Event};
use wayfare_engine::booking::{By, Command, WithdrawReason};
use wayfare_engine::*;
use wayfare_maps::{DistanceMatrix, Leg, MapsError, MapsProvider, PlaceDetails, Route, Suggestion};

fn offer(event: &Event) -> Option<(BookingId, Vec<UserId>, u32)> {
    match event {
        Event::OfferMade { booking, drivers, .. } => Some((booking.id, drivers.clone(), booking.dispatch.wave)),
        _ => None,
    }
}

/// The offers published so far, without waiting.
fn offers_now(world: &mut World) -> Vec<(BookingId, Vec<UserId>, u32)> {
    world.drain().iter().filter_map(|event| offer(event)).collect()
}

/// Waits for `count` offers, by booking (one each).
async fn next_offers(world: &mut World, count: usize) -> BTreeMap<BookingId, (Vec<UserId>, u32)> {
    let mut offers = BTreeMap::new();
    while offers.len() < count {
        let (booking, drivers, wave) = world.wait_for(offer).await;
        assert!(offers.insert(booking, (drivers, wave)).is_none(), "{booking} offered twice in one window");
    }
    offers
}

fn batch_settings() -> Settings {
    Settings { dispatchPolicy: DispatchPolicy::Batch, dispatchBatchSeconds: 5, ..settings() }
}

/// Pickups A at the usual place and B 2 km north, on one road. Driver 1 is
/// 0.4 km north (A 0.4 km, B 1.6 km), driver 2 1 km south (A 1, B 3) and
/// driver 3 4.5 km north (A 4.5, B 2.5). Greedy nearest-first gives A its
/// nearest, driver 1, and B the nearest left, driver 3: 2.9 km in all. The
/// least total is A ← 2 and B ← 1: 2.6 km.
fn two_pickups_three_drivers() -> (LatLng, LatLng, Vec<User>) {
    let drivers = vec![driver(1, "Economy", 0.4), driver(2, "Economy", -1.0), driver(3, "Economy", 4.5)];
    (PICKUP, north_of_pickup(2.0), drivers)
}

async fn book(world: &World, pickup: LatLng, rider_number: u128) -> Arc<Booking> {
    let customer = rider(rider_number);
    world.runtime.create_booking("Economy", request_from(pickup), &customer, By::Rider(customer.id)).await.unwrap()
}

// ---- batch --------------------------------------------------------------------

both_backends!(batch_matches_a_window_for_the_least_total_pickup_and_retries_a_decline_later, batch_window);

async fn batch_window(backend: Backend) {
    let (a_pickup, b_pickup, drivers) = two_pickups_three_drivers();
    let d = |n: usize| drivers[n - 1].id;
    let mut world = World::start(backend, batch_settings(), &drivers).await;

    // A opens the window at T0; B comes 2 s later, within it.
    let a = book(&world, a_pickup, 1).await;
    world.settle().await;
    world.clock.advance(Duration::from_secs(2));
    let b = book(&world, b_pickup, 2).await;
    world.settle().await;
    world.clock.advance(Duration::from_secs(2));
    world.settle().await;
    assert!(offers_now(&mut world).is_empty(), "nothing is offered before the window closes");

    world.clock.advance(Duration::from_secs(1));
    let window = next_offers(&mut world, 2).await;
    assert_eq!(window[&a.id], (vec![d(2)], 1), "A goes to driver 2, not to its nearest");
    assert_eq!(window[&b.id], (vec![d(1)], 1));
    world.settle().await;
    assert!(offers_now(&mut world).is_empty(), "each driver gets exactly one offer, each booking one driver");
    let timeline = world.runtime.dispatch_timeline(b.id).await.unwrap();
    let offered: Vec<&DispatchLog> =
        timeline.iter().map(|entry| &entry.log).filter(|log| matches!(log, DispatchLog::Offered { .. })).collect();
    assert_eq!(
        offered,
        vec![&DispatchLog::Offered {
            wave: 1,
            drivers: vec![d(1)],
            distances_km: vec![Some(1.6)],
            deadline: Some(T0 + 5_000 + 15_000),
        }],
        "the console's log shows the batch offer with the pickup distance"
    );

    // Driver 2 takes A; driver 1 declines B, which waits for the next window.
    world.runtime.command(a.id, By::Driver(d(2)), Command::Accept { driver: snapshot(&drivers[1]) }).await.unwrap();
    world.runtime.command(b.id, By::Driver(d(1)), Command::Decline).await.unwrap();
    world.settle().await;
    let waiting = world.runtime.booking(b.id).await.unwrap();
    assert_eq!(waiting.status, BookingStatus::New, "a batch decline does not cancel");
    assert!(offers_now(&mut world).is_empty(), "the declined booking waits for a window");
    world.clock.advance(Duration::from_secs(5));
    let later = next_offers(&mut world, 1).await;
    assert_eq!(later[&b.id], (vec![d(3)], 2), "the next window offers B to the one driver left");
    world.finish().await;
}

both_backends!(batch_bookings_with_nobody_in_range_wait_and_are_logged_once, batch_nobody_in_range);

async fn batch_nobody_in_range(backend: Backend) {
    // A driver 8 km away, past the 5 km radius.
    let far = driver(1, "Economy", 8.0);
    let mut world = World::start(backend, batch_settings(), std::slice::from_ref(&far)).await;
    let booking = book(&world, PICKUP, 1).await;
    world.settle().await;
    world.clock.advance(Duration::from_secs(5));
    world
        .wait_for(|event| {
            matches!(event, Event::Dispatch(entry) if entry.booking == booking.id
                && matches!(entry.log, DispatchLog::NoCandidates { .. }))
            .then_some(())
        })
        .await;
    // Two more windows find nobody either; the log says so once.
    for _ in 0..2 {
        world.settle().await;
        world.clock.advance(Duration::from_secs(5));
    }
    world.settle().await;
    let timeline = world.runtime.dispatch_timeline(booking.id).await.unwrap();
    let kinds: Vec<&DispatchLog> = timeline.iter().map(|entry| &entry.log).collect();
    assert_eq!(kinds, vec![&DispatchLog::NoCandidates { wave: 1 }]);

    // A driver coming into range is offered the booking at the next window,
    // long before the minute's retry.
    let mut near = driver(2, "Economy", 0.7);
    world.storage.insert_user(&near).await.unwrap();
    near.driverActiveStatus = true;
    world.runtime.driver_online(&near).await.unwrap();
    world.settle().await;
    world.clock.advance(Duration::from_secs(5));
    let offers = next_offers(&mut world, 1).await;
    assert_eq!(offers[&booking.id], (vec![near.id], 1));
    world.finish().await;
}

both_backends!(a_booking_cancelled_while_it_waits_for_the_window_is_never_offered, batch_cancelled_while_waiting);

async fn batch_cancelled_while_waiting(backend: Backend) {
    let (a_pickup, b_pickup, drivers) = two_pickups_three_drivers();
    let mut world = World::start(backend, batch_settings(), &drivers).await;
    let stays = book(&world, a_pickup, 1).await;
    let gone = book(&world, b_pickup, 2).await;
    let cancel = Command::Cancel { reason: "changed my mind".into(), wallet_balance: None };
    world.runtime.command(gone.id, By::Rider(rider(2).id), cancel).await.unwrap();
    world.settle().await;
    world.clock.advance(Duration::from_secs(5));
    let offers = next_offers(&mut world, 1).await;
    // Alone in the window, A gets its nearest driver (with B it would get driver 2).
    assert_eq!(offers[&stays.id], (vec![drivers[0].id], 1));
    world.settle().await;
    assert!(offers_now(&mut world).is_empty());
    let timeline = world.runtime.dispatch_timeline(gone.id).await.unwrap();
    assert_eq!(timeline.iter().map(|entry| &entry.log).collect::<Vec<_>>(), vec![&DispatchLog::Cancelled]);
    world.finish().await;
}

both_backends!(a_booking_waiting_when_the_policy_changes_is_planned_under_the_new_one, batch_policy_changed);

async fn batch_policy_changed(backend: Backend) {
    let (a_pickup, _, drivers) = two_pickups_three_drivers();
    let mut world = World::start(backend, batch_settings(), &drivers).await;
    let booking = book(&world, a_pickup, 1).await;
    world.settle().await;
    world.storage.save_settings(&settings(), T0).await.unwrap();
    world.runtime.reload_catalog().await.unwrap();
    world.clock.advance(Duration::from_secs(5));
    let offers = next_offers(&mut world, 1).await;
    assert_eq!(offers[&booking.id], (vec![drivers[0].id, drivers[1].id], 1), "a wave of the two nearest");
    world.finish().await;
}

/// Road times: straight lines at 30 km/h (120 s a km), except that the road
/// from `slow_from` to `slow_to` detours ten minutes (a river between them).
struct RiverMaps {
    slow_from: LatLng,
    slow_to: LatLng,
    matrices: AtomicUsize,
}

fn same_place(one: LatLng, other: LatLng) -> bool {
    geo::distance_km(one, other) < 0.001
}

#[async_trait]
impl MapsProvider for RiverMaps {
    async fn autocomplete(&self, _: &str, _: Option<LatLng>, _: Option<&str>) -> Result<Vec<Suggestion>, MapsError> {
        Ok(Vec::new())
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
        self.matrices.fetch_add(1, Ordering::SeqCst);
        Ok(origins
            .iter()
            .map(|origin| {
                destinations
                    .iter()
                    .map(|destination| {
                        let distance_km = geo::distance_km(*origin, *destination);
                        let river = same_place(*origin, self.slow_from) && same_place(*destination, self.slow_to);
                        let time_secs = (distance_km * 120.0).round() as u64 + if river { 600 } else { 0 };
                        Some(Leg { distance_km, time_secs })
                    })
                    .collect()
            })
            .collect())
    }
}

both_backends!(batch_weighs_road_times_when_use_distance_matrix_is_on, batch_on_roads);

async fn batch_on_roads(backend: Backend) {
    let (a_pickup, b_pickup, drivers) = two_pickups_three_drivers();
    let d = |n: usize| drivers[n - 1].id;
    // Driver 1 cannot reach B quickly: the straight-line optimum (A ← 2,
    // B ← 1) costs 912 s on the roads, A ← 1 and B ← 3 only 348 s.
    let maps = Arc::new(RiverMaps {
        slow_from: drivers[0].location.unwrap(),
        slow_to: b_pickup,
        matrices: AtomicUsize::new(0),
    });
    let roads = BatchRoads { maps: maps.clone(), local: false };
    let options = wayfare_actors::RuntimeOptions { batch_roads: Some(roads), ..options() };
    let on_roads = Settings { useDistanceMatrix: true, ..batch_settings() };
    let mut world = World::start_with(backend, on_roads, &drivers, options).await;
    let a = book(&world, a_pickup, 1).await;
    let b = book(&world, b_pickup, 2).await;
    world.settle().await;
    world.clock.advance(Duration::from_secs(5));
    let window = next_offers(&mut world, 2).await;
    assert_eq!((&window[&a.id].0, &window[&b.id].0), (&vec![d(1)], &vec![d(3)]));
    assert_eq!(maps.matrices.load(Ordering::SeqCst), 2, "one matrix per booking");

    // With useDistanceMatrix off a web service is not asked: straight lines.
    for booking in [a.id, b.id] {
        let cancel = Command::Cancel { reason: "again".into(), wallet_balance: None };
        world.runtime.command(booking, By::Admin(admin().id), cancel).await.unwrap();
    }
    world.storage.save_settings(&batch_settings(), T0).await.unwrap();
    world.runtime.reload_catalog().await.unwrap();
    let a = book(&world, a_pickup, 1).await;
    let b = book(&world, b_pickup, 2).await;
    world.settle().await;
    world.drain();
    world.clock.advance(Duration::from_secs(5));
    let window = next_offers(&mut world, 2).await;
    assert_eq!((&window[&a.id].0, &window[&b.id].0), (&vec![d(2)], &vec![d(1)]));
    assert_eq!(maps.matrices.load(Ordering::SeqCst), 2, "the maps were not asked again");
    world.finish().await;
}

/// Straight-line road times that wait for the test to open the gate, and
/// say when they are asked.
struct GatedMaps {
    asked: tokio::sync::mpsc::UnboundedSender<()>,
    gate: tokio::sync::Semaphore,
}

#[async_trait]
impl MapsProvider for GatedMaps {
    async fn autocomplete(&self, _: &str, _: Option<LatLng>, _: Option<&str>) -> Result<Vec<Suggestion>, MapsError> {
        Ok(Vec::new())
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
        let _ = self.asked.send(());
        let _open = self.gate.acquire().await.expect("the gate stays");
        Ok(origins
            .iter()
            .map(|origin| {
                let leg = |destination: &LatLng| {
                    let distance_km = geo::distance_km(*origin, *destination);
                    Some(Leg { distance_km, time_secs: (distance_km * 120.0).round() as u64 })
                };
                destinations.iter().map(leg).collect()
            })
            .collect())
    }
}

both_backends!(a_driver_gone_while_the_pickups_are_timed_is_not_offered, batch_driver_gone_meanwhile);

async fn batch_driver_gone_meanwhile(backend: Backend) {
    let (a_pickup, _, drivers) = two_pickups_three_drivers();
    let (asked, mut asking) = tokio::sync::mpsc::unbounded_channel();
    let maps = Arc::new(GatedMaps { asked, gate: tokio::sync::Semaphore::new(0) });
    // A local router is asked whatever useDistanceMatrix says.
    let roads = BatchRoads { maps: maps.clone(), local: true };
    let options = wayfare_actors::RuntimeOptions { batch_roads: Some(roads), ..options() };
    let mut world = World::start_with(backend, batch_settings(), &drivers, options).await;
    let booking = book(&world, a_pickup, 1).await;
    world.settle().await;
    world.clock.advance(Duration::from_secs(5));
    asking.recv().await.expect("the window asks the maps");
    // The index keeps answering while the maps work: driver 1, the nearest,
    // goes offline meanwhile.
    world.runtime.driver_offline(drivers[0].id).await.unwrap();
    world.settle().await;
    maps.gate.add_permits(16);
    let offers = next_offers(&mut world, 1).await;
    assert_eq!(offers[&booking.id], (vec![drivers[1].id], 1), "the next nearest, not the driver who left");
    world.finish().await;
}

// ---- nearest ------------------------------------------------------------------

both_backends!(nearest_offers_one_driver_at_a_time_past_the_wave_limit, nearest);

async fn nearest(backend: Backend) {
    let drivers: Vec<User> = (1..=4).map(|n| driver(n, "Economy", 0.5 * n as f64)).collect();
    let d = |n: usize| drivers[n - 1].id;
    let one_by_one = Settings { dispatchPolicy: DispatchPolicy::Nearest, ..settings() };
    let mut world = World::start(backend, one_by_one, &drivers).await;
    let booking = book(&world, PICKUP, 1).await;
    assert_eq!(world.wait_for(offer).await, (booking.id, vec![d(1)], 1));

    // A decline asks at once for the next nearest.
    world.runtime.command(booking.id, By::Driver(d(1)), Command::Decline).await.unwrap();
    assert_eq!(world.wait_for(offer).await, (booking.id, vec![d(2)], 2));
    // A lapse too; dispatchMaxWaves (3) bounds waves, not nearest.
    world.clock.advance(Duration::from_secs(15));
    assert_eq!(world.wait_for(offer).await, (booking.id, vec![d(3)], 3));
    world.clock.advance(Duration::from_secs(15));
    assert_eq!(world.wait_for(offer).await, (booking.id, vec![d(4)], 4));
    let withdrawn: Vec<(Vec<UserId>, WithdrawReason)> = world
        .seen
        .iter()
        .filter_map(|event| match event.as_ref() {
            Event::OfferWithdrawn { booking: id, drivers, reason } if *id == booking.id => {
                Some((drivers.clone(), *reason))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        withdrawn,
        vec![
            (vec![d(1)], WithdrawReason::Declined),
            (vec![d(2)], WithdrawReason::Expired),
            (vec![d(3)], WithdrawReason::Expired)
        ]
    );
    let live = world.runtime.booking(booking.id).await.unwrap();
    assert_eq!(live.requestedDrivers.0.iter().copied().collect::<Vec<_>>(), vec![d(4)], "one driver at a time");
    world.finish().await;
}
