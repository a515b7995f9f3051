//! The booking flow (DESIGN.md contract), a file per use: [`create`]
//! (estimate and book), [`read`] (the list and its export, one booking, a
//! driver's offers), [`commands`] (every command of the state machine),
//! [`chat`] and [`tracking`]. What other resources use is re-exported here.

mod chat;
mod commands;
mod create;
mod read;
mod tracking;

pub(crate) use commands::run;
pub(crate) use create::{CreateBody, TripBody, book};
pub(crate) use read::{Items, fleets_of, presented, presented_one};

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::routes::ApiRouter;
use crate::state::AppState;
use std::sync::Arc;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::{Booking, BookingId, ErrorKey};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .merge(create::router())
        .merge(read::router())
        .merge(commands::router())
        .merge(chat::router())
        .merge(tracking::router())
}

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
