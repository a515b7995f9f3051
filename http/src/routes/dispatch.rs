//! The live dispatch console's REST side (docs/architecture.md "Live
//! dispatch console"): a booking's dispatch timeline from storage, the
//! active bookings the console starts from, and a message to one driver.
//! Admins see everything; a fleet admin their fleet's bookings and drivers,
//! with other fleets' drivers cut out.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::routes::bookings::{authorised, fleets_of};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use utoipa_axum::routes;
use wayfare_engine::dispatch::{DispatchEntry, round_km};
use wayfare_engine::permissions::{Action, Principal, Resource, UserRef, authorize};
use wayfare_engine::{Booking, BookingId, ErrorKey, LatLng, Role, UserId, geo};
use wayfare_storage::StorageError;

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(timeline))
        .routes(routes!(active))
        .routes(routes!(recent_log))
        .routes(routes!(message))
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
    responses((status = 200, description = "The timeline", body = crate::openapi::schemas::DispatchTimeline)),
    extensions(("x-refusals" = json!(session![NotFound, NotAllowed]))),
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
    let fleets = fleets_of(state, named).await?;
    let is_theirs = |driver: UserId| fleets.get(&driver).copied().flatten() == Some(fleet);
    Ok(entries.iter().filter_map(|entry| entry.for_fleet(is_theirs, true)).collect())
}

#[utoipa::path(
    get,
    path = "/api/v1/dispatch/active",
    tag = "dispatch",
    summary = "Active bookings for the console",
    description = "Admins and fleet admins: every booking not COMPLETE or CANCELLED, as the socket's `booking` event presents it, each with `offered`: the offers it holds now (`driver`, `deadline` — `null` for a broadcast or an admin's assignment — and `distance_km`, the driver's distance to the pickup now, `null` when the driver is not on the map). The console's starting state; the socket keeps it current. A fleet admin gets their fleet's bookings and those offered to one of their drivers, with only their drivers in `offered`, `requestedDrivers` and the dispatch history.",
    responses((status = 200, description = "The active bookings", body = crate::openapi::schemas::ActiveBookings)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
pub(crate) async fn active(
    State(state): State<AppState>,
    current: CurrentUser,
) -> ApiResult<Json<super::bookings::Items>> {
    console_viewer(&current)?;
    // The partial index on active bookings: no scan of finished ones.
    let bookings = state.storage.active_bookings().await?;
    let positions: HashMap<UserId, LatLng> = state
        .runtime
        .driver_positions()
        .await?
        .into_iter()
        .map(|driver| (driver.id, LatLng::new(driver.lat, driver.lng)))
        .collect();
    let settings = state.runtime.catalog().settings.clone();
    let offered_to = |booking: &Booking, is_shown: &dyn Fn(UserId) -> bool| -> Vec<Value> {
        let deadline = booking.dispatch.auto.then_some(booking.dispatch.deadline).flatten();
        let pickup = booking.pickup.point();
        booking
            .requestedDrivers
            .0
            .iter()
            .filter(|driver| is_shown(**driver))
            .map(|driver| {
                let distance_km = positions.get(driver).map(|at| round_km(geo::distance_km(*at, pickup)));
                json!({ "driver": driver, "deadline": deadline, "distance_km": distance_km })
            })
            .collect()
    };
    let items: Vec<Box<serde_json::value::RawValue>> = match current.principal.role {
        Role::Fleetadmin => {
            let fleet = current.principal.id;
            let requested = bookings.iter().flat_map(|booking| booking.requestedDrivers.0.iter().copied()).collect();
            let fleets = fleets_of(&state, requested).await?;
            let is_theirs = |driver: UserId| fleets.get(&driver).copied().flatten() == Some(fleet);
            bookings
                .iter()
                .filter(|booking| {
                    booking.fleetadmin == Some(fleet)
                        || (booking.driver.is_none()
                            && booking.requestedDrivers.0.iter().any(|driver| is_theirs(*driver)))
                })
                .map(|booking| {
                    let cut = present::fleet_cut(booking, is_theirs);
                    let view = present::BookingView::of(&cut, &Principal::new(fleet, Role::Fleetadmin), &settings);
                    let offered = json!(offered_to(booking, &is_theirs));
                    present::BookingJson::new(&cut).view_with(view, vec![("offered", offered)])
                })
                .collect()
        }
        _ => {
            let viewer = present::console_viewer();
            bookings
                .iter()
                .map(|booking| {
                    let view = present::BookingView::of(booking, &viewer, &settings);
                    let offered = json!(offered_to(booking, &|_| true));
                    present::BookingJson::new(booking).view_with(view, vec![("offered", offered)])
                })
                .collect()
        }
    };
    Ok(Json(super::bookings::Items { items }))
}

/// The most entries one read of the recent log returns (the console keeps 500).
const MAX_LOG: u32 = 500;
const DEFAULT_LOG: u32 = 200;

#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// How many of the newest entries, 1 to 500 (default 200).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

#[utoipa::path(
    get,
    path = "/api/v1/dispatch/log",
    tag = "dispatch",
    summary = "The recent dispatch log",
    description = "Admins and fleet admins: the newest dispatch log entries of every booking, newest first, as the socket's `dispatch` event sent them, read from storage, so a console opened (or reconnected) later starts with the recent past. A fleet admin sees the entries naming their drivers (cut to them) and, of the bookings offered to one of their drivers, those naming no driver (`no_candidates`, `exhausted`, `cancelled`).",
    params(LogQuery),
    responses((status = 200, description = "The entries", body = crate::openapi::schemas::DispatchTimeline)),
    extensions(("x-refusals" = json!(session![NotAllowed, InvalidInput]))),
)]
pub(crate) async fn recent_log(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<LogQuery>,
) -> ApiResult<Json<Value>> {
    console_viewer(&current)?;
    let limit = query.limit.unwrap_or(DEFAULT_LOG);
    if !(1..=MAX_LOG).contains(&limit) {
        return Err(ApiError::field(ErrorKey::InvalidInput, "limit"));
    }
    let entries = state.runtime.recent_dispatch_log(limit).await?;
    let items = match current.principal.role {
        Role::Fleetadmin => fleet_log(&state, current.principal.id, entries).await?,
        _ => entries,
    };
    Ok(Json(json!({ "items": items })))
}

/// A fleet's share of entries of many bookings: a booking concerns the fleet
/// when one of the entries read names one of its drivers (as the socket's
/// fan-out decides which fleets hear a booking's dispatch).
async fn fleet_log(state: &AppState, fleet: UserId, entries: Vec<DispatchEntry>) -> ApiResult<Vec<DispatchEntry>> {
    let named: BTreeSet<UserId> = entries.iter().flat_map(|entry| entry.log.drivers().iter().copied()).collect();
    let fleets = fleets_of(state, named).await?;
    let is_theirs = |driver: UserId| fleets.get(&driver).copied().flatten() == Some(fleet);
    let concerned: std::collections::HashSet<BookingId> = entries
        .iter()
        .filter(|entry| entry.log.drivers().iter().any(|driver| is_theirs(*driver)))
        .map(|entry| entry.booking)
        .collect();
    Ok(entries.iter().filter_map(|entry| entry.for_fleet(is_theirs, concerned.contains(&entry.booking))).collect())
}

/// Longest message, in characters.
const MAX_MESSAGE: usize = 2_000;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct DriverMessageBody {
    /// Required, 1 to 2000 characters (trimmed); empty is `no_details_error`.
    #[schema(required = true, nullable = false, min_length = 1, max_length = 2000)]
    #[serde(default)]
    pub message: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/drivers/{id}/message",
    tag = "dispatch",
    summary = "Message a driver",
    description = "Admins, and fleet admins to their own drivers: an in-app notification to one driver (the socket's `notification` event, `{key: \"message\", title, body, from, createdAt}`, the title in the driver's language), and a push to their device when push is configured. An empty message is 400 `no_details_error`, a longer one than 2000 characters `invalid_input`; someone who is not a driver, or another fleet's driver, is 404. Refused with `demo_mode` in demo mode.",
    params(("id" = UserId, Path, description = "The driver's id")),
    request_body = DriverMessageBody,
    responses((status = 200, description = "What the driver's app was sent", body = crate::openapi::schemas::DriverMessage)),
    extensions(("x-refusals" = json!(session_with_body![NoDetailsError, NotFound, NotAllowed, DemoMode]))),
)]
pub(crate) async fn message(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    Body(body): Body<DriverMessageBody>,
) -> ApiResult<Json<Value>> {
    console_viewer(&current)?;
    let text = body.message.as_deref().map(str::trim).unwrap_or_default();
    if text.is_empty() {
        return Err(ApiError::field(ErrorKey::NoDetailsError, "message"));
    }
    if text.chars().count() > MAX_MESSAGE {
        return Err(ApiError::field(ErrorKey::InvalidInput, "message"));
    }
    let driver = match state.storage.user(id).await {
        Ok(user) => user,
        Err(StorageError::NotFound) => return Err(ErrorKey::NotFound.into()),
        Err(error) => return Err(error.into()),
    };
    // Drivers only, a fleet admin's own; refused with `demo_mode` like every panel send.
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::DriverMessage, Resource::User(UserRef::from(&driver)), &settings)?;
    let sent = crate::notify::driver_message(&state, &driver, current.principal.id, text).await;
    Ok(Json(sent))
}
