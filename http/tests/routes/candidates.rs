//! The admin's assignment picker (spec §4 "Assign driver", §5 "Eligible
//! drivers"): `GET /bookings/{id}/candidates`, from the live dispatch index.

use crate::support::*;
use serde_json::{Value, json};
use wayfare_engine::{BookingId, LatLng, geo};

fn path(id: impl std::fmt::Display) -> String {
    format!("/api/v1/bookings/{id}/candidates")
}

fn ids(reply: &Reply) -> Vec<String> {
    let items = reply.expect(200)["items"].as_array().unwrap_or_else(|| panic!("no items: {}", reply.body)).clone();
    items.iter().map(|item| item["id"].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sees_the_online_drivers_of_the_car_type_nearest_the_pickup_first() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.book(&rider(1)).await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    // Economy: drivers 1, 4, 7 and 10 online; driver 13 stays offline; driver 2 drives Comfort.
    let mut online = Vec::new();
    for number in [1, 4, 7, 10, 2] {
        let session = app.sign_in(&format!("driver{number}@demo.wayfare")).await;
        app.post("/api/v1/drivers/me/status", Some(&session), json!({ "driverActiveStatus": true })).await.expect(200);
        online.push((number, session));
    }
    let pickup = LatLng::new(booking.pickup.lat, booking.pickup.lng);
    let mut economy: Vec<(f64, u32)> = [1, 4, 7, 10]
        .into_iter()
        .map(|number| (geo::distance_km(pickup, driver(number).location.unwrap()), number))
        .collect();
    economy.sort_by(|left, right| left.0.total_cmp(&right.0));

    let reply = app.get(&path(booking.id), Some(&admin)).await;
    let body = reply.expect(200).clone();
    assert_eq!(body["radius"], json!(10.0), "the demo's driverRadius, in km");
    let items = body["items"].as_array().unwrap();
    assert_eq!(items.len(), 4, "{body}");
    for (item, (distance, number)) in items.iter().zip(&economy) {
        let user = driver(*number);
        assert_eq!(item["id"], json!(user.id));
        assert_eq!(item["name"], json!(user.full_name()));
        assert_eq!((&item["carType"], &item["vehicleNumber"]), (&json!("Economy"), &json!(user.vehicleNumber)));
        let location = user.location.unwrap();
        assert_eq!((item["lat"].as_f64(), item["lng"].as_f64()), (Some(location.lat), Some(location.lng)));
        assert!((item["distance_km"].as_f64().unwrap() - distance).abs() < 0.002, "{item} vs {distance}");
        let mut keys: Vec<&str> = item.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["carType", "distance_km", "id", "lat", "lng", "name", "vehicleNumber"]);
    }
    let two = ids(&app.get(&format!("{}?limit=2", path(booking.id)), Some(&admin)).await);
    assert_eq!(two, ids(&reply)[..2].to_vec());

    // Offered by hand: no longer listed.
    let nearest = driver(economy[0].1);
    app.post(&format!("/api/v1/bookings/{}/assign", booking.id), Some(&admin), json!({ "driver": nearest.id }))
        .await
        .expect(200);
    let left = ids(&app.get(&path(booking.id), Some(&admin)).await);
    assert_eq!(left, ids(&reply)[1..].to_vec());

    // Miles when the platform counts in miles.
    let mut settings = app.state.storage.settings().await.unwrap().unwrap();
    settings.convert_to_mile = true;
    app.state.storage.save_settings(&settings, app.now()).await.unwrap();
    app.runtime().reload_catalog().await.unwrap();
    let in_miles = app.get(&path(booking.id), Some(&admin)).await;
    let first: &Value = &in_miles.expect(200)["items"][0];
    assert!((first["distance_km"].as_f64().unwrap() - economy[1].0 / 1.609344).abs() < 0.002, "{first}");
    assert_eq!(in_miles.body["radius"], json!(10.0), "driverRadius is kept in the platform's unit");

    // Once a driver accepted, there is nobody to assign.
    let (_, session) = online.iter().find(|(number, _)| *number == economy[0].1).unwrap();
    app.post_empty(&format!("/api/v1/bookings/{}/accept", booking.id), Some(session)).await.expect(200);
    app.get(&path(booking.id), Some(&admin)).await.refused(409, "status_not_allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_ask_and_the_page_size_is_checked() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let booking = app.book(&rider(1)).await;
    for contact in ["rider1@demo.wayfare", "driver4@demo.wayfare", "fleet@demo.wayfare"] {
        let person = app.sign_in(contact).await;
        app.get(&path(booking.id), Some(&person)).await.refused(403, "not_allowed");
    }
    app.get(&path(booking.id), None).await.refused(401, "not_logged_in");
    let admin = app.sign_in("admin@demo.wayfare").await;
    app.get(&path(BookingId::from_u128(404)), Some(&admin)).await.refused(404, "not_found");
    for limit in ["0", "51"] {
        app.get(&format!("{}?limit={limit}", path(booking.id)), Some(&admin)).await.refused_on(
            400,
            "invalid_input",
            "limit",
        );
    }
    // Nobody online: an empty list, not an error.
    let empty = app.get(&path(booking.id), Some(&admin)).await;
    assert_eq!(empty.expect(200)["items"], json!([]));
}
