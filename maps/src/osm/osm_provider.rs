//! The OpenStreetMap provider: routes, ETAs and matrices on the extract's
//! roads, and place search from the extract's addresses, places, streets
//! and intersections — after the curated landmarks of the gazetteer that
//! lie on the map, which read better ("Inner Harbor") than raw data.

use super::cache::PreparedMap;
use super::geocode::PlaceIndex;
use super::router::{Path, Router};
use super::tiles::Tiles;
use crate::error::MapsError;
use crate::gazetteer::Gazetteer;
use crate::maps_provider::{
    DistanceMatrix, Leg, MapsProvider, PlaceDetails, Route, Suggestion, check_matrix_size, check_waypoints,
};
use crate::polyline;
use async_trait::async_trait;
use wayfare_engine::{Coord, LatLng};

/// A landmark this close to a point names it in a reverse lookup.
const LANDMARK_REACH_KM: f64 = 0.05;
/// An address this close names a point; then the street it is on.
const ADDRESS_REACH_M: f64 = 50.0;
const STREET_REACH_M: f64 = 100.0;
/// Place ids of the extract's own entries: `osm:<index>`.
const OSM_ID_PREFIX: &str = "osm:";

pub struct OsmProvider {
    router: Router,
    places: PlaceIndex,
    tiles: Tiles,
    /// The gazetteer's landmarks that lie on this map.
    landmarks: Gazetteer,
}

impl OsmProvider {
    pub fn new(prepared: PreparedMap, gazetteer: &Gazetteer) -> Self {
        let PreparedMap { router, places, basemap } = prepared;
        let on_map: Vec<_> = gazetteer
            .places()
            .iter()
            .filter(|place| router.snap(place.point()).is_some_and(|snap| snap.distance_m < 500.0))
            .cloned()
            .collect();
        let landmarks = Gazetteer::new(on_map).expect("a subset of a valid gazetteer is valid");
        OsmProvider { router, places, tiles: Tiles::new(basemap), landmarks }
    }

    pub fn router(&self) -> &Router {
        &self.router
    }

    /// The route through `points` in order, leg by leg.
    pub fn route_through(&self, points: &[LatLng]) -> Result<Route, MapsError> {
        if points.iter().any(|point| !point.is_valid()) {
            return Err(MapsError::InvalidPoint);
        }
        let mut time_ms = 0i64;
        let mut length_m = 0.0;
        let mut line: Vec<[f64; 2]> = Vec::new();
        for pair in points.windows(2) {
            let Path { time_ms: leg_time, length_m: leg_length, points: leg_points } =
                self.router.route(pair[0], pair[1]).ok_or(MapsError::NoRoute)?;
            time_ms += leg_time.max(0);
            length_m += leg_length.max(0.0);
            for point in leg_points {
                if line.last() != Some(&point) {
                    line.push(point);
                }
            }
        }
        let points: Vec<LatLng> = line.iter().map(|point| LatLng::new(point[0], point[1])).collect();
        Ok(Route {
            distance_km: length_m / 1000.0,
            time_secs: (time_ms as f64 / 1000.0).round() as u64,
            polyline: polyline::encode(&points),
            coords: points.iter().map(|point| Coord { latitude: point.lat, longitude: point.lng }).collect(),
        })
    }
}

#[async_trait]
impl MapsProvider for OsmProvider {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError> {
        let mut suggestions: Vec<Suggestion> =
            self.landmarks.search(query, near, country).into_iter().map(|place| place.suggestion()).collect();
        for (index, entry) in self.places.search(query, near, country) {
            if suggestions.len() >= super::geocode::SEARCH_LIMIT {
                break;
            }
            if suggestions.iter().any(|known| known.main_text.eq_ignore_ascii_case(&entry.name)) {
                continue;
            }
            suggestions.push(Suggestion {
                place_id: format!("{OSM_ID_PREFIX}{index}"),
                description: entry.address(),
                main_text: entry.name.clone(),
                secondary_text: entry.secondary.clone(),
            });
        }
        Ok(suggestions)
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        if let Some(index) = place_id.strip_prefix(OSM_ID_PREFIX) {
            let entry = index.parse().ok().and_then(|index| self.places.entry(index)).ok_or(MapsError::UnknownPlace)?;
            return Ok(PlaceDetails {
                place_id: place_id.to_owned(),
                lat: entry.lat,
                lng: entry.lng,
                address: entry.address(),
            });
        }
        self.landmarks.place(place_id).map(|place| place.details()).ok_or(MapsError::UnknownPlace)
    }

    async fn reverse(&self, point: LatLng) -> Result<String, MapsError> {
        if !point.is_valid() {
            return Err(MapsError::InvalidPoint);
        }
        if let Some((place, distance)) = self.landmarks.nearest(point)
            && distance <= LANDMARK_REACH_KM
        {
            return Ok(place.address.clone());
        }
        if let Some((entry, _)) = self.places.nearest_address(point, ADDRESS_REACH_M) {
            return Ok(entry.address());
        }
        // The street the point is on, else the coordinates.
        if let Some(snap) = self.router.snap(point)
            && snap.distance_m <= STREET_REACH_M
        {
            let network = self.router.network();
            let name = &network.names[network.segments[snap.segment].name as usize];
            if !name.is_empty() {
                return Ok(name.clone());
            }
        }
        Ok(format!("{:.5}, {:.5}", point.lat, point.lng))
    }

    async fn directions(&self, start: LatLng, dest: LatLng, waypoints: &[LatLng]) -> Result<Route, MapsError> {
        check_waypoints(waypoints)?;
        let mut points = Vec::with_capacity(waypoints.len() + 2);
        points.push(start);
        points.extend_from_slice(waypoints);
        points.push(dest);
        self.route_through(&points)
    }

    async fn distance_matrix(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError> {
        check_matrix_size(origins.len(), destinations.len())?;
        if origins.iter().chain(destinations).any(|point| !point.is_valid()) {
            return Err(MapsError::InvalidPoint);
        }
        Ok(self
            .router
            .matrix(origins, destinations)
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|cell| {
                        cell.map(|total| Leg {
                            distance_km: total.length_dm.max(0) as f64 / 10_000.0,
                            time_secs: (total.time_ms.max(0) as f64 / 1000.0).round() as u64,
                        })
                    })
                    .collect()
            })
            .collect())
    }

    fn match_track(&self, track: &[LatLng]) -> Option<Vec<LatLng>> {
        let track: Vec<LatLng> = track.iter().copied().filter(LatLng::is_valid).collect();
        let matched = self.router.match_track(&track)?;
        Some(matched.points.iter().map(|point| LatLng::new(point[0], point[1])).collect())
    }

    fn tiles(&self) -> Option<&Tiles> {
        Some(&self.tiles)
    }
}
