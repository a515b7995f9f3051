//! What every actor of one runtime shares: storage, clock, event bus, the
//! catalogue (settings and car types) and the maps of live booking and
//! driver actors. The singletons (index, scheduler, supervisor) are not
//! here: each actor is handed the ones it talks to when it starts.

use crate::batch::BatchRoads;
use crate::clock::Clock;
use crate::cluster::{Cluster, ClusterOptions};
use crate::dispatch_log::DispatchLogSender;
use crate::error::ActorResult;
use crate::events::{DispatchEntry, Event, EventBus};
use crate::protocol::{BookingMsg, DriverFact, DriverMsg, Origin};
use ractor::ActorRef;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use wayfare_engine::reposition;
use wayfare_engine::{BookingId, CarType, Millis, Settings, UserId};
use wayfare_storage::Storage;

/// Settings and car types as the engine reads them. Replaced whole when an
/// admin changes them, so readers never see half an update.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub settings: Settings,
    pub car_types: Vec<CarType>,
}

impl Catalog {
    pub fn car_type(&self, name: &str) -> Option<&CarType> {
        self.car_types.iter().find(|car_type| car_type.name == name)
    }
}

/// A map of live actors by key; cheap to read from any task.
#[derive(Debug)]
pub struct Registry<K, M> {
    actors: RwLock<HashMap<K, ActorRef<M>>>,
}

impl<K: std::hash::Hash + Eq + Copy, M> Default for Registry<K, M> {
    fn default() -> Self {
        Registry { actors: RwLock::new(HashMap::new()) }
    }
}

impl<K: std::hash::Hash + Eq + Copy, M> Registry<K, M> {
    pub fn get(&self, key: &K) -> Option<ActorRef<M>> {
        self.actors.read().expect("registry lock").get(key).cloned()
    }

    pub fn insert(&self, key: K, actor: ActorRef<M>) {
        self.actors.write().expect("registry lock").insert(key, actor);
    }

    /// Removes the entry only if it is still this actor (a restarted actor
    /// may have replaced it already).
    pub fn remove_if(&self, key: &K, actor_id: ractor::ActorId) {
        let mut actors = self.actors.write().expect("registry lock");
        if actors.get(key).is_some_and(|actor| actor.get_id() == actor_id) {
            actors.remove(key);
        }
    }

    pub fn len(&self) -> usize {
        self.actors.read().expect("registry lock").len()
    }

    pub fn contains(&self, key: &K) -> bool {
        self.actors.read().expect("registry lock").contains_key(key)
    }

    pub fn keys(&self) -> Vec<K> {
        self.actors.read().expect("registry lock").keys().copied().collect()
    }

    pub fn all(&self) -> Vec<(K, ActorRef<M>)> {
        self.actors.read().expect("registry lock").iter().map(|(key, actor)| (*key, actor.clone())).collect()
    }
}

/// Positions waiting to be written to storage; the writer task drains it.
#[derive(Debug, Default)]
pub struct PositionSink {
    pending: std::sync::Mutex<HashMap<UserId, wayfare_engine::LatLng>>,
}

impl PositionSink {
    pub fn put(&self, driver: UserId, position: wayfare_engine::LatLng) {
        self.pending.lock().expect("sink lock").insert(driver, position);
    }

    pub fn drain(&self) -> Vec<(UserId, wayfare_engine::LatLng)> {
        self.pending.lock().expect("sink lock").drain().collect()
    }
}

/// Tunables of the runtime.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// How long a caller waits for an actor's answer. `None` waits as long
    /// as it takes: paused-time tests use it, since tokio would otherwise
    /// jump its clock to the time-out while storage works on another thread.
    pub call_timeout: Option<Duration>,
    /// How often driver positions are written to storage.
    pub location_flush: Duration,
    /// A tracking point is stored during a trip at most this often...
    pub tracking_every_ms: Millis,
    /// ...or when the driver moved this far since the last one.
    pub tracking_every_km: f64,
    /// `DriverMoved` events per driver at most this often.
    pub moved_event_every_ms: Millis,
    pub event_capacity: usize,
    /// Where the `batch` policy times pickups on roads; `None` times them in
    /// straight lines.
    pub batch_roads: Option<BatchRoads>,
    /// Several nodes on one database: serve only the bookings leased
    /// (`crate::cluster`). `None` on one node.
    pub cluster: Option<ClusterOptions>,
    /// How idle drivers are pointed to where riders are expected (the
    /// riders' local hour among them).
    pub reposition: reposition::Settings,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            call_timeout: Some(Duration::from_secs(10)),
            location_flush: Duration::from_secs(2),
            tracking_every_ms: 5_000,
            tracking_every_km: 0.05,
            moved_event_every_ms: 1_000,
            event_capacity: 65_536,
            batch_roads: None,
            cluster: None,
            reposition: reposition::Settings::default(),
        }
    }
}

pub struct Shared {
    pub storage: Arc<dyn Storage>,
    pub clock: Arc<dyn Clock>,
    pub bus: EventBus,
    pub options: RuntimeOptions,
    catalog: RwLock<Arc<Catalog>>,
    pub bookings: Registry<BookingId, BookingMsg>,
    pub drivers: Registry<UserId, DriverMsg>,
    pub positions: PositionSink,
    pub(crate) dispatch_log: DispatchLogSender,
    /// Cluster mode's state (`crate::cluster`): leases, the link, driver
    /// facts for the other nodes. `None` on one node.
    pub(crate) cluster: Option<Cluster>,
}

impl Shared {
    pub(crate) fn new(
        storage: Arc<dyn Storage>,
        clock: Arc<dyn Clock>,
        options: RuntimeOptions,
        catalog: Catalog,
        dispatch_log: DispatchLogSender,
        cluster: Option<Cluster>,
    ) -> Self {
        Shared {
            storage,
            clock,
            bus: EventBus::new(options.event_capacity),
            options,
            catalog: RwLock::new(Arc::new(catalog)),
            bookings: Registry::default(),
            drivers: Registry::default(),
            positions: PositionSink::default(),
            dispatch_log,
            cluster,
        }
    }

    pub fn now(&self) -> Millis {
        self.clock.now()
    }

    /// A dispatch log entry: to storage (the booking's timeline) and to the
    /// console's live log.
    pub fn log_dispatch(&self, entry: DispatchEntry) {
        self.dispatch_log.send(entry.clone());
        self.bus.publish(Event::Dispatch(entry));
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().expect("catalog lock").clone()
    }

    pub fn set_catalog(&self, catalog: Catalog) {
        *self.catalog.write().expect("catalog lock") = Arc::new(catalog);
    }

    /// Whether this node may serve the booking: always on one node; in a
    /// cluster, while it holds the booking's lease.
    pub(crate) async fn lease_booking(&self, id: BookingId) -> ActorResult<bool> {
        match &self.cluster {
            Some(cluster) => cluster.lease_booking(id).await,
            None => Ok(true),
        }
    }

    /// Gives up a finished booking's lease (in a cluster).
    pub(crate) async fn release_booking(&self, id: BookingId) {
        if let Some(cluster) = &self.cluster {
            cluster.release_booking(id).await;
        }
    }

    /// A fact born here: to the local driver actor and, in a cluster, to the
    /// other nodes.
    pub(crate) fn tell_driver(&self, fact: DriverFact) {
        if let (Some(actor), Some(message)) = (self.drivers.get(&fact.driver()), fact.message(Origin::Here)) {
            let _ = actor.cast(message);
        }
        self.replicate(fact);
    }

    /// In a cluster, hands a fact born here to the edge for the other nodes.
    pub(crate) fn replicate(&self, fact: DriverFact) {
        if let Some(cluster) = &self.cluster {
            cluster.replicate(fact);
        }
    }
}
