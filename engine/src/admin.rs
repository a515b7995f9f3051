//! Input rules of the admin panel (spec §5 "Admin panel", §3): the accounts a
//! manager adds and edits, the contacts the existence check looks up, car
//! types with their parcel types, options and cancellation slabs, the simple
//! list of cancellation reasons, the "app info" part of the settings, and the
//! language and contacts a user keeps on their own profile.
//!
//! Like `validation`, these functions only look at what they are given:
//! whether a contact or a name is already taken in storage, and who may do
//! what (`permissions`), are asked elsewhere. They never panic.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::UserId;
use crate::model::{CarType, Millis, PricedChoice, RegType, Role, Settings, User, UserLang};
use crate::money;
use crate::permissions::Principal;
use crate::validation::{self, MAX_NAME_CHARS, MAX_PHONE_DIGITS, MIN_PHONE_DIGITS, ProfileUpdate};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize};

/// Ours: a car type's name.
pub const MAX_CAR_TYPE_NAME_CHARS: usize = 60;
/// Ours: free text such as a car type's `extra_info` or a driver's `other_info`.
pub const MAX_INFO_CHARS: usize = 500;
/// Ours: a vehicle, bank or parcel field.
pub const MAX_SHORT_TEXT_CHARS: usize = 100;
/// Ours: parcel types or options of one car type.
pub const MAX_CHOICES: usize = 50;
/// Ours: cancellation slabs of one car type.
pub const MAX_CANCEL_SLABS: usize = 20;
/// Ours: entries of the cancellation reason list.
pub const MAX_CANCEL_REASONS: usize = 100;
/// Amounts are kept in micro-units (six decimal places) by storage.
pub const MAX_AMOUNT_SCALE: u32 = 6;
/// Ours: the company terms text of the app info.
pub const MAX_TERMS_CHARS: usize = 20_000;
/// Ours: a locale code such as `en`, `pt-BR` or `zh_Hant_TW`.
pub const MAX_LOCALE_CHARS: usize = 16;

fn fail<T>(key: ErrorKey, field: &'static str) -> DomainResult<T> {
    Err(DomainError::on_field(key, field))
}

fn text_within(text: &str, max_chars: usize, field: &'static str) -> DomainResult<String> {
    let text = text.trim();
    if text.chars().count() > max_chars {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(text.to_string())
}

fn required_name(name: Option<&str>, field: &'static str) -> DomainResult<String> {
    let name = text_within(name.unwrap_or_default(), MAX_NAME_CHARS, field)?;
    if name.is_empty() {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(name)
}

// ---------------------------------------------------------------------------
// Accounts a manager adds or edits (spec §5 "Admin panel", §6)
// ---------------------------------------------------------------------------

/// `null` is `Some(None)`, a missing field `None` (with `#[serde(default)]`).
fn present_or_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// The fields of an account in the users tables: what a manager sends to add
/// an account (all that apply) or to edit one (only what changes). `None`
/// leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
#[allow(non_snake_case)]
pub struct AccountFields {
    /// Required to add; cannot be changed by an edit.
    pub usertype: Option<Role>,
    pub firstName: Option<String>,
    pub lastName: Option<String>,
    /// Only when adding: an edit that changes it is `contact_not_editable`.
    pub email: Option<String>,
    /// Only when adding: an edit that changes it is `contact_not_editable`.
    pub mobile: Option<String>,
    /// Added accounts are approved unless this says otherwise.
    pub approved: Option<bool>,
    /// A driver's fleet admin; admins only (a fleet admin's drivers are theirs). `null` takes the driver out of any fleet.
    #[serde(deserialize_with = "present_or_null")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<UserId>))]
    pub fleetadmin: Option<Option<UserId>>,
    /// A driver's car type, by name; blank clears it.
    pub carType: Option<String>,
    pub vehicleMake: Option<String>,
    pub vehicleModel: Option<String>,
    pub vehicleNumber: Option<String>,
    pub vehicleColor: Option<String>,
    /// Four digits; blank clears it.
    pub vehicleYear: Option<String>,
    pub other_info: Option<String>,
    pub bankName: Option<String>,
    pub bankCode: Option<String>,
    pub bankAccount: Option<String>,
}

/// Contacts normalised: e-mail trimmed and lower-cased, the phone as digits
/// with an optional leading `+`; blank when not given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contacts {
    pub email: String,
    pub mobile: String,
}

/// The contacts the existence check looks up and an added account keeps: at
/// least one of e-mail and mobile, and each one given must be well formed
/// (a proper e-mail; a phone of 7 to 15 digits). Otherwise the check cannot
/// run and the add is rejected with `email_or_mobile_issue` (spec §5), on the
/// field at fault (`contact` when neither is given).
pub fn check_contacts(email: Option<&str>, mobile: Option<&str>) -> DomainResult<Contacts> {
    let email = email.map(str::trim).unwrap_or_default();
    let mobile = mobile.map(str::trim).unwrap_or_default();
    if email.is_empty() && mobile.is_empty() {
        return fail(ErrorKey::EmailOrMobileIssue, "contact");
    }
    let email = if email.is_empty() {
        String::new()
    } else {
        validation::validate_email(email).map_err(|_| DomainError::on_field(ErrorKey::EmailOrMobileIssue, "email"))?
    };
    let mobile = if mobile.is_empty() {
        String::new()
    } else {
        match validation::normalise_phone(mobile) {
            Some(phone) if phone_digits_ok(&phone) => phone,
            _ => return fail(ErrorKey::EmailOrMobileIssue, "mobile"),
        }
    };
    Ok(Contacts { email, mobile })
}

fn phone_digits_ok(phone: &str) -> bool {
    let digits = phone.bytes().filter(u8::is_ascii_digit).count();
    (MIN_PHONE_DIGITS..=MAX_PHONE_DIGITS).contains(&digits)
}

/// A driver's car type must be one of the platform's (`invalid_input` on
/// `carType`); blank means none. Returns the name as the car type spells it.
fn check_car_type_name(name: &str, car_types: &[CarType]) -> DomainResult<Option<String>> {
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    car_types
        .iter()
        .find(|car_type| car_type.name == name)
        .map(|car_type| Some(car_type.name.clone()))
        .ok_or_else(|| DomainError::on_field(ErrorKey::InvalidInput, "carType"))
}

/// Names, driver and bank details: the fields an add and an edit share.
fn apply_details(user: &mut User, fields: &AccountFields, car_types: &[CarType]) -> DomainResult<()> {
    if let Some(name) = fields.firstName.as_deref() {
        user.firstName = required_name(Some(name), "firstName")?;
    }
    if let Some(name) = fields.lastName.as_deref() {
        user.lastName = required_name(Some(name), "lastName")?;
    }
    // Driver details on another type of account are a mistake; blanks (a
    // table sending back every column) are not.
    let given = |text: &Option<String>| text.as_deref().is_some_and(|text| !text.trim().is_empty());
    let driver_only = [
        (given(&fields.carType), "carType"),
        (given(&fields.vehicleMake), "vehicleMake"),
        (given(&fields.vehicleModel), "vehicleModel"),
        (given(&fields.vehicleNumber), "vehicleNumber"),
        (given(&fields.vehicleColor), "vehicleColor"),
        (given(&fields.vehicleYear), "vehicleYear"),
        (given(&fields.other_info), "other_info"),
    ];
    if user.usertype != Role::Driver
        && let Some((_, field)) = driver_only.iter().find(|(given, _)| *given)
    {
        return fail(ErrorKey::InvalidInput, field);
    }
    if let Some(name) = fields.carType.as_deref() {
        user.carType = check_car_type_name(name, car_types)?;
    }
    if let Some(year) = fields.vehicleYear.as_deref() {
        user.vehicleYear =
            if year.trim().is_empty() { String::new() } else { crate::signup::check_vehicle_year(year)? };
    }
    let texts: [(&Option<String>, &mut String, usize, &'static str); 7] = [
        (&fields.vehicleMake, &mut user.vehicleMake, MAX_SHORT_TEXT_CHARS, "vehicleMake"),
        (&fields.vehicleModel, &mut user.vehicleModel, MAX_SHORT_TEXT_CHARS, "vehicleModel"),
        (&fields.vehicleNumber, &mut user.vehicleNumber, MAX_SHORT_TEXT_CHARS, "vehicleNumber"),
        (&fields.vehicleColor, &mut user.vehicleColor, MAX_SHORT_TEXT_CHARS, "vehicleColor"),
        (&fields.other_info, &mut user.other_info, MAX_INFO_CHARS, "other_info"),
        (&fields.bankName, &mut user.bankName, MAX_SHORT_TEXT_CHARS, "bankName"),
        (&fields.bankCode, &mut user.bankCode, MAX_SHORT_TEXT_CHARS, "bankCode"),
    ];
    for (given, target, max_chars, field) in texts {
        if let Some(text) = given {
            *target = text_within(text, max_chars, field)?;
        }
    }
    if let Some(account) = fields.bankAccount.as_deref() {
        user.bankAccount = text_within(account, MAX_SHORT_TEXT_CHARS, "bankAccount")?;
    }
    Ok(())
}

/// The fleet a driver belongs to. A fleet admin may not choose (their drivers
/// are theirs: `not_allowed`); an admin names a fleet admin (`owner` is the
/// account the id names, looked up by the caller: anything but a fleet admin
/// is `invalid_input`), and only drivers belong to fleets.
pub fn check_fleet_choice(editor: &Principal, account_role: Role, owner: Option<&User>) -> DomainResult<()> {
    if editor.role != Role::Admin {
        return fail(ErrorKey::NotAllowed, "fleetadmin");
    }
    if account_role != Role::Driver {
        return fail(ErrorKey::InvalidInput, "fleetadmin");
    }
    match owner {
        Some(owner) if owner.usertype == Role::Fleetadmin => Ok(()),
        _ => fail(ErrorKey::InvalidInput, "fleetadmin"),
    }
}

/// A new account as a manager adds it (spec §5 "Admin panel"): a user type,
/// both names, contacts as [`check_contacts`] wants them, and the details
/// that apply to the type. It is made by an admin (`regType` admin, so its
/// e-mail and phone stay fixed on the profile, spec §2), approved unless the
/// manager says otherwise, and `fleet` is its fleet admin (the adding fleet
/// admin's id for their drivers, spec §6, else the admin's choice). The
/// referral code is drawn by the caller, who may have to draw again.
pub fn new_account(
    id: UserId,
    now: Millis,
    fields: &AccountFields,
    fleet: Option<UserId>,
    car_types: &[CarType],
) -> DomainResult<User> {
    let Some(role) = fields.usertype else {
        return fail(ErrorKey::InvalidInput, "usertype");
    };
    let contacts = check_contacts(fields.email.as_deref(), fields.mobile.as_deref())?;
    let mut user = User::new(id, role, now);
    user.firstName = required_name(fields.firstName.as_deref(), "firstName")?;
    user.lastName = required_name(fields.lastName.as_deref(), "lastName")?;
    apply_details(&mut user, fields, car_types)?;
    user.email = contacts.email;
    user.mobile = contacts.mobile;
    user.regType = RegType::Admin;
    user.approved = fields.approved.unwrap_or(true);
    user.fleetadmin = if role == Role::Driver { fleet } else { None };
    Ok(user)
}

/// An edit of an existing account by its manager. E-mail and mobile are set
/// only when adding (spec §5): sending a different one is
/// `contact_not_editable`, the same one again is not a change. The user type
/// does not change (`not_allowed` on `usertype`). Nobody takes away their own
/// approval, which would lock them out (`not_allowed` on `approved`). The
/// fleet is set by the caller after [`check_fleet_choice`].
pub fn edit_account(
    editor: &Principal,
    current: &User,
    fields: &AccountFields,
    car_types: &[CarType],
) -> DomainResult<User> {
    if fields.usertype.is_some_and(|role| role != current.usertype) {
        return fail(ErrorKey::NotAllowed, "usertype");
    }
    if let Some(email) = fields.email.as_deref()
        && !email.trim().eq_ignore_ascii_case(current.email.trim())
    {
        return fail(ErrorKey::ContactNotEditable, "email");
    }
    if let Some(mobile) = fields.mobile.as_deref() {
        let comparable = |text: &str| validation::normalise_phone(text).unwrap_or_else(|| text.trim().to_string());
        if comparable(mobile) != comparable(&current.mobile) {
            return fail(ErrorKey::ContactNotEditable, "mobile");
        }
    }
    if fields.approved == Some(false) && current.id == editor.id {
        return fail(ErrorKey::NotAllowed, "approved");
    }
    let mut user = current.clone();
    apply_details(&mut user, fields, car_types)?;
    if let Some(approved) = fields.approved {
        user.approved = approved;
    }
    Ok(user)
}

/// Approving (or withdrawing approval of) an account; nobody withdraws their own.
pub fn set_approval(editor: &Principal, current: &User, approved: bool) -> DomainResult<User> {
    if !approved && current.id == editor.id {
        return fail(ErrorKey::NotAllowed, "approved");
    }
    let mut user = current.clone();
    user.approved = approved;
    Ok(user)
}

// ---------------------------------------------------------------------------
// Own profile (spec §2 "Profile", §7 updateProfile)
// ---------------------------------------------------------------------------

/// A profile update as [`validation::validate_profile_update`] checks it
/// (names, locked and proper contacts), and one more rule: an account keeps
/// at least one contact, since that is how its owner signs in
/// (`email_or_mobile_issue`, on the field cleared last).
pub fn validate_own_profile(current: &User, update: &ProfileUpdate) -> DomainResult<ProfileUpdate> {
    let checked = validation::validate_profile_update(current, update)?;
    let email_after = checked.email.as_deref().unwrap_or(&current.email).trim();
    let mobile_after = checked.mobile.as_deref().unwrap_or(&current.mobile).trim();
    if email_after.is_empty() && mobile_after.is_empty() {
        let field = if checked.mobile.is_some() { "mobile" } else { "email" };
        return fail(ErrorKey::EmailOrMobileIssue, field);
    }
    Ok(checked)
}

fn is_locale(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_LOCALE_CHARS
        && text.bytes().all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_'))
        && text.bytes().next().is_some_and(|byte| byte.is_ascii_alphabetic())
}

/// The language a user picks: a well-formed `langLocale` and `dateLocale`
/// (`dateLocale` defaults to the language's), and, when the platform lists
/// languages (`known` holds their `langLocale`s), one of them. Else
/// `invalid_input` on `lang`.
pub fn validate_user_lang(lang: &UserLang, known: &[&str]) -> DomainResult<UserLang> {
    let locale = lang.langLocale.trim();
    let date_locale = match lang.dateLocale.trim() {
        "" => locale,
        other => other,
    };
    if !is_locale(locale) || !is_locale(date_locale) {
        return fail(ErrorKey::InvalidInput, "lang");
    }
    if !known.is_empty() && !known.contains(&locale) {
        return fail(ErrorKey::InvalidInput, "lang");
    }
    Ok(UserLang { langLocale: locale.to_string(), dateLocale: date_locale.to_string() })
}

// ---------------------------------------------------------------------------
// Car types (spec §3, §7 editCarType)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Cancellation reasons (spec §3, §7 editCancellationReason)
// ---------------------------------------------------------------------------

/// The simple list of cancellation reasons as a whole: each reason as
/// [`validation::validate_cancel_reason`] wants it (`select_proper` when
/// blank), no two the same in any case, at most [`MAX_CANCEL_REASONS`]
/// (`invalid_input` on `reason`). Returns the reasons trimmed, in order.
pub fn validate_cancel_reasons(reasons: &[String]) -> DomainResult<Vec<String>> {
    if reasons.len() > MAX_CANCEL_REASONS {
        return fail(ErrorKey::InvalidInput, "reason");
    }
    let mut checked: Vec<String> = Vec::with_capacity(reasons.len());
    for reason in reasons {
        let reason = validation::validate_cancel_reason(reason)?;
        if checked.iter().any(|seen| seen.to_lowercase() == reason.to_lowercase()) {
            return fail(ErrorKey::InvalidInput, "reason");
        }
        checked.push(reason.to_string());
    }
    Ok(checked)
}

// ---------------------------------------------------------------------------
// App info (spec §2 "App info form", the /appinfo page; §3 settings)
// ---------------------------------------------------------------------------

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
            text =
                validation::validate_email(&text).map_err(|_| DomainError::on_field(ErrorKey::ProperEmail, field))?;
        }
        checked.insert(field.to_string(), serde_json::Value::String(text));
    }
    Ok(serde_json::Value::Object(checked))
}

/// The settings form (spec §5): the app info values checked as above, then
/// [`validation::apply_settings_patch`] (`proper_bonus`, non-negative numbers).
pub fn apply_settings_form(current: &Settings, patch: &serde_json::Value) -> DomainResult<Settings> {
    let checked = check_app_info_values(patch)?;
    validation::apply_settings_patch(current, &checked)
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
    use crate::ids::CarTypeId;
    use crate::model::{AmountType, CancelSlab};
    use rust_decimal_macros::dec;
    use serde_json::json;

    fn failure<T: std::fmt::Debug>(result: DomainResult<T>) -> (ErrorKey, Option<&'static str>) {
        let error = result.unwrap_err();
        (error.key, error.field)
    }

    fn admin() -> Principal {
        Principal::new(UserId::from_u128(31), Role::Admin)
    }

    fn fleet_admin() -> Principal {
        Principal::new(UserId::from_u128(21), Role::Fleetadmin)
    }

    fn economy() -> CarType {
        CarType {
            id: CarTypeId::from_u128(1),
            name: "Economy".into(),
            image: String::new(),
            base_fare: dec!(2.5),
            rate_per_unit_distance: dec!(1.1),
            rate_per_hour: dec!(15),
            min_fare: dec!(7),
            convenience_fees: dec!(10),
            convenience_fee_type: AmountType::Percentage,
            extra_info: String::new(),
            createdAt: 0,
            parcelTypes: vec![],
            options: vec![],
            cancelSlab: vec![],
            optionRequired: false,
        }
    }

    fn fields(role: Role) -> AccountFields {
        AccountFields {
            usertype: Some(role),
            firstName: Some(" Dana ".into()),
            lastName: Some("Driver".into()),
            email: Some(" Dana@Example.com ".into()),
            mobile: Some("+1 410 555 0199".into()),
            ..AccountFields::default()
        }
    }

    #[test]
    fn the_existence_check_needs_a_proper_email_or_mobile() {
        // spec §5 Admin panel: if the check errors, 'email_or_mobile_issue'
        assert_eq!(failure(check_contacts(None, None)), (ErrorKey::EmailOrMobileIssue, Some("contact")));
        assert_eq!(failure(check_contacts(Some(" "), Some(""))), (ErrorKey::EmailOrMobileIssue, Some("contact")));
        assert_eq!(failure(check_contacts(Some("nope"), None)), (ErrorKey::EmailOrMobileIssue, Some("email")));
        assert_eq!(failure(check_contacts(None, Some("12345"))), (ErrorKey::EmailOrMobileIssue, Some("mobile")));
        assert_eq!(
            failure(check_contacts(Some("a@example.com"), Some("+1 234 567 890 123 456"))),
            (ErrorKey::EmailOrMobileIssue, Some("mobile"))
        );
        let contacts = check_contacts(Some(" A@Example.com"), Some("(410) 555-0199")).unwrap();
        assert_eq!(contacts, Contacts { email: "a@example.com".into(), mobile: "4105550199".into() });
        assert_eq!(check_contacts(None, Some("+14105550199")).unwrap().email, "");
    }

    #[test]
    fn an_added_account_is_made_by_an_admin_approved_and_normalised() {
        let user = new_account(UserId::from_u128(5), 42, &fields(Role::Rider), None, &[]).unwrap();
        assert_eq!(user.usertype, Role::Rider);
        assert_eq!((user.firstName.as_str(), user.lastName.as_str()), ("Dana", "Driver"));
        assert_eq!((user.email.as_str(), user.mobile.as_str()), ("dana@example.com", "+14105550199"));
        assert_eq!(user.regType, RegType::Admin, "spec §2: admin-made accounts keep their contacts fixed");
        assert!(user.approved);
        assert_eq!(user.createdAt, 42);
        let pending = AccountFields { approved: Some(false), ..fields(Role::Rider) };
        assert!(!new_account(UserId::from_u128(5), 42, &pending, None, &[]).unwrap().approved);
    }

    #[test]
    fn an_added_account_needs_a_type_and_names() {
        let no_type = AccountFields { usertype: None, ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_type, None, &[])),
            (ErrorKey::InvalidInput, Some("usertype"))
        );
        let no_name = AccountFields { firstName: Some("  ".into()), ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_name, None, &[])),
            (ErrorKey::InvalidInput, Some("firstName"))
        );
        let no_last = AccountFields { lastName: None, ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_last, None, &[])),
            (ErrorKey::InvalidInput, Some("lastName"))
        );
        let no_contact = AccountFields { email: None, mobile: None, ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_contact, None, &[])),
            (ErrorKey::EmailOrMobileIssue, Some("contact"))
        );
    }

    #[test]
    fn drivers_get_their_fleet_and_a_known_car_type_others_neither() {
        // spec §6: new drivers a fleet admin adds get their id as fleetadmin
        let fleet = Some(UserId::from_u128(21));
        let driver = AccountFields {
            carType: Some("Economy".into()),
            vehicleNumber: Some(" MD-1 ".into()),
            ..fields(Role::Driver)
        };
        let user = new_account(UserId::from_u128(5), 0, &driver, fleet, &[economy()]).unwrap();
        assert_eq!(user.fleetadmin, fleet);
        assert_eq!(user.carType.as_deref(), Some("Economy"));
        assert_eq!(user.vehicleNumber, "MD-1");
        let unknown = AccountFields { carType: Some("Limo".into()), ..fields(Role::Driver) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &unknown, fleet, &[economy()])),
            (ErrorKey::InvalidInput, Some("carType"))
        );
        let rider = new_account(UserId::from_u128(6), 0, &fields(Role::Rider), fleet, &[]).unwrap();
        assert_eq!(rider.fleetadmin, None);
        let rider_with_car = AccountFields { carType: Some("Economy".into()), ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(6), 0, &rider_with_car, None, &[economy()])),
            (ErrorKey::InvalidInput, Some("carType"))
        );
    }

    #[test]
    fn an_edit_may_not_change_the_contacts_or_the_type() {
        // spec §5 Admin panel: mobile and e-mail are editable only when adding
        let current = new_account(UserId::from_u128(5), 0, &fields(Role::Driver), None, &[]).unwrap();
        let new_email = AccountFields { email: Some("other@example.com".into()), ..AccountFields::default() };
        assert_eq!(
            failure(edit_account(&admin(), &current, &new_email, &[])),
            (ErrorKey::ContactNotEditable, Some("email"))
        );
        let new_mobile = AccountFields { mobile: Some("+14105550000".into()), ..AccountFields::default() };
        assert_eq!(
            failure(edit_account(&admin(), &current, &new_mobile, &[])),
            (ErrorKey::ContactNotEditable, Some("mobile"))
        );
        let new_type = AccountFields { usertype: Some(Role::Admin), ..AccountFields::default() };
        assert_eq!(failure(edit_account(&admin(), &current, &new_type, &[])), (ErrorKey::NotAllowed, Some("usertype")));
        // Sending back what the table shows is not a change.
        let same = AccountFields { lastName: Some("Dunn".into()), ..fields(Role::Driver) };
        let edited = edit_account(&fleet_admin(), &current, &same, &[]).unwrap();
        assert_eq!(edited.lastName, "Dunn");
        assert_eq!(edited.email, current.email);
        assert_eq!(ErrorKey::ContactNotEditable.kind(), crate::ErrorKind::Forbidden);
    }

    #[test]
    fn nobody_withdraws_their_own_approval() {
        let me = User::new(admin().id, Role::Admin, 0);
        let unapprove = AccountFields { approved: Some(false), ..AccountFields::default() };
        assert_eq!(failure(edit_account(&admin(), &me, &unapprove, &[])), (ErrorKey::NotAllowed, Some("approved")));
        assert_eq!(failure(set_approval(&admin(), &me, false)), (ErrorKey::NotAllowed, Some("approved")));
        let other = User::new(UserId::from_u128(7), Role::Driver, 0);
        assert!(!set_approval(&admin(), &other, false).unwrap().approved);
        assert!(set_approval(&admin(), &other, true).unwrap().approved);
    }

    #[test]
    fn only_admins_choose_a_drivers_fleet_and_only_a_fleet_admin_owns_one() {
        let owner = User::new(UserId::from_u128(21), Role::Fleetadmin, 0);
        let rider = User::new(UserId::from_u128(1), Role::Rider, 0);
        assert!(check_fleet_choice(&admin(), Role::Driver, Some(&owner)).is_ok());
        assert_eq!(
            failure(check_fleet_choice(&fleet_admin(), Role::Driver, Some(&owner))),
            (ErrorKey::NotAllowed, Some("fleetadmin"))
        );
        assert_eq!(
            failure(check_fleet_choice(&admin(), Role::Rider, Some(&owner))),
            (ErrorKey::InvalidInput, Some("fleetadmin"))
        );
        assert_eq!(
            failure(check_fleet_choice(&admin(), Role::Driver, Some(&rider))),
            (ErrorKey::InvalidInput, Some("fleetadmin"))
        );
        assert_eq!(
            failure(check_fleet_choice(&admin(), Role::Driver, None)),
            (ErrorKey::InvalidInput, Some("fleetadmin"))
        );
    }

    #[test]
    fn account_fields_tell_null_from_missing_for_the_fleet() {
        let missing: AccountFields = serde_json::from_value(json!({})).unwrap();
        assert_eq!(missing.fleetadmin, None);
        let null: AccountFields = serde_json::from_value(json!({ "fleetadmin": null })).unwrap();
        assert_eq!(null.fleetadmin, Some(None));
        let id = UserId::from_u128(21);
        let set: AccountFields = serde_json::from_value(json!({ "fleetadmin": id })).unwrap();
        assert_eq!(set.fleetadmin, Some(Some(id)));
    }

    #[test]
    fn a_profile_keeps_at_least_one_contact() {
        let mut social = User::new(UserId::from_u128(9), Role::Rider, 0);
        social.regType = RegType::Social;
        social.email = "sam@example.com".into();
        social.mobile = "+14105550100".into();
        let clear_email = ProfileUpdate { email: Some(String::new()), ..ProfileUpdate::default() };
        assert_eq!(validate_own_profile(&social, &clear_email).unwrap().email.as_deref(), Some(""));
        let clear_both =
            ProfileUpdate { email: Some(String::new()), mobile: Some(" ".into()), ..ProfileUpdate::default() };
        assert_eq!(failure(validate_own_profile(&social, &clear_both)), (ErrorKey::EmailOrMobileIssue, Some("mobile")));
        social.mobile.clear();
        assert_eq!(failure(validate_own_profile(&social, &clear_email)), (ErrorKey::EmailOrMobileIssue, Some("email")));
    }

    #[test]
    fn a_language_is_a_locale_the_platform_lists() {
        let lang = |locale: &str, date: &str| UserLang { langLocale: locale.into(), dateLocale: date.into() };
        assert_eq!(validate_user_lang(&lang(" ar ", ""), &["en", "ar"]).unwrap(), lang("ar", "ar"));
        assert_eq!(validate_user_lang(&lang("pt-BR", "pt-br"), &[]).unwrap(), lang("pt-BR", "pt-br"));
        assert_eq!(
            failure(validate_user_lang(&lang("fr", "fr"), &["en", "ar"])),
            (ErrorKey::InvalidInput, Some("lang"))
        );
        for bad in ["", "e n", "<script>", "1en", "a-very-long-locale-name"] {
            assert_eq!(
                failure(validate_user_lang(&lang(bad, "en"), &[])),
                (ErrorKey::InvalidInput, Some("lang")),
                "{bad:?}"
            );
        }
    }

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
}
