//! Stripe Checkout: a Checkout Session made through Stripe's API (form
//! encoded, `Authorization: Bearer <secret key>`), and the signed webhook
//! that confirms it (`Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
//! "<t>.<body>" with the endpoint's secret>`).

use crate::config::StripeConfig;
use hmac::{Hmac, Mac};
use rust_decimal::Decimal;
use serde::Deserialize;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Why a webhook's signature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("no Stripe-Signature header, or no timestamp or v1 signature in it")]
    Malformed,
    #[error("no v1 signature matches the payload")]
    Mismatch,
    #[error("the signed timestamp is outside the tolerance")]
    Stale,
}

/// Checks a webhook's `Stripe-Signature` header against its raw body, as
/// Stripe's libraries do: any `v1` may match (several during a secret's
/// rotation); the timestamp must be within `tolerance_secs` of `now_secs`.
/// Returns the signed timestamp.
pub fn verify_signature(
    payload: &[u8],
    header: &str,
    secret: &str,
    now_secs: i64,
    tolerance_secs: u64,
) -> Result<i64, SignatureError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => {
                if let Ok(bytes) = hex::decode(value) {
                    signatures.push(bytes);
                }
            }
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else { return Err(SignatureError::Malformed) };
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    let mut expected = HmacSha256::new_from_slice(secret.as_bytes()).map_err(|_| SignatureError::Malformed)?;
    expected.update(timestamp.to_string().as_bytes());
    expected.update(b".");
    expected.update(payload);
    // `verify_slice` compares in constant time.
    let matches = signatures.iter().any(|signature| expected.clone().verify_slice(signature).is_ok());
    if !matches {
        return Err(SignatureError::Mismatch);
    }
    if now_secs.abs_diff(timestamp) > tolerance_secs {
        return Err(SignatureError::Stale);
    }
    Ok(timestamp)
}

/// The `Stripe-Signature` header for a payload (what Stripe sends; tests and
/// tools sign recorded payloads with it).
pub fn sign(payload: &[u8], secret: &str, timestamp: i64) -> String {
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    format!("t={timestamp},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// Currencies Stripe counts in whole units (no cents).
const ZERO_DECIMAL: [&str; 16] =
    ["bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf"];

/// An amount in the currency's smallest unit, as Stripe counts it; `None`
/// when it has finer fractions than the currency has.
pub fn minor_units(amount: Decimal, currency: &str) -> Option<i64> {
    let factor = if ZERO_DECIMAL.contains(&currency.to_ascii_lowercase().as_str()) { 1 } else { 100 };
    let minor = amount * Decimal::from(factor);
    if minor.fract() != Decimal::ZERO || minor <= Decimal::ZERO {
        return None;
    }
    i64::try_from(minor.trunc()).ok()
}

/// What a Checkout Session needs.
#[derive(Debug, Clone)]
pub struct SessionRequest<'a> {
    pub payment_id: String,
    pub order_id: &'a str,
    pub amount_minor: i64,
    pub currency: &'a str,
    pub product_name: &'a str,
    pub customer_email: &'a str,
    pub success_url: String,
    pub cancel_url: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Session {
    pub id: String,
    pub url: String,
}

/// Creates a Checkout Session: POST `{api_base}/v1/checkout/sessions`. The
/// payment id is the idempotency key, so a retried call makes one session.
pub async fn create_session(
    client: &reqwest::Client,
    config: &StripeConfig,
    request: &SessionRequest<'_>,
) -> anyhow::Result<Session> {
    let secret = config.secret_key.as_deref().unwrap_or_default();
    let product = if request.product_name.trim().is_empty() { "Wayfare" } else { request.product_name };
    let mut form: Vec<(&str, String)> = vec![
        ("mode", "payment".into()),
        ("success_url", request.success_url.clone()),
        ("cancel_url", request.cancel_url.clone()),
        ("client_reference_id", request.payment_id.clone()),
        ("metadata[payment_id]", request.payment_id.clone()),
        ("metadata[order_id]", request.order_id.to_string()),
        ("line_items[0][quantity]", "1".into()),
        ("line_items[0][price_data][currency]", request.currency.to_ascii_lowercase()),
        ("line_items[0][price_data][unit_amount]", request.amount_minor.to_string()),
        ("line_items[0][price_data][product_data][name]", product.to_string()),
    ];
    if !request.customer_email.trim().is_empty() {
        form.push(("customer_email", request.customer_email.trim().to_string()));
    }
    let url = format!("{}/v1/checkout/sessions", config.api_base.trim_end_matches('/'));
    let response =
        client.post(url).bearer_auth(secret).header("Idempotency-Key", &request.payment_id).form(&form).send().await?;
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        anyhow::bail!("stripe answered {status}: {body}");
    }
    let body = response.bytes().await?;
    Ok(serde_json::from_slice::<Session>(&body)?)
}

/// The parts of a webhook event we read.
#[derive(Debug, Clone, Deserialize)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub data: EventData,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EventData {
    pub object: serde_json::Value,
}

/// A completed, paid Checkout Session from an event.
#[derive(Debug, Clone, PartialEq)]
pub struct PaidSession {
    pub session_id: String,
    pub payment_id: Option<String>,
    pub amount_total: Option<i64>,
    pub currency: Option<String>,
}

impl Event {
    /// The session when this event says money was received for it: a
    /// completed session that is paid, or a delayed payment that succeeded.
    pub fn paid_session(&self) -> Option<PaidSession> {
        let relevant = matches!(
            self.event_type.as_str(),
            "checkout.session.completed" | "checkout.session.async_payment_succeeded"
        );
        let object = &self.data.object;
        if !relevant || object["object"] != "checkout.session" || object["payment_status"] != "paid" {
            return None;
        }
        let payment_id = object["client_reference_id"]
            .as_str()
            .or_else(|| object["metadata"]["payment_id"].as_str())
            .map(str::to_string);
        Some(PaidSession {
            session_id: object["id"].as_str()?.to_string(),
            payment_id,
            amount_total: object["amount_total"].as_i64(),
            currency: object["currency"].as_str().map(str::to_string),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    const SECRET: &str = "whsec_test_secret";

    #[test]
    fn a_signature_made_elsewhere_verifies() {
        // Computed independently (Python's hmac) for this secret, time and body.
        let header = "t=1800000000,v1=8a6563dbee1eccda632491deb091d19e764aadddcd0ace8d9516599526831c89";
        assert_eq!(verify_signature(br#"{"id":"evt_1"}"#, header, SECRET, 1_800_000_010, 300), Ok(1_800_000_000));
        assert_eq!(sign(br#"{"id":"evt_1"}"#, SECRET, 1_800_000_000), header);
    }

    #[test]
    fn any_v1_of_a_rotating_secret_may_match() {
        let good = sign(b"{}", SECRET, 1_800_000_000);
        let v1 = good.split_once(",v1=").unwrap().1;
        let header = format!("t=1800000000,v1={},v0=ignored,v1={v1}", "00".repeat(32));
        assert!(verify_signature(b"{}", &header, SECRET, 1_800_000_000, 300).is_ok());
    }

    #[test]
    fn forged_tampered_stale_or_missing_signatures_are_refused() {
        let header = sign(b"{\"amount\":1}", SECRET, 1_800_000_000);
        assert_eq!(
            verify_signature(b"{\"amount\":1000}", &header, SECRET, 1_800_000_000, 300),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify_signature(b"{\"amount\":1}", &header, "whsec_other", 1_800_000_000, 300),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify_signature(b"{\"amount\":1}", &header, SECRET, 1_800_000_301, 300),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify_signature(b"{\"amount\":1}", &header, SECRET, 1_799_999_000, 300),
            Err(SignatureError::Stale)
        );
        assert_eq!(verify_signature(b"{}", "", SECRET, 0, 300), Err(SignatureError::Malformed));
        assert_eq!(verify_signature(b"{}", "t=1800000000", SECRET, 0, 300), Err(SignatureError::Malformed));
        assert_eq!(verify_signature(b"{}", "v1=abcd", SECRET, 0, 300), Err(SignatureError::Malformed));
    }

    #[test]
    fn amounts_go_to_the_smallest_currency_unit() {
        assert_eq!(minor_units(dec!(25.85), "USD"), Some(2585));
        assert_eq!(minor_units(dec!(25.8), "eur"), Some(2580));
        assert_eq!(minor_units(dec!(1200), "JPY"), Some(1200));
        assert_eq!(minor_units(dec!(12.5), "jpy"), None);
        assert_eq!(minor_units(dec!(0.001), "usd"), None);
    }

    #[test]
    fn only_paid_checkout_sessions_count() {
        let event = |event_type: &str, payment_status: &str| Event {
            id: "evt_1".into(),
            event_type: event_type.into(),
            data: EventData {
                object: serde_json::json!({
                    "id": "cs_test_1", "object": "checkout.session", "payment_status": payment_status,
                    "client_reference_id": "pay-1", "amount_total": 2585, "currency": "usd"
                }),
            },
        };
        let paid = event("checkout.session.completed", "paid").paid_session().unwrap();
        assert_eq!(paid.session_id, "cs_test_1");
        assert_eq!(paid.payment_id.as_deref(), Some("pay-1"));
        assert_eq!(paid.amount_total, Some(2585));
        assert!(event("checkout.session.completed", "unpaid").paid_session().is_none());
        assert!(event("checkout.session.async_payment_succeeded", "paid").paid_session().is_some());
        assert!(event("checkout.session.expired", "unpaid").paid_session().is_none());
        assert!(event("payment_intent.succeeded", "paid").paid_session().is_none());
    }
}
