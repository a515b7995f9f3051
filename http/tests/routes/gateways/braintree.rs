//! A fake Braintree GraphQL API (`POST /graphql`: createClientToken,
//! chargePaymentMethod, a transaction search by order id, refundTransaction)
//! and webhooks signed as Braintree signs them (`bt_signature` =
//! `public|hex HMAC-SHA1`, `bt_payload` = base64 XML).
//!
//! Braintree has no hosted page: the payer pays on our page with the
//! Drop-in, which posts a nonce to our return route, and the server charges
//! it. The shared scenarios' "the payer pays at the provider" is, here, a
//! transaction for the payment that Braintree holds and notifies (settled)
//! without the server having heard its answer; the nonce the page posts is
//! charged in the tests at the end of this file.

use super::*;
use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use base64::Engine as _;
use serde_json::{Value, json};
use std::sync::Mutex;
use wayfare_http::payments::gateways::braintree::digest;

const MERCHANT_ID: &str = "fakemerchant";
const PUBLIC_KEY: &str = "fakepublickey";
const PRIVATE_KEY: &str = "fakeprivatekey";
/// The currency of the merchant account charges go to.
const CURRENCY: &str = "USD";
const VALID_NONCE: &str = "fake-valid-nonce";
const DECLINED_NONCE: &str = "fake-processor-declined-visa-nonce";

#[derive(Default)]
struct Books {
    client_tokens: usize,
    /// Nonces already charged (single use).
    used: Vec<String>,
    transactions: Vec<Value>,
    /// Charges asked: (amount, order id).
    charges: Vec<(String, String)>,
    refunds: Vec<(String, i64)>,
}

type Shared = Arc<Mutex<Books>>;

#[derive(Clone)]
pub struct FakeBraintree {
    base: String,
    books: Shared,
}

fn cents(value: &Value) -> Option<i64> {
    let (whole, fraction) = value.as_str()?.split_once('.')?;
    (fraction.len() == 2 && !whole.is_empty()).then_some(())?;
    Some(whole.parse::<i64>().ok()? * 100 + fraction.parse::<i64>().ok()?)
}

fn transaction(legacy: &str, status: &str, order: &str, value: &str, currency: &str) -> Value {
    json!({
        "id": base64::engine::general_purpose::STANDARD.encode(format!("transaction_{legacy}")), "legacyId": legacy,
        "status": status, "orderId": order, "amount": {"value": value, "currencyCode": currency},
    })
}

fn validation(message: &str) -> Json<Value> {
    Json(json!({"data": null, "errors": [{"message": message, "extensions": {"errorClass": "VALIDATION"}}]}))
}

async fn graphql(
    State(books): State<Shared>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> (axum::http::StatusCode, Json<Value>) {
    let basic =
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{PUBLIC_KEY}:{PRIVATE_KEY}")));
    if headers.get("authorization").and_then(|value| value.to_str().ok()) != Some(basic.as_str())
        || !headers.contains_key("braintree-version")
    {
        return (
            axum::http::StatusCode::UNAUTHORIZED,
            Json(
                json!({"errors": [{"message": "Authentication required", "extensions": {"errorClass": "AUTHENTICATION"}}]}),
            ),
        );
    }
    let query = request["query"].as_str().unwrap_or_default();
    let input = &request["variables"]["input"];
    let mut books = books.lock().unwrap();
    let answer = if query.contains("createClientToken") {
        books.client_tokens += 1;
        Json(
            json!({"data": {"createClientToken": {"clientToken": format!("eyJ2ZXJzaW9uIjoyfQ-fake-{}", books.client_tokens)}}}),
        )
    } else if query.contains("chargePaymentMethod") {
        let nonce = input["paymentMethodId"].as_str().unwrap_or_default().to_string();
        let amount = &input["transaction"]["amount"];
        let order = input["transaction"]["orderId"].as_str().unwrap_or_default().to_string();
        if cents(amount).is_none()
            || order.is_empty()
            || books.used.contains(&nonce)
            || ![VALID_NONCE, DECLINED_NONCE].contains(&nonce.as_str())
        {
            validation("Unknown or expired payment_method_nonce.")
        } else if nonce == DECLINED_NONCE {
            books.used.push(nonce);
            validation("Payment method was declined. Processor declined: Do Not Honor")
        } else {
            books.used.push(nonce);
            books.charges.push((amount.as_str().unwrap().to_string(), order.clone()));
            let legacy = format!("charge{}", books.transactions.len() + 1);
            let charged = transaction(&legacy, "SUBMITTED_FOR_SETTLEMENT", &order, amount.as_str().unwrap(), CURRENCY);
            books.transactions.push(charged.clone());
            Json(json!({"data": {"chargePaymentMethod": {"transaction": charged}}}))
        }
    } else if query.contains("search") {
        let order = input["orderId"]["is"].as_str().unwrap_or_default();
        let edges: Vec<Value> = books
            .transactions
            .iter()
            .filter(|found| found["orderId"] == order)
            .map(|node| json!({"node": node}))
            .collect();
        Json(json!({"data": {"search": {"transactions": {"edges": edges}}}}))
    } else if query.contains("refundTransaction") {
        let id = input["transactionId"].as_str().unwrap_or_default();
        let found = books.transactions.iter().find(|found| found["id"] == id).cloned();
        match (found, cents(&input["refund"]["amount"])) {
            (Some(found), Some(amount)) => {
                books.refunds.push((found["legacyId"].as_str().unwrap().to_string(), amount));
                let legacy = format!("refund{}", books.refunds.len());
                Json(
                    json!({"data": {"refundTransaction": {"refund": {"id": format!("cmVmdW5k{legacy}"), "legacyId": legacy, "status": "SUBMITTED_FOR_SETTLEMENT"}}}}),
                )
            }
            _ => validation("Cannot refund this transaction."),
        }
    } else {
        Json(json!({"errors": [{"message": "unknown query", "extensions": {"errorClass": "VALIDATION"}}]}))
    };
    (axum::http::StatusCode::OK, answer)
}

/// A webhook as Braintree posts it: base64 XML in lines, signed with `private_key`.
fn webhook(
    kind: &str,
    legacy: &str,
    status: &str,
    order: &str,
    value: &str,
    currency: &str,
    private_key: &str,
) -> Notification {
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<notification>\n  <kind>{kind}</kind>\n  <timestamp type=\"datetime\">2026-01-01T10:00:00Z</timestamp>\n  \
         <subject>\n    <transaction>\n      <id>{legacy}</id>\n      <status>{status}</status>\n      <type>sale</type>\n      \
         <currency-iso-code>{currency}</currency-iso-code>\n      <amount>{value}</amount>\n      <order-id>{order}</order-id>\n      \
         <customer>\n        <id nil=\"true\"/>\n      </customer>\n    </transaction>\n  </subject>\n</notification>\n"
    );
    let encoded = base64::engine::general_purpose::STANDARD.encode(xml);
    let mut payload = encoded
        .as_bytes()
        .chunks(60)
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n");
    payload.push('\n');
    let signature = format!("{PUBLIC_KEY}|{}", digest(private_key, payload.as_bytes()));
    Notification::form(&[("bt_signature", signature), ("bt_payload", payload)])
}

fn major(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

impl FakeBraintree {
    pub async fn start() -> FakeBraintree {
        let books: Shared = Arc::default();
        let router = axum::Router::new().route("/graphql", post(graphql)).with_state(books.clone());
        FakeBraintree { base: serve(router).await, books }
    }
}

#[async_trait]
impl Fake for FakeBraintree {
    fn gateway(&self) -> &'static str {
        "braintree"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("merchantId", MERCHANT_ID.into()),
            ("publicKey", PUBLIC_KEY.into()),
            ("privateKey", PRIVATE_KEY.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        assert!(
            matches!(&paying.checkout.page_form(), Checkout::Form { fields, .. } if fields.iter().any(|(name, _)| name == "payment_method_nonce")),
            "the Drop-in page posts a nonce back"
        );
        let order = paying.payment.id.to_string();
        let value = major(minor(&paying.payment));
        let legacy = {
            let mut books = self.books.lock().unwrap();
            let legacy = format!("settled{}", books.transactions.len() + 1);
            books.transactions.push(transaction(&legacy, "SETTLED", &order, &value, &paying.payment.currency));
            legacy
        };
        webhook("transaction_settled", &legacy, "settled", &order, &value, &paying.payment.currency, PRIVATE_KEY)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        let order = paying.payment.id.to_string();
        webhook(
            "transaction_settled",
            &format!("other{minor}{currency}"),
            "settled",
            &order,
            &major(minor),
            currency,
            PRIVATE_KEY,
        )
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let fields = form_fields(&notification.body);
        let payload = fields.iter().find(|(name, _)| name == "bt_payload").unwrap().1.clone();
        let signature = format!("{PUBLIC_KEY}|{}", digest("someone-elses-key", payload.as_bytes()));
        Notification::form(&[("bt_signature", signature), ("bt_payload", payload)])
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        let fields = form_fields(&notification.body);
        let payload = fields.iter().find(|(name, _)| name == "bt_payload").unwrap().1.clone();
        Notification::form(&[("bt_payload", payload)])
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        let value = major(minor(&paying.payment));
        webhook(
            "transaction_settlement_declined",
            "declined1",
            "settlement_declined",
            &paying.payment.id.to_string(),
            &value,
            &paying.payment.currency,
            PRIVATE_KEY,
        )
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        webhook(
            "transaction_settled",
            "stranger1",
            "settled",
            &uuid::Uuid::now_v7().to_string(),
            "10.00",
            "USD",
            PRIVATE_KEY,
        )
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeBraintree::start(), "USD", "EUR");

/// The Drop-in page's form, posted back to the server with `nonce`.
async fn post_nonce(world: &World, paying: &Paying, nonce: &str) -> Reply {
    let Checkout::Form { action, .. } = paying.checkout.page_form() else { panic!("the Drop-in page") };
    let path = action.trim_start_matches("https://ride.example.com");
    assert_eq!(path, format!("/api/v1/payments/braintree/return/{}", paying.payment.id));
    world.app.post_raw(path, None, "application/x-www-form-urlencoded", format!("payment_method_nonce={nonce}")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drop_in_nonce_is_charged_by_the_server() {
    let fake = FakeBraintree::start().await;
    let world = World::new(&fake, "USD").await;
    let paying = world.check_out_booking(&fake).await;
    assert_eq!(fake.books.lock().unwrap().client_tokens, 1, "the page is authorised by a client token");
    let back = post_nonce(&world, &paying, VALID_NONCE).await;
    assert_eq!(back.status.as_u16(), 303);
    assert_eq!(back.header(header::LOCATION), Some(format!("/bookings?trip={}", world.booking.id).as_str()));
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Paid);
    assert_eq!(world.status().await, BookingStatus::New);
    let charges = fake.books.lock().unwrap().charges.clone();
    assert_eq!(charges, vec![(major(minor(&paying.payment)), paying.payment.id.to_string())]);
    // Posted again, nothing is charged twice.
    post_nonce(&world, &paying, VALID_NONCE).await;
    assert_eq!(fake.books.lock().unwrap().charges.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_nonce_closes_the_payment() {
    let fake = FakeBraintree::start().await;
    let world = World::new(&fake, "USD").await;
    let paying = world.check_out_booking(&fake).await;
    let back = post_nonce(&world, &paying, DECLINED_NONCE).await;
    assert_eq!(back.header(header::LOCATION), Some("/"));
    assert_eq!(world.payment(&paying).await.status, PaymentStatus::Failed);
    assert_eq!(world.status().await, BookingStatus::PaymentPending);
}
