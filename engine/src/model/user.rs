use super::{LatLng, Millis, Role};
use crate::ids::UserId;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// How the account was made (spec §3); it decides which profile fields lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum RegType {
    Email,
    #[default]
    Mobile,
    Social,
    Admin,
    Registration,
}

/// The user's platform, for push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum UserPlatform {
    #[serde(rename = "IOS")]
    Ios,
    #[serde(rename = "ANDROID")]
    Android,
    #[default]
    #[serde(rename = "WEB")]
    Web,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct UserLang {
    pub langLocale: String,
    pub dateLocale: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingDetail {
    pub user: UserId,
    pub rate: u8,
}

/// A driver's ratings: the average to one decimal and who gave what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ratings {
    pub userrating: Decimal,
    #[serde(default)]
    pub details: Vec<RatingDetail>,
}

/// An address the rider went to, counted so the most used come first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SavedAddress {
    pub description: String,
    pub lat: f64,
    pub lng: f64,
    pub count: u32,
}

/// A user of any role (spec §3). Driver-only fields are empty for others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct User {
    pub id: UserId,
    pub createdAt: Millis,
    pub usertype: Role,
    #[serde(default)]
    pub firstName: String,
    #[serde(default)]
    pub lastName: String,
    #[serde(default)]
    pub mobile: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub regType: RegType,
    #[serde(default)]
    pub referralId: String,
    /// The referral code used at sign-up, if any.
    #[serde(default)]
    pub signupViaReferral: Option<String>,
    #[serde(default)]
    pub approved: bool,
    #[serde(default)]
    pub walletBalance: Decimal,
    #[serde(default)]
    pub profile_image: Option<String>,
    #[serde(default)]
    pub licenseImage: Option<String>,
    #[serde(default)]
    pub pushToken: Option<String>,
    #[serde(default)]
    pub userPlatform: UserPlatform,
    #[serde(default)]
    pub lang: Option<UserLang>,
    #[serde(default)]
    pub bankName: String,
    #[serde(default)]
    pub bankCode: String,
    #[serde(default)]
    pub bankAccount: String,
    /// The owning fleet admin of a driver.
    #[serde(default)]
    pub fleetadmin: Option<UserId>,
    #[serde(default)]
    pub ratings: Option<Ratings>,
    #[serde(default)]
    pub savedAddresses: Vec<SavedAddress>,
    #[serde(default)]
    pub location: Option<LatLng>,
    // Driver extras.
    #[serde(default)]
    pub vehicleMake: String,
    #[serde(default)]
    pub vehicleModel: String,
    #[serde(default)]
    pub vehicleNumber: String,
    #[serde(default)]
    pub vehicleColor: String,
    /// Four digits, e.g. "2019".
    #[serde(default)]
    pub vehicleYear: String,
    #[serde(default)]
    pub other_info: String,
    /// The car type name a driver drives.
    #[serde(default)]
    pub carType: Option<String>,
    #[serde(default)]
    pub driverActiveStatus: bool,
    /// Busy with a trip.
    #[serde(default)]
    pub queue: bool,
    /// Played by the living demo (issue #35): a demo driver or rider of a
    /// `--demo` server. Their bookings are marked `demo`.
    #[serde(default)]
    pub demo: bool,
}

impl User {
    /// A blank user of a role; callers fill in what they know.
    pub fn new(id: UserId, usertype: Role, created_at: Millis) -> Self {
        Self {
            id,
            createdAt: created_at,
            usertype,
            firstName: String::new(),
            lastName: String::new(),
            mobile: String::new(),
            email: String::new(),
            regType: RegType::default(),
            referralId: String::new(),
            signupViaReferral: None,
            approved: false,
            walletBalance: Decimal::ZERO,
            profile_image: None,
            licenseImage: None,
            pushToken: None,
            userPlatform: UserPlatform::default(),
            lang: None,
            bankName: String::new(),
            bankCode: String::new(),
            bankAccount: String::new(),
            fleetadmin: None,
            ratings: None,
            savedAddresses: Vec::new(),
            location: None,
            vehicleMake: String::new(),
            vehicleModel: String::new(),
            vehicleNumber: String::new(),
            vehicleColor: String::new(),
            vehicleYear: String::new(),
            other_info: String::new(),
            carType: None,
            driverActiveStatus: false,
            queue: false,
            demo: false,
        }
    }

    /// First and last name joined, as withdraw requests and bookings show it.
    pub fn full_name(&self) -> String {
        format!("{} {}", self.firstName.trim(), self.lastName.trim()).trim().to_string()
    }

    /// The driver's average rating, "0" when unrated (spec §3 `driverRating`).
    pub fn rating(&self) -> Decimal {
        self.ratings.as_ref().map(|ratings| ratings.userrating).unwrap_or_default()
    }

    /// Phone when there is one, else e-mail.
    pub fn contact(&self) -> &str {
        if self.mobile.is_empty() { &self.email } else { &self.mobile }
    }
}
