//! The authorisation matrix of the money routes (wallet credit, withdraws,
//! reports; DESIGN.md invariant 6, spec §2 route table, §5 demo mode, §6):
//! every route × every role (logged out, rider 1, driver 4 of the demo fleet,
//! the demo fleet's admin, an admin) × whose resource it is (someone else's
//! wallet, another fleet's driver, someone else's withdraw, nothing at all),
//! in normal and in demo mode, each cell a real request.
//!
//! The tables are written out by hand from the rules in
//! `engine/src/permissions/`: a role that may never act is 403
//! `not_allowed` whatever the resource; a resource the caller may not know is
//! 404 `not_found`; demo mode refuses the panel's money writes and exports
//! with 403 `demo_mode`, never the apps' withdraw requests or reading.

use crate::support::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use wayfare_engine::wallet::{withdraw_debit, withdraw_key, withdraw_request};
use wayfare_engine::{User, UserId, WithdrawId};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Pass(u16),
    Refuse(u16, &'static str),
}

const OK: Expect = Expect::Pass(200);
const CREATED: Expect = Expect::Pass(201);
const NA: Expect = Expect::Refuse(403, "not_allowed");
const NF: Expect = Expect::Refuse(404, "not_found");
const DEMO: Expect = Expect::Refuse(403, "demo_mode");

#[derive(Debug, Clone, Copy, PartialEq)]
enum Caller {
    Rider,
    Driver,
    FleetAdmin,
    Admin,
}

const CALLERS: [Caller; 4] = [Caller::Rider, Caller::Driver, Caller::FleetAdmin, Caller::Admin];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Route {
    /// Credit rider 2's wallet.
    CreditSomeoneElse,
    /// Credit a user who does not exist.
    CreditMissing,
    WithdrawCreate,
    WithdrawList,
    /// Complete a withdraw of the other fleet's driver.
    CompleteSomeoneElses,
    /// Complete a withdraw of driver 4 (the calling driver's own).
    CompleteDriversOwn,
    CompleteMissing,
    Report,
    ReportOtherFleetDriver,
    ReportMissingDriver,
    DriverEarnings,
    DriverEarningsOwnDriver,
    DriverEarningsOtherFleetDriver,
    DriverEarningsMissingDriver,
    ReportCsv,
    DriverEarningsXlsx,
}

/// Rider, driver, fleet admin, admin; logged out is always 401 `not_logged_in`.
#[rustfmt::skip]
const MATRIX: [(Route, [Expect; 4]); 16] = [
    //                                          rider  driver   fleet  admin
    (Route::CreditSomeoneElse,              [NA,   NA,      NA,    CREATED]),
    (Route::CreditMissing,                  [NA,   NA,      NA,    NF]),
    (Route::WithdrawCreate,                 [NA,   CREATED, NA,    NA]),
    (Route::WithdrawList,                   [OK,   OK,      NA,    OK]),
    (Route::CompleteSomeoneElses,           [NA,   NA,      NA,    OK]),
    (Route::CompleteDriversOwn,             [NA,   NA,      NA,    OK]),
    (Route::CompleteMissing,                [NA,   NA,      NA,    NF]),
    (Route::Report,                         [NA,   NA,      OK,    OK]),
    (Route::ReportOtherFleetDriver,         [NA,   NA,      NF,    OK]),
    (Route::ReportMissingDriver,            [NA,   NA,      NF,    NF]),
    (Route::DriverEarnings,                 [NA,   OK,      OK,    OK]),
    (Route::DriverEarningsOwnDriver,        [NA,   OK,      OK,    OK]),
    (Route::DriverEarningsOtherFleetDriver, [NA,   NF,      NF,    OK]),
    (Route::DriverEarningsMissingDriver,    [NA,   NF,      NF,    NF]),
    (Route::ReportCsv,                      [NA,   NA,      OK,    OK]),
    (Route::DriverEarningsXlsx,             [NA,   NA,      OK,    OK]),
];

/// Demo mode (`AllowCriticalEditsAdmin` false): the cells that change.
fn in_demo_mode(route: Route, caller: Caller, normal: Expect) -> Expect {
    let guarded = matches!(
        route,
        Route::CreditSomeoneElse
            | Route::CreditMissing
            | Route::CompleteSomeoneElses
            | Route::CompleteDriversOwn
            | Route::CompleteMissing
            | Route::ReportCsv
            | Route::DriverEarningsXlsx
    );
    // Only callers who could act are told about demo mode; the others still get their 403.
    let could_act = normal != NA;
    if guarded && could_act && matches!(caller, Caller::Admin | Caller::FleetAdmin) { DEMO } else { normal }
}

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

    fn of(&self, caller: Caller) -> &Session {
        match caller {
            Caller::Rider => &self.rider,
            Caller::Driver => &self.driver,
            Caller::FleetAdmin => &self.fleet,
            Caller::Admin => &self.admin,
        }
    }
}

/// Funds for every would-be withdrawer, another fleet, a paid ride for each
/// fleet's driver, and a withdraw request of each driver already listed.
async fn money_app(change: impl FnOnce(&mut wayfare_engine::Settings)) -> TestApp {
    let app = TestApp::with_settings(|settings| {
        settings.autoDispatch = false;
        change(settings);
    })
    .await;
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
    for user in [rider(1), driver(4), other_fleet_driver()] {
        app.credit(user.id, Decimal::new(1_000, 0)).await;
    }
    app.booking_at(&rider(1), &driver(4), Stage::Paid).await;
    app.booking_at(&rider(2), &other_fleet_driver(), Stage::Paid).await;
    withdraw_of(&app, &driver(4)).await;
    withdraw_of(&app, &other_fleet_driver()).await;
    app
}

/// A fresh withdraw request of `user` for 1.00, made through storage.
async fn withdraw_of(app: &TestApp, user: &User) -> WithdrawId {
    let id = WithdrawId(uuid::Uuid::now_v7());
    let request = withdraw_request(id, user, Decimal::ONE, app.now());
    let debit = withdraw_debit(&request, withdraw_key(&id.to_string()), false);
    app.state.storage.create_withdraw(&request, &debit, app.now()).await.expect("withdraw stored");
    id
}

async fn call(app: &TestApp, route: Route, who: Option<&Session>) -> Reply {
    let missing = UserId(uuid::Uuid::now_v7());
    let complete = |id: WithdrawId| format!("/api/v1/withdraws/{id}/complete");
    match route {
        Route::CreditSomeoneElse => {
            app.post(&format!("/api/v1/users/{}/wallet/credit", rider(2).id), who, json!({ "amount": 5 })).await
        }
        Route::CreditMissing => {
            app.post(&format!("/api/v1/users/{missing}/wallet/credit"), who, json!({ "amount": 5 })).await
        }
        Route::WithdrawCreate => app.post("/api/v1/withdraws", who, json!({ "amount": 1 })).await,
        Route::WithdrawList => app.get("/api/v1/withdraws", who).await,
        Route::CompleteSomeoneElses => {
            app.post_empty(&complete(withdraw_of(app, &other_fleet_driver()).await), who).await
        }
        Route::CompleteDriversOwn => app.post_empty(&complete(withdraw_of(app, &driver(4)).await), who).await,
        Route::CompleteMissing => app.post_empty(&complete(WithdrawId(uuid::Uuid::now_v7())), who).await,
        Route::Report => app.get("/api/v1/reports/earnings", who).await,
        Route::ReportOtherFleetDriver => {
            app.get(&format!("/api/v1/reports/earnings?driver={}", other_fleet_driver().id), who).await
        }
        Route::ReportMissingDriver => app.get(&format!("/api/v1/reports/earnings?driver={missing}"), who).await,
        Route::DriverEarnings => app.get("/api/v1/reports/driver-earnings", who).await,
        Route::DriverEarningsOwnDriver => {
            app.get(&format!("/api/v1/reports/driver-earnings?driver={}", driver(4).id), who).await
        }
        Route::DriverEarningsOtherFleetDriver => {
            app.get(&format!("/api/v1/reports/driver-earnings?driver={}", other_fleet_driver().id), who).await
        }
        Route::DriverEarningsMissingDriver => {
            app.get(&format!("/api/v1/reports/driver-earnings?driver={missing}"), who).await
        }
        Route::ReportCsv => app.get("/api/v1/reports/earnings?format=csv", who).await,
        Route::DriverEarningsXlsx => app.get("/api/v1/reports/driver-earnings?format=xlsx", who).await,
    }
}

/// Compares an answer with its cell; a pass must also show only what the
/// caller may see.
fn check(route: Route, caller: Caller, who: &Session, reply: &Reply, expected: Expect) -> Result<(), String> {
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
        return Ok(());
    }
    let own = json!(who.id);
    let all_rows_of = |field: &str, list: &str, allowed: &[Value]| -> Result<(), String> {
        let items = reply.body[list].as_array().ok_or(format!("no {list}: {}", reply.body))?;
        if items.is_empty() {
            return Err(format!("nothing listed: {}", reply.body));
        }
        match items.iter().find(|item| !allowed.contains(&item[field])) {
            Some(stray) => Err(format!("shows {} it may not: {stray}", stray[field])),
            None => Ok(()),
        }
    };
    let demo_fleet_driver = json!(driver(4).id);
    let other_driver = json!(other_fleet_driver().id);
    match (route, caller) {
        (Route::WithdrawList, Caller::Rider | Caller::Driver) => {
            // The rider has no request yet: an empty page is right for them.
            let items = reply.body["items"].as_array().ok_or("no items")?;
            match items.iter().find(|item| item["uid"] != own) {
                Some(stray) => Err(format!("shows someone else's request: {stray}")),
                None if caller == Caller::Driver && items.is_empty() => {
                    Err("the driver's own request is missing".into())
                }
                None => Ok(()),
            }
        }
        (Route::WithdrawList, Caller::Admin) => {
            let items = reply.body["items"].as_array().ok_or("no items")?;
            let shows = |uid: &Value| items.iter().any(|item| &item["uid"] == uid);
            if shows(&other_driver) && shows(&demo_fleet_driver) {
                Ok(())
            } else {
                Err("admins see every request".into())
            }
        }
        (
            Route::Report | Route::DriverEarnings | Route::DriverEarningsOwnDriver,
            Caller::Driver | Caller::FleetAdmin,
        ) => all_rows_of("driverUId", "rows", &[demo_fleet_driver]),
        (Route::Report | Route::DriverEarnings, Caller::Admin) => {
            all_rows_of("driverUId", "rows", &[demo_fleet_driver, other_driver])
        }
        (Route::ReportOtherFleetDriver | Route::DriverEarningsOtherFleetDriver, Caller::Admin) => {
            all_rows_of("driverUId", "rows", &[other_driver])
        }
        (Route::ReportCsv, _)
            if !reply.header(axum::http::header::CONTENT_TYPE).unwrap_or("").starts_with("text/csv") =>
        {
            Err("not a CSV".into())
        }
        (Route::DriverEarningsXlsx, _)
            if !reply.header(axum::http::header::CONTENT_TYPE).unwrap_or("").contains("spreadsheetml") =>
        {
            Err("not an XLSX".into())
        }
        _ => Ok(()),
    }
}

async fn run_matrix(app: &TestApp, expectation: impl Fn(Route, Caller, Expect) -> Expect) -> (usize, Vec<String>) {
    let people = People::sign_in(app).await;
    let mut failures = Vec::new();
    let mut cells = 0;
    for (route, row) in MATRIX {
        let logged_out = call(app, route, None).await;
        if (logged_out.status.as_u16(), logged_out.body["error"]["code"].as_str()) != (401, Some("not_logged_in")) {
            failures.push(format!("{route:?} logged out: {} {}", logged_out.status, logged_out.body));
        }
        cells += 1;
        for (caller, normal) in CALLERS.into_iter().zip(row) {
            let who = people.of(caller);
            let expected = expectation(route, caller, normal);
            let reply = call(app, route, Some(who)).await;
            if let Err(problem) = check(route, caller, who, &reply, expected) {
                failures.push(format!("{route:?} by {caller:?}: {problem}"));
            }
            cells += 1;
        }
    }
    (cells, failures)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_money_route_answers_every_role_as_the_rules_say() {
    let app = money_app(|_| {}).await;
    let (cells, failures) = run_matrix(&app, |_, _, normal| normal).await;
    assert_eq!(cells, 16 * 5);
    assert!(failures.is_empty(), "{} of {cells} cells disagree:\n{}", failures.len(), failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_demo_mode_the_panels_money_writes_and_exports_are_refused() {
    let app = money_app(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let (cells, failures) = run_matrix(&app, in_demo_mode).await;
    assert_eq!(cells, 16 * 5);
    assert!(failures.is_empty(), "{} of {cells} cells disagree:\n{}", failures.len(), failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_rider_withdraw_on_riders_ask_for_withdraws_too() {
    let app = money_app(|settings| settings.RiderWithDraw = true).await;
    let (cells, failures) = run_matrix(&app, |route, caller, normal| match (route, caller) {
        (Route::WithdrawCreate, Caller::Rider) => CREATED,
        _ => normal,
    })
    .await;
    assert_eq!(cells, 16 * 5);
    assert!(failures.is_empty(), "{} of {cells} cells disagree:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_demo_table_differs_only_where_demo_mode_guards() {
    // A check on the table itself: demo mode never opens a door.
    for (route, row) in MATRIX {
        for (caller, normal) in CALLERS.into_iter().zip(row) {
            let demo = in_demo_mode(route, caller, normal);
            assert!(demo == normal || demo == DEMO, "{route:?} {caller:?}");
        }
    }
}
