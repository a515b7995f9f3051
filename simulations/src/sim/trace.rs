//! What a run told its dispatch, in order: the simulator's half of the test
//! that replays a run through the server's actors on a manual clock and
//! expects the same offers at the same times (issue #36). Recorded only
//! when asked for ([`super::run_traced`]); a plain run pays nothing.

use wayfare_engine::booking::{By, Command, NewBooking};
use wayfare_engine::{LatLng, Millis, User, UserId};

/// One step of a run; `at` is epoch ms, as the bookings' times.
#[derive(Debug, Clone)]
pub enum Traced {
    /// A driver came on shift, free, at `point`.
    Online { at: Millis, driver: UserId, point: LatLng },
    /// A driver's position as dispatch sees it changed.
    Moved { at: Millis, driver: UserId, point: LatLng },
    /// A driver went off shift.
    Offline { at: Millis, driver: UserId },
    /// Ride `ride` was booked (rides are numbered from zero in request order).
    Booked { at: Millis, ride: usize, request: NewBooking },
    /// A driver's or the rider's command on ride `ride`'s booking.
    Command { at: Millis, ride: usize, by: By, command: Command },
    /// A timer was set or a batch window armed for `due`.
    Set { at: Millis, due: Millis },
    /// A timer or a batch window came due: work the server's own clock does.
    Due { at: Millis },
    /// Dispatch offered ride `ride` to `drivers` as wave `wave`.
    Offered { at: Millis, ride: usize, drivers: Vec<UserId>, wave: u32, deadline: Option<Millis> },
}

impl Traced {
    pub fn at(&self) -> Millis {
        match self {
            Traced::Online { at, .. }
            | Traced::Moved { at, .. }
            | Traced::Offline { at, .. }
            | Traced::Booked { at, .. }
            | Traced::Command { at, .. }
            | Traced::Set { at, .. }
            | Traced::Due { at }
            | Traced::Offered { at, .. } => *at,
        }
    }
}

/// The rider who books every simulated ride.
pub fn rider() -> User {
    let mut rider = User::new(UserId::from_u128(1 << 64), wayfare_engine::Role::Rider, 0);
    rider.firstName = "Simulated".into();
    rider.lastName = "Rider".into();
    rider
}

/// The id of the fleet's driver `number` (from zero).
pub fn driver_id(number: usize) -> UserId {
    UserId::from_u128((2 << 64) | number as u128)
}
