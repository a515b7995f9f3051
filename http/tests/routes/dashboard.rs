//! The dashboard's gross earning cards (spec §2 "Dashboard"; issue #34: the
//! rides the earnings reports count, fee or no fee): today, this month and all time,
//! for the platform (admins) or one fleet (fleet admins).

use crate::money_support::money;
use crate::support::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::time::Duration;
use wayfare_engine::Booking;

const DASHBOARD: &str = "/api/v1/dashboard/earnings";

fn cards(reply: &Reply) -> Value {
    let body = reply.expect(200).clone();
    let mut keys: Vec<&str> = body.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["rides", "thisMonth", "today", "total"], "{body}");
    body
}

fn gross(rides: &[&Booking]) -> Decimal {
    rides.iter().map(|booking| booking.trip_cost).sum::<Decimal>().round_dp(2)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cards_sum_the_panels_rides_of_today_this_month_and_ever_by_scope() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    app.insert_user(&other_fleet_admin()).await;
    app.insert_user(&other_fleet_driver()).await;
    // Two paid rides today: the demo fleet's driver 4 and the other fleet's driver.
    let fleet_ride = app.booking_at(&rider(1), &driver(4), Stage::Paid).await;
    let other_ride = app.booking_at(&rider(2), &other_fleet_driver(), Stage::Paid).await;
    assert!(fleet_ride.convenience_fees > Decimal::ZERO && other_ride.convenience_fees > Decimal::ZERO);
    // An unpaid booking does not count; a ride of a car type without a fee does.
    app.booking_at(&rider(3), &driver(6), Stage::Reached).await;
    let mut free = app.state.storage.car_type_by_name("Economy").await.unwrap();
    free.convenience_fees = Decimal::ZERO;
    app.state.storage.save_car_type(&free, app.now()).await.unwrap();
    app.runtime().reload_catalog().await.unwrap();
    let no_fee = app.booking_at(&rider(4), &driver(4), Stage::Paid).await;
    assert_eq!(no_fee.convenience_fees, Decimal::ZERO);

    let admin = app.sign_in("admin@demo.wayfare").await;
    let all = cards(&app.get(DASHBOARD, Some(&admin)).await);
    let both = gross(&[&fleet_ride, &other_ride, &no_fee]);
    for card in ["today", "thisMonth", "total"] {
        assert_eq!(money(&all[card]), both, "{card}: {all}");
    }
    assert_eq!(all["rides"], json!({ "today": 3, "thisMonth": 3, "total": 3 }));
    // The earnings report counts the same rides.
    let report = app.get("/api/v1/reports/earnings", Some(&admin)).await;
    let reported: u64 =
        report.expect(200)["rows"].as_array().unwrap().iter().map(|row| row["total_rides"].as_u64().unwrap()).sum();
    assert_eq!(reported, 3, "{}", report.body);

    // A fleet admin's cards cover their fleet only.
    let fleet = app.sign_in("fleet@demo.wayfare").await;
    let mine = cards(&app.get(DASHBOARD, Some(&fleet)).await);
    assert_eq!(money(&mine["total"]), gross(&[&fleet_ride, &no_fee]));
    assert_eq!(mine["rides"], json!({ "today": 2, "thisMonth": 2, "total": 2 }));
    let other = app.sign_in("fleet2@test.wayfare").await;
    assert_eq!(money(&cards(&app.get(DASHBOARD, Some(&other)).await)["today"]), gross(&[&other_ride]));

    // The next day (still January 2027): today is empty, the month and total stay.
    app.advance(Duration::from_secs(24 * 3600));
    let tomorrow = cards(&app.get(DASHBOARD, Some(&admin)).await);
    assert_eq!(money(&tomorrow["today"]), Decimal::ZERO);
    assert_eq!((money(&tomorrow["thisMonth"]), money(&tomorrow["total"])), (both, both));
    assert_eq!(tomorrow["rides"], json!({ "today": 0, "thisMonth": 3, "total": 3 }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_and_fleet_admins_see_the_cards() {
    let app = TestApp::demo().await;
    for contact in ["rider1@demo.wayfare", "driver4@demo.wayfare"] {
        let person = app.sign_in(contact).await;
        app.get(DASHBOARD, Some(&person)).await.refused(403, "not_allowed");
    }
    app.get(DASHBOARD, None).await.refused(401, "not_logged_in");
    // An empty platform answers zeros, not an error.
    let admin = app.sign_in("admin@demo.wayfare").await;
    let empty = cards(&app.get(DASHBOARD, Some(&admin)).await);
    assert_eq!(empty["rides"], json!({ "today": 0, "thisMonth": 0, "total": 0 }));
    assert_eq!(money(&empty["total"]), Decimal::ZERO);
}
