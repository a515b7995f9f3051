//! The [`Notifier`] the app's state holds: the in-app channel the socket
//! fan-out relays ([`InAppNotice`]) and the configured push services, each
//! message sent through the first service that can reach its token.

use super::push::{PushMessage, PushReport, PushSender};
use super::{expo, webpush};
use crate::config::{Config, PushKind};
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::broadcast;
use wayfare_engine::UserId;

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

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use serde_json::json;
    use std::sync::Mutex;
    use wayfare_engine::UserPlatform;

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
