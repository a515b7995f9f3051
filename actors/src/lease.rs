//! Cluster mode (issue #17): with several nodes on one database, a node
//! serves a booking (runs its actor and timers) only while it holds the
//! booking's lease in storage. A keeper task renews the node's leases every
//! third of their lifetime and takes over the bookings of a node that
//! stopped renewing (it died), restoring each with its timers from storage
//! exactly as the runtime does at start. On one node there are no leases.
//!
//! The storage version check stays the last guard: a node that lost its
//! lease without knowing (a long pause) can at worst lose a compare-and-set,
//! never write over another's transition.

use crate::error::{ActorError, ActorResult};
use crate::events::Event;
use crate::protocol::{BookingArgs, BookingMsg};
use crate::runtime::{Runtime, unwrap_call};
use crate::shared::Shared;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tracing::{info, warn};
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{Booking, BookingId, Millis};
use wayfare_storage::{Lease, StorageError};

/// The lease kind of a booking; its key is the booking id.
pub const BOOKING: &str = "booking";
/// Lapsed leases taken over per round, so one round stays short.
const TAKEOVER_BATCH: u32 = 500;

/// This node in a cluster.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// The node's name, unique in the cluster (the leases say who holds what).
    pub node: String,
    /// How long a lease lasts unless renewed: a dead node's bookings are
    /// taken over within about this long.
    pub lease_ttl: Duration,
}

/// Carries a command to the node serving its booking and brings back the
/// committed booking or the refusal (the edge's job: Redis in `wayfare-http`).
#[async_trait::async_trait]
pub trait Forward: Send + Sync {
    async fn command(&self, node: &str, id: BookingId, by: By, command: Command) -> ActorResult<Arc<Booking>>;
}

impl ClusterOptions {
    fn ttl_ms(&self) -> Millis {
        self.lease_ttl.as_millis() as Millis
    }
}

impl Shared {
    /// Takes or keeps the lease of a booking: true when this node may serve
    /// it (always, on one node).
    pub(crate) async fn lease_booking(&self, id: BookingId) -> ActorResult<bool> {
        let Some(cluster) = &self.options.cluster else { return Ok(true) };
        if !(self.serving.load(Ordering::Acquire) && self.accepting.load(Ordering::Acquire)) {
            return Ok(false);
        }
        let now = self.now();
        let key = id.to_string();
        Ok(self.storage.acquire_lease(BOOKING, &key, &cluster.node, now, now + cluster.ttl_ms()).await?)
    }

    /// Gives up a finished booking's lease (the keeper would renew it forever).
    pub(crate) async fn release_booking(&self, id: BookingId) {
        let Some(cluster) = &self.options.cluster else { return };
        if let Err(error) = self.storage.release_lease(BOOKING, &id.to_string(), &cluster.node).await {
            warn!(booking_id = %id, %error, "booking lease not released; it will lapse");
        }
    }
}

/// The keeper: renews, fences itself when it could not renew in time, and
/// takes over lapsed bookings. Runs until the runtime aborts it.
/// `started_at` is read when the runtime starts, so the first round is a
/// period after the start however late this task first runs.
pub(crate) async fn keep(runtime: Runtime, cluster: ClusterOptions, started_at: Millis) {
    let shared = runtime.shared().clone();
    let ttl = cluster.ttl_ms();
    let period = (ttl / 3).max(1);
    let mut renewed_at = started_at;
    let mut next = started_at + period;
    loop {
        shared.clock.sleep_until(next).await;
        let now = shared.now();
        next = now + period;
        if !shared.serving.load(Ordering::Acquire) {
            continue;
        }
        match shared.storage.renew_leases(&cluster.node, now, now + ttl).await {
            Ok(renewed) => {
                renewed_at = now;
                // A booking served here whose lease was not renewed lapsed
                // (this process starved past a lease's life, say), and another
                // node may serve it now: stop ours, or two would serve it.
                let renewed: HashSet<String> =
                    renewed.into_iter().filter(|lease| lease.kind == BOOKING).map(|lease| lease.key).collect();
                let unrenewed: Vec<BookingId> =
                    shared.bookings.keys().into_iter().filter(|id| !renewed.contains(&id.to_string())).collect();
                if !unrenewed.is_empty() {
                    runtime.stop_lost_bookings(&unrenewed, &cluster.node, now).await;
                }
            }
            Err(error) => {
                warn!(%error, node = %cluster.node, "leases not renewed");
                if now - renewed_at >= ttl {
                    // Others may hold our bookings by now: stop serving them.
                    warn!(node = %cluster.node, "leases lapsed; stopping this node's booking actors");
                    runtime.stop_booking_actors().await;
                }
                continue;
            }
        }
        match shared.storage.lapsed_leases(BOOKING, now, TAKEOVER_BATCH).await {
            Ok(lapsed) => {
                for lease in lapsed {
                    take_over(&runtime, &cluster, lease).await;
                }
            }
            Err(error) => warn!(%error, "lapsed leases not read"),
        }
    }
}

async fn take_over(runtime: &Runtime, cluster: &ClusterOptions, lease: Lease) {
    let shared = runtime.shared();
    let Ok(uuid) = lease.key.parse::<uuid::Uuid>() else {
        warn!(key = %lease.key, "a booking lease whose key is not a booking id");
        return;
    };
    let id = BookingId(uuid);
    match shared.lease_booking(id).await {
        Ok(true) => {}
        // Another node was faster.
        Ok(false) => return,
        Err(error) => return warn!(booking_id = %id, %error, "lapsed lease not taken"),
    }
    match shared.storage.booking(id).await {
        Ok(booking) if booking.status.is_active() => {
            if shared.bookings.get(&id).is_none() {
                let restored = Arc::new(booking.clone());
                if let Err(error) = runtime.spawn_booking(BookingArgs::restored(booking)).await {
                    warn!(booking_id = %id, %error, "booking taken over but not restored");
                    return;
                }
                // The dead node may have committed a change it never told.
                shared.bus.publish(crate::events::Event::BookingChanged(restored));
                shared.taken_over.fetch_add(1, Ordering::Relaxed);
            }
            info!(booking_id = %id, from = %lease.node, node = %cluster.node, "booking taken over");
        }
        Ok(_) | Err(StorageError::NotFound) => shared.release_booking(id).await,
        Err(error) => warn!(booking_id = %id, %error, "booking of a lapsed lease not read"),
    }
}

impl Runtime {
    /// Sets how commands reach the node serving their booking (cluster mode).
    pub fn set_forwarder(&self, forwarder: Arc<dyn Forward>) {
        let _ = self.shared().forward.set(forwarder);
    }

    /// Stops serving bookings: this node lost its link to the others, so
    /// their commands and its events no longer cross. Its booking actors stop
    /// and its leases lapse at once, for the nodes still linked to take.
    pub async fn fence(&self) {
        if !self.shared().serving.swap(false, Ordering::AcqRel) {
            return;
        }
        warn!("fenced: this node stops serving bookings until its link is back");
        self.stop_booking_actors().await;
        if let Some(cluster) = &self.shared().options.cluster
            && let Err(error) = self.shared().storage.release_node_leases(&cluster.node).await
        {
            warn!(%error, "leases not released; they will lapse");
        }
    }

    /// Serves bookings again after `fence`: the keeper takes lapsed leases
    /// at its next round.
    pub fn unfence(&self) {
        if !self.shared().serving.swap(true, Ordering::AcqRel) {
            info!("link back: serving bookings again");
        }
    }

    /// Whether this node takes new bookings (and bookings it does not
    /// serve yet): off while its link is down, before it fences.
    pub fn set_accepting(&self, accepting: bool) {
        self.shared().accepting.store(accepting, Ordering::Release);
    }

    pub fn is_serving(&self) -> bool {
        self.shared().serving.load(Ordering::Acquire)
    }

    /// Publishes every booking served here as it is now, so clients that
    /// missed events (a link outage) catch up.
    pub async fn republish_bookings(&self) -> usize {
        let timeout = self.shared().options.call_timeout;
        let mut count = 0;
        for (_, actor) in self.shared().bookings.all() {
            if let Ok(reply) = actor.call(BookingMsg::Snapshot, timeout).await
                && let Ok(booking) = unwrap_call(reply)
            {
                self.shared().bus.publish(Event::BookingChanged(booking));
                count += 1;
            }
        }
        count
    }

    /// Stops the actors of bookings whose lease this node no longer holds
    /// (it lapsed, or another node took it): the lease decides who serves
    /// a booking, and a command here is forwarded from now on.
    pub(crate) async fn stop_lost_bookings(&self, ids: &[BookingId], node: &str, now: Millis) {
        let shared = self.shared();
        for id in ids {
            let Some(actor) = shared.bookings.get(id) else { continue };
            // Leased since the renewal (a booking just made here) is held.
            let held = match shared.storage.lease(BOOKING, &id.to_string()).await {
                Ok(lease) => lease.is_some_and(|lease| lease.node == node && lease.expires_at > now),
                Err(error) => {
                    warn!(booking_id = %id, %error, "lease not read; the booking's actor keeps running");
                    continue;
                }
            };
            if !held {
                warn!(booking_id = %id, node, "lease lost; stopping the booking's actor");
                actor.stop_and_wait(None, shared.options.call_timeout).await.ok();
            }
        }
    }

    /// Another node committed this version of a booking (cluster mode, from
    /// its events): an actor here holding an older version stops, since that
    /// node serves the booking now. Without it a stale actor would keep
    /// answering reads with what it last knew.
    pub fn committed_elsewhere(&self, booking: Arc<Booking>) {
        if let Some(actor) = self.shared().bookings.get(&booking.id) {
            let _ = actor.cast(BookingMsg::Superseded(booking));
        }
    }

    /// A command for a booking leased by another node, sent to that node.
    pub(crate) async fn forward(
        &self,
        forwarder: &dyn Forward,
        id: BookingId,
        by: By,
        command: Command,
    ) -> ActorResult<Arc<Booking>> {
        let me = self.shared().options.cluster.as_ref().map(|cluster| cluster.node.as_str());
        match self.shared().storage.lease(BOOKING, &id.to_string()).await? {
            Some(lease) if Some(lease.node.as_str()) != me => forwarder.command(&lease.node, id, by, command).await,
            // Ours but lapsed and not yet taken back, or being handed over.
            _ => Err(ActorError::Unavailable(format!("booking {id} is changing nodes"))),
        }
    }
}
