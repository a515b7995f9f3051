//! What a route needs (a session or not) and which translation keys it can
//! refuse with, declared by each handler in its own `#[utoipa::path]`:
//!
//! ```text
//! #[utoipa::path(
//!     post,
//!     path = "/api/v1/bookings/{id}/accept",
//!     …
//!     extensions(("x-refusals" = json!(booking_command![BookingTaken, NotOffered]))),
//! )]
//! ```
//!
//! The macros below build a [`Refusals`] from bare key names, adding first
//! the keys a kind of route always has (a session, a JSON body, a booking
//! command). The document turns the extension into the operation's security
//! and error responses, each key's status taken from its kind
//! (`crate::error::status_of`) so that a status in the document can never
//! disagree with the one the server answers, and then removes it. The tests
//! require one on every operation.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use utoipa::openapi::path::Operation;
use wayfare_engine::ErrorKey;

/// The extension a handler declares its refusals in.
pub const EXTENSION: &str = "x-refusals";

/// Who may call a route, as far as the session goes (roles are in the errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// No session needed or looked at.
    Public,
    /// Works without a session; a session changes the answer.
    OptionalSession,
    /// A bearer token or the session cookie.
    Session,
}

/// A route's access and the keys it can refuse with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusals {
    pub access: Access,
    /// Listed in this order within each status.
    pub errors: Cow<'static, [ErrorKey]>,
}

impl Refusals {
    pub const fn new(access: Access, errors: &'static [ErrorKey]) -> Self {
        Refusals { access, errors: Cow::Borrowed(errors) }
    }

    /// The operation's declaration, if it has one (a malformed one is none).
    pub fn of(operation: &Operation) -> Option<Refusals> {
        let declared = operation.extensions.as_ref()?.get(EXTENSION)?;
        serde_json::from_value(declared.clone()).ok()
    }

    /// The operation's declaration, taken out of it: the extension is ours,
    /// not something for the document's readers.
    pub fn take(operation: &mut Operation) -> Option<Refusals> {
        let refusals = Refusals::of(operation);
        if let Some(extensions) = operation.extensions.as_mut() {
            extensions.remove(EXTENSION);
            if extensions.is_empty() {
                operation.extensions = None;
            }
        }
        refusals
    }
}

/// Any access and exactly these keys: `refusals!(Session: MustLogin, InvalidInput)`.
macro_rules! refusals {
    ($access:ident: $($key:ident),* $(,)?) => {
        $crate::openapi::refusals::Refusals::new(
            $crate::openapi::refusals::Access::$access,
            &[$(::wayfare_engine::ErrorKey::$key),*],
        )
    };
}

/// No session needed or looked at; these keys.
macro_rules! public {
    ($($key:ident),* $(,)?) => { $crate::openapi::refusals::refusals!(Public: $($key),*) };
}

/// No session, and a JSON body: a body that is not the expected JSON is 400
/// `invalid_input` (with `field: "body"`), one over the size limit 413.
macro_rules! public_with_body {
    ($($key:ident),* $(,)?) => {
        $crate::openapi::refusals::refusals!(Public: InvalidInput, FileTooLarge, $($key),*)
    };
}

/// Works with or without a session; these keys.
macro_rules! optional_session {
    ($($key:ident),* $(,)?) => { $crate::openapi::refusals::refusals!(OptionalSession: $($key),*) };
}

/// A signed-in caller (the `CurrentUser` extractor: no, stale or revoked
/// session; an account not approved; a session whose user is gone) and more keys.
macro_rules! session {
    ($($key:ident),* $(,)?) => {
        $crate::openapi::refusals::refusals!(
            Session: NotLoggedIn, RequireApproval, UserIssueContactAdmin, $($key),*
        )
    };
}

/// A signed-in caller with a JSON body (`session!` and `public_with_body!`) and more keys.
macro_rules! session_with_body {
    ($($key:ident),* $(,)?) => {
        $crate::openapi::refusals::session![InvalidInput, FileTooLarge, $($key),*]
    };
}

/// Every booking command: someone else's booking or a malformed id is 404;
/// a role that may not do it 403; a status that does not allow it 409; a
/// concurrent change that won the version check 409.
macro_rules! booking_command {
    ($($key:ident),* $(,)?) => {
        $crate::openapi::refusals::session![NotFound, NotAllowed, StatusNotAllowed, UpdateFailed, $($key),*]
    };
}

pub(crate) use {booking_command, optional_session, public, public_with_body, refusals, session, session_with_body};

#[cfg(test)]
mod tests {
    use super::*;
    use wayfare_engine::ErrorKey::*;

    #[test]
    fn the_shorthands_add_the_keys_every_route_of_their_kind_has() {
        assert_eq!(public![], Refusals::new(Access::Public, &[]));
        assert_eq!(public_with_body![UserExists].errors, &[InvalidInput, FileTooLarge, UserExists][..]);
        assert_eq!(optional_session![NotFound].access, Access::OptionalSession);
        let signed_in = session![NotFound];
        assert_eq!(signed_in.access, Access::Session);
        assert_eq!(signed_in.errors, &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, NotFound][..]);
        assert_eq!(
            session_with_body![].errors,
            &[NotLoggedIn, RequireApproval, UserIssueContactAdmin, InvalidInput, FileTooLarge][..]
        );
        assert_eq!(
            booking_command![BookingTaken].errors,
            &[
                NotLoggedIn,
                RequireApproval,
                UserIssueContactAdmin,
                NotFound,
                NotAllowed,
                StatusNotAllowed,
                UpdateFailed,
                BookingTaken
            ][..]
        );
    }

    #[test]
    fn a_declaration_reads_back_from_its_extension_and_leaves_nothing_behind() {
        let declared = booking_command![BookingTaken];
        let mut operation = Operation::new();
        operation.extensions = Some([(EXTENSION, serde_json::to_value(&declared).unwrap())].into_iter().collect());
        assert_eq!(Refusals::of(&operation), Some(declared.clone()));
        assert_eq!(Refusals::take(&mut operation), Some(declared));
        assert!(operation.extensions.is_none());
        assert_eq!(Refusals::take(&mut operation), None);
    }
}
