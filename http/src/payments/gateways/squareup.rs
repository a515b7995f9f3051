//! Square, the Checkout API: a quick-pay payment link (`POST
//! /v2/online-checkout/payment-links`, `Authorization: Bearer <access
//! token>`, the price in cents at the configured location) whose order id is
//! the checkout's reference. Payment webhooks are signed
//! (`x-square-hmacsha256-signature`: base64 HMAC-SHA256 of the notification
//! URL followed by the raw body, with the subscription's signature key). The
//! payer's return is checked by reading the order and its payment; refunds
//! go to `POST /v2/refunds` with an idempotency key.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Squareup;

/// The Square API version the requests and answers are written against.
pub const SQUARE_VERSION: &str = "2024-07-17";

/// Where Square posts this server's notifications (its path; the host is
/// the one Square called).
pub const WEBHOOK_PATH: &str = "/api/v1/payments/squareup/webhook";

const FIELDS: &[Field] = &[
    // Only Square's browser SDKs use the application id; the hosted checkout does not.
    Field::text("APPLICATION_ID").optional(),
    Field::text("LOCATION_ID"),
    Field::secret("ACCESS_TOKEN"),
    WEBHOOK_SECRET,
];

/// The URL Square signed with the notification: the subscription's URL,
/// this server's `public_url` when configured, else as the request reached
/// us (Square delivers only over HTTPS; a proxy in front names the original
/// host in `X-Forwarded-Host`).
pub fn notification_url(public_url: Option<&str>, incoming: &Incoming<'_>) -> Result<String, GatewayError> {
    let query = if incoming.query.is_empty() { String::new() } else { format!("?{}", incoming.query) };
    if let Some(base) = public_url {
        return Ok(format!("{base}{WEBHOOK_PATH}{query}"));
    }
    let host = incoming
        .header("x-forwarded-host")
        .or_else(|| incoming.header("host"))
        .map(|host| host.split(',').next().unwrap_or_default().trim())
        .filter(|host| !host.is_empty())
        .ok_or_else(|| GatewayError::Signature("no Host to rebuild the notification URL from".into()))?;
    Ok(format!("https://{host}{WEBHOOK_PATH}{query}"))
}

/// The `x-square-hmacsha256-signature` of a body posted to `url`.
pub fn sign(url: &str, body: &[u8], key: &str) -> String {
    let mut message = url.as_bytes().to_vec();
    message.extend_from_slice(body);
    hmac_sha256_base64(key.as_bytes(), &message)
}

/// A payment object as money received, failed, or not yet either.
fn verdict(payment: &serde_json::Value) -> Verdict {
    let Some(order) = payment["order_id"].as_str() else { return Verdict::Nothing };
    let key = PaymentKey::Reference(order.to_string());
    match payment["status"].as_str() {
        Some("COMPLETED") => {
            let money = &payment["amount_money"];
            let (Some(id), Some(amount), Some(currency)) =
                (payment["id"].as_str(), money["amount"].as_i64(), money["currency"].as_str())
            else {
                return Verdict::Nothing;
            };
            Verdict::Paid(Received {
                payment: key,
                reference: Some(order.to_string()),
                event_id: id.to_string(),
                amount: from_minor(amount, currency),
                currency: Some(currency.to_ascii_uppercase()),
            })
        }
        Some("FAILED" | "CANCELED") => Verdict::Failed(key),
        _ => Verdict::Nothing,
    }
}

impl Squareup {
    fn get(call: &Call<'_>, path: &str) -> Result<reqwest::RequestBuilder, GatewayError> {
        Ok(call
            .http
            .get(call.url(path))
            .bearer_auth(call.get("ACCESS_TOKEN")?)
            .header("Square-Version", SQUARE_VERSION))
    }

    /// The payment of a checkout's order, if the payer has paid (or tried to).
    async fn payment_of(call: &Call<'_>, order: &str) -> Result<Option<serde_json::Value>, GatewayError> {
        let answer = json_answer(Squareup::get(call, &format!("/v2/orders/{order}"))?.send().await?).await?;
        let tenders = answer["order"]["tenders"].as_array().cloned().unwrap_or_default();
        let Some(payment) = tenders.iter().find_map(|tender| tender["payment_id"].as_str().or(tender["id"].as_str()))
        else {
            return Ok(None);
        };
        let answer = json_answer(Squareup::get(call, &format!("/v2/payments/{payment}"))?.send().await?).await?;
        Ok(Some(answer["payment"].clone()))
    }
}

#[async_trait]
impl Gateway for Squareup {
    fn name(&self) -> &'static str {
        "squareup"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { "https://connect.squareupsandbox.com" } else { "https://connect.squareup.com" }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let minor = minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let mut body = serde_json::json!({
            // A retried call makes one link.
            "idempotency_key": payment.id.to_string(),
            "quick_pay": {
                "name": order.description,
                "price_money": {"amount": minor, "currency": payment.currency.to_ascii_uppercase()},
                "location_id": call.get("LOCATION_ID")?,
            },
            "checkout_options": {"redirect_url": order.return_url},
            "payment_note": format!("Wayfare payment {}", payment.id),
        });
        let email = order.form.email.trim();
        if !email.is_empty() {
            body["pre_populated_data"] = serde_json::json!({"buyer_email": email});
        }
        let response = call
            .http
            .post(call.url("/v2/online-checkout/payment-links"))
            .bearer_auth(call.get("ACCESS_TOKEN")?)
            .header("Square-Version", SQUARE_VERSION)
            .json(&body)
            .send()
            .await?;
        let answer = json_answer(response).await?;
        let link = &answer["payment_link"];
        let (Some(order_id), Some(url)) = (link["order_id"].as_str(), link["url"].as_str()) else {
            return Err(GatewayError::Provider("a payment link without order_id or url".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(order_id.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let key = call.get(WEBHOOK_SECRET.name)?;
        let given = incoming
            .header("x-square-hmacsha256-signature")
            .ok_or_else(|| GatewayError::Signature("no x-square-hmacsha256-signature header".into()))?;
        let expected = sign(&notification_url(call.public_url.as_deref(), incoming)?, incoming.body, key);
        if !same_bytes(given.trim().as_bytes(), expected.as_bytes()) {
            return Err(GatewayError::Signature("the signature does not match".into()));
        }
        let event = incoming.json()?;
        if !matches!(event["type"].as_str(), Some("payment.created" | "payment.updated")) {
            return Ok(Verdict::Nothing);
        }
        Ok(verdict(&event["data"]["object"]["payment"]))
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // The checkout's own order, whatever `orderId` the browser brings.
        let Some(order) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        Ok(Squareup::payment_of(call, order).await?.map_or(Verdict::Nothing, |paid| verdict(&paid)))
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let order = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no Square order"))?;
        let paid = Squareup::payment_of(call, order)
            .await?
            .ok_or_else(|| GatewayError::Provider("the order has no payment".into()))?;
        let payment_id = paid["id"].as_str().ok_or_else(|| GatewayError::Provider("a payment without id".into()))?;
        let minor = minor_units(amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let response = call
            .http
            .post(call.url("/v2/refunds"))
            .bearer_auth(call.get("ACCESS_TOKEN")?)
            .header("Square-Version", SQUARE_VERSION)
            .header("Content-Type", "application/json")
            .body(
                serde_json::json!({
                    "idempotency_key": key,
                    "payment_id": payment_id,
                    "amount_money": {"amount": minor, "currency": payment.currency.to_ascii_uppercase()},
                })
                .to_string(),
            )
            .send()
            .await?;
        let answer = json_answer(response).await?;
        let refund = &answer["refund"];
        match refund["id"].as_str() {
            Some(id) if !matches!(refund["status"].as_str(), Some("REJECTED" | "FAILED")) => {
                Ok(Refunded { reference: id.to_string() })
            }
            _ => Err(GatewayError::Provider(format!("refund {}", refund["status"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue};

    #[test]
    fn a_signature_made_elsewhere_verifies() {
        // Computed with Python's hmac: base64(HMAC-SHA256(key, url + body)).
        let url = "https://example.com/webhook";
        let body = br#"{"merchant_id":"MLEFBHHSJGVHD","type":"payment.updated"}"#;
        assert_eq!(sign(url, body, "sig-key-123"), "LoFs27zWzgckF8p+kV7fu4HhB+2AuDoUcIQ3fngolvs=");
    }

    #[test]
    fn the_notification_url_is_the_one_square_called() {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("ride.example.com"));
        let incoming = Incoming { headers: &headers, query: "", body: b"{}" };
        assert_eq!(
            notification_url(None, &incoming).unwrap(),
            "https://ride.example.com/api/v1/payments/squareup/webhook"
        );
        headers.insert("x-forwarded-host", HeaderValue::from_static("pay.example.com"));
        let incoming = Incoming { headers: &headers, query: "a=1", body: b"{}" };
        assert_eq!(
            notification_url(None, &incoming).unwrap(),
            "https://pay.example.com/api/v1/payments/squareup/webhook?a=1"
        );
        let none = HeaderMap::new();
        let incoming = Incoming { headers: &none, query: "", body: b"{}" };
        assert!(matches!(notification_url(None, &incoming), Err(GatewayError::Signature(_))));
        assert_eq!(
            notification_url(Some("https://pay.example.com"), &incoming).unwrap(),
            "https://pay.example.com/api/v1/payments/squareup/webhook",
            "the configured public URL wins over what the request says"
        );
    }

    #[test]
    fn only_a_completed_payment_is_money_received() {
        let payment = |status: &str| {
            serde_json::json!({"id": "KkAkhdMsgzn59SM8A89WgKwekxLZY", "order_id": "C0DMgui6YFmgyURVSRtxr4EShheZY",
                "status": status, "amount_money": {"amount": 2585, "currency": "USD"}})
        };
        let Verdict::Paid(paid) = verdict(&payment("COMPLETED")) else { panic!("paid") };
        assert_eq!(paid.payment, PaymentKey::Reference("C0DMgui6YFmgyURVSRtxr4EShheZY".into()));
        assert_eq!((paid.amount, paid.currency.as_deref()), (Decimal::new(2585, 2), Some("USD")));
        assert_eq!(paid.event_id, "KkAkhdMsgzn59SM8A89WgKwekxLZY");
        assert_eq!(verdict(&payment("APPROVED")), Verdict::Nothing);
        assert!(matches!(verdict(&payment("FAILED")), Verdict::Failed(_)));
    }
}
