//! What every actor of one runtime shares: storage, clock, event bus, the
//! catalogue (settings and car types) and the maps of live booking and
//! driver actors. The singletons (index, scheduler, supervisor) are not
//! here: each actor is handed the ones it talks to when it starts.

use crate::batch::BatchRoads;
use crate::clock::Clock;
use crate::dispatch_log::DispatchLogSender;
use crate::events::{DispatchEntry, Event, EventBus};
use crate::lease::{ClusterOptions, Forward};
use crate::protocol::{BookingMsg, DriverFact, DriverMsg};
use ractor::ActorRef;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
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
    /// (`crate::lease`). `None` on one node.
    pub cluster: Option<ClusterOptions>,
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
    /// In a cluster: driver facts born here, for the edge to send the other
    /// nodes (`crate::replica`).
    pub(crate) replication: Option<tokio::sync::mpsc::UnboundedSender<DriverFact>>,
    /// In a cluster: false while this node is fenced (it lost its link to
    /// the others): it then takes no lease, so serves no booking.
    pub(crate) serving: std::sync::atomic::AtomicBool,
    /// In a cluster: false while the link is down but the node not yet
    /// fenced: it keeps serving its bookings and takes no new one.
    pub(crate) accepting: std::sync::atomic::AtomicBool,
    /// In a cluster: how a command reaches the node serving its booking.
    pub(crate) forward: std::sync::OnceLock<Arc<dyn Forward>>,
    /// Bookings taken over from dead nodes (a metric).
    pub(crate) taken_over: std::sync::atomic::AtomicU64,
}

impl Shared {
    pub(crate) fn new(
        storage: Arc<dyn Storage>,
        clock: Arc<dyn Clock>,
        options: RuntimeOptions,
        catalog: Catalog,
        dispatch_log: DispatchLogSender,
        replication: Option<tokio::sync::mpsc::UnboundedSender<DriverFact>>,
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
            replication,
            serving: std::sync::atomic::AtomicBool::new(true),
            accepting: std::sync::atomic::AtomicBool::new(true),
            forward: std::sync::OnceLock::new(),
            taken_over: std::sync::atomic::AtomicU64::new(0),
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
}
