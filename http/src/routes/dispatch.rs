//! The live dispatch console's REST side (docs/architecture.md "Live
//! dispatch console"): a booking's dispatch timeline from storage. Admins
//! see everything; a fleet admin their fleet's bookings, with other fleets'
//! drivers cut out.

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::PathParam;
use crate::routes::bookings::authorised;
use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use wayfare_engine::dispatch::DispatchEntry;
use wayfare_engine::permissions::Action;
use wayfare_engine::{BookingId, ErrorKey, Role, UserId};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/bookings/{id}/dispatch", get(timeline))
}

/// Admins and fleet admins only: the console is theirs.
fn console_viewer(current: &CurrentUser) -> ApiResult<()> {
    match current.principal.role {
        Role::Admin | Role::Fleetadmin => Ok(()),
        Role::Rider | Role::Driver => Err(ErrorKey::NotAllowed.into()),
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/dispatch",
    tag = "dispatch",
    summary = "A booking's dispatch timeline",
    description = "Admins and fleet admins: every dispatch log entry of the booking, oldest first, as the socket's `dispatch` event sent them (waves offered with each driver's distance, withdrawals with their reason, the accept, no candidates, exhausted, cancelled). Kept in storage: a finished booking's, and after a restart. A fleet admin reads their fleet's bookings only (another's is 404) and sees only their own drivers in it.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The timeline", body = crate::openapi::schemas::DispatchTimeline))
)]
pub(crate) async fn timeline(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Value>> {
    console_viewer(&current)?;
    authorised(&state, &current, id, Action::BookingRead).await?;
    let entries = state.runtime.dispatch_timeline(id).await?;
    let items = match current.principal.role {
        Role::Fleetadmin => for_fleet(&state, current.principal.id, entries).await?,
        _ => entries,
    };
    Ok(Json(json!({ "items": items })))
}

/// The entries as a fleet admin sees them (`DispatchEntry::for_fleet`); the
/// booking is theirs, so entries naming no driver stay.
async fn for_fleet(state: &AppState, fleet: UserId, entries: Vec<DispatchEntry>) -> ApiResult<Vec<DispatchEntry>> {
    let named: BTreeSet<UserId> = entries.iter().flat_map(|entry| entry.log.drivers().iter().copied()).collect();
    let named: Vec<UserId> = named.into_iter().collect();
    let fleets: HashMap<UserId, Option<UserId>> =
        state.storage.users_by_id(&named).await?.into_iter().map(|user| (user.id, user.fleetadmin)).collect();
    let is_theirs = |driver: UserId| fleets.get(&driver).copied().flatten() == Some(fleet);
    Ok(entries.iter().filter_map(|entry| entry.for_fleet(is_theirs, true)).collect())
}
