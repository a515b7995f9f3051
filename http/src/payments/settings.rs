//! A gateway's settings as the server uses them: `active`, `testing` and
//! the provider's fields (the original product's `payment_settings` names),
//! from `[payments.<name>]` in `wayfare.toml`.

pub use super::gateway::GatewaySettings;
use super::gateway::{Gateway, WEBHOOK_SECRET};
use std::collections::BTreeMap;

/// Settings every gateway has besides its own fields.
pub const ACTIVE: &str = "active";
pub const TESTING: &str = "testing";
/// Where the provider's API is, instead of its live or sandbox URL (a local
/// fake in tests, a proxy in production). Only from `wayfare.toml`.
pub const API_BASE: &str = "api_base";

/// Why a `[payments.<name>]` table was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("`payments.{gateway}`: no such setting or payment gateway{hint} (gateways: {known})")]
    UnknownGateway { gateway: String, hint: String, known: String },
    #[error("[payments.{gateway}]: unknown setting `{key}`{hint}")]
    UnknownKey { gateway: String, key: String, hint: String },
    #[error("[payments.{gateway}]: `{key}` must be text, a number or true/false")]
    BadValue { gateway: String, key: String },
}

/// The setting names a gateway takes: its fields and the common ones.
fn known_keys(gateway: &dyn Gateway) -> Vec<&'static str> {
    let mut keys = vec![ACTIVE, TESTING, API_BASE];
    keys.extend(gateway.fields().iter().map(|field| field.name));
    keys
}

/// The known key a mistyped one was most likely meant to be.
fn nearest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let plain = |text: &str| text.to_ascii_lowercase().replace(['_', '-'], "");
    known
        .iter()
        .map(|candidate| (strsim::levenshtein(&plain(key), &plain(candidate)), *candidate))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Reads one `[payments.<name>]` table. Keys match the field names exactly,
/// or ignoring case (environment variables arrive in lower case). A table
/// that sets a field is active unless it says `active = false`; one that
/// only points `api_base` elsewhere leaves the switches to the panel.
pub fn from_table(
    gateway: &dyn Gateway,
    table: &BTreeMap<String, figment::value::Value>,
) -> Result<GatewaySettings, SettingsError> {
    use figment::value::Value;
    let known = known_keys(gateway);
    let mut settings = GatewaySettings::default();
    let (mut active, mut testing) = (None, None);
    for (key, value) in table {
        let Some(name) = known.iter().find(|name| name.eq_ignore_ascii_case(key)) else {
            let hint = nearest(key, &known).map(|name| format!(" (did you mean `{name}`?)")).unwrap_or_default();
            return Err(SettingsError::UnknownKey { gateway: gateway.name().into(), key: key.clone(), hint });
        };
        let bad = || SettingsError::BadValue { gateway: gateway.name().into(), key: key.clone() };
        let text = match value {
            Value::String(_, text) => text.clone(),
            Value::Bool(_, flag) => flag.to_string(),
            Value::Num(_, number) => match number.to_i128() {
                Some(whole) => whole.to_string(),
                None => number.to_f64().map(|real| real.to_string()).ok_or_else(bad)?,
            },
            _ => return Err(bad()),
        };
        match *name {
            ACTIVE | TESTING => {
                let flag = match text.trim().to_ascii_lowercase().as_str() {
                    "true" | "1" | "yes" => true,
                    "false" | "0" | "no" => false,
                    _ => return Err(bad()),
                };
                if *name == ACTIVE { active = Some(flag) } else { testing = Some(flag) }
            }
            API_BASE => settings.api_base = Some(text).filter(|url| !url.trim().is_empty()),
            _ => settings.set(name, text),
        }
    }
    settings.fixed_active = active.is_some() || settings.fields().next().is_some();
    settings.active = active.unwrap_or(settings.fixed_active);
    settings.fixed_testing = testing.is_some();
    settings.testing = testing.unwrap_or(false);
    Ok(settings)
}

/// Every gateway's settings from the `[payments.<name>]` tables (the keys of
/// `[payments]` that are not its own settings).
pub fn from_config(
    gateways: &[&'static dyn Gateway],
    tables: &BTreeMap<String, figment::value::Value>,
) -> Result<BTreeMap<&'static str, GatewaySettings>, SettingsError> {
    let mut all = BTreeMap::new();
    for (name, value) in tables {
        let gateway = gateways.iter().find(|gateway| gateway.name().eq_ignore_ascii_case(name));
        let (Some(gateway), figment::value::Value::Dict(_, table)) = (gateway, value) else {
            let names: Vec<&str> = gateways.iter().map(|gateway| gateway.name()).collect();
            let mut known = vec!["test_gateway", "public_url", "secrets_key"];
            known.extend(&names);
            let hint = nearest(name, &known).map(|near| format!(" (did you mean `{near}`?)")).unwrap_or_default();
            return Err(SettingsError::UnknownGateway { gateway: name.clone(), hint, known: names.join(", ") });
        };
        let table: BTreeMap<String, figment::value::Value> =
            table.iter().map(|(key, value)| (key.clone(), value.clone())).collect();
        all.insert(gateway.name(), from_table(*gateway, &table)?);
    }
    Ok(all)
}

/// Whether a gateway signs its webhooks (it has the `webhook_secret` field).
pub fn signs_webhooks(gateway: &dyn Gateway) -> bool {
    gateway.fields().iter().any(|field| field.name == WEBHOOK_SECRET.name)
}

/// A change of a gateway's settings from the panel: fields left out keep
/// their value; `null` or an empty text clears one.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct GatewayEdit {
    pub active: Option<bool>,
    pub testing: Option<bool>,
    /// By the gateway's field names (`GET /api/v1/payment-gateways` lists them).
    pub fields: BTreeMap<String, Option<String>>,
}

/// Why an edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("no field {0} in this gateway")]
    UnknownField(String),
    #[error("{0} is set in wayfare.toml")]
    SetInFile(String),
    #[error("{0} is not a plain line of text of at most 4096 characters")]
    BadValue(String),
    #[error("no payments.secrets_key to seal secrets with")]
    NoSecretsKey,
}

/// What an edit leaves stored: `active`, `testing`, the fields (secrets
/// sealed by `seal(field, value)`), and the names of what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub active: bool,
    pub testing: bool,
    pub fields: BTreeMap<String, String>,
    pub changed: Vec<String>,
}

/// Seals a secret field's value: `(field, value)` to what is stored.
pub type Seal<'a> = &'a dyn Fn(&str, &str) -> String;

/// Applies a panel edit to the stored settings of `gateway`; `file` is its
/// table in `wayfare.toml`, whose values the panel may not change.
pub fn apply_edit(
    gateway: &dyn Gateway,
    file: Option<&GatewaySettings>,
    stored: Option<&wayfare_storage::StoredGateway>,
    edit: &GatewayEdit,
    seal: Option<Seal<'_>>,
) -> Result<Edited, EditError> {
    let mut edited = Edited {
        active: stored.is_some_and(|stored| stored.active),
        testing: stored.is_some_and(|stored| stored.testing),
        fields: stored.map(|stored| stored.fields.clone()).unwrap_or_default(),
        changed: Vec::new(),
    };
    let fixed = (file.is_some_and(|file| file.fixed_active), file.is_some_and(|file| file.fixed_testing));
    for (name, wanted, current, fixed) in
        [(ACTIVE, edit.active, &mut edited.active, fixed.0), (TESTING, edit.testing, &mut edited.testing, fixed.1)]
    {
        let Some(wanted) = wanted else { continue };
        if fixed {
            return Err(EditError::SetInFile(name.into()));
        }
        if *current != wanted {
            *current = wanted;
            edited.changed.push(name.into());
        }
    }
    for (name, value) in &edit.fields {
        let field = gateway
            .fields()
            .iter()
            .find(|field| field.name == name)
            .ok_or_else(|| EditError::UnknownField(name.clone()))?;
        if file.is_some_and(|file| file.value(field.name).is_some()) {
            return Err(EditError::SetInFile(name.clone()));
        }
        let value = value.as_deref().map(str::trim).filter(|value| !value.is_empty());
        match value {
            None => {
                if edited.fields.remove(field.name).is_some() {
                    edited.changed.push(name.clone());
                }
            }
            Some(value) => {
                if value.chars().count() > 4096 || value.chars().any(char::is_control) {
                    return Err(EditError::BadValue(name.clone()));
                }
                let stored = match field.kind {
                    super::gateway::FieldKind::Text => value.to_string(),
                    super::gateway::FieldKind::Secret => seal.ok_or(EditError::NoSecretsKey)?(field.name, value),
                };
                // A secret is sealed afresh each time: a new value counts as a change.
                if edited.fields.get(field.name) != Some(&stored) {
                    edited.fields.insert(field.name.to_string(), stored);
                    edited.changed.push(name.clone());
                }
            }
        }
    }
    Ok(edited)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payments::gateways::{ALL, stripe::Stripe};
    use figment::value::{Dict, Value};

    fn table(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs.iter().map(|(key, value)| (key.to_string(), value.clone())).collect()
    }

    #[test]
    fn a_table_is_active_unless_it_says_not_and_usable_once_complete() {
        let settings = from_table(&Stripe, &table(&[("stripe_private_key", Value::from("sk"))])).unwrap();
        assert!(settings.active && !settings.testing);
        assert_eq!(settings.missing(&Stripe), vec!["webhook_secret"]);
        assert!(!settings.usable(&Stripe));
        let settings = from_table(
            &Stripe,
            &table(&[
                ("STRIPE_PRIVATE_KEY", Value::from("sk")),
                ("webhook_secret", Value::from("whsec")),
                ("testing", Value::from("true")),
                ("api_base", Value::from("http://127.0.0.1:9")),
            ]),
        )
        .unwrap();
        assert!(settings.usable(&Stripe) && settings.testing, "names match whatever their case (environment)");
        assert_eq!(settings.value("stripe_private_key"), Some("sk"));
        assert_eq!(settings.api_base.as_deref(), Some("http://127.0.0.1:9"));
        let off = from_table(&Stripe, &table(&[("active", Value::from(false))])).unwrap();
        assert!(!off.active && off.fixed_active && !off.fixed_testing);
        let elsewhere = from_table(&Stripe, &table(&[("api_base", Value::from("http://127.0.0.1:9"))])).unwrap();
        assert!(
            !elsewhere.fixed_active && !elsewhere.fixed_testing,
            "the panel switches a gateway the file only points"
        );
    }

    #[test]
    fn a_mistyped_or_unknown_key_is_refused_with_the_nearest_name() {
        let error = from_table(&Stripe, &table(&[("stripe_privat_key", Value::from("sk"))])).unwrap_err();
        assert!(error.to_string().contains("did you mean `stripe_private_key`"), "{error}");
        let error = from_table(&Stripe, &table(&[("colour", Value::from("red"))])).unwrap_err();
        assert_eq!(error.to_string(), "[payments.stripe]: unknown setting `colour`");
        let error = from_table(&Stripe, &table(&[("active", Value::from("maybe"))])).unwrap_err();
        assert!(matches!(error, SettingsError::BadValue { .. }));
        let mut tables = BTreeMap::new();
        tables.insert("strpe".to_string(), Value::from(Dict::new()));
        let error = from_config(ALL, &tables).unwrap_err();
        assert!(error.to_string().contains("did you mean `stripe`"), "{error}");
    }

    #[test]
    fn an_edit_seals_secrets_keeps_what_it_leaves_out_and_names_what_changed() {
        let seal = |field: &str, value: &str| format!("sealed({field}={value})");
        let edit = GatewayEdit {
            active: Some(true),
            testing: None,
            fields: [
                ("stripe_private_key".to_string(), Some(" sk_live_1 ".to_string())),
                ("stripe_public_key".to_string(), Some("pk_live_1".to_string())),
            ]
            .into(),
        };
        let edited = apply_edit(&Stripe, None, None, &edit, Some(&seal)).unwrap();
        assert!(edited.active && !edited.testing);
        assert_eq!(edited.fields["stripe_private_key"], "sealed(stripe_private_key=sk_live_1)");
        assert_eq!(edited.fields["stripe_public_key"], "pk_live_1");
        assert_eq!(edited.changed, ["active", "stripe_private_key", "stripe_public_key"]);

        let stored = wayfare_storage::StoredGateway {
            name: "stripe".into(),
            active: edited.active,
            testing: false,
            fields: edited.fields.clone(),
            updated_by: None,
            updated_at: 0,
        };
        let clear = GatewayEdit {
            fields: [("stripe_public_key".to_string(), None), ("webhook_secret".to_string(), Some(String::new()))]
                .into(),
            ..GatewayEdit::default()
        };
        let edited = apply_edit(&Stripe, None, Some(&stored), &clear, Some(&seal)).unwrap();
        assert_eq!(edited.changed, ["stripe_public_key"], "clearing what was never set changes nothing");
        assert!(edited.active, "left out, kept");
        assert_eq!(edited.fields.keys().collect::<Vec<_>>(), ["stripe_private_key"]);
    }

    #[test]
    fn an_edit_is_refused_for_unknown_file_set_or_unsealable_fields() {
        let seal = |_: &str, value: &str| value.to_string();
        let set = |name: &str, value: &str| GatewayEdit {
            fields: [(name.to_string(), Some(value.to_string()))].into(),
            ..GatewayEdit::default()
        };
        assert_eq!(
            apply_edit(&Stripe, None, None, &set("KEY_ID", "x"), Some(&seal)),
            Err(EditError::UnknownField("KEY_ID".into()))
        );
        assert_eq!(
            apply_edit(&Stripe, None, None, &set("stripe_private_key", "sk"), None),
            Err(EditError::NoSecretsKey)
        );
        assert_eq!(
            apply_edit(&Stripe, None, None, &set("stripe_public_key", "a\nb"), None),
            Err(EditError::BadValue("stripe_public_key".into()))
        );
        let file = from_table(&Stripe, &table(&[("stripe_public_key", Value::from("pk"))])).unwrap();
        assert_eq!(
            apply_edit(&Stripe, Some(&file), None, &set("stripe_public_key", "pk2"), None),
            Err(EditError::SetInFile("stripe_public_key".into()))
        );
        let switch = GatewayEdit { active: Some(false), ..GatewayEdit::default() };
        assert_eq!(apply_edit(&Stripe, Some(&file), None, &switch, None), Err(EditError::SetInFile("active".into())));
        // A field the file leaves unset may still be set from the panel.
        assert!(apply_edit(&Stripe, Some(&file), None, &set("webhook_secret", "whsec"), Some(&seal)).is_ok());
    }

    #[test]
    fn numbers_and_flags_are_kept_as_text() {
        let settings = from_table(&Stripe, &table(&[("stripe_public_key", Value::from(508029))])).unwrap();
        assert_eq!(settings.value("stripe_public_key"), Some("508029"));
    }
}
