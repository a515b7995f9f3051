//! A message from the dispatch console to one driver
//! (`POST /api/v1/drivers/{id}/message`). It reads the app's state,
//! so it lives apart from the notifier the state holds.

use super::push::{PushMessage, channel};
use serde_json::{Value, json};
use wayfare_engine::UserId;
use wayfare_engine::booking::NOTIFICATION_TITLE_KEY;

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
