//! A driver going online and offline and streaming positions over REST
//! (DESIGN.md contract), and the tasks list (spec §5 "Driver tasks").

use crate::support::*;
use serde_json::json;
use wayfare_engine::{LatLng, UserId};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_goes_online_and_offline() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let online = app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true })).await;
    assert_eq!(online.expect(200), &json!({ "driverActiveStatus": true }));
    assert!(app.runtime().is_online(driver.id));
    assert_eq!(app.get("/api/v1/auth/me", Some(&driver)).await.expect(200)["user"]["driverActiveStatus"], true);
    // Going online twice is still online.
    app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true })).await.expect(200);
    let offline = app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": false })).await;
    assert_eq!(offline.expect(200), &json!({ "driverActiveStatus": false }));
    assert!(!app.runtime().is_online(driver.id));
    assert_eq!(app.get("/api/v1/auth/me", Some(&driver)).await.expect(200)["user"]["driverActiveStatus"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_without_a_known_car_type_cannot_go_online() {
    let app = TestApp::demo().await;
    for (number, car_type) in [(1_u128, None), (2, Some("Hovercraft".to_string())), (3, Some(String::new()))] {
        let mut user = driver(5);
        user.id = UserId::from_u128(0x0CA2_0000 + number);
        user.email = format!("carless{number}@example.com");
        user.mobile = format!("+1410555910{number}");
        user.referralId = format!("QCAR{}", char::from(b'A' + number as u8));
        user.carType = car_type;
        app.insert_user(&user).await;
        let session = app.sign_in(&user.email).await;
        let reply = app.post("/api/v1/drivers/me/status", Some(&session), json!({ "driverActiveStatus": true })).await;
        reply.refused_on(409, "driver_not_eligible", "carType");
        assert!(!app.runtime().is_online(session.id));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_online_driver_streams_positions_and_an_offline_one_is_refused() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let location = "/api/v1/drivers/me/location";
    app.post(location, Some(&driver), json!({ "lat": 39.29, "lng": -76.6 })).await.refused(409, "driver_not_eligible");
    app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true })).await.expect(200);
    let update = json!({ "lat": 39.2901, "lng": -76.6012, "heading": 180.0, "speed": 8.5, "accuracy": 5.0, "at": T0 });
    let reply = app.post(location, Some(&driver), update).await;
    assert_eq!(reply.expect(200), &json!({ "ok": true, "lat": 39.2901, "lng": -76.6012 }));
    let view = app.runtime().driver(driver.id).await.expect("the driver's live state");
    assert_eq!(view.position, Some(LatLng::new(39.2901, -76.6012)));
    for (lat, lng) in [(91.0, -76.6), (39.29, -181.0)] {
        app.post(location, Some(&driver), json!({ "lat": lat, "lng": lng })).await.refused_on(
            400,
            "invalid_input",
            "location",
        );
    }
    app.post(location, Some(&driver), json!({ "lat": "north" , "lng": -76.6 })).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post(location, Some(&driver), json!({ "lng": -76.6 })).await.refused_on(400, "invalid_input", "body");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_status_body_is_invalid_input() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let status = "/api/v1/drivers/me/status";
    app.post(status, Some(&driver), json!({})).await.refused_on(400, "invalid_input", "body");
    app.post(status, Some(&driver), json!({ "driverActiveStatus": "yes" })).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
    app.post_raw(status, Some(&driver), "application/json", "true").await.refused_on(400, "invalid_input", "body");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_list_only_the_bookings_offered_to_this_driver() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let first = app.book(&rider(1)).await;
    let second = app.book(&rider(2)).await;
    let third = app.book(&rider(3)).await;
    app.offer(first.id, &[&driver(1), &driver(4)]).await;
    app.offer(second.id, &[&driver(4)]).await;
    app.offer(third.id, &[&driver(1)]).await;
    let driver4 = app.sign_in("driver4@demo.wayfare").await;
    let reply = app.get("/api/v1/tasks", Some(&driver4)).await;
    let mut ids: Vec<&str> =
        reply.expect(200)["items"].as_array().unwrap().iter().map(|task| task["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let mut expected = vec![first.id.to_string(), second.id.to_string()];
    expected.sort();
    assert_eq!(ids, expected);
    let task = &reply.body["items"][0];
    for field in ["reference", "pickup", "drop", "carType", "estimate", "tripdate", "customer_name", "status"] {
        assert!(task.get(field).is_some(), "a task shows {field}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_goes_online_where_the_device_says_not_where_they_were_last_seen() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let status = "/api/v1/drivers/me/status";
    let here = json!({ "lat": 39.2846, "lng": -76.5936, "accuracy": 8.0, "at": T0 });
    app.post(status, Some(&driver), json!({ "driverActiveStatus": true, "location": here })).await.expect(200);
    let view = app.runtime().driver(driver.id).await.expect("online");
    assert_eq!(view.position, Some(LatLng::new(39.2846, -76.5936)));
    let positions = app.runtime().driver_positions().await.unwrap();
    let mine = positions.iter().find(|position| position.id == driver.id).expect("on the map");
    assert_eq!((mine.lat, mine.lng, mine.stale), (39.2846, -76.5936, false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn going_online_with_a_vague_or_broken_fix_is_refused() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver2@demo.wayfare").await;
    let status = "/api/v1/drivers/me/status";
    for location in [
        json!({ "lat": 39.2846, "lng": -76.5936, "accuracy": 350.0 }),
        json!({ "lat": 95.0, "lng": -76.5936, "accuracy": 5.0 }),
    ] {
        app.post(status, Some(&driver), json!({ "driverActiveStatus": true, "location": location })).await.refused_on(
            400,
            "invalid_input",
            "location",
        );
        assert!(!app.runtime().is_online(driver.id));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vague_fix_is_acknowledged_but_does_not_move_the_driver() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver3@demo.wayfare").await;
    let here = json!({ "lat": 39.2846, "lng": -76.5936, "accuracy": 5.0 });
    app.post("/api/v1/drivers/me/status", Some(&driver), json!({ "driverActiveStatus": true, "location": here }))
        .await
        .expect(200);
    let vague = json!({ "lat": 39.31, "lng": -76.62, "accuracy": 500.0 });
    app.post("/api/v1/drivers/me/location", Some(&driver), vague).await.expect(200);
    let view = app.runtime().driver(driver.id).await.expect("online");
    assert_eq!(view.position, Some(LatLng::new(39.2846, -76.5936)));
}

/// Issue #37: the weeks of a driver's statements, each with the totals its
/// statement shows, so the driver's list needs no request per week.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drivers_statement_weeks_come_newest_first_with_their_totals() {
    let app = TestApp::demo().await;
    let session = app.sign_in("driver4@demo.wayfare").await;
    let empty = app.get("/api/v1/drivers/me/statements", Some(&session)).await;
    assert_eq!(empty.expect(200), &json!({ "weeks": [] }));

    let driver = driver(4);
    let first = app.booking_at(&rider(1), &driver, Stage::Paid).await;
    app.advance(std::time::Duration::from_secs(7 * 24 * 3600));
    let second = app.booking_at(&rider(2), &driver, Stage::Paid).await;
    let third = app.booking_at(&rider(3), &driver, Stage::Paid).await;

    let reply = app.get("/api/v1/drivers/me/statements", Some(&session)).await;
    let weeks = reply.expect(200)["weeks"].as_array().expect("a list").clone();
    assert_eq!(weeks.len(), 2, "{weeks:?}");
    let (newest, oldest) = (&weeks[0], &weeks[1]);
    assert!(newest["from"].as_i64() > oldest["from"].as_i64());
    assert_eq!(newest["from"].as_i64(), oldest["until"].as_i64());
    let amount = |value: &serde_json::Value| value.to_string().parse::<rust_decimal::Decimal>().expect("a number");
    assert_eq!(newest["totals"]["rides"], 2);
    assert_eq!(amount(&newest["totals"]["driver_share"]), second.driver_share + third.driver_share);
    assert_eq!(oldest["totals"]["rides"], 1);
    assert_eq!(amount(&oldest["totals"]["driver_share"]), first.driver_share);
    // Paid in cash: the driver kept the fare, and owes the platform its fee.
    assert_eq!(amount(&oldest["totals"]["cash_collected"]), first.cashPaymentAmount);
    assert_eq!(
        amount(&oldest["totals"]["balance"]),
        amount(&oldest["totals"]["earnings"]) - amount(&oldest["totals"]["cash_collected"])
    );

    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    app.get("/api/v1/drivers/me/statements", Some(&rider_session)).await.refused(403, "not_allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_free_driver_is_shown_where_riders_are_booking_and_others_are_not() {
    let app = TestApp::demo().await;
    let driver = app.sign_in("driver1@demo.wayfare").await;
    let area = "/api/v1/drivers/me/area";
    // Offline: nothing to suggest.
    assert_eq!(app.get(area, Some(&driver)).await.expect(200), &json!({ "area": null }));
    // Online at the Inner Harbor, about 1.5 km west of Fells Point.
    let harbor = json!({ "lat": 39.2856, "lng": -76.6105, "accuracy": 5.0, "at": app.now() });
    let status = json!({ "driverActiveStatus": true, "location": harbor });
    app.post("/api/v1/drivers/me/status", Some(&driver), status).await.expect(200);
    assert_eq!(app.get(area, Some(&driver)).await.expect(200), &json!({ "area": null }), "no demand seen yet");
    // Five riders book from Fells Point.
    for number in 1..=5 {
        app.book(&rider(number)).await;
    }
    let answer = app.get(area, Some(&driver)).await.expect(200).clone();
    let fells = wayfare_engine::reposition::cell_of(LatLng::new(39.282, -76.5933)).unwrap();
    assert_eq!(answer["area"]["cell"], fells.to_string(), "{answer}");
    let expected = answer["area"]["expectedPerHour"].as_f64().unwrap();
    assert!((5.0..10.0).contains(&expected), "five bookings just now: {expected} an hour");
    let km = answer["area"]["distanceKm"].as_f64().unwrap();
    assert!((0.8..2.5).contains(&km), "{km} km");
    assert_eq!(answer["area"]["boundary"].as_array().unwrap().len(), 7);
    // A restart keeps what was learned: the node reads the week's pickups
    // again beside its start, so the hint comes back without a new booking.
    let app = app.reopen().await;
    let mut again = serde_json::Value::Null;
    for _ in 0..100 {
        again = app.get(area, Some(&driver)).await.expect(200).clone();
        if !again["area"].is_null() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(again["area"]["cell"], fells.to_string(), "after a restart: {again}");
    // A rider has no such hint.
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get(area, Some(&rider)).await.refused(403, "not_allowed");
}
