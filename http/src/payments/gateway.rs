//! The one interface every payment gateway implements (spec §3 payment
//! settings): start a checkout for a payment, tell what a notification or
//! the payer's return says about it, refund it where the provider allows.
//!
//! A gateway only speaks its provider's API; it never touches storage or a
//! booking. The routes (`crate::routes::payments`) look the payment up, check
//! the amount and currency the provider reports against the checkout's, and
//! confirm it through `crate::payments::confirm`, once. Nothing is paid on a
//! browser redirect alone: a return is either signed by the provider or
//! checked with a server-side call to it.

use async_trait::async_trait;
use axum::http::HeaderMap;
use rust_decimal::Decimal;
use serde::Deserialize;
use std::collections::BTreeMap;
use wayfare_storage::PaymentRecord;

/// The checkout form of spec §7, as the web app posts it. Every field is
/// read as text so a missing or malformed one is refused by name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[derive(utoipa::ToSchema)]
pub struct CheckoutForm {
    /// A booking id, or `wallet-…` for a wallet top-up.
    pub order_id: String,
    pub amount: String,
    pub currency: String,
    pub product_name: String,
    pub first_name: String,
    pub last_name: String,
    pub quantity: String,
    /// The payer's user id.
    pub cust_id: String,
    pub mobile_no: String,
    pub email: String,
    /// Where to go after paying; only its path and query are kept (our site).
    pub success_url: Option<String>,
    /// Where to go after giving up; only its path and query are kept.
    pub cancel_url: Option<String>,
}

/// One gateway's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatewaySettings {
    pub active: bool,
    /// The provider's sandbox instead of live.
    pub testing: bool,
    pub api_base: Option<String>,
    /// Read from `wayfare.toml`: the file decides `active` (it says so, or
    /// it sets a field) and `testing` (it says so); the panel may not.
    pub fixed_active: bool,
    pub fixed_testing: bool,
    values: BTreeMap<String, String>,
}

impl GatewaySettings {
    pub fn new(active: bool, testing: bool, values: impl IntoIterator<Item = (String, String)>) -> Self {
        GatewaySettings {
            active,
            testing,
            api_base: None,
            fixed_active: false,
            fixed_testing: false,
            values: values.into_iter().collect(),
        }
    }

    /// A field's value; empty counts as not set.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(|value| value.trim()).filter(|value| !value.is_empty())
    }

    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.values.insert(name.to_string(), value.into());
    }

    pub fn fields(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// The required fields of `gateway` that are not set.
    pub fn missing(&self, gateway: &dyn Gateway) -> Vec<&'static str> {
        gateway
            .fields()
            .iter()
            .filter(|field| field.required && self.value(field.name).is_none())
            .map(|field| field.name)
            .collect()
    }

    /// On: switched on with every required field set.
    pub fn usable(&self, gateway: &dyn Gateway) -> bool {
        self.active && self.missing(gateway).is_empty()
    }
}

/// A settings field of a gateway, named as the original product's
/// `payment_settings` named it (e.g. razorpay `KEY_ID`, `KEY_SECRET`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub kind: FieldKind,
    /// Needed before the gateway can be active.
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldKind {
    /// Shown and edited as text.
    Text,
    /// Write-only: stored encrypted, never sent back to a browser.
    Secret,
}

impl Field {
    pub const fn text(name: &'static str) -> Field {
        Field { name, kind: FieldKind::Text, required: true }
    }
    pub const fn secret(name: &'static str) -> Field {
        Field { name, kind: FieldKind::Secret, required: true }
    }
    pub const fn optional(self) -> Field {
        Field { required: false, ..self }
    }
}

/// The signing secret of a provider's webhooks, where the provider signs.
pub const WEBHOOK_SECRET: Field = Field::secret("webhook_secret");

/// What a gateway is given to start a checkout. The links are absolute.
#[derive(Debug, Clone)]
pub struct Order<'a> {
    pub payment: &'a PaymentRecord,
    pub form: &'a CheckoutForm,
    /// What is paid for, for the provider's page ("Wayfare ABCDEF").
    pub description: String,
    /// Where the provider sends the payer back (our return route, which
    /// checks with the provider before going on to the app).
    pub return_url: String,
    /// Where the payer goes on giving up.
    pub cancel_url: String,
    /// Where the provider posts its notifications.
    pub notify_url: String,
}

/// Where a checkout sends the payer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// To the provider's page (303).
    Redirect(String),
    /// A form posted to the provider (a page of ours that submits itself).
    PostForm { action: String, fields: Vec<(String, String)> },
    /// A page of ours, written by the gateway, for providers whose checkout
    /// runs in the payer's browser with the provider's script (it then posts
    /// back to the return link, where the server checks with the provider).
    Page(String),
}

/// A started checkout: where to go, and the provider's id for it, if it gave one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub to: Start,
    pub reference: Option<String>,
}

/// A request from the provider or the returning payer, as it arrived: the
/// raw bytes are what signatures are computed over.
#[derive(Debug, Clone, Copy)]
pub struct Incoming<'a> {
    pub headers: &'a HeaderMap,
    pub query: &'a str,
    pub body: &'a [u8],
}

impl Incoming<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// A field of the query or of a form-encoded body (the query wins).
    pub fn param(&self, name: &str) -> Option<String> {
        let from = |text: &[u8]| {
            url::form_urlencoded::parse(text).find(|(key, _)| key == name).map(|(_, value)| value.into_owned())
        };
        from(self.query.as_bytes()).or_else(|| from(self.body))
    }

    pub fn json(&self) -> Result<serde_json::Value, GatewayError> {
        serde_json::from_slice(self.body).map_err(|_| GatewayError::Malformed("the body is not JSON".into()))
    }
}

/// How a provider names a payment in what it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentKey {
    /// Our payment id (sent to the provider as its order or reference).
    Ours(uuid::Uuid),
    /// The provider's id for the checkout (`Started::reference`).
    Reference(String),
}

impl PaymentKey {
    /// Our id when the text is one, else the provider's reference.
    pub fn from_text(text: &str) -> PaymentKey {
        match text.trim().parse() {
            Ok(id) => PaymentKey::Ours(id),
            Err(_) => PaymentKey::Reference(text.trim().to_string()),
        }
    }
}

/// Money the provider says it received.
#[derive(Debug, Clone, PartialEq)]
pub struct Received {
    pub payment: PaymentKey,
    /// The provider's id for the checkout, when it says: it must be the one
    /// the checkout got (`Started::reference`).
    pub reference: Option<String>,
    /// The provider's event or transaction id: the same one twice is a replay.
    pub event_id: String,
    /// In the currency's major unit.
    pub amount: Decimal,
    /// `None` only for providers whose confirmation does not carry it.
    pub currency: Option<String>,
}

/// What a notification or a check with the provider says.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Paid(Received),
    /// Declined, cancelled or expired at the provider.
    Failed(PaymentKey),
    /// Not paid yet (or an event about something else): nothing to do.
    Nothing,
}

/// A refund the provider accepted: its id for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refunded {
    pub reference: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GatewayError {
    /// A required setting is missing.
    #[error("the setting {0} is not set")]
    NotConfigured(&'static str),
    /// A notification whose signature is missing, malformed or wrong.
    #[error("signature refused: {0}")]
    Signature(String),
    /// A notification we cannot read.
    #[error("malformed notification: {0}")]
    Malformed(String),
    /// The provider refused or could not be reached.
    #[error("provider: {0}")]
    Provider(String),
    /// The provider (or this integration) has no such operation.
    #[error("{0}")]
    Unsupported(&'static str),
}

impl From<reqwest::Error> for GatewayError {
    fn from(error: reqwest::Error) -> Self {
        GatewayError::Provider(error.to_string())
    }
}

/// What a gateway is called with: the HTTP client, its settings and the clock.
pub struct Call<'a> {
    pub http: &'a reqwest::Client,
    pub settings: &'a GatewaySettings,
    /// The provider's API, sandbox or live by `testing`, or the configured
    /// `api_base` (a fake in tests).
    pub api_base: String,
    pub now_ms: i64,
    /// This server's public URL when configured (`payments.public_url`):
    /// what a provider that signs the URL it called (Square) signed.
    pub public_url: Option<String>,
}

impl Call<'_> {
    pub fn get(&self, name: &'static str) -> Result<&str, GatewayError> {
        self.settings.value(name).ok_or(GatewayError::NotConfigured(name))
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.api_base.trim_end_matches('/'))
    }

    pub fn now_secs(&self) -> i64 {
        self.now_ms.div_euclid(1000)
    }
}

/// A provider's answer as JSON, or why not.
pub async fn json_answer(response: reqwest::Response) -> Result<serde_json::Value, GatewayError> {
    let status = response.status();
    let body = response.text().await?;
    if !status.is_success() {
        return Err(GatewayError::Provider(format!(
            "answered {status}: {}",
            body.chars().take(300).collect::<String>()
        )));
    }
    serde_json::from_str(&body).map_err(|_| GatewayError::Provider(format!("answered {status} with no JSON")))
}

#[async_trait]
pub trait Gateway: Send + Sync + 'static {
    /// Its provider name (spec §3), the `{provider}` of its routes.
    fn name(&self) -> &'static str;
    /// Its settings besides `active` and `testing`.
    fn fields(&self) -> &'static [Field];
    /// The provider's API base, sandbox or live.
    fn api_base(&self, testing: bool) -> &'static str;
    /// Starts a checkout at the provider.
    async fn checkout(&self, call: &Call<'_>, order: &Order<'_>) -> Result<Started, GatewayError>;
    /// A notification the provider posted to the webhook: checked by its
    /// signature, or by asking the provider about what it names.
    async fn notification(&self, call: &Call<'_>, incoming: &Incoming<'_>) -> Result<Verdict, GatewayError>;
    /// The payer is back from the provider: asks the provider (or checks
    /// the provider's signature on what the payer brings back).
    async fn returned(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        incoming: &Incoming<'_>,
    ) -> Result<Verdict, GatewayError>;
    /// Refunds `amount` (whole or part) of a paid payment; `key` is unique
    /// per refund, for providers that take an idempotency key.
    async fn refund(
        &self,
        call: &Call<'_>,
        payment: &PaymentRecord,
        amount: Decimal,
        key: &str,
    ) -> Result<Refunded, GatewayError>;
}

/// Currencies counted in whole units (no cents), by ISO 4217.
const ZERO_DECIMAL: [&str; 17] = [
    "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF",
    "XPF",
];

fn minor_factor(currency: &str) -> Decimal {
    if ZERO_DECIMAL.iter().any(|code| code.eq_ignore_ascii_case(currency.trim())) {
        Decimal::ONE
    } else {
        Decimal::ONE_HUNDRED
    }
}

/// An amount in the currency's smallest unit (cents, paise, kobo); `None`
/// when it has finer fractions than the currency has, or is not positive.
pub fn minor_units(amount: Decimal, currency: &str) -> Option<i64> {
    let minor = amount * minor_factor(currency);
    if minor.fract() != Decimal::ZERO || minor <= Decimal::ZERO {
        return None;
    }
    i64::try_from(minor.trunc()).ok()
}

/// An amount given in the currency's smallest unit, in major units.
pub fn from_minor(minor: i64, currency: &str) -> Decimal {
    Decimal::from(minor) / minor_factor(currency)
}

/// An amount given as text or a number in major units ("25.85", 25.85).
pub fn major_from_json(value: &serde_json::Value) -> Option<Decimal> {
    match value {
        serde_json::Value::String(text) => text.trim().parse().ok(),
        serde_json::Value::Number(number) => number.to_string().parse().ok(),
        _ => None,
    }
}

/// An amount with two decimals, as most providers want it in major units.
pub fn two_decimals(amount: Decimal) -> String {
    format!("{:.2}", amount.round_dp(2))
}

/// Compares two byte strings in constant time (signatures).
pub fn same_bytes(left: &[u8], right: &[u8]) -> bool {
    // Every byte is looked at whatever differs first; only the length may tell.
    left.len() == right.len() && left.iter().zip(right).fold(0u8, |seen, (a, b)| seen | (a ^ b)) == 0
}

/// HMAC-SHA256 of `message` with `key`, as lowercase hex.
pub fn hmac_sha256_hex(key: &[u8], message: &[u8]) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key);
    hex::encode(ring::hmac::sign(&key, message).as_ref())
}

/// HMAC-SHA256 of `message` with `key`, as standard base64.
pub fn hmac_sha256_base64(key: &[u8], message: &[u8]) -> String {
    use base64::Engine as _;
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key);
    base64::engine::general_purpose::STANDARD.encode(ring::hmac::sign(&key, message).as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn amounts_go_to_the_smallest_currency_unit_and_back() {
        assert_eq!(minor_units(dec!(25.85), "USD"), Some(2585));
        assert_eq!(minor_units(dec!(25.8), "inr"), Some(2580));
        assert_eq!(minor_units(dec!(1200), "JPY"), Some(1200));
        assert_eq!(minor_units(dec!(12.5), "jpy"), None);
        assert_eq!(minor_units(dec!(0.001), "usd"), None);
        assert_eq!(minor_units(dec!(0), "usd"), None);
        assert_eq!(from_minor(2585, "USD"), dec!(25.85));
        assert_eq!(from_minor(1200, "JPY"), dec!(1200));
    }

    #[test]
    fn amounts_read_from_text_or_numbers() {
        assert_eq!(major_from_json(&serde_json::json!("25.85")), Some(dec!(25.85)));
        assert_eq!(major_from_json(&serde_json::json!(25.85)), Some(dec!(25.85)));
        assert_eq!(major_from_json(&serde_json::json!(null)), None);
        assert_eq!(two_decimals(dec!(7)), "7.00");
        assert_eq!(two_decimals(dec!(25.855)), "25.86");
    }

    #[test]
    fn a_key_is_ours_when_it_is_a_uuid() {
        let id = uuid::Uuid::from_u128(7);
        assert_eq!(PaymentKey::from_text(&id.to_string()), PaymentKey::Ours(id));
        assert_eq!(PaymentKey::from_text(" order_Ab12 "), PaymentKey::Reference("order_Ab12".into()));
    }

    #[test]
    fn hmacs_match_known_values() {
        // RFC 4231 test case 2.
        assert_eq!(
            hmac_sha256_hex(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(same_bytes(b"abc", b"abc"));
        assert!(!same_bytes(b"abc", b"abd"));
        assert!(!same_bytes(b"abc", b"abcd"));
    }
}
