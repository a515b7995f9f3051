//! What the live dispatch console's `console` and `hexes` pushes are made
//! of. The fan-out feeds a [`Tracker`] every booking change and dispatch log
//! entry; at each tick it asks the tracker for the inputs of the engine's
//! `console::figures` and `console::hexagons`, once per scope (the admins',
//! or one fleet's) and resolution in use — never per socket.
//!
//! The tracker remembers the bookings of the last hour and those still open,
//! and the offers answered in the last hour; older history is dropped.

use std::collections::{BTreeSet, HashMap, VecDeque};
use wayfare_actors::{DispatchEntry, DispatchLog, DriverPosition};
use wayfare_engine::booking::WithdrawReason;
use wayfare_engine::console::{self, Demand, DemandKind, DispatchSample, Figures, OfferTally, Outcome};
use wayfare_engine::{Booking, BookingId, BookingStatus, LatLng, Millis, UserId};

/// Whose console: the admins' (everything) or one fleet admin's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Scope {
    All,
    Fleet(UserId),
}

/// The resolution a console shows until it asks for another.
pub(crate) const DEFAULT_RESOLUTION: u8 = 8;

/// Per-minute samples kept for the sparklines: the last hour.
const HISTORY_MINUTES: usize = 60;
const MINUTE: Millis = 60_000;

#[derive(Debug, Clone)]
struct Tracked {
    created: Millis,
    /// When the rider wanted a car: the booking time, or a Book Later's trip time.
    waiting_since: Millis,
    pickup: LatLng,
    status: BookingStatus,
    first_offer: Option<Millis>,
    time_to_accept: Option<Millis>,
    outcome: Option<Outcome>,
    /// Fleets whose drivers it was offered to, and the assigned driver's.
    fleets: BTreeSet<UserId>,
}

impl Tracked {
    fn is_open(&self, now: Millis) -> bool {
        self.status == BookingStatus::New && self.waiting_since <= now
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accepted,
    Declined,
    Expired,
}

#[derive(Debug, Default)]
pub(crate) struct Tracker {
    bookings: HashMap<BookingId, Tracked>,
    /// When each driver was offered each booking, for the time to accept.
    offered_at: HashMap<(BookingId, UserId), Millis>,
    /// Offers answered, oldest first.
    answers: VecDeque<(Millis, Answer, UserId)>,
    /// Per scope, one sample a minute, oldest first.
    history: HashMap<Scope, VecDeque<Figures>>,
}

impl Tracker {
    pub(crate) fn booking(&mut self, booking: &Booking) {
        let waiting_since = if booking.bookLater { booking.tripdate } else { booking.bookingDate };
        let tracked = self.bookings.entry(booking.id).or_insert_with(|| Tracked {
            created: booking.bookingDate,
            waiting_since,
            pickup: booking.pickup.point(),
            status: booking.status,
            first_offer: None,
            time_to_accept: None,
            outcome: None,
            fleets: BTreeSet::new(),
        });
        tracked.status = booking.status;
        tracked.fleets.extend(booking.fleetadmin);
        if booking.driver.is_some() {
            tracked.outcome = Some(Outcome::Assigned);
        } else if booking.status == BookingStatus::Cancelled {
            tracked.outcome = Some(Outcome::Unserved);
        }
    }

    /// A booking read at start: taken unless an event told of it already.
    pub(crate) fn restored(&mut self, booking: &Booking) {
        if !self.bookings.contains_key(&booking.id) {
            self.booking(booking);
        }
    }

    pub(crate) fn entry(&mut self, entry: &DispatchEntry, fleet_of: impl Fn(UserId) -> Option<UserId>) {
        let booking = entry.booking;
        match &entry.log {
            DispatchLog::Offered { drivers, .. } => {
                for driver in drivers {
                    self.offered_at.insert((booking, *driver), entry.at);
                }
                if let Some(tracked) = self.bookings.get_mut(&booking) {
                    tracked.first_offer.get_or_insert(entry.at);
                    tracked.fleets.extend(drivers.iter().filter_map(|driver| fleet_of(*driver)));
                }
            }
            DispatchLog::Withdrawn { drivers, reason } => {
                for driver in drivers {
                    self.offered_at.remove(&(booking, *driver));
                    let answer = match reason {
                        WithdrawReason::Declined => Answer::Declined,
                        WithdrawReason::Expired => Answer::Expired,
                        // Never answered: another driver won, or the rider left.
                        WithdrawReason::Taken | WithdrawReason::Cancelled => continue,
                    };
                    self.answers.push_back((entry.at, answer, *driver));
                }
            }
            DispatchLog::Accepted { driver } => {
                self.answers.push_back((entry.at, Answer::Accepted, *driver));
                let offered = self.offered_at.remove(&(booking, *driver));
                if let Some(tracked) = self.bookings.get_mut(&booking) {
                    tracked.time_to_accept = offered.map(|at| (entry.at - at).max(0));
                    tracked.outcome = Some(Outcome::Assigned);
                    tracked.fleets.extend(fleet_of(*driver));
                }
            }
            DispatchLog::NoCandidates { .. } | DispatchLog::Exhausted | DispatchLog::Cancelled => {}
        }
    }

    /// Forgets what the last hour's figures no longer need.
    pub(crate) fn prune(&mut self, now: Millis) {
        let since = now - console::figures::WINDOW_MS;
        // Older bookings count only while they wait for a driver.
        self.bookings.retain(|_, tracked| tracked.created > since || tracked.status == BookingStatus::New);
        let bookings = &self.bookings;
        self.offered_at.retain(|(booking, _), _| bookings.contains_key(booking));
        while self.answers.front().is_some_and(|(at, ..)| *at <= since) {
            self.answers.pop_front();
        }
    }

    fn in_scope(tracked: &Tracked, scope: Scope) -> bool {
        match scope {
            Scope::All => true,
            Scope::Fleet(fleet) => tracked.fleets.contains(&fleet),
        }
    }

    /// The engine's figures for a scope, from the drivers on the map now.
    pub(crate) fn figures(
        &self,
        scope: Scope,
        now: Millis,
        drivers: &[&DriverPosition],
        fleet_of: impl Fn(UserId) -> Option<UserId>,
    ) -> Figures {
        let since = now - console::figures::WINDOW_MS;
        let in_scope = self.bookings.values().filter(|tracked| Self::in_scope(tracked, scope));
        let mut waiting_since = Vec::new();
        let mut samples = Vec::new();
        for tracked in in_scope {
            if tracked.is_open(now) {
                waiting_since.push(tracked.waiting_since);
            }
            if tracked.created > since {
                samples.push(DispatchSample {
                    created: tracked.created,
                    first_offer: tracked.first_offer,
                    time_to_accept: tracked.time_to_accept,
                    outcome: tracked.outcome,
                });
            }
        }
        let mut offers = OfferTally::default();
        let theirs = |driver: UserId| match scope {
            Scope::All => true,
            Scope::Fleet(fleet) => fleet_of(driver) == Some(fleet),
        };
        for (_, answer, _) in self.answers.iter().filter(|(at, _, driver)| *at > since && theirs(*driver)) {
            match answer {
                Answer::Accepted => offers.accepted += 1,
                Answer::Declined => offers.declined += 1,
                Answer::Expired => offers.expired += 1,
            }
        }
        let online = drivers.len() as u32;
        let available = drivers.iter().filter(|driver| driver.available).count() as u32;
        console::figures(now, online, available, &waiting_since, &samples, offers)
    }

    /// Each booking of the scope at its pickup: open now, made in the last
    /// hour, and lost in the last hour without a driver.
    pub(crate) fn demand(&self, scope: Scope, now: Millis) -> Vec<Demand> {
        let since = now - console::figures::WINDOW_MS;
        let mut demand = Vec::new();
        for tracked in self.bookings.values().filter(|tracked| Self::in_scope(tracked, scope)) {
            let pickup = tracked.pickup;
            if tracked.is_open(now) {
                demand.push(Demand { pickup, kind: DemandKind::Open });
            }
            if tracked.created > since {
                demand.push(Demand { pickup, kind: DemandKind::Recent });
                if tracked.outcome == Some(Outcome::Unserved) {
                    demand.push(Demand { pickup, kind: DemandKind::Unserved });
                }
            }
        }
        demand
    }

    /// Keeps one sample a minute per scope; returns the scope's history.
    pub(crate) fn record(&mut self, scope: Scope, figures: Figures) -> &VecDeque<Figures> {
        let history = self.history.entry(scope).or_default();
        let minute = figures.at.div_euclid(MINUTE);
        if history.back().is_none_or(|last| last.at.div_euclid(MINUTE) < minute) {
            history.push_back(figures);
            while history.len() > HISTORY_MINUTES {
                history.pop_front();
            }
        }
        history
    }
}

/// The room a scope's hexes at a resolution go to.
pub(crate) fn hexes_room(scope: Scope, resolution: u8) -> String {
    match scope {
        Scope::All => format!("hexes:all:{resolution}"),
        Scope::Fleet(fleet) => format!("hexes:fleet:{fleet}:{resolution}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfare_engine::console::{DriverState, hexagons};

    const NOW: Millis = 1_800_000_000_000;
    const FLEET: UserId = UserId(uuid::Uuid::from_u128(100));
    const OURS: UserId = UserId(uuid::Uuid::from_u128(1));
    const OTHER: UserId = UserId(uuid::Uuid::from_u128(2));

    fn fleet_of(driver: UserId) -> Option<UserId> {
        (driver == OURS).then_some(FLEET)
    }

    fn booking(number: u128, created: Millis, status: BookingStatus) -> Booking {
        let json = serde_json::json!({
            "id": BookingId::from_u128(number), "reference": "ABCDEF", "appcat": "taxi", "carType": "Economy",
            "customer": UserId::from_u128(50),
            "pickup": {"lat": 39.28, "lng": -76.6, "add": "A"}, "drop": {"lat": 39.29, "lng": -76.59, "add": "B"},
            "pickupAddress": "A", "dropAddress": "B", "estimate": 10.0, "estimateDistance": 2.0, "estimateTime": 300,
            "status": status, "bookLater": false, "tripdate": created, "bookingDate": created, "otp": false,
            "trip_cost": 10.0, "convenience_fees": 1.0, "driver_share": 9.0, "payableAmount": 10.0,
        });
        serde_json::from_value(json).unwrap()
    }

    fn entry(number: u128, at: Millis, log: DispatchLog) -> DispatchEntry {
        DispatchEntry { at, booking: BookingId::from_u128(number), car_type: "Economy".into(), log }
    }

    fn offered(drivers: Vec<UserId>) -> DispatchLog {
        let distances_km = vec![None; drivers.len()];
        DispatchLog::Offered { wave: 1, drivers, distances_km, deadline: None }
    }

    fn position(id: UserId, available: bool) -> DriverPosition {
        DriverPosition {
            id,
            carType: "Economy".into(),
            lat: 39.28,
            lng: -76.6,
            available,
            state: DriverState::Available,
            heading: None,
            stale: false,
        }
    }

    /// Booking 1 waits (offered to both, OTHER declined); booking 2 was
    /// taken by OURS 8 s after its offer; booking 3 was cancelled unserved.
    fn known_hour() -> Tracker {
        let mut tracker = Tracker::default();
        tracker.booking(&booking(1, NOW - 3 * MINUTE, BookingStatus::New));
        tracker.entry(&entry(1, NOW - 3 * MINUTE + 200, offered(vec![OURS, OTHER])), fleet_of);
        let declined = DispatchLog::Withdrawn { drivers: vec![OTHER], reason: WithdrawReason::Declined };
        tracker.entry(&entry(1, NOW - 2 * MINUTE, declined), fleet_of);
        tracker.booking(&booking(2, NOW - 10 * MINUTE, BookingStatus::New));
        tracker.entry(&entry(2, NOW - 10 * MINUTE + 500, offered(vec![OURS])), fleet_of);
        tracker.entry(&entry(2, NOW - 10 * MINUTE + 8_500, DispatchLog::Accepted { driver: OURS }), fleet_of);
        let mut taken = booking(2, NOW - 10 * MINUTE, BookingStatus::Accepted);
        taken.driver = Some(OURS);
        taken.fleetadmin = Some(FLEET);
        tracker.booking(&taken);
        tracker.booking(&booking(3, NOW - 20 * MINUTE, BookingStatus::New));
        tracker.entry(&entry(3, NOW - 20 * MINUTE + 100, offered(vec![OTHER])), fleet_of);
        tracker.booking(&booking(3, NOW - 20 * MINUTE, BookingStatus::Cancelled));
        tracker
    }

    #[test]
    fn the_admins_figures_are_the_engines_on_the_tracked_hour() {
        let tracker = known_hour();
        let drivers = [position(OURS, false), position(OTHER, true)];
        let drivers: Vec<&DriverPosition> = drivers.iter().collect();
        let figures = tracker.figures(Scope::All, NOW, &drivers, fleet_of);
        let samples = [
            DispatchSample {
                created: NOW - 3 * MINUTE,
                first_offer: Some(NOW - 3 * MINUTE + 200),
                time_to_accept: None,
                outcome: None,
            },
            DispatchSample {
                created: NOW - 10 * MINUTE,
                first_offer: Some(NOW - 10 * MINUTE + 500),
                time_to_accept: Some(8_000),
                outcome: Some(Outcome::Assigned),
            },
            DispatchSample {
                created: NOW - 20 * MINUTE,
                first_offer: Some(NOW - 20 * MINUTE + 100),
                time_to_accept: None,
                outcome: Some(Outcome::Unserved),
            },
        ];
        let offers = OfferTally { accepted: 1, declined: 1, expired: 0 };
        assert_eq!(figures, console::figures(NOW, 2, 1, &[NOW - 3 * MINUTE], &samples, offers));
        assert_eq!(figures.waiting_over_2_min, 1);
    }

    #[test]
    fn a_fleets_figures_and_hexes_count_only_what_concerns_it() {
        let tracker = known_hour();
        let ours = position(OURS, false);
        let figures = tracker.figures(Scope::Fleet(FLEET), NOW, &[&ours], fleet_of);
        // Bookings 1 and 2 were offered to OURS; booking 3 only to OTHER.
        assert_eq!((figures.online, figures.available, figures.open), (1, 0, 1));
        assert_eq!(figures.acceptance_rate, Some(1.0), "OTHER's decline is not the fleet's");
        assert_eq!(figures.fulfilment, Some(1.0));
        let demand = tracker.demand(Scope::Fleet(FLEET), NOW);
        assert_eq!(demand.len(), 3, "booking 1 open and recent, booking 2 recent: {demand:?}");
        let all = tracker.demand(Scope::All, NOW);
        assert_eq!(all.iter().filter(|wanted| wanted.kind == DemandKind::Unserved).count(), 1);
        let cells = hexagons(8, [], all).unwrap();
        assert_eq!((cells[0].open, cells[0].recent, cells[0].unserved), (1, 3, 1));
    }

    #[test]
    fn history_keeps_one_sample_a_minute_for_an_hour_and_old_bookings_go() {
        let mut tracker = known_hour();
        for second in 0..(90 * 60 / 2) {
            let at = NOW + second * 2_000;
            let figures = tracker.figures(Scope::All, at, &[], fleet_of);
            tracker.record(Scope::All, figures);
        }
        let history = tracker.record(Scope::All, tracker.figures(Scope::All, NOW + 90 * MINUTE, &[], fleet_of));
        assert_eq!(history.len(), HISTORY_MINUTES);
        assert!(history.iter().zip(history.iter().skip(1)).all(|(a, b)| b.at - a.at == MINUTE));
        tracker.prune(NOW + 90 * MINUTE);
        // Booking 1 still waits; the others got a driver or were cancelled over an hour ago.
        assert_eq!(tracker.bookings.len(), 1);
        assert!(tracker.answers.is_empty());
    }
}
