//! A fake PayMongo: Checkout Sessions (`POST /v1/checkout_sessions`, `GET
//! /v1/checkout_sessions/{id}`), refunds (`POST /v1/refunds`), basic auth
//! `<secret key>:`, amounts in centavos, and events signed as PayMongo signs
//! them (`Paymongo-Signature: t=…,te=…,li=…`).

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use base64::Engine as _;
use std::collections::HashMap;
use std::sync::Mutex;

const SECRET_KEY: &str = "sk_test_paymongo_fake";
const WEBHOOK_SECRET: &str = "whsk_paymongo_fake";

#[derive(Default)]
struct Books {
    /// Sessions by id, as PayMongo answers them (`data`).
    sessions: HashMap<String, serde_json::Value>,
    /// Refunds: (payment id, centavos).
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;
type Answer = (StatusCode, axum::Json<serde_json::Value>);

#[derive(Clone)]
pub struct FakePaymongo {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{SECRET_KEY}:")));
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(expected.as_str())
}

fn refused(status: StatusCode, detail: &str) -> Answer {
    (status, axum::Json(serde_json::json!({"errors": [{"code": "parameter_invalid", "detail": detail}]})))
}

async fn create_session(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "API key is invalid");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let attributes = &request["data"]["attributes"];
    let Some(items) = attributes["line_items"].as_array().filter(|items| !items.is_empty()) else {
        return refused(StatusCode::BAD_REQUEST, "line_items is required");
    };
    // Amounts are whole centavos.
    let well_formed = items.iter().all(|item| {
        item["amount"].as_i64().is_some_and(|amount| amount > 0)
            && item["currency"].as_str().is_some_and(|currency| currency.len() == 3)
            && item["quantity"].as_i64().is_some_and(|quantity| quantity > 0)
            && item["name"].as_str().is_some_and(|name| !name.is_empty())
    });
    if !well_formed || attributes["payment_method_types"].as_array().is_none_or(|types| types.is_empty()) {
        return refused(StatusCode::BAD_REQUEST, "line_items or payment_method_types");
    }
    let reference = attributes["reference_number"].as_str().unwrap_or_default();
    if reference.is_empty() || !attributes["success_url"].as_str().unwrap_or_default().starts_with("https://") {
        return refused(StatusCode::BAD_REQUEST, "reference_number or success_url");
    }
    let mut books = books.lock().unwrap();
    let id = format!("cs_{}", books.sessions.len() + 1);
    let session = serde_json::json!({"id": id, "type": "checkout_session", "attributes": {
        "checkout_url": format!("https://checkout.paymongo.test/{id}"), "reference_number": reference,
        "line_items": items, "status": "active", "payments": [],
        "payment_intent": {"id": format!("pi_{id}"), "type": "payment_intent", "attributes": {"status": "awaiting_payment_method"}},
    }});
    books.sessions.insert(id, session.clone());
    (StatusCode::OK, axum::Json(serde_json::json!({"data": session})))
}

async fn fetch_session(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "API key is invalid");
    }
    match books.lock().unwrap().sessions.get(&id) {
        Some(session) => (StatusCode::OK, axum::Json(serde_json::json!({"data": session}))),
        None => refused(StatusCode::NOT_FOUND, "No such checkout_session"),
    }
}

async fn refund(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "API key is invalid");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let attributes = &request["data"]["attributes"];
    let reasons = ["duplicate", "fraudulent", "requested_by_customer", "others"];
    let (Some(amount), Some(payment)) =
        (attributes["amount"].as_i64().filter(|amount| *amount > 0), attributes["payment_id"].as_str())
    else {
        return refused(StatusCode::BAD_REQUEST, "amount and payment_id are required");
    };
    if !reasons.contains(&attributes["reason"].as_str().unwrap_or_default()) {
        return refused(StatusCode::BAD_REQUEST, "reason");
    }
    let mut books = books.lock().unwrap();
    let paid = books
        .sessions
        .values()
        .filter_map(|session| session["attributes"]["payments"].as_array())
        .flatten()
        .find(|paid| paid["id"] == payment)
        .and_then(|paid| paid["attributes"]["amount"].as_i64());
    let Some(paid) = paid else { return refused(StatusCode::NOT_FOUND, "No such payment") };
    let refunded: i64 = books.refunds.iter().filter(|(id, _)| id == payment).map(|(_, amount)| amount).sum();
    if refunded + amount > paid {
        return refused(StatusCode::BAD_REQUEST, "The amount exceeds the refundable amount");
    }
    books.refunds.push((payment.to_string(), amount));
    let id = format!("ref_{}", books.refunds.len());
    let answer = serde_json::json!({"data": {"id": id, "type": "refund", "attributes": {"amount": amount, "payment_id": payment, "status": "pending"}}});
    (StatusCode::OK, axum::Json(answer))
}

impl FakePaymongo {
    pub async fn start() -> FakePaymongo {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v1/checkout_sessions", post(create_session))
            .route("/v1/checkout_sessions/{id}", get(fetch_session))
            .route("/v1/refunds", post(refund))
            .with_state(books.clone());
        FakePaymongo { base: serve(router).await, books }
    }

    fn session_id(paying: &Paying) -> String {
        paying.checkout.url().rsplit('/').next().unwrap().to_string()
    }

    /// A `checkout_session.payment.paid` event about `session`, signed in test mode.
    fn event(session: &serde_json::Value, now_secs: i64, secret: &str) -> Notification {
        let event_id = format!("evt_{}", session["attributes"]["payments"][0]["id"].as_str().unwrap_or("none"));
        let body = serde_json::json!({"data": {"id": event_id, "type": "event", "attributes": {
            "type": "checkout_session.payment.paid", "livemode": false, "data": session,
        }}})
        .to_string();
        let timestamp = now_secs.to_string();
        let te = wayfare_http::payments::gateways::paymongo::sign(body.as_bytes(), &timestamp, secret);
        Notification::json(body).with_header("Paymongo-Signature", format!("t={timestamp},te={te},li="))
    }

    fn paid_session(session: &serde_json::Value, payment_id: &str, centavos: i64, currency: &str) -> serde_json::Value {
        let mut paid = session.clone();
        paid["attributes"]["payments"] = serde_json::json!([{"id": payment_id, "type": "payment", "attributes": {
            "amount": centavos, "currency": currency, "status": "paid",
        }}]);
        paid["attributes"]["payment_intent"]["attributes"]["status"] = "succeeded".into();
        paid
    }
}

#[async_trait]
impl Fake for FakePaymongo {
    fn gateway(&self) -> &'static str {
        "paymongo"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("public_key", "pk_test_paymongo_fake".into()),
            ("secret_key", SECRET_KEY.into()),
            ("webhook_secret", WEBHOOK_SECRET.into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let id = FakePaymongo::session_id(paying);
        let paid = {
            let mut books = self.books.lock().unwrap();
            let session = books.sessions.get_mut(&id).expect("a session");
            let item = session["attributes"]["line_items"][0].clone();
            let paid = FakePaymongo::paid_session(
                session,
                &format!("pay_{id}"),
                item["amount"].as_i64().unwrap(),
                item["currency"].as_str().unwrap(),
            );
            *session = paid.clone();
            paid
        };
        FakePaymongo::event(&paid, paying.now_secs, WEBHOOK_SECRET)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let id = FakePaymongo::session_id(paying);
        let session = self.books.lock().unwrap().sessions.get(&id).cloned().expect("a session");
        let paid = FakePaymongo::paid_session(&session, &format!("pay_other_{minor}_{currency}"), minor, currency);
        FakePaymongo::event(&paid, paying.now_secs, WEBHOOK_SECRET)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let signed = notification.headers.iter().find(|(name, _)| name == "Paymongo-Signature").unwrap().1.clone();
        let timestamp = signed.trim_start_matches("t=").split(',').next().unwrap().to_string();
        let te =
            wayfare_http::payments::gateways::paymongo::sign(notification.body.as_bytes(), &timestamp, "whsk_other");
        notification
            .clone()
            .without_header("Paymongo-Signature")
            .with_header("Paymongo-Signature", format!("t={timestamp},te={te},li="))
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("Paymongo-Signature")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let id = FakePaymongo::session_id(paying);
        let session = self.books.lock().unwrap().sessions.get(&id).cloned().expect("a session");
        let body = serde_json::json!({"data": {"id": "evt_unpaid", "type": "event", "attributes": {
            "type": "payment.failed", "livemode": false, "data": session,
        }}})
        .to_string();
        let timestamp = paying.now_secs.to_string();
        let te = wayfare_http::payments::gateways::paymongo::sign(body.as_bytes(), &timestamp, WEBHOOK_SECRET);
        Notification::json(body).with_header("Paymongo-Signature", format!("t={timestamp},te={te},li="))
    }

    async fn stranger(&self, now_secs: i64) -> Notification {
        let session = serde_json::json!({"id": "cs_stranger", "type": "checkout_session", "attributes": {
            "reference_number": uuid::Uuid::now_v7().to_string(), "payments": [],
        }});
        let paid = FakePaymongo::paid_session(&session, "pay_stranger", 10_000, "PHP");
        FakePaymongo::event(&paid, now_secs, WEBHOOK_SECRET)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakePaymongo::start(), "PHP", "USD");
