//! Pricing and making a booking: `POST /bookings/estimate` and
//! `POST /bookings`, and [`book`], which "try again" (`crate::routes::mend`)
//! also uses.

use crate::auth::{CurrentUser, MaybeUser};
use crate::error::{ApiError, ApiResult};
use crate::extract::Body;
use crate::openapi::refusals::{refusals, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::Arc;
use utoipa_axum::routes;
use wayfare_engine::booking::{self, By, Context, NewBooking, RouteInfo};
use wayfare_engine::permissions::{self, Action, Resource, authorize};
use wayfare_engine::rules::booking::{
    BookingChannel, BookingRequest, DeliveryDetails, ProfileNames, TripRequest, validate_booking, validate_trip,
};
use wayfare_engine::{Booking, ErrorKey, LatLng, PaymentMode, Place, Role, UserId, fare, promo};

pub(super) fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(estimate)).routes(routes!(create))
}

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
    let choice = validate_trip(&trip, settings.appcat)?;
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
    let checked = validate_booking(&request, now)?;
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
