//! PayMongo Checkout: a Checkout Session (`POST /v1/checkout_sessions`,
//! JSON:API bodies, basic auth `<secret key>:`, amounts in centavos) answers
//! a hosted `checkout_url`. Webhooks are signed with the webhook's own secret
//! (`Paymongo-Signature: t=<time>,te=<test>,li=<live>`, hex HMAC-SHA256 of
//! `<t>.<raw body>`; `te` is compared in test mode, `li` in live mode). The
//! payer's return is checked by retrieving the session; refunds go to `POST
//! /v1/refunds` on the session's payment.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Paymongo;

const SECRET_KEY: &str = "secret_key";

const FIELDS: &[Field] = &[Field::text("public_key").optional(), Field::secret(SECRET_KEY), WEBHOOK_SECRET];

/// Why a webhook's signature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("no Paymongo-Signature header, or no timestamp in it")]
    Malformed,
    #[error("no signature for this mode (te for test, li for live)")]
    Missing,
    #[error("the signature does not match the payload")]
    Mismatch,
}

/// The hex HMAC-SHA256 PayMongo puts in `te` or `li`.
pub fn sign(payload: &[u8], timestamp: &str, secret: &str) -> String {
    let mut message = Vec::with_capacity(timestamp.len() + 1 + payload.len());
    message.extend_from_slice(timestamp.as_bytes());
    message.push(b'.');
    message.extend_from_slice(payload);
    hmac_sha256_hex(secret.as_bytes(), &message)
}

/// Checks `Paymongo-Signature` against the raw body, comparing the live
/// signature for a live-mode event and the test one otherwise.
pub fn verify_signature(payload: &[u8], header: &str, secret: &str, livemode: bool) -> Result<(), SignatureError> {
    let part = |name: &str| {
        header.split(',').find_map(|part| {
            let (key, value) = part.trim().split_once('=')?;
            (key == name).then(|| value.trim().to_string())
        })
    };
    let timestamp = part("t").filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
    let Some(timestamp) = timestamp else { return Err(SignatureError::Malformed) };
    let given = part(if livemode { "li" } else { "te" }).filter(|value| !value.is_empty());
    let Some(given) = given else { return Err(SignatureError::Missing) };
    let expected = sign(payload, &timestamp, secret);
    if same_bytes(expected.as_bytes(), given.to_ascii_lowercase().as_bytes()) {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

impl Paymongo {
    /// A session (`data` of a session answer, or an event's resource) that was paid.
    fn paid(session: &serde_json::Value) -> Option<Received> {
        let attributes = &session["attributes"];
        let payment =
            attributes["payments"].as_array()?.iter().find(|payment| payment["attributes"]["status"] == "paid")?;
        let currency = payment["attributes"]["currency"].as_str()?;
        Some(Received {
            payment: PaymentKey::from_text(attributes["reference_number"].as_str()?),
            reference: session["id"].as_str().map(str::to_string),
            // The payment's id: one per payment, the same on every redelivery.
            event_id: payment["id"].as_str()?.to_string(),
            amount: from_minor(payment["attributes"]["amount"].as_i64()?, currency),
            currency: Some(currency.to_ascii_uppercase()),
        })
    }

    async fn session(call: &Call<'_>, id: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call
            .http
            .get(call.url(&format!("/v1/checkout_sessions/{id}")))
            .basic_auth(call.get(SECRET_KEY)?, Some(""))
            .send()
            .await?;
        Ok(json_answer(response).await?["data"].take())
    }
}

#[async_trait]
impl Gateway for Paymongo {
    fn name(&self) -> &'static str {
        "paymongo"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`sk_test_…`), not by host.
        "https://api.paymongo.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let centavos = minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let form = order.form;
        let name = format!("{} {}", form.first_name.trim(), form.last_name.trim());
        let body = serde_json::json!({"data": {"attributes": {
            "line_items": [{
                "amount": centavos, "currency": payment.currency.to_ascii_uppercase(),
                "name": order.description, "quantity": 1,
            }],
            "payment_method_types": ["card", "gcash", "grab_pay", "paymaya"],
            "reference_number": payment.id.to_string(),
            "description": order.description,
            "success_url": order.return_url,
            "cancel_url": order.cancel_url,
            "billing": {"name": name.trim(), "email": form.email.trim(), "phone": form.mobile_no.trim()},
            "send_email_receipt": false,
            "show_line_items": true,
            "metadata": {"order_id": form.order_id.trim()},
        }}});
        let response = call
            .http
            .post(call.url("/v1/checkout_sessions"))
            .basic_auth(call.get(SECRET_KEY)?, Some(""))
            .json(&body)
            .send()
            .await?;
        let session = json_answer(response).await?;
        let (Some(id), Some(url)) =
            (session["data"]["id"].as_str(), session["data"]["attributes"]["checkout_url"].as_str())
        else {
            return Err(GatewayError::Provider("a checkout session without id or checkout_url".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(id.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let event = incoming.json().map_err(|_| GatewayError::Signature("the body is not a PayMongo event".into()))?;
        let attributes = &event["data"]["attributes"];
        // The mode is read from the body the signature covers: flipping it breaks the match.
        let livemode = attributes["livemode"] == true;
        let header = incoming.header("paymongo-signature").unwrap_or_default();
        verify_signature(incoming.body, header, call.get(WEBHOOK_SECRET.name)?, livemode)
            .map_err(|error| GatewayError::Signature(error.to_string()))?;
        if attributes["type"] != "checkout_session.payment.paid" {
            return Ok(Verdict::Nothing);
        }
        Paymongo::paid(&attributes["data"]).map(Verdict::Paid).ok_or_else(|| {
            GatewayError::Malformed("a paid session without reference, payment, amount or currency".into())
        })
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let Some(reference) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        let session = Paymongo::session(call, reference).await?;
        Ok(match Paymongo::paid(&session) {
            Some(received) => Verdict::Paid(received),
            None if session["attributes"]["status"] == "expired" => Verdict::Failed(PaymentKey::Ours(payment.id)),
            None => Verdict::Nothing,
        })
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let reference = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no PayMongo session"))?;
        let session = Paymongo::session(call, reference).await?;
        let paid =
            Paymongo::paid(&session).ok_or_else(|| GatewayError::Provider("the session has no paid payment".into()))?;
        let centavos = minor_units(amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        // PayMongo takes no idempotency key on refunds; ours goes in the notes.
        let body = serde_json::json!({"data": {"attributes": {
            "amount": centavos, "payment_id": paid.event_id, "reason": "requested_by_customer", "notes": key,
        }}});
        let response = call
            .http
            .post(call.url("/v1/refunds"))
            .basic_auth(call.get(SECRET_KEY)?, Some(""))
            .json(&body)
            .send()
            .await?;
        let refund = json_answer(response).await?;
        match refund["data"]["id"].as_str() {
            Some(id) if refund["data"]["attributes"]["status"] != "failed" => {
                Ok(Refunded { reference: id.to_string() })
            }
            _ => Err(GatewayError::Provider(format!("refund {}", refund["data"]["attributes"]["status"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsk_paymongo";
    const BODY: &[u8] = br#"{"data":{"id":"evt_1"}}"#;

    #[test]
    fn a_signature_made_elsewhere_verifies_in_its_mode() {
        // Computed with Python's hmac for this secret, time and body.
        let te = "420e8ce6346240db5d6023e4184fb5a6c962c8f4088d1fb1b444b590d01744c4";
        assert_eq!(sign(BODY, "1800000000", SECRET), te);
        let header = format!("t=1800000000,te={te},li=");
        assert_eq!(verify_signature(BODY, &header, SECRET, false), Ok(()));
        assert_eq!(verify_signature(BODY, &header, SECRET, true), Err(SignatureError::Missing));
        let live = format!("t=1800000000,te=,li={te}");
        assert_eq!(verify_signature(BODY, &live, SECRET, true), Ok(()));
    }

    #[test]
    fn forged_tampered_or_missing_signatures_are_refused() {
        let header = format!("t=1800000000,te={},li=", sign(BODY, "1800000000", SECRET));
        assert_eq!(verify_signature(b"{}", &header, SECRET, false), Err(SignatureError::Mismatch));
        assert_eq!(verify_signature(BODY, &header, "whsk_other", false), Err(SignatureError::Mismatch));
        let moved = header.replace("t=1800000000", "t=1800000001");
        assert_eq!(verify_signature(BODY, &moved, SECRET, false), Err(SignatureError::Mismatch));
        assert_eq!(verify_signature(BODY, "", SECRET, false), Err(SignatureError::Malformed));
        assert_eq!(verify_signature(BODY, "te=abc", SECRET, false), Err(SignatureError::Malformed));
    }

    #[test]
    fn a_session_is_paid_by_its_paid_payment() {
        let session = |status: &str| {
            serde_json::json!({"id": "cs_1", "type": "checkout_session", "attributes": {
                "reference_number": "0190a3f0-0000-7000-8000-000000000001",
                "payments": [{"id": "pay_1", "type": "payment", "attributes": {"amount": 2585, "currency": "PHP", "status": status}}],
            }})
        };
        let paid = Paymongo::paid(&session("paid")).unwrap();
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("PHP")));
        assert_eq!((paid.event_id.as_str(), paid.reference.as_deref()), ("pay_1", Some("cs_1")));
        assert!(Paymongo::paid(&session("failed")).is_none());
    }
}
