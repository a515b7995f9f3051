use crate::ids::UserId;
use crate::model::{CancelledBy, CarType, LatLng, Millis, PaymentMode, Role, Settings, TimerKind, User};
use rust_decimal::Decimal;

/// Who causes a transition. The scheduler and the dispatcher act as `System`.
/// Serde: a command forwarded to the node serving its booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum By {
    Rider(UserId),
    Driver(UserId),
    Fleetadmin(UserId),
    Admin(UserId),
    System,
}

impl By {
    pub fn from_role(role: Role, id: UserId) -> By {
        match role {
            Role::Rider => By::Rider(id),
            Role::Driver => By::Driver(id),
            Role::Fleetadmin => By::Fleetadmin(id),
            Role::Admin => By::Admin(id),
        }
    }

    pub fn cancelled_by(self) -> CancelledBy {
        match self {
            By::Rider(_) => CancelledBy::Rider,
            By::Driver(_) => CancelledBy::Driver,
            By::Fleetadmin(_) => CancelledBy::Fleetadmin,
            By::Admin(_) => CancelledBy::Admin,
            By::System => CancelledBy::System,
        }
    }

    pub fn user(self) -> Option<UserId> {
        match self {
            By::Rider(id) | By::Driver(id) | By::Fleetadmin(id) | By::Admin(id) => Some(id),
            By::System => None,
        }
    }
}

/// What the booking copies of the driver who wins it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DriverSnapshot {
    pub id: UserId,
    pub name: String,
    pub image: String,
    pub contact: String,
    pub push_token: String,
    // Money and ratings cross nodes exactly, as strings.
    #[serde(with = "rust_decimal::serde::str")]
    pub rating: Decimal,
    pub vehicle_number: String,
    pub fleetadmin: Option<UserId>,
    pub location: Option<LatLng>,
}

impl From<&User> for DriverSnapshot {
    fn from(user: &User) -> Self {
        DriverSnapshot {
            id: user.id,
            name: user.full_name(),
            image: user.profile_image.clone().unwrap_or_default(),
            contact: user.contact().to_string(),
            push_token: user.pushToken.clone().unwrap_or_default(),
            rating: user.rating(),
            vehicle_number: user.vehicleNumber.clone(),
            fleetadmin: user.fleetadmin,
            location: user.location,
        }
    }
}

/// Everything that can happen to an existing booking.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Command {
    /// The dispatcher offers the booking to drivers (a wave, or a broadcast).
    Offer {
        drivers: Vec<UserId>,
        wave: u32,
        deadline: Option<Millis>,
    },
    /// An admin offers it to one driver by hand: with autoDispatch off, or
    /// on for a booking no driver has taken (issue #34).
    Assign {
        driver: UserId,
    },
    /// An offered driver takes it; the first one wins.
    Accept {
        driver: DriverSnapshot,
    },
    /// An offered driver says no.
    Decline,
    Arrive {
        location: Option<LatLng>,
    },
    Start {
        otp: Option<u32>,
        location: Option<LatLng>,
    },
    /// The driver is at the drop. `route` is the trip's tracked positions in
    /// order; `drop_address` the reverse-geocoded drop, when the maps answered.
    Reach {
        location: Option<LatLng>,
        drop_address: Option<String>,
        route: Vec<LatLng>,
    },
    /// The driver leaves the rider to pay by wallet or card: PENDING.
    AwaitPayment,
    /// Cash collected by the driver, or the rider paying from the wallet
    /// (`wallet_balance` is the rider's balance when the command was made),
    /// or the rider choosing to pay by card: REACHED → PENDING until the
    /// gateway's `ConfirmPayment`.
    Pay {
        mode: PaymentMode,
        #[serde(with = "rust_decimal::serde::str")]
        wallet_balance: Decimal,
    },
    /// A verified gateway payment; the caller keeps the gateway's reference
    /// so a replayed confirmation is recognised before it gets here.
    ConfirmPayment {
        gateway: String,
        #[serde(with = "rust_decimal::serde::str")]
        amount: Decimal,
    },
    /// The rider's stars, or `None`: the rider skipped rating.
    Rate {
        rating: Option<u8>,
    },
    /// `wallet_balance`: the rider's balance when the command was made, so
    /// a cancellation fee never takes a wallet below zero while negative
    /// balances are off (the actor fills it in; `None` counts as zero).
    Cancel {
        reason: String,
        #[serde(default, with = "rust_decimal::serde::str_option")]
        wallet_balance: Option<Decimal>,
    },
    /// An admin or the booking's fleet admin closes an unpaid trip (REACHED
    /// or PENDING → PAID): `Card` marks it paid (outside the app), `Cash`
    /// settles it in cash with the driver.
    Settle {
        mode: PaymentMode,
    },
    /// An admin or the booking's fleet admin completes a PAID booking.
    Complete,
    /// An admin refunds part of what the rider paid, to the rider's wallet
    /// or (already done at the gateway) to the card; the refund's key makes
    /// a repeated request one refund.
    Refund {
        refund: Box<super::refunds::Refund>,
    },
    /// The assigned driver's photo of a parcel at pickup or delivery (spec §3
    /// `pickup_image`, `deliver_image`); `url` is where the file is served.
    AttachImage {
        slot: ParcelImage,
        url: String,
    },
    /// A timer set by an earlier transition is due.
    TimerFired {
        kind: TimerKind,
        generation: u64,
    },
}

impl Command {
    /// A short name for logs and metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Offer { .. } => "offer",
            Command::Assign { .. } => "assign",
            Command::Accept { .. } => "accept",
            Command::Decline => "decline",
            Command::Arrive { .. } => "arrive",
            Command::Start { .. } => "start",
            Command::Reach { .. } => "reach",
            Command::AwaitPayment => "await_payment",
            Command::Pay { .. } => "pay",
            Command::ConfirmPayment { .. } => "confirm_payment",
            Command::Rate { .. } => "rate",
            Command::Cancel { .. } => "cancel",
            Command::Settle { .. } => "settle",
            Command::Complete => "complete",
            Command::Refund { .. } => "refund",
            Command::AttachImage { .. } => "attach_image",
            Command::TimerFired { .. } => "timer",
        }
    }
}

/// The two parcel photos of a delivery booking (spec §3, §7 file storage
/// `bookings/{id}/{pickup_image|deliver_image}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ParcelImage {
    PickupImage,
    DeliverImage,
}

impl ParcelImage {
    /// The booking field and file-storage name of the photo.
    pub fn as_str(self) -> &'static str {
        match self {
            ParcelImage::PickupImage => "pickup_image",
            ParcelImage::DeliverImage => "deliver_image",
        }
    }

    pub fn parse(name: &str) -> Option<ParcelImage> {
        match name {
            "pickup_image" => Some(ParcelImage::PickupImage),
            "deliver_image" => Some(ParcelImage::DeliverImage),
            _ => None,
        }
    }

    /// When the driver may take it: the pickup photo at the pickup (ARRIVED,
    /// or just after STARTED), the delivery photo at the drop (STARTED, just
    /// before REACHED, or REACHED).
    pub fn allowed_in(self) -> &'static [crate::model::BookingStatus] {
        use crate::model::BookingStatus::{Arrived, Reached, Started};
        match self {
            ParcelImage::PickupImage => &[Arrived, Started],
            ParcelImage::DeliverImage => &[Started, Reached],
        }
    }

    /// Whether the settings ask for this photo (`AllowDeliveryPickupImageCapture`,
    /// `AllowFinalDeliveryImageCapture`).
    pub fn enabled(self, settings: &Settings) -> bool {
        match self {
            ParcelImage::PickupImage => settings.AllowDeliveryPickupImageCapture,
            ParcelImage::DeliverImage => settings.AllowFinalDeliveryImageCapture,
        }
    }
}

/// What a transition may read besides the booking: the time, the settings and
/// the booking's car type (needed for the final fare and cancellation slabs).
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub now: Millis,
    pub settings: &'a Settings,
    pub car_type: Option<&'a CarType>,
}
