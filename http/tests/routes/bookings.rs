//! Estimate, create, list and read (spec §3 "Booking", "Estimate", §5
//! "Booking"; DESIGN.md contract).

use crate::support::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use wayfare_engine::{AmountType, Promo, PromoId};

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Spec §5 "Fare" for the demo Economy car (2.50 base, 1.10/km, 15.00/h,
/// 7.00 minimum, 10 % convenience fee), written out here rather than asked of
/// the engine: (trip cost, convenience fee, driver share).
fn economy_fare(distance_km: f64, time_secs: f64) -> (f64, f64, f64) {
    let total = round2((1.10 * distance_km + 15.0 * time_secs / 3600.0 + 2.50).max(7.00));
    let fee = round2(total * 0.10);
    (round2(total + fee), fee, total)
}

#[track_caller]
fn assert_money(actual: &Value, expected: f64) {
    let actual = actual.as_f64().unwrap_or_else(|| panic!("not a number: {actual}"));
    assert!((actual - expected).abs() < 0.011, "{actual} is not {expected}");
    assert_eq!(round2(actual), actual, "{actual} is rounded to settings.decimal");
}

// ---- estimate --------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_gets_an_estimate_with_the_spec_fields_and_no_driver_share() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let reply = app.post("/api/v1/bookings/estimate", Some(&rider), trip_body("Economy")).await;
    let estimate = reply.expect(200);
    let distance = estimate["distance_in_km"].as_f64().unwrap();
    let time = estimate["time_in_secs"].as_f64().unwrap();
    assert!((2.0..5.0).contains(&distance), "Fells Point to Fort McHenry by road: {distance} km");
    assert!(time > 0.0);
    assert!(estimate["polylinePoints"].as_str().is_some_and(|line| !line.is_empty()));
    let (trip_cost, fee, _) = economy_fare(distance, time);
    assert_money(&estimate["estimateFare"], trip_cost);
    assert_money(&estimate["convenience_fees"], fee);
    assert!(estimate.get("driver_share").is_none(), "riders never see the driver's share: {estimate}");
    let mut keys: Vec<&str> = estimate.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "convenience_fees",
            "discount_amount",
            "distance_in_km",
            "estimateFare",
            "payableAmount",
            "polylinePoints",
            "promo_applied",
            "time_in_secs"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_estimate_adds_the_driver_share() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let reply = app.post("/api/v1/bookings/estimate", Some(&admin), trip_body("Economy")).await;
    let estimate = reply.expect(200);
    let (_, _, share) =
        economy_fare(estimate["distance_in_km"].as_f64().unwrap(), estimate["time_in_secs"].as_f64().unwrap());
    assert_money(&estimate["driver_share"], share);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_estimate_without_pickup_drop_or_a_known_car_type_is_select_proper() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let table = [
        (json!({ "drop": fort_mchenry(), "carType": "Economy" }), "pickup"),
        (json!({ "pickup": fells_point(), "carType": "Economy" }), "drop"),
        (json!({ "pickup": fells_point(), "drop": fort_mchenry() }), "carType"),
        (trip_body("Limousine"), "carType"),
        (
            json!({ "pickup": { "lat": 95.0, "lng": -76.6, "add": "nowhere" }, "drop": fort_mchenry(), "carType": "Economy" }),
            "pickup",
        ),
    ];
    for (body, field) in table {
        app.post("/api/v1/bookings/estimate", Some(&rider), body).await.refused_on(400, "select_proper", field);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_without_pickup_drop_or_car_type_is_select_proper_for_riders_and_admins() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider_id = app.get("/api/v1/auth/me", Some(&rider)).await.expect(200)["user"]["id"].clone();
    let table = [
        (json!({ "drop": fort_mchenry(), "carType": "Economy" }), "pickup"),
        (json!({ "pickup": fells_point(), "carType": "Economy" }), "drop"),
        (json!({ "pickup": fells_point(), "drop": fort_mchenry() }), "carType"),
        (json!({ "pickup": null, "drop": fort_mchenry(), "carType": "Economy" }), "pickup"),
        (json!({ "pickup": fells_point(), "drop": fort_mchenry(), "carType": "" }), "carType"),
        (json!({ "pickup": fells_point(), "drop": fort_mchenry(), "carType": null }), "carType"),
        (json!({ "pickup": { "add": "Fells Point" }, "drop": fort_mchenry(), "carType": "Economy" }), "pickup"),
        (json!({ "pickup": fells_point(), "drop": {}, "carType": "Economy" }), "drop"),
    ];
    for (body, field) in table {
        let mut as_admin = body.clone();
        as_admin["customer"] = rider_id.clone();
        for (session, body) in [(&rider, body), (&admin, as_admin)] {
            app.post("/api/v1/bookings", Some(session), body).await.refused_on(400, "select_proper", field);
        }
    }
    // A dropped pin without an address is a choice: the booking names it by reverse lookup.
    let pin = json!({ "pickup": fells_point(), "drop": { "lat": 39.2631, "lng": -76.5802 }, "carType": "Economy" });
    let booked = app.post("/api/v1/bookings", Some(&rider), pin).await;
    let booked = booked.expect(201).clone();
    assert!(!booked["dropAddress"].as_str().unwrap().trim().is_empty(), "{}", booked["dropAddress"]);
    assert_eq!(booked["drop"]["add"], booked["dropAddress"]);
    app.post(
        &format!("/api/v1/bookings/{}/cancel", booked["id"].as_str().unwrap()),
        Some(&rider),
        json!({ "reason": "test" }),
    )
    .await
    .expect(200);
    // Not a place at all is malformed input, not a missing choice.
    let garbled = json!({ "pickup": "Fells Point", "drop": fort_mchenry(), "carType": "Economy" });
    app.post("/api/v1/bookings", Some(&rider), garbled).await.refused_on(400, "invalid_input", "body");
    let listed = app.get("/api/v1/bookings", Some(&admin)).await;
    assert_eq!(listed.expect(200)["items"].as_array().unwrap().len(), 1, "only the pinned booking was made");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_estimate_needs_a_parcel_type_takes_an_optional_option_and_adds_their_amounts() {
    let app = TestApp::with_settings(|settings| settings.appcat = wayfare_engine::AppCategory::Delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/bookings/estimate";
    app.post(path, Some(&rider), trip_body("Economy")).await.refused_on(400, "select_proper", "parcelTypeIndex");
    // Issue #34: the option is optional unless the car type requires one.
    let no_option = trip_body_with("Economy", json!({ "parcelTypeIndex": 1 }));
    let without = app.post(path, Some(&rider), no_option).await;
    assert_eq!(without.expect(200)["breakdown"]["option"], json!(0.0));
    assert_eq!(without.body["breakdown"]["parcel"], json!(3.0));
    let out_of_range = trip_body_with("Economy", json!({ "parcelTypeIndex": 2, "optionIndex": 0 }));
    app.post(path, Some(&rider), out_of_range).await.refused_on(400, "select_proper", "parcelTypeIndex");
    let chosen = trip_body_with("Economy", json!({ "parcelTypeIndex": 1, "optionIndex": 0 }));
    let reply = app.post(path, Some(&rider), chosen).await;
    let estimate = reply.expect(200);
    let distance = estimate["distance_in_km"].as_f64().unwrap();
    let time = estimate["time_in_secs"].as_f64().unwrap();
    // Small box 3.00 and fragile handling 2.00 go into the total before the fee.
    let total = round2((1.10 * distance + 15.0 * time / 3600.0 + 2.50 + 3.00 + 2.00).max(7.00));
    assert_money(&estimate["estimateFare"], round2(total * 1.10));
    // The breakdown names each part and adds up to what is paid.
    let parts = &estimate["breakdown"];
    assert_eq!(
        (parts["base"].as_f64(), parts["parcel"].as_f64(), parts["option"].as_f64()),
        (Some(2.5), Some(3.0), Some(2.0))
    );
    let sum: f64 = ["base", "distance", "time", "parcel", "option", "minimumTopUp", "convenienceFees"]
        .iter()
        .map(|part| parts[*part].as_f64().unwrap())
        .sum::<f64>()
        - parts["promo"].as_f64().unwrap();
    assert_money(&parts["payable"], round2(sum));
    assert_eq!(parts["payable"], estimate["payableAmount"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_estimate_body_is_invalid_input() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/bookings/estimate";
    app.post_raw(path, Some(&rider), "application/json", "{").await.refused_on(400, "invalid_input", "body");
    app.post(path, Some(&rider), json!({ "pickup": "Fells Point" })).await.refused_on(400, "invalid_input", "body");
    app.post(path, Some(&rider), json!([1, 2])).await.refused_on(400, "invalid_input", "body");
}

// ---- create ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_books_now_and_gets_the_booking_with_the_spec_fields() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let estimate = app.post("/api/v1/bookings/estimate", Some(&rider), trip_body("Economy")).await;
    let quoted = estimate.expect(200)["estimateFare"].clone();
    let reply = app.post("/api/v1/bookings", Some(&rider), trip_body("Economy")).await;
    let booking = reply.expect(201);
    assert_eq!(status_of(booking), "NEW");
    assert_eq!(booking["customer"], rider.id.to_string());
    assert_eq!(booking["customer_name"], "Rider 1");
    assert_eq!(booking["customer_email"], "rider1@demo.wayfare");
    assert_eq!(booking["customer_contact"], "+14105550201");
    assert_eq!(booking["carType"], "Economy");
    assert_eq!(booking["appcat"], "taxi");
    assert_eq!(booking["bookLater"], false);
    assert_eq!(booking["booking_type_admin"], false);
    assert_eq!(booking["tripdate"], T0);
    assert_eq!(booking["bookingDate"], T0);
    assert_eq!(booking["pickup"], fells_point());
    assert_eq!(booking["drop"], fort_mchenry());
    assert_eq!(booking["pickupAddress"], fells_point()["add"]);
    assert_eq!(booking["dropAddress"], fort_mchenry()["add"]);
    assert_eq!(booking["estimate"], quoted, "the booking costs what the estimate said");
    assert_eq!(booking["trip_cost"], quoted);
    assert_eq!(booking["payableAmount"], quoted);
    assert!(booking["estimateDistance"].as_f64().unwrap() > 0.0);
    assert!(booking["estimateTime"].as_u64().unwrap() > 0);
    assert_eq!(booking["requestedDrivers"], json!({}));
    assert_eq!(booking["driver"], Value::Null);
    let reference = booking["reference"].as_str().unwrap();
    assert!(reference.len() == 6 && reference.bytes().all(|byte| byte.is_ascii_uppercase()), "{reference}");
    let otp = booking["otp"].as_u64().expect("otp_secure is on in the demo: a 5-digit otp");
    assert!((10_000..=99_999).contains(&otp));
    for hidden in ["driver_share", "convenience_fees", "customer_token", "driver_token"] {
        assert!(booking.get(hidden).is_none(), "a rider's booking has no {hidden}");
    }
    let id = booking["id"].as_str().unwrap();
    let read = app.get(&format!("/api/v1/bookings/{id}"), Some(&rider)).await;
    assert_eq!(read.expect(200)["reference"], reference);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_can_only_book_for_themself() {
    let app = TestApp::demo().await;
    let booker = app.sign_in("rider1@demo.wayfare").await;
    let body = trip_body_with("Economy", json!({ "customer": rider(2).id }));
    let reply = app.post("/api/v1/bookings", Some(&booker), body).await;
    assert_eq!(reply.expect(201)["customer"], booker.id.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_books_later_at_least_fifteen_minutes_ahead() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let later = T0 + 15 * 60_000;
    let body = trip_body_with("Comfort", json!({ "bookLater": true, "tripdate": later }));
    let reply = app.post("/api/v1/bookings", Some(&rider), body).await;
    let booking = reply.expect(201);
    assert_eq!(booking["bookLater"], true);
    assert_eq!(booking["tripdate"], later);
    assert_eq!(booking["bookingDate"], T0);
    assert_eq!(booking["carType"], "Comfort");

    let too_soon = trip_body_with("Comfort", json!({ "bookLater": true, "tripdate": later - 1 }));
    app.post("/api/v1/bookings", Some(&rider), too_soon).await.refused_on(400, "past_booking_error", "tripdate");
    let in_the_past = trip_body_with("Comfort", json!({ "bookLater": true, "tripdate": T0 - 60_000 }));
    app.post("/api/v1/bookings", Some(&rider), in_the_past).await.refused_on(400, "past_booking_error", "tripdate");
    let no_date = trip_body_with("Comfort", json!({ "bookLater": true }));
    app.post("/api/v1/bookings", Some(&rider), no_date).await.refused_on(400, "select_proper", "tripdate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booking_without_signing_in_is_must_login() {
    let app = TestApp::demo().await;
    app.post("/api/v1/bookings", None, trip_body("Economy")).await.refused(401, "must_login");
    let signed_out = app.sign_in("rider1@demo.wayfare").await;
    app.post_empty("/api/v1/auth/logout", Some(&signed_out)).await.expect(200);
    app.post("/api/v1/bookings", Some(&signed_out), trip_body("Economy")).await.refused(401, "must_login");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rider_without_a_full_profile_gets_profile_incomplete() {
    let app = TestApp::demo().await;
    // A first sign-in by e-mail makes a rider with no names yet.
    let newcomer = app.sign_in("newcomer@example.com").await;
    app.post("/api/v1/bookings", Some(&newcomer), trip_body("Economy")).await.refused_on(
        400,
        "profile_incomplete",
        "firstName",
    );
    let mut user = app.state.storage.user(newcomer.id).await.unwrap();
    user.firstName = "New".into();
    user.lastName = " ".into();
    app.state.storage.update_user(&user, app.now()).await.unwrap();
    app.post("/api/v1/bookings", Some(&newcomer), trip_body("Economy")).await.refused_on(
        400,
        "profile_incomplete",
        "lastName",
    );
    // A phone sign-in has names and no e-mail.
    let by_phone = app.sign_in("+14105550777").await;
    let mut user = app.state.storage.user(by_phone.id).await.unwrap();
    user.firstName = "Phone".into();
    user.lastName = "Person".into();
    app.state.storage.update_user(&user, app.now()).await.unwrap();
    app.post("/api/v1/bookings", Some(&by_phone), trip_body("Economy")).await.refused_on(
        400,
        "profile_incomplete",
        "email",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_without_pickup_drop_or_car_type_is_select_proper() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let table = [
        (json!({ "drop": fort_mchenry(), "carType": "Economy" }), "pickup"),
        (json!({ "pickup": fells_point(), "carType": "Economy" }), "drop"),
        (json!({ "pickup": fells_point(), "drop": fort_mchenry() }), "carType"),
        (trip_body("Limousine"), "carType"),
    ];
    for (body, field) in table {
        app.post("/api/v1/bookings", Some(&rider), body).await.refused_on(400, "select_proper", field);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_booking_needs_the_delivery_person_and_phone_and_waits_for_payment() {
    let app = TestApp::with_settings(|settings| settings.appcat = wayfare_engine::AppCategory::Delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let parcel = json!({ "parcelTypeIndex": 1, "optionIndex": 0 });
    let path = "/api/v1/bookings";
    app.post(path, Some(&rider), trip_body_with("Economy", parcel.clone())).await.refused_on(
        400,
        "deliveryDetailMissing",
        "deliveryPerson",
    );
    let table = [
        (json!({ "deliveryPerson": "   ", "deliveryPersonPhone": "410-555-0199" }), "deliveryPerson"),
        (json!({ "deliveryPerson": "Dana", "deliveryPersonPhone": "" }), "deliveryPersonPhone"),
        (json!({ "deliveryPerson": "Dana", "deliveryPersonPhone": "555-01" }), "deliveryPersonPhone"),
        (json!({ "deliveryPerson": "Dana", "deliveryPersonPhone": "call me" }), "deliveryPersonPhone"),
        (json!({ "deliveryPerson": "Dana", "deliveryPersonPhone": "-- -- ---" }), "deliveryPersonPhone"),
    ];
    for (details, field) in table {
        let mut body = trip_body_with("Economy", parcel.clone());
        body.as_object_mut().unwrap().extend(details.as_object().unwrap().clone());
        app.post(path, Some(&rider), body).await.refused_on(400, "deliveryDetailMissing", field);
    }
    let full = json!({
        "parcelTypeIndex": 1,
        "optionIndex": 0,
        "deliveryPerson": " Dana ",
        "deliveryPersonPhone": "410-555-0199",
        "pickUpInstructions": "Front desk",
        "deliveryInstructions": "Ring twice",
    });
    let reply = app.post(path, Some(&rider), trip_body_with("Economy", full)).await;
    let booking = reply.expect(201);
    assert_eq!(status_of(booking), "PAYMENT_PENDING", "a rider's delivery waits for the card payment");
    assert_eq!(booking["appcat"], "delivery");
    assert_eq!(booking["payment_mode"], "card");
    assert_eq!(booking["deliveryPerson"], "Dana");
    assert_eq!(booking["deliveryPersonPhone"], "410-555-0199");
    assert_eq!(booking["pickUpInstructions"], "Front desk");
    assert_eq!(booking["deliveryInstructions"], "Ring twice");
    assert_eq!(booking["parcelTypeSelected"], json!({ "description": "Small box", "amount": 3.0 }));
    assert_eq!(booking["optionSelected"], json!({ "description": "Fragile handling", "amount": 2.0 }));
    assert_eq!((booking["parcelTypeIndex"].as_u64(), booking["optionIndex"].as_u64()), (Some(1), Some(0)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_books_for_a_rider_and_sees_the_fare_split() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let body = trip_body_with("XL", json!({ "customer": rider(3).id }));
    let reply = app.post("/api/v1/bookings", Some(&admin), body).await;
    let booking = reply.expect(201);
    assert_eq!(status_of(booking), "NEW");
    assert_eq!(booking["customer"], rider(3).id.to_string());
    assert_eq!(booking["customer_name"], "Rider 3");
    assert_eq!(booking["booking_type_admin"], true);
    let cost = booking["trip_cost"].as_f64().unwrap();
    let fee = booking["convenience_fees"].as_f64().expect("admins see the convenience fee");
    let share = booking["driver_share"].as_f64().expect("admins see the driver's share");
    assert!((share + fee - cost).abs() < 0.001, "the driver earns the trip cost less the fee");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_form_needs_a_rider_with_a_mobile_number() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let path = "/api/v1/bookings";
    app.post(path, Some(&admin), trip_body("Economy")).await.refused_on(400, "select_proper", "customer");
    let unknown = trip_body_with("Economy", json!({ "customer": wayfare_engine::UserId::from_u128(42) }));
    app.post(path, Some(&admin), unknown).await.refused_on(400, "select_proper", "customer");
    let not_a_rider = trip_body_with("Economy", json!({ "customer": driver(1).id }));
    app.post(path, Some(&admin), not_a_rider).await.refused_on(400, "select_proper", "customer");
    // An e-mail sign-up has no mobile number.
    let newcomer = app.sign_in("newcomer@example.com").await;
    let no_mobile = trip_body_with("Economy", json!({ "customer": newcomer.id }));
    app.post(path, Some(&admin), no_mobile).await.refused_on(400, "incomplete_user", "customer");
}

async fn save_promo(app: &TestApp, name: &str, validity: i64) {
    let promo = Promo {
        id: PromoId(uuid::Uuid::now_v7()),
        promo_name: name.into(),
        promo_description: "Two dollars off".into(),
        promo_discount_type: AmountType::Flat,
        promo_discount_value: Decimal::new(200, 2),
        max_promo_discount_value: Decimal::ZERO,
        min_order: Decimal::ZERO,
        promo_validity: validity,
        promo_usage_limit: 0,
        user_avail: 0,
        createdAt: T0,
    };
    app.state.storage.save_promo(&promo, T0).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promo_code_is_applied_once_per_rider_and_an_unknown_one_is_promo_invalid() {
    let app = TestApp::demo().await;
    save_promo(&app, "TWOOFF", T0 + 86_400_000).await;
    save_promo(&app, "OLD", T0 - 1).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/bookings";
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "promo": "NOPE" })))
        .await
        .refused(400, "promo_invalid");
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "promo": "OLD" })))
        .await
        .refused(400, "promo_expired");
    let reply = app.post(path, Some(&rider), trip_body_with("Economy", json!({ "promo": "TWOOFF" }))).await;
    let booking = reply.expect(201);
    assert_eq!(booking["promo_applied"], true);
    assert_eq!(booking["discount_amount"], 2.0);
    assert_eq!(booking["promo_details"]["promo_name"], "TWOOFF");
    let payable = booking["payableAmount"].as_f64().unwrap();
    let cost = booking["trip_cost"].as_f64().unwrap();
    assert!((cost - payable - 2.0).abs() < 0.001, "{cost} less 2.00 is {payable}");
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "promo": "TWOOFF" })))
        .await
        .refused(409, "promo_limit_reached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_booking_body_is_invalid_input() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let path = "/api/v1/bookings";
    app.post_raw(path, Some(&rider), "application/json", "{\"pickup\": ").await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "bookLater": "yes" }))).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "tripdate": "tomorrow" }))).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "payment_mode": "cheque" }))).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post(path, Some(&rider), trip_body_with("Economy", json!({ "customer": "nobody" }))).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post_empty(path, Some(&rider)).await.refused_on(400, "invalid_input", "body");
}

// ---- list and read ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booking_lists_page_filter_and_search() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let first = app.book(&rider(1)).await;
    app.advance(MINUTE);
    let second = app.booking_at(&rider(1), &driver(1), Stage::Accepted).await;
    app.advance(MINUTE);
    let third = app.book(&rider(1)).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;

    let all = app.get("/api/v1/bookings", Some(&rider)).await;
    let ids = |body: &Value| -> Vec<String> {
        body["items"].as_array().unwrap().iter().map(|item| item["id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(
        ids(all.expect(200)),
        [third.id.to_string(), second.id.to_string(), first.id.to_string()],
        "newest trip first"
    );
    assert_eq!(all.body["next"], Value::Null);

    let oldest_first = app.get("/api/v1/bookings?order=asc&sort=bookingDate", Some(&rider)).await;
    assert_eq!(ids(oldest_first.expect(200))[0], first.id.to_string());

    let page = app.get("/api/v1/bookings?limit=2", Some(&rider)).await;
    assert_eq!(ids(page.expect(200)).len(), 2);
    let cursor = page.body["next"].as_str().expect("a cursor to the next page");
    let rest = app.get(&format!("/api/v1/bookings?limit=2&after={}", query_encode(cursor)), Some(&rider)).await;
    assert_eq!(ids(rest.expect(200)), [first.id.to_string()]);

    let accepted = app.get("/api/v1/bookings?status=ACCEPTED", Some(&rider)).await;
    assert_eq!(ids(accepted.expect(200)), [second.id.to_string()]);
    let either = app.get("/api/v1/bookings?status=NEW,ACCEPTED&active=true", Some(&rider)).await;
    assert_eq!(ids(either.expect(200)).len(), 3);

    let by_reference = app.get(&format!("/api/v1/bookings?search={}", second.reference), Some(&rider)).await;
    assert_eq!(ids(by_reference.expect(200)), [second.id.to_string()]);

    app.get("/api/v1/bookings?status=LOST", Some(&rider)).await.refused_on(400, "invalid_input", "status");
    app.get("/api/v1/bookings?limit=many", Some(&rider)).await.refused_on(400, "invalid_input", "query");
    app.get("/api/v1/bookings?order=sideways", Some(&rider)).await.refused_on(400, "invalid_input", "query");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booking_lists_are_scoped_by_role() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
    // rider 1's trip with driver 4 (the demo fleet), rider 2's with the other fleet's driver,
    // rider 1's booking only offered to driver 4.
    let mine = app.booking_at(&rider(1), &driver(4), Stage::Accepted).await;
    let theirs = app.booking_at(&rider(2), &other_fleet_driver(), Stage::Accepted).await;
    let offered = app.booking_at(&rider(1), &driver(4), Stage::Offered).await;
    let (mine, theirs, offered) = (mine.id.to_string(), theirs.id.to_string(), offered.id.to_string());

    // Spec §6: rider as customer, driver as driver, fleet admin by fleet, admin all.
    let table: [(&str, &[&str]); 5] = [
        ("rider1@demo.wayfare", &[&mine, &offered]),
        ("rider2@demo.wayfare", &[&theirs]),
        ("driver4@demo.wayfare", &[&mine]),
        ("fleet@demo.wayfare", &[&mine]),
        ("admin@demo.wayfare", &[&mine, &theirs, &offered]),
    ];
    for (email, expected) in table {
        let session = app.sign_in(email).await;
        let reply = app.get("/api/v1/bookings", Some(&session)).await;
        let mut seen: Vec<String> = reply.expect(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["id"].as_str().unwrap().to_string())
            .collect();
        let mut expected: Vec<String> = expected.iter().map(|id| id.to_string()).collect();
        seen.sort();
        expected.sort();
        assert_eq!(seen, expected, "{email}");
    }
    let other_fleet = app.sign_in("fleet2@test.wayfare").await;
    let reply = app.get("/api/v1/bookings", Some(&other_fleet)).await;
    let items = reply.expect(200)["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], theirs.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_or_unknown_booking_id_is_not_found() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    app.get("/api/v1/bookings/not-a-booking", Some(&admin)).await.refused(404, "not_found");
    app.get("/api/v1/bookings/12345", Some(&admin)).await.refused(404, "not_found");
    let unknown = uuid::Uuid::now_v7();
    app.get(&format!("/api/v1/bookings/{unknown}"), Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_taxi_trip_ignores_parcel_types_and_options() {
    // validation: "for taxi the indexes are ignored, as the delivery-only fields are hidden there"
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let plain = app.post("/api/v1/bookings/estimate", Some(&rider), trip_body("Economy")).await;
    let quoted = plain.expect(200)["estimateFare"].clone();
    for indexes in
        [json!({ "parcelTypeIndex": 1, "optionIndex": 0 }), json!({ "parcelTypeIndex": 99, "optionIndex": 99 })]
    {
        let estimate =
            app.post("/api/v1/bookings/estimate", Some(&rider), trip_body_with("Economy", indexes.clone())).await;
        assert_eq!(estimate.expect(200)["estimateFare"], quoted, "{indexes}");
        let created = app.post("/api/v1/bookings", Some(&rider), trip_body_with("Economy", indexes.clone())).await;
        let booking = created.expect(201);
        assert_eq!(booking["estimate"], quoted, "{indexes}");
        assert_eq!((&booking["parcelTypeSelected"], &booking["optionSelected"]), (&Value::Null, &Value::Null));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_book_later_date_past_the_last_javascript_date_is_invalid_input() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let last_date: i64 = 8_640_000_000_000_000;
    let latest = trip_body_with("Economy", json!({ "bookLater": true, "tripdate": last_date }));
    assert_eq!(app.post("/api/v1/bookings", Some(&rider), latest).await.expect(201)["tripdate"], last_date);
    for tripdate in [last_date + 1, i64::MAX] {
        let body = trip_body_with("Economy", json!({ "bookLater": true, "tripdate": tripdate }));
        app.post("/api/v1/bookings", Some(&rider), body).await.refused_on(400, "invalid_input", "tripdate");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_cursor_that_is_not_ours_is_invalid_input() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    for cursor in ["garbage", "", &"zz".repeat(24)] {
        let list = format!("/api/v1/bookings?after={}", query_encode(cursor));
        app.get(&list, Some(&rider)).await.refused_on(400, "invalid_input", "cursor");
        let wallet = format!("/api/v1/users/{}/wallet?after={}", rider.id, query_encode(cursor));
        app.get(&wallet, Some(&rider)).await.refused_on(400, "invalid_input", "cursor");
    }
}

/// Found by schemathesis: `limit=2147483648` (and `0`) answered 200 with a
/// clamped page, though the document says 1 to 500. Every paged list now
/// refuses a page size outside that range on `limit`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_size_outside_1_to_500_is_invalid_input_on_limit() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let lists = [
        ("/api/v1/bookings?".to_string(), &rider),
        (format!("/api/v1/users/{}/wallet?", rider.id), &rider),
        ("/api/v1/withdraws?".to_string(), &rider),
        ("/api/v1/users?".to_string(), &admin),
        ("/api/v1/notifications?".to_string(), &admin),
        ("/api/v1/reports/earnings?".to_string(), &admin),
        ("/api/v1/reports/driver-earnings?".to_string(), &admin),
    ];
    for (list, who) in &lists {
        for limit in ["0", "501", "2147483648", "4294967295"] {
            let reply = app.get(&format!("{list}limit={limit}"), Some(who)).await;
            assert_eq!(
                (reply.status.as_u16(), reply.error_code(), reply.error_field()),
                (400, "invalid_input", Some("limit")),
                "{list}limit={limit}"
            );
        }
        for limit in ["1", "500"] {
            app.get(&format!("{list}limit={limit}"), Some(who)).await.expect(200);
        }
    }
}

/// Found by schemathesis (positive_data_acceptance): query and header
/// parameters the document gave as any string (`status=ok`, `role=¯`,
/// `mobile=`, an `Idempotency-Key` with a space) are refused by design.
/// The document now gives their real shape; the server refuses what lies
/// outside it with the key it documents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_and_header_parameters_have_the_shape_the_document_gives() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let document = app.get("/api/openapi.json", None).await.expect(200).clone();
    let parameter = |path: &str, method: &str, name: &str| {
        document["paths"][path][method]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|parameter| parameter["name"] == name)
            .unwrap_or_else(|| panic!("{method} {path} has {name}"))["schema"]
            .clone()
    };
    let status = parameter("/api/v1/bookings", "get", "status");
    assert!(status["pattern"].as_str().unwrap().contains("PAYMENT_PENDING|NEW"), "{status}");
    assert_eq!(parameter("/api/v1/users", "get", "role")["pattern"], "^\\s*(rider|driver|fleetadmin|admin)?\\s*$");
    assert_eq!(parameter("/api/v1/users/exists", "get", "mobile")["minLength"], 1);
    for path in ["/api/v1/withdraws", "/api/v1/users/{id}/wallet/credit"] {
        assert_eq!(parameter(path, "post", "Idempotency-Key")["pattern"], "^[!-~]{1,128}$", "{path}");
    }

    app.get("/api/v1/bookings?status=ok", Some(&rider)).await.refused_on(400, "invalid_input", "status");
    app.get("/api/v1/bookings?status=NEW,%20,ACCEPTED%20", Some(&rider)).await.expect(200);
    app.get("/api/v1/users?role=%C2%AF", Some(&admin)).await.refused_on(400, "invalid_input", "role");
    app.get("/api/v1/users?role=%20", Some(&admin)).await.expect(200);
    app.get("/api/v1/users?role=%20driver", Some(&admin)).await.expect(200);
    app.get("/api/v1/users/exists?mobile=", Some(&admin)).await.refused_on(400, "email_or_mobile_issue", "contact");
}
