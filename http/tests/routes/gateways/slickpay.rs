//! A fake Slick-Pay: the users' invoices API (`POST /api/v2/users/invoices`,
//! `GET /api/v2/users/invoices/{id}`, bearer public key). Slick-Pay signs
//! nothing: a notification names an invoice and the server reads it.

use super::*;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;

const PUBLIC_KEY: &str = "slickpay-fake-public-key";

struct Invoice {
    request: Value,
    /// Paid: amount in centimes, and the currency when not dinars (which Slick-Pay never says otherwise).
    paid: Option<(i64, Option<String>)>,
}

#[derive(Default)]
struct Books {
    invoices: HashMap<u64, Invoice>,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakeSlickpay {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {PUBLIC_KEY}"))
}

fn cents(value: &Value) -> Option<i64> {
    let number = value.as_f64().filter(|number| *number > 0.0)?;
    let cents = (number * 100.0).round();
    ((number * 100.0 - cents).abs() < 1e-6).then_some(cents as i64)
}

async fn create(
    State(books): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    if !authorized(&headers) {
        return (StatusCode::UNAUTHORIZED, Json(json!({"message": "Unauthenticated."})));
    }
    let filled = |field: &str| request[field].as_str().is_some_and(|text| !text.trim().is_empty());
    let items: Option<i64> = request["items"]
        .as_array()
        .and_then(|items| items.iter().map(|item| Some(cents(&item["price"])? * item["quantity"].as_i64()?)).sum());
    let ok = ["firstname", "lastname", "email", "phone", "address"].iter().all(|field| filled(field))
        && request["url"].as_str().is_some_and(|url| url.starts_with("https://"))
        && cents(&request["amount"]).is_some()
        && items == cents(&request["amount"]);
    if !ok {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"success": 0, "message": "The given data was invalid."})),
        );
    }
    let mut books = books.lock().unwrap();
    let id = 1540 + books.invoices.len() as u64;
    books.invoices.insert(id, Invoice { request, paid: None });
    (
        StatusCode::OK,
        Json(json!({"success": 1, "id": id, "url": format!("https://devapi.slick-pay.com/invoices/{id}/pay")})),
    )
}

async fn read(State(books): State<Shared>, Path(id): Path<u64>, headers: HeaderMap) -> (StatusCode, Json<Value>) {
    let books = books.lock().unwrap();
    let Some(invoice) = books.invoices.get(&id).filter(|_| authorized(&headers)) else {
        return (StatusCode::NOT_FOUND, Json(json!({"success": 0, "message": "Not found"})));
    };
    let mut data = json!({"id": id, "amount": invoice.request["amount"], "url": invoice.request["url"]});
    if let Some((minor, currency)) = &invoice.paid {
        data["amount"] = json!(*minor as f64 / 100.0);
        if let Some(currency) = currency {
            data["currency"] = json!(currency);
        }
    }
    (StatusCode::OK, Json(json!({"success": 1, "completed": i64::from(invoice.paid.is_some()), "data": data})))
}

impl FakeSlickpay {
    pub async fn start() -> FakeSlickpay {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/api/v2/users/invoices", post(create))
            .route("/api/v2/users/invoices/{id}", get(read))
            .with_state(books.clone());
        FakeSlickpay { base: serve(router).await, books }
    }

    fn invoice_of(paying: &Paying) -> u64 {
        let url = paying.checkout.url();
        url.trim_end_matches("/pay").rsplit('/').next().unwrap().parse().unwrap()
    }

    fn settle(&self, id: u64, minor: Option<i64>, currency: Option<&str>) -> Notification {
        let mut books = self.books.lock().unwrap();
        let invoice = books.invoices.get_mut(&id).expect("an invoice");
        let amount = minor.unwrap_or_else(|| cents(&invoice.request["amount"]).unwrap());
        invoice.paid = Some((amount, currency.filter(|currency| *currency != "DZD").map(str::to_string)));
        Notification::json(json!({"id": id}).to_string())
    }
}

#[async_trait]
impl Fake for FakeSlickpay {
    fn gateway(&self) -> &'static str {
        "slickpay"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![("publicKey", PUBLIC_KEY.into()), ("testing", "true".into()), ("api_base", self.base.clone())]
    }

    fn signs(&self) -> bool {
        false
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.settle(FakeSlickpay::invoice_of(paying), None, None)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.settle(FakeSlickpay::invoice_of(paying), Some(minor), Some(currency))
    }

    fn forge(&self, notification: &Notification) -> Notification {
        notification.clone()
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone()
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        Notification::json(json!({"id": FakeSlickpay::invoice_of(paying)}).to_string())
    }

    fn refunds_supported(&self) -> bool {
        false
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let request = json!({"amount": 1000.0, "url": "https://elsewhere.example.com/back"});
        self.books.lock().unwrap().invoices.insert(9999, Invoice { request, paid: None });
        self.settle(9999, None, None)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        Vec::new()
    }
}

crate::gateway_scenarios!(FakeSlickpay::start(), "DZD", "EUR");
