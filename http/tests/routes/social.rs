//! Social sign-in (issue #37) against a local OpenID Connect fake: a real
//! HTTP server on a local port with its own RSA key (a committed test key),
//! which approves every sign-in for the person a test sets, checks the PKCE
//! verifier, the client's credentials and that a code is used once, and
//! serves its keys (counting the reads, and rotating when a test says) and a
//! Graph-API-like `/me` for the Facebook flow. Asked for
//! `response_mode=form_post`, it answers as Apple does: a page posting the
//! code, the state and, on a first sign-in, the person's name back, and ID
//! tokens without names.

use crate::support::*;
use axum::body::Body;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::response::{IntoResponse, Redirect};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair, RsaPublicKeyComponents};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wayfare_engine::{RegType, Role};
use wayfare_http::config::{OAuthConfig, OAuthProviderConfig};

const CLIENT_ID: &str = "wayfare-test-client";
const CLIENT_SECRET: &str = "wayfare-test-secret";

// ---- the fake provider ---------------------------------------------------------------

/// The person the fake vouches for.
#[derive(Debug, Clone)]
struct Person {
    subject: String,
    email: Option<String>,
    email_verified: bool,
    first_name: String,
    last_name: String,
}

fn person(subject: &str, email: &str, verified: bool) -> Person {
    Person {
        subject: subject.into(),
        email: Some(email.into()),
        email_verified: verified,
        first_name: "Sam".into(),
        last_name: "Social".into(),
    }
}

/// What the fake puts wrong in the next ID tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Tamper {
    #[default]
    Nothing,
    Signature,
    Audience,
    Nonce,
}

/// A code the fake gave out.
struct Grant {
    challenge: String,
    nonce: Option<String>,
    redirect_uri: String,
    used: bool,
    /// Answered Apple's way: no names in the ID token.
    form_post: bool,
}

struct FakeState {
    base: String,
    /// The fake's keys; key `i` is published as `fake-{i + 1}`.
    keys: Vec<RsaKeyPair>,
    /// The key ID tokens are signed with.
    signing: usize,
    /// The keys `/jwks` lists.
    published: Vec<usize>,
    /// How often `/jwks` was read.
    key_reads: usize,
    person: Person,
    tamper: Tamper,
    grants: HashMap<String, Grant>,
    /// The queries `/authorize` was called with, in order.
    authorizations: Vec<HashMap<String, String>>,
    issued: u32,
}

type Fake = Arc<Mutex<FakeState>>;

fn key_of(pem: &str) -> RsaKeyPair {
    let body: String = pem.lines().filter(|line| !line.starts_with("-----")).collect();
    RsaKeyPair::from_pkcs8(&STANDARD.decode(body).expect("base64 PEM")).expect("a PKCS#8 RSA key")
}

/// The fake's two committed test keys: the first, and the one it rotates to.
fn test_keys() -> Vec<RsaKeyPair> {
    vec![key_of(include_str!("fixtures/oidc_fake_key.pem")), key_of(include_str!("fixtures/oidc_fake_key_2.pem"))]
}

fn kid(index: usize) -> String {
    format!("fake-{}", index + 1)
}

fn sign(key: &RsaKeyPair, kid: &str, claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(json!({ "alg": "RS256", "kid": kid, "typ": "JWT" }).to_string());
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let signed = format!("{header}.{payload}");
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(&RSA_PKCS1_SHA256, &ring::rand::SystemRandom::new(), signed.as_bytes(), &mut signature).expect("signed");
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

async fn authorize(State(fake): State<Fake>, Query(query): Query<HashMap<String, String>>) -> axum::response::Response {
    let mut fake = fake.lock().unwrap();
    fake.issued += 1;
    let code = format!("code-{}", fake.issued);
    let form_post = query.get("response_mode").map(String::as_str) == Some("form_post");
    fake.grants.insert(
        code.clone(),
        Grant {
            challenge: query["code_challenge"].clone(),
            nonce: query.get("nonce").cloned(),
            redirect_uri: query["redirect_uri"].clone(),
            used: false,
            form_post,
        },
    );
    let redirect_uri = query["redirect_uri"].clone();
    let state = query["state"].clone();
    fake.authorizations.push(query);
    if !form_post {
        return Redirect::to(&format!("{redirect_uri}?code={code}&state={}", query_encode(&state))).into_response();
    }
    // Apple's answer: a page that posts the code back, with the person's
    // name the first time they sign in to this client.
    let first_time = !fake.grants.values().any(|grant| grant.form_post && grant.used);
    let mut fields = vec![("code", code), ("state", state)];
    if first_time {
        let person = &fake.person;
        let user = json!({
            "name": { "firstName": person.first_name, "lastName": person.last_name },
            "email": person.email,
        });
        fields.push(("user", user.to_string()));
    }
    let inputs: String = fields
        .iter()
        .map(|(name, value)| format!("<input type=\"hidden\" name=\"{name}\" value=\"{}\">", escape(value)))
        .collect();
    let page = format!(
        "<html><body onload=\"document.forms[0].submit()\"><form method=\"post\" action=\"{}\">{inputs}</form></body></html>",
        escape(&redirect_uri)
    );
    axum::response::Html(page).into_response()
}

fn invalid_grant() -> axum::response::Response {
    (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_grant" }))).into_response()
}

async fn token(State(fake): State<Fake>, Form(form): Form<HashMap<String, String>>) -> axum::response::Response {
    let mut fake = fake.lock().unwrap();
    if form.get("client_id").map(String::as_str) != Some(CLIENT_ID)
        || form.get("client_secret").map(String::as_str) != Some(CLIENT_SECRET)
        || form.get("grant_type").map(String::as_str) != Some("authorization_code")
    {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({ "error": "invalid_client" }))).into_response();
    }
    let code = form.get("code").cloned().unwrap_or_default();
    let verifier = form.get("code_verifier").cloned().unwrap_or_default();
    let Some(grant) = fake.grants.get_mut(&code) else { return invalid_grant() };
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    if grant.used || grant.challenge != challenge || form.get("redirect_uri") != Some(&grant.redirect_uri) {
        return invalid_grant();
    }
    grant.used = true;
    let nonce = grant.nonce.clone();
    let form_post = grant.form_post;
    let person = fake.person.clone();
    let audience = if fake.tamper == Tamper::Audience { "someone-else" } else { CLIENT_ID };
    let nonce = if fake.tamper == Tamper::Nonce { Some("another-nonce".to_string()) } else { nonce };
    // A day: tests move the server's clock past an hour of kept keys.
    let mut claims = json!({
        "iss": fake.base,
        "sub": person.subject,
        "aud": audience,
        "exp": T0 / 1000 + 24 * 3600,
        "iat": T0 / 1000,
        "nonce": nonce,
        "email": person.email,
        "email_verified": person.email_verified,
        "given_name": person.first_name,
        "family_name": person.last_name,
    });
    if form_post {
        // Apple's tokens name nobody, and say "true" as text.
        let fields = claims.as_object_mut().unwrap();
        fields.remove("given_name");
        fields.remove("family_name");
        fields.insert("email_verified".into(), json!(person.email_verified.to_string()));
    }
    let mut id_token = sign(&fake.keys[fake.signing], &kid(fake.signing), &claims);
    if fake.tamper == Tamper::Signature {
        // The same header and signature over other claims.
        let mut other = claims.clone();
        other["sub"] = json!("someone-else");
        let forged = URL_SAFE_NO_PAD.encode(other.to_string());
        let parts: Vec<&str> = id_token.split('.').collect();
        id_token = format!("{}.{forged}.{}", parts[0], parts[2]);
    }
    axum::Json(json!({ "access_token": format!("access-{code}"), "id_token": id_token, "token_type": "Bearer" }))
        .into_response()
}

async fn jwks(State(fake): State<Fake>) -> axum::Json<Value> {
    let mut fake = fake.lock().unwrap();
    fake.key_reads += 1;
    let keys: Vec<Value> = fake
        .published
        .iter()
        .map(|&index| {
            let public: RsaPublicKeyComponents<Vec<u8>> = fake.keys[index].public().into();
            json!({
                "kty": "RSA",
                "kid": kid(index),
                "alg": "RS256",
                "use": "sig",
                "n": URL_SAFE_NO_PAD.encode(&public.n),
                "e": URL_SAFE_NO_PAD.encode(&public.e),
            })
        })
        .collect();
    axum::Json(json!({ "keys": keys }))
}

/// Facebook's Graph API `/me`, for an access token the fake gave.
async fn me(State(fake): State<Fake>, headers: HeaderMap) -> axum::response::Response {
    let fake = fake.lock().unwrap();
    let bearer = headers.get(header::AUTHORIZATION).and_then(|value| value.to_str().ok()).unwrap_or_default();
    let known = bearer.strip_prefix("Bearer access-").is_some_and(|code| fake.grants.contains_key(code));
    if !known {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({ "error": { "type": "OAuthException" } })))
            .into_response();
    }
    let person = &fake.person;
    axum::Json(json!({
        "id": person.subject,
        "name": format!("{} {}", person.first_name, person.last_name),
        "email": person.email,
        "first_name": person.first_name,
        "last_name": person.last_name,
    }))
    .into_response()
}

/// Starts the fake on a local port; its base URL is its issuer.
async fn fake_provider(person: Person) -> (String, Fake) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fake = Arc::new(Mutex::new(FakeState {
        base: base.clone(),
        keys: test_keys(),
        signing: 0,
        published: vec![0],
        key_reads: 0,
        person,
        tamper: Tamper::Nothing,
        grants: HashMap::new(),
        authorizations: Vec::new(),
        issued: 0,
    }));
    let router = axum::Router::new()
        .route("/authorize", axum::routing::get(authorize))
        .route("/token", axum::routing::post(token))
        .route("/jwks", axum::routing::get(jwks))
        .route("/me", axum::routing::get(me))
        .with_state(fake.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (base, fake)
}

fn provider_config(base: &str) -> OAuthProviderConfig {
    OAuthProviderConfig {
        client_id: Some(CLIENT_ID.into()),
        client_secret: Some(CLIENT_SECRET.into()),
        authorize_url: Some(format!("{base}/authorize")),
        token_url: Some(format!("{base}/token")),
        userinfo_url: Some(format!("{base}/me")),
        jwks_url: Some(format!("{base}/jwks")),
        issuer: Some(base.to_string()),
    }
}

/// The demo city with Google and Facebook pointed at the fake and switched on.
async fn app_with_fake(person: Person) -> (TestApp, Fake) {
    let (base, fake) = fake_provider(person).await;
    let mut setup = Setup::default();
    setup.config.auth.oauth =
        OAuthConfig { google: provider_config(&base), facebook: provider_config(&base), ..OAuthConfig::default() };
    setup.settings.GoogleLoginEnabled = true;
    setup.settings.FacebookLoginEnabled = true;
    (TestApp::start(setup).await, fake)
}

/// The demo city with Apple pointed at the fake and switched on.
async fn app_with_apple(person: Person) -> (TestApp, Fake) {
    let (base, fake) = fake_provider(person).await;
    let mut setup = Setup::default();
    setup.config.auth.oauth = OAuthConfig { apple: provider_config(&base), ..OAuthConfig::default() };
    setup.settings.AppleLoginEnabled = true;
    (TestApp::start(setup).await, fake)
}

// ---- the browser ------------------------------------------------------------------------

/// A started sign-in: the attempt cookie, and where the provider sends the browser back.
struct Started {
    cookie: String,
    /// The callback's path and query, as the fake redirected to it.
    callback: String,
}

fn location(reply: &Reply) -> String {
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "a redirect; body: {}", reply.body);
    reply.header(header::LOCATION).expect("a Location").to_string()
}

/// `/start`, then the fake's approval page, without following redirects.
async fn start(app: &TestApp, provider: &str) -> Started {
    let reply = app.get(&format!("/api/v1/auth/oauth/{provider}/start?return=%2Fbookings%3Ftab%3D1"), None).await;
    let authorize = location(&reply);
    let set_cookie = reply.header(header::SET_COOKIE).expect("the attempt cookie");
    assert!(set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Lax"), "{set_cookie}");
    assert!(set_cookie.contains("Path=/api/v1/auth/oauth") && set_cookie.contains("Max-Age=600"), "{set_cookie}");
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let approved = browser.get(&authorize).send().await.expect("the fake answers");
    assert_eq!(approved.status(), StatusCode::SEE_OTHER);
    let back = approved.headers()[header::LOCATION].to_str().unwrap().to_string();
    let callback = back.strip_prefix("http://localhost").unwrap_or_else(|| panic!("back to this server: {back}"));
    Started { cookie, callback: callback.to_string() }
}

async fn callback_with(app: &TestApp, path: &str, cookie: Option<&str>) -> Reply {
    let mut request = Request::get(path);
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    app.send(request.body(Body::empty()).unwrap()).await
}

async fn finish(app: &TestApp, started: &Started) -> Reply {
    callback_with(app, &started.callback, Some(&started.cookie)).await
}

/// The session a signed-in callback set, checked with `/auth/me`.
async fn signed_in_user(app: &TestApp, reply: &Reply) -> Value {
    assert_eq!(location(reply), "/bookings?tab=1", "back where the sign-in started");
    let session = reply
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|cookie| cookie.starts_with("wayfare_session="))
        .expect("a session cookie");
    let token = session.split(';').next().unwrap();
    let me = Request::get("/api/v1/auth/me").header(header::COOKIE, token).body(Body::empty()).unwrap();
    app.send(me).await.expect(200)["user"].clone()
}

/// A refused callback: back to the sign-in page with the key, no session.
#[track_caller]
fn refused(reply: &Reply, key: &str) {
    assert_eq!(location(reply), format!("/login?error={key}"));
    let sessions = reply
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter(|value| value.to_str().unwrap().starts_with("wayfare_session="))
        .count();
    assert_eq!(sessions, 0, "no session");
}

async fn linked(app: &TestApp, provider: &str, subject: &str) -> Option<wayfare_engine::User> {
    app.state.storage.user_by_identity(provider, subject).await.unwrap()
}

// ---- the tests ----------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_social_sign_in_creates_an_approved_rider_and_the_second_signs_into_it() {
    let (app, fake) = app_with_fake(person("g-100", "Sam.Social@Example.com", true)).await;
    let started = start(&app, "google").await;
    {
        let fake = fake.lock().unwrap();
        let asked = &fake.authorizations[0];
        assert_eq!(asked["response_type"], "code");
        assert_eq!(asked["client_id"], CLIENT_ID);
        assert_eq!(asked["redirect_uri"], "http://localhost/api/v1/auth/oauth/google/callback");
        assert_eq!(asked["scope"], "openid email profile");
        assert_eq!(asked["code_challenge_method"], "S256");
        assert_eq!(asked["code_challenge"].len(), 43, "a SHA-256, base64url");
        assert!(asked["state"].len() >= 32 && asked["nonce"].len() >= 32);
    }
    let first = signed_in_user(&app, &finish(&app, &started).await).await;
    assert_eq!(first["usertype"], "rider");
    assert_eq!(first["regType"], "social");
    assert_eq!(first["approved"], true);
    assert_eq!(first["walletBalance"].as_f64(), Some(0.0));
    assert_eq!(first["email"], "sam.social@example.com");
    assert_eq!((first["firstName"].as_str(), first["lastName"].as_str()), (Some("Sam"), Some("Social")));
    assert_eq!(first["referralId"].as_str().map(str::len), Some(5), "a referral code of its own");
    let stored = linked(&app, "google", "g-100").await.expect("the identity is linked");
    assert_eq!((stored.usertype, stored.regType), (Role::Rider, RegType::Social));

    let again = signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    assert_eq!(again["id"], first["id"], "the same account, no second rider");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_email_signs_into_its_existing_user_and_links_it() {
    let existing = rider(1);
    let (app, _fake) = app_with_fake(person("g-200", &existing.email.to_uppercase(), true)).await;
    let user = signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    assert_eq!(user["id"], existing.id.to_string());
    assert_eq!(user["regType"], "email", "the account stays as it was made");
    assert_eq!(linked(&app, "google", "g-200").await.map(|user| user.id), Some(existing.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_email_never_takes_over_an_existing_account() {
    let existing = rider(1);
    let (app, _fake) = app_with_fake(person("g-300", &existing.email, false)).await;
    let user = signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    assert_ne!(user["id"], existing.id.to_string());
    assert_eq!(user["email"], "", "an address nobody verified is not kept");
    assert_eq!(user["regType"], "social");
    let owner = app.state.storage.user_by_email(&existing.email).await.unwrap().unwrap();
    assert_eq!(owner.id, existing.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_state_a_missing_cookie_or_an_expired_attempt_is_refused_and_changes_nothing() {
    let (app, _fake) = app_with_fake(person("g-400", "nobody@example.com", true)).await;
    let started = start(&app, "google").await;
    let wrong_state = started.callback.replace("state=", "state=x");
    refused(&callback_with(&app, &wrong_state, Some(&started.cookie)).await, "login_error");
    refused(&callback_with(&app, &started.callback, None).await, "login_error");
    let other_attempt = format!("wayfare_oauth={}", uuid::Uuid::now_v7());
    refused(&callback_with(&app, &started.callback, Some(&other_attempt)).await, "login_error");
    assert!(linked(&app, "google", "g-400").await.is_none());
    assert!(app.state.storage.user_by_email("nobody@example.com").await.unwrap().is_none());
    // None of those used the attempt up: its own browser still finishes it.
    signed_in_user(&app, &finish(&app, &started).await).await;

    let late = start(&app, "google").await;
    app.advance(11 * MINUTE);
    refused(&finish(&app, &late).await, "login_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replayed_callback_is_refused() {
    let (app, _fake) = app_with_fake(person("g-500", "replay@example.com", true)).await;
    let started = start(&app, "google").await;
    let user = signed_in_user(&app, &finish(&app, &started).await).await;
    refused(&finish(&app, &started).await, "login_error");
    assert_eq!(
        linked(&app, "google", "g-500").await.map(|user| user.id.to_string()),
        user["id"].as_str().map(String::from)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_sent_back_with_another_attempt_fails_its_pkce_check() {
    let (app, _fake) = app_with_fake(person("g-600", "pkce@example.com", true)).await;
    let victim = start(&app, "google").await;
    let attacker = start(&app, "google").await;
    // The attacker's code, injected into the victim's attempt: the verifier
    // sent is the victim's, which the code's challenge does not match.
    let state_of = |callback: &str| callback.split("state=").nth(1).unwrap().to_string();
    let code_of = |callback: &str| callback.split("code=").nth(1).unwrap().split('&').next().unwrap().to_string();
    let injected = format!(
        "/api/v1/auth/oauth/google/callback?code={}&state={}",
        code_of(&attacker.callback),
        state_of(&victim.callback)
    );
    refused(&callback_with(&app, &injected, Some(&victim.cookie)).await, "login_error");
    assert!(linked(&app, "google", "g-600").await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_token_with_a_bad_signature_audience_or_nonce_is_refused() {
    let (app, fake) = app_with_fake(person("g-700", "token@example.com", true)).await;
    for tamper in [Tamper::Signature, Tamper::Audience, Tamper::Nonce] {
        fake.lock().unwrap().tamper = tamper;
        let started = start(&app, "google").await;
        refused(&finish(&app, &started).await, "login_error");
        assert!(linked(&app, "google", "g-700").await.is_none(), "{tamper:?}");
    }
    assert!(app.state.storage.user_by_email("token@example.com").await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_saying_no_at_the_provider_is_back_on_the_sign_in_page() {
    let (app, _fake) = app_with_fake(person("g-800", "no@example.com", true)).await;
    let started = start(&app, "google").await;
    let denied = format!(
        "/api/v1/auth/oauth/google/callback?error=access_denied&state={}",
        started.callback.split("state=").nth(1).unwrap()
    );
    refused(&callback_with(&app, &denied, Some(&started.cookie)).await, "login_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn facebook_signs_in_through_the_graph_api() {
    let (app, fake) = app_with_fake(person("fb-1", "fb.person@example.com", true)).await;
    let started = start(&app, "facebook").await;
    {
        let fake = fake.lock().unwrap();
        let asked = fake.authorizations.last().unwrap();
        assert_eq!(asked["scope"], "email public_profile");
        assert!(!asked.contains_key("nonce"), "OAuth 2, no ID token");
        assert_eq!(asked["code_challenge_method"], "S256");
    }
    let user = signed_in_user(&app, &finish(&app, &started).await).await;
    assert_eq!((user["regType"].as_str(), user["email"].as_str()), (Some("social"), Some("fb.person@example.com")));
    assert!(linked(&app, "facebook", "fb-1").await.is_some());
    assert!(linked(&app, "google", "fb-1").await.is_none(), "subjects are per provider");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_providers_switched_on_and_configured_are_offered() {
    let (app, _fake) = app_with_fake(person("g-900", "x@example.com", true)).await;
    let offered = app.get("/api/v1/auth/oauth/providers", None).await;
    assert_eq!(offered.expect(200)["providers"], json!(["google", "facebook"]), "apple has no credentials");
    app.get("/api/v1/auth/oauth/apple/start", None).await.refused(404, "no_provider_found");
    app.get("/api/v1/auth/oauth/twitter/start", None).await.refused(404, "no_provider_found");

    let plain = TestApp::demo().await;
    assert_eq!(plain.get("/api/v1/auth/oauth/providers", None).await.expect(200)["providers"], json!([]));
    plain.get("/api/v1/auth/oauth/google/start", None).await.refused(404, "no_provider_found");
    plain.get("/api/v1/auth/oauth/google/callback?code=a&state=b", None).await.refused(404, "no_provider_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_return_path_off_this_site_is_replaced_by_the_home_page() {
    let (app, _fake) = app_with_fake(person("g-1000", "home@example.com", true)).await;
    let reply = app.get("/api/v1/auth/oauth/google/start?return=https%3A%2F%2Fevil.example%2F%2Fx", None).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    let started = {
        let cookie = reply.header(header::SET_COOKIE).unwrap().split(';').next().unwrap().to_string();
        let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let approved = browser.get(location(&reply)).send().await.unwrap();
        let back = approved.headers()[header::LOCATION].to_str().unwrap().to_string();
        Started { cookie, callback: back.trim_start_matches("http://localhost").to_string() }
    };
    assert_eq!(location(&finish(&app, &started).await), "/");
}

// ---- Apple: the answer comes back as a form post ----------------------------------------

/// A started Apple sign-in: the attempt cookie, the callback's path and the
/// fields Apple's page posts there.
struct Posted {
    cookie: String,
    callback: String,
    fields: Vec<(String, String)>,
}

impl Posted {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    fn with(&self, name: &str, value: &str) -> Vec<(String, String)> {
        self.fields
            .iter()
            .map(|(key, old)| (key.clone(), if key == name { value.to_string() } else { old.clone() }))
            .collect()
    }
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// An attribute of an HTML tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = tag[start..].find('"')? + start;
    Some(unescape(&tag[start..end]))
}

/// `/start`, then Apple's page (the fake's): the form it posts back.
async fn start_posted(app: &TestApp, provider: &str) -> Posted {
    let reply = app.get(&format!("/api/v1/auth/oauth/{provider}/start?return=%2Fbookings%3Ftab%3D1"), None).await;
    let authorize = location(&reply);
    let set_cookie = reply.header(header::SET_COOKIE).expect("the attempt cookie");
    assert!(
        set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=None") && set_cookie.contains("Secure"),
        "a cross-site POST brings back only a SameSite=None cookie: {set_cookie}"
    );
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    let page = reqwest::get(&authorize).await.expect("the fake answers");
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    let form = &html[html.find("<form").expect("a form")..];
    let action = attribute(&form[..form.find('>').unwrap()], "action").expect("an action");
    let fields = form
        .split("<input")
        .skip(1)
        .map(|input| {
            let tag = &input[..input.find('>').unwrap()];
            (attribute(tag, "name").unwrap(), attribute(tag, "value").unwrap_or_default())
        })
        .collect();
    let callback = action.strip_prefix("http://localhost").unwrap_or_else(|| panic!("back to this server: {action}"));
    Posted { cookie, callback: callback.to_string(), fields }
}

/// The browser posts Apple's form to the callback.
async fn post_back(app: &TestApp, posted: &Posted, fields: &[(String, String)]) -> Reply {
    let body: Vec<String> = fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect();
    let request = Request::post(&posted.callback)
        .header(header::COOKIE, &posted.cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body.join("&")))
        .unwrap();
    app.send(request).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apple_posts_the_answer_back_and_a_first_sign_in_takes_the_posted_name() {
    let (app, fake) = app_with_apple(Person {
        subject: "001234.apple".into(),
        email: Some("ada@privaterelay.appleid.com".into()),
        email_verified: true,
        first_name: "Ada".into(),
        last_name: "Appleseed".into(),
    })
    .await;
    let posted = start_posted(&app, "apple").await;
    {
        let fake = fake.lock().unwrap();
        let asked = &fake.authorizations[0];
        assert_eq!(asked["response_mode"], "form_post");
        assert_eq!(asked["scope"], "openid email name");
        assert_eq!(asked["redirect_uri"], "http://localhost/api/v1/auth/oauth/apple/callback");
        assert_eq!(asked["code_challenge_method"], "S256");
    }
    let user: Value = serde_json::from_str(posted.field("user").expect("the name, the first time")).unwrap();
    assert_eq!(user["name"]["firstName"], "Ada");
    // Whatever e-mail the unsigned post says, the ID token's is the one kept.
    let tampered = json!({ "name": user["name"], "email": "rider1@demo.wayfare" }).to_string();
    let first = signed_in_user(&app, &post_back(&app, &posted, &posted.with("user", &tampered)).await).await;
    assert_eq!((first["usertype"].as_str(), first["regType"].as_str()), (Some("rider"), Some("social")));
    assert_eq!((first["firstName"].as_str(), first["lastName"].as_str()), (Some("Ada"), Some("Appleseed")));
    assert_eq!(first["email"], "ada@privaterelay.appleid.com");
    assert_ne!(first["id"], json!(rider(1).id), "the posted e-mail signs into nobody's account");
    assert!(linked(&app, "apple", "001234.apple").await.is_some());

    // The next time Apple posts no name: the same account, as it was.
    let again = start_posted(&app, "apple").await;
    assert_eq!(again.field("user"), None);
    let second = signed_in_user(&app, &post_back(&app, &again, &again.fields).await).await;
    assert_eq!(second["id"], first["id"]);
    assert_eq!(second["firstName"], "Ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apple_post_with_a_wrong_state_or_no_cookie_is_refused_and_creates_nobody() {
    let (app, _fake) = app_with_apple(person("001234.wrong", "wrong@privaterelay.appleid.com", true)).await;
    let posted = start_posted(&app, "apple").await;
    let state = posted.field("state").unwrap().to_string();
    refused(&post_back(&app, &posted, &posted.with("state", &format!("x{state}"))).await, "login_error");
    let without_cookie = Posted { cookie: "other=1".into(), ..posted };
    refused(&post_back(&app, &without_cookie, &without_cookie.fields).await, "login_error");
    // A form that is no form is refused like any other, not answered with an error page.
    let garbled = Request::post(&without_cookie.callback)
        .header(header::COOKIE, "wayfare_oauth=nothing")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{}"))
        .unwrap();
    refused(&app.send(garbled).await, "login_error");
    assert!(linked(&app, "apple", "001234.wrong").await.is_none());
    assert!(app.state.storage.user_by_email("wrong@privaterelay.appleid.com").await.unwrap().is_none());
}

// ---- the provider's keys ------------------------------------------------------------------

fn key_reads(fake: &Fake) -> usize {
    fake.lock().unwrap().key_reads
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_providers_keys_are_read_once_an_hour_and_again_when_it_rotates_them() {
    let (app, fake) = app_with_fake(person("g-keys", "keys@example.com", true)).await;
    let first = signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    let second = signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    assert_eq!(second["id"], first["id"]);
    assert_eq!(key_reads(&fake), 1, "two sign-ins, one read of the keys");

    // The provider signs with a key it does not publish (yet): the token
    // names a key the kept set lacks, which makes one read at once, and is
    // then refused.
    fake.lock().unwrap().signing = 1;
    refused(&finish(&app, &start(&app, "google").await).await, "login_error");
    assert_eq!(key_reads(&fake), 2);
    // It publishes the new key (a rotation): the next token makes one read, and the key is kept.
    fake.lock().unwrap().published = vec![0, 1];
    assert_eq!(signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await["id"], first["id"]);
    assert_eq!(key_reads(&fake), 3);
    signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    assert_eq!(key_reads(&fake), 3, "the new key is kept too");

    // Kept an hour: then read again.
    app.advance(61 * MINUTE);
    signed_in_user(&app, &finish(&app, &start(&app, "google").await).await).await;
    assert_eq!(key_reads(&fake), 4);
}
