use crate::model::{Booking, BookingStatus, Role, Settings};
use serde::Serialize;

/// Which row actions the bookings table enables (spec §4 "Panel actions").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct PanelActions {
    pub cancel: bool,
    pub assign: bool,
    pub pay_now: bool,
}

/// Cancel: NEW, ACCEPTED or PAYMENT_PENDING, critical edits allowed, rider or
/// admin. Assign: NEW, admin, autoDispatch off. Pay now: PENDING, rider.
pub fn panel_actions(booking: &Booking, role: Role, settings: &Settings) -> PanelActions {
    let status = booking.status;
    PanelActions {
        cancel: matches!(status, BookingStatus::New | BookingStatus::Accepted | BookingStatus::PaymentPending)
            && !settings.demo_mode()
            && matches!(role, Role::Rider | Role::Admin),
        assign: status == BookingStatus::New && role == Role::Admin && !settings.autoDispatch,
        pay_now: status == BookingStatus::Pending && role == Role::Rider,
    }
}
