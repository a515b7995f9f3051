//! PayFast (South Africa): a form posted to `/eng/process` signed with the
//! MD5 of its url-encoded fields plus the passphrase; the ITN (Instant
//! Transaction Notification) posted back is a form signed the same way,
//! which PayFast's docs also require to be validated by posting it back to
//! `/eng/query/validate` ("VALID"). Refunds go to PayFast's API
//! (`POST https://api.payfast.co.za/refunds/{pf_payment_id}`), signed in
//! headers. PayFast takes rands only.

use crate::payments::gateway::*;
use async_trait::async_trait;
use md5::{Digest, Md5};
use rust_decimal::Decimal;
use wayfare_storage::PaymentRecord;

pub struct PayFast;

const MERCHANT_ID: &str = "PAYFAST_MEWRCHANT_ID";
const MERCHANT_KEY: &str = "PAYFAST_MERCHANT_KEY";
const PASSPHRASE: &str = "passPhrase";
const TESTING_MODE: &str = "testingMode";

const FIELDS: &[Field] = &[
    Field::text(MERCHANT_ID),
    // Posted in the payer's form anyway: not a secret.
    Field::text(MERCHANT_KEY),
    // Needed by the API (refunds) and by every account that set one.
    Field::secret(PASSPHRASE).optional(),
    // The original product's switch for the sandbox, as text ("true").
    Field::text(TESTING_MODE).optional(),
];

/// The one currency PayFast settles in.
pub const CURRENCY: &str = "ZAR";

const LIVE: &str = "https://www.payfast.co.za";
const SANDBOX: &str = "https://sandbox.payfast.co.za";
const API: &str = "https://api.payfast.co.za";

/// Text as PHP's `urlencode` makes it (PayFast computes its signatures in
/// PHP): letters, digits and `-_.` stay, a space is `+`, the rest `%XX`.
pub fn php_urlencode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => encoded.push(char::from(byte)),
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// `key=value&…` of the pairs in their order, values trimmed and encoded.
/// A checkout leaves blank fields out; an ITN is signed with every field.
pub fn param_string<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>, skip_blank: bool) -> String {
    pairs
        .into_iter()
        .filter(|(key, value)| *key != "signature" && !(skip_blank && value.trim().is_empty()))
        .map(|(key, value)| format!("{key}={}", php_urlencode(value.trim())))
        .collect::<Vec<_>>()
        .join("&")
}

/// The MD5 signature of a parameter string, with the passphrase if one is set.
pub fn sign(params: &str, passphrase: Option<&str>) -> String {
    let mut signed = params.to_string();
    if let Some(passphrase) = passphrase.filter(|text| !text.trim().is_empty()) {
        signed.push_str(&format!("&passphrase={}", php_urlencode(passphrase.trim())));
    }
    hex::encode(Md5::digest(signed.as_bytes()))
}

/// The API's header signature: every header and body field and the
/// passphrase, sorted by name, url-encoded, MD5.
pub fn api_signature(fields: &[(&str, String)], passphrase: &str) -> String {
    let mut sorted: Vec<(&str, &str)> = fields.iter().map(|(key, value)| (*key, value.as_str())).collect();
    sorted.push(("passphrase", passphrase));
    sorted.sort_by(|left, right| left.0.cmp(right.0));
    hex::encode(Md5::digest(param_string(sorted, true).as_bytes()))
}

/// A civil UTC date and time of a Unix time: (year, month, day, hour, minute, second).
pub fn utc(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    // Howard Hinnant's days-to-civil algorithm.
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day, (of_day / 3600) as u32, (of_day % 3600 / 60) as u32, (of_day % 60) as u32)
}

fn truthy(text: Option<&str>) -> bool {
    matches!(text.map(|text| text.trim().to_ascii_lowercase()).as_deref(), Some("true" | "1" | "yes" | "on"))
}

impl PayFast {
    fn sandbox(call: &Call<'_>) -> bool {
        call.settings.testing || truthy(call.settings.value(TESTING_MODE))
    }

    /// The payment site (form and ITN validation): the configured base, else
    /// sandbox or live by `testing` or the original `testingMode`.
    fn site(call: &Call<'_>) -> String {
        match &call.settings.api_base {
            Some(_) => call.api_base.trim_end_matches('/').to_string(),
            None if PayFast::sandbox(call) => SANDBOX.to_string(),
            None => LIVE.to_string(),
        }
    }

    /// The REST API (one host; the sandbox is `?testing=true`).
    fn api(call: &Call<'_>) -> String {
        match &call.settings.api_base {
            Some(_) => call.api_base.trim_end_matches('/').to_string(),
            None => API.to_string(),
        }
    }

    /// Checks an ITN's signature and has PayFast validate it; then reads it.
    async fn verified(call: &Call<'_>, body: &[u8]) -> Result<Verdict, GatewayError> {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body).into_owned().collect();
        let field = |name: &str| pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.trim());
        let Some(signature) = field("signature") else {
            return Err(GatewayError::Signature("no signature".into()));
        };
        let params = param_string(pairs.iter().map(|(key, value)| (key.as_str(), value.as_str())), false);
        let expected = sign(&params, call.settings.value(PASSPHRASE));
        if !same_bytes(expected.as_bytes(), signature.to_ascii_lowercase().as_bytes()) {
            return Err(GatewayError::Signature("the ITN's signature does not match".into()));
        }
        if field("merchant_id").is_some_and(|merchant| merchant != call.get(MERCHANT_ID).unwrap_or_default()) {
            return Err(GatewayError::Malformed("an ITN for another merchant".into()));
        }
        let response = call
            .http
            .post(format!("{}/eng/query/validate", PayFast::site(call)))
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(params)
            .send()
            .await?;
        let answer = response.text().await?;
        if answer.trim() != "VALID" {
            return Err(GatewayError::Signature("PayFast did not validate the ITN".into()));
        }
        PayFast::read(&pairs)
    }

    /// What a verified ITN says.
    fn read(pairs: &[(String, String)]) -> Result<Verdict, GatewayError> {
        let field = |name: &str| pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.trim());
        let key = field("m_payment_id").ok_or_else(|| GatewayError::Malformed("no m_payment_id".into()))?;
        match field("payment_status") {
            Some("COMPLETE") => {
                let amount = field("amount_gross")
                    .and_then(|amount| amount.parse::<Decimal>().ok())
                    .ok_or_else(|| GatewayError::Malformed("no amount_gross".into()))?;
                let event_id =
                    field("pf_payment_id").ok_or_else(|| GatewayError::Malformed("no pf_payment_id".into()))?;
                Ok(Verdict::Paid(Received {
                    payment: PaymentKey::from_text(key),
                    reference: None,
                    event_id: event_id.to_string(),
                    amount,
                    // The ITN names no currency: PayFast settles in rands only.
                    currency: Some(CURRENCY.to_string()),
                }))
            }
            Some("CANCELLED") => Ok(Verdict::Failed(PaymentKey::from_text(key))),
            _ => Ok(Verdict::Nothing),
        }
    }
}

#[async_trait]
impl Gateway for PayFast {
    fn name(&self) -> &'static str {
        "payfast"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn api_base(&self, testing: bool) -> &'static str {
        if testing { SANDBOX } else { LIVE }
    }

    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError> {
        let payment = order.payment;
        if !payment.currency.eq_ignore_ascii_case(CURRENCY) {
            return Err(GatewayError::Provider(format!("PayFast takes {CURRENCY} only, not {}", payment.currency)));
        }
        let form = order.form;
        // PayFast signs the fields in this, its documented, order.
        let fields: Vec<(String, String)> = [
            ("merchant_id", call.get(MERCHANT_ID)?.to_string()),
            ("merchant_key", call.get(MERCHANT_KEY)?.to_string()),
            ("return_url", order.return_url.clone()),
            ("cancel_url", order.cancel_url.clone()),
            ("notify_url", order.notify_url.clone()),
            ("name_first", form.first_name.trim().to_string()),
            ("name_last", form.last_name.trim().to_string()),
            ("email_address", form.email.trim().to_string()),
            ("m_payment_id", payment.id.to_string()),
            ("amount", two_decimals(payment.amount)),
            ("item_name", order.description.chars().take(100).collect()),
        ]
        .into_iter()
        .filter(|(_, value)| !value.trim().is_empty())
        .map(|(key, value)| (key.to_string(), value.trim().to_string()))
        .collect();
        let params = param_string(fields.iter().map(|(key, value)| (key.as_str(), value.as_str())), true);
        let signature = sign(&params, call.settings.value(PASSPHRASE));
        let mut fields = fields;
        fields.push(("signature".into(), signature));
        Ok(Started {
            to: Start::PostForm { action: format!("{}/eng/process", PayFast::site(call)), fields },
            reference: None,
        })
    }

    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError> {
        PayFast::verified(call, incoming.body).await
    }

    async fn returned(
        &self,
        call: &Call<'_>,
        _payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError> {
        // PayFast sends the payer back with nothing; only ITN data (signed,
        // and validated with PayFast) can tell, wherever it arrives.
        if incoming.param("signature").is_none() || incoming.body.is_empty() {
            return Ok(Verdict::Nothing);
        }
        PayFast::verified(call, incoming.body).await
    }

    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError> {
        let passphrase = call.get(PASSPHRASE)?;
        // The ITN's pf_payment_id settled the payment.
        let pf_payment_id =
            payment.event_id.as_deref().ok_or(GatewayError::Unsupported("no PayFast payment id to refund"))?;
        let cents = minor_units(amount, CURRENCY)
            .ok_or_else(|| GatewayError::Provider("the amount has finer fractions than cents".into()))?;
        let (year, month, day, hour, minute, second) = utc(call.now_secs());
        let timestamp = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}+00:00");
        let merchant_id = call.get(MERCHANT_ID)?.to_string();
        let reason = format!("Wayfare refund {key}");
        let signature = api_signature(
            &[
                ("merchant-id", merchant_id.clone()),
                ("version", "v1".into()),
                ("timestamp", timestamp.clone()),
                ("amount", cents.to_string()),
                ("reason", reason.clone()),
                ("notify_buyer", "1".into()),
            ],
            passphrase,
        );
        let mut url = format!("{}/refunds/{pf_payment_id}", PayFast::api(call));
        if PayFast::sandbox(call) {
            url.push_str("?testing=true");
        }
        let response = call
            .http
            .post(url)
            .header("merchant-id", merchant_id)
            .header("version", "v1")
            .header("timestamp", timestamp)
            .header("signature", signature)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::json!({"amount": cents, "reason": reason, "notify_buyer": 1}).to_string())
            .send()
            .await?;
        let answer = json_answer(response).await?;
        if answer["status"] != "success" {
            return Err(GatewayError::Provider(format!("refund answered {}", answer["status"])));
        }
        // The answer may name the refund; else our key for it is the reference.
        let reference = answer["data"]["response"]["id"].as_str().map_or_else(|| key.to_string(), str::to_string);
        Ok(Refunded { reference })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_follows_php_urlencode() {
        assert_eq!(php_urlencode("a b&c=d/é~*"), "a+b%26c%3Dd%2F%C3%A9%7E%2A");
        assert_eq!(php_urlencode("Ab-9_."), "Ab-9_.");
    }

    #[test]
    fn a_checkout_signature_made_elsewhere_matches() {
        // Python: md5(b"merchant_id=10000100&merchant_key=46f0cd694581a&amount=100.00&item_name=Ride+%231&passphrase=jt7NOE43FZPn").hexdigest()
        let pairs = [
            ("merchant_id", "10000100"),
            ("merchant_key", "46f0cd694581a"),
            ("email_address", " "),
            ("amount", "100.00"),
            ("item_name", "Ride #1"),
        ];
        let params = param_string(pairs, true);
        assert_eq!(params, "merchant_id=10000100&merchant_key=46f0cd694581a&amount=100.00&item_name=Ride+%231");
        assert_eq!(sign(&params, Some("jt7NOE43FZPn")), "6c639cd10b5da67fa941671556b239f6");
        assert_eq!(sign(&params, None), hex::encode(Md5::digest(params.as_bytes())));
    }

    #[test]
    fn an_api_signature_sorts_every_field_with_the_passphrase() {
        // Python: md5(b"amount=500&merchant-id=10000100&passphrase=jt7NOE43FZPn&timestamp=2030-01-01T00%3A00%3A00%2B00%3A00&version=v1").hexdigest()
        let fields = [
            ("version", "v1".to_string()),
            ("merchant-id", "10000100".to_string()),
            ("timestamp", "2030-01-01T00:00:00+00:00".to_string()),
            ("amount", "500".to_string()),
        ];
        assert_eq!(api_signature(&fields, "jt7NOE43FZPn"), "7ded8c4ab43666ff853b42f7425cf70c");
    }

    #[test]
    fn unix_times_become_civil_utc() {
        assert_eq!(utc(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(utc(951_782_400), (2000, 2, 29, 0, 0, 0));
        assert_eq!(utc(1_893_456_000 + 3_723), (2030, 1, 1, 1, 2, 3));
    }

    #[test]
    fn only_complete_itns_are_paid() {
        let itn = |status: &str| -> Vec<(String, String)> {
            [
                ("m_payment_id", "0190a3f0-0000-7000-8000-000000000001"),
                ("pf_payment_id", "1089250"),
                ("payment_status", status),
                ("amount_gross", "25.85"),
            ]
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect()
        };
        let Ok(Verdict::Paid(paid)) = PayFast::read(&itn("COMPLETE")) else { panic!("paid") };
        assert_eq!(paid.payment, PaymentKey::Ours("0190a3f0-0000-7000-8000-000000000001".parse().unwrap()));
        assert_eq!(
            (paid.amount, paid.currency.as_deref(), paid.event_id.as_str()),
            (Decimal::new(2585, 2), Some("ZAR"), "1089250")
        );
        assert!(matches!(PayFast::read(&itn("CANCELLED")), Ok(Verdict::Failed(_))));
        assert_eq!(PayFast::read(&itn("PENDING")), Ok(Verdict::Nothing));
    }
}
