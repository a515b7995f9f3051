//! A fake SecurePay: the SecureFrame form (checked: merchant, cents,
//! timestamp, links and the SHA-1 fingerprint with the transaction
//! password), results signed with the result fingerprint, and the XML API's
//! refunds (`txnType` 4, merchant and password checked, the original
//! transaction known).

use super::*;
use axum::extract::State;
use axum::routing::post;
use std::collections::HashMap;
use std::sync::Mutex;

const MERCHANT: &str = "ABC0001";
const PASSWORD: &str = "abc123";

#[derive(Default)]
struct Books {
    /// Approved transactions: txnid → primary_ref.
    approved: HashMap<String, String>,
    refunds: Vec<(String, i64)>,
    transactions: u64,
}

#[derive(Clone)]
pub struct FakeSecurePay {
    base: String,
    books: Arc<Mutex<Books>>,
}

fn sha1_hex(text: &str) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, text.as_bytes()).as_ref())
}

fn tag(xml: &str, name: &str) -> String {
    let open = format!("<{name}>");
    let start = xml.find(&open).map(|at| at + open.len()).unwrap_or(0);
    let end = xml[start..].find(&format!("</{name}>")).map_or(start, |at| at + start);
    xml[start..end].to_string()
}

async fn xml_api(State(books): State<Arc<Mutex<Books>>>, body: String) -> String {
    let status = |code: &str, text: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><SecurePayMessage><Status><statusCode>{code}</statusCode><statusDescription>{text}</statusDescription></Status></SecurePayMessage>"
        )
    };
    if tag(&body, "merchantID") != MERCHANT || tag(&body, "password") != PASSWORD {
        return status("504", "Invalid merchant ID");
    }
    if tag(&body, "RequestType") != "Payment" || tag(&body, "txnType") != "4" || tag(&body, "messageID").len() > 30 {
        return status("577", "Invalid request");
    }
    let parent = tag(&body, "txnID");
    let Ok(cents) = tag(&body, "amount").parse::<i64>() else { return status("577", "amount in cents") };
    let mut books = books.lock().unwrap();
    if books.approved.get(&parent) != Some(&tag(&body, "purchaseOrderNo")) {
        return status("000", "Normal").replace("</Status>", "</Status><Payment><TxnList count=\"1\"><Txn ID=\"1\"><approved>No</approved><responseText>No such transaction</responseText></Txn></TxnList></Payment>");
    }
    books.refunds.push((parent, cents));
    let id = format!("R{:06}", books.refunds.len());
    status("000", "Normal").replace(
        "</Status>",
        &format!("</Status><RequestType>Payment</RequestType><Payment><TxnList count=\"1\"><Txn ID=\"1\"><txnType>4</txnType><amount>{cents}</amount><approved>Yes</approved><responseCode>00</responseCode><responseText>Approved</responseText><txnID>{id}</txnID></Txn></TxnList></Payment>"),
    )
}

impl FakeSecurePay {
    pub async fn start() -> FakeSecurePay {
        let books: Arc<Mutex<Books>> = Arc::default();
        let router = axum::Router::new().route("/xmlapi/payment", post(xml_api)).with_state(books.clone());
        FakeSecurePay { base: serve(router).await, books }
    }

    fn check_form(&self, paying: &Paying) {
        let Checkout::Form { action, .. } = &paying.checkout else { panic!("SecureFrame takes a posted form") };
        assert!(action.ends_with("/secureframe/invoice"), "{action}");
        let field = |name: &str| paying.checkout.field(name).unwrap_or_else(|| panic!("no {name}"));
        assert_eq!(
            (field("bill_name"), field("merchant_id"), field("txn_type")),
            ("transact".into(), MERCHANT.into(), "0".into())
        );
        assert_eq!(field("primary_ref"), paying.payment.id.to_string());
        assert_eq!(field("amount"), minor(&paying.payment).to_string(), "cents");
        let timestamp = field("fp_timestamp");
        assert!(timestamp.len() == 14 && timestamp.bytes().all(|byte| byte.is_ascii_digit()), "{timestamp}");
        assert!(field("callback_url").ends_with("/api/v1/payments/securepay/webhook"));
        assert!(field("return_url").contains(&paying.payment.id.to_string()));
        let signed = format!("{MERCHANT}|{PASSWORD}|0|{}|{}|{timestamp}", field("primary_ref"), field("amount"));
        assert_eq!(field("fingerprint"), sha1_hex(&signed), "the request's fingerprint");
    }

    fn result(&self, reference: &str, summary: &str, cents: i64, password: &str) -> Notification {
        let mut books = self.books.lock().unwrap();
        books.transactions += 1;
        let txnid = format!("{:06}", 9887 + books.transactions);
        if summary == "1" {
            books.approved.insert(txnid.clone(), reference.to_string());
        }
        let timestamp = "20300101100005";
        let fingerprint = sha1_hex(&format!("{MERCHANT}|{password}|{reference}|{cents}|{timestamp}|{summary}"));
        Notification::form(&[
            ("refid", reference.to_string()),
            ("rescode", if summary == "1" { "00" } else { "05" }.to_string()),
            ("restext", if summary == "1" { "Approved" } else { "Do not honour" }.to_string()),
            ("txnid", txnid),
            ("settdate", "20300101".to_string()),
            ("amount", cents.to_string()),
            ("timestamp", timestamp.to_string()),
            ("summarycode", summary.to_string()),
            ("fingerprint", fingerprint),
        ])
    }

    fn without(notification: &Notification, name: &str) -> Vec<(String, String)> {
        form_fields(&notification.body).into_iter().filter(|(key, _)| key != name).collect()
    }
}

#[async_trait]
impl Fake for FakeSecurePay {
    fn gateway(&self) -> &'static str {
        "securepay"
    }

    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MERCHANT_CODE", MERCHANT.into()),
            ("TXN_PASSWORD", PASSWORD.into()),
            ("testing", "true".into()),
            ("api_base", self.base.clone()),
        ]
    }

    fn signs(&self) -> bool {
        true
    }

    async fn pay(&self, paying: &Paying) -> Notification {
        self.check_form(paying);
        self.result(&paying.payment.id.to_string(), "1", minor(&paying.payment), PASSWORD)
    }

    async fn pay_other(&self, paying: &Paying, minor: i64, currency: &str) -> Notification {
        assert_eq!(currency, paying.payment.currency, "SecureFrame's result names no currency");
        self.check_form(paying);
        self.result(&paying.payment.id.to_string(), "1", minor, PASSWORD)
    }

    fn forge(&self, notification: &Notification) -> Notification {
        let fields = form_fields(&notification.body);
        let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()).unwrap();
        let forged = sha1_hex(&format!(
            "{MERCHANT}|guess|{}|{}|{}|{}",
            field("refid"),
            field("amount"),
            field("timestamp"),
            field("summarycode")
        ));
        let mut fields = FakeSecurePay::without(notification, "fingerprint");
        fields.push(("fingerprint".into(), forged));
        Notification::form(&fields.iter().map(|(key, value)| (key.as_str(), value.clone())).collect::<Vec<_>>())
    }

    fn unsign(&self, notification: &Notification) -> Notification {
        let fields = FakeSecurePay::without(notification, "fingerprint");
        Notification::form(&fields.iter().map(|(key, value)| (key.as_str(), value.clone())).collect::<Vec<_>>())
    }

    async fn unpaid(&self, paying: &Paying) -> Notification {
        self.result(&paying.payment.id.to_string(), "2", minor(&paying.payment), PASSWORD)
    }

    async fn stranger(&self, _now_secs: i64) -> Notification {
        self.result(&uuid::Uuid::now_v7().to_string(), "1", 1000, PASSWORD)
    }

    fn refunds(&self) -> Vec<(String, i64)> {
        self.books.lock().unwrap().refunds.clone()
    }
}

crate::gateway_scenarios!(FakeSecurePay::start(), "AUD", "");
