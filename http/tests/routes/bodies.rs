//! Every route that reads a JSON body answers a body it cannot read with
//! 400 `invalid_input` in the API's error shape (STYLE.md: "a JSON extractor
//! that turns bad bodies into our own error shape").

use crate::support::*;

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
