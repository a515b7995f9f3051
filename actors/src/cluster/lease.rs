//! Booking leases: a node serves a booking (runs its actor and timers) only
//! while it holds the booking's lease in storage. A keeper task beats the
//! node's heartbeat (a lease of kind `node`) four times a heartbeat TTL,
//! buries a node whose heartbeat lapsed (its leases lapse at once), renews
//! the node's leases every third of their lifetime, and takes over lapsed
//! bookings, restoring each with its timers from storage exactly as the
//! runtime does at start.

use super::{BOOKING, Cluster, NODE};
use crate::error::unwrap_call;
use crate::events::Event;
use crate::protocol::{BookingArgs, BookingMsg};
use crate::shared::Shared;
use crate::supervisor::Children;
use std::collections::HashSet;
use std::sync::Arc;
use tracing::{error, info, warn};
use wayfare_engine::{Booking, BookingId, Millis};
use wayfare_storage::{Lease, StorageError};

/// Lapsed leases taken over per round, so one round stays short.
const TAKEOVER_BATCH: u32 = 500;

/// The keeper: beats this node's heartbeat and buries the nodes whose
/// heartbeat stopped, renews its leases, fences itself when it could not
/// renew them in time, and takes over lapsed bookings. Runs until the
/// runtime aborts it. `started_at` is read when the runtime starts, so the
/// first round is a period after the start however late this task first runs.
pub(crate) async fn keep(children: Children, started_at: Millis) {
    let shared = children.shared.clone();
    let Some(cluster) = shared.cluster.as_ref() else { return };
    let ttl = cluster.ttl_ms();
    let period = (ttl / 3).max(1);
    let beat_every = cluster.beat_ms().max(1);
    let mut renewed_at = started_at;
    let mut next_renewal = started_at + period;
    let mut next_beat = started_at + beat_every;
    let mut heart = Heart { fresh_until: started_at + cluster.heartbeat_ttl_ms(), ..Heart::default() };
    // Takeover rounds still due after a burial: the node that buried the
    // dead one may commit after this node's first round.
    let mut takeovers_due = 0;
    loop {
        shared.clock.sleep_until(next_beat.min(next_renewal)).await;
        let now = shared.now();
        if now >= next_beat {
            next_beat = now + beat_every;
            // Silent for a heartbeat's life (starved, paused): the others may
            // have buried this node, so renew now, which stops the actors of
            // the bookings it lost, rather than a renewal period later.
            if now >= heart.fresh_until {
                next_renewal = now;
            }
            if heartbeat(&children, cluster, &mut heart, now).await {
                takeovers_due = 3;
            }
        }
        if now >= next_renewal {
            next_renewal = now + period;
            if renew(&children, cluster, &mut renewed_at, now).await {
                takeovers_due = takeovers_due.max(1);
            }
        }
        if takeovers_due > 0 && cluster.is_serving() {
            takeovers_due -= 1;
            take_over_lapsed(&children, cluster, now).await;
        }
    }
}

/// What the keeper knows of its own heartbeat.
#[derive(Default)]
struct Heart {
    /// The last renewal that worked, if the latest did.
    last_beat: Option<Millis>,
    /// Since when the renewals came steadily (none missed, none late).
    steady_since: Millis,
    /// The latest renewal failed (logged once).
    failing: bool,
    /// Until when the last renewal that worked kept the heartbeat fresh.
    fresh_until: Millis,
}

/// Renews this node's heartbeat and, when it has been steady for a
/// heartbeat's life, buries the nodes whose heartbeat lapsed. True when
/// some node was found dead (its bookings are there to take over).
async fn heartbeat(children: &Children, cluster: &Cluster, heart: &mut Heart, now: Millis) -> bool {
    let shared = &children.shared;
    let ttl = cluster.heartbeat_ttl_ms();
    match cluster.beat(now).await {
        Ok(true) => {
            // Steady while this node's own heartbeat never lapsed: a late
            // beat (a starved process) still counts, a lapse does not.
            if heart.last_beat.is_none_or(|at| now - at >= ttl) {
                heart.steady_since = now;
            }
            heart.last_beat = Some(now);
            heart.fresh_until = now + ttl;
            heart.failing = false;
        }
        Ok(false) => {
            if cluster.lose_name() {
                error!(
                    node = %cluster.node(),
                    "another process took this node's name (this one was paused past its heartbeat and \
                     declared dead): it stops serving bookings for good; restart it"
                );
                children.stop_bookings().await;
            }
            return false;
        }
        Err(error) => {
            if !heart.failing {
                warn!(%error, node = %cluster.node(), "heartbeat not renewed");
                heart.failing = true;
            }
            heart.last_beat = None;
            return false;
        }
    }
    // Only a node whose own heartbeat went steadily for a heartbeat's life
    // judges the others: one just back from a pause or a database outage
    // would find every heartbeat lapsed, the live ones too.
    if now - heart.steady_since < ttl || !cluster.is_serving() {
        return false;
    }
    let lapsed = match shared.storage.lapsed_leases(NODE, now, 64).await {
        Ok(lapsed) => lapsed,
        Err(error) => {
            warn!(%error, "lapsed heartbeats not read");
            return false;
        }
    };
    let mut died = false;
    for lease in lapsed.into_iter().filter(|lease| lease.key != cluster.node()) {
        match shared.storage.bury_node(NODE, &lease.key, now).await {
            Ok(Some(leases)) => {
                warn!(
                    dead = %lease.key,
                    leases,
                    silent_ms = now - lease.expires_at + ttl,
                    node = %cluster.node(),
                    "node declared dead: its heartbeat stopped; its leases lapse now"
                );
                died = true;
            }
            // Another node buried it first: its leases lapsed all the same.
            Ok(None) => died = true,
            Err(error) => warn!(dead = %lease.key, %error, "a dead node not buried"),
        }
    }
    died
}

/// Renews this node's leases and stops serving what it no longer holds;
/// after a TTL without a renewal, stops serving everything. True when the
/// node may take over lapsed leases now.
async fn renew(children: &Children, cluster: &Cluster, renewed_at: &mut Millis, now: Millis) -> bool {
    let shared = &children.shared;
    if !cluster.is_serving() {
        return false;
    }
    match shared.storage.renew_leases(cluster.node(), now, now + cluster.ttl_ms()).await {
        Ok(renewed) => {
            *renewed_at = now;
            // A booking served here whose lease was not renewed lapsed
            // (this process starved past a lease's life, or its heartbeat's
            // and it was buried), and another node may serve it now: stop
            // ours, or two would serve it.
            let renewed: HashSet<String> =
                renewed.into_iter().filter(|lease| lease.kind == BOOKING).map(|lease| lease.key).collect();
            let unrenewed: Vec<BookingId> =
                shared.bookings.keys().into_iter().filter(|id| !renewed.contains(&id.to_string())).collect();
            if !unrenewed.is_empty() {
                stop_lost_bookings(shared, cluster, &unrenewed, now).await;
            }
            true
        }
        Err(error) => {
            warn!(%error, node = %cluster.node(), "leases not renewed");
            if now - *renewed_at >= cluster.ttl_ms() {
                // Others may hold our bookings by now: stop serving them.
                warn!(node = %cluster.node(), "leases lapsed; stopping this node's booking actors");
                children.stop_bookings().await;
            }
            false
        }
    }
}

/// Takes over the bookings whose lease lapsed (their node died, or stopped).
async fn take_over_lapsed(children: &Children, cluster: &Cluster, now: Millis) {
    match children.shared.storage.lapsed_leases(BOOKING, now, TAKEOVER_BATCH).await {
        Ok(lapsed) => {
            for lease in lapsed {
                take_over(children, cluster, lease).await;
            }
        }
        Err(error) => warn!(%error, "lapsed leases not read"),
    }
}

/// Beats this node's heartbeat while the runtime starts (restoring many
/// bookings takes longer than a heartbeat's life), until aborted.
pub(crate) async fn beat_while_starting(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.as_ref() else { return };
    loop {
        shared.clock.sleep_until(shared.now() + cluster.beat_ms().max(1)).await;
        if let Err(error) = cluster.beat(shared.now()).await {
            warn!(%error, "heartbeat not renewed");
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
