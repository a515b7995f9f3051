//! The one check every booking route starts with: the caller's role may do
//! the action at all, then on this booking.

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::state::AppState;
use std::sync::Arc;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::{Booking, BookingId, ErrorKey};

/// The booking if the caller may do `action` on it; others' bookings are 404.
pub(crate) async fn authorised(
    state: &AppState,
    current: &CurrentUser,
    id: BookingId,
    action: Action,
) -> ApiResult<Arc<Booking>> {
    // A role that may never do this is refused before the lookup, so a 404 never tells it which ids exist.
    if !action.allowed_roles().contains(&current.principal.role) {
        return Err(ErrorKey::NotAllowed.into());
    }
    let booking = state.runtime.booking(id).await?;
    let settings = &state.runtime.catalog().settings;
    authorize(Some(&current.principal), action, Resource::Booking((&*booking).into()), settings)?;
    Ok(booking)
}
