//! Cluster mode: the link between nodes, over Redis pub/sub
//! (docs/architecture.md "Cluster mode"). PostgreSQL stays the record and
//! its leases say which node serves which booking; Redis carries what is
//! live and keeps nothing:
//! - `{prefix}:all`, heard by every node, in batches: runtime events and in-app notices
//!   (each node's fan-out presents them to its own sockets) and driver facts
//!   (each node's replica of the online drivers);
//! - `{prefix}:to:{node}`: commands forwarded to the node serving their
//!   booking, the replies, and the node's own heartbeat, which tells it that
//!   the link works end to end.
//!
//! A node that cannot hear itself for a lease's lifetime fences itself: it
//! stops serving bookings and lets its leases lapse, so the linked nodes
//! take them over; when the link is back it serves again and publishes the
//! current state of its bookings for the clients that missed events.

use crate::config::ClusterConfig;
use crate::notify::{InAppNotice, Notifier};
use futures_util::StreamExt;
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc, oneshot};
use tracing::{debug, info, warn};
use wayfare_actors::{ActorError, ActorResult, DriverFact, Event, Forward, Runtime};
use wayfare_engine::booking::{By, Command};
use wayfare_engine::{Booking, BookingId, DomainError, ErrorKey};
use wayfare_storage::StorageError;

/// How often a node hears itself when the link works.
const HEARTBEAT: Duration = Duration::from_millis(500);
/// Not heard for this long: the link is down (readiness fails at once).
const SILENCE: Duration = Duration::from_millis(2_000);
/// How long a forwarded command may take: a commit takes milliseconds, and
/// an owner that died with the command in flight should not hold its
/// client for long (its bookings move within a lease TTL; the client
/// retries after a 503).
const FORWARD_TIMEOUT: Duration = Duration::from_secs(4);
/// Items published in one message (one round trip).
const BATCH: usize = 512;
/// Remote events and notices a slow fan-out may fall behind by.
const REMOTE_CAPACITY: usize = 65_536;

/// What every node hears.
#[derive(Debug, Serialize, Deserialize)]
enum ToAll {
    Event(Arc<Event>),
    Notice(Arc<InAppNotice>),
    Driver(DriverFact),
}

/// What one node hears.
#[derive(Debug, Serialize, Deserialize)]
enum ToNode {
    Command { from: String, request: u64, booking: BookingId, by: By, command: Box<Command> },
    Reply { request: u64, result: Result<Box<Booking>, WireError> },
    Heartbeat,
}

#[derive(Debug, Serialize, Deserialize)]
struct Envelope<'a, T> {
    node: std::borrow::Cow<'a, str>,
    body: T,
}

/// A refusal as it crosses nodes.
#[derive(Debug, Serialize, Deserialize)]
enum WireError {
    Domain { key: ErrorKey, field: Option<String> },
    NotFound,
    Conflict,
    AlreadyProcessed,
    InsufficientBalance,
    Unavailable(String),
}

impl From<ActorError> for WireError {
    fn from(error: ActorError) -> Self {
        match error {
            ActorError::Domain(error) => WireError::Domain { key: error.key, field: error.field.map(str::to_string) },
            ActorError::Storage(StorageError::NotFound) => WireError::NotFound,
            ActorError::Storage(StorageError::Conflict) => WireError::Conflict,
            ActorError::Storage(StorageError::AlreadyProcessed) => WireError::AlreadyProcessed,
            ActorError::Storage(StorageError::InsufficientBalance) => WireError::InsufficientBalance,
            ActorError::Storage(error) => WireError::Unavailable(error.to_string()),
            ActorError::Unavailable(reason) => WireError::Unavailable(reason),
        }
    }
}

impl From<WireError> for ActorError {
    fn from(error: WireError) -> Self {
        match error {
            WireError::Domain { key, field } => ActorError::Domain(DomainError { key, field: field.map(intern) }),
            WireError::NotFound => StorageError::NotFound.into(),
            WireError::Conflict => StorageError::Conflict.into(),
            WireError::AlreadyProcessed => StorageError::AlreadyProcessed.into(),
            WireError::InsufficientBalance => StorageError::InsufficientBalance.into(),
            WireError::Unavailable(reason) => ActorError::Unavailable(reason),
        }
    }
}

/// A field name from another node as the `&'static str` errors carry: the
/// names are the code's own, a handful, each leaked once.
fn intern(name: String) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().expect("names lock");
    if let Some(known) = names.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Box<Booking>, WireError>>>>;

/// This node's end of the link.
pub struct Link {
    node: String,
    all: String,
    prefix: String,
    client: redis::Client,
    publisher: redis::aio::ConnectionManager,
    runtime: Runtime,
    pending: Pending,
    next_request: AtomicU64,
    started: Instant,
    /// When this node last heard itself, in ms since `started`.
    heard_at: AtomicU64,
    up: AtomicBool,
    call_timeout: Duration,
    lease_ttl: Duration,
    events: broadcast::Sender<Arc<Event>>,
    notices: broadcast::Sender<Arc<InAppNotice>>,
}

/// What the other nodes published, for this node's socket fan-out.
pub struct Remote {
    pub events: broadcast::Receiver<Arc<Event>>,
    pub notices: broadcast::Receiver<Arc<InAppNotice>>,
}

impl Link {
    /// Connects (lazily: a node starts while Redis is down, and is not
    /// ready until it hears itself) and starts the link's tasks.
    pub fn start(
        config: &ClusterConfig,
        node: String,
        runtime: Runtime,
        notifier: &Notifier,
    ) -> anyhow::Result<Arc<Link>> {
        let url = config.redis_url.as_deref().unwrap_or_default();
        let client = redis::Client::open(url).map_err(|error| anyhow::anyhow!("cluster.redis_url {url:?}: {error}"))?;
        let manager = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(1)))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let publisher = redis::aio::ConnectionManager::new_lazy_with_config(client.clone(), manager)?;
        let facts = runtime.take_driver_facts().ok_or_else(|| anyhow::anyhow!("the runtime is not in cluster mode"))?;
        let link = Arc::new(Link {
            all: format!("{}:all", config.prefix),
            prefix: config.prefix.clone(),
            node,
            client,
            publisher,
            runtime: runtime.clone(),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
            started: Instant::now(),
            heard_at: AtomicU64::new(0),
            up: AtomicBool::new(false),
            call_timeout: FORWARD_TIMEOUT,
            lease_ttl: Duration::from_millis(config.lease_ttl_ms),
            events: broadcast::channel(REMOTE_CAPACITY).0,
            notices: broadcast::channel(REMOTE_CAPACITY).0,
        });
        runtime.set_forwarder(link.clone());
        tokio::spawn(link.clone().publish_local(runtime.subscribe(), notifier.subscribe(), facts));
        let (applier, applied) = mpsc::unbounded_channel();
        tokio::spawn(apply_driver_facts(runtime, applied));
        tokio::spawn(link.clone().listen(applier));
        tokio::spawn(link.clone().beat());
        tokio::spawn(link.clone().watch());
        info!(node = %link.node, prefix = %link.prefix, "cluster link started");
        Ok(link)
    }

    pub fn node(&self) -> &str {
        &self.node
    }

    /// True while this node hears its own heartbeat through Redis.
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Acquire)
    }

    pub fn subscribe(&self) -> Remote {
        Remote { events: self.events.subscribe(), notices: self.notices.subscribe() }
    }

    fn channel_of(&self, node: &str) -> String {
        format!("{}:to:{node}", self.prefix)
    }

    fn since_start(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn envelope<T: Serialize>(&self, body: T) -> Vec<u8> {
        serde_json::to_vec(&Envelope { node: self.node.as_str().into(), body }).expect("link messages serialize")
    }

    /// Publishes to one channel; the number of nodes that heard it.
    async fn publish(&self, channel: String, payload: Vec<u8>) -> redis::RedisResult<u64> {
        self.publisher.clone().publish(channel, payload).await
    }

    /// Everything born here that the other nodes hear, batched per round trip.
    async fn publish_local(
        self: Arc<Self>,
        mut events: broadcast::Receiver<Arc<Event>>,
        mut notices: broadcast::Receiver<Arc<InAppNotice>>,
        mut facts: mpsc::UnboundedReceiver<DriverFact>,
    ) {
        let mut batch: Vec<ToAll> = Vec::with_capacity(BATCH);
        let mut failing = false;
        loop {
            let first = tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => ToAll::Event(event),
                    Err(broadcast::error::RecvError::Lagged(skipped)) => {
                        warn!(skipped, "cluster link lagged behind the events");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                notice = notices.recv() => match notice {
                    Ok(notice) => ToAll::Notice(notice),
                    Err(broadcast::error::RecvError::Lagged(skipped)) => {
                        warn!(skipped, "cluster link lagged behind the notices");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                fact = facts.recv() => match fact {
                    Some(fact) => ToAll::Driver(fact),
                    None => break,
                },
            };
            batch.push(first);
            // Whatever else is waiting goes in the same round trip.
            while batch.len() < BATCH {
                if let Ok(event) = events.try_recv() {
                    batch.push(ToAll::Event(event));
                } else if let Ok(fact) = facts.try_recv() {
                    batch.push(ToAll::Driver(fact));
                } else if let Ok(notice) = notices.try_recv() {
                    batch.push(ToAll::Notice(notice));
                } else {
                    break;
                }
            }
            // One message per round: each node decodes the batch at once.
            let payload = self.envelope(&batch);
            batch.clear();
            match self.publish(self.all.clone(), payload).await.map(|_| ()) {
                Ok(()) => failing = false,
                // Lost: the watch fences this node if the link stays down.
                Err(error) if !failing => {
                    failing = true;
                    warn!(%error, "cluster messages not published");
                }
                Err(_) => {}
            }
        }
        debug!("cluster publisher stopped");
    }

    /// Hears both channels, reconnecting for as long as the node runs.
    async fn listen(self: Arc<Self>, facts: mpsc::UnboundedSender<DriverFact>) {
        let own = self.channel_of(&self.node);
        loop {
            let connected = tokio::time::timeout(Duration::from_secs(2), async {
                let mut pubsub = self.client.get_async_pubsub().await?;
                pubsub.subscribe(&self.all).await?;
                pubsub.subscribe(&own).await?;
                redis::RedisResult::Ok(pubsub)
            })
            .await;
            let pubsub = match connected {
                Ok(Ok(pubsub)) => pubsub,
                Ok(Err(error)) => {
                    debug!(%error, "cluster link: Redis not reached");
                    tokio::time::sleep(Duration::from_millis(250)).await;
                    continue;
                }
                Err(_) => continue,
            };
            let mut messages = pubsub.into_on_message();
            // A link that went silent (a partition drops packets, no reset)
            // is reconnected by the watch's verdict.
            loop {
                let next = tokio::time::timeout(SILENCE, messages.next()).await;
                let Ok(Some(message)) = next else { break };
                if message.get_channel_name() == own {
                    self.heard_direct(message.get_payload_bytes());
                } else {
                    self.heard_all(message.get_payload_bytes(), &facts);
                }
            }
            debug!("cluster link: subscription lost, reconnecting");
        }
    }

    fn heard_all(&self, payload: &[u8], facts: &mpsc::UnboundedSender<DriverFact>) {
        let envelope: Envelope<'_, Vec<ToAll>> = match serde_json::from_slice(payload) {
            Ok(envelope) => envelope,
            Err(error) => return warn!(%error, "a cluster message not understood"),
        };
        if envelope.node == self.node {
            return;
        }
        for item in envelope.body {
            match item {
                ToAll::Event(event) => {
                    if let Event::BookingChanged(booking) = event.as_ref() {
                        self.runtime.committed_elsewhere(booking.clone());
                    }
                    let _ = self.events.send(event);
                }
                ToAll::Notice(notice) => {
                    let _ = self.notices.send(notice);
                }
                ToAll::Driver(fact) => {
                    let _ = facts.send(fact);
                }
            }
        }
    }

    fn heard_direct(self: &Arc<Self>, payload: &[u8]) {
        let envelope: Envelope<'_, ToNode> = match serde_json::from_slice(payload) {
            Ok(envelope) => envelope,
            Err(error) => return warn!(%error, "a cluster message not understood"),
        };
        match envelope.body {
            ToNode::Heartbeat => self.heard_at.store(self.since_start(), Ordering::Release),
            ToNode::Reply { request, result } => {
                if let Some(waiting) = self.pending.lock().expect("pending lock").remove(&request) {
                    let _ = waiting.send(result);
                }
            }
            ToNode::Command { from, request, booking, by, command } => {
                let link = self.clone();
                tokio::spawn(async move {
                    let result = link.runtime.command_here(booking, by, *command).await;
                    let result = result.map(|booking| Box::new(booking.as_ref().clone())).map_err(WireError::from);
                    let payload = link.envelope(ToNode::Reply { request, result });
                    if let Err(error) = link.publish(link.channel_of(&from), payload).await {
                        warn!(%error, booking_id = %booking, to = %from, "reply to a forwarded command lost");
                    }
                });
            }
        }
    }

    async fn beat(self: Arc<Self>) {
        let own = self.channel_of(&self.node);
        let mut tick = tokio::time::interval(HEARTBEAT);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let _ = self.publish(own.clone(), self.envelope(ToNode::Heartbeat)).await;
        }
    }

    /// Decides whether the link is up from the heartbeat; fences this node
    /// after a lease's lifetime without it, serves again when it is back.
    async fn watch(self: Arc<Self>) {
        let mut tick = tokio::time::interval(HEARTBEAT / 2);
        let mut down_since: Option<Instant> = Some(Instant::now());
        let mut fenced = false;
        loop {
            tick.tick().await;
            let heard = self.heard_at.load(Ordering::Acquire);
            let up = heard > 0 && self.since_start().saturating_sub(heard) < SILENCE.as_millis() as u64;
            let was_up = self.up.swap(up, Ordering::AcqRel);
            match (was_up, up) {
                (true, false) => {
                    warn!(node = %self.node, "cluster link down: not hearing this node's heartbeat through Redis");
                    down_since = Some(Instant::now());
                    // Its bookings' events no longer reach the others: take no new one.
                    self.runtime.set_accepting(false);
                }
                (false, true) => {
                    info!(node = %self.node, "cluster link up");
                    down_since = None;
                    self.runtime.set_accepting(true);
                    if fenced {
                        fenced = false;
                        self.runtime.unfence();
                    }
                    // Clients on other nodes may have missed events meanwhile,
                    // and this node the other nodes' driver facts.
                    let count = self.runtime.republish_bookings().await;
                    debug!(count, "bookings republished after the link came back");
                    if let Err(error) = self.runtime.resync_drivers().await {
                        warn!(%error, "drivers not read again after the link came back");
                    }
                }
                _ => {}
            }
            if let Some(since) = down_since
                && !fenced
                && since.elapsed() >= self.lease_ttl
            {
                fenced = true;
                self.runtime.fence().await;
            }
        }
    }
}

#[async_trait::async_trait]
impl Forward for Link {
    async fn command(&self, node: &str, id: BookingId, by: By, command: Command) -> ActorResult<Arc<Booking>> {
        let request = self.next_request.fetch_add(1, Ordering::Relaxed);
        let (sender, answer) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(request, sender);
        let forgotten = || self.pending.lock().expect("pending lock").remove(&request);
        let command = Box::new(command);
        let payload = self.envelope(ToNode::Command { from: self.node.clone(), request, booking: id, by, command });
        match self.publish(self.channel_of(node), payload).await {
            Ok(0) => {
                forgotten();
                metrics::counter!(crate::metrics::names::CLUSTER_FORWARDED, "outcome" => "unavailable").increment(1);
                return Err(ActorError::Unavailable(format!(
                    "node {node}, which serves booking {id}, is not answering"
                )));
            }
            Ok(_) => {}
            Err(error) => {
                forgotten();
                metrics::counter!(crate::metrics::names::CLUSTER_FORWARDED, "outcome" => "unavailable").increment(1);
                return Err(ActorError::Unavailable(format!("the cluster link is down: {error}")));
            }
        }
        let outcome = match tokio::time::timeout(self.call_timeout, answer).await {
            Ok(Ok(result)) => result.map(|booking| Arc::new(*booking)).map_err(ActorError::from),
            Ok(Err(_)) | Err(_) => {
                forgotten();
                Err(ActorError::Unavailable(format!("node {node} did not answer for booking {id} in time")))
            }
        };
        let label = match &outcome {
            Ok(_) => "ok",
            Err(ActorError::Unavailable(_)) => "unavailable",
            Err(_) => "refused",
        };
        metrics::counter!(crate::metrics::names::CLUSTER_FORWARDED, "outcome" => label).increment(1);
        outcome
    }
}

/// Applies other nodes' driver facts in the order they came, off the
/// listener (going online reads storage).
async fn apply_driver_facts(runtime: Runtime, mut facts: mpsc::UnboundedReceiver<DriverFact>) {
    while let Some(fact) = facts.recv().await {
        runtime.apply_driver_fact(fact).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_cross_nodes_with_their_key_and_field() {
        let error = ActorError::Domain(DomainError::on_field(ErrorKey::InvalidInput, "otp"));
        let wire = serde_json::to_vec(&WireError::from(error)).unwrap();
        let back: ActorError = serde_json::from_slice::<WireError>(&wire).unwrap().into();
        match back {
            ActorError::Domain(error) => assert_eq!((error.key, error.field), (ErrorKey::InvalidInput, Some("otp"))),
            other => panic!("not a domain error: {other:?}"),
        }
        let back: ActorError = WireError::from(ActorError::Storage(StorageError::Conflict)).into();
        assert!(matches!(back, ActorError::Storage(StorageError::Conflict)), "{back:?}");
        assert!(std::ptr::eq(intern("otp".into()), intern("otp".into())), "interned once");
    }
}
