//! SecurePay (Australia) SecureFrame, the hosted payment page the original
//! product used: a form posted to `/secureframe/invoice` with a fingerprint
//! (SHA-1 of `merchant|password|txn_type|primary_ref|amount|fp_timestamp`,
//! as SecurePay's SecureFrame guide gives it). SecurePay posts the result to
//! `callback_url` (our webhook) and sends the payer to `return_url` with the
//! same fields, signed by a result fingerprint (SHA-1 of
//! `merchant|password|refid|amount|timestamp|summarycode`). Refunds go to
//! SecurePay's XML API (`txnType` 4) with the same merchant id and
//! transaction password.
//!
//! SecurePay's newer REST API (OAuth client credentials) takes card tokens
//! made by its browser component and has no hosted page; it would need
//! credentials the original settings do not have, so SecureFrame it is.

use super::payfast::utc;
use crate::payments::gateway::*;
use async_trait::async_trait;
use md5::{Digest, Md5};
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct SecurePay;

const MERCHANT_CODE: &str = "MERCHANT_CODE";
const TXN_PASSWORD: &str = "TXN_PASSWORD";

const FIELDS: &[Field] = &[Field::text(MERCHANT_CODE), Field::secret(TXN_PASSWORD)];

const LIVE: &str = "https://payment.securepay.com.au";
const TEST: &str = "https://test.payment.securepay.com.au";
const XML_LIVE: &str = "https://api.securepay.com.au";
const XML_TEST: &str = "https://test.api.securepay.com.au";

fn sha1_hex(text: &str) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, text.as_bytes()).as_ref())
}

/// The fingerprint of a payment request.
pub fn request_fingerprint(
    merchant: &str,
    password: &str,
    txn_type: &str,
    reference: &str,
    cents: &str,
    timestamp: &str,
) -> String {
    sha1_hex(&format!("{merchant}|{password}|{txn_type}|{reference}|{cents}|{timestamp}"))
}

/// The fingerprint of a result.
pub fn result_fingerprint(
    merchant: &str,
    password: &str,
    reference: &str,
    cents: &str,
    timestamp: &str,
    summary: &str,
) -> String {
    sha1_hex(&format!("{merchant}|{password}|{reference}|{cents}|{timestamp}|{summary}"))
}

/// The text of the first `<name>…</name>` in an XML answer.
fn tag<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{name}>"))? + start;
    Some(xml[start..end].trim())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

impl SecurePay {
    fn xml_api(call: &Call<'_>) -> String {
        match &call.settings.api_base {
            Some(_) => call.api_base.trim_end_matches('/').to_string(),
            None if call.settings.testing => XML_TEST.to_string(),
            None => XML_LIVE.to_string(),
        }
    }

    /// Checks a result's fingerprint and reads it; `None` without one.
    fn verified(call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Option<Verdict>, GatewayError> {
        let field = |name: &str| incoming.param(name).map(|value| value.trim().to_string());
        let Some(fingerprint) = field("fingerprint") else { return Ok(None) };
        let missing = |name: &str| GatewayError::Malformed(format!("no {name}"));
        let reference = field("refid").ok_or_else(|| missing("refid"))?;
        let cents = field("amount").ok_or_else(|| missing("amount"))?;
        let timestamp = field("timestamp").ok_or_else(|| missing("timestamp"))?;
        let summary = field("summarycode").ok_or_else(|| missing("summarycode"))?;
        let expected = result_fingerprint(
            call.get(MERCHANT_CODE)?,
            call.get(TXN_PASSWORD)?,
            &reference,
            &cents,
            &timestamp,
            &summary,
        );
        if !same_bytes(expected.as_bytes(), fingerprint.to_ascii_lowercase().as_bytes()) {
            return Err(GatewayError::Signature("the result's fingerprint does not match".into()));
        }
        let key = PaymentKey::from_text(&reference);
        Ok(Some(match summary.as_str() {
            "1" => {
                let cents: i64 = cents.parse().map_err(|_| missing("amount"))?;
                Verdict::Paid(Received {
                    payment: key,
                    reference: None,
                    event_id: field("txnid").ok_or_else(|| missing("txnid"))?,
                    // In cents; SecureFrame's result names no currency.
                    amount: from_minor(cents, "AUD"),
                    currency: None,
                })
            }
            // Declined by the bank, or for another reason.
            "2" | "3" => Verdict::Failed(key),
            _ => Verdict::Nothing,
        }))
    }
}

#[async_trait]
impl Gateway for SecurePay {
    fn name(&self) -> &'static str {
        "securepay"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { TEST } else { LIVE }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let merchant = call.get(MERCHANT_CODE)?;
        let cents = minor_units(payment.amount, "AUD")
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than cents".into()))?
            .to_string();
        let (year, month, day, hour, minute, second) = utc(call.now_secs());
        let timestamp = format!("{year:04}{month:02}{day:02}{hour:02}{minute:02}{second:02}");
        let reference = payment.id.to_string();
        let fingerprint = request_fingerprint(merchant, call.get(TXN_PASSWORD)?, "0", &reference, &cents, &timestamp);
        let fields = [
            ("bill_name", "transact".to_string()),
            ("merchant_id", merchant.to_string()),
            ("primary_ref", reference),
            ("txn_type", "0".into()),
            ("amount", cents),
            ("currency", payment.currency.to_ascii_uppercase()),
            ("fp_timestamp", timestamp),
            ("fingerprint", fingerprint),
            ("return_url", order.return_url.clone()),
            ("return_url_target", "parent".into()),
            ("cancel_url", order.cancel_url.clone()),
            ("callback_url", order.notify_url.clone()),
            ("template", "responsive".into()),
            ("confirmation", "no".into()),
            ("display_receipt", "no".into()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        Ok(Started { to: Start::PostForm { action: call.url("/secureframe/invoice"), fields }, reference: None })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        SecurePay::verified(call, incoming)?.ok_or_else(|| GatewayError::Signature("no fingerprint".into()))
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        _payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        Ok(SecurePay::verified(call, incoming)?.unwrap_or(Verdict::Nothing))
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let txn_id =
            payment.event_id.as_deref().ok_or(GatewayError::Unsupported("no SecurePay transaction to refund"))?;
        let cents = minor_units(amount, "AUD")
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than cents".into()))?;
        let (year, month, day, hour, minute, second) = utc(call.now_secs());
        let millis = call.now_ms.rem_euclid(1000);
        // SecurePay's own layout: YYYYDDMMHHNNSSKKK000sOOO.
        let stamp = format!("{year:04}{day:02}{month:02}{hour:02}{minute:02}{second:02}{millis:03}000+000");
        // At most 30 characters, the same for a retried refund.
        let message_id: String = hex::encode(Md5::digest(key.as_bytes())).chars().take(30).collect();
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SecurePayMessage>\
             <MessageInfo><messageID>{message_id}</messageID><messageTimestamp>{stamp}</messageTimestamp>\
             <timeoutValue>60</timeoutValue><apiVersion>xml-4.2</apiVersion></MessageInfo>\
             <MerchantInfo><merchantID>{}</merchantID><password>{}</password></MerchantInfo>\
             <RequestType>Payment</RequestType>\
             <Payment><TxnList count=\"1\"><Txn ID=\"1\"><txnType>4</txnType><txnSource>23</txnSource>\
             <amount>{cents}</amount><currency>{}</currency><purchaseOrderNo>{}</purchaseOrderNo>\
             <txnID>{}</txnID></Txn></TxnList></Payment></SecurePayMessage>",
            escape(call.get(MERCHANT_CODE)?),
            escape(call.get(TXN_PASSWORD)?),
            escape(&payment.currency.to_ascii_uppercase()),
            payment.id,
            escape(txn_id),
        );
        let response = call
            .http
            .post(format!("{}/xmlapi/payment", SecurePay::xml_api(call)))
            .header(reqwest::header::CONTENT_TYPE, "text/xml")
            .body(xml)
            .send()
            .await?;
        let status = response.status();
        let answer = response.text().await?;
        if !status.is_success() || tag(&answer, "statusCode") != Some("000") {
            return Err(GatewayError::Provider(format!(
                "refund answered {status}: {:?}",
                tag(&answer, "statusDescription")
            )));
        }
        match (tag(&answer, "approved"), tag(&answer, "txnID")) {
            (Some("Yes"), Some(id)) if !id.is_empty() => Ok(Refunded { reference: id.to_string() }),
            _ => Err(GatewayError::Provider(format!("refund not approved: {:?}", tag(&answer, "responseText")))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_made_elsewhere_match() {
        // Python: sha1(b"ABC0001|abc123|0|ref-1|2585|20300101100000").hexdigest()
        assert_eq!(
            request_fingerprint("ABC0001", "abc123", "0", "ref-1", "2585", "20300101100000"),
            "dd70644002af8b7dd9ab348044390db7268b59dc"
        );
        // Python: sha1(b"ABC0001|abc123|ref-1|2585|20300101100005|1").hexdigest()
        assert_eq!(
            result_fingerprint("ABC0001", "abc123", "ref-1", "2585", "20300101100005", "1"),
            "c1a6b34d2baf9293cabb3f66bd25d50699b016de"
        );
    }

    #[test]
    fn xml_answers_are_read_by_tag() {
        let xml =
            "<Status><statusCode>000</statusCode></Status><Txn><approved>Yes</approved><txnID> 009887 </txnID></Txn>";
        assert_eq!(
            (tag(xml, "statusCode"), tag(xml, "approved"), tag(xml, "txnID")),
            (Some("000"), Some("Yes"), Some("009887"))
        );
        assert_eq!(tag(xml, "missing"), None);
        assert_eq!(escape("a&b<c>"), "a&amp;b&lt;c&gt;");
    }
}
