//! Cluster mode: every node keeps every online driver (an actor and an index
//! entry), so any node can dispatch anywhere, region edges included. A fact
//! about a driver is born on one node — a position on the node holding the
//! driver's socket, an offer or a trip on the node serving the booking —
//! which applies it, writes what is to be written and publishes its events;
//! the edge carries the fact to the other nodes, which apply it to their
//! replica only (`Origin::Replica`: nothing stored, no event).

use crate::driver::{DriverMsg, LocationUpdate, Origin};
use crate::shared::Shared;
use serde::{Deserialize, Serialize};
use wayfare_engine::{BookingId, BookingStatus, UserId};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum DriverFact {
    Online { driver: UserId },
    Offline { driver: UserId },
    Location { driver: UserId, update: LocationUpdate },
    Busy { driver: UserId, busy: bool },
    Offered { driver: UserId, booking: BookingId },
    Withdrawn { driver: UserId, booking: BookingId },
    Trip { driver: UserId, booking: BookingId, status: BookingStatus },
}

impl DriverFact {
    pub fn driver(&self) -> UserId {
        match self {
            DriverFact::Online { driver }
            | DriverFact::Offline { driver }
            | DriverFact::Location { driver, .. }
            | DriverFact::Busy { driver, .. }
            | DriverFact::Offered { driver, .. }
            | DriverFact::Withdrawn { driver, .. }
            | DriverFact::Trip { driver, .. } => *driver,
        }
    }

    /// The driver actor's message for this fact; `None` for going on- or
    /// offline, which start or stop the actor itself.
    pub(crate) fn message(&self, origin: Origin) -> Option<DriverMsg> {
        Some(match *self {
            DriverFact::Online { .. } | DriverFact::Offline { .. } => return None,
            DriverFact::Location { update, .. } => DriverMsg::Location(update, origin),
            DriverFact::Busy { busy, .. } => DriverMsg::SetBusy(busy),
            DriverFact::Offered { booking, .. } => DriverMsg::OfferReceived(booking),
            DriverFact::Withdrawn { booking, .. } => DriverMsg::OfferWithdrawn(booking),
            DriverFact::Trip { booking, status, .. } => DriverMsg::Trip { booking, status },
        })
    }
}

impl Shared {
    /// A fact born here: to the local driver actor and, in a cluster, to the
    /// other nodes. False when the driver has no actor here.
    pub(crate) fn tell_driver(&self, fact: DriverFact) -> bool {
        let told = match (self.drivers.get(&fact.driver()), fact.message(Origin::Here)) {
            (Some(actor), Some(message)) => actor.cast(message).is_ok(),
            _ => false,
        };
        self.replicate(fact);
        told
    }

    /// Hands a fact to the edge for the other nodes (a no-op on one node).
    pub(crate) fn replicate(&self, fact: DriverFact) {
        if let Some(out) = &self.replication {
            // The edge stopped: the node is going down.
            let _ = out.send(fact);
        }
    }
}
