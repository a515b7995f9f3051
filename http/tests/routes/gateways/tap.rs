//! A fake Tap: charges (`POST /v2/charges`, `GET /v2/charges/{id}`), refunds
//! (`POST /v2/refunds`), Bearer secret key, amounts in major units, and the
//! charge posted to `post.url` with Tap's `hashstring` header.

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use std::collections::HashMap;
use std::sync::Mutex;

const SECRET_KEY: &str = "sk_test_tap_fake";

#[derive(Default)]
struct Books {
    /// Charges by id, as Tap answers them.
    charges: HashMap<String, serde_json::Value>,
    /// Refunds: (charge id, minor units).
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;
type Answer = (StatusCode, axum::Json<serde_json::Value>);

#[derive(Clone)]
pub struct FakeTap {
    base: String,
    books: Shared,
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {SECRET_KEY}"))
}

fn refused(status: StatusCode, description: &str) -> Answer {
    (status, axum::Json(serde_json::json!({"errors": [{"code": "1108", "description": description}]})))
}

/// A positive amount in major units with at most two decimals, as a number.
fn major(value: &serde_json::Value) -> Option<Decimal> {
    let amount: Decimal = value.as_number()?.to_string().parse().ok()?;
    (amount > Decimal::ZERO && amount.round_dp(2) == amount).then_some(amount)
}

fn minor_of(amount: Decimal) -> i64 {
    i64::try_from((amount * Decimal::ONE_HUNDRED).trunc()).unwrap()
}

async fn create_charge(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Authentication failed");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = major(&request["amount"]) else { return refused(StatusCode::BAD_REQUEST, "amount") };
    let currency = request["currency"].as_str().unwrap_or_default();
    if currency.len() != 3 || request["source"]["id"].as_str().unwrap_or_default().is_empty() {
        return refused(StatusCode::BAD_REQUEST, "currency or source.id");
    }
    let redirect = request["redirect"]["url"].as_str().unwrap_or_default();
    let post_url = request["post"]["url"].as_str().unwrap_or_default();
    if !redirect.starts_with("https://") || !post_url.starts_with("https://") {
        return refused(StatusCode::BAD_REQUEST, "redirect.url or post.url");
    }
    let customer = &request["customer"];
    if customer["first_name"].as_str().unwrap_or_default().is_empty()
        || !customer["email"].as_str().unwrap_or_default().contains('@')
    {
        return refused(StatusCode::BAD_REQUEST, "customer");
    }
    let mut books = books.lock().unwrap();
    let id = format!("chg_TS0{}", books.charges.len() + 1);
    let charge = serde_json::json!({
        "id": id, "object": "charge", "live_mode": false, "status": "INITIATED",
        "amount": amount.normalize().to_string().parse::<f64>().unwrap(), "currency": currency,
        "reference": {"transaction": request["reference"]["transaction"], "order": request["reference"]["order"]},
        "transaction": {"url": format!("https://checkout.tap.test/gosell/v2/payment/tap_process.aspx?chg={id}"), "created": "1800000000000"},
        "redirect": {"url": redirect}, "post": {"url": post_url},
    });
    books.charges.insert(id, charge.clone());
    (StatusCode::OK, axum::Json(charge))
}

async fn fetch_charge(State(books): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Authentication failed");
    }
    match books.lock().unwrap().charges.get(&id) {
        Some(charge) => (StatusCode::OK, axum::Json(charge.clone())),
        None => refused(StatusCode::NOT_FOUND, "Charge not found"),
    }
}

async fn refund(State(books): State<Shared>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return refused(StatusCode::UNAUTHORIZED, "Authentication failed");
    }
    let request: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(amount) = major(&request["amount"]) else { return refused(StatusCode::BAD_REQUEST, "amount") };
    if request["reason"].as_str().unwrap_or_default().is_empty() {
        return refused(StatusCode::BAD_REQUEST, "reason is required");
    }
    let charge_id = request["charge_id"].as_str().unwrap_or_default().to_string();
    let mut books = books.lock().unwrap();
    let Some(charge) = books.charges.get(&charge_id).filter(|charge| charge["status"] == "CAPTURED").cloned() else {
        return refused(StatusCode::BAD_REQUEST, "charge_id");
    };
    if request["currency"] != charge["currency"] {
        return refused(StatusCode::BAD_REQUEST, "currency");
    }
    let refunded: i64 = books.refunds.iter().filter(|(id, _)| *id == charge_id).map(|(_, amount)| amount).sum();
    if refunded + minor_of(amount) > minor_of(major(&charge["amount"]).unwrap()) {
        return refused(StatusCode::BAD_REQUEST, "amount exceeds the charge");
    }
    books.refunds.push((charge_id.clone(), minor_of(amount)));
    let id = format!("re_TS0{}", books.refunds.len());
    let answer = serde_json::json!({"id": id, "object": "refund", "charge_id": charge_id, "amount": request["amount"], "status": "PENDING"});
    (StatusCode::OK, axum::Json(answer))
}

impl FakeTap {
    pub async fn start() -> FakeTap {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/v2/charges", post(create_charge))
            .route("/v2/charges/{id}", get(fetch_charge))
            .route("/v2/refunds", post(refund))
            .with_state(books.clone());
        FakeTap { base: serve(router).await, books }
    }

    fn charge_id(paying: &Paying) -> String {
        paying.checkout.url().rsplit("chg=").next().unwrap().to_string()
    }

    /// The charge as Tap posts it, with its `hashstring` made with `key`.
    fn posted(charge: &serde_json::Value, key: &str) -> Notification {
        let hash = wayfare_http::payments::gateways::tap::hashstring(charge, key).unwrap();
        Notification::json(charge.to_string()).with_header("hashstring", hash)
    }

    fn captured(charge: &mut serde_json::Value) {
        charge["status"] = "CAPTURED".into();
        charge["reference"]["gateway"] = "123456".into();
        charge["reference"]["payment"] = format!("pay_{}", charge["id"].as_str().unwrap()).into();
    }
}

#[async_trait]
impl Fake for FakeTap {
    fn gateway(&self) -> &'static str {
        "tap"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![("secret_key", SECRET_KEY.into()), ("merchantId", "599424".into()), ("api_base", self.base.clone())]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let id = FakeTap::charge_id(paying);
        let captured = {
            let mut books = self.books.lock().unwrap();
            let charge = books.charges.get_mut(&id).expect("a charge");
            assert_eq!(charge["reference"]["transaction"], paying.payment.id.to_string());
            FakeTap::captured(charge);
            charge.clone()
        };
        FakeTap::posted(&captured, SECRET_KEY)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let id = FakeTap::charge_id(paying);
        let mut charge = self.books.lock().unwrap().charges.get(&id).cloned().expect("a charge");
        FakeTap::captured(&mut charge);
        charge["amount"] = (minor as f64 / 100.0).into();
        charge["currency"] = currency.into();
        FakeTap::posted(&charge, SECRET_KEY)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let charge: serde_json::Value = serde_json::from_str(&notification.body).unwrap();
        let forged = wayfare_http::payments::gateways::tap::hashstring(&charge, "sk_test_other").unwrap();
        notification.clone().without_header("hashstring").with_header("hashstring", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("hashstring")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let id = FakeTap::charge_id(paying);
        let charge = self.books.lock().unwrap().charges.get(&id).cloned().expect("a charge");
        FakeTap::posted(&charge, SECRET_KEY)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let mut charge = serde_json::json!({
            "id": "chg_TS0stranger", "object": "charge", "amount": 10, "currency": "SAR", "status": "INITIATED",
            "reference": {"transaction": uuid::Uuid::now_v7().to_string()}, "transaction": {"created": "1800000000000"},
        });
        FakeTap::captured(&mut charge);
        FakeTap::posted(&charge, SECRET_KEY)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeTap::start(), "SAR", "AED");
