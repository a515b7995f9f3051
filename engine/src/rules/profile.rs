//! What a user changes on their own profile (spec §2 "Profile", §5
//! "Profile", §7 updateProfile): names, the e-mail and phone (locked by how
//! the account was made), bank details, and the language they pick.

use super::contact::{comparable_phone, proper_phone, same_email, validate_email};
use super::fail;
use crate::error::{DomainResult, ErrorKey};
use crate::model::{RegType, User, UserLang};
use serde::{Deserialize, Serialize};

/// Ours: a first or last name.
pub const MAX_NAME_CHARS: usize = 100;
/// Ours: a locale code such as `en`, `pt-BR` or `zh_Hant_TW`.
pub const MAX_LOCALE_CHARS: usize = 16;

/// The e-mail is fixed when the account was made by e-mail, by an admin or
/// through registration (spec §2 "Profile").
pub fn email_locked(reg_type: RegType) -> bool {
    matches!(reg_type, RegType::Email | RegType::Admin | RegType::Registration)
}

/// The phone is fixed when the account was made by mobile, by an admin or
/// through registration (spec §2 "Profile").
pub fn phone_locked(reg_type: RegType) -> bool {
    matches!(reg_type, RegType::Mobile | RegType::Admin | RegType::Registration)
}

/// The fields a user may change on their own profile; `None` leaves one as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[allow(non_snake_case)]
pub struct ProfileUpdate {
    pub firstName: Option<String>,
    pub lastName: Option<String>,
    pub email: Option<String>,
    pub mobile: Option<String>,
    /// Where a withdrawal is paid (spec §3 "Withdraw request"); any text,
    /// trimmed, or empty.
    pub bankName: Option<String>,
    pub bankCode: Option<String>,
    pub bankAccount: Option<String>,
}

/// The most characters a bank detail may have.
pub const MAX_BANK_CHARS: usize = 64;

fn check_bank_detail(text: &str, field: &'static str) -> DomainResult<String> {
    let text = text.trim();
    if text.chars().count() > MAX_BANK_CHARS || text.chars().any(char::is_control) {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(text.to_string())
}

/// Checks a profile update against the user it changes and returns it
/// normalised (names trimmed, e-mail lower-cased, phone digits).
///
/// - A name may not be blank (`profile_incomplete`, as booking would refuse
///   it later) nor longer than [`MAX_NAME_CHARS`] (`invalid_input`).
/// - Changing a locked e-mail or phone is `field_locked` (403) on that field:
///   a key of ours, clearer than the spec's generic `update_failed`. Sending the
///   same value again (in any case or spacing) is not a change.
/// - An unlocked e-mail may be cleared or must be proper (`proper_email`); an
///   unlocked phone may be cleared or needs 7 to 15 digits
///   (`mobile_no_blank_error`).
pub fn validate_profile_update(current: &User, update: &ProfileUpdate) -> DomainResult<ProfileUpdate> {
    let first_name = update.firstName.as_deref().map(|name| check_name(name, "firstName")).transpose()?;
    let last_name = update.lastName.as_deref().map(|name| check_name(name, "lastName")).transpose()?;
    let email = update.email.as_deref().map(|email| check_profile_email(current, email)).transpose()?;
    let mobile = update.mobile.as_deref().map(|mobile| check_profile_mobile(current, mobile)).transpose()?;
    let bank = |text: &Option<String>, field| text.as_deref().map(|text| check_bank_detail(text, field)).transpose();
    Ok(ProfileUpdate {
        firstName: first_name,
        lastName: last_name,
        email,
        mobile,
        bankName: bank(&update.bankName, "bankName")?,
        bankCode: bank(&update.bankCode, "bankCode")?,
        bankAccount: bank(&update.bankAccount, "bankAccount")?,
    })
}

/// A person's first or last name: not blank (`profile_incomplete`), at most
/// [`MAX_NAME_CHARS`] characters (`invalid_input`). Returns it trimmed. The
/// one name rule: accounts and sign-up build on it.
pub(crate) fn check_name(name: &str, field: &'static str) -> DomainResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return fail(ErrorKey::ProfileIncomplete, field);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(name.to_string())
}

fn check_profile_email(current: &User, email: &str) -> DomainResult<String> {
    let wanted = email.trim().to_ascii_lowercase();
    if same_email(&wanted, &current.email) {
        return Ok(wanted);
    }
    if email_locked(current.regType) {
        return fail(ErrorKey::FieldLocked, "email");
    }
    if wanted.is_empty() {
        return Ok(wanted);
    }
    validate_email(&wanted)
}

fn check_profile_mobile(current: &User, mobile: &str) -> DomainResult<String> {
    let wanted = mobile.trim();
    if comparable_phone(wanted) == comparable_phone(&current.mobile) {
        return Ok(comparable_phone(wanted));
    }
    if phone_locked(current.regType) {
        return fail(ErrorKey::FieldLocked, "mobile");
    }
    if wanted.is_empty() {
        return Ok(String::new());
    }
    match proper_phone(wanted) {
        Some(phone) => Ok(phone),
        None => fail(ErrorKey::MobileNoBlankError, "mobile"),
    }
}

/// A profile update as [`validate_profile_update`] checks it
/// (names, locked and proper contacts), and one more rule: an account keeps
/// at least one contact, since that is how its owner signs in
/// (`email_or_mobile_issue`, on the field cleared last).
pub fn validate_own_profile(current: &User, update: &ProfileUpdate) -> DomainResult<ProfileUpdate> {
    let checked = validate_profile_update(current, update)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::UserId;
    use crate::model::Role;
    use crate::rules::test_support::*;

    #[test]
    fn email_and_phone_lock_by_registration_type() {
        // spec §2 Profile: e-mail locked for email, admin, registration; phone for mobile, admin, registration
        let cases = [
            (RegType::Email, true, false),
            (RegType::Mobile, false, true),
            (RegType::Social, false, false),
            (RegType::Admin, true, true),
            (RegType::Registration, true, true),
        ];
        for (reg_type, email, phone) in cases {
            assert_eq!(email_locked(reg_type), email, "{reg_type:?}");
            assert_eq!(phone_locked(reg_type), phone, "{reg_type:?}");
        }
    }

    fn account(reg_type: RegType) -> User {
        let mut user = rider("+44 7700 900123");
        user.regType = reg_type;
        user.email = "Jane@Example.com".into();
        user
    }

    #[test]
    fn changing_a_locked_field_is_field_locked() {
        // spec §2 Profile: locked e-mail and phone
        let by_email = ProfileUpdate { email: Some("other@example.com".into()), ..Default::default() };
        let by_phone = ProfileUpdate { mobile: Some("+44 7700 900999".into()), ..Default::default() };
        assert_eq!(
            failure(validate_profile_update(&account(RegType::Email), &by_email)),
            (ErrorKey::FieldLocked, Some("email"))
        );
        assert_eq!(
            failure(validate_profile_update(&account(RegType::Mobile), &by_phone)),
            (ErrorKey::FieldLocked, Some("mobile"))
        );
        assert_eq!(ErrorKey::FieldLocked.kind(), crate::ErrorKind::Forbidden);
        assert!(validate_profile_update(&account(RegType::Mobile), &by_email).is_ok());
        assert!(validate_profile_update(&account(RegType::Email), &by_phone).is_ok());
    }

    #[test]
    fn resending_a_locked_field_unchanged_is_not_a_change() {
        let same = ProfileUpdate {
            email: Some(" jane@example.COM".into()),
            mobile: Some("+447700900123".into()),
            ..Default::default()
        };
        let checked = validate_profile_update(&account(RegType::Admin), &same).unwrap();
        assert_eq!(checked.email.as_deref(), Some("jane@example.com"));
        assert_eq!(checked.mobile.as_deref(), Some("+447700900123"));
    }

    #[test]
    fn an_unlocked_email_or_phone_must_be_proper_or_cleared() {
        // spec §5 Profile: 'proper_email'; §5 Login phone rule
        let social = account(RegType::Social);
        let bad_email = ProfileUpdate { email: Some("nope".into()), ..Default::default() };
        let bad_phone = ProfileUpdate { mobile: Some("12345".into()), ..Default::default() };
        assert_eq!(failure(validate_profile_update(&social, &bad_email)), (ErrorKey::ProperEmail, Some("email")));
        assert_eq!(
            failure(validate_profile_update(&social, &bad_phone)),
            (ErrorKey::MobileNoBlankError, Some("mobile"))
        );
        let cleared = ProfileUpdate { email: Some(" ".into()), mobile: Some(String::new()), ..Default::default() };
        let checked = validate_profile_update(&social, &cleared).unwrap();
        assert_eq!((checked.email.as_deref(), checked.mobile.as_deref()), (Some(""), Some("")));
    }

    #[test]
    fn names_are_trimmed_and_may_not_be_blank_or_overlong() {
        let user = account(RegType::Social);
        let update = ProfileUpdate { firstName: Some("  Ann ".into()), lastName: None, ..Default::default() };
        assert_eq!(validate_profile_update(&user, &update).unwrap().firstName.as_deref(), Some("Ann"));
        let blank = ProfileUpdate { lastName: Some(" ".into()), ..Default::default() };
        assert_eq!(failure(validate_profile_update(&user, &blank)), (ErrorKey::ProfileIncomplete, Some("lastName")));
        let long = ProfileUpdate { firstName: Some("n".repeat(MAX_NAME_CHARS + 1)), ..Default::default() };
        assert_eq!(failure(validate_profile_update(&user, &long)), (ErrorKey::InvalidInput, Some("firstName")));
    }

    #[test]
    fn bank_details_are_trimmed_and_refused_when_overlong_or_with_control_characters() {
        let user = account(RegType::Mobile);
        let update = ProfileUpdate {
            bankName: Some(" First Bank ".into()),
            bankAccount: Some(String::new()),
            ..Default::default()
        };
        let checked = validate_profile_update(&user, &update).unwrap();
        assert_eq!(
            (checked.bankName.as_deref(), checked.bankCode.as_deref(), checked.bankAccount.as_deref()),
            (Some("First Bank"), None, Some(""))
        );
        let long = ProfileUpdate { bankCode: Some("1".repeat(MAX_BANK_CHARS + 1)), ..Default::default() };
        assert_eq!(failure(validate_profile_update(&user, &long)), (ErrorKey::InvalidInput, Some("bankCode")));
        let control = ProfileUpdate { bankAccount: Some("44\n00".into()), ..Default::default() };
        assert_eq!(failure(validate_profile_update(&user, &control)), (ErrorKey::InvalidInput, Some("bankAccount")));
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
}
