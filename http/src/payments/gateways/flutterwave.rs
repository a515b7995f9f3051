//! Flutterwave Standard: `POST /v3/payments` (JSON, `Authorization: Bearer
//! <secret key>`, the amount in major units, our payment id as `tx_ref`)
//! answers a hosted `link`. Flutterwave does not sign its webhooks' bodies:
//! it sends the secret hash set in its dashboard as the `verif-hash` header,
//! so a webhook is only a reason to ask, and the transaction it names is then
//! verified with `GET /v3/transactions/{id}/verify`. The payer's return is
//! checked by `tx_ref` (`GET /v3/transactions/verify_by_reference`); refunds go
//! to `POST /v3/transactions/{id}/refund`.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Flutterwave;

const SECRET_KEY: &str = "FLUTTERWAVE_SECRET_KEY";

const FIELDS: &[Field] = &[Field::text("FLUTTERWAVE_PUBLIC_KEY").optional(), Field::secret(SECRET_KEY), WEBHOOK_SECRET];

/// An amount as a JSON number in major units (`25.85`, `1500`).
fn amount_json(amount: Decimal) -> serde_json::Value {
    serde_json::from_str(&amount.normalize().to_string()).unwrap_or(serde_json::Value::Null)
}

/// A transaction's id, given as a number or a string.
fn id_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::Number(id) => Some(id.to_string()),
        serde_json::Value::String(id) if !id.trim().is_empty() => Some(id.trim().to_string()),
        _ => None,
    }
}

impl Flutterwave {
    /// What a verified transaction (a verify answer's `data`) says.
    fn verdict(transaction: &serde_json::Value) -> Result<Verdict, GatewayError> {
        let Some(tx_ref) = transaction["tx_ref"].as_str() else { return Ok(Verdict::Nothing) };
        match transaction["status"].as_str() {
            Some("successful") => {
                let malformed =
                    || GatewayError::Provider("a successful transaction without id, amount or currency".into());
                let currency = transaction["currency"].as_str().ok_or_else(malformed)?;
                Ok(Verdict::Paid(Received {
                    payment: PaymentKey::from_text(tx_ref),
                    reference: None,
                    event_id: id_text(&transaction["id"]).ok_or_else(malformed)?,
                    amount: major_from_json(&transaction["amount"]).ok_or_else(malformed)?,
                    currency: Some(currency.to_ascii_uppercase()),
                }))
            }
            Some("failed") => Ok(Verdict::Failed(PaymentKey::from_text(tx_ref))),
            _ => Ok(Verdict::Nothing),
        }
    }

    async fn ask(call: &Call<'_>, path: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call.http.get(call.url(path)).bearer_auth(call.get(SECRET_KEY)?).send().await?;
        let answer = json_answer(response).await?;
        if answer["status"] != "success" {
            return Err(GatewayError::Provider(format!("{path}: {}", answer["message"])));
        }
        Ok(answer)
    }

    async fn by_reference(call: &Call<'_>, payment: &PaymentRecord) -> Result<serde_json::Value, GatewayError> {
        Flutterwave::ask(call, &format!("/v3/transactions/verify_by_reference?tx_ref={}", payment.id)).await
    }
}

#[async_trait]
impl Gateway for Flutterwave {
    fn name(&self) -> &'static str {
        "flutterwave"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`FLWSECK_TEST-…`), not by host.
        "https://api.flutterwave.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let form = order.form;
        let name = format!("{} {}", form.first_name.trim(), form.last_name.trim());
        let body = serde_json::json!({
            "tx_ref": payment.id.to_string(),
            "amount": amount_json(payment.amount),
            "currency": payment.currency.to_ascii_uppercase(),
            "redirect_url": order.return_url,
            "customer": {"email": form.email.trim(), "phonenumber": form.mobile_no.trim(), "name": name.trim()},
            "customizations": {"title": order.description},
            "meta": {"order_id": form.order_id.trim()},
        });
        let response =
            call.http.post(call.url("/v3/payments")).bearer_auth(call.get(SECRET_KEY)?).json(&body).send().await?;
        let answer = json_answer(response).await?;
        match answer["data"]["link"].as_str() {
            Some(link) if answer["status"] == "success" => {
                Ok(Started { to: Start::Redirect(link.to_string()), reference: None })
            }
            _ => Err(GatewayError::Provider(format!("payments: {}", answer["message"]))),
        }
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let hash = incoming.header("verif-hash").unwrap_or_default();
        if hash.is_empty() || !same_bytes(hash.as_bytes(), call.get(WEBHOOK_SECRET.name)?.as_bytes()) {
            return Err(GatewayError::Signature("verif-hash is not the secret hash".into()));
        }
        let event = incoming.json()?;
        if event["event"] != "charge.completed" {
            return Ok(Verdict::Nothing);
        }
        let id = id_text(&event["data"]["id"])
            .filter(|id| id.chars().all(|c| c.is_ascii_alphanumeric()))
            .ok_or_else(|| GatewayError::Malformed("a charge without a transaction id".into()))?;
        // The body is not signed: its amount and status are Flutterwave's only once verified.
        let verified = Flutterwave::ask(call, &format!("/v3/transactions/{id}/verify")).await?;
        Flutterwave::verdict(&verified["data"])
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        Flutterwave::verdict(&Flutterwave::by_reference(call, payment).await?["data"])
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        _key: &str,
    ) -> Result<Refunded, GatewayError> {
        let transaction = Flutterwave::by_reference(call, payment).await?;
        let id = id_text(&transaction["data"]["id"])
            .ok_or_else(|| GatewayError::Provider("the transaction has no id".into()))?;
        // Flutterwave's refund takes no idempotency key.
        let response = call
            .http
            .post(call.url(&format!("/v3/transactions/{id}/refund")))
            .bearer_auth(call.get(SECRET_KEY)?)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::json!({"amount": amount_json(amount)}).to_string())
            .send()
            .await?;
        let answer = json_answer(response).await?;
        match id_text(&answer["data"]["id"]) {
            Some(refund) if answer["status"] == "success" => Ok(Refunded { reference: refund }),
            _ => Err(GatewayError::Provider(format!("refund: {}", answer["message"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_go_as_plain_numbers() {
        assert_eq!(amount_json(Decimal::new(2585, 2)).to_string(), "25.85");
        assert_eq!(amount_json(Decimal::new(1500, 2)).to_string(), "15");
        assert_eq!(amount_json(Decimal::new(250, 2)).to_string(), "2.5");
    }

    #[test]
    fn only_a_successful_verified_transaction_is_paid() {
        let transaction = |status: &str| {
            serde_json::json!({
                "id": 288200108, "tx_ref": "0190a3f0-0000-7000-8000-000000000001", "status": status,
                "amount": 25.85, "currency": "NGN",
            })
        };
        let Verdict::Paid(paid) = Flutterwave::verdict(&transaction("successful")).unwrap() else { panic!("not paid") };
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("NGN")));
        assert_eq!(paid.event_id, "288200108");
        assert!(matches!(Flutterwave::verdict(&transaction("failed")).unwrap(), Verdict::Failed(_)));
        assert_eq!(Flutterwave::verdict(&transaction("pending")).unwrap(), Verdict::Nothing);
    }
}
