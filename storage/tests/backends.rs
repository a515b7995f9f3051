//! The storage suite, written once and run against both backends (see
//! `support/mod.rs`): SQLite always, PostgreSQL when
//! `WAYFARE_TEST_POSTGRES_URL` is set.

// The full booking is written as one `json!` literal.
#![recursion_limit = "256"]

mod support;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use support::Fixture;
use uuid::Uuid;
use wayfare_engine::booking::{Effect, NoticeKey, WalletChange, WithdrawReason};
use wayfare_engine::dispatch::{DispatchEntry, DispatchLog};
use wayfare_engine::earnings;
use wayfare_engine::sos::{self, SosAlert, SosRaiser, SosState};
use wayfare_engine::{
    AmountType, Booking, BookingId, BookingStatus, CancelSlab, CarType, CarTypeId, ChatMessage, DeviceTarget,
    EarningsInput, EarningsReportRow, EarningsRow, Language, LanguageId, LatLng, Millis, Notification, NotificationId,
    PaymentProvider, Place, PricedChoice, Promo, PromoId, RatingDetail, Ratings, RegType, Role, SavedAddress, Settings,
    SosId, TrackingPoint, User, UserId, UserLang, UserPlatform, UserTarget, WalletEntryType, WithdrawId,
    WithdrawRequest,
};
use wayfare_storage::{
    Accounts, Backend, BookingFilter, BookingSort, Challenge, DashboardScope, EarningsScope, FileRecord, OAuthAttempt,
    PageRequest, PaymentOrder, PaymentRecord, PaymentStatus, PushFilter, Session, SortOrder, SosFilter, Storage,
    StorageError, UserFilter, UserIdentity,
};

backend_suite!(
    settings_are_one_row_that_round_trips,
    car_types_round_trip_and_names_are_unique,
    cancel_reasons_and_payment_providers_keep_their_order,
    payment_gateway_settings_are_saved_with_their_change_log,
    users_round_trip_with_the_spec_field_names,
    taken_email_mobile_and_referral_are_duplicates,
    the_wallet_balance_only_comes_from_the_ledger,
    a_user_update_from_a_stale_copy_keeps_the_online_flag_and_queue,
    user_edits_and_booking_commits_never_undo_each_other,
    users_are_listed_by_role_fleet_approval_and_search,
    push_targets_are_paged_by_id_and_filtered,
    online_drivers_come_back_with_their_latest_location,
    a_batch_of_positions_larger_than_a_chunk_is_written_among_other_writes,
    bookings_round_trip_with_the_spec_field_names,
    a_booking_version_conflict_is_reported_and_writes_nothing,
    two_writers_from_the_same_version_one_wins_the_other_conflicts,
    a_driver_takes_one_trip_at_a_time_whichever_accept_commits_first,
    a_commit_carries_out_the_persistent_effects_once,
    a_new_booking_is_stored_before_its_own_effects,
    the_ledger_balance_is_the_sum_of_its_entries,
    a_duplicate_idempotency_key_changes_nothing,
    fifty_concurrent_credits_on_one_user_all_count,
    withdraws_debit_the_wallet_and_complete_once,
    a_debit_never_overdraws_unless_it_may,
    concurrent_withdraws_never_take_more_than_the_balance,
    a_booking_commit_whose_wallet_debit_cannot_be_paid_writes_nothing,
    bookings_pages_cover_every_row_once_in_order_for_each_sort,
    other_lists_page_newest_first,
    a_cursor_that_is_not_ours_is_invalid,
    bookings_are_scoped_by_customer_driver_fleet_and_status,
    search_matches_word_starts_of_reference_names_and_addresses,
    searches_of_every_frequency_page_in_order,
    bookings_offered_to_a_driver_follow_requested_drivers,
    active_bookings_are_all_but_complete_and_cancelled,
    earnings_match_a_hand_computed_case,
    earnings_in_sql_match_the_engine,
    the_earnings_rollup_follows_committed_bookings,
    the_dashboard_sums_follow_committed_bookings_as_the_engine_counts,
    the_dashboard_rollup_is_rebuilt_from_imported_bookings,
    tracking_points_append_and_read_latest_and_in_order,
    a_bookings_dispatch_timeline_reads_back_in_order_and_alone,
    chat_messages_are_marked_read_once,
    promos_round_trip_and_count_their_users,
    notifications_round_trip,
    exactly_one_language_is_the_default,
    concurrent_make_default_leaves_exactly_one_default,
    files_metadata_round_trips,
    payments_round_trip_and_settle_once,
    sign_in_challenges_count_attempts_and_are_consumed_once,
    sessions_are_found_by_token_hash_and_revoked,
    oauth_attempts_are_taken_once_with_their_state_before_they_expire,
    identities_link_one_person_to_one_user,
    the_audit_finds_what_a_crash_must_never_leave,
    a_lease_changes_hands_only_once_it_lapsed,
    of_many_nodes_taking_one_free_lease_at_once_one_wins,
    a_dead_node_is_buried_once_and_only_while_its_heartbeat_is_lapsed,
    an_sos_is_stored_once_per_raiser_while_open,
    sos_alerts_list_open_first_newest_first_by_fleet,
    an_sos_step_is_written_only_from_the_state_it_was_decided_on,
);

// ---- data -------------------------------------------------------------------

const NOW: Millis = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/// Milliseconds of a UTC wall-clock time (days from civil, H. Hinnant).
fn utc(year: i64, month: i64, day: i64, hour: i64, minute: i64) -> Millis {
    let year_of_era = if month <= 2 { year - 1 } else { year };
    let era = year_of_era.div_euclid(400);
    let yoe = year_of_era - era * 400;
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 24 + hour) * 60 + minute) * 60_000
}

fn json_of<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("serialisable")
}

fn user(number: u128, role: Role) -> User {
    let mut user = User::new(UserId::from_u128(0x1000_0000 + number), role, NOW - number as i64 * 1_000);
    user.firstName = format!("First{number}");
    user.lastName = format!("Last{number}");
    user.email = format!("user{number}@wayfare.test");
    user.mobile = format!("+1 410-555-{:04}", number);
    user.referralId = format!("R{number:04}");
    user.approved = true;
    user
}

fn rider(number: u128) -> User {
    user(number, Role::Rider)
}

fn driver(number: u128, fleetadmin: Option<UserId>) -> User {
    let mut driver = user(number, Role::Driver);
    driver.fleetadmin = fleetadmin;
    driver.carType = Some("Sedan".into());
    driver.vehicleNumber = format!("MD-{number:03}");
    driver
}

fn booking(number: u128, customer: &User, status: BookingStatus, tripdate: Millis) -> Booking {
    let mut booking: Booking = serde_json::from_value(json!({
        "id": BookingId::from_u128(0xB000_0000 + number),
        "reference": reference(number),
        "appcat": "taxi",
        "carType": "Sedan",
        "customer": customer.id,
        "customer_name": customer.full_name(),
        "pickup": {"lat": 39.2858, "lng": -76.6131, "add": "100 Light St, Baltimore"},
        "drop": {"lat": 39.2634, "lng": -76.5797, "add": "2400 E Fort Ave, Baltimore"},
        "pickupAddress": "100 Light St, Baltimore",
        "dropAddress": "2400 E Fort Ave, Baltimore",
        "estimate": 12.5,
        "estimateDistance": 3.8,
        "estimateTime": 900,
        "status": status,
        "bookLater": false,
        "tripdate": tripdate,
        "bookingDate": tripdate - 600_000,
        "trip_cost": 12.5,
        "convenience_fees": 1.25,
        "driver_share": 10,
        "payableAmount": 12.5
    }))
    .expect("a valid booking");
    booking.customer_email = customer.email.clone();
    booking.customer_contact = customer.mobile.clone();
    booking
}

fn reference(number: u128) -> String {
    let mut value = number;
    (0..6)
        .map(|_| {
            let letter = char::from(b'A' + (value % 26) as u8);
            value /= 26;
            letter
        })
        .collect()
}

fn assign(booking: &mut Booking, driver: &User) {
    booking.driver = Some(driver.id);
    booking.driver_name = driver.full_name();
    booking.vehicle_number = driver.vehicleNumber.clone();
    booking.fleetadmin = driver.fleetadmin;
}

fn credit(user: UserId, amount: Decimal, key: &str) -> WalletChange {
    WalletChange {
        user,
        entry_type: WalletEntryType::Credit,
        amount,
        tx_ref: "AdminCredit".into(),
        idempotency_key: key.into(),
        overdraw: false,
    }
}

fn withdraw_of(user: &User, number: u128, amount: Decimal) -> (WithdrawRequest, WalletChange) {
    let request = WithdrawRequest {
        id: WithdrawId::from_u128(number),
        uid: user.id,
        name: user.full_name(),
        amount,
        date: NOW,
        bankName: String::new(),
        bankCode: String::new(),
        bankAccount: String::new(),
        processed: false,
        procesDate: None,
    };
    let change = WalletChange {
        entry_type: WalletEntryType::Withdraw,
        tx_ref: request.id.to_string(),
        ..debit(user.id, amount, &format!("withdraw:{number}"))
    };
    (request, change)
}

fn debit(user: UserId, amount: Decimal, key: &str) -> WalletChange {
    WalletChange { entry_type: WalletEntryType::Debit, tx_ref: "WalletPayment".into(), ..credit(user, amount, key) }
}

async fn insert_users(fixture: &Fixture, users: &[&User]) {
    for user in users {
        fixture.insert_user(user).await.expect("insert user");
    }
}

async fn all_bookings(storage: &dyn Storage, filter: &BookingFilter, page_size: u32) -> Vec<Booking> {
    let mut bookings = Vec::new();
    let mut page = PageRequest::first(page_size);
    loop {
        let result = storage.list_bookings(filter, &page).await.expect("list bookings");
        assert!(result.items.len() <= page_size as usize);
        bookings.extend(result.items);
        match result.next {
            Some(next) => page.after = Some(next),
            None => return bookings,
        }
    }
}

fn ids(bookings: &[Booking]) -> Vec<BookingId> {
    bookings.iter().map(|booking| booking.id).collect()
}

// ---- settings and catalogue ---------------------------------------------------

async fn settings_are_one_row_that_round_trips(fixture: Fixture) {
    assert_eq!(fixture.settings().await.unwrap(), None);
    let mut settings =
        Settings { appName: "Wayfare Baltimore".into(), decimal: 3, bonus: dec!(2.5), ..Settings::default() };
    fixture.save_settings(&settings, NOW).await.unwrap();
    assert_eq!(json_of(&fixture.settings().await.unwrap().unwrap()), json_of(&settings));
    settings.symbol = "€".into();
    settings.swipe_symbol = true;
    fixture.save_settings(&settings, NOW + 1).await.unwrap();
    assert_eq!(json_of(&fixture.settings().await.unwrap().unwrap()), json_of(&settings));
    assert_eq!(fixture.raw_scalar("SELECT COUNT(*) FROM settings").await, 1);
}

fn car_type(number: u128, name: &str) -> CarType {
    CarType {
        id: CarTypeId::from_u128(number),
        name: name.into(),
        image: format!("https://files.test/{name}.png"),
        base_fare: dec!(3.5),
        rate_per_unit_distance: dec!(1.75),
        rate_per_hour: dec!(12),
        min_fare: dec!(8),
        convenience_fees: dec!(10),
        convenience_fee_type: AmountType::Percentage,
        extra_info: "4 seats".into(),
        createdAt: NOW + number as i64,
        parcelTypes: vec![PricedChoice { description: "Small".into(), amount: dec!(2) }],
        options: vec![PricedChoice { description: "Fragile".into(), amount: dec!(1.5) }],
        cancelSlab: vec![
            CancelSlab { minsDelayed: 5, amount: dec!(2) },
            CancelSlab { minsDelayed: 10, amount: dec!(4) },
        ],
        optionRequired: false,
    }
}

async fn car_types_round_trip_and_names_are_unique(fixture: Fixture) {
    let sedan = car_type(1, "Sedan");
    let van = car_type(2, "Van");
    fixture.save_car_type(&sedan, NOW).await.unwrap();
    fixture.save_car_type(&van, NOW).await.unwrap();
    assert_eq!(json_of(&fixture.car_type(sedan.id).await.unwrap()), json_of(&sedan));
    assert_eq!(fixture.car_type_by_name("Van").await.unwrap().id, van.id);
    assert_eq!(fixture.car_types().await.unwrap().iter().map(|car| car.id).collect::<Vec<_>>(), [sedan.id, van.id]);

    let taken = CarType { name: "Sedan".into(), ..car_type(3, "x") };
    assert!(matches!(fixture.save_car_type(&taken, NOW).await, Err(StorageError::Duplicate("name"))));
    let renamed = CarType { rate_per_hour: dec!(15), name: "Minivan".into(), ..van.clone() };
    fixture.save_car_type(&renamed, NOW).await.unwrap();
    assert_eq!(json_of(&fixture.car_type(van.id).await.unwrap()), json_of(&renamed));
    assert!(matches!(fixture.car_type_by_name("Van").await, Err(StorageError::NotFound)));

    fixture.delete_car_type(sedan.id).await.unwrap();
    assert!(matches!(fixture.car_type(sedan.id).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.delete_car_type(sedan.id).await, Err(StorageError::NotFound)));
}

async fn cancel_reasons_and_payment_providers_keep_their_order(fixture: Fixture) {
    assert!(fixture.cancel_reasons().await.unwrap().is_empty());
    let reasons: Vec<String> = ["Driver is late", "Changed my mind", "Wrong pickup"].map(String::from).to_vec();
    fixture.save_cancel_reasons(&reasons, NOW).await.unwrap();
    assert_eq!(fixture.cancel_reasons().await.unwrap(), reasons);
    fixture.save_cancel_reasons(&reasons[1..], NOW).await.unwrap();
    assert_eq!(fixture.cancel_reasons().await.unwrap(), reasons[1..]);

    let providers = vec![
        PaymentProvider { name: "test".into(), link: "/api/v1/payments/test".into() },
        PaymentProvider { name: "stripe".into(), link: "https://pay.test/stripe".into() },
    ];
    fixture.save_payment_providers(&providers, NOW).await.unwrap();
    assert_eq!(fixture.payment_providers().await.unwrap(), providers);
}

async fn payment_gateway_settings_are_saved_with_their_change_log(fixture: Fixture) {
    use wayfare_storage::{GatewayChange, StoredGateway};
    let admin = user(1, Role::Admin);
    insert_users(&fixture, &[&admin]).await;
    assert!(fixture.payment_gateways().await.unwrap().is_empty());
    assert_eq!(fixture.payment_gateway("razorpay").await.unwrap(), None);
    let mut razorpay = StoredGateway {
        name: "razorpay".into(),
        active: true,
        testing: true,
        fields: [("KEY_ID".to_string(), "rzp_test_1".to_string()), ("KEY_SECRET".into(), "v1:sealed".into())].into(),
        updated_by: Some(admin.id),
        updated_at: NOW,
    };
    let change = |number: u128, at: Millis, changed: &[&str]| GatewayChange {
        id: Uuid::from_u128(number),
        gateway: "razorpay".into(),
        changed_by: Some(admin.id),
        changed_at: at,
        changed: changed.iter().map(|name| name.to_string()).collect(),
    };
    fixture.save_payment_gateway(&razorpay, &change(1, NOW, &["active", "KEY_ID", "KEY_SECRET"])).await.unwrap();
    assert_eq!(fixture.payment_gateway("razorpay").await.unwrap().as_ref(), Some(&razorpay));
    razorpay.testing = false;
    razorpay.updated_at = NOW + 10;
    fixture.save_payment_gateway(&razorpay, &change(2, NOW + 10, &["testing"])).await.unwrap();
    let paystack =
        StoredGateway { name: "paystack".into(), active: false, fields: Default::default(), ..razorpay.clone() };
    let mut other = change(3, NOW + 20, &["active"]);
    other.gateway = "paystack".into();
    fixture.save_payment_gateway(&paystack, &other).await.unwrap();
    let names: Vec<String> =
        fixture.payment_gateways().await.unwrap().into_iter().map(|gateway| gateway.name).collect();
    assert_eq!(names, ["paystack", "razorpay"]);
    assert_eq!(fixture.payment_gateway("razorpay").await.unwrap(), Some(razorpay));

    let first =
        fixture.payment_gateway_changes(Some("razorpay"), &PageRequest { limit: 1, after: None }).await.unwrap();
    assert_eq!(first.items, vec![change(2, NOW + 10, &["testing"])]);
    let rest = fixture.payment_gateway_changes(Some("razorpay"), &PageRequest { limit: 1, after: first.next }).await;
    assert_eq!(rest.unwrap().items, vec![change(1, NOW, &["active", "KEY_ID", "KEY_SECRET"])]);
    let all = fixture.payment_gateway_changes(None, &PageRequest { limit: 10, after: None }).await.unwrap();
    assert_eq!(all.items.iter().map(|change| change.id.as_u128()).collect::<Vec<_>>(), [3, 2, 1]);
}

// ---- users --------------------------------------------------------------------

fn full_driver() -> User {
    let fleet = UserId::from_u128(0xF1EE7);
    let mut driver = driver(7, Some(fleet));
    driver.regType = RegType::Email;
    driver.signupViaReferral = Some("ABCDE".into());
    driver.profile_image = Some("https://files.test/profile.jpg".into());
    driver.licenseImage = Some("https://files.test/license.jpg".into());
    driver.pushToken = Some("push-token-7".into());
    driver.userPlatform = UserPlatform::Android;
    driver.lang = Some(UserLang { langLocale: "fr".into(), dateLocale: "fr-ca".into() });
    driver.bankName = "First Bank".into();
    driver.bankCode = "021000021".into();
    driver.bankAccount = "123456789".into();
    driver.ratings = Some(Ratings {
        userrating: dec!(4.5),
        details: vec![
            RatingDetail { user: UserId::from_u128(1), rate: 5 },
            RatingDetail { user: UserId::from_u128(2), rate: 4 },
        ],
    });
    driver.savedAddresses =
        vec![SavedAddress { description: "Home, 1 Main St".into(), lat: 39.29, lng: -76.61, count: 3 }];
    driver.location = Some(LatLng::new(39.2904, -76.6122));
    driver.vehicleMake = "Toyota".into();
    driver.vehicleModel = "Prius".into();
    driver.other_info = "Child seat".into();
    driver.driverActiveStatus = true;
    driver.queue = true;
    driver
}

async fn users_round_trip_with_the_spec_field_names(fixture: Fixture) {
    let driver = full_driver();
    fixture.insert_user(&driver).await.unwrap();
    let stored = fixture.user(driver.id).await.unwrap();
    assert_eq!(json_of(&stored), json_of(&driver));
    let document = json_of(&stored);
    for field in [
        "createdAt",
        "usertype",
        "firstName",
        "referralId",
        "walletBalance",
        "pushToken",
        "userPlatform",
        "savedAddresses",
        "driverActiveStatus",
        "vehicleNumber",
    ] {
        assert!(document.get(field).is_some(), "{field}");
    }
    assert_eq!(fixture.user_by_email(&driver.email).await.unwrap().unwrap().id, driver.id);
    assert_eq!(fixture.user_by_mobile(&driver.mobile).await.unwrap().unwrap().id, driver.id);
    assert_eq!(fixture.user_by_referral(&driver.referralId).await.unwrap().unwrap().id, driver.id);
    assert_eq!(fixture.user_by_email("nobody@wayfare.test").await.unwrap(), None);
    assert_eq!(fixture.ratings(driver.id).await.unwrap(), driver.ratings);
    // Several by id: those that exist, as stored.
    let other = rider(77);
    fixture.insert_user(&other).await.unwrap();
    let found = fixture.users_by_id(&[UserId::from_u128(404), other.id, driver.id]).await.unwrap();
    let mut expected = vec![json_of(&stored), json_of(&fixture.user(other.id).await.unwrap())];
    expected.sort_by_key(|user| user["id"].as_str().unwrap_or_default().to_string());
    assert_eq!(found.iter().map(json_of).collect::<Vec<_>>(), expected);
    assert!(fixture.users_by_id(&[]).await.unwrap().is_empty());

    let mut edited = driver.clone();
    edited.firstName = "Renamed".into();
    edited.email = "renamed@wayfare.test".into();
    edited.location = None;
    edited.approved = false;
    fixture.update_user(&edited, NOW + 5).await.unwrap();
    assert_eq!(json_of(&fixture.user(driver.id).await.unwrap()), json_of(&edited));
    assert_eq!(fixture.user_by_email(&driver.email).await.unwrap(), None);

    fixture.delete_user(driver.id).await.unwrap();
    assert!(matches!(fixture.user(driver.id).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.update_user(&edited, NOW).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.delete_user(driver.id).await, Err(StorageError::NotFound)));
}

async fn a_user_update_from_a_stale_copy_keeps_the_online_flag_and_queue(fixture: Fixture) {
    let driver = driver(1, None);
    insert_users(&fixture, &[&driver]).await;
    // A profile edit read the driver, then the driver went online and was assigned a trip.
    let stale = fixture.user(driver.id).await.unwrap();
    assert!(!stale.queue);
    fixture.set_driver_active(driver.id, true, NOW + 1).await.unwrap();
    fixture.set_queue(driver.id, true, NOW + 2).await.unwrap();
    let edited = User { firstName: "Renamed".into(), ..stale };
    fixture.update_user(&edited, NOW + 3).await.unwrap();
    let stored = fixture.user(driver.id).await.unwrap();
    assert_eq!((stored.firstName.as_str(), stored.driverActiveStatus, stored.queue), ("Renamed", true, true));
    // And the other way round: a copy that says online and busy does not make it so.
    fixture.set_queue(driver.id, false, NOW + 4).await.unwrap();
    fixture.set_driver_active(driver.id, false, NOW + 5).await.unwrap();
    fixture.update_user(&User { lastName: "Again".into(), ..stored }, NOW + 6).await.unwrap();
    let stored = fixture.user(driver.id).await.unwrap();
    assert_eq!((stored.lastName.as_str(), stored.driverActiveStatus, stored.queue), ("Again", false, false));
}

async fn user_edits_and_booking_commits_never_undo_each_other(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let name = customer.firstName.clone();
    let mut tasks = Vec::new();
    for index in 0..12 {
        let storage = fixture.storage.clone();
        tasks.push(tokio::spawn(async move {
            let mut edit = |user: &mut User| {
                user.firstName.push('x');
                true
            };
            storage.modify_user(customer.id, NOW + index, &mut edit).await.map(|user| user.is_some())
        }));
    }
    // Meanwhile four bookings of the same rider each save their drop address.
    let mut commits = Vec::new();
    for number in 1..=4 {
        let storage = fixture.storage.clone();
        let booking = booking(number, &customer, BookingStatus::New, NOW);
        let place = Place { lat: 39.26 + number as f64 / 100.0, lng: -76.58, add: format!("{number} Fort Ave") };
        commits.push(tokio::spawn(async move {
            let effects = [Effect::SaveAddress { customer: booking.customer, place }];
            storage.commit_booking(&booking, None, &effects, NOW).await.map(|_| ())
        }));
    }
    for task in tasks {
        assert!(task.await.unwrap().unwrap());
    }
    for commit in commits {
        commit.await.unwrap().unwrap();
    }
    let stored = fixture.user(customer.id).await.unwrap();
    assert_eq!(stored.firstName, format!("{name}{}", "x".repeat(12)), "every edit counted");
    assert_eq!(stored.savedAddresses.len(), 4, "no edit wrote back a copy without the addresses");

    // An edit that declines writes nothing; an unknown user is not found.
    let mut decline = |user: &mut User| {
        user.lastName = "Never".into();
        false
    };
    assert!(fixture.modify_user(customer.id, NOW + 20, &mut decline).await.unwrap().is_none());
    assert_ne!(fixture.user(customer.id).await.unwrap().lastName, "Never");
    let nobody = fixture.modify_user(UserId::from_u128(404), NOW, &mut |_: &mut User| true).await;
    assert!(matches!(nobody, Err(StorageError::NotFound)));
}

async fn taken_email_mobile_and_referral_are_duplicates(fixture: Fixture) {
    let first = rider(1);
    fixture.insert_user(&first).await.unwrap();
    let same_email = User { email: first.email.clone(), ..rider(2) };
    let same_mobile = User { mobile: first.mobile.clone(), ..rider(3) };
    let same_referral = User { referralId: first.referralId.clone(), ..rider(4) };
    assert!(matches!(fixture.insert_user(&same_email).await, Err(StorageError::Duplicate("email"))));
    assert!(matches!(fixture.insert_user(&same_mobile).await, Err(StorageError::Duplicate("mobile"))));
    assert!(matches!(fixture.insert_user(&same_referral).await, Err(StorageError::Duplicate("referral"))));
    // Empty values are not unique: many users sign up without an e-mail.
    let no_email = User { email: String::new(), referralId: String::new(), ..rider(5) };
    let no_email_either = User { email: String::new(), referralId: String::new(), ..rider(6) };
    fixture.insert_user(&no_email).await.unwrap();
    fixture.insert_user(&no_email_either).await.unwrap();
    assert_eq!(fixture.user_by_email("").await.unwrap(), None);
    // An update that takes someone else's mobile is refused too.
    let stealing = User { mobile: first.mobile.clone(), ..no_email.clone() };
    assert!(matches!(fixture.update_user(&stealing, NOW).await, Err(StorageError::Duplicate("mobile"))));
    // And an existing id.
    assert!(matches!(fixture.insert_user(&first).await, Err(StorageError::Duplicate(_))));
}

async fn the_wallet_balance_only_comes_from_the_ledger(fixture: Fixture) {
    let rider = User { walletBalance: dec!(50), ..rider(1) };
    fixture.insert_user(&rider).await.unwrap();
    assert_eq!(fixture.user(rider.id).await.unwrap().walletBalance, Decimal::ZERO);
    fixture.apply_wallet(&credit(rider.id, dec!(7.25), "topup-1"), NOW).await.unwrap();
    let edited = User { walletBalance: dec!(999), firstName: "Edited".into(), ..rider.clone() };
    fixture.update_user(&edited, NOW).await.unwrap();
    let stored = fixture.user(rider.id).await.unwrap();
    assert_eq!((stored.walletBalance, stored.firstName.as_str()), (dec!(7.25), "Edited"));
    assert_eq!(fixture.wallet_balance(rider.id).await.unwrap(), dec!(7.25));
}

async fn users_are_listed_by_role_fleet_approval_and_search(fixture: Fixture) {
    let fleet = user(100, Role::Fleetadmin);
    let admin = user(101, Role::Admin);
    let mut riders: Vec<User> = (1..=7).map(rider).collect();
    riders[2].firstName = "Zelda".into();
    riders[2].lastName = "Fitzgerald".into();
    let mut drivers: Vec<User> =
        (20..=25).map(|number| driver(number, if number % 2 == 0 { Some(fleet.id) } else { None })).collect();
    drivers[1].approved = false;
    insert_users(&fixture, &[&fleet, &admin]).await;
    insert_users(&fixture, &riders.iter().collect::<Vec<_>>()).await;
    insert_users(&fixture, &drivers.iter().collect::<Vec<_>>()).await;

    let list = |filter: UserFilter, page_size: u32| {
        let storage = fixture.storage.clone();
        async move {
            let mut users = Vec::new();
            let mut page = PageRequest::first(page_size);
            loop {
                let result = storage.list_users(&filter, &page).await.unwrap();
                users.extend(result.items.into_iter().map(|user| user.id));
                match result.next {
                    Some(next) => page.after = Some(next),
                    None => return users,
                }
            }
        }
    };
    // Newest first: a smaller number was created later.
    let mut expected_riders: Vec<&User> = riders.iter().collect();
    expected_riders.sort_by_key(|user| (std::cmp::Reverse(user.createdAt), std::cmp::Reverse(user.id)));
    let rider_ids: Vec<UserId> = expected_riders.iter().map(|user| user.id).collect();
    assert_eq!(list(UserFilter { roles: vec![Role::Rider], ..UserFilter::default() }, 3).await, rider_ids);
    let everyone_but_admins =
        list(UserFilter { roles: vec![Role::Rider, Role::Driver, Role::Fleetadmin], ..UserFilter::default() }, 4).await;
    assert_eq!(everyone_but_admins.len(), 7 + 6 + 1);
    assert!(!everyone_but_admins.contains(&admin.id));
    assert_eq!(list(UserFilter::default(), 50).await.len(), 15);

    let fleet_drivers = list(UserFilter { fleetadmin: Some(fleet.id), ..UserFilter::default() }, 2).await;
    assert_eq!(
        fleet_drivers.iter().collect::<BTreeSet<_>>(),
        drivers.iter().filter(|d| d.fleetadmin == Some(fleet.id)).map(|d| &d.id).collect()
    );
    let unapproved =
        list(UserFilter { roles: vec![Role::Driver], approved: Some(false), ..UserFilter::default() }, 10).await;
    assert_eq!(unapproved, [drivers[1].id]);

    let search = |text: &str| UserFilter { search: Some(text.into()), ..UserFilter::default() };
    assert_eq!(list(search("zel fitz"), 10).await, [riders[2].id]);
    assert_eq!(list(search("user21@wayfare"), 10).await, [drivers[1].id]);
    assert_eq!(list(search("+14105550003"), 10).await, [riders[2].id]);
    assert_eq!(list(search("555-0004"), 10).await, [riders[3].id]);
    assert!(list(search("nobody"), 10).await.is_empty());
}

async fn push_targets_are_paged_by_id_and_filtered(fixture: Fixture) {
    let mut users: Vec<User> = (1..=6).map(rider).collect();
    users.extend((10..=13).map(|number| driver(number, None)));
    for (index, user) in users.iter_mut().enumerate() {
        user.userPlatform = if index % 2 == 0 { UserPlatform::Ios } else { UserPlatform::Android };
        user.pushToken = Some(format!("token-{index}"));
        user.lang = Some(UserLang { langLocale: "en".into(), dateLocale: "en-gb".into() });
    }
    insert_users(&fixture, &users.iter().collect::<Vec<_>>()).await;
    let filter = PushFilter { roles: vec![Role::Rider], platforms: vec![UserPlatform::Ios] };
    let mut targets = Vec::new();
    let mut page = PageRequest::first(2);
    loop {
        let result = fixture.push_targets(&filter, &page).await.unwrap();
        targets.extend(result.items);
        match result.next {
            Some(next) => page.after = Some(next),
            None => break,
        }
    }
    let expected: Vec<UserId> = users[..6].iter().step_by(2).map(|user| user.id).collect();
    assert_eq!(targets.iter().map(|target| target.user).collect::<Vec<_>>(), expected);
    assert!(targets.iter().all(|target| target.platform == UserPlatform::Ios && target.role == Role::Rider));
    assert_eq!(targets[0].push_token.as_deref(), Some("token-0"));
    assert_eq!(targets[0].language.as_deref(), Some("en"));
    let everyone = fixture.push_targets(&PushFilter::default(), &PageRequest::first(100)).await.unwrap();
    assert_eq!((everyone.items.len(), everyone.next), (10, None));
}

async fn online_drivers_come_back_with_their_latest_location(fixture: Fixture) {
    let drivers: Vec<User> = (1..=4).map(|number| driver(number, None)).collect();
    insert_users(&fixture, &drivers.iter().collect::<Vec<_>>()).await;
    assert!(fixture.online_drivers().await.unwrap().is_empty());
    fixture.set_driver_active(drivers[0].id, true, NOW).await.unwrap();
    fixture.set_driver_active(drivers[1].id, true, NOW).await.unwrap();
    fixture.set_driver_active(drivers[2].id, true, NOW).await.unwrap();
    fixture.set_driver_active(drivers[2].id, false, NOW).await.unwrap();
    // The second has no location yet, so the index cannot place it.
    fixture
        .save_locations(&[(drivers[0].id, LatLng::new(39.30, -76.60)), (drivers[2].id, LatLng::new(39.1, -76.5))], NOW)
        .await
        .unwrap();
    fixture.save_locations(&[(drivers[0].id, LatLng::new(39.31, -76.61))], NOW + 1).await.unwrap();
    fixture.set_queue(drivers[0].id, true, NOW).await.unwrap();
    let online = fixture.online_drivers().await.unwrap();
    assert_eq!(online.len(), 1);
    assert_eq!(online[0].id, drivers[0].id);
    assert_eq!(online[0].location, Some(LatLng::new(39.31, -76.61)));
    assert!(online[0].driverActiveStatus && online[0].queue);
    assert!(matches!(fixture.set_queue(UserId::from_u128(404), true, NOW).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.set_driver_active(UserId::from_u128(404), true, NOW).await, Err(StorageError::NotFound)));
}

/// `save_locations` writes in chunks, each its own transaction, taking turns
/// with the other writers: every position lands, and the writes in between
/// all go through.
async fn a_batch_of_positions_larger_than_a_chunk_is_written_among_other_writes(fixture: Fixture) {
    let drivers: Vec<User> = (1..=450).map(|number| driver(number, None)).collect();
    insert_users(&fixture, &drivers.iter().collect::<Vec<_>>()).await;
    for driver in &drivers {
        fixture.set_driver_active(driver.id, true, NOW).await.unwrap();
    }
    let position = |index: usize, round: u32| LatLng::new(39.2 + index as f64 * 1e-4, -76.6 + f64::from(round) * 1e-3);
    let first: Vec<(UserId, LatLng)> =
        drivers.iter().enumerate().map(|(index, driver)| (driver.id, position(index, 1))).collect();
    let second: Vec<(UserId, LatLng)> =
        drivers.iter().enumerate().map(|(index, driver)| (driver.id, position(index, 2))).collect();
    fixture.save_locations(&first, NOW).await.unwrap();
    let busy = async {
        let mut results = Vec::new();
        for driver in drivers.iter().take(40) {
            results.push(fixture.set_queue(driver.id, true, NOW + 1).await);
        }
        results
    };
    let (saved, queued) = tokio::join!(fixture.save_locations(&second, NOW + 1), busy);
    saved.unwrap();
    assert!(queued.iter().all(Result::is_ok), "{queued:?}");
    let online = fixture.online_drivers().await.unwrap();
    assert_eq!(online.len(), drivers.len());
    let by_id: BTreeMap<UserId, &User> = online.iter().map(|user| (user.id, user)).collect();
    for (index, driver) in drivers.iter().enumerate() {
        let found = by_id[&driver.id];
        assert_eq!(found.location, Some(position(index, 2)), "driver {index}");
        assert_eq!(found.queue, index < 40, "driver {index}");
    }
}

// ---- bookings -------------------------------------------------------------------

fn full_booking(customer: &User, driver: &User) -> Booking {
    let mut booking = booking(1, customer, BookingStatus::Paid, utc(2026, 3, 5, 7, 4));
    assign(&mut booking, driver);
    let extra: serde_json::Value = json!({
        "carImage": "https://files.test/sedan.png",
        "customer_token": "token-c",
        "customer_image": "https://files.test/c.jpg",
        "distance": 4.1,
        "otp": 12345,
        "booking_type_admin": true,
        "coords": [{"latitude": 39.28, "longitude": -76.61}, {"latitude": 39.27, "longitude": -76.59}],
        "waypoints": [{"lat": 39.275, "lng": -76.6, "add": "Federal Hill"}],
        "paymentPacket": {
            "appcat": "taxi", "payment_mode": "card", "customer_paid": 12.5, "discount_amount": 0,
            "usedWalletMoney": 0, "cardPaymentAmount": 12.5, "cashPaymentAmount": 0, "payableAmount": 12.5,
            "promo_applied": false, "promo_details": null
        },
        "driver_image": "https://files.test/d.jpg",
        "driver_contact": "+1 410 555 9999",
        "driver_token": "token-d",
        "driverRating": 4.5,
        "discount_amount": 1.5,
        "discount": 1.5,
        "cashPaymentAmount": 0,
        "cardPaymentAmount": 11,
        "usedWalletMoney": 0,
        "customer_paid": 11,
        "cancellationFee": 0,
        "rating": 5,
        "payment_mode": "card",
        "gateway": "test",
        "prepaid": true,
        "promo_applied": true,
        "promo_details": {"promo_name": "SPRING", "promo_discount_type": "flat", "promo_discount_value": 1.5, "max_promo_discount_value": 0},
        "acceptedAt": utc(2026, 3, 5, 7, 0),
        "driver_arrive_time": utc(2026, 3, 5, 7, 3),
        "trip_start_time": utc(2026, 3, 5, 7, 5),
        "startTime": utc(2026, 3, 5, 7, 5),
        "trip_end_time": utc(2026, 3, 5, 7, 20),
        "endTime": utc(2026, 3, 5, 7, 20),
        "total_trip_time": 900,
        "parcelTypeSelected": {"description": "Small", "amount": 2},
        "optionSelected": {"description": "Fragile", "amount": 1.5},
        "parcelTypeIndex": 0,
        "optionIndex": 0,
        "deliveryPerson": "Ann",
        "deliveryPersonPhone": "+1 410 555 0000",
        "pickUpInstructions": "Ring twice",
        "deliveryInstructions": "Leave at door",
        "dispatch": {"wave": 2, "auto": true, "declined": [UserId::from_u128(5)], "expired": [], "deadline": null},
        "timers": {"offer_expiry": null, "dispatch_retry": null, "auto_cancel": {"at": NOW, "generation": 3}, "book_later_dispatch": null, "generation": 3},
        "updatedAt": NOW
    });
    let mut document = json_of(&booking);
    for (key, value) in extra.as_object().unwrap() {
        document[key] = value.clone();
    }
    serde_json::from_value(document).expect("a full booking")
}

async fn bookings_round_trip_with_the_spec_field_names(fixture: Fixture) {
    let customer = rider(1);
    let driver = driver(2, Some(UserId::from_u128(0xF1EE7)));
    insert_users(&fixture, &[&customer, &driver]).await;
    let mut booking = full_booking(&customer, &driver);
    booking.requestedDrivers.0.insert(driver.id);
    let committed = fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    assert_eq!(committed.booking.version, 1);
    let stored = fixture.booking(booking.id).await.unwrap();
    let expected = Booking { version: 1, ..booking.clone() };
    assert_eq!(json_of(&stored), json_of(&expected));
    assert_eq!(stored, expected);
    let document = json_of(&stored);
    for field in [
        "reference",
        "carType",
        "customer_name",
        "pickupAddress",
        "requestedDrivers",
        "driver_share",
        "cancellationFee",
        "paymentPacket",
        "parcelTypeSelected",
        "deliveryPersonPhone",
    ] {
        assert!(document.get(field).is_some(), "{field}");
    }
    assert_eq!(document["requestedDrivers"], json!({ driver.id.to_string(): true }));
    assert_eq!(document["otp"], json!(12345));
    assert!(matches!(fixture.booking(BookingId::from_u128(404)).await, Err(StorageError::NotFound)));
}

async fn a_booking_version_conflict_is_reported_and_writes_nothing(fixture: Fixture) {
    let customer = rider(1);
    let drivers = [driver(10, None), driver(11, None)];
    insert_users(&fixture, &[&customer, &drivers[0], &drivers[1]]).await;
    let mut booking = booking(1, &customer, BookingStatus::New, NOW);
    booking.requestedDrivers.0.insert(drivers[0].id);
    fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    // Inserting the same booking again is someone else having written first,
    // and none of the second copy's offers is written (on SQLite the insert
    // and its offers are one script: the failed statement ends it).
    let mut again = booking.clone();
    again.requestedDrivers.0 = BTreeSet::from([drivers[1].id]);
    assert!(matches!(fixture.commit_booking(&again, None, &[], NOW).await, Err(StorageError::Conflict)));
    assert!(fixture.bookings_offered_to(drivers[1].id).await.unwrap().is_empty());
    assert_eq!(ids(&fixture.bookings_offered_to(drivers[0].id).await.unwrap()), [booking.id]);
    // The failed script left no transaction open: the next booking commits.
    let mut next = self::booking(2, &customer, BookingStatus::New, NOW);
    next.requestedDrivers.0.insert(drivers[1].id);
    fixture.commit_booking(&next, None, &[], NOW).await.unwrap();
    assert_eq!(ids(&fixture.bookings_offered_to(drivers[1].id).await.unwrap()), [next.id]);
    let accepted = Booking { status: BookingStatus::Accepted, ..booking.clone() };
    let second = fixture.commit_booking(&accepted, Some(1), &[], NOW).await.unwrap();
    assert_eq!(second.booking.version, 2);
    // A writer that read version 1 now loses, and its wallet effect is not applied.
    let stale = Booking { status: BookingStatus::Cancelled, ..booking.clone() };
    let refund = Effect::Wallet(credit(customer.id, dec!(5), "refund"));
    assert!(matches!(fixture.commit_booking(&stale, Some(1), &[refund], NOW).await, Err(StorageError::Conflict)));
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), Decimal::ZERO);
    let stored = fixture.booking(booking.id).await.unwrap();
    assert_eq!((stored.version, stored.status), (2, BookingStatus::Accepted));
    let missing = Booking { id: BookingId::from_u128(404), ..booking.clone() };
    assert!(matches!(fixture.commit_booking(&missing, Some(1), &[], NOW).await, Err(StorageError::NotFound)));
}

async fn two_writers_from_the_same_version_one_wins_the_other_conflicts(fixture: Fixture) {
    let customer = rider(1);
    let drivers: Vec<User> = (2..=3).map(|number| driver(number, None)).collect();
    insert_users(&fixture, &[&customer, &drivers[0], &drivers[1]]).await;
    for round in 0..5u128 {
        let mut booking = booking(round, &customer, BookingStatus::New, NOW);
        booking.requestedDrivers.0.extend(drivers.iter().map(|driver| driver.id));
        fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
        let writers: Vec<_> = drivers
            .iter()
            .map(|driver| {
                let mut accepted = Booking { status: BookingStatus::Accepted, ..booking.clone() };
                assign(&mut accepted, driver);
                accepted.requestedDrivers.0.clear();
                let storage = fixture.storage.clone();
                let queue = Effect::SetQueue { driver: driver.id, busy: true };
                tokio::spawn(async move { storage.commit_booking(&accepted, Some(1), &[queue], NOW).await })
            })
            .collect();
        let mut winners = Vec::new();
        let mut conflicts = 0;
        for writer in writers {
            match writer.await.unwrap() {
                Ok(committed) => winners.push(committed.booking),
                Err(StorageError::Conflict) => conflicts += 1,
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!((winners.len(), conflicts), (1, 1), "round {round}");
        let stored = fixture.booking(booking.id).await.unwrap();
        assert_eq!(stored, winners[0]);
        assert_eq!(stored.version, 2);
        let winner = stored.driver.unwrap();
        let loser = drivers.iter().find(|driver| driver.id != winner).unwrap().id;
        assert!(fixture.user(winner).await.unwrap().queue);
        assert!(!fixture.user(loser).await.unwrap().queue, "the loser's effects were rolled back");
        finish(&fixture, &stored).await;
    }
}

/// The trip of `accepted` (as stored) ends, freeing its driver.
async fn finish(fixture: &Fixture, accepted: &Booking) {
    let driver = accepted.driver.expect("an assigned booking");
    let done = Booking { status: BookingStatus::Complete, ..accepted.clone() };
    let free = [Effect::SetQueue { driver, busy: false }];
    fixture.commit_booking(&done, Some(accepted.version), &free, NOW).await.unwrap();
}

async fn a_driver_takes_one_trip_at_a_time_whichever_accept_commits_first(fixture: Fixture) {
    let customer = rider(1);
    let taker = driver(2, None);
    insert_users(&fixture, &[&customer, &taker]).await;
    for round in 0..5u128 {
        // Two bookings offered to one driver, both accepted at once (two
        // nodes, or two taps): the driver's bookings decide, not the order.
        let offered: Vec<Booking> = (0..2u128)
            .map(|number| {
                let mut offered = booking(100 + 2 * round + number, &customer, BookingStatus::New, NOW);
                offered.requestedDrivers.0.insert(taker.id);
                offered
            })
            .collect();
        for booking in &offered {
            fixture.commit_booking(booking, None, &[], NOW).await.unwrap();
        }
        let accepts: Vec<_> = offered
            .iter()
            .map(|booking| {
                let mut accepted = Booking { status: BookingStatus::Accepted, ..booking.clone() };
                assign(&mut accepted, &taker);
                accepted.requestedDrivers.0.clear();
                let storage = fixture.storage.clone();
                let busy = Effect::SetQueue { driver: taker.id, busy: true };
                tokio::spawn(async move { storage.commit_booking(&accepted, Some(1), &[busy], NOW).await })
            })
            .collect();
        let mut won = Vec::new();
        let mut refused = Vec::new();
        for (booking, accept) in offered.iter().zip(accepts) {
            match accept.await.unwrap() {
                Ok(committed) => won.push(committed.booking),
                Err(StorageError::DriverBusy) => refused.push(booking.id),
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!((won.len(), refused.len()), (1, 1), "round {round}");
        let untouched = fixture.booking(refused[0]).await.unwrap();
        assert_eq!(
            (untouched.status, untouched.version),
            (BookingStatus::New, 1),
            "nothing of the refused accept kept"
        );
        assert!(untouched.is_requested(&taker.id), "its offers are as they were");
        assert!(fixture.user(taker.id).await.unwrap().queue);
        let audit = fixture.audit().await.unwrap();
        assert!(audit.is_clean(), "round {round}: {audit:?}");
        finish(&fixture, &won[0]).await;
        assert!(!fixture.user(taker.id).await.unwrap().queue, "free after the trip");
        // The other booking is given up (its offers go with it).
        let mut cancelled = Booking { status: BookingStatus::Cancelled, ..untouched };
        cancelled.requestedDrivers.0.clear();
        fixture.commit_booking(&cancelled, Some(1), &[], NOW).await.unwrap();
    }

    // A flag set around the engine does not strand a free driver: the
    // bookings decide.
    fixture.set_queue(taker.id, true, NOW).await.unwrap();
    let mut next = booking(200, &customer, BookingStatus::New, NOW);
    next.requestedDrivers.0.insert(taker.id);
    fixture.commit_booking(&next, None, &[], NOW).await.unwrap();
    let mut accepted = Booking { status: BookingStatus::Accepted, ..next.clone() };
    assign(&mut accepted, &taker);
    accepted.requestedDrivers.0.clear();
    let busy = [Effect::SetQueue { driver: taker.id, busy: true }];
    let accepted = fixture.commit_booking(&accepted, Some(1), &busy, NOW).await.unwrap().booking;

    // Two trips held at once, written around the engine: ending one keeps
    // the driver busy while the other holds them.
    let mut other = booking(201, &customer, BookingStatus::Arrived, NOW);
    assign(&mut other, &taker);
    fixture.commit_booking(&other, None, &[], NOW).await.unwrap();
    finish(&fixture, &accepted).await;
    assert!(fixture.user(taker.id).await.unwrap().queue, "still held by the other trip");
    let audit = fixture.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
}

async fn a_commit_carries_out_the_persistent_effects_once(fixture: Fixture) {
    let customer = rider(1);
    let driver = driver(2, None);
    insert_users(&fixture, &[&customer, &driver]).await;
    let promo = promo(1, "SPRING");
    fixture.save_promo(&promo, NOW).await.unwrap();
    fixture.apply_wallet(&credit(customer.id, dec!(20), "topup"), NOW).await.unwrap();

    let mut booking = booking(1, &customer, BookingStatus::Reached, NOW);
    assign(&mut booking, &driver);
    fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    let drop = Place { lat: 39.2634, lng: -76.5797, add: "2400 E Fort Ave, Baltimore".into() };
    let effects = vec![
        Effect::Notify { to: customer.id, key: NoticeKey::PaymentReceived },
        Effect::Wallet(debit(customer.id, dec!(12.5), "booking:1:payment")),
        Effect::Wallet(credit(driver.id, dec!(10), "booking:1:share")),
        Effect::Tracking(TrackingPoint { at: NOW, status: BookingStatus::Reached, lat: 39.2634, lng: -76.5797 }),
        Effect::SetQueue { driver: driver.id, busy: false },
        Effect::RecordRating { driver: driver.id, customer: customer.id, rating: 4 },
        Effect::SaveAddress { customer: customer.id, place: drop.clone() },
        Effect::PromoUsed { promo_name: "SPRING".into(), customer: customer.id },
        Effect::RequestDispatch,
    ];
    let paid = Booking { status: BookingStatus::Paid, ..booking.clone() };
    let committed = fixture.commit_booking(&paid, Some(1), &effects, NOW + 1).await.unwrap();
    assert_eq!(committed.booking.version, 2);
    let balances: BTreeMap<UserId, Decimal> = committed.balances.into_iter().collect();
    assert_eq!(balances, BTreeMap::from([(customer.id, dec!(7.5)), (driver.id, dec!(10))]));
    assert_eq!(fixture.tracking(booking.id).await.unwrap().len(), 1);
    let ratings = fixture.ratings(driver.id).await.unwrap().unwrap();
    assert_eq!((ratings.userrating, ratings.details.len()), (dec!(4), 1));
    let stored_customer = fixture.user(customer.id).await.unwrap();
    assert_eq!(stored_customer.savedAddresses.len(), 1);
    assert_eq!(stored_customer.walletBalance, dec!(7.5));
    assert_eq!(fixture.promo(promo.id).await.unwrap().user_avail, 1);
    assert!(fixture.promo_used_by("SPRING", customer.id).await.unwrap());

    // The same transition replayed at the next version: money and the promo
    // count do not move twice; the rating and address are new facts.
    let complete = Booking { status: BookingStatus::Complete, ..paid.clone() };
    let replay = vec![
        Effect::Wallet(debit(customer.id, dec!(12.5), "booking:1:payment")),
        Effect::RecordRating { driver: driver.id, customer: UserId::from_u128(77), rating: 5 },
        Effect::SaveAddress { customer: customer.id, place: Place { lat: 39.2635, ..drop.clone() } },
        Effect::PromoUsed { promo_name: "SPRING".into(), customer: customer.id },
    ];
    let committed = fixture.commit_booking(&complete, Some(2), &replay, NOW + 2).await.unwrap();
    assert!(committed.balances.is_empty());
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(7.5));
    assert_eq!(fixture.promo(promo.id).await.unwrap().user_avail, 1);
    let ratings = fixture.ratings(driver.id).await.unwrap().unwrap();
    assert_eq!((ratings.userrating, ratings.details.len()), (dec!(4.5), 2));
    let saved = fixture.user(customer.id).await.unwrap().savedAddresses;
    assert_eq!((saved.len(), saved[0].count), (1, 2), "a drop within 0.1 km counts up");
    // A wallet effect for a user that does not exist fails the whole commit.
    let orphan = Effect::Wallet(credit(UserId::from_u128(404), dec!(1), "x"));
    let cancelled = Booking { status: BookingStatus::Cancelled, ..complete.clone() };
    assert!(matches!(fixture.commit_booking(&cancelled, Some(3), &[orphan], NOW).await, Err(StorageError::NotFound)));
    assert_eq!(fixture.booking(booking.id).await.unwrap().status, BookingStatus::Complete);
}

/// A booking written for the first time with effects that refer to it (a
/// history seeded in one write per booking): the row comes first.
async fn a_new_booking_is_stored_before_its_own_effects(fixture: Fixture) {
    let customer = rider(1);
    let driver = driver(2, None);
    insert_users(&fixture, &[&customer, &driver]).await;
    fixture.apply_wallet(&credit(customer.id, dec!(20), "topup"), NOW).await.unwrap();
    let mut booking = booking(1, &customer, BookingStatus::Paid, NOW);
    assign(&mut booking, &driver);
    let effects = vec![
        Effect::Tracking(TrackingPoint { at: NOW, status: BookingStatus::Reached, lat: 39.2634, lng: -76.5797 }),
        Effect::Wallet(debit(customer.id, dec!(12.5), &format!("booking:{}:payment", booking.id))),
    ];
    let committed = fixture.commit_booking(&booking, None, &effects, NOW).await.unwrap();
    assert_eq!(committed.booking.version, 1);
    assert_eq!(fixture.tracking(booking.id).await.unwrap().len(), 1);
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(7.5));
    assert_eq!(fixture.booking_ledger(booking.id).await.unwrap().len(), 1);
}

// ---- wallet ----------------------------------------------------------------------

async fn ledger_sum(fixture: &Fixture, user: UserId) -> Decimal {
    let mut sum = Decimal::ZERO;
    let mut page = PageRequest::first(7);
    loop {
        let result = fixture.wallet_history(user, &page).await.unwrap();
        sum += result.items.iter().map(|record| record.entry.entry_type.sign() * record.entry.amount).sum::<Decimal>();
        match result.next {
            Some(next) => page.after = Some(next),
            None => return sum,
        }
    }
}

async fn the_ledger_balance_is_the_sum_of_its_entries(fixture: Fixture) {
    let rider = rider(1);
    insert_users(&fixture, &[&rider]).await;
    let changes = [
        credit(rider.id, dec!(50), "topup-1"),
        debit(rider.id, dec!(12.345), "booking:a:payment"),
        WalletChange { entry_type: WalletEntryType::Withdraw, ..debit(rider.id, dec!(20), "withdraw:1") },
        credit(rider.id, dec!(0.005), "refund"),
    ];
    for (index, change) in changes.iter().enumerate() {
        let outcome = fixture.apply_wallet(change, NOW + index as i64).await.unwrap();
        assert!(outcome.applied);
    }
    assert_eq!(fixture.wallet_balance(rider.id).await.unwrap(), dec!(17.66));
    assert_eq!(ledger_sum(&fixture, rider.id).await, dec!(17.66));
    let history = fixture.wallet_history(rider.id, &PageRequest::first(10)).await.unwrap();
    let newest = &history.items[0];
    assert_eq!(
        (newest.entry.amount, newest.entry.txRef.as_str(), newest.idempotency_key.as_str()),
        (dec!(0.005), "AdminCredit", "refund")
    );
    assert_eq!(
        history.items.iter().map(|record| record.entry.date).collect::<Vec<_>>(),
        [NOW + 3, NOW + 2, NOW + 1, NOW]
    );
    assert_eq!(json_of(&history.items[1])["type"], json!("Withdraw"));
    assert!(matches!(
        fixture.apply_wallet(&credit(UserId::from_u128(404), dec!(1), "k"), NOW).await,
        Err(StorageError::NotFound)
    ));
    assert!(matches!(
        fixture.apply_wallet(&credit(rider.id, dec!(0.0000001), "tiny"), NOW).await,
        Err(StorageError::Invalid("amount"))
    ));
    assert!(matches!(fixture.wallet_balance(UserId::from_u128(404)).await, Err(StorageError::NotFound)));
}

async fn a_duplicate_idempotency_key_changes_nothing(fixture: Fixture) {
    let first = rider(1);
    let second = rider(2);
    insert_users(&fixture, &[&first, &second]).await;
    let change = credit(first.id, dec!(10), "payment:gw-123");
    assert!(fixture.apply_wallet(&change, NOW).await.unwrap().applied);
    let replay = fixture.apply_wallet(&change, NOW + 1).await.unwrap();
    assert_eq!((replay.applied, replay.balance), (false, dec!(10)));
    // Even with another amount: the key decides.
    let different = credit(first.id, dec!(99), "payment:gw-123");
    assert!(!fixture.apply_wallet(&different, NOW + 2).await.unwrap().applied);
    // Keys are per user.
    assert!(fixture.apply_wallet(&credit(second.id, dec!(3), "payment:gw-123"), NOW).await.unwrap().applied);
    assert_eq!(fixture.wallet_balance(first.id).await.unwrap(), dec!(10));
    assert_eq!(fixture.wallet_history(first.id, &PageRequest::first(10)).await.unwrap().items.len(), 1);
    assert_eq!(ledger_sum(&fixture, second.id).await, dec!(3));
}

async fn fifty_concurrent_credits_on_one_user_all_count(fixture: Fixture) {
    let driver = driver(1, None);
    insert_users(&fixture, &[&driver]).await;
    let tasks: Vec<_> = (0..50)
        .map(|index| {
            let storage = fixture.storage.clone();
            let change = credit(driver.id, dec!(1.25), &format!("share-{index}"));
            tokio::spawn(async move { storage.apply_wallet(&change, NOW + index).await })
        })
        .collect();
    for task in tasks {
        assert!(task.await.unwrap().unwrap().applied);
    }
    assert_eq!(fixture.wallet_balance(driver.id).await.unwrap(), dec!(62.5));
    assert_eq!(ledger_sum(&fixture, driver.id).await, dec!(62.5));
    assert_eq!(fixture.raw_scalar("SELECT COUNT(*) FROM wallet_entries").await, 50);
}

async fn withdraws_debit_the_wallet_and_complete_once(fixture: Fixture) {
    let driver = driver(1, None);
    insert_users(&fixture, &[&driver]).await;
    fixture.apply_wallet(&credit(driver.id, dec!(100), "earnings"), NOW).await.unwrap();
    let request = WithdrawRequest {
        id: WithdrawId::from_u128(1),
        uid: driver.id,
        name: driver.full_name(),
        amount: dec!(40),
        date: NOW + 10,
        bankName: "First Bank".into(),
        bankCode: "021".into(),
        bankAccount: "123".into(),
        processed: false,
        procesDate: None,
    };
    let withdraw_debit =
        WalletChange { entry_type: WalletEntryType::Withdraw, ..debit(driver.id, dec!(40), "withdraw:1") };
    let outcome = fixture.create_withdraw(&request, &withdraw_debit, NOW + 10).await.unwrap();
    assert_eq!((outcome.applied, outcome.balance), (true, dec!(60)));
    // A replay stores nothing twice.
    let replay = fixture.create_withdraw(&request, &withdraw_debit, NOW + 11).await.unwrap();
    assert_eq!((replay.applied, replay.balance), (false, dec!(60)));
    let listed = fixture.withdraws(Some(driver.id), &PageRequest::first(10)).await.unwrap();
    assert_eq!(listed.items.len(), 1);
    assert_eq!(json_of(&listed.items[0]), json_of(&request));

    assert_eq!(json_of(&fixture.withdraw(request.id).await.unwrap()), json_of(&request));
    assert!(matches!(fixture.withdraw(WithdrawId::from_u128(404)).await, Err(StorageError::NotFound)));

    let completed = fixture.complete_withdraw(request.id, NOW + 20).await.unwrap();
    assert_eq!((completed.processed, completed.procesDate), (true, Some(NOW + 20)));
    assert_eq!(json_of(&fixture.withdraw(request.id).await.unwrap()), json_of(&completed));
    assert!(matches!(fixture.complete_withdraw(request.id, NOW + 30).await, Err(StorageError::AlreadyProcessed)));
    assert!(matches!(fixture.complete_withdraw(WithdrawId::from_u128(404), NOW).await, Err(StorageError::NotFound)));
    let all = fixture.withdraws(None, &PageRequest::first(10)).await.unwrap();
    assert_eq!((all.items[0].processed, all.items[0].procesDate), (true, Some(NOW + 20)));
    assert_eq!(fixture.wallet_balance(driver.id).await.unwrap(), dec!(60));
}

async fn a_debit_never_overdraws_unless_it_may(fixture: Fixture) {
    let rider = rider(1);
    insert_users(&fixture, &[&rider]).await;
    fixture.apply_wallet(&credit(rider.id, dec!(10), "topup"), NOW).await.unwrap();
    // Exactly the balance is allowed; one micro more is not.
    assert!(matches!(
        fixture.apply_wallet(&debit(rider.id, dec!(10.000001), "too-much"), NOW + 1).await,
        Err(StorageError::InsufficientBalance)
    ));
    assert_eq!(fixture.wallet_balance(rider.id).await.unwrap(), dec!(10));
    assert_eq!(fixture.raw_scalar("SELECT COUNT(*) FROM wallet_entries").await, 1);
    // The refused key was not used up: the same debit goes through once it may.
    let allowed = WalletChange { overdraw: true, ..debit(rider.id, dec!(10.000001), "too-much") };
    let outcome = fixture.apply_wallet(&allowed, NOW + 2).await.unwrap();
    assert_eq!((outcome.applied, outcome.balance), (true, dec!(-0.000001)));
    assert_eq!(ledger_sum(&fixture, rider.id).await, dec!(-0.000001));
    // Credits are never refused, whatever the balance.
    assert!(fixture.apply_wallet(&credit(rider.id, dec!(1), "refund"), NOW + 3).await.unwrap().applied);
    assert!(matches!(
        fixture.apply_wallet(&debit(UserId::from_u128(404), dec!(1), "nobody"), NOW).await,
        Err(StorageError::NotFound)
    ));
}

async fn concurrent_withdraws_never_take_more_than_the_balance(fixture: Fixture) {
    let driver = driver(1, None);
    insert_users(&fixture, &[&driver]).await;
    fixture.apply_wallet(&credit(driver.id, dec!(10), "earnings"), NOW).await.unwrap();
    let tasks: Vec<_> = (1..=8)
        .map(|number| {
            let storage = fixture.storage.clone();
            let (request, change) = withdraw_of(&driver, number, dec!(4));
            tokio::spawn(async move { storage.create_withdraw(&request, &change, NOW + number as i64).await })
        })
        .collect();
    let mut applied = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(outcome) => {
                assert!(outcome.applied && outcome.balance >= Decimal::ZERO, "{outcome:?}");
                applied += 1;
            }
            Err(StorageError::InsufficientBalance) => {}
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(applied, 2);
    assert_eq!(fixture.wallet_balance(driver.id).await.unwrap(), dec!(2));
    assert_eq!(ledger_sum(&fixture, driver.id).await, dec!(2));
    // A refused request left no row behind.
    assert_eq!(fixture.withdraws(Some(driver.id), &PageRequest::first(20)).await.unwrap().items.len(), 2);
}

async fn a_booking_commit_whose_wallet_debit_cannot_be_paid_writes_nothing(fixture: Fixture) {
    let customer = rider(1);
    let driver = driver(2, None);
    insert_users(&fixture, &[&customer, &driver]).await;
    fixture.apply_wallet(&credit(customer.id, dec!(5), "topup"), NOW).await.unwrap();
    let mut booking = booking(1, &customer, BookingStatus::Reached, NOW);
    assign(&mut booking, &driver);
    fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    let effects = vec![
        Effect::Wallet(credit(driver.id, dec!(10), "booking:1:share")),
        Effect::Wallet(debit(customer.id, dec!(12.5), "booking:1:payment")),
    ];
    let paid = Booking { status: BookingStatus::Paid, ..booking.clone() };
    assert!(matches!(
        fixture.commit_booking(&paid, Some(1), &effects, NOW + 1).await,
        Err(StorageError::InsufficientBalance)
    ));
    // Neither the booking nor the driver's share moved.
    let stored = fixture.booking(booking.id).await.unwrap();
    assert_eq!((stored.status, stored.version), (BookingStatus::Reached, 1));
    assert_eq!(fixture.wallet_balance(driver.id).await.unwrap(), Decimal::ZERO);
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(5));
    assert_eq!(fixture.raw_scalar("SELECT COUNT(*) FROM wallet_entries").await, 1);
    // Nothing of it was left open: once the rider can pay, the same commit goes through.
    fixture.apply_wallet(&credit(customer.id, dec!(10), "topup-2"), NOW + 2).await.unwrap();
    let committed = fixture.commit_booking(&paid, Some(1), &effects, NOW + 3).await.unwrap();
    assert_eq!(committed.booking.version, 2);
    assert_eq!(fixture.booking(booking.id).await.unwrap().status, BookingStatus::Paid);
    assert_eq!(fixture.wallet_balance(customer.id).await.unwrap(), dec!(2.5));
    assert_eq!(fixture.wallet_balance(driver.id).await.unwrap(), dec!(10));
}

// ---- pagination ------------------------------------------------------------------

async fn bookings_pages_cover_every_row_once_in_order_for_each_sort(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    // 23 bookings; every sort key repeats, so ties are broken by id, and the
    // names hold non-Latin text, which the text cursors carry as UTF-8.
    let names = ["Zoe Park", "ahmed Ali", "زياد حسن", "Ahmed Ali", "Émile Roy"];
    let statuses = [BookingStatus::Complete, BookingStatus::New, BookingStatus::Cancelled, BookingStatus::Paid];
    let bookings: Vec<Booking> = (0..23u128)
        .map(|number| {
            let mut booking = booking(
                number * 7919 % 1000,
                &customer,
                statuses[number as usize % 4],
                NOW + (number % 5) as i64 * 1000,
            );
            booking.bookingDate = NOW - (number % 3) as i64 * 500;
            booking.customer_name = names[number as usize % 5].to_string();
            booking.driver_name = names[(number as usize + 2) % 5].to_string();
            booking.carType = ["Sedan", "SUV", "Comfort"][number as usize % 3].to_string();
            booking.trip_cost = Decimal::from((number % 6) as i64) + dec!(0.25);
            if number % 7 == 0 {
                booking.reference = reference(1);
            }
            booking
        })
        .collect();
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    // Text compares byte by byte on both backends.
    let key = |booking: &Booking, sort: BookingSort| -> (i64, Vec<u8>) {
        match sort {
            BookingSort::Tripdate => (booking.tripdate, Vec::new()),
            BookingSort::BookingDate => (booking.bookingDate, Vec::new()),
            BookingSort::TripCost => ((booking.trip_cost * dec!(1000000)).try_into().unwrap(), Vec::new()),
            BookingSort::Reference => (0, booking.reference.clone().into_bytes()),
            BookingSort::Status => (0, booking.status.as_str().as_bytes().to_vec()),
            BookingSort::CustomerName => (0, booking.customer_name.clone().into_bytes()),
            BookingSort::DriverName => (0, booking.driver_name.clone().into_bytes()),
            BookingSort::CarType => (0, booking.carType.clone().into_bytes()),
        }
    };
    for sort in BookingSort::ALL {
        for order in [SortOrder::Desc, SortOrder::Asc] {
            let mut expected = bookings.clone();
            expected.sort_by_key(|booking| (key(booking, sort), booking.id));
            if order == SortOrder::Desc {
                expected.reverse();
            }
            for page_size in [1, 5, 23, 50] {
                let filter = BookingFilter { sort, order, ..BookingFilter::default() };
                let listed = all_bookings(fixture.storage.as_ref(), &filter, page_size).await;
                assert_eq!(ids(&listed), ids(&expected), "{sort:?} {order:?} by {page_size}");
            }
        }
    }
    // A text sort within a status and a search pages the same way.
    let filter = BookingFilter {
        sort: BookingSort::CustomerName,
        order: SortOrder::Asc,
        statuses: vec![BookingStatus::New],
        search: Some("Light".into()),
        ..BookingFilter::default()
    };
    let mut expected: Vec<Booking> =
        bookings.iter().filter(|booking| booking.status == BookingStatus::New).cloned().collect();
    expected.sort_by_key(|booking| (key(booking, BookingSort::CustomerName), booking.id));
    assert_eq!(ids(&all_bookings(fixture.storage.as_ref(), &filter, 2).await), ids(&expected));
    // A cursor of one kind is refused by a list of the other.
    let by_name = BookingFilter { sort: BookingSort::CustomerName, ..BookingFilter::default() };
    let text_cursor = fixture.list_bookings(&by_name, &PageRequest::first(3)).await.unwrap().next.unwrap();
    assert!(text_cursor.starts_with('t'));
    let by_date = PageRequest { limit: 3, after: Some(text_cursor) };
    assert!(matches!(
        fixture.list_bookings(&BookingFilter::default(), &by_date).await,
        Err(StorageError::Invalid("cursor"))
    ));
    // A page that ends exactly at the last row says there is no next one.
    let exact = fixture.list_bookings(&BookingFilter::default(), &PageRequest::first(23)).await.unwrap();
    assert_eq!((exact.items.len(), exact.next), (23, None));
    let short = fixture.list_bookings(&BookingFilter::default(), &PageRequest::first(22)).await.unwrap();
    assert!(short.next.is_some());
}

async fn other_lists_page_newest_first(fixture: Fixture) {
    for number in 0..12u128 {
        let notification = Notification {
            id: NotificationId::from_u128(number),
            devicetype: DeviceTarget::All,
            usertype: UserTarget::All,
            title: format!("Title {number}"),
            body: "Body".into(),
            createdAt: NOW + (number % 4) as i64,
        };
        fixture.insert_notification(&notification).await.unwrap();
    }
    let mut seen = Vec::new();
    let mut page = PageRequest::first(5);
    loop {
        let result = fixture.notifications(&page).await.unwrap();
        seen.extend(result.items.iter().map(|notification| (notification.createdAt, notification.id)));
        match result.next {
            Some(next) => page.after = Some(next),
            None => break,
        }
    }
    let mut expected = seen.clone();
    expected.sort_by(|left, right| right.cmp(left));
    assert_eq!(seen, expected);
    assert_eq!(seen.len(), 12);
}

async fn a_cursor_that_is_not_ours_is_invalid(fixture: Fixture) {
    let page = PageRequest { limit: 10, after: Some("not-a-cursor".into()) };
    assert!(matches!(
        fixture.list_bookings(&BookingFilter::default(), &page).await,
        Err(StorageError::Invalid("cursor"))
    ));
    assert!(matches!(fixture.list_users(&UserFilter::default(), &page).await, Err(StorageError::Invalid("cursor"))));
}

// ---- scoping, search, offers, active ----------------------------------------------

async fn bookings_are_scoped_by_customer_driver_fleet_and_status(fixture: Fixture) {
    let fleet = user(100, Role::Fleetadmin);
    let riders = [rider(1), rider(2)];
    let drivers = [driver(10, Some(fleet.id)), driver(11, None)];
    insert_users(&fixture, &[&fleet, &riders[0], &riders[1], &drivers[0], &drivers[1]]).await;
    let statuses = [BookingStatus::New, BookingStatus::Accepted, BookingStatus::Complete, BookingStatus::Cancelled];
    let mut bookings = Vec::new();
    for number in 0..24u128 {
        let customer = &riders[(number % 2) as usize];
        let mut booking = booking(number, customer, statuses[(number % 4) as usize], NOW + number as i64 * 60_000);
        if number % 3 != 0 {
            assign(&mut booking, &drivers[(number % 3 - 1) as usize]);
        }
        bookings.push(booking);
    }
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    let check = |filter: BookingFilter, keep: Box<dyn Fn(&Booking) -> bool>| {
        let storage = fixture.storage.clone();
        let mut expected: Vec<BookingId> =
            bookings.iter().filter(|booking| keep(booking)).map(|booking| booking.id).collect();
        expected.reverse();
        async move {
            assert!(!expected.is_empty());
            assert_eq!(ids(&all_bookings(storage.as_ref(), &filter, 4).await), expected, "{filter:?}");
        }
    };
    let rider_id = riders[0].id;
    let driver_id = drivers[0].id;
    let fleet_id = fleet.id;
    check(BookingFilter { customer: Some(rider_id), ..Default::default() }, Box::new(move |b| b.customer == rider_id))
        .await;
    check(
        BookingFilter { driver: Some(driver_id), ..Default::default() },
        Box::new(move |b| b.driver == Some(driver_id)),
    )
    .await;
    check(
        BookingFilter { fleetadmin: Some(fleet_id), ..Default::default() },
        Box::new(move |b| b.fleetadmin == Some(fleet_id)),
    )
    .await;
    check(
        BookingFilter { statuses: vec![BookingStatus::New, BookingStatus::Cancelled], ..Default::default() },
        Box::new(|b| matches!(b.status, BookingStatus::New | BookingStatus::Cancelled)),
    )
    .await;
    check(
        BookingFilter { customer: Some(rider_id), statuses: vec![BookingStatus::New], ..Default::default() },
        Box::new(move |b| b.customer == rider_id && b.status == BookingStatus::New),
    )
    .await;
    let nothing = BookingFilter {
        customer: Some(riders[1].id),
        driver: Some(drivers[1].id),
        statuses: vec![BookingStatus::Cancelled],
        ..Default::default()
    };
    assert!(
        all_bookings(fixture.storage.as_ref(), &nothing, 5)
            .await
            .iter()
            .all(|b| b.customer == riders[1].id && b.driver == Some(drivers[1].id))
    );
}

/// The search the storage promises, written plainly: every word of the
/// query starts some word of the booking's reference, names or addresses.
fn matches_search(booking: &Booking, query: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    let document: Vec<String> = [
        &booking.reference,
        &booking.customer_name,
        &booking.driver_name,
        &booking.pickupAddress,
        &booking.dropAddress,
    ]
    .iter()
    .flat_map(|text| words(text))
    .collect();
    let query_words = words(query);
    !query_words.is_empty()
        && query_words.iter().all(|word| document.iter().any(|candidate| candidate.starts_with(word.as_str())))
}

const STREETS: [&str; 6] = ["Light St", "Charles St", "Fort Ave", "Eastern Ave", "Pratt St", "Thames St"];
const FIRST_NAMES: [&str; 5] = ["Avery", "Jordan", "Zoë", "Marcus", "Priya"];
const LAST_NAMES: [&str; 4] = ["O'Brien", "Nguyen", "Smith-Jones", "Okafor"];

async fn search_matches_word_starts_of_reference_names_and_addresses(fixture: Fixture) {
    let customers: Vec<User> = (0..5u128)
        .map(|number| User {
            firstName: FIRST_NAMES[number as usize].into(),
            lastName: LAST_NAMES[(number % 4) as usize].into(),
            ..rider(number)
        })
        .collect();
    let drivers: Vec<User> = (0..3u128)
        .map(|number| User {
            firstName: ["Dana", "Eli", "Farah"][number as usize].into(),
            lastName: "Driver".into(),
            ..driver(10 + number, None)
        })
        .collect();
    insert_users(&fixture, &customers.iter().chain(&drivers).collect::<Vec<_>>()).await;
    let bookings: Vec<Booking> = (0..60u128)
        .map(|number| {
            let customer = &customers[(number % 5) as usize];
            let mut booking = booking(number, customer, BookingStatus::Complete, NOW + number as i64 * 1000);
            booking.pickupAddress =
                format!("{} {}, Baltimore, MD 212{:02}", 100 + number, STREETS[(number % 6) as usize], number % 30);
            booking.dropAddress = format!("{} {}, Towson", 10 * number, STREETS[((number + 2) % 6) as usize]);
            if number % 4 != 0 {
                assign(&mut booking, &drivers[(number % 3) as usize]);
            }
            booking
        })
        .collect();
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    let queries = [
        bookings[17].reference.as_str(),
        &bookings[17].reference[..3],
        "avery",
        "AVE",
        "o brien",
        "o'bri charles",
        "smith-jones",
        "zoë",
        "nguyen fort 1",
        "dana",
        "farah towson 212",
        "light st baltimore",
        "nomatch",
        "md 21215",
    ];
    for query in queries {
        for order in [SortOrder::Desc, SortOrder::Asc] {
            let filter = BookingFilter { search: Some(query.into()), order, ..BookingFilter::default() };
            let mut expected: Vec<&Booking> =
                bookings.iter().filter(|booking| matches_search(booking, query)).collect();
            expected.sort_by_key(|booking| (booking.tripdate, booking.id));
            if order == SortOrder::Desc {
                expected.reverse();
            }
            let listed = all_bookings(fixture.storage.as_ref(), &filter, 7).await;
            assert_eq!(
                ids(&listed),
                expected.iter().map(|booking| booking.id).collect::<Vec<_>>(),
                "{query:?} {order:?}"
            );
        }
    }
    // Search within a scope, and a search of only separators filters nothing.
    let customer = customers[1].id;
    let scoped = BookingFilter { customer: Some(customer), search: Some("eli".into()), ..BookingFilter::default() };
    let expected: Vec<BookingId> =
        bookings.iter().rev().filter(|b| b.customer == customer && matches_search(b, "eli")).map(|b| b.id).collect();
    assert_eq!(ids(&all_bookings(fixture.storage.as_ref(), &scoped, 3).await), expected);
    let blank = BookingFilter { search: Some(" - ".into()), ..BookingFilter::default() };
    assert_eq!(all_bookings(fixture.storage.as_ref(), &blank, 100).await.len(), 60);
    // The search text follows the booking: a driver assigned later is found.
    let mut reassigned = fixture.booking(bookings[0].id).await.unwrap();
    reassigned.driver_name = "Quentin Newdriver".into();
    fixture.commit_booking(&reassigned, Some(1), &[], NOW).await.unwrap();
    let found = all_bookings(
        fixture.storage.as_ref(),
        &BookingFilter { search: Some("newdri".into()), ..Default::default() },
        5,
    )
    .await;
    assert_eq!(ids(&found), [bookings[0].id]);
}

async fn searches_of_every_frequency_page_in_order(fixture: Fixture) {
    // Enough bookings that SQLite's planner meets each of its cases: common
    // words (walk the order), rare ones (read the text index and re-test the
    // others), common words that are rare together (a bounded walk, then the
    // index), short words. PostgreSQL's planner chooses for itself; the pages
    // must be the same everywhere.
    let customer = User { firstName: "Quinn".into(), ..rider(1) };
    insert_users(&fixture, &[&customer]).await;
    let bookings: Vec<Booking> = (0..6_000u128)
        .map(|number| {
            // Pairs share a trip date, so ties are broken by id.
            let mut booking = booking(number, &customer, BookingStatus::Complete, NOW + (number / 2) as i64 * 1000);
            booking.pickupAddress = if number < 3_500 {
                format!("{number} Harbor View, Baltimore")
            } else {
                format!("{number} Light St, Baltimore")
            };
            booking.dropAddress = if number < 60 {
                // The oldest: beyond a bounded walk from the newest.
                "Harborside Pier".into()
            } else if (60..300).contains(&number) || (3_000..3_500).contains(&number) {
                // "harbor light": two common words, rarely together.
                "9 Light St".into()
            } else if number % 7 == 0 {
                "1 Rare Street".into()
            } else {
                booking.dropAddress.clone()
            };
            booking
        })
        .collect();
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    fixture.raw_execute("ANALYZE").await.unwrap();
    let queries = [
        ("harbor", 50u32),
        ("harbor rare", 30),
        ("baltimore 34", 25),
        ("harb", 50),
        ("harbors", 20),
        ("harbz", 10),
        ("ha", 100),
        ("zz", 10),
        ("qu light 59", 40),
        ("harbor light", 30),
    ];
    for (query, page_size) in queries {
        for order in [SortOrder::Desc, SortOrder::Asc] {
            let filter = BookingFilter { search: Some(query.into()), order, ..BookingFilter::default() };
            let mut expected: Vec<&Booking> =
                bookings.iter().filter(|booking| matches_search(booking, query)).collect();
            expected.sort_by_key(|booking| (booking.tripdate, booking.id));
            if order == SortOrder::Desc {
                expected.reverse();
            }
            let first = fixture.list_bookings(&filter, &PageRequest::first(page_size)).await.unwrap();
            let first_expected: Vec<BookingId> = expected.iter().take(page_size as usize).map(|b| b.id).collect();
            assert_eq!(ids(&first.items), first_expected, "{query} {order:?}");
            let listed = all_bookings(fixture.storage.as_ref(), &filter, page_size.max(100) * 3).await;
            assert_eq!(ids(&listed), expected.iter().map(|b| b.id).collect::<Vec<_>>(), "{query} {order:?}");
        }
    }
}

async fn bookings_offered_to_a_driver_follow_requested_drivers(fixture: Fixture) {
    let customer = rider(1);
    let drivers: Vec<User> = (10..13u128).map(|number| driver(number, None)).collect();
    insert_users(&fixture, &[&customer, &drivers[0], &drivers[1], &drivers[2]]).await;
    let mut first = booking(1, &customer, BookingStatus::New, NOW + 2);
    first.requestedDrivers.0.extend([drivers[0].id, drivers[1].id]);
    let mut second = booking(2, &customer, BookingStatus::New, NOW + 1);
    second.requestedDrivers.0.insert(drivers[0].id);
    fixture.commit_booking(&first, None, &[], NOW).await.unwrap();
    fixture.commit_booking(&second, None, &[], NOW).await.unwrap();
    let offered = |driver: UserId| {
        let storage = fixture.storage.clone();
        async move { ids(&storage.bookings_offered_to(driver).await.unwrap()) }
    };
    assert_eq!(offered(drivers[0].id).await, [second.id, first.id]);
    assert_eq!(offered(drivers[1].id).await, [first.id]);
    assert!(offered(drivers[2].id).await.is_empty());
    // The next wave: driver 0 declined, driver 2 is offered.
    let mut next_wave = first.clone();
    next_wave.requestedDrivers.0 = BTreeSet::from([drivers[1].id, drivers[2].id]);
    fixture.commit_booking(&next_wave, Some(1), &[], NOW).await.unwrap();
    assert_eq!(offered(drivers[0].id).await, [second.id]);
    assert_eq!(offered(drivers[2].id).await, [first.id]);
    // Accepted: nobody is offered it any more.
    let mut accepted = Booking { status: BookingStatus::Accepted, ..next_wave.clone() };
    assign(&mut accepted, &drivers[1]);
    accepted.requestedDrivers.0.clear();
    fixture.commit_booking(&accepted, Some(2), &[], NOW).await.unwrap();
    assert!(offered(drivers[1].id).await.is_empty());
    assert!(offered(drivers[2].id).await.is_empty());
    let tasks = fixture.bookings_offered_to(drivers[0].id).await.unwrap();
    assert!(tasks[0].is_requested(&drivers[0].id));
}

async fn active_bookings_are_all_but_complete_and_cancelled(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let bookings: Vec<Booking> = BookingStatus::ALL
        .iter()
        .enumerate()
        .map(|(number, status)| booking(number as u128, &customer, *status, NOW - number as i64))
        .collect();
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    let active = fixture.active_bookings().await.unwrap();
    let mut expected: Vec<&Booking> = bookings.iter().filter(|booking| booking.status.is_active()).collect();
    expected.sort_by_key(|booking| (booking.tripdate, booking.id));
    assert_eq!(ids(&active), expected.iter().map(|booking| booking.id).collect::<Vec<_>>());
    assert_eq!(active.len(), 8);
    // Completing one takes it out.
    let mut done = active[0].clone();
    done.status = BookingStatus::Complete;
    fixture.commit_booking(&done, Some(1), &[], NOW).await.unwrap();
    assert_eq!(fixture.active_bookings().await.unwrap().len(), 7);
}

// ---- earnings ---------------------------------------------------------------------

struct Money {
    trip_cost: Decimal,
    driver_share: Decimal,
    convenience_fees: Decimal,
    discount_amount: Decimal,
    customer_paid: Decimal,
    cancellation_fee: Decimal,
}

fn ride(trip_cost: Decimal, driver_share: Decimal, convenience_fees: Decimal, discount_amount: Decimal) -> Money {
    Money {
        trip_cost,
        driver_share,
        convenience_fees,
        discount_amount,
        customer_paid: trip_cost - discount_amount,
        cancellation_fee: Decimal::ZERO,
    }
}

fn earning_booking(
    number: u128,
    customer: &User,
    driver: &User,
    name: &str,
    status: BookingStatus,
    tripdate: Millis,
    money: Money,
) -> Booking {
    let mut booking = booking(number, customer, status, tripdate);
    assign(&mut booking, driver);
    booking.driver_name = name.into();
    booking.vehicle_number = format!("{name} car");
    booking.trip_cost = money.trip_cost;
    booking.driver_share = money.driver_share;
    booking.convenience_fees = money.convenience_fees;
    booking.discount_amount = money.discount_amount;
    booking.customer_paid = money.customer_paid;
    booking.cancellationFee = money.cancellation_fee;
    booking
}

fn earnings_input(booking: &Booking) -> Option<EarningsInput> {
    Some(EarningsInput {
        booking: booking.id,
        status: booking.status,
        tripdate: booking.tripdate,
        driver: booking.driver?,
        driver_name: booking.driver_name.clone(),
        vehicle_number: booking.vehicle_number.clone(),
        trip_cost: booking.trip_cost,
        driver_share: booking.driver_share,
        convenience_fees: booking.convenience_fees,
        discount_amount: booking.discount_amount,
        customer_paid: booking.customer_paid,
        cancellation_fee: booking.cancellationFee,
    })
}

async fn earnings_match_a_hand_computed_case(fixture: Fixture) {
    use BookingStatus::*;
    let customer = rider(1);
    let (asha, bram, chen) = (driver(10, None), driver(11, None), driver(12, None));
    insert_users(&fixture, &[&customer, &asha, &bram, &chen]).await;
    let charged = |fee| Money { cancellation_fee: fee, ..ride(dec!(20), dec!(16), dec!(2), dec!(0)) };
    let none = || Money { cancellation_fee: dec!(2), ..ride(dec!(0), dec!(0), dec!(0), dec!(0)) };
    let bookings = vec![
        earning_booking(
            1,
            &customer,
            &asha,
            "Asha",
            Paid,
            utc(2026, 3, 3, 10, 0),
            ride(dec!(100), dec!(80), dec!(10), dec!(5)),
        ),
        earning_booking(
            2,
            &customer,
            &asha,
            "Asha K",
            Complete,
            utc(2026, 3, 20, 12, 0),
            ride(dec!(12.505), dec!(10.005), dec!(1.25), dec!(0)),
        ),
        earning_booking(3, &customer, &asha, "Asha K", Cancelled, utc(2026, 3, 25, 9, 0), charged(dec!(3.5))),
        earning_booking(4, &customer, &asha, "Asha K", Cancelled, utc(2026, 3, 26, 9, 0), charged(dec!(0))),
        earning_booking(
            5,
            &customer,
            &bram,
            "Bram",
            Paid,
            utc(2026, 3, 10, 8, 0),
            ride(dec!(15), dec!(12.005), dec!(1.5), dec!(2.5)),
        ),
        earning_booking(
            6,
            &customer,
            &bram,
            "Bram",
            Complete,
            utc(2026, 3, 11, 8, 0),
            ride(dec!(15), dec!(12.005), dec!(1.5), dec!(0)),
        ),
        earning_booking(
            7,
            &customer,
            &bram,
            "Bram",
            New,
            utc(2026, 3, 12, 8, 0),
            ride(dec!(99), dec!(79), dec!(9), dec!(0)),
        ),
        earning_booking(
            8,
            &customer,
            &bram,
            "Bram",
            Accepted,
            utc(2026, 3, 13, 8, 0),
            ride(dec!(99), dec!(79), dec!(9), dec!(0)),
        ),
        earning_booking(
            9,
            &customer,
            &asha,
            "Asha K",
            Paid,
            utc(2026, 4, 2, 18, 0),
            ride(dec!(60), dec!(48), dec!(6), dec!(0)),
        ),
        earning_booking(
            10,
            &customer,
            &bram,
            "Bram",
            Complete,
            utc(2026, 4, 5, 18, 0),
            ride(dec!(25), dec!(20), dec!(0), dec!(0)),
        ),
        earning_booking(11, &customer, &chen, "Chen", Cancelled, utc(2026, 4, 6, 18, 0), none()),
    ];
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    let scope = EarningsScope { decimals: 2, ..EarningsScope::default() };

    let rows = fixture.driver_earnings(&scope).await.unwrap();
    let summary: Vec<_> = rows
        .iter()
        .map(|row| {
            (row.year, row.month, row.monthsName.as_str(), row.driverName.as_str(), row.total_rides, row.driverShare)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (2026, 4, "April", "Asha K", 1, dec!(48)),
            (2026, 4, "April", "Bram", 1, dec!(20)),
            // 80 + 10.005 = 90.005 → 90.01, half away from zero.
            (2026, 3, "March", "Asha K", 2, dec!(90.01)),
            // 12.005 + 12.005 = 24.01: summed, then rounded once.
            (2026, 3, "March", "Bram", 2, dec!(24.01)),
        ]
    );
    assert_eq!(rows[0].driverVehicleNo, "Asha K car");
    assert_eq!(rows[0].driverUId, asha.id);

    let report = fixture.earnings_report(&scope).await.unwrap();
    let summary: Vec<_> = report
        .iter()
        .map(|row| {
            (
                row.earnings.month,
                row.earnings.driverName.as_str(),
                row.earnings.total_rides,
                row.earnings.driverShare,
                row.tripCost,
                row.convenienceFee,
                row.discountAmount,
                row.customerPaid,
                row.cancellationFee,
                row.rideCost,
                row.myEarning,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (4, "Asha K", 1, dec!(48), dec!(60), dec!(6), dec!(0), dec!(60), dec!(0), dec!(54), dec!(12)),
            (4, "Bram", 1, dec!(20), dec!(25), dec!(0), dec!(0), dec!(25), dec!(0), dec!(25), dec!(5)),
            (4, "Chen", 0, dec!(0), dec!(0), dec!(0), dec!(0), dec!(0), dec!(2), dec!(0), dec!(0)),
            (
                3,
                "Asha K",
                2,
                dec!(90.01),
                dec!(112.51),
                dec!(11.25),
                dec!(5),
                dec!(107.51),
                dec!(3.5),
                dec!(101.26),
                dec!(17.5)
            ),
            (3, "Bram", 2, dec!(24.01), dec!(30), dec!(3), dec!(2.5), dec!(27.5), dec!(0), dec!(27), dec!(3.49)),
        ]
    );
    // One month, one driver.
    let april = EarningsScope {
        driver: Some(asha.id),
        tripdate_from: Some(utc(2026, 4, 1, 0, 0)),
        tripdate_until: Some(utc(2026, 5, 1, 0, 0)),
        ..scope.clone()
    };
    let rows = fixture.earnings_report(&april).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].earnings.month, rows[0].tripCost), (4, dec!(60)));
    let inputs: Vec<EarningsInput> = bookings.iter().filter_map(earnings_input).collect();
    assert_eq!(fixture.earnings_report(&scope).await.unwrap(), earnings::earnings_report(&inputs, 0, 2));
}

/// A small deterministic generator, so the comparison is repeatable.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound
    }
}

async fn earnings_in_sql_match_the_engine(fixture: Fixture) {
    let customer = rider(1);
    let fleet = UserId::from_u128(0xF1EE7);
    let drivers: Vec<User> =
        (10..14u128).map(|number| driver(number, if number % 2 == 0 { Some(fleet) } else { None })).collect();
    insert_users(&fixture, &[&customer]).await;
    let mut random = Lcg(42);
    let names = ["Asha", "Asha K", "Bram", "Chen", "Dee"];
    let start = utc(2026, 10, 1, 0, 0);
    let mut bookings: Vec<Booking> = (0..400u128)
        .map(|number| {
            let driver = &drivers[random.next(4) as usize];
            let status = BookingStatus::ALL[random.next(10) as usize];
            // About four months around a year boundary, on whole minutes so
            // that ties on tripdate happen and are broken by id.
            let tripdate = start + random.next(4 * 31 * 24 * 60) as i64 * 60_000;
            let amount = |random: &mut Lcg| Decimal::new(random.next(100_000) as i64, 3);
            let money = Money {
                trip_cost: amount(&mut random),
                driver_share: amount(&mut random),
                convenience_fees: if random.next(3) == 0 { Decimal::ZERO } else { amount(&mut random) },
                discount_amount: amount(&mut random),
                customer_paid: amount(&mut random),
                cancellation_fee: if random.next(2) == 0 { Decimal::ZERO } else { amount(&mut random) },
            };
            earning_booking(number, &customer, driver, names[random.next(5) as usize], status, tripdate, money)
        })
        .collect();
    // Ties on tripdate within one group, instants before 1970 and ones no
    // calendar can place.
    let tie = bookings[0].tripdate;
    bookings[1].tripdate = tie;
    bookings[1].driver = bookings[0].driver;
    bookings[1].status = BookingStatus::Paid;
    bookings[2].tripdate = utc(1969, 12, 31, 23, 30);
    bookings[2].status = BookingStatus::Complete;
    bookings[3].tripdate = Millis::MAX;
    bookings[3].status = BookingStatus::Paid;
    bookings[4].tripdate = Millis::MIN;
    bookings[4].status = BookingStatus::Complete;
    bookings[5].tripdate = utc(9999, 12, 31, 23, 0);
    bookings[5].status = BookingStatus::Paid;
    bookings[6].driver = None;
    fixture.import_bookings(&bookings, NOW).await.unwrap();
    let inputs: Vec<EarningsInput> = bookings.iter().filter_map(earnings_input).collect();

    for offset in [0, 60, -300, 330, 840, -720, 2_000] {
        for decimals in [0, 2, 3] {
            let scope = EarningsScope { utc_offset_minutes: offset, decimals, ..EarningsScope::default() };
            assert_eq!(
                fixture.driver_earnings(&scope).await.unwrap(),
                earnings::driver_earnings(&inputs, offset, decimals),
                "earnings at {offset} with {decimals}"
            );
            assert_eq!(
                fixture.earnings_report(&scope).await.unwrap(),
                earnings::earnings_report(&inputs, offset, decimals),
                "report at {offset} with {decimals}"
            );
        }
    }
    // Scoped to a fleet, a driver and a month.
    let fleet_inputs: Vec<EarningsInput> =
        bookings.iter().filter(|b| b.fleetadmin == Some(fleet)).filter_map(earnings_input).collect();
    let scope =
        EarningsScope { fleetadmin: Some(fleet), utc_offset_minutes: -300, decimals: 2, ..EarningsScope::default() };
    assert_eq!(fixture.earnings_report(&scope).await.unwrap(), earnings::earnings_report(&fleet_inputs, -300, 2));
    let one = drivers[1].id;
    let driver_inputs: Vec<EarningsInput> = inputs.iter().filter(|input| input.driver == one).cloned().collect();
    let scope = EarningsScope { driver: Some(one), utc_offset_minutes: 60, decimals: 2, ..EarningsScope::default() };
    assert_eq!(fixture.driver_earnings(&scope).await.unwrap(), earnings::driver_earnings(&driver_inputs, 60, 2));
    let (from, until) = (utc(2026, 12, 1, 0, 0) - 60 * 60_000, utc(2027, 1, 1, 0, 0) - 60 * 60_000);
    let december: Vec<EarningsInput> =
        inputs.iter().filter(|input| (from..until).contains(&input.tripdate)).cloned().collect();
    let scope = EarningsScope {
        tripdate_from: Some(from),
        tripdate_until: Some(until),
        utc_offset_minutes: 60,
        decimals: 2,
        ..EarningsScope::default()
    };
    let report = fixture.earnings_report(&scope).await.unwrap();
    assert_eq!(report, earnings::earnings_report(&december, 60, 2));
    assert!(!report.is_empty() && report.iter().all(|row| (row.earnings.year, row.earnings.month) == (2026, 12)));

    // The same answers once the monthly roll-up is cut at +01:00 (rebuilt
    // from the bookings): whole months in that offset come from the roll-up,
    // everything else from the bookings.
    fixture.prepare_earnings_rollup(60).await.unwrap();
    assert_eq!(fixture.earnings_report(&scope).await.unwrap(), report);
    for offset in [0, 60, -300] {
        let scope = EarningsScope { utc_offset_minutes: offset, decimals: 2, ..EarningsScope::default() };
        assert_eq!(fixture.driver_earnings(&scope).await.unwrap(), earnings::driver_earnings(&inputs, offset, 2));
        assert_eq!(fixture.earnings_report(&scope).await.unwrap(), earnings::earnings_report(&inputs, offset, 2));
    }
    let scope =
        EarningsScope { fleetadmin: Some(fleet), utc_offset_minutes: 60, decimals: 2, ..EarningsScope::default() };
    assert_eq!(fixture.earnings_report(&scope).await.unwrap(), earnings::earnings_report(&fleet_inputs, 60, 2));
    assert!(matches!(fixture.prepare_earnings_rollup(100_000).await, Err(StorageError::Invalid(_))));

    // Pages, from the roll-up (+01:00, whole months or all) and from the
    // bookings (other offsets), cover the report once, newest month first,
    // then by driver id descending.
    let december_60 = EarningsScope {
        tripdate_from: Some(utc(2026, 12, 1, 0, 0) - 60 * 60_000),
        tripdate_until: Some(utc(2027, 1, 1, 0, 0) - 60 * 60_000),
        utc_offset_minutes: 60,
        decimals: 2,
        ..EarningsScope::default()
    };
    for scope in [
        EarningsScope { utc_offset_minutes: 60, decimals: 2, ..EarningsScope::default() },
        EarningsScope { utc_offset_minutes: -300, decimals: 2, ..EarningsScope::default() },
        december_60,
    ] {
        let mut expected = fixture.earnings_report(&scope).await.unwrap();
        let key =
            |row: &EarningsReportRow| (row.earnings.year * 100 + row.earnings.month as i32, row.earnings.driverUId.0);
        expected.sort_by_key(|row| std::cmp::Reverse(key(row)));
        let mut expected_rides = fixture.driver_earnings(&scope).await.unwrap();
        let ride_key = |row: &EarningsRow| (row.year * 100 + row.month as i32, row.driverUId.0);
        expected_rides.sort_by_key(|row| std::cmp::Reverse(ride_key(row)));
        for limit in [1, 3, 500] {
            let (mut rows, mut page) = (Vec::new(), PageRequest::first(limit));
            loop {
                let next = fixture.earnings_report_page(&scope, &page).await.unwrap();
                assert!(next.items.len() <= limit as usize);
                rows.extend(next.items);
                match next.next {
                    Some(cursor) => page.after = Some(cursor),
                    None => break,
                }
            }
            assert_eq!(rows, expected, "report pages of {limit} at {}", scope.utc_offset_minutes);
            let (mut rides, mut page) = (Vec::new(), PageRequest::first(limit));
            loop {
                let next = fixture.driver_earnings_page(&scope, &page).await.unwrap();
                rides.extend(next.items);
                match next.next {
                    Some(cursor) => page.after = Some(cursor),
                    None => break,
                }
            }
            assert_eq!(rides, expected_rides, "earnings pages of {limit} at {}", scope.utc_offset_minutes);
        }
    }
}

/// The roll-up follows bookings through commit_booking: a ride paid then
/// completed counts once, a cancellation with a fee counts in the report
/// only, a driver renamed on a later trip names the month, and bookings in
/// other months or without a driver stay out.
async fn the_earnings_rollup_follows_committed_bookings(fixture: Fixture) {
    use BookingStatus::*;
    let customer = rider(1);
    let fleet = UserId::from_u128(0xF1EE7);
    let ann = driver(10, Some(fleet));
    let bob = driver(11, None);
    insert_users(&fixture, &[&customer, &ann, &bob]).await;
    fixture.prepare_earnings_rollup(-300).await.unwrap();
    let (from, until) = (utc(2026, 3, 1, 5, 0), utc(2026, 4, 1, 5, 0));
    let march = EarningsScope {
        tripdate_from: Some(from),
        tripdate_until: Some(until),
        utc_offset_minutes: -300,
        decimals: 2,
        ..EarningsScope::default()
    };
    let mut committed: Vec<Booking> = Vec::new();
    let mut commit = async |booking: &mut Booking, expected: Option<u64>| {
        let stored = fixture.commit_booking(booking, expected, &[], NOW).await.unwrap().booking;
        committed.retain(|old| old.id != stored.id);
        committed.push(stored.clone());
        *booking = stored;
    };
    // A ride: STARTED (nothing), PAID, COMPLETE (still once).
    let mut first = earning_booking(
        1,
        &customer,
        &ann,
        "Ann",
        Started,
        utc(2026, 3, 5, 12, 0),
        ride(dec!(20), dec!(16), dec!(2), dec!(0)),
    );
    commit(&mut first, None).await;
    first.status = Paid;
    commit(&mut first, Some(1)).await;
    first.status = Complete;
    commit(&mut first, Some(2)).await;
    // A later ride under a new name, the last day of March in UTC−5 (April in UTC).
    let mut second = earning_booking(
        2,
        &customer,
        &ann,
        "Ann B",
        Paid,
        utc(2026, 4, 1, 3, 0),
        ride(dec!(10), dec!(8), dec!(1), dec!(1)),
    );
    commit(&mut second, None).await;
    // A cancellation with a fee, after both: names the report's row only.
    let mut cancelled = earning_booking(
        3,
        &customer,
        &ann,
        "Ann C",
        Accepted,
        utc(2026, 4, 1, 4, 0),
        ride(dec!(0), dec!(0), dec!(0), dec!(0)),
    );
    commit(&mut cancelled, None).await;
    cancelled.status = Cancelled;
    cancelled.cancellationFee = dec!(3);
    commit(&mut cancelled, Some(1)).await;
    // Bob: one ride in April (local), one booking never finished.
    let mut april = earning_booking(
        4,
        &customer,
        &bob,
        "Bob",
        Complete,
        utc(2026, 4, 1, 6, 0),
        ride(dec!(5), dec!(4), dec!(0), dec!(0)),
    );
    commit(&mut april, None).await;
    let mut open = earning_booking(
        5,
        &customer,
        &bob,
        "Bob",
        Arrived,
        utc(2026, 3, 9, 6, 0),
        ride(dec!(5), dec!(4), dec!(0), dec!(0)),
    );
    commit(&mut open, None).await;

    // Ann drove one March ride outside her fleet: a second roll-up row.
    let mut solo = earning_booking(
        6,
        &customer,
        &ann,
        "Ann",
        Complete,
        utc(2026, 3, 7, 12, 0),
        ride(dec!(4), dec!(3), dec!(0), dec!(0)),
    );
    solo.fleetadmin = None;
    commit(&mut solo, None).await;

    let inputs: Vec<EarningsInput> = committed
        .iter()
        .filter(|booking| (from..until).contains(&booking.tripdate))
        .filter_map(earnings_input)
        .collect();
    let report = fixture.earnings_report(&march).await.unwrap();
    assert_eq!(report, earnings::earnings_report(&inputs, -300, 2));
    assert_eq!(report.len(), 1);
    assert_eq!((report[0].earnings.total_rides, report[0].earnings.driverShare), (3, dec!(27)));
    let page = fixture.earnings_report_page(&march, &PageRequest::first(1)).await.unwrap();
    assert_eq!((page.items.as_slice(), page.next), (report.as_slice(), None));
    assert_eq!((report[0].cancellationFee, report[0].earnings.driverName.as_str()), (dec!(3), "Ann C"));
    let rides = fixture.driver_earnings(&march).await.unwrap();
    assert_eq!(rides, earnings::driver_earnings(&inputs, -300, 2));
    assert_eq!(rides[0].driverName, "Ann B");
    // Every month, and one fleet's, from the roll-up too.
    let all: Vec<EarningsInput> = committed.iter().filter_map(earnings_input).collect();
    let every = EarningsScope { utc_offset_minutes: -300, decimals: 2, ..EarningsScope::default() };
    assert_eq!(fixture.earnings_report(&every).await.unwrap(), earnings::earnings_report(&all, -300, 2));
    let fleet_only = EarningsScope { fleetadmin: Some(fleet), ..every.clone() };
    let fleet_inputs: Vec<EarningsInput> =
        committed.iter().filter(|b| b.fleetadmin == Some(fleet)).filter_map(earnings_input).collect();
    assert_eq!(fixture.driver_earnings(&fleet_only).await.unwrap(), earnings::driver_earnings(&fleet_inputs, -300, 2));
    // Cut again in UTC: rebuilt, the late-March ride moves to April.
    fixture.prepare_earnings_rollup(0).await.unwrap();
    let utc_every = EarningsScope { utc_offset_minutes: 0, decimals: 2, ..EarningsScope::default() };
    assert_eq!(fixture.earnings_report(&utc_every).await.unwrap(), earnings::earnings_report(&all, 0, 2));
}

/// The dashboard of a scope, checked on both paths (the roll-up in its
/// offset, the bookings in another) against the engine's rule on `bookings`.
async fn check_dashboard(fixture: &Fixture, bookings: &[Booking], scope: &DashboardScope, what: &str) {
    let inputs: Vec<EarningsInput> = bookings
        .iter()
        .filter(|booking| scope.fleetadmin.is_none_or(|fleet| booking.fleetadmin == Some(fleet)))
        .filter_map(earnings_input)
        .collect();
    let expected = earnings::dashboard_earnings(&inputs, scope.now, scope.utc_offset_minutes, scope.decimals);
    assert_eq!(fixture.dashboard_earnings(scope).await.unwrap(), expected, "{what}");
}

async fn the_dashboard_sums_follow_committed_bookings_as_the_engine_counts(fixture: Fixture) {
    use BookingStatus::*;
    let customer = rider(1);
    let fleet = UserId::from_u128(0xF1EE7);
    let other_fleet = UserId::from_u128(0xF1EE8);
    let ann = driver(10, Some(fleet));
    let bob = driver(11, None);
    insert_users(&fixture, &[&customer, &ann, &bob]).await;
    fixture.prepare_earnings_rollup(-300).await.unwrap();
    // "Now" is 2026-04-01 03:00 UTC: March 31st, 22:00 in UTC−5.
    let now = utc(2026, 4, 1, 3, 0);
    let mut committed: Vec<Booking> = Vec::new();
    let mut commit = async |booking: &mut Booking, expected: Option<u64>| {
        let stored = fixture.commit_booking(booking, expected, &[], NOW).await.unwrap().booking;
        committed.retain(|old| old.id != stored.id);
        committed.push(stored.clone());
        *booking = stored;
        committed.clone()
    };
    let scopes = |now| {
        [None, Some(fleet), Some(other_fleet)].map(|fleetadmin| DashboardScope {
            fleetadmin,
            now,
            utc_offset_minutes: -300,
            decimals: 2,
        })
    };
    // A ride on today's first local minute (05:00 UTC): STARTED, then PAID,
    // then COMPLETE, counted once.
    let mut first = earning_booking(
        1,
        &customer,
        &ann,
        "Ann",
        Started,
        utc(2026, 3, 31, 5, 0),
        ride(dec!(20.005), dec!(16), dec!(2), dec!(0)),
    );
    commit(&mut first, None).await;
    assert_eq!(fixture.dashboard_earnings(&scopes(now)[0]).await.unwrap().rides.total, 0);
    first.status = Paid;
    commit(&mut first, Some(1)).await;
    first.status = Complete;
    commit(&mut first, Some(2)).await;
    let cards = fixture.dashboard_earnings(&scopes(now)[0]).await.unwrap();
    assert_eq!((cards.today, cards.thisMonth, cards.total), (dec!(20.01), dec!(20.01), dec!(20.01)));
    assert_eq!(cards.rides.total, 1, "PAID then COMPLETE is one ride");
    // The local day's last minute before (04:59 UTC is March 30th), no fleet.
    let mut yesterday = earning_booking(
        2,
        &customer,
        &bob,
        "Bob",
        Paid,
        utc(2026, 3, 31, 4, 59),
        ride(dec!(7), dec!(6), dec!(1), dec!(0)),
    );
    commit(&mut yesterday, None).await;
    // A ride without a convenience fee counts (as the reports count it, issue
    // #34); a charged cancellation does not.
    let mut free = earning_booking(
        3,
        &customer,
        &ann,
        "Ann",
        Complete,
        utc(2026, 3, 31, 12, 0),
        ride(dec!(50), dec!(50), dec!(0), dec!(0)),
    );
    commit(&mut free, None).await;
    let mut cancelled = earning_booking(
        4,
        &customer,
        &ann,
        "Ann",
        Accepted,
        utc(2026, 3, 31, 13, 0),
        ride(dec!(9), dec!(8), dec!(1), dec!(0)),
    );
    commit(&mut cancelled, None).await;
    cancelled.status = Cancelled;
    cancelled.cancellationFee = dec!(3);
    commit(&mut cancelled, Some(1)).await;
    // Next local month (April 1st 00:00 in UTC−5), and February.
    let mut april = earning_booking(
        5,
        &customer,
        &ann,
        "Ann",
        Paid,
        utc(2026, 4, 1, 5, 0),
        ride(dec!(11), dec!(9), dec!(1.5), dec!(0)),
    );
    commit(&mut april, None).await;
    let mut february = earning_booking(
        6,
        &customer,
        &bob,
        "Bob",
        Complete,
        utc(2026, 2, 28, 23, 0),
        ride(dec!(3.333), dec!(2), dec!(0.333), dec!(0)),
    );
    let committed_now = commit(&mut february, None).await;
    for scope in scopes(now) {
        check_dashboard(&fixture, &committed_now, &scope, "after the rides").await;
    }
    let cards = fixture.dashboard_earnings(&scopes(now)[0]).await.unwrap();
    assert_eq!((cards.today, cards.thisMonth, cards.total), (dec!(70.01), dec!(77.01), dec!(91.34)));
    assert_eq!((cards.rides.today, cards.rides.thisMonth, cards.rides.total), (2, 3, 5));
    // A ride that moves to another fleet moves with it.
    first.fleetadmin = Some(other_fleet);
    let moved = commit(&mut first, Some(3)).await;
    for scope in scopes(now) {
        check_dashboard(&fixture, &moved, &scope, "after a fleet change").await;
    }
    assert_eq!(fixture.dashboard_earnings(&scopes(now)[2]).await.unwrap().today, dec!(20.01));
    assert_eq!(
        fixture.dashboard_earnings(&scopes(now)[1]).await.unwrap().rides.total,
        2,
        "April's ride and the fee-free one"
    );
    // Tomorrow (local April 1st), and the day's edges.
    for at in [utc(2026, 4, 1, 5, 0), utc(2026, 4, 1, 4, 59), utc(2026, 3, 31, 5, 0), utc(2026, 3, 1, 5, 0)] {
        for scope in scopes(at) {
            check_dashboard(&fixture, &moved, &scope, "at another now").await;
        }
    }
    // Another offset is summed from the bookings, with the same rule.
    for offset in [0, 540, -720] {
        let scope = DashboardScope { utc_offset_minutes: offset, ..scopes(now)[0].clone() };
        check_dashboard(&fixture, &moved, &scope, "in another offset").await;
    }
    // Cut again in UTC: rebuilt.
    fixture.prepare_earnings_rollup(0).await.unwrap();
    for scope in scopes(now).map(|scope| DashboardScope { utc_offset_minutes: 0, ..scope }) {
        check_dashboard(&fixture, &moved, &scope, "rebuilt in UTC").await;
    }
    let utc_cards =
        fixture.dashboard_earnings(&DashboardScope { utc_offset_minutes: 0, ..scopes(now)[0].clone() }).await.unwrap();
    // April 1st in UTC: the ride at 05:00 (later today), no other.
    assert_eq!((utc_cards.today, utc_cards.rides.today), (dec!(11), 1));
    assert_eq!(utc_cards.thisMonth, dec!(11));
    assert_eq!(utc_cards.total, dec!(91.34));
}

async fn the_dashboard_rollup_is_rebuilt_from_imported_bookings(fixture: Fixture) {
    let customer = rider(1);
    let fleet = UserId::from_u128(0xF1EE7);
    let drivers: Vec<User> =
        (10..14u128).map(|number| driver(number, if number % 2 == 0 { Some(fleet) } else { None })).collect();
    insert_users(&fixture, &[&customer]).await;
    let mut random = Lcg(7);
    let now = utc(2026, 1, 15, 12, 0);
    let bookings: Vec<Booking> = (0..300u128)
        .map(|number| {
            let driver = &drivers[random.next(4) as usize];
            let status = BookingStatus::ALL[random.next(10) as usize];
            // Within a few days of "now", on whole hours, so days and months split.
            let tripdate = utc(2025, 12, 28, 0, 0) + random.next(30 * 24) as i64 * 3_600_000;
            let cost = Decimal::new(random.next(100_000) as i64, 3);
            let fee = if random.next(3) == 0 { Decimal::ZERO } else { dec!(1.5) };
            earning_booking(number, &customer, driver, "Driver", status, tripdate, ride(cost, cost - fee, fee, dec!(0)))
        })
        .collect();
    // Imported while the roll-up is built: folded in the same transaction.
    fixture.import_bookings(&bookings[..150], NOW).await.unwrap();
    for fleetadmin in [None, Some(fleet)] {
        let scope = DashboardScope { fleetadmin, now, utc_offset_minutes: 0, decimals: 2 };
        check_dashboard(&fixture, &bookings[..150], &scope, "folded by the import").await;
    }
    // A database whose roll-up is not built (as after the migration): reads
    // sum the bookings; the start's rebuild fills it.
    fixture.raw_execute("UPDATE earnings_rollup SET built = FALSE").await.unwrap();
    fixture.import_bookings(&bookings[150..], NOW).await.unwrap();
    for offset in [0, -300] {
        for fleetadmin in [None, Some(fleet)] {
            let scope = DashboardScope { fleetadmin, now, utc_offset_minutes: offset, decimals: 2 };
            check_dashboard(&fixture, &bookings, &scope, "not built").await;
            fixture.prepare_earnings_rollup(offset).await.unwrap();
            assert!(fixture.raw_scalar("SELECT COUNT(*) FROM dashboard_earnings").await > 0);
            check_dashboard(&fixture, &bookings, &scope, "rebuilt").await;
        }
    }
}

// ---- tracking and chat ------------------------------------------------------------

async fn tracking_points_append_and_read_latest_and_in_order(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let booking = booking(1, &customer, BookingStatus::Started, NOW);
    fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    assert_eq!(fixture.latest_tracking(booking.id).await.unwrap(), None);
    let points: Vec<TrackingPoint> = (0..5)
        .map(|index| TrackingPoint {
            at: NOW + index * 3_000,
            status: BookingStatus::Started,
            lat: 39.28 + index as f64 * 0.001,
            lng: -76.61,
        })
        .collect();
    for point in points.iter().rev() {
        fixture.append_tracking(booking.id, point).await.unwrap();
    }
    assert_eq!(fixture.tracking(booking.id).await.unwrap(), points);
    assert_eq!(fixture.latest_tracking(booking.id).await.unwrap(), Some(points[4]));
    assert_eq!(json_of(&points[0]), json!({"at": NOW, "status": "STARTED", "lat": 39.28, "lng": -76.61}));
    assert!(matches!(
        fixture.append_tracking(BookingId::from_u128(404), &points[0]).await,
        Err(StorageError::NotFound)
    ));
}

async fn a_bookings_dispatch_timeline_reads_back_in_order_and_alone(fixture: Fixture) {
    let first = BookingId::from_u128(0xD1);
    let other = BookingId::from_u128(0xD2);
    let (near, far) = (UserId::from_u128(0xA1), UserId::from_u128(0xA2));
    let entry =
        |booking: BookingId, at: Millis, log: DispatchLog| DispatchEntry { at, booking, car_type: "Sedan".into(), log };
    let timeline = vec![
        entry(
            first,
            NOW,
            DispatchLog::Offered {
                wave: 1,
                drivers: vec![near],
                distances_km: vec![Some(0.42)],
                deadline: Some(NOW + 20_000),
            },
        ),
        entry(first, NOW + 5_000, DispatchLog::Withdrawn { drivers: vec![near], reason: WithdrawReason::Declined }),
        // The same instant as the decline: the order they were made in decides.
        entry(
            first,
            NOW + 5_000,
            DispatchLog::Offered {
                wave: 2,
                drivers: vec![far],
                distances_km: vec![Some(1.5)],
                deadline: Some(NOW + 25_000),
            },
        ),
        entry(first, NOW + 25_000, DispatchLog::Withdrawn { drivers: vec![far], reason: WithdrawReason::Expired }),
        entry(first, NOW + 25_000, DispatchLog::Exhausted),
    ];
    // Two batches, the other booking's entries in between.
    fixture.append_dispatch_events(&timeline[..2], NOW).await.unwrap();
    fixture.append_dispatch_events(&[entry(other, NOW + 1_000, DispatchLog::Cancelled)], NOW).await.unwrap();
    fixture.append_dispatch_events(&timeline[2..], NOW).await.unwrap();
    fixture.append_dispatch_events(&[], NOW).await.unwrap();
    assert_eq!(fixture.dispatch_events(first).await.unwrap(), timeline);
    assert_eq!(fixture.dispatch_events(other).await.unwrap().len(), 1);
    assert_eq!(fixture.dispatch_events(BookingId::from_u128(404)).await.unwrap(), vec![]);
    // A batch larger than one statement's bound values keeps its order.
    let many: Vec<DispatchEntry> =
        (0..700).map(|index| entry(other, NOW + 2_000, DispatchLog::NoCandidates { wave: index })).collect();
    fixture.append_dispatch_events(&many, NOW).await.unwrap();
    let read = fixture.dispatch_events(other).await.unwrap();
    assert_eq!(read.len(), 701);
    assert_eq!(&read[1..], &many[..]);
    // The console's backlog: the newest first, across bookings, as written.
    let recent = fixture.recent_dispatch_events(3).await.unwrap();
    let newest: Vec<DispatchEntry> = many[697..].iter().rev().cloned().collect();
    assert_eq!(recent, newest);
    let all = fixture.recent_dispatch_events(10_000).await.unwrap();
    assert_eq!(all.len(), timeline.len() + 701);
    assert_eq!(all.last(), timeline.first(), "the oldest entry comes last");
}

async fn chat_messages_are_marked_read_once(fixture: Fixture) {
    let customer = rider(1);
    let driver = driver(2, None);
    insert_users(&fixture, &[&customer, &driver]).await;
    let booking = booking(1, &customer, BookingStatus::Accepted, NOW);
    fixture.commit_booking(&booking, None, &[], NOW).await.unwrap();
    let message = |from: &User, source: Role, text: &str, at: Millis| ChatMessage {
        message: text.into(),
        from: from.id,
        message_type: "msg".into(),
        msgDate: "01:01:2026".into(),
        msgTime: "00:00".into(),
        source,
        smsId: None,
        createdAt: at,
    };
    let sent = [
        message(&customer, Role::Rider, "Where are you?", NOW + 1),
        message(&driver, Role::Driver, "Two minutes", NOW + 2),
        message(&customer, Role::Rider, "Thanks", NOW + 3),
    ];
    let mut stored = Vec::new();
    for chat in &sent {
        stored.push(fixture.append_chat(booking.id, chat).await.unwrap());
    }
    let listed = fixture.chat(booking.id).await.unwrap();
    assert_eq!(listed, stored);
    assert_eq!(json_of(&listed[0])["type"], json!("msg"));
    assert_eq!(json_of(&listed[0])["msgDate"], json!("01:01:2026"));

    assert_eq!(fixture.mark_chat_read(booking.id, driver.id, NOW + 10).await.unwrap(), 2);
    assert_eq!(fixture.mark_chat_read(booking.id, driver.id, NOW + 11).await.unwrap(), 0);
    let listed = fixture.chat(booking.id).await.unwrap();
    let read: Vec<(Option<Millis>, bool)> =
        listed.iter().map(|chat| (chat.read_at, chat.message.smsId.is_some())).collect();
    assert_eq!(read, [(Some(NOW + 10), true), (None, false), (Some(NOW + 10), true)]);
    assert_eq!(listed[0].message.smsId, Some(listed[0].id.to_string()));
    assert_eq!(fixture.mark_chat_read(booking.id, customer.id, NOW + 12).await.unwrap(), 1);
    assert!(matches!(fixture.append_chat(BookingId::from_u128(404), &sent[0]).await, Err(StorageError::NotFound)));
}

// ---- promos, notifications, languages, files ---------------------------------------

fn promo(number: u128, name: &str) -> Promo {
    Promo {
        id: PromoId::from_u128(number),
        promo_name: name.into(),
        promo_description: "Spring offer".into(),
        promo_discount_type: AmountType::Percentage,
        promo_discount_value: dec!(10),
        max_promo_discount_value: dec!(5),
        min_order: dec!(15),
        promo_validity: NOW + 86_400_000,
        promo_usage_limit: 100,
        user_avail: 0,
        createdAt: NOW + number as i64,
    }
}

async fn promos_round_trip_and_count_their_users(fixture: Fixture) {
    let spring = promo(1, "SPRING");
    let summer = promo(2, "SUMMER");
    fixture.save_promo(&spring, NOW).await.unwrap();
    fixture.save_promo(&summer, NOW).await.unwrap();
    assert_eq!(json_of(&fixture.promo(spring.id).await.unwrap()), json_of(&spring));
    assert_eq!(fixture.promo_by_name("SUMMER").await.unwrap().unwrap().id, summer.id);
    assert_eq!(fixture.promo_by_name("WINTER").await.unwrap(), None);
    assert_eq!(
        fixture.promos().await.unwrap().iter().map(|promo| promo.id).collect::<Vec<_>>(),
        [spring.id, summer.id]
    );
    assert!(matches!(
        fixture.save_promo(&Promo { promo_name: "SPRING".into(), ..promo(3, "x") }, NOW).await,
        Err(StorageError::Duplicate("name"))
    ));

    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let mut booking = booking(1, &customer, BookingStatus::New, NOW);
    booking.promo_applied = true;
    let used = Effect::PromoUsed { promo_name: "SPRING".into(), customer: customer.id };
    fixture.commit_booking(&booking, None, std::slice::from_ref(&used), NOW).await.unwrap();
    assert!(fixture.promo_used_by("SPRING", customer.id).await.unwrap());
    assert!(!fixture.promo_used_by("SUMMER", customer.id).await.unwrap());
    // The count is the store's: an edit that carries a stale count keeps it.
    let edited = Promo { promo_discount_value: dec!(15), user_avail: 0, ..spring.clone() };
    fixture.save_promo(&edited, NOW).await.unwrap();
    let stored = fixture.promo(spring.id).await.unwrap();
    assert_eq!((stored.promo_discount_value, stored.user_avail), (dec!(15), 1));
    fixture.delete_promo(summer.id).await.unwrap();
    assert!(matches!(fixture.promo(summer.id).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.delete_promo(summer.id).await, Err(StorageError::NotFound)));
}

async fn notifications_round_trip(fixture: Fixture) {
    let notification = Notification {
        id: NotificationId::from_u128(1),
        devicetype: DeviceTarget::Android,
        usertype: UserTarget::Driver,
        title: "Rain".into(),
        body: "Surge tonight".into(),
        createdAt: NOW,
    };
    fixture.insert_notification(&notification).await.unwrap();
    let listed = fixture.notifications(&PageRequest::first(10)).await.unwrap();
    assert_eq!(json_of(&listed.items), json!([json_of(&notification)]));
    assert_eq!(json_of(&notification)["devicetype"], json!("ANDROID"));
    fixture.delete_notification(notification.id).await.unwrap();
    assert!(fixture.notifications(&PageRequest::first(10)).await.unwrap().items.is_empty());
    assert!(matches!(fixture.delete_notification(notification.id).await, Err(StorageError::NotFound)));
}

fn language(number: u128, locale: &str, default: bool) -> Language {
    Language {
        id: LanguageId::from_u128(number),
        langName: locale.to_uppercase(),
        langLocale: locale.into(),
        dateLocale: locale.into(),
        default,
        keyValuePairs: BTreeMap::from([("book_now".to_string(), format!("Book now ({locale})"))]),
        createdAt: NOW + number as i64,
    }
}

async fn exactly_one_language_is_the_default(fixture: Fixture) {
    let english = language(1, "en", true);
    let french = language(2, "fr", false);
    let arabic = language(3, "ar", false);
    for language in [&english, &french, &arabic] {
        fixture.save_language(language, NOW).await.unwrap();
    }
    let defaults = |languages: Vec<Language>| {
        languages.into_iter().filter(|language| language.default).map(|language| language.id).collect::<Vec<_>>()
    };
    assert_eq!(defaults(fixture.languages().await.unwrap()), [english.id]);
    assert_eq!(json_of(&fixture.languages().await.unwrap()[0]), json_of(&english));

    // The database itself refuses a second default.
    let error = fixture.raw_execute("UPDATE languages SET is_default = TRUE").await.unwrap_err();
    assert!(error.as_database_error().is_some_and(|error| error.is_unique_violation()), "{error}");
    assert_eq!(defaults(fixture.languages().await.unwrap()), [english.id]);

    fixture.make_default_language(french.id, NOW).await.unwrap();
    assert_eq!(defaults(fixture.languages().await.unwrap()), [french.id]);
    // Saving a language as default takes the flag too.
    fixture.save_language(&Language { default: true, ..arabic.clone() }, NOW).await.unwrap();
    assert_eq!(defaults(fixture.languages().await.unwrap()), [arabic.id]);
    // The default can be neither deleted nor saved as not default.
    assert!(matches!(fixture.delete_language(arabic.id).await, Err(StorageError::DefaultLanguage)));
    assert!(matches!(fixture.save_language(&arabic, NOW).await, Err(StorageError::DefaultLanguage)));
    assert_eq!(defaults(fixture.languages().await.unwrap()), [arabic.id]);
    fixture.delete_language(english.id).await.unwrap();
    assert!(matches!(fixture.delete_language(english.id).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.make_default_language(english.id, NOW).await, Err(StorageError::NotFound)));
    assert_eq!(defaults(fixture.languages().await.unwrap()), [arabic.id]);
    let edited =
        Language { keyValuePairs: BTreeMap::from([("hello".to_string(), "bonjour".to_string())]), ..french.clone() };
    fixture.save_language(&edited, NOW).await.unwrap();
    assert_eq!(fixture.languages().await.unwrap().iter().find(|language| language.id == french.id), Some(&edited));
}

async fn concurrent_make_default_leaves_exactly_one_default(fixture: Fixture) {
    let languages: Vec<Language> = ["en", "fr", "ar", "de", "es"]
        .iter()
        .enumerate()
        .map(|(index, locale)| language(index as u128 + 1, locale, index == 0))
        .collect();
    for language in &languages {
        fixture.save_language(language, NOW).await.unwrap();
    }
    for round in 0..5 {
        let tasks: Vec<_> = languages
            .iter()
            .map(|language| {
                let storage = fixture.storage.clone();
                let id = language.id;
                tokio::spawn(async move { storage.make_default_language(id, NOW + round).await })
            })
            .collect();
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) | Err(StorageError::Conflict) => {}
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        let defaults = fixture.languages().await.unwrap().into_iter().filter(|language| language.default).count();
        assert_eq!(defaults, 1, "round {round}");
    }
}

async fn files_metadata_round_trips(fixture: Fixture) {
    let file = FileRecord {
        id: Uuid::from_u128(0xF11E),
        owner: Some(UserId::from_u128(1)),
        key: "users/1/profileImage".into(),
        mime: "image/jpeg".into(),
        size: 123_456,
        created_at: NOW,
    };
    fixture.insert_file(&file).await.unwrap();
    assert_eq!(fixture.file(file.id).await.unwrap(), file);
    assert!(matches!(fixture.file(Uuid::from_u128(404)).await, Err(StorageError::NotFound)));
}

// ---- payments ---------------------------------------------------------------------

async fn payments_round_trip_and_settle_once(fixture: Fixture) {
    let customer = rider(1);
    fixture.insert_user(&customer).await.unwrap();
    let ride = booking(1, &customer, BookingStatus::PaymentPending, NOW);
    fixture.commit_booking(&ride, None, &[], NOW).await.unwrap();
    let payment = |number: u128, order: PaymentOrder| PaymentRecord {
        id: Uuid::from_u128(number),
        gateway: "stripe".into(),
        order,
        customer: customer.id,
        amount: dec!(25.85),
        currency: "USD".into(),
        status: PaymentStatus::Pending,
        gateway_ref: None,
        event_id: None,
        success_url: "/bookings".into(),
        cancel_url: "/".into(),
        settled_at: None,
        created_at: NOW,
    };
    let for_booking = payment(1, PaymentOrder::Booking(ride.id));
    let top_up = payment(2, PaymentOrder::WalletTopUp);
    fixture.insert_payment(&for_booking).await.unwrap();
    fixture.insert_payment(&top_up).await.unwrap();
    assert_eq!(fixture.payment(for_booking.id).await.unwrap(), for_booking);
    assert_eq!(fixture.payment(top_up.id).await.unwrap(), top_up);
    assert!(matches!(fixture.payment(Uuid::from_u128(404)).await, Err(StorageError::NotFound)));

    fixture.set_payment_reference(for_booking.id, "cs_test_1", NOW + 1).await.unwrap();
    assert_eq!(fixture.payment_by_reference("stripe", "cs_test_1").await.unwrap().id, for_booking.id);
    assert!(matches!(fixture.payment_by_reference("paystack", "cs_test_1").await, Err(StorageError::NotFound)));
    let newest_first: Vec<Uuid> =
        fixture.payments_of(for_booking.customer, 10).await.unwrap().iter().map(|payment| payment.id).collect();
    assert_eq!(newest_first, vec![top_up.id, for_booking.id]);
    assert_eq!(fixture.payments_of(for_booking.customer, 1).await.unwrap().len(), 1);
    // A gateway's id names one payment only.
    assert!(matches!(
        fixture.set_payment_reference(top_up.id, "cs_test_1", NOW + 1).await,
        Err(StorageError::Duplicate(_))
    ));

    // Settled once: the second confirmation changes nothing.
    assert!(fixture.settle_payment(for_booking.id, PaymentStatus::Paid, Some("evt_1"), NOW + 2).await.unwrap());
    assert!(!fixture.settle_payment(for_booking.id, PaymentStatus::Paid, Some("evt_2"), NOW + 3).await.unwrap());
    assert!(!fixture.settle_payment(for_booking.id, PaymentStatus::Failed, None, NOW + 3).await.unwrap());
    let settled = fixture.payment(for_booking.id).await.unwrap();
    assert_eq!(
        (settled.status, settled.gateway_ref.as_deref(), settled.event_id.as_deref(), settled.settled_at),
        (PaymentStatus::Paid, Some("cs_test_1"), Some("evt_1"), Some(NOW + 2))
    );
    assert!(fixture.settle_payment(top_up.id, PaymentStatus::Failed, None, NOW + 2).await.unwrap());
    assert_eq!(fixture.payment(top_up.id).await.unwrap().status, PaymentStatus::Failed);
    assert!(matches!(
        fixture.settle_payment(Uuid::from_u128(404), PaymentStatus::Paid, None, NOW).await,
        Err(StorageError::NotFound)
    ));
}

// ---- sign-in ---------------------------------------------------------------------

async fn sign_in_challenges_count_attempts_and_are_consumed_once(fixture: Fixture) {
    let challenge = |number: u128, at: Millis| Challenge {
        id: Uuid::from_u128(number),
        contact: "rider@wayfare.test".into(),
        code_hash: format!("hash-{number}"),
        created_at: at,
        expires_at: at + 600_000,
        attempts: 0,
        consumed_at: None,
        client: Some("203.0.113.7".into()),
    };
    let older = challenge(1, NOW);
    let newer = challenge(2, NOW + 60_000);
    fixture.insert_challenge(&older).await.unwrap();
    fixture.insert_challenge(&newer).await.unwrap();
    assert_eq!(fixture.latest_challenge("rider@wayfare.test").await.unwrap(), Some(newer.clone()));
    assert_eq!(fixture.latest_challenge("other@wayfare.test").await.unwrap(), None);
    assert_eq!(fixture.record_failed_attempt(newer.id).await.unwrap(), 1);
    assert_eq!(fixture.record_failed_attempt(newer.id).await.unwrap(), 2);
    assert_eq!(fixture.latest_challenge("rider@wayfare.test").await.unwrap().unwrap().attempts, 2);
    fixture.consume_challenge(newer.id, NOW + 70_000).await.unwrap();
    assert!(matches!(fixture.consume_challenge(newer.id, NOW + 71_000).await, Err(StorageError::AlreadyProcessed)));
    assert!(matches!(fixture.consume_challenge(Uuid::from_u128(404), NOW).await, Err(StorageError::NotFound)));
    assert!(matches!(fixture.record_failed_attempt(Uuid::from_u128(404)).await, Err(StorageError::NotFound)));
    assert_eq!(fixture.latest_challenge("rider@wayfare.test").await.unwrap(), Some(older));
    assert_eq!(fixture.challenges_since("rider@wayfare.test", NOW).await.unwrap(), 2);
    assert_eq!(fixture.challenges_since("rider@wayfare.test", NOW + 1).await.unwrap(), 1);
}

async fn sessions_are_found_by_token_hash_and_revoked(fixture: Fixture) {
    let rider = rider(1);
    insert_users(&fixture, &[&rider]).await;
    let session = |hash: &str| Session {
        token_hash: hash.into(),
        user: rider.id,
        created_at: NOW,
        expires_at: NOW + 86_400_000,
        revoked_at: None,
    };
    for hash in ["h1", "h2", "h3"] {
        fixture.insert_session(&session(hash)).await.unwrap();
    }
    assert_eq!(fixture.session("h1").await.unwrap(), Some(session("h1")));
    assert_eq!(fixture.session("nope").await.unwrap(), None);
    let (found, user) = fixture.session_with_user("h2").await.unwrap().unwrap();
    assert_eq!(found, session("h2"));
    assert_eq!(user, fixture.user(rider.id).await.unwrap(), "the same user as read alone");
    assert_eq!(fixture.session_with_user("nope").await.unwrap(), None);
    fixture.revoke_session("h1", NOW + 5).await.unwrap();
    fixture.revoke_session("h1", NOW + 9).await.unwrap();
    assert_eq!(fixture.session("h1").await.unwrap().unwrap().revoked_at, Some(NOW + 5));
    assert!(matches!(fixture.revoke_session("nope", NOW).await, Err(StorageError::NotFound)));
    assert_eq!(fixture.revoke_user_sessions(rider.id, NOW + 10).await.unwrap(), 2);
    assert_eq!(fixture.session("h3").await.unwrap().unwrap().revoked_at, Some(NOW + 10));
    assert!(matches!(
        fixture.insert_session(&Session { user: UserId::from_u128(404), ..session("h4") }).await,
        Err(StorageError::NotFound)
    ));
    assert_eq!(fixture.backend() == Backend::Sqlite, matches!(fixture.concrete, support::Concrete::Sqlite(_)));
}

async fn oauth_attempts_are_taken_once_with_their_state_before_they_expire(fixture: Fixture) {
    let attempt = |number: u128, at: Millis| OAuthAttempt {
        id: Uuid::from_u128(number),
        provider: "google".into(),
        state_hash: format!("state-{number}"),
        code_verifier: format!("verifier-{number}"),
        nonce: format!("nonce-{number}"),
        redirect_uri: "https://ride.test/api/v1/auth/oauth/google/callback".into(),
        return_to: "/bookings".into(),
        created_at: at,
        expires_at: at + 600_000,
    };
    let first = attempt(1, NOW);
    fixture.insert_oauth_attempt(&first).await.unwrap();
    let not_found = |result: Result<OAuthAttempt, StorageError>| matches!(result, Err(StorageError::NotFound));
    assert!(not_found(fixture.take_oauth_attempt(first.id, "state-2", NOW + 1).await), "another state");
    assert!(not_found(fixture.take_oauth_attempt(Uuid::from_u128(404), "state-1", NOW + 1).await));
    assert_eq!(fixture.take_oauth_attempt(first.id, "state-1", NOW + 1).await.unwrap(), first, "a wrong state left it");
    assert!(not_found(fixture.take_oauth_attempt(first.id, "state-1", NOW + 2).await), "single use");
    let second = attempt(2, NOW);
    fixture.insert_oauth_attempt(&second).await.unwrap();
    assert!(not_found(fixture.take_oauth_attempt(second.id, "state-2", second.expires_at).await), "expired");
    // A later attempt forgets the expired one.
    fixture.insert_oauth_attempt(&attempt(3, second.expires_at + 1)).await.unwrap();
    assert!(not_found(fixture.take_oauth_attempt(second.id, "state-2", NOW + 5).await));
}

async fn identities_link_one_person_to_one_user(fixture: Fixture) {
    let (first, second) = (rider(1), rider(2));
    insert_users(&fixture, &[&first, &second]).await;
    let identity = |subject: &str, user: UserId| UserIdentity {
        provider: "google".into(),
        subject: subject.into(),
        user,
        email: "rider@wayfare.test".into(),
        created_at: NOW,
    };
    assert_eq!(fixture.user_by_identity("google", "g-1").await.unwrap(), None);
    fixture.link_identity(&identity("g-1", first.id)).await.unwrap();
    fixture.link_identity(&identity("g-2", first.id)).await.unwrap();
    let linked = fixture.user_by_identity("google", "g-1").await.unwrap().unwrap();
    assert_eq!(linked, fixture.user(first.id).await.unwrap());
    assert_eq!(fixture.user_by_identity("facebook", "g-1").await.unwrap(), None, "subjects are per provider");
    assert!(matches!(fixture.link_identity(&identity("g-1", second.id)).await, Err(StorageError::Duplicate(_))));
    assert!(matches!(
        fixture.link_identity(&identity("g-3", UserId::from_u128(404))).await,
        Err(StorageError::NotFound)
    ));
    fixture.delete_user(first.id).await.unwrap();
    assert_eq!(fixture.user_by_identity("google", "g-2").await.unwrap(), None, "gone with the user");
}

// ---- consistency ----------------------------------------------------------------

async fn the_audit_finds_what_a_crash_must_never_leave(fixture: Fixture) {
    let customer = rider(1);
    let (first, second) = (driver(2, None), driver(3, None));
    insert_users(&fixture, &[&customer, &first, &second]).await;
    fixture.apply_wallet(&credit(customer.id, dec!(20), "topup"), NOW).await.unwrap();
    fixture.apply_wallet(&debit(customer.id, dec!(5), "ride"), NOW).await.unwrap();
    let mut accepted = booking(1, &customer, BookingStatus::Accepted, NOW);
    assign(&mut accepted, &first);
    let busy = [Effect::SetQueue { driver: first.id, busy: true }];
    fixture.commit_booking(&accepted, None, &busy, NOW).await.unwrap();
    let mut waiting = booking(2, &customer, BookingStatus::New, NOW);
    waiting.requestedDrivers.0.insert(second.id);
    fixture.commit_booking(&waiting, None, &[], NOW).await.unwrap();
    let mut paid = booking(3, &customer, BookingStatus::Paid, NOW);
    assign(&mut paid, &second);
    fixture.commit_booking(&paid, None, &[], NOW).await.unwrap();

    let clean = fixture.audit().await.unwrap();
    assert!(clean.is_clean(), "{clean:?}");
    assert_eq!((clean.users, clean.bookings, clean.active_bookings), (3, 3, 3));

    // What the engine never writes, written around it.
    fixture
        .raw_execute("UPDATE users SET wallet_balance_micros = wallet_balance_micros + 1 WHERE role = 'rider'")
        .await
        .unwrap();
    let mut twice = booking(4, &customer, BookingStatus::Arrived, NOW);
    assign(&mut twice, &first);
    fixture.commit_booking(&twice, None, &[], NOW).await.unwrap();
    fixture.set_queue(second.id, true, NOW).await.unwrap();
    let mut driverless = booking(5, &customer, BookingStatus::Started, NOW);
    driverless.requestedDrivers.0.insert(second.id);
    fixture.commit_booking(&driverless, None, &[], NOW).await.unwrap();
    fixture.raw_execute("UPDATE bookings SET active = NOT active WHERE status = 'NEW'").await.unwrap();

    let audit = fixture.audit().await.unwrap();
    assert!(!audit.is_clean());
    assert_eq!(audit.wallet_mismatches.len(), 1, "{audit:?}");
    let mismatch = &audit.wallet_mismatches[0];
    assert_eq!((mismatch.user, mismatch.balance_micros, mismatch.ledger_micros), (customer.id, 15_000_001, 15_000_000));
    assert_eq!(audit.drivers_on_two_trips, vec![first.id]);
    assert_eq!(audit.busy_flag_mismatches, vec![second.id]);
    assert_eq!(audit.active_flag_mismatches, vec![waiting.id]);
    assert_eq!(audit.trips_without_driver, vec![driverless.id]);
    assert_eq!(audit.offers_on_taken_bookings, vec![driverless.id]);
    assert_eq!((audit.bookings, audit.active_bookings), (5, 4));
}

// ---- cluster leases -------------------------------------------------------------

async fn a_lease_changes_hands_only_once_it_lapsed(fixture: Fixture) {
    assert!(fixture.acquire_lease("booking", "b1", "a", NOW, NOW + 10_000).await.unwrap());
    assert!(fixture.acquire_lease("booking", "b2", "a", NOW, NOW + 10_000).await.unwrap());
    // Held: another node is refused, the holder renews.
    assert!(!fixture.acquire_lease("booking", "b1", "b", NOW + 9_999, NOW + 19_999).await.unwrap());
    assert!(fixture.acquire_lease("booking", "b1", "a", NOW + 5_000, NOW + 15_000).await.unwrap());
    assert!(fixture.lapsed_leases("booking", NOW + 10_000, 10).await.unwrap().iter().map(|l| &l.key).eq(["b2"]));
    let mut renewed = fixture.renew_leases("a", NOW + 6_000, NOW + 20_000).await.unwrap();
    renewed.sort_by(|one, other| one.key.cmp(&other.key));
    let renewed: Vec<_> = renewed.iter().map(|l| (l.kind.as_str(), l.key.as_str(), l.expires_at)).collect();
    assert_eq!(renewed, [("booking", "b1", NOW + 20_000), ("booking", "b2", NOW + 20_000)]);
    assert!(fixture.lapsed_leases("booking", NOW + 19_999, 10).await.unwrap().is_empty());
    assert!(!fixture.acquire_lease("booking", "b1", "b", NOW + 19_999, NOW + 30_000).await.unwrap());

    // Node a stops renewing: at expiry the lease is anyone's, and b's.
    let lapsed = fixture.lapsed_leases("booking", NOW + 20_000, 1).await.unwrap();
    assert_eq!(lapsed.len(), 1, "the limit holds");
    assert_eq!((lapsed[0].node.as_str(), lapsed[0].expires_at), ("a", NOW + 20_000));
    assert!(fixture.acquire_lease("booking", "b1", "b", NOW + 20_000, NOW + 30_000).await.unwrap());
    let lease = fixture.lease("booking", "b1").await.unwrap().unwrap();
    assert_eq!((lease.node.as_str(), lease.expires_at), ("b", NOW + 30_000));
    // Other kinds are other keys.
    assert!(fixture.acquire_lease("region", "b1", "a", NOW, NOW + 10_000).await.unwrap());

    // Releases: one, only by its holder; then all of a node's.
    fixture.release_lease("booking", "b1", "a").await.unwrap();
    assert!(fixture.lease("booking", "b1").await.unwrap().is_some(), "a no longer holds it");
    fixture.release_lease("booking", "b1", "b").await.unwrap();
    assert_eq!(fixture.lease("booking", "b1").await.unwrap(), None);
    // A graceful stop lets a node's leases lapse at once, for others to take.
    assert_eq!(fixture.release_node_leases("a").await.unwrap(), 2);
    let lapsed = fixture.lapsed_leases("booking", NOW + 21_000, 10).await.unwrap();
    assert!(lapsed.iter().map(|l| (l.key.as_str(), l.node.as_str())).eq([("b2", "a")]), "{lapsed:?}");
    // Lapsed leases are not revived by their old holder's renewal.
    assert!(fixture.renew_leases("a", NOW + 21_000, NOW + 40_000).await.unwrap().is_empty());
    assert!(fixture.acquire_lease("booking", "b2", "b", NOW + 21_000, NOW + 40_000).await.unwrap());
}

async fn a_dead_node_is_buried_once_and_only_while_its_heartbeat_is_lapsed(fixture: Fixture) {
    // Node a: a heartbeat (held by its process) and two bookings; node b's one.
    assert!(fixture.acquire_lease("node", "a", "pid-1", NOW, NOW + 1_000).await.unwrap());
    assert!(fixture.acquire_lease("booking", "b1", "a", NOW, NOW + 10_000).await.unwrap());
    assert!(fixture.acquire_lease("booking", "b2", "a", NOW, NOW + 10_000).await.unwrap());
    assert!(fixture.acquire_lease("booking", "b3", "b", NOW, NOW + 10_000).await.unwrap());
    // Fresh: not buried, nothing lapses.
    assert_eq!(fixture.bury_node("node", "a", NOW + 999).await.unwrap(), None);
    assert!(fixture.lapsed_leases("booking", NOW + 999, 10).await.unwrap().is_empty());
    // Another process under a's name waits until the heartbeat lapsed.
    assert!(!fixture.acquire_lease("node", "a", "pid-2", NOW + 999, NOW + 1_999).await.unwrap());
    // Lapsed: buried once, its leases lapse at once, b's stay.
    assert_eq!(fixture.bury_node("node", "a", NOW + 1_000).await.unwrap(), Some(2));
    assert_eq!(fixture.bury_node("node", "a", NOW + 1_000).await.unwrap(), None, "buried once");
    assert_eq!(fixture.lease("node", "a").await.unwrap(), None);
    let lapsed = fixture.lapsed_leases("booking", NOW + 1_000, 10).await.unwrap();
    assert!(lapsed.iter().map(|l| (l.key.as_str(), l.expires_at)).eq([("b1", 0), ("b2", 0)]), "{lapsed:?}");
    // A node back under that name (a fresh heartbeat) is not buried.
    assert!(fixture.acquire_lease("node", "a", "pid-2", NOW + 1_001, NOW + 2_001).await.unwrap());
    assert_eq!(fixture.bury_node("node", "a", NOW + 1_500).await.unwrap(), None);
    assert_eq!(fixture.lease("node", "a").await.unwrap().map(|l| l.node), Some("pid-2".to_string()));
}

async fn of_many_nodes_taking_one_free_lease_at_once_one_wins(fixture: Fixture) {
    for round in 0..5 {
        let key = format!("booking-{round}");
        let attempts: Vec<_> = (0..16)
            .map(|node| {
                let storage = fixture.storage.clone();
                let key = key.clone();
                tokio::spawn(async move {
                    storage.acquire_lease("booking", &key, &format!("node-{node}"), NOW, NOW + 10_000).await.unwrap()
                })
            })
            .collect();
        let mut won = 0;
        for attempt in attempts {
            won += usize::from(attempt.await.unwrap());
        }
        assert_eq!(won, 1, "round {round}");
    }
}

/// SQLite copies its WAL into the database file in the background: no
/// commit pays for a checkpoint and its fsync (docs/benchmarks.md), and the
/// WAL stays short. Commits alone would leave these pages in the WAL (they
/// checkpoint only past 10,000 pages).
#[tokio::test]
async fn sqlite_checkpoints_the_wal_in_the_background() {
    let directory = tempfile::tempdir().expect("temp dir");
    let path = directory.path().join("wayfare.db");
    let storage = wayfare_storage::sqlite::SqliteStorage::open(&path).await.expect("open");
    let file_size = || std::fs::metadata(&path).expect("database file").len();
    // The migrations' pages reach the file first.
    let mut before = file_size();
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        before = before.max(file_size());
    }
    for number in 0..100 {
        storage.insert_user(&rider(10_000 + number)).await.expect("insert user");
    }
    let wal = path.with_extension("db-wal");
    assert!(std::fs::metadata(&wal).expect("a WAL").len() > 0);
    for _ in 0..50 {
        if file_size() > before {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the database file stayed at {before} bytes: nothing checkpointed the WAL");
}

// ---- SOS alerts (issue 33) ----------------------------------------------------

/// An alert on `booking` raised by its customer at `at`, for `fleet`.
fn sos_alert(number: u128, booking: &Booking, fleet: Option<UserId>, at: Millis) -> SosAlert {
    SosAlert {
        id: SosId::from_u128(number),
        booking: booking.id,
        reference: booking.reference.clone(),
        raised_by: booking.customer,
        raised_by_role: SosRaiser::Rider,
        raised_by_name: "First1 Last1".into(),
        lat: 39.2846,
        lng: -76.6205,
        created_at: at,
        fleetadmin: fleet,
        taken_by: None,
        taken_by_name: String::new(),
        taken_at: None,
        resolved_by: None,
        resolved_by_name: String::new(),
        resolved_at: None,
        note: String::new(),
    }
}

async fn an_sos_is_stored_once_per_raiser_while_open(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let trip = booking(1, &customer, BookingStatus::Started, NOW);
    fixture.commit_booking(&trip, None, &[], NOW).await.unwrap();
    let first = sos_alert(1, &trip, Some(UserId::from_u128(77)), NOW);
    let (stored, created) = fixture.raise_sos(&first, NOW).await.unwrap();
    assert!(created);
    assert_eq!(stored, first);
    assert_eq!(fixture.sos_alert(first.id).await.unwrap(), first);
    // A second press while it is open: the first alert, nothing new.
    let second = SosAlert { lat: 40.0, created_at: NOW + 5, ..sos_alert(2, &trip, None, NOW + 5) };
    let (again, created) = fixture.raise_sos(&second, NOW + 5).await.unwrap();
    assert_eq!((again, created), (first.clone(), false));
    assert_eq!(fixture.raw_scalar("SELECT COUNT(*) FROM sos_alerts").await, 1);
    // Resolved, the next press is a new alert.
    let resolved = sos::resolve(&first, UserId::from_u128(9), "Admin", "fine", NOW + 10).unwrap();
    fixture.update_sos(&resolved, SosState::Open, NOW + 10).await.unwrap();
    let (third, created) = fixture.raise_sos(&second, NOW + 20).await.unwrap();
    assert!(created);
    assert_eq!(third, second);
    assert!(matches!(fixture.sos_alert(SosId::from_u128(404)).await, Err(StorageError::NotFound)));
    // An alert on no booking is refused by the foreign key.
    let mut orphan = sos_alert(5, &trip, None, NOW);
    orphan.booking = BookingId::from_u128(404);
    assert!(matches!(fixture.raise_sos(&orphan, NOW).await, Err(StorageError::NotFound)));
}

async fn sos_alerts_list_open_first_newest_first_by_fleet(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let ours = Some(UserId::from_u128(77));
    let theirs = Some(UserId::from_u128(78));
    let mut alerts = Vec::new();
    for number in 1..=6u128 {
        let trip = booking(number, &customer, BookingStatus::Started, NOW);
        fixture.commit_booking(&trip, None, &[], NOW).await.unwrap();
        let fleet = if number % 2 == 0 { theirs } else { ours };
        let alert = sos_alert(number, &trip, fleet, NOW + number as i64 * 1_000);
        fixture.raise_sos(&alert, NOW).await.unwrap();
        alerts.push(alert);
    }
    // Resolve 5 and 2, take 3.
    for number in [5usize, 2] {
        let resolved = sos::resolve(&alerts[number - 1], UserId::from_u128(9), "A", "done", NOW + 9_000).unwrap();
        fixture.update_sos(&resolved, SosState::Open, NOW + 9_000).await.unwrap();
    }
    let taken = sos::take(&alerts[2], UserId::from_u128(9), "A", NOW + 9_000).unwrap();
    fixture.update_sos(&taken, SosState::Open, NOW + 9_000).await.unwrap();

    let numbers = |page: &wayfare_storage::Page<SosAlert>| -> Vec<u128> {
        page.items.iter().map(|alert| alert.id.0.as_u128()).collect()
    };
    let all = fixture.sos_alerts(&SosFilter::default(), &PageRequest::first(50)).await.unwrap();
    assert_eq!(numbers(&all), [6, 4, 3, 1, 5, 2]);
    assert_eq!(all.next, None);
    // Page by page, the same order.
    let mut seen = Vec::new();
    let mut page = PageRequest::first(4);
    loop {
        let got = fixture.sos_alerts(&SosFilter::default(), &page).await.unwrap();
        seen.extend(numbers(&got));
        let Some(next) = got.next else { break };
        page = PageRequest { limit: 4, after: Some(next) };
    }
    assert_eq!(seen, [6, 4, 3, 1, 5, 2]);
    let ours_only =
        fixture.sos_alerts(&SosFilter { fleetadmin: ours, open_only: false }, &PageRequest::first(50)).await;
    assert_eq!(numbers(&ours_only.unwrap()), [3, 1, 5]);
    let open = fixture.sos_alerts(&SosFilter { fleetadmin: None, open_only: true }, &PageRequest::first(50)).await;
    assert_eq!(numbers(&open.unwrap()), [6, 4, 1]);
    let theirs_open =
        fixture.sos_alerts(&SosFilter { fleetadmin: theirs, open_only: true }, &PageRequest::first(50)).await;
    assert_eq!(numbers(&theirs_open.unwrap()), [6, 4]);
}

async fn an_sos_step_is_written_only_from_the_state_it_was_decided_on(fixture: Fixture) {
    let customer = rider(1);
    insert_users(&fixture, &[&customer]).await;
    let trip = booking(1, &customer, BookingStatus::Started, NOW);
    fixture.commit_booking(&trip, None, &[], NOW).await.unwrap();
    let alert = sos_alert(1, &trip, None, NOW);
    fixture.raise_sos(&alert, NOW).await.unwrap();
    let one = sos::take(&alert, UserId::from_u128(8), "One", NOW + 1).unwrap();
    let other = sos::take(&alert, UserId::from_u128(9), "Other", NOW + 2).unwrap();
    fixture.update_sos(&one, SosState::Open, NOW + 1).await.unwrap();
    // Decided on the open alert, written after the first: refused.
    assert!(matches!(fixture.update_sos(&other, SosState::Open, NOW + 2).await, Err(StorageError::Conflict)));
    assert_eq!(fixture.sos_alert(alert.id).await.unwrap(), one);
    let resolved = sos::resolve(&one, UserId::from_u128(9), "Other", "handled", NOW + 3).unwrap();
    fixture.update_sos(&resolved, SosState::Taken, NOW + 3).await.unwrap();
    assert_eq!(fixture.sos_alert(alert.id).await.unwrap(), resolved);
    assert!(matches!(fixture.update_sos(&resolved, SosState::Taken, NOW + 4).await, Err(StorageError::Conflict)));
    let unknown = SosAlert { id: SosId::from_u128(404), ..resolved };
    assert!(matches!(fixture.update_sos(&unknown, SosState::Taken, NOW).await, Err(StorageError::NotFound)));
}
