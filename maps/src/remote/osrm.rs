//! Routes, ETAs and distance matrices from an OSRM server (HTTP API v5):
//! the `route` service for directions, the `table` service for matrices.
//! OSRM takes coordinates as `lng,lat`, separated by `;`, in the path.

use super::{HttpClient, RemoteError, Routing, TableLimits, endpoint, route_from};
use crate::error::{GeoCall, MapsError};
use crate::maps_provider::{DistanceMatrix, Leg, Route};
use async_trait::async_trait;
use reqwest::Url;
use serde::Deserialize;
use wayfare_engine::LatLng;

const SERVICE: &str = "OSRM";

/// osrm-routed serves whatever profile it was prepared with under any name;
/// `driving` is the name its documentation uses for cars.
const PROFILE: &str = "driving";

/// osrm-routed's default `--max-table-size`: at most 100 coordinates per
/// table request, sources and destinations together.
const TABLE_LIMITS: TableLimits = TableLimits { origins: 50, destinations: 50, elements: 2500 };

/// OSRM answers its refusals with HTTP 400 and a `code` in the body.
const READABLE_REFUSAL: &[u16] = &[400];

#[derive(Debug, Clone)]
pub struct Osrm {
    http: HttpClient,
    base: Url,
}

impl Osrm {
    /// `base` is the server's address, e.g. `http://127.0.0.1:5000`.
    pub fn new(http: HttpClient, base: Url) -> Self {
        Self { http, base }
    }

    fn url(&self, service: &str, points: &[LatLng], query: &str) -> Url {
        let coordinates: Vec<String> = points.iter().map(|point| format!("{},{}", point.lng, point.lat)).collect();
        let mut url = endpoint(&self.base, &format!("{service}/v1/{PROFILE}/{}", coordinates.join(";")));
        // Written out rather than form-encoded: OSRM's own examples keep `;`
        // and `,` literal.
        url.set_query(Some(query));
        url
    }
}

/// The fields of a `route` or `table` answer that we read.
#[derive(Deserialize)]
struct Answer {
    code: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    routes: Vec<AnswerRoute>,
    #[serde(default)]
    durations: Option<Vec<Vec<Option<f64>>>>,
    #[serde(default)]
    distances: Option<Vec<Vec<Option<f64>>>>,
}

#[derive(Deserialize)]
struct AnswerRoute {
    distance: f64,
    duration: f64,
    geometry: String,
}

impl Answer {
    fn refused(self) -> RemoteError {
        RemoteError::Refused { service: SERVICE, status: self.code, message: self.message.unwrap_or_default() }
    }
}

#[async_trait]
impl Routing for Osrm {
    async fn route(&self, points: &[LatLng]) -> Result<Route, MapsError> {
        let call = GeoCall::Directions;
        let url = self.url("route", points, "overview=full&geometries=polyline");
        let answer: Answer = self.http.get_json(SERVICE, call, url, READABLE_REFUSAL).await?;
        match answer.code.as_str() {
            "Ok" => {}
            // NoSegment: a point is too far from every road to start from.
            "NoRoute" | "NoSegment" => return Err(MapsError::NoRoute),
            _ => return Err(answer.refused().during(call)),
        }
        let route = answer.routes.into_iter().next().ok_or(MapsError::NoRoute)?;
        route_from(SERVICE, route.distance, route.duration, route.geometry).map_err(|error| error.during(call))
    }

    async fn table(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError> {
        let call = GeoCall::DistanceMatrix;
        let indices =
            |range: std::ops::Range<usize>| range.map(|index| index.to_string()).collect::<Vec<_>>().join(";");
        let query = format!(
            "sources={}&destinations={}&annotations=distance,duration",
            indices(0..origins.len()),
            indices(origins.len()..origins.len() + destinations.len()),
        );
        let points: Vec<LatLng> = origins.iter().chain(destinations).copied().collect();
        let answer: Answer =
            self.http.get_json(SERVICE, call, self.url("table", &points, &query), READABLE_REFUSAL).await?;
        match answer.code.as_str() {
            "Ok" => {}
            // No route joins any pair (NoTable), or a point is off every
            // road and OSRM does not say which (NoSegment).
            "NoTable" | "NoSegment" => return Ok(vec![vec![None; destinations.len()]; origins.len()]),
            _ => return Err(answer.refused().during(call)),
        }
        let (Some(durations), Some(distances)) = (answer.durations, answer.distances) else {
            let reason = "no durations or distances (an OSRM too old to annotate distances?)".to_owned();
            return Err(RemoteError::Unreadable { service: SERVICE, reason }.during(call));
        };
        Ok(durations
            .into_iter()
            .zip(distances)
            .map(|(durations, distances)| {
                durations
                    .into_iter()
                    .zip(distances)
                    .map(|(duration, distance)| match (duration, distance) {
                        (Some(duration), Some(distance)) if duration >= 0.0 && distance >= 0.0 => {
                            Some(Leg { distance_km: distance / 1000.0, time_secs: duration.round() as u64 })
                        }
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
