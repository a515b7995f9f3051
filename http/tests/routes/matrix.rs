//! The authorisation matrix (issue 5 "Tests"; DESIGN.md invariant 6, spec §6):
//! every route × every role (logged out, rider, driver, fleet admin, admin) ×
//! whose resource it is, each cell a real request on a fresh fixture.
//!
//! The expectations are written out below as tables, from the rules and the
//! documented decisions of `engine/src/permissions/` — not computed by
//! calling the function the server uses, so a server that decides wrongly
//! fails here:
//! - no session is 401 `not_logged_in` (booking creation says `must_login`);
//! - a role that may never do the action is 403 `not_allowed`, whatever the
//!   resource and whether it exists, so ids cannot be probed with it;
//! - a resource the caller may not know exists (another rider's booking, a
//!   booking never offered to this driver, another fleet's booking or driver,
//!   or no booking at all) is 404 `not_found`;
//! - a driver only offered a booking may read, accept, decline or cancel it;
//!   the trip's steps, payment, chat and tracking are the assigned driver's;
//! - admins manage every booking but do not act as a trip's parties.

use crate::support::*;
use serde_json::{Value, json};
use wayfare_engine::BookingId;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Pass(u16),
    Refuse(u16, &'static str),
}

const OK: Expect = Expect::Pass(200);
const CREATED: Expect = Expect::Pass(201);
const NO_SESSION: Expect = Expect::Refuse(401, "not_logged_in");
const MUST_LOGIN: Expect = Expect::Refuse(401, "must_login");
const NOT_ALLOWED: Expect = Expect::Refuse(403, "not_allowed");
const NOT_FOUND: Expect = Expect::Refuse(404, "not_found");
/// Short for the tables: 403 `not_allowed`.
const NA: Expect = NOT_ALLOWED;
/// Short for the tables: 404 `not_found`.
const NF: Expect = NOT_FOUND;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Caller {
    LoggedOut,
    /// rider 1
    Rider,
    /// driver 4, Economy, of the demo fleet
    Driver,
    /// the demo fleet's admin
    FleetAdmin,
    Admin,
}

/// Whose booking a cell acts on.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Whose {
    /// Rider 1's, offered to driver 4 and, from ACCEPTED on, driven by them
    /// (so in the demo fleet).
    Own,
    /// Rider 1's, NEW, offered to driver 4 and to another fleet's driver;
    /// nobody assigned yet.
    OfferedOnly,
    /// Rider 2's, offered to and driven by another fleet's driver.
    Theirs,
    /// A well-formed id that names no booking.
    Missing,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum BookingRoute {
    Read,
    Accept,
    Decline,
    Arrive,
    Start,
    Reach,
    Pay,
    Rate,
    Cancel,
    Assign,
    ChatRead,
    ChatSend,
    Tracking,
}

impl BookingRoute {
    /// The status the fixtures are in, the one where the step is possible.
    fn stage(self) -> Stage {
        match self {
            BookingRoute::Accept | BookingRoute::Decline => Stage::Offered,
            BookingRoute::Assign => Stage::New,
            BookingRoute::Start => Stage::Arrived,
            BookingRoute::Reach => Stage::Started,
            BookingRoute::Pay => Stage::Reached,
            BookingRoute::Rate => Stage::Paid,
            BookingRoute::Read
            | BookingRoute::Arrive
            | BookingRoute::Cancel
            | BookingRoute::ChatRead
            | BookingRoute::ChatSend
            | BookingRoute::Tracking => Stage::Accepted,
        }
    }
}

struct BookingRow {
    route: BookingRoute,
    /// Own, Theirs, Missing.
    rider: [Expect; 3],
    /// Own, OfferedOnly, Theirs, Missing.
    driver: [Expect; 4],
    /// Own, Theirs, Missing.
    fleet: [Expect; 3],
    /// Own, Theirs, Missing.
    admin: [Expect; 3],
}

const fn row(
    route: BookingRoute,
    rider: [Expect; 3],
    driver: [Expect; 4],
    fleet: [Expect; 3],
    admin: [Expect; 3],
) -> BookingRow {
    BookingRow { route, rider, driver, fleet, admin }
}

/// Logged out, every cell is 401 `not_logged_in`.
#[rustfmt::skip]
const BOOKING_MATRIX: [BookingRow; 13] = [
    //                          rider:                      driver:                              fleet admin:                admin:
    //                          own       theirs missing    own       offered theirs missing         own theirs missing          own theirs missing
    row(BookingRoute::Read,     [OK,      NF, NF],          [OK,      OK, NF, NF],               [OK, NF, NF],               [OK, OK, NF]),
    row(BookingRoute::Accept,   [NA,      NA, NA],          [OK,      OK, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Decline,  [NA,      NA, NA],          [OK,      OK, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Arrive,   [NA,      NA, NA],          [OK,      NA, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Start,    [NA,      NA, NA],          [OK,      NA, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Reach,    [NA,      NA, NA],          [OK,      NA, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Pay,      [OK,      NF, NF],          [OK,      NA, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Rate,     [OK,      NF, NF],          [NA,      NA, NA, NA],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Cancel,   [OK,      NF, NF],          [OK,      OK, NF, NF],               [NA, NA, NA],               [OK, OK, NF]),
    row(BookingRoute::Assign,   [NA,      NA, NA],          [NA,      NA, NA, NA],               [NA, NA, NA],               [OK, OK, NF]),
    row(BookingRoute::ChatRead, [OK,      NF, NF],          [OK,      NA, NF, NF],               [OK, NF, NF],               [OK, OK, NF]),
    row(BookingRoute::ChatSend, [CREATED, NF, NF],          [CREATED, NA, NF, NF],               [NA, NA, NA],               [NA, NA, NA]),
    row(BookingRoute::Tracking, [OK,      NF, NF],          [OK,      NA, NF, NF],               [OK, NF, NF],               [OK, OK, NF]),
];

/// The people of the matrix, signed in through the real routes.
struct People {
    rider: Session,
    driver: Session,
    fleet: Session,
    admin: Session,
}

impl People {
    async fn sign_in(app: &TestApp) -> People {
        People {
            rider: app.sign_in("rider1@demo.wayfare").await,
            driver: app.sign_in("driver4@demo.wayfare").await,
            fleet: app.sign_in("fleet@demo.wayfare").await,
            admin: app.sign_in("admin@demo.wayfare").await,
        }
    }

    fn of(&self, caller: Caller) -> Option<&Session> {
        match caller {
            Caller::LoggedOut => None,
            Caller::Rider => Some(&self.rider),
            Caller::Driver => Some(&self.driver),
            Caller::FleetAdmin => Some(&self.fleet),
            Caller::Admin => Some(&self.admin),
        }
    }
}

/// Auto-dispatch off (so assign is possible and nothing moves by itself),
/// another fleet with a driver, funds in rider 1's wallet, driver 7 online
/// for the admin to assign.
async fn matrix_app() -> TestApp {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
    app.credit(rider(1).id, rust_decimal::Decimal::new(100_000, 2)).await;
    app.runtime().driver_online(&driver(7)).await.expect("driver 7 online");
    app.runtime().driver_online(&driver(4)).await.expect("driver 4 online");
    app
}

/// A fresh booking for one cell.
async fn fixture(app: &TestApp, whose: Whose, stage: Stage) -> (BookingId, Option<u32>) {
    let booking = match whose {
        Whose::Own => app.booking_at(&rider(1), &driver(4), stage).await,
        Whose::Theirs => app.booking_at(&rider(2), &other_fleet_driver(), stage).await,
        Whose::OfferedOnly => {
            let booking = app.book(&rider(1)).await;
            app.offer(booking.id, &[&driver(4), &other_fleet_driver()]).await
        }
        Whose::Missing => return (BookingId(uuid::Uuid::now_v7()), Some(12_345)),
    };
    (booking.id, booking.otp.0)
}

async fn call(
    app: &TestApp,
    route: BookingRoute,
    caller: Caller,
    who: Option<&Session>,
    id: BookingId,
    otp: Option<u32>,
) -> Reply {
    let at = |action: &str| format!("/api/v1/bookings/{id}/{action}");
    match route {
        BookingRoute::Read => app.get(&format!("/api/v1/bookings/{id}"), who).await,
        BookingRoute::Accept => app.post_empty(&at("accept"), who).await,
        BookingRoute::Decline => app.post_empty(&at("decline"), who).await,
        BookingRoute::Arrive => app.post_empty(&at("arrive"), who).await,
        BookingRoute::Start => app.post(&at("start"), who, json!({ "otp": otp })).await,
        BookingRoute::Reach => app.post_empty(&at("reach"), who).await,
        BookingRoute::Pay => {
            // Drivers collect cash; riders pay from the wallet.
            let mode = if caller == Caller::Driver { "cash" } else { "wallet" };
            app.post(&at("pay"), who, json!({ "payment_mode": mode })).await
        }
        BookingRoute::Rate => app.post(&at("rate"), who, json!({ "rating": 5 })).await,
        BookingRoute::Cancel => app.post(&at("cancel"), who, json!({ "reason": "Changed my plans" })).await,
        BookingRoute::Assign => app.post(&at("assign"), who, json!({ "driver": driver(7).id })).await,
        BookingRoute::ChatRead => app.get(&at("chat"), who).await,
        BookingRoute::ChatSend => app.post(&at("chat"), who, json!({ "message": "Hello from the matrix" })).await,
        BookingRoute::Tracking => app.get(&at("tracking"), who).await,
    }
}

/// Compares an answer with its cell; a pass must also answer the right thing,
/// and a refusal must have the API's error shape.
fn check(reply: &Reply, expected: Expect, route_answers_the_booking: Option<BookingId>) -> Result<(), String> {
    let status = reply.status.as_u16();
    let code = reply.body["error"]["code"].as_str();
    let (expected_status, expected_code) = match expected {
        Expect::Pass(status) => (status, None),
        Expect::Refuse(status, key) => (status, Some(key)),
    };
    if (status, code) != (expected_status, expected_code) {
        return Err(format!("got {status} {}, expected {expected:?}; body {}", code.unwrap_or("-"), reply.body));
    }
    if code.is_some() {
        let _ = reply.error_code(); // panics on a malformed error body
    }
    if let Some(id) = route_answers_the_booking
        && code.is_none()
        && reply.body["id"] != Value::String(id.to_string())
    {
        return Err(format!("answered something else than the booking: {}", reply.body));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_booking_route_answers_every_role_on_every_kind_of_booking_as_the_rules_say() {
    let app = matrix_app().await;
    let people = People::sign_in(&app).await;
    let mut failures = Vec::new();
    let mut cells = 0;
    for row in &BOOKING_MATRIX {
        let mut plan: Vec<(Caller, Whose, Expect)> =
            vec![(Caller::LoggedOut, Whose::Own, NO_SESSION), (Caller::LoggedOut, Whose::Missing, NO_SESSION)];
        for (whose, expected) in [Whose::Own, Whose::Theirs, Whose::Missing].into_iter().zip(row.rider) {
            plan.push((Caller::Rider, whose, expected));
        }
        for (whose, expected) in
            [Whose::Own, Whose::OfferedOnly, Whose::Theirs, Whose::Missing].into_iter().zip(row.driver)
        {
            plan.push((Caller::Driver, whose, expected));
        }
        for (whose, expected) in [Whose::Own, Whose::Theirs, Whose::Missing].into_iter().zip(row.fleet) {
            plan.push((Caller::FleetAdmin, whose, expected));
        }
        for (whose, expected) in [Whose::Own, Whose::Theirs, Whose::Missing].into_iter().zip(row.admin) {
            plan.push((Caller::Admin, whose, expected));
        }
        for (caller, whose, expected) in plan {
            let (id, otp) = fixture(&app, whose, row.route.stage()).await;
            let reply = call(&app, row.route, caller, people.of(caller), id, otp).await;
            let answers_booking = match row.route {
                BookingRoute::ChatRead | BookingRoute::ChatSend | BookingRoute::Tracking => None,
                _ => Some(id),
            };
            if let Err(problem) = check(&reply, expected, answers_booking) {
                failures.push(format!("{:?} by {caller:?} on {whose:?}: {problem}", row.route));
            }
            // Each cell has a trip of its own: its driver is free for the next.
            app.release_driver(id).await;
            cells += 1;
        }
    }
    assert_eq!(cells, 13 * 15);
    assert!(failures.is_empty(), "{} of {cells} cells disagree:\n{}", failures.len(), failures.join("\n"));
}

// ---- routes without a booking id ------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum Route {
    OtpRequest,
    OtpVerify,
    DevOutbox,
    Me,
    Logout,
    Settings,
    CarTypes,
    Health,
    Estimate,
    Create,
    List,
    Tasks,
    DriverStatus,
    DriverLocation,
    GeoAutocomplete,
    GeoPlace,
    GeoAddress,
    GeoDirections,
    GeoMatrix,
}

/// Logged out, rider, driver, fleet admin, admin.
#[rustfmt::skip]
const ROUTE_MATRIX: [(Route, [Expect; 5]); 19] = [
    //                            logged out  rider    driver  fleet  admin
    (Route::OtpRequest,      [OK,         OK,      OK,     OK,    OK]),
    (Route::OtpVerify,       [OK,         OK,      OK,     OK,    OK]),
    (Route::DevOutbox,       [OK,         OK,      OK,     OK,    OK]),
    (Route::Me,              [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::Logout,          [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::Settings,        [OK,         OK,      OK,     OK,    OK]),
    (Route::CarTypes,        [OK,         OK,      OK,     OK,    OK]),
    (Route::Health,          [OK,         OK,      OK,     OK,    OK]),
    (Route::Estimate,        [NO_SESSION, OK,      NA,     NA,    OK]),
    (Route::Create,          [MUST_LOGIN, CREATED, NA,     NA,    CREATED]),
    (Route::List,            [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::Tasks,           [NO_SESSION, NA,      OK,     NA,    NA]),
    (Route::DriverStatus,    [NO_SESSION, NA,      OK,     NA,    NA]),
    (Route::DriverLocation,  [NO_SESSION, NA,      OK,     NA,    NA]),
    (Route::GeoAutocomplete, [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::GeoPlace,        [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::GeoAddress,      [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::GeoDirections,   [NO_SESSION, OK,      OK,     OK,    OK]),
    (Route::GeoMatrix,       [NO_SESSION, OK,      OK,     OK,    OK]),
];

const CALLERS: [Caller; 5] = [Caller::LoggedOut, Caller::Rider, Caller::Driver, Caller::FleetAdmin, Caller::Admin];

fn email_of(caller: Caller) -> &'static str {
    match caller {
        Caller::LoggedOut => "nobody@example.com",
        Caller::Rider => "rider1@demo.wayfare",
        Caller::Driver => "driver4@demo.wayfare",
        Caller::FleetAdmin => "fleet@demo.wayfare",
        Caller::Admin => "admin@demo.wayfare",
    }
}

async fn call_route(app: &TestApp, route: Route, caller: Caller, people: &People) -> Reply {
    let who = people.of(caller);
    let label = format!("{caller:?}").to_lowercase();
    let point = json!({ "lat": 39.2861, "lng": -76.6072 });
    match route {
        Route::OtpRequest => {
            let body = json!({ "contact": format!("request-{label}@example.com") });
            app.post("/api/v1/auth/otp/request", who, body).await
        }
        Route::OtpVerify => {
            let contact = format!("verify-{label}@example.com");
            app.request_code(&contact).await.expect(200);
            let code = app.latest_code(&contact).await;
            app.post("/api/v1/auth/otp/verify", who, json!({ "contact": contact, "code": code })).await
        }
        Route::DevOutbox => app.get("/api/v1/dev/outbox?to=rider1%40demo.wayfare", who).await,
        Route::Me => app.get("/api/v1/auth/me", who).await,
        Route::Logout => {
            // A session of its own, so the matrix keeps its people signed in.
            let throwaway = match caller {
                Caller::LoggedOut => None,
                _ => Some(app.sign_in(email_of(caller)).await),
            };
            app.post_empty("/api/v1/auth/logout", throwaway.as_ref()).await
        }
        Route::Settings => app.get("/api/v1/settings", who).await,
        Route::CarTypes => app.get("/api/v1/cartypes", who).await,
        Route::Health => app.get("/healthz", who).await,
        Route::Estimate => app.post("/api/v1/bookings/estimate", who, trip_body("Economy")).await,
        Route::Create => {
            // An admin books for rider 2; a rider's `customer` is ignored.
            app.post("/api/v1/bookings", who, trip_body_with("Economy", json!({ "customer": rider(2).id }))).await
        }
        Route::List => app.get("/api/v1/bookings", who).await,
        Route::Tasks => app.get("/api/v1/tasks", who).await,
        Route::DriverStatus => app.post("/api/v1/drivers/me/status", who, json!({ "driverActiveStatus": true })).await,
        Route::DriverLocation => app.post("/api/v1/drivers/me/location", who, point).await,
        Route::GeoAutocomplete => app.post("/api/v1/geo/autocomplete", who, json!({ "searchKeyword": "harbor" })).await,
        Route::GeoPlace => app.post("/api/v1/geo/place", who, json!({ "place_id": "bmore:inner-harbor" })).await,
        Route::GeoAddress => app.post("/api/v1/geo/address", who, json!({ "latlng": point })).await,
        Route::GeoDirections => {
            app.post(
                "/api/v1/geo/directions",
                who,
                json!({ "start": point, "dest": { "lat": 39.26532, "lng": -76.57961 } }),
            )
            .await
        }
        Route::GeoMatrix => app.post("/api/v1/geo/matrix", who, json!({ "start": [point], "dest": [point] })).await,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_other_route_answers_every_role_as_the_rules_say() {
    let app = matrix_app().await;
    let people = People::sign_in(&app).await;
    let mut failures = Vec::new();
    let mut cells = 0;
    for (route, expectations) in ROUTE_MATRIX {
        for (caller, expected) in CALLERS.into_iter().zip(expectations) {
            let reply = call_route(&app, route, caller, &people).await;
            if let Err(problem) = check(&reply, expected, None) {
                failures.push(format!("{route:?} by {caller:?}: {problem}"));
            }
            cells += 1;
        }
    }
    assert_eq!(cells, 19 * 5);
    assert!(failures.is_empty(), "{} of {cells} cells disagree:\n{}", failures.len(), failures.join("\n"));
}

// ---- wallets ------------------------------------------------------------------------------

/// The wallets asked for: rider 1, rider 2, driver 4 (the demo fleet's),
/// the other fleet's driver, the demo fleet admin, and no one.
#[rustfmt::skip]
const WALLET_MATRIX: [(Caller, [Expect; 6]); 5] = [
    //                     rider 1     rider 2     driver 4     other fleet's  fleet admin  no one
    (Caller::LoggedOut,  [NO_SESSION, NO_SESSION, NO_SESSION,  NO_SESSION,    NO_SESSION,  NO_SESSION]),
    (Caller::Rider,      [OK,         NF,         NF,          NF,            NF,          NF]),
    (Caller::Driver,     [NF,         NF,         OK,          NF,            NF,          NF]),
    // A fleet admin knows their drivers exist but does not read their wallets.
    (Caller::FleetAdmin, [NF,         NF,         NA,          NF,            OK,          NF]),
    (Caller::Admin,      [OK,         OK,         OK,          OK,            OK,          NF]),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wallets_are_shown_to_their_owner_and_admins_only() {
    let app = matrix_app().await;
    let people = People::sign_in(&app).await;
    let owners = [
        rider(1).id,
        rider(2).id,
        driver(4).id,
        other_fleet_driver().id,
        fleet_admin().id,
        wayfare_engine::UserId(uuid::Uuid::now_v7()),
    ];
    let mut failures = Vec::new();
    let mut cells = 0;
    for (caller, expectations) in WALLET_MATRIX {
        for (owner, expected) in owners.into_iter().zip(expectations) {
            let reply = app.get(&format!("/api/v1/users/{owner}/wallet"), people.of(caller)).await;
            match check(&reply, expected, None) {
                Ok(()) if expected == OK && !reply.body["walletBalance"].is_number() => {
                    failures.push(format!("{caller:?} on {owner}: no balance in {}", reply.body));
                }
                Ok(()) => {}
                Err(problem) => failures.push(format!("{caller:?} on {owner}: {problem}")),
            }
            cells += 1;
        }
    }
    assert_eq!(cells, 30);
    assert!(failures.is_empty(), "{} of {cells} cells disagree:\n{}", failures.len(), failures.join("\n"));
}

// ---- demo mode ------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_mode_refuses_panel_cancels_and_assigns_after_the_ownership_checks() {
    let app = TestApp::with_settings(|settings| {
        settings.autoDispatch = false;
        settings.AllowCriticalEditsAdmin = false;
    })
    .await;
    app.insert_user(&other_fleet_driver()).await;
    app.runtime().driver_online(&driver(7)).await.unwrap();
    let people = People::sign_in(&app).await;
    let demo_mode = Expect::Refuse(403, "demo_mode");
    // (caller, whose, route, expected)
    let table = [
        (Caller::Rider, Whose::Own, BookingRoute::Cancel, demo_mode),
        (Caller::Rider, Whose::Theirs, BookingRoute::Cancel, NOT_FOUND),
        (Caller::Admin, Whose::Own, BookingRoute::Cancel, demo_mode),
        (Caller::Admin, Whose::Missing, BookingRoute::Cancel, NOT_FOUND),
        (Caller::Driver, Whose::Own, BookingRoute::Cancel, OK),
        (Caller::Driver, Whose::OfferedOnly, BookingRoute::Cancel, OK),
        (Caller::Admin, Whose::Own, BookingRoute::Assign, demo_mode),
        (Caller::Rider, Whose::Own, BookingRoute::Assign, NOT_ALLOWED),
        // The booking flow people try in a demo stays open.
        (Caller::Driver, Whose::Own, BookingRoute::Arrive, OK),
        (Caller::Rider, Whose::Own, BookingRoute::Pay, Expect::Refuse(409, "insufficient_wallet_balance")),
        (Caller::Driver, Whose::Own, BookingRoute::Pay, OK),
        (Caller::Rider, Whose::Own, BookingRoute::Rate, OK),
        (Caller::Rider, Whose::Own, BookingRoute::ChatSend, CREATED),
    ];
    let mut failures = Vec::new();
    for (caller, whose, route, expected) in table {
        let (id, otp) = fixture(&app, whose, route.stage()).await;
        let reply = call(&app, route, caller, people.of(caller), id, otp).await;
        if let Err(problem) = check(&reply, expected, None) {
            failures.push(format!("{route:?} by {caller:?} on {whose:?}: {problem}"));
        }
        app.release_driver(id).await;
    }
    let created = app.post("/api/v1/bookings", Some(&people.rider), trip_body("Economy")).await;
    if created.status.as_u16() != 201 {
        failures.push(format!("booking in demo mode: {}", created.body));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
