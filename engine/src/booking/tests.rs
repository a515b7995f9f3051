//! Scenario tests of the booking state machine, each citing the spec rule.

use super::refunds::{Refund, RefundDestination, RefundStatus, refund_key};
use super::*;
use crate::error::{DomainResult, ErrorKey};
use crate::ids::{BookingId, CarTypeId, RefundId, UserId};
use crate::model::*;
use crate::rules::booking::DeliveryDetails;
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

const T0: Millis = 1_800_000_000_000;

fn rider_id() -> UserId {
    UserId::from_u128(1)
}
fn driver_id(n: u128) -> UserId {
    UserId::from_u128(100 + n)
}
fn admin_id() -> UserId {
    UserId::from_u128(9)
}

fn settings() -> Settings {
    Settings { autoDispatch: true, dispatchPolicy: DispatchPolicy::Waves, ..Settings::default() }
}

fn car() -> CarType {
    CarType {
        id: CarTypeId::from_u128(1),
        name: "Economy".into(),
        image: "economy.png".into(),
        base_fare: dec!(2.5),
        rate_per_unit_distance: dec!(1.2),
        rate_per_hour: dec!(18),
        min_fare: dec!(7),
        convenience_fees: dec!(10),
        convenience_fee_type: AmountType::Percentage,
        extra_info: String::new(),
        createdAt: 0,
        parcelTypes: vec![PricedChoice { description: "Small box".into(), amount: dec!(3) }],
        options: vec![PricedChoice { description: "Fragile".into(), amount: dec!(1.5) }],
        cancelSlab: vec![
            CancelSlab { minsDelayed: 2, amount: dec!(1) },
            CancelSlab { minsDelayed: 5, amount: dec!(3) },
            CancelSlab { minsDelayed: 10, amount: dec!(5) },
        ],
        optionRequired: false,
    }
}

fn rider() -> User {
    let mut user = User::new(rider_id(), Role::Rider, 0);
    user.firstName = "Rita".into();
    user.lastName = "Rider".into();
    user.email = "rita@example.com".into();
    user.mobile = "+14105550100".into();
    user.approved = true;
    user
}

fn snapshot(n: u128) -> DriverSnapshot {
    DriverSnapshot {
        id: driver_id(n),
        name: format!("Driver {n}"),
        image: String::new(),
        contact: "+14105550199".into(),
        push_token: String::new(),
        rating: dec!(4.5),
        vehicle_number: "MD-1234".into(),
        fleetadmin: None,
        location: Some(LatLng::new(39.29, -76.61)),
    }
}

fn request() -> NewBooking {
    NewBooking {
        pickup: Place { lat: 39.2858, lng: -76.6131, add: "Inner Harbor".into() },
        drop: Place { lat: 39.2634, lng: -76.5797, add: "Fort McHenry".into() },
        book_later: false,
        tripdate: None,
        route: RouteInfo { distance_km: 10.0, time_secs: 1800, coords: vec![], waypoints: vec![] },
        parcel_type_index: None,
        option_index: None,
        delivery: DeliveryDetails::default(),
        promo: None,
        payment_mode: Some(PaymentMode::Cash),
    }
}

struct World {
    settings: Settings,
    car: CarType,
    now: Millis,
}

impl World {
    fn new() -> Self {
        World { settings: settings(), car: car(), now: T0 }
    }

    fn context(&self) -> Context<'_> {
        Context { now: self.now, settings: &self.settings, car_type: Some(&self.car) }
    }

    fn create(&self, request: NewBooking, by: By) -> Transition {
        create(BookingId::from_u128(77), request, &rider(), by, &self.context(), &mut StdRng::seed_from_u64(5)).unwrap()
    }

    fn apply(&self, booking: &Booking, by: By, command: Command) -> DomainResult<Transition> {
        apply(booking, by, command, &self.context())
    }

    fn ok(&self, booking: &Booking, by: By, command: Command) -> Transition {
        self.apply(booking, by, command).unwrap()
    }

    /// A NEW booking offered to drivers 1..=n.
    fn offered(&self, n: u128) -> Booking {
        let booking = self.create(request(), By::Rider(rider_id())).booking;
        let drivers = (1..=n).map(driver_id).collect();
        self.ok(&booking, By::System, Command::Offer { drivers, wave: 1, deadline: Some(self.now + 20_000) }).booking
    }

    fn accepted(&self) -> Booking {
        let booking = self.offered(3);
        self.ok(&booking, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) }).booking
    }

    fn started(&self) -> Booking {
        let booking = self.accepted();
        let booking = self.ok(&booking, By::Driver(driver_id(1)), Command::Arrive { location: None }).booking;
        let otp = booking.otp.0;
        self.ok(
            &booking,
            By::Driver(driver_id(1)),
            Command::Start { otp, location: Some(LatLng::new(39.2858, -76.6131)) },
        )
        .booking
    }

    fn reached(&self) -> Booking {
        let booking = self.started();
        self.ok(
            &booking,
            By::Driver(driver_id(1)),
            Command::Reach { location: Some(LatLng::new(39.2634, -76.5797)), drop_address: None, route: vec![] },
        )
        .booking
    }
}

fn error(result: DomainResult<Transition>) -> ErrorKey {
    result.unwrap_err().key
}

fn has(effects: &[Effect], wanted: impl Fn(&Effect) -> bool) -> bool {
    effects.iter().any(wanted)
}

// ---- creation -------------------------------------------------------------

#[test]
fn a_taxi_booking_starts_new_and_asks_for_dispatch() {
    // spec §4 Creation: NEW when the app category is taxi; §4 Auto-dispatch
    let world = World::new();
    let transition = world.create(request(), By::Rider(rider_id()));
    let booking = &transition.booking;
    assert_eq!(booking.status, BookingStatus::New);
    assert_eq!(booking.tripdate, T0);
    assert_eq!(booking.reference.len(), 6);
    assert_eq!(booking.customer_name, "Rita Rider");
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    assert!(booking.timers.dispatch_retry.is_some());
    // Issue #34: Book Now gives up after noDriverCancelMinutes (default 10).
    assert_eq!(booking.timers.auto_cancel.unwrap().at, T0 + 10 * MINUTE_MS);
    assert_eq!(booking.searchingSince, Some(T0));
}

#[test]
fn the_server_computes_fare_fee_share_and_payable() {
    // spec §5 Fare; DESIGN.md invariant 5
    let world = World::new();
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    // 1.2 × 10 + 18 × 0.5 + 2.5 = 23.5; fee 10% = 2.35
    assert_eq!(booking.trip_cost, dec!(25.85));
    assert_eq!(booking.estimate, dec!(25.85));
    assert_eq!(booking.convenience_fees, dec!(2.35));
    assert_eq!(booking.driver_share, dec!(23.50));
    assert_eq!(booking.payableAmount, dec!(25.85));
}

#[test]
fn a_promo_lowers_what_the_rider_pays_not_the_driver_share() {
    let world = World::new();
    let mut with_promo = request();
    with_promo.promo = Some(PromoDetails {
        promo_name: "WELCOME".into(),
        promo_discount_type: AmountType::Flat,
        promo_discount_value: dec!(5),
        max_promo_discount_value: dec!(0),
    });
    let transition = world.create(with_promo, By::Rider(rider_id()));
    assert_eq!(transition.booking.discount_amount, dec!(5));
    assert_eq!(transition.booking.payableAmount, dec!(20.85));
    assert_eq!(transition.booking.driver_share, dec!(23.50));
    assert!(transition.booking.promo_applied);
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::PromoUsed { .. })));
}

#[test]
fn a_delivery_booking_by_a_rider_waits_for_payment_and_one_by_an_admin_does_not() {
    // spec §4 Creation: PAYMENT_PENDING otherwise; §9 delivery payment mode card
    let mut world = World::new();
    world.settings.appcat = AppCategory::Delivery;
    let by_rider = world.create(request(), By::Rider(rider_id()));
    assert_eq!(by_rider.booking.status, BookingStatus::PaymentPending);
    assert_eq!(by_rider.booking.payment_mode, Some(PaymentMode::Card));
    assert!(!has(&by_rider.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    let by_admin = world.create(request(), By::Admin(admin_id()));
    assert_eq!(by_admin.booking.status, BookingStatus::New);
    assert!(by_admin.booking.booking_type_admin);
}

#[test]
fn otp_secure_gives_a_five_digit_otp() {
    // spec §4 Creation, §9
    let mut world = World::new();
    assert_eq!(world.create(request(), By::Rider(rider_id())).booking.otp, Otp(None));
    world.settings.otp_secure = true;
    let otp = world.create(request(), By::Rider(rider_id())).booking.otp.0.unwrap();
    assert!((10_000..=99_999).contains(&otp));
}

#[test]
fn book_later_needs_fifteen_minutes_and_dispatches_fifteen_minutes_before() {
    // spec §5 Booking, §9; DESIGN.md scheduler
    let world = World::new();
    let mut later = request();
    later.book_later = true;
    later.tripdate = Some(T0 + 10 * MINUTE_MS);
    let refused = |later: &NewBooking| {
        create(
            BookingId::from_u128(1),
            later.clone(),
            &rider(),
            By::Rider(rider_id()),
            &world.context(),
            &mut StdRng::seed_from_u64(1),
        )
        .unwrap_err()
        .key
    };
    let key = refused(&later);
    assert_eq!(key, ErrorKey::PastBookingError);
    later.tripdate = None;
    let key = refused(&later);
    assert_eq!(key, ErrorKey::SelectProper);
    later.tripdate = Some(T0 + 60 * MINUTE_MS);
    let transition = world.create(later, By::Rider(rider_id()));
    assert!(!has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    assert_eq!(transition.booking.timers.book_later_dispatch.unwrap().at, T0 + 45 * MINUTE_MS);
    assert_eq!(transition.booking.timers.auto_cancel.unwrap().at, T0 + 90 * MINUTE_MS);
}

#[test]
fn without_auto_dispatch_nothing_is_dispatched() {
    // spec §4 Auto-dispatch: only with autoDispatch on
    let mut world = World::new();
    world.settings.autoDispatch = false;
    let transition = world.create(request(), By::Rider(rider_id()));
    assert!(!has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    assert!(transition.booking.timers.dispatch_retry.is_none());
}

#[test]
fn parcel_and_option_choices_are_priced_and_kept() {
    let world = World::new();
    let mut parcel = request();
    parcel.parcel_type_index = Some(0);
    parcel.option_index = Some(0);
    let booking = world.create(parcel.clone(), By::Rider(rider_id())).booking;
    assert_eq!(booking.parcelTypeSelected.unwrap().amount, dec!(3));
    assert_eq!(booking.trip_cost, dec!(30.80)); // (23.5 + 3 + 1.5) × 1.1
    parcel.option_index = Some(4);
    let key = create(
        BookingId::from_u128(1),
        parcel,
        &rider(),
        By::Rider(rider_id()),
        &world.context(),
        &mut StdRng::seed_from_u64(1),
    )
    .unwrap_err()
    .key;
    assert_eq!(key, ErrorKey::SelectProper);
}

// ---- offers, accept, decline ---------------------------------------------

#[test]
fn offers_notify_each_driver_and_set_the_wave_deadline() {
    let world = World::new();
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    let transition = world.ok(
        &booking,
        By::System,
        Command::Offer { drivers: vec![driver_id(1), driver_id(2)], wave: 1, deadline: Some(T0 + 20_000) },
    );
    assert_eq!(transition.booking.requestedDrivers.0.len(), 2);
    assert_eq!(transition.notified().filter(|(_, key)| *key == NoticeKey::AcceptBookingRequest).count(), 2);
    assert_eq!(transition.booking.timers.offer_expiry.unwrap().at, T0 + 20_000);
    assert_eq!(transition.booking.dispatch.wave, 1);
}

#[test]
fn a_first_wave_folded_into_the_creation_answers_its_dispatch_request() {
    // One commit for a new booking and its first offers: the same booking and
    // effects as offering right after creating, less the answered request.
    let world = World::new();
    let created = world.create(request(), By::Rider(rider_id()));
    assert!(created.requests_dispatch());
    let offer = Command::Offer { drivers: vec![driver_id(1), driver_id(2)], wave: 1, deadline: Some(T0 + 20_000) };
    let after = world.ok(&created.booking, By::System, offer);
    let folded = created.with_offer(vec![driver_id(1), driver_id(2)], 1, Some(T0 + 20_000), &world.context()).unwrap();
    assert_eq!(folded.booking, after.booking);
    assert!(!folded.requests_dispatch());
    let mut expected: Vec<Effect> =
        created.effects.into_iter().filter(|effect| !matches!(effect, Effect::RequestDispatch)).collect();
    expected.extend(after.effects);
    assert_eq!(folded.effects, expected);
    assert!(has(&folded.effects, |effect| matches!(effect, Effect::TimerSet { kind: TimerKind::DispatchRetry, .. })));
    assert!(has(&folded.effects, |effect| matches!(effect, Effect::OfferMade { drivers, .. } if drivers.len() == 2)));

    // A Book Later booking asked for no offers yet; an empty wave is refused.
    let mut later = request();
    later.book_later = true;
    later.tripdate = Some(T0 + 60 * MINUTE_MS);
    let waiting = world.create(later, By::Rider(rider_id()));
    let refused = waiting.with_offer(vec![driver_id(1)], 1, None, &world.context()).unwrap_err();
    assert_eq!(refused.key, ErrorKey::StatusNotAllowed);
    let created = world.create(request(), By::Rider(rider_id()));
    assert_eq!(created.with_offer(Vec::new(), 1, None, &world.context()).unwrap_err().key, ErrorKey::NoEligibleDriver);
}

#[test]
fn the_first_accept_wins_and_the_others_are_taken_back() {
    // spec §4 Driver assignment; DESIGN.md invariant 2
    let world = World::new();
    let booking = world.offered(3);
    let transition = world.ok(&booking, By::Driver(driver_id(2)), Command::Accept { driver: snapshot(2) });
    let won = &transition.booking;
    assert_eq!(won.status, BookingStatus::Accepted);
    assert_eq!(won.driver, Some(driver_id(2)));
    assert_eq!(won.driver_name, "Driver 2");
    assert_eq!(won.driverRating, dec!(4.5));
    assert!(won.requestedDrivers.0.is_empty());
    assert_eq!(won.acceptedAt, Some(T0));
    assert!(won.timers.next().is_none(), "dispatch timers end at acceptance");
    assert!(has(&transition.effects, |effect| matches!(effect,
        Effect::OfferWithdrawn { drivers, reason: WithdrawReason::Taken } if drivers == &vec![driver_id(1), driver_id(3)])));
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::SetQueue { busy: true, .. })));
    assert!(has(
        &transition.effects,
        |effect| matches!(effect, Effect::Tracking(point) if point.status == BookingStatus::Accepted)
    ));
    assert!(transition.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::BookingAccepted));
    let second = world.apply(won, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) });
    assert_eq!(error(second), ErrorKey::BookingTaken);
}

#[test]
fn a_driver_who_was_not_offered_cannot_accept() {
    let world = World::new();
    let booking = world.offered(2);
    assert_eq!(
        error(world.apply(&booking, By::Driver(driver_id(7)), Command::Accept { driver: snapshot(7) })),
        ErrorKey::NotOffered
    );
    // Someone acting as another driver.
    assert_eq!(
        error(world.apply(&booking, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(2) })),
        ErrorKey::NotAllowed
    );
    // A booking without requested drivers cannot be accepted at all.
    let fresh = world.create(request(), By::Rider(rider_id())).booking;
    assert_eq!(
        error(world.apply(&fresh, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) })),
        ErrorKey::BookingTaken
    );
}

#[test]
fn a_decline_removes_only_that_driver_and_is_remembered() {
    // spec §4 Driver cancels a task: otherwise the driver is only removed
    let world = World::new();
    let booking = world.offered(2);
    let transition = world.ok(&booking, By::Driver(driver_id(1)), Command::Decline);
    assert_eq!(transition.booking.status, BookingStatus::New);
    assert!(!transition.booking.is_requested(&driver_id(1)));
    assert!(transition.booking.dispatch.declined.contains(&driver_id(1)));
    // A later wave may not offer the driver again.
    let again = world.apply(
        &transition.booking,
        By::System,
        Command::Offer { drivers: vec![driver_id(1)], wave: 2, deadline: None },
    );
    assert_eq!(error(again), ErrorKey::NoEligibleDriver);
}

#[test]
fn the_lone_requested_driver_declining_cancels_the_booking() {
    // spec §4 Driver cancels a task: the only one in requestedDrivers
    let mut world = World::new();
    world.settings.autoDispatch = false;
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    let booking = world.ok(&booking, By::Admin(admin_id()), Command::Assign { driver: driver_id(1) }).booking;
    let transition = world.ok(&booking, By::Driver(driver_id(1)), Command::Decline);
    assert_eq!(transition.booking.status, BookingStatus::Cancelled);
    assert_eq!(transition.booking.cancelledBy, Some(CancelledBy::Driver));
    assert!(transition.booking.requestedDrivers.0.is_empty());
    assert!(transition.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::BookingCancelled));
}

#[test]
fn with_waves_left_a_lone_decline_asks_for_the_next_wave_instead() {
    // DESIGN.md waves: the next wave skips drivers who declined
    let world = World::new();
    let booking = world.offered(1);
    let transition = world.ok(&booking, By::Driver(driver_id(1)), Command::Decline);
    assert_eq!(transition.booking.status, BookingStatus::New);
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    assert!(transition.booking.timers.offer_expiry.is_none());
    // In the last wave the spec's rule applies again.
    let mut last_wave = booking.clone();
    last_wave.dispatch.wave = world.settings.dispatchMaxWaves;
    let transition = world.ok(&last_wave, By::Driver(driver_id(1)), Command::Decline);
    assert_eq!(transition.booking.status, BookingStatus::Cancelled);
}

#[test]
fn a_broadcast_lone_decline_cancels() {
    let mut world = World::new();
    world.settings.dispatchPolicy = DispatchPolicy::Broadcast;
    let booking = world.offered(1);
    let transition = world.ok(&booking, By::Driver(driver_id(1)), Command::Decline);
    assert_eq!(transition.booking.status, BookingStatus::Cancelled);
    assert!(!has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
}

#[test]
fn under_nearest_and_batch_a_lone_decline_asks_for_another_driver_whatever_the_wave() {
    // issue #16: nearest and batch offer one driver at a time and try the next
    for policy in [DispatchPolicy::Nearest, DispatchPolicy::Batch] {
        let mut world = World::new();
        world.settings.dispatchPolicy = policy;
        let mut booking = world.offered(1);
        // Far past dispatchMaxWaves, which only bounds waves.
        booking.dispatch.wave = world.settings.dispatchMaxWaves + 7;
        let transition = world.ok(&booking, By::Driver(driver_id(1)), Command::Decline);
        assert_eq!(transition.booking.status, BookingStatus::New, "{policy:?}");
        assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)), "{policy:?}");
        assert!(transition.booking.requestedDrivers.0.is_empty());
        assert!(transition.booking.dispatch.declined.contains(&driver_id(1)));
        assert!(transition.booking.timers.offer_expiry.is_none(), "{policy:?}: no lapse left to wait for");
        assert_eq!(transition.booking.cancelledBy, None);
    }
}

#[test]
fn an_offered_drivers_cancel_is_a_decline() {
    let world = World::new();
    let booking = world.offered(2);
    let transition =
        world.ok(&booking, By::Driver(driver_id(2)), Command::Cancel { reason: "busy".into(), wallet_balance: None });
    assert_eq!(transition.booking.status, BookingStatus::New);
    assert!(transition.booking.dispatch.declined.contains(&driver_id(2)));
}

#[test]
fn only_admins_assign_and_with_auto_dispatch_on_too() {
    // spec §4 panel: Assign driver only when NEW, by an admin; issue #34:
    // with autoDispatch on too, for a booking no driver has taken.
    let mut world = World::new();
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    let handed = world.ok(&booking, By::Admin(admin_id()), Command::Assign { driver: driver_id(2) });
    assert!(handed.booking.is_requested(&driver_id(2)));
    assert!(!handed.booking.dispatch.auto, "an admin's offer has no deadline and no next wave");
    let accepted = world.ok(&handed.booking, By::Driver(driver_id(2)), Command::Accept { driver: snapshot(2) });
    assert_eq!(accepted.booking.status, BookingStatus::Accepted);
    assert_eq!(
        error(world.apply(&accepted.booking, By::Admin(admin_id()), Command::Assign { driver: driver_id(1) })),
        ErrorKey::StatusNotAllowed
    );
    world.settings.autoDispatch = false;
    assert_eq!(
        error(world.apply(&booking, By::Rider(rider_id()), Command::Assign { driver: driver_id(1) })),
        ErrorKey::NotAllowed
    );
    let transition = world.ok(&booking, By::Admin(admin_id()), Command::Assign { driver: driver_id(1) });
    assert!(transition.booking.is_requested(&driver_id(1)));
    assert!(transition.notified().any(|(to, key)| to == driver_id(1) && key == NoticeKey::AcceptBookingRequest));
}

// ---- the trip -------------------------------------------------------------

#[test]
fn only_the_assigned_driver_runs_the_trip() {
    let world = World::new();
    let booking = world.accepted();
    assert_eq!(
        error(world.apply(&booking, By::Driver(driver_id(2)), Command::Arrive { location: None })),
        ErrorKey::NotFound
    );
    assert_eq!(
        error(world.apply(&booking, By::Rider(rider_id()), Command::Arrive { location: None })),
        ErrorKey::NotAllowed
    );
    // Stages cannot be skipped.
    assert_eq!(
        error(world.apply(&booking, By::Driver(driver_id(1)), Command::Start { otp: None, location: None })),
        ErrorKey::StatusNotAllowed
    );
}

#[test]
fn arrival_is_recorded_and_the_rider_told() {
    // spec §4 ARRIVED
    let world = World::new();
    let booking = world.accepted();
    let transition =
        world.ok(&booking, By::Driver(driver_id(1)), Command::Arrive { location: Some(LatLng::new(39.28, -76.61)) });
    assert_eq!(transition.booking.status, BookingStatus::Arrived);
    assert_eq!(transition.booking.driver_arrive_time, Some(T0));
    assert!(transition.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::DriverArrived));
}

#[test]
fn starting_checks_the_otp() {
    // spec §4 STARTED (otp check)
    let mut world = World::new();
    world.settings.otp_secure = true;
    let booking = world.accepted();
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Arrive { location: None }).booking;
    let otp = booking.otp.0.unwrap();
    let wrong = if otp == 99_999 { 10_000 } else { otp + 1 };
    assert_eq!(
        error(world.apply(&booking, By::Driver(driver_id(1)), Command::Start { otp: Some(wrong), location: None })),
        ErrorKey::OtpMismatch
    );
    assert_eq!(
        error(world.apply(&booking, By::Driver(driver_id(1)), Command::Start { otp: None, location: None })),
        ErrorKey::OtpMismatch
    );
    let transition = world.ok(
        &booking,
        By::Driver(driver_id(1)),
        Command::Start { otp: Some(otp), location: Some(LatLng::new(39.28, -76.61)) },
    );
    assert_eq!(transition.booking.status, BookingStatus::Started);
    assert_eq!(transition.booking.trip_start_time, Some(T0));
    assert!(has(
        &transition.effects,
        |effect| matches!(effect, Effect::Tracking(point) if point.status == BookingStatus::Started)
    ));
    assert!(transition.notified().any(|(_, key)| key == NoticeKey::TripStarted));
}

#[test]
fn reaching_recomputes_the_taxi_fare_from_the_tracked_route() {
    // spec §4 REACHED: distance from tracked points, final fare, fee, share
    let mut world = World::new();
    let booking = world.started();
    world.now = T0 + 20 * MINUTE_MS;
    // Three points about 1.11 km apart along a meridian: 2.22 km.
    let route = vec![LatLng::new(39.28, -76.61), LatLng::new(39.29, -76.61), LatLng::new(39.30, -76.61)];
    let transition = world.ok(
        &booking,
        By::Driver(driver_id(1)),
        Command::Reach { location: None, drop_address: Some("Fort McHenry, Baltimore".into()), route },
    );
    let reached = &transition.booking;
    assert_eq!(reached.status, BookingStatus::Reached);
    assert_eq!(reached.total_trip_time, 1200);
    assert!((reached.distance - 2.2239).abs() < 0.001, "{}", reached.distance);
    // 1.2 × 2.2239 + 18 × (1200/3600) + 2.5 = 11.1687 → 11.17; fee 1.12
    assert_eq!(reached.driver_share, dec!(11.17));
    assert_eq!(reached.convenience_fees, dec!(1.12));
    assert_eq!(reached.trip_cost, dec!(12.29));
    assert_eq!(reached.payableAmount, dec!(12.29));
    // Issue #34: the booked drop stays; where the trip ended goes beside it.
    assert_eq!(reached.dropAddress, "Fort McHenry");
    assert_eq!(reached.drop.add, "Fort McHenry");
    let end = reached.actualDrop.as_ref().expect("the real end is kept");
    assert_eq!((end.lat, end.lng, end.add.as_str()), (39.30, -76.61, "Fort McHenry, Baltimore"));
    // The trip's line is now the way it went.
    let drawn: Vec<(f64, f64)> = reached.coords.iter().map(|coord| (coord.latitude, coord.longitude)).collect();
    assert_eq!(drawn, vec![(39.28, -76.61), (39.29, -76.61), (39.30, -76.61)]);
    assert!(has(
        &transition.effects,
        |effect| matches!(effect, Effect::SaveAddress { customer, .. } if *customer == rider_id())
    ));
    assert!(has(
        &transition.effects,
        |effect| matches!(effect, Effect::Tracking(point) if point.status == BookingStatus::Reached)
    ));
    assert!(transition.notified().any(|(_, key)| key == NoticeKey::TripReached));
}

#[test]
fn reaching_without_a_tracked_route_uses_the_route_estimate() {
    let world = World::new();
    let reached = world.reached();
    assert!((reached.distance - 10.0).abs() < 1e-9);
    // Same distance, zero minutes: 1.2 × 10 + 2.5 = 14.5, fee 1.45
    assert_eq!(reached.trip_cost, dec!(15.95));
}

#[test]
fn delivery_fares_are_not_recomputed() {
    let mut world = World::new();
    world.settings.appcat = AppCategory::Delivery;
    let booking = world.create(request(), By::Admin(admin_id())).booking;
    let booking =
        world.ok(&booking, By::System, Command::Offer { drivers: vec![driver_id(1)], wave: 1, deadline: None }).booking;
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) }).booking;
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Arrive { location: None }).booking;
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Start { otp: None, location: None }).booking;
    let estimate = booking.trip_cost;
    let reached = world
        .ok(
            &booking,
            By::Driver(driver_id(1)),
            Command::Reach {
                location: None,
                drop_address: None,
                route: vec![LatLng::new(0.0, 0.0), LatLng::new(1.0, 1.0)],
            },
        )
        .booking;
    assert_eq!(reached.trip_cost, estimate);
}

#[test]
fn cash_collected_pays_the_driver_share_and_debits_the_cash() {
    // spec §4 PAID: credited with driver_share, debited by cashPaymentAmount
    let world = World::new();
    let reached = world.reached();
    let transition = world.ok(
        &reached,
        By::Driver(driver_id(1)),
        Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO },
    );
    let paid = &transition.booking;
    assert_eq!(paid.status, BookingStatus::Paid);
    assert_eq!(paid.cashPaymentAmount, dec!(15.95));
    assert_eq!(paid.customer_paid, dec!(15.95));
    let changes: Vec<_> = transition.wallet_changes().collect();
    assert_eq!(changes.len(), 2);
    assert_eq!(
        (changes[0].user, changes[0].entry_type, changes[0].amount),
        (driver_id(1), WalletEntryType::Credit, dec!(14.50))
    );
    assert_eq!(
        (changes[1].user, changes[1].entry_type, changes[1].amount),
        (driver_id(1), WalletEntryType::Debit, dec!(15.95))
    );
    assert_ne!(changes[0].idempotency_key, changes[1].idempotency_key);
    // The cash is in the driver's hand: its debit is owed even from an empty wallet.
    assert!(changes[1].overdraw);
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::SetQueue { busy: false, .. })));
    assert!(transition.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::PaymentReceived));
    assert!(transition.notified().any(|(to, key)| to == driver_id(1) && key == NoticeKey::PaymentReceived));
}

#[test]
fn the_rider_pays_from_the_wallet_after_the_driver_moves_on() {
    // spec §4 PENDING (queue cleared) then PAID by wallet
    let world = World::new();
    let reached = world.reached();
    let pending = world.ok(&reached, By::Driver(driver_id(1)), Command::AwaitPayment);
    assert_eq!(pending.booking.status, BookingStatus::Pending);
    assert!(has(&pending.effects, |effect| matches!(effect, Effect::SetQueue { busy: false, .. })));
    let low = world.apply(
        &pending.booking,
        By::Rider(rider_id()),
        Command::Pay { mode: PaymentMode::Wallet, wallet_balance: dec!(3) },
    );
    assert_eq!(error(low), ErrorKey::InsufficientWalletBalance);
    let paid = world.ok(
        &pending.booking,
        By::Rider(rider_id()),
        Command::Pay { mode: PaymentMode::Wallet, wallet_balance: dec!(100) },
    );
    assert_eq!(paid.booking.usedWalletMoney, dec!(15.95));
    let total: Decimal =
        paid.wallet_changes().filter(|change| change.user == rider_id()).map(WalletChange::signed_amount).sum();
    assert_eq!(total, dec!(-15.95));
    // Storage refuses the debit if the wallet no longer holds the fare when it commits.
    assert!(paid.wallet_changes().filter(|change| change.user == rider_id()).all(|change| !change.overdraw));
    assert!(
        !has(&paid.effects, |effect| matches!(effect, Effect::SetQueue { .. })),
        "PENDING already freed the driver"
    );
}

#[test]
fn negative_balance_setting_lets_a_wallet_go_below_zero() {
    let mut world = World::new();
    world.settings.negativeBalance = true;
    let reached = world.reached();
    let paid =
        world.ok(&reached, By::Rider(rider_id()), Command::Pay { mode: PaymentMode::Wallet, wallet_balance: dec!(1) });
    assert_eq!(paid.booking.status, BookingStatus::Paid);
}

#[test]
fn payment_roles_are_checked() {
    let world = World::new();
    let reached = world.reached();
    let pay = |by, mode| world.apply(&reached, by, Command::Pay { mode, wallet_balance: dec!(100) });
    assert_eq!(error(pay(By::Rider(rider_id()), PaymentMode::Cash)), ErrorKey::NotAllowed);
    assert_eq!(error(pay(By::Rider(UserId::from_u128(55)), PaymentMode::Wallet)), ErrorKey::NotFound);
    assert_eq!(error(pay(By::Driver(driver_id(1)), PaymentMode::Wallet)), ErrorKey::NotAllowed);
    assert_eq!(error(pay(By::Admin(admin_id()), PaymentMode::Cash)), ErrorKey::NotAllowed);
}

#[test]
fn the_rider_choosing_card_leaves_the_trip_pending_until_the_gateway_confirms() {
    // DESIGN.md: `/pay` by the rider with card → PENDING; spec §4 PENDING frees the driver
    let world = World::new();
    let reached = world.reached();
    let pending = world.ok(
        &reached,
        By::Rider(rider_id()),
        Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO },
    );
    assert_eq!(pending.booking.status, BookingStatus::Pending);
    assert!(has(&pending.effects, |effect| matches!(effect, Effect::SetQueue { busy: false, .. })));
    assert_eq!(pending.wallet_changes().count(), 0, "no money moves until the gateway confirms");
    assert_eq!(pending.booking.customer_paid, Decimal::ZERO);
    // Once pending, choosing card again is refused; the wallet still pays.
    let again = world.apply(
        &pending.booking,
        By::Rider(rider_id()),
        Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO },
    );
    assert_eq!(error(again), ErrorKey::StatusNotAllowed);
    let paid =
        world.ok(&pending.booking, By::System, Command::ConfirmPayment { gateway: "test".into(), amount: dec!(15.95) });
    assert_eq!(paid.booking.status, BookingStatus::Paid);
    assert_eq!(paid.booking.payment_mode, Some(PaymentMode::Card));
    // Only the booking's rider chooses; the driver collects cash only.
    assert_eq!(
        error(world.apply(
            &reached,
            By::Rider(UserId::from_u128(55)),
            Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO }
        )),
        ErrorKey::NotFound
    );
    assert_eq!(
        error(world.apply(
            &reached,
            By::Driver(driver_id(1)),
            Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO }
        )),
        ErrorKey::NotAllowed
    );
}

#[test]
fn a_card_confirmation_pays_a_pending_booking() {
    let world = World::new();
    let pending = world.ok(&world.reached(), By::Driver(driver_id(1)), Command::AwaitPayment).booking;
    assert_eq!(
        error(world.apply(&pending, By::System, Command::ConfirmPayment { gateway: "test".into(), amount: dec!(1) })),
        ErrorKey::InvalidAmount
    );
    assert_eq!(
        error(world.apply(
            &pending,
            By::Rider(rider_id()),
            Command::ConfirmPayment { gateway: "test".into(), amount: dec!(15.95) }
        )),
        ErrorKey::NotAllowed
    );
    let paid = world.ok(&pending, By::System, Command::ConfirmPayment { gateway: "test".into(), amount: dec!(15.95) });
    assert_eq!(paid.booking.status, BookingStatus::Paid);
    assert_eq!(paid.booking.cardPaymentAmount, dec!(15.95));
    assert_eq!(paid.booking.gateway.as_deref(), Some("test"));
    // A replay finds the booking paid already.
    assert_eq!(
        error(world.apply(
            &paid.booking,
            By::System,
            Command::ConfirmPayment { gateway: "test".into(), amount: dec!(15.95) }
        )),
        ErrorKey::StatusNotAllowed
    );
}

#[test]
fn a_prepaid_booking_becomes_new_when_the_payment_is_verified() {
    // spec §4 Creation; DESIGN.md prepaid bookings
    let mut world = World::new();
    world.settings.appcat = AppCategory::Delivery;
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    let payable = booking.payableAmount;
    let transition =
        world.ok(&booking, By::System, Command::ConfirmPayment { gateway: "stripe".into(), amount: payable });
    let paid = &transition.booking;
    assert_eq!(paid.status, BookingStatus::New);
    assert!(paid.prepaid);
    assert_eq!(paid.paymentPacket.as_ref().unwrap().cardPaymentAmount, payable);
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    // At the end the driver has nothing to collect.
    let booking =
        world.ok(paid, By::System, Command::Offer { drivers: vec![driver_id(1)], wave: 1, deadline: None }).booking;
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) }).booking;
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Arrive { location: None }).booking;
    let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Start { otp: None, location: None }).booking;
    let booking = world
        .ok(&booking, By::Driver(driver_id(1)), Command::Reach { location: None, drop_address: None, route: vec![] })
        .booking;
    let paid = world.ok(
        &booking,
        By::Driver(driver_id(1)),
        Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO },
    );
    assert_eq!(paid.booking.cashPaymentAmount, Decimal::ZERO);
    let driver_total: Decimal = paid.wallet_changes().map(WalletChange::signed_amount).sum();
    assert_eq!(driver_total, paid.booking.driver_share);
}

#[test]
fn rating_completes_the_booking_and_reaches_the_driver() {
    // spec §4 COMPLETE
    let world = World::new();
    let paid = world
        .ok(
            &world.reached(),
            By::Driver(driver_id(1)),
            Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO },
        )
        .booking;
    assert_eq!(
        error(world.apply(&paid, By::Rider(rider_id()), Command::Rate { rating: Some(0) })),
        ErrorKey::InvalidRating
    );
    assert_eq!(
        error(world.apply(&paid, By::Rider(rider_id()), Command::Rate { rating: Some(6) })),
        ErrorKey::InvalidRating
    );
    assert_eq!(
        error(world.apply(&paid, By::Driver(driver_id(1)), Command::Rate { rating: Some(5) })),
        ErrorKey::NotAllowed
    );
    let transition = world.ok(&paid, By::Rider(rider_id()), Command::Rate { rating: Some(4) });
    assert_eq!(transition.booking.status, BookingStatus::Complete);
    assert_eq!(transition.booking.rating, Some(4));
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RecordRating { rating: 4, .. })));
    assert!(transition.notified().any(|(to, key)| to == driver_id(1) && key == NoticeKey::RatingReceived));
}

// ---- cancellation ---------------------------------------------------------

#[test]
fn cancelling_a_new_booking_withdraws_its_offers() {
    // spec §4 CANCELLED: prior NEW, requested drivers removed
    let world = World::new();
    let booking = world.offered(2);
    let transition = world.ok(
        &booking,
        By::Rider(rider_id()),
        Command::Cancel { reason: "Changed my mind".into(), wallet_balance: None },
    );
    let cancelled = &transition.booking;
    assert_eq!(cancelled.status, BookingStatus::Cancelled);
    assert_eq!(cancelled.reason, "Changed my mind");
    assert_eq!(cancelled.cancelledBy, Some(CancelledBy::Rider));
    assert!(cancelled.requestedDrivers.0.is_empty());
    assert!(cancelled.timers.next().is_none());
    assert!(has(
        &transition.effects,
        |effect| matches!(effect, Effect::OfferWithdrawn { reason: WithdrawReason::Cancelled, drivers } if drivers.len() == 2)
    ));
    assert_eq!(transition.wallet_changes().count(), 0);
}

#[test]
fn a_reason_is_required_to_cancel() {
    let world = World::new();
    let booking = world.offered(1);
    assert_eq!(
        error(world.apply(
            &booking,
            By::Rider(rider_id()),
            Command::Cancel { reason: "  ".into(), wallet_balance: None }
        )),
        ErrorKey::SelectProper
    );
}

#[test]
fn a_late_rider_cancel_pays_the_highest_slab_passed_to_the_driver() {
    // DESIGN.md cancellation fee; spec §4 CANCELLED both parties notified
    let mut world = World::new();
    let accepted = world.accepted();
    world.now = T0 + 6 * MINUTE_MS;
    let cancel = Command::Cancel { reason: "Too slow".into(), wallet_balance: Some(dec!(50)) };
    let transition = world.ok(&accepted, By::Rider(rider_id()), cancel);
    assert_eq!(transition.booking.cancellationFee, dec!(3));
    assert_eq!(transition.booking.cancellationFeeOwed, Decimal::ZERO);
    let changes: Vec<_> = transition.wallet_changes().collect();
    assert_eq!(changes.len(), 2);
    assert!(changes.iter().any(|change| change.user == rider_id() && change.signed_amount() == dec!(-3)));
    assert!(changes.iter().any(|change| change.user == driver_id(1) && change.signed_amount() == dec!(3)));
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::SetQueue { busy: false, .. })));
    assert!(transition.notified().any(|(to, key)| to == driver_id(1) && key == NoticeKey::BookingCancelled));
}

#[test]
fn an_early_cancel_costs_nothing_and_nor_does_an_admin_cancel() {
    let mut world = World::new();
    let accepted = world.accepted();
    world.now = T0 + MINUTE_MS;
    let early =
        world.ok(&accepted, By::Rider(rider_id()), Command::Cancel { reason: "x".into(), wallet_balance: None });
    assert_eq!(early.booking.cancellationFee, Decimal::ZERO);
    world.now = T0 + 20 * MINUTE_MS;
    let by_admin =
        world.ok(&accepted, By::Admin(admin_id()), Command::Cancel { reason: "x".into(), wallet_balance: None });
    assert_eq!(by_admin.booking.cancellationFee, Decimal::ZERO);
    assert_eq!(by_admin.booking.cancelledBy, Some(CancelledBy::Admin));
    assert!(by_admin.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::BookingCancelled));
    assert!(by_admin.notified().any(|(to, key)| to == driver_id(1) && key == NoticeKey::BookingCancelled));
}

#[test]
fn the_assigned_driver_can_cancel_before_the_trip_starts() {
    let world = World::new();
    let accepted = world.accepted();
    let transition = world.ok(
        &accepted,
        By::Driver(driver_id(1)),
        Command::Cancel { reason: "Car trouble".into(), wallet_balance: None },
    );
    assert_eq!(transition.booking.cancelledBy, Some(CancelledBy::Driver));
    assert!(transition.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::BookingCancelled));
    let started = world.started();
    assert_eq!(
        error(world.apply(
            &started,
            By::Driver(driver_id(1)),
            Command::Cancel { reason: "x".into(), wallet_balance: None }
        )),
        ErrorKey::StatusNotAllowed
    );
}

#[test]
fn a_cancelled_prepaid_booking_is_refunded_to_the_wallet() {
    // DESIGN.md prepaid bookings
    let mut world = World::new();
    world.settings.appcat = AppCategory::Delivery;
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    let paid = world
        .ok(&booking, By::System, Command::ConfirmPayment { gateway: "test".into(), amount: booking.payableAmount })
        .booking;
    let transition =
        world.ok(&paid, By::Rider(rider_id()), Command::Cancel { reason: "x".into(), wallet_balance: None });
    let refund: Decimal =
        transition.wallet_changes().filter(|change| change.user == rider_id()).map(WalletChange::signed_amount).sum();
    assert_eq!(refund, paid.customer_paid);
}

#[test]
fn another_riders_cancel_is_refused() {
    let world = World::new();
    let booking = world.offered(1);
    assert_eq!(
        error(world.apply(
            &booking,
            By::Rider(UserId::from_u128(2)),
            Command::Cancel { reason: "x".into(), wallet_balance: None }
        )),
        ErrorKey::NotFound
    );
    let mut fleet_booking = world.accepted();
    fleet_booking.fleetadmin = Some(UserId::from_u128(300));
    assert_eq!(
        error(world.apply(
            &fleet_booking,
            By::Fleetadmin(UserId::from_u128(301)),
            Command::Cancel { reason: "x".into(), wallet_balance: None }
        )),
        ErrorKey::NotFound
    );
    assert!(
        world
            .apply(
                &fleet_booking,
                By::Fleetadmin(UserId::from_u128(300)),
                Command::Cancel { reason: "x".into(), wallet_balance: None }
            )
            .is_ok()
    );
}

// ---- timers ---------------------------------------------------------------

#[test]
fn an_offer_expiry_moves_the_wave_to_expired_and_asks_for_the_next() {
    // DESIGN.md waves
    let mut world = World::new();
    let booking = world.offered(2);
    let timer = booking.timers.offer_expiry.unwrap();
    world.now = timer.at;
    let transition = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::OfferExpiry, generation: timer.generation },
    );
    assert!(transition.booking.requestedDrivers.0.is_empty());
    assert_eq!(transition.booking.dispatch.expired.len(), 2);
    assert!(has(&transition.effects, |effect| matches!(
        effect,
        Effect::OfferWithdrawn { reason: WithdrawReason::Expired, .. }
    )));
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
}

#[test]
fn a_stale_timer_does_nothing() {
    // STYLE.md: scheduled messages carry a generation; stale ones are dropped
    let world = World::new();
    let booking = world.offered(2);
    let old = booking.timers.offer_expiry.unwrap();
    let moved = world
        .ok(&booking, By::System, Command::Offer { drivers: vec![driver_id(5)], wave: 2, deadline: Some(T0 + 40_000) })
        .booking;
    assert_eq!(
        error(world.apply(
            &moved,
            By::System,
            Command::TimerFired { kind: TimerKind::OfferExpiry, generation: old.generation }
        )),
        ErrorKey::StaleTimer
    );
    let accepted = world.ok(&booking, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) }).booking;
    assert_eq!(
        error(world.apply(
            &accepted,
            By::System,
            Command::TimerFired { kind: TimerKind::OfferExpiry, generation: old.generation }
        )),
        ErrorKey::StaleTimer
    );
    assert_eq!(
        error(world.apply(
            &booking,
            By::Rider(rider_id()),
            Command::TimerFired { kind: TimerKind::OfferExpiry, generation: old.generation }
        )),
        ErrorKey::NotAllowed
    );
}

#[test]
fn the_retry_timer_starts_a_fresh_round_and_rearms() {
    // DESIGN.md scheduler: re-dispatched every minute
    let mut world = World::new();
    let mut booking = world.create(request(), By::Rider(rider_id())).booking;
    booking.dispatch.wave = 3;
    booking.dispatch.expired.insert(driver_id(4));
    booking.dispatch.declined.insert(driver_id(5));
    let timer = booking.timers.dispatch_retry.unwrap();
    world.now = timer.at;
    let transition = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::DispatchRetry, generation: timer.generation },
    );
    assert_eq!(transition.booking.dispatch.wave, 0);
    assert!(transition.booking.dispatch.expired.is_empty());
    assert!(transition.booking.dispatch.declined.contains(&driver_id(5)));
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    assert_eq!(transition.booking.timers.dispatch_retry.unwrap().at, world.now + MINUTE_MS);
}

#[test]
fn auto_cancel_fires_for_a_booking_nobody_took() {
    // DESIGN.md scheduler: cancelled 30 minutes after tripdate, by the system
    let mut world = World::new();
    let booking = world.offered(1);
    let timer = booking.timers.auto_cancel.unwrap();
    world.now = timer.at;
    let transition = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::AutoCancel, generation: timer.generation },
    );
    assert_eq!(transition.booking.status, BookingStatus::Cancelled);
    assert_eq!(transition.booking.cancelledBy, Some(CancelledBy::System));
    assert_eq!(transition.booking.reason, REASON_NO_DRIVER);
    assert!(transition.booking.timers.next().is_none());
}

#[test]
fn the_book_later_timer_dispatches() {
    let mut world = World::new();
    let mut later = request();
    later.book_later = true;
    later.tripdate = Some(T0 + 60 * MINUTE_MS);
    let booking = world.create(later, By::Rider(rider_id())).booking;
    let timer = booking.timers.book_later_dispatch.unwrap();
    world.now = timer.at;
    let transition = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::BookLaterDispatch, generation: timer.generation },
    );
    assert!(has(&transition.effects, |effect| matches!(effect, Effect::RequestDispatch)));
    assert!(transition.booking.timers.book_later_dispatch.is_none());
    assert!(transition.booking.timers.dispatch_retry.is_some());
}

// ---- panel ----------------------------------------------------------------

#[test]
fn panel_actions_follow_status_role_and_settings() {
    // spec §4 Panel actions on bookings
    let world = World::new();
    let new = world.offered(1);
    let mut settings = settings();
    assert_eq!(
        panel_actions(&new, Role::Rider, &settings),
        PanelActions { cancel: true, assign: false, pay_now: false }
    );
    assert_eq!(panel_actions(&new, Role::Driver, &settings), PanelActions::default());
    settings.autoDispatch = false;
    assert!(panel_actions(&new, Role::Admin, &settings).assign);
    assert!(!panel_actions(&new, Role::Fleetadmin, &settings).assign);
    settings.AllowCriticalEditsAdmin = false;
    assert!(!panel_actions(&new, Role::Admin, &settings).cancel);
    let mut pending = new.clone();
    pending.status = BookingStatus::Pending;
    assert!(panel_actions(&pending, Role::Rider, &settings).pay_now);
    assert!(!panel_actions(&pending, Role::Admin, &settings).pay_now);
    for status in [BookingStatus::Arrived, BookingStatus::Started, BookingStatus::Cancelled, BookingStatus::Complete] {
        let mut other = new.clone();
        other.status = status;
        assert!(!panel_actions(&other, Role::Admin, &Settings::default()).cancel, "{status:?}");
    }
}

#[test]
fn the_booking_serialises_with_the_spec_field_names() {
    // spec §3 Booking
    let world = World::new();
    let booking = world.offered(1);
    let json = serde_json::to_value(&booking).unwrap();
    for field in [
        "carType",
        "customer_name",
        "pickupAddress",
        "tripdate",
        "bookLater",
        "trip_cost",
        "requestedDrivers",
        "payableAmount",
        "driver_share",
        "otp",
        "status",
    ] {
        assert!(json.get(field).is_some(), "missing {field}");
    }
    assert_eq!(json["status"], "NEW");
    assert_eq!(json["otp"], false);
    assert_eq!(json["requestedDrivers"][driver_id(1).to_string()], true);
    let back: Booking = serde_json::from_value(json).unwrap();
    assert_eq!(back, booking);
}

// ---- properties -----------------------------------------------------------

fn any_command() -> impl Strategy<Value = (u8, Command)> {
    let driver = (1u128..4).prop_map(driver_id);
    prop_oneof![
        driver.clone().prop_map(|id| (1, Command::Offer { drivers: vec![id], wave: 1, deadline: Some(T0 + 1) })),
        (1u128..4).prop_map(|n| (2, Command::Accept { driver: snapshot(n) })),
        Just((2, Command::Decline)),
        Just((2, Command::Arrive { location: None })),
        Just((2, Command::Start { otp: None, location: None })),
        Just((2, Command::Reach { location: None, drop_address: None, route: vec![] })),
        Just((2, Command::AwaitPayment)),
        Just((2, Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO })),
        Just((0, Command::Pay { mode: PaymentMode::Wallet, wallet_balance: dec!(1000) })),
        Just((0, Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO })),
        Just((1, Command::ConfirmPayment { gateway: "test".into(), amount: dec!(1000) })),
        (1u8..=5).prop_map(|rating| (0, Command::Rate { rating: Some(rating) })),
        Just((0, Command::Cancel { reason: "r".into(), wallet_balance: None })),
        Just((3, Command::Cancel { reason: "r".into(), wallet_balance: None })),
        Just((2, Command::Cancel { reason: "r".into(), wallet_balance: None })),
        (0u64..12).prop_map(|generation| (1, Command::TimerFired { kind: TimerKind::AutoCancel, generation })),
        (0u64..12).prop_map(|generation| (1, Command::TimerFired { kind: TimerKind::OfferExpiry, generation })),
    ]
}

fn actor(kind: u8, command: &Command, driver: u128) -> By {
    match kind {
        0 => By::Rider(rider_id()),
        1 => By::System,
        2 => match command {
            Command::Accept { driver } => By::Driver(driver.id),
            _ => By::Driver(driver_id(driver)),
        },
        _ => By::Admin(admin_id()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_transition_ever_leaves_complete_or_cancelled(
        steps in proptest::collection::vec((any_command(), 1u128..4), 1..40),
        delivery in any::<bool>(),
    ) {
        // spec §4: active bookings are all but COMPLETE and CANCELLED
        let mut world = World::new();
        if delivery { world.settings.appcat = AppCategory::Delivery; }
        let mut booking = world.create(request(), By::Rider(rider_id())).booking;
        for ((kind, command), driver) in steps {
            let was_final = !booking.status.is_active();
            let by = actor(kind, &command, driver);
            if let Ok(transition) = world.apply(&booking, by, command) {
                prop_assert!(!was_final, "{:?} left a final status", booking.status);
                booking = transition.booking;
            }
            world.now += 7_000;
        }
    }

    #[test]
    fn among_any_accepts_on_one_booking_exactly_one_succeeds(
        offered in 1u128..8,
        attempts in proptest::collection::vec(1u128..10, 1..30),
    ) {
        // spec §4 Driver assignment: only the first driver to win is confirmed
        let world = World::new();
        let mut booking = world.offered(offered);
        let mut winners = Vec::new();
        for n in &attempts {
            if let Ok(transition) = world.apply(&booking, By::Driver(driver_id(*n)), Command::Accept { driver: snapshot(*n) }) {
                winners.push(*n);
                booking = transition.booking;
            }
        }
        let any_offered_tried = attempts.iter().any(|n| *n <= offered);
        prop_assert_eq!(winners.len(), usize::from(any_offered_tried));
        if let Some(winner) = winners.first() {
            prop_assert_eq!(booking.driver, Some(driver_id(*winner)));
            prop_assert_eq!(*winner, *attempts.iter().find(|n| **n <= offered).unwrap());
        }
    }

    #[test]
    fn wallet_effects_of_a_finished_trip_sum_to_what_the_fare_says(
        distance in 0.1f64..80.0,
        minutes in 1i64..120,
        discount_cents in 0i64..3_000,
        payment in 0u8..4,
        decimal in 0u32..4,
        percentage_fee in any::<bool>(),
    ) {
        let mut world = World::new();
        world.settings.decimal = decimal;
        if !percentage_fee {
            world.car.convenience_fee_type = AmountType::Flat;
            world.car.convenience_fees = dec!(1.75);
        }
        let mut with_promo = request();
        if discount_cents > 0 {
            with_promo.promo = Some(PromoDetails {
                promo_name: "P".into(),
                promo_discount_type: AmountType::Flat,
                promo_discount_value: Decimal::new(discount_cents, 2),
                max_promo_discount_value: Decimal::ZERO,
            });
        }
        let booking = world.create(with_promo, By::Rider(rider_id())).booking;
        let booking = world.ok(&booking, By::System, Command::Offer { drivers: vec![driver_id(1)], wave: 1, deadline: None }).booking;
        let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Accept { driver: snapshot(1) }).booking;
        let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Arrive { location: None }).booking;
        let booking = world.ok(&booking, By::Driver(driver_id(1)), Command::Start { otp: None, location: None }).booking;
        world.now += minutes * MINUTE_MS;
        // A straight northward route of `distance` km.
        let end = LatLng::new(39.0 + distance / 111.195, -76.6);
        let reached = world.ok(&booking, By::Driver(driver_id(1)), Command::Reach { location: Some(end), drop_address: None, route: vec![LatLng::new(39.0, -76.6)] }).booking;
        let mut changes: Vec<WalletChange> = Vec::new();
        let paid = match payment {
            0 => world.ok(&reached, By::Driver(driver_id(1)), Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO }),
            1 => world.ok(&reached, By::Rider(rider_id()), Command::Pay { mode: PaymentMode::Wallet, wallet_balance: dec!(100000) }),
            2 => {
                let pending = world.ok(&reached, By::Driver(driver_id(1)), Command::AwaitPayment).booking;
                world.ok(&pending, By::System, Command::ConfirmPayment { gateway: "test".into(), amount: pending.payableAmount })
            }
            _ => {
                let card = Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO };
                let pending = world.ok(&reached, By::Rider(rider_id()), card).booking;
                world.ok(&pending, By::System, Command::ConfirmPayment { gateway: "test".into(), amount: pending.payableAmount })
            }
        };
        changes.extend(paid.wallet_changes().cloned());
        let complete = world.ok(&paid.booking, By::Rider(rider_id()), Command::Rate { rating: Some(5) });
        changes.extend(complete.wallet_changes().cloned());
        let booking = complete.booking;

        let net = |user: UserId| -> Decimal { changes.iter().filter(|change| change.user == user).map(WalletChange::signed_amount).sum() };
        // The driver keeps the share; cash in hand is owed back to the platform.
        prop_assert_eq!(net(driver_id(1)), booking.driver_share - booking.cashPaymentAmount);
        // The rider's wallet pays exactly the wallet part.
        prop_assert_eq!(net(rider_id()), -booking.usedWalletMoney);
        // What the rider paid, by any means, is the fare less the discount.
        prop_assert_eq!(booking.cashPaymentAmount + booking.usedWalletMoney + booking.cardPaymentAmount, booking.payableAmount);
        prop_assert_eq!(booking.payableAmount, booking.trip_cost - booking.discount_amount);
        prop_assert_eq!(booking.driver_share + booking.convenience_fees, booking.trip_cost);
        prop_assert!(booking.trip_cost >= crate::money::round(world.car.min_fare, decimal));
        // Each ledger key is used once.
        let keys: std::collections::HashSet<_> = changes.iter().map(|change| (change.user, change.idempotency_key.clone())).collect();
        prop_assert_eq!(keys.len(), changes.len());
    }
}

// ---- parcel photos (spec §3 pickup_image / deliver_image, §7 file storage) ----

/// A delivery world that asks for both photos.
fn photo_world() -> World {
    let mut world = World::new();
    world.settings.AllowDeliveryPickupImageCapture = true;
    world.settings.AllowFinalDeliveryImageCapture = true;
    world
}

fn as_delivery(mut booking: Booking) -> Booking {
    booking.appcat = AppCategory::Delivery;
    booking
}

fn attach(slot: ParcelImage) -> Command {
    Command::AttachImage { slot, url: format!("/api/v1/files/{}", slot.as_str()) }
}

#[test]
fn the_assigned_driver_photographs_the_parcel_at_pickup_and_at_delivery() {
    let world = photo_world();
    let accepted = as_delivery(world.accepted());
    let arrived = world.ok(&accepted, By::Driver(driver_id(1)), Command::Arrive { location: None }).booking;
    let with_pickup = world.ok(&arrived, By::Driver(driver_id(1)), attach(ParcelImage::PickupImage));
    assert_eq!(with_pickup.booking.pickup_image.as_deref(), Some("/api/v1/files/pickup_image"));
    assert_eq!(with_pickup.booking.status, BookingStatus::Arrived, "a photo changes no status");
    assert!(with_pickup.effects.is_empty());
    let reached = as_delivery(world.reached());
    let delivered = world.ok(&reached, By::Driver(driver_id(1)), attach(ParcelImage::DeliverImage)).booking;
    assert_eq!(delivered.deliver_image.as_deref(), Some("/api/v1/files/deliver_image"));
}

#[test]
fn a_parcel_photo_outside_its_stage_is_refused() {
    let world = photo_world();
    let accepted = as_delivery(world.accepted());
    let driver = By::Driver(driver_id(1));
    assert_eq!(error(world.apply(&accepted, driver, attach(ParcelImage::PickupImage))), ErrorKey::StatusNotAllowed);
    let reached = as_delivery(world.reached());
    assert_eq!(error(world.apply(&reached, driver, attach(ParcelImage::PickupImage))), ErrorKey::StatusNotAllowed);
    let arrived = world.ok(&accepted, driver, Command::Arrive { location: None }).booking;
    assert_eq!(error(world.apply(&arrived, driver, attach(ParcelImage::DeliverImage))), ErrorKey::StatusNotAllowed);
}

#[test]
fn parcel_photos_need_a_delivery_booking_the_setting_and_the_assigned_driver() {
    let mut world = photo_world();
    let started = world.started();
    let driver = By::Driver(driver_id(1));
    assert_eq!(error(world.apply(&started, driver, attach(ParcelImage::PickupImage))), ErrorKey::NotAllowed, "taxi");
    let started = as_delivery(started);
    assert_eq!(
        error(world.apply(&started, By::Driver(driver_id(2)), attach(ParcelImage::PickupImage))),
        ErrorKey::NotFound
    );
    assert_eq!(
        error(world.apply(&started, By::Rider(rider_id()), attach(ParcelImage::PickupImage))),
        ErrorKey::NotAllowed
    );
    world.settings.AllowDeliveryPickupImageCapture = false;
    assert_eq!(error(world.apply(&started, driver, attach(ParcelImage::PickupImage))), ErrorKey::NotAllowed);
    assert!(
        world.apply(&started, driver, attach(ParcelImage::DeliverImage)).is_ok(),
        "the other photo is still asked for"
    );
}

#[test]
fn parcel_image_names_are_the_booking_fields() {
    for slot in [ParcelImage::PickupImage, ParcelImage::DeliverImage] {
        assert_eq!(ParcelImage::parse(slot.as_str()), Some(slot));
        assert_eq!(serde_json::to_value(slot).unwrap(), serde_json::json!(slot.as_str()));
    }
    assert_eq!(ParcelImage::parse("selfie"), None);
}

// ---- issue #34: every booking ends well ----------------------------------

#[test]
fn a_book_now_booking_no_driver_takes_is_cancelled_by_the_system_free() {
    let mut world = World::new();
    world.settings.noDriverCancelMinutes = 3;
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    let timer = booking.timers.auto_cancel.unwrap();
    assert_eq!(timer.at, T0 + 3 * MINUTE_MS);
    world.now = timer.at;
    let fired = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::AutoCancel, generation: timer.generation },
    );
    let cancelled = &fired.booking;
    assert_eq!(cancelled.status, BookingStatus::Cancelled);
    assert_eq!(cancelled.reason, "no_driver_available");
    assert_eq!(cancelled.cancelledBy, Some(CancelledBy::System));
    assert_eq!(cancelled.cancellationFee, Decimal::ZERO);
    assert_eq!(fired.wallet_changes().count(), 0, "never charged");
    assert!(fired.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::NoDriverAvailable));
    assert!(cancelled.timers.next().is_none(), "no timer outlives the booking");
}

#[test]
fn a_book_later_booking_keeps_the_spec_auto_cancel_and_starts_searching_at_dispatch() {
    let mut world = World::new();
    let mut later = request();
    later.book_later = true;
    later.tripdate = Some(T0 + 120 * MINUTE_MS);
    let booking = world.create(later, By::Rider(rider_id())).booking;
    assert_eq!(booking.timers.auto_cancel.unwrap().at, T0 + 150 * MINUTE_MS);
    assert_eq!(booking.searchingSince, None, "not looking for a driver yet");
    let dispatch = booking.timers.book_later_dispatch.unwrap();
    world.now = dispatch.at;
    let fired = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::BookLaterDispatch, generation: dispatch.generation },
    );
    assert_eq!(fired.booking.searchingSince, Some(T0 + 105 * MINUTE_MS));
    assert_eq!(fired.booking.timers.auto_cancel.unwrap().at, T0 + 150 * MINUTE_MS);
}

#[test]
fn a_prepaid_booking_gives_up_on_payment_then_on_drivers_from_its_payment() {
    let mut world = World::new();
    world.settings.appcat = AppCategory::Delivery;
    let booking = world.create(request(), By::Rider(rider_id())).booking;
    assert_eq!(booking.status, BookingStatus::PaymentPending);
    assert_eq!(booking.searchingSince, None);
    let waiting = booking.timers.auto_cancel.unwrap();
    assert_eq!(waiting.at, T0 + 30 * MINUTE_MS);
    // Never paid: cancelled with its own reason.
    let given_up = world.ok(
        &booking,
        By::System,
        Command::TimerFired { kind: TimerKind::AutoCancel, generation: waiting.generation },
    );
    assert_eq!(given_up.booking.reason, "payment_not_received");
    // Paid five minutes in: the search starts then, and gives up ten minutes later.
    world.now = T0 + 5 * MINUTE_MS;
    let amount = booking.payableAmount;
    let paid = world.ok(&booking, By::System, Command::ConfirmPayment { gateway: "test".into(), amount }).booking;
    assert_eq!(paid.status, BookingStatus::New);
    assert_eq!(paid.searchingSince, Some(T0 + 5 * MINUTE_MS));
    assert_eq!(paid.timers.auto_cancel.unwrap().at, T0 + 15 * MINUTE_MS);
    assert!(!paid.timers.is_current(TimerKind::AutoCancel, waiting.generation), "the payment timer is gone");
}

fn paid(world: &World) -> Booking {
    let reached = world.reached();
    let cash = Command::Pay { mode: PaymentMode::Cash, wallet_balance: Decimal::ZERO };
    world.ok(&reached, By::Driver(driver_id(1)), cash).booking
}

#[test]
fn the_rider_may_skip_rating_and_the_trip_completes_without_one() {
    let world = World::new();
    let paid = paid(&world);
    assert!(paid.timers.auto_complete.is_some());
    let skipped = world.ok(&paid, By::Rider(rider_id()), Command::Rate { rating: None });
    assert_eq!(skipped.booking.status, BookingStatus::Complete);
    assert_eq!(skipped.booking.rating, None);
    assert!(!has(&skipped.effects, |effect| matches!(effect, Effect::RecordRating { .. })));
    assert!(skipped.booking.timers.auto_complete.is_none());
    assert!(has(&skipped.effects, |effect| matches!(effect, Effect::TimerCleared { kind: TimerKind::AutoComplete })));
}

#[test]
fn a_paid_booking_nobody_rates_completes_after_auto_complete_minutes() {
    let mut world = World::new();
    world.settings.autoCompleteMinutes = 45;
    let paid = paid(&world);
    let timer = paid.timers.auto_complete.unwrap();
    assert_eq!(timer.at, T0 + 45 * MINUTE_MS);
    world.now = timer.at;
    let fired = world.ok(
        &paid,
        By::System,
        Command::TimerFired { kind: TimerKind::AutoComplete, generation: timer.generation },
    );
    assert_eq!(fired.booking.status, BookingStatus::Complete);
    assert_eq!(fired.booking.rating, None);
    // A rating that comes after is refused: the trip is closed.
    assert_eq!(
        error(world.apply(&fired.booking, By::Rider(rider_id()), Command::Rate { rating: Some(5) })),
        ErrorKey::StatusNotAllowed
    );
}

#[test]
fn an_admin_settles_an_unpaid_trip_in_cash_or_marks_the_card_paid() {
    let world = World::new();
    let reached = world.reached();
    let pending = world.ok(&reached, By::Driver(driver_id(1)), Command::AwaitPayment).booking;
    assert_eq!(
        error(world.apply(&pending, By::Rider(rider_id()), Command::Settle { mode: PaymentMode::Cash })),
        ErrorKey::NotAllowed
    );
    assert_eq!(
        error(world.apply(
            &pending,
            By::Fleetadmin(UserId::from_u128(55)),
            Command::Settle { mode: PaymentMode::Cash }
        )),
        ErrorKey::NotFound,
        "another fleet's booking"
    );
    let cash = world.ok(&pending, By::Admin(admin_id()), Command::Settle { mode: PaymentMode::Cash });
    assert_eq!(cash.booking.status, BookingStatus::Paid);
    assert_eq!(cash.booking.payment_mode, Some(PaymentMode::Cash));
    assert_eq!(cash.booking.cashPaymentAmount, pending.payableAmount);
    let driver_moves: Vec<Decimal> = cash
        .wallet_changes()
        .filter(|change| change.user == driver_id(1))
        .map(|change| change.signed_amount())
        .collect();
    assert_eq!(driver_moves, vec![pending.driver_share, -pending.payableAmount]);
    let card = world.ok(&pending, By::Admin(admin_id()), Command::Settle { mode: PaymentMode::Card });
    assert_eq!(card.booking.gateway.as_deref(), Some("manual"));
    assert_eq!(card.booking.cardPaymentAmount, pending.payableAmount);
    assert_eq!(card.booking.customer_paid, pending.payableAmount);
    assert!(card.booking.timers.auto_complete.is_some());
    let done = world.ok(&card.booking, By::Admin(admin_id()), Command::Complete);
    assert_eq!(done.booking.status, BookingStatus::Complete);
    assert_eq!(
        error(world.apply(&pending, By::Admin(admin_id()), Command::Complete)),
        ErrorKey::StatusNotAllowed,
        "only a paid booking completes"
    );
}

#[test]
fn a_cancellation_fee_takes_what_the_wallet_holds_and_the_rest_is_owed() {
    let mut world = World::new();
    let accepted = world.accepted();
    world.now = T0 + 6 * MINUTE_MS;
    let cancel = Command::Cancel { reason: "Too slow".into(), wallet_balance: Some(dec!(1)) };
    let short = world.ok(&accepted, By::Rider(rider_id()), cancel.clone());
    assert_eq!(short.booking.cancellationFee, dec!(3));
    assert_eq!(short.booking.cancellationFeeOwed, dec!(2));
    let moves: Vec<(UserId, Decimal, bool)> =
        short.wallet_changes().map(|change| (change.user, change.signed_amount(), change.overdraw)).collect();
    assert_eq!(moves, vec![(rider_id(), dec!(-1), false), (driver_id(1), dec!(3), false)]);
    // An empty (or negative) wallet gives nothing: all of it is owed.
    let broke = Command::Cancel { reason: "x".into(), wallet_balance: Some(dec!(-4)) };
    let broke = world.ok(&accepted, By::Rider(rider_id()), broke);
    assert_eq!(broke.booking.cancellationFeeOwed, dec!(3));
    assert!(broke.wallet_changes().all(|change| change.user != rider_id()));
    // With negative balances on, the whole fee is debited.
    world.settings.negativeBalance = true;
    let allowed = world.ok(&accepted, By::Rider(rider_id()), cancel);
    assert_eq!(allowed.booking.cancellationFeeOwed, Decimal::ZERO);
    assert!(allowed.wallet_changes().any(|change| change.user == rider_id() && change.signed_amount() == dec!(-3)));
}

#[test]
fn an_admin_refunds_up_to_what_the_rider_paid_even_after_completion() {
    let world = World::new();
    let paid = paid(&world);
    let done = world.ok(&paid, By::Rider(rider_id()), Command::Rate { rating: Some(5) }).booking;
    let refund_to = |destination: RefundDestination, amount: Decimal, key: &str| Command::Refund {
        refund: Box::new(Refund {
            id: RefundId::from_u128(1),
            payment: None,
            booking: done.id,
            user: rider_id(),
            amount,
            currency: "USD".into(),
            destination,
            reason: "Long detour".into(),
            status: RefundStatus::Done,
            gateway_ref: None,
            idempotency_key: refund_key(done.id, key),
            made_by: admin_id(),
            created_at: 0,
        }),
    };
    let refund = |amount: Decimal, key: &str| refund_to(RefundDestination::Wallet, amount, key);
    assert_eq!(error(world.apply(&done, By::Rider(rider_id()), refund(dec!(1), "a"))), ErrorKey::NotAllowed);
    assert_eq!(error(world.apply(&done, By::Admin(UserId::from_u128(77)), refund(dec!(1), "a"))), ErrorKey::NotAllowed);
    let over = done.customer_paid + dec!(0.01);
    assert_eq!(error(world.apply(&done, By::Admin(admin_id()), refund(over, "a"))), ErrorKey::InvalidAmount);
    assert_eq!(error(world.apply(&done, By::Admin(admin_id()), refund(Decimal::ZERO, "a"))), ErrorKey::InvalidAmount);
    let first = world.ok(&done, By::Admin(admin_id()), refund(dec!(5), "a"));
    assert_eq!(first.booking.status, BookingStatus::Complete);
    assert_eq!(first.booking.refunded, dec!(5));
    let change = first.wallet_changes().next().unwrap();
    assert_eq!((change.user, change.signed_amount()), (rider_id(), dec!(5)));
    assert!(change.tx_ref.starts_with("Refund:"));
    // What is left can be refunded once more, not beyond.
    let rest = done.customer_paid - dec!(5);
    let second = world.ok(&first.booking, By::Admin(admin_id()), refund(rest, "b"));
    assert_eq!(second.booking.refunded, done.customer_paid);
    assert_ne!(second.wallet_changes().next().unwrap().idempotency_key, change.idempotency_key);
    assert_eq!(
        error(world.apply(&second.booking, By::Admin(admin_id()), refund(dec!(0.01), "c"))),
        ErrorKey::InvalidAmount
    );
    // To the card: the record and the booking's total, no ledger entry.
    let to_card = world.ok(&done, By::Admin(admin_id()), refund_to(RefundDestination::Gateway, dec!(3), "d"));
    assert_eq!(to_card.booking.refunded, dec!(3));
    assert_eq!(to_card.wallet_changes().count(), 0);
    assert!(to_card.effects.iter().any(|effect| matches!(effect, Effect::Refund(refund) if refund.amount == dec!(3))));
}

#[test]
fn an_unpaid_card_payment_reminds_the_rider_until_it_is_paid() {
    let mut world = World::new();
    let reached = world.reached();
    let pending = world
        .ok(&reached, By::Rider(rider_id()), Command::Pay { mode: PaymentMode::Card, wallet_balance: Decimal::ZERO })
        .booking;
    assert_eq!(pending.status, BookingStatus::Pending);
    let reminder = pending.timers.payment_reminder.expect("a reminder is set");
    assert_eq!(reminder.at, T0 + 15 * MINUTE_MS);
    world.now = reminder.at;
    let reminded = world.ok(
        &pending,
        By::System,
        Command::TimerFired { kind: TimerKind::PaymentReminder, generation: reminder.generation },
    );
    assert!(reminded.notified().any(|(to, key)| to == rider_id() && key == NoticeKey::PaymentDue));
    let next = reminded.booking.timers.payment_reminder.unwrap();
    assert_eq!(next.at, reminder.at + 24 * 60 * MINUTE_MS);
    let paid = world.ok(&reminded.booking, By::Admin(admin_id()), Command::Settle { mode: PaymentMode::Card });
    assert!(paid.booking.timers.payment_reminder.is_none(), "no reminder once paid");
}
