//! Every input rule of spec §5 as a pure function: bookings (landing page and
//! admin form), login contact and code, profile e-mail and locked fields,
//! the settings form, wallet amounts, language JSON, images, ratings, chat and
//! cancellation reasons. Each failure is a `DomainError` with the spec's
//! translation key and, where a form can point at it, the field's name.
//!
//! These functions only look at what they are given: they never ask whether a
//! user exists, whether a route can be driven or who may do what (that is
//! `permissions`). They never panic, whatever the input; patterns are small
//! hand-written matchers so the crate needs no regex engine.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::UserId;
use crate::model::{AppCategory, CarType, MINUTE_MS, Millis, Place, PricedChoice, RegType, Role, Settings, User};
use crate::money;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::str::FromStr;

/// Spec §9: a Book Later trip is at least 15 minutes away.
pub const BOOK_LATER_MIN_LEAD_MS: Millis = 15 * MINUTE_MS;
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
/// Ours: a first or last name.
pub const MAX_NAME_CHARS: usize = 100;
/// Ours: a chat message.
pub const CHAT_MESSAGE_MAX_CHARS: usize = 2_000;
/// Ours: a cancellation reason, or pickup and delivery instructions.
pub const MAX_NOTE_CHARS: usize = 500;
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

fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

fn fail<T>(key: ErrorKey, field: &'static str) -> DomainResult<T> {
    Err(DomainError::on_field(key, field))
}

// ---------------------------------------------------------------------------
// Booking (spec §5 "Booking", §4 "Landing booking flow" and "Add booking flow")
// ---------------------------------------------------------------------------

/// Where a booking request comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BookingChannel<'a> {
    /// The public landing page: only a rider, booking for themself.
    Landing,
    /// The admin add-booking form, booking for the rider chosen in it.
    AdminForm { rider: Option<&'a User> },
}

/// The parts of the booker's profile the landing page checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileNames<'a> {
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub email: &'a str,
}

impl<'a> From<&'a User> for ProfileNames<'a> {
    fn from(user: &'a User) -> Self {
        ProfileNames { first_name: &user.firstName, last_name: &user.lastName, email: &user.email }
    }
}

/// The four extra fields of a delivery booking (spec §2 "Landing page").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
#[allow(non_snake_case)]
pub struct DeliveryDetails {
    pub deliveryPerson: String,
    pub deliveryPersonPhone: String,
    pub pickUpInstructions: String,
    pub deliveryInstructions: String,
}

/// What the booking form chose: the route and the car type, and for delivery
/// the parcel type and option (indexes into the car type's lists).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TripRequest<'a> {
    pub pickup: Option<&'a Place>,
    pub drop: Option<&'a Place>,
    /// The car type the request named, looked up by the caller; `None` when
    /// none was named or the name is unknown.
    pub car_type: Option<&'a CarType>,
    pub parcel_type_index: Option<usize>,
    pub option_index: Option<usize>,
}

/// A trip choice that passed: everything present and in range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TripChoice<'a> {
    pub pickup: &'a Place,
    pub drop: &'a Place,
    pub car_type: &'a CarType,
    pub parcel_type: Option<&'a PricedChoice>,
    pub option: Option<&'a PricedChoice>,
}

/// A booking request as the server receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingRequest<'a> {
    pub channel: BookingChannel<'a>,
    /// The signed-in user's role; `None` is a visitor who is not logged in.
    pub booker_role: Option<Role>,
    /// The signed-in user's profile; `None` when the account has none.
    pub booker_profile: Option<ProfileNames<'a>>,
    /// The booking's category (the platform's `appcat`).
    pub category: AppCategory,
    pub trip: TripRequest<'a>,
    pub book_later: bool,
    pub trip_date: Option<Millis>,
    /// Read only for delivery bookings.
    pub delivery: &'a DeliveryDetails,
}

/// A booking request that passed every rule of spec §5.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedBooking<'a> {
    pub trip: TripChoice<'a>,
    /// `now` for Book Now, the chosen date for Book Later.
    pub tripdate: Millis,
    /// Trimmed delivery details; `None` for taxi bookings.
    pub delivery: Option<DeliveryDetails>,
}

/// Checks a booking request in the order the landing page does (spec §4):
/// signed in, allowed to book, profile complete, trip chosen, date, delivery.
///
/// On the landing page a signed-in user who is not a rider gets `not_allowed`
/// (403): the spec only says such users may not proceed, and
/// `not_valid_user_type` would make the client sign them out. On the admin
/// form the booker must be an admin; the rider chosen there must exist
/// (`select_proper`) and have a mobile number (`incomplete_user`), and the
/// admin's own profile is not checked. Blank, not only "a single space",
/// counts as an incomplete profile.
pub fn validate_booking<'a>(request: &BookingRequest<'a>, now: Millis) -> DomainResult<CheckedBooking<'a>> {
    let Some(role) = request.booker_role else {
        return Err(ErrorKey::MustLogin.into());
    };
    match request.channel {
        BookingChannel::Landing => {
            if role != Role::Rider {
                return Err(ErrorKey::NotAllowed.into());
            }
            let Some(profile) = request.booker_profile else {
                return Err(ErrorKey::UserIssueContactAdmin.into());
            };
            check_profile_complete(profile)?;
        }
        BookingChannel::AdminForm { rider } => {
            if role != Role::Admin {
                return Err(ErrorKey::NotAllowed.into());
            }
            let Some(rider) = rider.filter(|rider| rider.usertype == Role::Rider) else {
                return fail(ErrorKey::SelectProper, "customer");
            };
            if is_blank(&rider.mobile) {
                return fail(ErrorKey::IncompleteUser, "customer");
            }
        }
    }
    let trip = validate_trip(&request.trip, request.category)?;
    let tripdate = validate_trip_date(request.book_later, request.trip_date, now)?;
    let delivery = match request.category {
        AppCategory::Taxi => None,
        AppCategory::Delivery => Some(validate_delivery_details(request.delivery)?),
    };
    Ok(CheckedBooking { trip, tripdate, delivery })
}

fn check_profile_complete(profile: ProfileNames<'_>) -> DomainResult<()> {
    for (value, field) in [(profile.first_name, "firstName"), (profile.last_name, "lastName"), (profile.email, "email")]
    {
        if is_blank(value) {
            return fail(ErrorKey::ProfileIncomplete, field);
        }
    }
    Ok(())
}

/// Pickup, drop and car type chosen (`select_proper`), shared by the estimate
/// and the booking. Coordinates out of range count as not chosen.
///
/// For delivery, when the car type lists parcel types or options one must be
/// chosen, and an index must lie in its list (`select_proper`); the original
/// chooser always had one selected. For taxi the indexes are ignored, as the
/// delivery-only fields are hidden there (spec §1).
pub fn validate_trip<'a>(request: &TripRequest<'a>, category: AppCategory) -> DomainResult<TripChoice<'a>> {
    let Some(pickup) = request.pickup.filter(|place| place.point().is_valid()) else {
        return fail(ErrorKey::SelectProper, "pickup");
    };
    let Some(drop) = request.drop.filter(|place| place.point().is_valid()) else {
        return fail(ErrorKey::SelectProper, "drop");
    };
    let Some(car_type) = request.car_type else {
        return fail(ErrorKey::SelectProper, "carType");
    };
    let (parcel_type, option) = match category {
        AppCategory::Taxi => (None, None),
        AppCategory::Delivery => (
            pick_choice(&car_type.parcelTypes, request.parcel_type_index, "parcelTypeIndex")?,
            match request.option_index {
                None if !car_type.optionRequired => None,
                index => pick_choice(&car_type.options, index, "optionIndex")?,
            },
        ),
    };
    Ok(TripChoice { pickup, drop, car_type, parcel_type, option })
}

fn pick_choice<'a>(
    choices: &'a [PricedChoice],
    index: Option<usize>,
    field: &'static str,
) -> DomainResult<Option<&'a PricedChoice>> {
    match index {
        None if choices.is_empty() => Ok(None),
        None => fail(ErrorKey::SelectProper, field),
        Some(index) => match choices.get(index) {
            Some(choice) => Ok(Some(choice)),
            None => fail(ErrorKey::SelectProper, field),
        },
    }
}

/// Book Now is `now`; Book Later needs a date (`select_proper`) at least
/// [`BOOK_LATER_MIN_LEAD_MS`] after `now` (`past_booking_error`).
pub fn validate_trip_date(book_later: bool, trip_date: Option<Millis>, now: Millis) -> DomainResult<Millis> {
    if !book_later {
        return Ok(now);
    }
    let Some(trip_date) = trip_date else {
        return fail(ErrorKey::SelectProper, "tripdate");
    };
    if trip_date < now.saturating_add(BOOK_LATER_MIN_LEAD_MS) {
        return fail(ErrorKey::PastBookingError, "tripdate");
    }
    Ok(trip_date)
}

/// Delivery person non-blank and a plausible recipient phone, else
/// `deliveryDetailMissing` (spec §5). Instructions are optional, at most
/// [`MAX_NOTE_CHARS`] each (`invalid_input`). Returns the details trimmed.
pub fn validate_delivery_details(details: &DeliveryDetails) -> DomainResult<DeliveryDetails> {
    let person = details.deliveryPerson.trim();
    if person.is_empty() {
        return fail(ErrorKey::DeliveryDetailMissing, "deliveryPerson");
    }
    let phone = details.deliveryPersonPhone.trim();
    if !is_delivery_phone(phone) {
        return fail(ErrorKey::DeliveryDetailMissing, "deliveryPersonPhone");
    }
    let pickup_instructions = details.pickUpInstructions.trim();
    if pickup_instructions.chars().count() > MAX_NOTE_CHARS {
        return fail(ErrorKey::InvalidInput, "pickUpInstructions");
    }
    let delivery_instructions = details.deliveryInstructions.trim();
    if delivery_instructions.chars().count() > MAX_NOTE_CHARS {
        return fail(ErrorKey::InvalidInput, "deliveryInstructions");
    }
    Ok(DeliveryDetails {
        deliveryPerson: person.to_string(),
        deliveryPersonPhone: phone.to_string(),
        pickUpInstructions: pickup_instructions.to_string(),
        deliveryInstructions: delivery_instructions.to_string(),
    })
}

/// The spec's pattern: digits, spaces and dashes, at least 7 characters.
/// Two deliberate widenings: a leading `+` is allowed (international numbers,
/// as the login accepts), and "longer than 6" is counted in digits, so a run
/// of dashes is not a phone.
fn is_delivery_phone(phone: &str) -> bool {
    let body = phone.strip_prefix('+').unwrap_or(phone);
    let pattern_ok = body.chars().all(|character| character.is_ascii_digit() || character == ' ' || character == '-');
    let digits = body.chars().filter(char::is_ascii_digit).count();
    pattern_ok && phone.chars().count() >= MIN_DELIVERY_PHONE_CHARS && digits >= MIN_PHONE_DIGITS
}

// ---------------------------------------------------------------------------
// Login (spec §5 "Login")
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// E-mail and profile (spec §5 "Profile", §2 "Profile")
// ---------------------------------------------------------------------------

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

fn check_name(name: &str, field: &'static str) -> DomainResult<String> {
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
    let existing = current.email.trim().to_ascii_lowercase();
    if wanted == existing {
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
    let comparable = |text: &str| normalise_phone(text).unwrap_or_else(|| text.trim().to_string());
    if comparable(wanted) == comparable(&current.mobile) {
        return Ok(comparable(wanted));
    }
    if phone_locked(current.regType) {
        return fail(ErrorKey::FieldLocked, "mobile");
    }
    if wanted.is_empty() {
        return Ok(String::new());
    }
    match normalise_phone(wanted) {
        Some(phone) if phone_digit_count_ok(&phone) => Ok(phone),
        _ => fail(ErrorKey::MobileNoBlankError, "mobile"),
    }
}

// ---------------------------------------------------------------------------
// Settings form (spec §5 "Admin panel")
// ---------------------------------------------------------------------------

/// A booking looks for a driver a day at most before the system gives up.
pub const MAX_NO_DRIVER_MINUTES: u32 = 24 * 60;
/// A paid booking waits a week at most for its rating.
pub const MAX_AUTO_COMPLETE_MINUTES: u32 = 7 * 24 * 60;
/// The living demo's highest booking rate, an hour.
pub const MAX_LIVING_DEMO_BOOKINGS_PER_HOUR: u32 = 600;

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

// ---------------------------------------------------------------------------
// Wallet and withdraw (spec §5 "Wallet and withdraw")
// ---------------------------------------------------------------------------

/// Parses an amount typed as text: a plain decimal such as `12`, `12.5` or
/// `.5`, or a number in exponent form as JSON may print it. `None` for
/// anything else (blank, `12,5`, `NaN`, out of range).
pub fn parse_amount(text: &str) -> Option<Decimal> {
    let text = text.trim();
    if text.is_empty()
        || !text.bytes().all(|byte| byte.is_ascii_digit() || matches!(byte, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    if text.bytes().any(|byte| matches!(byte, b'e' | b'E')) {
        Decimal::from_scientific(text).ok()
    } else {
        Decimal::from_str(text).ok()
    }
}

/// An admin top-up that passed (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalletCredit {
    pub user: UserId,
    /// Rounded to `settings.decimal`.
    pub amount: Decimal,
}

/// Add to wallet needs a selected user and an amount above 0, else
/// `no_details_error` (spec §5). The amount is parsed as a decimal and
/// rounded to `decimals` before the check, so `0.001` at 2 places is refused
/// rather than credited as nothing.
pub fn validate_wallet_credit(user: Option<UserId>, amount: &str, decimals: u32) -> DomainResult<WalletCredit> {
    let Some(user) = user else {
        return fail(ErrorKey::NoDetailsError, "user");
    };
    match parse_amount(amount).map(|amount| money::round(amount, decimals)) {
        Some(amount) if amount > Decimal::ZERO => Ok(WalletCredit { user, amount }),
        _ => fail(ErrorKey::NoDetailsError, "amount"),
    }
}

/// A withdraw amount: above 0 once rounded to `decimals` (`invalid_amount`),
/// and not more than the balance (`insufficient_wallet_balance`) unless the
/// platform allows negative balances. Returns the rounded amount.
pub fn validate_withdraw_amount(
    amount: Decimal,
    balance: Decimal,
    negative_balance: bool,
    decimals: u32,
) -> DomainResult<Decimal> {
    let amount = money::round(amount, decimals);
    if amount <= Decimal::ZERO {
        return fail(ErrorKey::InvalidAmount, "amount");
    }
    if amount > balance && !negative_balance {
        return fail(ErrorKey::InsufficientWalletBalance, "amount");
    }
    Ok(amount)
}

// ---------------------------------------------------------------------------
// Languages, images, ratings, chat, cancellation (spec §5, §2)
// ---------------------------------------------------------------------------

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

/// The image formats we accept, told apart by content rather than file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageKind {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageKind {
    pub const ALL: [ImageKind; 4] = [ImageKind::Png, ImageKind::Jpeg, ImageKind::Gif, ImageKind::Webp];

    pub fn mime(self) -> &'static str {
        match self {
            ImageKind::Png => "image/png",
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Gif => "image/gif",
            ImageKind::Webp => "image/webp",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            ImageKind::Png => "png",
            ImageKind::Jpeg => "jpg",
            ImageKind::Gif => "gif",
            ImageKind::Webp => "webp",
        }
    }
}

/// Recognises PNG, JPEG, GIF and WebP by their magic bytes.
pub fn sniff_image(bytes: &[u8]) -> Option<ImageKind> {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.starts_with(PNG) {
        Some(ImageKind::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageKind::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(ImageKind::Gif)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some(ImageKind::Webp)
    } else {
        None
    }
}

/// A car image or licence image save needs a chosen file (spec §5).
pub fn require_image(present: bool) -> DomainResult<()> {
    if present { Ok(()) } else { fail(ErrorKey::ChooseImageFirst, "image") }
}

/// An uploaded image: present and non-empty (`choose_image_first`), and one
/// of the [`ImageKind`]s by content (`invalid_input`).
pub fn validate_image(bytes: Option<&[u8]>) -> DomainResult<ImageKind> {
    let bytes = bytes.filter(|bytes| !bytes.is_empty());
    require_image(bytes.is_some())?;
    bytes.and_then(sniff_image).ok_or_else(|| DomainError::on_field(ErrorKey::InvalidInput, "image"))
}

/// A rating from 1 to 5 stars (`invalid_rating`).
pub fn validate_rating(rating: i64) -> DomainResult<u8> {
    match u8::try_from(rating) {
        Ok(stars @ 1..=5) => Ok(stars),
        _ => fail(ErrorKey::InvalidRating, "rating"),
    }
}

/// A chat message: not blank, at most [`CHAT_MESSAGE_MAX_CHARS`] characters
/// once trimmed (`invalid_input`). Returns it trimmed.
pub fn validate_chat_message(message: &str) -> DomainResult<&str> {
    let message = message.trim();
    if message.is_empty() || message.chars().count() > CHAT_MESSAGE_MAX_CHARS {
        return fail(ErrorKey::InvalidInput, "message");
    }
    Ok(message)
}

/// A cancellation reason must be chosen (`select_proper`, as the reason
/// dialog says); over [`MAX_NOTE_CHARS`] is `invalid_input`. Returns it trimmed.
pub fn validate_cancel_reason(reason: &str) -> DomainResult<&str> {
    let reason = reason.trim();
    if reason.is_empty() {
        return fail(ErrorKey::SelectProper, "reason");
    }
    if reason.chars().count() > MAX_NOTE_CHARS {
        return fail(ErrorKey::InvalidInput, "reason");
    }
    Ok(reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::CarTypeId;
    use crate::model::AmountType;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;
    use serde_json::json;

    const NOW: Millis = 1_700_000_000_000;

    fn key_of<T: std::fmt::Debug>(result: DomainResult<T>) -> ErrorKey {
        result.unwrap_err().key
    }

    fn failure<T: std::fmt::Debug>(result: DomainResult<T>) -> (ErrorKey, Option<&'static str>) {
        let error = result.unwrap_err();
        (error.key, error.field)
    }

    fn choice(description: &str, amount: Decimal) -> PricedChoice {
        PricedChoice { description: description.into(), amount }
    }

    fn car_type(with_parcels: bool) -> CarType {
        CarType {
            id: CarTypeId::from_u128(1),
            name: "Sedan".into(),
            image: String::new(),
            base_fare: dec!(2),
            rate_per_unit_distance: dec!(1),
            rate_per_hour: dec!(10),
            min_fare: dec!(5),
            convenience_fees: dec!(1),
            convenience_fee_type: AmountType::Flat,
            extra_info: String::new(),
            createdAt: 0,
            parcelTypes: if with_parcels { vec![choice("Box", dec!(3)), choice("Crate", dec!(6))] } else { vec![] },
            options: if with_parcels { vec![choice("Fragile", dec!(1))] } else { vec![] },
            cancelSlab: vec![],
            optionRequired: false,
        }
    }

    fn place(lat: f64, lng: f64) -> Place {
        Place { lat, lng, add: "Somewhere".into() }
    }

    fn rider(mobile: &str) -> User {
        let mut user = User::new(UserId::from_u128(7), Role::Rider, 0);
        user.firstName = "Jane".into();
        user.lastName = "Doe".into();
        user.email = "jane@example.com".into();
        user.mobile = mobile.into();
        user
    }

    const PROFILE: ProfileNames<'static> =
        ProfileNames { first_name: "Jane", last_name: "Doe", email: "jane@example.com" };

    struct Fixture {
        pickup: Place,
        drop: Place,
        car: CarType,
        delivery: DeliveryDetails,
    }

    impl Fixture {
        fn new() -> Self {
            Fixture {
                pickup: place(51.5, -0.12),
                drop: place(51.52, -0.1),
                car: car_type(true),
                delivery: DeliveryDetails {
                    deliveryPerson: " Sam ".into(),
                    deliveryPersonPhone: "555-123 4567".into(),
                    pickUpInstructions: "Ring twice".into(),
                    deliveryInstructions: String::new(),
                },
            }
        }

        /// A landing-page Book Now taxi booking by a rider that passes.
        fn landing(&self) -> BookingRequest<'_> {
            BookingRequest {
                channel: BookingChannel::Landing,
                booker_role: Some(Role::Rider),
                booker_profile: Some(PROFILE),
                category: AppCategory::Taxi,
                trip: TripRequest {
                    pickup: Some(&self.pickup),
                    drop: Some(&self.drop),
                    car_type: Some(&self.car),
                    parcel_type_index: None,
                    option_index: None,
                },
                book_later: false,
                trip_date: None,
                delivery: &self.delivery,
            }
        }

        fn landing_delivery(&self) -> BookingRequest<'_> {
            let mut request = self.landing();
            request.category = AppCategory::Delivery;
            request.trip.parcel_type_index = Some(1);
            request.trip.option_index = Some(0);
            request
        }
    }

    // ---- Booking ----------------------------------------------------------

    #[test]
    fn a_complete_book_now_request_passes_with_now_as_trip_date() {
        // spec §5 Booking; §4 Book Now
        let fixture = Fixture::new();
        let checked = validate_booking(&fixture.landing(), NOW).unwrap();
        assert_eq!(checked.tripdate, NOW);
        assert_eq!(checked.trip.car_type.name, "Sedan");
        assert_eq!(checked.delivery, None);
    }

    #[test]
    fn a_visitor_who_is_not_logged_in_must_log_in() {
        // spec §5 Booking: must be logged in ('must_login')
        let fixture = Fixture::new();
        let request = BookingRequest { booker_role: None, ..fixture.landing() };
        assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::MustLogin);
    }

    #[test]
    fn only_riders_may_book_on_the_landing_page() {
        // spec §5 Booking: only riders may proceed on the landing page
        let fixture = Fixture::new();
        for role in [Role::Driver, Role::Fleetadmin, Role::Admin] {
            let request = BookingRequest { booker_role: Some(role), ..fixture.landing() };
            assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::NotAllowed, "{role:?}");
        }
    }

    #[test]
    fn a_missing_profile_is_user_issue_contact_admin() {
        // spec §5 Booking: missing profile 'user_issue_contact_admin'
        let fixture = Fixture::new();
        let request = BookingRequest { booker_profile: None, ..fixture.landing() };
        assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::UserIssueContactAdmin);
    }

    #[test]
    fn a_blank_name_or_email_is_an_incomplete_profile() {
        // spec §5 Booking: a single space is 'profile_incomplete'; any blank is treated the same
        let fixture = Fixture::new();
        let cases = [
            (ProfileNames { first_name: " ", ..PROFILE }, "firstName"),
            (ProfileNames { last_name: "", ..PROFILE }, "lastName"),
            (ProfileNames { email: " \t", ..PROFILE }, "email"),
        ];
        for (profile, field) in cases {
            let request = BookingRequest { booker_profile: Some(profile), ..fixture.landing() };
            assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::ProfileIncomplete, Some(field)));
        }
    }

    #[test]
    fn pickup_drop_and_car_type_are_required() {
        // spec §5 Booking: pickup, drop and car type required ('select_proper')
        let fixture = Fixture::new();
        let bad_place = place(f64::NAN, 10.0);
        let far_place = place(91.0, 0.0);
        let mut request = fixture.landing();
        request.trip.pickup = None;
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("pickup")));
        request.trip.pickup = Some(&bad_place);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("pickup")));
        let mut request = fixture.landing();
        request.trip.drop = Some(&far_place);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("drop")));
        let mut request = fixture.landing();
        request.trip.car_type = None;
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("carType")));
    }

    #[test]
    fn book_later_needs_a_date() {
        // spec §5 Booking: Book Later needs a date ('select_proper')
        let fixture = Fixture::new();
        let request = BookingRequest { book_later: true, trip_date: None, ..fixture.landing() };
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("tripdate")));
    }

    #[test]
    fn book_later_must_be_at_least_fifteen_minutes_ahead() {
        // spec §5 Booking, §9: at least 15 minutes in the future ('past_booking_error')
        let fixture = Fixture::new();
        assert_eq!(BOOK_LATER_MIN_LEAD_MS, 900_000);
        let at = |trip_date| BookingRequest { book_later: true, trip_date: Some(trip_date), ..fixture.landing() };
        let just_enough = NOW + BOOK_LATER_MIN_LEAD_MS;
        assert_eq!(validate_booking(&at(just_enough), NOW).unwrap().tripdate, just_enough);
        assert_eq!(key_of(validate_booking(&at(just_enough - 1), NOW)), ErrorKey::PastBookingError);
        assert_eq!(key_of(validate_booking(&at(NOW - 1), NOW)), ErrorKey::PastBookingError);
        assert_eq!(key_of(validate_trip_date(true, Some(0), Millis::MAX)), ErrorKey::PastBookingError);
    }

    #[test]
    fn book_now_ignores_a_trip_date_sent_along() {
        // spec §2: switching to Book Now resets the date
        assert_eq!(validate_trip_date(false, Some(NOW - 5), NOW).unwrap(), NOW);
    }

    #[test]
    fn a_delivery_booking_returns_trimmed_details_and_the_chosen_parcel() {
        // spec §5 Booking: delivery person and phone; §2 parcel type and option chooser
        let fixture = Fixture::new();
        let checked = validate_booking(&fixture.landing_delivery(), NOW).unwrap();
        let delivery = checked.delivery.unwrap();
        assert_eq!(delivery.deliveryPerson, "Sam");
        assert_eq!(delivery.deliveryPersonPhone, "555-123 4567");
        assert_eq!(checked.trip.parcel_type.unwrap().description, "Crate");
        assert_eq!(checked.trip.option.unwrap().description, "Fragile");
    }

    #[test]
    fn a_delivery_needs_a_person_and_a_phone_like_recipient_number() {
        // spec §5 Booking: delivery person non-blank; phone digits/space/dash, at least 7, longer than 6
        let fixture = Fixture::new();
        let with = |person: &str, phone: &str| DeliveryDetails {
            deliveryPerson: person.into(),
            deliveryPersonPhone: phone.into(),
            ..DeliveryDetails::default()
        };
        let missing = ErrorKey::DeliveryDetailMissing;
        assert_eq!(failure(validate_delivery_details(&with("  ", "5551234567"))), (missing, Some("deliveryPerson")));
        for phone in ["", "123456", "12 34 5", "555-12a-4567", "-------", "555_1234567", "+"] {
            assert_eq!(
                failure(validate_delivery_details(&with("Sam", phone))),
                (missing, Some("deliveryPersonPhone")),
                "{phone:?}"
            );
        }
        for phone in ["1234567", "555 123 4567", "555-123-4567", "+44 20 7946 0958"] {
            assert!(validate_delivery_details(&with("Sam", phone)).is_ok(), "{phone:?}");
        }
        let request = BookingRequest { delivery: &DeliveryDetails::default(), ..fixture.landing_delivery() };
        assert_eq!(key_of(validate_booking(&request, NOW)), missing);
    }

    #[test]
    fn overlong_delivery_instructions_are_invalid_input() {
        let details = DeliveryDetails {
            deliveryPerson: "Sam".into(),
            deliveryPersonPhone: "5551234567".into(),
            pickUpInstructions: "x".repeat(MAX_NOTE_CHARS + 1),
            deliveryInstructions: String::new(),
        };
        assert_eq!(failure(validate_delivery_details(&details)), (ErrorKey::InvalidInput, Some("pickUpInstructions")));
    }

    #[test]
    fn parcel_type_and_option_must_be_chosen_from_the_car_types_lists() {
        // spec §2: parcel type and options chooser; an index outside the lists is 'select_proper'
        let fixture = Fixture::new();
        let mut request = fixture.landing_delivery();
        request.trip.parcel_type_index = Some(2);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("parcelTypeIndex")));
        request.trip.parcel_type_index = None;
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("parcelTypeIndex")));
        let mut request = fixture.landing_delivery();
        request.trip.option_index = Some(usize::MAX);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("optionIndex")));
    }

    #[test]
    fn a_car_type_without_parcel_lists_needs_no_choice_and_refuses_an_index() {
        let car = car_type(false);
        let (pickup, drop) = (place(1.0, 1.0), place(2.0, 2.0));
        let mut trip =
            TripRequest { pickup: Some(&pickup), drop: Some(&drop), car_type: Some(&car), ..Default::default() };
        let choice = validate_trip(&trip, AppCategory::Delivery).unwrap();
        assert_eq!((choice.parcel_type, choice.option), (None, None));
        trip.parcel_type_index = Some(0);
        assert_eq!(key_of(validate_trip(&trip, AppCategory::Delivery)), ErrorKey::SelectProper);
    }

    #[test]
    fn taxi_bookings_ignore_parcel_indexes_and_delivery_fields() {
        // spec §1: delivery-only fields are hidden unless the category is delivery
        let fixture = Fixture::new();
        let mut request = fixture.landing();
        request.trip.parcel_type_index = Some(99);
        let empty = DeliveryDetails::default();
        request.delivery = &empty;
        let checked = validate_booking(&request, NOW).unwrap();
        assert_eq!(checked.trip.parcel_type, None);
        assert_eq!(checked.delivery, None);
    }

    #[test]
    fn the_admin_form_books_for_a_chosen_rider_with_a_mobile_number() {
        // spec §5 Booking: admin form needs a rider ('select_proper') with a mobile number ('incomplete_user')
        let fixture = Fixture::new();
        let with_mobile = rider("+15551234567");
        let without_mobile = rider(" ");
        let mut not_a_rider = rider("+15551234567");
        not_a_rider.usertype = Role::Driver;
        let admin_form = |rider| BookingRequest {
            channel: BookingChannel::AdminForm { rider },
            booker_role: Some(Role::Admin),
            booker_profile: None,
            ..fixture.landing()
        };
        assert!(validate_booking(&admin_form(Some(&with_mobile)), NOW).is_ok());
        assert_eq!(failure(validate_booking(&admin_form(None), NOW)), (ErrorKey::SelectProper, Some("customer")));
        assert_eq!(
            failure(validate_booking(&admin_form(Some(&not_a_rider)), NOW)),
            (ErrorKey::SelectProper, Some("customer"))
        );
        assert_eq!(
            failure(validate_booking(&admin_form(Some(&without_mobile)), NOW)),
            (ErrorKey::IncompleteUser, Some("customer"))
        );
    }

    #[test]
    fn only_admins_use_the_admin_form() {
        // spec §2: /addbookings is admin only
        let fixture = Fixture::new();
        let with_mobile = rider("+15551234567");
        for role in [Role::Rider, Role::Driver, Role::Fleetadmin] {
            let request = BookingRequest {
                channel: BookingChannel::AdminForm { rider: Some(&with_mobile) },
                booker_role: Some(role),
                ..fixture.landing()
            };
            assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::NotAllowed);
        }
    }

    #[test]
    fn profile_names_come_from_the_user() {
        let user = rider("1");
        assert_eq!(ProfileNames::from(&user), PROFILE);
    }

    // ---- Login ------------------------------------------------------------

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

    // ---- E-mail and profile ---------------------------------------------

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

    // ---- Settings -----------------------------------------------------------

    #[test]
    fn default_settings_are_valid() {
        assert_eq!(validate_settings(&Settings::default()), Ok(()));
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

    // ---- Wallet and withdraw ---------------------------------------------

    #[test]
    fn amounts_parse_as_decimals() {
        // spec §5 Wallet: admin credit amounts are parsed as decimals
        assert_eq!(parse_amount(" 12.50 "), Some(dec!(12.50)));
        assert_eq!(parse_amount(".5"), Some(dec!(0.5)));
        assert_eq!(parse_amount("1e2"), Some(dec!(100)));
        for text in ["", " ", "12,5", "NaN", "ten", "1e", "--1", "1e99999", "0x10"] {
            assert_eq!(parse_amount(text), None, "{text:?}");
        }
    }

    #[test]
    fn add_to_wallet_needs_a_user_and_an_amount_above_zero() {
        // spec §5 Wallet: needs a selected user and an amount above 0, else 'no_details_error'
        let user = UserId::from_u128(3);
        assert_eq!(
            validate_wallet_credit(Some(user), "10.005", 2).unwrap(),
            WalletCredit { user, amount: dec!(10.01) }
        );
        assert_eq!(failure(validate_wallet_credit(None, "10", 2)), (ErrorKey::NoDetailsError, Some("user")));
        for amount in ["", "0", "-5", "0.001", "abc"] {
            assert_eq!(
                failure(validate_wallet_credit(Some(user), amount, 2)),
                (ErrorKey::NoDetailsError, Some("amount")),
                "{amount:?}"
            );
        }
    }

    #[test]
    fn a_withdraw_is_above_zero_and_within_the_balance() {
        // spec §5 Wallet and withdraw; negativeBalance lets a wallet go below zero
        assert_eq!(validate_withdraw_amount(dec!(20), dec!(20), false, 2).unwrap(), dec!(20));
        assert_eq!(
            failure(validate_withdraw_amount(dec!(0), dec!(20), false, 2)),
            (ErrorKey::InvalidAmount, Some("amount"))
        );
        assert_eq!(key_of(validate_withdraw_amount(dec!(-1), dec!(20), true, 2)), ErrorKey::InvalidAmount);
        assert_eq!(key_of(validate_withdraw_amount(dec!(0.004), dec!(20), false, 2)), ErrorKey::InvalidAmount);
        assert_eq!(
            failure(validate_withdraw_amount(dec!(20.01), dec!(20), false, 2)),
            (ErrorKey::InsufficientWalletBalance, Some("amount"))
        );
        assert_eq!(validate_withdraw_amount(dec!(50), dec!(20), true, 2).unwrap(), dec!(50));
    }

    // ---- Languages, images, ratings, chat, cancellation -------------------

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

    #[test]
    fn saving_an_image_needs_a_chosen_file() {
        // spec §5 Admin panel: car or licence image save needs a chosen file ('choose_image_first')
        assert_eq!(require_image(true), Ok(()));
        assert_eq!(failure(require_image(false)), (ErrorKey::ChooseImageFirst, Some("image")));
        assert_eq!(key_of(validate_image(None)), ErrorKey::ChooseImageFirst);
        assert_eq!(key_of(validate_image(Some(&[]))), ErrorKey::ChooseImageFirst);
        assert_eq!(failure(validate_image(Some(b"%PDF-1.7"))), (ErrorKey::InvalidInput, Some("image")));
        assert_eq!(validate_image(Some(b"GIF89a....")), Ok(ImageKind::Gif));
    }

    #[test]
    fn images_are_recognised_by_their_magic_bytes() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".as_slice();
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10].as_slice();
        let webp = b"RIFF\x24\0\0\0WEBPVP8 ".as_slice();
        assert_eq!(sniff_image(png), Some(ImageKind::Png));
        assert_eq!(sniff_image(jpeg), Some(ImageKind::Jpeg));
        assert_eq!(sniff_image(b"GIF87a"), Some(ImageKind::Gif));
        assert_eq!(sniff_image(webp), Some(ImageKind::Webp));
        for bytes in [b"".as_slice(), b"RIFF\0\0\0\0WAVE", b"RIFF", b"<svg", b"\x89PNG", b"GIF88a"] {
            assert_eq!(sniff_image(bytes), None, "{bytes:?}");
        }
        let mimes: Vec<_> = ImageKind::ALL.iter().map(|kind| kind.mime()).collect();
        assert_eq!(mimes, ["image/png", "image/jpeg", "image/gif", "image/webp"]);
        assert_eq!(ImageKind::Jpeg.extension(), "jpg");
    }

    #[test]
    fn a_rating_is_one_to_five_stars() {
        // spec §4 COMPLETE with a rating; 'invalid_rating' is ours
        for stars in 1..=5 {
            assert_eq!(validate_rating(stars).unwrap(), stars as u8);
        }
        for stars in [0, 6, -1, 256, i64::MIN, i64::MAX] {
            assert_eq!(failure(validate_rating(stars)), (ErrorKey::InvalidRating, Some("rating")), "{stars}");
        }
    }

    #[test]
    fn a_chat_message_is_non_blank_and_at_most_two_thousand_characters() {
        // spec §3 Chat message; limit ours
        assert_eq!(validate_chat_message("  on my way ").unwrap(), "on my way");
        assert!(validate_chat_message(&"é".repeat(CHAT_MESSAGE_MAX_CHARS)).is_ok());
        for message in ["".to_string(), " \n ".to_string(), "x".repeat(CHAT_MESSAGE_MAX_CHARS + 1)] {
            assert_eq!(failure(validate_chat_message(&message)), (ErrorKey::InvalidInput, Some("message")));
        }
    }

    #[test]
    fn a_cancellation_needs_a_reason() {
        // spec §4 Panel actions: NEW or ACCEPTED opens a reason dialog
        assert_eq!(validate_cancel_reason(" Driver late ").unwrap(), "Driver late");
        assert_eq!(failure(validate_cancel_reason("  ")), (ErrorKey::SelectProper, Some("reason")));
        assert_eq!(
            failure(validate_cancel_reason(&"r".repeat(MAX_NOTE_CHARS + 1))),
            (ErrorKey::InvalidInput, Some("reason"))
        );
    }

    // ---- Properties ----------------------------------------------------------

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
        fn free_text_validators_never_panic(text in any::<String>(), bytes in proptest::collection::vec(any::<u8>(), 0..32)) {
            let _ = validate_email(&text);
            let _ = validate_sign_in_code(&text);
            let _ = parse_amount(&text);
            let _ = parse_language_pairs(&text);
            let _ = validate_chat_message(&text);
            let _ = validate_cancel_reason(&text);
            let _ = validate_wallet_credit(Some(UserId::from_u128(1)), &text, 2);
            let _ = sniff_image(&bytes);
            let _ = apply_settings_patch(&Settings::default(), &json!({ "bonus": text, "decimal": text, "driverRadius": text }));
        }

        #[test]
        fn a_credited_amount_is_always_positive_and_rounded(amount in "-?[0-9]{0,6}(\\.[0-9]{0,4})?", decimals in 0u32..4) {
            // spec §5: amount above 0; §9 rounded to settings.decimal
            if let Ok(credit) = validate_wallet_credit(Some(UserId::from_u128(1)), &amount, decimals) {
                prop_assert!(credit.amount > Decimal::ZERO);
                prop_assert!(money::is_rounded(credit.amount, decimals));
            }
        }
    }
}
