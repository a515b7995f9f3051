//! Every route that reads a JSON body answers a body it cannot read with
//! 400 `invalid_input` in the API's error shape (STYLE.md: "a JSON extractor
//! that turns bad bodies into our own error shape").

use crate::support::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_with_a_json_body_answers_a_malformed_one_with_invalid_input() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let booking = app.booking_at(&self::rider(1), &self::driver(1), Stage::Arrived).await;
    let at = |action: &str| format!("/api/v1/bookings/{}/{action}", booking.id);
    // (path, who, the field the error names)
    let table: Vec<(String, Option<&Session>, &str)> = vec![
        ("/api/v1/auth/otp/request".into(), None, "body"),
        ("/api/v1/auth/otp/verify".into(), None, "body"),
        ("/api/v1/bookings/estimate".into(), Some(&rider), "body"),
        ("/api/v1/bookings".into(), Some(&rider), "body"),
        ("/api/v1/drivers/me/status".into(), Some(&driver), "body"),
        ("/api/v1/drivers/me/location".into(), Some(&driver), "body"),
        (at("start"), Some(&driver), "otp"),
        (at("pay"), Some(&driver), "body"),
        (at("rate"), Some(&rider), "body"),
        (at("cancel"), Some(&rider), "body"),
        (at("assign"), Some(&admin), "body"),
        (at("chat"), Some(&rider), "body"),
        ("/api/v1/geo/autocomplete".into(), Some(&rider), "body"),
        ("/api/v1/geo/place".into(), Some(&rider), "body"),
        ("/api/v1/geo/address".into(), Some(&rider), "body"),
        ("/api/v1/geo/directions".into(), Some(&rider), "body"),
        ("/api/v1/geo/matrix".into(), Some(&rider), "body"),
    ];
    for (path, who, field) in table {
        for malformed in ["{", "{\"a\": }", "nul", "\u{0}"] {
            let reply = app.post_raw(&path, who, "application/json", malformed).await;
            assert_eq!(
                (reply.status.as_u16(), reply.error_code(), reply.error_field()),
                (400, "invalid_input", Some(field)),
                "POST {path} with {malformed:?}"
            );
        }
    }
}

/// Found by schemathesis: serde's derive fills a struct from a JSON array
/// (field by field, in order), so `[null, null]` passed as an empty patch and
/// answered 200. A body read into a struct must be an object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_array_where_an_object_is_expected_is_invalid_input() {
    use crate::admin_support::{call, patch};
    use axum::http::Method;
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let economy = app.get("/api/v1/cartypes", None).await.expect(200)[0]["id"].as_str().unwrap().to_string();
    let table: Vec<(Method, String, &Session)> = vec![
        (Method::PATCH, "/api/v1/users/me".into(), &rider),
        (Method::PATCH, format!("/api/v1/users/{}", rider.id), &admin),
        (Method::PUT, format!("/api/v1/cartypes/{economy}"), &admin),
        (Method::PUT, "/api/v1/push/token".into(), &rider),
        (Method::POST, "/api/v1/bookings/estimate".into(), &rider),
    ];
    for (method, path, who) in table {
        for array in [json!([null, null]), json!([]), json!(["Someone", "Else"])] {
            let reply = call(&app, method.clone(), &path, Some(who), Some(array.clone())).await;
            assert_eq!(
                (reply.status.as_u16(), reply.error_code(), reply.error_field()),
                (400, "invalid_input", Some("body")),
                "{method} {path} with {array}"
            );
        }
    }
    // Nothing changed, and objects still work.
    let me = app.get("/api/v1/auth/me", Some(&rider)).await;
    assert_eq!(me.expect(200)["user"]["firstName"], "Rider", "{:?}", me.body);
    patch(&app, "/api/v1/users/me", Some(&rider), json!({})).await.expect(200);
}

/// Found by schemathesis (positive_data_acceptance): the document allowed
/// what the server refuses by design (no `pickup`, an empty `reason` or
/// `title`, a rating of 9223372036854775806, a 0 page size...), so valid
/// requests by the document were 400s. The document now states those
/// bounds; this checks each stated bound is one the server enforces, with
/// the key it documents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bounds_the_document_states_are_the_ones_the_server_checks() {
    use crate::admin_support::patch;
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let document = app.get("/api/openapi.json", None).await.expect(200).clone();
    let schema = |name: &str, property: &str| document["components"]["schemas"][name]["properties"][property].clone();
    let required = |name: &str| document["components"]["schemas"][name]["required"].clone();
    for field in ["pickup", "drop", "carType"] {
        assert!(required("TripBody").as_array().unwrap().contains(&json!(field)), "TripBody.{field} is required");
    }
    assert_eq!(schema("RateBody", "rating")["minimum"], 1);
    assert_eq!(schema("RateBody", "rating")["maximum"], 5);
    assert_eq!(schema("CancelBody", "reason")["minLength"], 1);
    assert_eq!(schema("NotificationBody", "title")["minLength"], 1);
    assert_eq!(schema("PromoBody", "promo_name")["minLength"], 1);
    assert_eq!(schema("LanguageBody", "langName")["minLength"], 1);
    assert_eq!(schema("AppInfo", "appName")["minLength"], 1);
    assert_eq!(schema("CodeRequest", "contact")["minLength"], 1);
    assert_eq!(schema("LatLng", "lat")["maximum"], 90);
    assert_eq!(schema("LocationUpdate", "lng")["maximum"], 180);
    assert_eq!(schema("AmountBody", "amount")["exclusiveMinimum"], 0);
    assert_eq!(schema("AmountBody", "amount")["maximum"], 1_000_000);
    for field in ["promo_name", "promo_discount_type", "promo_discount_value", "promo_validity"] {
        assert!(required("PromoBody").as_array().unwrap().contains(&json!(field)), "PromoBody.{field} is required");
    }
    assert!(required("LanguageBody").as_array().unwrap().contains(&json!("langLocale")));
    assert_eq!(schema("Place", "lng")["minimum"], -180);

    // ... and the server refuses what lies outside them.
    let no_pickup = json!({ "drop": fells_point(), "carType": "Economy" });
    app.post("/api/v1/bookings/estimate", Some(&rider), no_pickup).await.refused_on(400, "select_proper", "pickup");
    let booking = app.booking_at(&self::rider(1), &self::driver(1), Stage::Paid).await;
    for rating in [json!(0), json!(6), json!(9_223_372_036_854_775_806_i64)] {
        let rate = format!("/api/v1/bookings/{}/rate", booking.id);
        app.post(&rate, Some(&rider), json!({ "rating": rating })).await.refused_on(400, "invalid_rating", "rating");
    }
    let new = app.book(&self::rider(1)).await;
    let cancel = format!("/api/v1/bookings/{}/cancel", new.id);
    app.post(&cancel, Some(&rider), json!({})).await.refused_on(400, "select_proper", "reason");
    app.post(&cancel, Some(&rider), json!({ "reason": "" })).await.refused_on(400, "select_proper", "reason");
    let empty_title = json!({ "title": "", "body": "Hello" });
    app.post("/api/v1/notifications", Some(&admin), empty_title).await.refused_on(400, "invalid_input", "title");
    let no_name = json!({ "promo_description": "", "promo_discount_type": "flat", "promo_discount_value": 1 });
    app.post("/api/v1/promos", Some(&admin), no_name).await.refused_on(400, "invalid_input", "promo_name");
    let no_language = json!({ "langLocale": "fr", "keyValuePairs": {} });
    app.post("/api/v1/languages", Some(&admin), no_language).await.refused_on(400, "invalid_input", "langName");
    let no_locale = json!({ "langName": "Français", "keyValuePairs": {} });
    app.post("/api/v1/languages", Some(&admin), no_locale).await.refused_on(400, "invalid_input", "langLocale");
    let no_type = json!({ "promo_name": "NOTYPE", "promo_discount_value": 1, "promo_validity": T0 + 86_400_000 });
    app.post("/api/v1/promos", Some(&admin), no_type).await.refused_on(400, "invalid_input", "promo_discount_type");
    let driver = app.sign_in("driver1@demo.wayfare").await;
    app.post("/api/v1/drivers/me/location", Some(&driver), json!({ "lat": 0, "lng": 181 })).await.refused_on(
        400,
        "invalid_input",
        "location",
    );
    let credit = format!("/api/v1/users/{}/wallet/credit", rider.id);
    app.post(&credit, Some(&admin), json!({ "amount": 0 })).await.refused_on(400, "no_details_error", "amount");
    app.post(&credit, Some(&admin), json!({ "amount": 1_000_000.01 })).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    patch(&app, "/api/v1/appinfo", Some(&admin), json!({ "appName": "" })).await.refused_on(
        400,
        "invalid_input",
        "appName",
    );
    let no_contact = json!({ "contact": "" });
    app.post("/api/v1/auth/otp/request", None, no_contact).await.refused_on(400, "contact_input_error", "contact");
}
