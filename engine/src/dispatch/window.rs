//! The dispatch window: the one state machine for bookings that ask for
//! offers, under every policy. The spatial index actor drives it on the
//! runtime's clock and the simulator on its virtual one, so an engineer's
//! simulation dispatches as the server does by construction (issue #36).
//!
//! A booking's request is planned at once ([`DispatchWindow::ask`]): offers
//! of a wave, nothing (logged), or, under `batch`, a wait for the window.
//! The first booking to wait arms a window `dispatchBatchSeconds` ahead
//! ([`Wake`]); when it closes ([`DispatchWindow::close`]) the caller times
//! the problem's pickups (IO: the maps, or [`straight_line_times`]), masks
//! drivers gone meanwhile ([`DispatchWindow::timed`]), solves
//! ([`BatchProblem::solve`]) and hands the offers back
//! ([`DispatchWindow::matched`]), which arms the next window while bookings
//! still wait. No booking waiting, no window.
//!
//! `T` is the caller's handle of a waiting booking (the actor's reply
//! address and latest copy, the simulator's ride number); every step names
//! its window, and a step of another window is stale.

use super::index::{Candidate, DriverIndex};
use super::log::DispatchLog;
use super::policy::{BatchOffer, BatchProblem, DispatchPlan, batch_problem, plan};
use crate::geo;
use crate::ids::{BookingId, UserId};
use crate::model::{Booking, DispatchPolicy, LatLng, Millis, Settings};
use std::collections::{BTreeMap, HashSet};

/// The speed straight-line pickup times assume: a city average, door to
/// door. One speed for every driver keeps the matching's order that of the
/// distances.
pub const STRAIGHT_LINE_KMH: f64 = 30.0;

/// `times[i][j]`: the pickup time in seconds of booking i's candidate j, as
/// [`BatchProblem::solve`] reads it (`None` where no road joins them).
pub type PickupTimes = Vec<Vec<Option<u64>>>;

/// A straight line's drive at [`STRAIGHT_LINE_KMH`], in whole seconds.
pub fn straight_line_secs(from: LatLng, to: LatLng) -> u64 {
    (geo::distance_km(from, to) / STRAIGHT_LINE_KMH * 3600.0).round() as u64
}

/// Every pickup of `problem` in straight lines.
pub fn straight_line_times(problem: &BatchProblem) -> PickupTimes {
    problem
        .bookings
        .iter()
        .zip(&problem.candidates)
        .map(|((_, pickup, _), candidates)| {
            candidates.iter().map(|candidate| Some(straight_line_secs(candidate.position, *pickup))).collect()
        })
        .collect()
}

/// Close window `window` at `at` (a wake-up the caller arms on its clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wake {
    pub window: u64,
    pub at: Millis,
}

/// What a booking's request for offers comes to.
#[derive(Debug)]
pub enum Asked<T> {
    /// Send these offers (nearest first) to the booking as wave `wave`.
    Offer { to: T, drivers: Vec<Candidate>, wave: u32, deadline: Option<Millis> },
    /// Nothing to offer now: the booking stays NEW and its retry timer asks
    /// again. `log` is what the dispatch log records, if anything.
    Nothing { to: T, log: Option<DispatchLog> },
    /// The booking waits for a batch window; arm `wake` when given.
    Waits { wake: Option<Wake> },
}

/// What closing a window comes to.
#[derive(Debug)]
pub enum Closed<T> {
    /// Not the window under way: ignore.
    Stale,
    /// The policy changed (or auto-dispatch went off) while bookings waited:
    /// ask for each afresh.
    Replan(Vec<T>),
    /// Time this problem's pickups, then call [`DispatchWindow::timed`].
    Time(BatchProblem),
    /// Nobody to weigh; arm `wake` when given.
    Done { wake: Option<Wake> },
}

/// A window's offers, each with its booking's handle, and the next window.
#[derive(Debug)]
pub struct Matched<T> {
    pub offers: Vec<(T, BatchOffer)>,
    pub wake: Option<Wake>,
}

struct Waiting<T> {
    handle: T,
    /// A window found it no candidate since it last asked: logged once per
    /// request, not once per window.
    logged_no_candidates: bool,
}

/// The bookings waiting for a batch window and the window under way.
pub struct DispatchWindow<T> {
    /// Ordered by id, so a window's problem does not depend on hash order.
    waiting: BTreeMap<BookingId, Waiting<T>>,
    /// The current window's number.
    window: u64,
    /// A window is armed, or being timed or solved: one at a time.
    open: bool,
}

impl<T> Default for DispatchWindow<T> {
    fn default() -> Self {
        DispatchWindow { waiting: BTreeMap::new(), window: 0, open: false }
    }
}

impl<T> DispatchWindow<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A booking asks for offers: its next step under `settings`' policy.
    /// A booking already waiting has its handle replaced (its latest copy).
    pub fn ask(
        &mut self,
        booking: &Booking,
        handle: T,
        index: &DriverIndex,
        settings: &Settings,
        now: Millis,
    ) -> Asked<T> {
        match plan(booking, index, settings, now) {
            DispatchPlan::Offer { drivers, wave, deadline } => Asked::Offer { to: handle, drivers, wave, deadline },
            DispatchPlan::NoCandidates { wave } => {
                Asked::Nothing { to: handle, log: Some(DispatchLog::NoCandidates { wave }) }
            }
            DispatchPlan::Exhausted => Asked::Nothing { to: handle, log: Some(DispatchLog::Exhausted) },
            DispatchPlan::AwaitBatch => {
                self.waiting.insert(booking.id, Waiting { handle, logged_no_candidates: false });
                let wake = (!self.open).then(|| self.arm(settings, now));
                Asked::Waits { wake }
            }
            DispatchPlan::NotDispatchable => {
                self.waiting.remove(&booking.id);
                Asked::Nothing { to: handle, log: None }
            }
        }
    }

    /// The booking stopped waiting (it left NEW, or is gone).
    pub fn leave(&mut self, booking: BookingId) -> Option<T> {
        self.waiting.remove(&booking).map(|waiting| waiting.handle)
    }

    pub fn is_waiting(&self, booking: BookingId) -> bool {
        self.waiting.contains_key(&booking)
    }

    /// The handle of a waiting booking.
    pub fn handle(&self, booking: BookingId) -> Option<&T> {
        self.waiting.get(&booking).map(|waiting| &waiting.handle)
    }

    pub fn waiting_len(&self) -> usize {
        self.waiting.len()
    }

    /// The waiting bookings' handles, in booking id order.
    pub fn waiting(&self) -> impl Iterator<Item = &T> + '_ {
        self.waiting.values().map(|waiting| &waiting.handle)
    }

    /// Window `window` closes at `now`: its problem, built from the waiting
    /// bookings (`bookings`: their latest copies, as [`Self::waiting`]
    /// lists them), and the dispatch log lines it leaves (a booking with
    /// nobody in range, once per request). A booking not weighed because it
    /// holds offers stops waiting: it waits for answers, not for a window.
    pub fn close(
        &mut self,
        window: u64,
        bookings: &[&Booking],
        index: &DriverIndex,
        settings: &Settings,
        now: Millis,
    ) -> (Closed<T>, Vec<(BookingId, DispatchLog)>) {
        if !self.is_current(window) {
            return (Closed::Stale, Vec::new());
        }
        if !(settings.autoDispatch && settings.dispatchPolicy == DispatchPolicy::Batch) {
            self.open = false;
            let handles = std::mem::take(&mut self.waiting).into_values().map(|waiting| waiting.handle).collect();
            return (Closed::Replan(handles), Vec::new());
        }
        let problem = batch_problem(bookings, index, settings);
        let weighed: HashSet<BookingId> = problem.bookings.iter().map(|(booking, ..)| *booking).collect();
        let mut logs = Vec::new();
        for booking in bookings {
            if weighed.contains(&booking.id) {
                continue;
            }
            if !booking.requestedDrivers.0.is_empty() {
                self.waiting.remove(&booking.id);
                continue;
            }
            // Nobody to weigh; it waits for drivers to come into range.
            if let Some(waiting) = self.waiting.get_mut(&booking.id)
                && !waiting.logged_no_candidates
            {
                waiting.logged_no_candidates = true;
                logs.push((booking.id, DispatchLog::NoCandidates { wave: booking.dispatch.wave.saturating_add(1) }));
            }
        }
        if problem.is_empty() {
            return (Closed::Done { wake: self.finish(settings, now) }, logs);
        }
        (Closed::Time(problem), logs)
    }

    /// The window's pickups are timed: a pair whose driver is no longer
    /// available, or whose booking stopped waiting, is left out. False for
    /// a stale window.
    pub fn timed(
        &self,
        window: u64,
        problem: &BatchProblem,
        times: &mut PickupTimes,
        is_available: impl Fn(UserId) -> bool,
    ) -> bool {
        if !self.is_current(window) {
            return false;
        }
        for (((booking, ..), candidates), row) in problem.bookings.iter().zip(&problem.candidates).zip(times) {
            let waiting = self.waiting.contains_key(booking);
            for (candidate, time) in candidates.iter().zip(row.iter_mut()) {
                if !waiting || !is_available(candidate.driver) {
                    *time = None;
                }
            }
        }
        true
    }

    /// The window's matching is solved: each offer with its booking's handle
    /// (the booking stops waiting), leaving out a driver who went
    /// unavailable meanwhile (that booking waits for the next window), and
    /// the next window while bookings still wait. `None` for a stale window.
    pub fn matched(
        &mut self,
        window: u64,
        offers: Vec<BatchOffer>,
        is_available: impl Fn(UserId) -> bool,
        settings: &Settings,
        now: Millis,
    ) -> Option<Matched<T>> {
        if !self.is_current(window) {
            return None;
        }
        let mut sent = Vec::with_capacity(offers.len());
        for offer in offers {
            if !is_available(offer.driver.driver) {
                continue;
            }
            if let Some(waiting) = self.waiting.remove(&offer.booking) {
                sent.push((waiting.handle, offer));
            }
        }
        Some(Matched { offers: sent, wake: self.finish(settings, now) })
    }

    fn is_current(&self, window: u64) -> bool {
        self.open && self.window == window
    }

    /// A window `dispatchBatchSeconds` from now.
    fn arm(&mut self, settings: &Settings, now: Millis) -> Wake {
        self.window += 1;
        self.open = true;
        Wake { window: self.window, at: now + Millis::from(settings.dispatchBatchSeconds.max(1)) * 1000 }
    }

    /// The window is done: the next one is armed while bookings still wait.
    fn finish(&mut self, settings: &Settings, now: Millis) -> Option<Wake> {
        self.open = false;
        (!self.waiting.is_empty()).then(|| self.arm(settings, now))
    }
}

#[cfg(test)]
mod tests;
