//! Braintree: the payer pays on a page of ours with Braintree's Drop-in
//! (its script, loaded by the payer's browser, turns a card into a
//! single-use nonce), authorised by a client token the server makes
//! (`createClientToken`). The page posts the nonce to our return route, and
//! the server charges it (`chargePaymentMethod`, our payment id as
//! `orderId`) and confirms from Braintree's answer. The server speaks
//! Braintree's GraphQL API (basic auth with the public and private keys,
//! `Braintree-Version`). Webhooks (`bt_signature`, `bt_payload`) are signed:
//! `<public key>|<hex HMAC-SHA1 of the payload, keyed with SHA-1 of the
//! private key>`. Refunds: `refundTransaction`.

use crate::payments::gateway::*;
use async_trait::async_trait;
use base64::Engine as _;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use wayfare_storage::PaymentRecord;

pub struct Braintree;

/// The GraphQL API version the queries are written against.
pub const BRAINTREE_VERSION: &str = "2019-01-01";

/// The Drop-in script the payer's browser loads.
const DROP_IN: &str = "https://js.braintreegateway.com/web/dropin/1.43.0/js/dropin.min.js";

const FIELDS: &[Field] = &[
    // Braintree's REST paths name the merchant; GraphQL knows it from the keys.
    Field::text("merchantId").optional(),
    Field::text("publicKey"),
    Field::secret("privateKey"),
];

const TRANSACTION_FIELDS: &str = "id legacyId status orderId amount { value currencyCode }";

/// The hex HMAC-SHA1 Braintree signs payloads with: keyed with the SHA-1 of the private key.
pub fn digest(private_key: &str, payload: &[u8]) -> String {
    let key_digest = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, private_key.as_bytes());
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, key_digest.as_ref());
    hex::encode(ring::hmac::sign(&key, payload).as_ref())
}

/// Checks a `bt_signature` (`public|hex` pairs joined by `&`) against the
/// payload, as Braintree's libraries do (the payload may have lost a final newline).
pub fn verify(signature: &str, payload: &str, public_key: &str, private_key: &str) -> Result<(), GatewayError> {
    if payload.bytes().any(|byte| !(byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=' | b'\n'))) {
        return Err(GatewayError::Signature("the payload is not base64".into()));
    }
    let given = signature
        .split('&')
        .filter_map(|pair| pair.split_once('|'))
        .find(|(public, _)| *public == public_key)
        .map(|(_, hex)| hex)
        .ok_or_else(|| GatewayError::Signature("no signature for this public key".into()))?;
    let matches = [payload.to_string(), format!("{payload}\n")]
        .iter()
        .any(|candidate| same_bytes(given.as_bytes(), digest(private_key, candidate.as_bytes()).as_bytes()));
    if !matches {
        return Err(GatewayError::Signature("the signature does not match the payload".into()));
    }
    Ok(())
}

/// The text of the first `<tag>` element after `<within>` in Braintree's XML.
fn element<'a>(xml: &'a str, within: &str, tag: &str) -> Option<&'a str> {
    let start = xml.find(&format!("<{within}>")).or_else(|| xml.find(&format!("<{within} ")))?;
    let rest = &xml[start..];
    let open = rest.find(&format!("<{tag}>")).or_else(|| rest.find(&format!("<{tag} ")))?;
    let rest = &rest[open..];
    let body = &rest[rest.find('>')? + 1..];
    if rest[..rest.find('>')?].ends_with('/') {
        return None;
    }
    Some(body[..body.find(&format!("</{tag}>"))?].trim())
}

/// A transaction as money received, failed, or not yet either.
fn verdict(id: &str, status: &str, order: Option<&str>, amount: Option<Decimal>, currency: Option<&str>) -> Verdict {
    let Some(order) = order.filter(|order| !order.is_empty()) else { return Verdict::Nothing };
    let key = PaymentKey::from_text(order);
    match status.to_ascii_uppercase().as_str() {
        "SUBMITTED_FOR_SETTLEMENT" | "SETTLING" | "SETTLED" | "SETTLEMENT_PENDING" => {
            let (Some(amount), Some(currency)) = (amount, currency) else { return Verdict::Nothing };
            Verdict::Paid(Received {
                payment: key,
                reference: None,
                event_id: id.to_string(),
                amount,
                currency: Some(currency.to_ascii_uppercase()),
            })
        }
        "FAILED" | "GATEWAY_REJECTED" | "PROCESSOR_DECLINED" | "SETTLEMENT_DECLINED" | "VOIDED" => Verdict::Failed(key),
        _ => Verdict::Nothing,
    }
}

/// A GraphQL transaction as a verdict (its legacy id is the one webhooks name).
fn transaction_verdict(transaction: &Value) -> Verdict {
    let id = transaction["legacyId"].as_str().or_else(|| transaction["id"].as_str()).unwrap_or_default();
    verdict(
        id,
        transaction["status"].as_str().unwrap_or_default(),
        transaction["orderId"].as_str(),
        major_from_json(&transaction["amount"]["value"]),
        transaction["amount"]["currencyCode"].as_str(),
    )
}

/// A webhook's payload (base64 XML) as a verdict.
fn notification_verdict(payload: &str) -> Result<Verdict, GatewayError> {
    let compact: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
    let xml = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| GatewayError::Malformed("the payload is not base64 XML".into()))?;
    let kind = element(&xml, "notification", "kind").unwrap_or_default();
    if !matches!(kind, "transaction_settled" | "transaction_settlement_declined") {
        return Ok(Verdict::Nothing);
    }
    let field = |tag: &str| element(&xml, "transaction", tag);
    let Some(id) = field("id") else { return Err(GatewayError::Malformed("a transaction without id".into())) };
    Ok(verdict(
        id,
        field("status").unwrap_or_default(),
        field("order-id"),
        field("amount").and_then(|amount| amount.parse().ok()),
        field("currency-iso-code"),
    ))
}

/// Text for a page's script: a JSON string that cannot close the script.
fn script_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default().replace('<', "\\u003c")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Braintree {
    async fn graphql(call: &Call<'_>, query: &str, variables: Value) -> Result<Value, GatewayError> {
        let response = call
            .http
            .post(call.url("/graphql"))
            .basic_auth(call.get("publicKey")?, Some(call.get("privateKey")?))
            .header("Braintree-Version", BRAINTREE_VERSION)
            .header("Content-Type", "application/json")
            .body(json!({"query": query, "variables": variables}).to_string())
            .send()
            .await?;
        json_answer(response).await
    }

    /// The first error of an answer, if any: whether it is the payer's (a
    /// decline, a used nonce) and what it says.
    fn error(answer: &Value) -> Option<(bool, String)> {
        let error = answer["errors"].as_array()?.first()?;
        let validation = error["extensions"]["errorClass"] == "VALIDATION";
        Some((validation, error["message"].as_str().unwrap_or("an error").to_string()))
    }

    /// The transactions made for one of our payments.
    async fn transactions(call: &Call<'_>, payment: &PaymentRecord) -> Result<Vec<Value>, GatewayError> {
        let query = format!(
            "query Search($input: TransactionSearchInput!) {{ search {{ transactions(input: $input, first: 10) {{ edges {{ node {{ {TRANSACTION_FIELDS} }} }} }} }} }}"
        );
        let answer =
            Braintree::graphql(call, &query, json!({"input": {"orderId": {"is": payment.id.to_string()}}})).await?;
        if let Some((_, message)) = Braintree::error(&answer) {
            return Err(GatewayError::Provider(message));
        }
        let edges = answer["data"]["search"]["transactions"]["edges"].as_array().cloned().unwrap_or_default();
        Ok(edges.into_iter().map(|edge| edge["node"].clone()).collect())
    }

    /// The transaction of a payment that is paid, if one is.
    async fn paid(call: &Call<'_>, payment: &PaymentRecord) -> Result<Option<(Value, Received)>, GatewayError> {
        Ok(Braintree::transactions(call, payment).await?.into_iter().find_map(|transaction| match transaction_verdict(
            &transaction,
        ) {
            Verdict::Paid(received) => Some((transaction, received)),
            _ => None,
        }))
    }
}

#[async_trait]
impl Gateway for Braintree {
    fn name(&self) -> &'static str {
        "braintree"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { "https://payments.sandbox.braintree-api.com" } else { "https://payments.braintree-api.com" }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let answer = Braintree::graphql(
            call,
            "mutation ClientToken($input: CreateClientTokenInput) { createClientToken(input: $input) { clientToken } }",
            json!({"input": {}}),
        )
        .await?;
        if let Some((_, message)) = Braintree::error(&answer) {
            return Err(GatewayError::Provider(message));
        }
        let token = answer["data"]["createClientToken"]["clientToken"]
            .as_str()
            .ok_or_else(|| GatewayError::Provider("no client token".into()))?;
        let page = format!(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
             <title>Payment</title><script src=\"{DROP_IN}\"></script></head>\n\
             <body style=\"font-family: sans-serif; max-width: 28rem; margin: 3rem auto\">\n\
             <p>{}</p>\n<p id=\"amount\">{} {}</p>\n<div id=\"dropin\"></div>\n\
             <form id=\"pay\" method=\"post\" action=\"{}\"><input type=\"hidden\" name=\"payment_method_nonce\" value=\"\">\
             <button type=\"submit\">Pay</button></form>\n<p><a href=\"{}\">Cancel</a></p>\n\
             <script>\nbraintree.dropin.create({{authorization: {}, container: \"#dropin\"}}, function (error, dropin) {{\n\
             \x20 if (error) {{ document.getElementById(\"dropin\").textContent = \"The payment form could not load.\"; return; }}\n\
             \x20 document.getElementById(\"pay\").addEventListener(\"submit\", function (event) {{\n\
             \x20   event.preventDefault();\n\
             \x20   dropin.requestPaymentMethod(function (error, method) {{\n\
             \x20     if (error) return;\n\
             \x20     event.target.elements.payment_method_nonce.value = method.nonce;\n\
             \x20     event.target.submit();\n\
             \x20   }});\n\
             \x20 }});\n\
             }});\n</script>\n</body></html>\n",
            escape(&order.description),
            escape(&two_decimals(payment.amount)),
            escape(&payment.currency),
            escape(&order.return_url),
            escape(&order.cancel_url),
            script_string(token),
        );
        Ok(Started { to: Start::Page(page), reference: None })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let (Some(signature), Some(payload)) = (incoming.param("bt_signature"), incoming.param("bt_payload")) else {
            return Err(GatewayError::Signature("no bt_signature or bt_payload".into()));
        };
        verify(&signature, &payload, call.get("publicKey")?, call.get("privateKey")?)?;
        notification_verdict(&payload)
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // Charged before (a second submit, or the answer was lost): that charge stands.
        if let Some((_, received)) = Braintree::paid(call, payment).await? {
            return Ok(Verdict::Paid(received));
        }
        let Some(nonce) = incoming.param("payment_method_nonce").filter(|nonce| !nonce.trim().is_empty()) else {
            return Ok(Verdict::Nothing);
        };
        let query = format!(
            "mutation Charge($input: ChargePaymentMethodInput!) {{ chargePaymentMethod(input: $input) {{ transaction {{ {TRANSACTION_FIELDS} }} }} }}"
        );
        let input = json!({"input": {
            "paymentMethodId": nonce.trim(),
            "transaction": {"amount": two_decimals(payment.amount), "orderId": payment.id.to_string()},
        }});
        let answer = Braintree::graphql(call, &query, input).await?;
        match Braintree::error(&answer) {
            // Declined, or a nonce that cannot be charged: the payer starts again.
            Some((true, message)) => {
                tracing::info!(payment = %payment.id, %message, "Braintree refused the charge");
                Ok(Verdict::Failed(PaymentKey::Ours(payment.id)))
            }
            Some((false, message)) => Err(GatewayError::Provider(message)),
            None => Ok(transaction_verdict(&answer["data"]["chargePaymentMethod"]["transaction"])),
        }
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let (transaction, _) = Braintree::paid(call, payment)
            .await?
            .ok_or_else(|| GatewayError::Provider("no paid Braintree transaction".into()))?;
        let id = transaction["id"].as_str().ok_or_else(|| GatewayError::Provider("a transaction without id".into()))?;
        let answer = Braintree::graphql(
            call,
            "mutation Refund($input: RefundTransactionInput!) { refundTransaction(input: $input) { refund { id legacyId status } } }",
            // Braintree takes no idempotency key: the refund key goes as its order id.
            json!({"input": {"transactionId": id, "refund": {"amount": two_decimals(amount), "orderId": key}}}),
        )
        .await?;
        if let Some((_, message)) = Braintree::error(&answer) {
            return Err(GatewayError::Provider(message));
        }
        let refund = &answer["data"]["refundTransaction"]["refund"];
        refund["legacyId"]
            .as_str()
            .or_else(|| refund["id"].as_str())
            .map(|id| Refunded { reference: id.to_string() })
            .ok_or_else(|| GatewayError::Provider("a refund without id".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_made_elsewhere_verifies() {
        // Python: hmac.new(hashlib.sha1(b"private_key").digest(), b"cGF5bG9hZA==", hashlib.sha1).hexdigest()
        let expected = "8b73baa6945c50661acb13b6922e3a259f4cd4b6";
        assert_eq!(digest("private_key", b"cGF5bG9hZA=="), expected);
        let signature = format!("other_key|{}&public_key|{expected}", "0".repeat(40));
        assert!(verify(&signature, "cGF5bG9hZA==", "public_key", "private_key").is_ok());
        // The payload as Braintree may send it, with a final newline lost on the way.
        assert!(
            verify(
                &format!("public_key|{}", digest("private_key", b"cGF5bG9hZA==\n")),
                "cGF5bG9hZA==",
                "public_key",
                "private_key"
            )
            .is_ok()
        );
        assert!(matches!(
            verify(&signature, "cGF5bG9hZB==", "public_key", "private_key"),
            Err(GatewayError::Signature(_))
        ));
        assert!(matches!(verify(&signature, "cGF5bG9hZA==", "public_key", "other"), Err(GatewayError::Signature(_))));
        assert!(matches!(
            verify("public_key", "cGF5bG9hZA==", "public_key", "private_key"),
            Err(GatewayError::Signature(_))
        ));
        assert!(matches!(verify(&signature, "<xml>", "public_key", "private_key"), Err(GatewayError::Signature(_))));
    }

    #[test]
    fn a_settled_transaction_notification_is_money_received() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<notification><kind>transaction_settled</kind>\
            <timestamp type=\"datetime\">2026-01-01T10:00:00Z</timestamp><subject><transaction><id>7b5b5e2a</id>\
            <status>settled</status><currency-iso-code>USD</currency-iso-code><amount>25.85</amount>\
            <order-id>0190a3f0-0000-7000-8000-000000000001</order-id><customer><id nil=\"true\"/></customer>\
            </transaction></subject></notification>";
        let payload = base64::engine::general_purpose::STANDARD.encode(xml);
        let Verdict::Paid(paid) = notification_verdict(&payload).unwrap() else { panic!("paid") };
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!(
            (paid.event_id.as_str(), paid.amount, paid.currency.as_deref()),
            ("7b5b5e2a", Decimal::new(2585, 2), Some("USD"))
        );
        let declined = xml
            .replace("transaction_settled", "transaction_settlement_declined")
            .replace(">settled<", ">settlement_declined<");
        let payload = base64::engine::general_purpose::STANDARD.encode(declined);
        assert!(matches!(notification_verdict(&payload).unwrap(), Verdict::Failed(_)));
        let check = base64::engine::general_purpose::STANDARD.encode("<notification><kind>check</kind></notification>");
        assert_eq!(notification_verdict(&check).unwrap(), Verdict::Nothing);
    }

    #[test]
    fn graphql_transactions_read_by_status() {
        let transaction = |status: &str| {
            json!({"id": "dHJhbnNhY3Rpb25fN2I1YjVlMmE", "legacyId": "7b5b5e2a", "status": status,
                "orderId": "0190a3f0-0000-7000-8000-000000000001", "amount": {"value": "25.85", "currencyCode": "EUR"}})
        };
        let Verdict::Paid(paid) = transaction_verdict(&transaction("SUBMITTED_FOR_SETTLEMENT")) else { panic!("paid") };
        assert_eq!((paid.event_id.as_str(), paid.currency.as_deref()), ("7b5b5e2a", Some("EUR")));
        assert!(matches!(transaction_verdict(&transaction("PROCESSOR_DECLINED")), Verdict::Failed(_)));
        assert_eq!(transaction_verdict(&transaction("AUTHORIZING")), Verdict::Nothing);
        assert_eq!(script_string("a</script>"), "\"a\\u003c/script>\"");
    }
}
