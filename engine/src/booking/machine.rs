use super::create::{DISPATCH_RETRY_MS, set_timer, start_search};
use super::effect::{
    TX_REF_CANCELLATION_FEE, TX_REF_CASH_COLLECTED, TX_REF_DRIVER_SHARE, TX_REF_REFUND, TX_REF_WALLET_PAYMENT,
};
use super::{
    By, Command, Context, DriverSnapshot, Effect, NoticeKey, ParcelImage, Transition, WalletChange, WithdrawReason,
    booking_idempotency_key,
};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::UserId;
use crate::model::{
    AppCategory, Booking, BookingStatus, CancelledBy, Coord, LatLng, MINUTE_MS, Millis, PaymentMode, PaymentPacket,
    Place, TimerKind, TrackingPoint, WalletEntryType,
};
use crate::{fare, geo, money, promo};
use rust_decimal::Decimal;

/// The reason of a booking no driver took in time, a translation key the
/// apps show in the reader's language (DESIGN.md scheduler, issue #34).
pub const REASON_NO_DRIVER: &str = "no_driver_available";
/// The reason of a booking whose prepayment never came (spec §4 panel).
pub const REASON_PAYMENT_INCOMPLETE: &str = "payment_not_received";
/// A PENDING booking's rider is reminded this long after the trip, then daily.
pub const PAYMENT_REMINDER_AFTER_MS: Millis = 15 * MINUTE_MS;
pub const PAYMENT_REMINDER_EVERY_MS: Millis = 24 * 60 * MINUTE_MS;
/// The gateway recorded when an admin marks a card payment made outside the app.
pub const GATEWAY_MANUAL: &str = "manual";
/// The reason recorded when the lone requested driver declines (spec §4).
pub const REASON_DRIVER_DECLINED: &str = "The driver declined the booking";

// The panel's mending of a booking: settle, complete, refund (issue #34).
#[path = "mend.rs"]
mod mend;

/// Applies `command` by `by` to `booking` (spec §4).
pub fn apply(booking: &Booking, by: By, command: Command, context: &Context) -> DomainResult<Transition> {
    if let Command::Refund { refund } = command {
        // Money back is the one change a finished booking still takes.
        let mut step = Step { booking: booking.clone(), effects: Vec::new(), context };
        step.booking.updatedAt = context.now;
        step.refund(by, *refund)?;
        return Ok(Transition { booking: step.booking, effects: step.effects });
    }
    if !booking.status.is_active() {
        // No transition ever leaves COMPLETE or CANCELLED.
        return Err(match command {
            Command::Accept { .. } => ErrorKey::BookingTaken.into(),
            Command::TimerFired { .. } => ErrorKey::StaleTimer.into(),
            _ => ErrorKey::StatusNotAllowed.into(),
        });
    }
    let mut step = Step { booking: booking.clone(), effects: Vec::new(), context };
    step.booking.updatedAt = context.now;
    match command {
        Command::Offer { drivers, wave, deadline } => step.offer(by, drivers, wave, deadline)?,
        Command::Assign { driver } => step.assign(by, driver)?,
        Command::Accept { driver } => step.accept(by, driver)?,
        Command::Decline => step.decline(by)?,
        Command::Arrive { location } => step.arrive(by, location)?,
        Command::Start { otp, location } => step.start(by, otp, location)?,
        Command::Reach { location, drop_address, route } => step.reach(by, location, drop_address, route)?,
        Command::AwaitPayment => step.await_payment(by)?,
        Command::Pay { mode, wallet_balance } => step.pay(by, mode, wallet_balance)?,
        Command::ConfirmPayment { gateway, amount } => step.confirm_payment(by, gateway, amount)?,
        Command::Rate { rating } => step.rate(by, rating)?,
        Command::Cancel { reason, wallet_balance } => step.cancel(by, reason, wallet_balance.unwrap_or_default())?,
        Command::Settle { mode } => step.settle(by, mode)?,
        Command::Complete => step.complete(by)?,
        Command::Refund { .. } => unreachable!("handled before the status check"),
        Command::AttachImage { slot, url } => step.attach_image(by, slot, url)?,
        Command::TimerFired { kind, generation } => step.timer_fired(by, kind, generation)?,
    }
    Ok(Transition { booking: step.booking, effects: step.effects })
}

fn refuse<T>(key: ErrorKey) -> DomainResult<T> {
    Err(DomainError::new(key))
}

/// One transition being built.
struct Step<'a> {
    booking: Booking,
    effects: Vec<Effect>,
    context: &'a Context<'a>,
}

impl Step<'_> {
    fn now(&self) -> Millis {
        self.context.now
    }

    fn require_status(&self, allowed: &[BookingStatus]) -> DomainResult<()> {
        if allowed.contains(&self.booking.status) { Ok(()) } else { refuse(ErrorKey::StatusNotAllowed) }
    }

    fn require_system(&self, by: By) -> DomainResult<()> {
        if by == By::System { Ok(()) } else { refuse(ErrorKey::NotAllowed) }
    }

    /// The assigned driver, acting.
    fn require_assigned_driver(&self, by: By) -> DomainResult<UserId> {
        match by {
            By::Driver(id) if self.booking.is_assigned_to(&id) => Ok(id),
            By::Driver(_) => refuse(ErrorKey::NotFound),
            _ => refuse(ErrorKey::NotAllowed),
        }
    }

    fn require_customer(&self, by: By) -> DomainResult<UserId> {
        match by {
            By::Rider(id) if id == self.booking.customer => Ok(id),
            By::Rider(_) => refuse(ErrorKey::NotFound),
            _ => refuse(ErrorKey::NotAllowed),
        }
    }

    fn notify(&mut self, to: UserId, key: NoticeKey) {
        self.effects.push(Effect::Notify { to, key });
    }

    fn notify_customer(&mut self, key: NoticeKey) {
        self.notify(self.booking.customer, key);
    }

    fn track(&mut self, location: Option<LatLng>) {
        if let Some(point) = location.filter(LatLng::is_valid) {
            self.effects.push(Effect::Tracking(TrackingPoint {
                at: self.now(),
                status: self.booking.status,
                lat: point.lat,
                lng: point.lng,
            }));
        }
    }

    /// A ledger entry of this booking. `overdraw`: whether a debit may take
    /// the balance below zero (storage refuses it otherwise, in the commit).
    fn wallet(
        &mut self,
        user: UserId,
        entry_type: WalletEntryType,
        amount: Decimal,
        (tx_ref, purpose): (&str, &str),
        overdraw: bool,
    ) {
        if amount <= Decimal::ZERO {
            return;
        }
        self.effects.push(Effect::Wallet(WalletChange {
            user,
            entry_type,
            amount,
            tx_ref: format!("{tx_ref}:{}", self.booking.reference),
            idempotency_key: booking_idempotency_key(self.booking.id, purpose),
            overdraw,
        }));
    }

    fn set_timer(&mut self, kind: TimerKind, at: Millis) {
        set_timer(&mut self.booking, kind, at, &mut self.effects);
    }

    fn clear_timer(&mut self, kind: TimerKind) {
        if self.booking.timers.clear(kind) {
            self.effects.push(Effect::TimerCleared { kind });
        }
    }

    fn clear_all_timers(&mut self) {
        for kind in TimerKind::ALL {
            self.clear_timer(kind);
        }
        self.booking.dispatch.deadline = None;
    }

    fn take_requested(&mut self) -> Vec<UserId> {
        std::mem::take(&mut self.booking.requestedDrivers.0).into_iter().collect()
    }

    fn withdraw(&mut self, drivers: Vec<UserId>, reason: WithdrawReason) {
        if !drivers.is_empty() {
            self.effects.push(Effect::OfferWithdrawn { drivers, reason });
        }
    }

    fn offer(&mut self, by: By, drivers: Vec<UserId>, wave: u32, deadline: Option<Millis>) -> DomainResult<()> {
        self.require_system(by)?;
        self.require_status(&[BookingStatus::New])?;
        let mut offered = Vec::new();
        for driver in drivers {
            if !self.booking.dispatch.excluded(&driver) && self.booking.requestedDrivers.0.insert(driver) {
                offered.push(driver);
            }
        }
        if offered.is_empty() {
            return refuse(ErrorKey::NoEligibleDriver);
        }
        let dispatch = &mut self.booking.dispatch;
        dispatch.auto = true;
        dispatch.wave = wave;
        dispatch.deadline = deadline;
        for driver in &offered {
            self.notify(*driver, NoticeKey::AcceptBookingRequest);
        }
        self.effects.push(Effect::OfferMade { drivers: offered, deadline });
        match deadline {
            Some(at) => self.set_timer(TimerKind::OfferExpiry, at),
            None => self.clear_timer(TimerKind::OfferExpiry),
        }
        Ok(())
    }

    fn assign(&mut self, by: By, driver: UserId) -> DomainResult<()> {
        if !matches!(by, By::Admin(_)) {
            return refuse(ErrorKey::NotAllowed);
        }
        // Spec §4 panel assigns only with autoDispatch off; a booking no
        // driver has taken may be handed over with it on too (issue #34),
        // and the first accept still wins.
        self.require_status(&[BookingStatus::New])?;
        if !self.booking.requestedDrivers.0.insert(driver) {
            return refuse(ErrorKey::StatusNotAllowed);
        }
        // An admin's choice overrides an earlier decline.
        self.booking.dispatch.declined.remove(&driver);
        self.booking.dispatch.expired.remove(&driver);
        self.booking.dispatch.auto = false;
        self.notify(driver, NoticeKey::AcceptBookingRequest);
        self.effects.push(Effect::OfferMade { drivers: vec![driver], deadline: None });
        Ok(())
    }

    fn accept(&mut self, by: By, driver: DriverSnapshot) -> DomainResult<()> {
        let By::Driver(acting) = by else { return refuse(ErrorKey::NotAllowed) };
        if acting != driver.id {
            return refuse(ErrorKey::NotAllowed);
        }
        // Spec §4: accepting works only on a booking that still has requestedDrivers.
        if self.booking.status != BookingStatus::New || self.booking.requestedDrivers.0.is_empty() {
            return refuse(ErrorKey::BookingTaken);
        }
        if !self.booking.is_requested(&driver.id) {
            return refuse(ErrorKey::NotOffered);
        }
        let others: Vec<UserId> = self.take_requested().into_iter().filter(|other| *other != driver.id).collect();
        let booking = &mut self.booking;
        booking.status = BookingStatus::Accepted;
        booking.driver = Some(driver.id);
        booking.driver_name = driver.name;
        booking.driver_image = driver.image;
        booking.driver_contact = driver.contact;
        booking.driver_token = driver.push_token;
        booking.driverRating = driver.rating;
        booking.vehicle_number = driver.vehicle_number;
        booking.fleetadmin = driver.fleetadmin;
        booking.acceptedAt = Some(self.context.now);
        self.clear_all_timers();
        self.withdraw(others, WithdrawReason::Taken);
        self.effects.push(Effect::SetQueue { driver: driver.id, busy: true });
        self.notify_customer(NoticeKey::BookingAccepted);
        self.track(driver.location);
        Ok(())
    }

    fn decline(&mut self, by: By) -> DomainResult<()> {
        let By::Driver(driver) = by else { return refuse(ErrorKey::NotAllowed) };
        if self.booking.status != BookingStatus::New || !self.booking.is_requested(&driver) {
            return refuse(ErrorKey::NotOffered);
        }
        self.booking.requestedDrivers.0.remove(&driver);
        self.booking.dispatch.declined.insert(driver);
        self.withdraw(vec![driver], WithdrawReason::Declined);
        if !self.booking.requestedDrivers.0.is_empty() {
            return Ok(());
        }
        if self.more_waves_to_come() {
            // DESIGN.md waves: the next wave skips this driver; no need to
            // give up on the booking while the dispatcher has drivers to try.
            self.clear_timer(TimerKind::OfferExpiry);
            self.booking.dispatch.deadline = None;
            self.effects.push(Effect::RequestDispatch);
            return Ok(());
        }
        // Spec §4: the only requested driver declining cancels the booking.
        self.finish_cancel(CancelledBy::Driver, REASON_DRIVER_DECLINED.to_string(), None);
        Ok(())
    }

    fn more_waves_to_come(&self) -> bool {
        let settings = self.context.settings;
        self.booking.dispatch.auto
            && settings.autoDispatch
            && crate::dispatch::more_offers_to_come(settings.dispatchPolicy, self.booking.dispatch.wave, settings)
    }

    fn arrive(&mut self, by: By, location: Option<LatLng>) -> DomainResult<()> {
        self.require_assigned_driver(by)?;
        self.require_status(&[BookingStatus::Accepted])?;
        self.booking.status = BookingStatus::Arrived;
        self.booking.driver_arrive_time = Some(self.now());
        self.track(location);
        self.notify_customer(NoticeKey::DriverArrived);
        Ok(())
    }

    fn start(&mut self, by: By, otp: Option<u32>, location: Option<LatLng>) -> DomainResult<()> {
        self.require_assigned_driver(by)?;
        self.require_status(&[BookingStatus::Arrived])?;
        if let Some(expected) = self.booking.otp.0
            && otp != Some(expected)
        {
            return refuse(ErrorKey::OtpMismatch);
        }
        self.booking.status = BookingStatus::Started;
        self.booking.trip_start_time = Some(self.now());
        self.booking.startTime = Some(self.now());
        self.track(location);
        self.notify_customer(NoticeKey::TripStarted);
        Ok(())
    }

    fn reach(
        &mut self,
        by: By,
        location: Option<LatLng>,
        drop_address: Option<String>,
        route: Vec<LatLng>,
    ) -> DomainResult<()> {
        self.require_assigned_driver(by)?;
        self.require_status(&[BookingStatus::Started])?;
        let settings = self.context.settings;
        let now = self.now();
        let started = self.booking.trip_start_time.unwrap_or(now);
        let trip_secs = u64::try_from((now - started).max(0) / 1000).unwrap_or(0);
        let points: Vec<LatLng> = route.into_iter().chain(location).filter(LatLng::is_valid).collect();
        let booking = &mut self.booking;
        booking.status = BookingStatus::Reached;
        booking.trip_end_time = Some(now);
        booking.endTime = Some(now);
        booking.total_trip_time = trip_secs;
        // The booked drop stays; where the trip really ended goes beside it.
        if let Some(end) = location.filter(LatLng::is_valid).or(points.last().copied()) {
            let add = drop_address.filter(|address| !address.trim().is_empty()).unwrap_or_default();
            booking.actualDrop = Some(Place { lat: end.lat, lng: end.lng, add });
        }
        if booking.appcat == AppCategory::Taxi && !booking.prepaid {
            // Spec §4 REACHED: for taxi the distance comes from the tracked
            // points and the fare is computed again. Too few points (no
            // location stream) falls back to the route estimate.
            let car = self.context.car_type.ok_or(ErrorKey::SelectProper)?;
            let tracked_km = if points.len() >= 2 { geo::path_km(points.iter().copied()) } else { 0.0 };
            if tracked_km > 0.0 {
                // The trip view draws the way the trip went (the roads it was
                // matched to, when the maps could), not the estimate's line.
                booking.coords =
                    points.iter().map(|point| Coord { latitude: point.lat, longitude: point.lng }).collect();
            }
            let distance_km =
                if tracked_km > 0.0 { tracked_km } else { estimate_km(booking, settings.convert_to_mile) };
            let final_fare = fare::compute(
                car,
                distance_km,
                trip_secs,
                booking.parcelTypeSelected.as_ref(),
                booking.optionSelected.as_ref(),
                settings,
            );
            booking.distance = final_fare.distance;
            booking.trip_cost = final_fare.grand_total;
            booking.convenience_fees = final_fare.convenience_fees;
            booking.driver_share = final_fare.driver_share();
            let discount = booking
                .promo_details
                .as_ref()
                .map(|details| promo::discount(details, final_fare.grand_total, settings.decimal))
                .unwrap_or_default();
            booking.discount_amount = discount;
            booking.discount = discount;
            booking.payableAmount = money::round_to(final_fare.grand_total - discount, settings);
        } else {
            booking.distance = booking.estimateDistance;
        }
        let drop = booking.drop.clone();
        let customer = booking.customer;
        self.track(points.last().copied().or(Some(drop.point())));
        self.effects.push(Effect::SaveAddress { customer, place: drop });
        self.notify_customer(NoticeKey::TripReached);
        Ok(())
    }

    fn await_payment(&mut self, by: By) -> DomainResult<()> {
        let driver = self.require_assigned_driver(by)?;
        self.require_status(&[BookingStatus::Reached])?;
        if self.booking.prepaid {
            return refuse(ErrorKey::StatusNotAllowed);
        }
        self.set_pending(driver);
        self.notify_customer(NoticeKey::PaymentDue);
        Ok(())
    }

    /// Spec §4 PENDING: the trip waits for the rider's payment and the
    /// driver is free for the next booking.
    fn set_pending(&mut self, driver: UserId) {
        self.booking.status = BookingStatus::Pending;
        self.effects.push(Effect::SetQueue { driver, busy: false });
        self.set_timer(TimerKind::PaymentReminder, self.now() + PAYMENT_REMINDER_AFTER_MS);
    }

    /// The rider chose to pay by card (DESIGN.md: `/pay` by the rider, card:
    /// PENDING): REACHED → PENDING until a gateway confirms the payment
    /// (`ConfirmPayment`). The driver sees the booking change and may take
    /// the next one.
    fn choose_card(&mut self) -> DomainResult<()> {
        self.require_status(&[BookingStatus::Reached])?;
        let driver = self.booking.driver.expect("only assigned bookings reach REACHED");
        self.set_pending(driver);
        Ok(())
    }

    fn pay(&mut self, by: By, mode: PaymentMode, wallet_balance: Decimal) -> DomainResult<()> {
        self.require_status(&[BookingStatus::Reached, BookingStatus::Pending])?;
        let payable = self.booking.payableAmount;
        match by {
            By::Driver(_) => {
                self.require_assigned_driver(by)?;
                if self.booking.prepaid {
                    // Paid by card up front: nothing to collect.
                } else if mode == PaymentMode::Cash {
                    self.booking.payment_mode = Some(PaymentMode::Cash);
                    self.booking.cashPaymentAmount = payable;
                    self.booking.customer_paid = payable;
                } else {
                    // Wallet and card are the rider's to pay.
                    return refuse(ErrorKey::NotAllowed);
                }
            }
            By::Rider(_) => {
                let customer = self.require_customer(by)?;
                if self.booking.prepaid {
                    return refuse(ErrorKey::NotAllowed);
                }
                match mode {
                    // Cash goes to the driver.
                    PaymentMode::Cash => return refuse(ErrorKey::NotAllowed),
                    // The card itself is paid through a gateway's checkout.
                    PaymentMode::Card => return self.choose_card(),
                    PaymentMode::Wallet => {}
                }
                if wallet_balance < payable && !self.context.settings.negativeBalance {
                    return refuse(ErrorKey::InsufficientWalletBalance);
                }
                self.booking.payment_mode = Some(PaymentMode::Wallet);
                self.booking.usedWalletMoney = payable;
                self.booking.customer_paid = payable;
                // A choice the rider makes: a short wallet refuses it.
                let overdraw = self.context.settings.negativeBalance;
                self.wallet(
                    customer,
                    WalletEntryType::Debit,
                    payable,
                    (TX_REF_WALLET_PAYMENT, "wallet_payment"),
                    overdraw,
                );
            }
            _ => return refuse(ErrorKey::NotAllowed),
        }
        self.mark_paid();
        Ok(())
    }

    /// Spec §4 PAID: driver credited with the share, debited by the cash
    /// collected; queue cleared; both parties notified.
    fn mark_paid(&mut self) {
        let driver = self.booking.driver.expect("only assigned bookings reach REACHED");
        let from = self.booking.status;
        self.booking.status = BookingStatus::Paid;
        self.clear_timer(TimerKind::PaymentReminder);
        let share = self.booking.driver_share;
        let cash = self.booking.cashPaymentAmount;
        self.wallet(driver, WalletEntryType::Credit, share, (TX_REF_DRIVER_SHARE, "driver_share"), false);
        // The cash is in the driver's hand: owed whatever the balance.
        self.wallet(driver, WalletEntryType::Debit, cash, (TX_REF_CASH_COLLECTED, "cash_collected"), true);
        if from == BookingStatus::Reached {
            // PENDING already freed the driver.
            self.effects.push(Effect::SetQueue { driver, busy: false });
        }
        // Rating is optional: a trip nobody rates closes by itself.
        let complete_at = self.now() + self.context.settings.auto_complete_ms();
        self.set_timer(TimerKind::AutoComplete, complete_at);
        self.notify_customer(NoticeKey::PaymentReceived);
        self.notify(driver, NoticeKey::PaymentReceived);
    }

    fn confirm_payment(&mut self, by: By, gateway: String, amount: Decimal) -> DomainResult<()> {
        self.require_system(by)?;
        let payable = self.booking.payableAmount;
        if amount < payable {
            return refuse(ErrorKey::InvalidAmount);
        }
        match self.booking.status {
            BookingStatus::PaymentPending => {
                // Spec §4: a prepaid booking becomes NEW once paid.
                let booking = &mut self.booking;
                booking.status = BookingStatus::New;
                booking.prepaid = true;
                booking.payment_mode = Some(PaymentMode::Card);
                booking.gateway = Some(gateway);
                booking.cardPaymentAmount = amount;
                booking.customer_paid = amount;
                booking.paymentPacket = Some(PaymentPacket {
                    appcat: booking.appcat,
                    payment_mode: PaymentMode::Card,
                    customer_paid: amount,
                    discount_amount: booking.discount_amount,
                    usedWalletMoney: Decimal::ZERO,
                    cardPaymentAmount: amount,
                    cashPaymentAmount: Decimal::ZERO,
                    payableAmount: payable,
                    promo_applied: booking.promo_applied,
                    promo_details: booking.promo_details.clone(),
                });
                let mut effects = std::mem::take(&mut self.effects);
                start_search(&mut self.booking, self.context, &mut effects);
                self.effects = effects;
                Ok(())
            }
            BookingStatus::Reached | BookingStatus::Pending => {
                let booking = &mut self.booking;
                booking.payment_mode = Some(PaymentMode::Card);
                booking.gateway = Some(gateway);
                booking.cardPaymentAmount = amount;
                booking.customer_paid = amount;
                self.mark_paid();
                Ok(())
            }
            _ => refuse(ErrorKey::StatusNotAllowed),
        }
    }

    /// A parcel photo: delivery bookings only, when the settings ask for it,
    /// by the assigned driver, at the stage the photo belongs to. A new photo
    /// replaces the old one.
    fn attach_image(&mut self, by: By, slot: ParcelImage, url: String) -> DomainResult<()> {
        self.require_assigned_driver(by)?;
        if self.booking.appcat != AppCategory::Delivery || !slot.enabled(self.context.settings) {
            return refuse(ErrorKey::NotAllowed);
        }
        self.require_status(slot.allowed_in())?;
        match slot {
            ParcelImage::PickupImage => self.booking.pickup_image = Some(url),
            ParcelImage::DeliverImage => self.booking.deliver_image = Some(url),
        }
        Ok(())
    }

    /// PAID → COMPLETE by the rider, with stars or skipping them.
    fn rate(&mut self, by: By, rating: Option<u8>) -> DomainResult<()> {
        let customer = self.require_customer(by)?;
        self.require_status(&[BookingStatus::Paid])?;
        if rating.is_some_and(|stars| !(1..=5).contains(&stars)) {
            return refuse(ErrorKey::InvalidRating);
        }
        let driver = self.booking.driver.expect("a PAID booking has a driver");
        self.finish_complete();
        if let Some(rating) = rating {
            self.booking.rating = Some(rating);
            self.effects.push(Effect::RecordRating { driver, customer, rating });
            self.notify(driver, NoticeKey::RatingReceived);
        }
        Ok(())
    }

    fn finish_complete(&mut self) {
        self.booking.status = BookingStatus::Complete;
        self.clear_all_timers();
    }

    fn cancel(&mut self, by: By, reason: String, wallet_balance: Decimal) -> DomainResult<()> {
        self.require_status(&[
            BookingStatus::PaymentPending,
            BookingStatus::New,
            BookingStatus::Accepted,
            BookingStatus::Arrived,
        ])?;
        match by {
            By::Driver(driver) if self.booking.status == BookingStatus::New => {
                // An offered driver's cancel is a decline (DESIGN.md contract).
                if !self.booking.is_requested(&driver) {
                    return refuse(ErrorKey::NotOffered);
                }
                return self.decline(by);
            }
            By::Driver(_) => {
                self.require_assigned_driver(by)?;
            }
            By::Rider(_) => {
                self.require_customer(by)?;
            }
            By::Fleetadmin(fleet) if self.booking.fleetadmin != Some(fleet) => return refuse(ErrorKey::NotFound),
            By::Fleetadmin(_) | By::Admin(_) | By::System => {}
        }
        let reason = reason.trim().to_string();
        if reason.is_empty() {
            return refuse(ErrorKey::SelectProper);
        }
        let fee = match by {
            By::Rider(_) => self.cancellation_fee(),
            _ => Decimal::ZERO,
        };
        self.finish_cancel(by.cancelled_by(), reason, Some((fee, wallet_balance)));
        Ok(())
    }

    /// DESIGN.md: the highest slab whose minutes have passed since the driver accepted.
    fn cancellation_fee(&self) -> Decimal {
        let (Some(accepted_at), Some(car)) = (self.booking.acceptedAt, self.context.car_type) else {
            return Decimal::ZERO;
        };
        if !matches!(self.booking.status, BookingStatus::Accepted | BookingStatus::Arrived) {
            return Decimal::ZERO;
        }
        let minutes = (self.now() - accepted_at).max(0) / MINUTE_MS;
        car.cancelSlab
            .iter()
            .filter(|slab| i64::from(slab.minsDelayed) <= minutes)
            .max_by_key(|slab| slab.minsDelayed)
            .map(|slab| money::round_to(slab.amount.max(Decimal::ZERO), self.context.settings))
            .unwrap_or_default()
    }

    /// Spec §4 CANCELLED, with the fee and the refund of DESIGN.md. `fee`:
    /// the rider's cancellation fee and their wallet balance.
    fn finish_cancel(&mut self, cancelled_by: CancelledBy, reason: String, fee: Option<(Decimal, Decimal)>) {
        let prior = self.booking.status;
        let customer = self.booking.customer;
        self.booking.status = BookingStatus::Cancelled;
        self.booking.reason = reason;
        self.booking.cancelledBy = Some(cancelled_by);
        self.clear_all_timers();
        let requested = self.take_requested();
        self.withdraw(requested, WithdrawReason::Cancelled);
        let assigned =
            self.booking.driver.filter(|_| matches!(prior, BookingStatus::Accepted | BookingStatus::Arrived));
        if let Some(driver) = assigned {
            self.effects.push(Effect::SetQueue { driver, busy: false });
            let (fee, balance) = fee.unwrap_or_default();
            if fee > Decimal::ZERO {
                self.booking.cancellationFee = fee;
                // With negative balances off the wallet gives what it has;
                // the rest is owed (the report of money owed lists it).
                let debit =
                    if self.context.settings.negativeBalance { fee } else { fee.min(balance.max(Decimal::ZERO)) };
                self.booking.cancellationFeeOwed = fee - debit;
                let overdraw = self.context.settings.negativeBalance;
                self.wallet(
                    customer,
                    WalletEntryType::Debit,
                    debit,
                    (TX_REF_CANCELLATION_FEE, "cancellation_fee"),
                    overdraw,
                );
                // The driver came: paid the whole fee, whatever the rider owes.
                self.wallet(driver, WalletEntryType::Credit, fee, (TX_REF_CANCELLATION_FEE, "cancellation_fee"), false);
            }
            if cancelled_by != CancelledBy::Driver {
                self.notify(driver, NoticeKey::BookingCancelled);
            }
        }
        if self.booking.prepaid && self.booking.customer_paid > Decimal::ZERO {
            // DESIGN.md: a cancelled prepaid booking is refunded to the wallet.
            let refund = self.booking.customer_paid;
            self.wallet(customer, WalletEntryType::Credit, refund, (TX_REF_REFUND, "refund"), false);
        }
        if cancelled_by != CancelledBy::Rider {
            let key = if self.booking.reason == REASON_NO_DRIVER {
                NoticeKey::NoDriverAvailable
            } else {
                NoticeKey::BookingCancelled
            };
            self.notify_customer(key);
        }
    }

    fn timer_fired(&mut self, by: By, kind: TimerKind, generation: u64) -> DomainResult<()> {
        self.require_system(by)?;
        if !self.booking.timers.is_current(kind, generation) {
            // A timer from before the booking moved on: dropped, never acted upon.
            return refuse(ErrorKey::StaleTimer);
        }
        self.clear_timer(kind);
        let status = self.booking.status;
        match kind {
            TimerKind::OfferExpiry if status == BookingStatus::New => {
                let lapsed = self.take_requested();
                self.booking.dispatch.expired.extend(lapsed.iter().copied());
                self.booking.dispatch.deadline = None;
                self.withdraw(lapsed, WithdrawReason::Expired);
                self.effects.push(Effect::RequestDispatch);
            }
            TimerKind::DispatchRetry if status == BookingStatus::New && self.context.settings.autoDispatch => {
                if self.booking.requestedDrivers.0.is_empty() && self.booking.dispatch.deadline.is_none() {
                    // A fresh round: drivers who let an offer lapse may be free
                    // now; those who declined stay skipped.
                    self.booking.dispatch.wave = 0;
                    self.booking.dispatch.expired.clear();
                    self.effects.push(Effect::RequestDispatch);
                }
                self.set_timer(TimerKind::DispatchRetry, self.now() + DISPATCH_RETRY_MS);
            }
            TimerKind::AutoCancel if matches!(status, BookingStatus::New | BookingStatus::PaymentPending) => {
                let reason =
                    if status == BookingStatus::PaymentPending { REASON_PAYMENT_INCOMPLETE } else { REASON_NO_DRIVER };
                self.finish_cancel(CancelledBy::System, reason.to_string(), None);
            }
            TimerKind::BookLaterDispatch if status == BookingStatus::New => {
                self.booking.searchingSince = Some(self.now());
                self.effects.push(Effect::RequestDispatch);
                self.set_timer(TimerKind::DispatchRetry, self.now() + DISPATCH_RETRY_MS);
            }
            TimerKind::AutoComplete if status == BookingStatus::Paid => self.finish_complete(),
            TimerKind::PaymentReminder if status == BookingStatus::Pending => {
                self.notify_customer(NoticeKey::PaymentDue);
                self.set_timer(TimerKind::PaymentReminder, self.now() + PAYMENT_REMINDER_EVERY_MS);
            }
            // A live timer whose work no longer applies: it is just cleared.
            _ => {}
        }
        Ok(())
    }
}

/// The route estimate back in km.
fn estimate_km(booking: &Booking, convert_to_mile: bool) -> f64 {
    if convert_to_mile { booking.estimateDistance * crate::model::KM_PER_MILE } else { booking.estimateDistance }
}

impl Transition {
    /// Whether carrying this transition out asks the dispatcher for offers.
    pub fn requests_dispatch(&self) -> bool {
        self.effects.iter().any(|effect| matches!(effect, Effect::RequestDispatch))
    }

    /// Folds the first wave of offers into the transition that asked for
    /// them (a new booking's creation), so both are stored in one commit:
    /// the request is answered, so it is no longer an effect.
    pub fn with_offer(
        &self,
        drivers: Vec<UserId>,
        wave: u32,
        deadline: Option<Millis>,
        context: &Context,
    ) -> DomainResult<Transition> {
        if !self.requests_dispatch() {
            return Err(DomainError::new(ErrorKey::StatusNotAllowed));
        }
        let offered = apply(&self.booking, By::System, Command::Offer { drivers, wave, deadline }, context)?;
        let mut effects: Vec<Effect> =
            self.effects.iter().filter(|effect| !matches!(effect, Effect::RequestDispatch)).cloned().collect();
        effects.extend(offered.effects);
        Ok(Transition { booking: offered.booking, effects })
    }
}
