//! A fake Mercado Pago: Checkout Pro preferences (`POST
//! /checkout/preferences`), payments (`GET /v1/payments/{id}`, `GET
//! /v1/payments/search`), refunds (`POST /v1/payments/{id}/refunds`), and
//! notifications signed as Mercado Pago signs them (`x-signature: ts=…,v1=…`
//! over `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`).

use super::*;
use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use wayfare_http::payments::gateway::hmac_sha256_hex;
use wayfare_http::payments::gateways::mercadopago::manifest;

const ACCESS_TOKEN: &str = "TEST-1234567890-fake-access-token";
const WEBHOOK_SECRET: &str = "mp-fake-webhook-secret";

#[derive(Default)]
struct Books {
    /// Preferences by id.
    preferences: HashMap<String, Value>,
    /// Payments by id.
    payments: HashMap<u64, Value>,
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakeMercadoPago {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {ACCESS_TOKEN}"))
}

fn refused(status: StatusCode, message: &str) -> (StatusCode, Json<Value>) {
    (status, Json(json!({"message": message, "error": "bad_request", "status": status.as_u16()})))
}

/// A price as Mercado Pago takes it: a positive number with at most two decimals.
fn cents(value: &Value) -> Option<i64> {
    let number = value.as_f64().filter(|number| *number > 0.0)?;
    let cents = (number * 100.0).round();
    ((number * 100.0 - cents).abs() < 1e-6).then_some(cents as i64)
}

async fn preference(
    State(books): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let item = &request["items"][0];
    let https = |url: &Value| url.as_str().is_some_and(|url| url.starts_with("https://"));
    let currency = item["currency_id"].as_str().unwrap_or_default();
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "invalid access token");
    }
    if cents(&item["unit_price"]).is_none()
        || item["quantity"] != 1
        || currency.len() != 3
        || request["external_reference"].as_str().is_none_or(|id| id.parse::<uuid::Uuid>().is_err())
        || !https(&request["back_urls"]["success"])
        || !https(&request["notification_url"])
    {
        return refused(StatusCode::BAD_REQUEST, "invalid preference");
    }
    let mut books = books.lock().unwrap();
    let id = format!("202809963-920c288b-4ebb-40be-966f-{:012}", books.preferences.len() + 1);
    books.preferences.insert(id.clone(), request);
    (
        StatusCode::CREATED,
        Json(json!({
            "id": id,
            "init_point": format!("https://www.mercadopago.com.br/checkout/v1/redirect?pref_id={id}"),
            "sandbox_init_point": format!("https://sandbox.mercadopago.com.br/checkout/v1/redirect?pref_id={id}"),
        })),
    )
}

async fn payment(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> (StatusCode, Json<Value>) {
    let books = books.lock().unwrap();
    match id.parse::<u64>().ok().and_then(|id| books.payments.get(&id)) {
        Some(payment) if authorized(&headers) => (StatusCode::OK, Json(payment.clone())),
        _ => refused(StatusCode::NOT_FOUND, "Payment not found"),
    }
}

async fn search(
    State(books): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> (StatusCode, Json<Value>) {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "invalid access token");
    }
    let Some(reference) = query.get("external_reference") else {
        return refused(StatusCode::BAD_REQUEST, "no filter");
    };
    let books = books.lock().unwrap();
    let mut results: Vec<&Value> =
        books.payments.values().filter(|payment| payment["external_reference"] == *reference).collect();
    results.sort_by_key(|payment| std::cmp::Reverse(payment["id"].as_u64()));
    (StatusCode::OK, Json(json!({"paging": {"total": results.len(), "limit": 30, "offset": 0}, "results": results})))
}

async fn refund(
    State(books): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let mut books = books.lock().unwrap();
    let approved = id
        .parse::<u64>()
        .ok()
        .and_then(|id| books.payments.get(&id))
        .is_some_and(|payment| payment["status"] == "approved");
    let Some(amount) = cents(&request["amount"])
        .filter(|_| approved && authorized(&headers) && headers.contains_key("x-idempotency-key"))
    else {
        return refused(StatusCode::BAD_REQUEST, "invalid refund");
    };
    books.refunds.push((id.clone(), amount));
    let refund_id = 1_009_042_015 + books.refunds.len() as u64;
    (
        StatusCode::CREATED,
        Json(
            json!({"id": refund_id, "payment_id": id.parse::<u64>().unwrap(), "amount": request["amount"], "status": "approved"}),
        ),
    )
}

impl FakeMercadoPago {
    pub async fn start() -> FakeMercadoPago {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/checkout/preferences", post(preference))
            .route("/v1/payments/search", get(search))
            .route("/v1/payments/{id}", get(payment))
            .route("/v1/payments/{id}/refunds", post(refund))
            .with_state(books.clone());
        FakeMercadoPago { base: serve(router).await, books }
    }

    /// A payment at Mercado Pago for `reference`; its notification, signed with `secret`.
    fn paid(&self, reference: &str, status: &str, minor: i64, currency: &str, secret: &str) -> Notification {
        let id = {
            let mut books = self.books.lock().unwrap();
            let id = 1_316_000_000 + books.payments.len() as u64;
            books.payments.insert(
                id,
                json!({
                    "id": id, "status": status, "status_detail": if status == "approved" { "accredited" } else { "pending_contingency" },
                    "transaction_amount": minor as f64 / 100.0, "currency_id": currency, "external_reference": reference,
                }),
            );
            id
        };
        self.notification(id, secret)
    }

    fn notification(&self, id: u64, secret: &str) -> Notification {
        let request_id = format!("bb56a2f1-6aae-46ac-982e-{id:012}");
        let ts = "1742505638683";
        let signature =
            hmac_sha256_hex(secret.as_bytes(), manifest(Some(&id.to_string()), Some(&request_id), ts).as_bytes());
        let body = json!({
            "action": "payment.updated", "api_version": "v1", "data": {"id": id.to_string()},
            "date_created": "2026-01-01T10:00:00Z", "id": id + 7, "live_mode": false, "type": "payment", "user_id": "2028099",
        });
        let mut notification = Notification::json(body.to_string())
            .with_header("x-request-id", request_id)
            .with_header("x-signature", format!("ts={ts},v1={signature}"));
        notification.query = format!("data.id={id}&type=payment");
        notification
    }

    fn preference_of(&self, paying: &Paying) -> Value {
        let id = paying.checkout.field("pref_id").expect("the init point names the preference");
        self.books.lock().unwrap().preferences[&id].clone()
    }
}

#[async_trait]
impl Fake for FakeMercadoPago {
    fn gateway(&self) -> &'static str {
        "mercadopago"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("public_key", "TEST-fake-public-key".into()),
            ("access_token", ACCESS_TOKEN.into()),
            ("webhook_secret", WEBHOOK_SECRET.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        assert!(paying.checkout.url().starts_with("https://sandbox.mercadopago"), "testing goes to the sandbox");
        let preference = self.preference_of(paying);
        let item = &preference["items"][0];
        let reference = preference["external_reference"].as_str().unwrap();
        self.paid(
            reference,
            "approved",
            cents(&item["unit_price"]).unwrap(),
            item["currency_id"].as_str().unwrap(),
            WEBHOOK_SECRET,
        )
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.paid(&paying.payment.id.to_string(), "approved", minor, currency, WEBHOOK_SECRET)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let id: u64 = notification.query.trim_start_matches("data.id=").split('&').next().unwrap().parse().unwrap();
        let forged = self.notification(id, "someone-else");
        let signature = forged.headers.iter().find(|(name, _)| name == "x-signature").unwrap().1.clone();
        notification.clone().without_header("x-signature").with_header("x-signature", signature)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("x-signature")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        self.paid(
            &paying.payment.id.to_string(),
            "in_process",
            minor(&paying.payment),
            &paying.payment.currency,
            WEBHOOK_SECRET,
        )
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.paid(&uuid::Uuid::now_v7().to_string(), "approved", 1000, "BRL", WEBHOOK_SECRET)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeMercadoPago::start(), "BRL", "ARS");
