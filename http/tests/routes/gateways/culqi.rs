//! A fake Culqi: the token its checkout script makes in the payer's browser,
//! `POST /v2/charges` (checked: `Bearer` secure key, JSON, integer amount in
//! céntimos, PEN or USD, an email, an unused token as `source_id`), `GET
//! /v2/charges/{id}`, `POST /v2/refunds` (charge, amount up to what is left,
//! a documented reason), and Culqi's unsigned webhook events, whose `data` is
//! the charge as a JSON string.
//!
//! The page is read as the payer's browser would: the public key, amount,
//! currency and return link Culqi's script is configured with. In `pay` the
//! token is charged as the server charges it on the return, its answer then
//! lost (the webhook is what confirms); `pay_and_return` posts the token to
//! the return link instead, where the server makes the charge itself.

use super::*;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use std::collections::HashMap;
use std::sync::Mutex;

const PUBLIC_KEY: &str = "pk_test_e94078b9b248675d";
const SECURE_KEY: &str = "sk_test_c2267b5b262745f0";

#[derive(Default)]
struct Books {
    /// Tokens made by the checkout script: whether charged yet.
    tokens: HashMap<String, bool>,
    charges: HashMap<String, serde_json::Value>,
    refunds: Vec<(String, i64)>,
    made: u64,
}

type Answer = (StatusCode, axum::Json<serde_json::Value>);

fn error(status: StatusCode, kind: &str, why: &str) -> Answer {
    (status, axum::Json(serde_json::json!({"object": "error", "type": kind, "merchant_message": why})))
}

fn authorized(headers: &HeaderMap) -> bool {
    headers.get("authorization").and_then(|value| value.to_str().ok()) == Some(&format!("Bearer {SECURE_KEY}"))
}

fn json_body(headers: &HeaderMap, body: &str) -> Option<serde_json::Value> {
    let json = headers
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.starts_with("application/json"));
    json.then(|| serde_json::from_str(body).ok()).flatten()
}

/// A charge as Culqi makes it from a request, or why not.
fn charge(books: &mut Books, request: &serde_json::Value) -> Result<serde_json::Value, Answer> {
    let invalid = |why: &str| error(StatusCode::BAD_REQUEST, "invalid_request_error", why);
    let amount = request["amount"].as_i64().filter(|amount| *amount > 0).ok_or_else(|| invalid("amount"))?;
    let currency = request["currency_code"].as_str().filter(|code| ["PEN", "USD"].contains(code));
    let currency = currency.ok_or_else(|| invalid("currency_code"))?;
    let email = request["email"].as_str().filter(|email| email.contains('@')).ok_or_else(|| invalid("email"))?;
    let token = request["source_id"].as_str().unwrap_or_default();
    match books.tokens.get(token) {
        None => return Err(invalid("source_id: no such token")),
        Some(true) => return Err(invalid("source_id: the token was already used")),
        Some(false) => {}
    }
    // Not required by Culqi, but what the webhook's confirmation relies on.
    if request["metadata"]["payment_id"].as_str().is_none() {
        return Err(invalid("metadata.payment_id (the gateway must send it)"));
    }
    books.tokens.insert(token.to_string(), true);
    let id = token.replace("tkn_", "chr_");
    let charge = serde_json::json!({
        "object": "charge", "id": id, "amount": amount, "amount_refunded": 0, "current_amount": amount,
        "currency_code": currency, "email": email, "capture": true, "duplicated": false,
        "source": {"object": "token", "id": token, "type": "card"},
        "outcome": {"type": "venta_exitosa", "code": "AUT0000"},
        "metadata": request["metadata"].clone(),
    });
    books.charges.insert(id, charge.clone());
    Ok(charge)
}

async fn create_charge(State(books): State<Arc<Mutex<Books>>>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return error(StatusCode::UNAUTHORIZED, "authentication_error", "secure key");
    }
    let Some(request) = json_body(&headers, &body) else {
        return error(StatusCode::BAD_REQUEST, "invalid_request_error", "JSON");
    };
    match charge(&mut books.lock().unwrap(), &request) {
        Ok(charge) => (StatusCode::CREATED, axum::Json(charge)),
        Err(refused) => refused,
    }
}

async fn read_charge(State(books): State<Arc<Mutex<Books>>>, headers: HeaderMap, Path(id): Path<String>) -> Answer {
    if !authorized(&headers) {
        return error(StatusCode::UNAUTHORIZED, "authentication_error", "secure key");
    }
    match books.lock().unwrap().charges.get(&id) {
        Some(charge) => (StatusCode::OK, axum::Json(charge.clone())),
        None => error(StatusCode::NOT_FOUND, "invalid_request_error", "no such charge"),
    }
}

async fn create_refund(State(books): State<Arc<Mutex<Books>>>, headers: HeaderMap, body: String) -> Answer {
    if !authorized(&headers) {
        return error(StatusCode::UNAUTHORIZED, "authentication_error", "secure key");
    }
    let Some(request) = json_body(&headers, &body) else {
        return error(StatusCode::BAD_REQUEST, "invalid_request_error", "JSON");
    };
    let reason = request["reason"].as_str().unwrap_or_default();
    if !["duplicado", "fraudulento", "solicitud_comprador"].contains(&reason) {
        return error(StatusCode::BAD_REQUEST, "invalid_request_error", "reason");
    }
    let mut books = books.lock().unwrap();
    let id = request["charge_id"].as_str().unwrap_or_default().to_string();
    let Some(charge) = books.charges.get_mut(&id) else {
        return error(StatusCode::BAD_REQUEST, "invalid_request_error", "charge_id");
    };
    let left = charge["amount"].as_i64().unwrap() - charge["amount_refunded"].as_i64().unwrap();
    let Some(amount) = request["amount"].as_i64().filter(|amount| *amount > 0 && *amount <= left) else {
        return error(StatusCode::BAD_REQUEST, "invalid_request_error", "amount");
    };
    charge["amount_refunded"] = (charge["amount_refunded"].as_i64().unwrap() + amount).into();
    books.refunds.push((id.clone(), amount));
    let refund = format!("ref_test_{}", books.refunds.len());
    (
        StatusCode::CREATED,
        axum::Json(
            serde_json::json!({"object": "refund", "id": refund, "charge_id": id, "amount": amount, "reason": reason}),
        ),
    )
}

/// An attribute of the page's checkout form, as the browser reads it.
fn attribute(html: &str, name: &str) -> String {
    let start = html.find(&format!(" {name}=\"")).unwrap_or_else(|| panic!("no {name} in the page")) + name.len() + 3;
    let end = html[start..].find('"').unwrap() + start;
    super::unescape(&html[start..end])
}

#[derive(Clone)]
pub struct FakeCulqi {
    base: String,
    books: Arc<Mutex<Books>>,
}

impl FakeCulqi {
    pub async fn start() -> FakeCulqi {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router = axum::Router::new()
            .route("/v2/charges", post(create_charge))
            .route("/v2/charges/{id}", get(read_charge))
            .route("/v2/refunds", post(create_refund))
            .with_state(books.clone());
        FakeCulqi { base: serve(router).await, books }
    }

    /// The payer enters a card in Culqi's checkout on our page: the page is
    /// configured as Culqi needs it; Culqi's token for the card.
    fn tokenize(&self, paying: &Paying) -> String {
        let Checkout::Page(html) = &paying.checkout else { panic!("Culqi runs on a page of ours") };
        assert!(html.contains(r#"<script src="https://checkout.culqi.com/js/v4">"#), "Culqi's checkout script");
        assert_eq!(attribute(html, "data-key"), PUBLIC_KEY);
        assert_eq!(attribute(html, "data-amount"), minor(&paying.payment).to_string(), "céntimos");
        assert_eq!(attribute(html, "data-currency"), paying.payment.currency);
        let back = format!("https://ride.example.com/api/v1/payments/culqi/return/{}", paying.payment.id);
        assert_eq!(attribute(html, "action"), back);
        assert!(!html.contains(SECURE_KEY), "the secure key never reaches the browser");
        self.token()
    }

    fn token(&self) -> String {
        let mut books = self.books.lock().unwrap();
        books.made += 1;
        let token = format!("tkn_test_{:016}", books.made);
        books.tokens.insert(token.clone(), false);
        token
    }

    /// A charge of `token` as the server asks for it.
    fn charge(&self, token: &str, payment: uuid::Uuid, minor: i64, currency: &str) -> serde_json::Value {
        let request = serde_json::json!({
            "amount": minor, "currency_code": currency, "email": "rider1@demo.wayfare", "source_id": token,
            "metadata": {"payment_id": payment.to_string()},
        });
        charge(&mut self.books.lock().unwrap(), &request).expect("a charge")
    }

    /// Culqi's webhook event about a charge (unsigned; `data` a JSON string).
    fn event(&self, charge: &serde_json::Value) -> Notification {
        let id = charge["id"].as_str().unwrap().replace("chr_", "evt_");
        let body = serde_json::json!({
            "object": "event", "id": id, "type": "charge.creation.succeeded", "creation_date": 1_800_000_000_000_i64,
            "data": charge.to_string(),
        });
        Notification::json(body.to_string())
    }
}

#[async_trait]
impl Fake for FakeCulqi {
    fn gateway(&self) -> &'static str {
        "culqi"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![("PUBLIC_KEY", PUBLIC_KEY.into()), ("SECURE_KEY", SECURE_KEY.into()), ("api_base", self.base.clone())]
    }

    fn signs(&self) -> bool {
        false
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        let token = self.tokenize(paying);
        let charge = self.charge(&token, paying.payment.id, minor(&paying.payment), &paying.payment.currency);
        self.event(&charge)
    }

    async fn pay_and_return(&self, paying: &Paying) -> (Option<String>, Notification) {
        let token = self.tokenize(paying);
        let form = format!("token={token}&email={}", query_encode("rider1@demo.wayfare"));
        // Sent once the server has charged the token on the return.
        let later = self.event(&serde_json::json!({"object": "charge", "id": token.replace("tkn_", "chr_")}));
        (Some(form), later)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let token = self.tokenize(paying);
        self.event(&self.charge(&token, paying.payment.id, minor, currency))
    }

    fn forge(&self, notification: &Notification) -> Notification {
        notification.clone()
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone()
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        // An event naming a charge Culqi never made for this checkout's token.
        let token = self.tokenize(paying);
        self.event(&serde_json::json!({"object": "charge", "id": token.replace("tkn_", "chr_")}))
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let token = self.token();
        self.event(&self.charge(&token, uuid::Uuid::now_v7(), 1000, "PEN"))
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

/// A token Culqi did not make (or one already charged), posted to the
/// return link, pays nothing: the charge is refused and nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_culqi_refuses_pays_nothing() {
    let fake = FakeCulqi::start().await;
    let world = World::new(&fake, "PEN").await;
    let paying = world.check_out_booking(&fake).await;
    let path = format!("/api/v1/payments/culqi/return/{}", paying.payment.id);
    let form = format!("token=tkn_test_made_up&email={}", query_encode("rider1@demo.wayfare"));
    let back = world.app.post_raw(&path, None, "application/x-www-form-urlencoded", form).await;
    assert_eq!(back.status.as_u16(), 303);
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Pending);
    assert_eq!(world.status().await, BookingStatus::PaymentPending);
    assert!(fake.books.lock().unwrap().charges.is_empty());
}

crate::gateway_scenarios!(FakeCulqi::start(), "PEN", "USD");
