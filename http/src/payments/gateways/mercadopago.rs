//! Mercado Pago, Checkout Pro: a preference (`POST /checkout/preferences`,
//! `Authorization: Bearer <access token>`, our payment id as
//! `external_reference`) whose `init_point` (`sandbox_init_point` when
//! testing) the payer goes to. Notifications are signed (`x-signature:
//! ts=…,v1=…`, hex HMAC-SHA256 of `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`
//! with the webhook's secret) and name a payment, which is then read from
//! `GET /v1/payments/{id}` for its status, amount and currency. The payer's
//! return is checked by searching the payments of our reference; refunds go
//! to `POST /v1/payments/{id}/refunds`.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct MercadoPago;

const FIELDS: &[Field] = &[
    // Only Mercado Pago's browser SDK uses the public key.
    Field::text("public_key").optional(),
    Field::secret("access_token"),
    WEBHOOK_SECRET,
];

/// The signed manifest of a notification: the parts Mercado Pago sent, in
/// its order (an absent one is left out).
pub fn manifest(data_id: Option<&str>, request_id: Option<&str>, ts: &str) -> String {
    let mut text = String::new();
    if let Some(id) = data_id {
        // Alphanumeric ids are signed in lower case.
        let id = if id.chars().all(|c| c.is_ascii_alphanumeric()) { id.to_ascii_lowercase() } else { id.to_string() };
        text.push_str(&format!("id:{id};"));
    }
    if let Some(request) = request_id {
        text.push_str(&format!("request-id:{request};"));
    }
    text.push_str(&format!("ts:{ts};"));
    text
}

/// Checks an `x-signature` header against the manifest of what arrived.
pub fn verify(header: &str, data_id: Option<&str>, request_id: Option<&str>, secret: &str) -> Result<(), GatewayError> {
    let mut ts = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("ts", value)) => ts = Some(value.trim()),
            Some(("v1", value)) => v1 = Some(value.trim()),
            _ => {}
        }
    }
    let (Some(ts), Some(v1)) = (ts, v1) else {
        return Err(GatewayError::Signature("no ts or v1 in x-signature".into()));
    };
    let expected = hmac_sha256_hex(secret.as_bytes(), manifest(data_id, request_id, ts).as_bytes());
    if !same_bytes(v1.to_ascii_lowercase().as_bytes(), expected.as_bytes()) {
        return Err(GatewayError::Signature("the signature does not match".into()));
    }
    Ok(())
}

/// A payment as Mercado Pago answers it: received, failed, or not yet.
fn verdict(payment: &serde_json::Value) -> Verdict {
    let Some(reference) = payment["external_reference"].as_str().filter(|text| !text.is_empty()) else {
        return Verdict::Nothing;
    };
    let key = PaymentKey::from_text(reference);
    match payment["status"].as_str() {
        Some("approved") => {
            let id = match &payment["id"] {
                serde_json::Value::Number(number) => number.to_string(),
                serde_json::Value::String(text) => text.clone(),
                _ => return Verdict::Nothing,
            };
            let (Some(amount), Some(currency)) =
                (major_from_json(&payment["transaction_amount"]), payment["currency_id"].as_str())
            else {
                return Verdict::Nothing;
            };
            Verdict::Paid(Received {
                payment: key,
                reference: None,
                event_id: id,
                amount,
                currency: Some(currency.to_ascii_uppercase()),
            })
        }
        Some("rejected" | "cancelled") => Verdict::Failed(key),
        _ => Verdict::Nothing,
    }
}

impl MercadoPago {
    async fn payment(call: &Call<'_>, id: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call
            .http
            .get(call.url(&format!("/v1/payments/{id}")))
            .bearer_auth(call.get("access_token")?)
            .send()
            .await?;
        json_answer(response).await
    }

    /// The payments made for one of our payments, newest first.
    async fn payments_of(call: &Call<'_>, payment: &PaymentRecord) -> Result<Vec<serde_json::Value>, GatewayError> {
        let id = payment.id.to_string();
        let response = call
            .http
            .get(call.url("/v1/payments/search"))
            .query(&[("external_reference", id.as_str()), ("sort", "date_created"), ("criteria", "desc")])
            .bearer_auth(call.get("access_token")?)
            .send()
            .await?;
        let answer = json_answer(response).await?;
        Ok(answer["results"].as_array().cloned().unwrap_or_default())
    }
}

#[async_trait]
impl Gateway for MercadoPago {
    fn name(&self) -> &'static str {
        "mercadopago"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by credentials (test users), not by host.
        "https://api.mercadopago.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let id = payment.id.to_string();
        let unit_price: serde_json::Value = serde_json::from_str(&payment.amount.normalize().to_string())
            .map_err(|_| GatewayError::Provider("the amount is not a number".into()))?;
        let mut body = serde_json::json!({
            "items": [{
                "id": id,
                "title": order.description,
                "quantity": 1,
                "unit_price": unit_price,
                "currency_id": payment.currency.to_ascii_uppercase(),
            }],
            "external_reference": id,
            "back_urls": {"success": order.return_url, "pending": order.return_url, "failure": order.return_url},
            "auto_return": "approved",
            "notification_url": order.notify_url,
        });
        let email = order.form.email.trim();
        if !email.is_empty() {
            body["payer"] = serde_json::json!({
                "email": email, "name": order.form.first_name.trim(), "surname": order.form.last_name.trim(),
            });
        }
        let response = call
            .http
            .post(call.url("/checkout/preferences"))
            .bearer_auth(call.get("access_token")?)
            .header("X-Idempotency-Key", &id)
            .json(&body)
            .send()
            .await?;
        let preference = json_answer(response).await?;
        let point = if call.settings.testing { "sandbox_init_point" } else { "init_point" };
        let (Some(reference), Some(url)) = (preference["id"].as_str(), preference[point].as_str()) else {
            return Err(GatewayError::Provider(format!("a preference without id or {point}")));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(reference.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let secret = call.get(WEBHOOK_SECRET.name)?;
        let header =
            incoming.header("x-signature").ok_or_else(|| GatewayError::Signature("no x-signature header".into()))?;
        // The signed id is the one in the notification URL's query.
        let body = incoming.json().ok();
        let data_id = url::form_urlencoded::parse(incoming.query.as_bytes())
            .find(|(key, _)| key == "data.id")
            .map(|(_, value)| value.into_owned());
        verify(header, data_id.as_deref(), incoming.header("x-request-id"), secret)?;
        let Some(id) = data_id else { return Ok(Verdict::Nothing) };
        let topic = body.as_ref().and_then(|body| body["type"].as_str().map(str::to_string)).or_else(|| {
            url::form_urlencoded::parse(incoming.query.as_bytes())
                .find(|(key, _)| key == "type" || key == "topic")
                .map(|(_, value)| value.into_owned())
        });
        if topic.as_deref() != Some("payment") {
            return Ok(Verdict::Nothing);
        }
        Ok(verdict(&MercadoPago::payment(call, &id).await?))
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // Mercado Pago is asked which payments carry our reference; the
        // `payment_id` the browser brings is not needed.
        let found = MercadoPago::payments_of(call, payment).await?;
        let mut verdicts = found.iter().map(verdict);
        let paid = verdicts.clone().find(|verdict| matches!(verdict, Verdict::Paid(_)));
        Ok(paid.unwrap_or_else(|| {
            // Only a first (newest) attempt that failed closes it: the payer may try again.
            match verdicts.next() {
                Some(failed @ Verdict::Failed(_)) => failed,
                _ => Verdict::Nothing,
            }
        }))
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let paid = MercadoPago::payments_of(call, payment)
            .await?
            .into_iter()
            .find_map(|found| match verdict(&found) {
                Verdict::Paid(received) => Some(received.event_id),
                _ => None,
            })
            .ok_or_else(|| GatewayError::Provider("no approved Mercado Pago payment".into()))?;
        let amount: serde_json::Value = serde_json::from_str(&amount.normalize().to_string())
            .map_err(|_| GatewayError::Provider("the amount is not a number".into()))?;
        let response = call
            .http
            .post(call.url(&format!("/v1/payments/{paid}/refunds")))
            .bearer_auth(call.get("access_token")?)
            .header("X-Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .body(serde_json::json!({"amount": amount}).to_string())
            .send()
            .await?;
        let refund = json_answer(response).await?;
        let id = match &refund["id"] {
            serde_json::Value::Number(number) => number.to_string(),
            serde_json::Value::String(text) => text.clone(),
            _ => return Err(GatewayError::Provider("a refund without id".into())),
        };
        if matches!(refund["status"].as_str(), Some("rejected" | "cancelled")) {
            return Err(GatewayError::Provider(format!("refund {}", refund["status"])));
        }
        Ok(Refunded { reference: id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_made_elsewhere_verifies() {
        // Python: hmac.new(b"mp-secret", b"id:123456;request-id:bb56a2f1-6aae-46ac-982e-9dcd3581d08e;ts:1742505638683;", sha256)
        let header = "ts=1742505638683,v1=15732a6b94605d0d7d874cceeaa6ff344d887e7014e7e891422c766884db39f8";
        let request = Some("bb56a2f1-6aae-46ac-982e-9dcd3581d08e");
        assert_eq!(
            manifest(Some("123456"), request, "1742505638683"),
            "id:123456;request-id:bb56a2f1-6aae-46ac-982e-9dcd3581d08e;ts:1742505638683;"
        );
        assert!(verify(header, Some("123456"), request, "mp-secret").is_ok());
        assert!(matches!(verify(header, Some("123457"), request, "mp-secret"), Err(GatewayError::Signature(_))));
        assert!(matches!(verify(header, Some("123456"), request, "other"), Err(GatewayError::Signature(_))));
        assert!(matches!(verify("ts=1", Some("123456"), request, "mp-secret"), Err(GatewayError::Signature(_))));
        assert_eq!(manifest(Some("ABC1"), None, "9"), "id:abc1;ts:9;");
    }

    #[test]
    fn only_an_approved_payment_is_money_received() {
        let payment = |status: &str| {
            serde_json::json!({"id": 1234567890u64, "status": status, "transaction_amount": 25.85,
                "currency_id": "BRL", "external_reference": "0190a3f0-0000-7000-8000-000000000001"})
        };
        let Verdict::Paid(paid) = verdict(&payment("approved")) else { panic!("paid") };
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!((paid.event_id.as_str(), paid.amount), ("1234567890", Decimal::new(2585, 2)));
        assert_eq!(paid.currency.as_deref(), Some("BRL"));
        assert_eq!(verdict(&payment("in_process")), Verdict::Nothing);
        assert!(matches!(verdict(&payment("rejected")), Verdict::Failed(_)));
    }
}
