//! The handle that starts the dispatch runtime from a `Storage` and is how the
//! edge talks to it. The methods at the end serve cluster mode
//! (`crate::cluster`); on one node they have nothing to do.

use crate::clock::Clock;
use crate::cluster::{self, Cluster, Forward, lease, replica};
use crate::dispatch_log;
use crate::error::{ActorError, ActorResult, unwrap_call};
use crate::events::{DispatchEntry, Event, EventBus};
use crate::index::SpatialIndexActor;
use crate::protocol::{
    BookingArgs, BookingMsg, DriverFact, DriverMsg, DriverPosition, DriverView, IndexCounts, IndexMsg, LocationUpdate,
    Origin, SchedulerMsg, SupervisorCounts, SupervisorMsg, Wave,
};
use crate::scheduler::SchedulerActor;
use crate::shared::{Catalog, RuntimeOptions, Shared};
use crate::supervisor::{Children, Supervisor};
use ractor::{Actor, ActorRef};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use tracing::{info, warn};
use wayfare_engine::booking::{self, By, Command, Context, Effect, NewBooking, Transition};
use wayfare_engine::dispatch::{Candidate, DriverIndex};
use wayfare_engine::reposition::{self, SuggestedArea};
use wayfare_engine::{Booking, BookingId, DomainError, ErrorKey, LatLng, Millis, User, UserId};
use wayfare_storage::Storage;

/// Live counts for tests, metrics and the console.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct RuntimeCounts {
    pub active_bookings: usize,
    /// Booking actors running: a finished booking's stops (issue #34).
    pub booking_actors: usize,
    pub by_status: BTreeMap<String, usize>,
    pub online_drivers: usize,
    pub available_drivers: usize,
    pub booking_restarts: u64,
    pub driver_restarts: u64,
    pub pending_timers: usize,
    /// Bookings this node took over from a node that stopped renewing
    /// its leases (cluster mode).
    pub taken_over: u64,
}

#[derive(Clone)]
pub struct Runtime {
    shared: Arc<Shared>,
    index: ActorRef<IndexMsg>,
    scheduler: ActorRef<SchedulerMsg>,
    /// The booking and driver actors, through their supervisor.
    children: Children,
    writer: Arc<JoinHandle<()>>,
    log_writer: Arc<JoinHandle<()>>,
}

/// Reads the last week's pickups into the index's demand model, beside the
/// start (a big city's week takes a moment): until then areas come from the
/// bookings made since.
async fn seed_demand(storage: Arc<dyn Storage>, index: ActorRef<IndexMsg>, now: Millis) {
    // Up to this very moment: a booking made just before a restart counts.
    match storage.recent_pickups(now - reposition::HISTORY_MS, now + 1, reposition::HISTORY_LIMIT).await {
        Ok(pickups) => {
            info!(bookings = pickups.len(), "demand of the last days read");
            let _ = index.cast(IndexMsg::SeedDemand { pickups });
        }
        Err(error) => warn!(%error, "the last days' demand could not be read; areas come as riders book"),
    }
}

impl Runtime {
    /// Starts every actor and restores the live state from storage: online
    /// drivers into the index, every active booking with its timers.
    pub async fn start(
        storage: Arc<dyn Storage>,
        clock: Arc<dyn Clock>,
        options: RuntimeOptions,
    ) -> ActorResult<Runtime> {
        let settings = storage.settings().await?.unwrap_or_default();
        let car_types = storage.car_types().await?;
        let (dispatch_log, log_inbox) = dispatch_log::channel();
        let log_writer = Arc::new(tokio::spawn(dispatch_log::write_behind(storage.clone(), clock.clone(), log_inbox)));
        let catalog = Catalog { settings, car_types };
        let cluster = options.cluster.clone().map(|cluster| Cluster::new(cluster, storage.clone(), clock.clone()));
        let shared = Arc::new(Shared::new(storage.clone(), clock, options, catalog, dispatch_log, cluster));
        // In a cluster: this node's name first (a live node under it stops
        // this one here), then its heartbeat for as long as it starts.
        let mut beating = None;
        if let Some(cluster) = &shared.cluster {
            cluster.claim_name().await?;
            storage.fence_booking_writes(cluster.node());
            beating = Some(tokio::spawn(lease::beat_while_starting(shared.clone())));
        }

        let online = storage.online_drivers().await?;
        let mut index = DriverIndex::new();
        for driver in &online {
            index.upsert_user(driver);
        }
        // In the order each needs the others: the index and the scheduler
        // need nobody; the supervisor hands both to every actor it spawns.
        let (index, _) = Actor::spawn(None, SpatialIndexActor { shared: shared.clone() }, index)
            .await
            .map_err(|error| ActorError::Unavailable(error.to_string()))?;
        tokio::spawn(seed_demand(storage.clone(), index.clone(), shared.now()));
        let (scheduler, _) = Actor::spawn(None, SchedulerActor { shared: shared.clone() }, ())
            .await
            .map_err(|error| ActorError::Unavailable(error.to_string()))?;
        let supervisor = Supervisor { shared: shared.clone(), index: index.clone(), scheduler: scheduler.clone() };
        let (supervisor, _) =
            Actor::spawn(None, supervisor, ()).await.map_err(|error| ActorError::Unavailable(error.to_string()))?;
        let children = Children { shared: shared.clone(), supervisor, index: index.clone() };
        let writer = Arc::new(tokio::spawn(write_positions_behind(shared.clone())));
        let runtime = Runtime { shared, index, scheduler, children, writer, log_writer };

        for driver in online {
            runtime.children.spawn_driver(driver).await?;
        }
        // In a cluster, the bookings no other live node serves.
        let active = storage.active_bookings().await?;
        let mut restored = 0;
        for booking in active {
            if !runtime.shared.lease_booking(booking.id).await? {
                continue;
            }
            let booking = runtime.read_leased(booking.id).await?.unwrap_or(booking);
            if booking.status.is_active() {
                runtime.children.spawn_booking(BookingArgs::restored(booking)).await?;
                restored += 1;
            }
        }
        if let Some(cluster) = &runtime.shared.cluster {
            if let Some(beating) = beating {
                beating.abort();
            }
            cluster.set_keeper(tokio::spawn(lease::keep(runtime.children.clone(), runtime.now())));
        }
        info!(restored, drivers = runtime.shared.drivers.len(), "runtime started");
        Ok(runtime)
    }

    pub fn now(&self) -> Millis {
        self.shared.now()
    }

    pub fn bus(&self) -> &EventBus {
        &self.shared.bus
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.shared.bus.subscribe()
    }

    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.shared.storage
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        self.shared.catalog()
    }

    /// Reads settings and car types again, after an admin changed them.
    pub async fn reload_catalog(&self) -> ActorResult<()> {
        let settings = self.shared.storage.settings().await?.unwrap_or_default();
        let car_types = self.shared.storage.car_types().await?;
        self.shared.set_catalog(Catalog { settings, car_types });
        Ok(())
    }

    /// Makes a booking (engine), stores it with its first wave of offers
    /// when dispatch has one ready, and starts its actor, which publishes
    /// them, asks for offers otherwise, and sets its timers.
    pub async fn create_booking(
        &self,
        car_type: &str,
        request: NewBooking,
        customer: &User,
        by: By,
    ) -> ActorResult<Arc<Booking>> {
        let catalog = self.shared.catalog();
        let now = self.shared.now();
        let context = Context { now, settings: &catalog.settings, car_type: catalog.car_type(car_type) };
        let id = BookingId(uuid::Uuid::now_v7());
        let mut transition = booking::create(id, request, customer, by, &context, &mut rand::rng())?;
        // A fenced node takes no booking (a new id's lease is otherwise free).
        if !self.shared.lease_booking(id).await? {
            return Err(ActorError::Unavailable("this node is not serving bookings".into()));
        }
        // One commit for the booking and its first offers, not two in a row.
        let mut offer_distances = HashMap::new();
        if transition.requests_dispatch()
            && let Some(wave) = self.first_wave(&transition.booking).await
        {
            let drivers = wave.candidates.iter().map(|candidate| candidate.driver).collect();
            match transition.with_offer(drivers, wave.wave, wave.deadline, &context) {
                Ok(offered) => {
                    transition = offered;
                    offer_distances =
                        wave.candidates.iter().map(|candidate| (candidate.driver, candidate.distance_km)).collect();
                }
                Err(error) => warn!(booking_id = %id, %error, "first wave refused; dispatching after creation"),
            }
        }
        let committed =
            match self.shared.storage.commit_booking(&transition.booking, None, &transition.effects, now).await {
                Ok(committed) => committed,
                Err(error) => {
                    self.shared.release_booking(id).await;
                    return Err(error.into());
                }
            };
        let booking = Arc::new(committed.booking.clone());
        let args = BookingArgs { booking: committed.booking, effects: transition.effects, offer_distances };
        self.children.spawn_booking(args).await?;
        Ok(booking)
    }

    /// The first wave the index would offer a new booking, if any; a slow
    /// index only means the booking's actor asks for it after creation.
    async fn first_wave(&self, booking: &Booking) -> Option<Wave> {
        let booking = Arc::new(booking.clone());
        let reply =
            self.index.call(|reply| IndexMsg::FirstWave { booking, reply }, self.shared.options.call_timeout).await;
        match reply {
            Ok(ractor::rpc::CallResult::Success(wave)) => wave,
            _ => None,
        }
    }

    /// In a cluster, a booking read again once its lease is taken: a read
    /// from before may be stale (another node finished the booking, then
    /// released its lease), and an actor must start from what the lease
    /// holder may write over. A finished booking's lease goes back at once.
    /// `None` on one node, where nobody else writes.
    async fn read_leased(&self, id: BookingId) -> ActorResult<Option<Booking>> {
        if self.shared.cluster.is_none() {
            return Ok(None);
        }
        let booking = self.shared.storage.booking(id).await?;
        if !booking.status.is_active() {
            self.shared.release_booking(id).await;
        }
        Ok(Some(booking))
    }

    /// Sends a command to a booking's actor and waits for the committed
    /// result; in a cluster, to the node serving the booking.
    pub async fn command(&self, id: BookingId, by: By, command: Command) -> ActorResult<Arc<Booking>> {
        self.command_at(id, by, command, true).await
    }

    /// A command another node forwarded: served here or refused, never sent
    /// on (two nodes disagreeing about a lease must not bounce it forever).
    pub async fn command_here(&self, id: BookingId, by: By, command: Command) -> ActorResult<Arc<Booking>> {
        self.command_at(id, by, command, false).await
    }

    async fn command_at(&self, id: BookingId, by: By, command: Command, forward: bool) -> ActorResult<Arc<Booking>> {
        let actor = match self.shared.bookings.get(&id) {
            Some(actor) => actor,
            None => {
                let mut stored = self.shared.storage.booking(id).await?;
                if stored.status.is_active() {
                    // In a cluster another live node may serve it.
                    if !self.shared.lease_booking(id).await? {
                        return match self.shared.cluster.as_ref().filter(|_| forward) {
                            Some(cluster) => cluster.forward(id, by, command).await,
                            None => Err(cluster::served_elsewhere(id)),
                        };
                    }
                    stored = self.read_leased(id).await?.unwrap_or(stored);
                }
                if !stored.status.is_active() {
                    // Finished bookings have no actor; the engine gives the right refusal.
                    let catalog = self.shared.catalog();
                    let context = Context {
                        now: self.now(),
                        settings: &catalog.settings,
                        car_type: catalog.car_type(&stored.carType),
                    };
                    let is_refund = matches!(command, Command::Refund { .. });
                    let transition = booking::apply(&stored, by, command, &context)?;
                    if is_refund {
                        return self.commit_finished(&stored, transition).await;
                    }
                    return Err(DomainError::new(ErrorKey::StatusNotAllowed).into());
                }
                self.children.spawn_booking(BookingArgs::restored(stored)).await?
            }
        };
        let reply = actor
            .call(|reply| BookingMsg::Command { by, command, reply: Some(reply) }, self.shared.options.call_timeout)
            .await?;
        unwrap_call(reply)?
    }

    /// A change to a finished booking (a refund): nobody else writes it, so
    /// it is committed here against the version read, and told as an actor
    /// would tell it.
    async fn commit_finished(&self, stored: &Booking, transition: Transition) -> ActorResult<Arc<Booking>> {
        let now = self.now();
        let committed = self
            .shared
            .storage
            .commit_booking(&transition.booking, Some(stored.version), &transition.effects, now)
            .await?;
        let booking = Arc::new(committed.booking);
        let bus = &self.shared.bus;
        bus.publish(Event::BookingChanged(booking.clone()));
        for effect in &transition.effects {
            if let Effect::Notify { to, key } = effect {
                bus.publish(Event::Notification { to: *to, key: *key, booking: Some(booking.id) });
            }
        }
        for (user, balance) in committed.balances {
            bus.publish(Event::WalletChanged { user, balance });
        }
        Ok(booking)
    }

    /// The live booking, or the stored one when it has no actor.
    pub async fn booking(&self, id: BookingId) -> ActorResult<Arc<Booking>> {
        if let Some(actor) = self.shared.bookings.get(&id)
            && let Ok(reply) = actor.call(BookingMsg::Snapshot, self.shared.options.call_timeout).await
            && let Ok(booking) = unwrap_call(reply)
        {
            return Ok(booking);
        }
        Ok(Arc::new(self.shared.storage.booking(id).await?))
    }

    /// Waits until every dispatch log entry made so far is in storage.
    pub async fn flush_dispatch_log(&self) {
        self.shared.dispatch_log.flush().await;
    }

    /// A booking's dispatch timeline from storage, oldest first, including
    /// every entry made before the call (read your writes).
    pub async fn dispatch_timeline(&self, booking: BookingId) -> ActorResult<Vec<DispatchEntry>> {
        self.flush_dispatch_log().await;
        Ok(self.shared.storage.dispatch_events(booking).await?)
    }

    /// The newest `limit` dispatch log entries of every booking, newest first,
    /// with everything logged so far written.
    pub async fn recent_dispatch_log(&self, limit: u32) -> ActorResult<Vec<DispatchEntry>> {
        self.flush_dispatch_log().await;
        Ok(self.shared.storage.recent_dispatch_events(limit).await?)
    }

    /// A driver goes online: stored, then an actor and an index entry.
    pub async fn driver_online(&self, driver: &User) -> ActorResult<()> {
        let now = self.now();
        self.shared.storage.set_driver_active(driver.id, true, now).await?;
        let mut user = driver.clone();
        user.driverActiveStatus = true;
        self.children.spawn_driver(user).await?;
        self.shared.replicate(DriverFact::Online { driver: driver.id });
        Ok(())
    }

    /// A driver goes offline: stored, actor stopped, out of the index.
    pub async fn driver_offline(&self, driver: UserId) -> ActorResult<()> {
        self.shared.storage.set_driver_active(driver, false, self.now()).await?;
        self.children.remove_driver(driver).await;
        self.shared.replicate(DriverFact::Offline { driver });
        Ok(())
    }

    /// A position from a driver's device; accepted when the driver is online.
    pub fn driver_location(&self, driver: UserId, update: LocationUpdate) -> ActorResult<()> {
        if !update.point().is_valid() {
            return Err(DomainError::on_field(ErrorKey::InvalidInput, "location").into());
        }
        let actor = self.shared.drivers.get(&driver).ok_or_else(|| DomainError::new(ErrorKey::DriverNotEligible))?;
        actor
            .cast(DriverMsg::Location(update, Origin::Here))
            .map_err(|error| ActorError::Unavailable(error.to_string()))?;
        self.shared.replicate(DriverFact::Location { driver, update });
        Ok(())
    }

    pub async fn driver(&self, driver: UserId) -> Option<DriverView> {
        let actor = self.shared.drivers.get(&driver)?;
        let reply = actor.call(DriverMsg::Snapshot, self.shared.options.call_timeout).await.ok()?;
        unwrap_call(reply).ok()
    }

    pub fn is_online(&self, driver: UserId) -> bool {
        self.shared.drivers.get(&driver).is_some()
    }

    /// Every online driver's position, for the console's live map.
    pub async fn driver_positions(&self) -> ActorResult<Vec<DriverPosition>> {
        let reply = self.index.call(IndexMsg::Positions, self.shared.options.call_timeout).await?;
        unwrap_call(reply)
    }

    pub async fn nearest(
        &self,
        car_type: &str,
        point: LatLng,
        radius_km: f64,
        limit: usize,
    ) -> ActorResult<Vec<Candidate>> {
        let car_type = car_type.to_string();
        let reply = self
            .index
            .call(
                |reply| IndexMsg::Nearest { car_type, point, radius_km, limit, reply },
                self.shared.options.call_timeout,
            )
            .await?;
        unwrap_call(reply)
    }

    /// Where a free driver could wait for riders, if somewhere near beats
    /// where they are (`engine::reposition`).
    pub async fn suggest_area(&self, driver: UserId) -> ActorResult<Option<SuggestedArea>> {
        let reply =
            self.index.call(|reply| IndexMsg::SuggestArea { driver, reply }, self.shared.options.call_timeout).await?;
        unwrap_call(reply)
    }

    /// The drivers an admin may assign `booking` to, nearest its pickup
    /// first, from the live index (`dispatch::manual_candidates`: a booking
    /// that is not NEW is `status_not_allowed`).
    pub async fn assign_candidates(&self, booking: Arc<Booking>, limit: usize) -> ActorResult<Vec<Candidate>> {
        let reply = self
            .index
            .call(|reply| IndexMsg::Candidates { booking, limit, reply }, self.shared.options.call_timeout)
            .await?;
        Ok(unwrap_call(reply)??)
    }

    /// Answers when the core actors do (a readiness check: it costs two
    /// messages, whatever the number of bookings).
    pub async fn ping(&self) -> ActorResult<()> {
        let timeout = self.shared.options.call_timeout;
        unwrap_call(self.index.call(IndexMsg::Counts, timeout).await?)?;
        unwrap_call(self.scheduler.call(SchedulerMsg::Pending, timeout).await?)?;
        Ok(())
    }

    pub async fn counts(&self) -> ActorResult<RuntimeCounts> {
        let timeout = self.shared.options.call_timeout;
        let mut by_status = BTreeMap::new();
        let live = self.shared.bookings.all();
        for (_, actor) in &live {
            if let Ok(reply) = actor.call(BookingMsg::Snapshot, timeout).await
                && let Ok(booking) = unwrap_call(reply)
                && booking.status.is_active()
            {
                *by_status.entry(booking.status.as_str().to_string()).or_insert(0) += 1;
            }
        }
        let index: IndexCounts = unwrap_call(self.index.call(IndexMsg::Counts, timeout).await?)?;
        let restarts: SupervisorCounts =
            unwrap_call(self.children.supervisor.call(SupervisorMsg::Counts, timeout).await?)?;
        let pending_timers = unwrap_call(self.scheduler.call(SchedulerMsg::Pending, timeout).await?)?;
        Ok(RuntimeCounts {
            active_bookings: by_status.values().sum(),
            booking_actors: live.len(),
            by_status,
            online_drivers: index.online,
            available_drivers: index.available,
            booking_restarts: restarts.booking_restarts,
            driver_restarts: restarts.driver_restarts,
            pending_timers,
            taken_over: self.shared.cluster.as_ref().map_or(0, Cluster::taken_over),
        })
    }

    /// Stops every actor cleanly and writes the last positions.
    pub async fn shutdown(&self) {
        self.stop(true).await;
    }

    /// Stops every actor; a graceful stop also hands this node's leases over
    /// at once (a crash leaves them to lapse).
    async fn stop(&self, release_leases: bool) {
        let timeout = self.shared.options.call_timeout;
        if let Some(cluster) = &self.shared.cluster {
            cluster.stop_keeper();
        }
        self.children.stop_bookings().await;
        if let Some(cluster) = self.shared.cluster.as_ref().filter(|_| release_leases) {
            cluster.release_node_leases().await;
            cluster.release_name().await;
        }
        for (_, actor) in self.shared.drivers.all() {
            actor.stop_and_wait(None, timeout).await.ok();
        }
        self.children.supervisor.stop_and_wait(None, timeout).await.ok();
        self.scheduler.stop_and_wait(None, timeout).await.ok();
        self.index.stop_and_wait(None, timeout).await.ok();
        self.writer.abort();
        flush_positions(&self.shared).await;
        self.shared.dispatch_log.flush().await;
        self.log_writer.abort();
    }

    // ---- cluster mode (`crate::cluster`): the edge's link calls these ----

    /// Sets how commands reach the node serving their booking.
    pub fn set_forwarder(&self, forwarder: Arc<dyn Forward>) {
        if let Some(cluster) = &self.shared.cluster {
            cluster.set_forwarder(forwarder);
        }
    }

    /// Stops serving bookings: this node lost its link to the others, so
    /// their commands and its events no longer cross. Its booking actors stop
    /// and its leases lapse at once, for the nodes still linked to take.
    pub async fn fence(&self) {
        lease::fence(&self.children).await;
    }

    /// Serves bookings again after `fence`: the keeper takes lapsed leases
    /// at its next round.
    pub fn unfence(&self) {
        if let Some(cluster) = &self.shared.cluster {
            cluster.unfence();
        }
    }

    /// Whether this node takes new bookings (and bookings it does not
    /// serve yet): off while its link is down, before it fences.
    pub fn set_accepting(&self, accepting: bool) {
        if let Some(cluster) = &self.shared.cluster {
            cluster.set_accepting(accepting);
        }
    }

    /// False while fenced; a single node always serves.
    pub fn is_serving(&self) -> bool {
        self.shared.cluster.as_ref().is_none_or(Cluster::is_serving)
    }

    /// Publishes every booking served here as it is now, so clients that
    /// missed events (a link outage) catch up.
    pub async fn republish_bookings(&self) -> usize {
        lease::republish_bookings(&self.shared).await
    }

    /// Another node committed this version of a booking (from its events):
    /// an actor here holding an older version stops, since that node serves
    /// the booking now.
    pub fn committed_elsewhere(&self, booking: Arc<Booking>) {
        lease::committed_elsewhere(&self.shared, booking);
    }

    /// The driver facts born on this node, for the edge to send to the other
    /// nodes; `Some` once, in cluster mode.
    pub fn take_driver_facts(&self) -> Option<mpsc::UnboundedReceiver<DriverFact>> {
        self.shared.cluster.as_ref()?.take_driver_facts()
    }

    /// A fact another node sent: applied to this node's replica of the
    /// driver (going online reads the driver from storage).
    pub async fn apply_driver_fact(&self, fact: DriverFact) {
        replica::apply(&self.children, fact).await;
    }

    /// Brings this node's replica of the drivers in line with storage after
    /// the link was down. Returns how many drivers are online.
    pub async fn resync_drivers(&self) -> ActorResult<usize> {
        replica::resync(&self.children).await
    }

    #[cfg(feature = "fault-injection")]
    /// Stops as a killed process would: nothing handed over, the leases
    /// left to lapse (tests of failover).
    pub async fn crash(&self) {
        self.stop(false).await;
    }

    #[cfg(feature = "fault-injection")]
    /// Stops this node's heartbeat and lease renewals while its actors run
    /// on: a process paused past its heartbeat, as the other nodes see it
    /// (tests of fencing).
    pub fn stop_heartbeat(&self) {
        if let Some(cluster) = &self.shared.cluster {
            cluster.stop_keeper();
        }
    }

    #[cfg(feature = "fault-injection")]
    /// Makes a booking's actor panic (tests of supervision).
    pub fn crash_booking(&self, id: BookingId) -> bool {
        self.shared.bookings.get(&id).is_some_and(|actor| actor.cast(BookingMsg::Crash).is_ok())
    }
}

async fn flush_positions(shared: &Shared) {
    let positions = shared.positions.drain();
    if positions.is_empty() {
        return;
    }
    if let Err(error) = shared.storage.save_locations(&positions, shared.now()).await {
        warn!(%error, count = positions.len(), "driver positions not written");
    }
}

/// Writes the latest positions of moving drivers every `location_flush`.
async fn write_positions_behind(shared: Arc<Shared>) {
    let mut interval = tokio::time::interval(shared.options.location_flush);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        flush_positions(&shared).await;
    }
}
