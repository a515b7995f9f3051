//! What a push service is and what it is sent: one [`PushMessage`] per
//! device, the [`PushSender`] interface the Expo and Web Push services
//! implement, and the channel and mobile screen a booking notice carries.
//! It imports nothing of the crate, so the services, the notifier and the
//! presenters all build on it.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Value, json};
use wayfare_engine::booking::NoticeKey;
use wayfare_engine::{BookingId, Settings, UserPlatform};

/// One message to one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PushMessage {
    /// The device's push token: an Expo token, or a Web Push subscription (JSON).
    pub token: String,
    pub platform: UserPlatform,
    pub title: String,
    pub body: String,
    /// What the app opens (spec §2 "Mobile push targets": `screen` and `params`).
    pub data: Value,
    /// Android notification channel: `bookings`, `bookings-repeat` (spec §7).
    pub channel: String,
}

/// What a batch of sends came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PushReport {
    pub sent: usize,
    pub failed: usize,
}

impl std::ops::AddAssign for PushReport {
    fn add_assign(&mut self, other: PushReport) {
        self.sent += other.sent;
        self.failed += other.failed;
    }
}

/// A push service. Failures are counted and logged, never raised: a push is
/// a courtesy on top of the in-app notification, which always goes out.
#[async_trait]
pub trait PushSender: Send + Sync {
    fn name(&self) -> &'static str;
    /// Whether this service can reach a token.
    fn accepts(&self, token: &str) -> bool;
    async fn send(&self, messages: &[PushMessage]) -> PushReport;
}

/// The push channel of booking notices (spec §7): `bookings-repeat` when the
/// car horn repeats.
pub fn channel(settings: &Settings) -> &'static str {
    if settings.CarHornRepeat { "bookings-repeat" } else { "bookings" }
}

/// The mobile screen a notice opens (spec §2 "Mobile push targets").
pub fn screen_of(key: NoticeKey, booking: Option<BookingId>) -> Value {
    match (key, booking) {
        (NoticeKey::WalletUpdated, _) => json!({ "screen": "Wallet" }),
        (NoticeKey::ChatRequested, Some(booking)) => {
            json!({ "screen": "onlineChat", "params": { "bookingId": booking } })
        }
        (_, Some(booking)) => json!({ "screen": "BookedCab", "params": { "bookingId": booking } }),
        (_, None) => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_open_the_spec_screens() {
        let booking = BookingId::from_u128(7);
        assert_eq!(screen_of(NoticeKey::WalletUpdated, None)["screen"], "Wallet");
        assert_eq!(screen_of(NoticeKey::ChatRequested, Some(booking))["screen"], "onlineChat");
        assert_eq!(screen_of(NoticeKey::DriverArrived, Some(booking))["params"]["bookingId"], json!(booking));
        let horn = Settings { CarHornRepeat: true, ..Settings::default() };
        assert_eq!((channel(&Settings::default()), channel(&horn)), ("bookings", "bookings-repeat"));
    }
}
