use super::{AppCategory, DocumentKind};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// How Book Now bookings are offered to drivers (DESIGN.md, "Server behaviours").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DispatchPolicy {
    /// Every eligible driver in the radius at once, as the original product did.
    Broadcast,
    /// The nearest few, then the next few when the offers expire.
    Waves,
    /// One driver at a time, nearest first, the next when they decline or
    /// let the offer lapse.
    Nearest,
    /// Bookings and free drivers gathered for `dispatchBatchSeconds`, then
    /// matched together so the total pickup time is least (issue #16).
    /// The default: in the simulated Baltimore day it serves more bookings
    /// than `waves` or `broadcast` with shorter waits (docs/simulations.md).
    #[default]
    Batch,
}

impl DispatchPolicy {
    pub const ALL: [DispatchPolicy; 4] =
        [DispatchPolicy::Broadcast, DispatchPolicy::Waves, DispatchPolicy::Nearest, DispatchPolicy::Batch];

    pub fn as_str(self) -> &'static str {
        match self {
            DispatchPolicy::Broadcast => "broadcast",
            DispatchPolicy::Waves => "waves",
            DispatchPolicy::Nearest => "nearest",
            DispatchPolicy::Batch => "batch",
        }
    }

    pub fn parse(name: &str) -> Option<DispatchPolicy> {
        DispatchPolicy::ALL.into_iter().find(|policy| policy.as_str() == name)
    }
}

/// The platform settings, one row (spec §3), plus the dispatch knobs we added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
#[allow(non_snake_case)]
pub struct Settings {
    pub appName: String,
    pub appcat: AppCategory,
    /// Currency code, e.g. USD.
    pub code: String,
    pub symbol: String,
    /// True puts the symbol after the amount.
    pub swipe_symbol: bool,
    /// Decimal places of every amount.
    #[cfg_attr(feature = "openapi", schema(maximum = 8))]
    pub decimal: u32,
    pub otp_secure: bool,
    pub driver_approval: bool,
    /// Referral bonus credited to both users (0 to 1000000).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1000000))]
    pub bonus: Decimal,
    /// Quick amounts offered when topping up, comma separated.
    pub walletMoneyField: String,
    pub country: String,
    pub restrictCountry: String,
    pub AllowCountrySelection: bool,
    pub convert_to_mile: bool,
    pub CarHornRepeat: bool,
    pub AllowDeliveryPickupImageCapture: bool,
    pub AllowFinalDeliveryImageCapture: bool,
    pub RiderWithDraw: bool,
    pub horizontal_view: bool,
    pub useDistanceMatrix: bool,
    /// Dispatch radius, in km (miles when `convert_to_mile`).
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub driverRadius: f64,
    pub autoDispatch: bool,
    /// Whether a wallet may go below zero when paying.
    pub negativeBalance: bool,
    pub bank_fields: bool,
    pub showLiveRoute: bool,
    /// Panic (emergency) phone number.
    pub panic: String,
    /// False is demo mode: writes refused, contact data masked.
    pub AllowCriticalEditsAdmin: bool,
    /// Sign-in with Facebook (spec §3); like the two below, it shows only
    /// when the server has the provider's client id and secret (issue #37).
    pub FacebookLoginEnabled: bool,
    /// Sign-in with Apple (ours, as `FacebookLoginEnabled`).
    pub AppleLoginEnabled: bool,
    /// Sign-in with Google (ours, as `FacebookLoginEnabled`).
    pub GoogleLoginEnabled: bool,
    pub CompanyName: String,
    pub CompanyAddress: String,
    pub CompanyWebsite: String,
    pub contact_email: String,
    pub CompanyPhone: String,
    pub CompanyTerms: String,
    pub FacebookHandle: String,
    pub TwitterHandle: String,
    pub InstagramHandle: String,
    pub AppleStoreLink: String,
    pub PlayStoreLink: String,
    pub dispatchPolicy: DispatchPolicy,
    /// Drivers offered at once in a wave (1 to 100).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100))]
    pub dispatchWaveSize: u32,
    /// How long a driver has to answer an offer, in seconds (5 to 3600).
    #[cfg_attr(feature = "openapi", schema(minimum = 5, maximum = 3600))]
    pub dispatchOfferSeconds: u32,
    /// Waves tried before the booking waits for manual assignment or a retry (1 to 100).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 100))]
    pub dispatchMaxWaves: u32,
    /// How much each wave after the first widens the radius, in the radius' unit.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub dispatchRadiusStep: f64,
    /// The `batch` policy's window: how long bookings and drivers are
    /// gathered before they are matched, in seconds (1 to 60).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 60))]
    pub dispatchBatchSeconds: u32,
    /// The documents a driver must upload and have approved to go online
    /// (issue #33): `licence`, `registration`, `insurance`, `photo`.
    pub driverDocuments: Vec<DocumentKind>,
    /// Minutes a Book Now booking looks for a driver before the system
    /// cancels it, `no_driver_available` (1 to 1440; issue #34).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1440))]
    pub noDriverCancelMinutes: u32,
    /// Minutes after payment a booking its rider did not rate completes by
    /// itself (1 to 10080).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10080))]
    pub autoCompleteMinutes: u32,
    /// The living demo (issue #35): demo drivers and riders played by the
    /// simulator's people against this server. Only a `--demo` server plays
    /// them; elsewhere the switch does nothing.
    pub livingDemo: bool,
    /// How many bookings an hour the living demo's riders make (0 to 600).
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 600))]
    pub livingDemoBookingsPerHour: u32,
    /// The tax receipts name, e.g. `VAT` (issue #37).
    pub taxName: String,
    /// The tax rate in percent, 0 to 100; 0 shows no tax on receipts.
    /// Display only: fares already include it, and a receipt shows the
    /// part of the total that is tax ("of which VAT 20%").
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 100))]
    pub taxRate: Decimal,
    /// Prices include the tax. Always true for now: a tax added on top would
    /// have to be charged by the fare rules, which do not (docs/operations.md).
    pub taxIncluded: bool,
    /// The company's tax number, printed on receipts and statements.
    pub taxNumber: String,
}

/// Spec §9 default driver radius.
pub const DEFAULT_DRIVER_RADIUS: f64 = 10.0;

impl Default for Settings {
    fn default() -> Self {
        Self {
            appName: "Wayfare".into(),
            appcat: AppCategory::Taxi,
            code: "USD".into(),
            symbol: "$".into(),
            swipe_symbol: false,
            decimal: 2,
            otp_secure: false,
            driver_approval: true,
            bonus: Decimal::ZERO,
            walletMoneyField: "5,10,20,50".into(),
            country: "United States".into(),
            restrictCountry: String::new(),
            AllowCountrySelection: false,
            convert_to_mile: false,
            CarHornRepeat: false,
            AllowDeliveryPickupImageCapture: false,
            AllowFinalDeliveryImageCapture: false,
            RiderWithDraw: false,
            horizontal_view: false,
            useDistanceMatrix: false,
            driverRadius: DEFAULT_DRIVER_RADIUS,
            autoDispatch: true,
            negativeBalance: false,
            bank_fields: false,
            showLiveRoute: true,
            panic: String::new(),
            AllowCriticalEditsAdmin: true,
            FacebookLoginEnabled: false,
            AppleLoginEnabled: false,
            GoogleLoginEnabled: false,
            CompanyName: String::new(),
            CompanyAddress: String::new(),
            CompanyWebsite: String::new(),
            contact_email: String::new(),
            CompanyPhone: String::new(),
            CompanyTerms: String::new(),
            FacebookHandle: String::new(),
            TwitterHandle: String::new(),
            InstagramHandle: String::new(),
            AppleStoreLink: String::new(),
            PlayStoreLink: String::new(),
            dispatchPolicy: DispatchPolicy::Batch,
            dispatchWaveSize: 3,
            dispatchOfferSeconds: 20,
            dispatchMaxWaves: 3,
            dispatchRadiusStep: 0.0,
            dispatchBatchSeconds: 5,
            driverDocuments: DocumentKind::ALL.to_vec(),
            noDriverCancelMinutes: 10,
            autoCompleteMinutes: 60,
            livingDemo: false,
            livingDemoBookingsPerHour: 30,
            taxName: String::new(),
            taxRate: Decimal::ZERO,
            taxIncluded: true,
            taxNumber: String::new(),
        }
    }
}

impl Settings {
    /// Demo mode is `AllowCriticalEditsAdmin` false (spec §6).
    pub fn demo_mode(&self) -> bool {
        !self.AllowCriticalEditsAdmin
    }

    /// The dispatch radius in km, whatever unit the setting is kept in.
    pub fn driver_radius_km(&self) -> f64 {
        let radius = if self.driverRadius > 0.0 { self.driverRadius } else { DEFAULT_DRIVER_RADIUS };
        if self.convert_to_mile { radius * KM_PER_MILE } else { radius }
    }

    /// How long a Book Now booking looks for a driver.
    pub fn no_driver_cancel_ms(&self) -> super::Millis {
        i64::from(self.noDriverCancelMinutes.max(1)) * super::MINUTE_MS
    }

    /// How long a paid booking waits for its rating.
    pub fn auto_complete_ms(&self) -> super::Millis {
        i64::from(self.autoCompleteMinutes.max(1)) * super::MINUTE_MS
    }

    /// The widening per wave in km.
    pub fn radius_step_km(&self) -> f64 {
        let step = self.dispatchRadiusStep.max(0.0);
        if self.convert_to_mile { step * KM_PER_MILE } else { step }
    }
}

/// Spec §9: distances are divided by this when `convert_to_mile` is on.
pub const KM_PER_MILE: f64 = 1.609344;
