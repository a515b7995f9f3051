//! What each role's lists show (spec §6): bookings, users, withdraw
//! requests, SOS alerts and earnings reports.

use super::authorize::UserRef;
use super::principal::Principal;
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::UserId;
use crate::model::{Booking, Role, User};

/// Which bookings a principal's list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BookingScope {
    /// A rider's: `customer == id`.
    Customer(UserId),
    /// A driver's: `driver == id`. Offers come through the task list instead.
    Driver(UserId),
    /// A fleet admin's: `fleetadmin == id`.
    Fleet(UserId),
    All,
}

impl BookingScope {
    pub fn matches(&self, booking: &Booking) -> bool {
        match *self {
            BookingScope::Customer(id) => booking.customer == id,
            BookingScope::Driver(id) => booking.driver == Some(id),
            BookingScope::Fleet(id) => booking.fleetadmin == Some(id),
            BookingScope::All => true,
        }
    }
}

pub fn booking_list_scope(principal: &Principal) -> BookingScope {
    match principal.role {
        Role::Rider => BookingScope::Customer(principal.id),
        Role::Driver => BookingScope::Driver(principal.id),
        Role::Fleetadmin => BookingScope::Fleet(principal.id),
        Role::Admin => BookingScope::All,
    }
}

/// Which users a principal's list shows: these roles, and only this fleet's
/// when `fleet` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserScope {
    pub roles: Vec<Role>,
    pub fleet: Option<UserId>,
}

impl UserScope {
    pub fn matches(&self, user: &User) -> bool {
        self.roles.contains(&user.usertype) && self.fleet.is_none_or(|fleet| user.fleetadmin == Some(fleet))
    }
}

/// The user list for a table: an admin sees the asked role, and without a
/// filter everyone but admins (the admin table asks for admins, spec §6); a
/// fleet admin sees only their fleet's drivers and asking for another role is
/// `not_allowed`; riders and drivers list no one.
pub fn user_list_scope(principal: &Principal, role_filter: Option<Role>) -> DomainResult<UserScope> {
    match (principal.role, role_filter) {
        (Role::Admin, Some(role)) => Ok(UserScope { roles: vec![role], fleet: None }),
        (Role::Admin, None) => Ok(UserScope { roles: vec![Role::Rider, Role::Driver, Role::Fleetadmin], fleet: None }),
        (Role::Fleetadmin, None | Some(Role::Driver)) => {
            Ok(UserScope { roles: vec![Role::Driver], fleet: Some(principal.id) })
        }
        _ => Err(DomainError::new(ErrorKey::NotAllowed)),
    }
}

/// Whose withdraw requests a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WithdrawScope {
    Owner(UserId),
    All,
}

/// Admins see every withdraw request; riders and drivers their own.
pub fn withdraw_list_scope(principal: &Principal) -> WithdrawScope {
    match principal.role {
        Role::Admin => WithdrawScope::All,
        _ => WithdrawScope::Owner(principal.id),
    }
}

/// Whose SOS alerts a principal sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SosScope {
    All,
    /// Those raised on bookings driven by this fleet admin's drivers.
    Fleet(UserId),
}

/// Admins see every SOS alert; fleet admins their fleet's; riders and
/// drivers none (they raise alerts, they do not handle them).
pub fn sos_scope(principal: &Principal) -> DomainResult<SosScope> {
    match principal.role {
        Role::Admin => Ok(SosScope::All),
        Role::Fleetadmin => Ok(SosScope::Fleet(principal.id)),
        Role::Rider | Role::Driver => Err(ErrorKey::NotAllowed.into()),
    }
}

impl SosScope {
    /// Whether an alert whose booking belongs to `fleetadmin` is in scope;
    /// one that is not is `not_found` to its caller, so ids cannot be probed.
    pub fn sees(&self, fleetadmin: Option<UserId>) -> bool {
        match *self {
            SosScope::All => true,
            SosScope::Fleet(id) => fleetadmin == Some(id),
        }
    }
}

/// Whose bookings an earnings table sums: set fields must all match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReportScope {
    /// Only this fleet admin's bookings.
    pub fleet: Option<UserId>,
    /// Only this driver's bookings.
    pub driver: Option<UserId>,
}

/// The earnings a principal's report covers (spec §2 "/driverearning",
/// "/earningreports"; §6): admins every driver, fleet admins their fleet's
/// bookings, drivers their own; riders none (`not_allowed`).
///
/// `driver` narrows it to one driver the caller may know: any for admins, a
/// driver of their own fleet for fleet admins, themself for drivers; anyone
/// else is `not_found`, as for the user routes, so ids cannot be probed.
pub fn report_scope(principal: &Principal, driver: Option<UserRef>) -> DomainResult<ReportScope> {
    let mut scope = match principal.role {
        Role::Admin => ReportScope::default(),
        Role::Fleetadmin => ReportScope { fleet: Some(principal.id), driver: None },
        Role::Driver => ReportScope { fleet: None, driver: Some(principal.id) },
        Role::Rider => return Err(ErrorKey::NotAllowed.into()),
    };
    if let Some(driver) = driver {
        let knowable = match principal.role {
            Role::Admin => true,
            Role::Fleetadmin => driver.role == Role::Driver && driver.fleetadmin == Some(principal.id),
            Role::Driver => driver.id == principal.id,
            Role::Rider => false,
        };
        if !knowable {
            return Err(ErrorKey::NotFound.into());
        }
        scope.driver = Some(driver.id);
    }
    Ok(scope)
}
