//! Drivers sign themselves up (issue #33; spec §7 `user_signup`): the
//! sign-up with a one-time code, documents, the approval queue, approval and
//! rejection with a reason, and expiry. Each scenario runs on SQLite and,
//! when `WAYFARE_TEST_POSTGRES_URL` is set (always in CI), on PostgreSQL in
//! a fresh schema.

use crate::files::{Part, png, upload};
use crate::support::*;
use serde_json::{Value, json};
use wayfare_engine::Settings;
use wayfare_http::demo;

const DAY: i64 = 86_400_000;

// ---- both databases ------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Backend {
    Sqlite,
    Postgres,
}

/// `WAYFARE_TEST_POSTGRES_URL`; `None` (the PostgreSQL variant is not run)
/// when it is not set, except in CI (`CI=true`), where a variant that would
/// pass without running is a failure.
fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var("WAYFARE_TEST_POSTGRES_URL") {
        return Some(url);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI runs the sign-up scenarios on PostgreSQL too: set WAYFARE_TEST_POSTGRES_URL (`make test` starts a local PostgreSQL and sets it)"
    );
    None
}

/// A demo app on the backend, with the settings changed; the PostgreSQL
/// schema to drop afterwards. `None` when PostgreSQL is not configured.
async fn app_on(backend: Backend, change: impl FnOnce(&mut Settings)) -> Option<(TestApp, Option<(String, String)>)> {
    let mut setup = Setup::default();
    change(&mut setup.settings);
    let schema = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => {
            let base = postgres_url()?;
            let schema = format!("signup_{}", uuid::Uuid::now_v7().simple());
            let admin = sqlx::PgPool::connect(&base).await.expect("WAYFARE_TEST_POSTGRES_URL answers");
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).execute(&admin).await.unwrap();
            admin.close().await;
            let separator = if base.contains('?') { '&' } else { '?' };
            setup.config.database_url = Some(format!("{base}{separator}options[search_path]={schema}"));
            Some((base, schema))
        }
    };
    Some((TestApp::start(setup).await, schema))
}

async fn drop_schema(schema: Option<(String, String)>) {
    if let Some((base, schema)) = schema {
        let admin = sqlx::PgPool::connect(&base).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE"))).execute(&admin).await.unwrap();
        admin.close().await;
    }
}

/// `name::sqlite` and `name::postgres` of a scenario `async fn(TestApp)`,
/// on the demo city with `settings` changed.
macro_rules! on_both {
    ($name:ident, $settings:expr) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                run(Backend::Sqlite).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                run(Backend::Postgres).await;
            }
            async fn run(backend: Backend) {
                let Some((app, schema)) = app_on(backend, $settings).await else {
                    eprintln!("WAYFARE_TEST_POSTGRES_URL not set: PostgreSQL variant not run");
                    return;
                };
                let outcome = tokio::spawn(super::$name(app)).await;
                drop_schema(schema).await;
                if let Err(error) = outcome {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
        }
    };
}

fn unchanged(_: &mut Settings) {}

on_both!(a_new_driver_signs_up_waits_is_approved_and_goes_online, unchanged);
on_both!(sign_up_refusals_name_their_field, unchanged);
on_both!(a_rejected_driver_is_told_why, unchanged);
on_both!(a_fleet_admin_reviews_only_their_fleets_drivers, unchanged);
on_both!(an_expired_insurance_blocks_going_online_until_a_new_one_is_approved, unchanged);
on_both!(one_reminder_goes_out_for_a_document_expiring_within_thirty_days, unchanged);
on_both!(only_the_required_documents_are_needed, |settings: &mut Settings| {
    settings.driverDocuments = vec![wayfare_engine::DocumentKind::Photo];
});
on_both!(without_driver_approval_a_driver_starts_at_once, |settings: &mut Settings| {
    settings.driver_approval = false;
});

// ---- helpers ----------------------------------------------------------------------

const ADMIN: &str = "admin@demo.wayfare";

fn signup_body(contact: &str, code: &str) -> Value {
    json!({
        "contact": contact,
        "code": code,
        "usertype": "driver",
        "firstName": "Sam",
        "lastName": "Newdriver",
        "carType": "Economy",
        "vehicleMake": "Toyota",
        "vehicleModel": "Prius",
        "vehicleNumber": "MD 4242",
        "vehicleColor": "Silver",
        "vehicleYear": "2019",
    })
}

/// Signs up through the real routes; the session.
async fn sign_up(app: &TestApp, contact: &str, extra: Value) -> Session {
    app.request_code(contact).await.expect(200);
    let code = app.latest_code(contact).await;
    let mut body = signup_body(contact, &code);
    if let (Value::Object(fields), Value::Object(more)) = (&mut body, extra) {
        fields.extend(more);
    }
    Session::from_verify(&app.post("/api/v1/auth/signup", None, body).await)
}

fn front(bytes: Vec<u8>) -> Part {
    Part { name: "front".into(), file_name: Some("front.png".into()), content_type: Some("image/png".into()), bytes }
}

fn field(name: &str, value: &str) -> Part {
    Part { name: name.into(), file_name: None, content_type: None, bytes: value.as_bytes().to_vec() }
}

/// Uploads a document of `kind` with fields that pass, expiring at `expiry`.
async fn upload_kind(app: &TestApp, who: &Session, kind: &str, expiry: i64) -> Reply {
    let mut parts = vec![front(png(3))];
    if kind == "licence" {
        parts.push(Part {
            name: "back".into(),
            file_name: Some("back.png".into()),
            content_type: Some("image/png".into()),
            bytes: png(4),
        });
        parts.push(field("number", "D123-456-789"));
    }
    if kind == "licence" || kind == "insurance" {
        parts.push(field("expiry", &expiry.to_string()));
    }
    upload(app, &format!("/api/v1/drivers/me/documents/{kind}"), Some(who), &parts).await
}

async fn upload_all(app: &TestApp, who: &Session) {
    let expiry = app.now() + 365 * DAY;
    for kind in ["licence", "registration", "insurance", "photo"] {
        let document = upload_kind(app, who, kind, expiry).await;
        assert_eq!(document.expect(200)["status"], "pending", "{kind}");
    }
}

async fn go_online(app: &TestApp, who: &Session) -> Reply {
    app.post("/api/v1/drivers/me/status", Some(who), json!({ "driverActiveStatus": true })).await
}

async fn application(app: &TestApp, who: &Session) -> Value {
    app.get("/api/v1/drivers/me/application", Some(who)).await.expect(200).clone()
}

fn queue_ids(reply: &Reply) -> Vec<String> {
    reply.expect(200)["items"].as_array().unwrap().iter().map(|user| user["id"].as_str().unwrap().to_string()).collect()
}

/// The newest message the dev outbox holds for a contact.
async fn latest_message(app: &TestApp, contact: &str) -> Value {
    let reply = app.get(&format!("/api/v1/dev/outbox?to={}", query_encode(contact)), None).await;
    reply.expect(200)["messages"][0].clone()
}

// ---- scenarios --------------------------------------------------------------------

async fn a_new_driver_signs_up_waits_is_approved_and_goes_online(app: TestApp) {
    let contact = "sam.new@example.com";
    let mut notices = app.state.notifier.subscribe();
    let driver = sign_up(&app, contact, json!({})).await;
    assert_eq!(
        (&driver.user["usertype"], &driver.user["approved"], &driver.user["regType"]),
        (&json!("driver"), &json!(false), &json!("registration"))
    );
    assert_eq!((&driver.user["vehicleColor"], &driver.user["vehicleYear"]), (&json!("Silver"), &json!("2019")));
    assert_eq!(driver.user["referralId"].as_str().unwrap().len(), 5);
    // Pending: who am I and the application answer; nothing else does.
    assert_eq!(app.get("/api/v1/auth/me", Some(&driver)).await.expect(200)["user"]["email"], contact);
    let before = application(&app, &driver).await;
    assert_eq!(before["status"], "incomplete");
    assert_eq!(before["missing"], json!(["licence", "registration", "insurance", "photo"]));
    for path in ["/api/v1/bookings", "/api/v1/tasks", &format!("/api/v1/users/{}/wallet", driver.id)] {
        app.get(path, Some(&driver)).await.refused(403, "require_approval");
    }
    go_online(&app, &driver).await.refused(403, "require_approval");
    let admin = app.sign_in(ADMIN).await;
    // Not in the queue until every required document is in.
    assert!(!queue_ids(&app.get("/api/v1/drivers/applications", Some(&admin)).await).contains(&driver.id.to_string()));
    upload_all(&app, &driver).await;
    let waiting = application(&app, &driver).await;
    assert_eq!(waiting["status"], "pending");
    assert_eq!(waiting["documents"].as_array().unwrap().len(), 4);
    // The photo is the profile photo, the licence's front the licence image;
    // the driver reads their own documents' files.
    let me = app.get("/api/v1/auth/me", Some(&driver)).await.expect(200).clone();
    let licence_url = me["user"]["licenseImage"].as_str().expect("licenseImage set").to_string();
    assert!(me["user"]["profile_image"].as_str().is_some());
    let file = app.get(&licence_url, Some(&driver)).await;
    assert_eq!(file.status.as_u16(), 200);
    let insurance_url = waiting["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|document| document["kind"] == "insurance")
        .unwrap()["front"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(app.get(&insurance_url, Some(&driver)).await.status.as_u16(), 200);
    app.get(&insurance_url, None).await.refused(401, "not_logged_in");
    go_online(&app, &driver).await.refused(403, "require_approval");

    let queue = app.get("/api/v1/drivers/applications", Some(&admin)).await;
    assert!(queue_ids(&queue).contains(&driver.id.to_string()));
    assert!(queue.body["total"].as_u64().unwrap() >= 1);
    let review = app.get(&format!("/api/v1/users/{}/documents", driver.id), Some(&admin)).await;
    assert_eq!(review.expect(200)["application"]["status"], "pending");
    let approved = app.post_empty(&format!("/api/v1/users/{}/approve", driver.id), Some(&admin)).await;
    assert_eq!(approved.expect(200)["approved"], true);
    assert_eq!(application(&app, &driver).await["status"], "approved");
    assert!(!queue_ids(&app.get("/api/v1/drivers/applications", Some(&admin)).await).contains(&driver.id.to_string()));
    // Told in the app and by e-mail.
    let told = latest_message(&app, contact).await;
    assert!(told["subject"].as_str().unwrap().to_lowercase().contains("approved"), "{told}");
    let notice = notices.try_recv().expect("an in-app notice");
    assert_eq!((notice.to.clone(), notice.payload["key"].clone()), (vec![driver.id], json!("driver_approved")));

    go_online(&app, &driver).await.expect(200);
    assert!(app.runtime().is_online(driver.id));
    app.get("/api/v1/bookings", Some(&driver)).await.expect(200);
}

async fn sign_up_refusals_name_their_field(app: TestApp) {
    let contact = "+14105557001";
    app.request_code(contact).await.expect(200);
    let code = app.latest_code(contact).await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    app.post("/api/v1/auth/signup", None, signup_body(contact, wrong)).await.refused(400, "invalid_code");
    for (change, key, field) in [
        (json!({ "firstName": " " }), "profile_incomplete", "firstName"),
        (json!({ "carType": "Hovercraft" }), "select_proper", "carType"),
        (json!({ "vehicleNumber": "" }), "vehicle_details_missing", "vehicleNumber"),
        (json!({ "vehicleYear": "19" }), "vehicle_year_invalid", "vehicleYear"),
        (json!({ "fleetCode": "ZZZZZ" }), "fleet_code_invalid", "fleetCode"),
        (json!({ "email": "not-an-email" }), "proper_email", "email"),
    ] {
        let mut body = signup_body(contact, &code);
        if let (Value::Object(fields), Value::Object(more)) = (&mut body, change) {
            fields.extend(more);
        }
        app.post("/api/v1/auth/signup", None, body).await.refused_on(400, key, field);
    }
    let mut admin_form = signup_body(contact, &code);
    admin_form["usertype"] = json!("admin");
    app.post("/api/v1/auth/signup", None, admin_form).await.refused_on(403, "not_valid_user_type", "usertype");
    // The form's refusals did not use the code up.
    let driver = Session::from_verify(&app.post("/api/v1/auth/signup", None, signup_body(contact, &code)).await);
    assert_eq!(driver.user["mobile"], contact);
    // An existing account, by contact or by the e-mail given.
    app.request_code("driver1@demo.wayfare").await.expect(200);
    let code = app.latest_code("driver1@demo.wayfare").await;
    app.post("/api/v1/auth/signup", None, signup_body("driver1@demo.wayfare", &code)).await.refused(409, "user_exists");
    app.request_code("+14105557002").await.expect(200);
    let code = app.latest_code("+14105557002").await;
    let mut body = signup_body("+14105557002", &code);
    body["email"] = json!("rider1@demo.wayfare");
    app.post("/api/v1/auth/signup", None, body).await.refused_on(409, "user_exists", "email");
    // Riders sign up too, approved at once.
    let rider = sign_up(&app, "rae.rider@example.com", json!({ "usertype": "rider", "firstName": "Rae" })).await;
    assert_eq!((&rider.user["usertype"], &rider.user["approved"]), (&json!("rider"), &json!(true)));
    assert_eq!(rider.user["carType"], Value::Null);
}

async fn a_rejected_driver_is_told_why(app: TestApp) {
    let contact = "+14105557010";
    let driver = sign_up(&app, contact, json!({})).await;
    upload_all(&app, &driver).await;
    let admin = app.sign_in(ADMIN).await;
    let path = format!("/api/v1/users/{}/reject", driver.id);
    app.post(&path, Some(&admin), json!({ "reason": "  " })).await.refused_on(400, "reason_required", "reason");
    let mut notices = app.state.notifier.subscribe();
    let reason = "The licence photo is blurred";
    let rejected = app.post(&path, Some(&admin), json!({ "reason": reason })).await;
    assert_eq!(rejected.expect(200)["application"]["status"], "rejected");
    let told = application(&app, &driver).await;
    assert_eq!((&told["status"], &told["reason"]), (&json!("rejected"), &json!(reason)));
    assert_eq!(app.get("/api/v1/auth/me", Some(&driver)).await.expect(200)["user"]["approved"], false);
    let message = latest_message(&app, contact).await;
    assert!(message["body"].as_str().unwrap().contains(reason), "{message}");
    let notice = notices.try_recv().expect("an in-app notice");
    assert_eq!(notice.payload["key"], "driver_rejected");
    assert!(notice.payload["body"].as_str().unwrap().contains(reason));
    // Nothing is waiting any more.
    app.post(&path, Some(&admin), json!({ "reason": reason })).await.refused(409, "status_not_allowed");
    // A new upload puts them back in review.
    upload_kind(&app, &driver, "licence", app.now() + 365 * DAY).await.expect(200);
    assert_eq!(application(&app, &driver).await["status"], "incomplete");
    for kind in ["registration", "insurance", "photo"] {
        upload_kind(&app, &driver, kind, app.now() + 365 * DAY).await.expect(200);
    }
    assert_eq!(application(&app, &driver).await["status"], "pending");
}

async fn a_fleet_admin_reviews_only_their_fleets_drivers(app: TestApp) {
    app.insert_user(&other_fleet_admin()).await;
    let fleet_code = demo_user(demo::FLEET_EMAIL).referralId;
    let ours = sign_up(&app, "ours@example.com", json!({ "fleetCode": fleet_code.to_lowercase() })).await;
    assert_eq!(ours.user["fleetadmin"], json!(fleet_admin().id));
    let theirs = sign_up(&app, "theirs@example.com", json!({ "fleetCode": other_fleet_admin().referralId })).await;
    let loner = sign_up(&app, "loner@example.com", json!({})).await;
    for driver in [&ours, &theirs, &loner] {
        upload_all(&app, driver).await;
    }
    let fleet = app.sign_in(demo::FLEET_EMAIL).await;
    let queue = app.get("/api/v1/drivers/applications", Some(&fleet)).await;
    assert_eq!(queue_ids(&queue), vec![ours.id.to_string()]);
    assert_eq!(queue.body["total"], 1);
    let admin = app.sign_in(ADMIN).await;
    let all = queue_ids(&app.get("/api/v1/drivers/applications", Some(&admin)).await);
    for driver in [&ours, &theirs, &loner] {
        assert!(all.contains(&driver.id.to_string()));
    }
    for path in [format!("/api/v1/users/{}/approve", theirs.id), format!("/api/v1/users/{}/documents", theirs.id)] {
        let reply = if path.ends_with("approve") {
            app.post_empty(&path, Some(&fleet)).await
        } else {
            app.get(&path, Some(&fleet)).await
        };
        reply.refused(404, "not_found");
    }
    app.post(&format!("/api/v1/users/{}/reject", theirs.id), Some(&fleet), json!({ "reason": "no" }))
        .await
        .refused(404, "not_found");
    app.post_empty(&format!("/api/v1/users/{}/approve", ours.id), Some(&fleet)).await.expect(200);
    go_online(&app, &ours).await.expect(200);
    // Riders and pending drivers may not see the queue.
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get("/api/v1/drivers/applications", Some(&rider)).await.refused(403, "not_allowed");
    app.get("/api/v1/drivers/applications", Some(&theirs)).await.refused(403, "require_approval");
    app.get(&format!("/api/v1/users/{}/documents", ours.id), Some(&theirs)).await.refused(403, "not_allowed");
}

async fn an_expired_insurance_blocks_going_online_until_a_new_one_is_approved(app: TestApp) {
    let driver = sign_up(&app, "+14105557020", json!({})).await;
    upload_all(&app, &driver).await;
    let admin = app.sign_in(ADMIN).await;
    let approve = format!("/api/v1/users/{}/approve", driver.id);
    app.post_empty(&approve, Some(&admin)).await.expect(200);
    // An insurance that expires in ten days, approved.
    upload_kind(&app, &driver, "insurance", app.now() + 10 * DAY).await.expect(200);
    go_online(&app, &driver).await.refused_on(409, "documents_missing", "insurance");
    app.post_empty(&approve, Some(&admin)).await.expect(200);
    go_online(&app, &driver).await.expect(200);
    // Eleven days on the sweep takes the driver offline, and going online is refused.
    app.advance(std::time::Duration::from_millis(11 * DAY as u64));
    let report = wayfare_http::routes::applications::sweep_documents(&app.state, app.now()).await.unwrap();
    assert_eq!(report.taken_offline, 1);
    assert!(!app.runtime().is_online(driver.id));
    go_online(&app, &driver).await.refused_on(409, "document_expired", "insurance");
    assert_eq!(application(&app, &driver).await["missing"], json!(["insurance"]));
    // A new one waiting for review still blocks; its approval unblocks.
    upload_kind(&app, &driver, "insurance", app.now() + 365 * DAY).await.expect(200);
    go_online(&app, &driver).await.refused_on(409, "documents_missing", "insurance");
    let admin_queue = queue_ids(&app.get("/api/v1/drivers/applications", Some(&admin)).await);
    assert!(admin_queue.contains(&driver.id.to_string()), "a replacement waits in the queue");
    app.post_empty(&approve, Some(&admin)).await.expect(200);
    go_online(&app, &driver).await.expect(200);
    // A demo driver an admin added has no documents on record and still goes online.
    let veteran = app.sign_in("driver3@demo.wayfare").await;
    go_online(&app, &veteran).await.expect(200);
}

async fn one_reminder_goes_out_for_a_document_expiring_within_thirty_days(app: TestApp) {
    let contact = "remind.me@example.com";
    let driver = sign_up(&app, contact, json!({})).await;
    upload_all(&app, &driver).await;
    upload_kind(&app, &driver, "insurance", app.now() + 40 * DAY).await.expect(200);
    let state = app.state.clone();
    let sweep = |now| {
        let state = state.clone();
        async move { wayfare_http::routes::applications::sweep_documents(&state, now).await.unwrap() }
    };
    assert_eq!(sweep(app.now()).await.reminded, 0, "40 days out is not yet due");
    let mut notices = app.state.notifier.subscribe();
    let later = app.now() + 15 * DAY;
    assert_eq!(sweep(later).await.reminded, 1);
    let message = latest_message(&app, contact).await;
    assert!(message["subject"].as_str().unwrap().to_lowercase().contains("expir"), "{message}");
    assert_eq!(notices.try_recv().expect("an in-app notice").payload["key"], "document_expiring");
    assert_eq!(sweep(later + DAY).await.reminded, 0, "once");
    let reminded = application(&app, &driver).await;
    let insurance = reminded["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|document| document["kind"] == "insurance")
        .unwrap()
        .clone();
    assert_eq!(insurance["remindedAt"], later);
}

async fn only_the_required_documents_are_needed(app: TestApp) {
    let driver = sign_up(&app, "photo.only@example.com", json!({})).await;
    let before = application(&app, &driver).await;
    assert_eq!((&before["required"], &before["missing"]), (&json!(["photo"]), &json!(["photo"])));
    let public = app.get("/api/v1/settings", None).await;
    assert_eq!(public.expect(200)["driverDocuments"], json!(["photo"]));
    upload_kind(&app, &driver, "photo", 0).await.expect(200);
    assert_eq!(application(&app, &driver).await["status"], "pending");
    let admin = app.sign_in(ADMIN).await;
    assert!(queue_ids(&app.get("/api/v1/drivers/applications", Some(&admin)).await).contains(&driver.id.to_string()));
    app.post_empty(&format!("/api/v1/users/{}/approve", driver.id), Some(&admin)).await.expect(200);
    go_online(&app, &driver).await.expect(200);
}

async fn without_driver_approval_a_driver_starts_at_once(app: TestApp) {
    let driver = sign_up(&app, "quick.start@example.com", json!({})).await;
    assert_eq!(driver.user["approved"], true);
    go_online(&app, &driver).await.refused_on(409, "documents_missing", "licence");
    let expiry = app.now() + 365 * DAY;
    for kind in ["licence", "registration", "insurance", "photo"] {
        assert_eq!(upload_kind(&app, &driver, kind, expiry).await.expect(200)["status"], "approved");
    }
    go_online(&app, &driver).await.expect(200);
}

// ---- single-backend checks ----------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_uploads_check_their_fields() {
    let app = TestApp::demo().await;
    let driver = sign_up(&app, "fields@example.com", json!({})).await;
    let path = "/api/v1/drivers/me/documents/licence";
    let no_number = upload(&app, path, Some(&driver), &[front(png(2)), field("expiry", "2030-01-01")]).await;
    no_number.refused_on(400, "document_number_missing", "number");
    let no_expiry = upload(&app, path, Some(&driver), &[front(png(2)), field("number", "X1")]).await;
    no_expiry.refused_on(400, "document_expiry_invalid", "expiry");
    let bad_date =
        upload(&app, path, Some(&driver), &[front(png(2)), field("number", "X1"), field("expiry", "soon")]).await;
    bad_date.refused_on(400, "document_expiry_invalid", "expiry");
    let no_image = upload(&app, path, Some(&driver), &[field("number", "X1"), field("expiry", "2030-01-01")]).await;
    no_image.refused_on(400, "choose_image_first", "front");
    let text = Part { bytes: b"not an image".to_vec(), ..front(Vec::new()) };
    let not_image =
        upload(&app, path, Some(&driver), &[text, field("number", "X1"), field("expiry", "2030-01-01")]).await;
    not_image.refused_on(400, "invalid_input", "front");
    let unknown = upload(&app, "/api/v1/drivers/me/documents/passport", Some(&driver), &[front(png(2))]).await;
    unknown.refused_on(400, "invalid_input", "kind");
    let stored =
        upload(&app, path, Some(&driver), &[front(png(2)), field("number", " X1 "), field("expiry", "2030-01-01")])
            .await;
    let stored = stored.expect(200);
    assert_eq!((&stored["number"], &stored["expiresAt"]), (&json!("X1"), &json!(1_893_542_399_999_i64)));
    // Riders have no documents.
    let rider = app.sign_in("rider1@demo.wayfare").await;
    upload(&app, "/api/v1/drivers/me/documents/photo", Some(&rider), &[front(png(2))])
        .await
        .refused(403, "not_allowed");
    app.get("/api/v1/drivers/me/application", Some(&rider)).await.refused(403, "not_allowed");
}
