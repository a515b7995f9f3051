//! The provider trait and what it answers: the five geo calls of spec §7
//! ("Cloud backend": autocomplete, getcoords, getaddress, getdistancematrix,
//! getdirections), whatever answers them.

use crate::error::MapsError;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use wayfare_engine::{Coord, LatLng, Place};

/// Spec §7 and §9: at most about 25 waypoints per directions request.
pub const MAX_WAYPOINTS: usize = 25;

/// The most origin × destination pairs one distance matrix may ask for
/// (25 × 25), so one request cannot ask for an unbounded amount of routing.
pub const MAX_MATRIX_ELEMENTS: usize = 625;

/// One autocomplete answer, shaped like Google's prediction: the text to
/// show, split into the place's name and the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    pub place_id: String,
    pub description: String,
    pub main_text: String,
    pub secondary_text: String,
}

/// A place id resolved to coordinates (spec §7 getcoords).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaceDetails {
    pub place_id: String,
    pub lat: f64,
    pub lng: f64,
    pub address: String,
}

impl PlaceDetails {
    pub fn point(&self) -> LatLng {
        LatLng::new(self.lat, self.lng)
    }
}

impl From<PlaceDetails> for Place {
    fn from(details: PlaceDetails) -> Self {
        Place { lat: details.lat, lng: details.lng, add: details.address }
    }
}

/// A driving route (spec §7 getdirections: distance_in_km, time, polyline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Route {
    pub distance_km: f64,
    pub time_secs: u64,
    /// Google's encoded polyline, precision 5 (see [`crate::polyline`]).
    pub polyline: String,
    /// The same line as points, as a booking's `coords` keeps it.
    pub coords: Vec<Coord>,
}

/// One origin-destination pair of a distance matrix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Leg {
    pub distance_km: f64,
    pub time_secs: u64,
}

/// Rows by origin, columns by destination; `None` where no route joins the pair.
pub type DistanceMatrix = Vec<Vec<Option<Leg>>>;

/// Routing, geocoding and autocomplete. Every implementation answers the same
/// errors for the same mistakes (check the limits with [`check_waypoints`]
/// and [`check_matrix_size`]) and keeps its own failures out of the message.
#[async_trait]
pub trait MapsProvider: Send + Sync {
    /// Places whose name or address matches `query`, best first, biased
    /// towards `near` and restricted to `country` (an ISO 3166-1 alpha-2
    /// code, spec §7 restrictCountry) when given.
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError>;

    /// The coordinates of a place id from [`MapsProvider::autocomplete`];
    /// [`MapsError::UnknownPlace`] when it names nothing.
    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError>;

    /// An address for a point, for people to read.
    async fn reverse(&self, point: LatLng) -> Result<String, MapsError>;

    /// A route from `start` through `waypoints` in order to `dest`; at most
    /// [`MAX_WAYPOINTS`] waypoints.
    async fn directions(&self, start: LatLng, dest: LatLng, waypoints: &[LatLng]) -> Result<Route, MapsError>;

    /// Distance and time from every origin to every destination; at most
    /// [`MAX_MATRIX_ELEMENTS`] pairs.
    async fn distance_matrix(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError>;

    /// The roads a tracked trip was driven on, as a line, or `None` when
    /// this provider has no roads to match to (the track is then used as
    /// it is). CPU work: call it off the async threads.
    fn match_track(&self, _track: &[LatLng]) -> Option<Vec<LatLng>> {
        None
    }

    /// The basemap's vector tiles, when this provider has a map to draw.
    fn tiles(&self) -> Option<&crate::osm::tiles::Tiles> {
        None
    }
}

/// [`MapsError::TooManyWaypoints`] past [`MAX_WAYPOINTS`].
pub fn check_waypoints(waypoints: &[LatLng]) -> Result<(), MapsError> {
    if waypoints.len() > MAX_WAYPOINTS {
        return Err(MapsError::TooManyWaypoints { given: waypoints.len(), max: MAX_WAYPOINTS });
    }
    Ok(())
}

/// [`MapsError::MatrixTooLarge`] past [`MAX_MATRIX_ELEMENTS`] pairs.
pub fn check_matrix_size(origins: usize, destinations: usize) -> Result<(), MapsError> {
    let elements = origins.saturating_mul(destinations);
    if elements > MAX_MATRIX_ELEMENTS {
        return Err(MapsError::MatrixTooLarge { given: elements, max: MAX_MATRIX_ELEMENTS });
    }
    Ok(())
}
