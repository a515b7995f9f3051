//! Cluster mode (issue #17): several nodes on one database. Everything that
//! exists only then lives in this folder, behind one field,
//! `Shared::cluster` (`None` on one node), so a reader of the single-node
//! runtime can skip it.
//!
//! - Here: [`ClusterOptions`], the [`Forward`] trait the edge implements, and
//!   [`Cluster`], this node's cluster state: its leases' primitives, whether
//!   its link to the others is up (serving, accepting), the forwarder, the
//!   driver facts born here for the edge to send, and the keeper's task.
//! - `lease`: a node serves a booking (its actor and timers) only while it
//!   holds the booking's lease; the keeper renews them, takes over a dead
//!   node's bookings, and stops actors whose lease was lost.
//! - `replica`: every node keeps every online driver; a fact about a driver
//!   born elsewhere is applied to this node's replica.
//!
//! The storage version check stays the last guard: a node that lost its
//! lease without knowing (a long pause) can at worst lose a compare-and-set,
//! never write over another's transition.

pub(crate) mod lease;
pub(crate) mod replica;

use crate::clock::Clock;
use crate::error::{ActorError, ActorResult};
use crate::protocol::DriverFact;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{info, warn};
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{Booking, BookingId, Millis};
use wayfare_storage::Storage;

/// The lease kind of a booking; its key is the booking id.
pub const BOOKING: &str = "booking";
/// The lease kind of a node's heartbeat: its key is the node's name, its
/// holder the process (`Cluster::instance`), renewed four times a
/// `heartbeat_ttl`.
pub const NODE: &str = "node";

/// This node in a cluster.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// The node's name, unique in the cluster (the leases say who holds what).
    pub node: String,
    /// How long a lease lasts unless renewed: the bookings of a node whose
    /// heartbeat was not seen to stop (the survivors were starved too) are
    /// taken over within about this long.
    pub lease_ttl: Duration,
    /// How long a node's heartbeat lasts unless renewed (four times in it):
    /// the other nodes declare it dead and take its bookings over once it
    /// lapsed, and a node under the same name may start.
    pub heartbeat_ttl: Duration,
}

impl ClusterOptions {
    fn ttl_ms(&self) -> Millis {
        self.lease_ttl.as_millis() as Millis
    }

    fn heartbeat_ms(&self) -> Millis {
        (self.heartbeat_ttl.as_millis() as Millis).max(4)
    }
}

/// Carries a command to the node serving its booking and brings back the
/// committed booking or the refusal (the edge's job: Redis in `wayfare-http`).
#[async_trait::async_trait]
pub trait Forward: Send + Sync {
    async fn command(&self, node: &str, id: BookingId, by: By, command: Command) -> ActorResult<Arc<Booking>>;
}

/// The refusal of a command whose booking another node serves and that is
/// not sent on.
pub(crate) fn served_elsewhere(id: BookingId) -> ActorError {
    ActorError::Unavailable(format!("booking {id} is served by another node"))
}

/// This node's part in the cluster.
pub(crate) struct Cluster {
    options: ClusterOptions,
    /// This process: the holder of the node's heartbeat, so that another
    /// process under the same name is told apart.
    instance: String,
    /// Another process took this node's name (this one was paused past its
    /// heartbeat): it serves nothing again.
    name_lost: AtomicBool,
    storage: Arc<dyn Storage>,
    clock: Arc<dyn Clock>,
    /// False while this node is fenced (it lost its link to the others): it
    /// then takes no lease, so serves no booking.
    serving: AtomicBool,
    /// False while the link is down but the node not yet fenced: it keeps
    /// serving its bookings and takes no new one.
    accepting: AtomicBool,
    /// How a command reaches the node serving its booking.
    forward: OnceLock<Arc<dyn Forward>>,
    /// Driver facts born here, for the edge to send the other nodes...
    replication: mpsc::UnboundedSender<DriverFact>,
    /// ...and their receiving end, until the edge takes it.
    driver_facts: Mutex<Option<mpsc::UnboundedReceiver<DriverFact>>>,
    /// Bookings taken over from dead nodes (a metric).
    taken_over: AtomicU64,
    /// The lease keeper's task (`lease::keep`).
    keeper: Mutex<Option<JoinHandle<()>>>,
}

impl Cluster {
    pub(crate) fn new(options: ClusterOptions, storage: Arc<dyn Storage>, clock: Arc<dyn Clock>) -> Self {
        let (replication, driver_facts) = mpsc::unbounded_channel();
        // The pid for people, v7's random tail for processes of one pid
        // (two runtimes in one test process).
        let instance = format!("{}:{}", std::process::id(), &uuid::Uuid::now_v7().simple().to_string()[20..]);
        Cluster {
            options,
            instance,
            name_lost: AtomicBool::new(false),
            storage,
            clock,
            serving: AtomicBool::new(true),
            accepting: AtomicBool::new(true),
            forward: OnceLock::new(),
            replication,
            driver_facts: Mutex::new(Some(driver_facts)),
            taken_over: AtomicU64::new(0),
            keeper: Mutex::new(None),
        }
    }

    pub(crate) fn node(&self) -> &str {
        &self.options.node
    }

    pub(crate) fn ttl_ms(&self) -> Millis {
        self.options.ttl_ms()
    }

    pub(crate) fn heartbeat_ttl_ms(&self) -> Millis {
        self.options.heartbeat_ms()
    }

    /// How often the heartbeat is renewed.
    pub(crate) fn beat_ms(&self) -> Millis {
        self.options.heartbeat_ms() / 4
    }

    /// Renews (or takes) this node's heartbeat: false when another process
    /// holds the name, fresh.
    pub(crate) async fn beat(&self, now: Millis) -> ActorResult<bool> {
        let ttl = self.heartbeat_ttl_ms();
        Ok(self.storage.acquire_lease(NODE, self.node(), &self.instance, now, now + ttl).await?)
    }

    /// Takes this node's name at start. A heartbeat under it that lapses
    /// within a heartbeat's life was a process that died (a restart after a
    /// SIGKILL); one still renewed after that is a live node, and this one
    /// refuses to start: two live nodes under one name would both believe
    /// they hold the same leases.
    pub(crate) async fn claim_name(&self) -> ActorResult<()> {
        let patience = Duration::from_millis((self.heartbeat_ttl_ms() + 2 * self.beat_ms()) as u64);
        let give_up = std::time::Instant::now() + patience;
        loop {
            if self.beat(self.clock.now()).await? {
                return Ok(());
            }
            if std::time::Instant::now() >= give_up {
                let holder = self.storage.lease(NODE, self.node()).await?.map(|lease| lease.node).unwrap_or_default();
                return Err(ActorError::Unavailable(format!(
                    "another live node is named {:?} (process {holder}; its heartbeat was renewed for {} ms while \
                     this one waited): give this node another name (--node or cluster.node) or stop the other",
                    self.node(),
                    patience.as_millis()
                )));
            }
            // Real time: the other process beats on its own clock.
            tokio::time::sleep(Duration::from_millis(self.beat_ms() as u64)).await;
        }
    }

    /// Gives the name up at a graceful stop, for a restart to take at once.
    pub(crate) async fn release_name(&self) {
        if let Err(error) = self.storage.release_lease(NODE, self.node(), &self.instance).await {
            warn!(%error, "heartbeat not released; it will lapse");
        }
    }

    /// Another process holds this node's name: this one stops serving for
    /// good (it was declared dead while paused, and a node restarted under
    /// its name). False when it was already known.
    pub(crate) fn lose_name(&self) -> bool {
        self.serving.store(false, Ordering::Release);
        !self.name_lost.swap(true, Ordering::AcqRel)
    }

    /// Takes or keeps the lease of a booking: true when this node may serve it.
    pub(crate) async fn lease_booking(&self, id: BookingId) -> ActorResult<bool> {
        if !(self.is_serving() && self.accepting.load(Ordering::Acquire)) {
            return Ok(false);
        }
        let now = self.clock.now();
        let key = id.to_string();
        Ok(self.storage.acquire_lease(BOOKING, &key, self.node(), now, now + self.ttl_ms()).await?)
    }

    /// Gives up a finished booking's lease (the keeper would renew it forever).
    pub(crate) async fn release_booking(&self, id: BookingId) {
        if let Err(error) = self.storage.release_lease(BOOKING, &id.to_string(), self.node()).await {
            warn!(booking_id = %id, %error, "booking lease not released; it will lapse");
        }
    }

    /// Lets every lease of this node lapse at once, for the others to take
    /// at their next round.
    pub(crate) async fn release_node_leases(&self) {
        if let Err(error) = self.storage.release_node_leases(self.node()).await {
            warn!(%error, "leases not released; they will lapse");
        }
    }

    /// A command for a booking leased by another node, sent to that node.
    pub(crate) async fn forward(&self, id: BookingId, by: By, command: Command) -> ActorResult<Arc<Booking>> {
        let Some(forwarder) = self.forward.get() else { return Err(served_elsewhere(id)) };
        match self.storage.lease(BOOKING, &id.to_string()).await? {
            Some(lease) if lease.node != self.node() => forwarder.command(&lease.node, id, by, command).await,
            // Ours but lapsed and not yet taken back, or being handed over.
            _ => Err(ActorError::Unavailable(format!("booking {id} is changing nodes"))),
        }
    }

    pub(crate) fn set_forwarder(&self, forwarder: Arc<dyn Forward>) {
        let _ = self.forward.set(forwarder);
    }

    /// Hands a fact born here to the edge, for the other nodes.
    pub(crate) fn replicate(&self, fact: DriverFact) {
        // The edge stopped: the node is going down.
        let _ = self.replication.send(fact);
    }

    /// The driver facts born here; `Some` once.
    pub(crate) fn take_driver_facts(&self) -> Option<mpsc::UnboundedReceiver<DriverFact>> {
        self.driver_facts.lock().expect("driver facts lock").take()
    }

    pub(crate) fn is_serving(&self) -> bool {
        self.serving.load(Ordering::Acquire)
    }

    /// Stops serving; false when it already had.
    pub(crate) fn stop_serving(&self) -> bool {
        self.serving.swap(false, Ordering::AcqRel)
    }

    /// Serves bookings again after a fence: the keeper takes lapsed leases
    /// at its next round.
    pub(crate) fn unfence(&self) {
        if self.name_lost.load(Ordering::Acquire) {
            return;
        }
        if !self.serving.swap(true, Ordering::AcqRel) {
            info!("link back: serving bookings again");
        }
    }

    pub(crate) fn set_accepting(&self, accepting: bool) {
        self.accepting.store(accepting, Ordering::Release);
    }

    pub(crate) fn count_takeover(&self) {
        self.taken_over.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn taken_over(&self) -> u64 {
        self.taken_over.load(Ordering::Relaxed)
    }

    pub(crate) fn set_keeper(&self, keeper: JoinHandle<()>) {
        *self.keeper.lock().expect("keeper lock") = Some(keeper);
    }

    pub(crate) fn stop_keeper(&self) {
        if let Some(keeper) = self.keeper.lock().expect("keeper lock").take() {
            keeper.abort();
        }
    }
}
