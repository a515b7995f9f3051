//! SOS alerts (issue 33): during a trip the rider or the driver raises one;
//! admins and the driver's fleet admin take it and resolve it with a note.
//!
//! The rules only: who may raise one on which booking, what an alert holds,
//! and the two steps an alert goes through. Storing it and telling the
//! panel are the shell's business.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::{BookingId, SosId, UserId};
use crate::model::{Booking, BookingStatus, LatLng, Millis, Role};
use serde::{Deserialize, Serialize};

/// Longest resolution note, in characters.
pub const MAX_NOTE: usize = 2_000;

/// Which party of the trip raised the alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SosRaiser {
    Rider,
    Driver,
}

impl SosRaiser {
    pub fn as_str(self) -> &'static str {
        match self {
            SosRaiser::Rider => "rider",
            SosRaiser::Driver => "driver",
        }
    }

    pub fn parse(text: &str) -> Option<SosRaiser> {
        match text {
            "rider" => Some(SosRaiser::Rider),
            "driver" => Some(SosRaiser::Driver),
            _ => None,
        }
    }
}

/// Where an alert is: `open` until someone takes it (the banners show it),
/// `taken` while someone handles it, `resolved` once closed with a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SosState {
    Open,
    Taken,
    Resolved,
}

/// One alert: who raised it on which booking, where and when, and who
/// handled it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SosAlert {
    pub id: SosId,
    pub booking: BookingId,
    /// The booking's reference, as people read it.
    pub reference: String,
    pub raised_by: UserId,
    pub raised_by_role: SosRaiser,
    pub raised_by_name: String,
    pub lat: f64,
    pub lng: f64,
    pub created_at: Millis,
    /// The fleet admin of the booking's driver: the one fleet admin told.
    pub fleetadmin: Option<UserId>,
    pub taken_by: Option<UserId>,
    #[serde(default)]
    pub taken_by_name: String,
    pub taken_at: Option<Millis>,
    pub resolved_by: Option<UserId>,
    #[serde(default)]
    pub resolved_by_name: String,
    pub resolved_at: Option<Millis>,
    #[serde(default)]
    pub note: String,
}

impl SosAlert {
    pub fn state(&self) -> SosState {
        if self.resolved_at.is_some() {
            SosState::Resolved
        } else if self.taken_at.is_some() {
            SosState::Taken
        } else {
            SosState::Open
        }
    }
}

/// Whether a booking in this status has a trip to raise an SOS on: a driver
/// is on it and it is not over. A NEW booking has no driver yet (the rider
/// can cancel it, and the panic number is in the settings for anyone).
pub fn trip_in_progress(status: BookingStatus) -> bool {
    matches!(
        status,
        BookingStatus::Accepted
            | BookingStatus::Arrived
            | BookingStatus::Started
            | BookingStatus::Reached
            | BookingStatus::Pending
    )
}

/// The new alert of `raiser` (already authorised as the booking's rider or
/// its assigned driver) at `position`. `sos_no_trip` when the booking has no
/// trip in progress; `invalid_input` on `location` for a position off the map.
pub fn raise(
    id: SosId,
    booking: &Booking,
    raiser: UserId,
    raiser_role: Role,
    raiser_name: &str,
    position: LatLng,
    now: Millis,
) -> DomainResult<SosAlert> {
    if !position.is_valid() {
        return Err(DomainError::on_field(ErrorKey::InvalidInput, "location"));
    }
    let raised_by_role = match raiser_role {
        Role::Rider if booking.customer == raiser => SosRaiser::Rider,
        Role::Driver if booking.driver == Some(raiser) => SosRaiser::Driver,
        _ => return Err(ErrorKey::NotAllowed.into()),
    };
    if !trip_in_progress(booking.status) {
        return Err(ErrorKey::SosNoTrip.into());
    }
    Ok(SosAlert {
        id,
        booking: booking.id,
        reference: booking.reference.clone(),
        raised_by: raiser,
        raised_by_role,
        raised_by_name: raiser_name.to_string(),
        lat: position.lat,
        lng: position.lng,
        created_at: now,
        fleetadmin: booking.fleetadmin,
        taken_by: None,
        taken_by_name: String::new(),
        taken_at: None,
        resolved_by: None,
        resolved_by_name: String::new(),
        resolved_at: None,
        note: String::new(),
    })
}

/// The alert taken by `by`: the banners drop it. Taking a taken or resolved
/// alert is a conflict, so two people never both think it is theirs.
pub fn take(alert: &SosAlert, by: UserId, by_name: &str, now: Millis) -> DomainResult<SosAlert> {
    match alert.state() {
        SosState::Resolved => Err(ErrorKey::SosAlreadyResolved.into()),
        SosState::Taken => Err(ErrorKey::SosAlreadyTaken.into()),
        SosState::Open => Ok(SosAlert {
            taken_by: Some(by),
            taken_by_name: by_name.to_string(),
            taken_at: Some(now),
            ..alert.clone()
        }),
    }
}

/// The alert resolved by `by` with a note (required, at most [`MAX_NOTE`]
/// characters). An alert nobody took is taken by the same person at the same
/// moment; one already resolved is `sos_already_resolved`.
pub fn resolve(alert: &SosAlert, by: UserId, by_name: &str, note: &str, now: Millis) -> DomainResult<SosAlert> {
    let note = note.trim();
    if note.is_empty() {
        return Err(DomainError::on_field(ErrorKey::SosNoteRequired, "note"));
    }
    if note.chars().count() > MAX_NOTE {
        return Err(DomainError::on_field(ErrorKey::InvalidInput, "note"));
    }
    if alert.state() == SosState::Resolved {
        return Err(ErrorKey::SosAlreadyResolved.into());
    }
    let untaken = alert.taken_at.is_none();
    Ok(SosAlert {
        taken_by: if untaken { Some(by) } else { alert.taken_by },
        taken_by_name: if untaken { by_name.to_string() } else { alert.taken_by_name.clone() },
        taken_at: alert.taken_at.or(Some(now)),
        resolved_by: Some(by),
        resolved_by_name: by_name.to_string(),
        resolved_at: Some(now),
        note: note.to_string(),
        ..alert.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RIDER: u128 = 1;
    const DRIVER: u128 = 2;
    const FLEET: u128 = 3;
    const ADMIN: u128 = 4;

    fn booking(status: BookingStatus) -> Booking {
        let mut booking: Booking = serde_json::from_value(json!({
            "id": BookingId::from_u128(9), "reference": "ABCDEF", "appcat": "taxi", "carType": "Economy",
            "customer": UserId::from_u128(RIDER),
            "pickup": {"lat": 39.28, "lng": -76.6, "add": "A"}, "drop": {"lat": 39.29, "lng": -76.59, "add": "B"},
            "pickupAddress": "A", "dropAddress": "B", "estimate": 25.85, "estimateDistance": 2.0, "estimateTime": 300,
            "status": "NEW", "bookLater": false, "tripdate": 0, "bookingDate": 0, "otp": null,
            "trip_cost": 25.85, "convenience_fees": 2.35, "driver_share": 23.5, "payableAmount": 25.85,
        }))
        .expect("a booking");
        booking.status = status;
        booking.driver = Some(UserId::from_u128(DRIVER));
        booking.fleetadmin = Some(UserId::from_u128(FLEET));
        booking
    }

    fn here() -> LatLng {
        LatLng::new(39.29, -76.61)
    }

    fn raised(status: BookingStatus, who: u128, role: Role) -> DomainResult<SosAlert> {
        raise(SosId::from_u128(7), &booking(status), UserId::from_u128(who), role, "Someone", here(), 1_000)
    }

    #[test]
    fn the_rider_and_the_driver_raise_during_the_trip() {
        let by_rider = raised(BookingStatus::Started, RIDER, Role::Rider).unwrap();
        assert_eq!(by_rider.raised_by_role, SosRaiser::Rider);
        assert_eq!(by_rider.fleetadmin, Some(UserId::from_u128(FLEET)));
        assert_eq!(by_rider.reference, "ABCDEF");
        assert_eq!(by_rider.state(), SosState::Open);
        let by_driver = raised(BookingStatus::Accepted, DRIVER, Role::Driver).unwrap();
        assert_eq!(by_driver.raised_by_role, SosRaiser::Driver);
    }

    #[test]
    fn no_trip_no_sos() {
        for status in [
            BookingStatus::New,
            BookingStatus::PaymentPending,
            BookingStatus::Paid,
            BookingStatus::Complete,
            BookingStatus::Cancelled,
        ] {
            assert_eq!(raised(status, RIDER, Role::Rider).unwrap_err().key, ErrorKey::SosNoTrip, "{status:?}");
        }
        for status in [BookingStatus::Arrived, BookingStatus::Reached, BookingStatus::Pending] {
            assert!(raised(status, RIDER, Role::Rider).is_ok(), "{status:?}");
        }
    }

    #[test]
    fn only_the_trips_parties_raise() {
        assert_eq!(raised(BookingStatus::Started, 99, Role::Rider).unwrap_err().key, ErrorKey::NotAllowed);
        assert_eq!(raised(BookingStatus::Started, 98, Role::Driver).unwrap_err().key, ErrorKey::NotAllowed);
        assert_eq!(raised(BookingStatus::Started, ADMIN, Role::Admin).unwrap_err().key, ErrorKey::NotAllowed);
    }

    #[test]
    fn a_position_off_the_map_is_refused() {
        let outcome = raise(
            SosId::from_u128(7),
            &booking(BookingStatus::Started),
            UserId::from_u128(RIDER),
            Role::Rider,
            "R",
            LatLng::new(91.0, 0.0),
            0,
        );
        assert_eq!(outcome.unwrap_err(), DomainError::on_field(ErrorKey::InvalidInput, "location"));
    }

    #[test]
    fn taken_once_then_resolved_once_with_a_note() {
        let alert = raised(BookingStatus::Started, RIDER, Role::Rider).unwrap();
        let admin = UserId::from_u128(ADMIN);
        let taken = take(&alert, admin, "Admin", 2_000).unwrap();
        assert_eq!((taken.state(), taken.taken_at, taken.taken_by), (SosState::Taken, Some(2_000), Some(admin)));
        assert_eq!(take(&taken, admin, "Admin", 3_000).unwrap_err().key, ErrorKey::SosAlreadyTaken);
        assert_eq!(resolve(&taken, admin, "Admin", "  ", 3_000).unwrap_err().key, ErrorKey::SosNoteRequired);
        let resolved = resolve(&taken, admin, "Admin", " Called the rider; all fine ", 3_000).unwrap();
        assert_eq!(resolved.state(), SosState::Resolved);
        assert_eq!(resolved.note, "Called the rider; all fine");
        assert_eq!(resolved.taken_at, Some(2_000));
        assert_eq!(resolve(&resolved, admin, "Admin", "again", 4_000).unwrap_err().key, ErrorKey::SosAlreadyResolved);
        assert_eq!(take(&resolved, admin, "Admin", 4_000).unwrap_err().key, ErrorKey::SosAlreadyResolved);
    }

    #[test]
    fn resolving_an_untaken_alert_takes_it_too() {
        let alert = raised(BookingStatus::Started, DRIVER, Role::Driver).unwrap();
        let fleet = UserId::from_u128(FLEET);
        let resolved = resolve(&alert, fleet, "Fleet", "false alarm", 5_000).unwrap();
        assert_eq!((resolved.taken_by, resolved.taken_at), (Some(fleet), Some(5_000)));
        assert_eq!(resolved.taken_by_name, "Fleet");
    }

    #[test]
    fn a_note_has_a_limit() {
        let alert = raised(BookingStatus::Started, RIDER, Role::Rider).unwrap();
        let long = "x".repeat(MAX_NOTE + 1);
        let refused = resolve(&alert, UserId::from_u128(ADMIN), "A", &long, 1).unwrap_err();
        assert_eq!(refused, DomainError::on_field(ErrorKey::InvalidInput, "note"));
    }
}
