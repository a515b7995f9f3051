//! Which drivers may be offered a booking (spec §5 "Eligible drivers").

use crate::model::{Role, User};

/// Spec §5: usertype driver, approved, not in queue (busy with a trip),
/// `driverActiveStatus` true, with a location. A location with impossible
/// coordinates counts as none: no distance can be measured from it.
pub fn is_eligible(user: &User) -> bool {
    user.usertype == Role::Driver
        && user.approved
        && !user.queue
        && user.driverActiveStatus
        && user.location.is_some_and(|location| location.is_valid())
}

/// Eligible (spec §5) and driving the booking's car type (spec §4
/// "Auto-dispatch": "with a matching car type"). Car types are matched by name,
/// as bookings store them.
pub fn is_eligible_for(user: &User, car_type: &str) -> bool {
    is_eligible(user) && user.carType.as_deref() == Some(car_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::UserId;
    use crate::model::LatLng;

    fn online_driver() -> User {
        let mut driver = User::new(UserId::from_u128(7), Role::Driver, 0);
        driver.approved = true;
        driver.driverActiveStatus = true;
        driver.queue = false;
        driver.location = Some(LatLng::new(39.29, -76.61));
        driver.carType = Some("Sedan".into());
        driver
    }

    #[test]
    fn an_approved_online_idle_driver_with_a_location_is_eligible() {
        // spec §5 "Eligible drivers"
        assert!(is_eligible(&online_driver()));
        assert!(is_eligible_for(&online_driver(), "Sedan"));
    }

    #[test]
    fn only_drivers_are_eligible() {
        // spec §5: usertype driver
        for role in [Role::Rider, Role::Admin, Role::Fleetadmin] {
            let mut user = online_driver();
            user.usertype = role;
            assert!(!is_eligible(&user), "{role:?}");
        }
    }

    #[test]
    fn an_unapproved_driver_is_not_eligible() {
        // spec §5: approved
        let mut driver = online_driver();
        driver.approved = false;
        assert!(!is_eligible(&driver));
    }

    #[test]
    fn a_driver_in_the_queue_is_not_eligible() {
        // spec §5: not in queue
        let mut driver = online_driver();
        driver.queue = true;
        assert!(!is_eligible(&driver));
    }

    #[test]
    fn an_offline_driver_is_not_eligible() {
        // spec §5: driverActiveStatus true
        let mut driver = online_driver();
        driver.driverActiveStatus = false;
        assert!(!is_eligible(&driver));
    }

    #[test]
    fn a_driver_without_a_location_is_not_eligible() {
        // spec §5: with a location
        let mut driver = online_driver();
        driver.location = None;
        assert!(!is_eligible(&driver));
    }

    #[test]
    fn a_driver_with_impossible_coordinates_is_not_eligible() {
        // spec §5: with a location; one that is not on Earth is no location
        for location in [LatLng::new(91.0, 0.0), LatLng::new(0.0, 181.0), LatLng::new(f64::NAN, 0.0)] {
            let mut driver = online_driver();
            driver.location = Some(location);
            assert!(!is_eligible(&driver), "{location:?}");
        }
    }

    #[test]
    fn a_driver_of_another_car_type_is_not_eligible_for_the_booking() {
        // spec §4 "Auto-dispatch": matching car type
        assert!(!is_eligible_for(&online_driver(), "SUV"));
        assert!(!is_eligible_for(&online_driver(), "sedan"));
        let mut without_car = online_driver();
        without_car.carType = None;
        assert!(!is_eligible_for(&without_car, "Sedan"));
    }
}
