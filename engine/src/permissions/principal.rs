//! The signed-in caller, and the sets of roles the rules name.

use crate::ids::UserId;
use crate::model::{Role, User};

/// The signed-in caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Principal {
    pub id: UserId,
    pub role: Role,
    /// A driver's owning fleet admin.
    pub fleet: Option<UserId>,
}

impl Principal {
    pub fn new(id: UserId, role: Role) -> Self {
        Principal { id, role, fleet: None }
    }

    pub fn from_user(user: &User) -> Self {
        Principal { id: user.id, role: user.usertype, fleet: user.fleetadmin }
    }
}

pub(super) const EVERY_ROLE: &[Role] = &[Role::Rider, Role::Driver, Role::Fleetadmin, Role::Admin];
pub(super) const ADMIN_AND_FLEET: &[Role] = &[Role::Admin, Role::Fleetadmin];
pub(super) const ADMIN_ONLY: &[Role] = &[Role::Admin];
