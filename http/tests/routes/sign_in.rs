//! Sign-in with one-time codes, sessions and sign-out (spec §4 "Login",
//! "Sign-in profile creation", §5 "Login", §6; DESIGN.md contract).

use crate::support::*;
use axum::http::header;
use serde_json::json;
use std::net::SocketAddr;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_goes_to_the_outbox_and_verifying_it_answers_a_token_a_cookie_and_the_user() {
    let app = TestApp::demo().await;
    let sent = app.request_code("Rider1@Demo.Wayfare").await;
    let body = sent.expect(200);
    assert_eq!(body["channel"], "email");
    assert_eq!(body["expiresAt"], T0 + 10 * 60_000, "codes live 10 minutes");

    let outbox = app.get("/api/v1/dev/outbox?to=rider1%40demo.wayfare", None).await;
    let message = &outbox.expect(200)["messages"][0];
    assert_eq!(message["channel"], "email");
    assert_eq!(message["to"], "rider1@demo.wayfare", "the contact is normalised");
    let code = message["code"].as_str().unwrap();
    assert!(code.len() == 6 && code.bytes().all(|byte| byte.is_ascii_digit()), "{code}");
    assert!(message["body"].as_str().unwrap().contains(code));
    assert!(message["subject"].as_str().is_some_and(|subject| !subject.is_empty()));

    let verified = app.verify("rider1@demo.wayfare", code).await;
    let body = verified.expect(200);
    let token = body["token"].as_str().unwrap();
    assert_eq!(token.len(), 64, "32 random bytes, hex");
    assert_eq!(body["user"]["id"], rider(1).id.to_string());
    assert_eq!(body["user"]["usertype"], "rider");
    assert_eq!(body["user"]["email"], "rider1@demo.wayfare");
    let cookie = verified.header(header::SET_COOKIE).expect("a session cookie");
    assert!(cookie.starts_with(&format!("wayfare_session={token};")), "{cookie}");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"), "{cookie}");

    // The bearer header and the cookie both work.
    let session = Session::from_verify(&verified);
    let me = app.get("/api/v1/auth/me", Some(&session)).await;
    assert_eq!(me.expect(200)["user"]["id"], rider(1).id.to_string());
    let by_cookie = axum::http::Request::get("/api/v1/auth/me")
        .header(header::COOKIE, format!("theme=dark; wayfare_session={token}"))
        .body(axum::body::Body::empty())
        .unwrap();
    assert_eq!(app.send(by_cookie).await.expect(200)["user"]["email"], "rider1@demo.wayfare");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_number_gets_its_code_by_sms_and_signs_in_as_a_mobile_rider() {
    let app = TestApp::demo().await;
    let sent = app.request_code("+1 (410) 555-0777").await;
    assert_eq!(sent.expect(200)["channel"], "sms");
    let session = app.sign_in("+14105550777").await;
    assert_eq!(session.user["mobile"], "+14105550777");
    assert_eq!(session.user["regType"], "mobile");
    assert_eq!(session.user["email"], "");
    assert_eq!(session.user["usertype"], "rider");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_contact_is_refused_with_the_spec_key_when_asking_and_when_verifying() {
    let app = TestApp::demo().await;
    // spec §5 Login
    let table = [
        ("", "contact_input_error"),
        ("   ", "contact_input_error"),
        ("not-an-email", "proper_email"),
        ("someone@", "proper_email"),
        ("someone@example", "proper_email"),
        ("12345", "mobile_no_blank_error"),
        ("+1 234 56", "mobile_no_blank_error"),
        ("1234567890123456", "mobile_no_blank_error"),
    ];
    for (contact, key) in table {
        app.request_code(contact).await.refused_on(400, key, "contact");
        app.verify(contact, "123456").await.refused_on(400, key, "contact");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_country_selection_on_a_code_request_needs_a_country() {
    let app = TestApp::with_settings(|settings| settings.AllowCountrySelection = true).await;
    app.request_code("rider1@demo.wayfare").await.refused_on(400, "country_blank_error", "country");
    let with_country =
        app.post("/api/v1/auth/otp/request", None, json!({ "contact": "rider1@demo.wayfare", "country": "US" })).await;
    with_country.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_that_is_not_six_digits_is_otp_validate_error() {
    let app = TestApp::demo().await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    for code in ["", "12345", "1234567", "12a456", "12 456"] {
        app.verify("rider1@demo.wayfare", code).await.refused_on(400, "otp_validate_error", "code");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_code_is_invalid_code_and_the_right_one_still_works_after_it() {
    let app = TestApp::demo().await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    let code = app.latest_code("rider1@demo.wayfare").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    app.verify("rider1@demo.wayfare", wrong).await.refused(400, "invalid_code");
    app.verify("rider1@demo.wayfare", &code).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_works_once() {
    let app = TestApp::demo().await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    let code = app.latest_code("rider1@demo.wayfare").await;
    app.verify("rider1@demo.wayfare", &code).await.expect(200);
    app.verify("rider1@demo.wayfare", &code).await.refused(400, "code_expired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verifying_without_asking_for_a_code_is_code_expired() {
    let app = TestApp::demo().await;
    app.verify("rider1@demo.wayfare", "123456").await.refused(400, "code_expired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_expires_after_ten_minutes() {
    let app = TestApp::demo().await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    let early = app.latest_code("rider1@demo.wayfare").await;
    app.advance(MINUTE * 10 - std::time::Duration::from_secs(1));
    app.verify("rider1@demo.wayfare", &early).await.expect(200);

    app.request_code("rider2@demo.wayfare").await.expect(200);
    let late = app.latest_code("rider2@demo.wayfare").await;
    app.advance(MINUTE * 10);
    app.verify("rider2@demo.wayfare", &late).await.refused(400, "code_expired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_wrong_tries_are_too_many_attempts_and_lock_the_code() {
    let app = TestApp::demo().await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    let code = app.latest_code("rider1@demo.wayfare").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 1..=4 {
        app.verify("rider1@demo.wayfare", wrong).await.refused(400, "invalid_code");
    }
    app.verify("rider1@demo.wayfare", wrong).await.refused(429, "too_many_attempts");
    app.verify("rider1@demo.wayfare", &code).await.refused(429, "too_many_attempts");
    // A new code starts again.
    let session = app.sign_in("rider1@demo.wayfare").await;
    assert_eq!(session.id, rider(1).id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contact_may_ask_for_five_codes_in_ten_minutes() {
    let app = TestApp::demo().await;
    for _ in 0..5 {
        app.request_code("rider1@demo.wayfare").await.expect(200);
    }
    app.request_code("rider1@demo.wayfare").await.refused(429, "too_many_attempts");
    app.request_code("RIDER1@demo.wayfare").await.refused(429, "too_many_attempts");
    app.request_code("rider2@demo.wayfare").await.expect(200);
    app.advance(MINUTE * 10);
    app.request_code("rider1@demo.wayfare").await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_address_may_ask_for_thirty_codes_in_ten_minutes() {
    let app = TestApp::demo().await;
    let client: SocketAddr = "203.0.113.7:50000".parse().unwrap();
    let other: SocketAddr = "198.51.100.9:50000".parse().unwrap();
    for number in 0..30 {
        app.request_code_from(&format!("person{number}@example.com"), client).await.expect(200);
    }
    app.request_code_from("person30@example.com", client).await.refused(429, "too_many_attempts");
    app.request_code_from("person30@example.com", other).await.expect(200);
    app.advance(MINUTE * 10);
    app.request_code_from("person31@example.com", client).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_sign_in_creates_an_approved_rider_with_an_empty_wallet_and_a_referral_code() {
    let app = TestApp::demo().await;
    let session = app.sign_in("newcomer@example.com").await;
    let user = &session.user;
    assert_eq!(user["usertype"], "rider");
    assert_eq!(user["approved"], true);
    assert_eq!(user["walletBalance"], 0.0);
    assert_eq!(user["email"], "newcomer@example.com");
    assert_eq!(user["regType"], "email");
    assert_eq!(user["signupViaReferral"], serde_json::Value::Null);
    let referral = user["referralId"].as_str().unwrap();
    assert!(referral.len() == 5 && referral.bytes().all(|byte| byte.is_ascii_uppercase()), "{referral}");
    let wallet = app.get(&format!("/api/v1/users/{}/wallet", session.id), Some(&session)).await;
    assert_eq!(wallet.expect(200)["walletBalance"], 0.0);

    // Signing in again finds the same account.
    let again = app.sign_in("newcomer@example.com").await;
    assert_eq!(again.id, session.id);
    assert_eq!(again.user["referralId"], referral);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_referral_code_credits_the_bonus_to_both_users() {
    let app = TestApp::demo().await; // settings.bonus is 5
    let referrer = app.sign_in("rider1@demo.wayfare").await;
    let code = referrer.user["referralId"].as_str().unwrap().to_string();
    let newcomer = app.sign_in_with("friend@example.com", json!({ "referralId": code.to_lowercase() })).await;
    assert_eq!(newcomer.user["walletBalance"], 5.0);
    assert_eq!(newcomer.user["signupViaReferral"], code.as_str());
    for session in [&newcomer, &referrer] {
        let wallet = app.get(&format!("/api/v1/users/{}/wallet", session.id), Some(session)).await;
        let body = wallet.expect(200);
        assert_eq!(body["walletBalance"], 5.0, "{body}");
        let entry = &body["walletHistory"][0];
        assert_eq!(
            (entry["type"].as_str(), entry["amount"].as_f64(), entry["txRef"].as_str()),
            (Some("Credit"), Some(5.0), Some("ReferralBonus"))
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_referral_code_signs_up_without_a_bonus() {
    let app = TestApp::demo().await;
    let newcomer = app.sign_in_with("stranger@example.com", json!({ "referralId": "ZZZZZ" })).await;
    assert_eq!(newcomer.user["walletBalance"], 0.0);
    assert_eq!(newcomer.user["signupViaReferral"], serde_json::Value::Null);
    let referrer = app.sign_in("rider1@demo.wayfare").await;
    let wallet = app.get(&format!("/api/v1/users/{}/wallet", referrer.id), Some(&referrer)).await;
    assert_eq!(wallet.expect(200)["walletBalance"], 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_waiting_for_approval_gets_require_approval() {
    let app = TestApp::demo().await;
    let mut waiting = driver(3);
    waiting.id = wayfare_engine::UserId::from_u128(0x0A11_0001);
    waiting.email = "waiting@example.com".into();
    waiting.mobile = "+14105559100".into();
    waiting.referralId = "QWAIT".into();
    waiting.approved = false;
    app.insert_user(&waiting).await;
    // A waiting driver signs in to follow their application (issue #33)…
    let session = app.sign_in("waiting@example.com").await;
    assert_eq!(app.get("/api/v1/auth/me", Some(&session)).await.expect(200)["user"]["approved"], false);
    // …and nothing else answers them.
    app.get("/api/v1/bookings", Some(&session)).await.refused(403, "require_approval");
    // Any other account waiting is refused at sign-in, as before.
    let mut fleet = other_fleet_admin();
    fleet.approved = false;
    app.insert_user(&fleet).await;
    app.request_code(&fleet.email).await.expect(200);
    let code = app.latest_code(&fleet.email).await;
    app.verify(&fleet.email, &code).await.refused(403, "require_approval");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_of_an_account_that_loses_its_approval_gets_require_approval() {
    let app = TestApp::demo().await;
    let session = app.sign_in("driver3@demo.wayfare").await;
    app.get("/api/v1/auth/me", Some(&session)).await.expect(200);
    let mut user = app.state.storage.user(session.id).await.unwrap();
    user.approved = false;
    app.state.storage.update_user(&user, app.now()).await.unwrap();
    app.get("/api/v1/bookings", Some(&session)).await.refused(403, "require_approval");
    app.post("/api/v1/drivers/me/status", Some(&session), json!({ "driverActiveStatus": true }))
        .await
        .refused(403, "require_approval");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn me_without_a_session_or_with_an_unknown_token_is_not_logged_in() {
    let app = TestApp::demo().await;
    app.get("/api/v1/auth/me", None).await.refused(401, "not_logged_in");
    let forged = Session { token: "f".repeat(64), id: rider(1).id, user: json!({}) };
    app.get("/api/v1/auth/me", Some(&forged)).await.refused(401, "not_logged_in");
    let stale_cookie = axum::http::Request::get("/api/v1/auth/me")
        .header(header::COOKIE, "wayfare_session=nothing-like-a-token")
        .body(axum::body::Body::empty())
        .unwrap();
    app.send(stale_cookie).await.refused(401, "not_logged_in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_revokes_the_session_and_clears_the_cookie() {
    let app = TestApp::demo().await;
    let session = app.sign_in("rider1@demo.wayfare").await;
    let other_device = app.sign_in("rider1@demo.wayfare").await;
    let signed_out = app.post_empty("/api/v1/auth/logout", Some(&session)).await;
    assert_eq!(signed_out.expect(200), &json!({ "signedOut": true }));
    let cookie = signed_out.header(header::SET_COOKIE).unwrap();
    assert!(cookie.starts_with("wayfare_session=;") && cookie.contains("Max-Age=0"), "{cookie}");
    app.get("/api/v1/auth/me", Some(&session)).await.refused(401, "not_logged_in");
    app.post_empty("/api/v1/auth/logout", Some(&session)).await.refused(401, "not_logged_in");
    app.get("/api/v1/auth/me", Some(&other_device)).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ends_after_thirty_days() {
    let app = TestApp::demo().await;
    let session = app.sign_in("rider1@demo.wayfare").await;
    app.advance(MINUTE * 60 * 24 * 30 - MINUTE);
    app.get("/api/v1/auth/me", Some(&session)).await.expect(200);
    app.advance(MINUTE);
    app.get("/api/v1/auth/me", Some(&session)).await.refused(401, "not_logged_in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_who_signs_out_goes_offline() {
    let app = TestApp::demo().await;
    let session = app.sign_in("driver1@demo.wayfare").await;
    app.post("/api/v1/drivers/me/status", Some(&session), json!({ "driverActiveStatus": true })).await.expect(200);
    assert!(app.runtime().is_online(session.id));
    app.post_empty("/api/v1/auth/logout", Some(&session)).await.expect(200);
    assert!(!app.runtime().is_online(session.id), "the driver's actor is gone");
    let again = app.sign_in("driver1@demo.wayfare").await;
    let me = app.get("/api/v1/auth/me", Some(&again)).await;
    assert_eq!(me.expect(200)["user"]["driverActiveStatus"], false);
    let location = json!({ "lat": 39.28, "lng": -76.59 });
    app.post("/api/v1/drivers/me/location", Some(&again), location).await.refused(409, "driver_not_eligible");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dev_outbox_lists_a_contacts_messages_newest_first() {
    let app = TestApp::demo().await;
    app.request_code("+14105550777").await.expect(200);
    let first = app.latest_code("+14105550777").await;
    app.request_code("+1 410 555 0777").await.expect(200);
    let outbox = app.get(&format!("/api/v1/dev/outbox?to={}", query_encode("+14105550777")), None).await;
    let messages = outbox.expect(200)["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1]["code"], first.as_str(), "newest first");
    assert_eq!(messages[0]["channel"], "sms");
    let nobody = app.get("/api/v1/dev/outbox?to=nobody%40example.com", None).await;
    assert_eq!(nobody.expect(200)["messages"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dev_outbox_checks_its_query() {
    let app = TestApp::demo().await;
    app.get("/api/v1/dev/outbox", None).await.refused_on(400, "invalid_input", "query");
    app.get("/api/v1/dev/outbox?to=not-an-email", None).await.refused_on(400, "proper_email", "contact");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_dev_outbox_its_route_is_not_found_and_codes_cannot_be_sent() {
    let mut setup = Setup::default();
    setup.config.delivery.dev_outbox = false;
    let app = TestApp::start(setup).await;
    app.get("/api/v1/dev/outbox?to=rider1%40demo.wayfare", None).await.refused(404, "not_found");
    // No SMTP either: the code cannot go out, and the answer shows no internals.
    app.request_code("rider1@demo.wayfare").await.refused(503, "unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_sign_in_bodies_are_invalid_input() {
    let app = TestApp::demo().await;
    for path in ["/api/v1/auth/otp/request", "/api/v1/auth/otp/verify"] {
        app.post_raw(path, None, "application/json", "{not json").await.refused_on(400, "invalid_input", "body");
        app.post(path, None, json!({ "contact": 42 })).await.refused_on(400, "invalid_input", "body");
        app.post(path, None, json!({})).await.refused_on(400, "invalid_input", "body");
        app.post_raw(path, None, "text/plain", r#"{"contact":"a@b.io"}"#).await.refused_on(
            400,
            "invalid_input",
            "body",
        );
        app.post_empty(path, None).await.refused_on(400, "invalid_input", "body");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_file_too_large() {
    let app = TestApp::demo().await;
    let huge = format!("{{\"contact\":\"{}\"}}", "a".repeat(3 * 1024 * 1024));
    app.post_raw("/api/v1/auth/otp/request", None, "application/json", huge).await.refused(413, "file_too_large");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_user_signs_in_by_phone_however_the_number_is_written() {
    let app = TestApp::demo().await;
    let session = app.sign_in("+1 (410) 555-0201").await;
    assert_eq!(session.id, rider(1).id);
    let by_email = app.sign_in("rider1@demo.wayfare").await;
    assert_eq!(by_email.id, session.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_and_codes_are_stored_hashed() {
    let app = TestApp::demo().await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    let code = app.latest_code("rider1@demo.wayfare").await;
    let challenge = app.state.storage.latest_challenge("rider1@demo.wayfare").await.unwrap().expect("a challenge");
    assert!(!challenge.code_hash.contains(&code), "the code is not stored as such");
    let session = Session::from_verify(&app.verify("rider1@demo.wayfare", &code).await);
    assert!(app.state.storage.session(&session.token).await.unwrap().is_none(), "the token is not stored as such");
    let hashed = wayfare_http::auth::tokens::hash(&session.token);
    assert_eq!(app.state.storage.session(&hashed).await.unwrap().expect("the hash is").user, session.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_https_the_session_cookie_is_secure() {
    let mut setup = Setup::default();
    setup.config.auth.cookie_secure = true;
    let app = TestApp::start(setup).await;
    app.request_code("rider1@demo.wayfare").await.expect(200);
    let code = app.latest_code("rider1@demo.wayfare").await;
    let verified = app.verify("rider1@demo.wayfare", &code).await;
    let cookie = verified.header(header::SET_COOKIE).unwrap();
    assert!(cookie.ends_with("; Secure") && cookie.contains("HttpOnly"), "{cookie}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_referral_code_is_checked_before_a_first_sign_in_sends_it() {
    let app = TestApp::demo().await;
    let referrer = app.sign_in("rider1@demo.wayfare").await;
    let code = referrer.user["referralId"].as_str().unwrap().to_string();
    let known =
        app.post("/api/v1/auth/referral", None, json!({ "referralId": format!(" {} ", code.to_lowercase()) })).await;
    assert_eq!(known.expect(200), &json!({ "valid": true, "referralId": code }));
    for unknown in ["ZZZZZ", "", "AB-CD"] {
        app.post("/api/v1/auth/referral", None, json!({ "referralId": unknown })).await.refused_on(
            404,
            "referral_invalid",
            "referralId",
        );
    }
}
