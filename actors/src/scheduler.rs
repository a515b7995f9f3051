//! The scheduler: one timer queue for every booking. A timer carries the
//! generation it was set with; when it fires the booking actor hands it to
//! the engine, which drops it if the booking moved on. It sleeps through the
//! runtime's `Clock`, so tests run timers at virtual times.

use crate::protocol::{BookingMsg, SchedulerMsg};
use crate::shared::Shared;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use wayfare_engine::{BookingId, Millis, Timer, TimerKind};

#[derive(Default)]
pub struct SchedulerState {
    queue: BinaryHeap<Reverse<(Millis, u64, BookingId, TimerKind)>>,
    /// The live timer per (booking, kind); queue entries not matching it are stale.
    live: HashMap<(BookingId, TimerKind), Timer>,
    /// The deadline a wake-up is already on its way for.
    armed_for: Option<Millis>,
}

pub struct SchedulerActor {
    pub shared: Arc<Shared>,
}

impl Actor for SchedulerActor {
    type Msg = SchedulerMsg;
    type State = SchedulerState;
    type Arguments = ();

    async fn pre_start(&self, _myself: ActorRef<SchedulerMsg>, _: ()) -> Result<SchedulerState, ActorProcessingErr> {
        Ok(SchedulerState::default())
    }

    async fn handle(
        &self,
        myself: ActorRef<SchedulerMsg>,
        message: SchedulerMsg,
        state: &mut SchedulerState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            SchedulerMsg::Schedule { booking, kind, timer } => {
                let current = state.live.get(&(booking, kind));
                if current.is_some_and(|live| live.generation >= timer.generation) {
                    return Ok(());
                }
                state.live.insert((booking, kind), timer);
                state.queue.push(Reverse((timer.at, timer.generation, booking, kind)));
            }
            SchedulerMsg::Cancel { booking, kind } => {
                state.live.remove(&(booking, kind));
            }
            SchedulerMsg::Tick => {
                state.armed_for = None;
                self.fire_due(state);
            }
            SchedulerMsg::Pending(reply) => {
                let _ = reply.send(state.live.len());
            }
        }
        self.arm(&myself, state);
        Ok(())
    }
}

impl SchedulerActor {
    fn fire_due(&self, state: &mut SchedulerState) {
        let now = self.shared.now();
        while let Some(Reverse((at, generation, booking, kind))) = state.queue.peek().copied() {
            if at > now {
                break;
            }
            state.queue.pop();
            if state.live.get(&(booking, kind)).is_some_and(|live| live.generation == generation) {
                state.live.remove(&(booking, kind));
                if let Some(actor) = self.shared.bookings.get(&booking) {
                    let _ = actor.cast(BookingMsg::Timer { kind, generation });
                }
            }
        }
    }

    /// Makes sure a wake-up is coming for the earliest live deadline.
    fn arm(&self, myself: &ActorRef<SchedulerMsg>, state: &mut SchedulerState) {
        // Drop stale heads so they do not cause empty wake-ups.
        while let Some(Reverse((_, generation, booking, kind))) = state.queue.peek().copied() {
            if state.live.get(&(booking, kind)).is_some_and(|live| live.generation == generation) {
                break;
            }
            state.queue.pop();
        }
        let Some(Reverse((next, ..))) = state.queue.peek().copied() else { return };
        if state.armed_for.is_some_and(|armed| armed <= next) {
            return;
        }
        state.armed_for = Some(next);
        let wake = self.shared.clock.sleep_until(next);
        let scheduler = myself.clone();
        tokio::spawn(async move {
            wake.await;
            let _ = scheduler.cast(SchedulerMsg::Tick);
        });
    }
}
