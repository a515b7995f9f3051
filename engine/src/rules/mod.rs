//! Every input rule (spec §5), filed by subject: what a form or a request
//! may send, as pure functions that answer a normalised value or a
//! `DomainError` with the spec's translation key and, where a form can point
//! at it, the field's name.
//!
//! - `booking`: a booking request (landing page and admin form), the trip,
//!   its date and delivery details; a rating, a chat message, a cancellation
//!   reason.
//! - `contact`: phones and e-mails: the login contact and code, a proper
//!   e-mail, the contacts the existence check looks up.
//! - `profile`: what a user changes on their own profile: names, locked
//!   contacts, bank details, language.
//! - `accounts`: the accounts a manager adds, edits and approves.
//! - `settings`: the settings form, its dispatch knobs and the app info.
//! - `catalogue`: car types with their parcel types, options and
//!   cancellation slabs; the list of cancellation reasons; languages.
//! - `media`: uploaded images.
//!
//! Sign-up (`crate::signup`), promos (`crate::promo`), wallet amounts and
//! entries (`crate::wallet`) and typed amounts (`crate::money`) keep their
//! own modules. These functions only look at what they are given: they never
//! ask whether a user exists, whether a route can be driven or who may do
//! what (that is `permissions`). They never panic, whatever the input;
//! patterns are small hand-written matchers so the crate needs no regex
//! engine.

use crate::error::{DomainError, DomainResult, ErrorKey};

pub mod accounts;
pub mod booking;
pub mod catalogue;
pub mod contact;
pub mod media;
pub mod profile;
pub mod settings;

/// Ours: free text such as a car type's `extra_info` or a driver's `other_info`.
pub const MAX_INFO_CHARS: usize = 500;
/// Ours: a vehicle, bank or parcel field.
pub const MAX_SHORT_TEXT_CHARS: usize = 100;

pub(crate) fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

pub(crate) fn fail<T>(key: ErrorKey, field: &'static str) -> DomainResult<T> {
    Err(DomainError::on_field(key, field))
}

/// The text trimmed, at most `max_chars` characters (`invalid_input` on `field`).
pub(crate) fn text_within(text: &str, max_chars: usize, field: &'static str) -> DomainResult<String> {
    let text = text.trim();
    if text.chars().count() > max_chars {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(text.to_string())
}

/// Fixtures the rules' tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::error::{DomainResult, ErrorKey};
    use crate::ids::{CarTypeId, UserId};
    use crate::model::{AmountType, CarType, Role, User};
    use rust_decimal_macros::dec;

    pub(crate) fn key_of<T: std::fmt::Debug>(result: DomainResult<T>) -> ErrorKey {
        result.unwrap_err().key
    }

    pub(crate) fn failure<T: std::fmt::Debug>(result: DomainResult<T>) -> (ErrorKey, Option<&'static str>) {
        let error = result.unwrap_err();
        (error.key, error.field)
    }

    pub(crate) fn rider(mobile: &str) -> User {
        let mut user = User::new(UserId::from_u128(7), Role::Rider, 0);
        user.firstName = "Jane".into();
        user.lastName = "Doe".into();
        user.email = "jane@example.com".into();
        user.mobile = mobile.into();
        user
    }

    pub(crate) fn economy() -> CarType {
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
}
