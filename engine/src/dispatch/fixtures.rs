//! Test fixtures of the dispatch planners and window: a pickup in
//! Baltimore, a NEW booking there, drivers north of it.

use crate::geo::EARTH_RADIUS_KM;
use crate::ids::{BookingId, UserId};
use crate::model::{
    AppCategory, Booking, BookingStatus, DispatchPolicy, DispatchState, LatLng, Millis, Otp, Place, RequestedDrivers,
    Settings, Timers,
};
use rust_decimal::Decimal;

pub const PICKUP: LatLng = LatLng { lat: 39.29, lng: -76.61 };

pub const NOW: Millis = 1_700_000_000_000;

pub fn driver(number: u128) -> UserId {
    UserId::from_u128(number)
}

pub fn north_of(origin: LatLng, km: f64) -> LatLng {
    LatLng::new(origin.lat + km / EARTH_RADIUS_KM.to_radians(), origin.lng)
}

/// A Book Now taxi booking, NEW and never dispatched, picking up at `pickup`.
pub fn booking(car_type: &str, pickup: LatLng) -> Booking {
    let drop = north_of(pickup, 8.0);
    Booking {
        id: BookingId::from_u128(100),
        version: 1,
        reference: "ABCDEF".into(),
        appcat: AppCategory::Taxi,
        carType: car_type.into(),
        carImage: String::new(),
        customer: UserId::from_u128(200),
        customer_name: "Rider One".into(),
        customer_contact: "+14105550100".into(),
        customer_email: "rider1@demo.wayfare".into(),
        customer_token: String::new(),
        customer_image: String::new(),
        pickup: Place { lat: pickup.lat, lng: pickup.lng, add: "Inner Harbor".into() },
        drop: Place { lat: drop.lat, lng: drop.lng, add: "Hampden".into() },
        pickupAddress: "Inner Harbor".into(),
        dropAddress: "Hampden".into(),
        actualDrop: None,
        estimate: Decimal::new(1850, 2),
        estimateDistance: 8.0,
        distance: 0.0,
        estimateTime: 900,
        status: BookingStatus::New,
        bookLater: false,
        tripdate: NOW,
        bookingDate: NOW,
        otp: Otp(None),
        booking_type_admin: false,
        coords: Vec::new(),
        waypoints: Vec::new(),
        trip_cost: Decimal::new(1850, 2),
        convenience_fees: Decimal::ZERO,
        driver_share: Decimal::ZERO,
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
        discount_amount: Decimal::ZERO,
        discount: Decimal::ZERO,
        cashPaymentAmount: Decimal::ZERO,
        cardPaymentAmount: Decimal::ZERO,
        usedWalletMoney: Decimal::ZERO,
        payableAmount: Decimal::new(1850, 2),
        customer_paid: Decimal::ZERO,
        cancellationFee: Decimal::ZERO,
        cancellationFeeOwed: Decimal::ZERO,
        refunded: Decimal::ZERO,
        reason: String::new(),
        cancelledBy: None,
        rating: None,
        payment_mode: None,
        gateway: None,
        prepaid: false,
        promo_applied: false,
        promo_details: None,
        acceptedAt: None,
        driver_arrive_time: None,
        trip_start_time: None,
        startTime: None,
        trip_end_time: None,
        endTime: None,
        total_trip_time: 0,
        pickup_image: None,
        deliver_image: None,
        parcelTypeSelected: None,
        optionSelected: None,
        parcelTypeIndex: None,
        optionIndex: None,
        deliveryPerson: String::new(),
        deliveryPersonPhone: String::new(),
        pickUpInstructions: String::new(),
        deliveryInstructions: String::new(),
        searchingSince: None,
        demo: false,
        dispatch: DispatchState::default(),
        timers: Timers::default(),
        updatedAt: NOW,
    }
}

pub fn policy(policy: DispatchPolicy) -> Settings {
    Settings { dispatchPolicy: policy, driverRadius: 10.0, ..Settings::default() }
}

pub fn batch_booking(number: u128, pickup: LatLng) -> Booking {
    Booking { id: BookingId::from_u128(number), ..booking("Sedan", pickup) }
}
