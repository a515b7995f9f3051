//! What each documented route needs (a session or not) and which
//! translation keys it can refuse with. The document's security and error
//! responses are built from this table, with each key's status taken from
//! its kind (`crate::error::status_of`), so a status in the document can
//! never disagree with the one the server answers. The tests require an
//! entry for every documented operation.

use wayfare_engine::ErrorKey::{self, *};

/// Who may call a route, as far as the session goes (roles are in the errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No session needed or looked at.
    Public,
    /// Works without a session; a session changes the answer.
    OptionalSession,
    /// A bearer token or the session cookie.
    Session,
}

#[derive(Debug, Clone, Copy)]
pub struct RouteDoc {
    /// Lower case, as in the document: `get`, `post`.
    pub method: &'static str,
    /// The route as the router writes it, `{id}` for parameters.
    pub path: &'static str,
    pub access: Access,
    pub errors: &'static [ErrorKey],
}

const fn route(method: &'static str, path: &'static str, access: Access, errors: &'static [ErrorKey]) -> RouteDoc {
    RouteDoc { method, path, access, errors }
}

/// The `CurrentUser` extractor: no, stale or revoked session; an account not
/// approved; a session whose user is gone.
const SESSION: [ErrorKey; 3] = [NotLoggedIn, RequireApproval, UserIssueContactAdmin];

/// Every booking command: someone else's booking or a malformed id is 404;
/// a role that may not do it 403; a status that does not allow it 409; a
/// concurrent change that won the version check 409.
macro_rules! booking_command {
    ($($key:ident),* $(,)?) => {
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotFound, NotAllowed, StatusNotAllowed, UpdateFailed, $($key),*]
    };
}

/// The JSON body extractor: a body that is not the expected JSON is 400
/// `invalid_input` (with `field: "body"`), one over the size limit 413.
macro_rules! with_body {
    ($($key:ident),* $(,)?) => {
        &[InvalidInput, FileTooLarge, $($key),*]
    };
}

/// A signed-in caller with a JSON body, and the maps provider's refusals
/// (`wayfare_maps::MapsError::key`).
const GEO: [ErrorKey; 8] = [
    NotLoggedIn,
    RequireApproval,
    UserIssueContactAdmin,
    InvalidInput,
    FileTooLarge,
    NoRouteFound,
    PlaceToCoordsError,
    GooglePlacesError,
];

/// A signed-in caller (`SESSION`) and more keys.
macro_rules! session {
    ($($key:ident),* $(,)?) => {
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, $($key),*]
    };
}

/// A signed-in caller with a JSON body (`SESSION` and `with_body!`) and more keys.
macro_rules! session_with_body {
    ($($key:ident),* $(,)?) => {
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, FileTooLarge, $($key),*]
    };
}
/// An upload for oneself: no file, not an image, too large.
const UPLOAD: [ErrorKey; 6] =
    [NotLoggedIn, RequireApproval, UserIssueContactAdmin, ChooseImageFirst, InvalidInput, FileTooLarge];

/// A licence upload: an upload, for a driver the caller manages.
const LICENSE_UPLOAD: [ErrorKey; 8] = [
    NotLoggedIn,
    RequireApproval,
    UserIssueContactAdmin,
    ChooseImageFirst,
    InvalidInput,
    FileTooLarge,
    NotAllowed,
    NotFound,
];

/// A checkout form (`crate::payments::start_checkout`): the gateway off, a
/// malformed field, a wrong amount, someone else's booking, a booking that
/// does not await payment.
const CHECKOUT: [ErrorKey; 9] = [
    NotLoggedIn,
    RequireApproval,
    UserIssueContactAdmin,
    NoProviderFound,
    InvalidInput,
    InvalidAmount,
    NotAllowed,
    NotFound,
    StatusNotAllowed,
];

pub const ROUTES: &[RouteDoc] = &[
    // ---- sign-in
    route(
        "post",
        "/api/v1/auth/otp/request",
        Access::Public,
        with_body![ProperEmail, MobileNoBlankError, CountryBlankError, ContactInputError, TooManyAttempts],
    ),
    route(
        "post",
        "/api/v1/auth/otp/verify",
        Access::Public,
        with_body![
            ProperEmail,
            MobileNoBlankError,
            CountryBlankError,
            ContactInputError,
            OtpValidateError,
            CodeExpired,
            InvalidCode,
            TooManyAttempts,
            RequireApproval,
            UserExists
        ],
    ),
    route("post", "/api/v1/auth/referral", Access::Public, with_body![ReferralInvalid, TooManyAttempts]),
    route("get", "/api/v1/auth/me", Access::Session, &SESSION),
    route("post", "/api/v1/auth/logout", Access::Session, &SESSION),
    route(
        "get",
        "/api/v1/dev/outbox",
        Access::Public,
        &[NotFound, InvalidInput, ProperEmail, MobileNoBlankError, CountryBlankError, ContactInputError],
    ),
    // ---- catalog
    route("get", "/api/v1/settings", Access::OptionalSession, &[]),
    route("get", "/api/v1/cartypes", Access::Public, &[]),
    route("get", "/api/v1/languages", Access::Public, &[]),
    route("get", "/api/v1/cancelreasons", Access::Public, &[]),
    route("get", "/api/v1/payments/providers", Access::Public, &[]),
    // ---- bookings
    route(
        "post",
        "/api/v1/bookings/estimate",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            SelectProper,
            NoRouteFound,
            PromoInvalid,
            PromoExpired,
            PromoMinOrder,
            PromoLimitReached,
        ],
    ),
    route(
        "post",
        "/api/v1/bookings",
        Access::Session,
        &[
            MustLogin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            UserIssueContactAdmin,
            IncompleteUser,
            SelectProper,
            PastBookingError,
            DeliveryDetailMissing,
            PlaceToCoordsError,
            PromoInvalid,
            PromoExpired,
            PromoMinOrder,
            PromoLimitReached,
        ],
    ),
    route(
        "get",
        "/api/v1/bookings",
        Access::Session,
        // The export (`format=csv|xlsx`) adds the panel's refusals.
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, NotAllowed, DemoMode, ExportTooLarge],
    ),
    route(
        "get",
        "/api/v1/bookings/{id}",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotFound],
    ),
    route("get", "/api/v1/tasks", Access::Session, &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed]),
    route("post", "/api/v1/bookings/{id}/accept", Access::Session, booking_command![BookingTaken, NotOffered]),
    route("post", "/api/v1/bookings/{id}/decline", Access::Session, booking_command![NotOffered]),
    route("post", "/api/v1/bookings/{id}/arrive", Access::Session, booking_command![]),
    route("post", "/api/v1/bookings/{id}/start", Access::Session, booking_command![InvalidInput, OtpMismatch]),
    route("post", "/api/v1/bookings/{id}/reach", Access::Session, booking_command![]),
    route(
        "post",
        "/api/v1/bookings/{id}/pay",
        Access::Session,
        booking_command![InvalidInput, FileTooLarge, InsufficientWalletBalance, InvalidAmount],
    ),
    route(
        "post",
        "/api/v1/bookings/{id}/rate",
        Access::Session,
        booking_command![InvalidInput, FileTooLarge, InvalidRating],
    ),
    route(
        "post",
        "/api/v1/bookings/{id}/cancel",
        Access::Session,
        booking_command![InvalidInput, FileTooLarge, SelectProper, NotOffered, DemoMode],
    ),
    route(
        "post",
        "/api/v1/bookings/{id}/assign",
        Access::Session,
        booking_command![InvalidInput, FileTooLarge, DriverNotEligible, DemoMode],
    ),
    route(
        "get",
        "/api/v1/bookings/{id}/candidates",
        Access::Session,
        session![InvalidInput, NotFound, NotAllowed, StatusNotAllowed],
    ),
    route(
        "get",
        "/api/v1/bookings/{id}/chat",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotFound, NotAllowed],
    ),
    route(
        "post",
        "/api/v1/bookings/{id}/chat",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, FileTooLarge, NotFound, NotAllowed],
    ),
    route(
        "get",
        "/api/v1/bookings/{id}/tracking",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotFound, NotAllowed],
    ),
    route("get", "/api/v1/bookings/{id}/dispatch", Access::Session, session![NotFound, NotAllowed]),
    route("get", "/api/v1/dispatch/active", Access::Session, session![NotAllowed]),
    route("get", "/api/v1/dispatch/log", Access::Session, session![NotAllowed, InvalidInput]),
    route(
        "post",
        "/api/v1/drivers/{id}/message",
        Access::Session,
        session_with_body![NoDetailsError, NotFound, NotAllowed, DemoMode],
    ),
    // ---- drivers
    route(
        "post",
        "/api/v1/drivers/me/status",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            DriverNotEligible,
            DocumentsMissing,
            DocumentExpired,
        ],
    ),
    route(
        "post",
        "/api/v1/drivers/me/location",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            DriverNotEligible,
        ],
    ),
    // ---- wallet
    route(
        "get",
        "/api/v1/users/{id}/wallet",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, NotFound, NotAllowed],
    ),
    // ---- admin panel: users, profile, car types, cancel reasons, settings, app info
    route("get", "/api/v1/users", Access::Session, session![NotAllowed, InvalidInput]),
    route("get", "/api/v1/users/exists", Access::Session, session![NotAllowed, InvalidInput, EmailOrMobileIssue]),
    route(
        "post",
        "/api/v1/users",
        Access::Session,
        session_with_body![NotAllowed, DemoMode, EmailOrMobileIssue, UserExists],
    ),
    route("get", "/api/v1/users/{id}", Access::Session, session![NotAllowed, NotFound]),
    route("patch", "/api/v1/users/{id}", Access::Session, session_with_body![NotAllowed, NotFound, ContactNotEditable]),
    route("post", "/api/v1/users/{id}/approve", Access::Session, session![NotAllowed, NotFound]),
    // ---- drivers' sign-up, documents and approval (issue #33)
    route(
        "post",
        "/api/v1/auth/signup",
        Access::Public,
        with_body![
            ProperEmail,
            MobileNoBlankError,
            CountryBlankError,
            ContactInputError,
            OtpValidateError,
            CodeExpired,
            InvalidCode,
            TooManyAttempts,
            UserExists,
            NotValidUserType,
            ProfileIncomplete,
            SelectProper,
            VehicleDetailsMissing,
            VehicleYearInvalid,
            FleetCodeInvalid
        ],
    ),
    route(
        "post",
        "/api/v1/drivers/me/documents/{kind}",
        Access::Session,
        session![
            NotAllowed,
            InvalidInput,
            FileTooLarge,
            ChooseImageFirst,
            DocumentNumberMissing,
            DocumentExpiryInvalid
        ],
    ),
    route("get", "/api/v1/drivers/me/application", Access::Session, session![NotAllowed]),
    route("get", "/api/v1/drivers/applications", Access::Session, session![NotAllowed, InvalidInput]),
    route("get", "/api/v1/users/{id}/documents", Access::Session, session![NotAllowed, NotFound, NotValidUserType]),
    route(
        "post",
        "/api/v1/users/{id}/reject",
        Access::Session,
        session_with_body![NotAllowed, NotFound, NotValidUserType, ReasonRequired, StatusNotAllowed],
    ),
    route(
        "delete",
        "/api/v1/users/{id}",
        Access::Session,
        session![NotAllowed, NotFound, DemoMode, UserHasActiveBookings],
    ),
    route(
        "patch",
        "/api/v1/users/me",
        Access::Session,
        session_with_body![
            ProfileIncomplete,
            FieldLocked,
            ProperEmail,
            MobileNoBlankError,
            EmailOrMobileIssue,
            UserExists
        ],
    ),
    route("post", "/api/v1/cartypes", Access::Session, session_with_body![NotAllowed, DemoMode, CarTypeExists]),
    route(
        "put",
        "/api/v1/cartypes/{id}",
        Access::Session,
        session_with_body![NotAllowed, DemoMode, NotFound, CarTypeExists, CarTypeInUse],
    ),
    route("delete", "/api/v1/cartypes/{id}", Access::Session, session![NotAllowed, DemoMode, NotFound, CarTypeInUse]),
    route("put", "/api/v1/cancelreasons", Access::Session, session_with_body![NotAllowed, DemoMode, SelectProper]),
    route("post", "/api/v1/cancelreasons", Access::Session, session_with_body![NotAllowed, DemoMode, SelectProper]),
    route(
        "put",
        "/api/v1/cancelreasons/{index}",
        Access::Session,
        session_with_body![NotAllowed, DemoMode, NotFound, SelectProper],
    ),
    route("delete", "/api/v1/cancelreasons/{index}", Access::Session, session![NotAllowed, DemoMode, NotFound]),
    route(
        "patch",
        "/api/v1/settings",
        Access::Session,
        session_with_body![NotAllowed, DemoMode, ProperBonus, ProperEmail],
    ),
    route("get", "/api/v1/appinfo", Access::Public, &[]),
    route("patch", "/api/v1/appinfo", Access::Session, session_with_body![NotAllowed, DemoMode, ProperEmail]),
    // ---- end of admin panel
    // ---- money: wallet credit, withdraws, reports
    route(
        "post",
        "/api/v1/users/{id}/wallet/credit",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            DemoMode,
            NotFound,
            NoDetailsError,
            InvalidAmount,
        ],
    ),
    route(
        "post",
        "/api/v1/withdraws",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            InvalidAmount,
            InsufficientWalletBalance,
        ],
    ),
    route(
        "get",
        "/api/v1/withdraws",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, NotAllowed],
    ),
    route(
        "post",
        "/api/v1/withdraws/{id}/complete",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, DemoMode, NotFound, AlreadyProcessed],
    ),
    route(
        "get",
        "/api/v1/reports/earnings",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, NotAllowed, DemoMode, NotFound],
    ),
    route(
        "get",
        "/api/v1/reports/driver-earnings",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, NotAllowed, DemoMode, NotFound],
    ),
    route("get", "/api/v1/dashboard/earnings", Access::Session, session![NotAllowed]),
    // ---- mending a booking (issue 34)
    route(
        "post",
        "/api/v1/bookings/{id}/settle",
        Access::Session,
        booking_command![InvalidInput, FileTooLarge, DemoMode],
    ),
    route("post", "/api/v1/bookings/{id}/complete", Access::Session, booking_command![DemoMode]),
    route(
        "post",
        "/api/v1/bookings/{id}/refund",
        Access::Session,
        booking_command![InvalidInput, FileTooLarge, InvalidAmount, SelectProper, DemoMode],
    ),
    route(
        "post",
        "/api/v1/bookings/{id}/rebook",
        Access::Session,
        booking_command![IncompleteUser, SelectProper, PastBookingError, DeliveryDetailMissing, PlaceToCoordsError],
    ),
    route("get", "/api/v1/bookings/{id}/ledger", Access::Session, session![NotAllowed, NotFound]),
    route("get", "/api/v1/reports/owed", Access::Session, session![NotAllowed]),
    // ---- SOS (issue 33)
    route(
        "post",
        "/api/v1/bookings/{id}/sos",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotFound,
            NotAllowed,
            SosNoTrip,
        ],
    ),
    route(
        "get",
        "/api/v1/sos",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, NotAllowed],
    ),
    route("get", "/api/v1/sos/{id}", Access::Session, session![NotAllowed, NotFound]),
    route(
        "post",
        "/api/v1/sos/{id}/take",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            NotAllowed,
            NotFound,
            SosAlreadyTaken,
            SosAlreadyResolved,
            UpdateFailed,
        ],
    ),
    route(
        "post",
        "/api/v1/sos/{id}/resolve",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            NotFound,
            SosNoteRequired,
            SosAlreadyResolved,
            UpdateFailed,
        ],
    ),
    // ---- geo
    route("post", "/api/v1/geo/autocomplete", Access::Session, &GEO),
    route("post", "/api/v1/geo/place", Access::Session, &GEO),
    route("post", "/api/v1/geo/address", Access::Session, &GEO),
    route("post", "/api/v1/geo/directions", Access::Session, &GEO),
    route("post", "/api/v1/geo/matrix", Access::Session, &GEO),
    // The basemap is public: the landing page draws it before anyone signs in.
    route("get", "/api/v1/geo/basemap/style.json", Access::Public, &[NotFound]),
    route("get", "/api/v1/geo/basemap/tiles/{z}/{x}/{y}", Access::Public, &[NotFound]),
    // ---- files (issue 6): multipart uploads; the body is read against
    // `files.max_upload_bytes` (413), a request without a file is
    // `choose_image_first`, a file that is not an image `invalid_input`.
    route("post", "/api/v1/users/me/profile-image", Access::Session, &UPLOAD),
    route("post", "/api/v1/users/me/license-image", Access::Session, &LICENSE_UPLOAD),
    route("post", "/api/v1/users/{id}/license-image", Access::Session, &LICENSE_UPLOAD),
    route(
        "post",
        "/api/v1/cartypes/{id}/image",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            ChooseImageFirst,
            InvalidInput,
            FileTooLarge,
            NotAllowed,
            DemoMode,
            NotFound,
        ],
    ),
    route(
        "post",
        "/api/v1/bookings/{id}/images",
        Access::Session,
        booking_command![ChooseImageFirst, InvalidInput, FileTooLarge],
    ),
    route("get", "/api/v1/files/{id}", Access::OptionalSession, &[NotLoggedIn, NotAllowed, NotFound]),
    // ---- payments (issue 6)
    route("post", "/api/v1/payments/test/checkout", Access::Session, &CHECKOUT),
    route(
        "get",
        "/api/v1/payments/test/pay/{id}",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NoProviderFound, NotFound],
    ),
    route(
        "post",
        "/api/v1/payments/test/pay/{id}",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            NoProviderFound,
            NotFound,
            InvalidInput,
            AlreadyProcessed,
            StatusNotAllowed,
            UpdateFailed,
        ],
    ),
    route("post", "/api/v1/payments/stripe/checkout", Access::Session, &CHECKOUT),
    route(
        "post",
        "/api/v1/payments/stripe/webhook",
        Access::Public,
        &[
            NoProviderFound,
            InvalidSignature,
            InvalidInput,
            InvalidAmount,
            NotFound,
            AlreadyProcessed,
            StatusNotAllowed,
            UpdateFailed,
        ],
    ),
    // ---- promos, notifications, languages
    route("get", "/api/v1/promos", Access::Session, &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed]),
    route(
        "post",
        "/api/v1/promos",
        Access::Session,
        with_body![NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, InvalidAmount, PromoExists],
    ),
    route(
        "put",
        "/api/v1/promos/{id}",
        Access::Session,
        with_body![
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            NotAllowed,
            DemoMode,
            NotFound,
            InvalidAmount,
            PromoExists
        ],
    ),
    route(
        "delete",
        "/api/v1/promos/{id}",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, DemoMode, NotFound],
    ),
    route(
        "post",
        "/api/v1/notifications",
        Access::Session,
        with_body![NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, DemoMode, NoUserMatch],
    ),
    route(
        "get",
        "/api/v1/notifications",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, InvalidInput],
    ),
    route(
        "delete",
        "/api/v1/notifications/{id}",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, NotFound],
    ),
    route(
        "put",
        "/api/v1/push/token",
        Access::Session,
        with_body![NotLoggedIn, RequireApproval, UserIssueContactAdmin],
    ),
    route("get", "/api/v1/push/config", Access::Public, &[]),
    route(
        "post",
        "/api/v1/languages",
        Access::Session,
        with_body![
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            NotAllowed,
            DemoMode,
            JsonError,
            LanguageExists,
            UpdateFailed
        ],
    ),
    route(
        "put",
        "/api/v1/languages/{id}",
        Access::Session,
        with_body![
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            NotAllowed,
            DemoMode,
            NotFound,
            JsonError,
            LanguageExists,
            UpdateFailed
        ],
    ),
    route(
        "delete",
        "/api/v1/languages/{id}",
        Access::Session,
        &[
            NotLoggedIn,
            RequireApproval,
            UserIssueContactAdmin,
            NotAllowed,
            DemoMode,
            NotFound,
            CannotDeleteDefaultLanguage,
        ],
    ),
    route(
        "post",
        "/api/v1/languages/{id}/default",
        Access::Session,
        &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotAllowed, DemoMode, NotFound, UpdateFailed],
    ),
    // ---- operations
    route("get", "/healthz", Access::Public, &[]),
    route("get", "/readyz", Access::Public, &[]),
    route("get", "/metrics", Access::Public, &[]),
];

pub fn find(method: &str, path: &str) -> Option<&'static RouteDoc> {
    ROUTES.iter().find(|route| route.method == method && route.path == path)
}
