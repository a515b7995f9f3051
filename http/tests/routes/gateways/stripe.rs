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
                    let mut books = books.lock().unwrap();
                    books.refunds.push((intent, amount.parse().unwrap()));
                    let id = format!("re_{}", books.refunds.len());
                    (axum::http::StatusCode::OK, axum::Json(serde_json::json!({"id": id, "object": "refund", "status": "succeeded"})))
                }),
            )
            .with_state(books.clone());
        FakeStripe { base: serve(router).await, books }
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
