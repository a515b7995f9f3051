//! One actor per active booking: the only writer of that booking (DESIGN.md
//! invariant 1). Each message goes engine `apply` → one storage transaction →
//! events → reply; the mailbox makes accepts one at a time, so the first
//! valid accept wins and the storage version check is the second guard.

use crate::error::{ActorError, ActorResult};
use crate::events::{DispatchEntry, DispatchLog, Event};
use crate::protocol::{BookingArgs, BookingMsg, DriverFact, IndexMsg, SchedulerMsg};
use crate::shared::Shared;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::collections::HashMap;
use std::sync::Arc;
use tracing::{instrument, warn};
use wayfare_engine::booking::{self, By, Command, Context, Effect, Transition};
use wayfare_engine::dispatch::round_km;
use wayfare_engine::{Booking, BookingStatus, DomainError, ErrorKey, LatLng, PaymentMode, TimerKind, UserId};
use wayfare_storage::StorageError;

/// Its peers are handed over at spawn: the index that plans its offers and
/// the scheduler that keeps its timers.
pub struct BookingActor {
    pub shared: Arc<Shared>,
    pub index: ActorRef<IndexMsg>,
    pub scheduler: ActorRef<SchedulerMsg>,
}

pub struct BookingState {
    pub booking: Arc<Booking>,
    /// Distances of the wave being offered, for its log entry.
    offer_distances: HashMap<UserId, f64>,
}

impl Actor for BookingActor {
    type Msg = BookingMsg;
    type State = BookingState;
    type Arguments = BookingArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<BookingMsg>,
        args: BookingArgs,
    ) -> Result<BookingState, ActorProcessingErr> {
        let booking = Arc::new(args.booking);
        self.shared.bookings.insert(booking.id, myself.clone());
        // Timers live in the booking, so a restart re-arms them from storage.
        for kind in TimerKind::ALL {
            if let Some(timer) = booking.timers.get(kind) {
                let _ = self.scheduler.cast(SchedulerMsg::Schedule { booking: booking.id, kind, timer });
            }
        }
        let mut state = BookingState { booking, offer_distances: args.offer_distances };
        self.carry_out(&myself, &mut state, &args.effects, &[]);
        state.offer_distances.clear();
        Ok(state)
    }

    async fn post_start(
        &self,
        myself: ActorRef<BookingMsg>,
        state: &mut BookingState,
    ) -> Result<(), ActorProcessingErr> {
        if !state.booking.status.is_active() {
            myself.stop(None);
        }
        Ok(())
    }

    async fn post_stop(
        &self,
        myself: ActorRef<BookingMsg>,
        state: &mut BookingState,
    ) -> Result<(), ActorProcessingErr> {
        self.shared.bookings.remove_if(&state.booking.id, myself.get_id());
        if !state.booking.status.is_active() {
            self.shared.release_booking(state.booking.id).await;
        }
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<BookingMsg>,
        message: BookingMsg,
        state: &mut BookingState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            BookingMsg::Command { by, command, reply } => {
                let result = self.run(&myself, state, by, command).await;
                if let Some(reply) = reply {
                    let _ = reply.send(result);
                } else if let Err(error) = result {
                    warn!(booking_id = %state.booking.id, %error, "system command refused");
                }
            }
            BookingMsg::Offer { candidates, wave, deadline } => {
                state.offer_distances =
                    candidates.iter().map(|candidate| (candidate.driver, candidate.distance_km)).collect();
                let drivers = candidates.into_iter().map(|candidate| candidate.driver).collect();
                let command = Command::Offer { drivers, wave, deadline };
                if let Err(error) = self.run(&myself, state, By::System, command).await {
                    warn!(booking_id = %state.booking.id, %error, "offer refused");
                }
                state.offer_distances.clear();
            }
            BookingMsg::Timer { kind, generation } => {
                let command = Command::TimerFired { kind, generation };
                match self.run(&myself, state, By::System, command).await {
                    Ok(_) => {}
                    Err(ActorError::Domain(error)) if error.key == ErrorKey::StaleTimer => {}
                    Err(error) => warn!(booking_id = %state.booking.id, ?kind, %error, "timer failed"),
                }
            }
            BookingMsg::Snapshot(reply) => {
                let _ = reply.send(state.booking.clone());
            }
            BookingMsg::Superseded(newer) => {
                if newer.version > state.booking.version {
                    warn!(booking_id = %state.booking.id, version = newer.version, "committed by another node; stopping");
                    state.booking = newer;
                    myself.stop(None);
                    return Ok(());
                }
            }
            #[cfg(feature = "fault-injection")]
            BookingMsg::Crash => panic!("fault injection: booking actor crash"),
        }
        if !state.booking.status.is_active() {
            myself.stop(None);
        }
        Ok(())
    }
}

impl BookingActor {
    /// engine → storage → events; a lost compare-and-set reloads and tries once more.
    #[instrument(skip_all, fields(booking_id = %state.booking.id, command = command.name()))]
    async fn run(
        &self,
        myself: &ActorRef<BookingMsg>,
        state: &mut BookingState,
        by: By,
        command: Command,
    ) -> ActorResult<Arc<Booking>> {
        let command = self.gather_inputs(state, command).await?;
        for attempt in 0..2 {
            let transition = self.decide(&state.booking, by, command.clone())?;
            let now = self.shared.now();
            let committed = self
                .shared
                .storage
                .commit_booking(&transition.booking, Some(state.booking.version), &transition.effects, now)
                .await;
            match committed {
                Ok(committed) => {
                    let left_new =
                        state.booking.status == BookingStatus::New && committed.booking.status != BookingStatus::New;
                    state.booking = Arc::new(committed.booking);
                    if left_new {
                        // It may be waiting for a batch window; it no longer waits for a driver.
                        let _ = self.index.cast(IndexMsg::LeftNew { booking: state.booking.id });
                    }
                    self.carry_out(myself, state, &transition.effects, &committed.balances);
                    return Ok(state.booking.clone());
                }
                Err(StorageError::Conflict) if attempt == 0 => {
                    // Another process wrote first: start again from what it wrote.
                    state.booking = Arc::new(self.shared.storage.booking(state.booking.id).await?);
                }
                // Another booking took the driver first (spec §5: a driver in
                // queue is not eligible).
                Err(StorageError::DriverBusy) => return Err(DomainError::new(ErrorKey::DriverNotEligible).into()),
                Err(error) => return Err(error.into()),
            }
        }
        Err(StorageError::Conflict.into())
    }

    fn decide(&self, booking: &Booking, by: By, command: Command) -> ActorResult<Transition> {
        let catalog = self.shared.catalog();
        let context = Context {
            now: self.shared.now(),
            settings: &catalog.settings,
            car_type: catalog.car_type(&booking.carType),
        };
        Ok(booking::apply(booking, by, command, &context)?)
    }

    /// The server's own figures for the commands that need them: the tracked
    /// route at the drop, the rider's real wallet balance.
    async fn gather_inputs(&self, state: &BookingState, command: Command) -> ActorResult<Command> {
        Ok(match command {
            Command::Reach { location, drop_address, route } if route.is_empty() => {
                let started = state.booking.trip_start_time.unwrap_or(i64::MIN);
                let points = self.shared.storage.tracking(state.booking.id).await?;
                let route = points
                    .iter()
                    .filter(|point| point.at >= started)
                    .map(|point| LatLng::new(point.lat, point.lng))
                    .collect();
                Command::Reach { location, drop_address, route }
            }
            Command::Pay { mode: PaymentMode::Wallet, .. } => {
                let wallet_balance = self.shared.storage.wallet_balance(state.booking.customer).await?;
                Command::Pay { mode: PaymentMode::Wallet, wallet_balance }
            }
            // A cancellation fee is possible once a driver accepted: it takes
            // what the rider's wallet holds (negative balances off).
            Command::Cancel { reason, .. }
                if matches!(state.booking.status, BookingStatus::Accepted | BookingStatus::Arrived) =>
            {
                let wallet_balance = self.shared.storage.wallet_balance(state.booking.customer).await?;
                Command::Cancel { reason, wallet_balance: Some(wallet_balance) }
            }
            other => other,
        })
    }

    /// Publishes what happened and tells the other actors.
    fn carry_out(
        &self,
        myself: &ActorRef<BookingMsg>,
        state: &mut BookingState,
        effects: &[Effect],
        balances: &[(wayfare_engine::UserId, rust_decimal::Decimal)],
    ) {
        let shared = &self.shared;
        let booking = &state.booking;
        let now = shared.now();
        let log = |log| {
            shared.log_dispatch(DispatchEntry { at: now, booking: booking.id, car_type: booking.carType.clone(), log })
        };
        shared.bus.publish(Event::BookingChanged(booking.clone()));
        for effect in effects {
            match effect {
                Effect::Notify { to, key } => {
                    shared.bus.publish(Event::Notification { to: *to, key: *key, booking: Some(booking.id) })
                }
                Effect::Tracking(point) => shared.bus.publish(Event::Tracking { booking: booking.id, point: *point }),
                Effect::SetQueue { driver, busy } => {
                    shared.tell_driver(DriverFact::Busy { driver: *driver, busy: *busy });
                }
                Effect::OfferMade { drivers, deadline } => {
                    shared.bus.publish(Event::OfferMade {
                        booking: booking.clone(),
                        drivers: drivers.clone(),
                        deadline: *deadline,
                    });
                    // An admin's assignment has no distance at hand.
                    let distances_km =
                        drivers.iter().map(|driver| state.offer_distances.get(driver).copied().map(round_km)).collect();
                    log(DispatchLog::Offered {
                        wave: booking.dispatch.wave,
                        drivers: drivers.clone(),
                        distances_km,
                        deadline: *deadline,
                    });
                    for driver in drivers {
                        shared.tell_driver(DriverFact::Offered { driver: *driver, booking: booking.id });
                    }
                }
                Effect::OfferWithdrawn { drivers, reason } => {
                    shared.bus.publish(Event::OfferWithdrawn {
                        booking: booking.id,
                        drivers: drivers.clone(),
                        reason: *reason,
                    });
                    log(DispatchLog::Withdrawn { drivers: drivers.clone(), reason: *reason });
                    for driver in drivers {
                        shared.tell_driver(DriverFact::Withdrawn { driver: *driver, booking: booking.id });
                    }
                }
                Effect::RequestDispatch => {
                    let _ = self.index.cast(IndexMsg::Dispatch { booking: booking.clone(), reply_to: myself.clone() });
                }
                Effect::TimerSet { kind, timer } => {
                    let _ =
                        self.scheduler.cast(SchedulerMsg::Schedule { booking: booking.id, kind: *kind, timer: *timer });
                }
                Effect::TimerCleared { kind } => {
                    let _ = self.scheduler.cast(SchedulerMsg::Cancel { booking: booking.id, kind: *kind });
                }
                // Stored by the commit; nothing else to tell.
                Effect::Wallet(_)
                | Effect::RecordRating { .. }
                | Effect::SaveAddress { .. }
                | Effect::PromoUsed { .. }
                | Effect::Refund(_) => {}
            }
        }
        for (user, balance) in balances {
            shared.bus.publish(Event::WalletChanged { user: *user, balance: *balance });
        }
        if let Some(driver) = booking.driver {
            if booking.status == BookingStatus::Accepted
                && effects.iter().any(|effect| matches!(effect, Effect::SetQueue { busy: true, .. }))
            {
                log(DispatchLog::Accepted { driver });
            }
            shared.tell_driver(DriverFact::Trip { driver, booking: booking.id, status: booking.status });
        }
        if booking.status == BookingStatus::Cancelled {
            log(DispatchLog::Cancelled);
        }
    }
}
