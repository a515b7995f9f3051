//! Providers that ask a web service: [`osrm`] for routes, ETAs and
//! matrices; [`nominatim`] or [`photon`] for places; or [`google`]'s web
//! services for either half. A provider is two halves, [`Routing`] and
//! [`Geocoding`], held together by [`Composed`], which checks the input once
//! for every service (limits, coordinates, blank queries), so a service is
//! never asked what the other providers refuse, and splits a large distance
//! matrix into blocks each service accepts.
//!
//! Every failure of a service — unreachable, too slow, an HTTP error, a
//! refusal, an answer we cannot read — is [`MapsError::Provider`] for the
//! call, with the spec's fixed text; the cause ([`RemoteError`]) is kept for
//! the logs and never carries the request's URL, which holds the rider's
//! search text and, for Google, the API key.
//!
//! Place ids say which service made them, so a place id round-trips from
//! `autocomplete` to `place`:
//! - Nominatim: `nominatim:<N|W|R><osm id>`, looked up again with `/lookup`;
//! - Photon: `photon:<lat>,<lng>,<label>` — Photon has no lookup by id, so
//!   the id carries what `place` answers;
//! - Google: Google's own place id, resolved with Place Details;
//! - no geocoder configured with OSRM: the built-in landmarks' ids.

pub mod google;
pub mod nominatim;
pub mod osrm;
pub mod photon;

#[cfg(test)]
mod tests;

use crate::error::{GeoCall, MapsError};
use crate::maps_provider::{
    DistanceMatrix, MapsProvider, PlaceDetails, Route, Suggestion, check_matrix_size, check_waypoints,
};
use crate::polyline;
use crate::straight_line::StraightLineProvider;
use async_trait::async_trait;
use reqwest::Url;
use serde::de::DeserializeOwned;
use std::sync::Arc;
use std::time::Duration;
use wayfare_engine::{Coord, LatLng};

/// A rider waits on autocomplete and estimates: a service slower than this
/// is treated as down.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// As many suggestions as the built-in search gives.
pub const SUGGESTION_LIMIT: usize = crate::gazetteer::Gazetteer::SEARCH_LIMIT;

/// A route across a country is a few hundred kB of polyline; far more is a
/// service gone wrong, not an answer to hold in memory.
const MAX_ANSWER_BYTES: usize = 8 << 20;

/// Nominatim's usage policy asks every client to say who it is.
const USER_AGENT: &str = concat!("wayfare/", env!("CARGO_PKG_VERSION"));

/// One HTTP client for every service of a provider: connections are pooled
/// and every request is bounded by the timeout.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: reqwest::Client,
}

impl HttpClient {
    pub fn new(timeout: Duration) -> Result<Self, reqwest::Error> {
        // rustls, whatever TLS backends other crates of the binary enable (the simulator's
        // Socket.IO client brings native-tls).
        let client = reqwest::Client::builder().use_rustls_tls().timeout(timeout).user_agent(USER_AGENT).build()?;
        Ok(Self { client })
    }

    /// GETs `url` and reads the JSON answer. A status other than 2xx is a
    /// failure unless listed in `readable` (OSRM explains a refusal in a 400's
    /// body).
    pub(crate) async fn get_json<T: DeserializeOwned>(
        &self,
        service: &'static str,
        call: GeoCall,
        url: Url,
        readable: &[u16],
    ) -> Result<T, MapsError> {
        self.fetch(service, url, readable).await.map_err(|error| error.during(call))
    }

    async fn fetch<T: DeserializeOwned>(
        &self,
        service: &'static str,
        url: Url,
        readable: &[u16],
    ) -> Result<T, RemoteError> {
        let transport = |error: reqwest::Error| RemoteError::from_transport(service, error);
        let mut response = self.client.get(url).send().await.map_err(transport)?;
        let status = response.status();
        if !status.is_success() && !readable.contains(&status.as_u16()) {
            return Err(RemoteError::Status { service, status: status.as_u16() });
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport)? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(RemoteError::Unreadable { service, reason: format!("over {MAX_ANSWER_BYTES} bytes") });
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|error| RemoteError::Unreadable { service, reason: error.to_string() })
    }
}

/// Why a service did not answer usefully; the source of
/// [`MapsError::Provider`], for the logs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    #[error("{service} did not answer in time")]
    TimedOut { service: &'static str },
    #[error("{service} could not be reached: {reason}")]
    Unreachable { service: &'static str, reason: String },
    #[error("{service} answered HTTP {status}")]
    Status { service: &'static str, status: u16 },
    #[error("{service} refused the request: {status}: {message}")]
    Refused { service: &'static str, status: String, message: String },
    #[error("{service}'s answer could not be read: {reason}")]
    Unreadable { service: &'static str, reason: String },
}

impl RemoteError {
    /// reqwest's own text names the URL; the chain of causes without it says
    /// what went wrong ("connection refused") and nothing more.
    fn from_transport(service: &'static str, error: reqwest::Error) -> Self {
        if error.is_timeout() {
            return RemoteError::TimedOut { service };
        }
        let error = error.without_url();
        let mut reason = error.to_string();
        let mut cause = std::error::Error::source(&error);
        while let Some(inner) = cause {
            reason.push_str(": ");
            reason.push_str(&inner.to_string());
            cause = inner.source();
        }
        RemoteError::Unreachable { service, reason }
    }

    /// The error the caller sees for this failure during `call`. A service
    /// failing is the operator's business, so it is logged here, where the
    /// cause is known.
    pub(crate) fn during(self, call: GeoCall) -> MapsError {
        tracing::warn!(error = %self, call = call.failure_text(), "maps service failed");
        MapsError::Provider { call, source: Box::new(self) }
    }
}

/// `base` with `path` after its own path: a service may live under a prefix
/// (`https://example.com/osrm`).
pub(crate) fn endpoint(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(&format!("{}/{path}", base.path().trim_end_matches('/')));
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// A route from a service's totals and its precision-5 encoded line (OSRM's
/// `geometries=polyline` and Google's overview polyline are both that).
pub(crate) fn route_from(
    service: &'static str,
    distance_m: f64,
    duration_secs: f64,
    encoded: String,
) -> Result<Route, RemoteError> {
    if !(distance_m.is_finite() && distance_m >= 0.0 && duration_secs.is_finite() && duration_secs >= 0.0) {
        return Err(RemoteError::Unreadable {
            service,
            reason: format!("a route of {distance_m} m in {duration_secs} s"),
        });
    }
    let points = polyline::decode(&encoded)
        .map_err(|error| RemoteError::Unreadable { service, reason: format!("route line: {error}") })?;
    Ok(Route {
        distance_km: distance_m / 1000.0,
        time_secs: duration_secs.round() as u64,
        polyline: encoded,
        coords: points.iter().map(|point| Coord { latitude: point.lat, longitude: point.lng }).collect(),
    })
}

/// The main text of an address and the rest, split at the first comma when
/// the service gives no separate name.
pub(crate) fn split_address(name: Option<&str>, address: &str) -> (String, String) {
    let name = name.map(str::trim).filter(|name| !name.is_empty());
    match name {
        Some(name) => {
            let rest = address.strip_prefix(name).and_then(|rest| rest.strip_prefix(", ")).unwrap_or(address);
            let rest = if rest == name { "" } else { rest };
            (name.to_owned(), rest.to_owned())
        }
        None => match address.split_once(", ") {
            Some((first, rest)) => (first.to_owned(), rest.to_owned()),
            None => (address.to_owned(), String::new()),
        },
    }
}

/// How many points one distance-matrix request to a service may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLimits {
    pub origins: usize,
    pub destinations: usize,
    /// Origins × destinations.
    pub elements: usize,
}

/// The routing half of a remote provider. [`Composed`] has checked the
/// input: at least two valid points, within the limits.
#[async_trait]
pub trait Routing: Send + Sync {
    /// The route through `points` (start, waypoints, destination) in order.
    async fn route(&self, points: &[LatLng]) -> Result<Route, MapsError>;

    /// One block of a distance matrix: neither side empty, within
    /// [`Routing::table_limits`]; `None` where no route joins a pair.
    async fn table(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError>;

    fn table_limits(&self) -> TableLimits;
}

/// The geocoding half of a remote provider. [`Composed`] has checked the
/// input: a query with a word in it, a valid `near` and point, a trimmed
/// country code.
#[async_trait]
pub trait Geocoding: Send + Sync {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError>;

    /// [`MapsError::UnknownPlace`] for an id this service did not make.
    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError>;

    /// An address for people to read; `None` when the service knows nothing
    /// there (the point's coordinates are answered then, as by every provider).
    async fn reverse(&self, point: LatLng) -> Result<Option<String>, MapsError>;
}

/// OSRM configured without a geocoder searches the built-in landmarks, as the
/// straight-line provider does.
#[async_trait]
impl Geocoding for StraightLineProvider {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError> {
        MapsProvider::autocomplete(self, query, near, country).await
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        MapsProvider::place(self, place_id).await
    }

    async fn reverse(&self, point: LatLng) -> Result<Option<String>, MapsError> {
        MapsProvider::reverse(self, point).await.map(Some)
    }
}

/// A provider made of a routing half and a geocoding half, from the same
/// service (Google) or from two.
pub struct Composed {
    routing: Arc<dyn Routing>,
    geocoding: Arc<dyn Geocoding>,
}

impl Composed {
    pub fn new(routing: Arc<dyn Routing>, geocoding: Arc<dyn Geocoding>) -> Self {
        Self { routing, geocoding }
    }
}

#[async_trait]
impl MapsProvider for Composed {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError> {
        // As the built-in search does: nothing to look for finds nothing, an
        // empty country restricts nothing, an invalid bias point biases nothing.
        if !query.chars().any(char::is_alphanumeric) {
            return Ok(Vec::new());
        }
        let country = country.map(str::trim).filter(|code| !code.is_empty());
        let near = near.filter(LatLng::is_valid);
        let mut suggestions = self.geocoding.autocomplete(query.trim(), near, country).await?;
        suggestions.truncate(SUGGESTION_LIMIT);
        Ok(suggestions)
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        if place_id.trim().is_empty() {
            return Err(MapsError::UnknownPlace);
        }
        self.geocoding.place(place_id).await
    }

    async fn reverse(&self, point: LatLng) -> Result<String, MapsError> {
        if !point.is_valid() {
            return Err(MapsError::InvalidPoint);
        }
        let address = self.geocoding.reverse(point).await?.filter(|address| !address.trim().is_empty());
        Ok(address.unwrap_or_else(|| format!("{:.5}, {:.5}", point.lat, point.lng)))
    }

    async fn directions(&self, start: LatLng, dest: LatLng, waypoints: &[LatLng]) -> Result<Route, MapsError> {
        check_waypoints(waypoints)?;
        let mut points = Vec::with_capacity(waypoints.len() + 2);
        points.push(start);
        points.extend_from_slice(waypoints);
        points.push(dest);
        if !points.iter().all(LatLng::is_valid) {
            return Err(MapsError::InvalidPoint);
        }
        self.routing.route(&points).await
    }

    async fn distance_matrix(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError> {
        check_matrix_size(origins.len(), destinations.len())?;
        if !origins.iter().chain(destinations).all(LatLng::is_valid) {
            return Err(MapsError::InvalidPoint);
        }
        let mut matrix: DistanceMatrix = vec![vec![None; destinations.len()]; origins.len()];
        for (rows, columns) in blocks(origins.len(), destinations.len(), self.routing.table_limits()) {
            let block = self.routing.table(&origins[rows.clone()], &destinations[columns.clone()]).await?;
            if block.len() != rows.len() || block.iter().any(|row| row.len() != columns.len()) {
                let reason = format!("a matrix of the wrong shape for {} × {} points", rows.len(), columns.len());
                return Err(
                    RemoteError::Unreadable { service: "the routing service", reason }.during(GeoCall::DistanceMatrix)
                );
            }
            for (row, answered) in matrix[rows].iter_mut().zip(block) {
                row[columns.clone()].copy_from_slice(&answered);
            }
        }
        Ok(matrix)
    }
}

/// The origin and destination ranges of each request, so that every request
/// stays within `limits`; nothing when either side is empty.
pub(crate) fn blocks(
    origins: usize,
    destinations: usize,
    limits: TableLimits,
) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    // As many destinations as fit, then as many origins as the element limit
    // leaves room for: 30 × 20 to Google is six requests of 5 × 20.
    let columns_per_block = limits.destinations.min(limits.elements).min(destinations).max(1);
    let rows_per_block = limits.origins.min(limits.elements / columns_per_block).max(1);
    let mut blocks = Vec::new();
    for row_start in (0..origins).step_by(rows_per_block) {
        for column_start in (0..destinations).step_by(columns_per_block) {
            blocks.push((
                row_start..(row_start + rows_per_block).min(origins),
                column_start..(column_start + columns_per_block).min(destinations),
            ));
        }
    }
    blocks
}
