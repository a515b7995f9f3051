//! The live dispatch console's routes (issue #15): a booking's dispatch
//! timeline, kept in storage and read back after a restart.

use crate::support::*;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use wayfare_actors::{DispatchLog, Event};
use wayfare_engine::{BookingId, DispatchPolicy};

fn timeline_path(id: BookingId) -> String {
    format!("/api/v1/bookings/{id}/dispatch")
}

/// Waves of one driver each, two waves at most: a decline and an expiry
/// then use up the round.
async fn two_wave_app() -> TestApp {
    TestApp::with_settings(|settings| {
        settings.dispatchPolicy = DispatchPolicy::Waves;
        settings.dispatchWaveSize = 1;
        settings.dispatchMaxWaves = 2;
        settings.dispatchOfferSeconds = 20;
    })
    .await
}

/// Puts a driver online `metres_north` of the pickup (Fells Point).
async fn online_near_pickup(app: &TestApp, email: &str, metres_north: f64) -> Session {
    let driver = app.sign_in(email).await;
    app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true })).await.expect(200);
    let pickup = fells_point();
    let at = json!({
        "lat": pickup["lat"].as_f64().unwrap() + metres_north / 111_195.0,
        "lng": pickup["lng"].as_f64().unwrap(),
    });
    app.post("/api/v1/drivers/me/location", Some(&driver), at).await.expect(200);
    driver
}

/// Waits (in real time, as a safety net only) for a dispatch log entry.
async fn wait_for_log(
    events: &mut broadcast::Receiver<Arc<Event>>,
    booking: BookingId,
    wanted: impl Fn(&DispatchLog) -> bool,
) {
    let waited = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Event::Dispatch(entry) = event.as_ref()
                        && entry.booking == booking
                        && wanted(&entry.log)
                    {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the event bus closed"),
            }
        }
    })
    .await;
    waited.unwrap_or_else(|_| panic!("booking {booking} never logged the awaited dispatch entry"));
}

fn kinds(items: &Value) -> Vec<&str> {
    items.as_array().unwrap().iter().map(|item| item["kind"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_waves_a_decline_and_an_expiry_make_the_timeline_and_it_survives_a_restart() {
    let app = two_wave_app().await;
    // driver1 is nearer the pickup than driver4: wave 1 is driver1's.
    let near = online_near_pickup(&app, "driver1@demo.wayfare", 100.0).await;
    let far = online_near_pickup(&app, "driver4@demo.wayfare", 900.0).await;
    let mut events = app.events();
    let booking = app.book(&rider(1)).await;
    let id = booking.id;
    app.wait_for_offer(&mut events, id, near.id).await;
    let first_offer_at = app.now();

    app.post_empty(&format!("/api/v1/bookings/{id}/decline"), Some(&near)).await.expect(200);
    app.wait_for_offer(&mut events, id, far.id).await;
    app.advance(Duration::from_secs(21));
    wait_for_log(&mut events, id, |log| *log == DispatchLog::Exhausted).await;

    let admin = app.sign_in("admin@demo.wayfare").await;
    let read = app.get(&timeline_path(id), Some(&admin)).await;
    let items = read.expect(200)["items"].clone();
    assert_eq!(kinds(&items), ["offered", "withdrawn", "offered", "withdrawn", "exhausted"], "{items:#}");
    let (near_id, far_id) = (near.id.to_string(), far.id.to_string());
    assert_eq!(items[0]["wave"], 1);
    assert_eq!(items[0]["drivers"], json!([near_id]));
    assert_eq!(items[0]["at"], first_offer_at);
    assert_eq!(items[0]["deadline"], first_offer_at + 20_000);
    assert_eq!(items[0]["car_type"], "Economy");
    let near_km = items[0]["distances_km"][0].as_f64().unwrap();
    assert!((near_km - 0.1).abs() < 0.01, "driver1 was offered 100 m away: {near_km}");
    assert_eq!(items[1]["reason"], "declined");
    assert_eq!(items[1]["drivers"], json!([near_id]));
    assert_eq!(items[2]["wave"], 2);
    assert_eq!(items[2]["drivers"], json!([far_id]));
    let far_km = items[2]["distances_km"][0].as_f64().unwrap();
    assert!((far_km - 0.9).abs() < 0.01, "driver4 was offered 900 m away: {far_km}");
    assert_eq!(items[3]["reason"], "expired");
    assert_eq!(items[3]["drivers"], json!([far_id]));
    assert_eq!(items[3]["at"], first_offer_at + 21_000);
    assert!(items.as_array().unwrap().iter().all(|item| item["booking"] == id.to_string()));

    let app = app.reopen().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let again = app.get(&timeline_path(id), Some(&admin)).await;
    assert_eq!(again.expect(200)["items"], items, "the timeline is read back from storage after a restart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_admin_reads_their_fleets_bookings_without_other_fleets_drivers() {
    let app = two_wave_app().await;
    // driver1 has no fleet; driver4 is the demo fleet's.
    let outsider = online_near_pickup(&app, "driver1@demo.wayfare", 100.0).await;
    let fleet_driver = online_near_pickup(&app, "driver4@demo.wayfare", 900.0).await;
    let mut events = app.events();
    let id = app.book(&rider(1)).await.id;
    app.wait_for_offer(&mut events, id, outsider.id).await;
    app.post_empty(&format!("/api/v1/bookings/{id}/decline"), Some(&outsider)).await.expect(200);
    app.wait_for_offer(&mut events, id, fleet_driver.id).await;
    app.post_empty(&format!("/api/v1/bookings/{id}/accept"), Some(&fleet_driver)).await.expect(200);

    let admin = app.sign_in("admin@demo.wayfare").await;
    let everything = app.get(&timeline_path(id), Some(&admin)).await;
    assert_eq!(kinds(&everything.expect(200)["items"]), ["offered", "withdrawn", "offered", "accepted"]);

    let fleet = app.sign_in(&fleet_admin().email).await;
    let theirs = app.get(&timeline_path(id), Some(&fleet)).await;
    let items = &theirs.expect(200)["items"];
    assert_eq!(kinds(items), ["offered", "accepted"], "{items:#}");
    assert_eq!(items[0]["drivers"], json!([fleet_driver.id.to_string()]));
    assert_eq!(items[0]["distances_km"].as_array().unwrap().len(), 1);
    assert_eq!(items[1]["driver"], fleet_driver.id.to_string());
    assert!(!items.to_string().contains(&outsider.id.to_string()), "another fleet's driver leaked: {items}");
    // The booking itself, read or listed, names only their driver in its offers and declines.
    let reply = app.get(&format!("/api/v1/bookings/{id}"), Some(&fleet)).await;
    let read = reply.expect(200);
    assert_eq!(read["driver"], fleet_driver.id.to_string());
    assert!(!read.to_string().contains(&outsider.id.to_string()), "another fleet's driver leaked: {read}");
    let reply = app.get("/api/v1/bookings?active=true", Some(&fleet)).await;
    let listed = reply.expect(200);
    assert!(listed["items"].as_array().unwrap().iter().any(|item| item["id"] == id.to_string()), "{listed}");
    assert!(!listed.to_string().contains(&outsider.id.to_string()), "another fleet's driver leaked: {listed}");
    // The recent log, newest first: everything for an admin, their share for the fleet.
    let reply = app.get("/api/v1/dispatch/log", Some(&admin)).await;
    let recent = reply.expect(200)["items"].clone();
    let ours: Vec<Value> =
        recent.as_array().unwrap().iter().filter(|item| item["booking"] == id.to_string()).cloned().collect();
    assert_eq!(kinds(&json!(ours)), ["accepted", "offered", "withdrawn", "offered"], "{recent:#}");
    let reply = app.get("/api/v1/dispatch/log?limit=500", Some(&fleet)).await;
    let theirs = reply.expect(200)["items"].clone();
    assert_eq!(kinds(&theirs), ["accepted", "offered"], "{theirs:#}");
    assert!(!theirs.to_string().contains(&outsider.id.to_string()), "another fleet's driver leaked: {theirs}");
    let reply = app.get("/api/v1/dispatch/log?limit=2", Some(&admin)).await;
    assert_eq!(reply.expect(200)["items"].as_array().unwrap().len(), 2);
    app.get("/api/v1/dispatch/log?limit=0", Some(&admin)).await.refused(400, "invalid_input");
    app.get("/api/v1/dispatch/log?limit=501", Some(&admin)).await.refused(400, "invalid_input");
    app.get("/api/v1/dispatch/log", Some(&fleet_driver)).await.refused(403, "not_allowed");
    // An admin still sees the decline.
    let reply = app.get(&format!("/api/v1/bookings/{id}"), Some(&admin)).await;
    let read = reply.expect(200);
    assert!(read.to_string().contains(&outsider.id.to_string()), "{read}");

    // Nobody else reads timelines; an unknown booking is not found.
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get(&timeline_path(id), Some(&rider)).await.refused(403, "not_allowed");
    app.get(&timeline_path(id), Some(&fleet_driver)).await.refused(403, "not_allowed");
    app.get(&timeline_path(id), None).await.refused(401, "not_logged_in");
    app.get(&timeline_path(BookingId::from_u128(404)), Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_fleets_booking_is_not_found_for_a_fleet_admin() {
    let app = two_wave_app().await;
    let outsider = online_near_pickup(&app, "driver1@demo.wayfare", 100.0).await;
    let mut events = app.events();
    let id = app.book(&rider(1)).await.id;
    app.wait_for_offer(&mut events, id, outsider.id).await;
    app.post_empty(&format!("/api/v1/bookings/{id}/accept"), Some(&outsider)).await.expect(200);
    let fleet = app.sign_in(&fleet_admin().email).await;
    app.get(&timeline_path(id), Some(&fleet)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_active_bookings_carry_their_offers_and_a_fleet_sees_only_its_own() {
    // Waves of three drivers (the demo's size): one wave offers both.
    let app = TestApp::with_settings(|settings| settings.dispatchPolicy = DispatchPolicy::Waves).await;
    let outsider = online_near_pickup(&app, "driver1@demo.wayfare", 100.0).await;
    let fleet_driver = online_near_pickup(&app, "driver4@demo.wayfare", 300.0).await;
    let mut events = app.events();
    let id = app.book(&rider(1)).await.id;
    app.wait_for_offer(&mut events, id, outsider.id).await;

    let admin = app.sign_in("admin@demo.wayfare").await;
    let active = app.get("/api/v1/dispatch/active", Some(&admin)).await;
    let items = active.expect(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], id.to_string());
    assert_eq!(items[0]["status"], "NEW");
    let offered = items[0]["offered"].as_array().unwrap();
    assert_eq!(offered.len(), 2, "{offered:?}");
    let offer_of = |driver: &Session| offered.iter().find(|offer| offer["driver"] == driver.id.to_string()).unwrap();
    let deadline = app.now() + 20_000;
    assert_eq!(offer_of(&outsider)["deadline"], deadline);
    assert!((offer_of(&outsider)["distance_km"].as_f64().unwrap() - 0.1).abs() < 0.01);
    assert!((offer_of(&fleet_driver)["distance_km"].as_f64().unwrap() - 0.3).abs() < 0.01);

    let fleet = app.sign_in(&fleet_admin().email).await;
    let theirs = app.get("/api/v1/dispatch/active", Some(&fleet)).await;
    let items = theirs.expect(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1, "offered to one of theirs");
    assert_eq!(
        items[0]["offered"],
        json!([{ "driver": fleet_driver.id.to_string(), "deadline": deadline, "distance_km": 0.3 }])
    );
    assert_eq!(items[0]["requestedDrivers"], json!({ fleet_driver.id.to_string(): true }));
    assert!(!Value::Array(items).to_string().contains(&outsider.id.to_string()));

    // Once another fleet's driver has it, it is not theirs to see.
    app.post_empty(&format!("/api/v1/bookings/{id}/accept"), Some(&outsider)).await.expect(200);
    assert_eq!(app.get("/api/v1/dispatch/active", Some(&fleet)).await.expect(200)["items"], json!([]));
    let accepted = app.get("/api/v1/dispatch/active", Some(&admin)).await;
    assert_eq!(accepted.expect(200)["items"][0]["status"], "ACCEPTED");
    assert_eq!(accepted.body["items"][0]["offered"], json!([]));

    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get("/api/v1/dispatch/active", Some(&rider)).await.refused(403, "not_allowed");
    app.get("/api/v1/dispatch/active", Some(&outsider)).await.refused(403, "not_allowed");
    app.get("/api/v1/dispatch/active", None).await.refused(401, "not_logged_in");
}

/// The default policy, `batch`, through the routes: nothing is offered
/// until the window closes on the runtime's clock; then its one offer goes
/// to the nearer driver, and a decline brings the booking back for the next
/// window, which offers it to the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_batch_policy_offers_the_nearest_when_the_window_closes_then_the_next() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    assert_eq!(app.get("/api/v1/settings", Some(&admin)).await.expect(200)["dispatchPolicy"], "batch");
    let near = online_near_pickup(&app, "driver1@demo.wayfare", 100.0).await;
    let far = online_near_pickup(&app, "driver4@demo.wayfare", 900.0).await;
    let mut events = app.events();
    let id = app.book(&rider(1)).await.id;
    let waiting = app.get("/api/v1/dispatch/active", Some(&admin)).await;
    assert_eq!(waiting.expect(200)["items"][0]["offered"], json!([]), "no offer before the window closes");

    app.wait_for_batch_offer(&mut events, id, near.id).await;
    let active = app.get("/api/v1/dispatch/active", Some(&admin)).await;
    let offered = active.expect(200)["items"][0]["offered"].as_array().unwrap().clone();
    assert_eq!(offered.len(), 1, "one driver per booking: {offered:?}");
    assert_eq!(offered[0]["driver"], near.id.to_string());

    app.post_empty(&format!("/api/v1/bookings/{id}/decline"), Some(&near)).await.expect(200);
    app.wait_for_batch_offer(&mut events, id, far.id).await;
    app.post_empty(&format!("/api/v1/bookings/{id}/accept"), Some(&far)).await.expect(200);
    let items = app.get(&timeline_path(id), Some(&admin)).await.expect(200)["items"].clone();
    assert_eq!(kinds(&items), ["offered", "withdrawn", "offered", "accepted"], "{items:#}");
    assert_eq!(items[0]["drivers"], json!([near.id.to_string()]));
    assert_eq!(items[1]["reason"], "declined");
    assert_eq!(items[2]["drivers"], json!([far.id.to_string()]));
    let assigned = app.get("/api/v1/dispatch/active", Some(&admin)).await;
    assert_eq!(assigned.expect(200)["items"][0]["status"], "ACCEPTED");
}

fn message_path(driver: wayfare_engine::UserId) -> String {
    format!("/api/v1/drivers/{driver}/message")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_messages_one_driver_in_the_app() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let outsider = driver(1);
    let mut feed = app.state.notifier.subscribe();
    let sent = app
        .post(&message_path(outsider.id), Some(&admin), json!({ "message": "  Please head to the harbour  " }))
        .await;
    let sent = sent.expect(200).clone();
    assert_eq!(sent["key"], "message");
    assert_eq!(sent["body"], "Please head to the harbour");
    assert_eq!(sent["from"], admin.id.to_string());
    assert_eq!(sent["createdAt"], app.now());
    assert!(sent["title"].as_str().is_some_and(|title| !title.is_empty()), "{sent}");
    let delivered = tokio::time::timeout(Duration::from_secs(5), feed.recv()).await.unwrap().unwrap();
    assert_eq!(delivered.to, vec![outsider.id]);
    assert_eq!(delivered.payload, sent);

    for empty in [json!({ "message": "   " }), json!({ "message": "" }), json!({})] {
        app.post(&message_path(outsider.id), Some(&admin), empty).await.refused_on(400, "no_details_error", "message");
    }
    let long = "a".repeat(2_001);
    app.post(&message_path(outsider.id), Some(&admin), json!({ "message": long })).await.refused_on(
        400,
        "invalid_input",
        "message",
    );

    // A fleet admin messages their own drivers only; riders and unknown ids are not drivers.
    let fleet = app.sign_in(&fleet_admin().email).await;
    let body = json!({ "message": "Break time" });
    app.post(&message_path(driver(4).id), Some(&fleet), body.clone()).await.expect(200);
    app.post(&message_path(outsider.id), Some(&fleet), body.clone()).await.refused(404, "not_found");
    app.post(&message_path(rider(1).id), Some(&admin), body.clone()).await.refused(404, "not_found");
    let nobody = wayfare_engine::UserId::from_u128(404);
    app.post(&message_path(nobody), Some(&admin), body.clone()).await.refused(404, "not_found");
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    app.post(&message_path(outsider.id), Some(&rider_session), body.clone()).await.refused(403, "not_allowed");
    app.post(&message_path(outsider.id), None, body).await.refused(401, "not_logged_in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_mode_refuses_messages_to_drivers() {
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    let body = json!({ "message": "Break time" });
    app.post(&message_path(driver(4).id), Some(&admin), body.clone()).await.refused(403, "demo_mode");
    app.post(&message_path(driver(4).id), Some(&fleet), body).await.refused(403, "demo_mode");
}
