//! What the console's map shows of each online driver.

use crate::model::BookingStatus;
use serde::{Deserialize, Serialize};

/// A driver's colour on the console's map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriverState {
    Available,
    /// Holds at least one offer.
    Offered,
    /// Their booking is ACCEPTED or ARRIVED.
    ToPickup,
    /// Their booking is STARTED or REACHED.
    OnTrip,
    /// Online, not available, and no trip: between trips or kept out.
    Busy,
}

/// The state from what the driver's actor knows: a trip outranks an offer,
/// an offer outranks being free.
pub fn driver_state(available: bool, holds_offer: bool, trip: Option<BookingStatus>) -> DriverState {
    match trip {
        Some(BookingStatus::Accepted | BookingStatus::Arrived) => DriverState::ToPickup,
        Some(BookingStatus::Started | BookingStatus::Reached) => DriverState::OnTrip,
        _ if holds_offer => DriverState::Offered,
        _ if available => DriverState::Available,
        _ => DriverState::Busy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trip_outranks_an_offer_which_outranks_being_free() {
        use BookingStatus::*;
        assert_eq!(driver_state(true, false, None), DriverState::Available);
        assert_eq!(driver_state(true, true, None), DriverState::Offered);
        assert_eq!(driver_state(false, true, Some(Accepted)), DriverState::ToPickup);
        assert_eq!(driver_state(false, false, Some(Arrived)), DriverState::ToPickup);
        assert_eq!(driver_state(false, false, Some(Started)), DriverState::OnTrip);
        assert_eq!(driver_state(false, false, Some(Reached)), DriverState::OnTrip);
        assert_eq!(driver_state(false, false, Some(Paid)), DriverState::Busy);
        assert_eq!(driver_state(false, false, None), DriverState::Busy);
        assert_eq!(serde_json::to_value(DriverState::ToPickup).unwrap(), "to_pickup");
    }
}
