//! Xendit Invoices: `POST /v2/invoices` (JSON, basic auth `<secret key>:`,
//! the amount in major units, our payment id as `external_id`) answers a
//! hosted `invoice_url`. Xendit does not sign its callbacks: it sends the
//! account's callback verification token as `x-callback-token`, so a callback
//! is only a reason to ask, and the invoice it names is then read with `GET
//! /v2/invoices/{id}`. Refunds go to `POST /refunds` with the `invoice_id`
//! (for the channels Xendit refunds: cards and e-wallets).

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Xendit;

const SECRET_KEY: &str = "secret_key";

const FIELDS: &[Field] = &[Field::secret(SECRET_KEY), WEBHOOK_SECRET];

/// An amount as a JSON number in major units (`25.85`, `150000`).
fn amount_json(amount: Decimal) -> serde_json::Value {
    serde_json::from_str(&amount.normalize().to_string()).unwrap_or(serde_json::Value::Null)
}

impl Xendit {
    /// What an invoice, as Xendit's API answers it, says.
    fn verdict(invoice: &serde_json::Value) -> Result<Verdict, GatewayError> {
        let (Some(id), Some(external_id)) = (invoice["id"].as_str(), invoice["external_id"].as_str()) else {
            return Err(GatewayError::Provider("an invoice without id or external_id".into()));
        };
        match invoice["status"].as_str() {
            Some("PAID" | "SETTLED") => {
                let malformed = || GatewayError::Provider("a paid invoice without amount or currency".into());
                let amount = major_from_json(&invoice["paid_amount"]).or_else(|| major_from_json(&invoice["amount"]));
                Ok(Verdict::Paid(Received {
                    payment: PaymentKey::from_text(external_id),
                    reference: Some(id.to_string()),
                    // One invoice per payment: its id, seen twice, is a replay.
                    event_id: id.to_string(),
                    amount: amount.ok_or_else(malformed)?,
                    currency: Some(invoice["currency"].as_str().ok_or_else(malformed)?.to_ascii_uppercase()),
                }))
            }
            Some("EXPIRED") => Ok(Verdict::Failed(PaymentKey::from_text(external_id))),
            _ => Ok(Verdict::Nothing),
        }
    }

    async fn invoice(call: &Call<'_>, id: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call
            .http
            .get(call.url(&format!("/v2/invoices/{id}")))
            .basic_auth(call.get(SECRET_KEY)?, Some(""))
            .send()
            .await?;
        json_answer(response).await
    }
}

#[async_trait]
impl Gateway for Xendit {
    fn name(&self) -> &'static str {
        "xendit"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`xnd_development_…`), not by host.
        "https://api.xendit.co"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let form = order.form;
        let body = serde_json::json!({
            "external_id": payment.id.to_string(),
            "amount": amount_json(payment.amount),
            "currency": payment.currency.to_ascii_uppercase(),
            "description": order.description,
            "payer_email": form.email.trim(),
            "customer": {
                "given_names": form.first_name.trim(), "surname": form.last_name.trim(),
                "email": form.email.trim(), "mobile_number": form.mobile_no.trim(),
            },
            "success_redirect_url": order.return_url,
            "failure_redirect_url": order.cancel_url,
            "metadata": {"order_id": form.order_id.trim()},
        });
        let response = call
            .http
            .post(call.url("/v2/invoices"))
            .basic_auth(call.get(SECRET_KEY)?, Some(""))
            .json(&body)
            .send()
            .await?;
        let invoice = json_answer(response).await?;
        let (Some(id), Some(url)) = (invoice["id"].as_str(), invoice["invoice_url"].as_str()) else {
            return Err(GatewayError::Provider("an invoice without id or invoice_url".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(id.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let token = incoming.header("x-callback-token").unwrap_or_default();
        if token.is_empty() || !same_bytes(token.as_bytes(), call.get(WEBHOOK_SECRET.name)?.as_bytes()) {
            return Err(GatewayError::Signature("x-callback-token is not the verification token".into()));
        }
        let callback = incoming.json()?;
        let id = callback["id"]
            .as_str()
            .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .ok_or_else(|| GatewayError::Malformed("a callback without an invoice id".into()))?;
        // The body is not signed: the invoice's status and amount are Xendit's answer.
        Xendit::verdict(&Xendit::invoice(call, id).await?)
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let Some(reference) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        Xendit::verdict(&Xendit::invoice(call, reference).await?)
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let reference = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no Xendit invoice"))?;
        let body = serde_json::json!({
            "invoice_id": reference,
            "amount": amount_json(amount),
            "currency": payment.currency.to_ascii_uppercase(),
            "reason": "REQUESTED_BY_CUSTOMER",
        });
        let response = call
            .http
            .post(call.url("/refunds"))
            .basic_auth(call.get(SECRET_KEY)?, Some(""))
            .header("Idempotency-key", key)
            .json(&body)
            .send()
            .await?;
        let refund = json_answer(response).await?;
        match refund["id"].as_str() {
            Some(id) if refund["status"] != "FAILED" => Ok(Refunded { reference: id.to_string() }),
            _ => Err(GatewayError::Provider(format!("refund {}", refund["status"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paid_or_settled_invoice_is_paid_and_an_expired_one_failed() {
        let invoice = |status: &str| {
            serde_json::json!({
                "id": "579c8d61f23fa4ca35e52da4", "external_id": "0190a3f0-0000-7000-8000-000000000001",
                "status": status, "amount": 25.85, "paid_amount": 25.85, "currency": "PHP",
            })
        };
        for status in ["PAID", "SETTLED"] {
            let Verdict::Paid(paid) = Xendit::verdict(&invoice(status)).unwrap() else { panic!("not paid") };
            assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
            assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("PHP")));
            assert_eq!(paid.reference.as_deref(), Some("579c8d61f23fa4ca35e52da4"));
        }
        assert!(matches!(Xendit::verdict(&invoice("EXPIRED")).unwrap(), Verdict::Failed(_)));
        assert_eq!(Xendit::verdict(&invoice("PENDING")).unwrap(), Verdict::Nothing);
        assert!(Xendit::verdict(&serde_json::json!({"status": "PAID"})).is_err());
        assert_eq!(amount_json(Decimal::new(150_000, 0)).to_string(), "150000");
    }
}
