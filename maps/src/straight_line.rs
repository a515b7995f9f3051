//! The provider that needs nothing: routes are straight lines through the
//! waypoints, lengthened by a detour factor because roads are not straight,
//! driven at a fixed average speed; places come from a [`Gazetteer`].
//! It works offline and answers at once, so it is the fallback, and the
//! default until the OpenStreetMap provider is configured.

use crate::error::{MapsConfigError, MapsError};
use crate::gazetteer::Gazetteer;
use crate::maps_provider::{
    DistanceMatrix, Leg, MapsProvider, PlaceDetails, Route, Suggestion, check_matrix_size, check_waypoints,
};
use crate::polyline;
use async_trait::async_trait;
use wayfare_engine::geo::path_km;
use wayfare_engine::{Coord, LatLng};

/// `reverse` names a gazetteer place this close to the point; further away it
/// answers the coordinates, since a landmark 1 km off is not an address.
pub const REVERSE_MATCH_KM: f64 = 0.3;

const SECONDS_PER_HOUR: f64 = 3600.0;

#[derive(Debug, Clone)]
pub struct StraightLineProvider {
    gazetteer: Gazetteer,
    detour_factor: f64,
    average_speed_kmh: f64,
}

impl StraightLineProvider {
    /// `detour_factor` (at least 1) multiplies the great-circle distance;
    /// `average_speed_kmh` (above 0) turns distance into time.
    pub fn new(gazetteer: Gazetteer, detour_factor: f64, average_speed_kmh: f64) -> Result<Self, MapsConfigError> {
        check_straight_line(detour_factor, average_speed_kmh)?;
        Ok(Self { gazetteer, detour_factor, average_speed_kmh })
    }

    pub fn gazetteer(&self) -> &Gazetteer {
        &self.gazetteer
    }

    /// The leg along `points` in order; `None` when a point is not on Earth.
    fn leg_through(&self, points: &[LatLng]) -> Option<Leg> {
        if !points.iter().all(LatLng::is_valid) {
            return None;
        }
        let distance_km = path_km(points.iter().copied()) * self.detour_factor;
        let time_secs = (distance_km / self.average_speed_kmh * SECONDS_PER_HOUR).round() as u64;
        Some(Leg { distance_km, time_secs })
    }
}

/// A detour factor of at least 1 (no road is shorter than the straight line)
/// and a positive, finite speed.
pub(crate) fn check_straight_line(detour_factor: f64, average_speed_kmh: f64) -> Result<(), MapsConfigError> {
    if !(detour_factor.is_finite() && detour_factor >= 1.0) {
        return Err(MapsConfigError::DetourFactor(detour_factor));
    }
    if !(average_speed_kmh.is_finite() && average_speed_kmh > 0.0) {
        return Err(MapsConfigError::AverageSpeed(average_speed_kmh));
    }
    Ok(())
}

#[async_trait]
impl MapsProvider for StraightLineProvider {
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
        match self.gazetteer.nearest(point) {
            Some((place, distance)) if distance <= REVERSE_MATCH_KM => Ok(place.address.clone()),
            _ => Ok(format!("{:.5}, {:.5}", point.lat, point.lng)),
        }
    }

    async fn directions(&self, start: LatLng, dest: LatLng, waypoints: &[LatLng]) -> Result<Route, MapsError> {
        check_waypoints(waypoints)?;
        let mut points = Vec::with_capacity(waypoints.len() + 2);
        points.push(start);
        points.extend_from_slice(waypoints);
        points.push(dest);
        let leg = self.leg_through(&points).ok_or(MapsError::NoRoute)?;
        Ok(Route {
            distance_km: leg.distance_km,
            time_secs: leg.time_secs,
            polyline: polyline::encode(&points),
            coords: points.iter().map(|point| Coord { latitude: point.lat, longitude: point.lng }).collect(),
        })
    }

    async fn distance_matrix(&self, origins: &[LatLng], destinations: &[LatLng]) -> Result<DistanceMatrix, MapsError> {
        check_matrix_size(origins.len(), destinations.len())?;
        Ok(origins
            .iter()
            .map(|&origin| destinations.iter().map(|&destination| self.leg_through(&[origin, destination])).collect())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maps_provider::{MAX_MATRIX_ELEMENTS, MAX_WAYPOINTS};
    use crate::test_support::at_once;
    use std::sync::Arc;
    use wayfare_engine::geo::distance_km;

    fn provider() -> Arc<dyn MapsProvider> {
        Arc::new(StraightLineProvider::new(Gazetteer::baltimore(), 1.3, 30.0).unwrap())
    }

    // Hand-checked haversine distances, R = 6371.0088 km.
    const ONE_DEGREE_OF_LATITUDE_KM: f64 = 111.1951;
    const EQUATOR: LatLng = LatLng { lat: 0.0, lng: 0.0 };
    const ONE_NORTH: LatLng = LatLng { lat: 1.0, lng: 0.0 };
    const TWO_NORTH: LatLng = LatLng { lat: 2.0, lng: 0.0 };

    #[test]
    fn a_route_is_the_great_circle_distance_times_the_detour_at_the_average_speed() {
        // spec §7 getdirections: distance_in_km, time, polyline
        let route = at_once(provider().directions(EQUATOR, ONE_NORTH, &[])).unwrap();
        // 111.1951 km × 1.3 = 144.5536 km; at 30 km/h that is 4.81845 h = 17 346.4 s.
        assert!((route.distance_km - 144.5536).abs() < 1e-3, "{}", route.distance_km);
        assert_eq!(route.time_secs, 17346);
    }

    #[test]
    fn the_detour_factor_and_the_speed_come_from_the_configuration() {
        let direct = StraightLineProvider::new(Gazetteer::baltimore(), 1.0, 60.0).unwrap();
        let route = at_once(direct.directions(EQUATOR, ONE_NORTH, &[])).unwrap();
        assert!((route.distance_km - ONE_DEGREE_OF_LATITUDE_KM).abs() < 1e-3, "{}", route.distance_km);
        // 111.1951 km at 60 km/h: 1.8533 h = 6671.7 s.
        assert_eq!(route.time_secs, 6672);
    }

    #[test]
    fn a_short_city_trip_matches_a_hand_computed_estimate() {
        // Inner Harbor to Fort McHenry: 3.3135 km as the crow flies, × 1.3 = 4.3075 km,
        // at 30 km/h 516.9 s.
        let gazetteer = Gazetteer::baltimore();
        let harbor = gazetteer.place("bmore:inner-harbor").unwrap().point();
        let fort = gazetteer.place("bmore:fort-mchenry").unwrap().point();
        let crow_flies = distance_km(harbor, fort);
        assert!((crow_flies - 3.3135).abs() < 1e-3, "{crow_flies}");
        let route = at_once(provider().directions(harbor, fort, &[])).unwrap();
        assert!((route.distance_km - 4.3075).abs() < 1e-3, "{}", route.distance_km);
        assert_eq!(route.time_secs, 517);
    }

    #[test]
    fn the_route_passes_the_waypoints_in_the_order_given() {
        // Out to 2°N and back to 1°N is 3 degrees of travel; 1°N then 2°N is 2.
        let there_and_back = at_once(provider().directions(EQUATOR, ONE_NORTH, &[TWO_NORTH])).unwrap();
        let in_order = at_once(provider().directions(EQUATOR, TWO_NORTH, &[ONE_NORTH])).unwrap();
        assert!((there_and_back.distance_km - 3.0 * ONE_DEGREE_OF_LATITUDE_KM * 1.3).abs() < 1e-2);
        assert!((in_order.distance_km - 2.0 * ONE_DEGREE_OF_LATITUDE_KM * 1.3).abs() < 1e-2);
        let latitudes: Vec<f64> = there_and_back.coords.iter().map(|coord| coord.latitude).collect();
        assert_eq!(latitudes, [0.0, 2.0, 1.0]);
    }

    #[test]
    fn the_polyline_and_the_coords_are_the_straight_segments() {
        let route = at_once(provider().directions(EQUATOR, TWO_NORTH, &[ONE_NORTH])).unwrap();
        assert_eq!(polyline::decode(&route.polyline).unwrap(), [EQUATOR, ONE_NORTH, TWO_NORTH]);
        assert_eq!(route.coords.len(), 3);
        assert_eq!(route.coords[1], Coord { latitude: 1.0, longitude: 0.0 });
    }

    #[test]
    fn twenty_five_waypoints_route_and_twenty_six_are_invalid_input() {
        // spec §7, §9: up to about 25 waypoints per directions request
        let waypoints: Vec<LatLng> =
            (0..=MAX_WAYPOINTS).map(|step| LatLng::new(39.26 + step as f64 * 0.001, -76.58)).collect();
        let start = LatLng::new(39.25, -76.58);
        let dest = LatLng::new(39.30, -76.58);
        let route = at_once(provider().directions(start, dest, &waypoints[..MAX_WAYPOINTS])).unwrap();
        assert_eq!(route.coords.len(), MAX_WAYPOINTS + 2);
        let error = at_once(provider().directions(start, dest, &waypoints)).unwrap_err();
        assert!(matches!(error, MapsError::TooManyWaypoints { given: 26, max: 25 }), "{error:?}");
        assert_eq!(error.key().as_str(), "invalid_input");
    }

    #[test]
    fn a_route_to_coordinates_not_on_earth_is_no_route_found() {
        // spec §8: FETCH_ESTIMATE_FAILED 'No Route Found'
        let maps = provider();
        for bad in [LatLng::new(91.0, 0.0), LatLng::new(0.0, 181.0), LatLng::new(f64::NAN, 0.0)] {
            let as_dest = at_once(maps.directions(EQUATOR, bad, &[])).unwrap_err();
            let as_waypoint = at_once(maps.directions(EQUATOR, ONE_NORTH, &[bad])).unwrap_err();
            assert_eq!(as_dest.key().as_str(), "no_route_found");
            assert_eq!(as_waypoint.key().as_str(), "no_route_found");
            assert_eq!(as_dest.to_string(), "No Route Found");
        }
    }

    #[test]
    fn the_same_start_and_destination_is_a_route_of_zero() {
        let route = at_once(provider().directions(ONE_NORTH, ONE_NORTH, &[])).unwrap();
        assert_eq!((route.distance_km, route.time_secs), (0.0, 0));
    }

    #[test]
    fn the_distance_matrix_has_a_row_per_origin_and_a_column_per_destination() {
        // spec §7 getdistancematrix
        let origins = [EQUATOR, ONE_NORTH];
        let destinations = [ONE_NORTH, TWO_NORTH, LatLng::new(100.0, 0.0)];
        let matrix = at_once(provider().distance_matrix(&origins, &destinations)).unwrap();
        assert_eq!(matrix.len(), 2);
        assert!(matrix.iter().all(|row| row.len() == 3));
        let equator_to_two_north = matrix[0][1].unwrap();
        let direct = at_once(provider().directions(EQUATOR, TWO_NORTH, &[])).unwrap();
        assert_eq!(
            (equator_to_two_north.distance_km, equator_to_two_north.time_secs),
            (direct.distance_km, direct.time_secs)
        );
        assert_eq!(matrix[1][0].unwrap().distance_km, 0.0);
        assert!(matrix[0][2].is_none() && matrix[1][2].is_none(), "no route to a point not on Earth");
        assert!(at_once(provider().distance_matrix(&[], &destinations)).unwrap().is_empty());
    }

    #[test]
    fn a_distance_matrix_over_the_limit_is_invalid_input() {
        let origins = vec![EQUATOR; 26];
        let destinations = vec![ONE_NORTH; 25];
        assert_eq!(26 * 25, MAX_MATRIX_ELEMENTS + 25);
        let error = at_once(provider().distance_matrix(&origins, &destinations)).unwrap_err();
        assert!(matches!(error, MapsError::MatrixTooLarge { given: 650, max: 625 }), "{error:?}");
        assert_eq!(error.key().as_str(), "invalid_input");
        assert!(at_once(provider().distance_matrix(&origins[..25], &destinations)).is_ok());
    }

    #[test]
    fn autocomplete_answers_suggestions_from_the_gazetteer() {
        // spec §7 googleapis-autocomplete, restricted to restrictCountry
        let maps = provider();
        let suggestions = at_once(maps.autocomplete("fort mc", None, Some("us"))).unwrap();
        assert_eq!(suggestions[0].place_id, "bmore:fort-mchenry");
        assert_eq!(suggestions[0].main_text, "Fort McHenry National Monument and Historic Shrine");
        assert!(at_once(maps.autocomplete("fort mc", None, Some("de"))).unwrap().is_empty());
    }

    #[test]
    fn a_place_id_resolves_to_its_coordinates_and_an_unknown_one_is_place_to_coords_error() {
        // spec §7 googleapis-getcoords; §8 place_to_coords_error
        let maps = provider();
        let details = at_once(maps.place("bmore:patterson-park")).unwrap();
        assert_eq!(details.place_id, "bmore:patterson-park");
        assert!((details.lat - 39.28945).abs() < 1e-9 && (details.lng + 76.57877).abs() < 1e-9);
        assert!(details.address.starts_with("Patterson Park, "));
        let error = at_once(maps.place("bmore:no-such-place")).unwrap_err();
        assert_eq!(error.key().as_str(), "place_to_coords_error");
    }

    #[test]
    fn reverse_near_a_landmark_answers_its_address() {
        // spec §7 googleapis-getaddress
        let gazetteer = Gazetteer::baltimore();
        let fort = gazetteer.place("bmore:fort-mchenry").unwrap();
        let about_150_m_south_of_the_fort = LatLng::new(fort.lat - 0.00135, fort.lng);
        let (nearest, distance) = gazetteer.nearest(about_150_m_south_of_the_fort).unwrap();
        assert_eq!((nearest.id.as_str(), (distance * 1000.0).round()), ("bmore:fort-mchenry", 150.0));
        let maps = provider();
        assert_eq!(
            at_once(maps.reverse(about_150_m_south_of_the_fort)).unwrap(),
            "2400 E Fort Ave, Baltimore, MD 21230"
        );
        assert_eq!(at_once(maps.reverse(fort.point())).unwrap(), "2400 E Fort Ave, Baltimore, MD 21230");
    }

    #[test]
    fn reverse_away_from_every_landmark_answers_the_coordinates() {
        let middle_of_the_atlantic = LatLng::new(30.0, -40.0);
        assert_eq!(at_once(provider().reverse(middle_of_the_atlantic)).unwrap(), "30.00000, -40.00000");
        let outside_the_extract = LatLng::new(39.2841234, -76.6219876);
        assert_eq!(at_once(provider().reverse(outside_the_extract)).unwrap(), "39.28412, -76.62199");
        let error = at_once(provider().reverse(LatLng::new(0.0, 200.0))).unwrap_err();
        assert_eq!(error.key().as_str(), "invalid_input");
    }

    #[test]
    fn a_detour_below_one_or_a_speed_of_zero_is_refused() {
        assert!(matches!(
            StraightLineProvider::new(Gazetteer::baltimore(), 0.9, 30.0),
            Err(MapsConfigError::DetourFactor(_))
        ));
        assert!(matches!(
            StraightLineProvider::new(Gazetteer::baltimore(), f64::NAN, 30.0),
            Err(MapsConfigError::DetourFactor(_))
        ));
        assert!(matches!(
            StraightLineProvider::new(Gazetteer::baltimore(), 1.3, 0.0),
            Err(MapsConfigError::AverageSpeed(_))
        ));
        assert!(matches!(
            StraightLineProvider::new(Gazetteer::baltimore(), 1.3, f64::INFINITY),
            Err(MapsConfigError::AverageSpeed(_))
        ));
    }
}
