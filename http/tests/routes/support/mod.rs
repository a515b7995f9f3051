//! The world the route tests run in: the real router (`wayfare_http::app`)
//! called with `oneshot`, no server; a fresh SQLite file per test seeded with
//! the demo city; the dispatch runtime on a `ManualClock`, so time moves only
//! when a test says so; and the dev outbox, through which people sign in with
//! the real routes (ask for a code, read it from the outbox, verify it).
//!
//! Fixtures that are not under test (a booking in a given status) are made
//! through the runtime directly, so a route's test never depends on another
//! route working.

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tempfile::TempDir;
use tokio::sync::broadcast;
use tower::ServiceExt;
use wayfare_actors::{Event, ManualClock, Runtime, RuntimeOptions};
use wayfare_engine::booking::{By, Command, DriverSnapshot, NewBooking, RouteInfo, WalletChange};
use wayfare_engine::rules::booking::DeliveryDetails;
use wayfare_engine::{
    Booking, BookingId, BookingStatus, Millis, PaymentMode, Place, Role, Settings, User, UserId, WalletEntryType,
};
use wayfare_http::auth::delivery::Deliveries;
use wayfare_http::config::Config;
use wayfare_http::demo;
use wayfare_http::state::AppState;

/// Where the manual clock starts (2027-01-15).
pub const T0: Millis = 1_800_000_000_000;
pub const MINUTE: Duration = Duration::from_secs(60);

// ---- the app ------------------------------------------------------------------

/// What a test app starts from: the demo city's settings unless changed, the
/// default configuration, the dev outbox on.
pub struct Setup {
    pub settings: Settings,
    pub config: Config,
}

impl Default for Setup {
    fn default() -> Self {
        let mut config = Config::default();
        config.delivery.dev_outbox = true;
        Setup { settings: demo::settings(), config }
    }
}

/// The server's runtime options, waiting longer for actors (tests run many at once).
fn test_options(config: &Config, maps: &Arc<dyn wayfare_maps::MapsProvider>) -> RuntimeOptions {
    RuntimeOptions { call_timeout: Some(Duration::from_secs(30)), ..wayfare_http::runtime_options(config, maps) }
}

pub struct TestApp {
    pub state: AppState,
    pub clock: ManualClock,
    /// The app's router, built once as a server builds it: building it runs
    /// the OpenAPI document and starts a socket fan-out, too much per request.
    pub router: axum::Router,
    _data_dir: TempDir,
}

impl TestApp {
    /// The demo city as `wayfare serve --demo` seeds it.
    pub async fn demo() -> TestApp {
        TestApp::start(Setup::default()).await
    }

    /// The demo city with its settings changed.
    pub async fn with_settings(change: impl FnOnce(&mut Settings)) -> TestApp {
        let mut setup = Setup::default();
        change(&mut setup.settings);
        TestApp::start(setup).await
    }

    pub async fn start(setup: Setup) -> TestApp {
        let data_dir = tempfile::tempdir().expect("a temporary directory");
        let mut config = setup.config;
        config.data_dir = data_dir.path().to_path_buf();
        // No built web app: unknown paths are not answered with index.html.
        config.ui_dir = data_dir.path().join("no-ui");
        let storage = wayfare_storage::open(&config.storage_url()).await.expect("SQLite opens");
        // Saved first, so the demo seed keeps them.
        storage.save_settings(&setup.settings, T0).await.expect("settings saved");
        demo::seed(storage.as_ref()).await.expect("the demo city is seeded");
        let clock = ManualClock::starting_at(T0);
        let maps = wayfare_maps::provider_from(&config.maps, &config.maps_cache_dir()).expect("the maps provider");
        let options = test_options(&config, &maps);
        let runtime = Runtime::start(storage, Arc::new(clock.clone()), options).await.expect("the runtime starts");
        let deliveries = Deliveries::from_config(&config.delivery).expect("deliveries");
        let state = AppState::new(config, runtime, deliveries, maps);
        let router = wayfare_http::app(state.clone());
        TestApp { state, clock, router, _data_dir: data_dir }
    }

    /// The same data directory opened again, as after a restart: the
    /// runtime stopped, then storage and a new runtime started from it, the
    /// clock where it was.
    pub async fn reopen(self) -> TestApp {
        let TestApp { state, clock, router, _data_dir } = self;
        drop(router);
        state.runtime.shutdown().await;
        let config = state.config.clone();
        drop(state);
        let storage = wayfare_storage::open(&config.storage_url()).await.expect("SQLite opens again");
        let maps = wayfare_maps::provider_from(&config.maps, &config.maps_cache_dir()).expect("the maps provider");
        let options = test_options(&config, &maps);
        let runtime = Runtime::start(storage, Arc::new(clock.clone()), options).await.expect("the runtime restarts");
        let deliveries = Deliveries::from_config(&config.delivery).expect("deliveries");
        let state = AppState::new(config, runtime, deliveries, maps);
        let router = wayfare_http::app(state.clone());
        TestApp { state, clock, router, _data_dir }
    }

    pub fn now(&self) -> Millis {
        self.state.now()
    }

    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    pub fn runtime(&self) -> &Runtime {
        &self.state.runtime
    }

    pub fn events(&self) -> broadcast::Receiver<Arc<Event>> {
        self.state.runtime.subscribe()
    }

    // ---- requests -------------------------------------------------------------

    /// Sends one request through the router, as a server would.
    pub async fn send(&self, request: Request<Body>) -> Reply {
        let response = self.router.clone().oneshot(request).await.expect("the router never fails");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a readable body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        Reply { status, headers, body }
    }

    pub async fn get(&self, path: &str, who: Option<&Session>) -> Reply {
        self.send(request(Method::GET, path, who).body(Body::empty()).unwrap()).await
    }

    pub async fn post(&self, path: &str, who: Option<&Session>, body: Value) -> Reply {
        self.send(json_request(Method::POST, path, who, &body)).await
    }

    /// A POST with no body at all (no content type either).
    pub async fn post_empty(&self, path: &str, who: Option<&Session>) -> Reply {
        self.send(request(Method::POST, path, who).body(Body::empty()).unwrap()).await
    }

    /// A POST of raw bytes with the given content type.
    pub async fn post_raw(
        &self,
        path: &str,
        who: Option<&Session>,
        content_type: &str,
        body: impl Into<Body>,
    ) -> Reply {
        let request =
            request(Method::POST, path, who).header(header::CONTENT_TYPE, content_type).body(body.into()).unwrap();
        self.send(request).await
    }

    // ---- signing in -------------------------------------------------------------

    pub async fn request_code(&self, contact: &str) -> Reply {
        self.post("/api/v1/auth/otp/request", None, json!({ "contact": contact })).await
    }

    /// A code request that seems to come from `client` (the rate limit per address).
    pub async fn request_code_from(&self, contact: &str, client: SocketAddr) -> Reply {
        let mut request = json_request(Method::POST, "/api/v1/auth/otp/request", None, &json!({ "contact": contact }));
        request.extensions_mut().insert(ConnectInfo(client));
        self.send(request).await
    }

    /// The newest code the dev outbox holds for `contact`.
    pub async fn latest_code(&self, contact: &str) -> String {
        let reply = self.get(&format!("/api/v1/dev/outbox?to={}", query_encode(contact)), None).await;
        let body = reply.expect(200);
        body["messages"][0]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("no code in the outbox for {contact}: {body}"))
            .to_string()
    }

    pub async fn verify(&self, contact: &str, code: &str) -> Reply {
        self.post("/api/v1/auth/otp/verify", None, json!({ "contact": contact, "code": code })).await
    }

    /// Signs in through the real routes: ask for a code, read the outbox, verify.
    pub async fn sign_in(&self, contact: &str) -> Session {
        self.sign_in_with(contact, json!({})).await
    }

    /// Signs in with extra verify fields (a referral code).
    pub async fn sign_in_with(&self, contact: &str, extra: Value) -> Session {
        self.request_code(contact).await.expect(200);
        let code = self.latest_code(contact).await;
        let mut body = json!({ "contact": contact, "code": code });
        if let (Value::Object(fields), Value::Object(more)) = (&mut body, extra) {
            fields.extend(more);
        }
        let reply = self.post("/api/v1/auth/otp/verify", None, body).await;
        Session::from_verify(&reply)
    }

    // ---- fixtures made through the runtime -------------------------------------------

    /// A Book Now Economy booking from Fells Point to Fort McHenry, made by its rider.
    pub async fn book(&self, customer: &User) -> Arc<Booking> {
        self.runtime()
            .create_booking("Economy", trip_request(), customer, By::Rider(customer.id))
            .await
            .expect("booking created")
    }

    pub async fn command(&self, booking: BookingId, by: By, command: Command) -> Arc<Booking> {
        let name = command.name();
        self.runtime()
            .command(booking, by, command)
            .await
            .unwrap_or_else(|error| panic!("fixture step {name} failed: {error:?}"))
    }

    /// The dispatcher's offer to these drivers.
    pub async fn offer(&self, booking: BookingId, drivers: &[&User]) -> Arc<Booking> {
        let drivers = drivers.iter().map(|driver| driver.id).collect();
        self.command(booking, By::System, Command::Offer { drivers, wave: 1, deadline: None }).await
    }

    pub async fn accept(&self, booking: BookingId, driver: &User) -> Arc<Booking> {
        self.command(booking, By::Driver(driver.id), Command::Accept { driver: DriverSnapshot::from(driver) }).await
    }

    /// A booking of `customer` taken through the state machine up to `stage`,
    /// with `driver` offered it and, from `Accepted` on, assigned.
    pub async fn booking_at(&self, customer: &User, driver: &User, stage: Stage) -> Arc<Booking> {
        let booking = self.book(customer).await;
        let id = booking.id;
        if stage == Stage::New {
            return booking;
        }
        let mut current = self.offer(id, &[driver]).await;
        let by = By::Driver(driver.id);
        for step in [Stage::Accepted, Stage::Arrived, Stage::Started, Stage::Reached, Stage::Paid] {
            if step > stage {
                break;
            }
            current = match step {
                Stage::Accepted => self.accept(id, driver).await,
                Stage::Arrived => self.command(id, by, Command::Arrive { location: None }).await,
                Stage::Started => self.command(id, by, Command::Start { otp: current.otp.0, location: None }).await,
                Stage::Reached => {
                    self.command(id, by, Command::Reach { location: None, drop_address: None, route: Vec::new() }).await
                }
                Stage::Paid => {
                    self.command(id, by, Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO }).await
                }
                Stage::New | Stage::Offered => unreachable!("not a step after the offer"),
            };
        }
        current
    }

    /// Ends what `booking` holds its driver for, so the test's next trip for
    /// that driver is not refused (a driver takes one trip at a time, spec
    /// §5): cancelled by the driver before the pickup, driven to payment
    /// after it. A booking that is not there or holds nobody is left alone.
    pub async fn release_driver(&self, booking: BookingId) {
        let Ok(current) = self.state.storage.booking(booking).await else { return };
        let Some(driver) = current.driver else { return };
        let by = By::Driver(driver);
        let reach = Command::Reach { location: None, drop_address: None, route: Vec::new() };
        let pay = Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO };
        match current.status {
            BookingStatus::Accepted | BookingStatus::Arrived => {
                let reason = "The test is done with it".to_string();
                self.command(booking, by, Command::Cancel { reason, wallet_balance: None }).await;
            }
            BookingStatus::Started => {
                self.command(booking, by, reach).await;
                self.command(booking, by, pay).await;
            }
            BookingStatus::Reached => {
                self.command(booking, by, pay).await;
            }
            _ => {}
        }
    }

    /// Credits a wallet directly in storage (an admin top-up).
    pub async fn credit(&self, user: UserId, amount: Decimal) {
        let change = WalletChange {
            user,
            entry_type: WalletEntryType::Credit,
            amount,
            tx_ref: "AdminCredit".into(),
            idempotency_key: format!("test-credit:{}", uuid::Uuid::now_v7()),
            overdraw: false,
        };
        self.state.storage.apply_wallet(&change, self.now()).await.expect("wallet credited");
    }

    /// Adds a user straight to storage.
    pub async fn insert_user(&self, user: &User) {
        self.state.storage.insert_user(user).await.expect("user inserted");
    }

    /// Waits (in real time, as a safety net only) for the dispatcher to offer
    /// `booking` to `driver`, under a policy that offers at once (`waves`,
    /// `broadcast`, `nearest`).
    pub async fn wait_for_offer(
        &self,
        events: &mut broadcast::Receiver<Arc<Event>>,
        booking: BookingId,
        driver: UserId,
    ) {
        if !offered_within(events, booking, driver, Duration::from_secs(20)).await {
            panic!("booking {booking} was never offered to {driver}");
        }
    }

    /// [`TestApp::wait_for_offer`] under `batch` (the default): the offer
    /// waits for the window to close on the runtime's clock, which moves
    /// here a second at a time until the offer comes. Stepping, not one
    /// jump, because the window is armed when the index actor hears of
    /// the booking, which may be after this call starts.
    pub async fn wait_for_batch_offer(
        &self,
        events: &mut broadcast::Receiver<Arc<Event>>,
        booking: BookingId,
        driver: UserId,
    ) {
        for _ in 0..60 {
            self.advance(Duration::from_secs(1));
            if offered_within(events, booking, driver, Duration::from_millis(300)).await {
                return;
            }
        }
        panic!("booking {booking} was never offered to {driver} in a minute of batch windows");
    }
}

/// Whether an `OfferMade` of `booking` to `driver` comes within `wait`.
async fn offered_within(
    events: &mut broadcast::Receiver<Arc<Event>>,
    booking: BookingId,
    driver: UserId,
    wait: Duration,
) -> bool {
    let offered = async {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Event::OfferMade { booking: offered, drivers, .. } = event.as_ref()
                        && offered.id == booking
                        && drivers.contains(&driver)
                    {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the event bus closed"),
            }
        }
    };
    tokio::time::timeout(wait, offered).await.is_ok()
}

/// How far a fixture booking has gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Created, offered to nobody.
    New,
    /// Offered to the driver.
    Offered,
    Accepted,
    Arrived,
    Started,
    Reached,
    Paid,
}

fn request(method: Method, path: &str, who: Option<&Session>) -> axum::http::request::Builder {
    let builder = Request::builder().method(method).uri(path);
    match who {
        Some(session) => builder.header(header::AUTHORIZATION, format!("Bearer {}", session.token)),
        None => builder,
    }
}

fn json_request(method: Method, path: &str, who: Option<&Session>, body: &Value) -> Request<Body> {
    request(method, path, who)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(serde_json::to_vec(body).unwrap()))
        .unwrap()
}

/// Percent-encodes a query value (a `+` in a phone number must not become a space).
pub fn query_encode(text: &str) -> String {
    let mut encoded = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

// ---- answers ------------------------------------------------------------------

#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    /// The body, after checking the status.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Value {
        assert_eq!(self.status.as_u16(), status, "unexpected status; body: {}", self.body);
        &self.body
    }

    /// The translation key of an error answer, after checking the error shape
    /// `{"error": {"code", "message", "field"?}}` and that the message is a text,
    /// not the key.
    #[track_caller]
    pub fn error_code(&self) -> &str {
        let Some(fields) = self.body.as_object() else { panic!("not an error body: {}", self.body) };
        assert_eq!(fields.len(), 1, "only `error` at the top: {}", self.body);
        let error = self.body["error"].as_object().unwrap_or_else(|| panic!("no error object: {}", self.body));
        assert!(
            error.keys().all(|key| ["code", "message", "field"].contains(&key.as_str())),
            "unexpected keys: {}",
            self.body
        );
        let code = error["code"].as_str().unwrap_or_else(|| panic!("no code: {}", self.body));
        let message = error["message"].as_str().unwrap_or_else(|| panic!("no message: {}", self.body));
        assert!(!message.is_empty() && message != code, "the message is a text for people: {}", self.body);
        code
    }

    /// The field an input error points at.
    pub fn error_field(&self) -> Option<&str> {
        self.body["error"]["field"].as_str()
    }

    /// Checks an error answer: status and translation key.
    #[track_caller]
    pub fn refused(&self, status: u16, code: &str) {
        assert_eq!((self.status.as_u16(), self.error_code()), (status, code), "unexpected answer; body: {}", self.body);
    }

    /// Checks an input error: status, translation key and the field it names.
    #[track_caller]
    pub fn refused_on(&self, status: u16, code: &str, field: &str) {
        self.refused(status, code);
        assert_eq!(self.error_field(), Some(field), "unexpected field; body: {}", self.body);
    }

    pub fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

// ---- people ---------------------------------------------------------------------

/// A signed-in person: the session token and who they are.
#[derive(Debug, Clone)]
pub struct Session {
    pub token: String,
    pub id: UserId,
    pub user: Value,
}

impl Session {
    #[track_caller]
    pub fn from_verify(reply: &Reply) -> Session {
        let body = reply.expect(200);
        let token = body["token"].as_str().unwrap_or_else(|| panic!("no token: {body}")).to_string();
        let id =
            body["user"]["id"].as_str().and_then(|id| id.parse().ok()).unwrap_or_else(|| panic!("no user id: {body}"));
        Session { token, id, user: body["user"].clone() }
    }
}

/// A demo user by e-mail (`demo::users()`, as seeded).
pub fn demo_user(email: &str) -> User {
    demo::users().into_iter().find(|user| user.email == email).unwrap_or_else(|| panic!("no demo user {email}"))
}

pub fn rider(number: u32) -> User {
    demo_user(&format!("rider{number}@demo.wayfare"))
}

/// Demo drivers: 1, 4, 7, … drive Economy; even numbers belong to the demo fleet.
pub fn driver(number: u32) -> User {
    demo_user(&format!("driver{number}@demo.wayfare"))
}

pub fn fleet_admin() -> User {
    demo_user(demo::FLEET_EMAIL)
}

/// A second fleet admin, not in the demo seed.
pub fn other_fleet_admin() -> User {
    let mut user = User::new(UserId::from_u128(0xF1EE_7002), Role::Fleetadmin, T0);
    user.firstName = "Otto".into();
    user.lastName = "Otherfleet".into();
    user.email = "fleet2@test.wayfare".into();
    user.mobile = "+14105559002".into();
    user.approved = true;
    user.referralId = "QFLTB".into();
    user
}

/// An Economy driver of the second fleet.
pub fn other_fleet_driver() -> User {
    let mut user = driver(1);
    user.id = UserId::from_u128(0xF1EE_7003);
    user.firstName = "Dora".into();
    user.lastName = "Otherfleet".into();
    user.email = "driver-of-fleet2@test.wayfare".into();
    user.mobile = "+14105559003".into();
    user.referralId = "QFLTD".into();
    user.vehicleNumber = "MD-9003".into();
    user.fleetadmin = Some(other_fleet_admin().id);
    user
}

// ---- trips ----------------------------------------------------------------------

pub fn fells_point() -> Value {
    json!({ "lat": 39.282, "lng": -76.5933, "add": "S Broadway & Thames St, Baltimore, MD 21231" })
}

pub fn fort_mchenry() -> Value {
    json!({ "lat": 39.26532, "lng": -76.57961, "add": "2400 E Fort Ave, Baltimore, MD 21230" })
}

/// The body of an estimate or a Book Now booking.
pub fn trip_body(car_type: &str) -> Value {
    json!({ "pickup": fells_point(), "drop": fort_mchenry(), "carType": car_type })
}

/// `trip_body` with more fields.
pub fn trip_body_with(car_type: &str, extra: Value) -> Value {
    let mut body = trip_body(car_type);
    if let (Value::Object(fields), Value::Object(more)) = (&mut body, extra) {
        fields.extend(more);
    }
    body
}

/// The same trip as the runtime fixtures book.
pub fn trip_request() -> NewBooking {
    let place = |value: Value| Place {
        lat: value["lat"].as_f64().unwrap(),
        lng: value["lng"].as_f64().unwrap(),
        add: value["add"].as_str().unwrap().to_string(),
    };
    NewBooking {
        pickup: place(fells_point()),
        drop: place(fort_mchenry()),
        book_later: false,
        tripdate: None,
        route: RouteInfo { distance_km: 2.6, time_secs: 310, coords: Vec::new(), waypoints: Vec::new() },
        parcel_type_index: None,
        option_index: None,
        delivery: DeliveryDetails::default(),
        promo: None,
        payment_mode: Some(PaymentMode::Cash),
    }
}

pub fn status_of(booking: &Value) -> &str {
    booking["status"].as_str().unwrap_or_else(|| panic!("no status: {booking}"))
}
