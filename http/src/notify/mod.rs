//! Notifications to people (spec §3 "Notification", §4 "customer notified",
//! §7 `send_notification`): in the app over the socket, always, and to their
//! devices through push services when configured.
//!
//! - [`Notifier`] holds the in-app channel (the socket fan-out relays it to
//!   the `user:{id}` rooms as the `notification` event) and the configured
//!   [`PushSender`]s: [`expo::ExpoSender`] (the Expo push API, batches of
//!   100 as the original product sent) and [`webpush::WebPushSender`] (Web
//!   Push with VAPID keys generated at first start). With none configured
//!   it works offline with the in-app channel alone.
//! - [`booking_notices`] turns the engine's booking notices (`Event::
//!   Notification`) into texts in the receiver's language and delivers them
//!   both ways, on the push channel `bookings` or `bookings-repeat`.
//! - Broadcasts from the admin panel go through the same [`Notifier`]
//!   (`crate::routes::notifications`).
//!
//! The files, none importing one listed after it:
//! - [`push`]: what a push service is ([`PushSender`]) and what it sends
//!   ([`PushMessage`]), with the channel and the screen a booking notice
//!   opens; [`expo`] and [`webpush`] are the two services.
//! - [`notifier`]: the [`Notifier`] the app's state holds, and the
//!   [`InAppNotice`] its in-app channel carries.
//! - [`notices`]: the task that delivers the engine's booking notices.
//! - [`driver_message`](mod@driver_message): a dispatch console's message to one driver.

pub mod driver_message;
pub mod expo;
pub mod notices;
pub mod notifier;
pub mod push;
pub mod webpush;

pub use driver_message::driver_message;
pub use notices::booking_notices;
pub use notifier::{InAppNotice, Notifier};
pub use push::{PushMessage, PushReport, PushSender, channel, screen_of};
