//! `wayfare export` and `wayfare import wayfare` end to end (issue #38): a
//! SQLite demo city with two days of history, uploads and a broadcast is
//! exported, imported into a fresh PostgreSQL schema, and every list route
//! answers the same there (with the same session tokens: sessions move
//! too), uploads come back byte for byte, and the audit is clean; then the
//! PostgreSQL city goes back into SQLite the same way. An archive is
//! refused by a database that holds data, and a damaged one is refused
//! with the database left empty.

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use tower::ServiceExt;
use wayfare_http::archive;
use wayfare_http::config::Config;
use wayfare_http::state::AppState;

const POSTGRES_URL_VARIABLE: &str = "WAYFARE_TEST_POSTGRES_URL";

fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var(POSTGRES_URL_VARIABLE) {
        return Some(url);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI moves the city into PostgreSQL too: set {POSTGRES_URL_VARIABLE}"
    );
    eprintln!("{POSTGRES_URL_VARIABLE} is not set: the city moves SQLite to SQLite only");
    None
}

/// A fresh PostgreSQL schema, dropped on `drop_schema`.
struct Schema {
    base: String,
    name: String,
}

impl Schema {
    async fn create(base: &str) -> Schema {
        let name = format!("archive_{}", uuid::Uuid::now_v7().simple());
        let admin = sqlx::PgPool::connect(base).await.expect("PostgreSQL answers");
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {name}"))).execute(&admin).await.unwrap();
        admin.close().await;
        Schema { base: base.to_string(), name }
    }

    fn url(&self) -> String {
        let separator = if self.base.contains('?') { '&' } else { '?' };
        format!("{}{separator}options[search_path]={}", self.base, self.name)
    }

    async fn drop_schema(self) {
        let admin = sqlx::PgPool::connect(&self.base).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {} CASCADE", self.name))).execute(&admin).await.unwrap();
        admin.close().await;
    }
}

fn config_in(data_dir: &Path, database_url: Option<String>) -> Config {
    let mut config = Config { data_dir: data_dir.to_path_buf(), database_url, ..Config::default() };
    config.delivery.dev_outbox = true;
    config.ui_dir = data_dir.join("no-ui");
    config.demo_seed.history_days = 0;
    config
}

struct City {
    state: AppState,
    router: Router,
}

impl City {
    async fn start(config: Config) -> City {
        let state = wayfare_http::start(config).await.expect("the server starts");
        let router = wayfare_http::app(state.clone());
        City { state, router }
    }

    async fn stop(self) {
        self.state.runtime.shutdown().await;
    }

    async fn call(&self, method: Method, uri: &str, token: Option<&str>, body: Option<Value>) -> (StatusCode, Vec<u8>) {
        let mut request = Request::builder().method(method).uri(uri);
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = match body {
            Some(body) => request.header(header::CONTENT_TYPE, "application/json").body(Body::from(body.to_string())),
            None => request.body(Body::empty()),
        }
        .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, bytes.to_vec())
    }

    /// The status and body of a GET, whatever they are (a detail route may
    /// refuse some rows, and must refuse them alike after a move).
    async fn answer(&self, uri: &str, token: &str) -> Value {
        let (status, bytes) = self.call(Method::GET, uri, Some(token), None).await;
        let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(hex::encode(&bytes)));
        json!({ "status": status.as_u16(), "body": body })
    }

    async fn get(&self, uri: &str, token: &str) -> Value {
        let (status, bytes) = self.call(Method::GET, uri, Some(token), None).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {}", String::from_utf8_lossy(&bytes));
        serde_json::from_slice(&bytes).unwrap_or_else(|error| panic!("{uri}: {error}"))
    }

    /// Every page of a keyset-paged list, the pages' `items` one after the other.
    async fn all_pages(&self, uri: &str, token: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let separator = if uri.contains('?') { '&' } else { '?' };
            let paged = match &next {
                Some(after) => format!("{uri}{separator}after={after}"),
                None => uri.to_string(),
            };
            let page = self.get(&paged, token).await;
            // Lists name their rows `items`, reports `rows`, a wallet `walletHistory`.
            let rows = ["items", "rows", "walletHistory"].iter().find_map(|key| page[*key].as_array());
            items.extend(rows.unwrap_or_else(|| panic!("{uri}: no rows in {page}")).iter().cloned());
            match page["next"].as_str() {
                Some(after) => next = Some(after.to_string()),
                None => return items,
            }
        }
    }

    async fn sign_in(&self, email: &str) -> String {
        let (status, _) =
            self.call(Method::POST, "/api/v1/auth/otp/request", None, Some(json!({ "contact": email }))).await;
        assert_eq!(status, StatusCode::OK);
        let (_, outbox) = self.call(Method::GET, &format!("/api/v1/dev/outbox?to={email}"), None, None).await;
        let outbox: Value = serde_json::from_slice(&outbox).unwrap();
        let code = outbox["messages"][0]["code"].as_str().unwrap().to_string();
        let (status, signed_in) = self
            .call(Method::POST, "/api/v1/auth/otp/verify", None, Some(json!({ "contact": email, "code": code })))
            .await;
        assert_eq!(status, StatusCode::OK);
        let signed_in: Value = serde_json::from_slice(&signed_in).unwrap();
        signed_in["token"].as_str().unwrap().to_string()
    }

    async fn upload_profile_image(&self, token: &str, bytes: &[u8]) -> String {
        const BOUNDARY: &str = "----wayfare-archive-test";
        let mut body = format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"me.png\"\r\nContent-Type: image/png\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
        let request = Request::builder()
            .method(Method::POST)
            .uri("/api/v1/users/me/profile-image")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
            .body(Body::from(body))
            .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&bytes));
        let user: Value = serde_json::from_slice(&bytes).unwrap();
        user["profile_image"].as_str().expect("the image's URL").to_string()
    }
}

/// Sessions that sign in on the source city, and move with it.
struct Tokens {
    admin: String,
    rider: String,
    rider_id: String,
    driver: String,
}

/// What every list route, and the detail routes of some bookings and
/// users, answer: the city as its people and admins see it.
async fn answers(city: &City, tokens: &Tokens, files: &[String]) -> Vec<(String, Value)> {
    let admin = tokens.admin.as_str();
    let mut answers = Vec::new();
    for uri in [
        "/api/v1/bookings?limit=200",
        "/api/v1/bookings?limit=200&sort=bookingDate&order=asc",
        "/api/v1/users?limit=200",
        "/api/v1/users?limit=200&role=driver",
        "/api/v1/withdraws?limit=100",
        "/api/v1/notifications?limit=100",
        "/api/v1/reports/earnings?limit=100",
        "/api/v1/reports/driver-earnings?limit=100",
        "/api/v1/sos?limit=100",
        "/api/v1/payment-gateways/changes?limit=100",
    ] {
        answers.push((uri.to_string(), Value::Array(city.all_pages(uri, admin).await)));
    }
    for uri in [
        "/api/v1/cartypes",
        "/api/v1/cancelreasons",
        "/api/v1/promos",
        "/api/v1/languages",
        "/api/v1/settings",
        "/api/v1/appinfo",
        "/api/v1/payment-gateways",
        "/api/v1/dashboard/earnings",
        "/api/v1/reports/owed",
        "/api/v1/dispatch/log?limit=500",
        "/api/v1/auth/me",
    ] {
        answers.push((uri.to_string(), city.get(uri, admin).await));
    }
    let bookings = city.all_pages("/api/v1/bookings?limit=500", admin).await;
    assert!(bookings.len() > 100, "two days of history: {}", bookings.len());
    for booking in bookings.iter().step_by(bookings.len() / 25) {
        let id = booking["id"].as_str().unwrap();
        for detail in ["", "/tracking", "/chat", "/dispatch", "/ledger", "/refunds"] {
            let uri = format!("/api/v1/bookings/{id}{detail}");
            answers.push((uri.clone(), city.answer(&uri, admin).await));
        }
    }
    let users = city.all_pages("/api/v1/users?limit=500", admin).await;
    for user in users.iter().step_by(3) {
        let id = user["id"].as_str().unwrap();
        for uri in [format!("/api/v1/users/{id}"), format!("/api/v1/users/{id}/documents")] {
            answers.push((uri.clone(), city.answer(&uri, admin).await));
        }
        let uri = format!("/api/v1/users/{id}/wallet?limit=100");
        answers.push((uri.clone(), Value::Array(city.all_pages(&uri, admin).await)));
    }
    let rider_wallet = format!("/api/v1/users/{}/wallet?limit=100", tokens.rider_id);
    answers.push(("rider's wallet".into(), Value::Array(city.all_pages(&rider_wallet, &tokens.rider).await)));
    answers.push(("rider's bookings".into(), Value::Array(city.all_pages("/api/v1/bookings", &tokens.rider).await)));
    answers.push(("driver's statements".into(), city.get("/api/v1/drivers/me/statements", &tokens.driver).await));
    for file in files {
        let (status, bytes) = city.call(Method::GET, file, Some(admin), None).await;
        assert_eq!(status, StatusCode::OK, "{file}");
        answers.push((file.clone(), Value::String(hex::encode(bytes))));
    }
    answers
}

fn assert_same(expected: &[(String, Value)], actual: &[(String, Value)], move_name: &str) {
    assert_eq!(expected.len(), actual.len());
    for ((uri, before), (_, after)) in expected.iter().zip(actual) {
        assert!(before == after, "{move_name}: {uri} answers differently\nbefore: {before}\nafter:  {after}");
    }
}

async fn audit_is_clean(city: &City) {
    let audit = city.state.storage.audit().await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    assert!(audit.bookings > 100);
}

/// A PNG by its magic bytes (the upload checks no more).
fn png(seed: u8) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.extend((0..4096u32).map(|index| (index as u8).wrapping_mul(31).wrapping_add(seed)));
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_city_moves_to_postgresql_and_back_with_the_same_answers() {
    let source_dir = tempfile::tempdir().unwrap();
    let mut config = config_in(source_dir.path(), None);
    config.demo = true;
    config.demo_seed.history_days = 2;
    let source = City::start(config).await;
    let admin = source.sign_in("admin@demo.wayfare").await;
    let rider = source.sign_in("rider1@demo.wayfare").await;
    let driver = source.sign_in("driver1@demo.wayfare").await;
    let rider_id = source.get("/api/v1/auth/me", &rider).await["user"]["id"].as_str().unwrap().to_string();
    let files =
        vec![source.upload_profile_image(&rider, &png(1)).await, source.upload_profile_image(&driver, &png(2)).await];
    let (status, _) = source
        .call(
            Method::POST,
            "/api/v1/notifications",
            Some(&admin),
            Some(json!({ "title": "Moving day", "body": "We move to a bigger database tonight." })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let tokens = Tokens { admin, rider, rider_id, driver };
    let expected = answers(&source, &tokens, &files).await;

    let work = tempfile::tempdir().unwrap();
    let first = work.path().join("city.zip");
    wayfare_http::archive::export_command(source.state.config.clone(), &first).await.expect("exported");
    let manifest = archive::import::read_manifest(&first).unwrap();
    assert_eq!(manifest.source_backend, "sqlite");
    assert_eq!(manifest.files.len(), 2);
    // The demo's history (two days back from now: how many trips depends on the hour) has tracks.
    let tracked = source.state.storage.table_counts().await.unwrap()["tracking_points"];
    assert!(tracked > 100, "the history has tracks ({tracked} points)");
    assert!(manifest.tables.iter().any(|table| table.name == "tracking_points" && table.rows == tracked));

    // Into PostgreSQL (SQLite when no PostgreSQL is configured).
    let schema = match postgres_url() {
        Some(base) => Some(Schema::create(&base).await),
        None => None,
    };
    let middle_dir = tempfile::tempdir().unwrap();
    let middle_config = config_in(middle_dir.path(), schema.as_ref().map(Schema::url));
    archive::import_command(middle_config.clone(), &first).await.expect("imported");
    // The same server configuration (`--demo`), on the moved database.
    let middle = City::start(Config { demo: true, ..middle_config }).await;
    assert_same(&expected, &answers(&middle, &tokens, &files).await, "SQLite to PostgreSQL");
    audit_is_clean(&middle).await;

    // And back into SQLite.
    let second = work.path().join("again.zip");
    archive::export_command(middle.state.config.clone(), &second).await.expect("exported again");
    let back_dir = tempfile::tempdir().unwrap();
    archive::import_command(config_in(back_dir.path(), None), &second).await.expect("imported again");
    let back = City::start(Config { demo: true, ..config_in(back_dir.path(), None) }).await;
    assert_same(&expected, &answers(&back, &tokens, &files).await, "PostgreSQL to SQLite");
    audit_is_clean(&back).await;

    // A city is not imported over: refused, with nothing changed.
    let refused = archive::import_command(middle.state.config.clone(), &first).await.unwrap_err();
    assert!(format!("{refused:#}").contains("not empty"), "{refused:#}");
    assert_same(&expected, &answers(&middle, &tokens, &files).await, "after a refused import");

    for city in [source, middle, back] {
        city.stop().await;
    }
    if let Some(schema) = schema {
        schema.drop_schema().await;
    }
}

/// Copies the zip at `from` to `to`, passing each member's bytes through `change`.
fn rewrite(from: &Path, to: &Path, change: impl Fn(&str, Vec<u8>) -> Vec<u8>) {
    let mut reader = zip::ZipArchive::new(std::fs::File::open(from).unwrap()).unwrap();
    let mut writer = zip::ZipWriter::new(std::fs::File::create(to).unwrap());
    for index in 0..reader.len() {
        let mut member = reader.by_index(index).unwrap();
        let name = member.name().unwrap().to_string();
        let mut bytes = Vec::new();
        member.read_to_end(&mut bytes).unwrap();
        writer.start_file(name.as_str(), zip::write::SimpleFileOptions::default()).unwrap();
        writer.write_all(&change(&name, bytes)).unwrap();
    }
    writer.finish().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_archive_is_refused_and_the_database_stays_empty() {
    let source_dir = tempfile::tempdir().unwrap();
    let mut config = config_in(source_dir.path(), None);
    config.demo = true;
    let source = City::start(config).await;
    let rider = source.sign_in("rider1@demo.wayfare").await;
    source.upload_profile_image(&rider, &png(3)).await;
    let work = tempfile::tempdir().unwrap();
    let good = work.path().join("city.zip");
    archive::export_command(source.state.config.clone(), &good).await.unwrap();

    // One character of one user changed: the member's SHA-256 gives it away.
    let tampered = work.path().join("tampered.zip");
    rewrite(&good, &tampered, |name, bytes| {
        if name == "tables/users.ndjson" {
            String::from_utf8(bytes).unwrap().replacen("rider1@demo.wayfare", "rider9@demo.wayfare", 1).into_bytes()
        } else {
            bytes
        }
    });
    // An upload changed: the same.
    let bad_file = work.path().join("bad-file.zip");
    rewrite(&good, &bad_file, |name, mut bytes| {
        if name.starts_with("files/") {
            bytes[20] ^= 0xff;
        }
        bytes
    });
    // Half the file: not a zip any more.
    let truncated = work.path().join("truncated.zip");
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    // A manifest from a newer Wayfare's database.
    let newer = work.path().join("newer.zip");
    rewrite(&good, &newer, |name, bytes| {
        if name == "manifest.json" {
            let mut manifest: Value = serde_json::from_slice(&bytes).unwrap();
            manifest["schemaVersion"] = json!(manifest["schemaVersion"].as_i64().unwrap() + 1);
            serde_json::to_vec(&manifest).unwrap()
        } else {
            bytes
        }
    });

    for (archive, expected) in [
        (&tampered, "tables/users.ndjson: its SHA-256 does not match"),
        (&bad_file, "its size or SHA-256 does not match"),
        (&truncated, "not a Wayfare archive"),
        (&newer, "newer Wayfare"),
    ] {
        let target_dir = tempfile::tempdir().unwrap();
        let target = config_in(target_dir.path(), None);
        let error = archive::import_command(target.clone(), archive).await.unwrap_err();
        assert!(format!("{error:#}").contains(expected), "{}: {error:#}", archive.display());
        let storage = wayfare_storage::open(&target.storage_url()).await.unwrap();
        assert_eq!(storage.tables_with_rows().await.unwrap(), Vec::<String>::new(), "{}", archive.display());
    }

    // The good one goes in; into the source itself it is refused.
    let target_dir = tempfile::tempdir().unwrap();
    archive::import_command(config_in(target_dir.path(), None), &good).await.expect("the good archive imports");
    let error = archive::import_command(source.state.config.clone(), &good).await.unwrap_err();
    assert!(format!("{error:#}").contains("not empty"), "{error:#}");
    source.stop().await;
}

/// What a progress display was told: each stage with its announced total
/// and the records it was advanced by.
#[derive(Default)]
struct Recorded(std::sync::Mutex<Vec<(String, u64, u64)>>);

impl wayfare_http::import::progress::Progress for Recorded {
    fn stage(&self, name: &str, total: u64) {
        self.0.lock().unwrap().push((name.to_string(), total, 0));
    }

    fn advance(&self, done: u64) {
        if let Some(last) = self.0.lock().unwrap().last_mut() {
            last.2 += done;
        }
    }

    fn finish_stage(&self) {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_and_import_show_each_table_s_rows_and_the_uploads_as_they_go() {
    let source_dir = tempfile::tempdir().unwrap();
    let mut config = Config { demo: true, ..config_in(source_dir.path(), None) };
    config.demo_seed.history_days = 1;
    let source = City::start(config).await;
    let rider = source.sign_in("rider1@demo.wayfare").await;
    source.upload_profile_image(&rider, &png(4)).await;
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("city.zip");
    let exported = Recorded::default();
    let manifest = archive::export::export(source.state.storage.clone(), source.state.files.clone(), &out, &exported)
        .await
        .expect("exported");
    source.stop().await;
    let mut expected: Vec<(String, u64)> =
        manifest.tables.iter().map(|table| (table.name.clone(), table.rows)).collect();
    expected.push(("files".into(), 1));
    let stages = exported.0.into_inner().unwrap();
    // An export learns a table's rows as it reads them: no total beforehand.
    let seen: Vec<(String, u64)> = stages.iter().map(|(name, _, done)| (name.clone(), *done)).collect();
    assert_eq!(seen, expected);
    assert!(stages.iter().filter(|(name, _, _)| name != "files").all(|(_, total, _)| *total == 0));
    assert!(expected.iter().any(|(name, rows)| name == "bookings" && *rows > 0), "the demo city has bookings");

    let target_dir = tempfile::tempdir().unwrap();
    let target = config_in(target_dir.path(), None);
    let storage = wayfare_storage::open_at_schema(&target.storage_url(), Some(manifest.schema_version)).await.unwrap();
    let files = wayfare_http::files::store_from_config(&target.files, &target.data_dir).unwrap();
    let imported = Recorded::default();
    let report = archive::import::import(storage, files, &out, &imported).await.expect("imported");
    assert_eq!(report.files, 1);
    // An import knows each table's rows from the manifest.
    let stages = imported.0.into_inner().unwrap();
    let expected: Vec<(String, u64, u64)> = expected.into_iter().map(|(name, rows)| (name, rows, rows)).collect();
    assert_eq!(stages, expected);
}
