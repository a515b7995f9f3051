//! The authorisation matrix of the promo, notification and language routes
//! (DESIGN.md invariant 6, spec §2 admin-only pages, §5 demo mode, §6):
//! every route × every caller (logged out, rider, driver, fleet admin,
//! admin), each cell a real request on a fresh resource, then the same for
//! an admin in demo mode. The expectations are written out from the rules,
//! not computed by the function the server uses:
//! - no session is 401 `not_logged_in`; the language list and the push
//!   configuration are public;
//! - promos are listed by riders (their usable ones) and admins; everything
//!   else here is the admins', 403 `not_allowed` for other roles, whatever
//!   the resource (so ids cannot be probed);
//! - every signed-in user registers their own device for push;
//! - in demo mode an admin may add promos, list, and delete notifications
//!   (spec §5's unguarded writes), and nothing else: 403 `demo_mode`.
//!
//! These resources have no owner or fleet (they are the platform's), so
//! "someone else's" is the same cell as "one's own".

use crate::notify_lang_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use wayfare_engine::{
    AmountType, DeviceTarget, Language, LanguageId, Notification, NotificationId, Promo, PromoId, UserTarget,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Pass(u16),
    Refuse(u16, &'static str),
}

use Expect::{Pass, Refuse};
const NO_SESSION: Expect = Refuse(401, "not_logged_in");
const NA: Expect = Refuse(403, "not_allowed");
const DEMO: Expect = Refuse(403, "demo_mode");

#[derive(Debug, Clone, Copy, PartialEq)]
enum Route {
    PromoList,
    PromoAdd,
    PromoUpdate,
    PromoDelete,
    NotificationSend,
    NotificationList,
    NotificationDelete,
    PushToken,
    PushConfig,
    LanguageList,
    LanguageAdd,
    LanguageUpdate,
    LanguageDelete,
    LanguageDefault,
}

const ROUTES: [Route; 14] = [
    Route::PromoList,
    Route::PromoAdd,
    Route::PromoUpdate,
    Route::PromoDelete,
    Route::NotificationSend,
    Route::NotificationList,
    Route::NotificationDelete,
    Route::PushToken,
    Route::PushConfig,
    Route::LanguageList,
    Route::LanguageAdd,
    Route::LanguageUpdate,
    Route::LanguageDelete,
    Route::LanguageDefault,
];

/// Expectations per route: logged out, rider, driver, fleet admin, admin.
fn expected(route: Route) -> [Expect; 5] {
    use Route::*;
    match route {
        PromoList => [NO_SESSION, Pass(200), NA, NA, Pass(200)],
        PromoAdd => [NO_SESSION, NA, NA, NA, Pass(201)],
        PromoUpdate => [NO_SESSION, NA, NA, NA, Pass(200)],
        PromoDelete => [NO_SESSION, NA, NA, NA, Pass(204)],
        NotificationSend => [NO_SESSION, NA, NA, NA, Pass(201)],
        NotificationList => [NO_SESSION, NA, NA, NA, Pass(200)],
        NotificationDelete => [NO_SESSION, NA, NA, NA, Pass(204)],
        PushToken => [NO_SESSION, Pass(204), Pass(204), Pass(204), Pass(204)],
        PushConfig | LanguageList => [Pass(200); 5],
        LanguageAdd => [NO_SESSION, NA, NA, NA, Pass(201)],
        LanguageUpdate => [NO_SESSION, NA, NA, NA, Pass(200)],
        LanguageDelete => [NO_SESSION, NA, NA, NA, Pass(204)],
        LanguageDefault => [NO_SESSION, NA, NA, NA, Pass(200)],
    }
}

/// An admin in demo mode (`AllowCriticalEditsAdmin` false).
fn expected_in_demo_mode(route: Route) -> Expect {
    use Route::*;
    match route {
        PromoList | NotificationList | PushConfig | LanguageList => Pass(200),
        PromoAdd => Pass(201),
        NotificationDelete | PushToken => Pass(204),
        PromoUpdate | PromoDelete | NotificationSend | LanguageAdd | LanguageUpdate | LanguageDelete
        | LanguageDefault => DEMO,
    }
}

/// A fresh promo, notification and non-default language, made in storage.
async fn fixtures(app: &TestApp, cell: usize) -> (PromoId, NotificationId, LanguageId) {
    let storage = &app.state.storage;
    let promo = Promo {
        id: PromoId(uuid::Uuid::now_v7()),
        promo_name: format!("CELL{cell}"),
        promo_description: String::new(),
        promo_discount_type: AmountType::Flat,
        promo_discount_value: 2.into(),
        max_promo_discount_value: 0.into(),
        min_order: 0.into(),
        promo_validity: T0 + 86_400_000,
        promo_usage_limit: 0,
        user_avail: 0,
        createdAt: T0,
    };
    storage.save_promo(&promo, T0).await.unwrap();
    let notification = Notification {
        id: NotificationId(uuid::Uuid::now_v7()),
        devicetype: DeviceTarget::All,
        usertype: UserTarget::All,
        title: "t".into(),
        body: "b".into(),
        createdAt: T0,
    };
    storage.insert_notification(&notification).await.unwrap();
    let language = Language {
        id: LanguageId(uuid::Uuid::now_v7()),
        langName: format!("Cell {cell}"),
        langLocale: format!("x{}", cell_letters(cell)),
        dateLocale: "en".into(),
        default: false,
        keyValuePairs: BTreeMap::new(),
        createdAt: T0,
    };
    storage.save_language(&language, T0).await.unwrap();
    app.state.languages.invalidate();
    (promo.id, notification.id, language.id)
}

/// Two letters per cell, so each language's locale is unique and valid.
fn cell_letters(cell: usize) -> String {
    let letter = |number: usize| char::from(b'a' + (number % 26) as u8);
    format!("{}{}", letter(cell / 26), letter(cell))
}

async fn call(app: &TestApp, route: Route, who: Option<&Session>, cell: usize) -> Reply {
    let (promo, notification, language) = fixtures(app, cell).await;
    let language_body =
        json!({ "langName": "Cell", "langLocale": format!("y{}", cell_letters(cell)), "keyValuePairs": { "a": "b" } });
    match route {
        Route::PromoList => app.get("/api/v1/promos", who).await,
        Route::PromoAdd => app.post("/api/v1/promos", who, promo_body(&format!("ADD{cell}"))).await,
        Route::PromoUpdate => {
            put(app, &format!("/api/v1/promos/{promo}"), who, promo_body(&format!("CELL{cell}"))).await
        }
        Route::PromoDelete => delete(app, &format!("/api/v1/promos/{promo}"), who).await,
        Route::NotificationSend => {
            app.post("/api/v1/notifications", who, json!({ "usertype": "rider", "title": "t", "body": "b" })).await
        }
        Route::NotificationList => app.get("/api/v1/notifications", who).await,
        Route::NotificationDelete => delete(app, &format!("/api/v1/notifications/{notification}"), who).await,
        Route::PushToken => {
            put(app, "/api/v1/push/token", who, json!({ "pushToken": "ExponentPushToken[cell]" })).await
        }
        Route::PushConfig => app.get("/api/v1/push/config", who).await,
        Route::LanguageList => app.get("/api/v1/languages", who).await,
        Route::LanguageAdd => app.post("/api/v1/languages", who, language_body).await,
        Route::LanguageUpdate => put(app, &format!("/api/v1/languages/{language}"), who, language_body).await,
        Route::LanguageDelete => delete(app, &format!("/api/v1/languages/{language}"), who).await,
        Route::LanguageDefault => app.post_empty(&format!("/api/v1/languages/{language}/default"), who).await,
    }
}

fn check(reply: &Reply, expect: Expect, context: &str) {
    match expect {
        Pass(status) => assert_eq!(reply.status.as_u16(), status, "{context}: {}", reply.body),
        Refuse(status, code) => {
            assert_eq!((reply.status.as_u16(), reply.error_code()), (status, code), "{context}: {}", reply.body)
        }
    }
}

async fn callers(app: &TestApp) -> [Option<Session>; 5] {
    [
        None,
        Some(app.sign_in("rider1@demo.wayfare").await),
        Some(app.sign_in("driver4@demo.wayfare").await),
        Some(app.sign_in("fleet@demo.wayfare").await),
        Some(app.sign_in("admin@demo.wayfare").await),
    ]
}

const CALLER_NAMES: [&str; 5] = ["logged out", "rider", "driver", "fleet admin", "admin"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_every_role_as_the_rules_say() {
    let app = TestApp::demo().await;
    let callers = callers(&app).await;
    let mut cell = 0;
    for route in ROUTES {
        for (index, expect) in expected(route).into_iter().enumerate() {
            cell += 1;
            let reply = call(&app, route, callers[index].as_ref(), cell).await;
            check(&reply, expect, &format!("{route:?} by {}", CALLER_NAMES[index]));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_demo_mode_admins_keep_only_the_unguarded_writes() {
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let callers = callers(&app).await;
    let mut cell = 0;
    for route in ROUTES {
        cell += 1;
        let reply = call(&app, route, callers[4].as_ref(), cell).await;
        check(&reply, expected_in_demo_mode(route), &format!("{route:?} by an admin in demo mode"));
        // Other roles are refused for their role first, as outside demo mode.
        for index in 0..4 {
            cell += 1;
            let reply = call(&app, route, callers[index].as_ref(), cell).await;
            check(&reply, expected(route)[index], &format!("{route:?} by {} in demo mode", CALLER_NAMES[index]));
        }
    }
    // Refused writes changed nothing.
    let admin = callers[4].as_ref();
    let languages: Value = app.get("/api/v1/languages", admin).await.expect(200).clone();
    assert!(
        languages.as_array().unwrap().iter().all(|language| !language["langLocale"].as_str().unwrap().starts_with('y')),
        "no language was added"
    );
    assert_eq!(languages.as_array().unwrap().iter().filter(|language| language["default"] == true).count(), 1);
    assert_eq!(
        languages.as_array().unwrap().iter().find(|language| language["default"] == true).unwrap()["langLocale"],
        "en"
    );
}
