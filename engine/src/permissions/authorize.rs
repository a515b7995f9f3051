//! The one decision for every server operation: `authorize`, and the
//! booking, account and new-account checks behind it.

use super::actions::{Action, Target};
use super::principal::Principal;
use crate::error::{DomainResult, ErrorKey};
use crate::ids::UserId;
use crate::model::{Booking, Role, Settings, User};
use std::collections::BTreeSet;

/// What a booking-level check needs to know about a booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookingRef<'a> {
    pub customer: UserId,
    pub driver: Option<UserId>,
    pub requested_drivers: &'a BTreeSet<UserId>,
    pub fleetadmin: Option<UserId>,
}

impl<'a> From<&'a Booking> for BookingRef<'a> {
    fn from(booking: &'a Booking) -> Self {
        BookingRef {
            customer: booking.customer,
            driver: booking.driver,
            requested_drivers: &booking.requestedDrivers.0,
            fleetadmin: booking.fleetadmin,
        }
    }
}

/// What a user-level check needs to know about an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserRef {
    pub id: UserId,
    pub role: Role,
    pub fleetadmin: Option<UserId>,
}

impl From<&User> for UserRef {
    fn from(user: &User) -> Self {
        UserRef { id: user.id, role: user.usertype, fleetadmin: user.fleetadmin }
    }
}

/// The resource an action is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource<'a> {
    /// Lists, creation, settings and other platform-wide actions.
    None,
    Booking(BookingRef<'a>),
    User(UserRef),
    /// An account about to be added, by its role.
    NewUser {
        role: Role,
    },
}

/// Decides whether `principal` may do `action` on `resource` (see the module
/// comment for the order of answers).
///
/// - Riders act on their own bookings; drivers on bookings they are offered
///   or assigned (the trip steps, payment and chat only when assigned);
///   fleet admins on their fleet's bookings and drivers; admins on everything.
/// - A driver accepting or declining a booking already taken by another driver
///   passes, so the state machine answers `booking_taken` (409, invariant 2)
///   instead of a 404 the loser could not make sense of.
/// - Riders may ask for a withdraw only when `RiderWithDraw` is on.
/// - An admin may not delete their own account.
/// - An action given the wrong kind of resource is refused as `not_found`:
///   fail closed on a caller's mistake.
pub fn authorize(
    principal: Option<&Principal>,
    action: Action,
    resource: Resource<'_>,
    settings: &Settings,
) -> DomainResult<()> {
    let Some(principal) = principal else {
        return if action.is_public() { Ok(()) } else { Err(ErrorKey::NotLoggedIn.into()) };
    };
    if !action.allowed_roles().contains(&principal.role) {
        return Err(ErrorKey::NotAllowed.into());
    }
    if action == Action::WithdrawCreate && principal.role == Role::Rider && !settings.RiderWithDraw {
        return Err(ErrorKey::NotAllowed.into());
    }
    match (action.target(), resource) {
        (Target::Nothing, _) => {}
        (Target::Booking, Resource::Booking(booking)) => check_booking(principal, action, booking)?,
        (Target::User, Resource::User(user)) => check_user(principal, action, user)?,
        (Target::NewUser, Resource::NewUser { role }) => check_new_user(principal, role)?,
        _ => return Err(ErrorKey::NotFound.into()),
    }
    if settings.demo_mode() && action.refused_in_demo_mode(principal.role) {
        return Err(ErrorKey::DemoMode.into());
    }
    Ok(())
}

/// Whether the booking exists as far as this principal is concerned (spec §6).
pub fn can_see_booking(principal: &Principal, booking: BookingRef<'_>) -> bool {
    match principal.role {
        Role::Rider => booking.customer == principal.id,
        Role::Driver => booking.driver == Some(principal.id) || booking.requested_drivers.contains(&principal.id),
        Role::Fleetadmin => booking.fleetadmin == Some(principal.id),
        Role::Admin => true,
    }
}

fn check_booking(principal: &Principal, action: Action, booking: BookingRef<'_>) -> DomainResult<()> {
    let is_driver = principal.role == Role::Driver;
    let taken_by_another = booking.driver.is_some_and(|driver| driver != principal.id);
    if is_driver && matches!(action, Action::BookingAccept | Action::BookingDecline) && taken_by_another {
        return Ok(());
    }
    if !can_see_booking(principal, booking) {
        return Err(ErrorKey::NotFound.into());
    }
    // A driver who is only offered the booking may read, accept, decline or
    // cancel it; the trip itself belongs to the assigned driver.
    let needs_assigned_driver = matches!(
        action,
        Action::BookingArrive
            | Action::BookingStart
            | Action::BookingReach
            | Action::BookingPay
            | Action::BookingChat
            | Action::BookingTracking
            | Action::ParcelImageUpload
            | Action::SosRaise
    );
    if is_driver && needs_assigned_driver && booking.driver != Some(principal.id) {
        return Err(ErrorKey::NotAllowed.into());
    }
    Ok(())
}

fn check_user(principal: &Principal, action: Action, user: UserRef) -> DomainResult<()> {
    let is_self = user.id == principal.id;
    let in_my_fleet = user.role == Role::Driver && user.fleetadmin == Some(principal.id);
    let is_licence = matches!(action, Action::LicenseUpload | Action::LicenseRead);
    match (principal.role, action) {
        (_, Action::WalletRead) if is_self => Ok(()),
        // Only drivers have a licence: their own, their fleet's, or any for admins.
        (_, _) if is_licence && user.role != Role::Driver => {
            if is_self || principal.role == Role::Admin {
                Err(ErrorKey::NotAllowed.into())
            } else {
                Err(ErrorKey::NotFound.into())
            }
        }
        (Role::Driver, _) if is_licence && is_self => Ok(()),
        // The console messages drivers; anyone else is not one it can reach.
        (_, Action::DriverMessage) if user.role != Role::Driver => Err(ErrorKey::NotFound.into()),
        (Role::Admin, Action::UserDelete) if is_self => Err(ErrorKey::NotAllowed.into()),
        (Role::Admin, _) => Ok(()),
        // The contract shows wallets to their owner and admins; a fleet admin
        // knows their drivers exist but does not read their wallets.
        (Role::Fleetadmin, Action::WalletRead) if in_my_fleet => Err(ErrorKey::NotAllowed.into()),
        // Their own account goes through ProfileUpdate, not the manager's edit.
        (Role::Fleetadmin, _) if is_self => Err(ErrorKey::NotAllowed.into()),
        (Role::Fleetadmin, _) if in_my_fleet => Ok(()),
        _ => Err(ErrorKey::NotFound.into()),
    }
}

fn check_new_user(principal: &Principal, role: Role) -> DomainResult<()> {
    match principal.role {
        Role::Admin => Ok(()),
        Role::Fleetadmin if role == Role::Driver => Ok(()),
        _ => Err(ErrorKey::NotAllowed.into()),
    }
}

/// The fleet a new account belongs to when this principal adds it: a fleet
/// admin's drivers get their id (spec §6); an admin's choice is their own.
pub fn fleet_for_new_user(principal: &Principal, role: Role) -> Option<UserId> {
    (principal.role == Role::Fleetadmin && role == Role::Driver).then_some(principal.id)
}
