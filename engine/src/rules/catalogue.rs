//! What the admin keeps in the catalogue (spec §3, §7 editCarType and
//! editCancellationReason, §5 "Admin panel"): car types with their parcel
//! types, options and cancellation slabs; the simple list of cancellation
//! reasons; the platform's languages.

use super::booking::validate_cancel_reason;
use super::{MAX_INFO_CHARS, MAX_SHORT_TEXT_CHARS, fail, text_within};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::{CarType, PricedChoice};
use crate::money;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// Ours: a car type's name.
pub const MAX_CAR_TYPE_NAME_CHARS: usize = 60;
/// Ours: parcel types or options of one car type.
pub const MAX_CHOICES: usize = 50;
/// Ours: cancellation slabs of one car type.
pub const MAX_CANCEL_SLABS: usize = 20;
/// Ours: entries of the cancellation reason list.
pub const MAX_CANCEL_REASONS: usize = 100;
/// Amounts are kept in micro-units (six decimal places) by storage.
pub const MAX_AMOUNT_SCALE: u32 = 6;

/// Zero to [`money::MAX_CATALOG_AMOUNT`], at most six decimal places.
fn check_amount(amount: Decimal, field: &'static str) -> DomainResult<Decimal> {
    if amount < Decimal::ZERO || amount > money::MAX_CATALOG_AMOUNT || amount.normalize().scale() > MAX_AMOUNT_SCALE {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(amount.normalize())
}

fn check_choices(choices: &[PricedChoice], field: &'static str) -> DomainResult<Vec<PricedChoice>> {
    if choices.len() > MAX_CHOICES {
        return fail(ErrorKey::InvalidInput, field);
    }
    choices
        .iter()
        .map(|choice| {
            let description = text_within(&choice.description, MAX_SHORT_TEXT_CHARS, field)?;
            if description.is_empty() {
                return fail(ErrorKey::InvalidInput, field);
            }
            Ok(PricedChoice { description, amount: check_amount(choice.amount, field)? })
        })
        .collect()
}

/// The platform's car type of this name (exact, once trimmed), as a
/// driver's account or sign-up names it.
pub fn car_type_named<'a>(name: &str, car_types: &'a [CarType]) -> Option<&'a CarType> {
    let name = name.trim();
    car_types.iter().find(|car_type| car_type.name == name)
}

/// Checks a car type before it is added or replaces `others`' namesake
/// (spec §3): a name, not blank, at most [`MAX_CAR_TYPE_NAME_CHARS`], not
/// used by another car type in any case (`car_type_exists`, 409); every rate,
/// fee and amount zero or more, with at most six decimal places; a
/// percentage fee at most 100; parcel types and options described; and the
/// cancellation slabs put in order of `minsDelayed`, no two at the same
/// minute and none cheaper than an earlier one (the fee the engine takes
/// is the latest slab reached, so a later, cheaper slab would lower the fee
/// the longer the driver waited). Other failures are `invalid_input` on the
/// field. Returns the car type normalised (trimmed texts, sorted slabs).
pub fn validate_car_type(candidate: &CarType, others: &[CarType]) -> DomainResult<CarType> {
    let mut car_type = candidate.clone();
    car_type.name = text_within(&candidate.name, MAX_CAR_TYPE_NAME_CHARS, "name")?;
    if car_type.name.is_empty() {
        return fail(ErrorKey::InvalidInput, "name");
    }
    let taken = others
        .iter()
        .any(|other| other.id != candidate.id && other.name.trim().to_lowercase() == car_type.name.to_lowercase());
    if taken {
        return fail(ErrorKey::CarTypeExists, "name");
    }
    car_type.base_fare = check_amount(candidate.base_fare, "base_fare")?;
    car_type.rate_per_unit_distance = check_amount(candidate.rate_per_unit_distance, "rate_per_unit_distance")?;
    car_type.rate_per_hour = check_amount(candidate.rate_per_hour, "rate_per_hour")?;
    car_type.min_fare = check_amount(candidate.min_fare, "min_fare")?;
    car_type.convenience_fees = check_amount(candidate.convenience_fees, "convenience_fees")?;
    if car_type.convenience_fee_type == crate::model::AmountType::Percentage
        && car_type.convenience_fees > Decimal::ONE_HUNDRED
    {
        return fail(ErrorKey::InvalidInput, "convenience_fees");
    }
    car_type.extra_info = text_within(&candidate.extra_info, MAX_INFO_CHARS, "extra_info")?;
    car_type.parcelTypes = check_choices(&candidate.parcelTypes, "parcelTypes")?;
    car_type.options = check_choices(&candidate.options, "options")?;
    // Requiring an option of a car type that has none would refuse every booking.
    if car_type.optionRequired && car_type.options.is_empty() {
        return fail(ErrorKey::InvalidInput, "optionRequired");
    }
    if candidate.cancelSlab.len() > MAX_CANCEL_SLABS {
        return fail(ErrorKey::InvalidInput, "cancelSlab");
    }
    let mut slabs = candidate.cancelSlab.clone();
    for slab in &mut slabs {
        slab.amount = check_amount(slab.amount, "cancelSlab")?;
    }
    slabs.sort_by_key(|slab| slab.minsDelayed);
    for pair in slabs.windows(2) {
        if pair[0].minsDelayed == pair[1].minsDelayed || pair[1].amount < pair[0].amount {
            return fail(ErrorKey::InvalidInput, "cancelSlab");
        }
    }
    car_type.cancelSlab = slabs;
    Ok(car_type)
}

/// The simple list of cancellation reasons as a whole: each reason as
/// [`validate_cancel_reason`] wants it (`select_proper` when
/// blank), no two the same in any case, at most [`MAX_CANCEL_REASONS`]
/// (`invalid_input` on `reason`). Returns the reasons trimmed, in order.
pub fn validate_cancel_reasons(reasons: &[String]) -> DomainResult<Vec<String>> {
    if reasons.len() > MAX_CANCEL_REASONS {
        return fail(ErrorKey::InvalidInput, "reason");
    }
    let mut checked: Vec<String> = Vec::with_capacity(reasons.len());
    for reason in reasons {
        let reason = validate_cancel_reason(reason)?;
        if checked.iter().any(|seen| seen.to_lowercase() == reason.to_lowercase()) {
            return fail(ErrorKey::InvalidInput, "reason");
        }
        checked.push(reason.to_string());
    }
    Ok(checked)
}

/// A language's translation pairs as typed in the JSON editor: a JSON object
/// whose values are all strings, else `json_error` ('JSON Error', spec §5).
pub fn parse_language_pairs(text: &str) -> DomainResult<BTreeMap<String, String>> {
    serde_json::from_str::<BTreeMap<String, String>>(text)
        .map_err(|_| DomainError::on_field(ErrorKey::JsonError, "keyValuePairs"))
}

/// A language's name and locales as an admin enters them (spec §3
/// "Language"): a name, a locale such as `en`, `ar` or `pt-BR` (letters,
/// digits and `-`, starting with a 2–3 letter language code), and a date
/// locale (the locale when empty). Returns the trimmed name, locale and date
/// locale.
pub fn validate_language(name: &str, locale: &str, date_locale: &str) -> DomainResult<(String, String, String)> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 60 {
        return fail(ErrorKey::InvalidInput, "langName");
    }
    let is_locale = |text: &str| {
        let mut parts = text.split(['-', '_']);
        let language = parts.next().unwrap_or_default();
        (2..=3).contains(&language.len())
            && language.chars().all(|c| c.is_ascii_alphabetic())
            && parts.all(|part| (1..=8).contains(&part.len()) && part.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    let locale = locale.trim();
    if !is_locale(locale) {
        return fail(ErrorKey::InvalidInput, "langLocale");
    }
    let date_locale = match date_locale.trim() {
        "" => locale,
        given => given,
    };
    if !is_locale(date_locale) {
        return fail(ErrorKey::InvalidInput, "dateLocale");
    }
    Ok((name.to_string(), locale.to_string(), date_locale.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::CarTypeId;
    use crate::model::{AmountType, CancelSlab};
    use crate::rules::test_support::*;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    #[test]
    fn car_type_names_are_unique_in_any_case_and_not_blank() {
        let mut comfort = economy();
        comfort.id = CarTypeId::from_u128(2);
        comfort.name = " economy ".into();
        assert_eq!(failure(validate_car_type(&comfort, &[economy()])), (ErrorKey::CarTypeExists, Some("name")));
        assert_eq!(ErrorKey::CarTypeExists.kind(), crate::ErrorKind::Conflict);
        // The car type itself keeps its name when updated.
        assert!(validate_car_type(&economy(), &[economy()]).is_ok());
        comfort.name = "  ".into();
        assert_eq!(failure(validate_car_type(&comfort, &[economy()])), (ErrorKey::InvalidInput, Some("name")));
        comfort.name = "x".repeat(MAX_CAR_TYPE_NAME_CHARS + 1);
        assert_eq!(failure(validate_car_type(&comfort, &[])), (ErrorKey::InvalidInput, Some("name")));
    }

    /// Makes one field of a car type wrong.
    type Breakage = fn(&mut CarType);

    #[test]
    fn car_type_rates_are_never_negative() {
        let cases: [(&str, Breakage); 5] = [
            ("base_fare", |car| car.base_fare = dec!(-1)),
            ("rate_per_unit_distance", |car| car.rate_per_unit_distance = dec!(-0.01)),
            ("rate_per_hour", |car| car.rate_per_hour = dec!(-3)),
            ("min_fare", |car| car.min_fare = dec!(-7)),
            ("convenience_fees", |car| car.convenience_fees = dec!(-10)),
        ];
        for (field, break_it) in cases {
            let mut car = economy();
            break_it(&mut car);
            assert_eq!(failure(validate_car_type(&car, &[])), (ErrorKey::InvalidInput, Some(field)));
        }
        let mut percent = economy();
        percent.convenience_fees = dec!(100.5);
        assert_eq!(failure(validate_car_type(&percent, &[])), (ErrorKey::InvalidInput, Some("convenience_fees")));
        percent.convenience_fee_type = AmountType::Flat;
        assert!(validate_car_type(&percent, &[]).is_ok(), "a flat fee may be above 100");
        let mut tiny = economy();
        tiny.base_fare = dec!(0.0000001);
        assert_eq!(failure(validate_car_type(&tiny, &[])), (ErrorKey::InvalidInput, Some("base_fare")));
    }

    #[test]
    fn parcel_types_and_options_are_described_and_priced() {
        let mut car = economy();
        car.parcelTypes = vec![PricedChoice { description: " Box ".into(), amount: dec!(3) }];
        car.options = vec![PricedChoice { description: "".into(), amount: dec!(2) }];
        assert_eq!(failure(validate_car_type(&car, &[])), (ErrorKey::InvalidInput, Some("options")));
        car.options = vec![PricedChoice { description: "Fragile".into(), amount: dec!(-2) }];
        assert_eq!(failure(validate_car_type(&car, &[])), (ErrorKey::InvalidInput, Some("options")));
        car.options.clear();
        assert_eq!(validate_car_type(&car, &[]).unwrap().parcelTypes[0].description, "Box");
    }

    #[test]
    fn cancel_slabs_are_sorted_distinct_and_never_cheaper_later() {
        let slab = |minutes: u32, amount: Decimal| CancelSlab { minsDelayed: minutes, amount };
        let mut car = economy();
        car.cancelSlab = vec![slab(5, dec!(5)), slab(2, dec!(2))];
        let checked = validate_car_type(&car, &[]).unwrap();
        assert_eq!(checked.cancelSlab, vec![slab(2, dec!(2)), slab(5, dec!(5))]);
        car.cancelSlab = vec![slab(2, dec!(2)), slab(2, dec!(3))];
        assert_eq!(failure(validate_car_type(&car, &[])), (ErrorKey::InvalidInput, Some("cancelSlab")));
        car.cancelSlab = vec![slab(2, dec!(5)), slab(5, dec!(2))];
        assert_eq!(failure(validate_car_type(&car, &[])), (ErrorKey::InvalidInput, Some("cancelSlab")));
        car.cancelSlab = vec![slab(2, dec!(-1))];
        assert_eq!(failure(validate_car_type(&car, &[])), (ErrorKey::InvalidInput, Some("cancelSlab")));
    }

    #[test]
    fn cancel_reasons_are_chosen_distinct_and_trimmed() {
        let list = |items: &[&str]| items.iter().map(|item| item.to_string()).collect::<Vec<_>>();
        assert_eq!(validate_cancel_reasons(&list(&[" Late ", "Other"])).unwrap(), list(&["Late", "Other"]));
        assert_eq!(failure(validate_cancel_reasons(&list(&["Late", " "]))), (ErrorKey::SelectProper, Some("reason")));
        assert_eq!(
            failure(validate_cancel_reasons(&list(&["Late", "late"]))),
            (ErrorKey::InvalidInput, Some("reason"))
        );
        let too_many: Vec<String> = (0..=MAX_CANCEL_REASONS).map(|n| format!("Reason {n}")).collect();
        assert_eq!(failure(validate_cancel_reasons(&too_many)), (ErrorKey::InvalidInput, Some("reason")));
        assert!(validate_cancel_reasons(&[]).unwrap().is_empty());
    }

    #[test]
    fn a_language_needs_a_name_and_well_formed_locales() {
        assert_eq!(
            validate_language(" Français ", "fr", "").unwrap(),
            ("Français".to_string(), "fr".to_string(), "fr".to_string())
        );
        assert!(validate_language("Português", "pt-BR", "pt-br").is_ok());
        assert_eq!(failure(validate_language(" ", "fr", "fr")), (ErrorKey::InvalidInput, Some("langName")));
        for locale in ["", "f", "french language", "fr--", "12"] {
            assert_eq!(
                failure(validate_language("X", locale, "fr")),
                (ErrorKey::InvalidInput, Some("langLocale")),
                "{locale:?}"
            );
        }
        assert_eq!(failure(validate_language("X", "fr", "f r")), (ErrorKey::InvalidInput, Some("dateLocale")));
    }

    #[test]
    fn language_pairs_must_be_a_json_object_of_strings() {
        // spec §5 Admin panel: language JSON must parse, else 'JSON Error'
        let pairs = parse_language_pairs(r#"{"must_login": "Please log in", "rtl": ""}"#).unwrap();
        assert_eq!(pairs["must_login"], "Please log in");
        for text in ["", "{", "[]", r#"{"a": 1}"#, r#"{"a": null}"#, r#""text""#, r#"{"a": {"b": "c"}}"#] {
            assert_eq!(failure(parse_language_pairs(text)), (ErrorKey::JsonError, Some("keyValuePairs")), "{text:?}");
        }
        assert_eq!(ErrorKey::JsonError.as_str(), "json_error");
    }

    proptest! {
        #[test]
        fn language_pairs_never_panic(text in any::<String>()) {
            let _ = parse_language_pairs(&text);
        }
    }
}
