//! The one error type of the domain: a translation key from spec §8 (or one we
//! added where the spec is silent) and the class of failure, so the edge can
//! pick a status code without knowing the rule that failed.

use serde::{Deserialize, Serialize};

/// What kind of failure a key is; the http crate maps each to a status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Bad input (400).
    Invalid,
    /// No session (401).
    Unauthenticated,
    /// Role, ownership or demo mode (403).
    Forbidden,
    /// No such resource, or one the caller may not know exists (404).
    NotFound,
    /// The current state does not allow it (409).
    Conflict,
    /// A body or file over its limit (413).
    TooLarge,
    /// Too many attempts (429).
    TooManyRequests,
}

macro_rules! error_keys {
    ($($variant:ident => $key:literal, $kind:ident;)*) => {
        /// Every translation key the server can answer with.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorKey {
            $(#[serde(rename = $key)] $variant,)*
        }

        impl ErrorKey {
            pub const ALL: &'static [ErrorKey] = &[$(ErrorKey::$variant,)*];

            /// The key as the language dictionaries spell it.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorKey::$variant => $key,)* }
            }

            pub fn kind(self) -> ErrorKind {
                match self { $(ErrorKey::$variant => ErrorKind::$kind,)* }
            }
        }
    };
}

error_keys! {
    // Spec §8 alert keys.
    MustLogin => "must_login", Unauthenticated;
    ProfileIncomplete => "profile_incomplete", Invalid;
    SelectProper => "select_proper", Invalid;
    PastBookingError => "past_booking_error", Invalid;
    PlaceToCoordsError => "place_to_coords_error", Invalid;
    UserIssueContactAdmin => "user_issue_contact_admin", Forbidden;
    DeliveryDetailMissing => "deliveryDetailMissing", Invalid;
    ProperEmail => "proper_email", Invalid;
    MobileNoBlankError => "mobile_no_blank_error", Invalid;
    CountryBlankError => "country_blank_error", Invalid;
    ContactInputError => "contact_input_error", Invalid;
    OtpValidateError => "otp_validate_error", Invalid;
    LoginError => "login_error", Unauthenticated;
    NotLoggedIn => "not_logged_in", Unauthenticated;
    RequireApproval => "require_approval", Forbidden;
    NotValidUserType => "not_valid_user_type", Forbidden;
    GooglePlacesError => "google_places_error", Invalid;
    DemoMode => "demo_mode", Forbidden;
    UserExists => "user_exists", Conflict;
    EmailOrMobileIssue => "email_or_mobile_issue", Invalid;
    IncompleteUser => "incomplete_user", Invalid;
    ProperBonus => "proper_bonus", Invalid;
    UpdateFailed => "update_failed", Conflict;
    ChooseImageFirst => "choose_image_first", Invalid;
    NoDetailsError => "no_details_error", Invalid;
    LocationFetchError => "location_fetch_error", NotFound;
    NoUserMatch => "no_user_match", NotFound;
    NoTasks => "no_tasks", NotFound;
    ChatNotFound => "chat_not_found", NotFound;
    NoCancelReason => "no_cancel_reason", NotFound;
    NoCars => "no_cars", NotFound;
    NoBookings => "no_bookings", NotFound;
    NoProviderFound => "no_provider_found", NotFound;
    // Spec §8 fixed texts, given keys so they translate like the rest.
    JsonError => "json_error", Invalid;
    CannotDeleteDefaultLanguage => "cannot_delete_default_language", Conflict;
    NoRouteFound => "no_route_found", Invalid;
    // Ours, where the spec leaves the behaviour open (DESIGN.md).
    BookingTaken => "booking_taken", Conflict;
    NotOffered => "not_offered", Forbidden;
    StatusNotAllowed => "status_not_allowed", Conflict;
    StaleTimer => "stale_timer", Conflict;
    OtpMismatch => "otp_mismatch", Invalid;
    InvalidRating => "invalid_rating", Invalid;
    InvalidAmount => "invalid_amount", Invalid;
    InvalidInput => "invalid_input", Invalid;
    InsufficientWalletBalance => "insufficient_wallet_balance", Conflict;
    AutoDispatchOn => "auto_dispatch_on", Conflict;
    DriverNotEligible => "driver_not_eligible", Conflict;
    NoEligibleDriver => "no_eligible_driver", Conflict;
    PromoInvalid => "promo_invalid", Invalid;
    PromoExpired => "promo_expired", Invalid;
    PromoLimitReached => "promo_limit_reached", Conflict;
    PromoMinOrder => "promo_min_order", Invalid;
    AlreadyProcessed => "already_processed", Conflict;
    NotAllowed => "not_allowed", Forbidden;
    NotFound => "not_found", NotFound;
    CodeExpired => "code_expired", Invalid;
    InvalidCode => "invalid_code", Invalid;
    TooManyAttempts => "too_many_attempts", TooManyRequests;
    FileTooLarge => "file_too_large", TooLarge;
    // A profile field fixed by how the account was made (spec §2 "Profile").
    FieldLocked => "field_locked", Forbidden;
    // Admin panel (spec §5 "Admin panel"): users, car types.
    ContactNotEditable => "contact_not_editable", Forbidden;
    UserHasActiveBookings => "user_has_active_bookings", Conflict;
    CarTypeExists => "car_type_exists", Conflict;
    CarTypeInUse => "car_type_in_use", Conflict;
    // Payments: a gateway webhook whose signature is forged, stale or missing.
    InvalidSignature => "invalid_signature", Invalid;
    // Promos and languages: a code or locale that is taken.
    PromoExists => "promo_exists", Conflict;
    LanguageExists => "language_exists", Conflict;
    // An export of more rows than a file should hold: narrow the filter.
    ExportTooLarge => "export_too_large", TooLarge;
    // A referral code no user has (spec §7 validate_referrer).
    ReferralInvalid => "referral_invalid", NotFound;
    // Drivers' sign-up, documents and approval (issue #33).
    FleetCodeInvalid => "fleet_code_invalid", Invalid;
    VehicleDetailsMissing => "vehicle_details_missing", Invalid;
    VehicleYearInvalid => "vehicle_year_invalid", Invalid;
    DocumentNumberMissing => "document_number_missing", Invalid;
    DocumentExpiryInvalid => "document_expiry_invalid", Invalid;
    DocumentsMissing => "documents_missing", Conflict;
    DocumentExpired => "document_expired", Conflict;
    ReasonRequired => "reason_required", Invalid;
    // SOS (issue 33): only during a trip; handled once, with a note.
    SosNoTrip => "sos_no_trip", Conflict;
    SosNoteRequired => "sos_note_required", Invalid;
    SosAlreadyTaken => "sos_already_taken", Conflict;
    SosAlreadyResolved => "sos_already_resolved", Conflict;
    // Payment gateways' settings (issue #37): a field wayfare.toml sets is
    // not edited from the panel; secrets need `payments.secrets_key`.
    SetInConfigFile => "set_in_config_file", Conflict;
    SecretsKeyMissing => "secrets_key_missing", Conflict;
}

impl std::fmt::Display for ErrorKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A rule said no. Carries the translation key and, for input errors, the
/// field that was wrong so a form can point at it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}{}", field.map(|name| format!(" ({name})")).unwrap_or_default())]
pub struct DomainError {
    pub key: ErrorKey,
    pub field: Option<&'static str>,
}

impl DomainError {
    pub fn new(key: ErrorKey) -> Self {
        Self { key, field: None }
    }

    pub fn on_field(key: ErrorKey, field: &'static str) -> Self {
        Self { key, field: Some(field) }
    }

    pub fn kind(&self) -> ErrorKind {
        self.key.kind()
    }
}

impl From<ErrorKey> for DomainError {
    fn from(key: ErrorKey) -> Self {
        Self::new(key)
    }
}

pub type DomainResult<T> = Result<T, DomainError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_serialises_as_its_translation_key() {
        for key in ErrorKey::ALL {
            let json = serde_json::to_string(key).unwrap();
            assert_eq!(json, format!("\"{}\"", key.as_str()));
        }
    }

    #[test]
    fn keys_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for key in ErrorKey::ALL {
            assert!(seen.insert(key.as_str()), "duplicate key {key}");
        }
    }

    #[test]
    fn spec_keys_keep_the_spec_spelling_and_class() {
        // Spec §8 spells this one in camel case.
        assert_eq!(ErrorKey::DeliveryDetailMissing.as_str(), "deliveryDetailMissing");
        assert_eq!(ErrorKey::BookingTaken.kind(), ErrorKind::Conflict);
        assert_eq!(ErrorKey::DemoMode.kind(), ErrorKind::Forbidden);
    }
}
