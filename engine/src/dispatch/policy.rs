//! Dispatch planning: which drivers a NEW booking is offered to next, under
//! the platform's dispatch policy (DESIGN.md "Server behaviours the spec
//! leaves open", spec §4 "Auto-dispatch"). Pure: the booking actor calls
//! [`plan`], sends the offers, records the wave and sets the offer timer.

use super::index::{Candidate, DriverIndex};
use super::matching::min_cost_matching_pairs;
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{BookingId, UserId};
use crate::model::{Booking, BookingStatus, DispatchPolicy, LatLng, Millis, Settings};
use serde::{Deserialize, Serialize};

/// The most drivers one broadcast offers a booking to: the nearest this many
/// within the radius. Past a few dozen, more offers only mean more drivers
/// racing for one trip and more withdrawals to send when one wins.
pub const BROADCAST_MAX_DRIVERS: usize = 50;

/// What to do next with a booking that waits for a driver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DispatchPlan {
    /// Offer the booking to these drivers (nearest first) as wave `wave`, and
    /// record `wave` in `booking.dispatch.wave`. The offers lapse at
    /// `deadline`; broadcast offers have none and stand until a driver accepts
    /// or the booking is cancelled.
    Offer { drivers: Vec<Candidate>, wave: u32, deadline: Option<Millis> },
    /// Wave `wave` found nobody to offer to. The booking stays NEW and the
    /// scheduler retries; recording `wave` makes the retry look wider (and
    /// counts towards `dispatchMaxWaves`).
    NoCandidates { wave: u32 },
    /// Every wave allowed by `dispatchMaxWaves` has been offered. The booking
    /// stays NEW for manual assignment; a scheduler retry starts a new round by
    /// resetting `dispatch.wave` (declines and expiries stay remembered).
    Exhausted,
    /// The `batch` policy: the booking waits for the next window, when it is
    /// matched with the others gathered ([`plan_batch`]).
    AwaitBatch,
    /// Not a booking to auto-dispatch: its status is not NEW (spec §4: offers
    /// go out only while a booking waits for a driver), or `autoDispatch` is
    /// off (spec §4 "Auto-dispatch"; an admin assigns drivers instead).
    NotDispatchable,
}

/// Plans the next dispatch step of `booking` under `settings.dispatchPolicy`.
/// When a Book Later booking is due for dispatch is the scheduler's call, not
/// this function's.
pub fn plan(booking: &Booking, index: &DriverIndex, settings: &Settings, now: Millis) -> DispatchPlan {
    if booking.status != BookingStatus::New || !settings.autoDispatch {
        return DispatchPlan::NotDispatchable;
    }
    match settings.dispatchPolicy {
        DispatchPolicy::Broadcast => plan_broadcast(booking, index, settings),
        DispatchPolicy::Waves => plan_wave(booking, index, settings, now),
        DispatchPolicy::Nearest => plan_nearest(booking, index, settings, now),
        DispatchPolicy::Batch => DispatchPlan::AwaitBatch,
    }
}

/// Whether a booking whose offers all came back declined or lapsed has more
/// offers to come from its policy (the booking machine then asks for them
/// instead of giving up on the booking).
pub fn more_offers_to_come(policy: DispatchPolicy, wave: u32, settings: &Settings) -> bool {
    match policy {
        DispatchPolicy::Broadcast => false,
        DispatchPolicy::Waves => wave < settings.dispatchMaxWaves,
        DispatchPolicy::Nearest | DispatchPolicy::Batch => true,
    }
}

/// Eligible drivers for `booking` (spec §5 via the index's availability, the
/// booking's car type, spec §4) within `radius_km` of its pickup, nearest
/// first, at most `limit`, leaving out drivers who declined or let an offer of
/// it expire and drivers it is already offered to.
pub fn candidates_for(booking: &Booking, index: &DriverIndex, radius_km: f64, limit: usize) -> Vec<Candidate> {
    index.nearest(&booking.carType, booking.pickup.point(), radius_km, limit, |driver| {
        booking.dispatch.excluded(driver) || booking.is_requested(driver)
    })
}

/// How far past `driverRadius` the admin's assignment picker looks: three
/// times the radius (30 km or miles by default), a city and its edges.
/// Nearest first, so whoever is inside the radius comes first; past it the
/// picker still shows the nearest drivers rather than nobody.
pub const MANUAL_ASSIGN_RADIUS_FACTOR: f64 = 3.0;

/// The drivers an admin may assign `booking` to by hand (spec §4 "Assign
/// driver", §5 "Eligible drivers"): the index's available drivers (approved,
/// online, not in queue, with a location) of its car type, not already in its
/// `requestedDrivers`, nearest its pickup first, within
/// [`MANUAL_ASSIGN_RADIUS_FACTOR`] × `driverRadius`, at most `limit`. Drivers
/// who declined or let an offer lapse are included: an admin's choice
/// overrides them, as `Command::Assign` does. Only a NEW booking takes an
/// assignment: any other status is `status_not_allowed`.
pub fn manual_candidates(
    booking: &Booking,
    index: &DriverIndex,
    settings: &Settings,
    limit: usize,
) -> DomainResult<Vec<Candidate>> {
    if booking.status != BookingStatus::New {
        return Err(DomainError::new(ErrorKey::StatusNotAllowed));
    }
    let radius_km = settings.driver_radius_km() * MANUAL_ASSIGN_RADIUS_FACTOR;
    Ok(index.nearest(&booking.carType, booking.pickup.point(), radius_km, limit, |driver| booking.is_requested(driver)))
}

/// Broadcast: everyone within the radius at once (up to
/// [`BROADCAST_MAX_DRIVERS`]), as the original product did. No wave limit: a
/// retry offers the booking to drivers who came into range since.
fn plan_broadcast(booking: &Booking, index: &DriverIndex, settings: &Settings) -> DispatchPlan {
    let wave = booking.dispatch.wave.saturating_add(1);
    let drivers = candidates_for(booking, index, settings.driver_radius_km(), BROADCAST_MAX_DRIVERS);
    if drivers.is_empty() {
        return DispatchPlan::NoCandidates { wave };
    }
    DispatchPlan::Offer { drivers, wave, deadline: None }
}

/// The radius of wave `wave` (1-based): the driver radius, widened by the
/// radius step for each wave after the first.
pub fn wave_radius_km(settings: &Settings, wave: u32) -> f64 {
    settings.driver_radius_km() + settings.radius_step_km() * f64::from(wave.saturating_sub(1))
}

/// Waves: the nearest `dispatchWaveSize` not yet tried, each offer lapsing
/// after `dispatchOfferSeconds`, up to `dispatchMaxWaves` waves (0 means
/// none: the booking waits for an admin at once).
fn plan_wave(booking: &Booking, index: &DriverIndex, settings: &Settings, now: Millis) -> DispatchPlan {
    let wave = booking.dispatch.wave.saturating_add(1);
    if wave > settings.dispatchMaxWaves {
        return DispatchPlan::Exhausted;
    }
    // A wave of nobody would burn a wave and its timeout for nothing.
    let wave_size = settings.dispatchWaveSize.max(1) as usize;
    let drivers = candidates_for(booking, index, wave_radius_km(settings, wave), wave_size);
    if drivers.is_empty() {
        return DispatchPlan::NoCandidates { wave };
    }
    let deadline = now + Millis::from(settings.dispatchOfferSeconds) * 1000;
    DispatchPlan::Offer { drivers, wave, deadline: Some(deadline) }
}

/// Nearest: one driver at a time, the nearest not yet tried within the
/// radius, each offer lapsing after `dispatchOfferSeconds`. No wave limit:
/// the radius bounds it, and the retry timer starts a new round.
fn plan_nearest(booking: &Booking, index: &DriverIndex, settings: &Settings, now: Millis) -> DispatchPlan {
    let wave = booking.dispatch.wave.saturating_add(1);
    let drivers = candidates_for(booking, index, settings.driver_radius_km(), 1);
    if drivers.is_empty() {
        return DispatchPlan::NoCandidates { wave };
    }
    let deadline = now + Millis::from(settings.dispatchOfferSeconds) * 1000;
    DispatchPlan::Offer { drivers, wave, deadline: Some(deadline) }
}

/// How many of the nearest drivers of each booking a batch weighs. The
/// optimum rarely sends a driver past the few nearest, and the matrix stays
/// small: a window of 200 bookings asks at most 2,000 pickup times.
pub const BATCH_CANDIDATES_PER_BOOKING: usize = 10;

/// One offer a batch decided: `booking` to `driver` as wave `wave`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchOffer {
    pub booking: BookingId,
    pub driver: Candidate,
    pub wave: u32,
    pub deadline: Millis,
    /// The pickup time the matching counted, in seconds.
    pub pickup_secs: u64,
}

/// One window's matching problem: the bookings open for a driver and, for
/// each, its nearest eligible drivers. The caller times each pair's pickup
/// (road ETAs are IO: the maps, or straight lines in a test), then
/// [`BatchProblem::solve`] decides.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchProblem {
    /// (booking, its pickup, the wave it would be offered as).
    pub bookings: Vec<(BookingId, LatLng, u32)>,
    /// Each booking's candidates, in the order of `bookings`.
    pub candidates: Vec<Vec<Candidate>>,
}

/// The `batch` policy's window, first half: the NEW bookings gathered that
/// hold no offer, each with its [`BATCH_CANDIDATES_PER_BOOKING`] nearest
/// eligible drivers within the radius (its car type, not declined or
/// lapsed). Bookings with no candidate are left out: they wait for the next
/// window.
pub fn batch_problem(bookings: &[&Booking], index: &DriverIndex, settings: &Settings) -> BatchProblem {
    let radius_km = settings.driver_radius_km();
    let mut problem = BatchProblem { bookings: Vec::new(), candidates: Vec::new() };
    for booking in bookings {
        if booking.status != BookingStatus::New || !booking.requestedDrivers.0.is_empty() {
            continue;
        }
        let candidates = candidates_for(booking, index, radius_km, BATCH_CANDIDATES_PER_BOOKING);
        if candidates.is_empty() {
            continue;
        }
        problem.bookings.push((booking.id, booking.pickup.point(), booking.dispatch.wave.saturating_add(1)));
        problem.candidates.push(candidates);
    }
    problem
}

impl BatchProblem {
    pub fn is_empty(&self) -> bool {
        self.bookings.is_empty()
    }

    /// Second half: given each candidate's pickup time in seconds (`times[i][j]`
    /// for booking i's candidate j, `None` where the road does not go), the
    /// offers that get the most bookings a driver and, among such choices,
    /// the least total pickup time. A driver gets at most one booking per
    /// window; each offer lapses after `dispatchOfferSeconds`.
    pub fn solve(&self, times: &[Vec<Option<u64>>], settings: &Settings, now: Millis) -> Vec<BatchOffer> {
        let mut columns: Vec<Candidate> = Vec::new();
        let mut column_of: std::collections::HashMap<UserId, usize> = std::collections::HashMap::new();
        let mut pairs: Vec<(usize, usize, u64)> = Vec::new();
        for (row, (candidates, times)) in self.candidates.iter().zip(times).enumerate() {
            for (candidate, time) in candidates.iter().zip(times) {
                let Some(time) = *time else { continue };
                let column = *column_of.entry(candidate.driver).or_insert_with(|| {
                    columns.push(*candidate);
                    columns.len() - 1
                });
                pairs.push((row, column, time));
            }
        }
        let deadline = now + Millis::from(settings.dispatchOfferSeconds) * 1000;
        let mut offers = Vec::new();
        // Bookings that share no driver do not affect each other: each
        // group of bookings linked through common drivers is solved alone,
        // which keeps a city-wide window to many small matrices.
        let groups = groups(self.bookings.len(), columns.len(), &pairs);
        // Each pair in its group, rows and columns numbered within it.
        let mut row_at = vec![(usize::MAX, 0); self.bookings.len()];
        let mut column_at = vec![0; columns.len()];
        for (group, (rows, group_columns)) in groups.iter().enumerate() {
            for (at, row) in rows.iter().enumerate() {
                row_at[*row] = (group, at);
            }
            for (at, column) in group_columns.iter().enumerate() {
                column_at[*column] = at;
            }
        }
        let mut group_pairs: Vec<Vec<(usize, usize, u64)>> = vec![Vec::new(); groups.len()];
        for &(row, column, time) in &pairs {
            let (group, r) = row_at[row];
            group_pairs[group].push((r, column_at[column], time));
        }
        for ((rows, group_columns), pairs) in groups.iter().zip(&group_pairs) {
            let matching = min_cost_matching_pairs(rows.len(), group_columns.len(), pairs);
            let time_of: std::collections::HashMap<(usize, usize), u64> =
                pairs.iter().map(|&(r, c, time)| ((r, c), time)).collect();
            for (r, c) in matching.pairs {
                let (booking, pickup, wave) = self.bookings[rows[r]];
                let mut driver = columns[group_columns[c]];
                // The candidate's distance is to its own booking's pickup.
                driver.distance_km = crate::geo::distance_km(driver.position, pickup);
                let pickup_secs = time_of.get(&(r, c)).copied().unwrap_or_default();
                offers.push((rows[r], BatchOffer { booking, driver, wave, deadline, pickup_secs }));
            }
        }
        // In the bookings' order, whatever the groups.
        offers.sort_by_key(|(row, _)| *row);
        offers.into_iter().map(|(_, offer)| offer).collect()
    }
}

/// The connected groups of a bipartite graph of `rows` and `columns` with
/// edges `pairs`: each group's rows and columns, ascending, groups in the
/// order of their first row.
fn groups(rows: usize, columns: usize, pairs: &[(usize, usize, u64)]) -> Vec<(Vec<usize>, Vec<usize>)> {
    // Union-find over rows then columns (column c is node rows + c).
    let mut parent: Vec<usize> = (0..rows + columns).collect();
    fn root(parent: &mut [usize], mut node: usize) -> usize {
        while parent[node] != node {
            parent[node] = parent[parent[node]];
            node = parent[node];
        }
        node
    }
    for &(row, column, _) in pairs {
        let (a, b) = (root(&mut parent, row), root(&mut parent, rows + column));
        if a != b {
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut by_root: std::collections::BTreeMap<usize, (Vec<usize>, Vec<usize>)> = std::collections::BTreeMap::new();
    let mut linked = vec![false; rows + columns];
    for &(row, column, _) in pairs {
        linked[row] = true;
        linked[rows + column] = true;
    }
    for (node, _) in linked.iter().enumerate().filter(|(_, linked)| **linked) {
        let group = by_root.entry(root(&mut parent, node)).or_default();
        if node < rows { group.0.push(node) } else { group.1.push(node - rows) }
    }
    by_root.into_values().collect()
}

/// Both halves at once, for callers that time pickups without waiting:
/// `pickup_secs(drivers, pickup)` gives each driver's time to the pickup.
pub fn plan_batch(
    bookings: &[&Booking],
    index: &DriverIndex,
    settings: &Settings,
    now: Millis,
    mut pickup_secs: impl FnMut(&[LatLng], LatLng) -> Vec<Option<u64>>,
) -> Vec<BatchOffer> {
    let problem = batch_problem(bookings, index, settings);
    let times: Vec<Vec<Option<u64>>> = problem
        .bookings
        .iter()
        .zip(&problem.candidates)
        .map(|((_, pickup, _), candidates)| {
            let origins: Vec<LatLng> = candidates.iter().map(|candidate| candidate.position).collect();
            pickup_secs(&origins, *pickup)
        })
        .collect();
    problem.solve(&times, settings, now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::fixtures::*;
    use crate::ids::{BookingId, UserId};
    use crate::model::LatLng;

    fn waves(wave_size: u32, max_waves: u32, radius_km: f64, step_km: f64) -> Settings {
        Settings {
            dispatchPolicy: DispatchPolicy::Waves,
            dispatchWaveSize: wave_size,
            dispatchOfferSeconds: 20,
            dispatchMaxWaves: max_waves,
            driverRadius: radius_km,
            dispatchRadiusStep: step_km,
            ..Settings::default()
        }
    }

    fn broadcast(radius_km: f64) -> Settings {
        Settings { dispatchPolicy: DispatchPolicy::Broadcast, driverRadius: radius_km, ..Settings::default() }
    }

    /// Available Sedan drivers 1..=count, driver n at n km north of the pickup.
    fn sedans_one_km_apart(count: u128) -> DriverIndex {
        let mut index = DriverIndex::new();
        for number in 1..=count {
            index.upsert(driver(number), "Sedan", north_of(PICKUP, number as f64), true);
        }
        index
    }

    fn offered(dispatch_plan: &DispatchPlan) -> Vec<UserId> {
        match dispatch_plan {
            DispatchPlan::Offer { drivers, .. } => drivers.iter().map(|candidate| candidate.driver).collect(),
            other => panic!("expected an offer, got {other:?}"),
        }
    }

    #[test]
    fn the_first_wave_offers_the_nearest_wave_size_drivers_with_a_deadline() {
        // DESIGN.md "Server behaviours": waves offer to the nearest N, each offer expires after T seconds
        let index = sedans_one_km_apart(6);
        let next = plan(&booking("Sedan", PICKUP), &index, &waves(3, 3, 10.0, 0.0), NOW);
        assert_eq!(offered(&next), vec![driver(1), driver(2), driver(3)]);
        let DispatchPlan::Offer { wave, deadline, drivers } = next else { unreachable!() };
        assert_eq!(wave, 1);
        assert_eq!(deadline, Some(NOW + 20_000));
        assert!((drivers[0].distance_km - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_second_wave_skips_drivers_who_declined_or_let_the_offer_expire() {
        // DESIGN.md "Server behaviours": the next wave skips drivers who declined or let it expire
        let index = sedans_one_km_apart(6);
        let mut second = booking("Sedan", PICKUP);
        second.dispatch.wave = 1;
        second.dispatch.declined.insert(driver(1));
        second.dispatch.expired.extend([driver(2), driver(3)]);
        let next = plan(&second, &index, &waves(3, 3, 10.0, 0.0), NOW);
        assert_eq!(offered(&next), vec![driver(4), driver(5), driver(6)]);
        assert!(matches!(next, DispatchPlan::Offer { wave: 2, .. }));
    }

    #[test]
    fn drivers_already_offered_the_booking_are_not_offered_it_again() {
        // spec §4 "Driver assignment": requestedDrivers holds the drivers offered the booking
        let index = sedans_one_km_apart(4);
        let mut requested = booking("Sedan", PICKUP);
        requested.requestedDrivers.0.insert(driver(1));
        let next = plan(&requested, &index, &waves(2, 3, 10.0, 0.0), NOW);
        assert_eq!(offered(&next), vec![driver(2), driver(3)]);
    }

    #[test]
    fn later_waves_widen_the_radius_by_the_step() {
        // DESIGN.md "Server behaviours": the next wave may widen the radius
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", north_of(PICKUP, 12.0), true);
        let settings = waves(3, 3, 10.0, 5.0);
        let first = booking("Sedan", PICKUP);
        assert_eq!(plan(&first, &index, &settings, NOW), DispatchPlan::NoCandidates { wave: 1 });
        let mut second = first.clone();
        second.dispatch.wave = 1;
        let next = plan(&second, &index, &settings, NOW);
        assert_eq!(offered(&next), vec![driver(1)]);
        assert!(matches!(next, DispatchPlan::Offer { wave: 2, .. }));
        assert_eq!(wave_radius_km(&settings, 3), 20.0);
    }

    #[test]
    fn an_admin_picks_from_eligible_drivers_nearest_first_not_yet_requested() {
        // spec §4 "Assign driver", §5 "Eligible drivers"
        let mut index = sedans_one_km_apart(5);
        // Another car type, a busy driver, and one past three radii.
        index.upsert(driver(10), "XL", north_of(PICKUP, 0.5), true);
        index.upsert(driver(11), "Sedan", north_of(PICKUP, 0.2), false);
        index.upsert(driver(12), "Sedan", north_of(PICKUP, 31.0), true);
        index.upsert(driver(13), "Sedan", north_of(PICKUP, 25.0), true);
        let mut new = booking("Sedan", PICKUP);
        new.requestedDrivers.0.insert(driver(2));
        // A decline does not hide a driver from the admin.
        new.dispatch.declined.insert(driver(3));
        let settings = waves(3, 3, 10.0, 0.0);
        let picked = manual_candidates(&new, &index, &settings, 20).unwrap();
        let ids: Vec<UserId> = picked.iter().map(|candidate| candidate.driver).collect();
        assert_eq!(ids, vec![driver(1), driver(3), driver(4), driver(5), driver(13)]);
        assert!((picked[4].distance_km - 25.0).abs() < 1e-6);
        assert_eq!(manual_candidates(&new, &index, &settings, 2).unwrap().len(), 2);
        // In miles the radius is 10 miles: three of them reach 31 km.
        let in_miles = Settings { convert_to_mile: true, ..settings.clone() };
        assert_eq!(manual_candidates(&new, &index, &in_miles, 20).unwrap().last().map(|c| c.driver), Some(driver(12)));
        for status in BookingStatus::ALL.into_iter().filter(|status| *status != BookingStatus::New) {
            let mut taken = new.clone();
            taken.status = status;
            let error = manual_candidates(&taken, &index, &settings, 20).unwrap_err();
            assert_eq!(error.key, ErrorKey::StatusNotAllowed, "{status:?}");
        }
    }

    #[test]
    fn the_radius_follows_the_mile_setting() {
        // spec §5 "Fare": distances are in miles when convert_to_mile is set
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", north_of(PICKUP, 15.0), true);
        let in_km = waves(3, 3, 10.0, 0.0);
        assert_eq!(plan(&booking("Sedan", PICKUP), &index, &in_km, NOW), DispatchPlan::NoCandidates { wave: 1 });
        let in_miles = Settings { convert_to_mile: true, ..in_km };
        assert_eq!(offered(&plan(&booking("Sedan", PICKUP), &index, &in_miles, NOW)), vec![driver(1)]);
    }

    #[test]
    fn after_the_last_wave_the_booking_is_exhausted() {
        // DESIGN.md "Server behaviours": up to a maximum number of waves; then the booking stays NEW
        let index = sedans_one_km_apart(10);
        let mut last = booking("Sedan", PICKUP);
        last.dispatch.wave = 2;
        assert!(matches!(plan(&last, &index, &waves(1, 3, 10.0, 0.0), NOW), DispatchPlan::Offer { wave: 3, .. }));
        last.dispatch.wave = 3;
        assert_eq!(plan(&last, &index, &waves(1, 3, 10.0, 0.0), NOW), DispatchPlan::Exhausted);
    }

    #[test]
    fn a_wave_with_nobody_left_to_try_finds_no_candidates() {
        // DESIGN.md "Server behaviours": a driver's decline is remembered for that booking
        let index = sedans_one_km_apart(2);
        let mut tried = booking("Sedan", PICKUP);
        tried.dispatch.wave = 1;
        tried.dispatch.declined.extend([driver(1), driver(2)]);
        assert_eq!(plan(&tried, &index, &waves(3, 3, 10.0, 0.0), NOW), DispatchPlan::NoCandidates { wave: 2 });
    }

    #[test]
    fn a_wave_size_of_zero_still_offers_one_driver() {
        let index = sedans_one_km_apart(3);
        assert_eq!(offered(&plan(&booking("Sedan", PICKUP), &index, &waves(0, 3, 10.0, 0.0), NOW)), vec![driver(1)]);
    }

    #[test]
    fn broadcast_offers_every_driver_within_the_radius_at_once() {
        // DESIGN.md "Server behaviours": broadcast offers to all candidates at once, as the original product did
        // Drivers 1..=12 km away; the radius is 10.5 km (off the 10 km mark, where rounding decides).
        let index = sedans_one_km_apart(12);
        let next = plan(&booking("Sedan", PICKUP), &index, &broadcast(10.5), NOW);
        assert_eq!(offered(&next), (1..=10).map(driver).collect::<Vec<_>>());
        assert!(matches!(next, DispatchPlan::Offer { wave: 1, deadline: None, .. }));
    }

    #[test]
    fn broadcast_skips_drivers_who_declined_and_caps_the_fan_out() {
        // DESIGN.md "Server behaviours": a driver's decline is remembered for that booking
        let mut index = DriverIndex::new();
        for number in 1..=(BROADCAST_MAX_DRIVERS as u128 + 20) {
            index.upsert(driver(number), "Sedan", north_of(PICKUP, number as f64 * 0.1), true);
        }
        let mut retried = booking("Sedan", PICKUP);
        retried.dispatch.wave = 1;
        retried.dispatch.declined.insert(driver(1));
        let next = plan(&retried, &index, &broadcast(10.0), NOW);
        let drivers = offered(&next);
        assert_eq!(drivers.len(), BROADCAST_MAX_DRIVERS);
        assert_eq!(drivers[0], driver(2));
        assert!(matches!(next, DispatchPlan::Offer { wave: 2, .. }));
        assert_eq!(
            plan(&booking("Sedan", north_of(PICKUP, 50.0)), &index, &broadcast(10.0), NOW),
            DispatchPlan::NoCandidates { wave: 1 }
        );
    }

    #[test]
    fn only_drivers_of_the_booking_car_type_are_ever_offered() {
        // spec §4 "Auto-dispatch": drivers with a matching car type
        let mut index = DriverIndex::new();
        for number in 1..=20u128 {
            let car_type = if number % 2 == 0 { "Sedan" } else { "SUV" };
            index.upsert(driver(number), car_type, north_of(PICKUP, number as f64 * 0.3), true);
        }
        for settings in [waves(5, 3, 10.0, 0.0), broadcast(10.0)] {
            let drivers = offered(&plan(&booking("Sedan", PICKUP), &index, &settings, NOW));
            assert!(!drivers.is_empty());
            assert!(drivers.iter().all(|id| index.get(*id).unwrap().car_type == "Sedan"), "{drivers:?}");
            assert_eq!(plan(&booking("Van", PICKUP), &index, &settings, NOW), DispatchPlan::NoCandidates { wave: 1 });
        }
    }

    #[test]
    fn unavailable_drivers_are_never_offered() {
        // spec §5 "Eligible drivers": not in queue, driverActiveStatus true
        let mut index = sedans_one_km_apart(3);
        index.set_available(driver(1), false);
        let next = plan(&booking("Sedan", PICKUP), &index, &broadcast(10.0), NOW);
        assert_eq!(offered(&next), vec![driver(2), driver(3)]);
    }

    #[test]
    fn bookings_that_are_not_new_are_not_dispatched() {
        // spec §4: requests go out while a booking is NEW; DESIGN.md: PAYMENT_PENDING becomes NEW only on payment
        let index = sedans_one_km_apart(3);
        for status in BookingStatus::ALL.into_iter().filter(|status| *status != BookingStatus::New) {
            let mut not_new = booking("Sedan", PICKUP);
            not_new.status = status;
            for settings in [waves(3, 3, 10.0, 0.0), broadcast(10.0)] {
                assert_eq!(plan(&not_new, &index, &settings, NOW), DispatchPlan::NotDispatchable, "{status:?}");
            }
        }
    }

    #[test]
    fn nearest_offers_one_driver_at_a_time_until_the_radius_runs_out() {
        // issue #16: `nearest` offers the booking to one driver at a time
        let index = sedans_one_km_apart(12);
        // 10.5 km: off the 10 km mark, where rounding decides.
        let settings = Settings { driverRadius: 10.5, ..policy(DispatchPolicy::Nearest) };
        let mut tried = booking("Sedan", PICKUP);
        for expected in 1..=10u128 {
            let next = plan(&tried, &index, &settings, NOW);
            assert_eq!(offered(&next), vec![driver(expected)]);
            assert!(matches!(next, DispatchPlan::Offer { deadline: Some(at), .. } if at == NOW + 20_000));
            tried.dispatch.wave += 1;
            tried.dispatch.expired.insert(driver(expected));
        }
        // Drivers 11 and 12 are past the radius.
        assert_eq!(plan(&tried, &index, &settings, NOW), DispatchPlan::NoCandidates { wave: 11 });
        assert!(more_offers_to_come(DispatchPolicy::Nearest, 50, &settings));
    }

    #[test]
    fn batch_bookings_wait_for_the_window() {
        let index = sedans_one_km_apart(3);
        assert_eq!(
            plan(&booking("Sedan", PICKUP), &index, &policy(DispatchPolicy::Batch), NOW),
            DispatchPlan::AwaitBatch
        );
    }

    #[test]
    fn which_policies_try_again_after_every_offer_came_back() {
        let settings = waves(3, 3, 10.0, 0.0);
        assert!(!more_offers_to_come(DispatchPolicy::Broadcast, 1, &settings));
        assert!(more_offers_to_come(DispatchPolicy::Waves, 2, &settings));
        assert!(!more_offers_to_come(DispatchPolicy::Waves, 3, &settings));
        assert!(more_offers_to_come(DispatchPolicy::Batch, 99, &settings));
    }

    /// Pickup time as straight-line km × 100 s (36 km/h), so tests can reason in km.
    fn straight_secs(drivers: &[LatLng], pickup: LatLng) -> Vec<Option<u64>> {
        drivers.iter().map(|from| Some((crate::geo::distance_km(*from, pickup) * 100.0).round() as u64)).collect()
    }

    #[test]
    fn batch_minimises_total_pickup_time_where_greedy_nearest_does_not() {
        // issue #16: the batch policy solves the assignment of least total pickup time
        // Pickups A at 0 km and B at 2 km north, on one road.
        let a = batch_booking(1, PICKUP);
        let b = batch_booking(2, north_of(PICKUP, 2.0));
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", north_of(PICKUP, 0.4), true); // A 0.4, B 1.6
        index.upsert(driver(2), "Sedan", north_of(PICKUP, -1.0), true); // A 1.0, B 3.0
        // Greedy by A: A←1 (0.4), B←2 (3.0) = 3.4 km; optimum A←2 (1.0), B←1 (1.6) = 2.6 km.
        let offers = plan_batch(&[&a, &b], &index, &policy(DispatchPolicy::Batch), NOW, straight_secs);
        let chosen: Vec<(BookingId, UserId)> =
            offers.iter().map(|offer| (offer.booking, offer.driver.driver)).collect();
        assert_eq!(chosen, vec![(a.id, driver(2)), (b.id, driver(1))]);
        assert_eq!(offers.iter().map(|offer| offer.pickup_secs).sum::<u64>(), 260);
        assert!(offers.iter().all(|offer| offer.wave == 1 && offer.deadline == NOW + 20_000));
        assert!((offers[0].driver.distance_km - 1.0).abs() < 1e-6);
    }

    #[test]
    fn batch_serves_the_most_bookings_before_the_least_time() {
        // Driver 1 is the only one near A and also the nearest to B; driver 2 reaches B only.
        let a = batch_booking(1, PICKUP);
        let b = batch_booking(2, north_of(PICKUP, 3.0));
        let mut index = DriverIndex::new();
        index.upsert(driver(1), "Sedan", north_of(PICKUP, 2.5), true);
        index.upsert(driver(2), "Sedan", north_of(PICKUP, 11.0), true);
        let offers = plan_batch(&[&a, &b], &index, &policy(DispatchPolicy::Batch), NOW, straight_secs);
        let chosen: Vec<(BookingId, UserId)> =
            offers.iter().map(|offer| (offer.booking, offer.driver.driver)).collect();
        assert_eq!(chosen, vec![(a.id, driver(1)), (b.id, driver(2))]);
    }

    #[test]
    fn batch_skips_bookings_holding_offers_drivers_tried_and_unroutable_pairs() {
        let mut held = batch_booking(1, PICKUP);
        held.requestedDrivers.0.insert(driver(9));
        let mut declined = batch_booking(2, PICKUP);
        declined.dispatch.declined.insert(driver(1));
        declined.dispatch.wave = 4;
        let index = sedans_one_km_apart(2);
        // Driver 2 cannot reach the pickup by road.
        let no_road_for_2 = |drivers: &[LatLng], pickup: LatLng| {
            let mut times = straight_secs(drivers, pickup);
            for (time, from) in times.iter_mut().zip(drivers) {
                if (crate::geo::distance_km(*from, PICKUP) - 2.0).abs() < 1e-6 {
                    *time = None;
                }
            }
            times
        };
        let settings = policy(DispatchPolicy::Batch);
        assert!(plan_batch(&[&held, &declined], &index, &settings, NOW, no_road_for_2).is_empty());
        let offers = plan_batch(&[&held, &declined], &index, &settings, NOW, straight_secs);
        assert_eq!(offers.len(), 1);
        assert_eq!((offers[0].booking, offers[0].driver.driver, offers[0].wave), (declined.id, driver(2), 5));
    }

    #[test]
    fn batch_matches_the_brute_force_optimum_of_small_random_cities() {
        use rand::{Rng, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(16);
        let settings = policy(DispatchPolicy::Batch);
        for _ in 0..300 {
            let bookings: Vec<Booking> = (0..rng.random_range(1..=4u128))
                .map(|n| batch_booking(n + 1, north_of(PICKUP, rng.random_range(-5.0..5.0))))
                .collect();
            let mut index = DriverIndex::new();
            let drivers = rng.random_range(0..=4u128);
            for n in 1..=drivers {
                index.upsert(driver(n), "Sedan", north_of(PICKUP, rng.random_range(-12.0..12.0)), true);
            }
            let refs: Vec<&Booking> = bookings.iter().collect();
            let offers = plan_batch(&refs, &index, &settings, NOW, straight_secs);
            // Brute force: every injective partial map bookings → drivers within the radius.
            let cost = |b: &Booking, d: u128| {
                let position = index.get(driver(d)).unwrap().position;
                let km = crate::geo::distance_km(position, b.pickup.point());
                (km <= 10.0).then(|| (km * 100.0).round() as u64)
            };
            fn best(
                i: usize,
                used: &mut Vec<u128>,
                bookings: &[Booking],
                drivers: u128,
                cost: &dyn Fn(&Booking, u128) -> Option<u64>,
            ) -> (usize, u64) {
                if i == bookings.len() {
                    return (0, 0);
                }
                let mut answer = best(i + 1, used, bookings, drivers, cost);
                for d in 1..=drivers {
                    if used.contains(&d) {
                        continue;
                    }
                    if let Some(c) = cost(&bookings[i], d) {
                        used.push(d);
                        let (served, total) = best(i + 1, used, bookings, drivers, cost);
                        used.pop();
                        let candidate = (served + 1, total + c);
                        if candidate.0 > answer.0 || (candidate.0 == answer.0 && candidate.1 < answer.1) {
                            answer = candidate;
                        }
                    }
                }
                answer
            }
            let (served, total) = best(0, &mut Vec::new(), &bookings, drivers, &cost);
            assert_eq!(offers.len(), served);
            assert_eq!(offers.iter().map(|offer| offer.pickup_secs).sum::<u64>(), total);
            let mut distinct: Vec<UserId> = offers.iter().map(|offer| offer.driver.driver).collect();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), offers.len(), "a driver offered two bookings in one window");
        }
    }

    #[test]
    fn nothing_is_dispatched_when_auto_dispatch_is_off() {
        // spec §4 "Auto-dispatch": only with autoDispatch on
        let index = sedans_one_km_apart(3);
        let manual = Settings { autoDispatch: false, ..waves(3, 3, 10.0, 0.0) };
        assert_eq!(plan(&booking("Sedan", PICKUP), &index, &manual, NOW), DispatchPlan::NotDispatchable);
    }
}
