//! A runtime on a real database (SQLite always; PostgreSQL when
//! `WAYFARE_TEST_POSTGRES_URL` is set, in a fresh schema, and always in CI),
//! a virtual clock, and helpers to seed the demo-like world and wait for
//! events.
#![allow(dead_code)]

use rust_decimal_macros::dec;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use wayfare_actors::{Event, ManualClock, Runtime, RuntimeOptions};
use wayfare_engine::booking::{DriverSnapshot, NewBooking, RouteInfo};
use wayfare_engine::rules::booking::DeliveryDetails;
use wayfare_engine::*;
use wayfare_storage::Storage;

pub const T0: Millis = 1_800_000_000_000;
pub const PICKUP: LatLng = LatLng { lat: 39.2858, lng: -76.6131 };
pub const DROP: LatLng = LatLng { lat: 39.2634, lng: -76.5797 };

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// `WAYFARE_TEST_POSTGRES_URL`; `None` (the PostgreSQL variant is not run)
/// when it is not set, except in CI (`CI=true`), where a variant that would
/// pass without running is a failure.
pub fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var("WAYFARE_TEST_POSTGRES_URL") {
        return Some(url);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI runs the actor suite on PostgreSQL too: set WAYFARE_TEST_POSTGRES_URL (`make test` starts a local PostgreSQL and sets it)"
    );
    eprintln!("WAYFARE_TEST_POSTGRES_URL not set: PostgreSQL variant not run");
    None
}

/// One database for a test; dropped with it.
pub struct Database {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    schema: Option<(String, String)>,
}

impl Database {
    pub async fn new(backend: Backend) -> Option<Database> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let url = format!("sqlite://{}", dir.path().join("wayfare.db").display());
                Some(Database { url, _dir: Some(dir), schema: None })
            }
            Backend::Postgres => {
                let base = postgres_url()?;
                let schema = format!("actors_{}", uuid::Uuid::now_v7().simple());
                let admin = sqlx::PgPool::connect(&base)
                    .await
                    .expect("WAYFARE_TEST_POSTGRES_URL is set but PostgreSQL does not answer");
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).execute(&admin).await.unwrap();
                admin.close().await;
                let separator = if base.contains('?') { '&' } else { '?' };
                let url = format!("{base}{separator}options[search_path]={schema}");
                Some(Database { url, _dir: None, schema: Some((base, schema)) })
            }
        }
    }

    pub async fn open(&self) -> Arc<dyn Storage> {
        wayfare_storage::open(&self.url).await.expect("storage opens")
    }

    pub async fn drop_schema(&self) {
        if let Some((base, schema)) = &self.schema {
            let admin = sqlx::PgPool::connect(base).await.unwrap();
            sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE"))).execute(&admin).await.unwrap();
            admin.close().await;
        }
    }
}

/// Runs a test body once per backend: `both_backends!(name, body)` makes
/// `name::sqlite` and `name::postgres`.
#[macro_export]
macro_rules! both_backends {
    ($name:ident, $body:path) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                $body(common::Backend::Sqlite).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if common::postgres_url().is_none() {
                    return;
                }
                $body(common::Backend::Postgres).await;
            }
        }
    };
}

pub fn settings() -> Settings {
    Settings {
        autoDispatch: true,
        dispatchPolicy: DispatchPolicy::Waves,
        dispatchWaveSize: 2,
        dispatchOfferSeconds: 15,
        dispatchMaxWaves: 3,
        driverRadius: 5.0,
        ..Settings::default()
    }
}

pub fn car_type(id: u128, name: &str) -> CarType {
    CarType {
        id: CarTypeId::from_u128(id),
        name: name.into(),
        image: String::new(),
        base_fare: dec!(2.5),
        rate_per_unit_distance: dec!(1.2),
        rate_per_hour: dec!(18),
        min_fare: dec!(7),
        convenience_fees: dec!(10),
        convenience_fee_type: AmountType::Percentage,
        extra_info: String::new(),
        createdAt: T0,
        parcelTypes: vec![],
        options: vec![],
        cancelSlab: vec![CancelSlab { minsDelayed: 5, amount: dec!(3) }],
        optionRequired: false,
    }
}

pub fn rider(n: u128) -> User {
    let mut user = User::new(UserId::from_u128(1_000 + n), Role::Rider, T0);
    user.firstName = format!("Rider{n}");
    user.lastName = "Test".into();
    user.email = format!("rider{n}@test.wayfare");
    user.mobile = format!("+1410555{n:04}");
    user.approved = true;
    user.referralId = format!("R{n:04}");
    user
}

pub fn admin() -> User {
    let mut user = User::new(UserId::from_u128(9), Role::Admin, T0);
    user.email = "admin@test.wayfare".into();
    user.approved = true;
    user.referralId = "ADMIN".into();
    user
}

/// A driver `km_north` of the pickup, online, approved, free.
pub fn driver(n: u128, car: &str, km_north: f64) -> User {
    let mut user = User::new(UserId::from_u128(2_000 + n), Role::Driver, T0);
    user.firstName = format!("Driver{n}");
    user.lastName = "Test".into();
    user.email = format!("driver{n}@test.wayfare");
    user.mobile = format!("+1410666{n:04}");
    user.approved = true;
    user.referralId = format!("D{n:04}");
    user.carType = Some(car.into());
    user.driverActiveStatus = true;
    user.vehicleNumber = format!("MD-{n:04}");
    user.location = Some(north_of_pickup(km_north));
    user
}

pub fn snapshot(user: &User) -> DriverSnapshot {
    DriverSnapshot::from(user)
}

/// `km` north of the pickup (negative: south).
pub fn north_of_pickup(km: f64) -> LatLng {
    LatLng::new(PICKUP.lat + km / 111.195, PICKUP.lng)
}

pub fn request() -> NewBooking {
    request_from(PICKUP)
}

/// A Book Now cash trip from `pickup` to the usual drop.
pub fn request_from(pickup: LatLng) -> NewBooking {
    NewBooking {
        pickup: Place { lat: pickup.lat, lng: pickup.lng, add: "Inner Harbor, Baltimore".into() },
        drop: Place { lat: DROP.lat, lng: DROP.lng, add: "Fort McHenry, Baltimore".into() },
        book_later: false,
        tripdate: None,
        route: RouteInfo { distance_km: 4.6, time_secs: 720, coords: vec![], waypoints: vec![] },
        parcel_type_index: None,
        option_index: None,
        delivery: DeliveryDetails::default(),
        promo: None,
        payment_mode: Some(PaymentMode::Cash),
    }
}

pub struct World {
    pub database: Database,
    pub storage: Arc<dyn Storage>,
    pub clock: ManualClock,
    pub runtime: Runtime,
    pub events: broadcast::Receiver<Arc<Event>>,
    /// Every event received so far, in order.
    pub seen: Vec<Arc<Event>>,
    options: RuntimeOptions,
}

pub fn options() -> RuntimeOptions {
    RuntimeOptions { call_timeout: Some(Duration::from_secs(30)), ..RuntimeOptions::default() }
}

impl World {
    /// Seeds settings, two car types, riders, an admin and `drivers`, then starts a runtime.
    pub async fn start(backend: Backend, settings: Settings, drivers: &[User]) -> World {
        World::start_with(backend, settings, drivers, options()).await
    }

    /// [`World::start`] with the runtime's options given.
    pub async fn start_with(backend: Backend, settings: Settings, drivers: &[User], options: RuntimeOptions) -> World {
        let database = Database::new(backend).await.expect("backend available");
        let storage = database.open().await;
        storage.save_settings(&settings, T0).await.unwrap();
        storage.save_car_type(&car_type(1, "Economy"), T0).await.unwrap();
        storage.save_car_type(&car_type(2, "Comfort"), T0).await.unwrap();
        for n in 1..=3 {
            storage.insert_user(&rider(n)).await.unwrap();
        }
        storage.insert_user(&admin()).await.unwrap();
        for user in drivers {
            storage.insert_user(user).await.unwrap();
        }
        let clock = ManualClock::starting_at(T0);
        let runtime = Runtime::start(storage.clone(), Arc::new(clock.clone()), options.clone()).await.unwrap();
        let events = runtime.subscribe();
        World { database, storage, clock, runtime, events, seen: Vec::new(), options }
    }

    /// Stops the runtime and starts a new one on the same database (a restart).
    pub async fn restart(&mut self) {
        self.runtime.shutdown().await;
        self.storage = self.database.open().await;
        self.runtime =
            Runtime::start(self.storage.clone(), Arc::new(self.clock.clone()), self.options.clone()).await.unwrap();
        self.events = self.runtime.subscribe();
    }

    pub async fn finish(self) {
        self.runtime.shutdown().await;
        drop(self.storage);
        self.database.drop_schema().await;
    }

    /// Waits (in real time, as a safety net only) for an event that matches.
    pub async fn wait_for<T>(&mut self, mut matches: impl FnMut(&Event) -> Option<T>) -> T {
        let found = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                match self.events.recv().await {
                    Ok(event) => {
                        self.seen.push(event.clone());
                        if let Some(value) = matches(&event) {
                            return value;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => panic!("the test missed {missed} events"),
                    Err(error) => panic!("event bus closed: {error}"),
                }
            }
        })
        .await;
        found.expect("the expected event did not come")
    }

    /// Events already published, without waiting.
    pub fn drain(&mut self) -> Vec<Arc<Event>> {
        let mut events = Vec::new();
        loop {
            match self.events.try_recv() {
                Ok(event) => {
                    self.seen.push(event.clone());
                    events.push(event);
                }
                Err(broadcast::error::TryRecvError::Lagged(missed)) => panic!("the test missed {missed} events"),
                Err(_) => return events,
            }
        }
    }

    pub fn now(&self) -> Millis {
        wayfare_actors::Clock::now(&self.clock)
    }

    /// Lets the actors finish what is in their mailboxes: a snapshot
    /// round-trip through every live booking and the index.
    pub async fn settle(&self) {
        let _ = self.runtime.counts().await.unwrap();
    }

    /// Waits (up to 10 s of real time) until `booking_actors` live booking
    /// actors remain: an actor that finished its booking stops after its
    /// last event is out, so a count read at once may still see it.
    pub async fn wait_for_booking_actors(&self, booking_actors: usize) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let counts = self.runtime.counts().await.unwrap();
            if counts.booking_actors == booking_actors {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{} booking actors live, {booking_actors} expected",
                counts.booking_actors
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}
