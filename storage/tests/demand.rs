//! The demand a starting node reads again (issue #39, idle repositioning) on
//! both backends (see `support/mod.rs`): the pickups of the bookings with a
//! trip date in the window, the newest up to the limit, oldest first, of
//! every status.

mod support;

use serde_json::json;
use support::Fixture;
use wayfare_engine::{Booking, BookingId, BookingStatus, LatLng, Millis, Role, User, UserId};

backend_suite!(the_newest_pickups_in_the_window_come_back_oldest_first,);

const NOW: Millis = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const HOUR: Millis = 3_600_000;

fn rider() -> User {
    let mut user = User::new(UserId::from_u128(0x3900_0001), Role::Rider, NOW);
    user.firstName = "Demand".into();
    user.lastName = "Rider".into();
    user.email = "demand@wayfare.test".into();
    user.referralId = "D0001".into();
    user
}

/// A booking of `rider` picked up at `(lat, lng)` with trip date `tripdate`.
fn booking(number: u128, rider: &User, tripdate: Millis, status: BookingStatus, lat: f64, lng: f64) -> Booking {
    serde_json::from_value(json!({
        "id": BookingId::from_u128(0x3900_B000 + number),
        "reference": format!("DEM{number:03}"),
        "appcat": "taxi",
        "carType": "Sedan",
        "customer": rider.id,
        "customer_name": rider.full_name(),
        "pickup": {"lat": lat, "lng": lng, "add": format!("Pickup {number}")},
        "drop": {"lat": 39.2634, "lng": -76.5797, "add": "2400 E Fort Ave, Baltimore"},
        "pickupAddress": format!("Pickup {number}"),
        "dropAddress": "2400 E Fort Ave, Baltimore",
        "estimate": 20,
        "estimateDistance": 3.8,
        "estimateTime": 900,
        "status": status,
        "bookLater": false,
        "tripdate": tripdate,
        "bookingDate": tripdate - 60_000,
        "trip_cost": 20,
        "convenience_fees": 2,
        "driver_share": 18,
        "payableAmount": 20,
    }))
    .expect("a valid booking")
}

async fn the_newest_pickups_in_the_window_come_back_oldest_first(fixture: Fixture) {
    let rider = rider();
    fixture.import_users(std::slice::from_ref(&rider), NOW).await.unwrap();
    let bookings = [
        booking(1, &rider, NOW - 9 * 24 * HOUR, BookingStatus::Complete, 39.1, -76.1), // before the window
        booking(2, &rider, NOW - 3 * HOUR, BookingStatus::Cancelled, 39.2, -76.2),
        booking(3, &rider, NOW - 2 * HOUR, BookingStatus::Complete, 39.3, -76.3),
        booking(4, &rider, NOW - HOUR, BookingStatus::New, 39.4, -76.4),
        booking(5, &rider, NOW, BookingStatus::New, 39.5, -76.5), // the window's end is open
        booking(6, &rider, NOW + HOUR, BookingStatus::New, 39.6, -76.6), // booked for later
    ];
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    let week = 7 * 24 * HOUR;

    let all = fixture.recent_pickups(NOW - week, NOW, 100).await.unwrap();
    assert_eq!(
        all,
        vec![
            (LatLng::new(39.2, -76.2), NOW - 3 * HOUR),
            (LatLng::new(39.3, -76.3), NOW - 2 * HOUR),
            (LatLng::new(39.4, -76.4), NOW - HOUR),
        ],
        "every status in the window, oldest first"
    );
    let newest = fixture.recent_pickups(NOW - week, NOW, 2).await.unwrap();
    assert_eq!(newest, all[1..].to_vec(), "the limit keeps the newest");
    assert!(fixture.recent_pickups(NOW - week, NOW - 10 * HOUR, 100).await.unwrap().is_empty());
}
