//! Load generator for the dispatch runtime (issue 4 "Measure"), release build:
//!
//! - dispatch latency: 10,000 online drivers, bookings arriving at 100 per
//!   second; time from "booking created" to "offers published";
//! - location throughput: updates per second through the driver actors into
//!   the spatial index, with 10,000 drivers each sending updates.
//!
//! `cargo bench -p wayfare-benches --bench runtime_load` runs the full load;
//! without `--bench` (as `cargo test --benches` runs it) a small smoke run
//! checks that it still works. Storage is SQLite in a temporary directory.

use rand::SeedableRng;
use rand::rngs::StdRng;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wayfare_actors::{Event, LocationUpdate, Runtime, RuntimeOptions, SystemClock};
use wayfare_benches::City;
use wayfare_engine::booking::{By, NewBooking, RouteInfo};
use wayfare_engine::rules::booking::DeliveryDetails;
use wayfare_engine::*;

struct Load {
    drivers: usize,
    bookings: usize,
    per_second: u64,
    updates_per_driver: usize,
}

fn main() {
    let full = std::env::args().any(|arg| arg == "--bench");
    let load = if full {
        Load { drivers: 10_000, bookings: 3_000, per_second: 100, updates_per_driver: 100 }
    } else {
        Load { drivers: 200, bookings: 20, per_second: 100, updates_per_driver: 5 }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(run(load, full));
}

fn car_type(name: &str) -> CarType {
    CarType {
        id: CarTypeId(uuid::Uuid::now_v7()),
        name: name.into(),
        image: String::new(),
        base_fare: rust_decimal::Decimal::new(250, 2),
        rate_per_unit_distance: rust_decimal::Decimal::new(120, 2),
        rate_per_hour: rust_decimal::Decimal::new(1800, 2),
        min_fare: rust_decimal::Decimal::new(700, 2),
        convenience_fees: rust_decimal::Decimal::new(10, 0),
        convenience_fee_type: AmountType::Percentage,
        extra_info: String::new(),
        createdAt: 0,
        parcelTypes: vec![],
        options: vec![],
        cancelSlab: vec![],
        optionRequired: false,
    }
}

async fn run(load: Load, full: bool) {
    let directory = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", directory.path().join("load.db").display());
    let storage = wayfare_storage::open(&url).await.unwrap();
    let city = City::baltimore(4);
    let settings = Settings {
        autoDispatch: true,
        dispatchPolicy: DispatchPolicy::Waves,
        dispatchWaveSize: 5,
        ..Settings::default()
    };
    storage.save_settings(&settings, 0).await.unwrap();
    for name in &city.car_types {
        storage.save_car_type(&car_type(name), 0).await.unwrap();
    }
    let mut rng = StdRng::seed_from_u64(7);
    let synthetic = city.drivers(load.drivers, 0.0, &mut rng);
    let started = Instant::now();
    for (number, driver) in synthetic.iter().enumerate() {
        let mut user = User::new(driver.id, Role::Driver, 0);
        user.firstName = format!("Driver{number}");
        user.email = format!("driver{number}@load.wayfare");
        user.mobile = format!("+1{number:010}");
        user.referralId = format!("L{number:07}");
        user.approved = true;
        user.driverActiveStatus = true;
        user.carType = Some(city.car_types[driver.car_type].clone());
        user.location = Some(driver.position);
        storage.insert_user(&user).await.unwrap();
    }
    let mut customer = User::new(UserId(uuid::Uuid::now_v7()), Role::Rider, 0);
    customer.firstName = "Load".into();
    customer.lastName = "Rider".into();
    customer.email = "rider@load.wayfare".into();
    customer.mobile = "+19999999999".into();
    customer.referralId = "RIDER".into();
    customer.approved = true;
    storage.insert_user(&customer).await.unwrap();
    println!("seeded {} drivers in {:.1} s", load.drivers, started.elapsed().as_secs_f64());

    let runtime = Runtime::start(storage.clone(), Arc::new(SystemClock), RuntimeOptions::default()).await.unwrap();
    dispatch_latency(&runtime, &city, &customer, &load, full).await;
    location_throughput(&runtime, &city, &synthetic, &load).await;
    runtime.shutdown().await;
}

async fn dispatch_latency(runtime: &Runtime, city: &City, customer: &User, load: &Load, full: bool) {
    let mut events = runtime.subscribe();
    let mut rng = StdRng::seed_from_u64(11);
    // First offer time per booking, recorded as events arrive.
    let listener = {
        let expected = load.bookings;
        tokio::spawn(async move {
            let mut offered: HashMap<BookingId, Instant> = HashMap::with_capacity(expected);
            while offered.len() < expected {
                match events.recv().await {
                    Ok(event) => {
                        if let Event::OfferMade { booking, .. } = &*event {
                            offered.entry(booking.id).or_insert_with(Instant::now);
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => panic!("missed {missed} events"),
                    Err(_) => break,
                }
            }
            offered
        })
    };
    let interval = Duration::from_micros(1_000_000 / load.per_second);
    let mut ticker = tokio::time::interval(interval);
    let began = Instant::now();
    let mut creations = tokio::task::JoinSet::new();
    for _ in 0..load.bookings {
        ticker.tick().await;
        let pickup = city.random_point(&mut rng);
        let drop = city.random_step(pickup, 5.0, &mut rng);
        let request = NewBooking {
            pickup: Place { lat: pickup.lat, lng: pickup.lng, add: "pickup".into() },
            drop: Place { lat: drop.lat, lng: drop.lng, add: "drop".into() },
            book_later: false,
            tripdate: None,
            route: RouteInfo {
                distance_km: geo::distance_km(pickup, drop) * 1.3,
                time_secs: 600,
                coords: vec![],
                waypoints: vec![],
            },
            parcel_type_index: None,
            option_index: None,
            delivery: DeliveryDetails::default(),
            promo: None,
            payment_mode: Some(PaymentMode::Cash),
        };
        let car = city.car_types[rand::Rng::random_range(&mut rng, 0..city.car_types.len())].clone();
        let runtime = runtime.clone();
        let customer = customer.clone();
        creations.spawn(async move {
            let start = Instant::now();
            let booking = runtime.create_booking(&car, request, &customer, By::Rider(customer.id)).await.unwrap();
            (booking.id, start)
        });
    }
    let created = creations.join_all().await;
    let offered =
        tokio::time::timeout(Duration::from_secs(120), listener).await.expect("offers for every booking").unwrap();
    let elapsed = began.elapsed();
    let mut latencies: Vec<Duration> =
        created.iter().map(|(id, start)| offered[id].saturating_duration_since(*start)).collect();
    latencies.sort();
    let percentile = |share: f64| latencies[((latencies.len() as f64 * share) as usize).min(latencies.len() - 1)];
    println!(
        "dispatch latency ({} bookings at {}/s over {:.1} s, {} drivers): median {:.2} ms, p99 {:.2} ms, max {:.2} ms{}",
        latencies.len(),
        load.per_second,
        elapsed.as_secs_f64(),
        load.drivers,
        percentile(0.5).as_secs_f64() * 1e3,
        percentile(0.99).as_secs_f64() * 1e3,
        latencies.last().unwrap().as_secs_f64() * 1e3,
        if full { "" } else { " (smoke run)" },
    );
}

async fn location_throughput(
    runtime: &Runtime,
    city: &City,
    drivers: &[wayfare_benches::SyntheticDriver],
    load: &Load,
) {
    let mut rng = StdRng::seed_from_u64(13);
    let mut positions: Vec<LatLng> = drivers.iter().map(|driver| driver.position).collect();
    let total = drivers.len() * load.updates_per_driver;
    let began = Instant::now();
    for _ in 0..load.updates_per_driver {
        for (driver, position) in drivers.iter().zip(positions.iter_mut()) {
            *position = city.random_step(*position, 0.05, &mut rng);
            runtime.driver_location(driver.id, LocationUpdate::at(*position)).unwrap();
        }
    }
    // Every driver actor has handled its updates once it answers a snapshot,
    // and the index has applied every move once it answers after them.
    for driver in drivers {
        runtime.driver(driver.id).await.expect("driver online");
    }
    runtime.counts().await.unwrap();
    let elapsed = began.elapsed();
    println!(
        "location throughput: {total} updates from {} drivers in {:.2} s = {:.0} updates/s",
        drivers.len(),
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
}
