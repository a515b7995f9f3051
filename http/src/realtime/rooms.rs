//! Socket.IO rooms (DESIGN.md): every user has their own; admins share the
//! dispatch console's; a fleet admin has their fleet's.

use wayfare_engine::UserId;

pub const DISPATCH: &str = "dispatch";

pub fn user(id: UserId) -> String {
    format!("user:{id}")
}

pub fn fleet(fleet_admin: UserId) -> String {
    format!("fleet:{fleet_admin}")
}
