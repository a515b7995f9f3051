use super::{By, Context, Effect, Transition};
use crate::error::{DomainResult, ErrorKey};
use crate::fare;
use crate::generate;
use crate::ids::BookingId;
use crate::model::{
    AppCategory, Booking, BookingStatus, Coord, DispatchState, MINUTE_MS, Millis, Otp, PaymentMode, Place,
    PricedChoice, PromoDetails, RequestedDrivers, TimerKind, Timers, User,
};
use crate::rules::booking::{DeliveryDetails, validate_trip_date};
use crate::{money, promo};
use rand::Rng;
use rust_decimal::Decimal;

/// DESIGN.md: a Book Later booking is dispatched this long before its trip date.
pub const BOOK_LATER_DISPATCH_BEFORE_MS: Millis = 15 * MINUTE_MS;
/// DESIGN.md: NEW bookings without a driver are re-dispatched this often.
pub const DISPATCH_RETRY_MS: Millis = MINUTE_MS;
/// DESIGN.md: Book Later bookings still without a driver, and bookings whose
/// prepayment never came, are cancelled this long after the trip date.
/// (Book Now gives up after `noDriverCancelMinutes`, issue #34.)
pub const AUTO_CANCEL_AFTER_MS: Millis = 30 * MINUTE_MS;

/// The route the maps provider found for the booking.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RouteInfo {
    pub distance_km: f64,
    pub time_secs: u64,
    pub coords: Vec<Coord>,
    pub waypoints: Vec<Place>,
}

/// A booking to make, already checked by `rules::booking::validate_booking`.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBooking {
    pub pickup: Place,
    pub drop: Place,
    pub book_later: bool,
    /// Required for Book Later; Book Now uses `now`.
    pub tripdate: Option<Millis>,
    pub route: RouteInfo,
    pub parcel_type_index: Option<usize>,
    pub option_index: Option<usize>,
    pub delivery: DeliveryDetails,
    /// A promo already checked with `promo::check`.
    pub promo: Option<PromoDetails>,
    pub payment_mode: Option<PaymentMode>,
}

/// The estimate for a request: the fare the rider would be quoted.
pub fn estimate(request: &NewBooking, context: &Context) -> DomainResult<fare::Fare> {
    let car = context.car_type.ok_or(ErrorKey::SelectProper)?;
    let parcel_type = choice(&car.parcelTypes, request.parcel_type_index)?;
    let option = choice(&car.options, request.option_index)?;
    Ok(fare::compute(car, request.route.distance_km, request.route.time_secs, parcel_type, option, context.settings))
}

/// What a rider is quoted: the fare, the promo's discount off its grand total
/// and what is left to pay. The estimate shows it and the booking keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub fare: fare::Fare,
    pub discount: Decimal,
    pub payable: Decimal,
}

pub fn quote(request: &NewBooking, context: &Context) -> DomainResult<Quote> {
    let fare = estimate(request, context)?;
    let discount = request
        .promo
        .as_ref()
        .map(|details| promo::discount(details, fare.grand_total, context.settings.decimal))
        .unwrap_or_default();
    let payable = money::round_to(fare.grand_total - discount, context.settings);
    Ok(Quote { fare, discount, payable })
}

fn choice(list: &[PricedChoice], index: Option<usize>) -> DomainResult<Option<&PricedChoice>> {
    match index {
        None => Ok(None),
        Some(index) => list.get(index).map(Some).ok_or_else(|| ErrorKey::SelectProper.into()),
    }
}

/// Makes a booking for `customer`, booked by the rider or by an admin.
///
/// Spec §4 "Creation": NEW when the platform is taxi or an admin books,
/// otherwise PAYMENT_PENDING until the card payment is verified; an otp when
/// `otp_secure`. The fare, fee, driver share and discount are the server's
/// (DESIGN.md invariant 5). Book Now with autoDispatch asks for dispatch at
/// once; Book Later sets the dispatch timer 15 minutes before the trip date.
pub fn create<R: Rng + ?Sized>(
    id: BookingId,
    request: NewBooking,
    customer: &User,
    by: By,
    context: &Context,
    rng: &mut R,
) -> DomainResult<Transition> {
    let settings = context.settings;
    let now = context.now;
    let car = context.car_type.ok_or(ErrorKey::SelectProper)?;
    if !request.pickup.point().is_valid() || !request.drop.point().is_valid() {
        return Err(ErrorKey::SelectProper.into());
    }
    let by_admin = matches!(by, By::Admin(_));
    let tripdate = validate_trip_date(request.book_later, request.tripdate, now)?;
    let Quote { fare, discount, payable } = quote(&request, context)?;
    let parcel_type = choice(&car.parcelTypes, request.parcel_type_index)?.cloned();
    let option = choice(&car.options, request.option_index)?.cloned();
    let status = if settings.appcat == AppCategory::Taxi || by_admin {
        BookingStatus::New
    } else {
        BookingStatus::PaymentPending
    };
    let otp = if settings.otp_secure { Otp(Some(generate::booking_otp(rng))) } else { Otp(None) };
    let payment_mode = if settings.appcat == AppCategory::Delivery && !by_admin {
        // Spec §9: delivery payment mode is fixed to card.
        Some(PaymentMode::Card)
    } else {
        request.payment_mode
    };

    let mut booking = Booking {
        id,
        version: 0,
        reference: generate::booking_reference(rng),
        appcat: settings.appcat,
        carType: car.name.clone(),
        carImage: car.image.clone(),
        customer: customer.id,
        customer_name: customer.full_name(),
        customer_contact: customer.mobile.clone(),
        customer_email: customer.email.clone(),
        demo: customer.demo,
        customer_token: customer.pushToken.clone().unwrap_or_default(),
        customer_image: customer.profile_image.clone().unwrap_or_default(),
        pickupAddress: request.pickup.add.clone(),
        dropAddress: request.drop.add.clone(),
        pickup: request.pickup,
        drop: request.drop,
        actualDrop: None,
        estimate: fare.grand_total,
        estimateDistance: fare.distance,
        distance: 0.0,
        estimateTime: request.route.time_secs,
        status,
        bookLater: request.book_later,
        tripdate,
        bookingDate: now,
        otp,
        booking_type_admin: by_admin,
        coords: request.route.coords,
        waypoints: request.route.waypoints,
        trip_cost: fare.grand_total,
        convenience_fees: fare.convenience_fees,
        driver_share: fare.driver_share(),
        paymentPacket: None,
        requestedDrivers: RequestedDrivers::default(),
        driver: None,
        driver_image: String::new(),
        driver_name: String::new(),
        driver_contact: String::new(),
        driver_token: String::new(),
        driverRating: Decimal::ZERO,
        vehicle_number: String::new(),
        fleetadmin: None,
        discount_amount: discount,
        discount,
        cashPaymentAmount: Decimal::ZERO,
        cardPaymentAmount: Decimal::ZERO,
        usedWalletMoney: Decimal::ZERO,
        payableAmount: payable,
        customer_paid: Decimal::ZERO,
        cancellationFee: Decimal::ZERO,
        cancellationFeeOwed: Decimal::ZERO,
        refunded: Decimal::ZERO,
        reason: String::new(),
        cancelledBy: None,
        rating: None,
        payment_mode,
        gateway: None,
        prepaid: false,
        promo_applied: request.promo.is_some(),
        promo_details: request.promo,
        acceptedAt: None,
        driver_arrive_time: None,
        trip_start_time: None,
        startTime: None,
        trip_end_time: None,
        endTime: None,
        total_trip_time: 0,
        pickup_image: None,
        deliver_image: None,
        parcelTypeSelected: parcel_type,
        optionSelected: option,
        parcelTypeIndex: request.parcel_type_index,
        optionIndex: request.option_index,
        deliveryPerson: request.delivery.deliveryPerson,
        deliveryPersonPhone: request.delivery.deliveryPersonPhone,
        pickUpInstructions: request.delivery.pickUpInstructions,
        deliveryInstructions: request.delivery.deliveryInstructions,
        searchingSince: None,
        dispatch: DispatchState::default(),
        timers: Timers::default(),
        updatedAt: now,
    };

    let mut effects = Vec::new();
    if let Some(details) = &booking.promo_details {
        effects.push(Effect::PromoUsed { promo_name: details.promo_name.clone(), customer: customer.id });
    }
    if booking.status == BookingStatus::New {
        start_search(&mut booking, context, &mut effects);
    } else {
        // Waiting for the prepayment: given up on 30 minutes after the trip date.
        let auto_cancel_at = booking.tripdate + AUTO_CANCEL_AFTER_MS;
        set_timer(&mut booking, TimerKind::AutoCancel, auto_cancel_at, &mut effects);
    }
    Ok(Transition { booking, effects })
}

/// A booking that just became NEW (made, or its prepayment verified): sets
/// when the system gives up on finding it a driver, and dispatches it.
/// Book Now gives up `noDriverCancelMinutes` after the search began; Book
/// Later keeps the spec's 30 minutes after its trip date.
pub(crate) fn start_search(booking: &mut Booking, context: &Context, effects: &mut Vec<Effect>) {
    let now = context.now;
    let give_up_at = if booking.bookLater {
        booking.tripdate + AUTO_CANCEL_AFTER_MS
    } else {
        now + context.settings.no_driver_cancel_ms()
    };
    set_timer(booking, TimerKind::AutoCancel, give_up_at, effects);
    if !booking.bookLater || booking.tripdate - BOOK_LATER_DISPATCH_BEFORE_MS <= now {
        booking.searchingSince = Some(now);
    }
    schedule_dispatch(booking, context, effects);
}

/// For a booking that just became NEW: dispatch now (Book Now) or set the
/// Book Later timer, when auto-dispatch is on (spec §4 "Auto-dispatch").
pub(crate) fn schedule_dispatch(booking: &mut Booking, context: &Context, effects: &mut Vec<Effect>) {
    if !context.settings.autoDispatch {
        return;
    }
    let dispatch_at = booking.tripdate - BOOK_LATER_DISPATCH_BEFORE_MS;
    if booking.bookLater && dispatch_at > context.now {
        set_timer(booking, TimerKind::BookLaterDispatch, dispatch_at, effects);
    } else {
        effects.push(Effect::RequestDispatch);
        set_timer(booking, TimerKind::DispatchRetry, context.now + DISPATCH_RETRY_MS, effects);
    }
}

pub(crate) fn set_timer(booking: &mut Booking, kind: TimerKind, at: Millis, effects: &mut Vec<Effect>) {
    let timer = booking.timers.set(kind, at);
    effects.push(Effect::TimerSet { kind, timer });
}
