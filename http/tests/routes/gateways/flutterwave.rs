//! A fake Flutterwave: `POST /v3/payments`, `GET
//! /v3/transactions/{id}/verify`, `GET /v3/transactions/verify_by_reference`,
//! `POST /v3/transactions/{id}/refund` (Bearer secret key, amounts in major
//! units), and `charge.completed` webhooks carrying the dashboard's secret
//! hash as `verif-hash`.

use super::*;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use std::collections::HashMap;
use std::sync::Mutex;

const SECRET_KEY: &str = "FLWSECK_TEST-fake";
const SECRET_HASH: &str = "flw-secret-hash";

#[derive(Default)]
struct Books {
    /// Transactions by id, as verify answers them.
    transactions: HashMap<i64, serde_json::Value>,
    /// Checkouts started: tx_ref → (amount, currency).
    checkouts: HashMap<String, (Decimal, String)>,
    /// Refunds: (transaction id, minor units).
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;
type Answer = (StatusCode, axum::Json<serde_json::Value>);

#[derive(Clone)]
pub struct FakeFlutterwave {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {SECRET_KEY}"))
}

fn refused(status: StatusCode, message: &str) -> Answer {
    (status, axum::Json(serde_json::json!({"status": "error", "message": message, "data": null})))
}

fn found(data: serde_json::Value) -> Answer {
    (
        StatusCode::OK,
        axum::Json(
            serde_json::json!({"status": "success", "message": "Transaction fetched successfully", "data": data}),
        ),
    )
}

/// A positive amount in major units with at most two decimals, as a number.
fn major(value: &serde_json::Value) -> Option<Decimal> {
    let amount: Decimal = value.as_number()?.to_string().parse().ok()?;
    (amount > Decimal::ZERO && amount.round_dp(2) == amount).then_some(amount)
}

async fn payments(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid authorization key");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = major(&request["amount"]) else { return refused(StatusCode::BAD_REQUEST, "amount") };
    let tx_ref = request["tx_ref"].as_str().unwrap_or_default();
    let currency = request["currency"].as_str().unwrap_or_default();
    let redirect = request["redirect_url"].as_str().unwrap_or_default();
    if tx_ref.is_empty() || currency.len() != 3 || !redirect.starts_with("https://") {
        return refused(StatusCode::BAD_REQUEST, "tx_ref, currency or redirect_url");
    }
    if !request["customer"]["email"].as_str().unwrap_or_default().contains('@') {
        return refused(StatusCode::BAD_REQUEST, "customer.email is required");
    }
    books.lock().unwrap().checkouts.insert(tx_ref.to_string(), (amount, currency.to_string()));
    let link = format!("https://checkout.flutterwave.test/v3/hosted/pay/{tx_ref}");
    (
        StatusCode::OK,
        axum::Json(serde_json::json!({"status": "success", "message": "Hosted Link", "data": {"link": link}})),
    )
}

async fn verify(State(books): State<Shared>, Path(id): Path<i64>, headers: HeaderMap) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid authorization key");
    }
    match books.lock().unwrap().transactions.get(&id) {
        Some(transaction) => found(transaction.clone()),
        None => refused(StatusCode::BAD_REQUEST, "No transaction was found for this id"),
    }
}

async fn verify_by_reference(
    State(books): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid authorization key");
    }
    let tx_ref = query.get("tx_ref").cloned().unwrap_or_default();
    let books = books.lock().unwrap();
    match books.transactions.values().find(|transaction| transaction["tx_ref"] == tx_ref.as_str()) {
        Some(transaction) => found(transaction.clone()),
        None => refused(StatusCode::BAD_REQUEST, "No transaction was found for this tx_ref"),
    }
}

async fn refund(State(books): State<Shared>, Path(id): Path<i64>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid authorization key");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = major(&request["amount"]) else { return refused(StatusCode::BAD_REQUEST, "amount") };
    let mut books = books.lock().unwrap();
    let Some(paid) = books.transactions.get(&id).filter(|transaction| transaction["status"] == "successful").cloned()
    else {
        return refused(StatusCode::BAD_REQUEST, "Transaction not found");
    };
    let minor = i64::try_from((amount * Decimal::ONE_HUNDRED).trunc()).unwrap();
    let refunded: i64 = books.refunds.iter().filter(|(key, _)| *key == id.to_string()).map(|(_, amount)| amount).sum();
    let paid_minor = i64::try_from((major(&paid["amount"]).unwrap() * Decimal::ONE_HUNDRED).trunc()).unwrap();
    if refunded + minor > paid_minor {
        return refused(StatusCode::BAD_REQUEST, "Refund amount exceeds the transaction amount");
    }
    books.refunds.push((id.to_string(), minor));
    let refund = serde_json::json!({"id": 7_000 + books.refunds.len(), "tx_id": id, "amount_refunded": minor as f64 / 100.0, "status": "completed"});
    (
        StatusCode::OK,
        axum::Json(serde_json::json!({"status": "success", "message": "Transaction refund initiated", "data": refund})),
    )
}

impl FakeFlutterwave {
    pub async fn start() -> FakeFlutterwave {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v3/payments", post(payments))
            .route("/v3/transactions/{id}/verify", get(verify))
            .route("/v3/transactions/verify_by_reference", get(verify_by_reference))
            .route("/v3/transactions/{id}/refund", post(refund))
            .with_state(books.clone());
        FakeFlutterwave { base: serve(router).await, books }
    }

    /// A transaction at Flutterwave for `tx_ref`, and its webhook.
    fn transact(&self, tx_ref: &str, amount: Decimal, currency: &str, status: &str) -> Notification {
        let transaction = {
            let mut books = self.books.lock().unwrap();
            let id = 288_200_000 + books.transactions.len() as i64;
            let transaction = serde_json::json!({
                "id": id, "tx_ref": tx_ref, "flw_ref": format!("FLW-MOCK-{id}"), "status": status,
                "amount": amount.normalize().to_string().parse::<f64>().unwrap(), "currency": currency,
            });
            books.transactions.insert(id, transaction.clone());
            transaction
        };
        let body = serde_json::json!({"event": "charge.completed", "data": transaction}).to_string();
        Notification::json(body).with_header("verif-hash", SECRET_HASH)
    }

    fn checkout_of(&self, paying: &Paying) -> (Decimal, String) {
        assert!(paying.checkout.url().starts_with("https://checkout.flutterwave.test/"), "{}", paying.checkout.url());
        self.books.lock().unwrap().checkouts.get(&paying.payment.id.to_string()).cloned().expect("a checkout")
    }
}

#[async_trait]
impl Fake for FakeFlutterwave {
    fn gateway(&self) -> &'static str {
        "flutterwave"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("FLUTTERWAVE_PUBLIC_KEY", "FLWPUBK_TEST-fake".into()),
            ("FLUTTERWAVE_SECRET_KEY", SECRET_KEY.into()),
            ("webhook_secret", SECRET_HASH.into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let (amount, currency) = self.checkout_of(paying);
        self.transact(&paying.payment.id.to_string(), amount, &currency, "successful")
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.checkout_of(paying);
        self.transact(&paying.payment.id.to_string(), Decimal::new(minor, 2), currency, "successful")
    }

    fn forge(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("verif-hash").with_header("verif-hash", "flw-guessed-hash")
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("verif-hash")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let (amount, currency) = self.checkout_of(paying);
        self.transact(&paying.payment.id.to_string(), amount, &currency, "failed")
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.transact(&uuid::Uuid::now_v7().to_string(), Decimal::new(10, 0), "NGN", "successful")
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeFlutterwave::start(), "NGN", "USD");
