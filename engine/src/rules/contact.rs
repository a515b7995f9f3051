//! Phones and e-mails (spec §5 "Login", "Profile" and "Admin panel"): the
//! sign-in contact and code, a proper e-mail, a recipient's phone, and the
//! contacts the existence check looks up. Each phone or e-mail rule is
//! stated here once; the other subjects call it.

use super::{fail, is_blank};
use crate::error::{DomainError, DomainResult, ErrorKey};
use serde::{Deserialize, Serialize};

/// Spec §9: the sign-in code has 6 characters.
pub const SIGN_IN_CODE_LEN: usize = 6;
/// Spec §9: a phone is "more than 6" digits once spaces are gone.
pub const MIN_PHONE_DIGITS: usize = 7;
/// E.164 allows at most 15 digits; longer is not a phone number.
pub const MAX_PHONE_DIGITS: usize = 15;
/// Spec §9: the delivery phone pattern needs at least 7 characters.
pub const MIN_DELIVERY_PHONE_CHARS: usize = 7;
/// RFC 5321 limits: a whole address and its local part.
pub const MAX_EMAIL_CHARS: usize = 254;
pub const MAX_EMAIL_LOCAL_CHARS: usize = 64;

/// A sign-in contact, normalised: e-mail trimmed and lower-cased, phone as
/// digits with an optional leading `+`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "value")]
pub enum Contact {
    Email(String),
    Phone(String),
}

impl Contact {
    pub fn as_str(&self) -> &str {
        match self {
            Contact::Email(email) => email,
            Contact::Phone(phone) => phone,
        }
    }

    pub fn is_email(&self) -> bool {
        matches!(self, Contact::Email(_))
    }
}

/// Checks the login contact field (spec §5 "Login"), in the spec's order:
/// country when country selection is on (`country_blank_error`), then a
/// contact at all (`contact_input_error`). A numeric contact is a phone and
/// needs more than 6 digits (`mobile_no_blank_error`); anything else is an
/// e-mail (`proper_email`).
///
/// "Numeric" means digits with an optional leading `+`, once spaces and the
/// usual separators `-`, `(`, `)` and `.` are removed: people type
/// `(555) 123-4567` and should not be told it is a bad e-mail. More than
/// [`MAX_PHONE_DIGITS`] digits is not a phone (`mobile_no_blank_error`).
pub fn validate_login_contact(contact: &str, country: Option<&str>, country_required: bool) -> DomainResult<Contact> {
    if country_required && country.is_none_or(is_blank) {
        return fail(ErrorKey::CountryBlankError, "country");
    }
    let contact = contact.trim();
    if contact.is_empty() {
        return fail(ErrorKey::ContactInputError, "contact");
    }
    if let Some(phone) = normalise_phone(contact) {
        return if phone_digit_count_ok(&phone) {
            Ok(Contact::Phone(phone))
        } else {
            fail(ErrorKey::MobileNoBlankError, "contact")
        };
    }
    match normalise_email(contact) {
        Some(email) => Ok(Contact::Email(email)),
        None => fail(ErrorKey::ProperEmail, "contact"),
    }
}

/// Digits with an optional leading `+`, separators removed; `None` when the
/// text is not numeric (other characters, a `+` elsewhere, or no digit).
pub fn normalise_phone(text: &str) -> Option<String> {
    let mut phone = String::with_capacity(text.len());
    for character in text.trim().chars() {
        match character {
            '0'..='9' => phone.push(character),
            '+' if phone.is_empty() => phone.push('+'),
            ' ' | '\t' | '-' | '(' | ')' | '.' => {}
            _ => return None,
        }
    }
    phone.chars().any(|character| character.is_ascii_digit()).then_some(phone)
}

fn phone_digit_count_ok(phone: &str) -> bool {
    let digits = phone.chars().filter(char::is_ascii_digit).count();
    (MIN_PHONE_DIGITS..=MAX_PHONE_DIGITS).contains(&digits)
}

/// A phone of [`MIN_PHONE_DIGITS`] to [`MAX_PHONE_DIGITS`] digits, as
/// [`normalise_phone`] writes it; `None` for anything else. Each caller
/// answers with its own error key.
pub fn proper_phone(text: &str) -> Option<String> {
    normalise_phone(text).filter(|phone| phone_digit_count_ok(phone))
}

/// A phone in the form two phones compare in: normalised when numeric, else
/// only trimmed (a stored value that was never a phone), so the same number
/// sent again in another spacing is not a change.
pub fn comparable_phone(text: &str) -> String {
    normalise_phone(text).unwrap_or_else(|| text.trim().to_string())
}

/// The sign-in code: exactly 6 digits (`otp_validate_error`). Surrounding
/// whitespace from a paste is forgiven; the trimmed code is returned.
pub fn validate_sign_in_code(code: &str) -> DomainResult<&str> {
    let code = code.trim();
    if code.len() == SIGN_IN_CODE_LEN && code.bytes().all(|byte| byte.is_ascii_digit()) {
        Ok(code)
    } else {
        fail(ErrorKey::OtpValidateError, "code")
    }
}

/// Whether two e-mails are the same address: trimmed, in any case.
pub fn same_email(one: &str, other: &str) -> bool {
    one.trim().eq_ignore_ascii_case(other.trim())
}

/// Checks an e-mail address (`proper_email` on field `email`) and returns it
/// trimmed and lower-cased.
///
/// The spec's shape is letters/digits, `@`, letters/digits, dot, letters. We
/// also allow what real addresses use: `.`, `_`, `-` and `+` in the local part
/// (a dot never first, last or doubled), and several dot-separated domain
/// labels with inner hyphens. Letters are ASCII only; internationalised addresses are
/// refused rather than half-supported.
pub fn validate_email(text: &str) -> DomainResult<String> {
    normalise_email(text).ok_or_else(|| DomainError::on_field(ErrorKey::ProperEmail, "email"))
}

fn normalise_email(text: &str) -> Option<String> {
    let email = text.trim().to_ascii_lowercase();
    is_email(&email).then_some(email)
}

fn is_email(email: &str) -> bool {
    if email.len() > MAX_EMAIL_CHARS {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    is_email_local_part(local) && is_email_domain(domain)
}

fn is_email_local_part(local: &str) -> bool {
    let allowed = |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-' | b'+');
    !local.is_empty()
        && local.len() <= MAX_EMAIL_LOCAL_CHARS
        && local.bytes().all(allowed)
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
}

fn is_email_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let Some(top_level) = labels.last() else {
        return false;
    };
    let label_ok = |label: &&str| {
        !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    labels.len() >= 2
        && labels.iter().all(label_ok)
        && top_level.len() >= 2
        && top_level.bytes().all(|byte| byte.is_ascii_alphabetic())
}

/// The spec's pattern: digits, spaces and dashes, at least 7 characters.
/// Two deliberate widenings: a leading `+` is allowed (international numbers,
/// as the login accepts), and "longer than 6" is counted in digits, so a run
/// of dashes is not a phone.
pub(super) fn is_delivery_phone(phone: &str) -> bool {
    let body = phone.strip_prefix('+').unwrap_or(phone);
    let pattern_ok = body.chars().all(|character| character.is_ascii_digit() || character == ' ' || character == '-');
    let digits = body.chars().filter(char::is_ascii_digit).count();
    pattern_ok && phone.chars().count() >= MIN_DELIVERY_PHONE_CHARS && digits >= MIN_PHONE_DIGITS
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
        validate_email(email).map_err(|_| DomainError::on_field(ErrorKey::EmailOrMobileIssue, "email"))?
    };
    let mobile = if mobile.is_empty() {
        String::new()
    } else {
        match proper_phone(mobile) {
            Some(phone) => phone,
            None => return fail(ErrorKey::EmailOrMobileIssue, "mobile"),
        }
    };
    Ok(Contacts { email, mobile })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn the_country_is_required_when_country_selection_is_on() {
        // spec §5 Login: country required ('country_blank_error')
        for country in [None, Some(""), Some("  ")] {
            assert_eq!(
                failure(validate_login_contact("jane@example.com", country, true)),
                (ErrorKey::CountryBlankError, Some("country"))
            );
        }
        assert!(validate_login_contact("jane@example.com", Some("GB"), true).is_ok());
        assert!(validate_login_contact("jane@example.com", None, false).is_ok());
    }

    #[test]
    fn the_contact_is_required() {
        // spec §5 Login: contact required ('contact_input_error')
        for contact in ["", "   "] {
            assert_eq!(
                failure(validate_login_contact(contact, None, false)),
                (ErrorKey::ContactInputError, Some("contact"))
            );
        }
    }

    #[test]
    fn an_email_contact_is_trimmed_and_lower_cased() {
        // spec §5 Login: a non-numeric contact is an e-mail
        assert_eq!(
            validate_login_contact("  Jane.Doe+Rides@Example.COM ", None, false).unwrap(),
            Contact::Email("jane.doe+rides@example.com".into())
        );
    }

    #[test]
    fn a_non_numeric_contact_that_is_not_an_email_is_proper_email() {
        // spec §5 Login: must match a standard e-mail pattern ('proper_email')
        for contact in
            ["jane", "jane@", "@example.com", "jane@example", "jane@@example.com", "555-CALL-NOW", "+44+1234567"]
        {
            assert_eq!(
                failure(validate_login_contact(contact, None, false)),
                (ErrorKey::ProperEmail, Some("contact")),
                "{contact:?}"
            );
        }
    }

    #[test]
    fn a_phone_contact_keeps_only_digits_and_a_leading_plus() {
        // spec §5 Login: numeric contact with spaces removed
        let phone = |text| validate_login_contact(text, None, false).unwrap();
        assert_eq!(phone("+44 20 7946 0958"), Contact::Phone("+442079460958".into()));
        assert_eq!(phone("(555) 123-4567"), Contact::Phone("5551234567".into()));
        assert_eq!(phone("1234567"), Contact::Phone("1234567".into()));
    }

    #[test]
    fn a_phone_needs_more_than_six_digits() {
        // spec §5 Login, §9: longer than 6 digits ('mobile_no_blank_error')
        for contact in ["123456", "+1 234 56", "12 34 56", "1234567890123456"] {
            assert_eq!(
                failure(validate_login_contact(contact, None, false)),
                (ErrorKey::MobileNoBlankError, Some("contact")),
                "{contact:?}"
            );
        }
    }

    #[test]
    fn the_sign_in_code_is_exactly_six_digits() {
        // spec §5 Login, §9: exactly 6 characters ('otp_validate_error')
        assert_eq!(validate_sign_in_code("012345").unwrap(), "012345");
        assert_eq!(validate_sign_in_code(" 987654\n").unwrap(), "987654");
        for code in ["", "12345", "1234567", "12a456", "12 456", "١٢٣٤٥٦"] {
            assert_eq!(failure(validate_sign_in_code(code)), (ErrorKey::OtpValidateError, Some("code")), "{code:?}");
        }
    }

    #[test]
    fn contacts_serialise_with_their_kind() {
        let json = serde_json::to_value(Contact::Phone("+15551234567".into())).unwrap();
        assert_eq!(json, json!({"kind": "phone", "value": "+15551234567"}));
        assert!(Contact::Email("a@b.co".into()).is_email());
        assert_eq!(Contact::Email("a@b.co".into()).as_str(), "a@b.co");
    }

    #[test]
    fn the_same_contact_in_another_spelling_is_the_same() {
        // profile and account edits: sending a contact back unchanged is not a change
        assert!(same_email(" Jane@Example.com", "jane@example.COM "));
        assert!(!same_email("jane@example.com", "jane@example.org"));
        assert_eq!(comparable_phone("+44 7700 900123"), comparable_phone("+447700900123"));
        assert_eq!(comparable_phone(" not a phone "), "not a phone");
        assert_eq!(proper_phone("(410) 555-0199").as_deref(), Some("4105550199"));
        assert_eq!(proper_phone("12345"), None);
        assert_eq!(proper_phone("jane@example.com"), None);
    }

    #[test]
    fn usual_email_addresses_are_proper() {
        // spec §5 Profile: letters/digits, @, letters/digits, dot, letters
        for email in ["a@b.co", "jane.doe@mail.example.com", "j_d-x+tag@my-host.org", "J9@EXAMPLE.IO"] {
            assert!(validate_email(email).is_ok(), "{email:?}");
        }
    }

    #[test]
    fn malformed_email_addresses_are_refused() {
        // spec §5 Profile: else 'proper_email'
        let long_local = format!("{}@example.com", "a".repeat(65));
        let long_total = format!("a@{}.com", "b.".repeat(130));
        for email in [
            "",
            "plain",
            "a@b",
            "a@b.c",
            "a@b.c0m",
            ".a@b.com",
            "a.@b.com",
            "a..b@c.com",
            "a b@c.com",
            "a@-b.com",
            "a@b-.com",
            "a@b..com",
            "a@.com",
            "ä@b.com",
            "a@b.com.",
            "a\"b@c.com",
            long_local.as_str(),
            long_total.as_str(),
        ] {
            assert_eq!(failure(validate_email(email)), (ErrorKey::ProperEmail, Some("email")), "{email:?}");
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

    proptest! {
        #[test]
        fn validate_login_contact_never_panics(contact in any::<String>(), country in proptest::option::of(any::<String>())) {
            // spec §5 Login: any input gets an answer, never a crash
            let _ = validate_login_contact(&contact, country.as_deref(), true);
            let _ = validate_login_contact(&contact, None, false);
        }

        #[test]
        fn a_normalised_phone_is_digits_with_an_optional_leading_plus(contact in "[ +()0-9.-]{0,24}") {
            // spec §5 Login: numeric contact with spaces removed
            if let Ok(Contact::Phone(phone)) = validate_login_contact(&contact, None, false) {
                let digits = phone.strip_prefix('+').unwrap_or(&phone);
                prop_assert!(digits.bytes().all(|byte| byte.is_ascii_digit()));
                prop_assert!(digits.len() >= MIN_PHONE_DIGITS && digits.len() <= MAX_PHONE_DIGITS);
            }
        }

        #[test]
        fn a_normalised_email_is_lower_case_trimmed_and_still_valid(
            local in "[A-Za-z0-9]{1,10}([._+-][A-Za-z0-9]{1,5})?",
            domain in "[A-Za-z0-9]{1,10}(-[A-Za-z0-9]{1,5})?",
            top_level in "[A-Za-z]{2,6}",
        ) {
            let typed = format!("  {local}@{domain}.{top_level} ");
            let email = validate_email(&typed).unwrap();
            prop_assert_eq!(&email, &typed.trim().to_ascii_lowercase());
            prop_assert_eq!(validate_email(&email).unwrap(), email);
        }


        #[test]
        fn free_text_validators_never_panic(text in any::<String>()) {
            let _ = validate_email(&text);
            let _ = validate_sign_in_code(&text);
        }
    }
}
