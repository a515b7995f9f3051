//! Every payment gateway against a local fake of its provider (issue #37):
//! a small server in the test speaking the provider's documented requests
//! and answers, its base URL given as the gateway's `api_base`. The same
//! scenarios run for each gateway (`gateway_scenarios!`):
//!
//! - a checkout goes end to end to PAID, through the provider's notification
//!   (signed, or checked by asking the provider), and the payer's return;
//! - a notification with a wrong or missing signature changes nothing (400
//!   `invalid_signature`; for providers that do not sign, a notification
//!   naming a payment the provider does not confirm changes nothing);
//! - a replayed notification changes nothing (200, `settled: false`);
//! - a genuine notification for another amount or currency changes nothing
//!   (400 `invalid_amount`);
//! - one for a payment the server does not know is 404 `not_found`;
//! - a refund of a trip paid by card, whole units then a part, reaches the
//!   fake once per key and the booking's refunds (or, for a provider without
//!   refunds, is refused and the wallet remains).

pub mod braintree;
pub mod culqi;
pub mod flutterwave;
pub mod iyzico;
pub mod liqpay;
pub mod mercadopago;
pub mod payfast;
pub mod paymongo;
pub mod paypal;
pub mod paystack;
pub mod payulatam;
pub mod razorpay;
pub mod securepay;
pub mod slickpay;
pub mod squareup;
pub mod stripe;
pub mod tap;
pub mod wipay;
pub mod xendit;

use crate::support::*;
use async_trait::async_trait;
use axum::http::header;
use rust_decimal::Decimal;
use std::sync::Arc;
use wayfare_engine::BookingStatus;
use wayfare_http::config::PaymentsConfig;
use wayfare_storage::{PaymentRecord, PaymentStatus};

/// Where the server sent the payer to pay.
#[derive(Debug, Clone)]
#[allow(dead_code, reason = "the form is read by the fakes of providers that take one")]
pub enum Checkout {
    /// A 303 to the provider's page.
    Redirect(String),
    /// A page that posts this form to the provider.
    Form { action: String, fields: Vec<(String, String)> },
    /// A page the gateway wrote, running the provider's script in the browser.
    Page(String),
}

#[allow(dead_code, reason = "used by the fakes of providers that read the checkout's fields")]
impl Checkout {
    /// A field of the posted form, or of the redirect's query.
    pub fn field(&self, name: &str) -> Option<String> {
        match self {
            Checkout::Form { fields, .. } => fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()),
            Checkout::Redirect(url) => url::Url::parse(url)
                .ok()?
                .query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned()),
            Checkout::Page(_) => None,
        }
    }

    /// The first form of a gateway's own page (what it posts back), as a
    /// `Checkout::Form`; any other checkout as it is.
    pub fn page_form(&self) -> Checkout {
        match self {
            Checkout::Page(html) => posted_form(html),
            other => other.clone(),
        }
    }

    pub fn url(&self) -> &str {
        match self {
            Checkout::Redirect(url) => url,
            Checkout::Form { action, .. } => action,
            Checkout::Page(_) => "",
        }
    }
}

/// A request the provider makes to the server's webhook.
#[derive(Debug, Clone, Default)]
pub struct Notification {
    pub headers: Vec<(String, String)>,
    pub content_type: String,
    /// The webhook's query string, if the provider sends one.
    pub query: String,
    pub body: String,
}

#[allow(dead_code, reason = "each provider's fake uses the constructors of its own format")]
impl Notification {
    pub fn json(body: String) -> Notification {
        Notification { content_type: "application/json".into(), body, ..Notification::default() }
    }

    pub fn form(fields: &[(&str, String)]) -> Notification {
        let body = fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect::<Vec<_>>();
        Notification {
            content_type: "application/x-www-form-urlencoded".into(),
            body: body.join("&"),
            ..Notification::default()
        }
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Notification {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    pub fn without_header(mut self, name: &str) -> Notification {
        self.headers.retain(|(key, _)| !key.eq_ignore_ascii_case(name));
        self
    }
}

/// What a payment at the provider was for, as the fake saw it.
#[derive(Debug, Clone)]
pub struct Paying {
    /// The server's payment.
    pub payment: PaymentRecord,
    /// Where the server sent the payer.
    pub checkout: Checkout,
    /// The server's clock, in seconds (for providers that sign a time).
    pub now_secs: i64,
}

/// A provider's fake.
#[async_trait]
pub trait Fake: Send + Sync {
    /// The gateway's name.
    fn gateway(&self) -> &'static str;
    /// `[payments.<gateway>]` pointing at this fake.
    fn settings(&self) -> Vec<(&'static str, String)>;
    /// Whether the provider signs its notifications.
    fn signs(&self) -> bool;
    /// The payer pays at the provider what the checkout asked (the fake
    /// checks the checkout is well formed: keys, amount, links); the
    /// notification the provider then sends.
    async fn pay(&self, paying: &Paying) -> Notification;
    /// The payer pays and their browser comes back to the return link
    /// first: what it posts there (a form body, if anything), and the
    /// notification the provider sends afterwards. By default `pay`, its
    /// notification posted back when form-encoded; providers whose page
    /// posts back a token the server then charges (Culqi) say otherwise.
    async fn pay_and_return(&self, paying: &Paying) -> (Option<String>, Notification) {
        let notification = self.pay(paying).await;
        let form =
            (notification.content_type == "application/x-www-form-urlencoded").then(|| notification.body.clone());
        (form, notification)
    }
    /// The payer pays `minor` (smallest units) in `currency` instead; the
    /// provider's genuine notification of it.
    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification;
    /// The notification with a wrong signature (for providers that sign).
    fn forge(&self, notification: &Notification) -> Notification;
    /// The notification without its signature (for providers that sign).
    fn unsign(&self, notification: &Notification) -> Notification;
    /// A notification about this checkout while the provider has not been
    /// paid (for providers that do not sign: the server asks, and hears "not paid").
    async fn unpaid(&self, paying: &Paying) -> Notification;
    /// Whether the provider's API refunds (else the gateway says `Unsupported`).
    fn refunds_supported(&self) -> bool {
        true
    }
    /// A genuine notification of a payment the server never started, at
    /// the server's time.
    async fn stranger(&self, now_secs: i64) -> Notification;
    /// The refunds the provider was asked for: (its payment id, amount in minor units).
    fn refunds(&self) -> Vec<(String, i64)>;
}

/// Listens on a local port; the fake's base URL.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}")
}

/// `[payments.<gateway>]` with these settings.
pub fn config(gateway: &str, settings: &[(&str, String)]) -> PaymentsConfig {
    let table: figment::value::Dict =
        settings.iter().map(|(key, value)| (key.to_string(), figment::value::Value::from(value.clone()))).collect();
    let mut config =
        PaymentsConfig { public_url: Some("https://ride.example.com".into()), ..PaymentsConfig::default() };
    config.gateways.insert(gateway.to_string(), figment::value::Value::from(table));
    config
}

/// Fields of a form body.
pub fn form_fields(body: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body.as_bytes()).into_owned().collect()
}

/// Reads the auto-posting page of a checkout that posts a form.
fn posted_form(html: &str) -> Checkout {
    let attribute = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
        let end = tag[start..].find('"')? + start;
        Some(unescape(&tag[start..end]))
    };
    let form_tag = &html[html.find("<form").expect("a form")..];
    let action = attribute(&form_tag[..form_tag.find('>').unwrap()], "action").expect("an action");
    let fields = form_tag
        .split("<input")
        .skip(1)
        .map(|input| {
            let tag = &input[..input.find('>').unwrap()];
            (attribute(tag, "name").unwrap(), attribute(tag, "value").unwrap_or_default())
        })
        .collect();
    Checkout::Form { action, fields }
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// A platform with the gateway on, a rider and their prepaid delivery.
pub struct World {
    pub app: TestApp,
    pub rider: Session,
    pub booking: Arc<wayfare_engine::Booking>,
}

impl World {
    pub async fn new(fake: &dyn Fake, currency: &str) -> World {
        World::with(config(fake.gateway(), &fake.settings()), currency).await
    }

    /// A delivery platform in `currency` with these payment settings.
    pub async fn with(payments: PaymentsConfig, currency: &str) -> World {
        let world = World::on(payments, currency, wayfare_engine::AppCategory::Delivery).await;
        assert_eq!(world.booking.status, BookingStatus::PaymentPending);
        world
    }

    /// A taxi platform with the fake's gateway: trips are paid at their end.
    pub async fn taxi(fake: &dyn Fake, currency: &str) -> World {
        World::taxi_on(fake, currency, None).await
    }

    /// [`World::taxi`] on the database `database_url` names (SQLite in a
    /// temporary directory when `None`).
    pub async fn taxi_on(fake: &dyn Fake, currency: &str, database_url: Option<String>) -> World {
        let payments = config(fake.gateway(), &fake.settings());
        World::on_database(payments, currency, wayfare_engine::AppCategory::Taxi, database_url).await
    }

    async fn on(payments: PaymentsConfig, currency: &str, category: wayfare_engine::AppCategory) -> World {
        World::on_database(payments, currency, category, None).await
    }

    async fn on_database(
        payments: PaymentsConfig,
        currency: &str,
        category: wayfare_engine::AppCategory,
        database_url: Option<String>,
    ) -> World {
        let mut setup = Setup::default();
        setup.config.database_url = database_url;
        setup.config.payments = payments;
        setup.settings.appcat = category;
        // A paid booking stays as the payment left it.
        setup.settings.autoDispatch = false;
        setup.settings.code = currency.to_string();
        let app = TestApp::start(setup).await;
        let rider = app.sign_in("rider1@demo.wayfare").await;
        let booking = app.book(&rider_user(1)).await;
        World { app, rider, booking }
    }

    /// The rider checks out the booking (or a top-up of `amount`) with the gateway.
    pub async fn check_out(&self, fake: &dyn Fake, order_id: &str, amount: Decimal) -> Paying {
        let currency = self.app.runtime().catalog().settings.code.clone();
        let fields = [
            ("order_id", order_id.to_string()),
            ("amount", amount.to_string()),
            ("currency", currency),
            ("product_name", "Wayfare ABCDEF".into()),
            ("first_name", "Rita".into()),
            ("last_name", "Rider".into()),
            ("quantity", "1".into()),
            ("cust_id", self.rider.id.to_string()),
            ("mobile_no", "+14105550101".into()),
            ("email", "rider1@demo.wayfare".into()),
            ("success_url", format!("/bookings?trip={order_id}")),
            ("cancel_url", "/".into()),
        ];
        let body = fields.iter().map(|(name, value)| format!("{name}={}", query_encode(value))).collect::<Vec<_>>();
        let path = format!("/api/v1/payments/{}/checkout", fake.gateway());
        let reply =
            self.app.post_raw(&path, Some(&self.rider), "application/x-www-form-urlencoded", body.join("&")).await;
        let checkout = match reply.status.as_u16() {
            303 => Checkout::Redirect(reply.header(header::LOCATION).expect("a Location").to_string()),
            200 => {
                let html = reply.body.as_str().expect("a page");
                // The route's own page posts a form at once; any other is the gateway's.
                if html.contains("document.forms[0].submit()") {
                    posted_form(html)
                } else {
                    Checkout::Page(html.to_string())
                }
            }
            other => panic!("checkout answered {other}: {}", reply.body),
        };
        let payments = self.app.state.storage.payments_of(self.rider.id, 1).await.unwrap();
        let payment = payments.into_iter().next().expect("a payment");
        assert_eq!(payment.status, PaymentStatus::Pending, "nothing is paid before the provider says so");
        Paying { payment, checkout, now_secs: self.app.now() / 1000 }
    }

    pub async fn check_out_booking(&self, fake: &dyn Fake) -> Paying {
        self.check_out(fake, &self.booking.id.to_string(), self.booking.payableAmount).await
    }

    pub async fn notify(&self, fake: &dyn Fake, notification: &Notification) -> Reply {
        let query = if notification.query.is_empty() { String::new() } else { format!("?{}", notification.query) };
        let mut request = axum::http::Request::builder()
            .method(axum::http::Method::POST)
            .uri(format!("/api/v1/payments/{}/webhook{query}", fake.gateway()))
            .header(header::CONTENT_TYPE, &notification.content_type);
        for (name, value) in &notification.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        self.app.send(request.body(axum::body::Body::from(notification.body.clone())).unwrap()).await
    }

    pub async fn payment(&self, paying: &Paying) -> PaymentRecord {
        self.app.state.storage.payment(paying.payment.id).await.unwrap()
    }

    pub async fn status(&self) -> BookingStatus {
        self.app.runtime().booking(self.booking.id).await.unwrap().status
    }
}

fn rider_user(number: u32) -> wayfare_engine::User {
    rider(number)
}

/// The amount of a payment in the smallest unit of its currency.
pub fn minor(payment: &PaymentRecord) -> i64 {
    let factor = if payment.currency.eq_ignore_ascii_case("JPY") { 1 } else { 100 };
    (payment.amount * Decimal::from(factor)).trunc().to_string().parse().unwrap()
}

// ---- the scenarios ----------------------------------------------------------------------

pub async fn checkout_goes_to_paid(fake: &dyn Fake, currency: &str) {
    let world = World::new(fake, currency).await;
    let providers = world.app.get("/api/v1/payments/providers", None).await;
    let listed = providers.expect(200).as_array().unwrap().iter().any(|provider| {
        provider["name"] == fake.gateway()
            && provider["link"] == format!("/api/v1/payments/{}/checkout", fake.gateway())
    });
    assert!(listed, "an active gateway is offered: {}", providers.body);
    let paying = world.check_out_booking(fake).await;
    let notification = fake.pay(&paying).await;
    assert_eq!(world.status().await, BookingStatus::PaymentPending, "paid at the provider, not yet told");
    let answer = world.notify(fake, &notification).await;
    assert_eq!(answer.expect(200)["settled"], true, "{}", answer.body);
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Paid);
    let booking = world.app.runtime().booking(world.booking.id).await.unwrap();
    assert_eq!((booking.status, booking.gateway.as_deref()), (BookingStatus::New, Some(fake.gateway())));
    // The payer's return after that goes on to the app.
    let back = world.app.get(&format!("/api/v1/payments/{}/return/{}", fake.gateway(), paying.payment.id), None).await;
    assert_eq!(back.status.as_u16(), 303);
    assert_eq!(back.header(header::LOCATION), Some(format!("/bookings?trip={}", world.booking.id).as_str()));
}

pub async fn the_return_alone_asks_the_provider(fake: &dyn Fake, currency: &str) {
    let world = World::new(fake, currency).await;
    let paying = world.check_out_booking(fake).await;
    // Back before paying: the provider says it is not paid, nothing changes.
    let path = format!("/api/v1/payments/{}/return/{}", fake.gateway(), paying.payment.id);
    let early = world.app.get(&path, None).await;
    assert_eq!(early.status.as_u16(), 303);
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Pending);
    assert_eq!(world.status().await, BookingStatus::PaymentPending);
    // Paid, the return finds it out from the provider before any notification.
    let (form, notification) = fake.pay_and_return(&paying).await;
    let back = returned(&world, fake, &paying, form).await;
    assert_eq!(back.header(header::LOCATION), Some(format!("/bookings?trip={}", world.booking.id).as_str()));
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Paid);
    assert_eq!(world.status().await, BookingStatus::New);
    // The notification then settles nothing more.
    assert_eq!(world.notify(fake, &notification).await.expect(200)["settled"], false);
}

/// The payer's return, carrying what the provider put on it (some providers
/// send the payer back with their signed answer, or a token, in a form).
async fn returned(world: &World, fake: &dyn Fake, paying: &Paying, form: Option<String>) -> Reply {
    let path = format!("/api/v1/payments/{}/return/{}", fake.gateway(), paying.payment.id);
    let reply = match form {
        Some(body) => world.app.post_raw(&path, None, "application/x-www-form-urlencoded", body).await,
        None => world.app.get(&path, None).await,
    };
    assert_eq!(reply.status.as_u16(), 303, "{}", reply.body);
    reply
}

pub async fn bad_signatures_change_nothing(fake: &dyn Fake, currency: &str) {
    let world = World::new(fake, currency).await;
    let paying = world.check_out_booking(fake).await;
    let notification = fake.pay(&paying).await;
    if fake.signs() {
        world.notify(fake, &fake.forge(&notification)).await.refused(400, "invalid_signature");
        world.notify(fake, &fake.unsign(&notification)).await.refused(400, "invalid_signature");
    } else {
        // Unsigned, a notification is only a reason to ask: one naming a
        // payment the provider does not confirm changes nothing.
        let other = world.check_out_booking(fake).await;
        let unpaid = fake.unpaid(&other).await;
        let reply = world.notify(fake, &unpaid).await;
        assert_eq!(reply.expect(200)["settled"], false);
        assert_eq!(world.payment(&other).await.status, PaymentStatus::Pending);
    }
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Pending);
    assert_eq!(world.status().await, BookingStatus::PaymentPending);
}

pub async fn a_replay_changes_nothing(fake: &dyn Fake, currency: &str) {
    let world = World::new(fake, currency).await;
    let paying = world.check_out(fake, "wallet-topup", Decimal::new(15, 0)).await;
    let notification = fake.pay(&paying).await;
    assert_eq!(world.notify(fake, &notification).await.expect(200)["settled"], true);
    for _ in 0..2 {
        assert_eq!(world.notify(fake, &notification).await.expect(200)["settled"], false);
    }
    let balance = world.app.state.storage.wallet_balance(world.rider.id).await.unwrap();
    assert_eq!(balance, Decimal::new(15, 0), "credited once");
}

pub async fn another_amount_or_currency_changes_nothing(fake: &dyn Fake, currency: &str, other_currency: &str) {
    let world = World::new(fake, currency).await;
    let paying = world.check_out_booking(fake).await;
    let less = fake.pay_other(&paying, minor(&paying.payment) - 100, currency).await;
    world.notify(fake, &less).await.refused_on(400, "invalid_amount", "amount");
    // An empty other currency: the provider settles in one currency only
    // and its notifications name none (PayFast), so there is no other to say.
    if !other_currency.is_empty() {
        let elsewhere = fake.pay_other(&paying, minor(&paying.payment), other_currency).await;
        world.notify(fake, &elsewhere).await.refused_on(400, "invalid_amount", "amount");
    }
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Pending);
    assert_eq!(world.status().await, BookingStatus::PaymentPending);
}

pub async fn an_unknown_payment_is_not_found(fake: &dyn Fake, currency: &str) {
    let world = World::new(fake, currency).await;
    let reply = world.notify(fake, &fake.stranger(world.app.now() / 1000).await).await;
    reply.refused(404, "not_found");
}

/// A trip the rider pays by card at its end (PENDING), through the gateway.
pub async fn paid_trip(world: &World, fake: &dyn Fake) -> Arc<wayfare_engine::Booking> {
    use wayfare_engine::booking::{By, Command};
    let driver = driver(4);
    let reached = world.app.booking_at(&rider(1), &driver, Stage::Reached).await;
    let pending = world.app.command(reached.id, By::Driver(driver.id), Command::AwaitPayment).await;
    let paying = world.check_out(fake, &pending.id.to_string(), pending.payableAmount).await;
    let notification = fake.pay(&paying).await;
    assert_eq!(world.notify(fake, &notification).await.expect(200)["settled"], true);
    let paid = world.app.runtime().booking(pending.id).await.unwrap();
    assert_eq!(paid.status, BookingStatus::Paid);
    paid
}

pub async fn refund(
    world: &World,
    admin: &Session,
    booking: &wayfare_engine::Booking,
    amount: &str,
    key: &str,
) -> Reply {
    let body = serde_json::json!({ "amount": amount, "destination": "gateway", "reason": "Charged twice" });
    let request = axum::http::Request::builder()
        .method(axum::http::Method::POST)
        .uri(format!("/api/v1/bookings/{}/refund", booking.id))
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::AUTHORIZATION, format!("Bearer {}", admin.token))
        .header("Idempotency-Key", key)
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    world.app.send(request).await
}

pub async fn a_refund_reaches_the_provider_and_the_ledger(fake: &dyn Fake, currency: &str) {
    let world = World::taxi(fake, currency).await;
    let booking = paid_trip(&world, fake).await;
    let admin = world.app.sign_in("admin@demo.wayfare").await;
    if !fake.refunds_supported() {
        // The provider has no refund: the card cannot be refunded, the wallet still can.
        refund(&world, &admin, &booking, "5", "refund-1").await.refused_on(400, "invalid_input", "destination");
        assert!(fake.refunds().is_empty());
        return;
    }
    // Whole units, then a part; each once per key.
    let first = refund(&world, &admin, &booking, "5", "refund-1").await;
    assert_eq!(first.expect(201)["refund"]["destination"], "gateway", "{}", first.body);
    assert!(first.expect(201)["refund"]["gateway_ref"].as_str().is_some_and(|reference| !reference.is_empty()));
    refund(&world, &admin, &booking, "2.50", "refund-2").await.expect(201);
    assert_eq!(refund(&world, &admin, &booking, "5", "refund-1").await.expect(200)["applied"], false);
    let factor = if currency == "JPY" { 1 } else { 100 };
    let refunds: Vec<i64> = fake.refunds().into_iter().map(|(_, amount)| amount).collect();
    assert_eq!(refunds, vec![5 * factor, factor * 250 / 100], "the provider was asked twice, not three times");
    // The booking's refunds and the ledger agree.
    let listed = world.app.get(&format!("/api/v1/bookings/{}/refunds", booking.id), Some(&admin)).await;
    let refunded: Decimal = listed.expect(200)["totals"]["refunded"].to_string().trim_matches('"').parse().unwrap();
    assert_eq!(refunded, Decimal::new(750, 2));
    let audit = world.app.state.storage.audit().await.unwrap();
    assert!(audit.wallet_mismatches.is_empty(), "{:?}", audit.wallet_mismatches);
}

/// Every scenario above, as tests of one gateway: `gateway_scenarios!(module, fake constructor, currency, other currency)`.
#[macro_export]
macro_rules! gateway_scenarios {
    ($fake:expr, $currency:expr, $other:expr) => {
        use $crate::gateways as scenarios;

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_checkout_goes_to_paid() {
            scenarios::checkout_goes_to_paid(&$fake.await, $currency).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn the_return_alone_asks_the_provider() {
            scenarios::the_return_alone_asks_the_provider(&$fake.await, $currency).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn bad_signatures_change_nothing() {
            scenarios::bad_signatures_change_nothing(&$fake.await, $currency).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_replay_changes_nothing() {
            scenarios::a_replay_changes_nothing(&$fake.await, $currency).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn another_amount_or_currency_changes_nothing() {
            scenarios::another_amount_or_currency_changes_nothing(&$fake.await, $currency, $other).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn an_unknown_payment_is_not_found() {
            scenarios::an_unknown_payment_is_not_found(&$fake.await, $currency).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_refund_reaches_the_provider_and_the_ledger() {
            scenarios::a_refund_reaches_the_provider_and_the_ledger(&$fake.await, $currency).await;
        }
    };
}
