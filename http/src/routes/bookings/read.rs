//! Reading bookings: the list (and its CSV or XLSX export), one booking, and
//! the offers a driver holds; and [`presented`], bookings as the caller may
//! see them, which every answer with a booking goes through.

use super::access::authorised;
use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{PathParam, QueryParams};
use crate::openapi::refusals::session;
use crate::present;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa_axum::routes;
use wayfare_engine::permissions::{self, Action, BookingScope, Resource, authorize};
use wayfare_engine::{Booking, BookingId, BookingStatus, ErrorKey, Role, Settings, UserId};
use wayfare_storage::{BookingFilter, BookingSort, PageRequest, SortOrder};

pub(super) fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(list)).routes(routes!(read)).routes(routes!(tasks))
}

#[derive(Debug, Deserialize, Default)]
pub struct ListQuery {
    /// Comma-separated statuses.
    pub status: Option<String>,
    pub search: Option<String>,
    pub sort: Option<BookingSort>,
    pub order: Option<SortOrder>,
    pub limit: Option<u32>,
    pub after: Option<String>,
    /// Only active bookings.
    #[serde(default)]
    pub active: bool,
    /// `json` (default), or the whole filtered list as a `csv` or `xlsx` file.
    #[serde(default)]
    pub format: crate::routes::reports::Format,
}

/// At most this many bookings go into one export: a file an admin can open,
/// built from pages in a few seconds; more is refused with `export_too_large`.
pub const EXPORT_MAX_ROWS: usize = 100_000;

#[utoipa::path(
    get,
    path = "/api/v1/bookings",
    tag = "bookings",
    summary = "List bookings",
    description = "Scoped by role: a rider sees their bookings, a driver those assigned to them, a fleet admin their fleet's, an admin all. Paginated with `limit` and `after` (the previous page's `next`).",
    params(("status" = Option<String>, Query, pattern = "^ *(PAYMENT_PENDING|NEW|ACCEPTED|ARRIVED|STARTED|REACHED|PENDING|PAID|COMPLETE|CANCELLED)? *(, *(PAYMENT_PENDING|NEW|ACCEPTED|ARRIVED|STARTED|REACHED|PENDING|PAID|COMPLETE|CANCELLED)? *)*$", description = "Comma-separated statuses, e.g. `NEW,ACCEPTED`"), ("active" = Option<bool>, Query, description = "Only active bookings (every status but COMPLETE and CANCELLED) when no `status` is given"), ("search" = Option<String>, Query, description = "Matches the reference, addresses and names"), ("sort" = inline(Option<crate::openapi::schemas::BookingSortParam>), Query, description = "The column to order by (then by id): `tripdate` (default), `bookingDate`, `reference`, `status`, `customer_name`, `driver_name`, `carType` or `trip_cost`; text compares byte by byte"), ("order" = inline(Option<crate::openapi::schemas::SortOrderParam>), Query, description = "`desc` (default) or `asc`"), ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1 to 500, default 50"), ("after" = Option<String>, Query, pattern = "^([0-9a-fA-F]{48}|t([0-9a-fA-F]{2}){16,})$", description = "The `next` cursor of the previous page (of the same sort)"), ("format" = inline(Option<crate::routes::reports::Format>), Query, description = "`json` (default); `csv` or `xlsx` downloads every booking of the filter, in its order, as a file (admins and fleet admins; refused with `demo_mode` in demo mode, and with `export_too_large` past 100,000 rows)")),
    responses(
        (status = 200, description = "A page of bookings, or the file", content(
            (crate::openapi::schemas::BookingPage = "application/json"),
            (String = "text/csv"),
            (String = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        )),
    ),
    // The export (`format=csv|xlsx`) adds the panel's refusals.
    extensions(("x-refusals" = json!(session![InvalidInput, NotAllowed, DemoMode, ExportTooLarge]))),
)]
async fn list(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ListQuery>,
) -> ApiResult<Response> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::BookingList, Resource::None, &settings)?;
    let mut filter = BookingFilter::default();
    match permissions::booking_list_scope(&current.principal) {
        BookingScope::Customer(id) => filter.customer = Some(id),
        BookingScope::Driver(id) => filter.driver = Some(id),
        BookingScope::Fleet(id) => filter.fleetadmin = Some(id),
        BookingScope::All => {}
    }
    let mut statuses = Vec::new();
    for name in query.status.iter().flat_map(|text| text.split(',')).map(str::trim).filter(|name| !name.is_empty()) {
        statuses.push(BookingStatus::parse(name).ok_or(ApiError::field(ErrorKey::InvalidInput, "status"))?);
    }
    if query.active && statuses.is_empty() {
        statuses = BookingStatus::ALL.into_iter().filter(|status| status.is_active()).collect();
    }
    filter.statuses = statuses;
    filter.search = query.search.filter(|text| !text.trim().is_empty());
    filter.sort = query.sort.unwrap_or_default();
    filter.order = query.order.unwrap_or_default();
    if query.format != crate::routes::reports::Format::Json {
        authorize(Some(&current.principal), Action::BookingExport, Resource::None, &settings)?;
        return export(&state, &filter, query.format, &settings).await;
    }
    let page = crate::routes::page_request(query.limit, query.after)?;
    let found = state.storage.list_bookings(&filter, &page).await?;
    let items = presented(&state, &current, &found.items).await?;
    Ok(Json(Page { items, next: found.next }).into_response())
}

/// Every booking of the filter, in its order, as a CSV or XLSX file: read in
/// pages of the list's own index, refused past [`EXPORT_MAX_ROWS`].
async fn export(
    state: &AppState,
    filter: &BookingFilter,
    format: crate::routes::reports::Format,
    settings: &Settings,
) -> ApiResult<Response> {
    let mut bookings = Vec::new();
    let mut after = None;
    loop {
        let page = PageRequest { limit: PageRequest::MAX_LIMIT, after };
        let found = state.storage.list_bookings(filter, &page).await?;
        bookings.extend(found.items);
        if bookings.len() > EXPORT_MAX_ROWS {
            return Err(ErrorKey::ExportTooLarge.into());
        }
        match found.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let table = crate::export::bookings_table(
        &bookings,
        settings.appcat,
        settings.decimal,
        state.config.reports.utc_offset_minutes,
    );
    crate::routes::reports::file_response(table, format, "bookings".to_string()).await
}

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}",
    tag = "bookings",
    summary = "Read a booking",
    description = "Someone else's booking is 404, as if it did not exist.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(session![NotFound]))),
)]
async fn read(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Box<RawValue>>> {
    let booking = authorised(&state, &current, id, Action::BookingRead).await?;
    Ok(Json(presented_one(&state, &current, &booking).await?))
}

/// Presented bookings, written as presented.
#[derive(Serialize)]
pub(crate) struct Items {
    pub items: Vec<Box<RawValue>>,
}

/// A page of presented bookings and the next page's cursor.
#[derive(Serialize)]
struct Page {
    items: Vec<Box<RawValue>>,
    next: Option<String>,
}

/// Bookings as the caller may see them. A fleet admin's come without other
/// fleets' drivers in their offers and dispatch history (`declined`,
/// `expired`): one primary-key read of the drivers they name.
pub(crate) async fn presented(
    state: &AppState,
    current: &CurrentUser,
    bookings: &[Booking],
) -> ApiResult<Vec<Box<RawValue>>> {
    let settings = &state.runtime.catalog().settings;
    let principal = &current.principal;
    if principal.role != Role::Fleetadmin {
        return Ok(bookings.iter().map(|booking| present::booking(booking, principal, settings)).collect());
    }
    let named: std::collections::BTreeSet<UserId> = bookings
        .iter()
        .flat_map(|booking| {
            let dispatch = &booking.dispatch;
            booking.requestedDrivers.0.iter().chain(&dispatch.declined).chain(&dispatch.expired).copied()
        })
        .collect();
    let fleets = fleets_of(state, named).await?;
    let is_theirs = |driver: UserId| fleets.get(&driver).copied().flatten() == Some(principal.id);
    Ok(bookings.iter().map(|booking| present::booking_for_fleet(booking, principal.id, settings, is_theirs)).collect())
}

pub(crate) async fn presented_one(
    state: &AppState,
    current: &CurrentUser,
    booking: &Booking,
) -> ApiResult<Box<RawValue>> {
    let mut presented = presented(state, current, std::slice::from_ref(booking)).await?;
    presented.pop().ok_or_else(|| ApiError::from(wayfare_storage::StorageError::NotFound))
}

/// Each driver's fleet, for the drivers named (a primary-key read each).
pub(crate) async fn fleets_of(
    state: &AppState,
    drivers: std::collections::BTreeSet<UserId>,
) -> ApiResult<std::collections::HashMap<UserId, Option<UserId>>> {
    if drivers.is_empty() {
        return Ok(std::collections::HashMap::new());
    }
    let drivers: Vec<UserId> = drivers.into_iter().collect();
    Ok(state.storage.users_by_id(&drivers).await?.into_iter().map(|user| (user.id, user.fleetadmin)).collect())
}

#[utoipa::path(
    get,
    path = "/api/v1/tasks",
    tag = "drivers",
    summary = "Bookings offered to me",
    description = "The bookings currently offered to the calling driver.",
    responses((status = 200, description = "The offered bookings", body = crate::openapi::schemas::BookingItems)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
async fn tasks(State(state): State<AppState>, current: CurrentUser) -> ApiResult<Json<Items>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::DriverTasks, Resource::None, &settings)?;
    let offered = state.storage.bookings_offered_to(current.principal.id).await?;
    let items = offered.iter().map(|booking| present::booking(booking, &current.principal, &settings)).collect();
    Ok(Json(Items { items }))
}
