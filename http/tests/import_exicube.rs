//! `wayfare import exicube` (issue #38) on a hand-made export in the
//! original product's shape (`fixtures/exicube/export.json`, with a copy of
//! its Storage bucket in `fixtures/exicube/files/`): every node with its edge
//! cases (fields missing, numbers written as text, a legacy status, a
//! booking whose driver was deleted, wallets whose history does not add up,
//! malformed records). On SQLite, and on PostgreSQL when
//! `WAYFARE_TEST_POSTGRES_URL` is set (always in CI).

use axum::body::Body;
use axum::http::{Method, Request, header};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower::ServiceExt;
use wayfare_actors::{ManualClock, Runtime, RuntimeOptions};
use wayfare_engine::exicube::{NodeCounts, Report};
use wayfare_engine::social::{self, SocialAccount, SocialIdentity, SocialProvider};
use wayfare_engine::{BookingStatus, Millis, Role};
use wayfare_http::auth::delivery::Deliveries;
use wayfare_http::cli::{ExicubeArgs, StorageArgs};
use wayfare_http::config::Config;
use wayfare_http::files::LocalFileStore;
use wayfare_http::import::exicube::{self, Outcome};
use wayfare_http::state::AppState;
use wayfare_storage::Storage;

/// The import's clock: 2024-12-01, after every trip of the export.
const NOW: Millis = 1_733_011_200_000;
const SECRETS_KEY: &str = "8f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exicube")
}

fn export() -> Value {
    serde_json::from_slice(&std::fs::read(fixtures().join("export.json")).unwrap()).unwrap()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// A fresh database (a file, or a PostgreSQL schema dropped afterwards) and
/// a data directory.
struct City {
    config: Config,
    storage: Arc<dyn Storage>,
    store: LocalFileStore,
    _dir: tempfile::TempDir,
    schema: Option<(String, String)>,
}

impl City {
    async fn new(backend: Backend) -> Option<City> {
        let dir = tempfile::tempdir().unwrap();
        let mut config =
            Config { data_dir: dir.path().to_path_buf(), ui_dir: dir.path().join("no-ui"), ..Config::default() };
        config.delivery.dev_outbox = true;
        config.payments.secrets_key = Some(SECRETS_KEY.into());
        let mut schema = None;
        if backend == Backend::Postgres {
            let Ok(base) = std::env::var("WAYFARE_TEST_POSTGRES_URL") else {
                assert!(std::env::var("CI").as_deref() != Ok("true"), "CI sets WAYFARE_TEST_POSTGRES_URL");
                eprintln!("WAYFARE_TEST_POSTGRES_URL not set: PostgreSQL variant not run");
                return None;
            };
            let name = format!("import_{}", uuid::Uuid::now_v7().simple());
            let admin = sqlx::PgPool::connect(&base).await.expect("PostgreSQL answers");
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {name}"))).execute(&admin).await.unwrap();
            admin.close().await;
            let separator = if base.contains('?') { '&' } else { '?' };
            config.database_url = Some(format!("{base}{separator}options[search_path]={name}"));
            schema = Some((base, name));
        }
        let storage = wayfare_storage::open(&config.storage_url()).await.expect("storage opens");
        let store = LocalFileStore::new(dir.path().join("uploads"));
        Some(City { config, storage, store, _dir: dir, schema })
    }

    async fn import(&self) -> Outcome {
        exicube::import_value(
            self.storage.as_ref(),
            &self.store,
            &self.config,
            &export(),
            Some(&fixtures().join("files")),
            NOW,
        )
        .await
        .expect("the import runs")
    }

    async fn drop_schema(&self) {
        if let Some((base, name)) = &self.schema {
            let admin = sqlx::PgPool::connect(base).await.unwrap();
            sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {name} CASCADE"))).execute(&admin).await.unwrap();
            admin.close().await;
        }
    }
}

macro_rules! both_backends {
    ($name:ident) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(Backend::Sqlite).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name(Backend::Postgres).await;
            }
        }
    };
}

fn counts(report: &Report, node: &str) -> (u64, u64, u64, u64) {
    let NodeCounts { read, imported, kept, skipped } = report.nodes.get(node).cloned().unwrap_or_default();
    (read, imported, kept, skipped)
}

both_backends!(every_node_lands_with_the_expected_counts);
async fn every_node_lands_with_the_expected_counts(backend: Backend) {
    let Some(city) = City::new(backend).await else { return };
    let outcome = city.import().await;
    let report = &outcome.report;
    // (read, imported, kept aside, skipped)
    for (node, expected) in [
        ("settings", (1, 1, 0, 0)),
        ("cancel_reason", (3, 3, 0, 0)),
        ("cartypes", (2, 2, 0, 0)),
        ("promos", (2, 2, 0, 0)),
        ("notifications", (2, 2, 0, 0)),
        ("languages", (2, 2, 0, 0)),
        ("payment_settings", (4, 2, 0, 2)),
        ("users", (8, 7, 0, 1)),
        ("cars", (1, 0, 1, 0)),
        ("locations", (1, 1, 0, 0)),
        ("userRatings", (2, 2, 0, 0)),
        ("savedAddresses", (1, 1, 0, 0)),
        ("userNotifications", (1, 0, 1, 0)),
        ("bookings", (8, 7, 0, 1)),
        ("tracking", (5, 4, 0, 1)),
        ("chats", (2, 2, 0, 0)),
        ("walletHistory", (8, 7, 0, 1)),
        ("withdraws", (2, 2, 0, 0)),
        ("sos", (1, 1, 0, 0)),
        ("complain", (1, 0, 1, 0)),
        ("usedreferral", (1, 0, 1, 0)),
        ("smsConfig", (1, 0, 0, 1)),
    ] {
        assert_eq!(counts(report, node), expected, "{node}");
    }
    // Malformed records are skipped with their path and why.
    let skipped: Vec<(&str, &str)> =
        report.malformed.iter().map(|bad| (bad.path.as_str(), bad.reason.as_str())).collect();
    for expected in [
        ("bookings/-NbBroken/pickup", "no pickup coordinates"),
        ("users/Ualien/usertype", "unknown user type \"martian\""),
        ("walletHistory/UnobodyZ/-Nw1", "the user is not in the export"),
        ("tracking/-NbUnknown/-Ntr9", "the booking is not in the export"),
    ] {
        assert!(skipped.contains(&expected), "{expected:?} in {skipped:?}");
    }
    assert_eq!(report.unknown_keys["bookings"]["commission_rate"], 1);
    assert_eq!(report.adjusted_count("legacy_status_mapped"), 1);
    assert_eq!(report.adjusted_count("driver_not_in_export_kept_as_reference"), 1);
    assert_eq!(report.adjusted_count("offer_to_a_driver_not_in_export_dropped"), 1);
    // Two wallets open with the difference their history leaves.
    let openings: Vec<(String, Decimal)> =
        report.wallets.iter().map(|wallet| (wallet.path.clone(), wallet.opening)).collect();
    assert_eq!(openings, [("users/UdriverD1".to_string(), dec!(204.72)), ("users/UdriverD2".to_string(), dec!(20))]);
    // Files: four copied; a missing one and one that is not an image keep the original's URL.
    assert_eq!((outcome.files_copied, outcome.files_missing), (4, 1));
    assert_eq!(report.adjusted_count("storage_file_not_an_image_left_out"), 1);
    // Rows per table.
    let after = &outcome.tables_after;
    for (table, rows) in [
        ("users", 7),
        ("bookings", 7),
        ("booking_offers", 1),
        ("tracking_points", 4),
        ("chat_messages", 2),
        ("car_types", 2),
        ("promos", 2),
        ("promo_uses", 1),
        ("notifications", 2),
        ("languages", 2),
        ("withdraws", 2),
        ("sos_alerts", 1),
        ("wallet_entries", 9),
        ("files", 4),
        ("cancel_reasons", 3),
        ("payment_gateways", 2),
    ] {
        assert_eq!(after[table], rows, "{table}");
    }
    assert_eq!(outcome.ledger_entries_written, 9);
    assert_eq!(outcome.balance_corrections, 0);
    // Every balance is its ledger: the audit is clean.
    let audit = city.storage.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    assert_eq!((audit.users, audit.bookings, audit.active_bookings), (7, 7, 3));
    // A secret is sealed, never stored in clear.
    let razorpay = city.storage.payment_gateway("razorpay").await.unwrap().expect("razorpay imported");
    assert!(razorpay.active);
    assert_eq!(razorpay.fields["KEY_ID"], "rzp_live_abc");
    assert!(razorpay.fields["KEY_SECRET"].starts_with("v1:"), "{}", razorpay.fields["KEY_SECRET"]);
    city.drop_schema().await;
}

both_backends!(a_second_import_changes_nothing);
async fn a_second_import_changes_nothing(backend: Backend) {
    let Some(city) = City::new(backend).await else { return };
    let first = city.import().await;
    let users: Vec<_> = city.storage.user_contacts().await.unwrap().into_iter().map(|contact| contact.id).collect();
    let balances = city.storage.wallet_balances(&users).await.unwrap();
    let second = city.import().await;
    assert_eq!(second.tables_after, first.tables_after, "the same rows in every table");
    assert_eq!(second.tables_before, first.tables_after);
    assert_eq!(second.ledger_entries_written, 0, "the ledger is unchanged");
    assert_eq!(second.balance_corrections, 0);
    let mut again = city.storage.wallet_balances(&users).await.unwrap();
    let mut before = balances;
    again.sort();
    before.sort();
    assert_eq!(again, before);
    assert_eq!(second.report.nodes, first.report.nodes);
    assert!(city.storage.audit().await.unwrap().is_clean());
    city.drop_schema().await;
}

#[tokio::test]
async fn a_dry_run_prints_what_would_be_imported_and_opens_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let args = ExicubeArgs {
        export: fixtures().join("export.json"),
        files: Some(fixtures().join("files")),
        dry_run: true,
        report: Some(dir.path().join("report.json")),
        storage: StorageArgs { data_dir: Some(dir.path().join("data")), ..StorageArgs::default() },
    };
    let config = args.storage.load().unwrap();
    let outcome = exicube::run(config.clone(), &args).await.expect("a dry run");
    assert!(outcome.dry_run);
    assert_eq!(counts(&outcome.report, "bookings"), (8, 7, 0, 1));
    assert_eq!((outcome.files_copied, outcome.files_missing), (4, 1), "files are looked for, not copied");
    assert!(!config.database_path().exists(), "no database was made, nor migrated");
    assert!(!dir.path().join("data/uploads").exists());
    let written: Value = serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(written["report"]["nodes"]["users"]["imported"], 7);
}

#[tokio::test]
async fn a_changed_balance_in_a_later_export_is_reached_by_one_correction() {
    let city = City::new(Backend::Sqlite).await.unwrap();
    city.import().await;
    // The opening entry of this wallet was written by the first import and
    // is not written again: the later balance is reached by a correction.
    let mut later = export();
    later["users"]["UdriverD1"]["walletBalance"] = json!("160.5");
    let outcome =
        exicube::import_value(city.storage.as_ref(), &city.store, &city.config, &later, None, NOW + 1).await.unwrap();
    assert_eq!((outcome.ledger_entries_written, outcome.balance_corrections), (1, 1));
    let driver = city.storage.user_by_mobile("+919830000002").await.unwrap().unwrap();
    assert_eq!(city.storage.wallet_balance(driver.id).await.unwrap(), dec!(160.5));
    assert!(city.storage.audit().await.unwrap().is_clean());
}

// ---- through the API --------------------------------------------------------------

struct Api {
    state: AppState,
    router: axum::Router,
}

impl Api {
    async fn start(city: &City) -> Api {
        let clock = ManualClock::starting_at(NOW);
        let maps = wayfare_maps::provider_from(&city.config.maps, &city.config.maps_cache_dir()).unwrap();
        let options = RuntimeOptions {
            call_timeout: Some(std::time::Duration::from_secs(30)),
            ..wayfare_http::runtime_options(&city.config, &maps)
        };
        let runtime = Runtime::start(city.storage.clone(), Arc::new(clock), options).await.expect("the runtime starts");
        let deliveries = Deliveries::from_config(&city.config.delivery).unwrap();
        let state = AppState::new(city.config.clone(), runtime, deliveries, maps);
        let router = wayfare_http::app(state.clone());
        Api { state, router }
    }

    async fn send(&self, method: Method, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = match body {
            Some(body) => request
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(serde_json::to_vec(&body).unwrap()))
                .unwrap(),
            None => request.body(Body::empty()).unwrap(),
        };
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str, token: &str) -> Value {
        let (status, body) = self.send(Method::GET, path, Some(token), None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// Signs in with a one-time code from the dev outbox; the token and the user.
    async fn sign_in(&self, contact: &str) -> (String, Value) {
        let (status, body) =
            self.send(Method::POST, "/api/v1/auth/otp/request", None, Some(json!({ "contact": contact }))).await;
        assert_eq!(status, 200, "{contact}: {body}");
        let encoded: String = contact
            .bytes()
            .map(|byte| {
                if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
                    char::from(byte).to_string()
                } else {
                    format!("%{byte:02X}")
                }
            })
            .collect();
        let (_, outbox) = self.send(Method::GET, &format!("/api/v1/dev/outbox?to={encoded}"), None, None).await;
        let code = outbox["messages"][0]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("no code for {contact}: {outbox}"))
            .to_string();
        let (status, body) = self
            .send(Method::POST, "/api/v1/auth/otp/verify", None, Some(json!({ "contact": contact, "code": code })))
            .await;
        assert_eq!(status, 200, "{contact}: {body}");
        (body["token"].as_str().unwrap().to_string(), body["user"].clone())
    }
}

both_backends!(people_sign_in_and_find_their_city);
async fn people_sign_in_and_find_their_city(backend: Backend) {
    let Some(city) = City::new(backend).await else { return };
    city.import().await;
    let api = Api::start(&city).await;

    // A rider signs in with their e-mail and sees their bookings and wallet.
    let (rider, me) = api.sign_in("rina@example.com").await;
    assert_eq!(me["usertype"], "rider");
    assert_eq!(me["firstName"], "Rina");
    let bookings = api.get("/api/v1/bookings", &rider).await;
    let mut references: Vec<&str> =
        bookings["items"].as_array().unwrap().iter().map(|booking| booking["reference"].as_str().unwrap()).collect();
    references.sort();
    assert_eq!(references, ["KCANCL", "KGONED", "KQWERT"]);
    let done = bookings["items"].as_array().unwrap().iter().find(|booking| booking["reference"] == "KQWERT").unwrap();
    assert_eq!(done["status"], BookingStatus::Complete.as_str());
    assert_eq!(done["trip_cost"], json!(262.35));
    let wallet = api.get(&format!("/api/v1/users/{}/wallet", me["id"].as_str().unwrap()), &rider).await;
    assert_eq!(wallet["walletBalance"], json!(75.0));
    assert_eq!(wallet["walletHistory"].as_array().unwrap().len(), 2);

    // A driver signs in with their mobile and sees their earnings.
    let (driver, me) = api.sign_in("+919830000002").await;
    assert_eq!(me["usertype"], "driver");
    let earnings = api.get("/api/v1/reports/driver-earnings", &driver).await;
    let rows = earnings["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{earnings}");
    assert_eq!(rows[0]["total_rides"], 2);
    assert_eq!(rows[0]["driverShare"], json!(332.48));
    let wallet = api.get(&format!("/api/v1/users/{}/wallet", me["id"].as_str().unwrap()), &driver).await;
    assert_eq!(wallet["walletBalance"], json!(150.5));

    // An admin sees the car types with their slabs, the promos with their
    // limits and the settings as the original had them.
    let (admin, me) = api.sign_in("admin@kolkatacabs.example").await;
    assert_eq!(me["usertype"], Role::Admin.as_str());
    let car_types = api.get("/api/v1/cartypes", &admin).await;
    let economy = car_types.as_array().unwrap().iter().find(|car| car["name"] == "Economy").unwrap();
    assert_eq!(economy["cancelSlab"], json!([{"minsDelayed": 2, "amount": 10.0}, {"minsDelayed": 4, "amount": 15.0}]));
    assert!(economy["image"].as_str().unwrap().starts_with("/api/v1/files/"), "the copied image");
    let van = car_types.as_array().unwrap().iter().find(|car| car["name"] == "Parcel Van").unwrap();
    assert_eq!(van["parcelTypes"][1]["amount"], json!(12.5));
    let promos = api.get("/api/v1/promos", &admin).await;
    let promos = promos.as_array().or_else(|| promos["items"].as_array()).unwrap().clone();
    let welcome = promos.iter().find(|promo| promo["promo_name"] == "WELCOME50").unwrap();
    assert_eq!(welcome["promo_usage_limit"], 500);
    assert_eq!(welcome["user_avail"], 2);
    assert_eq!(welcome["min_order"], json!(100.0));
    let settings = api.get("/api/v1/settings", &admin).await;
    assert_eq!(settings["appName"], "Kolkata Cabs");
    assert_eq!(settings["code"], "INR");
    assert_eq!(settings["driverRadius"], json!(8.0));
    assert_eq!(settings["bonus"], json!(25.0));
    // The copied profile image is served.
    let driver_user = city.storage.user_by_mobile("+919830000002").await.unwrap().unwrap();
    let image = driver_user.profile_image.unwrap();
    let (status, _) = api.send(Method::GET, &image, None, None).await;
    assert_eq!(status, 200, "{image}");

    // Social sign-in finds the imported account by its verified e-mail, as
    // the OAuth callback does (`http/src/auth/oauth/routes.rs`).
    let identity = SocialIdentity {
        provider: SocialProvider::Google,
        subject: "google-sub-1".into(),
        email: Some("Rina@Example.com".into()),
        email_verified: true,
        first_name: "Rina".into(),
        last_name: "Roy".into(),
    };
    let email = identity.verified_email().unwrap();
    let same = city.storage.user_by_email(&email).await.unwrap();
    let rina = same.as_ref().map(|user| user.id).unwrap();
    assert_eq!(social::choose_account(None, same.as_ref(), &identity), SocialAccount::LinkByEmail(rina));

    api.state.runtime.shutdown().await;
    assert!(city.storage.audit().await.unwrap().is_clean());
    city.drop_schema().await;
}
