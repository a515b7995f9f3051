//! A fake Razorpay: Payment Links (`POST /v1/payment_links`, `GET
//! /v1/payment_links/{id}`, basic auth `KEY_ID:KEY_SECRET`, amounts in
//! paise), refunds (`POST /v1/payments/{id}/refund`), and webhooks signed as
//! Razorpay signs them (`X-Razorpay-Signature`, hex HMAC-SHA256 of the body).

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use base64::Engine as _;
use std::collections::HashMap;
use std::sync::Mutex;

const KEY_ID: &str = "rzp_test_fake";
const KEY_SECRET: &str = "rzp_secret_fake";
const WEBHOOK_SECRET: &str = "rzp_webhook_fake";

#[derive(Default)]
struct Books {
    /// Payment links by id, as Razorpay answers them.
    links: HashMap<String, serde_json::Value>,
    /// Refunds: (payment id, paise).
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakeRazorpay {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    let expected =
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{KEY_ID}:{KEY_SECRET}")));
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(expected.as_str())
}

fn refused(status: StatusCode, description: &str) -> (StatusCode, axum::Json<serde_json::Value>) {
    (status, axum::Json(serde_json::json!({"error": {"code": "BAD_REQUEST_ERROR", "description": description}})))
}

async fn create_link(
    State(books): State<Shared>,
    headers: HeaderMap,
    body: String,
) -> (StatusCode, axum::Json<serde_json::Value>) {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Authentication failed");
    }
    let Ok(request) = serde_json::from_str::<serde_json::Value>(&body) else {
        return refused(StatusCode::BAD_REQUEST, "not JSON");
    };
    // Razorpay wants the amount as a whole number of paise, at least 100.
    let Some(amount) = request["amount"].as_i64().filter(|amount| *amount >= 100) else {
        return refused(StatusCode::BAD_REQUEST, "amount: an integer of paise, at least 100");
    };
    let reference = request["reference_id"].as_str().unwrap_or_default();
    let currency = request["currency"].as_str().unwrap_or_default();
    let callback = request["callback_url"].as_str().unwrap_or_default();
    if reference.is_empty() || reference.len() > 40 || currency.len() != 3 || !callback.starts_with("https://") {
        return refused(StatusCode::BAD_REQUEST, "reference_id, currency or callback_url");
    }
    if request["callback_method"] != "get" {
        return refused(StatusCode::BAD_REQUEST, "callback_method must be get");
    }
    let mut books = books.lock().unwrap();
    if books.links.values().any(|link| link["reference_id"] == reference) {
        return refused(StatusCode::BAD_REQUEST, "reference_id already exists");
    }
    let id = format!("plink_{}", books.links.len() + 1);
    let link = serde_json::json!({
        "id": id, "short_url": format!("https://rzp.test/i/{id}"), "status": "created", "amount": amount,
        "amount_paid": 0, "currency": currency, "reference_id": reference, "callback_url": callback,
        "payments": null,
    });
    books.links.insert(id, link.clone());
    (StatusCode::OK, axum::Json(link))
}

async fn fetch_link(
    State(books): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> (StatusCode, axum::Json<serde_json::Value>) {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Authentication failed");
    }
    match books.lock().unwrap().links.get(&id) {
        Some(link) => (StatusCode::OK, axum::Json(link.clone())),
        None => refused(StatusCode::BAD_REQUEST, "The id provided does not exist"),
    }
}

async fn refund(
    State(books): State<Shared>,
    Path(payment): Path<String>,
    headers: HeaderMap,
    body: String,
) -> (StatusCode, axum::Json<serde_json::Value>) {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Authentication failed");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = request["amount"].as_i64().filter(|amount| *amount > 0) else {
        return refused(StatusCode::BAD_REQUEST, "amount: an integer of paise");
    };
    let mut books = books.lock().unwrap();
    let paid = books
        .links
        .values()
        .filter_map(|link| link["payments"].as_array())
        .flatten()
        .find(|captured| captured["payment_id"] == payment.as_str())
        .and_then(|captured| captured["amount"].as_i64());
    let Some(paid) = paid else { return refused(StatusCode::BAD_REQUEST, "The id provided does not exist") };
    let refunded: i64 = books.refunds.iter().filter(|(id, _)| *id == payment).map(|(_, amount)| amount).sum();
    if refunded + amount > paid {
        return refused(StatusCode::BAD_REQUEST, "The total refund amount is greater than the payment amount");
    }
    books.refunds.push((payment.clone(), amount));
    let id = format!("rfnd_{}", books.refunds.len());
    (
        StatusCode::OK,
        axum::Json(
            serde_json::json!({"id": id, "entity": "refund", "payment_id": payment, "amount": amount, "status": "processed"}),
        ),
    )
}

impl FakeRazorpay {
    pub async fn start() -> FakeRazorpay {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v1/payment_links", post(create_link))
            .route("/v1/payment_links/{id}", get(fetch_link))
            .route("/v1/payments/{id}/refund", post(refund))
            .with_state(books.clone());
        FakeRazorpay { base: serve(router).await, books }
    }

    fn link_of(&self, paying: &Paying) -> serde_json::Value {
        let id = paying.checkout.url().rsplit('/').next().unwrap().to_string();
        self.books.lock().unwrap().links.get(&id).cloned().expect("a payment link")
    }

    /// A `payment_link.<event>` webhook about `link`, paid by `payment_id`.
    fn event(event: &str, link: &serde_json::Value, payment_id: &str) -> Notification {
        let body = serde_json::json!({
            "entity": "event", "account_id": "acc_fake", "event": event,
            "contains": ["payment_link", "payment"],
            "payload": {
                "payment_link": {"entity": link},
                "payment": {"entity": {
                    "id": payment_id, "entity": "payment", "amount": link["amount_paid"],
                    "currency": link["currency"], "status": "captured",
                }},
            },
            "created_at": 1_800_000_000,
        })
        .to_string();
        let signature = wayfare_http::payments::gateways::razorpay::webhook_signature(body.as_bytes(), WEBHOOK_SECRET);
        Notification::json(body).with_header("X-Razorpay-Signature", signature)
    }
}

#[async_trait]
impl Fake for FakeRazorpay {
    fn gateway(&self) -> &'static str {
        "razorpay"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("KEY_ID", KEY_ID.into()),
            ("KEY_SECRET", KEY_SECRET.into()),
            ("webhook_secret", WEBHOOK_SECRET.into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let link = self.link_of(paying);
        let id = link["id"].as_str().unwrap().to_string();
        let payment_id = format!("pay_{id}");
        let paid = {
            let mut books = self.books.lock().unwrap();
            let stored = books.links.get_mut(&id).unwrap();
            stored["status"] = "paid".into();
            stored["amount_paid"] = stored["amount"].clone();
            stored["payments"] =
                serde_json::json!([{"payment_id": payment_id, "status": "captured", "amount": stored["amount"]}]);
            stored.clone()
        };
        FakeRazorpay::event("payment_link.paid", &paid, &payment_id)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let mut link = self.link_of(paying);
        link["status"] = "paid".into();
        link["amount_paid"] = minor.into();
        link["currency"] = currency.into();
        FakeRazorpay::event("payment_link.paid", &link, &format!("pay_other_{minor}_{currency}"))
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let forged =
            wayfare_http::payments::gateways::razorpay::webhook_signature(notification.body.as_bytes(), KEY_SECRET);
        notification.clone().without_header("X-Razorpay-Signature").with_header("X-Razorpay-Signature", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("X-Razorpay-Signature")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let mut link = self.link_of(paying);
        link["status"] = "expired".into();
        FakeRazorpay::event("payment_link.expired", &link, "pay_none")
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let link = serde_json::json!({
            "id": "plink_stranger", "status": "paid", "amount": 1000, "amount_paid": 1000, "currency": "INR",
            "reference_id": uuid::Uuid::now_v7().to_string(),
        });
        FakeRazorpay::event("payment_link.paid", &link, "pay_stranger")
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeRazorpay::start(), "INR", "USD");
