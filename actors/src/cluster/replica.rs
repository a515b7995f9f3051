//! Every node keeps every online driver (an actor and an index entry), so
//! any node can dispatch anywhere, region edges included. A fact about a
//! driver (`protocol::DriverFact`) is born on one node — a position on the
//! node holding the driver's socket, an offer or a trip on the node serving
//! the booking — which applies it, writes what is to be written and
//! publishes its events; the edge carries the fact to the other nodes, which
//! apply it here to their replica only (`Origin::Replica`: nothing stored,
//! no event).

use crate::error::ActorResult;
use crate::protocol::{DriverFact, DriverMsg, Origin};
use crate::supervisor::Children;
use std::collections::HashSet;
use tracing::warn;
use wayfare_engine::UserId;

/// A fact another node sent: applied to this node's replica of the driver
/// (going online reads the driver from storage).
pub(crate) async fn apply(children: &Children, fact: DriverFact) {
    let shared = &children.shared;
    let driver = fact.driver();
    match fact.message(Origin::Replica) {
        Some(message) => {
            if let Some(actor) = shared.drivers.get(&driver) {
                let _ = actor.cast(message);
            }
        }
        None if matches!(fact, DriverFact::Offline { .. }) => children.remove_driver(driver).await,
        None => {
            if shared.drivers.contains(&driver) {
                return;
            }
            match shared.storage.user(driver).await {
                Ok(user) if user.driverActiveStatus => {
                    if let Err(error) = children.spawn_driver(user).await {
                        warn!(driver_id = %driver, %error, "a driver online elsewhere not replicated");
                    }
                }
                Ok(_) => {}
                Err(error) => warn!(driver_id = %driver, %error, "a driver online elsewhere not read"),
            }
        }
    }
}

/// Brings this node's replica of the drivers in line with storage: after
/// the link was down, facts of other nodes were lost (a busy flag above
/// all, which keeps a driver out of dispatch). Returns how many drivers are
/// online.
pub(crate) async fn resync(children: &Children) -> ActorResult<usize> {
    let shared = &children.shared;
    let online = shared.storage.online_drivers().await?;
    let ids: HashSet<UserId> = online.iter().map(|user| user.id).collect();
    for (driver, _) in shared.drivers.all() {
        if !ids.contains(&driver) {
            children.remove_driver(driver).await;
        }
    }
    for user in online {
        match shared.drivers.get(&user.id) {
            Some(actor) => {
                let _ = actor.cast(DriverMsg::SetBusy(user.queue));
            }
            None => {
                children.spawn_driver(user).await?;
            }
        }
    }
    Ok(ids.len())
}
