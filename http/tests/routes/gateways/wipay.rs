//! A fake WiPay: `POST /plugins/payments/request` (checked: account,
//! environment, currency, total with two decimals, order, response URL)
//! answering a payment page, and results signed as WiPay signs them
//! (`hash` = MD5 of transaction id, total and API key). WiPay has no refund
//! API.

use super::*;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use md5::{Digest, Md5};
use std::collections::HashMap;
use std::sync::Mutex;

const ACCOUNT_NO: &str = "1234567890";
const API_KEY: &str = "123";

#[derive(Default)]
struct Books {
    /// Requests by order id: their form.
    requests: HashMap<String, Vec<(String, String)>>,
    transactions: u64,
}

#[derive(Clone)]
pub struct FakeWiPay {
    base: String,
    books: Arc<Mutex<Books>>,
}

async fn request(
    State(books): State<Arc<Mutex<Books>>>,
    headers: axum::http::HeaderMap,
    body: String,
) -> (StatusCode, axum::Json<serde_json::Value>) {
    let fields = form_fields(&body);
    let field =
        |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()).unwrap_or_default();
    let refused = |why: &str| (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(serde_json::json!({"message": why})));
    if headers.get("accept").and_then(|value| value.to_str().ok()) != Some("application/json") {
        return refused("Accept: application/json");
    }
    if field("account_number") != ACCOUNT_NO || field("environment") != "sandbox" {
        return refused("account_number / environment");
    }
    let total = field("total");
    let two_decimals = total.split_once('.').is_some_and(|(_, cents)| cents.len() == 2);
    if !two_decimals || field("currency").len() != 3 || field("order_id").is_empty() {
        return refused("total / currency / order_id");
    }
    for required in ["avs", "country_code", "fee_structure", "method", "origin", "response_url"] {
        if field(required).is_empty() {
            return refused(required);
        }
    }
    let order = field("order_id");
    books.lock().unwrap().requests.insert(order.clone(), fields);
    (
        StatusCode::OK,
        axum::Json(serde_json::json!({"url": format!("https://jm.wipayfinancial.com/checkout/?order={order}")})),
    )
}

impl FakeWiPay {
    pub async fn start() -> FakeWiPay {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router = axum::Router::new().route("/plugins/payments/request", post(request)).with_state(books.clone());
        FakeWiPay { base: serve(router).await, books }
    }

    /// WiPay's result for an order, signed with `api_key`.
    fn result(&self, order: &str, status: &str, minor: i64, currency: &str, api_key: &str) -> Notification {
        let mut books = self.books.lock().unwrap();
        books.transactions += 1;
        let transaction = format!("100-1-{}-{}", 2345 + books.transactions, books.transactions);
        let total = format!("{}.{:02}", minor / 100, minor % 100);
        let hash = hex::encode(Md5::digest(format!("{transaction}{total}{api_key}").as_bytes()));
        Notification::form(&[
            ("status", status.to_string()),
            ("transaction_id", transaction),
            ("order_id", order.to_string()),
            ("total", total),
            ("currency", currency.to_string()),
            ("message", "Approved".to_string()),
            ("date", "2030-01-01 10:00:00".to_string()),
            ("hash", hash),
        ])
    }

    fn paid_request(&self, paying: &Paying) {
        let Checkout::Redirect(url) = &paying.checkout else { panic!("WiPay answers a page to go to") };
        let order = paying.payment.id.to_string();
        assert!(url.contains(&order), "{url}");
        let books = self.books.lock().unwrap();
        let request = books.requests.get(&order).expect("a payment request");
        let field = |name: &str| request.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()).unwrap();
        assert_eq!(field("total"), format!("{:.2}", paying.payment.amount));
        assert_eq!(field("currency"), paying.payment.currency);
        assert!(field("response_url").contains(&order));
    }
}

#[async_trait]
impl Fake for FakeWiPay {
    fn gateway(&self) -> &'static str {
        "wipay"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ACCOUNT_NO", ACCOUNT_NO.into()),
            ("API_KEY", API_KEY.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.paid_request(paying);
        let order = paying.payment.id.to_string();
        self.result(&order, "success", minor(&paying.payment), &paying.payment.currency, API_KEY)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.paid_request(paying);
        self.result(&paying.payment.id.to_string(), "success", minor, currency, API_KEY)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let fields = form_fields(&notification.body);
        let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()).unwrap();
        let forged = hex::encode(Md5::digest(format!("{}{}other", field("transaction_id"), field("total")).as_bytes()));
        let fields: Vec<(&str, String)> = fields
            .iter()
            .map(|(key, value)| (key.as_str(), if key == "hash" { forged.clone() } else { value.clone() }))
            .collect();
        Notification::form(&fields)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        let fields = form_fields(&notification.body);
        let fields: Vec<(&str, String)> =
            fields.iter().filter(|(key, _)| key != "hash").map(|(key, value)| (key.as_str(), value.clone())).collect();
        Notification::form(&fields)
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        self.result(&paying.payment.id.to_string(), "failed", minor(&paying.payment), &paying.payment.currency, API_KEY)
    }

    fn refunds_supported(&self) -> bool {
        false
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.result(&uuid::Uuid::now_v7().to_string(), "success", 1000, "JMD", API_KEY)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        Vec::new()
    }
}

crate::gateway_scenarios!(FakeWiPay::start(), "JMD", "USD");
