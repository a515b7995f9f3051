//! The archive part of the storage (`wayfare export` / `import wayfare`):
//! both backends archive the same tables with the same columns, every
//! table is either archived or skipped on purpose, parents come before
//! children, and rows exported from SQLite come back the same from either
//! backend, all or nothing, into an empty database only.

mod support;

use rust_decimal_macros::dec;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use support::{Concrete, Fixture};
use tokio::sync::mpsc;
use wayfare_engine::booking::{Effect, WalletChange};
use wayfare_engine::dispatch::{DispatchEntry, DispatchLog};
use wayfare_engine::{
    Booking, BookingId, BookingStatus, ChatMessage, Millis, Role, Settings, TrackingPoint, User, UserId,
    WalletEntryType,
};
use wayfare_storage::archive::{
    ARCHIVE_TABLES, ArchiveTable, ArchiveValue, ExportItem, ImportItem, ImportSummary, SKIPPED_TABLES,
};
use wayfare_storage::prelude::*;
use wayfare_storage::{FileRecord, StorageError};

const NOW: Millis = 1_767_225_600_000;

/// Names from a catalogue query with one text parameter (or none).
async fn names(fixture: &Fixture, sql: &'static str, parameter: Option<&str>) -> Vec<String> {
    match &fixture.concrete {
        Concrete::Sqlite(storage) => {
            let mut query = sqlx::query_scalar::<_, String>(sql);
            if let Some(parameter) = parameter {
                query = query.bind(parameter.to_string());
            }
            query.fetch_all(storage.pool()).await.expect("catalogue")
        }
        Concrete::Postgres(storage) => {
            let mut query = sqlx::query_scalar::<_, String>(sql);
            if let Some(parameter) = parameter {
                query = query.bind(parameter.to_string());
            }
            query.fetch_all(storage.pool()).await.expect("catalogue")
        }
    }
}

async fn every_table_is_archived_or_skipped_and_parents_come_first(fixture: Fixture) {
    let sqlite = matches!(fixture.concrete, Concrete::Sqlite(_));
    let tables = if sqlite {
        // FTS5 and its shadow tables are SQLite's own index, rebuilt by triggers.
        names(
            &fixture,
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
             AND name NOT LIKE '%\\_fts%' ESCAPE '\\' AND name <> '_sqlx_migrations' ORDER BY name",
            None,
        )
        .await
    } else {
        names(
            &fixture,
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() \
             AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations' ORDER BY table_name",
            None,
        )
        .await
    };
    assert!(tables.len() > 25, "{tables:?}");
    for table in &tables {
        let archived = ARCHIVE_TABLES.contains(&table.as_str());
        let skipped = SKIPPED_TABLES.iter().any(|(name, _)| name == table);
        assert!(archived || skipped, "{table} is neither archived nor skipped: say which in storage/src/archive.rs");
    }
    for (position, table) in ARCHIVE_TABLES.iter().enumerate() {
        assert!(tables.iter().any(|name| name == table), "{table} is archived but not in the database");
        let parents = if sqlite {
            names(&fixture, "SELECT \"table\" FROM pragma_foreign_key_list($1)", Some(table)).await
        } else {
            names(
                &fixture,
                "SELECT parent.relname::text FROM pg_constraint c JOIN pg_class parent ON parent.oid = c.confrelid \
                 WHERE c.contype = 'f' AND c.conrelid = to_regclass($1)",
                Some(table),
            )
            .await
        };
        for parent in parents {
            let parent_position = ARCHIVE_TABLES.iter().position(|name| *name == parent);
            assert!(
                parent_position.is_some_and(|parent_position| parent_position < position),
                "{table} refers to {parent}, which must be archived before it"
            );
        }
    }
}

/// The archived tables as the SQLite backend has them, for the PostgreSQL
/// test to compare with.
fn sqlite_tables() -> &'static Mutex<Option<Vec<ArchiveTable>>> {
    static TABLES: Mutex<Option<Vec<ArchiveTable>>> = Mutex::new(None);
    &TABLES
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_backends_archive_the_same_tables_with_the_same_columns() {
    support::with_sqlite(|fixture| async move {
        let tables = fixture.archive_tables().await.unwrap();
        *sqlite_tables().lock().unwrap() = Some(tables);
    })
    .await;
    let sqlite = sqlite_tables().lock().unwrap().clone().unwrap();
    let names: Vec<&str> = sqlite.iter().map(|table| table.name.as_str()).collect();
    assert_eq!(names, ARCHIVE_TABLES);
    let users = sqlite.iter().find(|table| table.name == "users").unwrap();
    assert!(!users.columns.iter().any(|column| column.name == "seq"), "SQLite's own rowid is not archived");
    support::with_postgres(move |fixture| async move {
        let postgres = fixture.archive_tables().await.unwrap();
        for (sqlite, postgres) in sqlite.iter().zip(&postgres) {
            assert_eq!(sqlite, postgres, "the migrations of the two backends differ for {}", sqlite.name);
        }
        assert_eq!(sqlite.len(), postgres.len());
    })
    .await;
}

fn user(number: u128, role: Role) -> User {
    let mut user = User::new(UserId::from_u128(0x1000_0000 + number), role, NOW - number as i64 * 1_000);
    user.firstName = format!("First{number}");
    user.lastName = "Ünïcode \"quoted\"\nname".into();
    user.email = format!("user{number}@wayfare.test");
    user.mobile = format!("+1 410-555-{number:04}");
    user.referralId = format!("R{number:04}");
    user.approved = true;
    user
}

fn booking(customer: &User, driver: &User) -> Booking {
    let mut booking: Booking = serde_json::from_value(json!({
        "id": BookingId::from_u128(0xB000_0001),
        "reference": "ABCDEF",
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
        "status": "PAID",
        "bookLater": false,
        "tripdate": NOW - 3_600_000,
        "bookingDate": NOW - 4_000_000,
        "trip_cost": 12.5,
        "convenience_fees": 1.25,
        "driver_share": 10,
        "payableAmount": 12.5
    }))
    .expect("a valid booking");
    booking.driver = Some(driver.id);
    booking.driver_name = driver.full_name();
    booking
}

fn wallet(user: UserId, entry_type: WalletEntryType, amount: rust_decimal::Decimal, key: &str) -> WalletChange {
    WalletChange { user, entry_type, amount, tx_ref: "test".into(), idempotency_key: key.into(), overdraw: false }
}

/// A little of everything, through the storage's own writes.
async fn fill(storage: &dyn Storage) {
    storage.save_settings(&Settings { appName: "Archived".into(), ..Settings::default() }, NOW).await.unwrap();
    storage.save_cancel_reasons(&["Too long".into(), "Changed plans".into()], NOW).await.unwrap();
    let customer = user(1, Role::Rider);
    let driver = User { carType: Some("Sedan".into()), ..user(2, Role::Driver) };
    storage.insert_user(&customer).await.unwrap();
    storage.insert_user(&driver).await.unwrap();
    storage.apply_wallet(&wallet(customer.id, WalletEntryType::Credit, dec!(20), "topup"), NOW).await.unwrap();
    let booking = booking(&customer, &driver);
    let effects = vec![
        Effect::Wallet(wallet(customer.id, WalletEntryType::Debit, dec!(12.5), "booking:1:payment")),
        Effect::Wallet(wallet(driver.id, WalletEntryType::Credit, dec!(10), "booking:1:share")),
        Effect::Tracking(TrackingPoint { at: NOW, status: BookingStatus::Paid, lat: 39.2634, lng: -76.5797 }),
    ];
    storage.commit_booking(&booking, None, &effects, NOW).await.unwrap();
    for second in 0..3 {
        let point =
            TrackingPoint { at: NOW + second, status: BookingStatus::Paid, lat: 39.0 + second as f64, lng: -76.5 };
        storage.append_tracking(booking.id, &point).await.unwrap();
    }
    let message = ChatMessage {
        message: "On my way?\n\"yes\"".into(),
        from: customer.id,
        message_type: "msg".into(),
        msgDate: "01:01:2026".into(),
        msgTime: "00:00".into(),
        source: Role::Rider,
        smsId: None,
        createdAt: NOW,
    };
    storage.append_chat(booking.id, &message).await.unwrap();
    let entry = DispatchEntry {
        booking: booking.id,
        at: NOW,
        car_type: "Sedan".into(),
        log: DispatchLog::NoCandidates { wave: 1 },
    };
    storage.append_dispatch_events(&[entry], NOW).await.unwrap();
    storage.save_locations(&[(driver.id, wayfare_engine::LatLng { lat: 39.1, lng: -76.6 })], NOW).await.unwrap();
    let file = FileRecord {
        id: uuid::Uuid::from_u128(7),
        owner: Some(customer.id),
        key: "users/1/profileImage/7.png".into(),
        mime: "image/png".into(),
        size: 12,
        created_at: NOW,
    };
    storage.insert_file(&file).await.unwrap();
}

/// Everything an export sends, per table: its columns and its rows as JSON
/// values (documents parsed, so PostgreSQL's JSONB spelling compares equal),
/// sorted.
async fn exported(storage: &dyn Storage) -> BTreeMap<String, (ArchiveTable, Vec<String>)> {
    let (out, mut items) = mpsc::channel(2);
    let collecting = async {
        let mut tables: BTreeMap<String, (ArchiveTable, Vec<String>)> = BTreeMap::new();
        let mut current = String::new();
        while let Some(item) = items.recv().await {
            match item {
                ExportItem::Table(table) => {
                    current = table.name.clone();
                    tables.insert(table.name.clone(), (table, Vec::new()));
                }
                ExportItem::Rows(rows) => {
                    let entry = tables.get_mut(&current).unwrap();
                    for row in rows {
                        let values: Vec<serde_json::Value> = row.iter().map(comparable).collect();
                        entry.1.push(serde_json::to_string(&values).unwrap());
                    }
                }
            }
        }
        for entry in tables.values_mut() {
            entry.1.sort();
        }
        tables
    };
    let (read, tables) = tokio::join!(storage.export_archive(2, out), collecting);
    read.unwrap();
    tables
}

fn comparable(value: &ArchiveValue) -> serde_json::Value {
    match value {
        ArchiveValue::Null => serde_json::Value::Null,
        ArchiveValue::Integer(value) => json!(value),
        ArchiveValue::Real(value) => json!(value),
        ArchiveValue::Boolean(value) => json!(value),
        ArchiveValue::Text(value) => json!(value),
        ArchiveValue::Uuid(value) => json!(value.to_string()),
        ArchiveValue::Json(value) => serde_json::from_str(value.get()).unwrap(),
    }
}

/// Sends an export of `from` into `into`'s import; `commit` says whether
/// the import is told everything arrived.
async fn copy(from: &dyn Storage, into: &dyn Storage, commit: bool) -> Result<ImportSummary, StorageError> {
    let (out, mut exported) = mpsc::channel(2);
    let (to_import, input) = mpsc::channel(2);
    let forwarding = async move {
        while let Some(item) = exported.recv().await {
            let item = match item {
                ExportItem::Table(table) => ImportItem::Table(table),
                ExportItem::Rows(rows) => ImportItem::Rows(rows),
            };
            if to_import.send(item).await.is_err() {
                return;
            }
        }
        if commit {
            let _ = to_import.send(ImportItem::Commit).await;
        }
    };
    let (read, imported, ()) = tokio::join!(from.export_archive(3, out), into.import_archive(input), forwarding);
    // A refused import stops reading the export: its error is the import's.
    if imported.is_ok() {
        read.unwrap();
    }
    imported
}

async fn a_sqlite_city_comes_back_the_same_into_an_empty_database(fixture: Fixture) {
    let source_directory = tempfile::tempdir().unwrap();
    let source: Arc<dyn Storage> = Arc::new(
        wayfare_storage::sqlite::SqliteStorage::open(&source_directory.path().join("source.db")).await.unwrap(),
    );
    fill(source.as_ref()).await;
    let summary = copy(source.as_ref(), &*fixture, true).await.unwrap();
    let counts: BTreeMap<&str, u64> = summary.tables.iter().map(|(name, rows)| (name.as_str(), *rows)).collect();
    assert_eq!(counts["users"], 2);
    assert_eq!(counts["tracking_points"], 4);
    assert_eq!(counts["wallet_entries"], 3);
    assert_eq!(counts.len(), ARCHIVE_TABLES.len());

    let before = exported(source.as_ref()).await;
    let after = exported(&*fixture).await;
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>());
    for (table, (columns, rows)) in &before {
        assert_eq!(&after[table].0, columns);
        assert_eq!(&after[table].1, rows, "{table} differs after the copy");
    }
    // What the product reads answers the same.
    let booking = BookingId::from_u128(0xB000_0001);
    assert_eq!(fixture.tracking(booking).await.unwrap(), source.tracking(booking).await.unwrap());
    assert_eq!(fixture.chat(booking).await.unwrap().len(), 1);
    assert_eq!(fixture.wallet_balance(UserId::from_u128(0x1000_0001)).await.unwrap(), dec!(7.5));
    assert!(fixture.audit().await.unwrap().is_clean());
    // New rows after the import get new sequence numbers (PostgreSQL's
    // identity moved past the imported ones).
    let point = TrackingPoint { at: NOW + 10, status: BookingStatus::Paid, lat: 1.0, lng: 2.0 };
    fixture.append_tracking(booking, &point).await.unwrap();
    assert_eq!(fixture.tracking(booking).await.unwrap().last(), Some(&point));
    let later = DispatchEntry { booking, at: NOW + 10, car_type: "Sedan".into(), log: DispatchLog::Exhausted };
    fixture.append_dispatch_events(std::slice::from_ref(&later), NOW).await.unwrap();
    assert_eq!(fixture.recent_dispatch_events(1).await.unwrap(), vec![later]);
    // The roll-ups were marked to rebuild: the report counts the paid ride.
    fixture.prepare_earnings_rollup(0).await.unwrap();
    let report = fixture.earnings_report(&wayfare_storage::EarningsScope::default()).await.unwrap();
    assert_eq!(report.iter().map(|row| row.earnings.total_rides).sum::<u32>(), 1);

    // A second import into what is now a city is refused, changing nothing.
    let refused = copy(source.as_ref(), &*fixture, true).await;
    let Err(StorageError::Archive(message)) = refused else { panic!("{refused:?}") };
    assert!(message.contains("not empty"), "{message}");
    assert_eq!(fixture.tracking(booking).await.unwrap().len(), 5);
}

async fn an_import_that_does_not_reach_its_end_leaves_the_database_empty(fixture: Fixture) {
    let source_directory = tempfile::tempdir().unwrap();
    let source =
        wayfare_storage::sqlite::SqliteStorage::open(&source_directory.path().join("source.db")).await.unwrap();
    fill(&source).await;
    let cut = copy(&source, &*fixture, false).await;
    let Err(StorageError::Archive(message)) = cut else { panic!("{cut:?}") };
    assert!(message.contains("ended"), "{message}");
    assert_eq!(fixture.tables_with_rows().await.unwrap(), Vec::<String>::new());
    assert!(fixture.settings().await.unwrap().is_none());

    // A column this database does not have is refused before any row.
    let (to_import, input) = mpsc::channel(2);
    let mut table = source.archive_tables().await.unwrap().remove(0);
    table.columns[0].name = "colour".into();
    to_import.send(ImportItem::Table(table)).await.unwrap();
    drop(to_import);
    let refused = fixture.import_archive(input).await;
    let Err(StorageError::Archive(message)) = refused else { panic!("{refused:?}") };
    assert!(message.contains("no column settings.colour"), "{message}");
}

/// A backup made by an older release (here: before the receipts' table of
/// migration 16) goes into a new database migrated to its schema, then the
/// newer migrations run on its data.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_of_an_older_schema_goes_in_at_its_schema_and_is_migrated_forward() {
    use wayfare_storage::sqlite::SqliteStorage;
    const OLDER: i64 = 15;
    let directory = tempfile::tempdir().unwrap();
    let source = SqliteStorage::open_migrated_to(&directory.path().join("old.db"), Some(OLDER)).await.unwrap();
    assert_eq!(source.schema_version().await.unwrap(), OLDER);
    fill(&source).await;
    let tables = source.archive_tables().await.unwrap();
    assert!(!tables.iter().any(|table| table.name == "receipt_mails"), "no such table at schema {OLDER}");

    // A database already at the newest schema is not the archive's.
    let newest = SqliteStorage::open(&directory.path().join("newest.db")).await.unwrap();
    assert!(newest.schema_version().await.unwrap() > OLDER);

    let target = SqliteStorage::open_migrated_to(&directory.path().join("new.db"), Some(OLDER)).await.unwrap();
    let summary = copy(&source, &target, true).await.unwrap();
    assert_eq!(summary.tables.len(), tables.len());
    target.apply_migrations().await.unwrap();
    assert_eq!(target.schema_version().await.unwrap(), newest.schema_version().await.unwrap());
    assert_eq!(target.archive_tables().await.unwrap().len(), ARCHIVE_TABLES.len());
    let before = exported(&source).await;
    let after = exported(&target).await;
    // Later migrations may add columns at the end of a table (with their
    // defaults): the archive's columns come back as they were.
    for (table, (columns, rows)) in &before {
        let width = columns.columns.len();
        let migrated: Vec<String> = after[table]
            .1
            .iter()
            .map(|row| {
                let values: Vec<serde_json::Value> = serde_json::from_str(row).unwrap();
                serde_json::to_string(&values[..width]).unwrap()
            })
            .collect();
        assert_eq!(&migrated, rows, "{table}");
    }
    assert!(target.claim_receipt_mail(BookingId::from_u128(0xB000_0001), "a@b.c", NOW).await.unwrap());
}

backend_suite!(
    every_table_is_archived_or_skipped_and_parents_come_first,
    a_sqlite_city_comes_back_the_same_into_an_empty_database,
    an_import_that_does_not_reach_its_end_leaves_the_database_empty,
);
