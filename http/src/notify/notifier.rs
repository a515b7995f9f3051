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

pub mod expo;
pub mod webpush;

use crate::config::{Config, PushKind};
use crate::i18n::LanguageCache;
use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::broadcast;
use wayfare_actors::{Event, Runtime};
use wayfare_engine::booking::{NOTIFICATION_TITLE_KEY, NoticeKey};
use wayfare_engine::{BookingId, Settings, User, UserId, UserPlatform};

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

/// A notification for users' sockets (serde: in a cluster it reaches the
/// users' sockets on every node).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InAppNotice {
    pub to: Vec<UserId>,
    pub payload: Value,
}

/// Messages the in-app channel holds for a slow socket fan-out.
const IN_APP_CAPACITY: usize = 4_096;

pub struct Notifier {
    in_app: broadcast::Sender<Arc<InAppNotice>>,
    senders: Vec<Arc<dyn PushSender>>,
    vapid_public_key: Option<String>,
}

impl Notifier {
    /// The in-app channel alone: no push service.
    pub fn in_app_only() -> Notifier {
        Notifier::with_senders(Vec::new(), None)
    }

    pub fn with_senders(senders: Vec<Arc<dyn PushSender>>, vapid_public_key: Option<String>) -> Notifier {
        let (in_app, _) = broadcast::channel(IN_APP_CAPACITY);
        Notifier { in_app, senders, vapid_public_key }
    }

    /// The push services the configuration names. Web Push reads its VAPID
    /// key pair from the data directory, generating it at first start.
    pub fn from_config(config: &Config) -> anyhow::Result<Notifier> {
        let mut senders: Vec<Arc<dyn PushSender>> = Vec::new();
        let mut vapid_public_key = None;
        for kind in &config.push.senders {
            match kind {
                PushKind::Expo => senders.push(Arc::new(expo::ExpoSender::new(
                    &config.push.expo_url,
                    config.push.expo_access_token.clone(),
                ))),
                PushKind::Webpush => {
                    let keys = webpush::VapidKeys::load_or_create(&config.vapid_key_path())?;
                    vapid_public_key = Some(keys.public_key_base64());
                    let sender = webpush::WebPushSender::new(
                        keys,
                        &config.push.web_push_subject,
                        config.push.web_push_allow_http,
                    );
                    senders.push(Arc::new(sender));
                }
            }
        }
        if senders.is_empty() {
            tracing::info!("no push service configured: notifications are in-app only");
        }
        Ok(Notifier::with_senders(senders, vapid_public_key))
    }

    /// The socket fan-out's feed.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<InAppNotice>> {
        self.in_app.subscribe()
    }

    /// Sends a notification to users' sockets (no socket is not an error).
    pub fn in_app(&self, to: Vec<UserId>, payload: Value) {
        if !to.is_empty() {
            let _ = self.in_app.send(Arc::new(InAppNotice { to, payload }));
        }
    }

    /// Whether any push service is configured.
    pub fn pushes(&self) -> bool {
        !self.senders.is_empty()
    }

    pub fn sender_names(&self) -> Vec<&'static str> {
        self.senders.iter().map(|sender| sender.name()).collect()
    }

    /// The Web Push application server key (base64url), when Web Push is on.
    pub fn vapid_public_key(&self) -> Option<&str> {
        self.vapid_public_key.as_deref()
    }

    /// Sends each message through the first service that accepts its
    /// token; tokens no service accepts are skipped.
    pub async fn push(&self, messages: Vec<PushMessage>) -> PushReport {
        let mut report = PushReport::default();
        let mut by_sender: Vec<Vec<PushMessage>> = vec![Vec::new(); self.senders.len()];
        for message in messages {
            if let Some(index) = self.senders.iter().position(|sender| sender.accepts(&message.token)) {
                by_sender[index].push(message);
            }
        }
        for (sender, messages) in self.senders.iter().zip(by_sender) {
            if !messages.is_empty() {
                report += sender.send(&messages).await;
            }
        }
        if report.failed > 0 {
            tracing::warn!(sent = report.sent, failed = report.failed, "some push notifications failed");
        }
        report
    }
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

/// Delivers the engine's booking notices until the runtime's event bus
/// closes: each receiver gets the notice's texts in their language, in the
/// app and, when they have a push token, on their device.
pub async fn booking_notices(runtime: Runtime, languages: LanguageCache, notifier: Arc<Notifier>) {
    let mut events = runtime.subscribe();
    loop {
        let first = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(skipped)) => {
                tracing::warn!(skipped, "booking notices lagged behind the event bus");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        };
        // What is already queued goes with it: an offer notifies a whole
        // wave, and one read finds all of its receivers.
        let mut notices = Vec::new();
        let mut next = Some(first);
        while let Some(event) = next.take() {
            if let Event::Notification { to, key, booking } = event.as_ref() {
                notices.push(Notice { to: *to, key: *key, booking: *booking });
            }
            if notices.len() < NOTICES_PER_READ {
                next = events.try_recv().ok();
            }
        }
        if notices.is_empty() {
            continue;
        }
        let (runtime, languages, notifier) = (runtime.clone(), languages.clone(), notifier.clone());
        // Off the loop: a slow storage read or push service must not make it lag.
        tokio::spawn(async move { deliver_notices(&runtime, &languages, &notifier, notices).await });
    }
}

/// How many notices share one read of their receivers.
const NOTICES_PER_READ: usize = 64;

#[derive(Debug, Clone, Copy)]
struct Notice {
    to: UserId,
    key: NoticeKey,
    booking: Option<BookingId>,
}

async fn deliver_notices(runtime: &Runtime, languages: &LanguageCache, notifier: &Notifier, notices: Vec<Notice>) {
    let storage = runtime.storage();
    let mut ids: Vec<UserId> = notices.iter().map(|notice| notice.to).collect();
    ids.sort_unstable();
    ids.dedup();
    let users: HashMap<UserId, User> = match storage.users_by_id(&ids).await {
        Ok(users) => users.into_iter().map(|user| (user.id, user)).collect(),
        Err(error) => {
            tracing::warn!(notices = notices.len(), %error, "notices dropped: their receivers could not be read");
            return;
        }
    };
    let settings = runtime.catalog().settings.clone();
    let mut pushes = Vec::new();
    for Notice { to, key, booking } in notices {
        let Some(user) = users.get(&to) else {
            tracing::warn!(user = %to, "notice to an unknown user dropped");
            continue;
        };
        let localizer = languages.for_user(storage.as_ref(), user).await;
        let payload = crate::present::notification(key, booking, &settings, &localizer);
        notifier.in_app(vec![to], payload);
        if let Some(token) = user.pushToken.as_ref().filter(|token| !token.is_empty())
            && notifier.pushes()
        {
            pushes.push(PushMessage {
                token: token.clone(),
                platform: user.userPlatform,
                title: localizer.text(NOTIFICATION_TITLE_KEY),
                body: localizer.text(key.as_str()),
                data: screen_of(key, booking),
                channel: channel(&settings).to_string(),
            });
        }
    }
    if !pushes.is_empty() {
        notifier.push(pushes).await;
    }
}

/// A message from the dispatch console to one driver: in the app, under
/// the notification title in the driver's language, and on their device.
/// Answers what the app was sent.
pub async fn driver_message(
    state: &crate::state::AppState,
    driver: &wayfare_engine::User,
    from: UserId,
    text: &str,
) -> Value {
    let (notifier, now) = (&state.notifier, state.now());
    let settings = state.runtime.catalog().settings.clone();
    let localizer = state.languages.for_user(state.storage.as_ref(), driver).await;
    let title = localizer.text(NOTIFICATION_TITLE_KEY);
    let payload = json!({ "key": "message", "title": title, "body": text, "from": from, "createdAt": now });
    notifier.in_app(vec![driver.id], payload.clone());
    if let Some(token) = driver.pushToken.clone().filter(|token| !token.is_empty())
        && notifier.pushes()
    {
        let message = PushMessage {
            token,
            platform: driver.userPlatform,
            title,
            body: text.to_string(),
            data: json!({}),
            channel: channel(&settings).to_string(),
        };
        notifier.push(vec![message]).await;
    }
    payload
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Recording {
        prefix: &'static str,
        seen: Mutex<Vec<PushMessage>>,
    }

    #[async_trait]
    impl PushSender for Recording {
        fn name(&self) -> &'static str {
            self.prefix
        }
        fn accepts(&self, token: &str) -> bool {
            token.starts_with(self.prefix)
        }
        async fn send(&self, messages: &[PushMessage]) -> PushReport {
            self.seen.lock().unwrap().extend_from_slice(messages);
            PushReport { sent: messages.len(), failed: 0 }
        }
    }

    fn message(token: &str) -> PushMessage {
        PushMessage {
            token: token.into(),
            platform: UserPlatform::Android,
            title: "t".into(),
            body: "b".into(),
            data: json!({}),
            channel: "bookings".into(),
        }
    }

    #[tokio::test]
    async fn each_token_goes_to_the_service_that_can_reach_it() {
        let expo = Arc::new(Recording { prefix: "Expo", seen: Mutex::default() });
        let web = Arc::new(Recording { prefix: "{", seen: Mutex::default() });
        let notifier = Notifier::with_senders(vec![expo.clone(), web.clone()], None);
        let report = notifier
            .push(vec![message("ExpoA"), message("{\"endpoint\":1}"), message("unknown"), message("ExpoB")])
            .await;
        assert_eq!(report, PushReport { sent: 3, failed: 0 });
        assert_eq!(expo.seen.lock().unwrap().iter().map(|m| m.token.as_str()).collect::<Vec<_>>(), ["ExpoA", "ExpoB"]);
        assert_eq!(web.seen.lock().unwrap().len(), 1);
    }

    #[test]
    fn notices_open_the_spec_screens() {
        let booking = BookingId::from_u128(7);
        assert_eq!(screen_of(NoticeKey::WalletUpdated, None)["screen"], "Wallet");
        assert_eq!(screen_of(NoticeKey::ChatRequested, Some(booking))["screen"], "onlineChat");
        assert_eq!(screen_of(NoticeKey::DriverArrived, Some(booking))["params"]["bookingId"], json!(booking));
        let horn = Settings { CarHornRepeat: true, ..Settings::default() };
        assert_eq!((channel(&Settings::default()), channel(&horn)), ("bookings", "bookings-repeat"));
    }

    #[tokio::test]
    async fn without_push_services_the_notifier_is_in_app_only() {
        let notifier = Notifier::in_app_only();
        let mut feed = notifier.subscribe();
        assert!(!notifier.pushes());
        assert_eq!(notifier.push(vec![message("ExpoA")]).await, PushReport::default());
        notifier.in_app(vec![UserId::from_u128(1)], json!({ "title": "hi" }));
        assert_eq!(feed.recv().await.unwrap().to, vec![UserId::from_u128(1)]);
    }
}
