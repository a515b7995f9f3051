//! The spatial index of online drivers: who is where, driving what, and
//! whether they can take an offer right now.
//!
//! Positions live in the R-trees as points on the unit sphere (earth-centred,
//! earth-fixed), not as latitude/longitude: the straight-line chord between two
//! such points grows with the great-circle distance, so the tree's
//! nearest-neighbour order is the great-circle order anywhere on Earth, across
//! the antimeridian and near the poles, with no projection to pick.
//!
//! There is one R-tree per car type, and a tree holds only *available* drivers
//! (online and not busy). A dispatch query then never wades through busy or
//! foreign-car drivers, which at rush hour are most of them. A side table keyed
//! by driver holds every indexed driver, available or not, so moving, flipping
//! availability and removing find the tree entry in O(log n) without a search.

use super::eligibility::is_eligible;
use crate::geo::EARTH_RADIUS_KM;
use crate::ids::UserId;
use crate::model::{LatLng, Role, User};
use rstar::{AABB, Envelope, PointDistance, RTree, RTreeObject, SelectionFunction};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// A driver found by [`DriverIndex::nearest`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub driver: UserId,
    /// Great-circle distance from the query point.
    pub distance_km: f64,
    pub position: LatLng,
}

/// What the index knows about one driver (for the live dispatch console and
/// for the actor's snapshot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexedDriver<'index> {
    pub driver: UserId,
    /// The car type name, as bookings and users spell it.
    pub car_type: &'index str,
    pub position: LatLng,
    /// Online and not busy: the driver can be offered a booking.
    pub available: bool,
}

/// A point on the unit sphere.
type UnitVector = [f64; 3];

fn unit_vector(position: LatLng) -> UnitVector {
    let (sin_lat, cos_lat) = position.lat.to_radians().sin_cos();
    let (sin_lng, cos_lng) = position.lng.to_radians().sin_cos();
    [cos_lat * cos_lng, cos_lat * sin_lng, sin_lat]
}

fn chord_squared(from: &UnitVector, to: &UnitVector) -> f64 {
    let (dx, dy, dz) = (from[0] - to[0], from[1] - to[1], from[2] - to[2]);
    dx * dx + dy * dy + dz * dz
}

/// The squared unit-sphere chord of a great-circle distance. Chords grow with
/// arcs up to the antipode, so a cut-off on one is a cut-off on the other.
fn chord_squared_of_km(distance_km: f64) -> f64 {
    let angle = distance_km / EARTH_RADIUS_KM;
    if angle >= std::f64::consts::PI {
        // The whole Earth; no rounding at the antipode may drop a point.
        return f64::INFINITY;
    }
    let chord = 2.0 * (angle / 2.0).sin();
    chord * chord
}

fn km_of_chord_squared(chord_squared: f64) -> f64 {
    let half_chord = (chord_squared.sqrt() / 2.0).min(1.0);
    2.0 * EARTH_RADIUS_KM * half_chord.asin()
}

/// An available driver as the R-tree stores it. The position rides along so a
/// query answers without a side-table lookup per candidate.
#[derive(Debug, Clone, Copy)]
struct TreeEntry {
    point: UnitVector,
    driver: UserId,
    position: LatLng,
}

impl RTreeObject for TreeEntry {
    type Envelope = AABB<UnitVector>;

    fn envelope(&self) -> Self::Envelope {
        AABB::from_point(self.point)
    }
}

impl PointDistance for TreeEntry {
    fn distance_2(&self, point: &UnitVector) -> f64 {
        chord_squared(&self.point, point)
    }
}

/// rstar's default node sizes: 12-wide nodes measured the same within the
/// noise (docs/benchmarks.md).
type DriverTree = RTree<TreeEntry>;

/// Finds one driver's entry: only subtrees whose box holds its point are
/// opened, and the leaf is matched by id, never by comparing floats.
struct SelectDriverAt {
    at: AABB<UnitVector>,
    driver: UserId,
}

impl SelectionFunction<TreeEntry> for SelectDriverAt {
    fn should_unpack_parent(&self, envelope: &AABB<UnitVector>) -> bool {
        envelope.contains_envelope(&self.at)
    }

    fn should_unpack_leaf(&self, leaf: &TreeEntry) -> bool {
        leaf.driver == self.driver
    }
}

/// Car types are interned: an entry keeps a small number, not a string. The
/// handful of car types a platform has are never forgotten.
type CarTypeSlot = u32;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    car_type: CarTypeSlot,
    position: LatLng,
    point: UnitVector,
    available: bool,
}

impl Entry {
    fn tree_entry(&self, driver: UserId) -> TreeEntry {
        TreeEntry { point: self.point, driver, position: self.position }
    }
}

fn remove_from_tree(tree: &mut DriverTree, driver: UserId, point: UnitVector) -> bool {
    let removed = tree.remove_with_selection_function(SelectDriverAt { at: AABB::from_point(point), driver });
    // Invariant: every available entry of the side table is in its tree.
    debug_assert!(removed.is_some(), "available driver {driver} missing from its tree");
    removed.is_some()
}

/// The online drivers, searchable by car type and distance. Owned by one
/// actor; plain data, so the simulator and tests use it directly.
#[derive(Clone, Default)]
pub struct DriverIndex {
    car_type_slots: HashMap<String, CarTypeSlot>,
    car_type_names: Vec<String>,
    /// Available drivers only, one tree per car type slot.
    available_by_car_type: Vec<DriverTree>,
    drivers: HashMap<UserId, Entry>,
}

impl fmt::Debug for DriverIndex {
    // Summarised: a city's worth of tree entries is no use in a log line.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("DriverIndex")
            .field("drivers", &self.len())
            .field("available", &self.available_len())
            .field("car_types", &self.car_type_names)
            .finish()
    }
}

impl DriverIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds an index in one go (bulk-loading each tree, which is faster than
    /// inserting one by one and gives tighter trees), e.g. when the actor
    /// restarts. Entries with invalid coordinates are left out; when a driver
    /// appears twice, the last entry wins.
    pub fn from_drivers<'driver>(drivers: impl IntoIterator<Item = IndexedDriver<'driver>>) -> Self {
        let mut index = Self::new();
        for driver in drivers {
            if !driver.position.is_valid() {
                continue;
            }
            let car_type = index.car_type_slot(driver.car_type);
            let point = unit_vector(driver.position);
            let entry = Entry { car_type, position: driver.position, point, available: driver.available };
            index.drivers.insert(driver.driver, entry);
        }
        let mut available_by_car_type: Vec<Vec<TreeEntry>> = vec![Vec::new(); index.car_type_names.len()];
        for (driver, entry) in &index.drivers {
            if entry.available {
                available_by_car_type[entry.car_type as usize].push(entry.tree_entry(*driver));
            }
        }
        index.available_by_car_type = available_by_car_type
            .into_iter()
            .map(|mut entries| {
                // The side table's order changes from run to run; the tree's
                // shape, and so the order of equally near drivers, must not.
                entries.sort_unstable_by_key(|entry| entry.driver);
                DriverTree::bulk_load(entries)
            })
            .collect();
        index
    }

    fn car_type_slot(&mut self, car_type: &str) -> CarTypeSlot {
        if let Some(&slot) = self.car_type_slots.get(car_type) {
            return slot;
        }
        let slot = CarTypeSlot::try_from(self.car_type_names.len()).expect("fewer than 2^32 car types");
        self.car_type_slots.insert(car_type.to_string(), slot);
        self.car_type_names.push(car_type.to_string());
        self.available_by_car_type.push(DriverTree::new());
        slot
    }

    /// Adds a driver or replaces everything known about one. Refused (false)
    /// when the position is not a valid coordinate; the driver's previous entry,
    /// if any, is then left as it was.
    pub fn upsert(&mut self, driver: UserId, car_type: &str, position: LatLng, available: bool) -> bool {
        if !position.is_valid() {
            return false;
        }
        let slot = self.car_type_slot(car_type);
        let entry = Entry { car_type: slot, position, point: unit_vector(position), available };
        let previous = self.drivers.insert(driver, entry);
        if previous == Some(entry) {
            return true;
        }
        if let Some(previous) = previous
            && previous.available
        {
            remove_from_tree(&mut self.available_by_car_type[previous.car_type as usize], driver, previous.point);
        }
        if available {
            self.available_by_car_type[slot as usize].insert(entry.tree_entry(driver));
        }
        true
    }

    /// Brings the index in line with a user record: an online driver with a
    /// car type and a valid location is indexed, available exactly when
    /// eligible (spec §5); anyone else is removed. True when the user is now
    /// indexed.
    pub fn upsert_user(&mut self, user: &User) -> bool {
        let online_driver = user.usertype == Role::Driver && user.driverActiveStatus;
        if online_driver
            && let (Some(car_type), Some(location)) = (user.carType.as_deref(), user.location)
            && self.upsert(user.id, car_type, location, is_eligible(user))
        {
            return true;
        }
        self.remove(user.id);
        false
    }

    /// Moves a known driver. False when the driver is not indexed or the
    /// position is not a valid coordinate (the driver then stays where it was).
    pub fn move_to(&mut self, driver: UserId, position: LatLng) -> bool {
        if !position.is_valid() {
            return false;
        }
        let Some(entry) = self.drivers.get_mut(&driver) else {
            return false;
        };
        if entry.position == position {
            return true;
        }
        let point = unit_vector(position);
        if entry.available {
            let tree = &mut self.available_by_car_type[entry.car_type as usize];
            remove_from_tree(tree, driver, entry.point);
            tree.insert(TreeEntry { point, driver, position });
        }
        entry.position = position;
        entry.point = point;
        true
    }

    /// Marks a known driver available (online and not busy) or not. False when
    /// the driver is not indexed.
    pub fn set_available(&mut self, driver: UserId, available: bool) -> bool {
        let Some(entry) = self.drivers.get_mut(&driver) else {
            return false;
        };
        if entry.available == available {
            return true;
        }
        let tree = &mut self.available_by_car_type[entry.car_type as usize];
        if available {
            tree.insert(entry.tree_entry(driver));
        } else {
            remove_from_tree(tree, driver, entry.point);
        }
        entry.available = available;
        true
    }

    /// Changes a known driver's car type. False when the driver is not indexed.
    pub fn set_car_type(&mut self, driver: UserId, car_type: &str) -> bool {
        if !self.drivers.contains_key(&driver) {
            return false;
        }
        let slot = self.car_type_slot(car_type);
        let Some(entry) = self.drivers.get_mut(&driver) else {
            return false;
        };
        if entry.car_type == slot {
            return true;
        }
        if entry.available {
            remove_from_tree(&mut self.available_by_car_type[entry.car_type as usize], driver, entry.point);
            self.available_by_car_type[slot as usize].insert(entry.tree_entry(driver));
        }
        entry.car_type = slot;
        true
    }

    /// Forgets a driver (gone offline). False when the driver was not indexed.
    pub fn remove(&mut self, driver: UserId) -> bool {
        let Some(entry) = self.drivers.remove(&driver) else {
            return false;
        };
        if entry.available {
            remove_from_tree(&mut self.available_by_car_type[entry.car_type as usize], driver, entry.point);
        }
        true
    }

    pub fn get(&self, driver: UserId) -> Option<IndexedDriver<'_>> {
        self.drivers.get(&driver).map(|entry| self.view(driver, entry))
    }

    fn view(&self, driver: UserId, entry: &Entry) -> IndexedDriver<'_> {
        IndexedDriver {
            driver,
            car_type: &self.car_type_names[entry.car_type as usize],
            position: entry.position,
            available: entry.available,
        }
    }

    /// Indexed drivers, available or not.
    pub fn len(&self) -> usize {
        self.drivers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.drivers.is_empty()
    }

    /// Drivers that can be offered a booking now, all car types together.
    pub fn available_len(&self) -> usize {
        self.available_by_car_type.iter().map(RTree::size).sum()
    }

    /// Every indexed driver, in no particular order (for the live dispatch
    /// console and snapshots).
    pub fn iter(&self) -> impl Iterator<Item = IndexedDriver<'_>> + '_ {
        self.drivers.iter().map(|(driver, entry)| self.view(*driver, entry))
    }

    /// Available drivers of `car_type` within `radius_km` (great-circle) of
    /// `point`, nearest first, at most `limit`, leaving out those `skip` says
    /// so of. Walks the tree outwards from the point and stops at the radius
    /// or the limit, so the cost follows the answer, not the city. An invalid
    /// point, an unknown car type or a radius that is negative or NaN finds
    /// nobody.
    pub fn nearest(
        &self,
        car_type: &str,
        point: LatLng,
        radius_km: f64,
        limit: usize,
        skip: impl Fn(&UserId) -> bool,
    ) -> Vec<Candidate> {
        if limit == 0 || !point.is_valid() || radius_km.is_nan() || radius_km < 0.0 {
            return Vec::new();
        }
        let Some(&slot) = self.car_type_slots.get(car_type) else {
            return Vec::new();
        };
        let tree = &self.available_by_car_type[slot as usize];
        let max_chord_squared = chord_squared_of_km(radius_km);
        let mut candidates = Vec::with_capacity(limit.min(tree.size()));
        for (entry, entry_chord_squared) in tree.nearest_neighbor_iter_with_distance_2(unit_vector(point)) {
            if entry_chord_squared > max_chord_squared {
                break;
            }
            if skip(&entry.driver) {
                continue;
            }
            candidates.push(Candidate {
                driver: entry.driver,
                distance_km: km_of_chord_squared(entry_chord_squared),
                position: entry.position,
            });
            if candidates.len() == limit {
                break;
            }
        }
        candidates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::distance_km;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    const BALTIMORE: LatLng = LatLng { lat: 39.29, lng: -76.61 };

    fn driver(number: u128) -> UserId {
        UserId::from_u128(number)
    }

    /// A point `km` due north of `origin` (a degree of latitude is ~111.2 km).
    fn north_of(origin: LatLng, km: f64) -> LatLng {
        LatLng::new(origin.lat + km / (EARTH_RADIUS_KM.to_radians()), origin.lng)
    }

    fn no_skip(_: &UserId) -> bool {
        false
    }

    fn ids(candidates: &[Candidate]) -> Vec<UserId> {
        candidates.iter().map(|candidate| candidate.driver).collect()
    }

    #[test]
    fn an_inserted_driver_can_be_read_back_and_found() {
        // DESIGN.md "actors": the index answers radius queries for auto-dispatch
        let mut index = DriverIndex::new();
        assert!(index.is_empty());
        assert!(index.upsert(driver(1), "Sedan", BALTIMORE, true));
        assert_eq!(index.len(), 1);
        assert_eq!(
            index.get(driver(1)),
            Some(IndexedDriver { driver: driver(1), car_type: "Sedan", position: BALTIMORE, available: true })
        );
        let found = index.nearest("Sedan", BALTIMORE, 1.0, 10, no_skip);
        assert_eq!(ids(&found), vec![driver(1)]);
        assert!(found[0].distance_km.abs() < 1e-9);
        assert_eq!(found[0].position, BALTIMORE);
    }

    #[test]
    fn upserting_again_replaces_the_driver_instead_of_duplicating_it() {
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", BALTIMORE, true);
        index.upsert(driver(1), "SUV", north_of(BALTIMORE, 2.0), true);
        assert_eq!(index.len(), 1);
        assert_eq!(index.available_len(), 1);
        assert!(index.nearest("Sedan", BALTIMORE, 50.0, 10, no_skip).is_empty());
        assert_eq!(ids(&index.nearest("SUV", BALTIMORE, 50.0, 10, no_skip)), vec![driver(1)]);
    }

    #[test]
    fn a_moved_driver_is_found_at_the_new_place_only() {
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", BALTIMORE, true);
        let far = north_of(BALTIMORE, 20.0);
        assert!(index.move_to(driver(1), far));
        assert!(index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip).is_empty());
        let found = index.nearest("Sedan", far, 5.0, 10, no_skip);
        assert_eq!(ids(&found), vec![driver(1)]);
        assert_eq!(index.get(driver(1)).unwrap().position, far);
        assert!(!index.move_to(driver(2), far), "an unknown driver cannot move");
    }

    #[test]
    fn a_removed_driver_is_gone() {
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", BALTIMORE, true);
        index.upsert(driver(2), "Sedan", BALTIMORE, false);
        assert!(index.remove(driver(1)));
        assert!(index.remove(driver(2)));
        assert!(!index.remove(driver(1)));
        assert!(index.is_empty());
        assert_eq!(index.available_len(), 0);
        assert!(index.get(driver(1)).is_none());
        assert!(index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip).is_empty());
    }

    #[test]
    fn an_unavailable_driver_is_indexed_but_never_offered() {
        // spec §5: not in queue, driverActiveStatus true
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", BALTIMORE, false);
        assert_eq!(index.len(), 1);
        assert!(index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip).is_empty());
        assert!(index.set_available(driver(1), true));
        assert_eq!(ids(&index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip)), vec![driver(1)]);
        assert!(index.set_available(driver(1), false));
        assert!(index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip).is_empty());
        // Moving while busy keeps the position current for when the trip ends.
        let elsewhere = north_of(BALTIMORE, 3.0);
        assert!(index.move_to(driver(1), elsewhere));
        assert!(index.set_available(driver(1), true));
        assert_eq!(index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip)[0].position, elsewhere);
        assert!(!index.set_available(driver(2), true), "an unknown driver has no availability");
    }

    #[test]
    fn only_drivers_of_the_asked_car_type_are_found() {
        // spec §4 "Auto-dispatch": matching car type
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", BALTIMORE, true);
        index.upsert(driver(2), "SUV", north_of(BALTIMORE, 0.1), true);
        index.upsert(driver(3), "Sedan", north_of(BALTIMORE, 0.2), true);
        assert_eq!(ids(&index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip)), vec![driver(1), driver(3)]);
        assert_eq!(ids(&index.nearest("SUV", BALTIMORE, 5.0, 10, no_skip)), vec![driver(2)]);
        assert!(index.nearest("Van", BALTIMORE, 5.0, 10, no_skip).is_empty());
        assert!(index.set_car_type(driver(2), "Sedan"));
        assert_eq!(ids(&index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip)), vec![driver(1), driver(2), driver(3)]);
        assert!(index.nearest("SUV", BALTIMORE, 5.0, 10, no_skip).is_empty());
        assert_eq!(index.get(driver(2)).unwrap().car_type, "Sedan");
        assert!(!index.set_car_type(driver(9), "Sedan"));
    }

    #[test]
    fn drivers_come_nearest_first_and_stop_at_the_radius_and_the_limit() {
        // DESIGN.md "Server behaviours": within driverRadius of pickup, nearest first
        let mut index = DriverIndex::new();
        for (number, km) in [(1, 4.0), (2, 1.0), (3, 3.0), (4, 2.0), (5, 6.0)] {
            index.upsert(driver(number), "Sedan", north_of(BALTIMORE, km), true);
        }
        let within_five = index.nearest("Sedan", BALTIMORE, 5.0, 10, no_skip);
        assert_eq!(ids(&within_five), vec![driver(2), driver(4), driver(3), driver(1)]);
        for (candidate, km) in within_five.iter().zip([1.0, 2.0, 3.0, 4.0]) {
            assert!((candidate.distance_km - km).abs() < 1e-6, "{candidate:?}");
        }
        assert_eq!(ids(&index.nearest("Sedan", BALTIMORE, 5.0, 2, no_skip)), vec![driver(2), driver(4)]);
        assert!(index.nearest("Sedan", BALTIMORE, 5.0, 0, no_skip).is_empty());
        assert!(index.nearest("Sedan", BALTIMORE, 0.5, 10, no_skip).is_empty());
        assert_eq!(index.nearest("Sedan", BALTIMORE, 6.5, 10, no_skip).len(), 5);
    }

    #[test]
    fn skipped_drivers_are_passed_over_and_the_next_nearest_fill_the_limit() {
        // DESIGN.md "Server behaviours": the next wave skips drivers who declined
        let mut index = DriverIndex::new();
        for number in 1..=5 {
            index.upsert(driver(number), "Sedan", north_of(BALTIMORE, number as f64), true);
        }
        let skipped = BTreeSet::from([driver(1), driver(3)]);
        let found = index.nearest("Sedan", BALTIMORE, 10.0, 2, |id| skipped.contains(id));
        assert_eq!(ids(&found), vec![driver(2), driver(4)]);
    }

    #[test]
    fn invalid_coordinates_are_refused() {
        let mut index = DriverIndex::new();
        let invalid = [
            LatLng::new(90.5, 0.0),
            LatLng::new(0.0, -180.5),
            LatLng::new(f64::NAN, 0.0),
            LatLng::new(0.0, f64::INFINITY),
        ];
        for position in invalid {
            assert!(!index.upsert(driver(1), "Sedan", position, true), "{position:?}");
        }
        assert!(index.is_empty());
        index.upsert(driver(1), "Sedan", BALTIMORE, true);
        for position in invalid {
            assert!(!index.move_to(driver(1), position), "{position:?}");
            assert!(!index.upsert(driver(1), "Sedan", position, true), "{position:?}");
        }
        assert_eq!(index.get(driver(1)).unwrap().position, BALTIMORE);
        assert!(index.nearest("Sedan", LatLng::new(f64::NAN, 0.0), 5.0, 10, no_skip).is_empty());
        assert!(index.nearest("Sedan", BALTIMORE, f64::NAN, 10, no_skip).is_empty());
        assert!(index.nearest("Sedan", BALTIMORE, -1.0, 10, no_skip).is_empty());
    }

    #[test]
    fn distances_are_great_circle_across_the_antimeridian_and_near_the_poles() {
        let mut index = DriverIndex::new();
        let fiji_east = LatLng::new(-17.0, 179.99);
        let fiji_west = LatLng::new(-17.0, -179.99);
        index.upsert(driver(1), "Sedan", fiji_west, true);
        let found = index.nearest("Sedan", fiji_east, 5.0, 10, no_skip);
        assert_eq!(ids(&found), vec![driver(1)]);
        assert!((found[0].distance_km - distance_km(fiji_east, fiji_west)).abs() < 1e-6);

        let near_pole = LatLng::new(89.99, 0.0);
        let across_pole = LatLng::new(89.99, 180.0);
        index.upsert(driver(2), "Sedan", across_pole, true);
        let found = index.nearest("Sedan", near_pole, 5.0, 10, no_skip);
        assert_eq!(ids(&found), vec![driver(2)]);
        assert!((found[0].distance_km - distance_km(near_pole, across_pole)).abs() < 1e-6);
    }

    #[test]
    fn a_radius_of_half_the_earth_reaches_the_antipode() {
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", LatLng::new(-39.29, 103.39), true);
        let found = index.nearest("Sedan", BALTIMORE, std::f64::consts::PI * EARTH_RADIUS_KM, 10, no_skip);
        assert_eq!(ids(&found), vec![driver(1)]);
        assert!((found[0].distance_km - std::f64::consts::PI * EARTH_RADIUS_KM).abs() < 1e-3);
    }

    #[test]
    fn a_user_record_is_indexed_available_exactly_when_eligible() {
        // spec §5 "Eligible drivers"
        let mut user = User::new(driver(1), Role::Driver, 0);
        user.approved = true;
        user.driverActiveStatus = true;
        user.location = Some(BALTIMORE);
        user.carType = Some("Sedan".into());
        let mut index = DriverIndex::new();
        assert!(index.upsert_user(&user));
        assert!(index.get(driver(1)).unwrap().available);

        user.queue = true;
        assert!(index.upsert_user(&user));
        assert!(!index.get(driver(1)).unwrap().available, "busy with a trip");

        user.driverActiveStatus = false;
        assert!(!index.upsert_user(&user), "offline drivers leave the index");
        assert!(index.is_empty());

        let rider = User::new(driver(2), Role::Rider, 0);
        assert!(!index.upsert_user(&rider));
        assert!(index.is_empty());
    }

    #[test]
    fn bulk_loading_builds_the_same_index_as_inserting() {
        let drivers = [
            IndexedDriver { driver: driver(1), car_type: "Sedan", position: north_of(BALTIMORE, 1.0), available: true },
            IndexedDriver { driver: driver(2), car_type: "SUV", position: north_of(BALTIMORE, 2.0), available: true },
            IndexedDriver {
                driver: driver(3),
                car_type: "Sedan",
                position: north_of(BALTIMORE, 3.0),
                available: false,
            },
            IndexedDriver { driver: driver(4), car_type: "Sedan", position: LatLng::new(100.0, 0.0), available: true },
            IndexedDriver { driver: driver(1), car_type: "Sedan", position: north_of(BALTIMORE, 4.0), available: true },
        ];
        let index = DriverIndex::from_drivers(drivers);
        assert_eq!(index.len(), 3, "the invalid one is left out, the duplicate replaced");
        assert_eq!(index.available_len(), 2);
        let found = index.nearest("Sedan", BALTIMORE, 10.0, 10, no_skip);
        assert_eq!(ids(&found), vec![driver(1)]);
        assert!((found[0].distance_km - 4.0).abs() < 1e-6);
        let mut listed: Vec<_> = index.iter().map(|entry| entry.driver).collect();
        listed.sort();
        assert_eq!(listed, vec![driver(1), driver(2), driver(3)]);
    }

    /// One change to the index, as the actor would make it.
    #[derive(Debug, Clone)]
    enum Operation {
        Upsert { driver: u8, car_type: u8, lat: f64, lng: f64, available: bool },
        Move { driver: u8, lat: f64, lng: f64 },
        SetAvailable { driver: u8, available: bool },
        SetCarType { driver: u8, car_type: u8 },
        Remove { driver: u8 },
    }

    const CAR_TYPES: [&str; 3] = ["Sedan", "SUV", "Van"];

    fn operation(
        lat_range: std::ops::RangeInclusive<f64>,
        lng_range: std::ops::RangeInclusive<f64>,
    ) -> impl Strategy<Value = Operation> {
        let driver = 0u8..40;
        prop_oneof![
            4 => (driver.clone(), 0u8..3, lat_range.clone(), lng_range.clone(), any::<bool>()).prop_map(
                |(driver, car_type, lat, lng, available)| Operation::Upsert { driver, car_type, lat, lng, available }
            ),
            2 => (driver.clone(), lat_range, lng_range)
                .prop_map(|(driver, lat, lng)| Operation::Move { driver, lat, lng }),
            1 => (driver.clone(), any::<bool>())
                .prop_map(|(driver, available)| Operation::SetAvailable { driver, available }),
            1 => (driver.clone(), 0u8..3).prop_map(|(driver, car_type)| Operation::SetCarType { driver, car_type }),
            1 => driver.prop_map(|driver| Operation::Remove { driver }),
        ]
    }

    /// The brute-force model: a map of every driver, scanned in full.
    type Model = HashMap<UserId, (&'static str, LatLng, bool)>;

    fn apply(index: &mut DriverIndex, model: &mut Model, operation: &Operation) {
        match *operation {
            Operation::Upsert { driver: number, car_type, lat, lng, available } => {
                let position = LatLng::new(lat, lng);
                assert!(index.upsert(driver(number as u128), CAR_TYPES[car_type as usize], position, available));
                model.insert(driver(number as u128), (CAR_TYPES[car_type as usize], position, available));
            }
            Operation::Move { driver: number, lat, lng } => {
                let position = LatLng::new(lat, lng);
                let known = model.get_mut(&driver(number as u128));
                assert_eq!(index.move_to(driver(number as u128), position), known.is_some());
                if let Some(entry) = known {
                    entry.1 = position;
                }
            }
            Operation::SetAvailable { driver: number, available } => {
                let known = model.get_mut(&driver(number as u128));
                assert_eq!(index.set_available(driver(number as u128), available), known.is_some());
                if let Some(entry) = known {
                    entry.2 = available;
                }
            }
            Operation::SetCarType { driver: number, car_type } => {
                let known = model.get_mut(&driver(number as u128));
                assert_eq!(index.set_car_type(driver(number as u128), CAR_TYPES[car_type as usize]), known.is_some());
                if let Some(entry) = known {
                    entry.0 = CAR_TYPES[car_type as usize];
                }
            }
            Operation::Remove { driver: number } => {
                assert_eq!(index.remove(driver(number as u128)), model.remove(&driver(number as u128)).is_some());
            }
        }
    }

    /// Haversine and the chord agree to far better than this; it only covers
    /// rounding for drivers right on the radius.
    const TOLERANCE_KM: f64 = 1e-6;

    /// Checks `nearest` against a scan of the model: the same number of
    /// drivers (up to ones within rounding of the radius), in nearest-first
    /// order, at the brute-force distances, all of them allowed.
    fn check_against_brute_force(
        index: &DriverIndex,
        model: &Model,
        car_type: &str,
        point: LatLng,
        radius_km: f64,
        limit: usize,
        skipped: &BTreeSet<UserId>,
    ) -> Result<(), TestCaseError> {
        let found = index.nearest(car_type, point, radius_km, limit, |id| skipped.contains(id));
        let mut reference: Vec<(UserId, f64)> = model
            .iter()
            .filter(|(id, (driver_car_type, _, available))| {
                *available && *driver_car_type == car_type && !skipped.contains(*id)
            })
            .map(|(id, (_, position, _))| (*id, distance_km(point, *position)))
            .filter(|(_, distance)| *distance <= radius_km + TOLERANCE_KM)
            .collect();
        reference.sort_by(|left, right| left.1.total_cmp(&right.1));
        let surely_inside = reference.iter().filter(|(_, distance)| *distance < radius_km - TOLERANCE_KM).count();
        prop_assert!(
            found.len() <= limit.min(reference.len()),
            "{} found, {} in reference",
            found.len(),
            reference.len()
        );
        prop_assert!(found.len() >= limit.min(surely_inside), "{} found, {} surely inside", found.len(), surely_inside);
        let mut seen = BTreeSet::new();
        for (position, candidate) in found.iter().enumerate() {
            prop_assert!(seen.insert(candidate.driver), "{:?} twice", candidate.driver);
            let (driver_car_type, driver_position, available) = model[&candidate.driver];
            prop_assert!(available && driver_car_type == car_type && !skipped.contains(&candidate.driver));
            prop_assert_eq!(candidate.position, driver_position);
            let true_distance = distance_km(point, driver_position);
            prop_assert!(
                (candidate.distance_km - true_distance).abs() < TOLERANCE_KM,
                "{candidate:?} vs {true_distance}"
            );
            prop_assert!(
                (candidate.distance_km - reference[position].1).abs() < TOLERANCE_KM,
                "out of order at {position}"
            );
            if position > 0 {
                prop_assert!(found[position - 1].distance_km <= candidate.distance_km);
            }
        }
        Ok(())
    }

    fn check_listing(index: &DriverIndex, model: &Model) -> Result<(), TestCaseError> {
        prop_assert_eq!(index.len(), model.len());
        prop_assert_eq!(index.available_len(), model.values().filter(|entry| entry.2).count());
        for listed in index.iter() {
            let expected = model.get(&listed.driver).copied();
            prop_assert_eq!(Some((listed.car_type, listed.position, listed.available)), expected);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn nearest_matches_a_brute_force_scan_in_a_city(
            operations in proptest::collection::vec(operation(39.10..=39.48, -76.85..=-76.37), 1..200),
            query_lat in 39.10..=39.48f64,
            query_lng in -76.85..=-76.37f64,
            radius_km in 0.0..30.0f64,
            limit in 0usize..15,
            car_type in 0usize..3,
            skipped in proptest::collection::btree_set(0u128..40, 0..10),
        ) {
            let mut index = DriverIndex::new();
            let mut model = Model::new();
            for operation in &operations {
                apply(&mut index, &mut model, operation);
            }
            let skipped: BTreeSet<UserId> = skipped.into_iter().map(driver).collect();
            check_listing(&index, &model)?;
            let query = LatLng::new(query_lat, query_lng);
            check_against_brute_force(&index, &model, CAR_TYPES[car_type], query, radius_km, limit, &skipped)?;
        }

        #[test]
        fn nearest_matches_a_brute_force_scan_anywhere_on_earth(
            operations in proptest::collection::vec(operation(-90.0..=90.0, -180.0..=180.0), 1..200),
            query_lat in -90.0..=90.0f64,
            query_lng in -180.0..=180.0f64,
            radius_km in 0.0..21_000.0f64,
            limit in 0usize..15,
            car_type in 0usize..3,
        ) {
            let mut index = DriverIndex::new();
            let mut model = Model::new();
            for operation in &operations {
                apply(&mut index, &mut model, operation);
            }
            check_listing(&index, &model)?;
            let query = LatLng::new(query_lat, query_lng);
            check_against_brute_force(&index, &model, CAR_TYPES[car_type], query, radius_km, limit, &BTreeSet::new())?;
        }

        #[test]
        fn a_bulk_loaded_index_answers_like_one_built_by_inserting(
            operations in proptest::collection::vec(operation(39.10..=39.48, -76.85..=-76.37), 1..200),
            query_lat in 39.10..=39.48f64,
            query_lng in -76.85..=-76.37f64,
            radius_km in 0.0..30.0f64,
            car_type in 0usize..3,
        ) {
            let mut inserted = DriverIndex::new();
            let mut model = Model::new();
            for operation in &operations {
                apply(&mut inserted, &mut model, operation);
            }
            let bulk_loaded = DriverIndex::from_drivers(inserted.iter());
            check_listing(&bulk_loaded, &model)?;
            let query = LatLng::new(query_lat, query_lng);
            check_against_brute_force(&bulk_loaded, &model, CAR_TYPES[car_type], query, radius_km, 10, &BTreeSet::new())?;
        }
    }
}
