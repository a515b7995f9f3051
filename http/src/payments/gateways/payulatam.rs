//! PayU Latam WebCheckout: a form posted to PayU's checkout, signed with
//! the MD5 of `apiKey~merchantId~referenceCode~amount~currency`. PayU posts
//! the confirmation page (our webhook) a form signed with
//! `sign = MD5(apiKey~merchant_id~reference_sale~new_value~currency~state_pol)`;
//! the payer comes back to the response page with `signature` over the same
//! shape (`TX_VALUE` rounded to one decimal). Refunds are a Payments API
//! `SUBMIT_TRANSACTION` of type `REFUND`, which needs the account's API login.

use crate::payments::gateway::*;
use async_trait::async_trait;
use md5::{Digest, Md5};
use rust_decimal::{Decimal, RoundingStrategy};
use wayfare_storage::PaymentRecord;

pub struct PayULatam;

const MERCHANT_ID: &str = "merchantId";
const API_KEY: &str = "apiKey";
const ACCOUNT_ID: &str = "accountId";
/// Not one of the original's fields: PayU's Payments API (refunds) signs in
/// with the API login besides the API key.
const API_LOGIN: &str = "apiLogin";

const FIELDS: &[Field] =
    &[Field::text(MERCHANT_ID), Field::secret(API_KEY), Field::text(ACCOUNT_ID), Field::secret(API_LOGIN).optional()];

const LIVE: &str = "https://checkout.payulatam.com";
const SANDBOX: &str = "https://sandbox.checkout.payulatam.com";
const API_LIVE: &str = "https://api.payulatam.com";
const API_SANDBOX: &str = "https://sandbox.api.payulatam.com";

fn md5_hex(text: &str) -> String {
    hex::encode(Md5::digest(text.as_bytes()))
}

/// The checkout's signature.
pub fn checkout_signature(api_key: &str, merchant_id: &str, reference: &str, amount: &str, currency: &str) -> String {
    md5_hex(&format!("{api_key}~{merchant_id}~{reference}~{amount}~{currency}"))
}

/// The confirmation page's `new_value`: the value with one decimal when its
/// second decimal is 0 (150.00 → 150.0), else with two (150.26).
pub fn confirmation_value(value: Decimal) -> String {
    let cents = value.round_dp(2);
    if (cents * Decimal::TEN).fract().is_zero() { format!("{cents:.1}") } else { format!("{cents:.2}") }
}

/// The response page's value: `TX_VALUE` rounded to one decimal, half to even.
pub fn response_value(value: Decimal) -> String {
    format!("{:.1}", value.round_dp_with_strategy(1, RoundingStrategy::MidpointNearestEven))
}

/// The signature of a confirmation or of a response page.
pub fn result_signature(
    api_key: &str,
    merchant_id: &str,
    reference: &str,
    value: &str,
    currency: &str,
    state: &str,
) -> String {
    md5_hex(&format!("{api_key}~{merchant_id}~{reference}~{value}~{currency}~{state}"))
}

/// The names a confirmation and a response page give the same things.
struct Shape {
    merchant: &'static str,
    reference: &'static str,
    value: &'static str,
    currency: &'static str,
    state: &'static str,
    signature: &'static str,
    order: &'static str,
    transaction: &'static str,
    rounding: fn(Decimal) -> String,
}

const CONFIRMATION: Shape = Shape {
    merchant: "merchant_id",
    reference: "reference_sale",
    value: "value",
    currency: "currency",
    state: "state_pol",
    signature: "sign",
    order: "reference_pol",
    transaction: "transaction_id",
    rounding: confirmation_value,
};

const RESPONSE: Shape = Shape {
    merchant: "merchantId",
    reference: "referenceCode",
    value: "TX_VALUE",
    currency: "currency",
    state: "transactionState",
    signature: "signature",
    order: "reference_pol",
    transaction: "transactionId",
    rounding: response_value,
};

impl PayULatam {
    fn api(call: &Call<'_>) -> String {
        match &call.settings.api_base {
            Some(_) => call.api_base.trim_end_matches('/').to_string(),
            None if call.settings.testing => API_SANDBOX.to_string(),
            None => API_LIVE.to_string(),
        }
    }

    /// Checks a signed result of `shape` and reads it.
    fn verified(call: &Call<'_>, incoming: &Incoming<'_>, shape: &Shape) -> Result<Verdict, GatewayError> {
        let field = |name: &str| incoming.param(name).map(|value| value.trim().to_string());
        let signature = field(shape.signature).ok_or_else(|| GatewayError::Signature("no signature".into()))?;
        let missing = |name: &str| GatewayError::Malformed(format!("no {name}"));
        let merchant = field(shape.merchant).ok_or_else(|| missing(shape.merchant))?;
        let reference = field(shape.reference).ok_or_else(|| missing(shape.reference))?;
        let currency = field(shape.currency).ok_or_else(|| missing(shape.currency))?;
        let state = field(shape.state).ok_or_else(|| missing(shape.state))?;
        let value: Decimal =
            field(shape.value).and_then(|value| value.parse().ok()).ok_or_else(|| missing(shape.value))?;
        let expected =
            result_signature(call.get(API_KEY)?, &merchant, &reference, &(shape.rounding)(value), &currency, &state);
        if !same_bytes(expected.as_bytes(), signature.to_ascii_lowercase().as_bytes()) {
            return Err(GatewayError::Signature("the signature does not match".into()));
        }
        if merchant != call.get(MERCHANT_ID)? {
            return Err(GatewayError::Malformed("a result for another merchant".into()));
        }
        let key = PaymentKey::from_text(&reference);
        match state.as_str() {
            "4" => {
                let order = field(shape.order).ok_or_else(|| missing(shape.order))?;
                let transaction = field(shape.transaction).ok_or_else(|| missing(shape.transaction))?;
                Ok(Verdict::Paid(Received {
                    payment: key,
                    reference: None,
                    // Both ids, as a refund needs both.
                    event_id: format!("{order}/{transaction}"),
                    amount: value,
                    currency: Some(currency.to_ascii_uppercase()),
                }))
            }
            // Declined, expired.
            "6" | "5" => Ok(Verdict::Failed(key)),
            _ => Ok(Verdict::Nothing),
        }
    }
}

#[async_trait]
impl Gateway for PayULatam {
    fn name(&self) -> &'static str {
        "payulatam"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { SANDBOX } else { LIVE }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let merchant_id = call.get(MERCHANT_ID)?;
        let reference = payment.id.to_string();
        let amount = two_decimals(payment.amount);
        let currency = payment.currency.to_ascii_uppercase();
        let signature = checkout_signature(call.get(API_KEY)?, merchant_id, &reference, &amount, &currency);
        let full_name = format!("{} {}", order.form.first_name.trim(), order.form.last_name.trim());
        let fields = [
            ("merchantId", merchant_id.to_string()),
            ("accountId", call.get(ACCOUNT_ID)?.to_string()),
            ("description", order.description.chars().take(255).collect()),
            ("referenceCode", reference),
            ("amount", amount),
            ("tax", "0".into()),
            ("taxReturnBase", "0".into()),
            ("currency", currency),
            ("signature", signature),
            ("test", if call.settings.testing { "1" } else { "0" }.into()),
            ("buyerEmail", order.form.email.trim().to_string()),
            ("buyerFullName", full_name.trim().to_string()),
            ("responseUrl", order.return_url.clone()),
            ("confirmationUrl", order.notify_url.clone()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        let action = format!("{}/ppp-web-gateway-payu/", call.api_base.trim_end_matches('/'));
        Ok(Started { to: Start::PostForm { action, fields }, reference: None })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        PayULatam::verified(call, incoming, &CONFIRMATION)
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        _payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // The response page carries PayU's signed result; a confirmation's
        // fields are signed too. Nothing signed, nothing known.
        if incoming.param(RESPONSE.signature).is_some() {
            PayULatam::verified(call, incoming, &RESPONSE)
        } else if incoming.param(CONFIRMATION.signature).is_some() {
            PayULatam::verified(call, incoming, &CONFIRMATION)
        } else {
            Ok(Verdict::Nothing)
        }
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let (order, transaction) = payment
            .event_id
            .as_deref()
            .and_then(|ids| ids.split_once('/'))
            .ok_or(GatewayError::Unsupported("no PayU order and transaction to refund"))?;
        let request = serde_json::json!({
            "language": "en",
            "command": "SUBMIT_TRANSACTION",
            "merchant": {"apiLogin": call.get(API_LOGIN)?, "apiKey": call.get(API_KEY)?},
            "transaction": {
                "order": {"id": order.parse::<i64>().map_or_else(|_| serde_json::json!(order), serde_json::Value::from)},
                "type": "REFUND",
                "reason": format!("Wayfare refund {key}"),
                "parentTransactionId": transaction,
                "additionalValues": {"TX_VALUE": {"value": two_decimals(amount), "currency": payment.currency.to_ascii_uppercase()}},
            },
            "test": call.settings.testing,
        });
        let response = call
            .http
            .post(format!("{}/payments-api/4.0/service.cgi", PayULatam::api(call)))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(request.to_string())
            .send()
            .await?;
        let answer = json_answer(response).await?;
        let result = &answer["transactionResponse"];
        match (answer["code"].as_str(), result["transactionId"].as_str(), result["state"].as_str()) {
            (Some("SUCCESS"), Some(id), Some(state)) if !matches!(state, "DECLINED" | "ERROR") => {
                Ok(Refunded { reference: id.to_string() })
            }
            _ => Err(GatewayError::Provider(format!("refund refused: {}", answer["error"]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_rounded_as_each_page_signs_them() {
        assert_eq!(confirmation_value(Decimal::new(15000, 2)), "150.0");
        assert_eq!(confirmation_value(Decimal::new(15026, 2)), "150.26");
        assert_eq!(confirmation_value(Decimal::new(1505, 1)), "150.5");
        assert_eq!(response_value(Decimal::new(15025, 2)), "150.2");
        assert_eq!(response_value(Decimal::new(15035, 2)), "150.4");
        assert_eq!(response_value(Decimal::new(15026, 2)), "150.3");
    }

    #[test]
    fn signatures_made_elsewhere_match() {
        // PayU's documented example: MD5("4Vj8eK4rloUd272L48hsrarnUA~508029~TestPayU~3~USD").
        assert_eq!(
            checkout_signature("4Vj8eK4rloUd272L48hsrarnUA", "508029", "TestPayU", "3", "USD"),
            "ba9ffa71559580175585e45ce70b6c37"
        );
        // Python: md5(b"4Vj8eK4rloUd272L48hsrarnUA~508029~ref-1~150.0~COP~4").hexdigest()
        assert_eq!(
            result_signature("4Vj8eK4rloUd272L48hsrarnUA", "508029", "ref-1", "150.0", "COP", "4"),
            "ddd5844a559022ff001ace5b8db143d2"
        );
    }
}
