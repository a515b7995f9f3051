//! Who may see which page and do what (spec §2 route table, §6 roles, §5 demo
//! mode; DESIGN.md invariant 6, least privilege): page guards for the UI, one
//! `authorize` for every server operation, list scopes per role, and the
//! masking of contact data in demo mode.
//!
//! Authorisation answers in a fixed order so it never leaks what it guards:
//! no session is `not_logged_in`; a role that may never do the action is
//! `not_allowed` whatever the resource; a resource the caller may not know
//! exists (another rider's booking, a booking never offered to this driver,
//! another fleet's driver) is `not_found`, so ids cannot be probed; a known
//! resource the caller may not act on is `not_allowed`; and only then demo
//! mode refuses admin-panel writes with `demo_mode`. Whether the booking's
//! status allows the step is the state machine's business, not this module's.
//!
//! The module is a folder by question: `pages` (the UI's route guards),
//! `actions` (every server operation and the roles that may ever do it),
//! `authorize` (the one decision, against a booking or an account), `scopes`
//! (what each role's lists show) and `visibility` (what is hidden from whom).
//! Callers use the names re-exported here.

mod actions;
mod authorize;
mod pages;
mod principal;
mod scopes;
mod visibility;

pub use actions::Action;
pub use authorize::{BookingRef, Resource, UserRef, authorize, can_see_booking, fleet_for_new_user};
pub use pages::{Page, home_after_login, landing_shows_booking_form, page_allowed};
pub use principal::Principal;
pub use scopes::{
    BookingScope, ReportScope, SosScope, UserScope, WithdrawScope, booking_list_scope, report_scope, sos_scope,
    user_list_scope, withdraw_list_scope,
};
pub use visibility::{can_see_fare_split, mask_contact};

#[cfg(test)]
mod tests;
