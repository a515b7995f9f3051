//! The OpenStreetMap provider: routes, ETAs and matrices on the extract's
//! roads. Place search still answers from the gazetteer until the extract's
//! own geocoder lands (issue #14).

use super::router::{Path, Router};
use crate::error::MapsError;
use crate::gazetteer::Gazetteer;
use crate::polyline;
use crate::provider::{
    DistanceMatrix, Leg, MapsProvider, PlaceDetails, Route, Suggestion, check_matrix_size, check_waypoints,
};
use async_trait::async_trait;
use wayfare_engine::{Coord, LatLng};

/// A reverse lookup further than this from any known place answers the coordinates.
const REVERSE_MATCH_KM: f64 = 0.3;

pub struct OsmProvider {
    router: Router,
    gazetteer: Gazetteer,
}

impl OsmProvider {
    pub fn new(router: Router, gazetteer: Gazetteer) -> Self {
        OsmProvider { router, gazetteer }
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
        Ok(self.gazetteer.search(query, near, country).into_iter().map(|place| place.suggestion()).collect())
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        self.gazetteer.place(place_id).map(|place| place.details()).ok_or(MapsError::UnknownPlace)
    }

    async fn reverse(&self, point: LatLng) -> Result<String, MapsError> {
        if !point.is_valid() {
            return Err(MapsError::InvalidPoint);
        }
        if let Some((place, distance)) = self.gazetteer.nearest(point)
            && distance <= REVERSE_MATCH_KM
        {
            return Ok(place.address.clone());
        }
        // The street the point is on, else the coordinates.
        if let Some(snap) = self.router.snap(point)
            && snap.distance_m <= 100.0
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
}
