//! A fake PayU Latam: the WebCheckout form (checked: merchant, account,
//! amount, links, MD5 signature), confirmations signed as PayU signs them
//! (`sign`, with its `new_value` rounding), and the Payments API's
//! `SUBMIT_TRANSACTION` refunds (API login and key checked).

use super::*;
use axum::extract::State;
use axum::routing::post;
use md5::{Digest, Md5};
use std::sync::Mutex;

const MERCHANT_ID: &str = "508029";
const ACCOUNT_ID: &str = "512321";
const API_KEY: &str = "4Vj8eK4rloUd272L48hsrarnUA";
const API_LOGIN: &str = "pRRXKOl8ikMmt9u";

#[derive(Default)]
struct Books {
    /// Orders paid: (order id, transaction id).
    paid: Vec<(i64, String)>,
    refunds: Vec<(String, i64)>,
}

#[derive(Clone)]
pub struct FakePayULatam {
    base: String,
    books: Arc<Mutex<Books>>,
}

fn md5_hex(text: &str) -> String {
    hex::encode(Md5::digest(text.as_bytes()))
}

/// `new_value` by PayU's rule: drop a second decimal that is 0.
fn new_value(minor: i64) -> String {
    let two = format!("{}.{:02}", minor / 100, minor % 100);
    if two.ends_with('0') { two[..two.len() - 1].to_string() } else { two }
}

async fn service(State(books): State<Arc<Mutex<Books>>>, body: String) -> axum::Json<serde_json::Value> {
    let refused =
        |why: &str| axum::Json(serde_json::json!({"code": "ERROR", "error": why, "transactionResponse": null}));
    let Ok(request) = serde_json::from_str::<serde_json::Value>(&body) else { return refused("not JSON") };
    if request["merchant"]["apiLogin"] != API_LOGIN || request["merchant"]["apiKey"] != API_KEY {
        return refused("Invalid credentials");
    }
    let transaction = &request["transaction"];
    if request["command"] != "SUBMIT_TRANSACTION"
        || transaction["type"] != "REFUND"
        || transaction["reason"].as_str().is_none()
    {
        return refused("not a refund");
    }
    let (Some(order), Some(parent)) =
        (transaction["order"]["id"].as_i64(), transaction["parentTransactionId"].as_str())
    else {
        return refused("order.id and parentTransactionId");
    };
    let value = &transaction["additionalValues"]["TX_VALUE"];
    let Some(minor) = value["value"].as_str().and_then(|text| text.replace('.', "").parse::<i64>().ok()) else {
        return refused("TX_VALUE");
    };
    let mut books = books.lock().unwrap();
    if !books.paid.contains(&(order, parent.to_string())) {
        return refused("no such transaction");
    }
    books.refunds.push((parent.to_string(), minor));
    let id = format!("refund-{}", books.refunds.len());
    axum::Json(serde_json::json!({
        "code": "SUCCESS", "error": null,
        "transactionResponse": {"orderId": order, "transactionId": id, "state": "PENDING", "pendingReason": "PENDING_REVIEW"}
    }))
}

impl FakePayULatam {
    pub async fn start() -> FakePayULatam {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router =
            axum::Router::new().route("/payments-api/4.0/service.cgi", post(service)).with_state(books.clone());
        FakePayULatam { base: serve(router).await, books }
    }

    fn check_form(&self, paying: &Paying) {
        let Checkout::Form { action, .. } = &paying.checkout else { panic!("PayU takes a posted form") };
        assert!(action.ends_with("/ppp-web-gateway-payu/"), "{action}");
        let field = |name: &str| paying.checkout.field(name).unwrap_or_else(|| panic!("no {name}"));
        assert_eq!((field("merchantId"), field("accountId")), (MERCHANT_ID.to_string(), ACCOUNT_ID.to_string()));
        assert_eq!(field("referenceCode"), paying.payment.id.to_string());
        assert_eq!(field("amount"), format!("{:.2}", paying.payment.amount));
        assert_eq!(field("currency"), paying.payment.currency);
        assert_eq!((field("tax"), field("taxReturnBase")), ("0".to_string(), "0".to_string()));
        assert!(field("confirmationUrl").ends_with("/api/v1/payments/payulatam/webhook"));
        assert!(field("responseUrl").contains(&paying.payment.id.to_string()));
        let signed =
            format!("{API_KEY}~{MERCHANT_ID}~{}~{}~{}", field("referenceCode"), field("amount"), field("currency"));
        assert_eq!(field("signature"), md5_hex(&signed), "the checkout's signature");
    }

    /// A confirmation as PayU posts it.
    fn confirmation(&self, reference: &str, state: &str, minor: i64, currency: &str) -> Notification {
        let mut books = self.books.lock().unwrap();
        let order = 844_000_000 + books.paid.len() as i64;
        let transaction = uuid::Uuid::now_v7().to_string();
        if state == "4" {
            books.paid.push((order, transaction.clone()));
        }
        let value = format!("{}.{:02}", minor / 100, minor % 100);
        let sign = md5_hex(&format!("{API_KEY}~{MERCHANT_ID}~{reference}~{}~{currency}~{state}", new_value(minor)));
        Notification::form(&[
            ("merchant_id", MERCHANT_ID.to_string()),
            ("state_pol", state.to_string()),
            ("response_code_pol", if state == "4" { "1" } else { "5" }.to_string()),
            ("reference_sale", reference.to_string()),
            ("reference_pol", order.to_string()),
            ("sign", sign),
            ("value", value),
            ("currency", currency.to_string()),
            ("transaction_id", transaction),
            ("payment_method_type", "2".to_string()),
        ])
    }

    fn with_sign(notification: &Notification, sign: Option<String>) -> Notification {
        let mut fields = form_fields(&notification.body);
        fields.retain(|(key, _)| key != "sign");
        if let Some(sign) = sign {
            fields.push(("sign".to_string(), sign));
        }
        let fields: Vec<(&str, String)> = fields.iter().map(|(key, value)| (key.as_str(), value.clone())).collect();
        Notification::form(&fields)
    }
}

#[async_trait]
impl Fake for FakePayULatam {
    fn gateway(&self) -> &'static str {
        "payulatam"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("merchantId", MERCHANT_ID.into()),
            ("apiKey", API_KEY.into()),
            ("accountId", ACCOUNT_ID.into()),
            ("apiLogin", API_LOGIN.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.check_form(paying);
        self.confirmation(&paying.payment.id.to_string(), "4", minor(&paying.payment), &paying.payment.currency)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        self.check_form(paying);
        self.confirmation(&paying.payment.id.to_string(), "4", minor, currency)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        // Signed with another API key.
        let field = |name: &str| form_fields(&notification.body).into_iter().find(|(key, _)| key == name).unwrap().1;
        let minor: i64 = field("value").replace('.', "").parse().unwrap();
        let forged = md5_hex(&format!(
            "otherKey~{MERCHANT_ID}~{}~{}~{}~{}",
            field("reference_sale"),
            new_value(minor),
            field("currency"),
            field("state_pol")
        ));
        FakePayULatam::with_sign(notification, Some(forged))
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        FakePayULatam::with_sign(notification, None)
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        // Pending: PayU reports it only once final, but a 7 changes nothing.
        self.confirmation(&paying.payment.id.to_string(), "7", minor(&paying.payment), &paying.payment.currency)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.confirmation(&uuid::Uuid::now_v7().to_string(), "4", 1000, "COP")
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakePayULatam::start(), "COP", "USD");
