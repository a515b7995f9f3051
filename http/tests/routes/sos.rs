//! SOS (issue 33): a trip's rider or driver raises an alert; it is stored,
//! told to every admin and the driver's fleet admin (and no one else), listed
//! open first, taken once and resolved once with a note. Strangers to the
//! booking are refused as on every booking route.

use crate::support::*;
use serde_json::{Value, json};
use wayfare_actors::Event;
use wayfare_engine::UserId;

fn sos_path(booking: impl std::fmt::Display) -> String {
    format!("/api/v1/bookings/{booking}/sos")
}

fn here() -> Value {
    json!({ "lat": 39.2846, "lng": -76.6205 })
}

/// The demo city with a panic number, and the second fleet (an admin and
/// one Economy driver) besides the demo fleet.
async fn city() -> TestApp {
    city_with(|_| {}).await
}

async fn city_with(change: impl FnOnce(&mut wayfare_engine::Settings)) -> TestApp {
    let app = TestApp::with_settings(|settings| {
        settings.panic = "+1 410 555 0911".into();
        change(settings);
    })
    .await;
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
    app
}

/// The alerts told on the bus since `events` subscribed.
fn told(events: &mut tokio::sync::broadcast::Receiver<std::sync::Arc<Event>>) -> Vec<Value> {
    let mut alerts = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let Event::Sos(alert) = event.as_ref() {
            alerts.push(serde_json::to_value(alert.as_ref()).unwrap());
        }
    }
    alerts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_raises_an_sos_during_the_trip_and_the_admins_are_told_once() {
    let app = city().await;
    let trip = app.booking_at(&rider(1), &driver(4), Stage::Started).await;
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    let mut events = app.events();

    let raised = app.post(&sos_path(trip.id), Some(&rider_session), here()).await;
    let body = raised.expect(201);
    let alert = &body["alert"];
    assert_eq!(body["panic"], "+1 410 555 0911");
    assert_eq!(alert["booking"], json!(trip.id));
    assert_eq!(alert["reference"], json!(trip.reference));
    assert_eq!(alert["raised_by"], json!(rider_session.id));
    assert_eq!(alert["raised_by_role"], "rider");
    assert_eq!(alert["raised_by_name"], json!(trip.customer_name));
    assert_eq!((alert["lat"].as_f64(), alert["lng"].as_f64()), (Some(39.2846), Some(-76.6205)));
    assert_eq!(alert["created_at"], T0);
    assert_eq!(alert["fleetadmin"], json!(fleet_admin().id), "the driver's fleet admin, for scoping");
    assert_eq!(alert["state"], "open");
    assert_eq!((&alert["taken_at"], &alert["resolved_at"]), (&Value::Null, &Value::Null));
    let on_bus = told(&mut events);
    assert_eq!(on_bus.len(), 1, "told once: {on_bus:?}");
    assert_eq!(on_bus[0]["id"], alert["id"]);

    // A second press while it is open finds the same alert and tells no one again.
    app.advance(MINUTE);
    let again = app.post(&sos_path(trip.id), Some(&rider_session), json!({ "lat": 39.29, "lng": -76.61 })).await;
    assert_eq!(again.expect(200)["alert"]["id"], alert["id"]);
    assert!(told(&mut events).is_empty(), "no noise on a second press");
    // Stored before the answer: it is in storage as answered.
    let id = alert["id"].as_str().unwrap().parse().unwrap();
    let stored = app.state.storage.sos_alert(id).await.expect("stored");
    assert_eq!(stored.raised_by, rider_session.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_assigned_driver_raises_one_too_with_their_own_alert() {
    let app = city().await;
    let trip = app.booking_at(&rider(1), &driver(4), Stage::Arrived).await;
    let driver_session = app.sign_in("driver4@demo.wayfare").await;
    let rider_session = app.sign_in("rider1@demo.wayfare").await;

    let by_driver = app.post(&sos_path(trip.id), Some(&driver_session), here()).await;
    let by_driver = by_driver.expect(201)["alert"].clone();
    assert_eq!(by_driver["raised_by_role"], "driver");
    assert_eq!(by_driver["raised_by_name"], json!(trip.driver_name));
    // The rider's is another alert: each party's press counts.
    let by_rider = app.post(&sos_path(trip.id), Some(&rider_session), here()).await;
    assert_ne!(by_rider.expect(201)["alert"]["id"], by_driver["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn someone_not_on_the_booking_is_refused() {
    let app = city().await;
    let trip = app.booking_at(&rider(1), &driver(4), Stage::Started).await;
    // Another rider, another driver (offered nothing), the other fleet's
    // admin: the booking does not exist for them, as on every booking route.
    for stranger in ["rider2@demo.wayfare", "driver7@demo.wayfare"] {
        let session = app.sign_in(stranger).await;
        app.post(&sos_path(trip.id), Some(&session), here()).await.refused(404, "not_found");
    }
    // Admins and fleet admins handle alerts; they do not raise them.
    for handler in ["admin@demo.wayfare", "fleet@demo.wayfare", "fleet2@test.wayfare"] {
        let session = app.sign_in(handler).await;
        app.post(&sos_path(trip.id), Some(&session), here()).await.refused(403, "not_allowed");
    }
    app.post(&sos_path(trip.id), None, here()).await.refused(401, "not_logged_in");
    let stored = app.state.storage.sos_alerts(&Default::default(), &wayfare_storage::PageRequest::first(10)).await;
    assert!(stored.unwrap().items.is_empty(), "nothing recorded for a refusal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_trip_no_sos_and_a_position_off_the_map_is_refused() {
    let app = city().await;
    let waiting = app.booking_at(&rider(1), &driver(4), Stage::Offered).await;
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    // NEW: no driver on it yet.
    app.post(&sos_path(waiting.id), Some(&rider_session), here()).await.refused(409, "sos_no_trip");
    let paid = app.booking_at(&rider(1), &driver(4), Stage::Paid).await;
    app.post(&sos_path(paid.id), Some(&rider_session), here()).await.refused(409, "sos_no_trip");

    let trip = app.booking_at(&rider(3), &driver(4), Stage::Accepted).await;
    let rider3 = app.sign_in("rider3@demo.wayfare").await;
    for position in [json!({ "lat": 95.0, "lng": 0 }), json!({ "lat": 10.0 }), json!({ "lat": 0, "lng": -181 })] {
        app.post(&sos_path(trip.id), Some(&rider3), position).await.refused_on(400, "invalid_input", "location");
    }
}

/// Raises an alert by `rider` on a trip with `driver`; answers its id.
async fn raised_by(
    app: &TestApp,
    rider_email: &str,
    rider_user: &wayfare_engine::User,
    driver: &wayfare_engine::User,
) -> String {
    let trip = app.booking_at(rider_user, driver, Stage::Started).await;
    let session = app.sign_in(rider_email).await;
    let raised = app.post(&sos_path(trip.id), Some(&session), here()).await;
    raised.expect(201)["alert"]["id"].as_str().unwrap().to_string()
}

fn ids(list: &Value) -> Vec<&str> {
    list["items"].as_array().unwrap().iter().map(|item| item["id"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admins_list_every_alert_open_first_and_fleet_admins_only_theirs() {
    let app = city().await;
    let ours_old = raised_by(&app, "rider1@demo.wayfare", &rider(1), &driver(4)).await;
    app.advance(MINUTE);
    let theirs = raised_by(&app, "rider2@demo.wayfare", &rider(2), &other_fleet_driver()).await;
    app.advance(MINUTE);
    let ours_new = raised_by(&app, "rider3@demo.wayfare", &rider(3), &driver(10)).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    let fleet2 = app.sign_in("fleet2@test.wayfare").await;

    // Newest first while all are open.
    assert_eq!(
        ids(app.get("/api/v1/sos", Some(&admin)).await.expect(200)),
        [ours_new.as_str(), theirs.as_str(), ours_old.as_str()]
    );
    // The newest resolved: it goes after the open ones.
    app.advance(MINUTE);
    let resolve = format!("/api/v1/sos/{ours_new}/resolve");
    app.post(&resolve, Some(&admin), json!({ "note": "Rider called back: fine" })).await.expect(200);
    let listed = app.get("/api/v1/sos", Some(&admin)).await;
    assert_eq!(ids(listed.expect(200)), [theirs.as_str(), ours_old.as_str(), ours_new.as_str()]);
    // Pages follow the same order.
    let first = app.get("/api/v1/sos?limit=2", Some(&admin)).await;
    let first = first.expect(200);
    assert_eq!(ids(first), [theirs.as_str(), ours_old.as_str()]);
    let after = first["next"].as_str().expect("a next page");
    let second = app.get(&format!("/api/v1/sos?limit=2&after={after}"), Some(&admin)).await;
    assert_eq!(ids(second.expect(200)), [ours_new.as_str()]);
    // The banners' list: open and untaken only.
    let open = app.get("/api/v1/sos?state=open", Some(&admin)).await;
    assert_eq!(ids(open.expect(200)), [theirs.as_str(), ours_old.as_str()]);
    app.get("/api/v1/sos?state=closed", Some(&admin)).await.refused_on(400, "invalid_input", "state");

    // Each fleet admin sees their own drivers' alerts only.
    assert_eq!(ids(app.get("/api/v1/sos", Some(&fleet)).await.expect(200)), [ours_old.as_str(), ours_new.as_str()]);
    assert_eq!(ids(app.get("/api/v1/sos", Some(&fleet2)).await.expect(200)), [theirs.as_str()]);
    app.get(&format!("/api/v1/sos/{theirs}"), Some(&fleet)).await.refused(404, "not_found");
    assert_eq!(app.get(&format!("/api/v1/sos/{theirs}"), Some(&fleet2)).await.expect(200)["id"], json!(theirs));
    // Riders and drivers handle none.
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    let driver_session = app.sign_in("driver4@demo.wayfare").await;
    app.get("/api/v1/sos", Some(&rider_session)).await.refused(403, "not_allowed");
    app.get(&format!("/api/v1/sos/{ours_old}"), Some(&driver_session)).await.refused(403, "not_allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_is_taken_once_and_resolved_once_with_a_note_even_in_demo_mode() {
    // Demo mode: safety actions still go through.
    let app = city_with(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let id = raised_by(&app, "rider1@demo.wayfare", &rider(1), &driver(4)).await;
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    let fleet2 = app.sign_in("fleet2@test.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let take = format!("/api/v1/sos/{id}/take");
    let resolve = format!("/api/v1/sos/{id}/resolve");
    let mut events = app.events();

    // The wrong fleet admin cannot see it, so cannot take it.
    app.post_empty(&take, Some(&fleet2)).await.refused(404, "not_found");
    app.post(&resolve, Some(&fleet2), json!({ "note": "mine?" })).await.refused(404, "not_found");
    app.advance(MINUTE);
    let taken = app.post_empty(&take, Some(&fleet)).await;
    let taken = taken.expect(200);
    assert_eq!(
        (taken["state"].as_str(), &taken["taken_by"], &taken["taken_at"]),
        (Some("taken"), &json!(fleet.id), &json!(T0 + 60_000))
    );
    app.post_empty(&take, Some(&admin)).await.refused(409, "sos_already_taken");
    assert!(app.get("/api/v1/sos?state=open", Some(&admin)).await.expect(200)["items"].as_array().unwrap().is_empty());

    for blank in [json!({ "note": "   " }), json!({})] {
        app.post(&resolve, Some(&admin), blank).await.refused_on(400, "sos_note_required", "note");
    }
    app.advance(MINUTE);
    let resolved = app.post(&resolve, Some(&admin), json!({ "note": "Police met the car at Pratt St." })).await;
    let resolved = resolved.expect(200);
    assert_eq!(resolved["state"], "resolved");
    assert_eq!(resolved["note"], "Police met the car at Pratt St.");
    assert_eq!((&resolved["resolved_by"], &resolved["resolved_at"]), (&json!(admin.id), &json!(T0 + 120_000)));
    assert_eq!(resolved["taken_by"], json!(fleet.id), "taking stays with whoever took it");
    app.post(&resolve, Some(&admin), json!({ "note": "again" })).await.refused(409, "sos_already_resolved");
    app.post_empty(&take, Some(&admin)).await.refused(409, "sos_already_resolved");
    let read = app.get(&format!("/api/v1/sos/{id}"), Some(&fleet)).await;
    assert_eq!(read.expect(200), resolved);

    // Every step was told, with its state, for the banners.
    let states: Vec<(Option<UserId>, bool)> = told(&mut events)
        .iter()
        .map(|alert| (alert["taken_by"].as_str().map(|id| id.parse().unwrap()), alert["resolved_at"].is_i64()))
        .collect();
    assert_eq!(states, [(Some(fleet.id), false), (Some(fleet.id), true)]);

    // Resolved, a new press on the same booking is a new alert.
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    let booking = resolved["booking"].as_str().unwrap();
    let again = app.post(&sos_path(booking), Some(&rider_session), here()).await;
    assert_ne!(again.expect(201)["alert"]["id"], json!(id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_alert_is_not_found() {
    let app = city().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let unknown = uuid::Uuid::now_v7();
    app.get(&format!("/api/v1/sos/{unknown}"), Some(&admin)).await.refused(404, "not_found");
    app.post_empty(&format!("/api/v1/sos/{unknown}/take"), Some(&admin)).await.refused(404, "not_found");
    app.get("/api/v1/sos/not-an-id", Some(&admin)).await.refused(404, "not_found");
}
