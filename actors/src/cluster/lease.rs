//! Booking leases: a node serves a booking (runs its actor and timers) only
//! while it holds the booking's lease in storage. A keeper task renews the
//! node's leases every third of their lifetime and takes over the bookings
//! of a node that stopped renewing (it died), restoring each with its timers
//! from storage exactly as the runtime does at start.

use super::{BOOKING, Cluster};
use crate::error::unwrap_call;
use crate::events::Event;
use crate::protocol::{BookingArgs, BookingMsg};
use crate::shared::Shared;
use crate::supervisor::Children;
use std::collections::HashSet;
use std::sync::Arc;
use tracing::{info, warn};
use wayfare_engine::{Booking, BookingId, Millis};
use wayfare_storage::{Lease, StorageError};

/// Lapsed leases taken over per round, so one round stays short.
const TAKEOVER_BATCH: u32 = 500;

/// The keeper: renews, fences itself when it could not renew in time, and
/// takes over lapsed bookings. Runs until the runtime aborts it.
/// `started_at` is read when the runtime starts, so the first round is a
/// period after the start however late this task first runs.
pub(crate) async fn keep(children: Children, started_at: Millis) {
    let shared = children.shared.clone();
    let Some(cluster) = shared.cluster.as_ref() else { return };
    let ttl = cluster.ttl_ms();
    let period = (ttl / 3).max(1);
    let mut renewed_at = started_at;
    let mut next = started_at + period;
    loop {
        shared.clock.sleep_until(next).await;
        let now = shared.now();
        next = now + period;
        if !cluster.is_serving() {
            continue;
        }
        match shared.storage.renew_leases(cluster.node(), now, now + ttl).await {
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
                    stop_lost_bookings(&shared, cluster, &unrenewed, now).await;
                }
            }
            Err(error) => {
                warn!(%error, node = %cluster.node(), "leases not renewed");
                if now - renewed_at >= ttl {
                    // Others may hold our bookings by now: stop serving them.
                    warn!(node = %cluster.node(), "leases lapsed; stopping this node's booking actors");
                    children.stop_bookings().await;
                }
                continue;
            }
        }
        match shared.storage.lapsed_leases(BOOKING, now, TAKEOVER_BATCH).await {
            Ok(lapsed) => {
                for lease in lapsed {
                    take_over(&children, cluster, lease).await;
                }
            }
            Err(error) => warn!(%error, "lapsed leases not read"),
        }
    }
}

async fn take_over(children: &Children, cluster: &Cluster, lease: Lease) {
    let shared = &children.shared;
    let Ok(uuid) = lease.key.parse::<uuid::Uuid>() else {
        warn!(key = %lease.key, "a booking lease whose key is not a booking id");
        return;
    };
    let id = BookingId(uuid);
    match cluster.lease_booking(id).await {
        Ok(true) => {}
        // Another node was faster.
        Ok(false) => return,
        Err(error) => return warn!(booking_id = %id, %error, "lapsed lease not taken"),
    }
    match shared.storage.booking(id).await {
        Ok(booking) if booking.status.is_active() => {
            if shared.bookings.get(&id).is_none() {
                let restored = Arc::new(booking.clone());
                if let Err(error) = children.spawn_booking(BookingArgs::restored(booking)).await {
                    warn!(booking_id = %id, %error, "booking taken over but not restored");
                    return;
                }
                // The dead node may have committed a change it never told.
                shared.bus.publish(Event::BookingChanged(restored));
                cluster.count_takeover();
            }
            info!(booking_id = %id, from = %lease.node, node = %cluster.node(), "booking taken over");
        }
        Ok(_) | Err(StorageError::NotFound) => cluster.release_booking(id).await,
        Err(error) => warn!(booking_id = %id, %error, "booking of a lapsed lease not read"),
    }
}

/// Stops the actors of bookings whose lease this node no longer holds
/// (it lapsed, or another node took it): the lease decides who serves
/// a booking, and a command here is forwarded from now on.
async fn stop_lost_bookings(shared: &Shared, cluster: &Cluster, ids: &[BookingId], now: Millis) {
    let node = cluster.node();
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

/// Stops serving bookings: this node lost its link to the others, so their
/// commands and its events no longer cross. Its booking actors stop and its
/// leases lapse at once, for the nodes still linked to take.
pub(crate) async fn fence(children: &Children) {
    let Some(cluster) = children.shared.cluster.as_ref() else { return };
    if !cluster.stop_serving() {
        return;
    }
    warn!("fenced: this node stops serving bookings until its link is back");
    children.stop_bookings().await;
    cluster.release_node_leases().await;
}

/// Publishes every booking served here as it is now, so clients that
/// missed events (a link outage) catch up.
pub(crate) async fn republish_bookings(shared: &Shared) -> usize {
    let timeout = shared.options.call_timeout;
    let mut count = 0;
    for (_, actor) in shared.bookings.all() {
        if let Ok(reply) = actor.call(BookingMsg::Snapshot, timeout).await
            && let Ok(booking) = unwrap_call(reply)
        {
            shared.bus.publish(Event::BookingChanged(booking));
            count += 1;
        }
    }
    count
}

/// Another node committed this version of a booking (from its events): an
/// actor here holding an older version stops, since that node serves the
/// booking now. Without it a stale actor would keep answering reads with
/// what it last knew.
pub(crate) fn committed_elsewhere(shared: &Shared, booking: Arc<Booking>) {
    if let Some(actor) = shared.bookings.get(&booking.id) {
        let _ = actor.cast(BookingMsg::Superseded(booking));
    }
}
