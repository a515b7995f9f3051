//! PayPal Checkout, Orders v2: an OAuth2 token from the client id and
//! secret (`POST /v1/oauth2/token`), an order with intent CAPTURE (`POST
//! /v2/checkout/orders`, our payment id as `custom_id` and `invoice_id`) and
//! the payer sent to its `approve` link. An approved order is captured by the
//! server (`POST /v2/checkout/orders/{id}/capture`) and confirmed from the
//! capture's amount. Webhooks are checked by PayPal itself (`POST
//! /v1/notifications/verify-webhook-signature` with the transmission headers
//! and the `webhook_id`); refunds go to the capture.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct PayPal;

/// The id PayPal gave the webhook registered for this server; without it no
/// notification can be verified, so none is taken.
pub const WEBHOOK_ID: Field = Field::text("webhook_id").optional();

const FIELDS: &[Field] = &[Field::text("paypal_client_id"), Field::secret("paypal_secret"), WEBHOOK_ID];

/// The transmission headers PayPal signs a notification with, and the
/// verify-webhook-signature field each goes to.
const TRANSMISSION: [(&str, &str); 5] = [
    ("paypal-auth-algo", "auth_algo"),
    ("paypal-cert-url", "cert_url"),
    ("paypal-transmission-id", "transmission_id"),
    ("paypal-transmission-sig", "transmission_sig"),
    ("paypal-transmission-time", "transmission_time"),
];

/// The verify-webhook-signature request for a notification. The event goes
/// in as it arrived: PayPal checks its signature over the exact bytes, which
/// parsing and re-serialising could change.
pub fn verification_request(incoming: &Incoming<'_>, webhook_id: &str) -> Result<String, GatewayError> {
    let body =
        std::str::from_utf8(incoming.body).map_err(|_| GatewayError::Malformed("the body is not text".into()))?;
    serde_json::from_str::<serde_json::Value>(body)
        .map_err(|_| GatewayError::Malformed("the body is not JSON".into()))?;
    let mut fields = serde_json::Map::new();
    for (header, field) in TRANSMISSION {
        let value = incoming
            .header(header)
            .filter(|value| !value.trim().is_empty())
            .ok_or_else(|| GatewayError::Signature(format!("no {header} header")))?;
        fields.insert(field.into(), value.into());
    }
    fields.insert("webhook_id".into(), webhook_id.into());
    let head = serde_json::Value::Object(fields).to_string();
    // `{…}` + `,"webhook_event":<raw>}`
    Ok(format!("{},\"webhook_event\":{body}}}", &head[..head.len() - 1]))
}

/// The completed capture of an order (an order or a capture answer), as money received.
fn captured(order: &serde_json::Value) -> Option<Received> {
    let unit = &order["purchase_units"][0];
    let capture = unit["payments"]["captures"].as_array()?.iter().find(|capture| capture["status"] == "COMPLETED")?;
    let key = capture["custom_id"].as_str().or_else(|| unit["custom_id"].as_str())?;
    Some(Received {
        payment: PaymentKey::from_text(key),
        reference: order["id"].as_str().map(str::to_string),
        event_id: capture["id"].as_str()?.to_string(),
        amount: major_from_json(&capture["amount"]["value"])?,
        currency: Some(capture["amount"]["currency_code"].as_str()?.to_ascii_uppercase()),
    })
}

/// A capture resource (a `PAYMENT.CAPTURE.*` event's), as money received.
fn capture_received(capture: &serde_json::Value) -> Option<Received> {
    Some(Received {
        payment: PaymentKey::from_text(capture["custom_id"].as_str()?),
        reference: capture["supplementary_data"]["related_ids"]["order_id"].as_str().map(str::to_string),
        event_id: capture["id"].as_str()?.to_string(),
        amount: major_from_json(&capture["amount"]["value"])?,
        currency: Some(capture["amount"]["currency_code"].as_str()?.to_ascii_uppercase()),
    })
}

impl PayPal {
    async fn token(call: &Call<'_>) -> Result<String, GatewayError> {
        let response = call
            .http
            .post(call.url("/v1/oauth2/token"))
            .basic_auth(call.get("paypal_client_id")?, Some(call.get("paypal_secret")?))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await?;
        let answer = json_answer(response).await?;
        answer["access_token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| GatewayError::Provider("no access_token".into()))
    }

    async fn order(call: &Call<'_>, token: &str, id: &str) -> Result<serde_json::Value, GatewayError> {
        let response = call.http.get(call.url(&format!("/v2/checkout/orders/{id}"))).bearer_auth(token).send().await?;
        json_answer(response).await
    }

    /// What an order has come to: captured (by us now, if the payer approved it), or not yet.
    async fn settle(call: &Call<'_>, token: &str, id: &str) -> Result<Verdict, GatewayError> {
        let order = PayPal::order(call, token, id).await?;
        let order = match order["status"].as_str() {
            Some("APPROVED") => {
                // The same request id: a capture racing another (return and webhook) is made once.
                let response = call
                    .http
                    .post(call.url(&format!("/v2/checkout/orders/{id}/capture")))
                    .bearer_auth(token)
                    .header("PayPal-Request-Id", format!("capture-{id}"))
                    .header("Prefer", "return=representation")
                    .header("Content-Type", "application/json")
                    .body("{}")
                    .send()
                    .await?;
                json_answer(response).await?
            }
            Some("COMPLETED") => order,
            Some("VOIDED") => {
                let key = order["purchase_units"][0]["custom_id"].as_str().unwrap_or(id);
                return Ok(Verdict::Failed(PaymentKey::from_text(key)));
            }
            _ => return Ok(Verdict::Nothing),
        };
        Ok(captured(&order).map_or(Verdict::Nothing, Verdict::Paid))
    }
}

#[async_trait]
impl Gateway for PayPal {
    fn name(&self) -> &'static str {
        "paypal"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { "https://api-m.sandbox.paypal.com" } else { "https://api-m.paypal.com" }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let id = payment.id.to_string();
        let body = serde_json::json!({
            "intent": "CAPTURE",
            "purchase_units": [{
                "reference_id": id,
                "custom_id": id,
                "invoice_id": id,
                "description": order.description,
                "amount": {
                    "currency_code": payment.currency.to_ascii_uppercase(),
                    "value": if minor_units(Decimal::ONE, &payment.currency) == Some(1) {
                        payment.amount.trunc().to_string()
                    } else {
                        two_decimals(payment.amount)
                    },
                },
            }],
            "application_context": {
                "return_url": order.return_url,
                "cancel_url": order.cancel_url,
                "user_action": "PAY_NOW",
                "shipping_preference": "NO_SHIPPING",
            },
        });
        let token = PayPal::token(call).await?;
        let response = call
            .http
            .post(call.url("/v2/checkout/orders"))
            .bearer_auth(&token)
            .header("PayPal-Request-Id", &id)
            .json(&body)
            .send()
            .await?;
        let created = json_answer(response).await?;
        let approve = created["links"]
            .as_array()
            .and_then(|links| links.iter().find(|link| link["rel"] == "approve" || link["rel"] == "payer-action"))
            .and_then(|link| link["href"].as_str());
        let (Some(reference), Some(url)) = (created["id"].as_str(), approve) else {
            return Err(GatewayError::Provider("an order without id or approve link".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(reference.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let webhook_id = call.get(WEBHOOK_ID.name)?;
        let request = verification_request(incoming, webhook_id)?;
        let token = PayPal::token(call).await?;
        let response = call
            .http
            .post(call.url("/v1/notifications/verify-webhook-signature"))
            .bearer_auth(&token)
            .header("Content-Type", "application/json")
            .body(request)
            .send()
            .await?;
        let verified = json_answer(response).await?;
        if verified["verification_status"] != "SUCCESS" {
            return Err(GatewayError::Signature(format!("PayPal answered {}", verified["verification_status"])));
        }
        let event = incoming.json()?;
        let resource = &event["resource"];
        match event["event_type"].as_str().unwrap_or_default() {
            // Approved, not yet paid: the capture is ours to make.
            "CHECKOUT.ORDER.APPROVED" | "CHECKOUT.ORDER.COMPLETED" => {
                let id =
                    resource["id"].as_str().ok_or_else(|| GatewayError::Malformed("an order without id".into()))?;
                PayPal::settle(call, &token, id).await
            }
            "PAYMENT.CAPTURE.COMPLETED" => Ok(capture_received(resource).map_or(Verdict::Nothing, Verdict::Paid)),
            "PAYMENT.CAPTURE.DENIED" | "CHECKOUT.ORDER.VOIDED" => {
                let key =
                    resource["custom_id"].as_str().or_else(|| resource["purchase_units"][0]["custom_id"].as_str());
                Ok(key.map_or(Verdict::Nothing, |key| Verdict::Failed(PaymentKey::from_text(key))))
            }
            _ => Ok(Verdict::Nothing),
        }
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // The order is the one the checkout made, whatever `token` the browser brings.
        let Some(reference) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        let token = PayPal::token(call).await?;
        PayPal::settle(call, &token, reference).await
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let reference = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no PayPal order"))?;
        let token = PayPal::token(call).await?;
        let order = PayPal::order(call, &token, reference).await?;
        let capture = captured(&order).ok_or_else(|| GatewayError::Provider("the order has no capture".into()))?;
        let response = call
            .http
            .post(call.url(&format!("/v2/payments/captures/{}/refund", capture.event_id)))
            .bearer_auth(&token)
            .header("PayPal-Request-Id", key)
            .header("Content-Type", "application/json")
            .body(
                serde_json::json!({
                    "amount": {"value": two_decimals(amount), "currency_code": payment.currency.to_ascii_uppercase()},
                    "invoice_id": format!("{}-{key}", payment.id),
                })
                .to_string(),
            )
            .send()
            .await?;
        let refund = json_answer(response).await?;
        match refund["id"].as_str() {
            Some(id) if matches!(refund["status"].as_str(), Some("COMPLETED" | "PENDING")) => {
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

    fn headers() -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("paypal-auth-algo", "SHA256withRSA"),
            ("paypal-cert-url", "https://api.paypal.com/v1/notifications/certs/CERT-360caa42"),
            ("paypal-transmission-id", "69cd13f0-d67a-11e5-baa3-778b53f4ae55"),
            (
                "paypal-transmission-sig",
                "lmI95Jx3Y9nhR5SJWlHVIWpg4AgFk7n9bCHSRxbrd8A9zrhdu2rMyFrmz+Zjh3s3boXB07VXCXUZy/UFzUlnGJn0wDugt7FlSvdKeIJenLRemUxYCPVoEZzg9VFNqOa48gMkvF+XTpxBeUx/kWy6B5cp7GkT2+pOowfRK7OaynuxUoKW3JcMWw272VKjLTtTAShncla7tGF+55rxyt2KNZIIqxNMJ48RDZheGU5w1npu9dZHnPgTXB9iomeVRoD8O/jhRpnKsGrDschyNdkeh81BJJMH4Ctc6lnCCquoP/GzCzz33MMsNdid7vL/NIWaCsekQpW26FpWPi/tfj8nLA==",
            ),
            ("paypal-transmission-time", "2016-02-18T20:01:35Z"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn the_event_goes_to_paypal_byte_for_byte() {
        let headers = headers();
        // Spacing and key order a re-serialisation would change.
        let body = br#"{"id": "WH-1", "event_type":"CHECKOUT.ORDER.APPROVED","resource":{"id":"5O190127TN364715T"}}"#;
        let incoming = Incoming { headers: &headers, query: "", body };
        let request = verification_request(&incoming, "1JE4291016473214C").unwrap();
        assert!(request.ends_with(&format!(",\"webhook_event\":{}}}", std::str::from_utf8(body).unwrap())));
        let parsed: serde_json::Value = serde_json::from_str(&request).unwrap();
        assert_eq!(parsed["webhook_id"], "1JE4291016473214C");
        assert_eq!(parsed["auth_algo"], "SHA256withRSA");
        assert_eq!(parsed["transmission_time"], "2016-02-18T20:01:35Z");
        assert_eq!(parsed["webhook_event"]["resource"]["id"], "5O190127TN364715T");
    }

    #[test]
    fn a_notification_without_its_transmission_headers_is_refused() {
        let mut headers = headers();
        headers.remove("paypal-transmission-sig");
        let incoming = Incoming { headers: &headers, query: "", body: b"{}" };
        assert!(matches!(verification_request(&incoming, "WH"), Err(GatewayError::Signature(_))));
        let headers = self::headers();
        let incoming = Incoming { headers: &headers, query: "", body: b"not json" };
        assert!(matches!(verification_request(&incoming, "WH"), Err(GatewayError::Malformed(_))));
    }

    #[test]
    fn only_a_completed_capture_is_money_received() {
        let id = "0190a3f0-0000-7000-8000-000000000001";
        let order = |status: &str| {
            serde_json::json!({"id": "5O190127TN364715T", "status": "COMPLETED", "purchase_units": [{
                "custom_id": id,
                "payments": {"captures": [{"id": "3C679366HH908993F", "status": status, "custom_id": id,
                    "amount": {"currency_code": "USD", "value": "25.85"}}]}
            }]})
        };
        let paid = captured(&order("COMPLETED")).unwrap();
        assert_eq!(paid.payment, PaymentKey::Ours(id.parse().unwrap()));
        assert_eq!(paid.reference.as_deref(), Some("5O190127TN364715T"));
        assert_eq!(
            (paid.event_id.as_str(), paid.amount, paid.currency.as_deref()),
            ("3C679366HH908993F", Decimal::new(2585, 2), Some("USD"))
        );
        assert!(captured(&order("PENDING")).is_none());
        let capture = serde_json::json!({"id": "3C6", "custom_id": id, "amount": {"currency_code": "eur", "value": "10.00"},
            "supplementary_data": {"related_ids": {"order_id": "5O1"}}});
        let paid = capture_received(&capture).unwrap();
        assert_eq!((paid.reference.as_deref(), paid.currency.as_deref()), (Some("5O1"), Some("EUR")));
    }
}
