//! Dispatch planning: which drivers a NEW booking is offered to next, under
//! the platform's dispatch policy (DESIGN.md "Server behaviours the spec
//! leaves open", spec §4 "Auto-dispatch"). Pure: the booking actor calls
//! [`plan`], sends the offers, records the wave and sets the offer timer.

use super::index::{Candidate, DriverIndex};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::{Booking, BookingStatus, DispatchPolicy, Millis, Settings};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::EARTH_RADIUS_KM;
    use crate::ids::{BookingId, UserId};
    use crate::model::{AppCategory, DispatchState, LatLng, Otp, Place, RequestedDrivers, Timers};
    use rust_decimal::Decimal;

    const PICKUP: LatLng = LatLng { lat: 39.29, lng: -76.61 };
    const NOW: Millis = 1_700_000_000_000;

    fn driver(number: u128) -> UserId {
        UserId::from_u128(number)
    }

    fn north_of(origin: LatLng, km: f64) -> LatLng {
        LatLng::new(origin.lat + km / EARTH_RADIUS_KM.to_radians(), origin.lng)
    }

    /// A Book Now taxi booking, NEW and never dispatched, picking up at `pickup`.
    fn booking(car_type: &str, pickup: LatLng) -> Booking {
        let drop = north_of(pickup, 8.0);
        Booking {
            id: BookingId::from_u128(100),
            version: 1,
            reference: "ABCDEF".into(),
            appcat: AppCategory::Taxi,
            carType: car_type.into(),
            carImage: String::new(),
            customer: UserId::from_u128(200),
            customer_name: "Rider One".into(),
            customer_contact: "+14105550100".into(),
            customer_email: "rider1@demo.wayfare".into(),
            customer_token: String::new(),
            customer_image: String::new(),
            pickup: Place { lat: pickup.lat, lng: pickup.lng, add: "Inner Harbor".into() },
            drop: Place { lat: drop.lat, lng: drop.lng, add: "Hampden".into() },
            pickupAddress: "Inner Harbor".into(),
            dropAddress: "Hampden".into(),
            estimate: Decimal::new(1850, 2),
            estimateDistance: 8.0,
            distance: 0.0,
            estimateTime: 900,
            status: BookingStatus::New,
            bookLater: false,
            tripdate: NOW,
            bookingDate: NOW,
            otp: Otp(None),
            booking_type_admin: false,
            coords: Vec::new(),
            waypoints: Vec::new(),
            trip_cost: Decimal::new(1850, 2),
            convenience_fees: Decimal::ZERO,
            driver_share: Decimal::ZERO,
            paymentPacket: None,
            requestedDrivers: RequestedDrivers::default(),
            driver: None,
            driver_image: String::new(),
            driver_name: String::new(),
            driver_contact: String::new(),
            driver_token: String::new(),
            driverRating: Decimal::ZERO,
            vehicle_number: String::new(),
            fleetadmin: None,
            discount_amount: Decimal::ZERO,
            discount: Decimal::ZERO,
            cashPaymentAmount: Decimal::ZERO,
            cardPaymentAmount: Decimal::ZERO,
            usedWalletMoney: Decimal::ZERO,
            payableAmount: Decimal::new(1850, 2),
            customer_paid: Decimal::ZERO,
            cancellationFee: Decimal::ZERO,
            reason: String::new(),
            cancelledBy: None,
            rating: None,
            payment_mode: None,
            gateway: None,
            prepaid: false,
            promo_applied: false,
            promo_details: None,
            acceptedAt: None,
            driver_arrive_time: None,
            trip_start_time: None,
            startTime: None,
            trip_end_time: None,
            endTime: None,
            total_trip_time: 0,
            pickup_image: None,
            deliver_image: None,
            parcelTypeSelected: None,
            optionSelected: None,
            parcelTypeIndex: None,
            optionIndex: None,
            deliveryPerson: String::new(),
            deliveryPersonPhone: String::new(),
            pickUpInstructions: String::new(),
            deliveryInstructions: String::new(),
            dispatch: DispatchState::default(),
            timers: Timers::default(),
            updatedAt: NOW,
        }
    }

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
    fn nothing_is_dispatched_when_auto_dispatch_is_off() {
        // spec §4 "Auto-dispatch": only with autoDispatch on
        let index = sedans_one_km_apart(3);
        let manual = Settings { autoDispatch: false, ..waves(3, 3, 10.0, 0.0) };
        assert_eq!(plan(&booking("Sedan", PICKUP), &index, &manual, NOW), DispatchPlan::NotDispatchable);
    }
}
