//! The settings form (spec §5 "Admin panel", §3 settings): the numbers and
//! dispatch knobs as a whole, the form's JSON patch, and the app info part
//! that every visitor may read (spec §2 "App info form", the /appinfo page).

use super::contact::validate_email;
use super::{MAX_SHORT_TEXT_CHARS, fail, text_within};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::Settings;
use crate::money::{self, parse_amount};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

/// Ours: a driver has at least this long to answer an offer.
pub const MIN_OFFER_SECONDS: u32 = 5;
/// Ours: and at most an hour (a Book Later booking is dispatched only 15
/// minutes ahead, so a longer offer could never be answered in time).
pub const MAX_OFFER_SECONDS: u32 = 3_600;
/// Ours: at most this many drivers are offered a booking in one wave.
pub const MAX_WAVE_SIZE: u32 = 100;
/// Ours: at most this many waves before a booking waits for an admin.
pub const MAX_WAVES: u32 = 100;
/// The longest `batch` window, in seconds: past a minute riders wait for the window, not a driver.
pub const MAX_BATCH_SECONDS: u32 = 60;

/// A booking looks for a driver a day at most before the system gives up.
pub const MAX_NO_DRIVER_MINUTES: u32 = 24 * 60;
/// A paid booking waits a week at most for its rating.
pub const MAX_AUTO_COMPLETE_MINUTES: u32 = 7 * 24 * 60;
/// The living demo's highest booking rate, an hour.
pub const MAX_LIVING_DEMO_BOOKINGS_PER_HOUR: u32 = 600;
/// Ours: the company terms text of the app info.
pub const MAX_TERMS_CHARS: usize = 20_000;

/// Checks settings as a whole: `decimal` at most [`money::MAX_DECIMALS`],
/// `bonus` 0 to [`money::MAX_CATALOG_AMOUNT`] (`proper_bonus`), `driverRadius` finite and not
/// negative, and the dispatch knobs sane: 1 to [`MAX_WAVE_SIZE`] drivers per
/// wave, [`MIN_OFFER_SECONDS`] to [`MAX_OFFER_SECONDS`] to answer, 1 to
/// [`MAX_WAVES`] waves, a radius step finite and not negative, the give-up
/// and auto-complete minutes in range. Other failures
/// are `invalid_input` on the field.
pub fn validate_settings(settings: &Settings) -> DomainResult<()> {
    if settings.decimal > money::MAX_DECIMALS {
        return fail(ErrorKey::InvalidInput, "decimal");
    }
    // The bonus is a wallet move for each of two users: at most what one may carry.
    if settings.bonus < Decimal::ZERO || settings.bonus > money::MAX_CATALOG_AMOUNT {
        return fail(ErrorKey::ProperBonus, "bonus");
    }
    if !(settings.driverRadius.is_finite() && settings.driverRadius >= 0.0) {
        return fail(ErrorKey::InvalidInput, "driverRadius");
    }
    if !(1..=MAX_WAVE_SIZE).contains(&settings.dispatchWaveSize) {
        return fail(ErrorKey::InvalidInput, "dispatchWaveSize");
    }
    if !(MIN_OFFER_SECONDS..=MAX_OFFER_SECONDS).contains(&settings.dispatchOfferSeconds) {
        return fail(ErrorKey::InvalidInput, "dispatchOfferSeconds");
    }
    if !(1..=MAX_WAVES).contains(&settings.dispatchMaxWaves) {
        return fail(ErrorKey::InvalidInput, "dispatchMaxWaves");
    }
    if !(settings.dispatchRadiusStep.is_finite() && settings.dispatchRadiusStep >= 0.0) {
        return fail(ErrorKey::InvalidInput, "dispatchRadiusStep");
    }
    if !(1..=MAX_BATCH_SECONDS).contains(&settings.dispatchBatchSeconds) {
        return fail(ErrorKey::InvalidInput, "dispatchBatchSeconds");
    }
    if !(1..=MAX_NO_DRIVER_MINUTES).contains(&settings.noDriverCancelMinutes) {
        return fail(ErrorKey::InvalidInput, "noDriverCancelMinutes");
    }
    if !(1..=MAX_AUTO_COMPLETE_MINUTES).contains(&settings.autoCompleteMinutes) {
        return fail(ErrorKey::InvalidInput, "autoCompleteMinutes");
    }
    if settings.livingDemoBookingsPerHour > MAX_LIVING_DEMO_BOOKINGS_PER_HOUR {
        return fail(ErrorKey::InvalidInput, "livingDemoBookingsPerHour");
    }
    if settings.taxRate < Decimal::ZERO
        || settings.taxRate > Decimal::ONE_HUNDRED
        || !money::is_rounded(settings.taxRate, 4)
    {
        return fail(ErrorKey::InvalidInput, "taxRate");
    }
    // Receipts only show a tax the fares already include (docs/operations.md).
    if !settings.taxIncluded {
        return fail(ErrorKey::InvalidInput, "taxIncluded");
    }
    for (field, text) in [("taxName", &settings.taxName), ("taxNumber", &settings.taxNumber)] {
        if text.chars().count() > MAX_SHORT_TEXT_CHARS {
            return fail(ErrorKey::InvalidInput, field);
        }
    }
    Ok(())
}

/// Applies the settings form's JSON patch (an object of spec field names) to
/// the current settings and checks the result.
///
/// The form is where "empty" exists, so this takes the raw JSON: a `bonus`
/// that is `null`, blank, not a number or negative is `proper_bonus` (spec §5).
/// `bonus`, `decimal` and `driverRadius` may come as numbers or numeric
/// strings (form inputs are text); a `decimal` or `driverRadius` that is
/// anything else, or negative, is `invalid_input` on that field. The bonus keeps its exact decimal value
/// rather than passing through a float. Keys that are not settings are
/// ignored, so a client may send back the object it was given. Values of the
/// wrong type elsewhere are `invalid_input` on `settings`.
pub fn apply_settings_patch(current: &Settings, patch: &serde_json::Value) -> DomainResult<Settings> {
    let Some(patch) = patch.as_object() else {
        return fail(ErrorKey::InvalidInput, "settings");
    };
    let mut bonus = current.bonus;
    let mut tax_rate = current.taxRate;
    let Ok(mut merged) = serde_json::to_value(current) else {
        return fail(ErrorKey::InvalidInput, "settings");
    };
    let Some(merged_fields) = merged.as_object_mut() else {
        return fail(ErrorKey::InvalidInput, "settings");
    };
    for (key, value) in patch {
        let value = match key.as_str() {
            // Demo mode belongs to the command line and the configuration
            // (issue #34): an admin cannot switch it from the panel.
            "AllowCriticalEditsAdmin" => continue,
            "bonus" => {
                // Kept aside and set after the typed pass, so it never goes through a float.
                bonus =
                    non_negative_decimal(value).ok_or_else(|| DomainError::on_field(ErrorKey::ProperBonus, "bonus"))?;
                continue;
            }
            "taxRate" => {
                // As the bonus: a percentage such as 7.7 must not go through a float.
                tax_rate = non_negative_decimal(value)
                    .ok_or_else(|| DomainError::on_field(ErrorKey::InvalidInput, "taxRate"))?;
                continue;
            }
            "taxName" | "taxNumber" => match value.as_str() {
                Some(text) => serde_json::Value::from(text.trim()),
                None => return fail(ErrorKey::InvalidInput, if key == "taxName" { "taxName" } else { "taxNumber" }),
            },
            "decimal" => {
                let places = non_negative_decimal(value)
                    .filter(|places| places.fract().is_zero())
                    .and_then(|places| places.to_u32())
                    .filter(|places| *places <= money::MAX_DECIMALS);
                match places {
                    Some(places) => serde_json::Value::from(places),
                    None => return fail(ErrorKey::InvalidInput, "decimal"),
                }
            }
            "driverRadius" => {
                let radius = non_negative_decimal(value).and_then(|radius| radius.to_f64());
                match radius.filter(|radius| radius.is_finite()) {
                    Some(radius) => serde_json::Value::from(radius),
                    None => return fail(ErrorKey::InvalidInput, "driverRadius"),
                }
            }
            _ => value.clone(),
        };
        merged_fields.insert(key.clone(), value);
    }
    let Ok(mut settings) = serde_json::from_value::<Settings>(merged) else {
        return fail(ErrorKey::InvalidInput, "settings");
    };
    settings.bonus = bonus;
    settings.taxRate = tax_rate;
    validate_settings(&settings)?;
    Ok(settings)
}

/// A JSON number or numeric string that is zero or more.
fn non_negative_decimal(value: &serde_json::Value) -> Option<Decimal> {
    let amount = match value {
        serde_json::Value::Number(number) => parse_amount(&number.to_string()),
        serde_json::Value::String(text) => parse_amount(text),
        _ => None,
    }?;
    (amount >= Decimal::ZERO).then_some(amount)
}

/// The settings the app info form edits and every visitor may read: the
/// name, the company's contact details shown on the contact-us and privacy
/// pages and in the footer, social handles and the store links.
pub const APP_INFO_FIELDS: [&str; 12] = [
    "appName",
    "CompanyName",
    "CompanyAddress",
    "CompanyWebsite",
    "contact_email",
    "CompanyPhone",
    "CompanyTerms",
    "FacebookHandle",
    "TwitterHandle",
    "InstagramHandle",
    "AppleStoreLink",
    "PlayStoreLink",
];

/// The app info part of the settings, as JSON.
pub fn app_info(settings: &Settings) -> serde_json::Map<String, serde_json::Value> {
    let Ok(serde_json::Value::Object(mut fields)) = serde_json::to_value(settings) else {
        return serde_json::Map::new();
    };
    fields.retain(|name, _| APP_INFO_FIELDS.contains(&name.as_str()));
    fields
}

/// Checks the app info fields a settings patch carries: each a text
/// (`invalid_input` on it) of at most [`MAX_SHORT_TEXT_CHARS`] × 2, the terms
/// up to [`MAX_TERMS_CHARS`]; `appName` not blank (it is the page title, spec
/// §1); `contact_email` blank or proper (`proper_email`). Returns the patch
/// with those texts trimmed; other keys are left as they are.
pub fn check_app_info_values(patch: &serde_json::Value) -> DomainResult<serde_json::Value> {
    let Some(fields) = patch.as_object() else {
        return fail(ErrorKey::InvalidInput, "settings");
    };
    let mut checked = fields.clone();
    for field in APP_INFO_FIELDS {
        let Some(value) = fields.get(field) else { continue };
        let Some(text) = value.as_str() else {
            return fail(ErrorKey::InvalidInput, field);
        };
        let max_chars = if field == "CompanyTerms" { MAX_TERMS_CHARS } else { MAX_SHORT_TEXT_CHARS * 2 };
        let mut text = text_within(text, max_chars, field)?;
        if field == "appName" && text.is_empty() {
            return fail(ErrorKey::InvalidInput, field);
        }
        if field == "contact_email" && !text.is_empty() {
            text = validate_email(&text).map_err(|_| DomainError::on_field(ErrorKey::ProperEmail, field))?;
        }
        checked.insert(field.to_string(), serde_json::Value::String(text));
    }
    Ok(serde_json::Value::Object(checked))
}

/// The settings form (spec §5): the app info values checked as above, then
/// [`apply_settings_patch`] (`proper_bonus`, non-negative numbers).
pub fn apply_settings_form(current: &Settings, patch: &serde_json::Value) -> DomainResult<Settings> {
    let checked = check_app_info_values(patch)?;
    apply_settings_patch(current, &checked)
}

/// The app info form: only the [`APP_INFO_FIELDS`] of the patch are applied
/// (the rest of the settings cannot be changed through it, and other keys
/// are ignored so a client may send back the object it read).
pub fn apply_app_info(current: &Settings, patch: &serde_json::Value) -> DomainResult<Settings> {
    let Some(fields) = patch.as_object() else {
        return fail(ErrorKey::InvalidInput, "settings");
    };
    let mut only_app_info = fields.clone();
    only_app_info.retain(|name, _| APP_INFO_FIELDS.contains(&name.as_str()));
    apply_settings_form(current, &serde_json::Value::Object(only_app_info))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::*;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;
    use serde_json::json;

    #[test]
    fn default_settings_are_valid() {
        assert_eq!(validate_settings(&Settings::default()), Ok(()));
    }

    #[test]
    fn the_tax_settings_take_a_rate_from_0_to_100_without_a_float() {
        let current = Settings::default();
        let patched =
            apply_settings_patch(&current, &json!({ "taxName": " VAT ", "taxRate": "7.7", "taxNumber": "GB123" }))
                .unwrap();
        assert_eq!(
            (patched.taxName.as_str(), patched.taxRate, patched.taxNumber.as_str()),
            ("VAT", dec!(7.7), "GB123")
        );
        assert_eq!(apply_settings_patch(&current, &json!({ "taxRate": 100 })).unwrap().taxRate, dec!(100));
        for rate in [json!(-1), json!(100.5), json!("x"), json!(null), json!("0.00001")] {
            assert_eq!(
                failure(apply_settings_patch(&current, &json!({ "taxRate": rate }))),
                (ErrorKey::InvalidInput, Some("taxRate")),
                "{rate}"
            );
        }
        // Receipts only show a tax the fares include.
        assert_eq!(
            failure(apply_settings_patch(&current, &json!({ "taxIncluded": false }))),
            (ErrorKey::InvalidInput, Some("taxIncluded"))
        );
        assert_eq!(
            failure(apply_settings_patch(&current, &json!({ "taxName": 5 }))),
            (ErrorKey::InvalidInput, Some("taxName"))
        );
    }

    #[test]
    fn an_empty_referral_bonus_is_proper_bonus() {
        // spec §5 Admin panel: an empty referral bonus is rejected with 'proper_bonus'
        let current = Settings::default();
        for bonus in [json!(""), json!("  "), json!(null), json!("ten"), json!(-1), json!("-0.5"), json!(true)] {
            assert_eq!(
                failure(apply_settings_patch(&current, &json!({ "bonus": bonus }))),
                (ErrorKey::ProperBonus, Some("bonus")),
                "{bonus}"
            );
        }
    }

    #[test]
    fn a_bonus_keeps_its_exact_decimal_value() {
        let current = Settings::default();
        assert_eq!(apply_settings_patch(&current, &json!({"bonus": "0.1"})).unwrap().bonus, dec!(0.1));
        assert_eq!(apply_settings_patch(&current, &json!({"bonus": 2.5})).unwrap().bonus, dec!(2.5));
        assert_eq!(apply_settings_patch(&current, &json!({"bonus": 0})).unwrap().bonus, dec!(0));
        let with_bonus = Settings { bonus: dec!(0.3), ..Settings::default() };
        assert_eq!(apply_settings_patch(&with_bonus, &json!({"appName": "X"})).unwrap().bonus, dec!(0.3));
    }

    #[test]
    fn decimal_and_driver_radius_accept_only_non_negative_numbers() {
        // spec §5 Admin panel: decimal, bonus and driver radius accept only non-negative numbers
        let current = Settings::default();
        let patched = apply_settings_patch(&current, &json!({"decimal": "3", "driverRadius": "7.5"})).unwrap();
        assert_eq!((patched.decimal, patched.driverRadius), (3, 7.5));
        let patched = apply_settings_patch(&current, &json!({"decimal": 0, "driverRadius": 0})).unwrap();
        assert_eq!((patched.decimal, patched.driverRadius), (0, 0.0));
        for decimal in [json!(-1), json!(""), json!(1.5), json!(9), json!("two"), json!(null)] {
            assert_eq!(
                failure(apply_settings_patch(&current, &json!({ "decimal": decimal }))),
                (ErrorKey::InvalidInput, Some("decimal")),
                "{decimal}"
            );
        }
        for radius in [json!(-0.1), json!(""), json!("far"), json!([]), json!("1e400")] {
            assert_eq!(
                failure(apply_settings_patch(&current, &json!({ "driverRadius": radius }))),
                (ErrorKey::InvalidInput, Some("driverRadius")),
                "{radius}"
            );
        }
    }

    #[test]
    fn a_settings_patch_changes_only_what_it_names_and_ignores_unknown_keys() {
        let current = Settings::default();
        let patched =
            apply_settings_patch(&current, &json!({"appName": "Cabs", "autoDispatch": false, "id": 5})).unwrap();
        assert_eq!(patched, Settings { appName: "Cabs".into(), autoDispatch: false, ..current });
    }

    #[test]
    fn a_settings_patch_must_be_an_object_of_well_typed_values() {
        let current = Settings::default();
        assert_eq!(failure(apply_settings_patch(&current, &json!([1]))), (ErrorKey::InvalidInput, Some("settings")));
        assert_eq!(
            failure(apply_settings_patch(&current, &json!({"autoDispatch": "yes"}))),
            (ErrorKey::InvalidInput, Some("settings"))
        );
        assert_eq!(
            failure(apply_settings_patch(&current, &json!({"dispatchWaveSize": -3}))),
            (ErrorKey::InvalidInput, Some("settings"))
        );
    }

    #[test]
    fn dispatch_knobs_must_be_sane() {
        // DESIGN.md dispatch waves: at least one driver, five seconds, one wave; no negative step
        let cases: [(Settings, &str); 11] = [
            (Settings { dispatchWaveSize: 0, ..Settings::default() }, "dispatchWaveSize"),
            (Settings { dispatchWaveSize: MAX_WAVE_SIZE + 1, ..Settings::default() }, "dispatchWaveSize"),
            (Settings { dispatchOfferSeconds: 4, ..Settings::default() }, "dispatchOfferSeconds"),
            (Settings { dispatchOfferSeconds: MAX_OFFER_SECONDS + 1, ..Settings::default() }, "dispatchOfferSeconds"),
            (Settings { dispatchMaxWaves: 0, ..Settings::default() }, "dispatchMaxWaves"),
            (Settings { dispatchMaxWaves: MAX_WAVES + 1, ..Settings::default() }, "dispatchMaxWaves"),
            (Settings { dispatchRadiusStep: -1.0, ..Settings::default() }, "dispatchRadiusStep"),
            (Settings { dispatchRadiusStep: f64::NAN, ..Settings::default() }, "dispatchRadiusStep"),
            (Settings { dispatchBatchSeconds: 0, ..Settings::default() }, "dispatchBatchSeconds"),
            (Settings { dispatchBatchSeconds: 61, ..Settings::default() }, "dispatchBatchSeconds"),
            (Settings { driverRadius: f64::INFINITY, ..Settings::default() }, "driverRadius"),
        ];
        for (settings, field) in cases {
            assert_eq!(failure(validate_settings(&settings)), (ErrorKey::InvalidInput, Some(field)));
        }
        assert_eq!(
            failure(validate_settings(&Settings { bonus: dec!(-0.01), ..Settings::default() })),
            (ErrorKey::ProperBonus, Some("bonus"))
        );
        assert_eq!(
            failure(validate_settings(&Settings { bonus: dec!(1000000.01), ..Settings::default() })),
            (ErrorKey::ProperBonus, Some("bonus"))
        );
        assert_eq!(
            failure(validate_settings(&Settings { decimal: 9, ..Settings::default() })),
            (ErrorKey::InvalidInput, Some("decimal"))
        );
        let at_limits =
            Settings { dispatchWaveSize: 1, dispatchOfferSeconds: 5, dispatchMaxWaves: 1, ..Settings::default() };
        assert_eq!(validate_settings(&at_limits), Ok(()));
        let at_upper_limits = Settings {
            dispatchWaveSize: MAX_WAVE_SIZE,
            dispatchOfferSeconds: MAX_OFFER_SECONDS,
            dispatchMaxWaves: MAX_WAVES,
            ..Settings::default()
        };
        assert_eq!(validate_settings(&at_upper_limits), Ok(()));
        assert_eq!(
            failure(apply_settings_patch(&Settings::default(), &json!({"dispatchOfferSeconds": 2}))),
            (ErrorKey::InvalidInput, Some("dispatchOfferSeconds"))
        );
    }

    #[test]
    fn app_info_changes_only_its_fields_and_checks_them() {
        let current = Settings::default();
        let patch = json!({ "CompanyName": " Acme Cabs ", "contact_email": "Hello@Acme.example", "AllowCriticalEditsAdmin": false, "bonus": "" });
        let settings = apply_app_info(&current, &patch).unwrap();
        assert_eq!(settings.CompanyName, "Acme Cabs");
        assert_eq!(settings.contact_email, "hello@acme.example");
        assert!(settings.AllowCriticalEditsAdmin, "not an app info field");
        assert_eq!(settings.bonus, current.bonus);
        assert_eq!(
            failure(apply_app_info(&current, &json!({ "contact_email": "nope" }))),
            (ErrorKey::ProperEmail, Some("contact_email"))
        );
        assert_eq!(
            failure(apply_app_info(&current, &json!({ "appName": " " }))),
            (ErrorKey::InvalidInput, Some("appName"))
        );
        assert_eq!(
            failure(apply_app_info(&current, &json!({ "CompanyPhone": 5 }))),
            (ErrorKey::InvalidInput, Some("CompanyPhone"))
        );
        assert_eq!(failure(apply_app_info(&current, &json!([1]))), (ErrorKey::InvalidInput, Some("settings")));
        let info = app_info(&settings);
        assert_eq!(info.len(), APP_INFO_FIELDS.len());
        assert_eq!(info["CompanyName"], "Acme Cabs");
    }

    #[test]
    fn the_settings_form_checks_app_info_and_the_numbers() {
        // spec §5: 'proper_bonus' for an empty bonus; non-negative numbers
        let current = Settings::default();
        assert_eq!(
            failure(apply_settings_form(&current, &json!({ "bonus": "" }))),
            (ErrorKey::ProperBonus, Some("bonus"))
        );
        assert_eq!(
            failure(apply_settings_form(&current, &json!({ "driverRadius": -1 }))),
            (ErrorKey::InvalidInput, Some("driverRadius"))
        );
        assert_eq!(
            failure(apply_settings_form(&current, &json!({ "contact_email": "x@" }))),
            (ErrorKey::ProperEmail, Some("contact_email"))
        );
        let changed =
            apply_settings_form(&current, &json!({ "decimal": "0", "bonus": 7.5, "CompanyName": "Co" })).unwrap();
        assert_eq!((changed.decimal, changed.bonus, changed.CompanyName.as_str()), (0, dec!(7.5), "Co"));
    }

    proptest! {
        #[test]
        fn a_settings_patch_never_panics(text in any::<String>()) {
            let _ = apply_settings_patch(&Settings::default(), &json!({ "bonus": text, "decimal": text, "driverRadius": text }));
        }
    }
}
