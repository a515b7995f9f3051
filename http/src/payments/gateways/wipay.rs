//! WiPay (Caribbean) hosted checkout: `POST /plugins/payments/request`
//! (form-encoded: account, currency, environment, order, total, response
//! URL) answers the page to send the payer to. WiPay sends the payer back to
//! `response_url` with the result and `hash` = MD5(transaction_id + total +
//! API key), which is what confirms a payment; WiPay posts no server
//! notification of its own, so the webhook takes the same signed result.
//! WiPay documents no refund API.

use crate::payments::gateway::*;
use async_trait::async_trait;
use md5::{Digest, Md5};
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct WiPay;

const ACCOUNT_NO: &str = "ACCOUNT_NO";
const API_KEY: &str = "API_KEY";

const FIELDS: &[Field] = &[Field::text(ACCOUNT_NO), Field::secret(API_KEY)];

/// The hash WiPay puts on a successful result.
pub fn result_hash(transaction_id: &str, total: &str, api_key: &str) -> String {
    hex::encode(Md5::digest(format!("{transaction_id}{total}{api_key}").as_bytes()))
}

impl WiPay {
    /// Checks a result's hash and reads it. A result without a hash (WiPay
    /// signs successful ones only) is `None`.
    fn verified(call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Option<Verdict>, GatewayError> {
        let field = |name: &str| incoming.param(name).map(|value| value.trim().to_string());
        let Some(hash) = field("hash") else { return Ok(None) };
        let missing = |name: &str| GatewayError::Malformed(format!("no {name}"));
        let transaction = field("transaction_id").ok_or_else(|| missing("transaction_id"))?;
        let total = field("total").ok_or_else(|| missing("total"))?;
        let expected = result_hash(&transaction, &total, call.get(API_KEY)?);
        if !same_bytes(expected.as_bytes(), hash.to_ascii_lowercase().as_bytes()) {
            return Err(GatewayError::Signature("the result's hash does not match".into()));
        }
        if field("status").as_deref() != Some("success") {
            return Ok(Some(Verdict::Nothing));
        }
        let order = field("order_id").ok_or_else(|| missing("order_id"))?;
        let amount: Decimal = total.parse().map_err(|_| missing("total"))?;
        Ok(Some(Verdict::Paid(Received {
            payment: PaymentKey::from_text(&order),
            reference: None,
            event_id: transaction,
            amount,
            currency: field("currency").map(|currency| currency.to_ascii_uppercase()),
        })))
    }
}

#[async_trait]
impl Gateway for WiPay {
    fn name(&self) -> &'static str {
        "wipay"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Jamaica, as the original; the sandbox is `environment=sandbox`.
        // Another region's host (tt.wipayfinancial.com) goes in `api_base`.
        "https://jm.wipayfinancial.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let form = [
            ("account_number", call.get(ACCOUNT_NO)?.to_string()),
            ("avs", "0".into()),
            ("country_code", "JM".into()),
            ("currency", payment.currency.to_ascii_uppercase()),
            ("environment", if call.settings.testing { "sandbox" } else { "live" }.into()),
            // The merchant bears the fee, so the payer pays (and WiPay signs) our total.
            ("fee_structure", "merchant_absorb".into()),
            ("method", "credit_card".into()),
            ("order_id", payment.id.to_string()),
            ("origin", "Wayfare".into()),
            ("response_url", order.return_url.clone()),
            ("total", two_decimals(payment.amount)),
        ];
        let response = call
            .http
            .post(call.url("/plugins/payments/request"))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await?;
        let answer = json_answer(response).await?;
        let url =
            answer["url"].as_str().ok_or_else(|| GatewayError::Provider(format!("no url: {}", answer["message"])))?;
        Ok(Started {
            to: Start::Redirect(url.to_string()),
            reference: answer["transaction_id"].as_str().map(str::to_string),
        })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        WiPay::verified(call, incoming)?.ok_or_else(|| GatewayError::Signature("no hash".into()))
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        _payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // An unsigned result (a decline) cannot be told from a forged one:
        // the payment stays pending.
        Ok(WiPay::verified(call, incoming)?.unwrap_or(Verdict::Nothing))
    }

    async fn refund(
        &self,
        _call: &Call<'_>,
        _payment: &PaymentRecord,
        _amount: Decimal,
        _key: &str,
    ) -> Result<Refunded, GatewayError> {
        Err(GatewayError::Unsupported("WiPay documents no refund API; refund from the WiPay dashboard"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_made_elsewhere_matches() {
        // Python: md5(b"100-1-2345-1" + b"25.85" + b"123").hexdigest()
        assert_eq!(result_hash("100-1-2345-1", "25.85", "123"), "aaac2231a2b5cb64900467562dbe9caf");
    }

    #[test]
    fn results_are_read_only_when_their_hash_is_wipays() {
        let mut settings = crate::payments::settings::GatewaySettings::default();
        settings.set(API_KEY, "123");
        let http = reqwest::Client::new();
        let call = Call { http: &http, settings: &settings, api_base: String::new(), now_ms: 0, public_url: None };
        let headers = axum::http::HeaderMap::new();
        let result = |query: &str| WiPay::verified(&call, &Incoming { headers: &headers, query, body: b"" });
        let paid = "status=success&transaction_id=100-1-2345-1&order_id=0190a3f0-0000-7000-8000-000000000001&total=25.85&currency=JMD&hash=aaac2231a2b5cb64900467562dbe9caf";
        let Ok(Some(Verdict::Paid(received))) = result(paid) else { panic!("paid") };
        assert_eq!((received.amount, received.currency.as_deref()), (Decimal::new(2585, 2), Some("JMD")));
        assert_eq!(received.event_id, "100-1-2345-1");
        assert!(matches!(result(&paid.replace("25.85", "2.58")), Err(GatewayError::Signature(_))));
        assert_eq!(result("status=failed&order_id=x"), Ok(None));
    }
}
