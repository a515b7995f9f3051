//! The small types every entity shares: time, places, roles, the app's
//! category and a priced choice.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch. The engine never reads a clock: every
/// function that needs the time takes one of these.
pub type Millis = i64;

pub const MINUTE_MS: Millis = 60_000;

/// A point on the map.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LatLng {
    #[cfg_attr(feature = "openapi", schema(minimum = -90, maximum = 90))]
    pub lat: f64,
    #[cfg_attr(feature = "openapi", schema(minimum = -180, maximum = 180))]
    pub lng: f64,
}

impl LatLng {
    pub fn new(lat: f64, lng: f64) -> Self {
        Self { lat, lng }
    }

    /// Latitude in -90..=90 and longitude in -180..=180, both finite.
    pub fn is_valid(&self) -> bool {
        self.lat.is_finite()
            && self.lng.is_finite()
            && (-90.0..=90.0).contains(&self.lat)
            && (-180.0..=180.0).contains(&self.lng)
    }
}

/// A pickup, drop or waypoint: coordinates and the address shown to people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Place {
    #[cfg_attr(feature = "openapi", schema(minimum = -90, maximum = 90))]
    pub lat: f64,
    #[cfg_attr(feature = "openapi", schema(minimum = -180, maximum = 180))]
    pub lng: f64,
    #[serde(default)]
    pub add: String,
}

impl Place {
    pub fn point(&self) -> LatLng {
        LatLng::new(self.lat, self.lng)
    }
}

/// One point of a route polyline, as the spec's `coords` list writes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Coord {
    pub latitude: f64,
    pub longitude: f64,
}

/// The four user types of spec §1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Rider,
    Driver,
    Fleetadmin,
    Admin,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Rider, Role::Driver, Role::Fleetadmin, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Rider => "rider",
            Role::Driver => "driver",
            Role::Fleetadmin => "fleetadmin",
            Role::Admin => "admin",
        }
    }

    /// Parses a stored user type; anything else is `not_valid_user_type` (spec §6).
    pub fn parse(text: &str) -> crate::DomainResult<Role> {
        match text {
            "rider" | "customer" => Ok(Role::Rider),
            "driver" => Ok(Role::Driver),
            "fleetadmin" => Ok(Role::Fleetadmin),
            "admin" => Ok(Role::Admin),
            _ => Err(crate::ErrorKey::NotValidUserType.into()),
        }
    }
}

/// The category of the platform and of each booking (spec §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum AppCategory {
    #[default]
    Taxi,
    Delivery,
}

/// A parcel type or option of a car type, with its price (spec §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PricedChoice {
    pub description: String,
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1000000))]
    pub amount: rust_decimal::Decimal,
}
