//! The booking flow (DESIGN.md contract): estimate, create, list, read, and
//! every command of the state machine, plus chat and tracking.

use crate::auth::{CurrentUser, MaybeUser};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{booking_command, refusals, session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::Arc;
use utoipa_axum::routes;
use wayfare_actors::Event;
use wayfare_engine::booking::{self, By, Command, Context, DriverSnapshot, NewBooking, NoticeKey, RouteInfo};
use wayfare_engine::permissions::{self, Action, BookingScope, Resource, authorize};
use wayfare_engine::validation::{self, BookingChannel, BookingRequest, DeliveryDetails, ProfileNames, TripRequest};
use wayfare_engine::{
    Booking, BookingId, BookingStatus, ChatMessage, ErrorKey, LatLng, PaymentMode, Place, Role, Settings, UserId,
    dispatch, fare, promo, timefmt,
};
use wayfare_storage::{BookingFilter, BookingSort, PageRequest, SortOrder};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(estimate))
        .routes(routes!(create, list))
        .routes(routes!(read))
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
        .routes(routes!(chat, send_chat))
        .routes(routes!(tracking))
        .routes(routes!(tasks))
}

// ---- estimate and create ------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct TripBody {
    /// Required: without it (or without its `lat` and `lng`) the answer is `select_proper`.
    #[schema(required = true, nullable = false)]
    #[serde(default, deserialize_with = "chosen_place")]
    pub pickup: Option<Place>,
    /// Required: without it (or without its `lat` and `lng`) the answer is `select_proper`.
    #[schema(required = true, nullable = false)]
    #[serde(default, deserialize_with = "chosen_place")]
    pub drop: Option<Place>,
    /// The name of a car type (`GET /api/v1/cartypes`); required.
    #[schema(required = true, nullable = false, min_length = 1)]
    pub carType: Option<String>,
    #[serde(default)]
    pub parcelTypeIndex: Option<usize>,
    #[serde(default)]
    pub optionIndex: Option<usize>,
    #[serde(default)]
    pub waypoints: Vec<Place>,
}

/// A place the rider has chosen, or `None` when it is absent, null or lacks
/// its coordinates: spec §5 calls all of those "not chosen" (`select_proper`),
/// not malformed input. A value of the wrong type is still `invalid_input`.
fn chosen_place<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Place>, D::Error> {
    #[derive(Deserialize)]
    struct PartialPlace {
        lat: Option<f64>,
        lng: Option<f64>,
        #[serde(default)]
        add: String,
    }
    let partial: Option<PartialPlace> = Option::deserialize(deserializer)?;
    Ok(partial.and_then(|place| match (place.lat, place.lng) {
        (Some(lat), Some(lng)) => Some(Place { lat, lng, add: place.add }),
        _ => None,
    }))
}

/// The place with an address people can read: a pin dropped without one is
/// named by the maps provider's reverse lookup (its coordinates if that fails).
async fn addressed(state: &AppState, place: &Place) -> Place {
    if !place.add.trim().is_empty() {
        return place.clone();
    }
    let add = match state.maps.reverse(place.point()).await {
        Ok(address) => address,
        Err(error) => {
            tracing::debug!(%error, "no address for a pin");
            format!("{:.5}, {:.5}", place.lat, place.lng)
        }
    };
    Place { add, ..place.clone() }
}

/// The route and its encoded polyline.
async fn route_between(
    state: &AppState,
    pickup: &Place,
    drop: &Place,
    waypoints: &[Place],
) -> ApiResult<(RouteInfo, String)> {
    let stops: Vec<LatLng> = waypoints.iter().map(Place::point).collect();
    let route = state.maps.directions(pickup.point(), drop.point(), &stops).await.map_err(|error| {
        tracing::debug!(%error, "no route");
        ApiError::key(ErrorKey::NoRouteFound)
    })?;
    let info = RouteInfo {
        distance_km: route.distance_km,
        time_secs: route.time_secs,
        coords: route.coords,
        waypoints: waypoints.to_vec(),
    };
    Ok((info, route.polyline))
}

/// An estimate's body: the trip, and a promo code to price in.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct EstimateBody {
    #[serde(flatten)]
    pub trip: TripBody,
    /// A promo code: the answer shows its discount, or refuses a code that
    /// does not apply with the same errors as booking.
    #[serde(default)]
    pub promo: Option<String>,
    /// The rider an admin prices the trip for (whose promo uses count).
    #[serde(default)]
    pub customer: Option<UserId>,
}

/// A promo code checked for `customer` against the order `new` would make:
/// `promo_invalid` when unknown, else `promo::check`'s refusals.
async fn checked_promo(
    state: &AppState,
    code: Option<&str>,
    new: &NewBooking,
    context: &Context<'_>,
    customer: UserId,
) -> ApiResult<Option<wayfare_engine::PromoDetails>> {
    let Some(code) = code.map(str::trim).filter(|code| !code.is_empty()) else { return Ok(None) };
    // Codes are stored upper-case (`promo::validate`); riders may type them in any case.
    let found = state.storage.promo_by_name(&code.to_uppercase()).await?.ok_or(ErrorKey::PromoInvalid)?;
    let order = booking::estimate(new, context)?.grand_total;
    let used = state.storage.promo_used_by(&found.promo_name, customer).await?;
    Ok(Some(promo::check(&found, order, context.now, used)?))
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/estimate",
    tag = "bookings",
    summary = "Estimate a fare",
    description = "The fare of a trip from the engine and its route from the maps provider, with a promo code's discount and what is left to pay. Riders and admins; admins also get `driver_share`.",
    request_body = EstimateBody,
    responses((status = 200, description = "The fare and the route", body = crate::openapi::schemas::EstimateResponse)),
    extensions(("x-refusals" = json!(session_with_body![
        NotAllowed, SelectProper, NoRouteFound, PromoInvalid, PromoExpired, PromoMinOrder, PromoLimitReached
    ]))),
)]
async fn estimate(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(EstimateBody { trip: body, promo, customer }): Body<EstimateBody>,
) -> ApiResult<Json<Value>> {
    let catalog = state.runtime.catalog();
    let settings = &catalog.settings;
    authorize(Some(&current.principal), Action::BookingEstimate, Resource::None, settings)?;
    let car_type = body.carType.as_deref().and_then(|name| catalog.car_type(name));
    let trip = TripRequest {
        pickup: body.pickup.as_ref(),
        drop: body.drop.as_ref(),
        car_type,
        parcel_type_index: body.parcelTypeIndex,
        option_index: body.optionIndex,
    };
    let choice = validation::validate_trip(&trip, settings.appcat)?;
    let (route, polyline) = route_between(&state, choice.pickup, choice.drop, &body.waypoints).await?;
    let mut request = new_booking(
        choice.pickup.clone(),
        choice.drop.clone(),
        false,
        None,
        route.clone(),
        &body,
        DeliveryDetails::default(),
        None,
    );
    // Taxi trips have no parcel type or option: validation ignored the indexes, and so does the fare.
    request.parcel_type_index = choice.parcel_type.and(body.parcelTypeIndex);
    request.option_index = choice.option.and(body.optionIndex);
    let context = Context { now: state.now(), settings, car_type: Some(choice.car_type) };
    // An admin prices for the rider they name; everyone else for themself.
    let customer = match (current.principal.role, customer) {
        (Role::Admin, Some(customer)) => customer,
        _ => current.principal.id,
    };
    request.promo = checked_promo(&state, promo.as_deref(), &request, &context, customer).await?;
    let booking::Quote { fare, discount, payable } = booking::quote(&request, &context)?;
    let parcel_type = request.parcel_type_index.and_then(|index| choice.car_type.parcelTypes.get(index));
    let option = request.option_index.and_then(|index| choice.car_type.options.get(index));
    let parts = fare::breakdown(choice.car_type, &fare, route.time_secs, parcel_type, option, discount, settings);
    let mut answer = json!({
        "estimateFare": fare.grand_total,
        "convenience_fees": fare.convenience_fees,
        "distance_in_km": route.distance_km,
        "time_in_secs": route.time_secs,
        "polylinePoints": polyline,
        "promo_applied": request.promo.is_some(),
        "discount_amount": discount,
        "payableAmount": payable,
        "breakdown": parts,
    });
    if permissions::can_see_fare_split(current.principal.role) {
        answer["driver_share"] = json!(fare.driver_share());
    }
    Ok(Json(answer))
}

#[allow(clippy::too_many_arguments)]
fn new_booking(
    pickup: Place,
    drop: Place,
    book_later: bool,
    tripdate: Option<i64>,
    route: RouteInfo,
    body: &TripBody,
    delivery: DeliveryDetails,
    promo: Option<wayfare_engine::PromoDetails>,
) -> NewBooking {
    NewBooking {
        pickup,
        drop,
        book_later,
        tripdate,
        route,
        parcel_type_index: body.parcelTypeIndex,
        option_index: body.optionIndex,
        delivery,
        promo,
        payment_mode: None,
    }
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct CreateBody {
    #[serde(flatten)]
    pub trip: TripBody,
    #[serde(default)]
    pub bookLater: bool,
    #[serde(default)]
    pub tripdate: Option<i64>,
    #[serde(flatten)]
    pub delivery: DeliveryDetails,
    /// A promo code.
    #[serde(default)]
    pub promo: Option<String>,
    #[serde(default)]
    pub payment_mode: Option<PaymentMode>,
    /// The rider an admin books for.
    #[serde(default)]
    pub customer: Option<UserId>,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings",
    tag = "bookings",
    summary = "Book a trip",
    description = "A rider books for themself; an admin books for the rider named in `customer`. Book Now bookings are dispatched at once, Book Later ones 15 minutes before `tripdate`. On a delivery platform a rider's booking is prepaid by card and waits in PAYMENT_PENDING until the payment is confirmed.",
    request_body = CreateBody,
    responses((status = 201, description = "The created booking", body = Booking)),
    extensions(("x-refusals" = json!(refusals!(Session:
        MustLogin, InvalidInput, FileTooLarge, NotAllowed, UserIssueContactAdmin, IncompleteUser, SelectProper,
        PastBookingError, DeliveryDetailMissing, PlaceToCoordsError, PromoInvalid, PromoExpired, PromoMinOrder,
        PromoLimitReached
    )))),
)]
async fn create(
    State(state): State<AppState>,
    MaybeUser(current): MaybeUser,
    Body(body): Body<CreateBody>,
) -> ApiResult<(StatusCode, Json<Box<RawValue>>)> {
    let Some(current) = current else { return Err(ErrorKey::MustLogin.into()) };
    let created = book(&state, &current, body).await?;
    let settings = &state.runtime.catalog().settings;
    Ok((StatusCode::CREATED, Json(present::booking(&created, &current.principal, settings))))
}

/// Checks and makes a booking, for `POST /bookings` and "try again".
pub(crate) async fn book(state: &AppState, current: &CurrentUser, body: CreateBody) -> ApiResult<Arc<Booking>> {
    let catalog = state.runtime.catalog();
    let settings = &catalog.settings;
    authorize(Some(&current.principal), Action::BookingCreate, Resource::None, settings)?;
    let admin_rider = match (current.principal.role, body.customer) {
        (Role::Admin, Some(customer)) => match state.storage.user(customer).await {
            Ok(user) => Some(user),
            Err(wayfare_storage::StorageError::NotFound) => None,
            Err(error) => return Err(error.into()),
        },
        _ => None,
    };
    let channel = if current.principal.role == Role::Admin {
        BookingChannel::AdminForm { rider: admin_rider.as_ref() }
    } else {
        BookingChannel::Landing
    };
    let car_type = body.trip.carType.as_deref().and_then(|name| catalog.car_type(name));
    let request = BookingRequest {
        channel,
        booker_role: Some(current.principal.role),
        booker_profile: Some(ProfileNames::from(&current.user)),
        category: settings.appcat,
        trip: TripRequest {
            pickup: body.trip.pickup.as_ref(),
            drop: body.trip.drop.as_ref(),
            car_type,
            parcel_type_index: body.trip.parcelTypeIndex,
            option_index: body.trip.optionIndex,
        },
        book_later: body.bookLater,
        trip_date: body.tripdate,
        delivery: &body.delivery,
    };
    let now = state.now();
    let checked = validation::validate_booking(&request, now)?;
    // Times are JavaScript dates (at most 8.64e15 ms): a later one is no date, and would overflow the booking's timers.
    if checked.tripdate > 8_640_000_000_000_000 {
        return Err(ApiError::field(ErrorKey::InvalidInput, "tripdate"));
    }
    let car_type = checked.trip.car_type;
    // Spec §5: a route failure when booking is `place_to_coords_error`.
    let (route, _) = route_between(state, checked.trip.pickup, checked.trip.drop, &body.trip.waypoints)
        .await
        .map_err(|_| ApiError::key(ErrorKey::PlaceToCoordsError))?;
    let customer = admin_rider.clone().unwrap_or_else(|| current.user.clone());
    let mut new = new_booking(
        addressed(state, checked.trip.pickup).await,
        addressed(state, checked.trip.drop).await,
        body.bookLater,
        body.bookLater.then_some(checked.tripdate),
        route,
        &body.trip,
        checked.delivery.clone().unwrap_or_default(),
        None,
    );
    new.payment_mode = body.payment_mode;
    new.parcel_type_index = checked.trip.parcel_type.and(body.trip.parcelTypeIndex);
    new.option_index = checked.trip.option.and(body.trip.optionIndex);
    let context = Context { now, settings, car_type: Some(car_type) };
    new.promo = checked_promo(state, body.promo.as_deref(), &new, &context, customer.id).await?;
    let by = By::from_role(current.principal.role, current.principal.id);
    Ok(state.runtime.create_booking(&car_type.name, new, &customer, by).await?)
}

// ---- reading -------------------------------------------------------------------

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
    pub format: super::reports::Format,
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
    params(("status" = Option<String>, Query, pattern = "^ *(PAYMENT_PENDING|NEW|ACCEPTED|ARRIVED|STARTED|REACHED|PENDING|PAID|COMPLETE|CANCELLED)? *(, *(PAYMENT_PENDING|NEW|ACCEPTED|ARRIVED|STARTED|REACHED|PENDING|PAID|COMPLETE|CANCELLED)? *)*$", description = "Comma-separated statuses, e.g. `NEW,ACCEPTED`"), ("active" = Option<bool>, Query, description = "Only active bookings (every status but COMPLETE and CANCELLED) when no `status` is given"), ("search" = Option<String>, Query, description = "Matches the reference, addresses and names"), ("sort" = inline(Option<crate::openapi::schemas::BookingSortParam>), Query, description = "The column to order by (then by id): `tripdate` (default), `bookingDate`, `reference`, `status`, `customer_name`, `driver_name`, `carType` or `trip_cost`; text compares byte by byte"), ("order" = inline(Option<crate::openapi::schemas::SortOrderParam>), Query, description = "`desc` (default) or `asc`"), ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Page size, 1 to 500, default 50"), ("after" = Option<String>, Query, pattern = "^([0-9a-fA-F]{48}|t([0-9a-fA-F]{2}){16,})$", description = "The `next` cursor of the previous page (of the same sort)"), ("format" = inline(Option<super::reports::Format>), Query, description = "`json` (default); `csv` or `xlsx` downloads every booking of the filter, in its order, as a file (admins and fleet admins; refused with `demo_mode` in demo mode, and with `export_too_large` past 100,000 rows)")),
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
    if query.format != super::reports::Format::Json {
        authorize(Some(&current.principal), Action::BookingExport, Resource::None, &settings)?;
        return export(&state, &filter, query.format, &settings).await;
    }
    let page = super::page_request(query.limit, query.after)?;
    let found = state.storage.list_bookings(&filter, &page).await?;
    let items = presented(&state, &current, &found.items).await?;
    Ok(Json(Page { items, next: found.next }).into_response())
}

/// Every booking of the filter, in its order, as a CSV or XLSX file: read in
/// pages of the list's own index, refused past [`EXPORT_MAX_ROWS`].
async fn export(
    state: &AppState,
    filter: &BookingFilter,
    format: super::reports::Format,
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
    super::reports::file_response(table, format, "bookings".to_string()).await
}

/// The booking if the caller may do `action` on it; others' bookings are 404.
pub(crate) async fn authorised(
    state: &AppState,
    current: &CurrentUser,
    id: BookingId,
    action: Action,
) -> ApiResult<Arc<Booking>> {
    // A role that may never do this is refused before the lookup, so a 404 never tells it which ids exist.
    if !action.allowed_roles().contains(&current.principal.role) {
        return Err(ErrorKey::NotAllowed.into());
    }
    let booking = state.runtime.booking(id).await?;
    let settings = &state.runtime.catalog().settings;
    authorize(Some(&current.principal), action, Resource::Booking((&*booking).into()), settings)?;
    Ok(booking)
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

// ---- commands --------------------------------------------------------------------

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
    description = "The first driver to accept wins; every later accept gets 409 `booking_taken` and the other offers are withdrawn.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The booking after the change, as the caller may see it", body = Booking)),
    extensions(("x-refusals" = json!(booking_command![BookingTaken, NotOffered]))),
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
        (Some(rating), false) => Some(validation::validate_rating(rating)?),
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
    let reason = validation::validate_cancel_reason(&body.reason)?.to_string();
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

// ---- chat and tracking --------------------------------------------------------------

#[utoipa::path(
    get,
    path = "/api/v1/bookings/{id}/chat",
    tag = "chat",
    summary = "Read the chat",
    description = "The booking's messages between the rider and the assigned driver; marks the other party's messages read. Admins (any booking) and fleet admins (their fleet's) read it on the booking's page, marking nothing read; only the parties write.",
    params(("id" = BookingId, Path, description = "The booking's id")),
    responses((status = 200, description = "The messages", body = crate::openapi::schemas::ChatMessages)),
    extensions(("x-refusals" = json!(session![NotFound, NotAllowed]))),
)]
async fn chat(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
) -> ApiResult<Json<Value>> {
    // The panel reads a booking's chat on its page (issue #34), and leaves
    // the parties' messages unread.
    let party = matches!(current.principal.role, Role::Rider | Role::Driver);
    let action = if party { Action::BookingChat } else { Action::BookingChatAudit };
    authorised(&state, &current, id, action).await?;
    let messages = state.storage.chat(id).await?;
    if party {
        state.storage.mark_chat_read(id, current.principal.id, state.now()).await?;
    }
    Ok(Json(json!({ "messages": messages })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ChatBody {
    pub message: String,
}

#[utoipa::path(
    post,
    path = "/api/v1/bookings/{id}/chat",
    tag = "chat",
    summary = "Send a chat message",
    description = "Also sent to the booking's room over the socket (`chat` event).",
    params(("id" = BookingId, Path, description = "The booking's id")),
    request_body = ChatBody,
    responses((status = 201, description = "The stored message", body = crate::openapi::schemas::StoredChatMessage)),
    extensions(("x-refusals" = json!(session_with_body![NotFound, NotAllowed]))),
)]
async fn send_chat(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<BookingId>,
    Body(body): Body<ChatBody>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let booking = authorised(&state, &current, id, Action::BookingChat).await?;
    let text = validation::validate_chat_message(&body.message)?;
    let now = state.now();
    let message = ChatMessage {
        message: text.to_string(),
        from: current.principal.id,
        message_type: "msg".into(),
        msgDate: timefmt::chat_date(now, 0),
        msgTime: timefmt::chat_time(now, 0),
        source: current.principal.role,
        smsId: None,
        createdAt: now,
    };
    let stored = state.storage.append_chat(id, &message).await?;
    state.runtime.bus().publish(Event::Chat { booking: id, message: message.clone() });
    let other = if current.principal.id == booking.customer { booking.driver } else { Some(booking.customer) };
    if let Some(to) = other {
        state.runtime.bus().publish(Event::Notification { to, key: NoticeKey::ChatRequested, booking: Some(id) });
    }
    Ok((StatusCode::CREATED, Json(serde_json::to_value(stored).unwrap_or(Value::Null))))
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
