//! The supervisor of booking and driver actors: it spawns them linked to
//! itself, hands each the peers it talks to, and, when one fails, starts it
//! again from storage and counts the restart. [`Children`] is how the
//! runtime (and the cluster's keeper) asks it for actors and stops them.

use crate::booking::BookingActor;
use crate::driver::DriverActor;
use crate::error::{ActorError, ActorResult, unwrap_call};
use crate::protocol::{BookingArgs, BookingMsg, DriverMsg, IndexMsg, SchedulerMsg, SupervisorCounts, SupervisorMsg};
use crate::shared::Shared;
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, SupervisionEvent};
use std::collections::HashMap;
use std::sync::Arc;
use tracing::{error, info, warn};
use wayfare_engine::{BookingId, User, UserId};

/// Starts and stops the supervisor's children: booking and driver actors.
#[derive(Clone)]
pub(crate) struct Children {
    pub shared: Arc<Shared>,
    pub supervisor: ActorRef<SupervisorMsg>,
    /// Told when a driver goes offline.
    pub index: ActorRef<IndexMsg>,
}

impl Children {
    /// Starts a booking's actor; with no effects, a stored booking is
    /// restored with its timers (at start, or a lease taken over).
    pub async fn spawn_booking(&self, args: BookingArgs) -> ActorResult<ActorRef<BookingMsg>> {
        let reply = self
            .supervisor
            .call(|reply| SupervisorMsg::SpawnBooking { args, reply }, self.shared.options.call_timeout)
            .await?;
        unwrap_call(reply)?.map_err(ActorError::Unavailable)
    }

    pub async fn spawn_driver(&self, user: User) -> ActorResult<ActorRef<DriverMsg>> {
        let reply = self
            .supervisor
            .call(|reply| SupervisorMsg::SpawnDriver { user, reply }, self.shared.options.call_timeout)
            .await?;
        unwrap_call(reply)?.map_err(ActorError::Unavailable)
    }

    /// Stops a driver's actor and takes the driver out of the index.
    pub async fn remove_driver(&self, driver: UserId) {
        if let Some(actor) = self.shared.drivers.get(&driver) {
            actor.stop_and_wait(None, self.shared.options.call_timeout).await.ok();
        }
        let _ = self.index.cast(IndexMsg::Remove { driver });
    }

    /// Stops the booking actors (their state is in storage).
    pub async fn stop_bookings(&self) {
        for (_, actor) in self.shared.bookings.all() {
            actor.stop_and_wait(None, self.shared.options.call_timeout).await.ok();
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Child {
    Booking(BookingId),
    Driver(UserId),
}

#[derive(Default)]
pub struct SupervisorState {
    children: HashMap<ActorId, Child>,
    counts: SupervisorCounts,
}

/// Holds the peers its children are started with: it is started after them.
pub struct Supervisor {
    pub shared: Arc<Shared>,
    pub index: ActorRef<IndexMsg>,
    pub scheduler: ActorRef<SchedulerMsg>,
}

impl Actor for Supervisor {
    type Msg = SupervisorMsg;
    type State = SupervisorState;
    type Arguments = ();

    async fn pre_start(&self, _myself: ActorRef<SupervisorMsg>, _: ()) -> Result<SupervisorState, ActorProcessingErr> {
        Ok(SupervisorState::default())
    }

    async fn handle(
        &self,
        myself: ActorRef<SupervisorMsg>,
        message: SupervisorMsg,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            SupervisorMsg::SpawnBooking { args, reply } => {
                let result = self.spawn_booking(&myself, state, args).await;
                let _ = reply.send(result);
            }
            SupervisorMsg::SpawnDriver { user, reply } => {
                let result = self.spawn_driver(&myself, state, user).await;
                let _ = reply.send(result);
            }
            SupervisorMsg::Counts(reply) => {
                let _ = reply.send(state.counts);
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<SupervisorMsg>,
        event: SupervisionEvent,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match event {
            SupervisionEvent::ActorStarted(_) => {}
            SupervisionEvent::ActorTerminated(cell, _, _) => {
                state.children.remove(&cell.get_id());
            }
            SupervisionEvent::ActorFailed(cell, failure) => {
                let Some(child) = state.children.remove(&cell.get_id()) else { return Ok(()) };
                warn!(?child, %failure, "actor failed; restarting from storage");
                // A panicking actor skips post_stop: forget it here.
                match child {
                    Child::Booking(id) => self.shared.bookings.remove_if(&id, cell.get_id()),
                    Child::Driver(id) => self.shared.drivers.remove_if(&id, cell.get_id()),
                }
                self.restart(&myself, state, child).await;
            }
            SupervisionEvent::ProcessGroupChanged(_) => {}
        }
        Ok(())
    }
}

impl Supervisor {
    async fn spawn_booking(
        &self,
        myself: &ActorRef<SupervisorMsg>,
        state: &mut SupervisorState,
        args: BookingArgs,
    ) -> Result<ActorRef<BookingMsg>, String> {
        let id = args.booking.id;
        // Two commands for a booking without an actor may both ask for one:
        // the first is the only one (spawns are serial here).
        if let Some(existing) = self.shared.bookings.get(&id)
            && ractor::ACTIVE_STATES.contains(&existing.get_status())
        {
            return Ok(existing);
        }
        let actor =
            BookingActor { shared: self.shared.clone(), index: self.index.clone(), scheduler: self.scheduler.clone() };
        let (actor_ref, _) =
            Actor::spawn_linked(None, actor, args, myself.get_cell()).await.map_err(|error| error.to_string())?;
        state.children.insert(actor_ref.get_id(), Child::Booking(id));
        Ok(actor_ref)
    }

    async fn spawn_driver(
        &self,
        myself: &ActorRef<SupervisorMsg>,
        state: &mut SupervisorState,
        user: User,
    ) -> Result<ActorRef<DriverMsg>, String> {
        if let Some(existing) = self.shared.drivers.get(&user.id) {
            return Ok(existing);
        }
        let id = user.id;
        let actor = DriverActor { shared: self.shared.clone(), index: self.index.clone() };
        let (actor_ref, _) =
            Actor::spawn_linked(None, actor, user, myself.get_cell()).await.map_err(|error| error.to_string())?;
        state.children.insert(actor_ref.get_id(), Child::Driver(id));
        Ok(actor_ref)
    }

    async fn restart(&self, myself: &ActorRef<SupervisorMsg>, state: &mut SupervisorState, child: Child) {
        let storage = &self.shared.storage;
        match child {
            Child::Booking(id) => {
                state.counts.booking_restarts += 1;
                match storage.booking(id).await {
                    Ok(booking) if booking.status.is_active() => {
                        if let Err(failure) = self.spawn_booking(myself, state, BookingArgs::restored(booking)).await {
                            error!(booking_id = %id, %failure, "booking actor could not be restarted");
                        } else {
                            info!(booking_id = %id, "booking actor restarted");
                        }
                    }
                    Ok(_) => {}
                    Err(failure) => error!(booking_id = %id, %failure, "booking not readable for restart"),
                }
            }
            Child::Driver(id) => {
                state.counts.driver_restarts += 1;
                match storage.user(id).await {
                    Ok(user) if user.driverActiveStatus => {
                        if let Err(failure) = self.spawn_driver(myself, state, user).await {
                            error!(driver_id = %id, %failure, "driver actor could not be restarted");
                        }
                    }
                    Ok(_) => {}
                    Err(failure) => error!(driver_id = %id, %failure, "driver not readable for restart"),
                }
            }
        }
    }
}
