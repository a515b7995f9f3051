//! Razorpay through Payment Links: `POST /v1/payment_links` (JSON, basic
//! auth `KEY_ID:KEY_SECRET`, the amount in paise) answers a hosted
//! `short_url`; the payer comes back with `razorpay_signature` (hex
//! HMAC-SHA256 with `KEY_SECRET` of `link_id|reference_id|status|payment_id`).
//! Webhooks are signed with their own secret (`X-Razorpay-Signature`, hex
//! HMAC-SHA256 of the raw body). Standard Checkout needs Razorpay's script in
//! the browser; a Payment Link is its hosted equivalent. Refunds go to
//! `/v1/payments/{id}/refund` for the link's captured payment.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Razorpay;

const FIELDS: &[Field] = &[Field::text("KEY_ID"), Field::secret("KEY_SECRET"), WEBHOOK_SECRET];

/// A webhook's `X-Razorpay-Signature`: hex HMAC-SHA256 of the raw body.
pub fn webhook_signature(body: &[u8], webhook_secret: &str) -> String {
    hmac_sha256_hex(webhook_secret.as_bytes(), body)
}

/// The `razorpay_signature` a Payment Link's callback carries.
pub fn callback_signature(
    link_id: &str,
    reference_id: &str,
    status: &str,
    payment_id: &str,
    key_secret: &str,
) -> String {
    hmac_sha256_hex(key_secret.as_bytes(), format!("{link_id}|{reference_id}|{status}|{payment_id}").as_bytes())
}

/// Whether the callback's query is signed by Razorpay for this link.
fn callback_verifies(incoming: &Incoming<'_>, link_id: &str, key_secret: &str) -> bool {
    let field = |name: &str| incoming.param(name).unwrap_or_default();
    let expected = callback_signature(
        link_id,
        &field("razorpay_payment_link_reference_id"),
        &field("razorpay_payment_link_status"),
        &field("razorpay_payment_id"),
        key_secret,
    );
    field("razorpay_payment_link_id") == link_id
        && same_bytes(expected.as_bytes(), field("razorpay_signature").as_bytes())
}

impl Razorpay {
    /// A paid payment link: what it received, under `event_id`.
    fn paid(link: &serde_json::Value, event_id: &str) -> Option<Received> {
        if link["status"] != "paid" {
            return None;
        }
        let currency = link["currency"].as_str()?;
        Some(Received {
            payment: PaymentKey::from_text(link["reference_id"].as_str()?),
            reference: link["id"].as_str().map(str::to_string),
            event_id: event_id.to_string(),
            amount: from_minor(link["amount_paid"].as_i64()?, currency),
            currency: Some(currency.to_ascii_uppercase()),
        })
    }

    async fn link(call: &Call<'_>, id: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call
            .http
            .get(call.url(&format!("/v1/payment_links/{id}")))
            .basic_auth(call.get("KEY_ID")?, Some(call.get("KEY_SECRET")?))
            .send()
            .await?;
        json_answer(response).await
    }

    /// The captured payment of a paid link (Razorpay refunds payments, not links).
    fn captured_payment(link: &serde_json::Value) -> Option<&str> {
        link["payments"]
            .as_array()?
            .iter()
            .find(|payment| payment["status"] == "captured")
            .and_then(|payment| payment["payment_id"].as_str())
    }
}

#[async_trait]
impl Gateway for Razorpay {
    fn name(&self) -> &'static str {
        "razorpay"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`rzp_test_…`), not by host.
        "https://api.razorpay.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let paise = minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let form = order.form;
        let name = format!("{} {}", form.first_name.trim(), form.last_name.trim());
        let body = serde_json::json!({
            "amount": paise,
            "currency": payment.currency.to_ascii_uppercase(),
            // Our payment id (36 characters; Razorpay allows 40) names the payment everywhere.
            "reference_id": payment.id.to_string(),
            "description": order.description,
            "customer": {"name": name.trim(), "email": form.email.trim(), "contact": form.mobile_no.trim()},
            "notes": {"order_id": form.order_id.trim()},
            "callback_url": order.return_url,
            "callback_method": "get",
        });
        let response = call
            .http
            .post(call.url("/v1/payment_links"))
            .basic_auth(call.get("KEY_ID")?, Some(call.get("KEY_SECRET")?))
            .json(&body)
            .send()
            .await?;
        let link = json_answer(response).await?;
        let (Some(id), Some(url)) = (link["id"].as_str(), link["short_url"].as_str()) else {
            return Err(GatewayError::Provider("a payment link without id or short_url".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(id.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let signature = incoming.header("x-razorpay-signature").unwrap_or_default();
        let expected = webhook_signature(incoming.body, call.get(WEBHOOK_SECRET.name)?);
        if signature.is_empty() || !same_bytes(expected.as_bytes(), signature.as_bytes()) {
            return Err(GatewayError::Signature("X-Razorpay-Signature does not match the body".into()));
        }
        let event = incoming.json()?;
        let link = &event["payload"]["payment_link"]["entity"];
        match event["event"].as_str() {
            Some("payment_link.paid") => {
                // The payment's id is unique per payment: the same one twice is a replay.
                let event_id = event["payload"]["payment"]["entity"]["id"]
                    .as_str()
                    .or_else(|| incoming.header("x-razorpay-event-id"))
                    .ok_or_else(|| GatewayError::Malformed("a paid link without its payment".into()))?;
                Razorpay::paid(link, event_id)
                    .map(Verdict::Paid)
                    .ok_or_else(|| GatewayError::Malformed("a paid link without reference, amount or currency".into()))
            }
            Some("payment_link.expired" | "payment_link.cancelled") => Ok(link["reference_id"]
                .as_str()
                .map_or(Verdict::Nothing, |key| Verdict::Failed(PaymentKey::from_text(key)))),
            _ => Ok(Verdict::Nothing),
        }
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let Some(link_id) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        // A signature the payer brings must be Razorpay's; the link's own
        // state (amount paid, currency) is then read from Razorpay.
        if incoming.param("razorpay_signature").is_some()
            && !callback_verifies(incoming, link_id, call.get("KEY_SECRET")?)
        {
            return Err(GatewayError::Signature("razorpay_signature does not match the callback".into()));
        }
        let link = Razorpay::link(call, link_id).await?;
        let event_id = Razorpay::captured_payment(&link).unwrap_or(link_id).to_string();
        Ok(match link["status"].as_str() {
            Some("expired" | "cancelled") => Verdict::Failed(PaymentKey::Ours(payment.id)),
            _ => Razorpay::paid(&link, &event_id).map_or(Verdict::Nothing, Verdict::Paid),
        })
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let link_id = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no Razorpay payment link"))?;
        let link = Razorpay::link(call, link_id).await?;
        let payment_id = Razorpay::captured_payment(&link)
            .ok_or_else(|| GatewayError::Provider("the payment link has no captured payment".into()))?;
        let paise = minor_units(amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        // Razorpay takes no idempotency key on refunds; the key goes in as its receipt.
        let response = call
            .http
            .post(call.url(&format!("/v1/payments/{payment_id}/refund")))
            .basic_auth(call.get("KEY_ID")?, Some(call.get("KEY_SECRET")?))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::json!({"amount": paise, "receipt": key.chars().take(40).collect::<String>()}).to_string())
            .send()
            .await?;
        let refund = json_answer(response).await?;
        match refund["id"].as_str() {
            Some(id) if refund["status"] != "failed" => Ok(Refunded { reference: id.to_string() }),
            _ => Err(GatewayError::Provider(format!("refund {}", refund["status"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderMap;

    #[test]
    fn signatures_match_values_made_elsewhere() {
        // Computed with Python's hmac for these inputs.
        assert_eq!(
            webhook_signature(br#"{"event":"payment_link.paid"}"#, "whsec_rzp"),
            "b2cb185d798cba499fe1c7f8607b0c17ec95b7b68a56851286b97c9506ebf7c9"
        );
        assert_eq!(
            callback_signature("plink_1", "ref_1", "paid", "pay_1", "key_secret"),
            "73f0462553a523f19346a2c7dd90cfd2df0f8417903ad2c4fbc231bec25020e8"
        );
    }

    #[test]
    fn a_callback_verifies_only_with_its_link_and_secret() {
        let signature = callback_signature("plink_1", "ref_1", "paid", "pay_1", "key_secret");
        let query = format!(
            "razorpay_payment_id=pay_1&razorpay_payment_link_id=plink_1&razorpay_payment_link_reference_id=ref_1&razorpay_payment_link_status=paid&razorpay_signature={signature}"
        );
        let headers = HeaderMap::new();
        let incoming = Incoming { headers: &headers, query: &query, body: &[] };
        assert!(callback_verifies(&incoming, "plink_1", "key_secret"));
        assert!(!callback_verifies(&incoming, "plink_2", "key_secret"));
        assert!(!callback_verifies(&incoming, "plink_1", "other_secret"));
        let tampered = query.replace("status=paid", "status=partially_paid");
        let incoming = Incoming { headers: &headers, query: &tampered, body: &[] };
        assert!(!callback_verifies(&incoming, "plink_1", "key_secret"));
    }

    #[test]
    fn only_paid_links_count() {
        let link = |status: &str| {
            serde_json::json!({
                "id": "plink_1", "status": status, "amount": 2585, "amount_paid": 2585, "currency": "INR",
                "reference_id": "0190a3f0-0000-7000-8000-000000000001",
                "payments": [{"payment_id": "pay_1", "status": "captured", "amount": 2585}],
            })
        };
        let paid = Razorpay::paid(&link("paid"), "pay_1").unwrap();
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("INR")));
        assert_eq!(paid.reference.as_deref(), Some("plink_1"));
        assert!(Razorpay::paid(&link("created"), "pay_1").is_none());
        assert!(Razorpay::paid(&link("partially_paid"), "pay_1").is_none());
        assert_eq!(Razorpay::captured_payment(&link("paid")), Some("pay_1"));
    }
}
