//! Stripe Checkout: a Checkout Session made through Stripe's API (form
//! encoded, `Authorization: Bearer <secret key>`), and the signed webhook
//! that confirms it (`Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
//! "<t>.<body>" with the endpoint's secret>`). The payer's return is checked
//! by retrieving the session; refunds go to `/v1/refunds` on the session's
//! PaymentIntent.

use crate::payments::gateway::*;
use async_trait::async_trait;
use hmac::{Hmac, Mac};
use rust_decimal::Decimal;
use serde::Deserialize;
use sha2::Sha256;
use wayfare_storage::PaymentRecord;

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

/// How old a webhook's signed timestamp may be (Stripe's libraries' default).
pub const TOLERANCE_SECS: u64 = 300;

pub struct Stripe;

const FIELDS: &[Field] =
    &[Field::secret("stripe_private_key"), Field::text("stripe_public_key").optional(), WEBHOOK_SECRET];

impl Stripe {
    fn paid(session: &serde_json::Value, event_id: &str) -> Option<Received> {
        if session["object"] != "checkout.session" || session["payment_status"] != "paid" {
            return None;
        }
        let currency = session["currency"].as_str()?;
        let key = session["client_reference_id"].as_str().or_else(|| session["metadata"]["payment_id"].as_str())?;
        Some(Received {
            payment: PaymentKey::from_text(key),
            reference: session["id"].as_str().map(str::to_string),
            event_id: event_id.to_string(),
            amount: from_minor(session["amount_total"].as_i64()?, currency),
            currency: Some(currency.to_ascii_uppercase()),
        })
    }

    async fn session(call: &Call<'_>, id: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call
            .http
            .get(call.url(&format!("/v1/checkout/sessions/{id}")))
            .bearer_auth(call.get("stripe_private_key")?)
            .send()
            .await?;
        json_answer(response).await
    }
}

#[async_trait]
impl Gateway for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`sk_test_…`), not by host.
        "https://api.stripe.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let minor = minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let id = payment.id.to_string();
        let mut form: Vec<(&str, String)> = vec![
            ("mode", "payment".into()),
            ("success_url", order.return_url.clone()),
            ("cancel_url", order.cancel_url.clone()),
            ("client_reference_id", id.clone()),
            ("metadata[payment_id]", id.clone()),
            ("metadata[order_id]", order.form.order_id.trim().to_string()),
            ("line_items[0][quantity]", "1".into()),
            ("line_items[0][price_data][currency]", payment.currency.to_ascii_lowercase()),
            ("line_items[0][price_data][unit_amount]", minor.to_string()),
            ("line_items[0][price_data][product_data][name]", order.description.clone()),
        ];
        if !order.form.email.trim().is_empty() {
            form.push(("customer_email", order.form.email.trim().to_string()));
        }
        // The payment id is the idempotency key: a retried call makes one session.
        let response = call
            .http
            .post(call.url("/v1/checkout/sessions"))
            .bearer_auth(call.get("stripe_private_key")?)
            .header("Idempotency-Key", &id)
            .form(&form)
            .send()
            .await?;
        let session = json_answer(response).await?;
        let (Some(reference), Some(url)) = (session["id"].as_str(), session["url"].as_str()) else {
            return Err(GatewayError::Provider("a session without id or url".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(reference.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let signature = incoming.header("stripe-signature").unwrap_or_default();
        verify_signature(incoming.body, signature, call.get(WEBHOOK_SECRET.name)?, call.now_secs(), TOLERANCE_SECS)
            .map_err(|error| GatewayError::Signature(error.to_string()))?;
        let event: Event =
            serde_json::from_slice(incoming.body).map_err(|_| GatewayError::Malformed("not a Stripe event".into()))?;
        let relevant = matches!(
            event.event_type.as_str(),
            "checkout.session.completed" | "checkout.session.async_payment_succeeded"
        );
        let object = &event.data.object;
        if relevant && let Some(received) = Stripe::paid(object, &event.id) {
            return Ok(Verdict::Paid(received));
        }
        if matches!(event.event_type.as_str(), "checkout.session.expired" | "checkout.session.async_payment_failed")
            && let Some(key) = object["client_reference_id"].as_str()
        {
            return Ok(Verdict::Failed(PaymentKey::from_text(key)));
        }
        Ok(Verdict::Nothing)
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let Some(reference) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        let session = Stripe::session(call, reference).await?;
        Ok(Stripe::paid(&session, reference).map_or(Verdict::Nothing, Verdict::Paid))
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let reference = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no Stripe session"))?;
        let session = Stripe::session(call, reference).await?;
        let intent = session["payment_intent"]
            .as_str()
            .ok_or_else(|| GatewayError::Provider("the session has no payment_intent".into()))?;
        let minor = minor_units(amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let response = call
            .http
            .post(call.url("/v1/refunds"))
            .bearer_auth(call.get("stripe_private_key")?)
            .header("Idempotency-Key", key)
            .form(&[("payment_intent", intent.to_string()), ("amount", minor.to_string())])
            .send()
            .await?;
        let refund = json_answer(response).await?;
        match refund["id"].as_str() {
            Some(id) if refund["status"] != "failed" && refund["status"] != "canceled" => {
                Ok(Refunded { reference: id.to_string() })
            }
            _ => Err(GatewayError::Provider(format!("refund {}", refund["status"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn only_paid_checkout_sessions_count() {
        let session = |payment_status: &str| {
            serde_json::json!({
                "id": "cs_test_1", "object": "checkout.session", "payment_status": payment_status,
                "client_reference_id": "0190a3f0-0000-7000-8000-000000000001", "amount_total": 2585, "currency": "usd"
            })
        };
        let paid = Stripe::paid(&session("paid"), "evt_1").unwrap();
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!(paid.amount, Decimal::new(2585, 2));
        assert_eq!(paid.currency.as_deref(), Some("USD"));
        assert_eq!(paid.event_id, "evt_1");
        assert!(Stripe::paid(&session("unpaid"), "evt_1").is_none());
        assert!(Stripe::paid(&serde_json::json!({"object": "payment_intent"}), "evt_1").is_none());
    }
}
