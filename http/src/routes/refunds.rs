//! Refunds of a booking's money (issue #37): back to the card through the
//! gateway that took it, or to the rider's wallet; and a booking's refunds.
//! The rules are `wayfare_engine::refund`; the booking's `refunded`, the
//! refund's record and its ledger credit are written together by the
//! booking's one writer (`Command::Refund`). A booking's refunds take
//! turns (`crate::payments::refund::one_refund_at_a_time`).

use super::bookings::{authorised, presented_one};
use super::wallet::{amount_text, idempotency_key};
use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam};
use crate::openapi::refusals::{booking_command, session};
use crate::payments::refund::{one_refund_at_a_time, refund_at_gateway};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use utoipa_axum::routes;
use wayfare_engine::booking::{By, Command};
use wayfare_engine::money::parse_amount;
use wayfare_engine::permissions::Action;
use wayfare_engine::refund::{
    CardPayment, Refund, RefundDestination, RefundRequest, RefundStatus, gateway_possible, plan_refund, refund_key,
    totals,
};
use wayfare_engine::wallet::validate_idempotency_key;
use wayfare_engine::{Booking, BookingId, ErrorKey, PaymentMode, RefundId, UserId};
use wayfare_storage::PaymentRecord;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(refund)).routes(routes!(refunds))
}

/// `{amount, destination, reason}`; `idempotencyKey` is the body's older
/// place for the key, read when the header is absent.
#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct RefundBody {
    #[serde(default)]
    pub amount: Option<Value>,
    #[serde(default)]
    pub destination: Option<String>,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// The booking's card payment through a gateway, with what went back to
/// it so far; `None` when it was not paid by card through one.
async fn card_payment(state: &AppState, booking: &Booking) -> ApiResult<Option<(PaymentRecord, CardPayment)>> {
    if booking.payment_mode != Some(PaymentMode::Card) {
        return Ok(None);
    }
    let Some(payment) = state.storage.booking_payment(booking.id).await? else { return Ok(None) };
    let refunded = state.storage.refunded_by_payment(payment.id).await?;
    let card = CardPayment { payment: payment.id, amount: payment.amount, refunded_at_gateway: refunded.gateway };
    Ok(Some((payment, card)))
}

/// The refund route's answer: the refund, whether this request made it,
/// the booking and its totals.
async fn answered(
    state: &AppState,
    current: &CurrentUser,
    refund: &Refund,
    booking: &Booking,
    applied: bool,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let presented = presented_one(state, current, booking).await?;
    let status = if applied { StatusCode::CREATED } else { StatusCode::OK };
    let body = json!({ "refund": refund, "applied": applied, "booking": presented, "totals": totals(booking) });
    Ok((status, Json(body)))
}

/// The done refund of a key, if there is one.
async fn done_refund(state: &AppState, key: &str) -> ApiResult<Option<Refund>> {
    Ok(state.storage.refund_by_key(key).await?.filter(|refund| refund.status == RefundStatus::Done))
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/refund",
    tag = "trip",
    summary = "Refund a booking's money",
    description = "Admins; refused with `demo_mode` in demo mode. Gives back part or all of what the rider paid for a PAID, COMPLETE or CANCELLED booking (fare, or cancellation fee, or a prepayment not already returned), never more than paid less refunded (`invalid_amount`); the amount is rounded to `settings.decimal`. `destination` `wallet` (the default) credits the rider's wallet: a ledger entry `Refund:<reference>` with the reason as its description, and the rider gets the `wallet` socket event and a `wallet_updated` notification. `gateway` refunds a booking paid by card through the gateway that took it, at most that payment less its earlier gateway refunds; a booking paid from the wallet, in cash or marked paid outside the app goes to the wallet only (`invalid_input` on `destination`). A gateway that declines answers its error and the refund is listed as `failed`; a retry with the same key may still succeed. Send an `Idempotency-Key` header and repeat it on a retry: the same key refunds once, and the repeat answers 200 with `applied: false` (the body's `idempotencyKey` is read when there is no header). `refunded` on the booking sums the refunds. A booking's refunds take turns (a lock held across the nodes): each checks what is left, calls the gateway and is recorded before the next starts, so two at once can never both reach the card for more than was paid; a refund that waits over 45 s for the one before it is 409 `update_failed` and may be sent again.",
    params(
        ("id" = BookingId, Path, description = "The booking's id"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "1 to 128 visible ASCII characters; the same key refunds this booking once"),
    ),
    request_body = crate::openapi::schemas::RefundBody,
    responses(
        (status = 201, description = "Refunded", body = crate::openapi::schemas::RefundMade),
        (status = 200, description = "A repeat of an earlier request with the same key: nothing changed", body = crate::openapi::schemas::RefundMade),
    ),
    extensions(("x-refusals" = json!(booking_command![
        InvalidInput, FileTooLarge, InvalidAmount, SelectProper, DemoMode
    ]))),
)]
pub(crate) async fn refund(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    headers: HeaderMap,
    Body(body): Body<RefundBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let booking = authorised(&state, &current, id, Action::BookingRefund).await?;
    let request_key = match (idempotency_key(&headers)?, body.idempotency_key.as_deref()) {
        (Some(header), _) => header,
        (None, Some(key)) => validate_idempotency_key(key.trim())
            .map_err(|_| ApiError::field(ErrorKey::InvalidInput, "idempotencyKey"))?
            .to_string(),
        (None, None) => uuid::Uuid::now_v7().to_string(),
    };
    let key = refund_key(id, &request_key);
    if let Some(earlier) = done_refund(&state, &key).await? {
        return answered(&state, &current, &earlier, &booking, false).await;
    }
    let destination = match body.destination.as_deref().map(str::trim) {
        None | Some("") => RefundDestination::Wallet,
        Some(text) => {
            RefundDestination::parse(text).ok_or_else(|| ApiError::field(ErrorKey::InvalidInput, "destination"))?
        }
    };
    let amount = amount_text(body.amount.as_ref())
        .and_then(|text| parse_amount(&text))
        .ok_or_else(|| ApiError::field(ErrorKey::InvalidAmount, "amount"))?;
    let request = RefundRequest { amount, destination, reason: body.reason };
    let made = Made { booking: id, by: current.by(), admin: current.principal.id, key };
    // Spawned: a refund the gateway made is recorded even if the admin's
    // request goes away meanwhile.
    let task_state = state.clone();
    let (refund, updated, applied) =
        tokio::spawn(
            async move { one_refund_at_a_time(&task_state, id, refund_in_turn(&task_state, made, request)).await },
        )
        .await
        .map_err(|error| ApiError::Internal(format!("the refund task: {error}")))??;
    answered(&state, &current, &refund, &updated, applied).await
}

/// Who refunds which booking, under which key.
struct Made {
    booking: BookingId,
    by: By,
    admin: UserId,
    key: String,
}

/// A refund in the booking's turn (`one_refund_at_a_time`): every earlier
/// refund of the booking is recorded by now, so what is left to refund is
/// read here, checked, sent to the gateway and recorded before the next
/// refund of the booking starts. The refund, the booking after it, and
/// whether this request made it.
async fn refund_in_turn(
    state: &AppState,
    made: Made,
    request: RefundRequest,
) -> ApiResult<(Refund, Arc<Booking>, bool)> {
    let Made { booking: id, by, admin, key } = made;
    // The same key, sent again while the first was in its turn.
    if let Some(earlier) = done_refund(state, &key).await? {
        return Ok((earlier, state.runtime.booking(id).await?, false));
    }
    let booking = state.runtime.booking(id).await?;
    let settings = state.runtime.catalog().settings.clone();
    let card = card_payment(state, &booking).await?;
    let planned = plan_refund(&booking, card.as_ref().map(|(_, card)| card), &request, &settings)?;
    let mut refund = Refund {
        id: RefundId(uuid::Uuid::now_v7()),
        payment: planned.payment,
        booking: id,
        user: booking.customer,
        amount: planned.amount,
        currency: settings.code.trim().to_ascii_uppercase(),
        destination: request.destination,
        reason: planned.reason,
        status: RefundStatus::Done,
        gateway_ref: None,
        idempotency_key: key.clone(),
        made_by: admin,
        created_at: state.now(),
    };
    if request.destination == RefundDestination::Gateway {
        let Some((payment, _)) = card.as_ref() else {
            return Err(ApiError::field(ErrorKey::InvalidInput, "destination"));
        };
        // The gateway is told the same key on a retry, so it refunds once too.
        match refund_at_gateway(state, payment, refund.amount, &key).await {
            Ok(made) => refund.gateway_ref = Some(made.reference),
            Err(error) => {
                tracing::warn!(booking_id = %id, payment = %payment.id, "gateway refund failed");
                let failed = Refund { status: RefundStatus::Failed, ..refund };
                state.storage.record_failed_refund(&failed, state.now()).await?;
                return Err(error);
            }
        }
    }
    let command = Command::Refund { refund: Box::new(refund.clone()) };
    match state.runtime.command(id, by, command).await {
        Ok(updated) => Ok((refund, updated, true)),
        Err(error) => match done_refund(state, &key).await? {
            // The same key recorded by a request that took the turn after this one's lock lapsed.
            Some(earlier) => Ok((earlier, state.runtime.booking(id).await?, false)),
            None => Err(error.into()),
        },
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/refunds",
    tag = "trip",
    summary = "A booking's refunds",
    description = "Admins and the fleet admin of the booking's driver: every refund of the booking, done and failed, oldest first; the totals (`paid`, `refunded`, `refundable`); and whether its money can go back through its gateway (`gateway.available`, a card payment through a gateway) and how much (`gateway.refundable`).",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The refunds", body = crate::openapi::schemas::BookingRefunds)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound]))),
)]
pub(crate) async fn refunds(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Value>> {
    let booking = authorised(&state, &current, id, Action::BookingLedger).await?;
    let items = state.storage.booking_refunds(id).await?;
    let card = card_payment(&state, &booking).await?;
    let totals = totals(&booking);
    let card = card.map(|(_, card)| card).filter(|card| gateway_possible(&booking, Some(card)));
    let gateway_refundable = card
        .map(|card| (card.amount - card.refunded_at_gateway).min(totals.refundable).max(rust_decimal::Decimal::ZERO));
    Ok(Json(json!({
        "items": items,
        "totals": totals,
        "gateway": { "available": card.is_some(), "refundable": gateway_refundable.unwrap_or_default() },
    })))
}
