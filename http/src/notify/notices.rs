//! The engine's booking notices delivered: one task per state, subscribed to
//! the runtime's event bus, puts each notice into its receiver's language
//! and sends it in the app and, when the receiver has a push token, to
//! their device.

use super::notifier::Notifier;
use super::push::{PushMessage, channel, screen_of};
use crate::i18n::LanguageCache;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::broadcast;
use wayfare_actors::{Event, Runtime};
use wayfare_engine::booking::{NOTIFICATION_TITLE_KEY, NoticeKey};
use wayfare_engine::{BookingId, User, UserId};

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
