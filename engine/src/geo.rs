//! Geometry on the sphere: great-circle distance, path length and the
//! saved-address match of spec §4.

use crate::model::{LatLng, SavedAddress};

pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Spec §9: a saved address matches a drop within 0.1 km.
pub const SAVED_ADDRESS_MATCH_KM: f64 = 0.1;

/// Great-circle distance in km (haversine).
pub fn distance_km(from: LatLng, to: LatLng) -> f64 {
    let (lat1, lat2) = (from.lat.to_radians(), to.lat.to_radians());
    let delta_lat = lat2 - lat1;
    let delta_lng = (to.lng - from.lng).to_radians();
    let half_chord = (delta_lat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (delta_lng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * half_chord.sqrt().min(1.0).asin()
}

/// Length of a path through the points in order, km.
pub fn path_km(points: impl IntoIterator<Item = LatLng>) -> f64 {
    let mut total = 0.0;
    let mut previous: Option<LatLng> = None;
    for point in points {
        if let Some(last) = previous {
            total += distance_km(last, point);
        }
        previous = Some(point);
    }
    total
}

/// Adds a drop to the saved addresses: a saved address within 0.1 km has its
/// count increased, otherwise the drop is added with count 1 (spec §4 REACHED).
pub fn save_address(saved: &mut Vec<SavedAddress>, description: &str, point: LatLng) {
    let nearest = saved
        .iter_mut()
        .map(|address| (distance_km(LatLng::new(address.lat, address.lng), point), address))
        .filter(|(distance, _)| *distance <= SAVED_ADDRESS_MATCH_KM)
        .min_by(|left, right| left.0.total_cmp(&right.0));
    match nearest {
        Some((_, address)) => address.count += 1,
        None => {
            saved.push(SavedAddress { description: description.to_string(), lat: point.lat, lng: point.lng, count: 1 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_between_two_known_points_matches_the_reference() {
        // Baltimore Inner Harbor to Fort McHenry: about 3.8 km as the crow flies.
        let harbor = LatLng::new(39.2858, -76.6131);
        let fort = LatLng::new(39.2634, -76.5797);
        let distance = distance_km(harbor, fort);
        assert!((distance - 3.80).abs() < 0.1, "{distance}");
        assert_eq!(distance_km(harbor, harbor), 0.0);
        assert!((distance_km(harbor, fort) - distance_km(fort, harbor)).abs() < 1e-12);
    }

    #[test]
    fn one_degree_of_latitude_is_about_111_km() {
        let distance = distance_km(LatLng::new(0.0, 0.0), LatLng::new(1.0, 0.0));
        assert!((distance - 111.19).abs() < 0.05, "{distance}");
    }

    #[test]
    fn path_length_adds_the_legs() {
        let points = [LatLng::new(0.0, 0.0), LatLng::new(1.0, 0.0), LatLng::new(1.0, 1.0)];
        let expected = distance_km(points[0], points[1]) + distance_km(points[1], points[2]);
        assert!((path_km(points) - expected).abs() < 1e-9);
        assert_eq!(path_km([]), 0.0);
        assert_eq!(path_km([LatLng::new(5.0, 5.0)]), 0.0);
    }

    #[test]
    fn a_drop_within_a_tenth_of_a_km_counts_up_the_saved_address() {
        // spec §4 REACHED, §9: saved-address match radius 0.1 km
        let mut saved = vec![SavedAddress { description: "Home".into(), lat: 39.2904, lng: -76.6122, count: 2 }];
        // About 55 m north.
        save_address(&mut saved, "Home again", LatLng::new(39.2909, -76.6122));
        assert_eq!(saved.len(), 1);
        assert_eq!(saved[0].count, 3);
        // About 1.1 km north: a new address.
        save_address(&mut saved, "Office", LatLng::new(39.3004, -76.6122));
        assert_eq!(saved.len(), 2);
        assert_eq!(saved[1].description, "Office");
        assert_eq!(saved[1].count, 1);
    }
}
