//! Issue #34 over REST: every booking reaches an end a person understands.
//! The rider skips rating or tries again after no driver came; the panel
//! settles, completes and refunds a booking, reads its ledger and the money
//! owed; the settings hold the give-up and auto-complete minutes, never the
//! demo mode; a user search puts the exact e-mail first.

use crate::admin_support::patch;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

#[track_caller]
fn assert_money(actual: &Value, expected: f64) {
    let actual = actual.as_f64().unwrap_or_else(|| panic!("not a number: {actual}"));
    assert!((actual - expected).abs() < 0.011, "{actual} is not {expected}");
}

fn path(id: impl std::fmt::Display, action: &str) -> String {
    format!("/api/v1/bookings/{id}/{action}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rider_skips_rating_and_the_trip_is_complete() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = app.booking_at(&self::rider(1), &self::driver(1), Stage::Paid).await;
    assert!(booking.timers.auto_complete.is_some());
    app.post(&path(booking.id, "rate"), Some(&rider), json!({})).await.refused_on(400, "invalid_rating", "rating");
    app.post(&path(booking.id, "rate"), Some(&rider), json!({ "rating": 4, "skip": true })).await.refused_on(
        400,
        "invalid_input",
        "skip",
    );
    let skipped = app.post(&path(booking.id, "rate"), Some(&rider), json!({ "skip": true })).await;
    assert_eq!(status_of(skipped.expect(200)), "COMPLETE");
    assert_eq!(skipped.body["rating"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_no_driver_takes_ends_with_its_reason_and_the_rider_tries_again() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let patched = patch(&app, "/api/v1/settings", Some(&admin), json!({ "noDriverCancelMinutes": 2 })).await;
    assert_eq!(patched.expect(200)["noDriverCancelMinutes"], json!(2));
    let rider = app.sign_in("rider2@demo.wayfare").await;
    let created = app.post("/api/v1/bookings", Some(&rider), trip_body("Comfort")).await;
    let booking = created.expect(201).clone();
    let id = booking["id"].as_str().unwrap().to_string();
    assert_eq!(booking["searchingSince"], json!(app.now()));
    assert_eq!(booking["timers"]["auto_cancel"]["at"], json!(app.now() + 120_000));
    // Still looking: no try again yet.
    app.post_empty(&path(&id, "rebook"), Some(&rider)).await.refused(409, "status_not_allowed");
    app.advance(Duration::from_secs(120));
    let mut ended = Value::Null;
    for _ in 0..200 {
        ended = app.get(&format!("/api/v1/bookings/{id}"), Some(&rider)).await.expect(200).clone();
        if ended["status"] == "CANCELLED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(ended["status"], "CANCELLED");
    assert_eq!(ended["reason"], "no_driver_available");
    assert_eq!(ended["cancelledBy"], "system");
    assert_money(&ended["cancellationFee"], 0.0);
    // Try again: the same trip, a new booking looking for a driver.
    let again = app.post_empty(&path(&id, "rebook"), Some(&rider)).await;
    let again = again.expect(201);
    assert_ne!(again["id"], ended["id"]);
    assert_eq!(again["status"], "NEW");
    for field in ["pickup", "drop", "carType", "customer", "payment_mode"] {
        assert_eq!(again[field], ended[field], "{field}");
    }
    // Someone else's booking is not theirs to book again.
    let other = app.sign_in("rider3@demo.wayfare").await;
    app.post_empty(&path(&id, "rebook"), Some(&other)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_settles_completes_and_refunds_and_the_ledger_shows_each_move() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = app.booking_at(&self::rider(1), &self::driver(1), Stage::Reached).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    // The rider chooses card and never pays: PENDING, listed as owed.
    app.post(&path(booking.id, "pay"), Some(&rider), json!({ "payment_mode": "card" })).await.expect(200);
    let owed = app.get("/api/v1/reports/owed", Some(&admin)).await;
    let pending: Vec<&Value> = owed.expect(200)["pending"].as_array().unwrap().iter().collect();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["id"], booking.id.to_string());
    app.get("/api/v1/reports/owed", Some(&rider)).await.refused(403, "not_allowed");
    // Only the panel settles, and not by wallet.
    app.post(&path(booking.id, "settle"), Some(&driver), json!({ "mode": "cash" })).await.refused(403, "not_allowed");
    app.post(&path(booking.id, "settle"), Some(&admin), json!({ "mode": "wallet" })).await.refused(403, "not_allowed");
    let settled = app.post(&path(booking.id, "settle"), Some(&admin), json!({ "mode": "cash" })).await;
    assert_eq!(status_of(settled.expect(200)), "PAID");
    assert_eq!(settled.body["payment_mode"], "cash");
    let owed = app.get("/api/v1/reports/owed", Some(&admin)).await;
    assert_eq!(owed.expect(200)["pending"], json!([]));
    let done = app.post_empty(&path(booking.id, "complete"), Some(&admin)).await;
    assert_eq!(status_of(done.expect(200)), "COMPLETE");
    // A refund to the wallet after completion, once per key, never beyond what was paid.
    let paid = done.body["customer_paid"].as_f64().unwrap();
    let body = |amount: f64, key: &str| json!({ "amount": amount, "reason": "Long detour", "idempotencyKey": key });
    app.post(&path(booking.id, "refund"), Some(&admin), body(paid + 1.0, "k1")).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    app.post(&path(booking.id, "refund"), Some(&admin), json!({ "amount": 1, "reason": " ", "idempotencyKey": "k" }))
        .await
        .refused_on(400, "select_proper", "reason");
    let refunded = app.post(&path(booking.id, "refund"), Some(&admin), body(2.0, "k1")).await;
    assert_money(&refunded.expect(201)["booking"]["refunded"], 2.0);
    assert_eq!(refunded.body["booking"]["status"], "COMPLETE");
    // The same key again refunds nothing more.
    let repeated = app.post(&path(booking.id, "refund"), Some(&admin), body(2.0, "k1")).await;
    assert_money(&repeated.expect(200)["booking"]["refunded"], 2.0);
    let wallet = app.get(&format!("/api/v1/users/{}/wallet", rider.id), Some(&rider)).await;
    assert_money(&wallet.expect(200)["walletBalance"], 2.0);
    // The ledger: the driver's share, the cash collected, the refund.
    let ledger = app.get(&path(booking.id, "ledger"), Some(&admin)).await;
    let items = ledger.expect(200)["items"].as_array().unwrap().clone();
    let refs: Vec<(&str, &str)> =
        items.iter().map(|item| (item["txRef"].as_str().unwrap(), item["role"].as_str().unwrap())).collect();
    let reference = done.body["reference"].as_str().unwrap();
    assert_eq!(
        refs,
        vec![
            (format!("DriverShare:{reference}").as_str(), "driver"),
            (format!("CashCollected:{reference}").as_str(), "driver"),
            (format!("Refund:{reference}").as_str(), "rider"),
        ]
    );
    assert_eq!(items[2]["userName"], "Rider 1");
    app.get(&path(booking.id, "ledger"), Some(&rider)).await.refused(403, "not_allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_hold_the_new_minutes_in_range_and_never_the_demo_mode() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let settings = app.get("/api/v1/settings", Some(&admin)).await;
    assert_eq!(settings.expect(200)["noDriverCancelMinutes"], json!(10));
    assert_eq!(settings.body["autoCompleteMinutes"], json!(60));
    for (field, value) in
        [("noDriverCancelMinutes", 0), ("noDriverCancelMinutes", 1441), ("autoCompleteMinutes", 10081)]
    {
        patch(&app, "/api/v1/settings", Some(&admin), json!({ field: value })).await.refused_on(
            400,
            "invalid_input",
            field,
        );
    }
    let patched = patch(&app, "/api/v1/settings", Some(&admin), json!({ "AllowCriticalEditsAdmin": false })).await;
    assert_eq!(patched.expect(200)["AllowCriticalEditsAdmin"], json!(true), "demo mode is the command line's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_search_ranks_the_exact_email_first() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let found = app.get(&format!("/api/v1/users?search={}", query_encode("driver1@demo.wayfare")), Some(&admin)).await;
    let emails: Vec<&str> =
        found.expect(200)["items"].as_array().unwrap().iter().map(|user| user["email"].as_str().unwrap()).collect();
    assert_eq!(emails.first(), Some(&"driver1@demo.wayfare"));
    assert_eq!(emails.iter().filter(|email| **email == "driver1@demo.wayfare").count(), 1);
    // Outside the caller's scope it is not put first: a rider search stays riders.
    let riders = app
        .get(&format!("/api/v1/users?role=rider&search={}", query_encode("driver1@demo.wayfare")), Some(&admin))
        .await;
    assert!(riders.expect(200)["items"].as_array().unwrap().iter().all(|user| user["usertype"] == "rider"));
}
