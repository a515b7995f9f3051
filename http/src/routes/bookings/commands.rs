//! The commands of the booking's state machine (accept, decline, arrive,
//! start, reach, pay, rate, cancel, assign) and the drivers an admin may
//! assign. Each handler turns its request into the engine's [`Command`] and
//! [`run`] hands it to the booking's actor.

use super::access::authorised;
use super::read::presented_one;
use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{booking_command, session};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use utoipa_axum::routes;
use wayfare_engine::booking::{Command, DriverSnapshot};
use wayfare_engine::permissions::Action;
use wayfare_engine::rules::booking::{validate_cancel_reason, validate_rating};
use wayfare_engine::{Booking, BookingId, BookingStatus, ErrorKey, LatLng, PaymentMode, Role, UserId, dispatch, fare};

pub(super) fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(accept))
        .routes(routes!(decline))
        .routes(routes!(arrive))
        .routes(routes!(start))
        .routes(routes!(reach))
        .routes(routes!(pay))
        .routes(routes!(rate))
        .routes(routes!(cancel))
        .routes(routes!(assign))
        .routes(routes!(candidates))
}

pub(crate) async fn run(
    state: &AppState,
    current: &CurrentUser,
    id: BookingId,
    action: Action,
    command: Command,
) -> ApiResult<Json<Box<RawValue>>> {
    authorised(state, current, id, action).await?;
    let updated = state.runtime.command(id, current.by(), command).await?;
    Ok(Json(presented_one(state, current, &updated).await?))
}

/// The driver's live position, else the last stored one.
async fn driver_position(state: &AppState, current: &CurrentUser) -> Option<LatLng> {
    match state.runtime.driver(current.principal.id).await {
        Some(view) => view.position,
        None => current.user.location,
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/accept",
    tag = "trip",
    summary = "Accept an offer",
    description = "The first driver to accept wins; every later accept gets 409 `booking_taken` and the other offers are withdrawn. A driver already on a trip (another booking accepted, in either order, on any node) gets 409 `driver_not_eligible`.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![BookingTaken, NotOffered, DriverNotEligible]))),
)]
async fn accept(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Box<RawValue>>> {
    let mut snapshot = DriverSnapshot::from(&current.user);
    snapshot.location = driver_position(&state, &current).await;
    run(&state, &current, id, Action::BookingAccept, Command::Accept { driver: snapshot }).await
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/decline",
    tag = "trip",
    summary = "Decline an offer",
    description = "The booking is not offered to this driver again.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![NotOffered]))),
)]
async fn decline(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Box<RawValue>>> {
    run(&state, &current, id, Action::BookingDecline, Command::Decline).await
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/arrive",
    tag = "trip",
    summary = "Arrived at the pickup",
    description = "ACCEPTED → ARRIVED, by the assigned driver.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![]))),
)]
async fn arrive(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Box<RawValue>>> {
    let location = driver_position(&state, &current).await;
    run(&state, &current, id, Action::BookingArrive, Command::Arrive { location }).await
}

#[derive(Debug, Deserialize, Default, utoipa::ToSchema)]
pub struct StartBody {
    #[serde(default)]
    pub otp: Option<u32>,
}

/// The body is optional: a trip without an otp needs none.
#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/start",
    tag = "trip",
    summary = "Start the trip",
    description = "ARRIVED → STARTED, by the assigned driver. With `otp_secure` on, the rider's `otp` must be given; otherwise the body may be empty.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body(content = Option<StartBody>, description = "Optional: `{\"otp\": 12345}` when the booking has an otp", content_type = "application/json"),
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![InvalidInput, OtpMismatch]))),
)]
async fn start(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Box<RawValue>>> {
    // No body, or JSON `null` (the document's body is nullable), is no otp;
    // anything else must be the object (not an array serde would also take).
    let invalid = || ApiError::field(ErrorKey::InvalidInput, "otp");
    let otp = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        match serde_json::from_slice::<Value>(&body).map_err(|_| invalid())? {
            Value::Null => None,
            object @ Value::Object(_) => serde_json::from_value::<StartBody>(object).map_err(|_| invalid())?.otp,
            _ => return Err(invalid()),
        }
    };
    let location = driver_position(&state, &current).await;
    run(&state, &current, id, Action::BookingStart, Command::Start { otp, location }).await
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/reach",
    tag = "trip",
    summary = "Reached the drop",
    description = "STARTED → REACHED with the final fare, by the assigned driver.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![]))),
)]
async fn reach(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Box<RawValue>>> {
    let location = driver_position(&state, &current).await;
    // Spec §4 REACHED: the drop address is looked up again from where the trip ended.
    let drop_address = match location {
        Some(point) => state.maps.reverse(point).await.ok(),
        None => None,
    };
    let route = matched_trip(&state, &current, id).await;
    run(&state, &current, id, Action::BookingReach, Command::Reach { location, drop_address, route }).await
}

/// Spec §4 REACHED: the fare's distance follows the roads the tracked
/// points were on, when the maps can match them (else the actor reads the
/// raw track). Only for the trip's own driver, so nobody else costs a match.
async fn matched_trip(state: &AppState, current: &CurrentUser, id: BookingId) -> Vec<LatLng> {
    let Ok(booking) = state.storage.booking(id).await else { return Vec::new() };
    if booking.status != BookingStatus::Started || booking.driver != Some(current.principal.id) {
        return Vec::new();
    }
    let started = booking.trip_start_time.unwrap_or(i64::MIN);
    let Ok(points) = state.storage.tracking(id).await else { return Vec::new() };
    let track: Vec<LatLng> =
        points.iter().filter(|point| point.at >= started).map(|point| LatLng::new(point.lat, point.lng)).collect();
    if track.len() < 2 {
        return Vec::new();
    }
    let maps = state.maps.clone();
    tokio::task::spawn_blocking(move || maps.match_track(&track)).await.ok().flatten().unwrap_or_default()
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct PayBody {
    /// `cash` or `wallet`; left out by the driver of a prepaid booking,
    /// which has nothing left to collect.
    #[serde(default)]
    pub payment_mode: Option<PaymentMode>,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/pay",
    tag = "trip",
    summary = "Pay for the trip",
    description = "REACHED or PENDING → PAID; REACHED → PENDING. `cash`: the assigned driver confirms the cash collected; `wallet`: the rider pays from their wallet (409 `insufficient_wallet_balance` when short); `card`: the rider chooses to pay by card, REACHED → PENDING (the driver is free for the next booking), and then pays through a gateway's checkout, which confirms the payment (PENDING → PAID). Only the rider chooses card (403 `not_allowed` on `payment_mode` for others). A prepaid booking (a delivery paid by card before dispatch) has nothing to collect: its assigned driver sends no `payment_mode` to mark it PAID. Leaving the mode out on any other booking, or as anyone else, is `not_allowed`.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = PayBody,
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![
        InvalidInput, FileTooLarge, InsufficientWalletBalance, InvalidAmount
    ]))),
)]
async fn pay(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<PayBody>,
) -> ApiResult<Json<Box<RawValue>>> {
    let mode = match body.payment_mode {
        // Only the rider chooses card; the gateway's checkout confirms the payment.
        Some(PaymentMode::Card) if current.principal.role != Role::Rider => {
            return Err(ApiError::field(ErrorKey::NotAllowed, "payment_mode"));
        }
        Some(mode) => mode,
        // Nothing to collect: the card prepayment stands. The engine lets a
        // driver pay with no cash only on the prepaid booking they drive.
        None if current.principal.role == Role::Driver => PaymentMode::Card,
        None => return Err(ApiError::field(ErrorKey::NotAllowed, "payment_mode")),
    };
    let command = Command::Pay { mode, wallet_balance: Decimal::ZERO };
    run(&state, &current, id, Action::BookingPay, command).await
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct RateBody {
    /// 1 to 5 (`invalid_rating` otherwise); required unless `skip`.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 5)]
    pub rating: Option<i64>,
    /// True: the rider closes the trip without rating it.
    #[serde(default)]
    pub skip: bool,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/rate",
    tag = "trip",
    summary = "Rate the driver",
    description = "PAID → COMPLETE, by the rider: `{rating}` (1 to 5) or `{skip: true}` (no rating). A paid booking nobody rates completes by itself after `autoCompleteMinutes`.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = RateBody,
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![InvalidInput, FileTooLarge, InvalidRating]))),
)]
async fn rate(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<RateBody>,
) -> ApiResult<Json<Box<RawValue>>> {
    let rating = match (body.rating, body.skip) {
        (None, true) => None,
        (Some(rating), false) => Some(validate_rating(rating)?),
        (Some(_), true) => return Err(ApiError::field(ErrorKey::InvalidInput, "skip")),
        (None, false) => return Err(ApiError::field(ErrorKey::InvalidRating, "rating")),
    };
    run(&state, &current, id, Action::BookingRate, Command::Rate { rating }).await
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CancelBody {
    /// Why; required (`select_proper` when blank).
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 500)]
    pub reason: String,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/cancel",
    tag = "trip",
    summary = "Cancel",
    description = "The rider, an admin, or the assigned driver cancel the booking (a cancellation fee may apply after the driver accepted); a driver who is only offered the booking leaves `requestedDrivers`.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = CancelBody,
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![
        InvalidInput, FileTooLarge, SelectProper, NotOffered, DemoMode
    ]))),
)]
async fn cancel(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<CancelBody>,
) -> ApiResult<Json<Box<RawValue>>> {
    let reason = validate_cancel_reason(&body.reason)?.to_string();
    // The actor reads the rider's balance when a fee may apply.
    let command = Command::Cancel { reason, wallet_balance: None };
    run(&state, &current, id, Action::BookingCancel, command).await
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct AssignBody {
    pub driver: UserId,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/assign",
    tag = "trip",
    summary = "Offer to a driver",
    description = "Admins: adds an online, eligible driver to `requestedDrivers` of a NEW booking, with `autoDispatch` off or on (a booking no driver has taken); the offer has no deadline and the first accept still wins.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = AssignBody,
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![InvalidInput, FileTooLarge, DriverNotEligible, DemoMode]))),
)]
async fn assign(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<AssignBody>,
) -> ApiResult<Json<Box<RawValue>>> {
    let booking = authorised(&state, &current, id, Action::BookingAssign).await?;
    let driver = match state.storage.user(body.driver).await {
        Ok(driver) => driver,
        Err(wayfare_storage::StorageError::NotFound) => {
            return Err(ApiError::field(ErrorKey::DriverNotEligible, "driver"));
        }
        Err(error) => return Err(error.into()),
    };
    if !dispatch::is_eligible_for(&driver, &booking.carType) || !state.runtime.is_online(driver.id) {
        return Err(ApiError::field(ErrorKey::DriverNotEligible, "driver"));
    }
    run(&state, &current, id, Action::BookingAssign, Command::Assign { driver: driver.id }).await
}

/// How many candidates a picker asks for by default, and at most.
const DEFAULT_CANDIDATES: u32 = 20;
const MAX_CANDIDATES: u32 = 50;

#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CandidatesQuery {
    /// How many drivers, 1 to 50 (default 20).
    #[param(minimum = 1, maximum = 50)]
    pub limit: Option<u32>,
}

/// A driver an admin may assign a booking to.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct AssignCandidate {
    pub id: UserId,
    /// First and last name.
    pub name: String,
    pub carType: String,
    pub vehicleNumber: String,
    /// Where the driver is now (the live index).
    pub lat: f64,
    pub lng: f64,
    /// Great-circle distance to the pickup, in the platform's unit (miles
    /// when `convert_to_mile` is on), to the metre.
    pub distance_km: f64,
}

/// The candidates, nearest the pickup first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AssignCandidates {
    pub items: Vec<AssignCandidate>,
    /// The dispatch radius (`driverRadius`) in the platform's unit: drivers
    /// farther than this (up to three times it) are listed after those inside.
    pub radius: f64,
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/candidates",
    tag = "trip",
    summary = "Drivers to assign",
    description = "Admins: the drivers `POST /bookings/{id}/assign` would accept for this NEW booking (spec §5 eligible: approved, online, not on a trip, with a location; of the booking's car type; not already in its `requestedDrivers`), nearest the pickup first, from the live dispatch index. Drivers inside `driverRadius` come first; the list goes on up to three times the radius, so a quiet area still shows its nearest drivers. A booking that is not NEW is 409 `status_not_allowed`.",
    params(("id" = BookingId, Path, description = "The booking's id"), CandidatesQuery),
    responses((status = 200, description = "The candidates", body = AssignCandidates)),
    extensions(("x-refusals" = json!(session![InvalidInput, NotFound, NotAllowed, StatusNotAllowed]))),
)]
async fn candidates(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    QueryParams(query): QueryParams<CandidatesQuery>,
) -> ApiResult<Json<AssignCandidates>> {
    let limit = query.limit.unwrap_or(DEFAULT_CANDIDATES);
    if !(1..=MAX_CANDIDATES).contains(&limit) {
        return Err(ApiError::field(ErrorKey::InvalidInput, "limit"));
    }
    let booking = authorised(&state, &current, id, Action::BookingCandidates).await?;
    let settings = state.runtime.catalog().settings.clone();
    // The index may hold a driver whose stored record stopped qualifying a
    // moment ago: ask for more, keep those the assign route would accept.
    let found = state.runtime.assign_candidates(booking.clone(), limit as usize * 2).await?;
    let ids: Vec<UserId> = found.iter().map(|candidate| candidate.driver).collect();
    let users: std::collections::HashMap<UserId, wayfare_engine::User> =
        state.storage.users_by_id(&ids).await?.into_iter().map(|user| (user.id, user)).collect();
    let items = found
        .iter()
        .filter_map(|candidate| {
            let user = users.get(&candidate.driver).filter(|user| dispatch::is_eligible_for(user, &booking.carType))?;
            let distance = fare::distance_in_unit(candidate.distance_km, &settings);
            Some(AssignCandidate {
                id: user.id,
                name: user.full_name(),
                carType: booking.carType.clone(),
                vehicleNumber: user.vehicleNumber.clone(),
                lat: candidate.position.lat,
                lng: candidate.position.lng,
                distance_km: (distance * 1000.0).round() / 1000.0,
            })
        })
        .take(limit as usize)
        .collect();
    let radius = fare::distance_in_unit(settings.driver_radius_km(), &settings);
    Ok(Json(AssignCandidates { items, radius }))
}
