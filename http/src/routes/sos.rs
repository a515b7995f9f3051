//! SOS (issue 33): during a trip the rider or the driver raises an alert
//! with where they are; it is stored first, then sent at once to every
//! admin and to the fleet admin of the booking's driver (the socket's `sos`
//! event, and a push to their devices when push is configured). They take it
//! (the banners drop it) and resolve it with a note. The rules are in
//! `wayfare_engine::sos`; who may see which alert in `permissions::sos_scope`.
//!
//! Taking and resolving are safety actions: allowed in demo mode too.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::notify::{self, PushMessage};
use crate::openapi::refusals::{session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use utoipa_axum::routes;
use wayfare_actors::Event;
use wayfare_engine::permissions::{Action, Principal, Resource, SosScope, authorize, sos_scope};
use wayfare_engine::sos::{self, SosAlert};
use wayfare_engine::{BookingId, DomainError, ErrorKey, LatLng, Role, SosId};
use wayfare_storage::{PageRequest, PushFilter, SosFilter, StorageError};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(raise))
        .routes(routes!(list))
        .routes(routes!(read))
        .routes(routes!(take))
        .routes(routes!(resolve))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SosBody {
    /// Where the caller is now (the phone's position), -90 to 90.
    #[schema(required = true, nullable = false, minimum = -90, maximum = 90)]
    pub lat: Option<f64>,
    /// -180 to 180.
    #[schema(required = true, nullable = false, minimum = -180, maximum = 180)]
    pub lng: Option<f64>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResolveBody {
    /// What was done: required, 1 to 2000 characters.
    #[schema(required = true, nullable = false, min_length = 1, max_length = 2000)]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SosQuery {
    /// Page size, 1 to 500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// The `next` cursor of the previous page.
    #[param(pattern = "^[0-9a-fA-F]{48}$")]
    pub after: Option<String>,
    /// `open`: only the alerts nobody has taken yet (what the banners show).
    #[param(pattern = "^open$")]
    pub state: Option<String>,
}

#[utoipa::path(
    post,
    operation_id = "raise_sos",
    path = "/api/v1/bookings/{id}/sos",
    tag = "sos",
    summary = "Raise an SOS",
    description = "The booking's rider or its assigned driver, while a driver is on the trip (ACCEPTED, ARRIVED, STARTED, REACHED, PENDING; otherwise 409 `sos_no_trip`: a NEW booking has no trip yet). Someone else's booking is 404 as on every booking route; admins and fleet admins are 403. A position off the map is 400 `invalid_input` on `location`. The alert is stored, then sent at once to every admin and to the fleet admin of the booking's driver (socket event `sos`). A second SOS by the same person on the same booking while theirs is unresolved answers that alert (200) and tells no one again. Answers the alert and the `panic` number from the settings (empty when none is set), for a `tel:` link. Allowed in demo mode.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = SosBody,
    responses(
        (status = 201, description = "The new alert and the panic number", body = crate::openapi::schemas::SosRaised),
        (status = 200, description = "The caller's alert already open on this booking", body = crate::openapi::schemas::SosRaised),
    ),
    extensions(("x-refusals" = json!(session_with_body![NotFound, NotAllowed, SosNoTrip]))),
)]
async fn raise(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<SosBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let booking = super::bookings::authorised(&state, &current, id, Action::SosRaise).await?;
    let (Some(lat), Some(lng)) = (body.lat, body.lng) else {
        return Err(ApiError::field(ErrorKey::InvalidInput, "location"));
    };
    let name = match current.principal.role {
        Role::Driver if !booking.driver_name.trim().is_empty() => booking.driver_name.clone(),
        Role::Rider if !booking.customer_name.trim().is_empty() => booking.customer_name.clone(),
        _ => current.user.full_name(),
    };
    let alert = sos::raise(
        SosId(uuid::Uuid::now_v7()),
        &booking,
        current.principal.id,
        current.principal.role,
        &name,
        LatLng::new(lat, lng),
        state.now(),
    )?;
    // Durable before anyone is told (invariant 3).
    let (stored, created) = state.storage.raise_sos(&alert, state.now()).await?;
    if created {
        tracing::warn!(sos_id = %stored.id, booking_id = %stored.booking, raised_by = %stored.raised_by, "sos raised");
        let told = Arc::new(stored.clone());
        state.runtime.bus().publish(Event::Sos(told.clone()));
        tokio::spawn(push_to_handlers(state.clone(), told));
    }
    let panic = state.runtime.catalog().settings.panic.clone();
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(json!({ "alert": present::sos(&stored), "panic": panic }))))
}

/// A push to the devices of every admin and of the booking's fleet admin,
/// in their language; the socket event has reached the open panels already.
async fn push_to_handlers(state: AppState, alert: Arc<SosAlert>) {
    if !state.notifier.pushes() {
        return;
    }
    let languages = match state.languages.get(state.storage.as_ref()).await {
        Ok(languages) => languages,
        Err(error) => return tracing::warn!(%error, "sos push not sent: the languages could not be read"),
    };
    let settings = state.runtime.catalog().settings.clone();
    let filter = PushFilter { roles: vec![Role::Admin, Role::Fleetadmin], platforms: Vec::new() };
    let mut page = PageRequest::first(500);
    let mut messages = Vec::new();
    loop {
        let targets = match state.storage.push_targets(&filter, &page).await {
            Ok(targets) => targets,
            Err(error) => return tracing::warn!(%error, "sos push not sent: the admins could not be read"),
        };
        for target in &targets.items {
            let concerned = target.role == Role::Admin || alert.fleetadmin == Some(target.user);
            let Some(token) = target.push_token.clone().filter(|token| concerned && !token.is_empty()) else {
                continue;
            };
            let localizer = languages.localizer(target.language.as_deref());
            messages.push(PushMessage {
                token,
                platform: target.platform,
                title: localizer.text("sos.push.title"),
                body: format!("{} · {}", alert.raised_by_name, alert.reference),
                data: json!({ "screen": "sos", "params": { "sosId": alert.id, "bookingId": alert.booking } }),
                channel: notify::channel(&settings).to_string(),
            });
        }
        let Some(after) = targets.next else { break };
        page = PageRequest { limit: 500, after: Some(after) };
    }
    if !messages.is_empty() {
        state.notifier.push(messages).await;
    }
}

/// The caller's scope after the role check.
fn scope_of(state: &AppState, principal: &Principal, action: Action) -> ApiResult<SosScope> {
    authorize(Some(principal), action, Resource::None, &state.runtime.catalog().settings)?;
    Ok(sos_scope(principal)?)
}

/// The alert if the caller may see it; another fleet's is 404.
async fn visible(state: &AppState, scope: SosScope, id: SosId) -> ApiResult<SosAlert> {
    let alert = state.storage.sos_alert(id).await?;
    if !scope.sees(alert.fleetadmin) {
        return Err(ErrorKey::NotFound.into());
    }
    Ok(alert)
}

#[utoipa::path(
    get,
    operation_id = "list_sos",
    path = "/api/v1/sos",
    tag = "sos",
    summary = "List SOS alerts",
    description = "Admins see every alert; fleet admins those on their drivers' bookings; riders and drivers are 403. Unresolved alerts first, then newest first. `state=open` lists only the alerts nobody has taken (the banners). Paginated with `limit` and `after` (the previous page's `next`).",
    params(SosQuery),
    responses((status = 200, description = "A page of alerts", body = crate::openapi::schemas::SosPage)),
    extensions(("x-refusals" = json!(session![InvalidInput, NotAllowed]))),
)]
async fn list(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<SosQuery>,
) -> ApiResult<Json<Value>> {
    let scope = scope_of(&state, &current.principal, Action::SosRead)?;
    let open_only = match query.state.as_deref() {
        None | Some("") => false,
        Some("open") => true,
        Some(_) => return Err(ApiError::field(ErrorKey::InvalidInput, "state")),
    };
    let request = super::page_request(query.limit, query.after)?;
    let fleetadmin = match scope {
        SosScope::All => None,
        SosScope::Fleet(fleet) => Some(fleet),
    };
    let page = state.storage.sos_alerts(&SosFilter { fleetadmin, open_only }, &request).await?;
    let items: Vec<Value> = page.items.iter().map(present::sos).collect();
    Ok(Json(json!({ "items": items, "next": page.next })))
}

#[utoipa::path(
    get,
    operation_id = "read_sos",
    path = "/api/v1/sos/{id}",
    tag = "sos",
    summary = "Read an SOS alert",
    description = "Admins; a fleet admin for their drivers' bookings (another fleet's alert is 404).",
    params(("id" = SosId, Path, description = "The alert's id")),
    responses((status = 200, description = "The alert", body = crate::openapi::schemas::SosAlertShown)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound]))),
)]
async fn read(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<SosId>,
) -> ApiResult<Json<Value>> {
    let scope = scope_of(&state, &current.principal, Action::SosRead)?;
    let alert = visible(&state, scope, id).await?;
    Ok(Json(present::sos(&alert)))
}

#[utoipa::path(
    post,
    operation_id = "take_sos",
    path = "/api/v1/sos/{id}/take",
    tag = "sos",
    summary = "Take an SOS alert",
    description = "An admin, or the fleet admin of the booking's driver (another fleet's alert is 404), says they handle it: the banners drop it everywhere (socket event `sos`). An alert already taken is 409 `sos_already_taken`; a resolved one 409 `sos_already_resolved`. A safety action: allowed in demo mode.",
    params(("id" = SosId, Path, description = "The alert's id")),
    responses((status = 200, description = "The taken alert", body = crate::openapi::schemas::SosAlertShown)),
    extensions(("x-refusals" = json!(session![
        NotAllowed, NotFound, SosAlreadyTaken, SosAlreadyResolved, UpdateFailed
    ]))),
)]
async fn take(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<SosId>,
) -> ApiResult<Json<Value>> {
    let scope = scope_of(&state, &current.principal, Action::SosManage)?;
    let name = current.user.full_name();
    let by = current.principal.id;
    let taken = step(&state, scope, id, |alert, now| sos::take(alert, by, &name, now)).await?;
    Ok(Json(present::sos(&taken)))
}

#[utoipa::path(
    post,
    operation_id = "resolve_sos",
    path = "/api/v1/sos/{id}/resolve",
    tag = "sos",
    summary = "Resolve an SOS alert",
    description = "An admin, or the fleet admin of the booking's driver (another fleet's alert is 404), closes it with a note (required: 400 `sos_note_required`; at most 2000 characters). An alert nobody took is taken by the same person. A resolved alert is 409 `sos_already_resolved`. Sent to the same sockets as the alert (event `sos`). A safety action: allowed in demo mode.",
    params(("id" = SosId, Path, description = "The alert's id")),
    request_body = ResolveBody,
    responses((status = 200, description = "The resolved alert", body = crate::openapi::schemas::SosAlertShown)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, NotFound, SosNoteRequired, SosAlreadyResolved, UpdateFailed
    ]))),
)]
async fn resolve(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<SosId>,
    Body(body): Body<ResolveBody>,
) -> ApiResult<Json<Value>> {
    let scope = scope_of(&state, &current.principal, Action::SosManage)?;
    let name = current.user.full_name();
    let by = current.principal.id;
    let note = body.note.unwrap_or_default();
    let resolved = step(&state, scope, id, |alert, now| sos::resolve(alert, by, &name, &note, now)).await?;
    Ok(Json(present::sos(&resolved)))
}

/// Attempts at a step when someone else keeps moving the alert first.
const STEP_ATTEMPTS: usize = 3;

/// Reads the alert, lets the engine decide the step, writes it guarded by
/// the state it was decided on, then tells the sockets. When someone else
/// moved the alert in between (`Conflict`), the step is decided again on
/// the alert as it now is, so the answer is the engine's for that state.
async fn step(
    state: &AppState,
    scope: SosScope,
    id: SosId,
    decide: impl Fn(&SosAlert, i64) -> Result<SosAlert, DomainError>,
) -> ApiResult<SosAlert> {
    for _ in 0..STEP_ATTEMPTS {
        let before = visible(state, scope, id).await?;
        let now = state.now();
        let after = decide(&before, now)?;
        match state.storage.update_sos(&after, before.state(), now).await {
            Ok(()) => {
                state.runtime.bus().publish(Event::Sos(Arc::new(after.clone())));
                return Ok(after);
            }
            Err(StorageError::Conflict) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(ErrorKey::UpdateFailed.into())
}
