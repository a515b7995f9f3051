//! A fake Stripe: Checkout Sessions (`POST /v1/checkout/sessions`, `GET
//! /v1/checkout/sessions/{id}`), refunds (`POST /v1/refunds`), and events
//! signed as Stripe signs them (`Stripe-Signature: t=…,v1=HMAC-SHA256`).

use super::*;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use std::collections::HashMap;
use std::sync::Mutex;

pub const SECRET_KEY: &str = "sk_test_fake";
pub const WEBHOOK_SECRET: &str = "whsec_fake";

/// A session's form, and what was paid (minor units, currency) once it was.
type Session = (Vec<(String, String)>, Option<(i64, String)>);

#[derive(Default)]
struct Books {
    /// Sessions by id: the form they were made with, and what was paid.
    sessions: HashMap<String, Session>,
    refunds: Vec<(String, i64)>,
    /// How long a refund takes to answer (a slow bank).
    refund_delay_ms: u64,
}

#[derive(Clone)]
pub struct FakeStripe {
    pub base: String,
    books: Arc<Mutex<Books>>,
}

fn authorized(headers: &axum::http::HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {SECRET_KEY}"))
}

fn session_json(id: &str, form: &[(String, String)], paid: &Option<(i64, String)>) -> serde_json::Value {
    let field = |name: &str| form.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    serde_json::json!({
        "id": id, "object": "checkout.session", "url": format!("https://checkout.stripe.test/c/pay/{id}"),
        "client_reference_id": field("client_reference_id"), "metadata": {"payment_id": field("metadata[payment_id]")},
        "payment_intent": format!("pi_{id}"),
        "payment_status": if paid.is_some() { "paid" } else { "unpaid" },
        "amount_total": paid.as_ref().map(|(amount, _)| *amount),
        "currency": paid.as_ref().map(|(_, currency)| currency.clone()).or_else(|| field("line_items[0][price_data][currency]")),
    })
}

impl FakeStripe {
    pub async fn start() -> FakeStripe {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router = axum::Router::new()
            .route(
                "/v1/checkout/sessions",
                post(|State(books): State<Arc<Mutex<Books>>>, headers: axum::http::HeaderMap, body: String| async move {
                    if !authorized(&headers) {
                        return (axum::http::StatusCode::UNAUTHORIZED, axum::Json(serde_json::json!({"error": {}})));
                    }
                    let form = form_fields(&body);
                    let mut books = books.lock().unwrap();
                    let id = format!("cs_test_{}", books.sessions.len() + 1);
                    let answer = session_json(&id, &form, &None);
                    books.sessions.insert(id, (form, None));
                    (axum::http::StatusCode::OK, axum::Json(answer))
                }),
            )
            .route(
                "/v1/checkout/sessions/{id}",
                get(|State(books): State<Arc<Mutex<Books>>>, Path(id): Path<String>, headers: axum::http::HeaderMap| async move {
                    let books = books.lock().unwrap();
                    match books.sessions.get(&id) {
                        Some((form, paid)) if authorized(&headers) => {
                            (axum::http::StatusCode::OK, axum::Json(session_json(&id, form, paid)))
                        }
                        _ => (axum::http::StatusCode::NOT_FOUND, axum::Json(serde_json::json!({"error": {}}))),
                    }
                }),
            )
            .route(
                "/v1/refunds",
                post(|State(books): State<Arc<Mutex<Books>>>, headers: axum::http::HeaderMap, body: String| async move {
                    let form = form_fields(&body);
                    let field = |name: &str| form.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
                    let (Some(intent), Some(amount)) = (field("payment_intent"), field("amount")) else {
                        return (axum::http::StatusCode::BAD_REQUEST, axum::Json(serde_json::json!({})));
                    };
                    if !authorized(&headers) || headers.get("idempotency-key").is_none() {
                        return (axum::http::StatusCode::BAD_REQUEST, axum::Json(serde_json::json!({})));
                    }
                    let delay = books.lock().unwrap().refund_delay_ms;
                    tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                    let mut books = books.lock().unwrap();
                    books.refunds.push((intent, amount.parse().unwrap()));
                    let id = format!("re_{}", books.refunds.len());
                    (axum::http::StatusCode::OK, axum::Json(serde_json::json!({"id": id, "object": "refund", "status": "succeeded"})))
                }),
            )
            .with_state(books.clone());
        FakeStripe { base: serve(router).await, books }
    }

    /// Refunds answer after `millis` from now on.
    pub fn slow_refunds(&self, millis: u64) {
        self.books.lock().unwrap().refund_delay_ms = millis;
    }

    fn session_of(&self, paying: &Paying) -> String {
        let url = paying.checkout.url();
        url.rsplit('/').next().unwrap().to_string()
    }

    fn event(&self, session: &str, minor: i64, currency: &str, event_type: &str, now: i64) -> Notification {
        let books = self.books.lock().unwrap();
        let (form, _) = books.sessions.get(session).cloned().unwrap_or_default();
        let mut object = session_json(session, &form, &Some((minor, currency.to_ascii_lowercase())));
        if form.is_empty() {
            object["client_reference_id"] = serde_json::json!(uuid::Uuid::now_v7().to_string());
        }
        let body = serde_json::json!({
            "id": format!("evt_{session}_{minor}_{currency}"), "object": "event", "type": event_type,
            "data": {"object": object},
        })
        .to_string();
        let signature = wayfare_http::payments::gateways::stripe::sign(body.as_bytes(), WEBHOOK_SECRET, now);
        Notification::json(body).with_header("Stripe-Signature", signature)
    }
}

#[async_trait]
impl Fake for FakeStripe {
    fn gateway(&self) -> &'static str {
        "stripe"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("stripe_private_key", SECRET_KEY.into()),
            ("stripe_public_key", "pk_test_fake".into()),
            ("webhook_secret", WEBHOOK_SECRET.into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let session = self.session_of(paying);
        let currency = paying.payment.currency.to_ascii_lowercase();
        self.books.lock().unwrap().sessions.get_mut(&session).expect("a session").1 =
            Some((minor(&paying.payment), currency.clone()));
        self.event(&session, minor(&paying.payment), &currency, "checkout.session.completed", paying.now_secs)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let session = self.session_of(paying);
        self.event(&session, minor, currency, "checkout.session.completed", paying.now_secs)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        // The same time, another secret.
        let signed = notification.headers.iter().find(|(name, _)| name == "Stripe-Signature").unwrap().1.clone();
        let time: i64 = signed.trim_start_matches("t=").split(',').next().unwrap().parse().unwrap();
        let forged = wayfare_http::payments::gateways::stripe::sign(notification.body.as_bytes(), "whsec_other", time);
        notification.clone().without_header("Stripe-Signature").with_header("Stripe-Signature", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("Stripe-Signature")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let session = self.session_of(paying);
        self.event(
            &session,
            minor(&paying.payment),
            &paying.payment.currency,
            "checkout.session.async_payment_failed",
            paying.now_secs,
        )
    }

    async fn stranger(&self, now_secs: i64) -> Notification {
        self.event("cs_test_stranger", 1000, "usd", "checkout.session.completed", now_secs)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeStripe::start(), "USD", "EUR");

/// Two refunds of one booking at once, each within what was paid but
/// together over it, while the bank is slow: they take turns, so the second
/// sees the first and is refused, and the card is refunded once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_refunds_at_once_never_refund_the_card_past_what_was_paid() {
    refunds_at_once(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_refunds_at_once_never_refund_the_card_past_what_was_paid_on_postgres() {
    let Some(schema) = crate::postgres_support::Schema::create("refunds").await else { return };
    refunds_at_once(Some(schema.url.clone())).await;
}

async fn refunds_at_once(database_url: Option<String>) {
    let fake = FakeStripe::start().await;
    let world = World::taxi_on(&fake, "USD", database_url).await;
    let booking = super::paid_trip(&world, &fake).await;
    let admin = world.app.sign_in("admin@demo.wayfare").await;
    fake.slow_refunds(300);
    // Each over half of what was paid, in whole cents.
    let part = (booking.payableAmount * Decimal::new(6, 1)).round_dp(2);
    assert!(part < booking.payableAmount && part * Decimal::TWO > booking.payableAmount);
    let part_text = part.to_string();
    let (first, second) = tokio::join!(
        super::refund(&world, &admin, &booking, &part_text, "race-1"),
        super::refund(&world, &admin, &booking, &part_text, "race-2"),
    );
    let mut statuses = [first.status.as_u16(), second.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 400], "one refund, one refused: {} / {}", first.body, second.body);
    let refused = if first.status.as_u16() == 400 { &first } else { &second };
    refused.refused_on(400, "invalid_amount", "amount");
    assert_eq!(fake.refunds().len(), 1, "the card was refunded once: {:?}", fake.refunds());
    let after = world.app.runtime().booking(booking.id).await.unwrap();
    assert_eq!(after.refunded, part);
    assert_eq!(world.app.state.storage.booking_refunds(booking.id).await.unwrap().len(), 1);

    // The same request sent twice at once (a double click): one refund, the other says so.
    let rest = (booking.payableAmount - after.refunded).to_string();
    let (once, again) = tokio::join!(
        super::refund(&world, &admin, &booking, &rest, "double-1"),
        super::refund(&world, &admin, &booking, &rest, "double-1"),
    );
    let mut answers =
        [(once.status.as_u16(), once.body["applied"].clone()), (again.status.as_u16(), again.body["applied"].clone())];
    answers.sort_by_key(|(status, _)| *status);
    let expected = [(200, serde_json::json!(false)), (201, serde_json::json!(true))];
    assert_eq!(answers, expected, "{} / {}", once.body, again.body);
    assert_eq!(fake.refunds().len(), 2);
    let after = world.app.runtime().booking(booking.id).await.unwrap();
    assert_eq!(after.refunded, booking.payableAmount);
    // Nothing is left locked.
    assert!(world.app.state.storage.lease("refund", &booking.id.to_string()).await.unwrap().is_none());
}
