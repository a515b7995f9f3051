//! Receipts and weekly statements (issue #37) as pages and PDFs: a
//! booking's receipt for its rider (and the panel), a driver's statement of
//! a week for the driver (and the panel), and the weeks a driver has one.
//! What they say is `wayfare_engine::receipt`; how they look is
//! `crate::documents`.

use crate::auth::CurrentUser;
use crate::documents::content::{receipt_doc, statement_doc};
use crate::documents::{DocFormat, respond};
use crate::error::ApiResult;
use crate::extract::{PathParam, QueryParams};
use crate::openapi::refusals::session;
use crate::routes::ApiRouter;
use crate::routes::bookings::authorised;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa_axum::routes;
use wayfare_engine::permissions::{Action, UserRef};
use wayfare_engine::receipt::{IsoWeek, StatementTotals, receipt, statement_access, statement_weeks, weekly_statement};
use wayfare_engine::{BookingId, ErrorKey, Role, UserId};

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(booking_receipt)).routes(routes!(my_statement_weeks)).routes(routes!(statement))
}

#[derive(Debug, Deserialize, Default)]
pub struct ReceiptQuery {
    #[serde(default)]
    pub format: DocFormat,
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/receipt",
    tag = "bookings",
    summary = "A booking's receipt",
    description = "The receipt of a PAID or COMPLETE booking, or of a CANCELLED one whose rider paid a cancellation fee, in the rider's language: the booked addresses, the fare lines, the tax included (when `taxRate` is set), how it was paid and the operator's details. `format=html` (default) is a printable page, `format=pdf` a PDF download. For the booking's rider, admins, and the fleet admin of its driver; drivers are refused with `not_allowed`, others' bookings are 404, a booking without a receipt yet is 409 `status_not_allowed`.",
    params(
        ("id" = BookingId, Path, description = "The booking's id"),
        ("format" = inline(Option<DocFormat>), Query, description = "`html` (default) or `pdf`"),
    ),
    responses((status = 200, description = "The receipt", content(
        (String = "text/html"),
        (Vec<u8> = "application/pdf"),
    ))),
    extensions(("x-refusals" = json!(session![InvalidInput, NotFound, NotAllowed, StatusNotAllowed]))),
)]
async fn booking_receipt(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    QueryParams(query): QueryParams<ReceiptQuery>,
) -> ApiResult<Response> {
    // The rider's document: a driver reads their week's statement instead.
    if current.principal.role == Role::Driver {
        return Err(ErrorKey::NotAllowed.into());
    }
    let booking = authorised(&state, &current, id, Action::BookingRead).await?;
    let settings = state.runtime.catalog().settings.clone();
    let receipt = receipt(&booking, &settings)?;
    // The receipt's language is its rider's, whoever downloads it.
    let rider = if booking.customer == current.user.id {
        current.user.clone()
    } else {
        state.storage.user(booking.customer).await?
    };
    let texts = state.languages.for_user(state.storage.as_ref(), &rider).await;
    let doc = receipt_doc(&receipt, &texts, state.config.reports.utc_offset_minutes);
    let file_stem = format!("receipt-{}", receipt.number);
    render(doc, query.format, file_stem).await
}

#[derive(Debug, Deserialize, Default)]
pub struct StatementQuery {
    /// `YYYY-Www`; the current week when absent.
    pub week: Option<String>,
    #[serde(default)]
    pub format: DocFormat,
}

#[utoipa::path(
    get,
    path = "/api/v1/drivers/{id}/statements",
    tag = "drivers",
    summary = "A driver's weekly statement",
    description = "The driver's statement of one ISO week (Monday to Sunday in the reporting offset, `reports.utc_offset_minutes`), in the reader's language: every trip the earnings rules count (PAID or COMPLETE; a CANCELLED one for its fee only) with its fare, the driver's share, the convenience fee, the cash collected and what was paid by card or wallet; the totals (equal to the earnings report of the same week), and what the platform owes the driver or the driver owes (the share and fees less the cash kept). For the driver, admins and the driver's fleet admin; others are 404 (riders 403).",
    params(
        ("id" = UserId, Path, description = "The driver's id"),
        ("week" = Option<String>, Query, pattern = "^[0-9]{4}-W[0-9]{2}$", description = "The ISO week, e.g. `2024-W05`; the current week by default"),
        ("format" = inline(Option<DocFormat>), Query, description = "`html` (default) or `pdf`"),
    ),
    responses((status = 200, description = "The statement", content(
        (String = "text/html"),
        (Vec<u8> = "application/pdf"),
    ))),
    extensions(("x-refusals" = json!(session![InvalidInput, NotFound, NotAllowed]))),
)]
async fn statement(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(driver_id): PathParam<UserId>,
    QueryParams(query): QueryParams<StatementQuery>,
) -> ApiResult<Response> {
    if current.principal.role == Role::Rider {
        return Err(ErrorKey::NotAllowed.into());
    }
    let driver = state.storage.user(driver_id).await?;
    statement_access(&current.principal, UserRef::from(&driver))?;
    let offset = state.config.reports.utc_offset_minutes;
    let week = match &query.week {
        Some(text) => IsoWeek::parse(text)?,
        None => IsoWeek::of_instant(state.now(), offset).ok_or(ErrorKey::InvalidInput)?,
    };
    let (from, until) = week.span(offset)?;
    let bookings = state.storage.driver_trips(driver.id, from, until).await?;
    let settings = state.runtime.catalog().settings.clone();
    let name = format!("{} {}", driver.firstName, driver.lastName).trim().to_string();
    let statement = weekly_statement(driver.id, &name, week, &bookings, offset, &settings)?;
    let texts = state.languages.for_user(state.storage.as_ref(), &current.user).await;
    let doc = statement_doc(&statement, &texts);
    let file_stem = format!("statement-{}", statement.week);
    render(doc, query.format, file_stem).await
}

/// A week a driver has a statement for.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct StatementWeek {
    /// `YYYY-Www`.
    pub week: String,
    /// Its first instant (Monday 00:00 in the reporting offset).
    pub from: i64,
    /// The next week's first instant.
    pub until: i64,
    /// What the week comes to, as its statement says.
    pub totals: StatementTotals,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct StatementWeeks {
    /// Newest first.
    pub weeks: Vec<StatementWeek>,
}

#[utoipa::path(
    get,
    path = "/api/v1/drivers/me/statements",
    tag = "drivers",
    summary = "The weeks I have statements for",
    description = "Every ISO week (in the reporting offset) holding a trip the earnings rules count for the calling driver, newest first, each with its statement's totals (rides, fares, the driver's share and fees, cash collected, what the platform owes the driver or the driver owes); each opens with `GET /api/v1/drivers/{id}/statements?week=`.",
    responses((status = 200, description = "The weeks", body = StatementWeeks)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
async fn my_statement_weeks(State(state): State<AppState>, current: CurrentUser) -> ApiResult<Json<StatementWeeks>> {
    if current.principal.role != Role::Driver {
        return Err(ErrorKey::NotAllowed.into());
    }
    let offset = state.config.reports.utc_offset_minutes;
    let dates = state.storage.driver_trip_dates(current.principal.id).await?;
    let spans: Vec<(IsoWeek, i64, i64)> = statement_weeks(&dates, offset)
        .into_iter()
        .filter_map(|week| week.span(offset).ok().map(|(from, until)| (week, from, until)))
        .collect();
    let (Some(newest), Some(oldest)) = (spans.first(), spans.last()) else {
        return Ok(Json(StatementWeeks { weeks: Vec::new() }));
    };
    // One read for every week; the trips come in trip date order, so each
    // week is a slice of them.
    let trips = state.storage.driver_trips(current.principal.id, oldest.1, newest.2).await?;
    let settings = state.runtime.catalog().settings.clone();
    let name = format!("{} {}", current.user.firstName, current.user.lastName).trim().to_string();
    let mut weeks = Vec::with_capacity(spans.len());
    for (week, from, until) in spans {
        let start = trips.partition_point(|booking| booking.tripdate < from);
        let end = trips.partition_point(|booking| booking.tripdate < until);
        let statement = weekly_statement(current.principal.id, &name, week, &trips[start..end], offset, &settings)?;
        weeks.push(StatementWeek { week: week.to_string(), from, until, totals: statement.totals });
    }
    Ok(Json(StatementWeeks { weeks }))
}

/// Renders off the async threads: shaping and font subsetting take milliseconds.
async fn render(doc: crate::documents::Doc, format: DocFormat, file_stem: String) -> ApiResult<Response> {
    tokio::task::spawn_blocking(move || respond(&doc, format, &file_stem))
        .await
        .map_err(|error| crate::error::ApiError::Internal(error.to_string()))
}
