//! What each viewer may see of a booking: riders never get the fare split
//! (spec §2 "Bookings", §6), push tokens stay on the server, and demo mode
//! (`AllowCriticalEditsAdmin` false) masks other people's contact data
//! (spec §6, DESIGN.md invariant 6).

use crate::support::*;
use serde_json::{Value, json};

const FARE_SPLIT: [&str; 2] = ["driver_share", "convenience_fees"];

#[track_caller]
fn assert_no_fare_split(booking: &Value, seen_in: &str) {
    for field in FARE_SPLIT {
        assert!(booking.get(field).is_none(), "a rider got {field} in {seen_in}: {booking}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn riders_never_receive_the_driver_share_or_the_convenience_fee_in_any_booking() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.credit(rider.id, rust_decimal::Decimal::new(100_000, 2)).await;

    let created = app.post("/api/v1/bookings", Some(&rider), trip_body("Economy")).await;
    assert_no_fare_split(created.expect(201), "create");
    let id = created.body["id"].as_str().unwrap().to_string();
    assert_no_fare_split(app.get(&format!("/api/v1/bookings/{id}"), Some(&rider)).await.expect(200), "read");
    let cancelled =
        app.post(&format!("/api/v1/bookings/{id}/cancel"), Some(&rider), json!({ "reason": "Changed my plans" })).await;
    assert_no_fare_split(cancelled.expect(200), "cancel");

    let reached = app.booking_at(&self::rider(1), &driver(1), Stage::Reached).await;
    let paid = app
        .post(&format!("/api/v1/bookings/{}/pay", reached.id), Some(&rider), json!({ "payment_mode": "wallet" }))
        .await;
    assert_no_fare_split(paid.expect(200), "pay");
    let rated = app.post(&format!("/api/v1/bookings/{}/rate", reached.id), Some(&rider), json!({ "rating": 4 })).await;
    assert_no_fare_split(rated.expect(200), "rate");

    app.booking_at(&self::rider(1), &driver(4), Stage::Accepted).await;
    let list = app.get("/api/v1/bookings", Some(&rider)).await;
    let items = list.expect(200)["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    for item in items {
        assert_no_fare_split(item, "the list");
    }
    let estimate = app.post("/api/v1/bookings/estimate", Some(&rider), trip_body("Economy")).await;
    assert!(estimate.expect(200).get("driver_share").is_none(), "the estimate shows no driver share to a rider");

    // Everyone else sees the split of the bookings they may read.
    let booking = app.booking_at(&self::rider(1), &driver(6), Stage::Accepted).await;
    for email in ["driver6@demo.wayfare", "fleet@demo.wayfare", "admin@demo.wayfare"] {
        let session = app.sign_in(email).await;
        let seen = app.get(&format!("/api/v1/bookings/{}", booking.id), Some(&session)).await;
        for field in FARE_SPLIT {
            assert!(seen.expect(200)[field].is_number(), "{email} sees {field}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_tokens_never_leave_the_server() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let mut customer = rider(1);
    customer.pushToken = Some("rider-device-token".into());
    app.state.storage.update_user(&customer, app.now()).await.unwrap();
    let mut chauffeur = driver(4);
    chauffeur.pushToken = Some("driver-device-token".into());
    app.state.storage.update_user(&chauffeur, app.now()).await.unwrap();
    let booking = app.booking_at(&customer, &chauffeur, Stage::Accepted).await;
    assert_eq!(booking.customer_token, "rider-device-token", "the booking keeps them for push");
    assert_eq!(booking.driver_token, "driver-device-token");
    for email in ["rider1@demo.wayfare", "driver4@demo.wayfare", "fleet@demo.wayfare", "admin@demo.wayfare"] {
        let session = app.sign_in(email).await;
        let reply = app.get(&format!("/api/v1/bookings/{}", booking.id), Some(&session)).await;
        let text = reply.expect(200).to_string();
        assert!(!text.contains("device-token"), "{email} got a push token: {text}");
        let list = app.get("/api/v1/bookings", Some(&session)).await;
        assert!(!list.expect(200).to_string().contains("device-token"), "{email} got a push token in the list");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_mode_masks_other_peoples_contact_data() {
    let app = TestApp::with_settings(|settings| {
        settings.autoDispatch = false;
        settings.AllowCriticalEditsAdmin = false;
    })
    .await;
    let booking = app.booking_at(&rider(1), &driver(4), Stage::Accepted).await;
    let offered = app.booking_at(&rider(2), &driver(4), Stage::Offered).await;
    // rider 1: +14105550201, rider1@demo.wayfare; driver 4: +14105550304.
    let plain_customer = ("+14105550201", "rider1@demo.wayfare");
    let masked_customer = ("***01", "r***1@demo.wayfare");
    let table = [
        ("rider1@demo.wayfare", plain_customer, "***04"),
        ("driver4@demo.wayfare", masked_customer, "+14105550304"),
        ("fleet@demo.wayfare", masked_customer, "***04"),
        ("admin@demo.wayfare", masked_customer, "***04"),
    ];
    for (email, (contact, customer_email), driver_contact) in table {
        let session = app.sign_in(email).await;
        let reply = app.get(&format!("/api/v1/bookings/{}", booking.id), Some(&session)).await;
        let seen = reply.expect(200);
        assert_eq!(
            (seen["customer_contact"].as_str(), seen["customer_email"].as_str(), seen["driver_contact"].as_str()),
            (Some(contact), Some(customer_email), Some(driver_contact)),
            "{email}"
        );
        // Names are not contact data.
        assert_eq!(seen["customer_name"], "Rider 1");
        let list = app.get("/api/v1/bookings", Some(&session)).await;
        let item = list.expect(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["id"] == booking.id.to_string())
            .cloned()
            .unwrap();
        assert_eq!(item["customer_contact"], contact, "{email} in the list");
    }
    let driver4 = app.sign_in("driver4@demo.wayfare").await;
    let tasks = app.get("/api/v1/tasks", Some(&driver4)).await;
    let task = &tasks.expect(200)["items"][0];
    assert_eq!(task["id"], offered.id.to_string());
    assert_eq!(
        (task["customer_contact"].as_str(), task["customer_email"].as_str()),
        (Some("***02"), Some("r***2@demo.wayfare"))
    );
    // The driver's own accept answer (once free of the first trip) shows
    // their own contact and masks the rider's.
    app.release_driver(booking.id).await;
    let accepted = app.post_empty(&format!("/api/v1/bookings/{}/accept", offered.id), Some(&driver4)).await;
    let accepted = accepted.expect(200);
    assert_eq!(
        (accepted["customer_contact"].as_str(), accepted["driver_contact"].as_str()),
        (Some("***02"), Some("+14105550304"))
    );
    // One's own profile is never masked.
    let me = app.get("/api/v1/auth/me", Some(&driver4)).await;
    assert_eq!(
        (me.expect(200)["user"]["mobile"].as_str(), me.body["user"]["email"].as_str()),
        (Some("+14105550304"), Some("driver4@demo.wayfare"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_demo_mode_contact_data_is_shown_to_those_who_may_read_the_booking() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.booking_at(&rider(1), &driver(4), Stage::Accepted).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let reply = app.get(&format!("/api/v1/bookings/{}", booking.id), Some(&admin)).await;
    let seen = reply.expect(200);
    assert_eq!(seen["customer_contact"], "+14105550201");
    assert_eq!(seen["customer_email"], "rider1@demo.wayfare");
    assert_eq!(seen["driver_contact"], "+14105550304");
    // A command's answer shows the same as a read.
    let cancelled = app
        .post(&format!("/api/v1/bookings/{}/cancel", booking.id), Some(&admin), json!({ "reason": "Duplicate" }))
        .await;
    assert_eq!(cancelled.expect(200)["driver_contact"], "+14105550304");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_driver_never_receives_the_trip_otp_the_rider_does() {
    // spec §4 STARTED: the driver must hear the otp from the rider
    let app = TestApp::with_settings(|settings| {
        settings.autoDispatch = false;
        settings.otp_secure = true;
    })
    .await;
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    let driver_session = app.sign_in("driver1@demo.wayfare").await;
    let offered = app.booking_at(&rider(1), &driver(1), Stage::Offered).await;
    let tasks = app.get("/api/v1/tasks", Some(&driver_session)).await;
    let task = &tasks.expect(200)["items"][0];
    assert_eq!(task["id"], offered.id.to_string());
    assert!(task.get("otp").is_none(), "a task carries no otp: {task}");
    let accepted = app.post(&format!("/api/v1/bookings/{}/accept", offered.id), Some(&driver_session), json!({})).await;
    assert!(accepted.expect(200).get("otp").is_none());
    let seen_by_rider = app.get(&format!("/api/v1/bookings/{}", offered.id), Some(&rider_session)).await;
    assert_eq!(seen_by_rider.expect(200)["otp"], offered.otp.0.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_api_paths_and_methods_answer_in_the_error_shape() {
    let app = TestApp::demo().await;
    let missing = app.get("/api/v1/nothing-here", None).await;
    assert_eq!(missing.expect(404)["error"]["code"], "not_found");
    let wrong_method = app.get("/api/v1/auth/otp/request", None).await;
    assert_eq!(wrong_method.expect(405)["error"]["code"], "method_not_allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_loads_languages_cancel_reasons_and_payment_providers_without_a_session() {
    // spec §1 (start-up data), §3 cancellation reasons and payment providers
    let app = TestApp::demo().await;
    let reasons = app.get("/api/v1/cancelreasons", None).await;
    let reasons = reasons.expect(200).as_array().unwrap().clone();
    assert_eq!(reasons.len(), 5);
    assert_eq!(reasons[0], json!({ "label": "Driver is taking too long", "value": 0 }));
    let providers = app.get("/api/v1/payments/providers", None).await;
    assert_eq!(providers.expect(200)[0]["name"], "test");
    let languages = app.get("/api/v1/languages", None).await;
    assert!(languages.expect(200).is_array());
}
