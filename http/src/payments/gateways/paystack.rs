//! Paystack: `POST /transaction/initialize` (JSON, `Authorization: Bearer
//! <secret key>`, the amount in the currency's lowest unit, our payment id as
//! the transaction's `reference`) answers an `authorization_url`. Webhooks
//! are signed with the secret key itself (`x-paystack-signature`, hex
//! HMAC-SHA512 of the raw body). The payer's return is checked with `GET
//! /transaction/verify/{reference}`; refunds go to `POST /refund`.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Paystack;

const SECRET_KEY: &str = "PAYSTACK_SECRET_KEY";

const FIELDS: &[Field] = &[Field::text("PAYSTACK_PUBLIC_KEY").optional(), Field::secret(SECRET_KEY)];

/// The `x-paystack-signature` of a body: hex HMAC-SHA512 with the secret key.
pub fn signature(body: &[u8], secret_key: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA512, secret_key.as_bytes());
    hex::encode(ring::hmac::sign(&key, body).as_ref())
}

impl Paystack {
    /// What a transaction (a webhook's `data`, or a verify answer's) says.
    fn verdict(transaction: &serde_json::Value) -> Result<Verdict, GatewayError> {
        let Some(reference) = transaction["reference"].as_str() else { return Ok(Verdict::Nothing) };
        match transaction["status"].as_str() {
            Some("success") => {
                let malformed =
                    || GatewayError::Malformed("a successful transaction without id, amount or currency".into());
                let currency = transaction["currency"].as_str().ok_or_else(malformed)?;
                let id = match &transaction["id"] {
                    serde_json::Value::Number(id) => id.to_string(),
                    serde_json::Value::String(id) => id.clone(),
                    _ => return Err(malformed()),
                };
                Ok(Verdict::Paid(Received {
                    payment: PaymentKey::from_text(reference),
                    reference: None,
                    event_id: id,
                    amount: from_minor(transaction["amount"].as_i64().ok_or_else(malformed)?, currency),
                    currency: Some(currency.to_ascii_uppercase()),
                }))
            }
            Some("failed" | "reversed") => Ok(Verdict::Failed(PaymentKey::from_text(reference))),
            // `abandoned`, `ongoing`, `pending`: the payer may still pay.
            _ => Ok(Verdict::Nothing),
        }
    }
}

#[async_trait]
impl Gateway for Paystack {
    fn name(&self) -> &'static str {
        "paystack"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`sk_test_…`), not by host.
        "https://api.paystack.co"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let minor = minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let body = serde_json::json!({
            // Paystack documents the amount as a string of the lowest unit.
            "amount": minor.to_string(),
            "email": order.form.email.trim(),
            "currency": payment.currency.to_ascii_uppercase(),
            "reference": payment.id.to_string(),
            "callback_url": order.return_url,
            "metadata": {"order_id": order.form.order_id.trim(), "cancel_action": order.cancel_url},
        });
        let response = call
            .http
            .post(call.url("/transaction/initialize"))
            .bearer_auth(call.get(SECRET_KEY)?)
            .json(&body)
            .send()
            .await?;
        let answer = json_answer(response).await?;
        match answer["data"]["authorization_url"].as_str() {
            Some(url) if answer["status"] == true => {
                Ok(Started { to: Start::Redirect(url.to_string()), reference: None })
            }
            _ => Err(GatewayError::Provider(format!("initialize: {}", answer["message"]))),
        }
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let signed = incoming.header("x-paystack-signature").unwrap_or_default().to_ascii_lowercase();
        let expected = signature(incoming.body, call.get(SECRET_KEY)?);
        if signed.is_empty() || !same_bytes(expected.as_bytes(), signed.as_bytes()) {
            return Err(GatewayError::Signature("x-paystack-signature does not match the body".into()));
        }
        let event = incoming.json()?;
        match event["event"].as_str() {
            Some("charge.success") => Paystack::verdict(&event["data"]),
            _ => Ok(Verdict::Nothing),
        }
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // The transaction's reference is our payment id, whatever the query says.
        let response = call
            .http
            .get(call.url(&format!("/transaction/verify/{}", payment.id)))
            .bearer_auth(call.get(SECRET_KEY)?)
            .send()
            .await?;
        let answer = json_answer(response).await?;
        if answer["status"] != true {
            return Ok(Verdict::Nothing);
        }
        Paystack::verdict(&answer["data"])
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        _key: &str,
    ) -> Result<Refunded, GatewayError> {
        let minor = minor_units(amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        // Paystack's refund takes the transaction's reference (or id) and no idempotency key.
        let body = serde_json::json!({"transaction": payment.id.to_string(), "amount": minor.to_string()});
        let response =
            call.http.post(call.url("/refund")).bearer_auth(call.get(SECRET_KEY)?).json(&body).send().await?;
        let answer = json_answer(response).await?;
        let id = match &answer["data"]["id"] {
            serde_json::Value::Number(id) => Some(id.to_string()),
            serde_json::Value::String(id) => Some(id.clone()),
            _ => None,
        };
        match id {
            Some(id) if answer["status"] == true && answer["data"]["status"] != "failed" => {
                Ok(Refunded { reference: id })
            }
            _ => Err(GatewayError::Provider(format!("refund: {}", answer["message"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_matches_a_value_made_elsewhere() {
        // Computed with Python's hmac (SHA-512) for this key and body.
        assert_eq!(
            signature(br#"{"event":"charge.success"}"#, "sk_test_paystack"),
            "f2a293cf42f9e20ec3c3db0a70b22230323834bed90ba89ee006fcd345e4e6929294c299bd1140b63235cadcb753293310d3aa538d5d7c0d90f6d6ba77cb7357"
        );
    }

    #[test]
    fn a_successful_transaction_is_paid_and_others_are_not() {
        let transaction = |status: &str| {
            serde_json::json!({
                "id": 302961, "status": status, "reference": "0190a3f0-0000-7000-8000-000000000001",
                "amount": 2585, "currency": "NGN",
            })
        };
        let Verdict::Paid(paid) = Paystack::verdict(&transaction("success")).unwrap() else { panic!("not paid") };
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("NGN")));
        assert_eq!(paid.event_id, "302961");
        assert!(matches!(Paystack::verdict(&transaction("failed")).unwrap(), Verdict::Failed(_)));
        assert_eq!(Paystack::verdict(&transaction("abandoned")).unwrap(), Verdict::Nothing);
        let mut broken = transaction("success");
        broken["amount"] = serde_json::json!(null);
        assert!(matches!(Paystack::verdict(&broken), Err(GatewayError::Malformed(_))));
    }
}
