//! What a viewer may see of a record: riders do not see the fare split
//! (spec §2 Bookings), and demo mode masks other people's contact data
//! (spec §6). The REST routes and the Socket.IO events both present through
//! here, so a socket never shows more than the same user's GET would.

use crate::i18n::Localizer;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use wayfare_engine::booking::{NOTIFICATION_TITLE_KEY, NoticeKey};
use wayfare_engine::permissions::{Principal, can_see_fare_split, mask_contact};
use wayfare_engine::{Booking, BookingId, Millis, Role, Settings, User, UserId, WithdrawRequest};

const FARE_SPLIT: [&str; 2] = ["driver_share", "convenience_fees"];
const CUSTOMER_CONTACT: [&str; 3] = ["customer_contact", "customer_email", "customer_token"];
const DRIVER_CONTACT: [&str; 2] = ["driver_contact", "driver_token"];

/// What of a booking one viewer may see. Viewers with the same view get
/// the same JSON: a wave's drivers share one presentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BookingView {
    fare_split: bool,
    otp: bool,
    mask_customer: bool,
    mask_driver: bool,
}

impl BookingView {
    pub fn of(booking: &Booking, viewer: &Principal, settings: &Settings) -> Self {
        let demo = settings.demo_mode();
        BookingView {
            fare_split: can_see_fare_split(viewer.role),
            // The otp is the rider's to give: the driver must hear it from
            // them (spec §4 STARTED), so only the rider and admins read it.
            otp: viewer.id == booking.customer || viewer.role == Role::Admin,
            mask_customer: demo && viewer.id != booking.customer,
            mask_driver: demo && Some(viewer.id) != booking.driver,
        }
    }
}

/// A booking serialized once and cut per view: a route holds hundreds of
/// points, and building a `Value` tree of it for every receiver was the
/// fan-out's largest cost. Fields are cut at the top level, where every
/// rule applies; the rest stays the serialized text.
pub struct BookingJson(String);

/// One top-level field: as serialized, or replaced.
enum Field<'a> {
    Raw(&'a RawValue),
    Owned(Value),
}

impl Serialize for Field<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Raw(raw) => raw.serialize(serializer),
            Field::Owned(value) => value.serialize(serializer),
        }
    }
}

impl BookingJson {
    pub fn new(booking: &Booking) -> Self {
        BookingJson(serde_json::to_string(booking).unwrap_or_else(|_| "null".to_string()))
    }

    pub fn view(&self, view: BookingView) -> Box<RawValue> {
        self.view_with(view, Vec::new())
    }

    /// The view with fields added (or replaced), for a screen that needs
    /// more than the booking (the console's `offered`).
    pub fn view_with(&self, view: BookingView, extra: Vec<(&'static str, Value)>) -> Box<RawValue> {
        // Field names are Rust identifiers: never escaped, so they borrow.
        // Never the uncut text: it holds what the viewer may not see.
        let Ok(mut fields) = serde_json::from_str::<BTreeMap<&str, Field>>(&self.0) else {
            tracing::warn!("a booking's JSON did not split into fields; presented as null");
            return null();
        };
        if !view.fare_split {
            for field in FARE_SPLIT {
                fields.remove(field);
            }
        }
        // Push tokens are the server's business only.
        fields.remove("customer_token");
        fields.remove("driver_token");
        if !view.otp {
            fields.remove("otp");
        }
        if view.mask_customer {
            mask_raw(&mut fields, &CUSTOMER_CONTACT);
        }
        if view.mask_driver {
            mask_raw(&mut fields, &DRIVER_CONTACT);
        }
        for (name, value) in extra {
            fields.insert(name, Field::Owned(value));
        }
        serde_json::value::to_raw_value(&fields).unwrap_or_else(|_| null())
    }
}

impl<'de> Deserialize<'de> for Field<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&RawValue>::deserialize(deserializer).map(Field::Raw)
    }
}

fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_string()).expect("null is JSON")
}

/// One booking presented to several viewers: serialized once, and each
/// distinct view cut once.
pub struct Presenter<'a> {
    booking: &'a Booking,
    settings: &'a Settings,
    json: BookingJson,
    views: Vec<(BookingView, Box<RawValue>)>,
}

impl<'a> Presenter<'a> {
    pub fn new(booking: &'a Booking, settings: &'a Settings) -> Self {
        Presenter { booking, settings, json: BookingJson::new(booking), views: Vec::new() }
    }

    pub fn for_viewer(&mut self, viewer: &Principal) -> &RawValue {
        let view = BookingView::of(self.booking, viewer, self.settings);
        // A handful of views at most: a scan beats hashing.
        let index = match self.views.iter().position(|(seen, _)| *seen == view) {
            Some(index) => index,
            None => {
                self.views.push((view, self.json.view(view)));
                self.views.len() - 1
            }
        };
        &self.views[index].1
    }
}

/// A booking as `viewer` may see it.
pub fn booking(booking: &Booking, viewer: &Principal, settings: &Settings) -> Box<RawValue> {
    BookingJson::new(booking).view(BookingView::of(booking, viewer, settings))
}

/// A booking as a fleet admin's console sees it: only their own drivers in
/// its offers and dispatch history (`is_theirs` says whose a driver is).
pub fn booking_for_fleet(
    booking: &Booking,
    fleet: UserId,
    settings: &Settings,
    is_theirs: impl Fn(UserId) -> bool,
) -> Box<RawValue> {
    self::booking(&fleet_cut(booking, is_theirs), &Principal::new(fleet, Role::Fleetadmin), settings)
}

/// The booking with only a fleet's drivers in its offers and dispatch
/// history (`is_theirs` says whose a driver is).
pub fn fleet_cut(booking: &Booking, is_theirs: impl Fn(UserId) -> bool) -> Booking {
    let mut cut = booking.clone();
    cut.requestedDrivers.0.retain(|driver| is_theirs(*driver));
    cut.dispatch.declined.retain(|driver| is_theirs(*driver));
    cut.dispatch.expired.retain(|driver| is_theirs(*driver));
    cut
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
pub fn offer(booking: &RawValue, deadline: Option<Millis>, distance_km: Option<f64>) -> Offer<'_> {
    // Metres are plenty for a list of offers.
    Offer { booking, deadline, distance_km: distance_km.map(|km| (km * 1000.0).round() / 1000.0) }
}

/// The `offer` event's payload (see [`offer`]).
#[derive(Debug, Serialize)]
pub struct Offer<'a> {
    booking: &'a RawValue,
    deadline: Option<Millis>,
    distance_km: Option<f64>,
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

/// An SOS alert with its `state` (`open`, `taken`, `resolved`), as the
/// list, the routes and the socket's `sos` event show it. Only admins and
/// the booking's fleet admin see alerts, so nothing is masked.
pub fn sos(alert: &wayfare_engine::sos::SosAlert) -> Value {
    let mut value = serde_json::to_value(alert).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        fields.insert("state".to_string(), serde_json::to_value(alert.state()).unwrap_or(Value::Null));
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

fn mask_raw<'a>(fields: &mut BTreeMap<&'a str, Field<'a>>, names: &[&'a str]) {
    for name in names {
        if let Some(Field::Raw(raw)) = fields.get(*name)
            && let Ok(text) = serde_json::from_str::<String>(raw.get())
        {
            fields.insert(name, Field::Owned(Value::String(mask_contact(&text))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfare_engine::booking::{self, By, Context, NewBooking, RouteInfo};
    use wayfare_engine::rules::booking::DeliveryDetails;
    use wayfare_engine::{BookingId, Place};
    fn viewer(id: u128, role: Role) -> Principal {
        Principal { id: UserId::from_u128(id), role, fleet: None }
    }

    /// A presented booking read back.
    fn seen(booking: &Booking, viewer: &Principal, settings: &Settings) -> Value {
        serde_json::from_str(super::booking(booking, viewer, settings).get()).unwrap()
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
        assert!(seen(&booking, &viewer(2, Role::Driver), &settings).get("otp").is_none());
        assert_eq!(seen(&booking, &viewer(1, Role::Rider), &settings)["otp"], 12345);
        assert_eq!(seen(&booking, &viewer(9, Role::Admin), &settings)["otp"], 12345);
        assert!(seen(&booking, &viewer(7, Role::Fleetadmin), &settings).get("otp").is_none());
    }

    #[test]
    fn riders_do_not_see_the_fare_split_and_nobody_sees_push_tokens() {
        // spec §2 Bookings: driver share and convenience fee hidden from riders
        let settings = Settings::default();
        let booking = booking_json();
        let rider = seen(&booking, &viewer(1, Role::Rider), &settings);
        assert!(rider.get("driver_share").is_none() && rider.get("convenience_fees").is_none());
        assert!(rider.get("customer_token").is_none());
        let admin = seen(&booking, &viewer(9, Role::Admin), &settings);
        assert_eq!(admin["driver_share"], 9.0);
    }

    #[test]
    fn demo_mode_masks_other_peoples_contacts_only() {
        // spec §6: contact data shows as hidden when critical edits are off
        let settings = Settings { AllowCriticalEditsAdmin: false, ..Settings::default() };
        let booking = booking_json();
        let driver = seen(&booking, &viewer(2, Role::Driver), &settings);
        assert_ne!(driver["customer_email"], "rita@example.com");
        assert_eq!(driver["driver_contact"], "+14105550199");
        let rider = seen(&booking, &viewer(1, Role::Rider), &settings);
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
        let presented = super::booking(&booking, &driver, &Settings::default());
        let offer = serde_json::to_value(offer(&presented, Some(1_700_000_020_000), Some(0.123_456))).unwrap();
        assert_eq!(offer["booking"]["id"], serde_json::json!(booking.id));
        assert!(offer["booking"].get("driver_share").is_some(), "drivers see their share");
        assert_eq!(offer["deadline"], 1_700_000_020_000_i64);
        assert_eq!(offer["distance_km"], 0.123);
        let unknown = serde_json::to_value(self::offer(&presented, None, None)).unwrap();
        assert!(unknown["deadline"].is_null() && unknown["distance_km"].is_null());
    }

    #[test]
    fn a_presentation_is_the_whole_booking_less_what_the_viewer_may_not_see() {
        // The text cut per view must say what the serialized booking says, a
        // route's points included, minus the rules' fields.
        let settings = Settings { AllowCriticalEditsAdmin: false, ..Settings::default() };
        let mut booking = booking_json();
        booking.coords = vec![wayfare_engine::Coord { latitude: 39.28, longitude: -76.6 }; 3];
        let whole = serde_json::to_value(&booking).unwrap();
        let driver = seen(&booking, &viewer(2, Role::Driver), &settings);
        let Value::Object(mut expected) = whole else { panic!("a booking is an object") };
        for hidden in ["customer_token", "driver_token", "otp"] {
            expected.remove(hidden);
        }
        expected.insert("customer_email".into(), json!(mask_contact("rita@example.com")));
        expected.insert("customer_contact".into(), json!(mask_contact("+14105550100")));
        assert_eq!(driver, Value::Object(expected));
        assert_eq!(driver["coords"].as_array().map(Vec::len), Some(3));
    }

    #[test]
    fn viewers_with_one_view_share_one_presentation_and_extra_fields_are_added() {
        let settings = Settings::default();
        let booking = booking();
        let mut presenter = Presenter::new(&booking, &settings);
        let first = presenter.for_viewer(&Principal::new(UserId::from_u128(20), Role::Driver)).get().to_string();
        let second = presenter.for_viewer(&Principal::new(UserId::from_u128(21), Role::Driver)).get().to_string();
        let rider = presenter.for_viewer(&Principal::new(RIDER, Role::Rider)).get().to_string();
        assert_eq!(first, second);
        assert_ne!(first, rider, "the rider reads the otp, drivers do not");
        assert_eq!(presenter.views.len(), 2);
        let view = BookingView::of(&booking, &console_viewer(), &settings);
        let with = BookingJson::new(&booking).view_with(view, vec![("offered", json!([1, 2]))]);
        let with: Value = serde_json::from_str(with.get()).unwrap();
        assert_eq!((with["offered"].clone(), with["id"].clone()), (json!([1, 2]), json!(booking.id)));
        // Text that does not split into fields is never shown uncut.
        assert_eq!(BookingJson("[\"otp\", 12345]".to_string()).view(view).get(), "null");
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
