//! A fake Xendit: Invoices (`POST /v2/invoices`, `GET /v2/invoices/{id}`),
//! refunds (`POST /refunds`, with an `Idempotency-key`), basic auth `<secret
//! key>:`, amounts in major units, and invoice callbacks carrying the
//! account's verification token as `x-callback-token`.

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use base64::Engine as _;
use std::collections::HashMap;
use std::sync::Mutex;

const SECRET_KEY: &str = "xnd_development_fake";
const CALLBACK_TOKEN: &str = "xendit-callback-token";

#[derive(Default)]
struct Books {
    /// Invoices by id, as Xendit answers them.
    invoices: HashMap<String, serde_json::Value>,
    /// Refunds: (invoice id, idempotency key, minor units).
    refunds: Vec<(String, String, i64)>,
}

type Shared = Arc<Mutex<Books>>;
type Answer = (StatusCode, axum::Json<serde_json::Value>);

#[derive(Clone)]
pub struct FakeXendit {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{SECRET_KEY}:")));
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(expected.as_str())
}

fn refused(status: StatusCode, error_code: &str, message: &str) -> Answer {
    (status, axum::Json(serde_json::json!({"error_code": error_code, "message": message})))
}

/// A positive amount in major units with at most two decimals, as a number.
fn major(value: &serde_json::Value) -> Option<Decimal> {
    let amount: Decimal = value.as_number()?.to_string().parse().ok()?;
    (amount > Decimal::ZERO && amount.round_dp(2) == amount).then_some(amount)
}

async fn create_invoice(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "INVALID_API_KEY", "API key is invalid");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = major(&request["amount"]) else {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "amount");
    };
    let external_id = request["external_id"].as_str().unwrap_or_default();
    let currency = request["currency"].as_str().unwrap_or_default();
    if external_id.is_empty() || !["IDR", "PHP", "THB", "VND", "MYR", "USD"].contains(&currency) {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "external_id or currency");
    }
    if !request["success_redirect_url"].as_str().unwrap_or_default().starts_with("https://") {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "success_redirect_url");
    }
    let mut books = books.lock().unwrap();
    let id = format!("inv{:021}", books.invoices.len() + 1);
    let invoice = serde_json::json!({
        "id": id, "external_id": external_id, "status": "PENDING", "currency": currency,
        "amount": amount.normalize().to_string().parse::<f64>().unwrap(),
        "invoice_url": format!("https://checkout-staging.xendit.test/web/{id}"),
    });
    books.invoices.insert(id, invoice.clone());
    (StatusCode::OK, axum::Json(invoice))
}

async fn fetch_invoice(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "INVALID_API_KEY", "API key is invalid");
    }
    match books.lock().unwrap().invoices.get(&id) {
        Some(invoice) => (StatusCode::OK, axum::Json(invoice.clone())),
        None => refused(StatusCode::NOT_FOUND, "INVOICE_NOT_FOUND_ERROR", "Could not find invoice"),
    }
}

async fn refund(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "INVALID_API_KEY", "API key is invalid");
    }
    let Some(key) = headers.get("idempotency-key").and_then(|value| value.to_str().ok()).map(str::to_string) else {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "Idempotency-key");
    };
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = major(&request["amount"]) else {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "amount");
    };
    let reasons = ["FRAUDULENT", "DUPLICATE", "REQUESTED_BY_CUSTOMER", "CANCELLATION", "OTHERS"];
    if !reasons.contains(&request["reason"].as_str().unwrap_or_default()) {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "reason");
    }
    let invoice_id = request["invoice_id"].as_str().unwrap_or_default().to_string();
    let mut books = books.lock().unwrap();
    let Some(invoice) = books.invoices.get(&invoice_id).filter(|invoice| invoice["status"] == "PAID").cloned() else {
        return refused(StatusCode::NOT_FOUND, "DATA_NOT_FOUND", "invoice_id");
    };
    if request["currency"] != invoice["currency"] {
        return refused(StatusCode::BAD_REQUEST, "API_VALIDATION_ERROR", "currency");
    }
    let minor = i64::try_from((amount * Decimal::ONE_HUNDRED).trunc()).unwrap();
    if books.refunds.iter().any(|(_, earlier, _)| *earlier == key) {
        // The same key again is the same refund.
        return (StatusCode::OK, axum::Json(serde_json::json!({"id": format!("rfd-{key}"), "status": "SUCCEEDED"})));
    }
    let paid = i64::try_from((major(&invoice["amount"]).unwrap() * Decimal::ONE_HUNDRED).trunc()).unwrap();
    let refunded: i64 = books.refunds.iter().filter(|(id, _, _)| *id == invoice_id).map(|(_, _, amount)| amount).sum();
    if refunded + minor > paid {
        return refused(StatusCode::BAD_REQUEST, "REFUND_AMOUNT_EXCEEDED", "amount");
    }
    books.refunds.push((invoice_id.clone(), key.clone(), minor));
    let answer = serde_json::json!({"id": format!("rfd-{key}"), "invoice_id": invoice_id, "amount": minor as f64 / 100.0, "status": "SUCCEEDED"});
    (StatusCode::OK, axum::Json(answer))
}

impl FakeXendit {
    pub async fn start() -> FakeXendit {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v2/invoices", post(create_invoice))
            .route("/v2/invoices/{id}", get(fetch_invoice))
            .route("/refunds", post(refund))
            .with_state(books.clone());
        FakeXendit { base: serve(router).await, books }
    }

    fn invoice_id(paying: &Paying) -> String {
        paying.checkout.url().rsplit('/').next().unwrap().to_string()
    }

    /// The invoice callback Xendit posts (its body as Xendit sends it).
    fn callback(invoice: &serde_json::Value) -> Notification {
        let body = serde_json::json!({
            "id": invoice["id"], "external_id": invoice["external_id"], "status": invoice["status"],
            "amount": invoice["amount"], "paid_amount": invoice["paid_amount"], "currency": invoice["currency"],
            "payment_method": "EWALLET", "payment_channel": "GCASH",
        })
        .to_string();
        Notification::json(body).with_header("x-callback-token", CALLBACK_TOKEN)
    }

    /// A new invoice at Xendit for the same external id, paid with `amount`.
    fn paid_elsewhere(&self, external_id: &str, amount: f64, currency: &str) -> serde_json::Value {
        let mut books = self.books.lock().unwrap();
        let id = format!("inv{:021}", books.invoices.len() + 1);
        let invoice = serde_json::json!({
            "id": id, "external_id": external_id, "status": "PAID", "currency": currency,
            "amount": amount, "paid_amount": amount, "invoice_url": format!("https://checkout-staging.xendit.test/web/{id}"),
        });
        books.invoices.insert(id, invoice.clone());
        invoice
    }
}

#[async_trait]
impl Fake for FakeXendit {
    fn gateway(&self) -> &'static str {
        "xendit"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("secret_key", SECRET_KEY.into()),
            ("webhook_secret", CALLBACK_TOKEN.into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let id = FakeXendit::invoice_id(paying);
        let paid = {
            let mut books = self.books.lock().unwrap();
            let invoice = books.invoices.get_mut(&id).expect("an invoice");
            invoice["status"] = "PAID".into();
            invoice["paid_amount"] = invoice["amount"].clone();
            invoice.clone()
        };
        FakeXendit::callback(&paid)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        // Xendit's answer decides: the callback names the checkout's own
        // invoice, which Xendit then reports paid with these amounts.
        let id = FakeXendit::invoice_id(paying);
        let paid = {
            let mut books = self.books.lock().unwrap();
            let invoice = books.invoices.get_mut(&id).expect("an invoice");
            invoice["status"] = "PAID".into();
            invoice["paid_amount"] = (minor as f64 / 100.0).into();
            invoice["currency"] = currency.into();
            invoice.clone()
        };
        FakeXendit::callback(&paid)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("x-callback-token").with_header("x-callback-token", "guessed-token")
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("x-callback-token")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let id = FakeXendit::invoice_id(paying);
        let mut invoice = self.books.lock().unwrap().invoices.get(&id).cloned().expect("an invoice");
        // The callback claims it paid; Xendit's own answer says PENDING.
        invoice["status"] = "PAID".into();
        FakeXendit::callback(&invoice)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        FakeXendit::callback(&self.paid_elsewhere(&uuid::Uuid::now_v7().to_string(), 100.0, "PHP"))
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.iter().map(|(invoice, _, amount)| (invoice.clone(), *amount)).collect()
    }
}

crate::gateway_scenarios!(FakeXendit::start(), "PHP", "IDR");
