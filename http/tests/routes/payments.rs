//! Payments (issue 6 "Payments"; spec §3 payment providers, §4 PAYMENT_PENDING
//! and PAID, §7 the checkout form): the test gateway's page and a Stripe
//! Checkout against a fake Stripe on a local port, confirmed by a recorded
//! webhook payload signed here. Each confirmation changes the booking and the
//! ledger exactly once; forged, stale and tampered webhooks change nothing.

use crate::support::*;
use axum::http::header;
use hmac::{Hmac, Mac};
use rust_decimal::Decimal;
use serde_json::Value;
use sha2::Sha256;
use std::sync::{Arc, Mutex};
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{AppCategory, BookingId, BookingStatus, UserId};
use wayfare_http::config::PaymentsConfig;
use wayfare_storage::{PageRequest, PaymentStatus};

const WEBHOOK_SECRET: &str = "whsec_wayfare_route_tests";
const SECRET_KEY: &str = "sk_test_wayfare_route_tests";

// ---- the app ----------------------------------------------------------------------

fn delivery(settings: &mut wayfare_engine::Settings) {
    settings.appcat = AppCategory::Delivery;
}

/// A delivery platform without auto-dispatch: a paid booking stays as the
/// payment left it, so its version tells how often it changed.
fn delivery_without_dispatch(settings: &mut wayfare_engine::Settings) {
    delivery(settings);
    settings.autoDispatch = false;
}

async fn app_with(payments: PaymentsConfig, change: impl FnOnce(&mut wayfare_engine::Settings)) -> TestApp {
    let mut setup = Setup::default();
    setup.config.payments = payments;
    change(&mut setup.settings);
    TestApp::start(setup).await
}

async fn test_gateway_app(change: impl FnOnce(&mut wayfare_engine::Settings)) -> TestApp {
    app_with(PaymentsConfig { test_gateway: true, ..PaymentsConfig::default() }, change).await
}

// ---- requests -----------------------------------------------------------------------

fn form_body(fields: &[(&str, String)]) -> String {
    fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect::<Vec<_>>().join("&")
}

async fn post_form(app: &TestApp, path: &str, who: Option<&Session>, fields: &[(&str, String)]) -> Reply {
    app.post_raw(path, who, "application/x-www-form-urlencoded", form_body(fields)).await
}

/// The web app's checkout fields (ui/src/lib/payments.ts `checkoutFields`).
fn checkout_fields(order_id: &str, amount: &str, payer: UserId) -> Vec<(&'static str, String)> {
    vec![
        ("order_id", order_id.to_string()),
        ("amount", amount.to_string()),
        ("currency", "USD".into()),
        ("product_name", "Wayfare ABCDEF".into()),
        ("first_name", "Rita".into()),
        ("last_name", "Rider".into()),
        ("quantity", "1".into()),
        ("cust_id", payer.to_string()),
        ("mobile_no", "+14105550101".into()),
        ("email", "rider1@demo.wayfare".into()),
        ("success_url", format!("http://localhost:5173/bookings?trip={order_id}")),
        ("cancel_url", "http://localhost:5173/".into()),
    ]
}

fn with(mut fields: Vec<(&'static str, String)>, name: &str, value: &str) -> Vec<(&'static str, String)> {
    for field in &mut fields {
        if field.0 == name {
            field.1 = value.to_string();
        }
    }
    fields
}

#[track_caller]
fn redirect(reply: &Reply) -> String {
    assert_eq!(reply.status.as_u16(), 303, "a redirect; body: {}", reply.body);
    reply.header(header::LOCATION).expect("a Location").to_string()
}

/// A test checkout through to the gateway's page; returns the page's path.
async fn test_checkout(app: &TestApp, who: &Session, order_id: &str, amount: Decimal) -> String {
    let reply = post_form(
        app,
        "/api/v1/payments/test/checkout",
        Some(who),
        &checkout_fields(order_id, &amount.to_string(), who.id),
    )
    .await;
    let page = redirect(&reply);
    assert!(page.starts_with("/api/v1/payments/test/pay/"), "{page}");
    page
}

async fn press(app: &TestApp, who: &Session, page: &str, action: &str) -> Reply {
    post_form(app, page, Some(who), &[("action", action.to_string())]).await
}

/// A delivery booking of rider 1 awaiting its prepayment.
async fn payment_pending(app: &TestApp) -> Arc<wayfare_engine::Booking> {
    let booking = app.book(&rider(1)).await;
    assert_eq!(booking.status, BookingStatus::PaymentPending);
    assert!(booking.payableAmount > Decimal::ZERO);
    booking
}

async fn ledger(app: &TestApp, user: UserId) -> Vec<Value> {
    let page = app.state.storage.wallet_history(user, &PageRequest { limit: 500, after: None }).await.unwrap();
    page.items.iter().map(|record| serde_json::to_value(record).unwrap()).collect()
}

// ---- the test gateway -------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_gateway_payment_makes_a_prepaid_delivery_new_exactly_once() {
    let app = test_gateway_app(delivery).await;
    // An Economy driver online by the pickup, to be offered the paid booking.
    let driver = app.sign_in("driver1@demo.wayfare").await;
    app.post("/api/v1/drivers/me/status", Some(&driver), serde_json::json!({ "driverActiveStatus": true }))
        .await
        .expect(200);
    app.post("/api/v1/drivers/me/location", Some(&driver), serde_json::json!({ "lat": 39.2825, "lng": -76.593 }))
        .await
        .expect(200);
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let page = test_checkout(&app, &rider, &booking.id.to_string(), booking.payableAmount).await;

    let shown = app.get(&page, Some(&rider)).await;
    let html = shown.expect(200).as_str().unwrap().to_string();
    assert_eq!(shown.header(header::CONTENT_TYPE), Some("text/html; charset=utf-8"));
    assert!(html.contains(">Pay</button>") && html.contains(">Fail</button>"), "{html}");
    assert!(html.contains(&format!("${:.2}", booking.payableAmount)), "{html}");

    let mut events = app.events();
    let back = press(&app, &rider, &page, "pay").await;
    assert_eq!(redirect(&back), format!("/bookings?trip={}", booking.id), "back to the app, on this site");
    let paid = app.runtime().booking(booking.id).await.unwrap();
    assert_ne!(paid.status, BookingStatus::PaymentPending, "spec §4: a prepaid booking becomes NEW once paid");
    assert!(paid.prepaid);
    assert_eq!(paid.gateway.as_deref(), Some("test"));
    assert_eq!(paid.cardPaymentAmount, booking.payableAmount);
    assert!(paid.paymentPacket.is_some());
    // NEW and dispatched: the dispatcher offers it to the drivers nearby.
    app.wait_for_batch_offer(&mut events, booking.id, driver.id).await;

    // Pressed again (a replay): refused, nothing changes.
    press(&app, &rider, &page, "pay").await.refused(409, "already_processed");
    let after = app.runtime().booking(booking.id).await.unwrap();
    assert_eq!((after.gateway.as_deref(), after.cardPaymentAmount), (Some("test"), booking.payableAmount));
    assert!(ledger(&app, rider.id).await.is_empty(), "a card prepayment moves no wallet money");
    // The page now says it is paid.
    assert!(app.get(&page, Some(&rider)).await.expect(200).as_str().unwrap().contains("Paid."));
}

#[tokio::test]
async fn a_test_gateway_payment_of_a_pending_trip_credits_the_driver_share_once() {
    let app = test_gateway_app(|_| {}).await;
    let driver_user = driver(4);
    let reached = app.booking_at(&rider(1), &driver_user, Stage::Reached).await;
    let pending = app.command(reached.id, By::Driver(driver_user.id), Command::AwaitPayment).await;
    assert_eq!(pending.status, BookingStatus::Pending);
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let page = test_checkout(&app, &rider, &pending.id.to_string(), pending.payableAmount).await;
    redirect(&press(&app, &rider, &page, "pay").await);

    let paid = app.runtime().booking(pending.id).await.unwrap();
    assert_eq!(paid.status, BookingStatus::Paid);
    assert_eq!(paid.gateway.as_deref(), Some("test"));
    let shares = |entries: Vec<Value>| {
        entries
            .into_iter()
            .filter(|entry| entry["txRef"].as_str().is_some_and(|tx| tx.starts_with("DriverShare")))
            .collect::<Vec<_>>()
    };
    let credited = shares(ledger(&app, driver_user.id).await);
    assert_eq!(credited.len(), 1, "{credited:?}");
    assert_eq!(credited[0]["amount"], serde_json::to_value(paid.driver_share).unwrap());
    let balance = app.state.storage.wallet_balance(driver_user.id).await.unwrap();

    press(&app, &rider, &page, "pay").await.refused(409, "already_processed");
    assert_eq!(shares(ledger(&app, driver_user.id).await).len(), 1);
    assert_eq!(app.state.storage.wallet_balance(driver_user.id).await.unwrap(), balance);
    assert_eq!(app.runtime().booking(pending.id).await.unwrap().version, paid.version);
}

#[tokio::test]
async fn a_rider_who_chooses_card_waits_in_pending_until_the_gateway_pays() {
    // DESIGN.md: `/pay` by the rider with card → PENDING; spec §4 "Pay now" from PENDING
    let app = test_gateway_app(|_| {}).await;
    let driver_user = driver(4);
    let reached = app.booking_at(&rider(1), &driver_user, Stage::Reached).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let driver = app.sign_in("driver4@demo.wayfare").await;
    let pay = format!("/api/v1/bookings/{}/pay", reached.id);
    let card = serde_json::json!({ "payment_mode": "card" });
    app.post(&pay, Some(&driver), card.clone()).await.refused_on(403, "not_allowed", "payment_mode");
    let reply = app.post(&pay, Some(&rider), card.clone()).await;
    let pending = reply.expect(200);
    assert_eq!(pending["status"], "PENDING");
    assert_eq!(pending["customer_paid"], 0.0, "nothing is paid until the gateway confirms");
    app.post(&pay, Some(&rider), card).await.refused(409, "status_not_allowed");
    assert!(ledger(&app, driver_user.id).await.is_empty());

    // The gateway declines first: the trip keeps waiting for its payment.
    let failed = test_checkout(&app, &rider, &reached.id.to_string(), reached.payableAmount).await;
    redirect(&press(&app, &rider, &failed, "fail").await);
    assert_eq!(app.runtime().booking(reached.id).await.unwrap().status, BookingStatus::Pending);
    // Then pays: PAID, by card, with the driver's share in their wallet.
    let page = test_checkout(&app, &rider, &reached.id.to_string(), reached.payableAmount).await;
    redirect(&press(&app, &rider, &page, "pay").await);
    let paid = app.runtime().booking(reached.id).await.unwrap();
    assert_eq!(paid.status, BookingStatus::Paid);
    assert_eq!((paid.gateway.as_deref(), paid.cardPaymentAmount), (Some("test"), reached.payableAmount));
    let entries = ledger(&app, driver_user.id).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["txRef"], format!("DriverShare:{}", reached.reference));
}

#[tokio::test]
async fn a_wallet_top_up_credits_the_wallet_once() {
    let app = test_gateway_app(|_| {}).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let page = test_checkout(&app, &rider, "wallet-1", Decimal::new(2050, 2)).await;
    assert!(app.get(&page, Some(&rider)).await.expect(200).as_str().unwrap().contains("Wallet top-up"));
    redirect(&press(&app, &rider, &page, "pay").await);
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), Decimal::new(2050, 2));
    let entries = ledger(&app, rider.id).await;
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0]["type"].as_str(), entries[0]["txRef"].as_str()), (Some("Credit"), Some("TopUp")));
    press(&app, &rider, &page, "pay").await.refused(409, "already_processed");
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), Decimal::new(2050, 2));
    assert_eq!(ledger(&app, rider.id).await.len(), 1);
    // The wallet route shows it too.
    let wallet = app.get(&format!("/api/v1/users/{}/wallet", rider.id), Some(&rider)).await;
    assert_eq!(wallet.expect(200)["walletBalance"], 20.5);
}

#[tokio::test]
async fn fail_closes_the_payment_and_the_booking_keeps_waiting() {
    let app = test_gateway_app(delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let page = test_checkout(&app, &rider, &booking.id.to_string(), booking.payableAmount).await;
    assert_eq!(redirect(&press(&app, &rider, &page, "fail").await), "/");
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);
    press(&app, &rider, &page, "pay").await.refused(409, "already_processed");
    press(&app, &rider, &page, "refund").await.refused_on(400, "invalid_input", "action");
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);
    assert!(app.get(&page, Some(&rider)).await.expect(200).as_str().unwrap().contains("Failed."));
}

#[tokio::test]
async fn a_checkout_with_a_wrong_amount_order_currency_or_payer_is_refused() {
    let app = test_gateway_app(delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let id = booking.id.to_string();
    let fields = checkout_fields(&id, &booking.payableAmount.to_string(), rider.id);
    let path = "/api/v1/payments/test/checkout";
    let less = (booking.payableAmount - Decimal::ONE).to_string();
    post_form(&app, path, Some(&rider), &with(fields.clone(), "amount", &less)).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    post_form(&app, path, Some(&rider), &with(fields.clone(), "amount", "lots")).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    post_form(&app, path, Some(&rider), &with(fields.clone(), "amount", "-5")).await.refused_on(
        400,
        "invalid_amount",
        "amount",
    );
    post_form(&app, path, Some(&rider), &with(fields.clone(), "order_id", "ABCDEF")).await.refused_on(
        400,
        "invalid_input",
        "order_id",
    );
    post_form(&app, path, Some(&rider), &with(fields.clone(), "currency", "EUR")).await.refused_on(
        400,
        "invalid_input",
        "currency",
    );
    post_form(&app, path, Some(&rider), &with(fields.clone(), "cust_id", "nobody")).await.refused_on(
        400,
        "invalid_input",
        "cust_id",
    );
    // The payer is the one signed in.
    let other = rider2_id();
    post_form(&app, path, Some(&rider), &with(fields.clone(), "cust_id", &other.to_string()))
        .await
        .refused(403, "not_allowed");
    // Someone else's booking, or none, is not known to exist.
    let stranger = app.sign_in("rider2@demo.wayfare").await;
    post_form(&app, path, Some(&stranger), &with(fields.clone(), "cust_id", &stranger.id.to_string()))
        .await
        .refused(404, "not_found");
    let missing = BookingId(uuid::Uuid::now_v7()).to_string();
    post_form(&app, path, Some(&rider), &with(fields.clone(), "order_id", &missing)).await.refused(404, "not_found");
    post_form(&app, path, None, &fields).await.refused(401, "not_logged_in");
    app.post_raw(path, Some(&rider), "application/json", "{}").await.refused_on(400, "invalid_input", "body");
    // A top-up with finer cents than the platform's.
    let top_up = checkout_fields("wallet-2", "10.555", rider.id);
    post_form(&app, path, Some(&rider), &top_up).await.refused_on(400, "invalid_amount", "amount");

    // A taxi booking that is NEW does not await a payment.
    let taxi = test_gateway_app(|_| {}).await;
    let rider = taxi.sign_in("rider1@demo.wayfare").await;
    let booking = taxi.book(&rider_user(1)).await;
    assert_eq!(booking.status, BookingStatus::New);
    let fields = checkout_fields(&booking.id.to_string(), &booking.payableAmount.to_string(), rider.id);
    post_form(&taxi, path, Some(&rider), &fields).await.refused(409, "status_not_allowed");

    // Nothing was recorded for the refused checkouts of the first app: the
    // booking still awaits its payment.
    assert_eq!(app.runtime().booking(booking_id(&id)).await.unwrap().status, BookingStatus::PaymentPending);
}

fn rider_user(number: u32) -> wayfare_engine::User {
    rider(number)
}

fn rider2_id() -> UserId {
    rider(2).id
}

fn booking_id(text: &str) -> BookingId {
    BookingId(text.parse().unwrap())
}

#[tokio::test]
async fn gateways_that_are_off_are_no_provider_found_and_pages_are_the_payers_own() {
    let app = app_with(PaymentsConfig::default(), delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let fields = checkout_fields(&booking.id.to_string(), &booking.payableAmount.to_string(), rider.id);
    post_form(&app, "/api/v1/payments/test/checkout", Some(&rider), &fields).await.refused(404, "no_provider_found");
    post_form(&app, "/api/v1/payments/stripe/checkout", Some(&rider), &fields).await.refused(404, "no_provider_found");
    app.post_raw("/api/v1/payments/stripe/webhook", None, "application/json", "{}")
        .await
        .refused(404, "no_provider_found");

    let app = test_gateway_app(delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let page = test_checkout(&app, &rider, &booking.id.to_string(), booking.payableAmount).await;
    let stranger = app.sign_in("rider2@demo.wayfare").await;
    app.get(&page, Some(&stranger)).await.refused(404, "not_found");
    press(&app, &stranger, &page, "pay").await.refused(404, "not_found");
    app.get(&page, None).await.refused(401, "not_logged_in");
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);
}

// ---- Stripe ----------------------------------------------------------------------------------

/// What the fake Stripe received.
#[derive(Debug, Clone)]
struct StripeCall {
    authorization: String,
    idempotency_key: String,
    form: Vec<(String, String)>,
}

impl StripeCall {
    fn field(&self, name: &str) -> &str {
        self.form
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
            .unwrap_or_else(|| panic!("no {name} in {:?}", self.form))
    }
}

/// A fake of Stripe's `POST /v1/checkout/sessions` on a local port.
async fn fake_stripe() -> (String, Arc<Mutex<Vec<StripeCall>>>) {
    use axum::routing::post;
    let calls: Arc<Mutex<Vec<StripeCall>>> = Arc::default();
    let recorded = calls.clone();
    let router = axum::Router::new().route(
        "/v1/checkout/sessions",
        post(move |headers: axum::http::HeaderMap, body: String| {
            let recorded = recorded.clone();
            async move {
                let text = |name: &str| {
                    headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or_default().to_string()
                };
                let form: Vec<(String, String)> = body
                    .split('&')
                    .filter_map(|pair| pair.split_once('='))
                    .map(|(key, value)| (decode(key), decode(value)))
                    .collect();
                let number = {
                    let mut calls = recorded.lock().unwrap();
                    calls.push(StripeCall {
                        authorization: text("authorization"),
                        idempotency_key: text("idempotency-key"),
                        form,
                    });
                    calls.len()
                };
                axum::Json(serde_json::json!({
                    "id": format!("cs_test_fake{number}"),
                    "object": "checkout.session",
                    "url": format!("https://checkout.stripe.test/c/pay/cs_test_fake{number}")
                }))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (format!("http://{address}"), calls)
}

fn decode(text: &str) -> String {
    let text = text.replace('+', " ");
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' && index + 2 < bytes.len() {
            out.push(u8::from_str_radix(&text[index + 1..index + 3], 16).unwrap());
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn stripe_config(api_base: &str) -> PaymentsConfig {
    crate::gateways::config(
        "stripe",
        &[
            ("stripe_private_key", SECRET_KEY.to_string()),
            ("webhook_secret", WEBHOOK_SECRET.to_string()),
            ("api_base", api_base.to_string()),
        ],
    )
}

/// The recorded `checkout.session.completed` event with this checkout's ids.
fn recorded_event(session_id: &str, payment_id: &str, order_id: &str, amount_minor: i64) -> String {
    include_str!("fixtures/stripe_checkout_session_completed.json")
        .replace("__SESSION_ID__", session_id)
        .replace("__PAYMENT_ID__", payment_id)
        .replace("__ORDER_ID__", order_id)
        .replace("__AMOUNT__", &amount_minor.to_string())
}

/// `Stripe-Signature` as Stripe computes it: HMAC-SHA256 of `t.payload`.
fn signature(payload: &str, secret: &str, timestamp: i64) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.{payload}").as_bytes());
    format!("t={timestamp},v1={}", hex::encode(mac.finalize().into_bytes()))
}

async fn webhook(app: &TestApp, payload: &str, signature: Option<&str>) -> Reply {
    let mut request = axum::http::Request::builder()
        .method(axum::http::Method::POST)
        .uri("/api/v1/payments/stripe/webhook")
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(signature) = signature {
        request = request.header("Stripe-Signature", signature);
    }
    app.send(request.body(axum::body::Body::from(payload.to_string())).unwrap()).await
}

fn now_secs(app: &TestApp) -> i64 {
    app.now() / 1000
}

/// A Stripe checkout through to Stripe's page; returns the call Stripe got.
async fn stripe_checkout(
    app: &TestApp,
    calls: &Mutex<Vec<StripeCall>>,
    who: &Session,
    order_id: &str,
    amount: Decimal,
) -> StripeCall {
    let fields = checkout_fields(order_id, &amount.to_string(), who.id);
    let reply = post_form(app, "/api/v1/payments/stripe/checkout", Some(who), &fields).await;
    let location = redirect(&reply);
    let call = calls.lock().unwrap().last().cloned().expect("Stripe was called");
    assert_eq!(location, format!("https://checkout.stripe.test/c/pay/cs_test_fake{}", calls.lock().unwrap().len()));
    call
}

#[tokio::test]
async fn a_stripe_checkout_creates_a_session_and_its_replayed_webhook_confirms_once() {
    let (api_base, calls) = fake_stripe().await;
    let app = app_with(stripe_config(&api_base), delivery_without_dispatch).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    // Configured, Stripe joins the providers the app offers.
    let providers = app.get("/api/v1/payments/providers", None).await;
    let stripe =
        providers.expect(200).as_array().unwrap().iter().find(|provider| provider["name"] == "stripe").cloned();
    assert_eq!(stripe, Some(serde_json::json!({ "name": "stripe", "link": "/api/v1/payments/stripe/checkout" })));
    let call = stripe_checkout(&app, &calls, &rider, &booking.id.to_string(), booking.payableAmount).await;

    let minor = (booking.payableAmount * Decimal::from(100)).normalize();
    assert_eq!(call.authorization, format!("Bearer {SECRET_KEY}"));
    assert_eq!(call.field("mode"), "payment");
    assert_eq!(call.field("line_items[0][price_data][unit_amount]"), minor.to_string());
    assert_eq!(call.field("line_items[0][price_data][currency]"), "usd");
    assert_eq!(call.field("line_items[0][quantity]"), "1");
    assert_eq!(call.field("customer_email"), "rider1@demo.wayfare");
    let payment_id = call.field("client_reference_id").to_string();
    assert_eq!(
        call.field("success_url"),
        format!("https://ride.example.com/api/v1/payments/stripe/return/{payment_id}"),
        "back through the server, which asks Stripe"
    );
    assert_eq!(call.field("metadata[order_id]"), booking.id.to_string());
    assert_eq!(call.idempotency_key, payment_id, "a retried call makes one session");
    let payment = app.state.storage.payment(payment_id.parse().unwrap()).await.unwrap();
    assert_eq!((payment.status, payment.gateway_ref.as_deref()), (PaymentStatus::Pending, Some("cs_test_fake1")));
    assert_eq!(
        app.runtime().booking(booking.id).await.unwrap().status,
        BookingStatus::PaymentPending,
        "not before the webhook"
    );

    let minor: i64 = minor.to_string().parse().unwrap();
    let payload = recorded_event("cs_test_fake1", &payment_id, &booking.id.to_string(), minor);
    let signed = signature(&payload, WEBHOOK_SECRET, now_secs(&app));
    let first = webhook(&app, &payload, Some(&signed)).await;
    assert_eq!(first.expect(200), &serde_json::json!({ "received": true, "settled": true }));
    let paid = app.runtime().booking(booking.id).await.unwrap();
    assert_eq!((paid.status, paid.prepaid, paid.gateway.as_deref()), (BookingStatus::New, true, Some("stripe")));
    let settled = app.state.storage.payment(payment.id).await.unwrap();
    assert_eq!(
        (settled.status, settled.event_id.as_deref()),
        (PaymentStatus::Paid, Some("evt_1QxYzAB2cD3eF4gH5iJ6kL7m"))
    );

    // Stripe retries: the same event, and the same event signed again later.
    let replay = webhook(&app, &payload, Some(&signed)).await;
    assert_eq!(replay.expect(200), &serde_json::json!({ "received": true, "settled": false }));
    app.advance(MINUTE);
    let resigned = signature(&payload, WEBHOOK_SECRET, now_secs(&app));
    assert_eq!(webhook(&app, &payload, Some(&resigned)).await.expect(200)["settled"], false);
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().version, paid.version, "the booking changed once");
    assert!(ledger(&app, rider.id).await.is_empty());
}

#[tokio::test]
async fn forged_stale_tampered_or_unsigned_webhooks_change_nothing() {
    let (api_base, calls) = fake_stripe().await;
    let app = app_with(stripe_config(&api_base), delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let call = stripe_checkout(&app, &calls, &rider, &booking.id.to_string(), booking.payableAmount).await;
    let payment_id = call.field("client_reference_id").to_string();
    let minor: i64 = call.field("line_items[0][price_data][unit_amount]").parse().unwrap();
    let payload = recorded_event("cs_test_fake1", &payment_id, &booking.id.to_string(), minor);
    let now = now_secs(&app);

    let forged = signature(&payload, "whsec_someone_else", now);
    webhook(&app, &payload, Some(&forged)).await.refused(400, "invalid_signature");
    let stale = signature(&payload, WEBHOOK_SECRET, now - 301);
    webhook(&app, &payload, Some(&stale)).await.refused(400, "invalid_signature");
    let signed = signature(&payload, WEBHOOK_SECRET, now);
    let tampered = payload.replace(&format!("\"amount_total\": {minor}"), "\"amount_total\": 1");
    assert_ne!(tampered, payload);
    webhook(&app, &tampered, Some(&signed)).await.refused(400, "invalid_signature");
    webhook(&app, &payload, None).await.refused(400, "invalid_signature");
    webhook(&app, &payload, Some("t=oops,v1=zz")).await.refused(400, "invalid_signature");

    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);
    let payment = app.state.storage.payment(payment_id.parse().unwrap()).await.unwrap();
    assert_eq!(payment.status, PaymentStatus::Pending);

    // A genuine event for another amount than the checkout's is refused too.
    let wrong_amount = recorded_event("cs_test_fake1", &payment_id, &booking.id.to_string(), minor + 100);
    let signed = signature(&wrong_amount, WEBHOOK_SECRET, now);
    webhook(&app, &wrong_amount, Some(&signed)).await.refused_on(400, "invalid_amount", "amount");
    // And one for a session that is not this payment's.
    let other_session = recorded_event("cs_test_other", &payment_id, &booking.id.to_string(), minor);
    let signed = signature(&other_session, WEBHOOK_SECRET, now);
    webhook(&app, &other_session, Some(&signed)).await.refused(404, "not_found");
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);

    // Events about something else are acknowledged and ignored.
    let other = payload.replace("checkout.session.completed", "customer.created");
    let signed = signature(&other, WEBHOOK_SECRET, now);
    assert_eq!(webhook(&app, &other, Some(&signed)).await.expect(200)["settled"], false);
    assert_eq!(app.state.storage.payment(payment.id).await.unwrap().status, PaymentStatus::Pending);
    // An expired session closes its payment; the booking keeps waiting.
    let expired =
        payload.replace("checkout.session.completed", "checkout.session.expired").replace("\"paid\"", "\"unpaid\"");
    let signed = signature(&expired, WEBHOOK_SECRET, now);
    assert_eq!(webhook(&app, &expired, Some(&signed)).await.expect(200)["settled"], false);
    assert_eq!(app.state.storage.payment(payment.id).await.unwrap().status, PaymentStatus::Failed);
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);
}

#[tokio::test]
async fn a_stripe_top_up_replayed_credits_the_wallet_once() {
    let (api_base, calls) = fake_stripe().await;
    let app = app_with(stripe_config(&api_base), |_| {}).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let call = stripe_checkout(&app, &calls, &rider, "wallet-topup", Decimal::new(15, 0)).await;
    assert_eq!(call.field("line_items[0][price_data][unit_amount]"), "1500");
    let payment_id = call.field("client_reference_id").to_string();
    let payload = recorded_event("cs_test_fake1", &payment_id, "wallet-topup", 1500);
    let signed = signature(&payload, WEBHOOK_SECRET, now_secs(&app));
    for _ in 0..3 {
        webhook(&app, &payload, Some(&signed)).await.expect(200);
    }
    assert_eq!(app.state.storage.wallet_balance(rider.id).await.unwrap(), Decimal::new(15, 0));
    assert_eq!(ledger(&app, rider.id).await.len(), 1);
}

#[tokio::test]
async fn stripe_unreachable_is_unavailable_and_the_payment_is_closed() {
    // A port nobody listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let app = app_with(stripe_config(&closed), delivery).await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let booking = payment_pending(&app).await;
    let fields = checkout_fields(&booking.id.to_string(), &booking.payableAmount.to_string(), rider.id);
    let reply = post_form(&app, "/api/v1/payments/stripe/checkout", Some(&rider), &fields).await;
    reply.refused(503, "unavailable");
    assert_eq!(app.runtime().booking(booking.id).await.unwrap().status, BookingStatus::PaymentPending);
}

/// The messages the dev outbox holds for `to` whose subject starts with `subject`.
async fn mails(app: &TestApp, to: &str, subject: &str) -> Vec<Value> {
    let reply = app.get(&format!("/api/v1/dev/outbox?to={}", query_encode(to)), None).await;
    let body = reply.expect(200);
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["subject"].as_str().is_some_and(|text| text.starts_with(subject)))
        .cloned()
        .collect()
}

/// Waits (bounded) for the receipt task to put `count` receipts in the outbox.
async fn receipts_mailed(app: &TestApp, to: &str, count: usize) -> Vec<Value> {
    for _ in 0..400 {
        let found = mails(app, to, "Your receipt").await;
        if found.len() >= count {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    mails(app, to, "Your receipt").await
}

#[tokio::test]
async fn a_trip_paid_by_card_mails_one_receipt_with_its_pdf_and_a_replay_mails_none() {
    let app = test_gateway_app(|settings| {
        settings.taxName = "VAT".into();
        settings.taxRate = Decimal::from(20);
        settings.CompanyName = "Wayfare Cabs Ltd".into();
    })
    .await;
    let driver_user = driver(4);
    let reached = app.booking_at(&rider(1), &driver_user, Stage::Reached).await;
    let pending = app.command(reached.id, By::Driver(driver_user.id), Command::AwaitPayment).await;
    let rider_session = app.sign_in("rider1@demo.wayfare").await;
    // Not paid yet: no receipt.
    app.get(&format!("/api/v1/bookings/{}/receipt", pending.id), Some(&rider_session))
        .await
        .refused(409, "status_not_allowed");
    let page = test_checkout(&app, &rider_session, &pending.id.to_string(), pending.payableAmount).await;
    redirect(&press(&app, &rider_session, &page, "pay").await);

    let sent = receipts_mailed(&app, "rider1@demo.wayfare", 1).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    let attachments = sent[0]["attachments"].as_array().unwrap();
    assert_eq!(attachments.len(), 1);
    assert_eq!(attachments[0]["content_type"], "application/pdf");
    assert_eq!(attachments[0]["filename"], format!("receipt-{}.pdf", pending.reference));
    assert!(attachments[0]["starts_with"].as_str().unwrap().starts_with("%PDF-1."));
    assert!(attachments[0]["size"].as_u64().unwrap() > 5_000);
    let html = sent[0]["html"].as_str().unwrap();
    assert!(
        html.contains(&pending.reference) && html.contains("Of which VAT 20%") && html.contains("Wayfare Cabs Ltd")
    );

    // A replayed confirmation, and the booking completing, mail nothing more.
    press(&app, &rider_session, &page, "pay").await.refused(409, "already_processed");
    let stored = app.state.storage.booking(pending.id).await.unwrap();
    let again = wayfare_http::documents::mail::send_receipt(
        app.runtime(),
        &app.state.languages,
        &app.state.deliveries,
        stored.id,
        stored.customer,
        0,
    )
    .await
    .unwrap();
    assert!(!again);
    assert_eq!(mails(&app, "rider1@demo.wayfare", "Your receipt").await.len(), 1);

    // The receipt routes: the rider (HTML and PDF), admins; not the driver.
    let reply = app.get(&format!("/api/v1/bookings/{}/receipt", pending.id), Some(&rider_session)).await;
    assert_eq!(reply.status.as_u16(), 200);
    assert!(reply.header(header::CONTENT_TYPE).unwrap().starts_with("text/html"));
    let reply = app.get(&format!("/api/v1/bookings/{}/receipt?format=pdf", pending.id), Some(&rider_session)).await;
    assert_eq!(reply.status.as_u16(), 200);
    assert_eq!(reply.header(header::CONTENT_TYPE), Some("application/pdf"));
    let driver_session = app.sign_in("driver4@demo.wayfare").await;
    app.get(&format!("/api/v1/bookings/{}/receipt", pending.id), Some(&driver_session))
        .await
        .refused(403, "not_allowed");
    let other_rider = app.sign_in("rider2@demo.wayfare").await;
    app.get(&format!("/api/v1/bookings/{}/receipt", pending.id), Some(&other_rider)).await.refused(404, "not_found");
    let admin = app.sign_in("admin@demo.wayfare").await;
    let reply = app.get(&format!("/api/v1/bookings/{}/receipt?format=pdf", pending.id), Some(&admin)).await;
    assert_eq!(reply.status.as_u16(), 200);
    app.get(&format!("/api/v1/bookings/{}/receipt?format=doc", pending.id), Some(&admin))
        .await
        .refused(400, "invalid_input");
}
