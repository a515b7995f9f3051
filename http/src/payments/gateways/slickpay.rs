//! Slick-Pay (Algeria, CIB and Edahabia cards, in dinars): an invoice made
//! with the users' invoices API (`POST /api/v2/users/invoices`,
//! `Authorization: Bearer <public key>`), whose `url` the payer goes to and
//! whose `id` is the checkout's reference. Slick-Pay signs nothing: the
//! payer's return and any notification only name the invoice, and the server
//! reads it (`GET /api/v2/users/invoices/{id}`): `completed` with its amount
//! is paid. Slick-Pay's API has no refund.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Slickpay;

/// The only currency Slick-Pay charges in.
pub const CURRENCY: &str = "DZD";

const FIELDS: &[Field] = &[Field::secret("publicKey")];

const INVOICES: &str = "/api/v2/users/invoices";

/// An id as Slick-Pay writes it (a number, sometimes as text).
fn id_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::Number(number) => Some(number.to_string()),
        serde_json::Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_string()),
        _ => None,
    }
}

/// An invoice as Slick-Pay answers it: paid, or not yet.
fn verdict(id: &str, answer: &serde_json::Value) -> Verdict {
    let completed = matches!(&answer["completed"], serde_json::Value::Number(n) if n.as_i64() == Some(1))
        || answer["completed"] == true;
    if answer["success"] != 1 || !completed {
        return Verdict::Nothing;
    }
    let data = &answer["data"];
    let Some(amount) = major_from_json(&data["amount"]) else { return Verdict::Nothing };
    // The answer names no currency: Slick-Pay charges dinars only.
    let currency = data["currency"].as_str().unwrap_or(CURRENCY).to_ascii_uppercase();
    Verdict::Paid(Received {
        payment: PaymentKey::Reference(id.to_string()),
        reference: Some(id.to_string()),
        event_id: format!("invoice-{id}"),
        amount,
        currency: Some(currency),
    })
}

impl Slickpay {
    async fn invoice(call: &Call<'_>, id: &str) -> Result<Verdict, GatewayError> {
        if !id.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-') {
            return Err(GatewayError::Malformed("not an invoice id".into()));
        }
        let response = call
            .http
            .get(call.url(&format!("{INVOICES}/{id}")))
            .bearer_auth(call.get("publicKey")?)
            .header("Accept", "application/json")
            .send()
            .await?;
        Ok(verdict(id, &json_answer(response).await?))
    }
}

#[async_trait]
impl Gateway for Slickpay {
    fn name(&self) -> &'static str {
        "slickpay"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { "https://devapi.slick-pay.com" } else { "https://prodapi.slick-pay.com" }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        if !payment.currency.eq_ignore_ascii_case(CURRENCY) {
            return Err(GatewayError::Provider(format!("Slick-Pay charges {CURRENCY} only, not {}", payment.currency)));
        }
        minor_units(payment.amount, CURRENCY)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let amount: serde_json::Value = serde_json::from_str(&payment.amount.normalize().to_string())
            .map_err(|_| GatewayError::Provider("the amount is not a number".into()))?;
        let form = order.form;
        let body = serde_json::json!({
            "amount": amount,
            "firstname": form.first_name.trim(),
            "lastname": form.last_name.trim(),
            "email": form.email.trim(),
            "phone": form.mobile_no.trim(),
            // The checkout form does not ask for an address; Slick-Pay wants one.
            "address": "Not given",
            "url": order.return_url,
            "items": [{"name": order.description, "price": amount, "quantity": 1}],
        });
        let response = call
            .http
            .post(call.url(INVOICES))
            .bearer_auth(call.get("publicKey")?)
            .header("Accept", "application/json")
            .json(&body)
            .send()
            .await?;
        let answer = json_answer(response).await?;
        let (Some(id), Some(url)) = (id_text(&answer["id"]), answer["url"].as_str()) else {
            return Err(GatewayError::Provider(format!("no invoice: {}", answer["message"])));
        };
        if answer["success"] != 1 {
            return Err(GatewayError::Provider(format!("no invoice: {}", answer["message"])));
        }
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(id) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        // Only which invoice it names is read; Slick-Pay is then asked.
        let named = match incoming.json() {
            Ok(body) => id_text(&body["id"]).or_else(|| id_text(&body["invoice_id"])),
            Err(_) => incoming.param("id").or_else(|| incoming.param("invoice_id")),
        };
        let Some(id) = named else { return Err(GatewayError::Malformed("no invoice id".into())) };
        Slickpay::invoice(call, &id).await
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let Some(id) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        Slickpay::invoice(call, id).await
    }

    async fn refund(
        &self,
        _call: &Call<'_>,
        _payment: &PaymentRecord,
        _amount: Decimal,
        _key: &str,
    ) -> Result<Refunded, GatewayError> {
        Err(GatewayError::Unsupported("Slick-Pay's API has no refunds; refund from the Slick-Pay dashboard"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_completed_invoice_is_money_received() {
        let answer = |completed: i64| serde_json::json!({"success": 1, "completed": completed, "data": {"id": 1542, "amount": "2585.50"}});
        let Verdict::Paid(paid) = verdict("1542", &answer(1)) else { panic!("paid") };
        assert_eq!(paid.payment, PaymentKey::Reference("1542".into()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(258550, 2), Some("DZD")));
        assert_eq!(paid.event_id, "invoice-1542");
        assert_eq!(verdict("1542", &answer(0)), Verdict::Nothing);
        assert_eq!(verdict("1542", &serde_json::json!({"success": 0, "message": "Not found"})), Verdict::Nothing);
        assert_eq!(id_text(&serde_json::json!(1542)).as_deref(), Some("1542"));
        assert_eq!(id_text(&serde_json::json!("")), None);
    }
}
