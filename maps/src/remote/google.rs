//! Google Maps Platform's web services, with an API key: Place Autocomplete
//! and Place Details, reverse Geocoding, Directions and Distance Matrix —
//! the calls spec §7 was written against. The base URL is configurable so
//! tests (or a proxy) can stand in for `https://maps.googleapis.com`.
//!
//! Google answers HTTP 200 with a `status` for every outcome; `OK` and
//! `ZERO_RESULTS` are answers, the rest (`REQUEST_DENIED`,
//! `OVER_QUERY_LIMIT`, …) a failure of the call, kept with Google's
//! `error_message` for the logs. The key travels in the query and so never
//! appears in an error: see [`super::RemoteError`].

use super::{Geocoding, HttpClient, RemoteError, Routing, TableLimits, endpoint, route_from};
use crate::error::{GeoCall, MapsError};
use crate::maps_provider::{DistanceMatrix, Leg, PlaceDetails, Route, Suggestion};
use async_trait::async_trait;
use reqwest::Url;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use wayfare_engine::LatLng;

const SERVICE: &str = "Google Maps";
pub const DEFAULT_BASE_URL: &str = "https://maps.googleapis.com";

/// Distance Matrix: at most 25 origins, 25 destinations and 100 elements
/// per request.
const TABLE_LIMITS: TableLimits = TableLimits { origins: 25, destinations: 25, elements: 100 };

/// Autocomplete prefers places within this distance of `near`.
const NEAR_RADIUS_M: &str = "50000";

#[derive(Clone)]
pub struct Google {
    http: HttpClient,
    base: Url,
    api_key: String,
}

/// Written by hand so the key stays out of debug output.
impl std::fmt::Debug for Google {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Google").field("base", &self.base.as_str()).finish_non_exhaustive()
    }
}

impl Google {
    pub fn new(http: HttpClient, base: Url, api_key: impl Into<String>) -> Self {
        Self { http, base, api_key: api_key.into() }
    }

    async fn get<T: DeserializeOwned>(
        &self,
        call: GeoCall,
        path: &str,
        params: &[(&str, &str)],
    ) -> Result<T, MapsError> {
        let mut url = endpoint(&self.base, path);
        url.query_pairs_mut().extend_pairs(params).append_pair("key", &self.api_key);
        self.http.get_json(SERVICE, call, url, &[]).await
    }
}

fn lat_lng(point: LatLng) -> String {
    format!("{},{}", point.lat, point.lng)
}

fn joined(points: &[LatLng]) -> String {
    points.iter().copied().map(lat_lng).collect::<Vec<_>>().join("|")
}

/// `Ok(true)` for results, `Ok(false)` for none, else the refusal.
fn answered(call: GeoCall, status: &str, message: Option<String>) -> Result<bool, MapsError> {
    match status {
        "OK" => Ok(true),
        "ZERO_RESULTS" => Ok(false),
        _ => Err(RemoteError::Refused {
            service: SERVICE,
            status: status.to_owned(),
            message: message.unwrap_or_default(),
        }
        .during(call)),
    }
}

#[derive(Deserialize)]
struct Status {
    status: String,
    #[serde(default)]
    error_message: Option<String>,
}

#[derive(Deserialize)]
struct AutocompleteAnswer {
    #[serde(flatten)]
    status: Status,
    #[serde(default)]
    predictions: Vec<Prediction>,
}

#[derive(Deserialize)]
struct Prediction {
    place_id: String,
    description: String,
    #[serde(default)]
    structured_formatting: Option<Formatting>,
}

#[derive(Deserialize)]
struct Formatting {
    main_text: String,
    #[serde(default)]
    secondary_text: Option<String>,
}

#[derive(Deserialize)]
struct DetailsAnswer {
    #[serde(flatten)]
    status: Status,
    #[serde(default)]
    result: Option<Details>,
}

#[derive(Deserialize)]
struct Details {
    geometry: Geometry,
    #[serde(default)]
    formatted_address: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct Geometry {
    location: Location,
}

#[derive(Deserialize)]
struct Location {
    lat: f64,
    lng: f64,
}

#[derive(Deserialize)]
struct GeocodeAnswer {
    #[serde(flatten)]
    status: Status,
    #[serde(default)]
    results: Vec<GeocodeResult>,
}

#[derive(Deserialize)]
struct GeocodeResult {
    formatted_address: String,
}

#[derive(Deserialize)]
struct DirectionsAnswer {
    #[serde(flatten)]
    status: Status,
    #[serde(default)]
    routes: Vec<DirectionsRoute>,
}

#[derive(Deserialize)]
struct DirectionsRoute {
    overview_polyline: EncodedLine,
    legs: Vec<DirectionsLeg>,
}

#[derive(Deserialize)]
struct EncodedLine {
    points: String,
}

#[derive(Deserialize)]
struct DirectionsLeg {
    distance: Value,
    duration: Value,
}

/// Google's `{"text": "2.4 km", "value": 2400}`: metres or seconds.
#[derive(Deserialize)]
struct Value {
    value: f64,
}

#[derive(Deserialize)]
struct MatrixAnswer {
    #[serde(flatten)]
    status: Status,
    #[serde(default)]
    rows: Vec<MatrixRow>,
}

#[derive(Deserialize)]
struct MatrixRow {
    elements: Vec<MatrixElement>,
}

#[derive(Deserialize)]
struct MatrixElement {
    status: String,
    #[serde(default)]
    distance: Option<Value>,
    #[serde(default)]
    duration: Option<Value>,
}

#[async_trait]
impl Geocoding for Google {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError> {
        let call = GeoCall::Autocomplete;
        let mut params = vec![("input", query.to_owned())];
        if let Some(country) = country {
            params.push(("components", format!("country:{}", country.to_ascii_lowercase())));
        }
        if let Some(near) = near {
            params.extend([("location", lat_lng(near)), ("radius", NEAR_RADIUS_M.to_owned())]);
        }
        let params: Vec<(&str, &str)> = params.iter().map(|(name, value)| (*name, value.as_str())).collect();
        let answer: AutocompleteAnswer = self.get(call, "maps/api/place/autocomplete/json", &params).await?;
        if !answered(call, &answer.status.status, answer.status.error_message)? {
            return Ok(Vec::new());
        }
        Ok(answer
            .predictions
            .into_iter()
            .map(|prediction| {
                let (main_text, secondary_text) = match prediction.structured_formatting {
                    Some(formatting) => (formatting.main_text, formatting.secondary_text.unwrap_or_default()),
                    None => super::split_address(None, &prediction.description),
                };
                Suggestion {
                    place_id: prediction.place_id,
                    description: prediction.description,
                    main_text,
                    secondary_text,
                }
            })
            .collect())
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        let call = GeoCall::PlaceCoords;
        let params = [("place_id", place_id), ("fields", "formatted_address,geometry,name")];
        let answer: DetailsAnswer = self.get(call, "maps/api/place/details/json", &params).await?;
        // NOT_FOUND: no longer in Google's database; INVALID_REQUEST: not a
        // place id at all (the key and the fields are always sent).
        if matches!(answer.status.status.as_str(), "NOT_FOUND" | "INVALID_REQUEST") {
            return Err(MapsError::UnknownPlace);
        }
        if !answered(call, &answer.status.status, answer.status.error_message)? {
            return Err(MapsError::UnknownPlace);
        }
        let details = answer.result.ok_or(MapsError::UnknownPlace)?;
        let Location { lat, lng } = details.geometry.location;
        if !LatLng::new(lat, lng).is_valid() {
            let reason = format!("coordinates {lat}, {lng}");
            return Err(RemoteError::Unreadable { service: SERVICE, reason }.during(call));
        }
        let address = details.formatted_address.or(details.name).unwrap_or_default();
        Ok(PlaceDetails { place_id: place_id.to_owned(), lat, lng, address })
    }

    async fn reverse(&self, point: LatLng) -> Result<Option<String>, MapsError> {
        let call = GeoCall::Address;
        let answer: GeocodeAnswer = self.get(call, "maps/api/geocode/json", &[("latlng", &lat_lng(point))]).await?;
        if !answered(call, &answer.status.status, answer.status.error_message)? {
            return Ok(None);
        }
        Ok(answer.results.into_iter().next().map(|result| result.formatted_address))
    }
}

#[async_trait]
impl Routing for Google {
    async fn route(&self, points: &[LatLng]) -> Result<Route, MapsError> {
        let call = GeoCall::Directions;
        let (start, dest) = (lat_lng(points[0]), lat_lng(points[points.len() - 1]));
        let waypoints = joined(&points[1..points.len() - 1]);
        let mut params = vec![("origin", start.as_str()), ("destination", dest.as_str()), ("mode", "driving")];
        if !waypoints.is_empty() {
            params.push(("waypoints", &waypoints));
        }
        let answer: DirectionsAnswer = self.get(call, "maps/api/directions/json", &params).await?;
        // NOT_FOUND: a point could not be placed on the map;
        // MAX_ROUTE_LENGTH_EXCEEDED: too long a trip to answer.
        if matches!(answer.status.status.as_str(), "NOT_FOUND" | "MAX_ROUTE_LENGTH_EXCEEDED") {
            return Err(MapsError::NoRoute);
        }
        if !answered(call, &answer.status.status, answer.status.error_message)? {
            return Err(MapsError::NoRoute);
        }
        let route = answer.routes.into_iter().next().ok_or(MapsError::NoRoute)?;
        // One leg per stretch between stops; the totals are their sums.
        let distance_m = route.legs.iter().map(|leg| leg.distance.value).sum();
        let duration_secs = route.legs.iter().map(|leg| leg.duration.value).sum();
        route_from(SERVICE, distance_m, duration_secs, route.overview_polyline.points)
            .map_err(|error| error.during(call))
    }

    async fn table(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError> {
        let call = GeoCall::DistanceMatrix;
        let (origins_text, destinations_text) = (joined(origins), joined(destinations));
        let params = [("origins", origins_text.as_str()), ("destinations", &destinations_text), ("mode", "driving")];
        let answer: MatrixAnswer = self.get(call, "maps/api/distancematrix/json", &params).await?;
        if !answered(call, &answer.status.status, answer.status.error_message)? {
            return Ok(vec![vec![None; destinations.len()]; origins.len()]);
        }
        Ok(answer
            .rows
            .into_iter()
            .map(|row| {
                row.elements
                    .into_iter()
                    .map(|element| match (element.status.as_str(), element.distance, element.duration) {
                        ("OK", Some(distance), Some(duration)) if distance.value >= 0.0 && duration.value >= 0.0 => {
                            Some(Leg { distance_km: distance.value / 1000.0, time_secs: duration.value.round() as u64 })
                        }
                        // NOT_FOUND, ZERO_RESULTS, MAX_ROUTE_LENGTH_EXCEEDED.
                        _ => None,
                    })
                    .collect()
            })
            .collect())
    }

    fn table_limits(&self) -> TableLimits {
        TABLE_LIMITS
    }
}
