//! A fake Square: quick-pay payment links (`POST
//! /v2/online-checkout/payment-links`), orders and payments (`GET`), refunds
//! (`POST /v2/refunds`), and payment webhooks signed as Square signs them
//! (`x-square-hmacsha256-signature`, base64 HMAC-SHA256 of the notification
//! URL and the body).

use super::*;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use wayfare_http::payments::gateways::squareup::sign;

const ACCESS_TOKEN: &str = "EAAAEfake-sandbox-token";
const LOCATION_ID: &str = "L88917AVBK2S5";
const SIGNATURE_KEY: &str = "sq0wbs-fake-signature-key";
/// The URL the subscription posts to: the server's public URL in the tests' config.
const HOST: &str = "ride.example.com";

struct Link {
    order: String,
    price: Value,
    key: String,
}

#[derive(Default)]
struct Books {
    /// Links by id.
    links: HashMap<String, Link>,
    /// Payments by id.
    payments: HashMap<String, Value>,
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakeSquareup {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {ACCESS_TOKEN}"))
        && headers.contains_key("square-version")
}

fn error(status: StatusCode, code: &str) -> (StatusCode, Json<Value>) {
    (status, Json(json!({"errors": [{"category": "INVALID_REQUEST_ERROR", "code": code}]})))
}

fn well_formed_money(money: &Value) -> bool {
    let currency = money["currency"].as_str().unwrap_or_default();
    money["amount"].as_i64().is_some_and(|amount| amount > 0)
        && currency.len() == 3
        && currency.bytes().all(|byte| byte.is_ascii_uppercase())
}

async fn create_link(
    State(books): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    if !authorized(&headers) {
        return error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    let quick = &request["quick_pay"];
    let key = request["idempotency_key"].as_str().unwrap_or_default().to_string();
    let redirect = request["checkout_options"]["redirect_url"].as_str().unwrap_or_default();
    if key.is_empty()
        || quick["name"].as_str().is_none_or(str::is_empty)
        || quick["location_id"] != LOCATION_ID
        || !well_formed_money(&quick["price_money"])
        || !redirect.starts_with("https://")
    {
        return error(StatusCode::BAD_REQUEST, "INVALID_VALUE");
    }
    let mut books = books.lock().unwrap();
    let existing = books.links.iter().find(|(_, link)| link.key == key).map(|(id, _)| id.clone());
    let id = existing.unwrap_or_else(|| {
        let id = format!("FWT463MU2JIG7S{:02}", books.links.len() + 1);
        let order = format!("C0DMgui6YFmgyURVSRtxr4EShh{:02}", books.links.len() + 1);
        books.links.insert(id.clone(), Link { order, price: quick["price_money"].clone(), key });
        id
    });
    let link = &books.links[&id];
    (
        StatusCode::OK,
        Json(json!({
            "payment_link": {"id": id, "version": 1, "order_id": link.order, "url": format!("https://sandbox.square.link/u/{id}")},
            "related_resources": {"orders": [{"id": link.order, "location_id": LOCATION_ID, "state": "DRAFT"}]},
        })),
    )
}

async fn order(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> (StatusCode, Json<Value>) {
    let books = books.lock().unwrap();
    let Some(link) = books.links.values().find(|link| link.order == id).filter(|_| authorized(&headers)) else {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND");
    };
    let tenders: Vec<Value> = books
        .payments
        .values()
        .filter(|payment| payment["order_id"] == id)
        .map(|payment| json!({"id": payment["id"], "payment_id": payment["id"], "amount_money": payment["amount_money"], "type": "CARD"}))
        .collect();
    let state = if tenders.is_empty() { "DRAFT" } else { "OPEN" };
    (
        StatusCode::OK,
        Json(
            json!({"order": {"id": id, "location_id": LOCATION_ID, "state": state, "total_money": link.price, "tenders": tenders}}),
        ),
    )
}

async fn payment(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> (StatusCode, Json<Value>) {
    let books = books.lock().unwrap();
    match books.payments.get(&id) {
        Some(payment) if authorized(&headers) => (StatusCode::OK, Json(json!({"payment": payment}))),
        _ => error(StatusCode::NOT_FOUND, "NOT_FOUND"),
    }
}

async fn refund(
    State(books): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let mut books = books.lock().unwrap();
    let payment_id = request["payment_id"].as_str().unwrap_or_default().to_string();
    if !authorized(&headers)
        || request["idempotency_key"].as_str().is_none_or(str::is_empty)
        || !books.payments.contains_key(&payment_id)
        || !well_formed_money(&request["amount_money"])
    {
        return error(StatusCode::BAD_REQUEST, "INVALID_VALUE");
    }
    books.refunds.push((payment_id.clone(), request["amount_money"]["amount"].as_i64().unwrap()));
    let id = format!("{payment_id}_refund{}", books.refunds.len());
    (
        StatusCode::OK,
        Json(
            json!({"refund": {"id": id, "status": "PENDING", "payment_id": payment_id, "amount_money": request["amount_money"]}}),
        ),
    )
}

impl FakeSquareup {
    pub async fn start() -> FakeSquareup {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v2/online-checkout/payment-links", post(create_link))
            .route("/v2/orders/{id}", get(order))
            .route("/v2/payments/{id}", get(payment))
            .route("/v2/refunds", post(refund))
            .with_state(books.clone());
        FakeSquareup { base: serve(router).await, books }
    }

    fn order_of(&self, paying: &Paying) -> String {
        let link = paying.checkout.url().rsplit('/').next().unwrap().to_string();
        self.books.lock().unwrap().links[&link].order.clone()
    }

    /// A payment webhook, posted to the server's public URL and signed with `key`.
    fn event(&self, payment: &Value, event_type: &str, key: &str) -> Notification {
        let body = json!({
            "merchant_id": "MLEFBHHSJGVHD", "type": event_type,
            "event_id": format!("evt-{}-{}", payment["id"].as_str().unwrap(), payment["status"].as_str().unwrap()),
            "created_at": "2026-01-01T10:00:00Z",
            "data": {"type": "payment", "id": payment["id"], "object": {"payment": payment}},
        })
        .to_string();
        let url = format!("https://{HOST}/api/v1/payments/squareup/webhook");
        let signature = sign(&url, body.as_bytes(), key);
        Notification::json(body).with_header("host", HOST).with_header("x-square-hmacsha256-signature", signature)
    }
}

fn payment_json(id: &str, order: &str, status: &str, minor: i64, currency: &str) -> Value {
    json!({
        "id": id, "order_id": order, "status": status, "location_id": LOCATION_ID, "source_type": "CARD",
        "amount_money": {"amount": minor, "currency": currency}, "total_money": {"amount": minor, "currency": currency},
    })
}

#[async_trait]
impl Fake for FakeSquareup {
    fn gateway(&self) -> &'static str {
        "squareup"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("APPLICATION_ID", "sandbox-sq0idb-fake".into()),
            ("LOCATION_ID", LOCATION_ID.into()),
            ("ACCESS_TOKEN", ACCESS_TOKEN.into()),
            ("webhook_secret", SIGNATURE_KEY.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let order = self.order_of(paying);
        let payment = {
            let mut books = self.books.lock().unwrap();
            let price = books.links.values().find(|link| link.order == order).unwrap().price.clone();
            let id = format!("KkAkhdMsgzn59SM8A89Wg{order}");
            let payment = payment_json(
                &id,
                &order,
                "COMPLETED",
                price["amount"].as_i64().unwrap(),
                price["currency"].as_str().unwrap(),
            );
            books.payments.insert(id, payment.clone());
            payment
        };
        self.event(&payment, "payment.updated", SIGNATURE_KEY)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let order = self.order_of(paying);
        let payment = payment_json(&format!("other-{order}-{minor}-{currency}"), &order, "COMPLETED", minor, currency);
        self.event(&payment, "payment.updated", SIGNATURE_KEY)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let url = format!("https://{HOST}/api/v1/payments/squareup/webhook");
        let forged = sign(&url, notification.body.as_bytes(), "sq0wbs-someone-else");
        notification
            .clone()
            .without_header("x-square-hmacsha256-signature")
            .with_header("x-square-hmacsha256-signature", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("x-square-hmacsha256-signature")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let order = self.order_of(paying);
        let payment = payment_json(
            &format!("approved-{order}"),
            &order,
            "APPROVED",
            minor(&paying.payment),
            &paying.payment.currency,
        );
        self.event(&payment, "payment.created", SIGNATURE_KEY)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let payment = payment_json("stranger-payment", "order-never-made", "COMPLETED", 1000, "USD");
        self.event(&payment, "payment.updated", SIGNATURE_KEY)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeSquareup::start(), "USD", "CAD");
