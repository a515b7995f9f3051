//! The authorisation matrix of the admin panel's routes (users, profile, car
//! types, cancellation reasons, settings, app info): every route × every
//! role (logged out, rider, driver, fleet admin, admin) × whose account it
//! is (a driver of the caller's fleet, another fleet's driver, a rider, the
//! caller themself, nobody), with critical edits allowed and in demo mode.
//!
//! The expectations are written out as tables from the rules of
//! `engine/src/permissions/` and spec §5/§6, not computed by the function
//! the server uses:
//! - no session is 401 `not_logged_in` (only the app info is public);
//! - a role that may never do it is 403 `not_allowed`, whatever the target;
//! - an account outside the caller's reach (another fleet's driver, a rider,
//!   for a fleet admin) is 404 `not_found`, like one that does not exist;
//! - a fleet admin's own account and an admin deleting themself are 403;
//! - demo mode refuses adding and deleting users and every catalog write
//!   with `demo_mode`, after the checks above; edits, approval, the own
//!   profile and reads pass.

use crate::admin_support::*;
use crate::support::*;
use axum::http::Method;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU32, Ordering};
use wayfare_engine::{CarType, CarTypeId, User, UserId};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Pass(u16),
    Refuse(u16, &'static str),
}

const OK: Expect = Expect::Pass(200);
const CREATED: Expect = Expect::Pass(201);
const NA: Expect = Expect::Refuse(403, "not_allowed");
const NF: Expect = Expect::Refuse(404, "not_found");
const DM: Expect = Expect::Refuse(403, "demo_mode");
const NO_SESSION: Expect = Expect::Refuse(401, "not_logged_in");

#[derive(Debug, Clone, Copy, PartialEq)]
enum Caller {
    LoggedOut,
    /// rider 1
    Rider,
    /// driver 4, of the demo fleet
    Driver,
    /// the demo fleet's admin
    FleetAdmin,
    Admin,
}

const SIGNED_IN: [Caller; 4] = [Caller::Rider, Caller::Driver, Caller::FleetAdmin, Caller::Admin];

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
            fleet: app.sign_in(FLEET).await,
            admin: app.sign_in(ADMIN).await,
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

#[track_caller]
fn check(reply: &Reply, expected: Expect, context: &str) {
    match expected {
        Expect::Pass(status) => assert_eq!(reply.status.as_u16(), status, "{context}: {}", reply.body),
        Expect::Refuse(status, code) => {
            assert_eq!((reply.status.as_u16(), reply.error_code()), (status, code), "{context}: {}", reply.body)
        }
    }
}

/// Unique contacts and ids for the accounts each cell makes.
static NEXT: AtomicU32 = AtomicU32::new(1);

fn fresh(mut user: User) -> User {
    let number = NEXT.fetch_add(1, Ordering::Relaxed);
    user.id = UserId::from_u128(0xBEEF_0000 + u128::from(number));
    user.email = format!("matrix{number}@test.wayfare");
    user.mobile = format!("+1410556{:04}", number % 10_000);
    let letter = |shift: u32| char::from(b'A' + ((number / 26u32.pow(shift)) % 26) as u8);
    user.referralId = format!("MX{}{}{}", letter(2), letter(1), letter(0));
    user
}

// ---- routes on one account ----------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum UserRoute {
    Read,
    Edit,
    Approve,
    Delete,
}

/// Whose account a cell acts on.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Whose {
    /// A driver of the demo fleet (the fleet admin caller's).
    FleetDriver,
    /// A driver of another fleet.
    OtherFleetDriver,
    /// A rider: someone else's account.
    Rider,
    /// The caller's own account.
    Itself,
    /// An id that names nobody.
    Missing,
}

const WHOSE: [Whose; 5] = [Whose::FleetDriver, Whose::OtherFleetDriver, Whose::Rider, Whose::Itself, Whose::Missing];

struct UserRow {
    route: UserRoute,
    /// Per caller (rider, driver, fleet admin, admin), per `WHOSE`.
    cells: [[Expect; 5]; 4],
}

/// Critical edits allowed.
#[rustfmt::skip]
const USER_MATRIX: [UserRow; 4] = [
    //                                        fleet driver  other fleet's  rider  itself  missing
    UserRow { route: UserRoute::Read,    cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, OK, NF]] },
    UserRow { route: UserRoute::Edit,    cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, OK, NF]] },
    UserRow { route: UserRoute::Approve, cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, OK, NF]] },
    UserRow { route: UserRoute::Delete,  cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, NA, NF]] },
];

/// Demo mode: only deleting changes, and only where it would have passed.
#[rustfmt::skip]
const USER_MATRIX_DEMO: [UserRow; 4] = [
    UserRow { route: UserRoute::Read,    cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, OK, NF]] },
    UserRow { route: UserRoute::Edit,    cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, OK, NF]] },
    UserRow { route: UserRoute::Approve, cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [OK, NF, NF, NA, NF], [OK, OK, OK, OK, NF]] },
    UserRow { route: UserRoute::Delete,  cells: [[NA, NA, NA, NA, NA], [NA, NA, NA, NA, NA], [DM, NF, NF, NA, NF], [DM, DM, DM, NA, NF]] },
];

/// A fresh account of that kind for each cell, so a deletion never changes another cell.
async fn target(app: &TestApp, whose: Whose, caller: &Session) -> UserId {
    let account = match whose {
        Whose::FleetDriver => fresh(driver(2)),
        Whose::OtherFleetDriver => fresh(other_fleet_driver()),
        Whose::Rider => fresh(rider(2)),
        Whose::Itself => return caller.id,
        Whose::Missing => return UserId(uuid::Uuid::now_v7()),
    };
    app.insert_user(&account).await;
    account.id
}

async fn call_user_route(app: &TestApp, route: UserRoute, id: UserId, who: Option<&Session>) -> Reply {
    let path = format!("/api/v1/users/{id}");
    match route {
        UserRoute::Read => app.get(&path, who).await,
        UserRoute::Edit => patch(app, &path, who, json!({ "lastName": "Matrix" })).await,
        UserRoute::Approve => app.post_empty(&format!("{path}/approve"), who).await,
        UserRoute::Delete => delete(app, &path, who).await,
    }
}

async fn run_user_matrix(matrix: &[UserRow], demo: bool) {
    for row in matrix {
        let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = !demo).await;
        add_second_fleet(&app).await;
        let people = People::sign_in(&app).await;
        for (caller_index, caller) in SIGNED_IN.into_iter().enumerate() {
            let session = people.of(caller).unwrap();
            for (whose_index, whose) in WHOSE.into_iter().enumerate() {
                let id = target(&app, whose, session).await;
                let reply = call_user_route(&app, row.route, id, Some(session)).await;
                let context = format!("{:?} by {caller:?} on {whose:?} (demo {demo})", row.route);
                check(&reply, row.cells[caller_index][whose_index], &context);
            }
        }
        for whose in WHOSE {
            let id = target(&app, whose, &people.admin).await;
            let reply = call_user_route(&app, row.route, id, None).await;
            check(&reply, NO_SESSION, &format!("{:?} logged out on {whose:?}", row.route));
        }
    }
}

#[tokio::test]
async fn the_user_routes_answer_each_role_on_each_account() {
    run_user_matrix(&USER_MATRIX, false).await;
}

#[tokio::test]
async fn the_user_routes_in_demo_mode() {
    run_user_matrix(&USER_MATRIX_DEMO, true).await;
}

// ---- routes on the platform ------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum PlatformRoute {
    ListUsers,
    UserExists,
    AddRider,
    AddDriver,
    OwnProfile,
    AddCarType,
    UpdateCarType,
    UpdateMissingCarType,
    DeleteCarType,
    ReplaceReasons,
    AddReason,
    UpdateReason,
    UpdateMissingReason,
    DeleteReason,
    EditSettings,
    ReadAppInfo,
    EditAppInfo,
}

struct PlatformRow {
    route: PlatformRoute,
    logged_out: Expect,
    /// Rider, driver, fleet admin, admin; critical edits allowed.
    cells: [Expect; 4],
    /// The same in demo mode.
    demo: [Expect; 4],
}

#[rustfmt::skip]
const PLATFORM_MATRIX: [PlatformRow; 17] = [
    //                                                                                      rider driver fleet  admin                  rider driver fleet admin
    PlatformRow { route: PlatformRoute::ListUsers,            logged_out: NO_SESSION, cells: [NA, NA, OK,      OK],      demo: [NA, NA, OK, OK] },
    PlatformRow { route: PlatformRoute::UserExists,           logged_out: NO_SESSION, cells: [NA, NA, OK,      OK],      demo: [NA, NA, OK, OK] },
    PlatformRow { route: PlatformRoute::AddRider,             logged_out: NO_SESSION, cells: [NA, NA, NA,      CREATED], demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::AddDriver,            logged_out: NO_SESSION, cells: [NA, NA, CREATED, CREATED], demo: [NA, NA, DM, DM] },
    PlatformRow { route: PlatformRoute::OwnProfile,           logged_out: NO_SESSION, cells: [OK, OK, OK,      OK],      demo: [OK, OK, OK, OK] },
    PlatformRow { route: PlatformRoute::AddCarType,           logged_out: NO_SESSION, cells: [NA, NA, NA,      CREATED], demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::UpdateCarType,        logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::UpdateMissingCarType, logged_out: NO_SESSION, cells: [NA, NA, NA,      NF],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::DeleteCarType,        logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::ReplaceReasons,       logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::AddReason,            logged_out: NO_SESSION, cells: [NA, NA, NA,      CREATED], demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::UpdateReason,         logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::UpdateMissingReason,  logged_out: NO_SESSION, cells: [NA, NA, NA,      NF],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::DeleteReason,         logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::EditSettings,         logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
    PlatformRow { route: PlatformRoute::ReadAppInfo,          logged_out: OK,         cells: [OK, OK, OK,      OK],      demo: [OK, OK, OK, OK] },
    PlatformRow { route: PlatformRoute::EditAppInfo,          logged_out: NO_SESSION, cells: [NA, NA, NA,      OK],      demo: [NA, NA, NA, DM] },
];

/// A car type nobody uses, for a deletion.
async fn spare_car_type(app: &TestApp) -> CarTypeId {
    let number = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut car_type: CarType = wayfare_http::demo::car_types().remove(0);
    car_type.id = CarTypeId::from_u128(0xCA7_0000 + u128::from(number));
    car_type.name = format!("Spare {number}");
    app.state.storage.save_car_type(&car_type, app.now()).await.unwrap();
    app.runtime().reload_catalog().await.unwrap();
    car_type.id
}

fn unique_new_user(role: &str) -> Value {
    let number = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut body = new_driver_body(&format!("added{number}@matrix.test"), &format!("+1410557{:04}", number % 10_000));
    body["usertype"] = json!(role);
    if role != "driver" {
        let fields = body.as_object_mut().unwrap();
        for driver_only in ["carType", "vehicleMake", "vehicleModel", "vehicleNumber"] {
            fields.remove(driver_only);
        }
    }
    body
}

async fn call_platform_route(app: &TestApp, route: PlatformRoute, who: Option<&Session>) -> Reply {
    let economy = wayfare_http::demo::car_types().remove(0).id;
    match route {
        PlatformRoute::ListUsers => app.get("/api/v1/users", who).await,
        PlatformRoute::UserExists => app.get("/api/v1/users/exists?email=rider2%40demo.wayfare", who).await,
        PlatformRoute::AddRider => app.post("/api/v1/users", who, unique_new_user("rider")).await,
        PlatformRoute::AddDriver => app.post("/api/v1/users", who, unique_new_user("driver")).await,
        PlatformRoute::OwnProfile => patch(app, "/api/v1/users/me", who, json!({ "lastName": "Matrix" })).await,
        PlatformRoute::AddCarType => {
            let number = NEXT.fetch_add(1, Ordering::Relaxed);
            let body = json!({ "name": format!("Matrix {number}"), "base_fare": 1, "rate_per_unit_distance": 1, "rate_per_hour": 1, "min_fare": 1, "convenience_fees": 0 });
            app.post("/api/v1/cartypes", who, body).await
        }
        PlatformRoute::UpdateCarType => {
            put(app, &format!("/api/v1/cartypes/{economy}"), who, json!({ "min_fare": 7 })).await
        }
        PlatformRoute::UpdateMissingCarType => {
            put(app, &format!("/api/v1/cartypes/{}", uuid::Uuid::now_v7()), who, json!({ "min_fare": 7 })).await
        }
        PlatformRoute::DeleteCarType => {
            let spare = spare_car_type(app).await;
            delete(app, &format!("/api/v1/cartypes/{spare}"), who).await
        }
        PlatformRoute::ReplaceReasons => {
            put(app, "/api/v1/cancelreasons", who, json!({ "reasons": ["Late", "Other"] })).await
        }
        PlatformRoute::AddReason => {
            let number = NEXT.fetch_add(1, Ordering::Relaxed);
            app.post("/api/v1/cancelreasons", who, json!({ "label": format!("Reason {number}") })).await
        }
        PlatformRoute::UpdateReason => {
            let number = NEXT.fetch_add(1, Ordering::Relaxed);
            put(app, "/api/v1/cancelreasons/0", who, json!({ "label": format!("Changed {number}") })).await
        }
        PlatformRoute::UpdateMissingReason => {
            put(app, "/api/v1/cancelreasons/99", who, json!({ "label": "Nope" })).await
        }
        PlatformRoute::DeleteReason => delete(app, "/api/v1/cancelreasons/0", who).await,
        PlatformRoute::EditSettings => patch(app, "/api/v1/settings", who, json!({ "bonus": 6 })).await,
        PlatformRoute::ReadAppInfo => app.get("/api/v1/appinfo", who).await,
        PlatformRoute::EditAppInfo => patch(app, "/api/v1/appinfo", who, json!({ "CompanyName": "Matrix Cabs" })).await,
    }
}

async fn run_platform_matrix(demo: bool) {
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = !demo).await;
    add_second_fleet(&app).await;
    let people = People::sign_in(&app).await;
    for row in &PLATFORM_MATRIX {
        let expected = if demo { row.demo } else { row.cells };
        for (index, caller) in SIGNED_IN.into_iter().enumerate() {
            let reply = call_platform_route(&app, row.route, people.of(caller)).await;
            check(&reply, expected[index], &format!("{:?} by {caller:?} (demo {demo})", row.route));
        }
        let reply = call_platform_route(&app, row.route, people.of(Caller::LoggedOut)).await;
        check(&reply, row.logged_out, &format!("{:?} logged out (demo {demo})", row.route));
    }
    // What passed really happened, and what was refused did not.
    let reasons = app.get("/api/v1/cancelreasons", None).await;
    if demo {
        assert_eq!(reasons.expect(200).as_array().unwrap().len(), 5);
        assert_eq!(app.state.runtime.catalog().settings.bonus, rust_decimal::Decimal::new(5, 0));
    } else {
        assert_eq!(app.state.runtime.catalog().settings.bonus, rust_decimal::Decimal::new(6, 0));
        assert_eq!(app.get("/api/v1/appinfo", None).await.expect(200)["CompanyName"], "Matrix Cabs");
    }
}

#[tokio::test]
async fn the_platform_routes_answer_each_role() {
    run_platform_matrix(false).await;
}

#[tokio::test]
async fn the_platform_routes_in_demo_mode() {
    run_platform_matrix(true).await;
}

#[tokio::test]
async fn no_request_method_of_the_admin_routes_is_left_unguarded() {
    // Every method these paths serve is in the tables above; anything else is 405.
    let app = TestApp::demo().await;
    for (method, path) in [
        (Method::PUT, "/api/v1/users"),
        (Method::DELETE, "/api/v1/users"),
        (Method::POST, "/api/v1/users/exists"),
        (Method::DELETE, "/api/v1/settings"),
        (Method::POST, "/api/v1/appinfo"),
        (Method::PATCH, "/api/v1/cartypes"),
    ] {
        let reply = call(&app, method.clone(), path, None, None).await;
        assert_eq!(reply.status.as_u16(), 405, "{method} {path}");
    }
}
