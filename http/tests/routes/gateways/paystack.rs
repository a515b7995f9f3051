//! A fake Paystack: `POST /transaction/initialize`, `GET
//! /transaction/verify/{reference}`, `POST /refund` (Bearer secret key,
//! amounts in the lowest unit), and `charge.success` webhooks signed as
//! Paystack signs them (`x-paystack-signature`, hex HMAC-SHA512 of the body
//! with the secret key).

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use std::collections::HashMap;
use std::sync::Mutex;

const SECRET_KEY: &str = "sk_test_paystack_fake";
/// The currencies Paystack settles.
const CURRENCIES: [&str; 5] = ["NGN", "GHS", "ZAR", "KES", "USD"];

#[derive(Default)]
struct Books {
    /// Transactions by reference, as verify answers them.
    transactions: HashMap<String, serde_json::Value>,
    /// Refunds: (transaction reference, lowest units).
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;
type Answer = (StatusCode, axum::Json<serde_json::Value>);

#[derive(Clone)]
pub struct FakePaystack {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {SECRET_KEY}"))
}

fn refused(status: StatusCode, message: &str) -> Answer {
    (status, axum::Json(serde_json::json!({"status": false, "message": message})))
}

/// An amount Paystack takes: whole lowest units, as a string or a number.
fn lowest_units(value: &serde_json::Value) -> Option<i64> {
    match value {
        serde_json::Value::String(text) if text.chars().all(|c| c.is_ascii_digit()) => text.parse().ok(),
        serde_json::Value::Number(number) => number.as_i64(),
        _ => None,
    }
    .filter(|amount| *amount > 0)
}

async fn initialize(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid key");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = lowest_units(&request["amount"]) else {
        return refused(StatusCode::BAD_REQUEST, "Invalid amount");
    };
    let email = request["email"].as_str().unwrap_or_default();
    let currency = request["currency"].as_str().unwrap_or_default();
    let reference = request["reference"].as_str().unwrap_or_default();
    if !email.contains('@') || !CURRENCIES.contains(&currency) || reference.is_empty() {
        return refused(StatusCode::BAD_REQUEST, "email, currency or reference");
    }
    if !request["callback_url"].as_str().unwrap_or_default().starts_with("https://") {
        return refused(StatusCode::BAD_REQUEST, "callback_url");
    }
    let mut books = books.lock().unwrap();
    if books.transactions.contains_key(reference) {
        return refused(StatusCode::BAD_REQUEST, "Duplicate Transaction Reference");
    }
    let id = 1_000 + books.transactions.len() as i64;
    let access_code = format!("access_{id}");
    books.transactions.insert(
        reference.to_string(),
        serde_json::json!({"id": id, "status": "abandoned", "reference": reference, "amount": amount, "currency": currency}),
    );
    let answer = serde_json::json!({
        "status": true, "message": "Authorization URL created",
        "data": {"authorization_url": format!("https://checkout.paystack.test/{access_code}"), "access_code": access_code, "reference": reference},
    });
    (StatusCode::OK, axum::Json(answer))
}

async fn verify(State(books): State<Shared>, Path(reference): Path<String>, headers: HeaderMap) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid key");
    }
    match books.lock().unwrap().transactions.get(&reference) {
        Some(transaction) => (
            StatusCode::OK,
            axum::Json(serde_json::json!({"status": true, "message": "Verification successful", "data": transaction})),
        ),
        None => refused(StatusCode::BAD_REQUEST, "Transaction reference not found"),
    }
}

async fn refund(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid key");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = lowest_units(&request["amount"]) else {
        return refused(StatusCode::BAD_REQUEST, "Invalid amount");
    };
    let key = request["transaction"].as_str().unwrap_or_default().to_string();
    let mut books = books.lock().unwrap();
    let Some(transaction) =
        books.transactions.get(&key).filter(|transaction| transaction["status"] == "success").cloned()
    else {
        return refused(StatusCode::NOT_FOUND, "Transaction not found");
    };
    let refunded: i64 = books.refunds.iter().filter(|(reference, _)| *reference == key).map(|(_, amount)| amount).sum();
    if refunded + amount > transaction["amount"].as_i64().unwrap() {
        return refused(StatusCode::BAD_REQUEST, "Refund amount cannot be more than the transaction amount");
    }
    books.refunds.push((key, amount));
    let answer = serde_json::json!({
        "status": true, "message": "Refund has been queued for processing",
        "data": {"id": 5_000 + books.refunds.len(), "status": "pending", "amount": amount, "currency": transaction["currency"], "transaction": transaction},
    });
    (StatusCode::OK, axum::Json(answer))
}

impl FakePaystack {
    pub async fn start() -> FakePaystack {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/transaction/initialize", post(initialize))
            .route("/transaction/verify/{reference}", get(verify))
            .route("/refund", post(refund))
            .with_state(books.clone());
        FakePaystack { base: serve(router).await, books }
    }

    fn charge_success(transaction: &serde_json::Value, key: &str) -> Notification {
        let body = serde_json::json!({"event": "charge.success", "data": transaction}).to_string();
        let signature = wayfare_http::payments::gateways::paystack::signature(body.as_bytes(), key);
        Notification::json(body).with_header("x-paystack-signature", signature)
    }

    fn transaction(&self, paying: &Paying) -> serde_json::Value {
        self.books.lock().unwrap().transactions.get(&paying.payment.id.to_string()).cloned().expect("a transaction")
    }
}

#[async_trait]
impl Fake for FakePaystack {
    fn gateway(&self) -> &'static str {
        "paystack"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("PAYSTACK_PUBLIC_KEY", "pk_test_paystack_fake".into()),
            ("PAYSTACK_SECRET_KEY", SECRET_KEY.into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        assert!(paying.checkout.url().starts_with("https://checkout.paystack.test/"), "{}", paying.checkout.url());
        let paid = {
            let mut books = self.books.lock().unwrap();
            let transaction = books.transactions.get_mut(&paying.payment.id.to_string()).expect("a transaction");
            transaction["status"] = "success".into();
            transaction.clone()
        };
        FakePaystack::charge_success(&paid, SECRET_KEY)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let mut transaction = self.transaction(paying);
        transaction["status"] = "success".into();
        transaction["amount"] = minor.into();
        transaction["currency"] = currency.into();
        transaction["id"] = format!("other_{minor}_{currency}").into();
        FakePaystack::charge_success(&transaction, SECRET_KEY)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let forged =
            wayfare_http::payments::gateways::paystack::signature(notification.body.as_bytes(), "sk_test_other");
        notification.clone().without_header("x-paystack-signature").with_header("x-paystack-signature", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("x-paystack-signature")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let transaction = self.transaction(paying);
        let body = serde_json::json!({"event": "charge.dispute.create", "data": transaction}).to_string();
        let signature = wayfare_http::payments::gateways::paystack::signature(body.as_bytes(), SECRET_KEY);
        Notification::json(body).with_header("x-paystack-signature", signature)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let transaction = serde_json::json!({
            "id": 999, "status": "success", "reference": uuid::Uuid::now_v7().to_string(), "amount": 1000, "currency": "NGN",
        });
        FakePaystack::charge_success(&transaction, SECRET_KEY)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakePaystack::start(), "NGN", "GHS");
