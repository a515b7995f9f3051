//! The history's requests played again through the engine's booking
//! machine with the demo's people (see the parent module): the simulator
//! said who drove whom and when; this gives each ride a rider, a payment
//! mode, a promo, a rating or a cancellation, and keeps every wallet as the
//! ledger will hold it, so what is stored satisfies every invariant.

use super::{BOARDING_S, DAY_MS, HOUR_MS, HistorySummary, PROMO, SEED, TRACK_POINTS, World};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use std::collections::{BTreeMap, BTreeSet};
use wayfare_engine::booking::{
    self, By, Command, Context, DriverSnapshot, Effect, NewBooking, RouteInfo, WalletChange,
};
use wayfare_engine::rules::booking::DeliveryDetails;
use wayfare_engine::{
    AmountType, Booking, BookingId, CarType, Coord, LatLng, Millis, PaymentMode, Place, Promo, PromoId, Settings,
    TimerKind, TrackingPoint, UserId, WalletEntryType, WithdrawId, WithdrawRequest, geo, money, payment, promo, wallet,
};
use wayfare_storage::{PaymentOrder, PaymentRecord, PaymentStatus};

/// Everything to store, in the order it happened.
pub(super) struct Plan {
    pub(super) promo: Promo,
    pub(super) top_ups: Vec<TopUp>,
    pub(super) bookings: Vec<Planned>,
    pub(super) withdraws: Vec<Withdraw>,
    pub(super) summary: HistorySummary,
}

/// A booking as made and at its end, each with its effects: stored as the
/// server stores one, inserted when made and updated with the effects of
/// every later transition (tracking points need the booking's row first).
pub(super) struct Planned {
    pub(super) created: Booking,
    pub(super) created_effects: Vec<Effect>,
    pub(super) booking: Booking,
    pub(super) effects: Vec<Effect>,
    /// The update's time: when its money moved (its ledger entries' date).
    pub(super) at: Millis,
    pub(super) card: Option<PaymentRecord>,
}

/// Money a rider put in their wallet with the test card.
pub(super) struct TopUp {
    pub(super) payment: PaymentRecord,
    pub(super) credit: WalletChange,
}

pub(super) struct Withdraw {
    pub(super) request: WithdrawRequest,
    pub(super) debit: WalletChange,
    pub(super) completed_at: Option<Millis>,
}

/// A request the simulator played, with what happened to it.
pub(super) struct SimRide {
    pub(super) car: usize,
    pub(super) requested_at: Millis,
    pub(super) pickup: LatLng,
    pub(super) drop: LatLng,
    /// The drive from pickup to drop on the simulator's roads.
    pub(super) distance_m: f64,
    pub(super) time_ms: i64,
    pub(super) served: Option<Served>,
}

/// A request a driver took, as the simulator timed it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Served {
    /// Index into the fleet.
    pub(super) driver: usize,
    pub(super) accepted_at: Millis,
    pub(super) arrived_at: Millis,
    pub(super) dropped_at: Millis,
}

/// A request's places with their addresses, and its route.
pub(super) struct Routed {
    pub(super) pickup: Place,
    pub(super) drop: Place,
    pub(super) route: RouteInfo,
}

/// Plays the simulator's requests through the booking machine with the
/// demo's people, keeping their wallets as the ledger will.
pub(super) struct Replay<'a> {
    world: &'a World,
    rng: StdRng,
    balances: BTreeMap<UserId, Decimal>,
    /// Each fleet driver's ledger moves from bookings: (when, signed amount).
    driver_moves: Vec<Vec<(Millis, Decimal)>>,
    /// Each fleet driver's stars so far: (sum, count).
    ratings: Vec<(u64, u64)>,
    /// Where each fleet driver last was.
    positions: Vec<LatLng>,
    /// When each rider's last trip ends: a rider takes one trip at a time.
    riders_busy_until: Vec<Millis>,
    promo: Promo,
    promo_users: BTreeSet<UserId>,
    top_ups: Vec<TopUp>,
    bookings: Vec<Planned>,
    withdraws: Vec<Withdraw>,
    pub(super) summary: HistorySummary,
}

/// One booking being played: as made, where it is now and every effect since.
struct Play<'a> {
    created: Booking,
    created_effects: Vec<Effect>,
    booking: Booking,
    effects: Vec<Effect>,
    settings: &'a Settings,
    car: &'a CarType,
}

impl Play<'_> {
    fn apply(&mut self, at: Millis, by: By, command: Command) -> anyhow::Result<()> {
        let name = command.name();
        let context = Context { now: at, settings: self.settings, car_type: Some(self.car) };
        let transition = booking::apply(&self.booking, by, command, &context).map_err(|error| {
            anyhow::anyhow!("demo history: {name} on a {} booking: {error}", self.booking.status.as_str())
        })?;
        self.booking = transition.booking;
        self.effects.extend(transition.effects);
        Ok(())
    }

    fn timer(&self, kind: TimerKind) -> anyhow::Result<Command> {
        let timer = self.booking.timers.get(kind).ok_or_else(|| anyhow::anyhow!("demo history: no {kind:?} timer"))?;
        Ok(Command::TimerFired { kind, generation: timer.generation })
    }

    fn timer_at(&self, kind: TimerKind) -> Millis {
        self.booking.timers.get(kind).map_or(self.booking.updatedAt, |timer| timer.at)
    }
}

impl<'a> Replay<'a> {
    pub(super) fn new(world: &'a World) -> Replay<'a> {
        let window = world.window;
        let promo = Promo {
            id: PromoId(uuid::Uuid::from_u128(0x0000_0000_0000_7000_8000_9a00_0000_0001)),
            promo_name: PROMO.into(),
            promo_description: format!("10% off a first ride, up to {}5", world.settings.symbol),
            promo_discount_type: AmountType::Percentage,
            promo_discount_value: Decimal::TEN,
            max_promo_discount_value: Decimal::new(5, 0),
            min_order: Decimal::ZERO,
            // Still open to the living demo's riders.
            promo_validity: window.end + 60 * DAY_MS,
            promo_usage_limit: 0,
            user_avail: 0,
            createdAt: window.start,
        };
        Replay {
            world,
            rng: StdRng::seed_from_u64(SEED),
            balances: BTreeMap::new(),
            driver_moves: vec![Vec::new(); world.fleet.len()],
            ratings: vec![(0, 0); world.fleet.len()],
            positions: world.fleet.iter().map(|driver| driver.home).collect(),
            riders_busy_until: vec![Millis::MIN; world.riders.len()],
            promo,
            promo_users: BTreeSet::new(),
            top_ups: Vec::new(),
            bookings: Vec::new(),
            withdraws: Vec::new(),
            summary: HistorySummary { days: window.days, ..HistorySummary::default() },
        }
    }

    fn balance(&self, user: UserId) -> Decimal {
        self.balances.get(&user).copied().unwrap_or_default()
    }

    /// A uuid v7 of `at` with random bits from the history's generator, so
    /// ids sort by time and the same seed makes the same ids.
    fn id_at(&mut self, at: Millis) -> uuid::Uuid {
        let mut random = [0u8; 10];
        self.rng.fill(&mut random);
        uuid::Builder::from_unix_timestamp_millis(u64::try_from(at).unwrap_or(0), &random).into_uuid()
    }

    /// A rider free at `at`; the frequent ones more often.
    fn pick_rider(&mut self, at: Millis) -> usize {
        let weight = |index: usize| 1 + index % 4;
        let free: Vec<usize> =
            (0..self.world.riders.len()).filter(|index| self.riders_busy_until[*index] < at).collect();
        let candidates = if free.is_empty() { (0..self.world.riders.len()).collect() } else { free };
        let total: usize = candidates.iter().map(|index| weight(*index)).sum();
        let mut pick = self.rng.random_range(0..total);
        for index in &candidates {
            if pick < weight(*index) {
                return *index;
            }
            pick -= weight(*index);
        }
        candidates[0]
    }

    /// Most riders keep to one way of paying.
    fn payment_mode(&mut self, rider: usize) -> PaymentMode {
        const MODES: [PaymentMode; 3] = [PaymentMode::Cash, PaymentMode::Card, PaymentMode::Wallet];
        if self.rng.random_bool(0.75) { MODES[rider % 3] } else { MODES[self.rng.random_range(0..3)] }
    }

    /// The rider tops the wallet up with the test card to pay `needed`.
    fn top_up(&mut self, rider: UserId, needed: Decimal, at: Millis) {
        let short = needed - self.balance(rider);
        if short <= Decimal::ZERO {
            return;
        }
        // Whole fifties, at least a hundred: what people put in.
        let fifty = Decimal::new(50, 0);
        let amount = ((short / fifty).ceil() * fifty).max(Decimal::ONE_HUNDRED);
        let id = self.id_at(at);
        let payment = PaymentRecord {
            id,
            gateway: crate::payments::TEST_GATEWAY.into(),
            order: PaymentOrder::WalletTopUp,
            customer: rider,
            amount,
            currency: self.currency(),
            status: PaymentStatus::Paid,
            gateway_ref: None,
            event_id: None,
            success_url: crate::payments::DEFAULT_RETURN.into(),
            cancel_url: crate::payments::DEFAULT_RETURN.into(),
            settled_at: Some(at),
            created_at: at,
        };
        let credit = WalletChange {
            user: rider,
            entry_type: WalletEntryType::Credit,
            amount,
            tx_ref: payment::TX_REF_TOP_UP.into(),
            idempotency_key: payment::payment_idempotency_key(id),
            overdraw: false,
        };
        *self.balances.entry(rider).or_default() += amount;
        self.summary.top_ups += 1;
        self.top_ups.push(TopUp { payment, credit });
    }

    fn currency(&self) -> String {
        self.world.settings.code.trim().to_ascii_uppercase()
    }

    fn snapshot(&self, driver: usize) -> DriverSnapshot {
        let mut snapshot = DriverSnapshot::from(&self.world.fleet[driver].user);
        let (sum, count) = self.ratings[driver];
        if count > 0 {
            snapshot.rating = money::round(Decimal::from(sum) / Decimal::from(count), 1);
        }
        snapshot.location = Some(self.positions[driver]);
        snapshot
    }

    pub(super) fn play(&mut self, ride: &SimRide, routed: &Routed) -> anyhow::Result<()> {
        let world = self.world;
        let settings = &world.settings;
        let car = &world.car_types[ride.car];
        let requested = ride.requested_at;
        let rider_index = self.pick_rider(requested);
        let rider = &world.riders[rider_index];
        let mode = self.payment_mode(rider_index);
        let mut request = NewBooking {
            pickup: routed.pickup.clone(),
            drop: routed.drop.clone(),
            book_later: false,
            tripdate: None,
            route: routed.route.clone(),
            parcel_type_index: None,
            option_index: None,
            delivery: DeliveryDetails::default(),
            promo: None,
            payment_mode: Some(mode),
        };
        let context = Context { now: requested, settings, car_type: Some(car) };
        // Each rider uses the welcome code once, on one of their first bookings.
        if !self.promo_users.contains(&rider.id) && self.rng.random_bool(0.6) {
            let order = booking::estimate(&request, &context)?.grand_total;
            if let Ok(details) = promo::check(&self.promo, order, requested, false) {
                request.promo = Some(details);
                self.promo_users.insert(rider.id);
                self.summary.promo_uses += 1;
            }
        }
        let id = BookingId(self.id_at(requested));
        let created = booking::create(id, request, rider, By::Rider(rider.id), &context, &mut self.rng)?;
        let mut play = Play {
            created: created.booking.clone(),
            created_effects: created.effects,
            booking: created.booking,
            effects: Vec::new(),
            settings,
            car,
        };
        let Some(served) = ride.served else {
            // Nobody took it: the engine's no-driver timer cancels it.
            let at = play.timer_at(TimerKind::AutoCancel);
            play.apply(at, By::System, play.timer(TimerKind::AutoCancel)?)?;
            self.summary.no_driver += 1;
            self.riders_busy_until[rider_index] = at;
            self.keep(play, at, None);
            return Ok(());
        };
        let driver = served.driver;
        let driver_id = world.fleet[driver].user.id;
        let accepted = served.accepted_at.max(requested + 2_000);
        let offered = (accepted - self.rng.random_range(3_000..15_000)).max(requested + 1_000);
        let arrived = served.arrived_at.max(accepted);
        let started = arrived + BOARDING_S as i64 * 1000;
        let dropped = served.dropped_at.max(started + 60_000);
        let offer = |play: &mut Play| {
            let deadline = offered + i64::from(settings.dispatchOfferSeconds.max(1)) * 1000;
            let command = Command::Offer { drivers: vec![driver_id], wave: 1, deadline: Some(deadline) };
            play.apply(offered, By::System, command)
        };
        let reasons = crate::demo::cancel_reasons();
        let roll = self.rng.random::<f64>();
        if roll < 0.04 && accepted - requested > 30_000 {
            // The rider gives up while the search goes on.
            let at = self.rng.random_range(requested + 15_000..accepted - 5_000);
            if offered < at {
                offer(&mut play)?;
            }
            let reason = reasons[self.rng.random_range(1..reasons.len())].clone();
            let wallet_balance = Some(self.balance(rider.id));
            play.apply(at, By::Rider(rider.id), Command::Cancel { reason, wallet_balance })?;
            self.summary.cancelled_by_riders += 1;
            self.riders_busy_until[rider_index] = at;
            self.keep(play, at, None);
            return Ok(());
        }
        offer(&mut play)?;
        play.apply(accepted, By::Driver(driver_id), Command::Accept { driver: self.snapshot(driver) })?;
        if roll < 0.10 {
            // The rider cancels before the trip starts: a fee by the car's
            // slabs once enough minutes have passed since the driver accepted.
            let at = self.rng.random_range(accepted + 30_000..started - 5_000);
            if at >= arrived {
                play.apply(arrived, By::Driver(driver_id), Command::Arrive { location: Some(ride.pickup) })?;
            }
            let reason = if at - accepted >= 4 * 60_000 {
                reasons[0].clone()
            } else {
                reasons[self.rng.random_range(1..reasons.len())].clone()
            };
            let wallet_balance = Some(self.balance(rider.id));
            play.apply(at, By::Rider(rider.id), Command::Cancel { reason, wallet_balance })?;
            self.summary.cancelled_by_riders += 1;
            if play.booking.cancellationFee > Decimal::ZERO {
                self.summary.cancellation_fees += 1;
            }
            self.riders_busy_until[rider_index] = at;
            self.positions[driver] = ride.pickup;
            self.keep(play, at, None);
            return Ok(());
        }
        play.apply(arrived, By::Driver(driver_id), Command::Arrive { location: Some(ride.pickup) })?;
        let otp = play.booking.otp.0;
        play.apply(started, By::Driver(driver_id), Command::Start { otp, location: Some(ride.pickup) })?;
        let track = track(&routed.route.coords, started, dropped);
        // The points between the engine's own at the start and at the drop.
        for &(at, point) in track.iter().skip(1).take(track.len().saturating_sub(2)) {
            let status = play.booking.status;
            play.effects.push(Effect::Tracking(TrackingPoint { at, status, lat: point.lat, lng: point.lng }));
        }
        let route: Vec<LatLng> = track.iter().map(|(_, point)| *point).collect();
        let drop_address = Some(routed.drop.add.clone());
        let reach = Command::Reach { location: Some(ride.drop), drop_address, route };
        play.apply(dropped, By::Driver(driver_id), reach)?;
        let paid = dropped + self.rng.random_range(30_000..120_000);
        let payable = play.booking.payableAmount;
        let mut card = None;
        match mode {
            PaymentMode::Cash => {
                let pay = Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO };
                play.apply(paid, By::Driver(driver_id), pay)?;
                self.summary.cash += 1;
            }
            PaymentMode::Wallet => {
                self.top_up(rider.id, payable, dropped + 10_000);
                let pay = Command::Pay { mode: PaymentMode::Wallet, wallet_balance: self.balance(rider.id) };
                play.apply(paid, By::Rider(rider.id), pay)?;
                self.summary.wallet += 1;
            }
            PaymentMode::Card => {
                let pay = Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO };
                play.apply(dropped + 15_000, By::Rider(rider.id), pay)?;
                let checkout = dropped + 20_000;
                card = Some(PaymentRecord {
                    id: self.id_at(checkout),
                    gateway: crate::payments::TEST_GATEWAY.into(),
                    order: PaymentOrder::Booking(id),
                    customer: rider.id,
                    amount: payable,
                    currency: self.currency(),
                    status: PaymentStatus::Paid,
                    gateway_ref: None,
                    event_id: None,
                    success_url: crate::payments::DEFAULT_RETURN.into(),
                    cancel_url: crate::payments::DEFAULT_RETURN.into(),
                    settled_at: Some(paid),
                    created_at: checkout,
                });
                let gateway = crate::payments::TEST_GATEWAY.to_string();
                play.apply(paid, By::System, Command::ConfirmPayment { gateway, amount: payable })?;
                self.summary.card += 1;
            }
        }
        if self.rng.random_bool(0.85) {
            let stars = match self.rng.random_range(0..100) {
                0..60 => 5,
                60..85 => 4,
                85..95 => 3,
                95..98 => 2,
                _ => 1,
            };
            let at = paid + self.rng.random_range(60_000..20 * 60_000);
            play.apply(at, By::Rider(rider.id), Command::Rate { rating: Some(stars) })?;
            self.ratings[driver].0 += u64::from(stars);
            self.ratings[driver].1 += 1;
            self.summary.rated += 1;
        } else {
            // Never rated: the booking closes by itself.
            let at = play.timer_at(TimerKind::AutoComplete);
            play.apply(at, By::System, play.timer(TimerKind::AutoComplete)?)?;
        }
        self.summary.completed += 1;
        self.riders_busy_until[rider_index] = dropped;
        self.positions[driver] = ride.drop;
        self.keep(play, paid, card);
        Ok(())
    }

    /// Keeps a played booking and moves the wallets as its ledger entries will.
    fn keep(&mut self, play: Play, at: Millis, card: Option<PaymentRecord>) {
        for effect in play.created_effects.iter().chain(&play.effects) {
            match effect {
                Effect::Wallet(change) => {
                    *self.balances.entry(change.user).or_default() += change.signed_amount();
                    if let Some(driver) = self.world.fleet.iter().position(|driver| driver.user.id == change.user) {
                        self.driver_moves[driver].push((at, change.signed_amount()));
                    }
                }
                Effect::Tracking(_) => self.summary.tracking_points += 1,
                _ => {}
            }
        }
        self.summary.bookings += 1;
        let Play { created, created_effects, booking, effects, .. } = play;
        self.bookings.push(Planned { created, created_effects, booking, effects, at, card });
    }

    /// Every fourth day a driver with money in the wallet asks for most of
    /// it; the office pays it out within a day or so. A withdraw never asks
    /// for more than the driver had then, nor more than the bookings leave
    /// in the end: withdraws are stored after every booking.
    pub(super) fn plan_withdraws(&mut self) {
        let world = self.world;
        let window = world.window;
        for driver in 0..world.fleet.len() {
            let moves = self.driver_moves[driver].clone();
            let in_the_end: Decimal = moves.iter().map(|(_, amount)| *amount).sum();
            let mut withdrawn = Decimal::ZERO;
            for day in 0..window.days as usize {
                if (day + driver) % 4 != 3 {
                    continue;
                }
                let at = window.start + (day as i64 + 1) * DAY_MS - 2 * HOUR_MS - self.rng.random_range(0..4 * HOUR_MS);
                let then: Decimal = moves.iter().filter(|(when, _)| *when <= at).map(|(_, amount)| *amount).sum();
                let available = (then - withdrawn).min(in_the_end - withdrawn);
                let amount = (available * Decimal::new(9, 1)).floor();
                if amount < Decimal::new(20, 0) {
                    continue;
                }
                let user = &world.fleet[driver].user;
                let id = WithdrawId(self.id_at(at));
                let request = wallet::withdraw_request(id, user, amount, at);
                let key = wallet::withdraw_key(&id.to_string());
                let debit = wallet::withdraw_debit(&request, key, world.settings.negativeBalance);
                let paid_out = at + self.rng.random_range(4 * HOUR_MS..30 * HOUR_MS);
                let completed_at = (paid_out < window.end).then_some(paid_out);
                withdrawn += amount;
                self.summary.withdraws += 1;
                self.summary.withdraws_completed += u64::from(completed_at.is_some());
                self.withdraws.push(Withdraw { request, debit, completed_at });
            }
        }
        self.withdraws.sort_by_key(|withdraw| withdraw.request.date);
    }

    pub(super) fn finish(self) -> Plan {
        Plan {
            promo: self.promo,
            top_ups: self.top_ups,
            bookings: self.bookings,
            withdraws: self.withdraws,
            summary: self.summary,
        }
    }
}

/// A trip's track: the route's points (at most [`TRACK_POINTS`]) spread
/// over the trip by the distance driven.
pub(super) fn track(coords: &[Coord], from: Millis, to: Millis) -> Vec<(Millis, LatLng)> {
    let all: Vec<LatLng> = coords.iter().map(|coord| LatLng::new(coord.latitude, coord.longitude)).collect();
    let points: Vec<LatLng> = if all.len() <= TRACK_POINTS {
        all
    } else {
        (0..TRACK_POINTS).map(|index| all[index * (all.len() - 1) / (TRACK_POINTS - 1)]).collect()
    };
    let mut along = Vec::with_capacity(points.len());
    let mut km = 0.0;
    for (index, point) in points.iter().enumerate() {
        if index > 0 {
            km += geo::distance_km(points[index - 1], *point);
        }
        along.push(km);
    }
    let span = (to - from) as f64;
    points
        .iter()
        .zip(along)
        .enumerate()
        .map(|(index, (point, done))| {
            let share = if km > 0.0 { done / km } else { index as f64 / (points.len().max(2) - 1) as f64 };
            (from + (span * share).round() as i64, *point)
        })
        .collect()
}
