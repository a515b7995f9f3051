//! Mending a booking (issue #34): what the operator's booking page does
//! besides cancel and assign (close an unpaid trip, complete a paid one,
//! read its ledger), the report of money owed, and the rider's "try again"
//! after a booking no driver took. The rules are the booking state
//! machine's (`Command::Settle`, `Complete`). Refunds are `routes::refunds`.

use super::bookings::{CreateBody, TripBody, authorised, book, presented, presented_one, run};
use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::extract::{Body, PathParam};
use crate::openapi::refusals::{booking_command, session};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use utoipa_axum::routes;
use wayfare_engine::booking::Command;
use wayfare_engine::permissions::{Action, BookingScope, Resource, authorize, booking_list_scope};
use wayfare_engine::rules::booking::DeliveryDetails;
use wayfare_engine::{BookingId, ErrorKey, PaymentMode, Role, UserId};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(settle))
        .routes(routes!(complete))
        .routes(routes!(rebook))
        .routes(routes!(ledger))
        .routes(routes!(owed))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SettleBody {
    /// `card`: marked paid (paid outside the app, gateway `manual`);
    /// `cash`: settled in cash with the driver.
    pub mode: PaymentMode,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/settle",
    tag = "trip",
    summary = "Close an unpaid trip",
    description = "Admins and the fleet admin of the booking's driver: REACHED or PENDING → PAID. `card` marks the card payment made outside the app (gateway `manual`), `cash` settles it in cash with the driver (the driver's wallet is debited the cash, as when the driver collects it). `wallet` is `not_allowed`: the rider pays from their wallet themself.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = SettleBody,
    responses((status = 200, description = "The booking after the change", body = wayfare_engine::Booking)),
    extensions(("x-refusals" = json!(booking_command![InvalidInput, FileTooLarge, DemoMode]))),
)]
pub(crate) async fn settle(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<SettleBody>,
) -> ApiResult<Json<Box<RawValue>>> {
    run(&state, &current, id, Action::BookingSettle, Command::Settle { mode: body.mode }).await
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/complete",
    tag = "trip",
    summary = "Complete a paid trip",
    description = "Admins and the fleet admin of the booking's driver: PAID → COMPLETE without a rating (as `autoCompleteMinutes` after payment would).",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking after the change", body = wayfare_engine::Booking)),
    extensions(("x-refusals" = json!(booking_command![DemoMode]))),
)]
pub(crate) async fn complete(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Box<RawValue>>> {
    run(&state, &current, id, Action::BookingComplete, Command::Complete).await
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/rebook",
    tag = "bookings",
    summary = "Try again: book the same trip",
    description = "The booking's rider, or an admin: a new Book Now booking of a finished booking's trip (same pickup, drop, car type, payment mode, parcel type, option and delivery details; no promo), checked and priced as `POST /api/v1/bookings` would. A booking still active is `status_not_allowed`.",
    params(("id" = BookingId, Path, description = "The finished booking's id")),
    responses((status = 201, description = "The new booking", body = wayfare_engine::Booking)),
    extensions(("x-refusals" = json!(booking_command![
        IncompleteUser, SelectProper, PastBookingError, DeliveryDetailMissing, PlaceToCoordsError
    ]))),
)]
pub(crate) async fn rebook(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<(StatusCode, Json<Box<RawValue>>)> {
    let old = authorised(&state, &current, id, Action::BookingRebook).await?;
    if old.status.is_active() {
        return Err(ErrorKey::StatusNotAllowed.into());
    }
    let body = CreateBody {
        trip: TripBody {
            pickup: Some(old.pickup.clone()),
            drop: Some(old.drop.clone()),
            carType: Some(old.carType.clone()),
            parcelTypeIndex: old.parcelTypeIndex,
            optionIndex: old.optionIndex,
            waypoints: old.waypoints.clone(),
        },
        bookLater: false,
        tripdate: None,
        delivery: DeliveryDetails {
            deliveryPerson: old.deliveryPerson.clone(),
            deliveryPersonPhone: old.deliveryPersonPhone.clone(),
            pickUpInstructions: old.pickUpInstructions.clone(),
            deliveryInstructions: old.deliveryInstructions.clone(),
        },
        promo: None,
        payment_mode: old.payment_mode,
        customer: (current.principal.role == Role::Admin).then_some(old.customer),
    };
    let created = book(&state, &current, body).await?;
    Ok((StatusCode::CREATED, Json(presented_one(&state, &current, &created).await?)))
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/ledger",
    tag = "trip",
    summary = "A booking's ledger entries",
    description = "Admins and the fleet admin of the booking's driver: every wallet entry the booking made (driver share, cash collected, wallet payment, cancellation fee, refunds), oldest first, each with whose wallet it moved (`user`, `userName`, `role`).",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The entries", body = crate::openapi::schemas::LedgerEntries)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound]))),
)]
pub(crate) async fn ledger(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Value>> {
    authorised(&state, &current, id, Action::BookingLedger).await?;
    let records = state.storage.booking_ledger(id).await?;
    let ids: Vec<UserId> = records.iter().map(|record| record.user).collect::<BTreeSet<_>>().into_iter().collect();
    let users: HashMap<UserId, wayfare_engine::User> =
        state.storage.users_by_id(&ids).await?.into_iter().map(|user| (user.id, user)).collect();
    let items: Vec<Value> = records
        .iter()
        .map(|record| {
            let user = users.get(&record.user);
            json!({
                "user": record.user,
                "userName": user.map(|user| user.full_name()).unwrap_or_default(),
                "role": user.map(|user| user.usertype),
                "type": record.entry.entry_type,
                "amount": record.entry.amount,
                "date": record.entry.date,
                "txRef": record.entry.txRef,
                "description": record.entry.description,
            })
        })
        .collect();
    Ok(Json(json!({ "items": items })))
}

/// The most of each list the report shows; the bookings grid has the rest.
const OWED_LIMIT: u32 = 500;

#[utoipa::path(
    get,
    path = "/api/v1/reports/owed",
    tag = "reports",
    summary = "Money owed",
    description = "Admins (fleet admins: their fleet's bookings): bookings in PENDING, whose trip is over and whose card payment has not come (`pending`, newest trip first), and cancellation fees a rider's wallet could not cover while negative balances are off (`fees`: the booking, the rider and `owed`). At most 500 of each.",
    responses((status = 200, description = "What is owed", body = crate::openapi::schemas::OwedReport)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
pub(crate) async fn owed(State(state): State<AppState>, current: CurrentUser) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::OwedRead, Resource::None, &settings)?;
    let fleet = match booking_list_scope(&current.principal) {
        BookingScope::Fleet(fleet) => Some(fleet),
        _ => None,
    };
    let owed = state.storage.owed_bookings(fleet, OWED_LIMIT).await?;
    let pending = presented(&state, &current, &owed.pending).await?;
    let fees: Vec<Value> = owed
        .fees
        .iter()
        .map(|booking| {
            json!({
                "booking": booking.id,
                "reference": booking.reference,
                "customer": booking.customer,
                "customer_name": booking.customer_name,
                "owed": booking.cancellationFeeOwed,
                "date": booking.tripdate,
            })
        })
        .collect();
    let pending: Vec<Value> =
        pending.iter().map(|raw| serde_json::from_str(raw.get()).unwrap_or(Value::Null)).collect();
    Ok(Json(json!({ "pending": pending, "fees": fees })))
}
