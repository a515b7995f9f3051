//! The dispatch log: what happened to a booking's dispatch, entry by entry.
//! The runtime writes it to storage (a booking's timeline) and sends it to
//! the live console; both show a fleet admin only their own drivers
//! ([`DispatchEntry::for_fleet`]).

use crate::booking::WithdrawReason;
use crate::ids::{BookingId, UserId};
use crate::model::Millis;
use serde::{Deserialize, Serialize};

/// What happened in dispatch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DispatchLog {
    /// `distances_km[i]` is `drivers[i]`'s great-circle distance to the
    /// pickup when offered; `None` where the position was not known (an
    /// admin's assignment).
    Offered {
        wave: u32,
        drivers: Vec<UserId>,
        distances_km: Vec<Option<f64>>,
        deadline: Option<Millis>,
    },
    Withdrawn {
        drivers: Vec<UserId>,
        reason: WithdrawReason,
    },
    Accepted {
        driver: UserId,
    },
    NoCandidates {
        wave: u32,
    },
    Exhausted,
    Cancelled,
}

impl DispatchLog {
    /// The `kind` as serialised, for storage and filters.
    pub fn kind(&self) -> &'static str {
        match self {
            DispatchLog::Offered { .. } => "offered",
            DispatchLog::Withdrawn { .. } => "withdrawn",
            DispatchLog::Accepted { .. } => "accepted",
            DispatchLog::NoCandidates { .. } => "no_candidates",
            DispatchLog::Exhausted => "exhausted",
            DispatchLog::Cancelled => "cancelled",
        }
    }

    /// The drivers the entry names.
    pub fn drivers(&self) -> &[UserId] {
        match self {
            DispatchLog::Offered { drivers, .. } | DispatchLog::Withdrawn { drivers, .. } => drivers,
            DispatchLog::Accepted { driver } => std::slice::from_ref(driver),
            DispatchLog::NoCandidates { .. } | DispatchLog::Exhausted | DispatchLog::Cancelled => &[],
        }
    }
}

/// One entry of a booking's dispatch log. `car_type` is the booking's, so
/// the console filters the log without looking bookings up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchEntry {
    pub at: Millis,
    pub booking: BookingId,
    pub car_type: String,
    #[serde(flatten)]
    pub log: DispatchLog,
}

/// Distances rounded to the metre: plenty for a timeline.
pub fn round_km(km: f64) -> f64 {
    (km * 1000.0).round() / 1000.0
}

impl DispatchEntry {
    /// The entry as a fleet admin may see it: other fleets' drivers removed
    /// (`is_theirs` says whose a driver is). An offer or withdrawal with none
    /// of theirs left, or another fleet's accept, is not theirs to see at all;
    /// entries naming no driver are theirs when the booking `concerns` them.
    pub fn for_fleet(&self, is_theirs: impl Fn(UserId) -> bool, concerns: bool) -> Option<DispatchEntry> {
        let log = match &self.log {
            DispatchLog::Offered { wave, drivers, distances_km, deadline } => {
                let (drivers, distances_km): (Vec<UserId>, Vec<Option<f64>>) = drivers
                    .iter()
                    .zip(distances_km.iter().copied().chain(std::iter::repeat(None)))
                    .filter(|(driver, _)| is_theirs(**driver))
                    .map(|(driver, distance)| (*driver, distance))
                    .unzip();
                if drivers.is_empty() {
                    return None;
                }
                DispatchLog::Offered { wave: *wave, drivers, distances_km, deadline: *deadline }
            }
            DispatchLog::Withdrawn { drivers, reason } => {
                let drivers: Vec<UserId> = drivers.iter().copied().filter(|driver| is_theirs(*driver)).collect();
                if drivers.is_empty() {
                    return None;
                }
                DispatchLog::Withdrawn { drivers, reason: *reason }
            }
            DispatchLog::Accepted { driver } => {
                if !is_theirs(*driver) {
                    return None;
                }
                DispatchLog::Accepted { driver: *driver }
            }
            other @ (DispatchLog::NoCandidates { .. } | DispatchLog::Exhausted | DispatchLog::Cancelled) => {
                if !concerns {
                    return None;
                }
                other.clone()
            }
        };
        Some(DispatchEntry { at: self.at, booking: self.booking, car_type: self.car_type.clone(), log })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const OURS: UserId = UserId(uuid::Uuid::from_u128(1));
    const THEIRS: UserId = UserId(uuid::Uuid::from_u128(2));

    fn entry(log: DispatchLog) -> DispatchEntry {
        DispatchEntry { at: 5, booking: BookingId::from_u128(9), car_type: "Economy".into(), log }
    }

    #[test]
    fn an_entry_is_flat_json_with_its_kind_and_reads_back() {
        let offered = entry(DispatchLog::Offered {
            wave: 2,
            drivers: vec![OURS, THEIRS],
            distances_km: vec![Some(0.5), None],
            deadline: Some(20),
        });
        let value = serde_json::to_value(&offered).unwrap();
        assert_eq!(value["kind"], "offered");
        assert_eq!(value["car_type"], "Economy");
        assert_eq!(value["distances_km"], json!([0.5, null]));
        assert_eq!(serde_json::from_value::<DispatchEntry>(value).unwrap(), offered);
        let exhausted = entry(DispatchLog::Exhausted);
        assert_eq!(serde_json::to_value(&exhausted).unwrap()["kind"], exhausted.log.kind());
    }

    #[test]
    fn a_fleet_sees_only_its_drivers_with_their_own_distances() {
        let is_ours = |driver: UserId| driver == OURS;
        let offered = entry(DispatchLog::Offered {
            wave: 1,
            drivers: vec![THEIRS, OURS],
            distances_km: vec![Some(0.2), Some(0.9)],
            deadline: None,
        });
        let cut = offered.for_fleet(is_ours, false).unwrap();
        assert_eq!(
            cut.log,
            DispatchLog::Offered { wave: 1, drivers: vec![OURS], distances_km: vec![Some(0.9)], deadline: None }
        );
        let only_theirs = entry(DispatchLog::Withdrawn { drivers: vec![THEIRS], reason: WithdrawReason::Declined });
        assert_eq!(only_theirs.for_fleet(is_ours, true), None);
        assert_eq!(entry(DispatchLog::Accepted { driver: THEIRS }).for_fleet(is_ours, true), None);
        assert!(entry(DispatchLog::Accepted { driver: OURS }).for_fleet(is_ours, false).is_some());
        assert_eq!(entry(DispatchLog::Cancelled).for_fleet(is_ours, false), None);
        assert!(entry(DispatchLog::Cancelled).for_fleet(is_ours, true).is_some());
    }
}
