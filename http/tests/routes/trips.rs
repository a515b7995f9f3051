//! The trip over REST: offers and tasks, accept, decline, assign, arrive,
//! start with the otp, reach, pay, rate, cancel, chat and tracking (spec §4,
//! DESIGN.md contract and invariants 2 and 5), with each refusal's key.

use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{AppCategory, BookingStatus, LatLng, TrackingPoint, UserId};

fn path(id: impl std::fmt::Display, action: &str) -> String {
    format!("/api/v1/bookings/{id}/{action}")
}

fn wallet_path(id: UserId) -> String {
    format!("/api/v1/users/{id}/wallet")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_trip_runs_through_the_routes_from_the_offer_to_the_rating() {
    let app = TestApp::demo().await; // auto-dispatch on (batch), otp_secure on
    let driver = app.sign_in("driver1@demo.wayfare").await; // Economy, no fleet
    let online = app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true })).await;
    assert_eq!(online.expect(200), &json!({ "driverActiveStatus": true }));
    let moved = app
        .post("/api/v1/drivers/me/location", Some(&driver), json!({ "lat": 39.2825, "lng": -76.593, "heading": 90.0 }))
        .await;
    assert_eq!(moved.expect(200), &json!({ "ok": true, "lat": 39.2825, "lng": -76.593 }));
    let tasks = app.get("/api/v1/tasks", Some(&driver)).await;
    assert_eq!(tasks.expect(200), &json!({ "items": [] }));

    let rider = app.sign_in("rider1@demo.wayfare").await;
    let mut events = app.events();
    let created = app.post("/api/v1/bookings", Some(&rider), trip_body("Economy")).await;
    let booking = created.expect(201).clone();
    let id: wayfare_engine::BookingId = booking["id"].as_str().unwrap().parse().unwrap();
    let otp = booking["otp"].as_u64().unwrap();
    app.wait_for_batch_offer(&mut events, id, driver.id).await;
    let offered_at = app.now();

    // The offer shows in the driver's tasks, with the fare split a driver may see.
    let tasks = app.get("/api/v1/tasks", Some(&driver)).await;
    let offered = &tasks.expect(200)["items"][0];
    assert_eq!(offered["id"], id.to_string());
    assert_eq!(offered["requestedDrivers"], json!({ driver.id.to_string(): true }));
    assert!(offered["driver_share"].is_number() && offered["convenience_fees"].is_number());

    let accepted = app.post_empty(&path(id, "accept"), Some(&driver)).await;
    let accepted = accepted.expect(200);
    assert_eq!(status_of(accepted), "ACCEPTED");
    assert_eq!(accepted["driver"], driver.id.to_string());
    assert_eq!(accepted["driver_name"], "Driver 1");
    assert_eq!(accepted["driver_contact"], "+14105550301");
    assert_eq!(accepted["vehicle_number"], "MD-7001");
    assert_eq!(accepted["requestedDrivers"], json!({}));
    assert_eq!(accepted["fleetadmin"], Value::Null);
    assert_eq!(app.get("/api/v1/tasks", Some(&driver)).await.expect(200), &json!({ "items": [] }));
    let seen_by_rider = app.get(&format!("/api/v1/bookings/{id}"), Some(&rider)).await;
    assert_eq!(status_of(seen_by_rider.expect(200)), "ACCEPTED");
    assert_eq!(seen_by_rider.body["driver_name"], "Driver 1");

    // Chat both ways.
    let sent = app.post(&path(id, "chat"), Some(&rider), json!({ "message": "  I'm by the water taxi  " })).await;
    let message = sent.expect(201);
    assert_eq!(message["message"], "I'm by the water taxi");
    assert_eq!(message["from"], rider.id.to_string());
    assert_eq!(message["type"], "msg");
    assert_eq!(message["source"], "rider");
    assert!(message["id"].is_string() && message["msgDate"].is_string() && message["msgTime"].is_string(), "{message}");
    app.post(&path(id, "chat"), Some(&driver), json!({ "message": "On my way" })).await.expect(201);
    let chat = app.get(&path(id, "chat"), Some(&driver)).await;
    let messages = chat.expect(200)["messages"].as_array().unwrap();
    let texts: Vec<&str> = messages.iter().map(|message| message["message"].as_str().unwrap()).collect();
    assert_eq!(texts, ["I'm by the water taxi", "On my way"]);
    assert_eq!(messages[1]["source"], "driver");

    let arrived = app.post_empty(&path(id, "arrive"), Some(&driver)).await;
    assert_eq!(status_of(arrived.expect(200)), "ARRIVED");
    assert_eq!(arrived.body["driver_arrive_time"], offered_at);

    app.post_empty(&path(id, "start"), Some(&driver)).await.refused(400, "otp_mismatch");
    let wrong = if otp == 10_000 { 10_001 } else { otp - 1 };
    app.post(&path(id, "start"), Some(&driver), json!({ "otp": wrong })).await.refused(400, "otp_mismatch");
    let started = app.post(&path(id, "start"), Some(&driver), json!({ "otp": otp })).await;
    assert_eq!(status_of(started.expect(200)), "STARTED");
    assert_eq!(started.body["trip_start_time"], offered_at);

    app.advance(MINUTE * 6);
    let at_the_fort = json!({ "lat": 39.26532, "lng": -76.57961 });
    app.post("/api/v1/drivers/me/location", Some(&driver), at_the_fort).await.expect(200);
    let reached = app.post_empty(&path(id, "reach"), Some(&driver)).await;
    let reached = reached.expect(200).clone();
    assert_eq!(status_of(&reached), "REACHED");
    assert_eq!(reached["trip_end_time"], offered_at + 6 * 60_000);
    assert_eq!(reached["total_trip_time"], 360);
    assert!(
        reached["dropAddress"].as_str().unwrap().contains("2400 E Fort Ave"),
        "the booked drop: {}",
        reached["dropAddress"]
    );
    // Issue #34: where the trip really ended is kept beside the booked drop.
    assert_eq!(
        (reached["actualDrop"]["lat"].as_f64(), reached["actualDrop"]["lng"].as_f64()),
        (Some(39.26532), Some(-76.57961))
    );
    let payable = reached["payableAmount"].as_f64().unwrap();
    let share = reached["driver_share"].as_f64().unwrap();
    assert!(payable >= 7.0 && share > 0.0 && share < payable);

    let tracking = app.get(&path(id, "tracking"), Some(&rider)).await;
    let tracking = tracking.expect(200);
    let statuses: Vec<&str> =
        tracking["points"].as_array().unwrap().iter().map(|point| point["status"].as_str().unwrap()).collect();
    assert!(statuses.contains(&"ACCEPTED") && statuses.contains(&"REACHED"), "{statuses:?}");
    assert_eq!(tracking["latest"], tracking["points"].as_array().unwrap().last().unwrap().clone());
    for field in ["at", "status", "lat", "lng"] {
        assert!(tracking["latest"].get(field).is_some(), "a tracking point has {field}");
    }

    // The rider's wallet is empty: the driver collects cash instead.
    app.post(&path(id, "pay"), Some(&rider), json!({ "payment_mode": "wallet" }))
        .await
        .refused(409, "insufficient_wallet_balance");
    let paid = app.post(&path(id, "pay"), Some(&driver), json!({ "payment_mode": "cash" })).await;
    let paid = paid.expect(200);
    assert_eq!(status_of(paid), "PAID");
    assert_eq!(paid["payment_mode"], "cash");
    assert_eq!(paid["cashPaymentAmount"], payable);
    assert_eq!(paid["customer_paid"], payable);

    let rated = app.post(&path(id, "rate"), Some(&rider), json!({ "rating": 5 })).await;
    assert_eq!(status_of(rated.expect(200)), "COMPLETE");
    assert_eq!(rated.body["rating"], 5);

    // The driver's wallet: the share in, the cash collected out.
    let wallet = app.get(&wallet_path(driver.id), Some(&driver)).await;
    let wallet = wallet.expect(200);
    let balance = wallet["walletBalance"].as_f64().unwrap();
    assert!((balance - (share - payable)).abs() < 0.001, "{balance} = {share} - {payable}");
    let entries: Vec<(String, f64)> = wallet["walletHistory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                format!("{} {}", entry["type"].as_str().unwrap(), entry["txRef"].as_str().unwrap()),
                entry["amount"].as_f64().unwrap(),
            )
        })
        .collect();
    let reference = booking["reference"].as_str().unwrap();
    assert!(entries.contains(&(format!("Credit DriverShare:{reference}"), share)), "{entries:?}");
    assert!(entries.contains(&(format!("Debit CashCollected:{reference}"), payable)), "{entries:?}");
    let me = app.get("/api/v1/auth/me", Some(&driver)).await;
    assert_eq!(me.expect(200)["user"]["ratings"]["userrating"], 5.0);
}

// ---- accept, decline, offers ---------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_driver_to_accept_gets_booking_taken_and_cannot_decline_any_more() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.book(&rider(1)).await;
    app.offer(booking.id, &[&driver(1), &driver(4)]).await;
    let first = app.sign_in("driver1@demo.wayfare").await;
    let second = app.sign_in("driver4@demo.wayfare").await;
    let tasks = app.get("/api/v1/tasks", Some(&second)).await;
    assert_eq!(tasks.expect(200)["items"][0]["id"], booking.id.to_string());

    let won = app.post_empty(&path(booking.id, "accept"), Some(&first)).await;
    assert_eq!(won.expect(200)["driver"], first.id.to_string());
    app.post_empty(&path(booking.id, "accept"), Some(&second)).await.refused(409, "booking_taken");
    app.post_empty(&path(booking.id, "decline"), Some(&second)).await.refused(403, "not_offered");
    // The offer is gone, and with it the loser's sight of the booking.
    assert_eq!(app.get("/api/v1/tasks", Some(&second)).await.expect(200), &json!({ "items": [] }));
    app.get(&format!("/api/v1/bookings/{}", booking.id), Some(&second)).await.refused(404, "not_found");
    // The winner cannot decline what they accepted.
    app.post_empty(&path(booking.id, "decline"), Some(&first)).await.refused(403, "not_offered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_whose_offer_was_cancelled_no_longer_sees_the_booking() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.book(&rider(1)).await;
    app.offer(booking.id, &[&driver(1)]).await;
    app.command(
        booking.id,
        By::Rider(rider(1).id),
        Command::Cancel { reason: "Changed my plans".into(), wallet_balance: None },
    )
    .await;
    let late = app.sign_in("driver1@demo.wayfare").await;
    // The booking no longer lists the driver: for them it is gone.
    app.post_empty(&path(booking.id, "accept"), Some(&late)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declining_driver_leaves_the_offer_and_the_lone_one_cancels_the_booking() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.book(&rider(1)).await;
    app.offer(booking.id, &[&driver(1), &driver(4)]).await;
    let first = app.sign_in("driver1@demo.wayfare").await;
    let second = app.sign_in("driver4@demo.wayfare").await;
    let declined = app.post_empty(&path(booking.id, "decline"), Some(&first)).await;
    let declined = declined.expect(200);
    assert_eq!(status_of(declined), "NEW");
    assert_eq!(declined["requestedDrivers"], json!({ second.id.to_string(): true }));
    let cancelled = app.post(&path(booking.id, "cancel"), Some(&second), json!({ "reason": "Too far" })).await;
    let cancelled = cancelled.expect(200);
    assert_eq!(status_of(cancelled), "CANCELLED", "spec §4: the only requested driver declining cancels the booking");
    assert_eq!(cancelled["cancelledBy"], "driver");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_assigns_an_online_driver_of_the_car_type_when_auto_dispatch_is_off() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.book(&rider(1)).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let driver7 = app.sign_in("driver7@demo.wayfare").await; // Economy
    let driver2 = app.sign_in("driver2@demo.wayfare").await; // Comfort
    let assign = path(booking.id, "assign");

    app.post(&assign, Some(&admin), json!({ "driver": driver7.id })).await.refused_on(
        409,
        "driver_not_eligible",
        "driver",
    );
    for session in [&driver7, &driver2] {
        app.post("/api/v1/drivers/me/status", Some(session), json!({ "driverActiveStatus": true })).await.expect(200);
    }
    app.post(&assign, Some(&admin), json!({ "driver": driver2.id })).await.refused_on(
        409,
        "driver_not_eligible",
        "driver",
    );
    app.post(&assign, Some(&admin), json!({ "driver": rider(2).id })).await.refused_on(
        409,
        "driver_not_eligible",
        "driver",
    );
    app.post(&assign, Some(&admin), json!({ "driver": UserId::from_u128(7) })).await.refused_on(
        409,
        "driver_not_eligible",
        "driver",
    );
    app.post(&assign, Some(&admin), json!({ "driver": "driver7" })).await.refused_on(400, "invalid_input", "body");

    let assigned = app.post(&assign, Some(&admin), json!({ "driver": driver7.id })).await;
    let assigned = assigned.expect(200);
    assert_eq!(status_of(assigned), "NEW");
    assert_eq!(assigned["requestedDrivers"], json!({ driver7.id.to_string(): true }));
    assert!(assigned["driver_share"].is_number(), "admins see the fare split");
    app.post(&assign, Some(&admin), json!({ "driver": driver7.id })).await.refused(409, "status_not_allowed");
    let tasks = app.get("/api/v1/tasks", Some(&driver7)).await;
    assert_eq!(tasks.expect(200)["items"][0]["id"], booking.id.to_string());
    let accepted = app.post_empty(&path(booking.id, "accept"), Some(&driver7)).await;
    assert_eq!(status_of(accepted.expect(200)), "ACCEPTED");
    app.post(&assign, Some(&admin), json!({ "driver": driver7.id })).await.refused_on(
        409,
        "driver_not_eligible",
        "driver",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_hands_a_booking_nobody_took_to_a_driver_with_auto_dispatch_on() {
    // Issue #34 (DESIGN.md contract): assign works with autoDispatch on for a
    // booking no driver has taken, and the first accept still wins.
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let driver7 = app.sign_in("driver7@demo.wayfare").await;
    app.post("/api/v1/drivers/me/status", Some(&driver7), json!({ "driverActiveStatus": true })).await.expect(200);
    let booking = app.book(&rider(1)).await;
    let assigned = app.post(&path(booking.id, "assign"), Some(&admin), json!({ "driver": driver7.id })).await;
    assert!(assigned.expect(200)["requestedDrivers"][driver7.id.to_string()].as_bool().unwrap());
    let accepted = app.post_empty(&path(booking.id, "accept"), Some(&driver7)).await;
    assert_eq!(status_of(accepted.expect(200)), "ACCEPTED");
    let driver4 = app.sign_in("driver4@demo.wayfare").await;
    app.post("/api/v1/drivers/me/status", Some(&driver4), json!({ "driverActiveStatus": true })).await.expect(200);
    app.post(&path(booking.id, "assign"), Some(&admin), json!({ "driver": driver4.id }))
        .await
        .refused(409, "status_not_allowed");
}

// ---- the trip's steps --------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_the_status_does_not_allow_is_status_not_allowed() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let accepted = app.booking_at(&self::rider(1), &self::driver(1), Stage::Accepted).await;
    let table = [
        (&driver, "start", json!({ "otp": accepted.otp.0 })),
        (&driver, "reach", json!({})),
        (&driver, "pay", json!({ "payment_mode": "cash" })),
        (&rider, "pay", json!({ "payment_mode": "wallet" })),
        (&rider, "rate", json!({ "rating": 4 })),
    ];
    for (who, action, body) in table {
        app.post(&path(accepted.id, action), Some(who), body).await.refused(409, "status_not_allowed");
    }
    app.release_driver(accepted.id).await;
    let started = app.booking_at(&self::rider(1), &self::driver(1), Stage::Started).await;
    app.post_empty(&path(started.id, "arrive"), Some(&driver)).await.refused(409, "status_not_allowed");
    app.post(&path(started.id, "cancel"), Some(&rider), json!({ "reason": "Changed my plans" }))
        .await
        .refused(409, "status_not_allowed");
    app.release_driver(started.id).await;
    let paid = app.booking_at(&self::rider(1), &self::driver(1), Stage::Paid).await;
    app.post(&path(paid.id, "rate"), Some(&rider), json!({ "rating": 4 })).await.expect(200);
    // Finished: nothing moves it any more.
    app.post(&path(paid.id, "rate"), Some(&rider), json!({ "rating": 5 })).await.refused(409, "status_not_allowed");
    app.post(&path(paid.id, "cancel"), Some(&rider), json!({ "reason": "Changed my plans" }))
        .await
        .refused(409, "status_not_allowed");
    app.post(&path(paid.id, "pay"), Some(&driver), json!({ "payment_mode": "cash" }))
        .await
        .refused(409, "status_not_allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_checks_the_trip_otp_and_its_body() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let arrived = app.booking_at(&rider(1), &self::driver(1), Stage::Arrived).await;
    let otp = arrived.otp.0.expect("otp_secure is on");
    let start = path(arrived.id, "start");
    app.post(&start, Some(&driver), json!({})).await.refused(400, "otp_mismatch");
    app.post(&start, Some(&driver), json!({ "otp": null })).await.refused(400, "otp_mismatch");
    app.post(&start, Some(&driver), json!({ "otp": otp + 1 })).await.refused(400, "otp_mismatch");
    app.post(&start, Some(&driver), json!({ "otp": otp.to_string() })).await.refused_on(400, "invalid_input", "otp");
    app.post_raw(&start, Some(&driver), "application/json", "{otp").await.refused_on(400, "invalid_input", "otp");
    let started = app.post(&start, Some(&driver), json!({ "otp": otp })).await;
    assert_eq!(status_of(started.expect(200)), "STARTED");
}

/// Without `otp_secure`: the app, driver 1 signed in, and rider 1's trip
/// with that driver at ARRIVED.
async fn arrived_without_otp() -> (TestApp, Session, std::sync::Arc<wayfare_engine::Booking>) {
    let app = TestApp::with_settings(|settings| {
        settings.autoDispatch = false;
        settings.otp_secure = false;
    })
    .await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let arrived = app.booking_at(&rider(1), &self::driver(1), Stage::Arrived).await;
    (app, driver, arrived)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_otp_secure_a_trip_starts_with_no_body() {
    let (app, driver, arrived) = arrived_without_otp().await;
    assert_eq!(serde_json::to_value(arrived.otp).unwrap(), json!(false), "spec §3: otp is false without otp_secure");
    let started = app.post_empty(&path(arrived.id, "start"), Some(&driver)).await;
    assert_eq!(status_of(started.expect(200)), "STARTED");
}

/// Found by schemathesis: the document's start body is optional and
/// nullable, but a JSON `null` body was 400 `invalid_input` on `otp`. It is
/// now no otp, like an empty body: `otp_mismatch` when the trip has one, the
/// trip started when it has none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_null_start_body_is_no_otp() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let arrived = app.booking_at(&rider(1), &self::driver(1), Stage::Arrived).await;
    let start = path(arrived.id, "start");
    app.post_raw(&start, Some(&driver), "application/json", "null").await.refused(400, "otp_mismatch");
    app.post_raw(&start, Some(&driver), "application/json", "[1]").await.refused_on(400, "invalid_input", "otp");

    let (app, driver, arrived) = arrived_without_otp().await;
    let started = app.post_raw(&path(arrived.id, "start"), Some(&driver), "application/json", " null ").await;
    assert_eq!(status_of(started.expect(200)), "STARTED");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_pays_from_the_wallet_only_with_enough_balance() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let reached = app.booking_at(&self::rider(1), &self::driver(1), Stage::Reached).await;
    let pay = path(reached.id, "pay");
    app.post(&pay, Some(&rider), json!({ "payment_mode": "wallet" })).await.refused(409, "insufficient_wallet_balance");
    app.post(&pay, Some(&rider), json!({ "payment_mode": "cash" })).await.refused(403, "not_allowed");
    app.post(&pay, Some(&driver), json!({ "payment_mode": "wallet" })).await.refused(403, "not_allowed");
    app.post(&pay, Some(&driver), json!({ "payment_mode": "card" })).await.refused_on(
        403,
        "not_allowed",
        "payment_mode",
    );
    app.post(&pay, Some(&rider), json!({ "payment_mode": "cheque" })).await.refused_on(400, "invalid_input", "body");
    // No mode is only for a prepaid booking's driver (nothing to collect).
    app.post(&pay, Some(&rider), json!({})).await.refused_on(403, "not_allowed", "payment_mode");
    app.post(&pay, Some(&driver), json!({})).await.refused(403, "not_allowed");

    app.credit(rider.id, rust_decimal::Decimal::new(5000, 2)).await;
    let paid = app.post(&pay, Some(&rider), json!({ "payment_mode": "wallet" })).await;
    let paid = paid.expect(200);
    assert_eq!(status_of(paid), "PAID");
    assert_eq!(paid["payment_mode"], "wallet");
    let payable = reached.payableAmount.to_string().parse::<f64>().unwrap();
    assert_eq!(paid["usedWalletMoney"], payable);
    let wallet = app.get(&wallet_path(rider.id), Some(&rider)).await;
    let wallet = wallet.expect(200);
    assert!((wallet["walletBalance"].as_f64().unwrap() - (50.0 - payable)).abs() < 0.001, "{wallet}");
    assert_eq!(wallet["walletHistory"][0]["type"], "Debit");
    assert_eq!(wallet["walletHistory"][0]["txRef"], format!("WalletPayment:{}", reached.reference));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_driver_of_a_prepaid_delivery_marks_it_paid_with_nothing_to_collect() {
    let app = TestApp::with_settings(|settings| {
        settings.appcat = AppCategory::Delivery;
        settings.autoDispatch = false;
    })
    .await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let booking = app.book(&self::rider(1)).await;
    assert_eq!(booking.status, BookingStatus::PaymentPending);
    app.command(
        booking.id,
        By::System,
        Command::ConfirmPayment { gateway: "test".into(), amount: booking.payableAmount },
    )
    .await;
    app.offer(booking.id, &[&self::driver(1)]).await;
    let accepted = app.accept(booking.id, &self::driver(1)).await;
    let by = By::Driver(driver.id);
    app.command(booking.id, by, Command::Arrive { location: None }).await;
    app.command(booking.id, by, Command::Start { otp: accepted.otp.0, location: None }).await;
    let reached =
        app.command(booking.id, by, Command::Reach { location: None, drop_address: None, route: Vec::new() }).await;
    assert!(reached.prepaid);
    let pay = path(booking.id, "pay");
    // The rider paid by card before dispatch: only the driver marks it paid,
    // and a card payment is never made through this route.
    app.post(&pay, Some(&rider), json!({})).await.refused_on(403, "not_allowed", "payment_mode");
    app.post(&pay, Some(&driver), json!({ "payment_mode": "card" })).await.refused_on(
        403,
        "not_allowed",
        "payment_mode",
    );

    let paid = app.post(&pay, Some(&driver), json!({})).await;
    let paid = paid.expect(200);
    assert_eq!(status_of(paid), "PAID");
    assert_eq!(paid["payment_mode"], "card");
    assert_eq!(paid["cashPaymentAmount"], 0.0);
    let share = reached.driver_share.to_string().parse::<f64>().unwrap();
    let wallet = app.get(&wallet_path(driver.id), Some(&driver)).await;
    let wallet = wallet.expect(200);
    assert!((wallet["walletBalance"].as_f64().unwrap() - share).abs() < 0.001, "{wallet}");
    assert_eq!(wallet["walletHistory"].as_array().unwrap().len(), 1, "the share in, no cash out: {wallet}");
    app.post(&path(booking.id, "rate"), Some(&rider), json!({ "rating": 5 })).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rating_is_one_to_five_stars() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let paid = app.booking_at(&self::rider(1), &driver(1), Stage::Paid).await;
    let rate = path(paid.id, "rate");
    for rating in [0, 6, -1, 1000] {
        app.post(&rate, Some(&rider), json!({ "rating": rating })).await.refused_on(400, "invalid_rating", "rating");
    }
    app.post(&rate, Some(&rider), json!({ "rating": "five" })).await.refused_on(400, "invalid_input", "body");
    app.post(&rate, Some(&rider), json!({ "rating": 4.5 })).await.refused_on(400, "invalid_input", "body");
    let rated = app.post(&rate, Some(&rider), json!({ "rating": 1 })).await;
    assert_eq!(status_of(rated.expect(200)), "COMPLETE");
}

// ---- cancel ------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_needs_a_reason() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = app.book(&self::rider(1)).await;
    let cancel = path(booking.id, "cancel");
    app.post(&cancel, Some(&rider), json!({})).await.refused_on(400, "select_proper", "reason");
    app.post(&cancel, Some(&rider), json!({ "reason": "   " })).await.refused_on(400, "select_proper", "reason");
    app.post(&cancel, Some(&rider), json!({ "reason": "x".repeat(501) })).await.refused_on(
        400,
        "invalid_input",
        "reason",
    );
    app.post(&cancel, Some(&rider), json!({ "reason": 3 })).await.refused_on(400, "invalid_input", "body");
    let cancelled = app.post(&cancel, Some(&rider), json!({ "reason": " Changed my plans " })).await;
    let cancelled = cancelled.expect(200);
    assert_eq!(status_of(cancelled), "CANCELLED");
    assert_eq!(cancelled["reason"], "Changed my plans");
    assert_eq!(cancelled["cancelledBy"], "rider");
    assert_eq!(cancelled["cancellationFee"], 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_cancelling_five_minutes_after_the_accept_pays_the_slab_to_the_driver() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let accepted = app.booking_at(&self::rider(1), &self::driver(1), Stage::Accepted).await;
    app.advance(MINUTE * 5);
    let cancelled =
        app.post(&path(accepted.id, "cancel"), Some(&rider), json!({ "reason": "Driver is taking too long" })).await;
    // Economy's slabs: 2.00 after 2 minutes, 5.00 after 5.
    assert_eq!(cancelled.expect(200)["cancellationFee"], 5.0);
    // Issue #34: negative balances are off and the wallet is empty, so the
    // whole fee is owed rather than taking the wallet below zero.
    assert_eq!(cancelled.body["cancellationFeeOwed"], 5.0);
    let rider_wallet = app.get(&wallet_path(rider.id), Some(&rider)).await;
    assert_eq!(rider_wallet.expect(200)["walletBalance"], 0.0);
    let driver_wallet = app.get(&wallet_path(driver.id), Some(&driver)).await;
    assert_eq!(driver_wallet.expect(200)["walletBalance"], 5.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_assigned_driver_and_an_admin_may_cancel_without_a_fee() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let first = app.booking_at(&rider(1), &self::driver(1), Stage::Arrived).await;
    let second = app.booking_at(&rider(2), &self::driver(4), Stage::Accepted).await;
    app.advance(MINUTE * 5);
    let by_driver = app.post(&path(first.id, "cancel"), Some(&driver), json!({ "reason": "Rider not there" })).await;
    assert_eq!(
        (by_driver.expect(200)["cancelledBy"].as_str(), by_driver.body["cancellationFee"].as_f64()),
        (Some("driver"), Some(0.0))
    );
    let by_admin = app.post(&path(second.id, "cancel"), Some(&admin), json!({ "reason": "Duplicate booking" })).await;
    assert_eq!(
        (by_admin.expect(200)["cancelledBy"].as_str(), by_admin.body["cancellationFee"].as_f64()),
        (Some("admin"), Some(0.0))
    );
}

// ---- chat and tracking -----------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_message_is_not_blank_nor_longer_than_two_thousand_characters() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let accepted = app.booking_at(&self::rider(1), &driver(1), Stage::Accepted).await;
    let chat = path(accepted.id, "chat");
    app.post(&chat, Some(&rider), json!({ "message": "  " })).await.refused_on(400, "invalid_input", "message");
    app.post(&chat, Some(&rider), json!({ "message": "y".repeat(2001) })).await.refused_on(
        400,
        "invalid_input",
        "message",
    );
    app.post(&chat, Some(&rider), json!({ "text": "hello" })).await.refused_on(400, "invalid_input", "body");
    app.post(&chat, Some(&rider), json!({ "message": "y".repeat(2000) })).await.expect(201);
    assert_eq!(app.get(&chat, Some(&rider)).await.expect(200)["messages"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracking_of_a_booking_without_points_is_empty() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = app.book(&self::rider(1)).await;
    let tracking = app.get(&path(booking.id, "tracking"), Some(&rider)).await;
    assert_eq!(tracking.expect(200), &json!({ "latest": null, "points": [] }));
}

// ---- ids ----------------------------------------------------------------------------------

/// Every route with a booking id, as (method, action, body); `""` is the booking itself.
const BOOKING_ROUTES: [(&str, &str); 13] = [
    ("GET", ""),
    ("POST", "accept"),
    ("POST", "decline"),
    ("POST", "arrive"),
    ("POST", "start"),
    ("POST", "reach"),
    ("POST", "pay"),
    ("POST", "rate"),
    ("POST", "cancel"),
    ("POST", "assign"),
    ("GET", "chat"),
    ("POST", "chat"),
    ("GET", "tracking"),
];

fn body_for(action: &str) -> Value {
    match action {
        "pay" => json!({ "payment_mode": "cash" }),
        "rate" => json!({ "rating": 5 }),
        "cancel" => json!({ "reason": "Changed my plans" }),
        "assign" => json!({ "driver": driver(7).id }),
        "chat" => json!({ "message": "hello" }),
        "start" => json!({ "otp": 12345 }),
        _ => json!({}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_booking_id_is_not_found_on_every_route() {
    let app = TestApp::demo().await;
    let sessions = [
        app.sign_in("admin@demo.wayfare").await,
        app.sign_in("rider1@demo.wayfare").await,
        app.sign_in("driver1@demo.wayfare").await,
    ];
    for session in &sessions {
        for (method, action) in BOOKING_ROUTES {
            for id in ["not-a-booking", "1", "00000000-0000-0000-0000-00000000000g"] {
                let url = if action.is_empty() { format!("/api/v1/bookings/{id}") } else { path(id, action) };
                let reply = if method == "GET" {
                    app.get(&url, Some(session)).await
                } else {
                    app.post(&url, Some(session), body_for(action)).await
                };
                assert_eq!(
                    (reply.status.as_u16(), reply.error_code()),
                    (404, "not_found"),
                    "{method} {url} by {}",
                    session.user["email"]
                );
            }
        }
        app.get("/api/v1/users/not-a-user/wallet", Some(session)).await.refused(404, "not_found");
    }
    // Without a session the id is never looked at.
    app.get("/api/v1/bookings/not-a-booking", None).await.refused(401, "not_logged_in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_counts_as_read_once_the_other_party_opens_the_chat() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let accepted = app.booking_at(&self::rider(1), &self::driver(1), Stage::Accepted).await;
    let chat = path(accepted.id, "chat");
    app.post(&chat, Some(&rider), json!({ "message": "Blue door" })).await.expect(201);
    app.get(&chat, Some(&rider)).await.expect(200);
    assert_eq!(
        app.get(&chat, Some(&rider)).await.expect(200)["messages"][0]["read_at"],
        Value::Null,
        "the sender's own reading does not count"
    );
    app.advance(MINUTE);
    assert_eq!(app.get(&chat, Some(&driver)).await.expect(200)["messages"][0]["message"], "Blue door");
    assert_eq!(app.get(&chat, Some(&rider)).await.expect(200)["messages"][0]["read_at"], T0 + 60_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_drivers_accepting_at_once_make_one_winner_and_four_booking_taken() {
    // DESIGN.md invariant 2, through the routes
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let numbers = [1, 4, 7, 10, 13]; // the Economy drivers
    let mut sessions = Vec::new();
    for number in numbers {
        sessions.push(app.sign_in(&format!("driver{number}@demo.wayfare")).await);
    }
    for round in 0..10 {
        let booking = app.book(&rider(1 + round % 5)).await;
        let drivers: Vec<_> = numbers.iter().map(|number| driver(*number)).collect();
        app.offer(booking.id, &drivers.iter().collect::<Vec<_>>()).await;
        let accept = path(booking.id, "accept");
        let (a, b, c, d, e) = tokio::join!(
            app.post_empty(&accept, Some(&sessions[0])),
            app.post_empty(&accept, Some(&sessions[1])),
            app.post_empty(&accept, Some(&sessions[2])),
            app.post_empty(&accept, Some(&sessions[3])),
            app.post_empty(&accept, Some(&sessions[4])),
        );
        let replies = [a, b, c, d, e];
        let winners: Vec<usize> = (0..5).filter(|index| replies[*index].status.as_u16() == 200).collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one driver wins");
        for (index, reply) in replies.iter().enumerate() {
            if index != winners[0] {
                reply.refused(409, "booking_taken");
            }
        }
        let read = app.get(&format!("/api/v1/bookings/{}", booking.id), Some(&sessions[winners[0]])).await;
        assert_eq!(read.expect(200)["driver"], sessions[winners[0]].id.to_string());
        // The winner gives the trip up, so all five race again next round.
        let cancel = path(booking.id, "cancel");
        let cancelled = app.post(&cancel, Some(&sessions[winners[0]]), json!({ "reason": "Flat tyre" })).await;
        assert_eq!(status_of(cancelled.expect(200)), "CANCELLED");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_on_a_trip_cannot_take_a_second_one_whichever_accept_comes_first() {
    // Spec §5: a driver in queue is not eligible. Two offers held at once
    // (two nodes' waves, or a broadcast) accepted together: one trip.
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    for round in 0..5 {
        let first = app.book(&rider(1 + round % 5)).await;
        let second = app.book(&rider(2 + round % 4)).await;
        app.offer(first.id, &[&self::driver(1)]).await;
        app.offer(second.id, &[&self::driver(1)]).await;
        let accepts = (path(first.id, "accept"), path(second.id, "accept"));
        let (a, b) = tokio::join!(app.post_empty(&accepts.0, Some(&driver)), app.post_empty(&accepts.1, Some(&driver)));
        let (won, lost) = if a.status.as_u16() == 200 { ((a, first), (b, second)) } else { ((b, second), (a, first)) };
        assert_eq!(won.0.expect(200)["driver"], driver.id.to_string(), "round {round}");
        lost.0.refused(409, "driver_not_eligible");
        // The other booking still waits, still offered to the driver.
        let waiting = app.get(&format!("/api/v1/bookings/{}", lost.1.id), Some(&driver)).await;
        assert_eq!(status_of(waiting.expect(200)), "NEW");
        app.post_empty(&path(lost.1.id, "accept"), Some(&driver)).await.refused(409, "driver_not_eligible");
        // Once the trip is given up, the driver is free to take it.
        let cancel = app.post(&path(won.1.id, "cancel"), Some(&driver), json!({ "reason": "Flat tyre" })).await;
        assert_eq!(status_of(cancel.expect(200)), "CANCELLED");
        let taken = app.post_empty(&path(lost.1.id, "accept"), Some(&driver)).await;
        assert_eq!(status_of(taken.expect(200)), "ACCEPTED");
        let cancel = app.post(&path(lost.1.id, "cancel"), Some(&driver), json!({ "reason": "Flat tyre" })).await;
        assert_eq!(status_of(cancel.expect(200)), "CANCELLED");
    }
}

#[tokio::test]
async fn with_an_osm_map_the_fare_at_the_drop_follows_the_roads_the_track_was_on() {
    let mut setup = Setup::default();
    setup.config.maps.osm_file =
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/baltimore.osm.pbf"));
    let app = TestApp::start(setup).await;
    // Arrived earlier; the trip starts at the pickup a minute later.
    let arrived = app.booking_at(&rider(1), &driver(1), Stage::Arrived).await;
    app.advance(MINUTE);
    let start = Command::Start { otp: arrived.otp.0, location: Some(arrived.pickup.point()) };
    let booking = app.command(arrived.id, By::Driver(driver(1).id), start).await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    // The road route from the pickup to the drop (round by the I-95 tunnel:
    // the extract stops short of the harbour's head), driven with GPS noise:
    // a fix every 6 s and 60 m, each 8–15 m off the road.
    let (pickup, drop) = (booking.pickup.point(), booking.drop.point());
    let road = app.state.maps.directions(pickup, drop, &[]).await.expect("a road route");
    let mut fixes = Vec::new();
    let mut since = 0.0;
    for pair in road.coords.windows(2) {
        let (a, b) =
            (LatLng::new(pair[0].latitude, pair[0].longitude), LatLng::new(pair[1].latitude, pair[1].longitude));
        let length = wayfare_engine::geo::distance_km(a, b) * 1000.0;
        let mut at = 60.0 - since;
        while at < length {
            let fraction = at / length;
            fixes.push(LatLng::new(a.lat + (b.lat - a.lat) * fraction, a.lng + (b.lng - a.lng) * fraction));
            at += 60.0;
        }
        since = (since + length) % 60.0;
    }
    // Stored as the driver's actor stores them during the trip (it batches
    // on real time, which this test's clock does not pass).
    let id = booking.id;
    for (index, fix) in fixes.iter().enumerate() {
        let off_m = 8.0 + (index * 7 % 8) as f64;
        let (north, east) = if index % 2 == 0 { (off_m, 0.0) } else { (0.0, -off_m) };
        app.advance(Duration::from_secs(6));
        let point = TrackingPoint {
            at: app.now(),
            status: BookingStatus::Started,
            lat: fix.lat + north / 111_320.0,
            lng: fix.lng + east / 86_000.0,
        };
        app.state.storage.append_tracking(id, &point).await.unwrap();
    }
    // The driver is at the drop: the last fix is where the trip ends.
    let last = app.state.storage.latest_tracking(id).await.unwrap().unwrap();
    app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true })).await.expect(200);
    app.post("/api/v1/drivers/me/location", Some(&driver), json!({ "lat": last.lat, "lng": last.lng }))
        .await
        .expect(200);
    let reached = app.post_empty(&path(id, "reach"), Some(&driver)).await;
    let reached = reached.expect(200).clone();
    let distance_km = reached["distance"].as_f64().unwrap();
    assert!(
        (distance_km - road.distance_km).abs() <= road.distance_km * 0.03,
        "matched {distance_km} km for a {} km road route",
        road.distance_km
    );
    // The trip's line is the matched roads, not the noisy fixes.
    let coords = reached["coords"].as_array().unwrap();
    assert!(coords.len() > fixes.len() / 2, "{} points", coords.len());
}
