//! The geo calls of spec §7 "Cloud backend" under `/api/v1/geo`, through the
//! configured maps provider: autocomplete, place to coordinates, coordinates
//! to address, directions (up to 25 waypoints) and distance matrix; and the
//! basemap — a MapLibre style and its vector tiles — when the provider has
//! a map to draw (an OpenStreetMap extract).

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::Body;
use crate::openapi::refusals::{Refusals, public, session_with_body};
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_engine::{DomainError, ErrorKey, LatLng};
use wayfare_maps::MapsError;

/// A signed-in caller with a JSON body, and the maps provider's refusals
/// (`wayfare_maps::MapsError::key`).
const GEO: Refusals = session_with_body![NoRouteFound, PlaceToCoordsError, GooglePlacesError];

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(autocomplete))
        .routes(routes!(place))
        .routes(routes!(address))
        .routes(routes!(directions))
        .routes(routes!(matrix))
        .routes(routes!(basemap_style))
        .routes(routes!(basemap_tile))
}

/// Every coordinate a geo call takes must be on the earth (`LatLng::is_valid`),
/// as the document's bounds say; otherwise `invalid_input` on its field,
/// before the maps provider is asked.
fn check_points<'a>(points: impl IntoIterator<Item = &'a LatLng>, field: &'static str) -> ApiResult<()> {
    if points.into_iter().all(LatLng::is_valid) { Ok(()) } else { Err(ApiError::field(ErrorKey::InvalidInput, field)) }
}

fn maps_error(error: MapsError) -> ApiError {
    tracing::debug!(%error, "maps call failed");
    ApiError::Domain(DomainError::from(error))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[allow(non_snake_case)]
pub struct AutocompleteBody {
    pub searchKeyword: String,
    #[serde(default)]
    pub near: Option<LatLng>,
}

#[utoipa::path(
    post,
    path = "/api/v1/geo/autocomplete",
    tag = "geo",
    summary = "Autocomplete a place",
    description = "Places matching the text, best first, biased towards `near`.",
    request_body = AutocompleteBody,
    responses((status = 200, description = "Suggestions", body = crate::openapi::schemas::AutocompleteResponse)),
    extensions(("x-refusals" = json!(GEO))),
)]
async fn autocomplete(
    State(state): State<AppState>,
    _user: CurrentUser,
    Body(body): Body<AutocompleteBody>,
) -> ApiResult<Json<Value>> {
    check_points(&body.near, "near")?;
    let restrict = state.runtime.catalog().settings.restrictCountry.clone();
    let country = Some(restrict.as_str()).filter(|code| !code.is_empty());
    let results = state.maps.autocomplete(&body.searchKeyword, body.near, country).await.map_err(maps_error)?;
    Ok(Json(json!({ "searchResults": results })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct PlaceBody {
    pub place_id: String,
}

#[utoipa::path(
    post,
    path = "/api/v1/geo/place",
    tag = "geo",
    summary = "Place to coordinates",
    description = "The coordinates of a `place_id` from autocomplete.",
    request_body = PlaceBody,
    responses((status = 200, description = "The place", body = crate::openapi::schemas::PlaceResponse)),
    extensions(("x-refusals" = json!(GEO))),
)]
async fn place(
    State(state): State<AppState>,
    _user: CurrentUser,
    Body(body): Body<PlaceBody>,
) -> ApiResult<Json<Value>> {
    let details = state.maps.place(&body.place_id).await.map_err(maps_error)?;
    Ok(Json(
        json!({ "coords": { "lat": details.lat, "lng": details.lng }, "address": details.address, "place_id": details.place_id }),
    ))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct AddressBody {
    pub latlng: LatLng,
}

#[utoipa::path(
    post,
    path = "/api/v1/geo/address",
    tag = "geo",
    summary = "Coordinates to address",
    request_body = AddressBody,
    responses((status = 200, description = "The address", body = crate::openapi::schemas::AddressResponse)),
    extensions(("x-refusals" = json!(GEO))),
)]
async fn address(
    State(state): State<AppState>,
    _user: CurrentUser,
    Body(body): Body<AddressBody>,
) -> ApiResult<Json<Value>> {
    check_points([&body.latlng], "latlng")?;
    let address = state.maps.reverse(body.latlng).await.map_err(maps_error)?;
    Ok(Json(json!({ "address": address })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct DirectionsBody {
    pub start: LatLng,
    pub dest: LatLng,
    #[serde(default)]
    pub waypoints: Vec<LatLng>,
}

#[utoipa::path(
    post,
    path = "/api/v1/geo/directions",
    tag = "geo",
    summary = "Directions",
    description = "A route from `start` through up to 25 `waypoints` to `dest`.",
    request_body = DirectionsBody,
    responses((status = 200, description = "The route", body = crate::openapi::schemas::DirectionsResponse)),
    extensions(("x-refusals" = json!(GEO))),
)]
async fn directions(
    State(state): State<AppState>,
    _user: CurrentUser,
    Body(body): Body<DirectionsBody>,
) -> ApiResult<Json<Value>> {
    check_points([&body.start], "start")?;
    check_points([&body.dest], "dest")?;
    check_points(&body.waypoints, "waypoints")?;
    let route = state.maps.directions(body.start, body.dest, &body.waypoints).await.map_err(maps_error)?;
    Ok(Json(json!({
        "distance_in_km": route.distance_km,
        "time_in_secs": route.time_secs,
        "polylinePoints": route.polyline,
        "coords": route.coords,
    })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct MatrixBody {
    pub start: Vec<LatLng>,
    pub dest: Vec<LatLng>,
}

#[utoipa::path(
    post,
    path = "/api/v1/geo/matrix",
    tag = "geo",
    summary = "Distance matrix",
    description = "Distance and time from every origin to every destination, at most 625 pairs.",
    request_body = MatrixBody,
    responses((status = 200, description = "The matrix", body = crate::openapi::schemas::MatrixResponse)),
    extensions(("x-refusals" = json!(GEO))),
)]
async fn matrix(
    State(state): State<AppState>,
    _user: CurrentUser,
    Body(body): Body<MatrixBody>,
) -> ApiResult<Json<Value>> {
    check_points(&body.start, "start")?;
    check_points(&body.dest, "dest")?;
    let matrix = state.maps.distance_matrix(&body.start, &body.dest).await.map_err(maps_error)?;
    Ok(Json(json!({ "rows": matrix })))
}

/// Where the style's tiles are, as the browser reached this server: MapLibre
/// needs absolute tile URLs, and behind a proxy the forwarded host and
/// scheme are the ones the browser knows.
fn tiles_url(headers: &HeaderMap, version: &str) -> String {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::to_owned);
    let host = header("x-forwarded-host").or_else(|| header("host")).unwrap_or_else(|| "localhost".to_owned());
    let scheme = header("x-forwarded-proto").unwrap_or_else(|| "http".to_owned());
    format!("{scheme}://{host}/api/v1/geo/basemap/tiles/{{z}}/{{x}}/{{y}}?v={version}")
}

#[utoipa::path(
    get,
    path = "/api/v1/geo/basemap/style.json",
    tag = "geo",
    summary = "The basemap's MapLibre style",
    description = "A MapLibre GL style (version 8) drawing the OpenStreetMap extract the server runs on: water, \
        land cover, buildings, roads and railways, street, place and point-of-interest names. It names no glyphs \
        and no sprite, so MapLibre GL JS 5.11 or later draws labels with the browser's fonts and nothing is \
        fetched from elsewhere. `not_found` when the server has no map (the straight-line provider).",
    responses(
        (status = 200, description = "The style", body = Object),
        (status = 404, description = "No map configured", body = crate::openapi::schemas::ErrorBody)
    ),
    // The basemap is public: the landing page draws it before anyone signs in.
    extensions(("x-refusals" = json!(public![NotFound]))),
)]
async fn basemap_style(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    let tiles = state.maps.tiles().ok_or_else(|| ApiError::key(ErrorKey::NotFound))?;
    let style = wayfare_maps::osm::style::style(&tiles_url(&headers, &tiles.basemap().version), tiles.basemap());
    // Asked again on every load: it names the extract's version.
    Ok(([(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))], Json(style)).into_response())
}

#[utoipa::path(
    get,
    path = "/api/v1/geo/basemap/tiles/{z}/{x}/{y}",
    tag = "geo",
    summary = "A basemap vector tile",
    description = "The Mapbox Vector Tile (2.1) `z/x/y` of the basemap, zoom 0 to 14, layers `landcover`, `water`, \
        `waterway`, `land`, `building`, `rail`, `road`, `place`, `poi` with `class` and `name` (roads also `rank`, \
        `brunnel`, `ramp`). Empty where the map has nothing. `not_found` past zoom 14, outside the tile grid, \
        or when the server has no map.",
    params(
        ("z" = u8, Path, description = "Zoom, 0 to 14"),
        ("x" = u32, Path, description = "Column, 0 to 2^z − 1"),
        ("y" = u32, Path, description = "Row from the north, 0 to 2^z − 1")
    ),
    responses(
        (status = 200, description = "The tile", content_type = "application/vnd.mapbox-vector-tile", body = Vec<u8>),
        (status = 404, description = "No such tile, or no map", body = crate::openapi::schemas::ErrorBody)
    ),
    extensions(("x-refusals" = json!(public![NotFound]))),
)]
async fn basemap_tile(State(state): State<AppState>, Path((z, x, y)): Path<(u8, u32, u32)>) -> ApiResult<Response> {
    if state.maps.tiles().is_none() {
        return Err(ApiError::key(ErrorKey::NotFound));
    }
    let maps = state.maps.clone();
    // Cutting a tile is CPU work (clipping, thinning, encoding): off the async threads.
    let tile = tokio::task::spawn_blocking(move || maps.tiles().map(|tiles| tiles.tile(z, x, y)))
        .await
        .map_err(|error| ApiError::Internal(error.to_string()))?;
    match tile {
        Some(Ok(tile)) => Ok((
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("application/vnd.mapbox-vector-tile")),
                // The URL carries the extract's version, so a day is safe.
                (header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400")),
            ],
            tile.to_vec(),
        )
            .into_response()),
        _ => Err(ApiError::key(ErrorKey::NotFound)),
    }
}
