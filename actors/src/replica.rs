//! Cluster mode: every node keeps every online driver (an actor and an index
//! entry), so any node can dispatch anywhere, region edges included. A fact
//! about a driver is born on one node — a position on the node holding the
//! driver's socket, an offer or a trip on the node serving the booking —
//! which applies it, writes what is to be written and publishes its events;
//! the edge carries the fact to the other nodes, which apply it to their
//! replica only (`Origin::Replica`: nothing stored, no event).

use crate::error::ActorResult;
use crate::protocol::{DriverFact, DriverMsg, Origin};
use crate::runtime::Runtime;
use crate::shared::Shared;
use tokio::sync::mpsc;
use tracing::warn;
use wayfare_engine::UserId;

impl Shared {
    /// A fact born here: to the local driver actor and, in a cluster, to the
    /// other nodes.
    pub(crate) fn tell_driver(&self, fact: DriverFact) {
        if let (Some(actor), Some(message)) = (self.drivers.get(&fact.driver()), fact.message(Origin::Here)) {
            let _ = actor.cast(message);
        }
        self.replicate(fact);
    }

    /// Hands a fact to the edge for the other nodes (a no-op on one node).
    pub(crate) fn replicate(&self, fact: DriverFact) {
        if let Some(out) = &self.replication {
            // The edge stopped: the node is going down.
            let _ = out.send(fact);
        }
    }
}

impl Runtime {
    /// The driver facts born on this node, for the edge to send to the other
    /// nodes; `Some` once, in cluster mode.
    pub fn take_driver_facts(&self) -> Option<mpsc::UnboundedReceiver<DriverFact>> {
        self.driver_facts.lock().expect("driver facts lock").take()
    }

    /// A fact another node sent: applied to this node's replica of the
    /// driver (going online reads the driver from storage).
    pub async fn apply_driver_fact(&self, fact: DriverFact) {
        let driver = fact.driver();
        match fact.message(Origin::Replica) {
            Some(message) => {
                if let Some(actor) = self.shared().drivers.get(&driver) {
                    let _ = actor.cast(message);
                }
            }
            None if matches!(fact, DriverFact::Offline { .. }) => self.remove_driver(driver).await,
            None => {
                if self.shared().drivers.contains(&driver) {
                    return;
                }
                match self.shared().storage.user(driver).await {
                    Ok(user) if user.driverActiveStatus => {
                        if let Err(error) = self.spawn_driver(user).await {
                            warn!(driver_id = %driver, %error, "a driver online elsewhere not replicated");
                        }
                    }
                    Ok(_) => {}
                    Err(error) => warn!(driver_id = %driver, %error, "a driver online elsewhere not read"),
                }
            }
        }
    }

    /// Brings this node's replica of the drivers in line with storage:
    /// after the link was down, facts of other nodes were lost (a busy flag
    /// above all, which keeps a driver out of dispatch). Returns how many
    /// drivers are online.
    pub async fn resync_drivers(&self) -> ActorResult<usize> {
        let online = self.shared().storage.online_drivers().await?;
        let ids: std::collections::HashSet<UserId> = online.iter().map(|user| user.id).collect();
        for (driver, _) in self.shared().drivers.all() {
            if !ids.contains(&driver) {
                self.remove_driver(driver).await;
            }
        }
        for user in online {
            match self.shared().drivers.get(&user.id) {
                Some(actor) => {
                    let _ = actor.cast(DriverMsg::SetBusy(user.queue));
                }
                None => {
                    self.spawn_driver(user).await?;
                }
            }
        }
        Ok(ids.len())
    }
}
