//! A fake iyzico: the Checkout Form (initialize, retrieve the result) and
//! refunds, each request checked for its `IYZWSv2` authorization (HMAC-SHA256
//! of random key + path + body with the secret key). iyzico's notifications
//! name a checkout form's token and are signed (`X-IYZ-SIGNATURE-V3`); the
//! server checks a signature it is sent, then asks for the result.

use super::*;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::routing::post;
use base64::Engine as _;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use wayfare_http::payments::gateway::hmac_sha256_hex;

const API_KEY: &str = "sandbox-fake-api-key";
const SECRET_KEY: &str = "sandbox-fake-secret-key";

struct Form {
    request: Value,
    /// Paid: (payment id, paid price in minor units, currency, transaction id).
    paid: Option<(String, i64, String, String)>,
}

#[derive(Default)]
struct Books {
    /// Checkout forms by token.
    forms: HashMap<String, Form>,
    refunds: Vec<(String, i64)>,
    /// How often the server asked for a form's result.
    retrieved: usize,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakeIyzico {
    base: String,
    books: Shared,
}

/// Whether the request carries iyzico's authorization for this path and body.
fn authorized(headers: &HeaderMap, path: &str, body: &str) -> bool {
    let header = headers.get("authorization").and_then(|value| value.to_str().ok()).unwrap_or_default();
    let Some(encoded) = header.strip_prefix("IYZWSv2 ") else { return false };
    let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(encoded) else { return false };
    let text = String::from_utf8(decoded).unwrap_or_default();
    let pairs: HashMap<&str, &str> = text.split('&').filter_map(|pair| pair.split_once(':')).collect();
    let (Some(key), Some(random), Some(signature)) =
        (pairs.get("apiKey"), pairs.get("randomKey"), pairs.get("signature"))
    else {
        return false;
    };
    let rnd = headers.get("x-iyzi-rnd").and_then(|value| value.to_str().ok());
    *key == API_KEY
        && rnd == Some(*random)
        && *signature == hmac_sha256_hex(SECRET_KEY.as_bytes(), format!("{random}{path}{body}").as_bytes())
}

fn failure(code: &str) -> (StatusCode, Json<Value>) {
    (StatusCode::OK, Json(json!({"status": "failure", "errorCode": code, "errorMessage": code, "locale": "en"})))
}

/// A price as iyzico takes it: digits, a point, digits; in minor units.
fn cents(value: &Value) -> Option<i64> {
    let (whole, fraction) = value.as_str()?.split_once('.')?;
    if whole.is_empty() || fraction.is_empty() || fraction.len() > 2 {
        return None;
    }
    let fraction = format!("{fraction:0<2}");
    Some(whole.parse::<i64>().ok()? * 100 + fraction.parse::<i64>().ok()?)
}

fn form_json(token: &str, form: &Form) -> Value {
    let request = &form.request;
    let mut answer = json!({
        "status": "success", "locale": "en", "token": token, "conversationId": request["conversationId"],
        "basketId": request["basketId"], "price": request["price"], "callbackUrl": request["callbackUrl"],
    });
    match &form.paid {
        Some((payment, minor, currency, transaction)) => {
            answer["paymentStatus"] = json!("SUCCESS");
            answer["fraudStatus"] = json!(1);
            answer["paymentId"] = json!(payment);
            answer["paidPrice"] = json!(*minor as f64 / 100.0);
            answer["currency"] = json!(currency);
            answer["itemTransactions"] = json!([{"itemId": request["basketItems"][0]["id"], "paymentTransactionId": transaction, "transactionStatus": 2}]);
        }
        None => {
            return json!({"status": "failure", "errorCode": "5204", "errorMessage": "the form has not been paid", "token": token});
        }
    }
    answer
}

async fn initialize(
    State(books): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> (StatusCode, Json<Value>) {
    if !authorized(&headers, uri.path(), &body) {
        return failure("1000");
    }
    let Ok(request) = serde_json::from_str::<Value>(&body) else { return failure("11") };
    let filled = |value: &Value| value.as_str().is_some_and(|text| !text.trim().is_empty());
    let buyer = &request["buyer"];
    let billing = &request["billingAddress"];
    let items_total: Option<i64> =
        request["basketItems"].as_array().and_then(|items| items.iter().map(|item| cents(&item["price"])).sum());
    let ok = ["id", "name", "surname", "email", "identityNumber", "registrationAddress", "city", "country", "ip"]
        .iter()
        .all(|field| filled(&buyer[field]))
        && ["contactName", "city", "country", "address"].iter().all(|field| filled(&billing[field]))
        && filled(&request["conversationId"])
        && filled(&request["basketId"])
        && request["callbackUrl"].as_str().is_some_and(|url| url.starts_with("https://"))
        && request["currency"].as_str().is_some_and(|currency| currency.len() == 3)
        && cents(&request["price"]).is_some()
        && cents(&request["paidPrice"]) == cents(&request["price"])
        && items_total == cents(&request["price"]);
    if !ok {
        return failure("12");
    }
    let mut books = books.lock().unwrap();
    let token = format!("27ce5d54-fake-{:04}", books.forms.len() + 1);
    let answer = json!({
        "status": "success", "locale": "en", "conversationId": request["conversationId"], "token": token,
        "tokenExpireTime": 1800, "checkoutFormContent": "<script>…</script>",
        "paymentPageUrl": format!("https://sandbox-cpp.iyzipay.com?token={token}&lang=en"),
    });
    books.forms.insert(token, Form { request, paid: None });
    (StatusCode::OK, Json(answer))
}

async fn detail(State(books): State<Shared>, uri: Uri, headers: HeaderMap, body: String) -> (StatusCode, Json<Value>) {
    if !authorized(&headers, uri.path(), &body) {
        return failure("1000");
    }
    let request: Value = serde_json::from_str(&body).unwrap_or_default();
    let token = request["token"].as_str().unwrap_or_default();
    let mut books = books.lock().unwrap();
    books.retrieved += 1;
    match books.forms.get(token) {
        Some(form) => (StatusCode::OK, Json(form_json(token, form))),
        None => failure("5203"),
    }
}

async fn refund(State(books): State<Shared>, uri: Uri, headers: HeaderMap, body: String) -> (StatusCode, Json<Value>) {
    if !authorized(&headers, uri.path(), &body) {
        return failure("1000");
    }
    let request: Value = serde_json::from_str(&body).unwrap_or_default();
    let transaction = request["paymentTransactionId"].as_str().unwrap_or_default().to_string();
    let mut books = books.lock().unwrap();
    let paid = books.forms.values().filter_map(|form| form.paid.as_ref()).find(|paid| paid.3 == transaction).cloned();
    let (Some((payment, _, currency, _)), Some(amount)) = (paid, cents(&request["price"])) else {
        return failure("5126");
    };
    if request["currency"] != currency.as_str() || request["ip"].as_str().is_none() {
        return failure("5126");
    }
    books.refunds.push((transaction.clone(), amount));
    let host_reference = format!("mock00{}", books.refunds.len());
    (
        StatusCode::OK,
        Json(json!({
            "status": "success", "locale": "en", "conversationId": request["conversationId"], "paymentId": payment,
            "paymentTransactionId": transaction, "price": amount as f64 / 100.0, "currency": currency, "hostReference": host_reference,
        })),
    )
}

impl FakeIyzico {
    pub async fn start() -> FakeIyzico {
        let books: Shared = Arc::default();
        let router = axum::Router::new()
            .route("/payment/iyzipos/checkoutform/initialize/auth/ecom", post(initialize))
            .route("/payment/iyzipos/checkoutform/auth/ecom/detail", post(detail))
            .route("/payment/refund", post(refund))
            .with_state(books.clone());
        FakeIyzico { base: serve(router).await, books }
    }

    fn token_of(paying: &Paying) -> String {
        paying.checkout.field("token").expect("the payment page names the token")
    }

    /// Marks the form paid; iyzico's notification of it.
    fn settle(&self, token: &str, minor: Option<i64>, currency: Option<&str>) -> Notification {
        let mut books = self.books.lock().unwrap();
        let number = books.forms.len() * 10 + books.forms.values().filter(|form| form.paid.is_some()).count();
        let form = books.forms.get_mut(token).expect("a checkout form");
        let price = cents(&form.request["paidPrice"]).unwrap();
        let currency = currency.unwrap_or(form.request["currency"].as_str().unwrap()).to_string();
        let payment = format!("1183{number:04}");
        form.paid = Some((payment.clone(), minor.unwrap_or(price), currency, format!("1252{number:04}")));
        let conversation = form.request["conversationId"].as_str().unwrap().to_string();
        FakeIyzico::notification(token, &conversation, payment.parse().unwrap())
    }

    /// A checkout form's notification, signed as iyzico signs it.
    fn notification(token: &str, conversation: &str, payment: u64) -> Notification {
        let body = json!({
            "iyziEventType": "CHECKOUT_FORM_AUTH", "iyziEventTime": 1_767_261_600_000u64, "iyziReferenceCode": format!("ref-{token}"),
            "token": token, "paymentConversationId": conversation, "status": "SUCCESS", "merchantId": 3_397_951,
            "iyziPaymentId": payment,
        });
        let signature = signature_v3(SECRET_KEY, &body);
        Notification::json(body.to_string()).with_header("X-IYZ-SIGNATURE-V3", signature)
    }

    /// How often the server asked for a form's result so far.
    pub fn retrieved(&self) -> usize {
        self.books.lock().unwrap().retrieved
    }
}

/// `X-IYZ-SIGNATURE-V3` of a checkout form's notification: hex HMAC-SHA256
/// with the secret key of secret key, event type, payment id, token,
/// conversation id and status.
fn signature_v3(secret: &str, body: &Value) -> String {
    let text = |name: &str| match &body[name] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let message = [
        secret.to_string(),
        text("iyziEventType"),
        text("iyziPaymentId"),
        text("token"),
        text("paymentConversationId"),
        text("status"),
    ]
    .concat();
    hmac_sha256_hex(secret.as_bytes(), message.as_bytes())
}

#[async_trait]
impl Fake for FakeIyzico {
    fn gateway(&self) -> &'static str {
        "iyzico"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("apiKey", API_KEY.into()),
            ("secretKey", SECRET_KEY.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    /// Only on accounts where iyzico switched it on: an unsigned
    /// notification is still checked by asking (`iyzico_signatures` below).
    fn signs(&self) -> bool {
        false
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.settle(&FakeIyzico::token_of(paying), None, None)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.settle(&FakeIyzico::token_of(paying), Some(minor), Some(currency))
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let body: Value = serde_json::from_str(&notification.body).unwrap();
        let forged = signature_v3("sandbox-someone-elses-key", &body);
        notification.clone().without_header("X-IYZ-SIGNATURE-V3").with_header("X-IYZ-SIGNATURE-V3", forged)
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        notification.clone().without_header("X-IYZ-SIGNATURE-V3")
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        FakeIyzico::notification(&FakeIyzico::token_of(paying), &paying.payment.id.to_string(), 11_830_000)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        let stranger = uuid::Uuid::now_v7().to_string();
        let token = "27ce5d54-fake-stranger".to_string();
        let request = json!({
            "conversationId": stranger, "basketId": stranger, "price": "10.0", "paidPrice": "10.0", "currency": "TRY",
            "basketItems": [{"id": stranger, "price": "10.0"}],
        });
        self.books.lock().unwrap().forms.insert(token.clone(), Form { request, paid: None });
        self.settle(&token, None, None)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeIyzico::start(), "TRY", "USD");

/// iyzico's `X-IYZ-SIGNATURE-V3`: a notification carrying a wrong one, or
/// signed fields changed after signing, is refused before the server asks
/// iyzico anything; one without it is only a reason to ask; the genuine one
/// settles the payment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iyzico_signatures_are_checked_before_asking_and_asking_still_decides() {
    let fake = FakeIyzico::start().await;
    let world = World::new(&fake, "TRY").await;
    let paying = world.check_out_booking(&fake).await;
    let genuine = fake.pay(&paying).await;
    let asked_before = fake.retrieved();

    world.notify(&fake, &fake.forge(&genuine)).await.refused(400, "invalid_signature");
    let mut tampered = genuine.clone();
    tampered.body = tampered.body.replace("\"status\":\"SUCCESS\"", "\"status\":\"FAILURE\"");
    assert_ne!(tampered.body, genuine.body);
    world.notify(&fake, &tampered).await.refused(400, "invalid_signature");
    let mut garbled = genuine.clone().without_header("X-IYZ-SIGNATURE-V3").with_header("X-IYZ-SIGNATURE-V3", "not-hex");
    world.notify(&fake, &garbled).await.refused(400, "invalid_signature");
    garbled.body = "token=27ce5d54-fake-0001".into();
    garbled.content_type = "application/x-www-form-urlencoded".into();
    world.notify(&fake, &garbled).await.refused(400, "invalid_signature");
    assert_eq!(fake.retrieved(), asked_before, "a refused signature asks iyzico nothing");
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Pending);
    assert_eq!(world.status().await, BookingStatus::PaymentPending);

    // Signed right: the server still asks, and the answer settles it.
    let settled = world.notify(&fake, &genuine).await;
    assert_eq!(settled.expect(200)["settled"], true, "{}", settled.body);
    assert_eq!(fake.retrieved(), asked_before + 1);
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Paid);

    // Unsigned (an account without signatures): asked, and a replay changes nothing.
    let unsigned = world.notify(&fake, &fake.unsign(&genuine)).await;
    assert_eq!(unsigned.expect(200)["settled"], false);
    assert_eq!(fake.retrieved(), asked_before + 2);
}
