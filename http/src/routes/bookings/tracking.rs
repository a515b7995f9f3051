//! A booking's tracking points, as the driver's positions were stored.

use super::access::authorised;
use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::PathParam;
use crate::openapi::refusals::session;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_engine::BookingId;
use wayfare_engine::permissions::Action;

pub(super) fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(tracking))
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/tracking",
    tag = "chat",
    summary = "Tracking points",
    description = "The driver's stored positions for the booking: one at each stage and during the trip every few seconds or metres.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The points", body = crate::openapi::schemas::TrackingResponse)),
    extensions(("x-refusals" = json!(session![NotFound, NotAllowed]))),
)]
async fn tracking(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Value>> {
    authorised(&state, &current, id, Action::BookingTracking).await?;
    let points = state.storage.tracking(id).await?;
    Ok(Json(json!({ "latest": points.last(), "points": points })))
}
