//! A fake LiqPay: the checkout's `data`/`signature` pair (checked: version,
//! public key, action, amount, links, SHA-1 signature), server callbacks
//! signed as LiqPay signs them, and `/api/request` for `status` and
//! `refund` (signature checked).

use super::*;
use axum::extract::State;
use axum::routing::post;
use base64::Engine as _;
use std::collections::HashMap;
use std::sync::Mutex;

const PUBLIC_KEY: &str = "sandbox_i00000000";
const PRIVATE_KEY: &str = "sandbox_a4825234f4bae72a0be04eafe9e8e2bada209255";

#[derive(Default)]
struct Books {
    /// Paid orders: order id → the payment object.
    paid: HashMap<String, serde_json::Value>,
    refunds: Vec<(String, i64)>,
    payments: i64,
}

#[derive(Clone)]
pub struct FakeLiqPay {
    base: String,
    books: Arc<Mutex<Books>>,
}

fn sign(private_key: &str, data: &str) -> String {
    let digest = ring::digest::digest(
        &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
        format!("{private_key}{data}{private_key}").as_bytes(),
    );
    base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
}

/// The JSON of a signed pair, if the signature is LiqPay's.
fn opened(data: &str, signature: &str) -> Option<serde_json::Value> {
    if sign(PRIVATE_KEY, data) != signature {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn cents(amount: &serde_json::Value) -> Option<i64> {
    let text = amount.as_f64().map(|number| format!("{number:.2}"))?;
    text.replace('.', "").parse().ok()
}

async fn request(State(books): State<Arc<Mutex<Books>>>, body: String) -> axum::Json<serde_json::Value> {
    let error = |code: &str| axum::Json(serde_json::json!({"result": "error", "status": "error", "err_code": code}));
    let fields = form_fields(&body);
    let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    let (Some(data), Some(signature)) = (field("data"), field("signature")) else { return error("missing") };
    let Some(json) = opened(&data, &signature) else { return error("invalid_signature") };
    if json["version"] != 3 || json["public_key"] != PUBLIC_KEY {
        return error("public_key_not_found");
    }
    let order = json["order_id"].as_str().unwrap_or_default().to_string();
    let mut books = books.lock().unwrap();
    let Some(payment) = books.paid.get(&order).cloned() else { return error("payment_not_found") };
    match json["action"].as_str() {
        Some("status") => {
            let mut answer = payment;
            answer["result"] = "ok".into();
            axum::Json(answer)
        }
        Some("refund") => {
            let Some(amount) = cents(&json["amount"]) else { return error("amount") };
            books.refunds.push((order, amount));
            axum::Json(serde_json::json!({"result": "ok", "payment_id": payment["payment_id"], "status": "reversed"}))
        }
        _ => error("action"),
    }
}

impl FakeLiqPay {
    pub async fn start() -> FakeLiqPay {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router = axum::Router::new().route("/api/request", post(request)).with_state(books.clone());
        FakeLiqPay { base: serve(router).await, books }
    }

    /// The checkout's request, checked as LiqPay checks it.
    fn checked(&self, paying: &Paying) -> serde_json::Value {
        let Checkout::Form { action, .. } = &paying.checkout else { panic!("LiqPay takes a posted form") };
        assert!(action.ends_with("/api/3/checkout"), "{action}");
        let field = |name: &str| paying.checkout.field(name).unwrap_or_else(|| panic!("no {name}"));
        let json = opened(&field("data"), &field("signature")).expect("a checkout signed with the private key");
        assert_eq!((json["version"].as_i64(), json["public_key"].as_str()), (Some(3), Some(PUBLIC_KEY)));
        assert_eq!((json["action"].as_str(), json["sandbox"].as_str()), (Some("pay"), Some("1")));
        assert_eq!(json["order_id"], paying.payment.id.to_string());
        assert_eq!(cents(&json["amount"]), Some(minor(&paying.payment)));
        assert_eq!(json["currency"], paying.payment.currency);
        assert!(json["description"].as_str().is_some_and(|text| !text.is_empty()));
        assert!(json["server_url"].as_str().unwrap().ends_with("/api/v1/payments/liqpay/webhook"));
        assert!(json["result_url"].as_str().unwrap().contains(&paying.payment.id.to_string()));
        json
    }

    /// The server callback for a payment object.
    fn callback(payment: &serde_json::Value) -> Notification {
        let data = base64::engine::general_purpose::STANDARD.encode(payment.to_string());
        Notification::form(&[("data", data.clone()), ("signature", sign(PRIVATE_KEY, &data))])
    }

    fn payment(&self, order: &str, status: &str, minor: i64, currency: &str) -> serde_json::Value {
        let mut books = self.books.lock().unwrap();
        books.payments += 1;
        serde_json::json!({
            "action": "pay", "payment_id": 165_629 + books.payments, "status": status, "version": 3,
            "type": "buy", "paytype": "card", "public_key": PUBLIC_KEY, "acq_id": 414_963,
            "order_id": order, "liqpay_order_id": format!("NYMK3AE{}", books.payments),
            "description": "Wayfare ABCDEF", "amount": minor as f64 / 100.0, "currency": currency,
        })
    }
}

#[async_trait]
impl Fake for FakeLiqPay {
    fn gateway(&self) -> &'static str {
        "liqpay"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("public_key", PUBLIC_KEY.into()),
            ("private_key", PRIVATE_KEY.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.checked(paying);
        let order = paying.payment.id.to_string();
        let payment = self.payment(&order, "sandbox", minor(&paying.payment), &paying.payment.currency);
        self.books.lock().unwrap().paid.insert(order, payment.clone());
        FakeLiqPay::callback(&payment)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.checked(paying);
        FakeLiqPay::callback(&self.payment(&paying.payment.id.to_string(), "success", minor, currency))
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let data = form_fields(&notification.body).into_iter().find(|(key, _)| key == "data").unwrap().1;
        Notification::form(&[("data", data.clone()), ("signature", sign("sandbox_other", &data))])
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        let data = form_fields(&notification.body).into_iter().find(|(key, _)| key == "data").unwrap().1;
        Notification::form(&[("data", data)])
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        FakeLiqPay::callback(&self.payment(
            &paying.payment.id.to_string(),
            "processing",
            minor(&paying.payment),
            &paying.payment.currency,
        ))
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        FakeLiqPay::callback(&self.payment(&uuid::Uuid::now_v7().to_string(), "success", 1000, "UAH"))
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeLiqPay::start(), "UAH", "USD");
