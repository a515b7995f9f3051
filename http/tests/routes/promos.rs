//! Promo codes (spec §3 "Promo", §5, §7 `fetchPromos`, `editPromo` Add |
//! Update | Delete): the admin's table, the rider's usable list, validation,
//! and a code applied at booking creation and counted in `user_avail`.

use crate::notify_lang_support::*;
use crate::support::*;
use serde_json::{Value, json};

fn with(mut body: Value, changes: Value) -> Value {
    if let (Value::Object(fields), Value::Object(more)) = (&mut body, changes) {
        fields.extend(more);
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_lists_updates_and_deletes_a_promo() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let added = add_promo(&app, &admin, promo_body(" welcome10 ")).await;
    assert_eq!(added["promo_name"], "WELCOME10", "codes are kept upper-case");
    assert_eq!(added["promo_discount_type"], "percentage");
    assert_eq!(added["user_avail"], 0);
    assert_eq!(added["createdAt"], T0);
    let id = added["id"].as_str().unwrap().to_string();

    let listed = app.get("/api/v1/promos", Some(&admin)).await;
    assert_eq!(listed.expect(200).as_array().unwrap().len(), 1);
    assert_eq!(listed.body[0]["promo_description"], "Ten percent off");

    let changed = put(
        &app,
        &format!("/api/v1/promos/{id}"),
        Some(&admin),
        with(
            promo_body("WELCOME10"),
            json!({ "promo_discount_type": "flat", "promo_discount_value": 3, "user_avail": 99 }),
        ),
    )
    .await;
    let changed = changed.expect(200);
    assert_eq!(
        (changed["promo_discount_type"].as_str(), changed["promo_discount_value"].as_f64()),
        (Some("flat"), Some(3.0))
    );
    assert_eq!(changed["user_avail"], 0, "user_avail is the store's count, not the admin's");
    assert_eq!(changed["createdAt"], T0);

    delete(&app, &format!("/api/v1/promos/{id}"), Some(&admin)).await.expect(204);
    assert_eq!(app.get("/api/v1/promos", Some(&admin)).await.expect(200), &json!([]));
    put(&app, &format!("/api/v1/promos/{id}"), Some(&admin), promo_body("WELCOME10")).await.refused(404, "not_found");
    delete(&app, &format!("/api/v1/promos/{id}"), Some(&admin)).await.refused(404, "not_found");
    delete(&app, "/api/v1/promos/not-an-id", Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promo_is_validated_field_by_field() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let cases = [
        (json!({ "promo_name": null }), "promo_name"),
        (json!({ "promo_name": "TWO WORDS" }), "promo_name"),
        (json!({ "promo_discount_type": null }), "promo_discount_type"),
        (json!({ "promo_discount_value": 0 }), "promo_discount_value"),
        (json!({ "promo_discount_value": 150 }), "promo_discount_value"),
        (json!({ "max_promo_discount_value": -1 }), "max_promo_discount_value"),
        (json!({ "min_order": -5 }), "min_order"),
        (json!({ "promo_validity": T0 - 1 }), "promo_validity"),
        (json!({ "promo_validity": null }), "promo_validity"),
    ];
    for (change, field) in cases {
        let reply = app.post("/api/v1/promos", Some(&admin), with(promo_body("CHECK"), change.clone())).await;
        reply.refused_on(400, "invalid_input", field);
    }
    let fractional = app
        .post("/api/v1/promos", Some(&admin), with(promo_body("CHECK"), json!({ "promo_discount_value": 1.005 })))
        .await;
    fractional.refused(400, "invalid_amount");
    let wrong_type = app
        .post("/api/v1/promos", Some(&admin), with(promo_body("CHECK"), json!({ "promo_discount_type": "half" })))
        .await;
    wrong_type.refused_on(400, "invalid_input", "body");

    let first = add_promo(&app, &admin, promo_body("TAKEN")).await;
    app.post("/api/v1/promos", Some(&admin), promo_body("taken")).await.refused_on(409, "promo_exists", "promo_name");
    let other = add_promo(&app, &admin, promo_body("OTHER")).await;
    put(&app, &format!("/api/v1/promos/{}", other["id"].as_str().unwrap()), Some(&admin), promo_body("TAKEN"))
        .await
        .refused_on(409, "promo_exists", "promo_name");
    // An edit may end a promo early.
    let ended = put(
        &app,
        &format!("/api/v1/promos/{}", first["id"].as_str().unwrap()),
        Some(&admin),
        with(promo_body("TAKEN"), json!({ "promo_validity": T0 - 1 })),
    )
    .await;
    assert_eq!(ended.expect(200)["promo_validity"], T0 - 1);
}

/// Books the standard trip as `rider` with a promo code.
async fn book_with(app: &TestApp, rider: &Session, code: &str) -> Reply {
    app.post("/api/v1/bookings", Some(rider), trip_body_with("Economy", json!({ "promo": code }))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promo_is_applied_at_booking_and_counted_once_per_rider() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let promo = add_promo(
        &app,
        &admin,
        with(
            promo_body("SAVE3"),
            json!({ "promo_discount_type": "flat", "promo_discount_value": 3, "promo_usage_limit": 1 }),
        ),
    )
    .await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let plain = app.post("/api/v1/bookings/estimate", Some(&rider), trip_body("Economy")).await;
    let fare = plain.expect(200)["estimateFare"].as_f64().unwrap();

    let booked = book_with(&app, &rider, "save3").await;
    let booking = booked.expect(201);
    assert_eq!(booking["promo_applied"], true);
    assert_eq!(booking["promo_details"]["promo_name"], "SAVE3");
    assert_eq!(booking["discount"], 3.0);
    let payable = booking["payableAmount"].as_f64().unwrap();
    assert!((payable - (fare - 3.0)).abs() < 1e-9, "payable {payable} is the fare {fare} less 3");

    let promos = app.get("/api/v1/promos", Some(&admin)).await;
    let counted =
        promos.expect(200).as_array().unwrap().iter().find(|listed| listed["id"] == promo["id"]).unwrap().clone();
    assert_eq!(counted["user_avail"], 1, "counted in user_avail");
    // Used: the same rider may not use it again, and the limit (1) is reached for others.
    book_with(&app, &rider, "SAVE3").await.refused(409, "promo_limit_reached");
    let other = app.sign_in("rider2@demo.wayfare").await;
    book_with(&app, &other, "SAVE3").await.refused(409, "promo_limit_reached");
    // A used promo keeps its code.
    let renamed = put(
        &app,
        &format!("/api/v1/promos/{}", promo["id"].as_str().unwrap()),
        Some(&admin),
        with(promo_body("SAVE4"), json!({ "promo_usage_limit": 5 })),
    )
    .await;
    renamed.refused_on(400, "invalid_input", "promo_name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_estimate_prices_a_promo_in_and_refuses_one_that_does_not_apply() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    add_promo(
        &app,
        &admin,
        with(promo_body("TAKE2"), json!({ "promo_discount_type": "flat", "promo_discount_value": 2 })),
    )
    .await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let plain = app.post("/api/v1/bookings/estimate", Some(&rider), trip_body("Economy")).await;
    let plain = plain.expect(200).clone();
    let fare = plain["estimateFare"].as_f64().unwrap();
    assert_eq!((plain["promo_applied"].clone(), plain["discount_amount"].as_f64()), (json!(false), Some(0.0)));
    assert_eq!(plain["payableAmount"].as_f64(), Some(fare));

    let priced = app
        .post("/api/v1/bookings/estimate", Some(&rider), trip_body_with("Economy", json!({ "promo": " take2 " })))
        .await;
    let priced = priced.expect(200);
    assert_eq!(priced["promo_applied"], true);
    assert_eq!(priced["estimateFare"].as_f64(), Some(fare), "the fare itself is unchanged");
    assert_eq!(priced["discount_amount"], 2.0);
    let payable = priced["payableAmount"].as_f64().unwrap();
    assert!((payable - (fare - 2.0)).abs() < 1e-9, "payable {payable} is the fare {fare} less 2");
    // The estimate counts no use: the booking that follows gets the same price.
    let booked = book_with(&app, &rider, "TAKE2").await;
    assert_eq!(booked.expect(201)["payableAmount"].as_f64(), Some(payable));

    let estimate_with = |code: &'static str| {
        let body = trip_body_with("Economy", json!({ "promo": code }));
        let app = &app;
        let rider = &rider;
        async move { app.post("/api/v1/bookings/estimate", Some(rider), body).await }
    };
    estimate_with("NOSUCHCODE").await.refused(400, "promo_invalid");
    // Used once by this rider already.
    estimate_with("take2").await.refused(409, "promo_limit_reached");
    add_promo(&app, &admin, with(promo_body("BIGONLY"), json!({ "min_order": 500 }))).await;
    estimate_with("BIGONLY").await.refused(400, "promo_min_order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_booking_with_a_promo_it_cannot_use_is_refused() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    book_with(&app, &rider, "NOSUCHCODE").await.refused(400, "promo_invalid");
    add_promo(&app, &admin, with(promo_body("BIGORDER"), json!({ "min_order": 500 }))).await;
    book_with(&app, &rider, "BIGORDER").await.refused(400, "promo_min_order");
    add_promo(&app, &admin, with(promo_body("SOON"), json!({ "promo_validity": T0 + 60_000 }))).await;
    app.advance(2 * MINUTE);
    book_with(&app, &rider, "SOON").await.refused(400, "promo_expired");
    assert_eq!(app.get("/api/v1/bookings", Some(&rider)).await.expect(200)["items"], json!([]), "nothing was booked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn riders_list_only_the_promos_they_can_still_use() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    add_promo(&app, &admin, promo_body("OPEN")).await;
    add_promo(&app, &admin, with(promo_body("ONCE"), json!({ "promo_usage_limit": 1 }))).await;
    let ended = add_promo(&app, &admin, promo_body("ENDED")).await;
    put(
        &app,
        &format!("/api/v1/promos/{}", ended["id"].as_str().unwrap()),
        Some(&admin),
        with(promo_body("ENDED"), json!({ "promo_validity": T0 - 1 })),
    )
    .await
    .expect(200);

    let rider = app.sign_in("rider1@demo.wayfare").await;
    let names = |reply: &Reply| {
        reply
            .expect(200)
            .as_array()
            .unwrap()
            .iter()
            .map(|promo| promo["promo_name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&app.get("/api/v1/promos", Some(&rider)).await), ["OPEN", "ONCE"]);
    book_with(&app, &rider, "OPEN").await.expect(201);
    assert_eq!(names(&app.get("/api/v1/promos", Some(&rider)).await), ["ONCE"], "a promo they used is gone");
    let other = app.sign_in("rider2@demo.wayfare").await;
    book_with(&app, &other, "ONCE").await.expect(201);
    assert_eq!(
        names(&app.get("/api/v1/promos", Some(&rider)).await),
        Vec::<String>::new(),
        "a promo used up is gone for everyone"
    );
    assert_eq!(names(&app.get("/api/v1/promos", Some(&admin)).await), ["OPEN", "ONCE", "ENDED"], "admins see them all");
}
