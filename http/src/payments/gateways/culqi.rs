//! Culqi (Peru). Culqi has no hosted page to send the payer to: its checkout
//! (Culqi Checkout v4, `https://checkout.culqi.com/js/v4`) runs on a page of
//! ours with the `PUBLIC_KEY` and turns the payer's card (or Yape) into a
//! token. The page posts that token to our return link, where the server
//! charges it itself (`POST /v2/charges`, `Authorization: Bearer
//! <SECURE_KEY>`, amount in céntimos, `metadata.payment_id` = our payment):
//! Culqi's answer to that call is the confirmation. Culqi's webhooks are not
//! signed, so a notification only names a charge, which is then fetched
//! (`GET /v2/charges/{id}`). Refunds: `POST /v2/refunds` on the charge.
//!
//! Culqi also has orders (`POST /v2/orders`) for PagoEfectivo, wallets and
//! Cuotéalo, but a card paid in the checkout still gives a token to charge;
//! the token flow is the one the original product used and covers cards.

use crate::payments::gateway::*;
use async_trait::async_trait;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Culqi;

const PUBLIC_KEY: &str = "PUBLIC_KEY";
const SECURE_KEY: &str = "SECURE_KEY";

const FIELDS: &[Field] = &[Field::text(PUBLIC_KEY), Field::secret(SECURE_KEY)];

/// Culqi's checkout script, loaded by the payer's browser (never by us).
pub const CHECKOUT_SCRIPT: &str = "https://checkout.culqi.com/js/v4";

/// The currencies Culqi charges in.
const CURRENCIES: [&str; 2] = ["PEN", "USD"];

/// Culqi's outcome of an authorised, captured sale.
const SALE_OK: &str = "venta_exitosa";

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// What the checkout page shows and configures Culqi's script with.
#[derive(Debug, Clone)]
pub struct PageData<'a> {
    pub public_key: &'a str,
    pub title: &'a str,
    /// In céntimos (Culqi's `amount`).
    pub minor: i64,
    pub amount: Decimal,
    pub currency: &'a str,
    pub email: &'a str,
    pub return_url: &'a str,
    pub cancel_url: &'a str,
}

/// The checkout page: Culqi's script with the public key and amount; the
/// token it reports is posted (with the payer's email) to the return link.
/// Every value sits in an escaped attribute the script reads, never in code.
pub fn page(data: &PageData<'_>) -> String {
    let shown = format!("{} {}", escape(data.currency), two_decimals(data.amount));
    format!(
        r#"<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Payment</title></head>
<body style="font-family: sans-serif; max-width: 28rem; margin: 3rem auto">
<h1>{title}</h1>
<p id="amount">{shown}</p>
<form id="culqi" method="post" action="{return_url}" data-key="{key}" data-amount="{minor}" data-currency="{currency}" data-title="{title}" data-email="{email}">
<input type="hidden" name="token" value="">
<input type="hidden" name="email" value="">
<button type="button" id="pay">Pay {shown}</button>
</form>
<p id="error" role="alert"></p>
<p><a href="{cancel_url}">Cancel</a></p>
<script src="{script}"></script>
<script>
(function () {{
  var form = document.getElementById('culqi');
  var data = form.dataset;
  Culqi.publicKey = data.key;
  Culqi.settings({{ title: data.title, currency: data.currency, amount: Number(data.amount) }});
  Culqi.options({{ lang: 'auto', paymentMethods: {{ tarjeta: true, yape: true, bancaMovil: false, agente: false, billetera: false, cuotealo: false }} }});
  window.culqi = function () {{
    if (Culqi.token) {{
      form.elements.token.value = Culqi.token.id;
      form.elements.email.value = Culqi.token.email || data.email;
      Culqi.close();
      form.submit();
    }} else if (Culqi.error) {{
      document.getElementById('error').textContent = Culqi.error.user_message || Culqi.error.merchant_message || '';
    }}
  }};
  document.getElementById('pay').addEventListener('click', function () {{ Culqi.open(); }});
}})();
</script>
</body></html>
"#,
        title = escape(data.title),
        return_url = escape(data.return_url),
        key = escape(data.public_key),
        minor = data.minor,
        currency = escape(data.currency),
        email = escape(data.email),
        cancel_url = escape(data.cancel_url),
        script = CHECKOUT_SCRIPT,
    )
}

/// A charge Culqi made and captured: what it says was received.
pub fn paid(charge: &serde_json::Value) -> Option<Received> {
    if charge["object"] != "charge" || charge["outcome"]["type"] != SALE_OK || charge["capture"] == false {
        return None;
    }
    let id = charge["id"].as_str()?;
    // Culqi's examples name it `currency_code`, some `currency`.
    let currency = charge["currency_code"].as_str().or_else(|| charge["currency"].as_str())?;
    let key = charge["metadata"]["payment_id"].as_str()?;
    Some(Received {
        payment: PaymentKey::from_text(key),
        // The charge is not the checkout's reference (there is none).
        reference: None,
        // The charge id: what a refund later names.
        event_id: id.to_string(),
        amount: from_minor(charge["amount"].as_i64()?, currency),
        currency: Some(currency.to_ascii_uppercase()),
    })
}

/// The charge a webhook event names, if it names one. Culqi sends the
/// object as a JSON string in `data` (an object is read too).
pub fn charge_named(event: &serde_json::Value) -> Option<String> {
    let data = match &event["data"] {
        serde_json::Value::String(text) => serde_json::from_str(text).ok()?,
        other => other.clone(),
    };
    if data["object"] != "charge" {
        return None;
    }
    let id = data["id"].as_str()?;
    // Only a charge id goes into the URL we ask.
    let well_formed = id.starts_with("chr_") && id.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
    well_formed.then(|| id.to_string())
}

fn valid_token(token: &str) -> bool {
    !token.is_empty() && token.len() <= 100 && token.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

impl Culqi {
    async fn charge(call: &Call<'_>, id: &str) -> Result<Option<serde_json::Value>, GatewayError> {
        let response =
            call.http.get(call.url(&format!("/v2/charges/{id}"))).bearer_auth(call.get(SECURE_KEY)?).send().await?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        json_answer(response).await.map(Some)
    }

    /// A JSON `POST` to Culqi's API with the secure key.
    async fn post(call: &Call<'_>, path: &str, body: &serde_json::Value) -> Result<reqwest::Response, GatewayError> {
        let request = call.http.post(call.url(path)).bearer_auth(call.get(SECURE_KEY)?).json(&body);
        Ok(request.send().await?)
    }

    fn minor(amount: Decimal, currency: &str) -> Result<i64, GatewayError> {
        if !CURRENCIES.iter().any(|known| known.eq_ignore_ascii_case(currency)) {
            return Err(GatewayError::Provider(format!("Culqi charges in PEN or USD, not {currency}")));
        }
        minor_units(amount, currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))
    }
}

#[async_trait]
impl Gateway for Culqi {
    fn name(&self) -> &'static str {
        "culqi"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, _testing: bool) -> &'static str {
        // Test and live differ by key (`pk_test_…`, `sk_test_…`), not by host.
        "https://api.culqi.com"
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        let minor = Culqi::minor(payment.amount, &payment.currency)?;
        let html = page(&PageData {
            public_key: call.get(PUBLIC_KEY)?,
            title: &order.description,
            minor,
            amount: payment.amount,
            currency: &payment.currency.to_ascii_uppercase(),
            email: order.form.email.trim(),
            return_url: &order.return_url,
            cancel_url: &order.cancel_url,
        });
        Ok(Started { to: Start::Page(html), reference: None })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        let event = incoming.json()?;
        if event["object"] != "event" {
            return Err(GatewayError::Malformed("not a Culqi event".into()));
        }
        // Unsigned: the event is only a reason to ask Culqi about the charge.
        let Some(id) = charge_named(&event) else { return Ok(Verdict::Nothing) };
        let Some(charge) = Culqi::charge(call, &id).await? else { return Ok(Verdict::Nothing) };
        Ok(paid(&charge).map_or(Verdict::Nothing, Verdict::Paid))
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // Back without a token (given up, or the page reloaded): nothing to charge.
        let Some(token) = incoming.param("token").filter(|token| !token.trim().is_empty()) else {
            return Ok(Verdict::Nothing);
        };
        let token = token.trim();
        if !valid_token(token) {
            return Err(GatewayError::Malformed("not a Culqi token".into()));
        }
        let email = incoming.param("email").map(|email| email.trim().to_string()).unwrap_or_default();
        if !email.contains('@') {
            return Err(GatewayError::Malformed("no email for the charge".into()));
        }
        let id = payment.id.to_string();
        let body = serde_json::json!({
            "amount": Culqi::minor(payment.amount, &payment.currency)?,
            "currency_code": payment.currency.to_ascii_uppercase(),
            "email": email,
            "source_id": token,
            "description": format!("Wayfare {}", &id[..8]),
            "metadata": { "payment_id": id },
        });
        // Culqi documents no idempotency key; a token charges once only.
        let response = Culqi::post(call, "/v2/charges", &body).await?;
        let status = response.status();
        let text = response.text().await?;
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        match status.as_u16() {
            201 => paid(&answer)
                .map(Verdict::Paid)
                .ok_or_else(|| GatewayError::Provider("a created charge that is not a sale".into())),
            // 200: the issuer asks for 3-D Secure (`action_code` REVIEW); not charged.
            200 => {
                tracing::warn!(payment = %payment.id, action = %answer["action_code"], "Culqi asks for 3-D Secure; not charged");
                Ok(Verdict::Nothing)
            }
            // Declined: the payer checks out again.
            402 => Ok(Verdict::Failed(PaymentKey::Ours(payment.id))),
            _ => Err(GatewayError::Provider(format!(
                "answered {status}: {}",
                answer["merchant_message"].as_str().unwrap_or_else(|| text.get(..300).unwrap_or(&text))
            ))),
        }
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        _key: &str,
    ) -> Result<Refunded, GatewayError> {
        // The confirmation kept the charge's id.
        let charge = payment
            .event_id
            .as_deref()
            .filter(|id| id.starts_with("chr_"))
            .ok_or_else(|| GatewayError::Provider("the payment has no Culqi charge".into()))?;
        let body = serde_json::json!({
            "amount": Culqi::minor(amount, &payment.currency)?,
            "charge_id": charge,
            "reason": "solicitud_comprador",
        });
        let response = Culqi::post(call, "/v2/refunds", &body).await?;
        let refund = json_answer(response).await?;
        match refund["id"].as_str() {
            Some(id) => Ok(Refunded { reference: id.to_string() }),
            None => Err(GatewayError::Provider("a refund without id".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYMENT: &str = "0190a3f0-0000-7000-8000-000000000001";

    fn charge(outcome: &str) -> serde_json::Value {
        serde_json::json!({
            "object": "charge", "id": "chr_test_Abc123", "amount": 2585, "currency_code": "PEN", "capture": true,
            "outcome": {"type": outcome, "code": "AUT0000"}, "metadata": {"payment_id": PAYMENT}
        })
    }

    #[test]
    fn the_page_carries_the_public_key_amount_and_return_escaped_and_no_secret() {
        let html = page(&PageData {
            public_key: "pk_test_<b>\"x\"",
            title: "Trip <ABC> & co",
            minor: 2585,
            amount: Decimal::new(2585, 2),
            currency: "PEN",
            email: "rider@example.com",
            return_url: "https://ride.example.com/api/v1/payments/culqi/return/1?a=1&b=\"2\"",
            cancel_url: "https://ride.example.com/",
        });
        assert!(html.contains(r#"data-key="pk_test_&lt;b&gt;&quot;x&quot;""#), "{html}");
        assert!(html.contains(r#"data-amount="2585""#));
        assert!(html.contains("PEN 25.85"));
        assert!(
            html.contains(
                r#"action="https://ride.example.com/api/v1/payments/culqi/return/1?a=1&amp;b=&quot;2&quot;""#
            )
        );
        assert!(html.contains("Trip &lt;ABC&gt; &amp; co"));
        assert!(!html.contains("<b>") && !html.contains("<ABC>"));
        assert!(html.contains(r#"<script src="https://checkout.culqi.com/js/v4">"#));
        assert!(!html.contains("sk_test"), "the secure key never reaches a browser");
    }

    #[test]
    fn only_successful_sales_count() {
        let received = paid(&charge(SALE_OK)).unwrap();
        assert_eq!(received.payment, PaymentKey::Ours(PAYMENT.parse().unwrap()));
        assert_eq!(received.amount, Decimal::new(2585, 2));
        assert_eq!(received.currency.as_deref(), Some("PEN"));
        assert_eq!(received.event_id, "chr_test_Abc123");
        assert!(paid(&charge("venta_rechazada")).is_none());
        let mut authorised = charge(SALE_OK);
        authorised["capture"] = false.into();
        assert!(paid(&authorised).is_none());
        let mut foreign = charge(SALE_OK);
        foreign["metadata"] = serde_json::json!({});
        assert!(paid(&foreign).is_none(), "a charge we did not make names no payment");
    }

    #[test]
    fn events_name_their_charge_whether_data_is_text_or_an_object() {
        let as_text = serde_json::json!({
            "object": "event", "id": "evt_test_1", "type": "charge.creation.succeeded",
            "data": "{\"object\":\"charge\",\"id\":\"chr_test_Abc123\",\"amount\":2585}"
        });
        assert_eq!(charge_named(&as_text).as_deref(), Some("chr_test_Abc123"));
        let as_object = serde_json::json!({"object": "event", "data": {"object": "charge", "id": "chr_live_X9"}});
        assert_eq!(charge_named(&as_object).as_deref(), Some("chr_live_X9"));
        let order = serde_json::json!({"object": "event", "type": "order.status.changed",
            "data": "{\"object\":\"order\",\"id\":\"ord_live_1\",\"state\":\"paid\"}"});
        assert_eq!(charge_named(&order), None);
        let sneaky = serde_json::json!({"object": "event", "data": {"object": "charge", "id": "chr_1/../refunds"}});
        assert_eq!(charge_named(&sneaky), None, "only a charge id goes into the URL");
    }

    #[test]
    fn tokens_are_checked_before_use() {
        assert!(valid_token("tkn_test_0CjjdWhFpEAZlxlz"));
        assert!(valid_token("ype_test_1"));
        assert!(!valid_token(""));
        assert!(!valid_token("tkn&amount=1"));
    }
}
