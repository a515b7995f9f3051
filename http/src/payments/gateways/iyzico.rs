//! iyzico, the Checkout Form: initialised with `POST
//! /payment/iyzipos/checkoutform/initialize/auth/ecom` (our payment id as
//! `conversationId` and `basketId`) under the `IYZWSv2` authorization
//! (hex HMAC-SHA256 of random key + URI path + body with the secret key),
//! the payer sent to its `paymentPageUrl`. The form's token is the
//! checkout's reference. Nothing iyzico posts is taken on its word: the
//! callback and notifications only name a token, and the server retrieves
//! the form's result (`POST /payment/iyzipos/checkoutform/auth/ecom/detail`)
//! for its status, paid price and currency. Refunds go to `POST
//! /payment/refund` on the payment's transaction.
//!
//! Notifications are also signed (`X-IYZ-SIGNATURE-V3`) when the merchant's
//! account has signatures switched on (iyzico does it on request): a
//! notification carrying the header must carry the right one, or it is
//! refused before anything is retrieved. One without the header still only
//! leads to the retrieve, which stays what decides.

use crate::payments::gateway::*;
use async_trait::async_trait;
use base64::Engine as _;
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct Iyzico;

const FIELDS: &[Field] = &[Field::text("apiKey"), Field::secret("secretKey")];

const INITIALIZE: &str = "/payment/iyzipos/checkoutform/initialize/auth/ecom";
const DETAIL: &str = "/payment/iyzipos/checkoutform/auth/ecom/detail";
const REFUND: &str = "/payment/refund";

/// The `Authorization` header of a request: `IYZWSv2 ` + base64 of
/// `apiKey:<key>&randomKey:<random>&signature:<hex HMAC-SHA256(secret, random + path + body)>`.
pub fn authorization(api_key: &str, secret_key: &str, random_key: &str, path: &str, body: &str) -> String {
    let signature = hmac_sha256_hex(secret_key.as_bytes(), format!("{random_key}{path}{body}").as_bytes());
    let text = format!("apiKey:{api_key}&randomKey:{random_key}&signature:{signature}");
    format!("IYZWSv2 {}", base64::engine::general_purpose::STANDARD.encode(text))
}

/// The header iyzico signs its notifications with.
pub const SIGNATURE_HEADER: &str = "x-iyz-signature-v3";

/// A field of a notification as text (iyzico sends ids as numbers).
fn field_text(body: &serde_json::Value, name: &str) -> Option<String> {
    match &body[name] {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// What `X-IYZ-SIGNATURE-V3` should be for a notification: hex HMAC-SHA256
/// keyed with the secret key, of the secret key followed by the fields of
/// its format. A checkout form's (it names a `token`): `iyziEventType`,
/// `iyziPaymentId`, `token`, `paymentConversationId`, `status`; a payment
/// made through the API: `iyziEventType`, `paymentId`,
/// `paymentConversationId`, `status`. `None` when a field is missing.
pub fn notification_signature(secret_key: &str, body: &serde_json::Value) -> Option<String> {
    let field = |name: &str| field_text(body, name);
    let parts = if body.get("token").is_some() {
        [
            field("iyziEventType")?,
            field("iyziPaymentId")?,
            field("token")?,
            field("paymentConversationId")?,
            field("status")?,
        ]
        .concat()
    } else {
        let payment = field("paymentId").or_else(|| field("iyziPaymentId"))?;
        [field("iyziEventType")?, payment, field("paymentConversationId")?, field("status")?].concat()
    };
    Some(hmac_sha256_hex(secret_key.as_bytes(), format!("{secret_key}{parts}").as_bytes()))
}

/// Checks a notification's signature when it has one (see the module's doc).
fn check_signature(call: &Call<'_>, incoming: &Incoming<'_>) -> Result<(), GatewayError> {
    let Some(signature) = incoming.header(SIGNATURE_HEADER) else { return Ok(()) };
    let body = incoming.json().map_err(|_| GatewayError::Signature("a signed notification that is not JSON".into()))?;
    let expected = notification_signature(call.get("secretKey")?, &body)
        .ok_or_else(|| GatewayError::Signature("a signed notification without the signed fields".into()))?;
    if same_bytes(expected.as_bytes(), signature.trim().to_ascii_lowercase().as_bytes()) {
        Ok(())
    } else {
        Err(GatewayError::Signature("X-IYZ-SIGNATURE-V3 does not match".into()))
    }
}

/// iyzico's price: a decimal with a point, no needless zeros ("25.85", "15.0").
fn price(amount: Decimal) -> String {
    let text = amount.round_dp(2).normalize().to_string();
    if text.contains('.') { text } else { format!("{text}.0") }
}

/// A retrieved checkout form: paid, failed, or not (yet) either.
fn verdict(form: &serde_json::Value, token: &str) -> Verdict {
    if form["status"] != "success" {
        return Verdict::Nothing;
    }
    let Some(key) = form["basketId"].as_str().or_else(|| form["conversationId"].as_str()) else {
        return Verdict::Nothing;
    };
    let key = PaymentKey::from_text(key);
    // fraudStatus: 1 passed, 0 under review (not paid yet), -1 refused.
    let fraud = form["fraudStatus"].as_i64().unwrap_or(1);
    match form["paymentStatus"].as_str() {
        Some("SUCCESS") if fraud == 1 => {
            let (Some(id), Some(amount), Some(currency)) = (
                form["paymentId"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| form["paymentId"].as_i64().map(|id| id.to_string())),
                major_from_json(&form["paidPrice"]),
                form["currency"].as_str(),
            ) else {
                return Verdict::Nothing;
            };
            Verdict::Paid(Received {
                payment: key,
                reference: Some(form["token"].as_str().unwrap_or(token).to_string()),
                event_id: id,
                amount,
                currency: Some(currency.to_ascii_uppercase()),
            })
        }
        Some("SUCCESS") if fraud < 0 => Verdict::Failed(key),
        Some("FAILURE") => Verdict::Failed(key),
        _ => Verdict::Nothing,
    }
}

impl Iyzico {
    async fn post(call: &Call<'_>, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, GatewayError> {
        use rand::Rng as _;
        let body = body.to_string();
        let random_key = format!("{}{:08}", call.now_ms, rand::rng().random_range(0..100_000_000u32));
        let response = call
            .http
            .post(call.url(path))
            .header(
                "Authorization",
                authorization(call.get("apiKey")?, call.get("secretKey")?, &random_key, path, &body),
            )
            .header("x-iyzi-rnd", &random_key)
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .await?;
        json_answer(response).await
    }

    async fn retrieve(call: &Call<'_>, token: &str) -> Result<serde_json::Value, GatewayError> {
        Iyzico::post(call, DETAIL, &serde_json::json!({"locale": "en", "token": token})).await
    }
}

#[async_trait]
impl Gateway for Iyzico {
    fn name(&self) -> &'static str {
        "iyzico"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { "https://sandbox-api.iyzipay.com" } else { "https://api.iyzipay.com" }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        minor_units(payment.amount, &payment.currency)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than the currency".into()))?;
        let id = payment.id.to_string();
        let form = order.form;
        let or = |text: &str, default: &str| {
            let text = text.trim();
            if text.is_empty() { default.to_string() } else { text.to_string() }
        };
        let (name, surname) = (or(&form.first_name, "Wayfare"), or(&form.last_name, "Rider"));
        // The checkout form does not ask where the payer lives; iyzico
        // requires the fields, so they say so.
        let unknown = "Not given";
        let body = serde_json::json!({
            "locale": "en",
            "conversationId": id,
            "price": price(payment.amount),
            "paidPrice": price(payment.amount),
            "currency": payment.currency.to_ascii_uppercase(),
            "basketId": id,
            "paymentGroup": "PRODUCT",
            "callbackUrl": order.return_url,
            "enabledInstallments": [1],
            "buyer": {
                "id": payment.customer.to_string(),
                "name": name,
                "surname": surname,
                "gsmNumber": form.mobile_no.trim(),
                "email": or(&form.email, "payer@example.com"),
                // A national id is required; the payer is not asked for one.
                "identityNumber": "11111111111",
                "registrationAddress": unknown,
                "city": unknown,
                "country": unknown,
                "ip": "127.0.0.1",
            },
            "billingAddress": {"contactName": format!("{name} {surname}"), "city": unknown, "country": unknown, "address": unknown},
            "basketItems": [{
                "id": id,
                "name": order.description,
                "category1": "Transport",
                "itemType": "VIRTUAL",
                "price": price(payment.amount),
            }],
        });
        let answer = Iyzico::post(call, INITIALIZE, &body).await?;
        if answer["status"] != "success" {
            return Err(GatewayError::Provider(format!(
                "initialize: {} {}",
                answer["errorCode"], answer["errorMessage"]
            )));
        }
        let (Some(token), Some(url)) = (answer["token"].as_str(), answer["paymentPageUrl"].as_str()) else {
            return Err(GatewayError::Provider("a checkout form without token or paymentPageUrl".into()));
        };
        Ok(Started { to: Start::Redirect(url.to_string()), reference: Some(token.to_string()) })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        check_signature(call, incoming)?;
        // A JSON notification or the form callback: only its token is read.
        let token = match incoming.json() {
            Ok(body) => body["token"].as_str().map(str::to_string),
            Err(_) => incoming.param("token"),
        };
        let Some(token) = token.filter(|token| !token.trim().is_empty()) else { return Ok(Verdict::Nothing) };
        let form = Iyzico::retrieve(call, token.trim()).await?;
        Ok(verdict(&form, token.trim()))
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        _incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // The checkout's own token, whatever the browser posts.
        let Some(token) = payment.gateway_ref.as_deref() else { return Ok(Verdict::Nothing) };
        Ok(verdict(&Iyzico::retrieve(call, token).await?, token))
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let token = payment.gateway_ref.as_deref().ok_or(GatewayError::Unsupported("no iyzico checkout form"))?;
        let form = Iyzico::retrieve(call, token).await?;
        let transaction = form["itemTransactions"][0]["paymentTransactionId"]
            .as_str()
            .map(str::to_string)
            .or_else(|| form["itemTransactions"][0]["paymentTransactionId"].as_i64().map(|id| id.to_string()))
            .ok_or_else(|| GatewayError::Provider("the checkout form has no payment transaction".into()))?;
        let body = serde_json::json!({
            "locale": "en",
            "conversationId": key,
            "paymentTransactionId": transaction,
            "price": price(amount),
            "currency": payment.currency.to_ascii_uppercase(),
            "ip": "127.0.0.1",
        });
        let answer = Iyzico::post(call, REFUND, &body).await?;
        if answer["status"] != "success" {
            return Err(GatewayError::Provider(format!("refund: {} {}", answer["errorCode"], answer["errorMessage"])));
        }
        // A refund has no id of its own: the bank's reference, else our key it echoes.
        let reference = answer["hostReference"]
            .as_str()
            .filter(|text| !text.is_empty())
            .or_else(|| answer["conversationId"].as_str())
            .unwrap_or(key);
        Ok(Refunded { reference: reference.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorization_matches_one_made_elsewhere() {
        // Python: hmac.new(secret, random + path + body, sha256).hexdigest(), then base64 of the pairs.
        let header = authorization(
            "sandbox-api-key",
            "sandbox-secret-key",
            "123456789",
            "/payment/iyzipos/checkoutform/auth/ecom/detail",
            r#"{"locale":"en","token":"abc"}"#,
        );
        assert_eq!(
            header,
            "IYZWSv2 YXBpS2V5OnNhbmRib3gtYXBpLWtleSZyYW5kb21LZXk6MTIzNDU2Nzg5JnNpZ25hdHVyZTo0MTIzOWJmMTVjN2NjNTdhYWZmZTJiMGMxODkxNTVkYWNhNDNlMTM1Mzk2N2ZkMjNiNDk5YmE4NWZhMTQzN2M0"
        );
    }

    #[test]
    fn notification_signatures_match_iyzicos_examples() {
        // iyzico's published examples (iyzipay-php, samples/webhook_Signature_Validation.php).
        let secret = "sandbox-UuLnD7wZa0a3DmytfIrwHQqAMfqCNJrs";
        let checkout_form = serde_json::json!({"paymentConversationId": "conversationId", "merchantId": 3382172,
            "token": "e828c62d-fd12-4b1a-ad5a-380f15fe6596", "status": "SUCCESS",
            "iyziReferenceCode": "77e1635c-6b39-475a-8b7b-ca15ad0cd4ac", "iyziEventType": "CHECKOUT_FORM_AUTH",
            "iyziEventTime": 1721825036103u64, "iyziPaymentId": 22483975});
        assert_eq!(
            notification_signature(secret, &checkout_form).as_deref(),
            Some("4031c575763486a2d2bf3f7ace0baebfcd6bed65393ab4df3fe80c00d5fd6878")
        );
        let api = serde_json::json!({"paymentConversationId": "conversationId", "merchantId": 3382172,
            "paymentId": 22484059, "status": "SUCCESS", "iyziReferenceCode": "a9af8e6b-4401-4928-b6b8-40419aaa3d0f",
            "iyziEventType": "API_AUTH", "iyziEventTime": 1721825828467u64, "iyziPaymentId": 22484059});
        assert_eq!(
            notification_signature(secret, &api).as_deref(),
            Some("92c7a72b7741bc83eb696066605c894778c87297b2c88d6037670666230e18ae")
        );
        // Another status is another signature; a missing field, none.
        let mut failed = checkout_form.clone();
        failed["status"] = serde_json::json!("FAILURE");
        assert_ne!(notification_signature(secret, &failed), notification_signature(secret, &checkout_form));
        let mut unnamed = checkout_form.clone();
        unnamed.as_object_mut().unwrap().remove("iyziPaymentId");
        assert_eq!(notification_signature(secret, &unnamed), None);
    }

    #[test]
    fn prices_are_written_as_iyzico_writes_them() {
        assert_eq!(price(Decimal::new(2585, 2)), "25.85");
        assert_eq!(price(Decimal::new(15, 0)), "15.0");
        assert_eq!(price(Decimal::new(250, 2)), "2.5");
    }

    #[test]
    fn only_a_successful_form_is_money_received() {
        let form = |payment_status: &str, fraud: i64| {
            serde_json::json!({"status": "success", "paymentStatus": payment_status, "fraudStatus": fraud,
                "paymentId": "11835187", "paidPrice": 25.85, "currency": "TRY", "token": "tok-1",
                "basketId": "0190a3f0-0000-7000-8000-000000000001", "conversationId": "0190a3f0-0000-7000-8000-000000000001"})
        };
        let Verdict::Paid(paid) = verdict(&form("SUCCESS", 1), "tok-1") else { panic!("paid") };
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!((paid.event_id.as_str(), paid.amount), ("11835187", Decimal::new(2585, 2)));
        assert_eq!((paid.reference.as_deref(), paid.currency.as_deref()), (Some("tok-1"), Some("TRY")));
        assert_eq!(verdict(&form("SUCCESS", 0), "tok-1"), Verdict::Nothing);
        assert!(matches!(verdict(&form("SUCCESS", -1), "tok-1"), Verdict::Failed(_)));
        assert!(matches!(verdict(&form("FAILURE", 1), "tok-1"), Verdict::Failed(_)));
        assert_eq!(verdict(&serde_json::json!({"status": "failure", "errorCode": "5101"}), "tok-1"), Verdict::Nothing);
    }
}
