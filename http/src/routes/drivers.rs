//! A driver going online or offline and streaming positions over REST (the
//! socket's `location` event does the same).

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::Body;
use crate::openapi::refusals::{session, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_actors::LocationUpdate;
use wayfare_engine::permissions::{Action, Resource, authorize};
use wayfare_engine::{ErrorKey, LatLng};

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(status)).routes(routes!(location)).routes(routes!(area))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct StatusBody {
    pub driverActiveStatus: bool,
    /// Where the driver is as they go online (the app sends its current
    /// fix): dispatch starts from here, not from where they were last seen.
    #[serde(default)]
    #[schema(value_type = Option<crate::openapi::schemas::LocationUpdate>)]
    pub location: Option<LocationUpdate>,
}

#[utoipa::path(
    post,
    path = "/api/v1/drivers/me/status",
    tag = "drivers",
    summary = "Go online or offline",
    description = "An online driver is in the dispatch index and receives offers. The app sends its current fix as `location` (`{lat, lng, accuracy?, at?}`) so dispatch starts from where the driver is, not where they were last seen; a fix that is not a position or is vaguer than 100 m is refused with `invalid_input`.",
    request_body = StatusBody,
    responses((status = 200, description = "The new status", body = crate::openapi::schemas::DriverStatusResponse)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, DriverNotEligible, DocumentsMissing, DocumentExpired
    ]))),
)]
async fn status(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<StatusBody>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::DriverStatus, Resource::None, &settings)?;
    if body.driverActiveStatus {
        // Approval and documents first (issue #33): expired or missing ones keep the driver offline.
        crate::routes::applications::check_may_go_online(&state, &current.user).await?;
        // A driver without a car type could never be offered anything.
        let car_type = current.user.carType.as_deref().filter(|name| !name.is_empty());
        if car_type.is_none_or(|name| state.runtime.catalog().car_type(name).is_none()) {
            return Err(crate::error::ApiError::field(ErrorKey::DriverNotEligible, "carType"));
        }
        let fix = body.location.filter(|fix| fix.point().is_valid() && wayfare_engine::fix::is_usable(fix.accuracy));
        if body.location.is_some() && fix.is_none() {
            return Err(crate::error::ApiError::field(ErrorKey::InvalidInput, "location"));
        }
        match fix {
            Some(fix) => {
                let mut driver = current.user.clone();
                driver.location = Some(fix.point());
                state.runtime.driver_online(&driver).await?;
                // Stored and shown like any later fix.
                state.runtime.driver_location(current.principal.id, fix)?;
            }
            None => state.runtime.driver_online(&current.user).await?,
        }
    } else {
        state.runtime.driver_offline(current.principal.id).await?;
    }
    Ok(Json(json!({ "driverActiveStatus": body.driverActiveStatus })))
}

#[utoipa::path(
    post,
    path = "/api/v1/drivers/me/location",
    tag = "drivers",
    summary = "Report my position",
    description = "The same as the socket's `location` event; the driver must be online.",
    request_body = crate::openapi::schemas::LocationUpdate,
    responses((status = 200, description = "Accepted", body = crate::openapi::schemas::LocationAccepted)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DriverNotEligible]))),
)]
async fn location(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(update): Body<LocationUpdate>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::DriverLocation, Resource::None, &settings)?;
    state.runtime.driver_location(current.principal.id, update)?;
    let point = LatLng::new(update.lat, update.lng);
    Ok(Json(json!({ "ok": true, "lat": point.lat, "lng": point.lng })))
}

#[utoipa::path(
    get,
    path = "/api/v1/drivers/me/area",
    tag = "drivers",
    summary = "Where riders are expected near a free driver",
    description = "An area near a free, online driver where more riders are expected than free drivers will take: an H3 cell (resolution 8, about 0.74 km²) with its outline, centre, the riders expected there over the next hour and its distance. The server learns demand from the bookings asking for a driver now, per cell, from the last half hour and, after a day, from the same hour on earlier days, and weighs it against the free drivers of the same car type already there or pointed there lately. The app shows it on the driver's map; nobody is made to go. `area` is null for a driver who is offline or busy, or when nowhere near beats where they are. The driver it is shown to counts there for ten minutes, so the next driver asking is pointed elsewhere.",
    responses((status = 200, description = "The suggested area, or null", body = crate::openapi::schemas::SuggestedAreaResponse)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
async fn area(State(state): State<AppState>, current: CurrentUser) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::DriverStatus, Resource::None, &settings)?;
    let area = state.runtime.suggest_area(current.principal.id).await?;
    Ok(Json(json!({ "area": area })))
}
