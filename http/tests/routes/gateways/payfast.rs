//! A fake PayFast: the payer's form (checked: merchant, amount, links and
//! its MD5 signature with the passphrase), ITNs signed as PayFast signs them,
//! the ITN validation (`POST /eng/query/validate` answers VALID only for an
//! ITN it sent), and refunds (`POST /refunds/{id}`, signed in headers).

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use md5::{Digest, Md5};
use std::sync::Mutex;

const MERCHANT_ID: &str = "10000100";
const MERCHANT_KEY: &str = "46f0cd694581a";
const PASSPHRASE: &str = "jt7NOE43FZPn";

#[derive(Default)]
struct Books {
    /// The parameter strings of the ITNs this PayFast sent.
    sent: Vec<String>,
    refunds: Vec<(String, i64)>,
    payments: u64,
}

#[derive(Clone)]
pub struct FakePayFast {
    base: String,
    books: Arc<Mutex<Books>>,
}

fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn joined(pairs: &[(String, String)], skip_blank: bool) -> String {
    pairs
        .iter()
        .filter(|(key, value)| key != "signature" && !(skip_blank && value.is_empty()))
        .map(|(key, value)| format!("{key}={}", encode(value.trim())))
        .collect::<Vec<_>>()
        .join("&")
}

fn md5_hex(text: &str) -> String {
    hex::encode(Md5::digest(text.as_bytes()))
}

fn signed(params: &str, passphrase: &str) -> String {
    md5_hex(&format!("{params}&passphrase={}", encode(passphrase)))
}

async fn validate(State(books): State<Arc<Mutex<Books>>>, body: String) -> &'static str {
    if books.lock().unwrap().sent.contains(&body) { "VALID" } else { "INVALID" }
}

async fn refund(
    State(books): State<Arc<Mutex<Books>>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: String,
) -> (StatusCode, axum::Json<serde_json::Value>) {
    let refused = |why: &str| {
        (StatusCode::BAD_REQUEST, axum::Json(serde_json::json!({"status": "failed", "data": {"message": why}})))
    };
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or_default().to_string();
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&body) else { return refused("not JSON") };
    let Some(amount) = json["amount"].as_i64() else { return refused("amount in cents") };
    if header("merchant-id") != MERCHANT_ID || header("version") != "v1" || header("timestamp").len() < 19 {
        return refused("headers");
    }
    // Every header and body field and the passphrase, sorted by name.
    let mut fields = vec![
        ("merchant-id".to_string(), header("merchant-id")),
        ("version".to_string(), header("version")),
        ("timestamp".to_string(), header("timestamp")),
        ("passphrase".to_string(), PASSPHRASE.to_string()),
    ];
    for (key, value) in json.as_object().unwrap() {
        let text = value.as_str().map_or_else(|| value.to_string(), str::to_string);
        fields.push((key.clone(), text));
    }
    fields.sort();
    if header("signature") != md5_hex(&joined(&fields, true)) {
        return (StatusCode::UNAUTHORIZED, axum::Json(serde_json::json!({"status": "failed"})));
    }
    let mut books = books.lock().unwrap();
    books.refunds.push((id, amount));
    let refund_id = format!("dc0521d3-0000-0000-0000-{:012}", books.refunds.len());
    (
        StatusCode::OK,
        axum::Json(
            serde_json::json!({"code": 200, "status": "success", "data": {"response": {"id": refund_id, "status": "COMPLETE"}}}),
        ),
    )
}

impl FakePayFast {
    pub async fn start() -> FakePayFast {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router = axum::Router::new()
            .route("/eng/query/validate", post(validate))
            .route("/refunds/{id}", post(refund))
            .with_state(books.clone());
        FakePayFast { base: serve(router).await, books }
    }

    /// Checks the payer's form as PayFast does before taking the payment.
    fn check_form(&self, paying: &Paying) {
        let Checkout::Form { action, fields } = &paying.checkout else { panic!("PayFast takes a posted form") };
        assert!(action.ends_with("/eng/process"), "{action}");
        let field = |name: &str| paying.checkout.field(name).unwrap_or_else(|| panic!("no {name}"));
        assert_eq!(field("merchant_id"), MERCHANT_ID);
        assert_eq!(field("merchant_key"), MERCHANT_KEY);
        assert_eq!(field("m_payment_id"), paying.payment.id.to_string());
        assert_eq!(field("amount"), format!("{:.2}", paying.payment.amount), "rands with two decimals");
        assert!(field("notify_url").ends_with("/api/v1/payments/payfast/webhook"));
        assert!(field("return_url").contains(&paying.payment.id.to_string()));
        assert!(!field("item_name").is_empty());
        assert_eq!(field("signature"), signed(&joined(fields, true), PASSPHRASE), "the checkout's signature");
    }

    /// An ITN as PayFast posts it: every field in order, then the signature.
    fn itn(&self, m_payment_id: &str, status: &str, minor: i64) -> Notification {
        let mut books = self.books.lock().unwrap();
        books.payments += 1;
        let gross = format!("{}.{:02}", minor / 100, minor % 100);
        let pairs: Vec<(String, String)> = [
            ("m_payment_id", m_payment_id.to_string()),
            ("pf_payment_id", format!("{}", 1_089_250 + books.payments)),
            ("payment_status", status.to_string()),
            ("item_name", "Wayfare ABCDEF".to_string()),
            ("item_description", String::new()),
            ("amount_gross", gross),
            ("amount_fee", "-2.30".to_string()),
            ("amount_net", "97.70".to_string()),
            ("custom_str1", String::new()),
            ("name_first", "Rita".to_string()),
            ("name_last", "Rider".to_string()),
            ("email_address", "rider1@demo.wayfare".to_string()),
            ("merchant_id", MERCHANT_ID.to_string()),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect();
        let params = joined(&pairs, false);
        books.sent.push(params.clone());
        let mut fields: Vec<(&str, String)> = pairs.iter().map(|(key, value)| (key.as_str(), value.clone())).collect();
        fields.push(("signature", signed(&params, PASSPHRASE)));
        Notification::form(&fields)
    }

    fn replace(notification: &Notification, name: &str, value: Option<&str>) -> Notification {
        let mut fields = form_fields(&notification.body);
        fields.retain(|(key, _)| key != name);
        if let Some(value) = value {
            fields.push((name.to_string(), value.to_string()));
        }
        let fields: Vec<(&str, String)> = fields.iter().map(|(key, value)| (key.as_str(), value.clone())).collect();
        Notification::form(&fields)
    }
}

#[async_trait]
impl Fake for FakePayFast {
    fn gateway(&self) -> &'static str {
        "payfast"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("PAYFAST_MEWRCHANT_ID", MERCHANT_ID.into()),
            ("PAYFAST_MERCHANT_KEY", MERCHANT_KEY.into()),
            ("passPhrase", PASSPHRASE.into()),
            ("testingMode", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.check_form(paying);
        self.itn(&paying.payment.id.to_string(), "COMPLETE", minor(&paying.payment))
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        assert_eq!(currency, "ZAR", "PayFast settles in rands only");
        self.check_form(paying);
        self.itn(&paying.payment.id.to_string(), "COMPLETE", minor)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        // The same fields signed without the passphrase.
        let fields = form_fields(&notification.body);
        FakePayFast::replace(notification, "signature", Some(&md5_hex(&joined(&fields, false))))
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        FakePayFast::replace(notification, "signature", None)
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        self.itn(&paying.payment.id.to_string(), "PENDING", minor(&paying.payment))
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.itn(&uuid::Uuid::now_v7().to_string(), "COMPLETE", 1000)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakePayFast::start(), "ZAR", "");
