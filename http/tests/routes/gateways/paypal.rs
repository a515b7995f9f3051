//! A fake PayPal: OAuth2 tokens (`POST /v1/oauth2/token`, basic auth),
//! Orders v2 (create, get, capture), capture refunds, and the
//! verify-webhook-signature call. Its notifications carry transmission
//! headers whose signature only the fake can check (PayPal signs with its
//! certificate; the server never checks it itself, it asks PayPal).

use super::*;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;

const CLIENT_ID: &str = "AZfake-client";
const SECRET: &str = "EFfake-secret";
const ACCESS_TOKEN: &str = "A21AAfake-token";
const WEBHOOK_ID: &str = "8PT597110X687430LKGECATA";
/// What the fake signs transmissions with (PayPal's private key, here).
const SIGNING_KEY: &[u8] = b"paypal-fake-signing-key";

struct FakeOrder {
    request: Value,
    status: &'static str,
    capture: Option<Value>,
}

#[derive(Default)]
struct Books {
    orders: HashMap<String, FakeOrder>,
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakePayPal {
    base: String,
    books: Shared,
}

fn bearer(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {ACCESS_TOKEN}"))
}

fn refused(status: StatusCode, issue: &str) -> (StatusCode, Json<Value>) {
    (status, Json(json!({"name": "INVALID_REQUEST", "details": [{"issue": issue}]})))
}

/// PayPal's amount: a string with the currency's decimals (two here).
fn well_formed_amount(amount: &Value) -> bool {
    let value = amount["value"].as_str().unwrap_or_default();
    let currency = amount["currency_code"].as_str().unwrap_or_default();
    let parts: Vec<&str> = value.split('.').collect();
    parts.len() == 2
        && !parts[0].is_empty()
        && parts[0].bytes().all(|byte| byte.is_ascii_digit())
        && parts[1].len() == 2
        && parts[1].bytes().all(|byte| byte.is_ascii_digit())
        && currency.len() == 3
        && currency.bytes().all(|byte| byte.is_ascii_uppercase())
}

fn major(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

fn minor_of(value: &str) -> i64 {
    let (whole, cents) = value.split_once('.').unwrap();
    whole.parse::<i64>().unwrap() * 100 + cents.parse::<i64>().unwrap()
}

fn order_json(id: &str, order: &FakeOrder) -> Value {
    let mut unit = order.request["purchase_units"][0].clone();
    if let Some(capture) = &order.capture {
        unit["payments"] = json!({"captures": [capture]});
    }
    json!({
        "id": id, "intent": "CAPTURE", "status": order.status, "purchase_units": [unit],
        "links": [
            {"href": format!("https://www.sandbox.paypal.com/checkoutnow?token={id}"), "rel": "approve", "method": "GET"},
            {"href": format!("https://api-m.sandbox.paypal.com/v2/checkout/orders/{id}"), "rel": "self", "method": "GET"},
        ],
    })
}

/// A transmission signature: over the transmission id, its time, the
/// webhook id and a digest of the event (as PayPal's scheme is laid out).
fn transmission_sig(key: &[u8], transmission_id: &str, time: &str, event: &Value) -> String {
    let digest = wayfare_http::payments::gateway::hmac_sha256_hex(b"digest", event.to_string().as_bytes());
    let message = format!("{transmission_id}|{time}|{WEBHOOK_ID}|{digest}");
    wayfare_http::payments::gateway::hmac_sha256_base64(key, message.as_bytes())
}

async fn token(headers: HeaderMap, body: String) -> (StatusCode, Json<Value>) {
    let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{CLIENT_ID}:{SECRET}")));
    let authorized = headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(basic.as_str());
    if !authorized || form_fields(&body) != vec![("grant_type".to_string(), "client_credentials".to_string())] {
        return (StatusCode::UNAUTHORIZED, Json(json!({"error": "invalid_client"})));
    }
    (StatusCode::OK, Json(json!({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 32400})))
}

async fn create(
    State(books): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    if !bearer(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "AUTHENTICATION_FAILURE");
    }
    let unit = &request["purchase_units"][0];
    let context = &request["application_context"];
    let https = |field: &str| context[field].as_str().is_some_and(|url| url.starts_with("https://"));
    if request["intent"] != "CAPTURE"
        || !well_formed_amount(&unit["amount"])
        || unit["custom_id"].as_str().is_none_or(|id| id.parse::<uuid::Uuid>().is_err())
        || !https("return_url")
        || !https("cancel_url")
        || headers.get("paypal-request-id").is_none()
    {
        return refused(StatusCode::UNPROCESSABLE_ENTITY, "INVALID_PARAMETER_VALUE");
    }
    let mut books = books.lock().unwrap();
    let id = format!("5O190127TN3647{:02}T", books.orders.len() + 1);
    let order = FakeOrder { request, status: "CREATED", capture: None };
    let answer = order_json(&id, &order);
    books.orders.insert(id, order);
    (StatusCode::OK, Json(answer))
}

async fn read(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> (StatusCode, Json<Value>) {
    let books = books.lock().unwrap();
    match books.orders.get(&id) {
        Some(order) if bearer(&headers) => (StatusCode::OK, Json(order_json(&id, order))),
        _ => refused(StatusCode::NOT_FOUND, "RESOURCE_NOT_FOUND"),
    }
}

async fn capture(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> (StatusCode, Json<Value>) {
    let mut books = books.lock().unwrap();
    let Some(order) = books.orders.get_mut(&id).filter(|_| bearer(&headers)) else {
        return refused(StatusCode::NOT_FOUND, "RESOURCE_NOT_FOUND");
    };
    match order.status {
        "APPROVED" => {
            let unit = &order.request["purchase_units"][0];
            order.capture = Some(json!({
                "id": format!("CAP-{id}"), "status": "COMPLETED", "amount": unit["amount"], "custom_id": unit["custom_id"],
                "invoice_id": unit["invoice_id"],
            }));
            order.status = "COMPLETED";
            (StatusCode::CREATED, Json(order_json(&id, order)))
        }
        "COMPLETED" => refused(StatusCode::UNPROCESSABLE_ENTITY, "ORDER_ALREADY_CAPTURED"),
        _ => refused(StatusCode::UNPROCESSABLE_ENTITY, "ORDER_NOT_APPROVED"),
    }
}

async fn verify(headers: HeaderMap, Json(request): Json<Value>) -> (StatusCode, Json<Value>) {
    if !bearer(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "AUTHENTICATION_FAILURE");
    }
    let text = |field: &str| request[field].as_str().unwrap_or_default().to_string();
    let required = ["auth_algo", "cert_url", "transmission_id", "transmission_sig", "transmission_time", "webhook_id"];
    if required.iter().any(|field| text(field).is_empty()) || !request["webhook_event"].is_object() {
        return refused(StatusCode::BAD_REQUEST, "MISSING_REQUIRED_PARAMETER");
    }
    let expected =
        transmission_sig(SIGNING_KEY, &text("transmission_id"), &text("transmission_time"), &request["webhook_event"]);
    let genuine = text("webhook_id") == WEBHOOK_ID && text("transmission_sig") == expected;
    (StatusCode::OK, Json(json!({"verification_status": if genuine { "SUCCESS" } else { "FAILURE" }})))
}

async fn refund(
    State(books): State<Shared>,
    Path(capture_id): Path<String>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let mut books = books.lock().unwrap();
    let known =
        books.orders.values().any(|order| order.capture.as_ref().is_some_and(|capture| capture["id"] == capture_id));
    if !bearer(&headers)
        || !known
        || headers.get("paypal-request-id").is_none()
        || !well_formed_amount(&request["amount"])
    {
        return refused(StatusCode::UNPROCESSABLE_ENTITY, "INVALID_REQUEST");
    }
    books.refunds.push((capture_id, minor_of(request["amount"]["value"].as_str().unwrap())));
    let id = format!("1JU08902781691{:03}", books.refunds.len());
    (StatusCode::CREATED, Json(json!({"id": id, "status": "COMPLETED"})))
}

impl FakePayPal {
    pub async fn start() -> FakePayPal {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v1/oauth2/token", post(token))
            .route("/v2/checkout/orders", post(create))
            .route("/v2/checkout/orders/{id}", get(read))
            .route("/v2/checkout/orders/{id}/capture", post(capture))
            .route("/v1/notifications/verify-webhook-signature", post(verify))
            .route("/v2/payments/captures/{id}/refund", post(refund))
            .with_state(books.clone());
        FakePayPal { base: serve(router).await, books }
    }

    fn order_of(paying: &Paying) -> String {
        paying.checkout.field("token").expect("the approve link names the order")
    }

    /// An event as PayPal posts it, with its transmission headers.
    fn event(&self, key: &[u8], event_type: &str, resource: Value, id: &str) -> Notification {
        let event = json!({
            "id": id, "event_version": "1.0", "create_time": "2026-01-01T10:00:00Z", "resource_type": "checkout-order",
            "event_type": event_type, "summary": event_type, "resource": resource,
        });
        let transmission_id = format!("tx-{id}");
        let time = "2026-01-01T10:00:01Z";
        let signature = transmission_sig(key, &transmission_id, time, &event);
        Notification::json(event.to_string())
            .with_header("PAYPAL-AUTH-ALGO", "SHA256withRSA")
            .with_header("PAYPAL-CERT-URL", "https://api.sandbox.paypal.com/v1/notifications/certs/CERT-fake")
            .with_header("PAYPAL-TRANSMISSION-ID", transmission_id)
            .with_header("PAYPAL-TRANSMISSION-SIG", signature)
            .with_header("PAYPAL-TRANSMISSION-TIME", time)
    }

    fn capture_event(&self, order: &str, custom_id: &str, minor: i64, currency: &str) -> Notification {
        let capture = json!({
            "id": format!("CAP-{order}-{minor}-{currency}"), "status": "COMPLETED", "custom_id": custom_id,
            "amount": {"value": major(minor), "currency_code": currency},
            "supplementary_data": {"related_ids": {"order_id": order}},
        });
        self.event(SIGNING_KEY, "PAYMENT.CAPTURE.COMPLETED", capture, &format!("WH-{order}-{minor}-{currency}"))
    }
}

#[async_trait]
impl Fake for FakePayPal {
    fn gateway(&self) -> &'static str {
        "paypal"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("paypal_client_id", CLIENT_ID.into()),
            ("paypal_secret", SECRET.into()),
            ("webhook_id", WEBHOOK_ID.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let id = FakePayPal::order_of(paying);
        let resource = {
            let mut books = self.books.lock().unwrap();
            let order = books.orders.get_mut(&id).expect("an order");
            order.status = "APPROVED";
            order_json(&id, order)
        };
        self.event(SIGNING_KEY, "CHECKOUT.ORDER.APPROVED", resource, &format!("WH-{id}-approved"))
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.capture_event(&FakePayPal::order_of(paying), &paying.payment.id.to_string(), minor, currency)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let event: Value = serde_json::from_str(&notification.body).unwrap();
        let header = |name: &str| notification.headers.iter().find(|(key, _)| key == name).unwrap().1.clone();
        let forged = transmission_sig(
            b"someone-else",
            &header("PAYPAL-TRANSMISSION-ID"),
            &header("PAYPAL-TRANSMISSION-TIME"),
            &event,
        );
        notification.clone().without_header("PAYPAL-TRANSMISSION-SIG").with_header("PAYPAL-TRANSMISSION-SIG", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("PAYPAL-TRANSMISSION-SIG")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        // Approved is what PayPal says only once the payer did; here it has not.
        let id = FakePayPal::order_of(paying);
        let resource = {
            let books = self.books.lock().unwrap();
            order_json(&id, books.orders.get(&id).expect("an order"))
        };
        self.event(SIGNING_KEY, "CHECKOUT.ORDER.APPROVED", resource, &format!("WH-{id}-early"))
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.capture_event("9XX00000000000000", &uuid::Uuid::now_v7().to_string(), 1000, "USD")
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakePayPal::start(), "USD", "EUR");
