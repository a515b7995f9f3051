//! LiqPay (API version 3): every request is `data` (base64 of a JSON
//! object) and `signature` = base64(SHA-1(private_key + data +
//! private_key)). The checkout is that pair posted to `/api/3/checkout`; the
//! server callback (`server_url`, our webhook) posts a pair signed the same
//! way; the payer's return asks the API (`action: status`); refunds are
//! `action: refund` on `/api/request`.

use crate::payments::gateway::*;
use async_trait::async_trait;
use base64::Engine as _;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct LiqPay;

const PUBLIC_KEY: &str = "public_key";
const PRIVATE_KEY: &str = "private_key";

const FIELDS: &[Field] = &[Field::text(PUBLIC_KEY), Field::secret(PRIVATE_KEY)];

/// The signature of a `data` string.
pub fn signature(private_key: &str, data: &str) -> String {
    let signed = format!("{private_key}{data}{private_key}");
    let digest = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, signed.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
}

/// `data` and `signature` for a request object.
pub fn envelope(private_key: &str, request: &serde_json::Value) -> (String, String) {
    let data = base64::engine::general_purpose::STANDARD.encode(request.to_string());
    let signed = signature(private_key, &data);
    (data, signed)
}

impl LiqPay {
    fn request(call: &Call<'_>, mut fields: serde_json::Value) -> Result<(String, String), GatewayError> {
        fields["version"] = 3.into();
        fields["public_key"] = call.get(PUBLIC_KEY)?.into();
        Ok(envelope(call.get(PRIVATE_KEY)?, &fields))
    }

    /// A call to `/api/request`.
    async fn api(call: &Call<'_>, fields: serde_json::Value) -> Result<serde_json::Value, GatewayError> {
        let (data, signature) = LiqPay::request(call, fields)?;
        let response =
            call.http.post(call.url("/api/request")).form(&[("data", data), ("signature", signature)]).send().await?;
        json_answer(response).await
    }

    /// What a payment object (a callback's or a status answer's) says.
    fn read(call: &Call<'_>, payment: &serde_json::Value) -> Result<Verdict, GatewayError> {
        let Some(order) = payment["order_id"].as_str() else { return Ok(Verdict::Nothing) };
        let key = PaymentKey::from_text(order);
        let status = payment["status"].as_str().unwrap_or_default();
        // Sandbox payments end as `sandbox`; they count only while testing.
        let paid = status == "success" || (status == "sandbox" && call.settings.testing);
        if paid {
            let amount =
                major_from_json(&payment["amount"]).ok_or_else(|| GatewayError::Malformed("no amount".into()))?;
            let id = match &payment["payment_id"] {
                serde_json::Value::Number(number) => number.to_string(),
                serde_json::Value::String(text) => text.clone(),
                _ => return Err(GatewayError::Malformed("no payment_id".into())),
            };
            return Ok(Verdict::Paid(Received {
                payment: key,
                reference: None,
                event_id: id,
                amount,
                currency: payment["currency"].as_str().map(str::to_ascii_uppercase),
            }));
        }
        if matches!(status, "failure" | "error") {
            return Ok(Verdict::Failed(key));
        }
        Ok(Verdict::Nothing)
    }
}

#[async_trait]
impl Gateway for LiqPay {
    fn name(&self) -> &'static str {
        "liqpay"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // The sandbox is a flag in the request (`sandbox: 1`), not a host.
        "https://www.liqpay.ua"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let amount: serde_json::Value = serde_json::from_str(&two_decimals(payment.amount))
            .map_err(|_| GatewayError::Provider("an amount JSON cannot hold".into()))?;
        let mut request = serde_json::json!({
            "action": "pay",
            "amount": amount,
            "currency": payment.currency.to_ascii_uppercase(),
            "description": order.description,
            "order_id": payment.id.to_string(),
            "result_url": order.return_url,
            "server_url": order.notify_url,
            "language": "en",
        });
        if call.settings.testing {
            request["sandbox"] = "1".into();
        }
        let (data, signature) = LiqPay::request(call, request)?;
        Ok(Started {
            to: Start::PostForm {
                action: call.url("/api/3/checkout"),
                fields: vec![("data".into(), data), ("signature".into(), signature)],
            },
            reference: None,
        })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let Some(signed) = incoming.param("signature") else {
            return Err(GatewayError::Signature("no signature".into()));
        };
        let data = incoming.param("data").ok_or_else(|| GatewayError::Malformed("no data".into()))?;
        let expected = signature(call.get(PRIVATE_KEY)?, &data);
        if !same_bytes(expected.as_bytes(), signed.trim().as_bytes()) {
            return Err(GatewayError::Signature("the callback's signature does not match".into()));
        }
        let json = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .ok_or_else(|| GatewayError::Malformed("data is not base64 JSON".into()))?;
        if json["public_key"].as_str().is_some_and(|key| key != call.get(PUBLIC_KEY).unwrap_or_default()) {
            return Err(GatewayError::Malformed("a callback for another shop".into()));
        }
        LiqPay::read(call, &json)
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        let answer =
            LiqPay::api(call, serde_json::json!({"action": "status", "order_id": payment.id.to_string()})).await?;
        if answer["result"] == "error" {
            // `payment_not_found` before the payer paid.
            return Ok(Verdict::Nothing);
        }
        LiqPay::read(call, &answer)
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let amount: serde_json::Value = serde_json::from_str(&two_decimals(amount))
            .map_err(|_| GatewayError::Provider("an amount JSON cannot hold".into()))?;
        let answer = LiqPay::api(
            call,
            serde_json::json!({"action": "refund", "order_id": payment.id.to_string(), "amount": amount}),
        )
        .await?;
        if answer["result"] != "ok" {
            return Err(GatewayError::Provider(format!("refund refused: {}", answer["err_description"])));
        }
        // The answer names the payment, not the refund: our key names it.
        Ok(Refunded { reference: key.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_made_elsewhere_matches() {
        // A pair like LiqPay's examples, signed independently with Python:
        // base64(sha1(b"a4825234f4bae72a0be04eafe9e8e2bada209255" + data + b"a4825234f4bae72a0be04eafe9e8e2bada209255"))
        let data = "eyJ2ZXJzaW9uIjozLCJwdWJsaWNfa2V5IjoiaTAwMDAwMDAwIiwiYWN0aW9uIjoicGF5IiwiYW1vdW50IjoxLCJjdXJyZW5jeSI6IlVBSCIsImRlc2NyaXB0aW9uIjoidGVzdCIsIm9yZGVyX2lkIjoiMDAwMDAxIn0=";
        assert_eq!(signature("a4825234f4bae72a0be04eafe9e8e2bada209255", data), "rurahtntmu3Gf7lJDhfdl6mynrw=");
    }

    #[test]
    fn a_callback_reads_what_was_paid() {
        let settings = crate::payments::settings::GatewaySettings::default();
        let http = reqwest::Client::new();
        let call = Call { http: &http, settings: &settings, api_base: String::new(), now_ms: 0, public_url: None };
        let payment = |status: &str| {
            serde_json::json!({"order_id": "0190a3f0-0000-7000-8000-000000000001", "status": status,
                "amount": 25.85, "currency": "UAH", "payment_id": 165629})
        };
        let Ok(Verdict::Paid(paid)) = LiqPay::read(&call, &payment("success")) else { panic!("paid") };
        assert_eq!(
            (paid.amount, paid.currency.as_deref(), paid.event_id.as_str()),
            (Decimal::new(2585, 2), Some("UAH"), "165629")
        );
        assert_eq!(LiqPay::read(&call, &payment("sandbox")), Ok(Verdict::Nothing), "not while live");
        assert!(matches!(LiqPay::read(&call, &payment("failure")), Ok(Verdict::Failed(_))));
        assert_eq!(LiqPay::read(&call, &payment("processing")), Ok(Verdict::Nothing));
    }
}
