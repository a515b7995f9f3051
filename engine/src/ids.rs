//! Typed identifiers. UUIDs (v7 when minted by the server) so ids can be made
//! on any node without a round-trip; the engine never mints them itself.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            pub fn from_u128(value: u128) -> Self {
                Self(Uuid::from_u128(value))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(formatter)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(text).map(Self)
            }
        }
    };
}

id_type!(
    /// A user of any role.
    UserId
);
id_type!(
    /// A booking.
    BookingId
);
id_type!(
    /// A car type.
    CarTypeId
);
id_type!(
    /// A promo.
    PromoId
);
id_type!(
    /// A language.
    LanguageId
);
id_type!(
    /// A withdraw request.
    WithdrawId
);
id_type!(
    /// A broadcast notification.
    NotificationId
);
id_type!(
    /// An SOS alert.
    SosId
);
id_type!(
    /// A refund of a booking's money (issue #37).
    RefundId
);
