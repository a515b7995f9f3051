use super::{AmountType, AppCategory, Coord, Millis, Place, PricedChoice};
use crate::ids::{BookingId, UserId};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeSet;

/// The booking statuses of spec §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BookingStatus {
    PaymentPending,
    New,
    Accepted,
    Arrived,
    Started,
    Reached,
    Pending,
    Paid,
    Complete,
    Cancelled,
}

impl BookingStatus {
    pub const ALL: [BookingStatus; 10] = [
        BookingStatus::PaymentPending,
        BookingStatus::New,
        BookingStatus::Accepted,
        BookingStatus::Arrived,
        BookingStatus::Started,
        BookingStatus::Reached,
        BookingStatus::Pending,
        BookingStatus::Paid,
        BookingStatus::Complete,
        BookingStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BookingStatus::PaymentPending => "PAYMENT_PENDING",
            BookingStatus::New => "NEW",
            BookingStatus::Accepted => "ACCEPTED",
            BookingStatus::Arrived => "ARRIVED",
            BookingStatus::Started => "STARTED",
            BookingStatus::Reached => "REACHED",
            BookingStatus::Pending => "PENDING",
            BookingStatus::Paid => "PAID",
            BookingStatus::Complete => "COMPLETE",
            BookingStatus::Cancelled => "CANCELLED",
        }
    }

    pub fn parse(text: &str) -> Option<BookingStatus> {
        BookingStatus::ALL.into_iter().find(|status| status.as_str() == text)
    }

    /// Active bookings are all but COMPLETE and CANCELLED (spec §4).
    pub fn is_active(self) -> bool {
        !matches!(self, BookingStatus::Complete | BookingStatus::Cancelled)
    }

    /// The driver's tracked booking is one in ACCEPTED, ARRIVED or STARTED (spec §4).
    pub fn is_tracked(self) -> bool {
        matches!(self, BookingStatus::Accepted | BookingStatus::Arrived | BookingStatus::Started)
    }

    /// Counted in earnings (spec §9).
    pub fn is_paid(self) -> bool {
        matches!(self, BookingStatus::Paid | BookingStatus::Complete)
    }
}

/// The booking otp: a 5-digit number, or `false` when otp_secure is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Otp(pub Option<u32>);

impl Serialize for Otp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(code) => serializer.serialize_u32(code),
            None => serializer.serialize_bool(false),
        }
    }
}

impl<'de> Deserialize<'de> for Otp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Code(u32),
            Flag(#[allow(dead_code)] bool),
            Null(()),
        }
        Ok(match Raw::deserialize(deserializer)? {
            Raw::Code(code) => Otp(Some(code)),
            Raw::Flag(_) | Raw::Null(()) => Otp(None),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PaymentMode {
    Cash,
    Wallet,
    Card,
}

/// Who cancelled: a role, or the system's scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CancelledBy {
    Rider,
    Driver,
    Admin,
    Fleetadmin,
    System,
}

/// What was promised by the promo applied at booking, kept on the booking so
/// the final fare can re-apply it without the promo record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PromoDetails {
    pub promo_name: String,
    pub promo_discount_type: AmountType,
    pub promo_discount_value: Decimal,
    pub max_promo_discount_value: Decimal,
}

/// The card payment made for a prepaid booking (spec §3 "Payment packet").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct PaymentPacket {
    pub appcat: AppCategory,
    pub payment_mode: PaymentMode,
    pub customer_paid: Decimal,
    pub discount_amount: Decimal,
    pub usedWalletMoney: Decimal,
    pub cardPaymentAmount: Decimal,
    pub cashPaymentAmount: Decimal,
    pub payableAmount: Decimal,
    pub promo_applied: bool,
    pub promo_details: Option<PromoDetails>,
}

/// The set of drivers a booking is offered to. The spec writes it as a map of
/// driver id to `true`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestedDrivers(pub BTreeSet<UserId>);

impl Serialize for RequestedDrivers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for driver in &self.0 {
            map.serialize_entry(driver, &true)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RequestedDrivers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Option::<std::collections::BTreeMap<UserId, bool>>::deserialize(deserializer)?;
        Ok(RequestedDrivers(map.unwrap_or_default().into_iter().filter(|(_, on)| *on).map(|(id, _)| id).collect()))
    }
}

/// Auto-dispatch history of a booking, so waves never re-offer a driver who
/// declined or let an offer expire, and a restart resumes at the right wave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DispatchState {
    /// Waves offered so far (0 before the first).
    pub wave: u32,
    /// Offers came from the dispatcher rather than an admin.
    pub auto: bool,
    pub declined: BTreeSet<UserId>,
    pub expired: BTreeSet<UserId>,
    /// When the current wave's offers lapse.
    pub deadline: Option<Millis>,
}

impl DispatchState {
    /// Drivers never to offer this booking again.
    pub fn excluded(&self, driver: &UserId) -> bool {
        self.declined.contains(driver) || self.expired.contains(driver)
    }
}

/// The timers a booking can have (STYLE.md "Timers are data").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TimerKind {
    /// The current wave of offers lapses.
    OfferExpiry,
    /// Look again for drivers for a NEW booking nobody took.
    DispatchRetry,
    /// Cancel a booking still without a driver 30 minutes after its trip date.
    AutoCancel,
    /// Dispatch a Book Later booking 15 minutes before its trip date.
    BookLaterDispatch,
    /// Complete a PAID booking its rider did not rate (`autoCompleteMinutes`).
    AutoComplete,
    /// Remind the rider of a PENDING booking that its payment is due.
    PaymentReminder,
}

impl TimerKind {
    pub const ALL: [TimerKind; 6] = [
        TimerKind::OfferExpiry,
        TimerKind::DispatchRetry,
        TimerKind::AutoCancel,
        TimerKind::BookLaterDispatch,
        TimerKind::AutoComplete,
        TimerKind::PaymentReminder,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timer {
    pub at: Millis,
    /// Matches the message the scheduler will send; an older one is stale.
    pub generation: u64,
}

/// A deadline per timer kind; the next wake-up is the earliest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timers {
    pub offer_expiry: Option<Timer>,
    pub dispatch_retry: Option<Timer>,
    pub auto_cancel: Option<Timer>,
    pub book_later_dispatch: Option<Timer>,
    #[serde(default)]
    pub auto_complete: Option<Timer>,
    #[serde(default)]
    pub payment_reminder: Option<Timer>,
    /// Bumped on every set, so each timer ever set has its own generation.
    pub generation: u64,
}

impl Timers {
    pub fn get(&self, kind: TimerKind) -> Option<Timer> {
        match kind {
            TimerKind::OfferExpiry => self.offer_expiry,
            TimerKind::DispatchRetry => self.dispatch_retry,
            TimerKind::AutoCancel => self.auto_cancel,
            TimerKind::BookLaterDispatch => self.book_later_dispatch,
            TimerKind::AutoComplete => self.auto_complete,
            TimerKind::PaymentReminder => self.payment_reminder,
        }
    }

    fn slot(&mut self, kind: TimerKind) -> &mut Option<Timer> {
        match kind {
            TimerKind::OfferExpiry => &mut self.offer_expiry,
            TimerKind::DispatchRetry => &mut self.dispatch_retry,
            TimerKind::AutoCancel => &mut self.auto_cancel,
            TimerKind::BookLaterDispatch => &mut self.book_later_dispatch,
            TimerKind::AutoComplete => &mut self.auto_complete,
            TimerKind::PaymentReminder => &mut self.payment_reminder,
        }
    }

    /// Sets (or moves) a timer and returns it with its fresh generation.
    pub fn set(&mut self, kind: TimerKind, at: Millis) -> Timer {
        self.generation += 1;
        let timer = Timer { at, generation: self.generation };
        *self.slot(kind) = Some(timer);
        timer
    }

    /// Clears a timer; true when one was set.
    pub fn clear(&mut self, kind: TimerKind) -> bool {
        self.slot(kind).take().is_some()
    }

    /// The earliest deadline and its kind.
    pub fn next(&self) -> Option<(TimerKind, Timer)> {
        TimerKind::ALL
            .into_iter()
            .filter_map(|kind| self.get(kind).map(|timer| (kind, timer)))
            .min_by_key(|(_, timer)| timer.at)
    }

    /// True when a fired (kind, generation) is still the live one.
    pub fn is_current(&self, kind: TimerKind, generation: u64) -> bool {
        self.get(kind).is_some_and(|timer| timer.generation == generation)
    }
}

/// A booking (spec §3), plus `version` for compare-and-set in storage and the
/// dispatch history and timers the server keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct Booking {
    pub id: BookingId,
    #[serde(default)]
    pub version: u64,
    pub reference: String,
    pub appcat: AppCategory,
    pub carType: String,
    #[serde(default)]
    pub carImage: String,
    pub customer: UserId,
    #[serde(default)]
    pub customer_name: String,
    #[serde(default)]
    pub customer_contact: String,
    #[serde(default)]
    pub customer_email: String,
    #[serde(default)]
    pub customer_token: String,
    #[serde(default)]
    pub customer_image: String,
    /// The booked pickup and drop: never overwritten (receipts and exports
    /// show what the rider booked).
    pub pickup: Place,
    pub drop: Place,
    pub pickupAddress: String,
    pub dropAddress: String,
    /// Where the trip really ended: the driver's position at REACHED, with
    /// its reverse-geocoded address when the maps answered.
    #[serde(default)]
    pub actualDrop: Option<Place>,
    /// The fare quoted at booking.
    pub estimate: Decimal,
    /// Route distance at booking, km (miles when convert_to_mile).
    pub estimateDistance: f64,
    /// Final distance, from the tracked points for taxi.
    #[serde(default)]
    pub distance: f64,
    /// Route time at booking, seconds.
    pub estimateTime: u64,
    pub status: BookingStatus,
    pub bookLater: bool,
    pub tripdate: Millis,
    pub bookingDate: Millis,
    /// Only the rider and admins receive it.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = false))]
    pub otp: Otp,
    #[serde(default)]
    pub booking_type_admin: bool,
    #[serde(default)]
    pub coords: Vec<Coord>,
    #[serde(default)]
    pub waypoints: Vec<Place>,
    pub trip_cost: Decimal,
    /// Not shown to riders.
    #[cfg_attr(feature = "openapi", schema(required = false))]
    pub convenience_fees: Decimal,
    /// Not shown to riders.
    #[cfg_attr(feature = "openapi", schema(required = false))]
    pub driver_share: Decimal,
    #[serde(default)]
    pub paymentPacket: Option<PaymentPacket>,
    #[serde(default)]
    pub requestedDrivers: RequestedDrivers,
    #[serde(default)]
    pub driver: Option<UserId>,
    #[serde(default)]
    pub driver_image: String,
    #[serde(default)]
    pub driver_name: String,
    #[serde(default)]
    pub driver_contact: String,
    #[serde(default)]
    pub driver_token: String,
    #[serde(default)]
    pub driverRating: Decimal,
    #[serde(default)]
    pub vehicle_number: String,
    #[serde(default)]
    pub fleetadmin: Option<UserId>,
    #[serde(default)]
    pub discount_amount: Decimal,
    #[serde(default)]
    pub discount: Decimal,
    #[serde(default)]
    pub cashPaymentAmount: Decimal,
    #[serde(default)]
    pub cardPaymentAmount: Decimal,
    #[serde(default)]
    pub usedWalletMoney: Decimal,
    pub payableAmount: Decimal,
    #[serde(default)]
    pub customer_paid: Decimal,
    #[serde(default)]
    pub cancellationFee: Decimal,
    /// The part of `cancellationFee` the rider's wallet could not cover
    /// while negative balances are off: owed, not debited.
    #[serde(default)]
    pub cancellationFeeOwed: Decimal,
    /// Refunded to the rider's wallet by admins from this booking.
    #[serde(default)]
    pub refunded: Decimal,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub cancelledBy: Option<CancelledBy>,
    #[serde(default)]
    pub rating: Option<u8>,
    #[serde(default)]
    pub payment_mode: Option<PaymentMode>,
    #[serde(default)]
    pub gateway: Option<String>,
    #[serde(default)]
    pub prepaid: bool,
    #[serde(default)]
    pub promo_applied: bool,
    #[serde(default)]
    pub promo_details: Option<PromoDetails>,
    /// When the winning driver accepted (cancellation slabs count from here).
    #[serde(default)]
    pub acceptedAt: Option<Millis>,
    #[serde(default)]
    pub driver_arrive_time: Option<Millis>,
    #[serde(default)]
    pub trip_start_time: Option<Millis>,
    #[serde(default)]
    pub startTime: Option<Millis>,
    #[serde(default)]
    pub trip_end_time: Option<Millis>,
    #[serde(default)]
    pub endTime: Option<Millis>,
    /// Seconds.
    #[serde(default)]
    pub total_trip_time: u64,
    #[serde(default)]
    pub pickup_image: Option<String>,
    #[serde(default)]
    pub deliver_image: Option<String>,
    #[serde(default)]
    pub parcelTypeSelected: Option<PricedChoice>,
    #[serde(default)]
    pub optionSelected: Option<PricedChoice>,
    #[serde(default)]
    pub parcelTypeIndex: Option<usize>,
    #[serde(default)]
    pub optionIndex: Option<usize>,
    #[serde(default)]
    pub deliveryPerson: String,
    #[serde(default)]
    pub deliveryPersonPhone: String,
    #[serde(default)]
    pub pickUpInstructions: String,
    #[serde(default)]
    pub deliveryInstructions: String,
    /// When the search for a driver began: creation (Book Now), the
    /// prepayment, or the Book Later dispatch. The rider's wait counts from it.
    #[serde(default)]
    pub searchingSince: Option<Millis>,
    /// Made by the living demo or its seeded history (issue #35): the
    /// demo's traffic, which reports and exports can tell apart.
    #[serde(default)]
    pub demo: bool,
    #[serde(default)]
    pub dispatch: DispatchState,
    #[serde(default)]
    pub timers: Timers,
    #[serde(default)]
    pub updatedAt: Millis,
}

/// Where a trip ended counts as elsewhere than the booked drop beyond this
/// (issue #34: receipts, exports and the grid show both then).
pub const ENDED_ELSEWHERE_M: f64 = 200.0;

impl Booking {
    /// Where the trip really ended, when that is more than
    /// [`ENDED_ELSEWHERE_M`] from the booked drop.
    pub fn ended_elsewhere(&self) -> Option<&Place> {
        let end = self.actualDrop.as_ref()?;
        let metres = crate::geo::distance_km(end.point(), self.drop.point()) * 1000.0;
        (metres > ENDED_ELSEWHERE_M).then_some(end)
    }

    pub fn is_requested(&self, driver: &UserId) -> bool {
        self.requestedDrivers.0.contains(driver)
    }

    pub fn is_assigned_to(&self, driver: &UserId) -> bool {
        self.driver.as_ref() == Some(driver)
    }
}

/// What creating a booking answers (spec §3 "Created booking result").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct CreatedBooking {
    pub booking_id: BookingId,
    pub mainData: CreatedBookingMain,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedBookingMain {
    pub status: BookingStatus,
    pub trip_cost: Decimal,
    pub customer: UserId,
    pub customer_contact: String,
    pub customer_email: String,
}

impl From<&Booking> for CreatedBooking {
    fn from(booking: &Booking) -> Self {
        CreatedBooking {
            booking_id: booking.id,
            mainData: CreatedBookingMain {
                status: booking.status,
                trip_cost: booking.trip_cost,
                customer: booking.customer,
                customer_contact: booking.customer_contact.clone(),
                customer_email: booking.customer_email.clone(),
            },
        }
    }
}
