//! The mapping rules, one test each, on a small export in the original
//! product's shape.

use super::*;
use crate::ids::{BookingId, CarTypeId, LanguageId, PromoId, UserId};
use crate::model::{
    AmountType, Booking, BookingStatus, CancelledBy, DeviceTarget, Language, Millis, PaymentMode, RegType, Role,
    Settings, User, UserTarget, WalletEntryType,
};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::json;

const NOW: Millis = 1_750_000_000_000;
const DAY: Millis = 86_400_000;

fn options() -> Options {
    Options { now: NOW }
}

fn user_id(key: &str) -> UserId {
    UserId(ids::original_id("users", key))
}

fn booking_id(key: &str) -> BookingId {
    BookingId(ids::original_id("bookings", key))
}

/// A small city: an admin, a fleet admin, two drivers (one of a fleet),
/// three riders; bookings in several statuses.
fn export() -> Value {
    json!({
        "settings": {"appName": "Exicube", "code": "INR", "symbol": "₹", "decimal": "2", "panic": 991,
                     "driver_approval": "true", "mobileLogin": true, "bonus": "10"},
        "cartypes": {
            "type1": {"name": "Economy", "base_fare": "10", "rate_per_unit_distance": 5, "rate_per_hour": 5,
                      "min_fare": 10, "convenience_fees": "15", "convenience_fee_type": "percentage",
                      "fleet_admin_fee": 5, "pos": 1, "image": "https://firebasestorage.example/cartypes%2Ftype1",
                      "cancelSlab": {"1": {"amount": 15, "minsDelayed": "4"}, "0": {"amount": "10", "minsDelayed": 2}}},
            "type2": {"name": "Comfort", "base_fare": 12, "rate_per_unit_distance": 8, "rate_per_hour": 6,
                      "min_fare": 20, "convenience_fees": 15, "convenience_fee_type": "flat"}
        },
        "promos": {"promo1": {"promo_name": "Test Promo", "promo_code": "asdfg", "promo_description": "",
                              "promo_discount_type": "flat", "promo_discount_value": "10", "max_promo_discount_value": 10,
                              "min_order": 10, "promo_validity": 1_767_162_600_000_i64, "promo_usage_limit": "100",
                              "user_avail": 3, "promo_show": true}},
        "cancel_reason": [{"label": "Driver is late", "value": 1}, {"label": "Changed my mind", "value": 0}],
        "users": {
            "admin1": {"usertype": "admin", "firstName": "Ada", "email": "Admin@Example.com", "approved": true,
                       "createdAt": 1_600_000_000_000_i64},
            "fleet1": {"usertype": "fleetadmin", "firstName": "Fleet", "email": "fleet@example.com", "approved": true},
            "driver1": {"usertype": "driver", "firstName": "Dan", "lastName": "Driver", "mobile": "+91 99988 87777",
                        "approved": "true", "driverActiveStatus": true, "queue": true, "carType": "Economy",
                        "vehicleNumber": "WB 01 1234", "fleetadmin": "fleet1", "walletBalance": "40.5",
                        "referralId": "DRIVE", "profile_image": "https://firebasestorage.example/users%2Fdriver1",
                        "rating": "4.5"},
            "driver2": {"usertype": "driver", "firstName": "Dora", "mobile": "+15550001111", "approved": false},
            "rider1": {"usertype": "customer", "firstName": "Rita", "lastName": "Rider", "email": "rita@example.com",
                       "mobile": "+15550002222", "walletBalance": 25, "referralId": "RIDER",
                       "lang": {"langLocale": "fr", "dateLocale": "fr"},
                       "savedAddresses": {"-a1": {"description": "Home", "lat": "22.5", "lng": 88.3, "count": 2}}},
            "rider2": {"usertype": "rider", "firstName": "Rob", "email": "RITA@example.com", "signupViaReferral": "rider1"},
            "rider3": {"usertype": "customer", "firstName": "Ray", "mobile": "12"},
            "ghost": {"usertype": "superhero", "firstName": "Nobody"}
        },
        "bookings": {
            "-Bdone": {"status": "COMPLETE", "customer": "rider1", "driver": "driver1", "reference": "ABCDEF",
                       "carType": "Economy", "pickup": {"lat": 22.5, "lng": 88.3, "add": "Park Street"},
                       "drop": {"lat": "22.6", "lng": "88.4", "add": "Airport"}, "tripdate": "1700000000000",
                       "bookingDate": 1_700_000_000_000_i64, "trip_cost": "120.456", "driver_share": "100.00",
                       "convenience_fees": 20.456, "payment_mode": "cash", "rating": "5", "bookLater": "false",
                       "trip_start_time": "10:4:59", "startTime": 1_700_000_100_000_i64, "otp": false,
                       "promo_applied": true, "promo_details": {"promo_name": "Test Promo", "promo_discount_value": 10},
                       "fleetadmin": "fleet1", "tipamount": 0},
            "-Blegacy": {"status": "COMPLETED", "customer": "rider1", "driver": "driver1",
                         "pickup": {"lat": 22.5, "lng": 88.3}, "drop": {"lat": 22.6, "lng": 88.4},
                         "tripdate": 1_700_100_000_000_i64, "trip_cost": 50},
            "-Bgone": {"status": "PAID", "customer": "rider1", "driver": "deletedDriver", "reference": "GONEGO",
                       "pickup": {"lat": 22.5, "lng": 88.3}, "drop": {"lat": 22.6, "lng": 88.4},
                       "tripdate": 1_700_200_000_000_i64, "trip_cost": 30, "driver_name": "Old Driver"},
            "-Bgone2": {"status": "STARTED", "customer": "rider1", "driver": "deletedDriver",
                        "pickup": {"lat": 22.5, "lng": 88.3}, "drop": {"lat": 22.6, "lng": 88.4},
                        "tripdate": 1_700_200_000_000_i64},
            "-Bnew": {"status": "NEW", "customer": "rider3", "pickup": {"lat": 22.5, "lng": 88.3},
                      "drop": {"lat": 22.6, "lng": 88.4}, "bookingDate": NOW - 60_000, "bookLater": false,
                      "requestedDrivers": {"driver2": true, "driver1": true, "deletedDriver": true}},
            "-Bride": {"status": "ACCEPTED", "customer": "rider1", "driver": "driver2",
                       "pickup": {"lat": 22.5, "lng": 88.3}, "drop": {"lat": 22.6, "lng": 88.4},
                       "tripdate": NOW - DAY, "requestedDrivers": {"driver2": true}},
            "-Bbroken": {"status": "NEW", "customer": "rider1", "drop": {"lat": 22.6, "lng": 88.4},
                         "tripdate": NOW},
            "-Bodd": {"status": "TELEPORTED", "customer": "rider1", "pickup": {"lat": 1, "lng": 1},
                      "drop": {"lat": 2, "lng": 2}, "tripdate": NOW}
        },
        "tracking": {
            "-Bdone": {"-t1": {"at": 1_700_000_050_000_i64, "status": "ACCEPTED", "lat": 22.5, "lng": 88.3},
                       "-t2": {"at": "1700000100000", "status": "STARTED", "lat": "22.55", "lng": 88.35, "speed": 3},
                       "-t3": {"at": 1_700_000_200_000_i64, "status": "REACHED", "lng": 88.4}},
            "-Bnowhere": {"-t1": {"at": 1, "status": "NEW", "lat": 1, "lng": 1}}
        },
        "chats": {"-Bdone": {"messages": {"rider1,driver1": {
            "-m1": {"message": "Where are you?", "from": "rider1", "msgDate": "11:14:2023", "msgTime": "22:15",
                    "source": "customer", "createdAt": "Tue Nov 14 2023 22:15:00 GMT+0000 (Coordinated Universal Time)"},
            "-m2": {"message": "Outside", "from": "driver1", "msgDate": "11:14:2023", "msgTime": "22:16"}}}}},
        "walletHistory": {
            "driver1": {"-w1": {"type": "Credit", "amount": "100", "date": 1_700_000_300_000_i64, "txRef": "-Bdone"},
                        "-w2": {"type": "Debit", "amount": 120.46, "date": 1_700_000_300_001_i64, "txRef": "-Bdone"},
                        "-w3": {"type": "Credit", "amount": -5, "date": 1_700_000_300_002_i64, "txRef": "fix"}},
            "rider1": {"-w1": {"type": "Credit", "amount": 25, "date": 1_690_000_000_000_i64, "txRef": "AdminCredit"}},
            "nobody": {"-w1": {"type": "Credit", "amount": 1, "date": 1}}
        },
        "withdraws": {"-W1": {"uid": "driver1", "name": "Dan Driver", "amount": "20", "date": 1_700_000_400_000_i64,
                              "processed": true, "processDate": 1_700_000_500_000_i64, "bankName": "SBI"}},
        "userRatings": {"driver1": {"-r1": {"user": "rider1", "rate": 5, "bookingId": "-Bdone"},
                                    "-r2": {"user": "rider2", "rate": "4"}}},
        "savedAddresses": {"rider1": {"-s1": {"description": "Work", "lat": 22.57, "lng": 88.36}}},
        "locations": {"driver2": {"lat": 22.51, "lng": 88.31, "heading": 90}},
        "cars": {"-c1": {"driver": "driver2", "vehicleNumber": "KA 05 9999", "vehicleMake": "Maruti",
                         "carType": "Comfort", "active": true}},
        "sos": {"-S1": {"bookingId": "-Bdone", "complainDate": 1_700_000_150_000_i64, "user_type": "customer",
                        "user_name": "Rita Rider", "contact": "+15550002222"},
                "-S2": {"bookingId": "-Bmissing", "complainDate": 1}},
        "complain": {"-C1": {"uid": "rider1", "subject": "Late", "body": "The driver was late", "complainDate": 1}},
        "notifications": {"-n1": {"devicetype": "ANDROID", "usertype": "customer", "title": "Hello", "body": "Welcome"}},
        "languages": {"lang1": {"langName": "English", "langLocale": "en", "default": true, "dateLocale": "en-gb",
                                "keyValuePairs": {"notification_title": "Exicube says"}},
                      "lang2": {"langName": "Français", "langLocale": "fr", "default": "true", "dateLocale": "fr"}},
        "payment_settings": {"razorpay": {"active": true, "KEY_ID": "rzp_1", "KEY_SECRET": "s3cret"},
                             "payulatam": {"active": false, "testing": "true", "merchantId": 508029, "apiKey": ""}},
        "smtpdata": {"fromEmail": "x@example.com", "smtpDetails": {"auth": {"pass": "secret"}}},
        "usedreferral": {"-u1": {"referrer": "rider1", "used_by": "rider2"}}
    })
}

fn mapped() -> Mapped {
    map_export(&export(), options(), &Existing::default())
}

fn booking<'a>(mapped: &'a Mapped, key: &str) -> &'a Booking {
    mapped.bookings.iter().find(|booking| booking.id == booking_id(key)).unwrap_or_else(|| panic!("{key} imported"))
}

fn user<'a>(mapped: &'a Mapped, key: &str) -> &'a User {
    mapped.users.iter().find(|user| user.id == user_id(key)).unwrap_or_else(|| panic!("{key} imported"))
}

fn counts(mapped: &Mapped, node: &str) -> (u64, u64, u64, u64) {
    let counts = &mapped.report.nodes[node];
    (counts.read, counts.imported, counts.kept, counts.skipped)
}

#[test]
fn every_original_status_maps_and_legacy_spellings_are_flagged() {
    for status in BookingStatus::ALL {
        assert_eq!(map_status(status.as_str()), Some((status, false)));
    }
    assert_eq!(map_status("completed"), Some((BookingStatus::Complete, true)));
    assert_eq!(map_status("CANCELED"), Some((BookingStatus::Cancelled, true)));
    assert_eq!(map_status("REJECTED"), Some((BookingStatus::Cancelled, true)));
    assert_eq!(map_status("START"), Some((BookingStatus::Started, true)));
    assert_eq!(map_status("END"), Some((BookingStatus::Reached, true)));
    assert_eq!(map_status("Payment Pending"), Some((BookingStatus::PaymentPending, true)));
    assert_eq!(map_status("TELEPORTED"), None);
}

#[test]
fn the_settings_are_laid_over_wayfare_s_in_wayfare_s_types() {
    let mapped = mapped();
    let settings = mapped.settings.as_ref().unwrap();
    assert_eq!(settings.appName, "Exicube");
    assert_eq!(settings.code, "INR");
    assert_eq!(settings.decimal, 2, "a number written as text");
    assert_eq!(settings.panic, "991", "a phone number written as a number");
    assert!(settings.driver_approval);
    assert_eq!(settings.bonus, dec!(10));
    assert_eq!(settings.dispatchWaveSize, Settings::default().dispatchWaveSize, "Wayfare's own knobs stay");
    assert_eq!(mapped.report.unknown_keys["settings"]["mobileLogin"], 1);
    let kept = mapped.records.iter().find(|record| record.node == "settings").unwrap();
    assert_eq!(kept.extra["mobileLogin"], json!(true));
}

#[test]
fn a_setting_that_does_not_fit_keeps_wayfare_s_value_and_is_reported() {
    let export = json!({"settings": {"decimal": 12, "autoDispatch": "sometimes", "appName": "X"}});
    let mapped = map_export(&export, options(), &Existing::default());
    let settings = mapped.settings.unwrap();
    assert_eq!(settings.decimal, 2);
    assert!(settings.autoDispatch);
    assert_eq!(settings.appName, "X");
    assert_eq!(mapped.report.adjusted_count("setting_not_readable_kept_wayfare_value"), 2);
}

#[test]
fn car_types_keep_their_slabs_in_order_and_their_images() {
    let mapped = mapped();
    assert_eq!(counts(&mapped, "cartypes"), (2, 2, 0, 0));
    let economy = mapped.car_types.iter().find(|car| car.name == "Economy").unwrap();
    assert_eq!(economy.id, CarTypeId(ids::original_id("cartypes", "type1")));
    assert_eq!(economy.base_fare, dec!(10));
    assert_eq!(economy.convenience_fee_type, AmountType::Percentage);
    let slabs: Vec<(u32, Decimal)> = economy.cancelSlab.iter().map(|slab| (slab.minsDelayed, slab.amount)).collect();
    assert_eq!(slabs, [(2, dec!(10)), (4, dec!(15))], "an object keyed by index is a list");
    assert_eq!(mapped.report.unknown_keys["cartypes"]["fleet_admin_fee"], 1);
    assert!(mapped.files.iter().any(|file| file.path == "cartypes/type1"));
}

#[test]
fn a_car_type_or_promo_of_a_name_wayfare_has_becomes_that_record() {
    let existing = Existing {
        car_types: vec![(CarTypeId::from_u128(7), "economy".into())],
        promos: vec![(PromoId::from_u128(8), "ASDFG".into())],
        ..Existing::default()
    };
    let mapped = map_export(&export(), options(), &existing);
    assert!(mapped.car_types.iter().any(|car| car.id == CarTypeId::from_u128(7) && car.name == "Economy"));
    assert_eq!(mapped.promos[0].id, PromoId::from_u128(8));
}

#[test]
fn promos_take_their_code_and_limits() {
    let mapped = mapped();
    let promo = &mapped.promos[0];
    assert_eq!(promo.promo_name, "ASDFG", "the code riders type");
    assert_eq!(promo.promo_description, "Test Promo", "the name shows when there is no description");
    assert_eq!(promo.promo_usage_limit, 100);
    assert_eq!(promo.user_avail, 3);
    assert_eq!(promo.promo_validity, 1_767_162_600_000);
    assert_eq!(super::catalogue::promo_code(None, "Summer sale 10%"), "SUMMER_SALE_10_");
    // The booking that used it names it by its code, and counts as a use.
    assert_eq!(booking(&mapped, "-Bdone").promo_details.as_ref().unwrap().promo_name, "ASDFG");
    assert_eq!(mapped.promo_uses, [("ASDFG".to_string(), user_id("rider1"))]);
}

#[test]
fn cancellation_reasons_come_in_their_value_order() {
    assert_eq!(mapped().cancel_reasons.unwrap(), ["Changed my mind", "Driver is late"]);
    let plain = map_export(&json!({"cancel_reason": ["A", " ", "B", "a"]}), options(), &Existing::default());
    assert_eq!(plain.cancel_reasons.unwrap(), ["A", "B"]);
    assert_eq!(plain.report.nodes["cancel_reason"].skipped, 2);
}

#[test]
fn notifications_and_languages_come_over_with_one_default() {
    let mapped = mapped();
    let notification = &mapped.notifications[0];
    assert_eq!((notification.devicetype, notification.usertype), (DeviceTarget::Android, UserTarget::Rider));
    assert_eq!(mapped.languages.len(), 2);
    assert_eq!(mapped.languages.iter().filter(|language| language.default).count(), 1);
    assert_eq!(mapped.report.adjusted_count("second_default_language_unset"), 1);
}

#[test]
fn a_language_wayfare_has_keeps_its_id_and_the_keys_the_original_lacks() {
    let ours = Language {
        id: LanguageId::from_u128(3),
        langName: "English".into(),
        langLocale: "en".into(),
        dateLocale: "en".into(),
        default: true,
        keyValuePairs: [
            ("notification_title".to_string(), "Wayfare".to_string()),
            ("ok".to_string(), "OK".to_string()),
        ]
        .into(),
        createdAt: 0,
    };
    let existing = Existing { languages: vec![ours], ..Existing::default() };
    let mapped = map_export(&export(), options(), &existing);
    let english = mapped.languages.iter().find(|language| language.langLocale == "en").unwrap();
    assert_eq!(english.id, LanguageId::from_u128(3));
    assert_eq!(english.keyValuePairs["notification_title"], "Exicube says");
    assert_eq!(english.keyValuePairs["ok"], "OK");
}

#[test]
fn payment_settings_come_as_text_by_the_original_names() {
    let mapped = mapped();
    let razorpay = mapped.gateways.iter().find(|gateway| gateway.name == "razorpay").unwrap();
    assert!(razorpay.active);
    assert_eq!(razorpay.fields["KEY_SECRET"], "s3cret");
    let payu = mapped.gateways.iter().find(|gateway| gateway.name == "payulatam").unwrap();
    assert!(!payu.active && payu.testing);
    assert_eq!(payu.fields["merchantId"], "508029");
    assert!(!payu.fields.contains_key("apiKey"), "empty values are not set");
}

#[test]
fn users_keep_their_roles_and_sign_in_contacts() {
    let mapped = mapped();
    assert_eq!(counts(&mapped, "users"), (8, 7, 0, 1));
    assert!(mapped.report.malformed.iter().any(|bad| bad.path == "users/ghost/usertype"));
    let rider = user(&mapped, "rider1");
    assert_eq!(rider.usertype, Role::Rider, "the original's customer");
    assert_eq!(rider.email, "rita@example.com");
    assert_eq!(rider.lang.as_ref().unwrap().langLocale, "fr");
    let admin = user(&mapped, "admin1");
    assert_eq!(admin.email, "admin@example.com", "stored as sign-in compares it");
    assert_eq!(admin.createdAt, 1_600_000_000_000);
    let driver = user(&mapped, "driver1");
    assert_eq!(driver.mobile, "+919998887777");
    assert_eq!(driver.fleetadmin, Some(user_id("fleet1")));
    assert!(driver.approved);
    assert!(!driver.driverActiveStatus, "nobody is online after an import");
    assert_eq!(driver.referralId, "DRIVE");
    // A second record with the same e-mail loses it; the first keeps it.
    let rob = user(&mapped, "rider2");
    assert_eq!(rob.email, "");
    assert_eq!(mapped.report.adjusted_count("email_taken_cleared"), 1);
    assert_eq!(rob.signupViaReferral.as_deref(), Some("RIDER"), "the referrer's uid becomes their code");
    assert_eq!(rob.regType, RegType::Mobile);
    assert_eq!(rob.referralId.len(), 5, "a code is made for a user without one");
    // A mobile too short for sign-in is kept as it was, and reported.
    assert_eq!(user(&mapped, "rider3").mobile, "12");
    assert_eq!(mapped.report.adjusted_count("mobile_not_valid_kept_as_is"), 1);
    assert!(!user(&mapped, "driver2").approved);
}

#[test]
fn a_user_with_the_contact_of_a_wayfare_user_becomes_that_user() {
    let wayfare_admin = UserId::from_u128(42);
    let other = UserId::from_u128(43);
    let existing = Existing {
        users_by_email: [("admin@example.com".to_string(), wayfare_admin)].into(),
        users_by_mobile: [("+15550002222".to_string(), other)].into(),
        users_by_referral: [("DRIVE".to_string(), other)].into(),
        ..Existing::default()
    };
    let mapped = map_export(&export(), options(), &existing);
    let admin = mapped.users.iter().find(|user| user.id == wayfare_admin).expect("merged");
    assert_eq!(admin.firstName, "Ada");
    assert_eq!(mapped.report.adjusted_count("same_contact_as_a_wayfare_user_merged"), 2, "admin1 and rider1");
    let rider = mapped.users.iter().find(|user| user.id == other).expect("rider1 merged by mobile");
    assert_eq!(rider.email, "rita@example.com");
    let driver = user(&mapped, "driver1");
    assert_ne!(driver.referralId, "DRIVE", "a code another user has is replaced");
    // Bookings follow the merge.
    assert_eq!(mapped.bookings.iter().find(|booking| booking.reference == "ABCDEF").unwrap().customer, other);
}

#[test]
fn ratings_addresses_positions_and_cars_join_their_user() {
    let mapped = mapped();
    let driver = user(&mapped, "driver1");
    let ratings = driver.ratings.as_ref().unwrap();
    assert_eq!(ratings.details.len(), 2);
    assert_eq!(ratings.userrating, dec!(4.5));
    assert_eq!(ratings.details[0].user, user_id("rider1"));
    let rider = user(&mapped, "rider1");
    let addresses: Vec<(&str, u32)> =
        rider.savedAddresses.iter().map(|saved| (saved.description.as_str(), saved.count)).collect();
    assert_eq!(addresses, [("Home", 2), ("Work", 1)]);
    let other = user(&mapped, "driver2");
    assert_eq!(other.location, Some(crate::model::LatLng::new(22.51, 88.31)));
    assert_eq!(other.vehicleNumber, "KA 05 9999");
    assert_eq!(other.carType.as_deref(), Some("Comfort"));
    assert_eq!(counts(&mapped, "cars"), (1, 0, 1, 0));
    assert!(mapped.records.iter().any(|record| record.node == "cars" && record.entity == Some(other.id.0)));
}

#[test]
fn bookings_read_numbers_written_as_text_and_round_money() {
    let mapped = mapped();
    let done = booking(&mapped, "-Bdone");
    assert_eq!(done.status, BookingStatus::Complete);
    assert_eq!(done.customer, user_id("rider1"));
    assert_eq!(done.driver, Some(user_id("driver1")));
    assert_eq!(done.fleetadmin, Some(user_id("fleet1")));
    assert_eq!(done.trip_cost, dec!(120.46));
    assert_eq!(done.convenience_fees, dec!(20.46));
    assert_eq!(done.driver_share, dec!(100));
    assert_eq!(done.tripdate, 1_700_000_000_000);
    assert_eq!(done.drop.lat, 22.6);
    assert_eq!(done.payment_mode, Some(PaymentMode::Cash));
    assert_eq!(done.rating, Some(5));
    assert_eq!(done.otp.0, None);
    assert_eq!(done.pickupAddress, "Park Street");
    assert_eq!(done.acceptedAt, Some(1_700_000_050_000), "from its ACCEPTED tracking point");
    assert_eq!(done.trip_start_time, Some(1_700_000_100_000), "a clock time is left aside");
    assert!(done.timers.next().is_none(), "finished: no timers");
    let kept = mapped.records.iter().find(|record| record.entity == Some(done.id.0)).unwrap();
    assert_eq!(kept.extra["trip_start_time"], json!("10:4:59"));
    assert_eq!(mapped.report.unknown_keys["bookings"]["tipamount"], 1);
}

#[test]
fn a_saved_address_s_name_is_kept_beside_its_user_and_reported() {
    let mut tree = export();
    tree["savedAddresses"]["rider1"]["-s2"] =
        json!({"description": "Sector V, Salt Lake", "name": "office", "lat": "22.58", "lng": 88.43});
    tree["savedAddresses"]["rider1"]["-s3"] = json!({"name": "gym", "lat": 22.5, "lng": 88.3});
    tree["savedAddresses"]["rider1"]["-s4"] = json!("not an address");
    let mapped = map_export(&tree, options(), &Existing::default());
    let rider = user(&mapped, "rider1");
    let addresses: Vec<(&str, u32)> =
        rider.savedAddresses.iter().map(|saved| (saved.description.as_str(), saved.count)).collect();
    assert_eq!(addresses, [("Home", 2), ("Work", 1), ("Sector V, Salt Lake", 1), ("gym", 1)]);
    assert_eq!(counts(&mapped, "savedAddresses"), (4, 3, 0, 1));
    assert_eq!(mapped.report.unknown_keys["savedAddresses"]["name"], 1, "the name a description stood in for");
    let office = mapped.records.iter().find(|record| record.key == "rider1/-s2").expect("kept beside the rider");
    assert_eq!((office.node.as_str(), office.entity), ("savedAddresses", Some(rider.id.0)));
    assert_eq!(office.extra.get("name"), Some(&json!("office")));
    assert!(mapped.report.malformed.iter().any(|malformed| malformed.path == "savedAddresses/rider1/-s4"));
}

#[test]
fn legacy_statuses_map_and_missing_optional_fields_take_defaults() {
    let mapped = mapped();
    let legacy = booking(&mapped, "-Blegacy");
    assert_eq!(legacy.status, BookingStatus::Complete);
    assert_eq!(legacy.bookingDate, legacy.tripdate, "the one date there is");
    assert_eq!(legacy.reference.len(), 6, "a reference is made");
    assert_eq!(legacy.payableAmount, dec!(50));
    assert!(mapped.report.adjustments["legacy_status_mapped"].examples[0].contains("COMPLETED → COMPLETE"));
}

#[test]
fn a_booking_whose_driver_was_deleted_keeps_its_history_and_its_trip_under_way_is_cancelled() {
    let mapped = mapped();
    let paid = booking(&mapped, "-Bgone");
    assert_eq!(paid.status, BookingStatus::Paid);
    assert_eq!(
        paid.driver,
        Some(user_id("deletedDriver")),
        "the reference stays, as for an account deleted in Wayfare"
    );
    assert_eq!(paid.driver_name, "Old Driver");
    assert!(paid.timers.auto_complete.is_some());
    assert_eq!(mapped.report.adjusted_count("driver_not_in_export_kept_as_reference"), 2);
    let started = booking(&mapped, "-Bgone2");
    assert_eq!(started.status, BookingStatus::Cancelled);
    assert_eq!(started.cancelledBy, Some(CancelledBy::System));
    assert_eq!(started.reason, REASON_PARTY_MISSING);
    assert_eq!(mapped.report.adjusted_count("trip_of_a_missing_party_cancelled"), 1);
}

#[test]
fn a_new_booking_keeps_offers_to_drivers_in_the_export_and_its_timers() {
    let mapped = mapped();
    let new = booking(&mapped, "-Bnew");
    assert_eq!(new.requestedDrivers.0, [user_id("driver1"), user_id("driver2")].into_iter().collect());
    assert_eq!(mapped.report.adjusted_count("offer_to_a_driver_not_in_export_dropped"), 1);
    let give_up = new.timers.auto_cancel.unwrap().at;
    assert_eq!(give_up, NOW - 60_000 + Settings::default().no_driver_cancel_ms(), "from when it was made");
    assert_eq!(new.timers.dispatch_retry.unwrap().at, NOW);
    assert_eq!(new.searchingSince, Some(NOW - 60_000));
    // Offers on a booking that is no longer NEW are dropped.
    let accepted = booking(&mapped, "-Bride");
    assert!(accepted.requestedDrivers.0.is_empty());
    assert_eq!(mapped.report.adjusted_count("offer_on_a_booking_no_longer_new_dropped"), 1);
}

#[test]
fn drivers_are_busy_exactly_while_they_hold_a_trip() {
    let mapped = mapped();
    assert!(!user(&mapped, "driver1").queue, "the original's flag said busy; no trip holds them");
    assert!(user(&mapped, "driver2").queue, "ACCEPTED -Bride");
}

#[test]
fn a_driver_on_two_trips_keeps_the_latest() {
    let mut export = export();
    export["bookings"]["-Bride2"] = json!({"status": "ARRIVED", "customer": "rider2", "driver": "driver2",
        "pickup": {"lat": 22.5, "lng": 88.3}, "drop": {"lat": 22.6, "lng": 88.4}, "tripdate": NOW});
    let mapped = map_export(&export, options(), &Existing::default());
    assert_eq!(booking(&mapped, "-Bride").status, BookingStatus::Cancelled);
    assert_eq!(booking(&mapped, "-Bride").reason, REASON_SECOND_TRIP);
    assert_eq!(booking(&mapped, "-Bride2").status, BookingStatus::Arrived);
}

#[test]
fn malformed_bookings_are_skipped_with_their_path() {
    let mapped = mapped();
    assert_eq!(counts(&mapped, "bookings"), (8, 6, 0, 2));
    let paths: Vec<(&str, &str)> =
        mapped.report.malformed.iter().map(|bad| (bad.path.as_str(), bad.reason.as_str())).collect();
    assert!(paths.contains(&("bookings/-Bbroken/pickup", "no pickup coordinates")), "{paths:?}");
    assert!(paths.contains(&("bookings/-Bodd/status", "unknown status \"TELEPORTED\"")), "{paths:?}");
}

#[test]
fn tracking_chats_and_sos_attach_to_their_booking() {
    let mapped = mapped();
    assert_eq!(counts(&mapped, "tracking"), (4, 2, 0, 2));
    assert_eq!(mapped.tracking[1].point.at, 1_700_000_100_000);
    assert_eq!(mapped.tracking[1].point.status, BookingStatus::Started);
    assert_eq!(mapped.report.unknown_keys["tracking"]["speed"], 1);
    assert_eq!(mapped.chats.len(), 2);
    let first = &mapped.chats[0];
    assert_eq!((first.message.source, first.message.from), (Role::Rider, user_id("rider1")));
    assert_eq!(first.message.createdAt, 1_700_000_100_000);
    assert_eq!(mapped.chats[1].message.source, Role::Driver);
    assert_eq!(mapped.chats[1].message.createdAt, 1_700_000_160_000, "from MM:DD:YYYY and HH:MM");
    assert!(first.read_at.is_some(), "a finished booking's chat comes over read");
    assert_eq!(counts(&mapped, "sos"), (2, 1, 0, 1));
    let alert = &mapped.sos[0];
    assert_eq!(alert.raised_by, user_id("rider1"));
    assert_eq!((alert.lat, alert.lng), (22.55, 88.35), "the last tracked position then");
    assert!(alert.resolved_at.is_none());
    assert_eq!(counts(&mapped, "complain"), (1, 0, 1, 0));
}

#[test]
fn the_wallet_history_becomes_the_ledger_with_an_opening_where_it_does_not_add_up() {
    let mapped = mapped();
    assert_eq!(counts(&mapped, "walletHistory"), (5, 4, 0, 1));
    let driver: Vec<&LedgerLine> = mapped.ledger.iter().filter(|line| line.user == user_id("driver1")).collect();
    // 100 - 120.46 - 5 = -25.46 against a balance of 40.5: an opening of 65.96.
    let opening = driver.iter().find(|line| line.entry.txRef == TX_REF_IMPORT_OPENING).unwrap();
    assert_eq!((opening.entry.entry_type, opening.entry.amount), (WalletEntryType::Credit, dec!(65.96)));
    assert_eq!(opening.entry.date, 1_700_000_300_000 - 1, "before the history");
    let total: Decimal = driver.iter().map(|line| line.signed_amount()).sum();
    assert_eq!(total, dec!(40.5), "the ledger holds the balance");
    let flipped = driver.iter().find(|line| line.idempotency_key == "exicube:driver1:-w3").unwrap();
    assert_eq!((flipped.entry.entry_type, flipped.entry.amount), (WalletEntryType::Debit, dec!(5)));
    let share = driver.iter().find(|line| line.idempotency_key == "exicube:driver1:-w1").unwrap();
    assert_eq!(share.entry.txRef, "ABCDEF", "a booking's key reads as its reference");
    assert_eq!(mapped.report.wallets.len(), 1, "rider1's history adds up");
    assert_eq!(mapped.report.wallets[0].opening, dec!(65.96));
    assert!(mapped.ledger.iter().all(|line| !line.idempotency_key.starts_with("booking:")));
}

#[test]
fn a_wallet_entry_under_both_homes_is_counted_once() {
    let mut tree = export();
    // The same entry under `users/rider1/walletHistory` as under `walletHistory/rider1`.
    tree["users"]["rider1"]["walletHistory"] = tree["walletHistory"]["rider1"].clone();
    let mapped = map_export(&tree, options(), &Existing::default());
    assert_eq!(counts(&mapped, "walletHistory"), (5, 4, 0, 1), "read once");
    let rider: Vec<&LedgerLine> = mapped.ledger.iter().filter(|line| line.user == user_id("rider1")).collect();
    assert_eq!(rider.len(), 1, "one credit of 25 and no opening: {rider:?}");
    assert!(mapped.report.wallets.iter().all(|wallet| wallet.user != user_id("rider1")), "the history adds up");
    let kept = mapped.records.iter().filter(|record| record.node == "walletHistory" && record.key == "rider1/-w1");
    assert_eq!(kept.count(), 1, "one record per entry (a second would update the same row twice)");
    assert_eq!(mapped.report.adjusted_count("wallet_entry_in_both_histories_counted_once"), 1);
}

#[test]
fn a_later_balance_is_reached_by_one_correction_made_once() {
    let user = UserId::from_u128(1);
    assert_eq!(correction_entry(user, "u", dec!(10), dec!(10), 5), None);
    let line = correction_entry(user, "u", dec!(10), dec!(4), 5).unwrap();
    assert_eq!((line.entry.entry_type, line.entry.amount), (WalletEntryType::Debit, dec!(6)));
    assert_eq!(line.idempotency_key, correction_entry(user, "u", dec!(10.00), dec!(4), 9).unwrap().idempotency_key);
    assert_eq!(opening_entry(user, "u", dec!(3), dec!(3), 0), None);
}

#[test]
fn withdraws_come_over_processed_or_not() {
    let mapped = mapped();
    let withdraw = &mapped.withdraws[0];
    assert_eq!(withdraw.uid, user_id("driver1"));
    assert_eq!(withdraw.amount, dec!(20));
    assert!(withdraw.processed);
    assert_eq!(withdraw.procesDate, Some(1_700_000_500_000));
}

#[test]
fn nodes_without_a_wayfare_entity_are_kept_and_credentials_left_out() {
    let mapped = mapped();
    assert_eq!(counts(&mapped, "usedreferral"), (1, 0, 1, 0));
    assert_eq!(counts(&mapped, "smtpdata"), (1, 0, 0, 1));
    assert!(mapped.records.iter().all(|record| record.node != "smtpdata"));
}

#[test]
fn files_are_listed_for_the_fields_that_point_at_them_and_set_once_copied() {
    let mut mapped = mapped();
    let profile = mapped.files.iter().find(|file| file.path == "users/driver1/profileImage").unwrap().clone();
    assert_eq!(profile.target, FileTarget::ProfileImage(user_id("driver1")));
    assert_eq!(profile.target.folder(), format!("users/{}/profileImage", user_id("driver1")));
    mapped.set_file_urls(&[(profile.target, "/api/v1/files/x".into())]);
    assert_eq!(user(&mapped, "driver1").profile_image.as_deref(), Some("/api/v1/files/x"));
}

#[test]
fn the_same_export_maps_to_the_same_records() {
    let (first, second) = (mapped(), mapped());
    assert_eq!(first.users, second.users);
    assert_eq!(first.bookings, second.bookings);
    assert_eq!(first.ledger, second.ledger);
    assert_eq!(first.chats, second.chats);
    assert_eq!(first.report, second.report);
}

#[test]
fn an_export_that_is_not_an_object_is_reported() {
    let mapped = map_export(&json!([1, 2]), options(), &Existing::default());
    assert!(mapped.users.is_empty());
    assert_eq!(mapped.report.malformed.len(), 1);
}
