//! Scenario tests of the dispatch runtime on a real database and a virtual
//! clock (issue 4): races, waves, timers, a whole trip, crashes and restarts.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::time::Duration;
use wayfare_actors::{ActorError, Clock, DispatchLog, Event};
use wayfare_engine::booking::{By, Command, NoticeKey, WithdrawReason};
use wayfare_engine::*;

fn taken(result: &Result<std::sync::Arc<Booking>, ActorError>) -> bool {
    matches!(result, Err(ActorError::Domain(error)) if error.key == ErrorKey::BookingTaken)
}

fn offers_for(event: &Event, booking: BookingId) -> Option<Vec<UserId>> {
    match event {
        Event::OfferMade { booking: made, drivers, .. } if made.id == booking => Some(drivers.clone()),
        _ => None,
    }
}

/// The booking as it was when it became CANCELLED.
fn cancelled(event: &Event, booking: BookingId) -> Option<std::sync::Arc<Booking>> {
    match event {
        Event::BookingChanged(changed) if changed.id == booking && changed.status == BookingStatus::Cancelled => {
            Some(changed.clone())
        }
        _ => None,
    }
}

fn ids(users: &[User]) -> Vec<UserId> {
    users.iter().map(|user| user.id).collect()
}

// ---- first accept wins ------------------------------------------------------

both_backends!(first_accept_wins_among_fifty_drivers_a_thousand_times, first_accept_wins);

async fn first_accept_wins(backend: Backend) {
    let drivers: Vec<User> = (1..=50).map(|n| driver(n, "Economy", 0.2 + n as f64 * 0.01)).collect();
    let mut manual = settings();
    manual.autoDispatch = false;
    let mut world = World::start(backend, manual, &drivers).await;
    let customer = rider(1);
    let mut winners = BTreeSet::new();
    for _round in 0..1_000 {
        let booking =
            world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
        let offer = Command::Offer { drivers: ids(&drivers), wave: 1, deadline: None };
        world.runtime.command(booking.id, By::System, offer).await.unwrap();
        let booking_id = booking.id;
        let mut attempts = tokio::task::JoinSet::new();
        for user in &drivers {
            let runtime = world.runtime.clone();
            let snapshot = snapshot(user);
            attempts.spawn(async move {
                let id = snapshot.id;
                (id, runtime.command(booking_id, By::Driver(id), Command::Accept { driver: snapshot }).await)
            });
        }
        let results = attempts.join_all().await;
        let won: Vec<UserId> = results.iter().filter(|(_, result)| result.is_ok()).map(|(id, _)| *id).collect();
        assert_eq!(won.len(), 1, "exactly one driver is confirmed");
        assert_eq!(
            results.iter().filter(|(_, result)| taken(result)).count(),
            49,
            "every other accept gets booking_taken"
        );
        let stored = world.storage.booking(booking.id).await.unwrap();
        assert_eq!(stored.driver, Some(won[0]));
        assert_eq!(stored.status, BookingStatus::Accepted);
        let withdrawn = world
            .wait_for(|event| match event {
                Event::OfferWithdrawn { booking: id, drivers, reason: WithdrawReason::Taken } if *id == booking.id => {
                    Some(drivers.clone())
                }
                _ => None,
            })
            .await;
        assert_eq!(withdrawn.len(), 49);
        assert!(!withdrawn.contains(&won[0]));
        winners.insert(won[0]);
        // Free the driver for the next round.
        let cancel = Command::Cancel { reason: "next round".into(), wallet_balance: None };
        world.runtime.command(booking.id, By::Admin(admin().id), cancel).await.unwrap();
        world.drain();
    }
    assert!(winners.len() > 1, "the race is real: different drivers win");
    world.finish().await;
}

both_backends!(two_runtimes_on_one_database_never_both_win, two_runtimes);

async fn two_runtimes(backend: Backend) {
    // DESIGN.md invariant 1: the storage version check keeps "first accept
    // wins" true across processes.
    let drivers = vec![driver(1, "Economy", 0.5), driver(2, "Economy", 0.6)];
    let mut manual = settings();
    manual.autoDispatch = false;
    let world = World::start(backend, manual, &drivers).await;
    let other_storage = world.database.open().await;
    let other = wayfare_actors::Runtime::start(other_storage, std::sync::Arc::new(world.clock.clone()), options())
        .await
        .unwrap();
    let customer = rider(1);
    for _ in 0..100 {
        let booking =
            world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
        world
            .runtime
            .command(booking.id, By::System, Command::Offer { drivers: ids(&drivers), wave: 1, deadline: None })
            .await
            .unwrap();
        let (first, second) = (snapshot(&drivers[0]), snapshot(&drivers[1]));
        let here = world.runtime.command(booking.id, By::Driver(first.id), Command::Accept { driver: first });
        let there = other.command(booking.id, By::Driver(second.id), Command::Accept { driver: second });
        let (here, there) = tokio::join!(here, there);
        assert_eq!(usize::from(here.is_ok()) + usize::from(there.is_ok()), 1, "{here:?} / {there:?}");
        assert!(taken(&here) || taken(&there));
        world
            .runtime
            .command(
                booking.id,
                By::Admin(admin().id),
                Command::Cancel { reason: "again".into(), wallet_balance: None },
            )
            .await
            .unwrap();
    }
    other.shutdown().await;
    world.finish().await;
}

// ---- cluster mode ---------------------------------------------------------------

both_backends!(a_dead_nodes_bookings_are_taken_over_with_their_timers_within_a_lease, failover);

const LEASE: Duration = Duration::from_secs(9);
/// A heartbeat is renewed every quarter of it.
const HEARTBEAT: Duration = Duration::from_secs(1);

fn node(name: &str) -> wayfare_actors::RuntimeOptions {
    let cluster = wayfare_actors::ClusterOptions { node: name.into(), lease_ttl: LEASE, heartbeat_ttl: HEARTBEAT };
    wayfare_actors::RuntimeOptions { cluster: Some(cluster), ..options() }
}

/// One more node on the world's database and clock.
async fn another_node(world: &World, name: &str) -> wayfare_actors::Runtime {
    wayfare_actors::Runtime::start(world.database.open().await, std::sync::Arc::new(world.clock.clone()), node(name))
        .await
        .unwrap()
}

/// Waits (in real time, briefly) until `done` holds: the keepers run on
/// their own tasks once the manual clock moved.
async fn eventually(what: &str, mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..400 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{what} never happened");
}

async fn failover(backend: Backend) {
    let mut manual = settings();
    manual.autoDispatch = false;
    let world = World::start_with(backend, manual, &[driver(1, "Economy", 0.5)], node("a")).await;
    let other = another_node(&world, "b").await;
    let customer = rider(1);
    let mut bookings = Vec::new();
    for _ in 0..3 {
        bookings.push(
            world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap().id,
        );
    }
    let holder =
        async |id: BookingId| world.storage.lease(wayfare_actors::BOOKING_LEASE, &id.to_string()).await.unwrap();
    for id in &bookings {
        assert_eq!(holder(*id).await.map(|lease| lease.node), Some("a".to_string()));
    }
    let timers = world.runtime.counts().await.unwrap().pending_timers;
    assert!(timers >= 3, "each booking waits on timers: {timers}");
    assert_eq!(other.counts().await.unwrap().active_bookings, 0, "b serves none of a's bookings");
    let cancel = || Command::Cancel { reason: "changed my plans".into(), wallet_balance: None };
    let refused = other.command(bookings[0], By::Rider(customer.id), cancel()).await;
    assert!(matches!(refused, Err(ActorError::Unavailable(_))), "{refused:?}");

    // While a renews, the clock may run past many lease lifetimes.
    for _ in 0..6 {
        world.clock.advance(LEASE / 3);
        let renewed_until = world.clock.now() + LEASE.as_millis() as Millis;
        eventually("a renewal", async || {
            holder(bookings[0]).await.is_some_and(|lease| lease.expires_at == renewed_until)
        })
        .await;
    }
    assert_eq!(other.counts().await.unwrap().active_bookings, 0);

    // a dies (nothing handed over). Its leases run to a renewal's end; b's
    // keeper takes them at its first round after that, a lease later.
    world.runtime.crash().await;
    for _ in 0..2 {
        world.clock.advance(LEASE / 3);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(holder(bookings[0]).await.map(|lease| lease.node), Some("a".to_string()), "not before it lapsed");
    }
    world.clock.advance(LEASE / 3);
    for id in &bookings {
        eventually("the takeover", async || holder(*id).await.is_some_and(|lease| lease.node == "b")).await;
    }
    eventually("every booking restored on b", async || other.counts().await.unwrap().active_bookings == 3).await;
    assert_eq!(other.counts().await.unwrap().pending_timers, timers, "the timers came back from storage");
    let cancelled = other.command(bookings[0], By::Rider(customer.id), cancel()).await.unwrap();
    assert_eq!(cancelled.status, BookingStatus::Cancelled);
    eventually("the finished booking's lease released", async || holder(bookings[0]).await.is_none()).await;

    // A graceful stop hands over at once (its leases lapse now): the next
    // node serves them at start.
    other.shutdown().await;
    assert_eq!(holder(bookings[1]).await.map(|lease| (lease.node, lease.expires_at)), Some(("b".to_string(), 0)));
    let third = another_node(&world, "c").await;
    assert_eq!(third.counts().await.unwrap().active_bookings, 2);
    assert_eq!(holder(bookings[2]).await.map(|lease| lease.node), Some("c".to_string()));
    third.shutdown().await;
    world.finish().await;
}

both_backends!(a_silent_nodes_bookings_move_at_once_keeping_their_deadlines_and_its_late_writes_are_refused, zombie);

/// One heartbeat period on the manual clock, then waits until each of
/// `nodes` renewed its heartbeat at the new time (their keepers run on
/// their own tasks).
async fn beat(world: &World, nodes: &[&str]) {
    world.clock.advance(HEARTBEAT / 4);
    let fresh_until = world.clock.now() + HEARTBEAT.as_millis() as Millis;
    for name in nodes {
        eventually("a heartbeat", async || {
            world.storage.lease("node", name).await.unwrap().is_some_and(|lease| lease.expires_at == fresh_until)
        })
        .await;
    }
}

async fn zombie(backend: Backend) {
    let mut manual = settings();
    manual.autoDispatch = false;
    let drivers = [driver(1, "Economy", 0.5)];
    let world = World::start_with(backend, manual, &drivers, node("a")).await;
    let a = world.runtime.clone();
    let b = another_node(&world, "b").await;
    let customer = rider(1);
    let booking = a.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    let deadline = world.clock.now() + 20_000;
    let offer = Command::Offer { drivers: ids(&drivers), wave: 1, deadline: Some(deadline) };
    let offered = a.command(booking.id, By::System, offer).await.unwrap();
    let offer_timer = offered.timers.get(TimerKind::OfferExpiry).expect("an open offer waits on its deadline");
    assert_eq!(offer_timer.at, deadline);
    let holder = async || world.storage.lease(wayfare_actors::BOOKING_LEASE, &booking.id.to_string()).await.unwrap();
    // Both beat steadily for a heartbeat's life: b may judge a from then on.
    for _ in 0..6 {
        beat(&world, &["a", "b"]).await;
    }
    assert_eq!(holder().await.map(|lease| lease.node), Some("a".to_string()));

    // a goes silent but its actors run on (a process paused, as b sees it).
    // Once its heartbeat lapsed, b buries it and serves its booking, long
    // before a's lease of 9 s would have lapsed.
    a.stop_heartbeat();
    let silent_at = world.clock.now();
    let mut beats = 0;
    while holder().await.is_none_or(|lease| lease.node != "b") {
        beat(&world, &["b"]).await;
        beats += 1;
        // Each beat gives b's keeper a moment to bury and take over.
        for _ in 0..40 {
            if holder().await.is_some_and(|lease| lease.node == "b") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(beats <= 8, "b did not take a's booking over within two heartbeats");
    }
    let taken_after = world.clock.now() - silent_at;
    assert!(taken_after >= HEARTBEAT.as_millis() as Millis, "not before a's heartbeat lapsed: {taken_after} ms");
    assert!(taken_after < LEASE.as_millis() as Millis / 3, "the heartbeat, not the lease: {taken_after} ms");
    eventually("b serves the booking", async || b.counts().await.unwrap().active_bookings == 1).await;
    let served = b.booking(booking.id).await.unwrap();
    assert_eq!(served.timers.get(TimerKind::OfferExpiry).map(|timer| timer.at), Some(deadline), "the same deadline");
    assert_eq!(
        served.requestedDrivers.0,
        ids(&drivers).into_iter().collect::<BTreeSet<_>>(),
        "the offer is still open"
    );

    // a's actor still runs and writes late: the lease check refuses it.
    assert_eq!(a.counts().await.unwrap().active_bookings, 1, "a's actor never heard it was buried");
    let before = world.storage.booking(booking.id).await.unwrap();
    let cancel = Command::Cancel { reason: "changed my plans".into(), wallet_balance: None };
    let late = a.command_here(booking.id, By::Rider(customer.id), cancel).await;
    assert!(matches!(late, Err(ActorError::Storage(wayfare_storage::StorageError::Conflict))), "{late:?}");
    let after = world.storage.booking(booking.id).await.unwrap();
    assert_eq!((after.status, after.version), (BookingStatus::New, before.version), "nothing of a's write stored");

    // The offer lapses at its own deadline, on b; a's timer fires too, and
    // is refused the same way.
    // Up to it in steps shorter than a lease's third, b renewing its lease.
    while world.clock.now() + 1_500 < deadline {
        world.clock.advance(Duration::from_millis(1_500));
        let half_a_lease_on = world.clock.now() + LEASE.as_millis() as Millis / 2;
        eventually("b's renewal", async || {
            holder().await.is_some_and(|lease| lease.node == "b" && lease.expires_at > half_a_lease_on)
        })
        .await;
    }
    world.clock.advance(Duration::from_millis((deadline - 1 - world.clock.now()) as u64));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        world.storage.booking(booking.id).await.unwrap().requestedDrivers.0,
        ids(&drivers).into_iter().collect::<BTreeSet<_>>(),
        "not before"
    );
    world.clock.advance(Duration::from_millis(1));
    eventually("the offer lapsed on b", async || {
        let stored = world.storage.booking(booking.id).await.unwrap();
        stored.requestedDrivers.0.is_empty() && stored.dispatch.expired.contains(&drivers[0].id)
    })
    .await;
    assert_eq!(b.booking(booking.id).await.unwrap().status, BookingStatus::New);
    b.shutdown().await;
    a.crash().await;
    world.finish().await;
}

both_backends!(a_second_node_under_a_live_nodes_name_refuses_to_start, same_name);

async fn same_name(backend: Backend) {
    let world = World::start_with(backend, settings(), &[], node("a")).await;
    let clock = std::sync::Arc::new(world.clock.clone());
    let refused = wayfare_actors::Runtime::start(world.database.open().await, clock.clone(), node("a")).await;
    match refused {
        Err(ActorError::Unavailable(message)) => {
            assert!(message.contains("another live node is named \"a\""), "{message}");
            assert!(message.contains("--node"), "says what to do: {message}");
        }
        other => panic!("a second node named a started: {:?}", other.map(|_| ())),
    }
    // A node stopped gracefully gives its name up at once...
    let b = another_node(&world, "b").await;
    b.shutdown().await;
    let b = another_node(&world, "b").await;
    // ...and a killed one once its heartbeat lapsed (a restart after a SIGKILL).
    b.crash().await;
    world.clock.advance(HEARTBEAT);
    let b = another_node(&world, "b").await;
    b.shutdown().await;
    world.finish().await;
}

both_backends!(a_node_stops_serving_a_booking_it_lost_or_another_node_moved_on, lost_lease);

async fn lost_lease(backend: Backend) {
    let mut manual = settings();
    manual.autoDispatch = false;
    let world = World::start_with(backend, manual, &[driver(1, "Economy", 0.5)], node("a")).await;
    let a = world.runtime.clone();
    let b = another_node(&world, "b").await;
    let customer = rider(1);
    let first = a.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    let second = a.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    assert_eq!(a.counts().await.unwrap().active_bookings, 2);

    // Another node's events say what it committed. The version a holds, or
    // an older one, changes nothing; a newer one means that node serves the
    // booking now, and a's actor stops instead of answering with the past.
    let stored = world.storage.booking(first.id).await.unwrap();
    a.committed_elsewhere(std::sync::Arc::new(stored.clone()));
    let newer = world.storage.commit_booking(&stored, Some(stored.version), &[], world.clock.now()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(a.counts().await.unwrap().active_bookings, 2, "the same version is no news");
    a.committed_elsewhere(std::sync::Arc::new(newer.booking.clone()));
    eventually("a's stale actor stopped", async || a.counts().await.unwrap().active_bookings == 1).await;
    assert_eq!(a.booking(first.id).await.unwrap().version, newer.booking.version, "reads come from storage");

    // a's lease on the second booking goes without a knowing (it lapsed
    // while the process starved, and was taken): at its next renewal a
    // stops the actor, and the booking is served where its lease is.
    world.storage.release_lease(wayfare_actors::BOOKING_LEASE, &second.id.to_string(), "a").await.unwrap();
    world.clock.advance(LEASE / 3);
    eventually("a stopped serving the lost booking", async || a.counts().await.unwrap().active_bookings == 0).await;
    let cancel = Command::Cancel { reason: "changed my plans".into(), wallet_balance: None };
    let cancelled = b.command(second.id, By::Rider(customer.id), cancel).await.unwrap();
    assert_eq!(cancelled.status, BookingStatus::Cancelled, "b leased the free booking and served it");
    assert_eq!(a.booking(second.id).await.unwrap().status, BookingStatus::Cancelled, "a holds no stale copy");
    // A booking a still holds the lease of is not stopped by a renewal.
    let third = a.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.clock.advance(LEASE / 3);
    eventually("a renewal", async || {
        world.storage.lease(wayfare_actors::BOOKING_LEASE, &third.id.to_string()).await.unwrap().is_some_and(|lease| {
            lease.node == "a" && lease.expires_at == world.clock.now() + LEASE.as_millis() as Millis
        })
    })
    .await;
    assert_eq!(a.counts().await.unwrap().active_bookings, 1);
    b.shutdown().await;
    world.finish().await;
}

both_backends!(a_command_goes_to_the_node_serving_its_booking_and_every_node_keeps_every_driver, two_linked_nodes);

/// The cluster link as the edge provides it (Redis in `wayfare-http`), here
/// in process: commands to the named node's `command_here`, each node's
/// driver facts applied to the other's replica.
struct InProcess(std::collections::HashMap<String, wayfare_actors::Runtime>);

#[async_trait::async_trait]
impl wayfare_actors::Forward for InProcess {
    async fn command(
        &self,
        node: &str,
        id: BookingId,
        by: By,
        command: Command,
    ) -> wayfare_actors::ActorResult<std::sync::Arc<Booking>> {
        self.0[node].command_here(id, by, command).await
    }
}

fn link(from: &wayfare_actors::Runtime, to: &wayfare_actors::Runtime) {
    let mut facts = from.take_driver_facts().expect("cluster mode hands out its driver facts");
    let to = to.clone();
    tokio::spawn(async move {
        while let Some(fact) = facts.recv().await {
            to.apply_driver_fact(fact).await;
        }
    });
}

async fn two_linked_nodes(backend: Backend) {
    let mut offline = driver(2, "Economy", 0.4);
    offline.driverActiveStatus = false;
    let drivers = [driver(1, "Economy", 0.5), offline.clone()];
    let mut world = World::start_with(backend, settings(), &drivers, node("a")).await;
    let b = another_node(&world, "b").await;
    let a = world.runtime.clone();
    let nodes: std::collections::HashMap<_, _> = [("a".to_string(), a.clone()), ("b".to_string(), b.clone())].into();
    let forwarder = std::sync::Arc::new(InProcess(nodes));
    a.set_forwarder(forwarder.clone());
    b.set_forwarder(forwarder);
    link(&a, &b);
    link(&b, &a);
    let d1 = drivers[0].id;

    // A position sent to b reaches a's replica (and a dispatches with it).
    let moved = north_of_pickup(0.3);
    b.driver_location(d1, wayfare_actors::LocationUpdate::at(moved)).unwrap();
    eventually("a's replica moved", async || a.driver(d1).await.is_some_and(|view| view.position == Some(moved))).await;

    // Booked on a, offered by a; the offer shows in b's replica of the driver.
    let customer = rider(1);
    let booking = a.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    let offered = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(offered, vec![d1]);
    eventually("b's replica holds the offer", async || {
        b.driver(d1).await.is_some_and(|view| view.offers == vec![booking.id])
    })
    .await;

    // The driver accepts on b: a, which serves the booking, commits it.
    let accepted =
        b.command(booking.id, By::Driver(d1), Command::Accept { driver: snapshot(&drivers[0]) }).await.unwrap();
    assert_eq!((accepted.status, accepted.driver), (BookingStatus::Accepted, Some(d1)));
    assert_eq!(a.booking(booking.id).await.unwrap().status, BookingStatus::Accepted, "a's actor has it");
    assert_eq!(b.counts().await.unwrap().active_bookings, 0, "b forwarded, it did not take the booking");
    eventually("b's replica knows the driver is busy", async || b.driver(d1).await.is_some_and(|view| view.busy)).await;
    // A refusal comes back as the engine gave it.
    let refused = b.command(booking.id, By::Rider(customer.id), Command::Rate { rating: Some(5) }).await;
    assert!(
        matches!(&refused, Err(ActorError::Domain(error)) if error.key == ErrorKey::StatusNotAllowed),
        "{refused:?}"
    );

    // Going online and offline on b shows on a.
    let d2 = offline.id;
    b.driver_online(&offline).await.unwrap();
    eventually("a replicates the driver who went online", async || a.is_online(d2)).await;
    b.driver_offline(d2).await.unwrap();
    eventually("a drops the driver who went offline", async || !a.is_online(d2)).await;

    // Facts lost while a link was down (here: d2 online with no fact sent)
    // are read back from storage when it returns.
    world.storage.set_driver_active(d2, true, world.clock.now()).await.unwrap();
    assert!(!a.is_online(d2));
    assert_eq!(a.resync_drivers().await.unwrap(), 2);
    assert!(a.is_online(d2), "resynced from storage");
    assert!(a.driver(d1).await.is_some_and(|view| view.busy), "d1 still on the trip");

    b.shutdown().await;
    world.finish().await;
}

// ---- dispatch policies --------------------------------------------------------

/// Six Economy drivers 0.5..3 km away, and four who must never be offered.
fn dispatch_drivers() -> Vec<User> {
    let mut drivers: Vec<User> = (1..=6).map(|n| driver(n, "Economy", 0.5 * n as f64)).collect();
    drivers.push(driver(7, "Comfort", 0.2));
    let mut busy = driver(8, "Economy", 0.3);
    busy.queue = true;
    drivers.push(busy);
    let mut offline = driver(9, "Economy", 0.4);
    offline.driverActiveStatus = false;
    drivers.push(offline);
    drivers.push(driver(10, "Economy", 8.0));
    drivers
}

both_backends!(the_dispatch_log_reaches_storage_without_a_flush, log_without_flush);

/// The log's writer gathers entries for a moment, then writes them unasked.
async fn log_without_flush(backend: Backend) {
    let drivers = dispatch_drivers();
    let mut world = World::start(backend, settings(), &drivers).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    for _ in 0..250 {
        // Straight from storage: `dispatch_timeline` would flush.
        let stored = world.storage.dispatch_events(booking.id).await.unwrap();
        if stored.iter().any(|entry| matches!(entry.log, DispatchLog::Offered { wave: 1, .. })) {
            return world.finish().await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the first wave's log entry was not written within 5 s");
}

both_backends!(waves_offer_the_nearest_then_the_next_and_stop, waves);

async fn waves(backend: Backend) {
    let drivers = dispatch_drivers();
    let d = |n: usize| drivers[n - 1].id;
    let mut world = World::start(backend, settings(), &drivers).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    let wave1 = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(wave1, vec![d(1), d(2)], "wave 1 is the two nearest eligible");
    // The first wave is stored with the booking, in the same commit.
    assert_eq!(booking.version, 1);
    assert_eq!(booking.requestedDrivers.0.len(), 2);
    assert!(booking.is_requested(&d(1)) && booking.is_requested(&d(2)));
    assert_eq!(booking.timers.offer_expiry.map(|timer| timer.at), Some(T0 + 15_000));
    let offered_to = world.storage.bookings_offered_to(d(2)).await.unwrap();
    assert_eq!(offered_to.iter().map(|task| (task.id, task.version)).collect::<Vec<_>>(), vec![(booking.id, 1)]);
    let timeline = world.runtime.dispatch_timeline(booking.id).await.unwrap();
    let first = timeline.iter().find(|entry| matches!(entry.log, DispatchLog::Offered { .. })).map(|entry| &entry.log);
    assert!(
        matches!(first, Some(DispatchLog::Offered { wave: 1, distances_km, .. }) if distances_km.iter().all(Option::is_some)),
        "the log keeps the first wave's distances: {first:?}"
    );
    world.runtime.command(booking.id, By::Driver(d(1)), Command::Decline).await.unwrap();

    world.clock.advance(Duration::from_secs(15));
    let wave2 = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(wave2, vec![d(3), d(4)], "wave 2 skips the decliner and the lapsed offer");
    world.clock.advance(Duration::from_secs(15));
    let wave3 = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(wave3, vec![d(5), d(6)]);
    world.clock.advance(Duration::from_secs(15));
    world.wait_for(|event| matches!(event, Event::Dispatch(entry) if entry.booking == booking.id && entry.log == DispatchLog::Exhausted).then_some(())).await;
    world.settle().await;
    assert!(world.drain().iter().all(|event| offers_for(event, booking.id).is_none()), "no offer after the last wave");
    let stored = world.runtime.booking(booking.id).await.unwrap();
    assert_eq!(stored.status, BookingStatus::New, "the booking waits for a retry or an admin");

    // The retry a minute after creation starts a fresh round; the decliner stays skipped.
    world.clock.advance(Duration::from_secs(15));
    let retry = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(retry, vec![d(2), d(3)]);
    world.finish().await;
}

both_backends!(broadcast_offers_every_eligible_driver_in_the_radius_at_once, broadcast);

async fn broadcast(backend: Backend) {
    let drivers = dispatch_drivers();
    let mut everyone = settings();
    everyone.dispatchPolicy = DispatchPolicy::Broadcast;
    let mut world = World::start(backend, everyone, &drivers).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    let offered: BTreeSet<UserId> = world.wait_for(|event| offers_for(event, booking.id)).await.into_iter().collect();
    let expected: BTreeSet<UserId> = drivers[..6].iter().map(|user| user.id).collect();
    assert_eq!(offered, expected, "only eligible Economy drivers within the radius");
    let tasks = world.storage.bookings_offered_to(drivers[0].id).await.unwrap();
    assert_eq!(tasks.iter().map(|task| task.id).collect::<Vec<_>>(), vec![booking.id]);
    assert!(world.storage.bookings_offered_to(drivers[6].id).await.unwrap().is_empty());
    world.finish().await;
}

both_backends!(an_admin_sees_the_eligible_drivers_nearest_the_pickup_live, assign_candidates);

async fn assign_candidates(backend: Backend) {
    let drivers = dispatch_drivers();
    let d = |n: usize| drivers[n - 1].id;
    let mut manual = settings();
    manual.autoDispatch = false;
    let world = World::start(backend, manual, &drivers).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    let picked = |candidates: Vec<dispatch::Candidate>| candidates.iter().map(|c| c.driver).collect::<Vec<_>>();
    // Economy, online, free, nearest first; driver 10 is past the 5 km
    // radius but within three radii.
    let all = world.runtime.assign_candidates(booking.clone(), 20).await.unwrap();
    assert_eq!(picked(all.clone()), vec![d(1), d(2), d(3), d(4), d(5), d(6), d(10)]);
    assert!((all[0].distance_km - 0.5).abs() < 0.01, "{}", all[0].distance_km);
    assert_eq!(picked(world.runtime.assign_candidates(booking.clone(), 3).await.unwrap()), vec![d(1), d(2), d(3)]);

    // Driver 2 is offered it by hand: no longer a candidate.
    let assigned =
        world.runtime.command(booking.id, By::Admin(admin().id), Command::Assign { driver: d(2) }).await.unwrap();
    let without = picked(world.runtime.assign_candidates(assigned.clone(), 3).await.unwrap());
    assert_eq!(without, vec![d(1), d(3), d(4)]);

    // Driver 6 drives to the pickup: the index sees it at once.
    world
        .runtime
        .driver_location(d(6), wayfare_actors::LocationUpdate::at(LatLng::new(PICKUP.lat, PICKUP.lng)))
        .unwrap();
    world.runtime.driver(d(6)).await.expect("driver 6 online");
    assert_eq!(picked(world.runtime.assign_candidates(assigned.clone(), 2).await.unwrap()), vec![d(6), d(1)]);

    // Once a driver accepted, there is nobody to assign.
    world
        .runtime
        .command(booking.id, By::Driver(d(2)), Command::Accept { driver: snapshot(&drivers[1]) })
        .await
        .unwrap();
    let accepted = world.runtime.booking(booking.id).await.unwrap();
    match world.runtime.assign_candidates(accepted, 20).await {
        Err(ActorError::Domain(error)) => assert_eq!(error.key, ErrorKey::StatusNotAllowed),
        other => panic!("expected status_not_allowed, got {other:?}"),
    }
    world.finish().await;
}

// ---- timers -----------------------------------------------------------------------

both_backends!(book_later_dispatches_fifteen_minutes_before_the_trip, book_later);

async fn book_later(backend: Backend) {
    let drivers = vec![driver(1, "Economy", 0.5)];
    let mut world = World::start(backend, settings(), &drivers).await;
    let customer = rider(1);
    let mut later = request();
    later.book_later = true;
    later.tripdate = Some(T0 + 60 * MINUTE_MS);
    let booking = world.runtime.create_booking("Economy", later, &customer, By::Rider(customer.id)).await.unwrap();
    world.clock.advance(Duration::from_secs(44 * 60));
    world.settle().await;
    assert!(
        world.drain().iter().all(|event| offers_for(event, booking.id).is_none()),
        "nothing before tripdate - 15 min"
    );
    world.clock.advance(Duration::from_secs(60));
    let offered = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(offered, vec![drivers[0].id]);
    assert!(world.now() >= T0 + 45 * MINUTE_MS);
    world.finish().await;
}

both_backends!(a_booking_nobody_took_is_retried_then_cancelled_by_the_system, retry_and_auto_cancel);

async fn retry_and_auto_cancel(backend: Backend) {
    let late_driver = driver(1, "Economy", 0.5);
    let mut offline = late_driver.clone();
    offline.driverActiveStatus = false;
    let mut world = World::start(backend, settings(), &[offline]).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| matches!(event, Event::Dispatch(entry) if entry.booking == booking.id && matches!(entry.log, DispatchLog::NoCandidates { .. })).then_some(())).await;
    // A driver comes online; the retry a minute after creation finds them.
    world.runtime.driver_online(&late_driver).await.unwrap();
    world.clock.advance(Duration::from_secs(30));
    world.settle().await;
    assert!(world.drain().iter().all(|event| offers_for(event, booking.id).is_none()), "no retry before a minute");
    world.clock.advance(Duration::from_secs(30));
    let offered = world.wait_for(|event| offers_for(event, booking.id)).await;
    assert_eq!(offered, vec![late_driver.id]);
    world.runtime.command(booking.id, By::Driver(late_driver.id), Command::Decline).await.unwrap();

    // noDriverCancelMinutes (10) after the search began the system cancels it.
    world.clock.set(T0 + 9 * MINUTE_MS);
    world.settle().await;
    assert_eq!(world.runtime.booking(booking.id).await.unwrap().status, BookingStatus::New);
    world.clock.set(T0 + 10 * MINUTE_MS);
    let cancelled = world.wait_for(|event| cancelled(event, booking.id)).await;
    assert_eq!(cancelled.cancelledBy, Some(CancelledBy::System));
    assert_eq!(cancelled.reason, wayfare_engine::booking::REASON_NO_DRIVER);
    assert!(cancelled.updatedAt >= T0 + 10 * MINUTE_MS);
    world.finish().await;
}

both_backends!(a_stale_offer_timer_after_acceptance_does_nothing, stale_timer);

async fn stale_timer(backend: Backend) {
    let drivers = vec![driver(1, "Economy", 0.5), driver(2, "Economy", 0.7)];
    let mut world = World::start(backend, settings(), &drivers).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    world
        .runtime
        .command(booking.id, By::Driver(drivers[0].id), Command::Accept { driver: snapshot(&drivers[0]) })
        .await
        .unwrap();
    world.clock.advance(Duration::from_secs(120));
    world.settle().await;
    let expired = world
        .drain()
        .iter()
        .any(|event| matches!(&**event, Event::OfferWithdrawn { reason: WithdrawReason::Expired, .. }));
    assert!(!expired, "the lapsed offer timer was dropped");
    let live = world.runtime.booking(booking.id).await.unwrap();
    assert_eq!(live.status, BookingStatus::Accepted);
    assert_eq!(live.driver, Some(drivers[0].id));
    world.finish().await;
}

// ---- a whole trip -------------------------------------------------------------------

async fn run_trip_to_reached(world: &mut World, booking: BookingId, user: &User) {
    let by = By::Driver(user.id);
    world.runtime.command(booking, by, Command::Arrive { location: Some(PICKUP) }).await.unwrap();
    let started =
        world.runtime.command(booking, by, Command::Start { otp: None, location: Some(PICKUP) }).await.unwrap();
    assert_eq!(started.status, BookingStatus::Started);
    world.settle().await;
    // The driver streams positions along the way; one point every 5 s is stored.
    for step in 1..=4 {
        world.clock.advance(Duration::from_secs(5));
        let along = LatLng::new(
            PICKUP.lat + (DROP.lat - PICKUP.lat) * step as f64 / 4.0,
            PICKUP.lng + (DROP.lng - PICKUP.lng) * step as f64 / 4.0,
        );
        world.runtime.driver_location(user.id, wayfare_actors::LocationUpdate::at(along)).unwrap();
        // This very point stored, before the clock moves again.
        world
            .wait_for(|event| {
                matches!(event, Event::Tracking { booking: id, point } if *id == booking && point.lat == along.lat && point.lng == along.lng)
                    .then_some(())
            })
            .await;
    }
    let reached = world
        .runtime
        .command(booking, by, Command::Reach { location: Some(DROP), drop_address: None, route: vec![] })
        .await
        .unwrap();
    assert_eq!(reached.status, BookingStatus::Reached);
}

both_backends!(a_whole_trip_makes_each_wallet_entry_tracking_point_and_notification_once, whole_trip);

async fn whole_trip(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let mut world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    world
        .runtime
        .command(booking.id, By::Driver(the_driver.id), Command::Accept { driver: snapshot(&the_driver) })
        .await
        .unwrap();
    run_trip_to_reached(&mut world, booking.id, &the_driver).await;
    let paid = world
        .runtime
        .command(
            booking.id,
            By::Driver(the_driver.id),
            Command::Pay { mode: PaymentMode::Cash, wallet_balance: Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(paid.status, BookingStatus::Paid);
    let complete =
        world.runtime.command(booking.id, By::Rider(customer.id), Command::Rate { rating: Some(4) }).await.unwrap();
    assert_eq!(complete.status, BookingStatus::Complete);
    world.settle().await;

    // Wallet: the share credited and the cash debited, once each.
    let history = world.storage.wallet_history(the_driver.id, &wayfare_storage::PageRequest::first(50)).await.unwrap();
    assert_eq!(history.items.len(), 2);
    let balance = world.storage.wallet_balance(the_driver.id).await.unwrap();
    assert_eq!(balance, complete.driver_share - complete.cashPaymentAmount);
    assert!(
        world
            .storage
            .wallet_history(customer.id, &wayfare_storage::PageRequest::first(50))
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // Tracking: one point per stage and the streamed ones.
    let points = world.storage.tracking(booking.id).await.unwrap();
    let stages: Vec<BookingStatus> = points.iter().map(|point| point.status).collect();
    for stage in [BookingStatus::Accepted, BookingStatus::Arrived, BookingStatus::Reached] {
        assert_eq!(stages.iter().filter(|status| **status == stage).count(), 1, "{stage:?} once");
    }
    assert_eq!(
        stages.iter().filter(|status| **status == BookingStatus::Started).count(),
        5,
        "start plus four streamed"
    );
    assert!(points.windows(2).all(|pair| pair[0].at <= pair[1].at));
    assert!(complete.distance > 3.0, "the fare came from the tracked route: {}", complete.distance);

    // Notifications: each of the spec's once.
    let notices: Vec<(UserId, NoticeKey)> = world_notices(&mut world, booking.id);
    for (to, key) in [
        (customer.id, NoticeKey::BookingAccepted),
        (customer.id, NoticeKey::DriverArrived),
        (customer.id, NoticeKey::TripStarted),
        (customer.id, NoticeKey::TripReached),
        (customer.id, NoticeKey::PaymentReceived),
        (the_driver.id, NoticeKey::PaymentReceived),
        (the_driver.id, NoticeKey::RatingReceived),
        (the_driver.id, NoticeKey::AcceptBookingRequest),
    ] {
        assert_eq!(notices.iter().filter(|notice| **notice == (to, key)).count(), 1, "{key:?} to {to}");
    }
    let ratings = world.storage.ratings(the_driver.id).await.unwrap().unwrap();
    assert_eq!(ratings.userrating, rust_decimal::Decimal::from(4));
    let counts = world.runtime.counts().await.unwrap();
    assert_eq!(counts.active_bookings, 0, "the actor stopped at COMPLETE");
    assert_eq!(counts.available_drivers, 1, "the driver is free again");
    world.finish().await;
}

/// Every notification about a booking published so far (the world's
/// receiver was created before the booking, so none were missed).
fn world_notices(world: &mut World, booking: BookingId) -> Vec<(UserId, NoticeKey)> {
    world.drain();
    world
        .seen
        .iter()
        .filter_map(|event| match &**event {
            Event::Notification { to, key, booking: Some(id) } if *id == booking => Some((*to, *key)),
            _ => None,
        })
        .collect()
}

// ---- crashes and restarts ---------------------------------------------------------------

both_backends!(a_panicking_booking_actor_is_restarted_from_storage, panic_restart);

async fn panic_restart(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let mut world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    world
        .runtime
        .command(booking.id, By::Driver(the_driver.id), Command::Accept { driver: snapshot(&the_driver) })
        .await
        .unwrap();
    world.drain();
    assert!(world.runtime.crash_booking(booking.id));
    // The restarted actor announces the booking it read back from storage.
    let restored = world
        .wait_for(|event| match event {
            Event::BookingChanged(changed) if changed.id == booking.id => Some(changed.clone()),
            _ => None,
        })
        .await;
    assert_eq!(restored.status, BookingStatus::Accepted);
    assert_eq!(world.runtime.counts().await.unwrap().booking_restarts, 1, "the supervisor counted one restart");
    let live = world.runtime.booking(booking.id).await.unwrap();
    assert_eq!(live.status, BookingStatus::Accepted, "state came back from storage");
    run_trip_to_reached(&mut world, booking.id, &the_driver).await;
    let paid = world
        .runtime
        .command(
            booking.id,
            By::Driver(the_driver.id),
            Command::Pay { mode: PaymentMode::Cash, wallet_balance: Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(paid.status, BookingStatus::Paid);
    world.finish().await;
}

both_backends!(a_restarted_runtime_restores_active_bookings_and_their_timers, runtime_restart);

async fn runtime_restart(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let mut world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    let customer = rider(1);
    let on_trip = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, on_trip.id)).await;
    world
        .runtime
        .command(on_trip.id, By::Driver(the_driver.id), Command::Accept { driver: snapshot(&the_driver) })
        .await
        .unwrap();
    world
        .runtime
        .command(on_trip.id, By::Driver(the_driver.id), Command::Arrive { location: Some(PICKUP) })
        .await
        .unwrap();
    // A second booking nobody will take: its auto-cancel timer must survive the restart.
    let waiting = world.runtime.create_booking("Comfort", request(), &rider(2), By::Rider(rider(2).id)).await.unwrap();
    world.settle().await;

    world.restart().await;
    let counts = world.runtime.counts().await.unwrap();
    assert_eq!(counts.active_bookings, 2, "both active bookings are back");
    assert_eq!(counts.online_drivers, 1);
    assert_eq!(world.runtime.booking(on_trip.id).await.unwrap().status, BookingStatus::Arrived);
    assert!(counts.pending_timers >= 1, "the waiting booking's timers were re-armed");

    world.clock.set(T0 + 31 * MINUTE_MS);
    let cancelled = world.wait_for(|event| cancelled(event, waiting.id)).await;
    assert_eq!(cancelled.cancelledBy, Some(CancelledBy::System));

    let by = By::Driver(the_driver.id);
    world.runtime.command(on_trip.id, by, Command::Start { otp: None, location: Some(PICKUP) }).await.unwrap();
    world
        .runtime
        .command(on_trip.id, by, Command::Reach { location: Some(DROP), drop_address: None, route: vec![] })
        .await
        .unwrap();
    world
        .runtime
        .command(on_trip.id, by, Command::Pay { mode: PaymentMode::Cash, wallet_balance: Default::default() })
        .await
        .unwrap();
    let done =
        world.runtime.command(on_trip.id, By::Rider(customer.id), Command::Rate { rating: Some(5) }).await.unwrap();
    assert_eq!(done.status, BookingStatus::Complete);
    world.finish().await;
}

// ---- fixes from a real device ---------------------------------------------------------

both_backends!(fixes_sent_late_keep_their_time_and_vague_ones_are_not_used, device_fixes);

async fn device_fixes(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let mut world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    let by = By::Driver(the_driver.id);
    world.runtime.command(booking.id, by, Command::Accept { driver: snapshot(&the_driver) }).await.unwrap();
    world.runtime.command(booking.id, by, Command::Arrive { location: Some(PICKUP) }).await.unwrap();
    world.runtime.command(booking.id, by, Command::Start { otp: None, location: Some(PICKUP) }).await.unwrap();
    world.settle().await;
    let started_at = world.runtime.now();

    // The network was down for 20 s: the phone sends what it queued, each
    // fix with the time it was taken, and one vague fix among them.
    world.clock.advance(Duration::from_secs(20));
    let now = world.runtime.now();
    let fix = |seconds_ago: i64, km: f64, accuracy: f64| wayfare_actors::LocationUpdate {
        accuracy: Some(accuracy),
        at: Some(now - seconds_ago * 1000),
        ..wayfare_actors::LocationUpdate::at(LatLng::new(PICKUP.lat + km / 111.195, PICKUP.lng))
    };
    let queued = [fix(15, 0.2, 5.0), fix(10, 0.4, 5.0), fix(8, 3.0, 450.0), fix(5, 0.6, 5.0), fix(0, 0.8, 5.0)];
    for update in queued {
        world.runtime.driver_location(the_driver.id, update).unwrap();
    }
    let last = queued[4];
    world
        .wait_for(|event| {
            matches!(event, Event::Tracking { booking: id, point } if *id == booking.id && point.lat == last.lat)
                .then_some(())
        })
        .await;
    let streamed: Vec<TrackingPoint> = world
        .storage
        .tracking(booking.id)
        .await
        .unwrap()
        .into_iter()
        .filter(|point| point.status == BookingStatus::Started && point.at > started_at)
        .collect();
    let times: Vec<Millis> = streamed.iter().map(|point| point.at).collect();
    assert_eq!(times, vec![now - 15_000, now - 10_000, now - 5_000, now], "each at its own time, in order");
    assert!(streamed.iter().all(|point| point.lat < PICKUP.lat + 1.0 / 111.195), "the vague fix is not on the track");
    let view = world.runtime.driver(the_driver.id).await.unwrap();
    assert_eq!(view.position.map(|point| point.lat), Some(last.lat));

    // A fix sent again (a retry) is not stored twice, nor one older than the track.
    world.runtime.driver_location(the_driver.id, last).unwrap();
    world.runtime.driver_location(the_driver.id, fix(12, 0.3, 5.0)).unwrap();
    drain(&world, the_driver.id).await;
    assert_eq!(
        world.storage.tracking(booking.id).await.unwrap().len(),
        3 + 4,
        "accepted, arrived, started, four streamed"
    );
    world.finish().await;
}

both_backends!(a_driver_silent_for_thirty_seconds_is_shown_as_lost_until_the_next_fix, stale_driver);

async fn stale_driver(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    world.settle().await;
    let lost = async |world: &World| {
        let positions = world.runtime.driver_positions().await.unwrap();
        positions.iter().find(|position| position.id == the_driver.id).expect("online").stale
    };
    assert!(!lost(&world).await);
    world.clock.advance(Duration::from_secs(30));
    assert!(!lost(&world).await, "30 s is not yet lost");
    world.clock.advance(Duration::from_secs(1));
    assert!(lost(&world).await);
    // A vague fix does not bring them back: where they are is still unknown.
    let vague = wayfare_actors::LocationUpdate { accuracy: Some(300.0), ..wayfare_actors::LocationUpdate::at(PICKUP) };
    world.runtime.driver_location(the_driver.id, vague).unwrap();
    drain(&world, the_driver.id).await;
    assert!(lost(&world).await);
    world.runtime.driver_location(the_driver.id, wayfare_actors::LocationUpdate::at(PICKUP)).unwrap();
    drain(&world, the_driver.id).await;
    assert!(!lost(&world).await);
    world.finish().await;
}

/// Waits until the driver's actor has handled what it was sent, and the index after it.
async fn drain(world: &World, driver: UserId) {
    world.runtime.driver(driver).await.expect("online");
    world.settle().await;
}

// ---- issue #34: every booking ends, and its actor with it ------------------------------

both_backends!(the_give_up_timer_survives_a_restart_and_the_actor_is_released, give_up_after_restart);

async fn give_up_after_restart(backend: Backend) {
    let mut quick = settings();
    quick.noDriverCancelMinutes = 4;
    let mut world = World::start(backend, quick, &[]).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    assert_eq!(booking.searchingSince, Some(T0));
    assert_eq!(world.runtime.counts().await.unwrap().booking_actors, 1);
    world.clock.set(T0 + 2 * MINUTE_MS);
    world.restart().await;
    let counts = world.runtime.counts().await.unwrap();
    assert_eq!((counts.booking_actors, counts.active_bookings), (1, 1), "the waiting booking comes back");
    world.clock.set(T0 + 4 * MINUTE_MS);
    let cancelled = world.wait_for(|event| cancelled(event, booking.id)).await;
    assert_eq!(cancelled.reason, "no_driver_available");
    assert_eq!(cancelled.cancelledBy, Some(CancelledBy::System));
    assert_eq!(cancelled.cancellationFee, rust_decimal::Decimal::ZERO);
    world.settle().await;
    let counts = world.runtime.counts().await.unwrap();
    assert_eq!((counts.booking_actors, counts.active_bookings), (0, 0), "its actor stopped");
    world.restart().await;
    assert_eq!(world.runtime.counts().await.unwrap().booking_actors, 0, "a finished booking is not restored");
    world.finish().await;
}

both_backends!(a_paid_trip_nobody_rates_completes_by_itself_and_keeps_its_booked_drop, auto_complete);

async fn auto_complete(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let mut world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    let customer = rider(1);
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    let by = By::Driver(the_driver.id);
    world.runtime.command(booking.id, by, Command::Accept { driver: snapshot(&the_driver) }).await.unwrap();
    world.runtime.command(booking.id, by, Command::Arrive { location: None }).await.unwrap();
    world.runtime.command(booking.id, by, Command::Start { otp: booking.otp.0, location: None }).await.unwrap();
    // The driver stops 400 m short of the booked drop, named by the maps.
    let short = LatLng::new(DROP.lat - 0.0036, DROP.lng);
    let reach = Command::Reach { location: Some(short), drop_address: Some("2300 Boston St".into()), route: vec![] };
    let reached = world.runtime.command(booking.id, by, reach).await.unwrap();
    assert_eq!(reached.dropAddress, "Fort McHenry, Baltimore");
    let cash = Command::Pay { mode: PaymentMode::Cash, wallet_balance: Default::default() };
    let paid = world.runtime.command(booking.id, by, cash).await.unwrap();
    let complete_at = paid.timers.auto_complete.expect("the trip closes by itself").at;
    assert_eq!(complete_at, world.now() + 60 * MINUTE_MS);
    world.restart().await;
    assert_eq!(world.runtime.counts().await.unwrap().booking_actors, 1, "a PAID booking is still live");
    world.clock.set(complete_at);
    let done = world
        .wait_for(|event| match event {
            Event::BookingChanged(changed) if changed.id == booking.id && changed.status == BookingStatus::Complete => {
                Some(changed.clone())
            }
            _ => None,
        })
        .await;
    assert_eq!(done.rating, None);
    world.wait_for_booking_actors(0).await;
    // Stored: the booked drop, and the real end beside it.
    let stored = world.storage.booking(booking.id).await.unwrap();
    assert_eq!(
        (stored.dropAddress.as_str(), stored.drop.add.as_str()),
        ("Fort McHenry, Baltimore", "Fort McHenry, Baltimore")
    );
    let end = stored.actualDrop.expect("the real end is stored");
    assert_eq!((end.lat, end.lng, end.add.as_str()), (short.lat, short.lng, "2300 Boston St"));
    world.finish().await;
}

both_backends!(a_cancellation_fee_never_overdraws_and_the_rest_is_owed, owed_fee);

async fn owed_fee(backend: Backend) {
    let the_driver = driver(1, "Economy", 0.5);
    let mut world = World::start(backend, settings(), std::slice::from_ref(&the_driver)).await;
    let customer = rider(1);
    let top_up = wayfare_engine::booking::WalletChange {
        user: customer.id,
        entry_type: WalletEntryType::Credit,
        amount: rust_decimal_macros::dec!(1),
        tx_ref: "TopUp".into(),
        idempotency_key: "top-up-1".into(),
        overdraw: false,
    };
    world.storage.apply_wallet(&top_up, T0).await.unwrap();
    let booking = world.runtime.create_booking("Economy", request(), &customer, By::Rider(customer.id)).await.unwrap();
    world.wait_for(|event| offers_for(event, booking.id)).await;
    let by = By::Driver(the_driver.id);
    world.runtime.command(booking.id, by, Command::Accept { driver: snapshot(&the_driver) }).await.unwrap();
    // Six minutes after the accept the slab of 5 minutes (3.00) applies.
    world.clock.advance(Duration::from_secs(6 * 60));
    let cancel = Command::Cancel { reason: "changed my plans".into(), wallet_balance: None };
    let cancelled = world.runtime.command(booking.id, By::Rider(customer.id), cancel).await.unwrap();
    assert_eq!(cancelled.cancellationFee, rust_decimal_macros::dec!(3));
    assert_eq!(cancelled.cancellationFeeOwed, rust_decimal_macros::dec!(2));
    assert_eq!(world.storage.wallet_balance(customer.id).await.unwrap(), rust_decimal::Decimal::ZERO);
    assert_eq!(world.storage.wallet_balance(the_driver.id).await.unwrap(), rust_decimal_macros::dec!(3));
    let owed = world.storage.owed_bookings(None, 100).await.unwrap();
    assert_eq!(owed.fees.iter().map(|booking| booking.id).collect::<Vec<_>>(), vec![booking.id]);
    assert!(owed.pending.is_empty());
    let ledger = world.storage.booking_ledger(booking.id).await.unwrap();
    let moves: Vec<(UserId, WalletEntryType, rust_decimal::Decimal)> =
        ledger.iter().map(|record| (record.user, record.entry.entry_type, record.entry.amount)).collect();
    assert_eq!(
        moves,
        vec![
            (customer.id, WalletEntryType::Debit, rust_decimal_macros::dec!(1)),
            (the_driver.id, WalletEntryType::Credit, rust_decimal_macros::dec!(3)),
        ]
    );
    world.finish().await;
}
