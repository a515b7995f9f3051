//! Tap Payments: a charge (`POST /v2/charges`, JSON, `Authorization: Bearer
//! <secret key>`, the amount in major units, `source.id = src_all` for Tap's
//! hosted page) answers `transaction.url`. Tap posts the charge to `post.url`
//! with a `hashstring` header: hex HMAC-SHA256, with the secret key, of
//! `x_id…x_amount…x_currency…x_gateway_reference…x_payment_reference…x_status…x_created…`
//! (the amount with the currency's decimals). The payer's return is checked
//! with `GET /v2/charges/{id}`; refunds go to `POST /v2/refunds`.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Tap;

const SECRET_KEY: &str = "secret_key";

const FIELDS: &[Field] = &[Field::secret(SECRET_KEY), Field::text("merchantId").optional()];

/// Currencies Tap counts with three decimals.
const THREE_DECIMALS: [&str; 7] = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];

/// An amount as Tap writes it in the hashed string: the currency's decimals.
pub fn hashed_amount(amount: Decimal, currency: &str) -> String {
    if THREE_DECIMALS.iter().any(|code| code.eq_ignore_ascii_case(currency)) {
        format!("{:.3}", amount.round_dp(3))
    } else {
        two_decimals(amount)
    }
}

/// The `hashstring` of a charge as Tap posts it.
pub fn hashstring(charge: &serde_json::Value, secret_key: &str) -> Option<String> {
    let text = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Number(number) => number.to_string(),
        _ => String::new(),
    };
    let currency = charge["currency"].as_str()?;
    let amount = hashed_amount(major_from_json(&charge["amount"])?, currency);
    let message = format!(
        "x_id{}x_amount{amount}x_currency{currency}x_gateway_reference{}x_payment_reference{}x_status{}x_created{}",
        text(&charge["id"]),
        text(&charge["reference"]["gateway"]),
        text(&charge["reference"]["payment"]),
        text(&charge["status"]),
        text(&charge["transaction"]["created"]),
    );
    Some(hmac_sha256_hex(secret_key.as_bytes(), message.as_bytes()))
}

impl Tap {
    /// What a charge says. It is named by its id, which the hash covers (our
    /// own id in `reference.transaction` is not hashed).
    fn verdict(charge: &serde_json::Value) -> Result<Verdict, GatewayError> {
        let Some(id) = charge["id"].as_str() else { return Err(GatewayError::Malformed("a charge without id".into())) };
        let key = PaymentKey::Reference(id.to_string());
        match charge["status"].as_str() {
            Some("CAPTURED") => {
                let malformed = || GatewayError::Malformed("a captured charge without amount or currency".into());
                Ok(Verdict::Paid(Received {
                    payment: key,
                    reference: Some(id.to_string()),
                    event_id: id.to_string(),
                    amount: major_from_json(&charge["amount"]).ok_or_else(malformed)?,
                    currency: Some(charge["currency"].as_str().ok_or_else(malformed)?.to_ascii_uppercase()),
                }))
            }
            Some(
                "ABANDONED" | "CANCELLED" | "FAILED" | "DECLINED" | "RESTRICTED" | "VOID" | "TIMEDOUT" | "UNKNOWN",
            ) => Ok(Verdict::Failed(key)),
            // INITIATED, IN_PROGRESS: the payer may still pay.
            _ => Ok(Verdict::Nothing),
        }
    }
}

#[async_trait]
impl Gateway for Tap {
    fn name(&self) -> &'static str {
        "tap"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`sk_test_…`), not by host.
        "https://api.tap.company"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let form = order.form;
        let amount: serde_json::Value =
            serde_json::from_str(&payment.amount.normalize().to_string()).unwrap_or(serde_json::Value::Null);
        let mut body = serde_json::json!({
            "amount": amount,
            "currency": payment.currency.to_ascii_uppercase(),
            "customer_initiated": true,
            "threeDSecure": true,
            "save_card": false,
            "description": order.description,
            "metadata": {"order_id": form.order_id.trim()},
            "reference": {"transaction": payment.id.to_string(), "order": form.order_id.trim()},
            "receipt": {"email": false, "sms": false},
            "customer": {"first_name": form.first_name.trim(), "last_name": form.last_name.trim(), "email": form.email.trim()},
            "source": {"id": "src_all"},
            "post": {"url": order.notify_url},
            "redirect": {"url": order.return_url},
        });
        if let Some(merchant) = call.settings.value("merchantId") {
            body["merchant"] = serde_json::json!({"id": merchant});
        }
        let response =
            call.http.post(call.url("/v2/charges")).bearer_auth(call.get(SECRET_KEY)?).json(&body).send().await?;
        let charge = json_answer(response).await?;
        let (Some(id), Some(url)) = (charge["id"].as_str(), charge["transaction"]["url"].as_str()) else {
            return Err(GatewayError::Provider("a charge without id or transaction.url".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(id.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let given = incoming.header("hashstring").unwrap_or_default().to_ascii_lowercase();
        let charge = incoming.json().map_err(|_| GatewayError::Signature("the body is not a Tap charge".into()))?;
        let expected = hashstring(&charge, call.get(SECRET_KEY)?).unwrap_or_default();
        if given.is_empty() || expected.is_empty() || !same_bytes(expected.as_bytes(), given.as_bytes()) {
            return Err(GatewayError::Signature("hashstring does not match the charge".into()));
        }
        if charge["object"].as_str().is_some_and(|object| object != "charge") {
            return Ok(Verdict::Nothing);
        }
        Tap::verdict(&charge)
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let Some(reference) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        let response = call
            .http
            .get(call.url(&format!("/v2/charges/{reference}")))
            .bearer_auth(call.get(SECRET_KEY)?)
            .send()
            .await?;
        Tap::verdict(&json_answer(response).await?)
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let reference = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no Tap charge"))?;
        let amount: serde_json::Value =
            serde_json::from_str(&amount.normalize().to_string()).unwrap_or(serde_json::Value::Null);
        // Tap takes no idempotency key on refunds; ours is the merchant reference.
        let body = serde_json::json!({
            "charge_id": reference,
            "amount": amount,
            "currency": payment.currency.to_ascii_uppercase(),
            "reason": "requested_by_customer",
            "reference": {"merchant": key},
        });
        let response =
            call.http.post(call.url("/v2/refunds")).bearer_auth(call.get(SECRET_KEY)?).json(&body).send().await?;
        let refund = json_answer(response).await?;
        match refund["id"].as_str() {
            Some(id) if !matches!(refund["status"].as_str(), Some("FAILED" | "CANCELLED" | "DECLINED")) => {
                Ok(Refunded { reference: id.to_string() })
            }
            _ => Err(GatewayError::Provider(format!("refund {}", refund["status"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charge(amount: serde_json::Value, currency: &str, status: &str) -> serde_json::Value {
        serde_json::json!({
            "id": "chg_1", "object": "charge", "amount": amount, "currency": currency, "status": status,
            "reference": {"gateway": "gw", "payment": "py", "transaction": "0190a3f0-0000-7000-8000-000000000001"},
            "transaction": {"created": "1700"},
        })
    }

    #[test]
    fn the_hashstring_matches_values_made_elsewhere() {
        // Computed with Python's hmac over the documented concatenation.
        assert_eq!(
            hashstring(&charge(serde_json::json!(1.5), "KWD", "CAPTURED"), "sk_test_tap").unwrap(),
            "179c2b9065a8d0e8418508f80a4cf36546b55e9908191de61b2167abc938d357"
        );
        assert_eq!(
            hashstring(&charge(serde_json::json!(10), "SAR", "CAPTURED"), "sk_test_tap").unwrap(),
            "3b274b5fdd11cd24957d72d9344e2536791e0362e34dbcfe27fb49a325ed58ab"
        );
        assert_eq!(hashed_amount(Decimal::new(25, 1), "bhd"), "2.500");
    }

    #[test]
    fn a_captured_charge_is_paid_by_its_id_and_a_declined_one_failed() {
        let Verdict::Paid(paid) = Tap::verdict(&charge(serde_json::json!(25.85), "SAR", "CAPTURED")).unwrap() else {
            panic!("not paid")
        };
        assert_eq!(paid.payment, PaymentKey::Reference("chg_1".into()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("SAR")));
        assert_eq!(
            Tap::verdict(&charge(serde_json::json!(25.85), "SAR", "DECLINED")).unwrap(),
            Verdict::Failed(PaymentKey::Reference("chg_1".into()))
        );
        assert_eq!(Tap::verdict(&charge(serde_json::json!(25.85), "SAR", "INITIATED")).unwrap(), Verdict::Nothing);
    }
}
