//! The bulk writes of an import (issue #38) on both backends (see
//! `support/mod.rs`): every record by its id, so writing the same records
//! twice leaves every table as the first write made it; the ledger moves a
//! balance once per new entry; an import's tracking points are replaced
//! without touching those Wayfare recorded; an imported default language
//! takes the flag. A first import's bookings and tracking points load into
//! the empty tables with their indexes built once after, writing what the
//! upserts write; a load that fails leaves the tables and their indexes as
//! they were.

mod support;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use support::Concrete;
use support::Fixture;
use uuid::Uuid;
use wayfare_engine::exicube::{ImportedChat, ImportedPoint, ImportedRecord, LedgerLine};
use wayfare_engine::sos::{SosAlert, SosRaiser};
use wayfare_engine::{
    Booking, BookingId, BookingStatus, CarType, CarTypeId, ChatMessage, DeviceTarget, Language, LanguageId, Millis,
    Notification, NotificationId, Promo, PromoId, Role, Settings, SosId, TrackingPoint, User, UserId, UserTarget,
    WalletEntry, WalletEntryType, WithdrawId, WithdrawRequest,
};
use wayfare_storage::{BookingFilter, BookingSort, CatalogueImport, FileRecord, PageRequest, StorageError};

backend_suite!(
    an_import_written_twice_leaves_every_table_as_the_first_made_it,
    the_ledger_moves_each_balance_once_by_its_new_entries,
    replacing_imported_tracking_keeps_what_wayfare_recorded,
    an_imported_default_language_takes_the_flag,
    an_upserted_user_keeps_the_balance_only_the_ledger_moves,
    a_first_import_loads_into_empty_tables_what_the_upserts_write,
    a_failed_first_load_leaves_the_tables_and_their_indexes_as_they_were,
);

const NOW: Millis = 1_767_225_600_000; // 2026-01-01T00:00:00Z

fn user(number: u128, role: Role) -> User {
    let mut user = User::new(UserId::from_u128(0x3800_0000 + number), role, NOW - 1_000 * number as i64);
    user.firstName = format!("Imported{number}");
    user.email = format!("imported{number}@wayfare.test");
    user.mobile = format!("+1555000{number:04}");
    user.referralId = format!("IMP{number:02}");
    user.approved = true;
    user
}

fn booking(number: u128, status: BookingStatus, customer: &User, driver: Option<&User>) -> Booking {
    serde_json::from_value(json!({
        "id": BookingId::from_u128(0x3800_B000 + number),
        "reference": format!("IMP{number:03}"),
        "appcat": "taxi",
        "carType": "Sedan",
        "customer": customer.id,
        "customer_name": customer.full_name(),
        "driver": driver.map(|driver| driver.id),
        "driver_name": driver.map(User::full_name).unwrap_or_default(),
        "pickup": {"lat": 39.2858, "lng": -76.6131, "add": "100 Light St, Baltimore"},
        "drop": {"lat": 39.2634, "lng": -76.5797, "add": "2400 E Fort Ave, Baltimore"},
        "pickupAddress": "100 Light St, Baltimore",
        "dropAddress": "2400 E Fort Ave, Baltimore",
        "estimate": 20,
        "estimateDistance": 3.8,
        "estimateTime": 900,
        "status": status,
        "bookLater": false,
        "tripdate": NOW - 86_400_000 * number as i64,
        "bookingDate": NOW - 86_400_000 * number as i64 - 600_000,
        "trip_cost": 20,
        "convenience_fees": 2,
        "driver_share": 18,
        "payableAmount": 20,
        "customer_paid": 20,
        "payment_mode": "cash",
    }))
    .expect("a valid booking")
}

fn line(user: &User, key: &str, entry_type: WalletEntryType, amount: Decimal) -> LedgerLine {
    LedgerLine {
        id: wayfare_engine::exicube::ids::original_id("test", key),
        user: user.id,
        entry: WalletEntry { entry_type, amount, date: NOW - 5_000, txRef: "AdminCredit".into(), description: None },
        idempotency_key: format!("exicube:{key}"),
    }
}

fn language(number: u128, locale: &str, default: bool) -> Language {
    Language {
        id: LanguageId::from_u128(0x3800_1A00 + number),
        langName: locale.to_uppercase(),
        langLocale: locale.into(),
        dateLocale: locale.into(),
        default,
        keyValuePairs: [("notification_title".to_string(), format!("Hello in {locale}"))].into(),
        createdAt: NOW,
    }
}

fn point(booking: &Booking, at: Millis) -> ImportedPoint {
    ImportedPoint {
        booking: booking.id,
        point: TrackingPoint { at, status: BookingStatus::Started, lat: 39.28, lng: -76.61 },
    }
}

/// Writes a small imported city: its catalogue, people, bookings and what
/// hangs off them.
async fn write_city(fixture: &Fixture, now: Millis) {
    let (rider, driver) = (user(1, Role::Rider), user(2, Role::Driver));
    let settings = Settings { appName: "Imported".into(), decimal: 3, ..Settings::default() };
    let car_type: CarType = serde_json::from_value(json!({
        "id": CarTypeId::from_u128(0x3800_C000), "name": "Sedan", "base_fare": 5, "rate_per_unit_distance": 1,
        "rate_per_hour": 1, "min_fare": 5, "convenience_fees": 10, "convenience_fee_type": "percentage",
        "cancelSlab": [{"minsDelayed": 2, "amount": 3}]
    }))
    .unwrap();
    let promo: Promo = serde_json::from_value(json!({
        "id": PromoId::from_u128(0x3800_D000), "promo_name": "WELCOME", "promo_discount_type": "flat",
        "promo_discount_value": 5, "promo_validity": NOW + 1_000_000, "promo_usage_limit": 10, "user_avail": 4
    }))
    .unwrap();
    let notification = Notification {
        id: NotificationId::from_u128(0x3800_E000),
        devicetype: DeviceTarget::All,
        usertype: UserTarget::All,
        title: "Hi".into(),
        body: "Welcome".into(),
        createdAt: NOW - 100,
    };
    let languages = [language(1, "en", true)];
    let catalogue = CatalogueImport {
        settings: Some(&settings),
        cancel_reasons: Some(&["Late".to_string(), "Changed my mind".to_string()]),
        car_types: std::slice::from_ref(&car_type),
        promos: std::slice::from_ref(&promo),
        promo_uses: &[("WELCOME".to_string(), rider.id)],
        notifications: std::slice::from_ref(&notification),
        languages: &languages,
    };
    fixture.import_catalogue(&catalogue, now).await.unwrap();
    fixture.upsert_users(&[rider.clone(), driver.clone()], now).await.unwrap();
    let mut waiting = booking(1, BookingStatus::New, &rider, None);
    waiting.requestedDrivers.0.insert(driver.id);
    let done = booking(2, BookingStatus::Complete, &rider, Some(&driver));
    fixture.upsert_bookings(&[waiting, done.clone()], now).await.unwrap();
    fixture.replace_imported_tracking(&[point(&done, NOW - 60_000), point(&done, NOW - 30_000)], now).await.unwrap();
    let message = ChatMessage {
        message: "On my way".into(),
        from: driver.id,
        message_type: "msg".into(),
        msgDate: "12:31:2025".into(),
        msgTime: "23:00".into(),
        source: Role::Driver,
        smsId: None,
        createdAt: NOW - 50_000,
    };
    let chat =
        ImportedChat { id: Uuid::from_u128(0x3800_CAFE), booking: done.id, message, read_at: Some(NOW - 50_000) };
    fixture.upsert_chats(&[chat], now).await.unwrap();
    let alert = SosAlert {
        id: SosId::from_u128(0x3800_5050),
        booking: done.id,
        reference: done.reference.clone(),
        raised_by: rider.id,
        raised_by_role: SosRaiser::Rider,
        raised_by_name: rider.full_name(),
        lat: 39.28,
        lng: -76.61,
        created_at: NOW - 40_000,
        fleetadmin: None,
        taken_by: None,
        taken_by_name: String::new(),
        taken_at: None,
        resolved_by: None,
        resolved_by_name: String::new(),
        resolved_at: None,
        note: String::new(),
    };
    fixture.upsert_sos(&[alert], now).await.unwrap();
    let withdraw = WithdrawRequest {
        id: WithdrawId::from_u128(0x3800_3D00),
        uid: driver.id,
        name: driver.full_name(),
        amount: dec!(4),
        date: NOW - 20_000,
        bankName: String::new(),
        bankCode: String::new(),
        bankAccount: String::new(),
        processed: true,
        procesDate: Some(NOW - 10_000),
    };
    fixture.upsert_withdraws(&[withdraw], now).await.unwrap();
    let ledger = [
        line(&driver, "driver/-w1", WalletEntryType::Credit, dec!(18)),
        line(&driver, "driver/-w2", WalletEntryType::Withdraw, dec!(4)),
        line(&rider, "rider/-w1", WalletEntryType::Credit, dec!(7.5)),
    ];
    fixture.import_ledger(&ledger, now).await.unwrap();
    let file = FileRecord {
        id: Uuid::from_u128(0x3800_F11E),
        owner: Some(driver.id),
        key: format!("users/{}/profileImage/x.png", driver.id),
        mime: "image/png".into(),
        size: 10,
        created_at: now,
    };
    fixture.upsert_files(&[file], now).await.unwrap();
    let record = ImportedRecord {
        node: "users".into(),
        key: "Udriver".into(),
        entity: Some(driver.id.0),
        extra: json!({"licenseImageBack": "https://example/back"}).as_object().unwrap().clone(),
    };
    fixture.upsert_imported_records("exicube", &[record], now).await.unwrap();
}

async fn an_import_written_twice_leaves_every_table_as_the_first_made_it(fixture: Fixture) {
    write_city(&fixture, NOW).await;
    let first = fixture.table_counts().await.unwrap();
    for (table, rows) in [
        ("settings", 1),
        ("cancel_reasons", 2),
        ("car_types", 1),
        ("promos", 1),
        ("promo_uses", 1),
        ("notifications", 1),
        ("languages", 1),
        ("users", 2),
        ("bookings", 2),
        ("booking_offers", 1),
        ("tracking_points", 2),
        ("chat_messages", 1),
        ("sos_alerts", 1),
        ("withdraws", 1),
        ("wallet_entries", 3),
        ("files", 1),
        ("imported_records", 1),
    ] {
        assert_eq!(first[table], rows, "{table}");
    }
    write_city(&fixture, NOW + 1_000).await;
    assert_eq!(fixture.table_counts().await.unwrap(), first);
    let driver = user(2, Role::Driver);
    assert_eq!(fixture.wallet_balance(driver.id).await.unwrap(), dec!(14));
    // The second write is an update: the booking's version moved on.
    let done = fixture.booking(BookingId::from_u128(0x3800_B002)).await.unwrap();
    assert_eq!((done.version, done.status), (2, BookingStatus::Complete));
    assert_eq!(fixture.promo(PromoId::from_u128(0x3800_D000)).await.unwrap().user_avail, 4);
    assert_eq!(fixture.settings().await.unwrap().unwrap().appName, "Imported");
    assert_eq!(fixture.bookings_offered_to(driver.id).await.unwrap().len(), 1);
    let chat = fixture.chat(done.id).await.unwrap();
    assert_eq!(chat[0].read_at, Some(NOW - 50_000));
    assert!(fixture.audit().await.unwrap().is_clean());
}

async fn the_ledger_moves_each_balance_once_by_its_new_entries(fixture: Fixture) {
    let (rider, driver) = (user(1, Role::Rider), user(2, Role::Driver));
    fixture.upsert_users(&[rider.clone(), driver.clone()], NOW).await.unwrap();
    let lines = [
        line(&rider, "r/1", WalletEntryType::Credit, dec!(10)),
        line(&rider, "r/2", WalletEntryType::Debit, dec!(2.5)),
        line(&driver, "d/1", WalletEntryType::Debit, dec!(3)),
    ];
    assert_eq!(fixture.import_ledger(&lines, NOW).await.unwrap(), 3);
    assert_eq!(fixture.import_ledger(&lines, NOW).await.unwrap(), 0, "written before: nothing moves");
    let more = [lines[0].clone(), line(&rider, "r/3", WalletEntryType::Credit, dec!(1))];
    assert_eq!(fixture.import_ledger(&more, NOW).await.unwrap(), 1);
    let mut balances = fixture.wallet_balances(&[rider.id, driver.id, UserId::from_u128(9)]).await.unwrap();
    balances.sort();
    let mut expected = vec![(rider.id, dec!(8.5)), (driver.id, dec!(-3))];
    expected.sort();
    assert_eq!(balances, expected, "an imported history may leave a wallet below zero");
    assert!(fixture.audit().await.unwrap().wallet_mismatches.is_empty());
    let history = fixture.wallet_history(rider.id, &wayfare_storage::PageRequest::first(10)).await.unwrap();
    assert_eq!(history.items.len(), 3);
    assert!(history.items.iter().all(|record| record.entry.date == NOW - 5_000), "the original dates");
}

async fn replacing_imported_tracking_keeps_what_wayfare_recorded(fixture: Fixture) {
    let rider = user(1, Role::Rider);
    fixture.upsert_users(std::slice::from_ref(&rider), NOW).await.unwrap();
    let trip = booking(3, BookingStatus::Started, &rider, None);
    fixture.upsert_bookings(std::slice::from_ref(&trip), NOW).await.unwrap();
    let ours = TrackingPoint { at: NOW + 5, status: BookingStatus::Started, lat: 39.0, lng: -76.0 };
    fixture.append_tracking(trip.id, &ours).await.unwrap();
    fixture.replace_imported_tracking(&[point(&trip, NOW - 3), point(&trip, NOW - 2)], NOW).await.unwrap();
    fixture.replace_imported_tracking(&[point(&trip, NOW - 1)], NOW).await.unwrap();
    let times: Vec<Millis> = fixture.tracking(trip.id).await.unwrap().into_iter().map(|point| point.at).collect();
    assert_eq!(times, [NOW - 1, NOW + 5]);
}

async fn an_imported_default_language_takes_the_flag(fixture: Fixture) {
    fixture.save_language(&language(9, "fr", true), NOW).await.unwrap();
    let catalogue =
        CatalogueImport { languages: &[language(1, "en", true), language(2, "bn", false)], ..Default::default() };
    fixture.import_catalogue(&catalogue, NOW).await.unwrap();
    let defaults: Vec<String> = fixture
        .languages()
        .await
        .unwrap()
        .into_iter()
        .filter(|language| language.default)
        .map(|language| language.langLocale)
        .collect();
    assert_eq!(defaults, ["en"]);
    assert!(fixture.cancel_reasons().await.unwrap().is_empty(), "no list given, none written");
}

async fn an_upserted_user_keeps_the_balance_only_the_ledger_moves(fixture: Fixture) {
    let mut rider = user(1, Role::Rider);
    rider.walletBalance = dec!(999);
    fixture.upsert_users(std::slice::from_ref(&rider), NOW).await.unwrap();
    assert_eq!(fixture.wallet_balance(rider.id).await.unwrap(), Decimal::ZERO, "a new user starts at zero");
    fixture.import_ledger(&[line(&rider, "r/1", WalletEntryType::Credit, dec!(12))], NOW).await.unwrap();
    rider.firstName = "Renamed".into();
    fixture.upsert_users(std::slice::from_ref(&rider), NOW + 1).await.unwrap();
    let stored = fixture.user_by_email("imported1@wayfare.test").await.unwrap().unwrap();
    assert_eq!((stored.firstName.as_str(), stored.walletBalance), ("Renamed", dec!(12)));
    assert_eq!(fixture.user_by_mobile("+15550000001").await.unwrap().map(|user| user.id), Some(rider.id));
    let contacts = fixture.user_contacts().await.unwrap();
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0].referral, "IMP01");
}

/// The indexes, triggers and text index (SQLite) or constraints (PostgreSQL)
/// of the tables a first import loads, as the database holds them.
async fn load_schema(fixture: &Fixture) -> Vec<String> {
    let sql = match fixture.concrete {
        Concrete::Sqlite(_) => {
            "SELECT type || ' ' || name || ' ' || COALESCE(sql, '') FROM sqlite_master
             WHERE tbl_name IN ('bookings', 'booking_offers', 'tracking_points', 'bookings_fts') ORDER BY name"
        }
        Concrete::Postgres(_) => {
            "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()
             AND tablename IN ('bookings', 'booking_offers', 'tracking_points')
             UNION ALL
             SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
             WHERE conrelid IN ('bookings'::regclass, 'booking_offers'::regclass, 'tracking_points'::regclass)
             ORDER BY 1"
        }
    };
    let schema = fixture.raw_texts(sql).await;
    assert!(schema.len() > 15, "the bookings' indexes are there to compare: {schema:?}");
    schema
}

/// On SQLite, fails unless the FTS5 index holds exactly the bookings' text.
async fn text_index_matches(fixture: &Fixture) {
    if let Concrete::Sqlite(_) = fixture.concrete {
        fixture
            .raw_execute("INSERT INTO bookings_fts (bookings_fts, rank) VALUES ('integrity-check', 1)")
            .await
            .unwrap();
    }
}

/// What the product reads of these bookings: each one, lists through the
/// indexes (sorts, a rider's, a driver's, statuses), text searches, offers
/// and tracks.
async fn observed(fixture: &Fixture, bookings: &[Booking], rider: &User, driver: &User) -> Vec<String> {
    let mut seen = Vec::new();
    for booking in bookings {
        seen.push(format!("{:?}", fixture.booking(booking.id).await.unwrap()));
        seen.push(format!("{:?}", fixture.tracking(booking.id).await.unwrap()));
    }
    let filters = [
        BookingFilter::default(),
        BookingFilter { sort: BookingSort::BookingDate, ..Default::default() },
        BookingFilter { sort: BookingSort::Reference, ..Default::default() },
        BookingFilter { customer: Some(rider.id), ..Default::default() },
        BookingFilter { driver: Some(driver.id), ..Default::default() },
        BookingFilter { statuses: vec![BookingStatus::Complete], ..Default::default() },
        BookingFilter { search: Some("IMP01".into()), ..Default::default() },
        BookingFilter { search: Some("Fort".into()), ..Default::default() },
        BookingFilter { search: Some("Imported2".into()), ..Default::default() },
    ];
    for filter in &filters {
        let page = fixture.list_bookings(filter, &PageRequest::first(100)).await.unwrap();
        let references: Vec<&str> = page.items.iter().map(|booking| booking.reference.as_str()).collect();
        seen.push(format!("{filter:?}: {references:?}"));
    }
    let offered = fixture.bookings_offered_to(driver.id).await.unwrap();
    seen.push(format!("offered: {:?}", offered.iter().map(|booking| booking.id).collect::<Vec<_>>()));
    seen
}

/// A city's bookings: every third waiting and offered to the driver, the
/// rest done by them; with tracks on the done ones.
fn trips(count: u128, rider: &User, driver: &User) -> (Vec<Booking>, Vec<ImportedPoint>) {
    let mut bookings = Vec::new();
    let mut points = Vec::new();
    for number in 1..=count {
        if number % 3 == 0 {
            let mut waiting = booking(number, BookingStatus::New, rider, None);
            waiting.requestedDrivers.0.insert(driver.id);
            bookings.push(waiting);
        } else {
            let done = booking(number, BookingStatus::Complete, rider, Some(driver));
            points.extend((0..3).map(|step| point(&done, done.tripdate + 1_000 * step)));
            bookings.push(done);
        }
    }
    (bookings, points)
}

async fn a_first_import_loads_into_empty_tables_what_the_upserts_write(fixture: Fixture) {
    let schema = load_schema(&fixture).await;
    let (rider, driver) = (user(1, Role::Rider), user(2, Role::Driver));
    fixture.upsert_users(&[rider.clone(), driver.clone()], NOW).await.unwrap();
    let (bookings, points) = trips(30, &rider, &driver);
    let written = AtomicU64::new(0);
    let count = |done: u64| {
        written.fetch_add(done, Ordering::Relaxed);
    };
    assert!(fixture.load_bookings(&bookings, NOW, &count).await.unwrap(), "an empty table: loaded");
    assert!(fixture.load_tracking(&points, NOW, &count).await.unwrap());
    assert_eq!(written.load(Ordering::Relaxed), (bookings.len() + points.len()) as u64, "progress told");
    assert_eq!(load_schema(&fixture).await, schema, "every index and trigger back as it was");
    text_index_matches(&fixture).await;
    let loaded = observed(&fixture, &bookings, &rider, &driver).await;
    assert!(loaded.iter().any(|line| line.contains("search: Some(\"Fort\")") && line.contains("IMP030")));
    let counts = fixture.table_counts().await.unwrap();
    assert_eq!((counts["bookings"], counts["booking_offers"], counts["tracking_points"]), (30, 10, 60));

    // The same records through the upserts, into emptied tables, read the same.
    fixture.raw_execute("DELETE FROM bookings").await.unwrap();
    assert_eq!(fixture.table_counts().await.unwrap()["tracking_points"], 0, "cascaded");
    fixture.upsert_bookings(&bookings, NOW).await.unwrap();
    fixture.replace_imported_tracking(&points, NOW).await.unwrap();
    assert_eq!(observed(&fixture, &bookings, &rider, &driver).await, loaded);

    // Tables that hold rows are not loaded into: nothing is written.
    let (more, more_points) = trips(31, &rider, &driver);
    assert!(!fixture.load_bookings(&more[30..], NOW, &count).await.unwrap());
    assert!(!fixture.load_tracking(&more_points[60..], NOW, &count).await.unwrap());
    assert_eq!(fixture.table_counts().await.unwrap(), counts);
    assert!(fixture.audit().await.unwrap().is_clean());
}

async fn a_failed_first_load_leaves_the_tables_and_their_indexes_as_they_were(fixture: Fixture) {
    let schema = load_schema(&fixture).await;
    let (rider, driver) = (user(1, Role::Rider), user(2, Role::Driver));
    fixture.upsert_users(&[rider.clone(), driver.clone()], NOW).await.unwrap();
    // More bookings than one statement takes, so rows are written before
    // the last one is refused.
    let (mut bookings, mut points) = trips(1_300, &rider, &driver);
    bookings.last_mut().unwrap().trip_cost = dec!(0.0000001);
    let refused = fixture.load_bookings(&bookings, NOW, &|_| {}).await;
    assert!(matches!(refused, Err(StorageError::Invalid("trip_cost"))), "{refused:?}");
    let counts = fixture.table_counts().await.unwrap();
    assert_eq!((counts["bookings"], counts["booking_offers"]), (0, 0));
    assert_eq!(load_schema(&fixture).await, schema);

    bookings.pop();
    points.retain(|point| point.booking != BookingId::from_u128(0x3800_B000 + 1_300));
    assert!(fixture.load_bookings(&bookings, NOW, &|_| {}).await.unwrap());
    // A point of a booking that is not there, last.
    points.push(point(&booking(9_999, BookingStatus::Complete, &rider, None), NOW));
    let refused = fixture.load_tracking(&points, NOW, &|_| {}).await;
    assert!(matches!(refused, Err(StorageError::NotFound)), "{refused:?}");
    assert_eq!(fixture.table_counts().await.unwrap()["tracking_points"], 0);
    assert_eq!(load_schema(&fixture).await, schema);

    points.pop();
    assert!(fixture.load_tracking(&points, NOW, &|_| {}).await.unwrap(), "still empty, so loaded");
    assert_eq!(fixture.table_counts().await.unwrap()["tracking_points"], points.len() as u64);
    text_index_matches(&fixture).await;
    let found = fixture
        .list_bookings(&BookingFilter { search: Some("IMP1299".into()), ..Default::default() }, &PageRequest::first(5))
        .await
        .unwrap();
    assert_eq!(found.items.iter().map(|booking| booking.reference.as_str()).collect::<Vec<_>>(), ["IMP1299"]);
}
