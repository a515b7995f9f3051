//! What a viewer may see of a record: riders do not see the fare split
//! (spec §2 Bookings), and demo mode masks other people's contact data
//! (spec §6). The REST routes and the Socket.IO events both present through
//! here, so a socket never shows more than the same user's GET would.

use crate::i18n::Localizer;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use wayfare_engine::booking::{NOTIFICATION_TITLE_KEY, NoticeKey};
use wayfare_engine::permissions::{Principal, can_see_fare_split, mask_contact};
use wayfare_engine::{Booking, BookingId, Millis, Role, Settings, User, UserId, WithdrawRequest};

const FARE_SPLIT: [&str; 2] = ["driver_share", "convenience_fees"];
const CUSTOMER_CONTACT: [&str; 3] = ["customer_contact", "customer_email", "customer_token"];
const DRIVER_CONTACT: [&str; 2] = ["driver_contact", "driver_token"];

pub fn booking(booking: &Booking, viewer: &Principal, settings: &Settings) -> Value {
    let mut value = serde_json::to_value(booking).unwrap_or(Value::Null);
    let Value::Object(fields) = &mut value else { return value };
    if !can_see_fare_split(viewer.role) {
        for field in FARE_SPLIT {
            fields.remove(field);
        }
    }
    // Push tokens are the server's business only.
    fields.remove("customer_token");
    fields.remove("driver_token");
    // The otp is the rider's to give: the driver must hear it from them
    // (spec §4 STARTED), so only the rider and admins read it.
    if viewer.id != booking.customer && viewer.role != Role::Admin {
        fields.remove("otp");
    }
    if settings.demo_mode() {
        if viewer.id != booking.customer {
            mask(fields, &CUSTOMER_CONTACT);
        }
        if Some(viewer.id) != booking.driver {
            mask(fields, &DRIVER_CONTACT);
        }
    }
    value
}

/// A booking as a fleet admin's console sees it: only their own drivers in
/// its offers and dispatch history (`is_theirs` says whose a driver is).
pub fn booking_for_fleet(
    booking: &Booking,
    fleet: UserId,
    settings: &Settings,
    is_theirs: impl Fn(UserId) -> bool,
) -> Value {
    let mut cut = booking.clone();
    cut.requestedDrivers.0.retain(|driver| is_theirs(*driver));
    cut.dispatch.declined.retain(|driver| is_theirs(*driver));
    cut.dispatch.expired.retain(|driver| is_theirs(*driver));
    self::booking(&cut, &Principal::new(fleet, Role::Fleetadmin), settings)
}

/// Who sees a booking change, each as the viewer their presentation is for:
/// the rider, the assigned driver, the booking's fleet admin and the admins'
/// console (as any admin: demo mode still masks everyone's contacts there).
pub fn booking_viewers(booking: &Booking) -> Vec<Principal> {
    let mut viewers = vec![Principal::new(booking.customer, Role::Rider)];
    if let Some(driver) = booking.driver {
        viewers.push(Principal::new(driver, Role::Driver));
    }
    if let Some(fleet) = booking.fleetadmin {
        viewers.push(Principal::new(fleet, Role::Fleetadmin));
    }
    viewers.push(console_viewer());
    viewers
}

/// The admins' dispatch console: an admin who is nobody's party.
pub fn console_viewer() -> Principal {
    Principal::new(UserId::from_u128(0), Role::Admin)
}

/// An offer as the offered driver sees it: the booking, when the offer
/// lapses (`null` under broadcast, which has no deadline) and how far the
/// driver is from the pickup when their position is known.
pub fn offer(
    booking: &Booking,
    driver: &Principal,
    settings: &Settings,
    deadline: Option<Millis>,
    distance_km: Option<f64>,
) -> Value {
    json!({
        "booking": self::booking(booking, driver, settings),
        "deadline": deadline,
        // Metres are plenty for a list of offers.
        "distance_km": distance_km.map(|km| (km * 1000.0).round() / 1000.0),
    })
}

/// An in-app booking notice: its text in the receiver's language under the
/// notification title, on the push channel the settings choose (spec §7:
/// `bookings-repeat` when the car horn repeats), with the screen it opens.
pub fn notification(key: NoticeKey, booking: Option<BookingId>, settings: &Settings, texts: &Localizer) -> Value {
    let target = crate::notify::screen_of(key, booking);
    json!({
        "key": key.as_str(),
        "title": texts.text(NOTIFICATION_TITLE_KEY),
        "body": texts.text(key.as_str()),
        "booking": booking,
        "channel": crate::notify::channel(settings),
        "screen": target.get("screen"),
        "params": target.get("params"),
    })
}

/// A broadcast from the admin panel as users' sockets get it.
pub fn broadcast(notification: &wayfare_engine::Notification) -> Value {
    json!({
        "key": "broadcast",
        "id": notification.id,
        "title": notification.title,
        "body": notification.body,
        "createdAt": notification.createdAt,
    })
}

/// A wallet balance after a change, to its owner.
pub fn wallet(balance: Decimal) -> Value {
    json!({ "walletBalance": balance })
}

pub fn user(user: &User, viewer: &Principal, settings: &Settings) -> Value {
    let mut value = serde_json::to_value(user).unwrap_or(Value::Null);
    let Value::Object(fields) = &mut value else { return value };
    fields.remove("pushToken");
    // Wallets are their owner's and the admins' (permissions: a fleet admin
    // manages their drivers but does not read their wallets).
    if viewer.id != user.id && viewer.role != Role::Admin {
        fields.remove("walletBalance");
    }
    if settings.demo_mode() && viewer.id != user.id {
        mask(fields, &["email", "mobile"]);
    }
    value
}

/// A withdraw request: in demo mode, the bank details of someone else's
/// request are masked like contact data (spec §6).
pub fn withdraw(request: &WithdrawRequest, viewer: &Principal, settings: &Settings) -> Value {
    let mut value = serde_json::to_value(request).unwrap_or(Value::Null);
    let Value::Object(fields) = &mut value else { return value };
    if settings.demo_mode() && viewer.id != request.uid {
        mask(fields, &["bankCode", "bankAccount"]);
    }
    value
}

fn mask(fields: &mut serde_json::Map<String, Value>, names: &[&str]) {
    for name in names {
        if let Some(Value::String(text)) = fields.get_mut(*name) {
            *text = mask_contact(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfare_engine::booking::{self, By, Context, NewBooking, RouteInfo};
    use wayfare_engine::validation::DeliveryDetails;
    use wayfare_engine::{BookingId, Place};
    fn viewer(id: u128, role: Role) -> Principal {
        Principal { id: UserId::from_u128(id), role, fleet: None }
    }

    fn booking_json() -> Booking {
        let json = serde_json::json!({
            "id": UserId::from_u128(50), "reference": "ABCDEF", "appcat": "taxi", "carType": "Economy",
            "customer": UserId::from_u128(1), "customer_contact": "+14105550100", "customer_email": "rita@example.com",
            "customer_token": "push-secret",
            "pickup": {"lat": 39.28, "lng": -76.6, "add": "A"}, "drop": {"lat": 39.29, "lng": -76.59, "add": "B"},
            "pickupAddress": "A", "dropAddress": "B", "estimate": 10.0, "estimateDistance": 2.0, "estimateTime": 300,
            "status": "ACCEPTED", "bookLater": false, "tripdate": 0, "bookingDate": 0, "otp": 12345,
            "trip_cost": 10.0, "convenience_fees": 1.0, "driver_share": 9.0, "payableAmount": 10.0,
            "driver": UserId::from_u128(2), "driver_contact": "+14105550199"
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn the_driver_never_reads_the_otp_but_the_rider_and_admins_do() {
        // spec §4 STARTED: the otp is checked against what the rider tells the driver
        let settings = Settings::default();
        let booking = booking_json();
        assert!(super::booking(&booking, &viewer(2, Role::Driver), &settings).get("otp").is_none());
        assert_eq!(super::booking(&booking, &viewer(1, Role::Rider), &settings)["otp"], 12345);
        assert_eq!(super::booking(&booking, &viewer(9, Role::Admin), &settings)["otp"], 12345);
        assert!(super::booking(&booking, &viewer(7, Role::Fleetadmin), &settings).get("otp").is_none());
    }

    #[test]
    fn riders_do_not_see_the_fare_split_and_nobody_sees_push_tokens() {
        // spec §2 Bookings: driver share and convenience fee hidden from riders
        let settings = Settings::default();
        let booking = booking_json();
        let rider = super::booking(&booking, &viewer(1, Role::Rider), &settings);
        assert!(rider.get("driver_share").is_none() && rider.get("convenience_fees").is_none());
        assert!(rider.get("customer_token").is_none());
        let admin = super::booking(&booking, &viewer(9, Role::Admin), &settings);
        assert_eq!(admin["driver_share"], 9.0);
    }

    #[test]
    fn demo_mode_masks_other_peoples_contacts_only() {
        // spec §6: contact data shows as hidden when critical edits are off
        let settings = Settings { AllowCriticalEditsAdmin: false, ..Settings::default() };
        let booking = booking_json();
        let driver = super::booking(&booking, &viewer(2, Role::Driver), &settings);
        assert_ne!(driver["customer_email"], "rita@example.com");
        assert_eq!(driver["driver_contact"], "+14105550199");
        let rider = super::booking(&booking, &viewer(1, Role::Rider), &settings);
        assert_eq!(rider["customer_email"], "rita@example.com");
        assert_ne!(rider["driver_contact"], "+14105550199");
    }

    const RIDER: UserId = UserId(uuid::Uuid::from_u128(1));
    const DRIVER: UserId = UserId(uuid::Uuid::from_u128(2));
    const FLEET: UserId = UserId(uuid::Uuid::from_u128(3));

    fn booking() -> Booking {
        let settings = crate::demo::settings();
        let car_type = crate::demo::car_types().remove(0);
        let mut rider = User::new(RIDER, Role::Rider, 0);
        rider.email = "rider@example.com".into();
        let request = NewBooking {
            pickup: Place { lat: 39.286, lng: -76.58, add: "Fells Point".into() },
            drop: Place { lat: 39.2904, lng: -76.6122, add: "Inner Harbor".into() },
            book_later: false,
            tripdate: None,
            route: RouteInfo { distance_km: 3.0, time_secs: 600, coords: vec![], waypoints: vec![] },
            parcel_type_index: None,
            option_index: None,
            delivery: DeliveryDetails::default(),
            promo: None,
            payment_mode: None,
        };
        let context = Context { now: 1_700_000_000_000, settings: &settings, car_type: Some(&car_type) };
        booking::create(BookingId::from_u128(9), request, &rider, By::Rider(RIDER), &context, &mut rand::rng())
            .unwrap()
            .booking
    }

    #[test]
    fn a_booking_change_is_seen_by_rider_driver_fleet_and_console() {
        let mut booking = booking();
        let roles = |booking: &Booking| booking_viewers(booking).iter().map(|viewer| viewer.role).collect::<Vec<_>>();
        assert_eq!(roles(&booking), vec![Role::Rider, Role::Admin]);
        booking.driver = Some(DRIVER);
        booking.fleetadmin = Some(FLEET);
        assert_eq!(roles(&booking), vec![Role::Rider, Role::Driver, Role::Fleetadmin, Role::Admin]);
        let viewers = booking_viewers(&booking);
        assert_eq!((viewers[0].id, viewers[1].id, viewers[2].id), (RIDER, DRIVER, FLEET));
    }

    #[test]
    fn an_offer_is_the_drivers_view_with_deadline_and_distance() {
        let booking = booking();
        let driver = Principal::new(DRIVER, Role::Driver);
        let offer = offer(&booking, &driver, &Settings::default(), Some(1_700_000_020_000), Some(0.123_456));
        assert_eq!(offer["booking"]["id"], serde_json::json!(booking.id));
        assert!(offer["booking"].get("driver_share").is_some(), "drivers see their share");
        assert_eq!(offer["deadline"], 1_700_000_020_000_i64);
        assert_eq!(offer["distance_km"], 0.123);
        let unknown = self::offer(&booking, &driver, &Settings::default(), None, None);
        assert!(unknown["deadline"].is_null() && unknown["distance_km"].is_null());
    }

    #[test]
    fn a_notification_has_the_readers_texts_and_the_push_channel() {
        use crate::messages::Messages;
        let booking = BookingId::from_u128(9);
        let plain = notification(NoticeKey::DriverArrived, Some(booking), &Settings::default(), &Localizer::english());
        assert_eq!(plain["key"], "driver_arrived");
        assert_eq!(plain["title"], Messages::english().text(NOTIFICATION_TITLE_KEY));
        assert_eq!(plain["body"], Messages::english().text("driver_arrived"));
        assert_eq!(plain["booking"], serde_json::json!(booking));
        assert_eq!(plain["channel"], "bookings");
        let horn = Settings { CarHornRepeat: true, ..Settings::default() };
        assert_eq!(
            notification(NoticeKey::AcceptBookingRequest, None, &horn, &Localizer::english())["channel"],
            "bookings-repeat"
        );
        assert_eq!(plain["screen"], "BookedCab");
        let french = crate::i18n::LanguageSet::new(&crate::messages::bundled_languages(0)).localizer(["fr"]);
        assert_eq!(
            notification(NoticeKey::DriverArrived, Some(booking), &Settings::default(), &french)["body"],
            "Votre chauffeur est arrivé."
        );
    }
}
